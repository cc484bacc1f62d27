/*
 * two_tree.c - broadcast down two binary trees at once, each carrying half
 * of the message, so that every rank forwards about as much as it gets.
 *
 * Source: Sanders, Speck and Traeff 2009 (two-tree algorithms): the
 * message is split in two halves, each pipelined down one of two binary
 * trees over the non-root ranks in which every interior node of one tree
 * is a leaf of the other; the edges are coloured with two colours so that
 * in every step each rank receives one block and sends one.  (Built from
 * the paper's idea; section numbers not checked against the text.)
 *
 * Trees.  The non-root ranks are positions x = vr - 1 = 0..m-1, m = p - 1,
 * vr = (rank - root) mod p.  T1 is an in-order tree over [0, m): a range
 * [lo, lo + len), lo even, has its top at lo (len 1) or at lo + l1, l1 =
 * floor((len - 1)/2) raised to odd, over [lo, top) and [top + 1, lo + len).
 * So T1's leaves are the even positions, its interior nodes the odd ones,
 * its depth floor(lg m).  T2 is T1 shifted by one (x sits where x + 1 mod m
 * sits in T1): its interior nodes are the even positions below m - 1, so a
 * rank is interior in at most one tree (for odd m, position m - 1 in
 * neither).  Half A (the first floor(n/2) bytes) goes down T1, half B down
 * T2; the root feeds both trees' roots.
 *
 * Colours and steps.  Every position has one in-edge per tree and every
 * sender at most two out-edges, so the edges form alternating paths and
 * even cycles and two colours suffice (Koenig).  The root sends chunk c of
 * tree t in step 2c + colour of its edge; a rank that gets chunk c of its
 * interior tree in step r + 2c forwards it to the child whose edge has the
 * other parity than r in step r + 2c + 1 and to the other in step
 * r + 2c + 2.  Each step, every rank receives and sends at most once.  The
 * DAG runs this self-timed: a rank's sends are chained, and the second
 * child's send also waits for the other tree's chunk of step r + 2c + 1
 * (relay()).
 *
 * Cost (tau = alpha + c beta, c the chunk, K chunks in all): the root
 * sends one chunk per step; the last chunk of tree t, sent in step s_t
 * (about K - 1), takes one step per edge to a first child and two to a
 * second, d_t steps down the deepest path (d_t <= 2 floor(lg m)):
 *   T = max_t (s_t + d_t) tau + tau_last,t  ~  (K + 2 lg p)(alpha + n beta / K)
 * (the pipelined binary tree: (2K + lg p)(alpha + n beta / K)); for large n
 * T tends to n beta, best at K = sqrt(2 lg p n beta / alpha).  The cost
 * function takes the max over every position's path.  p = 2: the root
 * sends both halves to rank 1; p = 1 or n = 0: nothing.
 * Scratch: none (chunks land in place); colouring takes 2(p-1) bytes at
 * build time, O(p log p).  Any p, root, count (n = 1: half A is empty).
 * Parameter: chunk (bytes, default 65536, 1 .. 2^40); at most 2^19 chunks
 * per half (a smaller chunk is raised).  Tags 2t + c mod 2: at most one send
 * and four receives per rank in flight.
 *
 * Worked example, p = 6, root 0, ranks 1..5 at positions 0..4.  T1: 4 ->
 * {2, 5}, 2 -> {1, 3}; T2: 3 -> {1, 4}, 1 -> {5, 2}; rank 5 is a leaf of
 * both.  The steps (A0: chunk 0 of half A):
 *   0: root -> 4 A0
 *   1: root -> 3 B0, 4 -> 2 A0
 *   2: root -> 4 A1, 4 -> 5 A0, 2 -> 3 A0, 3 -> 1 B0
 *   3: root -> 3 B1, 4 -> 2 A1, 2 -> 1 A0, 3 -> 4 B0, 1 -> 5 B0
 *   4: root -> 4 A2, 4 -> 5 A1, 2 -> 3 A1, 3 -> 1 B1, 1 -> 2 B0
 * and so on with period 2.  With k chunks per half rank 2 has the last in
 * step 2(k - 1) + 4: T = (2k + 3) tau = (K + 3) tau.
 */
