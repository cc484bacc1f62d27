/*
 * smp.c - hierarchical ("smp") collectives: a step inside every node, a
 * step among one leader per node, a step inside every node again.
 *
 * Source: NEC MPI/SX (seeds/nec-mpisx-collectives.txt).  Section 2: nodes
 * are shared-memory SMPs; messages inside a node are cheaper than those
 * crossing the switch.  3.3: bcast trees "across nodes, not MPI processes,
 * with an arbitrary process chosen as local root on each node".  3.4:
 * reduce the same way inverted; allreduce as a reduction followed by a
 * broadcast, reduce_scatter as a reduction followed by a scatter.  3.5 and
 * Table 2: these collectives decompose into an intra-node ("-single") and
 * an inter-node ("-node") algorithm; "for large m pipelining is employed
 * in all steps".  4.1/4.2: processes taken in node order; allgather as
 * gather + allgather of node blocks + bcast.
 *
 * Steps.  Node j: its ranks in rank order (ch4coll_node_order); its leader
 * is the lowest of them, for bcast and reduce the root on the root's node.
 *   barrier    1 empty messages up a binomial tree to the leader
 *              2 barrier among the leaders
 *              3 empty messages down the tree
 *   bcast      2 bcast among the leaders from the root's node (the root
 *                leads its node: the step root -> leader is empty)
 *              3 binomial bcast from the leader in every node
 *   reduce     1 binomial reduce to the leader in every node, rank order
 *              2 reduce among the leaders to the root, node order
 *   allreduce  1 binomial reduce to the leader  2 allreduce among the
 *              leaders  3 binomial bcast from the leader
 *   allgather  1 binomial gather of the node's blocks to the leader
 *              2 allgatherv of the node blocks among the leaders
 *              3 binomial bcast of the whole result in the node
 *   reduce_scatter, reduce_scatter_block
 *              1 binomial reduce of the whole vector to the leader
 *              2 reduce_scatter among the leaders, node j getting its
 *                ranks' blocks (per-node counts)
 *              3 the leader sends every rank of its node its block
 * Steps 1 and 3 run ch4coll_{reduce,bcast,gather}_binomial through a view
 * of the schedule (sched.h) on the node's ranks, rooted at the leader;
 * reduce_binomial folds in rank order for any op and counts elements of
 * the call's type, so gaps are never moved.  The barrier's fan-in/out and
 * the scatter are written here.  Step 2 runs the algorithm args->subselect
 * picks for the leaders' call: an inner args with size = nodes, rank =
 * node index, root = the root's node, the call's element, op and
 * commutativity, loc and subselect NULL, v-arrays built here.  If there is
 * none or it does not apply: dissemination, binomial (bcast, reduce),
 * butterfly (allreduce), ring (allgatherv), pairwise (reduce_scatter).
 * A rank's step 3 waits for its step 2 (leaders) or its step 1, whose
 * buffers it overwrites; in bcast the root's too, since its step 2 sends
 * lead to all the other nodes and its own node's do not.
 *
 * Layout.  allgather and reduce_scatter need each node's blocks contiguous.
 * With consecutive nodes and one piece the rank layout is already sorted
 * by node and the user buffers are used directly.  Otherwise every rank
 * works in scratch P in node order (position i = rank order[i]):
 * allgather gathers into P and, after step 3, copies P to its receive
 * buffer in runs; reduce_scatter first copies its input into P in runs.
 * Rank order of reductions: step 1 in rank order inside a node, step 2 in
 * node order, which is rank order when the nodes are consecutive; hence
 * CH4COLL_R_ORDERED.
 *
 * Pipelining (parameter chunk).  The vector is cut into K pieces of whole
 * elements, at most 64 (the piece grows if needed).  bcast, reduce and
 * allreduce cut the message into pieces of chunk bytes.  allgather and
 * reduce_scatter(_block) cut every rank's block at the same offsets, chunk
 * / p bytes of each: a piece carries about chunk bytes of the whole vector
 * and is spread over all nodes.  Piece k's step 2 waits only for piece k's
 * step 1 (ch4coll_sched_join), its step 3 for its step 2, and each step
 * also for the same step of piece k - 1, so every step takes the pieces
 * one at a time, in order: with all pieces at once, the root's step-2
 * sends of every piece would queue ahead of any piece's later ones.  No
 * pipelining when every node has one rank (nothing to overlap).
 *
 * Tags.  Steps 1 and 3 of piece k use k (t1 + t3) + [0, t1) and + [t1,
 * t1 + t3), t1 and t3 fixed per collective (the binomial builders' ntags,
 * checked when their view is popped); step 2 of piece k the tags after all
 * of those, as many as its builder declares.  Ranks that are not leaders
 * build step 2 into a throwaway schedule to count them (once per distinct
 * piece shape), so that every rank declares the same total.
 *
 * Cost (alpha, beta between nodes; alpha' = alpha_node, beta' = beta_node
 * inside; gamma; q = ranks of the largest node, B = bytes of a piece,
 * lg = ceil(lg)):
 *   T1, T3  the binomial builders' cost functions on q ranks with (alpha',
 *           beta'): reduce lg q (alpha' + B beta' + B gamma), bcast lg q
 *           (alpha' + B beta') (allgather: p B), gather lg q alpha' +
 *           (q-1) B beta'; barrier lg q alpha' each way; scatter: the
 *           slowest node's (ranks - 1) alpha' + (its bytes - leader's)
 *           beta'.  reduce also takes the root's node (one more message
 *           when its root is not its lowest rank and the op does not
 *           commute).
 *   T2      the chosen algorithm's own cost function on the inner args
 *           with (alpha, beta).
 *   T       = T1 + T2 + T3 of piece 0 (the fill), plus per further piece
 *           the period: the slowest of T1, T2, T3 and of the leader's send
 *           port, receive port and CPU, which serve all three steps (its
 *           share of step 1 and 3 above; of step 2, T2 with gamma = 0 on
 *           both ports and the rest on the CPU).  K equal pieces:
 *           T = T1 + T2 + T3 + (K - 1) period.  K = 1: T1 + T2 + T3.  One
 *           rank per node: T = T2.
 *   Against model/replay.c: one rank per node (test_model's cases)
 *   within 3%.  On virtual nodes, p = 24..96, ppn 4 and 8, block and
 *   cyclic: small messages exact, except up to 17% low when the last node
 *   is much smaller (its leader enters step 2 early and holds another
 *   leader's receive port); 1-4 MiB: bcast within 2% (p = 24, ppn 4: 18%
 *   high), allgather 0.94-0.99, reduce_scatter(_block) 0.87-1.01, reduce
 *   and allreduce 0.75-0.99 of the replay (step 2's chain waits for a CPU
 *   busy with step 1's folds, which a sum of loads cannot show).
 *
 * Scratch: reduce: count elements at leaders that are not the root;
 * allreduce, bcast, barrier: none; allgather: p n bytes at every rank
 * when packed; reduce_scatter: the whole vector (N elements) at every rank
 * when packed (always in place: only the rank's own block of the receive
 * buffer may change), else at the leader; plus the binomial and
 * step-2 builders' own.  Building takes 2p + 3 nodes + 1 ints and 2p +
 * 3 nodes + 1 sizes.
 *
 * Restrictions: CH4COLL_R_NODES (1 < nodes < p) as a selection rule; the
 * builders work on any placement (one node; one rank per node, where
 * steps 1 and 3 are local copies), any root, uneven nodes, in place, zero
 * counts.  Reductions: CH4COLL_R_ORDERED.  Parameters: chunk, bytes per
 * pipeline piece, default 262144, 0 = one piece (barrier: none).
 *
 * Worked example, p = 7 on nodes of 3.
 * Block: nodes {0, 1, 2}, {3, 4, 5}, {6}; leaders 0, 3, 6.  allreduce, one
 * piece: step 1 binomial reduce 1 -> 0, 2 -> 0 and 4 -> 3, 5 -> 3 (0 folds
 * x0 op x1, then op x2: rank order); rank 6 is alone.  Step 2 allreduce
 * among 0, 3, 6 as inner ranks 0, 1, 2, the only messages between nodes.
 * Step 3 0 -> 2, 0 -> 1 and 3 -> 5, 3 -> 4.  T = 2 (alpha' + B beta' +
 * B gamma) + T2(3 ranks, B) + 2 (alpha' + B beta').  allgather is direct:
 * 1 and 2 send their blocks into 0's receive buffer at n and 2n; step 2
 * allgatherv of 3n, 3n, n bytes at 0, 3n, 6n; step 3 bcasts all 7n bytes.
 * Cyclic: nodes {0, 3, 6}, {1, 4}, {2, 5}; leaders 0, 1, 2; node order
 * 0 3 6 | 1 4 | 2 5.  allgather, one piece, packed: 3 and 6 send their
 * blocks to P[1], P[2] at rank 0, 4 to P[4] at 1, 5 to P[6] at 2; step 2
 * allgatherv among 0, 1, 2 of 3n, 2n, 2n bytes at 0, 3n, 5n of P; step 3
 * every leader bcasts P (7n bytes) in its node, and every rank copies P[i]
 * to block order[i] of its receive buffer: 7 copies, as no two
 * neighbouring positions hold consecutive ranks.  reduce_scatter_block,
 * one piece: every rank packs its input into P in that order (blocks 0, 3,
 * 6, 1, 4, 2, 5), step 1 reduces P to the leaders, step 2 reduce_scatter
 * with counts 3n, 2n, 2n leaves blocks 0, 3, 6 at the start of rank 0's
 * P, and rank 0 keeps block 0 and sends blocks 3 and 6 to ranks 3 and 6.
 * Non-commutative ops are refused here (R_ORDERED): node order 0 3 6 1 ...
 * is not rank order.
 */
