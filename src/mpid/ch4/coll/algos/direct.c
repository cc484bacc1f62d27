/*
 * direct.c - allreduce by direct exchanges: the reduce-scatter as one
 * exchange of segments with every rank at once, then the allgather the
 * same way.
 *
 * Source: Rabenseifner & Adamidis section 3.7: for non-power-of-two p and
 * long vectors, "the pairwise exchange algorithm for reduce_scatter and
 * ring algorithm for allgather", T_all,ring = 2(p-1) alpha + 2n beta +
 * n gamma - (2n beta + n gamma)/p.  Here both phases post every exchange
 * at once instead of in p-1 steps, the shape of SMPI's rab2 allreduce (its
 * reduce-scatter is one MPI_Alltoall of the segments, then an allgather),
 * which beat every ch4coll allreduce on SimGrid's fat tree at p = 61, 512
 * KiB-2 MiB (63.5 us against circulant's 94.6 at 512 KiB): a host that
 * starts a message in less time than a latency pays about two latencies
 * and p-1 message overheads per phase, not p-1 latencies.
 *
 * direct (allreduce)
 *   The n elements are cut into p balanced segments (topo.h), segment j
 *   owned by rank j.
 *   1. reduce-scatter: send input segment j to rank j, for every j != r,
 *      at once (tag 0); receive rank i's input of segment r into scratch
 *      slot i, for every i != r, at once; fold.  Commutative ops fold in
 *      the order the contributions arrive when all send in rank + k order
 *      (r-1, r-2, .., 0, p-1, .., r+1) into segment r of the receive
 *      buffer, which starts as the own input.  Other ops keep rank order
 *      as pairwise.c does: low = x_0 op .. op x_r (folded downwards from
 *      the own input), high = x_{r+1} op .. op x_{p-1} (downwards from
 *      slot p-1), result = low op high, copied into place.
 *   2. allgather: send segment r of the result to every rank at once (tag
 *      1), receive segment j from rank j straight into place.  In place, a
 *      receive into segment j waits for step 1's send of the input there.
 *   Parameter window (0, the default: all): step 1 keeps at most window
 *   sends and window receives in flight, the k-th posted when the (k -
 *   window)-th is done.  All at once, fair sharing of the link into a rank
 *   delivers every segment at the end of the phase, and the p - 1 folds
 *   run after it; a window lets the segments arrive window by window, each
 *   batch's folds under the next batch's transfer (SimGrid fat tree,
 *   p = 61, 2 MiB: 206.4 us all at once, 173.7 with window 8, where the
 *   single-ported bound is 168.6; the torus, p = 61, 2 MiB: 1833 against
 *   1752 us).  Where the network, not the folds, limits the phase (the
 *   fat tree across two leaf switches, p = 96: 226.2 against 240.1 us)
 *   or the segments are short (128 KiB at p = 61: the same 80.4 us from
 *   window 4 up), all at once is as fast or faster.
 *   Cost on the single-ported model, segments of s bytes, t = alpha +
 *   s beta: step 1's p-1 messages in and out take (p-1) t, its folds
 *   overlap them and end s gamma after the last arrival, or (p-1) s gamma
 *   after the first; step 2 takes (p-1) t:
 *     T = max((p-1) t + s gamma, t + (p-1) s gamma) + (p-1) t
 *   (+ s gamma for non-commutative ops: low op high), the paper's
 *   T_all,ring.  Where a host has many messages in flight at once (SMPI's
 *   hosts, real NICs), a phase costs about one latency and p-1 overheads.
 *   The replay books the all-posted messages in rank order on first-come
 *   ports and finds more (test_model.c says how much).
 *   Scratch: p-1 slots of the largest segment (about n), + none.
 *
 * Restrictions: none; any op (rank order kept), any p, any count (empty
 * segments, n < p, are skipped on both sides), MPI_IN_PLACE.  Parameter
 * window, 0..1024.  p-1 receives and p-1 sends in flight per phase: at large p
 * the selection keeps it to the sizes where that pays.
 *
 * Worked example, p = 3, n = 7 (segments of 3, 2, 2 elements), a
 * non-commutative op, at rank 1: step 1 sends input elements 0-2 to rank 0
 * and 5-6 to rank 2, receives rank 0's and rank 2's elements 3-4 into
 * slots 0 and 2; low = x_0 op x_1 (into segment 1 of the receive
 * buffer, holding the own input), high = slot 2 alone (x_2), result =
 * low op high into slot 2, copied to elements 3-4.  Step 2 sends elements
 * 3-4 to ranks 0 and 2 and receives elements 0-2 from rank 0 and 5-6 from
 * rank 2.  p = 5, n = 3: segments 1, 1, 1, 0, 0; ranks 3 and 4 own
 * nothing, send their three elements and receive the three results.
 */
#include "algo.h"

#include "../topo/topo.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int slots;   /* scratch: slot i (i != rank) at index i - (i > rank) */
    size_t mine; /* elements of my segment */
} dx_t;

static size_t seg_off(const dx_t *x, int j)
{
    return ch4coll_seg_off(x->a->count, (size_t) x->a->size, (size_t) j);
}

static size_t seg_len(const dx_t *x, int j)
{
    return ch4coll_seg_len(x->a->count, (size_t) x->a->size, (size_t) j);
}

