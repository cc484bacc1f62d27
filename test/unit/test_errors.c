/*
 * test_errors.c - bad input that the other unit tests do not reach
 * (doc/errors.md lists every case and its outcome).
 *
 *   json    tuning files that cannot be read (a directory, a FIFO, which
 *           must not block, a NUL byte), nesting deeper than json-c
 *           allows, a 10 000-character key, duplicate keys, unknown
 *           collective names; MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE
 *           naming such a file
 *   cvars   a bad value for every variable (the default stays), misspelt
 *           variable names, bad forced-algorithm strings, the three
 *           MPIR_CVAR_CH4COLL_FALLBACK policies with a forced algorithm
 *           that does not apply (FALLBACK=error failing MPI_Init on a bad
 *           value is an MPI test: runtests, badinput)
 *   sizes   datatypes above 2 GiB (MPI_Type_size says MPI_UNDEFINED): the
 *           byte counts ch4coll computes are not wrapped, in the element
 *           description and in the call shape of a real call at p = 1; and
 *           the loop executor moving more than 2^31 bytes: bcast (one
 *           message of 2 GiB + 1 MiB, and a pipelined chain whose offsets
 *           pass 2^31) and in-place allgather ring at p = 2, checked word
 *           for word (about 4 GiB of memory at once)
 *
 * CH4COLL_ERRORS_NO_BIG=1 skips the runs above 2 GiB.
 */
#include <check.h>
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch4coll.h"

#include "algos/algo.h"
#include "entry/calls.h"
#include "core/comm.h"
#include "host/host.h"
#include "core/run.h"
#include "select/config.h"
#include "select/select.h"
#include "select/tree.h"
#include "sched/loop_run.h"
#include "transport/loop.h"
#include "util/util.h"

#define ERRLEN 4096

#define ck_assert_has(msg, sub)                                                \
    ck_assert_msg(strstr((msg), (sub)) != NULL,                                \
                  "message '%.300s' lacks '%.100s'", (msg), (sub))

static const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};

/* A scratch file name of this process. */
/* A file name of this process under /tmp, in a buffer that the next call
 * overwrites. */
static const char *tmp_path(const char *what)
{
    static char path[256];

    snprintf(path, sizeof path, "/tmp/ch4coll_test_errors_%d_%s",
             (int) getpid(), what);
    return path;
}

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* The file must not load; returns the message (static). */
static const char *file_err(const char *path)
{
    static char err[ERRLEN];
    ch4coll_tree_t t;

    err[0] = '\0';
    ck_assert_msg(ch4coll_tree_load_file(&t, path, NULL, err, sizeof err) !=
                      CH4COLL_OK,
                  "%s loaded", path);
    ck_assert_msg(err[0] != '\0', "no message for %s", path);
    return err;
}

static const char *text_err(const char *json)
{
    static char err[ERRLEN];
    ch4coll_tree_t t;

    err[0] = '\0';
    ck_assert_msg(ch4coll_tree_load(&t, json, "test", NULL, err, sizeof err) !=
                      CH4COLL_OK,
                  "loaded: %.200s", json);
    ck_assert_msg(err[0] != '\0', "no message for %.200s", json);
    return err;
}

/* =============================================================== json */

static void on_alarm(int sig)
{
    (void) sig;
    /* async-signal-safe: write and _exit */
    static const char msg[] = "test_errors: opening a FIFO blocked\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void) w;
    _exit(1);
}

/* Files that cannot be read as a tuning file. */
START_TEST(test_json_unreadable)
{
    const char *fifo = tmp_path("fifo.json"), *e;
    static const char nul[] = "{\"collective=bcast\": {\"algorithm=binomial\": "
                              "{}}}\n\0{\"x\": 1}";

    e = file_err("/nonexistent/ch4coll/tuning.json");
    ck_assert_has(e, "cannot open: No such file or directory");
    e = file_err("/tmp");
    ck_assert_has(e, "/tmp: not a regular file");
    /* a FIFO without a writer: open() would wait for one */
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    signal(SIGALRM, on_alarm);
    alarm(10);
    e = file_err(fifo);
    alarm(0);
    ck_assert_has(e, "not a regular file");
    unlink(fifo);
    /* a NUL byte: what follows it would go unseen */
    write_file(tmp_path("nul.json"), nul, sizeof nul - 1);
    e = file_err(tmp_path("nul.json"));
    ck_assert_has(e, ":2:1: a NUL byte");
    unlink(tmp_path("nul.json"));
}
END_TEST

