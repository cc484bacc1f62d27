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
 * Software overheads: alpha is a lone message's whole cost, so a machine
 * description's alpha (ch4coll-calibrate: half a ping-pong) holds the
 * sender's and the receiver's overheads.  Where alpha is only the wire
 * (a SimGrid platform's links), the caller adds the overheads of a
 * message to it (maint/smpi-compare does, for cells of eager messages).
 */
#include "bounds.h"

#include <math.h>

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

/* gatherv, scatterv (the root's arguments): the root exchanges data with
 * the k other ranks whose blocks are not empty, so ceil(lg(k + 1)) rounds,
 * and moves every byte of theirs. */
static double rooted_v(const ch4coll_args_t *a, const ch4coll_model_t *m)
{
    double bytes = 0;
    int i, k = 0;

    if (!a->counts)
        return 0; /* not the root: nothing known of the others */
    for (i = 0; i < a->size; i++)
        if (i != a->root && a->counts[i] > 0) {
            k++;
            bytes += (double) a->counts[i];
        }
    return k ? ceil(log2((double) k + 1)) * m->alpha + bytes * m->beta : 0;
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
    double lat = p > 1 ? ceil(log2((double) p)) * m->alpha : 0;
    double f = p > 1 ? (double) (p - 1) / p : 0;
    double n = ch4coll_coll_is_reduction(a->coll) ? ch4coll_nbytes(a, a->count)
                                                  : (double) a->count;
    double sz = (double) a->elem.size;

    if (p == 1)
        return 0;
    /* no data to move: only a barrier still synchronises */
    if (a->coll != CH4COLL_BARRIER && n == 0 && (!a->counts || total_v(a) == 0))
        return 0;
    switch (a->coll) {
    case CH4COLL_BCAST:
        return pipelined(p, n, m);
    case CH4COLL_REDUCE:
        return fmax(pipelined(p, n, m), f * n * m->gamma);
    case CH4COLL_ALLREDUCE:
        return fmax(fmax(lat + 2 * f * n * m->beta, pipelined(p, n, m)),
                    f * n * m->gamma);
    case CH4COLL_REDUCE_SCATTER:
        return fmax(lat + f * total_v(a) * sz * m->beta,
                    f * total_v(a) * sz * m->gamma);
    case CH4COLL_REDUCE_SCATTER_BLOCK:
        return fmax(lat + f * n * p * m->beta, f * n * p * m->gamma);
    case CH4COLL_ALLGATHER:
    case CH4COLL_GATHER:
    case CH4COLL_SCATTER:
    case CH4COLL_ALLTOALL:
        return lat + (p - 1) * n * m->beta;
    case CH4COLL_ALLGATHERV:
        return lat + f * total_v(a) * m->beta;
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
        return lat + (s > r ? s : r) * m->beta;
    }
    case CH4COLL_SCAN:
        return fmax(lat + n * m->beta, n * m->gamma);
    case CH4COLL_EXSCAN: /* at p = 2 nothing is combined */
        return fmax(lat + n * m->beta, p > 2 ? n * m->gamma : 0);
    default: /* barrier */
        return lat;
    }
}
