/*
 * api.c - the public functions of ch4coll.h: version, statistics, the
 * catalog, and schedule inspection (Graphviz) for ch4coll-info.
 */
#include "ch4coll.h"
#include "../select/spec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algos/algo.h"
#include "cache.h"
#include "../select/config.h"
#include "../select/select.h"
#include "../select/tree.h"
#include "../topo/distrib.h"
#include "../util/util.h"

void ch4coll_run_stats(uint64_t *calls, uint64_t *native, uint64_t *hits,
                       uint64_t *misses);

const char *ch4coll_version(void)
{
    return CH4COLL_VERSION;
}

void ch4coll_get_stats(ch4coll_stats_t *out)
{
    memset(out, 0, sizeof *out);
    out->alloc_calls = ch4coll_alloc_calls();
    ch4coll_run_stats(&out->calls, &out->native_calls, &out->cache_hits,
                      &out->cache_misses);
    out->cache_evictions =
        __atomic_load_n(&ch4coll_cache_evictions_total, __ATOMIC_RELAXED);
}

int ch4coll_algorithm_count(void)
{
    return ch4coll_nalgos;
}

int ch4coll_algorithm_info(int i, ch4coll_algorithm_info_t *out)
{
    const ch4coll_algo_t *al;
    int j;

#if CH4COLL_MAX_PARAMS > CH4COLL_ALGORITHM_MAX_PARAMS
#error "ch4coll_algorithm_info_t holds fewer parameters than an algorithm has"
#endif
    if (i < 0 || i >= ch4coll_nalgos)
        return -1;
    al = &ch4coll_algos[i];
    memset(out, 0, sizeof *out);
    out->collective = ch4coll_coll_name(al->coll);
    out->name = al->name;
    out->description = al->desc;
    out->commutative_only = (al->restrictions & CH4COLL_R_COMMUTATIVE) != 0;
    out->node_aware =
        (al->restrictions & (CH4COLL_F_NODES | CH4COLL_R_NODES)) != 0;
    out->nparams = ch4coll_algo_nparams(al);
    for (j = 0; j < ch4coll_algo_nparams(al); j++) {
        out->param_names[j] = al->params[j].name;
        out->param_defaults[j] = al->params[j].def;
        out->param_min[j] = al->params[j].min;
        out->param_max[j] = al->params[j].max;
    }
    return 0;
}

/* ------------------------------------------------------------- --dot */

typedef struct {
    int coll, p, rank, root;
    int64_t count;
    const ch4coll_algo_t *algo;
    int64_t params[CH4COLL_MAX_PARAMS];
} dot_spec_t;

static int parse_spec(const char *spec, dot_spec_t *d, char *err, size_t len)
{
    char buf[512], *kv, *eq, *cur;
    int more;
    const char *algo = NULL;
    int64_t v;

    memset(d, 0, sizeof *d);
    d->coll = -1;
    d->rank = -1;
    d->count = 4;
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
        } else if (strcmp(kv, "p") == 0 || strcmp(kv, "rank") == 0 ||
                   strcmp(kv, "root") == 0 || strcmp(kv, "count") == 0) {
            if (ch4coll_parse_int64(eq, kv[0] == 'p' ? 1 : 0, 1 << 20, &v)) {
                snprintf(err, len, "%s: '%s' is not a valid integer", kv, eq);
                return -1;
            }
            if (kv[0] == 'p')
                d->p = (int) v;
            else if (kv[0] == 'r' && kv[1] == 'a')
                d->rank = (int) v;
            else if (kv[0] == 'r')
                d->root = (int) v;
            else
                d->count = v;
        } else {
            snprintf(err, len,
                     "unknown key '%s' (coll, algorithm, p, rank, "
                     "root, count)",
                     kv);
            return -1;
        }
    }
    if (more < 0)
        return -1;
    if (d->coll < 0 || !algo || d->p < 1) {
        snprintf(err, len, "coll=, algorithm= and p= are required");
        return -1;
    }
    if (d->rank >= d->p || d->root >= d->p) {
        snprintf(err, len, "rank and root must be below p");
        return -1;
    }
    if (ch4coll_spec_algorithm(d->coll, algo, "show", &d->algo, d->params, err,
                               len) != 0)
        return -1;
    return 0;
}

