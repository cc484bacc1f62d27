/*
 * smp_multi_leader.c - allreduce, bcast and reduce with a leader per
 * lane.  allreduce: reduce-scatter inside the node, one allreduce between
 * nodes per local rank on its share of the vector, all at once, and an
 * allgather inside the node.  bcast: a scatter from the root inside its
 * node, one circulant bcast between nodes per local rank on its share,
 * all at once, and an allgather inside every node, block by block.
 * reduce: the bcast backwards, block by block: the reduce-scatter inside
 * every node, one circulant reduce between nodes per local rank, a
 * gather to the root.
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
 *      (the lane's algorithm, below), every lane at once, node j at position
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
 * The lane's algorithm (allreduce): the selection's for N ranks
 * and segment k, unless another algorithm that runs on its own (not
 * CH4COLL_F_COMPOSED) has a cost formula more than 5 % below the
 * selection's on the lanes' model, where beta is Q times the node's (the
 * Q lanes share its link); then that one.  A tree learns its choice for
 * a communicator that owns its links, and below 16 ranks it extrapolates
 * from 2 and 3: recursive doubling, which sends the whole segment every
 * round.  On SimGrid's smp cluster (doc/performance.md), 2 MiB: p = 24
 * (N = 3) took 140.7 us with it, 128.4 with direct, which the formulas
 * name; p = 32 (N = 4) 185.3 and 146.7 (the reduce chose its lanes so
 * too, before it went block by block: its binomial tree 185.7 and ring
 * 131.7 at p = 24).
 * Near the least formula the selection stays: the formulas know no
 * per-message overheads or eager copies (N = 12: circulant's formula is
 * 1.6 % under swing's, and it took 186.9 us against 179.6).  Step 2 runs
 * on the lanes' model, so that an algorithm's own block counts see the
 * shared link too.
 *
 * Smaller nodes.  Where node j has q_j < Q ranks, its local index i
 * serves lanes i, i + q_j, ..., and the last Q mod q_j lanes make some
 * ranks serve one more lane than the others: a server folds q_j - 1
 * copies per lane, so those ranks fold twice as much (p = 63 on nodes of
 * 8: rank 56 folds 12 segments of a piece, the others 6 or 7).  Step 1
 * of those lanes runs along a chain instead (q_j > 2): from the server's
 * next local index round to the server, each rank folds its own copy
 * into the partial sum it receives and sends it on, so every rank of the
 * node folds about (q_j - 1) Q / q_j segments.  The chain costs q_j - 1
 * messages in a row for a piece's segment, but pieces follow one another
 * along it.  SimGrid smp, 2 MiB allreduce: p = 61 (a node of 5) 193.7 us
 * before, 172.2 after; p = 63 (a node of 7) 226 and 171.5; p = 64 168.4.
 * Not in group_lanes, whose groups' messages cross the network: on
 * SimGrid's fat tree, p = 61 in groups of 8, chains took 32.1 us against
 * 27.0 at 128 KiB and 805.7 against 780.5 at 8 MiB (204.4 against 209.1
 * at 2 MiB).
 * Worked example, p = 7 on nodes {0, 1, 2, 3}, {4, 5, 6} (Q = 4): node
 * 1's index 0 (rank 4) serves lanes 0 and 3; lane 3's step 1 is the
 * chain 5 -> 6 -> 4: rank 5 sends its segment 3 to 6, 6 folds its own
 * in and sends the sum to 4, which folds it into its own.
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
 * bcast, the same lanes and segments, root r at node R, block by block:
 * lane k's segment of m bytes is cut into the n blocks of its circulant
 * bcast between nodes (Traeff's round-optimal schedule, circulant.c).
 * A block crosses n - 1 + q + 2 rounds: the lane's q = ceil(lg N), one
 * in from the root, one out to the node; so n = sqrt((q + 1) beta' m /
 * alpha), circulant's n* for that pipeline, with beta' = Q beta (the Q
 * lanes share the node's link, so each sees 1/Q of its bandwidth, while
 * their messages' latencies and overheads, on other ranks and cores,
 * overlap), but no more blocks than make blocks of `block` bytes
 * (default 12 KiB, above the eager switch of SimGrid's calibrated
 * machine).  N = 2 nodes has q = 1 and gets blocks all the same;
 *   1  r sends the blocks of every segment it does not serve to that
 *      lane's server at node R, one after another (tag k);
 *   2  lane k's servers bcast segment k by circulant from node R's
 *      server, every lane at once; node R's server sends a block on as
 *      soon as it has come from r;
 *   3  every server sends each block of its lanes on to its node's other
 *      ranks but r as soon as it holds it, one after another per rank
 *      (tag Q + k).
 * A segment of fewer than two blocks of `block` bytes keeps the lane's
 * own blocks in step 2 (circulant's n* on beta') and moves whole
 * segments in steps 1 and 3, step 3 after the whole lane, its sends too
 * (the three steps one after another): where blocks would be
 * eager, their per-byte copies on a server's core delay its circulant
 * (SimGrid smp, p = 96, 128 KiB: 21.9 us so, 24.4 with the eager blocks
 * grouped to 12 KiB for steps 1 and 3, 48.1 with eager blocks
 * throughout).  The receives of a stream are built in order and complete
 * in order (a lane's circulant chains its receives), so a group of
 * blocks is whole once its latest-built receive is done.
 * Why circulant and not the lane's algorithm of the allreduce and the
 * reduce (the selection's bcast for N ranks): a tree learns that for a
 * communicator that owns the links, and its choice for segments of 128 KiB on 8
 * ranks (two_tree in 16 KiB chunks) took SimGrid's smp cluster
 * (doc/performance.md) at p = 61, 2 MiB, in pieces of 1 MiB, to 141.6
 * us; circulant with the lanes' blocks 120.1, the best of eight inner
 * algorithms forced (bidir_chain, two_tree, line, binomial,
 * scatter_ring_allgather, circulant with 1 to 64 blocks) 117.7, and
 * block by block in one piece 104.3 (1.24 of the bound; 512 KiB 68.7,
 * 42.2 and 35.4).  Pieces (parameter chunk, default 0) only add rounds
 * now: 256 KiB pieces took up to 2x longer at 512 KiB-8 MiB.  The
 * model's replay, whose interface queues every message's alpha and
 * whose messages are all eager, books the blocks dearer (p = 61 on nodes
 * of 8, 1 MiB: 206.8 us against 173.7 with the selection's two_tree);
 * where a node's messages pay their latency one after another, a
 * machine's tree should name another bcast (smp, bidir_chain).  One rank
 * per node (Q = 1) it is circulant on all ranks, with the call's blocks.
 * Cost, per piece: the root's feed (q_R - 1) g t', the lanes' circulants
 * on the node's interface one after another Q T2(N, s), a server's
 * passing on (q - 1) g t' (g groups, t' = alpha_node + their bytes
 * beta_node); in several groups the slowest of the three plus a group's
 * t' in and out, in one group their sum.  A whole-vector bcast between
 * node leaders (smp) sends m bytes through one rank's port per node; here
 * each lane sends m / Q.  Worked example, the same p = 7 and nodes, root
 * 4, n = 7 (one block per segment): segments of 3, 2, 2 at 0, 3, 5; node
 * 1's servers are 3 (lane 0), 4 (lane 1), 5 (lane 2).  Step 1: 4 sends
 * segment 0 to 3 and segment 2 to 5.  Step 2: lane 0 bcasts segment 0
 * from 3 to 0 and 6, lane 1 segment 1 from 4 to 1 and 6, lane 2 segment
 * 2 from 5 to 2 and 6.  Step 3: node 0 as in the allreduce; at node 1, 3
 * sends segment 0 to 5 only, 5 segment 2 to 3 only (4, the root, has
 * all); rank 6 is done.  With two blocks per segment, 3 starts lane 0's
 * circulant with segment 0's first block as soon as that has come from
 * 4, and at node 0 rank 0 passes each block of segment 0 on to 1 and 2
 * as it arrives.
 *
 * reduce, root r at node R, block by block: the bcast run backwards,
 * with the same lanes, segments, blocks (`block`, n for the pipeline on
 * the lanes' model with beta + gamma, reductions' n*) and groups.  Every
 * rank's copy of segment k goes to lane k's server (the receive buffer
 * at r, a scratch of n elements at every other rank: its receive buffer
 * is not significant) group by group:
 *   1  every rank but the server sends its copy of each group of segment
 *      k to the server (tag k; along a chain on a smaller node, above),
 *      which folds the group into its partial as soon as it has come;
 *   2  lane k's servers reduce segment k to node R's server by circulant
 *      reduce (circulant.c), block b of a server's partial going in as
 *      soon as its group is folded;
 *   3  node R's servers send each group to r as soon as the lane has
 *      reduced it (tag Q + k).
 * The streams of steps 1 and 3 run from the last group to the first:
 * the circulant reduce is the bcast backwards and takes the blocks from
 * the last (its first round sends the bcast's last) and completes them at
 * its root in that order.  In the order of the bcast's (first group
 * first) nothing overlapped (SimGrid smp, p = 16, 2 MiB, free
 * reductions: 149.7 us, against 88.7 so and 92.8 for the three steps in
 * 256 KiB pieces before 2026-11-29).  A segment of fewer than two blocks
 * of `block` bytes keeps the three steps one after another, in the
 * lane's own blocks.  Commutative ops only, as the allreduce.  Cost as
 * the bcast's, mirrored: per piece the slowest of the node's folds
 * (q - 1) g (t' + gb gamma), the lanes' circulant reduces Q T2(N, s) and
 * the root's take (q_R - 1) g t', plus a group's t' in and out (one
 * group: the sum).  SimGrid smp, 2 MiB: p = 24 131.7 us (the three steps,
 * the lanes' ring, 256 KiB pieces) -> 101.7, p = 61 160.8 -> 109.7, p = 96
 * 159.8 -> 110.9 (the bound 84.4).  Worked example, the same p = 7, nodes
 * and n, root 4, one block per segment: step 1 as the allreduce's; step
 * 2 lane 0 reduces segment 0 of 0, 3 and 6 to 3, lane 1 segment 1 of 1,
 * 4 and 6 to 4 (the root, into its receive buffer), lane 2 segment 2 of
 * 2, 5 and 6 to 5; step 3: 3 sends segment 0 and 5 segment 2 to 4.
 *
 * Pipelining (parameter chunk, bytes; allreduce's default 256 KiB, bcast's
 * and reduce's 0: one piece, their blocks pipeline the message):
 * with more than one rank on some node the vector is cut into K =
 * ceil(bytes / chunk) pieces, at most 16 and at most count (and fewer
 * where a small node's rank serves more than two lanes: ml_shape), and
 * each piece runs the three steps on its own segments and tags (2 Q + the
 * lanes' step-2 ranges per piece); a piece's step-1 sends follow those of
 * the piece before on the same lane, so that the node's link carries
 * piece i's step 2 while its loopback carries piece i + 1's step 1.
 * Cost: the first piece's three steps plus (K - 1) times the slowest.
 *
 * Leaders (allreduce, parameter lanes): Q lanes, one per rank of the
 * largest node, carry segments of n / Q; where those are eager (at most
 * the eager switch, the model's or 8 KiB, ML_EAGER) and segments of n / 2
 * are not, the default (0) takes L = ceil(n / e) - 1 lanes instead, the
 * most whose segments are not eager, and a node's ranks from local index
 * L on lead none: they send every segment to its lane's server and take
 * the result back, as a smaller node's ranks do.  An eager segment costs
 * its server a copy per byte on each side, and the lane's butterfly
 * sends it whole; the fewer lanes' rendezvous messages cost a handshake
 * and no copy.  SimGrid smp, p = 16 (p = 24), lanes 8 -> L: 24 KiB
 * 13.7 -> 7.9 us (15.1 -> 11.0), 32 KiB 15.6 -> 7.8 (17.4 -> 11.0), 48
 * KiB 19.5 -> 8.2 (21.6 -> 11.5), 64 KiB 23.3 -> 8.8 (25.7 -> 12.4): the
 * best of 1..8 lanes at every size; p = 61 and 96, 32 KiB 22.1 -> 15.9
 * and 22.6 -> 16.9.  One lane (16 KiB) won on 2 and 3 nodes (11.7 ->
 * 9.2 at p = 16) and lost on 8 and 12 (p = 61 15.7 -> 17.7, p = 96 16.8
 * -> 18.9), so the default keeps Q below two; at 8 KiB, where every
 * split is eager, 4-6 lanes took 9.4 and 8 10.3; from 96 KiB 8 are the
 * fastest.  `lanes` = L > 0 forces min(L, Q).
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
    int qmax;   /* ranks of the largest node */
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
    ch4coll_model_t lane; /* step 2's model, the interface shared */
    int shared;    /* multi_leader: the lanes share the node's link, step 2
                    * runs on the lane model; group_lanes: 0 */
    int64_t block; /* bcast, reduce: the smallest block (parameter block) */
    int rev;       /* reduce: streams from the last group to the first, the
                    * order its circulant takes and gives the blocks in */
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

