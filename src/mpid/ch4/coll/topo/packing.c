/*
 * packing.c - the disjoint spanning trees of packing.h: the placement's
 * links as a digraph, Edmonds' count by max flows, Lovász's growth.
 *
 * The max flows have unit capacities and stop at the k they test, so
 * each is at most k breadth-first searches of the residual graph (free
 * arcs without flow forward, free arcs with flow backward).
 */
#include "packing.h"

#include <stdlib.h>
#include <string.h>

/* The placement's links: arc a runs tail[a] -> head[a]; out[v][..] and
 * in[v][..] list v's arcs (-1 past the last); owner[a] is the tree that
 * holds a, -1 if free.  Work arrays for the flows. */
typedef struct {
    int n, narcs;
    int *tail, *head, *owner, *flow;
    int (*out)[CH4COLL_PACKING_MAXKIDS], (*in)[CH4COLL_PACKING_MAXKIDS];
    int *queue, *via, *seen; /* via: arc + 1 forward, -(arc + 1) back */
    int *order;              /* the growing tree's nodes, breadth first */
    int stamp;
} pk_graph_t;

/* Host h's neighbour one step along dimension d (0 x, 1 y, 2 z) in
 * direction dir, or -1 when it is not in the set or is h itself. */
static int pk_neighbour(int h, int d, int dir, int n, int x_len, int y_len)
{
    int x = h % x_len, y = h / x_len % y_len, z = h / x_len / y_len, g;

    if (d == 0)
        x = (x + dir + x_len) % x_len;
    else if (d == 1)
        y = (y + dir + y_len) % y_len;
    else
        z += dir;
    g = (z * y_len + y) * x_len + x;
    return z < 0 || g >= n || g == h ? -1 : g;
}

static void pk_add_arc(pk_graph_t *g, int u, int v)
{
    int a = g->narcs++, i;

    g->tail[a] = u;
    g->head[a] = v;
    g->owner[a] = -1;
    for (i = 0; g->out[u][i] >= 0; i++)
        ;
    g->out[u][i] = a;
    for (i = 0; g->in[v][i] >= 0; i++)
        ;
    g->in[v][i] = a;
}

/* Host h's links to the others: its distinct neighbours in the set, in
 * the order x +1, x -1, y +1, y -1, z +1, z -1 (x_len or y_len 2: both
 * ways are one link); their count. */
static int pk_links(int h, int n, int x_len, int y_len, int *nb)
{
    int m = 0, d, dir, v, i, dup;

    for (d = 0; d < 3; d++)
        for (dir = 1; dir >= -1; dir -= 2) {
            v = pk_neighbour(h, d, dir, n, x_len, y_len);
            for (i = 0, dup = 0; i < m; i++)
                dup |= nb[i] == v;
            if (v >= 0 && !dup)
                nb[m++] = v;
        }
    return m;
}

int ch4coll_packing_degree(int n, int64_t x_len, int64_t y_len)
{
    int h, m, least = CH4COLL_PACKING_MAXKIDS, nb[CH4COLL_PACKING_MAXKIDS];

    if (n < 2 || x_len < 1)
        return 0;
    for (h = 0; h < n; h++) {
        m = pk_links(h, n, (int) x_len, y_len > 1 ? (int) y_len : 1, nb);
        least = m < least ? m : least;
    }
    return least;
}

static void pk_graph_free(pk_graph_t *g)
{
    free(g->tail);
    free(g->head);
    free(g->owner);
    free(g->flow);
    free(g->out);
    free(g->in);
    free(g->queue);
    free(g->via);
    free(g->seen);
    free(g->order);
}

static int pk_graph_open(pk_graph_t *g, int n, int x_len, int y_len)
{
    size_t amax = (size_t) n * CH4COLL_PACKING_MAXKIDS;
    int h, i, m, nb[CH4COLL_PACKING_MAXKIDS];

    memset(g, 0, sizeof(*g));
    g->n = n;
    g->tail = malloc(amax * sizeof(int));
    g->head = malloc(amax * sizeof(int));
    g->owner = malloc(amax * sizeof(int));
    g->flow = malloc(amax * sizeof(int));
    g->out = malloc((size_t) n * sizeof(*g->out));
    g->in = malloc((size_t) n * sizeof(*g->in));
    g->queue = malloc((size_t) n * sizeof(int));
    g->via = malloc((size_t) n * sizeof(int));
    g->seen = calloc((size_t) n, sizeof(int));
    g->order = malloc((size_t) n * sizeof(int));
    if (!g->tail || !g->head || !g->owner || !g->flow || !g->out || !g->in ||
        !g->queue || !g->via || !g->seen || !g->order) {
        pk_graph_free(g);
        return -1;
    }
    memset(g->out, -1, (size_t) n * sizeof(*g->out));
    memset(g->in, -1, (size_t) n * sizeof(*g->in));
    for (h = 0; h < n; h++)
        for (i = 0, m = pk_links(h, n, x_len, y_len, nb); i < m; i++)
            pk_add_arc(g, h, nb[i]);
    return 0;
}

