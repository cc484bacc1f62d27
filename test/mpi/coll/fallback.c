/*
 * fallback.c - a forced algorithm that does not apply to the call.
 *
 * Run with MPIR_CVAR_CH4COLL_REDUCE_SCATTER_BLOCK_ALGORITHM=recursive_halving
 * (commutative ops only) and a non-commutative user op: with
 * MPIR_CVAR_CH4COLL_FALLBACK=warn (default) or silent the call must fall
 * back to the tuning tree and give the rank-ordered result; with =error the
 * call must fail with an MPI error class instead (the program sets
 * MPI_ERRORS_RETURN and checks).  The expected outcome is the first
 * argument: "result" or "error".  Prints PASS/FAIL on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MOD 1000003
#define N   3

/* (a, b) o (c, d) = (a c, b c + d) mod MOD: affine maps, associative, not
 * commutative. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long long *x = in, *y = inout;
    int i;

    (void) dt;
    for (i = 0; i < *len; i++) {
        long long a = x[2 * i], b = x[2 * i + 1];
        long long c = y[2 * i], d = y[2 * i + 1];
        y[2 * i] = a * c % MOD;
        y[2 * i + 1] = (b * c + d) % MOD;
    }
}

static long long input(int rank, int i, int half)
{
    return half ? (rank * 7 + i) % 1000 : 1 + (rank * 31 + i * 17) % 1000;
}

int main(int argc, char **argv)
{
    int rank, p, i, k, rc, ok = 1, all_ok;
    int want_error = argc > 1 && strcmp(argv[1], "error") == 0;
    long long in[2 * N * 64], out[2 * N];
    MPI_Datatype pair;
    MPI_Op op;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(affine, 0, &op);
    for (i = 0; i < N * p; i++) {
        in[2 * i] = input(rank, i, 0);
        in[2 * i + 1] = input(rank, i, 1);
    }
    rc = MPI_Reduce_scatter_block(in, out, N, pair, op, MPI_COMM_WORLD);
    if (want_error) {
        ok = rc != MPI_SUCCESS;
    } else if (rc != MPI_SUCCESS) {
        ok = 0;
    } else {
        for (i = 0; i < N; i++) { /* rank-ordered fold of my block */
            int idx = rank * N + i;
            long long a = input(0, idx, 0), b = input(0, idx, 1);
            for (k = 1; k < p; k++) {
                long long c = input(k, idx, 0), d = input(k, idx, 1);
                a = a * c % MOD;
                b = (b * c + d) % MOD;
            }
            ok &= out[2 * i] == a && out[2 * i + 1] == b;
        }
    }
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fallback (%s expected) p=%d: %s\n",
               want_error ? "error" : "result", p, all_ok ? "PASS" : "FAIL");
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
