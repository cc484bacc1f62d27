/*
 * mpich.c - the transport inside MPICH (built only by maint/build-mpich,
 * with MPICH's internal headers); its host services are host/mpich.c.
 *
 * Point-to-point is MPICH's collective helpers (MPIC_Isend/Irecv) on the
 * communicator's collective context, so no duplicate communicator is
 * needed; the context is the MPIR_Comm.  Requests are MPIR_Request
 * pointers, completed by MPICH's progress engine.  Local reductions,
 * copies and packing are MPICH's internal routines (MPIR_Reduce_local,
 * MPIR_Localcopy, MPIR_Typerep_pack/unpack): nothing here re-enters the
 * MPI_ layer, which holds the global critical section under
 * MPI_THREAD_MULTIPLE.
 */
#include "mpiimpl.h"

#include "../util/util.h"
#include "transport.h"

/* Set while ch4coll's progress hook runs (entry/mpich.c): testsome then
 * only looks at its requests, it does not call into the progress engine
 * that called the hook. */
int ch4coll_mpich_in_hook;

static int ok(int mpi_errno)
{
    return mpi_errno == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

static int mpich_isend(void *ctx, const void *buf, size_t count,
                       MPI_Datatype dt, int peer, int tag, void *req)
{
    MPIR_Errflag_t ef = MPIR_ERR_NONE;

    return ok(MPIC_Isend(buf, (MPI_Aint) count, dt, peer, tag, ctx,
                         (MPIR_Request **) req, &ef));
}

static int mpich_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                       int peer, int tag, void *req)
{
    return ok(MPIC_Irecv(buf, (MPI_Aint) count, dt, peer, tag, ctx,
                         (MPIR_Request **) req));
}

static int mpich_testsome(void *ctx, int n, void *reqs, int *ndone, int *done)
{
    MPIR_Request **rq = reqs;
    int i, rc = CH4COLL_OK;

    (void) ctx;
    if (!ch4coll_mpich_in_hook && MPID_Progress_test(NULL) != MPI_SUCCESS)
        return CH4COLL_ERR_MPI;
    *ndone = 0;
    for (i = 0; i < n; i++) {
        if (!rq[i] || !MPIR_Request_is_complete(rq[i]))
            continue;
        if (rq[i]->status.MPI_ERROR != MPI_SUCCESS)
            rc = CH4COLL_ERR_MPI;
        MPIR_Request_free(rq[i]);
        rq[i] = NULL;
        done[(*ndone)++] = i;
    }
    return rc;
}

static int mpich_reduce(void *ctx, const void *in, void *inout, size_t count,
                        MPI_Datatype dt, MPI_Op op)
{
    (void) ctx;
    return ch4coll_reduce_local(in, inout, count, dt, op);
}

static int mpich_send(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag)
{
    MPIR_Errflag_t ef = MPIR_ERR_NONE;

    return ok(MPIC_Send(buf, (MPI_Aint) count, dt, peer, tag, ctx, &ef));
}

static int mpich_recv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag)
{
    MPIR_Errflag_t ef = MPIR_ERR_NONE;

    return ok(MPIC_Recv(buf, (MPI_Aint) count, dt, peer, tag, ctx,
                        MPI_STATUS_IGNORE, &ef));
}

const ch4coll_transport_t ch4coll_transport_mpich = {
    .name = "mpich",
    .req_size = sizeof(MPIR_Request *),
    .isend = mpich_isend,
    .irecv = mpich_irecv,
    .testsome = mpich_testsome,
    .reduce = mpich_reduce,
    .send = mpich_send,
    .recv = mpich_recv,
};
