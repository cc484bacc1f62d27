/*
 * alltoall_bruck.c - alltoall by Bruck's index algorithm: ceil(lg p)
 * rounds, each moving about half the blocks.
 *
 * Source: NEC MPI/SX section 3.5 ("the algorithm of Bruck et al. reduces
 * the number of communication rounds to ceil(lg p) and thus reduces latency
 * by combining messages, however at the expense of redundant transmission
 * of a factor of ceil(lg p) more data"; beyond a size limit a linear
 * algorithm that controls which pairs talk: alltoall_scattered.c,
 * pairwise.c).  Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient
 * algorithms for all-to-all communications in multiport message-passing
 * systems" (doc/references.md).
 *
 * bruck (slot arithmetic in topo/index.h)
 *   1. rotate: T[j] = my block for rank + j (two copies into scratch T).
 *   2. step k (d = 2^k < p): pack the blocks T[j] whose bit k of j is set
 *      (runs of d consecutive slots) into S, send S to rank + d, receive
 *      as many blocks from rank - d into R, unpack R into the same slots.
 *      A block in slot j moves by the binary digits of j, so it ends at
 *      rank (source + j): afterwards T[j] holds the block from rank - j.
 *   3. RECV[rank - j] = T[j]: p copies.
 *   T = sum over steps d of (alpha + slots(d) m beta), slots(d) the
 *   slots with bit d (at most ceil(p/2)): about ceil(lg p) alpha +
 *   ceil(lg p) ceil(p/2) m beta; copies are free on the model.  Every step
 *   waits for the previous unpack, so the steps do not overlap.
 *   Scratch p m + 2 ceil(p/2) m.
 *
 * Restrictions: none; any p, any count, MPI_IN_PLACE (the receive buffer
 * holds the send data).  No parameters.
 *
 * Worked example, bruck on p = 5 at rank 0 (T slots hold "source->dest"):
 *   rotate: T = [0>0 0>1 0>2 0>3 0>4]
 *   d = 1: send slots 1,3 (0>1 0>3) to 1; receive 4>0 4>2 from 4
 *          T = [0>0 4>0 0>2 4>2 0>4]
 *   d = 2: send slots 2,3 (0>2 4>2) to 2; receive 3>0 2>0 from 3
 *          T = [0>0 4>0 3>0 2>0 0>4]
 *   d = 4: send slot 4 (0>4) to 4; receive 1>0 from 1
 *          T = [0>0 4>0 3>0 2>0 1>0] and RECV[0 - j] = T[j].
 */
#include "algo.h"

#include "../topo/index.h"

static int join2(ch4coll_sched_t *s, int x, int y)
{
    int d[2] = {x, y};

    if (x < 0 || y < 0)
        return x >= 0 ? x : y;
    return ch4coll_sched_sink(s, 2, d);
}

/* Copy the runs of slots with bit d between T and the packed buffer pk
 * (pack: T -> pk, else pk -> T); every copy waits for deps.  v has room
 * for p / 2 + 1 vertex ids.  Returns a vertex that completes when all
 * copies did. */
static int bruck_runs(ch4coll_sched_t *s, int t, int pk, int d, int p, size_t n,
                      int pack, const int *deps, int *v)
{
    int i, lo, hi, nv = 0;
    size_t pos = 0;

    for (i = 0; i < ch4coll_bruck_a2a_nruns(d, p); i++) {
        size_t len;
        ch4coll_ref_t tr, pr = ch4coll_ref(pk, pos);
        ch4coll_bruck_a2a_run(d, p, i, &lo, &hi);
        len = (size_t) (hi - lo) * n;
        tr = ch4coll_ref(t, (size_t) lo * n);
        v[nv++] =
            ch4coll_sched_copy(s, pack ? tr : pr, pack ? pr : tr, len, 2, deps);
        pos += len;
    }
    return nv == 1 ? v[0] : ch4coll_sched_sink(s, nv, v);
}

