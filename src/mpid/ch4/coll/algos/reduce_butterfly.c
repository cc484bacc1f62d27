/*
 * reduce_butterfly.c - reduce by recursive vector halving + distance
 * doubling (reduce-scatter) followed by a binomial gather of the segments
 * to the root; any op, any p, any root.
 *
 * Source: Rabenseifner & Adamidis section 3.5 ("Recursive Halving and
 * Doubling", paragraph "Reduce"): the reduce_scatter of the allreduce
 * butterfly, then "each process with the bit with the value p'/2 in its new
 * rank identical to that bit in root rank must receive a result buffer
 * segment and the other processes must send their segment.  In the next
 * step only the receiving processes continue and the bit is shifted 1
 * position right".  Non-powers of two use the section's "remove r" step
 * (p' = 2^floor(lg p), r = p - p'); "in the case that the original root
 * process is one of the removed processes, then the role of this process
 * and its partner in the first step are exchanged", at no extra cost.
 *
 * Steps (the vector is cut into p' balanced segments):
 *   1. pre-step, pairs (2i, 2i+1) for i < r: one member hands its whole
 *      vector to the other, which folds it in (d_2i op d_2i+1) and stays;
 *      normally 2i+1 stays, but if the root is 2i the roles are swapped so
 *      the root always stays.  The p' remaining ranks take new ranks
 *      0..p'-1 in rank order.
 *   2. vector halving, distance doubling, mask = 1 .. p'/2: with the
 *      partner new rank XOR mask keep the lower half of the current segment
 *      range if the mask bit of my new rank is 0, else the upper; send the
 *      other half and fold the received one into the kept one.  A rank then
 *      holds its range reduced over its aligned group of 2 mask new ranks,
 *      always a rank interval, so every fold is "lower op upper" (distance
 *      halving would pair 0 with p'/2 first and break rank order).
 *   3. gather, mask = p'/2 .. 1: if my mask bit equals the root's, receive
 *      the partner's range (the half I sent it in step 2) into place and
 *      continue; else send my range and stop.  The root ends with all.
 * T = (r > 0) (alpha_uni + n beta_uni + n gamma)
 *     + lg p' (alpha + alpha_uni) + (p'-1)/p' n (beta + beta_uni + gamma)
 * (the paper's T_red,h&d with a whole-vector pre-step instead of halves;
 * on the model alpha_uni = alpha, beta_uni = beta, and the cost function
 * takes the first, largest range of each width).  With fewer elements than
 * segments only the first n segments hold data and the gather steps of
 * wider ranges carry nothing (exact for root 0; a root elsewhere routes
 * the few non-empty segments over more hops: doc/algorithms.md).
 * Non-commutative ops pay an extra copy of each kept half whose partner is
 * above (the result is formed in scratch and copied back).
 * Scratch: the root works in its receive buffer, the other ranks in one
 * vector of n; plus the largest received half (n/2 rounded up), or n at the
 * ranks that receive in the pre-step.
 * Restrictions: none (any op, any p, any root, any count: empty segments
 * are skipped on both sides; MPI_IN_PLACE at the root).  No parameters.
 * Tags: 0 for the pre-step and halving, 1 for the gather (a halving pair
 * meets again in the gather).
 *
 * Worked example, p = 6, root = 2, n = 8 (p' = 4, r = 2; segments u0..u3 of
 * 2 elements): pairs (0,1) and (2,3); 0 -> 1, and since the root is 2,
 * 3 -> 2.  New ranks 0..3 = old 1, 2, 4, 5; the root is new 1.  Halving
 * mask 1: new 0 keeps u0-1 (d0..d3 op'ed in order), new 1 keeps u2-3,
 * new 2 and 3 likewise for d4, d5.  Mask 2: new 0 keeps u0 and new 2 u1
 * ((d0 op d1 op d2 op d3) op (d4 op d5)), new 1 keeps u2, new 3 u3.
 * Gather mask 2 (the root's bit is 0): new 2 (old 4) sends u1 to new 0,
 * new 3 (old 5) sends u3 to new 1.  Mask 1 (the root's bit is 1): new 0
 * sends u0-1 to new 1, which is rank 2 and now holds u0..u3.
 */
