/*
 * test_verify.c - MPIR_CVAR_CH4COLL_VERIFY's exchange and check
 * (core/verify.h) in the in-process executor, p = 1..17, 24, 32, 61, 64.
 *
 * Every case gives each rank its own arguments for one collective, runs
 * the p verifiers' allgather in the loop transport and checks every
 * rank's verdict: matching arguments pass on all ranks, one rank's
 * deviation (count, op, datatype, root, collective, one v-count, one
 * alltoallv pair) fails on all ranks, and a rank with invalid arguments
 * passes itself (the host MPI reports it) while all others fail.
 */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/mpid/ch4/coll/core/comm.h"
#include "../../src/mpid/ch4/coll/core/verify.h"
#include "../../src/mpid/ch4/coll/sched/loop_run.h"
#include "../../src/mpid/ch4/coll/transport/loop.h"
#include "../../src/mpid/ch4/coll/util/util.h"

static const int sizes[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                            12, 13, 14, 15, 16, 17, 24, 32, 61, 64};

#define PMAX 64

/* What one case changes on the deviating rank. */
enum {
    DEV_NONE,
    DEV_COUNT,  /* the count (regular) or one entry of the counts */
    DEV_OP,     /* MPI_MAX for MPI_SUM */
    DEV_TYPE,   /* MPI_FLOAT for MPI_INT: same size, other type */
    DEV_ROOT,   /* another root */
    DEV_COLL,   /* calls barrier instead */
    DEV_INVALID /* arguments that fail ch4coll's own checks */
};

typedef struct {
    int counts[PMAX], displs[PMAX], scounts[PMAX], sdispls[PMAX];
    int buf[4];
} rankdata_t;

static int in[4], out[4];

/* Rank r's call of collective coll (root: p - 1), with deviation dev when
 * r is the deviating rank. */
static void make_call(int coll, int r, int p, int dev, rankdata_t *d,
                      ch4coll_call_t *c)
{
    int i;

    memset(c, 0, sizeof *c);
    c->coll = dev == DEV_COLL ? CH4COLL_BARRIER : coll;
    c->comm = MPI_COMM_WORLD;
    c->root = dev == DEV_ROOT ? 0 : p - 1;
    c->op = dev == DEV_OP ? MPI_MAX : MPI_SUM;
    c->snd.buf = in;
    c->rcv.buf = out;
    c->snd.dt = c->rcv.dt = dev == DEV_TYPE ? MPI_FLOAT : MPI_INT;
    c->snd.count = c->rcv.count = dev == DEV_COUNT ? 3 : 2;
    if (dev == DEV_INVALID)
        c->snd.count = c->rcv.count = -1;
    for (i = 0; i < p; i++) {
        /* rank i's block: i % 3 + 1 elements */
        d->counts[i] = d->scounts[i] = i % 3 + 1;
        d->displs[i] = d->sdispls[i] = 4 * i;
    }
    switch (coll) {
    case CH4COLL_GATHERV:
    case CH4COLL_ALLGATHERV:
        c->snd.count = r % 3 + 1;
        if (dev == DEV_COUNT)
            c->snd.count++;
        break;
    case CH4COLL_SCATTERV:
        c->rcv.count = r % 3 + 1;
        if (dev == DEV_COUNT)
            c->rcv.count++;
        break;
    case CH4COLL_ALLTOALLV:
        for (i = 0; i < p; i++) {
            d->scounts[i] = 1 + (i + 2 * r) % 3; /* r sends to i */
            d->counts[i] = 1 + (r + 2 * i) % 3;  /* r expects from i */
        }
        if (dev == DEV_COUNT)
            d->scounts[(r + 1) % p]++;
        break;
    case CH4COLL_REDUCE_SCATTER:
        if (dev == DEV_COUNT)
            d->counts[0]++;
        break;
    default:
        break;
    }
    c->rcv.counts = d->counts;
    c->rcv.displs = d->displs;
    c->snd.counts = d->scounts;
    c->snd.displs = d->sdispls;
    ch4coll_call_describe(c, r, p);
}

/* Run the verifiers of p ranks, rank bad deviating by dev; fills
 * verdict[r]. */
