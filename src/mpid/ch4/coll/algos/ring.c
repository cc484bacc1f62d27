/*
 * ring.c - ring allgather and allgatherv.
 *
 * Source: the ring allgather of Rabenseifner & Adamidis section 3.7 ("each
 * process sends its chunk of the result vector around the ring to the right
 * (rank + 1) until its left neighbour has received it after p - 1 steps"),
 * which Traeff et al. (pipelined-irregular-allgather, section 2) call the
 * linear ring for irregular block sizes.  On nodes whose ranks are not
 * consecutive the ring runs along the ranks sorted by node (NEC MPI/SX
 * section 4.2, Traeff et al. Figure 1).  The name node_ring (allgather)
 * is an alias of this ring (registry.c).
 *
 * Ring order: position x holds rank x, or with a node map whose nodes are
 * not consecutive (args.loc) the x-th rank sorted by (node, rank)
 * (topo/nodes.h).  That ring crosses each node boundary once in each
 * direction, so in every step one rank per node receives from another node
 * and one sends to another node, whatever the placement; the rank-order
 * ring on a cyclic placement crosses on every edge.  Every rank computes
 * the same order from the node map; with consecutive nodes (or none) the
 * two orders are the same.
 *
 * Step k = 0..p-2 at position x: send the block of position x - k to
 * position x + 1, receive the block of position x - k - 1 from position
 * x - 1 straight into its rank's place.  The send of step k waits only for
 * the receive of step k - 1; all receives are posted at once.  Step k uses
 * tag k.
 * T = (p-1) alpha + (p-1)/p N beta for N bytes in all (regular blocks).
 * Irregular blocks: every non-empty block j makes p - 1 hops one after
 * another, and each link carries every non-empty block but the one of the
 * rank it leads to, so T = max((p-1) max_j t_j, sum_j t_j - min_j t_j) with
 * t_j = alpha + c_j beta (0 for an empty block), whatever the order; the
 * slowest block's journey usually decides (Traeff et al.'s linear ring).
 * No scratch.  Zero-size blocks are skipped on both sides.  The node order
 * takes p + nodes + 1 ints while building.
 *
 * Worked example, p = 3 at rank 1: step 0 sends block 1 to 2, receives
 * block 0 from 0; step 1 forwards block 0 to 2 and receives block 2.
 * On a node map, p = 5 cyclic on 2 nodes ({0, 2, 4}, {1, 3}): ring
 * 0 2 4 1 3; rank 4 sends block 4, 2, 0, 3 to rank 1 and receives block 2,
 * 0, 3, 1 from rank 2; only 4 -> 1 and 3 -> 0 cross nodes.
 */
#include "algo.h"

#include "../topo/nodes.h"

static size_t blk_count(const ch4coll_args_t *a, int i)
{
    return a->counts ? a->counts[i] : a->count;
}

static size_t blk_off(const ch4coll_args_t *a, int i)
{
    return a->displs ? a->displs[i] : (size_t) i * a->count;
}

/* Rank at ring position x (mod p); order NULL: rank x. */
static int rank_at(const int *order, int x, int p)
{
    x = (x % p + p) % p;
    return order ? order[x] : x;
}

/* The ring order: NULL (rank order) unless the nodes are not consecutive,
 * else the node order (freed by the caller).  *x: this rank's position. */
static int ring_order(const ch4coll_args_t *a, int **order, int *x)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size, *first;

    *order = NULL;
    *x = a->rank;
    if (!loc || loc->consecutive)
        return CH4COLL_OK;
    *order = ch4coll_malloc(((size_t) p + loc->nodes + 1) * sizeof **order);
    if (!*order)
        return CH4COLL_ERR_NOMEM;
    first = *order + p;
    *x = ch4coll_node_ring(p, loc->node_of, loc->nodes, a->rank, *order, first);
    return CH4COLL_OK;
}

/* Step k on tag k. */
int ch4coll_ntags_allgather_ring(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return a->size > 1 ? a->size - 1 : 1;
}

static int allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, rank = a->rank, k, prev = -1, d[1], x, *order, rc;
    int right, left;
    size_t own = blk_count(a, rank);

    rc = ring_order(a, &order, &x);
    if (rc != CH4COLL_OK)
        return rc;
    right = rank_at(order, x + 1, p);
    left = rank_at(order, x - 1, p);
    if (!a->inplace && own > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, blk_off(a, rank)), own,
                           0, NULL);
    for (k = 0; k < p - 1; k++) {
        int sblk = rank_at(order, x - k, p),
            rblk = rank_at(order, x - k - 1, p);
        if (blk_count(a, sblk) > 0) {
            ch4coll_ref_t from =
                k == 0 && !a->inplace
                    ? ch4coll_ref(CH4COLL_BUF_SEND, 0)
                    : ch4coll_ref(CH4COLL_BUF_RECV, blk_off(a, sblk));
            ch4coll_sched_send(s, from, blk_count(a, sblk), right, k,
                               ch4coll_dep1(prev, d), d);
        }
        prev = -1;
        if (blk_count(a, rblk) > 0)
            prev = ch4coll_sched_recv(
                s, ch4coll_ref(CH4COLL_BUF_RECV, blk_off(a, rblk)),
                blk_count(a, rblk), left, k, 0, NULL);
    }
    ch4coll_free(order);
    return CH4COLL_OK;
}

int ch4coll_allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a);
}

int ch4coll_allgatherv_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    return allgather_ring(s, a);
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_allgather_ring(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return (a->size - 1) * ch4coll_model_msg(m, (double) a->count);
}

/* Every non-empty block makes p - 1 hops one after another, and each link
 * carries every non-empty block but the one of the rank it leads to: the
 * larger of the slowest block's journey and the busiest link (the same in
 * rank order and in node order). */
double ch4coll_cost_allgatherv_ring(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    int p = a->size, j;
    double all = 0, journey = 0, link = 0, least = -1;

    (void) params;
    if (p == 1)
        return 0.0;
    for (j = 0; j < p; j++) {
        size_t c = blk_count(a, j);
        double t = ch4coll_model_block(m, (double) c);
        all += t;
        if ((p - 1) * t > journey)
            journey = (p - 1) * t;
        if (least < 0 || t < least)
            least = t;
    }
    link = all - least;
    return journey > link ? journey : link;
}
