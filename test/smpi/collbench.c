/*
 * collbench.c - simulated time of collectives over a list of message
 * sizes in one SimGrid SMPI run: the measuring driver of
 * maint/smpi-compare (collcheck.c is the checking one; both take their
 * buffers from colldata.h).
 *
 * usage: collbench [-c COLL,...] [-b BYTES,...] [-i ITERS] [-r ROOTS]
 *                  [-m MAXBYTES] [-w SECONDS] [-g GAMMA] [-V BYTES]
 *                  [-L ALPHA,BETA[,GAMMA[,O,E[,GAP]]]]
 *
 *   -c LIST    collectives, in this order (default all): allreduce, bcast,
 *              reduce, allgather, allgatherv, allgatherv:broadcast,
 *              allgatherv:spike, alltoall, reduce_scatter_block
 *   -b LIST    message sizes in bytes (default 8,1024,65536,1048576)
 *   -i ITERS   timed calls per cell (default 1; the simulation is
 *              deterministic), reported as their mean
 *   -r ROOTS   bcast and reduce: ITERS calls at each of ROOTS roots
 *              spread over the ranks (j p / ROOTS, j < ROOTS), the mean
 *              of all (default 1: root 0).  On a torus a chain's time
 *              depends on where it starts: one root would tune for it.
 *   -m BYTES   skip a cell whose largest buffer exceeds BYTES (default
 *              4 GiB; an int count or displacement must fit anyway)
 *   -w SECONDS wall-time budget of each collective (default 0: none):
 *              its sizes run in the order given (ascending in a grid)
 *              while the wall time spent on it plus the predicted time
 *              of the next cell stays within SECONDS (the last cell's
 *              time, times its growth over the cell before when both
 *              took a second or more: SMPI's allgather GB at p = 24
 *              took 25 s at 512 KiB and 778 s at 2 MiB); the rest are
 *              "timeout" cells.  Rank 0 decides and tells the others
 *              (PMPI_Send), since each rank reads its own clock.
 *   -g GAMMA   charge reductions: every reduction (ch4coll's, SMPI's
 *              built-in algorithms', the same user function) takes GAMMA
 *              seconds per byte of simulated time on the rank that
 *              computes it (a commutative user op that sums the ints and
 *              calls smpi_execute_flops; SMPI charges MPI_SUM nothing)
 *   -V BYTES   check a cell whose largest buffer is at most BYTES before
 *              timing it: one call per root with private buffers, whose
 *              data differs from call to call, checked on every rank (see
 *              "checking" below); a wrong result makes it and the larger
 *              sizes of its collective "wrong" cells, not timed (default 0:
 *              none; the timed calls' shared buffers hold nothing)
 *   -L A,B[,G[,O,E[,GAP]]]  also print the lower bound of every cell on
 *              the alpha-beta-gamma model (alpha A s, beta B s/byte, gamma
 *              G s/byte, default 0): rank 0 asks ch4coll_model(), as
 *              ch4coll-info --model does; a cell whose largest buffer is
 *              below E bytes sends only eager messages, and each costs O
 *              s more (the sender's and the receiver's overheads); GAP > 0:
 *              the ranks are multi-ported, a rank starting a message every
 *              GAP s (the model's gap= key: SimGrid's hosts are)
 *
 * A size means what ch4coll-info --model's bytes= means: bytes per rank,
 * MPI_INT elements (size / 4) for the reductions (allreduce, reduce: the
 * vector; reduce_scatter_block: one rank's block), bytes (MPI_BYTE) for data
 * movement (bcast: the vector; allgather: one rank's block; alltoall: one
 * block per destination).  allgatherv is the regular case,
 * allgatherv:broadcast and allgatherv:spike Träff et al.'s distributions
 * with base size BYTES (topo/distrib.h, ch4coll-info's dist=): rank 0
 * holds all BYTES or half of them, the others none or the other half in
 * equal parts.  Roots are rank 0 unless -r says otherwise.
 *
 * Buffers come from SMPI_SHARED_MALLOC (colldata's shared mode): nothing
 * is filled or checked.  Each call follows a PMPI_Barrier and starts on
 * every rank at the same simulated instant (common_start: the barrier's
 * exits are microseconds apart); its time is from that instant to the
 * last rank's return (the maximum over ranks, gathered by PMPI_Send and
 * PMPI_Recv: only the barrier depends on SMPI's collective algorithms).
 * Before its timed cells each collective runs once untimed at the
 * smallest size (communicator setup of ch4coll or of SMPI's selectors is
 * not charged to a cell; rank 0 prints "collbench-setup,<coll>,<seconds>",
 * the simulated time of that first call).
 *
 * Rank 0 prints one line per cell:
 *   collbench,<coll>,<bytes>,<seconds>,<what ran it>
 * and after it collbench-wall,<coll>,<bytes>,<wall seconds of the host
 * spent on the cell, all ranks> (what a grid's time goes to);
 * what ran it: ch4coll's decision (algorithm and parameters, commas
 * written as semicolons), "native" when ch4coll handed the call to SMPI,
 * "smpi" when ch4coll is disabled (MPIR_CVAR_CH4COLL_ENABLE=0); a skipped
 * cell has "skip" as its time and the reason last, a cell past -w's
 * budget "timeout", a cell that failed -V's check "wrong".  With -L, rank 0
 * first prints collbench-bound,<coll>,<bytes>,<seconds> for every cell.  The
 * harness's own calls use PMPI_.
 */
