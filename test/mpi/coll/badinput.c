/*
 * badinput.c - invalid arguments to the collectives ch4coll intercepts, and
 * MPI_Finalize with ch4coll nonblocking collectives outstanding
 * (doc/errors.md has every case and its outcome).
 *
 * usage: badinput [CASE...]        the argument cases (all, or those named)
 *        badinput finalize         MPI_Finalize with requests outstanding
 *        badinput finalize-stuck   ... with one no other rank started
 *
 * Argument cases.  Every rank makes the same bad call.  MPICH checks these
 * arguments in its MPI_ functions and reports them through the
 * communicator's error handler; ch4coll must do the same.  Each case
 * checks, on every rank:
 *
 *   - the call returned an error of the expected MPI error class;
 *   - the error handler that ran was the communicator's (a recording
 *     handler; for MPI_COMM_NULL, whichever handler the host uses), with
 *     the same class, and it ran once;
 *   - the library still works: an allreduce, a bcast from the last rank
 *     and an allgather on the same communicator right after it give the
 *     right results.
 *
 * The cases run on MPI_COMM_WORLD (whose ch4coll state exists from
 * MPI_Init) and on a duplicate (its state is made by its first
 * collective, which is one of the bad calls), with blocking, nonblocking
 * and persistent forms.  With MPIR_CVAR_CH4COLL_ENABLE=0 the same program
 * checks the host MPI's own behaviour: both runs must agree (the cases
 * where Debian's MPICH 4.0.2 crashes or answers another class are skipped
 * there).  Cases whose bad argument only the root reads (the others make
 * a valid call) run with MPIR_CVAR_CH4COLL_VERIFY=1, where the other ranks
 * must fail with MPI_ERR_ARG, and with ch4coll disabled; without
 * verification ch4coll cannot tell the others (doc/errors.md).
 *
 * Finalize.  Every rank starts an MPI_Iallreduce and a pipelined
 * MPI_Ibcast of 1 MiB on MPI_COMM_WORLD after a blocking collective (so
 * ch4coll runs them), and calls MPI_Finalize without waiting.  MPI makes
 * this erroneous; ch4coll completes the requests in MPI_Finalize (the
 * results are checked after it), says so on stderr, and MPI_Finalize
 * returns MPI_SUCCESS.  finalize-stuck: only rank 0 starts the broadcast;
 * after 10 s without progress ch4coll calls MPI_Abort (exit status 1)
 * instead of hanging in the host's MPI_Finalize.
 *
 * host_extensions: a call MPI does not define but MPICH accepts (MPI_LXOR
 * on floating point) must give the host's answer, no error.
 *
 * Rank 0 prints "badinput: all N checks passed (M cases skipped)" or what
 * failed, exit status 1 on any failure; each rank prints "badinput
 * finalize: rank R: MPI_Finalize returned 0: PASS".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N   8    /* elements of the follow-up collectives */
#define BIG 4096 /* elements of the buffers the bad calls get */

static int rank, size, checks, failures, skipped;

/* ch4coll disabled (the host MPI's own checks), or verifying arguments */
static int mode_native, mode_verify;

/* What the recording error handlers saw since the last reset. */
static int seen_calls, seen_class;
static MPI_Comm seen_comm;

static void record(MPI_Comm *comm, int *code, ...)
{
    int cls = -1;

    MPI_Error_class(*code, &cls);
    seen_calls++;
    seen_class = cls;
    seen_comm = comm ? *comm : MPI_COMM_NULL;
}

static void reset(void)
{
    seen_calls = 0;
    seen_class = -1;
    seen_comm = MPI_COMM_NULL;
}

/* All ranks agree on ok (PMPI: independent of what is being tested). */
static void check(int ok, const char *comm_name, const char *what,
                  const char *detail)
{
    int all;

    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    checks++;
    if (!ok)
        printf("badinput: rank %d: %s on %s: %s\n", rank, what, comm_name,
               detail);
    if (!all) {
        failures++;
        if (rank == 0)
            printf("badinput: FAILED: %s on %s\n", what, comm_name);
    }
    fflush(stdout);
}

