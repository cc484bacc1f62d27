/*
 * pmpi.c - the preload-mode transport: PMPI point-to-point on the private
 * duplicate of the user's communicator (entry/comm_pmpi.c owns the
 * duplicate); and the host functions of entry/host.h through PMPI.
 *
 * The context is the MPI_Comm itself.  Requests are MPI_Request.  Counts
 * above INT_MAX are refused with CH4COLL_ERR_COUNT rather than truncated.
 * Also used unchanged under SimGrid SMPI, whose PMPI_ symbols are real.
 */
#include "transport.h"

#include <limits.h>

#include "../entry/host.h"
#include "../entry/nbc.h"
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

/* ------------------------------------------------------ entry/host.h */

void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;

    PMPI_Type_size(dt, &size);
    PMPI_Type_get_extent(dt, &lb, &extent);
    PMPI_Type_get_true_extent(dt, &tlb, &textent);
    e->dt = dt;
    e->size = (size_t) size;
    e->extent = (size_t) extent;
    e->true_lb = tlb;
    e->true_extent = (size_t) textent;
    e->dense = lb == 0 && tlb == 0 && extent == size && textent == size;
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
 * cases). */
int ch4coll_host_accepts(MPI_Datatype dt, MPI_Op op, const ch4coll_elem_t *e)
{
    int ni, na, nd, combiner, rc;
    MPI_Errhandler world, self;
    char *mem;

    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return 1;
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

int ch4coll_host_pack(const void *user, size_t n, MPI_Datatype dt, void *packed,
                      size_t bytes)
{
    int pos = 0;

    if (n > INT_MAX || bytes > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Pack(user, (int) n, dt, packed, (int) bytes, &pos,
                     MPI_COMM_SELF) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
}

int ch4coll_host_unpack(const void *packed, size_t bytes, void *user, size_t n,
                        MPI_Datatype dt)
{
    int pos = 0;

    if (n > INT_MAX || bytes > INT_MAX)
        return CH4COLL_ERR_COUNT;
    return PMPI_Unpack(packed, (int) bytes, &pos, user, (int) n, dt,
                       MPI_COMM_SELF) == MPI_SUCCESS
               ? CH4COLL_OK
               : CH4COLL_ERR_MPI;
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

int ch4coll_host_progress_others(void)
{
    return ch4coll_nb_outstanding() && ch4coll_nb_progress() > 0;
}

int ch4coll_host_busy(void)
{
    return ch4coll_nb_outstanding();
}

int ch4coll_host_thread_multiple(void)
{
    int provided = MPI_THREAD_SINGLE;

    PMPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE;
}
