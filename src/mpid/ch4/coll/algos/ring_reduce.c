/*
 * ring_reduce.c - ring reductions: allreduce, reduce, reduce_scatter and
 * reduce_scatter_block, for commutative ops, one way round or both.
 *
 * Source: Rabenseifner & Adamidis section 3.7 ("Ring"): a reduce_scatter in
 * p - 1 ring steps, completed for allreduce by a ring allgather and for
 * reduce by "all processes send their result segment directly to root".
 * The paper exchanges with rank +- i; here every step talks to the two ring
 * neighbours only, so each segment's partial travels round the ring and is
 * folded once at every rank.  Ring order as in ring.c: with a node map
 * whose nodes are not consecutive, the ranks sorted by (node, rank) (NEC
 * MPI/SX section 4.2, Traeff et al. Figure 1), one inter-node segment per
 * node and step; the rank at position x still owns segment (block)
 * order[x], its own: only the fold order changes.  With the parameters
 * torus_x and torus_y (0 = no torus) the ring follows a cycle of torus
 * neighbours through the nodes' hosts instead (topo/torus.h, as ring.c;
 * bidir_ring keeps the node order for an odd number of nodes).
 *
 * Steps (rank r at position x; "segment y" is that of position y, mod p;
 * allreduce and reduce cut the n elements into p balanced segments, the
 * first n mod p one element longer, reduce_scatter uses the call's blocks):
 *   1. reduce-scatter, k = 0..p-2: send the partial of segment x-k-1 to
 *      position x+1 (k = 0: the input), receive the partial of segment
 *      x-k-2 from x-1 and fold my input into it.  Then r holds segment r.
 *   2. allreduce: ring allgather, k = 0..p-2: send segment x-k to x+1,
 *      receive segment x-k-1 from x-1 into place.  reduce: every rank but
 *      the root sends segment r to the root.  reduce_scatter: nothing.
 * Partials land in the receive buffer where it has room and does not hold
 * the input, else in two alternating scratch slots; the received buffer
 * becomes the accumulator (input op partial): the input is never copied.
 *
 * Cost (n bytes, balanced segments of s = n/p bytes, no chunk):
 *   allreduce       2 (p-1) alpha + 2 (p-1)/p n beta + (p-1)/p n gamma
 *                   (the paper's T_all,ring)
 *   reduce          (p-1)(alpha + alpha_uni) + (p-1)/p n (beta + beta_uni)
 *                   + (p-1)/p n gamma          (the paper's T_red,ring)
 *   reduce_scatter  (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma,
 * exact on the model (alpha_uni = alpha, beta_uni = beta); with n < p the
 * reduce root receives only the non-empty segments.  Irregular blocks: the
 * slowest block's p - 1 hops, or the load of a link or CPU (every block but
 * one), whichever is longer.  With a chunk, q pieces of c bytes a segment,
 * a reduce-scatter step lasts D = max(q alpha + s beta, s gamma, alpha +
 * c beta + c gamma) (link, CPU, one piece's latency); the phase takes
 * (p-2) D + alpha + c (beta + gamma) + max((q-1) alpha + (s-c) beta,
 * (s-c) gamma), and the allgather (or gather) adds (p-1)(q alpha + s beta).
 * The node order keeps these costs on any placement.  Scratch: none for
 * allreduce and the reduce root when not in place; else two slots of the
 * largest segment.  Building: p + nodes + 1 ints.
 * Restrictions: commutative ops only (segment j is folded in ring order
 * j+1, ..., p-1, 0, ..., j); any p, any count (empty segments and pieces
 * skipped on both sides), any root, MPI_IN_PLACE.
 * Parameter chunk (bytes, default 0 = off, 0..2^40), for all four: each
 * segment pipelined in pieces of at most chunk bytes (at least one element,
 * at most 2^20 pieces a segment).  torus_x, torus_y (0..4096, default 0):
 * the torus above.
 *
 * bidir_ring (allreduce, reduce_scatter, reduce_scatter_block; issue 24,
 * after ring.c's bidir_ring allgather): two of these rings at once, one
 * each way.  Segment j of c_j elements splits at h_j = floor(c_j / 2); the
 * ring above reduces the lower parts [0, h_j) (tags 0..T-1), a mirrored
 * ring the upper parts [h_j, c_j): position x sends to x - 1 and at step
 * k forwards the partial of position x + k + 1 (tags T..2T-1, T the one
 * ring's tag count).  Each step a rank sends one message to each
 * neighbour and receives one from each.  Where the two directions do not
 * share a port (a torus, the ranks of one SimGrid host) each carries half
 * the data: allreduce 2 (p-1)(alpha + n/(2p) beta) + (p-1)/p n gamma.  On
 * the single-ported model both messages of a step share the port: the
 * formulas above with every step's port time doubled at half the bytes,
 * one more alpha a step than the ring.  The rings share only the readers
 * of the input (an in-place reduce_scatter copies each ring's result into
 * place after both rings have read it).  p <= 2 runs one ring.  Worked
 * example, allreduce p = 3, n = 7 (segments 3, 2, 2; lower parts 1, 1, 1
 * element, upper parts 2, 1, 1) at rank 1: the right-going ring moves the
 * lower parts as in the example below; the left-going one sends the upper
 * part of segment 2 to rank 0 and receives rank 2's upper part of segment
 * 0, folding; then forwards that partial to rank 0 and receives the
 * partial of segment 1's upper element from rank 2: complete.
 *
 * Worked example, allreduce p = 3, n = 7 (segments of 3, 2, 2 elements) at
 * rank 1: step 0 sends its input of segment 0 to rank 2 and receives rank
 * 0's input of segment 2, folding (d0 + d1); step 1 forwards that and gets
 * rank 0's partial of segment 1 (d2 + d0), folding: segment 1 is complete.
 * Allgather: sends segment 1, gets 0; forwards 0, gets 2.  Node map, p = 5
 * cyclic on 2 nodes ({0, 2, 4}, {1, 3}): ring 0 2 4 1 3; rank 4 (position
 * 2) sends to 1, receives from 2, sends the partials of segments 2, 0, 3, 1
 * and folds 0, 3, 1, 4.  Only 4 -> 1 and 3 -> 0 cross nodes, where the
 * rank-order ring crosses on all five edges.
 */