/* The lanes a call asks for: allreduce multi_leader's parameter `lanes`
 * (0: by the eager switch, ml_shape); -1 (all: one per rank of the
 * largest node) for bcast, reduce and group_lanes. */
static int ml_asked(const ch4coll_args_t *a, const int64_t *params, int shared)
{
    return shared && a->coll == CH4COLL_ALLREDUCE ? (int) params[1] : -1;
}

/* The eager switch the lanes and pieces keep messages above where the
 * model names none: the grid's calibrated machine's (doc/machines.md). */
#define ML_EAGER 8192.0

static double ml_eager(const ch4coll_args_t *a)
{
    return ch4coll_auto_model(a)->eager > 0 ? ch4coll_auto_model(a)->eager
                                            : ML_EAGER;
}

/* The shape of a call: its lanes *L (0: one per rank of the largest node)
 * and pieces *K (lanes.h); one piece and no lanes to choose with one rank
 * per node.
 * Lanes (opening note, "Leaders"): `asked` of them (at most Q), or with
 * 0 as many as keep a lane's segment of a piece above the eager switch
 * where Q of them would be eager and two would not.
 * Pieces: where a node of q ranks makes one of them serve s = ceil(L / q)
 * > 2 lanes, no more than keep a lane's segment of a piece above N eager
 * switches: the lanes' smallest messages (a reduce-scatter's 1 / N of it)
 * then go by rendezvous.  That rank sends and takes s lanes' messages,
 * and an eager one costs its core about a wire's time per byte (the
 * copies: doc/machines.md's ois and or, 0.08 ns/B, beta 0.097), s times
 * over.  SimGrid smp, allreduce, 2 MiB, nodes of 8 and one of 1 rank:
 * p = 25 (lanes of `direct` on 4 nodes, messages of 8 KiB, eager) 482.6
 * us in 8 pieces, 144.4 in 7; p = 57 328.1 in 8, 189.5 in 3 (nodes all
 * full, p = 24 and 64: 128.4 and 168.4 in 8).  A rank serving two lanes
 * keeps pace (p = 60: 169.4 in 8 pieces, 171.9 in 6). */
