/*
 * packing.h - spanning trees of a torus placement that share no link:
 * as many as the hosts' links allow (Edmonds' branching theorem), for
 * broadcasts and reductions that split the data among them.
 *
 * Placement as torus.h's: n nodes at hosts 0 .. n-1 of an X x Y x Z torus
 * numbered x fastest, host h at (h mod X, h / X mod Y, h / XY).  Two
 * nodes are joined (one link each way) when their hosts are torus
 * neighbours: x +- 1 round the x ring, y +- 1 round the y ring, z +- 1
 * (Z is not known, so no wrap in z).  A tree is an arborescence: every
 * node but the root takes the data from its parent over one directed
 * link, and no directed link belongs to two trees.
 *
 * How many.  Edmonds (1973): a digraph has k arc-disjoint spanning
 * arborescences rooted at r exactly when every node v can be reached from
 * r by k arc-disjoint paths (the smallest r -> v cut is at least k).  On
 * a torus placement that is the fewest links a node has inside the set:
 * 2 with a partial x line (its end hosts), 3 when the hosts fill whole x
 * lines of a plane whose y ring is not closed (the first and last lines'
 * hosts), 4 on a whole 2-D torus (test_topo_mesh finds it so on every
 * placement of small 2- and 3-D tori).  ch4coll_packing_build computes
 * it by unit-capacity max flows.
 *
 * Which trees.  Lovász's proof of the theorem (1976) grows them by arcs
 * (u, v), u in a tree and v not, and takes an arc only if the partial
 * trees can still be completed: Edmonds' branching theorem, every node
 * set X (root outside) entered by as many free arcs as there are trees
 * that do not reach into X; such an arc always exists while a tree is not
 * spanning.  The test is one max flow to v from the trees' node sets, a
 * unit from each, over the free arcs (k), searched backwards from v so
 * that it stops at the nearest trees.  Grown one after the other (the
 * proof's order), the first tree takes the short ways and the last goes
 * the long way round (p = 96 on a 16 x 16 torus: 29 hops deep on the
 * mean over roots); grown together, an arc per tree in turn from its
 * shallowest node, none is left the leftovers: 19.7 hops, p = 61 12.9
 * instead of 20.8.  Up to 128 nodes both ways are tried with eight arc
 * orders each (as built, then seven shuffles, the same on every rank) and
 * the packing kept whose deepest node is nearest the root, then whose
 * nodes are (the sum of all depths): deepest node 17.8 hops on the mean
 * at p = 96 (one after the other 23.7, the BG/L pair 19), 10.9 at p = 61
 * (16.8), 14.4 at p = 24 (the same; from root 0 one after the other
 * wins the tie, a tree of 9 hops and one of 15 instead of 14 and 15:
 * SimGrid, reduce at 2 MiB 342.0 us against 366.1).  The count is the
 * fewest links unless a first growth gets stuck (it does exactly when
 * the count is lower; then one fewer).  8 ms at p = 96 (sixteen growths),
 * 40 ms at 1024 and 0.5 s at 4096 (one), on every rank for every
 * schedule built (the plan cache keeps it).
 *
 * Worked example, X = 4, n = 8 (two whole x lines, y ring not closed),
 * root 0: every host has three links (two round its x line, one to the
 * other line), so k = 3.  Tree 0: 0 -> 1 -> 2 -> 3, 1 -> 5 -> 4,
 * 2 -> 6 -> 7; tree 1: 0 -> 3 -> 2 -> 1, 3 -> 7 -> 6 -> 5, 7 -> 4;
 * tree 2: 0 -> 4 -> 5 -> 6, 4 -> 7, and 5 -> 1, 6 -> 2, 7 -> 3.  Each
 * host takes each third of the data over a different one of its links,
 * 4 hops from the root at most.
 */
#ifndef CH4COLL_PACKING_H
#define CH4COLL_PACKING_H

#include <stdint.h>

#define CH4COLL_PACKING_MAXK    4
#define CH4COLL_PACKING_MAXKIDS 6 /* x, y and z, both ways */

/* The trees: k of them (0 when the placement has no trees: one node, a
 * torus_x < 1, or an allocation failed); parent[t n + v] is node v's
 * parent in tree t, -1 for the root.  Free with ch4coll_packing_free. */
typedef struct {
    int n, k;
    int *parent;
} ch4coll_packing_t;

/* The most disjoint spanning trees rooted at root of the placement of n
 * nodes on a torus of x_len x y_len (y_len 0 = 1) x any hosts, capped at
 * kmax (1 .. CH4COLL_PACKING_MAXK), and the trees themselves.  Returns 0
 * or -1 when memory ran out (then pk->k = 0). */
int ch4coll_packing_build(ch4coll_packing_t *pk, int n, int64_t x_len,
                          int64_t y_len, int root, int kmax);

void ch4coll_packing_free(ch4coll_packing_t *pk);

/* The trees' count alone, as ch4coll_packing_build finds it (the max
 * flows, no trees): 0 .. kmax, or -1 when memory ran out. */
int ch4coll_packing_count(int n, int64_t x_len, int64_t y_len, int root,
                          int kmax);

/* The most hops from the root to a node in any of the trees. */
int ch4coll_packing_depth(const ch4coll_packing_t *pk);

/* The fewest links a node of the placement has to others in it (0 for
 * n < 2 or x_len < 1): at least the trees' count k.  O(n), no memory. */
int ch4coll_packing_degree(int n, int64_t x_len, int64_t y_len);

/* The children of node v in tree t, at most CH4COLL_PACKING_MAXKIDS (a
 * node's links): their count.  O(n). */
int ch4coll_packing_kids(const ch4coll_packing_t *pk, int t, int v, int *kids);

#endif
