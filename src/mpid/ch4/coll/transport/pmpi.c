/*
 * pmpi.c - the preload-mode transport: PMPI point-to-point on the private
 * duplicate of the user's communicator (core/comm_pmpi.c owns the
 * duplicate).  The host services through PMPI are host/pmpi.c.
 *
 * The context is the MPI_Comm itself.  Requests are MPI_Request.  A
 * message of more than INT_MAX elements (data movement above 2 GiB: the
 * schedules move MPI_BYTE) goes as one element of a datatype made for it,
 * (count / 2^30) blocks of 2^30 elements and the rest, which both sides
 * build alike; packing goes in pieces of at most INT_MAX bytes.  Counts
 * that MPI's int arguments cannot carry otherwise (a local reduction of
 * more than INT_MAX elements) are refused with CH4COLL_ERR_COUNT rather
 * than truncated.  Also used unchanged under SimGrid SMPI, whose PMPI_
 * symbols are real.
 */
#include "transport.h"

#include <limits.h>
#include <stdint.h>

#include "../util/util.h"

#define BIG_BLOCK ((size_t) 1 << 30) /* elements per block of a big type */

/* One element of *big holds count (> INT_MAX) elements of dt: a struct of
 * count / BIG_BLOCK blocks of BIG_BLOCK elements and the rest.  The type
 * signature is count times dt's, so it matches the peer's big type (or
 * any receive of count elements of dt).  The caller frees *big once the
 * operation is posted (MPI lets a pending operation keep it). */
static int big_type(size_t count, MPI_Datatype dt, MPI_Datatype *big)
{
    size_t q = count / BIG_BLOCK, r = count % BIG_BLOCK;
    MPI_Datatype block = MPI_DATATYPE_NULL, blocks = MPI_DATATYPE_NULL;
    MPI_Datatype types[2];
    MPI_Aint lb, extent, disp[2];
    int lens[2], rc;

    if (q > INT_MAX)
        return CH4COLL_ERR_COUNT;
    PMPI_Type_get_extent(dt, &lb, &extent);
    rc = PMPI_Type_contiguous((int) BIG_BLOCK, dt, &block);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_contiguous((int) q, block, &blocks);
    lens[0] = 1;
    lens[1] = (int) r;
    disp[0] = 0;
    disp[1] = (MPI_Aint) (q * BIG_BLOCK) * extent;
    types[0] = blocks;
    types[1] = dt;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_struct(2, lens, disp, types, big);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(big);
    if (blocks != MPI_DATATYPE_NULL)
        PMPI_Type_free(&blocks);
    if (block != MPI_DATATYPE_NULL)
        PMPI_Type_free(&block);
    return rc == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

/* A message as (n, t): (count, dt), or (1, a big type) when count does
 * not fit an int; done_with frees a big type after the call. */
static int message(size_t count, MPI_Datatype dt, int *n, MPI_Datatype *t)
{
    if (count <= INT_MAX) {
        *n = (int) count;
        *t = dt;
        return CH4COLL_OK;
    }
    *n = 1;
    return big_type(count, dt, t);
}

static int done_with(int rc, MPI_Datatype dt, MPI_Datatype t)
{
    if (t != dt)
        PMPI_Type_free(&t);
    return rc == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

static int pmpi_isend(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    MPI_Datatype t;
    int n, rc = message(count, dt, &n, &t);

    if (rc != CH4COLL_OK)
        return rc;
    return done_with(PMPI_Isend(buf, n, t, peer, tag, *(MPI_Comm *) ctx,
                                (MPI_Request *) req),
                     dt, t);
}

static int pmpi_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    MPI_Datatype t;
    int n, rc = message(count, dt, &n, &t);

    if (rc != CH4COLL_OK)
        return rc;
    return done_with(PMPI_Irecv(buf, n, t, peer, tag, *(MPI_Comm *) ctx,
                                (MPI_Request *) req),
                     dt, t);
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

/* Blocking, for a rank with a core of its own and nothing else of
 * ch4coll's in flight (core/run.c: wait_done): the host's wait polls its
 * progress engine without a round trip through the MPI layer per poll.
 * MPI_Waitany, not MPI_Waitsome: SMPI's Waitsome tests the other requests
 * after the first completion, and each of those tests costs simulated
 * time; on MPICH one completion per call is as cheap. */
static int pmpi_waitsome(void *ctx, int n, void *reqs, int *ndone, int *done)
{
    (void) ctx;
    if (PMPI_Waitany(n, reqs, done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return CH4COLL_ERR_MPI;
    *ndone = done[0] != MPI_UNDEFINED;
    return CH4COLL_OK;
}

static int pmpi_reduce(void *ctx, const void *in, void *inout, size_t count,
                       MPI_Datatype dt, MPI_Op op)
{
    (void) ctx;
    return ch4coll_reduce_local(in, inout, count, dt, op);
}

static int pmpi_send(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag)
{
    MPI_Datatype t;
    int n, rc = message(count, dt, &n, &t);

    if (rc != CH4COLL_OK)
        return rc;
    return done_with(PMPI_Send(buf, n, t, peer, tag, *(MPI_Comm *) ctx), dt, t);
}

static int pmpi_recv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag)
{
    MPI_Datatype t;
    int n, rc = message(count, dt, &n, &t);

    if (rc != CH4COLL_OK)
        return rc;
    return done_with(
        PMPI_Recv(buf, n, t, peer, tag, *(MPI_Comm *) ctx, MPI_STATUS_IGNORE),
        dt, t);
}

static int pmpi_sendrecv(void *ctx, const void *sbuf, size_t scount, int dst,
                         int stag, void *rbuf, size_t rcount, int src, int rtag,
                         MPI_Datatype dt)
{
    MPI_Datatype st, rt;
    int sn, rn, rc = message(scount, dt, &sn, &st);

    if (rc != CH4COLL_OK)
        return rc;
    rc = message(rcount, dt, &rn, &rt);
    if (rc != CH4COLL_OK) {
        done_with(MPI_SUCCESS, dt, st);
        return rc;
    }
    rc = PMPI_Sendrecv(sbuf, sn, st, dst, stag, rbuf, rn, rt, src, rtag,
                       *(MPI_Comm *) ctx, MPI_STATUS_IGNORE);
    done_with(MPI_SUCCESS, dt, rt);
    return done_with(rc, dt, st);
}

const ch4coll_transport_t ch4coll_transport_pmpi = {
    .name = "pmpi",
    .req_size = sizeof(MPI_Request),
    .isend = pmpi_isend,
    .irecv = pmpi_irecv,
    .testsome = pmpi_testsome,
    .reduce = pmpi_reduce,
    .send = pmpi_send,
    .recv = pmpi_recv,
    .sendrecv = pmpi_sendrecv,
    .waitsome = pmpi_waitsome,
};