/* Nesting deeper than json-c's limit, and a very long key: errors with a
 * position, no crash. */
START_TEST(test_json_limits)
{
    char *deep = malloc(64 * 20 + 100), *longkey = malloc(10100);
    size_t n = 0;
    const char *e;
    int i;

    ck_assert_ptr_nonnull(deep);
    ck_assert_ptr_nonnull(longkey);
    n += (size_t) sprintf(deep + n, "{\"collective=bcast\": ");
    for (i = 0; i < 64; i++)
        n += (size_t) sprintf(deep + n, "{\"comm_size<=%d\": ", 100 + i);
    n += (size_t) sprintf(deep + n, "{\"algorithm=binomial\": {}}");
    for (i = 0; i < 65; i++)
        deep[n++] = '}';
    deep[n] = '\0';
    e = text_err(deep);
    ck_assert_has(e, "test:1:");
    ck_assert_has(e, "nesting too deep");

    n = (size_t) sprintf(longkey, "{\"collective=bcast\": {\"comm_size<=");
    for (i = 0; i < 10000; i++)
        longkey[n++] = '9';
    sprintf(longkey + n, "\": {\"algorithm=binomial\": {}}}}");
    e = text_err(longkey);
    ck_assert_has(e, "at collective=bcast > comm_size<=999");
    ck_assert_has(e, "...: invalid key 'comm_size<=999");
    ck_assert_uint_lt(strlen(e), 2000);
    free(deep);
    free(longkey);
}
END_TEST

static int accept_any(const ch4coll_tnode_t *leaf, void *ctx)
{
    (void) leaf;
    (void) ctx;
    return 1;
}

/* Duplicate keys at one level: json-c keeps the last value, at the first
 * key's place; the file loads without a word (doc/errors.md). */
START_TEST(test_json_duplicate_keys)
{
    static const char json[] =
        "{\"collective=bcast\": {\"algorithm=binomial\": {}},"
        " \"collective=bcast\": {\"algorithm=knomial\": {\"radix\": 8}}}";
    char err[ERRLEN];
    ch4coll_tree_t t;
    ch4coll_selin_t in;
    const ch4coll_tnode_t *leaf;

    ck_assert_int_eq(ch4coll_tree_load(&t, json, "dup", NULL, err, sizeof err),
                     CH4COLL_OK);
    memset(&in, 0, sizeof in);
    in.have_call = 1;
    in.coll = CH4COLL_BCAST;
    in.comm_size = 8;
    in.nodes = 8;
    leaf = ch4coll_tree_search(&t, &in, accept_any, NULL, NULL);
    ck_assert_ptr_nonnull(leaf);
    ck_assert_str_eq(leaf->algo->name, "knomial");
    ck_assert_int_eq(leaf->params[0], 8);
    ch4coll_tree_free(&t);
}
END_TEST

/* Collective names that do not exist, in a tree. */
START_TEST(test_json_unknown_collective)
{
    static const char *const bad[] = {"allreduced", "Bcast",      "bcast ",
                                      "",           "alltoallw2", "i"};
    char json[256];
    const char *e;
    int i;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        snprintf(json, sizeof json,
                 "{\"collective=%s\": {\"algorithm=native\": {}}}", bad[i]);
        e = text_err(json);
        ck_assert_has(e, "at collective=");
        ck_assert_has(e, "valid forms");
        ck_assert_has(e, "collective=bcast");
    }
}
END_TEST

/* MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE naming a bad file: an
 * error status, and the embedded default is what selection uses. */
