/*
 * test_topo_mesh.c - unit tests of the virtual mesh of topo/mesh.h, all
 * against brute force.
 *
 * What is covered, and why it matters:
 *
 *   mesh       Virtual mesh dims (balanced and optimal, p = 1..300 in every
 *              dimension count), row-major coordinates and adjacency, the
 *              snake path and the Hamiltonian cycle (p = 1..300), and
 *              has_cycle's "no" against exhaustive search on small meshes.
 *   torus      The torus ring of topo/torus.h on eight tori (sides 2-16,
 *              odd ones included), every host count up to 1100: each host
 *              once, every hop between torus neighbours but one two-hop
 *              step when the count is odd, and the links the ring's routes
 *              use (dimension-ordered, shortest way round, SimGrid's
 *              rule, decoded here on its own): none twice one way round,
 *              none twice both ways for an even count; the worked
 *              examples; no ring where the note says none; the rank order
 *              over nodes of several ranks.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK).
 */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "topo/mesh.h"
#include "topo/packing.h"
#include "topo/torus.h"
#include "unit.h"

/* Row-major coordinates, written out again so that the mesh helpers are
 * checked against an independent decoding. */
static void mesh_decode(int r, int nd, const int *dims, int *c)
{
    int k, stride = 1;

    for (k = 1; k < nd; k++)
        stride *= dims[k];
    for (k = 0; k < nd; k++) {
        c[k] = r / stride;
        r %= stride;
        if (k + 1 < nd)
            stride /= dims[k + 1];
    }
}

/* Grid neighbours: coordinates differ by one in exactly one dimension. */
static int mesh_nbrs(int r, int q, int nd, const int *dims)
{
    int cr[CH4COLL_MESH_MAXD], cq[CH4COLL_MESH_MAXD], k, dist = 0;

    mesh_decode(r, nd, dims, cr);
    mesh_decode(q, nd, dims, cq);
    for (k = 0; k < nd; k++)
        dist += abs(cr[k] - cq[k]);
    return dist == 1;
}

static int largest_prime_factor(int p)
{
    int d, f = 1;

    for (d = 2; d <= p; d++)
        while (p % d == 0) {
            f = d;
            p /= d;
        }
    return f;
}

/* Depth-first search for a Hamiltonian cycle through rank 0. */
static int ham_extend(int *path, int len, unsigned char *used, int p, int nd,
                      const int *dims)
{
    int q;

    if (len == p)
        return p == 1 || p == 2 || mesh_nbrs(path[p - 1], path[0], nd, dims);
    for (q = 0; q < p; q++)
        if (!used[q] && mesh_nbrs(path[len - 1], q, nd, dims)) {
            used[q] = 1;
            path[len] = q;
            if (ham_extend(path, len + 1, used, p, nd, dims))
                return 1;
            used[q] = 0;
        }
    return 0;
}

START_TEST(test_mesh_dims)
{
    int p, nd, k, m, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            long prod = 1;
            ch4coll_mesh_dims(p, nd, dims);
            for (k = 0; k < nd; k++) {
                ck_assert_int_ge(dims[k], 1);
                if (k > 0)
                    ck_assert_msg(dims[k] <= dims[k - 1],
                                  "p=%d nd=%d: extents not descending", p, nd);
                prod *= dims[k];
            }
            ck_assert_msg(prod == p, "p=%d nd=%d: product %ld", p, nd, prod);
            /* balance: largest over smallest at most the largest prime
             * factor */
            ck_assert_msg(dims[0] <= dims[nd - 1] * largest_prime_factor(p),
                          "p=%d nd=%d: %d vs %d", p, nd, dims[0], dims[nd - 1]);
            /* optimal: no factorisation has a smaller largest extent */
            {
                int a, b, c, opt = p;
                for (a = 1; a <= p; a++)
                    for (b = 1; b <= (nd > 1 ? p : 1); b++) {
                        if (nd == 1 && (a != p || b != 1))
                            continue;
                        if ((long) a * b > p || p % (a * b) != 0)
                            continue;
                        c = p / (a * b);
                        if (nd == 2 && c != 1)
                            continue;
                        if (a >= b && b >= c && a < opt)
                            opt = a;
                    }
                ck_assert_msg(dims[0] == opt, "p=%d nd=%d: largest %d, best %d",
                              p, nd, dims[0], opt);
            }
        }
    /* perfect powers split evenly; a prime stays a line */
    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (m = 1; m <= 17; m++) {
            int q = 1;
            for (k = 0; k < nd; k++)
                q *= m;
            if (q > 5000)
                continue;
            ch4coll_mesh_dims(q, nd, dims);
            for (k = 0; k < nd; k++)
                ck_assert_msg(dims[k] == m, "%d^%d: extent %d is %d", m, nd, k,
                              dims[k]);
        }
    ch4coll_mesh_dims(61, 3, dims);
    ck_assert(dims[0] == 61 && dims[1] == 1 && dims[2] == 1);
    ch4coll_mesh_dims(12, 2, dims);
    ck_assert(dims[0] == 4 && dims[1] == 3);
    ch4coll_mesh_dims(72, 2, dims);
    ck_assert(dims[0] == 9 && dims[1] == 8);
}
END_TEST

