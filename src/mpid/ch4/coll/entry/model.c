/*
 * model.c - ch4coll_model(): every applicable algorithm of a collective
 * ranked on the alpha-beta-gamma model, by its closed formula (the
 * registry's cost function) and by replaying its schedules
 * (transport/replay.c), next to the lower bound (algos/bounds.c).  Used by
 * `ch4coll-info --model`, `--explain ... --model` and maint/model-tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "ch4coll.h"
#include "select/config.h"
#include "topo/distrib.h"
#include "spec.h"
#include "transport/replay.h"

typedef struct {
    int coll, p, root, replay, noncomm, dist;
    int64_t bytes;
    const ch4coll_algo_t *algo; /* NULL: all of the collective */
    int64_t params[CH4COLL_MAX_PARAMS];
    ch4coll_model_t m;
} model_spec_t;

static int parse_double(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);

    if (end == s || *end != '\0' || !(v >= 0) || isinf(v))
        return -1;
    *out = v;
    return 0;
}

int ch4coll_model_parse(const char *text, ch4coll_model_t *m, char *err,
                        size_t len)
{
    char buf[256], *kv, *save = NULL, *eq;
    double *dst;

    *m = ch4coll_model_default;
    if (strlen(text) >= sizeof buf) {
        snprintf(err, len, "model too long");
        return -1;
    }
    strcpy(buf, text);
    for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        if (!(eq = strchr(kv, '='))) {
            snprintf(err, len, "model: '%s' is not key=value", kv);
            return -1;
        }
        *eq++ = '\0';
        dst = strcmp(kv, "alpha") == 0        ? &m->alpha
              : strcmp(kv, "beta") == 0       ? &m->beta
              : strcmp(kv, "gamma") == 0      ? &m->gamma
              : strcmp(kv, "alpha_node") == 0 ? &m->alpha_node
              : strcmp(kv, "beta_node") == 0  ? &m->beta_node
                                              : NULL;
        if (!dst || parse_double(eq, dst) != 0) {
            snprintf(err, len,
                     "model: '%s=%s': keys alpha, beta, gamma, alpha_node, "
                     "beta_node (seconds, seconds per byte), non-negative "
                     "numbers",
                     kv, eq);
            return -1;
        }
    }
    return 0;
}

static int parse_spec(const char *spec, model_spec_t *d, char *err, size_t len)
{
    char buf[512], *kv, *eq, *cur;
    int more;
    const char *algo = NULL;
    char mtext[256] = "";
    int64_t v;

    memset(d, 0, sizeof *d);
    d->coll = -1;
    d->replay = 1;
    if (ch4coll_spec_copy(buf, sizeof buf, spec, err, len) != 0)
        return -1;
    cur = buf;
    while ((more = ch4coll_spec_next(&cur, &kv, &eq, err, len)) > 0) {
        if (strcmp(kv, "coll") == 0) {
            if ((d->coll = ch4coll_coll_from_name(eq)) < 0) {
                snprintf(err, len, "unknown collective '%s'", eq);
                return -1;
            }
        } else if (strcmp(kv, "algorithm") == 0) {
            algo = eq;
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
        } else if (strcmp(kv, "alpha") == 0 || strcmp(kv, "beta") == 0 ||
                   strcmp(kv, "gamma") == 0) {
            size_t n = strlen(mtext);
            snprintf(mtext + n, sizeof mtext - n, "%s%s=%s", n ? "," : "", kv,
                     eq);
        } else if (strcmp(kv, "p") == 0 || strcmp(kv, "comm_size") == 0 ||
                   strcmp(kv, "bytes") == 0 || strcmp(kv, "root") == 0 ||
                   strcmp(kv, "replay") == 0) {
            if (ch4coll_parse_int64(eq, 0, INT64_C(1) << 40, &v) !=
                CH4COLL_OK) {
                snprintf(err, len, "%s: '%s' is not a valid integer", kv, eq);
                return -1;
            }
            if (kv[0] == 'p' || kv[0] == 'c')
                d->p = (int) (v < (1 << 20) ? v : 0);
            else if (kv[0] == 'b')
                d->bytes = v;
            else if (kv[0] == 'r' && kv[1] == 'o')
                d->root = (int) (v < (1 << 20) ? v : 1 << 20);
            else
                d->replay = v != 0;
        } else {
            snprintf(err, len,
                     "unknown key '%s' (coll, p, bytes, root, algorithm, op, "
                     "dist, alpha, beta, gamma, replay)",
                     kv);
            return -1;
        }
    }
    if (more < 0)
        return -1;
    if (d->coll < 0 || d->p < 1 || d->p > (1 << 16) || d->root >= d->p) {
        snprintf(err, len, "coll= and p= (1..65536, > root) are required");
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
}

/* Replay al's schedules for all ranks: the simulated time, or < 0. */
static double replay_algo(const model_spec_t *d, const ch4coll_algo_t *al,
                          const int64_t *params, size_t *v, char *err,
                          size_t len)
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
        }
    }
    if (ok && ch4coll_replay(sp, d->p, &d->m, &t, err, len) != CH4COLL_OK)
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

