/*
 * alltoall_bruck.c - alltoall by Bruck's index algorithm: ceil(log_k p)
 * rounds of k - 1 packed exchanges (radix k, 2 by default: about half the
 * blocks per round).
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
 *   2. step d (d = k^i < p, radix k = 2 by default): for each digit v =
 *      1 .. k-1 with v d < p, pack the blocks T[j] whose base-k digit of j
 *      at d is v (runs of d consecutive slots) into S, send S to rank + v d,
 *      receive as many blocks from rank - v d into R, unpack R into the same
 *      slots; the k - 1 exchanges of a step go at once.  A block in slot j
 *      moves by the digits of j, so it ends at rank (source + j):
 *      afterwards T[j] holds the block from rank - j.
 *   3. RECV[rank - j] = T[j]: p copies.
 *   T = sum over steps d and digits v of (alpha + slots(d, v) m beta),
 *   slots(d, v) the slots with digit v at d; radix 2: at most ceil(p/2)
 *   each, about ceil(lg p) alpha + ceil(lg p) ceil(p/2) m beta.  Copies
 *   are free on the model.  Every step waits for the previous unpack, so
 *   the steps do not overlap.  Scratch p m + 2 m max over steps of the
 *   slots it moves.
 *   The radix (Bruck et al.'s k-port index algorithm) trades steps for
 *   messages: parameter steps = s picks the least k with k^s >= p, so
 *   ceil(log_k p) <= s steps of k - 1 messages each.  s = 2 is a
 *   two-dimensional mesh and s = 3 a three-dimensional one, the shapes of
 *   SMPI's 2dmesh and 3dmesh alltoall, here for every p (theirs need p to
 *   factor; a prime p in radix k simply leaves the last step with fewer
 *   digits).  Where a host starts a message in less time than its
 *   latency, a step costs about one latency, and s steps beat ceil(lg p)
 *   for small blocks (the single-ported model charges the k - 1 messages
 *   one after the other, so it never prefers a radix above 2).
 *
 * Restrictions: none; any p, any count, MPI_IN_PLACE (the receive buffer
 * holds the send data).  Parameter steps (0: radix 2).
 *
 * Worked example, bruck on p = 5 at rank 0 (T slots hold "source->dest"):
 *   rotate: T = [0>0 0>1 0>2 0>3 0>4]
 *   d = 1: send slots 1,3 (0>1 0>3) to 1; receive 4>0 4>2 from 4
 *          T = [0>0 4>0 0>2 4>2 0>4]
 *   d = 2: send slots 2,3 (0>2 4>2) to 2; receive 3>0 2>0 from 3
 *          T = [0>0 4>0 3>0 2>0 0>4]
 *   d = 4: send slot 4 (0>4) to 4; receive 1>0 from 1
 *          T = [0>0 4>0 3>0 2>0 1>0] and RECV[0 - j] = T[j].
 * The same with steps = 2 (radix 3: slots 1 = 01, 2 = 02, 3 = 10, 4 = 11
 * in base 3), at once in the first step:
 *   d = 1, v = 1: send slots 1,4 (0>1 0>4) to 1; receive 4>0 4>3 from 4
 *   d = 1, v = 2: send slot 2 (0>2) to 2; receive 3>0 from 3
 *          T = [0>0 4>0 3>0 0>3 4>3]
 *   d = 3, v = 1: send slots 3,4 (0>3 4>3) to 3; receive 2>0 1>0 from 2
 *          T = [0>0 4>0 3>0 2>0 1>0]: two steps, three messages.
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

/* One digit of one step: the slots with digit v at distance d (radix k),
 * packed into pk from offset at. */
typedef struct {
    int d, v, k;
    size_t at;
} digit_t;

/* Copy the runs of slots of digit g between T and the packed buffer pk
 * (pack: T -> pk, else pk -> T); every copy waits for the ndeps deps.  v
 * has room for p / 2 + 1 vertex ids.  Returns a vertex that completes when
 * all copies did. */
