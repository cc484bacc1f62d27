/*
 * pairwise.c - pairwise exchange: reduce_scatter(_block) and alltoall(v).
 *
 * Source: the ring reduce_scatter of Rabenseifner & Adamidis section 3.7
 * ("in step i (i = 1..p-1) each process sends the input vector chunk needed
 * by rank + i to that process and receives from rank - i the data needed to
 * reduce its own chunk"), and the same exchange pattern for all-to-all
 * (NEC MPI/SX section 3.5 starts from it).
 *
 * reduce_scatter  step k = 1..p-1: send my input block for rank + k, receive
 *                 rank - k's contribution to my block and fold it in.
 *                 Contributions arrive in the order rank-1, ..., 0, p-1, ...,
 *                 rank+1, so two running results keep rank order for any op:
 *                 low = d(k) op low for the ranks below me (starting from my
 *                 own block) and high = d(k) op high for those above; the
 *                 result is low op high.  A commutative op uses one.
 *                 Scratch: 2 blocks (+1 for non-commutative ops, +1 in
 *                 place).
 * alltoall(v)     step k: send my block for rank + k, receive the block of
 *                 rank - k straight into place.  In place, the receive
 *                 buffer is first copied to scratch, which is then the send
 *                 buffer.
 *
 * Zero-size blocks are skipped on both sides (both know the size).
 *
 * Cost.  alltoall(v) runs one exchange per step, as MPI_Sendrecv would:
 * step k starts when step k-1's send and receive are done, so T =
 * (p-1)(alpha + m beta) for blocks of m bytes (alltoallv: the sum over
 * steps of the larger of the two messages; irregular rows also wait for
 * the partners' earlier steps, which one rank's counts do not show).
 * reduce_scatter posts every send at once (Rabenseifner 3.7 with f_alpha =
 * f_beta = 1 would be (p-1)(alpha + m beta + m gamma)); the model's
 * first-come ports book them in the order the ranks list them: rank 0
 * takes its destinations' receive ports first, and rank r's send to d
 * waits for rank r-1's send to d:
 *   reduce_scatter  block d goes to rank d from everyone: delta_r =
 *                   t(r) + max_d t(d), and rank 0 folds its contributions
 *                   from rank p-1 (the last to start) down to rank 1, so
 *                   T = max(sum_r delta_r + sum_{d<p-1} t(d) + m gamma,
 *                           arrival from rank p-1 + (p-1) m gamma),
 *                   regular: max(3 (p-1) t + m gamma, (2p-1) t +
 *                   (p-1) m gamma).  A non-commutative op adds the final
 *                   low op high, m gamma.
 * p = 2 is one exchange.
 *
 * Worked example, reduce_scatter on p = 5 at rank 2: receives from 1, 0,
 * then 4, 3; low = d0 op (d1 op d2), high = d3 op d4, result low op high.
 * On the model (blocks of t = alpha + m beta, all sent at once): rank 0
 * sends to 1, 2, 3, 4 in [0, 4t]; rank 1 to 2 waits for 0 -> 2 and runs
 * [2t, 6t]; rank 4 runs [8t, 12t]; rank 0's first fold needs 4 -> 0, the
 * first send of rank 4, at 9t: T = max(12 t + m gamma, 9 t + 4 m gamma).
 */
#include "algo.h"

#include "../util/util.h"
#include "hazard.h"

static size_t blk_off(const ch4coll_args_t *a, int i)
{
    return ch4coll_eoff(a, ch4coll_blk_displ(a, i));
}

