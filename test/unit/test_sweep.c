/*
 * test_sweep.c - every algorithm of the registry in the in-process
 * executor against the serial reference of harness.c.
 *
 * p = 1..17, 24, 32, 61, 64, 100; counts {0, 1, p-1, p, p+1, a large odd
 * one}; p = 255 with counts 1 and p+1; roots {0, p/2, p-1}; in place and
 * not; for reductions MPI_INT/SUM, a non-commutative user op on a
 * contiguous pair and on a non-contiguous vector type.  Rendezvous mode (sends
 * complete only when matched), so buffer reuse hazards and reliance on
 * buffering are caught. Algorithms with parameters are swept again with each
 * parameter at its minimum, between minimum and default, and above the default
 * (p <= 32); a block count ("blocks") with n = 1, 2, 3, 5, 8, 17, 64 and
 * a step count ("steps") with 1, 2, 3, 4 at every p. CH4COLL_TEST_QUICK=1 keeps
 * p = 1, 2, 3, 5, 6, 7, 12 (unit.h: sanitizer and valgrind runs);
 * CH4COLL_SWEEP_SHARD=k/n runs the k-th of n shards of the cases.
 *
 * Algorithms that follow the node map (CH4COLL_F_NODES, and those that need
 * several nodes) are swept again on virtual nodes: ppn 1, 2, 3, 4, 8,
 * block and cyclic placement (the last node smaller where ppn does not
 * divide p), p = 1..17, 24, 32, 61, 64, roots on different nodes; those
 * with a chunk parameter once more with chunk = 8 bytes (many pipeline
 * pieces), p <= 32, counts 1 and p+1.
 */
#include <check.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "unit.h"

static const int plist[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11, 12,
                            13, 14, 15, 16, 17, 24, 32, 61, 64, 100, 255};

/* The large count of the sweeps at p, and all three: 1, p + 1, large. */
static size_t big_count(int p)
{
    return p <= 17 ? 1001 : 257;
}

static void sweep_counts(int p, size_t counts[3])
{
    counts[0] = 1;
    counts[1] = (size_t) p + 1;
    counts[2] = big_count(p);
}

/* A quick run (unit.h) keeps p <= 17 and not all of those. */
static int sweep_skips(int p)
{
    return (unit_quick() && p > 17) || unit_quick_skips(p);
}

/* The next p of plist up to maxp that this run sweeps, from index *pi
 * on, with its three counts; 0 after the last. */
static int sweep_next_p(int *pi, int maxp, size_t counts[3])
{
    int np = (int) (sizeof plist / sizeof plist[0]);

    for (; *pi < np && plist[*pi] <= maxp; (*pi)++)
        if (!sweep_skips(plist[*pi])) {
            sweep_counts(plist[*pi], counts);
            return plist[(*pi)++];
        }
    return 0;
}

/* CH4COLL_SWEEP_ONLY=coll/name: that registry row only (by hand, while
 * writing an algorithm). */
static int wanted(const ch4coll_algo_t *al)
{
    const char *only = getenv("CH4COLL_SWEEP_ONLY");
    char name[128];

    if (!only)
        return 1;
    snprintf(name, sizeof name, "%s/%s", ch4coll_coll_name(al->coll), al->name);
    return strcmp(only, name) == 0;
}

/* CH4COLL_SWEEP_SHARD=k/n: the k-th of n shards of the cases (make check
 * runs the shards side by side, test/unit/sweep-*.sh).  Cases, not
 * registry rows, are dealt out, since a few rows take most of the time;
 * by a hash of their number, not round robin, which would give one shard
 * every case in place or of one element type. */
static int mine(void)
{
    static int k = -1, n = 1;
    static uint64_t seq;
    const char *v;

    if (k < 0) {
        v = getenv("CH4COLL_SWEEP_SHARD");
        if (!v || sscanf(v, "%d/%d", &k, &n) != 2 || n < 1 || k < 1 || k > n)
            k = n = 1;
    }
    return ((++seq * 0x9E3779B97F4A7C15ull) >> 32) % (uint64_t) n ==
           (uint64_t) (k - 1);
}

