/*
 * test_units.c - unit tests of the pieces under the algorithms: the
 * schedule (sched/), the in-process executor (transport/loop.c), the
 * schedule cache, the CVAR parser and the rank arithmetic of topo/.
 *
 * What is covered, and why it matters:
 *
 *   scheduler  Hand-built DAGs using every verb (send, recv, copy, reduce,
 *              fence, sink) run for p = 2..4 ranks with their data checked.
 *              The CSR built at commit is compared with the dependency lists
 *              that were given (a fixed DAG and a pseudo-random one): every
 *              vertex has exactly the successors that named it, the roots are
 *              exactly the vertices without dependencies, and -1 entries are
 *              dropped.  Bad input (a dependency on the vertex itself, a later
 *              or nonexistent vertex, a tag >= ntags) makes commit fail with
 *              CH4COLL_ERR_ARG, and a build error is sticky.  A fence must
 *              order everything before it: a copy after a fence is checked to
 *              see data that a receive before it wrote.  A recording transport
 *              checks that roots go out in vertex order and the rest in
 *              dependency order; a chain of copies and reductions through
 *              scratch checks the same through data.  Scratch exists only
 *              after commit.
 *   executor   The loop transport's diagnostics: deadlock (naming the waiting
 *              rank and its peer), a leftover eager message, a size mismatch;
 *              FIFO matching per (source, tag); rendezvous mode catching a
 *              schedule that relies on buffering, which eager mode completes.
 *   no alloc   A committed recursive-doubling allreduce (p = 1..8, in place
 *              and not) run twice on the loop transport with its result
 *              checked: start + run make no library allocation.
 *   cache      Lookup by the raw MPI arguments, v-array contents (and which
 *              array they are) in the key, LRU eviction with refresh on
 *              lookup, eviction by datatype/op handle, and the hit/miss/
 *              eviction counters.
 *   CVARs      Strict integer parsing, algorithm strings with parameters and
 *              their error messages, and ch4coll_config_load() on bad and
 *              good environment values (the configuration is restored).
 *              Leading white space is tested on its own (strtoll() skips it,
 *              so a parser that trusts strtoll() fails that test alone).
 *   topology   Binomial parent/children/span and the recursive-doubling rank
 *              maps (p = 1..130); virtual mesh dims, snake path, Hamiltonian
 *              cycle (p = 1..300); binary blocks and delta_expo_max; the
 *              in-order reduce tree; k-nomial and heap trees, Bruck index
 *              arithmetic and the alltoall permutation (p = 1..200); the
 *              structure of the line schedules; all against brute force.
 *   kernels    Every reduction kernel against the host's MPI_Reduce_local.
 *   clone      ch4coll_sched_clone(): refused before commit; a clone owns
 *              other scratch and outlives its original, running correctly
 *              (twice) after the original is destroyed.
 *   interleaved  Calls in flight together, as nonblocking and persistent
 *              collectives are (harness.h, hz_run_interleaved): ten to eleven
 *              different collectives and algorithms (pipelined, composed,
 *              non-commutative, rooted at p-1, in place), each built once and
 *              cloned into 1 or 3 instances with their own data and tags,
 *              progressed in seeded random orders on one loop world per p in
 *              {1, 2, 3, 5, 7, 12, 17}, eager and rendezvous, every result
 *              checked, then all restarted with new data without allocating.
 *              A deliberately stuck builder checks the deadlock report.
 *
 * Assumptions: MPI is initialised as a singleton (no mpiexec); the loop
 * transport runs every rank in this process, so Check runs in CK_NOFORK mode
 * and each test frees what it creates.  Data is MPI_INT with MPI_SUM.
 */
#include <check.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "harness.h"
#include "core/cache.h"
#include "sched/kernels.h"
#include "sched/sched.h"
#include "select/config.h"
#include "select/tree.h"
#include "topo/blocks.h"
#include "topo/index.h"
#include "topo/mesh.h"
#include "topo/nodes.h"
#include "topo/topo.h"
#include "topo/trees.h"
#include "sched/loop_run.h"
#include "transport/loop.h"
#include "util/util.h"

#define MAXP     8
#define BUFN     64 /* ints per rank buffer */
#define SENTINEL (-1)
#define ERRLEN   2048

static const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};

/* ------------------------------------------------------------- a world */

/* p ranks with one schedule and one send/receive buffer each. */
typedef struct {
    int p;
    ch4coll_sched_t s[MAXP];
    ch4coll_sched_t *sp[MAXP];
    int sbuf[MAXP][BUFN];
    int rbuf[MAXP][BUFN];
    char err[ERRLEN];
} world_t;

static int sval(int r, int i)
{
    return 1000 * (r + 1) + i;
}

static void world_fill(world_t *w)
{
    int r, i;

    for (r = 0; r < w->p; r++)
        for (i = 0; i < BUFN; i++) {
            w->sbuf[r][i] = sval(r, i);
            w->rbuf[r][i] = SENTINEL;
        }
}

static void world_init(world_t *w, int p)
{
    int r;

    memset(w, 0, sizeof *w);
    w->p = p;
    for (r = 0; r < p; r++) {
        ck_assert_int_eq(ch4coll_sched_init(&w->s[r], &int_elem, MPI_SUM, r, p),
                         CH4COLL_OK);
        w->sp[r] = &w->s[r];
    }
    world_fill(w);
}

static void world_commit(world_t *w)
{
    int r;

    for (r = 0; r < w->p; r++)
        ck_assert_msg(ch4coll_sched_commit(&w->s[r]) == CH4COLL_OK,
                      "commit of rank %d: %s", r,
                      ch4coll_strerror(w->s[r].status));
}

/* Start every rank on a fresh loop world and run; returns the run status. */
static int world_run(world_t *w, int eager)
{
    ch4coll_loop_t *loop = ch4coll_loop_create(w->p, eager);
    int r, rc;

    ck_assert_ptr_nonnull(loop);
    for (r = 0; r < w->p; r++)
        ck_assert_int_eq(ch4coll_sched_start(&w->s[r], w->sbuf[r], w->rbuf[r],
                                             0, &ch4coll_transport_loop,
                                             ch4coll_loop_ctx(loop, r)),
                         CH4COLL_OK);
    rc = ch4coll_loop_run(loop, w->sp, w->err, sizeof w->err);
    ch4coll_loop_destroy(loop);
    return rc;
}

static void world_destroy(world_t *w)
{
    int r;

    for (r = 0; r < w->p; r++)
        ch4coll_sched_destroy(&w->s[r]);
}

/* The send buffers must come back unchanged. */
static void check_sendbufs(const world_t *w)
{
    int r, i;

    for (r = 0; r < w->p; r++)
        for (i = 0; i < BUFN; i++)
            ck_assert_int_eq(w->sbuf[r][i], sval(r, i));
}

static size_t ioff(size_t i)
{
    return i * sizeof(int);
}

/* ===================================================== 1. the scheduler */

/*
 * Every verb on p ranks of a ring, n = 4:
 *   recv[0..n)  = s[left] + s[r]                     (send/recv, copy, reduce)
 *   recv[n..2n) = s[r] + s[right]   (the right neighbour's partial, tag 1)
 *   after a fence: recv[n..2n) += recv[0..n), then a sink closes the DAG.
 */
static void build_ring(ch4coll_sched_t *s, int r, int p, size_t n)
{
    int left = (r - 1 + p) % p, right = (r + 1) % p;
    int t = ch4coll_sched_scratch(s, n), d[2], v[9];

    ch4coll_sched_set_ntags(s, 2);
    v[0] = ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_SEND, 0), n, right, 0,
                              0, NULL);
    v[1] = ch4coll_sched_recv(s, ch4coll_ref(t, 0), n, left, 0, 0, NULL);
    v[2] = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                              ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, NULL);
    d[0] = v[1];
    d[1] = v[2];
    v[3] = ch4coll_sched_reduce(s, ch4coll_ref(t, 0),
                                ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 2, d);
    v[4] = ch4coll_sched_send(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), n, left, 1,
                              1, &v[3]);
    v[5] = ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, ioff(n)), n,
                              right, 1, 1, &v[3]);
    v[6] = ch4coll_sched_fence(s);
    v[7] = ch4coll_sched_reduce(s, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                                ch4coll_ref(CH4COLL_BUF_RECV, ioff(n)), n, 1,
                                &v[6]);
    d[0] = v[7];
    d[1] = -1;
    v[8] = ch4coll_sched_sink(s, 2, d);
    ck_assert_int_eq(v[8], 8);
    ck_assert_int_eq(s->status, CH4COLL_OK);
}

/* Fill, run and check build_ring()'s result twice (a committed schedule
 * re-runs). */
static void run_ring(world_t *w, size_t n)
{
    int p = w->p, r, i, run;

    for (run = 0; run < 2; run++) {
        world_fill(w);
        ck_assert_msg(world_run(w, 0) == CH4COLL_OK, "p=%d run %d: %s", p, run,
                      w->err);
        for (r = 0; r < p; r++) {
            int left = (r - 1 + p) % p, right = (r + 1) % p;
            for (i = 0; i < (int) n; i++) {
                int first = sval(left, i) + sval(r, i);
                ck_assert_int_eq(w->rbuf[r][i], first);
                ck_assert_int_eq(w->rbuf[r][n + i],
                                 first + sval(r, i) + sval(right, i));
            }
            for (i = 2 * (int) n; i < BUFN; i++)
                ck_assert_int_eq(w->rbuf[r][i], SENTINEL);
            ck_assert(ch4coll_sched_done(&w->s[r]));
        }
        check_sendbufs(w);
    }
}

START_TEST(test_sched_ring_dag)
{
    int p = _i, r;
    size_t n = 4;
    world_t w;

    world_init(&w, p);
    for (r = 0; r < p; r++)
        build_ring(&w.s[r], r, p, n);
    world_commit(&w);
    run_ring(&w, n);
    world_destroy(&w);
}
END_TEST

/* Compare the committed CSR with the dependency lists deps[v][0..nd[v]). */
#define MAXV 256
#define MAXD 5

static void check_csr(const ch4coll_sched_t *s, int nv, int nd[],
                      int deps[][MAXD])
{
    static int want[MAXV][MAXV];
    int v, j, nroots = 0, nin;

    memset(want, 0, sizeof want);
    for (v = 0; v < nv; v++) {
        nin = 0;
        for (j = 0; j < nd[v]; j++)
            if (deps[v][j] >= 0) {
                want[deps[v][j]][v]++;
                nin++;
            }
        ck_assert_int_eq(s->vtx[v].n_in, nin);
        ck_assert_int_eq(s->indeg[v], nin);
        if (nin == 0) {
            ck_assert_int_lt(nroots, s->nroots);
            ck_assert_int_eq(s->roots[nroots], v); /* in vertex order */
            nroots++;
        }
    }
    ck_assert_int_eq(s->nroots, nroots);
    for (v = 0; v < nv; v++) {
        int cnt = 0;
        for (j = 0; j < nv; j++)
            cnt += want[v][j];
        ck_assert_msg(s->vtx[v].n_out == cnt,
                      "vertex %d: %d successors, expected %d", v,
                      s->vtx[v].n_out, cnt);
        for (j = 0; j < s->vtx[v].n_out; j++) {
            int w = s->succ[s->vtx[v].out_first + j];
            ck_assert(w >= 0 && w < nv);
            ck_assert_msg(want[v][w] > 0, "unexpected edge %d -> %d", v, w);
            want[v][w]--;
        }
    }
}

static void build_deps(ch4coll_sched_t *s, int nv, int nd[], int deps[][MAXD])
{
    int v;

    for (v = 0; v < nv; v++)
        ck_assert_int_eq(ch4coll_sched_sink(s, nd[v], deps[v]), v);
}

START_TEST(test_sched_csr_fixed)
{
    int nd[6] = {0, 1, 1, 2, 0, 3};
    int deps[6][MAXD] = {{0}, {0}, {0}, {1, 2}, {0}, {3, -1, 4}};
    world_t w;

    world_init(&w, 1);
    build_deps(&w.s[0], 6, nd, deps);
    world_commit(&w);
    ck_assert_int_eq(w.s[0].ncomm, 0);
    check_csr(&w.s[0], 6, nd, deps);
    ck_assert_int_eq(w.s[0].vtx[5].n_in, 2); /* the -1 was dropped */
    ck_assert_int_eq(world_run(&w, 0), CH4COLL_OK);
    ck_assert_int_eq(w.s[0].ndone, 6);
    world_destroy(&w);
}
END_TEST

START_TEST(test_sched_csr_random)
{
    static int nd[MAXV], deps[MAXV][MAXD];
    uint32_t x = 12345;
    int v, j;
    world_t w;

    for (v = 0; v < MAXV; v++) {
        nd[v] = v == 0 ? 0 : (int) (x % MAXD);
        for (j = 0; j < nd[v]; j++) {
            x = x * 1103515245u + 12345u;
            /* -1 about one time in eight, repeats allowed */
            deps[v][j] =
                (x >> 16) % 8 == 0 ? -1 : (int) ((x >> 8) % (uint32_t) v);
        }
        x = x * 1103515245u + 12345u;
    }
    world_init(&w, 1);
    build_deps(&w.s[0], MAXV, nd, deps);
    world_commit(&w);
    check_csr(&w.s[0], MAXV, nd, deps);
    ck_assert_int_eq(world_run(&w, 0), CH4COLL_OK);
    ck_assert_int_eq(w.s[0].ndone, MAXV);
    world_destroy(&w);
}
END_TEST

/* A dependency on itself, a later or nonexistent vertex: sticky ERR_ARG. */
START_TEST(test_sched_bad_dep)
{
    int bad[3] = {1, 2, 100}; /* _i selects: itself, later, far away */
    int d[2], rc;
    ch4coll_sched_t s;

    ck_assert_int_eq(ch4coll_sched_init(&s, &int_elem, MPI_SUM, 0, 2),
                     CH4COLL_OK);
    ck_assert_int_eq(ch4coll_sched_sink(&s, 0, NULL), 0);
    d[0] = 0;
    d[1] = bad[_i];
    ck_assert_int_eq(ch4coll_sched_copy(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                        ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 2,
                                        d),
                     -1);
    ck_assert_int_eq(s.status, CH4COLL_ERR_ARG);
    /* later verbs do nothing */
    ck_assert_int_eq(ch4coll_sched_sink(&s, 0, NULL), -1);
    ck_assert_int_eq(ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0), 1,
                                        1, 0, 0, NULL),
                     -1);
    ck_assert_int_eq(ch4coll_sched_fence(&s), -1);
    ck_assert_int_eq(ch4coll_sched_scratch(&s, 4), -1);
    ck_assert_int_eq(s.nv, 1);
    rc = ch4coll_sched_commit(&s);
    ck_assert_int_eq(rc, CH4COLL_ERR_ARG);
    ck_assert_int_eq(s.committed, 0);
    ck_assert_int_ne(
        ch4coll_sched_start(&s, NULL, NULL, 0, &ch4coll_transport_loop, NULL),
        CH4COLL_OK);
    ch4coll_sched_destroy(&s);
}
END_TEST

/* A tag >= the declared ntags is a builder bug caught at commit. */
static int commit_with_tag(int ntags, int tag)
{
    ch4coll_sched_t s;
    int v, rc;

    ck_assert_int_eq(ch4coll_sched_init(&s, &int_elem, MPI_SUM, 0, 2),
                     CH4COLL_OK);
    if (ntags > 0)
        ch4coll_sched_set_ntags(&s, ntags);
    v = ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0), 1, 1, 0, 0,
                           NULL);
    ck_assert_int_eq(v, 0);
    v = ch4coll_sched_recv(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 1, tag, 0,
                           NULL);
    ck_assert_int_eq(v, 1); /* the verb itself accepts it */
    rc = ch4coll_sched_commit(&s);
    ch4coll_sched_destroy(&s);
    return rc;
}

START_TEST(test_sched_bad_tag)
{
    ck_assert_int_eq(commit_with_tag(0, 0), CH4COLL_OK); /* default ntags = 1 */
    ck_assert_int_eq(commit_with_tag(0, 1), CH4COLL_ERR_ARG);
    ck_assert_int_eq(commit_with_tag(3, 2), CH4COLL_OK);
    ck_assert_int_eq(commit_with_tag(3, 3), CH4COLL_ERR_ARG);
    ck_assert_int_eq(commit_with_tag(3, 1000), CH4COLL_ERR_ARG);
}
END_TEST

/* Is there a path from u to v in the committed CSR? */
static int reaches(const ch4coll_sched_t *s, int u, int v)
{
    int j;

    if (u == v)
        return 1;
    for (j = 0; j < s->vtx[u].n_out; j++) {
        int w = s->succ[s->vtx[u].out_first + j];
        if (w <= v && reaches(s, w, v))
            return 1;
    }
    return 0;
}