START_TEST(test_mesh_coords)
{
    int p, nd, r, k, dims[CH4COLL_MESH_MAXD], c[CH4COLL_MESH_MAXD],
        e[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            for (r = 0; r < p; r++) {
                ch4coll_mesh_coords(r, nd, dims, c);
                mesh_decode(r, nd, dims, e);
                for (k = 0; k < nd; k++)
                    ck_assert_int_eq(c[k], e[k]);
                ck_assert_int_eq(ch4coll_mesh_rank(nd, dims, c), r);
                if (r > 0)
                    ck_assert_int_eq(ch4coll_mesh_adjacent(r - 1, r, nd, dims),
                                     mesh_nbrs(r - 1, r, nd, dims));
                ck_assert_int_eq(
                    ch4coll_mesh_adjacent(r, (r * 7 + 3) % p, nd, dims),
                    mesh_nbrs(r, (r * 7 + 3) % p, nd, dims));
            }
        }
}
END_TEST

START_TEST(test_mesh_snake)
{
    unsigned char seen[300];
    int p, nd, i, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            memset(seen, 0, sizeof seen);
            ck_assert_int_eq(ch4coll_snake_rank(0, nd, dims), 0);
            for (i = 0; i < p; i++) {
                int r = ch4coll_snake_rank(i, nd, dims);
                ck_assert_msg(r >= 0 && r < p, "p=%d nd=%d: position %d -> %d",
                              p, nd, i, r);
                ck_assert_msg(seen[r]++ == 0, "p=%d nd=%d: rank %d twice", p,
                              nd, r);
                if (i > 0)
                    ck_assert_msg(mesh_nbrs(ch4coll_snake_rank(i - 1, nd, dims),
                                            r, nd, dims),
                                  "p=%d nd=%d: positions %d, %d not adjacent",
                                  p, nd, i - 1, i);
            }
        }
}
END_TEST

START_TEST(test_mesh_cycle)
{
    unsigned char seen[300];
    int p, nd, i, k, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            int big = 0, even = 0, expect, has;
            ch4coll_mesh_dims(p, nd, dims);
            for (k = 0; k < nd; k++) {
                big += dims[k] >= 2;
                even |= dims[k] % 2 == 0;
            }
            /* a cycle exists exactly when an extent is even and the mesh
             * is not a line (p = 2: the two ranks and back) */
            expect = p == 2 || (even && big >= 2);
            has = ch4coll_mesh_has_cycle(nd, dims);
            ck_assert_msg(has == expect, "p=%d nd=%d: has_cycle %d", p, nd,
                          has);
            memset(seen, 0, sizeof seen);
            for (i = 0; i < p; i++) {
                int r = ch4coll_cycle_rank(i, nd, dims);
                if (!has) {
                    ck_assert_int_eq(r, -1);
                    continue;
                }
                ck_assert_msg(r >= 0 && r < p, "p=%d nd=%d: position %d -> %d",
                              p, nd, i, r);
                ck_assert_msg(seen[r]++ == 0, "p=%d nd=%d: rank %d twice", p,
                              nd, r);
                ck_assert_msg(
                    mesh_nbrs(r, ch4coll_cycle_rank((i + 1) % p, nd, dims), nd,
                              dims),
                    "p=%d nd=%d: positions %d, %d not adjacent", p, nd, i,
                    (i + 1) % p);
            }
        }
}
END_TEST

