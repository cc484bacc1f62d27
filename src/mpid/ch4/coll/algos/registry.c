/*
 * registry.c - the algorithm catalog (DESIGN.md section 4).
 *
 * One row per algorithm: name, collective, builder, restrictions,
 * parameters with defaults and ranges, and a one-line description.  The CVAR
 * parser, the selector, ch4coll-info, the test sweep and doc/algorithms.md
 * read this table; adding an algorithm is adding a row (doc/adding-an-
 * algorithm.md).  Within a collective, the first applicable non-native row
 * is the built-in default until a tuning tree says otherwise.
 */
#include "algo.h"

#include <string.h>

static const char *const coll_names[CH4COLL_NCOLL] = {"bcast",
                                                      "reduce",
                                                      "allreduce",
                                                      "allgather",
                                                      "allgatherv",
                                                      "alltoall",
                                                      "alltoallv",
                                                      "gather",
                                                      "gatherv",
                                                      "scatter",
                                                      "scatterv",
                                                      "reduce_scatter",
                                                      "reduce_scatter_block",
                                                      "barrier",
                                                      "scan",
                                                      "exscan"};

static const char *const coll_cvars[CH4COLL_NCOLL] = {"BCAST",
                                                      "REDUCE",
                                                      "ALLREDUCE",
                                                      "ALLGATHER",
                                                      "ALLGATHERV",
                                                      "ALLTOALL",
                                                      "ALLTOALLV",
                                                      "GATHER",
                                                      "GATHERV",
                                                      "SCATTER",
                                                      "SCATTERV",
                                                      "REDUCE_SCATTER",
                                                      "REDUCE_SCATTER_BLOCK",
                                                      "BARRIER",
                                                      "SCAN",
                                                      "EXSCAN"};

const char *ch4coll_coll_name(int coll)
{
    return coll >= 0 && coll < CH4COLL_NCOLL ? coll_names[coll] : "?";
}

const char *ch4coll_coll_cvar(int coll)
{
    return coll >= 0 && coll < CH4COLL_NCOLL ? coll_cvars[coll] : "?";
}

int ch4coll_coll_from_name(const char *name)
{
    int c;

    for (c = 0; c < CH4COLL_NCOLL; c++)
        if (strcmp(name, coll_names[c]) == 0)
            return c;
    return -1;
}

const ch4coll_model_t ch4coll_model_default = {2e-6, 1e-10, 2.5e-10, 5e-7,
                                               5e-11};

/* the chunk parameter shared by the ring reductions */
#define CHUNK_PARAM                                                            \
    {                                                                          \
        {"chunk", 0, 0, (int64_t) 1 << 40,                                     \
         "pipeline piece in bytes (0: whole segments)"},                       \
    }

/* the parameters of the Hamiltonian-path reductions */
#define HAMPATH_PARAMS                                                         \
    {                                                                          \
        {"chunk", 65536, 1, (int64_t) 1 << 40,                                 \
         "pipeline piece in bytes (whole elements, at least one)"},            \
            {"streams", 2, 1, 2,                                               \
             "1, or 2 halves flowing in opposite directions"},                 \
    }

/* the parameter of the hierarchical compositions */
#define SMP_CHUNK                                                              \
    {                                                                          \
        {"chunk", 262144, 0, (int64_t) 1 << 40,                                \
         "pipeline piece in bytes (0: one piece)"},                            \
    }

/* the same, one piece by default: bcast and allgather are port-bound at the
 * leader when pipelined (doc/json_tuning.md) */
#define SMP_WHOLE                                                              \
    {                                                                          \
        {"chunk", 0, 0, (int64_t) 1 << 40,                                     \
         "pipeline piece in bytes (0: one piece)"},                            \
    }

#define NATIVE(c)                                                              \
    {                                                                          \
        "native", c, NULL, 0, 0, {{0}}, "the host MPI's own collective", NULL  \
    }

