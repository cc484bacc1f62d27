/*
 * test_select_inputs.c - unit tests of the selection inputs built from a
 * call (select/select.c, ch4coll_selin_from_args): every rank must reach
 * the same decision.
 *
 * What is covered, and why it matters:
 *
 *   same input  The inputs built from a call shape are identical on every
 *               rank of p = 7 for allgatherv and reduce_scatter with
 *               irregular counts, and a threshold decision flips exactly
 *               when the total crosses it; gatherv/scatterv/alltoallv give
 *               size 0.
 *
 * Assumptions: unit.h (MPI singleton, because the argument structs carry
 * MPI handles; CK_NOFORK, each test frees what it creates).
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "select/select.h"
#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

#define VP 7

static ch4coll_args_t v_args(int coll, int r, const size_t *counts,
                             const size_t *displs)
{
    ch4coll_args_t a;

    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.rank = r;
    a.size = VP;
    a.count = counts ? counts[r] : 0;
    a.counts = counts;
    a.displs = displs;
    a.elem = ch4coll_coll_is_reduction(coll) ? int_elem : byte_elem;
    a.op = MPI_SUM;
    a.commutative = 1;
    a.op_builtin = 1;
    return a;
}

/* The leaf every rank selects with tree t for these counts; fails if two
 * ranks disagree or their inputs differ.  Returns the algorithm. */
static const ch4coll_algo_t *all_ranks(const ch4coll_tree_t *t, int coll,
                                       const size_t *counts)
{
    size_t displs[VP];
    const ch4coll_algo_t *first = NULL;
    ch4coll_selin_t in0;
    int r;

    for (r = 0; r < VP; r++)
        displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
    for (r = 0; r < VP; r++) {
        ch4coll_args_t a = v_args(coll, r, counts, displs);
        ch4coll_selin_t in = comm_in(VP, 1);
        const ch4coll_algo_t *al;
        ch4coll_selin_from_args(&a, &in);
        if (r == 0)
            in0 = in;
        ck_assert_int_eq(in.count, in0.count);
        ck_assert_int_eq(in.avg_msg_size, in0.avg_msg_size);
        ck_assert_int_eq(in.total_msg_size, in0.total_msg_size);
        ck_assert_int_eq(in.block_regular, in0.block_regular);
        ck_assert_int_eq(in.inplace, in0.inplace);
        ck_assert_int_eq(in.commutative, in0.commutative);
        al = found_algo(t, &in);
        ck_assert_ptr_nonnull(al);
        if (r == 0)
            first = al;
        ck_assert_msg(al == first, "rank %d chose %s, rank 0 %s", r, al->name,
                      first->name);
    }
    return first;
}

static int64_t total_of(const size_t *counts)
{
    int64_t s = 0;
    int r;

    for (r = 0; r < VP; r++)
        s += (int64_t) counts[r];
    return s;
}

/* One tree: "<key><N>" -> the collective's non-native algorithm, else
 * native.  The decision must be value-of-total <op> N. */
static void check_threshold(int coll, const char *name, const char *op,
                            int64_t n, const size_t *counts)
{
    const char *ours = coll == CH4COLL_ALLGATHERV ? "ring" : "pairwise";
    int64_t esize = ch4coll_coll_is_reduction(coll) ? 4 : 1;
    int64_t elems = total_of(counts), v;
    char json[512];
    ch4coll_tree_t t;
    int want;

    snprintf(json, sizeof json,
             "{\"collective=%s\": {\"%s%s%lld\": {\"algorithm=%s\": {}}, "
             "\"algorithm=native\": {}}}",
             ch4coll_coll_name(coll), name, op, (long long) n, ours);
    load_ok(&t, json);
    v = strcmp(name, "count") == 0            ? elems
        : strcmp(name, "total_msg_size") == 0 ? elems * esize
                                              : elems * esize / VP;
    want = strcmp(op, "<=") == 0 ? v <= n : v < n;
    ck_assert_msg(all_ranks(&t, coll, counts) ==
                      algo(coll, want ? ours : "native"),
                  "%s%s%lld with %s = %lld", name, op, (long long) n, name,
                  (long long) v);
    ch4coll_tree_free(&t);
}

