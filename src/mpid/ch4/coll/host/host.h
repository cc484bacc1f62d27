/*
 * host.h - what ch4coll asks of the MPI library it runs inside, besides
 * point-to-point (transport/transport.h): datatype and op facts, typed
 * copies, local reductions, packing, error reporting, and the progress of
 * other outstanding work.
 *
 * One implementation per mode, chosen at link time:
 *   host/pmpi.c    preload mode and SimGrid SMPI (PMPI_ calls)
 *   host/mpich.c   inside MPICH (maint/build-mpich; MPIR_ calls, no
 *                  re-entry into the MPI_ layer)
 * and host/progress.c, the hook through which the layer above lends its
 * progress (both modes).
 */
#ifndef CH4COLL_HOST_H
#define CH4COLL_HOST_H

#include <mpi.h>
#include <stddef.h>

/* The element the schedule moves and reduces: the user's datatype for
 * reductions, MPI_BYTE (extent 1) for data movement. */
typedef struct {
    MPI_Datatype dt;
    size_t size;        /* bytes of data per element */
    size_t extent;      /* bytes between consecutive elements */
    ptrdiff_t true_lb;  /* first byte touched, relative to base */
    size_t true_extent; /* bytes spanned by one element */
    int dense;          /* no gaps: memmove is a valid copy */
} ch4coll_elem_t;

/* Size, extents and density of dt. */
void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e);

/* *e from what the host says of dt (both modes' ch4coll_host_elem). */
static inline void ch4coll_elem_set(ch4coll_elem_t *e, MPI_Datatype dt,
                                    MPI_Aint size, MPI_Aint lb, MPI_Aint extent,
                                    MPI_Aint tlb, MPI_Aint textent)
{
    e->dt = dt;
    e->size = (size_t) size;
    e->extent = (size_t) extent;
    e->true_lb = tlb;
    e->true_extent = (size_t) textent;
    e->dense = lb == 0 && tlb == 0 && extent == size && textent == size;
}

/* 1 if dt is a predefined datatype (its handle means the same type on
 * every process). */
int ch4coll_host_type_predefined(MPI_Datatype dt);

/* 1 if op is commutative. */
int ch4coll_host_commutative(MPI_Op op);

/* Does the host define predefined op on (possibly derived) dt?  When it
 * does not, the call goes to the host, which reports MPI_ERR_OP. */
int ch4coll_host_accepts(MPI_Datatype dt, MPI_Op op, const ch4coll_elem_t *e);

/* Does the host's MPI_Reduce_local take predefined op on dt, named or
 * not (a one-element probe)?  Preload mode only. */
int ch4coll_host_reduce_defined(MPI_Datatype dt, MPI_Op op,
                                const ch4coll_elem_t *e);

/* Pack n elements of dt at user into packed (bytes long), or back. */
int ch4coll_host_pack(const void *user, size_t n, MPI_Datatype dt, void *packed,
                      size_t bytes);
int ch4coll_host_unpack(const void *packed, size_t bytes, void *user, size_t n,
                        MPI_Datatype dt);

/* Report a CH4COLL_ERR_* code for a call on comm and return the MPI error
 * class: preload mode calls the communicator's error handler (it is the
 * MPI_ layer); inside MPICH the MPI_ layer above does that. */
int ch4coll_host_error(MPI_Comm comm, int rc);

/* inout = in op inout through PMPI_Reduce_local (count checked). */
int ch4coll_reduce_local(const void *in, void *inout, size_t count,
                         MPI_Datatype dt, MPI_Op op);

/* Typed local copy of count elements of a non-dense dt, exactly its type
 * map (the executor copies dense elements with memmove itself). */
int ch4coll_typed_copy(const void *src, void *dst, size_t count,
                       MPI_Datatype dt);

/* The progress of other work: the layer that owns it (core/nbc.c, the
 * nonblocking collectives of preload mode) registers two functions, and
 * a blocking schedule below reaches it only through them.  Inside MPICH
 * nothing registers: its progress engine runs everything. */
void ch4coll_host_set_progress(int (*others)(void), int (*busy)(void));

/* While a blocking schedule waits: move other outstanding work on (1 if
 * something moved); 0 with nothing registered. */
int ch4coll_host_progress_others(void);

/* Other work in flight that only this library progresses (then a blocking
 * schedule must not block inside the host); 0 with nothing registered. */
int ch4coll_host_busy(void);

/* The thread level is MPI_THREAD_MULTIPLE. */
int ch4coll_host_thread_multiple(void);

#endif /* CH4COLL_HOST_H */
