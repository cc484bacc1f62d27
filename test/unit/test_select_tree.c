/*
 * test_select_tree.c - unit tests of the JSON tree loader and its search
 * (select/tree.c): ch4coll_tree_load, ch4coll_tree_load_file and
 * ch4coll_tree_search.
 *
 * What is covered, and why it matters:
 *
 *   loading     Document-order first match; fall-through to a later
 *               sibling when a leaf is refused by accept() or a subtree
 *               yields nothing; leaf outside collective=; unknown
 *               algorithms and parameters with the JSON path and the valid
 *               choices; MPICH algorithm and composition names; syntax
 *               errors with file:line:col; empty, missing and trailing-text
 *               inputs; the three warnings (unreachable, empty, nested
 *               collective).
 *
 * Assumptions: unit.h (MPI singleton, because the argument structs carry
 * MPI handles; CK_NOFORK, each test frees what it creates).  Tests marked "BUG"
 * describe a bug that was found by asserting the documented behaviour.
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "algos/algo.h"
#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

/* Children are tried in document order; the first match wins, not the
 * tightest. */
START_TEST(test_tree_first_match)
{
    ch4coll_tree_t t;
    ch4coll_selin_t in;

    load_ok(&t, J("{'collective=allreduce': {"
                  " 'comm_size<=16': {'algorithm=native': {}},"
                  " 'comm_size<=8': {'algorithm=recursive_doubling': {}}}}"));
    ck_assert_int_eq(nwarn, 0);
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    ck_assert_pstr_eq(
        found(&t, &in),
        "collective=allreduce > comm_size<=16 > algorithm=native");
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_ALLREDUCE, "native"));
    in = call_in(CH4COLL_ALLREDUCE, 20, 8);
    ck_assert_ptr_null(found(&t, &in));
    in = call_in(CH4COLL_BCAST, 4, 8);
    ck_assert_ptr_null(found(&t, &in));
    ch4coll_tree_free(&t);

    load_ok(&t, J("{'collective=allreduce': {"
                  " 'comm_size<=8': {'algorithm=recursive_doubling': {}},"
                  " 'comm_size<=16': {'algorithm=native': {}}},"
                  " 'collective=bcast': {'algorithm=binomial': {}}}"));
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    ck_assert_ptr_eq(found_algo(&t, &in),
                     algo(CH4COLL_ALLREDUCE, "recursive_doubling"));
    in = call_in(CH4COLL_ALLREDUCE, 8, 8);
    ck_assert_ptr_eq(found_algo(&t, &in),
                     algo(CH4COLL_ALLREDUCE, "recursive_doubling"));
    in = call_in(CH4COLL_ALLREDUCE, 9, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_ALLREDUCE, "native"));
    in = call_in(CH4COLL_BCAST, 9, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_BCAST, "binomial"));
    ck_assert_pstr_eq(found(&t, &in), "collective=bcast > algorithm=binomial");
    ch4coll_tree_free(&t);

    /* the first of two leaves side by side */
    load_ok(&t, J("{'collective=bcast': {'algorithm=native': {},"
                  " 'algorithm=binomial': {}}}"));
    in = call_in(CH4COLL_BCAST, 9, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_BCAST, "native"));
    ch4coll_tree_free(&t);
}
END_TEST

typedef struct {
    const ch4coll_tree_t *t;
    const char *reject; /* path refused, or NULL */
    int reject_all;
    int calls;
} refuse_t;

static int accept_refuse(const ch4coll_tnode_t *leaf, void *ctx)
{
    refuse_t *r = ctx;

    r->calls++;
    if (r->reject_all)
        return 0;
    return !r->reject || strcmp(ch4coll_tree_path(r->t, leaf), r->reject) != 0;
}

static char trace_buf[8192];

static void trace_collect(const char *line, void *ctx)
{
    (void) ctx;
    snprintf(trace_buf + strlen(trace_buf),
             sizeof trace_buf - strlen(trace_buf), "%s\n", line);
}

/* A refused leaf or a subtree without an applicable leaf falls through to
 * the next matching sibling; nothing left gives NULL. */
