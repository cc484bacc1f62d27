/*
 * completion.c - ch4coll's nonblocking and persistent requests in every
 * function of MPI's completion family, mixed with the host's own requests,
 * on communicators whose first collective is a nonblocking or persistent
 * one.
 *
 * usage: completion [ROUNDS]      (default 3)
 *
 * For each of MPI_Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany
 * and Testsome, with MPI_STATUS(ES)_IGNORE and with real statuses, ROUNDS
 * times, every rank builds this request array under the default error
 * handler (errors are fatal):
 *
 *   0  MPI_Allreduce_init on MPI_COMM_WORLD, started
 *   1  MPI_Ibcast on B, from B's last rank
 *   2  MPI_REQUEST_NULL
 *   3  MPI_Allgather_init on C, never started (inactive)
 *   4  MPI_Irecv from the left neighbour on MPI_COMM_WORLD
 *   5  MPI_Bcast_init on D from rank 0, started
 *   6  MPI_Iallgatherv on C, rank i giving i % 3 + 1 ints
 *   7  MPI_Send_init to the right neighbour, started (matches 4)
 *
 * B (MPI_Comm_split, ranks in reverse order), C (split by rank parity: two
 * sizes when p is odd) and D (MPI_Comm_dup) are made anew for each
 * function and status mode, and no blocking collective ever runs on them:
 * their first collectives are the ones above.  The starts of 0, 5 and 7
 * use MPI_Startall.
 *
 * Checked on every rank: each active request is reported complete exactly
 * once (inactive and null ones never, by Waitany/Waitsome/Testany/
 * Testsome); afterwards the nonblocking requests are MPI_REQUEST_NULL and
 * the persistent ones are not; the receive's status names its source and
 * tag; every result is right.  With ch4coll loaded (preload or linked) it
 * must have run the collectives itself, on the fresh communicators too:
 * its count of started schedules grows by at least 4 per array.
 *
 * Then a fresh communicator's first collective is an MPI_Iallgather of a
 * derived datatype the application frees before MPI_Wait.
 *
 * Last, a blocking collective on a communicator of one rank while two
 * fresh communicators' first collectives are still under way, posted in
 * different orders on different ranks (a hang, ended by an alarm, in
 * versions that duplicated the one-rank communicator).
 *
 * Rank 0 prints "completion: all N checks passed" or what failed; exit
 * status 1 on any failure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collcase.h"

#define NREQ   8
#define VEC    5 /* elements of the allreduce and the bcast */
#define TAG    91
#define MAXBLK 3 /* most ints a rank gives to the allgatherv */

static int rank, size, checks, failures;

static void check(int ok, const char *fn, const char *what)
{
    int all;

    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    checks++;
    if (!ok)
        printf("completion: rank %d: %s: %s\n", rank, fn, what);
    if (!all) {
        failures++;
        if (rank == 0)
            printf("completion: FAILED: %s: %s\n", fn, what);
    }
    fflush(stdout);
}

/* ch4coll's count of started schedules, or -1 without ch4coll. */
static int64_t ch4coll_calls(void)
{
    ch4coll_stats_t s;

    return cc_get_stats(&s) == 0 ? (int64_t) s.calls : -1;
}

typedef struct {
    MPI_Comm b, c, d;
    int bsize, brank, csize, crank;
    int in[VEC], sum[VEC], bc[VEC], dc[VEC];
    int gin[MAXBLK], *gout, *counts, *displs, ag[64];
    int left_val, right_val;
    MPI_Request r[NREQ];
    int active[NREQ];   /* expected to complete */
    int reported[NREQ]; /* times reported complete */
    MPI_Status st[NREQ];
    int recv_status_seen;
} arr_t;

static void comms_make(arr_t *a)
{
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &a->b);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &a->c);
    MPI_Comm_dup(MPI_COMM_WORLD, &a->d);
    MPI_Comm_size(a->b, &a->bsize);
    MPI_Comm_rank(a->b, &a->brank);
    MPI_Comm_size(a->c, &a->csize);
    MPI_Comm_rank(a->c, &a->crank);
    a->counts = malloc((size_t) a->csize * sizeof(int));
    a->displs = malloc((size_t) a->csize * sizeof(int));
    a->gout = malloc((size_t) a->csize * MAXBLK * sizeof(int));
}

static void comms_free(arr_t *a)
{
    MPI_Comm_free(&a->b);
    MPI_Comm_free(&a->c);
    MPI_Comm_free(&a->d);
    free(a->counts);
    free(a->displs);
    free(a->gout);
}

