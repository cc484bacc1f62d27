/*
 * line.c - the BlueGene/L "line" collectives on a virtual mesh: a
 * multi-stream pipelined broadcast, the broadcast down both ways of a
 * cycle or down link-disjoint spanning trees of the torus, a multi-phase
 * allreduce for short vectors and the allgather of the same phases.
 *
 * Source: Almasi et al. (BG/L) section 3.1, Figure 1 (broadcast: parts of
 * the message pipelined down non-overlapping spanning trees of the mesh)
 * and 3.2, Figures 3-4 (short allreduce: all data broadcast in a line, the
 * processing replicated, one round per dimension).  The torus becomes the
 * virtual mesh of topo/mesh.h, the deposit bit a point-to-point chain.
 * The most link-disjoint trees: Edmonds 1973, built as in Lovász 1976
 * (topo/packing.h).
 *
 * ---------------------------------------------------------------- bcast
 * Parameters: chunk (bytes, default 65536, 1 .. 2^40; at most 2^20 chunks
 * per part, a smaller chunk is raised), streams (1 .. 3, default 1) and
 * inflight (1 .. 16, default 2: the chunks in flight to each child, see
 * bc_step).  The mesh over vr = (rank - root) mod p is
 * ch4coll_mesh_dims(p, streams), and s = its extents > 1 streams run (a
 * prime p gives s = 1).  s = 1: a chain 0 -> 1 -> ... -> p-1 of relative
 * ranks; a rank forwards chunk c while receiving the next ones (16
 * receives posted ahead, inflight sends per child: bc_step).  s > 1: part
 * j of s, chunked likewise, runs down spanning tree j, which visits the
 * dimensions in the order j, j+1,
 * ..., j-1 (mod s).  In tree j a rank's level L is the last position of
 * that order at which its coordinate is non-zero; its parent is one step
 * back along dimension o_L; it forwards each chunk first along its own
 * line (o_L), then starts the lines of the later dimensions o_t, t > L.
 * The root starts all s lines.
 * Cost (t = alpha + c beta, c the largest chunk, K chunks in all, extents
 * d_i; the chain is s = 1, d_0 = p):
 *   T = s (K alpha + n beta) + (sum_i (d_i - 1) - s) t:
 * on one port the root sends every chunk to its s children in turn (BG/L's
 * links made that nearly free), then the last chunk travels the remaining
 * hops as a first child.  Streams pay off when the chain's depth p - 1
 * dominates: many ranks, few chunks.  Scratch: none.  Any p, root, count.
 *
 * Worked example, p = 6, streams = 2, root 0: dims {3, 2}; vr = 2x + y.
 * Tree 0 (x, then y): 0 -> 2 -> 4, then 0 -> 1, 2 -> 3, 4 -> 5.  Tree 1
 * (y, then x): 0 -> 1; 0 -> 2 -> 4 and 1 -> 3 -> 5.  Rank 3 gets part 0
 * from 2 and part 1 from 1; rank 0 sends every chunk of each part to 2, 1.
 *
 * ------------------------------------------------------ bcast bidir_chain
 * Section 3.1's two streams in opposite directions round a cycle (there
 * for reduce and allreduce along a path), on the cycle of relative ranks
 * vr = (rank - root) mod p: the first half of the message goes down the
 * chain vr = 1, 2, ..., p-1, the second down p-1, p-2, ..., 1, each
 * pipelined in chunks as the chain above (bc_step, inflight sends per
 * child).  Every rank but the root and relative ranks 1 and p-1 (each the
 * last of one chain) receives n/2 bytes from each neighbour and sends n/2
 * to each: the chain's bytes per rank, over both of its ring links at
 * once where consecutive ranks are network neighbours (a torus row: each
 * link carries half the chain's bytes).
 * p = 2: one chain.  Parameters: chunk (default 16384) and inflight
 * (default 4), as above: the best pair on SimGrid's fat tree and SMP
 * hosts at 8 MiB (12288 and 2 from 512 KiB to 2 MiB, 12288 and 1 on the
 * torus); torus_x, torus_y (0 = none): the cycle is the torus ring of
 * cycle.h instead, from the root's place on it both ways, every hop
 * between torus neighbours, so the two chains share no link where rank
 * order's hops from the end of one x line to the start of the next, and
 * from the last rank back to the first, cross other hops' links.  An odd
 * number of nodes takes the cycle with its one odd step, whose route the
 * way back ends on the link of the other way's last hop up a column: that
 * one link carries both halves, as a one-way chain's would, and every
 * other link one half (SimGrid torus, p = 61, 2 MiB: 431 us against 523
 * in rank order with the same chunks).
 * Cost on one port (K chunks in all, c the largest):
 *   T = K alpha + n beta + (p - 2)(alpha + c beta), the chain's; two ports
 *   halve the first term.  Scratch: none.  Any p, root, count.
 * Worked example, p = 5, root 3, 4 bytes, chunk 1: vr 0..4 are ranks
 * 3, 4, 0, 1, 2.  Bytes 0-1 travel 3 -> 4 -> 0 -> 1 -> 2, bytes 2-3 travel
 * 3 -> 2 -> 1 -> 0 -> 4; rank 0 gets byte 0 from 4 and byte 2 from 1 and
 * passes each on the other way; each chain is 4 hops, 2 chunks.  On a
 * 16 x 16 torus, p = 24, root 1: the torus ring is 0 16 17 1 2 18 19 3 ...
 * 7 8 9 ... 15; one half goes 1 -> 2 -> 18 -> ... -> 15 -> 0 -> 16 -> 17,
 * the other 1 -> 17 -> 16 -> 0 -> 15 -> ... -> 2, each hop one link.
 *
 * ------------------------------------------------------ bcast torus_trees
 * Section 3.1's non-overlapping spanning trees, on the torus itself where
 * the placement is known (torus_x = X, torus_y; nodes at hosts 0, 1, ...
 * numbered x fastest, as cycle.h): with one rank per node filling more
 * than one x line of one plane, host h at (h mod X, h / X), R lines, the
 * last of L hosts, root at (xr, yr).  Half A of the message runs down
 * tree A: up and down column xr from the root, and from each of its hosts
 * along its line in +x; half B down tree B: the root hands it to column
 * cb = xr - 1 (mod X; xr + 1 or xr itself when the root's line has no
 * such host), up and down cb, and along every line in -x.  A whole line
 * is a ring (its wrap-around hop included); in a partial last line the
 * hosts the column does not reach get the half from the line below at the
 * line's start (x = 0 for A, L - 1 for B) and pass it on the same way.
 * A uses the +x links, B the -x links, each its own column's y links, so
 * no link carries both halves (test_model checks it at p = 24, 61, 96 on
 * SimGrid's 16 x 16 torus), where bidir_chain's two chains need p/2 hops
 * to the farthest rank, the trees need max(yr, R - 1 - yr) + X: p = 96,
 * 2 MiB, 213.9 us against 365.9 for bidir_chain round the torus (SimGrid,
 * 12 KiB chunks, one in flight, the defaults).  Children per tree: at
 * most three (the root in A, cb in B: up, down, along the line), two
 * elsewhere (along the line, and up a column or into the partial line).
 * The default (parameter trees 0; 2-4 cap it, 1 asks for the pair) cuts
 * the message into k equal parts instead, one down each of
 * topo/packing.h's k link-disjoint spanning trees (Edmonds' theorem,
 * Lovász's construction, the trees grown together; the shallowest of eight
 * arc orders up to 128 nodes), pipelined in the same chunks: k = 2 with a
 * partial x line, 3 where the hosts fill whole x lines (every host has three
 * links in the set: p = 96 on SimGrid's torus), 4 on a whole plane, each link
 * carrying a k-th of the message.  From root 0 on SimGrid's 16 x 16 torus the
 * packing's trees are 15, 12 and 20 hops deep at p = 24, 61 and 96 (the pair
 * at p = 96: 19), a fill time that the k-th parts repay.  The pair runs
 * where the packing has fewer than two trees (a last x line of one host, whose
 * one link both trees cross) and for trees = 1; several planes take the
 * packing's trees, two or more (trees = 1 the chains). Any other placement (one
 * x line, several ranks on a node, no torus) runs bidir_chain's chains round
 * the torus's cycle with the same chunk and inflight.  Cost on one port (K
 * chunks, c the largest): the pair T = 2 (K alpha + n beta) + (max(yr, R - 1 -
 * yr) + X - 1) (alpha + c beta): the root sends A's chunks to three children,
 * B's to one; the packing: the root's children in each tree times that tree's K
 * alpha + n/k beta, plus the deepest tree's depth - 1 chunk hops.  Scratch:
 * none.  Any p, root, count. Worked example, X = 4, p = 10 (lines y = 0, 1
 * whole, y = 2 of L = 2 hosts: 8, 9), root 5 = (1, 1): cb = 0.  A: 5 -> 1 and 5
 * -> 9 (column 1), 5 -> 6 -> 7 -> 4 and 1 -> 2 -> 3 -> 0 (+x round the lines),
 * 4 -> 8 (8 starts the partial line).  B: 5 -> 4 (cb), 4 -> 0 and 4 -> 8
 * (column 0), 4 -> 7 -> 6 and 0 -> 3 -> 2 -> 1 (-x), 5 -> 9 (9, at x =
 * L - 1, starts B's way in the partial line).  Both halves cross 4 -> 8
 * and 5 -> 9: line 2's hosts have two links inside the set, one of them
 * to each other.
 *
 * ------------------------------------------------------------ allreduce
 * Parameter: group (default 4, which BG/L found best; 2 .. 1024), the
 * longest line.  The phases run on p' positions, p' the largest number
 * <= p without a prime factor above group (p itself when it has none;
 * p' > p / 2, a power of two has none).  The e = p - p' ranks over are
 * folded first, as recursive doubling folds a non-power of two: rank 2i
 * (i < e) sends its input to 2i + 1, which takes x_2i op x_(2i+1) as its
 * own, and receives the result from it at the end; the positions are
 * 2i + 1 (i < e) and the ranks from 2e on, in rank order, so each holds
 * a range of consecutive ranks' inputs.  A prime above group made one
 * line of its own before 2026-11-30, its members sending one at a time:
 * SimGrid smp, 8 B, p = 29 took 23.1 us (recursive doubling 4.6), p = 37
 * 30.4 (5.5), p = 61 52.2 (5.5).  The prime factors of p', largest first,
 * are packed first fit into phases of product R_i <= group.  Phase i uses
 * mixed-radix digit i of the position: a line is the R_i positions that
 * differ in that digit only, w_i = R_0 ... R_(i-1) apart.
 * Steps, in phase i at line position d (0 <= d < R = R_i):
 *   1. send my partial (phase 0: my input) to the members d + k (mod R),
 *      k = 1 .. R-1, one at a time;
 *   2. receive in step k the partial of member d - k (mod R): the lower
 *      members d-1, ..., 0, then the upper ones R-1, ..., d+1;
 *   3. fold them as they arrive, in rank order: L = P_0 op .. op P_(d-1),
 *      U = P_(d+1) op .. op P_(R-1), then the result L op (mine op U).
 * After phase i a rank holds the reduction over its block of R_0 ... R_i
 * consecutive ranks, in rank order, so any op is allowed.
 * Cost (t = alpha + n beta, g = n gamma): step k is a perfect matching
 * ending at k t, and the folds queue on one CPU (ar_phase_time), so
 *   T = sum over phases of  t + g (R = 2),  2t + 2g (R = 3),
 *                           max(3t + (R-1) g, (R-1) t + 3g) (R >= 4),
 * plus 2t for the fold's messages where p' < p (its reduction overlaps
 * the other positions' first phase: the replay, p = 100, 1 MiB, takes
 * 3,369 us, line on 96 3,321).  Scratch: R-1 vectors (at most
 * group-1, reused by every phase).  Restrictions: none; any p (primes, 1,
 * 2), count 0, MPI_IN_PLACE.
 *
 * Worked example, p = 12, group 4: primes 3, 2, 2 pack into phases 3 and
 * 4 (digits r mod 3 and r / 3).  Phase 0 lines {0,1,2}, {3,4,5}, ...; rank
 * 4 (d = 1) gets P_3 in step 1, P_5 in step 2 and forms 3 op (4 op 5).
 * Phase 1 lines {0,3,6,9}, {1,4,7,10}, ...: rank 4 (d = 1) holds the block
 * 3..5 and combines blocks 0..2, 3..5, 6..8, 9..11.  p = 14, group 4: 7
 * is above group, p' = 12, e = 2: ranks 0 and 2 send to 1 and 3, and the
 * 12 positions are ranks 1, 3, 4, 5, ..., 13 as above (position 0, rank 1,
 * holds x_0 op x_1; position 1, rank 3, x_2 op x_3); at the end 1 and 3
 * send the result to 0 and 2.
 *
 * ------------------------------------------------------------ allgather
 * Parameter: group, as for allreduce (the same phases, on the same p'
 * positions: a p with a prime factor above group folds first, rank 2i
 * sending its block to 2i + 1, whose position holds both blocks, a range
 * of consecutive ranks as every other position's; at the end 2i + 1
 * sends 2i the whole result, one message; SimGrid smp, 8 B: p = 37 11.0
 * -> 4.2 us, p = 61 18.3 -> 5.1; at 2 KiB, whose last message carries p
 * blocks, 1.01-1.20 times the unfolded lines: bruck's range).  Section 3.2's
 * "all data broadcast in a line", one phase per dimension, with the
 * blocks concatenated instead of folded: after phase i a rank holds the
 * blocks of the W R_i ranks that differ from it in digits 0..i only, W =
 * R_0 ... R_(i-1), which are consecutive ranks: [hb, hb + W R_i) with hb =
 * rank - rank mod (W R_i).  So every message is one contiguous range of
 * the receive buffer, sent from and received into its final place: no
 * scratch and no rotation (Bruck's radix k has both, and a partial last
 * step when p is not a power of k).  In phase i at line position d, a rank
 * sends its W blocks to d+1, d+2, ... one at a time (each step a perfect
 * matching, as for allreduce) once all receives of the phases before have
 * arrived, and receives the W blocks of every other member, all posted at
 * the start.  Peers are W apart, so the first phases are short hops where
 * consecutive ranks are network neighbours (SimGrid's torus; SMPI's
 * allgather 3dmesh has the same shape for p = X Y Z).
 * Cost (m the block's bytes): T = sum_i (R_i - 1) (alpha + W_i m beta):
 *   sum (R_i - 1) alpha + (p - 1) m beta, the bandwidth of the ring with
 *   sum (R_i - 1) latencies (one phase, group >= p: the linear exchange
 *   with its sends one at a time); folded, the phases on p' positions
 *   with their blocks, plus (alpha + m beta) + (alpha + p m beta).  Parameter
 * inflight (default 1): a phase's sends in flight at once (0: all, as SMPI's
 * 3dmesh).  Scratch: none (allgatherv: the total, when the layout is not
 * packed). Restrictions: none; any p, count 0, MPI_IN_PLACE. allgatherv: the
 * same phases over irregular blocks; a range travels as one message of its
 * counts' sum (every rank knows all counts), none when they are all 0.  A rank
 * whose displacements lay the blocks out back to back in rank order (from
 * displs[0] on) works in its receive buffer; else (allgatherv's displacements
 * are each rank's own) in a scratch copy of that packed layout, its own block
 * copied in first and every block copied out at the end.  Cost: per phase the
 * busiest port of any rank, max((R-1) t(own range), sum of t(other ranges)).
 * Worked example, p = 24, group 4: primes 3, 2, 2, 2 pack into phases 3,
 * 4 and 2 (W = 1, 3, 12).  Rank 17 has digits 2, 1, 1.  Phase 0, line
 * {15, 16, 17}: it sends block 17 to 15, then 16, and receives 16 and 15.
 * Phase 1, line {14, 17, 20, 23} (W = 3 apart), each member holding its
 * three: it sends 15..17 to 20, 23, then 14, and receives 12..14 from 14,
 * 21..23 from 23 and 18..20 from 20.  Phase 2, line {5, 17}: it sends
 * 12..23 to 5 and receives 0..11 from it.  5 messages, 3 latencies
 * in the last step; Bruck's radix 3 takes 3 steps of 2 messages, the
 * last partial, and a rotation.  p = 14, group 4 (7 is above it): p' =
 * 12, ranks 0 and 2 send their blocks to 1 and 3; positions 0..11 are
 * ranks 1, 3, 4, ..., 13, and position 0 holds blocks 0..1, position 1
 * blocks 2..3, position j >= 2 block j + 2.  Phase 0, line {0, 1, 2}
 * (ranks 1, 3, 4): rank 1 sends blocks 0..1 to 3 and 4; phase 1 (W = 3)
 * lines of positions 3 apart carry blocks 0..4, 5..7, 8..10, 11..13.
 * Then 1 sends blocks 0..13 to 0, and 3 to 2.
 */
