/*
 * ring.c - ring allgather and allgatherv.
 *
 * Source: the ring allgather of Rabenseifner & Adamidis section 3.7 ("each
 * process sends its chunk of the result vector around the ring to the right
 * (rank + 1) until its left neighbour has received it after p - 1 steps"),
 * which Traeff et al. (pipelined-irregular-allgather, section 2) call the
 * linear ring for irregular block sizes.
 *
 * Step k = 0..p-2: send block (rank - k) mod p to rank + 1, receive block
 * (rank - k - 1) mod p from rank - 1 straight into place.  The send of step
 * k waits only for the receive of step k - 1; all receives are posted at
 * once.  Step k uses tag k.
 * T = (p-1) alpha + (p-1)/p N beta for N bytes in all (regular blocks).
 * Irregular blocks: every non-empty block j makes p - 1 hops one after
 * another, and the link r -> r+1 carries every non-empty block but block
 * r+1, so T = max((p-1) max_j t_j, sum_j t_j - min_j t_j) with t_j =
 * alpha + c_j beta (0 for an empty block); the slowest block's journey
 * usually decides (Traeff et al.'s linear ring).
 * No scratch.  Zero-size blocks are skipped on both sides.
 *
 * Worked example, p = 3 at rank 1: step 0 sends block 1 to 2, receives
 * block 0 from 0; step 1 forwards block 0 to 2 and receives block 2.
 */
#include "algo.h"

static size_t blk_count(const ch4coll_args_t *a, int i)
{
    return a->counts ? a->counts[i] : a->count;
}

static size_t blk_off(const ch4coll_args_t *a, int i)
{
    return a->displs ? a->displs[i] : (size_t) i * a->count;
}

static int allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, rank = a->rank, k, prev = -1, d[1];
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    size_t own = blk_count(a, rank);

    if (!a->inplace && own > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, blk_off(a, rank)), own,
                           0, NULL);
    for (k = 0; k < p - 1; k++) {
        int sblk = (rank - k + p) % p, rblk = (rank - k - 1 + p) % p;
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
    ch4coll_sched_set_ntags(s, p > 1 ? p - 1 : 1);
    return CH4COLL_OK;
}

int ch4coll_allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a);
}

int ch4coll_allgatherv_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    (void) params;
    return allgather_ring(s, a);
}

/* ------------------------------------------------------------------- cost */

static double msg(const ch4coll_model_t *m, double bytes)
{
    return m->alpha + bytes * m->beta;
}

double ch4coll_cost_allgather_ring(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return (a->size - 1) * msg(m, (double) a->count);
}

/* Every non-empty block makes p - 1 hops one after another, and the link
 * r -> r+1 carries every non-empty block but block r+1: the larger of the
 * slowest block's journey and the busiest link. */
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
        double t = c > 0 ? msg(m, (double) c) : 0.0;
        all += t;
        if ((p - 1) * t > journey)
            journey = (p - 1) * t;
        if (least < 0 || t < least)
            least = t;
    }
    link = all - least;
    return journey > link ? journey : link;
}