static void run_case(int coll, int p, int bad, int dev, int *verdict)
{
    static rankdata_t data[PMAX];
    ch4coll_comm_t comm[PMAX];
    ch4coll_verify_t *v[PMAX];
    ch4coll_sched_t *s[PMAX];
    ch4coll_call_t call[PMAX];
    ch4coll_loop_t *loop = ch4coll_loop_create(p, 0);
    char err[256] = "";
    int r;

    ck_assert_ptr_nonnull(loop);
    for (r = 0; r < p; r++) {
        int d = r == bad ? dev : DEV_NONE, valid = d != DEV_INVALID;
        memset(&comm[r], 0, sizeof comm[r]);
        comm[r].rank = r;
        comm[r].size = p;
        comm[r].tp = &ch4coll_transport_loop;
        comm[r].tp_ctx = ch4coll_loop_ctx(loop, r);
        make_call(coll, r, p, d, &data[r], &call[r]);
        v[r] = ch4coll_verify_new(r, p);
        ck_assert_ptr_nonnull(v[r]);
        ck_assert_int_eq(
            ch4coll_verify_start(&comm[r], v[r], &call[r], 0, valid, 0),
            CH4COLL_OK);
        s[r] = &v[r]->sched;
    }
    ck_assert_msg(ch4coll_loop_run(loop, s, err, sizeof err) == CH4COLL_OK,
                  "p=%d: exchange failed: %s", p, err);
    for (r = 0; r < p; r++) {
        verdict[r] = ch4coll_verify_check(&comm[r], v[r], &call[r]);
        ch4coll_verify_free(v[r]);
    }
    ch4coll_loop_destroy(loop);
}

static const struct {
    int coll;
    int devs[6]; /* deviations that must be caught, DEV_NONE ends */
} cases[] = {
    {CH4COLL_ALLREDUCE, {DEV_COUNT, DEV_OP, DEV_TYPE, DEV_COLL, DEV_INVALID}},
    {CH4COLL_REDUCE, {DEV_COUNT, DEV_OP, DEV_ROOT, DEV_INVALID}},
    {CH4COLL_REDUCE_SCATTER, {DEV_COUNT, DEV_OP}},
    {CH4COLL_SCAN, {DEV_COUNT, DEV_TYPE}},
    {CH4COLL_BCAST, {DEV_COUNT, DEV_ROOT, DEV_COLL}},
    {CH4COLL_GATHER, {DEV_COUNT, DEV_ROOT}},
    {CH4COLL_SCATTER, {DEV_COUNT}},
    {CH4COLL_ALLGATHER, {DEV_COUNT}},
    {CH4COLL_ALLTOALL, {DEV_COUNT}},
    {CH4COLL_GATHERV, {DEV_COUNT}},
    {CH4COLL_SCATTERV, {DEV_COUNT}},
    {CH4COLL_ALLGATHERV, {DEV_COUNT}},
    {CH4COLL_ALLTOALLV, {DEV_COUNT}},
    {CH4COLL_BARRIER, {DEV_COLL}},
};

START_TEST(test_verify_sizes)
{
    int p = sizes[_i], verdict[PMAX], c, k, r;

    for (c = 0; c < (int) (sizeof cases / sizeof cases[0]); c++) {
        int coll = cases[c].coll;
        run_case(coll, p, -1, DEV_NONE, verdict);
        for (r = 0; r < p; r++)
            ck_assert_msg(verdict[r] == CH4COLL_OK,
                          "%s p=%d: matching arguments fail on rank %d",
                          ch4coll_coll_name(coll), p, r);
        for (k = 0; cases[c].devs[k] != DEV_NONE; k++) {
            int dev = cases[c].devs[k];
            /* one deviating rank: the first, the last, the middle */
            int bads[3] = {0, p - 1, p / 2}, b;
            if (p == 1 && dev != DEV_INVALID)
                continue; /* nobody to differ from */
            if (coll == CH4COLL_BARRIER && dev == DEV_COLL)
                continue; /* a barrier in place of a barrier */
            for (b = 0; b < 3; b++) {
                int bad = bads[b];
                run_case(coll, p, bad, dev, verdict);
                for (r = 0; r < p; r++) {
                    int want = dev == DEV_INVALID && r == bad
                                   ? CH4COLL_OK
                                   : CH4COLL_ERR_MISMATCH;
                    if (dev == DEV_INVALID && p == 1)
                        want = CH4COLL_OK;
                    ck_assert_msg(verdict[r] == want,
                                  "%s p=%d deviation %d on rank %d: rank %d "
                                  "verdict %d, expected %d",
                                  ch4coll_coll_name(coll), p, dev, bad, r,
                                  verdict[r], want);
                }
            }
        }
    }
}
END_TEST

static Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("exchange");

    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_verify_sizes, 0,
                        (int) (sizeof sizes / sizeof sizes[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    SRunner *sr;
    int failed;

    MPI_Init(&argc, &argv);
    ch4coll_log_level = -1; /* the mismatches are expected: no log lines */
    sr = srunner_create(verify_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
