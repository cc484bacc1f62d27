/*
 * preload_nb.c - nonblocking and persistent collectives in preload mode,
 * and the progress they need from the rest of the MPI interface.
 *
 * MPI_I<coll> and MPI_<coll>_init describe their arguments as blocking
 * calls do (calls.h) and hand them to ch4coll_nb_create() (nbc.c); what
 * ch4coll does not run goes to the host MPI's own nonblocking or persistent
 * collective, whose request is returned unchanged.
 *
 * Progress.  Preload mode has no hook in the host MPI's progress engine, so
 * a schedule moves when the application calls into MPI: every wrapper here
 * moves the collectives in flight on.  While none is in flight (the
 * counter ch4coll_nb_nactive is 0) every wrapper is one test and a jump to
 * the PMPI_ function.  While some are, the waiting calls (MPI_Wait*,
 * blocking sends and receives, MPI_Probe, MPI_Mprobe) run as their testing
 * forms in a loop with ch4coll's progress in between, and the testing calls
 * progress once before they test.  Calls from Fortran bindings or other
 * MPI entry points do not pass here: a program that waits only there makes
 * progress only at its next C call.
 *
 * MPI_Start, MPI_Startall, MPI_Request_free and MPI_Cancel look the handle
 * up: ch4coll's requests are handled by nbc.c, every other one by the host.
 */
#include <mpi.h>

#include "ch4coll.h"

#include "../util/util.h"
#include "calls.h"
#include "../core/comm.h"
#include "../core/nbc.h"

/* ------------------------------------------ nonblocking collectives */

CH4COLL_API int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root,
                           MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c = call_bcast(buf, count, dt, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ibcast(buf, count, dt, root, comm, req);
}

CH4COLL_API int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                            MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE, sendbuf, recvbuf, count,
                                      dt, op, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, req);
}

CH4COLL_API int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                               MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_ALLREDUCE, sendbuf, recvbuf,
                                      count, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, req);
}

CH4COLL_API int MPI_Iallgather(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, comm, req);
}

CH4COLL_API int MPI_Iallgatherv(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                const int *recvcounts, const int *displs,
                                MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *req)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcounts, displs, recvtype, comm, req);
}

CH4COLL_API int MPI_Ialltoall(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf,
                                recvcount, recvtype, comm, req);
}

CH4COLL_API int MPI_Ialltoallv(const void *sendbuf, const int *sendcounts,
                               const int *sdispls, MPI_Datatype sendtype,
                               void *recvbuf, const int *recvcounts,
                               const int *rdispls, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c =
        call_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                 recvbuf, recvcounts, rdispls, recvtype, comm,
                                 req);
}

CH4COLL_API int MPI_Igather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, root, comm, req);
}

CH4COLL_API int MPI_Igatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int *recvcounts, const int *displs,
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request *req)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, root, comm, req);
}

CH4COLL_API int MPI_Iscatter(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, req);
}

CH4COLL_API int MPI_Iscatterv(const void *sendbuf, const int *sendcounts,
                              const int *displs, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request *req)
{
    ch4coll_call_t c = call_scatterv(sendbuf, sendcounts, displs, sendtype,
                                     recvbuf, recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                                recvcount, recvtype, root, comm, req);
}

CH4COLL_API int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                                    const int *recvcounts, MPI_Datatype dt,
                                    MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c =
        call_reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dt, op,
                                      comm, req);
}

CH4COLL_API int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                          int recvcount, MPI_Datatype dt,
                                          MPI_Op op, MPI_Comm comm,
                                          MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf,
                                      recvbuf, recvcount, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op,
                                            comm, req);
}

CH4COLL_API int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    ch4coll_call_t c = call_barrier(comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE ? rc : PMPI_Ibarrier(comm, req);
}

CH4COLL_API int MPI_Iscan(const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req)
{
    ch4coll_call_t c =
        call_reduction(CH4COLL_SCAN, sendbuf, recvbuf, count, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iscan(sendbuf, recvbuf, count, dt, op, comm, req);
}

CH4COLL_API int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                            MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_EXSCAN, sendbuf, recvbuf, count,
                                      dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 0, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Iexscan(sendbuf, recvbuf, count, dt, op, comm, req);
}

/* ------------------------------------------- persistent collectives */

#if MPI_VERSION >= 4

CH4COLL_API int MPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c = call_bcast(buf, count, dt, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Bcast_init(buf, count, dt, root, comm, info, req);
}

