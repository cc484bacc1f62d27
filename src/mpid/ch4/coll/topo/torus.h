/*
 * torus.h - a ring through the nodes of a communicator that sit on a
 * torus, every hop between torus neighbours.
 *
 * Placement (the ring algorithms' parameters torus_x and torus_y): the
 * communicator's nodes, numbered in order of their first rank (nodes.h),
 * sit at hosts 0, 1, 2, ... of a 3-D torus of X x Y x Z hosts numbered x
 * fastest, host h at (h mod X, h / X mod Y, h / XY): the way SimGrid's
 * torus numbers its hosts and a contiguous allocation on a torus machine
 * (BlueGene, Tofu) lays out the ranks.  A torus_y of 0 means 1.  Z does
 * not matter: the ring never wraps around in z.
 *
 * Why.  A ring in node order follows the torus's x lines, but where a
 * line ends it jumps to the start of the next one, and the closing hop
 * runs back across the whole set.  With dimension-ordered routing those
 * long hops share links with the short ones: one way round, the ring gets
 * each link alone; both ways (bidir_ring) two streams share some links
 * and the ring runs at half speed, whenever the hosts do not fill whole x
 * lines (the BlueGene/L collectives ran along Hamiltonian paths of the
 * machine's torus for this reason: Almasi et al. section 3.1).
 *
 * The cycle.  Take the smallest slice of whole lower dimensions that the
 * n hosts overflow: S = X hosts (one x line) when X < n <= XY, else
 * S = XY (one plane).  The hosts are P = n / S full slices plus the first
 * rem = n mod S hosts of the next: a column of height P + 1 above each of
 * those, of height P above the others.  Walk the slice along a cycle of
 * neighbours on which the first rem hosts are consecutive (the x line
 * itself, through its wrap-around link; for a plane, rows in alternating
 * directions closed by the y wrap-around, the first row's direction
 * chosen so that the partial row runs forward); go up the first column,
 * down the second, and so on.
 * With S even the walk ends at the bottom of the last column, next to
 * where it started.  Every hop is between neighbours except, when rem is
 * odd, one step from the top of the last tall column to the top of the
 * next short one (one hop across, one down): n is then odd, and a torus
 * of even sides is bipartite, so no cycle of odd length has only
 * neighbour hops.  The routes of that step, x first, pass through a host
 * above a short column (free) and down its link: no link is shared one
 * way round.
 *
 * Worked example, a 16 x 16 x 16 torus, n = 24: S = 16, P = 1, rem = 8;
 * columns 0..7 have hosts at y = 0 and 1, columns 8..15 at y = 0 only.
 * The ring: 0 16 17 1 2 18 19 3 4 20 21 5 6 22 23 7 8 9 ... 15, and back
 * from 15 to 0 through the x wrap-around.  n = 61: P = 3, rem = 13,
 * columns 0..12 of height 4, 13..15 of height 3: up column 0, down 1, ...,
 * up 12 to (12, 3), then across and down to (13, 2), down 13, up 14, down
 * 15, back to (0, 0).
 *
 * No ring is made (the caller keeps its order) when n fits in one x line
 * (n <= X: a partial line has no cycle of neighbour hops, and a whole one
 * is the node order), the slice has an odd number of hosts, or a plane
 * has an odd number of rows but one (its cycle could not close with one
 * hop).
 *
 * Pure integer arithmetic; test_topo_mesh.c checks every ring by brute
 * force: each host once, neighbour hops, and the links the routes share.
 */
#ifndef CH4COLL_TORUS_H
#define CH4COLL_TORUS_H

#include <stddef.h>
#include <stdint.h>

#include "nodes.h"

/* The host at position i of the slice's cycle: the x line (plane = 0),
 * or the plane's rows in alternating directions, row 0 backwards when
 * full_rows_odd (the partial slice's whole rows are odd in number, so
 * that its partial row runs forward, right after them). */