/* The persistent requests, made once per array set. */
static void persistent_make(arr_t *a)
{
    int right = (rank + 1) % size;

    MPI_Allreduce_init(a->in, a->sum, VEC, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       MPI_INFO_NULL, &a->r[0]);
    MPI_Allgather_init(a->in, 1, MPI_INT, a->ag, 1, MPI_INT, a->c,
                       MPI_INFO_NULL, &a->r[3]);
    MPI_Bcast_init(a->dc, VEC, MPI_INT, 0, a->d, MPI_INFO_NULL, &a->r[5]);
    MPI_Send_init(&a->right_val, 1, MPI_INT, right, TAG, MPI_COMM_WORLD,
                  &a->r[7]);
}

static void persistent_free(arr_t *a)
{
    static const int idx[] = {0, 3, 5, 7};
    int i;

    for (i = 0; i < 4; i++)
        MPI_Request_free(&a->r[idx[i]]);
}

/* Fill the inputs of round salt and start the array. */
static void start(arr_t *a, int salt)
{
    MPI_Request pers[3];
    int i, left = (rank + size - 1) % size;

    for (i = 0; i < VEC; i++) {
        a->in[i] = rank * 10 + i + salt;
        a->sum[i] = -1;
        a->bc[i] = a->brank == a->bsize - 1 ? 100 * salt + i : -1;
        a->dc[i] = rank == 0 ? 200 * salt + i : -1;
    }
    for (i = 0; i < MAXBLK; i++)
        a->gin[i] = 1000 * salt + 10 * a->crank + i;
    for (i = 0; i < a->csize; i++) {
        a->counts[i] = i % 3 + 1;
        a->displs[i] = i == 0 ? 0 : a->displs[i - 1] + a->counts[i - 1];
    }
    a->right_val = 7 * rank + salt;
    a->left_val = -1;
    MPI_Ibcast(a->bc, VEC, MPI_INT, a->bsize - 1, a->b, &a->r[1]);
    a->r[2] = MPI_REQUEST_NULL;
    MPI_Irecv(&a->left_val, 1, MPI_INT, left, TAG, MPI_COMM_WORLD, &a->r[4]);
    MPI_Iallgatherv(a->gin, a->crank % 3 + 1, MPI_INT, a->gout, a->counts,
                    a->displs, MPI_INT, a->c, &a->r[6]);
    pers[0] = a->r[0];
    pers[1] = a->r[5];
    pers[2] = a->r[7];
    MPI_Startall(3, pers);
    for (i = 0; i < NREQ; i++) {
        a->active[i] = i != 2 && i != 3;
        a->reported[i] = 0;
    }
    a->recv_status_seen = 0;
}

static void saw(arr_t *a, int i, const MPI_Status *st, int statuses)
{
    if (i < 0 || i >= NREQ)
        return;
    a->reported[i]++;
    if (i == 4 && statuses && st->MPI_SOURCE == (rank + size - 1) % size &&
        st->MPI_TAG == TAG)
        a->recv_status_seen = 1;
}

typedef int some_fn(int, MPI_Request[], int *, int[], MPI_Status[]);

/* MPI_Waitsome or MPI_Testsome until no active request is left. */
static void some(arr_t *a, some_fn *fn, int statuses)
{
    int i, out, ind[NREQ];

    for (;;) {
        fn(NREQ, a->r, &out, ind, statuses ? a->st : MPI_STATUSES_IGNORE);
        if (out == MPI_UNDEFINED)
            break;
        for (i = 0; i < out; i++)
            saw(a, ind[i], statuses ? &a->st[i] : NULL, statuses);
    }
}

