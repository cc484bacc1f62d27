/*
 * bounds.c - lower bounds of each collective on the alpha-beta-gamma model
 * (model.h), the yardstick of doc/performance.md.
 *
 * Latency: information from one rank reaches at most 2^k ranks in k
 * rounds, so every collective that combines or spreads data over all p
 * ranks needs q = ceil(lg p) message latencies.  Bandwidth and computation
 * as in Chan, Heimlich, Purkayastha, van de Geijn (2007), for n bytes per
 * rank (allgather/gather/scatter: n per rank, N = p n in total).
 *
 *   bcast, reduce  the single-ported pipelined optimum (Träff, ACM TOPC
 *                  2025): a broadcast of n blocks takes at least n - 1 + q
 *                  rounds of a block each, (n - 1 + q)(alpha + beta m/n),
 *                  least at n* = sqrt((q-1) beta m / alpha):
 *                    T* = beta m + (q-1) alpha + 2 sqrt((q-1) alpha beta m)
 *                  and with n* < 1 (small m) at n = 1: q (alpha + beta m);
 *                  reduce: max(T*, (p-1)/p m gamma), the combining of p
 *                  vectors spread over p ranks, which a pipeline overlaps
 *                  with its messages (so it is not added)
 *   allreduce      max(q alpha + 2 (p-1)/p m beta, T*(m), (p-1)/p m gamma):
 *                  q rounds, each rank's 2 (p-1)/p m bytes (Patarasuk and
 *                  Yuan 2009); no faster than a broadcast of m (an
 *                  allreduce with zeros elsewhere is one); the combining.
 *                  Not 2 q alpha: recursive doubling takes q alpha +
 *                  q m beta, below it for small m; and the combining is
 *                  not added: hampath at p = 2 and 1.2 MB overlaps it and
 *                  takes 168 us on the default model, below the sum 272 us
 *                  (test_bounds_hold)
 *   reduce_scatter max(q alpha + (p-1)/p N beta, (p-1)/p N gamma)  (N: the
 *                  whole vector; the combining overlaps, as in allreduce)
 *   allgather, gather, scatter   (p-1) n beta  (per-rank block n)
 *   gatherv, scatterv  ceil(lg(k+1)) alpha + (the others' bytes) beta, k
 *                  the ranks other than the root with a block that is not
 *                  empty
 *   alltoall       (p-1) n beta    (every rank sends p-1 blocks)
 *   scan, exscan   max(q alpha + n beta, n gamma) (exscan at p = 2 combines
 *                  nothing)
 *   barrier        latency only
 * A call without data costs nothing (every rank may return at once).
 * The latency and bandwidth terms add (every round costs alpha plus its
 * largest message); the combining does not: a pipeline overlaps it with
 * the messages, so it bounds on its own (max).  test_bounds_hold replays
 * every algorithm of the registry against these.
 *
 * A multi-ported machine (model.h's gap > 0: a rank starts a message every
 * gap seconds while earlier ones fly) has no q-round latency floor: at
 * p = 16 on SimGrid's fat tree with this machine's overheads, SMPI's flat
 * bcast of 8 B took 1.70 us, under half the single-ported 4 alpha (3.61). There
 * the latency term is the greedy spread S(p): one rank's data reaches p ranks
 * no sooner than when every rank that has it starts a message to a new one
 * every gap seconds, each arriving alpha after its start -- optimal on LogP
 * (Karp, Sahay, Santos, Schauser, SPAA 1993), and S(p) = q alpha when gap =
 * alpha.  Every collective above moves some rank's data to all others (or
 * gathers all to one, the same tree reversed), so it takes S(p); the bandwidth
 * terms hold as they are (each counts what crosses one rank's link) after one
 * alpha; and the two do not add, as a pipeline overlaps them: max(S(p),
 * alpha + bandwidth), the combining bounding on its own as above.
 *
 * Software overheads: alpha is a lone message's whole cost, so a machine
 * description's alpha (ch4coll-calibrate: half a ping-pong) holds the
 * sender's and the receiver's overheads.  Where alpha is only the wire
 * (a SimGrid platform's links), the caller adds the overheads of a
 * message to it (maint/smpi-compare does, for cells of eager messages).
 */
#include "bounds.h"

#include <math.h>
#include <stdlib.h>