#include "algo.h"

#include <string.h>

#include "../topo/topo.h"

#define MAX_HALF_CHUNKS (1 << 19) /* per half: 2^20 chunks in all */
#define WINDOW          2

/* Root of the in-order subtree over positions [lo, lo + len), len >= 1, lo
 * even: a leaf (len 1) at lo, else at lo + l1 with l1 = floor((len-1)/2)
 * raised to odd, so that the left subtree has odd size and the right one
 * starts at an even position again. */
static int sub_root(int lo, int len)
{
    return len == 1 ? lo : lo + (((len - 1) / 2) | 1);
}

/*
 * T1 over positions 0..m-1: parent (-1 for the tree's root) and children
 * (-1 where there are none) of position x.  Leaves sit at even positions,
 * interior nodes at odd ones.
 */
static void t1_links(int x, int m, int *parent, int *kid)
{
    int lo = 0, len = m, node = sub_root(0, m), par = -1;

    while (node != x) {
        par = node;
        if (x < node) {
            len = node - lo;
        } else {
            len = lo + len - node - 1;
            lo = node + 1;
        }
        node = sub_root(lo, len);
    }
    *parent = par;
    kid[0] = node > lo ? sub_root(lo, node - lo) : -1;
    kid[1] = node + 1 < lo + len ? sub_root(node + 1, lo + len - node - 1) : -1;
}

/*
 * Tree t (0: T1, 1: T2 = T1 shifted by one position: position x of T2
 * sits where x + 1 mod m sits in T1) of the non-root ranks: parent and
 * children of position x as positions, the parent -1 for the tree's root.
 */
static void tree_links(int t, int x, int m, int *parent, int *kid)
{
    int j, sh = t ? 1 : 0;

    t1_links((x + sh) % m, m, parent, kid);
    if (*parent >= 0)
        *parent = (*parent - sh + m) % m;
    for (j = 0; j < 2; j++)
        if (kid[j] >= 0)
            kid[j] = (kid[j] - sh + m) % m;
}

/* Position of tree t's root. */
static int tree_root(int t, int m)
{
    return (sub_root(0, m) - t + m) % m;
}

/*
 * Edges: e = t m + v is the link into position v in tree t (from its
 * parent, or from the root into the tree's root).  Two edges are
 * neighbours when they share a receiver (other_in) or a sender (sibling).
 */
static int other_in(int e, int m)
{
    return (e + m) % (2 * m);
}

/* The other out-edge of e's sender, or -1. */
static int sibling(int e, int m)
{
    int t = e / m, v = e % m, par, kid[2];

    tree_links(t, v, m, &par, kid);
    if (par < 0) /* the root's other out-edge */
        return (1 - t) * m + tree_root(1 - t, m);
    tree_links(t, par, m, &par, kid);
    if (kid[0] >= 0 && kid[0] != v)
        return t * m + kid[0];
    if (kid[1] >= 0 && kid[1] != v)
        return t * m + kid[1];
    return -1;
}

/* Colour every edge: col[e] for e = t m + v (2m bytes, the caller frees
 * them; NULL if out of memory).  Each component, a path or an even cycle,
 * is coloured alternately from one end (of a path) or from the edge before
 * the first edge seen (of a cycle); every rank gets the same colours. */
