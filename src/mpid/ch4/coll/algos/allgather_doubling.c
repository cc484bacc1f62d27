/*
 * allgather_doubling.c - logarithmic allgather and allgatherv: recursive
 * doubling and Bruck's concatenation.
 *
 * Source: NEC MPI/SX section 4.2 ("for small data sizes the (flat)
 * catenation algorithm of Bruck et al. [...] collects data in a logarithmic
 * number of rounds" for MPI_Allgather and MPI_Allgatherv); recursive
 * doubling with the non-power-of-two pre/post step of Rabenseifner &
 * Adamidis section 3.5, as recursive_doubling.c uses it for allreduce.
 *
 * recursive_doubling (allgather, allgatherv)
 *   p' = 2^floor(lg p), r = p - p'.  Pre-step: of the first 2r ranks each
 *   even rank sends its block to its odd neighbour and waits.  Then the p'
 *   remaining ranks (new ranks, topo.h) run lg p' exchange steps: at step
 *   2^k new rank q swaps with q XOR 2^k the blocks of its group of 2^k new
 *   ranks.  A group of new ranks is a contiguous range of old ranks (a new
 *   rank below r stands for the old pair 2q, 2q+1), so each step is one
 *   message each way.  Post-step: the odd ranks send the whole result to
 *   their even neighbours.
 *   allgather works in the receive buffer, where blocks sit in rank order.
 *   allgatherv works in a scratch buffer holding the blocks packed in rank
 *   order (their displacements are arbitrary) and copies each block to its
 *   displacement at the end.
 *   T = lg p' alpha + (p'-1)/p' N beta + (r > 0) (2 alpha + (m + N) beta)
 *   for N bytes in all and own blocks of m bytes, p = 2^k.  With r > 0 the
 *   groups are uneven (a new rank below r stands for two blocks), and each
 *   step lasts as long as its largest group's message: the cost function
 *   sums, per step, alpha + the largest group's bytes beta (p = 96:
 *   2 + 4 + .. + 64 = 126 blocks instead of 63/64 N; exact on the model
 *   for allgather).  allgatherv with empty blocks: ranks whose groups are
 *   complete early run ahead and take receive ports out of step order,
 *   which the sum does not count (doc/algorithms.md).
 *   Scratch: none (allgather); N bytes (allgatherv).
 * bruck (allgather; slot arithmetic in topo/index.h)
 *   Scratch T of p blocks, T[0] = own block.  Step k (d = 2^k < p): send
 *   T[0, c) to rank - d and receive T[d, d + c) from rank + d, with
 *   c = min(d, p - d).  Then T[j] is the block of rank + j: two copies
 *   rotate it into the receive buffer.
 *   T = ceil(lg p) alpha + (p-1)/p N beta + 2 copies (free on the model:
 *   exact).  Scratch p m.
 *
 * Restrictions: none; any p, any count, blocks of size 0 (allgatherv) are
 * skipped on both sides, MPI_IN_PLACE (own block already in the receive
 * buffer at rank m, resp. at displs[rank]).  No parameters.
 *
 * Worked example, recursive doubling on p = 6 (p' = 4, r = 2):
 *   pre: 0 -> 1, 2 -> 3; new ranks 0..3 = old 1, 3, 4, 5, holding blocks
 *   {0,1}, {2,3}, {4}, {5}.
 *   step 1: 1 <-> 3 swap {0,1} and {2,3}; 4 <-> 5 swap {4} and {5}.
 *   step 2: 1 <-> 4 swap {0..3} and {4,5}; 3 <-> 5 likewise.
 *   post: 1 -> 0 and 3 -> 2 send all six blocks.
 * Bruck on p = 6 at rank 2: d = 1 gets block 3 from 3; d = 2 gets 4, 5
 *   from 4; d = 4 gets c = 2 blocks 0, 1 from 0 (which holds 0,1,2,3);
 *   T = [2 3 4 5 0 1] is rotated by 2 into place.
 */
#include "algo.h"

#include "../topo/index.h"
#include "../topo/topo.h"
#include "../util/util.h"

/* Blocks laid out in rank order: block j occupies [pre[j], pre[j+1]) of
 * buffer buf. */
typedef struct {
    int buf;
    const size_t *pre; /* p + 1 offsets */
} layout_t;

/* First old rank of new rank q (q = p' gives p). */
static inline int rd_first_old(int q, int r)
{
    return q < r ? 2 * q : q + r;
}

