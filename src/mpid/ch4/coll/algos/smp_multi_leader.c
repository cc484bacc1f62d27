/*
 * smp_multi_leader.c - allreduce, bcast and reduce with a leader per
 * lane.  allreduce: reduce-scatter inside the node, one allreduce between
 * nodes per local rank on its share of the vector, all at once, and an
 * allgather inside the node.  bcast: a scatter from the root inside its
 * node, one bcast between nodes per local rank on its share, all at
 * once, and an allgather inside every node.  reduce: the reduce-scatter,
 * one reduce between nodes per lane, a gather to the root.
 *
 * Source: issue 24's multi-leader composition (Open MPI's han, Intel MPI
 * and NCCL run large reductions across nodes this way), after Kandalla
 * et al.'s multi-leader allgather (every rank of a node a leader of its
 * own stream between nodes; multi_ring.c).  smp (smp_allreduce.c) stages
 * the whole vector at one leader per node, so one rank's port and one
 * stream carry everything between nodes; here each of the Q lanes
 * (lanes.h) carries 1/Q of it.
 *
 * Steps.  The vector of n elements is cut into Q segments, segment k of
 * ch4coll_seg_len(n, Q, k) elements, one per lane; lane k's server at
 * node j is its local index k mod q_j.
 *   1  every rank sends its segment k to lane k's server in its node
 *      (all lanes it does not serve, at once); a server starts from its
 *      own segment in the receive buffer and folds in the node's other
 *      ranks' copies one after another (scratch: q - 1 segments);
 *   2  lane k's servers, one per node, allreduce segment k in place
 *      (the algorithm the selection names for that shape on N ranks,
 *      else butterfly), every lane at once, node j at position
 *      (j - k) mod N of lane k's allreduce: the roles an algorithm gives
 *      its first positions (recursive doubling on a non-power of two:
 *      the odd ones of the first 2 (N - 2^floor(lg N)) send and receive
 *      the vector twice, the others once; N = 3: position 1) land on a
 *      different node in each lane, and each node's link carries its
 *      share of every role, not Q times one;
 *   3  each server sends its lanes' results to the node's other ranks,
 *      which receive them into their receive buffers.
 * Tags: lane k's step-1 messages tag k, its step-3 messages Q + k, its
 * step-2 allreduce its own range after 2 Q (every rank reserves all).
 * In place, a rank's step-1 send reads the segment its step-3 receive
 * overwrites, so that receive waits for the send.  The reduction order
 * inside a node and between nodes is not rank order: commutative ops only.
 *
 * Cost on the model with nodes, segments of s = n / Q elements (bytes b
 * = s size), t' = alpha_node + b beta_node, q = max q_j:
 *   T = (q-1)(t' + s gamma) + Q T2(N, s) + (q-1) t',
 * step 2's lanes sharing the node's one interface one message at a time
 * (Q times one lane's allreduce, T2 its formula on N ranks).  Without
 * nodes (Q = 1, q = 1) it is the inner allreduce on all ranks.  Where the
 * node's link carries the lanes' streams at once (SimGrid's hosts, NICs
 * with several engines) step 2 costs about one lane's allreduce with Q
 * times the bytes, b Q = n size: the case this algorithm is for.
 *
 * Worked example, p = 7 on nodes {0, 1, 2}, {3, 4, 5}, {6} (Q = 3), n = 7
 * elements: segments of 3, 2, 2 at 0, 3, 5.  Step 1: ranks 1 and 2 send
 * segment 0 to 0, ranks 0 and 2 segment 1 to 1, ranks 0 and 1 segment 2
 * to 2 (node 1 the same); rank 6 serves all three lanes and sends
 * nothing.  Step 2: lane 0 allreduces segment 0 among 0, 3, 6 (at
 * positions 0, 1, 2); lane 1 segment 1 among 4, 6, 1 (node 1's server
 * first); lane 2 segment 2 among 6, 2, 5 (rank 6 takes part in all
 * three, on tags of their own).  Step 3: rank 0 sends segment
 * 0 to 1 and 2, rank 1 segment 1 to 0 and 2, and so on; rank 6 is done.
 *
 * bcast, the same lanes and segments, root r at node R:
 *   1  r sends every segment it does not serve to that lane's server at
 *      node R (tag k);
 *   2  lane k's servers bcast segment k from node R's server, every lane
 *      at once, by circulant (Traeff's round-optimal schedule,
 *      circulant.c) with its blocks n* chosen on the call's model with
 *      beta times Q: the Q lanes share the node's link, so each sees 1/Q
 *      of its bandwidth, while their messages' latencies and overheads
 *      (other ranks, other cores) overlap;
 *   3  every server sends its lanes' segments to its node's other ranks
 *      but r (tag Q + k).
 * Why not the selection's bcast for N ranks, as step 2 of the allreduce
 * and the reduce: a tree learns it for a communicator that owns the
 * links, and its choice for segments of 128 KiB on 8 ranks (two_tree in
 * 16 KiB chunks) took SimGrid's smp cluster (doc/performance.md) at
 * p = 61, 2 MiB, pieces of 1 MiB, to 141.6 us; circulant with the
 * lanes' blocks (n* = 10 of 12.8 KiB) 120.1, and the best of eight
 * inner algorithms forced (bidir_chain, two_tree, line, binomial,
 * scatter_ring_allgather, circulant with 1 to 64 blocks) 117.7.  At
 * 512 KiB, 68.7 against 42.4.  The model's replay, whose interface
 * queues every message's alpha, books the extra blocks dearer (p = 61 on
 * nodes of 8, 1 MiB: 261.1 against 173.7 us): where a node's messages
 * pay their latency one after another, a machine's tree should name
 * another bcast (smp, bidir_chain) for those sizes.  One rank per node
 * (Q = 1) step 2 is circulant on all ranks, with the call's own blocks.
 * Cost, as the allreduce's without the reductions: (q_R - 1) t' + Q
 * T2(N, s) + (q - 1) t'.  A whole-vector bcast between node leaders (smp)
 * sends m bytes through one rank's port per node; here each lane sends
 * m / Q.  Worked example, the same p = 7 and nodes, root 4, n = 7:
 * segments of 3, 2, 2 at 0, 3, 5; node 1's servers are 3 (lane 0), 4
 * (lane 1), 5 (lane 2).  Step 1: 4 sends segment 0 to 3 and segment 2 to
 * 5.  Step 2: lane 0 bcasts segment 0 from 3 to 0 and 6, lane 1 segment 1
 * from 4 to 1 and 6, lane 2 segment 2 from 5 to 2 and 6.  Step 3: node 0
 * as in the allreduce; at node 1, 3 sends segment 0 to 5 only, 5 segment
 * 2 to 3 only (4, the root, has all); rank 6 is done.
 *
 * reduce, root r at node R: step 1 as the allreduce's, into the receive
 * buffer at r and into a scratch of n elements at every other rank (its
 * receive buffer is not significant); step 2 lane k's servers reduce
 * segment k to node R's server (the selection's reduce for N ranks, else
 * binomial); step 3 node R's servers send their segments to r (tag Q +
 * k).  Commutative ops only, as the allreduce.  Cost: (q - 1)(t' + s
 * gamma) + Q T2(N, s) + (q_R - 1) t'.  Worked example, the same p = 7,
 * nodes and n, root 4: step 1 as above; step 2 lane 0 reduces segment 0
 * of 0, 3 and 6 to 3, lane 1 segment 1 of 1, 4 and 6 to 4 (the root,
 * into its receive buffer), lane 2 segment 2 of 2, 5 and 6 to 5; step 3:
 * 3 sends segment 0 and 5 segment 2 to 4.
 *
 * Pipelining (parameter chunk, bytes, default 256 KiB; 0: one piece):
 * with more than one rank on some node the vector is cut into K =
 * ceil(bytes / chunk) pieces, at most 16 and at most count, and
 * each piece runs the three steps on its own segments and tags (2 Q + the
 * lanes' step-2 ranges per piece); a piece's step-1 sends follow those of
 * the piece before on the same lane, so that the node's link carries
 * piece i's step 2 while its loopback carries piece i + 1's step 1.
 * Cost: the first piece's three steps plus (K - 1) times the slowest.
 *
 * allreduce group_lanes: the same three steps on groups of G consecutive
 * ranks (parameter group) in place of nodes, whatever the node map says:
 * rank r in group r / G, the last group of p mod G ranks if G does not
 * divide p.  It is for communicators of one rank per node on a network
 * whose switches hold consecutive ranks (a fat tree's leaf, a blade):
 * steps 1 and 3 move (G - 1) / G of the vector among a group's ranks,
 * inside one switch, and only step 2's lanes, 1 / G of the vector
 * per rank, cross the switches.  A flat allreduce (direct, ring,
 * binary_blocks) sends the same bytes, about 2 n, but most of them to
 * ranks behind other switches.  On SimGrid's fat tree at p = 96 (leaf
 * switches of 64 hosts, so ranks 64..95 on the second) groups of 8
 * took 199.7 us at 2 MiB, 1.17 of the single-ported bound, against
 * 240.1 for direct with window 8 in the same run (direct 226.2 in the
 * grid), and 724.7 against 948.1 at 8 MiB; groups of 4, 16 and 32
 * took 203.6, 222.7 and 647.8 at 2 MiB.  At p = 61, one leaf, 209.1
 * against direct's 173.7: where every rank shares one switch there is
 * nothing to keep local (doc/performance.md, spot runs).
 *
 * Cost on the model without nodes (each rank its own ports, no
 * interface to share), t = alpha + b beta:
 *   T = (G-1)(t + s gamma) + T2(N, s) + (G-1) t,  N = ceil(p / G),
 * plus the pieces' periods as above.  Worked example, p = 7, G = 3,
 * n = 7: groups {0, 1, 2}, {3, 4, 5}, {6}, and then the steps of the
 * worked example above, to the letter.  With G = 1 it is the lanes'
 * allreduce on all p ranks; with G >= p one group: a reduce-scatter
 * and an allgather, all to all.
 */