/*
 * Rank 0 receives into scratch a, then fences; each copy after a fence
 * depends on that fence only, so only the fence's own (implicit) edges keep
 * it from reading a before rank 1's data has arrived:
 *   v0 recv a <- 1 | v1 sink | v2 fence | v3 copy a -> recv[0..n) after v2
 *   v4 fence | v5 copy recv[0..n) -> recv[n..2n) after v4
 * A fence is a vertex like any other: later vertices wait for it only when
 * they name it (unlike MPICH gentran, where a vertex without dependencies
 * added after a fence implicitly depends on it).
 */
/* A view translates peers, tags, the user buffers and start dependencies
 * of the builder it wraps; join waits for the step's last vertices. */
START_TEST(test_sched_view)
{
    static const int peers[2] = {3, 1};
    ch4coll_elem_t e = {MPI_BYTE, 1, 1, 0, 1, 1};
    ch4coll_sched_t s;
    ch4coll_view_t v;
    int first, a, b, j, dep;

    ck_assert_int_eq(ch4coll_sched_init(&s, &e, MPI_OP_NULL, 1, 4), 0);
    a = ch4coll_sched_scratch(&s, 64);
    dep = ch4coll_sched_copy(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                             ch4coll_ref(a, 0), 8, 0, NULL);
    memset(&v, 0, sizeof v);
    v.peers = peers;
    v.size = 2;
    v.tag_base = 5;
    v.io[0] = ch4coll_ref(a, 16);
    v.io[1] = ch4coll_ref(CH4COLL_BUF_RECV, 100);
    v.ndeps = 1;
    v.deps = &dep;
    ch4coll_sched_push_view(&s, &v);
    first = s.nv;
    ck_assert_int_eq(ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 2), 4,
                                        0, 1, 0, NULL),
                     first);
    b = ch4coll_sched_recv(&s, ch4coll_ref(CH4COLL_BUF_RECV, 8), 4, 0, 0, 1,
                           &first);
    ch4coll_sched_set_ntags(&s, 3);
    /* a peer outside the view is an error, not a wrap-around */
    ck_assert_int_eq(ch4coll_sched_pop_view(&s), 3);
    ck_assert_int_eq(s.ntags, 1); /* the outer count is the builder's */
    ck_assert_int_eq(s.vtx[first].peer, 3);
    ck_assert_int_eq(s.vtx[first].tag, 6);
    ck_assert_int_eq(s.vtx[first].a.buf, a);
    ck_assert_int_eq((int) s.vtx[first].a.off, 18);
    ck_assert_int_eq(s.vtx[first].n_in, 1); /* the view's start dependency */
    ck_assert_int_eq(s.deps[s.vtx[first].in_first], dep);
    ck_assert_int_eq(s.vtx[b].a.buf, CH4COLL_BUF_RECV);
    ck_assert_int_eq((int) s.vtx[b].a.off, 108);
    ck_assert_int_eq(s.vtx[b].n_in, 1); /* its own dependency only */
    ck_assert_int_eq(s.deps[s.vtx[b].in_first], first);
    j = ch4coll_sched_join(&s, first);
    ck_assert_int_eq(s.vtx[j].kind, CH4COLL_V_SINK);
    ck_assert_int_eq(s.vtx[j].n_in, 1); /* only the recv is terminal */
    ck_assert_int_eq(s.deps[s.vtx[j].in_first], b);
    ck_assert_int_eq(ch4coll_sched_join(&s, s.nv), -1);
    /* outside the view peers are checked against the schedule again */
    ch4coll_sched_push_view(&s, &v);
    ck_assert_int_lt(ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0), 1,
                                        2, 0, 0, NULL),
                     0);
    ch4coll_sched_pop_view(&s);
    ck_assert_int_eq(s.status, CH4COLL_ERR_ARG);
    ch4coll_sched_destroy(&s);
}
END_TEST

START_TEST(test_sched_fence)
{
    size_t n = 5;
    int a, i, u;
    int f[2];
    world_t w;
    ch4coll_sched_t *s0 = &w.s[0];

    world_init(&w, 2);
    a = ch4coll_sched_scratch(s0, n);
    ck_assert_int_eq(
        ch4coll_sched_recv(s0, ch4coll_ref(a, 0), n, 1, 0, 0, NULL), 0);
    ck_assert_int_eq(ch4coll_sched_sink(s0, 0, NULL), 1);
    f[0] = ch4coll_sched_fence(s0);
    ck_assert_int_eq(ch4coll_sched_copy(s0, ch4coll_ref(a, 0),
                                        ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 1,
                                        &f[0]),
                     3);
    f[1] = ch4coll_sched_fence(s0);
    ck_assert_int_eq(ch4coll_sched_copy(s0, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                                        ch4coll_ref(CH4COLL_BUF_RECV, ioff(n)),
                                        n, 1, &f[1]),
                     5);
    ck_assert_int_eq(f[0], 2);
    ck_assert_int_eq(f[1], 4);
    ck_assert_int_eq(ch4coll_sched_send(&w.s[1],
                                        ch4coll_ref(CH4COLL_BUF_SEND, 0), n, 0,
                                        0, 0, NULL),
                     0);
    world_commit(&w);
    /* every vertex before a fence reaches it */
    for (i = 0; i < 2; i++)
        for (u = 0; u < f[i]; u++)
            ck_assert_msg(reaches(s0, u, f[i]),
                          "vertex %d does not reach fence %d", u, f[i]);
    ck_assert_int_eq(s0->vtx[3].n_in, 1);
    ck_assert_int_eq(s0->vtx[5].n_in, 1);
    ck_assert_int_eq(s0->nroots, 2); /* recv and sink */
    ck_assert_int_eq(s0->roots[0], 0);
    ck_assert_int_eq(s0->roots[1], 1);
    ck_assert_msg(world_run(&w, 0) == CH4COLL_OK, "%s", w.err);
    for (i = 0; i < (int) n; i++) {
        ck_assert_int_eq(w.rbuf[0][i], sval(1, i));
        ck_assert_int_eq(w.rbuf[0][n + i], sval(1, i));
    }
    ck_assert_int_eq(w.rbuf[0][2 * n], SENTINEL);
    world_destroy(&w);
}
END_TEST

/*
 * A chain through scratch that starts with a receive, so nothing in it may
 * run early: t1 <- rank 1; t2 = t1; t2 = t1 + t2; t3 = t2; t3 = t2 + t3;
 * recv[0..n) = t3 = 4 x.  An independent root copies send -> recv[n..2n).
 */
START_TEST(test_sched_chain)
{
    size_t n = 6;
    int t1, t2, t3, v, i;
    world_t w;
    ch4coll_sched_t *s = &w.s[0];

    world_init(&w, 2);
    t1 = ch4coll_sched_scratch(s, n);
    t2 = ch4coll_sched_scratch(s, n);
    t3 = ch4coll_sched_scratch(s, n);
    v = ch4coll_sched_recv(s, ch4coll_ref(t1, 0), n, 1, 0, 0, NULL);
    v = ch4coll_sched_copy(s, ch4coll_ref(t1, 0), ch4coll_ref(t2, 0), n, 1, &v);
    v = ch4coll_sched_reduce(s, ch4coll_ref(t1, 0), ch4coll_ref(t2, 0), n, 1,
                             &v);
    v = ch4coll_sched_copy(s, ch4coll_ref(t2, 0), ch4coll_ref(t3, 0), n, 1, &v);
    v = ch4coll_sched_reduce(s, ch4coll_ref(t2, 0), ch4coll_ref(t3, 0), n, 1,
                             &v);
    v = ch4coll_sched_copy(s, ch4coll_ref(t3, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 1, &v);
    ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                       ch4coll_ref(CH4COLL_BUF_RECV, ioff(n)), n, 0, NULL);
    ch4coll_sched_send(&w.s[1], ch4coll_ref(CH4COLL_BUF_SEND, 0), n, 0, 0, 0,
                       NULL);
    world_commit(&w);
    ck_assert_msg(world_run(&w, 0) == CH4COLL_OK, "%s", w.err);
    for (i = 0; i < (int) n; i++) {
        ck_assert_int_eq(w.rbuf[0][i], 4 * sval(1, i));
        ck_assert_int_eq(w.rbuf[0][n + i], sval(0, i));
    }
    ck_assert_int_eq(w.rbuf[0][2 * n], SENTINEL);
    for (i = 0; i < BUFN; i++)
        ck_assert_int_eq(w.rbuf[1][i], SENTINEL);
    world_destroy(&w);
}
END_TEST

/* A transport that logs the tag of every send/receive it is asked to post,
 * then hands the call to the loop transport. */
#define RECLOG 16

typedef struct {
    void *inner;
    int tags[RECLOG];
    int n;
} rec_ctx_t;

static void rec_log(rec_ctx_t *c, int tag)
{
    if (c->n < RECLOG)
        c->tags[c->n] = tag;
    c->n++;
}

static int rec_isend(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag, void *req)
{
    rec_ctx_t *c = ctx;

    rec_log(c, tag);
    return ch4coll_transport_loop.isend(c->inner, buf, count, dt, peer, tag,
                                        req);
}

static int rec_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag, void *req)
{
    rec_ctx_t *c = ctx;

    rec_log(c, tag);
    return ch4coll_transport_loop.irecv(c->inner, buf, count, dt, peer, tag,
                                        req);
}

static int rec_testsome(void *ctx, int n, void *reqs, int *ndone, int *done)
{
    return ch4coll_transport_loop.testsome(((rec_ctx_t *) ctx)->inner, n, reqs,
                                           ndone, done);
}

static int rec_reduce(void *ctx, const void *in, void *inout, size_t count,
                      MPI_Datatype dt, MPI_Op op)
{
    return ch4coll_transport_loop.reduce(((rec_ctx_t *) ctx)->inner, in, inout,
                                         count, dt, op);
}

static const ch4coll_transport_t rec_transport = {
    .name = "rec",
    .req_size = sizeof(int32_t),
    .isend = rec_isend,
    .irecv = rec_irecv,
    .testsome = rec_testsome,
    .reduce = rec_reduce,
};

/*
 * Rank 0: v0 recv t0 | v1 send t1 after v0 | v2 recv t2 after v1 | v3 send
 * t3 (root).  Roots go out in vertex order, then each vertex only after its
 * dependency completed: the log must read 0 3 1 2.  Rank 1 (all roots): 0 1
 * 2 3.
 */
START_TEST(test_sched_issue_order)
{
    static const int want[2][4] = {{0, 3, 1, 2}, {0, 1, 2, 3}};
    rec_ctx_t ctx[2];
    ch4coll_loop_t *loop;
    world_t w;
    int v, r, i;

    ck_assert_uint_eq(ch4coll_transport_loop.req_size, rec_transport.req_size);
    world_init(&w, 2);
    for (r = 0; r < 2; r++)
        ch4coll_sched_set_ntags(&w.s[r], 4);
    v = ch4coll_sched_recv(&w.s[0], ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 1, 0,
                           0, NULL);
    v = ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, 0), 1, 1, 1,
                           1, &v);
    v = ch4coll_sched_recv(&w.s[0], ch4coll_ref(CH4COLL_BUF_RECV, ioff(1)), 1,
                           1, 2, 1, &v);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, ioff(1)), 1, 1, 3,
                       0, NULL);
    ch4coll_sched_send(&w.s[1], ch4coll_ref(CH4COLL_BUF_SEND, 0), 1, 0, 0, 0,
                       NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 0, 1, 0,
                       NULL);
    ch4coll_sched_send(&w.s[1], ch4coll_ref(CH4COLL_BUF_SEND, ioff(1)), 1, 0, 2,
                       0, NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, ioff(1)), 1, 0, 3,
                       0, NULL);
    world_commit(&w);
    loop = ch4coll_loop_create(2, 0);
    for (r = 0; r < 2; r++) {
        memset(&ctx[r], 0, sizeof ctx[r]);
        ctx[r].inner = ch4coll_loop_ctx(loop, r);
        ck_assert_int_eq(ch4coll_sched_start(&w.s[r], w.sbuf[r], w.rbuf[r], 0,
                                             &rec_transport, &ctx[r]),
                         CH4COLL_OK);
    }
    ck_assert_msg(ch4coll_loop_run(loop, w.sp, w.err, sizeof w.err) ==
                      CH4COLL_OK,
                  "%s", w.err);
    ch4coll_loop_destroy(loop);
    for (r = 0; r < 2; r++) {
        ck_assert_int_eq(ctx[r].n, 4);
        for (i = 0; i < 4; i++)
            ck_assert_msg(ctx[r].tags[i] == want[r][i],
                          "rank %d: issue %d has tag %d, want %d", r, i,
                          ctx[r].tags[i], want[r][i]);
        ck_assert_int_eq(w.rbuf[r][0], sval(1 - r, 0));
        ck_assert_int_eq(w.rbuf[r][1], sval(1 - r, 1));
    }
    world_destroy(&w);
}
END_TEST

/* A transport with only blocking operations, for run_direct: it logs each
 * message ('s' send, 'r' receive, 'x' sendrecv) and a receive delivers
 * 7000 + i; the nonblocking operations must not be used. */
typedef struct {
    char log[8];
    int n;
    int sent0; /* first element of the last message sent */
} blk_ctx_t;

static void blk_log(blk_ctx_t *c, char k)
{
    if (c->n < 7)
        c->log[c->n++] = k;
}

static void blk_deliver(void *buf, size_t count)
{
    size_t i;

    for (i = 0; i < count; i++)
        ((int *) buf)[i] = 7000 + (int) i;
}

static int blk_isend(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag, void *req)
{
    (void) ctx, (void) buf, (void) count, (void) dt, (void) peer, (void) tag;
    (void) req;
    return CH4COLL_ERR_MPI;
}

static int blk_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                     int peer, int tag, void *req)
{
    return blk_isend(ctx, buf, count, dt, peer, tag, req);
}

static int blk_send(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                    int peer, int tag)
{
    (void) count, (void) dt, (void) peer, (void) tag;
    blk_log(ctx, 's');
    ((blk_ctx_t *) ctx)->sent0 = *(const int *) buf;
    return CH4COLL_OK;
}

static int blk_recv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                    int peer, int tag)
{
    (void) dt, (void) peer, (void) tag;
    blk_log(ctx, 'r');
    blk_deliver(buf, count);
    return CH4COLL_OK;
}

static int blk_sendrecv(void *ctx, const void *sbuf, size_t scount, int dst,
                        int stag, void *rbuf, size_t rcount, int src, int rtag,
                        MPI_Datatype dt)
{
    (void) scount, (void) dst, (void) stag, (void) src, (void) rtag, (void) dt;
    blk_log(ctx, 'x');
    ((blk_ctx_t *) ctx)->sent0 = *(const int *) sbuf;
    blk_deliver(rbuf, rcount);
    return CH4COLL_OK;
}

static const ch4coll_transport_t blk_transport = {
    .name = "blocking",
    .req_size = sizeof(int32_t),
    .isend = blk_isend,
    .irecv = blk_irecv,
    .send = blk_send,
    .recv = blk_recv,
    .sendrecv = blk_sendrecv,
};

/*
 * Rank 0 of 2.  Shape 0, an exchange as recursive doubling's at p = 2:
 * v0 copy s[0..2) -> r[2..4) | v1 send s[0..2) | v2 recv r[0..2) |
 * v3 r[2..4) += r[0..2) after v0, v2: one sendrecv, then the reduction.
 * Shape 1: the send after the receive (a chain): not an exchange.
 * Shape 2: three messages: not an exchange.  Shape 3: one send after a
 * copy: a blocking send of the copied data.  Shape 4: a copy and a send
 * that do not depend on each other, the copy first in vertex order: the
 * send goes first (it reads r[0] before the copy writes it, a probe of the
 * order only).
 */