/* One augmenting path from the marked sources to sink over free arcs;
 * 1 if found (and the flow moved along it). */
static int pk_augment(pk_graph_t *g, const int *src, int nsrc, int sink)
{
    int qh = 0, qt = 0, i, x, a, y, stamp = ++g->stamp;

    for (i = 0; i < nsrc; i++) {
        g->seen[src[i]] = stamp;
        g->via[src[i]] = 0;
        g->queue[qt++] = src[i];
    }
    while (qh < qt && g->seen[sink] != stamp) {
        x = g->queue[qh++];
        for (i = 0; i < CH4COLL_PACKING_MAXKIDS; i++) {
            a = g->out[x][i]; /* forward along a free arc without flow */
            if (a >= 0 && g->owner[a] < 0 && !g->flow[a] &&
                g->seen[y = g->head[a]] != stamp) {
                g->seen[y] = stamp;
                g->via[y] = a + 1;
                g->queue[qt++] = y;
            }
            a = g->in[x][i]; /* back along a free arc with flow */
            if (a >= 0 && g->owner[a] < 0 && g->flow[a] &&
                g->seen[y = g->tail[a]] != stamp) {
                g->seen[y] = stamp;
                g->via[y] = -(a + 1);
                g->queue[qt++] = y;
            }
        }
    }
    if (g->seen[sink] != stamp)
        return 0;
    for (x = sink; g->via[x] != 0;) {
        a = g->via[x] > 0 ? g->via[x] - 1 : -g->via[x] - 1;
        g->flow[a] = g->via[x] > 0;
        x = g->via[x] > 0 ? g->tail[a] : g->head[a];
    }
    return 1;
}

/* The disjoint paths over free arcs from the sources to sink, counted up
 * to need. */
static int pk_flow(pk_graph_t *g, const int *src, int nsrc, int sink, int need)
{
    int f = 0;

    memset(g->flow, 0, (size_t) g->narcs * sizeof(int));
    while (f < need && pk_augment(g, src, nsrc, sink))
        f++;
    return f;
}

/* The order in which node u tries its arcs: as built (seed 0), or
 * shuffled by a linear congruential generator (the same on every rank). */
static int pk_arc_order(const pk_graph_t *g, int u, unsigned *seed, int *arcs)
{
    int m = 0, i, j, tmp;

    while (m < CH4COLL_PACKING_MAXKIDS && g->out[u][m] >= 0) {
        arcs[m] = g->out[u][m];
        m++;
    }
    for (i = m - 1; *seed && i > 0; i--) {
        *seed = *seed * 1103515245u + 12345u;
        j = (int) ((*seed >> 16) % (unsigned) (i + 1));
        tmp = arcs[i];
        arcs[i] = arcs[j];
        arcs[j] = tmp;
    }
    return m;
}

/* Tree t grown from root breadth first by arcs that leave every node
 * need - 1 free paths (need 1: any free arc); parent[v] its result.
 * 1 if it spans every node (Lovász: always, when need is the count). */
static int pk_grow(pk_graph_t *g, int t, int root, int need, unsigned *seed,
                   int *parent)
{
    int qh = 0, qt = 0, i, m, u, v, a, src[2], arcs[CH4COLL_PACKING_MAXKIDS];

    for (v = 0; v < g->n; v++)
        parent[v] = -2; /* not reached yet */
    parent[root] = -1;
    g->order[qt++] = root;
    while (qh < qt) { /* Lovász: the queue never runs dry early */
        u = g->order[qh++];
        m = pk_arc_order(g, u, seed, arcs);
        for (i = 0; i < m; i++) {
            a = arcs[i];
            v = g->head[a];
            if (g->owner[a] >= 0 || parent[v] != -2)
                continue;
            src[0] = root;
            src[1] = u;
            if (need > 1 && pk_flow(g, src, u == root ? 1 : 2, v, need) < need)
                continue;
            g->owner[a] = t;
            parent[v] = u;
            g->order[qt++] = v;
        }
    }
    return qt == g->n;
}

