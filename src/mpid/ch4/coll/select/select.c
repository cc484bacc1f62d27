/*
 * select.c - forced algorithm, fallback policy, the tuning tree, native.
 */
#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "config.h"

static ch4coll_tree_t process_tree;
static int have_tree;

static void log_warning(const char *msg)
{
    ch4coll_log(CH4COLL_LOG_WARN, "%s", msg);
}

static int load_default(void)
{
    char err[1024];
    int rc = ch4coll_tree_load(&process_tree, ch4coll_default_json,
                               "embedded default.json", log_warning, err,
                               sizeof err);

    if (rc != CH4COLL_OK) /* a build defect: CI validates the file */
        ch4coll_log(CH4COLL_LOG_WARN, "error: %s", err);
    have_tree = rc == CH4COLL_OK;
    return rc;
}

int ch4coll_select_init(void)
{
    const char *file =
        ch4coll_getenv("MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE");
    char err[1024];

    ch4coll_select_finalize();
    if (!file || !*file)
        return load_default();
    if (ch4coll_tree_load_file(&process_tree, file, log_warning, err,
                               sizeof err) == CH4COLL_OK) {
        have_tree = 1;
        ch4coll_log(CH4COLL_LOG_INFO, "selection: tuning file %s (%d nodes)",
                    file, process_tree.nn);
        return CH4COLL_OK;
    }
    ch4coll_log(CH4COLL_LOG_WARN,
                "error: MPIR_CVAR_CH4COLL_SELECTION_TUNING"
                "_JSON_FILE: %s; using the embedded default",
                err);
    load_default();
    return CH4COLL_ERR_ARG;
}

void ch4coll_select_use_default(void)
{
    ch4coll_select_finalize();
    load_default();
}

const ch4coll_tree_t *ch4coll_select_tree(void)
{
    if (!have_tree)
        load_default();
    return have_tree ? &process_tree : NULL;
}

void ch4coll_select_finalize(void)
{
    if (have_tree)
        ch4coll_tree_free(&process_tree);
    have_tree = 0;
}

/* --------------------------------------------------------- call inputs */

static int64_t sum(const size_t *v, int p)
{
    int64_t s = 0;
    int i;

    for (i = 0; i < p; i++)
        s += (int64_t) v[i];
    return s;
}

static int nonempty(const size_t *v, int p)
{
    int i, n = 0;

    for (i = 0; i < p; i++)
        n += v[i] != 0;
    return n;
}