static unsigned char *edge_colors(int m)
{
    unsigned char *col = ch4coll_malloc(2 * (size_t) m);
    int e, x, y, r, c;

    if (!col)
        return NULL;
    memset(col, 2, 2 * (size_t) m);
    for (e = 0; e < 2 * m; e++) {
        if (col[e] != 2)
            continue;
        /* towards an end along shared receiver, shared sender, ... */
        for (x = e, r = 1;; x = y, r = !r) {
            y = r ? other_in(x, m) : sibling(x, m);
            if (y < 0 || y == e)
                break;
        }
        /* from there (a path's end: its sibling is missing; or e on a
         * cycle) back along the other way, alternating colours */
        for (c = 0, r = 1; col[x] == 2; c = !c, r = !r) {
            col[x] = (unsigned char) c;
            x = r ? other_in(x, m) : sibling(x, m);
            if (x < 0)
                break;
        }
    }
    return col;
}

/* Step in which the first chunk of tree t reaches position x: the root
 * sends chunk 0 of tree t in step col (its edge's colour), and an edge of
 * colour c carries a chunk in the first step after its sender got it
 * whose parity is c. */
static int first_step(const unsigned char *col, int t, int x, int m)
{
    int lo = 0, len = m, y = (x + t) % m, node = sub_root(0, m);
    int r = col[t * m + (node - t + m) % m];

    while (node != y) {
        if (y < node) {
            len = node - lo;
        } else {
            len = lo + len - node - 1;
            lo = node + 1;
        }
        node = sub_root(lo, len);
        r += ((r + 1) & 1) == col[t * m + (node - t + m) % m] ? 1 : 2;
    }
    return r;
}

/* The builder's chunk after its clamps (nb: the larger half). */
static size_t half_chunk(size_t nb, int64_t param)
{
    size_t chunk = param < 1 ? 1 : (size_t) param;

    if ((nb + chunk - 1) / chunk > MAX_HALF_CHUNKS)
        chunk = (nb + MAX_HALF_CHUNKS - 1) / MAX_HALF_CHUNKS;
    return chunk;
}

typedef struct {
    ch4coll_sched_t *s;
    size_t off[2], len[2]; /* the halves */
    size_t chunk, k[2];    /* chunk bytes, chunks per half */
    int parent[2];         /* ranks; the root's: -1 */
    int kid[2][2];         /* ranks in sending order (-1: none) */
    int step[2];           /* first_step() of this rank per tree */
    size_t nrecv[2];       /* receives emitted per tree */
    int got[2][WINDOW];    /* the last WINDOW receives per tree */
    int last_send;
} tt_t;

static ch4coll_ref_t chunk_at(const tt_t *g, int t, size_t c, size_t *len)
{
    size_t o = c * g->chunk;

    *len = g->len[t] - o < g->chunk ? g->len[t] - o : g->chunk;
    return ch4coll_ref(CH4COLL_BUF_RECV, g->off[t] + o);
}

/* Emit the receives of tree t up to chunk c; returns chunk c's receive. */
static int recv_upto(tt_t *g, int t, size_t c)
{
    size_t len;
    int w, d[1];

    for (; g->nrecv[t] <= c && g->nrecv[t] < g->k[t]; g->nrecv[t]++) {
        ch4coll_ref_t at = chunk_at(g, t, g->nrecv[t], &len);
        w = (int) (g->nrecv[t] % WINDOW);
        g->got[t][w] =
            ch4coll_sched_recv(g->s, at, len, g->parent[t], 2 * t + w,
                               ch4coll_dep1(g->got[t][w], d), d);
    }
    return c < g->k[t] ? g->got[t][c % WINDOW] : -1;
}

/* Send chunk c of tree t to kid after dep1, dep2 and the previous send. */
static void send_chunk(tt_t *g, int t, size_t c, int kid, int dep1, int dep2)
{
    size_t len;
    ch4coll_ref_t at = chunk_at(g, t, c, &len);
    int d[3] = {dep1, dep2, g->last_send};

    g->last_send = ch4coll_sched_send(g->s, at, len, kid,
                                      2 * t + (int) (c % WINDOW), 3, d);
}

/* Links of position x in both trees, as ranks; children in sending
 * order. */
