/*
 * test_topo.c - unit tests of the rank arithmetic of topo/topo.h,
 * topo/blocks.h and topo/nodes.h, all against brute force.
 *
 * What is covered, and why it matters:
 *
 *   topology   Binomial parent/children/span and the recursive-doubling rank
 *              maps (p = 1..130); binary blocks and delta_expo_max (the
 *              paper's examples, p = 1..5000 and extremes, and the same
 *              value as the selection predicate's); virtual node placements,
 *              their normalisation and node orders, rooted too, and the
 *              ring in node order (one crossing per node); the ranges of
 *              recursive halving; balanced segments.
 *
 * The trees and Bruck index arithmetic are in test_topo_trees.c, the mesh
 * in test_topo_mesh.c, and what builders make of these in test_algos.c.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK).
 */
#include <check.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "select/tree.h"
#include "topo/blocks.h"
#include "topo/nodes.h"
#include "topo/topo.h"
#include "unit.h"

/* Mark the subtree of vr by walking the children; returns its size. */
static int walk_subtree(int vr, int p, unsigned char *mark)
{
    int m, n = 1;

    mark[vr]++;
    for (m = 1; m < ch4coll_binomial_mask_limit(vr, p); m *= 2)
        if (vr + m < p)
            n += walk_subtree(vr + m, p, mark);
    return n;
}

START_TEST(test_topo_binomial)
{
    unsigned char mark[131];
    int nparent[131];
    int p, vr, m, u;

    for (p = 1; p <= 130; p++) {
        int sum = 0;
        memset(nparent, 0, sizeof nparent);
        for (u = 0; u < p; u++)
            for (m = 1; m < ch4coll_binomial_mask_limit(u, p); m *= 2)
                if (u + m < p) {
                    nparent[u + m]++;
                    ck_assert_int_eq(ch4coll_binomial_parent(u + m), u);
                }
        ck_assert_int_eq(nparent[0], 0);
        ck_assert_int_eq(ch4coll_binomial_parent(0), -1);
        for (vr = 1; vr < p; vr++)
            ck_assert_msg(nparent[vr] == 1, "p=%d vr=%d has %d parents", p, vr,
                          nparent[vr]);
        for (vr = 0; vr < p; vr++) {
            int span = ch4coll_binomial_span(vr, p), size, i;
            memset(mark, 0, sizeof mark);
            size = walk_subtree(vr, p, mark);
            ck_assert_msg(size == span, "p=%d vr=%d: subtree %d, span %d", p,
                          vr, size, span);
            for (i = 0; i < p; i++)
                ck_assert_msg(mark[i] == (i >= vr && i < vr + span),
                              "p=%d vr=%d: rank %d", p, vr, i);
        }
        for (m = 1; m < ch4coll_binomial_mask_limit(0, p); m *= 2)
            if (m < p)
                sum += ch4coll_binomial_span(m, p);
        ck_assert_int_eq(sum + 1, p);
        ck_assert_int_eq(ch4coll_binomial_span(0, p), p);
    }
}
END_TEST

START_TEST(test_topo_rd)
{
    int seen[130];
    int p, x, back;

    for (p = 1; p <= 130; p++) {
        int p2 = ch4coll_pow2_floor(p), r = p - p2, mapped = 0;
        ck_assert(p2 <= p && 2 * p2 > p && (p2 & (p2 - 1)) == 0);
        memset(seen, 0, sizeof seen);
        for (x = 0; x < p; x++) {
            int nr = ch4coll_rd_newrank(x, r);
            if (nr < 0)
                continue;
            ck_assert_msg(nr < p2, "p=%d rank %d -> %d", p, x, nr);
            ck_assert_int_eq(seen[nr]++, 0);
            ck_assert_int_eq(ch4coll_rd_oldrank(nr, r), x);
            mapped++;
        }
        ck_assert_int_eq(mapped, p2);
        for (x = 0; x < p2; x++) {
            int old = ch4coll_rd_oldrank(x, r);
            ck_assert(old >= 0 && old < p);
            ck_assert_int_eq(ch4coll_rd_newrank(old, r), x);
        }
        ck_assert_int_ge(ch4coll_pow2_ceil(p), p);
        ck_assert_int_lt(ch4coll_pow2_ceil(p), 2 * p);
        for (x = 0; x < p; x++)
            ck_assert_int_eq(ch4coll_abs(ch4coll_rel(x, p / 2, p), p / 2, p),
                             x);
        /* the way back: x steps down from 0, wrapping */
        for (x = 0, back = 0; x < p; x++, back = back == 0 ? p - 1 : back - 1) {
            ck_assert_int_eq(ch4coll_rel_back(x, p), back);
            ck_assert_int_eq(ch4coll_rel_back(ch4coll_rel_back(x, p), p), x);
        }
        ck_assert_int_eq(ch4coll_bidir_chains(p), p > 2 ? 2 : 1);
    }
}
END_TEST

