/*
 * model.c - the parser of model descriptions (model.h): the --model
 * queries of ch4coll-info and of the public ch4coll_model().
 */
#include "model.h"

#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char buf[1024], *kv, *save = NULL, *eq;
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
        if (strcmp(kv, "machine") == 0) {
            ch4coll_machine_t mach;
            if (ch4coll_machine_load(eq, &mach, err, len) != 0)
                return -1;
            *m = mach.model;
            continue;
        }
        dst = strcmp(kv, "alpha") == 0        ? &m->alpha
              : strcmp(kv, "beta") == 0       ? &m->beta
              : strcmp(kv, "gamma") == 0      ? &m->gamma
              : strcmp(kv, "alpha_node") == 0 ? &m->alpha_node
              : strcmp(kv, "beta_node") == 0  ? &m->beta_node
              : strcmp(kv, "gap") == 0        ? &m->gap
              : strcmp(kv, "eager") == 0      ? &m->eager
                                              : NULL;
        if (!dst || parse_double(eq, dst) != 0) {
            snprintf(err, len,
                     "model: '%s=%s': keys machine (a machine description, "
                     "machines/NAME.json), alpha, beta, gamma, alpha_node, "
                     "beta_node, gap (seconds, seconds per byte), eager "
                     "(bytes), non-negative numbers",
                     kv, eq);
            return -1;
        }
    }
    return 0;
}
