/*
 * test_select.c - unit tests of the selection layer (select/): the
 * predicate table, the JSON tree loader, pruning, searching, the call
 * inputs built from a call shape, and the tuning files that ship (the
 * embedded default) or that users bring (MPICH's own files, broken files).
 *
 * What is covered, and why it matters:
 *
 *   predicates  Every row of ch4coll_preds is parsed from its key and
 *               evaluated at its boundary: "<=N" at N-1, N, N+1 (true, true,
 *               false) and "<N" at the same values (true, false, false), so
 *               '<' is less-than and '<=' less-or-equal for every name.
 *               Word forms (comm_size=pow2/nonpow2/node_comm_size,
 *               count<pow2, is_*=yes/no, comm_type, comm_hierarchy,
 *               collective= including MPICH-only names that never match),
 *               X=any, comm_avg_ppn (comm_size <= N * nodes), comm_nodes and
 *               delta_expo_max (checked against Rabenseifner's examples).
 *               Thresholds are strict 64-bit integers; malformed keys fail
 *               with the valid forms, unknown names with the valid keys.  A
 *               final test checks that every row was exercised and that
 *               communicator-level rows never look at call fields (pruning
 *               depends on it).
 *   loading     Document-order first match; fall-through to a later
 *               sibling when a leaf is refused by accept() or a subtree
 *               yields nothing; leaf outside collective=; unknown
 *               algorithms and parameters with the JSON path and the valid
 *               choices; MPICH algorithm and composition names; syntax
 *               errors with file:line:col; empty, missing and trailing-text
 *               inputs; the three warnings (unreachable, empty, nested
 *               collective).
 *   pruning     False communicator predicates drop their subtree, true ones
 *               are spliced in place, call predicates are kept; a pruned
 *               tree answers exactly like the full tree (property test on
 *               random trees, the default and MPICH's files).
 *   same input  The inputs built from a call shape are identical on every
 *               rank of p = 7 for allgatherv and reduce_scatter with
 *               irregular counts, and a threshold decision flips exactly
 *               when the total crosses it; gatherv/scatterv/alltoallv give
 *               size 0.
 *   MPICH       With CH4COLL_MPICH_SRC pointing at an unpacked MPICH 4.0.2
 *               tree, its mpir and ch4 tuning files load and give the
 *               decisions MPICH would (mapped to ch4coll names).
 *               test_select --mpich runs these alone (mpich-json.sh), and
 *               says SKIP (exit 77) without the source.
 *   default     The embedded default loads without warnings and picks a
 *               non-native algorithm for every collective for p = 1..64.
 *   corpus      Every test/unit/json/bad_*.json fails to load with the
 *               message substring listed in expected.txt; good_*.json load
 *               cleanly; the process tree falls back to the default on a bad
 *               MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE.
 *
 * Test files are found in $CH4COLL_TEST_DATA, else in the json/ directory
 * next to this source file (from __FILE__).
 *
 * Assumptions: MPI is initialised as a singleton (no mpiexec) because the
 * argument structs carry MPI handles; Check runs in CK_NOFORK mode and each
 * test frees what it creates.  Tests marked "BUG" assert the documented
 * behaviour that the library does not have yet; they are meant to fail
 * until the library is fixed.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algo.h"
#include "select/config.h"
#include "select/select.h"
#include "select/tree.h"
#include "util/util.h"

#define ERRLEN  4096
#define MAXWARN 64
#define MAXROWS 64

static const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};
static const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};

/* ============================================================ helpers */

/* JSON written with single quotes in C strings: J("{'a': {}}").  Four
 * rotating buffers, so a few may be alive at once. */
static const char *J(const char *s)
{
    static char buf[4][8192];
    static int next;
    char *b = buf[next++ % 4];
    size_t i;

    ck_assert_uint_lt(strlen(s), sizeof buf[0]);
    for (i = 0; s[i]; i++)
        b[i] = s[i] == '\'' ? '"' : s[i];
    b[i] = '\0';
    return b;
}

/* Warnings of the last load. */
static char warns[MAXWARN][1024];
static int nwarn;

static void warn_capture(const char *msg)
{
    if (nwarn < MAXWARN)
        snprintf(warns[nwarn], sizeof warns[0], "%s", msg);
    nwarn++;
}

/* 1 if some warning contains both a and b (b may be NULL). */
static int warned(const char *a, const char *b)
{
    int i;

    for (i = 0; i < nwarn && i < MAXWARN; i++)
        if (strstr(warns[i], a) && (!b || strstr(warns[i], b)))
            return 1;
    return 0;
}

static void load_ok(ch4coll_tree_t *t, const char *json)
{
    char err[ERRLEN];
    int rc;

    nwarn = 0;
    rc = ch4coll_tree_load(t, json, "test", warn_capture, err, sizeof err);
    ck_assert_msg(rc == CH4COLL_OK, "load failed: %s\nin: %s", err, json);
}

/* Load must fail; returns the message (static). */
static const char *load_err(const char *json)
{
    static char err[ERRLEN];
    ch4coll_tree_t t;
    int rc;

    nwarn = 0;
    rc = ch4coll_tree_load(&t, json, "test", warn_capture, err, sizeof err);
    ck_assert_msg(rc != CH4COLL_OK, "load succeeded: %s", json);
    ck_assert_msg(err[0] != '\0', "empty error message for %s", json);
    return err;
}

#define ck_assert_has(msg, sub)                                                \
    ck_assert_msg(strstr((msg), (sub)) != NULL, "message '%s' lacks '%s'",     \
                  (msg), (sub))

static ch4coll_selin_t comm_in(int p, int nodes)
{
    ch4coll_selin_t in;

    memset(&in, 0, sizeof in);
    in.comm_size = p;
    in.nodes = nodes;
    in.node_consecutive = 1;
    in.hierarchy = nodes == p ? CH4COLL_HIER_FLAT : CH4COLL_HIER_PARENT;
    return in;
}

/* A call of `bytes` per rank with a commutative built-in op. */
static ch4coll_selin_t call_in(int coll, int p, int64_t bytes)
{
    ch4coll_selin_t in = comm_in(p, 1);

    in.have_call = 1;
    in.coll = coll;
    in.count = bytes;
    in.avg_msg_size = bytes;
    in.total_msg_size = bytes * p;
    in.commutative = 1;
    in.op_builtin = 1;
    in.block_regular = 1;
    return in;
}

static int accept_all(const ch4coll_tnode_t *leaf, void *ctx)
{
    (void) leaf;
    (void) ctx;
    return 1;
}

