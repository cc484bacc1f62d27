/*
 * machine.c - machine descriptions (machine.h): read, write, and the
 * reduction kernels' timing that ch4coll-calibrate puts into them.
 */
#include "machine.h"

#include <json-c/json.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sched/kernels.h"
#include "../select/machine_model.h"

void ch4coll_machine_init(ch4coll_machine_t *m)
{
    memset(m, 0, sizeof *m);
    m->model = ch4coll_model_default;
}

/* "t:a:b;..." with t not decreasing and a, b finite, at least 0. */
static int check_segments(const char *s)
{
    double last = -1;

    while (*s) {
        double t, a, b;
        int used = 0;

        if (sscanf(s, "%lf:%lf:%lf%n", &t, &a, &b, &used) != 3 || t < last ||
            !(a >= 0) || !(b >= 0) || isinf(a) || isinf(b))
            return -1;
        last = t;
        s += used;
        if (*s == ';')
            s++;
        else if (*s)
            return -1;
    }
    return 0;
}

double ch4coll_machine_overhead(const char *s, double bytes)
{
    double cur = -1;

    while (s && *s) {
        double t, a, b;
        int used = 0;

        if (sscanf(s, "%lf:%lf:%lf%n", &t, &a, &b, &used) != 3)
            break;
        if (cur >= 0 && bytes <= t)
            return cur;
        cur = a + b * bytes;
        s += used + (s[used] == ';');
    }
    return cur > 0 ? cur : 0;
}

static int get_string(json_object *o, const char *key, char *dst, size_t cap,
                      char *err, size_t len)
{
    json_object *x;

    if (!json_object_object_get_ex(o, key, &x))
        return 0;
    if (!json_object_is_type(x, json_type_string) ||
        (size_t) json_object_get_string_len(x) >= cap) {
        snprintf(err, len, "\"%s\" is not a string of less than %zu characters",
                 key, cap);
        return -1;
    }
    strcpy(dst, json_object_get_string(x));
    return 0;
}

static int load_model(json_object *root, ch4coll_machine_t *m, char *err,
                      size_t len)
{
    return ch4coll_json_model(root, &m->model, err, len);
}

static int load_smpi(json_object *root, ch4coll_machine_t *m, char *err,
                     size_t len)
{
    static const char *keys[] = {"os", "ois", "or"};
    char *dst[] = {m->os, m->ois, m->or_};
    json_object *so;
    double v = 0;
    int i;

    if (!json_object_object_get_ex(root, "smpi", &so))
        return 0;
    if (!json_object_is_type(so, json_type_object)) {
        snprintf(err, len, "\"smpi\" is not an object");
        return -1;
    }
    for (i = 0; i < 3; i++) {
        if (get_string(so, keys[i], dst[i], sizeof m->os, err, len) != 0)
            return -1;
        if (check_segments(dst[i]) != 0) {
            snprintf(err, len,
                     "smpi: \"%s\" is \"%s\", not threshold:startup:per_byte "
                     "segments joined by ';'",
                     keys[i], dst[i]);
            return -1;
        }
    }
    if (ch4coll_json_number(so, "latency", &m->latency, 0, "smpi", err, len) ||
        ch4coll_json_number(so, "bandwidth", &m->bandwidth, 0, "smpi", err,
                            len) ||
        ch4coll_json_number(so, "eager", &v, 0, "smpi", err, len))
        return -1;
    m->eager = (long long) v;
    return 0;
}

static int load_gamma(json_object *root, ch4coll_machine_t *m, char *err,
                      size_t len)
{
    json_object *go;

    if (!json_object_object_get_ex(root, "gamma", &go))
        return 0;
    if (!json_object_is_type(go, json_type_object)) {
        snprintf(err, len, "\"gamma\" is not an object");
        return -1;
    }
    json_object_object_foreach(go, key, val)
    {
        ch4coll_machine_gamma_t *g = &m->gamma[m->ngamma];
        const char *colon = strchr(key, ':');
        double v;

        if (strcmp(key, "host_sum:double") == 0) {
            if (ch4coll_json_number(go, key, &m->host_gamma, 1, "gamma", err,
                                    len))
                return -1;
            continue;
        }
        if (!colon || (size_t) (colon - key) >= sizeof g->op ||
            strlen(colon + 1) >= sizeof g->type ||
            m->ngamma == CH4COLL_MACHINE_MAX_GAMMA) {
            snprintf(err, len, "gamma: \"%s\" is not op:type (or too many)",
                     key);
            return -1;
        }
        (void) val;
        if (ch4coll_json_number(go, key, &v, 1, "gamma", err, len))
            return -1;
        memcpy(g->op, key, (size_t) (colon - key));
        g->op[colon - key] = '\0';
        strcpy(g->type, colon + 1);
        g->seconds_per_byte = v;
        m->ngamma++;
    }
    return 0;
}

