/*
 * circulant_allgatherv.c - allgatherv as p pipelined broadcasts on one
 * circulant graph: every contribution cut into n blocks, all p broadcasts
 * of n blocks in the same n - 1 + ceil(lg p) rounds, one packed message
 * per rank and round.
 *
 * Source: Träff 2025 (circulant schedules), ACM TOPC, arXiv 2407.18004,
 * its all-broadcast of n blocks per root; the irregular problem and its
 * six distributions from Träff et al., pipelined irregular allgather
 * (IJHPCA 2010), which pipelined_ring.c implements on a ring; the
 * verified restatement in ../shared/notes/circulant-schedules.md,
 * sections 6, 7 and 9.
 *
 * Steps.  q = ceil(lg p), skips s[0..q] and the per-rank schedules of
 * topo/circulant.h.  Root j's contribution (c_j bytes at displs[j]) is cut
 * into n balanced blocks (some empty when c_j < n).  The p broadcasts run
 * together with one round counter: in round i (k = slot of i) rank r sends
 * one message to t = r + s[k] holding, for every root j != t in rank
 * order, the block that r's send schedule relative to j names (send of
 * (r - j) mod p, slot k), and receives one message from r - s[k] holding,
 * for every root j != r in rank order, the block its receive schedule
 * relative to j names.  Each broadcast's sends meet its receives (same
 * block, same round: test_circulant.c), so both sides list the same
 * blocks, in root order.  Empty blocks are left out on both sides, and a
 * round with nothing has no message.  How a message goes must not depend
 * on displacements, which are each rank's own (MPI: only the counts
 * agree): one block goes straight from and into the receive buffer;
 * blocks of 32 KiB and more each go as a message of their own, straight,
 * chained in root order (no copies for large contributions, and equal
 * ones: the allgather's schedule); anything else is packed into a
 * scratch buffer (copies) and unpacked after its receive.  Two pack and
 * two unpack buffers alternate by round: a pack waits for the send two
 * rounds back, a receive for the unpacks two rounds back.  As in the
 * broadcast (circulant.c), a send waits for its blocks, the rank's
 * previous send and the receive of the round before, and receives are
 * posted in round order, so one tag suffices.
 *
 * Block count.  The parameter, or the candidate n that is fastest in lock
 * step on the call's model (MPIR_CVAR_CH4COLL_MACHINE's or the default): n = 1
 * when the contributions are about equal (ceil(lg p) rounds, and the per-rank
 * volume M - c_r already: section 9 of the notes), up to about the
 * broadcast's n* = sqrt((q-1) beta V / alpha) when one contribution
 * dominates (V = c_max) or many large ones do (V = M - c_min, the volume
 * a rank receives: every round carries a block of each of them); in
 * between (Träff's linear and geometric distributions) a few blocks
 * balance the rounds.  At most 2^22 / p blocks (the build keeps a vertex
 * id per block and root).
 *
 * Cost: the rounds in lock step, each as long as the largest message a
 * rank receives in it (alpha + beta bytes): O(p) per rank and round, so
 * where every rank would cost more than 2^26 adds (2^28 for the cost
 * function; p = 1024, or p = 255 with long pipelines) the largest message
 * is taken over a sample of ranks: half of them those with the smallest
 * contributions (they receive the most), half evenly spaced.  The sample
 * can only miss a longer round, so the cost is then a lower bound of the
 * lock step.  The sampled ranking fixed p = 255, geometric, base size
 * 4 MiB (test_distrib.c): a closed estimate, R alpha + beta max(M - c_min, R
 * b_max), chose n = 2 (220,507 us in lock step) where n = 64 takes 109,994.
 * Memory: two pack and two unpack buffers of the largest packed message
 * (rounds whose blocks are all 32 KiB or more pack nothing); the build
 * holds 2 p q schedule values and p n
 * vertex ids.  Restrictions: none (any p, counts, displacements, in
 * place).
 *
 * Worked example, p = 5 (s = 1 2 3 5, q = 3), contributions 4, 0, 0, 2
 * and 1 bytes, n = 2: root j's blocks j.0 and j.1 hold 2 + 2, -, -, 1 + 1
 * and 1 + 0 bytes (4.1 is empty and never sent).  R = 4 rounds, x = 2,
 * so the rounds use skips 3, 1, 2, 3.  Messages (sender -> target:
 * blocks):
 *   round 0: 0->3 0.0; 3->1 3.0; 4->2 4.0
 *   round 1: 0->1 0.1; 1->2 3.0; 2->3 4.0; 3->4 0.0 3.1
 *   round 2: 0->2 0.1; 2->4 3.0; 3->0 3.1 4.0; 4->1 0.0
 *   round 3: 0->3 0.1; 1->4 0.1; 2->0 3.0; 3->1 3.1 4.0; 4->2 0.0 3.1
 * Rank 2, with nothing of its own, gets 4.0, 3.0, 0.1 and then 0.0 with
 * 3.1 in one packed message: all 7 bytes after R rounds, each block once.
 * Root 0's 4 bytes travel as a two-block pipeline, while the small
 * contributions ride along in the same messages.
 */