static int ml_shape(const ch4coll_args_t *a, const int64_t *params, int asked,
                    int *K, int *L)
{
    ch4coll_lanes_t g;
    double bytes = ch4coll_nbytes(a, a->count), e = ml_eager(a), seg, cap;
    int j, qmin, rc;

    *K = 1;
    *L = 0;
    if (!a->loc || a->loc->nodes == a->size)
        return CH4COLL_OK;
    rc = ch4coll_lanes_open(&g, a);
    if (rc != CH4COLL_OK)
        return rc;
    *K = ch4coll_lanes_pieces(bytes, params[0], a->count);
    seg = bytes / *K;
    if (asked > 0 && asked < g.lanes)
        *L = asked;
    else if (asked == 0 && seg / g.lanes <= e && ceil(seg / e) - 1 >= 2)
        *L = (int) ceil(seg / e) - 1;
    if (*L > 0)
        g.lanes = *L;
    for (qmin = g.lanes, j = 0; j < g.nodes; j++)
        if (ch4coll_lanes_size(&g, j) < qmin)
            qmin = ch4coll_lanes_size(&g, j);
    if (*K > 1 && (g.lanes + qmin - 1) / qmin > 2) {
        cap = ceil(bytes / ((double) g.lanes * g.nodes * e)) - 1;
        if (cap < *K)
            *K = cap < 1 ? 1 : (int) cap;
    }
    ch4coll_lanes_close(&g);
    return CH4COLL_OK;
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
    ia->model = m->shared ? &m->lane : a->model;
}

/* bcast's and reduce's step 2: circulant on the lanes' model (ml_open),
 * its blocks n* for a link shared by the node's Q lanes. */
static int ml_circ_inner(int coll, ch4coll_smp_choice_t *c)
{
    c->al = ch4coll_algo_find(coll, "circulant");
    if (!c->al || !c->al->build)
        return CH4COLL_ERR_ARG;
    ch4coll_algo_default_params(c->al, c->params);
    return CH4COLL_OK;
}

/* How far above the least formula the selection's choice for a lane may
 * be and stay: the formulas know no per-message overheads, eager copies
 * or a tree's measurements, so near the least they do not outrank the
 * selection; far above it (recursive doubling's whole segment per round
 * on 3 or 4 nodes, where the tree extrapolates from 2 ranks) they do. */
#define ML_TRUST 1.05

/* allreduce's and reduce's step 2: the selection's algorithm for the
 * lane's shape, unless one of the collective's algorithms that run on
 * their own (not CH4COLL_F_COMPOSED) has a cost formula on the lanes'
 * model more than ML_TRUST times below its own; then that one, with its
 * default parameters (ties to the registry's first).  Formulas are
 * evaluated at position 0 and not in place (a reduce's lane is in place
 * at the root's node only), so that every rank of a lane gets the same
 * answer. */
