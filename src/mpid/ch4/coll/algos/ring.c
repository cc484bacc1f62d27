/*
 * ring.c - ring allgather and allgatherv: one way, both ways, and the
 * neighbour exchange.
 *
 * Source: the ring allgather of Rabenseifner & Adamidis section 3.7 ("each
 * process sends its chunk of the result vector around the ring to the right
 * (rank + 1) until its left neighbour has received it after p - 1 steps"),
 * which Traeff et al. (pipelined-irregular-allgather, section 2) call the
 * linear ring for irregular block sizes.  On nodes whose ranks are not
 * consecutive the ring runs along the ranks sorted by node (NEC MPI/SX
 * section 4.2, Traeff et al. Figure 1).  The name node_ring (allgather)
 * is an alias of this ring (registry.c).
 *
 * Ring order: position x holds rank x, or with a node map whose nodes are
 * not consecutive (args.loc) the x-th rank sorted by (node, rank)
 * (topo/nodes.h).  That ring crosses each node boundary once in each
 * direction, so in every step one rank per node receives from another node
 * and one sends to another node, whatever the placement; the rank-order
 * ring on a cyclic placement crosses on every edge.  Every rank computes
 * the same order from the node map; with consecutive nodes (or none) the
 * two orders are the same.  With the parameters torus_x and torus_y (ring
 * and bidir_ring; 0 = no torus) the nodes sit at the hosts of a torus in
 * their order and the ring follows a cycle of torus neighbours
 * (topo/torus.h, BlueGene/L section 3.1), each node's ranks together;
 * bidir_ring keeps the node order for an odd number of nodes, whose cycle
 * has one two-hop step that both ways round would share a link.
 *
 * Step k = 0..p-2 at position x: send the block of position x - k to
 * position x + 1, receive the block of position x - k - 1 from position
 * x - 1 straight into its rank's place.  The send of step k waits only for
 * the receive of step k - 1; all receives are posted at once.  Step k uses
 * tag k.
 * T = (p-1) alpha + (p-1)/p N beta for N bytes in all (regular blocks).
 * Irregular blocks: every non-empty block j makes p - 1 hops one after
 * another, and each link carries every non-empty block but the one of the
 * rank it leads to, so T = max((p-1) max_j t_j, sum_j t_j - min_j t_j) with
 * t_j = alpha + c_j beta (0 for an empty block), whatever the order; the
 * slowest block's journey usually decides (Traeff et al.'s linear ring).
 * No scratch.  Zero-size blocks are skipped on both sides.  The node order
 * takes p + nodes + 1 ints while building.
 *
 * Worked example, p = 3 at rank 1: step 0 sends block 1 to 2, receives
 * block 0 from 0; step 1 forwards block 0 to 2 and receives block 2.
 * On a node map, p = 5 cyclic on 2 nodes ({0, 2, 4}, {1, 3}): ring
 * 0 2 4 1 3; rank 4 sends block 4, 2, 0, 3 to rank 1 and receives block 2,
 * 0, 3, 1 from rank 2; only 4 -> 1 and 3 -> 0 cross nodes.
 *
 * bidir_ring: the same ring both ways, half of every block each way (the
 * bidirectional ring of issue 24; SMPI's loosely_lr and Open MPI's
 * neighbour exchange use both directions too).  Block j of c_j elements
 * splits at h_j = floor(c_j / 2): elements [0, h_j) travel to the right as
 * above (tags 0..p-2), [h_j, c_j) to the left (position x sends to x - 1
 * the half of position x + k, tags p-1..2p-3), so each step a rank sends
 * one message to each neighbour and receives one from each.  Where a rank
 * has two links to its neighbours (a torus, SimGrid's torus hosts) or a
 * full-duplex link used one way by the ring, each direction carries half:
 * (p-1)(alpha + N/(2p) beta).  On this single-ported model both messages
 * of a step share the rank's port: T = (p-1)(2 alpha + N/p beta), one
 * alpha a step above the ring, which is what the formula says.  Irregular
 * blocks: each direction's journey and busiest link as for the ring, with
 * half-blocks, the two directions' sends adding on one port.  Worked
 * example, p = 3, regular blocks of 5 elements, rank 1: it sends elements
 * 0-1 of block 1 to rank 2 and 2-4 to rank 0 (step 0), then forwards
 * elements 0-1 of block 0 to rank 2 and 2-4 of block 2 to rank 0 (step 1);
 * it receives 0-1 of blocks 0 and 2 from rank 0 and 2-4 of blocks 2 and 0
 * from rank 2.  A block of one element has an empty lower half (h = 0),
 * so it travels only to the left; an empty half is skipped on both sides.
 *
 * neighbor_exchange: Chen et al.'s neighbour exchange (HPC Asia 2005; Open
 * MPI's allgather "neighbor exchange", for even p only there), on the same
 * ring positions, any p.  The positions form m = floor(p/2) groups: 2g and
 * 2g+1, and for odd p the last group is the triple 2m-2, 2m-1, 2m.  Step
 * 0: the members of a group swap their blocks.  Then steps s = 1..m-1
 * alternate: odd s across a group boundary (the low member L_k of group k
 * swaps with the high member of group k-1, the high member H_k with L_k+1),
 * even s inside the group (L_k and H_k swap what they got at step s-1).
 * A group's blocks travel as one message of the sum of their counts, so at
 * s = 2j+1 L_k sends group k+j and
 * receives k-1-j, H_k sends k-j and receives k+1+j, and at s = 2j L_k
 * sends k-j to H_k and receives k+j (indices mod m): every rank gets the
 * m - 1 other groups in m - 1 steps, one message each.  In the triple
 * the ends also pass on to the middle member at the even steps what they
 * got (groups k-1, k-2, .., floor(m/2) of them from L, floor((m-1)/2) from
 * H), which takes one step more when m is even.
 * T = p/2 alpha + (p-1) c beta for even p and regular blocks of c bytes:
 * half the ring's messages, twice the size.  Odd p: step 0 and the
 * triple's even steps are two messages on the ends' port, so the cost
 * function charges them twice, and every step at the largest group
 * (irregular blocks: an upper bound).  SimGrid, torus, p = 16, 2 KiB:
 * 12.3 us, the ring 16.3, Open MPI's neighbour exchange 12.3; p = 17 (the
 * triple): 17.1 us, where SMPI's ompi_neighborexchange falls back to its
 * ring, 43.0.  Tags: step s on tag s (0..m).  A rank whose recvbuf holds
 * a group's blocks back to back (in position order) sends and receives
 * it in place; otherwise (allgatherv's displs are each rank's own, and
 * the node order) the group goes through its slot of a scratch of N
 * bytes, one copy per block in or out: the peers' layouts may differ, so
 * only the message's size is common.  The node order takes p + nodes + 1
 * ints, the groups' slots and arrival vertices 3m + 1 words.
 * Parameter inflight (0-16, default 0): with k > 0 a send also waits for
 * the rank's k-th send before it, so at most k are in flight (1: one step
 * at a time, as Open MPI's sendrecv steps); 0 sends each as soon as its
 * group is here.  Where every route is alike the two are the same, but
 * where some are longer the free sends drift apart and come to share a
 * rank's one port.  SimGrid, fat tree, 128 KiB (the second leaf switch
 * from rank 64 on): p = 64, 369.4 us either way and Open MPI's 369.4;
 * p = 66: 546.2 free, 390.7 with inflight 1, Open MPI's 390.7; p = 96:
 * 632.9, 570.5, 571.2.  On the torus, whose hosts send on several links
 * at once, the free sends win: p = 24, 890 against 1513 us.
 * Worked example, p = 5: groups {0, 1} and {2, 3, 4}.  Step 0: 0 <-> 1;
 * 2, 3, 4 each send their block to the other two.  Step 1 (across): rank
 * 0 swaps with 4 (the ring wraps): 0 sends {0, 1}, gets {2, 3, 4}; 1 swaps
 * with 2 the same way.  Now all but the middle rank 3 are done; step 2
 * (m = 2 is even): 2 sends {0, 1} to 3.
 */
