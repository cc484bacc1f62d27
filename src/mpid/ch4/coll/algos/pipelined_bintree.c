/*
 * pipelined_bintree.c - pipelined binary trees: broadcast, and reduce as the
 * inverted broadcast.
 *
 * Source: NEC MPI/SX section 3.3 (a binomial tree for small messages, "a
 * pipelined binary tree algorithm ... for messages beyond a certain
 * threshold", whose time for large m is independent of the number of
 * nodes) and section 3.4 (MPI_Reduce "as an inverted broadcast ...
 * pipelined binary trees are used for longer messages").
 *
 * Broadcast.  The message is cut into chunks of at most `chunk` bytes.  The
 * tree is the binary heap of topo/trees.h over vr = (rank - root) mod p
 * (parent (vr-1)/2, children 2vr+1 and 2vr+2).  A rank forwards chunk c to
 * its children as soon as it has it, while chunk c+1 is on its way.
 * Cost: the root sends every chunk twice, so chunk c reaches heap node i
 * (1-based, i = vr + 1) at 2c tau + h(i) tau, tau = alpha + chunk beta,
 * h(i) = floor(lg i) + popcount(i) - 1 (a second child waits for its
 * sibling's copy).  A shorter last chunk (tau_l) follows right after the
 * previous one:
 *   T = max over nodes of the last chunk's arrival, along each path:
 *       F(node) = max(2(k-2) tau + h tau + kids tau, arrival), child j
 *       (j = 1, 2) gets it at F(parent) + j tau_l;
 *   equal chunks: T = (2(k-1) + max_i h(i)) tau ~ (k + d)(alpha +
 *   2 (n/k) beta), d = floor(lg p), minimal near k = sqrt(d n beta /
 *   (2 alpha)); p = 2: T = (k-1) tau + tau_l.
 * Scratch: none (chunks land in place).  Any p, any root.
 *
 * Worked example, p = 6, root 0, 3 chunks: tree 0 -> 1, 2; 1 -> 3, 4;
 * 2 -> 5.  Step 1: 0 sends chunk 0 to 1 and 2; step 2: 1 and 2 forward it
 * to 3, 4, 5 while 0 sends chunk 1; ...; rank 5 has chunk 2 after step 5 =
 * 3 chunks + depth 2.
 *
 * Reduce.  The vector is cut into pieces of at most `chunk` bytes (whole
 * elements, at least one).  The tree is in-order over the ranks themselves
 * (relative ranks would wrap at the root and break rank order): [0, p) has
 * the root on top, and a subtree [lo, hi) has node lo + (hi - lo - 1)/2 on
 * top over [lo, node) and [node + 1, hi).  A rank with children L and R
 * forms L_c op own_c op R_c per piece: R's piece lands in a slot and own is
 * folded into it, then L's piece from a second slot, and the slot goes to
 * the parent while piece c+1 arrives.  Leaves send their input; the root
 * folds into its receive buffer.  Rank order is kept for every op, and the
 * median choice gives every node with a left child a right child too.
 * Cost: a node with two children hears two parts through one port per
 * piece (2 tau, tau = alpha + c beta) and folds two (2 c gamma): period
 * rho = max(2 tau, 2 c gamma); piece 0 climbs a level in about 2 tau +
 * 2 c gamma.  With k pieces and h = ceil(lg(s + 1)) levels, s = max(root,
 * p - 1 - root) (at most lg p + 1):
 *   T ~ (k - 1) rho + h (2 tau + 2 c gamma),
 * evaluated per subtree size with the leaves streaming ahead, a shorter
 * last piece and the bounds of the port and the CPU.
 * Scratch: two slots of one piece per child.  Any p, root, op, MPI_IN_PLACE.
 *
 * Parameter: chunk (bytes, default 65536, 1 .. 2^40; at most 2^20 chunks, a
 * smaller chunk is raised).  Chunk c uses tag c (bcast), c mod 2 (reduce);
 * each waits for chunk c-2: at most two receives and two sends per child
 * in flight.
 *
 * Worked example, reduce p = 6, root 2: [0, 2) and [3, 6) hang under 2;
 * [0, 2) has 0 on top with right child 1; [3, 6) has 4 on top with
 * children 3 and 5.  Rank 4 folds 3 op 4 op 5, rank 0 folds 0 op 1, and
 * the root 2 forms (0 op 1) op 2 op (3 op 4 op 5), piece by piece.
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../topo/trees.h"

#define MAX_CHUNKS (1 << 20)
#define WINDOW     2

/* Bytes per chunk of n > 0 bytes: the parameter, at least 1, grown to
 * keep at most MAX_CHUNKS chunks. */