static int ml_lane_choose(const ch4coll_args_t *a, const ch4coll_args_t *ia,
                          ch4coll_smp_choice_t *c)
{
    ch4coll_args_t at = *ia;
    int64_t p[CH4COLL_MAX_PARAMS];
    double best = HUGE_VAL, mine = HUGE_VAL, t;
    const ch4coll_algo_t *least = NULL;
    const char *why;
    int i, rc = ch4coll_smp_choose(a, ia, c);

    if (rc != CH4COLL_OK)
        return rc;
    at.rank = 0;
    at.inplace = 0;
    if (c->al->cost)
        mine = c->al->cost(&at, c->params, ch4coll_auto_model(&at));
    for (i = 0; i < ch4coll_nalgos; i++) {
        const ch4coll_algo_t *al = &ch4coll_algos[i];
        if (al->coll != ia->coll || !al->build || !al->cost ||
            (al->restrictions & CH4COLL_F_COMPOSED) ||
            !ch4coll_algo_applicable(al, &at, &why))
            continue;
        ch4coll_algo_default_params(al, p);
        t = al->cost(&at, p, ch4coll_auto_model(&at));
        if (t < best) {
            best = t;
            least = al;
        }
    }
    if (least && mine > ML_TRUST * best) {
        c->al = least;
        ch4coll_algo_default_params(least, c->params);
    }
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
                   int K, int tag0, int shared, int lanes)
{
    int rc, k, Q;
    ch4coll_args_t ia;

    memset(m, 0, sizeof *m);
    m->s = s;
    m->a = a;
    m->off = ch4coll_seg_off(a->count, (size_t) K, (size_t) j);
    m->n = ch4coll_seg_len(a->count, (size_t) K, (size_t) j);
    m->tag0 = tag0;
    m->shared = shared;
    rc = ch4coll_lanes_open(&m->g, a);
    if (rc != CH4COLL_OK)
        return rc;
    m->qmax = m->g.lanes;
    if (lanes > 0 && lanes < m->g.lanes) /* ml_shape's */
        m->g.lanes = lanes;
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
        rc = a->coll == CH4COLL_ALLREDUCE
                 ? ml_lane_choose(a, &ia, &m->inner[k])
                 : ml_circ_inner(a->coll, &m->inner[k]);
        if (rc == CH4COLL_OK)
            m->tag2[k + 1] =
                m->tag2[k] +
                ch4coll_algo_ntags(m->inner[k].al, &ia, m->inner[k].params);
    }
    if (rc != CH4COLL_OK)
        ml_free(m);
    return rc;
}

/* A lane whose step 1 runs along a chain: the node's last Q mod q
 * lanes, where q < Q ranks serve Q lanes and some serve one more than
 * the others (opening note, "Smaller nodes").  Two ranks: the chain is
 * the star.  multi_leader only: group_lanes' groups send over the
 * network, where a chain's messages in a row cost more than the folds
 * it balances. */
static int ml_chained(const ml_t *m, int k)
{
    return m->shared && m->q > 2 && m->q < m->g.lanes &&
           k >= m->g.lanes - m->g.lanes % m->q;
}

/* Step 1 of a chained lane k (server at local index i0 = k mod q): the
 * ranks i0 + 1, i0 + 2, ... (mod q) pass the segment's partial sum on,
 * each folding its own copy in, and the server folds in the last. */
static void ml_chain_in(ml_t *m, int k, int src)
{
    size_t len = ml_len(m, k);
    int q = m->q, t = (m->g.idx - k % q + q) % q, d[2], n, tmp, got;
    int next = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + 1) % q);
    int prev = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + q - 1) % q);
    ch4coll_ref_t at;

    if (t == 1) {
        m->sent[k] =
            ch4coll_sched_send(m->s, ml_at(m, src, k), len, next, m->tag0 + k,
                               ch4coll_dep1(m->chain[k], d), d);
        return;
    }
    tmp = ch4coll_sched_scratch(m->s, len);
    at = ch4coll_ref(tmp, 0);
    got = ch4coll_sched_recv(m->s, at, len, prev, m->tag0 + k, 0, NULL);
    if (t == 0) { /* the server */
        n = 0;
        d[n++] = got;
        if (!m->a->inplace)
            d[n++] = ch4coll_sched_copy(m->s, ml_at(m, CH4COLL_BUF_SEND, k),
                                        ml_at(m, m->acc, k), len, 0, NULL);
        m->step2[k] =
            ch4coll_sched_reduce(m->s, at, ml_at(m, m->acc, k), len, n, d);
        return;
    }
    d[0] = ch4coll_sched_reduce(m->s, ml_at(m, src, k), at, len, 1, &got);
    n = 1;
    if (m->chain[k] >= 0)
        d[n++] = m->chain[k];
    m->sent[k] = ch4coll_sched_send(m->s, at, len, next, m->tag0 + k, n, d);
}

/* Step 1: the segments this rank does not serve to their servers; the
 * node's copies of its own lanes folded into its receive buffer (a
 * chained lane's along its chain). */
