/*
 * scatter_allgather.c - broadcast as scatter + allgather (van de Geijn).
 *
 * Source: NEC MPI/SX section 3.3 and BlueGene/L section 3.1 ("for long
 * messages [MPICH2] performs a binomial tree scatter followed by an
 * allgather"), after Barnett, Shuler, van de Geijn et al. (InterCom):
 * cutting the message into p pieces lets every link carry about n/p bytes
 * per step, so the bandwidth term drops from ceil(lg p) n beta (binomial
 * tree) to about 2 n beta.
 *
 * Pieces: the n bytes are cut into p balanced pieces, piece i of
 * floor(n/p) or ceil(n/p) bytes at offset i floor(n/p) + min(i, n mod p),
 * indexed by relative rank vr = (rank - root) mod p.  When n < p some
 * pieces are empty; empty messages are skipped on both sides.
 *
 * Step 1, scatter: the binomial tree of binomial.c over relative ranks;
 *   vr receives the pieces of its subtree [vr, vr + span) - contiguous bytes
 *   - straight into the receive buffer and forwards its children's ranges.
 *   ceil(lg p) alpha + (p-1)/p n beta.
 *   A rank's scatter sends go out one at a time, largest subtree first.
 * Step 2a, ring allgather (scatter_ring_allgather): step k = 0..p-2 sends
 *   piece vr - k to vr + 1 and receives piece vr - k - 1 from vr - 1.  A
 *   piece the receiver already holds from the scatter (its own subtree) is
 *   neither sent nor received.  The sends to the right neighbour are
 *   chained, so one tag keeps them in step order, and the first waits for
 *   the rank's last scatter send.  On fair-shared links (SimGrid, real
 *   networks) both orders matter: with the scatter sends all at once the
 *   largest subtree's piece arrives last, and ring messages overlapping
 *   the scatter share its links; at p = 16 on SimGrid's torus, 2 MiB, that
 *   took 1971 us, ordered 585 (SMPI's scatter_LR_allgather: 584).  On the
 *   single-ported model the port serialised them anyway.
 *   (p-1) alpha + (p-1)/p n beta.
 * Step 2b, doubling allgather (scatter_rd_allgather), any p: before step i
 *   (distance d = 2^i) rank vr holds the pieces [vr, vr + L) with
 *   L = min(p, max(span(vr), d)).  It receives [vr + L, vr + min(p, 2d))
 *   from vr + d, which holds at least [vr + d, vr + 2d), and sends vr - d
 *   the pieces that rank lacks.  Ranges are taken mod p; one that wraps
 *   past piece p-1 travels as two messages.  No power-of-two fix-up, no
 *   final rotation.  A rank's sends go out one at a time, its scatter sends
 *   first, so that a rank holding the pieces of several steps does not book
 *   its partners' receive ports for a late, large message too early.
 *   ceil(lg p) (alpha .. 2 alpha) + (p-1)/p n beta.
 * T(ring) = (ceil(lg p) + p - 1) alpha + 2 (p-1)/p n beta, exact on the
 *   model for n >= p (the ring passes the pieces on as they arrive).
 * T(rd)   = 2 ceil(lg p) alpha (at most 3 ceil(lg p)) + 2 (p-1)/p n beta
 *   without contention; when the last step is neither nearly empty nor
 *   nearly full (2 <= R <= p' - 2, R = p - p' its pieces, p' =
 *   2^floor(lg p)) the messages of the last two steps meet out of order at
 *   the first-come ports, and the cost adds alpha + 2.75 R/p n beta, a term
 *   fitted on the replay (doc/algorithms.md).
 * No scratch: everything lands in the receive buffer.
 * Restrictions: none; any p, any count (count 0 is a no-op), any root.
 * Tags: 0 scatter, 1 ring / first segment, 2 second segment.
 *
 * Worked example, p = 6, root 0, n = 12 (2-byte pieces 0..5):
 *   scatter: 0 -> 4 pieces 4,5; 0 -> 2 pieces 2,3; 0 -> 1 piece 1;
 *            2 -> 3 piece 3; 4 -> 5 piece 5.  Spans 6,1,2,1,2,1.
 *   ring: 1 receives pieces 0, 5, 4, 3, 2 in steps 0..4; 2 receives 1, 0,
 *         5, 4 and skips 3 (its own subtree, so 1 does not send it); 5
 *         sends nothing to the root, which receives nothing.
 *   rd:   d = 1: 1 gets 2 from 2, 3 gets 4 from 4, 5 gets 0 from 0;
 *         d = 2: 1 gets 3,4 from 3; 2 gets 4,5 from 4; 3 gets 5 and 0
 *                (wrapped: two messages) from 5; 4 gets 0,1 from 0;
 *                5 gets 1,2 from 1;
 *         d = 4: everyone gets the rest from vr + 4, e.g. 1 gets 5,0.
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../util/util.h"

enum { TAG_SCATTER = 0, TAG_SEG0 = 1, TAG_SEG1 = 2 };

/* ------------------------------------------------------- piece arithmetic */

