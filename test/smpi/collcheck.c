/*
 * collcheck.c - every blocking collective ch4coll covers, run once (or -i
 * times) on MPI_COMM_WORLD and checked against a reference each rank
 * computes locally (colldata.h): the correctness driver for SimGrid SMPI
 * at thousands of simulated ranks, built and run by maint/smpi.
 *
 * usage: collcheck [-n COUNT | -b BYTES] [-c COLL,...] [-a COLL=ALGO]...
 *                  [-r ROOT] [-o sum|affine] [-i ITERS] [-s]
 *        collcheck -l
 *
 *   -n COUNT   elements per block (default 4): a bcast/reduce vector, one
 *              rank's block of a gather/allgather/alltoall/scatter, the
 *              base of the irregular v-counts (some ranks get 0)
 *   -b BYTES   the same, given in bytes of an element block
 *   -c LIST    only these collectives (ch4coll names: allreduce, ...)
 *   -a C=A     force algorithm A (with optional :k=v,... parameters) of
 *              collective C: sets MPIR_CVAR_CH4COLL_<C>_ALGORITHM before
 *              MPI_Init; the environment variable works as well
 *   -r ROOT    root of the rooted collectives (default size / 3)
 *   -o OP      sum: MPI_INT and MPI_SUM (default); affine: pairs of ints
 *              and a non-commutative user op (rank order must be kept)
 *   -i ITERS   calls per collective, each checked (default 1)
 *   -s         shared mode: buffers from SMPI_SHARED_MALLOC, nothing
 *              filled or checked (large p and large messages)
 *   -l         list ch4coll's algorithms, "collective name" per line (the
 *              catalog of ch4coll.h), and exit without MPI
 *
 * Rank 0 prints one line per collective: name, count, the simulated time
 * of one call (MPI_Wtime, maximum over ranks, mean over the iterations),
 * the verdict, and what ran it (ch4coll's decision, or "native" when the
 * call went to the host MPI).  The first rank with a mismatch prints its
 * first wrong element.  The last line is "collcheck: N collectives, all
 * correct" (exit 0) or "collcheck: N collectives, K with mismatches"
 * (exit 1).  The harness's own communication (barriers, the verdict and
 * timing reductions) uses PMPI_, so it never goes through ch4coll.
 */
#include <mpi.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch4coll.h"
#include "colldata.h"

typedef struct {
    cd_env_t e;
    double t0, elapsed; /* simulated seconds inside the collective calls */
} ctx_t;

typedef struct {
    const char *name; /* ch4coll's name of the collective */
    int (*run)(ctx_t *c);
} coll_t;

static void start(ctx_t *c)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    c->t0 = MPI_Wtime();
}

static void stop(ctx_t *c)
{
    c->elapsed += MPI_Wtime() - c->t0;
}

/* Displacements with a free element before every block but the first
 * (the gaps must stay untouched); returns the total extent. */
static size_t gapped_displs(const int *counts, int p, int *displs)
{
    size_t at = 0;
    int q;

    for (q = 0; q < p; q++) {
        at += q > 0;
        displs[q] = (int) at;
        at += (size_t) counts[q];
    }
    return at;
}

/* The gaps between the blocks and the guard after the last one. */
static void expect_gaps(cd_env_t *e, const int *buf, const int *counts,
                        const int *displs, int p, size_t total)
{
    int q;

    for (q = 0; q + 1 < p; q++)
        cd_expect_untouched(e, buf, (size_t) displs[q] + (size_t) counts[q],
                            (size_t) displs[q + 1]);
    cd_expect_untouched(e, buf, total, total + CD_GUARD);
}