START_TEST(test_tree_fallthrough)
{
    static const char *const first =
        "collective=allreduce > comm_size<=8 > algorithm=recursive_doubling";
    static const char *const second =
        "collective=allreduce > comm_size<=64 > is_commutative=yes > "
        "algorithm=native";
    ch4coll_tree_t t;
    ch4coll_selin_t in;
    refuse_t r = {0};
    const ch4coll_tnode_t *l;

    load_ok(&t, J("{'collective=allreduce': {"
                  " 'comm_size<=8': {'algorithm=recursive_doubling': {}},"
                  " 'comm_size<=4': {'is_commutative=no': "
                  "                    {'algorithm=recursive_doubling': {}}},"
                  " 'comm_size<=64': {'is_commutative=yes': "
                  "                    {'algorithm=native': {}}}}}"));
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    r.t = &t;
    l = ch4coll_tree_search(&t, &in, accept_refuse, &r, NULL);
    ck_assert_ptr_nonnull(l);
    ck_assert_str_eq(ch4coll_tree_path(&t, l), first);
    ck_assert_int_eq(r.calls, 1);

    /* the first leaf refused: the commutative subtree of a later sibling */
    r.reject = first;
    r.calls = 0;
    trace_buf[0] = '\0';
    l = ch4coll_tree_search(&t, &in, accept_refuse, &r, trace_collect);
    ck_assert_ptr_nonnull(l);
    ck_assert_str_eq(ch4coll_tree_path(&t, l), second);
    ck_assert_int_eq(r.calls, 2);
    ck_assert_has(trace_buf, "skipped");
    ck_assert_has(trace_buf, first);
    ck_assert_has(trace_buf, "selected");
    ck_assert_has(trace_buf, second);

    /* non-commutative: comm_size<=4 > is_commutative=no wins after the
     * refusal */
    in.commutative = 0;
    r.calls = 0;
    l = ch4coll_tree_search(&t, &in, accept_refuse, &r, NULL);
    ck_assert_ptr_nonnull(l);
    ck_assert_str_eq(ch4coll_tree_path(&t, l),
                     "collective=allreduce > comm_size<=4 > is_commutative=no "
                     "> algorithm=recursive_doubling");

    /* p = 6, non-commutative, first refused: comm_size<=4 does not match,
     * comm_size<=64 matches but yields nothing: NULL */
    in = call_in(CH4COLL_ALLREDUCE, 6, 8);
    in.commutative = 0;
    l = ch4coll_tree_search(&t, &in, accept_refuse, &r, NULL);
    ck_assert_ptr_null(l);

    /* everything refused: NULL, after asking about every matching leaf */
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    r.reject_all = 1;
    r.calls = 0;
    ck_assert_ptr_null(ch4coll_tree_search(&t, &in, accept_refuse, &r, NULL));
    ck_assert_int_eq(r.calls, 2);
    ch4coll_tree_free(&t);

    /* a matched subtree with no applicable leaf falls through structurally */
    load_ok(&t, J("{'collective=reduce': {"
                  " 'comm_size=any': {'is_commutative=yes': "
                  "                    {'algorithm=binomial': {}}},"
                  " 'algorithm=native': {}}}"));
    in = call_in(CH4COLL_REDUCE, 5, 8);
    in.commutative = 0;
    ck_assert_pstr_eq(found(&t, &in), "collective=reduce > algorithm=native");
    in.commutative = 1;
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_REDUCE, "binomial"));
    ch4coll_tree_free(&t);

    /* an empty tree and a NULL tree answer NULL */
    load_ok(&t, "{}");
    ck_assert_ptr_null(found(&t, &in));
    ch4coll_tree_free(&t);
    ck_assert_ptr_null(ch4coll_tree_search(NULL, &in, accept_all, NULL, NULL));
}
END_TEST

START_TEST(test_tree_leaf_outside_collective)
{
    const char *e;

    e = load_err(J("{'comm_size<=4': {'algorithm=native': {}}}"));
    ck_assert_has(e, "test");
    ck_assert_has(e, "comm_size<=4 > algorithm=native");
    ck_assert_has(e, "not under a collective= key");
    e = load_err(J("{'algorithm=binomial': {}}"));
    ck_assert_has(e, "not under a collective= key");
    e = load_err(J("{'collective=bcast': {'algorithm=binomial': {}},"
                   " 'comm_type=intra': {'composition=MPIDI_x': {}}}"));
    ck_assert_has(e, "comm_type=intra > composition=MPIDI_x");
    ck_assert_has(e, "not under a collective= key");
    /* "collective=any" does not name a collective either */
    e = load_err(J("{'collective=any': {'algorithm=native': {}}}"));
    ck_assert_has(e, "not under a collective= key");
}
END_TEST