/* Byte offset of piece i (0 <= i <= p) of n bytes cut into p pieces. */
static inline size_t piece_off(size_t n, int p, int i)
{
    return ch4coll_seg_off(n, (size_t) p, (size_t) i);
}

/* Bytes of the pieces [lo, hi), 0 <= lo <= hi <= p. */
static inline size_t pieces_bytes(size_t n, int p, int lo, int hi)
{
    return piece_off(n, p, hi) - piece_off(n, p, lo);
}

/* Is piece j in the binomial subtree of relative rank x? */
static inline int in_subtree(int j, int x, int p)
{
    return j >= x && j < x + ch4coll_binomial_span(x, p);
}

/* Pieces rank x holds before doubling step d: [x, x + L). */
static inline int rd_held(int x, int d, int p)
{
    int span = ch4coll_binomial_span(x, p), l = span > d ? span : d;

    return l < p ? l : p;
}

/* ---------------------------------------------------------- 1. scatter */

/* Binomial scatter of the pieces into the receive buffer; returns the
 * vertex that received this rank's subtree (-1 at the root or if empty)
 * and, if last is not NULL, sets *last to its last send (-1 if none). */
static int scatter_pieces(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          int *last)
{
    int p = a->size, root = a->root, vr = ch4coll_rel(a->rank, root, p);
    int parent = ch4coll_binomial_parent(vr);
    int span = ch4coll_binomial_span(vr, p), m, got = -1, sent = -1, d[2];
    size_t n = a->count, bytes;

    bytes = pieces_bytes(n, p, vr, vr + span);
    if (parent >= 0 && bytes > 0)
        got = ch4coll_sched_recv(
            s, ch4coll_ref(CH4COLL_BUF_RECV, piece_off(n, p, vr)), bytes,
            ch4coll_abs(parent, root, p), TAG_SCATTER, 0, NULL);
    for (m = ch4coll_binomial_mask_limit(vr, p) / 2; m >= 1; m /= 2) {
        int c = vr + m, cs;
        if (c >= p)
            continue;
        cs = ch4coll_binomial_span(c, p);
        bytes = pieces_bytes(n, p, c, c + cs);
        if (bytes > 0) {
            d[0] = got;
            d[1] = sent;
            sent = ch4coll_sched_send(
                s, ch4coll_ref(CH4COLL_BUF_RECV, piece_off(n, p, c)), bytes,
                ch4coll_abs(c, root, p), TAG_SCATTER, 2, d);
        }
    }
    if (last)
        *last = sent;
    return got;
}

/* ------------------------------------------------------ 2a. ring allgather */

static void ring_allgather(ch4coll_sched_t *s, const ch4coll_args_t *a, int got,
                           int scattered)
{
    int p = a->size, root = a->root, vr = ch4coll_rel(a->rank, root, p);
    int right = (vr + 1) % p, left = (vr - 1 + p) % p;
    int k, last_recv = -1, prev_send = scattered;
    size_t n = a->count;

    for (k = 0; k < p - 1; k++) {
        int js = (vr - k + p) % p, jr = (vr - k - 1 + p) % p;
        int have = in_subtree(js, vr, p) ? got : last_recv;
        size_t sb = pieces_bytes(n, p, js, js + 1);
        size_t rb = pieces_bytes(n, p, jr, jr + 1);
        if (sb > 0 && !in_subtree(js, right, p)) {
            int d[2] = {have, prev_send};
            prev_send = ch4coll_sched_send(
                s, ch4coll_ref(CH4COLL_BUF_RECV, piece_off(n, p, js)), sb,
                ch4coll_abs(right, root, p), TAG_SEG0, 2, d);
        }
        last_recv = -1;
        if (rb > 0 && !in_subtree(jr, vr, p))
            last_recv = ch4coll_sched_recv(
                s, ch4coll_ref(CH4COLL_BUF_RECV, piece_off(n, p, jr)), rb,
                ch4coll_abs(left, root, p), TAG_SEG0, 0, NULL);
    }
}

/* The scatter, and the ring allgather. */
int ch4coll_ntags_bcast_scatter_ring_allgather(const ch4coll_args_t *a,
                                               const int64_t *params)
{
    (void) a;
    (void) params;
    return 2;
}

/* The scatter, the doubling steps, and the non-power-of-two hand-over. */
int ch4coll_ntags_bcast_scatter_rd_allgather(const ch4coll_args_t *a,
                                             const int64_t *params)
{
    (void) a;
    (void) params;
    return 3;
}

int ch4coll_bcast_scatter_ring_allgather(ch4coll_sched_t *s,
                                         const ch4coll_args_t *a,
                                         const int64_t *params)
{
    int got, last;

    ch4coll_sched_set_ntags(
        s, ch4coll_ntags_bcast_scatter_ring_allgather(a, params));
    (void) params;
    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    got = scatter_pieces(s, a, &last);
    ring_allgather(s, a, got, last);
    return CH4COLL_OK;
}

/* -------------------------------------------------- 2b. doubling allgather */