START_TEST(test_sched_run_direct)
{
    static const char *want_log[] = {"x", "", "", "s", "s"};
    int sh = _i, sb[4] = {1, 2, 3, 4}, rb[4] = {-1, -1, -1, -1}, v[4], rc;
    blk_ctx_t ctx;
    ch4coll_sched_t s;

    ck_assert_int_eq(ch4coll_sched_init(&s, &int_elem, MPI_SUM, 0, 2),
                     CH4COLL_OK);
    ch4coll_sched_set_ntags(&s, 3);
    if (sh == 0) {
        v[0] = ch4coll_sched_copy(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                                  ch4coll_ref(CH4COLL_BUF_RECV, ioff(2)), 2, 0,
                                  NULL);
        v[1] = ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0), 2, 1, 0,
                                  0, NULL);
        v[2] = ch4coll_sched_recv(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 2, 1, 0,
                                  0, NULL);
        v[1] = v[2];
        ch4coll_sched_reduce(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0),
                             ch4coll_ref(CH4COLL_BUF_RECV, ioff(2)), 2, 2, v);
    } else if (sh == 1 || sh == 2) {
        v[0] = ch4coll_sched_recv(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 1, 0,
                                  0, NULL);
        ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 1, 1,
                           sh == 1, v);
        if (sh == 2)
            ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0), 1, 1, 2, 0,
                               NULL);
    } else {
        v[0] = ch4coll_sched_copy(&s, ch4coll_ref(CH4COLL_BUF_SEND, ioff(3)),
                                  ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 0, NULL);
        ch4coll_sched_send(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 1, 1, 0,
                           sh == 3, v);
    }
    ck_assert_int_eq(ch4coll_sched_commit(&s), CH4COLL_OK);
    ck_assert_int_eq(s.exchange, sh == 0 || sh >= 3);
    memset(&ctx, 0, sizeof ctx);
    ck_assert_int_eq(ch4coll_sched_start(&s, sb, rb, 0, &blk_transport, &ctx),
                     CH4COLL_OK);
    ck_assert_int_eq(ch4coll_sched_run_direct(&s, &rc), sh == 0 || sh >= 3);
    ck_assert_str_eq(ctx.log, want_log[sh]);
    if (sh == 0) {
        ck_assert_int_eq(rc, CH4COLL_OK);
        ck_assert(ch4coll_sched_done(&s));
        ck_assert_int_eq(ctx.sent0, 1);
        ck_assert_int_eq(rb[2], 1 + 7000);
        ck_assert_int_eq(rb[3], 2 + 7001);
    } else if (sh >= 3) {
        ck_assert_int_eq(rc, CH4COLL_OK);
        ck_assert(ch4coll_sched_done(&s));
        ck_assert_int_eq(ctx.sent0, (sh == 3 ? 4 : -1));
        ck_assert_int_eq(rb[0], 4);
    }
    ch4coll_sched_destroy(&s);
}
END_TEST

/* Every registry row is whole: a builder and a cost (or neither: native),
 * a description, and parameters without gaps whose defaults are in range
 * (the rows use designated initializers; nothing is counted by hand). */
START_TEST(test_registry_rows)
{
    const ch4coll_algo_t *al = &ch4coll_algos[_i];
    int i, n = ch4coll_algo_nparams(al);

    ck_assert_msg(al->desc && al->desc[0], "row %d: no description", _i);
    ck_assert_msg(!al->build == !al->cost, "%s: builder without cost",
                  al->name);
    ck_assert_int_eq(!al->build, strcmp(al->name, "native") == 0);
    for (i = 0; i < CH4COLL_MAX_PARAMS; i++) {
        const ch4coll_param_def_t *d = &al->params[i];
        if (i >= n) {
            ck_assert_msg(!d->name, "%s: parameter %d after a gap", al->name,
                          i);
            continue;
        }
        ck_assert_msg(d->min <= d->def && d->def <= d->max,
                      "%s: %s default outside [min, max]", al->name, d->name);
        ck_assert_msg(d->desc && d->desc[0], "%s: %s undescribed", al->name,
                      d->name);
    }
}
END_TEST

/* Scratch is declared while building and exists only after commit. */
START_TEST(test_sched_scratch_at_commit)
{
    world_t w;
    ch4coll_sched_t *s = &w.s[0];
    int b1, b0, b2, i;
    uint64_t before;
    char *p1, *p2;

    world_init(&w, 1);
    b1 = ch4coll_sched_scratch(s, 3);
    b0 = ch4coll_sched_scratch(s, 0);
    b2 = ch4coll_sched_scratch(s, 5);
    ck_assert_int_eq(b1, CH4COLL_BUF_FIRST_SCRATCH);
    ck_assert_int_eq(b0, CH4COLL_BUF_FIRST_SCRATCH + 1);
    ck_assert_int_eq(b2, CH4COLL_BUF_FIRST_SCRATCH + 2);
    ck_assert_uint_eq(ch4coll_sched_scratch_size(s), 8 * sizeof(int));
    ck_assert_ptr_null(s->scratch);
    ck_assert_ptr_null(s->bufs[b1]);
    ck_assert_ptr_null(s->bufs[b2]);
    i = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(b1, 0), 3, 0, NULL);
    i = ch4coll_sched_copy(s, ch4coll_ref(CH4COLL_BUF_SEND, ioff(3)),
                           ch4coll_ref(b2, 0), 5, 1, &i);
    i = ch4coll_sched_copy(s, ch4coll_ref(b2, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, 0), 5, 1, &i);
    ch4coll_sched_copy(s, ch4coll_ref(b1, 0),
                       ch4coll_ref(CH4COLL_BUF_RECV, ioff(5)), 3, 1, &i);
    before = ch4coll_alloc_calls();
    world_commit(&w);
    ck_assert_uint_gt(ch4coll_alloc_calls(), before);
    ck_assert_ptr_nonnull(s->scratch);
    p1 = s->bufs[b1];
    p2 = s->bufs[b2];
    ck_assert_ptr_nonnull(p1);
    ck_assert_ptr_nonnull(p2);
    ck_assert(p1 + 3 * sizeof(int) <= p2 || p2 + 5 * sizeof(int) <= p1);
    ck_assert_uint_eq(ch4coll_sched_scratch_size(s), 8 * sizeof(int));
    ck_assert_msg(world_run(&w, 0) == CH4COLL_OK, "%s", w.err);
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(w.rbuf[0][i], sval(0, 3 + i));
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(w.rbuf[0][5 + i], sval(0, i));
    ck_assert_int_eq(w.rbuf[0][8], SENTINEL);
    /* no scratch can be added to a committed schedule */
    ck_assert_int_eq(ch4coll_sched_scratch(s, 1), -1);
    world_destroy(&w);
}
END_TEST

/* A clone is refused before commit; it owns other scratch and run state
 * and keeps working after its original is destroyed. */
START_TEST(test_sched_clone)
{
    int p = 3, r;
    size_t n = 4;
    ch4coll_sched_t u, d;
    world_t w, c; /* originals, clones */

    ck_assert_int_eq(ch4coll_sched_init(&u, &int_elem, MPI_SUM, 0, p),
                     CH4COLL_OK);
    build_ring(&u, 0, p, n);
    ck_assert_int_eq(ch4coll_sched_clone(&d, &u), CH4COLL_ERR_ARG);
    ch4coll_sched_destroy(&u);

    world_init(&w, p);
    for (r = 0; r < p; r++)
        build_ring(&w.s[r], r, p, n);
    world_commit(&w);
    memset(&c, 0, sizeof c);
    c.p = p;
    for (r = 0; r < p; r++) {
        ck_assert_int_eq(ch4coll_sched_clone(&c.s[r], &w.s[r]), CH4COLL_OK);
        c.sp[r] = &c.s[r];
        ck_assert_int_eq(c.s[r].nv, w.s[r].nv);
        ck_assert_uint_eq(ch4coll_sched_scratch_size(&c.s[r]),
                          ch4coll_sched_scratch_size(&w.s[r]));
        ck_assert_ptr_nonnull(c.s[r].scratch);
        ck_assert_ptr_ne(c.s[r].scratch, w.s[r].scratch);
        ck_assert_ptr_ne(c.s[r].bufs[CH4COLL_BUF_FIRST_SCRATCH],
                         w.s[r].bufs[CH4COLL_BUF_FIRST_SCRATCH]);
        ck_assert_ptr_ne(c.s[r].pending, w.s[r].pending);
        ck_assert(ch4coll_sched_done(&c.s[r])); /* not running */
    }
    run_ring(&w, n); /* the original still runs */
    world_destroy(&w);
    run_ring(&c, n);
    world_destroy(&c);
}
END_TEST

/* ============================================ 2. loop executor reports */

START_TEST(test_loop_deadlock_recv)
{
    world_t w;

    world_init(&w, 2);
    ch4coll_sched_recv(&w.s[0], ch4coll_ref(CH4COLL_BUF_RECV, 0), 2, 1, 0, 0,
                       NULL);
    ch4coll_sched_sink(&w.s[1], 0, NULL);
    world_commit(&w);
    ck_assert_int_eq(world_run(&w, 0), CH4COLL_ERR_DEADLOCK);
    ck_assert_msg(strstr(w.err, "deadlock") != NULL, "%s", w.err);
    ck_assert_msg(strstr(w.err, "rank 0 waits in recv from 1") != NULL, "%s",
                  w.err);
    ck_assert_msg(strstr(w.err, "rank 1") == NULL, "%s", w.err);
    world_destroy(&w);
}
END_TEST

START_TEST(test_loop_leftover)
{
    world_t w;

    world_init(&w, 2);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, 0), 2, 1, 0, 0,
                       NULL);
    ch4coll_sched_sink(&w.s[1], 0, NULL);
    world_commit(&w);
    ck_assert_int_eq(world_run(&w, 1), CH4COLL_ERR_PROTOCOL);
    ck_assert_msg(strstr(w.err, "leftover") != NULL, "%s", w.err);
    ck_assert_msg(strstr(w.err, "from rank 0 to rank 1") != NULL, "%s", w.err);
    world_destroy(&w);
}
END_TEST

START_TEST(test_loop_size_mismatch)
{
    world_t w;
    int eager = _i;

    world_init(&w, 2);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, 0), 3, 1, 0, 0,
                       NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, 0), 2, 0, 0, 0,
                       NULL);
    world_commit(&w);
    ck_assert_int_eq(world_run(&w, eager), CH4COLL_ERR_PROTOCOL);
    ck_assert_msg(strstr(w.err, "size mismatch") != NULL, "%s", w.err);
    ck_assert_msg(strstr(w.err, "12 bytes") != NULL, "%s", w.err);
    ck_assert_int_eq(w.rbuf[1][0], SENTINEL); /* nothing delivered */
    world_destroy(&w);
}
END_TEST

/*
 * Rank 0 sends C (tag 1), then A and B (tag 0); rank 1 receives tag 0 twice
 * and tag 1 once.  Per (source, tag) the order is kept: A, B, then C.
 */
START_TEST(test_loop_fifo)
{
    int eager = _i, r, i;
    size_t n = 2;
    world_t w;

    world_init(&w, 2);
    for (r = 0; r < 2; r++)
        ch4coll_sched_set_ntags(&w.s[r], 2);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, ioff(4)), n, 1, 1,
                       0, NULL);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, 0), n, 1, 0, 0,
                       NULL);
    ch4coll_sched_send(&w.s[0], ch4coll_ref(CH4COLL_BUF_SEND, ioff(2)), n, 1, 0,
                       0, NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, 0), n, 0, 0, 0,
                       NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, ioff(2)), n, 0, 0,
                       0, NULL);
    ch4coll_sched_recv(&w.s[1], ch4coll_ref(CH4COLL_BUF_RECV, ioff(4)), n, 0, 1,
                       0, NULL);
    world_commit(&w);
    ck_assert_msg(world_run(&w, eager) == CH4COLL_OK, "%s", w.err);
    for (i = 0; i < 6; i++)
        ck_assert_int_eq(w.rbuf[1][i], sval(0, i));
    ck_assert_int_eq(w.rbuf[1][6], SENTINEL);
    world_destroy(&w);
}
END_TEST

/* Both ranks send, then receive once the send has completed. */
static void build_send_then_recv(world_t *w)
{
    int r, v;

    for (r = 0; r < 2; r++) {
        v = ch4coll_sched_send(&w->s[r], ch4coll_ref(CH4COLL_BUF_SEND, 0), 3,
                               1 - r, 0, 0, NULL);
        ch4coll_sched_recv(&w->s[r], ch4coll_ref(CH4COLL_BUF_RECV, 0), 3, 1 - r,
                           0, 1, &v);
    }
}

START_TEST(test_loop_rendezvous_deadlock)
{
    world_t w;

    world_init(&w, 2);
    build_send_then_recv(&w);
    world_commit(&w);
    ck_assert_int_eq(world_run(&w, 0), CH4COLL_ERR_DEADLOCK);
    ck_assert_msg(strstr(w.err, "rank 0 waits in send to 1") != NULL, "%s",
                  w.err);
    ck_assert_msg(strstr(w.err, "rank 1 waits in send to 0") != NULL, "%s",
                  w.err);
    world_destroy(&w);
}
END_TEST

START_TEST(test_loop_eager_completes)
{
    world_t w;
    int r, i;

    world_init(&w, 2);
    build_send_then_recv(&w);
    world_commit(&w);
    ck_assert_msg(world_run(&w, 1) == CH4COLL_OK, "%s", w.err);
    for (r = 0; r < 2; r++) {
        for (i = 0; i < 3; i++)
            ck_assert_int_eq(w.rbuf[r][i], sval(1 - r, i));
        ck_assert_int_eq(w.rbuf[r][3], SENTINEL);
    }
    world_destroy(&w);
}
END_TEST

/* ===================================== 3. no allocation on a re-run */

static const int rerun_p[] = {1, 2, 3, 4, 5, 7, 8};

static void rd_args(ch4coll_args_t *a, int r, int p, size_t n, int inplace)
{
    memset(a, 0, sizeof *a);
    a->coll = CH4COLL_ALLREDUCE;
    a->rank = r;
    a->size = p;
    a->count = n;
    a->inplace = inplace;
    a->elem = int_elem;
    a->op = MPI_SUM;
    a->commutative = 1;
}

static void rd_check(const world_t *w, size_t n)
{
    int r, q, i;

    for (r = 0; r < w->p; r++) {
        for (i = 0; i < (int) n; i++) {
            int sum = 0;
            for (q = 0; q < w->p; q++)
                sum += sval(q, i);
            ck_assert_int_eq(w->rbuf[r][i], sum);
        }
        ck_assert_int_eq(w->rbuf[r][n], SENTINEL);
    }
}

START_TEST(test_rerun_no_alloc)
{
    int p = rerun_p[_i / 2], inplace = _i % 2, r, run;
    const ch4coll_algo_t *al =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "recursive_doubling");
    int64_t params[CH4COLL_MAX_PARAMS];
    size_t n = 7;
    uint64_t before;
    ch4coll_loop_t *loop;
    world_t w;

    ck_assert_ptr_nonnull(al);
    ch4coll_algo_default_params(al, params);
    world_init(&w, p);
    before = ch4coll_alloc_calls();
    for (r = 0; r < p; r++) {
        ch4coll_args_t a;
        rd_args(&a, r, p, n, inplace);
        ck_assert_int_eq(
            ch4coll_allreduce_recursive_doubling(&w.s[r], &a, params),
            CH4COLL_OK);
    }
    world_commit(&w);
    ck_assert_uint_gt(ch4coll_alloc_calls(), before); /* the counter is live */
    loop = ch4coll_loop_create(p, 0);
    for (run = 0; run < 2; run++) {
        world_fill(&w);
        if (inplace)
            for (r = 0; r < p; r++)
                memcpy(w.rbuf[r], w.sbuf[r], n * sizeof(int));
        before = ch4coll_alloc_calls();
        for (r = 0; r < p; r++)
            ck_assert_int_eq(
                ch4coll_sched_start(&w.s[r], inplace ? NULL : w.sbuf[r],
                                    w.rbuf[r], 0, &ch4coll_transport_loop,
                                    ch4coll_loop_ctx(loop, r)),
                CH4COLL_OK);
        ck_assert_msg(ch4coll_loop_run(loop, w.sp, w.err, sizeof w.err) ==
                          CH4COLL_OK,
                      "p=%d run %d: %s", p, run, w.err);
        ck_assert_msg(ch4coll_alloc_calls() == before,
                      "p=%d run %d: %llu allocations", p, run,
                      (unsigned long long) (ch4coll_alloc_calls() - before));
        rd_check(&w, n);
    }
    ch4coll_loop_destroy(loop);
    world_destroy(&w);
}
END_TEST

/* ============================================================ 4. cache */

/* A key with the receive counts v (length p, or NULL). */
static ch4coll_key_t make_key(int coll, int rcount, const int *v, int p)
{
    ch4coll_key_t k;

    memset(&k, 0, sizeof k);
    k.f.coll = coll;
    k.f.scount = rcount;
    k.f.rcount = rcount;
    k.f.stype = MPI_INT;
    k.f.rtype = MPI_INT;
    k.f.op = MPI_SUM;
    k.f.p = p;
    k.v[0] = v;
    k.f.nv = v != NULL;
    ch4coll_key_hash(&k);
    return k;
}

/* k with one field changed must miss. */
static void expect_miss(ch4coll_cache_t *c, ch4coll_key_t k)
{
    ch4coll_key_hash(&k);
    ck_assert_ptr_null(ch4coll_cache_lookup(c, &k));
}

START_TEST(test_cache_lookup)
{
    ch4coll_cache_t c;
    ch4coll_key_t k1 = make_key(CH4COLL_ALLREDUCE, 10, NULL, 4);
    ch4coll_key_t k2 = make_key(CH4COLL_ALLREDUCE, 11, NULL, 4);
    ch4coll_key_t k3 = make_key(CH4COLL_BCAST, 10, NULL, 4);
    ch4coll_key_t k4 = k1;
    ch4coll_centry_t *e;

    ch4coll_cache_init(&c, 8);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k1));
    e = ch4coll_cache_insert(&c, &k1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &k4), e); /* equal copy */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k2));
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k3));
    k4.f.root = 1; /* every field is part of the key */
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.inplace = 1;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.op = MPI_MAX;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.rtype = MPI_DOUBLE;
    expect_miss(&c, k4);
    k4 = k1;
    k4.f.scount = 9;
    expect_miss(&c, k4);
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.misses, 8);
    ck_assert_uint_eq(c.evictions, 0);
    ck_assert_int_eq(c.n, 1);
    ch4coll_cache_destroy(&c);
}
END_TEST