/* Path of the selected leaf, or NULL. */
static const char *found(const ch4coll_tree_t *t, const ch4coll_selin_t *in)
{
    const ch4coll_tnode_t *l =
        ch4coll_tree_search(t, in, accept_all, NULL, NULL);

    return l ? ch4coll_tree_path(t, l) : NULL;
}

static const ch4coll_algo_t *found_algo(const ch4coll_tree_t *t,
                                        const ch4coll_selin_t *in)
{
    const ch4coll_tnode_t *l =
        ch4coll_tree_search(t, in, accept_all, NULL, NULL);

    return l ? l->algo : NULL;
}

static const ch4coll_algo_t *algo(int coll, const char *name)
{
    const ch4coll_algo_t *al = ch4coll_algo_find(coll, name);

    ck_assert_msg(al != NULL, "%s has no algorithm %s", ch4coll_coll_name(coll),
                  name);
    return al;
}

/* What an MPICH leaf naming our `name` must resolve to: ours if
 * registered, else native. */
static const char *mapped(int coll, const char *name)
{
    return ch4coll_algo_find(coll, name) ? name : "native";
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int rnd(uint64_t *s, int n)
{
    return (int) (rng_next(s) % (uint64_t) n);
}

/* Where the test files live. */
static const char *data_dir(void)
{
    static char dir[4096];
    const char *env = getenv("CH4COLL_TEST_DATA");
    const char *slash;

    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    slash = strrchr(__FILE__, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s/json", (int) (slash - __FILE__),
                 __FILE__);
    else
        snprintf(dir, sizeof dir, "json");
    return dir;
}

/* ========================================================= predicates */

static int covered[MAXROWS + 1];

/* Parse a key that must be valid; marks its row covered. */
static int parse_row(const char *key, int64_t *arg)
{
    char err[ERRLEN];
    int row = ch4coll_pred_parse(key, arg, err, sizeof err);

    ck_assert_msg(row >= 0, "'%s' does not parse: %s", key, err);
    ck_assert_int_le(row, ch4coll_npreds);
    covered[row] = 1;
    return row;
}

static int eval_key(const char *key, const ch4coll_selin_t *in)
{
    int64_t arg;
    int row = parse_row(key, &arg);

    return ch4coll_pred_eval(row, arg, in);
}

typedef void (*setter_t)(ch4coll_selin_t *in, int64_t v);

static void set_comm_size(ch4coll_selin_t *in, int64_t v)
{
    in->comm_size = (int) v;
}
static void set_nodes(ch4coll_selin_t *in, int64_t v)
{
    in->nodes = (int) v;
}
static void set_count(ch4coll_selin_t *in, int64_t v)
{
    in->count = v;
}
static void set_avg(ch4coll_selin_t *in, int64_t v)
{
    in->avg_msg_size = v;
}
static void set_total(ch4coll_selin_t *in, int64_t v)
{
    in->total_msg_size = v;
}
/* comm_avg_ppn: 3 nodes, v ranks, so the threshold N is crossed at 3N. */
static void set_size_3nodes(ch4coll_selin_t *in, int64_t v)
{
    in->nodes = 3;
    in->comm_size = (int) v;
}
static void set_inter(ch4coll_selin_t *in, int64_t v)
{
    in->inter = (int) v;
}
static void set_commutative(ch4coll_selin_t *in, int64_t v)
{
    in->commutative = (int) v;
}
static void set_inplace(ch4coll_selin_t *in, int64_t v)
{
    in->inplace = (int) v;
}
static void set_op_builtin(ch4coll_selin_t *in, int64_t v)
{
    in->op_builtin = (int) v;
}
static void set_block_regular(ch4coll_selin_t *in, int64_t v)
{
    in->block_regular = (int) v;
}
static void set_node_consecutive(ch4coll_selin_t *in, int64_t v)
{
    in->node_consecutive = (int) v;
}
static void set_multi_threaded(ch4coll_selin_t *in, int64_t v)
{
    in->multi_threaded = (int) v;
}
static void set_hierarchy(ch4coll_selin_t *in, int64_t v)
{
    in->hierarchy = (int) v;
}

/* Integer-argument names: the variable compared, the scale of N (the
 * value is compared with N * scale) and the largest N tried. */
static const struct {
    const char *name;
    setter_t set;
    int64_t scale, maxn;
} int_vars[] = {
    {"comm_size", set_comm_size, 1, INT_MAX - 1},
    {"count", set_count, 1, INT64_MAX - 1},
    {"avg_msg_size", set_avg, 1, INT64_MAX - 1},
    {"total_msg_size", set_total, 1, INT64_MAX - 1},
    {"comm_nodes", set_nodes, 1, INT_MAX - 1},
    {"comm_avg_ppn", set_size_3nodes, 3, 1000},
};

/* A communicator size whose delta_expo_max is d (0 <= d <= 29). */
static int size_with_dexpo(int d)
{
    return d == 0 ? 4 : (1 << d) | 1;
}

/* "<=N" at N-1, N, N+1 and "<N" likewise, for every integer row. */
START_TEST(test_pred_int_rows)
{
    static const int64_t ns[] = {1, 2, 7, 64, 1000};
    int i, j, k, d;

    for (i = 0; i < ch4coll_npreds; i++) {
        const ch4coll_pred_t *p = &ch4coll_preds[i];
        const char *op = p->op == CH4COLL_OP_LE ? "<=" : "<";
        int v = -1, tried = 0;

        if (p->argkind != CH4COLL_ARG_INT)
            continue;
        ck_assert_int_ne(p->op, CH4COLL_OP_EQ);
        for (j = 0; j < (int) (sizeof int_vars / sizeof int_vars[0]); j++)
            if (strcmp(int_vars[j].name, p->name) == 0)
                v = j;
        if (strcmp(p->name, "delta_expo_max") == 0) {
            for (k = 1; k <= 5; k++)
                for (d = k - 1; d <= k + 1; d++) {
                    char key[64];
                    ch4coll_selin_t in = comm_in(size_with_dexpo(d), 1);
                    int64_t arg;
                    snprintf(key, sizeof key, "%s%s%d", p->name, op, k);
                    ck_assert_int_eq(parse_row(key, &arg), i);
                    ck_assert_int_eq(arg, k);
                    ck_assert_int_eq(ch4coll_delta_expo_max(in.comm_size), d);
                    ck_assert_msg(ch4coll_pred_eval(i, arg, &in) ==
                                      (p->op == CH4COLL_OP_LE ? d <= k : d < k),
                                  "%s with delta_expo_max %d (p = %d)", key, d,
                                  in.comm_size);
                    tried++;
                }
            continue;
        }
        ck_assert_msg(v >= 0, "no test variable for integer row %s%s", p->name,
                      op);
        for (k = 0; k <= (int) (sizeof ns / sizeof ns[0]); k++) {
            int64_t n =
                k < (int) (sizeof ns / sizeof ns[0]) ? ns[k] : int_vars[v].maxn;
            char key[96];
            int64_t arg;
            if (n > int_vars[v].maxn)
                continue;
            snprintf(key, sizeof key, "%s%s%lld", p->name, op, (long long) n);
            ck_assert_int_eq(parse_row(key, &arg), i);
            ck_assert_int_eq(arg, n);
            for (d = -1; d <= 1; d++) {
                ch4coll_selin_t in = call_in(CH4COLL_ALLREDUCE, 8, 8);
                int want = p->op == CH4COLL_OP_LE ? d <= 0 : d < 0;
                int64_t val = n * int_vars[v].scale + d;
                int_vars[v].set(&in, val);
                ck_assert_msg(ch4coll_pred_eval(i, arg, &in) == want,
                              "%s with value %lld: expected %d", key,
                              (long long) val, want);
                tried++;
            }
        }
        ck_assert_int_gt(tried, 0);
    }
}
END_TEST

/* comm_avg_ppn is comm_size <= N * nodes, also away from the boundary:
 * 13 ranks on 3 nodes have 4.33 ranks per node. */
START_TEST(test_pred_ppn)
{
    ch4coll_selin_t in = comm_in(13, 3);

    ck_assert_int_eq(eval_key("comm_avg_ppn<=4", &in), 0);
    ck_assert_int_eq(eval_key("comm_avg_ppn<=5", &in), 1);
    ck_assert_int_eq(eval_key("comm_avg_ppn<5", &in), 1);
    in = comm_in(12, 3);
    ck_assert_int_eq(eval_key("comm_avg_ppn<=4", &in), 1);
    ck_assert_int_eq(eval_key("comm_avg_ppn<4", &in), 0);
    in = comm_in(64, 1);
    ck_assert_int_eq(eval_key("comm_avg_ppn<=64", &in), 1);
    ck_assert_int_eq(eval_key("comm_avg_ppn<=63", &in), 0);
    in = comm_in(64, 64);
    ck_assert_int_eq(eval_key("comm_avg_ppn<=1", &in), 1);
    ck_assert_int_eq(eval_key("comm_avg_ppn<1", &in), 0);
}
END_TEST

/*
 * BUG (predicates.c, ppn_le/ppn_lt): "comm_avg_ppn<=N" computes N * nodes in
 * int64_t, which overflows (undefined behaviour; in practice it wraps
 * negative) for the large thresholds the parser accepts.
 * "comm_avg_ppn<=9223372036854775807" with 5 ranks on 2 nodes must hold
 * (5 <= 2 * huge), as must "comm_avg_ppn<=4611686018427387904" on 2 nodes.
 */
START_TEST(test_pred_ppn_overflow)
{
    ch4coll_selin_t in = comm_in(5, 2);

    ck_assert_msg(eval_key("comm_avg_ppn<=9223372036854775807", &in) == 1,
                  "comm_avg_ppn<=INT64_MAX false for 5 ranks on 2 nodes");
    ck_assert_msg(eval_key("comm_avg_ppn<=4611686018427387904", &in) == 1,
                  "comm_avg_ppn<=2^62 false for 5 ranks on 2 nodes");
    ck_assert_msg(eval_key("comm_avg_ppn<4611686018427387904", &in) == 1,
                  "comm_avg_ppn<2^62 false for 5 ranks on 2 nodes");
}
END_TEST

/* Rabenseifner & Adamidis, footnote 2 and section 4: 96 and 60 -> 1;
 * 61, 80, 235, 251 -> 2; 36, 77, 100 -> 3; powers of two -> 0. */
static int dexpo_reference(int p)
{
    int ex[32], n = 0, e, gap = 0, i;

    for (e = 0; e < 31; e++)
        if (p >> e & 1)
            ex[n++] = e;
    for (i = 1; i < n; i++)
        if (ex[i] - ex[i - 1] > gap)
            gap = ex[i] - ex[i - 1];
    return gap;
}

START_TEST(test_pred_delta_expo)
{
    static const int paper[][2] = {{100, 3}, {96, 1}, {60, 1}, {61, 2},
                                   {36, 3},  {77, 3}, {80, 2}, {235, 2},
                                   {251, 2}, {3, 1},  {5, 2},  {7, 1}};
    int i, p;

    for (i = 0; i < (int) (sizeof paper / sizeof paper[0]); i++)
        ck_assert_msg(ch4coll_delta_expo_max(paper[i][0]) == paper[i][1],
                      "delta_expo_max(%d) = %d, expected %d", paper[i][0],
                      ch4coll_delta_expo_max(paper[i][0]), paper[i][1]);
    for (i = 0; i <= 30; i++)
        ck_assert_int_eq(ch4coll_delta_expo_max(1 << i), 0);
    for (p = 1; p <= 5000; p++)
        ck_assert_int_eq(ch4coll_delta_expo_max(p), dexpo_reference(p));
    ck_assert_int_eq(ch4coll_delta_expo_max(INT_MAX), 1);
    ck_assert_int_eq(ch4coll_delta_expo_max((1 << 30) | 1), 30);
}
END_TEST

/* Word forms. */
START_TEST(test_pred_words)
{
    static const struct {
        const char *key;
        setter_t set;
        int64_t v;
        int want;
    } cases[] = {
        {"comm_type=intra", set_inter, 0, 1},
        {"comm_type=intra", set_inter, 1, 0},
        {"comm_type=inter", set_inter, 1, 1},
        {"comm_type=inter", set_inter, 0, 0},
        {"comm_size=pow2", set_comm_size, 1, 1},
        {"comm_size=pow2", set_comm_size, 2, 1},
        {"comm_size=pow2", set_comm_size, 64, 1},
        {"comm_size=pow2", set_comm_size, 1 << 30, 1},
        {"comm_size=pow2", set_comm_size, 3, 0},
        {"comm_size=pow2", set_comm_size, 7, 0},
        {"comm_size=pow2", set_comm_size, 12, 0},
        {"comm_size=pow2", set_comm_size, 65, 0},
        {"comm_size=nonpow2", set_comm_size, 1, 0},
        {"comm_size=nonpow2", set_comm_size, 8, 0},
        {"comm_size=nonpow2", set_comm_size, 3, 1},
        {"comm_size=nonpow2", set_comm_size, 7, 1},
        {"comm_size=nonpow2", set_comm_size, 100, 1},
        {"comm_size=node_comm_size", set_nodes, 1, 1},
        {"comm_size=node_comm_size", set_nodes, 2, 0},
        {"comm_size=node_comm_size", set_nodes, 8, 0},
    };
    static const struct {
        const char *name;
        setter_t set;
    } yes_no[] = {
        {"is_commutative", set_commutative},
        {"is_sendbuf_inplace", set_inplace},
        {"is_op_built_in", set_op_builtin},
        {"is_block_regular", set_block_regular},
        {"is_node_consecutive", set_node_consecutive},
        {"is_multi_threaded", set_multi_threaded},
    };
    static const char *const hier[] = {"parent", "node_roots", "node", "flat"};
    static const int hier_val[] = {CH4COLL_HIER_PARENT, CH4COLL_HIER_NODE_ROOTS,
                                   CH4COLL_HIER_NODE, CH4COLL_HIER_FLAT};
    char key[96];
    int i, w, v;

    for (i = 0; i < (int) (sizeof cases / sizeof cases[0]); i++) {
        ch4coll_selin_t in = call_in(CH4COLL_BCAST, 8, 8);
        cases[i].set(&in, cases[i].v);
        ck_assert_msg(eval_key(cases[i].key, &in) == cases[i].want,
                      "%s with %lld: expected %d", cases[i].key,
                      (long long) cases[i].v, cases[i].want);
    }
    for (i = 0; i < (int) (sizeof yes_no / sizeof yes_no[0]); i++)
        for (w = 0; w < 2; w++)
            for (v = 0; v < 2; v++) {
                ch4coll_selin_t in = call_in(CH4COLL_BCAST, 8, 8);
                snprintf(key, sizeof key, "%s=%s", yes_no[i].name,
                         w ? "yes" : "no");
                yes_no[i].set(&in, v);
                ck_assert_msg(eval_key(key, &in) == (w == v), "%s with %d", key,
                              v);
            }
    for (w = 0; w < 4; w++)
        for (v = 0; v < 4; v++) {
            ch4coll_selin_t in = comm_in(8, 2);
            snprintf(key, sizeof key, "comm_hierarchy=%s", hier[w]);
            set_hierarchy(&in, hier_val[v]);
            ck_assert_msg(eval_key(key, &in) == (w == v), "%s with %s", key,
                          hier[v]);
        }
}
END_TEST

/* count<pow2: count below the largest power of two <= comm_size. */
START_TEST(test_pred_count_pow2)
{
    static const int cases[][3] = {
        /* comm_size, count, expected */
        {7, 3, 1},   {7, 4, 0},   {7, 5, 0},   {8, 7, 1}, {8, 8, 0},
        {8, 9, 0},   {1, 0, 1},   {1, 1, 0},   {2, 1, 1}, {2, 2, 0},
        {70, 63, 1}, {70, 64, 0}, {70, 65, 0}, {3, 1, 1}, {3, 2, 0},
    };
    int i;

    for (i = 0; i < (int) (sizeof cases / sizeof cases[0]); i++) {
        ch4coll_selin_t in = call_in(CH4COLL_REDUCE, cases[i][0], 4);
        in.count = cases[i][1];
        ck_assert_msg(eval_key("count<pow2", &in) == cases[i][2],
                      "count<pow2 with p = %d, count = %d", cases[i][0],
                      cases[i][1]);
    }
}
END_TEST

/* collective=<name>: ours match exactly their collective; MPICH-only names
 * (nonblocking, neighborhood, alltoallw) parse and never match. */
START_TEST(test_pred_collective)
{
    static const char *const foreign[] = {"iallreduce",
                                          "ibcast",
                                          "alltoallw",
                                          "ialltoallw",
                                          "neighbor_allgather",
                                          "ineighbor_alltoallw",
                                          "ireduce_scatter_block",
                                          "iscan",
                                          "ibarrier"};
    char key[96];
    int c, c2, i;

    for (c = 0; c < CH4COLL_NCOLL; c++) {
        snprintf(key, sizeof key, "collective=%s", ch4coll_coll_name(c));
        for (c2 = 0; c2 < CH4COLL_NCOLL; c2++) {
            ch4coll_selin_t in = call_in(c2, 4, 8);
            ck_assert_msg(eval_key(key, &in) == (c == c2), "%s for %s", key,
                          ch4coll_coll_name(c2));
        }
    }
    for (i = 0; i < (int) (sizeof foreign / sizeof foreign[0]); i++) {
        snprintf(key, sizeof key, "collective=%s", foreign[i]);
        for (c2 = 0; c2 < CH4COLL_NCOLL; c2++) {
            ch4coll_selin_t in = call_in(c2, 4, 8);
            ck_assert_msg(eval_key(key, &in) == 0, "%s matched %s", key,
                          ch4coll_coll_name(c2));
        }
    }
}
END_TEST

/* X=any: one shared row, always true, for any known name. */
START_TEST(test_pred_any)
{
    static const char *const keys[] = {
        "comm_size=any",      "avg_msg_size=any",   "total_msg_size=any",
        "is_commutative=any", "collective=any",     "comm_hierarchy=any",
        "count=any",          "delta_expo_max=any", "comm_type=any",
        "comm_nodes=any",     "comm_avg_ppn=any",   "is_multi_threaded=any"};
    char err[ERRLEN];
    int64_t arg;
    int i, p;

    ck_assert_int_eq(ch4coll_pred_row(ch4coll_npreds)->argkind,
                     CH4COLL_ARG_ANY);
    for (i = 0; i < (int) (sizeof keys / sizeof keys[0]); i++) {
        ck_assert_int_eq(parse_row(keys[i], &arg), ch4coll_npreds);
        for (p = 1; p <= 9; p += 4) {
            ch4coll_selin_t in = call_in(p % CH4COLL_NCOLL, p, p * 100);
            in.inter = p & 1;
            ck_assert_int_eq(ch4coll_pred_eval(ch4coll_npreds, arg, &in), 1);
            in.have_call = 0;
            ck_assert_int_eq(ch4coll_pred_eval(ch4coll_npreds, arg, &in), 1);
        }
    }
    /* any is not a name of its own */
    ck_assert_int_lt(ch4coll_pred_parse("nosuch=any", &arg, err, sizeof err),
                     0);
    ck_assert_has(err, "unknown key");
    ck_assert_int_lt(ch4coll_pred_parse("=any", &arg, err, sizeof err), 0);
}
END_TEST

/* Thresholds are strict 64-bit decimal integers >= 0. */
START_TEST(test_pred_strict)
{
    static const char *const bad[] = {"comm_size<=9223372036854775808",
                                      "comm_size<=99999999999999999999",
                                      "comm_size<=1e3",
                                      "comm_size<= 4",
                                      "comm_size<=4 ",
                                      "comm_size<=+4",
                                      "comm_size<=-1",
                                      "comm_size<-1",
                                      "comm_size<=",
                                      "comm_size<",
                                      "comm_size=",
                                      "comm_size",
                                      "comm_size<=0x10",
                                      "comm_size<=4.0",
                                      "comm_size<=4k",
                                      "comm_size=8",
                                      "comm_size==8",
                                      "comm_size=<8",
                                      "comm_size<==8",
                                      "comm_size<=pow2",
                                      "comm_size=POW2",
                                      "comm_size=pow2 "};
    char err[ERRLEN];
    int64_t arg;
    int i;

    ck_assert_int_ge(parse_row("comm_size<=9223372036854775807", &arg), 0);
    ck_assert(arg == INT64_MAX);
    ck_assert_int_ge(parse_row("count<9223372036854775807", &arg), 0);
    ck_assert(arg == INT64_MAX);
    ck_assert_int_ge(parse_row("total_msg_size<=0", &arg), 0);
    ck_assert(arg == 0);
    ck_assert_int_ge(parse_row("comm_size<=007", &arg), 0);
    ck_assert(arg == 7);
    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        memset(err, 0, sizeof err);
        ck_assert_msg(ch4coll_pred_parse(bad[i], &arg, err, sizeof err) < 0,
                      "'%s' parsed", bad[i]);
        ck_assert_has(err, bad[i]);
        ck_assert_has(err, "valid forms");
        ck_assert_has(err, "comm_size<=N");
        ck_assert_has(err, "comm_size<N");
        ck_assert_has(err, "comm_size=pow2");
        ck_assert_has(err, "comm_size=nonpow2");
        ck_assert_has(err, "comm_size=node_comm_size");
        ck_assert_has(err, "comm_size=any");
    }
    /* other names list their own forms */
    ck_assert_int_lt(ch4coll_pred_parse("count<=big", &arg, err, sizeof err),
                     0);
    ck_assert_has(err, "count<=N");
    ck_assert_has(err, "count<pow2");
    ck_assert_int_lt(
        ch4coll_pred_parse("is_commutative=true", &arg, err, sizeof err), 0);
    ck_assert_has(err, "is_commutative=yes");
    ck_assert_has(err, "is_commutative=no");
    ck_assert_int_lt(
        ch4coll_pred_parse("comm_type=outer", &arg, err, sizeof err), 0);
    ck_assert_has(err, "comm_type=intra");
    ck_assert_has(err, "comm_type=inter");
    ck_assert_int_lt(
        ch4coll_pred_parse("comm_hierarchy=nodes", &arg, err, sizeof err), 0);
    ck_assert_has(err, "comm_hierarchy=node_roots");
    ck_assert_has(err, "comm_hierarchy=flat");
}
END_TEST