START_TEST(test_json_cvar_file)
{
    const char *var = "MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE";
    char fifo[256], nulp[256], empty[256]; /* tmp_path's buffer is reused */
    static const char nul[] = "{}\0";
    const char *paths[3];
    char err[ERRLEN];
    ch4coll_tree_t def;
    int i;

    ck_assert_int_eq(ch4coll_tree_load(&def, ch4coll_default_json, "d", NULL,
                                       err, sizeof err),
                     CH4COLL_OK);
    strcpy(fifo, tmp_path("cvar.fifo"));
    strcpy(nulp, tmp_path("cvar_nul.json"));
    strcpy(empty, tmp_path("cvar_empty.json"));
    unlink(fifo);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    write_file(nulp, nul, sizeof nul - 1);
    write_file(empty, "", 0);
    paths[0] = fifo;
    paths[1] = nulp;
    paths[2] = "/nonexistent/tuning.json";
    signal(SIGALRM, on_alarm);
    for (i = 0; i < 3; i++) {
        setenv(var, paths[i], 1);
        alarm(10);
        ck_assert_int_eq(ch4coll_select_init(), CH4COLL_ERR_ARG);
        alarm(0);
        ck_assert_ptr_nonnull(ch4coll_select_tree());
        ck_assert(ch4coll_select_tree()->checksum == def.checksum);
    }
    setenv(var, empty, 1);
    ck_assert_int_eq(ch4coll_select_init(), CH4COLL_ERR_ARG);
    ck_assert(ch4coll_select_tree()->checksum == def.checksum);
    /* an empty value: the default, no error */
    setenv(var, "", 1);
    ck_assert_int_eq(ch4coll_select_init(), CH4COLL_OK);
    unsetenv(var);
    ch4coll_select_use_default();
    unlink(fifo);
    unlink(nulp);
    unlink(empty);
    ch4coll_tree_free(&def);
}
END_TEST

/* ============================================================== cvars */

/* One bad value per variable: one error, the default stays. */
START_TEST(test_cvar_bad_values)
{
    static const struct {
        const char *var, *value;
    } bad[] = {
        {"MPIR_CVAR_CH4COLL_ENABLE", "2"},
        {"MPIR_CVAR_CH4COLL_ENABLE", "yes"},
        {"MPIR_CVAR_CH4COLL_ENABLE", ""},
        {"MPIR_CVAR_CH4COLL_VERBOSE", "4"},
        {"MPIR_CVAR_CH4COLL_VERBOSE", "-1"},
        {"MPIR_CVAR_CH4COLL_VERBOSE", " 1"},
        {"MPIR_CVAR_CH4COLL_YIELD", "2"},
        {"MPIR_CVAR_CH4COLL_FALLBACK", "loud"},
        {"MPIR_CVAR_CH4COLL_FALLBACK", "WARN"},
        {"MPIR_CVAR_CH4COLL_CACHE_SIZE", "0"},
        {"MPIR_CVAR_CH4COLL_CACHE_SIZE", "1048577"},
        {"MPIR_CVAR_CH4COLL_CACHE_SIZE", "64k"},
        {"MPIR_CVAR_CH4COLL_CHUNK_SIZE", "0"},
        {"MPIR_CVAR_CH4COLL_CHUNK_SIZE", "1099511627777"},
        {"MPIR_CVAR_CH4COLL_CHUNK_SIZE", "-5"},
        {"MPIR_CVAR_CH4COLL_CHUNK_SIZE", "99999999999999999999999"},
        {"MPIR_CVAR_CH4COLL_VIRTUAL_PPN", "1073741825"},
        {"MPIR_CVAR_CH4COLL_VIRTUAL_MAP", "Block"},
        {"MPIR_CVAR_CH4COLL_VERIFY", "on"},
    };
    ch4coll_config_t saved = ch4coll_config, before;
    int saved_level = ch4coll_log_level, i;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        before = ch4coll_config;
        setenv(bad[i].var, bad[i].value, 1);
        ck_assert_msg(ch4coll_config_load() == 1, "%s='%s': %d errors",
                      bad[i].var, bad[i].value, ch4coll_config.nerrors);
        ck_assert_int_eq(ch4coll_config.enable, before.enable);
        ck_assert_int_eq(ch4coll_config.verbose, before.verbose);
        ck_assert_int_eq(ch4coll_config.yield, before.yield);
        ck_assert_int_eq(ch4coll_config.fallback, before.fallback);
        ck_assert_int_eq(ch4coll_config.cache_size, before.cache_size);
        ck_assert(ch4coll_config.chunk_size == before.chunk_size);
        ck_assert_int_eq(ch4coll_config.chunk_size_set, 0);
        ck_assert_int_eq(ch4coll_config.virtual_ppn, before.virtual_ppn);
        ck_assert_int_eq(ch4coll_config.virtual_map, before.virtual_map);
        ck_assert_int_eq(ch4coll_config.verify, before.verify);
        unsetenv(bad[i].var);
    }
    ck_assert_int_eq(ch4coll_config_load(), 0);
    ch4coll_config = saved;
    ch4coll_log_level = saved_level;
}
END_TEST

