/*
 * dissemination.c - dissemination barrier.
 *
 * Source: NEC MPI/SX section 3.2 falls back to a software barrier when no
 * hardware barrier counter is available; the dissemination pattern (Hensgen,
 * Finkel and Manber) is the symmetric one that needs ceil(lg p) rounds for
 * any p, unlike pairwise exchange which needs an extra round when p is not
 * a power of two.
 *
 * Round k = 0..ceil(lg p)-1: send an empty message to rank + 2^k and receive
 * one from rank - 2^k (mod p); round k's send waits for round k-1's receive,
 * so after the last round every rank has transitively heard from every other.
 * Round k uses tag k.  T = ceil(lg p) alpha, exactly on the model (each
 * rank sends and receives one message per round).  No scratch.
 *
 * Worked example, p = 5: rounds at distances 1, 2, 4; rank 0 hears from 4,
 * then 3 (who had heard from 2), then 1 (who had heard from 0, 4, 3, 2).
 */
#include "algo.h"

#include "../util/util.h"

/* Round k on tag k. */
int ch4coll_ntags_barrier_dissemination(const ch4coll_args_t *a,
                                        const int64_t *params)
{
    (void) params;
    return a->size > 1 ? ch4coll_ceil_log2(a->size) : 1;
}

int ch4coll_barrier_dissemination(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                  const int64_t *params)
{
    int p = a->size, rank = a->rank, k, dist, prev = -1, d[1];
    ch4coll_ref_t none = ch4coll_ref(CH4COLL_BUF_RECV, 0);

    ch4coll_sched_set_ntags(s, ch4coll_ntags_barrier_dissemination(a, params));
    (void) params;
    for (k = 0, dist = 1; dist < p; k++, dist *= 2) {
        ch4coll_sched_send(s, none, 0, (rank + dist) % p, k,
                           ch4coll_dep1(prev, d), d);
        prev =
            ch4coll_sched_recv(s, none, 0, (rank - dist + p) % p, k, 0, NULL);
    }
    return CH4COLL_OK;
}

double ch4coll_cost_barrier_dissemination(const ch4coll_args_t *a,
                                          const int64_t *params,
                                          const ch4coll_model_t *m)
{
    (void) params;
    return ch4coll_ceil_log2(a->size) * m->alpha;
}
