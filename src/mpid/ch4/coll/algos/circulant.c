/*
 * circulant.c - Träff's round-optimal schedules on a circulant graph, for
 * every p and root: bcast of n blocks in n - 1 + ceil(lg p) rounds (the
 * lower bound on one port), reduce (the same rounds backwards, with the
 * folds; below), allgather (p one-block broadcasts at once; below),
 * reduce_scatter(_block) (that allgather backwards) and allreduce (the
 * two in turn; at the end).
 *
 * Source: Träff 2025 (circulant schedules), ACM TOPC, arXiv 2407.18004 (the
 * schedules; see topo/circulant.h); the verified restatement in
 * ../shared/notes/circulant-schedules.md, sections 2-6 and 9.
 *
 * Steps.  The root's message is cut into n blocks of balanced sizes.  With
 * q = ceil(lg p) and r the rank relative to the root, round j (0 <= j <
 * n - 1 + q) uses skip s[k], k = (x + j) mod q: r sends to r + s[k] the
 * block its send schedule names, and receives from r - s[k] the block its
 * receive schedule names (ch4coll_circ_block: blocks rise by q per
 * period, none before block 0, block n - 1 for any past it).  Every round
 * is a permutation of the ranks, so each sends and receives at most once.
 * As a DAG: a send waits for its block, for the rank's previous send and
 * for the receive of the round before (the rank's clock: without it a
 * send whose block came early would take the target's port ahead of the
 * message the target needs first); receives are posted in round order.
 * With both chained, messages between two ranks match in order on one tag.
 *
 * Cost, with b the largest block: T = (n - 1 + q)(alpha + b beta), the
 * rounds in lock step; the DAG runs them self-timed, which the replay's
 * first-come ports can stretch (doc/algorithms.md).  For m bytes,
 * n* = sqrt((q - 1) beta m / alpha) gives T* = (sqrt((q - 1) alpha) +
 * sqrt(beta m))^2, the optimum of any n-block schedule.  Parameter blocks
 * (default 0 = n* on the call's model: MPIR_CVAR_CH4COLL_MACHINE's or the
 * default, between 1 and the byte count).  Memory: no scratch; the build holds
 * n vertex ids (freed before it returns).  Any p, any root.
 *
 * Worked example, p = 10, root 0, n = 2: q = 4, s = 1 2 3 5 10, x = 3,
 * 5 rounds with k = 3, 0, 1, 2, 3.  Rank 7 (recv = -4 -1 -2 1) gets in
 * round 0 (k = 3, from 2) value 1 - 3 < 0: nothing; round 1 (k = 0, from
 * 6) value -4 + 4 - 3 < 0: nothing; round 2 (k = 1, from 5) -1 + 1 = 0:
 * block 0; round 3 (k = 2, from 4) -2 + 1 < 0: nothing; round 4 (k = 3,
 * from 2) 1 + 1 = 2, past the last: block 1.  The root sends value k,
 * so block 0 in round 0 (to 5), then block 1 in rounds 1-4 (to 1, 2, 3
 * and 5); everyone has both after n - 1 + q = 5 rounds, none twice.
 *
 * Allgather (section 7 of the notes): all p broadcasts at once over the
 * same graph, n = 1 each: ceil(lg p) rounds and (p-1)/p of the data, the
 * bounds on both.  Rank r gets root j's block in the round k with
 * s[k] <= (r - j) mod p < s[k+1].  So in round k rank r receives from
 * r - s[k] the blocks of the s[k+1] - s[k] roots r - s[k+1] + 1 .. r - s[k],
 * and sends to r + s[k] those of r - s[k+1] + s[k] + 1 .. r, all of which
 * it has (distances below s[k+1] - s[k] <= s[k] came earlier).  A range of
 * roots that wraps past rank p-1 goes as two messages, straight into and
 * out of the receive buffer: no scratch and no final rotation, unlike
 * Bruck's.  A send waits for the rounds before (its data and the clock).
 *   Cost: sum over k of w_k alpha + (s[k+1] - s[k]) m beta, w_k = 2 when a
 * range of two or more roots can wrap (1 otherwise): about
 * (lg p .. 2 lg p) alpha + (p-1) m beta.
 *   Worked example, p = 10, rank 3 (s = 1 2 3 5 10): round 0 gets root 2
 * from 2 and sends root 3 to 4; round 1 gets root 1 from 1, sends 3 to 5;
 * round 2 gets roots 0 and 9 (two messages: the range wraps) from 0 and
 * sends 2, 3 to 6; round 3 gets roots 4..8 from 8 and sends 9 and 0..3
 * (two messages) to 8.  After q = 4 rounds it has all ten blocks.
 */