#include "algo.h"

#include <math.h>

#include "../topo/circulant.h"
#include "../topo/topo.h"

#define AGV_HELD (-2)  /* a block held without a vertex to wait for */
#define AGV_BIG  32768 /* blocks this large go as messages of their own */

/* The sum, smallest and largest contribution. */
static void agv_sizes(const ch4coll_args_t *a, double *sum, double *lo,
                      double *hi)
{
    int j;

    *sum = 0;
    *lo = *hi = ch4coll_nbytes(a, ch4coll_blk_count(a, 0));
    for (j = 0; j < a->size; j++) {
        double c = ch4coll_nbytes(a, ch4coll_blk_count(a, j));
        *sum += c;
        *lo = c < *lo ? c : *lo;
        *hi = c > *hi ? c : *hi;
    }
}

/* Most blocks per contribution: the build keeps p n vertex ids. */
static long agv_nmax(const ch4coll_args_t *a)
{
    size_t hi = 0;
    long cap = (1L << 22) / a->size;
    int j;

    for (j = 0; j < a->size; j++)
        hi = ch4coll_blk_count(a, j) > hi ? ch4coll_blk_count(a, j) : hi;
    if ((size_t) cap > hi)
        cap = (long) hi;
    return cap < 1 ? 1 : cap;
}

/* Round i of the lock step: alpha + beta times the largest message any
 * of the k ranks rs receives (block values depend on the distance
 * v = r - j only, so a rank is O(p) adds per round). */
static double agv_round(const ch4coll_args_t *a, const ch4coll_circ_t *g,
                        long n, long i, const int *recv, const int *rs, int k,
                        const ch4coll_model_t *m)
{
    int p = a->size, q = g->q, slot = ch4coll_circ_slot(g, n, i), x, r, v;
    double most = 0, bytes;
    long b;

    for (x = 0; x < k; x++) {
        r = rs[x];
        for (bytes = 0, v = 1; v < p; v++) {
            b = ch4coll_circ_block(g, n, i, recv[v * q + slot]);
            if (b >= 0)
                bytes += (double) ch4coll_seg_len(
                    ch4coll_blk_count(a, (r - v + p) % p), (size_t) n,
                    (size_t) b);
        }
        most = bytes > most ? bytes : most;
    }
    return most > 0 ? ch4coll_model_msg(m, ch4coll_nbytes(a, 1) * most) : 0;
}

/* The n-block schedule in lock step, each round as long as its largest
 * message at the k ranks rs: exact on the model when rs is every rank,
 * but for rounds whose blocks of 32 KiB and more go as messages of their
 * own (an alpha each).  recv: the receive schedules of relative ranks
 * 1..p-1. */
static double agv_lockstep(const ch4coll_args_t *a, const ch4coll_circ_t *g,
                           long n, const int *recv, const int *rs, int k,
                           const ch4coll_model_t *m)
{
    long i, rounds = ch4coll_circ_rounds(g, n);
    double t = 0;

    for (i = 0; i < rounds; i++)
        t += agv_round(a, g, n, i, recv, rs, k, m);
    return t;
}