/* has_cycle's "no" against exhaustive search on small meshes */
START_TEST(test_mesh_cycle_brute)
{
    int path[16], p, nd, dims[CH4COLL_MESH_MAXD];
    unsigned char used[16];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 2; p <= 16; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            memset(used, 0, sizeof used);
            used[0] = 1;
            path[0] = 0;
            ck_assert_msg(ham_extend(path, 1, used, p, nd, dims) ==
                              ch4coll_mesh_has_cycle(nd, dims),
                          "p=%d nd=%d", p, nd);
        }
}
END_TEST

/* ============================================================== torus */

/* Coordinates of torus host h, x fastest. */
static void torus_decode(int h, const int *d, int *c)
{
    c[0] = h % d[0];
    c[1] = h / d[0] % d[1];
    c[2] = h / (d[0] * d[1]);
}

/* Hops between two hosts, the shortest way round in every dimension. */
static int torus_hops(int a, int b, const int *d)
{
    int ca[3], cb[3], k, h = 0;

    torus_decode(a, d, ca);
    torus_decode(b, d, cb);
    for (k = 0; k < 3; k++) {
        int t = ca[k] > cb[k] ? ca[k] - cb[k] : cb[k] - ca[k];
        h += t < d[k] - t ? t : d[k] - t;
    }
    return h;
}

/* Count the directed links of the route from a to b into use[host * 6 +
 * 2k + (down)]: dimension by dimension, x first, each the way SimGrid's
 * torus goes (up when the target is at most half the side ahead, or
 * behind by wrapping from the upper half); returns the most any link now
 * carries. */
static int torus_route(int a, int b, const int *d, int *use)
{
    int c[3], t[3], s[3], k, most = 0;

    torus_decode(a, d, c);
    torus_decode(b, d, t);
    torus_decode(a, d, s);
    for (k = 0; k < 3; k++)
        while (c[k] != t[k]) {
            int up = (t[k] > s[k] && t[k] <= s[k] + d[k] / 2) ||
                     (s[k] > d[k] / 2 && (s[k] + d[k] / 2) % d[k] >= t[k]);
            int h = c[0] + d[0] * (c[1] + d[1] * c[2]);
            int *u = &use[h * 6 + 2 * k + !up];

            if (++*u > most)
                most = *u;
            c[k] = (c[k] + (up ? 1 : d[k] - 1)) % d[k];
        }
    return most;
}

START_TEST(test_torus_ring)
{
    static const int dims[][3] = {{16, 16, 16}, {8, 8, 8},   {4, 6, 8},
                                  {6, 4, 4},    {12, 12, 2}, {2, 2, 2},
                                  {4, 4, 4},    {10, 3, 5}};
    size_t t;

    for (t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        const int *d = dims[t];
        int64_t d64[2] = {d[0], d[1]};
        int hosts = d[0] * d[1] * d[2], n;
        int *seq = malloc((size_t) hosts * sizeof *seq);
        int *seen = malloc((size_t) hosts * sizeof *seen);
        int *use = malloc((size_t) hosts * 6 * sizeof *use);

        for (n = 1; n <= hosts && n <= 1100; n++) {
            int made = ch4coll_torus_ring(n, d64, seq), i, two = 0, one = 0;
            int s = n > d[0] * d[1] ? d[0] * d[1] : d[0];
            int none = n <= d[0] || s % 2 || (s > d[0] && d[1] % 2);

            ck_assert_msg(made == !none, "dims %d %d %d n=%d made=%d", d[0],
                          d[1], d[2], n, made);
            if (!made)
                continue;
            memset(seen, 0, (size_t) hosts * sizeof *seen);
            for (i = 0; i < n; i++) {
                int h = torus_hops(seq[i], seq[(i + 1) % n], d);

                ck_assert(seq[i] >= 0 && seq[i] < n && !seen[seq[i]]);
                seen[seq[i]] = 1;
                ck_assert_msg(h == 1 || (h == 2 && n % 2 && !two++),
                              "dims %d %d %d n=%d hop %d: %d", d[0], d[1], d[2],
                              n, i, h);
            }
            memset(use, 0, (size_t) hosts * 6 * sizeof *use);
            for (i = 0; i < n; i++)
                one |= torus_route(seq[i], seq[(i + 1) % n], d, use) > 1;
            ck_assert_msg(!one, "dims %d %d %d n=%d: a link twice", d[0], d[1],
                          d[2], n);
            if (n % 2)
                continue;
            for (i = 0; i < n; i++)
                one |= torus_route(seq[(i + 1) % n], seq[i], d, use) > 1;
            ck_assert_msg(!one, "dims %d %d %d n=%d: a link twice both ways",
                          d[0], d[1], d[2], n);
        }
        free(seq);
        free(seen);
        free(use);
    }
}
END_TEST

