/*
 * recursive_doubling.c - allreduce, scan and exscan by recursive distance
 * doubling.
 *
 * Source: Rabenseifner & Adamidis section 3.4 (allreduce by recursive
 * doubling) with the non-power-of-two step of section 3.5 ("the number of
 * processes p is reduced to p' = 2^floor(lg p); r = p - p' processes are
 * removed": of the first 2r ranks each even rank gives its vector to the
 * odd neighbour and receives the result at the end).
 *
 * allreduce  pre-step for r pairs; lg p' exchange steps among the p' ranks
 *            (partner = new rank XOR 2^k), both sides combining the two
 *            vectors in rank order; post-step back to the removed ranks.
 *            T = lg p' (alpha + n beta + n gamma)
 *                + (r > 0) 2 (alpha_uni + n beta_uni) + (r > 0) n gamma,
 *            exactly on the model (alpha_uni = alpha, beta_uni = beta).
 *            Scratch: at most 2 n.
 *            Any p, any op: the partner's group is wholly below or above us,
 *            so "lower op upper" is known at every step.
 * scan       lg p steps with partner rank XOR 2^k (skipped when >= p): send
 *            the partial result of my group, receive the partner's; a lower
 *            partner's partial is folded into both my result and my
 *            partial, a higher one's only into my partial.
 *            At most ceil(lg p) (alpha + n beta + 2 n gamma).  Scratch 2 n.
 * exscan     as scan, the result starting from the first lower partial.
 *
 * Cost of scan/exscan on the model, t = alpha + n beta, g = n gamma.  The
 * partners' partials cross in each step; a rank folds the partner's partial
 * into its own (after its own send has gone: the send reads it) and a
 * lower partner's also into its result; the next receive goes into the
 * buffer those folds read.  High ranks have many lower partners and are
 * CPU bound once g > t: for p = 2^k the last rank waits for the first two
 * messages, then folds twice per step: T = 2 t + 2 k g (scan), 2 t +
 * (2k - 1) g (exscan: its first lower partial is copied, not folded);
 * p = 96: 3 t + 13 g and 3 t + 12 g.  The cost function runs this step by
 * step for every rank, with first-come ports (O(p lg p) time, O(p)
 * memory), in step order: for tiny n and p not a power of two a rank whose
 * first partners are missing sends a later partial early and it takes a
 * receive port first on the replay, one more t (p = 5: 4 t, not 3 t).
 *
 * Worked example, allreduce p = 6 (p' = 4, r = 2): ranks 0 and 2 send to 1
 * and 3; new ranks 0..3 are old ranks 1, 3, 4, 5; step 1 pairs 1-3 and 4-5,
 * step 2 pairs 1-4 and 3-5; then 1 -> 0 and 3 -> 2.  Every combination is
 * "lower op upper": 1 holds (0 op 1) and combines with 3's (2 op 3) as
 * (0 op 1) op (2 op 3).
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../util/util.h"
#include "hazard.h"

/* The running result of an allreduce and the buffers it may move between.
 * snd is read-only; rcv and the two scratch vectors are writable. */
typedef struct {
    ch4coll_hz_t snd, rcv, t0, t1;
    ch4coll_hz_t *acc;
} rd_state_t;

static ch4coll_hz_t *free_buf(rd_state_t *st, int prefer_recv)
{
    if (prefer_recv && st->acc != &st->rcv)
        return &st->rcv;
    return st->acc == &st->t0 ? &st->t1 : &st->t0;
}

/* Receive the partner's vector and fold it into acc in rank order. */
static void rd_combine(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       rd_state_t *st, int peer)
{
    size_t n = a->count;
    int incoming_lower = peer < a->rank;
    int acc_writable = st->acc != &st->snd;
    ch4coll_hz_t *b;

    if (incoming_lower && !acc_writable && !a->commutative) {
        /* need acc = in op acc with acc writable: move it to rcv first */
        ch4coll_hz_copy(s, st->acc, 0, &st->rcv, 0, n);
        st->acc = &st->rcv;
        acc_writable = 1;
    }
    if (acc_writable && (incoming_lower || a->commutative)) {
        /* acc = b op acc, in place */
        b = free_buf(st, 0);
        ch4coll_hz_recv(s, b, 0, n, peer, 0);
        ch4coll_hz_reduce(s, b, 0, st->acc, 0, n);
    } else {
        /* acc = acc op b, the result moving into b */
        b = free_buf(st, 1);
        ch4coll_hz_recv(s, b, 0, n, peer, 0);
        ch4coll_hz_reduce(s, st->acc, 0, b, 0, n);
        st->acc = b;
    }
}