/* The error string of a class, cut to fit a line (static). */
static const char *class_name(int cls)
{
    static char out[64];
    char buf[MPI_MAX_ERROR_STRING];
    int len;

    if (cls < 0)
        return "(none)";
    if (MPI_Error_string(cls, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "class %d", cls);
    snprintf(out, sizeof out, "%.63s", buf);
    return out;
}

/* ---------------------------------------------------------- the cases */

typedef struct {
    MPI_Comm comm;
    int p, me;
    int *a, *b; /* BIG ints each */
    int counts[64], displs[64];
    MPI_Datatype loose; /* a contiguous type never committed */
} env_t;

/* A nonblocking call's request: an error return leaves it null; if the
 * call was taken, wait for it (the case then fails on its class). */
static int finish(int rc, MPI_Request *r)
{
    if (rc == MPI_SUCCESS && *r != MPI_REQUEST_NULL)
        rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    return rc;
}

/* A persistent call: start and wait if init succeeded, then free. */
static int finish_persistent(int rc, MPI_Request *r)
{
    if (rc == MPI_SUCCESS && *r != MPI_REQUEST_NULL) {
        rc = MPI_Start(r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(r, MPI_STATUS_IGNORE);
        MPI_Request_free(r);
    }
    return rc;
}

/* negative counts */
static int bcast_count(env_t *e)
{
    return MPI_Bcast(e->a, -1, MPI_INT, 0, e->comm);
}

static int reduce_count(env_t *e)
{
    return MPI_Reduce(e->a, e->b, -1, MPI_INT, MPI_SUM, 0, e->comm);
}

static int allreduce_count(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, -2, MPI_INT, MPI_SUM, e->comm);
}

static int allgather_sendcount(env_t *e)
{
    return MPI_Allgather(e->a, -1, MPI_INT, e->b, 1, MPI_INT, e->comm);
}

static int allgather_recvcount(env_t *e)
{
    return MPI_Allgather(e->a, 1, MPI_INT, e->b, -1, MPI_INT, e->comm);
}

static int alltoall_count(env_t *e)
{
    return MPI_Alltoall(e->a, -1, MPI_INT, e->b, -1, MPI_INT, e->comm);
}

static int alltoallv_counts(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++) {
        e->counts[i] = i == e->p - 1 ? -1 : 1;
        e->displs[i] = i;
    }
    return MPI_Alltoallv(e->a, e->counts, e->displs, MPI_INT, e->b, e->counts,
                         e->displs, MPI_INT, e->comm);
}

static int allgatherv_counts(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++) {
        e->counts[i] = i == 0 ? -3 : 1;
        e->displs[i] = i;
    }
    return MPI_Allgatherv(e->a, e->me == 0 ? -3 : 1, MPI_INT, e->b, e->counts,
                          e->displs, MPI_INT, e->comm);
}

static int reduce_scatter_counts(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++)
        e->counts[i] = i == 0 ? -1 : 1;
    return MPI_Reduce_scatter(e->a, e->b, e->counts, MPI_INT, MPI_SUM, e->comm);
}

static int reduce_scatter_block_count(env_t *e)
{
    return MPI_Reduce_scatter_block(e->a, e->b, -1, MPI_INT, MPI_SUM, e->comm);
}

static int scan_count(env_t *e)
{
    return MPI_Scan(e->a, e->b, -1, MPI_INT, MPI_SUM, e->comm);
}

static int ibcast_count(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(MPI_Ibcast(e->a, -1, MPI_INT, 0, e->comm, &r), &r);
}

static int iallreduce_count(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(MPI_Iallreduce(e->a, e->b, -1, MPI_INT, MPI_SUM, e->comm, &r),
                  &r);
}

static int allreduce_init_count(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish_persistent(MPI_Allreduce_init(e->a, e->b, -1, MPI_INT,
                                                MPI_SUM, e->comm, MPI_INFO_NULL,
                                                &r),
                             &r);
}

/* invalid roots */
static int bcast_root_neg(env_t *e)
{
    return MPI_Bcast(e->a, 4, MPI_INT, -1, e->comm);
}

static int bcast_root_p(env_t *e)
{
    return MPI_Bcast(e->a, 4, MPI_INT, e->p, e->comm);
}

