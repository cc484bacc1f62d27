/*
 * select.c - forced algorithm, fallback policy, built-in default.
 */
#include "select.h"

#include <string.h>

#include "../util/util.h"
#include "config.h"

static const ch4coll_algo_t *first_applicable(const ch4coll_args_t *a,
                                              int64_t *params)
{
    const char *why;
    int i;

    for (i = 0; i < ch4coll_nalgos; i++) {
        const ch4coll_algo_t *al = &ch4coll_algos[i];
        if (al->coll != a->coll || ch4coll_algo_is_native(al) ||
            !ch4coll_algo_applicable(al, a, &why))
            continue;
        ch4coll_algo_default_params(al, params);
        return al;
    }
    return ch4coll_algo_find(a->coll, "native");
}

const ch4coll_algo_t *ch4coll_select(const ch4coll_args_t *a, int64_t *params,
                                     const char **why, int *status)
{
    const ch4coll_forced_t *f = &ch4coll_config.forced[a->coll];
    const char *reason;

    *status = CH4COLL_OK;
    if (!ch4coll_config.enable) {
        *why = "disabled (MPIR_CVAR_CH4COLL_ENABLE=0)";
        return ch4coll_algo_find(a->coll, "native");
    }
    if (f->algo) {
        if (ch4coll_algo_applicable(f->algo, a, &reason)) {
            memcpy(params, f->params, sizeof f->params);
            *why = "forced by CVAR";
            return f->algo;
        }
        if (ch4coll_config.fallback == CH4COLL_FALLBACK_ERROR) {
            ch4coll_log(CH4COLL_LOG_WARN,
                        "error: forced %s algorithm %s "
                        "does not apply (%s) and "
                        "MPIR_CVAR_CH4COLL_FALLBACK=error",
                        ch4coll_coll_name(a->coll), f->algo->name, reason);
            *status = CH4COLL_ERR_INAPPLICABLE;
            return NULL;
        }
        if (ch4coll_config.fallback == CH4COLL_FALLBACK_WARN)
            ch4coll_log(CH4COLL_LOG_WARN,
                        "warning: forced %s algorithm %s "
                        "does not apply (%s); using the default",
                        ch4coll_coll_name(a->coll), f->algo->name, reason);
        *why = "default (forced algorithm inapplicable)";
        return first_applicable(a, params);
    }
    *why = "default";
    return first_applicable(a, params);
}
