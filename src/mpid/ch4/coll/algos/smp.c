/*
 * smp.c - the framework of the hierarchical ("smp") collectives: a step
 * inside every node, a step among one leader per node, a step inside every
 * node again.  The compositions are smp_barrier.c, smp_bcast.c,
 * smp_reduce.c, smp_allreduce.c, smp_allgather.c and smp_reduce_scatter.c,
 * each with its steps, cost and worked example; this file has what they
 * share (node groups, pieces, tags, the inner steps, the cost skeleton).
 *
 * Source: NEC MPI/SX (seeds/nec-mpisx-collectives.txt).  Section 2: nodes
 * are shared-memory SMPs, messages inside a node cheaper than across the
 * switch.  3.3: bcast trees "across nodes, not MPI processes, with an
 * arbitrary process chosen as local root on each node"; 3.4: reduce the
 * same way inverted, allreduce as reduce + bcast, reduce_scatter as reduce
 * + scatter; 3.5 and Table 2: an intra-node ("-single") and an inter-node
 * ("-node") algorithm, "for large m pipelining is employed in all steps";
 * 4.1/4.2: processes in node order, allgather as gather + allgather of
 * node blocks + bcast.
 *
 * Steps.  Node j: its ranks in rank order (ch4coll_node_order); its leader
 * is the lowest, for bcast and reduce the root on the root's node.  Steps 1
 * and 3 run ch4coll_{reduce,bcast,gather}_binomial through a view of the
 * schedule (sched.h) on the node's ranks, rooted at the leader (the reduce
 * folds in rank order for any op, in elements of the call's type); the
 * barrier's fan-in/out and the scatter are written here.  Step 2 runs the
 * algorithm args->subselect picks for the leaders: inner args with size =
 * nodes, rank = node index, root = the root's node, the call's element, op
 * and commutativity, loc and subselect NULL, v-arrays built here; if none
 * applies: dissemination, binomial (bcast, reduce), butterfly (allreduce),
 * ring (allgatherv), pairwise (reduce_scatter).  A rank's step 3 waits for
 * its step 2 (leaders) or step 1, whose buffers it overwrites; in bcast the
 * root's too, since its step-2 sends leave its own node out.
 *
 * Layout.  allgather and reduce_scatter need each node's blocks together:
 * with consecutive nodes and one piece the user buffers serve; otherwise
 * every rank works in scratch P in node order (position i = rank order[i]),
 * allgather copying P to its receive buffer in runs after step 3,
 * reduce_scatter copying its input into P in runs first.  Reductions fold
 * in rank order inside a node and in node order among leaders, which is
 * rank order when nodes are consecutive; hence CH4COLL_R_ORDERED.
 *
 * Pipelining (parameter chunk).  The vector is cut into K pieces of whole
 * elements, at most 64.  bcast, reduce and allreduce cut the message into
 * pieces of chunk bytes; allgather and reduce_scatter(_block) cut every
 * rank's block at the same offsets, chunk / p bytes of each.  Piece k's
 * step 2 waits for its step 1 only (ch4coll_sched_join), its step 3 for its
 * step 2, and every step for the same step of piece k - 1, so each step
 * takes the pieces in order.  No pipelining with one rank per node.
 * Tags: steps 1 and 3 of piece k use k (t1 + t3) + [0, t1) and [t1,
 * t1 + t3) (the binomial builders' ntags); step 2 the tags after all of
 * those, as many as ch4coll_algo_ntags gives for its shape (pure: ranks that
 * are not leaders reserve them without building); a leader's build that
 * declares another count is refused.
 *
 * Cost (alpha, beta between nodes; alpha' = alpha_node, beta' = beta_node
 * inside; q = ranks of the largest node, B = bytes of a piece, lg = ceil
 * lg): T1, T3 are the binomial cost functions on q ranks with (alpha',
 * beta'): reduce lg q (alpha' + B beta' + B gamma), bcast lg q (alpha' +
 * B beta') (allgather: p B), gather lg q alpha' + (q-1) B beta', barrier
 * lg q alpha' each way, scatter the slowest node's (ranks - 1) alpha' +
 * (its bytes - leader's) beta'; reduce also takes the root's node.  T2 is
 * the chosen algorithm's cost on the inner args with (alpha, beta).
 *   T = T1 + T2 + T3 + (K - 1) period,
 * the period being the slowest of T1, T2, T3 and of the leader's send port,
 * receive port and CPU, which serve all three steps (its share of steps 1
 * and 3 above; of step 2, T2 with gamma = 0 on both ports and the rest on
 * the CPU).  One rank per node: T = T2.
 * Scratch: reduce: count elements at non-root leaders; allreduce, bcast,
 * barrier: none; allgather: p n bytes at every rank when packed;
 * reduce_scatter: N elements at every rank when packed (always in place),
 * else at the leader; plus the inner builders' own, for at most
 * CH4COLL_SMP_RING pieces at once.  Building: 2p + 3 nodes + 1 ints and
 * 2p + 2 nodes + 1 sizes.
 * Restrictions: CH4COLL_R_NODES (1 < nodes < p) as a selection rule; the
 * builders take any placement (one node; one rank per node, where steps 1
 * and 3 are local copies), root, node sizes, in place, zero counts.
 * Parameter chunk (0 .. 2^40): bytes per piece, 0 = one piece; default
 * 262144, bcast and allgather 0 (registry.c); barrier: none.
 */