/* Step 1: T[j] = my block for rank + j.  Returns the join of the copies. */
static int bruck_rotate(ch4coll_sched_t *s, const ch4coll_args_t *a, int t)
{
    int p = a->size, rank = a->rank, c0, c1 = -1;
    int src = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    int wrap = ch4coll_bruck_wrap(rank, p);
    size_t n = a->count;

    c0 = ch4coll_sched_copy(s, ch4coll_ref(src, (size_t) rank * n),
                            ch4coll_ref(t, 0), (size_t) wrap * n, 0, NULL);
    if (wrap < p)
        c1 = ch4coll_sched_copy(s, ch4coll_ref(src, 0),
                                ch4coll_ref(t, (size_t) wrap * n),
                                (size_t) (p - wrap) * n, 0, NULL);
    return join2(s, c0, c1);
}

/* Step 2: one packed exchange per bit of the slot index.  Returns the
 * vertex after which T is final. */
static int bruck_exchange(ch4coll_sched_t *s, const ch4coll_args_t *a, int t,
                          int tdone, int *v)
{
    int p = a->size, rank = a->rank, d, maxc = 0, sb, rb;
    int prev_send = -1, prev_unpack = -1, dep[2];
    size_t n = a->count;

    for (d = 1; d < p; d *= 2)
        if (ch4coll_bruck_a2a_nslots(d, p) > maxc)
            maxc = ch4coll_bruck_a2a_nslots(d, p);
    sb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    rb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    for (d = 1; d < p; d *= 2) {
        size_t bytes = (size_t) ch4coll_bruck_a2a_nslots(d, p) * n;
        int pk, rv;
        dep[0] = tdone;     /* slots written by the previous step */
        dep[1] = prev_send; /* S still being sent */
        pk = bruck_runs(s, t, sb, d, p, n, 1, dep, v);
        prev_send = ch4coll_sched_send(s, ch4coll_ref(sb, 0), bytes,
                                       (rank + d) % p, 0, 1, &pk);
        rv =
            ch4coll_sched_recv(s, ch4coll_ref(rb, 0), bytes, (rank - d + p) % p,
                               0, ch4coll_dep1(prev_unpack, dep), dep);
        dep[0] = rv;
        dep[1] = pk; /* the pack read the slots the unpack overwrites */
        prev_unpack = tdone = bruck_runs(s, t, rb, d, p, n, 0, dep, v);
    }
    return tdone;
}

/* Step 3: RECV[rank - j] = T[j]; the own block goes straight across. */
static void bruck_unrotate(ch4coll_sched_t *s, const ch4coll_args_t *a, int t,
                           int tdone)
{
    int p = a->size, rank = a->rank, j, d[1];
    size_t n = a->count;

    if (!a->inplace)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) rank * n),
                           ch4coll_ref(CH4COLL_BUF_RECV, (size_t) rank * n), n,
                           0, NULL);
    for (j = 1; j < p; j++)
        ch4coll_sched_copy(
            s, ch4coll_ref(t, (size_t) j * n),
            ch4coll_ref(CH4COLL_BUF_RECV,
                        (size_t) ch4coll_bruck_a2a_origin(rank, j, p) * n),
            n, ch4coll_dep1(tdone, d), d);
}

int ch4coll_alltoall_bruck(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, t, tdone, *v;

    (void) params;
    if (a->count == 0 || (p == 1 && a->inplace))
        return CH4COLL_OK;
    if (p == 1) {
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count, 0, NULL);
        return CH4COLL_OK;
    }
    /* builder-time memory belongs to the builder */
    v = ch4coll_malloc(((size_t) p / 2 + 1) * sizeof *v);
    if (!v)
        return CH4COLL_ERR_NOMEM;
    t = ch4coll_sched_scratch(s, (size_t) p * a->count);
    tdone = bruck_rotate(s, a, t);
    tdone = bruck_exchange(s, a, t, tdone, v);
    bruck_unrotate(s, a, t, tdone);
    ch4coll_free(v);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_alltoall_bruck(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    int p = a->size, d;
    double t = 0;

    (void) params;
    if (a->count == 0)
        return 0.0;
    for (d = 1; d < p; d *= 2)
        t += m->alpha +
             (double) ch4coll_bruck_a2a_nslots(d, p) * a->count * m->beta;
    return t;
}
