/*
 * noncommutative.c - reduce_scatter and reduce_scatter_block that keep rank
 * order for any op and any p: recursive vector halving with distance
 * doubling on rank-ordered groups, the units permuted into mirror order
 * first (or every block routed to its owner last).
 *
 * Source: Rabenseifner & Adamidis section 3.5 and its footnote 1: a
 * reduce_scatter by recursive vector halving with distance DOUBLING, where
 * "any order of the scattered data is allowed", instead of the distance
 * halving that a rank-ordered scatter forces; here distance doubling is
 * what keeps the reduction order, and the scattered order is repaired by
 * a local permutation before the first step (MPICH's reduce_scatter(_block)
 * for non-commutative ops on 2^k ranks does the same, "mirror
 * permutation") or by one routing step after the last.  NEC MPI/SX section 3.4
 * uses recursive halving with a butterfly pattern for MPI_Reduce_scatter "for
 * arbitrary numbers of nodes, not only powers of two ... also for possibly
 * non-commutative user-defined operators, where a canonical reduction order is
 * mandated".
 *
 * Steps (p' = 2^floor(lg p), r = p - p'):
 *   1. pre-step: rank 2i (i < r) sends its whole vector to 2i+1, which
 *      folds it in (d_2i op d_2i+1).  The p' remaining ranks take new ranks
 *      0..p'-1 in rank order; unit u is the blocks of new rank u: blocks
 *      {2u, 2u+1} for u < r, block {u+r} otherwise (a contiguous range).
 *   2. vector halving, distance doubling, mask = 1 .. p'/2: with the
 *      partner new rank XOR mask keep the lower half of the current unit
 *      range if the mask bit of my new rank is 0, else the upper; send the
 *      other half, fold the received one into the kept one.  Groups are
 *      aligned intervals of new ranks, hence of ranks, so every fold is
 *      "lower op upper".  New rank j ends holding the range's position
 *      bitreverse(j).
 *   3. with permute = 1 (the default) the partials start in mirror order,
 *      position q holding unit bitreverse(q) (one local copy per unit, on
 *      the removed ranks before their hand-over too), so new rank j ends
 *      holding its own unit j: it keeps its block and hands block 2j back
 *      to the removed rank 2j (j < r).  With permute = 0 the partials are
 *      in unit order and the holder of unit bitreverse(j) routes each of
 *      its non-empty blocks to the block's owner (or copies its own into
 *      place); every rank, the removed ones included, receives its block
 *      from the holder: one more message round, no copies.  SimGrid, p =
 *      16, 512 B blocks, costed smp platform: 6.27 us routed, 5.14 SMPI's
 *      mpich_noncomm (MPICH's mirror order); doc/performance.md has the
 *      permuted times.  The permutation is p' copy vertices, each the
 *      executor's per-vertex cost on a real machine.
 * T = (r > 0) (alpha_uni + N beta_uni + N gamma)
 *     + lg p' alpha + (1 - 1/p') N (beta + gamma)     (N = all blocks)
 *     + alpha + max block beta             (routing, permute = 0 only)
 * for p = 2^k.  With r > 0 the units are uneven, so the cost function
 * charges each halving step with its widest unit range and the routing
 * with the busiest holder's messages (two blocks for a unit below r); for
 * p < 8 or tiny N the first halving messages can overlap the pre-step or
 * ranks run ahead of it (doc/algorithms.md).  Non-commutative ops add a
 * copy of each kept half whose partner is above (the result is formed in
 * scratch and copied back).
 * Scratch: one vector of N (the partials) plus the largest received range
 * (N at the ranks that receive in the pre-step); at removed ranks none,
 * or N for the permuted copy (permute = 1).
 * Restrictions: none (any op, any p, irregular blocks with zeros: empty
 * ranges and blocks are skipped on both sides; MPI_IN_PLACE, whose result
 * is written only after the input has been read).
 * Parameters: permute (1: mirror order first, 0: routing last; p' <= 2
 * needs neither).
 * Tags: 0 for the pre-step and halving, 1 for routing.
 *
 * Worked example, p = 6 (p' = 4, r = 2): 0 -> 1, 2 -> 3; new ranks 0..3 =
 * old 1, 3, 4, 5 with units u0 = blocks {0,1}, u1 = {2,3}, u2 = {4},
 * u3 = {5}.  Mask 1: new 0 (old 1) keeps u0-1 and folds (d0 op d1) op
 * (d2 op d3) on it, new 1 (old 3) keeps u2-3; new 2, 3 (old 4, 5) likewise
 * for d4 op d5.  Mask 2: new 0 keeps u0, new 2 (old 4) u1, new 1 (old 3) u2,
 * new 3 (old 5) u3, all reduced as (d0..d3) op (d4 op d5).  Routing: old 1
 * sends block 0 to rank 0 and copies block 1; old 4 sends blocks 2 and 3;
 * old 3 sends block 4; old 5 copies block 5.
 * The same with permute = 1: positions 0..3 hold u0, u2, u1, u3 (blocks
 * {0,1}, {4}, {2,3}, {5}; old 0 and 2 send theirs in that order too).
 * Mask 1: new 0 keeps positions 0-1, new 1 keeps 2-3; mask 2: new 0 keeps
 * position 0 (u0), new 2 position 1 (u2), new 1 position 2 (u1), new 3
 * position 3 (u3).  Old 1 sends block 0 to rank 0 and keeps block 1, old
 * 3 sends block 2 to rank 2 and keeps 3; old 4 and 5 keep theirs.
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../util/util.h"
#include "hazard.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int p2, r;   /* p' and the number of removed ranks */
    int newrank; /* -1 if removed */
    int in_buf;  /* my input vector */
    int mine_ro; /* my partial is still only my (read-only) input */
    int acc;     /* my partials (scratch, absolute offsets) */
    int tmp;     /* received partials, allocated on first use */
    size_t tmp_len;
    int last_fold;     /* last vertex writing acc's kept range */
    int tmp_free;      /* last vertex reading tmp */
    ch4coll_hz_t inrd; /* readers of my input when it is in recvbuf */
    int perm;          /* position q of acc holds unit mirror(q) */
    size_t *poff;      /* perm: element offset of position q, p' + 1 */
} nc_t;

