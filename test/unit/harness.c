/*
 * harness.c - see harness.h.
 */
#include "harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/loop.h"
#include "select/select.h"
#include "transport/replay.h"

#define MOD  1000003
#define SENT 0xA5

static MPI_Datatype t_pair = MPI_DATATYPE_NULL, t_vec = MPI_DATATYPE_NULL;
static MPI_Op op_aff = MPI_OP_NULL, op_vsum = MPI_OP_NULL;
static uint64_t rerun_allocs;

typedef struct {
    int64_t a, b;
} val_t;

/* ------------------------------------------------------------ elements */

static void aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int stride = *dt == t_vec ? 3 : 2, boff = *dt == t_vec ? 2 : 1, i;
    int *x = in, *y = inout;

    for (i = 0; i < *len; i++) {
        int64_t a1 = x[i * stride], b1 = x[i * stride + boff];
        int64_t a2 = y[i * stride], b2 = y[i * stride + boff];
        y[i * stride] = (int) (a1 * a2 % MOD);
        y[i * stride + boff] = (int) ((b1 * a2 + b2) % MOD);
    }
}

/* A commutative user op on the vector type (MPICH defines MPI_SUM only
 * for types made of one predefined type contiguously). */
static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *x = in, *y = inout, i;

    (void) dt;
    for (i = 0; i < *len; i++) {
        y[3 * i] += x[3 * i];
        y[3 * i + 2] += x[3 * i + 2];
    }
}

void hz_setup(void)
{
    MPI_Type_contiguous(2, MPI_INT, &t_pair);
    MPI_Type_commit(&t_pair);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t_vec);
    MPI_Type_commit(&t_vec);
    MPI_Op_create(aff_fn, 0, &op_aff);
    MPI_Op_create(vsum_fn, 1, &op_vsum);
}

void hz_teardown(void)
{
    MPI_Type_free(&t_pair);
    MPI_Type_free(&t_vec);
    MPI_Op_free(&op_aff);
    MPI_Op_free(&op_vsum);
}

uint64_t hz_rerun_allocs(void)
{
    return rerun_allocs;
}

static size_t ext_of(int dtype)
{
    return dtype == HZ_INT_SUM ? 4 : dtype == HZ_PAIR_AFF ? 8 : 12;
}

static ch4coll_elem_t elem_of(int dtype)
{
    ch4coll_elem_t e = {MPI_INT, 4, 4, 0, 4, 1};

    if (dtype == HZ_PAIR_AFF) {
        e.dt = t_pair;
        e.size = e.extent = e.true_extent = 8;
    } else if (dtype == HZ_VEC_AFF || dtype == HZ_VEC_SUM) {
        e.dt = t_vec;
        e.size = 8;
        e.extent = e.true_extent = 12;
        e.dense = 0;
    }
    return e;
}

static val_t input_val(int dtype, int r, size_t i)
{
    val_t v;

    if (dtype == HZ_INT_SUM || dtype == HZ_VEC_SUM) {
        v.a = (int64_t) ((r * 7 + i * 13) % 1000) - 500;
        v.b = dtype == HZ_VEC_SUM ? (int64_t) ((r * 3 + i) % 100) : 0;
    } else {
        v.a = 1 + (int64_t) ((r * 31 + i * 17) % 1000);
        v.b = (int64_t) ((r * 7 + i * 3) % 1000);
    }
    return v;
}

static val_t combine(int dtype, val_t x, val_t y)
{
    val_t z;

    if (dtype == HZ_INT_SUM || dtype == HZ_VEC_SUM) {
        z.a = x.a + y.a;
        z.b = x.b + y.b;
    } else {
        z.a = x.a * y.a % MOD;
        z.b = (x.b * y.a + y.b) % MOD;
    }
    return z;
}