#include "lanes.h"
#include "smp.h"

#include <math.h>
#include <string.h>

#include "../topo/topo.h"

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    ch4coll_lanes_t g;
    int q;      /* ranks of this node */
    int *peers; /* nodes: the servers of one lane */
    int *sent;  /* lanes: this rank's step-1 send of the segment */
    int *step2; /* lanes: the end of the lane's step 2 here */
    ch4coll_smp_choice_t *inner; /* lanes: step 2's algorithm */
    int *tag2;                   /* lanes + 1: step 2's tag ranges */
    int root_node;               /* bcast, reduce: the root's node */
    int acc;       /* the buffer of the segments this rank serves: the receive
                    * buffer, a scratch of count elements at a reduce's other
                    * ranks (their receive buffer is not significant) */
    size_t off, n; /* the piece: its first element and its elements */
    int tag0;      /* the piece's first tag */
    int *chain;    /* lanes: the step-1 send of the piece before, or -1 */
    ch4coll_model_t lane; /* bcast: step 2's model, the interface shared */
} ml_t;

static size_t ml_len(const ml_t *m, int k)
{
    return ch4coll_seg_len(m->n, (size_t) m->g.lanes, (size_t) k);
}

static ch4coll_ref_t ml_at(const ml_t *m, int buf, int k)
{
    return ch4coll_ref(
        buf,
        ch4coll_eoff(m->a, m->off + ch4coll_seg_off(m->n, (size_t) m->g.lanes,
                                                    (size_t) k)));
}