/* Send or receive the blocks of old ranks [lo, hi); skipped when empty. */
static int xfer(ch4coll_sched_t *s, const layout_t *l, int send, int lo, int hi,
                int peer, int ndeps, const int *deps)
{
    size_t bytes = l->pre[hi] - l->pre[lo];
    ch4coll_ref_t at = ch4coll_ref(l->buf, l->pre[lo]);

    if (bytes == 0)
        return -1;
    if (send)
        return ch4coll_sched_send(s, at, bytes, peer, 0, ndeps, deps);
    return ch4coll_sched_recv(s, at, bytes, peer, 0, ndeps, deps);
}

static int join(ch4coll_sched_t *s, int x, int y)
{
    int d[2] = {x, y};

    if (x < 0 || y < 0)
        return x >= 0 ? x : y;
    return ch4coll_sched_sink(s, 2, d);
}

/* ---------------------------------------------------- recursive doubling */

/*
 * The three steps on a layout whose own block is ready after vertex own
 * (own_src: where an excluded even rank sends its block from).  Returns the
 * vertex after which the layout holds every block.
 */
static int rd_steps(ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const layout_t *l, ch4coll_ref_t own_src, int own)
{
    int p = a->size, rank = a->rank, r = p - ch4coll_pow2_floor(p);
    int q = ch4coll_rd_newrank(rank, r), p2 = p - r, mask, have = own, d[2];
    size_t own_bytes = l->pre[rank + 1] - l->pre[rank];

    if (q < 0) {
        /* 1. pre-step, excluded even rank: hand over, wait for the result.
         * The result overwrites the own block, so wait for the send. */
        int snd = -1;
        if (own_bytes > 0)
            snd = ch4coll_sched_send(s, own_src, own_bytes, rank + 1, 0,
                                     ch4coll_dep1(own, d), d);
        d[0] = snd;
        d[1] = own;
        return xfer(s, l, 0, 0, p, rank + 1, 2, d);
    }
    if (rank < 2 * r) /* 1. pre-step, odd rank: take the neighbour's block */
        have = join(s, have, xfer(s, l, 0, rank - 1, rank, rank - 1, 0, NULL));
    for (mask = 1; mask < p2; mask *= 2) { /* 2. lg p' exchanges */
        int pq = q ^ mask, peer = ch4coll_rd_oldrank(pq, r);
        int g = q & ~(mask - 1), pg = pq & ~(mask - 1), rv;
        xfer(s, l, 1, rd_first_old(g, r), rd_first_old(g + mask, r), peer,
             ch4coll_dep1(have, d), d);
        rv = xfer(s, l, 0, rd_first_old(pg, r), rd_first_old(pg + mask, r),
                  peer, 0, NULL);
        have = join(s, have, rv);
    }
    if (rank < 2 * r) /* 3. post-step */
        xfer(s, l, 1, 0, p, rank - 1, ch4coll_dep1(have, d), d);
    return have;
}

int ch4coll_allgather_recursive_doubling(ch4coll_sched_t *s,
                                         const ch4coll_args_t *a,
                                         const int64_t *params)
{
    int p = a->size, rank = a->rank, i, own = -1;
    size_t n = a->count, *pre;
    layout_t l;
    ch4coll_ref_t own_at = ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rank * n);

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    pre = ch4coll_malloc(((size_t) p + 1) * sizeof *pre);
    if (!pre)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i <= p; i++)
        pre[i] = (size_t) i * n;
    l.buf = CH4COLL_BUF_RECV;
    l.pre = pre;
    if (!a->inplace)
        own = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), own_at, n,
                                 0, NULL);
    rd_steps(s, a, &l, own_at, own);
    ch4coll_free(pre);
    return CH4COLL_OK;
}

/* Copy every block but the in-place own one from the packed layout to its
 * displacement (the own block comes straight from the send buffer). */
static void unpack_blocks(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const layout_t *l, int done)
{
    int p = a->size, i, d[1];

    for (i = 0; i < p; i++) {
        size_t c = a->counts[i];
        ch4coll_ref_t to = ch4coll_ref(CH4COLL_BUF_RECV, a->displs[i]);
        if (c == 0 || (i == a->rank && a->inplace))
            continue;
        if (i == a->rank)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), to, c, 0,
                               NULL);
        else
            ch4coll_sched_copy(s, ch4coll_ref(l->buf, l->pre[i]), to, c,
                               ch4coll_dep1(done, d), d);
    }
}