/* First block of unit u; u = p' gives p. */
static int first_block(const nc_t *b, int u)
{
    return u < b->r ? 2 * u : u + b->r;
}

/* Element offset of unit u; u = p' gives the end of the vector. */
static size_t uoff(const nc_t *b, int u)
{
    return ch4coll_blk_displ(b->a, first_block(b, u));
}

static int old_rank(const nc_t *b, int nr)
{
    return ch4coll_rd_oldrank(nr, b->r);
}

/* Bit reversal over lg p' bits. */
static int mirror(const nc_t *b, int x)
{
    int j = 0, m, bit = b->p2 / 2;

    for (m = 1; m < b->p2; m *= 2, bit /= 2)
        if (x & m)
            j |= bit;
    return j;
}

/* The unit at position q of the partials. */
static int unit_at(const nc_t *b, int q)
{
    return b->perm ? mirror(b, q) : q;
}

/* The new rank that ends holding unit u: the halving leaves new rank j
 * with position mirror(j). */
static int holder_of(const nc_t *b, int u)
{
    return b->perm ? u : mirror(b, u);
}

/* Element offset of position q of the partials; q = p' gives the end. */
static size_t poff(const nc_t *b, int q)
{
    return b->perm ? b->poff[q] : uoff(b, q);
}

static ch4coll_ref_t at(const nc_t *b, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(b->a, elem));
}

static ch4coll_ref_t tmp_at(nc_t *b)
{
    if (b->tmp < 0)
        b->tmp = ch4coll_sched_scratch(b->s, b->tmp_len);
    return at(b, b->tmp, 0);
}

static int read_input(nc_t *b, int v)
{
    if (b->in_buf == CH4COLL_BUF_RECV)
        ch4coll_hz_read_by(b->s, &b->inrd, v);
    return v;
}

/*
 * Receive the partner's partial of [off, off+len) and fold it into acc in
 * rank order (the partner's ranks are all below mine if lower, else all
 * above).  Returns the vertex that completes acc[off, off+len).
 */