static inline int ch4coll_torus_slice_host(int i, int x_len, int plane,
                                           int full_rows_odd)
{
    int y, x;

    if (!plane)
        return i;
    y = i / x_len;
    x = i % x_len;
    if ((y % 2 == 0) == full_rows_odd) /* this row runs backwards */
        x = x_len - 1 - x;
    return y * x_len + x;
}

/* The ring of hosts 0..n-1 on a torus of dims[0] x dims[1] x any hosts
 * (see the note; dims[1] of 0 means 1) into seq[n]; returns 1, or 0 when
 * no ring is made (seq untouched). */
static inline int ch4coll_torus_ring(int n, const int64_t *dims, int *seq)
{
    int x_len, y_len, s, plane, p_full, rem, odd, i, j, k, q, h;

    if (dims[0] < 1 || n <= dims[0])
        return 0;
    x_len = (int) dims[0];
    y_len = dims[1] > 1 ? (int) dims[1] : 1; /* at most 4096 (registry) */
    plane = (int64_t) x_len * y_len < n;
    s = plane ? x_len * y_len : x_len;
    if (s % 2 != 0 || (plane && y_len > 1 && y_len % 2 != 0))
        return 0;
    p_full = n / s;
    rem = n % s;
    /* the slice's first rem hosts come first in its cycle: the tall
     * columns are consecutive */
    odd = (rem / x_len) % 2;
    k = 0;
    for (i = 0; i < s; i++) {
        q = ch4coll_torus_slice_host(i, x_len, plane, odd);
        h = p_full + (q < rem);
        for (j = 0; j < h; j++)
            seq[k++] = q + s * (i % 2 == 0 ? j : h - 1 - j);
    }
    return 1;
}

/* Ints of work ch4coll_torus_rank_ring needs for this many nodes. */
static inline size_t ch4coll_torus_work(int nodes)
{
    return 3 * (size_t) nodes + 1;
}

/* The ranks in the order of their nodes along ch4coll_torus_ring (node j
 * at host j), each node's ranks in rank order, into order[p]; returns
 * rank's position in it, or -1 when there is no such ring (order
 * untouched).  both: the ring runs both ways at once, and an odd number
 * of nodes gets no ring (its one step that is not a neighbour hop would
 * share a link with the other way).  node_of NULL: one rank per node
 * (nodes = p).  work: ch4coll_torus_work(nodes) ints. */
static inline int ch4coll_torus_rank_ring(int p, const int *node_of, int nodes,
                                          const int64_t *dims, int both,
                                          int rank, int *order, int *work)
{
    int *seq = work, *pos = work + nodes, *start = work + 2 * nodes, i, x;

    if ((both && nodes % 2 != 0) || !ch4coll_torus_ring(nodes, dims, seq))
        return -1;
    for (i = 0; i < nodes; i++)
        pos[seq[i]] = i;
    for (i = 0; i <= nodes; i++)
        start[i] = 0;
    for (i = 0; i < p; i++) /* counting sort by the node's place */
        start[pos[node_of ? node_of[i] : i] + 1]++;
    for (i = 0; i < nodes; i++)
        start[i + 1] += start[i];
    x = -1;
    for (i = 0; i < p; i++) {
        int at = start[pos[node_of ? node_of[i] : i]]++;

        order[at] = i;
        if (i == rank)
            x = at;
    }
    return x;
}

/* A ring algorithm's order of the ranks into order[p]: the torus ring
 * when torus (torus_x, torus_y) is given and makes one, else the node
 * order when the nodes are not consecutive; returns rank's position, or
 * -1 when rank order is the ring (order untouched).  node_of NULL: one
 * rank per node.  work: ch4coll_torus_work(nodes) ints. */
static inline int ch4coll_ring_order(int p, const int *node_of, int nodes,
                                     int consecutive, const int64_t *torus,
                                     int both, int rank, int *order, int *work)
{
    int x = -1;

    if (torus && torus[0] > 0)
        x = ch4coll_torus_rank_ring(p, node_of, nodes, torus, both, rank, order,
                                    work);
    if (x < 0 && node_of && !consecutive)
        x = ch4coll_node_ring(p, node_of, nodes, rank, order, work);
    return x;
}

#endif