/* A vertex that completes when x and y did (either may be -1). */
static int join(ch4coll_sched_t *s, int x, int y)
{
    int d[2] = {x, y};

    if (x < 0 || y < 0)
        return x >= 0 ? x : y;
    return ch4coll_sched_sink(s, 2, d);
}

/* Send or receive the pieces [lo, hi) of relative rank x's range, lo < hi,
 * taken mod p: one message, or two when the range wraps past piece p-1.
 * The receive variant has no dependencies (the pieces are new to this
 * rank); returns a vertex that completes when all messages did. */
static int move_range(ch4coll_sched_t *s, const ch4coll_args_t *a, int send,
                      int lo, int hi, int peer, int dep)
{
    int p = a->size, seg[2][2], nseg = 0, i, v[2] = {-1, -1}, d[1];
    size_t n = a->count;

    if (lo >= p) {
        lo -= p;
        hi -= p;
    }
    seg[0][0] = lo;
    seg[0][1] = hi < p ? hi : p;
    nseg = 1;
    if (hi > p) {
        seg[1][0] = 0;
        seg[1][1] = hi - p;
        nseg = 2;
    }
    for (i = 0; i < nseg; i++) {
        size_t bytes = pieces_bytes(n, p, seg[i][0], seg[i][1]);
        ch4coll_ref_t at =
            ch4coll_ref(CH4COLL_BUF_RECV, piece_off(n, p, seg[i][0]));
        if (bytes == 0)
            continue;
        if (send)
            v[i] = ch4coll_sched_send(s, at, bytes, peer, TAG_SEG0 + i,
                                      ch4coll_dep1(dep, d), d);
        else
            v[i] =
                ch4coll_sched_recv(s, at, bytes, peer, TAG_SEG0 + i, 0, NULL);
    }
    if (v[0] < 0 || v[1] < 0)
        return v[0] >= 0 ? v[0] : v[1];
    return ch4coll_sched_sink(s, 2, v);
}

static void rd_allgather(ch4coll_sched_t *s, const ch4coll_args_t *a, int got,
                         int sent)
{
    int p = a->size, root = a->root, vr = ch4coll_rel(a->rank, root, p);
    int d, have = got;

    for (d = 1; d < p; d *= 2) {
        int hi = 2 * d < p ? 2 * d : p, x = (vr - d + p) % p, lo, rv = -1;
        /* what vr - d lacks of [x, x + 2d), from my [vr, vr + d), after
         * my previous send */
        lo = rd_held(x, d, p);
        if (lo < hi) {
            int sv = move_range(s, a, 1, x + lo, x + hi,
                                ch4coll_abs(x, root, p), join(s, have, sent));
            sent = sv >= 0 ? sv : sent;
        }
        /* what I lack, from vr + d */
        lo = rd_held(vr, d, p);
        if (lo < hi)
            rv = move_range(s, a, 0, vr + lo, vr + hi,
                            ch4coll_abs((vr + d) % p, root, p), -1);
        if (rv >= 0)
            have = join(s, have, rv);
    }
}

int ch4coll_bcast_scatter_rd_allgather(ch4coll_sched_t *s,
                                       const ch4coll_args_t *a,
                                       const int64_t *params)
{
    int got, last;

    ch4coll_sched_set_ntags(
        s, ch4coll_ntags_bcast_scatter_rd_allgather(a, params));
    (void) params;
    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    got = scatter_pieces(s, a, &last);
    rd_allgather(s, a, got, last);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/* Step 1: the root sends one message per child subtree, largest first. */
static double scatter_cost(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    int p = a->size, mm;
    double t = 0;

    for (mm = ch4coll_pow2_ceil(p) / 2; mm >= 1; mm /= 2)
        if (mm < p)
            t += ch4coll_model_block(
                m, (double) pieces_bytes(a->count, p, mm,
                                         mm + ch4coll_binomial_span(mm, p)));
    return t;
}

double ch4coll_cost_bcast_scatter_ring_allgather(const ch4coll_args_t *a,
                                                 const int64_t *params,
                                                 const ch4coll_model_t *m)
{
    int p = a->size;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    return scatter_cost(a, m) +
           (p - 1) *
               ch4coll_model_block(m, (double) pieces_bytes(a->count, p, 0, 1));
}

double ch4coll_cost_bcast_scatter_rd_allgather(const ch4coll_args_t *a,
                                               const int64_t *params,
                                               const ch4coll_model_t *m)
{
    int p = a->size, d, last = 0, p2 = ch4coll_pow2_floor(p);
    double t;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    t = scatter_cost(a, m);
    /* a leaf receives d pieces at step d (p - d at the last) */
    for (d = 1; d < p; d *= 2) {
        last = d < p - d ? d : p - d;
        t +=
            ch4coll_model_block(m, (double) pieces_bytes(a->count, p, 0, last));
    }
    /* the last two steps meet out of order at receive ports unless the
     * last step is nearly empty or nearly full (see the note) */
    if (p - p2 >= 2 && p - p2 <= p2 - 2)
        t += m->alpha +
             2.75 * (double) pieces_bytes(a->count, p, 0, p - p2) * m->beta;
    return t;
}
