/*
 * fuzz_cvar.c - libFuzzer target: the MPIR_CVAR_CH4COLL_* value parsers.
 *
 * An input is up to MAX_LINES lines "NAME=VALUE" (cut at the first NUL).
 * Every VALUE goes through ch4coll_parse_int64() with the ranges the CVARs
 * use and through ch4coll_parse_algorithm() for every collective, with
 * error buffers allocated to their exact size so that ASan sees a message
 * that overruns them.  Then every line is put into the environment as
 * MPIR_CVAR_CH4COLL_NAME=VALUE and ch4coll_config_load() reads it all,
 * after which the configuration must hold only valid values.  The
 * configuration is reset before every input, so runs do not depend on
 * each other.  maint/fuzz builds and runs it; see doc/fuzzing.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch4coll.h"
#include "select/config.h"
#include "util/util.h"

enum { MAX_LINES = 8, MAX_LINE = 300 };

static const char prefix[] = "MPIR_CVAR_CH4COLL_";

/* putenv() keeps these very buffers in the environment. */
static char env_slot[MAX_LINES][sizeof prefix + MAX_LINE];
static ch4coll_config_t initial_config;
static int initial_log_level;

static void fuzz_fail(const char *what, const char *text)
{
    fprintf(stderr, "fuzz_cvar: invariant broken: %s (input '%s')\n", what,
            text);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    initial_config = ch4coll_config;
    initial_log_level = ch4coll_log_level;
    return 0;
}

static void check_int64(const char *text)
{
    static const int64_t ranges[][2] = {
        {INT64_MIN, INT64_MAX}, {0, 3}, {1, 1 << 20}, {1, INT64_C(1) << 40}};
    unsigned k;
    size_t i;
    int64_t v;

    for (k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        v = -7;
        if (ch4coll_parse_int64(text, ranges[k][0], ranges[k][1], &v) !=
            CH4COLL_OK) {
            if (v != -7)
                fuzz_fail("parse_int64 wrote a rejected value", text);
            continue;
        }
        if (v < ranges[k][0] || v > ranges[k][1])
            fuzz_fail("parse_int64 accepted a value out of range", text);
        /* accepted: an optional minus sign and decimal digits, exactly */
        for (i = text[0] == '-'; isdigit((unsigned char) text[i]); i++)
            ;
        if (text[i] != '\0' || i == (size_t) (text[0] == '-'))
            fuzz_fail("parse_int64 accepted a non-integer", text);
        errno = 0;
        if (strtoll(text, NULL, 10) != v || errno)
            fuzz_fail("parse_int64 disagrees with strtoll", text);
    }
}

static void check_forced(int coll, const ch4coll_forced_t *f, const char *text)
{
    int j;

    if (!f->algo)
        return;
    if (f->algo->coll != coll)
        fuzz_fail("algorithm of another collective", text);
    for (j = 0; j < ch4coll_algo_nparams(f->algo); j++)
        if (f->params[j] < f->algo->params[j].min ||
            f->params[j] > f->algo->params[j].max)
            fuzz_fail("parameter out of range", text);
}

static void check_algorithm(const char *text)
{
    size_t lens[2] = {512, 1 + strlen(text) % 48};
    ch4coll_forced_t f;
    unsigned k;
    int coll;

    for (k = 0; k < 2; k++)
        for (coll = 0; coll < CH4COLL_NCOLL; coll++) {
            char *err = malloc(lens[k]); /* exact size: ASan's red zone */
            if (!err)
                return;
            memset(err, 'x', lens[k]);
            if (ch4coll_parse_algorithm(coll, text, &f, err, lens[k]) ==
                CH4COLL_OK) {
                if (!f.algo && strcmp(text, "auto") != 0)
                    fuzz_fail("auto from a text that is not 'auto'", text);
                check_forced(coll, &f, text);
            } else if (!memchr(err, '\0', lens[k])) {
                fuzz_fail("error message not terminated", text);
            }
            free(err);
        }
}

static void check_config(const char *text)
{
    const ch4coll_config_t *c = &ch4coll_config;
    int coll;

    if ((c->enable != 0 && c->enable != 1) || c->verbose < 0 ||
        c->verbose > 3 || c->yield < CH4COLL_YIELD_AUTO || c->yield > 1 ||
        c->fallback < CH4COLL_FALLBACK_WARN ||
        c->fallback > CH4COLL_FALLBACK_ERROR || c->cache_size < 1 ||
        c->cache_size > 1 << 20 || c->virtual_ppn < 0 ||
        c->virtual_ppn > 1 << 30 ||
        (c->virtual_map != CH4COLL_MAP_BLOCK &&
         c->virtual_map != CH4COLL_MAP_CYCLIC) ||
        c->chunk_size < 1 || c->chunk_size > INT64_C(1) << 40 || c->nerrors < 0)
        fuzz_fail("configuration value out of range", text);
    for (coll = 0; coll < CH4COLL_NCOLL; coll++) {
        check_forced(coll, &c->forced[coll], text);
        check_forced(coll, &c->forced_nb[coll], text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[MAX_LINES * (MAX_LINE + 1)], *line, *save = NULL;
    int n = 0, i;

    if (size >= sizeof text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0'; /* and the first NUL of the input ends it */
    ch4coll_config = initial_config;
    ch4coll_log_level = initial_log_level;
    for (line = strtok_r(text, "\n", &save); line && n < MAX_LINES;
         line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (strlen(line) >= MAX_LINE)
            continue;
        check_int64(eq ? eq + 1 : line);
        check_algorithm(eq ? eq + 1 : line);
        snprintf(env_slot[n], sizeof env_slot[n], "%s%s", prefix, line);
        if (eq)
            putenv(env_slot[n++]);
    }
    ch4coll_config = initial_config;
    ch4coll_config_load();
    check_config(text);
    for (i = 0; i < n; i++) {
        /* the name is cut in a copy: the slot itself is in environ */
        char name[sizeof env_slot[i]];
        snprintf(name, sizeof name, "%s", env_slot[i]);
        *strchr(name, '=') = '\0';
        unsetenv(name);
    }
    ch4coll_config = initial_config;
    ch4coll_log_level = initial_log_level;
    return 0;
}
