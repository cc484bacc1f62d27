/*
 * chain.c - reduce along a chain of ranks, pipelined in chunks: the
 * reverse of bcast `line` with one stream (line.c); bidir_chain, half
 * the vector each way round the cycle of ranks; and torus_trees, half up
 * each of two link-disjoint spanning trees of the torus (reduce; allreduce
 * with the result sent back down the same trees).
 *
 * Source: the pipelined chain of Almasi et al. (BG/L) section 3.1 run
 * backwards, with a fold at every hop (a reduction's pipeline: Sanders,
 * Speck and Träff 2009, section 1, the chain as the simplest pipelined
 * tree); Open MPI's tuned "pipeline" reduce (SMPI's ompi_pipeline) is this
 * shape.  On a ring or torus of consecutive ranks every hop is between
 * neighbours, where the butterfly's long hops share links.
 *
 * Chain.  Positions 0..p-1, data flowing from p-1 down to 0.  A
 * commutative op: position v is rank (root + v) mod p, the root at
 * position 0; with the parameters torus_x, torus_y (0 = none) it is the
 * rank v steps from the root round the torus ring of cycle.h, every hop
 * between torus neighbours (an odd number of nodes: one odd step, whose
 * route shares no link with the others one way round).  Otherwise the
 * ranks in order (position v is rank v), so that rank v folds its own
 * chunk in front of what comes from above
 * (x_v op (x_(v+1) op ...)) and rank 0 ends with x_0 op ... op x_(p-1); a
 * root elsewhere then gets each finished chunk from rank 0 (one more
 * hop, pipelined with the rest).
 *
 * Steps, chunk k = 0..K-1 (c elements, the parameter in bytes; at most
 * 2^20 chunks) at position v:
 *   v = p-1  send its chunk k to position v - 1;
 *   v < p-1  receive chunk k from v + 1 into slot k mod W of a scratch
 *            ring (W = min(16, K) chunks), fold its own chunk in front of
 *            it, and
 *            send the slot to v - 1 (v > 0) or keep it (v = 0: the root
 *            receives straight into its receive buffer and folds its send
 *            buffer in front, or in place folds into the slot and copies).
 * A slot is received into again only after its send.  Chunk k travels
 * on tag k mod W (the last hop to a root that is not rank 0: W + k mod
 * W), and its send waits for the send of chunk k - F (parameter
 * inflight, F <= W): a hop keeps up to F chunks in flight.  The first
 * rank's sends wait for the same.  A tag is used again only once its
 * chunk has been received, so the matching order of MPI's same-tag
 * messages keeps chunks apart.
 * Inflight.  Many in flight hide the rendezvous handshake of a long hop:
 * one at a time serialized it, and chains in rank order on SimGrid's
 * torus cross the 8-hop route from rank 0 back to rank 23 (p = 24, 2
 * MiB, the mean over 3 roots: 1198-1354 us in 8-64 KiB chunks, against
 * SMPI's NTSL, every segment's Isend at once, 776).  Where every hop is
 * between torus neighbours the handshake is short, and chunks in flight
 * on one link share it: each arrives as late as the last of them, and
 * the next hop starts that much later, hop after hop.  So inflight 0
 * takes one where every hop is between torus neighbours (the chain round
 * the torus's cycle, with torus_x set) and four elsewhere, where routes
 * are longer.  SimGrid, the mean over 3 roots: on the torus, bidir_chain
 * round it in 12 KiB chunks at p = 96, 2 MiB 400.4 us with one in flight
 * against 688.8 with 16 (542.4 with 4), 8 MiB 934.1 against 1391.4; at
 * p = 61, an odd count that keeps rank order, four: 2 MiB 486.4 (one:
 * 482.1, 16: 616.6), 8 MiB 1413.9 (one: 1706.2, 16: 1600.8).  On the fat
 * tree and smp at p = 24, 61, 96 and 512 KiB, 2 and 8 MiB, four against
 * 16 in flight: 52 of 54 cells of chain, bidir_chain and torus_trees'
 * fallback faster or within 1 % (fat tree, p = 24, 8 MiB, bidir_chain
 * 437.9 against 513.8; chain 499.5 against 606.1), smp at p = 96, 512
 * KiB 2.8-4.2 % slower; one in flight is slower there (fat tree, p = 96,
 * 8 MiB, bidir_chain 848.1).
 *
 * Cost, t = alpha + c beta + c gamma (a hop: the receive, the fold, the
 * send), K chunks:
 *   T = (p - 2 + K) t  (+ alpha + c beta for the last hop to a root
 *                       other than rank 0 with a non-commutative op);
 * one port per rank, so inflight does not enter it.
 * W = 16, not 4: a slot is received into again only once its chunk has
 * reached the next rank, so W bounds the receives posted ahead (and the
 * chunks in flight, with inflight 16); in SimGrid (torus, p = 61, 8 MiB,
 * rank order) 4 slots took 3230 us with 64 KiB chunks and 3446 with 32
 * KiB, 16 slots 2820 and 2657; unchanged at p = 16 on all three
 * platforms.
 * Scratch: W chunks at every rank but the first and a root at the end
 * that is not in place.  Restrictions: none (any p, root, op, count;
 * MPI_IN_PLACE at the root).
 *
 * Worked example, p = 5, root 2, a commutative op, 3 chunks: the chain is
 * 3 -> 4 -> 0 -> 1 -> 2 (positions 4..0 hold ranks 1, 0, 4, 3, 2).  Rank 1
 * sends chunks 0, 1, 2 to rank 0; rank 0 folds each and passes it to 4,
 * 4 to 3, 3 to 2; rank 2 has chunk 0 after 4 hops and the last chunk
 * after 4 + 2 = 6 = p - 2 + K hop times.  With a non-commutative op the
 * chain is 4 -> 3 -> 2 -> 1 -> 0 and rank 0 sends each finished chunk on to
 * rank 2.
 *
 * ------------------------------------------------------ reduce bidir_chain
 * Section 3.1's two streams in opposite directions round a cycle, on the
 * cycle of relative ranks (commutative ops only): the first half of the
 * vector (ceil(n/2) elements) is reduced along the chain above, relative
 * ranks p-1, p-2, ..., 1 into the root; the second along 1, 2, ..., p-1
 * into the root (position v of that chain is relative rank p - v), each on
 * tags of its own with its own W slots.  With torus_x, torus_y the cycle
 * is the torus ring of cycle.h for an even number of nodes, so the two
 * ways share no link (an odd number keeps rank order: the cycle's odd
 * step would put both halves on one link, and bcast's gain from taking
 * it, 431 against 523 us at p = 61, is the links'; a reduction's pace is
 * mostly its folds').  Every middle rank of both chains receives, folds
 * and sends half the vector each way: the chain's bytes and folds, over
 * both of its ring links at once where consecutive ranks are network
 * neighbours.  p = 2: one chain.  Parameters: chunk (default 16384, the
 * best of 8, 16 and 64 KiB on SimGrid's platforms at p = 16 and 24, 2-8
 * MiB, but for the torus at p = 24, 8192) and inflight (the chain's).
 * Cost on one port and one CPU: the chain's, with K the chunks of both
 * halves, T = (p - 2 + K) t.  Scratch: W chunks of each half's chain at
 * every rank but that chain's first and a root not in place.
 * Restrictions: commutative ops; any p, root, count; MPI_IN_PLACE at the
 * root.  Worked example, p = 5, root 2, 4 elements, one element a chunk:
 * relative ranks 0..4 are ranks 2, 3, 4, 0, 1.  Elements 0-1 flow
 * 1 -> 0 -> 4 -> 3
 * -> 2 (relative 4, 3, 2, 1, 0), elements 2-3 flow 3 -> 4 -> 0 -> 1 -> 2;
 * rank 0 folds its element 0 into what comes from 1 and its element 2
 * into what comes from 4, and the root folds its own into both.
 *
 * ------------------------------------------------------ reduce torus_trees
 * bcast torus_trees upside down (torus_trees.h; line.c's note has the
 * trees and a worked example): half A of the vector is folded up tree A
 * (the x lines in -x towards the root's column, then the column towards
 * the root), half B up tree B (+x towards column cb, then cb's column,
 * then cb to the root), every hop between torus neighbours and no link
 * carrying both halves, where bidir_chain's chains are p/2 hops deep.
 * Steps, chunk k of a half at a rank with children c_0 .. c_(m-1), m <= 3:
 * a leaf sends its own chunk to its parent (W in flight, as the chain's
 * first rank); otherwise c_0's chunk arrives in slot w = k mod W of c_0's
 * W slots (the root: in its receive buffer, unless in place), this rank's
 * own is folded into it, then each other child's from its own slots, and
 * the slot goes to the parent, after the send of chunk k - F (parameter
 * inflight, as the chain's: 0 takes one with torus_x set, where every hop
 * is between neighbours; SimGrid torus, 12 KiB chunks, the mean over 3
 * roots, three trees: p = 96, 2 MiB 167.2 us against 286.0 with 16 in
 * flight, 8 MiB 530.7 against 698.8; p = 61 201.4 against 320.0 and
 * 725.4 against 854.3; p = 24 213.4 against 355.8).  Folds run one at a
 * time in chunk order; a slot is received into again after its send
 * (c_0's) or its fold.  Tags:
 * tree t's chunk k on t W_max + k mod W, as bidir_chain's chains.  By
 * default (parameter trees 0) the trees are bcast torus_trees' packing
 * instead (topo/packing.h: two with a partial x line, three for whole
 * lines), the vector cut into as many parts, each folded up one tree as
 * above (a tree's links, reversed, are as disjoint as its own), up to
 * a node's links (four in 2-D) children per tree; the pair where the
 * packing has fewer than two or trees = 1.  Any other placement runs
 * bidir_chain's chains with the same chunk.
 * Cost, t = alpha + c beta + c gamma (a child's chunk received and
 * folded), K chunks of both halves: T = (max(yr, R - 1 - yr) + X - 1 +
 * 2 K) t: the root folds three children's chunks per chunk of A and one
 * or two per chunk of B, column cb's host in the root's line three of B.
 * With k trees of the packing: T = (D - 1 + sum over trees of the root's
 * children times the tree's chunks) t, D the deepest tree's depth.
 * Scratch: W chunks per child (at most 3 W per tree of the pair).
 * Restrictions:
 * commutative ops; any p, root, count; MPI_IN_PLACE at the root.
 * Worked example, X = 4, p = 10, root 5 (line.c's trees): half A flows
 * 8 -> 4 -> 7 -> 6 -> 5, 0 -> 3 -> 2 -> 1 -> 5 and 9 -> 5, so 5 folds
 * the chunks of 6, 1 and 9 into its own; half B flows 6 -> 7 -> 4,
 * 1 -> 2 -> 3 -> 0 -> 4, 8 -> 4, then 4 -> 5, and 9 -> 5: rank 4 folds
 * those of 7, 0 and 8.
 *
 * --------------------------------------------------- allreduce torus_trees
 * The reduce above to the first rank of the middle x line, X floor((R -
 * 1) / 2), so that each column's half runs up and half down; as the root
 * finishes chunk k of a half it sends it back down that half's tree, each
 * rank receiving it into its receive buffer (in place: after its own chunk
 * has been read, by its first fold or, at a leaf, its send) and passing it
 * on to its children; up on tags [0, S W_max), down on [S W_max,
 * 2 S W_max), S the most trees the placement may take (2 for the pair),
 * each down tag used again after its chunk W before (received, and sent to
 * each child), and at most F chunks in flight to each child (inflight, as
 * the way up: p = 96, 2 MiB 285.0 us against 416.8 with 16, 8 MiB 933.4
 * against 1081.2; p = 61 349.2 against 428.8 and 1314.2 against 1377.4).  A
 * link carries one half up and the other down (A's way up is B's way down: -x):
 * the vector once each way, as a ring's reduce-scatter and allgather together,
 * but over the trees' depth instead of 2 (p - 1) steps; with k trees of the
 * packing, a directed link carries at most one part up and one down, 2/k of the
 * vector.  Any other placement runs allreduce `ring` (round the torus's cycle,
 * pipelined in the same chunks).  Cost: the reduce's, plus the root's port
 * sending every chunk down, k K (alpha + c beta) for k trees of K chunks.
 * Scratch: the reduce's.  Restrictions: commutative ops; any p, count;
 * MPI_IN_PLACE.  Worked example, X = 4, p = 10 (line.c's shape): root
 * 4 = (0, 1), cb = 3.  Half A is folded 7 -> 6 -> 5 -> 4, 3 -> 2 -> 1 ->
 * 0 -> 4 and 9 -> 8 -> 4, and comes back down 4 -> 5 -> 6 -> 7, 4 -> 0
 * -> 1 -> 2 -> 3 and 4 -> 8 -> 9; half B is folded 8 -> 9 -> 5 -> 6 ->
 * 7 -> 4 and 0 -> 1 -> 2 -> 3 -> 7, and comes back 4 -> 7 -> 6 -> 5 ->
 * 9 -> 8 and 7 -> 3 -> 2 -> 1 -> 0.
 */
