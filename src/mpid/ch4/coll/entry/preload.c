/*
 * preload.c - MPI_* interposition (preload mode).
 *
 * Each wrapper describes its arguments as a ch4coll_call_t and hands it to
 * ch4coll_run(); when that answers CH4COLL_RUN_NATIVE (module disabled,
 * intercommunicator, invalid arguments, or the selection chose "native")
 * the host MPI's PMPI_ function runs instead (while ch4coll is enabled:
 * its nonblocking form, waited for with ch4coll's progress, so that no
 * rank blocks inside the host MPI while a peer waits for its part of a
 * ch4coll nonblocking collective; preload_nb.c has the nonblocking side).
 * MPI_Init and MPI_Init_thread are wrapped to read the CVARs once, before any
 * collective; MPI_Type_free and MPI_Op_free to keep the schedule cache
 * from outliving the handles it is keyed by; MPI_Comm_free and
 * MPI_Comm_disconnect for the lock order at MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>

#include "ch4coll.h"

#include "../algos/algo.h"
#include "../select/config.h"
#include "../util/lock.h"
#include "../util/util.h"
#include "calls.h"
#include "../core/comm.h"
#include "../core/nbc.h"
#include "../core/run.h"

/* MPI_Init is collective, so MPI_COMM_WORLD's state is made here, waited
 * for (every other communicator's at its first collective, comm_pmpi.c). */
static int after_init(int rc)
{
    ch4coll_comm_t *c;

    if (rc == MPI_SUCCESS && ch4coll_init() == CH4COLL_OK) {
        ch4coll_lock();
        if (ch4coll_config.enable)
            ch4coll_comm_get(MPI_COMM_WORLD, &c);
        ch4coll_unlock();
        return rc;
    }
    if (rc == MPI_SUCCESS) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: MPI_Init fails: an invalid MPIR_CVAR_CH4COLL_* "
                    "value or tuning file (above) and "
                    "MPIR_CVAR_CH4COLL_FALLBACK=error");
        rc = MPI_ERR_OTHER;
        PMPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    }
    return rc;
}

CH4COLL_API int MPI_Init(int *argc, char ***argv)
{
    return after_init(PMPI_Init(argc, argv));
}

CH4COLL_API int MPI_Init_thread(int *argc, char ***argv, int required,
                                int *provided)
{
    return after_init(PMPI_Init_thread(argc, argv, required, provided));
}

/* Cache keys hold datatype and op handles, and the argument checks
 * remember handles that passed; a freed handle may come back naming
 * something else, so it is forgotten first. */
static void forget(MPI_Datatype dt, MPI_Op op)
{
    ch4coll_lock();
    ch4coll_comm_forget(dt, op);
    ch4coll_pmpi_args_forget(dt, op);
    ch4coll_unlock();
}

CH4COLL_API int MPI_Type_free(MPI_Datatype *dt)
{
    if (dt)
        forget(*dt, MPI_OP_NULL);
    return PMPI_Type_free(dt);
}

CH4COLL_API int MPI_Op_free(MPI_Op *op)
{
    if (op)
        forget(MPI_DATATYPE_NULL, *op);
    return PMPI_Op_free(op);
}

/* Freeing a communicator runs ch4coll's attribute callback inside the
 * host MPI (comm_pmpi.c: delete_state); at MPI_THREAD_MULTIPLE ch4coll's
 * lock is taken before the host's, as everywhere (util/lock.h). */
CH4COLL_API int MPI_Comm_free(MPI_Comm *comm)
{
    int rc;

    ch4coll_lock();
    rc = PMPI_Comm_free(comm);
    ch4coll_unlock();
    return rc;
}

CH4COLL_API int MPI_Comm_disconnect(MPI_Comm *comm)
{
    int rc;

    ch4coll_lock();
    rc = PMPI_Comm_disconnect(comm);
    ch4coll_unlock();
    return rc;
}

/* The host MPI's collective, when ch4coll_run() answers native: the
 * blocking form while ch4coll is disabled, else its nonblocking form
 * (request r) waited for with progress (native_wait): ch4coll collectives
 * may be in flight, and a peer may wait for this rank's part in them
 * before it joins this call.  Always, not only while some are in flight
 * on this rank: MPI does not match a blocking collective with a
 * nonblocking one, so all ranks must take the same form, and only the
 * CVARs are the same on all. */

