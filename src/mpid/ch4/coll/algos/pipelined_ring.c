/*
 * pipelined_ring.c - pipelined (blocked) ring allgatherv for large,
 * irregular contributions.
 *
 * Source: Traeff, Ripke, Siebert, Balaji, Thakur, Gropp, "A Pipelined
 * Algorithm for Large, Irregular All-gather Problems" (seed
 * pipelined-irregular-allgather), sections 2.2-2.4.  The linear ring
 * (ring.c) moves one whole contribution per step, so its time is set by
 * the largest one: (p-1) m_max beta.  Here every contribution m_i is cut
 * into b_i = ceil(m_i / B) blocks of at most B bytes and rank i plays a
 * "virtual node" of b_i ring processes (section 2.2): it sends its own
 * blocks first and then forwards, in arrival order, every block it
 * receives, so a regular ring of blocks runs over the irregular data in
 * b - min(b_i) rounds (eq. 1) instead of p - 1 rounds of m_max.
 *
 * Steps (all ranks compute the same from the counts and the parameter):
 *   1. Block size B: the parameter, or if it is 0 the paper's choices
 *      (section 2.4): B = m' when all m_i = m' (the schedule is then the
 *      linear ring), else eq. (2) with alpha and beta of
 *      ch4coll_model_default,
 *        B = sqrt(m alpha / beta / ((p - z)/2 - 1 + floor(z / (p - z)))),
 *      z = ranks contributing 0 bytes, m = sum m_i.  (The paper prints
 *      (p + z)/2; its own round count b - z - 1 + z' with b - z ~ m/B +
 *      (p - z)/2 gives (p - z)/2, which for z = p - 1 is the optimal
 *      linear-pipeline block.)  B is clamped to [1, max m_i] and raised so
 *      that there are at most 2^20 blocks.
 *   2. Virtual re-ranking (section 2.3): the q = p - z ranks with data, in
 *      rank order, take ring positions floor(k p / q), k = 0..q-1; the
 *      ranks without data fill the other positions in rank order.  So
 *      floor(z/q) or ceil(z/q) empty ranks sit between two ranks with data,
 *      and with z = 0 the ring is 0, 1, ..., p-1.
 *   3. Ring: the link into a rank carries every nonempty block except the
 *      rank's own, owner by owner going backwards around the ring from its
 *      left neighbour, each owner's blocks in order.  A rank sends its own
 *      blocks first, then forwards what it receives, except the blocks of
 *      its right neighbour (the last ones it receives).  Blocks land in
 *      place in the receive buffer; empty blocks are never sent.
 * Message k on a link uses tag k mod 2; receive k waits for receive k-2 and
 * send k for send k-2, so at most two receives and two sends are in flight
 * and messages with one tag are issued in order on both sides.
 *
 * Cost.  The schedule is a set of link streams: message k on the link out
 * of position x starts when message k-1 on that link ended and its block
 * has arrived.  The finish time is the longest chain of messages: a chain
 * walks along one link's stream, and where it follows a block one hop
 * ahead it pays that message again.  With C_x = b_x alpha + m_x beta the
 * time to send x's own blocks once and tau = alpha + min(B, m_max) beta,
 *   T = sum_x C_x + max over runs I of at most p - 2 consecutive ring
 *       positions and the position e just after I of
 *       (|I| tau - sum_{x in I} C_x - C_e),
 * evaluated in one pass (a maximum subarray).  The paper's form: when B
 * divides every m_i and b_i > z' for every rank with data,
 * T = (b - z - 1 + z')(alpha + B beta), z' = floor(z / q) (section 2.3);
 * regular blocks with B = m' give (p-1)(alpha + m' beta), the linear ring;
 * one rank with data (z = p - 1) gives (b_0 + p - 2)(alpha + B beta), the
 * linear broadcast pipeline.
 *
 * Scratch: none.  Restrictions: none (any p, counts, displacements, in
 * place).  Parameter block (bytes, default 0 = automatic, 0..2^40).
 *
 * Worked example, p = 5, B = 2, m = (5, 0, 0, 2, 0) bytes: q = 2, ranks 0
 * and 3 take positions 0 and 2, the empty ranks 1, 2, 4 positions 1, 3, 4:
 * ring 0 -> 1 -> 3 -> 2 -> 4 -> 0.  Rank 0 has blocks a0 a1 a2 (2, 2, 1
 * bytes), rank 3 block d0.  Streams: 0->1 a0 a1 a2 d0; 1->3 a0 a1 a2;
 * 3->2 d0 a0 a1 a2; 2->4 d0 a0 a1 a2; 4->0 d0.  In rounds: 3 sends d0 in
 * round 1 while 0 sends a0; 2 forwards d0 in round 2, 4 in round 3, 0 in
 * round 4 after its own blocks; a2 leaves 0 in round 3 and reaches 4 in
 * round 6 = b - min b_i = 7 - 1.
 */