#include <math.h>
#include <string.h>

#include "algo.h"
#include "cycle.h"
#include "torus_trees.h"

#include "../topo/mesh.h"
#include "../topo/packing.h"
#include "../topo/topo.h"
#include "hazard.h"

/* ================================================================ bcast */

#define BC_MAX_CHUNKS ((size_t) 1 << 20)
/* Receives posted ahead per stream; also the most chunks in flight per
 * child (parameter inflight, whose registry maximum is this). */
#define BC_WINDOW 16
/* Streams and children per stream: the mesh's, or a packing's trees. */
#define BC_MAXS    CH4COLL_PACKING_MAXK
#define BC_MAXKIDS CH4COLL_PACKING_MAXKIDS
#if CH4COLL_MESH_MAXD > BC_MAXS || CH4COLL_MESH_MAXD > BC_MAXKIDS
#error "a plan holds fewer streams or children than the mesh has"
#endif

/* One stream at this rank: its part of the message, its tree edges. */
typedef struct {
    size_t off, len; /* part of the message, bytes */
    size_t k;        /* chunks */
    int parent;      /* absolute rank or -1 */
    int nkids;
    int kids[BC_MAXKIDS];
} bc_stream_t;

typedef struct {
    int s;                       /* streams in use */
    int dims[CH4COLL_MESH_MAXD]; /* mesh extents, all > 1 when s > 1 */
    bc_stream_t st[BC_MAXS];
} bc_plan_t;

