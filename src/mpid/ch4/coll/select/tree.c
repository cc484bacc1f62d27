/*
 * tree.c - load, validate, prune and search the selection tree (tree.h).
 *
 * Loading walks the json-c object in document order (json-c keeps the
 * insertion order of keys) and lays the tree out in one node array, the
 * children of a node contiguous, so that pruning and searching are plain
 * loops over index ranges.  Every node records its JSON path ("a > b > c")
 * in a string pool: errors name it, and the verbose log and ch4coll-info
 * --explain show the path of the leaf that decided.
 *
 * Leaves: "algorithm=<name>" names a registry algorithm of the collective
 * the leaf sits under (its parameters are checked against the registry and
 * completed with the defaults), or "native", or an MPICH algorithm
 * ("MPIR_Allreduce_intra_recursive_doubling"), which maps to the
 * equivalent ch4coll algorithm when there is one and to native otherwise;
 * "composition=..." (MPICH's ch4 compositions) maps to native.
 */
#include "tree.h"

#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/util.h"
#include "config.h"

/* MPICH 4.0.2 algorithm -> ch4coll algorithm of the same collective.  A
 * target not (yet) in the registry, and any MPICH name not listed, runs
 * native. */
static const struct {
    int coll;
    const char *mpich, *ours;
} mpich_map[] = {
    {CH4COLL_BCAST, "MPIR_Bcast_intra_binomial", "binomial"},
    {CH4COLL_BCAST, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
     "scatter_rd_allgather"},
    {CH4COLL_BCAST, "MPIR_Bcast_intra_scatter_ring_allgather",
     "scatter_ring_allgather"},
    {CH4COLL_BCAST, "MPIR_Bcast_intra_smp", "smp"},
    {CH4COLL_REDUCE, "MPIR_Reduce_intra_binomial", "binomial"},
    {CH4COLL_REDUCE, "MPIR_Reduce_intra_reduce_scatter_gather", "butterfly"},
    {CH4COLL_REDUCE, "MPIR_Reduce_intra_smp", "smp"},
    {CH4COLL_ALLREDUCE, "MPIR_Allreduce_intra_recursive_doubling",
     "recursive_doubling"},
    {CH4COLL_ALLREDUCE, "MPIR_Allreduce_intra_reduce_scatter_allgather",
     "butterfly"},
    {CH4COLL_ALLREDUCE, "MPIR_Allreduce_intra_smp", "smp"},
    {CH4COLL_ALLREDUCE, "MPIR_Allreduce_intra_ring", "ring"},
    {CH4COLL_ALLGATHER, "MPIR_Allgather_intra_ring", "ring"},
    {CH4COLL_ALLGATHER, "MPIR_Allgather_intra_recursive_doubling",
     "recursive_doubling"},
    {CH4COLL_ALLGATHER, "MPIR_Allgather_intra_brucks", "bruck"},
    {CH4COLL_ALLGATHERV, "MPIR_Allgatherv_intra_ring", "ring"},
    {CH4COLL_ALLGATHERV, "MPIR_Allgatherv_intra_recursive_doubling",
     "recursive_doubling"},
    {CH4COLL_ALLTOALL, "MPIR_Alltoall_intra_pairwise", "pairwise"},
    {CH4COLL_ALLTOALL, "MPIR_Alltoall_intra_pairwise_sendrecv_replace",
     "pairwise"},
    {CH4COLL_ALLTOALL, "MPIR_Alltoall_intra_brucks", "bruck"},
    {CH4COLL_ALLTOALL, "MPIR_Alltoall_intra_scattered", "scattered"},
    {CH4COLL_ALLTOALLV, "MPIR_Alltoallv_intra_pairwise_sendrecv_replace",
     "pairwise"},
    {CH4COLL_ALLTOALLV, "MPIR_Alltoallv_intra_scattered", "scattered"},
    {CH4COLL_GATHER, "MPIR_Gather_intra_binomial", "binomial"},
    {CH4COLL_GATHERV, "MPIR_Gatherv_allcomm_linear", "linear"},
    {CH4COLL_SCATTER, "MPIR_Scatter_intra_binomial", "binomial"},
    {CH4COLL_SCATTERV, "MPIR_Scatterv_allcomm_linear", "linear"},
    {CH4COLL_REDUCE_SCATTER, "MPIR_Reduce_scatter_intra_recursive_halving",
     "recursive_halving"},
    {CH4COLL_REDUCE_SCATTER, "MPIR_Reduce_scatter_intra_pairwise", "pairwise"},
    {CH4COLL_REDUCE_SCATTER, "MPIR_Reduce_scatter_intra_noncommutative",
     "noncommutative"},
    {CH4COLL_REDUCE_SCATTER_BLOCK,
     "MPIR_Reduce_scatter_block_intra_recursive_halving", "recursive_halving"},
    {CH4COLL_REDUCE_SCATTER_BLOCK, "MPIR_Reduce_scatter_block_intra_pairwise",
     "pairwise"},
    {CH4COLL_REDUCE_SCATTER_BLOCK,
     "MPIR_Reduce_scatter_block_intra_noncommutative", "noncommutative"},
    {CH4COLL_BARRIER, "MPIR_Barrier_intra_dissemination", "dissemination"},
    {CH4COLL_BARRIER, "MPIR_Barrier_intra_smp", "smp"},
    {CH4COLL_SCAN, "MPIR_Scan_intra_recursive_doubling", "recursive_doubling"},
    {CH4COLL_EXSCAN, "MPIR_Exscan_intra_recursive_doubling",
     "recursive_doubling"},
};

