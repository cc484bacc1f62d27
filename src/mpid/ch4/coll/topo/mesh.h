/*
 * mesh.h - virtual meshes over the ranks of a communicator, and
 * Hamiltonian paths and cycles through them.
 *
 * The BlueGene/L collectives (Almasi et al., sections 3.1-3.2) run along
 * the lines and Hamiltonian paths of the machine's 3-D torus.  On a machine
 * without such a network the same schedules run on a virtual mesh: the p
 * ranks are laid out row-major on a d-dimensional grid whose extents come
 * from a balanced factorisation of p (as MPI_Dims_create does); a prime p
 * degrades to a 1-D line.
 *
 * Snake order (boustrophedon) walks the whole grid so that consecutive
 * positions are grid neighbours: the last dimension runs forward in even
 * lines and backward in odd ones, recursively.  A Hamiltonian cycle exists
 * when one extent is even (a grid with an odd number of points is
 * bipartite and unbalanced, so it has none): the walk goes along the first
 * row, snakes back through the other rows without touching column 0, and
 * returns up column 0.  Row = first grid dimension, column = the snake
 * position within the remaining dimensions.
 *
 * Pure integer arithmetic; test_topo_mesh.c checks every helper by brute
 * force.
 */
#ifndef CH4COLL_MESH_H
#define CH4COLL_MESH_H

#define CH4COLL_MESH_MAXD 3

/*
 * Balanced factorisation of p into nd extents (1 <= nd <= 3), largest
 * first, product p, as MPI_Dims_create does: among all factorisations the
 * one with the smallest largest extent, then the largest smallest extent.
 * p = 12, nd = 2 gives {4, 3}; p = 72, nd = 2 gives {9, 8}; p = 61, nd = 3
 * gives {61, 1, 1}.  O(p^(1/2) + d(p)^2) for d(p) divisors, build time only.
 */
static inline void ch4coll_mesh_dims(int p, int nd, int *dims)
{
    int a, b, best[3] = {p, 1, 1};

    if (nd == 2) {
        for (a = 1; (long) a * a <= p; a++)
            if (p % a == 0)
                best[0] = p / a, best[1] = a;
    } else if (nd == 3) {
        for (a = 1; (long) a * a * a <= p; a++) {
            if (p % a != 0)
                continue;
            for (b = a; (long) b * b <= p / a; b++) {
                int c = p / a / b;
                if ((p / a) % b != 0)
                    continue;
                /* a <= b <= c: smaller c wins, then larger a */
                if (c < best[0] || (c == best[0] && a > best[2])) {
                    best[0] = c;
                    best[1] = b;
                    best[2] = a;
                }
            }
        }
    }
    for (a = 0; a < nd; a++)
        dims[a] = best[a];
}

/* Row-major coordinates of rank r (dims[nd-1] varies fastest) and back. */
static inline void ch4coll_mesh_coords(int r, int nd, const int *dims, int *c)
{
    int i;

    for (i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static inline int ch4coll_mesh_rank(int nd, const int *dims, const int *c)
{
    int i, r = 0;

    for (i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

/* Grid coordinates of snake position i (0 <= i < product of dims). */
static inline void ch4coll_snake_coords(int i, int nd, const int *dims, int *c)
{
    int k, block = 1;

    for (k = 1; k < nd; k++)
        block *= dims[k];
    for (k = 0; k < nd; k++) {
        c[k] = i / block;
        i %= block;
        if (c[k] % 2 == 1) /* odd line: the rest runs backwards */
            i = block - 1 - i;
        if (k + 1 < nd)
            block /= dims[k + 1];
    }
}

/* The rank at snake position i. */
static inline int ch4coll_snake_rank(int i, int nd, const int *dims)
{
    int c[CH4COLL_MESH_MAXD];

    ch4coll_snake_coords(i, nd, dims, c);
    return ch4coll_mesh_rank(nd, dims, c);
}

/*
 * The grid seen by the cycle: rows = dims[0], columns = the snake positions
 * of the remaining dimensions (consecutive columns are grid neighbours).
 * 1 if a Hamiltonian cycle exists (p = 2, or rows or columns even with
 * both at least 2).
 */
static inline int ch4coll_mesh_has_cycle(int nd, const int *dims)
{
    int k, rows = dims[0], cols = 1;

    for (k = 1; k < nd; k++)
        cols *= dims[k];
    if (rows * cols == 2)
        return 1;
    return rows >= 2 && cols >= 2 && (rows % 2 == 0 || cols % 2 == 0);
}

/* The rank at cycle position i, or -1 if the grid has no cycle. */
static inline int ch4coll_cycle_rank(int i, int nd, const int *dims)
{
    int k, rows = dims[0], cols = 1, x, y, a, b, j, c[CH4COLL_MESH_MAXD];

    for (k = 1; k < nd; k++)
        cols *= dims[k];
    if (!ch4coll_mesh_has_cycle(nd, dims))
        return -1;
    if (rows * cols == 2)
        return i;
    /* walk an a x b grid with a even; (x, y) = (row, column) of it */
    a = rows % 2 == 0 ? rows : cols;
    b = rows % 2 == 0 ? cols : rows;
    if (i < b) { /* along row 0 */
        x = 0;
        y = i;
    } else if (i < b + (a - 1) * (b - 1)) { /* snake rows 1..a-1, cols >= 1 */
        j = i - b;
        x = 1 + j / (b - 1);
        y = x % 2 == 1 ? b - 1 - j % (b - 1) : 1 + j % (b - 1);
    } else { /* back up column 0 */
        x = a - 1 - (i - b - (a - 1) * (b - 1));
        y = 0;
    }
    if (rows % 2 != 0) { /* the walk was on the transposed grid */
        int t = x;
        x = y;
        y = t;
    }
    /* x = row of the mesh, y = snake position among the other dims */
    c[0] = x;
    if (nd > 1)
        ch4coll_snake_coords(y, nd - 1, dims + 1, c + 1);
    return ch4coll_mesh_rank(nd, dims, c);
}

/* 1 if ranks r and q are grid neighbours (coordinates differ by one in
 * exactly one dimension; no wrap-around). */
static inline int ch4coll_mesh_adjacent(int r, int q, int nd, const int *dims)
{
    int cr[CH4COLL_MESH_MAXD], cq[CH4COLL_MESH_MAXD], k, dist = 0;

    ch4coll_mesh_coords(r, nd, dims, cr);
    ch4coll_mesh_coords(q, nd, dims, cq);
    for (k = 0; k < nd; k++)
        dist += cr[k] > cq[k] ? cr[k] - cq[k] : cq[k] - cr[k];
    return dist == 1;
}

#endif /* CH4COLL_MESH_H */
