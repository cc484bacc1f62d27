/*
 * binary_blocks.c - allreduce and reduce by binary blocks: recursive
 * halving inside power-of-two blocks of ranks, the blocks combined
 * segment-wise; any p, any op, any root.  Also swing (allreduce, reduce):
 * the same with Swing's short-hop partners inside every block.
 *
 * Source: Rabenseifner & Adamidis section 3.6 ("Binary Blocks", Fig. 3), on
 * the halving and doubling of 3.5: each power-of-two block reduce-scatters
 * on its own; "starting with the smallest block" each block's result is
 * split into the next larger block's segments and folded there; allreduce
 * ends with an allgather per block, the smaller ones fed "with pairs of
 * messages"; reduce gathers to the root, which if outside the largest
 * block plays rank 0.
 *
 * Blocks (topo/blocks.h): p = 2^e_0 + 2^e_1 + ..., e_0 > e_1 > ...; block i
 * is the ranks [base_i, base_i + 2^e_i).  The vector is cut into P = 2^e_0
 * balanced segments; after j halving steps local rank l holds range(l, j),
 * 2^(e_0 - j) segments from ch4coll_halving_lo(l, j, e_0).
 * Steps (local rank l in block i of 2^e ranks):
 *   1. reduce-scatter in the block, s = 0 .. e-1: with local l ^ 2^s keep
 *      range(l, s+1), send the partner's, fold the received one in.
 *   2. up, from the smallest block: local l of block i+1 cuts its range
 *      into those of block i and sends each to its holder there (locals
 *      l + k 2^e_{i+1}, k < 2^(e_i - e_{i+1})), which folds it in.  Block 0
 *      then holds the whole result, scattered.
 *   3. allreduce: the ranges go back down, one piece from each of those
 *      locals, then an allgather in every block, s = e-1 .. 0, each half
 *      landing where step 1 sent it away.  reduce: binomial gather in block
 *      0 towards the root's local rank; a root outside block 0 takes local
 *      0's part and everything sent to local 0.
 * Partner groups are aligned local intervals, and block i+1 with all below
 * it is the rank interval just above block i: every fold is "lower op
 * upper", so any op works.
 *
 * Cost (n bytes; R_e = e alpha + (1 - 2^-e) n (beta + gamma), step 1 in a
 * block of 2^e; A_e = e alpha + (1 - 2^-e) n beta, its allgather or gather;
 * m_e = alpha + 2^-e n beta, one range; r_i = 2^(e_{i-1} - e_i)):
 *   up: U_last = R_{e_last}; block i+1's r_{i+1} messages leave at U_{i+1}
 *     behind the transfer block i's receive port holds then, the last
 *     arriving at a = max(U_{i+1}, its end) + r_{i+1} m_{e_i}; U_i =
 *     max(end of block i's step 1, a) + 2^-e_i n gamma; F = U_0.
 *   allreduce: G_0 = F, G_i = G_{i-1} + r_i m_{e_{i-1}}; block i ends at
 *     G_i + A_{e_i} + (r_{i+1} / 2) m_{e_i}; T = the latest block.
 *   reduce: F + A_{e_0}, plus m_{e_0} if the root is outside block 0.
 * p = 2^k: R_k + A_k = 2 k alpha + (1 - 1/p)(2 n beta + n gamma), the
 * paper's T_all,h&d, reduce alike.  p = 96 = 64 + 32: F = R_5 + 3 m_6 +
 * n gamma / 64, T = 15 alpha + 129/64 n beta + 63/64 n gamma; reduce
 * 14 alpha + 2 n beta + 63/64 n gamma.  The recurrence assumes a block's
 * ranks stay in step; the cost functions evaluate it on the real segments.
 * Scratch: the largest kept half (about n/2) where a fold needs it; the
 * final range of a rank that receives from a smaller block (n/2^e); n at
 * the reduce non-roots, except a lone rank.  None at p = 1.  Restrictions:
 * none (any op, p, root, count: empty segments skipped on both sides;
 * MPI_IN_PLACE).  No parameters.
 *
 * Worked example, allreduce p = 7 = 4 + 2 + 1, n = 8 (segments u0..u3 of
 * 2 elements; d_r = rank r's input): blocks {0..3}, {4, 5}, {6}.
 *   1. {0..3}: s = 0: 0 keeps u0-1, 1 keeps u2-3 (2, 3 alike); s = 1: 0, 2,
 *      1, 3 keep u0, u1, u2, u3 over d0..d3.  {4, 5}: 4 keeps u0-1, 5 u2-3.
 *   2. 6 sends u0-1 to 4 and u2-3 to 5, which fold (d4 op d5) op d6; 4 sends
 *      u0, u1 to 0, 2 and 5 u2, u3 to 1, 3: 0..3 fold (d0..d3) op (d4..d6).
 *   3. 0, 2 send u0, u1 to 4 and 1, 3 send u2, u3 to 5 (the pairs); 4, 5
 *      send u0-1, u2-3 to 6; allgather in {0..3} (0-2, 1-3; 0-1, 2-3), {4, 5}.
 *
 * swing (allreduce, reduce; issue 24): the same blocks and steps with Swing's
 * partners inside every block (De Sensi, Bonato, Saam and Hoefler, NSDI
 * 2024, section 3: local l meets l + rho(s) if even, l - rho(s) if odd,
 * mod 2^e, rho = 1, -1, 3, -5, 11, ...; topo/blocks.h).  Distances grow
 * as 2^s / 1.5 and alternate in direction, so on a ring or torus a
 * halving step crosses fewer links than recursive halving's 2^s (on
 * SimGrid's 16 x 16 x 16 torus, rank order along x: the busiest link of a
 * bandwidth step carries the equivalent of 1.33 vectors at p = 64 against
 * 2.06 for recursive halving, counted over dimension-ordered routes).
 * Swing's reachable sets form, in a power-of-two block, a hierarchy of
 * aligned halves once every set's two halves are ordered by their
 * smallest rank (topo/blocks.h, checked in test_topo), so the ranges stay
 * contiguous: local l holds after j steps the 2^(k-j) segments from
 * (pos[l] >> (e - j)) << (k - j), pos the position of l in that order,
 * where recursive halving has the bit reversal of l.  The blocks are
 * combined as above, each range sent to the holders of its pieces by
 * position.  Published Swing folds a non-power-of-two p into the largest
 * power of two (the extra ranks' whole vectors in and out: 2 n beta more);
 * binary blocks cost 2^-e_0 n beta per block below instead.  Commutative
 * ops only: a partner's group is no longer a rank interval beside mine.
 * Same formula as binary_blocks (the model has no links to count).
 * Worked example, p = 6 = 4 + 2, n = 8 (segments u0..u3): block {0..3},
 * positions 0, 2, 3, 1 (Swing's halves {0, 3} and {1, 2}, then singles);
 * step 0: 0-1 and 2-3, 0 and 3 keep u0-1, 1 and 2 keep u2-3; step 1
 * (rho = -1): 0-3 and 2-1, so 0, 3, 1, 2 end with u0, u1, u2, u3.  Block
 * {4, 5}: 4 keeps u0-1, 5 u2-3; 4 sends u0 to 0 and u1 to 3, 5 sends u2
 * to 1 and u3 to 2; the results go back the same way, then the allgather
 * in each block, step 1 then step 0.  Reduce gathers in block 0 along
 * Swing's tree: the gather undoes the halving from step k-1 down, the
 * holder of the whole vector is the root's local t, and going down the
 * halving the half without the holder is held by the holder's partner at
 * that step (recursive halving: the binomial gather; gather_step()); in
 * the example with root 0: step 1, 3 sends u1 to 0 and 2 sends u3 to 1;
 * step 0, 1 sends u2-3 to 0.  A root outside block 0 plays local 0 there.
 */