/* The blocks of p by brute force: every set bit, largest first, contiguous
 * rank ranges; every rank in exactly one block with the right local rank. */
START_TEST(test_topo_blocks)
{
    static const int big[] = {INT_MAX, (1 << 30) | 1, 1 << 30, 1000000007};
    int p, i, r, e;

    for (p = 1; p <= 5000 + 4; p++) {
        int q = p <= 5000 ? p : big[p - 5001], base = 0, nbits = 0;
        ch4coll_blocks_t b;
        ch4coll_blocks(q, &b);
        for (e = 0; e < 31; e++)
            nbits += q >> e & 1;
        ck_assert_int_eq(b.n, nbits);
        for (i = 0; i < b.n; i++) {
            ck_assert_msg(q >> b.expo[i] & 1, "p=%d block %d: 2^%d not in p", q,
                          i, b.expo[i]);
            if (i > 0)
                ck_assert_int_gt(b.expo[i - 1], b.expo[i]);
            ck_assert_int_eq(b.base[i], base);
            base += 1 << b.expo[i];
        }
        ck_assert_int_eq(base, q);
        if (q > 300)
            continue;
        for (r = 0; r < q; r++) {
            int local, blk = ch4coll_blocks_find(&b, r, &local);
            ck_assert(blk >= 0 && blk < b.n);
            ck_assert_msg(local >= 0 && local < 1 << b.expo[blk] &&
                              b.base[blk] + local == r,
                          "p=%d rank %d: block %d local %d", q, r, blk, local);
        }
    }
}
END_TEST

/* Virtual placements, normalisation, consecutiveness and the node order
 * against brute force. */
START_TEST(test_topo_nodes)
{
    int p, ppn, map, i, j;
    int node_of[130], tmp[130], order[130], first[131], seen[130];

    for (p = 1; p <= 129; p++)
        for (ppn = 1; ppn <= 9; ppn++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++) {
                int nodes, want = (p + ppn - 1) / ppn, big = 0, small = p;
                for (i = 0; i < p; i++)
                    node_of[i] = ch4coll_virtual_node(i, p, ppn, map);
                nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                ck_assert_int_eq(nodes, want);
                ck_assert_int_eq(node_of[0], 0);
                for (i = 1; i < p; i++) { /* first appearance order */
                    int m = 0;
                    for (j = 0; j < i; j++)
                        m = node_of[j] > m ? node_of[j] : m;
                    ck_assert(node_of[i] <= m + 1);
                }
                ck_assert_int_eq(ch4coll_nodes_consecutive(p, node_of),
                                 map == CH4COLL_MAP_BLOCK || nodes == 1 ||
                                     nodes == p);
                ch4coll_node_order(p, node_of, nodes, order, first);
                ck_assert_int_eq(first[0], 0);
                ck_assert_int_eq(first[nodes], p);
                memset(seen, 0, sizeof seen);
                for (j = 0; j < nodes; j++) {
                    int n = first[j + 1] - first[j];
                    big = n > big ? n : big;
                    small = n < small ? n : small;
                    for (i = first[j]; i < first[j + 1]; i++) {
                        ck_assert_int_eq(node_of[order[i]], j);
                        if (i > first[j])
                            ck_assert_int_lt(order[i - 1], order[i]);
                        seen[order[i]]++;
                    }
                }
                for (i = 0; i < p; i++)
                    ck_assert_int_eq(seen[i], 1);
                ck_assert_int_le(big, ppn); /* no node over ppn ranks */
                {
                    int lo, hi;
                    ch4coll_nodes_ppn(p, node_of, nodes, tmp, &lo, &hi);
                    ck_assert_int_eq(lo, small);
                    ck_assert_int_eq(hi, big);
                }
                if (map == CH4COLL_MAP_CYCLIC)
                    ck_assert_int_le(big - small, 1);
            }
    /* host-style labels (a node's lowest rank) */
    for (i = 0; i < 10; i++)
        node_of[i] = i % 3 == 2 ? 2 : i < 5 ? 0 : 5;
    ck_assert_int_eq(ch4coll_nodes_normalise(10, node_of, tmp), 3);
    ck_assert_int_eq(node_of[2], 1);
    ck_assert_int_eq(node_of[5], 1);
    ck_assert_int_eq(node_of[6], 2);
}
END_TEST