/* The receive schedules of relative ranks 1..p-1 (v q + k), or NULL. */
static int *agv_recv_tables(const ch4coll_circ_t *g)
{
    int *recv = ch4coll_malloc((size_t) g->p * (size_t) g->q * sizeof *recv);
    int v;

    for (v = 1; recv && v < g->p; v++)
        ch4coll_circ_recv(g, v, recv + v * g->q);
    return recv;
}

#define AGV_WORK       67108864.0 /* adds a lock-step evaluation may spend */
#define AGV_MIN_SAMPLE 16         /* ranks sampled at least */

/* The ranks the lock step is taken over when rounds rounds (summed over
 * the candidates) at every rank would cost more than work adds: the
 * ranks with the smallest contributions (they receive the most), half of
 * them, and ranks evenly spaced (the rounds where large contributions
 * meet).  Fills rs (p ints); returns how many.  The same on every rank. */
static int agv_sample(const ch4coll_args_t *a, double rounds, double work,
                      int *rs)
{
    int p = a->size, k, x, r, best;
    double fit = work / (rounds * (double) p);

    k = fit >= p ? p : fit < AGV_MIN_SAMPLE ? AGV_MIN_SAMPLE : (int) fit;
    k = k < p ? k : p;
    for (r = 0; r < p; r++)
        rs[r] = r;
    if (k == p)
        return k;
    for (x = 0; x < k / 2; x++) { /* selection: rs[x..] smallest first */
        for (best = x, r = x + 1; r < p; r++)
            if (ch4coll_blk_count(a, rs[r]) < ch4coll_blk_count(a, rs[best]))
                best = r;
        r = rs[x], rs[x] = rs[best], rs[best] = r;
    }
    for (; x < k; x++)
        rs[x] = (int) ((long long) (x - k / 2) * p / (k - k / 2));
    return k;
}

/* n: the parameter, or the best of the candidates on the call's model:
 * the broadcast's n* = sqrt((q-1) beta c / alpha) of the largest
 * contribution and of the volume every rank receives (about M - c_min:
 * a round carries a block of every contribution), where the largest
 * contribution's pipeline meets that volume, and the powers of two up to
 * twice the largest of those, each rounded both ways.  They are ranked in
 * lock step (agv_lockstep), over every rank while that costs at most
 * AGV_WORK adds in all (p up to a few hundred), else over a sample
 * (agv_sample).  Every rank computes the same n. */
static long agv_nblocks(const ch4coll_args_t *a, const int64_t *params,
                        const ch4coll_circ_t *g)
{
    const ch4coll_model_t *m = ch4coll_auto_model(a);
    double sum, lo, hi, cand[64], t, best_t = -1, top, rounds = 0;
    long nmax = agv_nmax(a), n, best = 1;
    int i, k, nc = 0, *recv, *rs;

    if (params[0] > 0)
        return params[0] < nmax ? (long) params[0] : nmax;
    agv_sizes(a, &sum, &lo, &hi);
    cand[nc++] = sqrt((g->q - 1) * m->beta * hi / m->alpha);
    cand[nc++] = sqrt((g->q - 1) * m->beta * (sum - lo) / m->alpha);
    if (sum - lo > hi)
        cand[nc++] = (g->q - 1) * hi / (sum - lo - hi);
    for (top = 0, i = 0; i < nc; i++)
        top = cand[i] > top ? cand[i] : top;
    for (i = nc, nc *= 2; i < nc; i++)
        cand[i] = cand[i - nc / 2] + 1;
    for (n = 1; n <= nmax && n <= 2 * top && nc < 64; n *= 2)
        cand[nc++] = (double) n;
    for (i = 0; i < nc; i++) {
        cand[i] = cand[i] < 1               ? 1
                  : cand[i] > (double) nmax ? (double) nmax
                                            : floor(cand[i]);
        rounds += (double) ch4coll_circ_rounds(g, (long) cand[i]);
    }
    recv = agv_recv_tables(g);
    rs = ch4coll_malloc((size_t) a->size * sizeof *rs);
    if (!recv || !rs) { /* out of memory: the broadcast's n* */
        ch4coll_free(recv);
        ch4coll_free(rs);
        return (long) cand[0];
    }
    k = agv_sample(a, rounds, AGV_WORK, rs);
    for (i = 0; i < nc; i++) {
        n = (long) cand[i];
        t = agv_lockstep(a, g, n, recv, rs, k, m);
        if (best_t < 0 || t < best_t || (t == best_t && n < best)) {
            best_t = t;
            best = n;
        }
    }
    ch4coll_free(recv);
    ch4coll_free(rs);
    return best;
}

