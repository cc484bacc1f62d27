/*
 * allcoll.c - an ordinary MPI program (nothing of ch4coll in it) that calls
 * every collective ch4coll covers and prints one checksum per collective.
 * maint/quickstart runs it natively and with libch4coll.so preloaded; the
 * two outputs must be identical.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static long checksum(const int *v, int n)
{
    long s = 0;
    int i;

    for (i = 0; i < n; i++)
        s = s * 31 + v[i];
    return s;
}

/* Rank 0 prints a rank-weighted sum of everyone's checksum. */
static void report(const char *name, const int *v, int n, MPI_Comm comm)
{
    unsigned long mine = (unsigned long) checksum(v, n), all;
    int rank;

    MPI_Comm_rank(comm, &rank);
    mine *= 2UL * (unsigned long) rank + 1UL;
    MPI_Reduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, comm);
    if (rank == 0)
        printf("%-24s %lu\n", name, all);
}

int main(int argc, char **argv)
{
    int rank, p, i;
    int *a, *b, *counts, *displs, *pair;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    a = malloc(sizeof(int) * N * p);
    b = malloc(sizeof(int) * N * p);
    counts = malloc(sizeof(int) * p);
    displs = malloc(sizeof(int) * p);
    pair = malloc(sizeof(int) * p);
    for (i = 0; i < N * p; i++)
        a[i] = rank * 1000 + i % 977;
    for (i = 0; i < p; i++) {
        counts[i] = N - i;
        displs[i] = i * N;
        pair[i] = N / 2 + (rank + i) % 5; /* what rank and i exchange */
    }

    MPI_Bcast(a, N, MPI_INT, p - 1, MPI_COMM_WORLD);
    report("MPI_Bcast", a, N, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Allreduce", b, N, MPI_COMM_WORLD);
    MPI_Reduce(a, b, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    report("MPI_Reduce", rank == 0 ? b : a, rank == 0 ? N : 0, MPI_COMM_WORLD);
    MPI_Allgather(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Allgather", b, N * p, MPI_COMM_WORLD);
    MPI_Allgatherv(a, counts[rank], MPI_INT, b, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    report("MPI_Allgatherv", b, N * p, MPI_COMM_WORLD);
    MPI_Alltoall(a, N, MPI_INT, b, N, MPI_INT, MPI_COMM_WORLD);
    report("MPI_Alltoall", b, N * p, MPI_COMM_WORLD);
    MPI_Alltoallv(a, pair, displs, MPI_INT, b, pair, displs, MPI_INT,
                  MPI_COMM_WORLD);
    report("MPI_Alltoallv", b, N * p, MPI_COMM_WORLD);
    MPI_Gather(a, N, MPI_INT, b, N, MPI_INT, 0, MPI_COMM_WORLD);
    report("MPI_Gather", b, rank == 0 ? N * p : 0, MPI_COMM_WORLD);
    MPI_Gatherv(a, counts[rank], MPI_INT, b, counts, displs, MPI_INT, 0,
                MPI_COMM_WORLD);
    report("MPI_Gatherv", b, rank == 0 ? N * p : 0, MPI_COMM_WORLD);
    MPI_Scatter(a, N, MPI_INT, b, N, MPI_INT, 0, MPI_COMM_WORLD);
    report("MPI_Scatter", b, N, MPI_COMM_WORLD);
    MPI_Scatterv(a, counts, displs, MPI_INT, b, counts[rank], MPI_INT, 0,
                 MPI_COMM_WORLD);
    report("MPI_Scatterv", b, counts[rank], MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Reduce_scatter", b, counts[rank], MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, N / 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Reduce_scatter_block", b, N / 2, MPI_COMM_WORLD);
    MPI_Scan(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Scan", b, N, MPI_COMM_WORLD);
    MPI_Exscan(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Exscan", b, rank == 0 ? 0 : N, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-24s done\n", "MPI_Barrier");

    free(a);
    free(b);
    free(counts);
    free(displs);
    free(pair);
    MPI_Finalize();
    return 0;
}
