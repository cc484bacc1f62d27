/*
 * nodes.h - node maps: which node every rank runs on, the ranks sorted by
 * node, leaders, and the virtual placements used to test locality on one
 * machine (NEC MPI/SX section 2: "the processes of an MPI communicator are
 * grouped by the node they run on"; Traeff et al. Figure 1).
 *
 * A node map is an int per rank.  Normalised, nodes are numbered
 * 0..nodes-1 in order of first appearance (rank 0 is on node 0), so every
 * rank computes the same numbering from the same map.
 *
 * Virtual placement of p ranks on nodes of k ranks (MPIR_CVAR_CH4COLL_
 * VIRTUAL_PPN=k): nodes = ceil(p / k);
 *   block   rank r on node r / k (the last node may have fewer ranks);
 *   cyclic  rank r on node r mod nodes (the last nodes may have one rank
 *           fewer); consecutive ranks are on different nodes, the
 *           placement where a naive ring crosses nodes on every edge.
 *
 * Node order: the ranks sorted by (node, rank), order[first[j] ..
 * first[j+1]) being node j's ranks in increasing rank order; the first of
 * them is the node's leader.  A ring along the node order crosses between
 * nodes exactly once per node in each direction (NEC 4.2).  Turned so
 * that a given root leads it, it is the order gather and scatter build
 * their binomial trees on (NEC 4.1).
 *
 * Pure integer arithmetic, no MPI.
 */
#ifndef CH4COLL_NODES_H
#define CH4COLL_NODES_H

enum { CH4COLL_MAP_BLOCK, CH4COLL_MAP_CYCLIC };

/* Node of rank r among p ranks placed on virtual nodes of ppn ranks. */
static inline int ch4coll_virtual_node(int r, int p, int ppn, int map)
{
    int nodes = p > 0 ? (p - 1) / ppn + 1 : 0; /* no overflow near INT_MAX */

    return map == CH4COLL_MAP_CYCLIC ? r % nodes : r / ppn;
}

/* Renumber node labels (each in 0..p-1, e.g. the node's lowest rank) to
 * 0..nodes-1 in order of first appearance; returns nodes.  tmp: p ints of
 * work space. */
static inline int ch4coll_nodes_normalise(int p, int *node_of, int *tmp)
{
    int i, nodes = 0;

    for (i = 0; i < p; i++)
        tmp[i] = -1;
    for (i = 0; i < p; i++) {
        if (tmp[node_of[i]] < 0)
            tmp[node_of[i]] = nodes++;
        node_of[i] = tmp[node_of[i]];
    }
    return nodes;
}

/* 1 if the ranks of every node are contiguous (nodes normalised). */
static inline int ch4coll_nodes_consecutive(int p, const int *node_of)
{
    int i;

    for (i = 1; i < p; i++)
        if (node_of[i] != node_of[i - 1] && node_of[i] != node_of[i - 1] + 1)
            return 0;
    return 1;
}

/* Fewest and most ranks on a node (nodes normalised); count: nodes ints
 * of work space. */
static inline void ch4coll_nodes_ppn(int p, const int *node_of, int nodes,
                                     int *count, int *lo, int *hi)
{
    int i;

    for (i = 0; i < nodes; i++)
        count[i] = 0;
    for (i = 0; i < p; i++)
        count[node_of[i]]++;
    *lo = p;
    *hi = 0;
    for (i = 0; i < nodes; i++) {
        *lo = count[i] < *lo ? count[i] : *lo;
        *hi = count[i] > *hi ? count[i] : *hi;
    }
}

/* Ranks sorted by (node, rank) into order[p]; first[nodes + 1] bounds each
 * node's slice.  node_of NULL: one rank per node (nodes = p). */
static inline void ch4coll_node_order(int p, const int *node_of, int nodes,
                                      int *order, int *first)
{
    int i, j;

    if (!node_of) {
        for (i = 0; i < p; i++)
            order[i] = first[i] = i;
        first[p] = p;
        return;
    }
    for (j = 0; j <= nodes; j++)
        first[j] = 0;
    for (i = 0; i < p; i++)
        first[node_of[i] + 1]++;
    for (j = 0; j < nodes; j++)
        first[j + 1] += first[j];
    for (i = 0; i < p; i++)
        order[first[node_of[i]]++] = i;
    for (j = nodes; j > 0; j--) /* the fill advanced each start by its size */
        first[j] = first[j - 1];
    first[0] = 0;
}

/* The ring in node order: ch4coll_node_order into order[p] and first[nodes
 * + 1]; returns the position of rank in it.  A ring along it crosses each
 * node boundary once in each direction (NEC MPI/SX 4.2). */
static inline int ch4coll_node_ring(int p, const int *node_of, int nodes,
                                    int rank, int *order, int *first)
{
    int x = 0;

    ch4coll_node_order(p, node_of, nodes, order, first);
    while (order[x] != rank)
        x++;
    return x;
}

/* The node order turned for a tree rooted at root (NEC 4.1): into seq[p]
 * the root's node first, led by the root (then that node's higher ranks,
 * then its lower ones), then the following nodes and, wrapping, the
 * preceding ones, each in rank order.  seq[0] = root; a node's ranks stay
 * together.  One node, or one rank per node: seq[v] = (root + v) mod p.
 * work: p + nodes + 1 ints. */
static inline void ch4coll_node_order_rooted(int p, const int *node_of,
                                             int nodes, int root, int *seq,
                                             int *work)
{
    int *order = work, *first = work + p;
    int j = node_of[root], x, i, k = 0;

    ch4coll_node_order(p, node_of, nodes, order, first);
    for (x = first[j]; order[x] != root; x++)
        ;
    for (i = x; i < first[j + 1]; i++)
        seq[k++] = order[i];
    for (i = first[j]; i < x; i++)
        seq[k++] = order[i];
    for (i = first[j + 1]; i < p; i++)
        seq[k++] = order[i];
    for (i = 0; i < first[j]; i++)
        seq[k++] = order[i];
}

#endif /* CH4COLL_NODES_H */