static int is_mpich_name(const char *name)
{
    return strncmp(name, "MPIR_", 5) == 0 || strncmp(name, "MPIDI_", 6) == 0;
}

static const ch4coll_algo_t *map_mpich(int coll, const char *name)
{
    const ch4coll_algo_t *al = NULL;
    size_t i;

    /* an MPICH algorithm of another collective is not equivalent */
    for (i = 0; i < sizeof mpich_map / sizeof mpich_map[0] && !al; i++)
        if (mpich_map[i].coll == coll && strcmp(mpich_map[i].mpich, name) == 0)
            al = ch4coll_algo_find(coll, mpich_map[i].ours);
    return al ? al : ch4coll_algo_find(coll, "native");
}

/* The collective a collective= value names: "iallreduce" (nonblocking
 * and persistent allreduce) has allreduce's algorithms. */
static int coll_of_key(const char *name)
{
    int c = ch4coll_coll_from_name(name);

    return c >= 0 || name[0] != 'i' ? c : ch4coll_coll_from_name(name + 1);
}

/* ----------------------------------------------------------- building */

typedef struct {
    ch4coll_tree_t *t;
    void (*warn)(const char *msg);
    char *err;
    size_t errlen;
    int failed;
} loader_t;

static int grow_nodes(ch4coll_tree_t *t, int extra)
{
    ch4coll_tnode_t *n;
    int cap = t->cap ? t->cap : 64;

    if (t->nn + extra <= t->cap)
        return 0;
    while (cap < t->nn + extra)
        cap *= 2;
    n = ch4coll_realloc(t->n, (size_t) cap * sizeof *n);
    if (!n)
        return -1;
    t->n = n;
    t->cap = cap;
    return 0;
}

/* Append "parent > key" to the path pool; returns its offset or -1. */
static int add_path(ch4coll_tree_t *t, int parent, const char *key)
{
    const char *pp = parent >= 0 ? t->paths + parent : "";
    size_t need = strlen(pp) + strlen(key) + 4, off = t->plen;

    if (t->plen + need > t->pcap) {
        size_t cap = t->pcap ? t->pcap : 1024;
        char *p;
        while (cap < t->plen + need)
            cap *= 2;
        p = ch4coll_realloc(t->paths, cap);
        if (!p)
            return -1;
        t->paths = p;
        t->pcap = cap;
        pp = parent >= 0 ? t->paths + parent : "";
    }
    t->plen +=
        (size_t) sprintf(t->paths + off, "%s%s%s", pp, *pp ? " > " : "", key) +
        1;
    return (int) off;
}

#define MAX_PATH_SHOWN 400 /* characters of a JSON path in an error */

