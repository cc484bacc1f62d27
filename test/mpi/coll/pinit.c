/*
 * pinit.c - persistent collectives, started several times with new input:
 * an MPI_Allreduce_init, an MPI_Bcast_init from the last rank and an
 * MPI_Allgatherv_init with irregular counts, on MPI_COMM_WORLD and on a
 * communicator made by MPI_Comm_split with the ranks reversed.
 *
 * usage: pinit [STARTS]      (default 4)
 *
 * Written for MPICH built with ch4coll inside (test/mpi/coll/
 * mpich-custom-smoke runs it with MPIR_CVAR_CH4COLL_VERBOSE=1 and looks
 * for ch4coll's decision on the persistent allreduce), and plain MPI, so
 * it runs anywhere.  Prints " No Errors" (MPICH's test convention) when
 * every result is right; exit status 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define VEC 7

static int errors;

static void run(MPI_Comm comm, int starts)
{
    int p, me, i, s, in[VEC], sum[VEC], bc[VEC], *counts, *displs, *all;
    int mine[3], total = 0, b;
    MPI_Request r[3];
    MPI_Status st[3];

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    counts = malloc((size_t) p * sizeof *counts);
    displs = malloc((size_t) p * sizeof *displs);
    for (i = 0; i < p; i++) {
        counts[i] = i % 3 + 1;
        displs[i] = total;
        total += counts[i];
    }
    all = malloc((size_t) total * sizeof *all);
    MPI_Allreduce_init(in, sum, VEC, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                       &r[0]);
    MPI_Bcast_init(bc, VEC, MPI_INT, p - 1, comm, MPI_INFO_NULL, &r[1]);
    MPI_Allgatherv_init(mine, me % 3 + 1, MPI_INT, all, counts, displs, MPI_INT,
                        comm, MPI_INFO_NULL, &r[2]);
    for (s = 1; s <= starts; s++) {
        for (i = 0; i < VEC; i++) {
            in[i] = me + i * s;
            bc[i] = me == p - 1 ? 100 * s + i : -1;
        }
        for (i = 0; i < 3; i++)
            mine[i] = 1000 * s + 10 * me + i;
        MPI_Startall(3, r);
        MPI_Waitall(3, r, st);
        for (i = 0; i < VEC; i++)
            errors +=
                sum[i] != p * (p - 1) / 2 + p * i * s || bc[i] != 100 * s + i;
        for (b = 0; b < p; b++)
            for (i = 0; i < b % 3 + 1; i++)
                errors += all[displs[b] + i] != 1000 * s + 10 * b + i;
    }
    for (i = 0; i < 3; i++)
        MPI_Request_free(&r[i]);
    free(all);
    free(displs);
    free(counts);
}

int main(int argc, char **argv)
{
    int starts = argc > 1 ? atoi(argv[1]) : 4, rank, size, all;
    MPI_Comm rev;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run(MPI_COMM_WORLD, starts);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    run(rev, starts);
    MPI_Comm_free(&rev);
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
