/*
 * pipelined_ring.c - pipelined (blocked) ring allgatherv for large,
 * irregular contributions.
 *
 * Source: Traeff et al., pipelined irregular allgather, sections 2.2-2.4.
 * The linear ring (ring.c) moves one whole contribution per step, so the
 * largest sets its time, (p-1) m_max beta.  Here contribution m_i is cut
 * into b_i = ceil(m_i / B) blocks of at most B bytes and rank i plays a
 * "virtual node" of b_i ring processes (2.2): it sends its own blocks, then
 * forwards every block it receives in arrival order, so a regular ring of
 * blocks runs in b - min(b_i) rounds (eq. 1), b = sum b_i.
 *
 * Steps (every rank computes the same from the counts and the parameter):
 *   1. Block size B: the parameter, or if 0 the paper's choice (2.4): B =
 *      m' when all m_i = m' (the linear ring), else eq. (2) with alpha and
 *      beta of the call's model (ch4coll_auto_model:
 * MPIR_CVAR_CH4COLL_MACHINE's or the default), B = sqrt(m alpha / beta / ((p -
 * z)/2 - 1 + floor(z / (p - z)))), z = ranks with 0 bytes, m = sum m_i (the
 * paper prints (p + z)/2; its own round count gives (p - z)/2).  B is clamped
 * to [1, max m_i] and raised to give at most 2^20 blocks.
 *   2. Ring order (2.3): the q = p - z ranks with data take positions
 *      floor(k p / q), k < q, in rank order, the empty ranks the others,
 *      so floor(z/q) or ceil(z/q) empty ranks sit between two with data.
 *      On several nodes (args.loc) each node's ranks stay together, nodes
 *      in order (2.3, Figure 1: one rank per node receives from and one
 *      sends to another node each round): nodes with data are spread among
 *      those without by the same rule, and a node's q_j ranks with data
 *      take slots n_j - 1 - floor(k n_j / q_j) of its n_j, mirrored, so
 *      that its last rank, which sends to the next node, has data.
 *   3. Ring: the link into a rank carries every nonempty block but its own,
 *      owner by owner backwards round the ring from its left neighbour.  A
 *      rank sends its own blocks first, then forwards what it receives but
 *      its right neighbour's.  Blocks land in place; empty ones are never
 *      sent.  Message k on a link uses tag k mod 2; two in flight per link.
 *
 * Cost: message k on the link out of position x starts when message k-1
 * there has ended and its block has arrived; the time is the longest chain.
 * With C_x = b_x alpha + m_x beta and tau = alpha + min(B, m_max) beta,
 *   T = sum_x C_x + max over runs I of at most p - 2 consecutive positions
 *       and the position e just after I of (|I| tau - sum_{x in I} C_x - C_e)
 * (one pass, a maximum subarray).  When B divides every m_i and b_i > z'
 * for every rank with data, T = (b - z - 1 + z')(alpha + B beta), z' =
 * floor(z / q) (2.3); regular blocks give the linear ring, (p-1)(alpha +
 * m' beta), z = p - 1 the linear pipeline, (b_0 + p - 2)(alpha + B beta).
 * The cost is that of the ring in use, on the model without node links.
 * Scratch: none; building takes p + 3 nodes + 1 ints and nodes sizes.
 * Restrictions: none (any p, counts, displacements, placement, in place).
 * Parameter block (bytes, default 0 = automatic, 0..2^40).
 *
 * Worked example, p = 5, B = 2, m = (5, 0, 0, 2, 0) bytes: q = 2; ranks 0
 * and 3 take positions 0 and 2: ring 0 -> 1 -> 3 -> 2 -> 4 -> 0.  Rank 0
 * has blocks a0 a1 a2 (2, 2, 1 bytes), rank 3 d0.  Links: 0->1 a0 a1 a2 d0;
 * 1->3 a0 a1 a2; 3->2 d0 a0 a1 a2; 2->4 d0 a0 a1 a2; 4->0 d0.  a2 leaves 0
 * in round 3 and reaches 4 in round 6 = b - min b_i = 7 - 1.  On nodes of 2,
 * p = 6 cyclic ({0, 3}, {1, 4}, {2, 5}), m = (2c, 0, 2c, 0, 2c, 0): every
 * node has data, so nodes keep their order and each one's rank with data
 * goes last: ring 3 0 1 4 5 2, crossing nodes at 0 -> 1, 4 -> 5 and 2 -> 3,
 * each sender with data; the flat spread 0 1 2 3 4 5 crosses every edge.
 */
#include "algo.h"

#include <math.h>

#include "../topo/nodes.h"