#include "algo.h"

#include <math.h>

#include "../topo/circulant.h"
#include "../topo/topo.h"

/* n: the parameter, or n* on the call's model (ch4coll_auto_model;
 * per_byte: beta, or beta + gamma for a reduction); 1 <= n <= count. */
static long circ_nblocks(const ch4coll_args_t *a, const int64_t *params,
                         const ch4coll_circ_t *g, double per_byte)
{
    const ch4coll_model_t *m = ch4coll_auto_model(a);
    double bytes = ch4coll_nbytes(a, a->count);
    long n = (long) params[0];

    if (n <= 0)
        n = lround(sqrt((g->q - 1) * per_byte * bytes / m->alpha));
    if ((size_t) n > a->count)
        n = (long) a->count;
    return n < 1 ? 1 : n;
}

/* Block b of n over count elements: its offset and length. */
static size_t circ_block(size_t count, long n, long b, size_t *len)
{
    *len = ch4coll_seg_len(count, (size_t) n, (size_t) b);
    return ch4coll_seg_off(count, (size_t) n, (size_t) b);
}

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    long n;
    const int *have; /* the root: the vertex each block waits for, or NULL */
    int *got;        /* the receive of each block, -1 before it */
    int last_send;   /* the rank's previous send */
    int last_recv;   /* and receive */
} bc_state_t;

static int bc_send(bc_state_t *st, long b, int to)
{
    const ch4coll_args_t *a = st->a;
    size_t len, off = circ_block(a->count, st->n, b, &len);
    int d[3], nd = 0;

    if (a->rank != a->root && st->got[b] < 0)
        return CH4COLL_ERR_ARG; /* a block not held: topo/circulant.h wrong */
    if (a->rank != a->root)
        d[nd++] = st->got[b];
    else if (st->have && st->have[b] >= 0)
        d[nd++] = st->have[b];
    if (st->last_send >= 0)
        d[nd++] = st->last_send;
    if (st->last_recv >= 0 && (nd == 0 || d[0] != st->last_recv))
        d[nd++] = st->last_recv;
    st->last_send = ch4coll_sched_send(
        st->s, ch4coll_ref(CH4COLL_BUF_RECV, off), len, to, 0, nd, d);
    return CH4COLL_OK;
}

static void bc_recv(bc_state_t *st, long b, int from)
{
    const ch4coll_args_t *a = st->a;
    size_t len, off = circ_block(a->count, st->n, b, &len);
    int d[1];

    st->last_recv =
        ch4coll_sched_recv(st->s, ch4coll_ref(CH4COLL_BUF_RECV, off), len, from,
                           0, ch4coll_dep1(st->last_recv, d), d);
    st->got[b] = st->last_recv;
}

long ch4coll_circ_bcast_nblocks(const ch4coll_args_t *a, const int64_t *params)
{
    ch4coll_circ_t g;

    ch4coll_circ_init(&g, a->size);
    return circ_nblocks(a, params, &g, ch4coll_auto_model(a)->beta);
}

