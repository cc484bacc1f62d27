/*
 * spec.c - see spec.h.
 */
#include "spec.h"

#include <stdio.h>
#include <string.h>

#include "../select/config.h"

int ch4coll_spec_copy(char *buf, size_t size, const char *spec, char *err,
                      size_t len)
{
    if (strlen(spec) >= size) {
        snprintf(err, len, "spec too long");
        return -1;
    }
    strcpy(buf, spec);
    return 0;
}

int ch4coll_spec_next(char **cursor, char **key, char **val, char *err,
                      size_t len)
{
    char *kv = *cursor, *end, *eq;

    while (*kv == ',')
        kv++;
    if (*kv == '\0')
        return 0;
    end = strchr(kv, ',');
    if (end)
        *end++ = '\0';
    *cursor = end ? end : kv + strlen(kv);
    if (!(eq = strchr(kv, '='))) {
        snprintf(err, len, "'%s' is not key=value", kv);
        return -1;
    }
    *eq = '\0';
    *key = kv;
    *val = eq + 1;
    return 1;
}

int ch4coll_spec_algorithm(int coll, const char *text, const char *what,
                           const ch4coll_algo_t **algo, int64_t *params,
                           char *err, size_t len)
{
    ch4coll_forced_t f;

    if (ch4coll_parse_algorithm(coll, text, &f, err, len) != CH4COLL_OK)
        return -1;
    if (!f.algo || ch4coll_algo_is_native(f.algo)) {
        snprintf(err, len, "'%s' has no schedule to %s", text, what);
        return -1;
    }
    *algo = f.algo;
    memcpy(params, f.params, sizeof f.params);
    return 0;
}

void ch4coll_spec_args(int coll, int p, int rank, int root, size_t count,
                       int commutative, size_t *v, ch4coll_args_t *a)
{
    static const ch4coll_elem_t int_elem = {MPI_INT, 4, 4, 0, 4, 1};
    static const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};
    int i;

    memset(a, 0, sizeof *a);
    a->coll = coll;
    a->rank = rank;
    a->size = p;
    a->root = root;
    a->count = count;
    a->commutative = commutative;
    a->op_builtin = commutative;
    a->op = MPI_SUM;
    a->elem = ch4coll_coll_is_reduction(coll) ? int_elem : byte_elem;
    for (i = 0; i < p; i++) {
        v[i] = count;
        v[p + i] = (size_t) i * count;
    }
    a->counts = a->scounts = v;
    a->displs = a->sdispls = v + p;
}