START_TEST(test_same_decision)
{
    static const int colls[] = {CH4COLL_ALLGATHERV, CH4COLL_REDUCE_SCATTER};
    static const char *const names[] = {"total_msg_size", "avg_msg_size",
                                        "count"};
    static const char *const ops[] = {"<=", "<"};
    size_t counts[VP] = {3, 0, 11, 5, 1, 17, 8};
    uint64_t seed = 77;
    int ci, ni, oi, d, r, trial;

    for (ci = 0; ci < 2; ci++) {
        int coll = colls[ci];
        int64_t esize = ch4coll_coll_is_reduction(coll) ? 4 : 1;
        for (ni = 0; ni < 3; ni++)
            for (oi = 0; oi < 2; oi++) {
                int64_t elems = total_of(counts);
                int64_t v = ni == 0   ? elems * esize
                            : ni == 1 ? elems * esize / VP
                                      : elems;
                /* thresholds around the value every rank knows */
                for (d = -1; d <= 1; d++)
                    check_threshold(coll, names[ni], ops[oi], v + d, counts);
                /* thresholds around each rank's own block: no effect */
                for (r = 0; r < VP; r++)
                    for (d = -1; d <= 1; d++)
                        if ((int64_t) counts[r] * esize + d >= 0)
                            check_threshold(coll, names[ni], ops[oi],
                                            (int64_t) counts[r] * esize + d,
                                            counts);
            }
        /* move elements between ranks: the total stays, so does the
         * decision, while rank 2's own count crosses 20 */
        for (d = 0; d <= 30; d += 3) {
            size_t c[VP];
            memcpy(c, counts, sizeof c);
            c[2] = (size_t) d;
            c[5] = 17 + 11 - (size_t) d;
            check_threshold(coll, "total_msg_size", "<=", 20 * esize, c);
            check_threshold(coll, "count", "<=", 45, c);
        }
        /* change the total by one element at a time across a threshold */
        for (d = -3; d <= 3; d++) {
            size_t c[VP];
            memcpy(c, counts, sizeof c);
            c[4] = (size_t) (1 + 3 + d);
            check_threshold(coll, "count", "<=", 48, c);
            check_threshold(coll, "total_msg_size", "<", 48 * esize, c);
        }
        /* random irregular counts */
        for (trial = 0; trial < 60; trial++) {
            size_t c[VP];
            int64_t tot;
            for (r = 0; r < VP; r++)
                c[r] = (size_t) (rnd(&seed, 4) ? rnd(&seed, 100) : 0);
            tot = total_of(c);
            check_threshold(coll, names[trial % 3], ops[trial % 2],
                            (trial % 3 == 0   ? tot * esize
                             : trial % 3 == 1 ? tot * esize / VP
                                              : tot) +
                                rnd(&seed, 3) - 1,
                            c);
        }
    }
}
END_TEST

/* allgatherv/reduce_scatter inputs: the sums, block regularity; the
 * in-place flag only for non-rooted collectives. */