static void dot_rank(FILE *f, const ch4coll_sched_t *s, int rank)
{
    int i, j;

    fprintf(f, "  subgraph cluster_%d {\n    label=\"rank %d\";\n", rank, rank);
    for (i = 0; i < s->nv; i++) {
        const ch4coll_vtx_t *v = &s->vtx[i];
        if (v->kind == CH4COLL_V_SEND || v->kind == CH4COLL_V_RECV)
            fprintf(
                f,
                "    r%dv%d [label=\"%s %s %d\\n%zu x buf%d+%zu tag %d\"];\n",
                rank, i, ch4coll_vkind_name(v->kind),
                v->kind == CH4COLL_V_SEND ? "to" : "from", v->peer, v->count,
                v->a.buf, v->a.off, v->tag);
        else
            fprintf(
                f,
                "    r%dv%d [label=\"%s\\nbuf%d+%zu -> buf%d+%zu (%zu)\"];\n",
                rank, i, ch4coll_vkind_name(v->kind), v->a.buf, v->a.off,
                v->b.buf, v->b.off, v->count);
        for (j = 0; j < v->n_out; j++)
            fprintf(f, "    r%dv%d -> r%dv%d;\n", rank, i, rank,
                    s->succ[v->out_first + j]);
    }
    fprintf(f, "  }\n");
}

int ch4coll_dot(const char *spec, const char *path, char *err, size_t errlen)
{
    dot_spec_t d;
    ch4coll_args_t a;
    ch4coll_sched_t s;
    size_t *v;
    FILE *f;
    int r, rc = 0;

    if (parse_spec(spec, &d, err, errlen) != 0)
        return -1;
    v = malloc(2 * (size_t) d.p * sizeof *v);
    f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!v || !f) {
        snprintf(err, errlen, "cannot open %s", path);
        free(v);
        return -1;
    }
    fprintf(f, "digraph \"%s %s p=%d\" {\n", ch4coll_coll_name(d.coll),
            d.algo->name, d.p);
    for (r = 0; r < d.p && rc == 0; r++) {
        if (d.rank >= 0 && r != d.rank)
            continue;
        ch4coll_spec_args(d.coll, d.p, r, d.root, (size_t) d.count, 1, v, &a);
        if (ch4coll_sched_init(&s, &a.elem, a.op, r, d.p) != CH4COLL_OK ||
            d.algo->build(&s, &a, d.params) != CH4COLL_OK ||
            ch4coll_sched_commit(&s) != CH4COLL_OK) {
            snprintf(err, errlen, "building rank %d failed", r);
            rc = -1;
        } else {
            dot_rank(f, &s, r);
        }
        ch4coll_sched_destroy(&s);
    }
    fprintf(f, "}\n");
    if (f != stdout)
        fclose(f);
    free(v);
    return rc;
}

/* --------------------------------------------------------- --explain */

typedef struct {
    char *out;
    size_t len, used;
} textbuf_t;

static void append(textbuf_t *b, const char *line)
{
    if (b->used < b->len)
        b->used +=
            (size_t) snprintf(b->out + b->used, b->len - b->used, "%s\n", line);
}

static void trace_line(const char *line, void *ctx)
{
    char buf[1100];

    snprintf(buf, sizeof buf, "  %s", line);
    append(ctx, buf);
}

static void collect_warning(const char *msg)
{
    ch4coll_log(CH4COLL_LOG_WARN, "%s", msg);
}

/* The key=value spec of --explain into a call shape, communicator and
 * placement (*ppn ranks per node, 0: one node; *map block or cyclic;
 * *dist the block distribution of allgatherv and reduce_scatter,
 * topo/distrib.h, with bytes its base size). */