#include "algo.h"

#include <math.h>
#include <string.h>

#include "../topo/topo.h"
#include "cycle.h"
#include "torus_trees.h"

#define CH_SLOTS      16
#define CH_MAX_CHUNKS ((size_t) 1 << 20)

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    size_t base, n, K;  /* first element, elements, chunks */
    int dir;            /* +1: position v is step v round the cycle from
                         * the root; -1: step -v, the way back */
    int tag0;           /* first tag */
    int ordered;        /* ranks in order: a non-commutative op */
    int v;              /* this rank's position */
    int up, down;       /* ranks at positions v + 1 and v - 1, or -1 */
    int slot;           /* scratch ring, or -1 */
    int W;              /* scratch slots: min(CH_SLOTS, K) */
    int F;              /* sends in flight to the next rank (ch_inflight) */
    int sent[CH_SLOTS]; /* the last send (or copy) out of each slot */
    int last_fold;
} ch_t;

/* The parameter inflight: the chunks a rank sends on before the oldest
 * has arrived; 0 chooses one where every hop is between torus neighbours
 * (the trees, or a chain round the torus's cycle), else four (the opening
 * note's "Inflight"). */
#define CH_INFLIGHT_NEIGHBOURS 1
#define CH_INFLIGHT_OTHER      4

