/*
 * knomial.c - k-nomial tree bcast, reduce and tree barrier.
 *
 * Source: NEC MPI/SX section 3.3 ("for small messages the best possible
 * algorithm is a binomial tree") and section 3.2 (a software barrier over
 * trees as the fall-back when no hardware barrier counter is available).
 * The k-nomial tree generalises the binomial tree of binomial.c: a node
 * talks to k - 1 children per level, so the tree is ceil(log_k p) levels
 * deep instead of ceil(lg p).  Radix 2 is exactly the binomial tree.
 *
 * Tree (topo/trees.h): relative rank vr = (rank - root) mod p, written in
 * base k.  The parent of vr > 0 clears its lowest nonzero base-k digit; the
 * children of vr are vr + j m for j = 1..k-1 and the powers of k m below the
 * weight of that digit (below the smallest power of k >= p for the root), as
 * long as vr + j m < p.  The subtree of vr + j m is [vr + j m, vr + (j+1) m)
 * cut at p.
 *
 * bcast    receive the whole message from the parent, then send it to the
 *          children, largest subtrees (largest m) first: a level's k - 1
 *          sends at once, the next level's once they have completed, as
 *          MVAPICH2's k-nomial bcast does (SimGrid smp, p = 16, 32 KiB:
 *          one send at a time took 18.4 us, SMPI's mvapich2_knomial_intra_
 *          node 7.4; a level's sends overlap their latencies where a rank
 *          sends several messages at once, and one port takes them in
 *          posting order, largest subtree first).  On a node map
 *          (args.loc) a level's children on other nodes go ahead of those
 *          on the sender's own node, each group largest subtree first: a
 *          message off the node takes longer to arrive for the same send
 *          overhead (SimGrid smp, p = 24, 8 B, radix 64, mean of roots 0,
 *          8, 16: 2.30 us in rank order, SMPI's flattree, which sends in
 *          absolute rank order, 1.95).  Radix 2 is binomial.c's schedule,
 *          one send per level.
 *          Steps: ceil(log_k p) levels of k - 1 sends each.
 *          T = L (k-1) (alpha + n beta) for p = k^L (one port: a node's
 *          k - 1 sends per level go out one after another); with k ports
 *          (or overlapping sends) it would be L (alpha + n beta).  For
 *          other p the cost function walks the tree: the child sent i-th
 *          has its message i (alpha + n beta) after its parent, and only one
 *          child of a node is a partial subtree (O(k log^2 p)).  E.g. p = 96,
 *          k = 4: 10 (alpha + n beta), not 4 * 3.  No scratch.
 * reduce   the bcast's tree upside down (commutative ops: the tree is
 *          rooted at the root, whose relative ranks are not rank order):
 *          every rank posts the receives of all its children's partials
 *          at once, each into a scratch vector of its own (so that they
 *          travel together where a rank takes several messages at once:
 *          SimGrid's hosts, MVAPICH2's k-nomial reduce), folds them into
 *          its partial smallest subtree first, then sends the partial to
 *          its parent; the root's last child lands in the receive buffer
 *          unless that holds the root's input.  With one receive port and
 *          a fold per child, T is the barrier's gather below with alpha +
 *          n (beta + gamma) per message: L (k-1)(alpha + n beta + n gamma)
 *          for p = k^L.  Scratch: n per child (at most (k-1) ceil(log_k
 *          p) n, at the root), so it is for short vectors.
 * barrier  gather empty messages to the root up the same tree (a node sends
 *          to its parent once all its children have reported), then the
 *          release goes down the tree: the root sends once everyone has
 *          reported, an inner node forwards the release it received.
 *          T = 2 L (k-1) alpha for p = k^L: in the gather a full subtree of
 *          k^l ranks reports after l (k-1) alpha, just when its parent's
 *          receive port has served the smaller ones; for other p the cost
 *          function runs both walks.  No scratch.
 *
 * Restrictions: reduce commutative ops only; any p, any count (count 0
 * is a no-op), any root.
 * Parameters: radix (bcast, reduce and barrier), default 4, range 2..64.
 *
 * Worked example, p = 10, radix 3, root 2 (relative ranks in brackets):
 *   [0] -> [9] (m = 9), [3], [6] (m = 3), [1], [2] (m = 1)
 *   [3] -> [4], [5];  [6] -> [7], [8];  [9] has none (9 + 3 >= 10)
 *   absolute: 2 -> 1, 5, 8, 3, 4;  5 -> 6, 7;  8 -> 9, 0.
 *   bcast: 3 levels; the root's 5 sends go out largest subtree first, so
 *   [2] has the message after 5 (alpha + n beta), [5] after 2 + 2 and [8]
 *   after 3 + 2: T = 5 (alpha + n beta).  On nodes of 4 ranks ({0..3},
 *   {4..7}, {8, 9}) the root's last level sends to 4 (node 1) before 3
 *   (its own node): 2 -> 1, 5, 8, 4, 3.
 *   reduce (the same tree, root 2): 5 folds 6's and 7's partials, 8 folds
 *   9's and 0's, and sends on; the root folds 4, 3 (m = 1), 8, 5 (m = 3)
 *   and last 1 ([9], alone: 9 + 3 >= 10), whose partial lands in the
 *   receive buffer: T = 5 (alpha + n beta + n gamma), the bcast's.
 *   barrier (the same shape rooted at rank 0): 4, 5 report to 3 and 7, 8
 *   to 6 (by 2 alpha); 9, 1, 2 reach 0 by 3 alpha, 3 and 6 by 5 alpha; 0
 *   releases 9, 3, 6, 1, 2 in that order (6 alpha .. 10 alpha); 3 and 6
 *   pass the release on to 4, 5 and 7, 8: T = 10 alpha.
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../topo/trees.h"
#include "../util/util.h"

#include <math.h>
#include <string.h>

#define RADIX_MIN 2
#define RADIX_MAX 64

static int radix_ok(int64_t k)
{
    return k >= RADIX_MIN && k <= RADIX_MAX;
}

/* ------------------------------------------------------------------ bcast */