#include "algo.h"

#include "hazard.h"
#include "../topo/nodes.h"
#include "../topo/topo.h"
#include "../topo/torus.h"

/* Most pieces per segment; a smaller chunk is raised to fit. */
#define MAX_PIECES ((size_t) 1 << 20)

/* Where my own segment's result goes, and how it is formed. */
enum {
    FIN_DIRECT,     /* received into place, my input folded in */
    FIN_ONTO_INPUT, /* the place holds my input: received into a slot and
                     * folded onto it (in place) */
    FIN_SLOT,       /* left in the slot (a reduce non-root sends it on) */
    FIN_COPY        /* left in the slot, copied into place when the input,
                     * which overlaps the place, has been read */
};

/* What a ring moves of every segment: all of it, or the lower or upper
 * half (bidir_ring: one ring each way). */
enum { HALF_NONE, HALF_LOWER, HALF_UPPER };

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int p, rank;
    int *order;     /* ring position -> rank; NULL: rank order */
    int x;          /* my position */
    int dir;        /* +1: send to position x + 1; -1: to x - 1 */
    int half;       /* HALF_*: the part of every segment this ring moves */
    int tag0;       /* added to every tag (the second direction's) */
    int blocks;     /* segments are the call's blocks, else a balanced cut */
    size_t ce;      /* piece length in elements */
    int in_buf;     /* my input vector: send or receive buffer */
    int direct;     /* partials received straight into the receive buffer */
    int fin;        /* FIN_* */
    size_t fin_off; /* element offset of my result in the receive buffer */
    int slot[2];    /* scratch slots, allocated on first use */
    size_t slot_len;
    int track;          /* record the readers of my input (FIN_COPY) */
    ch4coll_hz_t *inrd; /* ... here (shared by both directions) */
    ch4coll_hz_t inrd_own;
    /* per piece: the folds of the last step built and of the next one,
     * and the last vertex reading each slot's piece */
    int *fold, *nfold, *slot_rd[2];
    int np;         /* length of those arrays: most pieces of a segment */
    int *last_sent; /* per reduce-scatter step: its last send, or -1 */
    int *mem;       /* the builder's one allocation behind the arrays */
} ring_t;

static int mod(int x, int p)
{
    return ((x % p) + p) % p;
}

/* Rank at ring position x (mod p): the owner of that position's segment. */
static int at_pos(const ring_t *g, int x)
{
    x = mod(x, g->p);
    return g->order ? g->order[x] : x;
}

