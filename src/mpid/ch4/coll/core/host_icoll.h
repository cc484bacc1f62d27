/*
 * host_icoll.h - a described call as the host MPI's nonblocking
 * collective (preload mode; host_icoll.c says when ch4coll needs it).
 */
#ifndef CH4COLL_HOST_ICOLL_H
#define CH4COLL_HOST_ICOLL_H

#include <mpi.h>

#include "run.h"

/* Post the host's MPI_I<coll> for call k on comm (not k's own
 * communicator); returns the host's MPI error code. */
int ch4coll_host_icoll(const ch4coll_call_t *k, MPI_Comm comm, MPI_Request *r);

#endif /* CH4COLL_HOST_ICOLL_H */
