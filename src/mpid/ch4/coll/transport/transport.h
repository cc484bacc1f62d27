/*
 * transport.h - the point-to-point layer under the executor, as an ops table.
 *
 * The executor (sched/sched.c) never calls MPI directly: it posts sends and
 * receives, tests them and runs local reductions through one of these tables.
 * Each transport is one file:
 *
 *   pmpi.c  PMPI_Isend/Irecv/Testsome on a private duplicate of the user's
 *           communicator (preload mode, also SimGrid SMPI);
 *   loop.c  all p ranks of a schedule inside one process with real data
 *           (tests, cost replay, ch4coll-info --dot).
 *
 * A request is an opaque slot of req_size bytes that the executor stores in
 * an array; the transport writes it in isend/irecv and reads it in testsome.
 */
#ifndef CH4COLL_TRANSPORT_H
#define CH4COLL_TRANSPORT_H

#include <mpi.h>
#include <stddef.h>

#include "../host/host.h"

typedef struct ch4coll_transport ch4coll_transport_t;

struct ch4coll_transport {
    const char *name;
    size_t req_size; /* bytes of one request slot */

    /* Post a send/receive of count elements of dt; write the request into
     * *req.  ctx is the transport's per-run context (the communicator for
     * pmpi, the rank's mailbox for loop). */
    int (*isend)(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                 int peer, int tag, void *req);
    int (*irecv)(void *ctx, void *buf, size_t count, MPI_Datatype dt, int peer,
                 int tag, void *req);

    /* Test n requests stored contiguously at reqs; store the indices of the
     * completed ones in done[] and their number in *ndone.  Completed slots
     * may be left in any state. */
    int (*testsome)(void *ctx, int n, void *reqs, int *ndone, int *done);

    /* inout[i] = in[i] op inout[i] for count elements of dt (the argument
     * order of MPI_Reduce_local: "in" holds the lower ranks' data). */
    int (*reduce)(void *ctx, const void *in, void *inout, size_t count,
                  MPI_Datatype dt, MPI_Op op);

    /* Optional (NULL: not offered, all three or none): a blocking send,
     * receive and both at once, for schedules that are one exchange
     * (ch4coll_sched_run_now). */
    int (*send)(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                int peer, int tag);
    int (*recv)(void *ctx, void *buf, size_t count, MPI_Datatype dt, int peer,
                int tag);
    int (*sendrecv)(void *ctx, const void *sbuf, size_t scount, int dst,
                    int stag, void *rbuf, size_t rcount, int src, int rtag,
                    MPI_Datatype dt);

    /* Optional (NULL: not offered): like testsome, but blocks until at
     * least one request completes.  For hosts where polling is not free:
     * SimGrid SMPI charges simulated time for every MPI_Test that finds
     * nothing, growing with each one, so a test loop would inflate the
     * simulated times it measures. */
    int (*waitsome)(void *ctx, int n, void *reqs, int *ndone, int *done);
};

extern const ch4coll_transport_t ch4coll_transport_pmpi;
extern const ch4coll_transport_t ch4coll_transport_loop;

#endif /* CH4COLL_TRANSPORT_H */