static int is_rooted(int coll)
{
    return coll == CH4COLL_BCAST || coll == CH4COLL_REDUCE ||
           coll == CH4COLL_GATHER || coll == CH4COLL_GATHERV ||
           coll == CH4COLL_SCATTER || coll == CH4COLL_SCATTERV;
}

static int has_inplace(int coll)
{
    return coll != CH4COLL_BCAST && coll != CH4COLL_BARRIER;
}

/* Sweep one registry entry with the given parameters (NULL: defaults);
 * returns the number of failed cases. */
static int sweep_algo(const ch4coll_algo_t *al, const int64_t *params, int maxp)
{
    int pi, ci, ri, ip, dt, fails = 0, cases = 0;
    int np = (int) (sizeof plist / sizeof plist[0]);
    char err[2048];

    for (pi = 0; pi < np; pi++) {
        int p = plist[pi];
        size_t big = big_count(p);
        size_t counts[6] = {0,  1, (size_t) p - 1, (size_t) p, (size_t) p + 1,
                            big};
        int roots[3] = {0, p / 2, p - 1};
        if ((unit_quick() && p > 17) || p > maxp)
            break;
        if (unit_quick_skips(p))
            continue;
        for (ci = 0; ci < 6; ci++) {
            if (ci > 0 && counts[ci] == counts[ci - 1])
                continue;
            if (p > 100 && ci != 1 && ci != 4)
                continue; /* p = 255: counts 1 and p + 1 */
            for (ri = 0; ri < (is_rooted(al->coll) ? 3 : 1); ri++) {
                if (ri > 0 && roots[ri] == roots[ri - 1])
                    continue;
                for (ip = 0; ip < (has_inplace(al->coll) ? 2 : 1); ip++) {
                    int ndt =
                        ch4coll_coll_is_reduction(al->coll) ? HZ_NTYPES : 1;
                    for (dt = 0; dt < ndt; dt++) {
                        if ((al->restrictions & CH4COLL_R_COMMUTATIVE) &&
                            (dt == HZ_PAIR_AFF || dt == HZ_VEC_AFF))
                            continue; /* applicable() refuses these */
                        hz_case_t c = {al,        params, p,  counts[ci],
                                       roots[ri], ip,     dt, 0,
                                       1,         0,      0,  NULL};
                        if (!mine())
                            continue;
                        cases++;
                        if (hz_run(&c, err, sizeof err) != 0) {
                            if (fails++ < 5)
                                fprintf(stderr,
                                        "FAIL %s/%s p=%d n=%zu root=%d "
                                        "inplace=%d dtype=%d: %s\n",
                                        ch4coll_coll_name(al->coll), al->name,
                                        p, counts[ci], roots[ri], ip, dt, err);
                        }
                    }
                }
            }
        }
    }
    fprintf(stderr, "sweep %s/%s%s: %d cases, %d failed\n",
            ch4coll_coll_name(al->coll), al->name, params ? " (params)" : "",
            cases, fails);
    return fails;
}

/* A block count (the circulant schedules): the periods, the clamp of the
 * last one and counts below n all differ with n, so a spread of n at
 * every p.  A step count (Bruck's radix): one step (linear), the meshes
 * of two and three dimensions and four, at every p, where the radix and
 * the short last step differ with p. */
static const int64_t blocks_list[] = {1, 2, 3, 5, 8, 17, 64, 0};
static const int64_t steps_list[] = {1, 2, 3, 4, 0};

static int sweep_list(const ch4coll_algo_t *al, int i, const int64_t *list)
{
    int64_t params[CH4COLL_MAX_PARAMS];
    int k, fails = 0;

    for (k = 0; list[k] != 0; k++) {
        ch4coll_algo_default_params(al, params);
        params[i] = list[k];
        fprintf(stderr, "  %s=%lld\n", al->params[i].name, (long long) list[k]);
        fails += sweep_algo(al, params, 1 << 30);
    }
    return fails;
}

/* A torus the rings follow (topo/torus.h): lines of 2, 4 and 16 in
 * planes of as many lines, up to p = 64: no ring (p within one line),
 * columns in y, then in z; odd p with their one diagonal step. */
