/*
 * fuzz_json.c - libFuzzer target: JSON tuning text -> ch4coll_tree_t.
 *
 * Each input is handed to ch4coll_tree_load() as a tuning file's text (up
 * to its first NUL, as a file read by ch4coll_tree_load_file() would be).
 * A tree that loads is checked for the layout tree.h promises (children
 * contiguous and after their parent, paths inside the pool, leaves of a
 * ch4coll collective resolved), pruned for a few communicators, searched
 * for every collective, and freed; a rejected text must come with an
 * error message.  ASan, UBSan and LeakSanitizer watch all of it.
 * maint/fuzz builds and runs it; doc/fuzzing.md describes the setup.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch4coll.h"
#include "select/tree.h"
#include "util/util.h"

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz_json: invariant broken: %s\n", what);
    abort();
}

static void ignore_warning(const char *msg)
{
    if (strlen(msg) == 0)
        fuzz_fail("empty warning");
}

static int accept_all(const ch4coll_tnode_t *leaf, void *ctx)
{
    (void) leaf;
    (void) ctx;
    return 1;
}

static int accept_none(const ch4coll_tnode_t *leaf, void *ctx)
{
    (void) leaf;
    (void) ctx;
    return 0;
}

static void count_line(const char *line, void *ctx)
{
    (*(size_t *) ctx) += strlen(line) + 1;
}

/* The layout tree.h describes. */
static void check_tree(const ch4coll_tree_t *t)
{
    int i, j;

    if (t->nn < 1 || t->nn > t->cap)
        fuzz_fail("node count");
    for (i = 0; i < t->nn; i++) {
        const ch4coll_tnode_t *n = &t->n[i];
        if (n->path < 0 || (size_t) n->path >= t->plen ||
            strlen(t->paths + n->path) >= t->plen - (size_t) n->path)
            fuzz_fail("path outside the pool");
        /* (a node whose children were all pruned keeps a stale first) */
        if (n->nchild < 0 ||
            (n->nchild > 0 && (n->first <= i || n->first + n->nchild > t->nn)))
            fuzz_fail("children outside the node array");
        if (n->pred == CH4COLL_NODE_LEAF) {
            if (n->nchild != 0)
                fuzz_fail("leaf with children");
            if (n->coll >= 0 && (!n->algo || n->algo->coll != n->coll))
                fuzz_fail("leaf of a ch4coll collective without algorithm");
            for (j = 0; n->algo && j < ch4coll_algo_nparams(n->algo); j++)
                if (n->params[j] < n->algo->params[j].min ||
                    n->params[j] > n->algo->params[j].max)
                    fuzz_fail("leaf parameter out of range");
        } else if (n->pred < 0 || n->pred > ch4coll_npreds) {
            fuzz_fail("predicate row");
        }
    }
}

/* Search t for every collective with calls of a few shapes. */
static void search_all(const ch4coll_tree_t *t, const ch4coll_selin_t *comm)
{
    static const int64_t counts[] = {0, 1, 4096, INT64_C(1) << 40};
    ch4coll_selin_t in = *comm;
    const ch4coll_tnode_t *leaf;
    size_t traced = 0;
    unsigned k;
    int c;

    in.have_call = 1;
    for (c = 0; c < CH4COLL_NCOLL; c++)
        for (k = 0; k < 2 * sizeof counts / sizeof counts[0]; k++) {
            in.coll = c;
            in.nonblocking = (int) (k & 1);
            in.count = in.avg_msg_size = counts[k / 2];
            in.total_msg_size = counts[k / 2] * comm->comm_size;
            in.nonempty_blocks = k / 2 & 1 ? comm->comm_size : 1;
            in.commutative = in.op_builtin = (int) (k & 1);
            in.inplace = in.block_regular = (int) (k / 2 & 1);
            leaf = ch4coll_tree_search(t, &in, accept_all, &traced, count_line);
            if (leaf && (leaf->pred != CH4COLL_NODE_LEAF || leaf->coll != c))
                fuzz_fail("search answered a node that is not its leaf");
            if (ch4coll_tree_search(t, &in, accept_none, NULL, NULL))
                fuzz_fail("search answered a refused leaf");
        }
}

static void prune_and_search(const ch4coll_tree_t *t)
{
    static const int sizes[][3] = {/* comm_size, nodes, ppn */
                                   {1, 1, 1},
                                   {7, 7, 1},
                                   {8, 2, 4},
                                   {96, 12, 8}};
    ch4coll_tree_t pruned;
    ch4coll_selin_t comm;
    unsigned k;

    search_all(t, &(ch4coll_selin_t){.comm_size = 4, .nodes = 1});
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        memset(&comm, 0, sizeof comm);
        comm.comm_size = sizes[k][0];
        comm.nodes = sizes[k][1];
        comm.ppn_min = comm.ppn_max = sizes[k][2];
        comm.node_consecutive = 1;
        comm.multi_threaded = (int) (k & 1);
        comm.hierarchy = ch4coll_hierarchy(comm.nodes, comm.comm_size);
        if (ch4coll_tree_prune(t, &comm, &pruned) != CH4COLL_OK)
            fuzz_fail("prune failed");
        check_tree(&pruned);
        search_all(&pruned, &comm);
        ch4coll_tree_free(&pruned);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ch4coll_tree_t t;
    char err[1024], *text = malloc(size + 1);

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    memset(err, 'x', sizeof err);
    if (ch4coll_tree_load(&t, text, "fuzz.json", ignore_warning, err,
                          sizeof err) == CH4COLL_OK) {
        check_tree(&t);
        prune_and_search(&t);
        ch4coll_tree_free(&t);
    } else {
        if (!memchr(err, '\0', sizeof err) || err[0] == '\0')
            fuzz_fail("rejected without a message");
        if (t.n || t.paths)
            fuzz_fail("a rejected tree keeps memory");
    }
    free(text);
    return 0;
}
