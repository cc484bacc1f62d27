/*
 * predicates.c - the one table of selection predicates and its evaluator.
 *
 * Each row is one key form: a name, an operator ("<=", "<", "=") and the
 * kind of its argument (a 64-bit integer, a word from a fixed list, or
 * "any").  The same row and the same eval function serve pruning (rows of
 * level COMM, once per communicator) and searching (every row, per call
 * shape): there is no second copy of any comparison.  "<" is less-than and
 * "<=" less-or-equal everywhere.
 *
 * The keys are MPICH 4.0.2's Csel keys (src/mpi/coll/src/csel.c) plus
 * comm_nodes, comm_size=nonpow2 and delta_expo_max (Rabenseifner &
 * Adamidis section 4: binary blocks pay off when delta_expo,max is small).
 */
#include "tree.h"

#include <stdio.h>
#include <string.h>

#include "../topo/blocks.h"
#include "../util/util.h"
#include "config.h"

/* Every collective name MPICH's files may use; ours map to ch4coll_coll_t. */
static const char *const coll_words[] = {"allgather",
                                         "allgatherv",
                                         "allreduce",
                                         "alltoall",
                                         "alltoallv",
                                         "alltoallw",
                                         "barrier",
                                         "bcast",
                                         "exscan",
                                         "gather",
                                         "gatherv",
                                         "iallgather",
                                         "iallgatherv",
                                         "iallreduce",
                                         "ialltoall",
                                         "ialltoallv",
                                         "ialltoallw",
                                         "ibarrier",
                                         "ibcast",
                                         "iexscan",
                                         "igather",
                                         "igatherv",
                                         "ineighbor_allgather",
                                         "ineighbor_allgatherv",
                                         "ineighbor_alltoall",
                                         "ineighbor_alltoallv",
                                         "ineighbor_alltoallw",
                                         "ireduce",
                                         "ireduce_scatter",
                                         "ireduce_scatter_block",
                                         "iscan",
                                         "iscatter",
                                         "iscatterv",
                                         "neighbor_allgather",
                                         "neighbor_allgatherv",
                                         "neighbor_alltoall",
                                         "neighbor_alltoallv",
                                         "neighbor_alltoallw",
                                         "reduce",
                                         "reduce_scatter",
                                         "reduce_scatter_block",
                                         "scan",
                                         "scatter",
                                         "scatterv",
                                         NULL};

static const char *const yes_no[] = {"no", "yes", NULL};
static const char *const comm_types[] = {"intra", "inter", NULL};
static const char *const size_words[] = {"pow2", "nonpow2", "node_comm_size",
                                         NULL};
static const char *const pow2_word[] = {"pow2", NULL};
static const char *const hier_words[] = {"parent", "node_roots", "node", "flat",
                                         NULL};

static int pof2_floor(int p)
{
    return ch4coll_pow2_floor(p > 0 ? p : 1);
}

int ch4coll_delta_expo_max(int p)
{
    return ch4coll_blocks_delta_expo_max(p);
}

/* ------------------------------------------------------- evaluators */

static int any(const ch4coll_selin_t *in, int64_t a)
{
    (void) in;
    (void) a;
    return 1;
}

/* "iallreduce" names the nonblocking (and persistent) allreduce: MPICH's
 * files keep separate branches for them.  select.c searches a nonblocking
 * call's i-branches first and the blocking ones when none matches. */
static int coll_is(const ch4coll_selin_t *in, int64_t a)
{
    const char *w = coll_words[a];

    if (w[0] == 'i')
        return in->nonblocking && ch4coll_coll_from_name(w + 1) == in->coll;
    return !in->nonblocking && ch4coll_coll_from_name(w) == in->coll;
}

static int comm_type(const ch4coll_selin_t *in, int64_t a)
{
    return in->inter == (int) a;
}

static int size_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->comm_size <= a;
}

static int size_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->comm_size < a;
}

static int size_is(const ch4coll_selin_t *in, int64_t a)
{
    int pow2 = (in->comm_size & (in->comm_size - 1)) == 0;

    return a == 0 ? pow2 : a == 1 ? !pow2 : in->nodes == 1;
}

static int count_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->count <= a;
}

static int count_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->count < a;
}

static int count_lt_pow2(const ch4coll_selin_t *in, int64_t a)
{
    (void) a;
    return in->count < pof2_floor(in->comm_size);
}

static int avg_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->avg_msg_size <= a;
}

static int avg_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->avg_msg_size < a;
}

static int total_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->total_msg_size <= a;
}

static int total_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->total_msg_size < a;
}

static int nonempty_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->nonempty_blocks <= a;
}

static int nonempty_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->nonempty_blocks < a;
}

static int commutative(const ch4coll_selin_t *in, int64_t a)
{
    return in->commutative == (int) a;
}