/* The pieces of a call: ceil(bytes / chunk), at most CH4COLL_ML_PIECES
 * and at most count; one without a chunk, and with one rank per node (a
 * single lane has no steps inside the node to overlap). */
#define CH4COLL_ML_PIECES 16

static int ml_pieces(const ch4coll_args_t *a, const int64_t *params)
{
    double bytes = ch4coll_nbytes(a, 1) * (double) a->count;
    double k = params[0] > 0 ? ceil(bytes / (double) params[0]) : 1;

    if (!a->loc || a->loc->nodes == a->size)
        return 1;

    if (k > CH4COLL_ML_PIECES)
        k = CH4COLL_ML_PIECES;
    if (k > (double) a->count)
        k = (double) a->count;
    return k < 1 ? 1 : (int) k;
}

static int ml_serves(const ml_t *m, int k)
{
    return k % m->q == m->g.idx;
}

/* Lane k's step-2 position of node j: the nodes turned by k, so that
 * the roles an inner algorithm gives its first positions (the fold
 * partners of a butterfly on a non-power of two, a tree's inner
 * vertices) fall on a different node in each lane. */
static int ml_pos(const ml_t *m, int k, int j)
{
    int N = m->g.nodes;

    return (j - k % N + N) % N;
}

/* Step 2's shape for lane k: N ranks, segment k in place. */
static void ml_inner_args(const ml_t *m, int k, ch4coll_args_t *ia)
{
    const ch4coll_args_t *a = m->a;

    memset(ia, 0, sizeof *ia);
    ia->coll = a->coll;
    ia->count = ml_len(m, k);
    ia->size = m->g.nodes;
    ia->rank = ml_pos(m, k, m->g.node);
    ia->root = ml_pos(m, k, m->root_node);
    ia->inplace = a->coll == CH4COLL_ALLREDUCE ||
                  (a->coll == CH4COLL_REDUCE && m->g.node == m->root_node);
    ia->elem = a->elem;
    ia->op = a->op;
    ia->commutative = a->commutative;
    ia->op_builtin = a->op_builtin;
    ia->model = a->coll == CH4COLL_BCAST ? &m->lane : a->model;
}