int ch4coll_allreduce_recursive_doubling(ch4coll_sched_t *s,
                                         const ch4coll_args_t *a,
                                         const int64_t *params)
{
    int p = a->size, rank = a->rank;
    int p2 = ch4coll_pow2_floor(p), r = p - p2;
    int newrank = ch4coll_rd_newrank(rank, r), mask;
    size_t n = a->count;
    rd_state_t st;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    st.snd = ch4coll_hz_user(CH4COLL_BUF_SEND);
    st.rcv = ch4coll_hz_user(CH4COLL_BUF_RECV);
    st.t0 = ch4coll_hz_scratch(n);
    st.t1 = ch4coll_hz_scratch(n);
    st.acc = a->inplace ? &st.rcv : &st.snd;

    if (newrank < 0) { /* removed: hand over, get the result back */
        ch4coll_hz_send(s, st.acc, 0, n, rank + 1, 0);
        ch4coll_hz_recv(s, &st.rcv, 0, n, rank + 1, 0);
        return CH4COLL_OK;
    }
    if (rank < 2 * r)
        rd_combine(s, a, &st, rank - 1);
    for (mask = 1; mask < p2; mask <<= 1) {
        int peer = ch4coll_rd_oldrank(newrank ^ mask, r);
        ch4coll_hz_send(s, st.acc, 0, n, peer, 0);
        rd_combine(s, a, &st, peer);
    }
    if (st.acc != &st.rcv)
        ch4coll_hz_copy(s, st.acc, 0, &st.rcv, 0, n);
    if (rank < 2 * r)
        ch4coll_hz_send(s, &st.rcv, 0, n, rank - 1, 0);
    return CH4COLL_OK;
}

/* Shared body of scan and exscan. */
static int scan_rd(ch4coll_sched_t *s, const ch4coll_args_t *a, int exclusive)
{
    int p = a->size, rank = a->rank, mask, have_result = !exclusive;
    size_t n = a->count;
    ch4coll_hz_t snd = ch4coll_hz_user(CH4COLL_BUF_SEND);
    ch4coll_hz_t rcv = ch4coll_hz_user(CH4COLL_BUF_RECV);
    ch4coll_hz_t b0 = ch4coll_hz_scratch(n), b1 = ch4coll_hz_scratch(n);
    ch4coll_hz_t *in = a->inplace ? &rcv : &snd;
    ch4coll_hz_t *partial = &b0, *tmp = &b1, *t;

    if (n == 0 || p == 1) {
        if (n > 0 && !exclusive && !a->inplace)
            ch4coll_hz_copy(s, in, 0, &rcv, 0, n);
        return CH4COLL_OK;
    }
    ch4coll_hz_copy(s, in, 0, partial, 0, n);
    if (!exclusive && !a->inplace)
        ch4coll_hz_copy(s, in, 0, &rcv, 0, n);
    for (mask = 1; mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        ch4coll_hz_send(s, partial, 0, n, peer, 0);
        ch4coll_hz_recv(s, tmp, 0, n, peer, 0);
        if (peer < rank) {
            ch4coll_hz_reduce(s, tmp, 0, partial, 0, n);
            if (have_result)
                ch4coll_hz_reduce(s, tmp, 0, &rcv, 0, n);
            else
                ch4coll_hz_copy(s, tmp, 0, &rcv, 0, n);
            have_result = 1;
        } else if (a->commutative) {
            ch4coll_hz_reduce(s, tmp, 0, partial, 0, n);
        } else {
            ch4coll_hz_reduce(s, partial, 0, tmp, 0, n);
            t = partial;
            partial = tmp;
            tmp = t;
        }
    }
    return CH4COLL_OK;
}

int ch4coll_scan_recursive_doubling(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) params;
    return scan_rd(s, a, 0);
}

