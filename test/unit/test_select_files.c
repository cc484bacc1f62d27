/*
 * test_select_files.c - unit tests of the tuning files as the process uses
 * them (select/select.c with select/tree.c): the embedded default, the
 * corpus of good and broken files, the process tree from
 * MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE, and ch4coll_select's
 * choices for inner steps and nonblocking calls.
 *
 * What is covered, and why it matters:
 *
 *   default     The embedded default loads without warnings and picks a
 *               non-native algorithm for every collective for p = 1..64;
 *               inner steps (ch4coll_select_sub) never pick native or a
 *               composition; nonblocking calls search collective=i<coll>
 *               first, and the I<COLL> CVAR forces only them.
 *   corpus      Every test/unit/json/bad_*.json fails to load with the
 *               message substring listed in expected.txt; good_*.json load
 *               cleanly; the process tree falls back to the default on a bad
 *               MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE.
 *
 * Test files are found in $CH4COLL_TEST_DATA, else in the json/ directory
 * next to this source file (from __FILE__).
 *
 * Assumptions: unit.h (MPI singleton, because the argument structs carry
 * MPI handles; CK_NOFORK, each test frees what it creates).
 */
#include <check.h>
#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "select/config.h"
#include "select/select.h"
#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

START_TEST(test_default)
{
    ch4coll_tree_t t, pt;
    size_t ones[64];
    int c, p, i;

    load_ok(&t, ch4coll_default_json);
    ck_assert_int_eq(nwarn, 0);
    for (i = 0; i < 64; i++)
        ones[i] = (size_t) (1 + i % 3);
    for (p = 1; p <= 64; p++) {
        ch4coll_selin_t comm = comm_in(p, 1);
        ck_assert_int_eq(ch4coll_tree_prune(&t, &comm, &pt), CH4COLL_OK);
        for (c = 0; c < CH4COLL_NCOLL; c++) {
            ch4coll_args_t a;
            ch4coll_choice_t ch, chp;
            memset(&a, 0, sizeof a);
            a.coll = c;
            a.size = p;
            a.rank = p - 1;
            a.count = c == CH4COLL_BARRIER ? 0 : 5;
            a.counts = a.displs = a.scounts = a.sdispls = ones;
            a.elem = ch4coll_coll_is_reduction(c) ? int_elem : byte_elem;
            a.op = MPI_SUM;
            a.commutative = 1;
            a.op_builtin = 1;
            ck_assert_int_eq(ch4coll_select(&a, &t, &comm, &ch, NULL, NULL),
                             CH4COLL_OK);
            ck_assert_msg(!ch4coll_algo_is_native(ch.algo),
                          "default: %s on %d ranks is native",
                          ch4coll_coll_name(c), p);
            ck_assert_int_eq(ch.algo->coll, c);
            ck_assert_ptr_nonnull(ch.path);
            /* a non-commutative op too */
            a.commutative = 0;
            ck_assert_int_eq(ch4coll_select(&a, &pt, &comm, &chp, NULL, NULL),
                             CH4COLL_OK);
            ck_assert_msg(!ch4coll_algo_is_native(chp.algo),
                          "default (pruned, non-commutative): %s on %d ranks "
                          "is native",
                          ch4coll_coll_name(c), p);
        }
        ch4coll_tree_free(&pt);
    }
    ch4coll_tree_free(&t);

    /* the process tree is the default when no file is named */
    {
        const ch4coll_tree_t *pt2;
        const char *env =
            getenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE");
        if (env && *env)
            return;
        ch4coll_select_finalize();
        pt2 = ch4coll_select_tree();
        ck_assert_ptr_nonnull(pt2);
        load_ok(&t, ch4coll_default_json);
        ck_assert(pt2->checksum == t.checksum);
        ck_assert_int_eq(pt2->nn, t.nn);
        ch4coll_tree_free(&t);
        ch4coll_select_finalize();
    }
}
END_TEST

/* An inner step's choice: the process tree on a flat communicator of
 * inner.size ranks, never a composition, and the forced CVAR of the
 * collective is not consulted (it names the outer algorithm). */
START_TEST(test_select_sub)
{
    ch4coll_config_t saved = ch4coll_config;
    const ch4coll_algo_t *al = NULL;
    int64_t params[CH4COLL_MAX_PARAMS];
    ch4coll_args_t a;
    int c, p;

    ch4coll_select_finalize(); /* the embedded default */
    ch4coll_config.forced[CH4COLL_ALLREDUCE].algo =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "native");
    for (p = 1; p <= 40; p++)
        for (c = 0; c < CH4COLL_NCOLL; c++) {
            memset(&a, 0, sizeof a);
            a.coll = c;
            a.size = p;
            a.count = c == CH4COLL_BARRIER ? 0 : 1000;
            a.elem = ch4coll_coll_is_reduction(c) ? int_elem : byte_elem;
            a.op = MPI_SUM;
            a.commutative = 1;
            a.op_builtin = 1;
            if (c == CH4COLL_ALLGATHERV || c == CH4COLL_REDUCE_SCATTER ||
                c == CH4COLL_ALLTOALLV || c == CH4COLL_GATHERV ||
                c == CH4COLL_SCATTERV)
                continue; /* v-arrays: covered through the builders */
            ck_assert_int_eq(ch4coll_select_sub(&a, &al, params), 0);
            ck_assert_int_eq(al->coll, c);
            ck_assert(!ch4coll_algo_is_native(al));
            ck_assert_str_ne(al->name, "smp");
        }
    ch4coll_config = saved;
    ch4coll_select_finalize();
}
END_TEST

