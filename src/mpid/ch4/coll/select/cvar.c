/*
 * cvar.c - MPIR_CVAR_CH4COLL_* from the environment (preload mode).
 *
 * The table below lists every variable with its parser; ch4coll-info
 * --cvars prints it, doc/cvars.md documents it.
 */
#include "config.h"

#include "ch4coll.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "machine_model.h"

/* Name, default, valid values, meaning: the table ch4coll-info --cvars
 * prints and doc/cvars.md mirrors. */
static const ch4coll_cvar_info_t cvar_table[] = {
    {"MPIR_CVAR_CH4COLL_ENABLE", "1", "0, 1",
     "0 sends every collective to the host MPI (native)"},
    {"MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM", "auto",
     "auto, native, or an algorithm of the collective with optional "
     "parameters name:k=v,...",
     "force the algorithm of one collective (COLL = BCAST, REDUCE, "
     "ALLREDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, GATHER, "
     "GATHERV, SCATTER, SCATTERV, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, "
     "BARRIER, SCAN, EXSCAN); also governs the nonblocking and persistent "
     "forms unless MPIR_CVAR_CH4COLL_I<COLL>_ALGORITHM is set"},
    {"MPIR_CVAR_CH4COLL_I<COLL>_ALGORITHM", "auto",
     "as MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM",
     "force the algorithm of the nonblocking (MPI_I<coll>) and persistent "
     "(MPI_<coll>_init) form of one collective"},
    {"MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE", "(unset)",
     "a path to a JSON tuning file",
     "the selection tree to use instead of the embedded default "
     "(json_tuning/default.json); a missing, unreadable or invalid file is "
     "reported at MPI_Init and the default is used (with FALLBACK=error "
     "MPI_Init fails)"},
    {"MPIR_CVAR_CH4COLL_FALLBACK", "warn", "warn, silent, error",
     "what a forced algorithm that does not apply to a call does: use the "
     "tuning tree with a warning, silently, or fail the call; with error, a "
     "bad CVAR value or tuning file also fails MPI_Init"},
    {"MPIR_CVAR_CH4COLL_VERBOSE", "0", "0, 1, 2, 3",
     "1: log each new decision on rank 0; 2: every call on every rank"},
    {"MPIR_CVAR_CH4COLL_YIELD", "auto", "auto, 0, 1",
     "yield the core while waiting; auto = when the node has more ranks "
     "than cores"},
    {"MPIR_CVAR_CH4COLL_CACHE_SIZE", "64", "1 .. 1048576",
     "schedules cached per communicator (least recently used evicted)"},
    {"MPIR_CVAR_CH4COLL_CHUNK_SIZE", "(unset)", "1 .. 2^40",
     "when set, the default of every algorithm's chunk parameter (pipelined "
     "bcast, ring reductions); a chunk given in the tuning file or in "
     "MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM still wins"},
    {"MPIR_CVAR_CH4COLL_MACHINE", "(unset)",
     "a path to a machine description (ch4coll-calibrate, machines/)",
     "the alpha, beta and gamma that automatic parameters follow (the "
     "block counts of the circulant algorithms, pipelined_ring's block "
     "size) instead of the built-in default model (machines/default.json); "
     "a missing or invalid file is reported at MPI_Init and the default "
     "is used"},
    {"MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "0", "0 .. 2^30",
     "0: nodes as the host reports them (MPI_Get_processor_name); k: treat "
     "the ranks of every communicator as placed on nodes of k ranks, to "
     "test the locality-aware algorithms on one machine"},
    {"MPIR_CVAR_CH4COLL_VERIFY", "0", "0, 1",
     "1: before each collective the ranks exchange its arguments "
     "(collective, root, op, datatype, byte counts; one allgather of 112 "
     "bytes per rank) and a mismatch fails the call on every rank with a "
     "message naming the ranks and values, instead of a hang or wrong data "
     "(doc/errors.md)"},
    {"MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "block", "block, cyclic",
     "placement on virtual nodes: block puts ranks r*k .. r*k+k-1 on one "
     "node, cyclic puts rank r on node r mod nodes"},
};

