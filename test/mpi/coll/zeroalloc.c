/*
 * zeroalloc.c - a cached schedule re-runs without allocating.
 *
 * usage: zeroalloc
 *
 * ch4coll builds a schedule on the first call of a given shape and keeps
 * it in the communicator's cache; a later call with the same arguments
 * binds the new buffers and runs it, and is meant to allocate nothing
 * (run.c: "A cache hit does no allocation").  For every collective and
 * every variant that applies to it:
 *
 *   int        MPI_INT both sides (MPI_SUM for reductions)
 *   vec        vector(3,1,2,MPI_INT) both sides: packing stages, or a
 *              non-contiguous element for reductions (commutative user op)
 *   int->vec   MPI_INT x3 sent, vector x1 received (data movement)
 *   affine     contiguous(2,MPI_INT) with the non-commutative user op
 *   in_place   MPI_INT with MPI_IN_PLACE
 *
 * the call is made twice with identical arguments, the second time with
 * buffers at other addresses (both sets are alive at once).  Around the
 * second call ch4coll_get_stats must show alloc_calls unchanged and calls
 * up by exactly one (so it ran a ch4coll schedule, not the host MPI); both
 * results are checked against the host MPI or a local fold (collcase.c).
 * Rooted collectives use root p-1, counts are odd, v-counts irregular with
 * zeros.
 *
 * Rank 0 prints one line per collective; exit status 1 on any failure.
 * Under MPIR_CVAR_CH4COLL_ENABLE=0 or _<COLL>_ALGORITHM=native the
 * affected collectives are reported as skipped.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collcase.h"

#define COUNT      37         /* units per block: odd, not a multiple of p */
#define ZERO_EVERY 3          /* every third v-count is zero */
#define SEED       0x2e50a11c /* data seed; per case seed = SEED + case */
#define LINE_LEN   512
#define MSG_LEN    256

enum { V_INT, V_VEC, V_MIXED, V_AFFINE, V_INPLACE, NVARIANTS };

static const char *const variant_names[NVARIANTS] = {"int", "vec", "int->vec",
                                                     "affine", "in_place"};

/* Outcome bits of a variant, OR-ed over the ranks. */
enum {
    ST_WRONG = 1,   /* a result differed */
    ST_ALLOC = 2,   /* the second call allocated */
    ST_NOT_RUN = 4, /* the second call was not a ch4coll schedule */
};

static int variant_applies(int coll, int v)
{
    switch (v) {
    case V_INT:
        return 1;
    case V_VEC:
        return coll != CC_BARRIER;
    case V_MIXED:
        return coll != CC_BARRIER && !cc_is_reduction(coll);
    case V_AFFINE:
        return cc_is_reduction(coll);
    default:
        return cc_inplace_allowed(coll);
    }
}

/* Irregular, some zero; symmetric for alltoallv (in place needs it). */
static void fill_vcounts(int coll, int size, int *v)
{
    int i, j;

    if (coll != CC_ALLTOALLV) {
        for (i = 0; i < size; i++)
            v[i] = i % ZERO_EVERY == 2 ? 0 : COUNT + 2 * i;
        return;
    }
    for (i = 0; i < size; i++)
        for (j = 0; j < size; j++)
            v[i * size + j] = (i + j) % ZERO_EVERY == 2 ? 0 : COUNT + i + j;
}

static void set_types(cc_params_t *p, int stype, int smult, int rtype,
                      int rmult, int op)
{
    p->stype = stype;
    p->smult = smult;
    p->rtype = rtype;
    p->rmult = rmult;
    p->op = cc_is_reduction(p->coll) ? op : CC_OP_NONE;
}

static void variant_params(int coll, int v, int size, int *vcounts,
                           cc_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->coll = coll;
    p->comm = MPI_COMM_WORLD;
    p->comm_name = "world";
    p->root = size - 1;
    p->inplace = v == V_INPLACE;
    p->count = COUNT;
    p->seed = (uint64_t) SEED + (uint64_t) (coll * NVARIANTS + v);
    if (v == V_VEC)
        set_types(p, CC_T_VEC, 1, CC_T_VEC, 1, CC_OP_USERSUM);
    else if (v == V_MIXED)
        set_types(p, CC_T_INT, 3, CC_T_VEC, 1, CC_OP_NONE);
    else if (v == V_AFFINE)
        set_types(p, CC_T_PAIR, 1, CC_T_PAIR, 1, CC_OP_AFFINE);
    else
        set_types(p, CC_T_INT, 1, CC_T_INT, 1, CC_OP_SUM);
    if (coll == CC_GATHERV || coll == CC_SCATTERV || coll == CC_ALLGATHERV ||
        coll == CC_ALLTOALLV || coll == CC_REDUCE_SCATTER) {
        fill_vcounts(coll, size, vcounts);
        p->vcounts = vcounts;
    }
}

