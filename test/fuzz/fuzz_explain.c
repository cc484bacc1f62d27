/*
 * fuzz_explain.c - libFuzzer target: the query of ch4coll-info --explain.
 *
 * An input (up to its first NUL) is a spec such as
 * "coll=allreduce,comm_size=7,bytes=8".  It is first cut into key=value
 * pairs by ch4coll_spec_next() (the tokenizer of every tool spec), whose
 * pieces must contain no separator, and then handed whole to
 * ch4coll_explain(), which parses it, places the ranks on virtual nodes,
 * prunes the embedded tuning tree and selects, writing into an output
 * buffer allocated to its exact size.  Two kinds of spec are not given
 * to ch4coll_explain(): file=F (it would read any file of the machine) and
 * comm_size or p above MAX_P (the explanation allocates and visits every
 * rank, so a huge size is only slow).  Variables MPIR_CVAR_CH4COLL_* of
 * the caller's environment are removed at start, so a run depends on its
 * input alone.  maint/fuzz builds and runs it; see doc/fuzzing.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch4coll.h"
#include "select/spec.h"
#include "select/config.h"

enum { MAX_SPEC = 1024, MAX_P = 4096 };

static void fuzz_fail(const char *what, const char *spec)
{
    fprintf(stderr, "fuzz_explain: invariant broken: %s (spec '%s')\n", what,
            spec);
    abort();
}

extern char **environ;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char prefix[] = "MPIR_CVAR_CH4COLL_";
    char name[256];
    char **e;

    (void) argc;
    (void) argv;
    for (e = environ; e && *e;) {
        if (strncmp(*e, prefix, sizeof prefix - 1) != 0) {
            e++;
            continue;
        }
        snprintf(name, sizeof name, "%.*s", (int) strcspn(*e, "="), *e);
        unsetenv(name);
        e = environ; /* unsetenv moved the entries */
    }
    return 0;
}

/* Tokenize spec; 1 if ch4coll_explain() may run it. */
static int tokenize(const char *spec)
{
    char buf[MAX_SPEC], err[128], *cur = buf, *key, *val;
    int64_t v;
    int more, ok = 1;

    if (ch4coll_spec_copy(buf, sizeof buf, spec, err, sizeof err) != 0)
        return 1; /* too long: explain rejects it too */
    while ((more = ch4coll_spec_next(&cur, &key, &val, err, sizeof err)) > 0) {
        if (strpbrk(key, ",=") || strchr(val, ','))
            fuzz_fail("a key=value piece keeps a separator", spec);
        if (strcmp(key, "file") == 0)
            ok = 0;
        if ((strcmp(key, "comm_size") == 0 || strcmp(key, "p") == 0) &&
            ch4coll_parse_int64(val, INT64_MIN, INT64_MAX, &v) == 0 &&
            v > MAX_P)
            ok = 0;
    }
    if (more < 0 && !memchr(err, '\0', sizeof err))
        fuzz_fail("tokenizer error not terminated", spec);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char spec[MAX_SPEC + 16], *out;
    size_t outlen;

    if (size >= sizeof spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    if (!tokenize(spec))
        return 0;
    /* a roomy buffer, or a small one that cuts the explanation */
    outlen = size % 5 == 0 ? 1 + size % 64 : 16384;
    out = malloc(outlen); /* exact size: ASan's red zone */
    if (!out)
        return 0;
    memset(out, 'x', outlen);
    if (ch4coll_explain(spec, out, outlen) == 0 && outlen == 16384 &&
        !strstr(out, "\n-> "))
        fuzz_fail("explained without a decision", spec);
    if (!memchr(out, '\0', outlen))
        fuzz_fail("explanation not terminated", spec);
    free(out);
    return 0;
}