#include "algo.h"

#include <math.h>

/* Most blocks in all; a smaller block size is raised to fit. */
#define MAX_BLOCKS ((size_t) 1 << 20)
/* Messages in flight per link and direction; also the number of tags. */
#define WINDOW 2

static size_t nblocks(size_t m, size_t B)
{
    return m == 0 ? 0 : 1 + (m - 1) / B;
}

/* Block size of the call (step 1), the same on every rank. */
static size_t block_size(const size_t *counts, int p, int64_t param)
{
    const ch4coll_model_t *md = &ch4coll_model_default;
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
 * Ring order (step 2), walked position by position without memory: the
 * k-th rank with data sits at position floor(k p / q), the ranks without
 * data fill the rest in rank order.
 */
typedef struct {
    const size_t *counts;
    int p, q;
    int pos;      /* next position */
    int k;        /* ranks with data placed so far */
    int full, nz; /* next candidate rank with / without data */
} walk_t;

static void walk_init(walk_t *w, const size_t *counts, int p)
{
    int i;

    w->counts = counts;
    w->p = p;
    w->q = 0;
    for (i = 0; i < p; i++)
        w->q += counts[i] > 0;
    w->pos = w->k = w->full = w->nz = 0;
}

/* The rank at position w->pos; advances to the next position. */
static int walk_next(walk_t *w)
{
    int r;

    if (w->k < w->q && w->pos == (int) ((int64_t) w->k * w->p / w->q)) {
        while (w->counts[w->full] == 0)
            w->full++;
        r = w->full++;
        w->k++;
    } else {
        while (w->counts[w->nz] > 0)
            w->nz++;
        r = w->nz++;
    }
    w->pos++;
    return r;
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

int ch4coll_allgatherv_pipelined_ring(ch4coll_sched_t *s,
                                      const ch4coll_args_t *a,
                                      const int64_t *params)
{
    int p = a->size, rank = a->rank, pos, x = 0, *order;
    size_t own = a->counts[rank], all = 0;
    ring_t g;
    walk_t w;

    ch4coll_sched_set_ntags(s, WINDOW);
    if (!a->inplace && own > 0)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, a->displs[rank]), own,
                           0, NULL);
    if (p == 1)
        return CH4COLL_OK;
    order = ch4coll_malloc((size_t) p * sizeof *order);
    if (!order)
        return CH4COLL_ERR_NOMEM;
    walk_init(&w, a->counts, p);
    for (pos = 0; pos < p; pos++) {
        order[pos] = walk_next(&w);
        x = order[pos] == rank ? pos : x;
    }
    g.s = s;
    g.a = a;
    g.left = order[(x - 1 + p) % p];
    g.right = order[(x + 1) % p];
    g.B = block_size(a->counts, p, params[0]);
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
    int p = a->size, x;
    size_t B, mmax = 0;
    double tau, call = 0, P = 0, best, min0 = 0, min1 = INFINITY;
    double ends = -INFINITY, e1 = -INFINITY, e2 = -INFINITY, wrap = -INFINITY;
    walk_t w;

    for (x = 0; x < p; x++)
        mmax = a->counts[x] > mmax ? a->counts[x] : mmax;
    if (p <= 1 || mmax == 0)
        return 0;
    B = block_size(a->counts, p, params[0]);
    tau = m->alpha + (double) (B < mmax ? B : mmax) * m->beta;
    best = -INFINITY;
    walk_init(&w, a->counts, p);
    for (x = 0; x < p; x++) { /* here P = P[x] */
        size_t mx = a->counts[walk_next(&w)];
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
    return call + best;
}