typedef struct {
    size_t off, len; /* in the receive buffer */
    int root;
    long block;
} agv_piece_t;

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    ch4coll_circ_t g;
    long n;
    int *send;  /* send[v q + k]: send schedule of relative rank v */
    int *recv;  /* recv[v q + k], v > 0 */
    int *ready; /* ready[j n + b]: block b of root j is in place after it */
    int *deps;  /* p + 3 vertex ids */
    agv_piece_t *pieces; /* p of them */
    int sbuf[2], rbuf[2];
    int sent[2];  /* the send that read sbuf[i % 2] last */
    int freed[2]; /* the unpacks of rbuf[i % 2], joined */
    int last_send, last_recv;
} agv_t;

/* How round i's message goes, the same on both sides (it depends on the
 * counts and the schedule only: displacements are each rank's own):
 * one block straight from and into the receive buffer; blocks that are
 * all large one message each, straight, in root order; else packed. */
enum { AGV_ONE, AGV_EACH, AGV_PACK };

static int agv_shape(const agv_t *st, int np)
{
    int x;

    if (np == 1)
        return AGV_ONE;
    for (x = 0; x < np; x++)
        if (ch4coll_nbytes(st->a, st->pieces[x].len) < AGV_BIG)
            return AGV_PACK;
    return AGV_EACH;
}

/* The blocks of round i in the message to (send) or from r - s[k], in
 * root order: their number; *bytes their total. */
static int agv_pieces(agv_t *st, long i, int sending, size_t *bytes)
{
    const ch4coll_args_t *a = st->a;
    int p = a->size, r = a->rank, q = st->g.q, j, v, np = 0;
    int k = ch4coll_circ_slot(&st->g, st->n, i);
    int skip = sending ? (r + st->g.s[k]) % p : r;
    const int *table = sending ? st->send : st->recv;
    long b;

    *bytes = 0;
    for (j = 0; j < p; j++) {
        if (j == skip)
            continue;
        v = (r - j + p) % p;
        b = ch4coll_circ_block(&st->g, st->n, i, table[v * q + k]);
        if (b < 0)
            continue;
        size_t c = ch4coll_blk_count(a, j), len = ch4coll_seg_len(c, st->n, b);
        if (len == 0)
            continue;
        st->pieces[np++] = (agv_piece_t){
            ch4coll_blk_displ(a, j) + ch4coll_seg_off(c, st->n, b), len, j, b};
        *bytes += len;
    }
    return np;
}

/* Add the clock (the previous send, the receive of the round before). */
static int agv_clock(const agv_t *st, int *d, int nd)
{
    if (st->last_send >= 0)
        d[nd++] = st->last_send;
    if (st->last_recv >= 0)
        d[nd++] = st->last_recv;
    return nd;
}

/* Whether piece x's block is held, with the vertex to wait for (if
 * any) added to d. */
static int agv_held(const agv_t *st, int x, int *d, int *nd)
{
    const agv_piece_t *pc = &st->pieces[x];
    int have = st->ready[pc->root * st->n + pc->block];

    if (have >= 0)
        d[(*nd)++] = have;
    return have != -1;
}

/* Round i's blocks as messages of their own, straight from the receive
 * buffer, chained in root order. */