static size_t chunk_bytes(size_t n, int64_t param)
{
    size_t chunk = param < 1 ? 1 : (size_t) param;

    if ((n + chunk - 1) / chunk > MAX_CHUNKS)
        chunk = (n + MAX_CHUNKS - 1) / MAX_CHUNKS;
    return chunk;
}

/* Chunk c on tag c. */
int ch4coll_ntags_bcast_pipelined_bintree(const ch4coll_args_t *a,
                                          const int64_t *params)
{
    size_t n = a->count, chunk;

    if (n == 0 || a->size == 1)
        return 1;
    chunk = chunk_bytes(n, params[0]);
    return (int) ((n + chunk - 1) / chunk);
}

/* Chunk c on tag c mod WINDOW. */
int ch4coll_ntags_reduce_pipelined_bintree(const ch4coll_args_t *a,
                                           const int64_t *params)
{
    (void) a;
    (void) params;
    return WINDOW;
}

int ch4coll_bcast_pipelined_bintree(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p);
    int up = ch4coll_heap_parent(vr), nkids = ch4coll_heap_nchildren(vr, p);
    int parent = up >= 0 ? ch4coll_abs(up, a->root, p) : -1, kids[2], c, j;
    size_t n = a->count, chunk, nchunks;
    int *got, *sent;
    int d[2];

    ch4coll_sched_set_ntags(s,
                            ch4coll_ntags_bcast_pipelined_bintree(a, params));
    if (n == 0 || p == 1)
        return CH4COLL_OK;
    chunk = chunk_bytes(n, params[0]);
    nchunks = (n + chunk - 1) / chunk;
    for (j = 0; j < nkids; j++)
        kids[j] = ch4coll_abs(ch4coll_heap_child(vr, p, j), a->root, p);
    /* build-time memory: the last vertices per chunk (receive, sends) */
    got = ch4coll_malloc(nchunks * sizeof *got);
    sent = ch4coll_malloc(2 * nchunks * sizeof *sent);
    if (!got || !sent) {
        ch4coll_free(got);
        ch4coll_free(sent);
        return CH4COLL_ERR_NOMEM;
    }
    for (c = 0; c < (int) nchunks; c++) {
        size_t off = (size_t) c * chunk,
               len = n - off < chunk ? n - off : chunk;
        ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_RECV, off);
        got[c] = -1;
        if (parent >= 0)
            got[c] = ch4coll_sched_recv(
                s, at, len, parent, c,
                ch4coll_dep1(c >= WINDOW ? got[c - WINDOW] : -1, d), d);
        for (j = 0; j < nkids; j++) {
            d[0] = got[c];
            d[1] = c >= WINDOW ? sent[2 * (c - WINDOW) + j] : -1;
            sent[2 * c + j] = ch4coll_sched_send(s, at, len, kids[j], c, 2, d);
        }
    }
    ch4coll_free(got);
    ch4coll_free(sent);
    return CH4COLL_OK;
}

/* ---------------------------------------------------------------- reduce */

/*
 * The in-order tree: parent and children of rank, -1 where there are none.
 * Descends from the root through the subtrees containing rank.
 */