static int ch_inflight(int64_t param, int neighbours)
{
    if (param > 0)
        return param < CH_SLOTS ? (int) param : CH_SLOTS;
    return neighbours ? CH_INFLIGHT_NEIGHBOURS : CH_INFLIGHT_OTHER;
}

/* deps (room for n + 1) plus the send of chunk k - F, which chunk k's
 * send waits for (F sends in flight), if any: the count.  sent[w stride]
 * is slot w's last send, and chunk k - F's is still there while F < W. */
static int ch_gated(int *deps, int n, const int *sent, size_t stride, int W,
                    int F, size_t k)
{
    int g;

    if (F >= W || k < (size_t) F)
        return n;
    g = sent[(k - (size_t) F) % (size_t) W * stride];
    if (g >= 0)
        deps[n++] = g;
    return n;
}

/* Chunks of n elements of `bytes` each, chunk bytes at most. */
static size_t ch_nchunks(size_t n, size_t bytes, int64_t chunk)
{
    size_t per = (size_t) (chunk < 1 ? 1 : chunk) / (bytes ? bytes : 1);

    per = per > 0 ? per : 1;
    if (n == 0)
        return 0;
    if ((n + per - 1) / per > CH_MAX_CHUNKS)
        per = (n + CH_MAX_CHUNKS - 1) / CH_MAX_CHUNKS;
    return (n + per - 1) / per;
}