/* k trees into parent (k n), the arcs tried in the order of seed: the
 * deepest node's hops, or -1 if a tree came out short (not reached). */
static int pk_pack(pk_graph_t *g, int root, int k, unsigned seed, int *parent)
{
    ch4coll_packing_t pk = {g->n, k, parent};
    int t;

    for (t = 0; t < g->narcs; t++)
        g->owner[t] = -1;
    for (t = 0; t < k; t++)
        if (!pk_grow(g, t, root, k - t, &seed,
                     parent + (size_t) t * (size_t) g->n))
            return -1;
    return ch4coll_packing_depth(&pk);
}

/* The most trees: the smallest r -> v cut over all v, capped at k. */
static int pk_count(pk_graph_t *g, int root, int k)
{
    int v, f;

    for (v = 0; v < g->n && k > 0; v++)
        if (v != root) {
            f = pk_flow(g, &root, 1, v, k);
            k = f < k ? f : k;
        }
    return k;
}

/* kmax within 1 .. CH4COLL_PACKING_MAXK. */
static int pk_kmax(int kmax)
{
    return kmax < 1                      ? 1
           : kmax > CH4COLL_PACKING_MAXK ? CH4COLL_PACKING_MAXK
                                         : kmax;
}

int ch4coll_packing_build(ch4coll_packing_t *pk, int n, int64_t x_len,
                          int64_t y_len, int root, int kmax)
{
    pk_graph_t g;
    int k, depth, best = -1, tries = n <= 128 ? 8 : 1;
    unsigned seed;
    int *work = NULL;

    pk->n = n;
    pk->k = 0;
    pk->parent = NULL;
    if (n < 2 || x_len < 1 || root < 0 || root >= n)
        return 0;
    if (pk_graph_open(&g, n, (int) x_len, y_len > 1 ? (int) y_len : 1))
        return -1;
    k = pk_count(&g, root, pk_kmax(kmax));
    if (k > 0) {
        pk->parent = malloc((size_t) k * (size_t) n * sizeof(int));
        work = malloc((size_t) k * (size_t) n * sizeof(int));
    }
    if (k > 0 && (!pk->parent || !work)) {
        free(pk->parent);
        free(work);
        pk->parent = NULL;
        pk_graph_free(&g);
        return -1;
    }
    for (seed = 0; seed < (unsigned) tries && k > 0; seed++) {
        depth = pk_pack(&g, root, k, seed, work);
        if (depth >= 0 && (best < 0 || depth < best)) {
            best = depth;
            memcpy(pk->parent, work, (size_t) k * (size_t) n * sizeof(int));
        }
    }
    pk->k = best >= 0 ? k : 0;
    free(work);
    pk_graph_free(&g);
    return 0;
}

int ch4coll_packing_count(int n, int64_t x_len, int64_t y_len, int root,
                          int kmax)
{
    pk_graph_t g;
    int k;

    if (n < 2 || x_len < 1 || root < 0 || root >= n)
        return 0;
    if (pk_graph_open(&g, n, (int) x_len, y_len > 1 ? (int) y_len : 1))
        return -1;
    k = pk_count(&g, root, pk_kmax(kmax));
    pk_graph_free(&g);
    return k;
}

void ch4coll_packing_free(ch4coll_packing_t *pk)
{
    free(pk->parent);
    pk->parent = NULL;
    pk->k = 0;
}

int ch4coll_packing_kids(const ch4coll_packing_t *pk, int t, int v, int *kids)
{
    const int *parent = pk->parent + (size_t) t * (size_t) pk->n;
    int w, m = 0;

    for (w = 0; w < pk->n && m < CH4COLL_PACKING_MAXKIDS; w++)
        if (parent[w] == v)
            kids[m++] = w;
    return m;
}

int ch4coll_packing_depth(const ch4coll_packing_t *pk)
{
    int t, v, w, d, deepest = 0;

    for (t = 0; t < pk->k; t++)
        for (v = 0; v < pk->n; v++) {
            const int *parent = pk->parent + (size_t) t * (size_t) pk->n;

            for (d = 0, w = v; parent[w] >= 0; w = parent[w])
                d++;
            deepest = d > deepest ? d : deepest;
        }
    return deepest;
}
