/*
 * hampath.c - reduce and allreduce pipelined along a Hamiltonian path of a
 * virtual mesh, for commutative ops.
 *
 * Source: Almasi et al. (BG/L) section 3.1, "MPI_Reduce" and
 * "MPI_Allreduce", Figure 2(b): a path through all nodes makes every node
 * receive from one neighbour only, "boosting bandwidth at a severe cost to
 * latency"; with an even extent, two streams in opposite directions along
 * the path run at once; the long allreduce is a pipelined reduce along a
 * path followed by a broadcast back along it.
 *
 * The path, on the 3-D virtual mesh ch4coll_mesh_dims(p, 3) (topo/mesh.h):
 *   reduce: p even: the mesh's Hamiltonian cycle opened just after the
 *     root, so the root is last; stream B runs the cycle the other way, also
 *     ending at the root.  p odd: the snake shifted so that the root is
 *     last (position i holds (snake_rank(i) - snake_rank(p-1) + root) mod
 *     p); only one direction ends at the root, so one stream.
 *   allreduce: the snake; stream A reduces towards its last position and
 *     broadcasts back, stream B the other way round.
 *
 * Steps.  The n elements are cut into `streams` halves (ceil(n/2), then the
 * rest), each into pieces of ce elements.  On each stream, for piece c:
 *   1. position 0 sends its contribution of c to its successor;
 *   2. every other position receives the partial, folds its own in and,
 *      unless last, sends it on;
 *   3. allreduce: the last position sends the result back; every position
 *      receives it into the receive buffer and, unless first, passes it on.
 * Piece c+1 is reduced while piece c travels on.
 *
 * Cost (N bytes, K pieces over all streams, b bytes per full piece,
 * t_m = alpha + b beta, t_r = b gamma):
 *   reduce     max((p-1) t_m + (p-2) t_r + N gamma,
 *                  (p-2)(t_m + t_r) + K alpha + N beta + t_r(last piece)):
 *              the first piece's way to the root, then every piece through
 *              the root's CPU or its receive port (exact for one stream).
 *   allreduce  (p-1)(2 t_m + t_r) + max(2 ((K - streams) alpha + R beta),
 *              R gamma) [+ max(t_m, t_r) for two streams on odd p],
 *              R = max(0, N - streams b): the first piece of each stream
 *              there and back, then per further piece a middle rank sends
 *              a partial one way and a result the other.
 * Latency (p-1) alpha (reduce), 2 (p-1) alpha (allreduce); bandwidth
 * N (beta + gamma) and N (2 beta + gamma) whatever p: long vectors only.
 * Two streams add no bandwidth on one port; they halve the pieces in flight
 * on each path.  For small pieces the allreduce runs best with streams = 1.
 * Scratch: WINDOW = 2 pieces per stream where a rank folds into a slot
 * (reduce non-roots, in-place reduce root and allreduce); none elsewhere.
 * Restrictions: commutative ops only (path order, not rank order).  Any p,
 * any count (empty streams skipped by all), any root, MPI_IN_PLACE.
 * Parameters: chunk (bytes, default 65536, 1 .. 2^40): a piece of
 * floor(chunk / size) elements, at least one, at most 2^20 per stream;
 * streams (1 or 2, default 2).
 *
 * Worked example, reduce p = 6, root 4: dims {3, 2, 1}; the cycle visits
 * 0 2 4 5 3 1.  Stream A is 5 3 1 0 2 4, stream B 2 0 1 3 5 4.  With n = 5
 * MPI_INT and chunk = 8 (ce = 2), A carries elements 0..2 in pieces
 * {0, 1}, {2}, B elements 3..4 in one piece.  Rank 5 sends its elements
 * 0..1 to 3, which folds in its own and forwards them to 1 while receiving
 * element 2 from 5; the root 4 gets the sums of all others from 2 (A) and
 * 5 (B) and folds its own into each.  Reduce p = 5, root 2: no cycle; the
 * snake 0 1 2 3 4 shifted by 2 - 4 gives the path 3 4 0 1 2.  Allreduce
 * p = 6: snake 0 1 3 2 4 5; A reduces towards 5 and returns to 0, B
 * reduces towards 0 and returns to 5.
 */
#include "algo.h"

#include "../topo/mesh.h"

/* Most pieces per stream; a smaller piece is raised to fit. */
#define MAX_PIECES ((size_t) 1 << 20)
#define WINDOW     2
#define MAXSTREAMS 2

/* A Hamiltonian path: position i holds the rank of cycle or snake position
 * off + dir * i (mod p), shifted by shift (snake only). */
typedef struct {
    int p, nd, dims[CH4COLL_MESH_MAXD];
    int cycle;
    int off, dir, shift;
} path_t;

