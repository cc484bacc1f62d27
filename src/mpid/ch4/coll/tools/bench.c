/*
 * bench.c - ch4coll-bench: the host MPI's collective against ch4coll's, in
 * one process, OSU-style (DESIGN.md section 8).
 *
 * The program is linked with ch4coll, so MPI_Xxx runs ch4coll's schedule
 * (or whatever ch4coll's selection decides) and PMPI_Xxx runs the host
 * MPI's own collective.  Both are timed in the same job, on the same
 * buffers, so the ratio between them is not skewed by a different node
 * allocation or a different time of day.
 *
 * Noise: for each message size the program runs ROUNDS rounds.  A round
 * times a warmup plus a timed loop of the native collective and then of
 * the ch4coll collective, in alternating order from round to round; every
 * timed loop starts after a PMPI_Barrier.  A round's value is the mean
 * over ranks of each rank's (t1 - t0) / iterations, as OSU reports it.
 * The table shows the median over rounds and the minimum over rounds.
 *
 * Threads (--threads T): T threads of each rank run the collective at
 * once, each on its own duplicate of MPI_COMM_WORLD, at
 * MPI_THREAD_MULTIPLE; a loop's time is the wall time from before the
 * threads start their timed calls until the last one ends, divided by the
 * calls each made.
 *
 * Helper traffic (barriers, the reduction of timings, error agreement)
 * goes through PMPI_ so that it neither runs ch4coll nor changes
 * ch4coll_last_decision().
 *
 * Uses only MPI and the public header ch4coll.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch4coll.h"

#define BENCH_MAX_SIZE        (1LL << 30)  /* largest -m value, bytes */
#define BENCH_MAX_COUNT       1000000000LL /* largest -i / -x value */
#define BENCH_MAX_ROUNDS      1000
#define BENCH_LARGE           8192 /* above this, fewer iterations */
#define BENCH_LARGE_MIN_ITERS 10
#define BENCH_MAX_THREADS     16

enum {
    BENCH_BCAST,
    BENCH_REDUCE,
    BENCH_ALLREDUCE,
    BENCH_ALLGATHER,
    BENCH_ALLGATHERV,
    BENCH_ALLTOALL,
    BENCH_ALLTOALLV,
    BENCH_GATHER,
    BENCH_GATHERV,
    BENCH_SCATTER,
    BENCH_SCATTERV,
    BENCH_REDUCE_SCATTER,
    BENCH_REDUCE_SCATTER_BLOCK,
    BENCH_BARRIER,
    BENCH_SCAN,
    BENCH_EXSCAN,
    BENCH_NCOLL
};

/* What a collective needs from the benchmark. */
typedef struct {
    const char *name;   /* -c value, ch4coll's collective name */
    const char *cvar;   /* <COLL> in MPIR_CVAR_CH4COLL_<COLL>_... */
    int reduction;      /* MPI_FLOAT + MPI_SUM, count = size / 4 */
    int send_p, recv_p; /* send / recv buffer holds p blocks */
} coll_desc_t;

static const coll_desc_t colls[BENCH_NCOLL] = {
    [BENCH_BCAST] = {"bcast", "BCAST", 0, 0, 0},
    [BENCH_REDUCE] = {"reduce", "REDUCE", 1, 0, 0},
    [BENCH_ALLREDUCE] = {"allreduce", "ALLREDUCE", 1, 0, 0},
    [BENCH_ALLGATHER] = {"allgather", "ALLGATHER", 0, 0, 1},
    [BENCH_ALLGATHERV] = {"allgatherv", "ALLGATHERV", 0, 0, 1},
    [BENCH_ALLTOALL] = {"alltoall", "ALLTOALL", 0, 1, 1},
    [BENCH_ALLTOALLV] = {"alltoallv", "ALLTOALLV", 0, 1, 1},
    [BENCH_GATHER] = {"gather", "GATHER", 0, 0, 1},
    [BENCH_GATHERV] = {"gatherv", "GATHERV", 0, 0, 1},
    [BENCH_SCATTER] = {"scatter", "SCATTER", 0, 1, 0},
    [BENCH_SCATTERV] = {"scatterv", "SCATTERV", 0, 1, 0},
    [BENCH_REDUCE_SCATTER] = {"reduce_scatter", "REDUCE_SCATTER", 1, 1, 0},
    [BENCH_REDUCE_SCATTER_BLOCK] = {"reduce_scatter_block",
                                    "REDUCE_SCATTER_BLOCK", 1, 1, 0},
    [BENCH_BARRIER] = {"barrier", "BARRIER", 0, 0, 0},
    [BENCH_SCAN] = {"scan", "SCAN", 1, 0, 0},
    [BENCH_EXSCAN] = {"exscan", "EXSCAN", 1, 0, 0},
};

typedef struct {
    int coll;                /* BENCH_* */
    long long min, max;      /* -m, bytes per rank */
    long long iters, warmup; /* -i, -x */
    int rounds;              /* -r */
    const char *algorithm;   /* -a, NULL if not given */
    int type;                /* -t: index into rtypes */
    int overlap;             /* --overlap */
    int osu;                 /* --osu */
    long long test_every;    /* --test-every */
    long long threads;       /* --threads */
    int help;                /* -h */
} options_t;

/* -t: the element type of the reductions (always with MPI_SUM). */
static const struct {
    const char *name;
    MPI_Datatype dt;
    int size;
} rtypes[] = {{"float", MPI_FLOAT, 4},
              {"double", MPI_DOUBLE, 8},
              {"int", MPI_INT, 4},
              {"char", MPI_CHAR, 1}};