#include "algo.h"
#include "fold.h"

#include "../topo/blocks.h"
#include "../topo/topo.h"
#include "hazard.h"

enum { TAG_HALVE, TAG_UP, TAG_DOWN, TAG_GATHER, NTAGS };

/* A join of many vertices, folded into sinks four at a time. */
typedef struct {
    int v[4];
    int n;
} join_t;

typedef struct {
    ch4coll_sched_t *s;
    const ch4coll_args_t *a;
    ch4coll_blocks_t bl;
    int blk, local, e; /* my block, my rank in it, its exponent */
    /* swing: block i's local l takes partners by Swing's rule and holds
     * the ranges at positions pos[i][l] (topo/blocks.h); inv[i] is the
     * inverse.  NULL: recursive halving (partner l ^ 2^s, pos the bit
     * reversal of l). */
    int *pos[CH4COLL_BLOCKS_MAX], *inv[CH4COLL_BLOCKS_MAX];
    int *mem; /* the builder's allocation behind pos and inv */
    int k;    /* exponent of block 0: 2^k segments */
    size_t n;
    int in_buf;  /* my input vector */
    int acc;     /* my partials, at their offsets in the vector; a
                  * scratch vector allocated on first use if < 0 */
    int mine_ro; /* my partial is still only my (read-only) input */
    int tmp;     /* received halves, allocated on first use */
    size_t tmp_len;
    int last_fold;                /* last vertex writing my kept range */
    int tmp_free;                 /* last vertex reading tmp */
    int sent[CH4COLL_BLOCKS_MAX]; /* step 1: the send of step s, or -1 */
    ch4coll_hz_t acc_rd;          /* readers of acc among the up sends */
} bb_t;

