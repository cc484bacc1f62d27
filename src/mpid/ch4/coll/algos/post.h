/*
 * post.h - when a step-by-step builder posts a receive: at the start of
 * the schedule, or once the step before has arrived (allgather_doubling.c's
 * Bruck, multi_ring.c's rings).
 *
 * Posted at the start, a receive lets its message travel as soon as its
 * sender is ready, which a latency-bound step needs: posted step by step,
 * Bruck's allgatherv of a spike at 512 B on SimGrid's torus, p = 96, took
 * 9.68 us against 6.73.  But a long message posted early shares the link
 * into the receiver with the message of the step before, which the
 * receiver's next send waits for: ranks that end a step at different
 * times (across leaf switches of a fat tree, lanes served twice) then
 * slow down the critical path (Bruck's allgatherv, fat tree, p = 96,
 * 128 KiB: 518.9 us posted at the start, 508.0 step by step, the time of
 * Open MPI's Bruck, whose sendrecv posts one step at a time).  The line
 * between the two: a message that takes longer on the wire than its
 * latency, bytes beta >= alpha on the call's model (ch4coll_auto_model:
 * 20 KB on the default model, 6.2 KB on machines/bookworm-2core.json).
 */
#ifndef CH4COLL_POST_H
#define CH4COLL_POST_H

#include "algo.h"

/* Whether a step's receive of `bytes` waits for the step before. */
static inline int ch4coll_post_late(const ch4coll_args_t *a, double bytes)
{
    const ch4coll_model_t *m = ch4coll_auto_model(a);

    return bytes * m->beta >= m->alpha;
}

#endif /* CH4COLL_POST_H */
