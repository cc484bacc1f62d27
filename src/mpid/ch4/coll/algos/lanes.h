/*
 * lanes.h - the nodes of a call as lanes: what the multi-leader schedules
 * (multi_ring.c, smp_multi_leader.c) share.
 *
 * N nodes (numbered in order of first appearance, topo/nodes.h), node j's
 * ranks sorted by rank, q_j of them, Q = max q_j.  Lane l (0 <= l < Q) is
 * served at node j by local index l mod q_j, so a smaller node's ranks
 * serve several lanes and every node is on every lane.  Without a node
 * map every rank is a node of its own: N = p, Q = 1.
 */
#ifndef CH4COLL_LANES_H
#define CH4COLL_LANES_H

#include "algo.h"

#include "../topo/nodes.h"
#include "../util/util.h"

#include <math.h>

typedef struct {
    int nodes, lanes; /* N and Q */
    int node, idx;    /* this rank's node and local index */
    int *order;       /* p: ranks sorted by (node, rank) */
    int *first;       /* nodes + 1: node j is order[first[j] .. first[j+1]) */
} ch4coll_lanes_t;

/* Ranks of node j. */
static inline int ch4coll_lanes_size(const ch4coll_lanes_t *l, int j)
{
    return l->first[j + 1] - l->first[j];
}

/* The rank of local index i at node j. */
static inline int ch4coll_lanes_rank(const ch4coll_lanes_t *l, int j, int i)
{
    return l->order[l->first[j] + i];
}

/* The rank serving lane k at node j. */
static inline int ch4coll_lanes_server(const ch4coll_lanes_t *l, int j, int k)
{
    return ch4coll_lanes_rank(l, j, k % ch4coll_lanes_size(l, j));
}

/* Node j + d, around. */
static inline int ch4coll_lanes_node(const ch4coll_lanes_t *l, int j, int d)
{
    return ((j + d) % l->nodes + l->nodes) % l->nodes;
}

/* The lanes of a's ranks (a->loc; NULL: one rank per node); frees with
 * ch4coll_lanes_close. */
static inline int ch4coll_lanes_open(ch4coll_lanes_t *l,
                                     const ch4coll_args_t *a)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size, j, x;

    l->nodes = loc ? loc->nodes : p;
    l->order = ch4coll_malloc(((size_t) p + l->nodes + 1) * sizeof *l->order);
    if (!l->order)
        return CH4COLL_ERR_NOMEM;
    l->first = l->order + p;
    ch4coll_node_order(p, loc ? loc->node_of : NULL, l->nodes, l->order,
                       l->first);
    for (l->lanes = 0, j = 0; j < l->nodes; j++)
        l->lanes = ch4coll_lanes_size(l, j) > l->lanes
                       ? ch4coll_lanes_size(l, j)
                       : l->lanes;
    l->node = loc ? loc->node_of[a->rank] : a->rank;
    for (x = l->first[l->node]; l->order[x] != a->rank; x++)
        ;
    l->idx = x - l->first[l->node];
    return CH4COLL_OK;
}

static inline void ch4coll_lanes_close(ch4coll_lanes_t *l)
{
    ch4coll_free(l->order);
    l->order = l->first = NULL;
}

/* The pieces of a pipelined lane schedule: ceil(bytes / chunk), at most
 * CH4COLL_LANES_PIECES and at most count elements; one without a chunk. */
#define CH4COLL_LANES_PIECES 16

static inline int ch4coll_lanes_pieces(double bytes, int64_t chunk,
                                       size_t count)
{
    double k = chunk > 0 ? ceil(bytes / (double) chunk) : 1;

    if (k > CH4COLL_LANES_PIECES)
        k = CH4COLL_LANES_PIECES;
    if (k > (double) count)
        k = (double) count;
    return k < 1 ? 1 : (int) k;
}

#endif /* CH4COLL_LANES_H */