static void inorder_links(int rank, int root, int p, int *parent, int *left,
                          int *right)
{
    int lo = 0, hi = p, node = root, par = -1;

    while (node != rank) {
        par = node;
        if (rank < node)
            hi = node;
        else
            lo = node + 1;
        node = lo + (hi - lo - 1) / 2;
    }
    *parent = par;
    *left = lo < node ? lo + (node - lo - 1) / 2 : -1;
    *right = node + 1 < hi ? node + 1 + (hi - node - 2) / 2 : -1;
}

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int parent, left, right;
    size_t ce;         /* piece length in elements */
    int slotl, slotr;  /* scratch of WINDOW pieces each, or -1 */
    int lread[WINDOW]; /* last reader of each left slot */
    int rfree[WINDOW]; /* last use of each right slot (or of the place a
                        * right piece is received into) */
    int sent[WINDOW];  /* sends to the parent */
    int lastfold;      /* the latest fold: folds run in piece order */
} red_t;

static ch4coll_ref_t at_elem(const red_t *g, int buf, size_t i)
{
    return ch4coll_ref(buf, ch4coll_eoff(g->a, i));
}

/* inout = in op inout after dep and after the previous fold, so that the
 * pieces are folded (and forwarded) in order. */
static int fold(red_t *g, ch4coll_ref_t in, ch4coll_ref_t inout, size_t len,
                int dep1, int dep2)
{
    int d[3] = {dep1, dep2, g->lastfold};

    g->lastfold = ch4coll_sched_reduce(g->s, in, inout, len, 3, d);
    return g->lastfold;
}

/* Receive the left child's piece c into its slot. */
static int recv_left(red_t *g, int c, size_t len)
{
    int d[1], w = c % WINDOW;

    return ch4coll_sched_recv(g->s, at_elem(g, g->slotl, (size_t) w * g->ce),
                              len, g->left, w, ch4coll_dep1(g->lread[w], d), d);
}

/* Piece c at a rank below the root: L op own op R into the right slot
 * (leaves send their input), then to the parent. */
static void piece_inner(red_t *g, int c, size_t off, size_t len)
{
    int w = c % WINDOW, fin = -1, v, d[2];
    ch4coll_ref_t own = at_elem(g, CH4COLL_BUF_SEND, off), acc = own;
    ch4coll_ref_t sl = at_elem(g, g->slotl, (size_t) w * g->ce);

    if (g->left >= 0 || g->right >= 0) {
        acc = at_elem(g, g->slotr, (size_t) w * g->ce);
        if (g->right >= 0) { /* own op R */
            v = ch4coll_sched_recv(g->s, acc, len, g->right, w,
                                   ch4coll_dep1(g->rfree[w], d), d);
            fin = fold(g, own, acc, len, v, -1);
        } else { /* not built by the in-order tree; kept for safety */
            fin = ch4coll_sched_copy(g->s, own, acc, len,
                                     ch4coll_dep1(g->rfree[w], d), d);
        }
        if (g->left >= 0) { /* L op that */
            fin = fold(g, sl, acc, len, recv_left(g, c, len), fin);
            g->lread[w] = fin;
        }
    }
    d[0] = fin;
    d[1] = g->sent[w];
    g->sent[w] = ch4coll_sched_send(g->s, acc, len, g->parent, w, 2, d);
    g->rfree[w] = g->sent[w];
}

/* Piece c at the root: L op own op R into the receive buffer.  Not in
 * place, R's piece lands there and own, then L are folded in; in place
 * (own already there) L is folded in place and R's piece through its
 * slot, with a copy back when the op is not commutative.  No rank needs
 * its own input copied, except the root without a right child, not in
 * place: one copy to the receive buffer. */
