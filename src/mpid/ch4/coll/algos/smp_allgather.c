/*
 * smp_allgather.c - the hierarchical allgather (framework: smp.c).
 *
 * Source: NEC MPI/SX section 4.2 (allgather as gather + allgather of node
 * blocks + bcast, processes in node order) and 3.5, Table 2.
 *
 * Steps, per piece k (piece k of every rank's block):
 *   1  binomial gather of the node's blocks to the leader
 *   2  allgatherv of the node blocks among the leaders
 *   3  binomial bcast of the whole piece in the node
 * Direct (consecutive nodes, one piece): in the receive buffer.  Else in
 * scratch P in node order, copied to the receive buffer in runs after
 * step 3 (smp.c "Layout").
 *
 * Cost: T1 = lg q alpha' + (q-1) B beta' (gather), T2, T3 = lg q (alpha'
 * + p B beta') for the first piece, plus a period per further piece.
 * Scratch: p n bytes at every rank when packed.
 *
 * Worked example, p = 7, n bytes per rank.  Block, nodes {0, 1, 2},
 * {3, 4, 5}, {6}: direct; 1 and 2 send their blocks into 0's receive
 * buffer at n and 2n; step 2 allgatherv of 3n, 3n, n bytes at 0, 3n, 6n;
 * step 3 bcasts all 7n bytes.  Cyclic, nodes {0, 3, 6}, {1, 4}, {2, 5}:
 * leaders 0, 1, 2; node order 0 3 6 | 1 4 | 2 5; one piece, packed: 3 and
 * 6 send their blocks to P[1], P[2] at rank 0, 4 to P[4] at 1, 5 to P[6]
 * at 2; step 2 allgatherv among 0, 1, 2 of 3n, 2n, 2n bytes at 0, 3n, 5n
 * of P; step 3 every leader bcasts P (7n bytes) in its node, and every
 * rank copies P[i] to block order[i] of its receive buffer: 7 copies, as
 * no two neighbouring positions hold consecutive ranks.
 */
#include "smp.h"

#include <math.h>

/* Piece k of every block in node order: the receive buffer (direct), or
 * the piece's packed scratch (p times the piece). */
static ch4coll_ref_t allgather_work(ch4coll_smp_t *x, int k)
{
    size_t p = (size_t) x->a->size;

    if (ch4coll_smp_direct(x))
        return ch4coll_ref(CH4COLL_BUF_RECV, 0);
    return ch4coll_ref(ch4coll_smp_piece_buf(
                           x, k, p * ch4coll_smp_piece_len(x, k, x->a->count)),
                       0);
}

/* Step 1: gather piece k of the node's blocks at the leader, at the
 * node's positions of the work layout. */
static int allgather_in_node(ch4coll_smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    size_t c = ch4coll_smp_piece_len(x, k, a->count),
           off = ch4coll_smp_piece_off(x, k);
    ch4coll_ref_t in = ch4coll_ref(CH4COLL_BUF_SEND, off);
    ch4coll_ref_t out = allgather_work(x, k);
    ch4coll_args_t ia;

    if (a->inplace)
        in = ch4coll_ref(CH4COLL_BUF_RECV, (size_t) a->rank * a->count + off);
    out.off += (size_t) x->g.first[x->g.node] * c;
    ch4coll_smp_inner_args(x, CH4COLL_GATHER, c, &ia);
    ia.inplace =
        a->inplace && ch4coll_smp_is_leader(x) && ch4coll_smp_direct(x);
    return ch4coll_smp_intra(x, k, 0, ch4coll_gather_binomial, &ia, in, out, -1,
                             done);
}

/* The leaders' allgatherv of piece k: node j's ranks' parts at their
 * positions, in place. */
static void allgather_leaders_args(ch4coll_smp_t *x, int k, ch4coll_args_t *ia)
{
    const ch4coll_smp_groups_t *g = &x->g;
    size_t c = ch4coll_smp_piece_len(x, k, x->a->count);
    int j;

    for (j = 0; j < g->nodes; j++) {
        x->vc[j] = (size_t) ch4coll_smp_node_size(g, j) * c;
        x->vd[j] = (size_t) g->first[j] * c;
    }
    ch4coll_smp_inner_args(x, CH4COLL_ALLGATHERV, x->vc[g->node], ia);
    ia->counts = x->vc;
    ia->displs = x->vd;
    ia->inplace = 1;
}

/* Step 2. */
static int allgather_among_leaders(ch4coll_smp_t *x, int k, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf = allgather_work(x, k);

    allgather_leaders_args(x, k, &ia);
    return ch4coll_smp_inter(x, k, &ia, buf, buf, dep, done);
}

/* Step 3: bcast the whole piece in the node, then (packed) copy it to the
 * blocks of the receive buffer. */
static int allgather_bcast_in_node(ch4coll_smp_t *x, int k, int dep)
{
    const ch4coll_args_t *a = x->a;
    size_t c = ch4coll_smp_piece_len(x, k, a->count), p = (size_t) a->size, i;
    ch4coll_ref_t buf = allgather_work(x, k);
    ch4coll_args_t ia;
    ch4coll_smp_runs_t r;
    int rc, done;

    ch4coll_smp_inner_args(x, CH4COLL_BCAST, p * c, &ia);
    rc = ch4coll_smp_intra(x, k, 1, ch4coll_bcast_binomial, &ia, buf, buf, dep,
                           &done);
    if (rc != CH4COLL_OK || ch4coll_smp_direct(x))
        return rc;
    r = ch4coll_smp_runs_open(x, buf.buf, buf.off, CH4COLL_BUF_RECV,
                              ch4coll_smp_piece_off(x, k), done);
    for (i = 0; i < p; i++)
        ch4coll_smp_runs_add(&r, i * c, (size_t) x->g.order[i] * a->count, c);
    ch4coll_smp_runs_flush(&r);
    return CH4COLL_OK;
}

int ch4coll_allgather_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    ch4coll_smp_t x;
    int rc, k;

    rc = ch4coll_smp_open(&x, s, a, -1, CH4COLL_SMP_TAGS_GATHER,
                          CH4COLL_SMP_TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_smp_cut(&x, params[0], a->count, (size_t) a->size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1, d2 = -1;
        ch4coll_smp_piece_open(&x, k);
        rc = allgather_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = allgather_among_leaders(&x, k, d1, &d2);
        if (rc == CH4COLL_OK)
            rc = allgather_bcast_in_node(&x, k, d2);
        ch4coll_smp_piece_close(&x, k);
    }
    return ch4coll_smp_close(&x, rc);
}

/* Step 1 at the leader: lg q messages, the other q - 1 blocks. */
static void allgather_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                             ch4coll_smp_piece_cost_t *c)
{
    size_t len = ch4coll_smp_piece_len(x, k, x->a->count);
    int q = x->g.qmax;
    ch4coll_args_t ia;

    allgather_leaders_args(x, k, &ia);
    c->step[0] = ch4coll_smp_node_cost(x, ch4coll_cost_gather_binomial,
                                       CH4COLL_GATHER, len, q, 0, m);
    c->in += ch4coll_smp_root_msgs(q) * m->alpha_node +
             (double) (q - 1) * (double) len * m->beta_node;
    ch4coll_smp_leaders_cost(x, &ia, m, c);
    ch4coll_smp_node_bcast_cost(x, (size_t) x->a->size * len, q, m, c);
}

double ch4coll_cost_allgather_smp(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    ch4coll_smp_t x;

    if (ch4coll_smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    ch4coll_smp_cut(&x, params[0], a->count, (size_t) a->size);
    return ch4coll_smp_cost(&x, allgather_stages, m);
}
