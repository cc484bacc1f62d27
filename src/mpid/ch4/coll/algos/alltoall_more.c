/*
 * alltoall_more.c - alltoall by Bruck's index algorithm, windowed all-post
 * ("scattered") alltoall(v), and alltoall(v) over a permuted destination
 * list (BlueGene/L).
 *
 * Sources: NEC MPI/SX section 3.5 ("the algorithm of Bruck et al. reduces
 * the number of communication rounds to ceil(lg p) and thus reduces latency
 * by combining messages, however at the expense of redundant transmission
 * of a factor of ceil(lg p) more data"; beyond a size limit a linear
 * algorithm that controls which pairs talk); BlueGene/L section 3.1 (the
 * optimized Alltoall(v) "avoids network hotspots by randomizing [...]
 * injection [...] through a permuted list of destinations [...] the same on
 * each node, because the random number generator is seeded with the same
 * number everywhere.  However, every node starts from a different offset in
 * the permutation list", with a few packets per destination per turn).
 *
 * bruck (alltoall; slot arithmetic in topo/index.h)
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
 * scattered (alltoall, alltoallv)
 *   Step k = 1..p-1 receives from rank - k and sends to rank + k, like
 *   pairwise, but every message is posted at once except that the i-th
 *   receive waits for the (i - window)-th receive and the i-th send for the
 *   (i - window)-th send: at most `window` of each in flight, the next one
 *   posted as an earlier one completes.  Dependencies point only to earlier
 *   steps, so the rendezvous wait-for graph is acyclic.
 *   On the model (single port, first come first served) more than one send
 *   in flight does not help: window 1 is the pairwise exchange, (p-1) t for
 *   messages of t = alpha + m beta; a wider window lets the ranks book
 *   receive ports ahead in rank order (see pairwise.c), and the replay
 *   measures (4 (p-1) - 2 window + 1) t + (p-1) t for 2 <= window < p-1,
 *   at least the all-posted 3 (p-1) t (irregular counts: the rank's own
 *   messages for (p-1) t, its mean message for t).  No scratch (in place:
 *   the receive buffer is staged into scratch first, as in pairwise.c).
 * permuted (alltoall, alltoallv; the list in topo/index.h)
 *   A fixed-seed xorshift64* generator shuffles the ranks into a list L,
 *   identical on all ranks.  Rank r at position q in L spends turn
 *   t = 0..p-2 on L[q + 1 + t] and hears at turn t from L[q - 1 - t]
 *   (mod p): every rank starts from a different offset of the same list,
 *   so at any turn the ranks aim at p distinct destinations - no hot spot,
 *   and no rank is a destination twice in a turn.  Each block is cut into
 *   per_dest balanced pieces (piece i on tag i, so pieces of one pair never
 *   mismatch).  Receives are posted at once in turn order; each send waits
 *   for the previous one, so a rank injects one piece at a time, turn
 *   after turn.  (Offsets r + P[(r + t) mod (p-1)] instead of list
 *   positions collide, up to 4 senders per destination in a turn at
 *   p = 96; and with every send posted at once the model's ports book the
 *   whole exchange in rank order: 25.5 ms at p = 96, 1 MiB per rank,
 *   against 0.29 ms now.)
 *   T = (p-1) (per_dest alpha + m beta) for regular blocks.  Irregular
 *   counts: empty blocks let a rank run ahead of the others' turns, and
 *   about three quarters of the turns it skips come back as waits at a
 *   receive port another sender holds (measured on the replay, per_dest
 *   1; more pieces per turn wait longer).  No scratch (in place: staged).
 *
 * Restrictions: none; any p, any count, zero-size blocks skipped on both
 * sides, MPI_IN_PLACE (the receive buffer holds the send data).
 * Parameters: window (scattered) default 8, 1..1024; per_dest (permuted)
 * default 1, 1..64.
 *
 * Worked example, bruck on p = 5 at rank 0 (T slots hold "source->dest"):
 *   rotate: T = [0>0 0>1 0>2 0>3 0>4]
 *   d = 1: send slots 1,3 (0>1 0>3) to 1; receive 4>0 4>2 from 4
 *          T = [0>0 4>0 0>2 4>2 0>4]
 *   d = 2: send slots 2,3 (0>2 4>2) to 2; receive 3>0 2>0 from 3
 *          T = [0>0 4>0 3>0 2>0 0>4]
 *   d = 4: send slot 4 (0>4) to 4; receive 1>0 from 1
 *          T = [0>0 4>0 3>0 2>0 1>0] and RECV[0 - j] = T[j].
 * Permuted on p = 5, L = [1 2 0 3 4]: rank 0 (position 2) sends to 3, 4,
 *   1, 2 and hears from 2, 1, 4, 3; rank 1 (position 0) sends to 2, 0, 3,
 *   4; rank 4 (position 4) to 1, 2, 0, 3.  Turn 0 goes 0->3, 1->2, 2->0,
 *   3->4, 4->1: every rank receives exactly once per turn.
 */
#include "algo.h"

#include "../topo/index.h"
#include "../util/util.h"

#include <math.h>

