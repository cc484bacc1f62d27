/*
 * cost.c - the per-call instruction cost of a cached schedule, for
 * maint/callgrind-cost.  Each function below calls one collective ITERS
 * times, through ch4coll (MPI_) or the host MPI (PMPI_); callgrind's
 * inclusive count of the function divided by ITERS is the cost of one
 * call.  On MPI_COMM_SELF nothing waits, so the count is the pure overhead
 * of the path (lookup, bind, start, progress, complete) next to the host
 * MPI's own path for the same call; on 2 ranks it includes the transport
 * and the polling while the peer is late.
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 10000
#define N     8 /* bytes per rank: the small-message path */

/* noinline: callgrind must see each loop as its own function */
#define LOOP __attribute__((noinline))

/* ch4coll_<coll> and native_<coll>: the same loop through MPI_ and PMPI_. */
#define PAIR(coll, call)                                                       \
    LOOP static void ch4coll_##coll(MPI_Comm comm, char *a, char *b)           \
    {                                                                          \
        for (int i = 0; i < ITERS; i++)                                        \
            MPI_##call;                                                        \
    }                                                                          \
    LOOP static void native_##coll(MPI_Comm comm, char *a, char *b)            \
    {                                                                          \
        for (int i = 0; i < ITERS; i++)                                        \
            PMPI_##call;                                                       \
    }

PAIR(allreduce, Allreduce(a, b, 2, MPI_FLOAT, MPI_SUM, comm))
PAIR(reduce, Reduce(a, b, 2, MPI_FLOAT, MPI_SUM, 0, comm))
PAIR(bcast, Bcast(a, N, MPI_CHAR, 0, comm))
PAIR(scatter, Scatter(a, N, MPI_CHAR, b, N, MPI_CHAR, 0, comm))
PAIR(gather, Gather(a, N, MPI_CHAR, b, N, MPI_CHAR, 0, comm))
PAIR(allgather, Allgather(a, N, MPI_CHAR, b, N, MPI_CHAR, comm))
PAIR(barrier, Barrier(comm))

typedef void loop_fn(MPI_Comm, char *, char *);

int main(int argc, char **argv)
{
    static char a[4 * N], b[4 * N];
    loop_fn *const loops[] = {
        ch4coll_allreduce, native_allreduce,  ch4coll_reduce,
        native_reduce,     ch4coll_bcast,     native_bcast,
        ch4coll_scatter,   native_scatter,    ch4coll_gather,
        native_gather,     ch4coll_allgather, native_allgather,
        ch4coll_barrier,   native_barrier};
    MPI_Comm comm = MPI_COMM_SELF;
    size_t i;

    MPI_Init(&argc, &argv);
    if (argc > 1) /* "world": the 2-rank communicator */
        comm = MPI_COMM_WORLD;
    for (i = 0; i < sizeof loops / sizeof loops[0]; i++)
        loops[i](comm, a, b);
    MPI_Finalize();
    return 0;
}