int ch4coll_circ_bcast_run(ch4coll_sched_t *s, const ch4coll_args_t *a, long n,
                           const int *have, int *got)
{
    ch4coll_circ_t g;
    int recv[CH4COLL_CIRC_QMAX], send[CH4COLL_CIRC_QMAX], p = a->size, k;
    int vr = ch4coll_rel(a->rank, a->root, p), rc = CH4COLL_OK;
    long j, b, rounds;
    bc_state_t st = {s, a, n, have, got, -1, -1};

    for (b = 0; b < n; b++)
        got[b] = -1;
    if (a->count == 0 || p == 1)
        return CH4COLL_OK;
    ch4coll_circ_init(&g, p);
    if (vr > 0)
        ch4coll_circ_recv(&g, vr, recv);
    ch4coll_circ_send(&g, vr, send);
    rounds = ch4coll_circ_rounds(&g, n);
    for (j = 0; j < rounds && rc == CH4COLL_OK; j++) {
        k = ch4coll_circ_slot(&g, n, j);
        b = ch4coll_circ_block(&g, n, j, send[k]);
        if (b >= 0) /* what it held when the round began: send first */
            rc = bc_send(&st, b, ch4coll_abs((vr + g.s[k]) % p, a->root, p));
        b = vr > 0 ? ch4coll_circ_block(&g, n, j, recv[k]) : -1;
        if (b >= 0 && rc == CH4COLL_OK)
            bc_recv(&st, b, ch4coll_abs((vr - g.s[k] + p) % p, a->root, p));
    }
    return rc;
}

int ch4coll_bcast_circulant(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    long n;
    int *got, rc;

    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    n = ch4coll_circ_bcast_nblocks(a, params);
    got = ch4coll_malloc((size_t) n * sizeof *got);
    if (!got)
        return CH4COLL_ERR_NOMEM;
    rc = ch4coll_circ_bcast_run(s, a, n, NULL, got);
    ch4coll_free(got);
    return rc;
}

/* (n - 1 + q) rounds of the largest block: its message and, for a
 * reduction (fold), its fold. */
static double circ_cost(const ch4coll_args_t *a, const int64_t *params,
                        const ch4coll_model_t *m, int fold)
{
    const ch4coll_model_t *md = ch4coll_auto_model(a);
    ch4coll_circ_t g;
    size_t big;
    double bytes;
    long n;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    ch4coll_circ_init(&g, a->size);
    n = circ_nblocks(a, params, &g, md->beta + (fold ? md->gamma : 0));
    circ_block(a->count, n, 0, &big); /* block 0 is the largest */
    bytes = ch4coll_nbytes(a, big);
    return (double) ch4coll_circ_rounds(&g, n) *
           (ch4coll_model_msg(m, bytes) + (fold ? bytes * m->gamma : 0));
}

double ch4coll_cost_bcast_circulant(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    return circ_cost(a, params, m, 0);
}

/* ============================================================ allgather */

/* The roots lo, lo+1, ..., lo+len-1 (mod p) as at most two runs of
 * consecutive ranks, cut where the range passes rank p-1. */
static int ag_runs(int lo, int len, int p, int *start, int *nruns)
{
    int n = 0;

    lo = (lo % p + p) % p;
    start[n] = lo;
    nruns[n] = lo + len <= p ? len : p - lo;
    n++;
    if (lo + len > p) {
        start[n] = 0;
        nruns[n] = lo + len - p;
        n++;
    }
    return n;
}

/* Round k on tags 2k and 2k + 1 (the two messages of a wrapped range of
 * roots, sent one after the other: at once, the two to one peer took
 * 1.30 and 1.56 times as long in SimGrid, allgather of 2 MiB at p = 4 and
 * 16 on the fat tree, crosstraffic against the pair's reverse exchange;
 * on a real link the overlap gains nothing).  allgather, reduce_scatter
 * and reduce_scatter_block. */
int ch4coll_ntags_circulant(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return a->size > 1 ? 2 * ch4coll_ceil_log2(a->size) : 1;
}

int ch4coll_allgather_circulant(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    ch4coll_circ_t g;
    int p = a->size, r = a->rank, k, i, n, len, nd = 0, start[2], runs[2];
    int d[2 * CH4COLL_CIRC_QMAX + 2], got[2], ngot, first;
    size_t m = a->count;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_circulant(a, params));
    (void) params;
    if (m == 0)
        return CH4COLL_OK;
    if (!a->inplace)
        d[nd++] = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                     ch4coll_ref(CH4COLL_BUF_RECV, r * m), m, 0,
                                     NULL);
    ch4coll_circ_init(&g, p);
    for (k = 0; k < g.q; k++) {
        len = g.s[k + 1] - g.s[k];
        n = ag_runs(r - len + 1, len, p, start, runs);
        first = -1;
        for (i = 0; i < n; i++) { /* a wrapped range's pieces in turn */
            d[nd] = first;
            first = ch4coll_sched_send(
                s, ch4coll_ref(CH4COLL_BUF_RECV, start[i] * m), runs[i] * m,
                (r + g.s[k]) % p, 2 * k + i, nd + i, d);
        }
        n = ag_runs(r - g.s[k + 1] + 1, len, p, start, runs);
        for (ngot = 0, i = 0; i < n; i++)
            got[ngot++] = ch4coll_sched_recv(
                s, ch4coll_ref(CH4COLL_BUF_RECV, start[i] * m), runs[i] * m,
                (r - g.s[k] + p) % p, 2 * k + i, 0, NULL);
        for (i = 0; i < ngot; i++)
            d[nd++] = got[i];
    }
    return CH4COLL_OK;
}