/* Misspelt names with the prefix are errors too; valid ones are not. */
START_TEST(test_cvar_unknown_names)
{
    static const char *const bad[] = {
        "MPIR_CVAR_CH4COLL_BCAST_ALGORITM", "MPIR_CVAR_CH4COLL_ENABLED",
        "MPIR_CVAR_CH4COLL_", "MPIR_CVAR_CH4COLL_ALLTOALLW_ALGORITHM",
        "MPIR_CVAR_CH4COLL_bcast_ALGORITHM"};
    ch4coll_config_t saved = ch4coll_config;
    int i;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        setenv(bad[i], "1", 1);
        ck_assert_msg(ch4coll_config_load() == 1, "%s: %d errors", bad[i],
                      ch4coll_config.nerrors);
        unsetenv(bad[i]);
    }
    setenv("MPIR_CVAR_CH4COLL_IBARRIER_ALGORITHM", "auto", 1);
    ck_assert_int_eq(ch4coll_config_load(), 0);
    unsetenv("MPIR_CVAR_CH4COLL_IBARRIER_ALGORITHM");
    ch4coll_config = saved;
}
END_TEST

/* Forced-algorithm strings: each bad one is refused with a message that
 * names what is wrong; the odd good ones parse as documented. */
START_TEST(test_cvar_algorithm_strings)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"", "unknown bcast algorithm ''"},
        {"BINOMIAL", "unknown bcast algorithm 'BINOMIAL'"},
        {" binomial", "unknown bcast algorithm ' binomial'"},
        {"auto:chunk=1", "unknown bcast algorithm 'auto'"},
        {"knomial:radix", "not key=value"},
        {"knomial:radix=1", "is not an integer in [2, 64]"},
        {"knomial:radix=65", "is not an integer in [2, 64]"},
        {"knomial:radix=x", "is not an integer"},
        {"knomial:radix=99999999999999999999", "is not an integer"},
        {"knomial:chunk=4", "has no parameter 'chunk'"},
        {"binomial:chunk=4", "(it takes none)"},
        {"line:chunk=0", "is not an integer in [1, 1099511627776]"},
        {"line:streams=4", "is not an integer in [1, 3]"},
        {"reduce_scatter_ring", "unknown bcast algorithm"},
    };
    ch4coll_forced_t f;
    char err[512], longtext[400];
    int i;

    for (i = 0; i < (int) (sizeof bad / sizeof bad[0]); i++) {
        err[0] = '\0';
        ck_assert_msg(ch4coll_parse_algorithm(CH4COLL_BCAST, bad[i].text, &f,
                                              err,
                                              sizeof err) == CH4COLL_ERR_ARG,
                      "'%s' parsed", bad[i].text);
        ck_assert_has(err, bad[i].says);
    }
    memset(longtext, 'a', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    ck_assert_int_eq(
        ch4coll_parse_algorithm(CH4COLL_BCAST, longtext, &f, err, sizeof err),
        CH4COLL_ERR_ARG);
    ck_assert_has(err, "too long");
    /* a trailing colon or comma adds nothing; a repeated key: the last */
    ck_assert_int_eq(
        ch4coll_parse_algorithm(CH4COLL_BCAST, "knomial:", &f, err, sizeof err),
        CH4COLL_OK);
    ck_assert_int_eq(f.params[0], 4);
    ck_assert_int_eq(ch4coll_parse_algorithm(CH4COLL_BCAST,
                                             "knomial:radix=3,,radix=8,", &f,
                                             err, sizeof err),
                     CH4COLL_OK);
    ck_assert_int_eq(f.params[0], 8);
}
END_TEST

