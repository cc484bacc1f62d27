/*
 * inplace_reduce.c - MPI_Reduce with MPI_IN_PLACE at every non-zero root,
 * from 16 bytes to 1 MiB of MPI_INT, MPI_SUM; each result is checked
 * against the closed form.  Stock Debian MPICH 4.0.2 crashes here from
 * about 2.4 KB (doc/custom-mpich.md); MPICH built by maint/build-mpich
 * must pass, with ch4coll enabled and with MPIR_CVAR_CH4COLL_ENABLE=0.
 * Prints "inplace_reduce: No Errors" on rank 0 when every check passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    static const int counts[] = {4, 600, 700, 5000, 262144};
    int rank, size, root, i, k, errors = 0, all;
    int *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc(sizeof(int) * 262144);
    for (root = size > 1 ? 1 : 0; root < size; root++) {
        for (k = 0; k < (int) (sizeof counts / sizeof counts[0]); k++) {
            int n = counts[k];

            for (i = 0; i < n; i++)
                buf[i] = rank + i % 7;
            if (rank == root)
                MPI_Reduce(MPI_IN_PLACE, buf, n, MPI_INT, MPI_SUM, root,
                           MPI_COMM_WORLD);
            else
                MPI_Reduce(buf, NULL, n, MPI_INT, MPI_SUM, root,
                           MPI_COMM_WORLD);
            if (rank != root)
                continue;
            for (i = 0; i < n; i++) {
                long want =
                    (long) size * (size - 1) / 2 + (long) size * (i % 7);

                if (buf[i] != want) {
                    if (errors++ < 5)
                        fprintf(stderr,
                                "inplace_reduce: root %d count %d: element %d "
                                "is %d, expected %ld\n",
                                root, n, i, buf[i], want);
                }
            }
        }
    }
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("inplace_reduce: No Errors\n");
    free(buf);
    MPI_Finalize();
    return all != 0;
}
