/*
 * report.c - ch4coll_model(): every applicable algorithm of a collective
 * ranked on the alpha-beta-gamma model, by its closed formula (the
 * registry's cost function) and by replaying its schedules
 * (model/replay.c), next to the lower bound (model/bounds.c).  Used by
 * `ch4coll-info --model`, `--explain ... --model` and maint/model-tables.
 *
 * With ppn=K the ranks sit on virtual nodes of K ranks, placed block or
 * cyclic (map=, topo/nodes.h) as MPIR_CVAR_CH4COLL_VIRTUAL_PPN/MAP place
 * them: the builders and cost functions see that locality as args.loc and
 * choose inner steps with the selection tree (args.subselect), exactly as
 * in the library; restrictions are checked against it; the replay charges
 * alpha_node + m beta_node inside a node and serialises each node's
 * inter-node messages on its one interface.  The lower bound stays the
 * flat one (one rank per node, alpha and beta everywhere).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algos/algo.h"
#include "ch4coll.h"
#include "../select/config.h"
#include "../select/select.h"
#include "../topo/distrib.h"
#include "../topo/nodes.h"
#include "../select/spec.h"
#include "bounds.h"
#include "replay.h"

typedef struct {
    int coll, p, root, replay, noncomm, dist;
    int ppn, map; /* ppn 0: one rank per node (no locality) */
    int64_t bytes;
    const ch4coll_algo_t *algo; /* NULL: all of the collective */
    int64_t params[CH4COLL_MAX_PARAMS];
    ch4coll_model_t m;
    ch4coll_locality_t loc; /* ppn > 0: the virtual placement */
} model_spec_t;

/* The locality the builders and the replay see (NULL without ppn=). */
static const ch4coll_locality_t *spec_loc(const model_spec_t *d)
{
    return d->ppn > 0 ? &d->loc : NULL;
}

/* The integer keys: 1 if kv is one (set, or -1 with the reason), else 0. */
static int int_key(model_spec_t *d, const char *kv, const char *eq, char *err,
                   size_t len)
{
    int64_t v;

    if (strcmp(kv, "p") && strcmp(kv, "comm_size") && strcmp(kv, "bytes") &&
        strcmp(kv, "root") && strcmp(kv, "replay") && strcmp(kv, "ppn"))
        return 0;
    if (ch4coll_parse_int64(eq, 0, INT64_C(1) << 40, &v) != CH4COLL_OK) {
        snprintf(err, len, "%s: '%s' is not a valid integer", kv, eq);
        return -1;
    }
    if (strcmp(kv, "p") == 0 || strcmp(kv, "comm_size") == 0)
        d->p = (int) (v < (1 << 20) ? v : 0);
    else if (strcmp(kv, "bytes") == 0)
        d->bytes = v;
    else if (strcmp(kv, "root") == 0)
        d->root = (int) (v < (1 << 20) ? v : 1 << 20);
    else if (strcmp(kv, "ppn") == 0)
        d->ppn = (int) (v < (1 << 20) ? v : 1 << 20);
    else
        d->replay = v != 0;
    return 1;
}

/* The keys with names for values: 1 if kv is one (set, or -1 with the
 * reason), else 0.  *map_given notes map=. */
static int name_key(model_spec_t *d, const char *kv, const char *eq,
                    int *map_given, char *err, size_t len)
{
    if (strcmp(kv, "coll") == 0) {
        if ((d->coll = ch4coll_coll_from_name(eq)) < 0) {
            snprintf(err, len, "unknown collective '%s'", eq);
            return -1;
        }
    } else if (strcmp(kv, "dist") == 0) {
        if (!(d->dist = ch4coll_distrib_from_name(eq))) {
            snprintf(err, len,
                     "dist: regular, broadcast, spike, half_full, "
                     "linear or geometric");
            return -1;
        }
    } else if (strcmp(kv, "op") == 0) {
        if (strcmp(eq, "commutative") && strcmp(eq, "noncommutative")) {
            snprintf(err, len, "op: commutative or noncommutative");
            return -1;
        }
        d->noncomm = strcmp(eq, "noncommutative") == 0;
    } else if (strcmp(kv, "map") == 0) {
        if (strcmp(eq, "block") && strcmp(eq, "cyclic")) {
            snprintf(err, len, "map: block or cyclic");
            return -1;
        }
        d->map =
            strcmp(eq, "cyclic") == 0 ? CH4COLL_MAP_CYCLIC : CH4COLL_MAP_BLOCK;
        *map_given = 1;
    } else {
        return 0;
    }
    return 1;
}