START_TEST(test_cache_varrays)
{
    int v1[4] = {1, 2, 3, 4}, v2[4] = {1, 2, 3, 5}, v3[4] = {1, 2, 3, 4};
    ch4coll_cache_t c;
    ch4coll_key_t k1 = make_key(CH4COLL_ALLGATHERV, 0, v1, 4);
    ch4coll_key_t k2 = make_key(CH4COLL_ALLGATHERV, 0, v2, 4);
    ch4coll_key_t k3 = make_key(CH4COLL_ALLGATHERV, 0, v3, 3);
    ch4coll_key_t k4 = make_key(CH4COLL_ALLGATHERV, 0, NULL, 4);
    ch4coll_key_t k5 = k1;
    ch4coll_centry_t *e;

    ch4coll_cache_init(&c, 8);
    e = ch4coll_cache_insert(&c, &k1);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_ne(e->key.v[0], v1); /* the entry owns a copy */
    ck_assert_ptr_null(
        ch4coll_cache_lookup(&c, &k2)); /* same length, other value */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k3)); /* prefix */
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k4)); /* no array */
    k5.v[0] = NULL; /* same values in another slot */
    k5.v[1] = v3;
    expect_miss(&c, k5);
    v1[3] = 99; /* the caller's array may change */
    k5 = make_key(CH4COLL_ALLGATHERV, 0, v3, 4);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &k5), e);
    k1 = make_key(CH4COLL_ALLGATHERV, 0, v1, 4);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &k1));
    ck_assert_uint_eq(c.hits, 1);
    ck_assert_uint_eq(c.misses, 5);
    ch4coll_cache_destroy(&c);
}
END_TEST

START_TEST(test_cache_lru)
{
    ch4coll_cache_t c;
    ch4coll_key_t ka = make_key(CH4COLL_ALLREDUCE, 1, NULL, 2);
    ch4coll_key_t kb = make_key(CH4COLL_ALLREDUCE, 2, NULL, 2);
    ch4coll_key_t kc = make_key(CH4COLL_ALLREDUCE, 3, NULL, 2);
    ch4coll_key_t kd = make_key(CH4COLL_ALLREDUCE, 4, NULL, 2);
    ch4coll_centry_t *a, *cc, *d;

    ch4coll_cache_init(&c, 2);
    a = ch4coll_cache_insert(&c, &ka);
    ck_assert_ptr_nonnull(ch4coll_cache_insert(&c, &kb));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &ka), a); /* a is now newest */
    cc = ch4coll_cache_insert(&c, &kc);                 /* evicts b */
    ck_assert_uint_eq(c.evictions, 1);
    ck_assert_int_eq(c.n, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &kb));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &ka), a);  /* order: a, c */
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kc), cc); /* order: c, a */
    d = ch4coll_cache_insert(&c, &kd);                   /* evicts a */
    ck_assert_uint_eq(c.evictions, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ka));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kc), cc);
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), d);
    ck_assert_int_eq(c.n, 2);
    ck_assert_uint_eq(c.hits, 5);
    ck_assert_uint_eq(c.misses, 2);
    ck_assert_uint_eq(c.evictions, 2);
    ch4coll_cache_destroy(&c);
}
END_TEST

/* Freeing a datatype or op evicts exactly the entries that name it. */
START_TEST(test_cache_forget)
{
    ch4coll_cache_t c;
    ch4coll_key_t ki = make_key(CH4COLL_ALLREDUCE, 1, NULL, 2);
    ch4coll_key_t kd = ki, km = ki, ks = ki;
    ch4coll_centry_t *ed, *es;

    kd.f.rtype = kd.f.stype = MPI_DOUBLE;
    ch4coll_key_hash(&kd);
    km.f.op = MPI_MAX;
    km.f.rtype = km.f.stype = MPI_DOUBLE;
    ch4coll_key_hash(&km);
    ks.f.coll = CH4COLL_ALLGATHER; /* MPI_INT on the send side only */
    ks.f.rtype = MPI_BYTE;
    ch4coll_key_hash(&ks);
    ch4coll_cache_init(&c, 8);
    ch4coll_cache_insert(&c, &ki);
    ed = ch4coll_cache_insert(&c, &kd);
    ch4coll_cache_insert(&c, &km);
    es = ch4coll_cache_insert(&c, &ks);
    ck_assert_ptr_nonnull(es);
    ck_assert_int_eq(c.n, 4);
    ch4coll_cache_forget(&c, MPI_INT, MPI_OP_NULL);
    ck_assert_int_eq(c.n, 2);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ki));
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &ks));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), ed);
    ch4coll_cache_forget(&c, MPI_DATATYPE_NULL, MPI_MAX);
    ck_assert_int_eq(c.n, 1);
    ck_assert_ptr_null(ch4coll_cache_lookup(&c, &km));
    ck_assert_ptr_eq(ch4coll_cache_lookup(&c, &kd), ed);
    ch4coll_cache_destroy(&c);
}
END_TEST

/* ============================================================ 5. CVARs */

START_TEST(test_parse_int64)
{
    int64_t v = 0;

    ck_assert_int_eq(ch4coll_parse_int64("12", 0, 100, &v), CH4COLL_OK);
    ck_assert_int_eq(v, 12);
    ck_assert_int_eq(ch4coll_parse_int64("-3", -10, 10, &v), CH4COLL_OK);
    ck_assert_int_eq(v, -3);
    ck_assert_int_eq(ch4coll_parse_int64("100", 0, 100, &v), CH4COLL_OK);
    ck_assert_int_eq(v, 100);
    ck_assert_int_eq(
        ch4coll_parse_int64("9223372036854775807", INT64_MIN, INT64_MAX, &v),
        CH4COLL_OK);
    ck_assert(v == INT64_MAX);
    ck_assert_int_eq(ch4coll_parse_int64("12x", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("5 ", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64(NULL, 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(
        ch4coll_parse_int64("99999999999999999999", INT64_MIN, INT64_MAX, &v),
        CH4COLL_ERR_ARG);
    ck_assert_int_eq(
        ch4coll_parse_int64("-99999999999999999999", INT64_MIN, INT64_MAX, &v),
        CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("101", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("-11", -10, 10, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("0", 1, 10, &v), CH4COLL_ERR_ARG);
}
END_TEST

/* Kept apart: strtoll() skips leading white space, a strict parser must not. */
START_TEST(test_parse_int64_leading_space)
{
    int64_t v = 0;

    ck_assert_int_eq(ch4coll_parse_int64(" 5", 0, 100, &v), CH4COLL_ERR_ARG);
    ck_assert_int_eq(ch4coll_parse_int64("\t5", 0, 100, &v), CH4COLL_ERR_ARG);
}
END_TEST

START_TEST(test_parse_algorithm)
{
    ch4coll_forced_t f;
    char err[512];

    memset(&f, 0xff, sizeof f);
    ck_assert_int_eq(
        ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "auto", &f, err, sizeof err),
        CH4COLL_OK);
    ck_assert_ptr_null(f.algo);

    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE,
                                             "recursive_doubling", &f, err,
                                             sizeof err),
                     CH4COLL_OK);
    ck_assert_ptr_eq(
        f.algo, ch4coll_algo_find(CH4COLL_ALLREDUCE, "recursive_doubling"));
    ck_assert_ptr_eq(f.algo->build, ch4coll_allreduce_recursive_doubling);

    err[0] = '\0';
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "nosuch", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);
    ck_assert_msg(strstr(err, "nosuch") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "recursive_doubling") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "native") != NULL, "%s", err);

    err[0] = '\0';
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE,
                                             "recursive_doubling:foo=1", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);
    ck_assert_msg(strstr(err, "foo") != NULL, "%s", err);

    /* an algorithm of another collective is not valid here */
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "bruck", &f,
                                             err, sizeof err),
                     CH4COLL_ERR_ARG);

    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_ALLREDUCE, "native", &f,
                                             err, sizeof err),
                     CH4COLL_OK);
    ck_assert_ptr_nonnull(f.algo);
    ck_assert(ch4coll_algo_is_native(f.algo));
    ck_assert_int_eq(f.algo->coll, CH4COLL_ALLREDUCE);
}
END_TEST

#define YIELD_VAR "MPIR_CVAR_CH4COLL_YIELD"
#define AR_VAR    "MPIR_CVAR_CH4COLL_ALLREDUCE_ALGORITHM"

START_TEST(test_config_load)
{
    ch4coll_config_t saved = ch4coll_config;
    int saved_level = ch4coll_log_level;
    const ch4coll_algo_t *native =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "native");

    ck_assert_ptr_null(getenv(YIELD_VAR));
    ck_assert_ptr_null(getenv(AR_VAR));
    ch4coll_config.yield = CH4COLL_YIELD_AUTO;
    memset(&ch4coll_config.forced[CH4COLL_ALLREDUCE], 0,
           sizeof(ch4coll_forced_t));

    setenv(YIELD_VAR, "maybe", 1);
    ck_assert_int_gt(ch4coll_config_load(), 0);
    ck_assert_int_gt(ch4coll_config.nerrors, 0);
    ck_assert_int_eq(ch4coll_config.yield, CH4COLL_YIELD_AUTO);
    unsetenv(YIELD_VAR);

    setenv(AR_VAR, "native", 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_ptr_nonnull(native);
    ck_assert_ptr_eq(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo, native);

    setenv(AR_VAR, "nosuch", 1); /* a bad value counts and falls back to auto */
    ck_assert_int_eq(ch4coll_config_load(), 1);
    ck_assert_ptr_null(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo);
    unsetenv(AR_VAR);

    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_ptr_null(ch4coll_config.forced[CH4COLL_ALLREDUCE].algo);
    ch4coll_config = saved;
    ch4coll_log_level = saved_level;
}
END_TEST

/* The virtual placement variables: values, and bad values keep defaults. */
START_TEST(test_config_virtual)
{
    ch4coll_config_t saved = ch4coll_config;

    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "3", 1);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "cyclic", 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ck_assert_int_eq(ch4coll_config.virtual_ppn, 3);
    ck_assert_int_eq(ch4coll_config.virtual_map, CH4COLL_MAP_CYCLIC);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "-1", 1);
    setenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "round", 1);
    ch4coll_config.virtual_ppn = 0;
    ch4coll_config.virtual_map = CH4COLL_MAP_BLOCK;
    ck_assert_int_eq(ch4coll_config_load(), 2);
    ck_assert_int_eq(ch4coll_config.virtual_ppn, 0);
    ck_assert_int_eq(ch4coll_config.virtual_map, CH4COLL_MAP_BLOCK);
    unsetenv("MPIR_CVAR_CH4COLL_VIRTUAL_PPN");
    unsetenv("MPIR_CVAR_CH4COLL_VIRTUAL_MAP");
    ch4coll_config = saved;
}
END_TEST

/* ========================================================= 6. topology */

/* Mark the subtree of vr by walking the children; returns its size. */
static int walk_subtree(int vr, int p, unsigned char *mark)
{
    int m, n = 1;

    mark[vr]++;
    for (m = 1; m < ch4coll_binomial_mask_limit(vr, p); m *= 2)
        if (vr + m < p)
            n += walk_subtree(vr + m, p, mark);
    return n;
}

START_TEST(test_topo_binomial)
{
    unsigned char mark[131];
    int nparent[131];
    int p, vr, m, u;

    for (p = 1; p <= 130; p++) {
        int sum = 0;
        memset(nparent, 0, sizeof nparent);
        for (u = 0; u < p; u++)
            for (m = 1; m < ch4coll_binomial_mask_limit(u, p); m *= 2)
                if (u + m < p) {
                    nparent[u + m]++;
                    ck_assert_int_eq(ch4coll_binomial_parent(u + m), u);
                }
        ck_assert_int_eq(nparent[0], 0);
        ck_assert_int_eq(ch4coll_binomial_parent(0), -1);
        for (vr = 1; vr < p; vr++)
            ck_assert_msg(nparent[vr] == 1, "p=%d vr=%d has %d parents", p, vr,
                          nparent[vr]);
        for (vr = 0; vr < p; vr++) {
            int span = ch4coll_binomial_span(vr, p), size, i;
            memset(mark, 0, sizeof mark);
            size = walk_subtree(vr, p, mark);
            ck_assert_msg(size == span, "p=%d vr=%d: subtree %d, span %d", p,
                          vr, size, span);
            for (i = 0; i < p; i++)
                ck_assert_msg(mark[i] == (i >= vr && i < vr + span),
                              "p=%d vr=%d: rank %d", p, vr, i);
        }
        for (m = 1; m < ch4coll_binomial_mask_limit(0, p); m *= 2)
            if (m < p)
                sum += ch4coll_binomial_span(m, p);
        ck_assert_int_eq(sum + 1, p);
        ck_assert_int_eq(ch4coll_binomial_span(0, p), p);
    }
}
END_TEST

START_TEST(test_topo_rd)
{
    int seen[130];
    int p, x;

    for (p = 1; p <= 130; p++) {
        int p2 = ch4coll_pow2_floor(p), r = p - p2, mapped = 0;
        ck_assert(p2 <= p && 2 * p2 > p && (p2 & (p2 - 1)) == 0);
        memset(seen, 0, sizeof seen);
        for (x = 0; x < p; x++) {
            int nr = ch4coll_rd_newrank(x, r);
            if (nr < 0)
                continue;
            ck_assert_msg(nr < p2, "p=%d rank %d -> %d", p, x, nr);
            ck_assert_int_eq(seen[nr]++, 0);
            ck_assert_int_eq(ch4coll_rd_oldrank(nr, r), x);
            mapped++;
        }
        ck_assert_int_eq(mapped, p2);
        for (x = 0; x < p2; x++) {
            int old = ch4coll_rd_oldrank(x, r);
            ck_assert(old >= 0 && old < p);
            ck_assert_int_eq(ch4coll_rd_newrank(old, r), x);
        }
        ck_assert_int_ge(ch4coll_pow2_ceil(p), p);
        ck_assert_int_lt(ch4coll_pow2_ceil(p), 2 * p);
        for (x = 0; x < p; x++)
            ck_assert_int_eq(ch4coll_abs(ch4coll_rel(x, p / 2, p), p / 2, p),
                             x);
    }
}
END_TEST

/* ------------------------------------------------- trees.h, index.h */

/*
 * The brute-force checks below run millions of comparisons; Check records
 * every passing ck_assert (a write per assertion), so each check is a
 * function that returns -1 with the first violation described in why, and
 * the test asserts once per case.
 */
#define TREES_PMAX 200

static int topo_fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Mark the subtree of vr by following the child lists; returns its size. */
static int knomial_walk(int vr, int k, int p, unsigned char *mark)
{
    int i, n = 1, nch = ch4coll_knomial_nchildren(vr, k, p);

    mark[vr]++;
    for (i = 0; i < nch; i++)
        n += knomial_walk(ch4coll_knomial_child(vr, k, p, i), k, p, mark);
    return n;
}

/* Number of nonzero base-k digits of x: its distance from the root. */
static int nonzero_digits(int x, int k)
{
    int n = 0;

    for (; x > 0; x /= k)
        n += x % k != 0;
    return n;
}

/* depth = ceil(log_k p), the root's limit k^depth. */
static int knomial_check_depth(int p, int k, char *why, size_t len)
{
    int depth = ch4coll_knomial_depth(p, k), i;
    int64_t kd = 1;

    for (i = 0; i < depth; i++)
        kd *= k;
    if (kd < p || (depth > 0 && kd / k >= p))
        return topo_fail(why, len, "depth %d", depth);
    if (ch4coll_knomial_limit(0, k, p) != kd)
        return topo_fail(why, len, "root limit %lld",
                         (long long) ch4coll_knomial_limit(0, k, p));
    return 0;
}

/* Child lists: children above the parent and below p, listed largest
 * offset first, each offset j m (j < k) with m = the child's limit below
 * the parent's; every non-root listed exactly once, by its parent. */