static void piece_root(red_t *g, int c, size_t off, size_t len)
{
    int w = c % WINDOW, fin = -1, v, d[2];
    ch4coll_ref_t res = at_elem(g, CH4COLL_BUF_RECV, off);
    ch4coll_ref_t own = at_elem(g, CH4COLL_BUF_SEND, off);
    ch4coll_ref_t sl = at_elem(g, g->slotl, (size_t) w * g->ce);
    ch4coll_ref_t sr = at_elem(g, g->slotr, (size_t) w * g->ce);

    if (!g->a->inplace) { /* own op R into place */
        if (g->right >= 0) {
            v = ch4coll_sched_recv(g->s, res, len, g->right, w,
                                   ch4coll_dep1(g->rfree[w], d), d);
            g->rfree[w] = v;
            fin = fold(g, own, res, len, v, -1);
        } else {
            fin = ch4coll_sched_copy(g->s, own, res, len, 0, NULL);
        }
    }
    if (g->left >= 0) { /* L op (own [op R]), in place */
        fin = fold(g, sl, res, len, recv_left(g, c, len), fin);
        g->lread[w] = fin;
    }
    if (g->a->inplace && g->right >= 0) { /* ([L op] own) op R */
        v = ch4coll_sched_recv(g->s, sr, len, g->right, w,
                               ch4coll_dep1(g->rfree[w], d), d);
        if (g->a->commutative) {
            fin = fold(g, sr, res, len, v, fin);
        } else {
            v = fold(g, res, sr, len, v, fin);
            fin = ch4coll_sched_copy(g->s, sr, res, len, 1, &v);
        }
        g->rfree[w] = fin;
    }
}

/* Piece length in elements: at most chunk bytes of data, at least one
 * element, at most MAX_CHUNKS pieces. */
static size_t piece_elems(const ch4coll_args_t *a, int64_t chunk)
{
    size_t ce = (size_t) chunk / (a->elem.size ? a->elem.size : 1);

    if (ce < 1)
        ce = 1;
    if ((a->count + ce - 1) / ce > MAX_CHUNKS)
        ce = (a->count + MAX_CHUNKS - 1) / MAX_CHUNKS;
    return ce < a->count ? ce : a->count;
}

int ch4coll_reduce_pipelined_bintree(ch4coll_sched_t *s,
                                     const ch4coll_args_t *a,
                                     const int64_t *params)
{
    int c, w, root = a->rank == a->root;
    size_t n = a->count, off;
    red_t g;

    ch4coll_sched_set_ntags(s,
                            ch4coll_ntags_reduce_pipelined_bintree(a, params));
    if (n == 0)
        return CH4COLL_OK;
    if (a->size == 1) {
        if (!a->inplace)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                               ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, NULL);
        return CH4COLL_OK;
    }
    g.s = s;
    g.a = a;
    g.ce = piece_elems(a, params[0]);
    inorder_links(a->rank, a->root, a->size, &g.parent, &g.left, &g.right);
    g.slotl = g.left >= 0 ? ch4coll_sched_scratch(s, WINDOW * g.ce) : -1;
    g.slotr = (!root && (g.left >= 0 || g.right >= 0)) ||
                      (root && a->inplace && g.right >= 0)
                  ? ch4coll_sched_scratch(s, WINDOW * g.ce)
                  : -1;
    for (w = 0; w < WINDOW; w++)
        g.lread[w] = g.rfree[w] = g.sent[w] = -1;
    g.lastfold = -1;
    for (c = 0, off = 0; off < n; c++, off += g.ce) {
        size_t len = n - off < g.ce ? n - off : g.ce;
        if (root)
            piece_root(&g, c, off, len);
        else
            piece_inner(&g, c, off, len);
    }
    return CH4COLL_OK;
}

/* ----------------------------------------------------------------- costs */

/* Chunk bytes of the broadcast builder, after its clamps. */
static size_t bcast_chunk(size_t n, int64_t param)
{
    size_t chunk = param < 1 ? 1 : (size_t) param;

    if ((n + chunk - 1) / chunk > MAX_CHUNKS)
        chunk = (n + MAX_CHUNKS - 1) / MAX_CHUNKS;
    return chunk;
}

/* Arrival of the last chunk at heap node i (1-based), walking the path
 * from the root (see the opening note). */
static double bcast_last_arrival(int i, int p, int k, double tf, double tl)
{
    int bit, node = 1, h = 0;
    double arr = 0;

    for (bit = ch4coll_ceil_log2(i + 1) - 2; bit >= 0; bit--) {
        int child = 2 * node + ((i >> bit) & 1);
        int nk = (2 * node + 1 <= p) + (2 * node <= p);
        double f = arr;
        if (k >= 2 && 2.0 * (k - 2) * tf + h * tf + nk * tf > f)
            f = 2.0 * (k - 2) * tf + h * tf + nk * tf;
        arr = f + (1 + (child & 1)) * tl;
        h += 1 + (child & 1);
        node = child;
    }
    return arr;
}