/* The rank at position v of chain c on cycle cyc, whose position xr the
 * root holds; -1 off the chain. */
static int ch_rank(const ch_t *c, const ch4coll_cycle_t *cyc, int xr, int v)
{
    int p = c->a->size;

    if (v < 0 || v >= p)
        return -1;
    return c->ordered ? v : ch4coll_cycle_at(cyc, xr + c->dir * v);
}

/* The chain of elements [base, base + n), running way dir round cycle
 * cyc (a commutative op; else rank order), on tags from tag0. */
static void ch_open(ch_t *c, ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const ch4coll_cycle_t *cyc, size_t base, size_t n, int dir,
                    int tag0, int64_t chunk, int inflight)
{
    int p = a->size, xr = ch4coll_cycle_pos(cyc, a->root), k, rel;

    c->s = s;
    c->a = a;
    c->base = base;
    c->n = n;
    c->dir = dir;
    c->tag0 = tag0;
    c->K = ch_nchunks(n, a->elem.size, chunk);
    c->ordered = !a->commutative;
    rel = (cyc->x - xr + p) % p;
    c->v = c->ordered ? a->rank : dir > 0 ? rel : ch4coll_rel_back(rel, p);
    c->up = ch_rank(c, cyc, xr, c->v + 1);
    c->down = ch_rank(c, cyc, xr, c->v - 1);
    c->slot = -1;
    c->last_fold = -1;
    c->W = c->K < CH_SLOTS ? (int) c->K : CH_SLOTS;
    c->F = inflight;
    for (k = 0; k < CH_SLOTS; k++)
        c->sent[k] = -1;
}

/* Element offset and length of chunk k. */
static size_t ch_chunk(const ch_t *c, size_t k, size_t *len)
{
    *len = ch4coll_seg_len(c->n, c->K, k);
    return c->base + ch4coll_seg_off(c->n, c->K, k);
}

static ch4coll_ref_t ch_buf(const ch_t *c, int buf, size_t off)
{
    return ch4coll_ref(buf, ch4coll_eoff(c->a, off));
}

/* Whether this rank folds into scratch slots: every rank that receives,
 * but the root at the chain's end when not in place (it receives straight
 * into its receive buffer, ch_step). */
static int ch_slots(const ch_t *c)
{
    return c->up >= 0 && c->K > 0 &&
           !(c->down < 0 && c->a->rank == c->a->root && !c->a->inplace);
}

/* This rank's own data: the send buffer, or in place the receive buffer. */
static int ch_own(const ch_t *c)
{
    return c->a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
}

/* Where this rank's result of chunk k goes: its receive buffer if it is
 * the root at the end of the chain (not in place: received there and
 * folded into), else slot k mod W. */
static int ch_step(ch_t *c, size_t k)
{
    size_t len, off = ch_chunk(c, k, &len);
    int w = (int) (k % (size_t) c->W), tag = c->tag0 + w, d[3], n, got,
        is_root = c->a->rank == c->a->root;
    ch4coll_ref_t tmp = ch_buf(c, c->slot,
                               (size_t) w * ch4coll_seg_len(c->n, c->K, 0)),
                  own = ch_buf(c, ch_own(c), off);

    if (c->up < 0) { /* the chain's first rank: F sends in flight */
        n = ch_gated(d, ch4coll_dep1(c->sent[w], d), c->sent, 1, c->W, c->F, k);
        return c->sent[w] =
                   ch4coll_sched_send(c->s, own, len, c->down, tag, n, d);
    }
    if (c->down < 0 && is_root && !c->a->inplace) { /* straight into recv */
        ch4coll_ref_t res = ch_buf(c, CH4COLL_BUF_RECV, off);
        got = ch4coll_sched_recv(c->s, res, len, c->up, tag, 0, NULL);
        n = 0;
        d[n++] = got;
        if (c->last_fold >= 0)
            d[n++] = c->last_fold;
        c->last_fold = ch4coll_sched_reduce(c->s, own, res, len, n, d);
        return c->last_fold;
    }
    got = ch4coll_sched_recv(c->s, tmp, len, c->up, tag,
                             ch4coll_dep1(c->sent[w], d), d);
    n = 0;
    d[n++] = got;
    if (c->last_fold >= 0)
        d[n++] = c->last_fold;
    c->last_fold = ch4coll_sched_reduce(c->s, own, tmp, len, n, d);
    if (c->down >= 0) {
        d[0] = c->last_fold;
        n = ch_gated(d, 1, c->sent, 1, c->W, c->F, k);
        return c->sent[w] =
                   ch4coll_sched_send(c->s, tmp, len, c->down, tag, n, d);
    }
    if (is_root) /* in place: the slot's result into the receive buffer */
        return c->sent[w] = ch4coll_sched_copy(c->s, tmp,
                                               ch_buf(c, CH4COLL_BUF_RECV, off),
                                               len, 1, &c->last_fold);
    /* rank 0 of an ordered chain whose root is elsewhere: the last hop */
    return c->sent[w] =
               ch4coll_sched_send(c->s, tmp, len, c->a->root,
                                  c->tag0 + c->W + w, 1, &c->last_fold);
}

