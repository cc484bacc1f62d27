/*
 * host.h - what ch4coll asks of the MPI library it runs inside, besides
 * point-to-point (transport/transport.h): datatype and op facts, packing,
 * error reporting, and the progress of other outstanding work.
 *
 * One implementation per mode, chosen at link time:
 *   transport/pmpi.c   preload mode and SimGrid SMPI (PMPI_ calls)
 *   transport/mpich.c  inside MPICH (maint/build-mpich; MPIR_ calls, no
 *                      re-entry into the MPI_ layer)
 */
#ifndef CH4COLL_HOST_H
#define CH4COLL_HOST_H

#include <mpi.h>
#include <stddef.h>

#include "../algos/algo.h"

/* Size, extents and density of dt. */
void ch4coll_host_elem(MPI_Datatype dt, ch4coll_elem_t *e);

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

/* While a blocking schedule waits: move other outstanding work on (1 if
 * something moved).  Preload mode progresses its nonblocking collectives;
 * inside MPICH the transport's progress call already does. */
int ch4coll_host_progress_others(void);

/* Nonblocking collectives in flight that only this library progresses
 * (then a blocking schedule must not block inside the host). */
int ch4coll_host_busy(void);

/* The thread level is MPI_THREAD_MULTIPLE. */
int ch4coll_host_thread_multiple(void);

#endif /* CH4COLL_HOST_H */
