/*
 * test_select_prune.c - unit tests of pruning (select/tree.c,
 * ch4coll_tree_prune): a tree cut down for one communicator.
 *
 * What is covered, and why it matters:
 *
 *   pruning     False communicator predicates drop their subtree, true ones
 *               are spliced in place, call predicates are kept; a pruned
 *               tree answers exactly like the full tree (property test on
 *               random trees and the default here, MPICH's files in
 *               test_select_mpich.c).
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

#include "select/tree.h"
#include "select_helpers.h"
#include "unit.h"

/* Paths of the children of node i. */
static void child_paths(const ch4coll_tree_t *t, int i, char *out, size_t len)
{
    int c;

    out[0] = '\0';
    for (c = t->n[i].first; c < t->n[i].first + t->n[i].nchild; c++)
        snprintf(out + strlen(out), len - strlen(out), "%s|",
                 ch4coll_tree_path(t, &t->n[c]));
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

static void random_key(gen_t *g, char *key, size_t len)
{
    static const char *const yn[] = {"yes", "no"};
    static const char *const hier[] = {"parent", "node_roots", "node", "flat"};
    static const char *const fixed[] = {
        "comm_size=pow2",  "comm_size=nonpow2", "comm_size=node_comm_size",
        "comm_type=intra", "comm_type=inter",   "comm_size=any",
        "count<pow2",      "avg_msg_size=any",  "count=any"};
    static const char *const ints[] = {"comm_size<=",       "comm_size<",
                                       "comm_nodes<=",      "comm_nodes<",
                                       "comm_avg_ppn<=",    "comm_avg_ppn<",
                                       "delta_expo_max<=",  "delta_expo_max<",
                                       "avg_msg_size<=",    "avg_msg_size<",
                                       "total_msg_size<=",  "total_msg_size<",
                                       "count<=",           "count<",
                                       "nonempty_blocks<=", "nonempty_blocks<"};
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
                                      : sample_sizes[rnd(&g->seed, 12)]));
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

/* =============================================================== main */

static Suite *prune_suite(void)
{
    Suite *s = suite_create("select_prune");
    TCase *tc;

    tc = tcase_create("prune");
    tcase_add_test(tc, test_prune_splice);
    tcase_add_test(tc, test_prune_property);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, prune_suite);
}
