/*
 * binomial.c - binomial-tree bcast, reduce, gather and scatter.
 *
 * Source: the binary/binomial tree of Rabenseifner & Adamidis section 3.3
 * (reduce: ceil(lg p) steps with full vectors, distance doubling), and
 * NEC MPI/SX section 4.1 (gather/scatter along a binomial tree whose
 * subtrees hold contiguous rank ranges, over processes "sorted according
 * to the identity of the node to which they belong").
 *
 * Tree: relative rank vr = (rank - root) mod p; the parent of vr clears its
 * lowest set bit; the subtree of vr is [vr, vr + span) (topo/topo.h).
 * Gather and scatter on a node map (args.loc) run the same tree on
 * positions, position v holding the v-th rank of the rooted node order
 * (topo/nodes.h: the root, the rest of its node, the following nodes and,
 * wrapping, the preceding ones), so subtrees cover whole nodes or stay
 * inside one as far as sizes allow (p = 2^k, nodes of 2^j ranks: nodes - 1
 * messages cross nodes).  Same message sizes, same cost.
 *
 * bcast    receive the whole message from the parent, then send it to the
 *          children one at a time, largest subtree first (each send waits
 *          for the one before: on fair-shared links, SimGrid's and real
 *          networks', sends posted at once deliver the largest subtree's
 *          copy last; p = 16, 2 MiB: 840 us on SimGrid's fat tree at once,
 *          SMPI's binomial_tree 338; the scatter's interior ranks do the
 *          same).  T = ceil(lg p) (alpha + n beta), exactly.  No scratch.
 * reduce   receive the children's partials (smallest subtree first), fold,
 *          send to the parent.  The running result moves into the buffer
 *          just received (inout = acc op child), so rank order is kept and
 *          the send buffer is never written.  A non-commutative op runs the
 *          tree on absolute ranks rooted at 0 (every subtree a rank
 *          interval) and rank 0 sends the result to the root: one more
 *          alpha + n beta when root != 0.
 *          T = ceil(lg p) (alpha + n beta + n gamma) for p = 2^k
 *          (Rabenseifner's T_red,tree, alpha_uni = alpha, beta_uni = beta).
 *          Otherwise a partial subtree's child may be ready as early as an
 *          earlier one and they queue at the parent's receive port: the
 *          cost function folds the arrivals through the port in ready order
 *          (ties: lower absolute rank first), e.g. p = 96, root 0:
 *          6 (alpha + n beta) + 7 n gamma.  Scratch: two vectors, 2n.
 * gather   a subtree's blocks are collected contiguously in relative order
 *          and sent up as one message, received straight into place at the
 *          root, except the one subtree that wraps past rank p-1 (on a node
 *          map: every subtree whose ranks are not one run), which goes
 *          through scratch and one copy per run.
 *          T = ceil(lg p) alpha + (p-1)/p N beta for N total bytes (p = 2^k;
 *          otherwise the port recursion of reduce, without folds).
 *          Scratch: span * n at inner ranks, <= p/2 * n at the root
 *          (<= (p-1) n on a node map); building there takes 3p + nodes + 2
 *          ints.
 * scatter  the reverse of gather; the root's sends go out one at a time,
 *          largest subtree first.  T as gather for p = 2^k.
 * Restrictions: none; any p, root, count, MPI_IN_PLACE.  No parameters.
 *
 * Worked example, p = 7, root = 2 (relative ranks in brackets):
 *   tree [0]->[4],[2],[1]; [4]->[6],[5]; [2]->[3]; absolute: 2->6,4,3;
 *   6->1,0; 4->5.  gather: [4..6] = ranks 6,0,1 wraps, so the root takes it
 *   into scratch and copies ranks 6 and 0,1 into place; [2..3] = ranks 4,5
 *   and [1] = rank 3 land in place.
 * On nodes of 3, cyclic ({0, 3, 6}, {1, 4}, {2, 5}), p = 7, root = 4:
 *   positions 0..6 hold ranks 4 1 | 2 5 | 0 3 6; the tree on positions gives
 *   4->0,2,1; 0->6,3; 2->5: 2 of the 6 messages cross nodes, against 4 of 6
 *   on rotated ranks (4->1,6,5; 1->3,2; 6->0).  gather: the root takes
 *   ranks 0,3,6 and 2,5 through scratch (three and two runs), 1 in place.
 */
