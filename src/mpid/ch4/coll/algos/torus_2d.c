/*
 * torus_2d.c - allgather(v), reduce_scatter(_block) and allreduce on a
 * 2-D placement on the torus, both dimension orders at once: part of
 * every block travels x first (along its x line, then up and down every
 * column), the rest y first (its column, then every x line), so that a
 * host uses all four of its links instead of a ring's two.
 *
 * Sources: BG/L section 3.1 (a torus collective's bandwidth is at most
 * as many links as a node has coming in, reached with streams whose
 * links are disjoint; allreduce as a reduction stream into a broadcast
 * stream, the second the first reversed); van de Geijn (Chan et al.;
 * InterCom): a multidimensional allgather is one allgather along each
 * dimension in turn, reduce-scatter likewise.  One dimension order alone
 * loads the other dimension's links with all but one line's blocks; the
 * two at once, split in the proportion that evens the loads, use both.
 *
 * Placement as torus_trees.h's (torus_x = X, torus_y): one rank per node
 * at hosts 0, 1, ... numbered x fastest, n ranks filling R > 1 rows, the
 * last of L hosts.  A whole row is a ring (X hosts round the torus), the
 * partial last row a line; a column is a ring when it holds torus_y
 * hosts, else a line.  Along a ring a block goes the shorter way (the
 * antipode from the +x side for an origin at even x, else from -x), along
 * a line both ways.  Each part of origin o's block follows a spanning
 * tree of torus links:
 *   x first: o's row, then every column from that row; an origin in the
 *     partial row first hops up to the row above, whose ring takes it;
 *   y first: o's column, then every row from it; where o's column misses
 *     the partial row, that row's hosts take it from the hosts above.
 * allgather: each host receives each part from its parent into place and
 * forwards it to its children (at most four).  reduce_scatter: the same
 * trees upside down, each host adding its children's partials to its
 * input and sending the sum to its parent, the owner adding them into
 * its result.  allreduce: that reduce-scatter of p balanced segments,
 * then each result part down the allgather's trees into place.
 *
 * Order: a rank's sends go out in the order their data arrive, shallower
 * parts first going down, deeper first going up, at most `window` at a
 * time on a link (default 2; 0: all at once, which SimGrid's fair
 * sharing turned into 10-20 % longer allgathers at p = 61 and 96).
 * Split: xfirst percent of every block x first (1..100), or with 0 the
 * percentage that minimises the busiest link's load, counted over every
 * tree at build time.  On R full rows of line columns the end rows'
 * hosts are the busiest: near (R - 1) X f = (1 - f)(X - 1) R / 2, f =
 * 0.37 at X = 16, R = 6 (p = 96), the busiest link 1.40 of a quarter of
 * what a host receives against the two-link ring's 2.00 (a whole torus
 * 1.07 at f = 0.5; p = 61, whose partial row's end hosts have two links,
 * 2.02 against the odd ring's 4).  Where the balanced busiest link still
 * carries the bidir ring's (p - 1) / 2 blocks or more and p is even (odd
 * p has no cycle of torus neighbours), bidir_ring runs: p = 24 and 40 on
 * 16 x 16, whose partial rows' columns all cross one row's ring.  The
 * count knows no per-message cost: a split that leaves a part just under
 * the eager switch pays its copies on both sides (doc/performance-log.md,
 * allreduce at p = 96); xfirst is then the tuning file's to set.
 *
 * Cost (single-ported): the bidir ring's, every rank receiving (and for
 * the reductions folding) every other block's parts once; depth half a
 * row plus half a column, store and forward per part.  Scratch: none for
 * allgather; the reductions one region per child partial, about the
 * vector's length.  Build time O(p^2) for the split.  Tags 2p (part,
 * origin), 4p for allreduce.  Reductions: commutative ops.  Any other
 * placement (one row, several ranks a node, no torus) runs bidir_ring
 * round the torus.
 *
 * Worked example, X = 4, p = 10: rows {0-3}, {4-7} and the partial
 * {8, 9}; columns 0 and 1 hold three hosts, 2 and 3 two (torus_y = 4:
 * no column wraps).  Block 9 (x = 1), x first: 9 -> 5 (up: row 2 is
 * partial), 5 -> 4 and 6, 4 -> 7 round the wrap (the antipode, from
 * the -x side as x = 1 is odd), then down the columns 5 -> 1, 4 -> 0
 * and 8, 6 -> 2, 7 -> 3.  Block 9, y first: 9 -> 5 -> 1 (its column),
 * then the rows: 9 -> 8, 5 -> 4 and 6, 4 -> 7, 1 -> 0 and 2, 0 -> 3.
 * Block 2, y first: 2 -> 6 (column 2 has no third host), rows 2 -> 1,
 * 2 -> 3 -> 0, 6 -> 5, 6 -> 7 -> 4, and 8 and 9 take it from 4 and 5
 * above them.  The reduce-scatter folds block 9's x-first part along
 * the reverse edges: 3 -> 7, 7 -> 4, 0 -> 4, 8 -> 4, 4 -> 5, ..., 5 -> 9.
 * Balanced, p = 10's trees load a link with 6.03 blocks at best (1 % x
 * first) against the ring's 4.5, so xfirst = 0 runs the ring; p = 14
 * (columns 0 and 1 then wrap) takes 50 %, 6.0 blocks against 6.5.
 */
