/*
 * index.h - block index arithmetic of Bruck's allgather and alltoall
 * (allgather_doubling.c, alltoall_bruck.c) and the destination order of
 * alltoall permuted (alltoall_scattered.c).
 *
 * Bruck (NEC MPI/SX sections 3.5, 4.2).  A rank works on p slots T[0..p).
 * Slot j of rank r starts with the block of rank (r + j) mod p (allgather:
 * that rank's block; alltoall: r's block for that rank), so slots
 * [0, wrap) hold blocks r..p-1 and slots [wrap, p) blocks 0..r-1, wrap =
 * p - r: two copies rotate the blocks in or out.  The steps run at
 * distances d = 1, 2, 4, ... < p.
 *   allgather: at distance d a rank sends T[0, c) to r - d and receives
 *     T[d, d + c) from r + d, c = ag_count(d, p) = min(d, p - d); after the
 *     steps slot j holds the block of rank r + j.
 *   alltoall: at distance d a rank sends the slots j with bit d set to
 *     r + d and receives the same slots from r - d.  Those slots come in
 *     runs [(2i + 1) d, min((2i + 2) d, p)) for i = 0 .. a2a_nruns - 1, in
 *     all a2a_nslots(d, p); a block in slot j moves by the binary digits of
 *     j, so afterwards slot j holds the block from rank
 *     a2a_origin(r, j, p) = r - j (mod p) meant for r.
 * p = 5, r = 0: wrap 5; allgather counts 1, 2, 1 at d = 1, 2, 4; alltoall
 * runs {1}, {3} at d = 1 (2 slots), {2, 3} at d = 2, {4} at d = 4.
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
 * d a power of two below p.  test_topo_trees.c simulates the Bruck steps and
 * checks the permutation for p = 1..200.
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

/* Allgather: blocks exchanged at distance d, min(d, p - d). */
static inline int ch4coll_bruck_ag_count(int d, int p)
{
    return d < p - d ? d : p - d;
}

/* Alltoall: 1 if slot j is sent at distance d (bit d of j set). */
static inline int ch4coll_bruck_a2a_moves(int j, int d)
{
    return (j & d) != 0;
}

/* Alltoall: number of runs of slots sent at distance d. */
static inline int ch4coll_bruck_a2a_nruns(int d, int p)
{
    return p > d ? (int) (((int64_t) p + d - 1) / (2 * (int64_t) d)) : 0;
}

/* Alltoall: run i (0 <= i < nruns) at distance d is slots [*lo, *hi). */
static inline void ch4coll_bruck_a2a_run(int d, int p, int i, int *lo, int *hi)
{
    int64_t base = 2 * (int64_t) d * i;

    *lo = (int) (base + d);
    *hi = base + 2 * (int64_t) d < p ? (int) (base + 2 * (int64_t) d) : p;
}

/* Alltoall: number of slots sent at distance d (at most ceil(p / 2)). */
static inline int ch4coll_bruck_a2a_nslots(int d, int p)
{
    int i, lo, hi, n = 0;

    for (i = 0; i < ch4coll_bruck_a2a_nruns(d, p); i++) {
        ch4coll_bruck_a2a_run(d, p, i, &lo, &hi);
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
