/*
 * test_topo_trees.c - unit tests of the trees and index arithmetic of
 * topo/trees.h and topo/index.h, all against brute force.
 *
 * What is covered, and why it matters:
 *
 *   trees      k-nomial trees (p = 1..200, k = 2..9: depth, child lists,
 *              paths, subtree spans; radix 2 is topo.h's binomial tree) and
 *              the binary heap tree (p = 1..200).
 *   index      Bruck allgather and alltoall simulated slot by slot, and the
 *              alltoall permutation (p = 1..200, two seeds, and the worked
 *              example of alltoall_bruck.c).
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK).
 */
#include <check.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "topo/index.h"
#include "topo/topo.h"
#include "topo/trees.h"
#include "unit.h"
#include "util/util.h"

/*
 * The brute-force checks below run millions of comparisons; Check records
 * every passing ck_assert (a write per assertion), so each check is a
 * function that returns -1 with the first violation described in why, and
 * the test asserts once per case.
 */
#define TREES_PMAX 200

static int topo_fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Mark the subtree of vr by following the child lists; returns its size. */
static int knomial_walk(int vr, int k, int p, unsigned char *mark)
{
    int i, n = 1, nch = ch4coll_knomial_nchildren(vr, k, p);

    mark[vr]++;
    for (i = 0; i < nch; i++)
        n += knomial_walk(ch4coll_knomial_child(vr, k, p, i), k, p, mark);
    return n;
}

/* Number of nonzero base-k digits of x: its distance from the root. */
static int nonzero_digits(int x, int k)
{
    int n = 0;

    for (; x > 0; x /= k)
        n += x % k != 0;
    return n;
}

/* depth = ceil(log_k p), the root's limit k^depth. */
static int knomial_check_depth(int p, int k, char *why, size_t len)
{
    int depth = ch4coll_knomial_depth(p, k), i;
    int64_t kd = 1;

    for (i = 0; i < depth; i++)
        kd *= k;
    if (kd < p || (depth > 0 && kd / k >= p))
        return topo_fail(why, len, "depth %d", depth);
    if (ch4coll_knomial_limit(0, k, p) != kd)
        return topo_fail(why, len, "root limit %lld",
                         (long long) ch4coll_knomial_limit(0, k, p));
    return 0;
}

/* Child lists: children above the parent and below p, listed largest
 * offset first, each offset j m (j < k) with m = the child's limit below
 * the parent's; every non-root listed exactly once, by its parent. */
static int knomial_check_children(int p, int k, char *why, size_t len)
{
    int nparent[TREES_PMAX] = {0}, u, i;

    for (u = 0; u < p; u++) {
        int nch = ch4coll_knomial_nchildren(u, k, p);
        int64_t lim = ch4coll_knomial_limit(u, k, p), prev = lim;
        for (i = 0; i < nch; i++) {
            int c = ch4coll_knomial_child(u, k, p, i);
            int64_t m = c > u && c < p ? ch4coll_knomial_limit(c, k, p) : 0;
            if (m == 0)
                return topo_fail(why, len, "child %d of %d", c, u);
            if (ch4coll_knomial_parent(c, k) != u)
                return topo_fail(why, len, "parent of %d is %d, not %d", c,
                                 ch4coll_knomial_parent(c, k), u);
            if ((c - u) % m != 0 || (c - u) / m >= k || m > prev || m >= lim)
                return topo_fail(why, len, "child %d of %d: offset %d, m %lld",
                                 c, u, c - u, (long long) m);
            prev = m;
            nparent[c]++;
        }
        if (ch4coll_knomial_child(u, k, p, nch) != -1)
            return topo_fail(why, len, "%d has more than %d children", u, nch);
    }
    if (ch4coll_knomial_parent(0, k) != -1 || nparent[0] != 0)
        return topo_fail(why, len, "the root has a parent");
    for (u = 1; u < p; u++)
        if (nparent[u] != 1)
            return topo_fail(why, len, "%d has %d parents", u, nparent[u]);
    return 0;
}

/* Paths and rounds: every rank reaches the root in (its number of nonzero
 * digits) <= depth steps; a rank is reached at a smaller offset than its
 * parent, and the non-roots use exactly depth distinct offsets. */
