/*
 * smp_allreduce.c - the hierarchical allreduce (framework: smp.c).
 *
 * Source: NEC MPI/SX section 3.4 (allreduce as a reduction followed by a
 * broadcast) and 3.5, Table 2.
 *
 * Steps, per piece k:
 *   1  binomial reduce to the leader in every node, rank order
 *   2  allreduce among the leaders (the selection tree's choice for a flat
 *      communicator of one rank per node; butterfly if none), node order
 *   3  binomial bcast from the leader in every node
 * Reductions in node order: commutative ops, or consecutive nodes
 * (CH4COLL_R_ORDERED).
 *
 * Cost: T1 + T2 + T3 for the first piece, T1 = lg q (alpha' + B beta' + B
 * gamma), T3 = lg q (alpha' + B beta'), plus a period per further piece.
 * Scratch: none beyond the builders' (the receive buffer holds partials).
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6}, one piece:
 * step 1 binomial reduce 1 -> 0, 2 -> 0 and 4 -> 3, 5 -> 3 (0 folds x0 op
 * x1, then op x2: rank order); rank 6 is alone.  Step 2 allreduce among 0,
 * 3, 6 as inner ranks 0, 1, 2, the only messages between nodes.  Step 3
 * 0 -> 2, 0 -> 1 and 3 -> 5, 3 -> 4.  T = 2 (alpha' + B beta' + B gamma)
 * + T2(3 ranks, B) + 2 (alpha' + B beta').
 */
#include "smp.h"

#include <math.h>

/* Step 1: piece k to the node's leader (its receive buffer), rank order. */
static int allreduce_in_node(ch4coll_smp_t *x, int k, int *done)
{
    const ch4coll_args_t *a = x->a;
    ch4coll_args_t ia;
    size_t off = ch4coll_smp_piece_off(x, k);

    ch4coll_smp_inner_args(x, CH4COLL_REDUCE,
                           ch4coll_smp_piece_len(x, k, a->count), &ia);
    ia.inplace = a->inplace && ch4coll_smp_is_leader(x);
    return ch4coll_smp_intra(
        x, k, 0, ch4coll_reduce_binomial, &ia,
        ch4coll_smp_at(x, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND,
                       off),
        ch4coll_smp_at(x, CH4COLL_BUF_RECV, off), -1, done);
}

/* The leaders' allreduce of piece k, in place. */
static void allreduce_leaders_args(const ch4coll_smp_t *x, int k,
                                   ch4coll_args_t *ia)
{
    ch4coll_smp_inner_args(x, CH4COLL_ALLREDUCE,
                           ch4coll_smp_piece_len(x, k, x->a->count), ia);
    ia->inplace = 1;
}

/* Step 2. */
static int allreduce_among_leaders(ch4coll_smp_t *x, int k, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf =
        ch4coll_smp_at(x, CH4COLL_BUF_RECV, ch4coll_smp_piece_off(x, k));

    allreduce_leaders_args(x, k, &ia);
    return ch4coll_smp_inter(x, k, &ia, buf, buf, dep, done);
}

int ch4coll_allreduce_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    ch4coll_smp_t x;
    int rc, k;

    rc = ch4coll_smp_open(&x, s, a, -1, CH4COLL_SMP_TAGS_REDUCE,
                          CH4COLL_SMP_TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_smp_cut(&x, params[0], a->count, a->elem.size);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d1 = -1, d2 = -1;
        ch4coll_smp_piece_open(&x, k);
        rc = allreduce_in_node(&x, k, &d1);
        if (rc == CH4COLL_OK)
            rc = allreduce_among_leaders(&x, k, d1, &d2);
        /* step 3 at non-leaders: d2 = d1, their input may be overwritten */
        if (rc == CH4COLL_OK)
            rc = ch4coll_smp_bcast_in_node(
                &x, k, ch4coll_smp_piece_off(&x, k),
                ch4coll_smp_piece_len(&x, k, a->count), d2);
        ch4coll_smp_piece_close(&x, k);
    }
    return ch4coll_smp_close(&x, rc);
}

static void allreduce_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                             ch4coll_smp_piece_cost_t *c)
{
    ch4coll_args_t ia;

    allreduce_leaders_args(x, k, &ia);
    ch4coll_smp_node_reduce_cost(x, ia.count, x->g.qmax, 0, m, c);
    ch4coll_smp_leaders_cost(x, &ia, m, c);
    ch4coll_smp_node_bcast_cost(x, ia.count, x->g.qmax, m, c);
}

double ch4coll_cost_allreduce_smp(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    ch4coll_smp_t x;

    if (ch4coll_smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    ch4coll_smp_cut(&x, params[0], a->count, a->elem.size);
    return ch4coll_smp_cost(&x, allreduce_stages, m);
}
