/*
 * diffcoll.c - randomized differential test: every collective ch4coll
 * intercepts, called through ch4coll (MPI_X) and through the host MPI
 * (PMPI_X) on the same inputs, compared byte for byte.
 *
 * usage: diffcoll [-m MODE] [-n N] [-s SEED] [-c COLL[,COLL...]] [-v]
 *   -m MODE   blocking (default): MPI_X, one collective at a time;
 *             nonblocking: batches of MPI_I<coll> in flight at once;
 *             persistent: batches of MPI_<coll>_init requests, each run
 *             2..4 times with MPI_Start / MPI_Startall
 *   -n N      collectives to run (default 300; persistent: requests made)
 *   -s SEED   random seed (default 1); the same seed and process count
 *             replay the same run
 *   -c COLLS  only these collectives (ch4coll registry names, e.g.
 *             allgatherv, or a comma-separated list: bcast,allreduce),
 *             each iteration draws one of them
 *   -v        print each case before running it, and in the batch modes
 *             (nonblocking, persistent) each rank's start steps and
 *             completion call of every run (for reproducers)
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
 * Nonblocking and persistent modes.  An iteration is a batch of 1..8
 * collectives, each drawn as above (its own communicator, members only),
 * all in flight at once on this rank, each on its own buffers.  With them,
 * on every communicator the batch uses, the wildcard receive is pending and
 * the ring send that completes it is a request (MPI_Isend) started among
 * the collectives.  Then every request, collective and point-to-point
 * mixed in one array (in an order of the rank's own), completes with a
 * call this rank draws from its own random stream, so ranks differ:
 * MPI_Waitall; MPI_Waitany, MPI_Waitsome, MPI_Testall, MPI_Testany or
 * MPI_Testsome in a loop; MPI_Wait on each in a random order; or
 * MPI_Request_get_status on each until all are done, then MPI_Wait.  Only
 * then does the rank compare each result with its reference and finish
 * the rings (a blocking host call while a peer still needs this rank's
 * part of a schedule would hang: nothing would move it).
 *
 * Order of the starts.  MPI wants the collectives of one communicator
 * started in the same order on all its ranks; across communicators each
 * rank may interleave them as it likes.  A batch draws one of (the same on
 * every rank):
 *   batch order        as drawn;
 *   odd/even           the batch's first two communicators A and B: even
 *                      world ranks start A's collectives first, then B's,
 *                      odd ranks B's first, then the rest in batch order;
 *   per-rank merge     each rank interleaves the communicators' queues at
 *                      random (its own stream), keeping each queue's order;
 *   any (persistent)   MPI matches persistent collectives in the order of
 *                      their init calls and lets ranks start them in any
 *                      order: a per-rank shuffle, even within one
 *                      communicator.
 * Persistent requests are made in batch order (MPI_<coll>_init, info
 * MPI_INFO_NULL), then the whole batch runs 2..4 times: input refilled
 * with new data (collcase's cc_refill), started with MPI_Startall on the
 * rank's order or with one MPI_Start each (the rank draws which), completed
 * as above, every run checked; then MPI_Request_free.
 *
 * ch4coll sets up a communicator's state at its first collective of any
 * kind.  The batch modes start with an MPI_Barrier on each communicator
 * but world (whose state MPI_Init makes), and after a re-duplication
 * dup(world) gets one only every other time in nonblocking mode: for half
 * of the run its first collective is a nonblocking one, whose setup
 * ch4coll completes in the background (doc/nonblocking.md).
 * These barriers are kept out of the statistics check.  -n counts
 * collectives in all modes (the last batch is cut short); dup(world) is
 * re-duplicated after the batch that passes each multiple of REDUP_PERIOD
 * collectives.  The host's nonblocking and persistent collectives have
 * bugs of their own, which the batch modes step around where the host may
 * run a case (see host_may_run): a persistent request runs once there.
 *
 * Buffers, data and references: collcase.c.  Counts are 0..~300 with 0, 1,
 * p-1, p, p+1 favoured, and ~20000 elements now and then (divided by p for
 * collectives with p blocks per buffer, to keep high-p runs short).
 *
 * The host MPI (MPICH 4.0.2) segfaults in an in-place MPI_Reduce at a
 * non-zero root above 2048 bytes.  The reference never calls it that way;
 * when the MPI_Reduce under test may itself go to the host
 * (MPIR_CVAR_CH4COLL_ENABLE=0 or MPIR_CVAR_CH4COLL_REDUCE_ALGORITHM=native)
 * such cases are shrunk to 2048 bytes.  The host's MPI_Ireduce and
 * MPI_Reduce_init do not have the bug (checked up to 20000 ints at p = 2..6),
 * so the nonblocking modes draw these cases unshrunk.
 *
 * Output: a line per mismatch (the case and its first differing byte), and
 * from rank 0 one summary line naming the mode; exit status 1 on any
 * mismatch or if ch4coll did not run (its ch4coll_get_stats is looked up at
 * run time, so the same source works linked with -lch4coll and with
 * LD_PRELOAD).
 */
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collcase.h"

#define DEFAULT_NITER    300
#define DEFAULT_SEED     1
#define MAX_NITER        100000000
#define MAX_SMALL_COUNT  300   /* small counts are drawn in [2, this] */
#define LARGE_COUNT      20000 /* "large" counts: about this many elements */
#define LARGE_SLACK      64    /* large counts vary by up to this (odd ones) */
#define ZERO_PERCENT     8
#define ONE_PERCENT      8
#define NEAR_P_PERCENT   10 /* count p-1, p or p+1 */
#define LARGE_PERCENT    4
#define INPLACE_PERCENT  30
#define AFFINE_PERCENT   25  /* reductions using the non-commutative op */
#define VZERO_PERCENT    25  /* zero entries of v-counts */
#define VMAX             120 /* largest small v-count entry */
#define REDUP_PERIOD     64  /* iterations between re-duplications */
#define MAX_REPORTS      20  /* mismatch lines printed per rank */
#define DESC_LEN         1024
#define MSG_LEN          256
#define WHERE_LEN        64
#define MAX_BATCH        8 /* collectives in flight at once (batch modes) */
#define MIN_RUNS         2 /* runs of a persistent request */
#define MAX_RUNS         4
#define STARTALL_PERCENT 50 /* persistent: MPI_Startall, else MPI_Start */
#define RANK_STREAM      UINT64_C(0x5EED0F4A2C) /* this rank's own draws */
#define RUN_STREAM       UINT64_C(0xDA7A5EED)   /* data of later runs */

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