/* Streams in use: the extents > 1 of the requested mesh (at least 1). */
static int bc_mesh(int p, int64_t streams, int *dims)
{
    int nd = streams < 1                   ? 1
             : streams > CH4COLL_MESH_MAXD ? CH4COLL_MESH_MAXD
                                           : (int) streams;
    int s = 0, i;

    ch4coll_mesh_dims(p, nd, dims);
    for (i = 0; i < nd; i++)
        if (dims[i] > 1)
            s++;
    if (s <= 1) {
        dims[0] = p;
        s = 1;
    }
    return s;
}

/* Byte range of part j of n bytes cut into s balanced parts. */
static void bc_part(size_t n, int s, int j, size_t *off, size_t *len)
{
    *off = ch4coll_seg_off(n, (size_t) s, (size_t) j);
    *len = ch4coll_seg_len(n, (size_t) s, (size_t) j);
}

/* Chunks of a part: at most `chunk` bytes each, at most BC_MAX_CHUNKS. */
static size_t bc_nchunks(size_t len, int64_t chunk_param)
{
    size_t chunk = chunk_param < 1 ? 1 : (size_t) chunk_param;

    if (len == 0)
        return 0;
    if ((len + chunk - 1) / chunk > BC_MAX_CHUNKS)
        chunk = (len + BC_MAX_CHUNKS - 1) / BC_MAX_CHUNKS;
    return (len + chunk - 1) / chunk;
}

/* Chunk c of k balanced chunks of len bytes: offset and length. */
static size_t bc_chunk(size_t len, size_t k, size_t c, size_t *clen)
{
    size_t q = len / k, rem = len % k;

    *clen = q + (c < rem ? 1 : 0);
    return c * q + (c < rem ? c : rem);
}

/* Chunks of n bytes cut into s parts, over all parts, and the largest. */
static size_t bc_all_chunks(size_t n, int s, int64_t chunk, size_t *cmax)
{
    size_t all = 0, off, len, k, clen;
    int j;

    *cmax = 0;
    for (j = 0; j < s; j++) {
        bc_part(n, s, j, &off, &len);
        k = bc_nchunks(len, chunk);
        if (k == 0)
            continue;
        all += k;
        bc_chunk(len, k, 0, &clen); /* chunk 0 is the largest */
        if (clen > *cmax)
            *cmax = clen;
    }
    return all;
}

