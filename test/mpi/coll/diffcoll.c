/*
 * diffcoll.c - randomized differential test: every collective ch4coll
 * intercepts, called through ch4coll (MPI_X) and through the host MPI
 * (PMPI_X) on the same inputs, compared byte for byte.
 *
 * usage: diffcoll [-n N] [-s SEED] [-c COLL] [-v]
 *   -n N      collectives to run (default 300)
 *   -s SEED   random seed (default 1); the same seed replays the same run
 *   -c COLL   only this collective (a ch4coll registry name, e.g. allgatherv)
 *   -v        print each case before running it (for reproducers)
 *
 * Every rank seeds the same generator, so all ranks draw the same sequence
 * of iterations.  An iteration draws its communicator and a seed; the
 * members of that communicator then draw the collective, count, root, op,
 * datatypes and in-place from the seed (they agree: same seed, same size),
 * and the others skip it.  The communicators, made at start:
 *
 *   world            MPI_COMM_WORLD
 *   dup(world)       MPI_Comm_dup, freed and duplicated again every
 *                    REDUP_PERIOD iterations (ch4coll's per-communicator
 *                    state must follow)
 *   split(rank%2)    two halves running at once: ceil(p/2) and floor(p/2)
 *                    ranks, an odd size at p = 2, 3, 5, 6
 *   first(p/2+1)     the first ceil(p/2)+1 ranks (the others skip);
 *                    odd at p = 3, 4
 *   reversed(world)  world with ranks in reverse order: rank order of the
 *                    non-commutative op differs from world order
 *
 * Around each collective a wildcard receive (any source, any tag) is
 * pending on the same communicator, completed afterwards by a ring send,
 * followed by an MPI_Sendrecv ring: a schedule message landing in the
 * user's context would be caught by the wildcard (wrong sender or
 * contents), and a user message stolen by the library would leave it
 * unmatched.  (Alone in a communicator the receive names its tag: MPICH
 * 4.0.2's own alltoall(v) would otherwise hand it its message to self.)
 *
 * Buffers, data and references: collcase.c.  Counts are 0..~300 with 0, 1,
 * p-1, p, p+1 favoured, and ~20000 elements now and then (divided by p for
 * collectives with p blocks per buffer, to keep high-p runs short).
 *
 * The host MPI (MPICH 4.0.2) segfaults in an in-place MPI_Reduce at a
 * non-zero root above 2048 bytes.  The reference never calls it that way;
 * when the MPI_Reduce under test may itself go to the host
 * (MPIR_CVAR_CH4COLL_ENABLE=0 or MPIR_CVAR_CH4COLL_REDUCE_ALGORITHM=native)
 * such cases are shrunk to 2048 bytes.
 *
 * Output: a line per mismatch (the case and its first differing byte), and
 * from rank 0 one summary line; exit status 1 on any mismatch or if
 * ch4coll did not run (its ch4coll_get_stats is looked up at run time, so
 * the same source works linked with -lch4coll and with LD_PRELOAD).
 */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collcase.h"

#define DEFAULT_NITER   300
#define DEFAULT_SEED    1
#define MAX_NITER       100000000
#define MAX_SMALL_COUNT 300   /* small counts are drawn in [2, this] */
#define LARGE_COUNT     20000 /* "large" counts: about this many elements */
#define LARGE_SLACK     64    /* large counts vary by up to this (odd ones) */
#define ZERO_PERCENT    8
#define ONE_PERCENT     8
#define NEAR_P_PERCENT  10 /* count p-1, p or p+1 */
#define LARGE_PERCENT   4
#define INPLACE_PERCENT 30
#define AFFINE_PERCENT  25  /* reductions using the non-commutative op */
#define VZERO_PERCENT   25  /* zero entries of v-counts */
#define VMAX            120 /* largest small v-count entry */
#define REDUP_PERIOD    64  /* iterations between re-duplications */
#define MAX_REPORTS     20  /* mismatch lines printed per rank */
#define DESC_LEN        1024
#define MSG_LEN         256

/* Datatype pairs for data movement: send type x smult matches recv type
 * x rmult (same signature; the mixed ones differ in layout). */
typedef struct {
    int stype, smult, rtype, rmult;
} move_types_t;