/* Complete the array with fn; statuses: real ones, else ignored. */
static void complete(arr_t *a, const char *fn, int statuses)
{
    MPI_Status one, *sp = statuses ? &one : MPI_STATUS_IGNORE;
    MPI_Status *sa = statuses ? a->st : MPI_STATUSES_IGNORE;
    int i, idx, flag, left;

    if (strcmp(fn, "MPI_Wait") == 0) {
        for (i = 0; i < NREQ; i++) {
            MPI_Wait(&a->r[i], sp);
            if (a->active[i])
                saw(a, i, sp, statuses);
        }
    } else if (strcmp(fn, "MPI_Waitall") == 0) {
        MPI_Waitall(NREQ, a->r, sa);
        for (i = 0; i < NREQ; i++)
            if (a->active[i])
                saw(a, i, statuses ? &a->st[i] : NULL, statuses);
    } else if (strcmp(fn, "MPI_Waitany") == 0) {
        for (;;) {
            MPI_Waitany(NREQ, a->r, &idx, sp);
            if (idx == MPI_UNDEFINED)
                break;
            saw(a, idx, sp, statuses);
        }
    } else if (strcmp(fn, "MPI_Waitsome") == 0) {
        some(a, MPI_Waitsome, statuses);
    } else if (strcmp(fn, "MPI_Test") == 0) {
        MPI_Test(&a->r[2], &flag, sp); /* null and inactive: flag set */
        MPI_Test(&a->r[3], &flag, sp);
        for (left = 1; left > 0;)
            for (i = 0, left = 0; i < NREQ; i++) {
                if (!a->active[i] || a->reported[i])
                    continue;
                MPI_Test(&a->r[i], &flag, sp);
                if (flag)
                    saw(a, i, sp, statuses);
                else
                    left++;
            }
    } else if (strcmp(fn, "MPI_Testall") == 0) {
        for (flag = 0; !flag;)
            MPI_Testall(NREQ, a->r, &flag, sa);
        for (i = 0; i < NREQ; i++)
            if (a->active[i])
                saw(a, i, statuses ? &a->st[i] : NULL, statuses);
    } else if (strcmp(fn, "MPI_Testany") == 0) {
        for (;;) {
            MPI_Testany(NREQ, a->r, &idx, &flag, sp);
            if (flag && idx == MPI_UNDEFINED)
                break;
            if (flag)
                saw(a, idx, sp, statuses);
        }
    } else {
        some(a, MPI_Testsome, statuses);
    }
}

static void verify(arr_t *a, const char *fn, int salt, int statuses)
{
    char what[96];
    int i, ok = 1, p = size, b, k;

    for (i = 0; i < NREQ; i++)
        ok &= a->reported[i] == a->active[i];
    check(ok, fn, "each active request reported complete exactly once");
    ok = a->r[1] == MPI_REQUEST_NULL && a->r[4] == MPI_REQUEST_NULL &&
         a->r[6] == MPI_REQUEST_NULL && a->r[2] == MPI_REQUEST_NULL;
    ok &= a->r[0] != MPI_REQUEST_NULL && a->r[3] != MPI_REQUEST_NULL &&
          a->r[5] != MPI_REQUEST_NULL && a->r[7] != MPI_REQUEST_NULL;
    check(ok, fn, "nonblocking requests freed, persistent ones kept");
    if (statuses) {
        snprintf(what, sizeof what, "the receive's status (%s)", "real");
        check(a->recv_status_seen, fn, what);
    }
    for (i = 0, ok = 1; i < VEC; i++)
        ok &= a->sum[i] == 10 * p * (p - 1) / 2 + p * (i + salt) &&
              a->bc[i] == 100 * salt + i && a->dc[i] == 200 * salt + i;
    check(ok, fn, "allreduce, ibcast and persistent bcast results");
    for (b = 0, ok = 1; b < a->csize; b++)
        for (k = 0; k < b % 3 + 1; k++)
            ok &= a->gout[a->displs[b] + k] == 1000 * salt + 10 * b + k;
    ok &= a->left_val == 7 * ((rank + size - 1) % size) + salt;
    check(ok, fn, "iallgatherv and point-to-point results");
}

/* A fresh communicator's first collective is an MPI_Iallgather of a
 * derived datatype (two ints, one apart: extent 3) that the application
 * frees before the wait, as MPI allows; ch4coll resolves the call after
 * its setup, with a duplicate of the type. */
static void freed_type_case(void)
{
    int in[4], out[3 * 64], i, src, ok = 1, round;
    MPI_Comm sub;
    MPI_Datatype t;
    MPI_Request q;

    for (round = 0; round < 3 && size <= 64; round++) {
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &sub);
        MPI_Type_vector(2, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (i = 0; i < 4; i++)
            in[i] = rank * 10 + i + round;
        MPI_Iallgather(in, 1, t, out, 1, t, sub, &q);
        MPI_Type_free(&t);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (i = 0; i < size; i++) {
            src = size - 1 - i;
            ok &= out[3 * i] == src * 10 + round &&
                  out[3 * i + 2] == src * 10 + 2 + round;
        }
        MPI_Comm_free(&sub);
    }
    check(ok, "MPI_Iallgather",
          "derived type freed before the wait, on a "
          "fresh communicator");
}