/* The rank I send to and the one I receive from. */
static int next_of(const ring_t *g)
{
    return at_pos(g, g->x + g->dir);
}

static int prev_of(const ring_t *g)
{
    return at_pos(g, g->x - g->dir);
}

/* The owner of the segment k positions upstream of mine. */
static int upstream(const ring_t *g, int k)
{
    return at_pos(g, g->x - g->dir * k);
}

static size_t whole_len(const ring_t *g, int j)
{
    const ch4coll_args_t *a = g->a;

    if (g->blocks)
        return ch4coll_blk_count(a, j);
    return ch4coll_seg_len(a->count, (size_t) g->p, (size_t) j);
}

/* Where the upper half of a segment of len elements starts. */
static size_t half_cut(size_t len)
{
    return len / 2;
}

/* Length of the part of segment j this ring moves. */
static size_t seg_len(const ring_t *g, int j)
{
    size_t len = whole_len(g, j);

    if (g->half == HALF_LOWER)
        return half_cut(len);
    return g->half == HALF_UPPER ? len - half_cut(len) : len;
}

/* Element offset of that part in the input vector. */
static size_t seg_off(const ring_t *g, int j)
{
    const ch4coll_args_t *a = g->a;
    size_t off;

    if (g->blocks)
        off = ch4coll_blk_displ(a, j);
    else
        off = ch4coll_seg_off(a->count, (size_t) g->p, (size_t) j);
    return g->half == HALF_UPPER ? off + half_cut(whole_len(g, j)) : off;
}

/* Offset of that part within its segment. */
static size_t part_off(const ring_t *g, int j)
{
    return g->half == HALF_UPPER ? half_cut(whole_len(g, j)) : 0;
}

static int npieces(const ring_t *g, size_t len)
{
    return len == 0 ? 0 : (int) (1 + (len - 1) / g->ce);
}

/* Offset (within its segment) and length of piece c of a segment. */
static size_t piece(const ring_t *g, size_t len, int c, size_t *clen)
{
    size_t off = (size_t) c * g->ce;

    *clen = len - off < g->ce ? len - off : g->ce;
    return off;
}

static ch4coll_ref_t at(const ring_t *g, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(g->a, elem));
}

static int slot_buf(ring_t *g, int k)
{
    int i = k % 2;

    if (g->slot[i] < 0)
        g->slot[i] = ch4coll_sched_scratch(g->s, g->slot_len);
    return g->slot[i];
}

static void track_read(ring_t *g, int v)
{
    if (g->track)
        ch4coll_hz_read_by(g->s, g->inrd, v);
}

/* The step just built becomes the previous one; the next starts empty. */
static void next_step(int **prev, int **next, int np)
{
    int *t = *prev, c;

    *prev = *next;
    *next = t;
    for (c = 0; c < np; c++)
        t[c] = -1;
}

/* Where the partial of a segment received at step k lives. */
static ch4coll_ref_t partial_at(ring_t *g, int k, int seg, size_t poff)
{
    if (k == g->p - 2 && g->fin == FIN_DIRECT)
        return at(g, CH4COLL_BUF_RECV, g->fin_off + poff);
    if (k < g->p - 2 && g->direct)
        return at(g, CH4COLL_BUF_RECV, seg_off(g, seg) + poff);
    return at(g, slot_buf(g, k), poff);
}

/* Reduce-scatter step k: the sends of segment x-k-1. */
static void rs_sends(ring_t *g, int k)
{
    int seg = upstream(g, k + 1), c, prev = -1, d[2];
    size_t len = seg_len(g, seg), poff, plen;

    for (c = 0; c < npieces(g, len); c++) {
        ch4coll_ref_t src;
        poff = piece(g, len, c, &plen);
        d[0] = prev;
        d[1] = k > 0 ? g->fold[c] : -1;
        src = k == 0 ? at(g, g->in_buf, seg_off(g, seg) + poff)
                     : partial_at(g, k - 1, seg, poff);
        prev =
            ch4coll_sched_send(g->s, src, plen, next_of(g), g->tag0 + k, 2, d);
        if (k == 0)
            track_read(g, prev);
        else if (src.buf >= CH4COLL_BUF_FIRST_SCRATCH)
            g->slot_rd[(k - 1) % 2][c] = prev;
    }
    g->last_sent[k] = prev;
}