/* Unknown names fail with the list of valid keys. */
START_TEST(test_pred_unknown)
{
    static const char *const bad[] = {"comm_sise<=4",
                                      "Comm_size<=4",
                                      "comm_size_max<=4",
                                      "foo",
                                      "",
                                      "algorithm=native",
                                      "msg_size<=8",
                                      "is_commutative",
                                      " comm_size<=4"};
    char err[ERRLEN];
    int64_t arg;
    int i, j;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        ck_assert_msg(ch4coll_pred_parse(bad[i], &arg, err, sizeof err) < 0,
                      "'%s' parsed", bad[i]);
        if (strcmp(bad[i], "is_commutative") == 0)
            continue; /* known name, no operator: "valid forms" */
        ck_assert_has(err, "unknown key");
        ck_assert_has(err, "valid keys");
        for (j = 0; j < ch4coll_npreds; j++)
            ck_assert_has(err, ch4coll_preds[j].name);
    }
    ck_assert_int_lt(
        ch4coll_pred_parse("is_commutative", &arg, err, sizeof err), 0);
    ck_assert_has(err, "is_commutative=yes");
}
END_TEST

/*
 * BUG (predicates.c, list_forms): when the message does not fit the
 * caller's buffer, the loops stop with `used` >= len, and the final
 * snprintf(err + used, len - used, " %.*s=any", ...) then writes past the
 * end of err (len - used wraps to a huge size_t).  The forms of
 * "collective=" alone need about 1060 bytes, more than the 768-byte buffer
 * build() in tree.c passes, so a tuning file with "collective=allreduced"
 * writes past a stack buffer.  Here: a 64-byte buffer followed by a guard.
 */