#include "../topo/topo.h"
#include "algo.h"
#include "torus_trees.h"

#include <stdlib.h>

enum { XFIRST, YFIRST, NPARTS };

#define TD_MAXNB      4  /* a host's torus neighbours in the set */
#define TD_WINDOW_MAX 16 /* the window parameter's largest value */

typedef struct {
    ch4coll_tt_t g; /* the hosts: R rows of X, the last of L */
    int ty;         /* the torus's y extent: a column this long wraps */
} td_t;

static int row_len(const ch4coll_tt_t *g, int y)
{
    return y < g->R - 1 ? g->X : g->L;
}

static int col_len(const ch4coll_tt_t *g, int x)
{
    return x < g->L ? g->R : g->R - 1;
}

/* The neighbour of position t towards source s on a line of len
 * positions, a ring when wrap (the shorter way; the antipode from the
 * side of s's parity). */
static int line_parent(int t, int s, int len, int wrap)
{
    int d;

    if (!wrap || len < 3)
        return t > s ? t - 1 : t + 1;
    d = ((t - s) % len + len) % len;
    if (2 * d < len || (2 * d == len && s % 2 == 0))
        return (t - 1 + len) % len;
    return (t + 1) % len;
}

/* Host (x, y)'s neighbour towards row ys down column x. */
static int col_parent(const td_t *t, int x, int y, int ys)
{
    int len = col_len(&t->g, x);

    return line_parent(y, ys, len, len == t->ty) * t->g.X + x;
}

/* Host h's parent in part `part`'s tree of origin o's block; -1 for o. */
static int td_parent(const td_t *t, int part, int o, int h)
{
    const ch4coll_tt_t *g = &t->g;
    int X = g->X, xo = o % X, yo = o / X, x = h % X, y = h / X;

    if (h == o)
        return -1;
    if (part == XFIRST) {
        int yb = row_len(g, yo) == X ? yo : yo - 1; /* the row whose ring */

        if (y != yb)
            return col_parent(t, x, y, yb);
        if (yb != yo && x == xo)
            return o;
        return yb * X + line_parent(x, xo, X, 1);
    }
    if (x == xo)
        return col_parent(t, x, y, yo);
    if (ch4coll_tt_exists(g, xo, y))
        return y * X + line_parent(x, xo, row_len(g, y), row_len(g, y) == X);
    return (y - 1) * X + x; /* the partial row, o's column short of it */
}

/* Host h's torus neighbours in the set, each once; their count. */
static int td_neighbours(const td_t *t, int h, int *nb)
{
    const ch4coll_tt_t *g = &t->g;
    int X = g->X, x = h % X, y = h / X, len = col_len(g, x);
    int cand[TD_MAXNB], i, j, n = 0;

    cand[0] = y * X + (x + 1) % X;
    cand[1] = y * X + (x - 1 + X) % X;
    cand[2] = len == t->ty ? (y + 1) % len * X + x : (y + 1) * X + x;
    cand[3] = len == t->ty ? (y - 1 + len) % len * X + x : (y - 1) * X + x;
    if (row_len(g, y) < X) { /* the partial row: a line */
        cand[0] = x + 1 < g->L ? cand[0] : -1;
        cand[1] = x > 0 ? cand[1] : -1;
    }
    for (i = 0; i < TD_MAXNB; i++) {
        int c = cand[i];

        if (c < 0 || c == h || !ch4coll_tt_exists(g, c % X, c / X))
            continue;
        for (j = 0; j < n && nb[j] != c; j++)
            ;
        if (j == n)
            nb[n++] = c;
    }
    return n;
}