typedef struct {
    int pos;             /* my position, 0 .. p-1 */
    int pred, succ;      /* ranks of my neighbours, -1 past an end */
    size_t base, len;    /* elements of the vector carried */
    int tag_red, tag_bc; /* first tag of the partials, of the results */
    /* receives: the vertex of the piece WINDOW back; sends: the last one
     * (-1: none yet) */
    int rrecv[WINDOW], brecv[WINDOW], rsend, bsend;
    int slot_rd[WINDOW]; /* last reader of each slot, or -1 */
} stream_t;

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int p;
    int all;         /* allreduce: results return along the path */
    int ns;          /* streams in use */
    size_t ce;       /* piece length in elements */
    size_t slot_len; /* elements per slot */
    int in_buf;      /* my contribution: send or receive buffer */
    int slots;       /* scratch id of ns * WINDOW slots, -1 until used */
    stream_t st[MAXSTREAMS];
} hp_t;

static int mod(int x, int p)
{
    return ((x % p) + p) % p;
}

static size_t min_sz(size_t x, size_t y)
{
    return x < y ? x : y;
}

static int path_rank(const path_t *t, int i)
{
    int j = mod(t->off + t->dir * i, t->p);

    if (t->cycle)
        return ch4coll_cycle_rank(j, t->nd, t->dims);
    return mod(ch4coll_snake_rank(j, t->nd, t->dims) + t->shift, t->p);
}

static void path_init(path_t *t, int p)
{
    t->p = p;
    t->nd = 3;
    ch4coll_mesh_dims(p, t->nd, t->dims);
    t->cycle = 0;
    t->off = 0;
    t->dir = 1;
    t->shift = 0;
}

/* Stream j of a reduce to root: a path ending at the root. */
static void path_reduce(path_t *t, int p, int root, int j)
{
    int i;

    path_init(t, p);
    t->cycle = ch4coll_mesh_has_cycle(t->nd, t->dims);
    if (!t->cycle) { /* the snake, relabelled to end at the root */
        t->shift = root - ch4coll_snake_rank(p - 1, t->nd, t->dims);
        return;
    }
    for (i = 0; i < p && ch4coll_cycle_rank(i, t->nd, t->dims) != root; i++)
        ;
    /* A: i+1, i+2, ..., i; B: i-1, i-2, ..., i */
    t->dir = j == 0 ? 1 : -1;
    t->off = i + t->dir;
}

/* Stream j of an allreduce: the snake, forwards (A) or backwards (B). */
static void path_allreduce(path_t *t, int p, int j)
{
    path_init(t, p);
    if (j == 1) {
        t->off = p - 1;
        t->dir = -1;
    }
}

static void stream_init(stream_t *st, const path_t *t, int rank)
{
    int i, p = t->p;

    for (i = 0; i < p && path_rank(t, i) != rank; i++)
        ;
    st->pos = i;
    st->pred = i > 0 ? path_rank(t, i - 1) : -1;
    st->succ = i < p - 1 ? path_rank(t, i + 1) : -1;
    st->rsend = st->bsend = -1;
    for (i = 0; i < WINDOW; i++)
        st->rrecv[i] = st->brecv[i] = st->slot_rd[i] = -1;
}

static ch4coll_ref_t at(const hp_t *h, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(h->a, elem));
}

/* Slot w of stream j. */
static ch4coll_ref_t slot_at(hp_t *h, int j, int w)
{
    if (h->slots < 0)
        h->slots =
            ch4coll_sched_scratch(h->s, (size_t) h->ns * WINDOW * h->slot_len);
    return at(h, h->slots, ((size_t) j * WINDOW + (size_t) w) * h->slot_len);
}

static size_t npieces(const hp_t *h, size_t len)
{
    return len == 0 ? 0 : 1 + (len - 1) / h->ce;
}

/* Step 2: receive the partial of a piece and fold my contribution in.
 * Returns the vertex after which the partial (or, last, the result) is
 * complete; *acc is where it lives. */
static int fold_piece(hp_t *h, int j, size_t c, size_t off, size_t len,
                      ch4coll_ref_t *acc)
{
    stream_t *st = &h->st[j];
    int last = st->pos == h->p - 1, w = (int) (c % WINDOW), d[2], v;
    /* the partial lands in place where the receive buffer may take it */
    int direct = (h->all || last) && !h->a->inplace;
    ch4coll_ref_t mine = at(h, h->in_buf, off);
    ch4coll_ref_t res = at(h, CH4COLL_BUF_RECV, off);
    ch4coll_ref_t dst = direct ? res : slot_at(h, j, w);

    d[0] = st->rrecv[w];
    d[1] = direct ? -1 : st->slot_rd[w];
    v = ch4coll_sched_recv(h->s, dst, len, st->pred, st->tag_red + w, 2, d);
    st->rrecv[w] = v;
    if (last && !direct) { /* in place: result = partial op mine */
        v = ch4coll_sched_reduce(h->s, dst, res, len, 1, &v);
        st->slot_rd[w] = v;
        *acc = res;
        return v;
    }
    /* dst = mine op partial (commutative) */
    v = ch4coll_sched_reduce(h->s, mine, dst, len, 1, &v);
    *acc = dst;
    return v;
}