START_TEST(test_pred_err_buffer)
{
    static const char *const keys[] = {"collective=allreduced",
                                       "comm_size<=1e3", "comm_type=outer",
                                       "nosuch<=1"};
    struct {
        char err[64];
        char guard[256];
    } b;
    char bad[512] = "";
    int64_t arg;
    int i, j;

    for (i = 0; i < (int) (sizeof keys / sizeof keys[0]); i++) {
        memset(&b, 0x5a, sizeof b);
        ck_assert_int_lt(ch4coll_pred_parse(keys[i], &arg, b.err, sizeof b.err),
                         0);
        ck_assert_msg(memchr(b.err, '\0', sizeof b.err) != NULL,
                      "'%s': message not terminated within the buffer",
                      keys[i]);
        for (j = (int) sizeof b.guard - 1; j >= 0; j--)
            if (b.guard[j] != 0x5a)
                break;
        if (j >= 0)
            snprintf(bad + strlen(bad), sizeof bad - strlen(bad),
                     " '%s' (%d bytes past the end)", keys[i], j + 1);
    }
    ck_assert_msg(bad[0] == '\0',
                  "ch4coll_pred_parse wrote past its 64-byte error buffer "
                  "for:%s",
                  bad);
}
END_TEST

/* Pruning is only right if communicator-level rows read communicator
 * fields alone: changing every call field must not change them. */