static const move_types_t move_types[] = {
    {CC_T_INT, 1, CC_T_INT, 1},   {CC_T_DOUBLE, 1, CC_T_DOUBLE, 1},
    {CC_T_CHAR, 1, CC_T_CHAR, 1}, {CC_T_BYTE, 1, CC_T_BYTE, 1},
    {CC_T_VEC, 1, CC_T_VEC, 1},   {CC_T_PAIR, 1, CC_T_PAIR, 1},
    {CC_T_INT, 3, CC_T_VEC, 1},   {CC_T_VEC, 1, CC_T_INT, 3},
    {CC_T_PAIR, 3, CC_T_VEC, 2},  {CC_T_VEC, 2, CC_T_PAIR, 3},
};

/* (datatype, op) pairs MPI defines for reductions: predefined ops on
 * predefined types, user-defined ops on the derived ones. */
typedef struct {
    int type, op;
} red_types_t;

static const red_types_t red_builtin[] = {
    {CC_T_INT, CC_OP_SUM},     {CC_T_INT, CC_OP_MAX},
    {CC_T_INT, CC_OP_MIN},     {CC_T_INT, CC_OP_PROD},
    {CC_T_INT, CC_OP_BAND},    {CC_T_INT, CC_OP_BOR},
    {CC_T_INT, CC_OP_BXOR},    {CC_T_DOUBLE, CC_OP_SUM},
    {CC_T_DOUBLE, CC_OP_MAX},  {CC_T_DOUBLE, CC_OP_MIN},
    {CC_T_DOUBLE, CC_OP_PROD}, {CC_T_BYTE, CC_OP_BAND},
    {CC_T_BYTE, CC_OP_BOR},    {CC_T_BYTE, CC_OP_BXOR},
    {CC_T_VEC, CC_OP_USERSUM}, {CC_T_PAIR, CC_OP_USERSUM},
    {CC_T_INT, CC_OP_USERSUM},
};

static const red_types_t red_affine[] = {
    {CC_T_PAIR, CC_OP_AFFINE},
    {CC_T_VEC, CC_OP_AFFINE},
};

#define NELEMS(a) ((int) (sizeof(a) / sizeof((a)[0])))

enum { COMM_WORLD, COMM_DUP, COMM_PARITY, COMM_FIRST, COMM_REVERSED, NCOMMS };

typedef struct {
    const char *name;
    int weight;    /* relative frequency */
    MPI_Comm comm; /* MPI_COMM_NULL where this rank is absent */
} comm_slot_t;

static comm_slot_t comms[NCOMMS] = {
    [COMM_WORLD] = {"world", 30, MPI_COMM_NULL},
    [COMM_DUP] = {"dup(world)", 15, MPI_COMM_NULL},
    [COMM_PARITY] = {"split(rank%2)", 20, MPI_COMM_NULL},
    [COMM_FIRST] = {"first(p/2+1)", 20, MPI_COMM_NULL},
    [COMM_REVERSED] = {"reversed(world)", 15, MPI_COMM_NULL},
};

typedef struct {
    int niter;
    uint64_t seed;
    int only; /* collective, or -1 for all */
    int verbose;
} options_t;

static int world_rank, world_size;

/* ------------------------------------------------------------ options */

static int parse_int(const char *text, long min, long max, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);

    if (*text == '\0' || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    long v;
    int ch;

    o->niter = DEFAULT_NITER;
    o->seed = DEFAULT_SEED;
    o->only = -1;
    o->verbose = 0;
    while ((ch = getopt(argc, argv, "n:s:c:v")) != -1) {
        if (ch == 'n' && parse_int(optarg, 0, MAX_NITER, &v) == 0)
            o->niter = (int) v;
        else if (ch == 's' && parse_int(optarg, 0, INT_MAX, &v) == 0)
            o->seed = (uint64_t) v;
        else if (ch == 'c' && (o->only = cc_coll_from_name(optarg)) >= 0)
            continue;
        else if (ch == 'v')
            o->verbose = 1;
        else
            return -1;
    }
    return optind == argc ? 0 : -1;
}

/* ------------------------------------------------------ communicators */

