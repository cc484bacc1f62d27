/*
 * loop.h - the in-process executor: all p ranks of a collective in one
 * process, with real data, driven round-robin.
 *
 * Each rank has a mailbox; a send appends a message to the receiver's FIFO
 * and a receive matches the first message with the same (source, tag), as
 * MPI's non-overtaking rule does.  In rendezvous mode (eager = 0) a send
 * completes only when matched and its data is copied at that moment, so a
 * schedule that overwrites a buffer still being sent, or that relies on
 * buffering, is caught.  ch4coll_loop_run() (sched/loop_run.h) drives
 * the schedules of all ranks and reports deadlock (no rank can progress,
 * with every pending vertex listed), size mismatches, and messages or
 * receives left over at the end.
 */
#ifndef CH4COLL_LOOP_H
#define CH4COLL_LOOP_H

#include <stddef.h>

#include "transport.h"

typedef struct ch4coll_loop ch4coll_loop_t;

ch4coll_loop_t *ch4coll_loop_create(int p, int eager);
void ch4coll_loop_destroy(ch4coll_loop_t *w);

/* Context to pass to ch4coll_sched_start() for rank r. */
void *ch4coll_loop_ctx(ch4coll_loop_t *w, int r);

/* The number of ranks. */
int ch4coll_loop_size(const ch4coll_loop_t *w);

/* For callers that progress the schedules themselves, several per rank at
 * once (nonblocking calls in flight together, each with its own tags, all
 * matched in the rank's one mailbox).  begin forgets the previous run's
 * messages and sets where a transport error (a size mismatch) is described;
 * call it before starting the schedules.  end, once every schedule is done,
 * fails with CH4COLL_ERR_PROTOCOL, described in err, if a message was never
 * received.  ch4coll_loop_run() is begin, round-robin progress, end. */
void ch4coll_loop_begin(ch4coll_loop_t *w, char *err, size_t errlen);
int ch4coll_loop_end(ch4coll_loop_t *w);

/* Messages and bytes moved so far (for cost summaries). */
size_t ch4coll_loop_messages(const ch4coll_loop_t *w);
size_t ch4coll_loop_bytes(const ch4coll_loop_t *w);

#endif /* CH4COLL_LOOP_H */