int ch4coll_cvar_count(void)
{
    return (int) (sizeof cvar_table / sizeof cvar_table[0]);
}

int ch4coll_cvar_info(int i, ch4coll_cvar_info_t *out)
{
    if (i < 0 || i >= ch4coll_cvar_count())
        return -1;
    *out = cvar_table[i];
    return 0;
}

ch4coll_config_t ch4coll_config = {.enable = 1,
                                   .verbose = 0,
                                   .yield = CH4COLL_YIELD_AUTO,
                                   .fallback = CH4COLL_FALLBACK_WARN,
                                   .cache_size = 64,
                                   .chunk_size = 65536,
                                   .virtual_map = CH4COLL_MAP_BLOCK,
                                   .model = CH4COLL_MODEL_DEFAULT_INIT};

int ch4coll_parse_int64(const char *text, int64_t min, int64_t max,
                        int64_t *out)
{
    char *end;
    long long v;

    /* strtoll would skip blanks and accept a sign: digits only */
    if (!text || !(isdigit((unsigned char) text[0]) || text[0] == '-'))
        return CH4COLL_ERR_ARG;
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return CH4COLL_ERR_ARG;
    *out = v;
    return CH4COLL_OK;
}

/* Append "a, b, c" of the algorithm names of coll to buf. */
static void list_algorithms(int coll, char *buf, size_t len)
{
    size_t used = strlen(buf);
    int i;

    used += (size_t) snprintf(buf + used, len - used, "auto");
    for (i = 0; i < ch4coll_nalgos && used < len; i++)
        if (ch4coll_algos[i].coll == coll)
            used += (size_t) snprintf(buf + used, len - used, ", %s",
                                      ch4coll_algos[i].name);
}

void ch4coll_config_default_params(const ch4coll_algo_t *al, int64_t *params)
{
    int i;

    ch4coll_algo_default_params(al, params);
    for (i = 0; i < ch4coll_algo_nparams(al) && ch4coll_config.chunk_size_set;
         i++)
        if (strcmp(al->params[i].name, "chunk") == 0 &&
            ch4coll_config.chunk_size >= al->params[i].min &&
            ch4coll_config.chunk_size <= al->params[i].max)
            params[i] = ch4coll_config.chunk_size;
}

static int parse_param(const ch4coll_algo_t *al, char *kv,
                       ch4coll_forced_t *out, char *err, size_t errlen)
{
    char *eq = strchr(kv, '=');
    int i;

    if (!eq) {
        snprintf(err, errlen, "parameter '%s' of %s is not key=value", kv,
                 al->name);
        return CH4COLL_ERR_ARG;
    }
    *eq = '\0';
    for (i = 0; i < ch4coll_algo_nparams(al); i++) {
        const ch4coll_param_def_t *d = &al->params[i];
        if (strcmp(d->name, kv) != 0)
            continue;
        if (ch4coll_parse_int64(eq + 1, d->min, d->max, &out->params[i]) !=
            CH4COLL_OK) {
            snprintf(err, errlen,
                     "parameter %s of %s: '%s' is not an "
                     "integer in [%lld, %lld]",
                     d->name, al->name, eq + 1, (long long) d->min,
                     (long long) d->max);
            return CH4COLL_ERR_ARG;
        }
        return CH4COLL_OK;
    }
    snprintf(err, errlen, "%s has no parameter '%s'%s", al->name, kv,
             ch4coll_algo_nparams(al) ? "; valid:" : " (it takes none)");
    for (i = 0; i < ch4coll_algo_nparams(al); i++) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " %s", al->params[i].name);
    }
    return CH4COLL_ERR_ARG;
}