static int reduce_root_p(env_t *e)
{
    return MPI_Reduce(e->a, e->b, 4, MPI_INT, MPI_SUM, e->p, e->comm);
}

static int gather_root_neg(env_t *e)
{
    return MPI_Gather(e->a, 1, MPI_INT, e->b, 1, MPI_INT, -5, e->comm);
}

static int scatterv_root_p(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++) {
        e->counts[i] = 1;
        e->displs[i] = i;
    }
    return MPI_Scatterv(e->a, e->counts, e->displs, MPI_INT, e->b, 1, MPI_INT,
                        e->p + 7, e->comm);
}

static int ireduce_root_p(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(
        MPI_Ireduce(e->a, e->b, 4, MPI_INT, MPI_SUM, e->p, e->comm, &r), &r);
}

/* invalid datatypes */
static int bcast_type_null(env_t *e)
{
    return MPI_Bcast(e->a, 4, MPI_DATATYPE_NULL, 0, e->comm);
}

static int allreduce_type_null(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, 4, MPI_DATATYPE_NULL, MPI_SUM, e->comm);
}

static int allgather_recvtype_null(env_t *e)
{
    return MPI_Allgather(e->a, 1, MPI_INT, e->b, 1, MPI_DATATYPE_NULL, e->comm);
}

static int alltoall_sendtype_null(env_t *e)
{
    return MPI_Alltoall(e->a, 1, MPI_DATATYPE_NULL, e->b, 1, MPI_INT, e->comm);
}

static int bcast_type_uncommitted(env_t *e)
{
    return MPI_Bcast(e->a, 4, e->loose, 0, e->comm);
}

static int allgather_type_uncommitted(env_t *e)
{
    return MPI_Allgather(e->a, 1, e->loose, e->b, 1, e->loose, e->comm);
}

static int iallgather_type_null(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(MPI_Iallgather(e->a, 1, MPI_INT, e->b, 1, MPI_DATATYPE_NULL,
                                 e->comm, &r),
                  &r);
}

/* invalid ops */
static int allreduce_op_null(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, 4, MPI_INT, MPI_OP_NULL, e->comm);
}

static int reduce_op_null(env_t *e)
{
    return MPI_Reduce(e->a, e->b, 4, MPI_INT, MPI_OP_NULL, 0, e->comm);
}

static int allreduce_land_double(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, 2, MPI_DOUBLE, MPI_LAND, e->comm);
}

static int allreduce_maxloc_int(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, 4, MPI_INT, MPI_MAXLOC, e->comm);
}

static int reduce_scatter_block_bor_float(env_t *e)
{
    return MPI_Reduce_scatter_block(e->a, e->b, 1, MPI_FLOAT, MPI_BOR, e->comm);
}

static int iallreduce_op_null(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(
        MPI_Iallreduce(e->a, e->b, 4, MPI_INT, MPI_OP_NULL, e->comm, &r), &r);
}

/* buffers */
static int allreduce_recvbuf_in_place(env_t *e)
{
    return MPI_Allreduce(e->a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, e->comm);
}

static int bcast_buffer_in_place(env_t *e)
{
    return MPI_Bcast(MPI_IN_PLACE, 4, MPI_INT, 0, e->comm);
}

static int allreduce_aliased(env_t *e)
{
    return MPI_Allreduce(e->a, e->a, 4, MPI_INT, MPI_SUM, e->comm);
}

static int allgather_recvbuf_null(env_t *e)
{
    return MPI_Allgather(e->a, 1, MPI_INT, NULL, 1, MPI_INT, e->comm);
}

static int bcast_buffer_null(env_t *e)
{
    return MPI_Bcast(NULL, 4, MPI_INT, 0, e->comm);
}

/* The same shapes right after a correct call of them: the cache holds the
 * shape, and the bad buffer must still be caught (core/comm_pmpi.c takes
 * a cache hit without checking only when no buffer can be wrong). */
static int allreduce_aliased_cached(env_t *e)
{
    int rc = MPI_Allreduce(e->a, e->b, 4, MPI_INT, MPI_SUM, e->comm);

    return rc != MPI_SUCCESS ? rc : allreduce_aliased(e);
}