static int inplace(const ch4coll_selin_t *in, int64_t a)
{
    return in->inplace == (int) a;
}

static int op_builtin(const ch4coll_selin_t *in, int64_t a)
{
    return in->op_builtin == (int) a;
}

static int block_regular(const ch4coll_selin_t *in, int64_t a)
{
    return in->block_regular == (int) a;
}

static int node_consecutive(const ch4coll_selin_t *in, int64_t a)
{
    return in->node_consecutive == (int) a;
}

static int multi_threaded(const ch4coll_selin_t *in, int64_t a)
{
    return in->multi_threaded == (int) a;
}

/* MPICH: comm_size <= N * node_count (a >= comm_size is true at once,
 * which also keeps the product far from overflow) */
static int ppn_le(const ch4coll_selin_t *in, int64_t a)
{
    return a >= in->comm_size || in->comm_size <= a * in->nodes;
}

static int ppn_lt(const ch4coll_selin_t *in, int64_t a)
{
    return a > in->comm_size || in->comm_size < a * in->nodes;
}

static int hierarchy(const ch4coll_selin_t *in, int64_t a)
{
    return in->hierarchy == (int) a;
}

static int nodes_le(const ch4coll_selin_t *in, int64_t a)
{
    return in->nodes <= a;
}

static int nodes_lt(const ch4coll_selin_t *in, int64_t a)
{
    return in->nodes < a;
}

static int dexpo_le(const ch4coll_selin_t *in, int64_t a)
{
    return ch4coll_delta_expo_max(in->comm_size) <= a;
}

static int dexpo_lt(const ch4coll_selin_t *in, int64_t a)
{
    return ch4coll_delta_expo_max(in->comm_size) < a;
}

/* ------------------------------------------------------------ table */

#define LE   CH4COLL_OP_LE
#define LT   CH4COLL_OP_LT
#define EQ   CH4COLL_OP_EQ
#define INT  CH4COLL_ARG_INT
#define WORD CH4COLL_ARG_WORD
#define COMM CH4COLL_LEVEL_COMM
#define CALL CH4COLL_LEVEL_CALL

const ch4coll_pred_t ch4coll_preds[] = {
    {"collective", EQ, WORD, coll_words, CALL, coll_is,
     "the collective being called"},
    {"comm_type", EQ, WORD, comm_types, COMM, comm_type,
     "intra- or intercommunicator"},
    {"comm_size", LE, INT, NULL, COMM, size_le, "communicator size"},
    {"comm_size", LT, INT, NULL, COMM, size_lt, "communicator size"},
    {"comm_size", EQ, WORD, size_words, COMM, size_is,
     "power of two, not a power of two, or all ranks on one node"},
    {"count", LE, INT, NULL, CALL, count_le,
     "elements (reductions; reduce_scatter: all blocks) or bytes (data "
     "movement)"},
    {"count", LT, INT, NULL, CALL, count_lt, "as count<="},
    {"count", LT, WORD, pow2_word, CALL, count_lt_pow2,
     "count below the largest power of two <= comm_size"},
    {"avg_msg_size", LE, INT, NULL, CALL, avg_le,
     "bytes per rank: total_msg_size / comm_size"},
    {"avg_msg_size", LT, INT, NULL, CALL, avg_lt, "as avg_msg_size<="},
    {"total_msg_size", LE, INT, NULL, CALL, total_le,
     "bytes of all ranks together"},
    {"total_msg_size", LT, INT, NULL, CALL, total_lt, "as total_msg_size<="},
    {"nonempty_blocks", LE, INT, NULL, CALL, nonempty_le,
     "ranks whose block is not empty (allgatherv, reduce_scatter; "
     "comm_size for the other sized collectives; 0 when no rank knows "
     "every count)"},
    {"nonempty_blocks", LT, INT, NULL, CALL, nonempty_lt,
     "as nonempty_blocks<="},
    {"is_commutative", EQ, WORD, yes_no, CALL, commutative,
     "the op is commutative"},
    {"is_sendbuf_inplace", EQ, WORD, yes_no, CALL, inplace,
     "MPI_IN_PLACE (no for rooted collectives, scan, exscan)"},
    {"is_op_built_in", EQ, WORD, yes_no, CALL, op_builtin, "a predefined op"},
    {"is_block_regular", EQ, WORD, yes_no, CALL, block_regular,
     "every rank's block has the same size"},
    {"is_node_consecutive", EQ, WORD, yes_no, COMM, node_consecutive,
     "the ranks of every node are contiguous"},
    {"is_multi_threaded", EQ, WORD, yes_no, COMM, multi_threaded,
     "MPI_THREAD_MULTIPLE"},
    {"comm_avg_ppn", LE, INT, NULL, COMM, ppn_le, "comm_size <= N * nodes"},
    {"comm_avg_ppn", LT, INT, NULL, COMM, ppn_lt, "comm_size < N * nodes"},
    {"comm_hierarchy", EQ, WORD, hier_words, COMM, hierarchy,
     "parent: several nodes sharing ranks; node: one node; flat: one rank "
     "per node"},
    {"comm_nodes", LE, INT, NULL, COMM, nodes_le, "nodes spanned"},
    {"comm_nodes", LT, INT, NULL, COMM, nodes_lt, "nodes spanned"},
    {"delta_expo_max", LE, INT, NULL, COMM, dexpo_le,
     "largest gap between the exponents of comm_size's binary digits"},
    {"delta_expo_max", LT, INT, NULL, COMM, dexpo_lt, "as delta_expo_max<="},
};