static int knomial_check_children(int p, int k, char *why, size_t len)
{
    int nparent[TREES_PMAX] = {0}, u, i;

    for (u = 0; u < p; u++) {
        int nch = ch4coll_knomial_nchildren(u, k, p);
        int64_t lim = ch4coll_knomial_limit(u, k, p), prev = lim;
        for (i = 0; i < nch; i++) {
            int c = ch4coll_knomial_child(u, k, p, i);
            int64_t m = c > u && c < p ? ch4coll_knomial_limit(c, k, p) : 0;
            if (m == 0)
                return topo_fail(why, len, "child %d of %d", c, u);
            if (ch4coll_knomial_parent(c, k) != u)
                return topo_fail(why, len, "parent of %d is %d, not %d", c,
                                 ch4coll_knomial_parent(c, k), u);
            if ((c - u) % m != 0 || (c - u) / m >= k || m > prev || m >= lim)
                return topo_fail(why, len, "child %d of %d: offset %d, m %lld",
                                 c, u, c - u, (long long) m);
            prev = m;
            nparent[c]++;
        }
        if (ch4coll_knomial_child(u, k, p, nch) != -1)
            return topo_fail(why, len, "%d has more than %d children", u, nch);
    }
    if (ch4coll_knomial_parent(0, k) != -1 || nparent[0] != 0)
        return topo_fail(why, len, "the root has a parent");
    for (u = 1; u < p; u++)
        if (nparent[u] != 1)
            return topo_fail(why, len, "%d has %d parents", u, nparent[u]);
    return 0;
}

/* Paths and rounds: every rank reaches the root in (its number of nonzero
 * digits) <= depth steps; a rank is reached at a smaller offset than its
 * parent, and the non-roots use exactly depth distinct offsets. */
static int knomial_check_depth_paths(int p, int k, char *why, size_t len)
{
    int depth = ch4coll_knomial_depth(p, k), lims[TREES_PMAX], nlims = 0;
    int vr, i;

    for (vr = 1; vr < p; vr++) {
        int par = ch4coll_knomial_parent(vr, k), x = vr, d = 0;
        int64_t lim = ch4coll_knomial_limit(vr, k, p);
        if (lim >= ch4coll_knomial_limit(par, k, p))
            return topo_fail(why, len, "%d not reached after its parent %d", vr,
                             par);
        for (i = 0; i < nlims && lims[i] != lim; i++)
            ;
        if (i == nlims)
            lims[nlims++] = (int) lim;
        while (x > 0 && d <= p) {
            x = ch4coll_knomial_parent(x, k);
            d++;
        }
        if (x != 0 || d != nonzero_digits(vr, k) || d > depth)
            return topo_fail(why, len,
                             "%d is %d steps from the root (depth %d)", vr, d,
                             depth);
    }
    if (nlims != depth)
        return topo_fail(why, len, "%d rounds, depth %d", nlims, depth);
    return 0;
}

/* Subtree spans: the child lists reach exactly [vr, vr + span). */
static int knomial_check_spans(int p, int k, char *why, size_t len)
{
    unsigned char mark[TREES_PMAX];
    int vr, i;

    for (vr = 0; vr < p; vr++) {
        int span = ch4coll_knomial_span(vr, k, p), size;
        memset(mark, 0, sizeof mark);
        size = knomial_walk(vr, k, p, mark);
        if (size != span)
            return topo_fail(why, len, "subtree of %d: %d ranks, span %d", vr,
                             size, span);
        for (i = 0; i < p; i++)
            if (mark[i] != (i >= vr && i < vr + span))
                return topo_fail(why, len, "subtree of %d (span %d): rank %d",
                                 vr, span, i);
    }
    return 0;
}

/* k-nomial trees for p = 1..200 and k = 2..9 against brute force; radix 2
 * is the binomial tree of topo.h. */