static int bcast_buffer_null_cached(env_t *e)
{
    int rc = MPI_Bcast(e->a, 4, MPI_INT, 0, e->comm);

    return rc != MPI_SUCCESS ? rc : bcast_buffer_null(e);
}

static int allgather_recvbuf_null_cached(env_t *e)
{
    int rc = MPI_Allgather(e->a, 1, MPI_INT, e->b, 1, MPI_INT, e->comm);

    return rc != MPI_SUCCESS ? rc : allgather_recvbuf_null(e);
}

static int alltoallv_aliased(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++) {
        e->counts[i] = 1;
        e->displs[i] = i;
    }
    return MPI_Alltoallv(e->a, e->counts, e->displs, MPI_INT, e->a, e->counts,
                         e->displs, MPI_INT, e->comm);
}

/* Arguments only the root reads: the other ranks' calls are valid.
 * ch4coll without MPIR_CVAR_CH4COLL_VERIFY cannot tell the others that
 * the root failed (doc/errors.md), so these run with VERIFY=1 (the
 * others then fail with MPI_ERR_ARG) and with ch4coll disabled (the host
 * MPI: the others succeed). */
static int gatherv_root_counts(env_t *e)
{
    int i;

    for (i = 0; i < e->p; i++) {
        e->counts[i] = i == 1 % e->p ? -1 : 0;
        e->displs[i] = 0;
    }
    return MPI_Gatherv(e->a, 0, MPI_INT, e->b, e->counts, e->displs, MPI_INT, 0,
                       e->comm);
}

static int scatter_root_sendtype(env_t *e)
{
    return MPI_Scatter(e->a, 0, MPI_DATATYPE_NULL, e->b, 0, MPI_INT, e->p - 1,
                       e->comm);
}

static int gather_root_recvbuf_in_place(env_t *e)
{
    return MPI_Gather(e->a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, e->comm);
}

/* communicators */
static int bcast_comm_null(env_t *e)
{
    return MPI_Bcast(e->a, 4, MPI_INT, 0, MPI_COMM_NULL);
}

static int allreduce_comm_null(env_t *e)
{
    return MPI_Allreduce(e->a, e->b, 4, MPI_INT, MPI_SUM, MPI_COMM_NULL);
}

static int barrier_comm_null(env_t *e)
{
    (void) e;
    return MPI_Barrier(MPI_COMM_NULL);
}

static int ibcast_comm_null(env_t *e)
{
    MPI_Request r = MPI_REQUEST_NULL;

    return finish(MPI_Ibcast(e->a, 4, MPI_INT, 0, MPI_COMM_NULL, &r), &r);
}

typedef struct {
    const char *name;
    int (*run)(env_t *e);
    int cls;      /* expected MPI error class */
    int own_comm; /* the error goes to the communicator's handler */
    int root;     /* -1: every rank fails; r: only rank r (0 or p - 1) */
    int host_bug; /* Debian's MPICH 4.0.2 gets it wrong: not run native */
} case_t;

#define CASE(fn, cls)                                                          \
    {                                                                          \
#fn, fn, cls, 1, -1, 0                                                 \
    }
#define CASE_HOST_BUG(fn, cls)                                                 \
    {                                                                          \
#fn, fn, cls, 1, -1, 1                                                 \
    }
#define CASE_NULL_COMM(fn)                                                     \
    {                                                                          \
#fn, fn, MPI_ERR_COMM, 0, -1, 0                                        \
    }
#define CASE_ROOT(fn, cls, r)                                                  \
    {                                                                          \
#fn, fn, cls, 1, r, 0                                                  \
    }

