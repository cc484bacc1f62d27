/*
 * calibrate.c - ch4coll-calibrate: measure the machine the cost model and
 * the SimGrid platforms describe, with the host MPI, and write one machine
 * description (JSON; doc/machines.md).
 *
 * Run with two ranks: on one node for the costs inside a node, on two
 * nodes for the network.  Ranks 0 and 1 measure (on a communicator of
 * their own); any others wait.  All
 * traffic is the host's point-to-point (PMPI_), so a preloaded ch4coll
 * changes nothing.
 *
 * What is measured, per message size (0 and powers of two up to
 * --max-bytes), each the median over repetitions:
 *   pingpong  half a round trip: rank 0 sends, rank 1 sends back;
 *   send      the time MPI_Send takes to return, the receive posted before
 *             (smpi/os: what a blocking sender pays);
 *   isend     the time MPI_Isend takes to return, likewise (smpi/ois);
 *   recv      the time MPI_Recv takes when the message was sent long
 *             before (smpi/or: what a receiver pays for a message that
 *             has arrived), below the eager switch only;
 *   eager     the largest size whose MPI_Send returns while the receiver
 *             has not posted its receive yet (the eager/rendezvous switch,
 *             smpi/send-is-detached-thresh), by doubling, then bisection
 *             to 64 bytes.
 * Then:
 *   bandwidth  1 / slope of the ping-pong at and above max(eager, 64 KiB)
 *              (least squares);
 *   latency    pingpong(0) - send(0) - recv(0), the time on the wire that
 *              SimGrid adds between the two overheads (at least 0);
 *   overheads  send, isend and recv as SimGrid's piecewise-linear
 *              "threshold:startup:per_byte" segments: up to 1 KiB, from
 *              1 KiB to the eager switch, above it (isend only: SimGrid
 *              charges os and or only to eager messages), each a least
 *              squares line with startup and slope at least 0;
 *   gamma      seconds per byte of ch4coll's reduction kernels for each
 *              predefined op and type they cover, on --gamma-bytes
 *              vectors (model/machine.c), and of the host's
 *              MPI_Reduce_local for MPI_SUM on doubles;
 *   model      alpha = pingpong(0) (a message's whole cost when it is
 *              alone: both overheads and the wire), beta = 1 / bandwidth,
 *              gamma = the MPI_SUM-on-double kernel's, the same inside a
 *              node (alpha_node, beta_node) since two ranks see one link.
 *
 * Progress goes to stderr, one line per step.  The method follows
 * SimGrid's network calibration procedure (doc/references.md, SimGrid
 * calibration): time MPI_Send, MPI_Isend, MPI_Recv and a ping-pong over
 * sizes, find the eager switch, fit segments.
 */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/machine.h"

#define CAL_MIN_REPS  5
#define CAL_MAX_SIZES 80
#define CAL_TAG       0x5ca1
#define CAL_SMALL_END 1024 /* the first overhead segment ends here */

typedef struct {
    long long max_bytes;
    long long gamma_bytes;
    int reps;
    const char *out;
    const char *name;
} options_t;

typedef struct {
    int n;                         /* sizes measured */
    long long size[CAL_MAX_SIZES]; /* bytes */
    double pingpong[CAL_MAX_SIZES];
    double send[CAL_MAX_SIZES];
    double isend[CAL_MAX_SIZES];
    double recv[CAL_MAX_SIZES]; /* < 0: not measured (above the switch) */
    long long eager;
} points_t;

static int rank, nprocs;
static char *buf,
    *rbuf;            /* sent from, received into: touched, apart, as OSU's */
static MPI_Comm pair; /* ranks 0 and 1: every measurement's traffic */