START_TEST(test_tree_unknown_algorithm)
{
    const char *e;
    int i;

    e = load_err(J("{'collective=allreduce': {'comm_size<=8': {}, "
                   "'algorithm=nosuch': {}}}"));
    ck_assert_has(e, "test");
    ck_assert_has(e, "collective=allreduce > algorithm=nosuch");
    ck_assert_has(e, "unknown algorithm 'nosuch'");
    ck_assert_has(e, "recursive_doubling");
    ck_assert_has(e, "native");
    /* the list is the registry's, for every collective */
    for (i = 0; i < ch4coll_nalgos; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"collective=%s\": {\"algorithm=nosuch\": {}}}",
                 ch4coll_coll_name(ch4coll_algos[i].coll));
        e = load_err(json);
        ck_assert_has(e, ch4coll_algos[i].name);
    }
    /* an algorithm of another collective is unknown here */
    e = load_err(
        J("{'collective=bcast': {'algorithm=recursive_doubling': {}}}"));
    ck_assert_has(e, "unknown algorithm 'recursive_doubling'");
    ck_assert_has(e, "binomial");
    /* names are case-sensitive */
    e = load_err(J("{'collective=bcast': {'algorithm=Binomial': {}}}"));
    ck_assert_has(e, "unknown algorithm");
    /* a collective ch4coll does not run: only native and MPICH names */
    e = load_err(J("{'collective=ineighbor_allgather': {'algorithm=ring': "
                   "{}}}"));
    ck_assert_has(e, "collective=ineighbor_allgather > algorithm=ring");
    ck_assert_has(e, "no algorithm 'ring'");
    /* a nonblocking collective has its blocking form's algorithms */
    e = load_err(J("{'collective=iallreduce': {'algorithm=rign': {}}}"));
    ck_assert_has(e, "unknown algorithm 'rign'");
}
END_TEST

START_TEST(test_tree_unknown_parameter)
{
    const char *e;

    e = load_err(J("{'collective=allreduce': {'comm_size<=8': {"
                   " 'algorithm=recursive_doubling': {'chunk': 65536}}}}"));
    ck_assert_has(e, "collective=allreduce > comm_size<=8 > "
                     "algorithm=recursive_doubling");
    ck_assert_has(e, "unknown parameter 'chunk'");
    ck_assert_has(e, "(none)");
    e = load_err(J("{'collective=bcast': {'algorithm=native': {'k': 2}}}"));
    ck_assert_has(e, "unknown parameter 'k'");
    /* the value of a leaf is an object of parameters */
    e = load_err(J("{'collective=bcast': {'algorithm=binomial': 3}}"));
    ck_assert_has(e, "collective=bcast > algorithm=binomial");
    ck_assert_has(e, "object of parameters");
    e = load_err(J("{'collective=bcast': {'algorithm=binomial': []}}"));
    ck_assert_has(e, "object of parameters");
}
END_TEST

/* Parameter values: integers in the registry's range.  No algorithm of
 * this release takes parameters; then this only says so. */