/* A forced algorithm that does not apply to the call (commutative ops
 * only, a non-commutative op) under each MPIR_CVAR_CH4COLL_FALLBACK. */
START_TEST(test_fallback_policies)
{
    static const int policies[] = {
        CH4COLL_FALLBACK_WARN, CH4COLL_FALLBACK_SILENT, CH4COLL_FALLBACK_ERROR};
    ch4coll_config_t saved = ch4coll_config;
    const ch4coll_algo_t *rh =
        ch4coll_algo_find(CH4COLL_REDUCE_SCATTER_BLOCK, "recursive_halving");
    ch4coll_args_t a;
    ch4coll_selin_t comm;
    ch4coll_choice_t ch;
    const char *why;
    int i, rc;

    ck_assert_ptr_nonnull(rh);
    memset(&a, 0, sizeof a);
    a.coll = CH4COLL_REDUCE_SCATTER_BLOCK;
    a.size = 8;
    a.count = 16;
    a.elem = byte_elem;
    a.op = MPI_OP_NULL;
    a.commutative = 0;
    ck_assert(!ch4coll_algo_applicable(rh, &a, &why));
    memset(&comm, 0, sizeof comm);
    comm.comm_size = 8;
    comm.nodes = 8;
    comm.node_consecutive = 1;
    ch4coll_config.forced[CH4COLL_REDUCE_SCATTER_BLOCK].algo = rh;
    for (i = 0; i < 3; i++) {
        ch4coll_config.fallback = policies[i];
        rc = ch4coll_select(&a, NULL, &comm, &ch, NULL, NULL);
        if (policies[i] == CH4COLL_FALLBACK_ERROR) {
            ck_assert_int_eq(rc, CH4COLL_ERR_INAPPLICABLE);
            continue;
        }
        ck_assert_int_eq(rc, CH4COLL_OK);
        ck_assert_ptr_nonnull(ch.algo);
        ck_assert_ptr_ne(ch.algo, rh);
        ck_assert_str_eq(ch.why, "forced algorithm inapplicable; tuning tree");
    }
    /* applicable: forced, whatever the policy */
    a.commutative = 1;
    ch4coll_config.fallback = CH4COLL_FALLBACK_ERROR;
    ck_assert_int_eq(ch4coll_select(&a, NULL, &comm, &ch, NULL, NULL),
                     CH4COLL_OK);
    ck_assert_ptr_eq(ch.algo, rh);
    ck_assert_str_eq(ch.why, "forced by CVAR");
    ch4coll_config = saved;
}
END_TEST

/* ============================================================== sizes */