/* No data, or one rank: its own vector is the result. */
static int ch_alone(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    if (a->count > 0 && !a->inplace)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count, 0, NULL);
    return CH4COLL_OK;
}

int ch4coll_ntags_reduce_chain(const ch4coll_args_t *a, const int64_t *params)
{
    size_t K = ch_nchunks(a->count, a->elem.size, params[0]);
    int W = K < CH_SLOTS ? (int) (K > 0 ? K : 1) : CH_SLOTS;

    return a->commutative ? W : 2 * W;
}

int ch4coll_reduce_chain(ch4coll_sched_t *s, const ch4coll_args_t *a,
                         const int64_t *params)
{
    ch_t c;
    ch4coll_cycle_t cyc;
    size_t k, len, off;
    int is_root = a->rank == a->root, *fold = NULL, d[1], rc;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_reduce_chain(a, params));
    if (a->count == 0 || a->size == 1)
        return ch_alone(s, a);
    rc = ch4coll_cycle_open(&cyc, a, a->commutative ? params + 1 : NULL, 0, 0);
    if (rc != CH4COLL_OK)
        return rc;
    ch_open(&c, s, a, &cyc, 0, a->count, 1, 0, params[0],
            ch_inflight(params[3], cyc.order != NULL));
    ch4coll_cycle_close(&cyc); /* ch_open took its ranks */
    if (ch_slots(&c))
        c.slot = ch4coll_sched_scratch(s, (size_t) c.W *
                                              ch4coll_seg_len(c.n, c.K, 0));
    /* a root inside an ordered chain: its own chunks feed the chain before
     * rank 0's results overwrite them (in place) */
    if (is_root && c.down >= 0) {
        fold = ch4coll_malloc(c.K * sizeof *fold);
        if (!fold)
            return CH4COLL_ERR_NOMEM;
    }
    for (k = 0; k < c.K; k++) {
        int v = ch_step(&c, k);
        if (fold)
            fold[k] = v;
    }
    for (k = 0; fold && k < c.K; k++) {
        off = ch_chunk(&c, k, &len);
        d[0] = a->inplace ? fold[k] : -1;
        ch4coll_sched_recv(s, ch_buf(&c, CH4COLL_BUF_RECV, off), len, 0,
                           c.W + (int) (k % (size_t) c.W),
                           ch4coll_dep1(d[0], d), d);
    }
    ch4coll_free(fold);
    return CH4COLL_OK;
}

double ch4coll_cost_reduce_chain(const ch4coll_args_t *a, const int64_t *params,
                                 const ch4coll_model_t *m)
{
    size_t K = ch_nchunks(a->count, a->elem.size, params[0]);
    double c, t;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    c = ch4coll_nbytes(a, ch4coll_seg_len(a->count, K, 0));
    t = ch4coll_model_msg(m, c) + c * m->gamma;
    return (a->size - 2 + (double) K) * t +
           (!a->commutative && a->root != 0 ? ch4coll_model_msg(m, c) : 0.0);
}

/* ====================================================== reduce bidir_chain */

/* Chain j's chunks on tags j CH_SLOTS + [0, W). */
int ch4coll_ntags_reduce_bidir_chain(const ch4coll_args_t *a,
                                     const int64_t *params)
{
    (void) params;
    return ch4coll_bidir_chains(a->size) * CH_SLOTS;
}

/* The two chains (tags set by the caller: j CH_SLOTS + [0, W) for chain
 * j), a commutative op, count > 0, p > 1. */
static int bidir_chains(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params, int64_t inflight)
{
    ch_t c[2];
    ch4coll_cycle_t cyc;
    size_t k, kmax = 0;
    int nc = ch4coll_bidir_chains(a->size), j, rc;

    rc = ch4coll_cycle_open(&cyc, a, params + 1, 1, 0);
    if (rc != CH4COLL_OK)
        return rc;
    for (j = 0; j < nc; j++) {
        ch_open(&c[j], s, a, &cyc,
                ch4coll_seg_off(a->count, (size_t) nc, (size_t) j),
                ch4coll_seg_len(a->count, (size_t) nc, (size_t) j),
                j == 0 ? 1 : -1, j * CH_SLOTS, params[0],
                ch_inflight(inflight, cyc.order != NULL));
        if (c[j].K > kmax)
            kmax = c[j].K;
        if (ch_slots(&c[j]))
            c[j].slot = ch4coll_sched_scratch(
                s, (size_t) c[j].W * ch4coll_seg_len(c[j].n, c[j].K, 0));
    }
    ch4coll_cycle_close(&cyc); /* ch_open took its ranks */
    /* chunk-major order: both chains advance at the same pace */
    for (k = 0; k < kmax; k++)
        for (j = 0; j < nc; j++)
            if (k < c[j].K)
                ch_step(&c[j], k);
    return CH4COLL_OK;
}

int ch4coll_reduce_bidir_chain(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_reduce_bidir_chain(a, params));
    if (!a->commutative) /* the registry allows commutative ops only */
        return CH4COLL_ERR_ARG;
    if (a->count == 0 || a->size == 1)
        return ch_alone(s, a);
    return bidir_chains(s, a, params, params[3]);
}