static void heap_push(double *h, int *n, double v)
{
    int i = (*n)++;

    for (; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = v;
}

static double heap_pop(double *h, int *n)
{
    double top = h[0], last = h[--*n];
    int i = 0, c;

    while ((c = 2 * i + 1) < *n) {
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= last)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

static double total_v(const ch4coll_args_t *a)
{
    double t = 0;
    int i;

    if (!a->counts)
        return (double) a->count * a->size;
    for (i = 0; i < a->size; i++)
        t += (double) a->counts[i];
    return t;
}

/* The greedy spread S(p) on a multi-ported machine (see above): each
 * informed rank's next arrival in a binary min-heap, O(p log p).  Above
 * 2^24 ranks (no such call is modelled) the bound falls back to one
 * hop, which is still a lower bound. */
static double greedy_spread(int p, double hop, double gap)
{
    double *h, t = 0;
    int n = 0, informed = 1;

    if (p < 2)
        return 0;
    if (p > (1 << 24) || !(h = malloc(2 * (size_t) p * sizeof *h)))
        return hop;
    heap_push(h, &n, hop); /* the root's first message */
    while (informed < p) {
        t = heap_pop(h, &n);
        informed++;
        heap_push(h, &n, t + gap); /* its sender's next */
        heap_push(h, &n, t + hop); /* the new rank's first */
    }
    free(h);
    return t;
}

/* The latency floor of a collective over p ranks and how the bytes that
 * must cross one link add to it: q alpha plus them on the single-ported
 * model, max(S(p), alpha + them) on a multi-ported one (see above). */
typedef struct {
    int multi;
    double lat; /* q alpha, or S(p) */
    double alpha;
} floor_t;

static double then(const floor_t *f, double rest)
{
    return f->multi ? fmax(f->lat, f->alpha + rest) : f->lat + rest;
}

static floor_t floor_of(int p, const ch4coll_model_t *m)
{
    floor_t f = {m->gap > 0, 0, m->alpha};

    if (p > 1)
        f.lat = f.multi ? greedy_spread(p, m->alpha, m->gap)
                        : ceil(log2((double) p)) * m->alpha;
    return f;
}

/* gatherv, scatterv (the root's arguments): the root exchanges data with
 * the k other ranks whose blocks are not empty, so ceil(lg(k + 1)) rounds
 * (or S(k + 1)), and moves every byte of theirs. */
static double rooted_v(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    double bytes = 0;
    floor_t f;
    int i, k = 0;

    if (!a->counts)
        return 0; /* not the root: nothing known of the others */
    for (i = 0; i < a->size; i++)
        if (i != a->root && a->counts[i] > 0) {
            k++;
            bytes += (double) a->counts[i];
        }
    f = floor_of(k + 1, m);
    return k ? then(&f, bytes * m->beta) : 0;
}

/* The pipelined broadcast optimum of m bytes over p ranks (see above). */
static double pipelined(int p, double m, const ch4coll_model_t *mo)
{
    double q = ceil(log2((double) p)), n;

    if (p < 2)
        return 0;
    n = mo->alpha > 0 ? sqrt((q - 1) * mo->beta * m / mo->alpha) : HUGE_VAL;
    if (n <= 1)
        return q * (mo->alpha + mo->beta * m);
    return mo->beta * m + (q - 1) * mo->alpha +
           2 * sqrt((q - 1) * mo->alpha * mo->beta * m);
}

double ch4coll_lower_bound(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    int p = a->size;
    floor_t fl = floor_of(p, m);
    double f = p > 1 ? (double) (p - 1) / p : 0;
    double n = ch4coll_coll_is_reduction(a->coll) ? ch4coll_nbytes(a, a->count)
                                                  : (double) a->count;
    double sz = (double) a->elem.size;
    /* a broadcast of n bytes: the pipelined optimum, or on a multi-ported
     * machine the spread and one transfer of n */
    double bc = fl.multi ? then(&fl, n * m->beta) : pipelined(p, n, m);

    if (p == 1)
        return 0;
    /* no data to move: only a barrier still synchronises */
    if (a->coll != CH4COLL_BARRIER && n == 0 && (!a->counts || total_v(a) == 0))
        return 0;
    switch (a->coll) {
    case CH4COLL_BCAST:
        return bc;
    case CH4COLL_REDUCE:
        return fmax(bc, f * n * m->gamma);
    case CH4COLL_ALLREDUCE:
        return fmax(fmax(then(&fl, 2 * f * n * m->beta), bc), f * n * m->gamma);
    case CH4COLL_REDUCE_SCATTER:
        return fmax(then(&fl, f * total_v(a) * sz * m->beta),
                    f * total_v(a) * sz * m->gamma);
    case CH4COLL_REDUCE_SCATTER_BLOCK:
        return fmax(then(&fl, f * n * p * m->beta), f * n * p * m->gamma);
    case CH4COLL_ALLGATHER:
    case CH4COLL_GATHER:
    case CH4COLL_SCATTER:
    case CH4COLL_ALLTOALL:
        return then(&fl, (p - 1) * n * m->beta);
    case CH4COLL_ALLGATHERV:
        return then(&fl, f * total_v(a) * m->beta);
    case CH4COLL_GATHERV:
    case CH4COLL_SCATTERV:
        return rooted_v(a, m);
    case CH4COLL_ALLTOALLV: {
        double s = 0, r = 0;
        int i;
        for (i = 0; i < p && a->scounts && a->counts; i++)
            if (i != a->rank) {
                s += (double) a->scounts[i];
                r += (double) a->counts[i];
            }
        return then(&fl, (s > r ? s : r) * m->beta);
    }
    case CH4COLL_SCAN:
        return fmax(then(&fl, n * m->beta), n * m->gamma);
    case CH4COLL_EXSCAN: /* at p = 2 nothing is combined */
        return fmax(then(&fl, n * m->beta), p > 2 ? n * m->gamma : 0);
    default: /* barrier */
        return fl.lat;
    }
}