CH4COLL_API int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype dt, MPI_Op op, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE, sendbuf, recvbuf, count,
                                      dt, op, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce_init(sendbuf, recvbuf, count, dt, op, root, comm,
                                  info, req);
}

CH4COLL_API int MPI_Allreduce_init(const void *sendbuf, void *recvbuf,
                                   int count, MPI_Datatype dt, MPI_Op op,
                                   MPI_Comm comm, MPI_Info info,
                                   MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_ALLREDUCE, sendbuf, recvbuf,
                                      count, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allreduce_init(sendbuf, recvbuf, count, dt, op, comm,
                                     info, req);
}

CH4COLL_API int MPI_Allgather_init(const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info,
                                   MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, comm, info, req);
}

CH4COLL_API int MPI_Allgatherv_init(const void *sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void *recvbuf,
                                    const int *recvcounts, const int *displs,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Allgatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcounts, displs, recvtype, comm, info,
                                      req);
}

CH4COLL_API int MPI_Alltoall_init(const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, comm, info, req);
}

CH4COLL_API int MPI_Alltoallv_init(const void *sendbuf, const int *sendcounts,
                                   const int *sdispls, MPI_Datatype sendtype,
                                   void *recvbuf, const int *recvcounts,
                                   const int *rdispls, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info,
                                   MPI_Request *req)
{
    ch4coll_call_t c =
        call_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Alltoallv_init(sendbuf, sendcounts, sdispls, sendtype,
                                     recvbuf, recvcounts, rdispls, recvtype,
                                     comm, info, req);
}

CH4COLL_API int MPI_Gather_init(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Gather_init(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, info, req);
}

CH4COLL_API int MPI_Gatherv_init(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 const int *recvcounts, const int *displs,
                                 MPI_Datatype recvtype, int root, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c =
        call_vrecv(CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
                   recvcounts, displs, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Gatherv_init(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcounts, displs, recvtype, root, comm,
                                   info, req);
}

CH4COLL_API int MPI_Scatter_init(const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c =
        call_regular(CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                     recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, root, comm, info, req);
}

CH4COLL_API int MPI_Scatterv_init(const void *sendbuf, const int *sendcounts,
                                  const int *displs, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *req)
{
    ch4coll_call_t c = call_scatterv(sendbuf, sendcounts, displs, sendtype,
                                     recvbuf, recvcount, recvtype, root, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Scatterv_init(sendbuf, sendcounts, displs, sendtype,
                                    recvbuf, recvcount, recvtype, root, comm,
                                    info, req);
}

CH4COLL_API int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                        const int *recvcounts, MPI_Datatype dt,
                                        MPI_Op op, MPI_Comm comm, MPI_Info info,
                                        MPI_Request *req)
{
    ch4coll_call_t c =
        call_reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, dt, op,
                                          comm, info, req);
}

CH4COLL_API int MPI_Reduce_scatter_block_init(const void *sendbuf,
                                              void *recvbuf, int recvcount,
                                              MPI_Datatype dt, MPI_Op op,
                                              MPI_Comm comm, MPI_Info info,
                                              MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf,
                                      recvbuf, recvcount, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE
               ? rc
               : PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, dt,
                                                op, comm, info, req);
}

CH4COLL_API int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c = call_barrier(comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE ? rc : PMPI_Barrier_init(comm, info, req);
}

CH4COLL_API int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                              MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c =
        call_reduction(CH4COLL_SCAN, sendbuf, recvbuf, count, dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE ? rc
                                    : PMPI_Scan_init(sendbuf, recvbuf, count,
                                                     dt, op, comm, info, req);
}

CH4COLL_API int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                MPI_Info info, MPI_Request *req)
{
    ch4coll_call_t c = call_reduction(CH4COLL_EXSCAN, sendbuf, recvbuf, count,
                                      dt, op, 0, comm);
    int rc = ch4coll_nb_create(&c, 1, req);

    return rc != CH4COLL_RUN_NATIVE ? rc
                                    : PMPI_Exscan_init(sendbuf, recvbuf, count,
                                                       dt, op, comm, info, req);
}

#endif /* MPI_VERSION >= 4 */

CH4COLL_API int MPI_Start(MPI_Request *req)
{
    int handled, rc = ch4coll_nb_start(req, &handled);

    return handled ? rc : PMPI_Start(req);
}