#include "algo.h"

#include "cycle.h"

/* Rank at ring position x (mod p); order NULL: rank x. */
static int rank_at(const int *order, int x, int p)
{
    x = (x % p + p) % p;
    return order ? order[x] : x;
}

/* The ring order (cycle.h, the node order for nodes that are not
 * consecutive), or NULL for rank order; freed by the caller.  torus: the
 * parameters torus_x and torus_y, NULL for none; both: the ring runs both
 * ways.  *x: this rank's position. */
static int ring_order(const ch4coll_args_t *a, const int64_t *torus, int both,
                      int **order, int *x)
{
    ch4coll_cycle_t c;
    int rc = ch4coll_cycle_open(&c, a, torus, both, 1);

    *order = c.order;
    *x = c.x;
    return rc;
}

/* Step k on tag k. */
int ch4coll_ntags_allgather_ring(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return a->size > 1 ? a->size - 1 : 1;
}

/* The part of block j a stream carries: WHOLE, or the lower (LO) or the
 * upper (HI) half, split at floor(c_j / 2). */
enum { WHOLE, LO, HI };

static size_t part_first(const ch4coll_args_t *a, int j, int part)
{
    return part == HI ? ch4coll_blk_count(a, j) / 2 : 0;
}

static size_t part_count(const ch4coll_args_t *a, int j, int part)
{
    size_t c = ch4coll_blk_count(a, j);
    return part == WHOLE ? c : part == LO ? c / 2 : c - c / 2;
}