static void join_add(ch4coll_sched_t *s, join_t *j, int v)
{
    if (v < 0)
        return;
    if (j->n == 4) {
        j->v[0] = ch4coll_sched_sink(s, 4, j->v);
        j->n = 1;
    }
    j->v[j->n++] = v;
}

static int join_end(ch4coll_sched_t *s, const join_t *j)
{
    if (j->n == 0)
        return -1;
    return j->n == 1 ? j->v[0] : ch4coll_sched_sink(s, j->n, j->v);
}

/* Element offset of segment j of 2^k (j = 2^k gives n): balanced cut. */
static size_t seg_off(const bb_t *b, int j)
{
    return ch4coll_seg_off(b->n, (size_t) 1 << b->k, (size_t) j);
}

/* Elements of range(l, j) of local l of block i; its element offset in
 * *off. */
static size_t range(const bb_t *b, int i, int l, int j, size_t *off)
{
    int lo = b->pos[i] ? (b->pos[i][l] >> (b->bl.expo[i] - j)) << (b->k - j)
                       : ch4coll_halving_lo(l, j, b->k);

    *off = seg_off(b, lo);
    return seg_off(b, lo + (1 << (b->k - j))) - *off;
}

static ch4coll_ref_t at(const bb_t *b, int buf, size_t elem)
{
    return ch4coll_ref(buf, ch4coll_eoff(b->a, elem));
}

static ch4coll_ref_t acc_at(bb_t *b, size_t elem)
{
    if (b->acc < 0)
        b->acc = ch4coll_sched_scratch(b->s, b->n);
    return at(b, b->acc, elem);
}

/* Where my partial of element elem lives. */
static ch4coll_ref_t partial(bb_t *b, size_t elem)
{
    return b->mine_ro ? at(b, b->in_buf, elem) : acc_at(b, elem);
}

/* Global rank of local rank l of block i. */
static int grank(const bb_t *b, int i, int l)
{
    return b->bl.base[i] + l;
}

/* The partner of local l of block i at halving step st. */
static int partner_of(const bb_t *b, int i, int l, int st)
{
    return b->pos[i] ? ch4coll_swing_partner(l, st, 1 << b->bl.expo[i])
                     : l ^ (1 << st);
}

/* My partner in my block at halving step st. */
static int partner_at(const bb_t *b, int st)
{
    return partner_of(b, b->blk, b->local, st);
}

/* The local of the next smaller block whose final range holds mine. */
static int local_below(const bb_t *b)
{
    int below = b->blk + 1, d = b->e - b->bl.expo[below];

    return b->pos[below] ? b->inv[below][b->pos[b->blk][b->local] >> d]
                         : b->local & ((1 << b->bl.expo[below]) - 1);
}

/* The low d bits of x reversed. */
static int bitrev(int x, int d)
{
    int r = 0, i;

    for (i = 0; i < d; i++)
        r |= (x >> i & 1) << (d - 1 - i);
    return r;
}

/* The local of the next larger block holding piece kk of my final range
 * (kk < 2^(e_above - e)), and my piece index there (below_piece).  Pieces
 * go out in kk order, and those of consecutive kk go to the partners of
 * the larger block's next halving step (recursive halving: locals l +
 * kk 2^e, whose bit e differs first); with Swing's positions that is the
 * last of the d position bits, so kk is taken bit-reversed: in position
 * order the partners of the next step would get pieces 2^(d-1) apart,
 * and the replay of p = 36 was 1.16x binary_blocks' (1.00x now; larger
 * gaps still wait more, test_model.c). */
static int local_above(const bb_t *b, int kk)
{
    int above = b->blk - 1, d = b->bl.expo[above] - b->e;

    return b->pos[above]
               ? b->inv[above][(b->pos[b->blk][b->local] << d) + bitrev(kk, d)]
               : b->local + (kk << b->e);
}

static int below_piece(const bb_t *b)
{
    int d = b->e - b->bl.expo[b->blk + 1];

    return b->pos[b->blk] ? bitrev(b->pos[b->blk][b->local], d)
                          : b->local >> b->bl.expo[b->blk + 1];
}