static int explain_spec(const char *spec, ch4coll_args_t *a,
                        ch4coll_selin_t *comm, int64_t *bytes, int *ppn,
                        int *map, int *dist, char *file, size_t flen, char *err,
                        size_t len)
{
    char buf[512], *kv, *eq, *cur;
    int more;
    int64_t v, max, nodes = 0;

    memset(a, 0, sizeof *a);
    memset(comm, 0, sizeof *comm);
    a->coll = -1;
    a->commutative = a->op_builtin = 1;
    *bytes = 0;
    *ppn = 0;
    *map = CH4COLL_MAP_BLOCK;
    *dist = CH4COLL_D_REGULAR;
    file[0] = '\0';
    if (ch4coll_spec_copy(buf, sizeof buf, spec, err, len) != 0)
        return -1;
    cur = buf;
    while ((more = ch4coll_spec_next(&cur, &kv, &eq, err, len)) > 0) {
        if (strcmp(kv, "coll") == 0) {
            /* coll=iallreduce: the nonblocking (and persistent) form */
            a->coll = ch4coll_coll_from_name(eq);
            a->nonblocking = a->coll < 0 && eq[0] == 'i' &&
                             ch4coll_coll_from_name(eq + 1) >= 0;
            if (a->nonblocking)
                a->coll = ch4coll_coll_from_name(eq + 1);
            if (a->coll < 0) {
                snprintf(err, len, "unknown collective '%s'", eq);
                return -1;
            }
            continue;
        }
        if (strcmp(kv, "op") == 0) {
            if (strcmp(eq, "noncommutative") && strcmp(eq, "commutative") &&
                strcmp(eq, "user")) {
                snprintf(err, len, "op: commutative, noncommutative or user");
                return -1;
            }
            a->commutative = strcmp(eq, "noncommutative") != 0;
            a->op_builtin = strcmp(eq, "commutative") == 0;
            continue;
        }
        if (strcmp(kv, "file") == 0) {
            snprintf(file, flen, "%s", eq);
            continue;
        }
        if (strcmp(kv, "dist") == 0) {
            *dist = ch4coll_distrib_from_name(eq);
            if (*dist == 0) {
                snprintf(err, len,
                         "dist: regular, broadcast, spike, half_full, linear "
                         "or geometric");
                return -1;
            }
            continue;
        }
        if (strcmp(kv, "map") == 0) {
            if (strcmp(eq, "block") && strcmp(eq, "cyclic")) {
                snprintf(err, len, "map: block or cyclic");
                return -1;
            }
            *map = strcmp(eq, "cyclic") == 0 ? CH4COLL_MAP_CYCLIC
                                             : CH4COLL_MAP_BLOCK;
            continue;
        }
        max = strcmp(kv, "bytes") == 0 ? INT64_C(1) << 50 : INT_MAX;
        if (ch4coll_parse_int64(eq, 0, max, &v) != CH4COLL_OK) {
            snprintf(err, len, "%s: '%s' is not an integer in [0, %lld]", kv,
                     eq, (long long) max);
            return -1;
        }
        if (strcmp(kv, "comm_size") == 0 || strcmp(kv, "p") == 0)
            a->size = (int) v;
        else if (strcmp(kv, "bytes") == 0)
            *bytes = v;
        else if (strcmp(kv, "ppn") == 0)
            *ppn = (int) (v < INT_MAX ? v : INT_MAX);
        else if (strcmp(kv, "nodes") == 0)
            nodes = v;
        else if (strcmp(kv, "inplace") == 0)
            a->inplace = v != 0;
        else if (strcmp(kv, "root") == 0)
            a->root = (int) v;
        else if (strcmp(kv, "threaded") == 0)
            comm->multi_threaded = v != 0;
        else {
            snprintf(err, len,
                     "unknown key '%s' (coll, comm_size, bytes, ppn, "
                     "nodes, map, dist, op, inplace, root, threaded, file)",
                     kv);
            return -1;
        }
    }
    if (more < 0)
        return -1;
    if (a->coll < 0 || a->size < 1 || a->root >= a->size) {
        snprintf(err, len, "coll= and comm_size= (>= 1, > root) are required");
        return -1;
    }
    /* nodes=N: as many ranks per node as that takes */
    if (nodes > 0 && *ppn == 0)
        *ppn = (int) ((a->size + nodes - 1) / nodes);
    if (*ppn > a->size) /* one node (ch4coll_virtual_node adds p + ppn) */
        *ppn = a->size;
    comm->comm_size = a->size;
    return 0;
}

/* The virtual placement of the spec as args.loc and selection summary
 * (node_of: a->size ints). */
static void explain_place(ch4coll_args_t *a, ch4coll_selin_t *comm, int ppn,
                          int map, int *node_of, ch4coll_locality_t *loc)
{
    int i, *tmp = node_of + a->size;

    for (i = 0; i < a->size; i++)
        node_of[i] = ppn > 0 ? ch4coll_virtual_node(i, a->size, ppn, map) : 0;
    loc->nodes = ch4coll_nodes_normalise(a->size, node_of, tmp);
    loc->consecutive = ch4coll_nodes_consecutive(a->size, node_of);
    loc->node_of = node_of;
    a->loc = loc;
    a->subselect = ch4coll_select_sub;
    comm->nodes = loc->nodes;
    ch4coll_nodes_ppn(a->size, node_of, loc->nodes, tmp, &comm->ppn_min,
                      &comm->ppn_max);
    comm->node_consecutive = loc->consecutive;
    comm->hierarchy = ch4coll_hierarchy(comm->nodes, a->size);
}

/* A spec's call as --explain and --fingerprint see it: the shape (the
 * v-collectives' blocks in vec, 2 p entries), the virtual placement
 * (node_of, 2 p ints) and the tree pruned for that communicator. */