START_TEST(test_tree_param_values)
{
    const ch4coll_algo_t *al = NULL;
    ch4coll_tree_t t;
    char json[512];
    const char *e;
    int i;

    for (i = 0; i < ch4coll_nalgos && !al; i++)
        if (ch4coll_algo_nparams(&ch4coll_algos[i]) > 0)
            al = &ch4coll_algos[i];
    if (!al) {
        printf("note: no registered algorithm takes parameters; parameter "
               "values are only checked as unknown parameters\n");
        return;
    }
#define LEAF "{\"collective=%s\": {\"algorithm=%s\": {\"%s\": %s}}}"
    snprintf(json, sizeof json, LEAF, ch4coll_coll_name(al->coll), al->name,
             al->params[0].name, "\"abc\"");
    e = load_err(json);
    ck_assert_has(e, "must be an integer");
    snprintf(json, sizeof json, LEAF, ch4coll_coll_name(al->coll), al->name,
             al->params[0].name, "1.5");
    e = load_err(json);
    ck_assert_has(e, "must be an integer");
    if (al->params[0].max < INT64_MAX) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long) al->params[0].max + 1);
        snprintf(json, sizeof json, LEAF, ch4coll_coll_name(al->coll), al->name,
                 al->params[0].name, v);
        e = load_err(json);
        ck_assert_has(e, "must be an integer");
    }
    {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long) al->params[0].min);
        snprintf(json, sizeof json, LEAF, ch4coll_coll_name(al->coll), al->name,
                 al->params[0].name, v);
        load_ok(&t, json);
        ck_assert(t.n[t.n[1].first].params[0] == al->params[0].min);
        ch4coll_tree_free(&t);
    }
#undef LEAF
}
END_TEST

/* MPICH names map to ours where equivalent, else native; composition= is
 * native; MPICH names under a collective ch4coll does not run are kept
 * (and never match). */
START_TEST(test_tree_mpich_names)
{
    ch4coll_tree_t t;
    ch4coll_selin_t in;

    load_ok(&t, J("{'collective=allreduce': {"
                  " 'comm_size<=2': {'algorithm=MPIR_Allreduce_intra_"
                  "recursive_doubling': {}},"
                  " 'comm_size<=4': {'algorithm=MPIR_Allreduce_intra_"
                  "reduce_scatter_allgather': {}},"
                  " 'comm_size<=6': {'composition=MPIDI_Allreduce_intra_"
                  "composition_alpha': {}},"
                  " 'comm_size<=8': {'algorithm=MPIR_Allreduce_intra_"
                  "nosuch': {}},"
                  " 'comm_size<=10': {'algorithm=MPIDI_POSIX_mpi_allreduce_"
                  "release_gather': {}},"
                  " 'comm_size<=12': {'algorithm=MPIR_Allreduce_intra_"
                  "recursive_doubling': {'k': 3}}},"
                  " 'collective=ibcast': {'algorithm=MPIR_Ibcast_intra_tsp_"
                  "tree': {}, 'algorithm=MPIR_Ibcast_intra_sched_auto': {},"
                  " 'algorithm=native': {}},"
                  " 'collective=bcast': {'algorithm=MPIR_Bcast_intra_"
                  "binomial': {}}}"));
    in = call_in(CH4COLL_ALLREDUCE, 2, 8);
    ck_assert_str_eq(found_algo(&t, &in)->name, "recursive_doubling");
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    ck_assert_str_eq(found_algo(&t, &in)->name,
                     mapped(CH4COLL_ALLREDUCE, "butterfly"));
    in = call_in(CH4COLL_ALLREDUCE, 6, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_ALLREDUCE, "native"));
    in = call_in(CH4COLL_ALLREDUCE, 8, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_ALLREDUCE, "native"));
    in = call_in(CH4COLL_ALLREDUCE, 10, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_ALLREDUCE, "native"));
    /* MPICH's parameters do not apply and are ignored */
    in = call_in(CH4COLL_ALLREDUCE, 12, 8);
    ck_assert_str_eq(found_algo(&t, &in)->name, "recursive_doubling");
    in = call_in(CH4COLL_BCAST, 12, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_BCAST, "binomial"));
    /* no ch4coll collective is ibcast */
    for (in.coll = 0; in.coll < CH4COLL_NCOLL; in.coll++)
        if (in.coll != CH4COLL_BCAST && in.coll != CH4COLL_ALLREDUCE)
            ck_assert_ptr_null(found(&t, &in));
    ch4coll_tree_free(&t);
}
END_TEST

/*
 * BUG (tree.c, map_mpich): the map is looked up by the MPICH name but the
 * target is found by our name alone in the collective of the enclosing key,
 * so an MPICH algorithm of another collective maps to an unrelated
 * algorithm: "algorithm=MPIR_Allgather_intra_recursive_doubling" under
 * collective=allreduce becomes allreduce's recursive_doubling, and
 * MPIR_Gather_intra_binomial under collective=bcast becomes bcast's
 * binomial.  DESIGN.md section 5: MPICH names map to ours "where
 * equivalent, otherwise to native".  Expected native (or a load error),
 * actual the same-named algorithm of the other collective.
 */