/* Run, reference and check one case; ST_WRONG if it differed. */
static int run_checked(cc_case_t *c, int *rc_out)
{
    char msg[MSG_LEN], desc[LINE_LEN];
    int rc = cc_run(c), bad;

    *rc_out = rc;
    bad = rc != MPI_SUCCESS || cc_expect(c) != MPI_SUCCESS ||
          cc_check(c, msg, sizeof msg);
    if (bad) {
        cc_describe(c, desc, sizeof desc);
        printf("zeroalloc: WRONG on comm rank %d: %s: %s\n", c->rank, desc,
               rc != MPI_SUCCESS ? "MPI call failed" : msg);
        fflush(stdout);
    }
    return bad ? ST_WRONG : 0;
}

/* The two calls; returns the outcome bits, *allocs the second call's. */
static int run_variant(const cc_params_t *p, uint64_t *allocs)
{
    cc_case_t first, second;
    ch4coll_stats_t before, after;
    int st = 0, rc;

    if (cc_prepare(&first, p) != 0 || cc_prepare(&second, p) != 0) {
        fprintf(stderr, "zeroalloc: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    st |= run_checked(&first, &rc);
    cc_get_stats(&before);
    rc = cc_run(&second);
    cc_get_stats(&after);
    if (rc == MPI_SUCCESS && cc_expect(&second) == MPI_SUCCESS) {
        char msg[MSG_LEN];
        if (cc_check(&second, msg, sizeof msg)) {
            printf("zeroalloc: WRONG on second call, comm rank %d: %s\n",
                   second.rank, msg);
            st |= ST_WRONG;
        }
    } else {
        st |= ST_WRONG;
    }
    *allocs = after.alloc_calls - before.alloc_calls;
    if (*allocs != 0)
        st |= ST_ALLOC;
    if (after.calls - before.calls != 1 ||
        after.native_calls != before.native_calls)
        st |= ST_NOT_RUN;
    cc_release(&first);
    cc_release(&second);
    return st;
}

/* Append "name verdict" for one variant to line; 1 if it failed. */
static int verdict(int coll, int v, int st, unsigned long long allocs,
                   char *line, size_t len)
{
    size_t used = strlen(line);
    const char *sep = used ? ", " : "";
    const char *name = variant_names[v];

    if ((st & ST_NOT_RUN) && cc_host_may_run(coll)) {
        snprintf(line + used, len - used, "%s%s skipped (host MPI)", sep, name);
        return st & ST_WRONG ? 1 : 0;
    }
    if (st == 0) {
        snprintf(line + used, len - used, "%s%s ok", sep, name);
        return 0;
    }
    snprintf(line + used, len - used, "%s%s FAIL(%s%s%sre-run allocs=%llu)",
             sep, name, st & ST_WRONG ? "wrong result, " : "",
             st & ST_ALLOC ? "allocated on re-run, " : "",
             st & ST_NOT_RUN ? "not a ch4coll schedule, " : "", allocs);
    return 1;
}

static int run_collective(int coll, int rank, int size, int *vcounts)
{
    char line[LINE_LEN] = "";
    cc_params_t p;
    uint64_t allocs;
    unsigned long long mine[1], worst[1];
    int v, st, all_st, failed = 0;

    for (v = 0; v < NVARIANTS; v++) {
        if (!variant_applies(coll, v))
            continue;
        variant_params(coll, v, size, vcounts, &p);
        st = run_variant(&p, &allocs);
        mine[0] = (unsigned long long) allocs;
        PMPI_Allreduce(&st, &all_st, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
        PMPI_Allreduce(mine, worst, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                       MPI_COMM_WORLD);
        failed |= verdict(coll, v, all_st, worst[0], line, sizeof line);
    }
    if (rank == 0) {
        printf("zeroalloc: %-21s %s\n", cc_coll_name(coll), line);
        fflush(stdout);
    }
    return failed;
}

int main(int argc, char **argv)
{
    ch4coll_stats_t st;
    int rank, size, coll, failed = 0, *vcounts;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cc_get_stats(&st) != 0) {
        if (rank == 0)
            fprintf(stderr,
                    "zeroalloc: FAIL: ch4coll_get_stats not found: "
                    "preload libch4coll.so (LD_PRELOAD) or link -lch4coll\n");
        MPI_Finalize();
        return 1;
    }
    vcounts = malloc(sizeof(int) * (size_t) size * (size_t) size);
    if (!vcounts || cc_init() != 0) {
        fprintf(stderr, "zeroalloc: setup failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (coll = 0; coll < CC_NCOLL; coll++)
        failed |= run_collective(coll, rank, size, vcounts);
    if (rank == 0)
        printf("zeroalloc: %s\n",
               failed ? "FAIL"
                      : "every re-run was a ch4coll "
                        "schedule, allocation-free and correct");
    fflush(stdout);
    free(vcounts);
    cc_finalize();
    MPI_Finalize();
    return failed;
}