/* Reduce-scatter step k: receive and fold segment x-k-2. */
static void rs_recvs(ring_t *g, int k)
{
    int seg = upstream(g, k + 2), c, prev = -1, got, d[2];
    int onto = k == g->p - 2 && g->fin == FIN_ONTO_INPUT;
    size_t len = seg_len(g, seg), poff, plen;

    for (c = 0; c < npieces(g, len); c++) {
        ch4coll_ref_t dst, mine;
        poff = piece(g, len, c, &plen);
        dst = onto ? at(g, slot_buf(g, k), poff) : partial_at(g, k, seg, poff);
        mine = at(g, g->in_buf, seg_off(g, seg) + poff);
        d[0] = prev;
        /* a slot piece is free once the send of its last contents is */
        d[1] = dst.buf >= CH4COLL_BUF_FIRST_SCRATCH ? g->slot_rd[k % 2][c] : -1;
        got =
            ch4coll_sched_recv(g->s, dst, plen, prev_of(g), g->tag0 + k, 2, d);
        prev = got;
        if (onto) { /* mine = partial op mine, in place */
            g->nfold[c] = ch4coll_sched_reduce(g->s, dst, mine, plen, 1, &got);
        } else { /* partial = mine op partial (commutative) */
            g->nfold[c] = ch4coll_sched_reduce(g->s, mine, dst, plen, 1, &got);
            track_read(g, g->nfold[c]);
        }
    }
}

/* The reduce-scatter of n rings (1, or 2 for bidir_ring), step by step. */
static void reduce_scatter_phase(ring_t *g, int n)
{
    int k, i;

    for (k = 0; k < g->p - 1; k++)
        for (i = 0; i < n; i++) {
            rs_sends(&g[i], k);
            rs_recvs(&g[i], k);
            next_step(&g[i].fold, &g[i].nfold, g[i].np);
        }
}

/* FIN_COPY: my block from its slot into place once the input is read. */
static void finish_copy(ring_t *g)
{
    int d[1 + CH4COLL_HZ_READERS], nd = ch4coll_hz_wdeps(g->inrd, d);
    size_t len = seg_len(g, g->rank);

    if (len > 0)
        ch4coll_sched_copy(g->s, at(g, slot_buf(g, g->p - 2), 0),
                           at(g, CH4COLL_BUF_RECV, g->fin_off), len, nd, d);
}

/* allreduce, allgather step k: send segment x-k, receive x-k-1. */
static void allgather_step(ring_t *g, int k)
{
    int p = g->p, c, prev, d[2];
    int sseg = upstream(g, k), rseg = upstream(g, k + 1);
    size_t len, poff, plen;

    len = seg_len(g, sseg);
    prev = -1;
    for (c = 0; c < npieces(g, len); c++) {
        poff = piece(g, len, c, &plen);
        d[0] = prev;
        d[1] = g->fold[c]; /* final fold, then the previous receive */
        prev = ch4coll_sched_send(
            g->s, at(g, CH4COLL_BUF_RECV, seg_off(g, sseg) + poff), plen,
            next_of(g), g->tag0 + p - 1 + k, 2, d);
    }
    len = seg_len(g, rseg);
    prev = -1;
    for (c = 0; c < npieces(g, len); c++) {
        poff = piece(g, len, c, &plen);
        d[0] = prev;
        /* the reduce-scatter sent (read) this segment at step k */
        d[1] = g->last_sent[k];
        prev = ch4coll_sched_recv(
            g->s, at(g, CH4COLL_BUF_RECV, seg_off(g, rseg) + poff), plen,
            prev_of(g), g->tag0 + p - 1 + k, 2, d);
        g->nfold[c] = prev;
    }
    next_step(&g->fold, &g->nfold, g->np);
}

/* allreduce: ring allgather of the complete segments, n rings. */
static void allgather_phase(ring_t *g, int n)
{
    int k, i;

    for (k = 0; k < g->p - 1; k++)
        for (i = 0; i < n; i++)
            allgather_step(&g[i], k);
}

