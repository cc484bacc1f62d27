/*
 * binomial.c - binomial-tree bcast, reduce, gather and scatter.
 *
 * Source: the binary/binomial tree of Rabenseifner & Adamidis section 3.3
 * (reduce: ceil(lg p) steps with full vectors, distance doubling), and
 * NEC MPI/SX section 4.1 (gather/scatter along a binomial tree whose
 * subtrees hold contiguous rank ranges).
 *
 * Tree: relative rank vr = (rank - root) mod p; the parent of vr clears its
 * lowest set bit; the subtree of vr is [vr, vr + span) (topo/topo.h).
 *
 * bcast    receive the whole message from the parent, then send it to the
 *          children, largest subtree first.
 *          T = ceil(lg p) (alpha + n beta).  No scratch.
 * reduce   receive the children's partial results (smallest subtree first),
 *          combine, send to the parent.  The running result moves into the
 *          buffer just received (inout = acc op child), so rank order is
 *          kept and the read-only send buffer is never written; two scratch
 *          vectors alternate.  A non-commutative op runs the tree on absolute
 *          ranks rooted at 0 (so every subtree is a rank interval combined
 *          in order) and rank 0 sends the result to the root: one extra
 *          alpha + n beta when root != 0.
 *          T = ceil(lg p) (alpha + n beta + n gamma).  Scratch 2n.
 * gather   a subtree's blocks are collected contiguously in relative order
 *          and sent up as one message.  The root receives a child's subtree
 *          straight into the receive buffer unless it wraps past rank p-1
 *          (at most one does), which goes through scratch and two copies.
 *          T = ceil(lg p) alpha + (p-1)/p * N beta for N total bytes.
 *          Scratch: span * n at inner ranks; <= p/2 * n at the root.
 * scatter  the reverse of gather.
 *
 * Worked example, p = 7, root = 2 (relative ranks in brackets):
 *   tree [0]->[4],[2],[1]; [4]->[6],[5]; [2]->[3]; [6] leaf
 *   absolute: 2->6,4,3; 6->1,0; 4->5.
 *   gather: 6 collects [4..6] = ranks 6,0,1 (wraps), so the root receives it
 *   into scratch and copies ranks 6 and 0,1 into place; [2..3] = ranks 4,5
 *   and [1] = rank 3 are received in place.
 */
#include "algo.h"

#include "../topo/topo.h"

/* ------------------------------------------------------------------ bcast */

int ch4coll_bcast_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p);
    int parent = ch4coll_binomial_parent(vr);
    int got = -1, m;
    ch4coll_ref_t buf = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    (void) params;
    if (a->count == 0 || p == 1)
        return CH4COLL_OK;
    if (parent >= 0)
        got = ch4coll_sched_recv(s, buf, a->count,
                                 ch4coll_abs(parent, a->root, p), 0, 0, NULL);
    for (m = ch4coll_binomial_mask_limit(vr, p) / 2; m >= 1; m /= 2) {
        int d[1], nd = ch4coll_dep1(got, d);
        if (vr + m < p)
            ch4coll_sched_send(s, buf, a->count,
                               ch4coll_abs(vr + m, a->root, p), 0, nd, d);
    }
    return CH4COLL_OK;
}

/* ----------------------------------------------------------------- reduce */

/* The running partial result of a reduction and where it lives. */
typedef struct {
    ch4coll_ref_t acc;
    int producer;  /* vertex that wrote acc, or -1 */
    int tmp[2];    /* scratch vectors, allocated on first use */
    int reader[3]; /* last vertex reading tmp0, tmp1, recvbuf */
    int next;      /* scratch to receive into next */
} acc_t;

/* Receive a child's partial into a buffer that is not acc and make
 * acc = acc op child (the child covers higher ranks). */
