/*
 * host_nb.c - what the host MPI's nonblocking form costs against its
 * blocking form, the host alone (no ch4coll): PMPI_Bcast against
 * PMPI_Ibcast + PMPI_Wait, each call timed alone after a barrier, the mean
 * over ranks (the OSU method), two runs of each per size, interleaved.
 * ch4coll's `native` leaf takes the nonblocking form in preload mode
 * (doc/performance-log.md, "The native leaf"); this is the floor under it.
 *
 *   mpicc -O2 test/perf/host_nb.c -o host_nb && mpiexec -n 2 ./host_nb
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS  5000
#define WARMUP 200

/* Mean over ranks of one call's time in microseconds. */
static double run(int nonblocking, int n, char *buf)
{
    double t, total = 0, sum = 0;
    MPI_Request r;
    int i, p;

    for (i = 0; i < ITERS + WARMUP; i++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        if (nonblocking) {
            PMPI_Ibcast(buf, n, MPI_CHAR, 0, MPI_COMM_WORLD, &r);
            PMPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            PMPI_Bcast(buf, n, MPI_CHAR, 0, MPI_COMM_WORLD);
        }
        if (i >= WARMUP)
            total += MPI_Wtime() - t;
    }
    total = total * 1e6 / ITERS;
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    PMPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    return sum / p;
}

int main(int argc, char **argv)
{
    int rank, n;
    char *buf = calloc(1, 1 << 20);
    double b1, nb1, b2, nb2;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("# bytes  bcast(us) x2  ibcast+wait(us) x2  ratio(min)\n");
    for (n = 8; buf && n <= 1 << 20; n *= 8) {
        b1 = run(0, n, buf);
        nb1 = run(1, n, buf);
        b2 = run(0, n, buf);
        nb2 = run(1, n, buf);
        if (rank == 0)
            printf("%8d  %.2f %.2f  %.2f %.2f  %.2f\n", n, b1, b2, nb1, nb2,
                   (nb1 < nb2 ? nb1 : nb2) / (b1 < b2 ? b1 : b2));
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