/* Most blocks in all; a smaller block size is raised to fit. */
#define MAX_BLOCKS ((size_t) 1 << 20)
/* Messages in flight per link and direction; also the number of tags. */
#define WINDOW 2

static size_t nblocks(size_t m, size_t B)
{
    return m == 0 ? 0 : 1 + (m - 1) / B;
}

/* Block size of the call (step 1) on model md, the same on every rank. */
static size_t block_size(const ch4coll_model_t *md, const size_t *counts, int p,
                         int64_t param)
{
    size_t m = 0, mmax = 0, mmin = SIZE_MAX, B, nb = 0;
    int i, q = 0, z;

    for (i = 0; i < p; i++) {
        m += counts[i];
        mmax = counts[i] > mmax ? counts[i] : mmax;
        mmin = counts[i] < mmin ? counts[i] : mmin;
        q += counts[i] > 0;
    }
    if (q == 0)
        return 1;
    z = p - q;
    if (param > 0) {
        B = (size_t) param;
    } else if (mmin == mmax) {
        B = mmax; /* regular: the linear ring */
    } else {
        double den = (double) q / 2 - 1 + (double) (z / q);
        B = den > 0 ? (size_t) sqrt((double) m * md->alpha / md->beta / den)
                    : mmax;
    }
    if (B < 1)
        B = 1;
    if (B > mmax)
        B = mmax;
    for (i = 0; i < p; i++)
        nb += nblocks(counts[i], B);
    if (nb > MAX_BLOCKS) { /* sum ceil(m_i/B) <= m/B + q <= MAX_BLOCKS */
        size_t lo = (size_t) q < MAX_BLOCKS / 2
                        ? (m + MAX_BLOCKS / 2 - 1) / (MAX_BLOCKS / 2)
                        : mmax;
        B = lo > B ? lo : B;
    }
    return B;
}

/*
 * Ring order (step 2).  Slot t of n holds data when it is floor(k n / q)
 * for some k < q (q of the n items have data); k is then ceil(t q / n).
 */
static int data_slot(int t, int n, int q)
{
    int64_t k = ((int64_t) t * q + n - 1) / n;

    return k < q && k * n / q == t;
}

/* Spread items[0..n) over out[0..n): those with size[item] > 0 take the
 * data slots (counted from the end if mirror), the others the rest; each
 * kind keeps its order. */
static void spread(const size_t *size, const int *items, int n, int mirror,
                   int *out)
{
    int t, q = 0, full = 0, empty = 0;

    for (t = 0; t < n; t++)
        q += size[items[t]] > 0;
    for (t = 0; t < n; t++) {
        if (data_slot(mirror ? n - 1 - t : t, n, q)) {
            while (size[items[full]] == 0)
                full++;
            out[t] = items[full++];
        } else {
            while (size[items[empty]] > 0)
                empty++;
            out[t] = items[empty++];
        }
    }
}

/* On several nodes: the nodes spread as a whole, each node's ranks spread
 * mirrored inside it (the opening note, step 2).  Node order first rather
 * than the flat spread: the flat spread puts ranks of different nodes next
 * to each other (on consecutive nodes too, as soon as some rank is empty),
 * so several ranks of a node would send over its network link in one
 * round, a bandwidth loss on every round for large data; the zero spread
 * only saves z' rounds of latency, and the two-level spread keeps most of
 * that (gaps of about z_j / q_j inside a node, whole empty nodes between
 * nodes with data).  Without empty ranks each node keeps its ranks in rank
 * order, so on consecutive nodes the ring is 0, 1, ..., p-1 as without a
 * node map; with empty ranks on consecutive nodes it differs from the flat
 * spread on purpose.  On one node the flat spread is used. */
static void node_spread(const ch4coll_args_t *a, int *order, int *work,
                        size_t *has)
{
    const ch4coll_locality_t *loc = a->loc;
    int p = a->size, nodes = loc->nodes, i, j, x = 0;
    int *byrank = work, *first = work + p, *ids = first + nodes + 1;
    int *seq = ids + nodes;

    ch4coll_node_order(p, loc->node_of, nodes, byrank, first);
    for (j = 0; j < nodes; j++) {
        ids[j] = j;
        has[j] = 0;
        for (i = first[j]; i < first[j + 1]; i++)
            has[j] += a->counts[byrank[i]] > 0;
    }
    spread(has, ids, nodes, 0, seq);
    for (i = 0; i < nodes; i++) {
        j = seq[i];
        spread(a->counts, byrank + first[j], first[j + 1] - first[j], 1,
               order + x);
        x += first[j + 1] - first[j];
    }
}