static int sweep_torus(const ch4coll_algo_t *al, int i)
{
    static const int64_t sides[] = {2, 4, 16};
    int64_t params[CH4COLL_MAX_PARAMS];
    int k, fails = 0;

    for (k = 0; k < 3; k++) {
        ch4coll_algo_default_params(al, params);
        params[i] = params[i + 1] = sides[k]; /* torus_x, torus_y */
        fprintf(stderr, "  torus %lld x %lld\n", (long long) sides[k],
                (long long) sides[k]);
        fails += sweep_algo(al, params, 64);
    }
    return fails;
}

/* Every parameter at its minimum, at values between minimum and default
 * and just above the default, the others at their defaults, up to p = 32;
 * a block or step count at a spread of values at every p; a torus at a
 * few sides. */
static int sweep_params(const ch4coll_algo_t *al)
{
    int64_t params[CH4COLL_MAX_PARAMS];
    int i, k, fails = 0;

    for (i = 0; i < ch4coll_algo_nparams(al); i++) {
        const ch4coll_param_def_t *d = &al->params[i];
        int64_t vals[4] = {d->min, d->min + 1, (d->min + d->def) / 2 + 1,
                           d->def + 3};
        if (strcmp(d->name, "blocks") == 0 || strcmp(d->name, "steps") == 0) {
            fails +=
                sweep_list(al, i, d->name[0] == 'b' ? blocks_list : steps_list);
            continue;
        }
        if (strcmp(d->name, "torus_x") == 0) {
            fails += sweep_torus(al, i++); /* and torus_y */
            continue;
        }
        for (k = 0; k < 4; k++) {
            if (vals[k] > d->max || vals[k] == d->def ||
                (k > 0 && vals[k] == vals[k - 1]))
                continue;
            ch4coll_algo_default_params(al, params);
            params[i] = vals[k];
            fprintf(stderr, "  %s=%lld\n", d->name, (long long) vals[k]);
            fails += sweep_algo(al, params, 32);
        }
    }
    return fails;
}

/* Whether the algorithm applies on this placement with this op, as
 * selection would ask. */
static int node_case_applies(const hz_case_t *c)
{
    ch4coll_locality_t loc;
    ch4coll_args_t a;
    int node_of[64], tmp[64], r;
    const char *why;

    for (r = 0; r < c->p; r++)
        node_of[r] = ch4coll_virtual_node(r, c->p, c->ppn, c->map);
    loc.nodes = ch4coll_nodes_normalise(c->p, node_of, tmp);
    loc.consecutive = ch4coll_nodes_consecutive(c->p, node_of);
    loc.node_of = node_of;
    memset(&a, 0, sizeof a);
    a.coll = c->algo->coll;
    a.size = c->p;
    a.commutative = c->dtype == HZ_INT_SUM || c->dtype == HZ_VEC_SUM ||
                    !ch4coll_coll_is_reduction(a.coll);
    a.loc = &loc;
    return ch4coll_algo_applicable(c->algo, &a, &why);
}

/* One placement: counts {1, p+1, large} ({1, p+1} with 8-byte chunks,
 * already p+1 pieces: the large count made tens of thousands of pieces
 * per case), three roots, in place and not, every element type; returns
 * the failed cases, counts them in *cases. */
static int sweep_placement(const ch4coll_algo_t *al, const int64_t *params,
                           int p, int ppn, int map, int *cases)
{
    size_t counts[3];
    int roots[3] = {0, p / 2, p - 1}, ci, ri, ip, dt, fails = 0;
    int nroots = is_rooted(al->coll) ? 3 : 1;
    int nip = has_inplace(al->coll) ? 2 : 1;
    int ndt = ch4coll_coll_is_reduction(al->coll) ? HZ_NTYPES : 1;
    char err[2048];

    sweep_counts(p, counts);
    for (ci = 0; ci < (params ? 2 : 3); ci++)
        for (ri = 0; ri < nroots; ri++)
            for (ip = 0; ip < nip; ip++)
                for (dt = 0; dt < ndt; dt++) {
                    hz_case_t c = {al, params, p, counts[ci], roots[ri], ip,
                                   dt, 0,      1, ppn,        map,       NULL};
                    if (!node_case_applies(&c) || !mine())
                        continue;
                    (*cases)++;
                    if (hz_run(&c, err, sizeof err) != 0 && fails++ < 3)
                        fprintf(stderr,
                                "FAIL %s/%s%s p=%d ppn=%d %s n=%zu root=%d "
                                "inplace=%d dtype=%d: %s\n",
                                ch4coll_coll_name(al->coll), al->name,
                                params ? " (chunk 8)" : "", p, ppn,
                                map ? "cyclic" : "block", counts[ci], roots[ri],
                                ip, dt, err);
                }
    return fails;
}

