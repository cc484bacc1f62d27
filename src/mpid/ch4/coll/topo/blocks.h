/*
 * blocks.h - the binary block decomposition of p and the segment ranges of
 * recursive vector halving (Rabenseifner & Adamidis sections 3.5, 3.6).
 *
 * Blocks.  p = 2^e_0 + 2^e_1 + ... + 2^e_{m-1} with e_0 > e_1 > ... > e_{m-1}
 * (the set bits of p).  Block i is the contiguous rank range [base_i, base_i
 * + 2^e_i), largest first: base_0 = 0, base_{i+1} = base_i + 2^e_i.  A rank
 * r lies in exactly one block i, with local rank r - base_i.
 * delta_expo_max(p) = max over i of e_i - e_{i+1} (0 for a power of two),
 * the number select/predicates.c answers the JSON key delta_expo_max with.
 *
 * Ranges.  The vector is cut into 2^k segments (2^k: the largest block).
 * Recursive vector halving with distance doubling, step s = 0, 1, ...:
 * local rank l keeps the lower half of its range if bit s of l is 0, else
 * the upper half.  After j steps l holds the 2^(k-j) segments starting at
 * ch4coll_halving_lo(l, j, k) = sum over s < j of bit_s(l) 2^(k-1-s).
 * Brute-force checkable: for 0 <= j <= k the ranges of the l < 2^j tile
 * [0, 2^k); only the low j bits of l matter; the range after step j+1 is
 * the lower or upper half of the range after step j, as bit j of l says.
 *
 * Pure integer arithmetic, no MPI; p >= 1 and at most 31 blocks.
 */
#ifndef CH4COLL_BLOCKS_H
#define CH4COLL_BLOCKS_H

#define CH4COLL_BLOCKS_MAX 31

typedef struct {
    int n;                        /* number of blocks m */
    int expo[CH4COLL_BLOCKS_MAX]; /* block i has 2^expo[i] ranks */
    int base[CH4COLL_BLOCKS_MAX]; /* its first rank */
} ch4coll_blocks_t;

/* The blocks of p (p >= 1), largest first. */
static inline void ch4coll_blocks(int p, ch4coll_blocks_t *b)
{
    int e, base = 0;

    b->n = 0;
    for (e = 30; e >= 0; e--)
        if (p & (1 << e)) {
            b->expo[b->n] = e;
            b->base[b->n] = base;
            base += 1 << e;
            b->n++;
        }
}

/* The block of rank r (0 <= r < p) and its local rank there. */
static inline int ch4coll_blocks_find(const ch4coll_blocks_t *b, int r,
                                      int *local)
{
    int i = 0;

    while (i + 1 < b->n && r >= b->base[i + 1])
        i++;
    *local = r - b->base[i];
    return i;
}

/* Largest gap between consecutive exponents of p's blocks. */
static inline int ch4coll_blocks_delta_expo_max(int p)
{
    ch4coll_blocks_t b;
    int i, gap = 0;

    ch4coll_blocks(p, &b);
    for (i = 0; i + 1 < b.n; i++)
        if (b.expo[i] - b.expo[i + 1] > gap)
            gap = b.expo[i] - b.expo[i + 1];
    return gap;
}

/* First segment (of 2^k) held by local rank l after j halving steps
 * (0 <= j <= k <= 30); the range has 2^(k-j) segments. */
static inline int ch4coll_halving_lo(int l, int j, int k)
{
    int s, lo = 0;

    for (s = 0; s < j; s++)
        if (l & (1 << s))
            lo += 1 << (k - 1 - s);
    return lo;
}

/*
 * Swing (De Sensi et al., NSDI 2024): in a block of P = 2^e ranks, local l
 * meets at step s the rank l + rho(s) if l is even, l - rho(s) if odd (mod
 * P), rho(s) = 1 - 2 + 4 - ... + (-2)^s = (1 - (-2)^(s+1)) / 3: 1, -1, 3,
 * -5, 11, ...  Partners have opposite parity, so each step is a perfect
 * matching; the distances grow as 2^s / 1.5 and alternate in direction,
 * shorter than recursive halving's 2^s on a ring or torus.
 *
 * The ranks l reaches over steps s, s+1, ..., e-1 (R(l, e) = {l}, R(l, s) =
 * R(l, s+1) + R(partner(l, s), s+1)) form, for every s, a partition of the
 * block into 2^s sets of 2^(e-s) ranks, each the union of two sets of the
 * next level (the hierarchy the bandwidth-optimal Swing reduces over;
 * test_topo checks it for P <= 2^12).  Ordering every set's two halves by
 * their smallest rank makes each set an aligned interval of positions:
 * rank l gets position pos[l], and after j halving steps it holds the
 * 2^(k-j) segments (of 2^k) from (pos[l] >> (e - j)) << (k - j), as
 * recursive halving does with pos = the bit reversal of l.
 */
static inline long long ch4coll_swing_rho(int s)
{
    long long rho = 0, term = 1;
    int i;

    for (i = 0; i <= s; i++, term *= -2)
        rho += term;
    return rho;
}

/* The partner of l at distance rho (that of some step) in P ranks. */
static inline int ch4coll_swing_peer(int l, long long rho, int P)
{
    long long x = (l % 2 == 0 ? l + rho : l - rho) % P;

    return (int) (x < 0 ? x + P : x);
}

static inline int ch4coll_swing_partner(int l, int s, int P)
{
    return ch4coll_swing_peer(l, ch4coll_swing_rho(s), P);
}

/* pos[l] for l < 2^e (e <= 30); lab and nlab: scratch of 2^e ints.
 * Levels are merged bottom-up: lab[l] is the smallest rank of l's set at
 * the level done, and at step s l's half is the upper one when its
 * smallest rank exceeds that of its partner's half. */
static inline void ch4coll_swing_positions(int e, int *pos, int *lab, int *nlab)
{
    int P = 1 << e, l, s, *t;

    for (l = 0; l < P; l++) {
        pos[l] = 0;
        lab[l] = l;
    }
    for (s = e - 1; s >= 0; s--) {
        long long rho = ch4coll_swing_rho(s);
        for (l = 0; l < P; l++) {
            int q = lab[ch4coll_swing_peer(l, rho, P)];
            pos[l] |= (lab[l] > q) << (e - 1 - s);
            nlab[l] = lab[l] < q ? lab[l] : q;
        }
        t = lab;
        lab = nlab;
        nlab = t;
    }
}

#endif /* CH4COLL_BLOCKS_H */