#include "algo.h"

#include <math.h>
#include <string.h>

#include "../topo/nodes.h"
#include "../topo/topo.h"
#include "../util/util.h"

#define SMP_MAX_PIECES 64
#define SMP_RING       4 /* pieces whose builders' scratch is live at once */

/* Tags per piece of the intra-node steps (the binomial builders' ntags). */
enum {
    TAGS_REDUCE = 2, /* ch4coll_reduce_binomial */
    TAGS_BCAST = 1,  /* ch4coll_bcast_binomial */
    TAGS_GATHER = 1, /* ch4coll_gather_binomial */
    TAGS_OWN = 1     /* fan-in, fan-out, scatter (this file) */
};

/* ----------------------------------------------------------- node groups */

/* The nodes as groups of ranks, and this rank's place among them. */
typedef struct {
    int nodes;
    int consecutive; /* every node's ranks contiguous (rank order sorted) */
    int *order;      /* p: ranks sorted by (node, rank) */
    int *first;      /* nodes + 1: node j is order[first[j] .. first[j+1]) */
    int *pos;        /* p: position of each rank in order */
    int *lead;       /* nodes: index of node j's leader among its ranks */
    int *leaders;    /* nodes: rank of node j's leader */
    int node, idx;   /* this rank's node and index in it */
    int root_node;   /* node of the root (rooted collectives), else 0 */
    int qmax;        /* ranks of the largest node */
} groups_t;

/* Groups of a's ranks (args->loc; NULL: one rank per node).  root >= 0
 * leads its node; every other node is led by its lowest rank. */
static int groups_init(groups_t *g, const ch4coll_args_t *a, int root)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size, i, j;
    int *mem;

    g->nodes = loc ? loc->nodes : p;
    g->consecutive = loc ? loc->consecutive : 1;
    mem = ch4coll_malloc((2 * (size_t) p + 3 * (size_t) g->nodes + 1) *
                         sizeof *mem);
    if (!mem)
        return CH4COLL_ERR_NOMEM;
    g->order = mem;
    g->pos = mem + p;
    g->first = g->pos + p;
    g->lead = g->first + g->nodes + 1;
    g->leaders = g->lead + g->nodes;
    if (loc) {
        ch4coll_node_order(p, loc->node_of, g->nodes, g->order, g->first);
    } else {
        for (i = 0; i <= p; i++)
            g->first[i] = i;
        for (i = 0; i < p; i++)
            g->order[i] = i;
    }
    g->qmax = 0;
    for (j = 0; j < g->nodes; j++) {
        int q = g->first[j + 1] - g->first[j];
        g->lead[j] = 0;
        g->qmax = q > g->qmax ? q : g->qmax;
    }
    for (i = 0; i < p; i++)
        g->pos[g->order[i]] = i;
    g->root_node = 0;
    if (root >= 0) {
        g->root_node = loc ? loc->node_of[root] : root;
        g->lead[g->root_node] = g->pos[root] - g->first[g->root_node];
    }
    for (j = 0; j < g->nodes; j++)
        g->leaders[j] = g->order[g->first[j] + g->lead[j]];
    g->node = loc ? loc->node_of[a->rank] : a->rank;
    g->idx = g->pos[a->rank] - g->first[g->node];
    return CH4COLL_OK;
}

static int node_size(const groups_t *g, int j)
{
    return g->first[j + 1] - g->first[j];
}

/* Rank of member i of this rank's node. */
static int member(const groups_t *g, int i)
{
    return g->order[g->first[g->node] + i];
}

/* ---------------------------------------------------------- one smp call */

/* One call on one rank: its groups, pieces and tags. */
typedef struct {
    ch4coll_sched_t *s; /* NULL when only costing */
    const ch4coll_args_t *a;
    groups_t g;
    size_t piece; /* units per piece (the last one may be shorter) */
    int npieces;  /* K */
    int t1, t3;   /* intra-node tags per piece of steps 1 and 3 */
    int xtags;    /* step-2 tags declared so far */
    size_t *vc;   /* nodes: inner counts */
    size_t *vd;   /* nodes: inner displacements */
    size_t *q;    /* p + 1: a piece's offsets in node order */
    size_t *d;    /* p: block offsets in rank order (reduce_scatter) */
    int work;     /* scratch buffer id, or -1 */
    int ends[3][SMP_MAX_PIECES]; /* vertex after step i of piece k */
    int last[SMP_MAX_PIECES];    /* vertex after all of piece k, or -1 */
    int first;                   /* the current piece's first vertex */
    int pbuf, pbuf_k;            /* piece pbuf_k's scratch (piece_buf) */
    /* the last step-2 shape built only to count its tags */
    int seen_ntags; /* or -1 */
    size_t seen_count;
    size_t *seen_vc; /* nodes */
} smp_t;