/* Sum of pairs of ints (MPI defines no predefined op on a derived type). */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int i;

    (void) dt;
    for (i = 0; i < 2 * *len; i++)
        ((int *) inout)[i] += ((int *) in)[i];
}

/* The same on MPI_COMM_WORLD, whose state is ready (a schedule record,
 * not a deferred one), with a reduction of a derived type too.  Rank 0
 * joins late, so the other ranks' schedules still need both types (to
 * unpack the staged receive side, to reduce) after the application freed
 * them. */
static void freed_type_ready_case(void)
{
    int in[4], out[3 * 64], rin[2], red[2] = {0, 0}, i, ok = 1;
    MPI_Datatype t, pair;
    MPI_Request q[2];
    MPI_Op sum;

    if (size > 64)
        return;
    MPI_Op_create(pair_sum, 1, &sum);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        usleep(50000);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (i = 0; i < 4; i++)
        in[i] = rank * 10 + i;
    rin[0] = rank;
    rin[1] = 2 * rank;
    MPI_Iallgather(in, 1, t, out, 1, t, MPI_COMM_WORLD, &q[0]);
    MPI_Iallreduce(rin, red, 1, pair, sum, MPI_COMM_WORLD, &q[1]);
    MPI_Type_free(&t);
    MPI_Type_free(&pair);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    MPI_Op_free(&sum);
    for (i = 0; i < size; i++)
        ok &= out[3 * i] == i * 10 && out[3 * i + 2] == i * 10 + 2;
    ok &= red[0] == size * (size - 1) / 2 && red[1] == size * (size - 1);
    check(ok, "MPI_Iallgather, MPI_Iallreduce",
          "derived types freed before the wait, on a ready "
          "communicator");
}

/* Rank 0 posts the first collectives of A and B and drives them until
 * B's setup holds the host's context-id mask, waiting for the others,
 * which post B's, then A's only later.  Meanwhile every rank runs an
 * allreduce on a communicator of its own. */
static void one_rank_case(void)
{
    int x = rank + 1, y = 0, flag = 0;
    MPI_Comm a, b, self;
    MPI_Request q[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc 12 warns on it here */
    double t;

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &self);
    alarm(60);
    if (rank == 0) {
        MPI_Ibarrier(a, &q[0]);
        MPI_Ibarrier(b, &q[1]);
        for (t = MPI_Wtime(); MPI_Wtime() - t < 0.3;)
            MPI_Testall(2, q, &flag, st);
    } else {
        MPI_Ibarrier(b, &q[1]);
        usleep(600000);
        MPI_Ibarrier(a, &q[0]);
    }
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, self);
    MPI_Waitall(2, q, st);
    alarm(0);
    check(y == rank + 1, "MPI_Allreduce",
          "on one rank while other communicators' setups wait");
    MPI_Comm_free(&self);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

int main(int argc, char **argv)
{
    static const char *fns[] = {"MPI_Wait",     "MPI_Waitall", "MPI_Waitany",
                                "MPI_Waitsome", "MPI_Test",    "MPI_Testall",
                                "MPI_Testany",  "MPI_Testsome"};
    int rounds = argc > 1 ? atoi(argv[1]) : 3, f, statuses, round, arrays = 0;
    int64_t before, after;
    char name[64];
    arr_t a;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    before = ch4coll_calls();
    for (f = 0; f < 8; f++)
        for (statuses = 0; statuses < 2; statuses++) {
            memset(&a, 0, sizeof a);
            comms_make(&a);
            persistent_make(&a);
            snprintf(name, sizeof name, "%s%s", fns[f],
                     statuses ? "" : " (statuses ignored)");
            for (round = 1; round <= rounds; round++, arrays++) {
                start(&a, round);
                complete(&a, fns[f], statuses);
                verify(&a, name, round, statuses);
            }
            persistent_free(&a);
            comms_free(&a);
        }
    freed_type_case();
    freed_type_ready_case();
    one_rank_case();
    after = ch4coll_calls();
    if (before >= 0)
        check(after - before >= 4 * (int64_t) arrays, "ch4coll",
              "ran the collectives itself (4 per array), fresh "
              "communicators included");
    if (rank == 0) {
        if (failures == 0)
            printf("completion: all %d checks passed\n", checks);
        else
            printf("completion: %d of %d checks failed\n", failures, checks);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