START_TEST(test_torus_examples)
{
    static const int want24[] = {0, 16, 17, 1, 2, 18, 19, 3,  4,  20, 21, 5,
                                 6, 22, 23, 7, 8, 9,  10, 11, 12, 13, 14, 15};
    int64_t d[2] = {16, 16}, line[2] = {2, 0};
    int seq[64], i, node_of[12], order[12], work[64], x;

    ck_assert(ch4coll_torus_ring(24, d, seq));
    for (i = 0; i < 24; i++)
        ck_assert_int_eq(seq[i], want24[i]);
    ck_assert(ch4coll_torus_ring(61, d, seq));
    for (i = 0; i < 61; i++) /* the one diagonal: (12, 3) to (13, 2) */
        if (seq[i] == 12 + 16 * 3)
            ck_assert_int_eq(seq[i + 1], 13 + 16 * 2);
    ck_assert(!ch4coll_torus_ring(16, d, seq)); /* one whole x line */
    ck_assert(!ch4coll_torus_ring(7, d, seq));  /* part of one */
    /* a line of 2 (y of 0 means 1): columns in z, one diagonal step */
    ck_assert(ch4coll_torus_ring(3, line, seq));
    ck_assert(seq[0] == 0 && seq[1] == 2 && seq[2] == 1);
    /* 12 ranks on 6 nodes of 2, cyclic: node j holds ranks j and j + 6 */
    for (i = 0; i < 12; i++)
        node_of[i] = i % 6;
    d[0] = 4;
    d[1] = 2;
    /* 6 nodes on 4 x 2: hosts 0 4 5 1 2 3, each node's ranks in order */
    x = ch4coll_torus_rank_ring(12, node_of, 6, d, 1, 5, order, work);
    {
        static const int want[] = {0, 6, 4, 10, 5, 11, 1, 7, 2, 8, 3, 9};

        for (i = 0; i < 12; i++)
            ck_assert_int_eq(order[i], want[i]);
    }
    ck_assert_int_eq(x, 4);
    /* 5 nodes both ways: no ring (odd); one way: a ring */
    ck_assert_int_eq(ch4coll_torus_rank_ring(5, NULL, 5, d, 1, 0, order, work),
                     -1);
    ck_assert_int_ge(ch4coll_torus_rank_ring(5, NULL, 5, d, 0, 0, order, work),
                     0);
}
END_TEST

/* One placement's trees: k of them (want, or the fewest links any node
 * has, capped at CH4COLL_PACKING_MAXK, when want is 0), every parent a
 * torus neighbour, every node reaching the root, no directed link in two
 * trees. */