/* The neighbour of coordinates x with x[dim] replaced by v, absolute. */
static int bc_rank_at(const int *x, int s, const int *dims, int dim, int v,
                      int root, int p)
{
    int y[CH4COLL_MESH_MAXD], i;

    for (i = 0; i < s; i++)
        y[i] = x[i];
    y[dim] = v;
    return ch4coll_abs(ch4coll_mesh_rank(s, dims, y), root, p);
}

/* Parent and children of relative rank vr in the tree of stream j.  Off
 * the root's own axes a rank has a different parent in every stream, so
 * its receives come over up to s different neighbours; on an axis the
 * parent is the same neighbour for all streams. */
static void bc_tree(bc_stream_t *st, int j, int vr, int s, const int *dims,
                    int root, int p)
{
    int x[CH4COLL_MESH_MAXD], level = -1, t, o;

    ch4coll_mesh_coords(vr, s, dims, x);
    for (t = 0; t < s; t++)
        if (x[(j + t) % s] != 0)
            level = t;
    st->parent = -1;
    st->nkids = 0;
    if (level >= 0) {
        o = (j + level) % s;
        st->parent = bc_rank_at(x, s, dims, o, x[o] - 1, root, p);
        if (x[o] + 1 < dims[o]) /* on along my own line first */
            st->kids[st->nkids++] =
                bc_rank_at(x, s, dims, o, x[o] + 1, root, p);
    }
    for (t = level + 1; t < s; t++) { /* turn into the later dimensions */
        o = (j + t) % s;
        st->kids[st->nkids++] = bc_rank_at(x, s, dims, o, 1, root, p);
    }
}

/* Edges of stream st on a chain: position q's neighbours q - 1 and q + 1
 * of the chain that starts at the root (position xr of cycle c) and runs
 * round the cycle forward (back 0) or backward (back 1). */
static void bc_chain(bc_stream_t *st, const ch4coll_cycle_t *c, int xr, int q,
                     int back)
{
    int dir = back ? -1 : 1;

    st->parent = -1;
    st->nkids = 0;
    if (q > 0)
        st->parent = ch4coll_cycle_at(c, xr + dir * (q - 1));
    if (q + 1 < c->p)
        st->kids[st->nkids++] = ch4coll_cycle_at(c, xr + dir * (q + 1));
}

static void bc_plan(bc_plan_t *pl, const ch4coll_args_t *a,
                    const int64_t *params)
{
    int p = a->size, vr = ch4coll_rel(a->rank, a->root, p), j;
    ch4coll_cycle_t ranks;

    ch4coll_cycle_open(&ranks, a, NULL, 0, 0); /* rank order: no memory */
    pl->s = bc_mesh(p, params[1], pl->dims);
    for (j = 0; j < pl->s; j++) {
        bc_stream_t *st = &pl->st[j];
        bc_part(a->count, pl->s, j, &st->off, &st->len);
        st->k = bc_nchunks(st->len, params[0]);
        if (pl->s == 1) /* the chain */
            bc_chain(st, &ranks, a->root, vr, 0);
        else
            bc_tree(st, j, vr, pl->s, pl->dims, a->root, p);
    }
}

/* Vertices of the last BC_WINDOW chunks of one stream (build time). */
typedef struct {
    int got[BC_WINDOW];
    int sent[BC_WINDOW][BC_MAXKIDS];
} bc_window_t;

/* Receive chunk c of stream j from the parent and pass it on, on tag
 * j BC_WINDOW + c mod BC_WINDOW: chunk c is received after chunk
 * c - BC_WINDOW has arrived and sent to a child after chunk
 * c - inflight was sent to it, so at most BC_WINDOW receives per stream
 * and inflight sends per child and stream are in flight, and
 * messages with equal tags are issued in order on both sides.
 * Receives posted well ahead let eager chunks flow: SimGrid (like a
 * library without unexpected-message buffering) starts no transfer before
 * its receive is posted, and with 2 posted a chain of 8 KiB chunks took
 * 4.49 ms for 8 MiB at p = 24 on the torus, 1.41 ms with 16 (the bound:
 * 1.23).  Few sends in flight keep rendezvous chunks in order: 16 of
 * them share the link fairly and all arrive late, and the next hop waits
 * for whole chunks (fat tree, 64 KiB chunks, 2 MiB: 0.23 ms with 2, 1.01
 * with 16).  Yet a message's latency (0.7 us between hosts of a fat-tree
 * leaf) is hidden only behind others in flight: small chunks want more of
 * them (fat tree, p = 16, 8 MiB, chunks of 16 KiB: 533 us with 2, 437 us
 * with 8; the default stays 2 and the tuning file chooses). */
static void bc_step(ch4coll_sched_t *s, const bc_stream_t *st, int j, size_t c,
                    size_t inflight, bc_window_t *w)
{
    size_t clen, off = st->off + bc_chunk(st->len, st->k, c, &clen);
    ch4coll_ref_t at = ch4coll_ref(CH4COLL_BUF_RECV, off);
    int slot = (int) (c % BC_WINDOW), tag = j * BC_WINDOW + slot, i;
    int d[2], got = -1;

    if (st->parent >= 0)
        got = ch4coll_sched_recv(s, at, clen, st->parent, tag,
                                 ch4coll_dep1(w->got[slot], d), d);
    w->got[slot] = got;
    for (i = 0; i < st->nkids; i++) {
        d[0] = got;
        d[1] = c >= inflight ? w->sent[(c - inflight) % BC_WINDOW][i] : -1;
        w->sent[slot][i] =
            ch4coll_sched_send(s, at, clen, st->kids[i], tag, 2, d);
    }
}

/* Stream j's chunks on tags j BC_WINDOW + [0, BC_WINDOW). */
int ch4coll_ntags_bcast_line(const ch4coll_args_t *a, const int64_t *params)
{
    int dims[CH4COLL_MESH_MAXD];

    return bc_mesh(a->size, params[1], dims) * BC_WINDOW;
}

/* Every stream of a plan, chunk by chunk. */
static void bc_run(ch4coll_sched_t *s, const bc_plan_t *pl, size_t inflight)
{
    bc_window_t w[BC_MAXS];
    size_t c, kmax = 0;
    int j, i, k;

    inflight = inflight < 1 ? 1 : inflight > BC_WINDOW ? BC_WINDOW : inflight;
    for (j = 0; j < pl->s; j++) {
        for (k = 0; k < BC_WINDOW; k++) {
            w[j].got[k] = -1;
            for (i = 0; i < BC_MAXKIDS; i++)
                w[j].sent[k][i] = -1;
        }
        if (pl->st[j].k > kmax)
            kmax = pl->st[j].k;
    }
    /* chunk-major order: every stream advances at the same pace */
    for (c = 0; c < kmax; c++)
        for (j = 0; j < pl->s; j++)
            if (c < pl->st[j].k)
                bc_step(s, &pl->st[j], j, c, inflight, &w[j]);
}

int ch4coll_bcast_line(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       const int64_t *params)
{
    bc_plan_t pl;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_bcast_line(a, params));
    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    bc_plan(&pl, a, params);
    bc_run(s, &pl, (size_t) params[2]);
    return CH4COLL_OK;
}

