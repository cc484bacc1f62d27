/*
 * smp_barrier.c - the hierarchical barrier (framework: smp.c).
 *
 * Source: NEC MPI/SX section 3.2 (a software barrier over trees) and 3.5
 * (the "-single" and "-node" decomposition), as smp.c.
 *
 * Steps (one piece, no data):
 *   1  empty messages up a binomial tree of the node to its leader (tag 0)
 *   2  a barrier among the leaders: the algorithm the selection tree picks
 *      for a flat communicator of one rank per node (dissemination if none)
 *   3  empty messages down the same tree (tag 1)
 * No rank leaves before every rank has entered: step 3 leaves a node only
 * after its leader's step 2, which ends after every leader's step 1.
 *
 * Cost: lg q alpha' up and lg q alpha' down (q: ranks of the largest node,
 * alpha' = alpha_node), plus the leaders' barrier's own cost between
 * nodes.  Scratch: none.
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6}: 1 and 2 send
 * to 0, 4 and 5 to 3; 0, 3 and 6 run a barrier of three ranks; 0 releases
 * 2 and 1, 3 releases 5 and 4, 6 leaves at once.
 */
#include "smp.h"

#include <math.h>

#include "../topo/topo.h"

/* Step 1: empty messages up a binomial tree of the node to its leader. */
static int barrier_fan_in(ch4coll_smp_t *x, int *done)
{
    const ch4coll_smp_groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);
    int q = ch4coll_smp_node_size(g, g->node), vr = g->idx, first = s->nv, m,
        got;
    int parent = ch4coll_binomial_parent(vr), d[1];

    for (m = 1; m < ch4coll_binomial_mask_limit(vr, q) && vr + m < q; m *= 2)
        ch4coll_sched_recv(s, none, 0, ch4coll_smp_member(g, vr + m), 0, 0,
                           NULL);
    got = ch4coll_sched_join(s, first);
    if (parent >= 0)
        ch4coll_sched_send(s, none, 0, ch4coll_smp_member(g, parent), 0,
                           ch4coll_dep1(got, d), d);
    *done = ch4coll_sched_join(s, first);
    return CH4COLL_OK;
}

/* Step 2: a barrier among the leaders. */
static int barrier_among_leaders(ch4coll_smp_t *x, int dep, int *done)
{
    ch4coll_args_t ia;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    ch4coll_smp_inner_args(x, CH4COLL_BARRIER, 0, &ia);
    return ch4coll_smp_inter(x, 0, &ia, none, none, dep, done);
}

/* Step 3: the release down the same tree (tag 1). */
static int barrier_fan_out(ch4coll_smp_t *x, int dep)
{
    const ch4coll_smp_groups_t *g = &x->g;
    ch4coll_sched_t *s = x->s;
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);
    int q = ch4coll_smp_node_size(g, g->node), vr = g->idx, m, got = dep, d[1];
    int parent = ch4coll_binomial_parent(vr);

    if (parent >= 0)
        got = ch4coll_sched_recv(s, none, 0, ch4coll_smp_member(g, parent), 1,
                                 ch4coll_dep1(dep, d), d);
    for (m = ch4coll_binomial_mask_limit(vr, q) / 2; m >= 1; m /= 2)
        if (vr + m < q)
            ch4coll_sched_send(s, none, 0, ch4coll_smp_member(g, vr + m), 1,
                               ch4coll_dep1(got, d), d);
    return CH4COLL_OK;
}

int ch4coll_barrier_smp(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params)
{
    ch4coll_smp_t x;
    int rc, d1 = -1, d2 = -1;

    (void) params;
    rc = ch4coll_smp_open(&x, s, a, -1, CH4COLL_SMP_TAGS_OWN,
                          CH4COLL_SMP_TAGS_OWN);
    if (rc != CH4COLL_OK)
        return rc;
    x.npieces = 1;
    rc = barrier_fan_in(&x, &d1);
    if (rc == CH4COLL_OK)
        rc = barrier_among_leaders(&x, d1, &d2);
    if (rc == CH4COLL_OK)
        rc = barrier_fan_out(&x, d2);
    return ch4coll_smp_close(&x, rc);
}

static void barrier_stages(ch4coll_smp_t *x, int k, const ch4coll_model_t *m,
                           ch4coll_smp_piece_cost_t *c)
{
    ch4coll_args_t ia;

    (void) k;
    ch4coll_smp_inner_args(x, CH4COLL_BARRIER, 0, &ia);
    c->step[0] = c->step[2] = ch4coll_smp_root_msgs(x->g.qmax) * m->alpha_node;
    ch4coll_smp_leaders_cost(x, &ia, m, c);
}

double ch4coll_cost_barrier_smp(const ch4coll_args_t *a, const int64_t *params,
                                const ch4coll_model_t *m)
{
    ch4coll_smp_t x;

    (void) params;
    if (ch4coll_smp_open(&x, NULL, a, -1, 0, 0) != CH4COLL_OK)
        return HUGE_VAL;
    x.npieces = 1;
    return ch4coll_smp_cost(&x, barrier_stages, m);
}