/* The rooted node order against brute force: the root's node first, its
 * ranks from the root up, then the lower ones; then the following nodes
 * and, wrapping, the preceding ones, each in rank order.  On one node or
 * one rank per node: the rotation by root. */
START_TEST(test_topo_node_order_rooted)
{
    int p, ppn, map, root, i, v, d;
    int node_of[65], tmp[65], seq[65], want[65], work[65 + 66];

    for (p = 1; p <= 64; p++)
        for (ppn = 1; ppn <= 9; ppn++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++) {
                int nodes;
                for (i = 0; i < p; i++)
                    node_of[i] = ch4coll_virtual_node(i, p, ppn, map);
                nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                for (root = 0; root < p; root++) {
                    int rn = node_of[root], k = 0;
                    for (i = root; i < p; i++)
                        if (node_of[i] == rn)
                            want[k++] = i;
                    for (i = 0; i < root; i++)
                        if (node_of[i] == rn)
                            want[k++] = i;
                    for (d = 1; d < nodes; d++)
                        for (i = 0; i < p; i++)
                            if (node_of[i] == (rn + d) % nodes)
                                want[k++] = i;
                    ck_assert_int_eq(k, p);
                    ch4coll_node_order_rooted(p, node_of, nodes, root, seq,
                                              work);
                    for (v = 0; v < p; v++) {
                        ck_assert_int_eq(seq[v], want[v]);
                        if (nodes == 1 || nodes == p)
                            ck_assert_int_eq(seq[v], (root + v) % p);
                    }
                }
            }
}
END_TEST

/* delta_expo_max: the paper's examples, brute force, and the selection
 * predicate's own function (select/predicates.c). */
START_TEST(test_topo_blocks_delta)
{
    static const int paper[][2] = {{100, 3}, {96, 1}, {60, 1}, {61, 2},
                                   {36, 3},  {77, 3}, {80, 2}, {235, 2},
                                   {251, 2}, {1, 0},  {64, 0}, {65, 6}};
    int i, p;

    for (i = 0; i < (int) (sizeof paper / sizeof paper[0]); i++)
        ck_assert_msg(ch4coll_blocks_delta_expo_max(paper[i][0]) == paper[i][1],
                      "delta_expo_max(%d) = %d, expected %d", paper[i][0],
                      ch4coll_blocks_delta_expo_max(paper[i][0]), paper[i][1]);
    for (p = 1; p <= 5000; p++) {
        int prev = -1, gap = 0, e;
        for (e = 30; e >= 0; e--)
            if (p >> e & 1) {
                if (prev >= 0 && prev - e > gap)
                    gap = prev - e;
                prev = e;
            }
        ck_assert_int_eq(ch4coll_blocks_delta_expo_max(p), gap);
        ck_assert_int_eq(ch4coll_blocks_delta_expo_max(p),
                         ch4coll_delta_expo_max(p));
    }
    ck_assert_int_eq(ch4coll_blocks_delta_expo_max(INT_MAX), 1);
    ck_assert_int_eq(ch4coll_blocks_delta_expo_max((1 << 30) | 1), 30);
}
END_TEST

/* Recursive halving ranges against a simulation of the halving: after j
 * steps l holds 2^(k-j) segments from halving_lo(l, j, k); they depend on
 * the low j bits only, the l < 2^j tile [0, 2^k), and each step keeps the
 * lower or upper half as bit j says. */