static void ml_reduce_in_node(ml_t *m)
{
    const ch4coll_args_t *a = m->a;
    int src = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND, k, i, d[2], n;

    for (k = 0; k < m->g.lanes; k++)
        if (ml_len(m, k) > 0 && ml_chained(m, k))
            ml_chain_in(m, k, src);
        else if (!ml_serves(m, k) && ml_len(m, k) > 0)
            m->sent[k] = ch4coll_sched_send(
                m->s, ml_at(m, src, k), ml_len(m, k),
                ch4coll_lanes_server(&m->g, m->g.node, k), m->tag0 + k,
                ch4coll_dep1(m->chain[k], d), d);
    for (k = m->g.idx; k < m->g.lanes; k += m->q) {
        size_t len = ml_len(m, k);
        int tmp, prev = -1;
        if (len == 0 || ml_chained(m, k))
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

/* Lane k's view between nodes on io: its servers by position, its tag
 * range, no dependencies. */
static void ml_lane_view(ml_t *m, int k, ch4coll_ref_t io, ch4coll_view_t *v)
{
    int j;

    for (j = 0; j < m->g.nodes; j++)
        m->peers[ml_pos(m, k, j)] = ch4coll_lanes_server(&m->g, j, k);
    v->peers = m->peers;
    v->size = m->g.nodes;
    v->tag_base = m->tag2[k];
    v->io[0] = v->io[1] = io;
    v->ndeps = 0;
    v->deps = NULL;
}

/* rc, or an error where lane k's builder used other tags than its ntags
 * declared (nt). */
static int ml_lane_tags(const ml_t *m, int k, int nt, int rc)
{
    if (rc == CH4COLL_OK && nt != m->tag2[k + 1] - m->tag2[k])
        return CH4COLL_ERR_ARG;
    return rc;
}

/* Step 2: lane k's allreduce among its servers, for the lanes this rank
 * serves. */
static int ml_between_nodes(ml_t *m)
{
    int k, nt, rc = CH4COLL_OK, d[1];
    ch4coll_args_t ia;

    for (k = m->g.idx; k < m->g.lanes && rc == CH4COLL_OK; k += m->q) {
        ch4coll_view_t v;
        if (ml_len(m, k) == 0 || m->g.nodes == 1)
            continue;
        ml_lane_view(m, k, ml_at(m, m->acc, k), &v);
        v.ndeps = ch4coll_dep1(m->step2[k], d);
        v.deps = d;
        ml_inner_args(m, k, &ia);
        rc = ch4coll_smp_run_view(m->s, m->inner[k].al->build, &ia,
                                  m->inner[k].params, &v, &m->step2[k], &nt);
        rc = ml_lane_tags(m, k, nt, rc);
    }
    return rc;
}

/* Step 3: every lane's result from its server to the node's other
 * ranks. */
static void ml_out_in_node(ml_t *m)
{
    int k, i, to, d[1];

    for (k = 0; k < m->g.lanes; k++) {
        size_t len = ml_len(m, k);
        if (len == 0)
            continue;
        if (!ml_serves(m, k)) {
            ch4coll_sched_recv(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len,
                               ch4coll_lanes_server(&m->g, m->g.node, k),
                               m->tag0 + m->g.lanes + k,
                               ch4coll_dep1(m->sent[k], d), d);
            continue;
        }
        for (i = 1; i < m->q; i++) {
            to = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + i) % m->q);
            ch4coll_sched_send(m->s, ml_at(m, CH4COLL_BUF_RECV, k), len, to,
                               m->tag0 + m->g.lanes + k,
                               ch4coll_dep1(m->step2[k], d), d);
        }
    }
}

/* bcast, block by block.  Lane k's segment is cut into the n blocks of
 * its circulant (ch4coll_circ_bcast_nblocks on the lanes' model; one
 * with one node), and steps 1 and 3 move them in groups of G
 * consecutive blocks, G the fewest that make a group of block bytes
 * (parameter block) or more: a lane's circulant gains from small blocks
 * where messages inside the node lose (eager, smp_multi_leader.c's
 * opening note).  Group g of n blocks in groups of G: */
typedef struct {
    long n, G, ng; /* blocks, blocks per group, groups */
} ml_split_t;

static ml_split_t ml_split(const ml_t *m, int k)
{
    ch4coll_args_t ia;
    ml_split_t x = {1, 1, 1};
    double bytes = ch4coll_nbytes(m->a, ml_len(m, k)), most, n;

    if (m->g.nodes == 1)
        return x;
    most = m->block > 0 ? floor(bytes / (double) m->block) : HUGE_VAL;
    if (most < 2) { /* one group: steps 1 and 3 whole, the lane's blocks */
        ml_inner_args(m, k, &ia);
        x.n = x.G = m->a->coll == CH4COLL_REDUCE
                        ? ch4coll_circ_reduce_nblocks(&ia, m->inner[k].params)
                        : ch4coll_circ_bcast_nblocks(&ia, m->inner[k].params);
        return x;
    }
    /* n* of the pipeline's n - 1 + q + 2 rounds: the lane's q plus a
     * block in from the root and out to the node (a reduce's: in from
     * the node, out to the root; its folds' gamma with beta) */
    n = m->lane.alpha > 0
            ? sqrt((ch4coll_ceil_log2(m->g.nodes) + 1) *
                   (m->lane.beta +
                    (m->a->coll == CH4COLL_REDUCE ? m->lane.gamma : 0)) *
                   bytes / m->lane.alpha)
            : HUGE_VAL; /* a model without latency */
    n = fmin(fmin(n, most), (double) ml_len(m, k));
    x.n = n < 1 ? 1 : lround(n);
    x.ng = x.n;
    return x;
}

/* Group g of lane k's blocks in the segment that starts at seg (the
 * receive buffer's segment k, or a scratch of one segment). */
static ch4coll_ref_t ml_group(const ml_t *m, int k, const ml_split_t *x, long g,
                              ch4coll_ref_t seg, size_t *len)
{
    size_t n = ml_len(m, k), o0, o1;
    long b1 = (g + 1) * x->G < x->n ? (g + 1) * x->G : x->n;

    o0 = ch4coll_seg_off(n, (size_t) x->n, (size_t) (g * x->G));
    o1 = b1 < x->n ? ch4coll_seg_off(n, (size_t) x->n, (size_t) b1) : n;
    *len = o1 - o0;
    seg.off += ch4coll_eoff(m->a, o0);
    return seg;
}

/* One stream of lane k's groups of the segment at seg between two ranks
 * of a node, in order (each message after the one before: they match in
 * order on one tag), the first after dep; at[g] the vertex group g waits
 * for (NULL or -1: none).  out[g] (NULL: not asked): group g's message.
 * Returns the last. */
static int ml_stream(ml_t *m, int k, const ml_split_t *x, ch4coll_ref_t seg,
                     int peer, int tag, int send, const int *at, int dep,
                     int *out)
{
    long i, g;
    int d[2], nd, v = dep;
    size_t len;

    for (i = 0; i < x->ng; i++) {
        ch4coll_ref_t r =
            ml_group(m, k, x, g = m->rev ? x->ng - 1 - i : i, seg, &len);
        nd = 0;
        if (v >= 0)
            d[nd++] = v;
        if (at && at[g] >= 0)
            d[nd++] = at[g];
        v = send ? ch4coll_sched_send(m->s, r, len, peer, tag, nd, d)
                 : ch4coll_sched_recv(m->s, r, len, peer, tag, nd, d);
        if (out)
            out[g] = v;
    }
    return v;
}

