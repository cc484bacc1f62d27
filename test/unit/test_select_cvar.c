/*
 * test_select_cvar.c - unit tests of the CVAR parser (select/cvar.c,
 * select/config.h).
 *
 * What is covered, and why it matters:
 *
 *   CVARs      Strict integer parsing, algorithm strings with parameters and
 *              their error messages, and ch4coll_config_load() on bad and
 *              good environment values (the configuration is restored).
 *              Leading white space is tested on its own (strtoll() skips it,
 *              so a parser that trusts strtoll() fails that test alone).
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK); the tests set and unset
 * MPIR_CVAR_CH4COLL_* variables and restore ch4coll_config.
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "algos/algo.h"
#include "select/config.h"
#include "unit.h"
#include "util/util.h"

START_TEST(test_parse_int64)
{
    int64_t v = 0;

    ck_assert_int_eq(ch4coll_parse_int64("12", 0, 100, &v), CH4COLL_OK);
    ck_assert_int_eq(v, 12);
    ck_assert_int_eq(ch4coll_parse_int64("-3", -10, 10, &v), CH4COLL_OK);
    ck_assert_int_eq(v, -3);
    ck_assert_int_eq(ch4coll_parse_int64("100", 0, 100, &v), CH4COLL_OK);
    ck_assert_int_eq(v, 100);
    ck_assert_int_eq(
        ch4coll_parse_int64("9223372036854775807", INT64_MIN, INT64_MAX, &v),
        CH4COLL_OK);
    ck_assert(v == INT64_MAX);
    ck_assert_int_eq(ch4coll_parse_int64("12x", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("5 ", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64(NULL, 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(
        ch4coll_parse_int64("99999999999999999999", INT64_MIN, INT64_MAX, &v),
        CH4COLL_ERR_ARG);
    ck_assert_int_eq(
        ch4coll_parse_int64("-99999999999999999999", INT64_MIN, INT64_MAX, &v),
        CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("101", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("-11", -10, 10, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("0", 1, 10, &v), CH4COLL_ERR_ARG);
}
END_TEST

/* Kept apart: strtoll() skips leading white space, a strict parser must not. */
START_TEST(test_parse_int64_leading_space)
{
    int64_t v = 0;

    ck_assert_int_eq(ch4coll_parse_int64(" 5", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("\t5", 0, 100, &v), CH4COLL_ERR_ARG);
}
END_TEST

START_TEST(test_parse_algorithm)
{
    ch4coll_forced_t f;
    char err[512];

    memset(&f, 0xff, sizeof f);
    ck_assert_int_eq(
        ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "auto", &f, err, sizeof err),
        CH4COLL_OK);
    ck_assert_ptr_null(f.algo);

    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE,
                                             "recursive_doubling", &f, err,
                                             sizeof err),
                     CH4COLL_OK);
    ck_assert_ptr_eq(
        f.algo, ch4coll_algo_find(CH4COLL_ALLREDUCE, "recursive_doubling"));
    ck_assert_ptr_eq(f.algo->build, ch4coll_allreduce_recursive_doubling);

    err[0] = '\0';
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "nosuch", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);
    ck_assert_msg(strstr(err, "nosuch") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "recursive_doubling") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "native") != NULL, "%s", err);

    err[0] = '\0';
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE,
                                             "recursive_doubling:foo=1", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);
    ck_assert_msg(strstr(err, "foo") != NULL, "%s", err);

    /* an algorithm of another collective is not valid here */
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "bruck", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);

    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "native", &f,
                                             err, sizeof err),
                     CH4COLL_OK);
    ck_assert_ptr_nonnull(f.algo);
    ck_assert(ch4coll_algo_is_native(f.algo));
    ck_assert_int_eq(f.algo->coll, CH4COLL_ALLREDUCE);
}
END_TEST

#define YIELD_VAR "MPIR_CVAR_CH4COLL_YIELD"
#define AR_VAR    "MPIR_CVAR_CH4COLL_ALLREDUCE_ALGORITHM"

START_TEST(test_config_load)
{
    ch4coll_config_t saved = ch4coll_config;
    int saved_level = ch4coll_log_level;
    const ch4coll_algo_t *native =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "native");

    ck_assert_ptr_null(getenv(YIELD_VAR));
    ck_assert_ptr_null(getenv(AR_VAR));
    ch4coll_config.yield = CH4COLL_YIELD_AUTO;
    memset(&ch4coll_config.forced[CH4COLL_ALLREDUCE], 0,
           sizeof(ch4coll_forced_t));

    setenv(YIELD_VAR, "maybe", 1);
    ck_assert_int_gt(ch4coll_config_load(), 0);
    ck_assert_int_gt(ch4coll_config.nerrors, 0);
    ck_assert_int_eq(ch4coll_config.yield, CH4COLL_YIELD_AUTO);
    unsetenv(YIELD_VAR);

    setenv(AR_VAR, "native", 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_ptr_nonnull(native);
    ck_assert_ptr_eq(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo, native);

    setenv(AR_VAR, "nosuch", 1); /* a bad value counts and falls back to auto */
    ck_assert_int_eq(ch4coll_config_load(), 1);
    ck_assert_ptr_null(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo);
    unsetenv(AR_VAR);

    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_ptr_null(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo);
    ch4coll_config = saved;
    ch4coll_log_level = saved_level;
}
END_TEST