double ch4coll_cost_allgather_circulant(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    ch4coll_circ_t g;
    double t = 0, len;
    int k;

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    ch4coll_circ_init(&g, a->size);
    for (k = 0; k < g.q; k++) {
        len = g.s[k + 1] - g.s[k];
        t += (len >= 2 ? 2 : 1) * m->alpha +
             len * ch4coll_nbytes(a, a->count) * m->beta;
    }
    return t;
}

/* =============================================================== reduce */

/* The broadcast run backwards (section 8 of the notes): where the
 * broadcast's round j carries block b from u to v, the reduction's round j
 * carries v's partial result of block b back to u, which folds it into its
 * own.  Rounds go from the last to the first, so a rank sends its partial
 * of a block after the partials of every rank it passed that block to
 * have come in, and each contribution is folded exactly once.  The folds
 * join ranks out of rank order: commutative ops only (the registry says
 * so).  Non-roots fold into a copy of their input, the root into its
 * receive buffer; every incoming partial lands in a scratch block of its
 * own (n - 1 + q of them at most), so no receive waits for a fold.
 *   Cost: T = (n - 1 + q)(alpha + b beta + b gamma), n* with beta + gamma
 * in place of beta.  Memory: the input's size at non-roots, plus one
 * block per round. */

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    long n;
    int acc;   /* buffer of the partial results */
    int *last; /* per block: the last vertex that wrote it in acc */
    int last_send;
    int last_recv;
} rd_state_t;

/* Fold the partial of block b that comes from `from` into acc. */
static void rd_recv(rd_state_t *st, long b, int from)
{
    const ch4coll_args_t *a = st->a;
    size_t len, off = circ_block(a->count, st->n, b, &len);
    int tmp = ch4coll_sched_scratch(st->s, len), d[2], nd = 0;

    st->last_recv = ch4coll_sched_recv(st->s, ch4coll_ref(tmp, 0), len, from, 0,
                                       ch4coll_dep1(st->last_recv, d), d);
    d[nd++] = st->last_recv;
    if (st->last[b] >= 0)
        d[nd++] = st->last[b];
    st->last[b] = ch4coll_sched_reduce(
        st->s, ch4coll_ref(tmp, 0), ch4coll_ref(st->acc, off * a->elem.extent),
        len, nd, d);
}

/* Send this rank's partial of block b to `to`. */
static void rd_send(rd_state_t *st, long b, int to)
{
    const ch4coll_args_t *a = st->a;
    size_t len, off = circ_block(a->count, st->n, b, &len);
    int d[3], nd = 0;

    if (st->last[b] >= 0)
        d[nd++] = st->last[b];
    if (st->last_send >= 0)
        d[nd++] = st->last_send;
    if (st->last_recv >= 0 && st->last_recv != st->last[b])
        d[nd++] = st->last_recv;
    st->last_send = ch4coll_sched_send(
        st->s, ch4coll_ref(st->acc, off * a->elem.extent), len, to, 0, nd, d);
}

long ch4coll_circ_reduce_nblocks(const ch4coll_args_t *a, const int64_t *params)
{
    ch4coll_circ_t g;

    ch4coll_circ_init(&g, a->size);
    return circ_nblocks(a, params, &g,
                        ch4coll_auto_model(a)->beta +
                            ch4coll_auto_model(a)->gamma);
}

