/*
 * run.h - one collective call from MPI arguments to completion:
 * args -> select -> build or cache -> execute -> transport.
 */
#ifndef CH4COLL_RUN_H
#define CH4COLL_RUN_H

#include <mpi.h>

#include "call.h"

/* ch4coll_run() result meaning "call the host MPI's own collective". */
#define CH4COLL_RUN_NATIVE (-1000)

/* ch4coll_run_prepare() result: the communicator's state is still being
 * set up (nonblocking); the call is resolved when it is ready. */
#define CH4COLL_RUN_DEFER (-1001)

/* ch4coll_run_cached() result: the call's shape is not in the cache. */
#define CH4COLL_RUN_MISS (-1002)

/* Run the call through ch4coll.  Returns MPI_SUCCESS, an MPI error code,
 * or CH4COLL_RUN_NATIVE. */
int ch4coll_run(ch4coll_call_t *call);

/* Preload mode (core/comm_pmpi.c): the communicator's state, then as
 * below.  ch4coll_run_prepare: selection and schedule for a nonblocking
 * or persistent call (nonblocking branches of the tuning tree), and an
 * instance of the schedule that no other call uses until released; or
 * CH4COLL_RUN_DEFER with *c set while the state's setup is under way; *c
 * is NULL when no state was found or begun. */
struct ch4coll_comm;
struct ch4coll_inst;
struct ch4coll_centry;
int ch4coll_run_prepare(ch4coll_call_t *call, struct ch4coll_comm **c,
                        struct ch4coll_inst **in);

/* The same for a call deferred while c was set up, now that it is ready
 * (the arguments were checked when the call was made). */
int ch4coll_run_resolve(struct ch4coll_comm *c, const ch4coll_call_t *call,
                        struct ch4coll_inst **in);

/* Preload mode: forget the checked datatypes and (type, op) pairs that
 * name a handle being freed (comm_pmpi.c's argument checks remember
 * them). */
void ch4coll_pmpi_args_forget(MPI_Datatype dt, MPI_Op op);

/* The mode-independent steps, given the communicator's state:
 * lookup   cache hit, or select and build (nb: the nonblocking branches);
 *          MPI_SUCCESS, an MPI error (reported), or CH4COLL_RUN_NATIVE;
 *          with MPIR_CVAR_CH4COLL_VERIFY a blocking call's arguments are
 *          checked against the other ranks' first (core/verify.h)
 * native   count a call the host runs; returns CH4COLL_RUN_NATIVE
 * execute  a blocking call from start to finish
 * acquire  an instance of the entry's schedule for a nonblocking call
 *          (with its verifier when MPIR_CVAR_CH4COLL_VERIFY is on)
 * ntags    the tags one start of the instance uses
 * begin    bind the buffers and start it with tags from tag on (< 0: the
 *          communicator's next; a persistent request takes its range once,
 *          at init, because MPI matches persistent collectives in the
 *          order of their init calls, not of their starts); MPI_SUCCESS or
 *          a reported MPI error;
 * progress move it on: *done once it has finished (CH4COLL_OK or an error
 *          code; a verifier's mismatch is an error here)
 * end      after it is done: unpack (CH4COLL_OK or an error code). */
int ch4coll_run_lookup(struct ch4coll_comm *c, const ch4coll_call_t *call,
                       int nb, struct ch4coll_centry **e);

/* The cache alone, as lookup without the verification and the build:
 * CH4COLL_RUN_MISS when the call's shape has no entry.  An entry exists
 * only for a shape whose arguments passed the checks (core/comm_pmpi.c
 * takes a hit before checking again what the shape holds). */
int ch4coll_run_cached(struct ch4coll_comm *c, const ch4coll_call_t *call,
                       int nb, struct ch4coll_centry **e);
int ch4coll_run_native(void);
int ch4coll_run_execute(struct ch4coll_comm *c, struct ch4coll_centry *e,
                        const ch4coll_call_t *call);
int ch4coll_run_acquire(struct ch4coll_comm *c, struct ch4coll_centry *e,
                        const ch4coll_call_t *call, struct ch4coll_inst **in);
int ch4coll_run_ntags(const struct ch4coll_inst *in);
int ch4coll_run_begin(struct ch4coll_comm *c, struct ch4coll_inst *in,
                      const ch4coll_call_t *call, int tag);
int ch4coll_run_progress(struct ch4coll_comm *c, struct ch4coll_inst *in,
                         const ch4coll_call_t *call, int *progressed,
                         int *done);
int ch4coll_run_end(struct ch4coll_comm *c, struct ch4coll_inst *in,
                    const ch4coll_call_t *call);

/* The datatypes MPI reads on this rank for a described call
 * (MPI_DATATYPE_NULL for a side it ignores): what a nonblocking call must
 * keep alive. */
void ch4coll_run_types(const ch4coll_call_t *call, MPI_Datatype *st,
                       MPI_Datatype *rt);

/* op is one of MPI's predefined reduction operations. */
int ch4coll_run_op_builtin(MPI_Op op);

#endif /* CH4COLL_RUN_H */
