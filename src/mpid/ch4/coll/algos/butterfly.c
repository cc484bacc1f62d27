/*
 * butterfly.c - allreduce by recursive vector halving + distance doubling
 * (reduce-scatter) followed by recursive vector doubling + distance halving
 * (allgather).
 *
 * Source: Rabenseifner & Adamidis section 3.5 ("Recursive Halving and
 * Doubling", Fig. 2), including its non-power-of-two step: with p' =
 * 2^floor(lg p) and r = p - p', each even rank of the first 2r gives its
 * whole vector to the odd neighbour first and receives the result last.
 *
 * Steps (new ranks 0..p'-1 are the remaining ranks in rank order; the
 * vector is cut into p' segments):
 *   1. pre-step: 2i -> 2i+1 (i < r), which folds it in.
 *   2. vector halving, distance doubling, mask = 1 .. p'/2: with the partner
 *      new rank XOR mask, keep the lower half of the current segment range
 *      if the mask bit of the new rank is 0, else the upper; send the other
 *      half and fold the received one into the kept one.  After step mask
 *      a rank holds the reduction over its aligned group of 2 mask new
 *      ranks, so groups are always adjacent rank intervals (distance
 *      doubling is what keeps rank order; distance halving would combine
 *      0 with p'/2 first).  New rank j ends with segment bitreverse(j).
 *   3. vector doubling, distance halving, mask = p'/2 .. 1: exchange the
 *      current range with the partner; the range doubles.
 *   4. post-step: 2i+1 -> 2i, the whole result.
 * T = 2 lg p' alpha + 2 (p'-1)/p' n beta + (p'-1)/p' n gamma
 *     + (r > 0) (2 alpha + 2 n beta + n gamma),
 * Rabenseifner's T_all,h&d with a whole-vector pre-step (f_alpha = f_beta
 * = 1); on the model it is exact up to the rounding of the segments (the
 * cost function takes the first, largest range of each width).
 * Scratch: the largest kept half (about n/2), plus n at the ranks that
 * receive in the pre-step.
 * Any op: the partner's group is always a rank interval wholly below or
 * above ours, so every fold is "lower op upper"; when the lower data is
 * ours the result is formed in scratch and copied back (n/2 + n/4 + ...
 * extra copying for non-commutative ops only).  Any p, any count (segments
 * may be empty; empty transfers are skipped on both sides).
 * Dependencies are explicit, per segment range, so the halves being sent
 * and the halves being folded never wait on each other.
 *
 * Worked example, p = 6, n = 8 (p' = 4, r = 2): 0 -> 1, 2 -> 3; new ranks
 * 0..3 = old 1, 3, 4, 5 with segments of 2 elements.  Halving mask 1:
 * new 0 (old 1) keeps segments 0-1 and sends 2-3 to new 1 (old 3), folding
 * (d0 d1) op (d2 d3) on its half; mask 2: new 0 keeps segment 0 and sends
 * segment 1 to new 2 (old 4).  Doubling mask 2: new 0 and 2 swap segments
 * 0 and 1; mask 1: new 0 and 1 swap 0-1 and 2-3.  Post-step: 1 -> 0,
 * 3 -> 2.
 */
#include "algo.h"

#include "../topo/topo.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int r, p2, newrank;
    size_t n;
    int tmp;       /* scratch: half the vector */
    int last_fold; /* last vertex writing the kept range */
    int tmp_free;  /* last vertex reading tmp */
} bf_t;

/* Element offset of segment j (j = p2 gives n): balanced cut. */
static size_t seg_off(const bf_t *b, int j)
{
    return ch4coll_seg_off(b->n, (size_t) b->p2, (size_t) j);
}

static ch4coll_ref_t at(const bf_t *b, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(b->a, elem));
}

/* Fold the partner's data (in tmp) into recvbuf[off, off+len). */
static int fold(bf_t *b, int partner_lower, size_t off, size_t len, int got)
{
    ch4coll_sched_t *s = b->s;
    int d[2] = {got, b->last_fold}, v;

    if (partner_lower || b->a->commutative) /* acc = tmp op acc */
        return b->tmp_free = ch4coll_sched_reduce(s, at(b, b->tmp, 0),
                                                  at(b, CH4COLL_BUF_RECV, off),
                                                  len, 2, d);
    /* acc = acc op tmp: formed in tmp, copied back */
    v = ch4coll_sched_reduce(s, at(b, CH4COLL_BUF_RECV, off), at(b, b->tmp, 0),
                             len, 2, d);
    return b->tmp_free = ch4coll_sched_copy(
               s, at(b, b->tmp, 0), at(b, CH4COLL_BUF_RECV, off), len, 1, &v);
}

