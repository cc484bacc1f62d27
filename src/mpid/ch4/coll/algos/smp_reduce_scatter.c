/*
 * smp_reduce_scatter.c - the hierarchical reduce_scatter and
 * reduce_scatter_block (framework: smp.c).
 *
 * Source: NEC MPI/SX section 3.4 (reduce_scatter as a reduction followed
 * by a scatter) and 3.5, Table 2.
 *
 * Steps, per piece k (piece k of every rank's block):
 *   1  binomial reduce of the whole vector to the leader
 *   2  reduce_scatter among the leaders, node j getting its ranks' blocks
 *      (per-node counts)
 *   3  the leader sends every rank of its node its block
 * Packed (any other case than consecutive nodes, one piece, not in place):
 * every rank first copies its input into scratch P in node order, in runs.
 * Reductions in node order: commutative ops, or consecutive nodes
 * (CH4COLL_R_ORDERED).
 *
 * Cost: T1 = lg q (alpha' + B beta' + B gamma) with B the piece of the
 * whole vector, T2, T3 = the slowest node's (ranks - 1) alpha' + (its
 * bytes - the leader's) beta', plus a period per further piece.  Scratch:
 * the whole vector (N elements) at every rank when packed (always in
 * place: only the rank's own block of the receive buffer may change), else
 * at the leader.
 *
 * Worked example, reduce_scatter_block, p = 7 with n elements per block,
 * cyclic on nodes {0, 3, 6}, {1, 4}, {2, 5}: every rank packs its input
 * into P as blocks 0, 3, 6, 1, 4, 2, 5; step 1 reduces P to the leaders 0,
 * 1, 2; step 2 reduce_scatter with counts 3n, 2n, 2n leaves blocks 0, 3, 6
 * at the start of rank 0's P; step 3 rank 0 keeps block 0 and sends
 * blocks 3 and 6 to ranks 3 and 6.  A non-commutative op is refused here:
 * node order 0 3 6 1 ... is not rank order.
 */
#include "smp.h"

#include <math.h>

/* Block offsets in rank order (MPI: the blocks follow each other) into d;
 * returns the vector's length and sets *most to the largest block. */
static size_t rs_blocks(ch4coll_smp_t *x, size_t *most)
{
    size_t n = 0;
    int r;

    *most = 0;
    for (r = 0; r < x->a->size; r++) {
        x->d[r] = n;
        n += ch4coll_blk_count(x->a, r);
        *most = ch4coll_blk_count(x->a, r) > *most ? ch4coll_blk_count(x->a, r)
                                                   : *most;
    }
    return n;
}

/* Piece k of every block in node order: q[i] = offset of position i's
 * part; returns the piece's length. */
static size_t rs_layout(ch4coll_smp_t *x, int k)
{
    int i, p = x->a->size;

    x->q[0] = 0;
    for (i = 0; i < p; i++)
        x->q[i + 1] =
            x->q[i] +
            ch4coll_smp_piece_len(x, k, ch4coll_blk_count(x->a, x->g.order[i]));
    return x->q[p];
}

/* reduce_scatter works on the user's buffers only when not in place: in
 * place, the receive buffer holds the input and only the rank's own
 * block may change (as with the host MPI), so the vector is packed. */
static int rs_direct(const ch4coll_smp_t *x)
{
    return ch4coll_smp_direct(x) && !x->a->inplace;
}

/* Where piece k (len elements in node order) is reduced and scattered:
 * packed, the piece's scratch; direct (one piece): the input, at the
 * leader scratch of n elements. */
static ch4coll_ref_t rs_work(ch4coll_smp_t *x, int k, size_t n, size_t len)
{
    if (!rs_direct(x))
        return ch4coll_ref(ch4coll_smp_piece_buf(x, k, len), 0);
    return ch4coll_smp_is_leader(x)
               ? ch4coll_smp_at(x, ch4coll_smp_work_buf(x, n), 0)
               : ch4coll_ref(CH4COLL_BUF_SEND, 0);
}

/* Packed: copy piece k of the input into node order (its layout q) in
 * work, after the last use of the slot's previous piece; *done after the
 * copies.  In place the input is the receive buffer, and step 3 of piece
 * j writes elements [j c, (j + 1) c) of it (c = the piece): after piece j's
 * copies, before piece j + 1's, which read from (j + 1) c on. */
static int rs_pack(ch4coll_smp_t *x, int k, ch4coll_ref_t work, int *done)
{
    const ch4coll_args_t *a = x->a;
    int i, first = x->s->nv;
    ch4coll_smp_runs_t r;

    *done = -1;
    if (rs_direct(x))
        return CH4COLL_OK;
    r = ch4coll_smp_runs_open(
        x, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0, work.buf, 0,
        k >= CH4COLL_SMP_RING ? x->last[k - CH4COLL_SMP_RING] : -1);
    for (i = 0; i < a->size; i++) {
        int rk = x->g.order[i];
        ch4coll_smp_runs_add(
            &r, x->d[rk] + ch4coll_smp_piece_off(x, k), x->q[i],
            ch4coll_smp_piece_len(x, k, ch4coll_blk_count(x->a, rk)));
    }
    ch4coll_smp_runs_flush(&r);
    *done = ch4coll_sched_join(x->s, first);
    return CH4COLL_OK;
}