/* The rounds, the last first, on the partials in buffer acc: block b of
 * this rank's own partial is there once have[b] (-1: at once) is done;
 * done[b] (the root; NULL: not asked) is the vertex after which block b
 * holds the result. */
static int rd_run(ch4coll_sched_t *s, const ch4coll_args_t *a, long n, int acc,
                  const int *have, int *done)
{
    ch4coll_circ_t g;
    int recv[CH4COLL_CIRC_QMAX], send[CH4COLL_CIRC_QMAX], p = a->size, k;
    int vr = ch4coll_rel(a->rank, a->root, p);
    long j, b;
    rd_state_t st = {s, a, n, acc, NULL, -1, -1};

    ch4coll_circ_init(&g, p);
    st.last = ch4coll_malloc((size_t) n * sizeof *st.last);
    if (!st.last)
        return CH4COLL_ERR_NOMEM;
    for (b = 0; b < n; b++)
        st.last[b] = have[b];
    if (vr > 0)
        ch4coll_circ_recv(&g, vr, recv);
    ch4coll_circ_send(&g, vr, send);
    for (j = ch4coll_circ_rounds(&g, n) - 1; j >= 0; j--) {
        k = ch4coll_circ_slot(&g, n, j);
        /* the send first: its clock is the round before, and it never
         * carries the block that comes in this round (in the broadcast a
         * rank does not pass on the block it is receiving) */
        b = vr > 0 ? ch4coll_circ_block(&g, n, j, recv[k]) : -1;
        if (b >= 0)
            rd_send(&st, b, ch4coll_abs((vr - g.s[k] + p) % p, a->root, p));
        b = ch4coll_circ_block(&g, n, j, send[k]);
        if (b >= 0)
            rd_recv(&st, b, ch4coll_abs((vr + g.s[k]) % p, a->root, p));
    }
    for (b = 0; done && b < n; b++)
        done[b] = st.last[b];
    ch4coll_free(st.last);
    return CH4COLL_OK;
}

int ch4coll_circ_reduce_run(ch4coll_sched_t *s, const ch4coll_args_t *a, long n,
                            const int *have, int *done)
{
    long b;

    for (b = 0; b < n; b++)
        done[b] = have[b];
    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    return rd_run(s, a, n, CH4COLL_BUF_RECV, have, done);
}

int ch4coll_reduce_circulant(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int vr = ch4coll_rel(a->rank, a->root, a->size), first = -1, acc, rc, *have;
    long n, b;

    if (a->count == 0)
        return CH4COLL_OK;
    acc = vr > 0 ? ch4coll_sched_scratch(s, a->count) : CH4COLL_BUF_RECV;
    if (vr > 0 || !a->inplace)
        first = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                   ch4coll_ref(acc, 0), a->count, 0, NULL);
    if (a->size == 1)
        return CH4COLL_OK;
    n = ch4coll_circ_reduce_nblocks(a, params);
    have = ch4coll_malloc((size_t) n * sizeof *have);
    if (!have)
        return CH4COLL_ERR_NOMEM;
    for (b = 0; b < n; b++)
        have[b] = first;
    rc = rd_run(s, a, n, acc, have, NULL);
    ch4coll_free(have);
    return rc;
}

double ch4coll_cost_reduce_circulant(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    return circ_cost(a, params, m, 1);
}

/* ======================================================= reduce-scatter */

/* Reduce-scatter in ceil(lg p) rounds: the one-block allgather above run
 * backwards (section 8 of the notes, route B).  For k = q-1 down to 0,
 * rank r sends to r - s[k] its partials of the blocks of roots
 * r - s[k+1] + 1 .. r - s[k] and folds in the partials of roots
 * r - s[k+1] + s[k] + 1 .. r that r + s[k] sends it.  Each rank sends,
 * receives and folds p - 1 blocks, and ends with its own block reduced:
 * (p-1)/p of the vector each way, the bound, in q rounds, for any p, with
 * no pre- or post-step.  Commutative ops only.  The folds go into a copy
 * of the input (scratch); the sends of a round read blocks at distance
 * s[k] or more behind r, which no later fold writes (those are at
 * distance below s[k+1] - s[k] <= s[k]), so only folds are chained.
 *   Cost: sum over the q rounds of (1 or 2) alpha + (s[k+1] - s[k])/p N
 * (beta + gamma) for a vector of N elements.
 *   Worked example, p = 10 (s = 1 2 3 5 10), rank 3: rounds 3, 2, 1, 0
 * send the partials of blocks 4..8 to 8, of 9 and 0 to 0, of 1 to 1 and
 * of 2 to 2, and fold in those of blocks 9, 0..3 from 8, 2, 3 from 6, 3
 * from 5 and 3 from 4: block 3 ends with all ten contributions. */

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    ch4coll_circ_t g;
    size_t *off;   /* element offset of block j, off[p] = the total */
    int acc;       /* buffer of the partials */
    int last_fold; /* the chain of folds (the first: the input's copy) */
} rs_state_t;

