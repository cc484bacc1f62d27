/*
 * smp_bcast.c - the hierarchical bcast (framework: smp.c).
 *
 * Source: NEC MPI/SX section 3.3 (trees "across nodes, not MPI processes,
 * with an arbitrary process chosen as local root on each node") and 3.5,
 * Table 2 (pipelining in all steps for large m).
 *
 * Steps, per piece k (parameter chunk, smp.c "Pipelining"):
 *   2  bcast among the leaders from the root's node: the root leads its
 *      node, so the step root -> leader is empty
 *   3  binomial bcast from the leader in every node
 * The root's own step 3 waits for its step 2 as well: its step-2 sends go
 * to the other nodes, its own node's messages would otherwise queue ahead.
 *
 * Cost: T2 (the leaders' algorithm between nodes) + T3 = lg q (alpha' + B
 * beta') for the first piece, plus a period per further piece (smp.c).
 * Scratch: none beyond the builders'.
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6}, root 4: the
 * leaders are 0, 4 (the root leads its node) and 6; step 2 bcasts from
 * inner rank 1 (node 1) to 0 and 6; step 3: 4 -> 3 and 4 -> 5 (node 1's
 * binomial tree from index 1), 0 -> 2, 0 -> 1; 6 is alone.
 */
#include "smp.h"

#include <math.h>

/* The leaders' bcast of piece k, from the root's node. */
static void bcast_leaders_args(const ch4coll_smp_t *x, int k,
                               ch4coll_args_t *ia)
{
    ch4coll_smp_inner_args(x, CH4COLL_BCAST,
                           ch4coll_smp_piece_len(x, k, x->a->count), ia);
    ia->root = x->g.root_node;
}

/* Step 2: piece k among the leaders. */
static int bcast_among_leaders(ch4coll_smp_t *x, int k, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t buf =
        ch4coll_smp_at(x, CH4COLL_BUF_RECV, ch4coll_smp_piece_off(x, k));

    bcast_leaders_args(x, k, &ia);
    return ch4coll_smp_inter(x, k, &ia, buf, buf, -1, done);
}

int ch4coll_bcast_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                      const int64_t *params)
{
    ch4coll_smp_t x;
    int rc, k;

    rc = ch4coll_smp_open(&x, s, a, a->root, 0, CH4COLL_SMP_TAGS_BCAST);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_smp_cut(&x, params[0], a->count, 1);
    for (k = 0; k < x.npieces && rc == CH4COLL_OK; k++) {
        int d2 = -1;
        ch4coll_smp_piece_open(&x, k);
        rc = bcast_among_leaders(&x, k, &d2);
        /* at the root too after its step 2 sends: they are on the path to
         * every other node, its own node's are not */
        if (rc == CH4COLL_OK)
            rc = ch4coll_smp_bcast_in_node(
                &x, k, ch4coll_smp_piece_off(&x, k),
                ch4coll_smp_piece_len(&x, k, a->count), d2);
        ch4coll_smp_piece_close(&x, k);
    }
    return ch4coll_smp_close(&x, rc);
}

static void bcast_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                         ch4coll_smp_piece_cost_t *c)
{
    ch4coll_args_t ia;

    bcast_leaders_args(x, k, &ia);
    ch4coll_smp_leaders_cost(x, &ia, m, c);
    ch4coll_smp_node_bcast_cost(x, ia.count, x->g.qmax, m, c);
}

double ch4coll_cost_bcast_smp(const ch4coll_args_t *a, const int64_t *params,
                              const ch4coll_model_t *m)
{
    ch4coll_smp_t x;

    if (ch4coll_smp_open(&x, NULL, a, a->root, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    ch4coll_smp_cut(&x, params[0], a->count, 1);
    return ch4coll_smp_cost(&x, bcast_stages, m);
}