const ch4coll_algo_t ch4coll_algos[] = {
    {"binomial",
     CH4COLL_BCAST,
     ch4coll_bcast_binomial,
     0,
     0,
     {{0}},
     "binomial tree, whole message per edge; ceil(lg p) steps",
     ch4coll_cost_bcast_binomial},
    {"knomial",
     CH4COLL_BCAST,
     ch4coll_bcast_knomial,
     0,
     1,
     {{"radix", 4, 2, 64, "tree radix k"}},
     "k-nomial tree (radix k), whole message per edge; ceil(log_k p) levels",
     ch4coll_cost_bcast_knomial},
    {"scatter_ring_allgather",
     CH4COLL_BCAST,
     ch4coll_bcast_scatter_ring_allgather,
     0,
     0,
     {{0}},
     "binomial scatter of p pieces + ring allgather (van de Geijn)",
     ch4coll_cost_bcast_scatter_ring_allgather},
    {"scatter_rd_allgather",
     CH4COLL_BCAST,
     ch4coll_bcast_scatter_rd_allgather,
     0,
     0,
     {{0}},
     "binomial scatter of p pieces + doubling allgather; any p",
     ch4coll_cost_bcast_scatter_rd_allgather},
    {"pipelined_bintree",
     CH4COLL_BCAST,
     ch4coll_bcast_pipelined_bintree,
     0,
     1,
     {{"chunk", 65536, 1, (int64_t) 1 << 40, "pipeline chunk in bytes"}},
     "binary tree, message pipelined in chunks (NEC 3.3); any p",
     ch4coll_cost_bcast_pipelined_bintree},
    {"line",
     CH4COLL_BCAST,
     ch4coll_bcast_line,
     0,
     2,
     {{"chunk", 65536, 1, (int64_t) 1 << 40, "pipeline chunk in bytes"},
      {"streams", 1, 1, 3,
       "mesh dimensions = parts pipelined along rotated spanning trees"}},
     "chain (streams 1) or s rotated spanning trees of an s-D virtual mesh, "
     "pipelined in chunks (BG/L 3.1); any p",
     ch4coll_cost_bcast_line},
    {"two_tree",
     CH4COLL_BCAST,
     ch4coll_bcast_two_tree,
     0,
     1,
     {{"chunk", 65536, 1, (int64_t) 1 << 40, "pipeline chunk in bytes"}},
     "half the message pipelined down each of two binary trees, interior "
     "in one = leaf in the other (Sanders/Speck/Traeff 2009); any p",
     ch4coll_cost_bcast_two_tree},
    {"smp", CH4COLL_BCAST, ch4coll_bcast_smp, CH4COLL_R_NODES, 1, SMP_WHOLE,
     "bcast among node leaders (the root leads its node), binomial bcast in "
     "every node, pipelined if chunk > 0 (NEC 3.3, Table 2)",
     ch4coll_cost_bcast_smp},
    NATIVE(CH4COLL_BCAST),

    {"binomial",
     CH4COLL_REDUCE,
     ch4coll_reduce_binomial,
     0,
     0,
     {{0}},
     "binomial tree of full vectors; rank order kept for any op",
     ch4coll_cost_reduce_binomial},
    {"ring", CH4COLL_REDUCE, ch4coll_reduce_ring,
     CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES, 1, CHUNK_PARAM,
     "ring reduce-scatter, then every segment straight to the root "
     "(Rabenseifner 3.7); commutative",
     ch4coll_cost_reduce_ring},
    {"butterfly",
     CH4COLL_REDUCE,
     ch4coll_reduce_butterfly,
     0,
     0,
     {{0}},
     "recursive halving reduce-scatter + binomial gather (Rabenseifner 3.5); "
     "any p, any op, any root",
     ch4coll_cost_reduce_butterfly},
    {"binary_blocks",
     CH4COLL_REDUCE,
     ch4coll_reduce_binary_blocks,
     0,
     0,
     {{0}},
     "recursive halving in power-of-two blocks, blocks folded segment-wise "
     "into the largest, binomial gather (Rabenseifner 3.6); any p, op, root",
     ch4coll_cost_reduce_binary_blocks},
    {"hampath", CH4COLL_REDUCE, ch4coll_reduce_hampath, CH4COLL_R_COMMUTATIVE,
     2, HAMPATH_PARAMS,
     "pipelined along a Hamiltonian path of a virtual 3-D mesh ending at the "
     "root, two opposite streams on a cycle (BlueGene/L 3.1); commutative",
     ch4coll_cost_reduce_hampath},
    {"pipelined_bintree",
     CH4COLL_REDUCE,
     ch4coll_reduce_pipelined_bintree,
     0,
     1,
     {{"chunk", 65536, 1, (int64_t) 1 << 40, "pipeline chunk in bytes"}},
     "in-order binary tree, vector pipelined in chunks (NEC 3.4); rank "
     "order kept for any op, any p, any root",
     ch4coll_cost_reduce_pipelined_bintree},
    {"smp", CH4COLL_REDUCE, ch4coll_reduce_smp,
     CH4COLL_R_NODES | CH4COLL_R_ORDERED, 1, SMP_CHUNK,
     "binomial reduce to node leaders in rank order, reduce among leaders to "
     "the root, pipelined (NEC 3.4, Table 2)",
     ch4coll_cost_reduce_smp},
    NATIVE(CH4COLL_REDUCE),

    {"recursive_doubling",
     CH4COLL_ALLREDUCE,
     ch4coll_allreduce_recursive_doubling,
     0,
     0,
     {{0}},
     "exchange full vectors at distance 2^k; non-power-of-two pre/post step",
     ch4coll_cost_allreduce_recursive_doubling},
    {"butterfly",
     CH4COLL_ALLREDUCE,
     ch4coll_allreduce_butterfly,
     0,
     0,
     {{0}},
     "recursive halving reduce-scatter + doubling allgather (Rabenseifner "
     "3.5); any p, any op",
     ch4coll_cost_allreduce_butterfly},
    {"ring", CH4COLL_ALLREDUCE, ch4coll_allreduce_ring,
     CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES, 1, CHUNK_PARAM,
     "ring reduce-scatter + ring allgather (Rabenseifner 3.7), ranks in node "
     "order when nodes are not consecutive; commutative",
     ch4coll_cost_allreduce_ring},
    {"reduce_bcast",
     CH4COLL_ALLREDUCE,
     ch4coll_allreduce_reduce_bcast,
     0,
     0,
     {{0}},
     "binomial reduce to rank 0 in rank order + binomial bcast; any op",
     ch4coll_cost_allreduce_reduce_bcast},
    {"binary_blocks",
     CH4COLL_ALLREDUCE,
     ch4coll_allreduce_binary_blocks,
     0,
     0,
     {{0}},
     "recursive halving in power-of-two blocks, blocks folded segment-wise, "
     "results sent back down, doubling allgather (Rabenseifner 3.6); any p, "
     "any op",
     ch4coll_cost_allreduce_binary_blocks},
    {"hampath", CH4COLL_ALLREDUCE, ch4coll_allreduce_hampath,
     CH4COLL_R_COMMUTATIVE, 2, HAMPATH_PARAMS,
     "pipelined reduce along a Hamiltonian path, results back along it "
     "(BlueGene/L 3.1); commutative",
     ch4coll_cost_allreduce_hampath},
    {"line",
     CH4COLL_ALLREDUCE,
     ch4coll_allreduce_line,
     0,
     1,
     {{"group", 4, 2, 1024, "longest line of a phase"}},
     "phases over mixed-radix lines of <= group ranks, all-to-all in a line, "
     "folded in rank order (BG/L 3.2); any op, any p",
     ch4coll_cost_allreduce_line},
    {"smp", CH4COLL_ALLREDUCE, ch4coll_allreduce_smp,
     CH4COLL_R_NODES | CH4COLL_R_ORDERED, 1, SMP_CHUNK,
     "reduce to node leaders, allreduce among leaders, bcast in every node, "
     "pipelined (NEC 3.4, Table 2)",
     ch4coll_cost_allreduce_smp},
    NATIVE(CH4COLL_ALLREDUCE),

    {"ring",
     CH4COLL_ALLGATHER,
     ch4coll_allgather_ring,
     CH4COLL_F_NODES,
     0,
     {{0}},
     "p-1 steps passing blocks to the right neighbour (ranks in node "
     "order when nodes are not consecutive)",
     ch4coll_cost_allgather_ring},
    {"node_ring",
     CH4COLL_ALLGATHER,
     ch4coll_allgather_node_ring,
     CH4COLL_F_NODES,
     0,
     {{0}},
     "ring along the ranks sorted by node: one message into and out of "
     "each node per step (NEC 4.2)",
     ch4coll_cost_allgather_node_ring},
    {"recursive_doubling",
     CH4COLL_ALLGATHER,
     ch4coll_allgather_recursive_doubling,
     0,
     0,
     {{0}},
     "recursive doubling; non-power-of-two pre/post step",
     ch4coll_cost_allgather_recursive_doubling},
    {"bruck",
     CH4COLL_ALLGATHER,
     ch4coll_allgather_bruck,
     0,
     0,
     {{0}},
     "Bruck concatenation, ceil(lg p) steps + local rotation",
     ch4coll_cost_allgather_bruck},
    {"smp", CH4COLL_ALLGATHER, ch4coll_allgather_smp, CH4COLL_R_NODES, 1,
     SMP_WHOLE,
     "gather to node leaders, allgatherv of node blocks among leaders, bcast "
     "in every node, pipelined if chunk > 0 (NEC 4.2, Table 2); any "
     "placement",
     ch4coll_cost_allgather_smp},
    NATIVE(CH4COLL_ALLGATHER),

    {"ring",
     CH4COLL_ALLGATHERV,
     ch4coll_allgatherv_ring,
     CH4COLL_F_NODES,
     0,
     {{0}},
     "linear ring over irregular blocks; empty blocks skipped",
     ch4coll_cost_allgatherv_ring},
    {"recursive_doubling",
     CH4COLL_ALLGATHERV,
     ch4coll_allgatherv_recursive_doubling,
     0,
     0,
     {{0}},
     "recursive doubling on packed blocks; non-power-of-two pre/post step",
     ch4coll_cost_allgatherv_recursive_doubling},
    {"pipelined_ring",
     CH4COLL_ALLGATHERV,
     ch4coll_allgatherv_pipelined_ring,
     CH4COLL_F_NODES,
     1,
     {{"block", 0, 0, (int64_t) 1 << 40,
       "block size in bytes (0: automatic, Traeff et al. eq. 2)"}},
     "contributions cut into blocks of at most B bytes, pipelined around a "
     "node-ordered ring with empty ranks spread evenly (Traeff et al.); "
     "irregular counts",
     ch4coll_cost_allgatherv_pipelined_ring},
    NATIVE(CH4COLL_ALLGATHERV),

    {"pairwise",
     CH4COLL_ALLTOALL,
     ch4coll_alltoall_pairwise,
     0,
     0,
     {{0}},
     "p-1 steps: send to rank+k, receive from rank-k",
     ch4coll_cost_alltoall_pairwise},
    {"bruck",
     CH4COLL_ALLTOALL,
     ch4coll_alltoall_bruck,
     0,
     0,
     {{0}},
     "Bruck index algorithm, ceil(lg p) packed exchanges",
     ch4coll_cost_alltoall_bruck},
    {"scattered",
     CH4COLL_ALLTOALL,
     ch4coll_alltoall_scattered,
     0,
     1,
     {{"window", 8, 1, 1024, "messages in flight per direction"}},
     "all-post in pairwise order, at most window in flight",
     ch4coll_cost_alltoall_scattered},
    {"permuted",
     CH4COLL_ALLTOALL,
     ch4coll_alltoall_permuted,
     0,
     1,
     {{"per_dest", 1, 1, 64, "pieces per destination per turn"}},
     "same random destination order everywhere, different start offsets",
     ch4coll_cost_alltoall_permuted},
    NATIVE(CH4COLL_ALLTOALL),

    {"pairwise",
     CH4COLL_ALLTOALLV,
     ch4coll_alltoallv_pairwise,
     0,
     0,
     {{0}},
     "p-1 steps: send to rank+k, receive from rank-k; empty blocks skipped",
     ch4coll_cost_alltoallv_pairwise},
    {"scattered",
     CH4COLL_ALLTOALLV,
     ch4coll_alltoallv_scattered,
     0,
     1,
     {{"window", 8, 1, 1024, "messages in flight per direction"}},
     "all-post in pairwise order, at most window in flight",
     ch4coll_cost_alltoallv_scattered},
    {"permuted",
     CH4COLL_ALLTOALLV,
     ch4coll_alltoallv_permuted,
     0,
     1,
     {{"per_dest", 1, 1, 64, "pieces per destination per turn"}},
     "same random destination order everywhere, different start offsets",
     ch4coll_cost_alltoallv_permuted},
    NATIVE(CH4COLL_ALLTOALLV),

    {"binomial",
     CH4COLL_GATHER,
     ch4coll_gather_binomial,
     CH4COLL_F_NODES,
     0,
     {{0}},
     "binomial tree over node-sorted ranks (NEC 4.1), subtrees gathered "
     "and sent up at once",
     ch4coll_cost_gather_binomial},
    {"linear",
     CH4COLL_GATHER,
     ch4coll_gather_linear,
     0,
     0,
     {{0}},
     "flat tree: the root receives from every rank",
     ch4coll_cost_gather_linear},
    NATIVE(CH4COLL_GATHER),

    {"linear",
     CH4COLL_GATHERV,
     ch4coll_gatherv_linear,
     0,
     0,
     {{0}},
     "every rank sends its block straight to the root",
     ch4coll_cost_gatherv_linear},
    NATIVE(CH4COLL_GATHERV),

    {"binomial",
     CH4COLL_SCATTER,
     ch4coll_scatter_binomial,
     CH4COLL_F_NODES,
     0,
     {{0}},
     "binomial tree over node-sorted ranks (NEC 4.1), each subtree's "
     "blocks sent down at once",
     ch4coll_cost_scatter_binomial},
    {"linear",
     CH4COLL_SCATTER,
     ch4coll_scatter_linear,
     0,
     0,
     {{0}},
     "flat tree: the root sends to every rank",
     ch4coll_cost_scatter_linear},
    NATIVE(CH4COLL_SCATTER),

    {"linear",
     CH4COLL_SCATTERV,
     ch4coll_scatterv_linear,
     0,
     0,
     {{0}},
     "the root sends every block straight to its rank",
     ch4coll_cost_scatterv_linear},
    NATIVE(CH4COLL_SCATTERV),

    {"pairwise",
     CH4COLL_REDUCE_SCATTER,
     ch4coll_reduce_scatter_pairwise,
     0,
     0,
     {{0}},
     "p-1 exchange steps (rank+k / rank-k); rank order kept for any op",
     ch4coll_cost_reduce_scatter_pairwise},
    {"recursive_halving",
     CH4COLL_REDUCE_SCATTER,
     ch4coll_reduce_scatter_recursive_halving,
     CH4COLL_R_COMMUTATIVE,
     0,
     {{0}},
     "vector halving at distance p'/2..1; non-power-of-two pre/post step",
     ch4coll_cost_reduce_scatter_recursive_halving},
    {"ring", CH4COLL_REDUCE_SCATTER, ch4coll_reduce_scatter_ring,
     CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES, 1, CHUNK_PARAM,
     "p-1 ring steps to the right neighbour, blocks rotating; commutative",
     ch4coll_cost_reduce_scatter_ring},
    {"noncommutative",
     CH4COLL_REDUCE_SCATTER,
     ch4coll_reduce_scatter_noncommutative,
     0,
     0,
     {{0}},
     "halving at distance 1..p'/2 on rank-ordered groups, blocks routed to "
     "their owners; any op, any p",
     ch4coll_cost_reduce_scatter_noncommutative},
    {"smp", CH4COLL_REDUCE_SCATTER, ch4coll_reduce_scatter_smp,
     CH4COLL_R_NODES | CH4COLL_R_ORDERED, 1, SMP_CHUNK,
     "reduce to node leaders, reduce_scatter with per-node counts among "
     "leaders, scatter in every node, pipelined (NEC 3.4, Table 2)",
     ch4coll_cost_reduce_scatter_smp},
    NATIVE(CH4COLL_REDUCE_SCATTER),

    {"pairwise",
     CH4COLL_REDUCE_SCATTER_BLOCK,
     ch4coll_reduce_scatter_block_pairwise,
     0,
     0,
     {{0}},
     "p-1 exchange steps (rank+k / rank-k); rank order kept for any op",
     ch4coll_cost_reduce_scatter_block_pairwise},
    {"recursive_halving",
     CH4COLL_REDUCE_SCATTER_BLOCK,
     ch4coll_reduce_scatter_block_recursive_halving,
     CH4COLL_R_COMMUTATIVE,
     0,
     {{0}},
     "vector halving at distance p'/2..1; non-power-of-two pre/post step",
     ch4coll_cost_reduce_scatter_block_recursive_halving},
    {"ring", CH4COLL_REDUCE_SCATTER_BLOCK, ch4coll_reduce_scatter_block_ring,
     CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES, 1, CHUNK_PARAM,
     "p-1 ring steps to the right neighbour, blocks rotating; commutative",
     ch4coll_cost_reduce_scatter_block_ring},
    {"noncommutative",
     CH4COLL_REDUCE_SCATTER_BLOCK,
     ch4coll_reduce_scatter_block_noncommutative,
     0,
     0,
     {{0}},
     "halving at distance 1..p'/2 on rank-ordered groups, blocks routed to "
     "their owners; any op, any p",
     ch4coll_cost_reduce_scatter_block_noncommutative},
    {"smp", CH4COLL_REDUCE_SCATTER_BLOCK, ch4coll_reduce_scatter_block_smp,
     CH4COLL_R_NODES | CH4COLL_R_ORDERED, 1, SMP_CHUNK,
     "reduce to node leaders, reduce_scatter with per-node counts among "
     "leaders, scatter in every node, pipelined (NEC 3.4, Table 2)",
     ch4coll_cost_reduce_scatter_block_smp},
    NATIVE(CH4COLL_REDUCE_SCATTER_BLOCK),

    {"dissemination",
     CH4COLL_BARRIER,
     ch4coll_barrier_dissemination,
     0,
     0,
     {{0}},
     "ceil(lg p) rounds at distance 2^k",
     ch4coll_cost_barrier_dissemination},
    {"tree",
     CH4COLL_BARRIER,
     ch4coll_barrier_tree,
     0,
     1,
     {{"radix", 4, 2, 64, "tree radix k"}},
     "k-nomial gather of empty messages to rank 0, release down the tree",
     ch4coll_cost_barrier_tree},
    {"smp",
     CH4COLL_BARRIER,
     ch4coll_barrier_smp,
     CH4COLL_R_NODES,
     0,
     {{0}},
     "binomial fan-in to each node's leader, barrier among leaders, fan-out "
     "(NEC 3.2, Table 2)",
     ch4coll_cost_barrier_smp},
    NATIVE(CH4COLL_BARRIER),

    {"recursive_doubling",
     CH4COLL_SCAN,
     ch4coll_scan_recursive_doubling,
     0,
     0,
     {{0}},
     "partner rank XOR 2^k; ceil(lg p) steps, any op",
     ch4coll_cost_scan_recursive_doubling},
    {"linear",
     CH4COLL_SCAN,
     ch4coll_scan_linear,
     0,
     0,
     {{0}},
     "chain: rank r folds its input onto rank r-1's prefix and passes it on",
     ch4coll_cost_scan_linear},
    NATIVE(CH4COLL_SCAN),

    {"recursive_doubling",
     CH4COLL_EXSCAN,
     ch4coll_exscan_recursive_doubling,
     0,
     0,
     {{0}},
     "partner rank XOR 2^k; ceil(lg p) steps, any op",
     ch4coll_cost_exscan_recursive_doubling},
    {"linear",
     CH4COLL_EXSCAN,
     ch4coll_exscan_linear,
     0,
     0,
     {{0}},
     "chain: rank r receives its result from r-1 and passes on result op "
     "input",
     ch4coll_cost_exscan_linear},
    NATIVE(CH4COLL_EXSCAN),
};