#include "algo.h"
#include "fold.h"

#include "../topo/topo.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int p2, r;   /* p' and the number of removed ranks */
    int newrank; /* -1 if removed */
    size_t n;
    int in_buf;  /* my input vector */
    int mine_ro; /* my partial is still only my (read-only) input */
    int acc;     /* my partials: the receive buffer at the root */
    int tmp;     /* received partials, allocated on first use */
    size_t tmp_len;
    int last_fold; /* last vertex writing acc's kept range */
    int tmp_free;  /* last vertex reading tmp */
} rb_t;

/* The member of pair i (ranks 2i, 2i+1) that stays: the root if it is in
 * the pair, else the odd one. */
static int stays(const rb_t *b, int i)
{
    return b->a->root == 2 * i ? 2 * i : 2 * i + 1;
}

static int new_rank(const rb_t *b, int rank)
{
    if (rank < 2 * b->r)
        return rank == stays(b, rank / 2) ? rank / 2 : -1;
    return rank - b->r;
}

static int old_rank(const rb_t *b, int nr)
{
    return nr < b->r ? stays(b, nr) : nr + b->r;
}

/* Element offset of segment j (j = p' gives n): balanced cut. */
static size_t seg_off(const rb_t *b, int j)
{
    return ch4coll_seg_off(b->n, (size_t) b->p2, (size_t) j);
}

static ch4coll_ref_t at(const rb_t *b, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(b->a, elem));
}

/*
 * Receive the partner's partial of [off, off+len) and fold it into acc in
 * rank order (the partner's ranks are all below mine if lower, else all
 * above).  Returns the vertex that completes acc[off, off+len).
 */
static int fold_in(rb_t *b, int peer, int lower, size_t off, size_t len)
{
    ch4coll_fold_t f = {b->a->commutative, b->mine_ro,   &b->tmp,
                        b->tmp_len,        &b->tmp_free, b->last_fold};
    ch4coll_ref_t acc = at(b, b->acc, off);

    return ch4coll_fold_in(b->s, &f, at(b, b->in_buf, off), acc, peer, 0, lower,
                           len);
}

/* Step 1 at a rank that stays: fold in the removed partner's vector. */
static void pre_step(rb_t *b)
{
    int partner = b->a->rank ^ 1;

    b->last_fold = fold_in(b, partner, partner < b->a->rank, 0, b->n);
    b->mine_ro = 0;
}

/* Step 2; sent[level] is the send of that level (or -1); leaves my final
 * segment range in [*lo, *hi). */
static void halving(rb_t *b, int *lo, int *hi, int *sent)
{
    int mask, level = 0, d[1];

    for (mask = 1; mask < b->p2; mask *= 2, level++) {
        int peer = old_rank(b, b->newrank ^ mask), mid = (*lo + *hi) / 2;
        int up = b->newrank & mask;
        int klo = up ? mid : *lo, khi = up ? *hi : mid;
        int slo = up ? *lo : mid, shi = up ? mid : *hi;
        size_t koff = seg_off(b, klo), klen = seg_off(b, khi) - koff;
        size_t soff = seg_off(b, slo), slen = seg_off(b, shi) - soff;

        sent[level] = -1;
        if (slen > 0)
            sent[level] = ch4coll_sched_send(
                b->s, at(b, b->mine_ro ? b->in_buf : b->acc, soff), slen, peer,
                0, b->mine_ro ? 0 : ch4coll_dep1(b->last_fold, d), d);
        if (klen > 0) {
            b->last_fold = fold_in(b, peer, up != 0, koff, klen);
            b->mine_ro = 0;
        }
        *lo = klo;
        *hi = khi;
    }
}