double ch4coll_cost_bcast_pipelined_bintree(const ch4coll_args_t *a,
                                            const int64_t *params,
                                            const ch4coll_model_t *m)
{
    size_t n = a->count, chunk, k;
    double tf, tl, t = 0;
    int p = a->size, i;

    if (n == 0 || p == 1)
        return 0;
    chunk = bcast_chunk(n, params[0]);
    k = (n + chunk - 1) / chunk;
    tl = m->alpha + (double) (n - (k - 1) * chunk) * m->beta;
    tf = k == 1 ? tl : m->alpha + (double) chunk * m->beta;
    if (p == 2)
        return (double) (k - 1) * tf + tl;
    for (i = p / 2 + 1; i <= p; i++) { /* the leaves */
        double x = bcast_last_arrival(i, p, (int) k, tf, tl);
        t = x > t ? x : t;
    }
    return t;
}

/*
 * Reduce cost: the replay of the tree in closed form.  A subtree's top has
 * piece 0 ready to send at f0, piece k-2 at pen and the last piece at last
 * (a leaf: 0, (k-2) tau and (k-1) tau, its sends back to back).  A node
 * hears its children through one port: the child ready first (ties: the
 * left, lower ranks, whose vertices the executor issues first) gets
 * through first, and a leaf keeps WINDOW pieces reserved ahead on the port
 * while it streams.  Piece 0 is folded as the builder orders it (R then L;
 * the in-place root L then R).  Pieces k-2 and k-1 are ready when their
 * children's parts are in and folded, the last one after piece k-2's
 * folds (folds run in piece order), and neither earlier than the port
 * and the CPU allow: the port busy from the first child send with one
 * receive per child and piece, the CPU from the first fold with one fold
 * per child and piece.
 */
typedef struct {
    double tf, rf; /* a full piece: transfer, fold */
    double tl, rl; /* the last piece */
    size_t k;      /* pieces */
} rq_t;

typedef struct {
    int len;
    double f0, pen, last;
} rs_t;

#define RS_MEMO 192

typedef struct {
    const rq_t *q;
    rs_t memo[RS_MEMO];
    int n;
} rmemo_t;

static double dmax(double x, double y)
{
    return x > y ? x : y;
}

/* Arrival of piece 0 of child y, heard after child x's. */
static double second_in(const rq_t *q, const rs_t *x, const rs_t *y)
{
    double free = x->f0 + q->tf;

    if (x->len == 1) { /* a streaming leaf reserved WINDOW pieces ahead */
        double ahead = y->f0 + WINDOW * q->tf, busy = (double) q->k * q->tf;
        free = dmax(free, ahead < busy ? ahead : busy);
    }
    return dmax(y->f0, free) + q->tf;
}

/* Ready time of a piece whose children's parts arrive at al, ar (< 0:
 * no such child), folded in the builder's order with fold time red. */
static double folded(double al, double ar, double red, int lfirst)
{
    if (al < 0)
        return ar + red;
    if (ar < 0)
        return al + red;
    if (lfirst)
        return dmax(al + red, ar) + red;
    return dmax(ar + red, al) + red;
}

/* Arrivals of one late piece (children ready at tl_, tr_; < 0: no such
 * child), transfer t each, the later one not before port_end. */
static double late_piece(double tl_, double tr_, double t, double port_end,
                         double red, int lfirst)
{
    double al = tl_ >= 0 ? tl_ + t : -1, ar = tr_ >= 0 ? tr_ + t : -1;

    if (al >= 0 && ar >= 0) {
        if (ar < al)
            al = dmax(dmax(al, ar + t), port_end);
        else
            ar = dmax(dmax(ar, al + t), port_end);
    } else if (al >= 0) {
        al = dmax(al, port_end);
    } else {
        ar = dmax(ar, port_end);
    }
    return folded(al, ar, red, lfirst);
}