/* One benchmark run: communicator, buffers, the current message size;
 * with --threads, the per-thread copies that run the timed loops. */
typedef struct bench {
    int coll, rank, p;
    MPI_Comm comm;
    MPI_Datatype dt;
    char *sbuf, *rbuf;
    int *counts, *displs; /* v-variants: equal counts, i * count */
    int count;            /* elements per rank block */
    int esize;            /* bytes per element */
    int nthreads;         /* --threads; workers[] when more than 1 */
    int osu;              /* --osu: each call timed alone between barriers */
    struct bench *workers;
} bench_t;

/* ------------------------------------------------------------ options */

static void usage(FILE *f)
{
    int i, col = 28;

    fprintf(
        f,
        "Usage: ch4coll-bench [options]\n"
        "Time the host MPI's collective (PMPI_Xxx) and ch4coll's (MPI_Xxx) in "
        "one\n"
        "run and print both latencies and their ratio, per message size.\n"
        "\n"
        "Options:\n"
        "  -c, --collective COLL     collective to time (default allreduce):\n"
        "                            ");
    for (i = 0; i < BENCH_NCOLL; i++) {
        int w = (int) strlen(colls[i].name) + 2; /* name + ", " */
        if (i > 0 && col + w > 78) {
            fprintf(f, ",\n%28s", "");
            col = 28;
        } else if (i > 0) {
            fprintf(f, ", ");
        }
        fprintf(f, "%s", colls[i].name);
        col += w;
    }
    fprintf(f, "\n");
    fprintf(
        f,
        "  -m, --message-size MIN:MAX\n"
        "                            bytes per rank, doubling from MIN (0 is\n"
        "                            followed by 1); N alone means N:N; MAX "
        "at\n"
        "                            most %lld (default 8:1048576)\n"
        "  -i, --iterations ITERS    timed calls per loop (default 1000); "
        "above\n"
        "                            %d bytes: max(%d, ITERS * %d / size), "
        "never\n"
        "                            more than ITERS\n"
        "  -x, --warmup WARMUP       untimed calls before each timed loop, at "
        "every\n"
        "                            size (default 100)\n"
        "  -r, --rounds ROUNDS       rounds per size, at most %d (default 5)\n"
        "  -a, --algorithm NAME[:k=v,...]\n"
        "                            force ch4coll's algorithm: sets\n"
        "                            MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM "
        "before\n"
        "                            MPI_Init; NAME is auto or one of COLL's\n"
        "                            algorithms (ch4coll-info lists them, a "
        "bad\n"
        "                            name or k=v is rejected)\n"
        "  -t, --type TYPE           element type of the reductions: float\n"
        "                            (default), double, int or char\n"
        "      --overlap             allreduce and bcast only: time the\n"
        "                            nonblocking forms OSU-style (see "
        "Overlap)\n"
        "      --osu                 time each call alone between barriers, "
        "as OSU's\n"
        "                            osu_<coll> does (see Method)\n"
        "      --test-every N        with --overlap: call MPI_Test N times\n"
        "                            spread over the compute phase "
        "(default 0)\n"
        "      --threads T           T threads per rank (1..%d, default 1) "
        "run the\n"
        "                            collective at once, each on its own\n"
        "                            communicator, at MPI_THREAD_MULTIPLE "
        "(see\n"
        "                            Threads)\n"
        "  -h, --help                print this text\n"
        "\n"
        "Data: reduce, allreduce, reduce_scatter, reduce_scatter_block, scan "
        "and\n"
        "exscan use MPI_SUM on -t's type (default float) with count = size /\n"
        "type size; the other collectives use MPI_CHAR with count = size per "
        "rank\n"
        "block.  v-variants use equal counts and displacements i * count; "
        "rooted\n"
        "collectives use root 0.  barrier ignores -m and prints one row, size "
        "0.\n"
        "\n"
        "Method: per size, ROUNDS rounds; a round runs warmup + timed loop of "
        "the\n"
        "native collective and of the ch4coll collective, in alternating "
        "order,\n"
        "each timed loop after a barrier.  A round's value is the mean over "
        "ranks\n"
        "of (t1 - t0) / iterations.  Native(us) and ch4coll(us) are medians "
        "over\n"
        "rounds, Ratio = ch4coll / native, the -min columns are minima over\n"
        "rounds.  A '#   -> ' line after a row shows ch4coll's decision when "
        "it\n"
        "changed from the previous size.\n"
        "With --osu each timed call runs alone: a barrier, then the timed "
        "call,\n"
        "and a rank's value is the sum of its calls' times / iterations, as "
        "OSU\n"
        "7.4's blocking collective benchmarks measure (a bcast root returns\n"
        "early and is not held up by the next call).  The barrier is the\n"
        "timed side's own (PMPI_Barrier for the host, MPI_Barrier for\n"
        "ch4coll), as in an OSU program run without and with ch4coll\n"
        "preloaded: the order in which it lets the ranks go is part of what\n"
        "the next call costs.\n"
        "\n"
        "Overlap (--overlap): as OSU's osu_iallreduce/osu_ibcast, for "
        "the host's\n"
        "PMPI_I<coll> + PMPI_Wait and ch4coll's MPI_I<coll> + MPI_Wait: "
        "Pure is the\n"
        "latency of start + wait; a compute phase as long as Pure (a busy "
        "loop on\n"
        "the clock) then runs between start and wait, Overall is that "
        "latency,\n"
        "and Ovl%% = 100 * (1 - (Overall - Pure) / Pure), clamped to "
        "[0, 100].\n"
        "Each side computes for its own Pure time.\n"
        "\n"
        "Threads (--threads T): every rank runs T threads, each calling the\n"
        "collective on its own duplicate of MPI_COMM_WORLD; a timed loop is "
        "the wall\n"
        "time from the barrier until the last thread's last call, divided by "
        "the\n"
        "calls of one thread.  Native threads call PMPI_Xxx, ch4coll's "
        "MPI_Xxx.\n"
        "\n"
        "Exit status: 0 on success, 2 for a bad option, 1 for a runtime "
        "error.\n",
        BENCH_MAX_SIZE, BENCH_LARGE, BENCH_LARGE_MIN_ITERS, BENCH_LARGE,
        BENCH_MAX_ROUNDS, BENCH_MAX_THREADS);
}

