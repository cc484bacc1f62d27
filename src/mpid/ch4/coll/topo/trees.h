/*
 * trees.h - the k-nomial tree (knomial.c: bcast knomial, barrier tree) and
 * the binary heap tree (pipelined_bintree.c) over
 * relative ranks 0..p-1 rooted at 0.
 *
 * K-nomial tree, radix k >= 2 (NEC MPI/SX section 3.3 for k = 2; radix 2
 * is exactly the binomial tree of topo.h).  Write vr in base k.  The
 * parent of vr > 0 clears its lowest nonzero digit.  The child offsets of
 * vr are the powers of k m below limit(vr) = the weight of that digit
 * (for the root: the smallest power of k >= p); the children are vr + j m
 * for j = 1..k-1 with vr + j m < p, listed largest m first, then by j
 * (the order in which the builders send).  The subtree of vr is the
 * contiguous range [vr, vr + span) with span = min(limit(vr), p - vr).
 * depth(p, k) = ceil(log_k p) is the number of levels: the root has
 * children at that many offsets m, and no path from the root is longer.
 * p = 10, k = 3: 0 -> 9, 3, 6, 1, 2; 3 -> 4, 5; 6 -> 7, 8; depth 3.
 *
 * Binary heap tree (NEC MPI/SX section 3.3, pipelined binary tree): the
 * parent of vr > 0 is (vr - 1) / 2, the children of vr are 2 vr + 1 and
 * 2 vr + 2 where below p, in that order; depth(p) = floor(lg p), the
 * level of vr = p - 1.
 *
 * Pure integer arithmetic, no MPI, no allocation; 0 <= vr < p, p >= 1,
 * k >= 2.  test_topo_trees.c checks every helper against brute force for
 * p = 1..200 and k = 2..9.
 */
#ifndef CH4COLL_TREES_H
#define CH4COLL_TREES_H

#include <stdint.h>

/* ------------------------------------------------------------- k-nomial */

/* Exclusive upper bound of the child offsets of vr (a power of k): the
 * weight of vr's lowest nonzero base-k digit, or for the root the smallest
 * power of k >= p (p is read only for the root).  64-bit so that m * k
 * cannot overflow. */
static inline int64_t ch4coll_knomial_limit(int vr, int k, int p)
{
    int64_t m = 1;

    if (vr == 0) {
        while (m < p)
            m *= k;
        return m;
    }
    while (vr % (m * k) == 0)
        m *= k;
    return m;
}

/* Parent of vr: vr with its lowest nonzero base-k digit cleared; -1 for
 * the root. */
static inline int ch4coll_knomial_parent(int vr, int k)
{
    int64_t m;

    if (vr == 0)
        return -1;
    m = ch4coll_knomial_limit(vr, k, 0);
    return vr - (int) (((vr / m) % k) * m);
}

/* Number of children of vr. */
static inline int ch4coll_knomial_nchildren(int vr, int k, int p)
{
    int64_t m, j;
    int n = 0;

    for (m = ch4coll_knomial_limit(vr, k, p) / k; m >= 1; m /= k)
        for (j = 1; j < k && vr + j * m < p; j++)
            n++;
    return n;
}

/* The i-th child of vr (0 <= i < nchildren) in sending order: largest
 * offset m first, then j = 1..k-1.  -1 if there is no such child. */
static inline int ch4coll_knomial_child(int vr, int k, int p, int i)
{
    int64_t m, j;

    for (m = ch4coll_knomial_limit(vr, k, p) / k; m >= 1; m /= k)
        for (j = 1; j < k && vr + j * m < p; j++)
            if (i-- == 0)
                return (int) (vr + j * m);
    return -1;
}

/* Number of ranks in the subtree of vr, which is [vr, vr + span). */
static inline int ch4coll_knomial_span(int vr, int k, int p)
{
    int64_t lim = ch4coll_knomial_limit(vr, k, p);

    return lim < p - vr ? (int) lim : p - vr;
}

/* Levels of the tree: ceil(log_k p), 0 for p = 1. */
static inline int ch4coll_knomial_depth(int p, int k)
{
    int64_t m = 1;
    int levels = 0;

    for (; m < p; m *= k)
        levels++;
    return levels;
}

/* ------------------------------------------------------------ binary heap */

/* Parent of vr: (vr - 1) / 2; -1 for the root. */
static inline int ch4coll_heap_parent(int vr)
{
    return vr > 0 ? (vr - 1) / 2 : -1;
}

/* Number of children of vr (0, 1 or 2). */
static inline int ch4coll_heap_nchildren(int vr, int p)
{
    return (2 * (int64_t) vr + 1 < p) + (2 * (int64_t) vr + 2 < p);
}

/* Child j (0: left, 1: right) of vr: 2 vr + 1 + j, or -1 if >= p. */
static inline int ch4coll_heap_child(int vr, int p, int j)
{
    int64_t c = 2 * (int64_t) vr + 1 + j;

    return c < p ? (int) c : -1;
}

/* Depth of the tree: floor(lg p), the level of the last node p - 1. */
static inline int ch4coll_heap_depth(int p)
{
    int d = 0;

    for (; p > 1; p /= 2)
        d++;
    return d;
}

#endif /* CH4COLL_TREES_H */