/* Host h's children in part's tree of o's block; their count. */
static int td_kids(const td_t *t, int part, int o, int h, int *kids)
{
    int nb[TD_MAXNB], i, k = 0, n = td_neighbours(t, h, nb);

    for (i = 0; i < n; i++)
        if (td_parent(t, part, o, nb[i]) == h)
            kids[k++] = nb[i];
    return k;
}

/* Each directed link's load in blocks, x first and y first, over every
 * origin's trees: load[(h TD_MAXNB + i) NPARTS + part] for the link into
 * h from its i-th neighbour.  NULL without memory. */
static int *td_loads(const td_t *t)
{
    int n = t->g.n, o, h, part, slot, k, nb[TD_MAXNB];
    int *load = ch4coll_malloc((size_t) n * TD_MAXNB * NPARTS * sizeof *load);

    if (!load)
        return NULL;
    for (h = 0; h < n * TD_MAXNB * NPARTS; h++)
        load[h] = 0;
    for (part = 0; part < NPARTS; part++)
        for (o = 0; o < n; o++)
            for (h = 0; h < n; h++) {
                int par = td_parent(t, part, o, h);

                if (par < 0)
                    continue;
                k = td_neighbours(t, h, nb);
                for (slot = 0; slot < k && nb[slot] != par; slot++)
                    ;
                load[(h * TD_MAXNB + slot) * NPARTS + part]++;
            }
    return load;
}

/* The x-first percentage (1..100) that minimises the busiest link, or 0
 * when even that link carries as many blocks as the bidir ring's,
 * (p - 1) / 2, round a cycle of torus neighbours (a partial row whose
 * columns all cross one row's ring: p = 24 on a 16 x 16 torus; an odd p
 * has no such cycle, cycle.h); -1 without memory. */
static int td_balanced(const td_t *t)
{
    int *load = td_loads(t), n = t->g.n, h, pct, best = 50;
    long most, least = -1;

    if (!load)
        return -1;
    for (pct = 1; pct <= 100; pct++) {
        for (most = 0, h = 0; h < n * TD_MAXNB; h++) {
            long l = (long) pct * load[h * NPARTS + XFIRST] +
                     (long) (100 - pct) * load[h * NPARTS + YFIRST];
            most = l > most ? l : most;
        }
        if (least < 0 || most < least) {
            least = most;
            best = pct;
        }
    }
    ch4coll_free(load);
    return n % 2 == 0 && 2 * least >= 100L * (n - 1) ? 0 : best;
}

/* A send of this rank's: count elements at src to neighbour `to` on
 * tag, after vertex `got` (-1: none); sends go in the order of key. */
typedef struct {
    int key, tag, to, got;
    ch4coll_ref_t src;
    size_t count;
} td_send_t;

/* Hops from o to h in part's tree. */
static int td_depth(const td_t *t, int part, int o, int h)
{
    int d = 0;

    for (; h != o; d++)
        h = td_parent(t, part, o, h);
    return d;
}

static int send_order(const void *x, const void *y)
{
    const td_send_t *a = x, *b = y;

    return a->key != b->key ? a->key - b->key : a->tag - b->tag;
}

/* The list of a builder's sends, emitted at the end in key order. */
typedef struct {
    td_send_t *v;
    int n;
} td_list_t;

static void td_add(td_list_t *l, int key, int tag, int to, int got,
                   ch4coll_ref_t src, size_t count)
{
    td_send_t x = {key, tag, to, got, src, count};

    l->v[l->n++] = x;
}

/* The sends in key order, at most `window` on a link at once (0: all):
 * each waits for its data and for the send `window` places before it to
 * the same neighbour (a ring of the last vertices per neighbour).  The
 * order is one in which the data arrive (shallower parts first going
 * down the trees, deeper first going up), so no send waits for one that
 * waits for it.  vert (or NULL): each send's vertex, by tag. */