#define WINDOW_MIN   1
#define WINDOW_MAX   1024
#define PER_DEST_MIN 1
#define PER_DEST_MAX 64

/* The four v-arrays of an alltoall(v): send counts/displs, receive
 * counts/displs, in bytes. */
typedef struct {
    const size_t *sc, *sd, *rc, *rd;
} a2a_t;

typedef int (*a2a_body_fn)(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const a2a_t *v, int64_t param);

/* Regular blocks described as v-arrays for a shared body. */
static int run_regular(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       a2a_body_fn body, int64_t param)
{
    int p = a->size, i, rc;
    size_t *v;
    a2a_t w;

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
    w.sc = w.rc = v;
    w.sd = w.rd = v + p;
    rc = body(s, a, &w, param);
    ch4coll_free(v);
    return rc;
}

static int run_v(ch4coll_sched_t *s, const ch4coll_args_t *a, a2a_body_fn body,
                 int64_t param)
{
    a2a_t w;

    w.sc = a->inplace ? a->counts : a->scounts;
    w.sd = a->inplace ? a->displs : a->sdispls;
    w.rc = a->counts;
    w.rd = a->displs;
    return body(s, a, &w, param);
}

/* In place: copy the receive buffer (which holds the send data) to scratch
 * and make that the send buffer; else copy the own block across.  Returns
 * the staging copy (every receive must wait for it) or -1. */
static int stage(ch4coll_sched_t *s, const ch4coll_args_t *a, const a2a_t *v,
                 int *src_buf)
{
    int p = a->size, rank = a->rank, k;
    size_t span = 0;

    *src_buf = CH4COLL_BUF_SEND;
    if (!a->inplace) {
        if (v->rc[rank] > 0)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, v->sd[rank]),
                               ch4coll_ref(CH4COLL_BUF_RECV, v->rd[rank]),
                               v->rc[rank], 0, NULL);
        return -1;
    }
    for (k = 0; k < p; k++)
        if (k != rank && v->rc[k] > 0 && v->rd[k] + v->rc[k] > span)
            span = v->rd[k] + v->rc[k];
    if (span == 0)
        return -1;
    *src_buf = ch4coll_sched_scratch(s, span);
    return ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                              ch4coll_ref(*src_buf, 0), span, 0, NULL);
}

/* ------------------------------------------------------------------ bruck */

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

/* -------------------------------------------------------------- scattered */

static int scattered_body(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const a2a_t *v, int64_t window)
{
    int p = a->size, rank = a->rank, k, src_buf, staged, nr = 0, ns = 0;
    int w = (int) window, *rv, *sv;

    rv = ch4coll_malloc(2 * (size_t) p * sizeof *rv);
    if (!rv)
        return CH4COLL_ERR_NOMEM;
    sv = rv + p;
    staged = stage(s, a, v, &src_buf);
    for (k = 1; k < p; k++) {
        int dst = (rank + k) % p, src = (rank - k + p) % p, d[2];
        d[0] = staged;
        if (v->rc[src] > 0) {
            d[1] = nr >= w ? rv[nr - w] : -1;
            rv[nr++] =
                ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, v->rd[src]),
                                   v->rc[src], src, 0, 2, d);
        }
        if (v->sc[dst] > 0) {
            d[1] = ns >= w ? sv[ns - w] : -1;
            sv[ns++] = ch4coll_sched_send(s, ch4coll_ref(src_buf, v->sd[dst]),
                                          v->sc[dst], dst, 0, 2, d);
        }
    }
    ch4coll_free(rv);
    return CH4COLL_OK;
}

static int window_ok(int64_t w)
{
    return w >= WINDOW_MIN && w <= WINDOW_MAX;
}

int ch4coll_alltoall_scattered(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    if (!window_ok(params[0]))
        return CH4COLL_ERR_ARG;
    return run_regular(s, a, scattered_body, params[0]);
}

int ch4coll_alltoallv_scattered(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    if (!window_ok(params[0]))
        return CH4COLL_ERR_ARG;
    return run_v(s, a, scattered_body, params[0]);
}

/* --------------------------------------------------------------- permuted */

/* Byte offset of piece i (0 <= i <= k) of a block of b bytes. */
static inline size_t piece_off(size_t b, int k, int i)
{
    size_t q = b / (size_t) k, r = b % (size_t) k;

    return (size_t) i * q + ((size_t) i < r ? (size_t) i : r);
}

/* The per_dest pieces of one block, piece i on tag i.  Receives wait for
 * dep only; each send also waits for the previous send (*chain), so that a
 * rank injects one piece at a time, turn after turn. */
static void permuted_pieces(ch4coll_sched_t *s, int send, ch4coll_ref_t at,
                            size_t b, int peer, int k, int dep, int *chain)
{
    int i, d[2];

    for (i = 0; i < k; i++) {
        size_t len = piece_off(b, k, i + 1) - piece_off(b, k, i);
        ch4coll_ref_t r = ch4coll_ref(at.buf, at.off + piece_off(b, k, i));
        if (len == 0)
            continue;
        d[0] = dep;
        if (send) {
            d[1] = *chain;
            *chain = ch4coll_sched_send(s, r, len, peer, i, 2, d);
        } else {
            ch4coll_sched_recv(s, r, len, peer, i, 1, d);
        }
    }
}

