/*
 * threads.c - MPI_THREAD_MULTIPLE: collectives on different communicators
 * from different threads at once, every result checked.
 *
 * Each of THREADS threads owns a communicator (a duplicate of
 * MPI_COMM_WORLD; the last thread a split of odd size where p allows) and
 * runs ITER rounds of allreduce, bcast (root moving), allgather, alltoall
 * and reduce on it, checking each result against its closed form.  Under
 * MPI_THREAD_MULTIPLE ch4coll hands every collective to the host MPI
 * (entry/comm.h: ch4coll_comm_threads), so this shows that the library
 * interposes no unsafe state on that path.  Prints PASS/FAIL on rank 0;
 * SKIP when the host does not provide MPI_THREAD_MULTIPLE.
 *
 *   threads [ROUNDS]   rounds per thread (default 200)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3
#define N       17

typedef struct {
    MPI_Comm comm;
    int id, errors;
} job_t;

static int rounds = 200;

static void *work(void *arg)
{
    job_t *j = arg;
    int rank, p, i, k, in[N], out[N * 64], want;

    MPI_Comm_rank(j->comm, &rank);
    MPI_Comm_size(j->comm, &p);
    for (i = 0; i < rounds; i++) {
        int root = (i + j->id) % p;
        for (k = 0; k < N; k++)
            in[k] = rank * 100 + k + i;
        MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, j->comm);
        for (k = 0; k < N; k++) {
            want = 100 * p * (p - 1) / 2 + p * (k + i);
            j->errors += out[k] != want;
        }
        for (k = 0; k < N; k++)
            out[k] = rank == root ? k * 3 + i : -1;
        MPI_Bcast(out, N, MPI_INT, root, j->comm);
        for (k = 0; k < N; k++)
            j->errors += out[k] != k * 3 + i;
        MPI_Allgather(in, 2, MPI_INT, out, 2, MPI_INT, j->comm);
        for (k = 0; k < p; k++)
            j->errors +=
                out[2 * k] != k * 100 + i || out[2 * k + 1] != k * 100 + 1 + i;
        for (k = 0; k < p && k < N; k++)
            in[k] = rank * 1000 + k;
        if (p <= N) {
            MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, j->comm);
            for (k = 0; k < p; k++)
                j->errors += out[k] != k * 1000 + rank;
        }
        in[0] = rank + i;
        MPI_Reduce(in, out, 1, MPI_INT, MPI_MAX, root, j->comm);
        if (rank == root)
            j->errors += out[0] != p - 1 + i;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    job_t job[THREADS];
    int provided, rank, p, t, errors = 0, all;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc > 1 && atoi(argv[1]) > 0)
        rounds = atoi(argv[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: SKIP (the host provides thread level %d)\n",
                   provided);
        MPI_Finalize();
        return 0;
    }
    for (t = 0; t < THREADS; t++) {
        job[t].id = t;
        job[t].errors = 0;
        if (t == THREADS - 1 && p > 2)
            /* ranks 0..p-2 and rank p-1 alone: odd sizes at even p */
            MPI_Comm_split(MPI_COMM_WORLD, rank == p - 1, rank, &job[t].comm);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &job[t].comm);
    }
    for (t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, &job[t]);
    for (t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        errors += job[t].errors;
        MPI_Comm_free(&job[t].comm);
    }
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %d threads x %d rounds x 5 collectives: %s (%d "
               "wrong results)\n",
               THREADS, rounds, all ? "FAIL" : "PASS", all);
    MPI_Finalize();
    return all != 0;
}
