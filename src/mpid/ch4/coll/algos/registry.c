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

/* the torus the nodes sit on (topo/torus.h): the rings and chains follow it */
#define TORUS_DEFS                                                             \
    {"torus_x", 0, 0, 4096,                                                    \
     "nodes at hosts 0, 1, ... of a torus this long in x, numbered x "         \
     "fastest: the ring or chain follows torus neighbours (0: no torus)"},     \
    {                                                                          \
        "torus_y", 0, 0, 4096, "the torus's y extent (0: 1)"                   \
    }
/* torus_trees' tree count (line.c, chain.c) */
#define TREES_DEF                                                              \
    {                                                                          \
        "trees", 0, 0, 4,                                                      \
            "at most this many link-disjoint trees (0: as many as the "        \
            "placement allows; 1: BG/L's pair, +x and -x)"                     \
    }
/* the reductions' chains and trees (chain.c): sends in flight per hop */
#define FOLD_INFLIGHT_DEF                                                      \
    {                                                                          \
        "inflight", 0, 0, 16,                                                  \
            "chunks sent on before the oldest has arrived (0: 1 where "        \
            "every hop is between torus neighbours, else 4)"                   \
    }
#define TORUS_PARAMS                                                           \
    {                                                                          \
        TORUS_DEFS                                                             \
    }

/* torus_2d's (torus_2d.c): the torus, the split, the links' window */
#define TORUS_2D_PARAMS                                                        \
    {                                                                          \
        TORUS_DEFS,                                                            \
            {"xfirst", 0, 0, 100,                                              \
             "percent of every block sent x first, the rest y first (0: the "  \
             "split that evens the busiest links, or bidir_ring where it "     \
             "loads none less)"},                                              \
        {                                                                      \
            "window", 2, 0, 16,                                                \
                "messages in flight on each link, in the order the data "      \
                "arrive (0: all at once)"                                      \
        }                                                                      \
    }
#define TORUS_2D_DESC                                                          \
    "part of every block along its x line then every column, the rest "        \
    "along its column then every x line, at once: all four torus links "       \
    "(BG/L 3.1, van de Geijn), where the ranks fill more than one x line of "  \
    "one plane, one per node; else bidir_ring round the torus"

#define TORUS_2D_RS_DESC                                                       \
    "allgather torus_2d's trees upside down, every part of every block "       \
    "folded on its way to its owner (else bidir_ring round the torus)"

