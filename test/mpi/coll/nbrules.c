/*
 * nbrules.c - the rules of nonblocking and persistent collectives that a
 * random differential test does not reach: progress from calls that are not
 * ch4coll's, MPI's misuse errors, communicators freed with collectives in
 * flight.  Needs p >= 3 for the progress checks (p < 3 skips them).
 *
 * usage: nbrules
 *
 * Progress.  MPIR_CVAR_CH4COLL_IBCAST_ALGORITHM=line:chunk=4096 (set here
 * before MPI_Init, with MPI_Barrier forced native and MPI_Ibarrier forced
 * to ch4coll's dissemination) makes MPI_Ibcast a pipelined chain 0 -> 1 -> ...
 * -> p-1 of 1 MiB: rank 1 must forward every chunk it receives.  The last rank
 * waits for its broadcast and only then sends a message to rank 1; rank 1
 * meanwhile sits in a blocking call that is not about the broadcast:
 *
 *   recv     MPI_Recv from the last rank
 *   probe    MPI_Probe, then MPI_Recv
 *   coll     MPI_Allreduce on {1, last} (a ch4coll schedule)
 *   native   MPI_Barrier on {1, last}, forced native (the host's barrier)
 *
 * Without progress from inside those calls the chain stops at rank 1 and
 * the test hangs (runtests' timeout turns that into a failure).
 *
 * Misuse (MPI_ERRORS_RETURN on the communicators): MPI_Cancel and
 * MPI_Request_free on an active nonblocking collective, and MPI_Start on
 * an active persistent one, return MPI_ERR_REQUEST; the collective still
 * completes correctly afterwards.
 *
 * Also: MPI_Comm_free with an Iallreduce in flight (it completes with the
 * right result), collectives started on two communicators in opposite
 * orders on even and odd ranks, 64 outstanding Iallreduce, and persistent
 * Allreduce_init + Bcast_init run with MPI_Startall three times.
 *
 * Rank 0 prints "nbrules: all N checks passed" or the failed checks; exit
 * status 1 on any failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BCAST_BYTES (1 << 20)
#define NOUT        64 /* outstanding Iallreduce at once */
#define VEC         37 /* elements per Iallreduce */
#define RUNS        3  /* runs of the persistent requests */
#define TAG         77

static int rank, size, checks, failures;

static void check(int ok, const char *what)
{
    int all;

    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    checks++;
    if (!all) {
        failures++;
        if (rank == 0)
            printf("nbrules: FAILED: %s\n", what);
    }
}

static unsigned char pattern(int i, int salt)
{
    return (unsigned char) (i * 7 + salt);
}

static int bcast_ok(const unsigned char *b, int salt)
{
    int i;

    for (i = 0; i < BCAST_BYTES; i++)
        if (b[i] != pattern(i, salt))
            return 0;
    return 1;
}

/* Rank 1 blocks in `how` while the chain needs it to forward. */
static void progress_case(const char *how, MPI_Comm pair, int salt)
{
    unsigned char *b = malloc(BCAST_BYTES);
    int i, last = size - 1, token = 0, one = 1, sum = 0;
    MPI_Request req;
    char what[96];

    for (i = 0; i < BCAST_BYTES; i++)
        b[i] = rank == 0 ? pattern(i, salt) : 0;
    MPI_Ibcast(b, BCAST_BYTES, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
    if (rank == last) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (strcmp(how, "coll") == 0)
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, pair);
        else if (strcmp(how, "native") == 0)
            MPI_Barrier(pair);
        else
            MPI_Send(&token, 1, MPI_INT, 1, TAG, MPI_COMM_WORLD);
    } else if (rank == 1) {
        if (strcmp(how, "coll") == 0) {
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, pair);
        } else if (strcmp(how, "native") == 0) {
            MPI_Barrier(pair);
        } else {
            if (strcmp(how, "probe") == 0)
                MPI_Probe(last, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&token, 1, MPI_INT, last, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    snprintf(what, sizeof what, "progress while rank 1 is in %s", how);
    check(bcast_ok(b, salt) &&
              (strcmp(how, "coll") || (rank != 1 && rank != last) || sum == 2),
          what);
    free(b);
}

static void progress_cases(void)
{
    MPI_Comm pair;
    int in = rank == 1 || rank == size - 1;

    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &pair);
    progress_case("recv", pair, 1);
    progress_case("probe", pair, 2);
    progress_case("coll", pair, 3);
    progress_case("native", pair, 4);
    if (pair != MPI_COMM_NULL)
        MPI_Comm_free(&pair);
}

/* Rank 0's Ibarrier cannot complete before the others join, and they
 * join only after rank 0 has tried the forbidden calls. */