static int smp_open(smp_t *x, ch4coll_sched_t *s, const ch4coll_args_t *a,
                    int root, int t1, int t3)
{
    int rc, p = a->size;

    memset(x, 0, sizeof *x);
    x->s = s;
    x->a = a;
    x->t1 = t1;
    x->t3 = t3;
    x->work = -1;
    x->pbuf_k = -1;
    x->seen_ntags = -1;
    rc = groups_init(&x->g, a, root);
    if (rc != CH4COLL_OK)
        return rc;
    x->vc = ch4coll_malloc((3 * (size_t) x->g.nodes + 2 * (size_t) p + 1) *
                           sizeof *x->vc);
    if (!x->vc) {
        ch4coll_free(x->g.order);
        return CH4COLL_ERR_NOMEM;
    }
    x->vd = x->vc + x->g.nodes;
    x->q = x->vd + x->g.nodes;
    x->d = x->q + p + 1;
    x->seen_vc = x->d + p;
    return CH4COLL_OK;
}

/* Declare the tags (steps 1 and 3 of every piece, then all step-2 tags)
 * and free what was used only to build. */
static int smp_close(smp_t *x, int rc)
{
    if (x->s && rc == CH4COLL_OK)
        ch4coll_sched_set_ntags(x->s, x->npieces * (x->t1 + x->t3) + x->xtags);
    ch4coll_free(x->vc);
    ch4coll_free(x->g.order);
    return rc;
}

/* Cut total units into pieces of about chunk bytes, unit bytes each. */
static void smp_cut(smp_t *x, int64_t chunk, size_t total, size_t unit)
{
    size_t c = total;

    if (chunk > 0 && x->g.nodes < x->a->size) {
        c = (size_t) chunk / (unit > 0 ? unit : 1);
        c = c > 0 ? c : 1;
        if (c < total && (total + c - 1) / c > SMP_MAX_PIECES)
            c = (total + SMP_MAX_PIECES - 1) / SMP_MAX_PIECES;
        c = c < total ? c : total;
    }
    x->piece = c;
    x->npieces = total == 0 ? 0 : (int) ((total + c - 1) / c);
}

static size_t piece_off(const smp_t *x, int k)
{
    return (size_t) k * x->piece;
}

/* Units of piece k within a vector (or block) of len units. */
static size_t piece_len(const smp_t *x, int k, size_t len)
{
    size_t o = piece_off(x, k);

    if (len <= o)
        return 0;
    return len - o < x->piece ? len - o : x->piece;
}

static int is_leader(const smp_t *x)
{
    return x->g.idx == x->g.lead[x->g.node];
}

/* (buf, element offset) as a schedule reference. */
static ch4coll_ref_t at(const smp_t *x, int buf, size_t elems)
{
    return ch4coll_ref(buf, ch4coll_eoff(x->a, elems));
}

/* Scratch for nelems elements, allocated once per call. */
static int work_buf(smp_t *x, size_t nelems)
{
    if (x->work < 0)
        x->work = ch4coll_sched_scratch_own(x->s, nelems);
    return x->work;
}

/* Scratch for nelems elements that only piece k uses, in its ring slot
 * (piece_open); asked once per piece, the same nelems every time. */
static int piece_buf(smp_t *x, int k, size_t nelems)
{
    if (x->pbuf_k != k) {
        x->pbuf = ch4coll_sched_scratch(x->s, nelems);
        x->pbuf_k = k;
    }
    return x->pbuf;
}

/* ------------------------------------------------------------ inner steps */

/* The shape of an inner call with the outer call's element and op. */
static void inner_args(const smp_t *x, int coll, size_t count,
                       ch4coll_args_t *ia)
{
    memset(ia, 0, sizeof *ia);
    ia->coll = coll;
    ia->count = count;
    ia->elem = x->a->elem;
    ia->op = x->a->op;
    ia->commutative = x->a->commutative;
    ia->op_builtin = x->a->op_builtin;
}

typedef struct {
    const ch4coll_algo_t *al;
    int64_t params[CH4COLL_MAX_PARAMS];
} choice_t;

/* The leaders' algorithm when the selection has none that applies. */
static const char *fallback_name(int coll)
{
    switch (coll) {
    case CH4COLL_BARRIER:
        return "dissemination";
    case CH4COLL_ALLREDUCE:
        return "butterfly";
    case CH4COLL_ALLGATHERV:
        return "ring";
    case CH4COLL_REDUCE_SCATTER:
        return "pairwise";
    default: /* bcast, reduce */
        return "binomial";
    }
}

/* Step 2's algorithm: args->subselect on the inner shape, else the
 * fallback.  Every rank gets the same answer (the shape is the same). */
static int choose(const ch4coll_args_t *a, const ch4coll_args_t *ia,
                  choice_t *c)
{
    const char *why;

    if (a->subselect && a->subselect(ia, &c->al, c->params) == 0 && c->al &&
        c->al->build && c->al->coll == ia->coll &&
        ch4coll_algo_applicable(c->al, ia, &why))
        return CH4COLL_OK;
    c->al = ch4coll_algo_find(ia->coll, fallback_name(ia->coll));
    if (!c->al || !c->al->build)
        return CH4COLL_ERR_ARG;
    ch4coll_algo_default_params(c->al, c->params);
    return CH4COLL_OK;
}

/* Run build on ia through view v; *done: a vertex after the whole step
 * (v's dependency if the step added nothing); *ntags its tags. */
static int run_view(ch4coll_sched_t *s, ch4coll_build_fn build,
                    const ch4coll_args_t *ia, const int64_t *params,
                    const ch4coll_view_t *v, int *done, int *ntags)
{
    int first = s->nv, rc;

    ch4coll_sched_push_view(s, v);
    rc = build(s, ia, params);
    *ntags = ch4coll_sched_pop_view(s);
    *done = ch4coll_sched_join(s, first);
    if (*done < 0)
        *done = v->ndeps > 0 ? v->deps[0] : -1;
    return rc;
}

/* The tags step 2 of shape ia declares, for ranks that are not leaders:
 * from a throwaway build, unless the previous piece had the same shape. */
static int dry_ntags(smp_t *x, const choice_t *c, const ch4coll_args_t *ia,
                     int *ntags)
{
    size_t vbytes = (size_t) x->g.nodes * sizeof *x->seen_vc;
    ch4coll_sched_t t;
    int rc;

    if (x->seen_ntags >= 0 && ia->count == x->seen_count &&
        (!ia->counts || memcmp(ia->counts, x->seen_vc, vbytes) == 0)) {
        *ntags = x->seen_ntags;
        return CH4COLL_OK;
    }
    rc = ch4coll_sched_init(&t, &x->s->elem, x->s->op, ia->rank, ia->size);
    if (rc == CH4COLL_OK)
        rc = c->al->build(&t, ia, c->params);
    if (rc == CH4COLL_OK)
        rc = t.status;
    *ntags = t.ntags;
    ch4coll_sched_destroy(&t);
    x->seen_ntags = rc == CH4COLL_OK ? *ntags : -1;
    x->seen_count = ia->count;
    if (ia->counts)
        memcpy(x->seen_vc, ia->counts, vbytes);
    return rc;
}