/* One algorithm on every virtual placement; returns the failed cases.
 * An algorithm with a chunk parameter is swept again with chunk = 8 bytes
 * up to p = 32: many pipeline pieces, so that pieces reuse the scratch of
 * earlier ones (algos/smp.c's ring). */
static int sweep_nodes(const ch4coll_algo_t *al)
{
    static const int ppnlist[] = {1, 2, 3, 4, 8};
    int np = (int) (sizeof plist / sizeof plist[0]);
    int64_t params[CH4COLL_MAX_PARAMS];
    const int64_t *pass[2] = {NULL, NULL};
    int pi, k, map, i, round, fails = 0, cases = 0;

    ch4coll_algo_default_params(al, params);
    for (i = 0; i < ch4coll_algo_nparams(al); i++)
        if (strcmp(al->params[i].name, "chunk") == 0 &&
            al->params[i].max >= 8) {
            params[i] = 8;
            pass[1] = params;
        }
    for (round = 0; round < 2; round++) {
        int maxp = round ? 32 : 64;
        if (round == 1 && !pass[1])
            break;
        for (pi = 0; pi < np && plist[pi] <= (unit_quick() ? 17 : maxp); pi++)
            for (k = 0; k < 5 && !unit_quick_skips(plist[pi]); k++)
                for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++)
                    fails += sweep_placement(al, pass[round], plist[pi],
                                             ppnlist[k], map, &cases);
    }
    fprintf(stderr, "sweep %s/%s on virtual nodes: %d cases, %d failed\n",
            ch4coll_coll_name(al->coll), al->name, cases, fails);
    return fails;
}

START_TEST(test_registry_nodes)
{
    const ch4coll_algo_t *al = &ch4coll_algos[_i];

    if (al->build == NULL || !wanted(al) ||
        !(al->restrictions & (CH4COLL_F_NODES | CH4COLL_R_NODES)))
        return;
    ck_assert_int_eq(sweep_nodes(al), 0);
}
END_TEST

/*
 * Builders that post a receive early or late by its length on the call's
 * model (algos/post.h: a message of alpha/beta bytes or more waits for the
 * step before; Bruck's steps, multi_ring's ring receives).  The sweep's
 * blocks are below the default model's 20 KB, so most of their
 * receives are posted early there; here the model has alpha = 0, every
 * message is long and every gate closes: p = 1..17, 24, 32, 61, 64, 100,
 * counts {1, p+1, large}, in place and not, flat and (p <= 64, as
 * sweep_nodes()) on nodes of 3 and 8, block and cyclic; bruck with 2, 3
 * and ceil(lg p) steps, multi_ring in one piece and in pieces of 2 and 3
 * bytes (its first parameter, chunk, takes the same values).
 */
static const struct {
    int coll;
    const char *name;
} gated[] = {{CH4COLL_ALLGATHER, "bruck"},
             {CH4COLL_ALLGATHERV, "bruck"},
             {CH4COLL_ALLGATHER, "multi_ring"},
             {CH4COLL_ALLGATHERV, "multi_ring"}};

/* The start of a sweep on the model without latency (below): al's
 * default parameters and that model; 0 where this run does not sweep al
 * (CH4COLL_SWEEP_ONLY). */
static int zero_latency(const ch4coll_algo_t *al, int64_t *params,
                        ch4coll_model_t *m)
{
    ck_assert_ptr_nonnull(al);
    if (!wanted(al))
        return 0;
    ch4coll_algo_default_params(al, params);
    *m = ch4coll_model_default;
    m->alpha = 0;
    return 1;
}