int ch4coll_model(const char *spec, char *out, size_t outlen)
{
    model_spec_t d;
    ch4coll_args_t a;
    row_t rows[64];
    int nrows = 0, i, rc = 0;
    size_t used = 0, *v;
    char err[512];
    double lb;

    out[0] = '\0';
    if (parse_spec(spec, &d, out, outlen) != 0)
        return -1;
    ch4coll_config_load();
    v = malloc(2 * (size_t) d.p * sizeof *v);
    if (!v) {
        snprintf(out, outlen, "out of memory");
        return -1;
    }
    model_args(&d, d.root, v, &a);
    lb = ch4coll_lower_bound(&a, &d.m);
    for (i = 0; i < ch4coll_nalgos && nrows < 64; i++) {
        const ch4coll_algo_t *al = &ch4coll_algos[i];
        int64_t params[CH4COLL_MAX_PARAMS];
        const char *why;
        if (al->coll != d.coll || ch4coll_algo_is_native(al) ||
            (d.algo && al != d.algo) || !ch4coll_algo_applicable(al, &a, &why))
            continue;
        if (d.algo)
            memcpy(params, d.params, sizeof params);
        else
            ch4coll_config_default_params(al, params);
        rows[nrows].al = al;
        rows[nrows].formula = al->cost ? al->cost(&a, params, &d.m) : -1;
        rows[nrows].replay =
            d.replay ? replay_algo(&d, al, params, v, err, sizeof err) : -1;
        if (d.replay && rows[nrows].replay < 0) {
            snprintf(out, outlen, "%s\n", err);
            rc = -1;
            break;
        }
        nrows++;
    }
    if (rc == 0) {
        qsort(rows, (size_t) nrows, sizeof rows[0], by_time);
        used += (size_t) snprintf(
            out + used, outlen - used,
            "%s p=%d bytes=%lld alpha=%g beta=%g gamma=%g: lower bound "
            "%.2f us\n%-24s %12s %12s %9s\n",
            ch4coll_coll_name(d.coll), d.p, (long long) d.bytes, d.m.alpha,
            d.m.beta, d.m.gamma, lb * 1e6, "# algorithm", "formula_us",
            d.replay ? "replay_us" : "-", "/bound");
        for (i = 0; i < nrows && used < outlen; i++) {
            char f[32], r[32], q[32];
            double k = row_key(&rows[i]);
            snprintf(f, sizeof f, "%.2f", rows[i].formula * 1e6);
            snprintf(r, sizeof r, "%.2f", rows[i].replay * 1e6);
            snprintf(q, sizeof q, "%.3f", lb > 0 ? k / lb : 1.0);
            used += (size_t) snprintf(
                out + used, outlen - used, "%-24s %12s %12s %9s\n",
                rows[i].al->name, rows[i].formula >= 0 ? f : "-",
                rows[i].replay >= 0 ? r : "-", k >= 0 ? q : "-");
        }
    }
    free(v);
    return rc;
}
