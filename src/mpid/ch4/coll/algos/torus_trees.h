/*
 * torus_trees.h - two spanning trees of a 2-D placement on a torus whose
 * links are disjoint: tree A runs up and down the root's column and along
 * every x line in +x, tree B up and down the next column and in -x
 * (BG/L section 3.1's non-overlapping spanning trees on the torus
 * itself).  line.c's bcast torus_trees sends half the message down each,
 * chain.c's reduce torus_trees folds half the vector up each; line.c's
 * opening note has the shapes, the partial last line and a worked
 * example.
 *
 * Placement as cycle.h's (the parameters torus_x, torus_y): nodes at
 * hosts 0, 1, ... numbered x fastest.  The trees need one rank per node
 * (rank = host) filling more than one x line of one plane; the callers
 * run their chains otherwise.  Pure integer arithmetic, O(1) per parent;
 * a rank's children take an O(p) scan (ch4coll_tt_kids).
 *
 * Which trees a rank takes (ch4coll_tt_here, for bcast, reduce and
 * allreduce torus_trees alike): topo/packing.h's link-disjoint trees
 * where there are two or more (three where every host has three links in
 * the set); the pair where they are fewer (a partial last x line of one
 * host: both trees cross its one link) or the parameter trees asks for
 * it (1; where the pair has no shape, the chains); else none, and the
 * caller runs its chains.  The packing's trees from root 0 on SimGrid's
 * 16 x 16 torus: 15, 12 and 20 hops deep at p = 24, 61 and 96.
 */
#ifndef CH4COLL_TORUS_TREES_H
#define CH4COLL_TORUS_TREES_H

#include "../topo/packing.h"
#include "algo.h"

#define CH4COLL_TT_MAXKIDS 3
#if CH4COLL_TT_MAXKIDS > CH4COLL_PACKING_MAXKIDS
#error "a rank's trees hold fewer children than the pair has"
#endif

/* The hosts of a 2-D placement on the torus: n hosts at (h mod X, h / X),
 * R rows, the last one of L hosts; the root at (xr, yr); the columns of
 * tree A (xr) and B (cb). */
typedef struct {
    int X, n, R, L;
    int xr, yr;
    int col[2];
} ch4coll_tt_t;

static inline int ch4coll_tt_exists(const ch4coll_tt_t *g, int x, int y)
{
    return x >= 0 && x < g->X && y >= 0 && y < g->R && y * g->X + x < g->n;
}

/* The shape, or 0 when the placement is not one plane of more than one
 * row with one rank per node (torus: torus_x, torus_y). */
static inline int ch4coll_tt_open(ch4coll_tt_t *g, const ch4coll_args_t *a,
                                  const int64_t *torus)
{
    int64_t ylen = torus[1] > 1 ? torus[1] : 1;

    if (torus[0] < 1 || (a->loc && a->loc->nodes != a->size))
        return 0;
    g->X = (int) torus[0];
    g->n = a->size;
    if (g->n <= g->X || (int64_t) g->X * ylen < g->n)
        return 0;
    g->R = (g->n + g->X - 1) / g->X;
    g->L = g->n - (g->R - 1) * g->X;
    g->xr = a->root % g->X;
    g->yr = a->root / g->X;
    g->col[0] = g->xr;
    g->col[1] = (g->xr - 1 + g->X) % g->X; /* the root's -x neighbour */
    if (!ch4coll_tt_exists(g, g->col[1], g->yr) || g->col[1] == g->xr)
        g->col[1] = ch4coll_tt_exists(g, g->xr + 1, g->yr) ? g->xr + 1 : g->xr;
    return 1;
}

/* The parent of host (x, y) in tree t (A = 0 runs +x, B = 1 runs -x),
 * -1 for the root.  Column c_t's hosts take the data from their neighbour
 * towards the root's row (c_t in the root's row from the root); every
 * other host from its neighbour behind it in t's direction, round the
 * row's ring in a whole row; in a partial last row (no wrap-around) the
 * host at the row's start (x = 0 for A, L - 1 for B) takes it from the
 * row below instead. */
static inline int ch4coll_tt_parent(const ch4coll_tt_t *g, int t, int x, int y)
{
    int c = g->col[t], d = t ? -1 : 1, partial = y == g->R - 1 && g->L < g->X;

    if (x == g->xr && y == g->yr)
        return -1;
    if (x == c) {
        if (y == g->yr)
            return g->yr * g->X + g->xr;
        return (y - (y > g->yr ? 1 : -1)) * g->X + c;
    }
    if (partial && x == (t ? g->L - 1 : 0))
        return (y - 1) * g->X + x;
    return y * g->X + (x - d + g->X) % g->X;
}

/* The children of host h in tree t (at most CH4COLL_TT_MAXKIDS: the
 * root in A and column cb's host in the root's line in B have three, up,
 * down and along the line, every other host two at most); their count, or
 * -1 were there more. */