/* Steps 1-3 for piece c of stream j.  Per stream, the sends of partials,
 * and those of results, are each chained (every one waits for the previous
 * one: on the replay's first-come first-served ports a rank that queues
 * several sends ahead delays its neighbours); receives of either kind run
 * up to WINDOW pieces ahead, piece c waiting for piece c - WINDOW.  Piece c
 * uses tag c mod WINDOW of its kind, so the messages of one tag match in
 * order.  Received partials go into WINDOW scratch slots, one per tag (a
 * slot is refilled once the send, or at the root the fold, of its previous
 * piece has completed), except where the receive buffer has room and does
 * not hold the input (allreduce and the reduce root, not in place): there
 * the partial lands in place. */
static void build_piece(hp_t *h, int j, size_t c)
{
    stream_t *st = &h->st[j];
    size_t off = st->base + c * h->ce;
    size_t len = min_sz(h->ce, st->base + st->len - off);
    int last = st->pos == h->p - 1, w = (int) (c % WINDOW), ready, sent = -1;
    int d[2];
    ch4coll_ref_t acc = at(h, h->in_buf, off);
    ch4coll_ref_t res = at(h, CH4COLL_BUF_RECV, off);

    ready = st->pos == 0 ? -1 : fold_piece(h, j, c, off, len, &acc);
    if (!last) {
        d[0] = ready;
        d[1] = st->rsend;
        sent =
            ch4coll_sched_send(h->s, acc, len, st->succ, st->tag_red + w, 2, d);
        st->rsend = sent;
        if (acc.buf >= CH4COLL_BUF_FIRST_SCRATCH)
            st->slot_rd[w] = sent;
    }
    if (!h->all)
        return;
    if (!last) { /* the result overwrites what the send above read */
        d[0] = st->brecv[w];
        d[1] = sent;
        ready =
            ch4coll_sched_recv(h->s, res, len, st->succ, st->tag_bc + w, 2, d);
        st->brecv[w] = ready;
    }
    if (st->pos > 0) {
        d[0] = ready;
        d[1] = st->bsend;
        st->bsend =
            ch4coll_sched_send(h->s, res, len, st->pred, st->tag_bc + w, 2, d);
    }
}

/* Piece length from the chunk parameter, capped at MAX_PIECES per stream. */
static size_t piece_elems(const ch4coll_args_t *a, const int64_t *params,
                          size_t maxlen)
{
    size_t ce = a->elem.size > 0 ? (size_t) params[0] / a->elem.size : maxlen;

    if (ce < 1)
        ce = 1;
    if (maxlen / ce >= MAX_PIECES)
        ce = maxlen / MAX_PIECES + 1;
    return ce;
}

/* Streams in use: 2 needs two paths ending at the root (reduce on a mesh
 * with a cycle) and a second element. */
static int nstreams(const ch4coll_args_t *a, const int64_t *params, int all)
{
    int dims[CH4COLL_MESH_MAXD];

    if (params[1] < 2 || a->count < 2 || a->size < 2)
        return 1;
    if (all)
        return 2;
    ch4coll_mesh_dims(a->size, 3, dims);
    return ch4coll_mesh_has_cycle(3, dims) ? 2 : 1;
}

/* Stream j's reduction pieces on tags j WINDOW + [0, WINDOW), allreduce's
 * results back on (ns + j) WINDOW + [0, WINDOW) (stream B's partials and
 * stream A's results cross the same edge in the same direction).
 * allreduce and reduce. */
int ch4coll_ntags_hampath(const ch4coll_args_t *a, const int64_t *params)
{
    int all = a->coll == CH4COLL_ALLREDUCE;

    return (all ? 2 : 1) * nstreams(a, params, all) * WINDOW;
}

/* p = 1: the result is my input. */
static void single(hp_t *h)
{
    if (!h->a->inplace)
        ch4coll_sched_copy(h->s, at(h, CH4COLL_BUF_SEND, 0),
                           at(h, CH4COLL_BUF_RECV, 0), h->a->count, 0, NULL);
}