#include "smp.h"

#include <string.h>

#include "../topo/nodes.h"
#include "../topo/topo.h"
#include "../util/util.h"

/* Groups of a's ranks (args->loc; NULL: one rank per node).  root >= 0
 * leads its node; every other node is led by its lowest rank. */
static int groups_init(ch4coll_smp_groups_t *g, const ch4coll_args_t *a,
                       int root)
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
    ch4coll_node_order(p, loc ? loc->node_of : NULL, g->nodes, g->order,
                       g->first);
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

int ch4coll_smp_open(ch4coll_smp_t *x, ch4coll_sched_t *s,
                     const ch4coll_args_t *a, int root, int t1, int t3)
{
    int rc, p = a->size;

    memset(x, 0, sizeof *x);
    x->s = s;
    x->a = a;
    x->t1 = t1;
    x->t3 = t3;
    x->work = -1;
    x->pbuf_k = -1;
    rc = groups_init(&x->g, a, root);
    if (rc != CH4COLL_OK)
        return rc;
    x->vc = ch4coll_malloc((2 * (size_t) x->g.nodes + 2 * (size_t) p + 1) *
                           sizeof *x->vc);
    if (!x->vc) {
        ch4coll_free(x->g.order);
        return CH4COLL_ERR_NOMEM;
    }
    x->vd = x->vc + x->g.nodes;
    x->q = x->vd + x->g.nodes;
    x->d = x->q + p + 1;
    return CH4COLL_OK;
}

/* Declare the tags (steps 1 and 3 of every piece, then all step-2 tags)
 * and free what was used only to build. */
int ch4coll_smp_close(ch4coll_smp_t *x, int rc)
{
    if (x->s && rc == CH4COLL_OK)
        ch4coll_sched_set_ntags(x->s, x->npieces * (x->t1 + x->t3) + x->xtags);
    ch4coll_free(x->vc);
    ch4coll_free(x->g.order);
    return rc;
}

/* Cut total units into pieces of about chunk bytes, unit bytes each. */
void ch4coll_smp_cut(ch4coll_smp_t *x, int64_t chunk, size_t total, size_t unit)
{
    size_t c = total;

    if (chunk > 0 && x->g.nodes < x->a->size) {
        c = (size_t) chunk / (unit > 0 ? unit : 1);
        c = c > 0 ? c : 1;
        if (c < total && (total + c - 1) / c > CH4COLL_SMP_MAX_PIECES)
            c = (total + CH4COLL_SMP_MAX_PIECES - 1) / CH4COLL_SMP_MAX_PIECES;
        c = c < total ? c : total;
    }
    x->piece = c;
    x->npieces = total == 0 ? 0 : (int) ((total + c - 1) / c);
}