static int is_model_key(const char *kv)
{
    return strcmp(kv, "machine") == 0 || strcmp(kv, "alpha") == 0 ||
           strcmp(kv, "beta") == 0 || strcmp(kv, "gamma") == 0 ||
           strcmp(kv, "alpha_node") == 0 || strcmp(kv, "beta_node") == 0 ||
           strcmp(kv, "gap") == 0 || strcmp(kv, "eager") == 0;
}

static int parse_spec(const char *spec, model_spec_t *d, char *err, size_t len)
{
    char buf[1024], *kv, *eq, *cur;
    int more, map_given = 0;
    const char *algo = NULL;
    char mtext[1024] = "";

    memset(d, 0, sizeof *d);
    d->coll = -1;
    d->replay = 1;
    if (ch4coll_spec_copy(buf, sizeof buf, spec, err, len) != 0)
        return -1;
    cur = buf;
    while ((more = ch4coll_spec_next(&cur, &kv, &eq, err, len)) > 0) {
        if (strcmp(kv, "algorithm") == 0) {
            algo = eq;
        } else if (is_model_key(kv)) {
            size_t n = strlen(mtext);
            snprintf(mtext + n, sizeof mtext - n, "%s%s=%s", n ? "," : "", kv,
                     eq);
        } else {
            int k = int_key(d, kv, eq, err, len);
            if (k == 0)
                k = name_key(d, kv, eq, &map_given, err, len);
            if (k == 0)
                snprintf(err, len,
                         "unknown key '%s' (coll, p, bytes, root, algorithm, "
                         "op, dist, ppn, map, machine, alpha, beta, gamma, "
                         "alpha_node, beta_node, gap, eager, replay)",
                         kv);
            if (k <= 0)
                return -1;
        }
    }
    if (more < 0)
        return -1;
    if (d->coll < 0 || d->p < 1 || d->p > (1 << 16) || d->root >= d->p) {
        snprintf(err, len, "coll= and p= (1..65536, > root) are required");
        return -1;
    }
    if (map_given && d->ppn == 0) {
        snprintf(err, len, "map= needs ppn= (ranks per node, >= 1)");
        return -1;
    }
    if (ch4coll_model_parse(mtext, &d->m, err, len) != 0)
        return -1;
    if (algo && ch4coll_spec_algorithm(d->coll, algo, "model", &d->algo,
                                       d->params, err, len) != 0)
        return -1;
    return 0;
}

/* Regular call shape of `bytes` per rank (MPI_INT elements for
 * reductions, bytes for data movement), or with dist= the block sizes of
 * that distribution (v-collectives). */
static void model_args(const model_spec_t *d, int rank, size_t *v,
                       ch4coll_args_t *a)
{
    int i;

    /* the first call tells the element size, the second uses it */
    ch4coll_spec_args(d->coll, d->p, rank, d->root, 0, !d->noncomm, v, a);
    ch4coll_spec_args(d->coll, d->p, rank, d->root,
                      (size_t) d->bytes / a->elem.size, !d->noncomm, v, a);
    if (d->dist) { /* Träff et al.'s distributions, base size = count */
        size_t at = 0;
        ch4coll_distrib_counts(d->dist, d->p, a->count, v);
        for (i = 0; i < d->p; i++) {
            v[d->p + i] = at;
            at += v[i];
        }
        if (d->coll != CH4COLL_ALLTOALLV)
            a->count = v[rank];
    }
    a->loc = spec_loc(d);
    a->subselect = ch4coll_select_sub;
    a->model = &d->m; /* automatic parameters follow the spec's model */
}