/* The ring order into order[p] (position -> rank), the same on every
 * rank: the flat spread, or on several nodes the node spread. */
static int ring_order(const ch4coll_args_t *a, int *order)
{
    int p = a->size, i, nodes = a->loc ? a->loc->nodes : 1;
    int *work =
        ch4coll_malloc(((size_t) p + 3 * (size_t) nodes + 1) * sizeof *work);
    size_t *has = ch4coll_malloc((size_t) nodes * sizeof *has);
    int rc = CH4COLL_ERR_NOMEM;

    if (!work || !has)
        goto free_work;
    if (nodes > 1) {
        node_spread(a, order, work, has);
    } else {
        for (i = 0; i < p; i++)
            work[i] = i;
        spread(a->counts, work, p, 0, order);
    }
    rc = CH4COLL_OK;
free_work:
    ch4coll_free(has);
    ch4coll_free(work);
    return rc;
}

/* The nonempty blocks arriving at one rank, in link order. */
typedef struct {
    const ch4coll_args_t *a;
    const int *order; /* position -> rank */
    int x;            /* the receiving rank's position */
    int d;            /* distance back to the current owner */
    size_t c;         /* block of that owner */
    size_t B;
} blocks_t;

static int owner(const blocks_t *it)
{
    int p = it->a->size;
    return it->order[((it->x - it->d) % p + p) % p];
}

/* Move to the next nonempty block (from block c of owner d on). */
static void settle(blocks_t *it)
{
    while (it->d < it->a->size &&
           it->c >= nblocks(it->a->counts[owner(it)], it->B)) {
        it->d++;
        it->c = 0;
    }
}

static void blocks_init(blocks_t *it, const ch4coll_args_t *a, const int *order,
                        int x, size_t B)
{
    it->a = a;
    it->order = order;
    it->x = x;
    it->d = 1;
    it->c = 0;
    it->B = B;
    settle(it);
}

/* The current block as a place in the receive buffer; then advance. */
static ch4coll_ref_t blocks_next(blocks_t *it, size_t *len)
{
    int o = owner(it);
    size_t off = it->c * it->B, m = it->a->counts[o];

    *len = m - off < it->B ? m - off : it->B;
    it->c++;
    settle(it);
    return ch4coll_ref(CH4COLL_BUF_RECV, it->a->displs[o] + off);
}

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    int left, right;
    size_t B, nown; /* block size, my blocks */
    size_t nin;     /* blocks I receive */
    size_t nout;    /* blocks I send */
    int *got;       /* receive vertex of incoming block j */
    int sent[WINDOW];
} ring_t;

/* Message k of the link from the left: block j = k of the incoming list. */
static void recv_block(ring_t *g, blocks_t *in, size_t k)
{
    size_t len;
    ch4coll_ref_t at = blocks_next(in, &len);
    int d[1], nd = ch4coll_dep1(k >= WINDOW ? g->got[k - WINDOW] : -1, d);

    g->got[k] =
        ch4coll_sched_recv(g->s, at, len, g->left, (int) (k % WINDOW), nd, d);
}

/* Message k of the link to the right: my block k, or incoming block
 * k - nown once it has arrived. */
static void send_block(ring_t *g, blocks_t *fwd, size_t k)
{
    const ch4coll_args_t *a = g->a;
    ch4coll_ref_t at;
    size_t len;
    int d[2];

    if (k < g->nown) {
        size_t off = k * g->B, m = a->counts[a->rank];
        len = m - off < g->B ? m - off : g->B;
        at = a->inplace
                 ? ch4coll_ref(CH4COLL_BUF_RECV, a->displs[a->rank] + off)
                 : ch4coll_ref(CH4COLL_BUF_SEND, off);
        d[0] = -1;
    } else {
        at = blocks_next(fwd, &len);
        d[0] = g->got[k - g->nown];
    }
    d[1] = g->sent[k % WINDOW];
    g->sent[k % WINDOW] =
        ch4coll_sched_send(g->s, at, len, g->right, (int) (k % WINDOW), 2, d);
}

static void run_ring(ring_t *g, const int *order, int x)
{
    blocks_t in, fwd;
    size_t k, n = g->nin > g->nout ? g->nin : g->nout;

    blocks_init(&in, g->a, order, x, g->B);
    blocks_init(&fwd, g->a, order, x, g->B);
    for (k = 0; k < n; k++) {
        if (k < g->nin)
            recv_block(g, &in, k);
        if (k < g->nout)
            send_block(g, &fwd, k);
    }
}