/* The element range of the roots lo .. lo+len-1 (mod p) as runs. */
static int rs_runs(const rs_state_t *st, int lo, int len, size_t *at, size_t *n)
{
    int start[2], cnt[2], i, runs = ag_runs(lo, len, st->g.p, start, cnt);

    for (i = 0; i < runs; i++) {
        at[i] = st->off[start[i]];
        n[i] = st->off[start[i] + cnt[i]] - at[i];
    }
    return runs;
}

/* Round k of the reduce-scatter; the ids of its sends go to sent (when
 * not NULL), their number is returned. */
static int rs_round(rs_state_t *st, int k, int *sent)
{
    const ch4coll_args_t *a = st->a;
    int p = st->g.p, r = a->rank, len = st->g.s[k + 1] - st->g.s[k], i, runs;
    int d[2], nd, tmp, nsent = 0, v = -1;
    size_t at[2], n[2];

    runs = rs_runs(st, r - st->g.s[k + 1] + 1, len, at, n);
    for (i = 0; i < runs; i++) /* a wrapped range's pieces in turn */
        if (n[i] > 0) {
            nd = ch4coll_dep1(st->last_fold, d);
            if (v >= 0)
                d[nd++] = v;
            v = ch4coll_sched_send(
                st->s, ch4coll_ref(st->acc, ch4coll_eoff(a, at[i])), n[i],
                (r - st->g.s[k] + p) % p, 2 * k + i, nd, d);
            if (sent)
                sent[nsent++] = v;
        }
    runs = rs_runs(st, r - len + 1, len, at, n);
    for (i = 0; i < runs; i++) {
        if (n[i] == 0)
            continue;
        tmp = ch4coll_sched_scratch(st->s, n[i]);
        nd = 0;
        d[nd++] = ch4coll_sched_recv(st->s, ch4coll_ref(tmp, 0), n[i],
                                     (r + st->g.s[k]) % p, 2 * k + i, 0, NULL);
        if (st->last_fold >= 0)
            d[nd++] = st->last_fold;
        st->last_fold = ch4coll_sched_reduce(
            st->s, ch4coll_ref(tmp, 0),
            ch4coll_ref(st->acc, ch4coll_eoff(a, at[i])), n[i], nd, d);
    }
    return nsent;
}

/* The offsets of the p blocks: the call's (reduce_scatter) or count each
 * (reduce_scatter_block). */
static int rs_begin(rs_state_t *st, ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, j;

    st->s = s;
    st->a = a;
    st->last_fold = -1;
    ch4coll_circ_init(&st->g, p);
    st->off = ch4coll_malloc(((size_t) p + 1) * sizeof *st->off);
    if (!st->off)
        return CH4COLL_ERR_NOMEM;
    st->off[0] = 0;
    for (j = 0; j < p; j++)
        st->off[j + 1] = st->off[j] + ch4coll_blk_count(a, j);
    return CH4COLL_OK;
}

static int rs_reduce_scatter(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    rs_state_t st;
    int k, rc, d[1];
    size_t total, mine;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_circulant(a, NULL));
    rc = rs_begin(&st, s, a);
    if (rc != CH4COLL_OK)
        return rc;
    total = st.off[a->size];
    mine = st.off[a->rank + 1] - st.off[a->rank];
    if (total > 0) {
        st.acc = ch4coll_sched_scratch(s, total);
        st.last_fold = ch4coll_sched_copy(
            s, ch4coll_ref(a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0),
            ch4coll_ref(st.acc, 0), total, 0, NULL);
        for (k = st.g.q - 1; k >= 0; k--)
            rs_round(&st, k, NULL);
        if (mine > 0)
            ch4coll_sched_copy(
                s, ch4coll_ref(st.acc, ch4coll_eoff(a, st.off[a->rank])),
                ch4coll_ref(CH4COLL_BUF_RECV, 0), mine,
                ch4coll_dep1(st.last_fold, d), d);
    }
    ch4coll_free(st.off);
    return CH4COLL_OK;
}