/* A contiguous type of n doubles (committed). */
static MPI_Datatype doubles(size_t n)
{
    MPI_Datatype t;

    ck_assert_int_eq(MPI_Type_contiguous((int) n, MPI_DOUBLE, &t), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    return t;
}

/* MPI_Type_size gives MPI_UNDEFINED above INT_MAX; ch4coll's element
 * description must carry the real size. */
START_TEST(test_type_above_int)
{
    MPI_Datatype t1 = doubles(((size_t) 1 << 28) + 1), t2 = doubles(1u << 30);
    ch4coll_elem_t e;
    int size;

    MPI_Type_size(t1, &size);
    ck_assert_int_eq(size, MPI_UNDEFINED);
    ch4coll_host_elem(t1, &e);
    ck_assert(e.size == ((size_t) 1 << 31) + 8);
    ck_assert(e.extent == e.size);
    ck_assert_int_eq(e.dense, 1);
    ch4coll_host_elem(t2, &e);
    ck_assert(e.size == (size_t) 1 << 33);
    MPI_Type_free(&t1);
    MPI_Type_free(&t2);
}
END_TEST

/* A real call with count x type size above INT_MAX, through the preload
 * entry at p = 1 (MPI_COMM_SELF): the shape the schedule is built for
 * has the real byte count (p = 1 moves nothing, so a small buffer does). */
START_TEST(test_call_shape_above_int)
{
    MPI_Datatype t = doubles(((size_t) 1 << 28) + 1);
    char buf[64];
    ch4coll_call_t c;

    c = call_bcast(buf, 1, t, 0, MPI_COMM_SELF);
    ck_assert_int_eq(ch4coll_run(&c), MPI_SUCCESS);
    ck_assert_has(ch4coll_last_decision(), "bytes=2147483656 ");
    c = call_regular(CH4COLL_ALLGATHER, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                     3, t, 0, MPI_COMM_SELF);
    ck_assert_int_eq(ch4coll_run(&c), MPI_SUCCESS);
    ck_assert_has(ch4coll_last_decision(), "bytes=6442450968 ");
    MPI_Type_free(&t);
}
END_TEST

/* The pattern: word i of a buffer (8 bytes) holds a hash of i, so a
 * shifted, truncated or missing copy is caught; filled and checked a word
 * at a time (2 GiB at byte speed takes minutes on a busy machine).
 * Offsets and lengths are multiples of 8 here. */
static uint64_t pattern(size_t i)
{
    return (uint64_t) i * UINT64_C(0x9E3779B97F4A7C15) + UINT64_C(12345);
}

static void fill(unsigned char *b, size_t from, size_t n)
{
    uint64_t *w = (uint64_t *) (void *) (b + from);
    size_t i;

    for (i = 0; i < n / 8; i++)
        w[i] = pattern(from / 8 + i);
}

/* Byte offset of the first word that differs, or n. */
static size_t first_bad(const unsigned char *b, size_t n)
{
    const uint64_t *w = (const uint64_t *) (const void *) b;
    size_t i;

    for (i = 0; i < n / 8; i++)
        if (w[i] != pattern(i))
            return i * 8;
    return n;
}

/* Build algorithm al (params: NULL = defaults) for every rank of a
 * data-movement call a (rank filled in here), run it in the loop
 * executor in rendezvous mode on the buffers, and return its status. */
static int run_loop(const ch4coll_algo_t *al, const int64_t *params,
                    ch4coll_args_t a, unsigned char **sbuf,
                    unsigned char **rbuf, char *err, size_t errlen)
{
    ch4coll_sched_t s[2], *sp[2];
    int64_t def[CH4COLL_MAX_PARAMS];
    ch4coll_loop_t *w = ch4coll_loop_create(a.size, 0);
    int r, rc = CH4COLL_OK;

    ck_assert_ptr_nonnull(w);
    ck_assert_int_le(a.size, 2);
    ch4coll_algo_default_params(al, def);
    for (r = 0; r < a.size; r++) {
        a.rank = r;
        sp[r] = &s[r];
        rc = ch4coll_sched_init(&s[r], &byte_elem, MPI_OP_NULL, r, a.size);
        ck_assert_int_eq(rc, CH4COLL_OK);
        rc = al->build(&s[r], &a, params ? params : def);
        ck_assert_int_eq(rc, CH4COLL_OK);
        ck_assert_int_eq(ch4coll_sched_commit(&s[r]), CH4COLL_OK);
        ck_assert_int_eq(ch4coll_sched_start(&s[r], sbuf[r], rbuf[r], 0,
                                             &ch4coll_transport_loop,
                                             ch4coll_loop_ctx(w, r)),
                         CH4COLL_OK);
    }
    rc = ch4coll_loop_run(w, sp, err, errlen);
    for (r = 0; r < a.size; r++)
        ch4coll_sched_destroy(&s[r]);
    ch4coll_loop_destroy(w);
    return rc;
}

/* n bytes for the runs above 2 GiB, in transparent huge pages where the
 * kernel offers them on request: a 4 KiB page fault per 4 KiB of 4 GiB
 * costs more than the test itself. */
static unsigned char *big_alloc(size_t n)
{
    const size_t huge = (size_t) 2 << 20;
    void *p = NULL;

    ck_assert_int_eq(posix_memalign(&p, huge, n), 0);
#ifdef MADV_HUGEPAGE
    madvise(p, (n + huge - 1) / huge * huge, MADV_HUGEPAGE);
#endif
    return p;
}

static int no_big(void)
{
    const char *v = getenv("CH4COLL_ERRORS_NO_BIG");

    return v && strcmp(v, "1") == 0;
}

/* bcast of 2^31 + 2^20 + 8 bytes at p = 2: binomial sends it as one
 * message, line as 64 MiB chunks whose offsets pass 2^31. */
START_TEST(test_loop_bcast_above_2gib)
{
    const size_t n = ((size_t) 1 << 31) + ((size_t) 1 << 20) + 8;
    static const char *const algos[] = {"binomial", "line"};
    unsigned char *b[2], *none[2] = {NULL, NULL};
    int64_t params[CH4COLL_MAX_PARAMS];
    char err[ERRLEN];
    ch4coll_args_t a;
    int i;

    if (no_big())
        return;
    b[0] = big_alloc(n);
    b[1] = big_alloc(n);
    fill(b[0], 0, n);
    for (i = 0; i < 2; i++) {
        const ch4coll_algo_t *al = ch4coll_algo_find(CH4COLL_BCAST, algos[i]);
        ck_assert_ptr_nonnull(al);
        ch4coll_algo_default_params(al, params);
        if (i == 1)
            params[0] = (int64_t) 1 << 26; /* chunk */
        memset(b[1], 0, n);
        memset(&a, 0, sizeof a);
        a.coll = CH4COLL_BCAST;
        a.size = 2;
        a.count = n;
        a.elem = byte_elem;
        a.op = MPI_OP_NULL;
        a.commutative = 1;
        ck_assert_msg(run_loop(al, params, a, none, b, err, sizeof err) ==
                          CH4COLL_OK,
                      "%s: %s", algos[i], err);
        ck_assert_msg(first_bad(b[1], n) == n, "%s: byte %zu differs", algos[i],
                      first_bad(b[1], n));
        ck_assert_msg(first_bad(b[0], n) == n, "%s: the root's buffer changed",
                      algos[i]);
    }
    free(b[0]);
    free(b[1]);
}
END_TEST

/* In-place allgather ring at p = 2, blocks of 2^30 + 8 bytes: a total
 * above 2^31, each rank's buffer 2^31 + 16 bytes. */
START_TEST(test_loop_allgather_above_2gib)
{
    const size_t blk = ((size_t) 1 << 30) + 8, n = 2 * blk;
    const ch4coll_algo_t *al = ch4coll_algo_find(CH4COLL_ALLGATHER, "ring");
    unsigned char *b[2], *none[2] = {NULL, NULL};
    char err[ERRLEN];
    ch4coll_args_t a;
    int r;

    if (no_big())
        return;
    ck_assert_ptr_nonnull(al);
    for (r = 0; r < 2; r++) {
        b[r] = big_alloc(n);
        memset(b[r], 0, n);
        fill(b[r], r * blk, blk); /* own block, in place */
    }
    memset(&a, 0, sizeof a);
    a.coll = CH4COLL_ALLGATHER;
    a.size = 2;
    a.count = blk;
    a.inplace = 1;
    a.elem = byte_elem;
    a.op = MPI_OP_NULL;
    a.commutative = 1;
    ck_assert_msg(run_loop(al, NULL, a, none, b, err, sizeof err) == CH4COLL_OK,
                  "%s", err);
    for (r = 0; r < 2; r++) {
        ck_assert_msg(first_bad(b[r], n) == n, "rank %d: byte %zu differs", r,
                      first_bad(b[r], n));
        free(b[r]);
    }
}
END_TEST

/* ============================================================== main */

static Suite *errors_suite(void)
{
    Suite *s = suite_create("errors");
    TCase *tc;

    tc = tcase_create("json");
    tcase_add_test(tc, test_json_unreadable);
    tcase_add_test(tc, test_json_limits);
    tcase_add_test(tc, test_json_duplicate_keys);
    tcase_add_test(tc, test_json_unknown_collective);
    tcase_add_test(tc, test_json_cvar_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("cvars");
    tcase_add_test(tc, test_cvar_bad_values);
    tcase_add_test(tc, test_cvar_unknown_names);
    tcase_add_test(tc, test_cvar_algorithm_strings);
    tcase_add_test(tc, test_fallback_policies);
    suite_add_tcase(s, tc);

    tc = tcase_create("sizes");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_type_above_int);
    tcase_add_test(tc, test_call_shape_above_int);
    tcase_add_test(tc, test_loop_bcast_above_2gib);
    tcase_add_test(tc, test_loop_allgather_above_2gib);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    SRunner *sr;
    int failed;

    MPI_Init(&argc, &argv);
    sr = srunner_create(errors_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
