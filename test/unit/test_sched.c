/*
 * test_sched.c - unit tests of the schedule (sched/sched.c): the verbs, the
 * dependency graph built at commit, scratch, views, clones, the direct
 * runner of two-message schedules, and re-runs without allocation.
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
 *              after commit.  A view translates the peers, tags and buffers
 *              of the builder it wraps; run_now takes exactly the shapes
 *              it can run with blocking calls.
 *   clone      ch4coll_sched_clone(): refused before commit; a clone owns
 *              other scratch and outlives its original, running correctly
 *              (twice) after the original is destroyed.
 *   no alloc   A committed recursive-doubling allreduce (p = 1..8, in place
 *              and not) run twice on the loop transport with its result
 *              checked: start + run make no library allocation.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK, each test frees what it
 * creates); the schedules run on world.h's loop world, MPI_INT with
 * MPI_SUM.
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "algos/algo.h"
#include "sched/loop_run.h"
#include "sched/sched.h"
#include "transport/loop.h"
#include "unit.h"
#include "util/util.h"
#include "world.h"

/* ====================================================== the scheduler */

/* The send buffers must come back unchanged. */
static void check_sendbufs(const world_t *w)
{
    int r, i;

    for (r = 0; r < w->p; r++)
        for (i = 0; i < BUFN; i++)
            ck_assert_int_eq(w->sbuf[r][i], sval(r, i));
}

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

/* A transport with only blocking operations, for run_now: it logs each
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
START_TEST(test_sched_run_now)
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
    ck_assert_int_eq(s.plan != NULL, sh == 0 || sh >= 3);
    memset(&ctx, 0, sizeof ctx);
    ck_assert_int_eq(
        ch4coll_sched_run_now(&s, sb, rb, 0, &blk_transport, &ctx, &rc),
        sh == 0 || sh >= 3);
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

/*
 * Which exchanges run_now takes: a receive of n ints with a copy of n
 * ints that does not wait for it (shape 0) runs as one blocking call up
 * to 16 KiB of copying, the copy first, from there as requests with the
 * copy in flight (plan NULL), and from a 256 KiB receive on as one
 * blocking call again, the receive first; a reduction that waits for the
 * receive (shape 1) overlaps nothing, so it is blocking at any size.
 */
START_TEST(test_sched_overlap_rule)
{
    static const int ns[] = {4095, 4096, 65535, 65536};
    int sh = _i / 4, n = ns[_i % 4], v;
    ch4coll_sched_t s;

    ck_assert_int_eq(ch4coll_sched_init(&s, &int_elem, MPI_SUM, 0, 2),
                     CH4COLL_OK);
    v = ch4coll_sched_recv(&s, ch4coll_ref(CH4COLL_BUF_RECV, 0), (size_t) n, 1,
                           0, 0, NULL);
    if (sh == 0)
        ch4coll_sched_copy(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                           ch4coll_ref(CH4COLL_BUF_RECV, ioff(n)), (size_t) n,
                           0, NULL);
    else
        ch4coll_sched_reduce(&s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
                             ch4coll_ref(CH4COLL_BUF_RECV, 0), (size_t) n, 1,
                             &v);
    ck_assert_int_eq(ch4coll_sched_commit(&s), CH4COLL_OK);
    if (sh == 0 && n * sizeof(int) >= 16384 && n * sizeof(int) < 262144) {
        ck_assert_ptr_null(s.plan);
    } else {
        /* a small receive alone waits for the copy, a large one goes
         * first; the reduction waits for it */
        int first = sh == 0 && n * sizeof(int) < 262144;

        ck_assert_ptr_nonnull(s.plan);
        ck_assert_int_eq(s.nplan, 2);
        ck_assert_int_eq(s.plan[0], first ? 1 : -1);
        ck_assert_int_eq(s.plan[1], first ? -1 : 1);
    }
    ch4coll_sched_destroy(&s);
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

/* ========================================== no allocation on a re-run */

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

/* =============================================================== main */

static Suite *sched_suite(void)
{
    Suite *s = suite_create("sched");
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
    tcase_add_loop_test(tc, test_sched_run_now, 0, 5);
    tcase_add_loop_test(tc, test_sched_overlap_rule, 0, 8);
    tcase_add_test(tc, test_sched_scratch_at_commit);
    tcase_add_test(tc, test_sched_clone);
    suite_add_tcase(s, tc);

    tc = tcase_create("rerun");
    tcase_add_loop_test(tc, test_rerun_no_alloc, 0,
                        2 * (int) (sizeof rerun_p / sizeof rerun_p[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, sched_suite);
}
