/*
 * node_ring.c - the ring allgather along the ranks sorted by node.
 *
 * Source: NEC MPI/SX section 4.2 ("for large data sizes, a linear (ring)
 * algorithm is used with processes ordered according to their node
 * identity, which ensures that exactly one process on each node receives
 * data from another node and exactly one process on each node sends data to
 * another node"), and Traeff et al. (pipelined-irregular-allgather) section
 * 2.2 and Figure 1: the processes are virtually re-ranked so that in every
 * round one process per node receives from another node and one sends to
 * another node, also when the nodes hold different numbers of processes.
 * The ring along rank order is, by NEC's measurements, about 7 times slower
 * on a random placement: nearly every rank then has both neighbours on other
 * nodes, and a node's network link carries ppn messages per round.
 *
 * Steps:
 *   1. Ring order: the ranks sorted by (node, rank) (ch4coll_node_order of
 *      topo/nodes.h); position x holds order[x].  Along it each node is a
 *      run of positions, so the ring crosses each node boundary once in
 *      each direction: from the node's last rank to the next node's first,
 *      the last node wrapping to the first.  Every rank computes the same
 *      order from the node map.  Without a node map (args.loc NULL) the
 *      order is the rank order: the plain ring (ring.c).
 *   2. Ring: step k = 0..p-2 at position x: send the block of position
 *      x - k to position x + 1 and receive the block of position x - k - 1
 *      from position x - 1.  Blocks stay where their rank puts them in the
 *      receive buffer (rank r's block at r * n bytes): only who talks to
 *      whom changes, never where data lands.  The send of step k waits for
 *      the receive of step k - 1; all receives are posted at once; step k
 *      uses tag k.  In place, the rank's block is already at its place.
 *
 * Cost, n bytes per rank: in every step each rank sends and receives one
 * block, and with two or more nodes one edge per node leaves the node, so a
 * step takes alpha + n beta, the inter-node link (the slowest; the
 * intra-node edges take alpha_node + n beta_node); a step's send waits only
 * for the step before on its own link, so no slower chain forms:
 *   T = (p-1) (alpha + n beta)
 * as the plain ring on consecutive nodes, whatever the placement.  On one
 * node every edge is intra-node: T = (p-1) (alpha_node + n beta_node).  A
 * node's network interface carries one message per step in each
 * direction, against up to ppn for the plain ring on a cyclic placement.
 * The replay with a node map (model/replay.c: one interface per node)
 * gives exactly this T on block and cyclic placements, and ppn times more
 * for the rank-order ring on the cyclic one (p = 96, ppn 8, 1 MiB in all:
 * 0.29 ms against 2.35 ms).
 *
 * Scratch: none; p + nodes + 1 ints while building.  Restrictions: none
 * (any p, placement and count; regular blocks, allgather).  Parameters:
 * none.
 *
 * Worked example, p = 7 on nodes of 3, cyclic ({0, 3, 6}, {1, 4},
 * {2, 5}): order 0 3 6 1 4 2 5, ring 0 -> 3 -> 6 -> 1 -> 4 -> 2 -> 5 -> 0.
 * Only 6 -> 1, 4 -> 2 and 5 -> 0 cross nodes: one out of and one into
 * each node per step, where the plain ring 0 -> 1 -> ... -> 6 -> 0 crosses
 * on all 7 edges (node {0, 3, 6} sends three blocks out per step).  Rank 6
 * (position 2) sends blocks 6, 3, 0, 5, 2, 4 to rank 1 and receives blocks
 * 3, 0, 5, 2, 4, 1 from rank 3, each at 6 * n, 3 * n, ... of its receive
 * buffer.
 */
#include "algo.h"

#include "../topo/nodes.h"

/* Step 1: the ring order into order[p] (the node order, or the rank order
 * without a node map); returns this rank's position.  first: nodes + 1
 * ints. */
static int ring_order(const ch4coll_args_t *a, int *order, int *first)
{
    int p = a->size, x;

    if (!a->loc) {
        for (x = 0; x < p; x++)
            order[x] = x;
        return a->rank;
    }
    ch4coll_node_order(p, a->loc->node_of, a->loc->nodes, order, first);
    for (x = 0; order[x] != a->rank; x++)
        ;
    return x;
}

/* Step 2: p - 1 steps around the ring from position x. */
static void ring(ch4coll_sched_t *s, const ch4coll_args_t *a, const int *order,
                 int x)
{
    int p = a->size, k, prev = -1, d[1];
    int right = order[(x + 1) % p], left = order[(x + p - 1) % p];
    size_t n = a->count;

    for (k = 0; k < p - 1; k++) {
        int sblk = order[(x - k + p) % p], rblk = order[(x - k - 1 + p) % p];
        ch4coll_ref_t from =
            k == 0 && !a->inplace
                ? ch4coll_ref(CH4COLL_BUF_SEND, 0)
                : ch4coll_ref(CH4COLL_BUF_RECV, (size_t) sblk * n);
        ch4coll_sched_send(s, from, n, right, k, ch4coll_dep1(prev, d), d);
        prev = ch4coll_sched_recv(
            s, ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rblk * n), n, left, k, 0,
            NULL);
    }
}

int ch4coll_allgather_node_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    int p = a->size, nodes = a->loc ? a->loc->nodes : p, x, *order;

    (void) params;
    ch4coll_sched_set_ntags(s, p > 1 ? p - 1 : 1);
    if (a->count == 0)
        return CH4COLL_OK;
    if (!a->inplace)
        ch4coll_sched_copy(
            s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
            ch4coll_ref(CH4COLL_BUF_RECV, (size_t) a->rank * a->count),
            a->count, 0, NULL);
    if (p == 1)
        return CH4COLL_OK;
    order = ch4coll_malloc(((size_t) p + nodes + 1) * sizeof *order);
    if (!order)
        return CH4COLL_ERR_NOMEM;
    x = ring_order(a, order, order + p);
    ring(s, a, order, x);
    ch4coll_free(order);
    return CH4COLL_OK;
}

/* One step: the inter-node link with two or more nodes (or without a node
 * map), else the intra-node one (see the opening note). */
double ch4coll_cost_allgather_node_ring(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    double n = (double) a->count;

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (a->loc && a->loc->nodes == 1)
        return (a->size - 1) * (m->alpha_node + n * m->beta_node);
    return (a->size - 1) * (m->alpha + n * m->beta);
}