START_TEST(test_long_messages)
{
    static const int ppnlist[] = {0, 3, 8};
    static const int64_t steps[] = {0, 2, 3};
    const ch4coll_algo_t *al =
        ch4coll_algo_find(gated[_i].coll, gated[_i].name);
    ch4coll_model_t m;
    int p, pi, k, map, ci, ip, si;
    size_t counts[3];
    int fails = 0, cases = 0;
    int64_t params[CH4COLL_MAX_PARAMS]; /* the harness reads all of them */
    char err[2048];

    if (!zero_latency(al, params, &m))
        return;
    for (pi = 0; (p = sweep_next_p(&pi, 100, counts)) > 0;) {
        for (k = 0; k < 3; k++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++)
                for (si = 0; si < (ch4coll_algo_nparams(al) ? 3 : 1); si++)
                    for (ci = 0, params[0] = steps[si]; ci < 3; ci++)
                        for (ip = 0; ip < 2; ip++) {
                            hz_case_t c = {
                                al,  ch4coll_algo_nparams(al) ? params : NULL,
                                p,   counts[ci],
                                0,   ip,
                                0,   0,
                                1,   ppnlist[k],
                                map, &m};
                            if ((k == 0 && map) || (k > 0 && p > 64) ||
                                (k > 0 && !node_case_applies(&c)) || !mine())
                                continue;
                            cases++;
                            if (hz_run(&c, err, sizeof err) != 0 && fails++ < 3)
                                fprintf(stderr,
                                        "FAIL %s/%s long p=%d ppn=%d %s "
                                        "n=%zu inplace=%d steps=%lld: %s\n",
                                        ch4coll_coll_name(al->coll), al->name,
                                        p, ppnlist[k], map ? "cyclic" : "block",
                                        counts[ci], ip,
                                        c.params ? (long long) *c.params : -1LL,
                                        err);
                        }
    }
    fprintf(stderr, "sweep %s/%s with long messages: %d cases, %d failed\n",
            ch4coll_coll_name(al->coll), al->name, cases, fails);
    ck_assert_int_eq(fails, 0);
}
END_TEST

START_TEST(test_registry_entry)
{
    const ch4coll_algo_t *al = &ch4coll_algos[_i];

    if (al->build == NULL || !wanted(al))
        return; /* native: nothing to build */
    ck_assert_int_eq(sweep_algo(al, NULL, 1 << 30), 0);
    ck_assert_int_eq(sweep_params(al), 0);
}
END_TEST

/*
 * bcast and reduce multi_leader block by block (algos/smp_multi_leader.c):
 * the sweeps above give their lanes one group of blocks (segments under
 * two blocks of the default `block`, and few blocks on the default model).
 * Here the model has alpha = 0, so a lane takes as many blocks as the
 * floor allows: `block` 1 and 64 bytes (many groups, each passed on
 * inside the node, or folded there, as it arrives), in one piece and in
 * pieces of 8 bytes, on nodes of 2, 3 and 8 (smaller last nodes: the
 * reduce's chains), block and cyclic, p up to 64, three roots; the
 * reduce sums ints, in place at the root.
 */
static const int ml_block_colls[] = {CH4COLL_BCAST, CH4COLL_REDUCE};

/* Case c where it applies and is this process's share, counted in
 * *cases; a failure counted in *fails, the first three described after
 * `what`. */
static void ml_case(const hz_case_t *c, const char *what, int *cases,
                    int *fails)
{
    char err[2048];

    if (!node_case_applies(c) || !mine())
        return;
    (*cases)++;
    if (hz_run(c, err, sizeof err) != 0 && (*fails)++ < 3)
        fprintf(stderr, "FAIL %s p=%d ppn=%d %s n=%zu root=%d inplace=%d: %s\n",
                what, c->p, c->ppn, c->map ? "cyclic" : "block", c->n, c->root,
                c->inplace, err);
}