const int ch4coll_npreds =
    (int) (sizeof ch4coll_preds / sizeof ch4coll_preds[0]);

/* "name=any" for every name: one row per name would only repeat. */
static const ch4coll_pred_t any_row = {"any", EQ,  CH4COLL_ARG_ANY, NULL,
                                       COMM,  any, "always true"};

static int word_index(const char *const *words, const char *w)
{
    int i;

    for (i = 0; words[i]; i++)
        if (strcmp(words[i], w) == 0)
            return i;
    return -1;
}

static int known_name(const char *name, size_t len)
{
    int i;

    for (i = 0; i < ch4coll_npreds; i++)
        if (strlen(ch4coll_preds[i].name) == len &&
            strncmp(ch4coll_preds[i].name, name, len) == 0)
            return 1;
    return 0;
}

/* Append to err (capacity len) without ever writing past it. */
static void append(char *err, size_t len, const char *fmt, const char *a,
                   const char *b, const char *c)
{
    size_t used = strlen(err);

    if (used + 1 < len)
        snprintf(err + used, len - used, fmt, a, b, c);
}

static void list_names(char *err, size_t len)
{
    int i;

    for (i = 0; i < ch4coll_npreds; i++)
        if (i == 0 || strcmp(ch4coll_preds[i].name, ch4coll_preds[i - 1].name))
            append(err, len, "%s%s%s", i ? ", " : "", ch4coll_preds[i].name,
                   "");
}

static void list_forms(const char *name, size_t nlen, char *err, size_t len)
{
    char any[96];
    int i, j;

    for (i = 0; i < ch4coll_npreds; i++) {
        const ch4coll_pred_t *p = &ch4coll_preds[i];
        const char *op = p->op == LE ? "<=" : p->op == LT ? "<" : "=";
        if (strlen(p->name) != nlen || strncmp(p->name, name, nlen) != 0)
            continue;
        if (p->argkind == INT) {
            append(err, len, " %s%s%s", p->name, op, "N");
            continue;
        }
        for (j = 0; p->words[j]; j++)
            append(err, len, " %s%s%s", p->name, op, p->words[j]);
    }
    snprintf(any, sizeof any, " %.*s=any", (int) (nlen < 80 ? nlen : 80), name);
    append(err, len, "%s%s%s", any, "", "");
}

int ch4coll_pred_parse(const char *key, int64_t *arg, char *err, size_t len)
{
    size_t nlen = strcspn(key, "<=");
    const char *rest = key + nlen;
    int op, i, w;

    if (!known_name(key, nlen)) {
        snprintf(err, len, "unknown key '%s'; valid keys: ", key);
        list_names(err, len);
        return -1;
    }
    op = strncmp(rest, "<=", 2) == 0 ? LE
         : rest[0] == '<'            ? LT
         : rest[0] == '='            ? EQ
                                     : -1;
    rest += op == LE ? 2 : 1;
    if (op == EQ && strcmp(rest, "any") == 0) {
        *arg = 0;
        return ch4coll_npreds; /* the shared any_row */
    }
    for (i = 0; op >= 0 && i < ch4coll_npreds; i++) {
        const ch4coll_pred_t *p = &ch4coll_preds[i];
        if (p->op != op || strlen(p->name) != nlen ||
            strncmp(p->name, key, nlen) != 0)
            continue;
        if (p->argkind == INT &&
            ch4coll_parse_int64(rest, 0, INT64_MAX, arg) == CH4COLL_OK)
            return i;
        if (p->argkind == WORD && (w = word_index(p->words, rest)) >= 0) {
            *arg = w;
            return i;
        }
    }
    snprintf(err, len, "invalid key '%s'; valid forms:", key);
    list_forms(key, nlen, err, len);
    return -1;
}

/* Row ch4coll_npreds is "any": keep it addressable like the others. */
const ch4coll_pred_t *ch4coll_pred_row(int row)
{
    return row == ch4coll_npreds ? &any_row : &ch4coll_preds[row];
}