/* The virtual placement of ppn= and map= into d->loc; node_of: 2 p ints
 * (the second half work space). */
static void place(model_spec_t *d, int *node_of)
{
    int r;

    for (r = 0; r < d->p; r++)
        node_of[r] = ch4coll_virtual_node(r, d->p, d->ppn, d->map);
    d->loc.nodes = ch4coll_nodes_normalise(d->p, node_of, node_of + d->p);
    d->loc.consecutive = ch4coll_nodes_consecutive(d->p, node_of);
    d->loc.node_of = node_of;
}

/* Replay al's schedules for all ranks: the simulated time, or < 0; *mem
 * the largest schedule's memory (ch4coll_sched_bytes). */
static double replay_algo(const model_spec_t *d, const ch4coll_algo_t *al,
                          const int64_t *params, size_t *v, size_t *mem,
                          char *err, size_t len)
{
    ch4coll_sched_t *s = calloc((size_t) d->p, sizeof *s);
    ch4coll_sched_t **sp = calloc((size_t) d->p, sizeof *sp);
    double t = -1;
    int r, ok = s && sp;

    for (r = 0; r < d->p && ok; r++) {
        ch4coll_args_t a;
        model_args(d, r, v, &a);
        sp[r] = &s[r];
        if (ch4coll_sched_init(&s[r], &a.elem, a.op, r, d->p) != CH4COLL_OK ||
            al->build(&s[r], &a, params) != CH4COLL_OK ||
            ch4coll_sched_commit(&s[r]) != CH4COLL_OK) {
            snprintf(err, len, "%s: building rank %d failed: %s", al->name, r,
                     ch4coll_strerror(s[r].status));
            ok = 0;
        } else if (ch4coll_sched_bytes(&s[r]) > *mem) {
            *mem = ch4coll_sched_bytes(&s[r]);
        }
    }
    if (ok && ch4coll_replay(sp, d->p, &d->m, spec_loc(d), &t, err, len) !=
                  CH4COLL_OK)
        t = -1;
    for (r = 0; s && r < d->p; r++)
        ch4coll_sched_destroy(&s[r]);
    free(s);
    free(sp);
    return t;
}

typedef struct {
    const ch4coll_algo_t *al;
    double formula, replay;
    size_t mem; /* bytes of the largest rank's schedule (replayed) */
} row_t;

static double row_key(const row_t *r)
{
    return r->replay >= 0 ? r->replay : r->formula;
}

static int by_time(const void *x, const void *y)
{
    double a = row_key(x), b = row_key(y);
    return a < b ? -1 : a > b;
}

/* The first line: the call, the model, the placement and the bound. */
static size_t header(const model_spec_t *d, double lb, char *out, size_t outlen)
{
    char where[160], gap[48] = "";

    if (d->ppn > 0)
        snprintf(where, sizeof where,
                 "ppn=%d map=%s (%d node%s, one network interface each; "
                 "alpha_node=%g beta_node=%g): flat",
                 d->ppn, d->map == CH4COLL_MAP_CYCLIC ? "cyclic" : "block",
                 d->loc.nodes, d->loc.nodes == 1 ? "" : "s", d->m.alpha_node,
                 d->m.beta_node);
    else
        snprintf(where, sizeof where, "one rank per node:");
    if (d->m.gap > 0)
        snprintf(gap, sizeof gap, " gap=%g (multi-ported)", d->m.gap);
    return (size_t) snprintf(
        out, outlen,
        "%s p=%d bytes=%lld alpha=%g beta=%g gamma=%g%s, %s lower bound %.2f "
        "us\n%-24s %12s %12s %9s %10s\n",
        ch4coll_coll_name(d->coll), d->p, (long long) d->bytes, d->m.alpha,
        d->m.beta, d->m.gamma, gap, where, lb * 1e6, "# algorithm",
        "formula_us", d->replay ? "replay_us" : "-", "/bound",
        d->replay ? "sched_KiB" : "-");
}

