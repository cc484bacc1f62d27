/*
 * knomial.c - k-nomial tree bcast and tree barrier.
 *
 * Source: NEC MPI/SX section 3.3 ("for small messages the best possible
 * algorithm is a binomial tree") and section 3.2 (a software barrier over
 * trees as the fall-back when no hardware barrier counter is available).
 * The k-nomial tree generalises the binomial tree of binomial.c: a node
 * talks to k - 1 children per level, so the tree is ceil(log_k p) levels
 * deep instead of ceil(lg p).  Radix 2 is exactly the binomial tree.
 *
 * Tree: relative rank vr = (rank - root) mod p, written in base k.  The
 * parent of vr > 0 clears its lowest nonzero base-k digit; the children of
 * vr are vr + j m for j = 1..k-1 and the powers of k m below the weight of
 * that digit (below the smallest power of k >= p for the root), as long as
 * vr + j m < p.  The subtree of vr + j m is [vr + j m, vr + (j+1) m) cut at p.
 *
 * bcast    receive the whole message from the parent, then send it to the
 *          children, largest subtrees (largest m) first.
 *          Steps: ceil(log_k p) levels of k - 1 sends each.
 *          T = ceil(log_k p) (k-1) (alpha + n beta) with one port; with k
 *          ports (or overlapping sends) ceil(log_k p) (alpha + n beta).
 *          No scratch.
 * barrier  gather empty messages to the root up the same tree (a node sends
 *          to its parent once all its children have reported), then the
 *          release goes down the tree: the root sends once everyone has
 *          reported, an inner node forwards the release it received.
 *          T = 2 ceil(log_k p) (k-1) alpha.  No scratch.
 *
 * Restrictions: none; any p, any count (count 0 is a no-op), any root.
 * Parameters: radix (bcast and barrier), default 4, range 2..64.
 *
 * Worked example, p = 10, radix 3, root 2 (relative ranks in brackets):
 *   [0] -> [9] (m = 9), [3], [6] (m = 3), [1], [2] (m = 1)
 *   [3] -> [4], [5];  [6] -> [7], [8];  [9] has none (9 + 3 >= 10)
 *   absolute: 2 -> 1, 5, 8, 3, 4;  5 -> 6, 7;  8 -> 9, 0.
 *   bcast: 3 levels; the root's 5 sends go out largest subtree first.
 *   barrier (the same shape rooted at rank 0): 4, 5 report to 3 and 7, 8
 *   to 6; then 9, 3, 6, 1, 2 report to 0, which releases them in that
 *   order; 3 and 6 pass the release on to 4, 5 and 7, 8.
 */
#include "algo.h"

#include "../topo/topo.h"
#include "../util/util.h"

#define RADIX_MIN 2
#define RADIX_MAX 64

/* --------------------------------------------------- k-nomial arithmetic */

/* Exclusive upper bound of the child offsets m of vr (a power of k): the
 * weight of vr's lowest nonzero base-k digit, or for the root the smallest
 * power of k >= p.  64-bit so that m * k cannot overflow. */
static inline int64_t knomial_limit(int vr, int k, int p)
{
    int64_t m = 1;

    if (vr == 0) {
        while (m < p)
            m *= k;
        return m;
    }
    while (vr % (m * k) == 0)
        m *= k;
    return m;
}

/* Parent of vr > 0: vr with its lowest nonzero base-k digit cleared. */
static inline int knomial_parent(int vr, int k)
{
    int64_t m;

    if (vr == 0)
        return -1;
    m = knomial_limit(vr, k, 0);
    return vr - (int) (((vr / m) % k) * m);
}

/* Number of children of vr. */
static inline int knomial_nchildren(int vr, int k, int p)
{
    int64_t m, j;
    int n = 0;

    for (m = knomial_limit(vr, k, p) / k; m >= 1; m /= k)
        for (j = 1; j < k && vr + j * m < p; j++)
            n++;
    return n;
}

/* The i-th child of vr in sending order (largest m first, then j). */
static inline int knomial_child(int vr, int k, int p, int i)
{
    int64_t m, j;

    for (m = knomial_limit(vr, k, p) / k; m >= 1; m /= k)
        for (j = 1; j < k && vr + j * m < p; j++)
            if (i-- == 0)
                return (int) (vr + j * m);
    return -1;
}

static int radix_ok(int64_t k)
{
    return k >= RADIX_MIN && k <= RADIX_MAX;
}

/* ------------------------------------------------------------------ bcast */

int ch4coll_bcast_knomial(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    int p = a->size, k = (int) params[0], root = a->root;
    int vr = ch4coll_rel(a->rank, root, p), parent, nch, i, got = -1, d[1];
    ch4coll_ref_t buf = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    if (!radix_ok(params[0]))
        return CH4COLL_ERR_ARG;
    if (a->count == 0 || p == 1)
        return CH4COLL_OK;
    parent = knomial_parent(vr, k);
    if (parent >= 0)
        got = ch4coll_sched_recv(s, buf, a->count, ch4coll_abs(parent, root, p),
                                 0, 0, NULL);
    nch = knomial_nchildren(vr, k, p);
    for (i = 0; i < nch; i++)
        ch4coll_sched_send(s, buf, a->count,
                           ch4coll_abs(knomial_child(vr, k, p, i), root, p), 0,
                           ch4coll_dep1(got, d), d);
    return CH4COLL_OK;
}

/* ---------------------------------------------------------------- barrier */

/* Step 1: hear from every child, then report to the parent.  Returns the
 * vertex after which the whole subtree has arrived. */
static int barrier_gather(ch4coll_sched_t *s, int vr, int k, int p, int *heard)
{
    int nch = knomial_nchildren(vr, k, p), parent = knomial_parent(vr, k), i;
    int all, d[1];
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    for (i = 0; i < nch; i++)
        heard[i] = ch4coll_sched_recv(s, none, 0, knomial_child(vr, k, p, i), 0,
                                      0, NULL);
    all = ch4coll_sched_sink(s, nch, heard);
    if (parent >= 0)
        ch4coll_sched_send(s, none, 0, parent, 0, ch4coll_dep1(all, d), d);
    return all;
}

/* Step 2: wait for the release (the root: for the whole tree), pass it on
 * to the children. */
static void barrier_release(ch4coll_sched_t *s, int vr, int k, int p, int all)
{
    int nch = knomial_nchildren(vr, k, p), parent = knomial_parent(vr, k), i;
    int go = all, d[1];
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    if (parent >= 0)
        go = ch4coll_sched_recv(s, none, 0, parent, 0, 0, NULL);
    for (i = 0; i < nch; i++)
        ch4coll_sched_send(s, none, 0, knomial_child(vr, k, p, i), 0,
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
    heard = ch4coll_malloc((size_t) (knomial_nchildren(vr, k, p) + 1) *
                           sizeof *heard);
    if (!heard)
        return CH4COLL_ERR_NOMEM;
    all = barrier_gather(s, vr, k, p, heard);
    barrier_release(s, vr, k, p, all);
    ch4coll_free(heard);
    return CH4COLL_OK;
}