static int fold_in(nc_t *b, int peer, int lower, size_t off, size_t len)
{
    ch4coll_sched_t *s = b->s;
    int comm = b->a->commutative, d[2], got, v;
    ch4coll_ref_t acc = at(b, b->acc, off), mine = at(b, b->in_buf, off);

    if (b->mine_ro && (!lower || comm)) {
        /* acc is still unused: receive into it, acc = mine op acc */
        got = ch4coll_sched_recv(s, acc, len, peer, 0, 0, NULL);
        return read_input(b, ch4coll_sched_reduce(s, mine, acc, len, 1, &got));
    }
    got = ch4coll_sched_recv(s, tmp_at(b), len, peer, 0,
                             ch4coll_dep1(b->tmp_free, d), d);
    if (b->mine_ro) { /* lower, non-commutative: acc = tmp op mine */
        d[0] = read_input(b, ch4coll_sched_copy(s, mine, acc, len, 0, NULL));
        d[1] = got;
        return b->tmp_free = ch4coll_sched_reduce(s, tmp_at(b), acc, len, 2, d);
    }
    d[0] = got;
    d[1] = b->last_fold;
    if (lower || comm) /* acc = tmp op acc */
        return b->tmp_free = ch4coll_sched_reduce(s, tmp_at(b), acc, len, 2, d);
    /* acc = acc op tmp, formed in tmp and copied back */
    v = ch4coll_sched_reduce(s, acc, tmp_at(b), len, 2, d);
    return b->tmp_free = ch4coll_sched_copy(s, tmp_at(b), acc, len, 1, &v);
}

/* Largest range this rank receives into tmp. */
static size_t largest_received(const nc_t *b)
{
    int lo = 0, hi = b->p2, mask;
    size_t best = b->a->rank < 2 * b->r ? uoff(b, b->p2) : 0;

    for (mask = 1; mask < b->p2; mask *= 2) {
        int mid = (lo + hi) / 2;
        if (b->newrank & mask)
            lo = mid;
        else
            hi = mid;
        if (poff(b, hi) - poff(b, lo) > best)
            best = poff(b, hi) - poff(b, lo);
    }
    return best;
}

/* Step 2; returns the position this rank ends holding. */
static int halving(nc_t *b)
{
    int lo = 0, hi = b->p2, mask, d[1], v;

    for (mask = 1; mask < b->p2; mask *= 2) {
        int peer = old_rank(b, b->newrank ^ mask), mid = (lo + hi) / 2;
        int up = b->newrank & mask;
        int klo = up ? mid : lo, khi = up ? hi : mid;
        int slo = up ? lo : mid, shi = up ? mid : hi;
        size_t koff = poff(b, klo), klen = poff(b, khi) - koff;
        size_t soff = poff(b, slo), slen = poff(b, shi) - soff;

        if (slen > 0 && b->mine_ro) {
            v = ch4coll_sched_send(b->s, at(b, b->in_buf, soff), slen, peer, 0,
                                   0, NULL);
            read_input(b, v);
        } else if (slen > 0) {
            ch4coll_sched_send(b->s, at(b, b->acc, soff), slen, peer, 0,
                               ch4coll_dep1(b->last_fold, d), d);
        }
        if (klen > 0) {
            b->last_fold = fold_in(b, peer, up != 0, koff, klen);
            b->mine_ro = 0;
        }
        lo = klo;
        hi = khi;
    }
    return lo;
}

/* Step 3 at a rank that stays: hand out the blocks of the unit at
 * position q, receive or keep my own block. */