/* Shared body of reduce_scatter and reduce_scatter_block. */
static int reduce_scatter_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, rank = a->rank, k;
    size_t n = ch4coll_blk_count(a, rank);
    ch4coll_hz_t snd = ch4coll_hz_user(CH4COLL_BUF_SEND);
    ch4coll_hz_t rcv = ch4coll_hz_user(CH4COLL_BUF_RECV);
    ch4coll_hz_t low = ch4coll_hz_scratch(n), high = ch4coll_hz_scratch(n);
    ch4coll_hz_t tmp[2] = {ch4coll_hz_scratch(n), ch4coll_hz_scratch(n)};
    ch4coll_hz_t *in = a->inplace ? &rcv : &snd, *acc, *res;
    int have_high = 0;

    /* Where the running results live: the receive buffer if it is not
     * also the input, else scratch. */
    acc = (a->commutative && !a->inplace) ? &rcv : &low;
    if (!a->commutative && !a->inplace)
        high = rcv; /* high is written first by a receive */
    if (n > 0)
        ch4coll_hz_copy(s, in, blk_off(a, rank), acc, 0, n);
    for (k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        ch4coll_hz_t *t = &tmp[k % 2];
        if (ch4coll_blk_count(a, dst) > 0)
            ch4coll_hz_send(s, in, blk_off(a, dst), ch4coll_blk_count(a, dst),
                            dst, 0);
        if (n == 0)
            continue;
        if (a->commutative || src < rank) {
            ch4coll_hz_recv(s, t, 0, n, src, 0);
            ch4coll_hz_reduce(s, t, 0, acc, 0, n);
        } else if (!have_high) {
            ch4coll_hz_recv(s, &high, 0, n, src, 0);
            have_high = 1;
        } else {
            ch4coll_hz_recv(s, t, 0, n, src, 0);
            ch4coll_hz_reduce(s, t, 0, &high, 0, n);
        }
    }
    if (n == 0)
        return CH4COLL_OK;
    res = acc;
    if (have_high) {
        ch4coll_hz_reduce(s, acc, 0, &high, 0, n);
        res = &high;
    }
    if (res->buf != CH4COLL_BUF_RECV)
        ch4coll_hz_copy(s, res, 0, &rcv, 0, n);
    return CH4COLL_OK;
}

int ch4coll_reduce_scatter_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) params;
    return reduce_scatter_pairwise(s, a);
}

int ch4coll_reduce_scatter_block_pairwise(ch4coll_sched_t *s,
                                          const ch4coll_args_t *a,
                                          const int64_t *params)
{
    (void) params;
    return reduce_scatter_pairwise(s, a);
}

/* Shared body of alltoall and alltoallv (bytes). */
static int alltoall_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const size_t *sc, const size_t *sd,
                             const size_t *rc, const size_t *rd)
{
    int p = a->size, rank = a->rank, k, src_buf = CH4COLL_BUF_SEND;
    int staged = -1, d[3], nd, prev[2] = {-1, -1};
    size_t span = 0;

    if (a->inplace) {
        for (k = 0; k < p; k++)
            if (rc[k] > 0 && rd[k] + rc[k] > span)
                span = rd[k] + rc[k];
        if (span > 0) {
            src_buf = ch4coll_sched_scratch(s, span);
            staged = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                                        ch4coll_ref(src_buf, 0), span, 0, NULL);
        }
    } else if (rc[rank] > 0) {
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, sd[rank]),
                           ch4coll_ref(CH4COLL_BUF_RECV, rd[rank]), rc[rank], 0,
                           NULL);
    }
    /* one exchange per step, as MPI_Sendrecv would do it: step k starts
     * when step k-1's send and receive are done */
    for (k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p, sv = -1, rv = -1;
        nd = 0;
        if (staged >= 0)
            d[nd++] = staged;
        if (prev[0] >= 0)
            d[nd++] = prev[0];
        if (prev[1] >= 0)
            d[nd++] = prev[1];
        if (rc[src] > 0)
            rv = ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, rd[src]),
                                    rc[src], src, 0, nd, d);
        if (sc[dst] > 0)
            sv = ch4coll_sched_send(s, ch4coll_ref(src_buf, sd[dst]), sc[dst],
                                    dst, 0, nd, d);
        if (rv >= 0 || sv >= 0) {
            prev[0] = rv;
            prev[1] = sv;
        }
    }
    return CH4COLL_OK;
}

int ch4coll_alltoall_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    /* regular blocks, described as v-arrays for the shared body */
    int p = a->size, i, rc;
    size_t *v = NULL;

    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    v = ch4coll_malloc(2 * (size_t) p * sizeof *v);
    if (!v)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i < p; i++) {
        v[i] = a->count;
        v[p + i] = (size_t) i * a->count;
    }
    rc = alltoall_pairwise(s, a, v, v + p, v, v + p);
    ch4coll_free(v);
    return rc;
}

int ch4coll_alltoallv_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    const size_t *sc = a->inplace ? a->counts : a->scounts;
    const size_t *sd = a->inplace ? a->displs : a->sdispls;

    (void) params;
    return alltoall_pairwise(s, a, sc, sd, a->counts, a->displs);
}

