/*
 * ring.c - ring allgather and allgatherv, one-way and both ways.
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
 *
 * bidir_ring: the same ring both ways, half of every block each way (the
 * bidirectional ring of issue 24; SMPI's loosely_lr and Open MPI's
 * neighbour exchange use both directions too).  Block j of c_j elements
 * splits at h_j = floor(c_j / 2): elements [0, h_j) travel to the right as
 * above (tags 0..p-2), [h_j, c_j) to the left (position x sends to x - 1
 * the half of position x + k, tags p-1..2p-3), so each step a rank sends
 * one message to each neighbour and receives one from each.  Where a rank
 * has two links to its neighbours (a torus, SimGrid's torus hosts) or a
 * full-duplex link used one way by the ring, each direction carries half:
 * (p-1)(alpha + N/(2p) beta).  On this single-ported model both messages
 * of a step share the rank's port: T = (p-1)(2 alpha + N/p beta), one
 * alpha a step above the ring, which is what the formula says.  Irregular
 * blocks: each direction's journey and busiest link as for the ring, with
 * half-blocks, the two directions' sends adding on one port.  Worked
 * example, p = 3, regular blocks of 5 elements, rank 1: it sends elements
 * 0-1 of block 1 to rank 2 and 2-4 to rank 0 (step 0), then forwards
 * elements 0-1 of block 0 to rank 2 and 2-4 of block 2 to rank 0 (step 1);
 * it receives 0-1 of blocks 0 and 2 from rank 0 and 2-4 of blocks 2 and 0
 * from rank 2.  A block of one element has an empty lower half (h = 0),
 * so it travels only to the left; an empty half is skipped on both sides.
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

/* The part of block j a stream carries: WHOLE, or the lower (LO) or the
 * upper (HI) half, split at floor(c_j / 2). */
enum { WHOLE, LO, HI };

static size_t part_first(const ch4coll_args_t *a, int j, int part)
{
    return part == HI ? blk_count(a, j) / 2 : 0;
}

static size_t part_count(const ch4coll_args_t *a, int j, int part)
{
    size_t c = blk_count(a, j);
    return part == WHOLE ? c : part == LO ? c / 2 : c - c / 2;
}

/* One stream around the ring in direction dir (+1: to the right): part of
 * every block, p - 1 steps on tags tag0.. */
static void ring_stream(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int *order, int x, int dir, int part, int tag0)
{
    int p = a->size, k, prev = -1, d[1];
    int to = rank_at(order, x + dir, p), from = rank_at(order, x - dir, p);

    for (k = 0; k < p - 1; k++) {
        int sblk = rank_at(order, x - dir * k, p),
            rblk = rank_at(order, x - dir * (k + 1), p);
        size_t sn = part_count(a, sblk, part), rn = part_count(a, rblk, part);
        if (sn > 0) {
            size_t at = part_first(a, sblk, part);
            ch4coll_ref_t src =
                k == 0 && !a->inplace
                    ? ch4coll_ref(CH4COLL_BUF_SEND, ch4coll_eoff(a, at))
                    : ch4coll_ref(CH4COLL_BUF_RECV,
                                  ch4coll_eoff(a, blk_off(a, sblk) + at));
            ch4coll_sched_send(s, src, sn, to, tag0 + k, ch4coll_dep1(prev, d),
                               d);
        }
        prev = -1;
        if (rn > 0)
            prev = ch4coll_sched_recv(
                s,
                ch4coll_ref(CH4COLL_BUF_RECV,
                            ch4coll_eoff(a, blk_off(a, rblk) +
                                                part_first(a, rblk, part))),
                rn, from, tag0 + k, 0, NULL);
    }
}

/* The ring one way (both = 0) or both ways, half of every block each. */
static int allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a, int both)
{
    int p = a->size, rank = a->rank, x, *order, rc;
    size_t own = blk_count(a, rank);

    rc = ring_order(a, &order, &x);
    if (rc != CH4COLL_OK)
        return rc;
    if (!a->inplace && own > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, blk_off(a, rank)), own,
                           0, NULL);
    ring_stream(s, a, order, x, +1, both ? LO : WHOLE, 0);
    if (both)
        ring_stream(s, a, order, x, -1, HI, p - 1);
    ch4coll_free(order);
    return CH4COLL_OK;
}

int ch4coll_allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a, 0);
}

int ch4coll_allgatherv_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    return allgather_ring(s, a, 0);
}

/* Both streams: tags 0..2p-3. */
int ch4coll_ntags_bidir_ring(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return a->size > 1 ? 2 * (a->size - 1) : 1;
}

int ch4coll_allgather_bidir_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_bidir_ring(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a, 1);
}

int ch4coll_allgatherv_bidir_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_bidir_ring(a, params));
    return allgather_ring(s, a, 1);
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
static double stream_cost(const ch4coll_args_t *a, const ch4coll_model_t *m,
                          int part)
{
    int p = a->size, j;
    double all = 0, journey = 0, link = 0, least = -1;

    if (p == 1)
        return 0.0;
    for (j = 0; j < p; j++) {
        size_t c = part_count(a, j, part);
        double t = ch4coll_model_block(m, ch4coll_nbytes(a, c));
        all += t;
        if ((p - 1) * t > journey)
            journey = (p - 1) * t;
        if (least < 0 || t < least)
            least = t;
    }
    link = all - least;
    return journey > link ? journey : link;
}

double ch4coll_cost_allgatherv_ring(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    (void) params;
    return stream_cost(a, m, WHOLE);
}

/* The two streams' sends share each rank's port on this model: their
 * costs add (exactly so for regular blocks: (p-1)(2 alpha + c beta)). */
double ch4coll_cost_allgather_bidir_ring(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0)
        return 0.0;
    return stream_cost(a, m, LO) + stream_cost(a, m, HI);
}

double ch4coll_cost_allgatherv_bidir_ring(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    (void) params;
    return stream_cost(a, m, LO) + stream_cost(a, m, HI);
}