/* Piece c on tag c mod WINDOW.  Receive k waits for receive k-2 and send k
 * for send k-2, so at most two receives and two sends are in flight and
 * messages with one tag are issued in order on both sides. */
int ch4coll_ntags_allgatherv_pipelined_ring(const ch4coll_args_t *a,
                                            const int64_t *params)
{
    (void) a;
    (void) params;
    return WINDOW;
}

int ch4coll_allgatherv_pipelined_ring(ch4coll_sched_t *s,
                                      const ch4coll_args_t *a,
                                      const int64_t *params)
{
    int p = a->size, rank = a->rank, pos, x = 0, *order;
    size_t own = a->counts[rank], all = 0;
    ring_t g;

    ch4coll_sched_set_ntags(s,
                            ch4coll_ntags_allgatherv_pipelined_ring(a, params));
    if (!a->inplace && own > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, a->displs[rank]), own,
                           0, NULL);
    if (p == 1)
        return CH4COLL_OK;
    order = ch4coll_malloc((size_t) p * sizeof *order);
    if (!order || ring_order(a, order) != CH4COLL_OK) {
        ch4coll_free(order);
        return CH4COLL_ERR_NOMEM;
    }
    for (pos = 0; pos < p; pos++)
        x = order[pos] == rank ? pos : x;
    g.s = s;
    g.a = a;
    g.left = order[(x - 1 + p) % p];
    g.right = order[(x + 1) % p];
    g.B = block_size(ch4coll_auto_model(a), a->counts, p, params[0]);
    for (pos = 0; pos < p; pos++)
        all += nblocks(a->counts[pos], g.B);
    g.nown = nblocks(own, g.B);
    g.nin = all - g.nown;
    g.nout = all - nblocks(a->counts[g.right], g.B);
    g.sent[0] = g.sent[1] = -1;
    g.got = ch4coll_malloc((g.nin ? g.nin : 1) * sizeof *g.got);
    if (!g.got) {
        ch4coll_free(order);
        return CH4COLL_ERR_NOMEM;
    }
    run_ring(&g, order, x);
    ch4coll_free(g.got);
    ch4coll_free(order);
    return CH4COLL_OK;
}

/*
 * The longest chain (see the opening note).  Over positions x = 0..p-1
 * with w_x = tau - C_x and P[t] = w_0 + ... + w_{t-1}, a run I ending just
 * before e either lies inside [0, e), I = [t, e) (t >= 1 when e = p - 1,
 * so that |I| <= p - 2), or wraps, I = [t, p) + [0, e) with t >= e + 2:
 *   inside: P[e] - P[t] - C_e,   wrapping: P[p] - P[t] + P[e] - C_e.
 * One forward pass keeps min P[t] for the first and, two positions behind,
 * max (P[e] - C_e) for the second.
 */
double ch4coll_cost_allgatherv_pipelined_ring(const ch4coll_args_t *a,
                                              const int64_t *params,
                                              const ch4coll_model_t *m)
{
    int p = a->size, x, *order;
    size_t B, mmax = 0;
    double tau, call = 0, P = 0, best, min0 = 0, min1 = INFINITY;
    double ends = -INFINITY, e1 = -INFINITY, e2 = -INFINITY, wrap = -INFINITY;

    for (x = 0; x < p; x++)
        mmax = a->counts[x] > mmax ? a->counts[x] : mmax;
    if (p <= 1 || mmax == 0)
        return 0;
    order = ch4coll_malloc((size_t) p * sizeof *order);
    if (!order || ring_order(a, order) != CH4COLL_OK) {
        ch4coll_free(order);
        return INFINITY; /* no estimate without memory */
    }
    B = block_size(ch4coll_auto_model(a), a->counts, p, params[0]);
    tau = m->alpha + (double) (B < mmax ? B : mmax) * m->beta;
    best = -INFINITY;
    for (x = 0; x < p; x++) { /* here P = P[x] */
        size_t mx = a->counts[order[x]];
        double cx = (double) nblocks(mx, B) * m->alpha + (double) mx * m->beta;
        double lo;
        if (x >= 1)
            min1 = P < min1 ? P : min1;
        min0 = P < min0 ? P : min0;
        lo = x <= p - 2 ? min0 : min1;
        best = P - lo - cx > best ? P - lo - cx : best;
        ends = e2 > ends ? e2 : ends; /* max over e <= x - 2 */
        wrap = ends - P > wrap ? ends - P : wrap;
        e2 = e1;
        e1 = P - cx;
        call += cx;
        P += tau - cx;
    }
    if (P + wrap > best)
        best = P + wrap;
    ch4coll_free(order);
    return call + best;
}