#include "algo.h"

#include "../topo/nodes.h"
#include "../topo/topo.h"

/* ------------------------------------------------------------------ bcast */

int ch4coll_bcast_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p);
    int parent = ch4coll_binomial_parent(vr);
    int got = -1, sent = -1, m;
    ch4coll_ref_t buf = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    (void) params;
    if (a->count == 0 || p == 1)
        return CH4COLL_OK;
    if (parent >= 0)
        got = ch4coll_sched_recv(s, buf, a->count,
                                 ch4coll_abs(parent, a->root, p), 0, 0, NULL);
    /* one send at a time, the largest subtree first (see above) */
    for (m = ch4coll_binomial_mask_limit(vr, p) / 2; m >= 1; m /= 2) {
        int d[2] = {got, sent};
        if (vr + m < p)
            sent = ch4coll_sched_send(s, buf, a->count,
                                      ch4coll_abs(vr + m, a->root, p), 0, 2, d);
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

/* Tag 0 up the tree; tag 1 from the tree's root to the call's root. */
int ch4coll_ntags_reduce_binomial(const ch4coll_args_t *a,
                                  const int64_t *params)
{
    (void) a;
    (void) params;
    return 2;
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

    ch4coll_sched_set_ntags(s, ch4coll_ntags_reduce_binomial(a, params));
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
    return CH4COLL_OK;
}

/* ---------------------------------------------------------- gather/scatter */

/*
 * The order the gather and scatter trees run on: tree position v holds rank
 * (root + v) mod p, or with a node map the v-th rank of the rooted node
 * order (topo/nodes.h).  A subtree is a range of positions, its blocks
 * travel in position order, and a range whose ranks are consecutive and
 * increasing (a run) maps to one piece of the user's rank-ordered buffer.
 */
typedef struct {
    int p, root;
    int *seq;     /* position -> rank, NULL: (root + v) mod p */
    int *deps;    /* a packed send's dependencies: its copies (a run each)
                   * and the previous send; p + 1 with seq, else small */
    int small[3]; /* without seq a subtree is at most two runs */
} tord_t;

static int tord_init(tord_t *t, const ch4coll_args_t *a)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size;

    t->p = p;
    t->root = a->root;
    t->seq = NULL;
    t->deps = t->small;
    if (!loc)
        return CH4COLL_OK;
    t->seq = ch4coll_malloc((3 * (size_t) p + loc->nodes + 2) * sizeof(int));
    if (!t->seq)
        return CH4COLL_ERR_NOMEM;
    t->deps = t->seq + p;
    ch4coll_node_order_rooted(p, loc->node_of, loc->nodes, a->root, t->seq,
                              t->deps + p + 1);
    return CH4COLL_OK;
}

static void tord_free(tord_t *t)
{
    ch4coll_free(t->seq);
}

static int tord_rank(const tord_t *t, int v)
{
    return t->seq ? t->seq[v] : ch4coll_abs(v, t->root, t->p);
}

static int tord_pos(const tord_t *t, int rank)
{
    int v = 0;

    if (!t->seq)
        return ch4coll_rel(rank, t->root, t->p);
    while (t->seq[v] != rank)
        v++;
    return v;
}

/* tord_init, and this rank's tree position, parent, subtree span and
 * child-mask limit. */
static int tord_node(tord_t *t, const ch4coll_args_t *a, int *vr, int *parent,
                     int *span, int *lim)
{
    if (tord_init(t, a) != CH4COLL_OK)
        return CH4COLL_ERR_NOMEM;
    *vr = tord_pos(t, a->rank);
    *parent = ch4coll_binomial_parent(*vr);
    *span = ch4coll_binomial_span(*vr, a->size);
    *lim = ch4coll_binomial_mask_limit(*vr, a->size);
    return CH4COLL_OK;
}