static int regular(const size_t *v, int p)
{
    int i;

    for (i = 1; i < p; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
}

void ch4coll_selin_from_args(const ch4coll_args_t *a, ch4coll_selin_t *in)
{
    int p = a->size;
    int64_t esize = (int64_t) a->elem.size, block = (int64_t) a->count;

    in->have_call = 1;
    in->coll = a->coll;
    in->nonblocking = a->nonblocking;
    in->commutative = a->commutative;
    in->op_builtin = a->op_builtin;
    in->block_regular = 1;
    in->inplace = 0;
    in->count = block;
    switch (a->coll) {
    case CH4COLL_GATHERV:
    case CH4COLL_SCATTERV:
    case CH4COLL_ALLTOALLV:
        /* no rank knows every count: nothing size-based can be agreed */
        in->count = in->avg_msg_size = in->total_msg_size = 0;
        in->nonempty_blocks = 0;
        in->block_regular = 0;
        break;
    case CH4COLL_ALLGATHERV:
    case CH4COLL_REDUCE_SCATTER:
        in->count = sum(a->counts, p);
        in->total_msg_size = in->count * esize;
        in->avg_msg_size = in->total_msg_size / p;
        in->block_regular = regular(a->counts, p);
        in->nonempty_blocks = esize ? nonempty(a->counts, p) : 0;
        break;
    case CH4COLL_BARRIER:
        in->count = in->avg_msg_size = in->total_msg_size = 0;
        in->nonempty_blocks = 0;
        break;
    default: /* one block per rank, the same everywhere */
        in->avg_msg_size = block * esize;
        in->total_msg_size = block * esize * p;
        in->nonempty_blocks = in->avg_msg_size ? p : 0;
        break;
    }
    /* MPI makes MPI_IN_PLACE collective only for these; elsewhere (rooted
     * collectives, scan, exscan) ranks may differ, so it is no input */
    if (a->coll == CH4COLL_ALLREDUCE || a->coll == CH4COLL_ALLGATHER ||
        a->coll == CH4COLL_ALLGATHERV || a->coll == CH4COLL_ALLTOALL ||
        a->coll == CH4COLL_ALLTOALLV || a->coll == CH4COLL_REDUCE_SCATTER ||
        a->coll == CH4COLL_REDUCE_SCATTER_BLOCK)
        in->inplace = a->inplace;
}

/* ---------------------------------------------------------- deciding */

typedef struct {
    const ch4coll_args_t *a;
    void (*trace)(const char *, void *);
    void *ctx;
} accept_ctx_t;

static int accept_leaf(const ch4coll_tnode_t *leaf, void *ctx)
{
    accept_ctx_t *ac = ctx;
    const char *why;
    char line[512];

    if (ch4coll_algo_applicable(leaf->algo, ac->a, &why))
        return 1;
    ch4coll_log(CH4COLL_LOG_DEBUG,
                "selection: %s does not apply (%s); "
                "trying the next match",
                leaf->algo->name, why);
    if (ac->trace) {
        snprintf(line, sizeof line, "%-9s %s does not apply: %s", "",
                 leaf->algo->name, why);
        ac->trace(line, ac->ctx);
    }
    return 0;
}

static void tree_trace(const char *line, void *ctx)
{
    accept_ctx_t *ac = ctx;

    if (ac->trace)
        ac->trace(line, ac->ctx);
}

static void from_tree(const ch4coll_args_t *a, const ch4coll_tree_t *tree,
                      const ch4coll_selin_t *comm, ch4coll_choice_t *out,
                      void (*trace)(const char *, void *), void *ctx)
{
    ch4coll_selin_t in = *comm;
    accept_ctx_t ac = {a, trace, ctx};
    const ch4coll_tnode_t *leaf;

    if (!tree)
        tree = ch4coll_select_tree();
    ch4coll_selin_from_args(a, &in);
    leaf = ch4coll_tree_search(tree, &in, accept_leaf, &ac,
                               trace ? tree_trace : NULL);
    if (!leaf && in.nonblocking) { /* no collective=i<coll> branch */
        in.nonblocking = 0;
        if (trace)
            trace("no collective=i... branch matched: blocking branches", ctx);
        leaf = ch4coll_tree_search(tree, &in, accept_leaf, &ac,
                                   trace ? tree_trace : NULL);
    }
    if (leaf) {
        out->algo = leaf->algo;
        memcpy(out->params, leaf->params, sizeof out->params);
        out->why =
            in.nonblocking ? "tuning tree, nonblocking branch" : "tuning tree";
        out->path = ch4coll_tree_path(tree, leaf);
        return;
    }
    out->algo = ch4coll_algo_find(a->coll, "native");
    out->why = "no matching leaf";
    out->path = NULL;
}

int ch4coll_select(const ch4coll_args_t *a, const ch4coll_tree_t *tree,
                   const ch4coll_selin_t *comm, ch4coll_choice_t *out,
                   void (*trace)(const char *line, void *ctx), void *ctx)
{
    const ch4coll_forced_t *f = &ch4coll_config.forced[a->coll];
    const char *reason;

    /* MPIR_CVAR_CH4COLL_I<COLL>_ALGORITHM, else the blocking one */
    if (a->nonblocking && ch4coll_config.forced_nb[a->coll].algo)
        f = &ch4coll_config.forced_nb[a->coll];

    memset(out, 0, sizeof *out);
    if (!ch4coll_config.enable) {
        out->algo = ch4coll_algo_find(a->coll, "native");
        out->why = "disabled (MPIR_CVAR_CH4COLL_ENABLE=0)";
        return CH4COLL_OK;
    }
    if (f->algo && ch4coll_algo_applicable(f->algo, a, &reason)) {
        out->algo = f->algo;
        memcpy(out->params, f->params, sizeof f->params);
        out->why = "forced by CVAR";
        return CH4COLL_OK;
    }
    if (f->algo && ch4coll_config.fallback == CH4COLL_FALLBACK_ERROR) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: forced %s algorithm %s does "
                    "not apply (%s) and MPIR_CVAR_CH4COLL_FALLBACK=error",
                    ch4coll_coll_name(a->coll), f->algo->name, reason);
        return CH4COLL_ERR_INAPPLICABLE;
    }
    if (f->algo && ch4coll_config.fallback == CH4COLL_FALLBACK_WARN &&
        ch4coll_log_rank <= 0) /* every rank decides alike: say it once */
        ch4coll_log(CH4COLL_LOG_WARN,
                    "warning: forced %s algorithm %s does "
                    "not apply (%s); using the tuning tree",
                    ch4coll_coll_name(a->coll), f->algo->name, reason);
    from_tree(a, tree, comm, out, trace, ctx);
    if (f->algo)
        out->why = "forced algorithm inapplicable; tuning tree";
    return CH4COLL_OK;
}

int ch4coll_select_sub(const ch4coll_args_t *inner, const ch4coll_algo_t **al,
                       int64_t *params)
{
    ch4coll_selin_t flat;
    ch4coll_choice_t ch;

    memset(&flat, 0, sizeof flat);
    flat.comm_size = inner->size;
    flat.nodes = inner->size;
    flat.node_consecutive = 1;
    flat.hierarchy = CH4COLL_HIER_FLAT;
    memset(&ch, 0, sizeof ch);
    from_tree(inner, NULL, &flat, &ch, NULL, NULL);
    if (!ch.algo || ch4coll_algo_is_native(ch.algo))
        return -1;
    *al = ch.algo;
    memcpy(params, ch.params, sizeof ch.params);
    return 0;
}
