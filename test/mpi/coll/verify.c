/*
 * verify.c - MPIR_CVAR_CH4COLL_VERIFY=1: mismatched arguments become an
 * error on every rank, not a hang or wrong data.
 *
 * Run with MPIR_CVAR_CH4COLL_VERIFY=1 at p >= 3.  Each case calls one
 * collective with one argument that differs on one rank (MPI forbids it)
 * and checks that every rank's call fails: the return code, and the class
 * the communicator's error handler saw (MPI_ERR_ARG; a rank whose own
 * arguments are invalid gets the host MPI's error for them, whose class
 * depends on the host: Debian's MPICH says MPI_ERR_OTHER).  After
 * each case a correct MPI_Allreduce must give the right sum: the failed
 * call left nothing behind.  The nonblocking case fails in MPI_Wait's
 * progress, through the error handler.  The alltoall case sends 2 ints
 * and receives 1 double per block: type maps differ, sizes match, and
 * VERIFY compares sizes only (doc/errors.md), so it passes.  Prints
 * PASS/FAIL on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N         64
#define ANY_ERROR (-1)

static int last_class = MPI_SUCCESS;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void) comm;
    MPI_Error_class(*code, &last_class);
}

static int rank, p, failures;

/* After a case: did this rank fail as expected?  Then all ranks check a
 * correct collective. */
static void expect(const char *name, int rc, int want_class)
{
    int cls = MPI_SUCCESS, ok, all, in = rank + 1, sum = 0;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    ok = want_class == ANY_ERROR
             ? cls != MPI_SUCCESS && last_class != MPI_SUCCESS
             : cls == want_class && last_class == want_class;
    if (!ok)
        fprintf(stderr,
                "verify: rank %d: %s returned class %d, handler saw %d, "
                "expected %d\n",
                rank, name, cls, last_class, want_class);
    last_class = MPI_SUCCESS;
    rc = MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS || sum != p * (p + 1) / 2) {
        fprintf(stderr, "verify: rank %d: allreduce after %s: %d\n", rank, name,
                sum);
        ok = 0;
    }
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
        failures++;
    if (rank == 0)
        printf("verify: %-28s %s\n", name, all ? "ok" : "FAILED");
}

int main(int argc, char **argv)
{
    int in[N * 8], out[N * 8], counts[64], displs[64], rcounts[64], rdispls[64];
    int i, rc;
    float f[N];
    MPI_Errhandler eh;
    MPI_Request req;

    (void) argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 3 || p > 8) {
        if (rank == 0)
            printf("verify: needs 3 to 8 processes\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    for (i = 0; i < N * 8; i++)
        in[i] = rank * 1000 + i;
    memset(f, 0, sizeof f);

    /* reductions: count, op, datatype */
    rc = MPI_Allreduce(in, out, rank == 1 ? N + 1 : N, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD);
    expect("allreduce count", rc, MPI_ERR_ARG);
    rc = MPI_Allreduce(in, out, N, MPI_INT, rank == 2 ? MPI_MAX : MPI_SUM,
                       MPI_COMM_WORLD);
    expect("allreduce op", rc, MPI_ERR_ARG);
    rc =
        MPI_Reduce(rank == 1 ? (void *) f : (void *) in, out, N,
                   rank == 1 ? MPI_FLOAT : MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    expect("reduce datatype", rc, MPI_ERR_ARG);

    /* roots and collectives */
    rc = MPI_Bcast(in, N, MPI_INT, rank == p - 1 ? 1 : 0, MPI_COMM_WORLD);
    expect("bcast root", rc, MPI_ERR_ARG);
    rc = rank == 0 ? MPI_Barrier(MPI_COMM_WORLD)
                   : MPI_Bcast(in, 1, MPI_INT, 0, MPI_COMM_WORLD);
    expect("barrier vs bcast", rc, MPI_ERR_ARG);

    /* data movement: bytes per block */
    rc = MPI_Bcast(in, rank == 2 ? 2 * N : N, MPI_INT, 0, MPI_COMM_WORLD);
    expect("bcast count", rc, MPI_ERR_ARG);
    rc = MPI_Gather(in, rank == 1 ? 3 : 2, MPI_INT, out, 2, MPI_INT, 0,
                    MPI_COMM_WORLD);
    expect("gather count", rc, MPI_ERR_ARG);
    rc = MPI_Allgather(in, 4, MPI_INT, out, rank == 2 ? 2 : 4, MPI_INT,
                       MPI_COMM_WORLD);
    expect("allgather count", rc, MPI_ERR_ARG);
    rc = MPI_Alltoall(in, 2, MPI_INT, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    expect("alltoall 2 int = 1 double", rc, MPI_SUCCESS);

    /* v-collectives */
    for (i = 0; i < p; i++) {
        counts[i] = rcounts[i] = i + 1;
        displs[i] = rdispls[i] = i * 8;
    }
    if (rank == 0)
        counts[1] = 1; /* the root expects 1 int from rank 1, it sends 2 */
    rc = MPI_Gatherv(in, rank + 1, MPI_INT, out, counts, displs, MPI_INT, 0,
                     MPI_COMM_WORLD);
    expect("gatherv counts", rc, MPI_ERR_ARG);
    counts[1] = 2;
    if (rank == 2)
        counts[0] = 3; /* rank 2's recvcounts differ from the others' */
    rc = MPI_Allgatherv(in, rank == 2 ? 1 : rank + 1, MPI_INT, out, counts,
                        displs, MPI_INT, MPI_COMM_WORLD);
    expect("allgatherv recvcounts", rc, MPI_ERR_ARG);
    counts[0] = 1;
    for (i = 0; i < p; i++)
        counts[i] = rcounts[i] = 2;
    if (rank == 0)
        counts[1] = 3; /* rank 0 sends 3 to rank 1, rank 1 expects 2 */
    rc = MPI_Alltoallv(in, counts, displs, MPI_INT, out, rcounts, rdispls,
                       MPI_INT, MPI_COMM_WORLD);
    expect("alltoallv pair", rc, MPI_ERR_ARG);

    /* an invalid argument on one rank: its MPI error there, ours elsewhere */
    rc = MPI_Allreduce(in, out, rank == 1 ? -1 : N, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD);
    expect("allreduce count < 0", rc, rank == 1 ? ANY_ERROR : MPI_ERR_ARG);

    /* nonblocking: the check runs inside the request */
    rc = MPI_Iallreduce(in, out, rank == 1 ? N / 2 : N, MPI_INT, MPI_SUM,
                        MPI_COMM_WORLD, &req);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && last_class == MPI_ERR_ARG)
        rc = MPI_ERR_ARG; /* reported through the handler only */
    expect("iallreduce count", rc, MPI_ERR_ARG);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    if (rank == 0)
        printf("%s\n", failures ? "FAIL" : "PASS");
    MPI_Finalize();
    return failures != 0;
}