/* ====================================================== bcast bidir_chain */

/* Chain 0 runs round the cycle (params[2..3]: the torus, cycle.h) from
 * the root forward, chain 1 the way back. */
static int bd_plan(bc_plan_t *pl, const ch4coll_args_t *a,
                   const int64_t *params)
{
    ch4coll_cycle_t c;
    int p = a->size, xr, vr, j, rc;

    rc = ch4coll_cycle_open(&c, a, params + 2, 0, 0); /* odd steps too */
    if (rc != CH4COLL_OK)
        return rc;
    xr = ch4coll_cycle_pos(&c, a->root);
    vr = (c.x - xr + p) % p;
    pl->s = ch4coll_bidir_chains(p);
    for (j = 0; j < pl->s; j++) {
        bc_stream_t *st = &pl->st[j];

        bc_part(a->count, pl->s, j, &st->off, &st->len);
        st->k = bc_nchunks(st->len, params[0]);
        bc_chain(st, &c, xr, j ? ch4coll_rel_back(vr, p) : vr, j);
    }
    ch4coll_cycle_close(&c);
    return CH4COLL_OK;
}

/* Chain j's chunks on tags j BC_WINDOW + [0, BC_WINDOW). */
int ch4coll_ntags_bcast_bidir_chain(const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) params;
    return ch4coll_bidir_chains(a->size) * BC_WINDOW;
}

typedef int (*bc_plan_fn)(bc_plan_t *, const ch4coll_args_t *, const int64_t *);

/* A builder whose parameters start with chunk and inflight: its tags, then
 * the streams of plan, chunk by chunk. */
static int bc_build(ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const int64_t *params, int ntags, bc_plan_fn plan)
{
    bc_plan_t pl;
    int rc;

    ch4coll_sched_set_ntags(s, ntags);
    if (a->count == 0 || a->size == 1)
        return CH4COLL_OK;
    rc = plan(&pl, a, params);
    if (rc == CH4COLL_OK)
        bc_run(s, &pl, (size_t) params[1]);
    return rc;
}

int ch4coll_bcast_bidir_chain(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    return bc_build(s, a, params, ch4coll_ntags_bcast_bidir_chain(a, params),
                    bd_plan);
}

/* One port: the root sends all K chunks (K alpha + n beta), then the last
 * chunk of the larger half has p - 2 hops to go. */
double ch4coll_cost_bcast_bidir_chain(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    int p = a->size;
    size_t n = a->count, k, cmax;

    if (n == 0 || p == 1)
        return 0.0;
    k = bc_all_chunks(n, ch4coll_bidir_chains(p), params[0], &cmax);
    return (double) k * m->alpha + (double) n * m->beta +
           (double) (p - 2) * (m->alpha + (double) cmax * m->beta);
}

/* ====================================================== bcast torus_trees */

#if CH4COLL_TT_MAXKIDS > BC_MAXKIDS
#error "a stream holds fewer children than a torus tree has"
#endif

/* Stream j of s: part j of the message, chunked. */
static void tt_part(bc_stream_t *st, const ch4coll_args_t *a,
                    const int64_t *params, int s, int j)
{
    bc_part(a->count, s, j, &st->off, &st->len);
    st->k = bc_nchunks(st->len, params[0]);
}

/* This rank's trees (torus_trees.h: the packing's or the pair), or
 * bd_plan's chains where the placement has neither. */
static int tt_plan(bc_plan_t *pl, const ch4coll_args_t *a,
                   const int64_t *params)
{
    ch4coll_tt_here_t h;
    int t, rc = ch4coll_tt_here(&h, a, params + 2, params[4]);

    if (rc != CH4COLL_OK || h.s == 0)
        return rc != CH4COLL_OK ? rc : bd_plan(pl, a, params);
    pl->s = h.s;
    for (t = 0; t < h.s; t++) {
        bc_stream_t *st = &pl->st[t];

        tt_part(st, a, params, h.s, t);
        st->parent = h.parent[t];
        st->nkids = h.nkids[t];
        memcpy(st->kids, h.kids[t], sizeof(int) * (size_t) h.nkids[t]);
    }
    return CH4COLL_OK;
}

/* Tree t's chunks on tags t BC_WINDOW + [0, BC_WINDOW); the chains' when
 * they run instead (as many streams or fewer). */
int ch4coll_ntags_bcast_torus_trees(const ch4coll_args_t *a,
                                    const int64_t *params)
{
    return a->size > 1
               ? ch4coll_tt_streams(a, params + 2, params[4]) * BC_WINDOW
               : BC_WINDOW;
}

int ch4coll_bcast_torus_trees(ch4coll_sched_t *s, const ch4coll_args_t *a,
                              const int64_t *params)
{
    return bc_build(s, a, params, ch4coll_ntags_bcast_torus_trees(a, params),
                    tt_plan);
}

/* One port: the root sends every tree's chunks to its children in that
 * tree, then the last chunk has the deepest tree's remaining hops to go;
 * -1 where the packing does not run. */
static double tt_packing_cost(const ch4coll_args_t *a, const int64_t *params,
                              const ch4coll_model_t *m)
{
    ch4coll_packing_t pk;
    bc_stream_t st;
    size_t cmax = 0, clen;
    double t = 0.0;
    int j, rc, kids[CH4COLL_PACKING_MAXKIDS];

    if (!ch4coll_tt_packing(&pk, a, params + 2, params[4], &rc))
        return -1.0;
    for (j = 0; j < pk.k; j++) {
        tt_part(&st, a, params, pk.k, j);
        t += ch4coll_packing_kids(&pk, j, a->root, kids) *
             ((double) st.k * m->alpha + (double) st.len * m->beta);
        if (st.k > 0 && bc_chunk(st.len, st.k, 0, &clen) == 0 && clen > cmax)
            cmax = clen;
    }
    t += (double) (ch4coll_packing_depth(&pk) - 1) *
         (m->alpha + (double) cmax * m->beta);
    ch4coll_packing_free(&pk);
    return t;
}

/* The packing's formula where it runs; else, one port: the root sends
 * tree A's chunks to its up to three children and B's to one, 2 K alpha
 * + 2 n beta; then the last chunk has the deeper tree's remaining hops to
 * go, the column's half plus a row, max(yr, R - 1 - yr) + X - 1.  Without
 * the trees, the chains'. */
double ch4coll_cost_bcast_torus_trees(const ch4coll_args_t *a,
                                      const int64_t *params,
                                      const ch4coll_model_t *m)
{
    ch4coll_tt_t g = {0};
    size_t n = a->count, k, cmax;
    int up;
    double t;

    if (n == 0 || a->size == 1)
        return 0.0;
    if ((t = tt_packing_cost(a, params, m)) >= 0.0)
        return t;
    if (!ch4coll_tt_open(&g, a, params + 2))
        return ch4coll_cost_bcast_bidir_chain(a, params, m);
    k = bc_all_chunks(n, 2, params[0], &cmax);
    up = g.yr > g.R - 1 - g.yr ? g.yr : g.R - 1 - g.yr;
    return 2.0 * ((double) k * m->alpha + (double) n * m->beta) +
           (double) (up + g.X - 1) * (m->alpha + (double) cmax * m->beta);
}