#include <mpi.h>
#include <simgrid/host.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch4coll.h"
#include "colldata.h"
#include "topo/distrib.h"

#define MAX_SIZES 64

enum { ALLREDUCE, BCAST, REDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, RSB };

typedef struct {
    const char *name; /* collbench's name: ch4coll's, ":dist" for v */
    int kind;
    int dist; /* CH4COLL_D_* for allgatherv */
} bench_t;

static const bench_t benches[] = {
    {"allreduce", ALLREDUCE, 0},
    {"bcast", BCAST, 0},
    {"reduce", REDUCE, 0},
    {"allgather", ALLGATHER, 0},
    {"allgatherv", ALLGATHERV, CH4COLL_D_REGULAR},
    {"allgatherv:broadcast", ALLGATHERV, CH4COLL_D_BROADCAST},
    {"allgatherv:spike", ALLGATHERV, CH4COLL_D_SPIKE},
    {"alltoall", ALLTOALL, 0},
    {"reduce_scatter_block", RSB, 0},
};
#define NBENCHES ((int) (sizeof benches / sizeof benches[0]))

/* One cell: element count per block, buffers and v-counts. */
typedef struct {
    cd_env_t *e;
    int count;        /* elements of MPI_INT or MPI_BYTE per block */
    int *sbuf, *rbuf; /* shared, or private when checked */
    size_t sbytes, rbytes;
    int priv;             /* sbuf and rbuf from malloc (check_cell) */
    int *counts, *displs; /* allgatherv */
    int root;             /* bcast, reduce */
} cell_t;

/* Ints of colldata's buffers that hold `bytes` (colldata counts in w-int
 * elements, w = 1 here). */
static size_t ints_of(size_t bytes)
{
    return (bytes + sizeof(int) - 1) / sizeof(int);
}

/* Block sizes of distribution dist with base size bytes; returns the
 * total, or 0 when a displacement would not fit an int. */
static size_t v_layout(const bench_t *b, int p, size_t bytes, int *counts,
                       int *displs)
{
    size_t *m = malloc((size_t) p * sizeof *m), at = 0;
    int q;

    if (!m)
        MPI_Abort(MPI_COMM_WORLD, 2);
    ch4coll_distrib_counts(b->dist, p, bytes, m);
    for (q = 0; q < p && at <= INT_MAX; q++) {
        displs[q] = (int) at;
        counts[q] = (int) m[q];
        at += m[q];
    }
    free(m);
    return at <= INT_MAX ? at : 0;
}

