/*
 * packing.c - the disjoint spanning trees of packing.h: the placement's
 * links as a digraph, Edmonds' count by max flows, Lovász's growth of
 * all the trees together.
 *
 * The max flows have unit capacities and stop at the k they test, so
 * each is at most k breadth-first searches of the residual graph (free
 * arcs without flow forward, free arcs with flow backward), each from
 * the sink back to the first tree whose unit is still unused.
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
    int *queue, *step, *seen; /* pk_augment's search, nodes and sources */
    int src_at[CH4COLL_PACKING_MAXK], src_step[CH4COLL_PACKING_MAXK];
    int src_seen[CH4COLL_PACKING_MAXK];
    int *trees;        /* parents of the trees being grown (k n) */
    int *list, *depth; /* per tree: its nodes by depth, their depth */
    int size[CH4COLL_PACKING_MAXK]; /* per tree: its nodes */
    int *refused;                   /* per arc: the sticky mark when refused */
    int stamp, sticky, gen;         /* gen: the last sticky mark handed out */
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
    free(g->step);
    free(g->seen);
    free(g->trees);
    free(g->list);
    free(g->depth);
    free(g->refused);
}

static int pk_graph_open(pk_graph_t *g, int n, int x_len, int y_len)
{
    size_t amax = (size_t) n * CH4COLL_PACKING_MAXKIDS;
    size_t tmax = (size_t) n * CH4COLL_PACKING_MAXK;
    int h, i, m, nb[CH4COLL_PACKING_MAXKIDS];

    memset(g, 0, sizeof(*g));
    g->n = n;
    g->tail = malloc(amax * sizeof(int));
    g->head = malloc(amax * sizeof(int));
    g->owner = malloc(amax * sizeof(int));
    g->flow = malloc(amax * sizeof(int));
    g->out = malloc((size_t) n * sizeof(*g->out));
    g->in = malloc((size_t) n * sizeof(*g->in));
    g->queue = malloc(((size_t) n + CH4COLL_PACKING_MAXK) * sizeof(int));
    g->step = malloc((size_t) n * sizeof(int));
    g->seen = calloc((size_t) n, sizeof(int));
    g->trees = malloc(tmax * sizeof(int));
    g->list = malloc(tmax * sizeof(int));
    g->depth = malloc(tmax * sizeof(int));
    g->refused = calloc(amax, sizeof(int));
    if (!g->tail || !g->head || !g->owner || !g->flow || !g->out || !g->in ||
        !g->queue || !g->step || !g->seen || !g->trees || !g->list ||
        !g->depth || !g->refused) {
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

/* One augmenting path to sink from the trees' sources: source s_t
 * (t < k) holds one unit and hands it at no cost to any node of tree t
 * (trees[t n + v] != -2), src_at[t] the node it went to (-1: unused);
 * units move over free arcs.  The search runs backwards from sink over
 * the residual arcs and stops at the first node of a tree whose unit is
 * unused, so that a sink next to the trees costs a few steps.  step[x]
 * is the residual arc x leaves by towards sink: arc + 1 forward (no flow
 * yet), -(arc + 1) back (cancels a unit), or narcs + 1 + t to s_t (x =
 * src_at[t], giving s_t's unit up); src_step[t] the node s_t hands its
 * unit to instead.  1 if found (and the flow moved along it). */
static int pk_augment(pk_graph_t *g, int k, int sink)
{
    const int *tree = g->trees;
    int qh = 0, qt = 0, i, t, x, a, y, n = g->n, from = -1;
    int stamp = ++g->stamp;

    g->seen[sink] = stamp;
    g->step[sink] = 0;
    g->queue[qt++] = sink;
    while (qh < qt && from < 0) {
        x = g->queue[qh++];
        if (x >= n) { /* s_t: back to the node its unit went to */
            y = g->src_at[t = x - n];
            if (y >= 0 && g->seen[y] != stamp) {
                g->seen[y] = stamp;
                g->step[y] = g->narcs + 1 + t;
                g->queue[qt++] = y;
            }
            continue;
        }
        for (t = 0; t < k && from < 0; t++) /* the sources that reach x */
            if (tree[(size_t) t * (size_t) n + x] != -2 &&
                g->src_seen[t] != stamp) {
                g->src_seen[t] = stamp;
                g->src_step[t] = x;
                if (g->src_at[t] < 0)
                    from = t;
                else
                    g->queue[qt++] = n + t;
            }
        for (i = 0; i < CH4COLL_PACKING_MAXKIDS && from < 0; i++) {
            a = g->in[x][i]; /* a free arc without flow into x */
            if (a >= 0 && g->owner[a] < 0 && !g->flow[a] &&
                g->seen[y = g->tail[a]] != stamp) {
                g->seen[y] = stamp;
                g->step[y] = a + 1;
                g->queue[qt++] = y;
            }
            a = g->out[x][i]; /* a free arc with flow out of x */
            if (a >= 0 && g->owner[a] < 0 && g->flow[a] &&
                g->seen[y = g->head[a]] != stamp) {
                g->seen[y] = stamp;
                g->step[y] = -(a + 1);
                g->queue[qt++] = y;
            }
        }
    }
    if (from < 0)
        return 0;
    for (t = from, x = -1; x != sink;) {
        if (t >= 0) { /* s_t's unit goes to src_step[t] */
            x = g->src_at[t] = g->src_step[t];
            t = -1;
        } else if (g->step[x] > g->narcs) {
            t = g->step[x] - g->narcs - 1; /* x gives s_t's unit up */
        } else {
            a = g->step[x] > 0 ? g->step[x] - 1 : -g->step[x] - 1;
            g->flow[a] = g->step[x] > 0;
            x = g->step[x] > 0 ? g->head[a] : g->tail[a];
        }
    }
    return 1;
}

/* The disjoint paths over the free arcs to sink, one from each tree's
 * nodes at most: k when the partial trees (g->trees) still extend to k
 * disjoint spanning trees as far as sink is concerned (Edmonds' branching
 * theorem: every node set X entered by as many free arcs as there are
 * trees that X misses). */
static int pk_flow(pk_graph_t *g, int k, int sink)
{
    int f = 0, t;

    memset(g->flow, 0, (size_t) g->narcs * sizeof(int));
    for (t = 0; t < k; t++)
        g->src_at[t] = -1;
    while (f < k && pk_augment(g, k, sink))
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

/* k trees of the root alone. */
static void pk_trees_open(pk_graph_t *g, int root, int k)
{
    int *parent = g->trees, t, v;

    for (t = 0; t < k; t++) {
        for (v = 0; v < g->n; v++)
            parent[(size_t) t * (size_t) g->n + v] = -2; /* not reached */
        parent[(size_t) t * (size_t) g->n + root] = -1;
        g->list[(size_t) t * (size_t) g->n] = root;
        g->depth[(size_t) t * (size_t) g->n + root] = 0;
        g->size[t] = 1;
    }
}

/* Tree t takes one more arc (u, v), u in it and v not: the shallowest u
 * first, each u's arcs in the order of seed, the first arc after which
 * the trees still extend (pk_flow at v: only node sets that hold v can
 * lose an arc, and the one v now joins is no longer missed by tree t).
 * Such an arc exists while the tree is not spanning (Lovász).  Grown one
 * after the other, an arc refused once stays refused (the free arcs only
 * shrink and the trees only grow; g->sticky marks them); together, other
 * trees' growth may free one.  1 if an arc was taken. */
static int pk_extend(pk_graph_t *g, int k, int t, unsigned *seed)
{
    int *tp = g->trees + (size_t) t * (size_t) g->n;
    int *list = g->list + (size_t) t * (size_t) g->n;
    int *depth = g->depth + (size_t) t * (size_t) g->n;
    int i, j, m, u, v, a, arcs[CH4COLL_PACKING_MAXKIDS];

    for (i = 0; i < g->size[t]; i++) {
        u = list[i];
        m = pk_arc_order(g, u, seed, arcs);
        for (j = 0; j < m; j++) {
            a = arcs[j];
            v = g->head[a];
            if (g->owner[a] >= 0 || tp[v] != -2 ||
                (g->sticky && g->refused[a] == g->sticky))
                continue;
            g->owner[a] = t;
            tp[v] = u;
            if (pk_flow(g, k, v) == k) {
                depth[v] = depth[u] + 1;
                for (m = g->size[t]++; m > 0 && depth[list[m - 1]] > depth[v];
                     m--)
                    list[m] = list[m - 1]; /* list stays by depth */
                list[m] = v;
                return 1;
            }
            g->owner[a] = -1;
            tp[v] = -2;
            g->refused[a] = g->sticky;
        }
    }
    return 0;
}

/* k trees into g->trees (k n), the arcs tried in the order of seed,
 * grown together (an arc per tree in turn, so that none is left the long
 * way round) or one after the other (Lovász's order: the first trees
 * shallow, the last deep).  Its score: the deepest node's hops, then the
 * hops of all nodes in all trees (k n of them) as the tie-break, one
 * number; -1 if a tree came out short. */
static int64_t pk_pack(pk_graph_t *g, int root, int k, unsigned seed,
                       int together)
{
    int64_t deepest = 0, hops = 0;
    size_t i;
    int t, grown;

    for (t = 0; t < g->narcs; t++)
        g->owner[t] = -1;
    pk_trees_open(g, root, k);
    if (together)
        do
            for (t = 0, grown = 0; t < k; t++)
                if (g->size[t] < g->n && pk_extend(g, k, t, &seed))
                    grown = 1;
        while (grown);
    else
        for (t = 0; t < k; t++)
            for (g->sticky = ++g->gen; g->size[t] < g->n;)
                if (!pk_extend(g, k, t, &seed))
                    break;
    g->sticky = 0;
    for (t = 0; t < k; t++)
        if (g->size[t] < g->n)
            return -1;
    for (i = 0; i < (size_t) k * (size_t) g->n; i++) {
        hops += g->depth[i];
        deepest = g->depth[i] > deepest ? g->depth[i] : deepest;
    }
    return deepest * k * g->n * g->n + hops;
}

/* The most trees: the smallest r -> v cut over all v, capped at k. */
static int pk_count(pk_graph_t *g, int root, int k)
{
    int v, f;

    pk_trees_open(g, root, k);
    for (v = 0; v < g->n && k > 0; v++)
        if (v != root) {
            f = pk_flow(g, k, v);
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
    int k, tries = n <= 128 ? 8 : 1, way;
    int64_t score, best = -1;
    unsigned seed;

    pk->n = n;
    pk->k = 0;
    pk->parent = NULL;
    if (n < 2 || x_len < 1 || root < 0 || root >= n)
        return 0;
    if (pk_graph_open(&g, n, (int) x_len, y_len > 1 ? (int) y_len : 1))
        return -1;
    /* At most the fewest links; growing more trees than Edmonds' count
     * gets stuck whatever the order, fewer never does (Lovász). */
    k = ch4coll_packing_degree(n, x_len, y_len);
    for (k = k < pk_kmax(kmax) ? k : pk_kmax(kmax); k > 0; k--)
        if ((best = pk_pack(&g, root, k, 0, 1)) >= 0)
            break;
    if (k > 0 &&
        !(pk->parent = malloc((size_t) k * (size_t) n * sizeof(int)))) {
        pk_graph_free(&g);
        return -1;
    }
    if (k > 0)
        memcpy(pk->parent, g.trees, (size_t) k * (size_t) n * sizeof(int));
    for (seed = 0; seed < (unsigned) tries && k > 0; seed++)
        for (way = 0; way < 2; way++) {
            if (seed == 0 && (way == 1 || tries == 1))
                continue; /* together: grown above; past 128 nodes, no more */
            score = pk_pack(&g, root, k, seed, way);
            if (score >= 0 && score < best) {
                best = score;
                memcpy(pk->parent, g.trees,
                       (size_t) k * (size_t) n * sizeof(int));
            }
        }
    pk->k = k;
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
