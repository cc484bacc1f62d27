/*
 * index.h - block index arithmetic of Bruck's allgather and alltoall
 * (allgather_doubling.c, alltoall_bruck.c) and the destination order of
 * alltoall permuted (alltoall_scattered.c).
 *
 * Bruck (NEC MPI/SX sections 3.5, 4.2; the k-port form of Bruck et al.,
 * radix k).  A rank works on p slots T[0..p).  Slot j of rank r starts
 * with the block of rank (r + j) mod p (allgather: that rank's block;
 * alltoall: r's block for that rank), so slots [0, wrap) hold blocks
 * r..p-1 and slots [wrap, p) blocks 0..r-1, wrap = p - r: two copies rotate
 * the blocks in or out.  The steps run at distances d = 1, k, k^2, ... < p,
 * and a step has the digits v = 1 .. k-1 with v d < p, all at once.
 *   allgather: at digit v of step d a rank sends T[0, c) to r - v d and
 *     receives T[v d, v d + c) from r + v d, c = ag_count(d, v, p) =
 *     min(d, p - v d); after the steps slot j holds the block of rank r + j.
 *   alltoall: at digit v of step d a rank sends the slots j whose base-k
 *     digit at d is v to r + v d and receives the same slots from r - v d.
 *     Those slots come in runs [i k d + v d, min(i k d + (v + 1) d, p)) for
 *     i = 0 .. a2a_nruns - 1, in all a2a_nslots; a block in slot j moves by
 *     the digits of j, so afterwards slot j holds the block from rank
 *     a2a_origin(r, j, p) = r - j (mod p) meant for r.
 * p = 5, r = 0, k = 2: wrap 5; allgather counts 1, 2, 1 at d = 1, 2, 4;
 * alltoall runs {1}, {3} at d = 1 (2 slots), {2, 3} at d = 2, {4} at d = 4.
 * k = 3: allgather counts 1, 1 at d = 1 (v = 1, 2), 2 at d = 3 (v = 1);
 * alltoall {1, 4} (v = 1) and {2} (v = 2) at d = 1, {3, 4} at d = 3.
 *
 * Permuted destination list (BlueGene/L section 3.1).  A Fisher-Yates
 * shuffle of 0..p-1 driven by xorshift64* (Vigna) from a seed gives a list
 * L, the same on every rank for the same seed; pos[] is its inverse.  The
 * rank at position q sends at turn t = 0..p-2 to L[q + 1 + t] and hears
 * from L[q - 1 - t] (mod p): in every turn the p ranks aim at p distinct
 * destinations, and every rank meets every other once.  The builders seed
 * with perm_seed(p), which depends on p only.
 *
 * Pure integer arithmetic, no MPI, no allocation; p >= 1, 0 <= r, j < p,
 * k >= 2, d a power of k below p, 1 <= v < k with v d < p.
 * test_topo_trees.c simulates the Bruck steps for radices 2..p and checks
 * the permutation for p = 1..200.
 */
#ifndef CH4COLL_INDEX_H
#define CH4COLL_INDEX_H

#include <stdint.h>

/* ---------------------------------------------------------------- Bruck */

/* The rank whose block (allgather) or for whom the block (alltoall) sits
 * in slot j of rank r before the steps. */
static inline int ch4coll_bruck_slot_rank(int r, int j, int p)
{
    return (r + j) % p;
}

/* Slots before the wrap-around: T[0, wrap) <-> blocks [r, p), T[wrap, p)
 * <-> blocks [0, r). */
static inline int ch4coll_bruck_wrap(int r, int p)
{
    return p - r;
}

/* The radix of a Bruck of at most `steps` steps on p ranks: the least
 * k >= 2 with k^steps >= p (steps = 2: a two-dimensional mesh of k x k
 * ranks, steps = 1: every rank at once); steps 0 or 2^steps >= p: 2. */
static inline int ch4coll_bruck_radix(int steps, int p)
{
    int k = 2;

    if (steps <= 0 || steps >= 31 || ((int64_t) 1 << steps) >= p)
        return 2;
    for (;;) {
        int64_t x = 1;
        int i;
        for (i = 0; i < steps && x < p; i++)
            x *= k;
        if (x >= p)
            return k;
        k++;
    }
}

/* Allgather: blocks exchanged at digit v of step d, min(d, p - v d). */
static inline int ch4coll_bruck_ag_count(int d, int v, int p)
{
    int64_t rest = (int64_t) p - (int64_t) v * d;

    return rest < d ? (int) rest : d;
}

/* Alltoall: the digit of slot j at step d in radix k (0: it stays). */
static inline int ch4coll_bruck_a2a_digit(int j, int d, int k)
{
    return (j / d) % k;
}

/* Alltoall: number of runs of slots sent at digit v of step d. */
static inline int ch4coll_bruck_a2a_nruns(int d, int v, int k, int p)
{
    int64_t first = (int64_t) v * d, span = (int64_t) k * d;

    return p > first ? (int) ((p - first + span - 1) / span) : 0;
}

/* Alltoall: run i (0 <= i < nruns) at digit v of step d is slots
 * [*lo, *hi). */
static inline void ch4coll_bruck_a2a_run(int d, int v, int k, int p, int i,
                                         int *lo, int *hi)
{
    int64_t base = (int64_t) k * d * i + (int64_t) v * d;

    *lo = (int) base;
    *hi = base + d < p ? (int) (base + d) : p;
}

/* Alltoall: number of slots sent at digit v of step d (at most ceil(p / 2)
 * for k = 2). */
static inline int ch4coll_bruck_a2a_nslots(int d, int v, int k, int p)
{
    int i, lo, hi, n = 0;

    for (i = 0; i < ch4coll_bruck_a2a_nruns(d, v, k, p); i++) {
        ch4coll_bruck_a2a_run(d, v, k, p, i, &lo, &hi);
        n += hi - lo;
    }
    return n;
}

/* Alltoall: the rank whose block for r sits in slot j after the steps. */
static inline int ch4coll_bruck_a2a_origin(int r, int j, int p)
{
    return (r - j + p) % p;
}

/* ------------------------------------------------------------- permuted */

/* xorshift64* (Vigna): small, fast, the same sequence everywhere.  The
 * state must not be 0. */
static inline uint64_t ch4coll_xorshift64s(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/* The builders' seed: depends on p only, never 0 (p < 2^31). */
static inline uint64_t ch4coll_perm_seed(int p)
{
    return UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t) p;
}

/* list[0..p) = a Fisher-Yates shuffle of 0..p-1 drawn from seed (not 0);
 * pos[r] = the position of rank r in list. */
static inline void ch4coll_perm_shuffle(int p, uint64_t seed, int *list,
                                        int *pos)
{
    uint64_t x = seed;
    int i;

    for (i = 0; i < p; i++)
        list[i] = i;
    for (i = p - 1; i > 0; i--) {
        int j = (int) (ch4coll_xorshift64s(&x) % (uint64_t) (i + 1));
        int tmp = list[i];
        list[i] = list[j];
        list[j] = tmp;
    }
    for (i = 0; i < p; i++)
        pos[list[i]] = i;
}

/* The destination at turn t (0 <= t < p - 1) of the rank at position q. */
static inline int ch4coll_perm_dest(const int *list, int p, int q, int t)
{
    return list[(q + 1 + t) % p];
}

/* The rank that sends at turn t to the rank at position q. */
static inline int ch4coll_perm_source(const int *list, int p, int q, int t)
{
    return list[(q - 1 - t + p) % p];
}

#endif /* CH4COLL_INDEX_H */