int ch4coll_parse_algorithm(int coll, const char *text, ch4coll_forced_t *out,
                            char *err, size_t errlen)
{
    char buf[256], *colon, *kv, *save = NULL;
    const ch4coll_algo_t *al;

    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof buf) {
        snprintf(err, errlen, "value too long");
        return CH4COLL_ERR_ARG;
    }
    strcpy(buf, text);
    colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (strcmp(buf, "auto") == 0 && !colon)
        return CH4COLL_OK;
    al = ch4coll_algo_find(coll, buf);
    if (!al) {
        snprintf(err, errlen,
                 "unknown %s algorithm '%s'; valid: ", ch4coll_coll_name(coll),
                 buf);
        list_algorithms(coll, err, errlen);
        return CH4COLL_ERR_ARG;
    }
    out->algo = al;
    ch4coll_config_default_params(al, out->params);
    if (!colon)
        return CH4COLL_OK;
    for (kv = strtok_r(colon + 1, ",", &save); kv;
         kv = strtok_r(NULL, ",", &save))
        if (parse_param(al, kv, out, err, errlen) != CH4COLL_OK)
            return CH4COLL_ERR_ARG;
    return CH4COLL_OK;
}

static void bad(const char *var, const char *val, const char *valid)
{
    ch4coll_config.nerrors++;
    ch4coll_log(CH4COLL_LOG_WARN,
                "error: %s='%s' is invalid; valid values: "
                "%s; using the default",
                var, val, valid);
}

static const char *env_get(const char *name)
{
    return getenv(name);
}

const char *(*ch4coll_getenv)(const char *name) = env_get;

static void load_int(const char *var, int64_t min, int64_t max,
                     const char *valid, int64_t *out)
{
    const char *v = ch4coll_getenv(var);

    if (v && ch4coll_parse_int64(v, min, max, out) != CH4COLL_OK)
        bad(var, v, valid);
}

static void load_choice(const char *var, const char *const *names,
                        const int *values, int n, const char *valid, int *out)
{
    const char *v = ch4coll_getenv(var);
    int i;

    if (!v)
        return;
    for (i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = values[i];
            return;
        }
    bad(var, v, valid);
}

extern char **environ;

/* The name of forced-algorithm variable i: i < CH4COLL_NCOLL the blocking
 * collective i, above it the nonblocking one (MPIR_CVAR_CH4COLL_I<COLL>). */
static void forced_var(int i, char *var, size_t len)
{
    snprintf(var, len, "MPIR_CVAR_CH4COLL_%s%s_ALGORITHM",
             i < CH4COLL_NCOLL ? "" : "I",
             ch4coll_coll_cvar(i % CH4COLL_NCOLL));
}

static int known_var(const char *name, size_t len)
{
    char var[96];
    int coll, i;

    for (i = 0; i < ch4coll_cvar_count(); i++)
        if (strlen(cvar_table[i].name) == len &&
            strncmp(cvar_table[i].name, name, len) == 0)
            return 1;
    for (coll = 0; coll < 2 * CH4COLL_NCOLL; coll++) {
        forced_var(coll, var, sizeof var);
        if (strlen(var) == len && strncmp(var, name, len) == 0)
            return 1;
    }
    return 0;
}

/* A misspelt variable would otherwise be ignored without a word. */
static void check_unknown_vars(void)
{
    static const char prefix[] = "MPIR_CVAR_CH4COLL_";
    char **e;

    for (e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t) (eq - *e) : strlen(*e);
        if (strncmp(*e, prefix, sizeof prefix - 1) != 0 || known_var(*e, len))
            continue;
        ch4coll_config.nerrors++;
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: unknown variable %.*s "
                    "(ch4coll-info --cvars lists the valid ones)",
                    (int) len, *e);
    }
}

/* MPIR_CVAR_CH4COLL_MACHINE: the model of a machine description; unset
 * or bad, the default model. */