static int *int_array(int n)
{
    int *a = malloc(((size_t) n + 1) * sizeof(int));

    if (!a) {
        fprintf(stderr, "collcheck: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return a;
}

/* ------------------------------------------------- one per collective */

static int run_bcast(ctx_t *c)
{
    cd_env_t *e = &c->e;
    int *buf = cd_alloc_recv(e, (size_t) e->count), rc;

    if (e->rank == e->root)
        cd_fill(e, buf, e->root, 0, (size_t) e->count);
    start(c);
    rc = MPI_Bcast(buf, e->count, e->dt, e->root, MPI_COMM_WORLD);
    stop(c);
    cd_expect_block(e, buf, 0, e->root, 0, (size_t) e->count);
    cd_expect_untouched(e, buf, (size_t) e->count,
                        (size_t) e->count + CD_GUARD);
    cd_free(e, buf);
    return rc;
}

/* reduce (root >= 0) or allreduce (root < 0) */
static int run_reduction(ctx_t *c, int root)
{
    cd_env_t *e = &c->e;
    size_t n = (size_t) e->count;
    int *sbuf = cd_alloc(e, n), *rbuf = NULL, rc, mine;

    mine = root < 0 || e->rank == root;
    if (mine)
        rbuf = cd_alloc_recv(e, n);
    cd_fill(e, sbuf, e->rank, 0, n);
    start(c);
    rc = root < 0
             ? MPI_Allreduce(sbuf, rbuf, e->count, e->dt, e->op, MPI_COMM_WORLD)
             : MPI_Reduce(sbuf, rbuf, e->count, e->dt, e->op, root,
                          MPI_COMM_WORLD);
    stop(c);
    if (mine) {
        cd_expect_fold(e, rbuf, 0, 0, e->size, 0, n);
        cd_expect_untouched(e, rbuf, n, n + CD_GUARD);
    }
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    return rc;
}

static int run_reduce(ctx_t *c)
{
    return run_reduction(c, c->e.root);
}

static int run_allreduce(ctx_t *c)
{
    return run_reduction(c, -1);
}

/* gather (root >= 0) or allgather (root < 0) of count elements each */
static int run_gathering(ctx_t *c, int root)
{
    cd_env_t *e = &c->e;
    size_t n = (size_t) e->count, total = n * (size_t) e->size;
    int *sbuf = cd_alloc(e, n), *rbuf = NULL, rc, q, mine;

    mine = root < 0 || e->rank == root;
    if (mine)
        rbuf = cd_alloc_recv(e, total);
    cd_fill(e, sbuf, e->rank, 0, n);
    start(c);
    rc = root < 0 ? MPI_Allgather(sbuf, e->count, e->dt, rbuf, e->count, e->dt,
                                  MPI_COMM_WORLD)
                  : MPI_Gather(sbuf, e->count, e->dt, rbuf, e->count, e->dt,
                               root, MPI_COMM_WORLD);
    stop(c);
    for (q = 0; mine && q < e->size; q++)
        cd_expect_block(e, rbuf, (size_t) q * n, q, 0, n);
    if (mine)
        cd_expect_untouched(e, rbuf, total, total + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    return rc;
}

static int run_allgather(ctx_t *c)
{
    return run_gathering(c, -1);
}

static int run_gather(ctx_t *c)
{
    return run_gathering(c, c->e.root);
}

/* gatherv (root >= 0) or allgatherv (root < 0) of irregular blocks */
static int run_gathering_v(ctx_t *c, int root)
{
    cd_env_t *e = &c->e;
    int *counts = int_array(e->size), *displs = int_array(e->size);
    int *sbuf, *rbuf = NULL, rc, q, mine = root < 0 || e->rank == root;
    size_t total;

    for (q = 0; q < e->size; q++)
        counts[q] = cd_vcount(e, q);
    total = gapped_displs(counts, e->size, displs);
    sbuf = cd_alloc(e, (size_t) counts[e->rank]);
    if (mine)
        rbuf = cd_alloc_recv(e, total);
    cd_fill(e, sbuf, e->rank, 0, (size_t) counts[e->rank]);
    start(c);
    rc = root < 0 ? MPI_Allgatherv(sbuf, counts[e->rank], e->dt, rbuf, counts,
                                   displs, e->dt, MPI_COMM_WORLD)
                  : MPI_Gatherv(sbuf, counts[e->rank], e->dt, rbuf, counts,
                                displs, e->dt, root, MPI_COMM_WORLD);
    stop(c);
    for (q = 0; mine && q < e->size; q++)
        cd_expect_block(e, rbuf, (size_t) displs[q], q, 0, (size_t) counts[q]);
    if (mine)
        expect_gaps(e, rbuf, counts, displs, e->size, total);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    free(counts);
    free(displs);
    return rc;
}

static int run_allgatherv(ctx_t *c)
{
    return run_gathering_v(c, -1);
}

static int run_gatherv(ctx_t *c)
{
    return run_gathering_v(c, c->e.root);
}

/* Block d of rank s's send buffer is elements (s, d * stride + k). */
static int run_alltoall(ctx_t *c)
{
    cd_env_t *e = &c->e;
    size_t n = (size_t) e->count, total = n * (size_t) e->size;
    int *sbuf = cd_alloc(e, total), *rbuf = cd_alloc_recv(e, total), rc, q;

    for (q = 0; q < e->size; q++)
        cd_fill(e, sbuf + (size_t) q * n * (size_t) e->w, e->rank,
                (size_t) q * n, n);
    start(c);
    rc = MPI_Alltoall(sbuf, e->count, e->dt, rbuf, e->count, e->dt,
                      MPI_COMM_WORLD);
    stop(c);
    for (q = 0; q < e->size; q++)
        cd_expect_block(e, rbuf, (size_t) q * n, q, (size_t) e->rank * n, n);
    cd_expect_untouched(e, rbuf, total, total + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    return rc;
}

typedef struct {
    int *scounts, *sdispls, *rcounts, *rdispls;
    size_t stotal, rtotal;
} vplan_t;

/* alltoallv: send blocks packed, receive blocks gapped */
static void alltoallv_plan(const cd_env_t *e, vplan_t *v)
{
    int q;

    v->scounts = int_array(e->size);
    v->sdispls = int_array(e->size);
    v->rcounts = int_array(e->size);
    v->rdispls = int_array(e->size);
    v->stotal = 0;
    for (q = 0; q < e->size; q++) {
        v->scounts[q] = cd_pair_count(e, e->rank, q);
        v->sdispls[q] = (int) v->stotal;
        v->stotal += (size_t) v->scounts[q];
        v->rcounts[q] = cd_pair_count(e, q, e->rank);
    }
    v->rtotal = gapped_displs(v->rcounts, e->size, v->rdispls);
}

static void vplan_free(vplan_t *v)
{
    free(v->scounts);
    free(v->sdispls);
    free(v->rcounts);
    free(v->rdispls);
}

static int run_alltoallv(ctx_t *c)
{
    cd_env_t *e = &c->e;
    size_t stride = (size_t) e->count + 3; /* > any cd_pair_count */
    int *sbuf, *rbuf, rc, q;
    vplan_t v;

    alltoallv_plan(e, &v);
    sbuf = cd_alloc(e, v.stotal);
    rbuf = cd_alloc_recv(e, v.rtotal);
    for (q = 0; q < e->size; q++)
        cd_fill(e, sbuf + (size_t) v.sdispls[q] * (size_t) e->w, e->rank,
                (size_t) q * stride, (size_t) v.scounts[q]);
    start(c);
    rc = MPI_Alltoallv(sbuf, v.scounts, v.sdispls, e->dt, rbuf, v.rcounts,
                       v.rdispls, e->dt, MPI_COMM_WORLD);
    stop(c);
    for (q = 0; q < e->size; q++)
        cd_expect_block(e, rbuf, (size_t) v.rdispls[q], q,
                        (size_t) e->rank * stride, (size_t) v.rcounts[q]);
    expect_gaps(e, rbuf, v.rcounts, v.rdispls, e->size, v.rtotal);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    vplan_free(&v);
    return rc;
}

/* The root's send buffer is elements (root, 0 .. total). */
static int run_scatter(ctx_t *c)
{
    cd_env_t *e = &c->e;
    size_t n = (size_t) e->count, total = n * (size_t) e->size;
    int *sbuf = NULL, *rbuf = cd_alloc_recv(e, n), rc;

    if (e->rank == e->root) {
        sbuf = cd_alloc(e, total);
        cd_fill(e, sbuf, e->root, 0, total);
    }
    start(c);
    rc = MPI_Scatter(sbuf, e->count, e->dt, rbuf, e->count, e->dt, e->root,
                     MPI_COMM_WORLD);
    stop(c);
    cd_expect_block(e, rbuf, 0, e->root, (size_t) e->rank * n, n);
    cd_expect_untouched(e, rbuf, n, n + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    return rc;
}

static int run_scatterv(ctx_t *c)
{
    cd_env_t *e = &c->e;
    int *counts = int_array(e->size), *displs = int_array(e->size);
    int *sbuf = NULL, *rbuf, rc, q;
    size_t total, mine;

    for (q = 0; q < e->size; q++)
        counts[q] = cd_vcount(e, q);
    total = gapped_displs(counts, e->size, displs);
    mine = (size_t) counts[e->rank];
    rbuf = cd_alloc_recv(e, mine);
    if (e->rank == e->root) {
        sbuf = cd_alloc(e, total);
        cd_fill(e, sbuf, e->root, 0, total);
    }
    start(c);
    rc = MPI_Scatterv(sbuf, counts, displs, e->dt, rbuf, counts[e->rank], e->dt,
                      e->root, MPI_COMM_WORLD);
    stop(c);
    cd_expect_block(e, rbuf, 0, e->root, (size_t) displs[e->rank], mine);
    cd_expect_untouched(e, rbuf, mine, mine + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    free(counts);
    free(displs);
    return rc;
}

/* reduce_scatter (irregular = 1) or reduce_scatter_block: every rank's
 * send vector is elements (rank, 0 .. total), packed by block. */
static int run_reduce_scatter_any(ctx_t *c, int irregular)
{
    cd_env_t *e = &c->e;
    int *counts = int_array(e->size), *sbuf, *rbuf, rc, q;
    size_t total = 0, first = 0, mine;

    for (q = 0; q < e->size; q++) {
        counts[q] = irregular ? cd_vcount(e, q) : e->count;
        first += q < e->rank ? (size_t) counts[q] : 0;
        total += (size_t) counts[q];
    }
    mine = (size_t) counts[e->rank];
    sbuf = cd_alloc(e, total);
    rbuf = cd_alloc_recv(e, mine);
    cd_fill(e, sbuf, e->rank, 0, total);
    start(c);
    rc = irregular ? MPI_Reduce_scatter(sbuf, rbuf, counts, e->dt, e->op,
                                        MPI_COMM_WORLD)
                   : MPI_Reduce_scatter_block(sbuf, rbuf, e->count, e->dt,
                                              e->op, MPI_COMM_WORLD);
    stop(c);
    cd_expect_fold(e, rbuf, 0, 0, e->size, first, mine);
    cd_expect_untouched(e, rbuf, mine, mine + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    free(counts);
    return rc;
}

static int run_reduce_scatter(ctx_t *c)
{
    return run_reduce_scatter_any(c, 1);
}

static int run_reduce_scatter_block(ctx_t *c)
{
    return run_reduce_scatter_any(c, 0);
}

static int run_barrier(ctx_t *c)
{
    int rc;

    start(c);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    stop(c);
    return rc;
}

/* scan (exclusive = 0) or exscan; exscan's result on rank 0 is undefined,
 * only its guard is checked there */
static int run_scan_any(ctx_t *c, int exclusive)
{
    cd_env_t *e = &c->e;
    size_t n = (size_t) e->count;
    int *sbuf = cd_alloc(e, n), *rbuf = cd_alloc_recv(e, n), rc;
    int hi = e->rank + !exclusive;

    cd_fill(e, sbuf, e->rank, 0, n);
    start(c);
    rc = exclusive
             ? MPI_Exscan(sbuf, rbuf, e->count, e->dt, e->op, MPI_COMM_WORLD)
             : MPI_Scan(sbuf, rbuf, e->count, e->dt, e->op, MPI_COMM_WORLD);
    stop(c);
    if (hi > 0)
        cd_expect_fold(e, rbuf, 0, 0, hi, 0, n);
    cd_expect_untouched(e, rbuf, n, n + CD_GUARD);
    cd_free(e, sbuf);
    cd_free(e, rbuf);
    return rc;
}

static int run_scan(ctx_t *c)
{
    return run_scan_any(c, 0);
}

static int run_exscan(ctx_t *c)
{
    return run_scan_any(c, 1);
}

static const coll_t colls[] = {
    {"bcast", run_bcast},
    {"reduce", run_reduce},
    {"allreduce", run_allreduce},
    {"allgather", run_allgather},
    {"allgatherv", run_allgatherv},
    {"alltoall", run_alltoall},
    {"alltoallv", run_alltoallv},
    {"gather", run_gather},
    {"gatherv", run_gatherv},
    {"scatter", run_scatter},
    {"scatterv", run_scatterv},
    {"reduce_scatter", run_reduce_scatter},
    {"reduce_scatter_block", run_reduce_scatter_block},
    {"barrier", run_barrier},
    {"scan", run_scan},
    {"exscan", run_exscan},
};
#define NCOLLS ((int) (sizeof colls / sizeof colls[0]))

/* ------------------------------------------------------------ driver */

typedef struct {
    int count, bytes, root, affine, iters, shared, list;
    const char *only; /* comma-separated collective names, NULL: all */
} options_t;

static void usage(void)
{
    fprintf(stderr,
            "usage: collcheck [-n COUNT | -b BYTES] [-c COLL,...] "
            "[-a COLL=ALGO]... [-r ROOT] [-o sum|affine] [-i ITERS] [-s]\n"
            "       collcheck -l\n");
    exit(2);
}

/* -a COLL=ALGO: MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM=ALGO */
static void force_algorithm(const char *arg)
{
    const char *eq = strchr(arg, '=');
    char var[128];
    size_t k, len;

    if (!eq || eq == arg || (size_t) (eq - arg) > 64)
        usage();
    len = (size_t) snprintf(var, sizeof var, "MPIR_CVAR_CH4COLL_");
    for (k = 0; arg + k < eq; k++)
        var[len + k] = (char) toupper((unsigned char) arg[k]);
    snprintf(var + len + k, sizeof var - len - k, "_ALGORITHM");
    setenv(var, eq + 1, 1);
}

static void parse(int argc, char **argv, options_t *o)
{
    int ch;

    *o = (options_t){.count = 4, .root = -1, .iters = 1};
    while ((ch = getopt(argc, argv, "n:b:c:a:r:o:i:sl")) != -1) {
        switch (ch) {
        case 'n':
            o->count = atoi(optarg);
            break;
        case 'b':
            o->bytes = atoi(optarg);
            break;
        case 'c':
            o->only = optarg;
            break;
        case 'a':
            force_algorithm(optarg);
            break;
        case 'r':
            o->root = atoi(optarg);
            break;
        case 'o':
            if (strcmp(optarg, "sum") != 0 && strcmp(optarg, "affine") != 0)
                usage();
            o->affine = strcmp(optarg, "affine") == 0;
            break;
        case 'i':
            o->iters = atoi(optarg);
            break;
        case 's':
            o->shared = 1;
            break;
        case 'l':
            o->list = 1;
            break;
        default:
            usage();
        }
    }
    if (o->count < 0 || o->bytes < 0 || o->iters < 1 || optind != argc)
        usage();
}

static int selected(const options_t *o, const char *name)
{
    const char *s = o->only;
    size_t len = strlen(name);

    if (!s)
        return 1;
    for (; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (strncmp(s, name, len) == 0 && (s[len] == ',' || s[len] == '\0'))
            return 1;
    return 0;
}

static int list_algorithms(void)
{
    ch4coll_algorithm_info_t info;
    int i, n = ch4coll_algorithm_count();

    for (i = 0; i < n; i++)
        if (ch4coll_algorithm_info(i, &info) == 0)
            printf("%s %s\n", info.collective, info.name);
    fflush(stdout);
    return n > 0 ? 0 : 1;
}

/* Elements of the largest buffer fit an int count. */
static int fits(const cd_env_t *e)
{
    return (long long) (e->count + 3) * e->size + e->size < 2147483647LL;
}

/* What ran the last call on this rank: ch4coll's decision after ": ". */
static const char *what_ran(const ch4coll_stats_t *before)
{
    ch4coll_stats_t now;
    const char *d = ch4coll_last_decision(), *colon;

    ch4coll_get_stats(&now);
    if (now.native_calls > before->native_calls)
        return "native";
    colon = strstr(d, ": ");
    return colon ? colon + 2 : d;
}

/* Run one collective iters times; report; return 1 on a mismatch. */
static int check_one(ctx_t *c, const coll_t *k, int iters)
{
    cd_env_t *e = &c->e;
    long bad = 0, bad_all;
    int i, rc = MPI_SUCCESS, first, first_bad;
    double tmax;
    ch4coll_stats_t before;
    char ran[256];

    ch4coll_get_stats(&before);
    e->bad = 0;
    c->elapsed = 0;
    for (i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = k->run(c);
    snprintf(ran, sizeof ran, "%s", what_ran(&before));
    bad = e->bad + (rc != MPI_SUCCESS);
    first = bad ? e->rank : e->size;
    PMPI_Allreduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(&first, &first_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Reduce(&c->elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (e->rank == first_bad)
        printf("collcheck: MISMATCH %s rank %d: %ld wrong, first element %ld "
               "got %d expected %d%s\n",
               k->name, e->rank, e->bad, e->bad_index, e->bad_got, e->bad_want,
               rc != MPI_SUCCESS ? " (MPI error)" : "");
    if (e->rank == 0)
        printf("collcheck: %-20s count=%-8d %12.2f us  %-8s %s\n", k->name,
               e->count, tmax / iters * 1e6,
               e->shared ? "run"
               : bad_all ? "MISMATCH"
                         : "ok",
               ran);
    fflush(stdout);
    return bad_all != 0;
}

int main(int argc, char **argv)
{
    options_t o;
    ctx_t c = {0};
    int i, ran = 0, failed = 0;

    parse(argc, argv, &o);
    if (o.list)
        return list_algorithms();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.e.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.e.size);
    cd_env_init(&c.e, o.affine);
    c.e.count = o.bytes ? o.bytes / (c.e.w * (int) sizeof(int)) : o.count;
    c.e.root = o.root >= 0 ? o.root % c.e.size : c.e.size / 3;
    c.e.shared = o.shared;
    if (c.e.rank == 0)
        printf("collcheck: p=%d count=%d root=%d op=%s%s\n", c.e.size,
               c.e.count, c.e.root, o.affine ? "affine" : "sum",
               o.shared ? " shared (unchecked)" : "");
    for (i = 0; i < NCOLLS && fits(&c.e); i++) {
        if (!selected(&o, colls[i].name))
            continue;
        failed += check_one(&c, &colls[i], o.iters);
        ran++;
    }
    if (c.e.rank == 0 && !fits(&c.e))
        printf("collcheck: count %d too large for p = %d\n", c.e.count,
               c.e.size);
    if (c.e.rank == 0 && !failed && !o.shared)
        printf("collcheck: %d collectives, all correct\n", ran);
    else if (c.e.rank == 0 && !failed)
        printf("collcheck: %d collectives run (shared mode, unchecked)\n", ran);
    else if (c.e.rank == 0)
        printf("collcheck: %d collectives, %d with mismatches\n", ran, failed);
    fflush(stdout);
    cd_env_free(&c.e);
    MPI_Finalize();
    return failed || !fits(&c.e) ? 1 : 0;
}