/* One stream around the ring in direction dir (+1: to the right): part of
 * every block, p - 1 steps on tags tag0.. */
static void ring_stream(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int *order, int x, int dir, int part, int tag0)
{
    int p = a->size, k, prev = -1, d[1];
    int to = rank_at(order, x + dir, p), from = rank_at(order, x - dir, p);

    for (k = 0; k < p - 1; k++) {
        int sblk = rank_at(order, x - dir * k, p),
            rblk = rank_at(order, x - dir * (k + 1), p);
        size_t sn = part_count(a, sblk, part), rn = part_count(a, rblk, part);
        if (sn > 0) {
            size_t at = part_first(a, sblk, part);
            ch4coll_ref_t src =
                k == 0 && !a->inplace
                    ? ch4coll_ref(CH4COLL_BUF_SEND, ch4coll_eoff(a, at))
                    : ch4coll_ref(
                          CH4COLL_BUF_RECV,
                          ch4coll_eoff(a, ch4coll_blk_displ(a, sblk) + at));
            ch4coll_sched_send(s, src, sn, to, tag0 + k, ch4coll_dep1(prev, d),
                               d);
        }
        prev = -1;
        if (rn > 0)
            prev = ch4coll_sched_recv(
                s,
                ch4coll_ref(CH4COLL_BUF_RECV,
                            ch4coll_eoff(a, ch4coll_blk_displ(a, rblk) +
                                                part_first(a, rblk, part))),
                rn, from, tag0 + k, 0, NULL);
    }
}

/* The ring one way (both = 0) or both ways, half of every block each. */
static int allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                          const int64_t *params, int both)
{
    int p = a->size, x, *order, rc;

    rc = ring_order(a, params, both, &order, &x);
    if (rc != CH4COLL_OK)
        return rc;
    ch4coll_copy_own_block(s, a);
    ring_stream(s, a, order, x, +1, both ? LO : WHOLE, 0);
    if (both)
        ring_stream(s, a, order, x, -1, HI, p - 1);
    ch4coll_free(order);
    return CH4COLL_OK;
}

int ch4coll_allgather_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                           const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a, params, 0);
}

int ch4coll_allgatherv_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_allgather_ring(a, params));
    return allgather_ring(s, a, params, 0);
}

/* Both streams: tags 0..2p-3. */
int ch4coll_ntags_bidir_ring(const ch4coll_args_t *a, const int64_t *params)
{
    (void) params;
    return a->size > 1 ? 2 * (a->size - 1) : 1;
}