/* bcast's step 2: circulant on the lanes' model (ml_open), its blocks
 * n* for a link shared by the node's Q lanes. */
static int ml_bcast_inner(ch4coll_smp_choice_t *c)
{
    c->al = ch4coll_algo_find(CH4COLL_BCAST, "circulant");
    if (!c->al || !c->al->build)
        return CH4COLL_ERR_ARG;
    ch4coll_algo_default_params(c->al, c->params);
    return CH4COLL_OK;
}

static void ml_free(ml_t *m)
{
    ch4coll_free(m->peers);
    ch4coll_free(m->inner);
    ch4coll_lanes_close(&m->g);
}

/* Piece j of K (elements from off, tags from tag0): lanes, their step-2
 * algorithms and tag ranges (the same on every rank: the shapes are). */
static int ml_open(ml_t *m, ch4coll_sched_t *s, const ch4coll_args_t *a, int j,
                   int K, int tag0)
{
    int rc, k, Q;
    ch4coll_args_t ia;

    memset(m, 0, sizeof *m);
    m->s = s;
    m->a = a;
    m->off = ch4coll_seg_off(a->count, (size_t) K, (size_t) j);
    m->n = ch4coll_seg_len(a->count, (size_t) K, (size_t) j);
    m->tag0 = tag0;
    rc = ch4coll_lanes_open(&m->g, a);
    if (rc != CH4COLL_OK)
        return rc;
    Q = m->g.lanes;
    m->q = ch4coll_lanes_size(&m->g, m->g.node);
    m->lane = *ch4coll_auto_model(a);
    m->lane.beta *= Q; /* Q lanes at once through one interface */
    if (a->coll != CH4COLL_ALLREDUCE)
        m->root_node = a->loc ? a->loc->node_of[a->root] : a->root;
    m->acc = CH4COLL_BUF_RECV;
    m->peers = ch4coll_malloc(((size_t) m->g.nodes + 3 * (size_t) Q + 1) *
                              sizeof *m->peers);
    m->inner = ch4coll_malloc((size_t) Q * sizeof *m->inner);
    if (!m->peers || !m->inner) {
        ml_free(m);
        return CH4COLL_ERR_NOMEM;
    }
    m->sent = m->peers + m->g.nodes;
    m->step2 = m->sent + Q;
    m->tag2 = m->step2 + Q;
    m->tag2[0] = tag0 + 2 * Q;
    for (k = 0; k < Q && rc == CH4COLL_OK; k++) {
        m->sent[k] = m->step2[k] = -1;
        ml_inner_args(m, k, &ia);
        rc = a->coll == CH4COLL_BCAST
                 ? ml_bcast_inner(&m->inner[k])
                 : ch4coll_smp_choose(a, &ia, &m->inner[k]);
        if (rc == CH4COLL_OK)
            m->tag2[k + 1] =
                m->tag2[k] +
                ch4coll_algo_ntags(m->inner[k].al, &ia, m->inner[k].params);
    }
    if (rc != CH4COLL_OK)
        ml_free(m);
    return rc;
}

/* Step 1: the segments this rank does not serve to their servers; the
 * node's copies of its own lanes folded into its receive buffer. */