/* Length of the run starting at position v, at most len. */
static int run_len(const tord_t *t, int v, int len)
{
    int r = tord_rank(t, v), i = 1;

    while (i < len && tord_rank(t, v + i) == r + i)
        i++;
    return i;
}

/* The root receives the subtree of child position m: straight into place
 * if it is one run, else into scratch and one copy per run. */
static void gather_from_child(ch4coll_sched_t *s, const tord_t *t, int m,
                              size_t n)
{
    int cs = ch4coll_binomial_span(m, t->p), start = tord_rank(t, m);
    int tmp, rv, i, len;

    if (run_len(t, m, cs) == cs) {
        ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, (size_t) start * n),
                           (size_t) cs * n, start, 0, 0, NULL);
        return;
    }
    tmp = ch4coll_sched_scratch(s, (size_t) cs * n);
    rv = ch4coll_sched_recv(s, ch4coll_ref(tmp, 0), (size_t) cs * n, start, 0,
                            0, NULL);
    for (i = 0; i < cs; i += len) {
        len = run_len(t, m + i, cs - i);
        ch4coll_sched_copy(
            s, ch4coll_ref(tmp, (size_t) i * n),
            ch4coll_ref(CH4COLL_BUF_RECV, (size_t) tord_rank(t, m + i) * n),
            (size_t) len * n, 1, &rv);
    }
}

int ch4coll_gather_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    int p = a->size, root = a->root, vr, parent, span, lim, m, tmp;
    size_t n = a->count;
    int deps[8 * sizeof(int) + 1], nd = 0; /* <= lg p children + own block */
    tord_t t;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (tord_node(&t, a, &vr, &parent, &span, &lim) != CH4COLL_OK)
        return CH4COLL_ERR_NOMEM;
    if (vr == 0) {
        if (!a->inplace)
            ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                               ch4coll_ref(CH4COLL_BUF_RECV, (size_t) root * n),
                               n, 0, NULL);
        for (m = 1; m < lim && m < p; m *= 2)
            gather_from_child(s, &t, m, n);
    } else if (span == 1) {
        ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), n,
                           tord_rank(&t, parent), 0, 0, NULL);
    } else {
        tmp = ch4coll_sched_scratch(s, (size_t) span * n);
        deps[nd++] = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                        ch4coll_ref(tmp, 0), n, 0, NULL);
        for (m = 1; m < lim && vr + m < p; m *= 2)
            deps[nd++] = ch4coll_sched_recv(
                s, ch4coll_ref(tmp, (size_t) m * n),
                (size_t) ch4coll_binomial_span(vr + m, p) * n,
                tord_rank(&t, vr + m), 0, 0, NULL);
        ch4coll_sched_send(s, ch4coll_ref(tmp, 0), (size_t) span * n,
                           tord_rank(&t, parent), 0, nd, deps);
    }
    tord_free(&t);
    return CH4COLL_OK;
}

/* The root sends the subtree of child position m after its previous send
 * prev (so a subtree staged through scratch keeps its turn): straight from
 * place if it is one run, else packed into scratch by one copy per run.
 * Returns the send. */
static int scatter_to_child(ch4coll_sched_t *s, tord_t *t, int m, size_t n,
                            int prev)
{
    int cs = ch4coll_binomial_span(m, t->p), start = tord_rank(t, m);
    int tmp, i, len, nd = 0, d[1];

    if (run_len(t, m, cs) == cs)
        return ch4coll_sched_send(
            s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) start * n),
            (size_t) cs * n, start, 0, ch4coll_dep1(prev, d), d);
    tmp = ch4coll_sched_scratch(s, (size_t) cs * n);
    for (i = 0; i < cs; i += len) {
        len = run_len(t, m + i, cs - i);
        t->deps[nd++] = ch4coll_sched_copy(
            s, ch4coll_ref(CH4COLL_BUF_SEND, (size_t) tord_rank(t, m + i) * n),
            ch4coll_ref(tmp, (size_t) i * n), (size_t) len * n, 0, NULL);
    }
    t->deps[nd++] = prev;
    return ch4coll_sched_send(s, ch4coll_ref(tmp, 0), (size_t) cs * n, start, 0,
                              nd, t->deps);
}