static int bruck_runs(ch4coll_sched_t *s, int t, int pk, const digit_t *g,
                      int p, size_t n, int pack, int ndeps, const int *deps,
                      int *v)
{
    int i, lo, hi, nv = 0;
    size_t pos = g->at;

    for (i = 0; i < ch4coll_bruck_a2a_nruns(g->d, g->v, g->k, p); i++) {
        size_t len;
        ch4coll_ref_t tr, pr = ch4coll_ref(pk, pos);
        ch4coll_bruck_a2a_run(g->d, g->v, g->k, p, i, &lo, &hi);
        len = (size_t) (hi - lo) * n;
        tr = ch4coll_ref(t, (size_t) lo * n);
        v[nv++] = ch4coll_sched_copy(s, pack ? tr : pr, pack ? pr : tr, len,
                                     ndeps, deps);
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

/* Step 2: per step of distance d, one packed exchange per digit v, the
 * k - 1 of them at once; S and R hold a step's digits side by side.
 * Returns the vertex after which T is final. */
static int bruck_exchange(ch4coll_sched_t *s, const ch4coll_args_t *a, int k,
                          int t, int tdone, int *v)
{
    int p = a->size, rank = a->rank, sb, rb, maxc = 0;
    int prev_send = -1, prev_unpack = -1, dep[2];
    int64_t d;
    size_t n = a->count;
    digit_t g;

    for (d = 1; d < p; d *= k) {
        int c = 0;
        for (g.v = 1; g.v < k && g.v * d < p; g.v++)
            c += ch4coll_bruck_a2a_nslots((int) d, g.v, k, p);
        maxc = c > maxc ? c : maxc;
    }
    sb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    rb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    g.k = k;
    for (d = 1; d < p; d *= k) {
        int sends = prev_send, unpacks = tdone;
        g.d = (int) d;
        g.at = 0;
        for (g.v = 1; g.v < k && g.v * d < p; g.v++) {
            size_t bytes =
                (size_t) ch4coll_bruck_a2a_nslots(g.d, g.v, k, p) * n;
            int far = (int) (g.v * d), pk, rv;
            dep[0] = tdone;     /* slots written by the previous step */
            dep[1] = prev_send; /* S still being sent */
            pk = bruck_runs(s, t, sb, &g, p, n, 1, 2, dep, v);
            sends = join2(s, sends,
                          ch4coll_sched_send(s, ch4coll_ref(sb, g.at), bytes,
                                             (rank + far) % p, 0, 1, &pk));
            rv = ch4coll_sched_recv(s, ch4coll_ref(rb, g.at), bytes,
                                    (rank - far + p) % p, 0,
                                    ch4coll_dep1(prev_unpack, dep), dep);
            dep[0] = rv;
            dep[1] = pk; /* the pack read the slots the unpack overwrites */
            unpacks =
                join2(s, unpacks, bruck_runs(s, t, rb, &g, p, n, 0, 2, dep, v));
            g.at += bytes;
        }
        prev_send = sends;
        prev_unpack = tdone = unpacks;
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
    tdone = bruck_exchange(s, a, ch4coll_bruck_radix((int) params[0], p), t,
                           tdone, v);
    bruck_unrotate(s, a, t, tdone);
    ch4coll_free(v);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/* Single-ported: a step's k - 1 messages one after the other. */
double ch4coll_cost_alltoall_bruck(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    int p = a->size, k = ch4coll_bruck_radix((int) params[0], p), v;
    int64_t d;
    double t = 0;

    if (a->count == 0)
        return 0.0;
    for (d = 1; d < p; d *= k)
        for (v = 1; v < k && v * d < p; v++)
            t += ch4coll_model_msg(
                m, (double) ch4coll_bruck_a2a_nslots((int) d, v, k, p) *
                       (double) a->count);
    return t;
}