START_TEST(test_pred_levels)
{
    static const char *const comm_names[] = {
        "comm_type",         "comm_size",     "is_node_consecutive",
        "is_multi_threaded", "comm_avg_ppn",  "comm_hierarchy",
        "comm_nodes",        "delta_expo_max"};
    uint64_t seed = 12345;
    int i, j, k, n;

    for (i = 0; i < ch4coll_npreds; i++) {
        const ch4coll_pred_t *p = &ch4coll_preds[i];
        int is_comm = 0;
        for (j = 0; j < (int) (sizeof comm_names / sizeof comm_names[0]); j++)
            is_comm |= strcmp(p->name, comm_names[j]) == 0;
        ck_assert_msg(p->level ==
                          (is_comm ? CH4COLL_LEVEL_COMM : CH4COLL_LEVEL_CALL),
                      "row %d (%s) has the wrong level", i, p->name);
        ck_assert_ptr_nonnull(p->desc);
        if (!is_comm)
            continue;
        for (n = 0; n < 300; n++) {
            ch4coll_selin_t a = comm_in(1 + rnd(&seed, 70), 1), b;
            int64_t arg = p->argkind == CH4COLL_ARG_INT ? rnd(&seed, 80) : 0;
            if (p->argkind == CH4COLL_ARG_WORD)
                for (k = 0; p->words[k]; k++)
                    if (rnd(&seed, 2) == 0)
                        arg = k;
            a.nodes = 1 + rnd(&seed, a.comm_size);
            a.inter = rnd(&seed, 2);
            a.hierarchy = rnd(&seed, 4);
            a.node_consecutive = rnd(&seed, 2);
            a.multi_threaded = rnd(&seed, 2);
            b = a;
            b.have_call = 1;
            b.coll = rnd(&seed, CH4COLL_NCOLL);
            b.count = rnd(&seed, 1 << 20);
            b.avg_msg_size = rnd(&seed, 1 << 20);
            b.total_msg_size = rnd(&seed, 1 << 30);
            b.commutative = rnd(&seed, 2);
            b.op_builtin = rnd(&seed, 2);
            b.inplace = rnd(&seed, 2);
            b.block_regular = rnd(&seed, 2);
            ck_assert_int_eq(p->eval(&a, arg), p->eval(&b, arg));
        }
    }
}
END_TEST