/* Put the children on other nodes than this rank's ahead of those on its
 * own, each group in its order (largest subtree first).  Every send costs
 * the sender the same overhead, and a message off the node takes longer
 * to arrive, so it should leave first. */
static void off_node_first(const ch4coll_args_t *a, int *kid, int nk)
{
    int tmp[RADIX_MAX], i, n = 0, me;

    if (!a->loc || a->loc->nodes < 2)
        return;
    me = a->loc->node_of[a->rank];
    for (i = 0; i < nk; i++)
        if (a->loc->node_of[kid[i]] != me)
            tmp[n++] = kid[i];
    for (i = 0; i < nk; i++)
        if (a->loc->node_of[kid[i]] == me)
            tmp[n++] = kid[i];
    memcpy(kid, tmp, (size_t) nk * sizeof *kid);
}

int ch4coll_bcast_knomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    int p = a->size, k = (int) params[0], root = a->root;
    int vr = ch4coll_rel(a->rank, root, p), parent, got = -1, join = -1;
    int lvl[RADIX_MAX];
    int64_t m, j;
    ch4coll_ref_t buf = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    if (!radix_ok(params[0]))
        return CH4COLL_ERR_ARG;
    if (a->count == 0 || p == 1)
        return CH4COLL_OK;
    parent = ch4coll_knomial_parent(vr, k);
    if (parent >= 0)
        got = ch4coll_sched_recv(s, buf, a->count, ch4coll_abs(parent, root, p),
                                 0, 0, NULL);
    /* a level's k - 1 sends at once, the next level once they are done */
    for (m = ch4coll_knomial_limit(vr, k, p) / k; m >= 1; m /= k) {
        int d[2], nd = 0, n = 0, kid[RADIX_MAX], nk;

        if (got >= 0)
            d[nd++] = got;
        if (join >= 0)
            d[nd++] = join;
        for (nk = 0, j = 1; j < k && vr + j * m < p; j++)
            kid[nk++] = ch4coll_abs((int) (vr + j * m), root, p);
        off_node_first(a, kid, nk);
        for (j = 0; j < nk; j++)
            lvl[n++] = ch4coll_sched_send(s, buf, a->count, kid[j], 0, nd, d);
        if (n > 0 && m > 1)
            join = ch4coll_sched_sink(s, n, lvl);
    }
    return CH4COLL_OK;
}

/* ----------------------------------------------------------------- reduce */

