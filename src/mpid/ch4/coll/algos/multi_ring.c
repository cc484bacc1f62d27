/*
 * multi_ring.c - allgather and allgatherv as one ring between nodes per
 * local rank, every block passed on inside the node as it arrives, in
 * pieces.
 *
 * Source: the multi-leader idea of Kandalla et al., "Designing multi-leader
 * based allgather algorithms for multi-core clusters" (IPDPS 2009): several
 * ranks of a node talk to other nodes at once, so the node's link carries
 * several streams where one leader's ring carries one; SimGrid's
 * loosely_lr allgather (SMPI) runs that shape (ring i between the ranks
 * of local index i, each received block sent to the node's other ranks),
 * for nodes of equal size in consecutive ranks only.  This file makes it
 * hold for any node map: nodes of different sizes, any placement.
 *
 * Lanes (lanes.h).  N nodes (numbered in order of first appearance),
 * node j's ranks sorted by rank, q_j of them, Q = max q_j.  Lane l
 * (0 <= l < Q) owns the blocks of the ranks of local index l; at node j
 * it is served by local index l mod q_j, so a smaller node's ranks serve
 * several lanes and every node is on every lane's ring.  Lane l's ring
 * visits the nodes in order 0, 1, .., N-1.
 *
 * Steps at the rank of node j, local index x, for every lane l it serves
 * (l mod q_j = x):
 *   own    if l = x, its own block goes to the node's other ranks;
 *   ring   round t = 0..N-2: send lane l's block of node j - t to lane l's
 *          server at node j + 1 (round 0: its own block, if l = x; later
 *          the block received in round t - 1), receive lane l's block of
 *          node j - t - 1 from node j - 1's server, and send that block on
 *          to the node's other ranks.
 * Every block of another node reaches the server of its lane at node j
 * once (round j - j' - 1 mod N) and every other rank of node j from it;
 * a lane's missing block (node j' has no rank of index l) and empty
 * blocks are skipped on both sides.  Each message has a tag of its own,
 * (round, lane) for the ring and for the node (MPI matches by tag, so
 * no send needs to wait for another's posting); all receives are posted
 * at once, a ring send waits for the receive of the round before, a node
 * send for the block's receive.  A lane's ring receive of alpha/beta bytes
 * or more (the call's model) waits for its receive of the round before,
 * as SMPI's loosely_lr posts one round at a time: posted at once, a rank
 * that serves two lanes (a node smaller than the others) has the next
 * round's block share its link with the one its next send waits for
 * (SimGrid smp, p = 61, a node of 5: 128 KiB 396 us posted at once, 312
 * one round at a time; 2 MiB 6.27 against 4.91 ms; p = 24 and 96, nodes
 * of 8, to the nanosecond the same).  And a rank sends a long block to
 * the ranks of its node below it before it sends it on along the ring,
 * as loosely_lr does: the lanes of a node then start a send overhead
 * apart instead of all at once, and their ring rounds overlap (traced at
 * p = 24, 128 KiB: loosely_lr's two rounds took 81.4 us at rank 0, the
 * lanes in step 85.3, with 16.3 and 13.7 us of passing on inside the
 * node after them; now multi_ring takes loosely_lr's 98.30 us, was
 * 99.00, and at p = 96 475.8, was 482.8; a short block still goes on
 * along the ring first: at 8 KiB, p = 24, the other order took 28.5
 * against 26.5 us).  One node: every rank sends its block to
 * every other (linear); one rank per node: the ring (ring.c).
 *
 * Pieces (parameter chunk, default 32 KiB; 0: one piece): every block is
 * cut into K = ceil(largest block / chunk) parts, at most 16 (and at
 * most its count); piece c runs the steps above on part c of every block,
 * on tags of its own, and its round-0 ring sends wait for the piece
 * before's on the same lane.  In one piece a node's ranks pass the last
 * round's block on only once it is whole, after the link has carried it:
 * at p = 16 (two nodes, one round) 2 MiB blocks took 877.1 us, the link's
 * 671 plus a loopback copy of the block (10.3 GB/s, 204 us).  In pieces
 * the passing on of piece c overlaps the ring of piece c + 1: 685.6 us
 * in 16 pieces, 1.02 of the bound; p = 24, 1548.2 -> 1356.7; p = 61,
 * 4903.0 -> 4712.3; 128 KiB at p = 16, 56.4 -> 46.9 (4 pieces).  32 KiB
 * pieces were the best of 8 KiB-256 KiB at 32 KiB-2 MiB; 8 KiB pieces are
 * eager, whose per-byte copies SimGrid charges on both sides: 4-5x
 * slower.  Worked example with pieces: p = 7 as below, blocks of 3
 * elements, K = 3: piece 0 gathers element 0 of every block, piece 1
 * element 1, piece 2 element 2, each exactly as below; rank 0's round-0
 * send of piece 1 (element 1 of block 0, to 3) waits for its send of
 * piece 0.
 *
 * Cost on the model with nodes (b the largest block, in K pieces): a
 * round moves one part per lane through each node's interface, and a
 * server sends and receives one part between nodes and q - 1 inside its
 * node:
 *   T = K (N-1) max(Q t, t + (q-1) t') + (q-1) t',
 *   t = alpha + (b/K) beta, t' = alpha_node + (b/K) beta_node, q = max q_j;
 * without nodes (N = p, Q = 1) the ring's (ring.c).  That is the model's
 * floor for this schedule; its replay (model/replay.c), which never places
 * a message into an earlier gap of a port or an interface, stretches the
 * lanes' rounds to 2.4 times it (p = 16 on nodes of 4, 64 KiB: 273 us
 * against 114; the node-order ring replays at 128).  Where the node's
 * link carries several streams at once and ranks of a node exchange in
 * parallel (SimGrid's smp platform: 8 ranks per host, a fat-pipe
 * loopback), the lanes overlap: p = 16, 2 MiB blocks, 912 us against the
 * ring's 2942; p = 61 (a node of 5), 6.9 ms against 12.2 for SMPI's
 * loosely_lr, which falls back to one ring when the nodes differ in
 * size; at p = 128 level with it (10.8 ms).
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6} (N = 3, Q = 3):
 * lanes 0, 1, 2 are rings 0 -> 3 -> 6 -> 0, 1 -> 4 -> 6 -> 1 and
 * 2 -> 5 -> 6 -> 2; rank 6 serves all three.  Round 0: 0 sends block 0 to
 * 3, 3 block 3 to 6, 6 block 6 to 0; 1 and 4 likewise on lane 1 (6 sends
 * nothing on lanes 1 and 2: node 2 has no ranks of index 1 or 2).  Round
 * 1: 3 forwards block 0 to 6, 6 forwards block 3 to 0, 0 forwards block
 * 6 to 3, lane 1: 6 forwards block 4 to 1, 4 forwards block 1 to 6 (and 1
 * sends nothing: it got no lane-1 block of node 2).  Rank 0 sends blocks
 * 0, 6 and 3 to 1 and 2 as they come; rank 6 has no one to pass them to.
 * Rank 1 gets blocks 0, 6, 3 from 0, 2, 5 from 2 and 4 itself: all 6.
 */
