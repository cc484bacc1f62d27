/*
 * alltoall_more.c - alltoall by Bruck's index algorithm, and windowed
 * ("scattered") and permuted all-post alltoall(v).
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
 * bruck (alltoall)
 *   1. rotate: T[j] = my block for rank + j (two copies into scratch T).
 *   2. step k (d = 2^k < p): pack the blocks T[j] whose bit k of j is set
 *      (runs of d consecutive slots) into S, send S to rank + d, receive
 *      as many blocks from rank - d into R, unpack R into the same slots.
 *      A block in slot j moves by the binary digits of j, so it ends at
 *      rank (source + j): afterwards T[j] holds the block from rank - j.
 *   3. RECV[rank - j] = T[j]: p copies.
 *   T = ceil(lg p) alpha + ceil(lg p) ceil(p/2) m beta + O(p m) copying,
 *   blocks of m bytes.  Scratch p m + 2 ceil(p/2) m.
 * scattered (alltoall, alltoallv)
 *   Step k = 1..p-1 receives from rank - k and sends to rank + k, like
 *   pairwise, but every message is posted at once except that the i-th
 *   receive waits for the (i - window)-th receive and the i-th send for the
 *   (i - window)-th send: at most `window` of each in flight, the next one
 *   posted as an earlier one completes.  Dependencies point only to earlier
 *   steps, so the rendezvous wait-for graph is acyclic.
 *   T ~ (p-1) alpha / window + (p-1) m beta.  No scratch (in place: the
 *   receive buffer is staged into scratch first, as in pairwise.c).
 * permuted (alltoall, alltoallv)
 *   A fixed-seed xorshift64* generator shuffles the offsets 1..p-1 into a
 *   permutation P, identical on all ranks.  Rank r starts at position
 *   r mod (p-1): its turn t goes to r + P[(r + t) mod (p-1)], so at any turn
 *   the ranks aim at scattered destinations.  Each block is cut into
 *   per_dest balanced pieces sent one after another (piece i on tag i, so
 *   pieces of one pair never mismatch).  A receiver computes for every
 *   source the turn at which it will be served and posts its receives in
 *   that order.  Everything is posted at once.
 *   T ~ (p-1) per_dest alpha + (p-1) m beta.  No scratch (in place: staged).
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
 * Permuted on p = 5 with P = [3 1 4 2]: rank 0 sends to 3, 1, 4, 2; rank 1
 *   starts at position 1: 1+1, 1+4, 1+2, 1+3 = 2, 0, 3, 4; rank 4 starts at
 *   position 0 again: 4+3, ... = 2, 0, 3, 1.
 */
#include "algo.h"

#include "../util/util.h"

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

/* Blocks whose slot j < p has bit d set come in runs [base + d, base + 2d)
 * for base = 0, 2d, 4d, ...; the number of such slots. */
