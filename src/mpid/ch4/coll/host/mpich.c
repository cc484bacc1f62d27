/*
 * mpich.c - the host services of host.h inside MPICH (built only by
 * maint/build-mpich, with MPICH's internal headers): MPIR_Reduce_local,
 * MPIR_Localcopy, MPIR_Typerep_pack/unpack and MPICH's error codes.
 * Nothing here re-enters the MPI_ layer.
 */
#include "mpiimpl.h"

#include "../util/util.h"
#include "host.h"

static int ok(int mpi_errno)
{
    return mpi_errno == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

int ch4coll_reduce_local(const void *in, void *inout, size_t count,
                         MPI_Datatype dt, MPI_Op op)
{
    return ok(MPIR_Reduce_local(in, inout, (MPI_Aint) count, dt, op));
}

int ch4coll_typed_copy(const void *src, void *dst, size_t count,
                       MPI_Datatype dt)
{
    return ok(
        MPIR_Localcopy(src, (MPI_Aint) count, dt, dst, (MPI_Aint) count, dt));
}

void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e)
{
    MPI_Aint size, lb, extent, tlb, textent;

    MPIR_Datatype_get_size_macro(dt, size);
    MPIR_Type_get_extent_impl(dt, &lb, &extent);
    MPIR_Type_get_true_extent_impl(dt, &tlb, &textent);
    ch4coll_elem_set(e, dt, (MPI_Aint) size, lb, extent, tlb, textent);
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

int ch4coll_host_thread_multiple(void)
{
    return MPIR_ThreadInfo.thread_provided == MPI_THREAD_MULTIPLE;
}