START_TEST(test_tree_mpich_foreign_name)
{
    ch4coll_tree_t t;
    char err[ERRLEN];
    ch4coll_selin_t in;
    const ch4coll_algo_t *ar, *bc;

    if (ch4coll_tree_load(&t,
                          J("{'collective=allreduce': {'algorithm=MPIR_"
                            "Allgather_intra_recursive_doubling': {}},"
                            " 'collective=bcast': {'algorithm=MPIR_Gather_"
                            "intra_binomial': {}}}"),
                          "test", NULL, err, sizeof err) != CH4COLL_OK)
        return; /* refusing it is fine too */
    in = call_in(CH4COLL_ALLREDUCE, 4, 8);
    ar = found_algo(&t, &in);
    in = call_in(CH4COLL_BCAST, 4, 8);
    bc = found_algo(&t, &in);
    ch4coll_tree_free(&t);
    ck_assert_ptr_nonnull(ar);
    ck_assert_ptr_nonnull(bc);
    ck_assert_msg(ch4coll_algo_is_native(ar),
                  "MPIR_Allgather_intra_recursive_doubling under "
                  "collective=allreduce resolved to allreduce %s",
                  ar->name);
    ck_assert_msg(ch4coll_algo_is_native(bc),
                  "MPIR_Gather_intra_binomial under collective=bcast "
                  "resolved to bcast %s",
                  bc->name);
}
END_TEST

/* Syntax errors carry name:line:col of the offending character. */
START_TEST(test_tree_syntax)
{
    static const struct {
        const char *json, *where, *what;
    } cases[] = {
        /* missing comma on line 3 */
        {"{\n  \"collective=bcast\": {\n    \"algorithm=binomial\": {} "
         "\"algorithm=native\": {}\n  }\n}\n",
         "test:3:30:", "','"},
        /* trailing comma (strict) */
        {"{\n  \"collective=bcast\": {\n    \"algorithm=binomial\": {},\n"
         "  }\n}\n",
         "test:4:3:", ""},
        /* missing colon */
        {"{\n  \"collective=bcast\" {}\n}", "test:2:22:", "':'"},
        /* bad literal */
        {"{\n\t\"collective=bcast\": tru\n}", "test:2:25:", ""},
        /* a comment */
        {"{\n  // tuned\n  \"collective=bcast\": {}\n}", "test:2:3:", ""},
        /* unclosed */
        {"{\n  \"collective=bcast\": {\n", "test:3:1:", "end of file"},
        /* nothing at all */
        {"", "test:1:1:", "end of file"},
        {"  \n\n", "test:3:1:", "end of file"},
        /* trailing text after the object */
        {"{} x", "test:1:4:", ""},
        {"{}\n\n  ]", "test:3:3:", ""},
        {"{}{}", "test:1:3:", ""},
    };
    int i;

    for (i = 0; i < (int) (sizeof cases / sizeof cases[0]); i++) {
        const char *e = load_err(cases[i].json);
        ck_assert_msg(strncmp(e, cases[i].where, strlen(cases[i].where)) == 0,
                      "case %d: '%s' does not start with '%s'", i, e,
                      cases[i].where);
        ck_assert_has(e, cases[i].what);
    }
}
END_TEST

START_TEST(test_tree_top_level)
{
    static const char *const bad[] = {"[]",     "3\n",
                                      "\"x\"",  "true\n",
                                      "false ", "[{\"collective=bcast\": {}}]"};
    int i;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        const char *e = load_err(bad[i]);
        ck_assert_has(e, "top level must be an object");
        ck_assert_has(e, "test:1:1:");
    }
}
END_TEST

/*
 * BUG (tree.c, parse_json): the text is handed to json_tokener_parse_ex()
 * without its terminating NUL, so json-c cannot tell that a number or a
 * literal (true, null) at the very end of the input is complete.  A file
 * whose whole content is "3" or "true" (no newline) is valid JSON with a
 * non-object top level; expected "test:1:1: the top level must be an
 * object", actual "test:1:2: unexpected end of file" ("test:1:5:" for
 * "true").  "3\n" and "true\n" are reported correctly.
 */