/* A lane this rank serves: its groups from the root (at the root's node,
 * unless it is the root), lane k's circulant between nodes, and each
 * group on to the node's other ranks but the root as soon as it is
 * whole.  Scratch w: 2 n + ng ints. */
static int ml_bcast_lane(ml_t *m, int k, const ml_split_t *x, int *w)
{
    const ch4coll_args_t *a = m->a;
    int *have = w, *got = w + x->n, *at = w + 2 * x->n;
    int i, to, j, first, rc = CH4COLL_OK;
    long b, g;

    for (g = 0; g < x->ng; g++)
        at[g] = -1;
    if (m->g.node == m->root_node && a->rank != a->root)
        ml_stream(m, k, x, ml_at(m, CH4COLL_BUF_RECV, k), a->root, m->tag0 + k,
                  0, NULL, -1, at);
    for (b = 0; b < x->n; b++)
        have[b] = at[b / x->G];
    if (m->g.nodes > 1) {
        ch4coll_view_t v;
        ch4coll_args_t ia;
        ml_lane_view(m, k, ml_at(m, CH4COLL_BUF_RECV, k), &v);
        ml_inner_args(m, k, &ia);
        first = m->s->nv;
        ch4coll_sched_push_view(m->s, &v);
        rc = ch4coll_circ_bcast_run(m->s, &ia, x->n, have, got);
        rc = ml_lane_tags(m, k, ch4coll_sched_pop_view(m->s), rc);
        /* a lane's receives complete in the order they were built, so a
         * group is whole once its latest-built block's receive is done;
         * one group waits for the whole lane, its sends too, as the
         * three steps one after another */
        for (b = 0; b < x->n && m->g.node != m->root_node; b++)
            if (b % x->G == 0 || got[b] > at[b / x->G])
                at[b / x->G] = got[b];
        if (x->ng == 1 && (j = ch4coll_sched_join(m->s, first)) >= 0)
            at[0] = j;
    }
    for (i = 1; i < m->q && rc == CH4COLL_OK; i++) {
        to = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + i) % m->q);
        if (to != a->root)
            ml_stream(m, k, x, ml_at(m, CH4COLL_BUF_RECV, k), to,
                      m->tag0 + m->g.lanes + k, 1, at, -1, NULL);
    }
    return rc;
}

/* bcast, one piece: per lane, the root feeds its node's server group by
 * group (after its feed of the piece before, m->chain), the server runs
 * the lane, the node's other ranks take the groups from it. */
static int ml_bcast_piece(ml_t *m)
{
    const ch4coll_args_t *a = m->a;
    int k, rc = CH4COLL_OK, *w;

    for (k = 0; k < m->g.lanes && rc == CH4COLL_OK; k++) {
        int srv = ch4coll_lanes_server(&m->g, m->g.node, k);
        ml_split_t x;
        if (ml_len(m, k) == 0)
            continue;
        x = ml_split(m, k);
        if (ml_serves(m, k)) {
            w = ch4coll_malloc((2 * (size_t) x.n + (size_t) x.ng) * sizeof *w);
            if (!w)
                return CH4COLL_ERR_NOMEM;
            rc = ml_bcast_lane(m, k, &x, w);
            ch4coll_free(w);
        } else if (a->rank == a->root)
            m->sent[k] = ml_stream(m, k, &x, ml_at(m, CH4COLL_BUF_RECV, k), srv,
                                   m->tag0 + k, 1, NULL, m->chain[k], NULL);
        else
            ml_stream(m, k, &x, ml_at(m, CH4COLL_BUF_RECV, k), srv,
                      m->tag0 + m->g.lanes + k, 0, NULL, -1, NULL);
    }
    return rc;
}

/* reduce, block by block: the mirror of the bcast.  Step 1 of lane k
 * in groups of blocks: every rank but the server sends its copy of each
 * group as a stream (tag k), after its feed of the piece before
 * (m->chain), and the server folds each group into its partial as it
 * arrives; along a chain on a smaller node (ml_chained) each rank folds
 * its own copy of a group into the group it receives and sends it on.
 * Step 2: lane k's circulant reduce to the root's node, block b of the
 * server's partial in as soon as its group is folded.  Step 3: node R's
 * server sends each group on to the root as soon as the lane has
 * reduced it (tag Q + k).  A rank's own copy is src (the send buffer,
 * the receive buffer in place); rd[g] is set to the last vertex that
 * reads group g of it, which the root's step-3 receive waits for. */
static void ml_reduce_feed(ml_t *m, int k, const ml_split_t *x, int src,
                           int *rd)
{
    int q = m->q, t = (m->g.idx - k % q + q) % q, tmp;
    int srv = ch4coll_lanes_server(&m->g, m->g.node, k);
    int next = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + 1) % q);
    int prev = ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + q - 1) % q);
    ch4coll_ref_t own = ml_at(m, src, k), at;
    size_t len;
    long g;

    if (!ml_chained(m, k) || t == 1) {
        m->sent[k] = ml_stream(m, k, x, own, ml_chained(m, k) ? next : srv,
                               m->tag0 + k, 1, NULL, m->chain[k], rd);
        return;
    }
    /* inside a chain: each group in, own copy folded in, on */
    tmp = ch4coll_sched_scratch(m->s, ml_len(m, k));
    ml_stream(m, k, x, ch4coll_ref(tmp, 0), prev, m->tag0 + k, 0, NULL, -1, rd);
    for (g = 0; g < x->ng; g++) {
        at = ml_group(m, k, x, g, ch4coll_ref(tmp, 0), &len);
        rd[g] = ch4coll_sched_reduce(m->s, ml_group(m, k, x, g, own, &len), at,
                                     len, 1, &rd[g]);
    }
    m->sent[k] = ml_stream(m, k, x, ch4coll_ref(tmp, 0), next, m->tag0 + k, 1,
                           rd, m->chain[k], NULL);
}

/* A lane this rank serves: the node's copies folded into its partial
 * group by group (w: n + n + 2 ng ints), the lane's circulant reduce,
 * and at the root's node each group on to the root. */