/*
 * Step 1: receive the partner's partial of [off, off+len) and fold it into
 * acc in rank order (the partner's ranks all below mine if lower, else all
 * above).  When the lower operand is ours, a non-commutative op forms the
 * result in scratch and copies it back.  Returns the vertex that completes
 * acc[off, off+len).
 */
static int fold_in(bb_t *b, int peer, int lower, size_t off, size_t len)
{
    ch4coll_fold_t f = {b->a->commutative, b->mine_ro,   &b->tmp,
                        b->tmp_len,        &b->tmp_free, b->last_fold};
    ch4coll_ref_t acc = acc_at(b, off); /* allocates acc before tmp */

    return ch4coll_fold_in(b->s, &f, at(b, b->in_buf, off), acc, peer,
                           TAG_HALVE, lower, len);
}

/* Step 1: recursive halving, distance doubling, inside my block. */
static void halving(bb_t *b)
{
    int st, d[1];

    for (st = 0; st < b->e; st++) {
        int partner = partner_at(b, st), peer = grank(b, b->blk, partner);
        size_t koff, klen = range(b, b->blk, b->local, st + 1, &koff);
        size_t soff, slen = range(b, b->blk, partner, st + 1, &soff);

        b->sent[st] = -1;
        if (slen > 0)
            b->sent[st] = ch4coll_sched_send(
                b->s, partial(b, soff), slen, peer, TAG_HALVE,
                b->mine_ro ? 0 : ch4coll_dep1(b->last_fold, d), d);
        if (klen > 0) {
            b->last_fold = fold_in(b, peer, partner < b->local, koff, klen);
            b->mine_ro = 0;
        }
    }
}

/* Step 2, receiving side: fold the next smaller block's partial of my
 * range (ranks above mine) into mine. */
static void fold_from_below(bb_t *b)
{
    ch4coll_sched_t *s = b->s;
    int below = b->blk + 1, from, up, got, v, d[2];
    size_t off, len = range(b, b->blk, b->local, b->e, &off);

    if (below >= b->bl.n || len == 0)
        return;
    from = grank(b, below, local_below(b));
    up = ch4coll_sched_scratch(s, len);
    got = ch4coll_sched_recv(s, at(b, up, 0), len, from, TAG_UP, 0, NULL);
    d[0] = got;
    d[1] = b->last_fold;
    if (b->a->commutative && !b->mine_ro) { /* acc = up op acc */
        b->last_fold =
            ch4coll_sched_reduce(s, at(b, up, 0), acc_at(b, off), len, 2, d);
        return;
    }
    /* acc = mine op up, formed in up and copied back */
    v = ch4coll_sched_reduce(s, partial(b, off), at(b, up, 0), len, 2, d);
    b->last_fold =
        ch4coll_sched_copy(s, at(b, up, 0), acc_at(b, off), len, 1, &v);
    b->mine_ro = 0;
}

/* Step 2, sending side: my range, cut into the ranges of the next larger
 * block, to the ranks there that hold them. */
static void send_up(bb_t *b)
{
    int above = b->blk - 1, ea, nk, kk, v, d[1];

    if (above < 0)
        return;
    ea = b->bl.expo[above];
    nk = 1 << (ea - b->e);
    for (kk = 0; kk < nk; kk++) {
        int to = local_above(b, kk);
        size_t off, len = range(b, above, to, ea, &off);
        if (len == 0)
            continue;
        v = ch4coll_sched_send(
            b->s, partial(b, off), len, grank(b, above, to), TAG_UP,
            b->mine_ro ? 0 : ch4coll_dep1(b->last_fold, d), d);
        if (!b->mine_ro)
            ch4coll_hz_read_by(b->s, &b->acc_rd, v);
    }
}

/* Step 3 of allreduce, down: receive my final range from the next larger
 * block.  Returns the vertex after which my range is final. */
static int recv_down(bb_t *b)
{
    int above = b->blk - 1, ea, nk, kk;
    int wd[1 + CH4COLL_HZ_READERS], nwd = ch4coll_hz_wdeps(&b->acc_rd, wd);
    join_t got = {{-1, -1, -1, -1}, 0};

    if (above < 0)
        return b->last_fold;
    ea = b->bl.expo[above];
    nk = 1 << (ea - b->e);
    for (kk = 0; kk < nk; kk++) {
        int from = local_above(b, kk);
        size_t off, len = range(b, above, from, ea, &off);
        if (len > 0)
            join_add(b->s, &got,
                     ch4coll_sched_recv(b->s, acc_at(b, off), len,
                                        grank(b, above, from), TAG_DOWN, nwd,
                                        wd));
    }
    return join_end(b->s, &got);
}