static void td_sends(ch4coll_sched_t *s, const td_t *t, int me, td_list_t *l,
                     int window, int *vert)
{
    int nb[TD_MAXNB], last[TD_MAXNB][TD_WINDOW_MAX], sent[TD_MAXNB] = {0};
    int i, k, v, nn = td_neighbours(t, me, nb), d[2];

    qsort(l->v, (size_t) l->n, sizeof *l->v, send_order);
    for (i = 0; i < l->n; i++) {
        const td_send_t *x = &l->v[i];
        int nd = ch4coll_dep1(x->got, d);

        for (k = 0; k < nn && nb[k] != x->to; k++)
            ;
        if (window > 0 && sent[k] >= window)
            d[nd++] = last[k][sent[k] % window];
        v = ch4coll_sched_send(s, x->src, x->count, x->to, x->tag, nd, d);
        if (vert)
            vert[x->tag] = v;
        if (window > 0)
            last[k][sent[k]++ % window] = v;
    }
}

/* Elements of c sent x first, and part's first element and length. */
static size_t td_split(size_t c, int pct, int part, size_t *n)
{
    size_t nx = c * (size_t) pct / 100;

    *n = part == XFIRST ? nx : c - nx;
    return part == XFIRST ? 0 : nx;
}

/* Room for one direction's sends: each part of each block to at most
 * TD_MAXNB neighbours. */
static td_send_t *td_alloc(const ch4coll_args_t *a)
{
    return ch4coll_malloc((size_t) NPARTS * a->size * TD_MAXNB *
                          sizeof(td_send_t));
}

/* ============================================================= allgather */

/* Receive both parts of every other block from its parents (posted at
 * the start) and list the sends down the trees, key = depth. */
static void ag_parts(ch4coll_sched_t *s, const ch4coll_args_t *a, const td_t *t,
                     int pct, td_list_t *l)
{
    int p = a->size, me = a->rank, o, i, nk, part, kids[TD_MAXNB];

    for (part = 0; part < NPARTS; part++)
        for (o = 0; o < p; o++) {
            size_t n, first = td_split(ch4coll_blk_count(a, o), pct, part, &n);
            size_t at = ch4coll_blk_displ(a, o) + first;
            ch4coll_ref_t src =
                ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_eoff(a, at));
            int got = -1, depth;

            if (n == 0)
                continue;
            if (o != me)
                got = ch4coll_sched_recv(s, src, n, td_parent(t, part, o, me),
                                         part * p + o, 0, NULL);
            else if (!a->inplace)
                src = ch4coll_ref(CH4COLL_BUF_SEND, ch4coll_eoff(a, first));
            nk = td_kids(t, part, o, me, kids);
            depth = nk > 0 ? td_depth(t, part, o, me) : 0;
            for (i = 0; i < nk; i++)
                td_add(l, depth, part * p + o, kids[i], got, src, n);
        }
}

/* The placement, or 0 where the trees do not apply (torus_trees.h's
 * shape: one plane of more than one row, one rank per node). */
static int td_open(td_t *t, const ch4coll_args_t *a, const int64_t *params)
{
    if (!ch4coll_tt_open(&t->g, a, params))
        return 0;
    t->ty = params[1] > 1 ? (int) params[1] : 1;
    return 1;
}

/* Both parts, pct percent of every block x first, window sends on a
 * link at once. */
static int ag_build(ch4coll_sched_t *s, const ch4coll_args_t *a, const td_t *t,
                    int pct, int window)
{
    td_list_t l = {td_alloc(a), 0};

    if (!l.v)
        return CH4COLL_ERR_NOMEM;
    ch4coll_copy_own_block(s, a);
    ag_parts(s, a, t, pct, &l);
    td_sends(s, t, a->rank, &l, window, NULL);
    ch4coll_free(l.v);
    return CH4COLL_OK;
}

typedef int (*td_build_fn)(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const td_t *t, int pct, int window);

/* The trees, or bidir_ring round the torus where they do not apply or
 * load no link less.  params: torus_x, torus_y, xfirst, window; the
 * allgather ring takes the first two, the reduction rings chunk (0),
 * torus_x and torus_y.  The tags are the larger count of the two. */
