/*
 * smp_reduce.c - the hierarchical reduce (framework: smp.c).
 *
 * Source: NEC MPI/SX section 3.4 (reduce as the bcast inverted) and 3.5,
 * Table 2.
 *
 * Steps, per piece k:
 *   1  binomial reduce to the leader in every node, folded in rank order
 *   2  reduce among the leaders to the root (which leads its node), in
 *      node order
 * Node order is rank order only when the nodes are consecutive: for other
 * placements the op must commute (CH4COLL_R_ORDERED).
 *
 * Cost: T1 = lg q (alpha' + B beta' + B gamma) on the largest node and on
 * the root's node (one more message when the root is not its node's
 * lowest rank and the op does not commute), + T2, for the first piece,
 * plus a period per further piece.  Scratch: a piece's partial at every
 * leader that is not the root (count elements at most, CH4COLL_SMP_RING
 * pieces at once).
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6}, root 0: step 1
 * 1 -> 0, 2 -> 0 (0 folds x0 op x1, then op x2) and 4 -> 3, 5 -> 3; step 2
 * reduces the partials of 0, 3 and 6 to 0: (x0 x1 x2)(x3 x4 x5)(x6), rank
 * order.
 */
#include "smp.h"

#include <math.h>

/* Where this rank's partial result of piece k lives: the root's receive
 * buffer, the piece's scratch at the other leaders. */
static ch4coll_ref_t reduce_partial(ch4coll_smp_t *x, int k)
{
    const ch4coll_args_t *a = x->a;

    if (a->rank == a->root || !ch4coll_smp_is_leader(x))
        return ch4coll_smp_at(x, CH4COLL_BUF_RECV, ch4coll_smp_piece_off(x, k));
    return ch4coll_ref(
        ch4coll_smp_piece_buf(x, k, ch4coll_smp_piece_len(x, k, a->count)), 0);
}

/* Step 1: piece k to the node's leader, in rank order. */
static int reduce_in_node(ch4coll_smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    int root_inplace = a->rank == a->root && a->inplace;
    ch4coll_args_t ia;

    ch4coll_smp_inner_args(x, CH4COLL_REDUCE,
                           ch4coll_smp_piece_len(x, k, a->count), &ia);
    ia.inplace = root_inplace;
    return ch4coll_smp_intra(
        x, k, 0, ch4coll_reduce_binomial, &ia,
        ch4coll_smp_at(x, root_inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND,
                       ch4coll_smp_piece_off(x, k)),
        reduce_partial(x, k), -1, done);
}

/* The leaders' reduce of piece k to the root's node; the root's partial
 * is in place. */
static void reduce_leaders_args(const ch4coll_smp_t *x, int k,
                                ch4coll_args_t *ia)
{
    ch4coll_smp_inner_args(x, CH4COLL_REDUCE,
                           ch4coll_smp_piece_len(x, k, x->a->count), ia);
    ia->root = x->g.root_node;
    ia->inplace = x->a->rank == x->a->root;
}

/* Step 2: the leaders' partials to the root, in node order. */
static int reduce_among_leaders(ch4coll_smp_t *x, int k, int dep)
{
    ch4coll_args_t ia;
    int done;

    reduce_leaders_args(x, k, &ia);
    return ch4coll_smp_inter(
        x, k, &ia, reduce_partial(x, k),
        ch4coll_smp_at(x, CH4COLL_BUF_RECV, ch4coll_smp_piece_off(x, k)), dep,
        &done);
}

int ch4coll_reduce_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       const int64_t *params)
{
    ch4coll_smp_t x;
    int rc, k;

    rc = ch4coll_smp_open(&x, s, a, a->root, CH4COLL_SMP_TAGS_REDUCE, 0);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_smp_cut(&x, params[0], a->count, a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1;
        ch4coll_smp_piece_open(&x, k);
        rc = reduce_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = reduce_among_leaders(&x, k, d1);
        ch4coll_smp_piece_close(&x, k);
    }
    return ch4coll_smp_close(&x, rc);
}

/* Step 1 on the largest node and on the root's node (whose root may not be
 * its lowest rank: one more message for a non-commutative op). */
static void reduce_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                          ch4coll_smp_piece_cost_t *c)
{
    const ch4coll_smp_groups_t *g = &x->g;
    ch4coll_smp_piece_cost_t own = {{0, 0, 0}, 0, 0, 0};
    ch4coll_args_t ia;

    reduce_leaders_args(x, k, &ia);
    ch4coll_smp_node_reduce_cost(x, ia.count, g->qmax, 0, m, c);
    ch4coll_smp_node_reduce_cost(x, ia.count,
                                 ch4coll_smp_node_size(g, g->root_node),
                                 g->lead[g->root_node], m, &own);
    c->step[0] = own.step[0] > c->step[0] ? own.step[0] : c->step[0];
    ch4coll_smp_leaders_cost(x, &ia, m, c);
}

double ch4coll_cost_reduce_smp(const ch4coll_args_t *a, const int64_t *params,
                               const ch4coll_model_t *m)
{
    ch4coll_smp_t x;

    if (ch4coll_smp_open(&x, NULL, a, a->root, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    ch4coll_smp_cut(&x, params[0], a->count, a->elem.size);
    return ch4coll_smp_cost(&x, reduce_stages, m);
}