static int agv_send_each(agv_t *st, int np, int to)
{
    int x, nd;

    for (x = 0; x < np; x++) {
        nd = 0;
        if (!agv_held(st, x, st->deps, &nd))
            return CH4COLL_ERR_ARG; /* a block not held */
        nd = agv_clock(st, st->deps, nd);
        st->last_send = ch4coll_sched_send(
            st->s, ch4coll_ref(CH4COLL_BUF_RECV, st->pieces[x].off),
            st->pieces[x].len, to, 0, nd, st->deps);
    }
    return CH4COLL_OK;
}

/* Round i's message packed into sbuf[i % 2]. */
static int agv_send_packed(agv_t *st, int np, int to, size_t bytes, int slot)
{
    int x, nd = 0, w[2], nw;
    size_t at = 0;

    for (x = 0; x < np; x++) {
        nw = 0;
        if (!agv_held(st, x, w, &nw))
            return CH4COLL_ERR_ARG; /* a block not held */
        if (st->sent[slot] >= 0)
            w[nw++] = st->sent[slot];
        st->deps[nd++] = ch4coll_sched_copy(
            st->s, ch4coll_ref(CH4COLL_BUF_RECV, st->pieces[x].off),
            ch4coll_ref(st->sbuf[slot], at), st->pieces[x].len, nw, w);
        at += st->pieces[x].len;
    }
    nd = agv_clock(st, st->deps, nd);
    st->last_send = st->sent[slot] = ch4coll_sched_send(
        st->s, ch4coll_ref(st->sbuf[slot], 0), bytes, to, 0, nd, st->deps);
    return CH4COLL_OK;
}

static int agv_send(agv_t *st, long i)
{
    int k = ch4coll_circ_slot(&st->g, st->n, i);
    int to = (st->a->rank + st->g.s[k]) % st->a->size;
    size_t bytes;
    int np = agv_pieces(st, i, 1, &bytes);

    if (np == 0)
        return CH4COLL_OK;
    if (agv_shape(st, np) != AGV_PACK)
        return agv_send_each(st, np, to);
    return agv_send_packed(st, np, to, bytes, (int) (i % 2));
}

static void agv_recv(agv_t *st, long i)
{
    int p = st->a->size, k = ch4coll_circ_slot(&st->g, st->n, i), x, nd;
    int from = (st->a->rank - st->g.s[k] + p) % p, slot = (int) (i % 2);
    size_t bytes, at = 0;
    int np = agv_pieces(st, i, 0, &bytes), d[2];

    if (np == 0)
        return;
    if (agv_shape(st, np) != AGV_PACK) { /* straight into place */
        for (x = 0; x < np; x++) {
            const agv_piece_t *pc = &st->pieces[x];
            st->last_recv = ch4coll_sched_recv(
                st->s, ch4coll_ref(CH4COLL_BUF_RECV, pc->off), pc->len, from, 0,
                ch4coll_dep1(st->last_recv, d), d);
            st->ready[pc->root * st->n + pc->block] = st->last_recv;
        }
        return;
    }
    nd = ch4coll_dep1(st->last_recv, d);
    if (st->freed[slot] >= 0)
        d[nd++] = st->freed[slot];
    st->last_recv = ch4coll_sched_recv(st->s, ch4coll_ref(st->rbuf[slot], 0),
                                       bytes, from, 0, nd, d);
    for (x = 0; x < np; x++) {
        const agv_piece_t *pc = &st->pieces[x];
        st->deps[x] = st->ready[pc->root * st->n + pc->block] =
            ch4coll_sched_copy(st->s, ch4coll_ref(st->rbuf[slot], at),
                               ch4coll_ref(CH4COLL_BUF_RECV, pc->off), pc->len,
                               1, &st->last_recv);
        at += pc->len;
    }
    st->freed[slot] = ch4coll_sched_sink(st->s, np, st->deps);
}

/* The schedules of every relative rank, the vertex ids, the scratch of
 * the largest packed messages, and this rank's own blocks in place. */