static void put(int dtype, unsigned char *buf, size_t i, val_t v)
{
    int *e = (int *) (buf + i * ext_of(dtype));

    e[0] = (int) v.a;
    if (dtype == HZ_PAIR_AFF)
        e[1] = (int) v.b;
    else if (dtype == HZ_VEC_AFF || dtype == HZ_VEC_SUM)
        e[2] = (int) v.b;
}

/* Fold of input_val(k, idx) for k in [lo, hi). */
static val_t fold(int dtype, int lo, int hi, size_t idx)
{
    val_t acc = input_val(dtype, lo, idx);
    int k;

    for (k = lo + 1; k < hi; k++)
        acc = combine(dtype, acc, input_val(dtype, k, idx));
    return acc;
}

static unsigned char data_byte(int r, int j, size_t i)
{
    return (unsigned char) ((r * 131 + j * 17 + (int) i * 7 + 1) & 0xff);
}

/* -------------------------------------------------------------- layout */

typedef struct {
    int p;
    size_t *c, *d; /* irregular counts / reverse displs */
    size_t vtotal;
    size_t **sc, **sd, **rc, **rd; /* alltoallv per rank */
    size_t *stot, *rtot;
    unsigned char **sbuf, **rbuf, **sinit, **exp, **care;
    size_t *ssz, *rsz;
    int *node_of; /* virtual placement (hz_case_t.ppn > 0) */
    ch4coll_locality_t loc;
} world_t;

static size_t irr(size_t n, int j)
{
    return n == 0 ? 0 : (j % 3 == 1 ? 0 : n + (size_t) (j % 4));
}

static size_t a2a_count(size_t n, int i, int j, int sym)
{
    if (sym && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    return n == 0 ? 0 : ((i + 2 * j) % 3 == 0 ? 0 : n + (size_t) ((i * j) % 3));
}

/* Reverse-order displacements with one unit of gap; returns the span. */
static size_t reverse_displs(const size_t *c, size_t *d, int p)
{
    size_t pos = 1;
    int j;

    for (j = p - 1; j >= 0; j--) {
        d[j] = pos;
        pos += c[j] + 1;
    }
    return pos;
}

static void *xcalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "harness: out of memory\n");
        exit(2);
    }
    return p;
}

static void world_free(world_t *w)
{
    int r;

    for (r = 0; r < w->p; r++) {
        free(w->sbuf[r]);
        free(w->rbuf[r]);
        free(w->sinit[r]);
        free(w->exp[r]);
        free(w->care[r]);
        if (w->sc) {
            free(w->sc[r]);
            free(w->sd[r]);
            free(w->rc[r]);
            free(w->rd[r]);
        }
    }
    free(w->sbuf);
    free(w->rbuf);
    free(w->sinit);
    free(w->exp);
    free(w->care);
    free(w->ssz);
    free(w->rsz);
    free(w->c);
    free(w->d);
    free(w->sc);
    free(w->sd);
    free(w->rc);
    free(w->rd);
    free(w->stot);
    free(w->rtot);
    free(w->node_of);
}