double ch4coll_cost_bcast_line(const ch4coll_args_t *a, const int64_t *params,
                               const ch4coll_model_t *m)
{
    int dims[CH4COLL_MESH_MAXD], p = a->size, s, j, depth = 0;
    size_t n = a->count, nchunks, cmax;
    double t;

    if (n == 0 || p == 1)
        return 0.0;
    s = bc_mesh(p, params[1], dims);
    nchunks = bc_all_chunks(n, s, params[0], &cmax);
    for (j = 0; j < s; j++)
        depth += dims[j] - 1;
    t = m->alpha + (double) cmax * m->beta;
    return (double) s * ((double) nchunks * m->alpha + (double) n * m->beta) +
           (double) (depth - s) * t;
}

/* ====================================================== mixed-radix phases */

#define LINE_MAX_PHASES 32 /* p < 2^31 has at most 30 prime factors */

typedef struct {
    int n;
    int radix[LINE_MAX_PHASES]; /* line length of each phase, digit 0 first */
} line_phases_t;

/* Pack the prime factors of p, largest first, into phases of line length
 * <= group (first fit); a prime > group makes a phase of its own. */
static void line_phases(int p, int64_t group, line_phases_t *ph)
{
    int f[LINE_MAX_PHASES], nf = 0, q = p, d, i, b;

    for (d = 2; (long) d * d <= q; d++)
        while (q % d == 0) {
            f[nf++] = d;
            q /= d;
        }
    if (q > 1)
        f[nf++] = q;
    ph->n = 0;
    for (i = nf - 1; i >= 0; i--) { /* trial division found them ascending */
        for (b = 0; b < ph->n; b++)
            if ((int64_t) ph->radix[b] * f[i] <= group)
                break;
        if (b == ph->n)
            ph->radix[ph->n++] = 1;
        ph->radix[b] *= f[i];
    }
}

/* The largest p' <= p whose prime factors are all at most group: p
 * itself when it has none above group (and when group >= p).  A power of
 * two has none, so p' > p / 2. */
static int line_smooth(int p, int64_t group)
{
    int q, r, d;

    if (group >= p)
        return p;
    for (q = p;; q--) {
        for (r = q, d = 2; d <= group && r > 1; d++)
            while (r % d == 0)
                r /= d;
        if (r == 1)
            return q;
    }
}

/* The fold onto p' = p - e positions: position v holds ranks 2v and
 * 2v + 1 below e, rank v + e from e on.  Its first rank, and the rank
 * that holds it. */
static int line_first(int v, int e)
{
    return v < e ? 2 * v : v + e;
}

static int line_holder(int v, int e)
{
    return line_first(v, e) + (v < e);
}

/* The position rank r holds (2v + 1 -> v; its pair's 2v holds none). */
static int line_position(int r, int e)
{
    return r < 2 * e ? r / 2 : r - e;
}

/* ============================================================ allreduce */

typedef struct {
    ch4coll_sched_t *s;
    size_t n;
    int64_t group;
    ch4coll_hz_t sb, rb;
    ch4coll_hz_t *mine; /* my partial: the input, then the receive buffer */
    ch4coll_hz_t *slot; /* scratch vectors */
    int e;              /* ranks folded away: p - p' */
} ar_t;

/* Step 1: my partial to the members d+1, d+2, ... of my line, one send at
 * a time: step k is then a perfect matching (everybody sends to d+k and
 * receives from d-k), which a burst of sends would not give. */
static void ar_sends(ar_t *g, int base, int stride, int R, int d)
{
    int k, prev = -1, dep[2];

    for (k = 1; k < R; k++) {
        int peer = line_holder(base + ((d + k) % R) * stride, g->e);
        ch4coll_hz_rdeps(g->mine, dep);
        dep[1] = prev;
        prev = ch4coll_sched_send(g->s,
                                  ch4coll_ref(ch4coll_hz_id(g->s, g->mine), 0),
                                  g->n, peer, 0, 2, dep);
        ch4coll_hz_read_by(g->s, g->mine, prev);
    }
}

/* One phase over the line of R positions spaced stride apart (steps 1-3),
 * at position `rank` of p'.
 * The lower partials accumulate into L in the slot of P_(d-1), the others
 * folded from the left ("in op inout"); the upper ones into U in the slot
 * of P_(R-1); then U = mine op U, U = L op U, copied into the receive
 * buffer; the top member folds L onto its own partial in the receive
 * buffer.  One tag: every pair of ranks exchanges at most one message
 * each way. */
static void ar_phase(ar_t *g, int rank, int R, int stride)
{
    int d = (rank / stride) % R, base = rank - d * stride;
    int ns = R - 1, npin = (d >= 1) + (d <= R - 2);
    ch4coll_hz_t *lo = d >= 1 ? &g->slot[0] : NULL;
    ch4coll_hz_t *up = d <= R - 2 ? &g->slot[npin - 1] : NULL;
    ch4coll_hz_t *ring = g->slot + npin, *in;
    int nring = ns - npin, m = 0, k;

    ar_sends(g, base, stride, R, d);
    for (k = 1; k < R; k++) { /* step 2: lower members down, then upper */
        int e = (d - k + R) % R, peer = line_holder(base + e * stride, g->e);
        if (k == 1 && lo) {
            ch4coll_hz_recv(g->s, lo, 0, g->n, peer, 0); /* P_(d-1) */
        } else if (k == d + 1 && up) {
            ch4coll_hz_recv(g->s, up, 0, g->n, peer, 0); /* P_(R-1) */
        } else {                                         /* step 3 */
            in = &ring[m++ % nring];
            ch4coll_hz_recv(g->s, in, 0, g->n, peer, 0);
            ch4coll_hz_reduce(g->s, in, 0, e < d ? lo : up, 0, g->n);
        }
    }
    if (up) { /* U = mine op U, L op U */
        ch4coll_hz_reduce(g->s, g->mine, 0, up, 0, g->n);
        if (lo)
            ch4coll_hz_reduce(g->s, lo, 0, up, 0, g->n);
        ch4coll_hz_copy(g->s, up, 0, &g->rb, 0, g->n);
    } else { /* the top member: L op mine */
        if (g->mine != &g->rb)
            ch4coll_hz_copy(g->s, g->mine, 0, &g->rb, 0, g->n);
        ch4coll_hz_reduce(g->s, lo, 0, &g->rb, 0, g->n);
    }
    g->mine = &g->rb;
}