static int agv_begin(agv_t *st)
{
    const ch4coll_args_t *a = st->a;
    int p = a->size, q = st->g.q, v, r = a->rank;
    long b, i, rounds = ch4coll_circ_rounds(&st->g, st->n);
    size_t np = (size_t) p, most[2] = {0, 0}, bytes;
    int own = -1;

    st->send = ch4coll_malloc(2 * np * (size_t) q * sizeof(int));
    st->ready = ch4coll_malloc(np * (size_t) st->n * sizeof(int));
    st->deps = ch4coll_malloc((np + 3) * sizeof(int));
    st->pieces = ch4coll_malloc(np * sizeof *st->pieces);
    if (!st->send || !st->ready || !st->deps || !st->pieces)
        return CH4COLL_ERR_NOMEM;
    st->recv = st->send + np * (size_t) q;
    for (v = 0; v < p; v++) {
        ch4coll_circ_send(&st->g, v, st->send + v * q);
        if (v > 0)
            ch4coll_circ_recv(&st->g, v, st->recv + v * q);
    }
    for (i = 0; i < rounds; i++)
        for (v = 0; v < 2; v++) {
            int pieces = agv_pieces(st, i, v, &bytes);
            if (agv_shape(st, pieces) == AGV_PACK && bytes > most[v])
                most[v] = bytes;
        }
    for (v = 0; v < 2; v++) {
        st->sbuf[v] = most[1] ? ch4coll_sched_scratch(st->s, most[1]) : -1;
        st->rbuf[v] = most[0] ? ch4coll_sched_scratch(st->s, most[0]) : -1;
        st->sent[v] = st->freed[v] = -1;
    }
    for (b = 0; b < p * st->n; b++)
        st->ready[b] = -1;
    if (!a->inplace && ch4coll_blk_count(a, r) > 0)
        own = ch4coll_sched_copy(
            st->s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
            ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_blk_displ(a, r)),
            ch4coll_blk_count(a, r), 0, NULL);
    for (b = 0; b < st->n; b++)
        st->ready[r * st->n + b] = own >= 0 ? own : AGV_HELD;
    return CH4COLL_OK;
}

int ch4coll_allgatherv_circulant(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    agv_t st = {.s = s, .a = a, .last_send = -1, .last_recv = -1};
    double sum, lo, hi;
    long i, rounds;
    int rc;

    ch4coll_sched_set_ntags(s, 1);
    if (a->size == 1) {
        if (!a->inplace && ch4coll_blk_count(a, 0) > 0)
            ch4coll_sched_copy(
                s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_blk_displ(a, 0)),
                ch4coll_blk_count(a, 0), 0, NULL);
        return CH4COLL_OK;
    }
    agv_sizes(a, &sum, &lo, &hi);
    if (hi == 0)
        return CH4COLL_OK; /* nothing anywhere */
    ch4coll_circ_init(&st.g, a->size);
    st.n = agv_nblocks(a, params, &st.g);
    rc = agv_begin(&st);
    rounds = ch4coll_circ_rounds(&st.g, st.n);
    for (i = 0; i < rounds && rc == CH4COLL_OK; i++) {
        rc = agv_send(&st, i);
        if (rc == CH4COLL_OK)
            agv_recv(&st, i);
    }
    ch4coll_free(st.send);
    ch4coll_free(st.ready);
    ch4coll_free(st.deps);
    ch4coll_free(st.pieces);
    return rc;
}

/* The lock step of the chosen n, over every rank while that costs at
 * most 4 AGV_WORK adds, else over a sample (agv_sample). */
double ch4coll_cost_allgatherv_circulant(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    ch4coll_circ_t g;
    double sum, lo, hi, t = HUGE_VAL;
    long n;
    int *recv, *rs, k;

    if (a->size == 1)
        return 0.0;
    agv_sizes(a, &sum, &lo, &hi);
    if (hi == 0)
        return 0.0;
    ch4coll_circ_init(&g, a->size);
    n = agv_nblocks(a, params, &g);
    recv = agv_recv_tables(&g);
    rs = ch4coll_malloc((size_t) a->size * sizeof *rs);
    if (recv && rs) {
        k = agv_sample(a, (double) ch4coll_circ_rounds(&g, n), 4 * AGV_WORK,
                       rs);
        t = agv_lockstep(a, &g, n, recv, rs, k, m);
    }
    ch4coll_free(recv);
    ch4coll_free(rs);
    return t;
}