/* Step 3: binomial gather towards the root's new rank. */
static void gather(rb_t *b, int lo, int hi, const int *sent, int levels)
{
    int rootnew = new_rank(b, b->a->root), mask, level = levels - 1;
    int last = b->last_fold, d[2];

    for (mask = b->p2 / 2; mask >= 1; mask /= 2, level--) {
        int partner = b->newrank ^ mask, peer = old_rank(b, partner);
        int plo = partner & mask ? hi : lo - (hi - lo), phi = plo + (hi - lo);

        if ((b->newrank & mask) != (rootnew & mask)) {
            size_t off = seg_off(b, lo), len = seg_off(b, hi) - off;
            /* my range lives in acc: either folded there, or empty of my
             * own data and filled by the receives of this step */
            if (len > 0)
                ch4coll_sched_send(b->s, at(b, b->acc, off), len, peer, 1,
                                   ch4coll_dep1(last, d), d);
            return;
        }
        if (seg_off(b, phi) > seg_off(b, plo)) {
            /* into the half sent away at this level, once it has gone */
            int got =
                ch4coll_sched_recv(b->s, at(b, b->acc, seg_off(b, plo)),
                                   seg_off(b, phi) - seg_off(b, plo), peer, 1,
                                   ch4coll_dep1(sent[level], d), d);
            d[0] = got;
            d[1] = last;
            last = ch4coll_sched_sink(b->s, 2, d);
        }
        lo = lo < plo ? lo : plo;
        hi = hi > phi ? hi : phi;
    }
}

/* Tag 0 for the halving and the hand-over, tag 1 for the gather. */
int ch4coll_ntags_reduce_butterfly(const ch4coll_args_t *a,
                                   const int64_t *params)
{
    (void) a;
    (void) params;
    return 2;
}

int ch4coll_reduce_butterfly(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, rank = a->rank, is_root = rank == a->root;
    int sent[32], lo = 0, hi = ch4coll_pow2_floor(p), levels = 0, m;
    rb_t b;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_reduce_butterfly(a, params));
    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    b.s = s;
    b.a = a;
    b.p2 = ch4coll_pow2_floor(p);
    b.r = p - b.p2;
    b.newrank = new_rank(&b, rank);
    b.n = a->count;
    b.in_buf = is_root && a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    b.tmp = -1;
    b.last_fold = b.tmp_free = -1;
    if (b.newrank < 0) { /* removed: hand over and leave */
        ch4coll_sched_send(s, at(&b, b.in_buf, 0), b.n, rank ^ 1, 0, 0, NULL);
        return CH4COLL_OK;
    }
    if (p == 1) {
        if (!a->inplace)
            ch4coll_sched_copy(s, at(&b, CH4COLL_BUF_SEND, 0),
                               at(&b, CH4COLL_BUF_RECV, 0), b.n, 0, NULL);
        return CH4COLL_OK;
    }
    b.acc = is_root ? CH4COLL_BUF_RECV : ch4coll_sched_scratch(s, b.n);
    b.mine_ro = b.in_buf != b.acc;
    /* the lower half of the first step is the largest range kept */
    b.tmp_len = rank < 2 * b.r ? b.n : seg_off(&b, b.p2 / 2);
    if (rank < 2 * b.r)
        pre_step(&b);
    for (m = b.p2 / 2; m >= 1; m /= 2)
        levels++;
    halving(&b, &lo, &hi, sent);
    gather(&b, lo, hi, sent, levels);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_reduce_butterfly(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    int p = a->size, w;
    rb_t b;
    double n = ch4coll_nbytes(a, a->count), t = 0, k;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    b.a = a;
    b.p2 = ch4coll_pow2_floor(p);
    b.r = p - b.p2;
    b.n = a->count;
    if (b.r > 0) /* pre-step */
        t += m->alpha + n * (m->beta + m->gamma);
    /* halving and gather: the first range of each width is the largest;
     * with fewer elements than segments only the first n segments hold
     * data, and the gather steps of wider ranges carry nothing */
    for (w = b.p2 / 2; w >= 1; w /= 2) {
        k = ch4coll_nbytes(a, seg_off(&b, w));
        if (k == 0)
            continue;
        t += m->alpha + k * (m->beta + m->gamma);
        if (a->count > (size_t) w)
            t += m->alpha + k * m->beta;
    }
    return t;
}
