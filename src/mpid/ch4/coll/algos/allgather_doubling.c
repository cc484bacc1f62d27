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
 *   Scratch T of p blocks, T[0] = own block.  Step d (d = k^i < p, radix
 *   k = 2 by default): for each digit v = 1 .. k-1 with v d < p, at once,
 *   send T[0, c) to rank - v d and receive T[v d, v d + c) from rank + v d,
 *   with c = min(d, p - v d).  Then T[j] is the block of rank + j: two
 *   copies rotate it into the receive buffer.
 *   A step's sends wait for the step before's sends as well as for its
 *   blocks, and a receive of at least alpha/beta bytes (the call's model)
 *   is posted only when the step before is done, as Open MPI's Bruck does
 *   with one sendrecv per step: posted at the start, it shares the link
 *   into the receiver with the message of the step before, which the next
 *   send waits for (SimGrid torus, p = 96, 128 KiB: 4.58 ms against 4.42
 *   posted step by step); a shorter one is posted at the start, so that it
 *   travels as soon as its sender is ready (post.h).
 *   T = ceil(lg p) alpha + (p-1)/p N beta + 2 copies for radix 2 (free on
 *   the model: exact); radix k: ceil(log_k p) steps of k - 1 messages, the
 *   same (p-1)/p N bytes, charged one after the other on the single-ported
 *   model.  Scratch p m.
 *   The radix is Bruck et al.'s k-port concatenation: parameter steps = s
 *   picks the least k with k^s >= p.  s = 2 and 3 are the two- and
 *   three-dimensional meshes of SMPI's 2dmesh and 3dmesh allgather, here
 *   for every p (a prime p leaves the last step with fewer digits); s = 1
 *   is linear.  Where a host starts a message in less than a latency, a
 *   step costs about one latency, and for small blocks s steps beat
 *   ceil(lg p).
 * bruck (allgatherv)
 *   The same steps (and radix) over irregular blocks, for which NEC 4.2
 *   uses it too:
 *   T holds the blocks of rank, rank + 1, .. packed in that order, so the
 *   c blocks a step moves are one message of their summed sizes, the
 *   sender's T[0, c) landing in the receiver's T[d, d + c).  A step whose
 *   blocks are all empty sends nothing (both sides see the same sum).  A
 *   rank's sends go in step order (each step's wait for the step before:
 *   when a step receives nothing, the next step's send is ready at once,
 *   and on the model's first-come ports it would overtake the earlier one
 *   and hold up its receiver: 1.8 times the formula at p = 96 with the
 *   harness's irregular counts), and its receives of alpha/beta bytes or
 *   more are posted step by step, as for allgather (fat tree, p = 96,
 *   128 KiB: 518.9 us posted at the start, 508.0 step by step, the time of
 *   Open MPI's Bruck).  At the end every block is copied to its
 *   displacement, runs of blocks whose displacements follow each other in
 *   one copy (two copies for the usual packed displs).  A large block
 *   travels once per step, not once per rank as on a ring: with one block
 *   of B bytes and the rest tiny, ceil(lg p) (alpha + B beta) against the
 *   ring's (p-1) (alpha + B beta).  The cost function runs the steps
 *   self-timed on single ports: the message of digit v of step d from
 *   r + v d to r starts at the latest of r's receive port, r + v d's send
 *   port and r + v d's steps before, and lasts alpha + (its c blocks) beta,
 *   O(p k log_k p).  Scratch N bytes.
 *
 * Restrictions: none; any p, any count, blocks of size 0 (allgatherv) are
 * skipped on both sides, MPI_IN_PLACE (own block already in the receive
 * buffer at rank m, resp. at displs[rank]).  bruck: parameter steps (0:
 * radix 2); recursive doubling: none.
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
 * Bruck with steps = 2 on p = 5 (radix 3) at rank 2: d = 1, at once,
 *   v = 1 gets block 3 from 3 and v = 2 block 4 from 4; d = 3, v = 1 gets
 *   c = 2 blocks 0, 1 from 0 (holding 0, 1, 2).  T = [2 3 4 0 1]: two
 *   steps instead of three.
 * Bruck allgatherv on p = 6, counts {0, 9, 1, 1, 0, 2} at rank 2: T packs
 *   blocks 2 3 4 5 0 1 at offsets 0 1 2 2 4 4 (13 bytes).  d = 1: send
 *   T[0, 1) (block 2, 1 byte) to 1, receive block 3 (1 byte) from 3 into
 *   offset 1.  d = 2: send blocks 2, 3 (2 bytes) to 0, receive blocks 4, 5
 *   (0 + 2 bytes) from 4 into offset 2.  d = 4, c = 2: send blocks 2, 3 to
 *   4, receive blocks 0, 1 (0 + 9 bytes) from 0 into offset 4.  The 9-byte
 *   block 1 crossed 3 messages; on a ring it crosses 5.
 */
#include "algo.h"
#include "post.h"

#include <math.h>
#include <string.h>

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
    int p = a->size, rank = a->rank, t, have, sent = -1, wrap, v, d[1];
    int k = ch4coll_bruck_radix((int) params[0], p);
    int64_t dist;
    size_t n = a->count;
    ch4coll_ref_t own_src =
        a->inplace ? ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rank * n)
                   : ch4coll_ref(CH4COLL_BUF_SEND, 0);

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
    /* 2. ceil(log_k p) concatenation steps, the k - 1 digits of a step at
     * once: each sends T[0, c) and fills T[v dist, v dist + c) */
    for (dist = 1; dist < p; dist *= k) {
        int got = have, step_sent = sent, dd[2] = {have, sent};
        for (v = 1; v < k && v * dist < p; v++) {
            int far = (int) (v * dist);
            size_t c = (size_t) ch4coll_bruck_ag_count((int) dist, v, p) * n;
            step_sent = join(s, step_sent,
                             ch4coll_sched_send(s, ch4coll_ref(t, 0), c,
                                                (rank - far + p) % p, 0,
                                                1 + (sent >= 0), dd));
            got = join(
                s, got,
                ch4coll_sched_recv(
                    s, ch4coll_ref(t, (size_t) far * n), c, (rank + far) % p, 0,
                    ch4coll_post_late(a, (double) c) ? 1 + (sent >= 0) : 0,
                    dd));
        }
        have = got;
        sent = step_sent;
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

/* Offsets of the blocks packed in the order rank, rank + 1, ..: pre[j] is
 * where the block of rank + j starts, pre[p] the total. */
static size_t *rotated_offsets(const ch4coll_args_t *a)
{
    int p = a->size, j;
    size_t *pre = ch4coll_malloc(((size_t) p + 1) * sizeof *pre);

    if (!pre)
        return NULL;
    pre[0] = 0;
    for (j = 0; j < p; j++)
        pre[j + 1] = pre[j] + a->counts[ch4coll_bruck_slot_rank(a->rank, j, p)];
    return pre;
}

/* Copy T's blocks to their displacements after vertex done, a run of
 * blocks whose displacements follow each other as one copy; the own block
 * comes from own_src (nothing to do in place). */
static void bruck_unpack(ch4coll_sched_t *s, const ch4coll_args_t *a, int t,
                         const size_t *pre, int done)
{
    int p = a->size, j = 1, d[1];

    if (!a->inplace && a->counts[a->rank] > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, a->displs[a->rank]),
                           a->counts[a->rank], 0, NULL);
    while (j < p) {
        int first = ch4coll_bruck_slot_rank(a->rank, j, p), k = j + 1;
        size_t end = a->displs[first] + a->counts[first];
        for (; k < p; k++) {
            int r = ch4coll_bruck_slot_rank(a->rank, k, p);
            if (a->counts[r] > 0 && a->displs[r] != end)
                break;
            end += a->counts[r];
        }
        if (pre[k] > pre[j])
            ch4coll_sched_copy(s, ch4coll_ref(t, pre[j]),
                               ch4coll_ref(CH4COLL_BUF_RECV, a->displs[first]),
                               pre[k] - pre[j], ch4coll_dep1(done, d), d);
        j = k;
    }
}

int ch4coll_allgatherv_bruck(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, rank = a->rank, t, have = -1, sent = -1, v;
    int k = ch4coll_bruck_radix((int) params[0], p);
    int64_t dist;
    size_t *pre, c = a->counts[rank];
    ch4coll_ref_t own_src = a->inplace
                                ? ch4coll_ref(CH4COLL_BUF_RECV, a->displs[rank])
                                : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    pre = rotated_offsets(a);
    if (!pre)
        return CH4COLL_ERR_NOMEM;
    if (pre[p] == 0) { /* every block empty */
        ch4coll_free(pre);
        return CH4COLL_OK;
    }
    /* 1. own block to T[0] */
    t = ch4coll_sched_scratch(s, pre[p]);
    if (c > 0)
        have = ch4coll_sched_copy(s, own_src, ch4coll_ref(t, 0), c, 0, NULL);
    /* 2. ceil(log_k p) concatenation steps over the packed blocks, the
     * k - 1 digits of a step at once; the steps' sends in step order, also
     * when a step received nothing */
    for (dist = 1; dist < p; dist *= k) {
        int got = have, step_sent = sent, dd[2], nd = 0;
        if (have >= 0)
            dd[nd++] = have;
        if (sent >= 0)
            dd[nd++] = sent;
        for (v = 1; v < k && v * dist < p; v++) {
            int far = (int) (v * dist);
            int n = ch4coll_bruck_ag_count((int) dist, v, p);
            size_t out = pre[n], in = pre[far + n] - pre[far];
            if (out > 0)
                step_sent =
                    join(s, step_sent,
                         ch4coll_sched_send(s, ch4coll_ref(t, 0), out,
                                            (rank - far + p) % p, 0, nd, dd));
            if (in > 0)
                got = join(s, got,
                           ch4coll_sched_recv(
                               s, ch4coll_ref(t, pre[far]), in,
                               (rank + far) % p, 0,
                               ch4coll_post_late(a, (double) in) ? nd : 0, dd));
        }
        have = got;
        sent = step_sent;
    }
    /* 3. every block to its displacement */
    bruck_unpack(s, a, t, pre, have);
    ch4coll_free(pre);
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

/* Single-ported: a step's k - 1 messages one after the other. */
double ch4coll_cost_allgather_bruck(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    int p = a->size, k = ch4coll_bruck_radix((int) params[0], p), v;
    int64_t d;
    double t = 0;

    if (a->count == 0)
        return 0.0;
    for (d = 1; d < p; d *= k)
        for (v = 1; v < k && v * d < p; v++)
            t += ch4coll_model_block(
                m, (double) ch4coll_bruck_ag_count((int) d, v, p) *
                       (double) a->count);
    return t;
}

/* Self-timed steps on single ports: the message of digit v of step d from
 * r + v d to r starts when r's receives before it (its receive port),
 * r + v d's receives of the steps before (the blocks it forwards) and
 * r + v d's sends before it (its send port) are done. */
double ch4coll_cost_allgatherv_bruck(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    int p = a->size, k = ch4coll_bruck_radix((int) params[0], p), r, v, n;
    int64_t d;
    double *t, *u, *sent, *pre, worst = 0;

    if (p == 1)
        return 0.0;
    t = ch4coll_malloc(4 * ((size_t) p + 1) * sizeof *t);
    if (!t)
        return HUGE_VAL;
    u = t + p + 1;      /* receive port: receives done so far in this step */
    sent = u + p + 1;   /* send port: last send done */
    pre = sent + p + 1; /* prefix sums of the counts */
    pre[0] = 0;
    for (r = 0; r < p; r++) {
        t[r] = sent[r] = 0;
        pre[r + 1] = pre[r] + (double) a->counts[r];
    }
    for (d = 1; d < p; d *= k) {
        memcpy(u, t, (size_t) p * sizeof *t);
        for (v = 1; v < k && v * d < p; v++) {
            n = ch4coll_bruck_ag_count((int) d, v, p);
            for (r = 0; r < p; r++) {
                int from = (int) ((r + v * d) % p), to = from + n;
                double bytes = to <= p ? pre[to] - pre[from]
                                       : pre[p] - pre[from] + pre[to - p];
                double start = u[r] > t[from] ? u[r] : t[from];
                if (bytes <= 0)
                    continue;
                start = sent[from] > start ? sent[from] : start;
                u[r] = sent[from] = start + ch4coll_model_block(m, bytes);
            }
        }
        memcpy(t, u, (size_t) p * sizeof *t);
    }
    for (r = 0; r < p; r++)
        worst = t[r] > worst ? t[r] : worst;
    ch4coll_free(t);
    return worst;
}
