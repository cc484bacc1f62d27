/*
 * test_select_mpich.c - MPICH 4.0.2's own tuning files through ch4coll's
 * JSON loader and search (select/tree.c, select/select.c).
 *
 * What is covered, and why it matters:
 *
 *   MPICH       With CH4COLL_MPICH_SRC pointing at an unpacked MPICH 4.0.2
 *               tree, its mpir and ch4 tuning files load and give the
 *               decisions MPICH would (mapped to ch4coll names), and pruning
 *               changes no answer.  Without the source the program says
 *               SKIP and exits 77 (automake's code); maint/mpich-source
 *               prints the path.
 *
 * Assumptions: unit.h (MPI singleton, because the argument structs carry
 * MPI handles; CK_NOFORK, each test frees what it creates).
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "select/select.h"
#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

/* The unpacked MPICH source, or NULL.  main() runs the "mpich" suite
 * only when it is there, and says SKIP otherwise. */
static const char *mpich_src(void)
{
    const char *s = getenv("CH4COLL_MPICH_SRC");

    return s && *s ? s : NULL;
}

static void mpich_load(ch4coll_tree_t *t, const char *file)
{
    char path[4096], err[ERRLEN];
    const char *src = mpich_src();
    int rc;

    ck_assert_msg(src != NULL, "CH4COLL_MPICH_SRC is not set");
    snprintf(path, sizeof path, "%s/maint/tuning/coll/%s", src, file);
    nwarn = 0;
    rc = ch4coll_tree_load_file(t, path, warn_capture, err, sizeof err);
    ck_assert_msg(rc == CH4COLL_OK, "%s", err);
    printf("MPICH %s: %d nodes, %d warnings\n", file, t->nn, nwarn);
}

/* The decision for a call of `count` elements of elem on p ranks (1 node
 * when p <= 8, else p/4 nodes), printed. */
static ch4coll_choice_t mpich_choose(const ch4coll_tree_t *t, const char *file,
                                     int coll, int p, size_t count,
                                     const ch4coll_elem_t *elem, int commut,
                                     int inter, int threads)
{
    ch4coll_selin_t comm = comm_in(p, p <= 8 ? 1 : p / 4);
    size_t counts[128];
    ch4coll_args_t a;
    ch4coll_choice_t ch;
    int i;

    comm.inter = inter;
    comm.multi_threaded = threads;
    memset(&a, 0, sizeof a);
    for (i = 0; i < p && i < 128; i++)
        counts[i] = count;
    a.coll = coll;
    a.size = p;
    a.count = count;
    a.counts = a.displs = a.scounts = a.sdispls = counts;
    a.elem = *elem;
    a.op = MPI_SUM;
    a.commutative = commut;
    a.op_builtin = 1;
    ck_assert_int_eq(ch4coll_select(&a, t, &comm, &ch, NULL, NULL), CH4COLL_OK);
    printf("  %-18s %-10s p=%-3d %8zu x %zu B %s%s%s -> %s (%s)\n", file,
           ch4coll_coll_name(coll), p, count, elem->size,
           commut ? "commutative" : "non-commutative", inter ? " inter" : "",
           threads ? " threads" : "", ch.algo->name,
           ch.path ? ch.path : ch.why);
    return ch;
}