/* Scratch for nelems elements, allocated once per call. */
int ch4coll_smp_work_buf(ch4coll_smp_t *x, size_t nelems)
{
    if (x->work < 0)
        x->work = ch4coll_sched_scratch_own(x->s, nelems);
    return x->work;
}

/* Scratch for nelems elements that only piece k uses, in its ring slot
 * (piece_open); asked once per piece, the same nelems every time. */
int ch4coll_smp_piece_buf(ch4coll_smp_t *x, int k, size_t nelems)
{
    if (x->pbuf_k != k) {
        x->pbuf = ch4coll_sched_scratch(x->s, nelems);
        x->pbuf_k = k;
    }
    return x->pbuf;
}

/* The shape of an inner call with the outer call's element and op. */
void ch4coll_smp_inner_args(const ch4coll_smp_t *x, int coll, size_t count,
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

int ch4coll_smp_choose(const ch4coll_args_t *a, const ch4coll_args_t *ia,
                       ch4coll_smp_choice_t *c)
{
    const char *why;

    /* not a composed one (smp, multi_leader, group_lanes): its steps
     * would nest a schedule of their own inside this one's view */
    if (a->subselect && a->subselect(ia, &c->al, c->params) == 0 && c->al &&
        c->al->build && c->al->coll == ia->coll &&
        !(c->al->restrictions & CH4COLL_F_COMPOSED) &&
        ch4coll_algo_applicable(c->al, ia, &why))
        return CH4COLL_OK;
    c->al = ch4coll_algo_find(ia->coll, fallback_name(ia->coll));
    if (!c->al || !c->al->build)
        return CH4COLL_ERR_ARG;
    ch4coll_algo_default_params(c->al, c->params);
    return CH4COLL_OK;
}

int ch4coll_smp_run_view(ch4coll_sched_t *s, ch4coll_build_fn build,
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

/* Piece k begins: its builders' scratch goes to ring slot k mod
 * CH4COLL_SMP_RING, over that of piece k - CH4COLL_SMP_RING, whose last use its
 * steps wait for (step_deps).  The scratch of the steps' builders is then that
 * of CH4COLL_SMP_RING pieces, not of all K. */
void ch4coll_smp_piece_open(ch4coll_smp_t *x, int k)
{
    x->first = x->s->nv;
    x->last[k] = -1;
    if (x->npieces > CH4COLL_SMP_RING)
        ch4coll_sched_scratch_slot(x->s, k % CH4COLL_SMP_RING);
}

/* Piece k is built: a vertex after all of it, if a later piece reuses its
 * slot. */
void ch4coll_smp_piece_close(ch4coll_smp_t *x, int k)
{
    if (k + CH4COLL_SMP_RING < x->npieces)
        x->last[k] = ch4coll_sched_join(x->s, x->first);
    ch4coll_sched_scratch_slot(x->s, -1);
}

/* What step i of piece k waits for: dep (its piece's previous step), step
 * i of piece k - 1, so that every step takes the pieces one at a time, in
 * order (all at once, the root's first step 2 sends of every piece would
 * queue before any piece's later ones), and the end of piece k -
 * CH4COLL_SMP_RING, whose scratch it reuses.  Returns the count (d holds 3). */
static int step_deps(const ch4coll_smp_t *x, int i, int k, int dep, int *d)
{
    int c[3], n = 0, j;

    c[0] = dep;
    c[1] = k > 0 ? x->ends[i][k - 1] : -1;
    c[2] = k >= CH4COLL_SMP_RING ? x->last[k - CH4COLL_SMP_RING] : -1;
    for (j = 0; j < 3; j++)
        if (c[j] >= 0)
            d[n++] = c[j];
    return n;
}

/* Step 1 (post = 0) or 3 (post = 1) of piece k: build on this rank's node
 * as a communicator of its own, rooted at the leader; ia gets the group
 * (size, rank, root).  SEND/RECV of build are in and out. */
int ch4coll_smp_intra(ch4coll_smp_t *x, int k, int post, ch4coll_build_fn build,
                      ch4coll_args_t *ia, ch4coll_ref_t in, ch4coll_ref_t out,
                      int dep, int *done)
{
    const ch4coll_smp_groups_t *g = &x->g;
    int64_t none[CH4COLL_MAX_PARAMS] = {0};
    int nt, rc, d[3];
    ch4coll_view_t v = {g->order + g->first[g->node],
                        ch4coll_smp_node_size(g, g->node),
                        k * (x->t1 + x->t3) + (post ? x->t1 : 0),
                        {in, out},
                        step_deps(x, post ? 2 : 0, k, dep, d),
                        d};

    ia->size = v.size;
    ia->rank = g->idx;
    ia->root = g->lead[g->node];
    rc = ch4coll_smp_run_view(x->s, build, ia, none, &v, done, &nt);
    x->ends[post ? 2 : 0][k] = *done;
    if (rc == CH4COLL_OK && nt > (post ? x->t3 : x->t1))
        rc = CH4COLL_ERR_ARG; /* more tags than reserved: see TAGS_* */
    return rc;
}

/* Step 2 of piece k among the leaders (ia: shape, root in node numbers,
 * this node's leader's inplace; gets size and rank).  Ranks that are not
 * leaders only reserve its tags; *done is then dep. */
int ch4coll_smp_inter(ch4coll_smp_t *x, int k, ch4coll_args_t *ia,
                      ch4coll_ref_t in, ch4coll_ref_t out, int dep, int *done)
{
    const ch4coll_smp_groups_t *g = &x->g;
    ch4coll_smp_choice_t c;
    int nt = 0, ntags, rc, d[3];
    ch4coll_view_t v = {g->leaders,
                        g->nodes,
                        x->npieces * (x->t1 + x->t3) + x->xtags,
                        {in, out},
                        step_deps(x, 1, k, dep, d),
                        d};

    ia->size = g->nodes;
    ia->rank = g->node;
    rc = ch4coll_smp_choose(x->a, ia, &c);
    *done = dep;
    if (rc != CH4COLL_OK)
        return rc;
    ntags = ch4coll_algo_ntags(c.al, ia, c.params);
    if (ch4coll_smp_is_leader(x)) {
        rc = ch4coll_smp_run_view(x->s, c.al->build, ia, c.params, &v, done,
                                  &nt);
        if (rc == CH4COLL_OK && nt != ntags)
            rc = CH4COLL_ERR_ARG; /* the builder and its ntags disagree */
    }
    x->ends[1][k] = *done;
    x->xtags += ntags;
    return rc;
}

ch4coll_smp_runs_t ch4coll_smp_runs_open(const ch4coll_smp_t *x, int sbuf,
                                         size_t sbase, int dbuf, size_t dbase,
                                         int dep)
{
    ch4coll_smp_runs_t r;

    memset(&r, 0, sizeof r);
    r.x = x;
    r.sbuf = sbuf;
    r.dbuf = dbuf;
    r.sbase = sbase;
    r.dbase = dbase;
    r.dep = dep;
    return r;
}

void ch4coll_smp_runs_flush(ch4coll_smp_runs_t *r)
{
    int d[1];

    if (r->n > 0)
        ch4coll_sched_copy(r->x->s,
                           ch4coll_smp_at(r->x, r->sbuf, r->sbase + r->so),
                           ch4coll_smp_at(r->x, r->dbuf, r->dbase + r->dof),
                           r->n, ch4coll_dep1(r->dep, d), d);
    r->n = 0;
}

void ch4coll_smp_runs_add(ch4coll_smp_runs_t *r, size_t so, size_t dof,
                          size_t n)
{
    if (n == 0)
        return;
    if (r->n > 0 && r->so + r->n == so && r->dof + r->n == dof) {
        r->n += n;
        return;
    }
    ch4coll_smp_runs_flush(r);
    r->so = so;
    r->dof = dof;
    r->n = n;
}

/* The intra-node link class as a model of its own. */
static ch4coll_model_t node_model(const ch4coll_model_t *m)
{
    ch4coll_model_t n = *m;

    n.alpha = m->alpha_node;
    n.beta = m->beta_node;
    return n;
}

/* An intra-node builder's cost on q ranks rooted at index root. */
double ch4coll_smp_node_cost(const ch4coll_smp_t *x, ch4coll_cost_fn f,
                             int coll, size_t count, int q, int root,
                             const ch4coll_model_t *m)
{
    ch4coll_model_t mn = node_model(m);
    ch4coll_args_t na;

    if (q <= 1)
        return 0.0;
    ch4coll_smp_inner_args(x, coll, count, &na);
    na.size = q;
    na.rank = root;
    na.root = root;
    return f(&na, NULL, &mn);
}

/* Step 2: the chosen algorithm's own formula between nodes; at the leader
 * its time without reductions on both ports, the rest on the CPU. */
void ch4coll_smp_leaders_cost(const ch4coll_smp_t *x, ch4coll_args_t *ia,
                              const ch4coll_model_t *m,
                              ch4coll_smp_piece_cost_t *c)
{
    ch4coll_model_t no_gamma = *m;
    ch4coll_smp_choice_t ch;
    double t, comm;

    ia->size = x->g.nodes;
    ia->rank = x->g.node;
    if (ch4coll_smp_choose(x->a, ia, &ch) != CH4COLL_OK || !ch.al->cost)
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
void ch4coll_smp_node_reduce_cost(const ch4coll_smp_t *x, size_t count, int q,
                                  int root, const ch4coll_model_t *m,
                                  ch4coll_smp_piece_cost_t *c)
{
    double bytes = ch4coll_nbytes(x->a, count);
    double t = ch4coll_smp_node_cost(x, ch4coll_cost_reduce_binomial,
                                     CH4COLL_REDUCE, count, q, root, m);

    c->step[0] = t > c->step[0] ? t : c->step[0];
    c->in += ch4coll_smp_root_msgs(q) * (m->alpha_node + bytes * m->beta_node);
    c->cpu += ch4coll_smp_root_msgs(q) * bytes * m->gamma;
}

/* Step 3 as a binomial bcast of count units from the leader of q ranks. */
void ch4coll_smp_node_bcast_cost(const ch4coll_smp_t *x, size_t count, int q,
                                 const ch4coll_model_t *m,
                                 ch4coll_smp_piece_cost_t *c)
{
    c->step[2] = ch4coll_smp_node_cost(x, ch4coll_cost_bcast_binomial,
                                       CH4COLL_BCAST, count, q, 0, m);
    c->out += ch4coll_smp_root_msgs(q) *
              (m->alpha_node + ch4coll_nbytes(x->a, count) * m->beta_node);
}

/* The slowest of what one piece keeps busy. */
static double busiest(const ch4coll_smp_piece_cost_t *c)
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
double ch4coll_smp_cost(ch4coll_smp_t *x, ch4coll_smp_stages_fn f,
                        const ch4coll_model_t *m)
{
    double t = 0.0;
    int k;

    for (k = 0; k < x->npieces; k++) {
        ch4coll_smp_piece_cost_t c = {{0, 0, 0}, 0, 0, 0};
        f(x, k, m, &c);
        t += k == 0 ? c.step[0] + c.step[1] + c.step[2] : busiest(&c);
    }
    ch4coll_smp_close(x, CH4COLL_OK);
    return t;
}

/* Step 3: piece k (count units at element offset off) from the leader
 * inside the node. */
int ch4coll_smp_bcast_in_node(ch4coll_smp_t *x, int k, size_t off, size_t count,
                              int dep)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = ch4coll_smp_at(x, CH4COLL_BUF_RECV, off);
    int done;

    ch4coll_smp_inner_args(x, CH4COLL_BCAST, count, &ia);
    return ch4coll_smp_intra(x, k, 1, ch4coll_bcast_binomial, &ia, buf, buf,
                             dep, &done);
}