/* Runs after the tests above (same tcase, CK_NOFORK runs them in order):
 * every row was parsed from a key and evaluated at least once. */
START_TEST(test_pred_coverage)
{
    int i;

    ck_assert_int_le(ch4coll_npreds, MAXROWS);
    for (i = 0; i <= ch4coll_npreds; i++)
        ck_assert_msg(covered[i], "predicate row %d (%s) not tested", i,
                      ch4coll_pred_row(i)->name);
}
END_TEST

/* ============================================================ loading */

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

/* ============================================================ pruning */

/* Paths of the children of node i. */
static void child_paths(const ch4coll_tree_t *t, int i, char *out, size_t len)
{
    int c;

    out[0] = '\0';
    for (c = t->n[i].first; c < t->n[i].first + t->n[i].nchild; c++)
        snprintf(out + strlen(out), len - strlen(out), "%s|",
                 ch4coll_tree_path(t, &t->n[c]));
}

/* No communicator-level predicate survives pruning (the root aside). */
static void check_no_comm_preds(const ch4coll_tree_t *t, int i)
{
    int c;

    for (c = t->n[i].first; c < t->n[i].first + t->n[i].nchild; c++) {
        const ch4coll_tnode_t *n = &t->n[c];
        ck_assert_msg(n->pred == CH4COLL_NODE_LEAF ||
                          ch4coll_pred_row(n->pred)->level ==
                              CH4COLL_LEVEL_CALL,
                      "communicator predicate left after pruning: %s",
                      ch4coll_tree_path(t, n));
        check_no_comm_preds(t, c);
    }
}

static const char *const prune_json =
    "{'collective=allreduce': {"
    " 'comm_size<=4': {'algorithm=recursive_doubling': {}},"
    " 'comm_type=intra': {"
    "   'avg_msg_size<=64': {'algorithm=recursive_doubling': {}},"
    "   'comm_nodes<=1': {'comm_size=pow2': {'algorithm=native': {}}},"
    "   'algorithm=native': {}},"
    " 'comm_size=any': {'algorithm=native': {}}},"
    " 'collective=bcast': {"
    "   'comm_type=inter': {'algorithm=native': {}},"
    "   'is_commutative=yes': {'algorithm=binomial': {}}}}";

START_TEST(test_prune_splice)
{
    ch4coll_tree_t t, pt;
    ch4coll_selin_t in;
    char kids[2048];
    int ar;

    load_ok(&t, J(prune_json));

    /* p = 8 on 2 nodes: comm_size<=4 and comm_nodes<=1 gone; comm_type=intra
     * and comm_size=any spliced, their children in place */
    in = comm_in(8, 2);
    ck_assert_int_eq(ch4coll_tree_prune(&t, &in, &pt), CH4COLL_OK);
    ck_assert_int_eq(pt.n[0].nchild, 2);
    ar = pt.n[0].first;
    ck_assert_str_eq(ch4coll_tree_path(&pt, &pt.n[ar]), "collective=allreduce");
    child_paths(&pt, ar, kids, sizeof kids);
    ck_assert_str_eq(kids, "collective=allreduce > comm_type=intra > "
                           "avg_msg_size<=64|"
                           "collective=allreduce > comm_type=intra > "
                           "algorithm=native|"
                           "collective=allreduce > comm_size=any > "
                           "algorithm=native|");
    child_paths(&pt, ar + 1, kids, sizeof kids);
    ck_assert_str_eq(kids, "collective=bcast > is_commutative=yes|");
    check_no_comm_preds(&pt, 0);
    ch4coll_tree_free(&pt);

    /* p = 2 on 1 node: everything true; order kept */
    in = comm_in(2, 1);
    ck_assert_int_eq(ch4coll_tree_prune(&t, &in, &pt), CH4COLL_OK);
    child_paths(&pt, pt.n[0].first, kids, sizeof kids);
    ck_assert_str_eq(kids,
                     "collective=allreduce > comm_size<=4 > "
                     "algorithm=recursive_doubling|"
                     "collective=allreduce > comm_type=intra > "
                     "avg_msg_size<=64|"
                     "collective=allreduce > comm_type=intra > comm_nodes<=1 "
                     "> comm_size=pow2 > algorithm=native|"
                     "collective=allreduce > comm_type=intra > "
                     "algorithm=native|"
                     "collective=allreduce > comm_size=any > "
                     "algorithm=native|");
    check_no_comm_preds(&pt, 0);
    ch4coll_tree_free(&pt);

    /* an intercommunicator of 6 */
    in = comm_in(6, 2);
    in.inter = 1;
    ck_assert_int_eq(ch4coll_tree_prune(&t, &in, &pt), CH4COLL_OK);
    child_paths(&pt, pt.n[0].first, kids, sizeof kids);
    ck_assert_str_eq(kids, "collective=allreduce > comm_size=any > "
                           "algorithm=native|");
    child_paths(&pt, pt.n[0].first + 1, kids, sizeof kids);
    ck_assert_str_eq(kids, "collective=bcast > comm_type=inter > "
                           "algorithm=native|"
                           "collective=bcast > is_commutative=yes|");
    ch4coll_tree_free(&pt);

    /* the pruned tree is a copy: the original is intact */
    in = call_in(CH4COLL_ALLREDUCE, 2, 8);
    ck_assert_pstr_eq(found(&t, &in), "collective=allreduce > comm_size<=4 > "
                                      "algorithm=recursive_doubling");
    ch4coll_tree_free(&t);

    /* pruning no tree gives an empty tree that answers NULL */
    in = comm_in(4, 1);
    ck_assert_int_eq(ch4coll_tree_prune(NULL, &in, &pt), CH4COLL_OK);
    in = call_in(CH4COLL_BCAST, 4, 8);
    ck_assert_ptr_null(found(&pt, &in));
    ch4coll_tree_free(&pt);
}
END_TEST