static int knomial_check_depth_paths(int p, int k, char *why, size_t len)
{
    int depth = ch4coll_knomial_depth(p, k), lims[TREES_PMAX], nlims = 0;
    int vr, i;

    for (vr = 1; vr < p; vr++) {
        int par = ch4coll_knomial_parent(vr, k), x = vr, d = 0;
        int64_t lim = ch4coll_knomial_limit(vr, k, p);
        if (lim >= ch4coll_knomial_limit(par, k, p))
            return topo_fail(why, len, "%d not reached after its parent %d", vr,
                             par);
        for (i = 0; i < nlims && lims[i] != lim; i++)
            ;
        if (i == nlims)
            lims[nlims++] = (int) lim;
        while (x > 0 && d <= p) {
            x = ch4coll_knomial_parent(x, k);
            d++;
        }
        if (x != 0 || d != nonzero_digits(vr, k) || d > depth)
            return topo_fail(why, len,
                             "%d is %d steps from the root (depth %d)", vr, d,
                             depth);
    }
    if (nlims != depth)
        return topo_fail(why, len, "%d rounds, depth %d", nlims, depth);
    return 0;
}

/* Subtree spans: the child lists reach exactly [vr, vr + span). */
static int knomial_check_spans(int p, int k, char *why, size_t len)
{
    unsigned char mark[TREES_PMAX];
    int vr, i;

    for (vr = 0; vr < p; vr++) {
        int span = ch4coll_knomial_span(vr, k, p), size;
        memset(mark, 0, sizeof mark);
        size = knomial_walk(vr, k, p, mark);
        if (size != span)
            return topo_fail(why, len, "subtree of %d: %d ranks, span %d", vr,
                             size, span);
        for (i = 0; i < p; i++)
            if (mark[i] != (i >= vr && i < vr + span))
                return topo_fail(why, len, "subtree of %d (span %d): rank %d",
                                 vr, span, i);
    }
    return 0;
}

/* k-nomial trees for p = 1..200 and k = 2..9 against brute force; radix 2
 * is the binomial tree of topo.h. */