static int td_run(ch4coll_sched_t *s, const ch4coll_args_t *a,
                  const int64_t *params, td_build_fn trees,
                  ch4coll_build_fn ring)
{
    int64_t rp[3] = {0, params[0], params[1]};
    int reduction = ch4coll_coll_is_reduction(a->coll), pct = 0, rc;
    td_t t;

    if (td_open(&t, a, params))
        pct = params[2] > 0 ? (int) params[2] : td_balanced(&t);
    if (pct > 0)
        rc = trees(s, a, &t, pct, (int) params[3]);
    else
        rc = pct < 0 ? CH4COLL_ERR_NOMEM : ring(s, a, reduction ? rp : params);
    ch4coll_sched_set_ntags(s, reduction
                                   ? ch4coll_ntags_torus_2d_reduce(a, params)
                                   : ch4coll_ntags_torus_2d(a, params));
    return rc;
}

/* (part, origin): 2p, more than bidir_ring's 2(p - 1). */
int ch4coll_ntags_torus_2d(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return 2 * a->size;
}

int ch4coll_allgather_torus_2d(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    if (a->count == 0) {
        ch4coll_sched_set_ntags(s, ch4coll_ntags_torus_2d(a, params));
        return CH4COLL_OK;
    }
    return td_run(s, a, params, ag_build, ch4coll_allgather_bidir_ring);
}

int ch4coll_allgatherv_torus_2d(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    return td_run(s, a, params, ag_build, ch4coll_allgatherv_bidir_ring);
}

/* ============================================================ reductions */

/*
 * The reduce-scatter is the allgather upside down: part `part` of block o
 * is folded up o's tree, each rank adding its children's partials to its
 * own input and sending the sum to its parent; o adds its children's to
 * its input.  allreduce then sends each result part down the same tree
 * as the allgather does, into place.  Partials from children land in
 * scratch (one region per child and part: about the vector's length over
 * all blocks), summed into the first child's region; the owner sums into
 * its result's place (reduce_scatter in place: in scratch, copied to the
 * buffer's start after every read of the input, which stays as it was
 * outside the result).
 */
typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    const td_t *t;
    int pct, in;               /* the split; the input's buffer */
    int tmp;                   /* the children's partials' scratch */
    size_t used;               /* of it, in elements */
    ch4coll_ref_t fin[NPARTS]; /* reduce_scatter in place: each result
                                * part before the final copy */
    int *ready; /* per (part, o): o's result part final (o = me), or
                 * this rank's partial sent (o != me: its input read) */
    td_list_t up, down;
} rd_t;

/* Block j of the reduction: the call's block (reduce_scatter) or the
 * j-th of p balanced segments (allreduce). */
static size_t rd_off(const ch4coll_args_t *a, int j)
{
    return a->coll == CH4COLL_ALLREDUCE
               ? ch4coll_seg_off(a->count, (size_t) a->size, (size_t) j)
               : ch4coll_blk_displ(a, j);
}

static size_t rd_len(const ch4coll_args_t *a, int j)
{
    return a->coll == CH4COLL_ALLREDUCE
               ? ch4coll_seg_len(a->count, (size_t) a->size, (size_t) j)
               : ch4coll_blk_count(a, j);
}

/* Scratch for every child's partial of every part this rank folds. */
static size_t rd_scratch(const rd_t *r)
{
    const ch4coll_args_t *a = r->a;
    int o, part, kids[TD_MAXNB];
    size_t n, total = 0;

    for (part = 0; part < NPARTS; part++)
        for (o = 0; o < a->size; o++) {
            td_split(rd_len(a, o), r->pct, part, &n);
            total += n * (size_t) td_kids(r->t, part, o, a->rank, kids);
        }
    return total;
}

/* Receive each child's partial of n elements and fold it into acc (the
 * first child's straight into acc when `first` holds, then the input
 * folded in from in); the last fold, or -1 when there are no children. */