static void usage(FILE *f)
{
    fprintf(
        f,
        "Usage: mpiexec -n 2 ch4coll-calibrate [OPTION]...\n"
        "Measure the host MPI's point-to-point costs and ch4coll's reduction\n"
        "kernels between two ranks, and write a machine description (JSON) "
        "for\n"
        "ch4coll-info --model machine=FILE, the lower bounds and "
        "maint/smpi-compare.\n"
        "Run the two ranks on one node for the costs inside a node, on two "
        "nodes\n"
        "for the network.\n"
        "\n"
        "  -o, --out FILE         write the description to FILE (default: "
        "stdout)\n"
        "  -n, --name NAME        the machine's name in the file (default: the "
        "host\n"
        "                         name of rank 0)\n"
        "  -m, --max-bytes B      largest message, a power of two (default "
        "4194304)\n"
        "  -g, --gamma-bytes B    vector size for the reduction kernels "
        "(default\n"
        "                         4194304)\n"
        "  -r, --reps N           repetitions per small message (default 200;\n"
        "                         fewer for large ones, at least %d)\n"
        "  -h, --help             this text\n"
        "\n"
        "Progress goes to stderr.  Exit status 0 on success, 2 on a usage "
        "error\n"
        "(or fewer than two ranks), 1 when a measurement fails.\n",
        CAL_MIN_REPS);
}

static int parse_bytes(const char *s, long long *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);

    if (end == s || *end || x < 1 || x > (1LL << 30))
        return -1;
    *v = x;
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    static const struct option longs[] = {{"out", 1, 0, 'o'},
                                          {"name", 1, 0, 'n'},
                                          {"max-bytes", 1, 0, 'm'},
                                          {"gamma-bytes", 1, 0, 'g'},
                                          {"reps", 1, 0, 'r'},
                                          {"help", 0, 0, 'h'},
                                          {0, 0, 0, 0}};
    long long v;
    int c;

    o->max_bytes = 1LL << 22;
    o->gamma_bytes = 1LL << 22;
    o->reps = 1000;
    o->out = NULL;
    o->name = NULL;
    while ((c = getopt_long(argc, argv, "o:n:m:g:r:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->out = optarg;
            break;
        case 'n':
            o->name = optarg;
            break;
        case 'm':
            if (parse_bytes(optarg, &o->max_bytes) ||
                (o->max_bytes & (o->max_bytes - 1))) {
                fprintf(stderr,
                        "ch4coll-calibrate: --max-bytes '%s': a power of two "
                        "from 1 to 2^30\n",
                        optarg);
                return 2;
            }
            break;
        case 'g':
            if (parse_bytes(optarg, &o->gamma_bytes) || o->gamma_bytes < 64) {
                fprintf(stderr,
                        "ch4coll-calibrate: --gamma-bytes '%s': 64 to 2^30\n",
                        optarg);
                return 2;
            }
            break;
        case 'r':
            if (parse_bytes(optarg, &v) || v < CAL_MIN_REPS || v > 100000) {
                fprintf(stderr,
                        "ch4coll-calibrate: --reps '%s': %d to 100000\n",
                        optarg, CAL_MIN_REPS);
                return 2;
            }
            o->reps = (int) v;
            break;
        case 'h':
            return 1;
        default:
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ch4coll-calibrate: unexpected argument '%s'\n",
                argv[optind]);
        return 2;
    }
    return 0;
}

