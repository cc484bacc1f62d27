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
 *                 T = (p-1) (alpha + n/p beta + n/p gamma) for n elements in
 *                 all.  Scratch: 2 blocks (+1 for non-commutative ops, +1 in
 *                 place).
 * alltoall(v)     step k: send my block for rank + k, receive the block of
 *                 rank - k straight into place.  In place, the receive
 *                 buffer is first copied to scratch, which is then the send
 *                 buffer.  T = (p-1)(alpha + m beta) for blocks of m bytes.
 *
 * Zero-size blocks are skipped on both sides (both know the size).
 *
 * Worked example, reduce_scatter on p = 5 at rank 2: receives from 1, 0,
 * then 4, 3; low = d0 op (d1 op d2), high = d3 op d4, result low op high.
 */
#include "algo.h"

#include "../util/util.h"
#include "hazard.h"

static size_t blk_count(const ch4coll_args_t *a, int i)
{
    return a->counts ? a->counts[i] : a->count;
}

static size_t blk_off(const ch4coll_args_t *a, int i)
{
    return ch4coll_eoff(a, a->displs ? a->displs[i] : (size_t) i * a->count);
}

/* Shared body of reduce_scatter and reduce_scatter_block. */
static int reduce_scatter_pairwise(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    int p = a->size, rank = a->rank, k;
    size_t n = blk_count(a, rank);
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
        if (blk_count(a, dst) > 0)
            ch4coll_hz_send(s, in, blk_off(a, dst), blk_count(a, dst), dst, 0);
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
    int staged = -1, d[1], nd;
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
    nd = ch4coll_dep1(staged, d);
    for (k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p;
        if (rc[src] > 0)
            ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, rd[src]),
                               rc[src], src, 0, nd, d);
        if (sc[dst] > 0)
            ch4coll_sched_send(s, ch4coll_ref(src_buf, sd[dst]), sc[dst], dst,
                               0, nd, d);
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