static int rd_fold(rd_t *r, int part, int o, const int *kids, int nk,
                   ch4coll_ref_t acc, ch4coll_ref_t in, size_t n, int first)
{
    int i, last = -1, d[2];

    for (i = 0; i < nk; i++) {
        ch4coll_ref_t buf = acc;
        int v;

        if (i > 0 || !first) {
            buf = ch4coll_ref(r->tmp, ch4coll_eoff(r->a, r->used));
            r->used += n;
        }
        v = ch4coll_sched_recv(r->s, buf, n, kids[i], part * r->a->size + o, 0,
                               NULL);
        d[0] = v;
        d[1] = last;
        if (i == 0 && first) /* acc = child's + mine */
            last = ch4coll_sched_reduce(r->s, in, acc, n, 1, d);
        else
            last = ch4coll_sched_reduce(r->s, buf, acc, n, last < 0 ? 1 : 2, d);
    }
    return last;
}

/* Part `part` of block o up its tree at this rank. */
static void rd_up(rd_t *r, int part, int o)
{
    const ch4coll_args_t *a = r->a;
    int me = a->rank, kids[TD_MAXNB], nk = td_kids(r->t, part, o, me, kids);
    size_t n, first = td_split(rd_len(a, o), r->pct, part, &n);
    ch4coll_ref_t in =
        ch4coll_ref(r->in, ch4coll_eoff(a, rd_off(a, o) + first));
    int *ready = &r->ready[part * a->size + o];

    if (o == me) { /* the result: into place (allreduce in place: onto
                    * the input; reduce_scatter in place: copied there at
                    * the end, from scratch or the input) */
        int all = a->coll == CH4COLL_ALLREDUCE, onto = all && a->inplace;
        size_t at = all ? rd_off(a, o) + first : first;
        ch4coll_ref_t res = ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_eoff(a, at));

        if (onto) {
            res = in;
        } else if (a->inplace) {
            res = in;
            if (nk > 0) {
                res = ch4coll_ref(r->tmp, ch4coll_eoff(a, r->used));
                r->used += n;
            }
            r->fin[part] = res;
            if (nk == 0)
                return;
        }
        *ready = rd_fold(r, part, o, kids, nk, res, in, n, !onto);
        if (*ready < 0 && !onto)
            *ready = ch4coll_sched_copy(r->s, in, res, n, 0, NULL);
        return;
    }
    if (nk > 0) { /* else a leaf sends its input */
        ch4coll_ref_t acc = ch4coll_ref(r->tmp, ch4coll_eoff(a, r->used));

        r->used += n;
        *ready = rd_fold(r, part, o, kids, nk, acc, in, n, 1);
        in = acc;
    }
    td_add(&r->up, -td_depth(r->t, part, o, me), part * a->size + o,
           td_parent(r->t, part, o, me), *ready, in, n);
}

/* allreduce: part `part` of block o's result down its tree, into place
 * (in place: once this rank's input part has been read). */
static void rd_down(rd_t *r, int part, int o)
{
    const ch4coll_args_t *a = r->a;
    int me = a->rank, p = a->size, kids[TD_MAXNB], i, d[1];
    int nk = td_kids(r->t, part, o, me, kids), got = r->ready[part * p + o];
    size_t n, first = td_split(rd_len(a, o), r->pct, part, &n);
    ch4coll_ref_t res =
        ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_eoff(a, rd_off(a, o) + first));

    if (o != me)
        got = ch4coll_sched_recv(r->s, res, n, td_parent(r->t, part, o, me),
                                 (NPARTS + part) * p + o,
                                 ch4coll_dep1(a->inplace ? got : -1, d), d);
    for (i = 0; i < nk; i++)
        td_add(&r->down, nk > 0 ? td_depth(r->t, part, o, me) : 0,
               (NPARTS + part) * p + o, kids[i], got, res, n);
}

/* The reduce-scatter up the trees, for allreduce the allgather down;
 * reduce_scatter in place then copies the result to the buffer's start
 * after every read of the input (a fence). */