static int make_comms(void)
{
    int first = (world_size + 1) / 2 + 1;

    comms[COMM_WORLD].comm = MPI_COMM_WORLD;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &comms[COMM_DUP].comm) != MPI_SUCCESS ||
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank,
                       &comms[COMM_PARITY].comm) != MPI_SUCCESS ||
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < first ? 0 : MPI_UNDEFINED,
                       world_rank, &comms[COMM_FIRST].comm) != MPI_SUCCESS ||
        MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank,
                       &comms[COMM_REVERSED].comm) != MPI_SUCCESS)
        return -1;
    return 0;
}

static void free_comms(void)
{
    int i;

    for (i = COMM_DUP; i < NCOMMS; i++)
        if (comms[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i].comm);
}

static int redup(void)
{
    MPI_Comm_free(&comms[COMM_DUP].comm);
    return MPI_Comm_dup(MPI_COMM_WORLD, &comms[COMM_DUP].comm);
}

static int draw_comm(cc_rng_t *r)
{
    int total = 0, i, x;

    for (i = 0; i < NCOMMS; i++)
        total += comms[i].weight;
    x = cc_below(r, total);
    for (i = 0; x >= comms[i].weight; i++)
        x -= comms[i].weight;
    return i;
}

/* ------------------------------------------------------------- drawing */

static int per_block(int coll)
{
    return coll == CC_ALLGATHER || coll == CC_ALLTOALL || coll == CC_GATHER ||
           coll == CC_SCATTER || coll == CC_REDUCE_SCATTER_BLOCK;
}

static int draw_count(cc_rng_t *r, int coll, int size)
{
    int x = cc_below(r, 100);
    int div = per_block(coll) ? size : 1;

    if (x < ZERO_PERCENT)
        return 0;
    x -= ZERO_PERCENT;
    if (x < ONE_PERCENT)
        return 1;
    x -= ONE_PERCENT;
    if (x < NEAR_P_PERCENT) /* p-1, p or p+1 */
        return size - 1 + cc_below(r, 3);
    x -= NEAR_P_PERCENT;
    if (x < LARGE_PERCENT)
        return (LARGE_COUNT + cc_below(r, LARGE_SLACK)) / div;
    return 2 + cc_below(r, MAX_SMALL_COUNT - 1);
}

/* n entries, some zero; symmetric (n = size*size) for in-place alltoallv,
 * whose blocks to and from a peer share one place. */
static void draw_vcounts(cc_rng_t *r, int *v, int n, int size, int symmetric)
{
    int large = cc_percent(r, LARGE_PERCENT);
    int max = large ? LARGE_COUNT / size : VMAX, i, j;

    for (i = 0; i < n; i++)
        v[i] = cc_percent(r, VZERO_PERCENT) ? 0 : 1 + cc_below(r, max);
    for (i = 0; symmetric && i < size; i++)
        for (j = 0; j < i; j++)
            v[i * size + j] = v[j * size + i];
}

static void draw_types(cc_rng_t *r, cc_params_t *p)
{
    const move_types_t *m;
    const red_types_t *t;

    if (!cc_is_reduction(p->coll)) {
        m = &move_types[cc_below(r, NELEMS(move_types))];
        p->stype = m->stype;
        p->smult = m->smult;
        p->rtype = m->rtype;
        p->rmult = m->rmult;
        p->op = CC_OP_NONE;
        return;
    }
    t = cc_percent(r, AFFINE_PERCENT)
            ? &red_affine[cc_below(r, NELEMS(red_affine))]
            : &red_builtin[cc_below(r, NELEMS(red_builtin))];
    p->stype = p->rtype = t->type;
    p->smult = p->rmult = 1;
    p->op = t->op;
}

/* MPICH 4.0.2's in-place reduce crash (see the opening comment). */
static void avoid_host_crash(cc_params_t *p)
{
    int max = CC_HOST_INPLACE_REDUCE_MAX_BYTES / cc_type_size(p->stype);

    if (p->coll == CC_REDUCE && p->inplace && p->root != 0 &&
        cc_host_may_run(CC_REDUCE) && p->count > max)
        p->count = max;
}

static void draw_params(cc_rng_t *r, int coll, int size, cc_params_t *p,
                        int *vcounts)
{
    int nv = coll == CC_ALLTOALLV ? size * size : size;

    p->coll = coll;
    p->seed = cc_next(r);
    p->root = cc_below(r, size);
    p->inplace = cc_inplace_allowed(coll) && cc_percent(r, INPLACE_PERCENT);
    draw_types(r, p);
    p->count = draw_count(r, coll, size);
    p->vcounts = NULL;
    if (coll == CC_GATHERV || coll == CC_SCATTERV || coll == CC_ALLGATHERV ||
        coll == CC_ALLTOALLV || coll == CC_REDUCE_SCATTER) {
        draw_vcounts(r, vcounts, nv, size, coll == CC_ALLTOALLV && p->inplace);
        p->vcounts = vcounts;
        p->count = 0;
    }
    avoid_host_crash(p);
}