int ch4coll_allreduce_line(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    line_phases_t ph;
    ar_t g;
    int i, ns = 1, stride = 1, p1, r = a->rank;

    if (a->count == 0)
        return CH4COLL_OK;
    g.s = s;
    g.n = a->count;
    g.group = params[0];
    g.sb = ch4coll_hz_user(CH4COLL_BUF_SEND);
    g.rb = ch4coll_hz_user(CH4COLL_BUF_RECV);
    g.mine = a->inplace ? &g.rb : &g.sb;
    p1 = line_smooth(a->size, g.group);
    g.e = a->size - p1;
    if (r < 2 * g.e && r % 2 == 0) { /* folded away: mine in, the result back */
        ch4coll_hz_send(s, g.mine, 0, g.n, r + 1, 0);
        ch4coll_hz_recv(s, &g.rb, 0, g.n, r + 1, 0);
        return CH4COLL_OK;
    }
    line_phases(p1, g.group, &ph);
    for (i = 0; i < ph.n; i++)
        if (ph.radix[i] - 1 > ns)
            ns = ph.radix[i] - 1;
    /* build-time memory: the trackers of the scratch vectors */
    g.slot = ch4coll_malloc((size_t) ns * sizeof *g.slot);
    if (!g.slot)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i < ns; i++)
        g.slot[i] = ch4coll_hz_scratch(a->count);
    if (r < 2 * g.e) { /* r - 1's input op mine, in rank order */
        ch4coll_hz_recv(s, &g.slot[0], 0, g.n, r - 1, 0);
        if (g.mine != &g.rb)
            ch4coll_hz_copy(s, g.mine, 0, &g.rb, 0, g.n);
        ch4coll_hz_reduce(s, &g.slot[0], 0, &g.rb, 0, g.n);
        g.mine = &g.rb;
    }
    for (i = 0; i < ph.n; i++) {
        ar_phase(&g, line_position(r, g.e), ph.radix[i], stride);
        stride *= ph.radix[i];
    }
    if (g.mine != &g.rb) /* p = 1 */
        ch4coll_hz_copy(s, g.mine, 0, &g.rb, 0, g.n);
    if (r < 2 * g.e)
        ch4coll_hz_send(s, &g.rb, 0, g.n, r - 1, 0);
    ch4coll_free(g.slot);
    return CH4COLL_OK;
}

static double dmax(double x, double y)
{
    return x > y ? x : y;
}

/* Time of a phase of line length R.  Step k of the sends ends at k t.  A
 * rank's R-1 reductions run on one CPU in arrival order, released at steps
 * 2..d (lower chain), d+2..R-1 (upper chain) and R-1 (the final folds), so
 * line position d finishes at
 *   f(d) = max over its reductions j of (release_j + (R-1 - j) g)
 * (reductions numbered 0..R-2 in release order), and the phase takes the
 * max over d of f(d).  The position d = 1 (or 0, 2 when R = 3) is last
 * when the reductions dominate, every d >= 1 with an upper chain when the
 * messages do. */
static double ar_phase_time(int R, double t, double g)
{
    if (R == 2)
        return t + g;
    if (R == 3)
        return 2.0 * t + 2.0 * g;
    return dmax(3.0 * t + (R - 1) * g, (R - 1) * t + 3.0 * g);
}

double ch4coll_cost_allreduce_line(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    double bytes = ch4coll_nbytes(a, a->count);
    double t = m->alpha + bytes * m->beta, g = bytes * m->gamma, T = 0.0;
    line_phases_t ph;
    int i, p1;

    if (a->count == 0)
        return 0.0;
    p1 = line_smooth(a->size, params[0]);
    line_phases(p1, params[0], &ph);
    for (i = 0; i < ph.n; i++)
        T += ar_phase_time(ph.radix[i], t, g);
    return p1 < a->size ? T + 2.0 * t : T; /* the fold's two messages */
}

/* ============================================================ allgather */

/* The blocks of an allgather(v) in the packed rank-order layout: at[i]
 * is where block i starts (at[p] the total), in buf (the receive buffer
 * when this rank's displacements are that layout from base on, else a
 * scratch buffer of the total, unpacked at the end). */
typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    size_t *at;
    int buf;
    size_t base;
    int64_t inflight;
    int *ids; /* work space: 2 (p + 1) vertex ids */
    int e;    /* ranks folded away: p - p' */
} ag_t;

static ch4coll_ref_t ag_ref(const ag_t *g, int lo)
{
    return ch4coll_ref(g->buf, ch4coll_eoff(g->a, g->base + g->at[lo]));
}

/* The elements of positions [v, v + W). */
static size_t ag_len(const ag_t *g, int v, int W)
{
    return g->at[line_first(v + W, g->e)] - g->at[line_first(v, g->e)];
}

/* One phase over the line of R positions spaced W apart, at position v
 * of p': I hold the blocks of the W positions [hb, hb + W), hb = v - v
 * mod W, and so does member e of my line for [hb + (e - d) W, ...): my
 * range goes to d+1, d+2, ..., inflight sends at a time, after ready (the
 * phases before; -1: none); theirs is received in place, posted at once.
 * A range of empty blocks moves nowhere.  One tag: two ranks share a line
 * in one phase at most. Returns a sink of this phase's receives and
 * ready. */
static int ag_phase(ag_t *g, int v, int R, int W, int ready)
{
    const ch4coll_args_t *a = g->a;
    int hb = v - v % W, d = (v / W) % R, k, nids = 0, nd;
    int *sent = g->ids + R, dep[2];
    size_t mine = ag_len(g, hb, W);
    /* the first phase sends my block from where the user put it (a fold's
     * position: its two blocks, from the buffer) */
    ch4coll_ref_t from =
        W > 1 || v < g->e ? ag_ref(g, line_first(hb, g->e))
        : a->inplace
            ? ch4coll_ref(CH4COLL_BUF_RECV,
                          ch4coll_eoff(a, ch4coll_blk_displ(a, a->rank)))
            : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    for (k = 1; k < R; k++) { /* from d-1, d-2, ...: step k's partner */
        int lo = hb + ((d - k + R) % R - d) * W;
        if (ag_len(g, lo, W) > 0)
            g->ids[nids++] = ch4coll_sched_recv(
                g->s, ag_ref(g, line_first(lo, g->e)), ag_len(g, lo, W),
                line_holder(v + (lo - hb), g->e), 0, 0, NULL);
    }
    for (k = 1; k < R && mine > 0; k++) {
        int to = v + ((d + k) % R - d) * W;
        nd = 0;
        if (ready >= 0)
            dep[nd++] = ready;
        if (k > g->inflight)
            dep[nd++] = sent[k - g->inflight];
        sent[k] = ch4coll_sched_send(g->s, from, mine, line_holder(to, g->e), 0,
                                     nd, dep);
    }
    if (ready >= 0)
        g->ids[nids++] = ready;
    return nids ? ch4coll_sched_sink(g->s, nids, g->ids) : -1;
}

/* The layout: packed from displs[0] on in this rank's receive buffer, or
 * a scratch buffer (then 0). */
static void ag_layout(ag_t *g)
{
    const ch4coll_args_t *a = g->a;
    int i, p = a->size, packed = 1;

    g->at[0] = 0;
    for (i = 0; i < p; i++) {
        g->at[i + 1] = g->at[i] + ch4coll_blk_count(a, i);
        if (ch4coll_blk_count(a, i) > 0 &&
            ch4coll_blk_displ(a, i) != ch4coll_blk_displ(a, 0) + g->at[i])
            packed = 0;
    }
    g->buf = CH4COLL_BUF_RECV;
    g->base = ch4coll_blk_displ(a, 0);
    if (!packed) {
        g->buf = ch4coll_sched_scratch(g->s, g->at[p]);
        g->base = 0;
    }
}