static int ml_reduce_lane(ml_t *m, int k, const ml_split_t *x, int src, int *w)
{
    const ch4coll_args_t *a = m->a;
    int *have = w, *done = w + x->n, *at = w + 2 * x->n, *in = at + x->ng;
    int q = m->q, i, tmp, d[2], rc = CH4COLL_OK;
    ch4coll_ref_t acc = ml_at(m, m->acc, k), r;
    size_t len = ml_len(m, k), gl;
    long b, g;

    d[0] = -1;
    if (acc.buf != src)
        d[0] = ch4coll_sched_copy(m->s, ml_at(m, src, k), acc, len, 0, NULL);
    for (g = 0; g < x->ng; g++)
        at[g] = d[0];
    if (ml_chained(m, k)) { /* the chain's last fold */
        tmp = ch4coll_sched_scratch(m->s, len);
        ml_stream(m, k, x, ch4coll_ref(tmp, 0),
                  ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + q - 1) % q),
                  m->tag0 + k, 0, NULL, -1, in);
        for (g = 0; g < x->ng; g++) {
            int nd = 0;
            d[nd++] = in[g];
            if (at[g] >= 0)
                d[nd++] = at[g];
            r = ml_group(m, k, x, g, ch4coll_ref(tmp, 0), &gl);
            at[g] = ch4coll_sched_reduce(
                m->s, r, ml_group(m, k, x, g, acc, &gl), gl, nd, d);
        }
    } else if (q > 1) {
        tmp = ch4coll_sched_scratch(m->s, (size_t) (q - 1) * len);
        for (i = 1; i < q; i++) {
            ch4coll_ref_t seg =
                ch4coll_ref(tmp, ch4coll_eoff(a, (size_t) (i - 1) * len));
            ml_stream(m, k, x, seg,
                      ch4coll_lanes_rank(&m->g, m->g.node, (m->g.idx + i) % q),
                      m->tag0 + k, 0, NULL, -1, in);
            for (g = 0; g < x->ng; g++) {
                int dd[2], nd = 0;
                dd[nd++] = in[g];
                if (at[g] >= 0)
                    dd[nd++] = at[g];
                r = ml_group(m, k, x, g, seg, &gl);
                at[g] = ch4coll_sched_reduce(
                    m->s, r, ml_group(m, k, x, g, acc, &gl), gl, nd, dd);
            }
        }
    }
    for (b = 0; b < x->n; b++)
        have[b] = done[b] = at[b / x->G];
    if (m->g.nodes > 1) {
        ch4coll_view_t v;
        ch4coll_args_t ia;
        ml_lane_view(m, k, acc, &v);
        ml_inner_args(m, k, &ia);
        ch4coll_sched_push_view(m->s, &v);
        rc = ch4coll_circ_reduce_run(m->s, &ia, x->n, have, done);
        rc = ml_lane_tags(m, k, ch4coll_sched_pop_view(m->s), rc);
    }
    if (rc != CH4COLL_OK || m->g.node != m->root_node || a->rank == a->root)
        return rc;
    for (g = 0; g < x->ng; g++) { /* a group is reduced once its blocks are */
        long b0 = g * x->G, n = x->n - b0 < x->G ? x->n - b0 : x->G;
        int *ds = done + b0;
        at[g] = n == 1 ? ds[0] : ch4coll_sched_sink(m->s, (int) n, ds);
    }
    ml_stream(m, k, x, acc, a->root, m->tag0 + m->g.lanes + k, 1, at, -1, NULL);
    return rc;
}

static int ml_reduce_piece(ml_t *m)
{
    const ch4coll_args_t *a = m->a;
    int src = a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND;
    int k, rc = CH4COLL_OK, *w;

    for (k = 0; k < m->g.lanes && rc == CH4COLL_OK; k++) {
        ml_split_t x;
        if (ml_len(m, k) == 0)
            continue;
        x = ml_split(m, k);
        w = ch4coll_malloc((2 * (size_t) x.n + 2 * (size_t) x.ng) * sizeof *w);
        if (!w)
            return CH4COLL_ERR_NOMEM;
        if (ml_serves(m, k)) {
            rc = ml_reduce_lane(m, k, &x, src, w);
        } else {
            ml_reduce_feed(m, k, &x, src, w);
            if (a->rank == a->root) /* its result from node R's server */
                ml_stream(m, k, &x, ml_at(m, CH4COLL_BUF_RECV, k),
                          ch4coll_lanes_server(&m->g, m->g.node, k),
                          m->tag0 + m->g.lanes + k, 0, w, -1, NULL);
        }
        ch4coll_free(w);
    }
    return rc;
}

/* The tags of pieces 0 .. j - 1 of K (piece j's first tag); -1 if a
 * piece's lanes do not open. */
static int ml_tags_before(const ch4coll_args_t *a, int j, int K, int shared,
                          int lanes)
{
    ml_t m;
    int i, tag = 0;

    for (i = 0; i < j; i++) {
        if (ml_open(&m, NULL, a, i, K, tag, shared, lanes) != CH4COLL_OK)
            return -1;
        tag = m.tag2[m.g.lanes];
        ml_free(&m);
    }
    return tag;
}

static int ml_ntags(const ch4coll_args_t *a, const int64_t *params, int shared)
{
    int K, L, n = -1;

    if (ml_shape(a, params, ml_asked(a, params, shared), &K, &L) == CH4COLL_OK)
        n = ml_tags_before(a, K, K, shared, L);
    return n > 0 ? n : 1;
}

/* allreduce, one piece: step 1, step 2, step 3. */
static int ml_allreduce_piece(ml_t *m)
{
    int rc;

    ml_reduce_in_node(m);
    rc = ml_between_nodes(m);
    if (rc == CH4COLL_OK)
        ml_out_in_node(m);
    return rc;
}

/* Every collective, piece by piece; a piece's step-1 sends follow the
 * piece before's on the same lane, so that its step 2 overlaps the next
 * piece's step 1. */