int ch4coll_scatter_binomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                             const int64_t *params)
{
    int p = a->size, root = a->root, vr, parent, span, lim, m, tmp, got;
    int prev = -1;
    size_t n = a->count;
    tord_t t;

    (void) params;
    if (n == 0)
        return CH4COLL_OK;
    if (tord_node(&t, a, &vr, &parent, &span, &lim) != CH4COLL_OK)
        return CH4COLL_ERR_NOMEM;
    if (vr == 0) {
        /* largest subtree first; each send waits for the previous one, so
         * a subtree packed through scratch keeps its turn */
        for (m = lim / 2; m >= 1; m /= 2)
            if (m < p)
                prev = scatter_to_child(s, &t, m, n, prev);
        /* its own block last: the children do not wait for the copy */
        if (!a->inplace)
            ch4coll_sched_copy(s,
                               ch4coll_ref(CH4COLL_BUF_SEND, (size_t) root * n),
                               ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, NULL);
    } else if (span == 1) {
        ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), n,
                           tord_rank(&t, parent), 0, 0, NULL);
    } else {
        tmp = ch4coll_sched_scratch(s, (size_t) span * n);
        got = ch4coll_sched_recv(s, ch4coll_ref(tmp, 0), (size_t) span * n,
                                 tord_rank(&t, parent), 0, 0, NULL);
        for (m = lim / 2; m >= 1; m /= 2) { /* one at a time, largest first */
            int c = vr + m, d[2] = {got, prev};
            if (c < p)
                prev =
                    ch4coll_sched_send(s, ch4coll_ref(tmp, (size_t) m * n),
                                       (size_t) ch4coll_binomial_span(c, p) * n,
                                       tord_rank(&t, c), 0, 2, d);
        }
        ch4coll_sched_copy(s, ch4coll_ref(tmp, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 1, &got);
    }
    tord_free(&t);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/* What moves up a binomial tree (reduce: whole vectors and a fold per
 * child; gather: the child's whole subtree, no fold). */
typedef struct {
    const ch4coll_model_t *m;
    int p, root;    /* absolute rank = (vr + root) mod p */
    const int *seq; /* or seq[vr] (gather on a node map), if not NULL */
    double unit;    /* reduce: vector bytes; gather: bytes per rank */
    int per_span;   /* gather: a child's message is span * unit */
    double fold;    /* seconds per child combined */
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
        who[nc] = u->seq ? u->seq[vr + c] : (vr + c + u->root) % u->p;
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
        t += ch4coll_model_msg(m, cs * unit);
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
    return ch4coll_ceil_log2(a->size) * ch4coll_model_msg(m, (double) a->count);
}

double ch4coll_cost_reduce_binomial(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    double n = ch4coll_nbytes(a, a->count), t;
    up_t u = {m, a->size,     a->commutative ? a->root : 0, NULL, n,
              0, n * m->gamma};

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    t = tree_up(&u, 0, a->size);
    if (u.root != a->root)
        t += ch4coll_model_msg(m, n);
    return t;
}

/* On a node map the tree is the same over positions; only the port's
 * order among children ready at the same time (lower rank first) follows
 * the ranks at those positions. */
double ch4coll_cost_gather_binomial(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    up_t u = {m, a->size, a->root, NULL, (double) a->count, 1, 0.0};
    tord_t t;
    double time;

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (tord_init(&t, a) != CH4COLL_OK)
        t.seq = NULL; /* without memory: the rank order's tie-breaks */
    u.seq = t.seq;
    time = tree_up(&u, 0, a->size);
    tord_free(&t);
    return time;
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