/* Step 3 of allreduce, down: my final range to the next smaller block.
 * The receiver takes its 2^(e - e_below) pieces one after the other; the
 * sender of piece kk sends it after floor(lg(kk+1)) sends of its own
 * allgather (about kk piece times), so the receiver's port stays busy
 * while each sender pauses its allgather for about one piece.  Returns
 * that number of sends, or -1 if there is nothing to send. */
static int down_step(const bb_t *b)
{
    int below = b->blk + 1, kk, j = 0;
    size_t off;

    if (below >= b->bl.n || range(b, b->blk, b->local, b->e, &off) == 0)
        return -1;
    kk = below_piece(b);
    while ((2 << j) <= kk + 1)
        j++;
    return j;
}

/* Sends my range down once fin and sent are done; returns the join of the
 * two it waits on (-1 if only fin), which the next allgather send waits
 * for too, so that the send down goes first. */
static int send_down(bb_t *b, int fin, int sent)
{
    int below = b->blk + 1, x = -1, d[2];
    size_t off, len = range(b, b->blk, b->local, b->e, &off);

    d[0] = fin;
    d[1] = sent;
    if (sent >= 0)
        x = ch4coll_sched_sink(b->s, 2, d);
    ch4coll_sched_send(b->s, acc_at(b, off), len,
                       grank(b, below, local_below(b)), TAG_DOWN,
                       ch4coll_dep1(x >= 0 ? x : fin, d), d);
    return x;
}

/* Step 3 of allreduce: recursive doubling, distance halving, in my block;
 * each half lands where step 1 sent it away.  The send down goes out
 * after down_step() steps. */
static void allgather(bb_t *b, int last)
{
    int st, j, down = down_step(b), fin = last, sent = -1, d[2];

    for (st = b->e - 1, j = 0; st >= 0; st--, j++) {
        int partner = partner_at(b, st), peer = grank(b, b->blk, partner);
        size_t off, len = range(b, b->blk, b->local, st + 1, &off);
        size_t poff, plen = range(b, b->blk, partner, st + 1, &poff);

        if (j == down) {
            /* after my j-th send, and ahead of my next one */
            int x = send_down(b, fin, sent);
            d[0] = last;
            d[1] = x;
            last = x >= 0 ? ch4coll_sched_sink(b->s, 2, d) : last;
        }
        if (len > 0)
            sent = ch4coll_sched_send(b->s, acc_at(b, off), len, peer,
                                      TAG_GATHER, ch4coll_dep1(last, d), d);
        if (plen > 0) {
            d[0] = ch4coll_sched_recv(b->s, acc_at(b, poff), plen, peer,
                                      TAG_GATHER,
                                      ch4coll_dep1(b->sent[st], d + 1), d + 1);
            d[1] = last;
            last = ch4coll_sched_sink(b->s, 2, d);
        }
    }
    if (down == b->e)
        send_down(b, fin, sent);
}

/* Step 3 of reduce at a root outside block 0: it plays local 0 of block 0,
 * receiving local 0's segment and, for s = k-1 .. 0, range(q, s+1) from
 * local 0's partner q at step s (2^s; swing: 0 + rho(s)), once its own
 * part of steps 1-2 is done. */
static void root_collect(bb_t *b)
{
    int fence = ch4coll_sched_fence(b->s), st, d[1];
    size_t off, len = range(b, 0, 0, b->k, &off);

    if (len > 0)
        ch4coll_sched_recv(b->s, acc_at(b, off), len, grank(b, 0, 0),
                           TAG_GATHER, ch4coll_dep1(fence, d), d);
    for (st = b->k - 1; st >= 0; st--) {
        int q = partner_of(b, 0, 0, st);
        len = range(b, 0, q, st + 1, &off);
        if (len > 0)
            ch4coll_sched_recv(b->s, acc_at(b, off), len, grank(b, 0, q),
                               TAG_GATHER, ch4coll_dep1(fence, d), d);
    }
}

/* Whether locals l and h of block 0 hold the same range after halving
 * step s (the same half of their step-s range). */
static int same_half(const bb_t *b, int l, int h, int s)
{
    int sh = b->k - s - 1;

    return b->pos[0] ? b->pos[0][l] >> sh == b->pos[0][h] >> sh
                     : ((l ^ h) & ((2 << s) - 1)) == 0;
}