static int rd_build(ch4coll_sched_t *s, const ch4coll_args_t *a, const td_t *t,
                    int pct, int window)
{
    rd_t r = {.s = s, .a = a, .t = t, .pct = pct, .tmp = -1};
    int part, o, all = a->coll == CH4COLL_ALLREDUCE, rc = CH4COLL_OK;
    size_t need;

    r.in = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    r.ready = ch4coll_malloc((size_t) NPARTS * a->size * sizeof *r.ready);
    r.up.v = td_alloc(a);
    r.down.v = all ? td_alloc(a) : NULL;
    if (!r.up.v || !r.ready || (all && !r.down.v)) {
        rc = CH4COLL_ERR_NOMEM;
        goto free_lists;
    }
    need = rd_scratch(&r);
    r.tmp = need > 0 ? ch4coll_sched_scratch(s, need) : -1;
    for (part = 0; part < NPARTS; part++)
        for (o = 0; o < a->size; o++) {
            r.ready[part * a->size + o] = -1;
            td_split(rd_len(a, o), pct, part, &need);
            if (need > 0)
                rd_up(&r, part, o);
        }
    td_sends(s, t, a->rank, &r.up, window, r.ready);
    for (part = 0; all && part < NPARTS; part++)
        for (o = 0; o < a->size; o++) {
            td_split(rd_len(a, o), pct, part, &need);
            if (need > 0)
                rd_down(&r, part, o);
        }
    if (all)
        td_sends(s, t, a->rank, &r.down, window, NULL);
    if (!all && a->inplace) { /* after every read of the input */
        int f = ch4coll_sched_fence(s);

        for (part = 0; part < NPARTS; part++) {
            size_t first = td_split(rd_len(a, a->rank), pct, part, &need);

            if (need > 0)
                ch4coll_sched_copy(
                    s, r.fin[part],
                    ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_eoff(a, first)), need,
                    1, &f);
        }
    }
free_lists:
    ch4coll_free(r.up.v);
    ch4coll_free(r.down.v);
    ch4coll_free(r.ready);
    return rc;
}

/* Up (and for allreduce down) each part's tree: (phase, part, origin). */
int ch4coll_ntags_torus_2d_reduce(const ch4coll_args_t *a,
                                  const int64_t *params)
{
    int64_t ring[3] = {0, params[0], params[1]};
    int n = (a->coll == CH4COLL_ALLREDUCE ? 2 : 1) * NPARTS * a->size,
        b = ch4coll_ntags_bidir_ring_reduce(a, ring);

    return n > b ? n : b;
}

int ch4coll_allreduce_torus_2d(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    if (a->count == 0) {
        ch4coll_sched_set_ntags(s, ch4coll_ntags_torus_2d_reduce(a, params));
        return CH4COLL_OK;
    }
    return td_run(s, a, params, rd_build, ch4coll_allreduce_bidir_ring);
}

int ch4coll_reduce_scatter_torus_2d(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    return td_run(s, a, params, rd_build, ch4coll_reduce_scatter_bidir_ring);
}

int ch4coll_reduce_scatter_block_torus_2d(ch4coll_sched_t *s,
                                          const ch4coll_args_t *a,
                                          const int64_t *params)
{
    return td_run(s, a, params, rd_build,
                  ch4coll_reduce_scatter_block_bidir_ring);
}

/* ------------------------------------------------------------------- cost */

/* One port: the bidir ring's volume and messages (every block received
 * once, in two parts). */
double ch4coll_cost_allgather_torus_2d(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return ch4coll_cost_allgather_bidir_ring(a, params, m);
}

double ch4coll_cost_allgatherv_torus_2d(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    return ch4coll_cost_allgatherv_bidir_ring(a, params, m);
}

/* The bidir ring's (its chunk 0): every rank receives and folds every
 * other rank's part of its block once, in two messages, and for
 * allreduce receives every other result. */
double ch4coll_cost_allreduce_torus_2d(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    int64_t ring[3] = {0, params[0], params[1]};

    return ch4coll_cost_allreduce_bidir_ring(a, ring, m);
}

double ch4coll_cost_reduce_scatter_torus_2d(const ch4coll_args_t *a,
                                            const int64_t *params,
                                            const ch4coll_model_t *m)
{
    int64_t ring[3] = {0, params[0], params[1]};

    return ch4coll_cost_reduce_scatter_bidir_ring(a, ring, m);
}

double ch4coll_cost_reduce_scatter_block_torus_2d(const ch4coll_args_t *a,
                                                  const int64_t *params,
                                                  const ch4coll_model_t *m)
{
    int64_t ring[3] = {0, params[0], params[1]};

    return ch4coll_cost_reduce_scatter_block_bidir_ring(a, ring, m);
}