static void load_machine(ch4coll_config_t *c)
{
    const char *path = ch4coll_getenv("MPIR_CVAR_CH4COLL_MACHINE");
    char err[512];

    c->model = ch4coll_model_default;
    if (!path || !*path)
        return;
    if (ch4coll_machine_model_load(path, &c->model, err, sizeof err) != 0) {
        c->nerrors++;
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: MPIR_CVAR_CH4COLL_MACHINE='%s': %s; using the "
                    "default model",
                    path, err);
        return;
    }
    ch4coll_log(CH4COLL_LOG_INFO,
                "machine %s: alpha %g s, beta %g s/B, gamma %g s/B for the "
                "automatic parameters",
                path, c->model.alpha, c->model.beta, c->model.gamma);
}

int ch4coll_config_load(void)
{
    static const char *const bool_names[] = {"0", "1"};
    static const int bool_values[] = {0, 1};
    static const char *const yield_names[] = {"auto", "0", "1"};
    static const int yield_values[] = {CH4COLL_YIELD_AUTO, 0, 1};
    static const char *const fb_names[] = {"warn", "silent", "error"};
    static const int fb_values[] = {
        CH4COLL_FALLBACK_WARN, CH4COLL_FALLBACK_SILENT, CH4COLL_FALLBACK_ERROR};
    static const char *const map_names[] = {"block", "cyclic"};
    static const int map_values[] = {CH4COLL_MAP_BLOCK, CH4COLL_MAP_CYCLIC};
    ch4coll_config_t *c = &ch4coll_config;
    int64_t v;
    int coll, i;
    char var[96], err[512];

    c->nerrors = 0;
    v = c->verbose;
    load_int("MPIR_CVAR_CH4COLL_VERBOSE", 0, 3, "0, 1, 2, 3", &v);
    c->verbose = (int) v;
    ch4coll_log_level = c->verbose;
    load_choice("MPIR_CVAR_CH4COLL_ENABLE", bool_names, bool_values, 2, "0, 1",
                &c->enable);
    load_choice("MPIR_CVAR_CH4COLL_YIELD", yield_names, yield_values, 3,
                "auto, 0, 1", &c->yield);
    load_choice("MPIR_CVAR_CH4COLL_FALLBACK", fb_names, fb_values, 3,
                "warn, silent, error", &c->fallback);
    v = c->cache_size;
    load_int("MPIR_CVAR_CH4COLL_CACHE_SIZE", 1, 1 << 20,
             "an integer in [1, 1048576]", &v);
    c->cache_size = (int) v;
    v = c->virtual_ppn;
    load_int("MPIR_CVAR_CH4COLL_VIRTUAL_PPN", 0, 1 << 30,
             "an integer in [0, 2^30]", &v);
    c->virtual_ppn = (int) v;
    load_choice("MPIR_CVAR_CH4COLL_VIRTUAL_MAP", map_names, map_values, 2,
                "block, cyclic", &c->virtual_map);
    load_choice("MPIR_CVAR_CH4COLL_VERIFY", bool_names, bool_values, 2, "0, 1",
                &c->verify);
    i = c->nerrors;
    load_int("MPIR_CVAR_CH4COLL_CHUNK_SIZE", 1, INT64_C(1) << 40,
             "a byte count in [1, 2^40]", &c->chunk_size);
    c->chunk_size_set =
        ch4coll_getenv("MPIR_CVAR_CH4COLL_CHUNK_SIZE") != NULL &&
        i == c->nerrors;
    for (i = 0; i < 2 * CH4COLL_NCOLL; i++) {
        const char *val;
        ch4coll_forced_t *f;
        coll = i % CH4COLL_NCOLL;
        f = i < CH4COLL_NCOLL ? &c->forced[coll] : &c->forced_nb[coll];
        forced_var(i, var, sizeof var);
        val = ch4coll_getenv(var);
        if (!val)
            continue;
        if (ch4coll_parse_algorithm(coll, val, f, err, sizeof err) !=
            CH4COLL_OK) {
            c->nerrors++;
            memset(f, 0, sizeof *f);
            ch4coll_log(CH4COLL_LOG_WARN, "error: %s='%s': %s; using auto", var,
                        val, err);
        }
    }
    load_machine(c);
    check_unknown_vars();
    return c->nerrors;
}