static inline int ch4coll_tt_kids(const ch4coll_tt_t *g, int t, int h,
                                  int *kids)
{
    int i, n = 0;

    for (i = 0; i < g->n; i++)
        if (ch4coll_tt_parent(g, t, i % g->X, i / g->X) == h) {
            if (n == CH4COLL_TT_MAXKIDS)
                return -1;
            kids[n++] = i;
        }
    return n;
}

/* The trees at one rank: s of them (0: none, the caller runs its
 * chains), the rank's parent (-1 at the root) and children in each. */
typedef struct {
    int s;
    int parent[CH4COLL_PACKING_MAXK];
    int nkids[CH4COLL_PACKING_MAXK];
    int kids[CH4COLL_PACKING_MAXK][CH4COLL_PACKING_MAXKIDS];
} ch4coll_tt_here_t;

/* Whether a's placement may take the packing's trees (torus: torus_x,
 * torus_y; trees: 1 asks for the pair, or for the chains where the pair
 * has no shape): one rank per node, more than one x line; and the most
 * trees to build (0 when it may not). */
static inline int ch4coll_tt_kmax(const ch4coll_args_t *a, const int64_t *torus,
                                  int64_t trees)
{
    if (trees == 1 || torus[0] < 1 || a->size <= torus[0] ||
        (a->loc && a->loc->nodes != a->size))
        return 0;
    return trees > 1 ? (int) trees : CH4COLL_PACKING_MAXK;
}

/* The packing's trees (packing.h) for a's placement (trees: 0 the most,
 * 2-4 at most that many, 1 the pair above) where they are two or more: 1
 * with pk built (free it), 0 to take the pair or the chains;
 * CH4COLL_ERR_NOMEM in *rc if memory ran out. */
static inline int ch4coll_tt_packing(ch4coll_packing_t *pk,
                                     const ch4coll_args_t *a,
                                     const int64_t *torus, int64_t trees,
                                     int *rc)
{
    int kmax = ch4coll_tt_kmax(a, torus, trees);

    *rc = CH4COLL_OK;
    if (kmax == 0)
        return 0;
    if (ch4coll_packing_build(pk, a->size, torus[0], torus[1], a->root, kmax)) {
        *rc = CH4COLL_ERR_NOMEM;
        return 0;
    }
    if (pk->k >= 2)
        return 1;
    ch4coll_packing_free(pk);
    return 0;
}

/* How many trees a's ranks take (the packing's or the pair's 2), 0 for
 * none (the caller's chains), without building them; -1 if memory ran
 * out. */
static inline int ch4coll_tt_count(const ch4coll_args_t *a,
                                   const int64_t *torus, int64_t trees)
{
    ch4coll_tt_t g;
    int kmax = ch4coll_tt_kmax(a, torus, trees), k = 0;

    if (kmax > 0 && (k = ch4coll_packing_count(a->size, torus[0], torus[1],
                                               a->root, kmax)) < 0)
        return -1;
    return k >= 2 ? k : ch4coll_tt_open(&g, a, torus) ? 2 : 0;
}

/* This rank's trees: the packing's, the pair's, or none (h->s = 0). */
static inline int ch4coll_tt_here(ch4coll_tt_here_t *h, const ch4coll_args_t *a,
                                  const int64_t *torus, int64_t trees)
{
    ch4coll_packing_t pk;
    ch4coll_tt_t g;
    int t, rc;

    h->s = 0;
    if (ch4coll_tt_packing(&pk, a, torus, trees, &rc)) {
        h->s = pk.k;
        for (t = 0; t < pk.k; t++) {
            h->parent[t] = pk.parent[(size_t) t * (size_t) a->size + a->rank];
            h->nkids[t] = ch4coll_packing_kids(&pk, t, a->rank, h->kids[t]);
        }
        ch4coll_packing_free(&pk);
        return CH4COLL_OK;
    }
    if (rc != CH4COLL_OK || !ch4coll_tt_open(&g, a, torus))
        return rc;
    h->s = 2;
    for (t = 0; t < 2; t++) {
        h->parent[t] = ch4coll_tt_parent(&g, t, a->rank % g.X, a->rank / g.X);
        h->nkids[t] = ch4coll_tt_kids(&g, t, a->rank, h->kids[t]);
        if (h->nkids[t] < 0) /* ruled out above */
            return CH4COLL_ERR_ARG;
    }
    return CH4COLL_OK;
}

/* The most trees a's placement may take (tags to reserve, no flows):
 * at least 2, the fewest links a node has in the set, at most the cap. */
static inline int ch4coll_tt_streams(const ch4coll_args_t *a,
                                     const int64_t *torus, int64_t trees)
{
    int kmax = ch4coll_tt_kmax(a, torus, trees),
        k = ch4coll_packing_degree(a->size, torus[0], torus[1]);

    k = k < kmax ? k : kmax;
    return k > 2 ? k : 2;
}

#endif