static ch4coll_ref_t slot(const dx_t *x, int i)
{
    size_t k = (size_t) (i - (i > x->a->rank));

    return ch4coll_ref(x->slots, ch4coll_eoff(x->a, k * x->mine));
}

static ch4coll_ref_t seg(const dx_t *x, int buf, int j)
{
    return ch4coll_ref(buf, ch4coll_eoff(x->a, seg_off(x, j)));
}

/* into = slot(i) op into, after the receive rv[i] and the fold before. */
static int fold(const dx_t *x, const int *rv, int i, ch4coll_ref_t into,
                int before)
{
    int d[2] = {rv[i], before};

    return ch4coll_sched_reduce(x->s, slot(x, i), into, x->mine,
                                before >= 0 ? 2 : 1, d);
}

/* Step 1's folds into segment r of the receive buffer (holding the own
 * input after vertex own); returns the vertex after which it holds the
 * result. */
static int fold_all(const dx_t *x, const int *rv, int own)
{
    int p = x->a->size, r = x->a->rank, i, k, low = own, high = -1, d[2];
    ch4coll_ref_t acc = seg(x, CH4COLL_BUF_RECV, r);

    if (x->a->commutative) {
        for (k = 1; k < p; k++) /* arrival order: r-1, r-2, .. */
            low = fold(x, rv, (r - k + p) % p, acc, low);
        return low;
    }
    for (i = r - 1; i >= 0; i--) /* low = x_0 op .. op x_r */
        low = fold(x, rv, i, acc, low);
    if (r == p - 1)
        return low;
    high = rv[p - 1]; /* high = x_{r+1} op .. op x_{p-1}, in slot p-1 */
    for (i = p - 2; i > r; i--)
        high = fold(x, rv, i, slot(x, p - 1), high);
    d[0] = low;
    d[1] = high;
    high = ch4coll_sched_reduce(x->s, acc, slot(x, p - 1), x->mine,
                                low >= 0 ? 2 : 1, low >= 0 ? d : d + 1);
    return ch4coll_sched_copy(x->s, slot(x, p - 1), acc, x->mine, 1, &high);
}

int ch4coll_ntags_direct(const ch4coll_args_t *a, const int64_t *params)
{
    (void) a;
    (void) params;
    return 2;
}

int ch4coll_allreduce_direct(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, r = a->rank, j, k, own = -1, done, *rv, *sv, *posted;
    int in = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    int w = params[0] > 0 ? (int) params[0] : p, ns = 0, d[1];
    dx_t x = {s, a, -1, 0};

    ch4coll_sched_set_ntags(s, 2);
    if (a->count == 0)
        return CH4COLL_OK;
    x.mine = seg_len(&x, r);
    if (p == 1) {
        if (!a->inplace)
            ch4coll_sched_copy(s, seg(&x, CH4COLL_BUF_SEND, 0),
                               seg(&x, CH4COLL_BUF_RECV, 0), a->count, 0, NULL);
        return CH4COLL_OK;
    }
    /* builder-time memory belongs to the builder */
    rv = ch4coll_malloc(3 * (size_t) p * sizeof *rv);
    if (!rv)
        return CH4COLL_ERR_NOMEM;
    sv = rv + p;
    posted = sv + p; /* step 1's sends in posting order */
    if (x.mine > 0)
        x.slots = ch4coll_sched_scratch(s, (size_t) (p - 1) * x.mine);
    /* 1. reduce-scatter: rank + k order, at most w sends and w receives
     * in flight (the k-th after the (k-w)-th) */
    if (!a->inplace && x.mine > 0)
        own = ch4coll_sched_copy(s, seg(&x, CH4COLL_BUF_SEND, r),
                                 seg(&x, CH4COLL_BUF_RECV, r), x.mine, 0, NULL);
    for (j = 0; j < p; j++)
        rv[j] = sv[j] = -1;
    for (k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        if (seg_len(&x, to) > 0) {
            sv[to] = ch4coll_sched_send(
                s, seg(&x, in, to), seg_len(&x, to), to, 0,
                ch4coll_dep1(ns >= w ? posted[ns - w] : -1, d), d);
            posted[ns++] = sv[to];
        }
        if (x.mine > 0)
            rv[from] = ch4coll_sched_recv(
                s, slot(&x, from), x.mine, from, 0,
                ch4coll_dep1(k > w ? rv[(r - k + w + p) % p] : -1, d), d);
    }
    done = x.mine > 0 ? fold_all(&x, rv, own) : -1;
    /* 2. allgather: my segment to everyone, theirs straight into place */
    for (k = 1; k < p; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        if (x.mine > 0)
            ch4coll_sched_send(s, seg(&x, CH4COLL_BUF_RECV, r), x.mine, to, 1,
                               1, &done);
        if (seg_len(&x, from) > 0)
            ch4coll_sched_recv(s, seg(&x, CH4COLL_BUF_RECV, from),
                               seg_len(&x, from), from, 1,
                               sv[from] >= 0 && a->inplace ? 1 : 0, &sv[from]);
    }
    ch4coll_free(rv);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_allreduce_direct(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    int p = a->size;
    double sb = ch4coll_nbytes(a, ch4coll_seg_len(a->count, (size_t) p, 0));
    double t = ch4coll_model_block(m, sb), g = sb * m->gamma, one, all;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    one = (p - 1) * t + g;
    all = t + (p - 1) * g;
    return (one > all ? one : all) + (p - 1) * t + (a->commutative ? 0.0 : g);
}