START_TEST(test_selin_values)
{
    size_t irregular[VP] = {3, 0, 11, 5, 1, 17, 8};
    size_t regular[VP] = {6, 6, 6, 6, 6, 6, 6};
    size_t one_sender[VP] = {0, 0, 45, 0, 0, 0, 0};
    ch4coll_args_t a;
    ch4coll_selin_t in;
    int c;

    a = v_args(CH4COLL_ALLGATHERV, 3, irregular, NULL);
    in = comm_in(VP, 1);
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.have_call, 1);
    ck_assert_int_eq(in.coll, CH4COLL_ALLGATHERV);
    ck_assert_int_eq(in.count, 45);
    ck_assert_int_eq(in.total_msg_size, 45);
    ck_assert_int_eq(in.avg_msg_size, 45 / VP);
    ck_assert_int_eq(in.nonempty_blocks, VP - 1); /* one count is 0 */
    ck_assert_int_eq(in.block_regular, 0);
    ck_assert_int_eq(in.comm_size, VP); /* communicator fields untouched */

    /* one rank sends (an allgatherv from one rank): one non-empty block */
    a = v_args(CH4COLL_ALLGATHERV, 3, one_sender, NULL);
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.nonempty_blocks, 1);
    ck_assert_int_eq(in.avg_msg_size, 45 / VP);

    a = v_args(CH4COLL_REDUCE_SCATTER, 5, regular, NULL);
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.count, 42);
    ck_assert_int_eq(in.total_msg_size, 42 * 4);
    ck_assert_int_eq(in.avg_msg_size, 42 * 4 / VP);
    ck_assert_int_eq(in.nonempty_blocks, VP);
    ck_assert_int_eq(in.block_regular, 1);

    /* regular collectives: count per rank, total over ranks */
    memset(&a, 0, sizeof a);
    a.coll = CH4COLL_ALLREDUCE;
    a.size = VP;
    a.count = 10;
    a.elem = int_elem;
    a.inplace = 1;
    a.commutative = 1;
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.count, 10);
    ck_assert_int_eq(in.avg_msg_size, 40);
    ck_assert_int_eq(in.total_msg_size, 40 * VP);
    ck_assert_int_eq(in.nonempty_blocks, VP);
    ck_assert_int_eq(in.inplace, 1);
    ck_assert_int_eq(in.commutative, 1);

    /* in-place is an input only where MPI makes it collective: not for
     * rooted collectives, scan, exscan or barrier */
    for (c = 0; c < CH4COLL_NCOLL; c++) {
        a.coll = c;
        a.counts = a.displs = irregular;
        a.scounts = a.sdispls = irregular;
        a.elem = ch4coll_coll_is_reduction(c) ? int_elem : byte_elem;
        ch4coll_selin_from_args(&a, &in);
        if (c == CH4COLL_BCAST || c == CH4COLL_REDUCE || c == CH4COLL_GATHER ||
            c == CH4COLL_GATHERV || c == CH4COLL_SCATTER ||
            c == CH4COLL_SCATTERV || c == CH4COLL_SCAN || c == CH4COLL_EXSCAN ||
            c == CH4COLL_BARRIER)
            ck_assert_msg(in.inplace == 0, "%s: inplace", ch4coll_coll_name(c));
        else
            ck_assert_msg(in.inplace == 1, "%s: not inplace",
                          ch4coll_coll_name(c));
    }
    a.coll = CH4COLL_BARRIER;
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.count, 0);
    ck_assert_int_eq(in.total_msg_size, 0);
    ck_assert_int_eq(in.nonempty_blocks, 0);
}
END_TEST

/* gatherv/scatterv/alltoallv: no rank knows every count, so the size
 * inputs are 0 (documented in select.c); non-roots may have no arrays. */
START_TEST(test_selin_v_zero)
{
    static const int colls[] = {CH4COLL_GATHERV, CH4COLL_SCATTERV,
                                CH4COLL_ALLTOALLV};
    size_t counts[VP] = {3, 0, 11, 5, 1, 17, 8};
    ch4coll_tree_t t;
    int ci, r;

    for (ci = 0; ci < 3; ci++) {
        int coll = colls[ci];
        char json[256];
        const char *ours = coll == CH4COLL_ALLTOALLV ? "pairwise" : "linear";
        snprintf(json, sizeof json,
                 "{\"collective=%s\": {\"total_msg_size<=0\": "
                 "{\"count<=0\": {\"avg_msg_size<=0\": {\"algorithm=%s\": "
                 "{}}}}, \"algorithm=native\": {}}}",
                 ch4coll_coll_name(coll), ours);
        load_ok(&t, json);
        for (r = 0; r < VP; r++) {
            /* the root (0) of gatherv/scatterv knows the counts; others
             * pass NULL */
            int knows = coll == CH4COLL_ALLTOALLV || r == 0;
            ch4coll_args_t a =
                v_args(coll, r, knows ? counts : NULL, knows ? counts : NULL);
            ch4coll_selin_t in = comm_in(VP, 1);
            a.scounts = a.sdispls = knows ? counts : NULL;
            a.count = counts[r];
            ch4coll_selin_from_args(&a, &in);
            ck_assert_int_eq(in.count, 0);
            ck_assert_int_eq(in.avg_msg_size, 0);
            ck_assert_int_eq(in.total_msg_size, 0);
            ck_assert_int_eq(in.nonempty_blocks, 0);
            ck_assert_int_eq(in.block_regular, 0);
            ck_assert_ptr_eq(found_algo(&t, &in), algo(coll, ours));
        }
        ch4coll_tree_free(&t);
    }
}
END_TEST

/* =============================================================== main */

static Suite *inputs_suite(void)
{
    Suite *s = suite_create("select_inputs");
    TCase *tc;

    tc = tcase_create("inputs");
    tcase_add_test(tc, test_same_decision);
    tcase_add_test(tc, test_selin_values);
    tcase_add_test(tc, test_selin_v_zero);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, inputs_suite);
}