/* The chain's, with K the chunks of both halves: on one port a middle
 * rank receives, folds and sends every chunk of both. */
double ch4coll_cost_reduce_bidir_chain(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    size_t nc = (size_t) ch4coll_bidir_chains(a->size), K = 0, j, n;
    double c = 0, t;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    for (j = 0; j < nc; j++) {
        size_t len = ch4coll_seg_len(a->count, nc, j),
               kj = ch_nchunks(len, a->elem.size, params[0]);
        if (kj == 0)
            continue;
        K += kj;
        n = ch4coll_seg_len(len, kj, 0);
        c = fmax(c, ch4coll_nbytes(a, n));
    }
    t = ch4coll_model_msg(m, c) + c * m->gamma;
    return (a->size - 2 + (double) K) * t;
}

/* ====================================================== reduce torus_trees */

/* Tree t's half at this rank: its elements, chunks, tags, edges. */
typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    size_t base, n, K, clen; /* first element, elements, chunks, the largest */
    int tag0, W, F; /* F: sends in flight to the parent (ch_inflight) */
    int parent, nkids, kids[CH4COLL_PACKING_MAXKIDS];
    int slot; /* scratch: W chunks per child, or -1 */
    int sent[CH_SLOTS];
    int used[CH4COLL_PACKING_MAXKIDS][CH_SLOTS]; /* the fold that read
                                                  * child i's slot w */
    int last_fold;
    /* allreduce: the result's way down the same tree */
    int down0; /* the first tag of the way down */
    int bgot[CH_SLOTS];
    int bsent[CH_SLOTS][CH4COLL_PACKING_MAXKIDS];
} tr_t;

/* Tree t of h's at this rank: part t of h->s of the vector. */
static void tr_open(tr_t *r, ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const ch4coll_tt_here_t *h, int t, int64_t chunk,
                    int inflight)
{
    int i, w;

    r->s = s;
    r->a = a;
    r->base = ch4coll_seg_off(a->count, (size_t) h->s, (size_t) t);
    r->n = ch4coll_seg_len(a->count, (size_t) h->s, (size_t) t);
    r->K = ch_nchunks(r->n, a->elem.size, chunk);
    r->clen = r->K ? ch4coll_seg_len(r->n, r->K, 0) : 0;
    r->tag0 = t * CH_SLOTS;
    r->down0 = 0;
    r->W = r->K < CH_SLOTS ? (int) r->K : CH_SLOTS;
    r->F = inflight;
    r->parent = h->parent[t];
    r->nkids = h->nkids[t];
    memcpy(r->kids, h->kids[t], sizeof(int) * (size_t) r->nkids);
    r->slot = -1;
    r->last_fold = -1;
    for (w = 0; w < CH_SLOTS; w++) {
        r->sent[w] = r->bgot[w] = -1;
        for (i = 0; i < CH4COLL_PACKING_MAXKIDS; i++)
            r->used[i][w] = r->bsent[w][i] = -1;
    }
}

/* Fold in into acc after dep (and the fold before: one CPU, in order). */
static int tr_fold(tr_t *r, ch4coll_ref_t in, ch4coll_ref_t acc, size_t len,
                   int dep)
{
    int d[2], n = 0;

    if (dep >= 0)
        d[n++] = dep;
    if (r->last_fold >= 0)
        d[n++] = r->last_fold;
    return r->last_fold = ch4coll_sched_reduce(r->s, in, acc, len, n, d);
}

static ch4coll_ref_t tr_buf(const tr_t *r, int buf, size_t off)
{
    return ch4coll_ref(buf, ch4coll_eoff(r->a, off));
}

/* Child i's slot w. */
static ch4coll_ref_t tr_slot(const tr_t *r, int i, int w)
{
    return tr_buf(r, r->slot,
                  ((size_t) i * (size_t) r->W + (size_t) w) * r->clen);
}

/* Chunk k: the children's chunks folded into this rank's own, in child
 * 0's slot w (the root: in its receive buffer), then sent to the parent;
 * a leaf sends its own chunk (W in flight, as the chain's first rank).
 * Returns the vertex that read this rank's own chunk (-1 at the root). */
static int tr_step(tr_t *r, size_t k)
{
    const ch4coll_args_t *a = r->a;
    size_t len = ch4coll_seg_len(r->n, r->K, k),
           off = r->base + ch4coll_seg_off(r->n, r->K, k);
    int w = (int) (k % (size_t) r->W), tag = r->tag0 + w, root = r->parent < 0;
    int i = 0, d[2], n, got, reader = -1;
    ch4coll_ref_t own = tr_buf(
                      r, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, off),
                  acc = root ? tr_buf(r, CH4COLL_BUF_RECV, off)
                             : tr_slot(r, 0, w);

    if (r->nkids == 0) {
        n = ch_gated(d, ch4coll_dep1(r->sent[w], d), r->sent, 1, r->W, r->F, k);
        return r->sent[w] =
                   ch4coll_sched_send(r->s, own, len, r->parent, tag, n, d);
    }
    if (!root || !a->inplace) { /* child 0 straight into the accumulator */
        d[0] = root ? -1 : r->sent[w];
        got = ch4coll_sched_recv(r->s, acc, len, r->kids[0], tag,
                                 ch4coll_dep1(d[0], d), d);
        reader = tr_fold(r, own, acc, len, got);
        i = 1;
    }
    for (; i < r->nkids; i++) {
        d[0] = r->used[i][w];
        got = ch4coll_sched_recv(r->s, tr_slot(r, i, w), len, r->kids[i], tag,
                                 ch4coll_dep1(d[0], d), d);
        r->used[i][w] = tr_fold(r, tr_slot(r, i, w), acc, len, got);
    }
    if (!root) {
        d[0] = r->last_fold;
        n = ch_gated(d, 1, r->sent, 1, r->W, r->F, k);
        r->sent[w] = ch4coll_sched_send(r->s, acc, len, r->parent, tag, n, d);
    }
    return root ? -1 : reader;
}

