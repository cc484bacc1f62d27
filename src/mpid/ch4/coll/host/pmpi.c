/*
 * pmpi.c - the host services of host.h through PMPI: preload mode and
 * SimGrid SMPI.  Counts that MPI's int arguments cannot carry (a local
 * reduction of more than INT_MAX elements) are refused with
 * CH4COLL_ERR_COUNT rather than truncated; packing goes in pieces of at
 * most INT_MAX bytes.
 */
#include "host.h"

#include <limits.h>
#include <stdint.h>

#include "../util/util.h"

int ch4coll_reduce_local(const void *in, void *inout, size_t count,
                         MPI_Datatype dt, MPI_Op op)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Reduce_local(in, inout, (int) count, dt, op) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

int ch4coll_typed_copy(const void *src, void *dst, size_t count,
                       MPI_Datatype dt)
{
    if (count > INT_MAX)
        return CH4COLL_ERR_COUNT;
    /* MPI moves exactly the type map; a self sendrecv is its typed copy */
    return PMPI_Sendrecv(src, (int) count, dt, 0, 0, dst, (int) count, dt, 0, 0,
                         MPI_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

/* Sizes through MPI_Type_size_x: a datatype of more than INT_MAX bytes
 * has MPI_UNDEFINED as its int size, which must not become a byte count. */
void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e)
{
    MPI_Count size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;

    PMPI_Type_size_x(dt, &size);
    PMPI_Type_get_extent(dt, &lb, &extent);
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    if (size < 0) /* MPI_UNDEFINED: too large even for MPI_Count */
        size = 0;
    ch4coll_elem_set(e, dt, (MPI_Aint) size, lb, extent, tlb, textent);
}

int ch4coll_host_type_predefined(MPI_Datatype dt)
{
    int ni, na, nd, combiner = MPI_COMBINER_NAMED;

    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
    return combiner == MPI_COMBINER_NAMED;
}

int ch4coll_host_commutative(MPI_Op op)
{
    int commute = 0;

    PMPI_Op_commutative(op, &commute);
    return commute;
}

/* Probed with one element and the error handlers set to return (MPICH
 * defines MPI_SUM on a contiguous type of MPI_INT, say, only in some
 * cases; and MPI_LXOR on MPI_DOUBLE, which MPI does not require). */
int ch4coll_host_reduce_defined(MPI_Datatype dt, MPI_Op op,
                                const ch4coll_elem_t *e)
{
    MPI_Errhandler world, self;
    char *mem;
    int rc;

    mem = ch4coll_calloc(2, e->true_extent ? e->true_extent : 1);
    if (!mem)
        return 0;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = PMPI_Reduce_local(mem - e->true_lb, mem + e->true_extent - e->true_lb,
                           1, dt, op);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    PMPI_Errhandler_free(&world);
    PMPI_Errhandler_free(&self);
    ch4coll_free(mem);
    return rc == MPI_SUCCESS;
}

int ch4coll_host_accepts(MPI_Datatype dt, MPI_Op op, const ch4coll_elem_t *e)
{
    return ch4coll_host_type_predefined(dt) ||
           ch4coll_host_reduce_defined(dt, op, e);
}

/* Elements of dt per piece of a pack or unpack: its bytes fit an int. */
static size_t piece_elems(MPI_Datatype dt, size_t n, size_t bytes,
                          size_t *extent)
{
    MPI_Aint lb, ext;
    size_t size = n ? bytes / n : 1, k;

    PMPI_Type_get_extent(dt, &lb, &ext);
    *extent = (size_t) ext;
    k = size ? (size_t) INT_MAX / size : n;
    return k < 1 ? 1 : k;
}

/* Pack (or unpack) n elements of dt in pieces whose packed size fits
 * MPI's int arguments. */
static int pack_pieces(void *user, size_t n, MPI_Datatype dt, void *packed,
                       size_t bytes, int unpack)
{
    size_t extent, k = piece_elems(dt, n, bytes, &extent), done = 0;
    size_t size = n ? bytes / n : 0;
    int rc = MPI_SUCCESS, pos;

    if (size > INT_MAX)
        return CH4COLL_ERR_COUNT; /* one element above 2 GiB */
    while (done < n && rc == MPI_SUCCESS) {
        size_t m = n - done < k ? n - done : k;
        char *u = (char *) user + done * extent;
        char *p = (char *) packed + done * size;
        pos = 0;
        rc = unpack ? PMPI_Unpack(p, (int) (m * size), &pos, u, (int) m, dt,
                                  MPI_COMM_SELF)
                    : PMPI_Pack(u, (int) m, dt, p, (int) (m * size), &pos,
                                MPI_COMM_SELF);
        done += m;
    }
    return rc == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

int ch4coll_host_pack(const void *user, size_t n, MPI_Datatype dt, void *packed,
                      size_t bytes)
{
    return pack_pieces((void *) (uintptr_t) user, n, dt, packed, bytes, 0);
}

int ch4coll_host_unpack(const void *packed, size_t bytes, void *user, size_t n,
                        MPI_Datatype dt)
{
    return pack_pieces(user, n, dt, (void *) (uintptr_t) packed, bytes, 1);
}

int ch4coll_host_error(MPI_Comm comm, int rc)
{
    int code = rc == CH4COLL_ERR_COUNT ? MPI_ERR_COUNT
               : rc == CH4COLL_ERR_ARG || rc == CH4COLL_ERR_MISMATCH
                   ? MPI_ERR_ARG
                   : MPI_ERR_OTHER;

    ch4coll_log(CH4COLL_LOG_WARN, "error: %s", ch4coll_strerror(rc));
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

int ch4coll_host_thread_multiple(void)
{
    int provided = MPI_THREAD_SINGLE;

    PMPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE;
}