static void combine_child(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          acc_t *st, int child, int into_recvbuf)
{
    int slot, buf, d[2], rv, rd;

    if (into_recvbuf) {
        slot = 2;
        buf = CH4COLL_BUF_RECV;
    } else {
        slot = st->next;
        if (st->tmp[slot] < 0)
            st->tmp[slot] = ch4coll_sched_scratch(s, a->count);
        buf = st->tmp[slot];
        st->next ^= 1;
    }
    rv = ch4coll_sched_recv(s, ch4coll_ref(buf, 0), a->count, child, 0,
                            ch4coll_dep1(st->reader[slot], d), d);
    d[0] = rv;
    d[1] = st->producer;
    rd = ch4coll_sched_reduce(s, st->acc, ch4coll_ref(buf, 0), a->count,
                              st->producer >= 0 ? 2 : 1, d);
    /* the old acc was read by rd: record it so it is not overwritten early */
    if (st->acc.buf == CH4COLL_BUF_RECV)
        st->reader[2] = rd;
    else if (st->acc.buf == st->tmp[0])
        st->reader[0] = rd;
    else if (st->acc.buf == st->tmp[1])
        st->reader[1] = rd;
    st->acc = ch4coll_ref(buf, 0);
    st->producer = rd;
}

int ch4coll_reduce_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    int p = a->size, rank = a->rank, root = a->root;
    int tree_root = a->commutative ? root : 0;
    int vr = ch4coll_rel(rank, tree_root, p);
    int parent = ch4coll_binomial_parent(vr);
    int lim = ch4coll_binomial_mask_limit(vr, p);
    int nchild = 0, k = 0, m, d[2], sent = -1;
    int in_place_root = rank == root && a->inplace;
    acc_t st = {.producer = -1, .tmp = {-1, -1}, .reader = {-1, -1, -1}};

    (void) params;
    if (a->count == 0)
        return CH4COLL_OK;
    st.acc =
        ch4coll_ref(in_place_root ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0);
    for (m = 1; m < lim && vr + m < p; m *= 2)
        nchild++;
    for (m = 1; m < lim && vr + m < p; m *= 2, k++) {
        /* the root's last child lands directly in the receive buffer */
        int direct =
            rank == root && k == nchild - 1 && st.acc.buf != CH4COLL_BUF_RECV;
        combine_child(s, a, &st, ch4coll_abs(vr + m, tree_root, p), direct);
    }
    if (parent >= 0)
        sent = ch4coll_sched_send(s, st.acc, a->count,
                                  ch4coll_abs(parent, tree_root, p), 0,
                                  ch4coll_dep1(st.producer, d), d);
    if (tree_root != root && rank == tree_root) {
        ch4coll_sched_send(s, st.acc, a->count, root, 1,
                           ch4coll_dep1(st.producer, d), d);
    } else if (tree_root != root && rank == root) {
        /* the partial sent to the parent may live in the receive buffer */
        ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count,
                           tree_root, 1, ch4coll_dep1(sent, d), d);
    } else if (rank == root && st.acc.buf != CH4COLL_BUF_RECV) {
        ch4coll_sched_copy(s, st.acc, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                           a->count, ch4coll_dep1(st.producer, d), d);
    }
    ch4coll_sched_set_ntags(s, 2);
    return CH4COLL_OK;
}

/* ---------------------------------------------------------- gather/scatter */

/* Absolute rank range of the subtree of child vr, as block offsets. */
static int wraps(int vr, int span, int root, int p)
{
    return ch4coll_abs(vr, root, p) + span > p;
}

