/*
 * mpich.c - the transport and host functions inside MPICH (built only by
 * maint/build-mpich, with MPICH's internal headers).
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

#include "../entry/host.h"
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

int ch4coll_reduce_local(const void *in, void *inout, size_t count,
                         MPI_Datatype dt, MPI_Op op)
{
    return ok(MPIR_Reduce_local(in, inout, (MPI_Aint) count, dt, op));
}

static int mpich_reduce(void *ctx, const void *in, void *inout, size_t count,
                        MPI_Datatype dt, MPI_Op op)
{
    (void) ctx;
    return ch4coll_reduce_local(in, inout, count, dt, op);
}

int ch4coll_typed_copy(const void *src, void *dst, size_t count,
                       MPI_Datatype dt)
{
    return ok(
        MPIR_Localcopy(src, (MPI_Aint) count, dt, dst, (MPI_Aint) count, dt));
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

/* ------------------------------------------------------ entry/host.h */

void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e)
{
    MPI_Aint size, lb, extent, tlb, textent;

    MPIR_Datatype_get_size_macro(dt, size);
    MPIR_Type_get_extent_impl(dt, &lb, &extent);
    MPIR_Type_get_true_extent_impl(dt, &tlb, &textent);
    e->dt = dt;
    e->size = (size_t) size;
    e->extent = (size_t) extent;
    e->true_lb = tlb;
    e->true_extent = (size_t) textent;
    e->dense = lb == 0 && tlb == 0 && extent == size && textent == size;
}

int ch4coll_host_type_predefined(MPI_Datatype dt)
{
    return MPIR_DATATYPE_IS_PREDEFINED(dt);
}

int ch4coll_host_commutative(MPI_Op op)
{
    return MPIR_Op_is_commutative(op);
}

/* One element through MPICH's own local reduction: an error code is
 * only returned, no handler runs at this level. */
int ch4coll_host_accepts(MPI_Datatype dt, MPI_Op op, const ch4coll_elem_t *e)
{
    char *mem;
    int rc;

    if (HANDLE_IS_BUILTIN(dt))
        return 1;
    mem = ch4coll_calloc(2, e->true_extent ? e->true_extent : 1);
    if (!mem)
        return 0;
    rc = MPIR_Reduce_local(mem - e->true_lb, mem + e->true_extent - e->true_lb,
                           1, dt, op);
    ch4coll_free(mem);
    return rc == MPI_SUCCESS;
}

int ch4coll_host_pack(const void *user, size_t n, MPI_Datatype dt, void *packed,
                      size_t bytes)
{
    MPI_Aint done = 0;
    int rc = MPIR_Typerep_pack(user, (MPI_Aint) n, dt, 0, packed,
                               (MPI_Aint) bytes, &done);

    return rc == MPI_SUCCESS && (size_t) done == bytes ? CH4COLL_OK
                                                       : CH4COLL_ERR_MPI;
}

int ch4coll_host_unpack(const void *packed, size_t bytes, void *user, size_t n,
                        MPI_Datatype dt)
{
    MPI_Aint done = 0;
    int rc = MPIR_Typerep_unpack(packed, (MPI_Aint) bytes, user, (MPI_Aint) n,
                                 dt, 0, &done);

    return rc == MPI_SUCCESS && (size_t) done == bytes ? CH4COLL_OK
                                                       : CH4COLL_ERR_MPI;
}

/* MPICH's MPI_ layer calls the communicator's error handler with what
 * the collective returns.  (MPICH's message extraction wants the class
 * as a literal in each call.) */
int ch4coll_host_error(MPI_Comm comm, int rc)
{
    const char *msg = ch4coll_strerror(rc);

    (void) comm;
    ch4coll_log(CH4COLL_LOG_WARN, "error: %s", msg);
    if (rc == CH4COLL_ERR_COUNT)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                    __LINE__, MPI_ERR_COUNT, "**ch4coll",
                                    "**ch4coll %s", msg);
    if (rc == CH4COLL_ERR_ARG || rc == CH4COLL_ERR_MISMATCH)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                    __LINE__, MPI_ERR_ARG, "**ch4coll",
                                    "**ch4coll %s", msg);
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                __LINE__, MPI_ERR_OTHER, "**ch4coll",
                                "**ch4coll %s", msg);
}

int ch4coll_host_progress_others(void)
{
    return 0; /* MPID_Progress_test in testsome runs everything */
}

int ch4coll_host_busy(void)
{
    return 0; /* a blocking call inside MPICH progresses everything */
}

int ch4coll_host_thread_multiple(void)
{
    return MPIR_ThreadInfo.thread_provided == MPI_THREAD_MULTIPLE;
}