int ch4coll_reduce_scatter_circulant(ch4coll_sched_t *s,
                                     const ch4coll_args_t *a,
                                     const int64_t *params)
{
    (void) params;
    return rs_reduce_scatter(s, a);
}

int ch4coll_reduce_scatter_block_circulant(ch4coll_sched_t *s,
                                           const ch4coll_args_t *a,
                                           const int64_t *params)
{
    (void) params;
    return rs_reduce_scatter(s, a);
}

/* The q rounds: per round a wrapped range of roots as two messages; the
 * vector of `total` elements in p blocks. */
static double rs_phase_cost(const ch4coll_args_t *a, const ch4coll_model_t *m,
                            double total, int fold)
{
    ch4coll_circ_t g;
    double t = 0, len, bytes;
    int k;

    ch4coll_circ_init(&g, a->size);
    for (k = 0; k < g.q; k++) {
        len = g.s[k + 1] - g.s[k];
        bytes = ch4coll_nbytes(a, 1) * total * len / a->size;
        t += (len >= 2 ? 2 : 1) * m->alpha + bytes * m->beta +
             (fold ? bytes * m->gamma : 0);
    }
    return t;
}

static double rs_total(const ch4coll_args_t *a)
{
    double t = 0;
    int j;

    if (!a->counts)
        return (double) a->count * a->size;
    for (j = 0; j < a->size; j++)
        t += (double) a->counts[j];
    return t;
}

double ch4coll_cost_reduce_scatter_circulant(const ch4coll_args_t *a,
                                             const int64_t *params,
                                             const ch4coll_model_t *m)
{
    (void) params;
    return a->size == 1 ? 0.0 : rs_phase_cost(a, m, rs_total(a), 1);
}

double ch4coll_cost_reduce_scatter_block_circulant(const ch4coll_args_t *a,
                                                   const int64_t *params,
                                                   const ch4coll_model_t *m)
{
    (void) params;
    return a->size == 1 ? 0.0 : rs_phase_cost(a, m, rs_total(a), 1);
}

/* ============================================================ allreduce */

/* The reduce-scatter above on the p balanced blocks of the vector, then
 * the one-block allgather of those blocks, both on the same circulant
 * graph and in the receive buffer (route B of section 8 of the notes,
 * arXiv 2410.14234: volume-optimal; route A, reduce then bcast on the same
 * graph, moves 2m per rank instead of 2(p-1)/p m).  Commutative ops only, as
 * the reduce-scatter. Steps: the input is copied into the receive buffer
 * (unless in place), which holds the partials; rounds q-1 .. 0 of the
 * reduce-scatter leave block r complete at rank r; rounds 0 .. q-1 of the
 * allgather then carry the complete blocks, a range of roots at a time (two
 * messages when it wraps), straight into place.  An allgather receive
 * overwrites blocks the reduce-scatter sent from and folded into, so it waits
 * for every reduce-scatter send and for the last fold; an allgather send waits
 * for the last fold and the allgather receives before it. Cost: 2 sum over k of
 * w_k alpha + (s[k+1] - s[k])/p m beta, plus the folds' (p-1)/p m gamma: 2
 * ceil(lg p) .. 4 ceil(lg p) alpha + 2 (p-1)/p m beta + (p-1)/p m gamma, the
 * bandwidth and combining bounds and twice the latency bound.  Memory: one
 * block per incoming message (the reduce-scatter's), none in place of the
 * vector. Worked example, p = 10 (s = 1 2 3 5 10), 23 elements: blocks of 3, 3,
 * 3, 2, 2, 2, 2, 2, 2, 2 elements.  Rank 3 folds as in the reduce-scatter
 * example above (its block 3, elements 9..10, ends with all ten
 * contributions), then receives block 2 from 2, block 1 from 1, blocks 0
 * and 9 from 0 (two messages) and blocks 4..8 from 8, and sends its
 * block 3 to 4 and to 5, blocks 2, 3 to 6 and blocks 9, 0..3 to 8 (two
 * messages): 4 + 4 rounds. */