static void ml_reduce_in_node(ml_t *m)
{
    const ch4coll_args_t *a = m->a;
    int src = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, k, i, d[2], n;

    for (k = 0; k < m->g.lanes; k++)
        if (!ml_serves(m, k) && ml_len(m, k) > 0)
            m->sent[k] = ch4coll_sched_send(
                m->s, ml_at(m, src, k), ml_len(m, k),
                ch4coll_lanes_server(&m->g, m->g.node, k), m->tag0 + k,
                ch4coll_dep1(m->chain[k], d), d);
    for (k = m->g.idx; k < m->g.lanes; k += m->q) {
        size_t len = ml_len(m, k);
        int tmp, prev = -1;
        if (len == 0)
            continue;
        if (!a->inplace)
            prev = ch4coll_sched_copy(m->s, ml_at(m, CH4COLL_BUF_SEND, k),
                                      ml_at(m, m->acc, k), len, 0, NULL);
        tmp = m->q > 1 ? ch4coll_sched_scratch(m->s, (size_t) (m->q - 1) * len)
                       : -1;
        for (i = 1; i < m->q; i++) {
            ch4coll_ref_t at =
                ch4coll_ref(tmp, ch4coll_eoff(a, (size_t) (i - 1) * len));
            d[0] = ch4coll_sched_recv(
                m->s, at, len,
                ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + i) % m->q),
                m->tag0 + k, 0, NULL);
            n = 1;
            if (prev >= 0)
                d[n++] = prev;
            prev =
                ch4coll_sched_reduce(m->s, at, ml_at(m, m->acc, k), len, n, d);
        }
        m->step2[k] = prev;
    }
}

/* Step 2: lane k's allreduce among its servers, for the lanes this rank
 * serves. */
static int ml_between_nodes(ml_t *m)
{
    int k, j, nt, rc = CH4COLL_OK, d[1];
    ch4coll_args_t ia;

    for (k = m->g.idx; k < m->g.lanes && rc == CH4COLL_OK; k += m->q) {
        ch4coll_view_t v;
        if (ml_len(m, k) == 0 || m->g.nodes == 1)
            continue;
        for (j = 0; j < m->g.nodes; j++)
            m->peers[ml_pos(m, k, j)] = ch4coll_lanes_server(&m->g, j, k);
        v.peers = m->peers;
        v.size = m->g.nodes;
        v.tag_base = m->tag2[k];
        v.io[0] = v.io[1] = ml_at(m, m->acc, k);
        v.ndeps = ch4coll_dep1(m->step2[k], d);
        v.deps = d;
        ml_inner_args(m, k, &ia);
        rc = ch4coll_smp_run_view(m->s, m->inner[k].al->build, &ia,
                                  m->inner[k].params, &v, &m->step2[k], &nt);
        if (rc == CH4COLL_OK && nt != m->tag2[k + 1] - m->tag2[k])
            rc = CH4COLL_ERR_ARG; /* the builder and its ntags disagree */
    }
    return rc;
}

/* Step 3: every lane's result from its server to the node's other ranks
 * (a bcast's root has them all). */
static void ml_out_in_node(ml_t *m)
{
    int k, i, to, d[1];
    int has = m->a->coll == CH4COLL_BCAST ? m->a->root : -1;

    for (k = 0; k < m->g.lanes; k++) {
        size_t len = ml_len(m, k);
        if (len == 0)
            continue;
        if (!ml_serves(m, k)) {
            if (m->a->rank != has)
                ch4coll_sched_recv(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len,
                                   ch4coll_lanes_server(&m->g, m->g.node, k),
                                   m->tag0 + m->g.lanes + k,
                                   ch4coll_dep1(m->sent[k], d), d);
            continue;
        }
        for (i = 1; i < m->q; i++) {
            to = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + i) % m->q);
            if (to != has)
                ch4coll_sched_send(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len, to,
                                   m->tag0 + m->g.lanes + k,
                                   ch4coll_dep1(m->step2[k], d), d);
        }
    }
}

/* The root's node, between the root and the servers of the lanes it does
 * not serve: bcast step 1 (the root's segments to them, tag k), reduce
 * step 3 (their results to the root, tag Q + k; the root's receive waits
 * for its step-1 send of the same segment, in place). */