int ch4coll_reduce_knomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    int p = a->size, k = (int) params[0], root = a->root, rank = a->rank;
    int vr = ch4coll_rel(rank, root, p), parent, nch, i, j, tmp = -1, d[2];
    int prev = -1, direct;
    ch4coll_ref_t acc, at;

    if (!radix_ok(params[0]))
        return CH4COLL_ERR_ARG;
    if (a->count == 0)
        return CH4COLL_OK;
    acc = ch4coll_ref(
        rank == root && a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, 0);
    parent = ch4coll_knomial_parent(vr, k);
    nch = ch4coll_knomial_nchildren(vr, k, p);
    /* the root's last child straight into the receive buffer, unless that
     * holds the root's own input */
    direct = rank == root && acc.buf != CH4COLL_BUF_RECV;
    if (nch > direct)
        tmp = ch4coll_sched_scratch(s, (size_t) (nch - direct) * a->count);
    for (i = nch - 1, j = 0; i >= 0; i--, j++) { /* smallest subtree first */
        at = direct && i == 0
                 ? ch4coll_ref(CH4COLL_BUF_RECV, 0)
                 : ch4coll_ref(tmp, ch4coll_eoff(a, (size_t) j * a->count));
        d[0] = ch4coll_sched_recv(
            s, at, a->count,
            ch4coll_abs(ch4coll_knomial_child(vr, k, p, i), root, p), 0, 0,
            NULL);
        d[1] = prev;
        prev = ch4coll_sched_reduce(s, acc, at, a->count, prev >= 0 ? 2 : 1, d);
        acc = at; /* acc op child, in the child's buffer */
    }
    if (parent >= 0)
        ch4coll_sched_send(s, acc, a->count, ch4coll_abs(parent, root, p), 0,
                           ch4coll_dep1(prev, d), d);
    else if (acc.buf != CH4COLL_BUF_RECV)
        ch4coll_sched_copy(s, acc, ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count,
                           ch4coll_dep1(prev, d), d);
    return CH4COLL_OK;
}

/* ---------------------------------------------------------------- barrier */

/* Step 1: hear from every child, then report to the parent.  Returns the
 * vertex after which the whole subtree has arrived. */
static int barrier_gather(ch4coll_sched_t *s, int vr, int k, int p, int *heard)
{
    int nch = ch4coll_knomial_nchildren(vr, k, p);
    int parent = ch4coll_knomial_parent(vr, k), i, all, d[1];
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    for (i = 0; i < nch; i++)
        heard[i] = ch4coll_sched_recv(
            s, none, 0, ch4coll_knomial_child(vr, k, p, i), 0, 0, NULL);
    all = ch4coll_sched_sink(s, nch, heard);
    if (parent >= 0)
        ch4coll_sched_send(s, none, 0, parent, 0, ch4coll_dep1(all, d), d);
    return all;
}

/* Step 2: wait for the release (the root: for the whole tree), pass it on
 * to the children. */
static void barrier_release(ch4coll_sched_t *s, int vr, int k, int p, int all)
{
    int nch = ch4coll_knomial_nchildren(vr, k, p);
    int parent = ch4coll_knomial_parent(vr, k), i, go = all, d[1];
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    if (parent >= 0)
        go = ch4coll_sched_recv(s, none, 0, parent, 0, 0, NULL);
    for (i = 0; i < nch; i++)
        ch4coll_sched_send(s, none, 0, ch4coll_knomial_child(vr, k, p, i), 0,
                           ch4coll_dep1(go, d), d);
}

/* The tree is rooted at rank 0: relative and absolute ranks coincide.
 * Child and parent exchange one message each way, on tag 0. */
int ch4coll_barrier_tree(ch4coll_sched_t *s, const ch4coll_args_t *a,
                         const int64_t *params)
{
    int p = a->size, k = (int) params[0], vr = a->rank, all;
    int *heard;

    if (!radix_ok(params[0]))
        return CH4COLL_ERR_ARG;
    if (p == 1)
        return CH4COLL_OK;
    /* builder-time memory belongs to the builder */
    heard = ch4coll_malloc((size_t) (ch4coll_knomial_nchildren(vr, k, p) + 1) *
                           sizeof *heard);
    if (!heard)
        return CH4COLL_ERR_NOMEM;
    all = barrier_gather(s, vr, k, p, heard);
    barrier_release(s, vr, k, p, all);
    ch4coll_free(heard);
    return CH4COLL_OK;
}