static void progress(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    va_list ap;

    if (rank != 0)
        return;
    va_start(ap, fmt);
    fputs("ch4coll-calibrate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Repetitions for a size: about 4 MB of traffic, between CAL_MIN_REPS and
 * the option. */
static int reps_for(const options_t *o, long long size)
{
    long long r = (4LL << 20) / (size + 1);

    if (r > o->reps)
        r = o->reps;
    return r < CAL_MIN_REPS ? CAL_MIN_REPS : (int) r;
}

static void spin(double seconds)
{
    double t0 = MPI_Wtime();

    while (MPI_Wtime() - t0 < seconds)
        ;
}

/* The median over ranks 0 and 1 is rank 0's own measurement: only rank 0
 * times (rank 1's clock is never compared with it), and rank 0 tells rank
 * 1 the result so both take the same decisions. */
static double share(double v)
{
    PMPI_Bcast(&v, 1, MPI_DOUBLE, 0, pair);
    return v;
}

static double time_pingpong(long long size, int reps, double *t)
{
    int i, n = (int) size;

    for (i = -2; i < reps; i++) {
        double t0;

        PMPI_Barrier(pair);
        t0 = MPI_Wtime();
        if (rank == 0) {
            PMPI_Send(buf, n, MPI_BYTE, 1, CAL_TAG, pair);
            PMPI_Recv(rbuf, n, MPI_BYTE, 1, CAL_TAG, pair, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            PMPI_Recv(rbuf, n, MPI_BYTE, 0, CAL_TAG, pair, MPI_STATUS_IGNORE);
            PMPI_Send(buf, n, MPI_BYTE, 0, CAL_TAG, pair);
        }
        if (i >= 0)
            t[i] = (MPI_Wtime() - t0) / 2;
    }
    return share(median(t, reps));
}

/* MPI_Send or MPI_Isend from rank 0 to a posted receive: how long the call
 * takes to return. */
static double time_send(long long size, int reps, int nonblocking, double *t)
{
    int i, n = (int) size;

    for (i = -2; i < reps; i++) {
        MPI_Request q = MPI_REQUEST_NULL;
        double t0, t1;

        if (rank == 1)
            PMPI_Irecv(rbuf, n, MPI_BYTE, 0, CAL_TAG, pair, &q);
        PMPI_Barrier(pair);
        if (rank == 0) {
            t0 = MPI_Wtime();
            if (nonblocking)
                PMPI_Isend(buf, n, MPI_BYTE, 1, CAL_TAG, pair, &q);
            else
                PMPI_Send(buf, n, MPI_BYTE, 1, CAL_TAG, pair);
            t1 = MPI_Wtime();
            if (i >= 0)
                t[i] = t1 - t0;
        }
        PMPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    return share(rank == 0 ? median(t, reps) : 0);
}

/* MPI_Recv on rank 1 of a message rank 0 sent `delay` seconds before. */
static double time_recv(long long size, int reps, double delay, double *t)
{
    int i, n = (int) size;

    for (i = -2; i < reps; i++) {
        double t0, t1;

        PMPI_Barrier(pair);
        if (rank == 0) {
            PMPI_Send(buf, n, MPI_BYTE, 1, CAL_TAG, pair);
        } else if (rank == 1) {
            spin(delay);
            t0 = MPI_Wtime();
            PMPI_Recv(rbuf, n, MPI_BYTE, 0, CAL_TAG, pair, MPI_STATUS_IGNORE);
            t1 = MPI_Wtime();
            if (i >= 0)
                t[i] = t1 - t0;
        }
    }
    /* rank 1 timed: rank 0 learns the median, then both share it */
    if (rank == 1) {
        double v = median(t, reps);
        PMPI_Send(&v, 1, MPI_DOUBLE, 0, CAL_TAG, pair);
        return share(0);
    }
    {
        double v;
        PMPI_Recv(&v, 1, MPI_DOUBLE, 1, CAL_TAG, pair, MPI_STATUS_IGNORE);
        return share(v);
    }
}

/* Whether an MPI_Send of `size` bytes returns before the receiver posts
 * its receive `delay` seconds later (the median of a few tries). */
static int is_eager(long long size, double delay, double *t)
{
    const int tries = CAL_MIN_REPS;
    int i, n = (int) size;

    for (i = 0; i < tries; i++) {
        double t0;

        PMPI_Barrier(pair);
        if (rank == 0) {
            t0 = MPI_Wtime();
            PMPI_Send(buf, n, MPI_BYTE, 1, CAL_TAG, pair);
            t[i] = MPI_Wtime() - t0;
        } else if (rank == 1) {
            spin(delay);
            PMPI_Recv(rbuf, n, MPI_BYTE, 0, CAL_TAG, pair, MPI_STATUS_IGNORE);
        }
    }
    return share(rank == 0 ? median(t, tries) < delay / 2 : 0) != 0;
}

/* The eager switch: the largest eager size, by doubling and then by
 * bisection to 64 bytes; max_bytes when every size is eager. */
static long long find_eager(long long max_bytes, double delay, double *t)
{
    long long lo = 0, hi, s;

    for (s = 1; s <= max_bytes && is_eager(s, delay, t); s *= 2)
        lo = s;
    if (s > max_bytes)
        return max_bytes;
    hi = s; /* lo eager (or 0), hi not */
    while (hi - lo > 64) {
        long long mid = lo + (hi - lo) / 2;
        if (is_eager(mid, delay, t))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Least squares line y = a + b x over points i in [from, to) of x, y, with
 * a and b at least 0; 0 when fewer than one point. */
static void fit_line(const long long *x, const double *y, int from, int to,
                     double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, d;
    int i;

    for (i = from; i < to; i++) {
        if (y[i] < 0)
            continue;
        sx += (double) x[i];
        sy += y[i];
        sxx += (double) x[i] * (double) x[i];
        sxy += (double) x[i] * y[i];
        n++;
    }
    *a = *b = 0;
    if (n == 0)
        return;
    d = n * sxx - sx * sx;
    *b = d > 0 ? (n * sxy - sx * sy) / d : 0;
    if (*b < 0)
        *b = 0;
    *a = (sy - *b * sx) / n;
    if (*a < 0) {
        /* through the origin instead */
        *a = 0;
        *b = sxx > 0 ? sxy / sxx : 0;
    }
}

/* The index of the first size > limit (n when none). */
static int first_above(const points_t *pt, long long limit)
{
    int i;

    for (i = 0; i < pt->n && pt->size[i] <= limit; i++)
        ;
    return i;
}

/* SimGrid's "threshold:startup:per_byte;..." of y over the segments
 * [0, 1 KiB], (1 KiB, eager], and (eager, max] when `above` (the segment
 * with threshold t applies to sizes above t). */
static void segments(const points_t *pt, const double *y, int above, char *out,
                     size_t len)
{
    long long cut[3] = {0, CAL_SMALL_END, pt->eager};
    int from = 0, k, nseg = above ? 3 : 2;
    size_t used = 0;

    out[0] = '\0';
    for (k = 0; k < nseg; k++) {
        int to = k + 1 < nseg ? first_above(pt, cut[k + 1]) : pt->n;
        double a, b;

        if (k > 0 && cut[k] <= cut[k - 1])
            continue; /* an eager switch at or below 1 KiB */
        fit_line(pt->size, y, from, to, &a, &b);
        used += (size_t) snprintf(out + used, used < len ? len - used : 0,
                                  "%s%lld:%.4g:%.4g", used ? ";" : "", cut[k],
                                  a, b);
        from = to;
    }
}

static int measure_p2p(const options_t *o, points_t *pt)
{
    double *t = malloc(sizeof *t * (size_t) (o->reps > 64 ? o->reps : 64));
    double delay;
    long long s;
    int i;

    if (!t)
        return -1;
    pt->n = 0;
    /* 0, 1, 2, then 2^k and 3 2^(k-1): two points per octave for the fits */
    for (s = 0; s <= o->max_bytes && pt->n < CAL_MAX_SIZES; s = s ? s * 2 : 1) {
        pt->size[pt->n++] = s;
        if (s >= 2 && s + s / 2 <= o->max_bytes && pt->n < CAL_MAX_SIZES)
            pt->size[pt->n++] = s + s / 2;
    }
    for (i = 0; i < pt->n; i++) {
        int r = reps_for(o, pt->size[i]);
        pt->pingpong[i] = time_pingpong(pt->size[i], r, t);
        pt->send[i] = time_send(pt->size[i], r, 0, t);
        pt->isend[i] = time_send(pt->size[i], r, 1, t);
        progress("%lld B: ping-pong %.3g us, send %.3g us, isend %.3g us",
                 pt->size[i], pt->pingpong[i] * 1e6, pt->send[i] * 1e6,
                 pt->isend[i] * 1e6);
    }
    /* the receiver waits long enough for any eager message to be there */
    delay = 100e-6 + 4 * pt->pingpong[pt->n - 1];
    if (delay > 0.05)
        delay = 0.05;
    pt->eager = find_eager(o->max_bytes, delay, t);
    progress("eager/rendezvous switch: %lld B", pt->eager);
    for (i = 0; i < pt->n; i++) {
        double d = 20e-6 + 4 * pt->pingpong[i];
        pt->recv[i] =
            pt->size[i] <= pt->eager
                ? time_recv(pt->size[i], reps_for(o, pt->size[i]), d, t)
                : -1;
        if (pt->recv[i] >= 0)
            progress("%lld B: recv of an arrived message %.3g us", pt->size[i],
                     pt->recv[i] * 1e6);
    }
    free(t);
    return 0;
}

static void describe(const points_t *pt, ch4coll_machine_t *m)
{
    long long big = pt->eager > 65536 ? pt->eager : 65536;
    int from = first_above(pt, big - 1);
    double a, b;

    if (from >= pt->n - 1)
        from = pt->n > 2 ? pt->n - 2 : 0;
    fit_line(pt->size, pt->pingpong, from, pt->n, &a, &b);
    m->bandwidth = b > 0 ? 1 / b : 0;
    m->latency =
        pt->pingpong[0] - pt->send[0] - (pt->recv[0] > 0 ? pt->recv[0] : 0);
    if (m->latency < 0)
        m->latency = 0;
    m->eager = pt->eager;
    m->model.eager = (double) pt->eager;
    m->model.alpha = m->model.alpha_node = pt->pingpong[0];
    m->model.beta = m->model.beta_node = b;
    /* a rank may start its next message once the cheaper send's overhead
     * is paid: the multi-ported model's gap (model.h) */
    m->model.gap = pt->isend[0] > 0 && pt->isend[0] < pt->send[0] ? pt->isend[0]
                   : pt->send[0] > 0                              ? pt->send[0]
                                                                  : 0;
    segments(pt, pt->send, 0, m->os, sizeof m->os);
    segments(pt, pt->isend, 1, m->ois, sizeof m->ois);
    segments(pt, pt->recv, 0, m->or_, sizeof m->or_);
}

static void print_array(FILE *f, const char *key, const double *v, int n,
                        int last)
{
    int i;

    fprintf(f, "    \"%s\": [", key);
    for (i = 0; i < n; i++) {
        if (v[i] < 0)
            fprintf(f, "%snull", i ? ", " : "");
        else
            fprintf(f, "%s%.10g", i ? ", " : "", v[i]);
    }
    fprintf(f, "]%s\n", last ? "" : ",");
}

/* The measured points as the "points" member (malloc'd text), or NULL. */
static char *points_json(const points_t *pt)
{
    double sizes[CAL_MAX_SIZES];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int i;

    if (!f)
        return NULL;
    for (i = 0; i < pt->n; i++)
        sizes[i] = (double) pt->size[i];
    fprintf(f, "  \"points\": {\n");
    print_array(f, "bytes", sizes, pt->n, 0);
    print_array(f, "pingpong", pt->pingpong, pt->n, 0);
    print_array(f, "send", pt->send, pt->n, 0);
    print_array(f, "isend", pt->isend, pt->n, 0);
    print_array(f, "recv", pt->recv, pt->n, 1);
    fprintf(f, "  }");
    fclose(f);
    return text;
}

/* Seconds per byte of the host's MPI_Reduce_local, MPI_SUM on doubles. */
static double host_gamma(long long bytes)
{
    int n = (int) (bytes / (long long) sizeof(double)), i;
    double *in = malloc(sizeof *in * (size_t) n),
           *io = malloc(sizeof *io * (size_t) n), t[7];

    if (!in || !io || n == 0) {
        free(in);
        free(io);
        return 0;
    }
    for (i = 0; i < n; i++)
        in[i] = io[i] = 1 + i % 7;
    for (i = -1; i < 7; i++) {
        double t0 = MPI_Wtime();
        PMPI_Reduce_local(in, io, n, MPI_DOUBLE, MPI_SUM);
        if (i >= 0)
            t[i] = MPI_Wtime() - t0;
    }
    free(in);
    free(io);
    return median(t, 7) / ((double) n * sizeof(double));
}

/* The command line, for the file's made_by. */
static void command_line(int argc, char **argv, char *out, size_t len)
{
    size_t used =
        (size_t) snprintf(out, len, "mpiexec -n %d ch4coll-calibrate", nprocs);
    int i;

    for (i = 1; i < argc && used < len; i++)
        used += (size_t) snprintf(out + used, len - used, " %s", argv[i]);
}

static void stamp(char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int main(int argc, char **argv)
{
    options_t o;
    points_t pt;
    ch4coll_machine_t m;
    char host[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING],
        err[256];
    char *points;
    int rc, len;
    FILE *f = stdout;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = parse_options(argc, argv, &o);
    if (rc || nprocs < 2) {
        if (rank == 0) {
            if (rc == 0)
                fprintf(stderr, "ch4coll-calibrate: run it with two ranks "
                                "(mpiexec -n 2 ch4coll-calibrate)\n");
            usage(rc == 1 ? stdout : stderr);
        }
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    buf = malloc((size_t) o.max_bytes + 1);
    rbuf = malloc((size_t) o.max_bytes + 1);
    if (buf && rbuf) { /* every page mapped before the first message */
        memset(buf, 1, (size_t) o.max_bytes + 1);
        memset(rbuf, 0, (size_t) o.max_bytes + 1);
    }
    if (!buf || !rbuf || (rank == 0 && o.out && !(f = fopen(o.out, "w")))) {
        fprintf(stderr, "ch4coll-calibrate: %s\n",
                buf && rbuf ? o.out : "out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ch4coll_machine_init(&m);
    MPI_Get_processor_name(host, &len);
    MPI_Get_library_version(lib, &len);
    progress("ranks 0 and 1 of %d, messages of 0 to %lld bytes", nprocs,
             o.max_bytes);
    PMPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank < 2 && measure_p2p(&o, &pt) != 0) {
        fprintf(stderr, "ch4coll-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (pair != MPI_COMM_NULL)
        PMPI_Comm_free(&pair);
    PMPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        describe(&pt, &m);
        progress("reduction kernels on %lld-byte vectors", o.gamma_bytes);
        if (ch4coll_machine_gamma(&m, (size_t) o.gamma_bytes, err,
                                  sizeof err) != 0) {
            fprintf(stderr, "ch4coll-calibrate: %s\n", err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        m.host_gamma = host_gamma(o.gamma_bytes);
        snprintf(m.name, sizeof m.name, "%.127s", o.name ? o.name : host);
        command_line(argc, argv, m.made_by, sizeof m.made_by);
        stamp(m.date, sizeof m.date);
        snprintf(m.mpi, sizeof m.mpi, "%.255s", strtok(lib, "\n") ? lib : "");
        points = points_json(&pt);
        ch4coll_machine_write(f, &m, points);
        free(points);
        if (f != stdout && fclose(f) != 0) {
            fprintf(stderr, "ch4coll-calibrate: writing %s failed\n", o.out);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        progress("alpha %.3g us, beta %.3g s/B (%.3g GB/s), gamma %.3g s/B, "
                 "eager %lld B",
                 m.model.alpha * 1e6, m.model.beta, m.bandwidth / 1e9,
                 m.model.gamma, m.eager);
    }
    free(buf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
