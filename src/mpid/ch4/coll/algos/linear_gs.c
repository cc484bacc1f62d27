/*
 * linear_gs.c - linear (flat tree) gather and scatter.
 *
 * Source: NEC MPI/SX section 4.1: the binomial gather/scatter trees "as
 * data size m increases [...] gradually become flatter, in the limit
 * turning into a linear algorithm" - the root talks to every rank directly,
 * so no block is forwarded and no rank but the root needs scratch or more
 * than one message.
 *
 * gather   the root posts one receive per rank, straight into place at
 *          i m in the receive buffer, and copies its own block (unless
 *          MPI_IN_PLACE); every other rank sends its block once.
 * scatter  the root posts one send per rank from i m of the send buffer and
 *          copies its own block to the receive buffer (unless MPI_IN_PLACE:
 *          then its block stays in the send buffer); every other rank
 *          receives once.
 * T = (p-1) alpha + (p-1) m beta at the root (blocks of m bytes), 1 step
 * elsewhere.  No scratch.
 *
 * Restrictions: none; any p, any count (count 0 is a no-op), any root.
 * No parameters.
 *
 * Worked example, gather on p = 5, root 3, m = 4: ranks 0, 1, 2, 4 send 4
 * bytes each to 3, which receives them at offsets 0, 4, 8, 16 in any order
 * of arrival and copies its own block to offset 12.
 */
#include "algo.h"

int ch4coll_gather_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    int p = a->size, i;
    size_t n = a->count;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (a->rank != a->root) {
        ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), n, a->root, 0,
                           0, NULL);
        return CH4COLL_OK;
    }
    for (i = 0; i < p; i++) {
        ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_RECV, (size_t) i * n);
        if (i != a->root)
            ch4coll_sched_recv(s, at, n, i, 0, 0, NULL);
        else if (!a->inplace)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), at, n, 0,
                               NULL);
    }
    return CH4COLL_OK;
}

int ch4coll_scatter_linear(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, i;
    size_t n = a->count;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (a->rank != a->root) {
        ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), n, a->root, 0,
                           0, NULL);
        return CH4COLL_OK;
    }
    for (i = 0; i < p; i++) {
        ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_SEND, (size_t) i * n);
        if (i != a->root)
            ch4coll_sched_send(s, at, n, i, 0, 0, NULL);
        else if (!a->inplace)
            ch4coll_sched_copy(s, at, ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0,
                               NULL);
    }
    return CH4COLL_OK;
}