START_TEST(test_topo_halving_ranges)
{
    static unsigned char cover[1 << 10];
    int k, j, l;

    for (k = 0; k <= 10; k++)
        for (j = 0; j <= k; j++) {
            int len = 1 << (k - j), x;
            memset(cover, 0, sizeof cover);
            for (l = 0; l < 1 << k; l++) {
                int lo = 0, span = 1 << k, s, got = ch4coll_halving_lo(l, j, k);
                for (s = 0; s < j; s++) { /* simulate */
                    span /= 2;
                    if (l >> s & 1)
                        lo += span;
                }
                ck_assert_msg(got == lo, "k=%d j=%d l=%d: %d, expected %d", k,
                              j, l, got, lo);
                ck_assert_int_eq(got,
                                 ch4coll_halving_lo(l & ((1 << j) - 1), j, k));
                if (j < k) /* the next step keeps one half of this range */
                    ck_assert_int_eq(ch4coll_halving_lo(l, j + 1, k),
                                     got + (l >> j & 1) * (len / 2));
                if (l < 1 << j)
                    for (x = got; x < got + len; x++)
                        ck_assert_int_eq(cover[x]++, 0);
            }
            for (x = 0; x < 1 << k; x++)
                ck_assert_msg(cover[x] == 1, "k=%d j=%d: segment %d", k, j, x);
        }
}
END_TEST

/* Swing (blocks.h): partners are an involution of opposite parity at
 * every step; the reachable sets, computed by brute force (R(l, e) = {l},
 * R(l, s) = R(l, s+1) + R(partner(l, s), s+1)), are at every level s the
 * aligned intervals of 2^(e-s) positions the positions give, and l's half
 * at step s is the one holding l (P = 2^e <= 2^8; the hierarchy was checked
 * to 2^12 while writing it). */
START_TEST(test_topo_swing)
{
    static int pos[1 << 8], lab[1 << 8], nlab[1 << 8], inv[1 << 8];
    static unsigned char in[1 << 8][1 << 8]; /* in[l][x]: x in R(l, s) */
    int e, s, l, x;

    ck_assert_int_eq(ch4coll_swing_rho(0), 1);
    ck_assert_int_eq(ch4coll_swing_rho(1), -1);
    ck_assert_int_eq(ch4coll_swing_rho(2), 3);
    ck_assert_int_eq(ch4coll_swing_rho(3), -5);
    ck_assert_int_eq(ch4coll_swing_rho(4), 11);
    for (e = 0; e <= 8; e++) {
        int P = 1 << e;
        ch4coll_swing_positions(e, pos, lab, nlab);
        memset(inv, -1, sizeof inv);
        for (l = 0; l < P; l++) {
            ck_assert(pos[l] >= 0 && pos[l] < P && inv[pos[l]] < 0);
            inv[pos[l]] = l;
        }
        for (s = 0; s < e; s++)
            for (l = 0; l < P; l++) {
                int q = ch4coll_swing_partner(l, s, P);
                ck_assert_int_ne(q % 2, l % 2);
                ck_assert_int_eq(ch4coll_swing_partner(q, s, P), l);
            }
        /* R(l, s) by brute force, from s = e down; compared with the
         * interval of l's position at every level */
        memset(in, 0, sizeof in);
        for (l = 0; l < P; l++)
            in[l][l] = 1;
        for (s = e; s >= 0; s--) {
            if (s < e) {
                static unsigned char nin[1 << 8][1 << 8];
                for (l = 0; l < P; l++) {
                    int q = ch4coll_swing_partner(l, s, P);
                    for (x = 0; x < P; x++)
                        nin[l][x] = in[l][x] | in[q][x];
                }
                memcpy(in, nin, sizeof in);
            }
            for (l = 0; l < P; l++) {
                int lo = pos[l] >> (e - s) << (e - s);
                for (x = 0; x < P; x++)
                    ck_assert_msg(in[l][x] == (pos[x] >= lo &&
                                               pos[x] < lo + (1 << (e - s))),
                                  "e=%d s=%d l=%d x=%d", e, s, l, x);
            }
        }
    }
}
END_TEST