START_TEST(test_topo_knomial)
{
    char why[160];
    int p, k, vr, same = 1;

    for (p = 1; p <= TREES_PMAX; p++)
        for (k = 2; k <= 9; k++) {
            ck_assert_msg(knomial_check_depth(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_children(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_depth_paths(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_spans(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
        }
    for (p = 1; p <= TREES_PMAX; p++)
        for (vr = 0; vr < p; vr++)
            same &=
                ch4coll_knomial_parent(vr, 2) == ch4coll_binomial_parent(vr) &&
                ch4coll_knomial_span(vr, 2, p) == ch4coll_binomial_span(vr, p);
    ck_assert(same);
}
END_TEST

/* The binary heap tree on p ranks: children 2u + 1 + j below p with u as
 * parent, one parent per non-root, every rank reached from the root, and
 * the longest path floor(lg p) = depth. */
static int heap_check(int p, char *why, size_t len)
{
    int nparent[TREES_PMAX] = {0}, reach[TREES_PMAX];
    int depth = ch4coll_heap_depth(p), height = 0, head = 0, tail = 0;
    int u, j;

    if ((1 << depth) > p || p >= (2 << depth))
        return topo_fail(why, len, "depth %d", depth);
    for (u = 0; u < p; u++) {
        int nch = ch4coll_heap_nchildren(u, p);
        for (j = 0; j < 2; j++) {
            int c = ch4coll_heap_child(u, p, j);
            if (c != (j < nch ? 2 * u + 1 + j : -1) || c >= p)
                return topo_fail(why, len, "child %d of %d is %d (%d children)",
                                 j, u, c, nch);
            if (c >= 0 && ch4coll_heap_parent(c) != u)
                return topo_fail(why, len, "parent of %d is %d, not %d", c,
                                 ch4coll_heap_parent(c), u);
            if (c >= 0)
                nparent[c]++;
        }
    }
    if (ch4coll_heap_parent(0) != -1 || nparent[0] != 0)
        return topo_fail(why, len, "the root has a parent");
    for (u = 1; u < p; u++) {
        int x = u, d = 0;
        if (nparent[u] != 1)
            return topo_fail(why, len, "%d has %d parents", u, nparent[u]);
        while (x > 0 && d <= p) {
            x = ch4coll_heap_parent(x);
            d++;
        }
        if (x != 0)
            return topo_fail(why, len, "%d does not reach the root", u);
        height = d > height ? d : height;
    }
    if (height != depth)
        return topo_fail(why, len, "height %d, depth %d", height, depth);
    reach[tail++] = 0; /* breadth first from the root */
    while (head < tail) {
        u = reach[head++];
        for (j = 0; j < ch4coll_heap_nchildren(u, p); j++)
            reach[tail++] = ch4coll_heap_child(u, p, j);
    }
    if (tail != p)
        return topo_fail(why, len, "%d ranks reached from the root", tail);
    return 0;
}

START_TEST(test_topo_heap)
{
    char why[160];
    int p;

    for (p = 1; p <= TREES_PMAX; p++)
        ck_assert_msg(heap_check(p, why, sizeof why) == 0, "p=%d: %s", p, why);
}
END_TEST

/* The radices the Bruck tests try on p ranks: every k up to 40 ranks,
 * beyond that 2..9, the two- and three-step radices and p; *n of them into
 * ks (room for 48). */
static void bruck_radices(int p, int *ks, int *n)
{
    int k, s;

    *n = 0;
    for (k = 2; k <= (p < 40 ? p : 9); k++)
        ks[(*n)++] = k;
    if (p >= 40) {
        for (s = 2; s <= 3; s++)
            ks[(*n)++] = ch4coll_bruck_radix(s, p);
        ks[(*n)++] = p;
    }
    if (*n == 0)
        ks[(*n)++] = 2;
}

/* b^s, stopping once it reaches p. */
static int64_t pow_upto(int64_t b, int s, int p)
{
    int64_t x = 1;

    while (s-- > 0 && x < p)
        x *= b;
    return x;
}

/* The radix of s steps: the least k >= 2 with k^s >= p. */
static int bruck_radix_check(int p, char *why, size_t len)
{
    int s;

    for (s = 0; s <= 12; s++) {
        int k = ch4coll_bruck_radix(s, p);
        int64_t reach = s == 0 ? p : pow_upto(k, s, p);
        if (k < 2 || reach < p || (k > 2 && pow_upto(k - 1, s, p) >= p))
            return topo_fail(why, len, "steps %d: radix %d", s, k);
    }
    if (ch4coll_bruck_radix(1, p) != (p < 2 ? 2 : p))
        return topo_fail(why, len, "one step: radix %d",
                         ch4coll_bruck_radix(1, p));
    return 0;
}

/* Bruck allgather in radix k simulated on p ranks: rank r receives
 * T[v d, v d + c) from r + v d, which sends its T[0, c), into slots nobody
 * wrote before; then slot j holds block r + j, and the rotation by wrap
 * puts every block at its own index exactly once.  t: p x p slots. */
static int bruck_ag_check(int p, int k, int (*t)[TREES_PMAX], char *why,
                          size_t len)
{
    int recv[TREES_PMAX], r, j, d, i, v, steps = 0, want = 0;

    for (r = 0; r < p; r++) {
        for (j = 0; j < p; j++)
            t[r][j] = -1;
        t[r][0] = r;
    }
    for (d = 1; d < p; d *= k, steps++) {
        int filled = d; /* slots [0, d) hold blocks before the step */
        for (v = 1; v < k && v * d < p; v++) {
            int c = ch4coll_bruck_ag_count(d, v, p);
            if (c < 1 || c > d || v * d + c > p)
                return topo_fail(why, len, "d=%d v=%d: %d blocks", d, v, c);
            /* slots below d are only read in this step */
            for (r = 0; r < p; r++)
                for (i = 0; i < c; i++) {
                    int from = (r + v * d) % p;
                    if (t[from][i] < 0 || i >= filled || t[r][v * d + i] >= 0)
                        return topo_fail(why, len, "d=%d v=%d rank %d slot %d",
                                         d, v, r, v * d + i);
                    t[r][v * d + i] = t[from][i];
                }
        }
    }
    for (i = 1; i < p; i *= k)
        want++;
    if (steps != want)
        return topo_fail(why, len, "%d steps", steps);
    for (r = 0; r < p; r++) {
        int wrap = ch4coll_bruck_wrap(r, p);
        if (wrap < 1 || wrap > p)
            return topo_fail(why, len, "rank %d: wrap %d", r, wrap);
        for (i = 0; i < p; i++)
            recv[i] = -1;
        for (j = 0; j < p; j++) {
            int at = j < wrap ? r + j : j - wrap; /* T[0, wrap) -> [r, p) */
            if (t[r][j] != ch4coll_bruck_slot_rank(r, j, p) ||
                t[r][j] != (r + j) % p || recv[at] >= 0)
                return topo_fail(why, len, "rank %d slot %d holds %d", r, j,
                                 t[r][j]);
            recv[at] = t[r][j];
        }
        for (i = 0; i < p; i++)
            if (recv[i] != i)
                return topo_fail(why, len, "rank %d: block %d holds %d", r, i,
                                 recv[i]);
    }
    return 0;
}

START_TEST(test_topo_bruck_allgather)
{
    static int t[TREES_PMAX][TREES_PMAX];
    char why[160];
    int p, ks[48], n, i;

    for (p = 1; p <= TREES_PMAX; p++) {
        ck_assert_msg(bruck_radix_check(p, why, sizeof why) == 0, "p=%d: %s", p,
                      why);
        bruck_radices(p, ks, &n);
        for (i = 0; i < n; i++)
            ck_assert_msg(bruck_ag_check(p, ks[i], t, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, ks[i], why);
    }
}
END_TEST

/* The runs of digit v at distance d in radix k: increasing, disjoint, at
 * most d slots each, and together exactly the slots whose digit at d is
 * v. */
static int bruck_runs_check(int d, int v, int k, int p, char *why, size_t len)
{
    int nruns = ch4coll_bruck_a2a_nruns(d, v, k, p), n = 0, brute = 0;
    int i, j, lo, hi, prev = 0;

    for (j = 0; j < p; j++)
        brute += (j / d) % k == v;
    for (i = 0; i < nruns; i++) {
        ch4coll_bruck_a2a_run(d, v, k, p, i, &lo, &hi);
        if (lo < prev || lo >= hi || hi > p || hi - lo > d)
            return topo_fail(why, len, "d=%d v=%d run %d: [%d, %d)", d, v, i,
                             lo, hi);
        for (j = lo; j < hi; j++)
            if (ch4coll_bruck_a2a_digit(j, d, k) != v)
                return topo_fail(why, len, "d=%d: slot %d without digit %d", d,
                                 j, v);
        prev = hi;
        n += hi - lo;
    }
    if (n != brute || ch4coll_bruck_a2a_nslots(d, v, k, p) != brute ||
        (k == 2 && brute > (p + 1) / 2))
        return topo_fail(
            why, len, "d=%d v=%d: %d slots in runs, nslots %d, %d with digit",
            d, v, n, ch4coll_bruck_a2a_nslots(d, v, k, p), brute);
    return 0;
}

/* Bruck alltoall in radix k simulated on p ranks (a block is src * p +
 * dst): slot j starts with r's block for slot_rank(r, j); at digit v of
 * distance d rank r sends its run slots to r + v d and receives the same
 * slots from r - v d.  After the steps slot j holds the block from
 * a2a_origin(r, j) for r, so the unrotation delivers every block exactly
 * once.  t, old: p x p slots. */
static int bruck_a2a_check(int p, int k, int (*t)[TREES_PMAX],
                           int (*old)[TREES_PMAX], char *why, size_t len)
{
    unsigned char got[TREES_PMAX];
    int r, j, d, i, v, lo, hi;

    for (r = 0; r < p; r++) {
        int wrap = ch4coll_bruck_wrap(r, p);
        for (j = 0; j < p; j++) {
            int dst = ch4coll_bruck_slot_rank(r, j, p);
            if (dst != (j < wrap ? r + j : j - wrap))
                return topo_fail(why, len, "rank %d slot %d: destination %d", r,
                                 j, dst);
            t[r][j] = r * p + dst;
        }
    }
    for (d = 1; d < p; d *= k) {
        for (r = 0; r < p; r++)
            memcpy(old[r], t[r], (size_t) p * sizeof t[r][0]);
        for (v = 1; v < k && v * d < p; v++) {
            if (bruck_runs_check(d, v, k, p, why, len) != 0)
                return -1;
            for (i = 0; i < ch4coll_bruck_a2a_nruns(d, v, k, p); i++) {
                ch4coll_bruck_a2a_run(d, v, k, p, i, &lo, &hi);
                for (j = lo; j < hi; j++)
                    for (r = 0; r < p; r++)
                        t[r][j] = old[(r - v * d + p) % p][j];
            }
        }
    }
    for (r = 0; r < p; r++) {
        memset(got, 0, sizeof got);
        for (j = 0; j < p; j++) {
            int src = ch4coll_bruck_a2a_origin(r, j, p);
            if (t[r][j] % p != r || t[r][j] / p != src || got[src]++)
                return topo_fail(why, len,
                                 "rank %d slot %d: %d->%d, expected %d->%d", r,
                                 j, t[r][j] / p, t[r][j] % p, src, r);
        }
    }
    return 0;
}

START_TEST(test_topo_bruck_alltoall)
{
    static int t[TREES_PMAX][TREES_PMAX], old[TREES_PMAX][TREES_PMAX];
    char why[160];
    int p, ks[48], n, i;

    for (p = 1; p <= TREES_PMAX; p++) {
        bruck_radices(p, ks, &n);
        for (i = 0; i < n; i++)
            ck_assert_msg(bruck_a2a_check(p, ks[i], t, old, why, sizeof why) ==
                              0,
                          "p=%d k=%d: %s", p, ks[i], why);
    }
}
END_TEST

/* The permuted list of p ranks from seed: a permutation with its inverse,
 * the same when drawn again; in every turn the destinations of all ranks
 * are distinct, never the sender, and the sender is the source its
 * destination hears from; over the p - 1 turns every rank sends to every
 * other rank once.  met: p x p. */
static int perm_check(int p, uint64_t seed, unsigned char (*met)[TREES_PMAX],
                      char *why, size_t len)
{
    int list[TREES_PMAX], pos[TREES_PMAX], list2[TREES_PMAX], pos2[TREES_PMAX];
    unsigned char seen[TREES_PMAX];
    int i, t, r;

    ch4coll_perm_shuffle(p, seed, list, pos);
    ch4coll_perm_shuffle(p, seed, list2, pos2);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < p; i++) {
        if (list[i] < 0 || list[i] >= p || seen[list[i]]++)
            return topo_fail(why, len, "list[%d] = %d", i, list[i]);
        if (pos[list[i]] != i)
            return topo_fail(why, len, "pos[%d] = %d, not %d", list[i],
                             pos[list[i]], i);
        if (list2[i] != list[i] || pos2[i] != pos[i])
            return topo_fail(why, len, "a second draw differs at %d", i);
    }
    for (r = 0; r < p; r++)
        memset(met[r], 0, (size_t) p);
    for (t = 0; t < p - 1; t++) {
        memset(seen, 0, sizeof seen);
        for (r = 0; r < p; r++) {
            int dst = ch4coll_perm_dest(list, p, pos[r], t);
            if (dst < 0 || dst >= p || dst == r || seen[dst]++ || met[r][dst]++)
                return topo_fail(why, len, "turn %d: %d -> %d", t, r, dst);
            if (ch4coll_perm_source(list, p, pos[dst], t) != r)
                return topo_fail(why, len, "turn %d: %d hears from %d, not %d",
                                 t, dst,
                                 ch4coll_perm_source(list, p, pos[dst], t), r);
        }
    }
    for (r = 0; r < p; r++)
        for (i = 0; i < p; i++)
            if (met[r][i] != (i != r))
                return topo_fail(why, len, "%d sends %d times to %d", r,
                                 met[r][i], i);
    return 0;
}

/* The builders' seed and another for p = 1..200, and the list of
 * alltoall_bruck.c's worked example (p = 5). */
START_TEST(test_topo_permutation)
{
    static const int p5[] = {1, 2, 0, 3, 4};
    static unsigned char met[TREES_PMAX][TREES_PMAX];
    int list[5], pos[5], p, i;
    char why[160];

    for (p = 1; p <= TREES_PMAX; p++) {
        ck_assert(ch4coll_perm_seed(p) != 0);
        ck_assert_msg(
            perm_check(p, ch4coll_perm_seed(p), met, why, sizeof why) == 0,
            "p=%d: %s", p, why);
        ck_assert_msg(perm_check(p, UINT64_C(12345) + (uint64_t) p, met, why,
                                 sizeof why) == 0,
                      "p=%d, seed 12345 + p: %s", p, why);
    }
    ch4coll_perm_shuffle(5, ch4coll_perm_seed(5), list, pos);
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(list[i], p5[i]);
}
END_TEST

/* =============================================================== main */

static Suite *topo_trees_suite(void)
{
    Suite *s = suite_create("topo_trees");
    TCase *tc;

    tc = tcase_create("topo");
    tcase_add_test(tc, test_topo_knomial);
    tcase_add_test(tc, test_topo_heap);
    tcase_add_test(tc, test_topo_bruck_allgather);
    tcase_add_test(tc, test_topo_bruck_alltoall);
    tcase_add_test(tc, test_topo_permutation);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, topo_trees_suite);
}