/* A random tree of keys of both levels, written as JSON. */
typedef struct {
    char *buf;
    size_t len, cap;
    uint64_t seed;
} gen_t;

static void put(gen_t *g, const char *s)
{
    size_t n = strlen(s);

    if (g->len + n + 1 > g->cap) {
        g->cap = (g->len + n + 1) * 2;
        g->buf = realloc(g->buf, g->cap);
        ck_assert_ptr_nonnull(g->buf);
    }
    memcpy(g->buf + g->len, s, n + 1);
    g->len += n;
}

static const int64_t sizes[] = {0,  1,  7,    8,    9,     63,
                                64, 65, 1000, 4096, 65536, 1 << 20};

static void random_key(gen_t *g, char *key, size_t len)
{
    static const char *const yn[] = {"yes", "no"};
    static const char *const hier[] = {"parent", "node_roots", "node", "flat"};
    static const char *const fixed[] = {
        "comm_size=pow2",  "comm_size=nonpow2", "comm_size=node_comm_size",
        "comm_type=intra", "comm_type=inter",   "comm_size=any",
        "count<pow2",      "avg_msg_size=any",  "count=any"};
    static const char *const ints[] = {"comm_size<=",      "comm_size<",
                                       "comm_nodes<=",     "comm_nodes<",
                                       "comm_avg_ppn<=",   "comm_avg_ppn<",
                                       "delta_expo_max<=", "delta_expo_max<",
                                       "avg_msg_size<=",   "avg_msg_size<",
                                       "total_msg_size<=", "total_msg_size<",
                                       "count<=",          "count<"};
    static const char *const words[] = {
        "is_node_consecutive=", "is_multi_threaded=",  "is_commutative=",
        "is_op_built_in=",      "is_sendbuf_inplace=", "is_block_regular="};
    int k = rnd(&g->seed, 4), i;

    if (k == 0) {
        snprintf(key, len, "%s", fixed[rnd(&g->seed, 9)]);
    } else if (k == 1) {
        i = rnd(&g->seed, 14);
        snprintf(key, len, "%s%lld", ints[i],
                 (long long) (i < 2   ? 1 + rnd(&g->seed, 70)
                              : i < 4 ? 1 + rnd(&g->seed, 6)
                              : i < 6 ? 1 + rnd(&g->seed, 12)
                              : i < 8 ? rnd(&g->seed, 5)
                                      : sizes[rnd(&g->seed, 12)]));
    } else if (k == 2) {
        snprintf(key, len, "%s%s", words[rnd(&g->seed, 6)],
                 yn[rnd(&g->seed, 2)]);
    } else {
        snprintf(key, len, "comm_hierarchy=%s", hier[rnd(&g->seed, 4)]);
    }
}

static void random_leaf(gen_t *g, int coll, char *key, size_t len)
{
    const char *names[8];
    int n = 0, i;

    if (coll < 0) {
        snprintf(key, len, "algorithm=%s",
                 rnd(&g->seed, 2) ? "native" : "MPIR_Iallreduce_intra_auto");
        return;
    }
    for (i = 0; i < ch4coll_nalgos && n < 8; i++)
        if (ch4coll_algos[i].coll == coll)
            names[n++] = ch4coll_algos[i].name;
    snprintf(key, len, "algorithm=%s", names[rnd(&g->seed, n)]);
}

static void gen_obj(gen_t *g, int depth, int coll)
{
    char keys[4][64];
    int n = 1 + rnd(&g->seed, 3), k, j, nk = 0;

    put(g, "{");
    for (k = 0; k < n; k++) {
        char key[64];
        int leaf = depth >= 4 || rnd(&g->seed, 10) < 3;
        if (leaf)
            random_leaf(g, coll, key, sizeof key);
        else
            random_key(g, key, sizeof key);
        for (j = 0; j < nk; j++)
            if (strcmp(keys[j], key) == 0)
                break;
        if (j < nk)
            continue; /* no duplicate keys */
        strcpy(keys[nk++], key);
        put(g, nk > 1 ? ", \"" : "\"");
        put(g, key);
        put(g, "\": ");
        if (leaf)
            put(g, "{}");
        else
            gen_obj(g, depth + 1, coll);
    }
    put(g, "}");
}

static char *random_tree_json(uint64_t seed)
{
    static const char *const colls[] = {"allreduce", "bcast", "reduce",
                                        "allgatherv", "iallreduce"};
    gen_t g = {NULL, 0, 0, seed};
    int i;

    put(&g, "{");
    for (i = 0; i < 5; i++) {
        char key[64];
        snprintf(key, sizeof key, "%s\"collective=%s\": ", i ? ", " : "",
                 colls[i]);
        put(&g, key);
        gen_obj(&g, 1, ch4coll_coll_from_name(colls[i]));
    }
    put(&g, "}");
    return g.buf;
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char) *s) * 1099511628211ULL;
    return h;
}

/* Refuses about a quarter of the leaves, depending on the leaf's path and
 * the call: the same answer for a leaf of the full and the pruned tree. */
typedef struct {
    const ch4coll_tree_t *t;
    uint64_t salt;
} salt_t;

static int accept_salted(const ch4coll_tnode_t *leaf, void *ctx)
{
    salt_t *s = ctx;

    return (fnv(ch4coll_tree_path(s->t, leaf)) ^ s->salt) % 4 != 0;
}

/* Search t and its pruned copies with many communicators and calls; the
 * answers must be the same leaf (by path).  Returns the searches done. */