START_TEST(test_topo_knomial)
{
    char why[160];
    int p, k, vr, same = 1;

    for (p = 1; p <= TREES_PMAX; p++)
        for (k = 2; k <= 9; k++) {
            ck_assert_msg(knomial_check_depth(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_children(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_depth_paths(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
            ck_assert_msg(knomial_check_spans(p, k, why, sizeof why) == 0,
                          "p=%d k=%d: %s", p, k, why);
        }
    for (p = 1; p <= TREES_PMAX; p++)
        for (vr = 0; vr < p; vr++)
            same &=
                ch4coll_knomial_parent(vr, 2) == ch4coll_binomial_parent(vr) &&
                ch4coll_knomial_span(vr, 2, p) == ch4coll_binomial_span(vr, p);
    ck_assert(same);
}
END_TEST

/* The binary heap tree on p ranks: children 2u + 1 + j below p with u as
 * parent, one parent per non-root, every rank reached from the root, and
 * the longest path floor(lg p) = depth. */
static int heap_check(int p, char *why, size_t len)
{
    int nparent[TREES_PMAX] = {0}, reach[TREES_PMAX];
    int depth = ch4coll_heap_depth(p), height = 0, head = 0, tail = 0;
    int u, j;

    if ((1 << depth) > p || p >= (2 << depth))
        return topo_fail(why, len, "depth %d", depth);
    for (u = 0; u < p; u++) {
        int nch = ch4coll_heap_nchildren(u, p);
        for (j = 0; j < 2; j++) {
            int c = ch4coll_heap_child(u, p, j);
            if (c != (j < nch ? 2 * u + 1 + j : -1) || c >= p)
                return topo_fail(why, len, "child %d of %d is %d (%d children)",
                                 j, u, c, nch);
            if (c >= 0 && ch4coll_heap_parent(c) != u)
                return topo_fail(why, len, "parent of %d is %d, not %d", c,
                                 ch4coll_heap_parent(c), u);
            if (c >= 0)
                nparent[c]++;
        }
    }
    if (ch4coll_heap_parent(0) != -1 || nparent[0] != 0)
        return topo_fail(why, len, "the root has a parent");
    for (u = 1; u < p; u++) {
        int x = u, d = 0;
        if (nparent[u] != 1)
            return topo_fail(why, len, "%d has %d parents", u, nparent[u]);
        while (x > 0 && d <= p) {
            x = ch4coll_heap_parent(x);
            d++;
        }
        if (x != 0)
            return topo_fail(why, len, "%d does not reach the root", u);
        height = d > height ? d : height;
    }
    if (height != depth)
        return topo_fail(why, len, "height %d, depth %d", height, depth);
    reach[tail++] = 0; /* breadth first from the root */
    while (head < tail) {
        u = reach[head++];
        for (j = 0; j < ch4coll_heap_nchildren(u, p); j++)
            reach[tail++] = ch4coll_heap_child(u, p, j);
    }
    if (tail != p)
        return topo_fail(why, len, "%d ranks reached from the root", tail);
    return 0;
}

START_TEST(test_topo_heap)
{
    char why[160];
    int p;

    for (p = 1; p <= TREES_PMAX; p++)
        ck_assert_msg(heap_check(p, why, sizeof why) == 0, "p=%d: %s", p, why);
}
END_TEST

/* Bruck allgather simulated on p ranks: rank r receives T[d, d + c) from
 * r + d, which sends its T[0, c), into slots nobody wrote before; then
 * slot j holds block r + j, and the rotation by wrap puts every block at
 * its own index exactly once.  t: p x p slots. */
static int bruck_ag_check(int p, int (*t)[TREES_PMAX], char *why, size_t len)
{
    int recv[TREES_PMAX], r, j, d, i, steps = 0;

    for (r = 0; r < p; r++) {
        for (j = 0; j < p; j++)
            t[r][j] = -1;
        t[r][0] = r;
    }
    for (d = 1; d < p; d *= 2, steps++) {
        int c = ch4coll_bruck_ag_count(d, p);
        if (c < 1 || c > d || d + c > p)
            return topo_fail(why, len, "d=%d: %d blocks", d, c);
        /* slots below d are only read in this step */
        for (r = 0; r < p; r++)
            for (i = 0; i < c; i++) {
                if (t[(r + d) % p][i] < 0 || t[r][d + i] >= 0)
                    return topo_fail(why, len, "d=%d rank %d slot %d", d, r,
                                     d + i);
                t[r][d + i] = t[(r + d) % p][i];
            }
    }
    if (steps != ch4coll_ceil_log2(p))
        return topo_fail(why, len, "%d steps", steps);
    for (r = 0; r < p; r++) {
        int wrap = ch4coll_bruck_wrap(r, p);
        if (wrap < 1 || wrap > p)
            return topo_fail(why, len, "rank %d: wrap %d", r, wrap);
        for (i = 0; i < p; i++)
            recv[i] = -1;
        for (j = 0; j < p; j++) {
            int at = j < wrap ? r + j : j - wrap; /* T[0, wrap) -> [r, p) */
            if (t[r][j] != ch4coll_bruck_slot_rank(r, j, p) ||
                t[r][j] != (r + j) % p || recv[at] >= 0)
                return topo_fail(why, len, "rank %d slot %d holds %d", r, j,
                                 t[r][j]);
            recv[at] = t[r][j];
        }
        for (i = 0; i < p; i++)
            if (recv[i] != i)
                return topo_fail(why, len, "rank %d: block %d holds %d", r, i,
                                 recv[i]);
    }
    return 0;
}

START_TEST(test_topo_bruck_allgather)
{
    static int t[TREES_PMAX][TREES_PMAX];
    char why[160];
    int p;

    for (p = 1; p <= TREES_PMAX; p++)
        ck_assert_msg(bruck_ag_check(p, t, why, sizeof why) == 0, "p=%d: %s", p,
                      why);
}
END_TEST

/* The runs at distance d: increasing, disjoint, at most d slots each, and
 * together exactly the slots with bit d set. */
static int bruck_runs_check(int d, int p, char *why, size_t len)
{
    int nruns = ch4coll_bruck_a2a_nruns(d, p), n = 0, brute = 0, prev = 0;
    int i, j, lo, hi;

    for (j = 0; j < p; j++)
        brute += (j & d) != 0;
    for (i = 0; i < nruns; i++) {
        ch4coll_bruck_a2a_run(d, p, i, &lo, &hi);
        if (lo < prev || lo >= hi || hi > p || hi - lo > d)
            return topo_fail(why, len, "d=%d run %d: [%d, %d)", d, i, lo, hi);
        for (j = lo; j < hi; j++)
            if (!ch4coll_bruck_a2a_moves(j, d) || (j & d) == 0)
                return topo_fail(why, len, "d=%d: slot %d without bit d", d, j);
        prev = hi;
        n += hi - lo;
    }
    if (n != brute || ch4coll_bruck_a2a_nslots(d, p) != brute ||
        brute > (p + 1) / 2)
        return topo_fail(why, len,
                         "d=%d: %d slots in runs, nslots %d, %d with bit", d, n,
                         ch4coll_bruck_a2a_nslots(d, p), brute);
    return 0;
}

/* Bruck alltoall simulated on p ranks (a block is src * p + dst): slot j
 * starts with r's block for slot_rank(r, j); at distance d rank r sends
 * its run slots to r + d and receives the same slots from r - d.  After
 * the steps slot j holds the block from a2a_origin(r, j) for r, so the
 * unrotation delivers every block exactly once.  t, old: p x p slots. */
static int bruck_a2a_check(int p, int (*t)[TREES_PMAX], int (*old)[TREES_PMAX],
                           char *why, size_t len)
{
    unsigned char got[TREES_PMAX];
    int r, j, d, i, lo, hi;

    for (r = 0; r < p; r++) {
        int wrap = ch4coll_bruck_wrap(r, p);
        for (j = 0; j < p; j++) {
            int dst = ch4coll_bruck_slot_rank(r, j, p);
            if (dst != (j < wrap ? r + j : j - wrap))
                return topo_fail(why, len, "rank %d slot %d: destination %d", r,
                                 j, dst);
            t[r][j] = r * p + dst;
        }
    }
    for (d = 1; d < p; d *= 2) {
        if (bruck_runs_check(d, p, why, len) != 0)
            return -1;
        for (r = 0; r < p; r++)
            memcpy(old[r], t[r], (size_t) p * sizeof t[r][0]);
        for (i = 0; i < ch4coll_bruck_a2a_nruns(d, p); i++) {
            ch4coll_bruck_a2a_run(d, p, i, &lo, &hi);
            for (j = lo; j < hi; j++)
                for (r = 0; r < p; r++)
                    t[r][j] = old[(r - d + p) % p][j];
        }
    }
    for (r = 0; r < p; r++) {
        memset(got, 0, sizeof got);
        for (j = 0; j < p; j++) {
            int src = ch4coll_bruck_a2a_origin(r, j, p);
            if (t[r][j] % p != r || t[r][j] / p != src || got[src]++)
                return topo_fail(why, len,
                                 "rank %d slot %d: %d->%d, expected %d->%d", r,
                                 j, t[r][j] / p, t[r][j] % p, src, r);
        }
    }
    return 0;
}

START_TEST(test_topo_bruck_alltoall)
{
    static int t[TREES_PMAX][TREES_PMAX], old[TREES_PMAX][TREES_PMAX];
    char why[160];
    int p;

    for (p = 1; p <= TREES_PMAX; p++)
        ck_assert_msg(bruck_a2a_check(p, t, old, why, sizeof why) == 0,
                      "p=%d: %s", p, why);
}
END_TEST

/* The permuted list of p ranks from seed: a permutation with its inverse,
 * the same when drawn again; in every turn the destinations of all ranks
 * are distinct, never the sender, and the sender is the source its
 * destination hears from; over the p - 1 turns every rank sends to every
 * other rank once.  met: p x p. */
static int perm_check(int p, uint64_t seed, unsigned char (*met)[TREES_PMAX],
                      char *why, size_t len)
{
    int list[TREES_PMAX], pos[TREES_PMAX], list2[TREES_PMAX], pos2[TREES_PMAX];
    unsigned char seen[TREES_PMAX];
    int i, t, r;

    ch4coll_perm_shuffle(p, seed, list, pos);
    ch4coll_perm_shuffle(p, seed, list2, pos2);
    memset(seen, 0, sizeof seen);
    for (i = 0; i < p; i++) {
        if (list[i] < 0 || list[i] >= p || seen[list[i]]++)
            return topo_fail(why, len, "list[%d] = %d", i, list[i]);
        if (pos[list[i]] != i)
            return topo_fail(why, len, "pos[%d] = %d, not %d", list[i],
                             pos[list[i]], i);
        if (list2[i] != list[i] || pos2[i] != pos[i])
            return topo_fail(why, len, "a second draw differs at %d", i);
    }
    for (r = 0; r < p; r++)
        memset(met[r], 0, (size_t) p);
    for (t = 0; t < p - 1; t++) {
        memset(seen, 0, sizeof seen);
        for (r = 0; r < p; r++) {
            int dst = ch4coll_perm_dest(list, p, pos[r], t);
            if (dst < 0 || dst >= p || dst == r || seen[dst]++ || met[r][dst]++)
                return topo_fail(why, len, "turn %d: %d -> %d", t, r, dst);
            if (ch4coll_perm_source(list, p, pos[dst], t) != r)
                return topo_fail(why, len, "turn %d: %d hears from %d, not %d",
                                 t, dst,
                                 ch4coll_perm_source(list, p, pos[dst], t), r);
        }
    }
    for (r = 0; r < p; r++)
        for (i = 0; i < p; i++)
            if (met[r][i] != (i != r))
                return topo_fail(why, len, "%d sends %d times to %d", r,
                                 met[r][i], i);
    return 0;
}

/* The builders' seed and another for p = 1..200, and the list of
 * alltoall_bruck.c's worked example (p = 5). */
START_TEST(test_topo_permutation)
{
    static const int p5[] = {1, 2, 0, 3, 4};
    static unsigned char met[TREES_PMAX][TREES_PMAX];
    int list[5], pos[5], p, i;
    char why[160];

    for (p = 1; p <= TREES_PMAX; p++) {
        ck_assert(ch4coll_perm_seed(p) != 0);
        ck_assert_msg(
            perm_check(p, ch4coll_perm_seed(p), met, why, sizeof why) == 0,
            "p=%d: %s", p, why);
        ck_assert_msg(perm_check(p, UINT64_C(12345) + (uint64_t) p, met, why,
                                 sizeof why) == 0,
                      "p=%d, seed 12345 + p: %s", p, why);
    }
    ch4coll_perm_shuffle(5, ch4coll_perm_seed(5), list, pos);
    for (i = 0; i < 5; i++)
        ck_assert_int_eq(list[i], p5[i]);
}
END_TEST

/* ------------------------------------------------------------ mesh */

/* Row-major coordinates, written out again so that the mesh helpers are
 * checked against an independent decoding. */
static void mesh_decode(int r, int nd, const int *dims, int *c)
{
    int k, stride = 1;

    for (k = 1; k < nd; k++)
        stride *= dims[k];
    for (k = 0; k < nd; k++) {
        c[k] = r / stride;
        r %= stride;
        if (k + 1 < nd)
            stride /= dims[k + 1];
    }
}

/* Grid neighbours: coordinates differ by one in exactly one dimension. */
static int mesh_nbrs(int r, int q, int nd, const int *dims)
{
    int cr[CH4COLL_MESH_MAXD], cq[CH4COLL_MESH_MAXD], k, dist = 0;

    mesh_decode(r, nd, dims, cr);
    mesh_decode(q, nd, dims, cq);
    for (k = 0; k < nd; k++)
        dist += abs(cr[k] - cq[k]);
    return dist == 1;
}

static int largest_prime_factor(int p)
{
    int d, f = 1;

    for (d = 2; d <= p; d++)
        while (p % d == 0) {
            f = d;
            p /= d;
        }
    return f;
}

/* Depth-first search for a Hamiltonian cycle through rank 0. */
static int ham_extend(int *path, int len, unsigned char *used, int p, int nd,
                      const int *dims)
{
    int q;

    if (len == p)
        return p == 1 || p == 2 || mesh_nbrs(path[p - 1], path[0], nd, dims);
    for (q = 0; q < p; q++)
        if (!used[q] && mesh_nbrs(path[len - 1], q, nd, dims)) {
            used[q] = 1;
            path[len] = q;
            if (ham_extend(path, len + 1, used, p, nd, dims))
                return 1;
            used[q] = 0;
        }
    return 0;
}

START_TEST(test_mesh_dims)
{
    int p, nd, k, m, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            long prod = 1;
            ch4coll_mesh_dims(p, nd, dims);
            for (k = 0; k < nd; k++) {
                ck_assert_int_ge(dims[k], 1);
                if (k > 0)
                    ck_assert_msg(dims[k] <= dims[k - 1],
                                  "p=%d nd=%d: extents not descending", p, nd);
                prod *= dims[k];
            }
            ck_assert_msg(prod == p, "p=%d nd=%d: product %ld", p, nd, prod);
            /* balance: largest over smallest at most the largest prime
             * factor */
            ck_assert_msg(dims[0] <= dims[nd - 1] * largest_prime_factor(p),
                          "p=%d nd=%d: %d vs %d", p, nd, dims[0], dims[nd - 1]);
            /* optimal: no factorisation has a smaller largest extent */
            {
                int a, b, c, opt = p;
                for (a = 1; a <= p; a++)
                    for (b = 1; b <= (nd > 1 ? p : 1); b++) {
                        if (nd == 1 && (a != p || b != 1))
                            continue;
                        if ((long) a * b > p || p % (a * b) != 0)
                            continue;
                        c = p / (a * b);
                        if (nd == 2 && c != 1)
                            continue;
                        if (a >= b && b >= c && a < opt)
                            opt = a;
                    }
                ck_assert_msg(dims[0] == opt, "p=%d nd=%d: largest %d, best %d",
                              p, nd, dims[0], opt);
            }
        }
    /* perfect powers split evenly; a prime stays a line */
    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (m = 1; m <= 17; m++) {
            int q = 1;
            for (k = 0; k < nd; k++)
                q *= m;
            if (q > 5000)
                continue;
            ch4coll_mesh_dims(q, nd, dims);
            for (k = 0; k < nd; k++)
                ck_assert_msg(dims[k] == m, "%d^%d: extent %d is %d", m, nd, k,
                              dims[k]);
        }
    ch4coll_mesh_dims(61, 3, dims);
    ck_assert(dims[0] == 61 && dims[1] == 1 && dims[2] == 1);
    ch4coll_mesh_dims(12, 2, dims);
    ck_assert(dims[0] == 4 && dims[1] == 3);
    ch4coll_mesh_dims(72, 2, dims);
    ck_assert(dims[0] == 9 && dims[1] == 8);
}
END_TEST

START_TEST(test_mesh_coords)
{
    int p, nd, r, k, dims[CH4COLL_MESH_MAXD], c[CH4COLL_MESH_MAXD],
        e[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            for (r = 0; r < p; r++) {
                ch4coll_mesh_coords(r, nd, dims, c);
                mesh_decode(r, nd, dims, e);
                for (k = 0; k < nd; k++)
                    ck_assert_int_eq(c[k], e[k]);
                ck_assert_int_eq(ch4coll_mesh_rank(nd, dims, c), r);
                if (r > 0)
                    ck_assert_int_eq(ch4coll_mesh_adjacent(r - 1, r, nd, dims),
                                     mesh_nbrs(r - 1, r, nd, dims));
                ck_assert_int_eq(
                    ch4coll_mesh_adjacent(r, (r * 7 + 3) % p, nd, dims),
                    mesh_nbrs(r, (r * 7 + 3) % p, nd, dims));
            }
        }
}
END_TEST

START_TEST(test_mesh_snake)
{
    unsigned char seen[300];
    int p, nd, i, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            memset(seen, 0, sizeof seen);
            ck_assert_int_eq(ch4coll_snake_rank(0, nd, dims), 0);
            for (i = 0; i < p; i++) {
                int r = ch4coll_snake_rank(i, nd, dims);
                ck_assert_msg(r >= 0 && r < p, "p=%d nd=%d: position %d -> %d",
                              p, nd, i, r);
                ck_assert_msg(seen[r]++ == 0, "p=%d nd=%d: rank %d twice", p,
                              nd, r);
                if (i > 0)
                    ck_assert_msg(mesh_nbrs(ch4coll_snake_rank(i - 1, nd, dims),
                                            r, nd, dims),
                                  "p=%d nd=%d: positions %d, %d not adjacent",
                                  p, nd, i - 1, i);
            }
        }
}
END_TEST

START_TEST(test_mesh_cycle)
{
    unsigned char seen[300];
    int p, nd, i, k, dims[CH4COLL_MESH_MAXD];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 1; p <= 300; p++) {
            int big = 0, even = 0, expect, has;
            ch4coll_mesh_dims(p, nd, dims);
            for (k = 0; k < nd; k++) {
                big += dims[k] >= 2;
                even |= dims[k] % 2 == 0;
            }
            /* a cycle exists exactly when an extent is even and the mesh
             * is not a line (p = 2: the two ranks and back) */
            expect = p == 2 || (even && big >= 2);
            has = ch4coll_mesh_has_cycle(nd, dims);
            ck_assert_msg(has == expect, "p=%d nd=%d: has_cycle %d", p, nd,
                          has);
            memset(seen, 0, sizeof seen);
            for (i = 0; i < p; i++) {
                int r = ch4coll_cycle_rank(i, nd, dims);
                if (!has) {
                    ck_assert_int_eq(r, -1);
                    continue;
                }
                ck_assert_msg(r >= 0 && r < p, "p=%d nd=%d: position %d -> %d",
                              p, nd, i, r);
                ck_assert_msg(seen[r]++ == 0, "p=%d nd=%d: rank %d twice", p,
                              nd, r);
                ck_assert_msg(
                    mesh_nbrs(r, ch4coll_cycle_rank((i + 1) % p, nd, dims), nd,
                              dims),
                    "p=%d nd=%d: positions %d, %d not adjacent", p, nd, i,
                    (i + 1) % p);
            }
        }
}
END_TEST

/* has_cycle's "no" against exhaustive search on small meshes */
START_TEST(test_mesh_cycle_brute)
{
    int path[16], p, nd, dims[CH4COLL_MESH_MAXD];
    unsigned char used[16];

    for (nd = 1; nd <= CH4COLL_MESH_MAXD; nd++)
        for (p = 2; p <= 16; p++) {
            ch4coll_mesh_dims(p, nd, dims);
            memset(used, 0, sizeof used);
            used[0] = 1;
            path[0] = 0;
            ck_assert_msg(ham_extend(path, 1, used, p, nd, dims) ==
                              ch4coll_mesh_has_cycle(nd, dims),
                          "p=%d nd=%d", p, nd);
        }
}
END_TEST

/* The blocks of p by brute force: every set bit, largest first, contiguous
 * rank ranges; every rank in exactly one block with the right local rank. */
START_TEST(test_topo_blocks)
{
    static const int big[] = {INT_MAX, (1 << 30) | 1, 1 << 30, 1000000007};
    int p, i, r, e;

    for (p = 1; p <= 5000 + 4; p++) {
        int q = p <= 5000 ? p : big[p - 5001], base = 0, nbits = 0;
        ch4coll_blocks_t b;
        ch4coll_blocks(q, &b);
        for (e = 0; e < 31; e++)
            nbits += q >> e & 1;
        ck_assert_int_eq(b.n, nbits);
        for (i = 0; i < b.n; i++) {
            ck_assert_msg(q >> b.expo[i] & 1, "p=%d block %d: 2^%d not in p", q,
                          i, b.expo[i]);
            if (i > 0)
                ck_assert_int_gt(b.expo[i - 1], b.expo[i]);
            ck_assert_int_eq(b.base[i], base);
            base += 1 << b.expo[i];
        }
        ck_assert_int_eq(base, q);
        if (q > 300)
            continue;
        for (r = 0; r < q; r++) {
            int local, blk = ch4coll_blocks_find(&b, r, &local);
            ck_assert(blk >= 0 && blk < b.n);
            ck_assert_msg(local >= 0 && local < 1 << b.expo[blk] &&
                              b.base[blk] + local == r,
                          "p=%d rank %d: block %d local %d", q, r, blk, local);
        }
    }
}
END_TEST

/* Virtual placements, normalisation, consecutiveness and the node order
 * against brute force. */
START_TEST(test_topo_nodes)
{
    int p, ppn, map, i, j;
    int node_of[130], tmp[130], order[130], first[131], seen[130];

    for (p = 1; p <= 129; p++)
        for (ppn = 1; ppn <= 9; ppn++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++) {
                int nodes, want = (p + ppn - 1) / ppn, big = 0, small = p;
                for (i = 0; i < p; i++)
                    node_of[i] = ch4coll_virtual_node(i, p, ppn, map);
                nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                ck_assert_int_eq(nodes, want);
                ck_assert_int_eq(node_of[0], 0);
                for (i = 1; i < p; i++) { /* first appearance order */
                    int m = 0;
                    for (j = 0; j < i; j++)
                        m = node_of[j] > m ? node_of[j] : m;
                    ck_assert(node_of[i] <= m + 1);
                }
                ck_assert_int_eq(ch4coll_nodes_consecutive(p, node_of),
                                 map == CH4COLL_MAP_BLOCK || nodes == 1 ||
                                     nodes == p);
                ch4coll_node_order(p, node_of, nodes, order, first);
                ck_assert_int_eq(first[0], 0);
                ck_assert_int_eq(first[nodes], p);
                memset(seen, 0, sizeof seen);
                for (j = 0; j < nodes; j++) {
                    int n = first[j + 1] - first[j];
                    big = n > big ? n : big;
                    small = n < small ? n : small;
                    for (i = first[j]; i < first[j + 1]; i++) {
                        ck_assert_int_eq(node_of[order[i]], j);
                        if (i > first[j])
                            ck_assert_int_lt(order[i - 1], order[i]);
                        seen[order[i]]++;
                    }
                }
                for (i = 0; i < p; i++)
                    ck_assert_int_eq(seen[i], 1);
                ck_assert_int_le(big, ppn); /* no node over ppn ranks */
                {
                    int lo, hi;
                    ch4coll_nodes_ppn(p, node_of, nodes, tmp, &lo, &hi);
                    ck_assert_int_eq(lo, small);
                    ck_assert_int_eq(hi, big);
                }
                if (map == CH4COLL_MAP_CYCLIC)
                    ck_assert_int_le(big - small, 1);
            }
    /* host-style labels (a node's lowest rank) */
    for (i = 0; i < 10; i++)
        node_of[i] = i % 3 == 2 ? 2 : i < 5 ? 0 : 5;
    ck_assert_int_eq(ch4coll_nodes_normalise(10, node_of, tmp), 3);
    ck_assert_int_eq(node_of[2], 1);
    ck_assert_int_eq(node_of[5], 1);
    ck_assert_int_eq(node_of[6], 2);
}
END_TEST

/* allgather node_ring (the old name of ring, registry.c) under a cyclic
 * placement (p = 24 on nodes of 4; p = 61 on nodes of 8, five of 8 ranks
 * and three of 7): round i is the i-th send
 * and the i-th receive of every rank.  In every round exactly one rank per
 * node sends to another node and one receives from another node (NEC 4.2,
 * Traeff et al. Figure 1); every rank receives every other rank's block at
 * its place. */
START_TEST(test_node_ring_crossings)
{
    static const int pc[2][2] = {{24, 4}, {61, 8}};
    const ch4coll_algo_t *node_ring =
        ch4coll_algo_find(CH4COLL_ALLGATHER, "node_ring");
    ch4coll_elem_t byte = {MPI_BYTE, 1, 1, 0, 1, 1};
    size_t n = 5;
    int c, r, k, j, v;

    ck_assert_ptr_eq(node_ring, ch4coll_algo_find(CH4COLL_ALLGATHER, "ring"));

    for (c = 0; c < 2; c++) {
        int p = pc[c][0], ppn = pc[c][1];
        int *node_of = malloc((size_t) p * sizeof *node_of);
        int *tmp = malloc((size_t) p * sizeof *tmp);
        int *out = malloc((size_t) p * sizeof *out);
        int *in = malloc((size_t) p * sizeof *in);
        int *got = malloc((size_t) p * sizeof *got);
        ch4coll_sched_t *s = calloc((size_t) p, sizeof *s);
        ch4coll_locality_t loc;

        for (r = 0; r < p; r++)
            node_of[r] = ch4coll_virtual_node(r, p, ppn, CH4COLL_MAP_CYCLIC);
        loc.nodes = ch4coll_nodes_normalise(p, node_of, tmp);
        loc.consecutive = ch4coll_nodes_consecutive(p, node_of);
        loc.node_of = node_of;
        ck_assert_int_ge(loc.nodes, 2);
        ck_assert(!loc.consecutive);
        for (r = 0; r < p; r++) {
            ch4coll_args_t a;
            memset(&a, 0, sizeof a);
            a.coll = CH4COLL_ALLGATHER;
            a.rank = r;
            a.size = p;
            a.count = n;
            a.elem = byte;
            a.op = MPI_OP_NULL;
            a.commutative = 1;
            a.loc = &loc;
            ck_assert_int_eq(ch4coll_sched_init(&s[r], &a.elem, a.op, r, p),
                             CH4COLL_OK);
            ck_assert_int_eq(node_ring->build(&s[r], &a, NULL), CH4COLL_OK);
            ck_assert_int_eq(ch4coll_sched_commit(&s[r]), CH4COLL_OK);
        }
        for (k = 0; k < p - 1; k++) {
            memset(out, 0, (size_t) p * sizeof *out);
            memset(in, 0, (size_t) p * sizeof *in);
            for (r = 0; r < p; r++) {
                int ns = 0, nr = 0, vs = -1, vr = -1;
                for (v = 0; v < s[r].nv; v++) {
                    if (s[r].vtx[v].kind == CH4COLL_V_SEND && ns++ == k)
                        vs = v;
                    if (s[r].vtx[v].kind == CH4COLL_V_RECV && nr++ == k)
                        vr = v;
                }
                ck_assert_int_eq(ns, p - 1);
                ck_assert_int_eq(nr, p - 1);
                if (node_of[s[r].vtx[vs].peer] != node_of[r])
                    out[node_of[r]]++;
                if (node_of[s[r].vtx[vr].peer] != node_of[r])
                    in[node_of[r]]++;
            }
            for (j = 0; j < loc.nodes; j++) {
                ck_assert_int_eq(out[j], 1);
                ck_assert_int_eq(in[j], 1);
            }
        }
        for (r = 0; r < p; r++) { /* every other block once, at its place */
            memset(got, 0, (size_t) p * sizeof *got);
            for (v = 0; v < s[r].nv; v++) {
                const ch4coll_vtx_t *x = &s[r].vtx[v];
                if (x->kind != CH4COLL_V_RECV)
                    continue;
                ck_assert_int_eq(x->a.buf, CH4COLL_BUF_RECV);
                ck_assert_uint_eq(x->count, n);
                ck_assert_uint_eq(x->a.off % n, 0);
                got[x->a.off / n]++;
            }
            for (j = 0; j < p; j++)
                ck_assert_int_eq(got[j], j == r ? 0 : 1);
            ch4coll_sched_destroy(&s[r]);
        }
        free(s);
        free(got);
        free(in);
        free(out);
        free(tmp);
        free(node_of);
    }
}
END_TEST

/* The rooted node order against brute force: the root's node first, its
 * ranks from the root up, then the lower ones; then the following nodes
 * and, wrapping, the preceding ones, each in rank order.  On one node or
 * one rank per node: the rotation by root. */
START_TEST(test_topo_node_order_rooted)
{
    int p, ppn, map, root, i, v, d;
    int node_of[65], tmp[65], seq[65], want[65], work[65 + 66];

    for (p = 1; p <= 64; p++)
        for (ppn = 1; ppn <= 9; ppn++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++) {
                int nodes;
                for (i = 0; i < p; i++)
                    node_of[i] = ch4coll_virtual_node(i, p, ppn, map);
                nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                for (root = 0; root < p; root++) {
                    int rn = node_of[root], k = 0;
                    for (i = root; i < p; i++)
                        if (node_of[i] == rn)
                            want[k++] = i;
                    for (i = 0; i < root; i++)
                        if (node_of[i] == rn)
                            want[k++] = i;
                    for (d = 1; d < nodes; d++)
                        for (i = 0; i < p; i++)
                            if (node_of[i] == (rn + d) % nodes)
                                want[k++] = i;
                    ck_assert_int_eq(k, p);
                    ch4coll_node_order_rooted(p, node_of, nodes, root, seq,
                                              work);
                    for (v = 0; v < p; v++) {
                        ck_assert_int_eq(seq[v], want[v]);
                        if (nodes == 1 || nodes == p)
                            ck_assert_int_eq(seq[v], (root + v) % p);
                    }
                }
            }
}
END_TEST

/* delta_expo_max: the paper's examples, brute force, and the selection
 * predicate's own function (select/predicates.c). */
START_TEST(test_topo_blocks_delta)
{
    static const int paper[][2] = {{100, 3}, {96, 1}, {60, 1}, {61, 2},
                                   {36, 3},  {77, 3}, {80, 2}, {235, 2},
                                   {251, 2}, {1, 0},  {64, 0}, {65, 6}};
    int i, p;

    for (i = 0; i < (int) (sizeof paper / sizeof paper[0]); i++)
        ck_assert_msg(ch4coll_blocks_delta_expo_max(paper[i][0]) == paper[i][1],
                      "delta_expo_max(%d) = %d, expected %d", paper[i][0],
                      ch4coll_blocks_delta_expo_max(paper[i][0]), paper[i][1]);
    for (p = 1; p <= 5000; p++) {
        int prev = -1, gap = 0, e;
        for (e = 30; e >= 0; e--)
            if (p >> e & 1) {
                if (prev >= 0 && prev - e > gap)
                    gap = prev - e;
                prev = e;
            }
        ck_assert_int_eq(ch4coll_blocks_delta_expo_max(p), gap);
        ck_assert_int_eq(ch4coll_blocks_delta_expo_max(p),
                         ch4coll_delta_expo_max(p));
    }
    ck_assert_int_eq(ch4coll_blocks_delta_expo_max(INT_MAX), 1);
    ck_assert_int_eq(ch4coll_blocks_delta_expo_max((1 << 30) | 1), 30);
}
END_TEST

/* Recursive halving ranges against a simulation of the halving: after j
 * steps l holds 2^(k-j) segments from halving_lo(l, j, k); they depend on
 * the low j bits only, the l < 2^j tile [0, 2^k), and each step keeps the
 * lower or upper half as bit j says. */
START_TEST(test_topo_halving_ranges)
{
    static unsigned char cover[1 << 10];
    int k, j, l;

    for (k = 0; k <= 10; k++)
        for (j = 0; j <= k; j++) {
            int len = 1 << (k - j), x;
            memset(cover, 0, sizeof cover);
            for (l = 0; l < 1 << k; l++) {
                int lo = 0, span = 1 << k, s, got = ch4coll_halving_lo(l, j, k);
                for (s = 0; s < j; s++) { /* simulate */
                    span /= 2;
                    if (l >> s & 1)
                        lo += span;
                }
                ck_assert_msg(got == lo, "k=%d j=%d l=%d: %d, expected %d", k,
                              j, l, got, lo);
                ck_assert_int_eq(got,
                                 ch4coll_halving_lo(l & ((1 << j) - 1), j, k));
                if (j < k) /* the next step keeps one half of this range */
                    ck_assert_int_eq(ch4coll_halving_lo(l, j + 1, k),
                                     got + (l >> j & 1) * (len / 2));
                if (l < 1 << j)
                    for (x = got; x < got + len; x++)
                        ck_assert_int_eq(cover[x]++, 0);
            }
            for (x = 0; x < 1 << k; x++)
                ck_assert_msg(cover[x] == 1, "k=%d j=%d: segment %d", k, j, x);
        }
}
END_TEST

/*
 * reduce pipelined_bintree's in-order tree, read off the schedules of all
 * ranks (sends go to the parent, receives come from the children): a tree
 * rooted at the root reaching every rank, at most two children, a left
 * child's subtree entirely below its parent and a right child's above (so
 * folding L op own op R keeps rank order), and height at most
 * ceil(lg(s + 1)), s the root's larger side.
 */
START_TEST(test_topo_inorder_reduce_tree)
{
    const ch4coll_algo_t *al =
        ch4coll_algo_find(CH4COLL_REDUCE, "pipelined_bintree");
    int64_t params[CH4COLL_MAX_PARAMS] = {4};
    int parent[130], kids[130][3], nk[130], lo[130], hi[130];
    int p, root, r, v, j;

    ck_assert_ptr_nonnull(al);
    for (p = 1; p <= 130; p++)
        for (root = 0; root<p; root += p> 20 ? 7 : 1) {
            int s = root > p - 1 - root ? root : p - 1 - root, h = 0, lim = 0;
            while ((1 << lim) < s + 1)
                lim++;
            for (r = 0; r < p; r++) {
                ch4coll_sched_t sc;
                ch4coll_args_t a;
                ch4coll_elem_t e = {MPI_INT, 4, 4, 0, 4, 1};
                memset(&a, 0, sizeof a);
                a.coll = CH4COLL_REDUCE;
                a.rank = r;
                a.size = p;
                a.root = root;
                a.count = 3; /* three pieces of one int */
                a.elem = e;
                a.op = MPI_SUM;
                a.commutative = 1;
                ck_assert_int_eq(ch4coll_sched_init(&sc, &e, MPI_SUM, r, p),
                                 CH4COLL_OK);
                ck_assert_int_eq(al->build(&sc, &a, params), CH4COLL_OK);
                parent[r] = -1;
                nk[r] = 0;
                for (v = 0; v < sc.nv; v++) {
                    const ch4coll_vtx_t *x = &sc.vtx[v];
                    if (x->kind == CH4COLL_V_SEND) {
                        ck_assert(parent[r] < 0 || parent[r] == x->peer);
                        parent[r] = x->peer;
                    } else if (x->kind == CH4COLL_V_RECV) {
                        for (j = 0; j < nk[r] && kids[r][j] != x->peer; j++)
                            ;
                        if (j == nk[r]) {
                            ck_assert_int_lt(nk[r], 2);
                            kids[r][nk[r]++] = x->peer;
                        }
                    }
                }
                ch4coll_sched_destroy(&sc);
            }
            for (r = 0; r < p; r++) {
                int d = 0, x = r;
                ck_assert((r == root) == (parent[r] < 0));
                for (j = 0; j < nk[r]; j++)
                    ck_assert_int_eq(parent[kids[r][j]], r);
                if (r != root) { /* r is among its parent's children */
                    for (j = 0; j < nk[parent[r]]; j++)
                        if (kids[parent[r]][j] == r)
                            break;
                    ck_assert_int_lt(j, nk[parent[r]]);
                }
                lo[r] = hi[r] = r; /* subtree span, below */
                while (parent[x] >= 0 && d <= p) {
                    x = parent[x];
                    d++;
                }
                ck_assert_int_eq(x, root); /* no cycle, reaches the root */
                h = d > h ? d : h;
            }
            ck_assert_int_le(h, lim);
            /* spans bottom up: repeat p times (depth <= p) */
            for (v = 0; v < p; v++)
                for (r = 0; r < p; r++)
                    for (j = 0; j < nk[r]; j++) {
                        int c = kids[r][j];
                        lo[r] = lo[c] < lo[r] ? lo[c] : lo[r];
                        hi[r] = hi[c] > hi[r] ? hi[c] : hi[r];
                    }
            for (r = 0; r < p; r++)
                for (j = 0; j < nk[r]; j++) {
                    int c = kids[r][j];
                    ck_assert(hi[c] < r || lo[c] > r);
                }
            ck_assert_int_eq(lo[root], 0);
            ck_assert_int_eq(hi[root], p - 1);
        }
}
END_TEST

static const int line_ps[] = {1,  2,  3,  4,  5,  6,   7,  8,  9,
                              10, 11, 12, 13, 14, 15,  16, 17, 24,
                              30, 32, 36, 61, 64, 100, 128};

static ch4coll_args_t line_args(int coll, int r, int p, int root, size_t n)
{
    ch4coll_args_t a;
    ch4coll_elem_t byte = {MPI_BYTE, 1, 1, 0, 1, 1};
    ch4coll_elem_t i32 = {MPI_INT, 4, 4, 0, 4, 1};

    memset(&a, 0, sizeof a);
    a.coll = coll;
    a.rank = r;
    a.size = p;
    a.root = root;
    a.count = n;
    a.elem = coll == CH4COLL_BCAST ? byte : i32;
    a.op = coll == CH4COLL_BCAST ? MPI_OP_NULL : MPI_SUM;
    a.commutative = 1;
    a.op_builtin = 1;
    return a;
}

/* bcast line: every non-root rank receives each byte exactly once, the root
 * none; between every pair, per tag, the k-th send has the size of the k-th
 * receive; tags < ntags. */
START_TEST(test_bcast_line_structure)
{
    int p = line_ps[_i], streams, root, r, v, q;
    size_t n = 1001;
    int64_t params[CH4COLL_MAX_PARAMS] = {100, 1};
    ch4coll_sched_t *s = calloc((size_t) p, sizeof *s);
    unsigned char *seen = malloc(n);

    for (streams = 1; streams <= 3; streams++)
        for (root = 0; root<p; root += p / 2> 0 ? p / 2 : 1) {
            params[1] = streams;
            for (r = 0; r < p; r++) {
                ch4coll_args_t a = line_args(CH4COLL_BCAST, r, p, root, n);
                ck_assert_int_eq(ch4coll_sched_init(&s[r], &a.elem, a.op, r, p),
                                 CH4COLL_OK);
                ck_assert_int_eq(ch4coll_bcast_line(&s[r], &a, params),
                                 CH4COLL_OK);
                ck_assert_int_eq(ch4coll_sched_commit(&s[r]), CH4COLL_OK);
            }
            for (r = 0; r < p; r++) {
                memset(seen, 0, n);
                for (v = 0; v < s[r].nv; v++) {
                    const ch4coll_vtx_t *x = &s[r].vtx[v];
                    size_t i;
                    ck_assert_int_lt(x->tag, s[r].ntags);
                    if (x->kind != CH4COLL_V_RECV)
                        continue;
                    for (i = 0; i < x->count; i++)
                        seen[x->a.off + i]++;
                }
                for (size_t i = 0; i < n; i++)
                    ck_assert_int_eq(seen[i], r == root ? 0 : 1);
                for (q = 0; q < p; q++) { /* r -> q matches q <- r */
                    int vs = 0, vr = 0;
                    for (;;) {
                        while (vs < s[r].nv &&
                               (s[r].vtx[vs].kind != CH4COLL_V_SEND ||
                                s[r].vtx[vs].peer != q))
                            vs++;
                        while (vr < s[q].nv &&
                               (s[q].vtx[vr].kind != CH4COLL_V_RECV ||
                                s[q].vtx[vr].peer != r))
                            vr++;
                        ck_assert_int_eq(vs < s[r].nv, vr < s[q].nv);
                        if (vs == s[r].nv)
                            break;
                        ck_assert_int_eq(s[r].vtx[vs].tag, s[q].vtx[vr].tag);
                        ck_assert_uint_eq(s[r].vtx[vs].count,
                                          s[q].vtx[vr].count);
                        vs++;
                        vr++;
                    }
                }
            }
            for (r = 0; r < p; r++)
                ch4coll_sched_destroy(&s[r]);
            if (p == 1)
                break;
        }
    free(seen);
    free(s);
}
END_TEST

/* allreduce line: a rank exchanges at most one message with each peer in
 * each direction, sends and receives as many as the phases' lines need,
 * and its scratch stays within group-1 vectors (max(group-1, 3) when a
 * prime factor exceeds group). */
START_TEST(test_allreduce_line_structure)
{
    static const int groups[] = {2, 3, 4, 7};
    int p = line_ps[_i], gi, r, v;
    size_t n = 5;
    ch4coll_sched_t s;
    int *nsend = malloc((size_t) p * sizeof *nsend);
    int *nrecv = malloc((size_t) p * sizeof *nrecv);

    for (gi = 0; gi < 4; gi++) {
        int64_t params[CH4COLL_MAX_PARAMS] = {groups[gi]};
        int q = p, f, msgs = 0, bound = groups[gi] - 1;
        for (f = 2; q > 1; f++) /* sum over phases of R - 1 >= ... */
            while (q % f == 0) {
                q /= f;
                if (f > groups[gi] && bound < 3)
                    bound = 3;
            }
        for (r = 0; r < p; r++) {
            ch4coll_args_t a = line_args(CH4COLL_ALLREDUCE, r, p, 0, n);
            int sends = 0, recvs = 0;
            memset(nsend, 0, (size_t) p * sizeof *nsend);
            memset(nrecv, 0, (size_t) p * sizeof *nrecv);
            ck_assert_int_eq(ch4coll_sched_init(&s, &a.elem, a.op, r, p),
                             CH4COLL_OK);
            ck_assert_int_eq(ch4coll_allreduce_line(&s, &a, params),
                             CH4COLL_OK);
            ck_assert_int_eq(ch4coll_sched_commit(&s), CH4COLL_OK);
            for (v = 0; v < s.nv; v++) {
                const ch4coll_vtx_t *x = &s.vtx[v];
                if (x->kind == CH4COLL_V_SEND) {
                    ck_assert_int_ne(x->peer, r);
                    ck_assert_int_eq(++nsend[x->peer], 1);
                    sends++;
                } else if (x->kind == CH4COLL_V_RECV) {
                    ck_assert_int_eq(++nrecv[x->peer], 1);
                    recvs++;
                }
            }
            for (v = 0; v < p; v++) /* the relation is symmetric */
                ck_assert_int_eq(nsend[v], nrecv[v]);
            ck_assert_int_eq(sends, recvs);
            if (r == 0)
                msgs = sends;
            ck_assert_int_eq(sends, msgs); /* the same on every rank */
            ck_assert_uint_le(ch4coll_sched_scratch_size(&s),
                              (size_t) bound * n * sizeof(int));
            ch4coll_sched_destroy(&s);
        }
    }
    free(nsend);
    free(nrecv);
}
END_TEST

/* smp pipelines through a ring of piece scratch (algos/smp.c, SMP_RING =
 * 4): with the same piece size, a call of 64 pieces holds no more scratch
 * at any rank than one of 8, where without the ring it holds 8 times as
 * much.  p = 12 on nodes of 4 and p = 13 on nodes of 3 (a short last node),
 * block and cyclic; chunk 64 bytes.  Pieces: 16 ints (reduce, allreduce:
 * chunk / 4 bytes), 64 / p units of each block (allgather: chunk / p
 * units), 1 int of each block (reduce_scatter_block: chunk / (4 p)). */
START_TEST(test_smp_scratch_ring)
{
    static const int colls[] = {CH4COLL_REDUCE, CH4COLL_ALLREDUCE,
                                CH4COLL_ALLGATHER,
                                CH4COLL_REDUCE_SCATTER_BLOCK};
    static const int shapes[][2] = {{12, 4}, {13, 3}};
    int ci, si, map, r, k;

    for (ci = 0; ci < 4; ci++)
        for (si = 0; si < 2; si++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++) {
                int p = shapes[si][0], ppn = shapes[si][1];
                const ch4coll_algo_t *al = ch4coll_algo_find(colls[ci], "smp");
                int64_t params[CH4COLL_MAX_PARAMS] = {64};
                int node_of[13], tmp[13];
                ch4coll_locality_t loc;
                size_t unit = colls[ci] == CH4COLL_ALLGATHER ? 64 / (size_t) p
                              : colls[ci] == CH4COLL_REDUCE_SCATTER_BLOCK ? 1
                                                                          : 16;
                for (r = 0; r < p; r++)
                    node_of[r] = ch4coll_virtual_node(r, p, ppn, map);
                loc.nodes = ch4coll_nodes_normalise(p, node_of, tmp);
                loc.consecutive = ch4coll_nodes_consecutive(p, node_of);
                loc.node_of = node_of;
                ck_assert_ptr_nonnull(al);
                for (r = 0; r < p; r++) {
                    size_t bytes[2];
                    for (k = 0; k < 2; k++) {
                        ch4coll_args_t a = line_args(colls[ci], r, p, p - 1,
                                                     (k ? 64 : 8) * unit);
                        ch4coll_sched_t s;
                        a.loc = &loc;
                        ck_assert_int_eq(
                            ch4coll_sched_init(&s, &a.elem, a.op, r, p),
                            CH4COLL_OK);
                        ck_assert_int_eq(al->build(&s, &a, params), CH4COLL_OK);
                        ck_assert_int_eq(ch4coll_sched_commit(&s), CH4COLL_OK);
                        bytes[k] = ch4coll_sched_scratch_size(&s);
                        ch4coll_sched_destroy(&s);
                    }
                    ck_assert_msg(bytes[1] <= bytes[0],
                                  "%s p=%d ppn=%d map=%d rank %d: %zu bytes of "
                                  "scratch with 64 pieces, %zu with 8",
                                  ch4coll_coll_name(colls[ci]), p, ppn, map, r,
                                  bytes[1], bytes[0]);
                }
            }
}
END_TEST

/* ========================================================= 7. kernels */

/* MPICH 4.0.2's MPI_MAX and MPI_MIN on some unsigned types compare the
 * values as signed (MAX(200, 100) = 100 for MPI_UNSIGNED_CHAR): where the
 * host gets an unsigned pair wrong, the kernel is checked against the
 * definition instead (doc/performance.md, "Kernels"). */
static int host_max_min_bug(MPI_Datatype dt, size_t size, MPI_Op op)
{
    static const MPI_Datatype uns[] = {
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT,     MPI_UNSIGNED,
        MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T,
        MPI_UINT16_T,      MPI_UINT32_T,           MPI_UINT64_T};
    unsigned char x[8] = {0}, y[8] = {0};
    size_t i;

    if (op != MPI_MAX && op != MPI_MIN)
        return 0;
    for (i = 0; i < sizeof uns / sizeof uns[0]; i++)
        if (uns[i] == dt)
            break;
    if (i == sizeof uns / sizeof uns[0])
        return 0;
    x[size - 1] = 0x80; /* little endian: the top bit */
    y[0] = 1;
    PMPI_Reduce_local(x, y, 1, dt, op);
    /* MAX must pick x, MIN must keep y */
    return op == MPI_MAX ? y[size - 1] != 0x80 : y[0] != 1;
}

static uint64_t load_u(const unsigned char *p, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, p, size); /* little endian */
    return v;
}