static const case_t cases[] = {
    CASE(bcast_count, MPI_ERR_COUNT),
    CASE_HOST_BUG(reduce_count, MPI_ERR_COUNT),
    CASE_HOST_BUG(allreduce_count, MPI_ERR_COUNT),
    CASE(allgather_sendcount, MPI_ERR_COUNT),
    CASE(allgather_recvcount, MPI_ERR_COUNT),
    CASE(alltoall_count, MPI_ERR_COUNT),
    CASE(alltoallv_counts, MPI_ERR_COUNT),
    CASE(allgatherv_counts, MPI_ERR_COUNT),
    CASE(reduce_scatter_counts, MPI_ERR_COUNT),
    CASE_HOST_BUG(reduce_scatter_block_count, MPI_ERR_COUNT),
    CASE_HOST_BUG(scan_count, MPI_ERR_COUNT),
    CASE(ibcast_count, MPI_ERR_COUNT),
    CASE_HOST_BUG(iallreduce_count, MPI_ERR_COUNT),
    CASE_HOST_BUG(allreduce_init_count, MPI_ERR_COUNT),
    CASE(bcast_root_neg, MPI_ERR_ROOT),
    CASE(bcast_root_p, MPI_ERR_ROOT),
    CASE(reduce_root_p, MPI_ERR_ROOT),
    CASE(gather_root_neg, MPI_ERR_ROOT),
    CASE(scatterv_root_p, MPI_ERR_ROOT),
    CASE(ireduce_root_p, MPI_ERR_ROOT),
    CASE(bcast_type_null, MPI_ERR_TYPE),
    CASE_HOST_BUG(allreduce_type_null, MPI_ERR_TYPE),
    CASE(allgather_recvtype_null, MPI_ERR_TYPE),
    CASE(alltoall_sendtype_null, MPI_ERR_TYPE),
    CASE(bcast_type_uncommitted, MPI_ERR_TYPE),
    CASE(allgather_type_uncommitted, MPI_ERR_TYPE),
    CASE(iallgather_type_null, MPI_ERR_TYPE),
    CASE(allreduce_op_null, MPI_ERR_OP),
    CASE(reduce_op_null, MPI_ERR_OP),
    CASE_HOST_BUG(allreduce_land_double, MPI_ERR_OP),
    CASE(allreduce_maxloc_int, MPI_ERR_OP),
    CASE(reduce_scatter_block_bor_float, MPI_ERR_OP),
    CASE(iallreduce_op_null, MPI_ERR_OP),
    CASE(allreduce_recvbuf_in_place, MPI_ERR_BUFFER),
    CASE_HOST_BUG(bcast_buffer_in_place, MPI_ERR_BUFFER),
    CASE(allreduce_aliased, MPI_ERR_BUFFER),
    CASE(allgather_recvbuf_null, MPI_ERR_BUFFER),
    CASE(bcast_buffer_null, MPI_ERR_BUFFER),
    CASE(alltoallv_aliased, MPI_ERR_BUFFER),
    CASE(allreduce_aliased_cached, MPI_ERR_BUFFER),
    CASE(bcast_buffer_null_cached, MPI_ERR_BUFFER),
    CASE(allgather_recvbuf_null_cached, MPI_ERR_BUFFER),
    CASE_ROOT(gatherv_root_counts, MPI_ERR_COUNT, 0),
    CASE_ROOT(scatter_root_sendtype, MPI_ERR_TYPE, 1),
    CASE_ROOT(gather_root_recvbuf_in_place, MPI_ERR_BUFFER, 0),
    CASE_NULL_COMM(bcast_comm_null),
    CASE_NULL_COMM(allreduce_comm_null),
    CASE_NULL_COMM(barrier_comm_null),
    CASE_NULL_COMM(ibcast_comm_null),
};

#define NCASES ((int) (sizeof cases / sizeof cases[0]))

/* ------------------------------------------------------- the follow-up */

/* Right after a bad call: three correct collectives on the same
 * communicator.  0 when all results are right. */