/* ------------------------------------------------ point-to-point traffic */

/* Ring messages carry (iteration, sender, phase). */
enum { P2P_ITER, P2P_FROM, P2P_PHASE, P2P_LEN };

typedef struct {
    MPI_Request req;
    int box[P2P_LEN];
} p2p_t;

/* Ring tags: P2P_TAG_BASE + iter mod P2P_TAG_BASE, below 32768 (the least
 * MPI_TAG_UB) and far above the small tags MPICH uses for its own
 * collectives (see p2p_post). */
#define P2P_TAG_BASE 16384

static int p2p_tag(int iter)
{
    return P2P_TAG_BASE + iter % P2P_TAG_BASE;
}

/* The pending receive takes any source and any tag, except alone in a
 * communicator.  There MPICH 4.0.2's own MPI_Alltoall / MPI_Alltoallv send
 * to self with tag 9 / 10 in the user's context: a pending receive with
 * that tag or MPI_ANY_TAG takes the message and the collective hangs. */
static void p2p_post(p2p_t *x, MPI_Comm comm, int iter)
{
    int size;

    MPI_Comm_size(comm, &size);
    MPI_Irecv(x->box, P2P_LEN, MPI_INT, MPI_ANY_SOURCE,
              size > 1 ? MPI_ANY_TAG : p2p_tag(iter), comm, &x->req);
}

static int p2p_ok(const int *m, int iter, int from, int phase)
{
    return m[P2P_ITER] == iter && m[P2P_FROM] == from && m[P2P_PHASE] == phase;
}

/* Complete the pending receive by a send to the right, then pass a second
 * message to the right with MPI_Sendrecv; 0 if each came from the left in
 * its turn.  Both go rightwards: the only sender to this rank is its left
 * neighbour, whose messages cannot overtake each other, so the wildcard
 * receive can only match the first. */
static int p2p_finish(p2p_t *x, MPI_Comm comm, int iter)
{
    int rank, size, right, left, tag = p2p_tag(iter);
    int msg[P2P_LEN], back[P2P_LEN] = {-1, -1, -1};
    MPI_Status st, st2;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    msg[P2P_ITER] = iter;
    msg[P2P_FROM] = rank;
    msg[P2P_PHASE] = 0;
    MPI_Send(msg, P2P_LEN, MPI_INT, right, tag, comm);
    MPI_Wait(&x->req, &st);
    msg[P2P_PHASE] = 1;
    MPI_Sendrecv(msg, P2P_LEN, MPI_INT, right, tag, back, P2P_LEN, MPI_INT,
                 left, tag, comm, &st2);
    return st.MPI_SOURCE == left && st.MPI_TAG == tag &&
                   p2p_ok(x->box, iter, left, 0) && p2p_ok(back, iter, left, 1)
               ? 0
               : 1;
}

/* ------------------------------------------------------------ running */

static void report(int iter, const cc_case_t *c, const char *what,
                   int *reported)
{
    char desc[DESC_LEN];

    if (++*reported > MAX_REPORTS)
        return;
    cc_describe(c, desc, sizeof desc);
    printf("diffcoll: MISMATCH iter %d world rank %d (comm rank %d): %s: %s\n",
           iter, world_rank, c->rank, desc, what);
    fflush(stdout);
}