static int ml_build(ch4coll_sched_t *s, const ch4coll_args_t *a,
                    const int64_t *params, int (*piece)(ml_t *), int shared)
{
    ml_t m;
    int rc, j, k, K, tag = 0, acc, lanes;
    int *chain;

    rc = ml_shape(a, params, ml_asked(a, params, shared), &K, &lanes);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_sched_set_ntags(s, ml_tags_before(a, K, K, shared, lanes));
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
        rc = ml_open(&m, s, a, j, K, tag, shared, lanes);
        if (rc != CH4COLL_OK)
            break;
        m.acc = acc;
        m.chain = chain;
        m.block = a->coll != CH4COLL_ALLREDUCE ? params[1] : 0;
        m.rev = a->coll == CH4COLL_REDUCE;
        rc = piece(&m);
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
    return ml_build(s, a, params, ml_allreduce_piece, 1);
}

int ch4coll_bcast_multi_leader(ch4coll_sched_t *s, const ch4coll_args_t *a,
                               const int64_t *params)
{
    return ml_build(s, a, params, ml_bcast_piece, 1);
}

int ch4coll_reduce_multi_leader(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params)
{
    return ml_build(s, a, params, ml_reduce_piece, 1);
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
    rc = ml_build(s, &v, params, ml_allreduce_piece, 0);
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
    n = ml_ntags(&v, params, 0);
    ch4coll_free((void *) loc.node_of);
    return n;
}

/* Per piece 2 Q tags inside the node, then every lane's step-2 range. */
int ch4coll_ntags_multi_leader(const ch4coll_args_t *a, const int64_t *params)
{
    return ml_ntags(a, params, 1);
}

/* The allreduce's formula of the opening note, for the first piece,
 * plus a period per further piece: the slowest of the three steps.
 * shared: the lanes' step 2 queues at the node's one interface
 * (multi_leader); else every rank has its own ports (group_lanes). */
static double ml_cost(const ch4coll_args_t *a, const int64_t *params,
                      const ch4coll_model_t *m, int shared)
{
    ml_t g;
    ch4coll_args_t ia;
    double s, b, tn, t1, t2 = 0, t3;
    int q, K, lanes;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (ml_shape(a, params, ml_asked(a, params, shared), &K, &lanes) !=
            CH4COLL_OK ||
        ml_open(&g, NULL, a, 0, K, 0, shared, lanes) != CH4COLL_OK)
        return HUGE_VAL;
    q = g.qmax; /* a server takes the segment from every other rank */
    s = (double) ml_len(&g, 0);
    b = ch4coll_nbytes(a, 1) * s;
    tn = m->alpha_node + b * m->beta_node;
    ml_inner_args(&g, 0, &ia);
    if (g.g.nodes > 1 && g.inner[0].al->cost)
        t2 = (shared ? g.g.lanes : 1) *
             g.inner[0].al->cost(&ia, g.inner[0].params, m);
    ml_free(&g);
    t1 = (q - 1) * (tn + b * m->gamma);
    t3 = (q - 1) * tn;
    return t1 + t2 + t3 + (K - 1) * fmax(t1, fmax(t2, t3));
}

double ch4coll_cost_allreduce_multi_leader(const ch4coll_args_t *a,
                                           const int64_t *params,
                                           const ch4coll_model_t *m)
{
    return ml_cost(a, params, m, 1);
}

/* bcast and reduce, per piece, lane 0's groups of gb bytes, t' =
 * alpha_node + gb beta_node.  bcast: the root feeds q_R - 1 servers,
 * (q_R - 1) ng t'; the lanes' circulants on the node's interface one
 * after another, Q T2(N, s) in its n blocks; a server passes each group
 * to q - 1 ranks, (q - 1) ng t'.  reduce, the mirror: a server takes
 * and folds q - 1 copies of each group, (q - 1) ng (t' + gb gamma); the
 * lanes' circulant reduces Q T2(N, s); node R's servers send each group
 * to the root, (q_R - 1) ng t'.  In several groups the three overlap:
 * the first group in, the slowest of the three, the last group out; in
 * one they follow one another.  Further pieces add the slowest each. */
static double ml_block_cost(const ch4coll_args_t *a, const int64_t *params,
                            const ch4coll_model_t *m)
{
    ml_t g;
    ml_split_t x;
    ch4coll_args_t ia;
    int64_t cp[CH4COLL_MAX_PARAMS] = {0};
    double gb, tg, t1, t2 = 0, t3, slow, fold;
    int K, L, qR, Q, red = a->coll == CH4COLL_REDUCE;

    if (a->count == 0 || a->size == 1)
        return 0.0;
    if (ml_shape(a, params, -1, &K, &L) != CH4COLL_OK ||
        ml_open(&g, NULL, a, 0, K, 0, 1, L) != CH4COLL_OK)
        return HUGE_VAL;
    g.block = params[1];
    x = ml_split(&g, 0);
    qR = ch4coll_lanes_size(&g.g, g.root_node);
    gb = ch4coll_nbytes(a, ml_len(&g, 0)) / (double) x.ng;
    tg = m->alpha_node + gb * m->beta_node;
    fold = red ? gb * m->gamma : 0;
    ml_inner_args(&g, 0, &ia);
    cp[0] = x.n;
    if (g.g.nodes > 1)
        t2 = g.g.lanes * (red ? ch4coll_cost_reduce_circulant(&ia, cp, m)
                              : ch4coll_cost_bcast_circulant(&ia, cp, m));
    Q = g.g.lanes;
    ml_free(&g);
    t1 = ((red ? Q : qR) - 1) * x.ng * (tg + fold);
    t3 = ((red ? qR : Q) - 1) * x.ng * tg;
    slow = fmax(t1, fmax(t2, t3));
    if (x.ng > 1) /* the first group in, the last out, where they move */
        return (t1 > 0) * (tg + fold) + slow + (t3 > 0) * tg + (K - 1) * slow;
    return t1 + t2 + t3 + (K - 1) * slow;
}

double ch4coll_cost_bcast_multi_leader(const ch4coll_args_t *a,
                                       const int64_t *params,
                                       const ch4coll_model_t *m)
{
    return ml_block_cost(a, params, m);
}

double ch4coll_cost_reduce_multi_leader(const ch4coll_args_t *a,
                                        const int64_t *params,
                                        const ch4coll_model_t *m)
{
    return ml_block_cost(a, params, m);
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