#include "lanes.h"
#include "post.h"

#include <math.h>

#include "../topo/topo.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    ch4coll_lanes_t g;
    int tag0;   /* the piece's first tag */
    size_t own; /* the piece's offset in the own block, elements */
    int *chain; /* lanes: the rank's last round-0 ring send of the piece
                 * before, which the piece's waits for (-1: none) */
} mr_t;

/* Lane l's block of node j: its rank of local index l, or -1 if it has
 * none or the block is empty. */
static int mr_block(const mr_t *m, int j, int l)
{
    int r;

    if (l >= ch4coll_lanes_size(&m->g, j))
        return -1;
    r = ch4coll_lanes_rank(&m->g, j, l);
    return ch4coll_blk_count(m->a, r) > 0 ? r : -1;
}

/* Tag of lane l's round t between nodes (t = 0..N-2) and of its block
 * passed on inside the node after round t (t = -1: the own block). */
static int mr_ring_tag(const mr_t *m, int t, int l)
{
    return m->tag0 + t * m->g.lanes + l;
}

static int mr_node_tag(const mr_t *m, int t, int l)
{
    return m->tag0 + (m->g.nodes - 1 + t + 1) * m->g.lanes + l;
}

static int mr_open(mr_t *m, ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    m->s = s;
    m->a = a;
    m->tag0 = 0;
    m->own = 0;
    m->chain = NULL;
    return ch4coll_lanes_open(&m->g, a);
}