/* Step 1: piece k (len elements at work) to the node's leader. */
static int rs_in_node(ch4coll_smp_t *x, int k, ch4coll_ref_t work, size_t len,
                      int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t in = work;

    if (rs_direct(x))
        in = ch4coll_ref(CH4COLL_BUF_SEND, 0);
    ch4coll_smp_inner_args(x, CH4COLL_REDUCE, len, &ia);
    ia.inplace = ch4coll_smp_is_leader(x) && in.buf == work.buf;
    return ch4coll_smp_intra(x, k, 0, ch4coll_reduce_binomial, &ia, in, work,
                             dep, done);
}

/* The leaders' reduce_scatter of the piece laid out in q: node j gets its
 * ranks' parts, at the start of its vector (in place). */
static void rs_leaders_args(ch4coll_smp_t *x, ch4coll_args_t *ia)
{
    const ch4coll_smp_groups_t *g = &x->g;
    int j;

    for (j = 0; j < g->nodes; j++) {
        x->vd[j] = x->q[g->first[j]];
        x->vc[j] = x->q[g->first[j + 1]] - x->vd[j];
    }
    ch4coll_smp_inner_args(x, CH4COLL_REDUCE_SCATTER, x->vc[g->node], ia);
    ia->counts = x->vc;
    ia->displs = x->vd;
    ia->inplace = 1;
}

/* Step 2. */
static int rs_among_leaders(ch4coll_smp_t *x, int k, ch4coll_ref_t work,
                            int dep, int *done)
{
    ch4coll_args_t ia;

    rs_leaders_args(x, &ia);
    return ch4coll_smp_inter(x, k, &ia, work, work, dep, done);
}

/* Step 3: the leader sends every rank of the node its part of piece k
 * and keeps its own. */
static int rs_scatter(ch4coll_smp_t *x, int k, ch4coll_ref_t work, int dep)
{
    const ch4coll_smp_groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    int q = ch4coll_smp_node_size(g, g->node),
        tag = k * (x->t1 + x->t3) + x->t1, i, d[1];
    size_t o = x->q[g->first[g->node]], len;
    ch4coll_ref_t mine = ch4coll_smp_at(x, CH4COLL_BUF_RECV,
                                        ch4coll_smp_piece_off(x, k)),
                  part;

    if (!ch4coll_smp_is_leader(x)) {
        len = ch4coll_smp_piece_len(x, k, ch4coll_blk_count(x->a, x->a->rank));
        if (len > 0)
            ch4coll_sched_recv(s, mine, len,
                               ch4coll_smp_member(g, g->lead[g->node]), tag,
                               ch4coll_dep1(dep, d), d);
        return CH4COLL_OK;
    }
    for (i = 0; i < q; i++) {
        len = ch4coll_smp_piece_len(
            x, k, ch4coll_blk_count(x->a, ch4coll_smp_member(g, i)));
        part = work;
        part.off += ch4coll_eoff(x->a, x->q[g->first[g->node] + i] - o);
        if (len > 0 && i != g->idx)
            ch4coll_sched_send(s, part, len, ch4coll_smp_member(g, i), tag,
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
    ch4coll_smp_t x;
    int rc, k;
    size_t n, most;

    rc = ch4coll_smp_open(&x, s, a, -1, CH4COLL_SMP_TAGS_REDUCE,
                          CH4COLL_SMP_TAGS_OWN);
    if (rc != CH4COLL_OK)
        return rc;
    n = rs_blocks(&x, &most);
    ch4coll_smp_cut(&x, params[0], most, (size_t) a->size * a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        size_t len = rs_layout(&x, k);
        ch4coll_ref_t work;
        int d0 = -1, d1 = -1, d2 = -1;
        ch4coll_smp_piece_open(&x, k);
        work = rs_work(&x, k, n, len);
        rc = rs_pack(&x, k, work, &d0);
        if (rc == CH4COLL_OK)
            rc = rs_in_node(&x, k, work, len, d0, &d1);
        if (rc == CH4COLL_OK)
            rc = rs_among_leaders(&x, k, work, d1, &d2);
        if (rc == CH4COLL_OK)
            rc = rs_scatter(&x, k, work, d2);
        ch4coll_smp_piece_close(&x, k);
    }
    return ch4coll_smp_close(&x, rc);
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
static double rs_scatter_cost(const ch4coll_smp_t *x, int k,
                              const ch4coll_model_t *m)
{
    const ch4coll_smp_groups_t *g = &x->g;
    double worst = 0.0;
    int j, i;

    for (j = 0; j < g->nodes; j++) {
        double t = 0.0;
        for (i = g->first[j] + 1; i < g->first[j + 1]; i++) {
            size_t len = ch4coll_smp_piece_len(
                x, k, ch4coll_blk_count(x->a, g->order[i]));
            if (len > 0)
                t += m->alpha_node + ch4coll_nbytes(x->a, len) * m->beta_node;
        }
        worst = t > worst ? t : worst;
    }
    return worst;
}

static void rs_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                      ch4coll_smp_piece_cost_t *c)
{
    ch4coll_args_t ia;
    size_t len = rs_layout(x, k);

    rs_leaders_args(x, &ia);
    ch4coll_smp_node_reduce_cost(x, len, x->g.qmax, 0, m, c);
    ch4coll_smp_leaders_cost(x, &ia, m, c);
    c->step[2] = rs_scatter_cost(x, k, m);
    c->out += c->step[2];
}

static double reduce_scatter_cost(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    ch4coll_smp_t x;
    size_t most;

    if (ch4coll_smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    rs_blocks(&x, &most);
    ch4coll_smp_cut(&x, params[0], most, (size_t) a->size * a->elem.size);
    return ch4coll_smp_cost(&x, rs_stages, m);
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