static void route(nc_t *b, int q)
{
    const ch4coll_args_t *a = b->a;
    int blk, mine = a->rank, holder, d[2 + CH4COLL_HZ_READERS], nd;
    int src = b->mine_ro ? b->in_buf : b->acc; /* mine_ro: p = 1 */
    int u = unit_at(b, q);

    for (blk = first_block(b, u); blk < first_block(b, u + 1); blk++) {
        size_t len = ch4coll_blk_count(a, blk);
        size_t off = poff(b, q) + ch4coll_blk_displ(a, blk) - uoff(b, u);
        if (len == 0)
            continue;
        if (blk != mine) {
            ch4coll_sched_send(b->s, at(b, src, off), len, blk, 1,
                               ch4coll_dep1(b->last_fold, d), d);
        } else if (src != CH4COLL_BUF_RECV || off != 0) {
            /* in place, only after the input has been read */
            nd = ch4coll_hz_wdeps(&b->inrd, d);
            d[nd++] = b->last_fold;
            ch4coll_sched_copy(b->s, at(b, src, off),
                               at(b, CH4COLL_BUF_RECV, 0), len, nd, d);
        }
    }
    holder = old_rank(b, holder_of(b, b->newrank));
    if (holder != mine && ch4coll_blk_count(a, mine) > 0) {
        nd = ch4coll_hz_wdeps(&b->inrd, d);
        ch4coll_sched_recv(b->s, at(b, CH4COLL_BUF_RECV, 0),
                           ch4coll_blk_count(a, mine), holder, 1, nd, d);
    }
}

/* Copy the units of buffer `in` (unit order) into buffer `out` in
 * position order; returns the vertex that completes them. */
static int permute(nc_t *b, int in, int out)
{
    int q, u, n = 0, *ids = (int *) (b->poff + b->p2 + 1);

    for (q = 0; q < b->p2; q++) {
        u = unit_at(b, q);
        if (uoff(b, u + 1) > uoff(b, u))
            ids[n++] = read_input(
                b, ch4coll_sched_copy(b->s, at(b, in, uoff(b, u)),
                                      at(b, out, b->poff[q]),
                                      uoff(b, u + 1) - uoff(b, u), 0, NULL));
    }
    return n == 1 ? ids[0] : ch4coll_sched_sink(b->s, n, ids);
}

/* A removed rank: hand over the input (in position order), receive my
 * block from its holder. */
static void removed(nc_t *b)
{
    const ch4coll_args_t *a = b->a;
    int v, holder = old_rank(b, holder_of(b, a->rank / 2)), d[1], nd = 0;
    int src = b->in_buf;

    if (b->perm) {
        src = ch4coll_sched_scratch(b->s, uoff(b, b->p2));
        d[nd++] = permute(b, b->in_buf, src);
    }
    v = ch4coll_sched_send(b->s, at(b, src, 0), uoff(b, b->p2), a->rank + 1, 0,
                           nd, d);
    /* in place, my block overwrites the input: after it has been sent */
    nd = ch4coll_dep1(b->in_buf == CH4COLL_BUF_RECV ? v : -1, d);
    if (ch4coll_blk_count(a, a->rank) > 0)
        ch4coll_sched_recv(b->s, at(b, CH4COLL_BUF_RECV, 0),
                           ch4coll_blk_count(a, a->rank), holder, 1, nd, d);
}

/* Tag 0 for the halving, tag 1 for the non-power-of-two hand-over.
 * reduce_scatter and reduce_scatter_block. */
int ch4coll_ntags_noncommutative(const ch4coll_args_t *a, const int64_t *params)
{
    (void) a;
    (void) params;
    return 2;
}

/* Position offsets of the units in mirror order (b->poff, with room for
 * p' vertex ids behind them); CH4COLL_ERR_NOMEM. */
static int mirror_offsets(nc_t *b)
{
    int q, u;

    b->poff = ch4coll_malloc((size_t) (b->p2 + 1) * sizeof(size_t) +
                             (size_t) b->p2 * sizeof(int));
    if (!b->poff)
        return CH4COLL_ERR_NOMEM;
    b->poff[0] = 0;
    for (q = 0; q < b->p2; q++) {
        u = mirror(b, q);
        b->poff[q + 1] = b->poff[q] + uoff(b, u + 1) - uoff(b, u);
    }
    return CH4COLL_OK;
}