/* The gather step at which local l of block 0 sends what it holds
 * towards local t, -1 for t itself.  The gather undoes the halving from
 * step k-1 down: at step s the holder of each range of step s meets its
 * partner, which holds the other half.  The holder of the whole vector is
 * t; going down the halving, the half without the holder is held by the
 * holder's partner at that step.  l sends at the last step it takes over
 * (recursive halving: the highest bit where l and t differ, the binomial
 * gather). */
static int gather_step(const bb_t *b, int l, int t)
{
    int h = t, s, step = -1;

    for (s = 0; s < b->k; s++)
        if (!same_half(b, l, h, s)) {
            h = partner_of(b, 0, h, s);
            step = s;
        }
    return step;
}

/* Step 3 of reduce in block 0: binomial gather towards local target; a
 * message for local 0 goes to the root instead when the root is outside. */
static void gather(bb_t *b, int target, int outside)
{
    int last = b->last_fold, st, d[2], step = gather_step(b, b->local, target);
    size_t off, len;

    if (outside && b->local == 0) {
        len = range(b, 0, 0, b->k, &off);
        if (len > 0)
            ch4coll_sched_send(b->s, acc_at(b, off), len, b->a->root,
                               TAG_GATHER, ch4coll_dep1(last, d), d);
        return;
    }
    for (st = b->k - 1; st >= 0; st--) {
        int partner = partner_at(b, st);
        if (st == step) {
            int to =
                outside && partner == 0 ? b->a->root : grank(b, 0, partner);
            len = range(b, 0, b->local, st + 1, &off);
            if (len > 0)
                ch4coll_sched_send(b->s, acc_at(b, off), len, to, TAG_GATHER,
                                   ch4coll_dep1(last, d), d);
            return;
        }
        len = range(b, 0, partner, st + 1, &off);
        if (len > 0) {
            d[0] = ch4coll_sched_recv(b->s, acc_at(b, off), len,
                                      grank(b, 0, partner), TAG_GATHER,
                                      ch4coll_dep1(b->sent[st], d + 1), d + 1);
            d[1] = last;
            last = ch4coll_sched_sink(b->s, 2, d);
        }
    }
}

/* Swing's positions for every block: 2p ints for pos and inv, 2^(e_0+1)
 * of scratch. */
static int swing_init(bb_t *b)
{
    size_t p = (size_t) b->a->size, P = (size_t) 1 << b->k;
    int i, l, *at;

    b->mem = ch4coll_malloc((2 * p + 2 * P) * sizeof(int));
    if (!b->mem)
        return CH4COLL_ERR_NOMEM;
    at = b->mem;
    for (i = 0; i < b->bl.n; i++) {
        int e = b->bl.expo[i];
        b->pos[i] = at;
        b->inv[i] = at + (1 << e);
        at += 2 << e;
        ch4coll_swing_positions(e, b->pos[i], at, at + P);
        for (l = 0; l < 1 << e; l++)
            b->inv[i][b->pos[i][l]] = l;
    }
    return CH4COLL_OK;
}

/* swing: Swing's partners and positions (swing_init), else recursive
 * halving; CH4COLL_OK or CH4COLL_ERR_NOMEM. */
static int bb_init(bb_t *b, ch4coll_sched_t *s, const ch4coll_args_t *a,
                   int in_buf, int acc, int swing)
{
    size_t off;
    int st;

    b->s = s;
    b->a = a;
    b->mem = NULL;
    for (st = 0; st < CH4COLL_BLOCKS_MAX; st++)
        b->pos[st] = b->inv[st] = NULL;
    ch4coll_blocks(a->size, &b->bl);
    b->blk = ch4coll_blocks_find(&b->bl, a->rank, &b->local);
    b->e = b->bl.expo[b->blk];
    b->k = b->bl.expo[0];
    b->n = a->count;
    if (swing && swing_init(b) != CH4COLL_OK)
        return CH4COLL_ERR_NOMEM;
    b->in_buf = in_buf;
    b->acc = acc;
    b->mine_ro = in_buf != acc; /* acc < 0 is never the input */
    b->tmp = -1;
    /* the half kept at step 0 is the largest range ever received */
    b->tmp_len = b->e > 0 ? range(b, b->blk, b->local, 1, &off) : 0;
    b->last_fold = b->tmp_free = -1;
    for (st = 0; st < CH4COLL_BLOCKS_MAX; st++)
        b->sent[st] = -1;
    b->acc_rd = ch4coll_hz_user(acc);
    return CH4COLL_OK;
}

