/*
 * circulant.h - the circulant graph of Träff's round-optimal broadcast and
 * each rank's periodic send and receive schedule on it (J. L. Träff,
 * "Optimal broadcast schedules in logarithmic time with applications to
 * broadcast, all-broadcast, reduction and all-reduction", ACM TOPC 2025,
 * arXiv 2407.18004; doc/references.md).
 *
 * Graph.  q = ceil(lg p) skips s[0..q]: s[q] = p, s[k] = ceil(s[k+1] / 2),
 * so s[0] = 1 and s[k+1] <= 2 s[k].  In round i, with k = i mod q, every
 * rank r sends to r + s[k] and receives from r - s[k] (mod p): each round
 * is a permutation, so one port per direction suffices for any p.
 *
 * Baseblock.  Write a relative rank 0 < r < p greedily as a sum of skips,
 * largest first; b(r) is the smallest index used (b(0) = q for the root).
 *
 * Schedules.  recv[k] (k < q) is the block value r receives in round k of
 * every period of q rounds, send[k] the value it sends: a value v < 0 is
 * block v + q of the previous period (-q <= v < q).  send[k] is what the
 * target r + s[k] expects (its recv[k]), or CH4COLL_CIRC_NONE when the
 * target is the root, which receives nothing.  The receive schedule comes
 * from Träff's search over sums of skips in O(log p) steps (a dozen for
 * p = 65536); a send schedule costs q receive schedules, O(log^2 p).
 *
 * Broadcast of n blocks (ch4coll_circ_round): the period repeats with
 * block numbers q higher each time; it starts x = (q - (n-1) mod q) mod q
 * rounds late, so that the last period ends on block n - 1, and a value
 * past n - 1 means block n - 1.  All of it takes n - 1 + q rounds, the
 * lower bound for one-ported broadcast of n blocks, for every p.
 *
 * Worked example, p = 10: s = 1 2 3 5 10, q = 4; baseblocks of r = 0..9
 * are 4 0 1 2 0 3 0 1 2 0 (7 = 5 + 2: index 1).  Rank 7 receives
 * recv = -4 -1 -2 1: in the first period block 1 (value 1) from
 * 7 - 5 = 2 in round 3, and from the period before blocks 0, 3 and 2 in
 * rounds 0, 1 and 2.  With n = 1 only the values >= 0 act and block 0
 * reaches every r in the round K with s[K] <= r < s[K+1], as in a
 * binomial tree.
 *
 * test_circulant.c checks every schedule against the defining rule (a brute
 * force over the ranks behind r) and simulates broadcasts round by round
 * for p = 1..600 and large p, as ../shared/notes/circulant-schedules.md
 * prescribes.
 */
#ifndef CH4COLL_CIRCULANT_H
#define CH4COLL_CIRCULANT_H

#include <limits.h>

#define CH4COLL_CIRC_QMAX 31
#define CH4COLL_CIRC_NONE INT_MIN /* no message in this slot */

typedef struct {
    int p, q;
    int s[CH4COLL_CIRC_QMAX + 1]; /* s[0..q], s[q] = p */
} ch4coll_circ_t;

/* The skips of p >= 1 ranks (q = 0 for p = 1). */
void ch4coll_circ_init(ch4coll_circ_t *g, int p);

/* b(r) of relative rank r; q for r = 0. */
int ch4coll_circ_baseblock(const ch4coll_circ_t *g, int r);

/* recv[0..q-1] of relative rank 0 < r < p. */
void ch4coll_circ_recv(const ch4coll_circ_t *g, int r, int *recv);

/* send[0..q-1] of relative rank 0 <= r < p. */
void ch4coll_circ_send(const ch4coll_circ_t *g, int r, int *send);

/* Rounds of a broadcast of n >= 1 blocks: n - 1 + q. */
static inline long ch4coll_circ_rounds(const ch4coll_circ_t *g, long n)
{
    return g->p > 1 ? n - 1 + g->q : 0;
}

/* In round j (0 <= j < rounds) of an n-block broadcast, the schedule value
 * v (recv[k] or send[k], k = ch4coll_circ_slot) moves this block, or -1
 * for nothing. */
static inline int ch4coll_circ_slot(const ch4coll_circ_t *g, long n, long j)
{
    long x = (g->q - (n - 1) % g->q) % g->q;

    return (int) ((x + j) % g->q);
}

static inline long ch4coll_circ_block(const ch4coll_circ_t *g, long n, long j,
                                      int v)
{
    long x = (g->q - (n - 1) % g->q) % g->q, b;

    if (v == CH4COLL_CIRC_NONE)
        return -1;
    b = v + (x + j) / g->q * g->q - x;
    return b < 0 ? -1 : b < n ? b : n - 1;
}

#endif /* CH4COLL_CIRCULANT_H */