/* The stream of a node with children l, r (either NULL). */
static rs_t node_stream(const rq_t *q, int len, const rs_t *l, const rs_t *r,
                        int lfirst)
{
    rs_t s = {len, 0, 0, 0};
    int nk = (l != NULL) + (r != NULL);
    double k1 = (double) q->k - 1, start, cpu0;

    if (l && r) {
        double al, ar;
        if (r->f0 < l->f0) {
            ar = r->f0 + q->tf;
            al = second_in(q, r, l);
        } else {
            al = l->f0 + q->tf;
            ar = second_in(q, l, r);
        }
        s.f0 = folded(al, ar, q->rf, lfirst);
        start = l->f0 < r->f0 ? l->f0 : r->f0;
    } else {
        start = (l ? l : r)->f0;
        s.f0 = start + q->tf + q->rf;
    }
    cpu0 = s.f0 - nk * q->rf; /* the first fold starts */
    if (q->k == 1) {
        s.pen = s.last = s.f0;
        return s;
    }
    s.pen = s.f0;
    if (q->k > 2)
        s.pen = dmax(late_piece(l ? l->pen : -1, r ? r->pen : -1, q->tf,
                                start + nk * k1 * q->tf, q->rf, lfirst),
                     cpu0 + nk * k1 * q->rf);
    /* a child sends its last piece after its piece k-2 */
    s.last = late_piece(l ? dmax(l->last, l->pen + q->tf) : -1,
                        r ? dmax(r->last, r->pen + q->tf) : -1, q->tl,
                        start + nk * (k1 * q->tf + q->tl), q->rl, lfirst);
    s.last = dmax(s.last, s.pen + nk * q->rl);
    s.last = dmax(s.last, cpu0 + nk * (k1 * q->rf + q->rl));
    return s;
}

/* The stream of an in-order subtree of len ranks (len >= 1). */
static rs_t sub_stream(rmemo_t *mm, int len)
{
    rs_t s = {len, 0, 0, 0}, l, r;
    int i, a = (len - 1) / 2;

    for (i = 0; i < mm->n; i++)
        if (mm->memo[i].len == len)
            return mm->memo[i];
    if (len == 1) {
        s.pen = mm->q->k >= 2 ? (double) (mm->q->k - 2) * mm->q->tf : 0;
        s.last = (double) (mm->q->k - 1) * mm->q->tf;
    } else {
        r = sub_stream(mm, len - 1 - a);
        if (a > 0)
            l = sub_stream(mm, a);
        s = node_stream(mm->q, len, a > 0 ? &l : NULL, &r, 0);
    }
    if (mm->n < RS_MEMO)
        mm->memo[mm->n++] = s;
    return s;
}

double ch4coll_cost_reduce_pipelined_bintree(const ch4coll_args_t *a,
                                             const int64_t *params,
                                             const ch4coll_model_t *m)
{
    size_t n = a->count, ce;
    int p = a->size, root = a->root;
    double bf, bl;
    rmemo_t mm;
    rs_t l, r;
    rq_t q;

    if (n == 0 || p == 1)
        return 0;
    ce = piece_elems(a, params[0]);
    q.k = (n + ce - 1) / ce;
    bl = ch4coll_nbytes(a, n - (q.k - 1) * ce);
    bf = q.k == 1 ? bl : ch4coll_nbytes(a, ce);
    q.tf = m->alpha + bf * m->beta;
    q.rf = bf * m->gamma;
    q.tl = m->alpha + bl * m->beta;
    q.rl = bl * m->gamma;
    mm.q = &q;
    mm.n = 0;
    if (root > 0)
        l = sub_stream(&mm, root);
    if (root < p - 1)
        r = sub_stream(&mm, p - 1 - root);
    return node_stream(&q, p, root > 0 ? &l : NULL, root < p - 1 ? &r : NULL,
                       a->inplace)
        .last;
}