static void fail_at(loader_t *L, const char *path, const char *fmt,
                    const char *a, const char *b)
{
    char msg[768];

    if (L->failed++)
        return;
    if (!path || !*path)
        path = "top level";
    snprintf(msg, sizeof msg, fmt, a, b);
    /* a path of absurd keys is cut, so that the reason still shows */
    snprintf(
        L->err, L->errlen, "%s: at %.*s%s: %s", L->t->name,
        (int) (strlen(path) > MAX_PATH_SHOWN ? MAX_PATH_SHOWN : strlen(path)),
        path, strlen(path) > MAX_PATH_SHOWN ? "..." : "", msg);
}

static void warn_at(loader_t *L, const char *path, const char *what)
{
    char msg[1024];

    snprintf(msg, sizeof msg, "%s: warning: at %s: %s", L->t->name, path, what);
    if (L->warn)
        L->warn(msg);
}

/* Parameters of a leaf: names and ranges from the registry. */
static void leaf_params(loader_t *L, ch4coll_tnode_t *n, json_object *obj,
                        const char *path)
{
    const ch4coll_algo_t *al = n->algo;
    char valid[256] = "";
    int i;

    ch4coll_config_default_params(al, n->params);
    for (i = 0; i < ch4coll_algo_nparams(al); i++)
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s",
                 i ? ", " : "", al->params[i].name);
    json_object_object_foreach(obj, key, val)
    {
        char num[64];
        int64_t v = 0;
        for (i = 0; i < ch4coll_algo_nparams(al); i++)
            if (strcmp(al->params[i].name, key) == 0)
                break;
        if (i == ch4coll_algo_nparams(al)) {
            fail_at(L, path, "unknown parameter '%s'; valid: %s", key,
                    ch4coll_algo_nparams(al) ? valid : "(none)");
            return;
        }
        snprintf(num, sizeof num, "%s",
                 json_object_is_type(val, json_type_int)
                     ? json_object_get_string(val)
                     : "?");
        if (ch4coll_parse_int64(num, al->params[i].min, al->params[i].max,
                                &v) != CH4COLL_OK) {
            char range[96];
            snprintf(range, sizeof range, "an integer in [%lld, %lld]",
                     (long long) al->params[i].min,
                     (long long) al->params[i].max);
            fail_at(L, path, "parameter '%s' must be %s", key, range);
            return;
        }
        n->params[i] = v;
    }
}

static void make_leaf(loader_t *L, ch4coll_tnode_t *n, const char *key,
                      json_object *val, int coll, int coll_known,
                      const char *path)
{
    const char *name = strchr(key, '=') + 1;
    int composition = strncmp(key, "composition=", 12) == 0;

    n->pred = CH4COLL_NODE_LEAF;
    n->coll = coll;
    if (!coll_known) {
        fail_at(L, path, "leaf '%s' is not under a collective= key%s", key, "");
        return;
    }
    if (coll < 0) { /* a collective ch4coll does not run */
        if (!composition && !is_mpich_name(name) && strcmp(name, "native"))
            fail_at(L, path,
                    "ch4coll has no algorithm '%s' for this "
                    "collective; valid: native or MPICH names%s",
                    name, "");
        return;
    }
    if (composition || is_mpich_name(name)) {
        n->algo = composition ? ch4coll_algo_find(coll, "native")
                              : map_mpich(coll, name);
        return; /* MPICH's own parameters do not apply */
    }
    n->algo = ch4coll_algo_find(coll, name);
    if (!n->algo) {
        char valid[512] = "";
        int i;
        for (i = 0; i < ch4coll_nalgos; i++)
            if (ch4coll_algos[i].coll == coll)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid),
                         "%s%s", *valid ? ", " : "", ch4coll_algos[i].name);
        fail_at(L, path, "unknown algorithm '%s'; valid: %s", name, valid);
        return;
    }
    if (!json_object_is_type(val, json_type_object)) {
        fail_at(L, path,
                "the value of '%s' must be an object of "
                "parameters%s",
                key, "");
        return;
    }
    leaf_params(L, n, val, path);
}

/* A top-level "comment": "text" (how the file was made): not a node. */
static int is_comment(int at, const char *key, json_object *val)
{
    return at == 0 && strcmp(key, "comment") == 0 &&
           json_object_is_type(val, json_type_string);
}

/* Build the children of node `at` from obj; coll is the collective of the
 * enclosing collective= key (-1 for one ch4coll does not run). */
