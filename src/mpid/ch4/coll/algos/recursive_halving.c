/*
 * recursive_halving.c - reduce_scatter and reduce_scatter_block by recursive
 * vector halving and distance halving, for commutative ops and any p.
 *
 * Source: Rabenseifner & Adamidis section 3.5 (the reduce_scatter phase of
 * "recursive halving and doubling": "the vector can be split into two parts
 * and one half is reduced by the process itself and the other half is sent
 * to a neighbor process"), with the section's non-power-of-two step: with
 * p' = 2^floor(lg p) and r = p - p', each even rank of the first 2r gives
 * its whole vector to the odd neighbour and sits out.
 *
 * Steps
 *   1. pre-step: ranks 2i (i < r) send everything to 2i+1, which folds it
 *      in.  The p' remaining ranks get new ranks 0..p'-1 in rank order; new
 *      rank j is responsible for the blocks of old ranks {2j, 2j+1} (j < r)
 *      or {j + r}: a contiguous range of blocks.
 *   2. lg p' halving steps: with mask = p'/2 .. 1, exchange with new rank
 *      XOR mask the half of the current block range that the partner keeps,
 *      and fold the received half into the own half.
 *   3. post-step: new rank j < r sends block 2j's result to old rank 2j.
 * T = lg p' alpha + (p'-1)/p' n beta + (p'-1)/p' n gamma
 *     + (r > 0) (2 alpha + n beta + n/p beta + n gamma)   (n: bytes of all
 * blocks; the first line is Rabenseifner's reduce_scatter part of 3.5).
 * With r > 0 the units are uneven (new ranks below r own two blocks), so
 * the kept halves are too; the cost function charges every halving step
 * with its widest kept range, e.g. p = 96: 64, 32, ..., 2 blocks, 126/96 n
 * instead of 63/64 n (an upper bound: the widest ranges need not all lie
 * on one rank's path), and irregular blocks by their bytes.
 * Scratch: the whole vector plus the larger half (2 n elements).
 * Restrictions: commutative ops (the halves are folded in partner order,
 * not rank order); any p; zero-size blocks and ranges are skipped on both
 * sides.
 *
 * Worked example, p = 6 (p' = 4, r = 2): 0 -> 1 and 2 -> 3; new ranks
 * 0, 1, 2, 3 = old 1, 3, 4, 5 own blocks {0,1}, {2,3}, {4}, {5}.  Step
 * mask 2: new 0 <-> 2 (0 keeps blocks 0-3, 2 keeps 4-5), 1 <-> 3; mask 1:
 * new 0 <-> 1 (0 keeps 0-1, 1 keeps 2-3), 2 <-> 3 (4 and 5).  Post-step:
 * 1 -> 0 (block 0), 3 -> 2 (block 2).
 */
#include "algo.h"

#include "../topo/topo.h"
#include "hazard.h"

typedef struct {
    const ch4coll_args_t *a;
    int r; /* p - p' */
} rh_t;

/* First old rank (block) of new rank j; j = p' gives p. */
static int first_block(const rh_t *h, int j)
{
    return j < h->r ? 2 * j : j + h->r;
}

/* Element offset and length of the blocks of new ranks [lo, hi). */
static size_t range_off(const rh_t *h, int lo)
{
    return ch4coll_blk_displ(h->a, first_block(h, lo));
}

static size_t range_len(const rh_t *h, int lo, int hi)
{
    return range_off(h, hi) - range_off(h, lo);
}