/* reduce: every segment straight to the root. */
static void gather_phase(ring_t *g)
{
    int p = g->p, root = g->a->root, c, j, y, prev = -1, d[2];
    size_t len, poff, plen;

    if (g->rank != root) {
        len = seg_len(g, g->rank);
        for (c = 0; c < npieces(g, len); c++) {
            poff = piece(g, len, c, &plen);
            d[0] = prev;
            d[1] = g->fold[c];
            prev = ch4coll_sched_send(g->s, at(g, slot_buf(g, p - 2), poff),
                                      plen, root, g->tag0 + p - 1, 2, d);
        }
        return;
    }
    for (y = 0; y < p; y++) { /* position y, segment j */
        j = at_pos(g, y);
        if (j == root)
            continue;
        len = seg_len(g, j);
        prev = -1;
        for (c = 0; c < npieces(g, len); c++) {
            poff = piece(g, len, c, &plen);
            d[0] = prev;
            /* the root's own partial of segment j was sent at this step */
            d[1] = g->last_sent[mod(g->dir * (g->x - y) - 1, p)];
            prev = ch4coll_sched_recv(
                g->s, at(g, CH4COLL_BUF_RECV, seg_off(g, j) + poff), plen, j,
                g->tag0 + p - 1, 2, d);
        }
    }
}

/* p = 1: the result is my input. */
static void single(ring_t *g)
{
    size_t len = seg_len(g, 0), off = seg_off(g, 0);

    if (len > 0 && (g->in_buf != CH4COLL_BUF_RECV || off != g->fin_off))
        ch4coll_sched_copy(g->s, at(g, g->in_buf, off),
                           at(g, CH4COLL_BUF_RECV, g->fin_off), len, 0, NULL);
}

/* Piece length in elements from the chunk parameter (bytes). */
static size_t piece_elems(const ch4coll_args_t *a, const int64_t *params)
{
    int64_t chunk = params ? params[0] : 0;
    size_t ce;

    if (chunk <= 0 || a->elem.size == 0)
        return SIZE_MAX;
    ce = (size_t) chunk / a->elem.size;
    return ce > 0 ? ce : 1;
}

/* The torus the ring's nodes sit on (parameters torus_x and torus_y
 * after chunk), or NULL. */
static const int64_t *torus_of(const int64_t *params)
{
    return params[1] > 0 ? params + 1 : NULL;
}

/* Ints of ring order the ring needs: none (rank order) unless the op lets
 * the fold order change and the nodes are not consecutive or sit on a
 * torus. */
static size_t order_ints(const ch4coll_args_t *a, const int64_t *params)
{
    const ch4coll_locality_t *loc = a->loc;
    int nodes = loc ? loc->nodes : a->size;

    if (!a->commutative || (!torus_of(params) && (!loc || loc->consecutive)))
        return 0;
    return (size_t) a->size + ch4coll_torus_work(nodes);
}

/* The ring order into g->order (order_ints() ints, or NULL: rank order)
 * and my position (topo/torus.h's ch4coll_ring_order). */
static void ring_order(ring_t *g, int *order, const int64_t *params)
{
    const ch4coll_locality_t *loc = g->a->loc;

    g->order = NULL;
    g->x = g->rank;
    if (!order)
        return;
    g->x = ch4coll_ring_order(g->p, loc ? loc->node_of : NULL,
                              loc ? loc->nodes : g->p, !loc || loc->consecutive,
                              torus_of(params), g->half != HALF_NONE, g->rank,
                              order, order + g->p);
    if (g->x >= 0)
        g->order = order;
    else
        g->x = g->rank;
}

/* Set up the state: allocations of the builder, roles of the buffers. */
static int ring_init(ring_t *g, ch4coll_sched_t *s, const ch4coll_args_t *a,
                     const int64_t *params, int blocks, int half)
{
    int p = a->size, j, np = 1;
    size_t maxlen = 0, nord = order_ints(a, params);

    g->s = s;
    g->a = a;
    g->p = p;
    g->rank = a->rank;
    g->dir = half == HALF_UPPER ? -1 : 1;
    g->half = half;
    g->tag0 = half == HALF_UPPER ? ch4coll_ntags_ring_reduce(a, params) : 0;
    g->blocks = blocks;
    g->ce = piece_elems(a, params);
    g->in_buf = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    g->direct = 0;
    g->fin = FIN_DIRECT;
    g->fin_off = 0;
    g->slot[0] = g->slot[1] = -1;
    g->track = 0;
    g->inrd_own = ch4coll_hz_user(CH4COLL_BUF_RECV);
    g->inrd = &g->inrd_own;
    for (j = 0; j < p; j++)
        if (seg_len(g, j) > maxlen)
            maxlen = seg_len(g, j);
    g->slot_len = maxlen;
    if (maxlen / g->ce >= MAX_PIECES) /* keep vertex ids in range */
        g->ce = maxlen / MAX_PIECES + 1;
    if (npieces(g, maxlen) > np)
        np = npieces(g, maxlen);
    g->np = np;
    /* builder-time memory belongs to the builder */
    g->mem =
        ch4coll_malloc((4 * (size_t) np + (size_t) p + nord) * sizeof(int));
    if (!g->mem)
        return CH4COLL_ERR_NOMEM;
    g->fold = g->mem;
    g->nfold = g->fold + np;
    g->slot_rd[0] = g->nfold + np;
    g->slot_rd[1] = g->slot_rd[0] + np;
    g->last_sent = g->slot_rd[1] + np;
    for (j = 0; j < 4 * np + p; j++)
        g->fold[j] = -1;
    ring_order(g, nord ? g->last_sent + p : NULL, params);
    return CH4COLL_OK;
}

