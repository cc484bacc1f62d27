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
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK).
 */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "topo/mesh.h"
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
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, topo_mesh_suite);
}