static int follow_up(env_t *e, int salt, char *why, size_t len)
{
    int in[N], out[N], all[64], i, rc;

    for (i = 0; i < N; i++)
        in[i] = (e->me + 1) * (i + salt);
    rc = MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, e->comm);
    for (i = 0; rc == MPI_SUCCESS && i < N; i++)
        if (out[i] != e->p * (e->p + 1) / 2 * (i + salt)) {
            snprintf(why, len, "allreduce: element %d is %d", i, out[i]);
            return 1;
        }
    for (i = 0; rc == MPI_SUCCESS && i < N; i++)
        out[i] = e->me == e->p - 1 ? i * salt + 3 : -1;
    if (rc == MPI_SUCCESS)
        rc = MPI_Bcast(out, N, MPI_INT, e->p - 1, e->comm);
    for (i = 0; rc == MPI_SUCCESS && i < N; i++)
        if (out[i] != i * salt + 3) {
            snprintf(why, len, "bcast: element %d is %d", i, out[i]);
            return 1;
        }
    i = e->me * salt;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgather(&i, 1, MPI_INT, all, 1, MPI_INT, e->comm);
    for (i = 0; rc == MPI_SUCCESS && i < e->p; i++)
        if (all[i] != i * salt) {
            snprintf(why, len, "allgather: block %d is %d", i, all[i]);
            return 1;
        }
    if (rc != MPI_SUCCESS) {
        snprintf(why, len, "a correct collective failed (%s)", class_name(rc));
        return 1;
    }
    return 0;
}

/* The follow-up of case `what`, as a check of its own. */
static void then(env_t *e, int salt, const char *comm_name, const char *what)
{
    char name[200], why[256] = "";

    snprintf(name, sizeof name, "%s, then", what);
    check(!follow_up(e, salt, why, sizeof why), comm_name, name, why);
}

static void run_case(const case_t *c, env_t *e, const char *comm_name, int salt)
{
    char what[160], why[256] = "";
    int rc, cls = -1, ok;

    if ((c->root >= 0 && !mode_native && !mode_verify) ||
        (c->host_bug && mode_native)) {
        skipped++;
        return;
    }
    snprintf(what, sizeof what, "%s (expects %s)", c->name, class_name(c->cls));
    reset();
    rc = c->run(e);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (c->root >= 0 && e->me != (c->root == 0 ? 0 : e->p - 1)) {
        /* a valid call: the host MPI lets it pass, ch4coll's
         * verification fails it on every rank */
        int want = mode_verify ? MPI_ERR_ARG : MPI_SUCCESS;
        ok = (rc == MPI_SUCCESS ? MPI_SUCCESS : cls) == want &&
             seen_calls == (want != MPI_SUCCESS) &&
             (want == MPI_SUCCESS || seen_class == want);
        if (!ok)
            snprintf(why, sizeof why,
                     "a valid call returned %s, handler ran %d times",
                     rc == MPI_SUCCESS ? "MPI_SUCCESS" : class_name(cls),
                     seen_calls);
        check(ok, comm_name, what, why);
        then(e, salt, comm_name, what);
        return;
    }
    ok = rc != MPI_SUCCESS && cls == c->cls;
    if (!ok)
        snprintf(why, sizeof why, "returned %s",
                 rc == MPI_SUCCESS ? "MPI_SUCCESS" : class_name(cls));
    if (ok && (seen_calls != 1 || seen_class != c->cls)) {
        ok = 0;
        snprintf(why, sizeof why, "error handler ran %d times, class %s",
                 seen_calls, class_name(seen_class));
    }
    if (ok && c->own_comm) {
        int same = 0;
        MPI_Comm_compare(seen_comm, e->comm, &same);
        if (same != MPI_IDENT) {
            ok = 0;
            snprintf(why, sizeof why,
                     "the error went to another communicator's handler");
        }
    }
    check(ok, comm_name, what, why);
    then(e, salt, comm_name, what);
}

/* What the host accepts, ch4coll accepts: MPICH defines MPI_LXOR on
 * floating point (MPI does not require it), so it is a valid call with
 * the host's answer, not an error (MPICH's own test oplxor).  Rank 0
 * alone holds a nonzero in element 1; every rank in element 2. */
static void host_extensions(MPI_Comm comm, const char *comm_name)
{
    double in[3], out[3];
    long double lin[3], lout[3];
    int p, me, i, rc, want[3], ok;
    char why[160];

    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    for (i = 0; i < 3; i++) {
        in[i] = i == 0 ? 0.0 : i == 1 ? (me == 0 ? 1.5 : 0.0) : 2.0;
        lin[i] = in[i];
    }
    want[0] = 0;
    want[1] = 1;
    want[2] = p % 2;
    reset();
    rc = MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_LXOR, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(lin, lout, 3, MPI_LONG_DOUBLE, MPI_LXOR, comm);
    ok = rc == MPI_SUCCESS && seen_calls == 0;
    for (i = 0; ok && i < 3; i++)
        ok = (out[i] != 0.0) == want[i] && (lout[i] != 0.0L) == want[i];
    snprintf(why, sizeof why,
             "returned %d, handler ran %d times, results %g %g %g", rc,
             seen_calls, out[0], out[1], out[2]);
    check(ok, comm_name, "MPI_LXOR on MPI_DOUBLE and MPI_LONG_DOUBLE", why);
}

