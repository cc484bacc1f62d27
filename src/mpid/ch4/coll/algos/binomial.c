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
 *          T = ceil(lg p) (alpha + n beta), exactly: a child sent i-th by
 *          its parent has a subtree of at most ceil(lg p) - i levels.
 *          No scratch.
 * reduce   receive the children's partial results (smallest subtree first),
 *          combine, send to the parent.  The running result moves into the
 *          buffer just received (inout = acc op child), so rank order is
 *          kept and the read-only send buffer is never written; two scratch
 *          vectors alternate.  A non-commutative op runs the tree on absolute
 *          ranks rooted at 0 (so every subtree is a rank interval combined
 *          in order) and rank 0 sends the result to the root: one extra
 *          alpha + n beta when root != 0.
 *          T = T_red,tree = ceil(lg p) (alpha + n beta + n gamma)
 *          (Rabenseifner 3.3 with alpha_uni = alpha, beta_uni = beta) for
 *          p = 2^k: a full subtree of 2^i ranks is done after i such steps.
 *          Otherwise the last child of a partial subtree may be ready as
 *          early as an earlier child, and the two then queue at the
 *          parent's receive port: the cost function folds the children's
 *          arrivals through the port in the order they are ready (equal
 *          times: lower absolute rank first) and saves an alpha + n beta
 *          where the partial child is early, e.g. p = 96, root 0:
 *          6 (alpha + n beta) + 7 n gamma.  Scratch 2n.
 * gather   a subtree's blocks are collected contiguously in relative order
 *          and sent up as one message.  The root receives a child's subtree
 *          straight into the receive buffer unless it wraps past rank p-1
 *          (at most one does), which goes through scratch and two copies.
 *          T = ceil(lg p) alpha + (p-1)/p N beta for N total bytes (p = 2^k;
 *          otherwise the same port recursion as reduce, without folds).
 *          Scratch: span * n at inner ranks; <= p/2 * n at the root.
 * scatter  the reverse of gather; the root's sends go out one at a time,
 *          largest subtree first (each waits for the previous, so the
 *          wrapped subtree staged through scratch keeps its turn).
 *          T: the root's sends back to back, then each child's own scatter:
 *          ceil(lg p) alpha + (p-1)/p N beta for p = 2^k.
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
    int lim = ch4coll_binomial_mask_limit(vr, p), m, tmp, got, prev = -1;
    size_t n = a->count;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (vr == 0) {
        if (!a->inplace)
            ch4coll_sched_copy(s,
                               ch4coll_ref(CH4COLL_BUF_SEND, (size_t) root * n),
                               ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, NULL);
        /* largest subtree first; each send waits for the previous one, so
         * the subtree staged through scratch keeps its turn */
        for (m = lim / 2; m >= 1; m /= 2) {
            int cs, start, d[3];
            if (m >= p)
                continue;
            cs = ch4coll_binomial_span(m, p);
            start = ch4coll_abs(m, root, p);
            if (!wraps(m, cs, root, p)) {
                prev = ch4coll_sched_send(
                    s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) start * n),
                    (size_t) cs * n, start, 0, ch4coll_dep1(prev, d), d);
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
            d[2] = prev;
            prev = ch4coll_sched_send(s, ch4coll_ref(tmp, 0), (size_t) cs * n,
                                      start, 0, 3, d);
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

/* ------------------------------------------------------------------- cost */

static double msg(const ch4coll_model_t *m, double bytes)
{
    return m->alpha + bytes * m->beta;
}

/* What moves up a binomial tree (reduce: whole vectors and a fold per
 * child; gather: the child's whole subtree, no fold). */
typedef struct {
    const ch4coll_model_t *m;
    int p, root;  /* absolute rank = (vr + root) mod p */
    double unit;  /* reduce: vector bytes; gather: bytes per rank */
    int per_span; /* gather: a child's message is span * unit */
    double fold;  /* seconds per child combined */
} up_t;

/*
 * Time after which relative rank vr, whose subtree spans s ranks, has
 * received (and folded) everything from below.  Children sit at vr + 1,
 * vr + 2, vr + 4, ... < vr + s, child vr + j spanning min(j, s - j); each
 * sends once its own subtree is done, and the messages share vr's receive
 * port first come, first served (equal times, up to rounding: the lower
 * absolute rank first, the replay's event order).  A full child of 2^i
 * ranks is done at i (msg + fold) for reduce, i alpha + (2^i - 1) unit beta
 * for gather; only the last child of a partial subtree recurses:
 * O(lg^2 s).
 */
static double tree_up(const up_t *u, int vr, int s)
{
    const ch4coll_model_t *m = u->m;
    double ready[32], len[32], port = 0, t = 0;
    int nc = 0, i, j, c, order[32], who[32];

    for (c = 1; c < s; c *= 2, nc++) {
        int cs = c < s - c ? c : s - c;
        len[nc] = m->alpha + (u->per_span ? cs * u->unit : u->unit) * m->beta;
        who[nc] = (vr + c + u->root) % u->p;
        if (cs < c)
            ready[nc] = tree_up(u, vr + c, cs);
        else if (u->per_span)
            ready[nc] = nc * m->alpha + (cs - 1) * u->unit * m->beta;
        else
            ready[nc] = nc * (len[nc] + u->fold);
    }
    /* the receive port serves the children in the order they are ready */
    for (i = 0; i < nc; i++) {
        for (j = i; j > 0; j--) {
            int o = order[j - 1];
            double eps = 1e-9 * (ready[i] > 0 ? ready[i] : 1e-9);
            if (ready[o] < ready[i] - eps ||
                (ready[o] <= ready[i] + eps && who[o] < who[i]))
                break;
            order[j] = o;
        }
        order[j] = i;
    }
    for (i = 0; i < nc; i++) {
        double st = ready[order[i]] > port ? ready[order[i]] : port;
        port = st + len[order[i]];
        ready[order[i]] = port; /* now: its arrival */
    }
    /* folds (or plain arrivals) in child order */
    for (i = 0; i < nc; i++)
        t = (ready[i] > t ? ready[i] : t) + u->fold;
    return t;
}

/* Scatter down a binomial subtree of s ranks (children largest first, the
 * message to child m carries its whole subtree): time until the last rank
 * of the subtree has its block, from the moment its root has the data. */
static double tree_down(int s, double unit, const ch4coll_model_t *m)
{
    double t = 0, worst = 0;
    int m2 = ch4coll_pow2_ceil(s) / 2;

    for (; m2 >= 1; m2 /= 2) {
        int cs;
        double below;
        if (m2 >= s)
            continue;
        cs = m2 < s - m2 ? m2 : s - m2;
        t += msg(m, cs * unit);
        below = t + tree_down(cs, unit, m);
        if (below > worst)
            worst = below;
    }
    return worst;
}

double ch4coll_cost_bcast_binomial(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return ch4coll_ceil_log2(a->size) * msg(m, (double) a->count);
}

double ch4coll_cost_reduce_binomial(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    double n = ch4coll_nbytes(a, a->count), t;
    up_t u = {m, a->size, a->commutative ? a->root : 0, n, 0, n * m->gamma};

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    t = tree_up(&u, 0, a->size);
    if (u.root != a->root)
        t += msg(m, n);
    return t;
}

double ch4coll_cost_gather_binomial(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    up_t u = {m, a->size, a->root, (double) a->count, 1, 0.0};

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return tree_up(&u, 0, a->size);
}

double ch4coll_cost_scatter_binomial(const ch4coll_args_t *a,
                                     const int64_t *params,
                                     const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return tree_down(a->size, (double) a->count, m);
}
