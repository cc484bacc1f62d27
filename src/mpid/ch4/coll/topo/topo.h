/*
 * topo.h - pure rank arithmetic shared by the builders: binomial trees,
 * relative ranks, the power-of-two core of recursive doubling, balanced
 * segments.
 *
 * Nothing here knows about MPI or schedules; test/unit/test_topo.c checks
 * every helper against brute force for p = 1..130.
 */
#ifndef CH4COLL_TOPO_H
#define CH4COLL_TOPO_H

#include <stddef.h>

/* Rank relative to root and back. */
static inline int ch4coll_rel(int rank, int root, int p)
{
    return (rank - root + p) % p;
}

static inline int ch4coll_abs(int vrank, int root, int p)
{
    return (vrank + root) % p;
}

/* The cycle of relative ranks the other way round: position q (0 .. p-1)
 * of 0, p-1, p-2, ..., 1 is relative rank (p - q) mod p (its own inverse). */
static inline int ch4coll_rel_back(int q, int p)
{
    return (p - q) % p;
}

/* Chains of a pipeline run both ways round that cycle (bidir_chain): two
 * from p = 3 on, one at p = 2, where both ways reach the same rank. */
static inline int ch4coll_bidir_chains(int p)
{
    return p > 2 ? 2 : 1;
}

/* Balanced segments: n items cut into parts >= 1 segments whose sizes
 * differ by at most one, the first n mod parts of them one larger.
 * Segment j starts at ch4coll_seg_off(n, parts, j); j = parts gives n. */
static inline size_t ch4coll_seg_off(size_t n, size_t parts, size_t j)
{
    size_t q = n / parts, rem = n % parts;

    return j * q + (j < rem ? j : rem);
}

static inline size_t ch4coll_seg_len(size_t n, size_t parts, size_t j)
{
    return n / parts + (j < n % parts ? 1 : 0);
}

/* Smallest power of two >= n (n >= 1). */
static inline int ch4coll_pow2_ceil(int n)
{
    int q = 1;
    while (q < n)
        q *= 2;
    return q;
}

/*
 * Binomial tree over relative ranks 0..p-1 rooted at 0: the parent of vr is
 * vr with its lowest set bit cleared; the children of vr are vr + m for the
 * powers of two m below vr's lowest set bit (below pow2_ceil(p) for the
 * root) with vr + m < p.  The subtree of vr is the contiguous range
 * [vr, vr + span).
 */
static inline int ch4coll_binomial_parent(int vr)
{
    return vr == 0 ? -1 : (vr & (vr - 1));
}

/* Exclusive upper bound of the child offsets m of vr (a power of two). */
static inline int ch4coll_binomial_mask_limit(int vr, int p)
{
    return vr == 0 ? ch4coll_pow2_ceil(p) : (vr & -vr);
}

/* Number of ranks in the subtree of vr. */
static inline int ch4coll_binomial_span(int vr, int p)
{
    int lim = ch4coll_binomial_mask_limit(vr, p);
    return lim < p - vr ? lim : p - vr;
}

/*
 * Recursive doubling on p ranks with p' = 2^floor(lg p) and r = p - p'
 * (Rabenseifner section 3.5, "remove r"): of the first 2r ranks the even ones
 * hand their data to the odd neighbour and sit out; the remaining p' ranks
 * get new ranks 0..p'-1 in rank order.  Returns the new rank or -1.
 */
static inline int ch4coll_rd_newrank(int rank, int r)
{
    if (rank < 2 * r)
        return (rank % 2) ? rank / 2 : -1;
    return rank - r;
}

static inline int ch4coll_rd_oldrank(int newrank, int r)
{
    return newrank < r ? 2 * newrank + 1 : newrank + r;
}

#endif /* CH4COLL_TOPO_H */