int ch4coll_exscan_recursive_doubling(ch4coll_sched_t *s,
                                      const ch4coll_args_t *a,
                                      const int64_t *params)
{
    (void) params;
    return scan_rd(s, a, 1);
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_allreduce_recursive_doubling(const ch4coll_args_t *a,
                                                 const int64_t *params,
                                                 const ch4coll_model_t *m)
{
    int p = a->size, p2 = ch4coll_pow2_floor(p);
    double n = ch4coll_nbytes(a, a->count);
    double t = m->alpha + n * m->beta, g = n * m->gamma;

    (void) params;
    if (a->count == 0 || p == 1)
        return 0.0;
    return ch4coll_ceil_log2(p2) * (t + g) + (p > p2 ? 2 * t + g : 0.0);
}

/* Per rank: partial ready, CPU free, send port free, receive port free. */
typedef struct {
    double part, cpu, sport, rport;
} scan_rank_t;

/* Message from u to v ready at `ready`: its end on the two ports. */
static double scan_msg(scan_rank_t *u, scan_rank_t *v, double ready, double t)
{
    double st = ready;

    if (u->sport > st)
        st = u->sport;
    if (v->rport > st)
        st = v->rport;
    u->sport = v->rport = st + t;
    return st + t;
}

/* Rank x's folds after the exchange of a step: its own send of the partial
 * ended at sent, the partner's partial arrived at got.  The receive went
 * into the buffer the last folds read (so it waits for the CPU); the
 * partial is folded once x's own send has gone.  A lower partner is folded
 * into the result too: after the partial, or before it in the first step
 * of scan, where both messages of the pair end together and the replay
 * starts the result's fold first. */
static void scan_fold(scan_rank_t *x, double sent, double got, int lower,
                      int have, int first, double g)
{
    double ready = x->cpu > got ? x->cpu : got;

    if (lower && have && first && sent >= got) {
        x->part = (ready + g > sent ? ready + g : sent) + g;
        x->cpu = x->part;
    } else {
        x->part = (ready > sent ? ready : sent) + g;
        x->cpu = x->part + (lower && have ? g : 0.0);
    }
}

/* The schedule evaluated on the model rank by rank, step by step (O(p lg
 * p)): partials travel at t = alpha + n beta through first-come ports,
 * every fold costs n gamma, and the ranks with many lower partners are
 * CPU bound. */
static double scan_cost(const ch4coll_args_t *a, const ch4coll_model_t *m,
                        int exclusive)
{
    int p = a->size, x, mask;
    double n = ch4coll_nbytes(a, a->count);
    double t = m->alpha + n * m->beta, g = n * m->gamma, end = 0;
    scan_rank_t *st;

    if (a->count == 0 || p == 1)
        return 0.0;
    st = ch4coll_calloc((size_t) p, sizeof *st);
    if (!st) /* every step a full exchange and two folds */
        return ch4coll_ceil_log2(p) * (t + 2 * g);
    for (mask = 1; mask < p; mask <<= 1)
        for (x = 0; x < p; x++) {
            int y = x ^ mask;
            double up, down;
            if (y >= p || y < x)
                continue;
            /* the pair (x, y): x is the lower one */
            up = scan_msg(&st[x], &st[y], st[x].part, t);
            down = scan_msg(&st[y], &st[x], st[y].part, t);
            scan_fold(&st[x], up, down, 0, 1, mask == 1, g);
            scan_fold(&st[y], down, up, 1, !exclusive || (y & (mask - 1)) != 0,
                      mask == 1, g);
        }
    for (x = 0; x < p; x++)
        if (st[x].cpu > end)
            end = st[x].cpu;
    ch4coll_free(st);
    return end;
}

double ch4coll_cost_scan_recursive_doubling(const ch4coll_args_t *a,
                                            const int64_t *params,
                                            const ch4coll_model_t *m)
{
    (void) params;
    return scan_cost(a, m, 0);
}

double ch4coll_cost_exscan_recursive_doubling(const ch4coll_args_t *a,
                                              const int64_t *params,
                                              const ch4coll_model_t *m)
{
    (void) params;
    return scan_cost(a, m, 1);
}