/* One tag per kind of message (halving, up, down, gather): no two
 * messages share (source, destination, tag). */
int ch4coll_ntags_binary_blocks(const ch4coll_args_t *a, const int64_t *params)
{
    (void) a;
    (void) params;
    return NTAGS;
}

/* The calls with nothing to exchange (no elements, or p = 1: the result
 * is my input), built here; 0 for the others. */
static int trivial(ch4coll_sched_t *s, const ch4coll_args_t *a)
{
    ch4coll_sched_set_ntags(s, NTAGS);
    if (a->count > 0 && a->size > 1)
        return 0;
    if (a->count > 0 && !a->inplace)
        ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), a->count, 0, NULL);
    return 1;
}

static int allreduce(ch4coll_sched_t *s, const ch4coll_args_t *a, int swing)
{
    bb_t b;
    int rc;

    if (trivial(s, a))
        return CH4COLL_OK;
    rc = bb_init(&b, s, a, a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND,
                 CH4COLL_BUF_RECV, swing);
    if (rc != CH4COLL_OK)
        return rc;
    halving(&b);         /* 1. */
    fold_from_below(&b); /* 2. */
    send_up(&b);
    allgather(&b, recv_down(&b)); /* 3. */
    ch4coll_free(b.mem);
    return CH4COLL_OK;
}

int ch4coll_allreduce_binary_blocks(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                    const int64_t *params)
{
    (void) params;
    return allreduce(s, a, 0);
}

int ch4coll_allreduce_swing(ch4coll_sched_t *s, const ch4coll_args_t *a,
                            const int64_t *params)
{
    (void) params;
    return allreduce(s, a, 1);
}

static int reduce(ch4coll_sched_t *s, const ch4coll_args_t *a, int swing)
{
    int is_root = a->rank == a->root, rblk, rlocal, rc;
    bb_t b;

    if (trivial(s, a))
        return CH4COLL_OK;
    /* a non-root works in scratch (a lone rank never needs it) */
    rc = bb_init(&b, s, a,
                 is_root && a->inplace ? CH4COLL_BUF_RECV : CH4COLL_BUF_SEND,
                 is_root ? CH4COLL_BUF_RECV : -1, swing);
    if (rc != CH4COLL_OK)
        return rc;
    rblk = ch4coll_blocks_find(&b.bl, a->root, &rlocal);
    halving(&b);         /* 1. */
    fold_from_below(&b); /* 2. */
    send_up(&b);
    if (b.blk == 0) /* 3. */
        gather(&b, rblk == 0 ? rlocal : 0, rblk != 0);
    else if (is_root)
        root_collect(&b);
    ch4coll_free(b.mem);
    return CH4COLL_OK;
}

int ch4coll_reduce_binary_blocks(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                 const int64_t *params)
{
    (void) params;
    return reduce(s, a, 0);
}

int ch4coll_reduce_swing(ch4coll_sched_t *s, const ch4coll_args_t *a,
                         const int64_t *params)
{
    (void) params;
    return reduce(s, a, 1);
}

/* ------------------------------------------------------------ cost */

typedef struct {
    const ch4coll_args_t *a;
    ch4coll_blocks_t bl;
    int k;                          /* 2^k segments */
    size_t q, rem;                  /* segment j: q + (j < rem) elements */
    double len[CH4COLL_BLOCKS_MAX]; /* bytes of the longest range after j
                                     * halving steps (the first one) */
} bb_cost_t;

/* Bytes of range(l, j). */
static double range_bytes(const bb_cost_t *c, int l, int j)
{
    size_t lo = (size_t) ch4coll_halving_lo(l, j, c->k);
    size_t hi = lo + ((size_t) 1 << (c->k - j));
    size_t elo = lo * c->q + (lo < c->rem ? lo : c->rem);
    size_t ehi = hi * c->q + (hi < c->rem ? hi : c->rem);

    return ch4coll_nbytes(c->a, ehi - elo);
}

/* Non-empty messages between the first rank of a 2^e block and the
 * larger 2^big block: the ranges of level big inside range(0, e). */
static int pieces(const bb_cost_t *c, int e, int big)
{
    size_t nk = (size_t) 1 << (big - e), segs = (size_t) 1 << (c->k - big);
    size_t full = (c->rem + segs - 1) / segs;

    return (int) (c->q > 0 || full > nk ? nk : full);
}

static void cost_init(bb_cost_t *c, const ch4coll_args_t *a)
{
    size_t P;
    int j;

    c->a = a;
    ch4coll_blocks(a->size, &c->bl);
    c->k = c->bl.expo[0];
    P = (size_t) 1 << c->k;
    c->q = a->count / P;
    c->rem = a->count % P;
    for (j = 0; j <= c->k; j++)
        c->len[j] = range_bytes(c, 0, j);
}

