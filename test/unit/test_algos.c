/*
 * test_algos.c - unit tests of the algorithm registry and of what single
 * builders (algos/) make of the topology: properties read off the
 * schedules of all ranks, without running them.
 *
 * What is covered, and why it matters:
 *
 *   registry   Every registry row is whole: builder and cost, description,
 *              parameters without gaps and with defaults in range.
 *   builders   allgather node_ring under a cyclic placement crosses between
 *              nodes once per node and round; reduce pipelined_bintree's
 *              in-order tree; the structure of the line schedules (bcast:
 *              every byte once, matching sends and receives; allreduce:
 *              messages per peer and scratch); smp's ring of piece scratch.
 *
 * Every algorithm's results are checked by the registry sweep
 * (test_sweep.c); the rank arithmetic under them by test_topo*.c.
 *
 * Assumptions: unit.h (MPI singleton, CK_NOFORK, each test frees what it
 * creates).
 */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "algos/smp.h"
#include "ch4coll.h"
#include "sched/sched.h"
#include "topo/nodes.h"
#include "unit.h"

/* ======================================================= the registry */

/* Every registry row is whole: a builder and a cost (or neither: native),
 * a description, and parameters without gaps whose defaults are in range
 * (the rows use designated initializers; nothing is counted by hand); the
 * public catalog entry (ch4coll_algorithm_info) says the same (it once
 * held 4 parameters, and a fifth overwrote the first default). */
START_TEST(test_registry_rows)
{
    const ch4coll_algo_t *al = &ch4coll_algos[_i];
    int i, n = ch4coll_algo_nparams(al);
    ch4coll_algorithm_info_t in;

    ck_assert_int_eq(ch4coll_algorithm_info(_i, &in), 0);
    ck_assert_int_eq(in.nparams, n);
    for (i = 0; i < n; i++) {
        ck_assert_str_eq(in.param_names[i], al->params[i].name);
        ck_assert_msg(in.param_defaults[i] == al->params[i].def &&
                          in.param_min[i] == al->params[i].min &&
                          in.param_max[i] == al->params[i].max,
                      "%s: %s in the public catalog", al->name,
                      al->params[i].name);
    }

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

/* =========================================================== builders */

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

/* A selection that names a composed allreduce for every inner step. */
static int composed_subselect(const ch4coll_args_t *inner,
                              const ch4coll_algo_t **al, int64_t *params)
{
    *al = ch4coll_algo_find(inner->coll, "group_lanes");
    ch4coll_algo_default_params(*al, params);
    return 0;
}

/* An inner step never nests a composed algorithm (smp.c's
 * ch4coll_smp_choose; a tree learned on 2026-11-30 named group_lanes
 * for a flat communicator of 61 ranks at 1 KiB, and smp's leaders' step
 * built it inside its view: "invalid argument"): the fallback instead. */
START_TEST(test_smp_inner_not_composed)
{
    ch4coll_args_t a = line_args(CH4COLL_ALLREDUCE, 0, 16, 0, 257);
    ch4coll_args_t ia = line_args(CH4COLL_ALLREDUCE, 0, 61, 0, 257);
    ch4coll_smp_choice_t c;

    a.subselect = composed_subselect;
    ck_assert_int_eq(ch4coll_smp_choose(&a, &ia, &c), CH4COLL_OK);
    ck_assert_ptr_nonnull(c.al);
    ck_assert(!(c.al->restrictions & CH4COLL_F_COMPOSED));
    ck_assert_str_eq(c.al->name, "butterfly");
}
END_TEST

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
 * each direction, sends and receives as many as the phases' lines need
 * (the same at every line position), and its scratch stays within
 * group-1 vectors.  A p with a prime factor above group folds the ranks
 * over p' (the largest number <= p without one) first: ranks 2i, i < e
 * = p - p', send and receive one message, to and from 2i + 1, which
 * sends and receives one more than the other positions. */
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
        int q, f, msgs = -1, bound = groups[gi] - 1, p1 = p + 1, e;
        do { /* p': no prime factor above group */
            for (q = --p1, f = 2; f <= groups[gi]; f++)
                while (q % f == 0)
                    q /= f;
        } while (q > 1);
        e = p - p1;
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
            if (r < 2 * e && r % 2 == 0) { /* folded away */
                ck_assert_int_eq(sends, 1);
                ck_assert_int_eq(nsend[r + 1], 1);
            } else {
                if (r < 2 * e) { /* the fold's position */
                    ck_assert_int_eq(nsend[r - 1], 1);
                    sends--;
                }
                if (msgs < 0)
                    msgs = sends;
                ck_assert_int_eq(sends, msgs); /* at every position */
            }
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

/* =============================================================== main */

static Suite *algos_suite(void)
{
    Suite *s = suite_create("algos");
    TCase *tc;

    tc = tcase_create("registry");
    tcase_add_loop_test(tc, test_registry_rows, 0, ch4coll_nalgos);
    suite_add_tcase(s, tc);

    tc = tcase_create("builders");
    tcase_add_test(tc, test_node_ring_crossings);
    tcase_add_test(tc, test_topo_inorder_reduce_tree);
    tcase_add_loop_test(tc, test_bcast_line_structure, 0, 25);
    tcase_add_loop_test(tc, test_allreduce_line_structure, 0, 25);
    tcase_add_test(tc, test_smp_scratch_ring);
    tcase_add_test(tc, test_smp_inner_not_composed);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return unit_main(argc, argv, algos_suite);
}
