/*
 * machine_model.c - the model of a machine description (machine_model.h).
 */
#include "machine_model.h"

#include <json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int ch4coll_json_number(json_object *o, const char *key, double *v,
                        int required, const char *where, char *err, size_t len)
{
    json_object *x;

    if (!json_object_object_get_ex(o, key, &x)) {
        if (required)
            snprintf(err, len, "%s: no \"%s\"", where, key);
        return required ? -1 : 0;
    }
    if (!json_object_is_type(x, json_type_double) &&
        !json_object_is_type(x, json_type_int)) {
        snprintf(err, len, "%s: \"%s\" is not a number", where, key);
        return -1;
    }
    *v = json_object_get_double(x);
    if (!(*v >= 0) || isinf(*v)) {
        snprintf(err, len, "%s: \"%s\" is %g, not a finite number >= 0", where,
                 key, *v);
        return -1;
    }
    return 0;
}

int ch4coll_json_model(json_object *root, ch4coll_model_t *m, char *err,
                       size_t len)
{
    json_object *mo;

    if (!json_object_object_get_ex(root, "model", &mo) ||
        !json_object_is_type(mo, json_type_object)) {
        snprintf(err, len, "no \"model\" object");
        return -1;
    }
    if (ch4coll_json_number(mo, "alpha", &m->alpha, 1, "model", err, len) ||
        ch4coll_json_number(mo, "beta", &m->beta, 1, "model", err, len) ||
        ch4coll_json_number(mo, "gamma", &m->gamma, 1, "model", err, len))
        return -1;
    m->alpha_node = m->alpha;
    m->beta_node = m->beta;
    m->gap = m->eager = 0;
    return ch4coll_json_number(mo, "alpha_node", &m->alpha_node, 0, "model",
                               err, len) ||
                   ch4coll_json_number(mo, "beta_node", &m->beta_node, 0,
                                       "model", err, len) ||
                   ch4coll_json_number(mo, "gap", &m->gap, 0, "model", err,
                                       len) ||
                   ch4coll_json_number(mo, "eager", &m->eager, 0, "model", err,
                                       len)
               ? -1
               : 0;
}

int ch4coll_machine_model_load(const char *path, ch4coll_model_t *m, char *err,
                               size_t len)
{
    json_object *root = json_object_from_file(path);
    ch4coll_model_t got;
    char why[256];
    int rc;

    if (!root) {
        const char *why_c = json_util_get_last_err();
        int n = why_c ? (int) strcspn(why_c, "\n") : 0;
        snprintf(err, len, "%s: cannot read it as JSON (%.*s)", path, n,
                 why_c ? why_c : "");
        return -1;
    }
    rc = json_object_is_type(root, json_type_object)
             ? ch4coll_json_model(root, &got, why, sizeof why)
             : (snprintf(why, sizeof why, "not a JSON object"), -1);
    json_object_put(root);
    if (rc == 0 && !(got.alpha > 0 && got.beta > 0)) {
        snprintf(why, sizeof why, "model: alpha and beta must be > 0");
        rc = -1;
    }
    if (rc) {
        snprintf(err, len, "%s: %s", path, why);
        return -1;
    }
    *m = got;
    return 0;
}