/* Block r to the node's ranks of local index lo .. hi - 1 but this one,
 * once dep is done. */
static void mr_pass_on(const mr_t *m, ch4coll_ref_t src, int r, int tag,
                       int dep, int lo, int hi)
{
    int i, d[1];

    for (i = lo; i < hi; i++)
        if (i != m->g.idx)
            ch4coll_sched_send(m->s, src, ch4coll_blk_count(m->a, r),
                               ch4coll_lanes_rank(&m->g, m->g.node, i), tag,
                               ch4coll_dep1(dep, d), d);
}

/* Where block r is read from: the send buffer for the own block (unless
 * in place), else its place in the receive buffer. */
static ch4coll_ref_t mr_src(const mr_t *m, int r)
{
    if (r == m->a->rank && !m->a->inplace)
        return ch4coll_ref(CH4COLL_BUF_SEND, ch4coll_eoff(m->a, m->own));
    return ch4coll_ref(CH4COLL_BUF_RECV,
                       ch4coll_eoff(m->a, ch4coll_blk_displ(m->a, r)));
}

static int mr_recv(const mr_t *m, int r, int from, int tag, int dep)
{
    int d[1];

    return ch4coll_sched_recv(
        m->s,
        ch4coll_ref(CH4COLL_BUF_RECV,
                    ch4coll_eoff(m->a, ch4coll_blk_displ(m->a, r))),
        ch4coll_blk_count(m->a, r), from, tag, ch4coll_dep1(dep, d), d);
}

/* Round t of lane l at this rank: receive lane l's block of node j - t - 1
 * (t >= 0; t = -1: none, the own block); -1 if none.  prev: the lane's
 * ring receive of round t - 1 (-1: none), which a receive of alpha/beta
 * bytes or more waits for. */
static int mr_ring_recv(const mr_t *m, int l, int t, int prev)
{
    int j = m->g.node, b = mr_block(m, ch4coll_lanes_node(&m->g, j, -t - 1), l);

    if (b < 0 || t < 0)
        return -1;
    if (!ch4coll_post_late(m->a,
                           ch4coll_nbytes(m->a, ch4coll_blk_count(m->a, b))))
        prev = -1;
    return mr_recv(
        m, b, ch4coll_lanes_server(&m->g, ch4coll_lanes_node(&m->g, j, -1), l),
        mr_ring_tag(m, t, l), prev);
}

/* Round t of lane l at this rank, once its receive got is in: the block
 * on along the ring (round t + 1's send) and to the node's other ranks.
 * A short block goes on along the ring first, the critical path; a long
 * one (post.h) first to the node's ranks of lower local index, as SMPI's
 * loosely_lr orders them, so that the lanes of a node start their ring
 * messages a send overhead apart (the opening note). */