/* My block where the user put it. */
static ch4coll_ref_t ag_own(const ch4coll_args_t *a)
{
    return a->inplace
               ? ch4coll_ref(CH4COLL_BUF_RECV,
                             ch4coll_eoff(a, ch4coll_blk_displ(a, a->rank)))
               : ch4coll_ref(CH4COLL_BUF_SEND, 0);
}

/* The phases (and the fold) of this rank; ready: the last of them. */
static int ag_run(ag_t *g, const int64_t *params)
{
    const ch4coll_args_t *a = g->a;
    line_phases_t ph;
    int i, r = a->rank, p1 = a->size - g->e, W = 1, ready = -1, copy = -1,
           v = line_position(r, g->e), d[1];
    size_t own = ch4coll_blk_count(a, r), all = g->at[a->size];

    if (r < 2 * g->e && r % 2 == 0) { /* folded away: mine in, all back */
        if (own > 0)
            copy = ch4coll_sched_send(g->s, ag_own(a), own, r + 1, 0, 0, NULL);
        return all > 0 ? ch4coll_sched_recv(g->s, ag_ref(g, 0), all, r + 1, 0,
                                            ch4coll_dep1(copy, d), d)
                       : -1;
    }
    line_phases(p1, params[0], &ph);
    /* my block where the phases after the first read it (the first sends
     * it from sendbuf): in place already, unless in scratch; a fold's
     * position sends both blocks from there in the first phase too */
    if (own > 0 && (!a->inplace || g->buf != CH4COLL_BUF_RECV))
        copy = ch4coll_sched_copy(g->s, ag_own(a), ag_ref(g, r), own, 0, NULL);
    if (r < 2 * g->e && ch4coll_blk_count(a, r - 1) > 0) {
        int both[2] = {copy, ch4coll_sched_recv(g->s, ag_ref(g, r - 1),
                                                ch4coll_blk_count(a, r - 1),
                                                r - 1, 0, 0, NULL)};
        copy = copy >= 0 ? ch4coll_sched_sink(g->s, 2, both) : both[1];
    }
    if (r < 2 * g->e) /* nothing from where the user put it */
        ready = copy;
    for (i = 0; i < ph.n; i++) {
        g->inflight = params[1] > 0 ? params[1] : ph.radix[i];
        ready = ag_phase(g, v, ph.radix[i], W, ready);
        if (i == 0 && copy >= 0 && r >= 2 * g->e) {
            int both[2] = {ready, copy};
            ready = ready >= 0 ? ch4coll_sched_sink(g->s, 2, both) : copy;
        }
        W *= ph.radix[i];
    }
    if (r < 2 * g->e && all > 0)
        ch4coll_sched_send(g->s, ag_ref(g, 0), all, r - 1, 0,
                           ch4coll_dep1(ready, d), d);
    return ready;
}

static int allgather_line(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params)
{
    ag_t g = {s, a, NULL, 0, 0, 0, NULL, 0};
    int i, p = a->size, ready;

    g.e = p - line_smooth(p, params[0]);
    g.at = ch4coll_malloc(((size_t) p + 1) * sizeof *g.at);
    g.ids = ch4coll_malloc(2 * ((size_t) p + 1) * sizeof *g.ids);
    if (!g.at || !g.ids) {
        ch4coll_free(g.at);
        ch4coll_free(g.ids);
        return CH4COLL_ERR_NOMEM;
    }
    ag_layout(&g);
    ready = ag_run(&g, params);
    for (i = 0; g.buf != CH4COLL_BUF_RECV && i < p; i++) /* unpack */
        if (ch4coll_blk_count(a, i) > 0 && (i != a->rank || !a->inplace)) {
            int d[1];
            ch4coll_sched_copy(
                s, ag_ref(&g, i),
                ch4coll_ref(CH4COLL_BUF_RECV,
                            ch4coll_eoff(a, ch4coll_blk_displ(a, i))),
                ch4coll_blk_count(a, i), ch4coll_dep1(ready, d), d);
        }
    ch4coll_free(g.at);
    ch4coll_free(g.ids);
    return CH4COLL_OK;
}

int ch4coll_allgather_line(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    return a->count == 0 ? CH4COLL_OK : allgather_line(s, a, params);
}

int ch4coll_allgatherv_line(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    return allgather_line(s, a, params);
}

/* Phase i: a rank sends its range R_i - 1 times, one message after
 * another, and receives the ranges of the other members of its line; the
 * phase ends when the busiest port of any rank does: every step a
 * perfect matching of the line.  Regular blocks: (R_i - 1) (alpha + W_i m
 * beta).  O(p R_i) per phase. */
static double line_ag_cost(const ch4coll_args_t *a, const int64_t *params,
                           const ch4coll_model_t *m)
{
    line_phases_t ph;
    double T = 0.0, in1 = 0.0;
    int i, r, e, p = a->size, W = 1, p1 = line_smooth(p, params[0]);
    size_t *at = ch4coll_malloc(((size_t) p + 1) * sizeof *at);

    if (!at)
        return HUGE_VAL;
    at[0] = 0;
    for (r = 0; r < p; r++)
        at[r + 1] = at[r] + ch4coll_blk_count(a, r);
    for (r = 0; r < 2 * (p - p1); r += 2) /* the fold: pairs into one */
        in1 = fmax(in1, ch4coll_model_block(
                            m, ch4coll_nbytes(a, ch4coll_blk_count(a, r))));
    for (r = 0; r <= p1; r++) /* at[] of the p' positions */
        at[r] = at[r < p - p1 ? 2 * r : r + p - p1];
    if (p1 < p) /* the fold's two messages: a block in, everything out */
        T = in1 + ch4coll_model_block(m, ch4coll_nbytes(a, at[p1]));
    line_phases(p1, params[0], &ph);
    p = p1;
    for (i = 0; i < ph.n; i++) {
        int R = ph.radix[i];
        double worst = 0.0;
        for (r = 0; r < p; r++) {
            int hb = r - r % W, d = (r / W) % R;
            double out = 0.0, in = 0.0;
            for (e = 0; e < R; e++) {
                int lo = hb + (e - d) * W;
                double t = ch4coll_model_block(
                    m, ch4coll_nbytes(a, at[lo + W] - at[lo]));
                if (e == d)
                    out = (R - 1) * t;
                else
                    in += t;
            }
            worst = out > worst ? out : worst;
            worst = in > worst ? in : worst;
        }
        T += worst;
        W *= R;
    }
    ch4coll_free(at);
    return T;
}

double ch4coll_cost_allgather_line(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    return a->count == 0 ? 0.0 : line_ag_cost(a, params, m);
}

double ch4coll_cost_allgatherv_line(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    return line_ag_cost(a, params, m);
}