/* Sizes of every rank's buffers (units: elements or bytes). */
static void sizes(const hz_case_t *c, world_t *w, int r, size_t *ss, size_t *rs)
{
    int p = c->p, root = r == c->root;
    size_t n = c->n;

    *ss = *rs = 0;
    switch (c->algo->coll) {
    case CH4COLL_BCAST:
        *rs = n;
        break;
    case CH4COLL_GATHER:
        *ss = n;
        *rs = root ? p * n : 0;
        break;
    case CH4COLL_SCATTER:
        *ss = root ? p * n : 0;
        *rs = n;
        break;
    case CH4COLL_ALLGATHER:
        *ss = n;
        *rs = p * n;
        break;
    case CH4COLL_ALLGATHERV:
        *ss = w->c[r];
        *rs = w->vtotal;
        break;
    case CH4COLL_GATHERV:
        *ss = w->c[r];
        *rs = root ? w->vtotal : 0;
        break;
    case CH4COLL_SCATTERV:
        *ss = root ? w->vtotal : 0;
        *rs = w->c[r];
        break;
    case CH4COLL_ALLTOALL:
        *ss = *rs = p * n;
        break;
    case CH4COLL_ALLTOALLV:
        *ss = w->stot[r];
        *rs = w->rtot[r];
        break;
    case CH4COLL_REDUCE:
        *ss = n;
        *rs = root ? n : 0;
        break;
    case CH4COLL_ALLREDUCE:
    case CH4COLL_SCAN:
    case CH4COLL_EXSCAN:
        *ss = *rs = n;
        break;
    case CH4COLL_REDUCE_SCATTER_BLOCK:
        *ss = p * n;
        *rs = c->inplace ? p * n : n;
        break;
    case CH4COLL_REDUCE_SCATTER:
        *ss = w->vtotal;
        *rs = c->inplace ? w->vtotal : w->c[r];
        break;
    default:
        break;
    }
}

static void setup_v(const hz_case_t *c, world_t *w)
{
    int p = c->p, r, j, sym = c->inplace;

    w->c = xcalloc((size_t) p * sizeof *w->c);
    w->d = xcalloc((size_t) p * sizeof *w->d);
    for (j = 0; j < p; j++)
        w->c[j] = irr(c->n, j);
    if (c->algo->coll == CH4COLL_REDUCE_SCATTER) {
        size_t pos = 0; /* MPI: blocks follow each other */
        for (j = 0; j < p; j++) {
            w->d[j] = pos;
            pos += w->c[j];
        }
        w->vtotal = pos;
    } else {
        w->vtotal = reverse_displs(w->c, w->d, p);
    }
    if (c->algo->coll != CH4COLL_ALLTOALLV)
        return;
    w->sc = xcalloc((size_t) p * sizeof *w->sc);
    w->sd = xcalloc((size_t) p * sizeof *w->sd);
    w->rc = xcalloc((size_t) p * sizeof *w->rc);
    w->rd = xcalloc((size_t) p * sizeof *w->rd);
    w->stot = xcalloc((size_t) p * sizeof *w->stot);
    w->rtot = xcalloc((size_t) p * sizeof *w->rtot);
    for (r = 0; r < p; r++) {
        w->sc[r] = xcalloc((size_t) p * sizeof(size_t));
        w->sd[r] = xcalloc((size_t) p * sizeof(size_t));
        w->rc[r] = xcalloc((size_t) p * sizeof(size_t));
        w->rd[r] = xcalloc((size_t) p * sizeof(size_t));
        for (j = 0; j < p; j++) {
            w->sc[r][j] = a2a_count(c->n, r, j, sym);
            w->rc[r][j] = a2a_count(c->n, j, r, sym);
        }
        w->stot[r] = reverse_displs(w->sc[r], w->sd[r], p);
        w->rtot[r] = reverse_displs(w->rc[r], w->rd[r], p);
        if (sym) { /* in place: one layout for both */
            memcpy(w->sd[r], w->rd[r], (size_t) p * sizeof(size_t));
            w->stot[r] = w->rtot[r];
        }
    }
}

/* --------------------------------------------------- inputs, expectation */