static void mr_lane_sends(const mr_t *m, int l, int t, int got)
{
    int j = m->g.node, b = mr_block(m, ch4coll_lanes_node(&m->g, j, -t - 1), l),
        q = ch4coll_lanes_size(&m->g, j), lead, d[2];

    if (b < 0)
        return;
    lead = ch4coll_post_late(m->a,
                             ch4coll_nbytes(m->a, ch4coll_blk_count(m->a, b)))
               ? m->g.idx
               : 0;
    mr_pass_on(m, mr_src(m, b), b, mr_node_tag(m, t, l), got, 0, lead);
    if (t + 1 < m->g.nodes - 1) {
        int nd = ch4coll_dep1(got, d), v;
        if (t < 0 && m->chain && m->chain[l] >= 0)
            d[nd++] = m->chain[l];
        v = ch4coll_sched_send(
            m->s, mr_src(m, b), ch4coll_blk_count(m->a, b),
            ch4coll_lanes_server(&m->g, ch4coll_lanes_node(&m->g, j, 1), l),
            mr_ring_tag(m, t + 1, l), nd, d);
        if (t < 0 && m->chain)
            m->chain[l] = v;
    }
    mr_pass_on(m, mr_src(m, b), b, mr_node_tag(m, t, l), got, m->g.idx + 1, q);
    mr_pass_on(m, mr_src(m, b), b, mr_node_tag(m, t, l), got, lead, m->g.idx);
}

/* Round t's blocks that the node's other ranks pass on to this one: of
 * every lane they serve. */
static void mr_node_recvs(const mr_t *m, int t)
{
    int q = ch4coll_lanes_size(&m->g, m->g.node), i, l, b;

    for (i = 0; i < q; i++) {
        if (i == m->g.idx)
            continue;
        for (l = i; l < m->g.lanes; l += q) {
            b = mr_block(m, ch4coll_lanes_node(&m->g, m->g.node, -t - 1), l);
            if (b >= 0)
                mr_recv(m, b, ch4coll_lanes_rank(&m->g, m->g.node, i),
                        mr_node_tag(m, t, l), -1);
        }
    }
}

/* Every receive first, round by round (t = -1: the own blocks): those
 * from the node's other ranks and those of every lane this rank serves;
 * then the sends.  The receives are built before the sends, so they are
 * posted before any send leaves: a large message (rendezvous) starts only
 * once its receive is posted, and built round by round, the next round's
 * ring receive waited behind the q - 1 sends of the own block inside the
 * node (q - 1 send overheads late: doc/performance.md, spot
 * measurements).  The only dependency among them: a long ring receive on
 * the lane's receive of the round before (the opening note). */
static int mr_piece(mr_t *m)
{
    int l, t, q, *got;

    /* builder-time memory belongs to the builder */
    got =
        ch4coll_malloc((size_t) m->g.nodes * (size_t) m->g.lanes * sizeof *got);
    if (!got)
        return CH4COLL_ERR_NOMEM;
    q = ch4coll_lanes_size(&m->g, m->g.node);
    for (t = -1; t < m->g.nodes - 1; t++) {
        mr_node_recvs(m, t);
        for (l = m->g.idx; l < m->g.lanes; l += q)
            got[(t + 1) * m->g.lanes + l] =
                mr_ring_recv(m, l, t, t >= 0 ? got[t * m->g.lanes + l] : -1);
    }
    for (t = -1; t < m->g.nodes - 1; t++)
        for (l = m->g.idx; l < m->g.lanes; l += q)
            mr_lane_sends(m, l, t, got[(t + 1) * m->g.lanes + l]);
    ch4coll_free(got);
    return CH4COLL_OK;
}

/* Pieces (parameter chunk, bytes; 0: one): every block cut into K =
 * ceil(largest block / chunk) parts, at most 16 and at most the largest
 * block's count; piece c gathers part c of every block, on tags of its
 * own, its round-0 ring sends after the piece before's on the same lane,
 * so that a piece's passing on inside the node overlaps the next
 * piece's ring. */
static int mr_pieces(const ch4coll_args_t *a, const int64_t *params)
{
    size_t most = 0;
    int r;

    for (r = 0; r < a->size; r++)
        if (ch4coll_blk_count(a, r) > most)
            most = ch4coll_blk_count(a, r);
    return ch4coll_lanes_pieces(ch4coll_nbytes(a, most), params[0], most);
}