static int test_one(void *ctx, int *flag)
{
    return PMPI_Test(ctx, flag, MPI_STATUS_IGNORE);
}

/* With nothing of ch4coll in flight on this rank (no nonblocking
 * collective, no communicator setup) and no other thread that could start
 * one meanwhile, no peer can be waiting for this rank's progress: the
 * host's own wait is enough, and costs no loop. */
static int native_wait(int rc, MPI_Request *r)
{
    if (rc != MPI_SUCCESS)
        return rc;
    if (ch4coll_nb_outstanding() || ch4coll_locking)
        return ch4coll_nb_wait_until(test_one, r);
    return PMPI_Wait(r, MPI_STATUS_IGNORE);
}

CH4COLL_API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root,
                          MPI_Comm comm)
{
    ch4coll_call_t c = call_bcast(buf, count, dt, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Bcast(buf, count, dt, root, comm);
    return native_wait(PMPI_Ibcast(buf, count, dt, root, comm, &r), &r);
}

CH4COLL_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE, sendbuf, recvbuf, count,
                                      dt, op, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
    return native_wait(
        PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, &r), &r);
}

CH4COLL_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = call_reduction(CH4COLL_ALLREDUCE, sendbuf, recvbuf,
                                      count, dt, op, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
    return native_wait(
        PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, &r), &r);
}

CH4COLL_API int MPI_Allgather(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, comm);
    return native_wait(PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf,
                                       recvcount, recvtype, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Allgatherv(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *displs,
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm);
    return native_wait(PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                        recvcounts, displs, recvtype, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Alltoall(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm);
    return native_wait(PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcount, recvtype, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Alltoallv(const void *sendbuf, const int *sendcounts,
                              const int *sdispls, MPI_Datatype sendtype,
                              void *recvbuf, const int *recvcounts,
                              const int *rdispls, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    ch4coll_call_t c =
        call_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm);
    return native_wait(PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                       recvbuf, recvcounts, rdispls, recvtype,
                                       comm, &r),
                       &r);
}

CH4COLL_API int MPI_Gather(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm);
    return native_wait(PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Gatherv(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int *recvcounts, const int *displs,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, root, comm);
    return native_wait(PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcounts, displs, recvtype, root, comm,
                                     &r),
                       &r);
}

CH4COLL_API int MPI_Scatter(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm);
    return native_wait(PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, root, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Scatterv(const void *sendbuf, const int *sendcounts,
                             const int *displs, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c = call_scatterv(sendbuf, sendcounts, displs, sendtype,
                                     recvbuf, recvcount, recvtype, root, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                             recvcount, recvtype, root, comm);
    return native_wait(PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype,
                                      recvbuf, recvcount, recvtype, root, comm,
                                      &r),
                       &r);
}

CH4COLL_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                   const int *recvcounts, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm);
    return native_wait(
        PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm, &r),
        &r);
}

CH4COLL_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                         int recvcount, MPI_Datatype dt,
                                         MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf,
                                      recvbuf, recvcount, dt, op, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op,
                                         comm);
    return native_wait(PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount,
                                                  dt, op, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Barrier(MPI_Comm comm)
{
    ch4coll_call_t c = call_barrier(comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Barrier(comm);
    return native_wait(PMPI_Ibarrier(comm, &r), &r);
}

CH4COLL_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c =
        call_reduction(CH4COLL_SCAN, sendbuf, recvbuf, count, dt, op, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Scan(sendbuf, recvbuf, count, dt, op, comm);
    return native_wait(PMPI_Iscan(sendbuf, recvbuf, count, dt, op, comm, &r),
                       &r);
}

CH4COLL_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = call_reduction(CH4COLL_EXSCAN, sendbuf, recvbuf, count,
                                      dt, op, 0, comm);
    int rc = ch4coll_run(&c);
    MPI_Request r;

    if (rc != CH4COLL_RUN_NATIVE)
        return rc;
    if (!ch4coll_config.enable)
        return PMPI_Exscan(sendbuf, recvbuf, count, dt, op, comm);
    return native_wait(PMPI_Iexscan(sendbuf, recvbuf, count, dt, op, comm, &r),
                       &r);
}