/* ------------------------------------------------------------------- cost */

/* All sends posted at once, booked by the model's ports in rank order:
 * see the note at the top. */

/* Blocks sized by destination (reduce_scatter: block d goes to rank d from
 * everyone): delta_r = t(r) + max_d t(d), and rank p-1 sends every block
 * but its own.  Rank 0 folds its contributions in receive order, from
 * rank p-1 (the last to start) down to rank 1: the fold chain starts at
 * the arrival from rank p-1, p-1 folds of its block later it is done
 * (regular blocks: T = max(3 (p-1) t + g, (2p-1) t + (p-1) g)). */
static double posted_by_destination(const ch4coll_args_t *a,
                                    const ch4coll_model_t *m)
{
    int p = a->size, d, k;
    double top = 0, into = 0, last = 0, t, start, pre, chain = 0;
    double g0 = ch4coll_nbytes(a, ch4coll_blk_count(a, 0)) * m->gamma;
    double gl = 0; /* the fold after the very last message */

    for (d = 0; d < p; d++) {
        t = ch4coll_model_block(m, ch4coll_nbytes(a, ch4coll_blk_count(a, d)));
        if (t > top)
            top = t;
        if (d > 0)
            into += t;
        if (d < p - 1)
            last += t;
        if (ch4coll_nbytes(a, ch4coll_blk_count(a, d)) * m->gamma > gl)
            gl = ch4coll_nbytes(a, ch4coll_blk_count(a, d)) * m->gamma;
    }
    if (p == 2)
        return top + gl;
    /* rank r starts at S_r = sum_{i <= r} (t(i) + top); rank p-k's send to
     * rank 0 is its k-th: it ends at S_{p-k} + t(p-k+1) + .. + t(p-1) + t(0) */
    if (ch4coll_blk_count(a, 0) > 0) {
        start = into + (p - 1) * top; /* S_{p-1} */
        pre =
            ch4coll_model_block(m, ch4coll_nbytes(a, ch4coll_blk_count(a, 0)));
        for (k = 1; k < p; k++) {
            double arr = start + pre,
                   tk = ch4coll_model_block(
                       m, ch4coll_nbytes(a, ch4coll_blk_count(a, p - k)));
            chain = (arr > chain ? arr : chain) + g0;
            start -= tk + top; /* S_{p-k-1} */
            pre += tk;
        }
    }
    t = into + (p - 1) * top + last + gl;
    return t > chain ? t : chain;
}

static double reduce_scatter_cost(const ch4coll_args_t *a,
                                  const ch4coll_model_t *m)
{
    double fold = ch4coll_nbytes(a, ch4coll_blk_count(a, a->rank)) * m->gamma;

    if (a->size == 1)
        return 0.0;
    /* a non-commutative op also combines the low and high halves */
    return posted_by_destination(a, m) + (a->commutative ? 0.0 : fold);
}

double ch4coll_cost_reduce_scatter_pairwise(const ch4coll_args_t *a,
                                            const int64_t *params,
                                            const ch4coll_model_t *m)
{
    (void) params;
    return reduce_scatter_cost(a, m);
}

double ch4coll_cost_reduce_scatter_block_pairwise(const ch4coll_args_t *a,
                                                  const int64_t *params,
                                                  const ch4coll_model_t *m)
{
    (void) params;
    return reduce_scatter_cost(a, m);
}

/* One exchange per step: step k costs its larger message (the caller's
 * row; regular blocks: T = (p-1)(alpha + m beta)). */
static double stepped(const ch4coll_args_t *a, const size_t *sc,
                      const size_t *rc, const ch4coll_model_t *m)
{
    int p = a->size, k;
    double sum = 0;

    for (k = 1; k < p; k++) {
        double ts = ch4coll_model_block(
            m, (double) (sc ? sc[(a->rank + k) % p] : a->count));
        double tr = ch4coll_model_block(
            m, (double) (rc ? rc[(a->rank - k + p) % p] : a->count));
        sum += ts > tr ? ts : tr;
    }
    return sum;
}

double ch4coll_cost_alltoall_pairwise(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return stepped(a, NULL, NULL, m);
}

double ch4coll_cost_alltoallv_pairwise(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    (void) params;
    if (a->size == 1 || !a->counts)
        return 0.0;
    return stepped(a, a->inplace ? a->counts : a->scounts, a->counts, m);
}