static int permuted_body(ch4coll_sched_t *s, const ch4coll_args_t *a,
                         const a2a_t *v, int64_t per_dest)
{
    int p = a->size, k = (int) per_dest, t, src_buf, staged, q, chain = -1;
    int *list, *pos;

    ch4coll_sched_set_ntags(s, k);
    staged = stage(s, a, v, &src_buf);
    if (p == 1)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    list = ch4coll_malloc(2 * (size_t) p * sizeof *list);
    if (!list)
        return CH4COLL_ERR_NOMEM;
    pos = list + p;
    /* the seed depends only on p: every rank draws the same list */
    ch4coll_perm_shuffle(p, ch4coll_perm_seed(p), list, pos);
    q = pos[a->rank];
    /* receives first, in turn order: at turn t the rank t + 1 places
     * before me in the list sends to me */
    for (t = 0; t < p - 1; t++) {
        int src = ch4coll_perm_source(list, p, q, t);
        if (v->rc[src] > 0)
            permuted_pieces(s, 0, ch4coll_ref(CH4COLL_BUF_RECV, v->rd[src]),
                            v->rc[src], src, k, staged, NULL);
    }
    /* my sends: the ranks after me in the list, one turn each */
    for (t = 0; t < p - 1; t++) {
        int dst = ch4coll_perm_dest(list, p, q, t);
        if (v->sc[dst] > 0)
            permuted_pieces(s, 1, ch4coll_ref(src_buf, v->sd[dst]), v->sc[dst],
                            dst, k, staged, &chain);
    }
    ch4coll_free(list);
    return CH4COLL_OK;
}

static int per_dest_ok(int64_t k)
{
    return k >= PER_DEST_MIN && k <= PER_DEST_MAX;
}

int ch4coll_alltoall_permuted(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    if (!per_dest_ok(params[0]))
        return CH4COLL_ERR_ARG;
    return run_regular(s, a, permuted_body, params[0]);
}

int ch4coll_alltoallv_permuted(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    if (!per_dest_ok(params[0]))
        return CH4COLL_ERR_ARG;
    return run_v(s, a, permuted_body, params[0]);
}

/* ------------------------------------------------------------------- cost */

/* Sum and number of the non-empty sends to the other ranks (counts NULL:
 * regular blocks of count bytes), each cut into k pieces. */
static double sends(const ch4coll_args_t *a, const size_t *sc, int k,
                    const ch4coll_model_t *m, int *nmsg)
{
    int p = a->size, j;
    double sum = 0;

    *nmsg = 0;
    for (j = 0; j < p; j++) {
        size_t c = sc ? sc[j] : a->count;
        if (j == a->rank || c == 0)
            continue;
        sum += (double) ((size_t) k < c ? (size_t) k : c) * m->alpha +
               (double) c * m->beta;
        (*nmsg)++;
    }
    return sum;
}

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

/* See the note: one send at a time is the pairwise exchange; with a wider
 * window the model's first-come ports let the ranks' reservations pile up
 * (measured on the replay, 2 <= window < p - 1). */
static double scattered_cost(const ch4coll_args_t *a, const size_t *sc,
                             int64_t window, const ch4coll_model_t *m)
{
    int p = a->size, n;
    double sum = sends(a, sc, 1, m, &n), mean, lag;

    if (!window_ok(window))
        return HUGE_VAL;
    if (n == 0)
        return 0.0;
    if (window == 1 || p == 2)
        return sum;
    mean = sum / n;
    lag = 4.0 * (p - 1) - 2.0 * (double) window + 1;
    if (lag < 2.0 * (p - 1))
        lag = 2.0 * (p - 1);
    return lag * mean + sum;
}

double ch4coll_cost_alltoall_scattered(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return scattered_cost(a, NULL, params[0], m);
}

double ch4coll_cost_alltoallv_scattered(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    return scattered_cost(a, a->inplace ? a->counts : a->scounts, params[0], m);
}

/* One piece at a time, turn after turn, to distinct destinations: the sum
 * of the rank's own messages.  Empty blocks let a rank run ahead of the
 * others' turns; about three quarters of the turns it skips come back as
 * waits at receive ports another sender now holds (measured on the replay
 * with irregular counts, p = 5 .. 128). */
static double permuted_cost(const ch4coll_args_t *a, const size_t *sc,
                            int64_t per_dest, const ch4coll_model_t *m)
{
    int n, p = a->size;
    double sum;

    if (!per_dest_ok(per_dest))
        return HUGE_VAL;
    sum = sends(a, sc, (int) per_dest, m, &n);
    if (n == 0)
        return 0.0;
    return sum + 0.75 * (p - 1 - n) * (sum / n);
}

double ch4coll_cost_alltoall_permuted(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    return a->count == 0 ? 0.0 : permuted_cost(a, NULL, params[0], m);
}

double ch4coll_cost_alltoallv_permuted(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return permuted_cost(a, a->inplace ? a->counts : a->scounts, params[0], m);
}