static void build(loader_t *L, int at, json_object *obj, int coll,
                  int coll_known)
{
    ch4coll_tree_t *t = L->t;
    int first, k = 0, seen_any = 0, nkids = 0;
    char perr[768];

    if (!json_object_is_type(obj, json_type_object)) {
        fail_at(L, t->paths + t->n[at].path, "expected an object%s%s", "", "");
        return;
    }
    {
        json_object_object_foreach(obj, key, val)
        {
            nkids += !is_comment(at, key, val);
        }
    }
    if (grow_nodes(t, nkids) != 0) {
        fail_at(L, NULL, "out of memory%s%s", "", "");
        return;
    }
    first = t->nn;
    t->n[at].first = first;
    t->n[at].nchild = nkids;
    t->nn += t->n[at].nchild;
    json_object_object_foreach(obj, key, val)
    {
        ch4coll_tnode_t *n;
        int path, ccoll = coll;
        if (is_comment(at, key, val))
            continue;
        n = &t->n[first + k];
        path = add_path(t, t->n[at].path, key);
        memset(n, 0, sizeof *n);
        n->path = path;
        k++;
        if (path < 0) {
            fail_at(L, NULL, "out of memory%s%s", "", "");
            return;
        }
        if (seen_any)
            warn_at(L, t->paths + path,
                    "reached only when the earlier "
                    "=any sibling yields no applicable algorithm");
        if (strncmp(key, "algorithm=", 10) == 0 ||
            strncmp(key, "composition=", 12) == 0) {
            make_leaf(L, n, key, val, coll, coll_known, t->paths + path);
            continue;
        }
        n->pred = ch4coll_pred_parse(key, &n->arg, perr, sizeof perr);
        if (n->pred < 0) {
            fail_at(L, t->paths + path, "%s%s", perr, "");
            return;
        }
        seen_any |= n->pred == ch4coll_npreds;
        if (strcmp(ch4coll_pred_row(n->pred)->name, "collective") == 0) {
            ccoll = coll_of_key(strchr(key, '=') + 1);
            if (coll_known && ccoll != coll)
                warn_at(L, t->paths + path,
                        "never matches: nested in a "
                        "different collective= key");
        }
        if (json_object_is_type(val, json_type_object) &&
            json_object_object_length(val) == 0)
            warn_at(L, t->paths + path, "empty: yields no algorithm");
        build(L, first + k - 1, val, ccoll,
              coll_known ||
                  strcmp(ch4coll_pred_row(t->n[first + k - 1].pred)->name,
                         "collective") == 0);
        if (L->failed)
            return;
    }
}

static void line_col(const char *text, size_t off, int *line, int *col)
{
    size_t i;

    *line = 1;
    *col = 1;
    for (i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static uint64_t checksum(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char) *s) * 1099511628211ULL;
    return h;
}