int ch4coll_machine_load(const char *path, ch4coll_machine_t *m, char *err,
                         size_t len)
{
    json_object *root;
    char why[256];
    int rc;

    ch4coll_machine_init(m);
    root = json_object_from_file(path);
    if (!root) {
        snprintf(err, len, "%s: cannot read it as JSON (%s)", path,
                 json_util_get_last_err());
        return -1;
    }
    rc = json_object_is_type(root, json_type_object) ? 0 : -1;
    if (rc)
        snprintf(why, sizeof why, "not a JSON object");
    if (!rc)
        rc = get_string(root, "name", m->name, sizeof m->name, why,
                        sizeof why) ||
             get_string(root, "made_by", m->made_by, sizeof m->made_by, why,
                        sizeof why) ||
             get_string(root, "date", m->date, sizeof m->date, why,
                        sizeof why) ||
             get_string(root, "mpi", m->mpi, sizeof m->mpi, why, sizeof why) ||
             load_model(root, m, why, sizeof why) ||
             load_smpi(root, m, why, sizeof why) ||
             load_gamma(root, m, why, sizeof why);
    json_object_put(root);
    if (rc)
        snprintf(err, len, "%s: %s", path, why);
    return rc ? -1 : 0;
}

static const struct {
    const char *name;
    MPI_Op op;
} ops[] = {{"sum", MPI_SUM},   {"prod", MPI_PROD}, {"max", MPI_MAX},
           {"min", MPI_MIN},   {"band", MPI_BAND}, {"bor", MPI_BOR},
           {"bxor", MPI_BXOR}, {"land", MPI_LAND}};

static const struct {
    const char *name;
    MPI_Datatype dt;
    size_t size;
} types[] = {{"double", MPI_DOUBLE, sizeof(double)},
             {"float", MPI_FLOAT, sizeof(float)},
             {"int", MPI_INT, sizeof(int)},
             {"long", MPI_LONG, sizeof(long)},
             {"unsigned_char", MPI_UNSIGNED_CHAR, 1}};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* Seconds per byte of fn on `bytes`-byte vectors: the median of 7 runs
 * after one warm-up. */
static double time_kernel(ch4coll_kernel_fn fn, unsigned char *in,
                          unsigned char *io, size_t bytes, size_t elem)
{
    double t[7];
    int i;

    for (i = -1; i < 7; i++) {
        double t0 = now();
        fn(in, io, bytes / elem);
        if (i >= 0)
            t[i] = now() - t0;
    }
    qsort(t, 7, sizeof t[0], cmp_double);
    return t[3] / (double) bytes;
}

int ch4coll_machine_gamma(ch4coll_machine_t *m, size_t bytes, char *err,
                          size_t len)
{
    unsigned char *in = malloc(bytes), *io = malloc(bytes);
    size_t i, j;

    if (!in || !io) {
        free(in);
        free(io);
        snprintf(err, len, "out of memory for two %zu-byte vectors", bytes);
        return -1;
    }
    /* small values: no overflow, no denormals, no infinities */
    for (i = 0; i < bytes; i++)
        in[i] = io[i] = (unsigned char) (1 + i % 7);
    m->ngamma = 0;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (j = 0; j < sizeof types / sizeof types[0]; j++) {
            ch4coll_kernel_fn fn = ch4coll_kernel_find(types[j].dt, ops[i].op);
            ch4coll_machine_gamma_t *g = &m->gamma[m->ngamma];

            if (!fn || m->ngamma == CH4COLL_MACHINE_MAX_GAMMA)
                continue;
            snprintf(g->op, sizeof g->op, "%s", ops[i].name);
            snprintf(g->type, sizeof g->type, "%s", types[j].name);
            g->seconds_per_byte = time_kernel(fn, in, io, bytes, types[j].size);
            if (ops[i].op == MPI_SUM && types[j].dt == MPI_DOUBLE)
                m->model.gamma = g->seconds_per_byte;
            m->ngamma++;
        }
    free(in);
    free(io);
    if (m->ngamma == 0) {
        snprintf(err, len, "no reduction kernel found");
        return -1;
    }
    return 0;
}

/* "key": "value", with the value escaped for JSON */
static void put_string(FILE *f, const char *key, const char *s)
{
    fprintf(f, "  \"%s\": \"", key);
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fprintf(f, "\",\n");
}

void ch4coll_machine_write(FILE *f, const ch4coll_machine_t *m,
                           const char *extra)
{
    const ch4coll_model_t *md = &m->model;
    int i;

    fprintf(f, "{\n");
    put_string(f, "name", m->name);
    put_string(f, "made_by", m->made_by);
    put_string(f, "date", m->date);
    put_string(f, "mpi", m->mpi);
    fprintf(f,
            "  \"model\": {\"alpha\": %.4g, \"beta\": %.4g, \"gamma\": %.4g, "
            "\"alpha_node\": %.4g, \"beta_node\": %.4g, \"gap\": %.4g, "
            "\"eager\": %.0f},\n",
            md->alpha, md->beta, md->gamma, md->alpha_node, md->beta_node,
            md->gap, md->eager);
    fprintf(f,
            "  \"smpi\": {\"latency\": %.4g, \"bandwidth\": %.4g, \"eager\": "
            "%lld,\n"
            "           \"os\": \"%s\",\n           \"ois\": \"%s\",\n"
            "           \"or\": \"%s\"},\n",
            m->latency, m->bandwidth, m->eager, m->os, m->ois, m->or_);
    fprintf(f, "  \"gamma\": {");
    for (i = 0; i < m->ngamma; i++)
        fprintf(f, "%s\"%s:%s\": %.4g", i ? ",\n            " : "",
                m->gamma[i].op, m->gamma[i].type, m->gamma[i].seconds_per_byte);
    if (m->host_gamma > 0)
        fprintf(f, "%s\"host_sum:double\": %.4g",
                m->ngamma ? ",\n            " : "", m->host_gamma);
    fprintf(f, "}%s\n%s%s}\n", extra ? "," : "", extra ? extra : "",
            extra ? "\n" : "");
}
