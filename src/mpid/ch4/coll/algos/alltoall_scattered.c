/*
 * alltoall_scattered.c - alltoall(v) with many exchanges in flight:
 * windowed all-post ("scattered"), and over a permuted destination list
 * (BlueGene/L).
 *
 * Sources: NEC MPI/SX section 3.5 (beyond the size limit of Bruck's
 * algorithm, alltoall_bruck.c, "a linear algorithm" that controls which
 * pairs talk); BlueGene/L section 3.1 (the
 * optimized Alltoall(v) "avoids network hotspots by randomizing [...]
 * injection [...] through a permuted list of destinations [...] the same on
 * each node, because the random number generator is seeded with the same
 * number everywhere.  However, every node starts from a different offset in
 * the permutation list", with a few packets per destination per turn).
 *
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
 *   receive ports ahead in rank order (see pairwise.c): T = (4 (p-1) -
 *   2 window + 1) t + (p-1) t for 2 <= window < p-1, at least the
 *   all-posted 3 (p-1) t (fitted on the replay; irregular counts: the
 *   rank's own messages for (p-1) t, its mean message for t).  No scratch
 *   (in place: the receive buffer is staged into scratch first).
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
 *   after turn (why list positions and one send at a time:
 *   doc/performance-log.md).
 *   T = (p-1) (per_dest alpha + m beta) for regular blocks.  Irregular
 *   counts: empty blocks let a rank run ahead of the others' turns, and
 *   about three quarters of the turns it skips come back as waits at a
 *   receive port another sender holds (the 3/4 fitted on the replay with
 *   per_dest 1).  No scratch (in place: staged).
 *
 * Restrictions: none; any p, any count, zero-size blocks skipped on both
 * sides, MPI_IN_PLACE (the receive buffer holds the send data).
 * Parameters: window (scattered) default 8, 1..1024; per_dest (permuted)
 * default 1, 1..64.
 *
 * Permuted on p = 5, L = [1 2 0 3 4]: rank 0 (position 2) sends to 3, 4,
 *   1, 2 and hears from 2, 1, 4, 3; rank 1 (position 0) sends to 2, 0, 3,
 *   4; rank 4 (position 4) to 1, 2, 0, 3.  Turn 0 goes 0->3, 1->2, 2->0,
 *   3->4, 4->1: every rank receives exactly once per turn.
 */
#include "algo.h"

#include "../topo/index.h"
#include "../topo/topo.h"
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
    return ch4coll_seg_off(b, (size_t) k, (size_t) i);
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

/* Piece i of every block goes on tag i. */
int ch4coll_ntags_alltoall_permuted(const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) a;
    return per_dest_ok(params[0]) ? (int) params[0] : 1;
}

int ch4coll_alltoall_permuted(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    if (!per_dest_ok(params[0]))
        return CH4COLL_ERR_ARG;
    ch4coll_sched_set_ntags(s, ch4coll_ntags_alltoall_permuted(a, params));
    return run_regular(s, a, permuted_body, params[0]);
}

int ch4coll_alltoallv_permuted(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    if (!per_dest_ok(params[0]))
        return CH4COLL_ERR_ARG;
    ch4coll_sched_set_ntags(s, ch4coll_ntags_alltoall_permuted(a, params));
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