/* ------------------------------------------------------------------- cost */

/*
 * Children of a node whose subtree spans s ranks below limit lim: at each
 * level mm = lim/k, lim/k^2, ..., 1 the children j = 1 .. c (c = number of
 * j < k with j mm < s), of which the first f span mm ranks (full) and, if
 * c > f, the last spans s - c mm (partial).  Only one child of a node is
 * partial, so the recursions below follow one path.
 */
static void kn_level(int64_t s, int64_t mm, int k, int64_t *c, int64_t *f)
{
    *c = (s - 1) / mm < k - 1 ? (s - 1) / mm : k - 1;
    *f = s / mm - 1 < *c ? s / mm - 1 : *c;
    if (*f < 0)
        *f = 0;
}

static int kn_log(int64_t lim, int k)
{
    int l = 0;

    for (; lim > 1; lim /= k)
        l++;
    return l;
}

/* Bcast: time from the node having the message until its whole subtree
 * has it.  Sends go out one at a time, largest subtree first; a full
 * subtree of k^l ranks takes l (k-1) msg. */
static double kn_down(int64_t s, int64_t lim, int k, double t_msg)
{
    int64_t mm, c, f, idx = 0;
    int l = kn_log(lim, k) - 1;
    double worst = 0, x;

    for (mm = lim / k; mm >= 1; mm /= k, l--) {
        kn_level(s, mm, k, &c, &f);
        if (c <= 0)
            continue;
        x = (double) (idx + f) * t_msg + l * (k - 1) * t_msg;
        if (f > 0 && x > worst)
            worst = x;
        x = (double) (idx + c) * t_msg + kn_down(s - c * mm, mm, k, t_msg);
        if (c > f && x > worst)
            worst = x;
        idx += c;
    }
    return worst;
}

/* Barrier gather: time until every child of the node has reported (empty
 * messages, alpha each, through the node's receive port in the order the
 * children are ready).  A full child of k^l ranks is ready at
 * l (k-1) alpha. */
static double kn_up(int64_t s, int64_t lim, int k, double alpha)
{
    int64_t mm, c, f, nl = kn_log(lim, k), l;
    double port = 0, part = -1, ready;

    for (mm = lim / k; mm >= 1; mm /= k) {
        kn_level(s, mm, k, &c, &f);
        if (c > f)
            part = kn_up(s - c * mm, mm, k, alpha);
    }
    for (l = 0, mm = 1; l < nl; l++, mm *= k) {
        kn_level(s, mm, k, &c, &f);
        ready = (double) l * (k - 1) * alpha;
        if (part >= 0 && part <= ready) {
            port = (part > port ? part : port) + alpha;
            part = -1;
        }
        if (f > 0)
            port = (ready > port ? ready : port) + (double) f * alpha;
    }
    if (part >= 0)
        port = (part > port ? part : port) + alpha;
    return port;
}

double ch4coll_cost_bcast_knomial(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m)
{
    int p = a->size, k = (int) params[0];

    if (!radix_ok(params[0]))
        return HUGE_VAL;
    if (a->count == 0 || p == 1)
        return 0.0;
    return kn_down(p, ch4coll_knomial_limit(0, k, p), k,
                   m->alpha + (double) a->count * m->beta);
}

/* The barrier's gather with a message and a fold per child. */
double ch4coll_cost_reduce_knomial(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    int p = a->size, k = (int) params[0];
    double n = ch4coll_nbytes(a, 1) * (double) a->count;

    if (!radix_ok(params[0]))
        return HUGE_VAL;
    if (a->count == 0 || p == 1)
        return 0.0;
    return kn_up(p, ch4coll_knomial_limit(0, k, p), k,
                 m->alpha + n * (m->beta + m->gamma));
}

double ch4coll_cost_barrier_tree(const ch4coll_args_t *a, const int64_t *params,
                                 const ch4coll_model_t *m)
{
    int p = a->size, k = (int) params[0];
    int64_t lim = ch4coll_knomial_limit(0, k, p);

    if (!radix_ok(params[0]))
        return HUGE_VAL;
    if (p == 1)
        return 0.0;
    return kn_up(p, lim, k, m->alpha) + kn_down(p, lim, k, m->alpha);
}