static void links(tt_t *g, const ch4coll_args_t *a, const unsigned char *col,
                  int x)
{
    int p = a->size, m = p - 1, t, j, par, kid[2], swap;

    for (t = 0; t < 2; t++) {
        tree_links(t, x, m, &par, kid);
        g->parent[t] = ch4coll_abs(par >= 0 ? par + 1 : 0, a->root, p);
        g->step[t] = first_step(col, t, x, m);
        g->kid[t][0] = g->kid[t][1] = -1;
        if (kid[0] < 0 && kid[1] < 0)
            continue;
        /* first the child whose edge's colour is not the parity of the
         * steps the chunks come in (kid[0] or a lone kid[1]) */
        swap = kid[0] >= 0 ? col[t * m + kid[0]] == (g->step[t] & 1)
                           : col[t * m + kid[1]] != (g->step[t] & 1);
        for (j = 0; j < 2; j++) {
            int k = kid[swap ? 1 - j : j];
            g->kid[t][j] = k >= 0 ? ch4coll_abs(k + 1, a->root, p) : -1;
        }
    }
}

/* The root: chunk c of tree t in step 2c + colour of tree t's edge. */
static void root_sends(tt_t *g, const ch4coll_args_t *a,
                       const unsigned char *col)
{
    int p = a->size, m = p - 1, first = col[tree_root(0, m)] ? 1 : 0, i, t;
    size_t c;

    for (c = 0; c < g->k[1]; c++)
        for (i = 0; i < 2; i++) {
            t = i ? 1 - first : first;
            if (c < g->k[t])
                send_chunk(g, t, c,
                           ch4coll_abs(1 + tree_root(t, m), a->root, p), -1,
                           -1);
        }
}

/* The receive of chunk c + d of tree u (emitted up to there), or -1. */
static int recv_rel(tt_t *g, int u, size_t c, long d)
{
    long b = (long) c + d;

    return b >= 0 ? recv_upto(g, u, (size_t) b) : -1;
}

/*
 * A rank below the root.  In its interior tree t (if any) chunk c comes in
 * step r + 2c (r = step[t]) and goes to the first child in step r + 2c + 1,
 * after it came; to the second child in step r + 2c + 2, after the chunk
 * of the other tree u that comes in step r + 2c + 1 (its chunk c + sh).
 * That chunk is the rank's clock: without it the send could reach the
 * child while the child still receives from its other parent, and on the
 * one-port model (model/replay.c, first come first served) the early send
 * would hold the sender's port until the child is free, so the schedule
 * would drift towards serialisation.  Sends are chained (one in flight, in
 * step order).  Receives are emitted in step order: chunk c of tree t once
 * chunk c - WINDOW has arrived, on tag 2t + c mod WINDOW.
 */
static void relay(tt_t *g)
{
    int t = -1, u, got, first;
    size_t c;
    long sh;

    for (u = 0; u < 2; u++)
        if (g->kid[u][0] >= 0 || g->kid[u][1] >= 0)
            t = u;
    if (t >= 0) {
        u = 1 - t;
        sh = (g->step[t] + 1 - g->step[u]) / 2; /* the parities differ */
        for (c = 0; c < g->k[t]; c++) {
            recv_rel(g, u, c, sh - 1); /* u's chunks before step r + 2c */
            got = recv_upto(g, t, c);
            if (g->kid[t][0] >= 0)
                send_chunk(g, t, c, g->kid[t][0], got, -1);
            if (g->kid[t][1] >= 0)
                send_chunk(g, t, c, g->kid[t][1], got, recv_rel(g, u, c, sh));
        }
    }
    first = g->step[0] < g->step[1] ? 0 : 1;
    for (c = 0; c < g->k[1]; c++) { /* the remaining receives */
        recv_upto(g, first, c);
        recv_upto(g, 1 - first, c);
    }
}

/* Chunk c on tag c mod WINDOW of its tree's tag range. */
int ch4coll_ntags_bcast_two_tree(const ch4coll_args_t *a, const int64_t *params)
{
    (void) a;
    (void) params;
    return 2 * WINDOW;
}