/* Every tree at this rank, their scratch, and the chunks of the largest
 * part. */
static void tr_trees(tr_t *r, ch4coll_sched_t *s, const ch4coll_args_t *a,
                     const ch4coll_tt_here_t *h, const int64_t *params,
                     size_t *kmax)
{
    int t, F = ch_inflight(params[4], 1);

    *kmax = 0;
    for (t = 0; t < h->s; t++) {
        tr_open(&r[t], s, a, h, t, params[0], F);
        if (r[t].nkids > 0 && r[t].K > 0)
            r[t].slot = ch4coll_sched_scratch(
                s, (size_t) r[t].nkids * (size_t) r[t].W * r[t].clen);
        if (r[t].K > *kmax)
            *kmax = r[t].K;
    }
}

/* Tree t's chunks on tags t CH_SLOTS + [0, W); the chains' when they run
 * instead (two at most). */
int ch4coll_ntags_reduce_torus_trees(const ch4coll_args_t *a,
                                     const int64_t *params)
{
    return ch4coll_tt_streams(a, params + 1, params[3]) * CH_SLOTS;
}

int ch4coll_reduce_torus_trees(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    ch4coll_tt_here_t h;
    tr_t r[CH4COLL_PACKING_MAXK];
    size_t k, kmax = 0;
    int t, rc;

    ch4coll_sched_set_ntags(s, ch4coll_ntags_reduce_torus_trees(a, params));
    if (!a->commutative) /* the registry allows commutative ops only */
        return CH4COLL_ERR_ARG;
    if (a->count == 0 || a->size == 1)
        return ch_alone(s, a);
    if ((rc = ch4coll_tt_here(&h, a, params + 1, params[3])) != CH4COLL_OK)
        return rc;
    if (h.s == 0)
        return bidir_chains(s, a, params, params[4]);
    tr_trees(r, s, a, &h, params, &kmax);
    /* chunk-major order: every tree advances at the same pace */
    for (k = 0; k < kmax; k++)
        for (t = 0; t < h.s; t++)
            if (k < r[t].K)
                tr_step(&r[t], k);
    return CH4COLL_OK;
}

/* The largest chunk, in bytes, of s parts of a's vector, and the chunks
 * of every part (sum), of those the root folds from its children
 * (rootk[t] children in tree t; NULL: 2 K, the pair's three and one). */
static double tr_chunks(const ch4coll_args_t *a, int64_t chunk, int s,
                        const int *rootk, double *folds)
{
    size_t j, kj, len;
    double c = 0;

    *folds = 0;
    for (j = 0; j < (size_t) s; j++) {
        len = ch4coll_seg_len(a->count, (size_t) s, j);
        kj = ch_nchunks(len, a->elem.size, chunk);
        if (kj == 0)
            continue;
        *folds += (double) kj * (rootk ? rootk[j] : 2);
        c = fmax(c, ch4coll_nbytes(a, ch4coll_seg_len(len, kj, 0)));
    }
    return c;
}

/* One port and one CPU, t = alpha + c beta + c gamma a child's chunk
 * received and folded: the root folds its children's chunks of every
 * tree, after the deepest tree's depth.  The pair: three children's per
 * chunk of A and one or two per chunk of B, about 2 K t for K chunks of
 * both halves, after half a column and an x line.  Without the trees,
 * the chains'. */
double ch4coll_cost_reduce_torus_trees(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    ch4coll_packing_t pk;
    ch4coll_tt_t g = {0};
    int j, rc, rootk[CH4COLL_PACKING_MAXK], kids[CH4COLL_PACKING_MAXKIDS];
    double c, folds, depth;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (ch4coll_tt_packing(&pk, a, params + 1, params[3], &rc)) {
        for (j = 0; j < pk.k; j++)
            rootk[j] = ch4coll_packing_kids(&pk, j, a->root, kids);
        c = tr_chunks(a, params[0], pk.k, rootk, &folds);
        depth = ch4coll_packing_depth(&pk) - 1;
        ch4coll_packing_free(&pk);
    } else if (ch4coll_tt_open(&g, a, params + 1)) {
        c = tr_chunks(a, params[0], 2, NULL, &folds);
        depth = (g.yr > g.R - 1 - g.yr ? g.yr : g.R - 1 - g.yr) + g.X - 1;
    } else {
        return ch4coll_cost_reduce_bidir_chain(a, params, m);
    }
    return (depth + folds) * (ch4coll_model_msg(m, c) + c * m->gamma);
}