/* Piece k begins: its builders' scratch goes to ring slot k mod SMP_RING,
 * over that of piece k - SMP_RING, whose last use its steps wait for
 * (step_deps).  The scratch of the steps' builders is then that of
 * SMP_RING pieces, not of all K. */
static void piece_open(smp_t *x, int k)
{
    x->first = x->s->nv;
    x->last[k] = -1;
    if (x->npieces > SMP_RING)
        ch4coll_sched_scratch_slot(x->s, k % SMP_RING);
}

/* Piece k is built: a vertex after all of it, if a later piece reuses its
 * slot. */
static void piece_close(smp_t *x, int k)
{
    if (k + SMP_RING < x->npieces)
        x->last[k] = ch4coll_sched_join(x->s, x->first);
    ch4coll_sched_scratch_slot(x->s, -1);
}

/* What step i of piece k waits for: dep (its piece's previous step), step
 * i of piece k - 1, so that every step takes the pieces one at a time, in
 * order (all at once, the root's first step 2 sends of every piece would
 * queue before any piece's later ones), and the end of piece k - SMP_RING,
 * whose scratch it reuses.  Returns the count (d holds 3). */
static int step_deps(const smp_t *x, int i, int k, int dep, int *d)
{
    int c[3], n = 0, j;

    c[0] = dep;
    c[1] = k > 0 ? x->ends[i][k - 1] : -1;
    c[2] = k >= SMP_RING ? x->last[k - SMP_RING] : -1;
    for (j = 0; j < 3; j++)
        if (c[j] >= 0)
            d[n++] = c[j];
    return n;
}

/* Step 1 (post = 0) or 3 (post = 1) of piece k: build on this rank's node
 * as a communicator of its own, rooted at the leader; ia gets the group
 * (size, rank, root).  SEND/RECV of build are in and out. */
static int intra(smp_t *x, int k, int post, ch4coll_build_fn build,
                 ch4coll_args_t *ia, ch4coll_ref_t in, ch4coll_ref_t out,
                 int dep, int *done)
{
    const groups_t *g = &x->g;
    int64_t none[CH4COLL_MAX_PARAMS] = {0};
    int nt, rc, d[3];
    ch4coll_view_t v = {g->order + g->first[g->node],
                        node_size(g, g->node),
                        k * (x->t1 + x->t3) + (post ? x->t1 : 0),
                        {in, out},
                        step_deps(x, post ? 2 : 0, k, dep, d),
                        d};

    ia->size = v.size;
    ia->rank = g->idx;
    ia->root = g->lead[g->node];
    rc = run_view(x->s, build, ia, none, &v, done, &nt);
    x->ends[post ? 2 : 0][k] = *done;
    if (rc == CH4COLL_OK && nt > (post ? x->t3 : x->t1))
        rc = CH4COLL_ERR_ARG; /* more tags than reserved: see TAGS_* */
    return rc;
}

/* Step 2 of piece k among the leaders (ia: shape, root in node numbers,
 * this node's leader's inplace; gets size and rank).  Ranks that are not
 * leaders only count its tags; *done is then dep. */
static int inter(smp_t *x, int k, ch4coll_args_t *ia, ch4coll_ref_t in,
                 ch4coll_ref_t out, int dep, int *done)
{
    const groups_t *g = &x->g;
    choice_t c;
    int nt = 0, rc, d[3];
    ch4coll_view_t v = {g->leaders,
                        g->nodes,
                        x->npieces * (x->t1 + x->t3) + x->xtags,
                        {in, out},
                        step_deps(x, 1, k, dep, d),
                        d};

    ia->size = g->nodes;
    ia->rank = g->node;
    rc = choose(x->a, ia, &c);
    *done = dep;
    if (rc == CH4COLL_OK && is_leader(x))
        rc = run_view(x->s, c.al->build, ia, c.params, &v, done, &nt);
    else if (rc == CH4COLL_OK)
        rc = dry_ntags(x, &c, ia, &nt);
    x->ends[1][k] = *done;
    x->xtags += nt;
    return rc;
}

/* Copies of element runs from one buffer to another, merged where both
 * sides run on; offsets are elements from sbase and dbase. */
typedef struct {
    const smp_t *x;
    int sbuf, dbuf;
    size_t sbase, dbase;
    size_t so, dof, n; /* the pending run */
    int dep;
} runs_t;

static runs_t runs_open(const smp_t *x, int sbuf, size_t sbase, int dbuf,
                        size_t dbase, int dep)
{
    runs_t r;

    memset(&r, 0, sizeof r);
    r.x = x;
    r.sbuf = sbuf;
    r.dbuf = dbuf;
    r.sbase = sbase;
    r.dbase = dbase;
    r.dep = dep;
    return r;
}

static void runs_flush(runs_t *r)
{
    int d[1];

    if (r->n > 0)
        ch4coll_sched_copy(r->x->s, at(r->x, r->sbuf, r->sbase + r->so),
                           at(r->x, r->dbuf, r->dbase + r->dof), r->n,
                           ch4coll_dep1(r->dep, d), d);
    r->n = 0;
}

static void runs_add(runs_t *r, size_t so, size_t dof, size_t n)
{
    if (n == 0)
        return;
    if (r->n > 0 && r->so + r->n == so && r->dof + r->n == dof) {
        r->n += n;
        return;
    }
    runs_flush(r);
    r->so = so;
    r->dof = dof;
    r->n = n;
}

/* ------------------------------------------------------------ cost helpers */

/* One piece on the model: the three steps' times, and what the busiest
 * leader's send port, receive port and CPU spend on the piece (the
 * leader serves all three steps). */
typedef struct {
    double step[3];
    double out, in, cpu;
} piece_cost_t;

typedef void (*stages_fn)(smp_t *x, int k, const ch4coll_model_t *m,
                          piece_cost_t *c);

/* The intra-node link class as a model of its own. */
static ch4coll_model_t node_model(const ch4coll_model_t *m)
{
    ch4coll_model_t n = *m;

    n.alpha = m->alpha_node;
    n.beta = m->beta_node;
    return n;
}

/* An intra-node builder's cost on q ranks rooted at index root. */
static double node_cost(const smp_t *x, ch4coll_cost_fn f, int coll,
                        size_t count, int q, int root, const ch4coll_model_t *m)
{
    ch4coll_model_t mn = node_model(m);
    ch4coll_args_t na;

    if (q <= 1)
        return 0.0;
    inner_args(x, coll, count, &na);
    na.size = q;
    na.rank = root;
    na.root = root;
    return f(&na, NULL, &mn);
}

