/*
 * scan_linear.c - scan and exscan along the rank chain; any op.
 *
 * Source: none of the seeds treats scan; the linear chain is the textbook
 * one (each rank waits for the prefix of the ranks below), costed in the
 * model of Rabenseifner & Adamidis section 3.1.
 *
 * scan          rank 0 sends its input to rank 1; rank r > 0 receives the
 *               prefix d0 op .. op d(r-1) from r-1, forms prefix op d_r in
 *               its receive buffer and passes it to r+1.
 *               T = (p-1)(alpha_uni + n beta_uni + n gamma), exactly on
 *               the model: the chain is sequential, latency grows with p.
 *               Scratch: n at ranks > 0 (none for a commutative op, not
 *               in place: the prefix is received into place and the
 *               input folded onto it).
 * exscan        rank r > 0 receives d0 op .. op d(r-1) straight into its
 *               receive buffer (the result) and, below p-1, passes on
 *               result op d_r, formed in scratch from a copy of its input.
 *               Rank 0's receive buffer is left as it is (undefined by MPI).
 *               T = (p-1)(alpha + n beta) + (p-2) n gamma (rank p-1 only
 *               receives).  Scratch: n at ranks 1..p-2.
 * Restrictions: none (any op, any p, any count, MPI_IN_PLACE).  No
 * parameters.  One tag.
 *
 * Worked example, scan on p = 5: 0 -> 1 -> 2 -> 3 -> 4, rank 3 holds
 * (d0 op d1 op d2) op d3.
 */
#include "algo.h"

static ch4coll_ref_t whole(int buf)
{
    return ch4coll_ref(buf, 0);
}

int ch4coll_scan_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params)
{
    int p = a->size, rank = a->rank, got, fold = -1, d[2];
    int in = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, t;
    size_t n = a->count;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (rank == 0) {
        if (!a->inplace)
            ch4coll_sched_copy(s, whole(in), whole(CH4COLL_BUF_RECV), n, 0,
                               NULL);
        if (p > 1)
            ch4coll_sched_send(s, whole(in), n, 1, 0, 0, NULL);
        return CH4COLL_OK;
    }
    if (a->commutative && !a->inplace) { /* mine op prefix, in place */
        got = ch4coll_sched_recv(s, whole(CH4COLL_BUF_RECV), n, rank - 1, 0, 0,
                                 NULL);
        fold = ch4coll_sched_reduce(s, whole(in), whole(CH4COLL_BUF_RECV), n, 1,
                                    &got);
    } else { /* prefix op mine, mine in the receive buffer */
        t = ch4coll_sched_scratch(s, n);
        d[0] = ch4coll_sched_recv(s, whole(t), n, rank - 1, 0, 0, NULL);
        d[1] = a->inplace
                   ? -1
                   : ch4coll_sched_copy(s, whole(in), whole(CH4COLL_BUF_RECV),
                                        n, 0, NULL);
        fold =
            ch4coll_sched_reduce(s, whole(t), whole(CH4COLL_BUF_RECV), n, 2, d);
    }
    if (rank < p - 1)
        ch4coll_sched_send(s, whole(CH4COLL_BUF_RECV), n, rank + 1, 0, 1,
                           &fold);
    return CH4COLL_OK;
}

int ch4coll_exscan_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    int p = a->size, rank = a->rank, t, d[2];
    int in = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    size_t n = a->count;

    (void) params;
    if (n == 0 || p == 1)
        return CH4COLL_OK;
    if (rank == 0) {
        ch4coll_sched_send(s, whole(in), n, 1, 0, 0, NULL);
        return CH4COLL_OK;
    }
    if (rank == p - 1) { /* my input is not needed */
        ch4coll_sched_recv(s, whole(CH4COLL_BUF_RECV), n, rank - 1, 0, 0, NULL);
        return CH4COLL_OK;
    }
    /* t = mine, then result op t; in place the copy frees the receive
     * buffer for the result */
    t = ch4coll_sched_scratch(s, n);
    d[1] = ch4coll_sched_copy(s, whole(in), whole(t), n, 0, NULL);
    d[0] = ch4coll_sched_recv(s, whole(CH4COLL_BUF_RECV), n, rank - 1, 0,
                              a->inplace ? 1 : 0, d + 1);
    d[0] = ch4coll_sched_reduce(s, whole(CH4COLL_BUF_RECV), whole(t), n, 2, d);
    ch4coll_sched_send(s, whole(t), n, rank + 1, 0, 1, d);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_scan_linear(const ch4coll_args_t *a, const int64_t *params,
                                const ch4coll_model_t *m)
{
    double n = ch4coll_nbytes(a, a->count);

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return (a->size - 1) * (m->alpha + n * (m->beta + m->gamma));
}

double ch4coll_cost_exscan_linear(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    double n = ch4coll_nbytes(a, a->count);

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return (a->size - 1) * (m->alpha + n * m->beta) +
           (a->size - 2) * n * m->gamma;
}