static void packing_check(int n, int x, int y, int root, int want)
{
    int d[3] = {x, y > 0 ? y : 1, 1 << 20}; /* no wrap in z */
    int least = ch4coll_packing_degree(n, x, y), t, v, w, hops;
    ch4coll_packing_t pk;
    int *owner = calloc((size_t) n * (size_t) n, sizeof *owner);

    ck_assert_ptr_nonnull(owner);
    ck_assert_int_eq(ch4coll_packing_build(&pk, n, x, y, root, 4), 0);
    if (!want)
        want = least < CH4COLL_PACKING_MAXK ? least : CH4COLL_PACKING_MAXK;
    ck_assert_msg(pk.k == want, "%d x %d n=%d root %d: %d trees, want %d", x, y,
                  n, root, pk.k, want);
    ck_assert_int_eq(ch4coll_packing_count(n, x, y, root, 4), pk.k); /* flows */
    for (t = 0; t < pk.k; t++)
        for (v = 0; v < n; v++) {
            const int *parent = pk.parent + (size_t) t * (size_t) n;

            ck_assert((parent[v] < 0) == (v == root));
            if (v == root)
                continue;
            ck_assert_msg(torus_hops(parent[v], v, d) == 1,
                          "%d x %d n=%d tree %d: %d -> %d no neighbours", x, y,
                          n, t, parent[v], v);
            ck_assert_msg(owner[parent[v] * n + v]++ == 0,
                          "%d x %d n=%d: %d -> %d in two trees", x, y, n,
                          parent[v], v);
            for (w = v, hops = 0; parent[w] >= 0 && hops <= n; hops++)
                w = parent[w];
            ck_assert_msg(w == root, "%d x %d n=%d tree %d: %d cut off", x, y,
                          n, t, v);
        }
    ch4coll_packing_free(&pk);
    free(owner);
}

/* Edmonds' count on SimGrid's 16 x 16 torus: 2 with a partial x line or
 * one whole line, 3 for whole lines or a plane but one host (the y ring
 * closes), 4 for the whole plane; every
 * placement of small tori, 2- and 3-D, from a spread of roots, as many
 * trees as the fewest links (those placements' cut bound). */
START_TEST(test_packing)
{
    static const int ps[][2] = {{16, 2}, {24, 2},  {61, 2}, {32, 3},
                                {96, 3}, {255, 3}, {256, 4}};
    static const int sides[][2] = {{3, 5}, {4, 4}, {5, 2}, {2, 3},
                                   {6, 1}, {4, 3}, {1, 4}};
    static const int deep[][2] = {{24, 16}, {61, 13}, {96, 20}};
    size_t i;
    int n, r;

    for (i = 0; i < sizeof ps / sizeof ps[0]; i++)
        for (r = 0; r < ps[i][0]; r += 7)
            packing_check(ps[i][0], 16, 16, r, ps[i][1]);
    for (i = 0; i < sizeof sides / sizeof sides[0]; i++)
        for (n = 2; n <= 3 * sides[i][0] * sides[i][1]; n++)
            for (r = 0; r < n; r += 1 + n / 4)
                packing_check(n, sides[i][0], sides[i][1], r, 0);
    ck_assert_int_eq(ch4coll_packing_degree(1, 16, 16), 0);
    ck_assert_int_eq(ch4coll_packing_degree(96, 16, 16), 3);
    /* grown together, no tree goes the long way round: from every root
     * at most 16, 13 and 20 hops deep at p = 24, 61, 96 (grown one after
     * the other: 16, 19 and 27; the BG/L pair at p = 96: 19-20) */
    for (i = 0; i < sizeof deep / sizeof deep[0]; i++)
        for (r = 0; r < deep[i][0]; r++) {
            ch4coll_packing_t pk;

            ck_assert_int_eq(
                ch4coll_packing_build(&pk, deep[i][0], 16, 16, r, 4), 0);
            ck_assert_msg(ch4coll_packing_depth(&pk) <= deep[i][1],
                          "p=%d root %d: %d hops deep", deep[i][0], r,
                          ch4coll_packing_depth(&pk));
            ch4coll_packing_free(&pk);
        }
}
END_TEST

/* =============================================================== main */

static Suite *topo_mesh_suite(void)
{
    Suite *s = suite_create("topo_mesh");
    TCase *tc;

    tc = tcase_create("topo");
    tcase_add_test(tc, test_mesh_dims);
    tcase_add_test(tc, test_mesh_coords);
    tcase_add_test(tc, test_mesh_snake);
    tcase_add_test(tc, test_mesh_cycle);
    tcase_add_test(tc, test_mesh_cycle_brute);
    tcase_add_test(tc, test_torus_ring);
    tcase_add_test(tc, test_torus_examples);
    tcase_add_test(tc, test_packing);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, topo_mesh_suite);
}