START_TEST(test_tree_top_level_number_at_eof)
{
    static const char *const bad[] = {"3", "-12", "1.5", "true", "false"};
    char msgs[5][ERRLEN];
    int i;

    for (i = 0; i < 5; i++)
        snprintf(msgs[i], sizeof msgs[i], "%s", load_err(bad[i]));
    for (i = 0; i < 5; i++)
        ck_assert_msg(strstr(msgs[i], "top level must be an object"),
                      "input '%s': '%s'", bad[i], msgs[i]);
}
END_TEST

/*
 * BUG (tree.c, parse_json): json-c returns a NULL object for the JSON text
 * "null", with status json_tokener_success; parse_json() takes every NULL
 * for a syntax error and prints the status.  A file containing "null"
 * gives "test:2:1: success"; expected "test:1:1: the top level must be an
 * object".
 */
START_TEST(test_tree_top_level_null)
{
    char msg[ERRLEN];

    snprintf(msg, sizeof msg, "%s", load_err("null\n"));
    ck_assert_msg(strstr(msg, "top level must be an object") &&
                      !strstr(msg, "success"),
                  "input 'null': '%s'", msg);
}
END_TEST

/* A predicate's value must be an object. */
START_TEST(test_tree_value_not_object)
{
    const char *e;

    e = load_err(J("{'collective=bcast': {'comm_size<=4': 7}}"));
    ck_assert_has(e, "collective=bcast > comm_size<=4");
    ck_assert_has(e, "expected an object");
    e = load_err(J("{'collective=bcast': ['algorithm=binomial']}"));
    ck_assert_has(e, "collective=bcast");
    ck_assert_has(e, "expected an object");
    e = load_err(
        J("{'collective=bcast': {'comm_size=any': 'algorithm=binomial'}}"));
    ck_assert_has(e, "expected an object");
}
END_TEST

/* Bad keys inside a tree: the path and the predicate's message. */
START_TEST(test_tree_bad_keys)
{
    const char *e;

    e = load_err(J("{'collective=bcast': {'comm_type=intra': "
                   "{'comm_size<=1e3': {'algorithm=binomial': {}}}}}"));
    ck_assert_has(e, "collective=bcast > comm_type=intra > comm_size<=1e3");
    ck_assert_has(e, "valid forms");
    ck_assert_has(e, "comm_size<=N");
    e = load_err(J("{'collective=bcast': {'msg_size<=8': {}}}"));
    ck_assert_has(e, "collective=bcast > msg_size<=8");
    ck_assert_has(e, "unknown key");
    ck_assert_has(e, "avg_msg_size");
    e = load_err(J("{'collective=bcast': {'comm_type=outer': {}}}"));
    ck_assert_has(e, "comm_type=intra");
    e = load_err(J("{'comm_size<=9223372036854775808': {}}"));
    ck_assert_has(e, "at comm_size<=9223372036854775808:");
    ck_assert_has(e, "valid forms");
}
END_TEST

START_TEST(test_tree_files)
{
    ch4coll_tree_t t;
    char err[ERRLEN], path[4200];
    FILE *f;

    ck_assert_int_ne(ch4coll_tree_load_file(&t, "/nonexistent/dir/x.json", NULL,
                                            err, sizeof err),
                     CH4COLL_OK);
    ck_assert_has(err, "/nonexistent/dir/x.json");
    ck_assert_has(err, "cannot open");
    ck_assert_has(err, "No such file");
    ck_assert_int_ne(ch4coll_tree_load_file(&t, "/", NULL, err, sizeof err),
                     CH4COLL_OK);
    ck_assert_has(err, "/");

    snprintf(path, sizeof path, "/tmp/ch4coll_test_select_%d.json",
             (int) getpid());
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_ne(ch4coll_tree_load_file(&t, path, NULL, err, sizeof err),
                     CH4COLL_OK);
    ck_assert_has(err, path);
    ck_assert_has(err, ":1:1:");
    ck_assert_has(err, "empty");

    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\n  \"collective=bcast\": {\n    \"algorithm=binomial\": {}\n  "
          "}\n}\n",
          f);
    fclose(f);
    ck_assert_int_eq(ch4coll_tree_load_file(&t, path, NULL, err, sizeof err),
                     CH4COLL_OK);
    ck_assert_str_eq(t.name, path);
    ch4coll_tree_free(&t);

    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\n  \"collective=bcast\": {\n    \"algorithm=binomial\": {}\n  "
          "}\n  \"collective=reduce\": {}\n}\n",
          f);
    fclose(f);
    ck_assert_int_ne(ch4coll_tree_load_file(&t, path, NULL, err, sizeof err),
                     CH4COLL_OK);
    {
        char where[4300];
        snprintf(where, sizeof where, "%s:5:3:", path);
        ck_assert_has(err, where);
    }
    remove(path);
}
END_TEST