static inline int bit_slots(int d, int p)
{
    int base, n = 0;

    for (base = 0; base + d < p; base += 2 * d)
        n += (base + 2 * d < p ? base + 2 * d : p) - (base + d);
    return n;
}

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
    int base, nv = 0;
    size_t pos = 0;

    for (base = 0; base + d < p; base += 2 * d) {
        int lo = base + d, hi = base + 2 * d < p ? base + 2 * d : p;
        size_t len = (size_t) (hi - lo) * n;
        ch4coll_ref_t tr = ch4coll_ref(t, (size_t) lo * n);
        ch4coll_ref_t pr = ch4coll_ref(pk, pos);
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
    size_t n = a->count;

    c0 =
        ch4coll_sched_copy(s, ch4coll_ref(src, (size_t) rank * n),
                           ch4coll_ref(t, 0), (size_t) (p - rank) * n, 0, NULL);
    if (rank > 0)
        c1 = ch4coll_sched_copy(s, ch4coll_ref(src, 0),
                                ch4coll_ref(t, (size_t) (p - rank) * n),
                                (size_t) rank * n, 0, NULL);
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
        if (bit_slots(d, p) > maxc)
            maxc = bit_slots(d, p);
    sb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    rb = ch4coll_sched_scratch(s, (size_t) maxc * n);
    for (d = 1; d < p; d *= 2) {
        size_t bytes = (size_t) bit_slots(d, p) * n;
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
            ch4coll_ref(CH4COLL_BUF_RECV, (size_t) ((rank - j + p) % p) * n), n,
            ch4coll_dep1(tdone, d), d);
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

/* xorshift64* (Vigna): small, fast, the same sequence everywhere. */
static inline uint64_t xorshift64s(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/* perm[0..p-2] = a shuffle of the offsets 1..p-1 (Fisher-Yates); the seed
 * depends only on p, so every rank draws the same permutation.  inv[o] is
 * the position of offset o. */
static void permute_offsets(int p, int *perm, int *inv)
{
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t) p;
    int i;

    for (i = 0; i < p - 1; i++)
        perm[i] = i + 1;
    for (i = p - 2; i > 0; i--) {
        int j = (int) (xorshift64s(&x) % (uint64_t) (i + 1)), tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    for (i = 0; i < p - 1; i++)
        inv[perm[i]] = i;
}

/* Turn at which rank src sends to rank dst (src != dst). */
static inline int permuted_turn(const int *inv, int src, int dst, int p)
{
    int pos = inv[(dst - src + p) % p];

    return (pos - src % (p - 1) + (p - 1)) % (p - 1);
}

/* Byte offset of piece i (0 <= i <= k) of a block of b bytes. */
static inline size_t piece_off(size_t b, int k, int i)
{
    size_t q = b / (size_t) k, r = b % (size_t) k;

    return (size_t) i * q + ((size_t) i < r ? (size_t) i : r);
}

/* The per_dest pieces of one block, piece i on tag i. */
static void permuted_pieces(ch4coll_sched_t *s, int send, ch4coll_ref_t at,
                            size_t b, int peer, int k, int staged)
{
    int i, d[1];

    for (i = 0; i < k; i++) {
        size_t len = piece_off(b, k, i + 1) - piece_off(b, k, i);
        ch4coll_ref_t r = ch4coll_ref(at.buf, at.off + piece_off(b, k, i));
        if (len == 0)
            continue;
        if (send)
            ch4coll_sched_send(s, r, len, peer, i, ch4coll_dep1(staged, d), d);
        else
            ch4coll_sched_recv(s, r, len, peer, i, ch4coll_dep1(staged, d), d);
    }
}

/* Sources ordered by the turn at which they send to me (counting sort). */
static void arrival_order(const int *inv, int rank, int p, int *order, int *cnt)
{
    int src, t;

    for (t = 0; t < p; t++)
        cnt[t] = 0;
    for (src = 0; src < p; src++)
        if (src != rank)
            cnt[permuted_turn(inv, src, rank, p) + 1]++;
    for (t = 1; t < p; t++)
        cnt[t] += cnt[t - 1];
    for (src = 0; src < p; src++)
        if (src != rank)
            order[cnt[permuted_turn(inv, src, rank, p)]++] = src;
}

static int permuted_body(ch4coll_sched_t *s, const ch4coll_args_t *a,
                         const a2a_t *v, int64_t per_dest)
{
    int p = a->size, rank = a->rank, k = (int) per_dest, t, src_buf, staged;
    int *perm, *inv, *order, *cnt;

    ch4coll_sched_set_ntags(s, k);
    staged = stage(s, a, v, &src_buf);
    if (p == 1)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    perm = ch4coll_malloc(4 * (size_t) p * sizeof *perm);
    if (!perm)
        return CH4COLL_ERR_NOMEM;
    inv = perm + p;
    order = inv + p;
    cnt = order + p;
    permute_offsets(p, perm, inv);
    /* receives first, in the order the senders will serve me */
    arrival_order(inv, rank, p, order, cnt);
    for (t = 0; t < p - 1; t++) {
        int src = order[t];
        if (v->rc[src] > 0)
            permuted_pieces(s, 0, ch4coll_ref(CH4COLL_BUF_RECV, v->rd[src]),
                            v->rc[src], src, k, staged);
    }
    /* then my sends, starting at my own position in the permutation */
    for (t = 0; t < p - 1; t++) {
        int dst = (rank + perm[(rank % (p - 1) + t) % (p - 1)]) % p;
        if (v->sc[dst] > 0)
            permuted_pieces(s, 1, ch4coll_ref(src_buf, v->sd[dst]), v->sc[dst],
                            dst, k, staged);
    }
    ch4coll_free(perm);
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