/* Step 2; fills sent[] with the send vertex of every step (by level). */
static void halving(bf_t *b, int *lo, int *hi, int *sent)
{
    int mask, level = 0;

    for (mask = 1; mask < b->p2; mask *= 2, level++) {
        int partner = b->newrank ^ mask, mid = (*lo + *hi) / 2;
        int up = b->newrank & mask;
        int klo = up ? mid : *lo, khi = up ? *hi : mid;
        int slo = up ? *lo : mid, shi = up ? mid : *hi;
        int peer = ch4coll_rd_oldrank(partner, b->r), d[1], got = -1;
        size_t koff = seg_off(b, klo), klen = seg_off(b, khi) - koff;
        size_t soff = seg_off(b, slo), slen = seg_off(b, shi) - soff;

        sent[level] = -1;
        if (slen > 0)
            sent[level] =
                ch4coll_sched_send(b->s, at(b, CH4COLL_BUF_RECV, soff), slen,
                                   peer, 0, ch4coll_dep1(b->last_fold, d), d);
        if (klen > 0) {
            got = ch4coll_sched_recv(b->s, at(b, b->tmp, 0), klen, peer, 0,
                                     ch4coll_dep1(b->tmp_free, d), d);
            b->last_fold = fold(b, partner < b->newrank, koff, klen, got);
        }
        *lo = klo;
        *hi = khi;
    }
}

/* Step 3: the reverse; returns the last receive. */
static int doubling(bf_t *b, int lo, int hi, const int *sent, int levels)
{
    int mask, level = levels - 1, last = b->last_fold;

    for (mask = b->p2 / 2; mask >= 1; mask /= 2, level--) {
        int partner = b->newrank ^ mask,
            peer = ch4coll_rd_oldrank(partner, b->r);
        int plo = partner & mask ? hi : lo - (hi - lo), phi = plo + (hi - lo);
        size_t off = seg_off(b, lo), len = seg_off(b, hi) - off;
        size_t poff = seg_off(b, plo), plen = seg_off(b, phi) - poff;
        int d[2], got = -1;

        if (len > 0)
            ch4coll_sched_send(b->s, at(b, CH4COLL_BUF_RECV, off), len, peer, 0,
                               ch4coll_dep1(last, d), d);
        if (plen > 0) /* into the half sent away at this level */
            got = ch4coll_sched_recv(b->s, at(b, CH4COLL_BUF_RECV, poff), plen,
                                     peer, 0, ch4coll_dep1(sent[level], d), d);
        if (got >= 0) {
            d[0] = got;
            d[1] = last;
            last = ch4coll_sched_sink(b->s, 2, d);
        }
        lo = lo < plo ? lo : plo;
        hi = hi > phi ? hi : phi;
    }
    return last;
}

int ch4coll_allreduce_butterfly(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    int p = a->size, rank = a->rank, p2 = ch4coll_pow2_floor(p);
    bf_t b = {s,        a,  p - p2, p2, ch4coll_rd_newrank(rank, p - p2),
              a->count, -1, -1,     -1};
    int sent[32], lo = 0, hi = p2, d[1], last, levels = 0, m;
    ch4coll_ref_t all = ch4coll_ref(CH4COLL_BUF_RECV, 0);
    ch4coll_ref_t mine =
        ch4coll_ref(a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0);

    (void) params;
    if (b.n == 0)
        return CH4COLL_OK;
    if (b.newrank < 0) { /* removed: hand over, get the result back */
        d[0] = ch4coll_sched_send(s, mine, b.n, rank + 1, 0, 0, NULL);
        ch4coll_sched_recv(s, all, b.n, rank + 1, 0, a->inplace ? 1 : 0, d);
        return CH4COLL_OK;
    }
    /* the lower half of the first step is the largest range ever kept */
    b.tmp = ch4coll_sched_scratch(s, seg_off(&b, p2 / 2));
    if (!a->inplace)
        b.last_fold = ch4coll_sched_copy(s, mine, all, b.n, 0, NULL);
    if (rank < 2 * b.r) { /* the removed neighbour's data is lower */
        int pre = ch4coll_sched_scratch(s, b.n), dd[2];
        dd[0] =
            ch4coll_sched_recv(s, at(&b, pre, 0), b.n, rank - 1, 0, 0, NULL);
        dd[1] = b.last_fold;
        b.last_fold = ch4coll_sched_reduce(s, at(&b, pre, 0), all, b.n, 2, dd);
    }
    for (m = p2 / 2; m >= 1; m /= 2)
        levels++;
    halving(&b, &lo, &hi, sent);
    last = doubling(&b, lo, hi, sent, levels);
    if (rank < 2 * b.r)
        ch4coll_sched_send(s, all, b.n, rank - 1, 0, ch4coll_dep1(last, d), d);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_allreduce_butterfly(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    int p = a->size, p2 = ch4coll_pow2_floor(p), w;
    bf_t b = {NULL, a, p - p2, p2, 0, a->count, -1, -1, -1};
    double n = ch4coll_nbytes(a, a->count), t = 0, k;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    if (b.r > 0) /* pre-step and post-step */
        t += 2 * (m->alpha + n * m->beta) + n * m->gamma;
    /* halving and doubling: the first range of each width is the largest */
    for (w = p2 / 2; w >= 1; w /= 2) {
        k = ch4coll_nbytes(a, seg_off(&b, w));
        if (k > 0)
            t += 2 * m->alpha + k * (2 * m->beta + m->gamma);
    }
    return t;
}
