/*
 * loop_run.h - all p ranks' schedules run to the end on an in-process
 * world (transport/loop.h), driven round-robin: the executor of the tests,
 * ch4coll-info --dot and the sweep.
 */
#ifndef CH4COLL_LOOP_RUN_H
#define CH4COLL_LOOP_RUN_H

#include <stddef.h>

#include "../transport/loop.h"
#include "sched.h"

/* Progress the p started schedules (NULL entries are ranks without work)
 * until all are done: ch4coll_loop_begin, round-robin progress,
 * ch4coll_loop_end.  On failure err holds a description: the first
 * error, a deadlock with what every unfinished rank waits for, or the
 * messages never received. */
int ch4coll_loop_run(ch4coll_loop_t *w, ch4coll_sched_t **scheds, char *err,
                     size_t errlen);

#endif /* CH4COLL_LOOP_RUN_H */