/* got = in op orig by the definition of MAX / MIN on unsigned values */
static void check_unsigned_max_min(const unsigned char *in,
                                   const unsigned char *orig,
                                   const unsigned char *got, size_t n,
                                   size_t size, int is_max)
{
    size_t i;

    for (i = 0; i < n; i++) {
        uint64_t x = load_u(in + i * size, size);
        uint64_t y = load_u(orig + i * size, size);
        uint64_t want = is_max ? (x > y ? x : y) : (x < y ? x : y);
        ck_assert(load_u(got + i * size, size) == want);
    }
}

/* Every kernel against the host's MPI_Reduce_local on the same bytes, for
 * lengths around the vector width; pairs the host rejects are skipped
 * (the entry layer sends such calls to the host anyway). */
START_TEST(test_kernels_match_host)
{
    static const struct {
        MPI_Datatype dt;
        size_t size;
        const char *name;
    } types[] = {{MPI_INT, sizeof(int), "int"},
                 {MPI_FLOAT, sizeof(float), "float"},
                 {MPI_DOUBLE, sizeof(double), "double"},
                 {MPI_CHAR, 1, "char"},
                 {MPI_SIGNED_CHAR, 1, "signed char"},
                 {MPI_UNSIGNED_CHAR, 1, "unsigned char"},
                 {MPI_BYTE, 1, "byte"},
                 {MPI_SHORT, sizeof(short), "short"},
                 {MPI_UNSIGNED_SHORT, sizeof(short), "unsigned short"},
                 {MPI_UNSIGNED, sizeof(int), "unsigned"},
                 {MPI_LONG, sizeof(long), "long"},
                 {MPI_UNSIGNED_LONG, sizeof(long), "unsigned long"},
                 {MPI_LONG_LONG, sizeof(long long), "long long"},
                 {MPI_UNSIGNED_LONG_LONG, sizeof(long long), "ull"},
                 {MPI_INT8_T, 1, "int8"},
                 {MPI_UINT16_T, 2, "uint16"},
                 {MPI_INT32_T, 4, "int32"},
                 {MPI_UINT64_T, 8, "uint64"},
                 {MPI_C_BOOL, 1, "bool"}};
    static const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX,  MPI_MIN,
                                 MPI_LAND, MPI_LOR,  MPI_LXOR, MPI_BAND,
                                 MPI_BOR,  MPI_BXOR};
    unsigned char in[64 * 8], a[64 * 8], b[64 * 8], orig[64 * 8];
    size_t ti, oi, n, i;
    int found = 0, host_bugs = 0;
    unsigned seed = 12345;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
            ch4coll_kernel_fn k = ch4coll_kernel_find(types[ti].dt, ops[oi]);
            if (!k)
                continue;
            for (n = 1; n <= 37; n += 4) {
                size_t bytes = n * types[ti].size;
                for (i = 0; i < bytes; i++) {
                    seed = seed * 1103515245u + 12345u;
                    in[i] = (unsigned char) (seed >> 16);
                    seed = seed * 1103515245u + 12345u;
                    a[i] = (unsigned char) (seed >> 16);
                }
                if (types[ti].dt == MPI_C_BOOL) /* valid bools only */
                    for (i = 0; i < bytes; i++) {
                        in[i] &= 1;
                        a[i] &= 1;
                    }
                if (types[ti].dt == MPI_FLOAT || types[ti].dt == MPI_DOUBLE)
                    for (i = 0; i < n; i++) { /* finite values */
                        if (types[ti].dt == MPI_FLOAT) {
                            ((float *) in)[i] = (float) (i * 7 % 13) - 6.5f;
                            ((float *) a)[i] = (float) (i * 5 % 11) * 0.25f;
                        } else {
                            ((double *) in)[i] = (double) (i * 7 % 13) - 6.5;
                            ((double *) a)[i] = (double) (i * 5 % 11) * 0.25;
                        }
                    }
                memcpy(b, a, bytes);
                memcpy(orig, a, bytes);
                if (PMPI_Reduce_local(in, b, (int) n, types[ti].dt, ops[oi]) !=
                    MPI_SUCCESS)
                    break; /* the host does not define this pair */
                k(in, a, n);
                if (host_max_min_bug(types[ti].dt, types[ti].size, ops[oi])) {
                    check_unsigned_max_min(in, orig, a, n, types[ti].size,
                                           ops[oi] == MPI_MAX);
                    host_bugs++;
                    found++;
                    continue;
                }
                ck_assert_msg(memcmp(a, b, bytes) == 0,
                              "kernel %s op #%zu n=%zu differs from the host",
                              types[ti].name, oi, n);
                found++;
            }
        }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    ck_assert_int_gt(found, 100);
    if (host_bugs)
        fprintf(stderr,
                "test_kernels: %d unsigned MAX/MIN cases where the "
                "host compares as signed; checked by definition\n",
                host_bugs);
    ck_assert(ch4coll_kernel_find(MPI_DOUBLE, MPI_BXOR) == NULL);
    ck_assert(ch4coll_kernel_find(MPI_2INT, MPI_MAXLOC) == NULL);
}
END_TEST

