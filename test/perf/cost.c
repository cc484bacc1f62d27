/*
 * cost.c - the per-call instruction cost of a cached schedule, for
 * maint/callgrind-cost.  Each function below calls one collective ITERS
 * times; callgrind's inclusive count of the function divided by ITERS is the
 * cost of one call.  On MPI_COMM_SELF nothing waits, so the count is the
 * pure overhead of the path (lookup, bind, start, progress, complete) next
 * to the host MPI's own path for the same call.
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 10000

/* noinline: callgrind must see each loop as its own function */
#define LOOP __attribute__((noinline))

LOOP static void ch4coll_allreduce(MPI_Comm comm, float *a, float *b)
{
    for (int i = 0; i < ITERS; i++)
        MPI_Allreduce(a, b, 2, MPI_FLOAT, MPI_SUM, comm);
}

LOOP static void native_allreduce(MPI_Comm comm, float *a, float *b)
{
    for (int i = 0; i < ITERS; i++)
        PMPI_Allreduce(a, b, 2, MPI_FLOAT, MPI_SUM, comm);
}

LOOP static void ch4coll_bcast(MPI_Comm comm, float *a)
{
    for (int i = 0; i < ITERS; i++)
        MPI_Bcast(a, 8, MPI_CHAR, 0, comm);
}

LOOP static void native_bcast(MPI_Comm comm, float *a)
{
    for (int i = 0; i < ITERS; i++)
        PMPI_Bcast(a, 8, MPI_CHAR, 0, comm);
}

int main(int argc, char **argv)
{
    float a[2] = {1, 2}, b[2];
    MPI_Comm comm = MPI_COMM_SELF;

    MPI_Init(&argc, &argv);
    if (argc > 1) /* "world": the 2-rank communicator */
        comm = MPI_COMM_WORLD;
    MPI_Allreduce(a, b, 2, MPI_FLOAT, MPI_SUM, comm); /* build + cache */
    MPI_Bcast(a, 8, MPI_CHAR, 0, comm);
    ch4coll_allreduce(comm, a, b);
    native_allreduce(comm, a, b);
    ch4coll_bcast(comm, a);
    native_bcast(comm, a);
    MPI_Finalize();
    return 0;
}