/* allreduce circulant's tags: the reduce-scatter's 2q, then 2q more */
int ch4coll_ntags_allreduce_circulant(const ch4coll_args_t *a,
                                      const int64_t *params)
{
    (void) params;
    return a->size > 1 ? 4 * ch4coll_ceil_log2(a->size) : 1;
}

/* The allgather's round k on the balanced blocks of the receive buffer
 * (st->acc); sends wait for d[0 .. *nd-1], receives for w[0 .. nw-1];
 * the round's receives join d. */
static void ar_gather_round(rs_state_t *st, int k, int *d, int *nd,
                            const int *w, int nw)
{
    const ch4coll_args_t *a = st->a;
    int p = st->g.p, r = a->rank, len = st->g.s[k + 1] - st->g.s[k], i, runs,
        tag;
    int got[2], ngot = 0, first = -1;
    size_t at[2], n[2];

    tag = 2 * st->g.q + 2 * k;
    runs = rs_runs(st, r - len + 1, len, at, n);
    for (i = 0; i < runs; i++) /* a wrapped range's pieces in turn */
        if (n[i] > 0) {
            d[*nd] = first;
            first = ch4coll_sched_send(
                st->s, ch4coll_ref(st->acc, ch4coll_eoff(a, at[i])), n[i],
                (r + st->g.s[k]) % p, tag + i, *nd + (first >= 0), d);
        }
    runs = rs_runs(st, r - st->g.s[k + 1] + 1, len, at, n);
    for (i = 0; i < runs; i++)
        if (n[i] > 0)
            got[ngot++] = ch4coll_sched_recv(
                st->s, ch4coll_ref(st->acc, ch4coll_eoff(a, at[i])), n[i],
                (r - st->g.s[k] + p) % p, tag + i, nw, w);
    for (i = 0; i < ngot; i++)
        d[(*nd)++] = got[i];
}

int ch4coll_allreduce_circulant(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    rs_state_t st;
    int p = a->size, j, k, nd = 0, nw;
    int *w, *d;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_allreduce_circulant(a, params));
    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    st.s = s;
    st.a = a;
    st.acc = CH4COLL_BUF_RECV;
    ch4coll_circ_init(&st.g, p);
    st.off = ch4coll_malloc(((size_t) p + 1) * sizeof *st.off);
    /* waits: 2 sends per reduce-scatter round and the last fold; the
     * allgather's sends: the last fold and 2 receives per round */
    w = ch4coll_malloc((4 * (size_t) st.g.q + 3) * sizeof *w);
    if (!st.off || !w) {
        ch4coll_free(st.off);
        ch4coll_free(w);
        return CH4COLL_ERR_NOMEM;
    }
    d = w + 2 * st.g.q + 1;
    for (j = 0; j <= p; j++)
        st.off[j] = ch4coll_seg_off(a->count, (size_t) p, (size_t) j);
    st.last_fold = a->inplace
                       ? -1
                       : ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                            ch4coll_ref(CH4COLL_BUF_RECV, 0),
                                            a->count, 0, NULL);
    nw = 0;
    for (k = st.g.q - 1; k >= 0; k--)
        nw += rs_round(&st, k, w + nw);
    if (st.last_fold >= 0)
        w[nw++] = st.last_fold;
    if (st.last_fold >= 0)
        d[nd++] = st.last_fold;
    for (k = 0; k < st.g.q; k++)
        ar_gather_round(&st, k, d, &nd, w, nw);
    ch4coll_free(st.off);
    ch4coll_free(w);
    return CH4COLL_OK;
}

double ch4coll_cost_allreduce_circulant(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    (void) params;
    if (a->size == 1 || a->count == 0)
        return 0.0;
    return rs_phase_cost(a, m, (double) a->count, 1) +
           rs_phase_cost(a, m, (double) a->count, 0);
}