/* Warnings: an unreachable sibling after =any, an empty subtree, a nested
 * different collective= key.  The file still loads. */
START_TEST(test_tree_warnings)
{
    ch4coll_tree_t t;
    ch4coll_selin_t in;

    load_ok(&t, J("{'collective=bcast': {"
                  " 'comm_size=any': {'algorithm=binomial': {}},"
                  " 'comm_size<=4': {'algorithm=native': {}},"
                  " 'algorithm=native': {}}}"));
    ck_assert_msg(
        warned("reached only when", "collective=bcast > comm_size<=4"),
        "no unreachable warning (%d warnings)", nwarn);
    ck_assert(
        warned("reached only when", "collective=bcast > algorithm=native"));
    ck_assert(warned("test", "warning"));
    ch4coll_tree_free(&t);

    load_ok(&t, J("{'collective=bcast': {"
                  " 'comm_size<=4': {},"
                  " 'algorithm=binomial': {}}}"));
    ck_assert_int_eq(nwarn, 1);
    ck_assert(warned("empty", "collective=bcast > comm_size<=4"));
    in = call_in(CH4COLL_BCAST, 2, 8);
    ck_assert_ptr_eq(found_algo(&t, &in), algo(CH4COLL_BCAST, "binomial"));
    ch4coll_tree_free(&t);

    load_ok(&t, J("{'collective=bcast': {"
                  " 'collective=reduce': {'algorithm=binomial': {}},"
                  " 'collective=bcast': {'algorithm=binomial': {}}}}"));
    ck_assert_int_eq(nwarn, 1);
    ck_assert(warned("never matches", "collective=bcast > collective=reduce"));
    in = call_in(CH4COLL_REDUCE, 2, 8);
    ck_assert_ptr_null(found(&t, &in));
    in = call_in(CH4COLL_BCAST, 2, 8);
    ck_assert_pstr_eq(found(&t, &in), "collective=bcast > collective=bcast > "
                                      "algorithm=binomial");
    ch4coll_tree_free(&t);

    /* a tree without those draws no warning */
    load_ok(&t, J("{'collective=bcast': {'comm_size<=4': "
                  "{'algorithm=binomial': {}}, 'comm_size=any': "
                  "{'algorithm=native': {}}}}"));
    ck_assert_int_eq(nwarn, 0);
    ch4coll_tree_free(&t);
}
END_TEST

/* =============================================================== main */

static Suite *tree_suite(void)
{
    Suite *s = suite_create("select_tree");
    TCase *tc;

    tc = tcase_create("load");
    tcase_add_test(tc, test_tree_first_match);
    tcase_add_test(tc, test_tree_fallthrough);
    tcase_add_test(tc, test_tree_leaf_outside_collective);
    tcase_add_test(tc, test_tree_unknown_algorithm);
    tcase_add_test(tc, test_tree_unknown_parameter);
    tcase_add_test(tc, test_tree_param_values);
    tcase_add_test(tc, test_tree_mpich_names);
    tcase_add_test(tc, test_tree_mpich_foreign_name);
    tcase_add_test(tc, test_tree_syntax);
    tcase_add_test(tc, test_tree_top_level);
    tcase_add_test(tc, test_tree_top_level_number_at_eof);
    tcase_add_test(tc, test_tree_top_level_null);
    tcase_add_test(tc, test_tree_value_not_object);
    tcase_add_test(tc, test_tree_bad_keys);
    tcase_add_test(tc, test_tree_files);
    tcase_add_test(tc, test_tree_warnings);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, tree_suite);
}