static void misuse_cases(void)
{
    MPI_Request req = MPI_REQUEST_NULL, copy, pr;
    int go = 0, rc_cancel = MPI_SUCCESS, rc_free = MPI_SUCCESS, cls = 0, i;
    int rc_start = MPI_SUCCESS, v[VEC], r[VEC], ok = 1;

    if (rank == 0 && size == 1) {
        MPI_Ibarrier(MPI_COMM_WORLD, &req); /* completes at once */
    } else if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        copy = req;
        rc_cancel = MPI_Cancel(&copy);
        copy = req;
        rc_free = MPI_Request_free(&copy);
        for (i = 1; i < size; i++)
            MPI_Send(&go, 1, MPI_INT, i, TAG, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0 && size > 1) {
        MPI_Error_class(rc_cancel, &cls);
        ok = cls == MPI_ERR_REQUEST;
        MPI_Error_class(rc_free, &cls);
        ok = ok && cls == MPI_ERR_REQUEST;
    }
    check(ok, "MPI_Cancel / MPI_Request_free on an active collective fail");
    /* a persistent allreduce started twice */
    for (i = 0; i < VEC; i++)
        v[i] = rank + i;
    MPI_Allreduce_init(v, r, VEC, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &pr);
    MPI_Start(&pr);
    if (size > 1)
        rc_start = MPI_Start(&pr);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    MPI_Request_free(&pr);
    MPI_Error_class(rc_start, &cls);
    ok = size == 1 || cls == MPI_ERR_REQUEST;
    for (i = 0; i < VEC; i++)
        ok = ok && r[i] == size * (size - 1) / 2 + size * i;
    check(ok, "MPI_Start on an active persistent collective fails");
}

static int sum_ok(const int *r, int n, int salt)
{
    int i;

    for (i = 0; i < n; i++)
        if (r[i] != size * (size - 1) / 2 + size * (i + salt))
            return 0;
    return 1;
}

static void fill(int *v, int n, int salt)
{
    int i;

    for (i = 0; i < n; i++)
        v[i] = rank + i + salt;
}

static void comm_free_case(void)
{
    MPI_Comm dup;
    MPI_Request req;
    int v[VEC], r[VEC];

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    fill(v, VEC, 5);
    MPI_Iallreduce(v, r, VEC, MPI_INT, MPI_SUM, dup, &req);
    MPI_Comm_free(&dup);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(sum_ok(r, VEC, 5), "MPI_Comm_free with an Iallreduce in flight");
}

static void order_case(void)
{
    MPI_Comm a, b;
    MPI_Request req[2];
    MPI_Status st[2];
    int va[VEC], vb[VEC], ra[VEC], rb[VEC];

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    fill(va, VEC, 1);
    fill(vb, VEC, 2);
    if (rank % 2 == 0) {
        MPI_Iallreduce(va, ra, VEC, MPI_INT, MPI_SUM, a, &req[0]);
        MPI_Iallreduce(vb, rb, VEC, MPI_INT, MPI_SUM, b, &req[1]);
    } else {
        MPI_Iallreduce(vb, rb, VEC, MPI_INT, MPI_SUM, b, &req[1]);
        MPI_Iallreduce(va, ra, VEC, MPI_INT, MPI_SUM, a, &req[0]);
    }
    MPI_Waitall(2, req, st); /* not STATUSES_IGNORE: gcc 12 misreads it */
    check(sum_ok(ra, VEC, 1) && sum_ok(rb, VEC, 2),
          "two communicators started in opposite orders");
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

static void many_case(void)
{
    static int v[NOUT][VEC], r[NOUT][VEC];
    MPI_Request req[NOUT];
    int k, ok = 1, idx;

    for (k = 0; k < NOUT; k++) {
        fill(v[k], VEC, k);
        MPI_Iallreduce(v[k], r[k], VEC - k % 5, MPI_INT, MPI_SUM,
                       MPI_COMM_WORLD, &req[k]);
    }
    for (k = 0; k < NOUT; k++)
        MPI_Waitany(NOUT, req, &idx, MPI_STATUS_IGNORE);
    for (k = 0; k < NOUT; k++)
        ok = ok && sum_ok(r[k], VEC - k % 5, k);
    check(ok, "64 outstanding Iallreduce completed with MPI_Waitany");
}

static void persistent_case(void)
{
    MPI_Request req[2];
    MPI_Status st[2];
    int v[VEC], r[VEC], b[VEC], run, i, ok = 1, root = size - 1;

    fill(v, VEC, 0); /* init reads nothing yet, but gcc cannot know */
    MPI_Allreduce_init(v, r, VEC, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &req[0]);
    MPI_Bcast_init(b, VEC, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                   &req[1]);
    for (run = 0; run < RUNS; run++) {
        fill(v, VEC, run);
        for (i = 0; i < VEC; i++)
            b[i] = rank == root ? run * 100 + i : -1;
        MPI_Startall(2, req);
        MPI_Waitall(2, req, st); /* not STATUSES_IGNORE: gcc 12 misreads it */
        ok = ok && sum_ok(r, VEC, run);
        for (i = 0; i < VEC; i++)
            ok = ok && b[i] == run * 100 + i;
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    check(ok && req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
          "persistent Allreduce_init + Bcast_init with MPI_Startall");
}

int main(int argc, char **argv)
{
    setenv("MPIR_CVAR_CH4COLL_IBCAST_ALGORITHM", "line:chunk=4096", 1);
    setenv("MPIR_CVAR_CH4COLL_BARRIER_ALGORITHM", "native", 1);
    setenv("MPIR_CVAR_CH4COLL_IBARRIER_ALGORITHM", "dissemination", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size >= 3)
        progress_cases();
    misuse_cases();
    comm_free_case();
    order_case();
    many_case();
    persistent_case();
    if (rank == 0 && failures == 0)
        printf("nbrules: all %d checks passed\n", checks);
    MPI_Finalize();
    return failures != 0;
}
