/*
 * reduce_bcast.c - allreduce as a binomial reduce to rank 0 followed by a
 * binomial bcast; any op.
 *
 * Source: the classical "combination of MPI_Reduce (to a root process)
 * followed by MPI_Bcast" of Rabenseifner & Adamidis section 3.2, with the
 * binary (binomial) tree of section 3.3 for both halves ("Allreduce: The
 * reduce algorithm is followed by a binary tree based broadcast").
 *
 * Binomial tree over absolute ranks rooted at 0 (the subtree of r is
 * [r, r+span), so children, taken smallest first, extend the running
 * result upwards: "acc op child"); rank 0 then sends the result down the
 * same tree, largest subtree first.  The running result moves into the
 * buffer just received (child = acc op child), alternating between the
 * receive buffer and one scratch vector, so the input is never written and
 * no copy is needed except a final one at rank 0.
 * T = ceil(lg p)(2 alpha_uni + 2 n beta_uni + n gamma), the paper's
 * T_all,tree, for p = 2^k; in general the reduce half costs what
 * binomial.c's reduce costs (the same tree and folds, its port recursion
 * for partial subtrees) and the bcast half ceil(lg p)(alpha + n beta).
 * Scratch: n at ranks with 2 or more children.
 * Restrictions: none (any op, any p, any count, MPI_IN_PLACE).  No
 * parameters.  One tag: every pair exchanges at most one message per
 * direction.
 *
 * Worked example, p = 7: reduce edges 1->0, 3->2, 2->0, 5->4, 6->4, 4->0
 * (rank 0 folds ((d0 op d1) op (d2 op d3)) op (d4 op d5 op d6) in that
 * order); bcast 0->4, 0->2, 0->1, 4->6, 4->5, 2->3.
 */
#include "algo.h"

#include "../topo/topo.h"

static ch4coll_ref_t whole(int buf)
{
    return ch4coll_ref(buf, 0);
}

/* The running result of the reduce half and the buffers it moves between:
 * slot 0 the receive buffer, slot 1 the scratch vector. */
typedef struct {
    int acc;       /* buffer id holding the running result */
    int producer;  /* vertex that wrote it, or -1 */
    int tmp;       /* scratch vector, allocated on first use */
    int reader[2]; /* last vertex reading the receive buffer / tmp */
} rbc_t;

static int slot_of(const rbc_t *st, int buf)
{
    return buf == CH4COLL_BUF_RECV ? 0 : buf == st->tmp ? 1 : -1;
}

/* Receive a child's partial into the buffer not holding acc and make it
 * acc op child (the child's ranks are above mine). */
static void take_child(ch4coll_sched_t *s, const ch4coll_args_t *a, rbc_t *st,
                       int child)
{
    int into, d[2], rv, old = slot_of(st, st->acc);

    if (st->acc == CH4COLL_BUF_RECV) {
        if (st->tmp < 0)
            st->tmp = ch4coll_sched_scratch(s, a->count);
        into = st->tmp;
    } else {
        into = CH4COLL_BUF_RECV;
    }
    rv = ch4coll_sched_recv(s, whole(into), a->count, child, 0,
                            ch4coll_dep1(st->reader[slot_of(st, into)], d), d);
    d[0] = rv;
    d[1] = st->producer;
    st->producer =
        ch4coll_sched_reduce(s, whole(st->acc), whole(into), a->count, 2, d);
    if (old >= 0)
        st->reader[old] = st->producer;
    st->acc = into;
}

int ch4coll_allreduce_reduce_bcast(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                   const int64_t *params)
{
    int p = a->size, rank = a->rank, m, d[2], ready;
    int parent = ch4coll_binomial_parent(rank);
    int lim = ch4coll_binomial_mask_limit(rank, p);
    rbc_t st = {
        a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, -1, -1, {-1, -1}};

    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    for (m = 1; m < lim && rank + m < p; m *= 2)
        take_child(s, a, &st, rank + m);
    if (parent >= 0) {
        d[0] = ch4coll_sched_send(s, whole(st.acc), a->count, parent, 0,
                                  ch4coll_dep1(st.producer, d + 1), d + 1);
        d[1] = st.reader[0]; /* the receive buffer may still be read */
        ready = ch4coll_sched_recv(s, whole(CH4COLL_BUF_RECV), a->count, parent,
                                   0, 2, d);
    } else if (st.acc != CH4COLL_BUF_RECV) {
        d[0] = st.producer;
        d[1] = st.reader[0];
        ready = ch4coll_sched_copy(s, whole(st.acc), whole(CH4COLL_BUF_RECV),
                                   a->count, 2, d);
    } else {
        ready = st.producer;
    }
    for (m = lim / 2; m >= 1; m /= 2)
        if (rank + m < p)
            ch4coll_sched_send(s, whole(CH4COLL_BUF_RECV), a->count, rank + m,
                               0, ch4coll_dep1(ready, d), d);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/* The binomial reduce of binomial.c rooted at 0 (same tree, same folds),
 * then a binomial bcast of the n bytes. */
double ch4coll_cost_allreduce_reduce_bcast(const ch4coll_args_t *a,
                                           const int64_t *params,
                                           const ch4coll_model_t *m)
{
    ch4coll_args_t r = *a;
    ch4coll_args_t b = *a;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    r.root = 0;
    r.commutative = 1;
    b.count = (size_t) ch4coll_nbytes(a, a->count);
    return ch4coll_cost_reduce_binomial(&r, params, m) +
           ch4coll_cost_bcast_binomial(&b, params, m);
}