int ch4coll_allgather_bidir_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_bidir_ring(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ring(s, a, params, 1);
}

int ch4coll_allgatherv_bidir_ring(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_bidir_ring(a, params));
    return allgather_ring(s, a, params, 1);
}

/* ------------------------------------------------------------------- cost */

double ch4coll_cost_allgather_ring(const ch4coll_args_t *a,
                                   const int64_t *params,
                                   const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    return (a->size - 1) * ch4coll_model_msg(m, (double) a->count);
}

/* Every non-empty block makes p - 1 hops one after another, and each link
 * carries every non-empty block but the one of the rank it leads to: the
 * larger of the slowest block's journey and the busiest link (the same in
 * rank order and in node order). */
static double stream_cost(const ch4coll_args_t *a, const ch4coll_model_t *m,
                          int part)
{
    int p = a->size, j;
    double all = 0, journey = 0, link = 0, least = -1;

    if (p == 1)
        return 0.0;
    for (j = 0; j < p; j++) {
        size_t c = part_count(a, j, part);
        double t = ch4coll_model_block(m, ch4coll_nbytes(a, c));
        all += t;
        if ((p - 1) * t > journey)
            journey = (p - 1) * t;
        if (least < 0 || t < least)
            least = t;
    }
    link = all - least;
    return journey > link ? journey : link;
}

double ch4coll_cost_allgatherv_ring(const ch4coll_args_t *a,
                                    const int64_t *params,
                                    const ch4coll_model_t *m)
{
    (void) params;
    return stream_cost(a, m, WHOLE);
}

/* The two streams' sends share each rank's port on this model: their
 * costs add (exactly so for regular blocks: (p-1)(2 alpha + c beta)). */
double ch4coll_cost_allgather_bidir_ring(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0)
        return 0.0;
    return stream_cost(a, m, LO) + stream_cost(a, m, HI);
}

double ch4coll_cost_allgatherv_bidir_ring(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    (void) params;
    return stream_cost(a, m, LO) + stream_cost(a, m, HI);
}

/* ------------------------------------------------------ neighbor_exchange */

#define NE_INFLIGHT_MAX 16 /* the inflight parameter's largest value */

/* The groups of ring positions: m = floor(p/2) of them, group g holding
 * positions 2g and 2g+1, the last one 2m-2, 2m-1 and 2m when p is odd (a
 * triple).  Group indices are taken mod m. */
typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    const int *order;
    int p, m, triple;
    int *have;    /* per group: the vertex after which its blocks are here */
    int *staged;  /* per group: in its slot of the scratch (1), packed (2) */
    size_t *slot; /* per group: its offset in the scratch; slot[m]: size */
    int scratch;  /* buffer id, -1 until first used */
    int inflight; /* parameter: sends in flight at once (0: no limit) */
    int nsent;    /* sends so far */
    int sent[NE_INFLIGHT_MAX]; /* the last inflight of them, cyclically */
} ne_t;

/* A send of len elements at `at` to peer on tag after dep (-1: none) and,
 * with an inflight limit k, after the rank's k-th send before it. */
static void ne_send(ne_t *n, ch4coll_ref_t at, size_t len, int peer, int tag,
                    int dep)
{
    int d[2], nd = 0, v;

    if (dep >= 0)
        d[nd++] = dep;
    if (n->inflight > 0 && n->nsent >= n->inflight &&
        n->sent[n->nsent % n->inflight] >= 0) /* < 0: a build error */
        d[nd++] = n->sent[n->nsent % n->inflight];
    v = ch4coll_sched_send(n->s, at, len, peer, tag, nd, d);
    if (n->inflight > 0)
        n->sent[n->nsent % n->inflight] = v;
    n->nsent++;
}

static int ne_mod(const ne_t *n, int g)
{
    return (g % n->m + n->m) % n->m;
}

static int ne_lo(int g)
{
    return 2 * g;
}

static int ne_hi(const ne_t *n, int g)
{
    return n->triple && g == n->m - 1 ? 2 * g + 2 : 2 * g + 1;
}