/* Largest buffer of the cell in bytes (0: a count or displacement would
 * not fit an int). */
static size_t largest(const bench_t *b, int p, size_t bytes)
{
    size_t all = (size_t) p * bytes;
    size_t v = b->dist == CH4COLL_D_REGULAR ? all : bytes; /* allgatherv */

    if (bytes > INT_MAX / 4)
        return 0;
    switch (b->kind) {
    case ALLGATHER:
    case ALLTOALL:
    case RSB:
        return all;
    case ALLGATHERV:
        return v <= INT_MAX ? v : 0;
    default:
        return bytes;
    }
}

/* The cell's buffers: shared, or private (c->priv) with room for every
 * byte. */
static void cell_alloc(cell_t *c, const bench_t *b, size_t bytes)
{
    int p = c->e->size;
    size_t all = (size_t) p * bytes, rb = bytes, sb = bytes;

    c->count = b->kind == ALLREDUCE || b->kind == REDUCE || b->kind == RSB
                   ? (int) (bytes / sizeof(int))
                   : (int) bytes;
    c->counts = c->displs = NULL;
    if (b->kind == ALLGATHER)
        rb = all;
    else if (b->kind == ALLTOALL)
        sb = rb = all;
    else if (b->kind == RSB)
        sb = all;
    if (b->kind == ALLGATHERV) {
        c->counts = malloc((size_t) p * sizeof(int));
        c->displs = malloc((size_t) p * sizeof(int));
        if (!c->counts || !c->displs)
            MPI_Abort(MPI_COMM_WORLD, 2);
        rb = v_layout(b, p, bytes, c->counts, c->displs);
        sb = (size_t) c->counts[c->e->rank];
    }
    c->sbytes = sb;
    c->rbytes = rb;
    if (c->priv) {
        c->sbuf = malloc(ints_of(sb) * sizeof(int) + sizeof(int));
        c->rbuf = malloc(ints_of(rb) * sizeof(int) + sizeof(int));
        if (!c->sbuf || !c->rbuf)
            MPI_Abort(MPI_COMM_WORLD, 2);
        return;
    }
    c->sbuf = cd_alloc(c->e, ints_of(sb));
    c->rbuf = cd_alloc(c->e, ints_of(rb));
}

static void cell_free(cell_t *c)
{
    if (c->priv) {
        free(c->sbuf);
        free(c->rbuf);
    } else {
        cd_free(c->e, c->sbuf);
        cd_free(c->e, c->rbuf);
    }
    free(c->counts);
    free(c->displs);
}

/* MPI_SUM, or with -g the charged sum */
static MPI_Op sum_op = MPI_SUM;
static double gamma_charge;

/* The charged sum (-g): unsigned adds (the shared buffers hold anything),
 * then the simulated time of gamma seconds per byte on this rank's host. */
static void charged_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const unsigned *a = in;
    unsigned *b = inout;
    int i;

    (void) dt;
    for (i = 0; i < *len; i++)
        b[i] += a[i];
    smpi_execute_flops(gamma_charge * (double) *len * sizeof(int) *
                       sg_host_get_speed(sg_host_self()));
}

static int call(const bench_t *b, const cell_t *c)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int n = c->count, *s = c->sbuf, *r = c->rbuf;

    switch (b->kind) {
    case ALLREDUCE:
        return MPI_Allreduce(s, r, n, MPI_INT, sum_op, w);
    case BCAST:
        return MPI_Bcast(r, n, MPI_BYTE, c->root, w);
    case REDUCE:
        return MPI_Reduce(s, r, n, MPI_INT, sum_op, c->root, w);
    case ALLGATHER:
        return MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, w);
    case ALLGATHERV:
        return MPI_Allgatherv(s, c->counts[c->e->rank], MPI_BYTE, r, c->counts,
                              c->displs, MPI_BYTE, w);
    case ALLTOALL:
        return MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, w);
    default:
        return MPI_Reduce_scatter_block(s, r, n, MPI_INT, sum_op, w);
    }
}