static int run_case(int iter, const cc_params_t *prm, const options_t *o,
                    int *reported)
{
    cc_case_t c;
    p2p_t x;
    char desc[DESC_LEN], msg[MSG_LEN];
    int bad;

    if (cc_prepare(&c, prm) != 0) {
        fprintf(stderr, "diffcoll: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (o->verbose && c.rank == 0) {
        cc_describe(&c, desc, sizeof desc);
        printf("diffcoll: iter %d: %s\n", iter, desc);
        fflush(stdout);
    }
    p2p_post(&x, prm->comm, iter);
    bad = cc_run(&c) != MPI_SUCCESS || cc_expect(&c) != MPI_SUCCESS;
    if (bad)
        report(iter, &c, "an MPI call failed", reported);
    else if ((bad = cc_check(&c, msg, sizeof msg)))
        report(iter, &c, msg, reported);
    if (p2p_finish(&x, prm->comm, iter)) {
        report(iter, &c, "point-to-point ring message mismatched", reported);
        bad = 1;
    }
    cc_release(&c);
    return bad;
}

static int run_all(const options_t *o)
{
    cc_rng_t world = {o->seed};
    cc_params_t prm;
    int *vcounts =
        malloc(sizeof(int) * (size_t) world_size * (size_t) world_size);
    int it, errors = 0, reported = 0, kind, size;

    for (it = 0; vcounts && it < o->niter; it++) {
        cc_rng_t r = {cc_next(&world)};
        kind = draw_comm(&r);
        memset(&prm, 0, sizeof prm);
        prm.coll = o->only >= 0 ? o->only : cc_below(&r, CC_NCOLL);
        prm.comm = comms[kind].comm;
        prm.comm_name = comms[kind].name;
        if (prm.comm != MPI_COMM_NULL) {
            MPI_Comm_size(prm.comm, &size);
            draw_params(&r, prm.coll, size, &prm, vcounts);
            errors += run_case(it, &prm, o, &reported);
        }
        if ((it + 1) % REDUP_PERIOD == 0 && redup() != MPI_SUCCESS)
            errors++;
    }
    free(vcounts);
    return vcounts ? errors : errors + 1;
}

/* ---------------------------------------------------------- statistics */

/* Would any collective of this run go through a ch4coll schedule? */
static int expect_module_calls(const options_t *o)
{
    int coll;

    for (coll = 0; coll < CC_NCOLL; coll++)
        if ((o->only < 0 || o->only == coll) && !cc_host_may_run(coll))
            return 1;
    return 0;
}

/* Sum the counters over all ranks; 0 if they show ch4coll did (or, when
 * disabled, did not) run schedules. */
static int check_stats(const options_t *o, char *line, size_t len)
{
    ch4coll_stats_t st;
    unsigned long long mine[2], sum[2];
    int want = expect_module_calls(o);

    cc_get_stats(&st);
    mine[0] = (unsigned long long) st.calls;
    mine[1] = (unsigned long long) st.native_calls;
    PMPI_Allreduce(mine, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                   MPI_COMM_WORLD);
    snprintf(line, len, "ch4coll calls=%llu native_calls=%llu over all ranks",
             sum[0], sum[1]);
    if (o->niter == 0)
        return 0;
    return want ? sum[0] == 0 : sum[0] != 0 || sum[1] == 0;
}

/* ---------------------------------------------------------------- main */

static int finish(int status)
{
    free_comms();
    cc_finalize();
    MPI_Finalize();
    return status;
}

int main(int argc, char **argv)
{
    options_t o;
    ch4coll_stats_t st;
    char line[MSG_LEN];
    int errors, total, stats_bad;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (parse_options(argc, argv, &o) != 0) {
        if (world_rank == 0)
            fprintf(stderr,
                    "usage: diffcoll [-n N] [-s SEED] [-c COLL] [-v]\n");
        MPI_Finalize();
        return 2;
    }
    if (cc_get_stats(&st) != 0) {
        if (world_rank == 0)
            fprintf(stderr,
                    "diffcoll: FAIL: ch4coll_get_stats not found: "
                    "preload libch4coll.so (LD_PRELOAD) or link -lch4coll\n");
        MPI_Finalize();
        return 1;
    }
    if (cc_init() != 0 || make_comms() != 0) {
        fprintf(stderr, "diffcoll: setup failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    errors = run_all(&o);
    PMPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    stats_bad = check_stats(&o, line, sizeof line);
    if (world_rank == 0 && total == 0 && !stats_bad)
        printf("diffcoll: %d collectives, all equal (%s)\n", o.niter, line);
    else if (world_rank == 0)
        printf("diffcoll: FAIL: %d collectives, %d mismatches%s (%s)\n",
               o.niter, total, stats_bad ? ", ch4coll statistics wrong" : "",
               line);
    fflush(stdout); /* the verdict is out before MPI_Finalize */
    return finish(total || stats_bad ? 1 : 0);
}