static void ring_fini(ring_t *g)
{
    ch4coll_free(g->mem);
}

/* Step k of the reduce-scatter on tag k; allreduce's allgather steps on
 * p - 1 + k, reduce's gather on p - 1 (bidir_ring: the left-going ring's
 * tags follow the right-going ring's).  Pieces of one step go to the same
 * neighbour with the same tag, so both their sends and their receives are
 * chained (each waits for the previous piece): they are issued in piece
 * order on both sides.  Rendezvous cannot deadlock: a reduce-scatter
 * receive waits only for earlier pieces and for the send that emptied its
 * slot piece, both of smaller (step, piece); a receive of the allgather or
 * gather waits for the reduce-scatter send of the same segment, whose
 * matching receive waits for nothing of the second phase.  The two rings
 * of bidir_ring share nothing but the input's readers. */
int ch4coll_ntags_ring_reduce(const ch4coll_args_t *a, const int64_t *params)
{
    int p = a->size;

    (void) params;
    if (p == 1)
        return 1;
    if (a->coll == CH4COLL_ALLREDUCE)
        return 2 * (p - 1);
    return a->coll == CH4COLL_REDUCE ? p : p - 1;
}

int ch4coll_ntags_bidir_ring_reduce(const ch4coll_args_t *a,
                                    const int64_t *params)
{
    return 2 * ch4coll_ntags_ring_reduce(a, params);
}

/* Where each ring's result goes, and how it is formed. */
static void set_finish(ring_t *g)
{
    const ch4coll_args_t *a = g->a;
    int is_root = a->rank == a->root;

    if (a->coll == CH4COLL_ALLREDUCE) {
        g->fin_off = seg_off(g, a->rank);
        g->direct = !a->inplace;
        g->fin = a->inplace ? FIN_ONTO_INPUT : FIN_DIRECT;
    } else if (a->coll == CH4COLL_REDUCE) {
        g->fin_off = seg_off(g, a->rank);
        if (!is_root)
            g->fin = FIN_SLOT;
        else if (a->inplace)
            g->fin = FIN_ONTO_INPUT;
        else
            g->direct = 1;
    } else { /* the result goes to the start of the receive buffer */
        g->fin_off = part_off(g, a->rank);
        if (a->inplace)
            g->fin =
                seg_off(g, a->rank) == g->fin_off ? FIN_ONTO_INPUT : FIN_COPY;
        g->track = g->fin == FIN_COPY;
    }
}

/*
 * Build the ring reduction of a->coll: one ring (rank order or node order),
 * or with bidir two, the lower half of every segment going one way and the
 * upper half the other.  p <= 2 takes one ring: both neighbours are the
 * same rank.  blocks: the segments are the call's blocks.
 */
static int ring_reduction(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params, int blocks, int bidir)
{
    ring_t g[2];
    int n = bidir && a->size > 2 ? 2 : 1, i, rc = CH4COLL_OK;
    size_t most = 0;

    ch4coll_sched_set_ntags(s, bidir
                                   ? ch4coll_ntags_bidir_ring_reduce(a, params)
                                   : ch4coll_ntags_ring_reduce(a, params));
    if (!blocks && a->count == 0)
        return CH4COLL_OK;
    for (i = 0; i < n && rc == CH4COLL_OK; i++) {
        rc = ring_init(&g[i], s, a, params, blocks,
                       n == 1 ? HALF_NONE : (i == 0 ? HALF_LOWER : HALF_UPPER));
        if (rc != CH4COLL_OK)
            break;
        g[i].inrd = g[0].inrd;
        set_finish(&g[i]);
        most = g[i].slot_len > most ? g[i].slot_len : most;
    }
    if (rc != CH4COLL_OK) {
        if (i > 0)
            ring_fini(&g[0]);
        return rc;
    }
    if (a->size == 1) {
        single(&g[0]);
    } else if (most > 0) {
        reduce_scatter_phase(g, n);
        if (a->coll == CH4COLL_ALLREDUCE)
            allgather_phase(g, n);
        for (i = 0; i < n; i++) {
            if (a->coll == CH4COLL_REDUCE)
                gather_phase(&g[i]);
            if (g[i].fin == FIN_COPY) /* after both rings' reads */
                finish_copy(&g[i]);
        }
    }
    for (i = 0; i < n; i++)
        ring_fini(&g[i]);
    return CH4COLL_OK;
}