const int ch4coll_nalgos =
    (int) (sizeof ch4coll_algos / sizeof ch4coll_algos[0]);

const ch4coll_algo_t *ch4coll_algo_find(int coll, const char *name)
{
    int i;

    for (i = 0; i < ch4coll_nalgos; i++)
        if (ch4coll_algos[i].coll == coll &&
            strcmp(ch4coll_algos[i].name, name) == 0)
            return &ch4coll_algos[i];
    return NULL;
}

int ch4coll_algo_is_native(const ch4coll_algo_t *al)
{
    return al->build == NULL;
}

int ch4coll_algo_applicable(const ch4coll_algo_t *al, const ch4coll_args_t *a,
                            const char **why)
{
    int nodes = a->loc ? a->loc->nodes : a->size;

    if ((al->restrictions & CH4COLL_R_COMMUTATIVE) && !a->commutative) {
        *why = "needs a commutative op";
        return 0;
    }
    if ((al->restrictions & CH4COLL_R_NODES) &&
        (nodes < 2 || nodes >= a->size)) {
        *why = "needs several nodes with several ranks on one";
        return 0;
    }
    if ((al->restrictions & CH4COLL_R_ORDERED) && !a->commutative &&
        !(a->loc && a->loc->consecutive)) {
        *why = "needs a commutative op or node-consecutive ranks";
        return 0;
    }
    *why = NULL;
    return 1;
}

void ch4coll_algo_default_params(const ch4coll_algo_t *al, int64_t *params)
{
    int i;

    for (i = 0; i < CH4COLL_MAX_PARAMS; i++)
        params[i] = i < al->nparams ? al->params[i].def : 0;
}