/* Who ran the last call: "smpi", "native" or ch4coll's decision. */
static void ran_by(const ch4coll_stats_t *before, char *out, size_t len)
{
    const char *env = getenv("MPIR_CVAR_CH4COLL_ENABLE");
    const char *d = ch4coll_last_decision(), *after = strstr(d, ": ");
    ch4coll_stats_t now;

    ch4coll_get_stats(&now);
    if (env && strcmp(env, "0") == 0)
        snprintf(out, len, "smpi");
    else if (now.native_calls != before->native_calls)
        snprintf(out, len, "native");
    else
        snprintf(out, len, "%s", after ? after + 2 : d);
    for (; *out; out++) /* one CSV field */
        *out = *out == ',' ? ';' : *out;
}

/* The maximum of t over the ranks, on rank 0, by point-to-point messages
 * up a binomial tree: SMPI's own reduce may be the algorithm under test
 * (and fail with MPI_DOUBLE). */
static double max_to_root(const cd_env_t *e, double t)
{
    double other;
    int mask;

    for (mask = 1; mask < e->size; mask <<= 1) {
        if (e->rank & mask) {
            PMPI_Send(&t, 1, MPI_DOUBLE, e->rank - mask, 0, MPI_COMM_WORLD);
            break;
        }
        if (e->rank + mask < e->size) {
            PMPI_Recv(&other, 1, MPI_DOUBLE, e->rank + mask, 0, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
            t = other > t ? other : t;
        }
    }
    return t;
}

/* Rank 0's value of buf on every rank, down a binomial tree of
 * point-to-point messages (the collectives may be the ones under test). */
static void from_root(const cd_env_t *e, void *buf, MPI_Datatype t)
{
    int mask = 1;

    while (mask < e->size && !(e->rank & mask))
        mask <<= 1;
    if (e->rank != 0)
        PMPI_Recv(buf, 1, t, e->rank - mask, 1, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (e->rank + mask < e->size)
            PMPI_Send(buf, 1, t, e->rank + mask, 1, MPI_COMM_WORLD);
}

static int flag_from_root(const cd_env_t *e, int flag)
{
    from_root(e, &flag, MPI_INT);
    return flag;
}

/* Simulated seconds between rank 0's reading of its clock and the common
 * start: far more than its value takes to reach every rank (lg p
 * messages of a few microseconds). */
#define START_LEAD 1e-3

/* Ranks that reached a common start late (never seen; reported at the end
 * when it happens: their calls were timed from their own start). */
static long late_starts;

/* Start every rank's call at the same simulated instant, and return it.
 * A barrier releases the ranks microseconds apart (SMPI's recursive
 * doubling at p = 24: 0.9 us between the first and the last), and a
 * call timed from each rank's own exit, maximum over ranks, then measured
 * the skew as well: a flat bcast of 8 B from root 8, its sends in
 * absolute or in relative rank order, took 1.70 or 2.09 us on a platform
 * where every destination is alike, and 1.24 us either way from a common
 * start.  So rank 0 names an instant START_LEAD after its exit, sends it
 * down a tree, and every rank sleeps until then (SMPI's nanosleep: the
 * simulated clock only). */
static double common_start(const cd_env_t *e)
{
    double at = MPI_Wtime() + START_LEAD, now;
    struct timespec ts;

    from_root(e, &at, MPI_DOUBLE);
    now = MPI_Wtime();
    if (now > at) {
        late_starts++;
        return now;
    }
    ts.tv_sec = (time_t) (at - now);
    ts.tv_nsec = (long) ((at - now - (double) ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
    return at;
}

/* The host's wall clock in seconds.  The parentheses call the C
 * library's clock_gettime: SMPI's header turns the plain name into the
 * simulated clock. */
static double wall_clock(void)
{
    struct timespec ts;

    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* ------------------------------------------------------------ checking
 * -V: a cell whose largest buffer is at most -V bytes is first run with
 * private buffers and checked on every rank, once per root.  The data
 * changes from call to call (seed), so an algorithm that leaves a message
 * behind for a later call to match is caught as well as a wrong result:
 * SMPI's bcast SMP_linear, with one rank per host, sends each message
 * twice to the next rank, which receives one; the next call takes the
 * stale one at once and looked 3.6x faster than a binomial tree at
 * p = 16 on the fat tree. */

/* Byte i of the block rank q sends to rank d (d = 0 where one block). */
static unsigned char byte_of(int q, int d, size_t i, int seed)
{
    return (unsigned char) (seed * 29 + q * 131 + d * 17 + (int) (i % 251) * 7);
}

/* Int i of rank q's vector, and the sum of all p ranks' (unsigned: it may
 * wrap at large p, as the charged sum's adds do). */
static unsigned val_of(int q, size_t i, int seed)
{
    return (unsigned) q + (unsigned) ((i + (size_t) seed) % 7);
}

static unsigned sum_of(int p, size_t i, int seed)
{
    unsigned pairs = p % 2 ? (unsigned) p * (unsigned) ((p - 1) / 2)
                           : (unsigned) (p / 2) * (unsigned) (p - 1);

    return pairs + (unsigned) p * val_of(0, i, seed);
}

static void fill_cell(const bench_t *b, cell_t *c, int seed)
{
    int me = c->e->rank, p = c->e->size, q;
    size_t i, n = (size_t) c->count, nsend = c->sbytes / sizeof(int);
    unsigned *si = (unsigned *) c->sbuf;
    unsigned char *sb = (unsigned char *) c->sbuf,
                  *rb = (unsigned char *) c->rbuf;

    memset(rb, 0xa5, c->rbytes);
    switch (b->kind) {
    case ALLREDUCE:
    case REDUCE:
    case RSB:
        for (i = 0; i < nsend; i++)
            si[i] = val_of(me, i, seed);
        break;
    case BCAST:
        for (i = 0; me == c->root && i < n; i++)
            rb[i] = byte_of(c->root, 0, i, seed);
        break;
    case ALLTOALL:
        for (q = 0; q < p; q++)
            for (i = 0; i < n; i++)
                sb[(size_t) q * n + i] = byte_of(me, q, i, seed);
        break;
    default: /* allgather(v): this rank's block */
        for (i = 0; i < c->sbytes; i++)
            sb[i] = byte_of(me, 0, i, seed);
    }
}

/* Elements of this rank's result that are wrong. */
static long wrong_in_cell(const bench_t *b, const cell_t *c, int seed)
{
    int me = c->e->rank, p = c->e->size, q;
    size_t i, n = (size_t) c->count;
    const unsigned *ri = (const unsigned *) c->rbuf;
    const unsigned char *rb = (const unsigned char *) c->rbuf;
    long bad = 0;

    switch (b->kind) {
    case ALLREDUCE:
    case REDUCE:
        for (i = 0; (b->kind == ALLREDUCE || me == c->root) && i < n; i++)
            bad += ri[i] != sum_of(p, i, seed);
        break;
    case RSB:
        for (i = 0; i < n; i++)
            bad += ri[i] != sum_of(p, (size_t) me * n + i, seed);
        break;
    case BCAST:
        for (i = 0; i < n; i++)
            bad += rb[i] != byte_of(c->root, 0, i, seed);
        break;
    default: /* allgather(v), alltoall: block q from rank q */
        for (q = 0; q < p; q++) {
            size_t at = c->displs ? (size_t) c->displs[q] : (size_t) q * n;
            size_t len = c->counts ? (size_t) c->counts[q] : n;
            for (i = 0; i < len; i++)
                bad += rb[at + i] !=
                       byte_of(q, b->kind == ALLTOALL ? me : 0, i, seed);
        }
    }
    return bad;
}

/* Run the cell once per root with private buffers and check it; the
 * largest count of wrong elements on a rank, on every rank. */
static long check_cell(cd_env_t *e, const bench_t *b, size_t bytes, int roots)
{
    static int seed;
    cell_t c = {.e = e, .priv = 1};
    long worst = 0;
    int j;

    cell_alloc(&c, b, bytes);
    for (j = 0; j < roots; j++) {
        c.root = (int) ((long) j * e->size / roots);
        fill_cell(b, &c, ++seed);
        PMPI_Barrier(MPI_COMM_WORLD);
        worst = call(b, &c) == MPI_SUCCESS ? wrong_in_cell(b, &c, seed) : 1;
        worst = (long) max_to_root(e, (double) worst);
        if (flag_from_root(e, worst > 0))
            break;
    }
    cell_free(&c);
    return flag_from_root(e, (int) (worst > INT_MAX ? INT_MAX : worst));
}

enum { CELL_OK, CELL_FAILED, CELL_WRONG };

/* Check one cell when its largest buffer is at most check bytes (-V),
 * then time it (iters calls at each of roots roots for bcast and reduce,
 * mean of the maximum over ranks) and print it; CELL_FAILED when a call
 * failed on rank 0, CELL_WRONG when the check found a wrong result. */
static int bench_cell(cd_env_t *e, const bench_t *b, size_t bytes, int iters,
                      int roots, size_t max_bytes, size_t check)
{
    cell_t c = {.e = e};
    size_t big = largest(b, e->size, bytes);
    double t, sum = 0;
    int i, n, rc = MPI_SUCCESS;
    ch4coll_stats_t before;
    char ran[256];

    if (big == 0 || big > max_bytes) {
        if (e->rank == 0)
            printf("collbench,%s,%zu,skip,%s\n", b->name, bytes,
                   big ? "buffer above -m" : "count above INT_MAX");
        return 0;
    }
    if (b->kind != BCAST && b->kind != REDUCE)
        roots = 1;
    roots = roots < e->size ? roots : e->size;
    if (big <= check) {
        long bad = check_cell(e, b, bytes, roots);
        if (bad) {
            if (e->rank == 0)
                printf("collbench,%s,%zu,wrong,%ld wrong elements on a rank "
                       "(or an MPI error)\n",
                       b->name, bytes, bad);
            return CELL_WRONG;
        }
    }
    cell_alloc(&c, b, bytes);
    n = iters * roots;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        c.root = (int) ((long) (i / iters) * e->size / roots);
        ch4coll_get_stats(&before);
        PMPI_Barrier(MPI_COMM_WORLD);
        t = common_start(e);
        rc = call(b, &c);
        t = MPI_Wtime() - t;
        sum += max_to_root(e, t);
    }
    ran_by(&before, ran, sizeof ran);
    cell_free(&c);
    if (e->rank == 0 && rc == MPI_SUCCESS)
        printf("collbench,%s,%zu,%.9g,%s\n", b->name, bytes, sum / n, ran);
    else if (e->rank == 0)
        printf("collbench,%s,%zu,fail,MPI error %d\n", b->name, bytes, rc);
    fflush(stdout);
    return rc != MPI_SUCCESS ? CELL_FAILED : CELL_OK;
}

/* ------------------------------------------------------------ driver */

typedef struct {
    const bench_t *run[NBENCHES];
    int nrun, nsizes, iters, roots;
    size_t sizes[MAX_SIZES], max_bytes;
    size_t check;      /* -V: check cells of buffers up to this, or 0 */
    double wall;       /* -w: wall seconds per collective, or 0 */
    const char *model; /* -L "alpha,beta[,gamma[,o,eager[,gap]]]" or NULL */
    double gamma;      /* -g: seconds per reduced byte, or 0 */
} options_t;

static void usage(void)
{
    fprintf(stderr, "usage: collbench [-c COLL,...] [-b BYTES,...] "
                    "[-i ITERS] [-r ROOTS] [-m MAXBYTES] [-w SECONDS] "
                    "[-g GAMMA] [-V BYTES] "
                    "[-L ALPHA,BETA[,GAMMA[,O,E[,GAP]]]]\n");
    exit(2);
}

static const bench_t *find_bench(const char *name, size_t len)
{
    int i;

    for (i = 0; i < NBENCHES; i++)
        if (strlen(benches[i].name) == len &&
            strncmp(benches[i].name, name, len) == 0)
            return &benches[i];
    fprintf(stderr, "collbench: unknown collective '%.*s'\n", (int) len, name);
    usage();
    return NULL;
}

static void parse_colls(options_t *o, const char *list)
{
    const char *s = list, *comma;

    for (o->nrun = 0; *s && o->nrun < NBENCHES; s = comma + (*comma != 0)) {
        comma = s + strcspn(s, ",");
        o->run[o->nrun++] = find_bench(s, (size_t) (comma - s));
    }
}

static void parse_sizes(options_t *o, const char *list)
{
    char *end;
    const char *s = list;

    for (o->nsizes = 0; *s && o->nsizes < MAX_SIZES; s = end + (*end == ',')) {
        o->sizes[o->nsizes++] = strtoull(s, &end, 10);
        if (end == s || (*end != ',' && *end != 0))
            usage();
    }
}

static void parse(int argc, char **argv, options_t *o)
{
    int ch, i;

    *o = (options_t){.iters = 1, .roots = 1, .max_bytes = (size_t) 4 << 30};
    for (i = 0; i < NBENCHES; i++)
        o->run[o->nrun++] = &benches[i];
    parse_sizes(o, "8,1024,65536,1048576");
    while ((ch = getopt(argc, argv, "c:b:i:r:m:w:g:L:V:")) != -1) {
        switch (ch) {
        case 'c':
            parse_colls(o, optarg);
            break;
        case 'b':
            parse_sizes(o, optarg);
            break;
        case 'i':
            o->iters = atoi(optarg);
            break;
        case 'r':
            o->roots = atoi(optarg);
            break;
        case 'm':
            o->max_bytes = strtoull(optarg, NULL, 10);
            break;
        case 'w':
            o->wall = strtod(optarg, NULL);
            break;
        case 'g':
            o->gamma = strtod(optarg, NULL);
            break;
        case 'L':
            o->model = optarg;
            break;
        case 'V':
            o->check = strtoull(optarg, NULL, 10);
            break;
        default:
            usage();
        }
    }
    if (o->iters < 1 || o->roots < 1 || o->nrun < 1 || o->nsizes < 1 ||
        !(o->gamma >= 0) || !(o->wall >= 0) || optind != argc)
        usage();
}

/* The lower bound of every cell from ch4coll's model (rank 0). */
static void print_bounds(const options_t *o, int p)
{
    static char out[1 << 16];
    double alpha = 0, beta = 0, gamma = 0, over = 0, eager = 0, gap = 0;
    char spec[256], *at;
    int i, k;

    if (sscanf(o->model, "%lf,%lf,%lf,%lf,%lf,%lf", &alpha, &beta, &gamma,
               &over, &eager, &gap) < 2)
        usage();
    for (i = 0; i < o->nrun; i++) {
        const bench_t *b = o->run[i];
        const char *dist = strchr(b->name, ':');
        for (k = 0; k < o->nsizes; k++) {
            size_t big = largest(b, p, o->sizes[k]);
            double a = alpha + (big > 0 && (double) big < eager ? over : 0);
            snprintf(spec, sizeof spec,
                     "coll=%.*s,p=%d,bytes=%zu,alpha=%.9g,beta=%.9g,gamma=%.9g,"
                     "gap=%.9g,replay=0%s%s",
                     (int) strcspn(b->name, ":"), b->name, p, o->sizes[k], a,
                     beta, gamma, gap, dist ? ",dist=" : "",
                     dist ? dist + 1 : "");
            at = ch4coll_model(spec, out, sizeof out) == 0
                     ? strstr(out, "lower bound ")
                     : NULL;
            if (at)
                printf("collbench-bound,%s,%zu,%.9g\n", b->name, o->sizes[k],
                       strtod(at + 12, NULL) * 1e-6);
            else
                printf("collbench-bound,%s,%zu,fail\n", b->name, o->sizes[k]);
        }
    }
}

/* One untimed call of b at the smallest size, then its cells while -w's
 * budget lasts. */
static int bench_coll(cd_env_t *e, const bench_t *b, const options_t *o)
{
    cell_t c = {.e = e};
    size_t small = o->sizes[0];
    double t0, start, last = 0, prev = 0, next = 0, w;
    int k, failed = 0, go = 1, rc;
    size_t wrong = 0; /* the first size with a wrong result */

    for (k = 1; k < o->nsizes; k++)
        small = o->sizes[k] < small ? o->sizes[k] : small;
    if (largest(b, e->size, small) != 0) {
        cell_alloc(&c, b, small);
        PMPI_Barrier(MPI_COMM_WORLD);
        t0 = common_start(e);
        call(b, &c);
        PMPI_Barrier(MPI_COMM_WORLD);
        if (e->rank == 0)
            printf("collbench-setup,%s,%.9g\n", b->name, MPI_Wtime() - t0);
        cell_free(&c);
    }
    start = wall_clock(); /* the setup call is not in the budget */
    for (k = 0; k < o->nsizes; k++) {
        if (go && o->wall > 0)
            go = flag_from_root(e, wall_clock() - start + next <= o->wall);
        if (!go || wrong) {
            if (e->rank == 0 && wrong)
                printf("collbench,%s,%zu,wrong,not timed: wrong at %zu "
                       "bytes\n",
                       b->name, o->sizes[k], wrong);
            else if (e->rank == 0)
                printf("collbench,%s,%zu,timeout,wall budget of %g s\n",
                       b->name, o->sizes[k], o->wall);
            continue;
        }
        w = wall_clock();
        rc = bench_cell(e, b, o->sizes[k], o->iters, o->roots, o->max_bytes,
                        o->check);
        failed += rc == CELL_FAILED;
        wrong = rc == CELL_WRONG ? o->sizes[k] : 0;
        prev = last;
        last = wall_clock() - w;
        next = prev >= 1 && last > prev ? last * (last / prev) : last;
        if (e->rank == 0)
            printf("collbench-wall,%s,%zu,%.3f\n", b->name, o->sizes[k], last);
    }
    fflush(stdout);
    return failed;
}

int main(int argc, char **argv)
{
    options_t o;
    cd_env_t e = {0};
    int i, failed = 0;
    long late;

    parse(argc, argv, &o);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &e.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &e.size);
    cd_env_init(&e, 0);
    e.shared = 1;
    if (o.gamma > 0) {
        gamma_charge = o.gamma;
        MPI_Op_create(charged_sum, 1, &sum_op);
    }
    if (e.rank == 0)
        printf("collbench-start,p=%d\n", e.size);
    if (e.rank == 0 && o.model)
        print_bounds(&o, e.size);
    for (i = 0; i < o.nrun; i++)
        failed += bench_coll(&e, o.run[i], &o);
    late = (long) max_to_root(&e, (double) late_starts);
    if (e.rank == 0 && late > 0) {
        printf("collbench-late,%ld calls on one rank began after the common "
               "start (START_LEAD too short)\n",
               late);
        failed++;
    }
    if (e.rank == 0)
        printf("collbench-done,%d failed\n", failed);
    fflush(stdout);
    cd_env_free(&e);
    if (sum_op != MPI_SUM)
        MPI_Op_free(&sum_op);
    MPI_Finalize();
    return failed != 0;
}