/* Balanced segments (topo.h) against their definition: for n = 0..300
 * items and 1..40 parts, segment j starts where segment j - 1 ends,
 * segment 0 at 0 and the end at n; the first n mod parts segments hold
 * ceil(n / parts) items, the rest floor(n / parts). */
START_TEST(test_seg_balanced)
{
    size_t n, parts, j;

    for (n = 0; n <= 300; n++)
        for (parts = 1; parts <= 40; parts++) {
            ck_assert_uint_eq(ch4coll_seg_off(n, parts, 0), 0);
            ck_assert_uint_eq(ch4coll_seg_off(n, parts, parts), n);
            for (j = 0; j < parts; j++) {
                size_t want = n / parts + (j < n % parts ? 1 : 0);
                ck_assert_uint_eq(ch4coll_seg_len(n, parts, j), want);
                ck_assert_uint_eq(ch4coll_seg_off(n, parts, j + 1) -
                                      ch4coll_seg_off(n, parts, j),
                                  want);
            }
        }
}
END_TEST

/* The ring in node order (nodes.h) for p = 1..64, ppn 1..8, block and
 * cyclic placement, every rank: a permutation, the same on every rank,
 * each node a run of positions in rank order, the returned position the
 * rank's own, and the ring crossing node boundaries exactly once per node
 * (no crossing on one node). */
START_TEST(test_node_ring_order)
{
    int p, ppn, map, r, x, i;

    for (p = 1; p <= 64; p++)
        for (ppn = 1; ppn <= 8; ppn++)
            for (map = 0; map < 2; map++) {
                int *node_of = malloc((size_t) p * sizeof *node_of);
                int *tmp = malloc((size_t) p * sizeof *tmp);
                int *order = malloc((size_t) p * sizeof *order);
                int *first0 = malloc(((size_t) p + 1) * sizeof *first0);
                int *ref = malloc((size_t) p * sizeof *ref);
                int *seen = calloc((size_t) p, sizeof *seen);
                int nodes, crossings = 0;

                for (r = 0; r < p; r++)
                    node_of[r] = ch4coll_virtual_node(r, p, ppn,
                                                      map ? CH4COLL_MAP_CYCLIC
                                                          : CH4COLL_MAP_BLOCK);
                nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                for (r = 0; r < p; r++) {
                    x = ch4coll_node_ring(p, node_of, nodes, r, order, first0);
                    ck_assert_int_eq(order[x], r);
                    if (r == 0)
                        memcpy(ref, order, (size_t) p * sizeof *ref);
                    ck_assert_mem_eq(order, ref, (size_t) p * sizeof *ref);
                }
                for (i = 0; i < p; i++) {
                    int a = ref[i], b = ref[(i + 1) % p];
                    ck_assert_int_eq(seen[a]++, 0);
                    if (node_of[a] != node_of[b])
                        crossings++;
                    else if (i + 1 < p)
                        ck_assert_int_lt(a, b); /* rank order in a node */
                    if (i > 0 && node_of[ref[i - 1]] != node_of[a])
                        ck_assert_int_eq(first0[node_of[a]], i);
                }
                ck_assert_int_eq(crossings, nodes > 1 ? nodes : 0);
                free(node_of);
                free(tmp);
                free(order);
                free(first0);
                free(ref);
                free(seen);
            }
}
END_TEST

/* =============================================================== main */

static Suite *topo_suite(void)
{
    Suite *s = suite_create("topo");
    TCase *tc;

    tc = tcase_create("topo");
    tcase_add_test(tc, test_topo_binomial);
    tcase_add_test(tc, test_topo_rd);
    tcase_add_test(tc, test_topo_blocks);
    tcase_add_test(tc, test_topo_nodes);
    tcase_add_test(tc, test_topo_node_order_rooted);
    tcase_add_test(tc, test_topo_blocks_delta);
    tcase_add_test(tc, test_topo_halving_ranges);
    tcase_add_test(tc, test_topo_swing);
    tcase_add_test(tc, test_seg_balanced);
    tcase_add_test(tc, test_node_ring_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, topo_suite);
}