/* Strict decimal integer in [min, max]: no sign games, no trailing text. */
static int parse_num(const char *text, long long min, long long max,
                     long long *out)
{
    char *end;
    long long v;

    if (!text || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_sizes(const char *text, options_t *o)
{
    char buf[64], *colon;

    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (parse_num(buf, 0, BENCH_MAX_SIZE, &o->min) != 0)
        return -1;
    if (!colon)
        o->max = o->min;
    else if (parse_num(colon + 1, 0, BENCH_MAX_SIZE, &o->max) != 0)
        return -1;
    return o->min <= o->max ? 0 : -1;
}

static int find_coll(const char *name)
{
    int i;

    for (i = 0; i < BENCH_NCOLL; i++)
        if (strcmp(colls[i].name, name) == 0)
            return i;
    return -1;
}

/* Catalog entry of algorithm name for coll, or -1. */
static int find_algorithm(int coll, const char *name,
                          ch4coll_algorithm_info_t *info)
{
    int i, n = ch4coll_algorithm_count();

    for (i = 0; i < n; i++)
        if (ch4coll_algorithm_info(i, info) == 0 &&
            strcmp(info->collective, colls[coll].name) == 0 &&
            strcmp(info->name, name) == 0)
            return i;
    return -1;
}

static void list_algorithms(int coll, char *err, size_t len)
{
    ch4coll_algorithm_info_t info;
    int i, n = ch4coll_algorithm_count();
    size_t used = strlen(err);

    used += (size_t) snprintf(err + used, len - used, "; valid: auto");
    for (i = 0; i < n && used < len; i++)
        if (ch4coll_algorithm_info(i, &info) == 0 &&
            strcmp(info.collective, colls[coll].name) == 0)
            used +=
                (size_t) snprintf(err + used, len - used, ", %s", info.name);
}

/* One "k=v" of an -a value against the catalog entry. */
static int check_param(const ch4coll_algorithm_info_t *info, char *kv,
                       char *err, size_t len)
{
    char *eq = strchr(kv, '=');
    long long v;
    int i;

    if (eq)
        *eq = '\0';
    for (i = 0; eq && i < info->nparams; i++) {
        if (strcmp(info->param_names[i], kv) != 0)
            continue;
        if (parse_num(eq + 1, info->param_min[i], info->param_max[i], &v) == 0)
            return 0;
        snprintf(err, len,
                 "parameter %s of %s: '%s' is not an integer in "
                 "[%lld, %lld]",
                 kv, info->name, eq + 1, (long long) info->param_min[i],
                 (long long) info->param_max[i]);
        return -1;
    }
    if (!eq)
        snprintf(err, len, "parameter '%s' of %s is not k=v", kv, info->name);
    else
        snprintf(err, len, "%s has no parameter '%s'%s", info->name, kv,
                 info->nparams ? "; valid:" : " (it takes none)");
    for (i = 0; eq && i < info->nparams; i++) {
        size_t used = strlen(err);
        snprintf(err + used, len - used, " %s", info->param_names[i]);
    }
    return -1;
}

/* NAME[:k=v,...] checked against ch4coll's public algorithm catalog, so a
 * typo stops the benchmark instead of silently timing the default. */
static int check_algorithm(int coll, const char *value, char *err, size_t len)
{
    ch4coll_algorithm_info_t info;
    char buf[256], *colon, *kv, *next;

    if (strlen(value) >= sizeof buf) {
        snprintf(err, len, "-a value too long");
        return -1;
    }
    strcpy(buf, value);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (strcmp(buf, "auto") == 0 && !colon)
        return 0;
    if (find_algorithm(coll, buf, &info) < 0) {
        snprintf(err, len, "unknown %s algorithm '%s'", colls[coll].name, buf);
        list_algorithms(coll, err, len);
        return -1;
    }
    for (kv = colon ? colon + 1 : NULL; kv; kv = next) {
        next = strchr(kv, ',');
        if (next)
            *next++ = '\0';
        if (check_param(&info, kv, err, len) != 0)
            return -1;
    }
    return 0;
}

static int parse_value(int opt, const char *arg, options_t *o, char *err,
                       size_t len)
{
    long long v = 0;
    int rc = 0;

    switch (opt) {
    case 'c':
        o->coll = find_coll(arg);
        if (o->coll < 0)
            snprintf(err, len, "unknown collective '%s' (see --help)", arg);
        return o->coll < 0 ? -1 : 0;
    case 'm':
        rc = parse_sizes(arg, o);
        if (rc != 0)
            snprintf(err, len,
                     "-m '%s': expected MIN:MAX or N, 0 <= MIN "
                     "<= MAX <= %lld",
                     arg, BENCH_MAX_SIZE);
        return rc;
    case 'i':
    case 'x':
        rc = parse_num(arg, opt == 'i' ? 1 : 0, BENCH_MAX_COUNT, &v);
        if (rc != 0)
            snprintf(err, len, "-%c '%s': expected an integer in [%d, %lld]",
                     opt, arg, opt == 'i' ? 1 : 0, BENCH_MAX_COUNT);
        *(opt == 'i' ? &o->iters : &o->warmup) = v;
        return rc;
    case 'r':
        rc = parse_num(arg, 1, BENCH_MAX_ROUNDS, &v);
        if (rc != 0)
            snprintf(err, len, "-r '%s': expected an integer in [1, %d]", arg,
                     BENCH_MAX_ROUNDS);
        o->rounds = (int) v;
        return rc;
    case 'a':
        o->algorithm = arg;
        return 0;
    case 'T':
        rc = parse_num(arg, 0, BENCH_MAX_COUNT, &o->test_every);
        if (rc != 0)
            snprintf(err, len,
                     "--test-every '%s': expected an integer in "
                     "[0, %lld]",
                     arg, BENCH_MAX_COUNT);
        return rc;
    case 'P':
        rc = parse_num(arg, 1, BENCH_MAX_THREADS, &o->threads);
        if (rc != 0)
            snprintf(err, len, "--threads '%s': expected an integer in [1, %d]",
                     arg, BENCH_MAX_THREADS);
        return rc;
    case 't':
        for (o->type = 0; o->type < (int) (sizeof rtypes / sizeof rtypes[0]);
             o->type++)
            if (strcmp(arg, rtypes[o->type].name) == 0)
                return 0;
        snprintf(err, len, "-t '%s': expected float, double, int or char", arg);
        return -1;
    }
    return -1;
}

/* Fills o; returns 0, or -1 with a message in err. */
static int parse_options(int argc, char **argv, options_t *o, char *err,
                         size_t len)
{
    static const struct option longopts[] = {
        {"collective", required_argument, NULL, 'c'},
        {"message-size", required_argument, NULL, 'm'},
        {"iterations", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'x'},
        {"rounds", required_argument, NULL, 'r'},
        {"algorithm", required_argument, NULL, 'a'},
        {"type", required_argument, NULL, 't'},
        {"overlap", no_argument, NULL, 'O'},
        {"osu", no_argument, NULL, 'U'},
        {"test-every", required_argument, NULL, 'T'},
        {"threads", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int opt;

    o->coll = BENCH_ALLREDUCE;
    o->min = 8;
    o->max = 1048576;
    o->iters = 1000;
    o->warmup = 100;
    o->rounds = 5;
    o->algorithm = NULL;
    o->type = 0;
    o->overlap = 0;
    o->osu = 0;
    o->test_every = 0;
    o->threads = 1;
    o->help = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":c:m:i:x:r:a:t:h", longopts,
                              NULL)) != -1) {
        if (opt == 'h') {
            o->help = 1;
        } else if (opt == 'O') {
            o->overlap = 1;
        } else if (opt == 'U') {
            o->osu = 1;
        } else if (opt == ':' || opt == '?') {
            char name[3] = {'-', (char) optopt, '\0'};
            snprintf(err, len, "%s '%s' (see --help)",
                     opt == ':' ? "missing value for option" : "unknown option",
                     optopt ? name : argv[optind - 1]);
            return -1;
        } else if (parse_value(opt, optarg, o, err, len) != 0) {
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, len, "unexpected argument '%s' (see --help)",
                 argv[optind]);
        return -1;
    }
    if (o->overlap && o->coll != BENCH_ALLREDUCE && o->coll != BENCH_BCAST) {
        snprintf(err, len, "--overlap times allreduce or bcast, not %s",
                 colls[o->coll].name);
        return -1;
    }
    if (o->overlap && o->threads > 1) {
        snprintf(err, len, "--threads does not combine with --overlap");
        return -1;
    }
    if (o->osu && (o->overlap || o->threads > 1)) {
        snprintf(err, len, "--osu does not combine with --%s",
                 o->overlap ? "overlap" : "threads");
        return -1;
    }
    if (o->test_every && !o->overlap) {
        snprintf(err, len, "--test-every needs --overlap");
        return -1;
    }
    if (o->algorithm && !o->help)
        return check_algorithm(o->coll, o->algorithm, err, len);
    return 0;
}

/* ------------------------------------------------------------ buffers */

/* Allocate for the largest size; returns 0 or -1 on this rank. */
static int alloc_buffers(bench_t *b, const options_t *o)
{
    const coll_desc_t *d = &colls[b->coll];
    size_t blk = (size_t) o->max; /* MPI_FLOAT: max / 4 * 4 <= max */
    size_t sbytes = (d->send_p ? (size_t) b->p : 1) * blk;
    size_t rbytes = (d->recv_p ? (size_t) b->p : 1) * blk;
    size_t i;

    b->sbuf = malloc(sbytes ? sbytes : 1);
    b->rbuf = malloc(rbytes ? rbytes : 1);
    b->counts = malloc((size_t) b->p * sizeof *b->counts);
    b->displs = malloc((size_t) b->p * sizeof *b->displs);
    if (!b->sbuf || !b->rbuf || !b->counts || !b->displs)
        return -1;
    if (d->reduction && b->dt == MPI_FLOAT) {
        for (i = 0; i < sbytes / sizeof(float); i++)
            ((float *) b->sbuf)[i] = (float) (b->rank + 1);
    } else if (d->reduction && b->dt == MPI_DOUBLE) {
        for (i = 0; i < sbytes / sizeof(double); i++)
            ((double *) b->sbuf)[i] = (double) (b->rank + 1);
    } else if (d->reduction && b->dt == MPI_INT) {
        for (i = 0; i < sbytes / sizeof(int); i++)
            ((int *) b->sbuf)[i] = b->rank + 1;
    } else if (d->reduction) {
        memset(b->sbuf, 1, sbytes); /* char: small sums */
    } else {
        for (i = 0; i < sbytes; i++)
            b->sbuf[i] = (char) ('a' + (b->rank + i) % 26);
    }
    memset(b->rbuf, 0, rbytes);
    return 0;
}

static void free_buffers(bench_t *b)
{
    int t;

    for (t = 0; b->workers && t < b->nthreads; t++) {
        free_buffers(&b->workers[t]);
        if (b->workers[t].comm != MPI_COMM_NULL)
            PMPI_Comm_free(&b->workers[t].comm);
    }
    free(b->workers);
    b->workers = NULL;
    free(b->sbuf);
    free(b->rbuf);
    free(b->counts);
    free(b->displs);
}

static void set_size(bench_t *b, long long size)
{
    int i;

    b->count = (int) (size / b->esize);
    for (i = 0; i < b->p; i++) {
        b->counts[i] = b->count;
        b->displs[i] = i * b->count;
    }
    for (i = 0; b->workers && i < b->nthreads; i++)
        set_size(&b->workers[i], size);
}

/* --------------------------------------------------------------- calls */

/* One call of the collective: the host MPI's if native, else ch4coll's. */
static int call_coll(const bench_t *b, int native)
{
    void *s = b->sbuf, *r = b->rbuf;
    const int *cn = b->counts, *ds = b->displs;
    int n = b->count;
    MPI_Datatype t = b->dt;
    MPI_Comm cm = b->comm;

    switch (b->coll) {
    case BENCH_BCAST:
        return native ? PMPI_Bcast(s, n, t, 0, cm) : MPI_Bcast(s, n, t, 0, cm);
    case BENCH_REDUCE:
        return native ? PMPI_Reduce(s, r, n, t, MPI_SUM, 0, cm)
                      : MPI_Reduce(s, r, n, t, MPI_SUM, 0, cm);
    case BENCH_ALLREDUCE:
        return native ? PMPI_Allreduce(s, r, n, t, MPI_SUM, cm)
                      : MPI_Allreduce(s, r, n, t, MPI_SUM, cm);
    case BENCH_ALLGATHER:
        return native ? PMPI_Allgather(s, n, t, r, n, t, cm)
                      : MPI_Allgather(s, n, t, r, n, t, cm);
    case BENCH_ALLGATHERV:
        return native ? PMPI_Allgatherv(s, n, t, r, cn, ds, t, cm)
                      : MPI_Allgatherv(s, n, t, r, cn, ds, t, cm);
    case BENCH_ALLTOALL:
        return native ? PMPI_Alltoall(s, n, t, r, n, t, cm)
                      : MPI_Alltoall(s, n, t, r, n, t, cm);
    case BENCH_ALLTOALLV:
        return native ? PMPI_Alltoallv(s, cn, ds, t, r, cn, ds, t, cm)
                      : MPI_Alltoallv(s, cn, ds, t, r, cn, ds, t, cm);
    case BENCH_GATHER:
        return native ? PMPI_Gather(s, n, t, r, n, t, 0, cm)
                      : MPI_Gather(s, n, t, r, n, t, 0, cm);
    case BENCH_GATHERV:
        return native ? PMPI_Gatherv(s, n, t, r, cn, ds, t, 0, cm)
                      : MPI_Gatherv(s, n, t, r, cn, ds, t, 0, cm);
    case BENCH_SCATTER:
        return native ? PMPI_Scatter(s, n, t, r, n, t, 0, cm)
                      : MPI_Scatter(s, n, t, r, n, t, 0, cm);
    case BENCH_SCATTERV:
        return native ? PMPI_Scatterv(s, cn, ds, t, r, n, t, 0, cm)
                      : MPI_Scatterv(s, cn, ds, t, r, n, t, 0, cm);
    case BENCH_REDUCE_SCATTER:
        return native ? PMPI_Reduce_scatter(s, r, cn, t, MPI_SUM, cm)
                      : MPI_Reduce_scatter(s, r, cn, t, MPI_SUM, cm);
    case BENCH_REDUCE_SCATTER_BLOCK:
        return native ? PMPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, cm)
                      : MPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, cm);
    case BENCH_BARRIER:
        return native ? PMPI_Barrier(cm) : MPI_Barrier(cm);
    case BENCH_SCAN:
        return native ? PMPI_Scan(s, r, n, t, MPI_SUM, cm)
                      : MPI_Scan(s, r, n, t, MPI_SUM, cm);
    case BENCH_EXSCAN:
        return native ? PMPI_Exscan(s, r, n, t, MPI_SUM, cm)
                      : MPI_Exscan(s, r, n, t, MPI_SUM, cm);
    }
    return MPI_ERR_OTHER;
}