static int reduce_scatter_nc(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, rank = a->rank, rc;
    nc_t b;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_noncommutative(a, NULL));
    b.s = s;
    b.a = a;
    b.p2 = ch4coll_pow2_floor(p);
    b.r = p - b.p2;
    b.newrank = ch4coll_rd_newrank(rank, b.r);
    b.in_buf = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    b.mine_ro = 1;
    b.acc = b.tmp = -1;
    b.last_fold = b.tmp_free = -1;
    b.inrd = ch4coll_hz_user(CH4COLL_BUF_RECV);
    b.perm = 0; /* mirror() is the identity for p' <= 2 */
    b.poff = NULL;
    if (uoff(&b, b.p2) == 0)
        return CH4COLL_OK;
    if (params[0] && b.p2 > 2) {
        if ((rc = mirror_offsets(&b)) != CH4COLL_OK)
            return rc;
        b.perm = 1;
    }
    if (b.newrank < 0) {
        removed(&b);
    } else {
        if (p > 1)
            b.acc = ch4coll_sched_scratch(s, uoff(&b, b.p2));
        b.tmp_len = largest_received(&b);
        if (b.perm) { /* my partial starts as my input in position order */
            b.last_fold = permute(&b, b.in_buf, b.acc);
            b.mine_ro = 0;
        }
        if (rank < 2 * b.r) { /* step 1: the removed neighbour is lower */
            b.last_fold = fold_in(&b, rank - 1, 1, 0, uoff(&b, b.p2));
            b.mine_ro = 0;
        }
        route(&b, halving(&b));
    }
    ch4coll_free(b.poff);
    return CH4COLL_OK;
}

int ch4coll_reduce_scatter_noncommutative(ch4coll_sched_t *s,
                                          const ch4coll_args_t *a,
                                          const int64_t *params)
{
    return reduce_scatter_nc(s, a, params);
}

int ch4coll_reduce_scatter_block_noncommutative(ch4coll_sched_t *s,
                                                const ch4coll_args_t *a,
                                                const int64_t *params)
{
    return reduce_scatter_nc(s, a, params);
}

/* ------------------------------------------------------------------- cost */

/* Bytes of the largest aligned range of `width` positions (with perm,
 * units mirror(q) for q in the range). */
static double widest(const nc_t *b, int width)
{
    int lo, q;
    size_t best = 0, sum;

    for (lo = 0; lo < b->p2; lo += width) {
        for (sum = 0, q = lo; q < lo + width; q++)
            sum += uoff(b, unit_at(b, q) + 1) - uoff(b, unit_at(b, q));
        best = sum > best ? sum : best;
    }
    return ch4coll_nbytes(b->a, best);
}

/* Pre-step, one halving step per bit (its widest range on the critical
 * path), then the busiest holder's routing messages (with perm, only the
 * blocks handed back to the removed ranks). */
static double reduce_scatter_nc_cost(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    int p = a->size, w, u, blk;
    nc_t b;
    double all, t = 0, k, route = 0, x;

    b.a = a;
    b.p2 = ch4coll_pow2_floor(p);
    b.r = p - b.p2;
    b.perm = params[0] && b.p2 > 2;
    all = ch4coll_nbytes(a, uoff(&b, b.p2));
    if (all == 0 || p == 1)
        return 0.0;
    if (b.r > 0)
        t += m->alpha + all * (m->beta + m->gamma);
    for (w = b.p2 / 2; w >= 1; w /= 2) {
        k = widest(&b, w);
        if (k > 0)
            t += m->alpha + k * (m->beta + m->gamma);
    }
    for (u = 0; u < b.p2; u++) {
        int holder = old_rank(&b, holder_of(&b, u));
        for (x = 0, blk = first_block(&b, u); blk < first_block(&b, u + 1);
             blk++)
            if (blk != holder && ch4coll_blk_count(a, blk) > 0)
                x += m->alpha +
                     ch4coll_nbytes(a, ch4coll_blk_count(a, blk)) * m->beta;
        if (x > route)
            route = x;
    }
    return t + route;
}

double ch4coll_cost_reduce_scatter_noncommutative(const ch4coll_args_t *a,
                                                  const int64_t *params,
                                                  const ch4coll_model_t *m)
{
    return reduce_scatter_nc_cost(a, params, m);
}

double ch4coll_cost_reduce_scatter_block_noncommutative(
    const ch4coll_args_t *a, const int64_t *params, const ch4coll_model_t *m)
{
    return reduce_scatter_nc_cost(a, params, m);
}