static void ml_root_node(ml_t *m, int to_root)
{
    const ch4coll_args_t *a = m->a;
    int k, tag, d[1];

    if (m->g.node != m->root_node)
        return;
    for (k = 0; k < m->g.lanes; k++) {
        size_t len = ml_len(m, k);
        int srv = ch4coll_lanes_server(&m->g, m->g.node, k);
        tag = m->tag0 + (to_root ? m->g.lanes + k : k);
        if (len == 0)
            continue;
        if (a->rank == a->root && !ml_serves(m, k) && to_root)
            ch4coll_sched_recv(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len, srv,
                               tag, ch4coll_dep1(m->sent[k], d), d);
        else if (a->rank == a->root && !ml_serves(m, k))
            m->sent[k] =
                ch4coll_sched_send(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len,
                                   srv, tag, ch4coll_dep1(m->chain[k], d), d);
        else if (a->rank != a->root && ml_serves(m, k) && to_root)
            ch4coll_sched_send(m->s, ml_at(m, m->acc, k), len, a->root, tag,
                               ch4coll_dep1(m->step2[k], d), d);
        else if (a->rank != a->root && ml_serves(m, k))
            m->step2[k] = ch4coll_sched_recv(m->s, ml_at(m, m->acc, k), len,
                                             a->root, tag, 0, NULL);
    }
}

static void ml_scatter_from_root(ml_t *m)
{
    ml_root_node(m, 0);
}

static void ml_gather_to_root(ml_t *m)
{
    ml_root_node(m, 1);
}

/* The tags of pieces 0 .. j - 1 of K (piece j's first tag); -1 if a
 * piece's lanes do not open. */
static int ml_tags_before(const ch4coll_args_t *a, int j, int K)
{
    ml_t m;
    int i, tag = 0;

    for (i = 0; i < j; i++) {
        if (ml_open(&m, NULL, a, i, K, tag) != CH4COLL_OK)
            return -1;
        tag = m.tag2[m.g.lanes];
        ml_free(&m);
    }
    return tag;
}

/* Every collective, piece by piece: step 1 (into the lanes' servers),
 * step 2 and step 3; a piece's step-1 sends follow the piece before's on
 * the same lane, so that its step 2 overlaps the next piece's step 1. */
static int ml_build(ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const int64_t *params, void (*step1)(ml_t *),
                    void (*step3)(ml_t *))
{
    ml_t m;
    int rc = CH4COLL_OK, j, k, K = ml_pieces(a, params), tag = 0, acc;
    int *chain;

    ch4coll_sched_set_ntags(s, ml_tags_before(a, K, K));
    if (a->count == 0)
        return rc;
    acc = a->coll == CH4COLL_REDUCE && a->rank != a->root
              ? ch4coll_sched_scratch(s, a->count)
              : CH4COLL_BUF_RECV;
    chain = ch4coll_malloc((size_t) a->size * sizeof *chain);
    if (!chain)
        return CH4COLL_ERR_NOMEM;
    for (k = 0; k < a->size; k++)
        chain[k] = -1;
    for (j = 0; j < K && rc == CH4COLL_OK; j++) {
        rc = ml_open(&m, s, a, j, K, tag);
        if (rc != CH4COLL_OK)
            break;
        m.acc = acc;
        m.chain = chain;
        step1(&m);
        rc = ml_between_nodes(&m);
        if (rc == CH4COLL_OK)
            step3(&m);
        for (k = 0; k < m.g.lanes; k++)
            if (m.sent[k] >= 0)
                chain[k] = m.sent[k];
        tag = m.tag2[m.g.lanes];
        ml_free(&m);
    }
    ch4coll_free(chain);
    return rc;
}

int ch4coll_allreduce_multi_leader(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                   const int64_t *params)
{
    return ml_build(s, a, params, ml_reduce_in_node, ml_out_in_node);
}

int ch4coll_bcast_multi_leader(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    return ml_build(s, a, params, ml_scatter_from_root, ml_out_in_node);
}

int ch4coll_reduce_multi_leader(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    return ml_build(s, a, params, ml_reduce_in_node, ml_gather_to_root);
}

/* group_lanes: a's call with groups of params[1] consecutive ranks as
 * its nodes (*v and its map; free the map with ch4coll_free). */