static int prune_equivalence(const ch4coll_tree_t *t, uint64_t seed)
{
    static const int colls[] = {CH4COLL_ALLREDUCE, CH4COLL_BCAST,
                                CH4COLL_REDUCE, CH4COLL_ALLGATHERV,
                                CH4COLL_ALLGATHER};
    int p, ni, k, searches = 0;

    for (p = 1; p <= 70; p++) {
        int nodes_opt[4] = {1, 2, 3, p};
        for (ni = 0; ni < 4; ni++) {
            ch4coll_selin_t comm;
            ch4coll_tree_t pt;
            if (nodes_opt[ni] > p || (ni == 3 && p <= 3))
                continue;
            comm = comm_in(p, nodes_opt[ni]);
            comm.inter = rnd(&seed, 5) == 0;
            comm.hierarchy = rnd(&seed, 4);
            comm.node_consecutive = rnd(&seed, 2);
            comm.multi_threaded = rnd(&seed, 3) == 0;
            ck_assert_int_eq(ch4coll_tree_prune(t, &comm, &pt), CH4COLL_OK);
            check_no_comm_preds(&pt, 0);
            for (k = 0; k < 8; k++) {
                ch4coll_selin_t in = comm;
                const ch4coll_tnode_t *a, *b;
                salt_t sa = {t, rng_next(&seed)}, sb = {&pt, sa.salt};
                int64_t bytes =
                    rnd(&seed, 3) ? sizes[rnd(&seed, 12)] : rnd(&seed, 1 << 21);
                in.have_call = 1;
                in.coll = colls[rnd(&seed, 5)];
                in.count = rnd(&seed, 2) ? bytes : bytes / 4;
                in.avg_msg_size = bytes;
                in.total_msg_size = bytes * p + rnd(&seed, 3);
                in.commutative = rnd(&seed, 2);
                in.op_builtin = rnd(&seed, 2);
                in.inplace = rnd(&seed, 2);
                in.block_regular = rnd(&seed, 2);
                a = ch4coll_tree_search(t, &in, accept_salted, &sa, NULL);
                b = ch4coll_tree_search(&pt, &in, accept_salted, &sb, NULL);
                ck_assert_msg((a == NULL) == (b == NULL),
                              "p=%d nodes=%d coll=%s: full %s, pruned %s", p,
                              comm.nodes, ch4coll_coll_name(in.coll),
                              a ? ch4coll_tree_path(t, a) : "none",
                              b ? ch4coll_tree_path(&pt, b) : "none");
                if (a) {
                    ck_assert_str_eq(ch4coll_tree_path(t, a),
                                     ch4coll_tree_path(&pt, b));
                    ck_assert_ptr_eq(a->algo, b->algo);
                    ck_assert_mem_eq(a->params, b->params, sizeof a->params);
                }
                searches++;
            }
            ch4coll_tree_free(&pt);
        }
    }
    return searches;
}

START_TEST(test_prune_property)
{
    ch4coll_tree_t t;
    int i, searches = 0, hits = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;

    load_ok(&t, J(prune_json));
    searches += prune_equivalence(&t, 1);
    ch4coll_tree_free(&t);
    load_ok(&t, ch4coll_default_json);
    searches += prune_equivalence(&t, 2);
    ch4coll_tree_free(&t);
    for (i = 0; i < 40; i++) {
        char *json = random_tree_json(rng_next(&seed));
        char err[ERRLEN];
        ck_assert_msg(ch4coll_tree_load(&t, json, "random", NULL, err,
                                        sizeof err) == CH4COLL_OK,
                      "%s\n%s", err, json);
        searches += prune_equivalence(&t, (uint64_t) i + 3);
        {
            /* make sure the random trees do select things */
            ch4coll_selin_t in = call_in(CH4COLL_ALLREDUCE, 5, 64);
            hits += found(&t, &in) != NULL;
        }
        ch4coll_tree_free(&t);
        free(json);
    }
    ck_assert_int_gt(hits, 0);
    printf("prune property: %d searches compared\n", searches);
}
END_TEST

/* ====================================================== same decision */

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
    ck_assert_int_eq(in.block_regular, 0);
    ck_assert_int_eq(in.comm_size, VP); /* communicator fields untouched */

    a = v_args(CH4COLL_REDUCE_SCATTER, 5, regular, NULL);
    ch4coll_selin_from_args(&a, &in);
    ck_assert_int_eq(in.count, 42);
    ck_assert_int_eq(in.total_msg_size, 42 * 4);
    ck_assert_int_eq(in.avg_msg_size, 42 * 4 / VP);
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
            ck_assert_int_eq(in.block_regular, 0);
            ck_assert_ptr_eq(found_algo(&t, &in), algo(coll, ours));
        }
        ch4coll_tree_free(&t);
    }
}
END_TEST

/* ============================================================== MPICH */

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

/* ============================================================ default */

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

/* ============================================================== main */

static Suite *select_suite(void)
{
    Suite *s = suite_create("select");
    TCase *tc;

    tc = tcase_create("predicates");
    tcase_add_test(tc, test_pred_int_rows);
    tcase_add_test(tc, test_pred_ppn);
    tcase_add_test(tc, test_pred_ppn_overflow);
    tcase_add_test(tc, test_pred_delta_expo);
    tcase_add_test(tc, test_pred_words);
    tcase_add_test(tc, test_pred_count_pow2);
    tcase_add_test(tc, test_pred_collective);
    tcase_add_test(tc, test_pred_any);
    tcase_add_test(tc, test_pred_strict);
    tcase_add_test(tc, test_pred_unknown);
    tcase_add_test(tc, test_pred_err_buffer);
    tcase_add_test(tc, test_pred_levels);
    tcase_add_test(tc, test_pred_coverage); /* last: uses covered[] */
    suite_add_tcase(s, tc);

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

    tc = tcase_create("prune");
    tcase_add_test(tc, test_prune_splice);
    tcase_add_test(tc, test_prune_property);
    suite_add_tcase(s, tc);

    tc = tcase_create("inputs");
    tcase_add_test(tc, test_same_decision);
    tcase_add_test(tc, test_selin_values);
    tcase_add_test(tc, test_selin_v_zero);
    suite_add_tcase(s, tc);

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

/* MPICH 4.0.2's tuning files (test/unit/mpich-json.sh). */
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

/* test_select: the selection tests; test_select --mpich: MPICH's tuning
 * files, or SKIP (77, automake's code) without an MPICH source. */
int main(int argc, char **argv)
{
    SRunner *sr;
    int failed, mpich = argc > 1 && strcmp(argv[1], "--mpich") == 0;

    if (mpich && !mpich_src()) {
        printf("SKIP: CH4COLL_MPICH_SRC is not set (maint/mpich-source "
               "prints it): MPICH's tuning files are not tested\n");
        return 77;
    }
    MPI_Init(&argc, &argv);
    sr = srunner_create(mpich ? mpich_suite() : select_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