static int mr_build(ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const int64_t *params)
{
    mr_t m;
    ch4coll_args_t pa;
    size_t *cd = NULL;
    int rc = mr_open(&m, s, a), K = mr_pieces(a, params), c, r, per;

    if (rc != CH4COLL_OK)
        return rc;
    per = (2 * m.g.nodes - 1) * m.g.lanes;
    ch4coll_sched_set_ntags(s, K * per);
    ch4coll_copy_own_block(s, a);
    if (K > 1) {
        cd = ch4coll_malloc(2 * (size_t) a->size * sizeof *cd);
        m.chain = ch4coll_malloc((size_t) m.g.lanes * sizeof *m.chain);
        if (!cd || !m.chain)
            rc = CH4COLL_ERR_NOMEM;
        for (r = 0; rc == CH4COLL_OK && r < m.g.lanes; r++)
            m.chain[r] = -1;
    }
    for (c = 0; c < K && rc == CH4COLL_OK; c++) {
        if (K > 1) {
            for (r = 0; r < a->size; r++) {
                size_t n = ch4coll_blk_count(a, r);
                cd[r] = ch4coll_seg_len(n, (size_t) K, (size_t) c);
                cd[a->size + r] = ch4coll_blk_displ(a, r) +
                                  ch4coll_seg_off(n, (size_t) K, (size_t) c);
            }
            pa = *a;
            pa.counts = cd;
            pa.displs = cd + a->size;
            m.a = &pa;
            m.tag0 = c * per;
            m.own = ch4coll_seg_off(ch4coll_blk_count(a, a->rank), (size_t) K,
                                    (size_t) c);
        }
        rc = mr_piece(&m);
    }
    ch4coll_free(cd);
    ch4coll_free(m.chain);
    ch4coll_lanes_close(&m.g);
    return rc;
}

/* (2N - 1) Q tags: a round and the own block per lane, between nodes and
 * inside them. */
int ch4coll_ntags_multi_ring(const ch4coll_args_t *a, const int64_t *params)
{
    mr_t m;
    int n;

    if (mr_open(&m, NULL, a) != CH4COLL_OK)
        return 1;
    n = mr_pieces(a, params) * (2 * m.g.nodes - 1) * m.g.lanes;
    ch4coll_lanes_close(&m.g);
    return n;
}

int ch4coll_allgather_multi_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    return mr_build(s, a, params);
}

int ch4coll_allgatherv_multi_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    return mr_build(s, a, params);
}

/* ------------------------------------------------------------------- cost */

/* The opening note's formula, with the largest block, b / K per piece:
 * K pieces of the rounds, the passing on of the last one's last block. */
static double mr_cost(const ch4coll_args_t *a, const int64_t *params,
                      const ch4coll_model_t *m)
{
    mr_t g;
    double b = 0, t, tn, round;
    int r, q, K = mr_pieces(a, params);

    if (mr_open(&g, NULL, a) != CH4COLL_OK)
        return HUGE_VAL;
    for (r = 0; r < a->size; r++)
        b = (double) ch4coll_blk_count(a, r) > b
                ? (double) ch4coll_blk_count(a, r)
                : b;
    q = g.g.lanes;
    b = ch4coll_nbytes(a, 1) * b / K;
    t = ch4coll_model_msg(m, b);
    tn = m->alpha_node + b * m->beta_node;
    round = t + (q - 1) * tn;
    round = g.g.lanes * t > round ? g.g.lanes * t : round;
    t = K * (g.g.nodes - 1) * round + (q - 1) * tn;
    ch4coll_lanes_close(&g.g);
    return b > 0 ? t : 0.0;
}

double ch4coll_cost_allgather_multi_ring(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    if (!a->loc)
        return ch4coll_cost_allgather_ring(a, params, m);
    return mr_cost(a, params, m);
}

double ch4coll_cost_allgatherv_multi_ring(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    if (!a->loc)
        return ch4coll_cost_allgatherv_ring(a, params, m);
    return mr_cost(a, params, m);
}