/* Nonblocking calls search the collective=i<coll> branches first and the
 * blocking ones when none matches; blocking calls never see i-branches.
 * MPIR_CVAR_CH4COLL_I<COLL>_ALGORITHM forces only the nonblocking form,
 * the blocking CVAR both. */
static const char *nb_choice(const ch4coll_tree_t *t, int nonblocking,
                             int64_t count)
{
    ch4coll_selin_t comm;
    ch4coll_choice_t ch;
    ch4coll_args_t a;

    memset(&comm, 0, sizeof comm);
    comm.comm_size = 6;
    comm.nodes = 6;
    comm.node_consecutive = 1;
    comm.hierarchy = CH4COLL_HIER_FLAT;
    memset(&a, 0, sizeof a);
    a.coll = CH4COLL_ALLREDUCE;
    a.size = 6;
    a.count = (size_t) count;
    a.elem = int_elem;
    a.op = MPI_SUM;
    a.commutative = 1;
    a.op_builtin = 1;
    a.nonblocking = nonblocking;
    ck_assert_int_eq(ch4coll_select(&a, t, &comm, &ch, NULL, NULL), 0);
    return ch.algo->name;
}

START_TEST(test_select_nonblocking)
{
    ch4coll_config_t saved = ch4coll_config;
    ch4coll_tree_t both, blocking_only;

    load_ok(&both, "{\"collective=iallreduce\": {\"count<=100\": "
                   "{\"algorithm=ring\": {}}},"
                   " \"collective=allreduce\": {\"algorithm=butterfly\": {}}}");
    load_ok(&blocking_only,
            "{\"collective=allreduce\": {\"algorithm=butterfly\": {}}}");
    ck_assert_str_eq(nb_choice(&both, 1, 10), "ring");
    ck_assert_str_eq(nb_choice(&both, 0, 10), "butterfly");
    /* the i-branch has no leaf for this count: the blocking branch */
    ck_assert_str_eq(nb_choice(&both, 1, 1000), "butterfly");
    ck_assert_str_eq(nb_choice(&blocking_only, 1, 10), "butterfly");
    ch4coll_config.forced_nb[CH4COLL_ALLREDUCE].algo =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "recursive_doubling");
    ck_assert_str_eq(nb_choice(&both, 1, 10), "recursive_doubling");
    ck_assert_str_eq(nb_choice(&both, 0, 10), "butterfly");
    ch4coll_config.forced_nb[CH4COLL_ALLREDUCE].algo = NULL;
    ch4coll_config.forced[CH4COLL_ALLREDUCE].algo =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "reduce_bcast");
    ck_assert_str_eq(nb_choice(&both, 1, 10), "reduce_bcast");
    ck_assert_str_eq(nb_choice(&both, 0, 10), "reduce_bcast");
    ch4coll_config = saved;
    ch4coll_tree_free(&both);
    ch4coll_tree_free(&blocking_only);
}
END_TEST

/* ============================================================= corpus */

START_TEST(test_corpus_bad)
{
    char path[4400], line[1024], err[ERRLEN];
    const char *dir = data_dir();
    int nbad = 0, listed = 0;
    struct dirent *de;
    FILE *f;
    DIR *d;

    snprintf(path, sizeof path, "%s/expected.txt", dir);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s (set CH4COLL_TEST_DATA)", path);
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t'), *nl;
        ch4coll_tree_t t;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_msg(tab != NULL, "expected.txt: no tab in '%s'", line);
        *tab = '\0';
        if ((nl = strchr(tab + 1, '\n')))
            *nl = '\0';
        ck_assert_msg(tab[1] != '\0', "expected.txt: empty substring for %s",
                      line);
        snprintf(path, sizeof path, "%s/%s", dir, line);
        nwarn = 0;
        ck_assert_msg(ch4coll_tree_load_file(&t, path, warn_capture, err,
                                             sizeof err) != CH4COLL_OK,
                      "%s loaded", line);
        ck_assert_msg(strstr(err, tab + 1) != NULL,
                      "%s: message '%s' lacks '%s'", line, err, tab + 1);
        ck_assert_msg(strstr(err, line) != NULL,
                      "%s: message '%s' does not name the file", line, err);
        listed++;
    }
    fclose(f);
    ck_assert_int_ge(listed, 12);

    /* every bad_*.json is listed */
    d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        char needle[300];
        FILE *g;
        int seen = 0;
        if (strncmp(de->d_name, "bad_", 4) != 0 || n < 5 ||
            strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        nbad++;
        snprintf(needle, sizeof needle, "%s\t", de->d_name);
        snprintf(path, sizeof path, "%s/expected.txt", dir);
        g = fopen(path, "r");
        ck_assert_ptr_nonnull(g);
        while (fgets(line, sizeof line, g))
            seen |= strncmp(line, needle, strlen(needle)) == 0;
        fclose(g);
        ck_assert_msg(seen, "%s is not listed in expected.txt", de->d_name);
    }
    closedir(d);
    ck_assert_int_eq(nbad, listed);
    printf("corpus: %d bad files fail as expected\n", listed);
}
END_TEST