/* ================================================ 8. interleaved calls */

enum { ROOT_0, ROOT_MID, ROOT_LAST };

/* One call of a mix: a registry algorithm with its defaults, except chunk
 * (0: default); min_p: included from this p on. */
typedef struct {
    int coll;
    const char *algo;
    size_t n;
    int root, dtype, inplace, ppn;
    int64_t chunk;
    int min_p;
} ilv_row_t;

static const ilv_row_t ilv_rows[] = {
    {CH4COLL_ALLREDUCE, "ring", 37, ROOT_0, HZ_INT_SUM, 0, 0, 0, 1},
    {CH4COLL_BCAST, "line", 100, ROOT_MID, 0, 0, 0, 16, 1},
    {CH4COLL_ALLGATHERV, "pipelined_ring", 9, ROOT_0, 0, 0, 0, 0, 1},
    {CH4COLL_REDUCE, "binomial", 11, ROOT_LAST, HZ_VEC_AFF, 0, 0, 0, 1},
    {CH4COLL_REDUCE, "hampath", 11, ROOT_MID, HZ_VEC_SUM, 0, 0, 0, 1},
    {CH4COLL_ALLTOALL, "pairwise", 5, ROOT_0, 0, 0, 0, 0, 1},
    {CH4COLL_BARRIER, "dissemination", 0, ROOT_0, 0, 0, 0, 0, 1},
    {CH4COLL_GATHER, "binomial", 6, ROOT_LAST, 0, 1, 0, 0, 1},
    {CH4COLL_SCAN, "recursive_doubling", 7, ROOT_0, HZ_PAIR_AFF, 0, 0, 0, 1},
    {CH4COLL_EXSCAN, "linear", 7, ROOT_0, HZ_PAIR_AFF, 0, 0, 0, 1},
    /* composed: views and sub-selection, nodes of 3 ranks */
    {CH4COLL_ALLREDUCE, "smp", 20, ROOT_0, HZ_INT_SUM, 0, 3, 0, 4},
};
#define ILV_ROWS ((int) (sizeof ilv_rows / sizeof ilv_rows[0]))

static const int ilv_ps[] = {1, 2, 3, 5, 7, 12, 17};

/* The mix at p ranks into c[] (params[] holds their parameters); returns
 * the number of calls. */
static int ilv_mix(int p, int eager, hz_case_t *c,
                   int64_t (*params)[CH4COLL_MAX_PARAMS])
{
    int i, j, n = 0;

    for (i = 0; i < ILV_ROWS; i++) {
        const ilv_row_t *row = &ilv_rows[i];
        const ch4coll_algo_t *al = ch4coll_algo_find(row->coll, row->algo);
        ck_assert_msg(al != NULL, "no %s %s", ch4coll_coll_name(row->coll),
                      row->algo);
        if (p < row->min_p)
            continue;
        ch4coll_algo_default_params(al, params[n]);
        for (j = 0; j < ch4coll_algo_nparams(al) && row->chunk > 0; j++)
            if (strcmp(al->params[j].name, "chunk") == 0)
                params[n][j] = row->chunk;
        memset(&c[n], 0, sizeof c[n]);
        c[n].algo = al;
        c[n].params = params[n];
        c[n].p = p;
        c[n].n = row->n;
        c[n].root = row->root == ROOT_0     ? 0
                    : row->root == ROOT_MID ? p / 2
                                            : p - 1;
        c[n].inplace = row->inplace;
        c[n].dtype = row->dtype;
        c[n].eager = eager;
        c[n].ppn = row->ppn;
        c[n].map = CH4COLL_MAP_BLOCK;
        n++;
    }
    return n;
}

START_TEST(test_interleaved)
{
    int p = ilv_ps[_i / 2], eager = _i % 2, clones, ncases;
    hz_case_t c[ILV_ROWS];
    int64_t params[ILV_ROWS][CH4COLL_MAX_PARAMS];
    char err[ERRLEN];
    unsigned seed;

    ncases = ilv_mix(p, eager, c, params);
    for (clones = 1; clones <= 3; clones += 2)
        for (seed = 1; seed <= 3; seed++) {
            ck_assert_msg(hz_run_interleaved(c, ncases, clones, seed, err,
                                             sizeof err) == 0,
                          "p=%d eager=%d clones=%d seed=%u: %s", p, eager,
                          clones, seed, err);
            ck_assert_msg(hz_rerun_allocs() == 0,
                          "p=%d eager=%d clones=%d seed=%u: %llu allocations "
                          "in the second round",
                          p, eager, clones, seed,
                          (unsigned long long) hz_rerun_allocs());
        }
}
END_TEST

/* Every rank waits for a message from its right neighbour, which never
 * comes. */
static int stuck_build(ch4coll_sched_t *s, const ch4coll_args_t *a,
                       const int64_t *params)
{
    (void) params;
    ch4coll_sched_recv(s, ch4coll_ref(CH4COLL_BUF_RECV, 0), 0,
                       (a->rank + 1) % a->size, 0, 0, NULL);
    return s->status;
}

static const ch4coll_algo_t stuck_algo = {.name = "stuck",
                                          .coll = CH4COLL_BARRIER,
                                          .build = stuck_build,
                                          .desc = "never completes"};

/* The stuck instances are named with what they wait for; the others
 * finish. */
START_TEST(test_interleaved_deadlock)
{
    hz_case_t c[2];
    char err[ERRLEN];

    memset(c, 0, sizeof c);
    c[0].algo = ch4coll_algo_find(CH4COLL_BARRIER, "dissemination");
    c[1].algo = &stuck_algo;
    c[0].p = c[1].p = 3;
    ck_assert_int_eq(hz_run_interleaved(c, 2, 2, 7, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "round 0: deadlock") != NULL, "%s", err);
    ck_assert_msg(strstr(err, "case 1 (barrier stuck) clone 1 rank 2: recv "
                              "from 0 tag ") != NULL,
                  "%s", err);
    ck_assert_msg(strstr(err, "case 0") == NULL, "%s", err);
    c[1].p = 4;
    ck_assert_int_eq(hz_run_interleaved(c, 2, 1, 7, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "same") != NULL, "%s", err);
}
END_TEST

/* ============================================================== main */

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc;

    tc = tcase_create("sched");
    tcase_add_loop_test(tc, test_sched_ring_dag, 2, 5);
    tcase_add_test(tc, test_sched_csr_fixed);
    tcase_add_test(tc, test_sched_csr_random);
    tcase_add_loop_test(tc, test_sched_bad_dep, 0, 3);
    tcase_add_test(tc, test_sched_bad_tag);
    tcase_add_test(tc, test_sched_fence);
    tcase_add_test(tc, test_sched_view);
    tcase_add_test(tc, test_sched_chain);
    tcase_add_test(tc, test_sched_issue_order);
    tcase_add_loop_test(tc, test_sched_run_direct, 0, 5);
    tcase_add_loop_test(tc, test_registry_rows, 0, ch4coll_nalgos);
    tcase_add_test(tc, test_sched_scratch_at_commit);
    tcase_add_test(tc, test_sched_clone);
    suite_add_tcase(s, tc);

    tc = tcase_create("loop");
    tcase_add_test(tc, test_loop_deadlock_recv);
    tcase_add_test(tc, test_loop_leftover);
    tcase_add_loop_test(tc, test_loop_size_mismatch, 0, 2);
    tcase_add_loop_test(tc, test_loop_fifo, 0, 2);
    tcase_add_test(tc, test_loop_rendezvous_deadlock);
    tcase_add_test(tc, test_loop_eager_completes);
    suite_add_tcase(s, tc);

    tc = tcase_create("rerun");
    tcase_add_loop_test(tc, test_rerun_no_alloc, 0,
                        2 * (int) (sizeof rerun_p / sizeof rerun_p[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("cache");
    tcase_add_test(tc, test_cache_lookup);
    tcase_add_test(tc, test_cache_varrays);
    tcase_add_test(tc, test_cache_lru);
    tcase_add_test(tc, test_cache_forget);
    suite_add_tcase(s, tc);

    tc = tcase_create("cvar");
    tcase_add_test(tc, test_parse_int64);
    tcase_add_test(tc, test_parse_int64_leading_space);
    tcase_add_test(tc, test_parse_algorithm);
    tcase_add_test(tc, test_config_load);
    tcase_add_test(tc, test_config_virtual);
    suite_add_tcase(s, tc);

    tc = tcase_create("topo");
    tcase_add_test(tc, test_topo_binomial);
    tcase_add_test(tc, test_topo_rd);
    tcase_add_test(tc, test_topo_knomial);
    tcase_add_test(tc, test_topo_heap);
    tcase_add_test(tc, test_topo_bruck_allgather);
    tcase_add_test(tc, test_topo_bruck_alltoall);
    tcase_add_test(tc, test_topo_permutation);
    tcase_add_test(tc, test_mesh_dims);
    tcase_add_test(tc, test_mesh_coords);
    tcase_add_test(tc, test_mesh_snake);
    tcase_add_test(tc, test_mesh_cycle);
    tcase_add_test(tc, test_mesh_cycle_brute);
    tcase_add_test(tc, test_topo_blocks);
    tcase_add_test(tc, test_topo_nodes);
    tcase_add_test(tc, test_topo_node_order_rooted);
    tcase_add_test(tc, test_node_ring_crossings);
    tcase_add_test(tc, test_topo_blocks_delta);
    tcase_add_test(tc, test_topo_halving_ranges);
    tcase_add_test(tc, test_topo_inorder_reduce_tree);
    tcase_add_loop_test(tc, test_bcast_line_structure, 0, 25);
    tcase_add_loop_test(tc, test_allreduce_line_structure, 0, 25);
    tcase_add_test(tc, test_smp_scratch_ring);
    suite_add_tcase(s, tc);

    tc = tcase_create("kernels");
    tcase_add_test(tc, test_kernels_match_host);
    suite_add_tcase(s, tc);

    tc = tcase_create("interleaved");
    tcase_add_loop_test(tc, test_interleaved, 0,
                        2 * (int) (sizeof ilv_ps / sizeof ilv_ps[0]));
    tcase_add_test(tc, test_interleaved_deadlock);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    SRunner *sr;
    int failed;

    MPI_Init(&argc, &argv);
    hz_setup();
    sr = srunner_create(units_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    hz_teardown();
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