typedef struct {
    ch4coll_args_t a;
    ch4coll_selin_t comm;
    ch4coll_tree_t own, pruned;
    const ch4coll_tree_t *tree;
    ch4coll_locality_t loc;
    int64_t bytes;
    int ppn, map, dist;
    int have_own, have_pruned; /* own (file=) and pruned need freeing */
    size_t *vec;
    int *node_of;
    char file[512];
} spec_call_t;

static void call_close(spec_call_t *c)
{
    if (c->have_pruned)
        ch4coll_tree_free(&c->pruned);
    if (c->have_own)
        ch4coll_tree_free(&c->own);
    free(c->vec);
    free(c->node_of);
    memset(c, 0, sizeof *c);
}

/* Parse spec into c (0), or -1 with the reason in err. */
static int call_open(spec_call_t *c, const char *spec, char *err, size_t len)
{
    static const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};
    static const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};
    ch4coll_args_t *a = &c->a;
    char why[1024];
    size_t at = 0;
    int i;

    memset(c, 0, sizeof *c);
    if (explain_spec(spec, a, &c->comm, &c->bytes, &c->ppn, &c->map, &c->dist,
                     c->file, sizeof c->file, err, len) != 0)
        return -1;
    ch4coll_config_load();
    if (c->file[0]) {
        if (ch4coll_tree_load_file(&c->own, c->file, collect_warning, why,
                                   sizeof why) != CH4COLL_OK) {
            snprintf(err, len, "%s", why);
            return -1;
        }
        c->have_own = 1;
    } else {
        ch4coll_select_init();
    }
    a->elem = ch4coll_coll_is_reduction(a->coll) ? int_elem : byte_elem;
    a->op = MPI_SUM;
    a->count = (size_t) c->bytes / a->elem.size;
    a->model = &ch4coll_config.model; /* as a call's (core/run.c) */
    c->vec = malloc(2 * (size_t) a->size * sizeof *c->vec);
    c->node_of = malloc(2 * (size_t) a->size * sizeof *c->node_of);
    if (c->vec && c->node_of)
        explain_place(a, &c->comm, c->ppn, c->map, c->node_of, &c->loc);
    c->tree = c->have_own ? &c->own : ch4coll_select_tree();
    if (!c->vec || !c->node_of ||
        ch4coll_tree_prune(c->tree, &c->comm, &c->pruned) != CH4COLL_OK) {
        snprintf(err, len, "out of memory");
        call_close(c);
        return -1;
    }
    c->have_pruned = 1;
    /* v-collectives' blocks: the distribution's, in elements */
    ch4coll_distrib_counts(c->dist, a->size, (size_t) c->bytes, c->vec);
    for (i = 0; i < a->size; i++) {
        c->vec[i] /= a->elem.size;
        c->vec[a->size + i] = at;
        at += c->vec[i];
    }
    a->counts = a->scounts = c->vec;
    a->displs = a->sdispls = c->vec + a->size;
    return 0;
}

int ch4coll_explain(const char *spec, char *out, size_t outlen)
{
    spec_call_t c;
    const ch4coll_args_t *a = &c.a;
    ch4coll_choice_t ch;
    textbuf_t tb = {out, outlen, 0};
    char line[1200];
    int i, rc;

    if (call_open(&c, spec, out, outlen) != 0)
        return -1;
    snprintf(line, sizeof line,
             "%s%s comm_size=%d bytes=%lld%s%s nodes=%d ppn=%d..%d%s%s%s "
             "(tree: %s)",
             a->nonblocking ? "i" : "", ch4coll_coll_name(a->coll), a->size,
             (long long) c.bytes, c.dist != CH4COLL_D_REGULAR ? " dist=" : "",
             c.dist != CH4COLL_D_REGULAR ? ch4coll_distrib_name(c.dist) : "",
             c.comm.nodes, c.comm.ppn_min, c.comm.ppn_max,
             c.comm.nodes > 1 && c.comm.nodes < a->size
                 ? (c.map == CH4COLL_MAP_CYCLIC ? " cyclic" : " block")
                 : "",
             a->commutative ? "" : " noncommutative",
             a->inplace ? " in_place" : "", c.tree ? c.tree->name : "none");
    append(&tb, line);
    rc = ch4coll_select(a, &c.pruned, &c.comm, &ch, trace_line, &tb);
    if (rc != CH4COLL_OK) {
        snprintf(line, sizeof line, "-> error: %s", ch4coll_strerror(rc));
    } else {
        size_t n = (size_t) snprintf(line, sizeof line, "-> %s", ch.algo->name);
        for (i = 0; i < ch4coll_algo_nparams(ch.algo) && n < sizeof line; i++)
            n += (size_t) snprintf(line + n, sizeof line - n, "%s%s=%lld",
                                   i ? "," : ":", ch.algo->params[i].name,
                                   (long long) ch.params[i]);
        snprintf(line + n, sizeof line - n, " (%s)", ch.why);
    }
    append(&tb, line);
    call_close(&c);
    return rc == CH4COLL_OK ? 0 : -1;
}