START_TEST(test_corpus_good)
{
    char path[4400], err[ERRLEN];
    const char *dir = data_dir();
    struct dirent *de;
    int ngood = 0;
    DIR *d = opendir(dir);

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        ch4coll_tree_t t;
        if (strncmp(de->d_name, "good_", 5) != 0 || n < 5 ||
            strcmp(de->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        nwarn = 0;
        ck_assert_msg(ch4coll_tree_load_file(&t, path, warn_capture, err,
                                             sizeof err) == CH4COLL_OK,
                      "%s", err);
        ck_assert_msg(nwarn == 0, "%s: %s", de->d_name, warns[0]);
        ch4coll_tree_free(&t);
        ngood++;
    }
    closedir(d);
    ck_assert_int_ge(ngood, 3);
}
END_TEST

/* good_ours.json: our own keys decide as written. */
START_TEST(test_corpus_good_decisions)
{
    char path[4400], err[ERRLEN];
    ch4coll_tree_t t;
    ch4coll_selin_t in;

    snprintf(path, sizeof path, "%s/good_ours.json", data_dir());
    ck_assert_msg(ch4coll_tree_load_file(&t, path, NULL, err, sizeof err) ==
                      CH4COLL_OK,
                  "%s", err);
    /* 96 ranks: delta_expo_max 1 */
    in = call_in(CH4COLL_ALLREDUCE, 96, 1 << 16);
    in.nodes = 4;
    ck_assert_pstr_eq(found(&t, &in), "collective=allreduce > comm_nodes<=4 > "
                                      "delta_expo_max<=1 > "
                                      "algorithm=recursive_doubling");
    /* 100 ranks: delta_expo_max 3 */
    in.comm_size = 100;
    ck_assert_pstr_eq(found(&t, &in), "collective=allreduce > comm_nodes<=4 > "
                                      "comm_size=nonpow2 > algorithm=native");
    in.nodes = 5;
    ck_assert_pstr_eq(found(&t, &in),
                      "collective=allreduce > algorithm=recursive_doubling");
    ch4coll_tree_free(&t);
}
END_TEST

/* The process tree: a bad file is reported and replaced by the default; a
 * good one is used. */
START_TEST(test_select_init_file)
{
    char path[4400], err[ERRLEN];
    const char *old = getenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE");
    char saved[4096] = "";
    ch4coll_tree_t def, good;
    int had = old != NULL;

    if (had)
        snprintf(saved, sizeof saved, "%s", old);
    load_ok(&def, ch4coll_default_json);

    snprintf(path, sizeof path, "%s/bad_unknown_key.json", data_dir());
    setenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE", path, 1);
    ck_assert_int_eq(ch4coll_select_init(), CH4COLL_ERR_ARG);
    ck_assert_ptr_nonnull(ch4coll_select_tree());
    ck_assert(ch4coll_select_tree()->checksum == def.checksum);

    snprintf(path, sizeof path, "%s/good_ours.json", data_dir());
    ck_assert_int_eq(ch4coll_tree_load_file(&good, path, NULL, err, sizeof err),
                     CH4COLL_OK);
    setenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE", path, 1);
    ck_assert_int_eq(ch4coll_select_init(), CH4COLL_OK);
    ck_assert(ch4coll_select_tree()->checksum == good.checksum);
    ck_assert_str_eq(ch4coll_select_tree()->name, path);

    ch4coll_select_use_default();
    ck_assert(ch4coll_select_tree()->checksum == def.checksum);

    ch4coll_select_finalize();
    if (had)
        setenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE", saved, 1);
    else
        unsetenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE");
    ch4coll_tree_free(&def);
    ch4coll_tree_free(&good);
}
END_TEST

/* =============================================================== main */

static Suite *files_suite(void)
{
    Suite *s = suite_create("select_files");
    TCase *tc;

    tc = tcase_create("files");
    tcase_add_test(tc, test_default);
    tcase_add_test(tc, test_select_sub);
    tcase_add_test(tc, test_select_nonblocking);
    tcase_add_test(tc, test_corpus_bad);
    tcase_add_test(tc, test_corpus_good);
    tcase_add_test(tc, test_corpus_good_decisions);
    tcase_add_test(tc, test_select_init_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, files_suite);
}