static int hampath(ch4coll_sched_t *s, const ch4coll_args_t *a,
                   const int64_t *params, int all)
{
    hp_t h;
    path_t t;
    int j;
    size_t c, kmax = 0, half;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_hampath(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    h.s = s;
    h.a = a;
    h.p = a->size;
    h.all = all;
    h.ns = nstreams(a, params, all);
    half = (a->count + (size_t) h.ns - 1) / (size_t) h.ns;
    h.ce = piece_elems(a, params, half);
    h.slot_len = min_sz(h.ce, half);
    h.in_buf = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    h.slots = -1;
    if (h.p == 1) {
        single(&h);
        return CH4COLL_OK;
    }
    for (j = 0; j < h.ns; j++) {
        stream_t *st = &h.st[j];
        if (all)
            path_allreduce(&t, h.p, j);
        else
            path_reduce(&t, h.p, a->root, j);
        stream_init(st, &t, a->rank);
        st->base = j == 0 ? 0 : half;
        st->len = j == 0 ? half : a->count - half;
        st->tag_red = j * WINDOW;
        st->tag_bc = (h.ns + j) * WINDOW;
        if (npieces(&h, st->len) > kmax)
            kmax = npieces(&h, st->len);
    }
    for (c = 0; c < kmax; c++) /* the streams' pieces interleaved */
        for (j = 0; j < h.ns; j++)
            if (c < npieces(&h, h.st[j].len))
                build_piece(&h, j, c);
    return CH4COLL_OK;
}

int ch4coll_reduce_hampath(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    return hampath(s, a, params, 0);
}

int ch4coll_allreduce_hampath(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    return hampath(s, a, params, 1);
}

/* ---------------------------------------------------------------- cost */

typedef struct {
    int p, ns;
    double K;      /* pieces of all streams */
    double N;      /* bytes of the whole vector */
    double b;      /* bytes of a full piece */
    double tm, tr; /* a full piece: message, reduction */
    double lr;     /* reduction of the last piece of stream A */
} hp_cost_t;

static void cost_terms(hp_cost_t *q, const ch4coll_args_t *a,
                       const int64_t *params, const ch4coll_model_t *m, int all)
{
    size_t half, ce, k;

    q->p = a->size;
    q->ns = nstreams(a, params, all);
    half = (a->count + (size_t) q->ns - 1) / (size_t) q->ns;
    ce = piece_elems(a, params, half);
    k = 1 + (half - 1) / ce;
    q->K = (double) k;
    if (q->ns == 2)
        q->K += (double) (1 + (a->count - half - 1) / ce);
    q->N = ch4coll_nbytes(a, a->count);
    q->b = ch4coll_nbytes(a, min_sz(ce, half));
    q->tm = m->alpha + q->b * m->beta;
    q->tr = q->b * m->gamma;
    q->lr = ch4coll_nbytes(a, half - (k - 1) * ce) * m->gamma;
}

static double max2(double x, double y)
{
    return x > y ? x : y;
}

/*
 * Reduce: a flow shop of p-1 messages and p-1 reductions per piece, every
 * piece through the same stages.  The makespan is the first piece's way
 * to the busiest stage, all pieces through it, the last piece's way on:
 * the root's CPU (N gamma in all) or its receive port (K alpha + N beta),
 * both fed by both streams.
 */
double ch4coll_cost_reduce_hampath(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    hp_cost_t q;
    double cpu, port;

    if (a->count == 0 || a->size == 1)
        return 0;
    cost_terms(&q, a, params, m, 0);
    cpu = (q.p - 1) * q.tm + (q.p - 2) * q.tr + q.N * m->gamma;
    port = (q.p - 2) * (q.tm + q.tr) + q.K * m->alpha + q.N * m->beta + q.lr;
    return max2(cpu, port);
}

/*
 * Allreduce: the first piece of each stream reduced along the path and
 * returned (p-1)(2 t_m + t_r); every further piece costs the busiest rank
 * two messages (a middle rank sends partials one way and results the
 * other) or a reduction.  At p = 2 a rank sends one message per piece and,
 * with two streams, reduces half of them.  With two streams on odd p the
 * streams' first pieces meet at the middle rank, which serves one after
 * the other.
 */
double ch4coll_cost_allreduce_hampath(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    hp_cost_t q;
    double rest, sends, folds, body, cross = 0;

    if (a->count == 0 || a->size == 1)
        return 0;
    cost_terms(&q, a, params, m, 1);
    rest = max2(0, q.N - q.ns * q.b);
    sends = q.p >= 3 ? 2 : 1;
    folds = q.p == 2 && q.ns == 2 ? 0.5 : 1;
    body = max2(sends * ((q.K - q.ns) * m->alpha + rest * m->beta),
                folds * rest * m->gamma);
    if (q.ns == 2 && q.p % 2 == 1)
        cross = max2(q.tm, q.tr);
    return (q.p - 1) * (2 * q.tm + q.tr) + body + cross;
}