/* Messages the root of a binomial tree of q ranks exchanges. */
static double root_msgs(int q)
{
    return (double) ch4coll_ceil_log2(q);
}

/* Step 2: the chosen algorithm's own formula between nodes; at the leader
 * its time without reductions on both ports, the rest on the CPU. */
static void leaders_cost(const smp_t *x, ch4coll_args_t *ia,
                         const ch4coll_model_t *m, piece_cost_t *c)
{
    ch4coll_model_t no_gamma = *m;
    choice_t ch;
    double t, comm;

    ia->size = x->g.nodes;
    ia->rank = x->g.node;
    if (choose(x->a, ia, &ch) != CH4COLL_OK || !ch.al->cost)
        return;
    no_gamma.gamma = 0.0;
    t = ch.al->cost(ia, ch.params, m);
    comm = ch.al->cost(ia, ch.params, &no_gamma);
    c->step[1] = t;
    c->out += comm;
    c->in += comm;
    c->cpu += t > comm ? t - comm : 0.0;
}

/* Step 1 as a binomial reduce of count elements to the leader of q ranks
 * (index root). */
static void node_reduce_cost(const smp_t *x, size_t count, int q, int root,
                             const ch4coll_model_t *m, piece_cost_t *c)
{
    double bytes = ch4coll_nbytes(x->a, count);
    double t = node_cost(x, ch4coll_cost_reduce_binomial, CH4COLL_REDUCE, count,
                         q, root, m);

    c->step[0] = t > c->step[0] ? t : c->step[0];
    c->in += root_msgs(q) * (m->alpha_node + bytes * m->beta_node);
    c->cpu += root_msgs(q) * bytes * m->gamma;
}

/* Step 3 as a binomial bcast of count units from the leader of q ranks. */
static void node_bcast_cost(const smp_t *x, size_t count, int q,
                            const ch4coll_model_t *m, piece_cost_t *c)
{
    c->step[2] = node_cost(x, ch4coll_cost_bcast_binomial, CH4COLL_BCAST, count,
                           q, 0, m);
    c->out += root_msgs(q) *
              (m->alpha_node + ch4coll_nbytes(x->a, count) * m->beta_node);
}

/* The slowest of what one piece keeps busy. */
static double busiest(const piece_cost_t *c)
{
    const double v[6] = {c->step[0], c->step[1], c->step[2],
                         c->out,     c->in,      c->cpu};
    double t = 0.0;
    int i;

    for (i = 0; i < 6; i++)
        t = v[i] > t ? v[i] : t;
    return t;
}

/* Fill (piece 0 through all three steps), then one period per further
 * piece: the busiest of the three steps and of the leader's ports and
 * CPU.  For K equal pieces T = T1 + T2 + T3 + (K - 1) period. */
static double smp_cost(smp_t *x, stages_fn f, const ch4coll_model_t *m)
{
    double t = 0.0;
    int k;

    for (k = 0; k < x->npieces; k++) {
        piece_cost_t c = {{0, 0, 0}, 0, 0, 0};
        f(x, k, m, &c);
        t += k == 0 ? c.step[0] + c.step[1] + c.step[2] : busiest(&c);
    }
    smp_close(x, CH4COLL_OK);
    return t;
}

/* ---------------------------------------------------------------- barrier */

/* Step 1: empty messages up a binomial tree of the node to its leader. */
static int barrier_fan_in(smp_t *x, int *done)
{
    const groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);
    int q = node_size(g, g->node), vr = g->idx, first = s->nv, m, got;
    int parent = ch4coll_binomial_parent(vr), d[1];

    for (m = 1; m < ch4coll_binomial_mask_limit(vr, q) && vr + m < q; m *= 2)
        ch4coll_sched_recv(s, none, 0, member(g, vr + m), 0, 0, NULL);
    got = ch4coll_sched_join(s, first);
    if (parent >= 0)
        ch4coll_sched_send(s, none, 0, member(g, parent), 0,
                           ch4coll_dep1(got, d), d);
    *done = ch4coll_sched_join(s, first);
    return CH4COLL_OK;
}

/* Step 2: a barrier among the leaders. */
static int barrier_among_leaders(smp_t *x, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    inner_args(x, CH4COLL_BARRIER, 0, &ia);
    return inter(x, 0, &ia, none, none, dep, done);
}

/* Step 3: the release down the same tree (tag 1). */
static int barrier_fan_out(smp_t *x, int dep)
{
    const groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);
    int q = node_size(g, g->node), vr = g->idx, m, got = dep, d[1];
    int parent = ch4coll_binomial_parent(vr);

    if (parent >= 0)
        got = ch4coll_sched_recv(s, none, 0, member(g, parent), 1,
                                 ch4coll_dep1(dep, d), d);
    for (m = ch4coll_binomial_mask_limit(vr, q) / 2; m >= 1; m /= 2)
        if (vr + m < q)
            ch4coll_sched_send(s, none, 0, member(g, vr + m), 1,
                               ch4coll_dep1(got, d), d);
    return CH4COLL_OK;
}

int ch4coll_barrier_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params)
{
    smp_t x;
    int rc, d1 = -1, d2 = -1;

    (void) params;
    rc = smp_open(&x, s, a, -1, TAGS_OWN, TAGS_OWN);
    if (rc != CH4COLL_OK)
        return rc;
    x.npieces = 1;
    rc = barrier_fan_in(&x, &d1);
    if (rc == CH4COLL_OK)
        rc = barrier_among_leaders(&x, d1, &d2);
    if (rc == CH4COLL_OK)
        rc = barrier_fan_out(&x, d2);
    return smp_close(&x, rc);
}

static void barrier_stages(smp_t *x, int k, const ch4coll_model_t *m,
                           piece_cost_t *c)
{
    ch4coll_args_t ia;

    (void) k;
    inner_args(x, CH4COLL_BARRIER, 0, &ia);
    c->step[0] = c->step[2] = root_msgs(x->g.qmax) * m->alpha_node;
    leaders_cost(x, &ia, m, c);
}

double ch4coll_cost_barrier_smp(const ch4coll_args_t *a, const int64_t *params,
                                const ch4coll_model_t *m)
{
    smp_t x;

    (void) params;
    if (smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    x.npieces = 1;
    return smp_cost(&x, barrier_stages, m);
}

/* ------------------------------------------------------------------ bcast */

/* The leaders' bcast of piece k, from the root's node. */
static void bcast_leaders_args(const smp_t *x, int k, ch4coll_args_t *ia)
{
    inner_args(x, CH4COLL_BCAST, piece_len(x, k, x->a->count), ia);
    ia->root = x->g.root_node;
}

/* Step 2: piece k among the leaders. */
static int bcast_among_leaders(smp_t *x, int k, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = at(x, CH4COLL_BUF_RECV, piece_off(x, k));

    bcast_leaders_args(x, k, &ia);
    return inter(x, k, &ia, buf, buf, -1, done);
}

/* Step 3: piece k (count units at element offset off) from the leader
 * inside the node. */
static int bcast_in_node(smp_t *x, int k, size_t off, size_t count, int dep)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = at(x, CH4COLL_BUF_RECV, off);
    int done;

    inner_args(x, CH4COLL_BCAST, count, &ia);
    return intra(x, k, 1, ch4coll_bcast_binomial, &ia, buf, buf, dep, &done);
}