/* Fill the send buffer (or the in-place receive buffer) of rank r. */
static void fill_inputs(const hz_case_t *c, world_t *w, int r)
{
    int p = c->p, j, coll = c->algo->coll,
        red = ch4coll_coll_is_reduction(coll);
    size_t n = c->n, i;
    unsigned char *s = w->sbuf[r], *rb = w->rbuf[r];
    int root = r == c->root;

    memset(s, 0x3C, w->ssz[r] + 64);
    memset(rb, SENT, w->rsz[r] + 64);
    if (red) {
        size_t cnt = w->ssz[r] / ext_of(c->dtype);
        unsigned char *dst =
            c->inplace && (coll != CH4COLL_REDUCE || root) ? rb : s;
        for (i = 0; i < cnt; i++)
            put(c->dtype, dst, i, input_val(c->dtype, r, i));
        return;
    }
    switch (coll) {
    case CH4COLL_BCAST:
        if (root)
            for (i = 0; i < n; i++)
                rb[i] = data_byte(r, 0, i);
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
        for (i = 0; i < n; i++) {
            s[i] = data_byte(r, 0, i);
            if (c->inplace && (coll == CH4COLL_ALLGATHER || root))
                rb[(size_t) r * n + i] = data_byte(r, 0, i);
        }
        break;
    case CH4COLL_GATHERV:
    case CH4COLL_ALLGATHERV:
        for (i = 0; i < w->c[r]; i++) {
            s[i] = data_byte(r, 0, i);
            if (c->inplace && (coll == CH4COLL_ALLGATHERV || root))
                rb[w->d[r] + i] = data_byte(r, 0, i);
        }
        break;
    case CH4COLL_SCATTER:
    case CH4COLL_ALLTOALL:
        if (coll == CH4COLL_SCATTER && !root)
            break;
        for (j = 0; j < p; j++)
            for (i = 0; i < n; i++)
                (coll == CH4COLL_ALLTOALL && c->inplace
                     ? rb
                     : s)[(size_t) j * n + i] = data_byte(r, j, i);
        break;
    case CH4COLL_SCATTERV:
        if (root)
            for (j = 0; j < p; j++)
                for (i = 0; i < w->c[j]; i++)
                    s[w->d[j] + i] = data_byte(r, j, i);
        break;
    case CH4COLL_ALLTOALLV:
        for (j = 0; j < p; j++)
            for (i = 0; i < w->sc[r][j]; i++)
                (c->inplace ? rb : s)[w->sd[r][j] + i] = data_byte(r, j, i);
        break;
    default:
        break;
    }
}

static void expect_bytes(world_t *w, int r, size_t off, const unsigned char *v,
                         size_t len)
{
    memcpy(w->exp[r] + off, v, len);
}

/* Expected receive buffer of rank r, starting from its initial image. */
static void expect(const hz_case_t *c, world_t *w, int r)
{
    int p = c->p, j, coll = c->algo->coll, root = r == c->root;
    size_t n = c->n, i;
    unsigned char *x = w->exp[r], b;

    memcpy(x, w->rbuf[r], w->rsz[r] + 64);
    memset(w->care[r], 1, w->rsz[r] + 64);
    switch (coll) {
    case CH4COLL_BCAST:
        for (i = 0; i < n; i++)
            x[i] = data_byte(c->root, 0, i);
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
        if (coll == CH4COLL_GATHER && !root)
            break;
        for (j = 0; j < p; j++)
            for (i = 0; i < n; i++)
                x[(size_t) j * n + i] = data_byte(j, 0, i);
        break;
    case CH4COLL_GATHERV:
    case CH4COLL_ALLGATHERV:
        if (coll == CH4COLL_GATHERV && !root)
            break;
        for (j = 0; j < p; j++)
            for (i = 0; i < w->c[j]; i++)
                x[w->d[j] + i] = data_byte(j, 0, i);
        break;
    case CH4COLL_SCATTER:
        if (!(root && c->inplace))
            for (i = 0; i < n; i++)
                x[i] = data_byte(c->root, r, i);
        break;
    case CH4COLL_SCATTERV:
        if (!(root && c->inplace))
            for (i = 0; i < w->c[r]; i++)
                x[i] = data_byte(c->root, r, i);
        break;
    case CH4COLL_ALLTOALL:
        for (j = 0; j < p; j++)
            for (i = 0; i < n; i++)
                x[(size_t) j * n + i] = data_byte(j, r, i);
        break;
    case CH4COLL_ALLTOALLV:
        for (j = 0; j < p; j++)
            for (i = 0; i < w->rc[r][j]; i++) {
                b = data_byte(j, r, i);
                expect_bytes(w, r, w->rd[r][j] + i, &b, 1);
            }
        break;
    case CH4COLL_REDUCE:
        if (root)
            for (i = 0; i < n; i++)
                put(c->dtype, x, i, fold(c->dtype, 0, p, i));
        break;
    case CH4COLL_ALLREDUCE:
        for (i = 0; i < n; i++)
            put(c->dtype, x, i, fold(c->dtype, 0, p, i));
        break;
    case CH4COLL_SCAN:
        for (i = 0; i < n; i++)
            put(c->dtype, x, i, fold(c->dtype, 0, r + 1, i));
        break;
    case CH4COLL_EXSCAN:
        if (r == 0) /* undefined by MPI */
            memset(w->care[r], 0, w->rsz[r]);
        else
            for (i = 0; i < n; i++)
                put(c->dtype, x, i, fold(c->dtype, 0, r, i));
        break;
    case CH4COLL_REDUCE_SCATTER_BLOCK:
    case CH4COLL_REDUCE_SCATTER: {
        size_t cnt = coll == CH4COLL_REDUCE_SCATTER ? w->c[r] : n;
        size_t off = coll == CH4COLL_REDUCE_SCATTER ? w->d[r] : (size_t) r * n;
        /* in place, the input beyond the result stays as it was: MPI
         * defines only the result, and the host MPI leaves the rest */
        for (i = 0; i < cnt; i++)
            put(c->dtype, x, i, fold(c->dtype, 0, p, off + i));
        break;
    }
    default:
        break;
    }
}