static json_object *parse_json(const char *text, const char *name, char *err,
                               size_t len)
{
    json_tokener *tok = json_tokener_new();
    json_object *obj;
    size_t n = strlen(text), end;
    int line, col;

    if (!tok) {
        snprintf(err, len, "%s: out of memory", name);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    /* the terminating NUL ends a bare number or literal */
    obj = json_tokener_parse_ex(tok, text, (int) n + 1);
    end = json_tokener_get_parse_end(tok);
    if (!obj && json_tokener_get_error(tok) == json_tokener_success) {
        snprintf(err, len, "%s:1:1: the top level must be an object", name);
    } else if (!obj) {
        enum json_tokener_error e = json_tokener_get_error(tok);
        line_col(text, end, &line, &col);
        snprintf(err, len, "%s:%d:%d: %s", name, line, col,
                 e == json_tokener_continue || e == json_tokener_error_parse_eof
                     ? "unexpected end of file"
                     : json_tokener_error_desc(e));
    } else {
        while (end < n && text[end] && strchr(" \t\r\n", text[end]))
            end++;
        if (end < n) {
            line_col(text, end, &line, &col);
            snprintf(err, len,
                     "%s:%d:%d: unexpected text after the top-level "
                     "object",
                     name, line, col);
            json_object_put(obj);
            obj = NULL;
        } else if (!json_object_is_type(obj, json_type_object)) {
            snprintf(err, len, "%s:1:1: the top level must be an object", name);
            json_object_put(obj);
            obj = NULL;
        }
    }
    json_tokener_free(tok);
    return obj;
}

int ch4coll_tree_load(ch4coll_tree_t *t, const char *text, const char *name,
                      void (*warn)(const char *msg), char *err, size_t len)
{
    loader_t L = {t, warn, err, len, 0};
    json_object *obj;

    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    err[0] = '\0';
    obj = parse_json(text, name, err, len);
    if (!obj)
        return CH4COLL_ERR_ARG;
    t->checksum = checksum(text);
    if (grow_nodes(t, 1) != 0 || (t->n[0].path = add_path(t, -1, "")) < 0) {
        json_object_put(obj);
        snprintf(err, len, "%s: out of memory", name);
        return CH4COLL_ERR_NOMEM;
    }
    t->nn = 1;
    t->n[0].pred = ch4coll_npreds; /* the root matches everything */
    build(&L, 0, obj, -1, 0);
    json_object_put(obj);
    if (L.failed) {
        ch4coll_tree_free(t);
        snprintf(t->name, sizeof t->name, "%s", name);
        return CH4COLL_ERR_ARG;
    }
    return CH4COLL_OK;
}

/* Opened without blocking: a FIFO (or a device) named as the tuning file
 * must be an error, not a wait in MPI_Init for a writer that never
 * comes. */
static FILE *open_regular(const char *path, char *err, size_t len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    struct stat st;
    FILE *f;

    if (fd < 0) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, len, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    f = fdopen(fd, "rb");
    if (!f) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int ch4coll_tree_load_file(ch4coll_tree_t *t, const char *path,
                           void (*warn)(const char *msg), char *err, size_t len)
{
    FILE *f = open_regular(path, err, len);
    char *text = NULL, *nul;
    long n;
    int rc, line, col;

    memset(t, 0, sizeof *t);
    if (!f)
        return CH4COLL_ERR_ARG;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || !(text = malloc((size_t) n + 1)) ||
        fread(text, 1, (size_t) n, f) != (size_t) n) {
        snprintf(err, len, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        free(text);
        return CH4COLL_ERR_ARG;
    }
    fclose(f);
    text[n] = '\0';
    if (n == 0) {
        snprintf(err, len, "%s:1:1: the file is empty", path);
        free(text);
        return CH4COLL_ERR_ARG;
    }
    /* the parser reads a C string: what follows a NUL would go unseen */
    nul = memchr(text, '\0', (size_t) n);
    if (nul) {
        line_col(text, (size_t) (nul - text), &line, &col);
        snprintf(err, len, "%s:%d:%d: a NUL byte (not a text file)", path, line,
                 col);
        free(text);
        return CH4COLL_ERR_ARG;
    }
    rc = ch4coll_tree_load(t, text, path, warn, err, len);
    free(text);
    return rc;
}

void ch4coll_tree_free(ch4coll_tree_t *t)
{
    ch4coll_free(t->n);
    ch4coll_free(t->paths);
    memset(t, 0, sizeof *t);
}

/* ----------------------------------------------------------- pruning */

/* Number of nodes the pruned copy of node i's children needs. */
static int pruned_kids(const ch4coll_tree_t *t, int i,
                       const ch4coll_selin_t *in, int *kids, int cap);

static int keep(const ch4coll_tnode_t *n, const ch4coll_selin_t *in)
{
    return n->pred == CH4COLL_NODE_LEAF ||
           ch4coll_pred_row(n->pred)->level == CH4COLL_LEVEL_CALL ||
           ch4coll_pred_eval(n->pred, n->arg, in);
}

/* A true communicator-level node is replaced by its (pruned) children, in
 * place: first-match order is unchanged. */
static int spliced(const ch4coll_tnode_t *n)
{
    return n->pred != CH4COLL_NODE_LEAF &&
           ch4coll_pred_row(n->pred)->level == CH4COLL_LEVEL_COMM;
}

static int pruned_kids(const ch4coll_tree_t *t, int i,
                       const ch4coll_selin_t *in, int *kids, int cap)
{
    const ch4coll_tnode_t *p = &t->n[i];
    int c, k = 0;

    for (c = p->first; c < p->first + p->nchild; c++) {
        if (!keep(&t->n[c], in))
            continue;
        if (spliced(&t->n[c])) {
            k += pruned_kids(t, c, in, kids ? kids + k : NULL, cap - k);
            continue;
        }
        if (kids && k < cap)
            kids[k] = c;
        k++;
    }
    return k;
}

static int copy_pruned(const ch4coll_tree_t *t, int src, int dst,
                       const ch4coll_selin_t *in, ch4coll_tree_t *out)
{
    int nk = pruned_kids(t, src, in, NULL, 0), *kids, j, first;

    if (nk == 0 || t->n[src].pred == CH4COLL_NODE_LEAF) {
        out->n[dst].nchild = 0;
        return CH4COLL_OK;
    }
    kids = ch4coll_malloc((size_t) nk * sizeof *kids);
    if (!kids || grow_nodes(out, nk) != 0) {
        ch4coll_free(kids);
        return CH4COLL_ERR_NOMEM;
    }
    pruned_kids(t, src, in, kids, nk);
    first = out->nn;
    out->nn += nk;
    out->n[dst].first = first;
    out->n[dst].nchild = nk;
    for (j = 0; j < nk; j++)
        out->n[first + j] = t->n[kids[j]];
    for (j = 0; j < nk; j++)
        if (copy_pruned(t, kids[j], first + j, in, out) != CH4COLL_OK) {
            ch4coll_free(kids);
            return CH4COLL_ERR_NOMEM;
        }
    ch4coll_free(kids);
    return CH4COLL_OK;
}

int ch4coll_tree_prune(const ch4coll_tree_t *t, const ch4coll_selin_t *in,
                       ch4coll_tree_t *out)
{
    int rc;

    memset(out, 0, sizeof *out);
    if (!t)
        return CH4COLL_OK; /* no tree: every search answers native */
    memcpy(out->name, t->name, sizeof out->name);
    out->checksum = t->checksum;
    out->paths = ch4coll_malloc(t->plen ? t->plen : 1);
    if (!out->paths || grow_nodes(out, 1) != 0) {
        ch4coll_tree_free(out);
        return CH4COLL_ERR_NOMEM;
    }
    memcpy(out->paths, t->paths, t->plen);
    out->plen = out->pcap = t->plen;
    out->n[0] = t->n[0];
    out->nn = 1;
    rc = copy_pruned(t, 0, 0, in, out);
    if (rc != CH4COLL_OK)
        ch4coll_tree_free(out);
    return rc;
}

/* --------------------------------------------------------- searching */

typedef struct {
    const ch4coll_tree_t *t;
    const ch4coll_selin_t *in;
    int (*accept)(const ch4coll_tnode_t *, void *);
    void *ctx;
    void (*trace)(const char *, void *);
} search_t;

static void trace(const search_t *S, const char *what, const ch4coll_tnode_t *n)
{
    char line[1024];

    if (!S->trace)
        return;
    snprintf(line, sizeof line, "%-9s %s", what, S->t->paths + n->path);
    S->trace(line, S->ctx);
}

static const ch4coll_tnode_t *search(const search_t *S, int i)
{
    const ch4coll_tnode_t *p = &S->t->n[i], *hit;
    int c;

    for (c = p->first; c < p->first + p->nchild; c++) {
        const ch4coll_tnode_t *n = &S->t->n[c];
        if (n->pred == CH4COLL_NODE_LEAF) {
            if (n->coll == S->in->coll && n->algo && S->accept(n, S->ctx)) {
                trace(S, "selected", n);
                return n;
            }
            if (n->coll == S->in->coll)
                trace(S, "skipped", n);
            continue;
        }
        if (!ch4coll_pred_eval(n->pred, n->arg, S->in))
            continue;
        trace(S, "matched", n);
        if ((hit = search(S, c)))
            return hit;
    }
    return NULL;
}

const ch4coll_tnode_t *
ch4coll_tree_search(const ch4coll_tree_t *t, const ch4coll_selin_t *in,
                    int (*accept)(const ch4coll_tnode_t *leaf, void *ctx),
                    void *ctx, void (*tr)(const char *line, void *ctx))
{
    search_t S = {t, in, accept, ctx, tr};

    if (!t || t->nn == 0)
        return NULL;
    return search(&S, 0);
}