/* n calls; the first error, or MPI_SUCCESS. */
static int call_n(const bench_t *b, int native, long long n)
{
    long long i;
    int rc = MPI_SUCCESS;

    for (i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = call_coll(b, native);
    return rc;
}

/* --threads: one thread's share of a loop. */
typedef struct {
    pthread_t id;
    const bench_t *b;
    int native, rc;
    long long n;
} worker_t;

static void *worker_main(void *arg)
{
    worker_t *w = arg;

    w->rc = call_n(w->b, w->native, w->n);
    return NULL;
}

/* n calls in each of b's threads at once (or in this one). */
static int call_all(const bench_t *b, int native, long long n)
{
    worker_t w[BENCH_MAX_THREADS];
    int t, started, rc = MPI_SUCCESS;

    if (b->nthreads <= 1)
        return call_n(b, native, n);
    for (started = 0; started < b->nthreads; started++) {
        w[started] =
            (worker_t){.b = &b->workers[started], .native = native, .n = n};
        if (pthread_create(&w[started].id, NULL, worker_main, &w[started]))
            break;
    }
    for (t = 0; t < started; t++) {
        pthread_join(w[t].id, NULL);
        if (w[t].rc != MPI_SUCCESS)
            rc = w[t].rc;
    }
    /* a thread that did not start would leave its peers waiting */
    if (started < b->nthreads) {
        fprintf(stderr, "ch4coll-bench: cannot start thread %d\n", started);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

/* --osu: iters calls, each after a barrier and timed alone; the mean
 * time of one call in microseconds (*rc: the first error).  The barrier
 * is the same library's as the timed call, as in an OSU program run with
 * and without ch4coll preloaded: the order in which a barrier lets the
 * ranks go decides how long the next rooted call waits (a root that
 * leaves last makes every other rank wait for it). */
static double time_each(const bench_t *b, int native, long long iters, int *rc)
{
    double t0, total = 0.0;
    long long i;

    for (i = 0; i < iters && *rc == MPI_SUCCESS; i++) {
        *rc = native ? PMPI_Barrier(b->comm) : MPI_Barrier(b->comm);
        t0 = MPI_Wtime();
        if (*rc == MPI_SUCCESS)
            *rc = call_coll(b, native);
        total += MPI_Wtime() - t0;
    }
    return total * 1e6 / (double) iters;
}

/* Warmup, barrier, timed loop.  Returns the mean over ranks of the
 * per-call latency in microseconds (valid on rank 0), or -1 on error. */
static double time_loop(const bench_t *b, int native, long long warmup,
                        long long iters)
{
    double t0, t1, lat, sum = 0.0;
    int rc = call_all(b, native, warmup);

    if (rc == MPI_SUCCESS)
        rc = PMPI_Barrier(b->comm);
    if (b->osu) {
        lat = time_each(b, native, iters, &rc);
    } else {
        t0 = MPI_Wtime();
        if (rc == MPI_SUCCESS)
            rc = call_all(b, native, iters);
        t1 = MPI_Wtime();
        lat = (t1 - t0) * 1e6 / (double) iters;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, b->comm);
    return rc == MPI_SUCCESS ? sum / b->p : -1.0;
}

/* One ch4coll call, untimed, and what ch4coll decided for it.  A call
 * that never reached selection (ch4coll disabled, arguments it does not
 * handle) leaves the cache counters unchanged: say so rather than
 * repeating an older decision. */
static int probe_decision(const bench_t *b, char *out, size_t len)
{
    ch4coll_stats_t before, after;
    int rc;

    ch4coll_get_stats(&before);
    rc = call_coll(b, 0);
    ch4coll_get_stats(&after);
    if (after.cache_hits + after.cache_misses !=
        before.cache_hits + before.cache_misses)
        snprintf(out, len, "%s", ch4coll_last_decision());
    else
        snprintf(out, len, "%s: host MPI (call not taken by ch4coll)",
                 colls[b->coll].name);
    return rc;
}

/* The algorithm part of a decision, "ring (default)": what the '#   ->'
 * lines compare, since the rest of the text names the count. */
static const char *decision_algorithm(const char *decision)
{
    const char *s = strstr(decision, ": ");

    return s ? s + 2 : decision;
}

/* ---------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

/* Sorts v in place; returns its median. */
static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static long long iterations_for(const options_t *o, long long size)
{
    long long n;

    if (size <= BENCH_LARGE)
        return o->iters;
    n = o->iters * BENCH_LARGE / size;
    if (n < BENCH_LARGE_MIN_ITERS)
        n = BENCH_LARGE_MIN_ITERS;
    return n < o->iters ? n : o->iters;
}

/* ROUNDS rounds at one size into nat[] and c4c[] (rank 0's values). */
static int run_rounds(const bench_t *b, const options_t *o, long long size,
                      double *nat, double *c4c)
{
    long long iters = iterations_for(o, size);
    int r, k;

    for (r = 0; r < o->rounds; r++) {
        for (k = 0; k < 2; k++) {
            int native = (r + k) % 2 == 0; /* even rounds: native 1st */
            double v = time_loop(b, native, o->warmup, iters);
            if (v < 0)
                return -1;
            (native ? nat : c4c)[r] = v;
        }
    }
    return 0;
}

/* ------------------------------------------------------------- overlap */

/* The nonblocking form of the collective (allreduce or bcast). */
static int start_coll(const bench_t *b, int native, MPI_Request *req)
{
    void *s = b->sbuf, *r = b->rbuf;
    int n = b->count;
    MPI_Datatype t = b->dt;
    MPI_Comm cm = b->comm;

    if (b->coll == BENCH_BCAST)
        return native ? PMPI_Ibcast(s, n, t, 0, cm, req)
                      : MPI_Ibcast(s, n, t, 0, cm, req);
    return native ? PMPI_Iallreduce(s, r, n, t, MPI_SUM, cm, req)
                  : MPI_Iallreduce(s, r, n, t, MPI_SUM, cm, req);
}

/* Busy for `seconds` of wall time, testing req `tests` times on the way
 * (through the host for native, through ch4coll otherwise). */
static int compute(double seconds, long long tests, int native,
                   MPI_Request *req)
{
    double t0 = MPI_Wtime(), next = seconds / (double) (tests + 1);
    long long done = 0;
    int flag, rc = MPI_SUCCESS;

    while (MPI_Wtime() - t0 < seconds && rc == MPI_SUCCESS) {
        if (done < tests && MPI_Wtime() - t0 >= next * (double) (done + 1)) {
            rc = native ? PMPI_Test(req, &flag, MPI_STATUS_IGNORE)
                        : MPI_Test(req, &flag, MPI_STATUS_IGNORE);
            done++;
        }
    }
    return rc;
}

/* Warmup, barrier, iters x (start, compute for `busy` s, wait); the mean
 * over ranks of the per-iteration latency in us (all ranks), -1 on error. */
static double overlap_loop(const bench_t *b, const options_t *o, int native,
                           long long iters, double busy)
{
    MPI_Request req;
    double t0 = MPI_Wtime(), lat, sum = 0.0;
    long long i;
    int rc = MPI_SUCCESS;

    for (i = 0; i < o->warmup + iters && rc == MPI_SUCCESS; i++) {
        if (i == o->warmup) {
            rc = PMPI_Barrier(b->comm);
            t0 = MPI_Wtime();
        }
        if (rc == MPI_SUCCESS)
            rc = start_coll(b, native, &req);
        if (rc == MPI_SUCCESS && busy > 0)
            rc = compute(busy, o->test_every, native, &req);
        if (rc == MPI_SUCCESS)
            rc = native ? PMPI_Wait(&req, MPI_STATUS_IGNORE)
                        : MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    lat = (MPI_Wtime() - t0) * 1e6 / (double) iters;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, b->comm);
    return rc == MPI_SUCCESS ? sum / b->p : -1.0;
}

/* One side at one size: pure and overall latency (us). */
static int overlap_side(const bench_t *b, const options_t *o, int native,
                        long long iters, double *pure, double *overall)
{
    *pure = overlap_loop(b, o, native, iters, 0.0);
    *overall =
        *pure < 0 ? -1.0 : overlap_loop(b, o, native, iters, *pure * 1e-6);
    return *overall < 0 ? -1 : 0;
}

static double overlap_pct(double pure, double overall)
{
    double v = pure > 0 ? 100.0 * (1.0 - (overall - pure) / pure) : 0.0;

    return v < 0 ? 0.0 : v > 100 ? 100.0 : v;
}

/* Every size: ROUNDS rounds of both sides (alternating order), medians. */
static int run_overlap(bench_t *b, const options_t *o)
{
    double *v = malloc((size_t) o->rounds * 4 * sizeof *v), m[4];
    long long size;
    int r, k, j, rc = v ? 0 : -1;

    if (rc == 0 && b->rank == 0)
        printf("# ch4coll-bench %s i%s p=%d, overlap as OSU; test calls "
               "in the compute phase: %lld; medians over %d rounds\n"
               "# Size  Native-pure(us)  Native-overall(us)  Native-ovl%%  "
               "ch4coll-pure(us)  ch4coll-overall(us)  ch4coll-ovl%%\n",
               ch4coll_version(), colls[b->coll].name, b->p, o->test_every,
               o->rounds);
    for (size = o->min; rc == 0 && size <= o->max; size = size ? 2 * size : 1) {
        set_size(b, size);
        for (r = 0; r < o->rounds && rc == 0; r++)
            for (k = 0; k < 2 && rc == 0; k++) {
                int native = (r + k) % 2 == 0;
                rc = overlap_side(b, o, native, iterations_for(o, size),
                                  &v[(native ? 0 : 2) * o->rounds + r],
                                  &v[(native ? 1 : 3) * o->rounds + r]);
            }
        for (j = 0; j < 4 && rc == 0; j++)
            m[j] = median(v + j * o->rounds, o->rounds);
        if (rc == 0 && b->rank == 0)
            printf("%-7lld %15.2f %19.2f %12.1f %17.2f %20.2f %14.1f\n", size,
                   m[0], m[1], overlap_pct(m[0], m[1]), m[2], m[3],
                   overlap_pct(m[2], m[3]));
        fflush(stdout);
    }
    free(v);
    return rc;
}

/* -------------------------------------------------------------- output */

static void print_header(const bench_t *b, const options_t *o,
                         const char *decision)
{
    char var[96];
    const char *forced;

    snprintf(var, sizeof var, "MPIR_CVAR_CH4COLL_%s_ALGORITHM",
             colls[b->coll].cvar);
    forced = getenv(var);
    printf("# ch4coll-bench %s %s p=%d\n", ch4coll_version(),
           colls[b->coll].name, b->p);
    printf("# algorithm: %s\n", decision);
    if (forced)
        printf("# %s=%s\n", var, forced);
    if (b->osu)
        printf("# OSU method: each call timed alone after a barrier\n");
    if (b->nthreads > 1)
        printf("# threads %d per rank, each on its own communicator, at "
               "once; time per call of one thread\n",
               b->nthreads);
    printf("# iterations %lld (fewer above %d bytes), warmup %lld, "
           "rounds %d; median and min over rounds of the mean over ranks\n",
           o->iters, BENCH_LARGE, o->warmup, o->rounds);
    printf("# Size  Native(us)  ch4coll(us)  Ratio  Native-min(us)  "
           "ch4coll-min(us)\n");
}

/* Columns end where the header's names end; a value too wide for its
 * column shifts the rest of the row but keeps a space before it.  median()
 * sorts, so [0] is then the minimum. */
static void print_row(long long size, double *nat, double *c4c, int n)
{
    double mn = median(nat, n), mc = median(c4c, n);

    printf("%-7lld %10.2f %12.2f %6.3f %15.2f %16.2f\n", size, mn, mc,
           mn > 0 ? mc / mn : 0.0, nat[0], c4c[0]);
}

/* ---------------------------------------------------------------- main */

/* Every size in turn; rank 0 prints.  Returns 0 or -1. */
static int run_all(bench_t *b, const options_t *o)
{
    double *nat = malloc((size_t) o->rounds * sizeof *nat);
    double *c4c = malloc((size_t) o->rounds * sizeof *c4c);
    char decision[320], prev[320] = "";
    long long size = b->coll == BENCH_BARRIER ? 0 : o->min;
    long long max = b->coll == BENCH_BARRIER ? 0 : o->max;
    int rc = nat && c4c ? 0 : -1;

    for (; rc == 0 && size <= max; size = size ? 2 * size : 1) {
        set_size(b, size);
        rc = probe_decision(b, decision, sizeof decision) == MPI_SUCCESS
                 ? run_rounds(b, o, size, nat, c4c)
                 : -1;
        if (rc != 0 || b->rank != 0)
            continue;
        if (!prev[0])
            print_header(b, o, decision);
        print_row(size, nat, c4c, o->rounds);
        if (prev[0] &&
            strcmp(decision_algorithm(decision), decision_algorithm(prev)) != 0)
            printf("#   -> %s\n", decision);
        snprintf(prev, sizeof prev, "%s", decision);
        fflush(stdout);
    }
    free(nat);
    free(c4c);
    return rc;
}

/* After MPI_Init: p-dependent limits and buffers, agreed by all ranks.
 * Returns 0, or the exit status with the message printed by rank 0. */
static int setup(bench_t *b, const options_t *o)
{
    const coll_desc_t *d = &colls[b->coll];
    int ok, all_ok, t;

    if ((d->send_p || d->recv_p) && o->max > INT_MAX / b->p) {
        if (b->rank == 0)
            fprintf(stderr,
                    "ch4coll-bench: -m MAX %lld is too large for %s "
                    "at p=%d (p * MAX must be at most %d)\n",
                    o->max, d->name, b->p, INT_MAX);
        return 2;
    }
    ok = alloc_buffers(b, o) == 0;
    b->nthreads = (int) o->threads;
    b->osu = o->osu;
    if (ok && b->nthreads > 1) {
        b->workers = calloc((size_t) b->nthreads, sizeof *b->workers);
        ok = b->workers != NULL;
        for (t = 0; ok && t < b->nthreads; t++)
            b->workers[t].comm = MPI_COMM_NULL;
        for (t = 0; ok && t < b->nthreads; t++) {
            bench_t *w = &b->workers[t];
            *w = *b;
            w->nthreads = 0;
            w->workers = NULL;
            PMPI_Comm_dup(b->comm, &w->comm);
            ok = alloc_buffers(w, o) == 0;
        }
    }
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, b->comm);
    if (!all_ok && b->rank == 0)
        fprintf(stderr,
                "ch4coll-bench: out of memory allocating buffers "
                "for %lld bytes per rank\n",
                o->max);
    return all_ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    options_t o;
    bench_t b;
    char err[512] = "", var[96];
    int bad, status = 0, provided = MPI_THREAD_SINGLE;

    memset(&b, 0, sizeof b);
    bad = parse_options(argc, argv, &o, err, sizeof err) != 0;
    if (!bad && o.algorithm && !o.help) {
        snprintf(var, sizeof var, "MPIR_CVAR_CH4COLL_%s_ALGORITHM",
                 colls[o.coll].cvar);
        setenv(var, o.algorithm, 1);
    }
    if (!bad && o.threads > 1)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    b.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(b.comm, &b.rank);
    MPI_Comm_size(b.comm, &b.p);
    if (bad || o.help) {
        if (b.rank == 0 && bad)
            fprintf(stderr, "ch4coll-bench: %s\n", err);
        else if (b.rank == 0)
            usage(stdout);
        status = bad ? 2 : 0;
        goto finalize;
    }
    if (o.threads > 1 && provided < MPI_THREAD_MULTIPLE) {
        if (b.rank == 0)
            fprintf(stderr,
                    "ch4coll-bench: --threads %lld: the host MPI provides "
                    "thread level %d, not MPI_THREAD_MULTIPLE\n",
                    o.threads, provided);
        status = 1;
        goto finalize;
    }
    b.coll = o.coll;
    b.dt = colls[o.coll].reduction ? rtypes[o.type].dt : MPI_CHAR;
    b.esize = colls[o.coll].reduction ? rtypes[o.type].size : 1;
    status = setup(&b, &o);
    if (status == 0 &&
        (o.overlap ? run_overlap(&b, &o) : run_all(&b, &o)) != 0) {
        if (b.rank == 0)
            fprintf(stderr, "ch4coll-bench: a collective failed\n");
        status = 1;
    }
    free_buffers(&b);
finalize:
    MPI_Finalize();
    return status;
}
