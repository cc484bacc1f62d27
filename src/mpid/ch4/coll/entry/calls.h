/*
 * calls.h - the MPI arguments of each collective as a ch4coll_call_t, in
 * one place for its blocking, nonblocking and persistent wrappers
 * (preload.c, preload_nb.c).
 */
#ifndef CH4COLL_CALLS_H
#define CH4COLL_CALLS_H

#include <mpi.h>

#include "../algos/algo.h"
#include "../core/run.h"

static inline ch4coll_side_t ch4coll_side(const void *buf, int count,
                                          MPI_Datatype dt)
{
    ch4coll_side_t s = {buf, count, dt, NULL, NULL};
    return s;
}

static inline ch4coll_side_t ch4coll_vside(const void *buf, const int *counts,
                                           const int *displs, MPI_Datatype dt)
{
    ch4coll_side_t s = {buf, 0, dt, counts, displs};
    return s;
}

static inline ch4coll_call_t ch4coll_call(int coll, MPI_Comm comm, int root,
                                          MPI_Op op, ch4coll_side_t snd,
                                          ch4coll_side_t rcv)
{
    ch4coll_call_t c = {.coll = coll,
                        .comm = comm,
                        .root = root,
                        .op = op,
                        .snd = snd,
                        .rcv = rcv};
    return c;
}

#define CH4COLL_NOSIDE ch4coll_side(NULL, 0, MPI_DATATYPE_NULL)

static inline ch4coll_call_t call_bcast(void *buf, int count, MPI_Datatype dt,
                                        int root, MPI_Comm comm)
{
    return ch4coll_call(CH4COLL_BCAST, comm, root, MPI_OP_NULL, CH4COLL_NOSIDE,
                        ch4coll_side(buf, count, dt));
}

/* reduce, allreduce, scan, exscan */
static inline ch4coll_call_t call_reduction(int coll, const void *sendbuf,
                                            void *recvbuf, int count,
                                            MPI_Datatype dt, MPI_Op op,
                                            int root, MPI_Comm comm)
{
    return ch4coll_call(coll, comm, root, op, ch4coll_side(sendbuf, count, dt),
                        ch4coll_side(recvbuf, count, dt));
}

/* allgather, alltoall, gather, scatter */
static inline ch4coll_call_t call_regular(int coll, const void *sendbuf,
                                          int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount,
                                          MPI_Datatype recvtype, int root,
                                          MPI_Comm comm)
{
    return ch4coll_call(coll, comm, root, MPI_OP_NULL,
                        ch4coll_side(sendbuf, sendcount, sendtype),
                        ch4coll_side(recvbuf, recvcount, recvtype));
}

/* allgatherv, gatherv: regular send side, v receive side */
static inline ch4coll_call_t
call_vrecv(int coll, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
           void *recvbuf, const int *recvcounts, const int *displs,
           MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return ch4coll_call(coll, comm, root, MPI_OP_NULL,
                        ch4coll_side(sendbuf, sendcount, sendtype),
                        ch4coll_vside(recvbuf, recvcounts, displs, recvtype));
}

static inline ch4coll_call_t
call_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
              MPI_Datatype sendtype, void *recvbuf, int recvcount,
              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return ch4coll_call(CH4COLL_SCATTERV, comm, root, MPI_OP_NULL,
                        ch4coll_vside(sendbuf, sendcounts, displs, sendtype),
                        ch4coll_side(recvbuf, recvcount, recvtype));
}

static inline ch4coll_call_t
call_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
               MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
               const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
    return ch4coll_call(CH4COLL_ALLTOALLV, comm, 0, MPI_OP_NULL,
                        ch4coll_vside(sendbuf, sendcounts, sdispls, sendtype),
                        ch4coll_vside(recvbuf, recvcounts, rdispls, recvtype));
}

static inline ch4coll_call_t
call_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return ch4coll_call(CH4COLL_REDUCE_SCATTER, comm, 0, op,
                        ch4coll_side(sendbuf, 0, dt),
                        ch4coll_vside(recvbuf, recvcounts, NULL, dt));
}

static inline ch4coll_call_t call_barrier(MPI_Comm comm)
{
    return ch4coll_call(CH4COLL_BARRIER, comm, 0, MPI_OP_NULL, CH4COLL_NOSIDE,
                        CH4COLL_NOSIDE);
}

#endif /* CH4COLL_CALLS_H */