/* --------------------------------------------------------------- args */

static void make_args(const hz_case_t *c, world_t *w, int r, ch4coll_args_t *a)
{
    int coll = c->algo->coll, root = r == c->root;

    memset(a, 0, sizeof *a);
    a->coll = coll;
    a->rank = r;
    a->size = c->p;
    a->root = c->root;
    a->count = c->n;
    a->inplace = c->inplace;
    a->loc = c->ppn > 0 ? &w->loc : NULL;
    a->subselect = ch4coll_select_sub;
    if (coll == CH4COLL_BCAST || coll == CH4COLL_REDUCE ||
        coll == CH4COLL_GATHER || coll == CH4COLL_GATHERV ||
        coll == CH4COLL_SCATTER || coll == CH4COLL_SCATTERV)
        a->inplace = c->inplace && root;
    if (ch4coll_coll_is_reduction(coll)) {
        a->elem = elem_of(c->dtype);
        a->commutative = c->dtype == HZ_INT_SUM || c->dtype == HZ_VEC_SUM;
        a->op = c->dtype == HZ_INT_SUM   ? MPI_SUM
                : c->dtype == HZ_VEC_SUM ? op_vsum
                                         : op_aff;
    } else {
        ch4coll_elem_t b = {MPI_BYTE, 1, 1, 0, 1, 1};
        a->elem = b;
        a->commutative = 1;
        a->op = MPI_OP_NULL;
    }
    switch (coll) {
    case CH4COLL_ALLGATHERV:
    case CH4COLL_REDUCE_SCATTER:
        a->counts = w->c;
        a->displs = w->d;
        a->count = w->c[r];
        break;
    case CH4COLL_GATHERV:
        a->count = w->c[r];
        if (root) {
            a->counts = w->c;
            a->displs = w->d;
        }
        break;
    case CH4COLL_SCATTERV:
        a->count = w->c[r];
        if (root) {
            a->scounts = w->c;
            a->sdispls = w->d;
        }
        break;
    case CH4COLL_ALLTOALLV:
        a->counts = w->rc[r];
        a->displs = w->rd[r];
        a->scounts = w->sc[r];
        a->sdispls = w->sd[r];
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------- run */

static int compare(const hz_case_t *c, world_t *w, int r, char *err, size_t len)
{
    size_t i,
        unit = ch4coll_coll_is_reduction(c->algo->coll) ? ext_of(c->dtype) : 1;

    for (i = 0; i < w->rsz[r] + 64; i++)
        if (w->care[r][i] && w->rbuf[r][i] != w->exp[r][i]) {
            snprintf(err, len,
                     "rank %d: recvbuf byte %zu (element %zu) is "
                     "0x%02x, expected 0x%02x",
                     r, i, i / unit, w->rbuf[r][i], w->exp[r][i]);
            return -1;
        }
    if (memcmp(w->sbuf[r], w->sinit[r], w->ssz[r] + 64) != 0) {
        snprintf(err, len, "rank %d: the send buffer was modified", r);
        return -1;
    }
    return 0;
}

/* The parts of a run every case needs: v-arrays, the per-rank buffer
 * pointer arrays (entries NULL), p schedules and the parameters. */
static void world_open(const hz_case_t *c, world_t *w, ch4coll_sched_t **s,
                       ch4coll_sched_t ***sp, int64_t *params)
{
    int p = c->p;

    memset(w, 0, sizeof *w);
    w->p = p;
    setup_v(c, w);
    if (c->ppn > 0) {
        int r, *tmp = xcalloc((size_t) p * sizeof *tmp);
        w->node_of = xcalloc((size_t) p * sizeof *w->node_of);
        for (r = 0; r < p; r++)
            w->node_of[r] = ch4coll_virtual_node(r, p, c->ppn, c->map);
        w->loc.nodes = ch4coll_nodes_normalise(p, w->node_of, tmp);
        w->loc.consecutive = ch4coll_nodes_consecutive(p, w->node_of);
        w->loc.node_of = w->node_of;
        free(tmp);
    }
    w->sbuf = xcalloc((size_t) p * sizeof *w->sbuf);
    w->rbuf = xcalloc((size_t) p * sizeof *w->rbuf);
    w->sinit = xcalloc((size_t) p * sizeof *w->sinit);
    w->exp = xcalloc((size_t) p * sizeof *w->exp);
    w->care = xcalloc((size_t) p * sizeof *w->care);
    *s = xcalloc((size_t) p * sizeof **s);
    *sp = xcalloc((size_t) p * sizeof **sp);
    if (c->params)
        memcpy(params, c->params, CH4COLL_MAX_PARAMS * sizeof *params);
    else
        ch4coll_algo_default_params(c->algo, params);
}

/* Build and commit every rank's schedule; 0, or -1 with the failing rank
 * in err.  *formula (if not NULL) gets the cost function at the root. */
static int build_all(const hz_case_t *c, world_t *w, ch4coll_sched_t *s,
                     ch4coll_sched_t **sp, const int64_t *params,
                     const ch4coll_model_t *m, double *formula, char *err,
                     size_t errlen)
{
    int r, rc = 0;

    for (r = 0; r < c->p && rc == 0; r++) {
        ch4coll_args_t a;
        make_args(c, w, r, &a);
        if (formula && c->algo->cost && r == c->root)
            *formula = c->algo->cost(&a, params, m);
        if (ch4coll_sched_init(&s[r], &a.elem, a.op, r, c->p) != CH4COLL_OK ||
            c->algo->build(&s[r], &a, params) != CH4COLL_OK ||
            ch4coll_sched_commit(&s[r]) != CH4COLL_OK) {
            snprintf(err, errlen, "building rank %d failed: %s", r,
                     ch4coll_strerror(s[r].status));
            rc = -1;
        }
        sp[r] = &s[r];
    }
    return rc;
}

int hz_run(const hz_case_t *c, char *err, size_t errlen)
{
    world_t w;
    ch4coll_sched_t *s;
    ch4coll_sched_t **sp;
    ch4coll_loop_t *loop;
    int p = c->p, r, rc, run, runs = c->runs > 0 ? c->runs : 1;
    int64_t params[CH4COLL_MAX_PARAMS];
    size_t unit;
    char msg[1024];

    world_open(c, &w, &s, &sp, params);
    unit = ch4coll_coll_is_reduction(c->algo->coll) ? ext_of(c->dtype) : 1;
    w.ssz = xcalloc((size_t) p * sizeof *w.ssz);
    w.rsz = xcalloc((size_t) p * sizeof *w.rsz);
    for (r = 0; r < p; r++) {
        sizes(c, &w, r, &w.ssz[r], &w.rsz[r]);
        w.sbuf[r] = xcalloc(w.ssz[r] * unit + 64);
        w.rbuf[r] = xcalloc(w.rsz[r] * unit + 64);
        w.sinit[r] = xcalloc(w.ssz[r] * unit + 64);
        w.exp[r] = xcalloc(w.rsz[r] * unit + 64);
        w.care[r] = xcalloc(w.rsz[r] * unit + 64);
    }
    /* sizes above are in units; the byte helpers below need bytes */
    for (r = 0; r < p; r++) {
        w.ssz[r] *= unit;
        w.rsz[r] *= unit;
    }
    rc = build_all(c, &w, s, sp, params, NULL, NULL, err, errlen);
    loop = ch4coll_loop_create(p, c->eager);
    for (run = 0; run < runs && rc == 0; run++) {
        uint64_t before;
        for (r = 0; r < p; r++) {
            fill_inputs(c, &w, r);
            memcpy(w.sinit[r], w.sbuf[r], w.ssz[r] + 64);
            expect(c, &w, r);
        }
        before = ch4coll_alloc_calls();
        for (r = 0; r < p; r++) {
            ch4coll_args_t a;
            int scat;
            make_args(c, &w, r, &a); /* a.inplace: this rank's flag */
            /* MPI_IN_PLACE replaces the send buffer, or for scatter(v)
             * the receive buffer */
            scat = a.coll == CH4COLL_SCATTER || a.coll == CH4COLL_SCATTERV;
            ch4coll_sched_start(&s[r], a.inplace && !scat ? NULL : w.sbuf[r],
                                a.inplace && scat ? NULL : w.rbuf[r], 0,
                                &ch4coll_transport_loop,
                                ch4coll_loop_ctx(loop, r));
        }
        if (ch4coll_loop_run(loop, sp, msg, sizeof msg) != CH4COLL_OK) {
            snprintf(err, errlen, "run %d: %s", run, msg);
            rc = -1;
            break;
        }
        if (run > 0)
            rerun_allocs += ch4coll_alloc_calls() - before;
        else
            rerun_allocs = 0;
        for (r = 0; r < p && rc == 0; r++)
            rc = compare(c, &w, r, err, errlen);
    }
    ch4coll_loop_destroy(loop);
    for (r = 0; r < p; r++)
        ch4coll_sched_destroy(&s[r]);
    free(s);
    free(sp);
    world_free(&w);
    return rc;
}

int hz_model(const hz_case_t *c, const ch4coll_model_t *m, double *t,
             double *formula, char *err, size_t errlen)
{
    world_t w;
    ch4coll_sched_t *s;
    ch4coll_sched_t **sp;
    int p = c->p, r, rc;
    int64_t params[CH4COLL_MAX_PARAMS];

    world_open(c, &w, &s, &sp, params); /* no data: buffers stay NULL */
    if (formula)
        *formula = -1;
    rc = build_all(c, &w, s, sp, params, m, formula, err, errlen);
    if (rc == 0 && ch4coll_replay(sp, p, m, c->ppn > 0 ? &w.loc : NULL, t, err,
                                  errlen) != CH4COLL_OK)
        rc = -1;
    for (r = 0; r < p; r++)
        ch4coll_sched_destroy(&s[r]);
    free(s);
    free(sp);
    world_free(&w);
    return rc;
}