int ch4coll_bcast_two_tree(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p), t, w;
    size_t n = a->count;
    unsigned char *col;
    tt_t g;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_bcast_two_tree(a, params));
    if (n == 0 || p == 1)
        return CH4COLL_OK;
    col = edge_colors(p - 1);
    if (!col)
        return CH4COLL_ERR_NOMEM;
    g.s = s;
    g.off[0] = 0;
    g.len[0] = n / 2;
    g.off[1] = n / 2;
    g.len[1] = n - n / 2;
    g.chunk = half_chunk(g.len[1], params[0]);
    g.last_send = -1;
    for (t = 0; t < 2; t++) {
        g.k[t] = (g.len[t] + g.chunk - 1) / g.chunk;
        g.nrecv[t] = 0;
        for (w = 0; w < WINDOW; w++)
            g.got[t][w] = -1;
    }
    if (vr == 0) {
        root_sends(&g, a, col);
    } else {
        links(&g, a, col, vr - 1);
        relay(&g);
    }
    ch4coll_free(col);
    return CH4COLL_OK;
}

/*
 * Step in which chunk b, the last one of tree t, reaches position x when
 * the root sends it in step s0: as first_step(), except that a lone child
 * that would wait a step for the other tree's chunk (its clock) gets the
 * chunk at once when that chunk does not exist (ku chunks in tree 1 - t).
 */
static long last_step(const unsigned char *col, int t, int x, int m, size_t b,
                      size_t ku, long s0)
{
    int lo = 0, len = m, y = (x + t) % m, node = sub_root(0, m), up, e;
    int r = col[t * m + (node - t + m) % m], nk;
    long s = s0, clock;

    while (node != y) {
        up = node;
        nk = (node > lo) + (node + 1 < lo + len);
        if (y < node) {
            len = node - lo;
        } else {
            len = lo + len - node - 1;
            lo = node + 1;
        }
        node = sub_root(lo, len);
        e = col[t * m + (node - t + m) % m];
        if (((r + 1) & 1) == e) { /* the first child */
            r++;
            s++;
            continue;
        }
        clock = (long) b +
                (r + 1 - first_step(col, 1 - t, (up - t + m) % m, m)) / 2;
        r += 2;
        s += nk == 2 || (clock >= 0 && clock < (long) ku) ? 2 : 1;
    }
    return s;
}

double ch4coll_cost_bcast_two_tree(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    size_t n = a->count, len[2] = {n / 2, n - n / 2}, chunk, k[2];
    int p = a->size, mm = p - 1, t, x, first;
    unsigned char *col;
    long s0, s, last = 0;
    double tf, tl, best = 0;

    if (n == 0 || p == 1)
        return 0;
    chunk = half_chunk(len[1], params[0]);
    col = edge_colors(mm);
    if (!col)
        return -1;
    first = col[tree_root(0, mm)] ? 1 : 0;
    for (t = 0; t < 2; t++)
        k[t] = (len[t] + chunk - 1) / chunk;
    tf = m->alpha + (double) (chunk < len[1] ? chunk : len[1]) * m->beta;
    for (t = 0; t < 2; t++) {
        if (k[t] == 0)
            continue;
        /* the root's sends before tree t's last chunk */
        s0 = (long) k[t] - 1 +
             (long) (k[1 - t] < k[t] - 1 + (t != first)
                         ? k[1 - t]
                         : k[t] - 1 + (t != first));
        for (x = 0, last = 0; x < mm; x++) {
            s = last_step(col, t, x, mm, k[t] - 1, k[1 - t], s0);
            last = s > last ? s : last;
        }
        tl = m->alpha + (double) (len[t] - (k[t] - 1) * chunk) * m->beta;
        if ((double) last * tf + tl > best)
            best = (double) last * tf + tl;
    }
    ch4coll_free(col);
    return best;
}
