/*
 * test_transport.c - unit tests of the in-process executor
 * (transport/loop.c with sched/loop_run.c): its diagnostics, its matching
 * rules, and several calls in flight on one loop world.
 *
 * What is covered, and why it matters:
 *
 *   executor   The loop transport's diagnostics: deadlock (naming the waiting
 *              rank and its peer), a leftover eager message, a size mismatch;
 *              FIFO matching per (source, tag); rendezvous mode catching a
 *              schedule that relies on buffering, which eager mode completes.
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
 * Assumptions: unit.h (MPI singleton, CK_NOFORK, each test frees what it
 * creates); the executor tests run world.h's hand-built schedules.
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "algos/algo.h"
#include "harness.h"
#include "sched/sched.h"
#include "unit.h"
#include "world.h"

/* ============================================== loop executor reports */

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

/* ================================================== interleaved calls */

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

/* =============================================================== main */

static Suite *transport_suite(void)
{
    Suite *s = suite_create("transport");
    TCase *tc;

    tc = tcase_create("loop");
    tcase_add_test(tc, test_loop_deadlock_recv);
    tcase_add_test(tc, test_loop_leftover);
    tcase_add_loop_test(tc, test_loop_size_mismatch, 0, 2);
    tcase_add_loop_test(tc, test_loop_fifo, 0, 2);
    tcase_add_test(tc, test_loop_rendezvous_deadlock);
    tcase_add_test(tc, test_loop_eager_completes);
    suite_add_tcase(s, tc);

    tc = tcase_create("interleaved");
    tcase_add_loop_test(tc, test_interleaved, 0,
                        2 * (int) (sizeof ilv_ps / sizeof ilv_ps[0]));
    tcase_add_test(tc, test_interleaved_deadlock);
    suite_add_tcase(s, tc);
    return s;
}

/* The interleaved cases need the harness's datatypes and ops. */
int main(int argc, char **argv)
{
    int rc;

    MPI_Init(&argc, &argv);
    hz_setup();
    rc = unit_run(transport_suite());
    hz_teardown();
    MPI_Finalize();
    return rc;
}