/* the parameters shared by the ring reductions */
#define RING_REDUCE_PARAMS                                                     \
    {                                                                          \
        {"chunk", 0, 0, (int64_t) 1 << 40,                                     \
         "pipeline piece in bytes (0: whole segments)"},                       \
            TORUS_DEFS                                                         \
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

/* the multi-leader lanes, pipelined in at most 16 pieces (SimGrid smp,
 * p = 16..61: 256 KiB pieces within 5 % of the best of one piece and 64
 * KiB..2 MiB pieces in 30 of 36 cells; 1.08-1.18 at 512 KiB, where 128
 * KiB pieces win, doc/performance-log.md) */
#define ML_PIECES                                                              \
    {                                                                          \
        "chunk", 262144, 0, (int64_t) 1 << 40,                                 \
            "pipeline piece in bytes, at most 16 pieces (0: one piece)"        \
    }

/* allreduce multi_leader: its pieces, and how many of a node's ranks
 * lead (lanes; SimGrid smp, 32 KiB: p = 16 15.6 us with 8 lanes, 9.9
 * with 2, whose segments are not eager; from 128 KiB all 8 the fastest,
 * smp_multi_leader.c) */
#define ML_LANES_PARAMS                                                        \
    {                                                                          \
        ML_PIECES,                                                             \
        {                                                                      \
            "lanes", 0, 0, 1 << 20,                                            \
                "leaders per node (0: one per rank of the largest node)"       \
        }                                                                      \
    }

/* group_lanes: multi_leader's pieces, and the group of consecutive ranks
 * that stands for a node (8: SimGrid's fat tree at p = 96,
 * smp_multi_leader.c) */
#define GL_PARAMS                                                              \
    {                                                                          \
        ML_PIECES,                                                             \
        {                                                                      \
            "group", 8, 1, 1 << 30, "consecutive ranks per group"              \
        }                                                                      \
    }

/* bcast and reduce: one piece by default, its blocks pipeline the message
 * (SimGrid smp, p = 24-96, 512 KiB-8 MiB: one piece the fastest, 256 KiB pieces
 * 1.1-2.0x slower), and the floor of its blocks: a lane's blocks are its
 * circulant's n* on the lanes' model, fewer where they would be smaller
 * than this (p = 96, 512 KiB: 6 blocks of 10.9 KiB 38.2 us, 8 of 8 KiB,
 * eager, 111.9; smp_multi_leader.c) */
#define ML_BLOCK_PARAMS                                                        \
    {                                                                          \
        {"chunk", 0, 0, (int64_t) 1 << 40,                                     \
         "pipeline piece in bytes, at most 16 pieces (0: one piece)"},         \
        {                                                                      \
            "block", 12288, 0, (int64_t) 1 << 40,                              \
                "the smallest block of a lane in bytes (0: no floor)"          \
        }                                                                      \
    }

/* allgather(v) multi_ring: pieces of every block, each a ring of its own
 * after the one before (SimGrid smp, p = 16, 2 MiB blocks: 877.1 us in
 * one piece, 685.6 in 16; 32 KiB the best of 8 KiB-256 KiB from 32 KiB
 * to 2 MiB, 8 KiB pieces eager and 4-5x slower; multi_ring.c) */
#define MR_PIECES                                                              \
    {                                                                          \
        {"chunk", 32768, 0, (int64_t) 1 << 40,                                 \
         "pipeline piece of the largest block in bytes, at most 16 pieces "    \
         "(0: one piece)"},                                                    \
    }

/* allgather(v) line: the phases' longest line and the sends in flight. */
#define LINE_AG                                                                \
    {                                                                          \
        {"group", 4, 2, 1024, "longest line of a phase"},                      \
            {"inflight", 1, 0, 1024,                                           \
             "sends of a phase in flight at once (0: all)"},                   \
    }

/* neighbor_exchange: a limit on the sends in flight (ring.c). */
#define NE_INFLIGHT                                                            \
    {                                                                          \
        {"inflight", 0, 0, 16,                                                 \
         "sends in flight at once per rank (0: each as soon as its data is "   \
         "here)"},                                                             \
    }

#define SMP_WHOLE                                                              \
    {                                                                          \
        {"chunk", 0, 0, (int64_t) 1 << 40,                                     \
         "pipeline piece in bytes (0: one piece)"},                            \
    }

/* the host MPI's own collective, last in every collective */
#define NATIVE_ROW(c)                                                          \
    {                                                                          \
        .name = "native", .coll = c, .desc = "the host MPI's own collective"   \
    }

const ch4coll_algo_t ch4coll_algos[] = {
    {.name = "binomial",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_binomial,
     .desc = "binomial tree, whole message per edge; ceil(lg p) steps",
     .cost = ch4coll_cost_bcast_binomial},
    {.name = "knomial",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_knomial,
     .restrictions = CH4COLL_F_NODES,
     .params = {{"radix", 4, 2, 64, "tree radix k"}},
     .desc = "k-nomial tree (radix k), whole message per edge; ceil(log_k p) "
             "levels",
     .cost = ch4coll_cost_bcast_knomial},
    {.name = "scatter_ring_allgather",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_scatter_ring_allgather,
     .desc = "binomial scatter of p pieces + ring allgather (van de Geijn)",
     .cost = ch4coll_cost_bcast_scatter_ring_allgather,
     .ntags = ch4coll_ntags_bcast_scatter_ring_allgather},
    {.name = "scatter_rd_allgather",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_scatter_rd_allgather,
     .desc = "binomial scatter of p pieces + doubling allgather; any p",
     .cost = ch4coll_cost_bcast_scatter_rd_allgather,
     .ntags = ch4coll_ntags_bcast_scatter_rd_allgather},
    {.name = "pipelined_bintree",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_pipelined_bintree,
     .params = {{"chunk", 65536, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"}},
     .desc = "binary tree, message pipelined in chunks (NEC 3.3); any p",
     .cost = ch4coll_cost_bcast_pipelined_bintree,
     .ntags = ch4coll_ntags_bcast_pipelined_bintree},
    {.name = "line",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_line,
     .params =
         {{"chunk", 65536, 1, (int64_t) 1 << 40, "pipeline chunk in bytes"},
          {"streams", 1, 1, 3,
           "mesh dimensions = parts pipelined along rotated spanning trees"},
          {"inflight", 2, 1, 16, "chunks in flight to each child"}},
     .desc = "chain (streams 1) or s rotated spanning trees of an s-D virtual "
             "mesh, pipelined in chunks (BG/L 3.1); any p",
     .cost = ch4coll_cost_bcast_line,
     .ntags = ch4coll_ntags_bcast_line},
    {.name = "two_tree",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_two_tree,
     .params = {{"chunk", 65536, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"}},
     .desc =
         "half the message pipelined down each of two binary trees, interior "
         "in one = leaf in the other (Sanders/Speck/Traeff 2009); any p",
     .cost = ch4coll_cost_bcast_two_tree,
     .ntags = ch4coll_ntags_bcast_two_tree},
    {.name = "circulant",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_circulant,
     .params = {{"blocks", 0, 0, (int64_t) 1 << 20,
                 "pipeline blocks n (0: n* = sqrt((q-1) beta m / alpha) on "
                 "MPIR_CVAR_CH4COLL_MACHINE's model or the default)"}},
     .desc = "n blocks in n-1+ceil(lg p) rounds on a circulant graph, "
             "round-optimal (Traeff 2025); any p, any root",
     .cost = ch4coll_cost_bcast_circulant},
    {.name = "smp",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_F_COMPOSED,
     .params = SMP_WHOLE,
     .desc = "bcast among node leaders (the root leads its node), binomial "
             "bcast in every node, pipelined if chunk > 0 (NEC 3.3, Table 2)",
     .cost = ch4coll_cost_bcast_smp},
    {.name = "multi_leader",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_multi_leader,
     .params = ML_BLOCK_PARAMS,
     .restrictions = CH4COLL_R_NODES | CH4COLL_F_COMPOSED,
     .desc = "a leader per local rank on its share of the message, block by "
             "block: from the root in its node, circulant between nodes, all "
             "lanes at once, on to the node's other ranks",
     .cost = ch4coll_cost_bcast_multi_leader,
     .ntags = ch4coll_ntags_multi_leader},
    {.name = "bidir_chain",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_bidir_chain,
     .params = {{"chunk", 16384, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                {"inflight", 4, 1, 16, "chunks in flight to each child"},
                TORUS_DEFS},
     .desc = "half the message pipelined down the chain of relative ranks "
             "1..p-1, half down p-1..1, both ways round the cycle at once "
             "(BG/L 3.1's two streams), or round a cycle of torus "
             "neighbours; any p",
     .cost = ch4coll_cost_bcast_bidir_chain,
     .ntags = ch4coll_ntags_bcast_bidir_chain},
    {.name = "torus_trees",
     .coll = CH4COLL_BCAST,
     .build = ch4coll_bcast_torus_trees,
     .params = {{"chunk", 12288, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                {"inflight", 1, 1, 16, "chunks in flight to each child"},
                TORUS_DEFS,
                TREES_DEF},
     .desc = "the message in equal parts pipelined down spanning trees of "
             "the torus that share no link (BG/L 3.1): as many as the "
             "placement allows (Edmonds: 2 with a partial x line, 3 whole x "
             "lines, 4 a whole plane), where the ranks fill more than one x "
             "line, one per node; else bidir_chain round the torus; any p",
     .cost = ch4coll_cost_bcast_torus_trees,
     .ntags = ch4coll_ntags_bcast_torus_trees},
    NATIVE_ROW(CH4COLL_BCAST),

    {.name = "binomial",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_binomial,
     .desc = "binomial tree of full vectors; rank order kept for any op",
     .cost = ch4coll_cost_reduce_binomial,
     .ntags = ch4coll_ntags_reduce_binomial},
    {.name = "knomial",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_knomial,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = {{"radix", 4, 2, 64, "tree radix k"}},
     .desc = "k-nomial tree (radix k) of full vectors, the bcast's upside "
             "down; ceil(log_k p) levels; commutative",
     .cost = ch4coll_cost_reduce_knomial},
    {.name = "ring",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc = "ring reduce-scatter, then every segment straight to the root "
             "(Rabenseifner 3.7); commutative",
     .cost = ch4coll_cost_reduce_ring,
     .ntags = ch4coll_ntags_ring_reduce},
    {.name = "butterfly",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_butterfly,
     .desc = "recursive halving reduce-scatter + binomial gather (Rabenseifner "
             "3.5); any p, any op, any root",
     .cost = ch4coll_cost_reduce_butterfly,
     .ntags = ch4coll_ntags_reduce_butterfly},
    {.name = "binary_blocks",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_binary_blocks,
     .desc = "recursive halving in power-of-two blocks, blocks folded "
             "segment-wise into the largest, binomial gather (Rabenseifner "
             "3.6); any p, op, root",
     .cost = ch4coll_cost_reduce_binary_blocks,
     .ntags = ch4coll_ntags_binary_blocks},
    {.name = "hampath",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_hampath,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = HAMPATH_PARAMS,
     .desc = "pipelined along a Hamiltonian path of a virtual 3-D mesh ending "
             "at the root, two opposite streams on a cycle (BlueGene/L 3.1); "
             "commutative",
     .cost = ch4coll_cost_reduce_hampath,
     .ntags = ch4coll_ntags_hampath},
    {.name = "pipelined_bintree",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_pipelined_bintree,
     .params = {{"chunk", 65536, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"}},
     .desc = "in-order binary tree, vector pipelined in chunks (NEC 3.4); rank "
             "order kept for any op, any p, any root",
     .cost = ch4coll_cost_reduce_pipelined_bintree,
     .ntags = ch4coll_ntags_reduce_pipelined_bintree},
    {.name = "smp",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_R_ORDERED | CH4COLL_F_COMPOSED,
     .params = SMP_CHUNK,
     .desc = "binomial reduce to node leaders in rank order, reduce among "
             "leaders to the root, pipelined (NEC 3.4, Table 2)",
     .cost = ch4coll_cost_reduce_smp},
    {.name = "multi_leader",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_multi_leader,
     .params = ML_BLOCK_PARAMS,
     .restrictions =
         CH4COLL_R_NODES | CH4COLL_R_COMMUTATIVE | CH4COLL_F_COMPOSED,
     .desc = "a leader per local rank on its share of the vector, block by "
             "block: folded in every node, circulant reduce between nodes, "
             "all lanes at once, on to the root",
     .cost = ch4coll_cost_reduce_multi_leader,
     .ntags = ch4coll_ntags_multi_leader},
    {.name = "circulant",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_circulant,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = {{"blocks", 0, 0, (int64_t) 1 << 20,
                 "pipeline blocks n (0: n* = sqrt((q-1)(beta+gamma) m / "
                 "alpha) on MPIR_CVAR_CH4COLL_MACHINE's model or the "
                 "default)"}},
     .desc = "the circulant broadcast run backwards with the folds: "
             "n-1+ceil(lg p) rounds (Traeff 2025); commutative",
     .cost = ch4coll_cost_reduce_circulant},
    {.name = "chain",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_chain,
     .params = {{"chunk", 65536, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                TORUS_DEFS,
                FOLD_INFLIGHT_DEF},
     .desc = "chain of consecutive ranks (or of torus neighbours) ending at "
             "the root, rank order for non-commutative ops, pipelined in "
             "chunks, a fold at every hop (bcast line reversed; Open MPI's "
             "pipeline reduce)",
     .cost = ch4coll_cost_reduce_chain,
     .ntags = ch4coll_ntags_reduce_chain},
    {.name = "bidir_chain",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_bidir_chain,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = {{"chunk", 16384, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                TORUS_DEFS,
                FOLD_INFLIGHT_DEF},
     .desc = "half the vector reduced along the chain of relative ranks "
             "p-1..1 into the root, half along 1..p-1, both ways round the "
             "cycle (or a cycle of torus neighbours) at once, pipelined in "
             "chunks (BG/L 3.1's two streams); commutative",
     .cost = ch4coll_cost_reduce_bidir_chain,
     .ntags = ch4coll_ntags_reduce_bidir_chain},
    {.name = "torus_trees",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_torus_trees,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = {{"chunk", 12288, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                TORUS_DEFS,
                TREES_DEF,
                FOLD_INFLIGHT_DEF},
     .desc = "the vector in equal parts folded up bcast torus_trees' "
             "spanning trees of the torus, which share no link, pipelined in "
             "chunks (BG/L 3.1), where the ranks fill more than one x line, "
             "one per node; else bidir_chain; commutative",
     .cost = ch4coll_cost_reduce_torus_trees,
     .ntags = ch4coll_ntags_reduce_torus_trees},
    {.name = "swing",
     .coll = CH4COLL_REDUCE,
     .build = ch4coll_reduce_swing,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc = "binary_blocks with Swing's partners in every power-of-two "
             "block, the gather to the root along Swing's tree: fewer hops on "
             "a ring or torus (De Sensi et al. 2024); commutative",
     .cost = ch4coll_cost_reduce_binary_blocks,
     .ntags = ch4coll_ntags_binary_blocks},
    NATIVE_ROW(CH4COLL_REDUCE),

    {.name = "recursive_doubling",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_recursive_doubling,
     .desc = "exchange full vectors at distance 2^k; non-power-of-two pre/post "
             "step",
     .cost = ch4coll_cost_allreduce_recursive_doubling},
    {.name = "butterfly",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_butterfly,
     .desc = "recursive halving reduce-scatter + doubling allgather "
             "(Rabenseifner 3.5); any p, any op",
     .cost = ch4coll_cost_allreduce_butterfly},
    {.name = "direct",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_direct,
     .params = {{"window", 0, 0, 1024,
                 "reduce-scatter messages in flight per direction (0: all)"}},
     .desc = "reduce-scatter and allgather each as one exchange of segments "
             "with every rank at once (Rabenseifner 3.7 without steps, "
             "SMPI's rab2 shape); any op, any p",
     .cost = ch4coll_cost_allreduce_direct,
     .ntags = ch4coll_ntags_direct},
    {.name = "ring",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc = "ring reduce-scatter + ring allgather (Rabenseifner 3.7), ranks "
             "in node order when nodes are not consecutive; commutative",
     .cost = ch4coll_cost_allreduce_ring,
     .ntags = ch4coll_ntags_ring_reduce},
    {.name = "bidir_ring",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_bidir_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc = "the ring allreduce both ways at once, half of every segment "
             "each way; commutative",
     .cost = ch4coll_cost_allreduce_bidir_ring,
     .ntags = ch4coll_ntags_bidir_ring_reduce},
    {.name = "torus_2d",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_torus_2d,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = TORUS_2D_PARAMS,
     .desc = TORUS_2D_RS_DESC " then back down the trees; commutative",
     .cost = ch4coll_cost_allreduce_torus_2d,
     .ntags = ch4coll_ntags_torus_2d_reduce},
    {.name = "reduce_bcast",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_reduce_bcast,
     .desc = "binomial reduce to rank 0 in rank order + binomial bcast; any op",
     .cost = ch4coll_cost_allreduce_reduce_bcast},
    {.name = "binary_blocks",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_binary_blocks,
     .desc = "recursive halving in power-of-two blocks, blocks folded "
             "segment-wise, results sent back down, doubling allgather "
             "(Rabenseifner 3.6); any p, any op",
     .cost = ch4coll_cost_allreduce_binary_blocks,
     .ntags = ch4coll_ntags_binary_blocks},
    {.name = "circulant",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_circulant,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc = "circulant reduce-scatter, then circulant allgather of the p "
             "blocks: 2 ceil(lg p) rounds, 2(p-1)/p m bytes (Traeff 2025); "
             "commutative",
     .cost = ch4coll_cost_allreduce_circulant,
     .ntags = ch4coll_ntags_allreduce_circulant},
    {.name = "hampath",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_hampath,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = HAMPATH_PARAMS,
     .desc = "pipelined reduce along a Hamiltonian path, results back along it "
             "(BlueGene/L 3.1); commutative",
     .cost = ch4coll_cost_allreduce_hampath,
     .ntags = ch4coll_ntags_hampath},
    {.name = "line",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_line,
     .params = {{"group", 4, 2, 1024, "longest line of a phase"}},
     .desc = "phases over mixed-radix lines of <= group ranks, all-to-all in a "
             "line, folded in rank order (BG/L 3.2); a p with a prime factor "
             "above group folds its ranks over onto the largest p' without "
             "one first; any op, any p",
     .cost = ch4coll_cost_allreduce_line},
    {.name = "smp",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_R_ORDERED | CH4COLL_F_COMPOSED,
     .params = SMP_CHUNK,
     .desc = "reduce to node leaders, allreduce among leaders, bcast in every "
             "node, pipelined (NEC 3.4, Table 2)",
     .cost = ch4coll_cost_allreduce_smp},
    {.name = "torus_trees",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_torus_trees,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .params = {{"chunk", 12288, 1, (int64_t) 1 << 40,
                 "pipeline chunk in bytes"},
                TORUS_DEFS,
                TREES_DEF,
                FOLD_INFLIGHT_DEF},
     .desc = "reduce torus_trees to the first rank of the middle x line, "
             "each chunk's result sent back down the same trees as it is "
             "ready (BG/L 3.1), where the ranks fill more than one x line, "
             "one per node; else the ring round the torus, pipelined in "
             "chunks; commutative",
     .cost = ch4coll_cost_allreduce_torus_trees,
     .ntags = ch4coll_ntags_allreduce_torus_trees},
    {.name = "multi_leader",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_multi_leader,
     .params = ML_LANES_PARAMS,
     .restrictions =
         CH4COLL_R_NODES | CH4COLL_R_COMMUTATIVE | CH4COLL_F_COMPOSED,
     .desc = "a leader per local rank (fewer where their shares would be "
             "eager): reduce-scatter in every node, one allreduce between "
             "nodes per leader on its share, all at once, allgather in every "
             "node",
     .cost = ch4coll_cost_allreduce_multi_leader,
     .ntags = ch4coll_ntags_multi_leader},
    {.name = "swing",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_swing,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc = "binary_blocks with Swing's partners in every power-of-two "
             "block: distances 1, 1, 3, 5, 11, ... alternating in direction, "
             "fewer hops on a ring or torus (De Sensi et al. 2024); "
             "commutative",
     .cost = ch4coll_cost_allreduce_binary_blocks,
     .ntags = ch4coll_ntags_binary_blocks},
    {.name = "group_lanes",
     .coll = CH4COLL_ALLREDUCE,
     .build = ch4coll_allreduce_group_lanes,
     .params = GL_PARAMS,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_COMPOSED,
     .desc = "multi_leader on groups of consecutive ranks in place of nodes: "
             "reduce-scatter in every group, one allreduce between groups "
             "per local rank on its share, all at once, allgather in every "
             "group; for one rank per node where a switch holds consecutive "
             "ranks",
     .cost = ch4coll_cost_allreduce_group_lanes,
     .ntags = ch4coll_ntags_group_lanes},
    NATIVE_ROW(CH4COLL_ALLREDUCE),

    {.name = "ring",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_PARAMS,
     .desc = "p-1 steps passing blocks to the right neighbour (ranks in node "
             "order when nodes are not consecutive)",
     .cost = ch4coll_cost_allgather_ring,
     .ntags = ch4coll_ntags_allgather_ring},
    {.name = "bidir_ring",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_bidir_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_PARAMS,
     .desc = "the ring both ways at once, half of every block each way: "
             "each link direction carries half (torus links, full duplex)",
     .cost = ch4coll_cost_allgather_bidir_ring,
     .ntags = ch4coll_ntags_bidir_ring},
    {.name = "torus_2d",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_torus_2d,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_2D_PARAMS,
     .desc = TORUS_2D_DESC,
     .cost = ch4coll_cost_allgather_torus_2d,
     .ntags = ch4coll_ntags_torus_2d},
    {.name = "neighbor_exchange",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_neighbor_exchange,
     .restrictions = CH4COLL_F_NODES,
     .params = NE_INFLIGHT,
     .desc = "pairs of ring neighbours swap blocks, then floor(p/2) - 1 steps "
             "alternately across and inside the pairs, two blocks each (Chen "
             "et al.); odd p: the last group is a triple",
     .cost = ch4coll_cost_allgather_neighbor_exchange,
     .ntags = ch4coll_ntags_neighbor_exchange},
    {.name = "multi_ring",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_multi_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = MR_PIECES,
     .desc = "one ring between nodes per local rank, all at once, each block "
             "passed on inside the node as it arrives (multi-leader): the "
             "node's link carries a stream per local rank",
     .cost = ch4coll_cost_allgather_multi_ring,
     .ntags = ch4coll_ntags_multi_ring},
    {.name = "linear",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_linear,
     .desc = "every rank sends its block straight to every other, all at "
             "once, in rank + k order: one latency where a host injects many "
             "messages at once",
     .cost = ch4coll_cost_allgather_linear},
    {.name = "recursive_doubling",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_recursive_doubling,
     .desc = "recursive doubling; non-power-of-two pre/post step",
     .cost = ch4coll_cost_allgather_recursive_doubling},
    {.name = "bruck",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_bruck,
     .params = {{"steps", 0, 0, 64,
                 "at most s steps: radix the least k with k^s >= p (2: a 2-D "
                 "mesh, 1: linear; 0: radix 2, ceil(lg p) steps)"}},
     .desc = "Bruck concatenation (radix k, k-1 messages per step at once), "
             "ceil(log_k p) steps + local rotation; any p",
     .cost = ch4coll_cost_allgather_bruck},
    {.name = "circulant",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_circulant,
     .desc = "p broadcasts of one block on a circulant graph (Traeff 2025): "
             "ceil(lg p) rounds, (p-1)/p of the data, no rotation; any p",
     .cost = ch4coll_cost_allgather_circulant,
     .ntags = ch4coll_ntags_circulant},
    {.name = "smp",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_F_COMPOSED,
     .params = SMP_WHOLE,
     .desc = "gather to node leaders, allgatherv of node blocks among leaders, "
             "bcast in every node, pipelined if chunk > 0 (NEC 4.2, Table 2); "
             "any placement",
     .cost = ch4coll_cost_allgather_smp},
    {.name = "line",
     .coll = CH4COLL_ALLGATHER,
     .build = ch4coll_allgather_line,
     .params = LINE_AG,
     .desc = "phases over mixed-radix lines of <= group ranks, each line's "
             "blocks exchanged in place, one send at a time (BG/L 3.2; a "
             "3-D mesh at p = 24); a p with a prime factor above group folds "
             "its ranks over onto the largest p' without one first; any p, "
             "no rotation",
     .cost = ch4coll_cost_allgather_line},
    NATIVE_ROW(CH4COLL_ALLGATHER),

    {.name = "ring",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_PARAMS,
     .desc = "linear ring over irregular blocks; empty blocks skipped",
     .cost = ch4coll_cost_allgatherv_ring,
     .ntags = ch4coll_ntags_allgather_ring},
    {.name = "bidir_ring",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_bidir_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_PARAMS,
     .desc = "the ring both ways at once, half of every block each way; "
             "irregular counts, empty halves skipped",
     .cost = ch4coll_cost_allgatherv_bidir_ring,
     .ntags = ch4coll_ntags_bidir_ring},
    {.name = "torus_2d",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_torus_2d,
     .restrictions = CH4COLL_F_NODES,
     .params = TORUS_2D_PARAMS,
     .desc = TORUS_2D_DESC,
     .cost = ch4coll_cost_allgatherv_torus_2d,
     .ntags = ch4coll_ntags_torus_2d},
    {.name = "neighbor_exchange",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_neighbor_exchange,
     .restrictions = CH4COLL_F_NODES,
     .params = NE_INFLIGHT,
     .desc = "pairs of ring neighbours swap blocks, then floor(p/2) - 1 steps "
             "alternately across and inside the pairs; irregular counts, "
             "empty blocks skipped",
     .cost = ch4coll_cost_allgatherv_neighbor_exchange,
     .ntags = ch4coll_ntags_neighbor_exchange},
    {.name = "multi_ring",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_multi_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = MR_PIECES,
     .desc = "one ring between nodes per local rank, each block passed on "
             "inside the node as it arrives; any node sizes, empty blocks "
             "skipped",
     .cost = ch4coll_cost_allgatherv_multi_ring,
     .ntags = ch4coll_ntags_multi_ring},
    {.name = "linear",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_linear,
     .desc = "every rank sends its block straight to every other, all at "
             "once, in rank + k order; empty blocks skipped",
     .cost = ch4coll_cost_allgatherv_linear},
    {.name = "recursive_doubling",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_recursive_doubling,
     .desc =
         "recursive doubling on packed blocks; non-power-of-two pre/post step",
     .cost = ch4coll_cost_allgatherv_recursive_doubling},
    {.name = "bruck",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_bruck,
     .params = {{"steps", 0, 0, 64,
                 "at most s steps: radix the least k with k^s >= p (2: a 2-D "
                 "mesh, 1: linear; 0: radix 2, ceil(lg p) steps)"}},
     .desc = "Bruck concatenation on packed blocks (radix k), ceil(log_k p) "
             "steps: a "
             "large block crosses ceil(lg p) messages, not p-1; irregular "
             "counts, empty steps skipped",
     .cost = ch4coll_cost_allgatherv_bruck},
    {.name = "pipelined_ring",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_pipelined_ring,
     .restrictions = CH4COLL_F_NODES,
     .params = {{"block", 0, 0, (int64_t) 1 << 40,
                 "block size in bytes (0: automatic, Traeff et al. eq. 2)"}},
     .desc = "contributions cut into blocks of at most B bytes, pipelined "
             "around a node-ordered ring with empty ranks spread evenly "
             "(Traeff et al.); irregular counts",
     .cost = ch4coll_cost_allgatherv_pipelined_ring,
     .ntags = ch4coll_ntags_allgatherv_pipelined_ring},
    {.name = "circulant",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_circulant,
     .params = {{"blocks", 0, 0, (int64_t) 1 << 20,
                 "blocks n per contribution (0: automatic, from 1 for even "
                 "contributions to the bcast's n* when one dominates, on "
                 "MPIR_CVAR_CH4COLL_MACHINE's model or the default)"}},
     .desc = "p broadcasts of n blocks on one circulant graph (Traeff 2025): "
             "n-1+ceil(lg p) rounds, one packed message per rank and round; "
             "irregular counts, any p",
     .cost = ch4coll_cost_allgatherv_circulant},
    {.name = "line",
     .coll = CH4COLL_ALLGATHERV,
     .build = ch4coll_allgatherv_line,
     .params = LINE_AG,
     .desc = "allgather line over irregular blocks: each line's blocks as one "
             "message, in place when this rank's displacements are packed in "
             "rank order, else through a packed scratch copy; empty ranges "
             "skipped",
     .cost = ch4coll_cost_allgatherv_line},
    NATIVE_ROW(CH4COLL_ALLGATHERV),

    {.name = "pairwise",
     .coll = CH4COLL_ALLTOALL,
     .build = ch4coll_alltoall_pairwise,
     .desc = "p-1 steps: send to rank+k, receive from rank-k",
     .cost = ch4coll_cost_alltoall_pairwise},
    {.name = "bruck",
     .coll = CH4COLL_ALLTOALL,
     .build = ch4coll_alltoall_bruck,
     .params = {{"steps", 0, 0, 64,
                 "at most s steps: radix the least k with k^s >= p (2: a 2-D "
                 "mesh, 1: linear; 0: radix 2, ceil(lg p) steps)"}},
     .desc = "Bruck index algorithm (radix k), ceil(log_k p) steps of k-1 "
             "packed exchanges at once; any p",
     .cost = ch4coll_cost_alltoall_bruck},
    {.name = "scattered",
     .coll = CH4COLL_ALLTOALL,
     .build = ch4coll_alltoall_scattered,
     .params = {{"window", 8, 1, 1024, "messages in flight per direction"}},
     .desc = "all-post in pairwise order, at most window in flight",
     .cost = ch4coll_cost_alltoall_scattered},
    {.name = "permuted",
     .coll = CH4COLL_ALLTOALL,
     .build = ch4coll_alltoall_permuted,
     .params = {{"per_dest", 1, 1, 64, "pieces per destination per turn"}},
     .desc =
         "same random destination order everywhere, different start offsets",
     .cost = ch4coll_cost_alltoall_permuted,
     .ntags = ch4coll_ntags_alltoall_permuted},
    NATIVE_ROW(CH4COLL_ALLTOALL),

    {.name = "pairwise",
     .coll = CH4COLL_ALLTOALLV,
     .build = ch4coll_alltoallv_pairwise,
     .desc =
         "p-1 steps: send to rank+k, receive from rank-k; empty blocks skipped",
     .cost = ch4coll_cost_alltoallv_pairwise},
    {.name = "scattered",
     .coll = CH4COLL_ALLTOALLV,
     .build = ch4coll_alltoallv_scattered,
     .params = {{"window", 8, 1, 1024, "messages in flight per direction"}},
     .desc = "all-post in pairwise order, at most window in flight",
     .cost = ch4coll_cost_alltoallv_scattered},
    {.name = "permuted",
     .coll = CH4COLL_ALLTOALLV,
     .build = ch4coll_alltoallv_permuted,
     .params = {{"per_dest", 1, 1, 64, "pieces per destination per turn"}},
     .desc =
         "same random destination order everywhere, different start offsets",
     .cost = ch4coll_cost_alltoallv_permuted,
     .ntags = ch4coll_ntags_alltoall_permuted},
    NATIVE_ROW(CH4COLL_ALLTOALLV),

    {.name = "binomial",
     .coll = CH4COLL_GATHER,
     .build = ch4coll_gather_binomial,
     .restrictions = CH4COLL_F_NODES,
     .desc = "binomial tree over node-sorted ranks (NEC 4.1), subtrees "
             "gathered and sent up at once",
     .cost = ch4coll_cost_gather_binomial},
    {.name = "linear",
     .coll = CH4COLL_GATHER,
     .build = ch4coll_gather_linear,
     .desc = "flat tree: the root receives from every rank",
     .cost = ch4coll_cost_gather_linear},
    NATIVE_ROW(CH4COLL_GATHER),

    {.name = "linear",
     .coll = CH4COLL_GATHERV,
     .build = ch4coll_gatherv_linear,
     .desc = "every rank sends its block straight to the root",
     .cost = ch4coll_cost_gatherv_linear},
    NATIVE_ROW(CH4COLL_GATHERV),

    {.name = "binomial",
     .coll = CH4COLL_SCATTER,
     .build = ch4coll_scatter_binomial,
     .restrictions = CH4COLL_F_NODES,
     .desc = "binomial tree over node-sorted ranks (NEC 4.1), each subtree's "
             "blocks sent down at once",
     .cost = ch4coll_cost_scatter_binomial},
    {.name = "linear",
     .coll = CH4COLL_SCATTER,
     .build = ch4coll_scatter_linear,
     .desc = "flat tree: the root sends to every rank",
     .cost = ch4coll_cost_scatter_linear},
    NATIVE_ROW(CH4COLL_SCATTER),

    {.name = "linear",
     .coll = CH4COLL_SCATTERV,
     .build = ch4coll_scatterv_linear,
     .desc = "the root sends every block straight to its rank",
     .cost = ch4coll_cost_scatterv_linear},
    NATIVE_ROW(CH4COLL_SCATTERV),

    {.name = "pairwise",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_pairwise,
     .desc = "p-1 exchange steps (rank+k / rank-k); rank order kept for any op",
     .cost = ch4coll_cost_reduce_scatter_pairwise},
    {.name = "recursive_halving",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_recursive_halving,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc =
         "vector halving at distance p'/2..1; non-power-of-two pre/post step",
     .cost = ch4coll_cost_reduce_scatter_recursive_halving},
    {.name = "ring",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc =
         "p-1 ring steps to the right neighbour, blocks rotating; commutative",
     .cost = ch4coll_cost_reduce_scatter_ring,
     .ntags = ch4coll_ntags_ring_reduce},
    {.name = "bidir_ring",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_bidir_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc = "the ring both ways at once, half of every block each way; "
             "commutative",
     .cost = ch4coll_cost_reduce_scatter_bidir_ring,
     .ntags = ch4coll_ntags_bidir_ring_reduce},
    {.name = "torus_2d",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_torus_2d,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = TORUS_2D_PARAMS,
     .desc = TORUS_2D_RS_DESC "; commutative",
     .cost = ch4coll_cost_reduce_scatter_torus_2d,
     .ntags = ch4coll_ntags_torus_2d_reduce},
    {.name = "noncommutative",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_noncommutative,
     .params = {{"permute", 1, 0, 1,
                 "1: units in mirror order from the start, no routing step; "
                 "0: natural order, blocks routed at the end"}},
     .desc = "halving at distance 1..p'/2 on rank-ordered groups; units "
             "permuted first or blocks routed last; any op, any p",
     .cost = ch4coll_cost_reduce_scatter_noncommutative,
     .ntags = ch4coll_ntags_noncommutative},
    {.name = "smp",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_R_ORDERED | CH4COLL_F_COMPOSED,
     .params = SMP_CHUNK,
     .desc =
         "reduce to node leaders, reduce_scatter with per-node counts among "
         "leaders, scatter in every node, pipelined (NEC 3.4, Table 2)",
     .cost = ch4coll_cost_reduce_scatter_smp},
    {.name = "circulant",
     .coll = CH4COLL_REDUCE_SCATTER,
     .build = ch4coll_reduce_scatter_circulant,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc = "the one-block circulant allgather backwards: ceil(lg p) "
             "rounds, (p-1)/p of the vector each way (Traeff 2025); "
             "commutative",
     .cost = ch4coll_cost_reduce_scatter_circulant,
     .ntags = ch4coll_ntags_circulant},
    NATIVE_ROW(CH4COLL_REDUCE_SCATTER),

    {.name = "pairwise",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_pairwise,
     .desc = "p-1 exchange steps (rank+k / rank-k); rank order kept for any op",
     .cost = ch4coll_cost_reduce_scatter_block_pairwise},
    {.name = "recursive_halving",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_recursive_halving,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc =
         "vector halving at distance p'/2..1; non-power-of-two pre/post step",
     .cost = ch4coll_cost_reduce_scatter_block_recursive_halving},
    {.name = "ring",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc =
         "p-1 ring steps to the right neighbour, blocks rotating; commutative",
     .cost = ch4coll_cost_reduce_scatter_block_ring,
     .ntags = ch4coll_ntags_ring_reduce},
    {.name = "bidir_ring",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_bidir_ring,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = RING_REDUCE_PARAMS,
     .desc = "the ring both ways at once, half of every block each way; "
             "commutative",
     .cost = ch4coll_cost_reduce_scatter_block_bidir_ring,
     .ntags = ch4coll_ntags_bidir_ring_reduce},
    {.name = "torus_2d",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_torus_2d,
     .restrictions = CH4COLL_R_COMMUTATIVE | CH4COLL_F_NODES,
     .params = TORUS_2D_PARAMS,
     .desc = TORUS_2D_RS_DESC "; commutative",
     .cost = ch4coll_cost_reduce_scatter_block_torus_2d,
     .ntags = ch4coll_ntags_torus_2d_reduce},
    {.name = "noncommutative",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_noncommutative,
     .params = {{"permute", 1, 0, 1,
                 "1: units in mirror order from the start, no routing step; "
                 "0: natural order, blocks routed at the end"}},
     .desc = "halving at distance 1..p'/2 on rank-ordered groups; units "
             "permuted first or blocks routed last; any op, any p",
     .cost = ch4coll_cost_reduce_scatter_block_noncommutative,
     .ntags = ch4coll_ntags_noncommutative},
    {.name = "smp",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_R_ORDERED | CH4COLL_F_COMPOSED,
     .params = SMP_CHUNK,
     .desc =
         "reduce to node leaders, reduce_scatter with per-node counts among "
         "leaders, scatter in every node, pipelined (NEC 3.4, Table 2)",
     .cost = ch4coll_cost_reduce_scatter_block_smp},
    {.name = "circulant",
     .coll = CH4COLL_REDUCE_SCATTER_BLOCK,
     .build = ch4coll_reduce_scatter_block_circulant,
     .restrictions = CH4COLL_R_COMMUTATIVE,
     .desc = "the one-block circulant allgather backwards: ceil(lg p) "
             "rounds, (p-1)/p of the vector each way (Traeff 2025); "
             "commutative",
     .cost = ch4coll_cost_reduce_scatter_block_circulant,
     .ntags = ch4coll_ntags_circulant},
    NATIVE_ROW(CH4COLL_REDUCE_SCATTER_BLOCK),

    {.name = "dissemination",
     .coll = CH4COLL_BARRIER,
     .build = ch4coll_barrier_dissemination,
     .desc = "ceil(lg p) rounds at distance 2^k",
     .cost = ch4coll_cost_barrier_dissemination,
     .ntags = ch4coll_ntags_barrier_dissemination},
    {.name = "tree",
     .coll = CH4COLL_BARRIER,
     .build = ch4coll_barrier_tree,
     .params = {{"radix", 4, 2, 64, "tree radix k"}},
     .desc =
         "k-nomial gather of empty messages to rank 0, release down the tree",
     .cost = ch4coll_cost_barrier_tree},
    {.name = "smp",
     .coll = CH4COLL_BARRIER,
     .build = ch4coll_barrier_smp,
     .restrictions = CH4COLL_R_NODES | CH4COLL_F_COMPOSED,
     .desc = "binomial fan-in to each node's leader, barrier among leaders, "
             "fan-out (NEC 3.2, Table 2)",
     .cost = ch4coll_cost_barrier_smp},
    NATIVE_ROW(CH4COLL_BARRIER),

    {.name = "recursive_doubling",
     .coll = CH4COLL_SCAN,
     .build = ch4coll_scan_recursive_doubling,
     .desc = "partner rank XOR 2^k; ceil(lg p) steps, any op",
     .cost = ch4coll_cost_scan_recursive_doubling},
    {.name = "linear",
     .coll = CH4COLL_SCAN,
     .build = ch4coll_scan_linear,
     .desc = "chain: rank r folds its input onto rank r-1's prefix and passes "
             "it on",
     .cost = ch4coll_cost_scan_linear},
    NATIVE_ROW(CH4COLL_SCAN),

    {.name = "recursive_doubling",
     .coll = CH4COLL_EXSCAN,
     .build = ch4coll_exscan_recursive_doubling,
     .desc = "partner rank XOR 2^k; ceil(lg p) steps, any op",
     .cost = ch4coll_cost_exscan_recursive_doubling},
    {.name = "linear",
     .coll = CH4COLL_EXSCAN,
     .build = ch4coll_exscan_linear,
     .desc = "chain: rank r receives its result from r-1 and passes on result "
             "op input",
     .cost = ch4coll_cost_exscan_linear},
    NATIVE_ROW(CH4COLL_EXSCAN),
};

const int ch4coll_nalgos =
    (int) (sizeof ch4coll_algos / sizeof ch4coll_algos[0]);

/* Names kept for tuning files and CVARs written before two rows merged.
 * allgather node_ring built exactly the schedule of ring (both walk the
 * ranks in node order when the nodes are not consecutive: same messages,
 * same cost, same replay), so it is ring under its old name. */
static const struct {
    int coll;
    const char *name, *target;
} aliases[] = {
    {CH4COLL_ALLGATHER, "node_ring", "ring"},
};

static const ch4coll_algo_t *find_row(int coll, const char *name)
{
    int i;

    for (i = 0; i < ch4coll_nalgos; i++)
        if (ch4coll_algos[i].coll == coll &&
            strcmp(ch4coll_algos[i].name, name) == 0)
            return &ch4coll_algos[i];
    return NULL;
}

const ch4coll_algo_t *ch4coll_algo_find(int coll, const char *name)
{
    size_t i;

    for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].coll == coll && strcmp(aliases[i].name, name) == 0)
            name = aliases[i].target;
    return find_row(coll, name);
}

int ch4coll_algo_ntags(const ch4coll_algo_t *al, const ch4coll_args_t *a,
                       const int64_t *params)
{
    int n = al->ntags ? al->ntags(a, params) : 1;

    return n > 0 ? n : 1;
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
        params[i] = al->params[i].name ? al->params[i].def : 0;
}
