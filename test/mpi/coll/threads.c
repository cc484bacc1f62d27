/*
 * threads.c - MPI_THREAD_MULTIPLE: collectives on different communicators
 * from different threads at once, every result checked.
 *
 * Each of THREADS threads owns a communicator (a duplicate of
 * MPI_COMM_WORLD; the last thread a split of odd size where p allows) and
 * runs ROUNDS rounds on it of:
 *   - blocking allreduce, bcast (root moving), allgather, alltoall, reduce;
 *   - a nonblocking allreduce and bcast in flight together, completed with
 *     MPI_Waitall (another thread's calls progress them too);
 *   - a bcast of a strided datatype the thread creates and frees each
 *     round (MPI_Type_free evicts cached schedules of every communicator
 *     while other threads run theirs);
 *   - every 16th round a duplicate of its communicator, one allreduce on
 *     it, and MPI_Comm_free (ch4coll's attribute callback runs inside the
 *     host while other threads hold or wait for ch4coll's lock).
 * Each result is checked against its closed form.  When ch4coll is loaded
 * (preload or linked) the test also requires that it ran the collectives
 * itself: at MPI_THREAD_MULTIPLE it guards its state with a lock
 * (util/lock.h), it does not hand them to the host.
 *
 * Prints PASS/FAIL on rank 0; SKIP when the host does not provide
 * MPI_THREAD_MULTIPLE.
 *
 *   threads [ROUNDS [THREADS]]   default 200 rounds, 3 threads (max 8)
 */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 8
#define N           17

typedef struct {
    MPI_Comm comm;
    int id, errors;
} job_t;

static int rounds = 200;

static int check_blocking(MPI_Comm comm, int id, int i)
{
    int rank, p, k, in[N], out[N * 64], want, errors = 0;
    int root;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    root = (i + id) % p;
    for (k = 0; k < N; k++)
        in[k] = rank * 100 + k + i;
    MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm);
    for (k = 0; k < N; k++) {
        want = 100 * p * (p - 1) / 2 + p * (k + i);
        errors += out[k] != want;
    }
    for (k = 0; k < N; k++)
        out[k] = rank == root ? k * 3 + i : -1;
    MPI_Bcast(out, N, MPI_INT, root, comm);
    for (k = 0; k < N; k++)
        errors += out[k] != k * 3 + i;
    MPI_Allgather(in, 2, MPI_INT, out, 2, MPI_INT, comm);
    for (k = 0; k < p; k++)
        errors +=
            out[2 * k] != k * 100 + i || out[2 * k + 1] != k * 100 + 1 + i;
    for (k = 0; k < p && k < N; k++)
        in[k] = rank * 1000 + k;
    if (p <= N) {
        MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, comm);
        for (k = 0; k < p; k++)
            errors += out[k] != k * 1000 + rank;
    }
    in[0] = rank + i;
    MPI_Reduce(in, out, 1, MPI_INT, MPI_MAX, root, comm);
    if (rank == root)
        errors += out[0] != p - 1 + i;
    return errors;
}

static int check_nonblocking(MPI_Comm comm, int id, int i)
{
    int rank, p, k, in[N], sum[N], b[N], errors = 0, root;
    MPI_Request r[2];
    MPI_Status st[2];

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    root = (i + 2 * id + 1) % p;
    for (k = 0; k < N; k++) {
        in[k] = rank + k * i;
        b[k] = rank == root ? 7 * k - i : -1;
    }
    MPI_Iallreduce(in, sum, N, MPI_INT, MPI_SUM, comm, &r[0]);
    MPI_Ibcast(b, N, MPI_INT, root, comm, &r[1]);
    MPI_Waitall(2, r, st);
    for (k = 0; k < N; k++) {
        errors += sum[k] != p * (p - 1) / 2 + p * k * i;
        errors += b[k] != 7 * k - i;
    }
    return errors;
}