/* Where group g's non-empty blocks start in this rank's recvbuf when they
 * lie there back to back in position order, else -1 (allgatherv's displs
 * are this rank's own: the peer's may differ, so a group is always one
 * message of the sum of its counts, staged on the side that needs it). */
static long ne_direct(const ne_t *n, int g)
{
    const ch4coll_args_t *a = n->a;
    int q;
    size_t end = 0;
    long first = -1;

    for (q = ne_lo(g); q <= ne_hi(n, g); q++) {
        int r = rank_at(n->order, q, n->p);
        if (ch4coll_blk_count(a, r) == 0)
            continue;
        if (first >= 0 && ch4coll_blk_displ(a, r) != end)
            return -1;
        if (first < 0)
            first = (long) ch4coll_blk_displ(a, r);
        end = ch4coll_blk_displ(a, r) + ch4coll_blk_count(a, r);
    }
    return first;
}

static ch4coll_ref_t ne_slot(ne_t *n, int g)
{
    if (n->scratch < 0)
        n->scratch = ch4coll_sched_scratch(n->s, n->slot[n->m]);
    return ch4coll_ref(n->scratch, ch4coll_eoff(n->a, n->slot[g]));
}

/* Copy group g's blocks between recvbuf and its slot (out: slot to
 * recvbuf), each after dep; returns the vertex completing them. */
static int ne_stage(ne_t *n, int g, int out, int dep)
{
    const ch4coll_args_t *a = n->a;
    int q, ids[3], nid = 0, d[1];
    size_t at = n->slot[g];

    for (q = ne_lo(g); q <= ne_hi(n, g); q++) {
        int r = rank_at(n->order, q, n->p);
        size_t c = ch4coll_blk_count(a, r);
        ch4coll_ref_t user = ch4coll_ref(
            CH4COLL_BUF_RECV, ch4coll_eoff(a, ch4coll_blk_displ(a, r)));
        ch4coll_ref_t mine = ch4coll_ref(n->scratch, ch4coll_eoff(a, at));
        if (c == 0)
            continue;
        ids[nid++] =
            ch4coll_sched_copy(n->s, out ? mine : user, out ? user : mine, c,
                               ch4coll_dep1(dep, d), d);
        at += c;
    }
    return nid == 1 ? ids[0] : ch4coll_sched_sink(n->s, nid, ids);
}

/* Group g (taken mod m): the length of its message (0: nothing moves)
 * and whether this rank's recvbuf holds it back to back, at *at. */
static size_t ne_msg(ne_t *n, int *g, int *in_place, ch4coll_ref_t *at)
{
    long off;

    *g = ne_mod(n, *g);
    off = ne_direct(n, *g);
    *in_place = off >= 0;
    if (off >= 0)
        *at = ch4coll_ref(CH4COLL_BUF_RECV, ch4coll_eoff(n->a, (size_t) off));
    return n->slot[*g + 1] - n->slot[*g];
}

/* Receive group g from peer on tag (into place, or into its slot and then
 * into place) and note its arrival. */
static void ne_get(ne_t *n, int g, int peer, int tag)
{
    ch4coll_ref_t at;
    int in_place, v;
    size_t len = ne_msg(n, &g, &in_place, &at);

    if (len == 0)
        return;
    if (in_place) {
        n->have[g] = ch4coll_sched_recv(n->s, at, len, peer, tag, 0, NULL);
        return;
    }
    v = ch4coll_sched_recv(n->s, ne_slot(n, g), len, peer, tag, 0, NULL);
    n->staged[g] = 1;
    n->have[g] = ne_stage(n, g, 1, v);
}

/* Send group g to peer on tag once it is here: from recvbuf, or from its
 * slot (packed there first if it arrived in place or is this rank's). */
static void ne_put(ne_t *n, int g, int peer, int tag)
{
    ch4coll_ref_t at;
    int in_place;
    size_t len = ne_msg(n, &g, &in_place, &at);

    if (len == 0)
        return;
    if (!in_place) {
        at = ne_slot(n, g);
        if (!n->staged[g]) {
            n->have[g] = ne_stage(n, g, 0, n->have[g]);
            n->staged[g] = 2;
        }
    }
    ne_send(n, at, len, peer, tag, n->have[g]);
}