/* ==================================================== allreduce torus_trees */

/* The root of both trees: the first host of the middle x line, so that
 * each column runs half the lines up and half down. */
static int ar_root(const ch4coll_args_t *a, const int64_t *torus)
{
    int x = (int) torus[0], rows = (a->size + x - 1) / x;

    return (rows - 1) / 2 * x;
}

/* The trees of an allreduce at this rank: a's placement rooted at
 * ar_root (h->s = 0: none, the ring runs). */
static int ar_shape(ch4coll_tt_here_t *h, ch4coll_args_t *ra,
                    const ch4coll_args_t *a, const int64_t *params)
{
    *ra = *a;
    h->s = 0;
    if (params[1] < 1)
        return CH4COLL_OK;
    ra->root = ar_root(a, params + 1);
    return ch4coll_tt_here(h, ra, params + 1, params[3]);
}

/* The result's chunk k down tree r: from the parent into the receive
 * buffer (after own_read, the vertex that read it, in place), on to the
 * children; at the root from its last fold. */
static void ar_down(tr_t *r, size_t k, int own_read)
{
    size_t len = ch4coll_seg_len(r->n, r->K, k),
           off = r->base + ch4coll_seg_off(r->n, r->K, k);
    int w = (int) (k % (size_t) r->W), tag = r->down0 + r->tag0 + w, i, d[3],
        n = 0, got;
    ch4coll_ref_t res = tr_buf(r, CH4COLL_BUF_RECV, off);

    if (r->parent < 0) {
        got = r->last_fold;
    } else {
        if (r->a->inplace && own_read >= 0)
            d[n++] = own_read;
        if (r->bgot[w] >= 0)
            d[n++] = r->bgot[w];
        got = r->bgot[w] =
            ch4coll_sched_recv(r->s, res, len, r->parent, tag, n, d);
    }
    for (i = 0; i < r->nkids; i++) {
        n = 0;
        d[n++] = got;
        if (r->bsent[w][i] >= 0)
            d[n++] = r->bsent[w][i];
        n = ch_gated(d, n, &r->bsent[0][i], CH4COLL_PACKING_MAXKIDS, r->W, r->F,
                     k);
        r->bsent[w][i] =
            ch4coll_sched_send(r->s, res, len, r->kids[i], tag, n, d);
    }
}

/* Up tree t on tags t CH_SLOTS + [0, W), down on S CH_SLOTS + the same,
 * S the most trees the placement may take; the ring's where it runs
 * instead. */
int ch4coll_ntags_allreduce_torus_trees(const ch4coll_args_t *a,
                                        const int64_t *params)
{
    ch4coll_args_t ra = *a;

    if (a->size > 1 && params[1] >= 1)
        ra.root = ar_root(a, params + 1);
    if (a->size > 1 &&
        (params[1] < 1 || ch4coll_tt_count(&ra, params + 1, params[3]) <= 0))
        return ch4coll_ntags_ring_reduce(a, params);
    return 2 * ch4coll_tt_streams(a, params + 1, params[3]) * CH_SLOTS;
}

int ch4coll_allreduce_torus_trees(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    ch4coll_tt_here_t h;
    ch4coll_args_t ra;
    tr_t r[CH4COLL_PACKING_MAXK];
    size_t k, kmax;
    int t, rc = CH4COLL_OK;

    if (a->size > 1 && (rc = ar_shape(&h, &ra, a, params)) != CH4COLL_OK)
        return rc;
    if (a->size > 1 && h.s == 0)
        return ch4coll_allreduce_ring(s, a, params);
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allreduce_torus_trees(a, params));
    if (!a->commutative) /* the registry allows commutative ops only */
        return CH4COLL_ERR_ARG;
    if (a->count == 0 || a->size == 1)
        return ch_alone(s, a);
    tr_trees(r, s, &ra, &h, params, &kmax);
    for (t = 0; t < h.s; t++)
        r[t].down0 = ch4coll_tt_streams(a, params + 1, params[3]) * CH_SLOTS;
    for (k = 0; k < kmax; k++)
        for (t = 0; t < h.s; t++)
            if (k < r[t].K)
                ar_down(&r[t], k, tr_step(&r[t], k));
    return CH4COLL_OK;
}

/* The reduce's formula, then the result's way down: the root's port
 * sends each chunk of every part, s K (alpha + c beta) for K chunks of a
 * part and s trees, pipelined behind the folds.  Without the trees, the
 * ring's. */
double ch4coll_cost_allreduce_torus_trees(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    ch4coll_tt_here_t h;
    ch4coll_args_t ra;
    size_t K, part;
    double c;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (ar_shape(&h, &ra, a, params) != CH4COLL_OK || h.s == 0)
        return ch4coll_cost_allreduce_ring(a, params, m);
    part = ch4coll_seg_len(a->count, (size_t) h.s, 0);
    K = ch_nchunks(part, a->elem.size, params[0]);
    c = ch4coll_nbytes(a, K ? ch4coll_seg_len(part, K, 0) : 0);
    return ch4coll_cost_reduce_torus_trees(&ra, params, m) +
           (double) h.s * (double) K * ch4coll_model_msg(m, c);
}