/* ----------------------------------------------------- --fingerprint */

/* FNV-1a over one integer's 8 bytes, little end first (no padding, the
 * same on every host). */
static uint64_t mix(uint64_t h, int64_t v)
{
    int i;

    for (i = 0; i < 8; i++) {
        h ^= (uint64_t) v >> (8 * i) & 0xff;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t mix_text(uint64_t h, const char *t)
{
    for (; *t; t++)
        h = mix(h, (unsigned char) *t);
    return mix(h, 0);
}

/* Everything of a committed schedule the executor acts on: its tags, its
 * buffers' sizes, and every vertex with its edges (its in-edges and start
 * order follow from those).  Where scratch buffers sit (their ring slots
 * and offsets) is left out: it changes the memory a call holds, not the
 * messages it sends. */
static uint64_t mix_sched(uint64_t h, const ch4coll_sched_t *s)
{
    int i, j;

    h = mix(mix(mix(h, s->nv), s->ntags), s->nbufs);
    for (i = 0; i < s->nbufs; i++)
        h = mix(h, (int64_t) (s->scratch_of ? s->scratch_of[i].bytes : 0));
    for (i = 0; i < s->nv; i++) {
        const ch4coll_vtx_t *v = &s->vtx[i];

        h = mix(mix(mix(h, v->kind), v->peer), v->tag);
        h = mix(mix(mix(h, v->a.buf), (int64_t) v->a.off), v->b.buf);
        h = mix(mix(mix(h, (int64_t) v->b.off), (int64_t) v->count), v->n_out);
        for (j = 0; j < v->n_out; j++)
            h = mix(h, s->succ[v->out_first + j]);
    }
    return h;
}

int ch4coll_fingerprint(const char *spec, uint64_t *out, char *err,
                        size_t errlen)
{
    spec_call_t c;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    int r, i, built, rc = 0;

    if (call_open(&c, spec, err, errlen) != 0)
        return -1;
    for (r = 0; r < c.a.size && rc == 0; r++) {
        ch4coll_args_t a = c.a;
        ch4coll_choice_t ch;
        ch4coll_sched_t s;

        a.rank = r;
        if (a.coll == CH4COLL_ALLGATHERV || a.coll == CH4COLL_REDUCE_SCATTER)
            a.count = c.vec[r]; /* this rank's own block, as MPI gives it */
        if (ch4coll_select(&a, &c.pruned, &c.comm, &ch, NULL, NULL) !=
            CH4COLL_OK) {
            h = mix_text(h, "refused");
            continue;
        }
        h = mix_text(h, ch.algo->name);
        for (i = 0; i < ch4coll_algo_nparams(ch.algo); i++)
            h = mix(h, ch.params[i]);
        if (!ch.algo->build) /* native: the host's own collective */
            continue;
        built = ch4coll_sched_init(&s, &a.elem, a.op, r, a.size);
        if (built == CH4COLL_OK)
            built = ch.algo->build(&s, &a, ch.params);
        if (built == CH4COLL_OK)
            built = ch4coll_sched_commit(&s);
        if (built != CH4COLL_OK) {
            snprintf(err, errlen, "%s: building rank %d failed: %s",
                     ch.algo->name, r, ch4coll_strerror(built));
            rc = -1;
        } else {
            h = mix_sched(h, &s);
        }
        ch4coll_sched_destroy(&s);
    }
    call_close(&c);
    *out = h;
    return rc;
}

/* -------------------------------------------------------- --validate */

static textbuf_t *validate_out;

static void validate_warning(const char *msg)
{
    append(validate_out, msg);
}

int ch4coll_validate(const char *path, char *out, size_t outlen)
{
    textbuf_t tb = {out, outlen, 0};
    ch4coll_tree_t t;
    char err[1024], line[1200];
    int rc;

    out[0] = '\0';
    validate_out = &tb;
    rc = ch4coll_tree_load_file(&t, path, validate_warning, err, sizeof err);
    validate_out = NULL;
    if (rc != CH4COLL_OK) {
        snprintf(line, sizeof line, "error: %s", err);
        append(&tb, line);
        return -1;
    }
    snprintf(line, sizeof line, "%s: valid (%d nodes)", path, t.nn);
    append(&tb, line);
    ch4coll_tree_free(&t);
    return 0;
}
