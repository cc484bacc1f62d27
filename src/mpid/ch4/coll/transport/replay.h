/*
 * replay.h - the cost model, run: committed schedules of all p ranks are
 * replayed as a discrete-event simulation on the alpha-beta-gamma model of
 * algo.h, without moving data.
 *
 * Each rank has a send port, a receive port and a CPU, each busy with one
 * thing at a time.  A vertex is ready when its dependencies have finished.
 * A send of m bytes ready at t starts at max(t, sender's send port free,
 * receiver's receive port free) and occupies both ports for alpha + m beta;
 * the matching receive finishes at max(its own ready time, the transfer's
 * end).  A reduction of m bytes occupies the rank's CPU for m gamma.
 * Copies, sinks and fences take no time.  Events are processed in time
 * order (ties in the order they became ready), so ports serve messages
 * first come, first served, and messages match receives as MPI's
 * non-overtaking rule says: the k-th send from s to d with tag t matches
 * the k-th receive d posts for (s, t).
 *
 * The closed formulas of the registry (ch4coll_algo_t.cost) describe the
 * same model; test_model.c holds them to the replay.
 */
#ifndef CH4COLL_REPLAY_H
#define CH4COLL_REPLAY_H

#include <stddef.h>

#include "../algos/algo.h"

/* Simulated completion time of the collective (the last rank's finish).
 * scheds[r] is rank r's committed schedule (NULL: no work).  Returns
 * CH4COLL_OK, or an error with a description in err (unmatched messages,
 * size mismatch, deadlock). */
int ch4coll_replay(ch4coll_sched_t *const *scheds, int p,
                   const ch4coll_model_t *m, double *time, char *err,
                   size_t errlen);

#endif /* CH4COLL_REPLAY_H */