int ch4coll_bcast_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                      const int64_t *params)
{
    smp_t x;
    int rc, k;

    rc = smp_open(&x, s, a, a->root, 0, TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    smp_cut(&x, params[0], a->count, 1);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d2 = -1;
        piece_open(&x, k);
        rc = bcast_among_leaders(&x, k, &d2);
        /* at the root too after its step 2 sends: they are on the path to
         * every other node, its own node's are not */
        if (rc == CH4COLL_OK)
            rc = bcast_in_node(&x, k, piece_off(&x, k),
                               piece_len(&x, k, a->count), d2);
        piece_close(&x, k);
    }
    return smp_close(&x, rc);
}

static void bcast_stages(smp_t *x, int k, const ch4coll_model_t *m,
                         piece_cost_t *c)
{
    ch4coll_args_t ia;

    bcast_leaders_args(x, k, &ia);
    leaders_cost(x, &ia, m, c);
    node_bcast_cost(x, ia.count, x->g.qmax, m, c);
}

double ch4coll_cost_bcast_smp(const ch4coll_args_t *a, const int64_t *params,
                              const ch4coll_model_t *m)
{
    smp_t x;

    if (smp_open(&x, NULL, a, a->root, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    smp_cut(&x, params[0], a->count, 1);
    return smp_cost(&x, bcast_stages, m);
}

/* ----------------------------------------------------------------- reduce */

/* Where this rank's partial result of piece k lives: the root's receive
 * buffer, the piece's scratch at the other leaders. */
static ch4coll_ref_t reduce_partial(smp_t *x, int k)
{
    const ch4coll_args_t *a = x->a;

    if (a->rank == a->root || !is_leader(x))
        return at(x, CH4COLL_BUF_RECV, piece_off(x, k));
    return ch4coll_ref(piece_buf(x, k, piece_len(x, k, a->count)), 0);
}

/* Step 1: piece k to the node's leader, in rank order. */
static int reduce_in_node(smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    int root_inplace = a->rank == a->root && a->inplace;
    ch4coll_args_t ia;

    inner_args(x, CH4COLL_REDUCE, piece_len(x, k, a->count), &ia);
    ia.inplace = root_inplace;
    return intra(x, k, 0, ch4coll_reduce_binomial, &ia,
                 at(x, root_inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND,
                    piece_off(x, k)),
                 reduce_partial(x, k), -1, done);
}

/* The leaders' reduce of piece k to the root's node; the root's partial
 * is in place. */
static void reduce_leaders_args(const smp_t *x, int k, ch4coll_args_t *ia)
{
    inner_args(x, CH4COLL_REDUCE, piece_len(x, k, x->a->count), ia);
    ia->root = x->g.root_node;
    ia->inplace = x->a->rank == x->a->root;
}

/* Step 2: the leaders' partials to the root, in node order. */
static int reduce_among_leaders(smp_t *x, int k, int dep)
{
    ch4coll_args_t ia;
    int done;

    reduce_leaders_args(x, k, &ia);
    return inter(x, k, &ia, reduce_partial(x, k),
                 at(x, CH4COLL_BUF_RECV, piece_off(x, k)), dep, &done);
}

int ch4coll_reduce_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       const int64_t *params)
{
    smp_t x;
    int rc, k;

    rc = smp_open(&x, s, a, a->root, TAGS_REDUCE, 0);
    if (rc != CH4COLL_OK)
        return rc;
    smp_cut(&x, params[0], a->count, a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1;
        piece_open(&x, k);
        rc = reduce_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = reduce_among_leaders(&x, k, d1);
        piece_close(&x, k);
    }
    return smp_close(&x, rc);
}

/* Step 1 on the largest node and on the root's node (whose root may not be
 * its lowest rank: one more message for a non-commutative op). */
static void reduce_stages(smp_t *x, int k, const ch4coll_model_t *m,
                          piece_cost_t *c)
{
    const groups_t *g = &x->g;
    piece_cost_t own = {{0, 0, 0}, 0, 0, 0};
    ch4coll_args_t ia;

    reduce_leaders_args(x, k, &ia);
    node_reduce_cost(x, ia.count, g->qmax, 0, m, c);
    node_reduce_cost(x, ia.count, node_size(g, g->root_node),
                     g->lead[g->root_node], m, &own);
    c->step[0] = own.step[0] > c->step[0] ? own.step[0] : c->step[0];
    leaders_cost(x, &ia, m, c);
}

double ch4coll_cost_reduce_smp(const ch4coll_args_t *a, const int64_t *params,
                               const ch4coll_model_t *m)
{
    smp_t x;

    if (smp_open(&x, NULL, a, a->root, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    smp_cut(&x, params[0], a->count, a->elem.size);
    return smp_cost(&x, reduce_stages, m);
}

/* -------------------------------------------------------------- allreduce */

/* Step 1: piece k to the node's leader (its receive buffer), rank order. */
static int allreduce_in_node(smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    ch4coll_args_t ia;
    size_t off = piece_off(x, k);

    inner_args(x, CH4COLL_REDUCE, piece_len(x, k, a->count), &ia);
    ia.inplace = a->inplace && is_leader(x);
    return intra(x, k, 0, ch4coll_reduce_binomial, &ia,
                 at(x, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, off),
                 at(x, CH4COLL_BUF_RECV, off), -1, done);
}

/* The leaders' allreduce of piece k, in place. */
static void allreduce_leaders_args(const smp_t *x, int k, ch4coll_args_t *ia)
{
    inner_args(x, CH4COLL_ALLREDUCE, piece_len(x, k, x->a->count), ia);
    ia->inplace = 1;
}

/* Step 2. */
static int allreduce_among_leaders(smp_t *x, int k, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = at(x, CH4COLL_BUF_RECV, piece_off(x, k));

    allreduce_leaders_args(x, k, &ia);
    return inter(x, k, &ia, buf, buf, dep, done);
}

int ch4coll_allreduce_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    smp_t x;
    int rc, k;

    rc = smp_open(&x, s, a, -1, TAGS_REDUCE, TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    smp_cut(&x, params[0], a->count, a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1, d2 = -1;
        piece_open(&x, k);
        rc = allreduce_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = allreduce_among_leaders(&x, k, d1, &d2);
        /* step 3 at non-leaders: d2 = d1, their input may be overwritten */
        if (rc == CH4COLL_OK)
            rc = bcast_in_node(&x, k, piece_off(&x, k),
                               piece_len(&x, k, a->count), d2);
        piece_close(&x, k);
    }
    return smp_close(&x, rc);
}

static void allreduce_stages(smp_t *x, int k, const ch4coll_model_t *m,
                             piece_cost_t *c)
{
    ch4coll_args_t ia;

    allreduce_leaders_args(x, k, &ia);
    node_reduce_cost(x, ia.count, x->g.qmax, 0, m, c);
    leaders_cost(x, &ia, m, c);
    node_bcast_cost(x, ia.count, x->g.qmax, m, c);
}

double ch4coll_cost_allreduce_smp(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    smp_t x;

    if (smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    smp_cut(&x, params[0], a->count, a->elem.size);
    return smp_cost(&x, allreduce_stages, m);
}

/* -------------------------------------------------------------- allgather */

/* Rank layout is node order and there is one piece: no packing. */
static int direct(const smp_t *x)
{
    return x->g.consecutive && x->npieces == 1;
}

/* Piece k of every block in node order: the receive buffer (direct), or
 * the piece's packed scratch (p times the piece). */
static ch4coll_ref_t allgather_work(smp_t *x, int k)
{
    size_t p = (size_t) x->a->size;

    if (direct(x))
        return ch4coll_ref(CH4COLL_BUF_RECV, 0);
    return ch4coll_ref(piece_buf(x, k, p * piece_len(x, k, x->a->count)), 0);
}

/* Step 1: gather piece k of the node's blocks at the leader, at the
 * node's positions of the work layout. */
static int allgather_in_node(smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    size_t c = piece_len(x, k, a->count), off = piece_off(x, k);
    ch4coll_ref_t in = ch4coll_ref(CH4COLL_BUF_SEND, off);
    ch4coll_ref_t out = allgather_work(x, k);
    ch4coll_args_t ia;

    if (a->inplace)
        in = ch4coll_ref(CH4COLL_BUF_RECV, (size_t) a->rank * a->count + off);
    out.off += (size_t) x->g.first[x->g.node] * c;
    inner_args(x, CH4COLL_GATHER, c, &ia);
    ia.inplace = a->inplace && is_leader(x) && direct(x);
    return intra(x, k, 0, ch4coll_gather_binomial, &ia, in, out, -1, done);
}

/* The leaders' allgatherv of piece k: node j's ranks' parts at their
 * positions, in place. */
static void allgather_leaders_args(smp_t *x, int k, ch4coll_args_t *ia)
{
    const groups_t *g = &x->g;
    size_t c = piece_len(x, k, x->a->count);
    int j;

    for (j = 0; j < g->nodes; j++) {
        x->vc[j] = (size_t) node_size(g, j) * c;
        x->vd[j] = (size_t) g->first[j] * c;
    }
    inner_args(x, CH4COLL_ALLGATHERV, x->vc[g->node], ia);
    ia->counts = x->vc;
    ia->displs = x->vd;
    ia->inplace = 1;
}

/* Step 2. */
static int allgather_among_leaders(smp_t *x, int k, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = allgather_work(x, k);

    allgather_leaders_args(x, k, &ia);
    return inter(x, k, &ia, buf, buf, dep, done);
}

/* Step 3: bcast the whole piece in the node, then (packed) copy it to the
 * blocks of the receive buffer. */
static int allgather_bcast_in_node(smp_t *x, int k, int dep)
{
    const ch4coll_args_t *a = x->a;
    size_t c = piece_len(x, k, a->count), p = (size_t) a->size, i;
    ch4coll_ref_t buf = allgather_work(x, k);
    ch4coll_args_t ia;
    runs_t r;
    int rc, done;

    inner_args(x, CH4COLL_BCAST, p * c, &ia);
    rc = intra(x, k, 1, ch4coll_bcast_binomial, &ia, buf, buf, dep, &done);
    if (rc != CH4COLL_OK || direct(x))
        return rc;
    r = runs_open(x, buf.buf, buf.off, CH4COLL_BUF_RECV, piece_off(x, k), done);
    for (i = 0; i < p; i++)
        runs_add(&r, i * c, (size_t) x->g.order[i] * a->count, c);
    runs_flush(&r);
    return CH4COLL_OK;
}

int ch4coll_allgather_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    smp_t x;
    int rc, k;

    rc = smp_open(&x, s, a, -1, TAGS_GATHER, TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    smp_cut(&x, params[0], a->count, (size_t) a->size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1, d2 = -1;
        piece_open(&x, k);
        rc = allgather_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = allgather_among_leaders(&x, k, d1, &d2);
        if (rc == CH4COLL_OK)
            rc = allgather_bcast_in_node(&x, k, d2);
        piece_close(&x, k);
    }
    return smp_close(&x, rc);
}

/* Step 1 at the leader: lg q messages, the other q - 1 blocks. */
static void allgather_stages(smp_t *x, int k, const ch4coll_model_t *m,
                             piece_cost_t *c)
{
    size_t len = piece_len(x, k, x->a->count);
    int q = x->g.qmax;
    ch4coll_args_t ia;

    allgather_leaders_args(x, k, &ia);
    c->step[0] = node_cost(x, ch4coll_cost_gather_binomial, CH4COLL_GATHER, len,
                           q, 0, m);
    c->in += root_msgs(q) * m->alpha_node +
             (double) (q - 1) * (double) len * m->beta_node;
    leaders_cost(x, &ia, m, c);
    node_bcast_cost(x, (size_t) x->a->size * len, q, m, c);
}

double ch4coll_cost_allgather_smp(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    smp_t x;

    if (smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    smp_cut(&x, params[0], a->count, (size_t) a->size);
    return smp_cost(&x, allgather_stages, m);
}

/* --------------------------------------------------------- reduce_scatter */

/* Elements of rank r's block. */
static size_t rs_count(const smp_t *x, int r)
{
    return x->a->counts ? x->a->counts[r] : x->a->count;
}

/* Block offsets in rank order (MPI: the blocks follow each other) into d;
 * returns the vector's length and sets *most to the largest block. */
static size_t rs_blocks(smp_t *x, size_t *most)
{
    size_t n = 0;
    int r;

    *most = 0;
    for (r = 0; r < x->a->size; r++) {
        x->d[r] = n;
        n += rs_count(x, r);
        *most = rs_count(x, r) > *most ? rs_count(x, r) : *most;
    }
    return n;
}

/* Piece k of every block in node order: q[i] = offset of position i's
 * part; returns the piece's length. */
static size_t rs_layout(smp_t *x, int k)
{
    int i, p = x->a->size;

    x->q[0] = 0;
    for (i = 0; i < p; i++)
        x->q[i + 1] = x->q[i] + piece_len(x, k, rs_count(x, x->g.order[i]));
    return x->q[p];
}

/* reduce_scatter works on the user's buffers only when not in place: in
 * place, the receive buffer holds the input and only the rank's own
 * block may change (as with the host MPI), so the vector is packed. */
static int rs_direct(const smp_t *x)
{
    return direct(x) && !x->a->inplace;
}

/* Where piece k (len elements in node order) is reduced and scattered:
 * packed, the piece's scratch; direct (one piece): the input, at the
 * leader scratch of n elements. */
static ch4coll_ref_t rs_work(smp_t *x, int k, size_t n, size_t len)
{
    if (!rs_direct(x))
        return ch4coll_ref(piece_buf(x, k, len), 0);
    return is_leader(x) ? at(x, work_buf(x, n), 0)
                        : ch4coll_ref(CH4COLL_BUF_SEND, 0);
}

/* Packed: copy piece k of the input into node order (its layout q) in
 * work, after the last use of the slot's previous piece; *done after the
 * copies.  In place the input is the receive buffer, and step 3 of piece
 * j writes elements [j c, (j + 1) c) of it (c = the piece): after piece j's
 * copies, before piece j + 1's, which read from (j + 1) c on. */
static int rs_pack(smp_t *x, int k, ch4coll_ref_t work, int *done)
{
    const ch4coll_args_t *a = x->a;
    int i, first = x->s->nv;
    runs_t r;

    *done = -1;
    if (rs_direct(x))
        return CH4COLL_OK;
    r = runs_open(x, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0,
                  work.buf, 0, k >= SMP_RING ? x->last[k - SMP_RING] : -1);
    for (i = 0; i < a->size; i++) {
        int rk = x->g.order[i];
        runs_add(&r, x->d[rk] + piece_off(x, k), x->q[i],
                 piece_len(x, k, rs_count(x, rk)));
    }
    runs_flush(&r);
    *done = ch4coll_sched_join(x->s, first);
    return CH4COLL_OK;
}

/* Step 1: piece k (len elements at work) to the node's leader. */
static int rs_in_node(smp_t *x, int k, ch4coll_ref_t work, size_t len, int dep,
                      int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t in = work;

    if (rs_direct(x))
        in = ch4coll_ref(CH4COLL_BUF_SEND, 0);
    inner_args(x, CH4COLL_REDUCE, len, &ia);
    ia.inplace = is_leader(x) && in.buf == work.buf;
    return intra(x, k, 0, ch4coll_reduce_binomial, &ia, in, work, dep, done);
}

/* The leaders' reduce_scatter of the piece laid out in q: node j gets its
 * ranks' parts, at the start of its vector (in place). */
static void rs_leaders_args(smp_t *x, ch4coll_args_t *ia)
{
    const groups_t *g = &x->g;
    int j;

    for (j = 0; j < g->nodes; j++) {
        x->vd[j] = x->q[g->first[j]];
        x->vc[j] = x->q[g->first[j + 1]] - x->vd[j];
    }
    inner_args(x, CH4COLL_REDUCE_SCATTER, x->vc[g->node], ia);
    ia->counts = x->vc;
    ia->displs = x->vd;
    ia->inplace = 1;
}

/* Step 2. */
static int rs_among_leaders(smp_t *x, int k, ch4coll_ref_t work, int dep,
                            int *done)
{
    ch4coll_args_t ia;

    rs_leaders_args(x, &ia);
    return inter(x, k, &ia, work, work, dep, done);
}

/* Step 3: the leader sends every rank of the node its part of piece k
 * and keeps its own. */
static int rs_scatter(smp_t *x, int k, ch4coll_ref_t work, int dep)
{
    const groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    int q = node_size(g, g->node), tag = k * (x->t1 + x->t3) + x->t1, i, d[1];
    size_t o = x->q[g->first[g->node]], len;
    ch4coll_ref_t mine = at(x, CH4COLL_BUF_RECV, piece_off(x, k)), part;

    if (!is_leader(x)) {
        len = piece_len(x, k, rs_count(x, x->a->rank));
        if (len > 0)
            ch4coll_sched_recv(s, mine, len, member(g, g->lead[g->node]), tag,
                               ch4coll_dep1(dep, d), d);
        return CH4COLL_OK;
    }
    for (i = 0; i < q; i++) {
        len = piece_len(x, k, rs_count(x, member(g, i)));
        part = work;
        part.off += ch4coll_eoff(x->a, x->q[g->first[g->node] + i] - o);
        if (len > 0 && i != g->idx)
            ch4coll_sched_send(s, part, len, member(g, i), tag,
                               ch4coll_dep1(dep, d), d);
        else if (len > 0 && (part.buf != mine.buf || part.off != mine.off))
            ch4coll_sched_copy(s, part, mine, len, ch4coll_dep1(dep, d), d);
    }
    return CH4COLL_OK;
}

/* Shared body of reduce_scatter and reduce_scatter_block. */
static int reduce_scatter_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    smp_t x;
    int rc, k;
    size_t n, most;

    rc = smp_open(&x, s, a, -1, TAGS_REDUCE, TAGS_OWN);
    if (rc != CH4COLL_OK)
        return rc;
    n = rs_blocks(&x, &most);
    smp_cut(&x, params[0], most, (size_t) a->size * a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        size_t len = rs_layout(&x, k);
        ch4coll_ref_t work;
        int d0 = -1, d1 = -1, d2 = -1;
        piece_open(&x, k);
        work = rs_work(&x, k, n, len);
        rc = rs_pack(&x, k, work, &d0);
        if (rc == CH4COLL_OK)
            rc = rs_in_node(&x, k, work, len, d0, &d1);
        if (rc == CH4COLL_OK)
            rc = rs_among_leaders(&x, k, work, d1, &d2);
        if (rc == CH4COLL_OK)
            rc = rs_scatter(&x, k, work, d2);
        piece_close(&x, k);
    }
    return smp_close(&x, rc);
}

int ch4coll_reduce_scatter_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    return reduce_scatter_smp(s, a, params);
}

int ch4coll_reduce_scatter_block_smp(ch4coll_sched_t *s,
                                     const ch4coll_args_t *a,
                                     const int64_t *params)
{
    return reduce_scatter_smp(s, a, params);
}

/* Step 3 on the model: the slowest node's leader sends one message per
 * rank with a part. */
static double rs_scatter_cost(const smp_t *x, int k, const ch4coll_model_t *m)
{
    const groups_t *g = &x->g;
    double worst = 0.0;
    int j, i;

    for (j = 0; j < g->nodes; j++) {
        double t = 0.0;
        for (i = g->first[j] + 1; i < g->first[j + 1]; i++) {
            size_t len = piece_len(x, k, rs_count(x, g->order[i]));
            if (len > 0)
                t += m->alpha_node + ch4coll_nbytes(x->a, len) * m->beta_node;
        }
        worst = t > worst ? t : worst;
    }
    return worst;
}

static void rs_stages(smp_t *x, int k, const ch4coll_model_t *m,
                      piece_cost_t *c)
{
    ch4coll_args_t ia;
    size_t len = rs_layout(x, k);

    rs_leaders_args(x, &ia);
    node_reduce_cost(x, len, x->g.qmax, 0, m, c);
    leaders_cost(x, &ia, m, c);
    c->step[2] = rs_scatter_cost(x, k, m);
    c->out += c->step[2];
}

static double reduce_scatter_cost(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    smp_t x;
    size_t most;

    if (smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    rs_blocks(&x, &most);
    smp_cut(&x, params[0], most, (size_t) a->size * a->elem.size);
    return smp_cost(&x, rs_stages, m);
}

double ch4coll_cost_reduce_scatter_smp(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return reduce_scatter_cost(a, params, m);
}

double ch4coll_cost_reduce_scatter_block_smp(const ch4coll_args_t *a,
                                             const int64_t *params,
                                             const ch4coll_model_t *m)
{
    return reduce_scatter_cost(a, params, m);
}
