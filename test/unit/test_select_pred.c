/*
 * test_select_pred.c - unit tests of the predicate table of the selection
 * layer (select/predicates.c): ch4coll_preds, ch4coll_pred_parse and
 * ch4coll_pred_eval.
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
 *
 * Assumptions: unit.h (MPI singleton, because the argument structs carry
 * MPI handles; CK_NOFORK, each test frees what it creates).  Tests marked "BUG"
 * describe a bug that was found by asserting the documented behaviour.
 */
#include <check.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

#define MAXROWS 64

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
static void set_nonempty(ch4coll_selin_t *in, int64_t v)
{
    in->nonempty_blocks = (int) v;
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
    {"nonempty_blocks", set_nonempty, 1, INT_MAX - 1},
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

/* =============================================================== main */

static Suite *pred_suite(void)
{
    Suite *s = suite_create("select_pred");
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
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, pred_suite);
}