int ch4coll_gather_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    int p = a->size, root = a->root, vr = ch4coll_rel(a->rank, root, p);
    int parent = ch4coll_binomial_parent(vr);
    int span = ch4coll_binomial_span(vr, p);
    int lim = ch4coll_binomial_mask_limit(vr, p), m, tmp = -1, own = -1;
    size_t n = a->count;
    int deps[8 * sizeof(int) + 1], nd = 0; /* <= lg p children + own block */

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (vr == 0) {
        if (!a->inplace)
            deps[nd++] = ch4coll_sched_copy(
                s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                ch4coll_ref(CH4COLL_BUF_RECV, (size_t) root * n), n, 0, NULL);
        for (m = 1; m < lim && m < p; m *= 2) {
            int cs = ch4coll_binomial_span(m, p), rv;
            int start = ch4coll_abs(m, root, p);
            if (!wraps(m, cs, root, p)) {
                ch4coll_sched_recv(
                    s, ch4coll_ref(CH4COLL_BUF_RECV, (size_t) start * n),
                    (size_t) cs * n, start, 0, 0, NULL);
                continue;
            }
            tmp = ch4coll_sched_scratch(s, (size_t) cs * n);
            rv = ch4coll_sched_recv(s, ch4coll_ref(tmp, 0), (size_t) cs * n,
                                    start, 0, 0, NULL);
            /* relative [m, m + cs) = absolute [start, p) then [0, rest) */
            ch4coll_sched_copy(
                s, ch4coll_ref(tmp, 0),
                ch4coll_ref(CH4COLL_BUF_RECV, (size_t) start * n),
                (size_t) (p - start) * n, 1, &rv);
            ch4coll_sched_copy(s, ch4coll_ref(tmp, (size_t) (p - start) * n),
                               ch4coll_ref(CH4COLL_BUF_RECV, 0),
                               (size_t) (start + cs - p) * n, 1, &rv);
        }
        return CH4COLL_OK;
    }
    if (span == 1) {
        ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), n,
                           ch4coll_abs(parent, root, p), 0, 0, NULL);
        return CH4COLL_OK;
    }
    tmp = ch4coll_sched_scratch(s, (size_t) span * n);
    own = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                             ch4coll_ref(tmp, 0), n, 0, NULL);
    deps[nd++] = own;
    for (m = 1; m < lim && vr + m < p; m *= 2)
        deps[nd++] =
            ch4coll_sched_recv(s, ch4coll_ref(tmp, (size_t) m * n),
                               (size_t) ch4coll_binomial_span(vr + m, p) * n,
                               ch4coll_abs(vr + m, root, p), 0, 0, NULL);
    ch4coll_sched_send(s, ch4coll_ref(tmp, 0), (size_t) span * n,
                       ch4coll_abs(parent, root, p), 0, nd, deps);
    return CH4COLL_OK;
}

int ch4coll_scatter_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, root = a->root, vr = ch4coll_rel(a->rank, root, p);
    int parent = ch4coll_binomial_parent(vr);
    int span = ch4coll_binomial_span(vr, p);
    int lim = ch4coll_binomial_mask_limit(vr, p), m, tmp, got;
    size_t n = a->count;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (vr == 0) {
        if (!a->inplace)
            ch4coll_sched_copy(s,
                               ch4coll_ref(CH4COLL_BUF_SEND, (size_t) root * n),
                               ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, NULL);
        for (m = lim / 2; m >= 1; m /= 2) {
            int cs, start, d[2];
            if (m >= p)
                continue;
            cs = ch4coll_binomial_span(m, p);
            start = ch4coll_abs(m, root, p);
            if (!wraps(m, cs, root, p)) {
                ch4coll_sched_send(
                    s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) start * n),
                    (size_t) cs * n, start, 0, 0, NULL);
                continue;
            }
            tmp = ch4coll_sched_scratch(s, (size_t) cs * n);
            d[0] = ch4coll_sched_copy(
                s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) start * n),
                ch4coll_ref(tmp, 0), (size_t) (p - start) * n, 0, NULL);
            d[1] =
                ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                   ch4coll_ref(tmp, (size_t) (p - start) * n),
                                   (size_t) (start + cs - p) * n, 0, NULL);
            ch4coll_sched_send(s, ch4coll_ref(tmp, 0), (size_t) cs * n, start,
                               0, 2, d);
        }
        return CH4COLL_OK;
    }
    if (span == 1) {
        ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), n,
                           ch4coll_abs(parent, root, p), 0, 0, NULL);
        return CH4COLL_OK;
    }
    tmp = ch4coll_sched_scratch(s, (size_t) span * n);
    got = ch4coll_sched_recv(s, ch4coll_ref(tmp, 0), (size_t) span * n,
                             ch4coll_abs(parent, root, p), 0, 0, NULL);
    for (m = lim / 2; m >= 1; m /= 2)
        if (vr + m < p)
            ch4coll_sched_send(s, ch4coll_ref(tmp, (size_t) m * n),
                               (size_t) ch4coll_binomial_span(vr + m, p) * n,
                               ch4coll_abs(vr + m, root, p), 0, 1, &got);
    ch4coll_sched_copy(s, ch4coll_ref(tmp, 0), ch4coll_ref(CH4COLL_BUF_RECV, 0),
                       n, 1, &got);
    return CH4COLL_OK;
}
