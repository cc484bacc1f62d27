/* select_helpers.c - what the selection tests share (select_helpers.h). */
#include "select_helpers.h"

#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "select/tree.h"

const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};
const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};

/* JSON written with single quotes in C strings: J("{'a': {}}").  Four
 * rotating buffers, so a few may be alive at once. */
const char *J(const char *s)
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
char warns[MAXWARN][1024];
int nwarn;

void warn_capture(const char *msg)
{
    if (nwarn < MAXWARN)
        snprintf(warns[nwarn], sizeof warns[0], "%s", msg);
    nwarn++;
}

/* 1 if some warning contains both a and b (b may be NULL). */
int warned(const char *a, const char *b)
{
    int i;

    for (i = 0; i < nwarn && i < MAXWARN; i++)
        if (strstr(warns[i], a) && (!b || strstr(warns[i], b)))
            return 1;
    return 0;
}

void load_ok(ch4coll_tree_t *t, const char *json)
{
    char err[ERRLEN];
    int rc;

    nwarn = 0;
    rc = ch4coll_tree_load(t, json, "test", warn_capture, err, sizeof err);
    ck_assert_msg(rc == CH4COLL_OK, "load failed: %s\nin: %s", err, json);
}

/* Load must fail; returns the message (static). */
const char *load_err(const char *json)
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

ch4coll_selin_t comm_in(int p, int nodes)
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
ch4coll_selin_t call_in(int coll, int p, int64_t bytes)
{
    ch4coll_selin_t in = comm_in(p, 1);

    in.have_call = 1;
    in.coll = coll;
    in.count = bytes;
    in.avg_msg_size = bytes;
    in.total_msg_size = bytes * p;
    in.nonempty_blocks = bytes ? p : 0;
    in.commutative = 1;
    in.op_builtin = 1;
    in.block_regular = 1;
    return in;
}

int accept_all(const ch4coll_tnode_t *leaf, void *ctx)
{
    (void) leaf;
    (void) ctx;
    return 1;
}

/* Path of the selected leaf, or NULL. */
const char *found(const ch4coll_tree_t *t, const ch4coll_selin_t *in)
{
    const ch4coll_tnode_t *l =
        ch4coll_tree_search(t, in, accept_all, NULL, NULL);

    return l ? ch4coll_tree_path(t, l) : NULL;
}

const ch4coll_algo_t *found_algo(const ch4coll_tree_t *t,
                                 const ch4coll_selin_t *in)
{
    const ch4coll_tnode_t *l =
        ch4coll_tree_search(t, in, accept_all, NULL, NULL);

    return l ? l->algo : NULL;
}

const ch4coll_algo_t *algo(int coll, const char *name)
{
    const ch4coll_algo_t *al = ch4coll_algo_find(coll, name);

    ck_assert_msg(al != NULL, "%s has no algorithm %s", ch4coll_coll_name(coll),
                  name);
    return al;
}

/* What an MPICH leaf naming our `name` must resolve to: ours if
 * registered, else native. */
const char *mapped(int coll, const char *name)
{
    return ch4coll_algo_find(coll, name) ? name : "native";
}

uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int rnd(uint64_t *s, int n)
{
    return (int) (rng_next(s) % (uint64_t) n);
}

/* Where the test files live. */
const char *data_dir(void)
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

/* No communicator-level predicate survives pruning (the root aside). */
void check_no_comm_preds(const ch4coll_tree_t *t, int i)
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

const int64_t sample_sizes[12] = {0,  1,  7,    8,    9,     63,
                                  64, 65, 1000, 4096, 65536, 1 << 20};

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
int prune_equivalence(const ch4coll_tree_t *t, uint64_t seed)
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
                int64_t bytes = rnd(&seed, 3) ? sample_sizes[rnd(&seed, 12)]
                                              : rnd(&seed, 1 << 21);
                in.have_call = 1;
                in.coll = colls[rnd(&seed, 5)];
                in.count = rnd(&seed, 2) ? bytes : bytes / 4;
                in.avg_msg_size = bytes;
                in.total_msg_size = bytes * p + rnd(&seed, 3);
                in.nonempty_blocks = rnd(&seed, p + 1);
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
