/*
 * tree.h - the JSON selection tree (MPICH Csel format and its superset).
 *
 * A tuning file is a nested JSON object.  Every key is either a predicate
 * ("comm_size<=8", "collective=bcast", "avg_msg_size=any", ...) whose value
 * is the object of its children, or a leaf ("algorithm=<name>": {params} or
 * MPICH's "composition=<name>": {}).  Children are tried in document order;
 * the first predicate that holds is entered; a subtree that yields no
 * applicable leaf falls through to the next sibling (so an algorithm that
 * does not apply to a call, e.g. commutative-only with a non-commutative
 * op, lets the next matching leaf win), and a search that finds nothing
 * answers "native".
 *
 * All predicates live in one table (predicates.c) with one evaluator, used
 * both to prune the tree once per communicator (predicates on the
 * communicator alone) and to search the pruned tree per call shape.
 * doc/json_tuning.md is the user's description of the grammar.
 */
#ifndef CH4COLL_TREE_H
#define CH4COLL_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "../algos/algo.h"

/* Everything a predicate may look at; identical on every rank. */
typedef struct {
    /* communicator */
    int inter;
    int comm_size;
    int nodes;            /* nodes the communicator spans */
    int ppn_min, ppn_max; /* fewest and most ranks on one node */
    int node_consecutive; /* ranks of each node are contiguous */
    int hierarchy;        /* CH4COLL_HIER_* */
    int multi_threaded;
    /* call (have_call = 0 while pruning) */
    int have_call;
    int coll;        /* ch4coll_coll_t */
    int nonblocking; /* match collective=i<coll> branches, not <coll> */
    int64_t count;   /* elements (reductions) or bytes */
    int64_t avg_msg_size, total_msg_size;
    int nonempty_blocks; /* ranks contributing bytes (0: not agreed) */
    int commutative, op_builtin, inplace, block_regular;
} ch4coll_selin_t;

enum {
    CH4COLL_HIER_PARENT,     /* several nodes, some with several ranks */
    CH4COLL_HIER_NODE_ROOTS, /* (MPICH: its communicator of node leaders) */
    CH4COLL_HIER_NODE,       /* every rank on one node */
    CH4COLL_HIER_FLAT        /* one rank per node */
};

/* The comm_hierarchy of p ranks on this many nodes (as MPICH names it). */
static inline int ch4coll_hierarchy(int nodes, int p)
{
    return nodes == p   ? CH4COLL_HIER_FLAT
           : nodes == 1 ? CH4COLL_HIER_NODE
                        : CH4COLL_HIER_PARENT;
}

/* ------------------------------------------------------- predicates */

enum { CH4COLL_OP_LE, CH4COLL_OP_LT, CH4COLL_OP_EQ };
enum { CH4COLL_ARG_INT, CH4COLL_ARG_WORD, CH4COLL_ARG_ANY };
enum { CH4COLL_LEVEL_COMM, CH4COLL_LEVEL_CALL };

typedef struct {
    const char *name;         /* "comm_size" */
    int op;                   /* CH4COLL_OP_* */
    int argkind;              /* CH4COLL_ARG_* */
    const char *const *words; /* ARG_WORD: NULL-terminated choices */
    int level;                /* CH4COLL_LEVEL_* */
    int (*eval)(const ch4coll_selin_t *in, int64_t arg);
    const char *desc;
} ch4coll_pred_t;

extern const ch4coll_pred_t ch4coll_preds[];
extern const int ch4coll_npreds;

/* Parse a predicate key ("comm_size<=8"); returns the row index and the
 * argument, or -1 with a message naming the valid choices. */
int ch4coll_pred_parse(const char *key, int64_t *arg, char *err, size_t len);

/* Row i of the table; row ch4coll_npreds is the shared "name=any". */
const ch4coll_pred_t *ch4coll_pred_row(int row);

/* The one evaluator: 1 if predicate row holds for in. */
static inline int ch4coll_pred_eval(int row, int64_t arg,
                                    const ch4coll_selin_t *in)
{
    return ch4coll_pred_row(row)->eval(in, arg);
}

/* Rabenseifner's delta_expo,max: the largest gap between consecutive
 * exponents of the binary representation of p (0 for powers of two). */
int ch4coll_delta_expo_max(int p);

/* ------------------------------------------------------------ tree */

enum { CH4COLL_NODE_LEAF = -1 };

typedef struct {
    int pred; /* predicate row, or CH4COLL_NODE_LEAF */
    int64_t arg;
    int first, nchild;          /* children: nodes[first .. first+nchild) */
    int coll;                   /* leaf: its collective (-1: not ours) */
    const ch4coll_algo_t *algo; /* leaf: resolved algorithm (native too) */
    int64_t params[CH4COLL_MAX_PARAMS];
    int path; /* offset of "a > b > c" in the path pool */
} ch4coll_tnode_t;

typedef struct {
    ch4coll_tnode_t *n; /* n[0] is the root (no predicate) */
    int nn, cap;
    char *paths; /* path pool */
    size_t plen, pcap;
    char name[256];    /* file name or "embedded default" */
    uint64_t checksum; /* of the text it was loaded from */
} ch4coll_tree_t;

/* Load and validate a tree from JSON text.  name is used in messages.
 * Errors (syntax with line and column; unknown keys, algorithms or
 * parameters with the JSON path and the valid choices) make it fail;
 * warnings (subtrees that can never yield a leaf) are reported through
 * warn() when given.  err receives the first error. */
int ch4coll_tree_load(ch4coll_tree_t *t, const char *text, const char *name,
                      void (*warn)(const char *msg), char *err, size_t len);
int ch4coll_tree_load_file(ch4coll_tree_t *t, const char *path,
                           void (*warn)(const char *msg), char *err,
                           size_t len);
void ch4coll_tree_free(ch4coll_tree_t *t);

/* A copy of t without the subtrees whose communicator-level predicates
 * fail for in (in->have_call = 0); true ones are spliced into place. */
int ch4coll_tree_prune(const ch4coll_tree_t *t, const ch4coll_selin_t *in,
                       ch4coll_tree_t *out);

/* First applicable leaf for in, or NULL (native).  accept() says whether a
 * leaf's algorithm applies to the call; when it does not, the search goes
 * on with the next sibling.  trace (optional) receives one line per step. */
const ch4coll_tnode_t *
ch4coll_tree_search(const ch4coll_tree_t *t, const ch4coll_selin_t *in,
                    int (*accept)(const ch4coll_tnode_t *leaf, void *ctx),
                    void *ctx, void (*trace)(const char *line, void *ctx));

static inline const char *ch4coll_tree_path(const ch4coll_tree_t *t,
                                            const ch4coll_tnode_t *leaf)
{
    return t->paths + leaf->path;
}

/* The built-in tree (json_tuning/default.json compiled in). */
extern const char ch4coll_default_json[];

#endif /* CH4COLL_TREE_H */