int ch4coll_allgatherv_recursive_doubling(ch4coll_sched_t *s,
                                          const ch4coll_args_t *a,
                                          const int64_t *params)
{
    int p = a->size, rank = a->rank, i, own = -1, done;
    size_t *pre, c = a->counts[rank];
    layout_t l;
    ch4coll_ref_t own_src = a->inplace
                                ? ch4coll_ref(CH4COLL_BUF_RECV, a->displs[rank])
                                : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    (void) params;
    pre = ch4coll_malloc(((size_t) p + 1) * sizeof *pre);
    if (!pre)
        return CH4COLL_ERR_NOMEM;
    pre[0] = 0;
    for (i = 0; i < p; i++)
        pre[i + 1] = pre[i] + a->counts[i];
    if (pre[p] > 0) {
        l.buf = ch4coll_sched_scratch(s, pre[p]);
        l.pre = pre;
        if (c > 0 && ch4coll_rd_newrank(rank, p - ch4coll_pow2_floor(p)) >= 0)
            own = ch4coll_sched_copy(s, own_src, ch4coll_ref(l.buf, pre[rank]),
                                     c, 0, NULL);
        done = rd_steps(s, a, &l, own_src, own);
        unpack_blocks(s, a, &l, done);
    }
    ch4coll_free(pre);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------ bruck */

int ch4coll_allgather_bruck(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    int p = a->size, rank = a->rank, t, have, dist, wrap, d[1];
    size_t n = a->count;
    ch4coll_ref_t own_src =
        a->inplace ? ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rank * n)
                   : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (p == 1) {
        if (!a->inplace)
            ch4coll_sched_copy(s, own_src, ch4coll_ref(CH4COLL_BUF_RECV, 0), n,
                               0, NULL);
        return CH4COLL_OK;
    }
    /* 1. own block to T[0] */
    t = ch4coll_sched_scratch(s, (size_t) p * n);
    have = ch4coll_sched_copy(s, own_src, ch4coll_ref(t, 0), n, 0, NULL);
    /* 2. ceil(lg p) concatenation steps */
    for (dist = 1; dist < p; dist *= 2) {
        size_t c = (size_t) ch4coll_bruck_ag_count(dist, p) * n;
        int rv;
        ch4coll_sched_send(s, ch4coll_ref(t, 0), c, (rank - dist + p) % p, 0,
                           ch4coll_dep1(have, d), d);
        rv = ch4coll_sched_recv(s, ch4coll_ref(t, (size_t) dist * n), c,
                                (rank + dist) % p, 0, 0, NULL);
        have = join(s, have, rv);
    }
    /* 3. rotate: T[j] is the block of rank + j, T[0, wrap) blocks rank..p-1 */
    wrap = ch4coll_bruck_wrap(rank, p);
    ch4coll_sched_copy(s, ch4coll_ref(t, 0),
                       ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rank * n),
                       (size_t) wrap * n, ch4coll_dep1(have, d), d);
    if (wrap < p)
        ch4coll_sched_copy(s, ch4coll_ref(t, (size_t) wrap * n),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0),
                           (size_t) (p - wrap) * n, ch4coll_dep1(have, d), d);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/* Bytes of the blocks of old ranks [lo, hi); counts NULL: regular. */
static double blocks(const ch4coll_args_t *a, int lo, int hi)
{
    double b = 0;
    int i;

    if (!a->counts)
        return (double) (hi - lo) * (double) a->count;
    for (i = lo; i < hi; i++)
        b += (double) a->counts[i];
    return b;
}

/* Pre-step (the largest block handed over), one exchange per bit with the
 * largest group of that step, post-step with everything. */
static double rd_cost(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    int p = a->size, p2 = ch4coll_pow2_floor(p), r = p - p2, i, mask, g;
    double t = 0, x, big;

    if (p == 1)
        return 0.0;
    if (r > 0) {
        for (big = 0, i = 0; i < r; i++)
            if (blocks(a, 2 * i, 2 * i + 1) > big)
                big = blocks(a, 2 * i, 2 * i + 1);
        t += ch4coll_model_block(m, big) +
             ch4coll_model_block(m, blocks(a, 0, p));
    }
    for (mask = 1; mask < p2; mask *= 2) {
        for (big = 0, g = 0; g < p2; g += mask) {
            x = blocks(a, rd_first_old(g, r), rd_first_old(g + mask, r));
            if (x > big)
                big = x;
        }
        t += ch4coll_model_block(m, big);
    }
    return t;
}

double ch4coll_cost_allgather_recursive_doubling(const ch4coll_args_t *a,
                                                 const int64_t *params,
                                                 const ch4coll_model_t *m)
{
    (void) params;
    return a->count == 0 ? 0.0 : rd_cost(a, m);
}

double ch4coll_cost_allgatherv_recursive_doubling(const ch4coll_args_t *a,
                                                  const int64_t *params,
                                                  const ch4coll_model_t *m)
{
    (void) params;
    return rd_cost(a, m);
}

double ch4coll_cost_allgather_bruck(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    int p = a->size, d;
    double t = 0;

    (void) params;
    if (a->count == 0)
        return 0.0;
    for (d = 1; d < p; d *= 2)
        t += ch4coll_model_block(m, (double) ch4coll_bruck_ag_count(d, p) *
                                        (double) a->count);
    return t;
}