START_TEST(test_multi_leader_blocks)
{
    static const int ppnlist[] = {2, 3, 8};
    static const int64_t floors[] = {1, 64}, chunks[] = {0, 8};
    int coll = ml_block_colls[_i];
    const ch4coll_algo_t *al = ch4coll_algo_find(coll, "multi_leader");
    ch4coll_model_t m;
    int p, pi, k, map, ci, ri, f, h;
    size_t counts[3];
    int fails = 0, cases = 0;
    int64_t params[CH4COLL_MAX_PARAMS];
    char what[128];

    if (!zero_latency(al, params, &m))
        return;
    for (pi = 0; (p = sweep_next_p(&pi, 64, counts)) > 0;) {
        int roots[3] = {0, p / 2, p - 1};
        for (k = 0; k < 3; k++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++)
                for (f = 0; f < 2; f++)
                    for (h = 0; h < 2; h++)
                        for (ci = 0; ci < 3; ci++)
                            for (ri = 0; ri < 3; ri++) {
                                hz_case_t c = {
                                    al,         params,
                                    p,          counts[ci],
                                    roots[ri],  coll == CH4COLL_REDUCE,
                                    HZ_INT_SUM, 0,
                                    1,          ppnlist[k],
                                    map,        &m};
                                params[0] = chunks[h];
                                params[1] = floors[f];
                                snprintf(what, sizeof what,
                                         "%s/multi_leader block=%lld "
                                         "chunk=%lld",
                                         ch4coll_coll_name(coll),
                                         (long long) floors[f],
                                         (long long) chunks[h]);
                                ml_case(&c, what, &cases, &fails);
                            }
    }
    fprintf(stderr,
            "sweep %s/multi_leader block by block: %d cases, %d "
            "failed\n",
            ch4coll_coll_name(coll), cases, fails);
    ck_assert_int_eq(fails, 0);
}
END_TEST

/*
 * allreduce multi_leader with fewer lanes than the largest node's ranks
 * (parameter `lanes`): a node's ranks from local index `lanes` on serve
 * none and send every segment to its lane's server.  Lanes 1, 2, 3 and
 * 5, and the default (0: as many as keep a segment above 8 KiB, here 3
 * at 8,195 ints and 2 at 5,000), on nodes of 3 and 8 (smaller last
 * nodes, whose ranks serve several of them), block and cyclic, p up to
 * 64, in one piece and in pieces of 8 bytes, in place and not; ints
 * summed.
 */
START_TEST(test_multi_leader_lanes)
{
    static const int ppnlist[] = {3, 8};
    static const int64_t lanes[] = {1, 2, 3, 5, 0}, chunks[] = {262144, 8};
    const ch4coll_algo_t *al =
        ch4coll_algo_find(CH4COLL_ALLREDUCE, "multi_leader");
    int p, pi, k, map, ci, l, h, ip;
    size_t counts[5];
    int fails = 0, cases = 0;
    int64_t params[CH4COLL_MAX_PARAMS];
    char what[128];

    for (pi = 0; (p = sweep_next_p(&pi, 64, counts)) > 0;) {
        counts[3] = 8195;
        counts[4] = 5000;
        for (k = 0; k < 2; k++)
            for (map = CH4COLL_MAP_BLOCK; map <= CH4COLL_MAP_CYCLIC; map++)
                for (l = 0; l < 5; l++)
                    for (h = 0; h < 2; h++)
                        for (ci = 0; ci < (h ? 2 : l == 4 ? 5 : 3); ci++)
                            for (ip = 0; ip < 2; ip++) {
                                hz_case_t c = {al,         params, p,
                                               counts[ci], 0,      ip,
                                               HZ_INT_SUM, 0,      1,
                                               ppnlist[k], map,    NULL};
                                ch4coll_algo_default_params(al, params);
                                params[0] = chunks[h];
                                params[1] = lanes[l];
                                snprintf(what, sizeof what,
                                         "allreduce/multi_leader lanes=%lld "
                                         "chunk=%lld",
                                         (long long) lanes[l],
                                         (long long) chunks[h]);
                                ml_case(&c, what, &cases, &fails);
                            }
    }
    fprintf(stderr, "sweep allreduce/multi_leader lanes: %d cases, %d failed\n",
            cases, fails);
    ck_assert_int_eq(fails, 0);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("registry");
    SRunner *sr;
    int failed;

    MPI_Init(&argc, &argv);
    hz_setup();
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_registry_entry, 0, ch4coll_nalgos);
    tcase_add_loop_test(tc, test_registry_nodes, 0, ch4coll_nalgos);
    tcase_add_loop_test(tc, test_long_messages, 0,
                        (int) (sizeof gated / sizeof gated[0]));
    tcase_add_loop_test(
        tc, test_multi_leader_blocks, 0,
        (int) (sizeof ml_block_colls / sizeof ml_block_colls[0]));
    tcase_add_test(tc, test_multi_leader_lanes);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    hz_teardown();
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