/*
 * Step 1 in a block of 2^e while the next smaller block, ready at u, sends
 * it nk messages of d seconds each.  Those are issued at u and queue
 * behind the transfer the block's receive port has already taken at u; a
 * halving message issued after u waits for the last of them (the rank
 * that gets it is the latest).  Returns the end of step 1 at that rank and
 * the arrival of the last message in *arrive.
 */
static double cost_halving(const bb_cost_t *c, int e, const ch4coll_model_t *m,
                           double u, int nk, double d, double *arrive)
{
    double t = 0, port = 0, start;
    int j;

    *arrive = -1;
    for (j = 1; j <= e; j++) {
        if (t > u && *arrive < 0)
            *arrive = (u > port ? u : port) + nk * d;
        start = *arrive > t ? *arrive : t;
        if (t <= u)
            port = start + ch4coll_model_block(m, c->len[j]);
        t = start + ch4coll_model_block(m, c->len[j]) + c->len[j] * m->gamma;
    }
    if (*arrive < 0)
        *arrive = (u > port ? u : port) + nk * d;
    return t;
}

/* Steps 1-2: the time F at which block 0 holds the result. */
static double cost_up(const bb_cost_t *c, const ch4coll_model_t *m)
{
    int i, n = c->bl.n;
    double u, t, arrive;

    /* the smallest block alone, then each block with the one below */
    u = cost_halving(c, c->bl.expo[n - 1], m, 0, 0, 0, &arrive);
    for (i = n - 2; i >= 0; i--) {
        int e = c->bl.expo[i], nk = pieces(c, c->bl.expo[i + 1], e);
        t = cost_halving(c, e, m, u, nk, ch4coll_model_block(m, c->len[e]),
                         &arrive);
        u = (arrive > t ? arrive : t) + c->len[e] * m->gamma;
    }
    return u;
}

/*
 * Allgather in a block of 2^e, or binomial gather towards local t there,
 * as seen by local t.  At step s it receives range(t ^ 2^s, s+1); and if
 * bit s of t is 1, the chain that brings it segment 0 makes a hop carrying
 * range(0, s+1), the longest range (with few elements, most messages are
 * empty and that chain is the critical path).  For the allgather every
 * local is a target; local 2^e - 1 is the latest.
 */
static double cost_doubling(const bb_cost_t *c, int e, int t,
                            const ch4coll_model_t *m)
{
    double sum = 0;
    int st;

    for (st = 0; st < e; st++)
        sum += ch4coll_model_block(
            m, t & (1 << st) ? c->len[st + 1]
                             : range_bytes(c, t ^ (1 << st), st + 1));
    return sum;
}

double ch4coll_cost_allreduce_binary_blocks(const ch4coll_args_t *a,
                                            const int64_t *params,
                                            const ch4coll_model_t *m)
{
    bb_cost_t c;
    double g, t = 0, end;
    int i;

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    cost_init(&c, a);
    g = cost_up(&c, m); /* G_0 = F */
    for (i = 0; i < c.bl.n; i++) {
        int e = c.bl.expo[i];
        if (i > 0) /* my range in pieces from the block above */
            g += pieces(&c, e, c.bl.expo[i - 1]) *
                 ch4coll_model_block(m, c.len[c.bl.expo[i - 1]]);
        end = g + cost_doubling(&c, e, (1 << e) - 1, m);
        if (i + 1 < c.bl.n) /* the allgather pauses for the sends down */
            end += (pieces(&c, c.bl.expo[i + 1], e) + 1) / 2 *
                   ch4coll_model_block(m, c.len[e]);
        if (end > t)
            t = end;
    }
    return t;
}

double ch4coll_cost_reduce_binary_blocks(const ch4coll_args_t *a,
                                         const int64_t *params,
                                         const ch4coll_model_t *m)
{
    bb_cost_t c;
    int rlocal;
    double f;

    (void) params;
    if (a->count == 0 || a->size == 1)
        return 0.0;
    cost_init(&c, a);
    f = cost_up(&c, m);
    if (ch4coll_blocks_find(&c.bl, a->root, &rlocal) != 0) {
        /* the root plays local 0, whose own segment comes first */
        f += ch4coll_model_block(m, c.len[c.k]);
        rlocal = 0;
    }
    return f + cost_doubling(&c, c.k, rlocal, m);
}