static int gl_open(ch4coll_args_t *v, ch4coll_locality_t *loc,
                   const ch4coll_args_t *a, const int64_t *params)
{
    int r, g = params[1] < a->size ? (int) params[1] : a->size;
    int *node_of;

    if (g < 1)
        g = 1; /* the registry's minimum; never a zero divisor */
    node_of = ch4coll_malloc((size_t) a->size * sizeof *node_of);
    if (!node_of)
        return CH4COLL_ERR_NOMEM;
    for (r = 0; r < a->size; r++)
        node_of[r] = ch4coll_virtual_node(r, a->size, g, CH4COLL_MAP_BLOCK);
    loc->nodes = (a->size - 1) / g + 1;
    loc->consecutive = 1;
    loc->node_of = node_of;
    *v = *a;
    v->loc = loc;
    return CH4COLL_OK;
}

int ch4coll_allreduce_group_lanes(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    ch4coll_args_t v;
    ch4coll_locality_t loc;
    int rc = gl_open(&v, &loc, a, params);

    if (rc != CH4COLL_OK)
        return rc;
    rc = ml_build(s, &v, params, ml_reduce_in_node, ml_out_in_node);
    ch4coll_free((void *) loc.node_of);
    return rc;
}

int ch4coll_ntags_group_lanes(const ch4coll_args_t *a, const int64_t *params)
{
    ch4coll_args_t v;
    ch4coll_locality_t loc;
    int n;

    if (gl_open(&v, &loc, a, params) != CH4COLL_OK)
        return -1;
    n = ch4coll_ntags_multi_leader(&v, params);
    ch4coll_free((void *) loc.node_of);
    return n;
}

/* Per piece 2 Q tags inside the node, then every lane's step-2 range. */
int ch4coll_ntags_multi_leader(const ch4coll_args_t *a, const int64_t *params)
{
    int K = ml_pieces(a, params), n = ml_tags_before(a, K, K);

    return n > 0 ? n : 1;
}

/* The opening note's formulas (a bcast's step 1 is the root's node's,
 * its steps 1 and 3 reduce nothing), for the first piece, plus a period
 * per further piece: the slowest of the three steps.  shared: the lanes'
 * step 2 queues at the node's one interface (multi_leader); else every
 * rank has its own ports (group_lanes). */
static double ml_cost(const ch4coll_args_t *a, const int64_t *params,
                      const ch4coll_model_t *m, int shared)
{
    ml_t g;
    ch4coll_args_t ia;
    double s, b, tn, t1, t2 = 0, t3,
                         gamma = a->coll == CH4COLL_BCAST ? 0 : m->gamma;
    int q, q1, q3, K = ml_pieces(a, params);

    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (ml_open(&g, NULL, a, 0, K, 0) != CH4COLL_OK)
        return HUGE_VAL;
    q = g.g.lanes;
    q1 = a->coll == CH4COLL_BCAST ? ch4coll_lanes_size(&g.g, g.root_node) : q;
    q3 = a->coll == CH4COLL_REDUCE ? ch4coll_lanes_size(&g.g, g.root_node) : q;
    s = (double) ml_len(&g, 0);
    b = ch4coll_nbytes(a, 1) * s;
    tn = m->alpha_node + b * m->beta_node;
    ml_inner_args(&g, 0, &ia);
    if (g.g.nodes > 1 && g.inner[0].al->cost)
        t2 = (shared ? g.g.lanes : 1) *
             g.inner[0].al->cost(&ia, g.inner[0].params, m);
    ml_free(&g);
    t1 = (q1 - 1) * (tn + b * gamma);
    t3 = (q3 - 1) * tn;
    return t1 + t2 + t3 + (K - 1) * fmax(t1, fmax(t2, t3));
}

double ch4coll_cost_allreduce_multi_leader(const ch4coll_args_t *a,
                                           const int64_t *params,
                                           const ch4coll_model_t *m)
{
    return ml_cost(a, params, m, 1);
}

double ch4coll_cost_reduce_multi_leader(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    return ml_cost(a, params, m, 1);
}

double ch4coll_cost_bcast_multi_leader(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return ml_cost(a, params, m, 1);
}

/* Every message on the network's terms: the groups are not nodes. */
double ch4coll_cost_allreduce_group_lanes(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    ch4coll_args_t v;
    ch4coll_locality_t loc;
    ch4coll_model_t flat = *m;
    double t;

    if (gl_open(&v, &loc, a, params) != CH4COLL_OK)
        return HUGE_VAL;
    flat.alpha_node = m->alpha;
    flat.beta_node = m->beta;
    t = ml_cost(&v, params, &flat, 0);
    ch4coll_free((void *) loc.node_of);
    return t;
}