/* Step 0: the own block to the other members of the group, theirs from
 * them; the own block is copied into place too. */
static void ne_first(ne_t *n, int x, int k)
{
    const ch4coll_args_t *a = n->a;
    int y, ids[5], nid = 0, me = a->rank, v;
    size_t own = ch4coll_blk_count(a, me);
    ch4coll_ref_t src =
        a->inplace ? ch4coll_ref(CH4COLL_BUF_RECV,
                                 ch4coll_eoff(a, ch4coll_blk_displ(a, me)))
                   : ch4coll_ref(CH4COLL_BUF_SEND, 0);

    if (!a->inplace && own > 0)
        ids[nid++] = ch4coll_sched_copy(
            n->s, src,
            ch4coll_ref(CH4COLL_BUF_RECV,
                        ch4coll_eoff(a, ch4coll_blk_displ(a, me))),
            own, 0, NULL);
    for (y = ne_lo(k); y <= ne_hi(n, k); y++) {
        int r = rank_at(n->order, y, n->p);
        if (y == x)
            continue;
        if (own > 0)
            ne_send(n, src, own, r, 0, -1);
        if (ch4coll_blk_count(a, r) > 0) {
            v = ch4coll_sched_recv(
                n->s,
                ch4coll_ref(CH4COLL_BUF_RECV,
                            ch4coll_eoff(a, ch4coll_blk_displ(a, r))),
                ch4coll_blk_count(a, r), r, 0, 0, NULL);
            ids[nid++] = v;
        }
    }
    n->have[k] = nid == 0   ? -1
                 : nid == 1 ? ids[0]
                            : ch4coll_sched_sink(n->s, nid, ids);
}

/* Tags 0..floor(p/2): one per step, the odd-p triple's last one included. */
int ch4coll_ntags_neighbor_exchange(const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) params;
    return a->size / 2 + 1;
}

/* Steps 1..: odd ones across a group boundary, even ones inside a group
 * (and, in the triple, from its ends to its middle). */
static void ne_steps(ne_t *n, int x, int k)
{
    int m = n->m, lo = ne_lo(k), hi = ne_hi(n, k), s, j;
    int left = rank_at(n->order, lo - 1, n->p),
        right = rank_at(n->order, hi + 1, n->p);
    int rlo = rank_at(n->order, lo, n->p), rhi = rank_at(n->order, hi, n->p);
    int tri = n->triple && k == m - 1,
        mid = tri ? rank_at(n->order, lo + 1, n->p) : -1;
    int to_mid_lo = m / 2, to_mid_hi = (m - 1) / 2; /* groups the middle gets */
    int last = tri && m % 2 == 0 ? m : m - 1;       /* its extra step */

    for (s = 1; s <= last; s++) {
        int across = s % 2;
        j = across ? (s - 1) / 2 : s / 2;
        if (s >= m) { /* the triple's extra step: low end to the middle */
            if (x == lo)
                ne_put(n, k - j, mid, s);
            else if (x == lo + 1)
                ne_get(n, k - j, rlo, s);
            continue;
        }
        if (across && x == lo) {
            ne_put(n, k + j, left, s);
            ne_get(n, k - 1 - j, left, s);
        } else if (across && x == hi) {
            ne_put(n, k - j, right, s);
            ne_get(n, k + 1 + j, right, s);
        } else if (!across && x == lo) {
            ne_put(n, k - j, rhi, s);
            if (tri && j <= to_mid_lo)
                ne_put(n, k - j, mid, s);
            ne_get(n, k + j, rhi, s);
        } else if (!across && x == hi) {
            ne_put(n, k + j, rlo, s);
            if (tri && j <= to_mid_hi)
                ne_put(n, k + j, mid, s);
            ne_get(n, k - j, rlo, s);
        } else if (!across) { /* the triple's middle */
            if (j <= to_mid_lo)
                ne_get(n, k - j, rlo, s);
            if (j <= to_mid_hi)
                ne_get(n, k + j, rhi, s);
        }
    }
}