static int nselect;
static char **selected;

static int wanted(const char *name)
{
    int i;

    for (i = 0; i < nselect; i++)
        if (strcmp(selected[i], name) == 0)
            return 1;
    return nselect == 0;
}

static void run_cases(MPI_Comm comm, const char *comm_name)
{
    env_t e;
    int i;

    memset(&e, 0, sizeof e);
    e.comm = comm;
    MPI_Comm_size(comm, &e.p);
    MPI_Comm_rank(comm, &e.me);
    e.a = calloc(BIG, sizeof(int));
    e.b = calloc(BIG, sizeof(int));
    MPI_Type_contiguous(2, MPI_INT, &e.loose);
    for (i = 0; i < NCASES; i++)
        if (wanted(cases[i].name))
            run_case(&cases[i], &e, comm_name, i + 1);
    if (wanted("host_extensions"))
        host_extensions(comm, comm_name);
    MPI_Type_free(&e.loose);
    free(e.a);
    free(e.b);
}

/* ------------------------------------------------------------ finalize */

/* stuck: only rank 0 starts the broadcast, which cannot complete */
static int finalize_case(int stuck)
{
    static unsigned char big[1 << 20];
    int in[N], out[N], i, rc;
    MPI_Request r[2];

    for (i = 0; i < N; i++)
        in[i] = rank + i;
    for (i = 0; i < (int) sizeof big; i++)
        big[i] = rank == 0 ? (unsigned char) (i * 7) : 0;
    /* a blocking collective first: ch4coll's state of MPI_COMM_WORLD is
     * made at MPI_Init, this makes sure the schedules are ch4coll's */
    MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!stuck)
        MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    if (!stuck || rank == 0)
        MPI_Ibcast(big, sizeof big, MPI_BYTE, 0, MPI_COMM_WORLD, &r[1]);
    rc = MPI_Finalize();
    /* completed in MPI_Finalize: the results are there */
    for (i = 0; !stuck && i < N; i++)
        if (out[i] != size * (size - 1) / 2 + size * i)
            rc = -1;
    for (i = 0; !stuck && i < (int) sizeof big; i++)
        if (big[i] != (unsigned char) (i * 7))
            rc = -2;
    printf("badinput %s: rank %d: MPI_Finalize returned %d: %s\n",
           stuck ? "finalize-stuck" : "finalize", rank, rc,
           rc == MPI_SUCCESS ? "PASS" : "FAIL");
    return rc == MPI_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh;
    MPI_Comm dup;

    if (argc > 1 && strncmp(argv[1], "finalize", 8) == 0) {
        /* pipelined chunks: the bcast needs several rounds of progress */
        setenv("MPIR_CVAR_CH4COLL_IBCAST_ALGORITHM", "line:chunk=4096", 0);
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        return finalize_case(strcmp(argv[1], "finalize-stuck") == 0);
    }
    mode_native = getenv("MPIR_CVAR_CH4COLL_ENABLE") &&
                  strcmp(getenv("MPIR_CVAR_CH4COLL_ENABLE"), "0") == 0;
    mode_verify = getenv("MPIR_CVAR_CH4COLL_VERIFY") &&
                  strcmp(getenv("MPIR_CVAR_CH4COLL_VERIFY"), "1") == 0;
    MPI_Init(&argc, &argv);
    nselect = argc - 1;
    selected = argv + 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    run_cases(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    /* a duplicate: its first collective is a bad one */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, eh);
    run_cases(dup, "a duplicate");
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);
    if (rank == 0) {
        if (failures == 0)
            printf("badinput: all %d checks passed (%d cases skipped)\n",
                   checks, skipped);
        else
            printf("badinput: %d of %d checks failed\n", failures, checks);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