int ch4coll_allreduce_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    return ring_reduction(s, a, params, 0, 0);
}

int ch4coll_allreduce_bidir_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    return ring_reduction(s, a, params, 0, 1);
}

int ch4coll_reduce_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params)
{
    return ring_reduction(s, a, params, 0, 0);
}

int ch4coll_reduce_scatter_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    return ring_reduction(s, a, params, 1, 0);
}

int ch4coll_reduce_scatter_block_ring(ch4coll_sched_t *s,
                                      const ch4coll_args_t *a,
                                      const int64_t *params)
{
    return ring_reduction(s, a, params, 1, 0);
}

int ch4coll_reduce_scatter_bidir_ring(ch4coll_sched_t *s,
                                      const ch4coll_args_t *a,
                                      const int64_t *params)
{
    return ring_reduction(s, a, params, 1, 1);
}

int ch4coll_reduce_scatter_block_bidir_ring(ch4coll_sched_t *s,
                                            const ch4coll_args_t *a,
                                            const int64_t *params)
{
    return ring_reduction(s, a, params, 1, 1);
}

/* ------------------------------------------------------------------- cost */

/* Pieces of the largest segment of b bytes: their number and size. */
static void pieces_of(const ch4coll_args_t *a, const int64_t *params, double b,
                      double *q, double *c)
{
    size_t ce = piece_elems(a, params),
           len = a->elem.size > 0 ? (size_t) (b / a->elem.size) : 0;

    if (len / ce >= MAX_PIECES)
        ce = len / MAX_PIECES + 1;
    *q = len == 0 ? 0 : (double) (1 + (len - 1) / ce);
    *c = len == 0 ? 0 : ch4coll_nbytes(a, len < ce ? len : ce);
}

/*
 * p - 1 reduce-scatter steps over segments of s bytes in q pieces of c
 * bytes, on w rings at once (bidir_ring: w = 2, each with its half of the
 * segment, s the half).  A piece is received, folded and forwarded; within
 * a step the rank's port carries w (q alpha + s beta) and the CPU folds
 * w s gamma, and a piece of step k needs the same piece of step k-1 folded
 * by the upstream neighbour (alpha + c beta + c gamma later).  So a step
 * lasts
 *     D = max(w (q alpha + s beta), w s gamma, alpha + c (beta + gamma))
 * and the first step, which has nothing to overlap with, one piece's
 * latency plus the rest of the step at the slower of port and CPU.
 * One ring, one piece (chunk 0): (p - 1)(alpha + s beta + s gamma).
 */
static double rs_steps(const ch4coll_args_t *a, const int64_t *params, double s,
                       int w, const ch4coll_model_t *m)
{
    double q, c, lat, step, rest, link, cpu;

    pieces_of(a, params, s, &q, &c);
    if (q == 0)
        return 0.0;
    lat = m->alpha + c * (m->beta + m->gamma);
    link = w * (q * m->alpha + s * m->beta);
    cpu = w * s * m->gamma;
    step = link > cpu ? link : cpu;
    if (lat > step)
        step = lat;
    link -= m->alpha + c * m->beta;
    cpu -= c * m->gamma;
    rest = link > cpu ? link : cpu;
    return (a->size - 2) * step + lat + rest;
}

/* p - 1 plain transfers of segments of s bytes on w rings (allgather; the
 * root's port in reduce), piece after piece. */
static double move_steps(const ch4coll_args_t *a, const int64_t *params,
                         double s, int w, const ch4coll_model_t *m)
{
    double q, c;

    pieces_of(a, params, s, &q, &c);
    return (a->size - 1) * w * (q * m->alpha + s * m->beta);
}

