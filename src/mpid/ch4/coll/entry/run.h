/*
 * run.h - one collective call from MPI arguments to completion:
 * args -> select -> build or cache -> execute -> transport.
 */
#ifndef CH4COLL_RUN_H
#define CH4COLL_RUN_H

#include <mpi.h>

/* One side (send or receive) of a call, as the application passed it. */
typedef struct {
    const void *buf;
    int count; /* regular: elements per block */
    MPI_Datatype dt;
    const int *counts, *displs; /* v-collectives (elements), else NULL */
} ch4coll_side_t;

typedef struct {
    int coll; /* ch4coll_coll_t */
    MPI_Comm comm;
    int root;
    MPI_Op op;
    ch4coll_side_t snd, rcv; /* bcast: the buffer is rcv */
} ch4coll_call_t;

/* ch4coll_run() result meaning "call the host MPI's own collective". */
#define CH4COLL_RUN_NATIVE (-1000)

/* Run the call through ch4coll.  Returns MPI_SUCCESS, an MPI error code,
 * or CH4COLL_RUN_NATIVE. */
int ch4coll_run(const ch4coll_call_t *call);

#endif /* CH4COLL_RUN_H */