enum { MODE_BLOCKING, MODE_NONBLOCKING, MODE_PERSISTENT, NMODES };

static const char *const mode_names[NMODES] = {"blocking", "nonblocking",
                                               "persistent"};

typedef struct {
    int niter;
    uint64_t seed;
    int only[CC_NCOLL]; /* the collectives drawn (-c), */
    int nonly;          /* how many; 0 for all */
    int mode;           /* MODE_* */
    int verbose;
} options_t;

static int world_rank, world_size;

/* ch4coll's counts of the warm-up barriers (batch modes), kept out of the
 * statistics check. */
static uint64_t warm_calls, warm_native;

/* Communicator slots whose ch4coll state exists (batch modes): world's is
 * made in MPI_Init, the others' by warm_up. */
static int warmed[NCOMMS] = {[COMM_WORLD] = 1};

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

static int mode_from_name(const char *name)
{
    int i;

    for (i = 0; i < NMODES; i++)
        if (strcmp(name, mode_names[i]) == 0)
            return i;
    return -1;
}

/* -c: one collective or a comma-separated list, each named once. */
static int parse_colls(const char *text, options_t *o)
{
    char buf[512], *save = NULL, *name;
    int coll, i;

    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    o->nonly = 0;
    for (name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if ((coll = cc_coll_from_name(name)) < 0)
            return -1;
        for (i = 0; i < o->nonly; i++)
            if (o->only[i] == coll)
                return -1;
        o->only[o->nonly++] = coll;
    }
    return o->nonly > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    long v;
    int ch;

    o->niter = DEFAULT_NITER;
    o->seed = DEFAULT_SEED;
    o->nonly = 0;
    o->mode = MODE_BLOCKING;
    o->verbose = 0;
    while ((ch = getopt(argc, argv, "m:n:s:c:v")) != -1) {
        if (ch == 'm' && (o->mode = mode_from_name(optarg)) >= 0)
            continue;
        else if (ch == 'n' && parse_int(optarg, 0, MAX_NITER, &v) == 0)
            o->niter = (int) v;
        else if (ch == 's' && parse_int(optarg, 0, INT_MAX, &v) == 0)
            o->seed = (uint64_t) v;
        else if (ch == 'c' && parse_colls(optarg, o) == 0)
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
    warmed[COMM_DUP] = 0;
    MPI_Comm_free(&comms[COMM_DUP].comm);
    return MPI_Comm_dup(MPI_COMM_WORLD, &comms[COMM_DUP].comm);
}

/* A blocking collective through ch4coll on a slot's communicator, which
 * makes its state (until then its nonblocking and persistent collectives go
 * to the host); its counts are set aside. */
static void warm_up(int kind)
{
    ch4coll_stats_t a, b;

    warmed[kind] = 1;
    if (comms[kind].comm == MPI_COMM_NULL)
        return;
    cc_get_stats(&a);
    MPI_Barrier(comms[kind].comm);
    cc_get_stats(&b);
    warm_calls += b.calls - a.calls;
    warm_native += b.native_calls - a.native_calls;
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
}

/* ------------------------------------------------ point-to-point traffic */

/* Ring messages carry (stamp, sender, phase); the stamp is the iteration,
 * or in persistent mode the batch and the run. */
enum { P2P_ITER, P2P_FROM, P2P_PHASE, P2P_LEN };

typedef struct {
    MPI_Request req; /* the pending wildcard receive */
    int box[P2P_LEN];
    MPI_Request sreq; /* batch modes: the ring send completing it */
    int out[P2P_LEN];
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

static void ring_peers(MPI_Comm comm, int *rank, int *left, int *right)
{
    int size;

    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, &size);
    *right = (*rank + 1) % size;
    *left = (*rank + size - 1) % size;
}

static void p2p_message(int *m, int stamp, int from, int phase)
{
    m[P2P_ITER] = stamp;
    m[P2P_FROM] = from;
    m[P2P_PHASE] = phase;
}

static int p2p_ok(const int *m, int iter, int from, int phase)
{
    return m[P2P_ITER] == iter && m[P2P_FROM] == from && m[P2P_PHASE] == phase;
}

/* Batch modes: the first ring message, as a request. */
static void p2p_isend(p2p_t *x, MPI_Comm comm, int iter, int stamp)
{
    int rank, left, right;

    ring_peers(comm, &rank, &left, &right);
    p2p_message(x->out, stamp, rank, 0);
    MPI_Isend(x->out, P2P_LEN, MPI_INT, right, p2p_tag(iter), comm, &x->sreq);
}

/* The pending receive is complete (status st): pass a second message to
 * the right with MPI_Sendrecv; 0 if each came from the left in its turn.
 * Both go rightwards: the only sender to this rank is its left neighbour,
 * whose messages cannot overtake each other, so the wildcard receive can
 * only match the first. */
static int p2p_second(const p2p_t *x, const MPI_Status *st, MPI_Comm comm,
                      int iter, int stamp)
{
    int rank, right, left, tag = p2p_tag(iter);
    int msg[P2P_LEN], back[P2P_LEN] = {-1, -1, -1};
    MPI_Status st2;

    ring_peers(comm, &rank, &left, &right);
    p2p_message(msg, stamp, rank, 1);
    MPI_Sendrecv(msg, P2P_LEN, MPI_INT, right, tag, back, P2P_LEN, MPI_INT,
                 left, tag, comm, &st2);
    return st->MPI_SOURCE == left && st->MPI_TAG == tag &&
                   p2p_ok(x->box, stamp, left, 0) &&
                   p2p_ok(back, stamp, left, 1)
               ? 0
               : 1;
}

/* Blocking mode: complete the pending receive by a send to the right, then
 * the second message. */
static int p2p_finish(p2p_t *x, MPI_Comm comm, int iter)
{
    int rank, right, left, msg[P2P_LEN];
    MPI_Status st;

    ring_peers(comm, &rank, &left, &right);
    p2p_message(msg, iter, rank, 0);
    MPI_Send(msg, P2P_LEN, MPI_INT, right, p2p_tag(iter), comm);
    MPI_Wait(&x->req, &st);
    return p2p_second(x, &st, comm, iter, iter);
}

/* ------------------------------------------------------------ running */

/* where: "iter 12", "batch 3 item 1 run 0"; c NULL: no case (a ring). */
static void report(const char *where, const cc_case_t *c, const char *what,
                   int *reported)
{
    char desc[DESC_LEN];

    if (++*reported > MAX_REPORTS)
        return;
    if (c) {
        cc_describe(c, desc, sizeof desc);
        printf("diffcoll: MISMATCH %s world rank %d (comm rank %d): %s: %s\n",
               where, world_rank, c->rank, desc, what);
    } else {
        printf("diffcoll: MISMATCH %s world rank %d: %s\n", where, world_rank,
               what);
    }
    fflush(stdout);
}

static int run_case(int iter, const cc_params_t *prm, const options_t *o,
                    int *reported)
{
    cc_case_t c;
    p2p_t x;
    char desc[DESC_LEN], msg[MSG_LEN], where[WHERE_LEN];
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
    snprintf(where, sizeof where, "iter %d", iter);
    p2p_post(&x, prm->comm, iter);
    bad = cc_run(&c) != MPI_SUCCESS || cc_expect(&c) != MPI_SUCCESS;
    if (bad)
        report(where, &c, "an MPI call failed", reported);
    else if ((bad = cc_check(&c, msg, sizeof msg)))
        report(where, &c, msg, reported);
    if (p2p_finish(&x, prm->comm, iter)) {
        report(where, &c, "point-to-point ring message mismatched", reported);
        bad = 1;
    }
    cc_release(&c);
    return bad;
}

/* One collective from r: its communicator slot and collective (every
 * rank), then its parameters (the members, who agree); 1 if this rank is a
 * member. */
static int draw_collective(cc_rng_t *r, const options_t *o, cc_params_t *prm,
                           int *vcounts, int *kind)
{
    int size;

    *kind = draw_comm(r);
    memset(prm, 0, sizeof *prm);
    if (o->nonly == 0)
        prm->coll = cc_below(r, CC_NCOLL);
    else
        prm->coll = o->only[o->nonly == 1 ? 0 : cc_below(r, o->nonly)];
    prm->comm = comms[*kind].comm;
    prm->comm_name = comms[*kind].name;
    if (prm->comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_size(prm->comm, &size);
    draw_params(r, prm->coll, size, prm, vcounts);
    return 1;
}

static int *new_vcounts(void)
{
    return malloc(sizeof(int) * (size_t) world_size * (size_t) world_size);
}

static int run_all(const options_t *o)
{
    cc_rng_t world = {o->seed};
    cc_params_t prm;
    int *vcounts = new_vcounts();
    int it, errors = 0, reported = 0, kind;

    for (it = 0; vcounts && it < o->niter; it++) {
        cc_rng_t r = {cc_next(&world)};
        if (draw_collective(&r, o, &prm, vcounts, &kind)) {
            avoid_host_crash(&prm);
            errors += run_case(it, &prm, o, &reported);
        }
        if ((it + 1) % REDUP_PERIOD == 0 && redup() != MPI_SUCCESS)
            errors++;
    }
    free(vcounts);
    return vcounts ? errors : errors + 1;
}

/* ------------------------------------------------------------ batches */

/* Start orders (see the opening comment), the same on every rank. */
enum { ORDER_BATCH, ORDER_PARITY, ORDER_MERGE, ORDER_ANY, NORDERS };

static const char *const order_names[NORDERS] = {"batch order", "odd/even",
                                                 "per-rank merge", "any order"};

/* Completion calls; each rank draws its own. */
enum {
    DONE_WAITALL,
    DONE_WAITANY,
    DONE_WAITSOME,
    DONE_TESTALL,
    DONE_TESTANY,
    DONE_TESTSOME,
    DONE_WAIT_EACH,
    DONE_GET_STATUS,
    NDONE
};

static const char *const done_names[NDONE] = {
    "MPI_Waitall",
    "MPI_Waitany loop",
    "MPI_Waitsome loop",
    "MPI_Testall loop",
    "MPI_Testany loop",
    "MPI_Testsome loop",
    "MPI_Wait on each in a random order",
    "MPI_Request_get_status polling, then MPI_Wait"};

#define MAX_REQS (MAX_BATCH + 2 * NCOMMS)

typedef struct {
    int kind;   /* communicator slot */
    int member; /* this rank takes part */
    int nruns;  /* members: runs of this collective (see host_runs_once) */
    cc_params_t prm;
    int *vcounts;
    cc_case_t c; /* members: prepared */
    MPI_Request req;
} item_t;

typedef struct {
    int id;      /* batch number: ring tags and messages */
    int n;       /* collectives */
    int form;    /* CC_FORM_* */
    int order;   /* ORDER_* */
    int pair[2]; /* ORDER_PARITY: slots A (even ranks first) and B */
    int nruns;   /* 1; persistent 2..4 */
    int run;     /* the current run */
    item_t item[MAX_BATCH];
    int ring[NCOMMS]; /* this run has a ring on that slot */
    p2p_t p2p[NCOMMS];
} batch_t;

/* A start step or a request: item index, the ring send or receive on slot
 * index, or MPI_Startall over the batch. */
enum { STEP_ITEM, STEP_SEND, STEP_RECV, STEP_STARTALL };

typedef struct {
    int what, index;
} step_t;

/* The payload stamp of a ring message. */
static int stamp_of(const batch_t *b, int run)
{
    return b->id * MAX_RUNS + run;
}

static void shuffle(cc_rng_t *r, int *a, int n)
{
    int i, j, t;

    for (i = n - 1; i > 0; i--) {
        j = cc_below(r, i + 1);
        t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Does item i take part in the current run? */
static int live(const batch_t *b, int i)
{
    return b->run < b->item[i].nruns;
}

/* Host bugs.  A nonblocking or persistent collective goes to the host MPI
 * (MPICH 4.0.2) where MPIR_CVAR_CH4COLL_ENABLE=0 or a forced native says
 * so (ch4coll runs a native persistent one as the host's nonblocking
 * collective at each start, which avoids the persistent bugs below, but
 * this test does not count on it).  There:
 *  - MPI_Iallgatherv alone in a communicator ignores displs[0], as the
 *    blocking one does (collcase.c): such a case runs in place;
 *  - persistent collectives do not survive a second MPI_Start.
 *    MPI_Allgather_init (recursive doubling, power-of-two sizes) gets the
 *    peers' blocks wrong from the second run on, and releases a reference
 *    on a derived receive datatype at the end of every run while holding
 *    one: MPICH's assertion "ref_count >= 0" aborts the job (cf.
 *    pmodels/mpich#6423);
 *    MPI_Scatter_init's binomial schedule keeps a running count that is not
 *    reset between runs: wrong data at p = 2, "Invalid communicator" at
 *    p = 3, 4 (pmodels/mpich#7550).  Such a request runs once;
 *  - MPI_Testall over persistent collective requests returns
 *    MPI_ERR_IN_STATUS, flag false, once some of them completed: their
 *    statuses say MPI_SUCCESS, the others' MPI_ERR_PENDING.  A run with
 *    such a request does not complete with MPI_Testall (see also
 *    take_completion for the *any and *some calls). */
static int host_may_run(int kind, int coll)
{
    (void) kind; /* ch4coll runs them on a fresh communicator too */
    return cc_host_may_run_nb(coll);
}

static int host_runs_once(const options_t *o, int kind, int coll)
{
    return o->mode == MODE_PERSISTENT && host_may_run(kind, coll);
}

static void avoid_host_bugs_nb(item_t *it)
{
    int size;

    MPI_Comm_size(it->prm.comm, &size);
    if (it->prm.coll == CC_ALLGATHERV && size == 1 &&
        host_may_run(it->kind, it->prm.coll))
        it->prm.inplace = 1;
}

/* Does a live item of this run go to the host's persistent collectives? */
static int host_persistent_live(const batch_t *b)
{
    int i;

    for (i = 0; b->form == CC_FORM_PERSISTENT && i < b->n; i++)
        if (live(b, i) && host_may_run(b->item[i].kind, b->item[i].prm.coll))
            return 1;
    return 0;
}

/* The batch after this many collectives, from the run's stream; every rank
 * draws the same. */
static void draw_batch(cc_rng_t *world, const options_t *o, int id, int left,
                       batch_t *b)
{
    cc_rng_t r = {cc_next(world)};
    int persistent = o->mode == MODE_PERSISTENT, i;

    b->id = id;
    b->run = 0;
    b->form = persistent ? CC_FORM_PERSISTENT : CC_FORM_NONBLOCKING;
    b->n = 1 + cc_below(&r, MAX_BATCH);
    b->n = b->n < left ? b->n : left;
    b->nruns =
        persistent ? MIN_RUNS + cc_below(&r, MAX_RUNS - MIN_RUNS + 1) : 1;
    b->order = cc_below(&r, persistent ? NORDERS : ORDER_ANY);
    for (i = 0; i < b->n; i++) {
        item_t *it = &b->item[i];
        cc_rng_t ri = {cc_next(&r)};
        it->member = draw_collective(&ri, o, &it->prm, it->vcounts, &it->kind);
        if (it->member)
            avoid_host_bugs_nb(it);
        it->nruns = host_runs_once(o, it->kind, it->prm.coll) ? 1 : b->nruns;
        it->nruns = it->member ? it->nruns : 0;
        it->req = MPI_REQUEST_NULL;
    }
    b->pair[0] = b->pair[1] = b->item[0].kind;
    for (i = 1; i < b->n && b->pair[1] == b->pair[0]; i++)
        b->pair[1] = b->item[i].kind;
}

static void prepare_batch(batch_t *b, const options_t *o)
{
    char desc[DESC_LEN];
    int i;

    for (i = 0; i < b->n; i++) {
        item_t *it = &b->item[i];
        if (!it->member)
            continue;
        if (cc_prepare(&it->c, &it->prm) != 0) {
            fprintf(stderr, "diffcoll: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (o->verbose && it->c.rank == 0) {
            cc_describe(&it->c, desc, sizeof desc);
            printf("diffcoll: batch %d item %d (%s, %s, %d run%s): %s\n", b->id,
                   i, mode_names[o->mode], order_names[b->order], it->nruns,
                   it->nruns > 1 ? "s" : "", desc);
            fflush(stdout);
        }
    }
}

static void release_batch(batch_t *b)
{
    int i;

    for (i = 0; i < b->n; i++)
        if (b->item[i].member)
            cc_release(&b->item[i].c);
}

/* A failed call in the batch machinery (rc: its MPI error, or
 * MPI_SUCCESS): nothing sensible follows. */
static void fail(const batch_t *b, const char *what, int rc)
{
    printf("diffcoll: FAIL: batch %d run %d world rank %d: %s failed (MPI "
           "error %d)\n",
           b->id, b->run, world_rank, what, rc);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The rings of this run: on each slot with a live item. */
static void set_rings(batch_t *b)
{
    int i;

    memset(b->ring, 0, sizeof b->ring);
    for (i = 0; i < b->n; i++)
        b->ring[b->item[i].kind] |= live(b, i);
}

/* ------------------------------------------------------- start order */

/* Append the live items of slot kind (-1: any) not in seq[0..m) yet, in
 * batch order; the new length. */
static int append_items(const batch_t *b, int kind, int *seq, int m)
{
    int i, j, placed;

    for (i = 0; i < b->n; i++) {
        if (!live(b, i) || (kind >= 0 && b->item[i].kind != kind))
            continue;
        for (placed = 0, j = 0; j < m; j++)
            placed |= seq[j] == i;
        if (!placed)
            seq[m++] = i;
    }
    return m;
}

/* The nth live item of slot kind. */
static int nth_item(const batch_t *b, int kind, int nth)
{
    int i;

    for (i = 0; i < b->n; i++)
        if (live(b, i) && b->item[i].kind == kind && nth-- == 0)
            return i;
    return -1;
}

/* A uniformly random interleaving of the slots' queues (each queue keeps
 * its order): the next item comes from a slot drawn by what it has left. */
static int merge_order(const batch_t *b, cc_rng_t *mine, int *seq)
{
    int left[NCOMMS] = {0}, taken[NCOMMS] = {0}, total = 0, m, k, x, i;

    for (i = 0; i < b->n; i++)
        if (live(b, i)) {
            left[b->item[i].kind]++;
            total++;
        }
    for (m = 0; m < total; m++) {
        x = cc_below(mine, total - m);
        for (k = 0; x >= left[k]; k++)
            x -= left[k];
        seq[m] = nth_item(b, k, taken[k]++);
        left[k]--;
    }
    return total;
}

/* This rank's order of starting its items; their number. */
static int start_order(const batch_t *b, cc_rng_t *mine, int *seq)
{
    int odd = world_rank % 2, m;

    switch (b->order) {
    case ORDER_PARITY:
        m = append_items(b, b->pair[odd], seq, 0);
        m = append_items(b, b->pair[!odd], seq, m);
        return append_items(b, -1, seq, m);
    case ORDER_MERGE:
        return merge_order(b, mine, seq);
    case ORDER_ANY:
        m = append_items(b, -1, seq, 0);
        shuffle(mine, seq, m);
        return m;
    default:
        return append_items(b, -1, seq, 0);
    }
}

/* This rank's start steps: its items in start order, or one MPI_Startall
 * over them in that order, with each ring send at a random place among
 * them; the number of steps.  seq[0..*m) is the start order. */
static int plan_starts(const batch_t *b, int startall, cc_rng_t *mine, int *seq,
                       int *m, step_t *steps)
{
    int at[NCOMMS], places, n = 0, i, k;

    *m = start_order(b, mine, seq);
    places = startall ? *m > 0 : *m;
    for (k = 0; k < NCOMMS; k++)
        at[k] = b->ring[k] ? cc_below(mine, places + 1) : -1;
    for (i = 0; i <= places; i++) {
        for (k = 0; k < NCOMMS; k++)
            if (at[k] == i)
                steps[n++] = (step_t){STEP_SEND, k};
        if (i < places)
            steps[n++] = startall ? (step_t){STEP_STARTALL, 0}
                                  : (step_t){STEP_ITEM, seq[i]};
    }
    return n;
}

/* -v: "batch 3 run 1 world rank 2: starts 4 ring:world startall(0,2);
 * MPI_Waitsome loop" (item numbers as in the case lines). */
static void print_plan(const batch_t *b, const step_t *steps, int n,
                       const int *seq, int m, int style)
{
    char line[DESC_LEN];
    size_t used = 0, len = sizeof line;
    int i, j;

    line[0] = '\0';
    for (i = 0; i < n && used < len; i++) {
        if (steps[i].what == STEP_SEND)
            used += (size_t) snprintf(line + used, len - used, " ring:%s",
                                      comms[steps[i].index].name);
        else if (steps[i].what == STEP_ITEM)
            used += (size_t) snprintf(line + used, len - used, " %d",
                                      steps[i].index);
        for (j = 0; steps[i].what == STEP_STARTALL && j < m && used < len; j++)
            used += (size_t) snprintf(line + used, len - used, "%s%d%s",
                                      j ? "," : " startall(", seq[j],
                                      j + 1 < m ? "" : ")");
    }
    printf("diffcoll: batch %d run %d world rank %d: starts%s; %s\n", b->id,
           b->run, world_rank, n ? line : " none", done_names[style]);
    fflush(stdout);
}

static int take_step(batch_t *b, const step_t *s, const int *seq, int m,
                     int run)
{
    MPI_Request all[MAX_BATCH];
    item_t *it;
    int i, rc;

    switch (s->what) {
    case STEP_SEND:
        p2p_isend(&b->p2p[s->index], comms[s->index].comm, b->id,
                  stamp_of(b, run));
        return MPI_SUCCESS;
    case STEP_STARTALL:
        for (i = 0; i < m; i++)
            all[i] = b->item[seq[i]].req;
        rc = MPI_Startall(m, all);
        for (i = 0; i < m; i++)
            b->item[seq[i]].req = all[i];
        return rc;
    default:
        it = &b->item[s->index];
        return b->form == CC_FORM_PERSISTENT
                   ? MPI_Start(&it->req)
                   : cc_start(&it->c, CC_FORM_NONBLOCKING, &it->req);
    }
}

/* -------------------------------------------------------- completion */

static void poll_pause(void)
{
    sched_yield(); /* oversubscribed: let the peers run */
}

/* The *any and *some loops work on a copy of the array in which a request
 * they reported is replaced by MPI_REQUEST_NULL (q[i] gets what MPI left:
 * MPI_REQUEST_NULL, or the inactive persistent handle).  MPI lets inactive
 * requests stay in the array, but MPICH 4.0.2 reports an inactive
 * persistent collective request of its own as complete again at every call
 * (fixed upstream by pmodels/mpich#6334), and the host's requests are in
 * the mix here (dup(world) between warm-ups, native selections). */
static void take_completion(MPI_Request *q, MPI_Request *live, int i,
                            const MPI_Status *s, MPI_Status *st)
{
    q[i] = live[i];
    live[i] = MPI_REQUEST_NULL;
    st[i] = *s;
}

static int done_waitany(int n, MPI_Request *q, MPI_Status *st)
{
    MPI_Request live[MAX_REQS];
    MPI_Status s;
    int k, idx, rc = MPI_SUCCESS;

    memcpy(live, q, sizeof(MPI_Request) * (size_t) n);
    for (k = 0; k <= n && rc == MPI_SUCCESS; k++) {
        rc = MPI_Waitany(n, live, &idx, &s);
        if (rc == MPI_SUCCESS && idx == MPI_UNDEFINED)
            return MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            take_completion(q, live, idx, &s, st);
    }
    return rc == MPI_SUCCESS ? MPI_ERR_OTHER : rc; /* more than n completed */
}

static int done_waitsome(int n, MPI_Request *q, MPI_Status *st)
{
    MPI_Request live[MAX_REQS];
    MPI_Status s[MAX_REQS];
    int idx[MAX_REQS], k, j, out, rc = MPI_SUCCESS;

    memcpy(live, q, sizeof(MPI_Request) * (size_t) n);
    for (k = 0; k <= n && rc == MPI_SUCCESS; k++) {
        rc = MPI_Waitsome(n, live, &out, idx, s);
        if (rc == MPI_SUCCESS && out == MPI_UNDEFINED)
            return MPI_SUCCESS;
        for (j = 0; rc == MPI_SUCCESS && j < out; j++)
            take_completion(q, live, idx[j], &s[j], st);
    }
    return rc == MPI_SUCCESS ? MPI_ERR_OTHER : rc;
}

static int done_testall(int n, MPI_Request *q, MPI_Status *st)
{
    int flag = 0, rc;

    while ((rc = MPI_Testall(n, q, &flag, st)) == MPI_SUCCESS && !flag)
        poll_pause();
    return rc;
}

static int done_testany(int n, MPI_Request *q, MPI_Status *st)
{
    MPI_Request live[MAX_REQS];
    MPI_Status s;
    int idx, flag, completed = 0, rc;

    memcpy(live, q, sizeof(MPI_Request) * (size_t) n);
    while ((rc = MPI_Testany(n, live, &idx, &flag, &s)) == MPI_SUCCESS) {
        if (flag && idx == MPI_UNDEFINED)
            return MPI_SUCCESS;
        if (flag && ++completed > n)
            return MPI_ERR_OTHER;
        if (flag)
            take_completion(q, live, idx, &s, st);
        else
            poll_pause();
    }
    return rc;
}

static int done_testsome(int n, MPI_Request *q, MPI_Status *st)
{
    MPI_Request live[MAX_REQS];
    MPI_Status s[MAX_REQS];
    int idx[MAX_REQS], j, out, completed = 0, rc;

    memcpy(live, q, sizeof(MPI_Request) * (size_t) n);
    while ((rc = MPI_Testsome(n, live, &out, idx, s)) == MPI_SUCCESS) {
        if (out == MPI_UNDEFINED)
            return MPI_SUCCESS;
        if ((completed += out) > n)
            return MPI_ERR_OTHER;
        for (j = 0; j < out; j++)
            take_completion(q, live, idx[j], &s[j], st);
        if (out == 0)
            poll_pause();
    }
    return rc;
}

static int done_wait_each(int n, MPI_Request *q, MPI_Status *st, cc_rng_t *mine)
{
    int order[MAX_REQS], i, rc = MPI_SUCCESS;

    for (i = 0; i < n; i++)
        order[i] = i;
    shuffle(mine, order, n);
    for (i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = MPI_Wait(&q[order[i]], &st[order[i]]);
    return rc;
}

static int done_get_status(int n, MPI_Request *q, MPI_Status *st)
{
    int flag[MAX_REQS] = {0}, left = n, i, rc = MPI_SUCCESS;

    while (left > 0 && rc == MPI_SUCCESS) {
        for (i = 0; i < n && rc == MPI_SUCCESS; i++)
            if (!flag[i]) {
                rc = MPI_Request_get_status(q[i], &flag[i], &st[i]);
                left -= flag[i] != 0;
            }
        if (left > 0)
            poll_pause();
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = MPI_Wait(&q[i], &st[i]);
    return rc;
}

/* Complete all n requests with the call style names; st[i] gets request
 * i's status. */
static int complete(int style, int n, MPI_Request *q, MPI_Status *st,
                    cc_rng_t *mine)
{
    switch (style) {
    case DONE_WAITALL:
        return MPI_Waitall(n, q, st);
    case DONE_WAITANY:
        return done_waitany(n, q, st);
    case DONE_WAITSOME:
        return done_waitsome(n, q, st);
    case DONE_TESTALL:
        return done_testall(n, q, st);
    case DONE_TESTANY:
        return done_testany(n, q, st);
    case DONE_TESTSOME:
        return done_testsome(n, q, st);
    case DONE_WAIT_EACH:
        return done_wait_each(n, q, st, mine);
    default:
        return done_get_status(n, q, st);
    }
}

static MPI_Request *request_of(batch_t *b, const step_t *w)
{
    return w->what == STEP_ITEM   ? &b->item[w->index].req
           : w->what == STEP_RECV ? &b->p2p[w->index].req
                                  : &b->p2p[w->index].sreq;
}

/* Every request of the run in one array, in an order of this rank's own;
 * who[i] says what reqs[i] is. */
static int gather_requests(batch_t *b, cc_rng_t *mine, step_t *who,
                           MPI_Request *reqs)
{
    step_t all[MAX_REQS];
    int order[MAX_REQS], n = 0, i, k;

    for (i = 0; i < b->n; i++)
        if (live(b, i))
            all[n++] = (step_t){STEP_ITEM, i};
    for (k = 0; k < NCOMMS; k++)
        if (b->ring[k]) {
            all[n++] = (step_t){STEP_RECV, k};
            all[n++] = (step_t){STEP_SEND, k};
        }
    for (i = 0; i < n; i++)
        order[i] = i;
    shuffle(mine, order, n);
    for (i = 0; i < n; i++) {
        who[i] = all[order[i]];
        reqs[i] = *request_of(b, &who[i]);
    }
    return n;
}

/* After completion: a nonblocking request must be MPI_REQUEST_NULL, a
 * persistent one the same (now inactive) handle.  Writes the handles back;
 * the number of wrong ones. */
static int settle_requests(batch_t *b, const step_t *who,
                           const MPI_Request *reqs, int n)
{
    MPI_Request *mine;
    int i, wrong = 0, keep;

    for (i = 0; i < n; i++) {
        mine = request_of(b, &who[i]);
        keep = b->form == CC_FORM_PERSISTENT && who[i].what == STEP_ITEM;
        wrong += keep ? reqs[i] != *mine : reqs[i] != MPI_REQUEST_NULL;
        *mine = reqs[i];
    }
    return wrong;
}

/* ------------------------------------------------------------- checks */

/* Every item against its reference (host collectives in batch order, the
 * same on all ranks), then the second ring message on each slot. */
static int check_run(batch_t *b, int run, const step_t *who,
                     const MPI_Status *st, int n, int *reported)
{
    const MPI_Status *rst[NCOMMS] = {NULL};
    char where[WHERE_LEN], msg[MSG_LEN];
    int errors = 0, i, k;

    for (i = 0; i < n; i++)
        if (who[i].what == STEP_RECV)
            rst[who[i].index] = &st[i];
    for (i = 0; i < b->n; i++) {
        item_t *it = &b->item[i];
        if (!live(b, i))
            continue;
        snprintf(where, sizeof where, "batch %d item %d run %d", b->id, i, run);
        if (cc_expect(&it->c) != MPI_SUCCESS) {
            report(where, &it->c, "the reference failed", reported);
            errors++;
        } else if (cc_check(&it->c, msg, sizeof msg)) {
            report(where, &it->c, msg, reported);
            errors++;
        }
    }
    for (k = 0; k < NCOMMS; k++) {
        if (!b->ring[k] || !p2p_second(&b->p2p[k], rst[k], comms[k].comm, b->id,
                                       stamp_of(b, run)))
            continue;
        snprintf(where, sizeof where, "batch %d run %d", b->id, run);
        snprintf(msg, sizeof msg,
                 "point-to-point ring message on %s mismatched", comms[k].name);
        report(where, NULL, msg, reported);
        errors++;
    }
    return errors;
}

/* ---------------------------------------------------------------- runs */

static uint64_t run_seed(const item_t *it, int run)
{
    return run == 0
               ? it->prm.seed
               : cc_mix(it->prm.seed ^ cc_mix(RUN_STREAM + (uint64_t) run));
}

/* This rank's completion call for the run (not MPI_Testall with the host's
 * persistent requests, see host_persistent_live). */
static int draw_style(const batch_t *b, cc_rng_t *mine)
{
    int n = host_persistent_live(b) ? NDONE - 1 : NDONE;
    int style = cc_below(mine, n);

    return n < NDONE && style >= DONE_TESTALL ? style + 1 : style;
}

/* New input (after the first run), the pending receives, then this rank's
 * start steps. */
static void start_run(batch_t *b, const options_t *o, cc_rng_t *mine, int style)
{
    step_t steps[MAX_REQS];
    int seq[MAX_BATCH], m, nsteps, i, k, rc = MPI_SUCCESS;
    int startall =
        b->form == CC_FORM_PERSISTENT && cc_percent(mine, STARTALL_PERCENT);

    for (i = 0; b->run > 0 && i < b->n; i++)
        if (live(b, i))
            cc_refill(&b->item[i].c, run_seed(&b->item[i], b->run));
    for (k = 0; k < NCOMMS; k++)
        if (b->ring[k])
            p2p_post(&b->p2p[k], comms[k].comm, b->id);
    nsteps = plan_starts(b, startall, mine, seq, &m, steps);
    if (o->verbose)
        print_plan(b, steps, nsteps, seq, m, style);
    for (i = 0; i < nsteps && rc == MPI_SUCCESS; i++)
        rc = take_step(b, &steps[i], seq, m, b->run);
    if (rc != MPI_SUCCESS)
        fail(b, "a start call", rc);
}

/* One run of the batch: start, complete, check. */
static int run_once(batch_t *b, const options_t *o, int run, cc_rng_t *mine,
                    int *reported)
{
    step_t who[MAX_REQS];
    MPI_Request reqs[MAX_REQS];
    MPI_Status st[MAX_REQS];
    int nreq, i, rc, style;

    b->run = run;
    set_rings(b);
    style = draw_style(b, mine);
    start_run(b, o, mine, style);
    nreq = gather_requests(b, mine, who, reqs);
    for (i = 0; i < nreq; i++)
        st[i].MPI_SOURCE = st[i].MPI_TAG = -1;
    if ((rc = complete(style, nreq, reqs, st, mine)) != MPI_SUCCESS)
        fail(b, done_names[style], rc);
    if (settle_requests(b, who, reqs, nreq))
        fail(b,
             "the request handles after completion (a nonblocking one not "
             "MPI_REQUEST_NULL, or a persistent one changed)",
             MPI_SUCCESS);
    return check_run(b, run, who, st, nreq, reported);
}

/* Persistent requests, made in batch order on every rank. */
static void init_requests(batch_t *b)
{
    int i, rc;

    for (i = 0; i < b->n; i++)
        if (b->item[i].member &&
            (rc = cc_start(&b->item[i].c, CC_FORM_PERSISTENT,
                           &b->item[i].req)) != MPI_SUCCESS)
            fail(b, "MPI_<coll>_init", rc);
}

static void free_requests(batch_t *b)
{
    int i, rc;

    for (i = 0; i < b->n; i++)
        if (b->item[i].member &&
            ((rc = MPI_Request_free(&b->item[i].req)) != MPI_SUCCESS ||
             b->item[i].req != MPI_REQUEST_NULL))
            fail(b, "MPI_Request_free", rc);
}

static int run_batch(batch_t *b, const options_t *o, cc_rng_t *mine,
                     int *reported)
{
    int run, errors = 0;

    prepare_batch(b, o);
    if (b->form == CC_FORM_PERSISTENT)
        init_requests(b);
    for (run = 0; run < b->nruns; run++)
        errors += run_once(b, o, run, mine, reported);
    if (b->form == CC_FORM_PERSISTENT)
        free_requests(b);
    release_batch(b);
    return errors;
}

typedef struct {
    int batches, runs; /* runs: collectives started, over all batches */
} tally_t;

/* The nonblocking and persistent modes. */
static int run_batches(const options_t *o, tally_t *t)
{
    cc_rng_t world = {o->seed};
    cc_rng_t mine = {
        cc_mix(o->seed ^ cc_mix(RANK_STREAM + (uint64_t) world_rank))};
    batch_t b;
    int done = 0, errors = 0, reported = 0, redups = 0, i, nomem = 0;

    memset(&b, 0, sizeof b);
    memset(t, 0, sizeof *t);
    for (i = 0; i < MAX_BATCH; i++)
        nomem |= !(b.item[i].vcounts = new_vcounts());
    for (i = COMM_DUP; i < NCOMMS; i++)
        warm_up(i);
    while (!nomem && done < o->niter) {
        draw_batch(&world, o, t->batches++, o->niter - done, &b);
        for (i = 0; i < b.n; i++)
            t->runs += host_runs_once(o, b.item[i].kind, b.item[i].prm.coll)
                           ? 1
                           : b.nruns;
        errors += run_batch(&b, o, &mine, &reported);
        if ((done + b.n) / REDUP_PERIOD != done / REDUP_PERIOD) {
            errors += redup() != MPI_SUCCESS;
            if (++redups % 2 == 0 || o->mode == MODE_PERSISTENT)
                warm_up(COMM_DUP);
        }
        done += b.n;
    }
    for (i = 0; i < MAX_BATCH; i++)
        free(b.item[i].vcounts);
    return errors + nomem;
}

/* ---------------------------------------------------------- statistics */

static int drawn(const options_t *o, int coll)
{
    int i;

    for (i = 0; i < o->nonly; i++)
        if (o->only[i] == coll)
            return 1;
    return o->nonly == 0;
}

/* Would any collective of this run go through a ch4coll schedule? */
static int expect_module_calls(const options_t *o)
{
    int coll;

    for (coll = 0; coll < CC_NCOLL; coll++)
        if (drawn(o, coll) &&
            !(o->mode == MODE_BLOCKING ? cc_host_may_run(coll)
                                       : cc_host_may_run_nb(coll)))
            return 1;
    return 0;
}

/* Sum the counters over all ranks (without the warm-up barriers); 0 if
 * they show ch4coll did (or, when disabled, did not) run schedules. */
static int check_stats(const options_t *o, char *line, size_t len)
{
    ch4coll_stats_t st;
    unsigned long long mine[2], sum[2];
    int want = expect_module_calls(o);

    cc_get_stats(&st);
    mine[0] = (unsigned long long) (st.calls - warm_calls);
    mine[1] = (unsigned long long) (st.native_calls - warm_native);
    PMPI_Allreduce(mine, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                   MPI_COMM_WORLD);
    snprintf(line, len, "ch4coll calls=%llu native_calls=%llu over all ranks",
             sum[0], sum[1]);
    if (o->niter == 0)
        return 0;
    return want ? sum[0] == 0 : sum[0] != 0 || sum[1] == 0;
}

/* ---------------------------------------------------------------- main */

/* "nonblocking: 45 batches" for the summary line. */
static void describe_mode(const options_t *o, const tally_t *t, char *buf,
                          size_t len)
{
    if (o->mode == MODE_BLOCKING)
        snprintf(buf, len, "%s", mode_names[o->mode]);
    else if (o->mode == MODE_NONBLOCKING)
        snprintf(buf, len, "%s: %d batches", mode_names[o->mode], t->batches);
    else
        snprintf(buf, len, "%s: %d batches, %d starts", mode_names[o->mode],
                 t->batches, t->runs);
}

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
    tally_t t = {0, 0};
    char line[MSG_LEN], mode[MSG_LEN];
    int errors, total, stats_bad;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (parse_options(argc, argv, &o) != 0) {
        if (world_rank == 0)
            fprintf(stderr,
                    "usage: diffcoll [-m blocking|nonblocking|"
                    "persistent] [-n N] [-s SEED] [-c COLL[,COLL...]] [-v]\n");
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
    errors = o.mode == MODE_BLOCKING ? run_all(&o) : run_batches(&o, &t);
    PMPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    stats_bad = check_stats(&o, line, sizeof line);
    describe_mode(&o, &t, mode, sizeof mode);
    if (world_rank == 0 && total == 0 && !stats_bad)
        printf("diffcoll: %d collectives, all equal (%s; %s)\n", o.niter, mode,
               line);
    else if (world_rank == 0)
        printf("diffcoll: FAIL: %d collectives, %d mismatches%s (%s; %s)\n",
               o.niter, total, stats_bad ? ", ch4coll statistics wrong" : "",
               mode, line);
    fflush(stdout); /* the verdict is out before MPI_Finalize */
    return finish(total || stats_bad ? 1 : 0);
}