static int reduce_scatter_rh(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, rank = a->rank, p2 = ch4coll_pow2_floor(p);
    rh_t h = {a, p - p2};
    int newrank = ch4coll_rd_newrank(rank, h.r), lo = 0, hi = p2, mask;
    size_t total = ch4coll_blk_displ(a, p), n = ch4coll_blk_count(a, rank);
    ch4coll_hz_t snd = ch4coll_hz_user(CH4COLL_BUF_SEND);
    ch4coll_hz_t rcv = ch4coll_hz_user(CH4COLL_BUF_RECV);
    ch4coll_hz_t acc = ch4coll_hz_scratch(total);
    ch4coll_hz_t tmp = ch4coll_hz_scratch(total);
    ch4coll_hz_t *in = a->inplace ? &rcv : &snd;

    if (total == 0)
        return CH4COLL_OK;
    if (newrank < 0) { /* removed: hand over, get my block back */
        ch4coll_hz_send(s, in, 0, total, rank + 1, 0);
        if (n > 0)
            ch4coll_hz_recv(s, &rcv, 0, n, rank + 1, 0);
        return CH4COLL_OK;
    }
    ch4coll_hz_copy(s, in, 0, &acc, 0, total);
    if (rank < 2 * h.r) {
        ch4coll_hz_recv(s, &tmp, 0, total, rank - 1, 0);
        ch4coll_hz_reduce(s, &tmp, 0, &acc, 0, total);
    }
    for (mask = p2 / 2; mask >= 1; mask /= 2) {
        int partner = newrank ^ mask, mid = lo + mask;
        int klo = newrank & mask ? mid : lo, khi = newrank & mask ? hi : mid;
        int slo = newrank & mask ? lo : mid, shi = newrank & mask ? mid : hi;
        int peer = ch4coll_rd_oldrank(partner, h.r);
        size_t koff = range_off(&h, klo), klen = range_len(&h, klo, khi);
        size_t slen = range_len(&h, slo, shi);
        if (slen > 0)
            ch4coll_hz_send(s, &acc, ch4coll_eoff(a, range_off(&h, slo)), slen,
                            peer, 0);
        if (klen > 0) {
            ch4coll_hz_recv(s, &tmp, 0, klen, peer, 0);
            ch4coll_hz_reduce(s, &tmp, 0, &acc, ch4coll_eoff(a, koff), klen);
        }
        lo = klo;
        hi = khi;
    }
    if (rank < 2 * h.r && ch4coll_blk_count(a, rank - 1) > 0)
        ch4coll_hz_send(s, &acc,
                        ch4coll_eoff(a, ch4coll_blk_displ(a, rank - 1)),
                        ch4coll_blk_count(a, rank - 1), rank - 1, 0);
    if (n > 0)
        ch4coll_hz_copy(s, &acc, ch4coll_eoff(a, ch4coll_blk_displ(a, rank)),
                        &rcv, 0, n);
    return CH4COLL_OK;
}

int ch4coll_reduce_scatter_recursive_halving(ch4coll_sched_t *s,
                                             const ch4coll_args_t *a,
                                             const int64_t *params)
{
    (void) params;
    return reduce_scatter_rh(s, a);
}

int ch4coll_reduce_scatter_block_recursive_halving(ch4coll_sched_t *s,
                                                   const ch4coll_args_t *a,
                                                   const int64_t *params)
{
    (void) params;
    return reduce_scatter_rh(s, a);
}

/* ------------------------------------------------------------------- cost */

/* Bytes of the largest aligned range of `width` new ranks' blocks. */
static double widest(const rh_t *h, int p2, int width)
{
    int lo;
    size_t best = 0;

    for (lo = 0; lo < p2; lo += width)
        if (range_len(h, lo, lo + width) > best)
            best = range_len(h, lo, lo + width);
    return ch4coll_nbytes(h->a, best);
}

/* Pre-step, one halving step per bit (the widest kept range of each step
 * on the critical path), post-step with the largest handed-back block. */
static double reduce_scatter_rh_cost(const ch4coll_args_t *a,
                                     const ch4coll_model_t *m)
{
    int p = a->size, p2 = ch4coll_pow2_floor(p), mask, i;
    rh_t h = {a, p - p2};
    double all = ch4coll_nbytes(a, ch4coll_blk_displ(a, p)), t = 0, back = 0, k;

    if (all == 0 || p == 1)
        return 0.0;
    if (h.r > 0) {
        t += m->alpha + all * (m->beta + m->gamma);
        for (i = 0; i < h.r; i++)
            if (ch4coll_nbytes(a, ch4coll_blk_count(a, 2 * i)) > back)
                back = ch4coll_nbytes(a, ch4coll_blk_count(a, 2 * i));
        t += m->alpha + back * m->beta;
    }
    for (mask = p2 / 2; mask >= 1; mask /= 2) {
        k = widest(&h, p2, mask);
        if (k > 0)
            t += m->alpha + k * (m->beta + m->gamma);
    }
    return t;
}

double ch4coll_cost_reduce_scatter_recursive_halving(const ch4coll_args_t *a,
                                                     const int64_t *params,
                                                     const ch4coll_model_t *m)
{
    (void) params;
    return reduce_scatter_rh_cost(a, m);
}

double ch4coll_cost_reduce_scatter_block_recursive_halving(
    const ch4coll_args_t *a, const int64_t *params, const ch4coll_model_t *m)
{
    (void) params;
    return reduce_scatter_rh_cost(a, m);
}
