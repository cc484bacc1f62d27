/*
 * pmpi.c - the preload-mode transport: PMPI point-to-point on the private
 * duplicate of the user's communicator (entry/comm.c owns the duplicate).
 *
 * The context is the MPI_Comm itself.  Requests are MPI_Request.  Counts
 * above INT_MAX are refused with CH4COLL_ERR_COUNT rather than truncated.
 * Also used unchanged under SimGrid SMPI, whose PMPI_ symbols are real.
 */
#include "transport.h"

#include <limits.h>
#include <string.h>

#include "../util/util.h"

static int pmpi_isend(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Isend(buf, (int) count, dt, peer, tag, *(MPI_Comm *) ctx,
                      (MPI_Request *) req) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

static int pmpi_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Irecv(buf, (int) count, dt, peer, tag, *(MPI_Comm *) ctx,
                      (MPI_Request *) req) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

static int pmpi_testsome(void *ctx, int n, void *reqs, int *ndone, int *done)
{
    MPI_Request *rq = reqs;
    int rc, flag;

    (void) ctx;
    if (n == 1) {
        /* the common case of a chain or a tree leaf: MPI_Test is cheaper */
        rc = PMPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        *ndone = flag;
        done[0] = 0;
        return rc == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
    }
    /* GCC takes MPI_STATUSES_IGNORE for a real array that is too small */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    rc = PMPI_Testsome(n, rq, ndone, done, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    if (rc != MPI_SUCCESS)
        return CH4COLL_ERR_MPI;
    if (*ndone == MPI_UNDEFINED)
        *ndone = 0;
    return CH4COLL_OK;
}

int ch4coll_reduce_local(const void *in, void *inout, size_t count,
                         MPI_Datatype dt, MPI_Op op)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Reduce_local(in, inout, (int) count, dt, op) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

static int pmpi_reduce(void *ctx, const void *in, void *inout, size_t count,
                       MPI_Datatype dt, MPI_Op op)
{
    (void) ctx;
    return ch4coll_reduce_local(in, inout, count, dt, op);
}

int ch4coll_typed_copy(const void *src, void *dst, size_t count,
                       MPI_Datatype dt, int dense, size_t extent)
{
    if (dense) {
        memmove(dst, src, count * extent);
        return CH4COLL_OK;
    }
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    /* MPI moves exactly the type map; a self sendrecv is its typed copy */
    return PMPI_Sendrecv(src, (int) count, dt, 0, 0, dst, (int) count, dt, 0, 0,
                         MPI_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

static int pmpi_send(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Send(buf, (int) count, dt, peer, tag, *(MPI_Comm *) ctx) ==
                   MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

static int pmpi_recv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Recv(buf, (int) count, dt, peer, tag, *(MPI_Comm *) ctx,
                     MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

const ch4coll_transport_t ch4coll_transport_pmpi = {
    "pmpi",        sizeof(MPI_Request), pmpi_isend, pmpi_irecv,
    pmpi_testsome, pmpi_reduce,         pmpi_send,  pmpi_recv};