/* Every other int of a 2N buffer, in a datatype made and freed here. */
static int check_strided(MPI_Comm comm, int id, int i)
{
    int rank, p, k, buf[2 * N], errors = 0, root;
    MPI_Datatype every_other;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    root = (i * 3 + id) % p;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (k = 0; k < 2 * N; k++)
        buf[k] = rank == root || k % 2 ? k + 1000 * i : -5;
    MPI_Bcast(buf, 1, every_other, root, comm);
    MPI_Type_free(&every_other);
    for (k = 0; k < 2 * N; k++)
        errors += buf[k] != k + 1000 * i;
    return errors;
}

static int check_dup(MPI_Comm comm, int i)
{
    MPI_Comm dup;
    int p, one = 1, n = 0;

    MPI_Comm_size(comm, &p);
    MPI_Comm_dup(comm, &dup);
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, dup);
    MPI_Comm_free(&dup);
    (void) i;
    return n != p;
}

static void *work(void *arg)
{
    job_t *j = arg;
    int i;

    for (i = 0; i < rounds; i++) {
        j->errors += check_blocking(j->comm, j->id, i);
        j->errors += check_nonblocking(j->comm, j->id, i);
        j->errors += check_strided(j->comm, j->id, i);
        if (i % 16 == 0)
            j->errors += check_dup(j->comm, i);
    }
    return NULL;
}

/* ch4coll's counter of the collectives its schedules ran, when loaded
 * (preload or linked); -1 otherwise. */
static int64_t ch4coll_calls(void)
{
    typedef struct {
        uint64_t alloc_calls, calls, native_calls;
        uint64_t cache_hits, cache_misses, cache_evictions;
    } stats_t;
    void (*get)(stats_t *);
    stats_t s;

    *(void **) &get = dlsym(RTLD_DEFAULT, "ch4coll_get_stats");
    if (!get)
        return -1;
    get(&s);
    return (int64_t) s.calls;
}

int main(int argc, char **argv)
{
    pthread_t th[MAX_THREADS];
    job_t job[MAX_THREADS];
    int provided, rank, p, t, threads = 3, errors = 0, all, idle = 0, any_idle;
    int64_t before, after;
    int host_only;
    double start, seconds;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc > 1 && atoi(argv[1]) > 0)
        rounds = atoi(argv[1]);
    if (argc > 2 && atoi(argv[2]) > 0)
        threads = atoi(argv[2]) < MAX_THREADS ? atoi(argv[2]) : MAX_THREADS;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("threads: SKIP (the host provides thread level %d)\n",
                   provided);
        MPI_Finalize();
        return 0;
    }
    for (t = 0; t < threads; t++) {
        job[t].id = t;
        job[t].errors = 0;
        if (t == threads - 1 && p > 2)
            /* ranks 0..p-2 and rank p-1 alone: odd sizes at even p */
            MPI_Comm_split(MPI_COMM_WORLD, rank == p - 1, rank, &job[t].comm);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &job[t].comm);
    }
    /* MPIR_CVAR_CH4COLL_ENABLE=0: the host MPI's run, to compare with */
    host_only = getenv("MPIR_CVAR_CH4COLL_ENABLE") &&
                strcmp(getenv("MPIR_CVAR_CH4COLL_ENABLE"), "0") == 0;
    before = ch4coll_calls();
    start = MPI_Wtime();
    for (t = 0; t < threads; t++)
        pthread_create(&th[t], NULL, work, &job[t]);
    for (t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        errors += job[t].errors;
        MPI_Comm_free(&job[t].comm);
    }
    seconds = MPI_Wtime() - start;
    after = ch4coll_calls();
    /* ch4coll loaded but its schedules ran too few of the threads' calls */
    idle = !host_only && before >= 0 &&
           after - before < (int64_t) rounds * threads;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&idle, &any_idle, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
        if (before >= 0)
            printf("threads: ch4coll ran %lld collectives on rank 0\n",
                   (long long) (after - before));
        printf("threads: %d threads x %d rounds x 9 collectives in %.3f s: "
               "%s (%d wrong results%s)\n",
               threads, rounds, seconds, all || any_idle ? "FAIL" : "PASS", all,
               any_idle ? ", ch4coll ran too few of them" : "");
    }
    MPI_Finalize();
    return all != 0 || any_idle;
}