/* A JSON file of text in the temporary directory: its path. */
static void write_tmp(char *path, const char *text)
{
    int fd;
    FILE *f;

    strcpy(path, "/tmp/ch4coll-machine-XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* MPIR_CVAR_CH4COLL_MACHINE: a description's model becomes the model of
 * the automatic parameters; a bad or missing file is an error and leaves
 * the default; and circulant's automatic block count follows it. */
START_TEST(test_config_machine)
{
    ch4coll_config_t saved = ch4coll_config;
    char good[64], bad[64];
    const char *var = "MPIR_CVAR_CH4COLL_MACHINE";
    const ch4coll_algo_t *bc = ch4coll_algo_find(CH4COLL_BCAST, "circulant");
    ch4coll_model_t fast = {1e-7, 1e-10, 0, 1e-7, 1e-10, 0, 0};
    ch4coll_args_t a = {.coll = CH4COLL_BCAST, .size = 1000, .count = 1 << 20};
    int64_t params[CH4COLL_MAX_PARAMS] = {0};
    double t_default, t_own;

    write_tmp(good, "{\"name\": \"t\", \"model\": {\"alpha\": 1e-7, "
                    "\"beta\": 1e-10, \"gamma\": 0}}");
    write_tmp(bad, "{\"name\": \"t\", \"model\": {\"alpha\": 1e-7}}");
    setenv(var, good, 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert(ch4coll_config.model.alpha == 1e-7);
    ck_assert(ch4coll_config.model.beta_node == 1e-10); /* beta's default */
    setenv(var, bad, 1);
    ck_assert_int_eq(ch4coll_config_load(), 1);
    ck_assert(ch4coll_config.model.alpha == ch4coll_model_default.alpha);
    setenv(var, "/nonexistent/machine.json", 1);
    ck_assert_int_eq(ch4coll_config_load(), 1);
    ck_assert(ch4coll_config.model.beta == ch4coll_model_default.beta);
    unsetenv(var);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    unlink(good);
    unlink(bad);
    ch4coll_config = saved;

    /* 1 MiB at p = 1000 priced on a 20x lower alpha: the n chosen on that
     * model (more blocks) is faster there than the default model's n */
    ck_assert_ptr_nonnull(bc);
    a.elem.size = a.elem.extent = 1;
    t_default = bc->cost(&a, params, &fast);
    a.model = &fast;
    t_own = bc->cost(&a, params, &fast);
    ck_assert_msg(t_own < 0.95 * t_default, "own model %g s, default %g s",
                  t_own, t_default);
}
END_TEST

/* The virtual placement variables: values, and bad values keep defaults. */
START_TEST(test_config_virtual)
{
    ch4coll_config_t saved = ch4coll_config;

    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "3", 1);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "cyclic", 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_int_eq(ch4coll_config.virtual_ppn, 3);
    ck_assert_int_eq(ch4coll_config.virtual_map, CH4COLL_MAP_CYCLIC);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "-1", 1);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "round", 1);
    ch4coll_config.virtual_ppn = 0;
    ch4coll_config.virtual_map = CH4COLL_MAP_BLOCK;
    ck_assert_int_eq(ch4coll_config_load(), 2);
    ck_assert_int_eq(ch4coll_config.virtual_ppn, 0);
    ck_assert_int_eq(ch4coll_config.virtual_map, CH4COLL_MAP_BLOCK);
    unsetenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN");
    unsetenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP");
    ch4coll_config = saved;
}
END_TEST

/* =============================================================== main */

static Suite *cvar_suite(void)
{
    Suite *s = suite_create("cvar");
    TCase *tc;

    tc = tcase_create("cvar");
    tcase_add_test(tc, test_parse_int64);
    tcase_add_test(tc, test_parse_int64_leading_space);
    tcase_add_test(tc, test_parse_algorithm);
    tcase_add_test(tc, test_config_load);
    tcase_add_test(tc, test_config_virtual);
    tcase_add_test(tc, test_config_machine);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, cvar_suite);
}