CH4COLL_API int MPI_Startall(int n, MPI_Request reqs[])
{
    int i, handled, rc = MPI_SUCCESS;

    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        rc = ch4coll_nb_start(&reqs[i], &handled);
        if (!handled)
            rc = PMPI_Start(&reqs[i]);
    }
    return rc;
}

CH4COLL_API int MPI_Request_free(MPI_Request *req)
{
    int handled, rc = ch4coll_nb_request_free(req, &handled);

    return handled ? rc : PMPI_Request_free(req);
}

CH4COLL_API int MPI_Cancel(MPI_Request *req)
{
    int handled, rc = ch4coll_nb_cancel(req, &handled);

    return handled ? rc : PMPI_Cancel(req);
}

/* Collectives still in flight are completed first; if they cannot be,
 * ch4coll_nb_finalize ends the job with MPI_Abort rather than let the
 * host's MPI_Finalize wait for them forever (nbc.c). */
CH4COLL_API int MPI_Finalize(void)
{
    ch4coll_nb_finalize();
#ifdef CH4COLL_SMPI
    ch4coll_finalize();
#endif
    return PMPI_Finalize();
}

/* --------------------------------------------- the wait/test family */

static void poke(void)
{
    if (ch4coll_nb_outstanding())
        ch4coll_nb_progress();
}

typedef struct {
    int n;
    MPI_Request *reqs;
    MPI_Status *st;
    int *index, *outcount, *indices;
} wait_args_t;

static int test_wait(void *ctx, int *flag)
{
    wait_args_t *w = ctx;

    return PMPI_Test(w->reqs, flag, w->st);
}

static int test_waitall(void *ctx, int *flag)
{
    wait_args_t *w = ctx;

    return PMPI_Testall(w->n, w->reqs, flag, w->st);
}

static int test_waitany(void *ctx, int *flag)
{
    wait_args_t *w = ctx;

    return PMPI_Testany(w->n, w->reqs, w->index, flag, w->st);
}

static int test_waitsome(void *ctx, int *flag)
{
    wait_args_t *w = ctx;
    int rc = PMPI_Testsome(w->n, w->reqs, w->outcount, w->indices, w->st);

    *flag = *w->outcount != 0; /* some completed, or MPI_UNDEFINED */
    return rc;
}

CH4COLL_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    wait_args_t w = {1, req, status, NULL, NULL, NULL};

    return !ch4coll_nb_outstanding() ? PMPI_Wait(req, status)
                                     : ch4coll_nb_wait_until(test_wait, &w);
}

CH4COLL_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status st[])
{
    wait_args_t w = {n, reqs, st, NULL, NULL, NULL};

    return !ch4coll_nb_outstanding() ? PMPI_Waitall(n, reqs, st)
                                     : ch4coll_nb_wait_until(test_waitall, &w);
}

CH4COLL_API int MPI_Waitany(int n, MPI_Request reqs[], int *index,
                            MPI_Status *status)
{
    wait_args_t w = {n, reqs, status, index, NULL, NULL};

    return !ch4coll_nb_outstanding() ? PMPI_Waitany(n, reqs, index, status)
                                     : ch4coll_nb_wait_until(test_waitany, &w);
}

CH4COLL_API int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount,
                             int indices[], MPI_Status st[])
{
    wait_args_t w = {n, reqs, st, NULL, outcount, indices};

    return !ch4coll_nb_outstanding()
               ? PMPI_Waitsome(n, reqs, outcount, indices, st)
               : ch4coll_nb_wait_until(test_waitsome, &w);
}

CH4COLL_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    poke();
    return PMPI_Test(req, flag, status);
}

CH4COLL_API int MPI_Testall(int n, MPI_Request reqs[], int *flag,
                            MPI_Status st[])
{
    poke();
    return PMPI_Testall(n, reqs, flag, st);
}

CH4COLL_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                            MPI_Status *status)
{
    poke();
    return PMPI_Testany(n, reqs, index, flag, status);
}

CH4COLL_API int MPI_Testsome(int n, MPI_Request reqs[], int *outcount,
                             int indices[], MPI_Status st[])
{
    poke();
    return PMPI_Testsome(n, reqs, outcount, indices, st);
}

CH4COLL_API int MPI_Request_get_status(MPI_Request req, int *flag,
                                       MPI_Status *status)
{
    poke();
    return PMPI_Request_get_status(req, flag, status);
}

/* ------------------------------------- blocking point-to-point, probe */

/* A blocking call as its nonblocking form (request r) plus a wait with
 * progress, while collectives are in flight (each caller below: the
 * blocking form when ch4coll_nb_outstanding() is 0, else this). */