static int allgather_ne(ch4coll_sched_t *s, const ch4coll_args_t *a,
                        const int64_t *params)
{
    int p = a->size, x, rc = CH4COLL_OK, k, g, q, *order;
    ne_t n = {s,    a,    NULL, p,  p / 2,           p % 2,
              NULL, NULL, NULL, -1, (int) params[0], 0,
              {0}};

    if (p == 1) {
        ch4coll_copy_own_block(s, a);
        return CH4COLL_OK;
    }
    rc = ring_order(a, NULL, 0, &order, &x);
    if (rc != CH4COLL_OK)
        return rc;
    n.order = order;
    n.slot = ch4coll_malloc((size_t) (n.m + 1) * sizeof *n.slot +
                            2 * (size_t) n.m * sizeof(int));
    if (n.slot) {
        n.have = (int *) (n.slot + n.m + 1);
        n.staged = n.have + n.m;
        n.slot[0] = 0;
        for (g = 0; g < n.m; g++) {
            n.have[g] = -1;
            n.staged[g] = 0;
            n.slot[g + 1] = n.slot[g];
            for (q = ne_lo(g); q <= ne_hi(&n, g); q++)
                n.slot[g + 1] += ch4coll_blk_count(a, rank_at(order, q, p));
        }
        k = x / 2 < n.m ? x / 2 : n.m - 1;
        ne_first(&n, x, k);
        ne_steps(&n, x, k);
    } else {
        rc = CH4COLL_ERR_NOMEM;
    }
    ch4coll_free(n.slot);
    ch4coll_free(order);
    return rc;
}

int ch4coll_allgather_neighbor_exchange(ch4coll_sched_t *s,
                                        const ch4coll_args_t *a,
                                        const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_neighbor_exchange(a, params));
    if (a->count == 0)
        return CH4COLL_OK;
    return allgather_ne(s, a, params);
}

int ch4coll_allgatherv_neighbor_exchange(ch4coll_sched_t *s,
                                         const ch4coll_args_t *a,
                                         const int64_t *params)
{
    ch4coll_sched_set_ntags(s, ch4coll_ntags_neighbor_exchange(a, params));
    return allgather_ne(s, a, params);
}

/* Step 0 (in the triple every rank sends and receives two blocks), then
 * every later step at the largest group (rank order), twice where the
 * triple's ends also feed its middle: an upper bound for irregular
 * blocks, exact for regular ones and even p: p/2 alpha + (p-1) c beta. */
static double ne_cost(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    int p = a->size, mg = p / 2, tri = p % 2, g, q, s, j, last;
    double big = 0, own = 0, t;

    if (p == 1)
        return 0.0;
    for (g = 0; g < mg; g++) {
        double b = 0;
        for (q = 2 * g; q <= (tri && g == mg - 1 ? 2 * g + 2 : 2 * g + 1);
             q++) {
            double c = ch4coll_nbytes(a, ch4coll_blk_count(a, q));
            b += c;
            own = c > own ? c : own;
        }
        big = b > big ? b : big;
    }
    t = (tri ? 2 : 1) * ch4coll_model_block(m, own);
    last = tri && mg % 2 == 0 ? mg : mg - 1;
    for (s = 1; s <= last; s++) {
        j = s / 2;
        t += (tri && s % 2 == 0 && s < mg && j <= mg / 2 ? 2 : 1) *
             ch4coll_model_block(m, big);
    }
    return t;
}

double ch4coll_cost_allgather_neighbor_exchange(const ch4coll_args_t *a,
                                                const int64_t *params,
                                                const ch4coll_model_t *m)
{
    (void) params;
    if (a->count == 0)
        return 0.0;
    return ne_cost(a, m);
}

double ch4coll_cost_allgatherv_neighbor_exchange(const ch4coll_args_t *a,
                                                 const int64_t *params,
                                                 const ch4coll_model_t *m)
{
    (void) params;
    return ne_cost(a, m);
}