/* Every applicable algorithm into rows (at most max), unsorted; the
 * number of rows, or -1 with a failed replay's reason in err. */
static int model_rows(const model_spec_t *d, size_t *v, row_t *rows, int max,
                      char *err, size_t len)
{
    ch4coll_args_t a;
    int i, n = 0;

    model_args(d, d->root, v, &a);
    for (i = 0; i < ch4coll_nalgos && n < max; i++) {
        const ch4coll_algo_t *al = &ch4coll_algos[i];
        int64_t params[CH4COLL_MAX_PARAMS];
        const char *why;
        if (al->coll != d->coll || ch4coll_algo_is_native(al) ||
            (d->algo && al != d->algo) ||
            !ch4coll_algo_applicable(al, &a, &why))
            continue;
        if (d->algo)
            memcpy(params, d->params, sizeof params);
        else
            ch4coll_config_default_params(al, params);
        rows[n].al = al;
        rows[n].formula = al->cost ? al->cost(&a, params, &d->m) : -1;
        rows[n].mem = 0;
        rows[n].replay =
            d->replay ? replay_algo(d, al, params, v, &rows[n].mem, err, len)
                      : -1;
        if (d->replay && rows[n].replay < 0)
            return -1;
        n++;
    }
    return n;
}

int ch4coll_model(const char *spec, char *out, size_t outlen)
{
    model_spec_t d;
    ch4coll_args_t a;
    row_t rows[64];
    int nrows, i;
    size_t used, *v;
    int *node_of = NULL;
    char err[512];
    double lb;

    out[0] = '\0';
    if (parse_spec(spec, &d, out, outlen) != 0)
        return -1;
    ch4coll_config_load();
    v = malloc(2 * (size_t) d.p * sizeof *v);
    if (d.ppn > 0)
        node_of = malloc(2 * (size_t) d.p * sizeof *node_of);
    if (!v || (d.ppn > 0 && !node_of)) {
        snprintf(out, outlen, "out of memory");
        free(v);
        free(node_of);
        return -1;
    }
    if (d.ppn > 0)
        place(&d, node_of);
    model_args(&d, d.root, v, &a);
    a.loc = NULL; /* the flat bound */
    lb = ch4coll_lower_bound(&a, &d.m);
    nrows = model_rows(&d, v, rows, 64, err, sizeof err);
    if (nrows < 0)
        snprintf(out, outlen, "%s\n", err);
    else {
        qsort(rows, (size_t) nrows, sizeof rows[0], by_time);
        used = header(&d, lb, out, outlen);
        for (i = 0; i < nrows && used < outlen; i++) {
            char f[32], r[32], q[32], m[32];
            double k = row_key(&rows[i]);
            snprintf(f, sizeof f, "%.2f", rows[i].formula * 1e6);
            snprintf(r, sizeof r, "%.2f", rows[i].replay * 1e6);
            snprintf(q, sizeof q, "%.3f", lb > 0 ? k / lb : 1.0);
            snprintf(m, sizeof m, "%.1f", (double) rows[i].mem / 1024);
            used += (size_t) snprintf(
                out + used, outlen - used, "%-24s %12s %12s %9s %10s\n",
                rows[i].al->name, rows[i].formula >= 0 ? f : "-",
                rows[i].replay >= 0 ? r : "-", k >= 0 ? q : "-",
                rows[i].replay >= 0 ? m : "-");
        }
    }
    free(v);
    free(node_of);
    return nrows < 0 ? -1 : 0;
}