START_TEST(test_mpich_mpir)
{
    ch4coll_tree_t t;
    ch4coll_choice_t ch;
    const char *f = "mpir/generic.json";

    mpich_load(&t, f);
    /* allreduce, 8 bytes, 7 ranks: avg_msg_size<=8 -> recursive doubling */
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 7, 2, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, "recursive_doubling");
    ck_assert_ptr_nonnull(ch.path);
    ck_assert_has(ch.path, "avg_msg_size<=8");
    /* 16 bytes, built-in op, count 4 < pof2(7) = 4? no: reduce_scatter_
     * allgather (butterfly when registered) */
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 7, 4, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, mapped(CH4COLL_ALLREDUCE, "butterfly"));
    /* count 3 < 4: count<pow2 -> recursive doubling */
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 7, 3, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, "recursive_doubling");
    /* large */
    ch =
        mpich_choose(&t, f, CH4COLL_ALLREDUCE, 64, 1 << 18, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, mapped(CH4COLL_ALLREDUCE, "butterfly"));
    /* intercommunicator: MPIR_Allreduce_inter_* -> native */
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 8, 2, &int_elem, 1, 1, 0);
    ck_assert(ch4coll_algo_is_native(ch.algo));
    ck_assert_ptr_nonnull(ch.path);
    /* bcast, small, 8 ranks (pow2) -> binomial */
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 8, 64, &byte_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, "binomial");
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 5, 64, &byte_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, "binomial");
    /* bcast, 1 MiB, 16 ranks -> scatter_ring_allgather (native until
     * registered) */
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 16, 1 << 20, &byte_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name,
                     mapped(CH4COLL_BCAST, "scatter_ring_allgather"));
    /* reduce, commutative, large -> reduce_scatter_gather = butterfly,
     * native until registered */
    ch = mpich_choose(&t, f, CH4COLL_REDUCE, 8, 1 << 18, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, mapped(CH4COLL_REDUCE, "butterfly"));
    /* reduce, small -> binomial */
    ch = mpich_choose(&t, f, CH4COLL_REDUCE, 8, 16, &int_elem, 1, 0, 0);
    ck_assert_str_eq(ch.algo->name, "binomial");
    /* barrier -> dissemination (MPIR_Barrier_intra_dissemination) or smp */
    ch = mpich_choose(&t, f, CH4COLL_BARRIER, 16, 0, &byte_elem, 1, 0, 0);
    ck_assert_msg(strcmp(ch.algo->name, "dissemination") == 0 ||
                      strcmp(ch.algo->name, mapped(CH4COLL_BARRIER, "smp")) ==
                          0,
                  "barrier: %s", ch.algo->name);
    /* alltoall, every leaf maps to a registered algorithm or native */
    ch =
        mpich_choose(&t, f, CH4COLL_ALLTOALL, 16, 1 << 16, &byte_elem, 1, 0, 0);
    ck_assert_ptr_nonnull(ch.algo);
    ch = mpich_choose(&t, f, CH4COLL_ALLGATHER, 16, 64, &byte_elem, 1, 0, 0);
    ck_assert_ptr_nonnull(ch.algo);
    ch4coll_tree_free(&t);
}
END_TEST

START_TEST(test_mpich_ch4)
{
    ch4coll_tree_t t;
    ch4coll_choice_t ch;
    const char *f = "ch4/generic.json";
    int c;

    mpich_load(&t, f);
    /* compositions: every decision is native, from the tree */
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 8, 64, &byte_elem, 1, 0, 0);
    ck_assert(ch4coll_algo_is_native(ch.algo));
    ck_assert_ptr_nonnull(ch.path);
    ck_assert_has(ch.path, "composition=");
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 7, 2, &int_elem, 1, 0, 0);
    ck_assert(ch4coll_algo_is_native(ch.algo));
    for (c = 0; c < CH4COLL_NCOLL; c++) {
        ch4coll_selin_t in = call_in(c, 16, 1024);
        const ch4coll_algo_t *al = found_algo(&t, &in);
        ck_assert(al == NULL || ch4coll_algo_is_native(al));
    }
    ch4coll_tree_free(&t);

    f = "ch4/posix_generic.json";
    mpich_load(&t, f);
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 4, 64, &byte_elem, 1, 0, 0);
    ck_assert(ch4coll_algo_is_native(ch.algo));
    ck_assert_ptr_nonnull(ch.path);
    ck_assert_has(ch.path, "MPIDI_POSIX_mpi_bcast_release_gather");
    /* multi-threaded: no leaf */
    ch = mpich_choose(&t, f, CH4COLL_BCAST, 4, 64, &byte_elem, 1, 0, 1);
    ck_assert(ch4coll_algo_is_native(ch.algo));
    ck_assert_ptr_null(ch.path);
    /* non-commutative allreduce: no leaf */
    ch = mpich_choose(&t, f, CH4COLL_ALLREDUCE, 4, 2, &int_elem, 0, 0, 0);
    ck_assert_ptr_null(ch.path);
    ch4coll_tree_free(&t);
}
END_TEST

/* Pruning gives the same answers on MPICH's files. */
START_TEST(test_mpich_prune)
{
    static const char *const files[] = {"mpir/generic.json", "ch4/generic.json",
                                        "ch4/posix_generic.json"};
    ch4coll_tree_t t;
    int i;

    for (i = 0; i < 3; i++) {
        mpich_load(&t, files[i]);
        prune_equivalence(&t, (uint64_t) i + 100);
        ch4coll_tree_free(&t);
    }
}
END_TEST

/* =============================================================== main */

/* MPICH 4.0.2's tuning files. */
static Suite *mpich_suite(void)
{
    Suite *s = suite_create("mpich");
    TCase *tc = tcase_create("mpich");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_mpich_mpir);
    tcase_add_test(tc, test_mpich_ch4);
    tcase_add_test(tc, test_mpich_prune);
    suite_add_tcase(s, tc);
    return s;
}

/* MPICH's tuning files, or SKIP (77, automake's code) without an MPICH
 * source. */
int main(int argc, char **argv)
{
    if (!mpich_src()) {
        printf("SKIP: CH4COLL_MPICH_SRC is not set (maint/mpich-source "
               "prints it): MPICH's tuning files are not tested\n");
        return 77;
    }
    return unit_main(argc, argv, mpich_suite);
}
