/*
 * bounds.c - lower bounds of each collective on the alpha-beta-gamma model
 * (model.h), the yardstick of doc/performance.md.
 *
 * Latency: information from one rank reaches at most 2^k ranks in k
 * rounds, so every collective that combines or spreads data over all p
 * ranks needs ceil(lg p) message latencies.  Bandwidth and computation as
 * in Chan, Heimlich, Purkayastha, van de Geijn (2007), for n bytes per
 * rank (allgather/gather/scatter: n per rank, N = p n in total):
 *   bcast          n beta            (the root's data must leave it)
 *   reduce         (p-1)/p n beta + (p-1)/p n gamma
 *   allreduce      2 (p-1)/p n beta + (p-1)/p n gamma
 *   reduce_scatter (p-1)/p N beta + (p-1)/p N gamma   (N: the whole vector)
 *   allgather, gather, scatter   (p-1) n beta  (per-rank block n)
 *   alltoall       (p-1) n beta    (every rank sends p-1 blocks)
 *   scan, exscan   n beta + n gamma
 *   barrier        latency only
 * A call without data costs nothing (every rank may return at once).
 * The three terms are bounded separately and added, as in the reference;
 * no algorithm reaches all three at once, so a ratio to this bound of 1.1
 * to 1.5 is already good.
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
        return lat + n * m->beta;
    case CH4COLL_REDUCE:
        return lat + f * n * (m->beta + m->gamma);
    case CH4COLL_ALLREDUCE:
        return lat + f * n * (2 * m->beta + m->gamma);
    case CH4COLL_REDUCE_SCATTER:
        return lat + f * total_v(a) * sz * (m->beta + m->gamma);
    case CH4COLL_REDUCE_SCATTER_BLOCK:
        return lat + f * n * p * (m->beta + m->gamma);
    case CH4COLL_ALLGATHER:
    case CH4COLL_GATHER:
    case CH4COLL_SCATTER:
    case CH4COLL_ALLTOALL:
        return lat + (p - 1) * n * m->beta;
    case CH4COLL_ALLGATHERV:
    case CH4COLL_GATHERV:
    case CH4COLL_SCATTERV:
        return lat + f * total_v(a) * m->beta;
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
    case CH4COLL_EXSCAN:
        return lat + n * (m->beta + m->gamma);
    default: /* barrier */
        return lat;
    }
}
