/*
 * nbc.h - nonblocking (MPI_I<coll>) and persistent (MPI_<coll>_init)
 * collectives in preload mode: the same cached schedules as the blocking
 * calls, behind a real MPI_Request of the host MPI.
 */
#ifndef CH4COLL_NBC_H
#define CH4COLL_NBC_H

#include <mpi.h>

#include "run.h"

/* Start call as a nonblocking collective (persistent = 0) or create it as
 * an inactive persistent one (persistent = 1); *req is the application's
 * request.  Returns MPI_SUCCESS, an MPI error code (reported through the
 * communicator's error handler), or CH4COLL_RUN_NATIVE. */
/* Registers the host's progress hook and makes the private communicator
 * of the request tokens (a duplicate of MPI_COMM_SELF), once; call it
 * before any setup of a communicator is under way (core/comm_pmpi.c
 * explains why a one-rank duplicate must not be made then). */
int ch4coll_nb_init(void);

int ch4coll_nb_create(ch4coll_call_t *call, int persistent, MPI_Request *req);

/* Nonblocking collectives in flight in this process. */
extern int ch4coll_nb_nactive;
static inline int ch4coll_nb_outstanding(void)
{
    /* read without the lock (util/lock.h): a hint, every caller that acts
     * on it takes the lock */
    return __atomic_load_n(&ch4coll_nb_nactive, __ATOMIC_RELAXED) > 0;
}

/* n more (or fewer) pieces of work in flight that only ch4coll's progress
 * moves: communicator setups (core/comm_pmpi.c). */
void ch4coll_nb_hold(int n);

/* c's setup has ended (c->setup_rc says how): resolve the records made
 * while it was under way, in the order of their calls. */
struct ch4coll_comm;
void ch4coll_nb_comm_ready(struct ch4coll_comm *c);

/* Move every collective in flight on; returns how many made progress. */
int ch4coll_nb_progress(void);

/* Wait until *flag is set by test(ctx, flag) (an MPI test call that
 * returns an MPI error code), progressing the collectives in flight and
 * yielding the core when nothing moves and the node is oversubscribed. */
int ch4coll_nb_wait_until(int (*test)(void *ctx, int *flag), void *ctx);

/* Persistent requests: MPI_Start / MPI_Startall / MPI_Request_free, and
 * MPI_Cancel, for handles ch4coll owns.  *handled = 0: not ch4coll's,
 * nothing done. */
int ch4coll_nb_start(MPI_Request *req, int *handled);
int ch4coll_nb_request_free(MPI_Request *req, int *handled);
int ch4coll_nb_cancel(MPI_Request *req, int *handled);

/* MPI_Finalize: collectives still in flight are progressed to completion
 * (warning); if none moves for 10 s, MPI_Abort.  Returns nonzero only
 * then.  Persistent requests the application did not free are released. */
int ch4coll_nb_finalize(void);

#endif /* CH4COLL_NBC_H */