/* Bytes of the largest balanced segment. */
static double big_segment(const ch4coll_args_t *a)
{
    size_t p = (size_t) a->size;

    return ch4coll_nbytes(a, a->count / p + (a->count % p ? 1 : 0));
}

double ch4coll_cost_allreduce_ring(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    double s = big_segment(a);

    if (a->count == 0 || a->size == 1)
        return 0.0;
    return rs_steps(a, params, s, 1, m) + move_steps(a, params, s, 1, m);
}

/* Two rings on the upper halves (the larger) of the segments; p <= 2 runs
 * one ring. */
double ch4coll_cost_allreduce_bidir_ring(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    size_t big = a->count / (size_t) a->size + (a->count % a->size ? 1 : 0);
    double s = ch4coll_nbytes(a, big - big / 2);

    if (a->size <= 2)
        return ch4coll_cost_allreduce_ring(a, params, m);
    if (a->count == 0)
        return 0.0;
    return rs_steps(a, params, s, 2, m) + move_steps(a, params, s, 2, m);
}

/* reduce: the root's port receives every other non-empty segment. */
double ch4coll_cost_reduce_ring(const ch4coll_args_t *a, const int64_t *params,
                                const ch4coll_model_t *m)
{
    double s = big_segment(a);
    size_t p = (size_t) a->size;
    size_t full = a->count < p ? a->count : p; /* non-empty segments */

    if (a->count == 0 || p == 1)
        return 0.0;
    if ((size_t) a->root < full)
        full--;
    return rs_steps(a, params, s, 1, m) +
           move_steps(a, params, s, 1, m) / (double) (p - 1) * (double) full;
}

/* Irregular blocks: the slowest block's journey round the ring (p - 1
 * hops of its first piece, the rest of it pipelined behind); or the load
 * of a link (every block but one), then the fold of the last piece; or the
 * load of a CPU, after the first piece has arrived: whichever is longest. */
static double reduce_scatter_ring_cost(const ch4coll_args_t *a,
                                       const int64_t *params, int w,
                                       const ch4coll_model_t *m)
{
    int p = a->size, j;
    double worst = 0, link = 0, cpu = 0, lsend = -1, lfold = -1;
    double first = 0, fold = 0;

    if (p == 1)
        return 0.0;
    if (p <= 2)
        w = 1;
    for (j = 0; j < p; j++) {
        size_t cnt = ch4coll_blk_count(a, j);
        /* w rings: the upper half, the larger, each way */
        double s = ch4coll_nbytes(a, cnt - (w == 2 ? cnt / 2 : 0)), q, c, rest,
               l, g;
        pieces_of(a, params, s, &q, &c);
        l = w * (q * m->alpha + s * m->beta);
        g = w * s * m->gamma;
        link += l;
        cpu += g;
        if (lsend < 0 || l < lsend)
            lsend = l;
        if (lfold < 0 || g < lfold)
            lfold = g;
        if (q == 0)
            continue;
        if (m->alpha + c * m->beta > first)
            first = m->alpha + c * m->beta;
        if (c * m->gamma > fold)
            fold = c * m->gamma;
        l = w * (q * m->alpha + s * m->beta) - m->alpha - c * m->beta;
        g = (w * s - c) * m->gamma;
        rest = l > g ? l : g;
        if ((p - 1) * (m->alpha + c * (m->beta + m->gamma)) + rest > worst)
            worst = (p - 1) * (m->alpha + c * (m->beta + m->gamma)) + rest;
    }
    /* a rank neither sends nor folds its own block */
    link += fold - lsend;
    cpu += first - lfold;
    if (link > worst)
        worst = link;
    return cpu > worst ? cpu : worst;
}

double ch4coll_cost_reduce_scatter_ring(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    return reduce_scatter_ring_cost(a, params, 1, m);
}

double ch4coll_cost_reduce_scatter_block_ring(const ch4coll_args_t *a,
                                              const int64_t *params,
                                              const ch4coll_model_t *m)
{
    return reduce_scatter_ring_cost(a, params, 1, m);
}

double ch4coll_cost_reduce_scatter_bidir_ring(const ch4coll_args_t *a,
                                              const int64_t *params,
                                              const ch4coll_model_t *m)
{
    return reduce_scatter_ring_cost(a, params, 2, m);
}

double ch4coll_cost_reduce_scatter_block_bidir_ring(const ch4coll_args_t *a,
                                                    const int64_t *params,
                                                    const ch4coll_model_t *m)
{
    return reduce_scatter_ring_cost(a, params, 2, m);
}
