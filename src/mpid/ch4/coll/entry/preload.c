/*
 * preload.c - MPI_* interposition (preload mode).
 *
 * Each wrapper describes its arguments as a ch4coll_call_t and hands it to
 * ch4coll_run(); when that answers CH4COLL_RUN_NATIVE (module disabled,
 * intercommunicator, invalid arguments, or the selection chose "native")
 * the host MPI's PMPI_ function runs instead.  MPI_Init and
 * MPI_Init_thread are wrapped to read the CVARs once, before any
 * collective; MPI_Type_free and MPI_Op_free to keep the schedule cache
 * from outliving the handles it is keyed by.
 */
#include <mpi.h>

#include "ch4coll.h"

#include "../algos/algo.h"
#include "../select/config.h"
#include "../util/util.h"
#include "comm.h"
#include "run.h"

static int after_init(int rc)
{
    if (rc == MPI_SUCCESS && ch4coll_init() != CH4COLL_OK) {
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

/* Cache keys hold datatype and op handles; a freed handle may come back
 * naming something else, so its entries go first. */
CH4COLL_API int MPI_Type_free(MPI_Datatype *dt)
{
    if (dt)
        ch4coll_comm_forget(*dt, MPI_OP_NULL);
    return PMPI_Type_free(dt);
}

CH4COLL_API int MPI_Op_free(MPI_Op *op)
{
    if (op)
        ch4coll_comm_forget(MPI_DATATYPE_NULL, *op);
    return PMPI_Op_free(op);
}

static ch4coll_side_t side(const void *buf, int count, MPI_Datatype dt)
{
    ch4coll_side_t s = {buf, count, dt, NULL, NULL};
    return s;
}

static ch4coll_side_t vside(const void *buf, const int *counts,
                            const int *displs, MPI_Datatype dt)
{
    ch4coll_side_t s = {buf, 0, dt, counts, displs};
    return s;
}

CH4COLL_API int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root,
                          MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_BCAST,
                        comm,
                        root,
                        MPI_OP_NULL,
                        side(NULL, 0, MPI_DATATYPE_NULL),
                        side(buf, count, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE ? rc
                                    : PMPI_Bcast(buf, count, dt, root, comm);
}

CH4COLL_API int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    ch4coll_call_t c = {
        CH4COLL_REDUCE,          comm, root, op, side(sendbuf, count, dt),
        side(recvbuf, count, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm);
}

CH4COLL_API int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = {
        CH4COLL_ALLREDUCE,       comm, 0, op, side(sendbuf, count, dt),
        side(recvbuf, count, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm);
}

CH4COLL_API int MPI_Allgather(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_ALLGATHER,
                        comm,
                        0,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        side(recvbuf, recvcount, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype, comm);
}

CH4COLL_API int MPI_Allgatherv(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const int *recvcounts, const int *displs,
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_ALLGATHERV,
                        comm,
                        0,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        vside(recvbuf, recvcounts, displs, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                 recvcounts, displs, recvtype, comm);
}

CH4COLL_API int MPI_Alltoall(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_ALLTOALL,
                        comm,
                        0,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        side(recvbuf, recvcount, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, comm);
}

CH4COLL_API int MPI_Alltoallv(const void *sendbuf, const int *sendcounts,
                              const int *sdispls, MPI_Datatype sendtype,
                              void *recvbuf, const int *recvcounts,
                              const int *rdispls, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_ALLTOALLV,
                        comm,
                        0,
                        MPI_OP_NULL,
                        vside(sendbuf, sendcounts, sdispls, sendtype),
                        vside(recvbuf, recvcounts, rdispls, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype, comm);
}

CH4COLL_API int MPI_Gather(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_GATHER,
                        comm,
                        root,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        side(recvbuf, recvcount, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, root, comm);
}

CH4COLL_API int MPI_Gatherv(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int *recvcounts, const int *displs,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_GATHERV,
                        comm,
                        root,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        vside(recvbuf, recvcounts, displs, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                              displs, recvtype, root, comm);
}

CH4COLL_API int MPI_Scatter(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_SCATTER,
                        comm,
                        root,
                        MPI_OP_NULL,
                        side(sendbuf, sendcount, sendtype),
                        side(recvbuf, recvcount, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root, comm);
}

CH4COLL_API int MPI_Scatterv(const void *sendbuf, const int *sendcounts,
                             const int *displs, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_SCATTERV,
                        comm,
                        root,
                        MPI_OP_NULL,
                        vside(sendbuf, sendcounts, displs, sendtype),
                        side(recvbuf, recvcount, recvtype)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root, comm);
}

CH4COLL_API int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                   const int *recvcounts, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_REDUCE_SCATTER,
                        comm,
                        0,
                        op,
                        side(sendbuf, 0, dt),
                        vside(recvbuf, recvcounts, NULL, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op,
                                     comm);
}

CH4COLL_API int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                         int recvcount, MPI_Datatype dt,
                                         MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = {
        CH4COLL_REDUCE_SCATTER_BLOCK, comm, 0, op, side(sendbuf, recvcount, dt),
        side(recvbuf, recvcount, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op,
                                           comm);
}

CH4COLL_API int MPI_Barrier(MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_BARRIER,
                        comm,
                        0,
                        MPI_OP_NULL,
                        side(NULL, 0, MPI_DATATYPE_NULL),
                        side(NULL, 0, MPI_DATATYPE_NULL)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE ? rc : PMPI_Barrier(comm);
}

CH4COLL_API int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = {CH4COLL_SCAN,
                        comm,
                        0,
                        op,
                        side(sendbuf, count, dt),
                        side(recvbuf, count, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Scan(sendbuf, recvbuf, count, dt, op, comm);
}

CH4COLL_API int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    ch4coll_call_t c = {
        CH4COLL_EXSCAN,          comm, 0, op, side(sendbuf, count, dt),
        side(recvbuf, count, dt)};
    int rc = ch4coll_run(&c);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Exscan(sendbuf, recvbuf, count, dt, op, comm);
}