static int wait_req(int rc, MPI_Request *r, MPI_Status *status)
{
    wait_args_t w = {1, r, status, NULL, NULL, NULL};

    return rc != MPI_SUCCESS ? rc : ch4coll_nb_wait_until(test_wait, &w);
}

typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int isend_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                     MPI_Request *);

static int send_via(send_fn *blocking, isend_fn *nonblocking, const void *buf,
                    int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm)
{
    MPI_Request r;

    if (!ch4coll_nb_outstanding())
        return blocking(buf, count, dt, dest, tag, comm);
    return wait_req(nonblocking(buf, count, dt, dest, tag, comm, &r), &r,
                    MPI_STATUS_IGNORE);
}

CH4COLL_API int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest,
                         int tag, MPI_Comm comm)
{
    return send_via(PMPI_Send, PMPI_Isend, buf, count, dt, dest, tag, comm);
}

CH4COLL_API int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest,
                          int tag, MPI_Comm comm)
{
    return send_via(PMPI_Ssend, PMPI_Issend, buf, count, dt, dest, tag, comm);
}

CH4COLL_API int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest,
                          int tag, MPI_Comm comm)
{
    return send_via(PMPI_Rsend, PMPI_Irsend, buf, count, dt, dest, tag, comm);
}

CH4COLL_API int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest,
                          int tag, MPI_Comm comm)
{
    return send_via(PMPI_Bsend, PMPI_Ibsend, buf, count, dt, dest, tag, comm);
}

CH4COLL_API int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source,
                         int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request r;

    if (!ch4coll_nb_outstanding())
        return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    return wait_req(PMPI_Irecv(buf, count, dt, source, tag, comm, &r), &r,
                    status);
}

CH4COLL_API int MPI_Mrecv(void *buf, int count, MPI_Datatype dt,
                          MPI_Message *msg, MPI_Status *status)
{
    MPI_Request r;

    if (!ch4coll_nb_outstanding())
        return PMPI_Mrecv(buf, count, dt, msg, status);
    return wait_req(PMPI_Imrecv(buf, count, dt, msg, &r), &r, status);
}

#if MPI_VERSION >= 4
CH4COLL_API int MPI_Sendrecv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, int dest, int sendtag,
                             void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status *status)
{
    MPI_Request r;

    if (!ch4coll_nb_outstanding())
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                             recvbuf, recvcount, recvtype, source, recvtag,
                             comm, status);
    return wait_req(PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                                   recvbuf, recvcount, recvtype, source,
                                   recvtag, comm, &r),
                    &r, status);
}

CH4COLL_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt,
                                     int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm,
                                     MPI_Status *status)
{
    MPI_Request r;

    if (!ch4coll_nb_outstanding())
        return PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source,
                                     recvtag, comm, status);
    return wait_req(PMPI_Isendrecv_replace(buf, count, dt, dest, sendtag,
                                           source, recvtag, comm, &r),
                    &r, status);
}
#endif /* MPI_VERSION >= 4 */

typedef struct {
    int source, tag;
    MPI_Comm comm;
    MPI_Message *msg;
    MPI_Status *status;
} probe_args_t;

static int test_probe(void *ctx, int *flag)
{
    probe_args_t *p = ctx;

    return p->msg ? PMPI_Improbe(p->source, p->tag, p->comm, flag, p->msg,
                                 p->status)
                  : PMPI_Iprobe(p->source, p->tag, p->comm, flag, p->status);
}

CH4COLL_API int MPI_Probe(int source, int tag, MPI_Comm comm,
                          MPI_Status *status)
{
    probe_args_t p = {source, tag, comm, NULL, status};

    return !ch4coll_nb_outstanding() ? PMPI_Probe(source, tag, comm, status)
                                     : ch4coll_nb_wait_until(test_probe, &p);
}

CH4COLL_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg,
                           MPI_Status *status)
{
    probe_args_t p = {source, tag, comm, msg, status};

    return !ch4coll_nb_outstanding()
               ? PMPI_Mprobe(source, tag, comm, msg, status)
               : ch4coll_nb_wait_until(test_probe, &p);
}

CH4COLL_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                           MPI_Status *status)
{
    poke();
    return PMPI_Iprobe(source, tag, comm, flag, status);
}

CH4COLL_API int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                            MPI_Message *msg, MPI_Status *status)
{
    poke();
    return PMPI_Improbe(source, tag, comm, flag, msg, status);
}
