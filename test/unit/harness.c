/*
 * harness.c - see harness.h.
 */
#include "harness.h"

#include <mpi.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "sched/loop_run.h"
#include "transport/loop.h"
#include "select/select.h"
#include "model/bounds.h"
#include "model/replay.h"

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
    /* every case allocates and frees its buffers: keep the memory in the
     * heap rather than mapping and unmapping it each time (page faults and
     * UCX's memory hooks were a fifth of the sweep's time) */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
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

/* Element i of rank r's input; salt 0 is hz_run's data, other salts give
 * each interleaved call (and each round) data of its own. */
static val_t input_val(int dtype, unsigned salt, int r, size_t i)
{
    size_t s = salt;
    val_t v;

    if (dtype == HZ_INT_SUM || dtype == HZ_VEC_SUM) {
        v.a = (int64_t) ((r * 7 + i * 13 + s * 29) % 1000) - 500;
        v.b = dtype == HZ_VEC_SUM ? (int64_t) ((r * 3 + i + s) % 100) : 0;
    } else {
        v.a = 1 + (int64_t) ((r * 31 + i * 17 + s * 5) % 1000);
        v.b = (int64_t) ((r * 7 + i * 3 + s * 11) % 1000);
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
static val_t fold(int dtype, unsigned salt, int lo, int hi, size_t idx)
{
    val_t acc = input_val(dtype, salt, lo, idx);
    int k;

    for (k = lo + 1; k < hi; k++)
        acc = combine(dtype, acc, input_val(dtype, salt, k, idx));
    return acc;
}

static unsigned char data_byte(unsigned salt, int r, int j, size_t i)
{
    return (unsigned char) ((r * 131 + j * 17 + (int) i * 7 + 1 +
                             (int) (salt * 53u)) &
                            0xff);
}

/* -------------------------------------------------------------- layout */

typedef struct {
    int p;
    size_t *c, *d; /* irregular counts / reverse displs */
    size_t *fd;    /* allgatherv: the odd ranks' displs, in rank order */
    size_t vtotal;
    size_t **sc, **sd, **rc, **rd; /* alltoallv per rank */
    size_t *stot, *rtot;
    unsigned char **sbuf, **rbuf, **sinit, **exp, **care;
    size_t *ssz, *rsz;
    int *node_of; /* virtual placement (hz_case_t.ppn > 0) */
    ch4coll_locality_t loc;
    unsigned salt; /* which data: input_val(), data_byte() */
    val_t *fv;     /* folds(): fold(0, fhi, i) for i < fn */
    size_t fn;
    int fhi;
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

/* fold(dtype, salt, 0, hi, i) for i < len.  The ranks' expectations are
 * made in rank order, so a scan's prefix extends the one before and an
 * allreduce's is made once: folding every rank for every element of every
 * rank made the reference O(p^2 n). */
static const val_t *folds(world_t *w, int dtype, int hi, size_t len)
{
    size_t i;
    int k;

    if (w->fhi < 1 || w->fhi > hi || w->fn < len) {
        free(w->fv);
        w->fv = xcalloc((len ? len : 1) * sizeof *w->fv);
        w->fn = len;
        for (i = 0; i < len; i++)
            w->fv[i] = input_val(dtype, w->salt, 0, i);
        w->fhi = 1;
    }
    for (k = w->fhi; k < hi; k++)
        for (i = 0; i < w->fn; i++)
            w->fv[i] =
                combine(dtype, w->fv[i], input_val(dtype, w->salt, k, i));
    w->fhi = hi;
    return w->fv;
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
    free(w->fv);
    free(w->sbuf);
    free(w->rbuf);
    free(w->sinit);
    free(w->exp);
    free(w->care);
    free(w->ssz);
    free(w->rsz);
    free(w->c);
    free(w->d);
    free(w->fd);
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

/* The receive displacements of rank r: allgatherv's differ between ranks
 * (MPI lets every rank place the blocks in its own recvbuf), so a
 * schedule that assumed the peer's layout to be its own fails. */
static const size_t *rdispls(const world_t *w, int r)
{
    return w->fd && r % 2 ? w->fd : w->d;
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
    if (c->algo->coll == CH4COLL_ALLGATHERV) {
        size_t pos = 0; /* each rank's recvbuf is its own: odd ranks keep */
        w->fd = xcalloc((size_t) p * sizeof *w->fd); /* the blocks in order */
        for (j = 0; j < p; j++) {
            w->fd[j] = pos;
            pos += w->c[j];
        }
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
            put(c->dtype, dst, i, input_val(c->dtype, w->salt, r, i));
        return;
    }
    switch (coll) {
    case CH4COLL_BCAST:
        if (root)
            for (i = 0; i < n; i++)
                rb[i] = data_byte(w->salt, r, 0, i);
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
        for (i = 0; i < n; i++) {
            s[i] = data_byte(w->salt, r, 0, i);
            if (c->inplace && (coll == CH4COLL_ALLGATHER || root))
                rb[(size_t) r * n + i] = data_byte(w->salt, r, 0, i);
        }
        break;
    case CH4COLL_GATHERV:
    case CH4COLL_ALLGATHERV:
        for (i = 0; i < w->c[r]; i++) {
            s[i] = data_byte(w->salt, r, 0, i);
            if (c->inplace && (coll == CH4COLL_ALLGATHERV || root))
                rb[rdispls(w, r)[r] + i] = data_byte(w->salt, r, 0, i);
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
                     : s)[(size_t) j * n + i] = data_byte(w->salt, r, j, i);
        break;
    case CH4COLL_SCATTERV:
        if (root)
            for (j = 0; j < p; j++)
                for (i = 0; i < w->c[j]; i++)
                    s[w->d[j] + i] = data_byte(w->salt, r, j, i);
        break;
    case CH4COLL_ALLTOALLV:
        for (j = 0; j < p; j++)
            for (i = 0; i < w->sc[r][j]; i++)
                (c->inplace ? rb : s)[w->sd[r][j] + i] =
                    data_byte(w->salt, r, j, i);
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
    const val_t *v;

    memcpy(x, w->rbuf[r], w->rsz[r] + 64);
    memset(w->care[r], 1, w->rsz[r] + 64);
    switch (coll) {
    case CH4COLL_BCAST:
        for (i = 0; i < n; i++)
            x[i] = data_byte(w->salt, c->root, 0, i);
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
        if (coll == CH4COLL_GATHER && !root)
            break;
        for (j = 0; j < p; j++)
            for (i = 0; i < n; i++)
                x[(size_t) j * n + i] = data_byte(w->salt, j, 0, i);
        break;
    case CH4COLL_GATHERV:
    case CH4COLL_ALLGATHERV:
        if (coll == CH4COLL_GATHERV && !root)
            break;
        for (j = 0; j < p; j++)
            for (i = 0; i < w->c[j]; i++)
                x[rdispls(w, r)[j] + i] = data_byte(w->salt, j, 0, i);
        break;
    case CH4COLL_SCATTER:
        if (!(root && c->inplace))
            for (i = 0; i < n; i++)
                x[i] = data_byte(w->salt, c->root, r, i);
        break;
    case CH4COLL_SCATTERV:
        if (!(root && c->inplace))
            for (i = 0; i < w->c[r]; i++)
                x[i] = data_byte(w->salt, c->root, r, i);
        break;
    case CH4COLL_ALLTOALL:
        for (j = 0; j < p; j++)
            for (i = 0; i < n; i++)
                x[(size_t) j * n + i] = data_byte(w->salt, j, r, i);
        break;
    case CH4COLL_ALLTOALLV:
        for (j = 0; j < p; j++)
            for (i = 0; i < w->rc[r][j]; i++) {
                b = data_byte(w->salt, j, r, i);
                expect_bytes(w, r, w->rd[r][j] + i, &b, 1);
            }
        break;
    case CH4COLL_REDUCE:
        if (root)
            for (i = 0; i < n; i++)
                put(c->dtype, x, i, fold(c->dtype, w->salt, 0, p, i));
        break;
    case CH4COLL_ALLREDUCE:
        v = folds(w, c->dtype, p, n);
        for (i = 0; i < n; i++)
            put(c->dtype, x, i, v[i]);
        break;
    case CH4COLL_SCAN:
        v = folds(w, c->dtype, r + 1, n);
        for (i = 0; i < n; i++)
            put(c->dtype, x, i, v[i]);
        break;
    case CH4COLL_EXSCAN:
        if (r == 0) /* undefined by MPI */
            memset(w->care[r], 0, w->rsz[r]);
        else
            for (v = folds(w, c->dtype, r, n), i = 0; i < n; i++)
                put(c->dtype, x, i, v[i]);
        break;
    case CH4COLL_REDUCE_SCATTER_BLOCK:
    case CH4COLL_REDUCE_SCATTER: {
        size_t cnt = coll == CH4COLL_REDUCE_SCATTER ? w->c[r] : n;
        size_t off = coll == CH4COLL_REDUCE_SCATTER ? w->d[r] : (size_t) r * n;
        /* in place, the input beyond the result stays as it was: MPI
         * defines only the result, and the host MPI leaves the rest */
        v = folds(w, c->dtype, p,
                  coll == CH4COLL_REDUCE_SCATTER ? w->vtotal : (size_t) p * n);
        for (i = 0; i < cnt; i++)
            put(c->dtype, x, i, v[off + i]);
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
    a->model = c->model;
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
        a->displs = rdispls(w, r);
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

/* One call of the collective on every rank: its data, its p schedules and
 * the tags it uses on the loop world.  hz_run and hz_model use one; the
 * interleaved runner one per (case, clone). */
typedef struct {
    const hz_case_t *c;
    world_t w;
    ch4coll_sched_t *s;   /* p schedules */
    ch4coll_sched_t **sp; /* pointers to them, for ch4coll_loop_run() */
    int64_t params[CH4COLL_MAX_PARAMS];
    int tag_base;
    int ci, clone; /* interleaved: case index, clone number (0: built) */
} inst_t;

/* The parts of a call every case needs: v-arrays, locality, the per-rank
 * buffer pointer arrays (entries NULL), p schedules and the parameters. */
static void inst_open(inst_t *in, const hz_case_t *c)
{
    world_t *w = &in->w;
    int p = c->p, r;

    memset(in, 0, sizeof *in);
    in->c = c;
    w->p = p;
    setup_v(c, w);
    if (c->ppn > 0) {
        int *tmp = xcalloc((size_t) p * sizeof *tmp);
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
    in->s = xcalloc((size_t) p * sizeof *in->s);
    in->sp = xcalloc((size_t) p * sizeof *in->sp);
    for (r = 0; r < p; r++)
        in->sp[r] = &in->s[r];
    if (c->params)
        memcpy(in->params, c->params, CH4COLL_MAX_PARAMS * sizeof *c->params);
    else
        ch4coll_algo_default_params(c->algo, in->params);
}

/* Every rank's buffers (sizes in bytes, 64 bytes of margin each). */
static void inst_buffers(inst_t *in)
{
    const hz_case_t *c = in->c;
    world_t *w = &in->w;
    size_t unit =
        ch4coll_coll_is_reduction(c->algo->coll) ? ext_of(c->dtype) : 1;
    int r;

    w->ssz = xcalloc((size_t) c->p * sizeof *w->ssz);
    w->rsz = xcalloc((size_t) c->p * sizeof *w->rsz);
    for (r = 0; r < c->p; r++) {
        sizes(c, w, r, &w->ssz[r], &w->rsz[r]);
        w->ssz[r] *= unit;
        w->rsz[r] *= unit;
        w->sbuf[r] = xcalloc(w->ssz[r] + 64);
        w->rbuf[r] = xcalloc(w->rsz[r] + 64);
        w->sinit[r] = xcalloc(w->ssz[r] + 64);
        w->exp[r] = xcalloc(w->rsz[r] + 64);
        w->care[r] = xcalloc(w->rsz[r] + 64);
    }
}

static void inst_close(inst_t *in)
{
    int r;

    for (r = 0; r < in->w.p; r++)
        ch4coll_sched_destroy(&in->s[r]);
    free(in->s);
    free(in->sp);
    world_free(&in->w);
}

/* Build and commit every rank's schedule; 0, or -1 with the failing rank
 * in err.  *formula (if not NULL) gets the cost function at the root. */
static int inst_build(inst_t *in, const ch4coll_model_t *m, double *formula,
                      char *err, size_t errlen)
{
    const hz_case_t *c = in->c;
    ch4coll_sched_t *s = in->s;
    int r, rc = 0;

    for (r = 0; r < c->p && rc == 0; r++) {
        ch4coll_args_t a;
        make_args(c, &in->w, r, &a);
        if (formula && c->algo->cost && r == c->root)
            *formula = c->algo->cost(&a, in->params, m);
        if (ch4coll_sched_init(&s[r], &a.elem, a.op, r, c->p) != CH4COLL_OK ||
            c->algo->build(&s[r], &a, in->params) != CH4COLL_OK ||
            ch4coll_sched_commit(&s[r]) != CH4COLL_OK) {
            snprintf(err, errlen, "building rank %d failed: %s", r,
                     ch4coll_strerror(s[r].status));
            rc = -1;
        } else if (!(c->algo->restrictions & CH4COLL_R_NODES) &&
                   s[r].ntags != ch4coll_algo_ntags(c->algo, &a, in->params)) {
            /* compositions (R_NODES) sum their inner steps' counts and are
             * never an inner step themselves */
            snprintf(err, errlen,
                     "rank %d declares %d tags, the registry's ntags %d", r,
                     s[r].ntags, ch4coll_algo_ntags(c->algo, &a, in->params));
            rc = -1;
        }
    }
    return rc;
}

/* Every rank's schedule as a clone of the same rank's in src. */
static int inst_clone(inst_t *in, const inst_t *src, char *err, size_t errlen)
{
    int r, rc = CH4COLL_OK;

    for (r = 0; r < in->c->p && rc == CH4COLL_OK; r++) {
        rc = ch4coll_sched_clone(&in->s[r], &src->s[r]);
        if (rc != CH4COLL_OK)
            snprintf(err, errlen, "cloning rank %d failed: %s", r,
                     ch4coll_strerror(rc));
    }
    return rc == CH4COLL_OK ? 0 : -1;
}

/* Fresh inputs (salt chooses them), their images and the expectation. */
static void inst_fill(inst_t *in, unsigned salt)
{
    world_t *w = &in->w;
    int r;

    w->salt = salt;
    w->fhi = 0; /* folds() of other data */
    for (r = 0; r < in->c->p; r++) {
        fill_inputs(in->c, w, r);
        memcpy(w->sinit[r], w->sbuf[r], w->ssz[r] + 64);
        expect(in->c, w, r);
    }
}

/* Start every rank on the loop world with the instance's tags. */
static int inst_start(inst_t *in, ch4coll_loop_t *loop, char *err,
                      size_t errlen)
{
    world_t *w = &in->w;
    int r, rc = CH4COLL_OK;

    for (r = 0; r < in->c->p && rc == CH4COLL_OK; r++) {
        ch4coll_args_t a;
        int scat;
        make_args(in->c, w, r, &a); /* a.inplace: this rank's flag */
        /* MPI_IN_PLACE replaces the send buffer, or for scatter(v) the
         * receive buffer */
        scat = a.coll == CH4COLL_SCATTER || a.coll == CH4COLL_SCATTERV;
        rc = ch4coll_sched_start(
            &in->s[r], a.inplace && !scat ? NULL : w->sbuf[r],
            a.inplace && scat ? NULL : w->rbuf[r], in->tag_base,
            &ch4coll_transport_loop, ch4coll_loop_ctx(loop, r));
        if (rc != CH4COLL_OK)
            snprintf(err, errlen, "starting rank %d failed: %s", r,
                     ch4coll_strerror(rc));
    }
    return rc == CH4COLL_OK ? 0 : -1;
}

/* Every rank's buffers against the reference. */
static int inst_check(inst_t *in, char *err, size_t errlen)
{
    int r, rc = 0;

    for (r = 0; r < in->c->p && rc == 0; r++)
        rc = compare(in->c, &in->w, r, err, errlen);
    return rc;
}

int hz_run(const hz_case_t *c, char *err, size_t errlen)
{
    inst_t in;
    ch4coll_loop_t *loop;
    int rc, run, runs = c->runs > 0 ? c->runs : 1;
    char msg[1024];

    inst_open(&in, c);
    inst_buffers(&in);
    rc = inst_build(&in, NULL, NULL, err, errlen);
    loop = ch4coll_loop_create(c->p, c->eager);
    for (run = 0; run < runs && rc == 0; run++) {
        uint64_t before;
        inst_fill(&in, 0);
        before = ch4coll_alloc_calls();
        rc = inst_start(&in, loop, err, errlen);
        if (rc == 0 &&
            ch4coll_loop_run(loop, in.sp, msg, sizeof msg) != CH4COLL_OK) {
            snprintf(err, errlen, "run %d: %s", run, msg);
            rc = -1;
        }
        if (rc != 0)
            break;
        if (run > 0)
            rerun_allocs += ch4coll_alloc_calls() - before;
        else
            rerun_allocs = 0;
        rc = inst_check(&in, err, errlen);
    }
    ch4coll_loop_destroy(loop);
    inst_close(&in);
    return rc;
}

int hz_model(const hz_case_t *c, const ch4coll_model_t *m, double *t,
             double *formula, char *err, size_t errlen)
{
    inst_t in;
    int rc;

    inst_open(&in, c); /* no data: buffers stay NULL */
    if (formula)
        *formula = -1;
    rc = inst_build(&in, m, formula, err, errlen);
    if (rc == 0 && ch4coll_replay(in.sp, c->p, m, c->ppn > 0 ? &in.w.loc : NULL,
                                  t, err, errlen) != CH4COLL_OK)
        rc = -1;
    inst_close(&in);
    return rc;
}

/* The elements every rank sends to every peer over the built schedules,
 * into sends[rank p + peer] (zeroed first), and the node map the case
 * placed the ranks on into node_of[p] (NULL: not wanted). */
static int peer_sends(const hz_case_t *c, double *sends, int *node_of,
                      char *err, size_t errlen)
{
    inst_t in;
    int rc, r, v;

    inst_open(&in, c); /* no data: buffers stay NULL */
    for (r = 0; r < c->p * c->p; r++)
        sends[r] = 0;
    rc = inst_build(&in, &ch4coll_model_default, NULL, err, errlen);
    for (r = 0; rc == 0 && r < c->p; r++)
        for (v = 0; v < in.s[r].nv; v++) {
            const ch4coll_vtx_t *x = &in.s[r].vtx[v];

            if (x->kind == CH4COLL_V_SEND)
                sends[r * c->p + x->peer] += (double) x->count;
        }
    for (r = 0; node_of && r < c->p; r++)
        node_of[r] = in.w.node_of[r];
    inst_close(&in);
    return rc;
}

int hz_peer_sends(const hz_case_t *c, double *sends, char *err, size_t errlen)
{
    return peer_sends(c, sends, NULL, err, errlen);
}

/* Kuhn's augmenting path from left vertex i of the comparability graph
 * of n sends (before[i n + j]: send i is an ancestor of send j). */
static int augment(const unsigned char *before, int n, int i, int *match,
                   unsigned char *seen)
{
    int j;

    for (j = 0; j < n; j++)
        if (before[i * n + j] && !seen[j]) {
            seen[j] = 1;
            if (match[j] < 0 || augment(before, n, match[j], match, seen)) {
                match[j] = i;
                return 1;
            }
        }
    return 0;
}

/* The largest set of sends to one peer none of which waits for another:
 * by Dilworth, the sends less a maximum matching of ancestor pairs (the
 * fewest chains that cover them). */
static int antichain(const uint64_t *anc, size_t words, const int *sends, int n)
{
    unsigned char *before = calloc((size_t) n * n + 1, 1),
                  *seen = malloc((size_t) n + 1);
    int *match = malloc(((size_t) n + 1) * sizeof *match), i, j, m = 0;

    if (!before || !seen || !match) {
        free(before);
        free(seen);
        free(match);
        return -1;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            before[i * n + j] =
                (anc[(size_t) sends[j] * words + (size_t) sends[i] / 64] >>
                 ((size_t) sends[i] % 64)) &
                1;
    for (j = 0; j < n; j++)
        match[j] = -1;
    for (i = 0; i < n; i++) {
        memset(seen, 0, (size_t) n);
        m += augment(before, n, i, match, seen);
    }
    free(before);
    free(seen);
    free(match);
    return n - m;
}

/* One rank's committed schedule: over its peers, the largest set of sends
 * to one peer none of which waits for another (directly or through
 * others).  Successors come after their vertex, so the ancestor sets
 * fill in vertex order. */
static int rank_sends_in_flight(const ch4coll_sched_t *s, int p, int *most)
{
    size_t nv = (size_t) s->nv, words = nv / 64 + 1, v, u, w;
    uint64_t *anc = calloc(nv * words + 1, sizeof *anc); /* bit u of row v */
    int *sends = malloc((nv + 1) * sizeof *sends), j, q, n, a, rc = 0;

    if (!anc || !sends)
        rc = -1;
    for (u = 0; rc == 0 && u < nv; u++) {
        const ch4coll_vtx_t *x = &s->vtx[u];
        for (j = 0; rc == 0 && j < x->n_out; j++) {
            v = (size_t) s->succ[x->out_first + j];
            if (v <= u) { /* not built in order: no answer */
                rc = -1;
                break;
            }
            anc[v * words + u / 64] |= (uint64_t) 1 << (u % 64);
            for (w = 0; w < words; w++)
                anc[v * words + w] |= anc[u * words + w];
        }
    }
    for (q = 0; rc == 0 && q < p; q++) {
        for (n = 0, v = 0; v < nv; v++)
            if (s->vtx[v].kind == CH4COLL_V_SEND && s->vtx[v].peer == q)
                sends[n++] = (int) v;
        a = antichain(anc, words, sends, n);
        if (a < 0)
            rc = -1;
        else if (a > *most)
            *most = a;
    }
    free(anc);
    free(sends);
    return rc;
}

int hz_sends_in_flight(const hz_case_t *c, int *most, char *err, size_t errlen)
{
    inst_t in;
    int rc, r;

    *most = 0;
    inst_open(&in, c); /* no data: buffers stay NULL */
    rc = inst_build(&in, &ch4coll_model_default, NULL, err, errlen);
    for (r = 0; rc == 0 && r < c->p; r++)
        if (rank_sends_in_flight(&in.s[r], c->p, most) != 0) {
            snprintf(err, errlen,
                     "rank %d: out of memory, or a dep on a later vertex", r);
            rc = -1;
        }
    inst_close(&in);
    return rc;
}

int hz_node_sends(const hz_case_t *c, double *elems, char *err, size_t errlen)
{
    double *sends;
    int *node_of, rc, r, q;

    if (c->ppn <= 0) {
        snprintf(err, errlen, "hz_node_sends needs nodes (ppn > 0)");
        return -1;
    }
    sends = malloc((size_t) c->p * c->p * sizeof *sends);
    node_of = malloc((size_t) c->p * sizeof *node_of);
    rc = sends && node_of ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    else
        rc = peer_sends(c, sends, node_of, err, errlen);
    for (r = 0; rc == 0 && r < c->p; r++)
        elems[node_of[r]] = 0;
    for (r = 0; rc == 0 && r < c->p; r++)
        for (q = 0; q < c->p; q++)
            if (node_of[q] != node_of[r])
                elems[node_of[r]] += sends[r * c->p + q];
    free(sends);
    free(node_of);
    return rc;
}

double hz_bound(const hz_case_t *c, const ch4coll_model_t *m)
{
    inst_t in;
    ch4coll_args_t a;
    double lb;

    inst_open(&in, c);
    make_args(c, &in.w, c->root,
              &a); /* the root's arguments hold the v-arrays */
    lb = ch4coll_lower_bound(&a, m);
    inst_close(&in);
    return lb;
}

/* ------------------------------------------------ interleaved calls */

/* "case 2 (reduce hampath) clone 1", for messages. */
static const char *inst_name(const inst_t *in, char *buf, size_t len)
{
    snprintf(buf, len, "case %d (%s %s) clone %d", in->ci,
             ch4coll_coll_name(in->c->algo->coll), in->c->algo->name,
             in->clone);
    return buf;
}

/* One p, one transport mode: the calls share one loop world. */
static int check_cases(const hz_case_t *cases, int ncases, int clones,
                       char *err, size_t errlen)
{
    int i;

    if (ncases < 1 || clones < 1) {
        snprintf(err, errlen, "%d cases, %d clones: need at least one each",
                 ncases, clones);
        return -1;
    }
    for (i = 1; i < ncases; i++)
        if (cases[i].p != cases[0].p || cases[i].eager != cases[0].eager) {
            snprintf(err, errlen,
                     "case %d has p = %d, eager = %d; case 0 p = %d, "
                     "eager = %d: one loop world needs the same",
                     i, cases[i].p, cases[i].eager, cases[0].p, cases[0].eager);
            return -1;
        }
    return 0;
}

/* Every rank must declare the same number of tags: the library gives the
 * calls of a communicator consecutive tag ranges, each rank counting with
 * its own schedule's ntags. */
static int same_ntags(const inst_t *in, char *err, size_t errlen)
{
    int r;

    for (r = 1; r < in->c->p; r++)
        if (in->s[r].ntags != in->s[0].ntags) {
            snprintf(err, errlen, "rank %d declares %d tags, rank 0 %d", r,
                     in->s[r].ntags, in->s[0].ntags);
            return -1;
        }
    return 0;
}

/* Open, build or clone every instance: instance i is clone i % clones of
 * case i / clones, clone 0 the built original; the tag ranges follow each
 * other from 0. */
static int open_all(inst_t *in, const hz_case_t *cases, int ninst, int clones,
                    char *err, size_t errlen)
{
    int i, rc = 0, tag = 0;
    char msg[512], name[128];

    for (i = 0; i < ninst; i++) {
        inst_open(&in[i], &cases[i / clones]);
        inst_buffers(&in[i]);
        in[i].ci = i / clones;
        in[i].clone = i % clones;
    }
    for (i = 0; i < ninst && rc == 0; i++) {
        if (in[i].clone == 0)
            rc = inst_build(&in[i], NULL, NULL, msg, sizeof msg);
        else
            rc = inst_clone(&in[i], &in[i - in[i].clone], msg, sizeof msg);
        if (rc == 0)
            rc = same_ntags(&in[i], msg, sizeof msg);
        if (rc != 0)
            snprintf(err, errlen, "%s: %s",
                     inst_name(&in[i], name, sizeof name), msg);
        in[i].tag_base = tag;
        tag += in[i].s[0].ntags;
    }
    return rc;
}

/* xorshift32: the same seed gives the same interleaving. */
static unsigned next_rand(unsigned *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/*
 * The (instance, rank) pairs of a round: pair k is rank k % p of instance
 * k / p.  unfinished[0..nlive) are the unfinished pairs, and
 * unfinished[0..ncand) those of them not yet tried since something last
 * progressed; a round is deadlocked when every unfinished pair was tried
 * without progress.
 */
typedef struct {
    inst_t *in;
    int p;
    int *unfinished;
    int nlive, ncand;
    unsigned rng;
} drive_t;

static ch4coll_sched_t *pair_sched(const drive_t *d, int k)
{
    return &d->in[k / d->p].s[k % d->p];
}

static void swap_int(int *a, int i, int j)
{
    int t = a[i];

    a[i] = a[j];
    a[j] = t;
}

/* Progress one random untried pair; a transport error names it in *bad. */
static int drive_step(drive_t *d, int *bad)
{
    int j = (int) (next_rand(&d->rng) % (unsigned) d->ncand);
    ch4coll_sched_t *s = pair_sched(d, d->unfinished[j]);
    int progressed = 0, rc;

    rc = ch4coll_sched_progress(s, &progressed);
    if (rc != CH4COLL_OK) {
        *bad = d->unfinished[j];
        return rc;
    }
    if (ch4coll_sched_done(s)) {
        swap_int(d->unfinished, j, --d->nlive);
        d->ncand = d->nlive;
    } else if (progressed) {
        d->ncand = d->nlive;
    } else {
        swap_int(d->unfinished, j, --d->ncand);
    }
    return CH4COLL_OK;
}

/* What every unfinished pair waits for, appended to err. */
static void report_stuck(const drive_t *d, char *err, size_t errlen)
{
    size_t used = strlen(err);
    char name[128];
    int i, a;

    for (i = 0; i < d->nlive && used + 160 < errlen; i++) {
        const inst_t *in = &d->in[d->unfinished[i] / d->p];
        const ch4coll_sched_t *s = pair_sched(d, d->unfinished[i]);
        used += (size_t) snprintf(err + used, errlen - used, "; %s rank %d:",
                                  inst_name(in, name, sizeof name), s->rank);
        if (s->nact == 0)
            used += (size_t) snprintf(err + used, errlen - used,
                                      " nothing in flight, %d of %d done",
                                      s->ndone, s->nv);
        for (a = 0; a < s->nact && used + 160 < errlen; a++) {
            const ch4coll_vtx_t *v = &s->vtx[s->act[a]];
            used += (size_t) snprintf(err + used, errlen - used,
                                      " %s %s %d tag %d+%d",
                                      ch4coll_vkind_name(v->kind),
                                      v->kind == CH4COLL_V_SEND ? "to" : "from",
                                      v->peer, s->tag_base, v->tag);
        }
    }
    if (i < d->nlive)
        snprintf(err + used, errlen - used, "; ...");
}

/* Progress every started instance in a random order until all are done.
 * tmsg: where the loop world describes its errors. */
static int drive(inst_t *in, int ninst, unsigned seed, const char *tmsg,
                 char *err, size_t errlen)
{
    drive_t d;
    int k, bad = -1, rc = CH4COLL_OK;
    char name[128];

    d.in = in;
    d.p = in[0].c->p;
    d.unfinished =
        xcalloc((size_t) ninst * (size_t) d.p * sizeof *d.unfinished);
    d.nlive = 0;
    d.rng = (seed ^ 0x9e3779b9u) ? seed ^ 0x9e3779b9u : 1;
    for (k = 0; k < ninst * d.p; k++)
        if (!ch4coll_sched_done(pair_sched(&d, k)))
            d.unfinished[d.nlive++] = k;
    d.ncand = d.nlive;
    while (d.ncand > 0 && rc == CH4COLL_OK)
        rc = drive_step(&d, &bad);
    if (rc != CH4COLL_OK) {
        snprintf(err, errlen, "%s rank %d: %s%s%s",
                 inst_name(&in[bad / d.p], name, sizeof name), bad % d.p,
                 ch4coll_strerror(rc), tmsg[0] ? ": " : "", tmsg);
    } else if (d.nlive > 0) {
        snprintf(err, errlen, "deadlock");
        report_stuck(&d, err, errlen);
        rc = CH4COLL_ERR_DEADLOCK;
    }
    free(d.unfinished);
    return rc == CH4COLL_OK ? 0 : -1;
}

/* One round: fresh inputs, start everything, interleave, check. */
static int run_round(inst_t *in, int ninst, ch4coll_loop_t *loop, int round,
                     unsigned seed, char *err, size_t errlen)
{
    char tmsg[512], msg[1024], name[128];
    uint64_t before;
    int i, rc = 0;

    for (i = 0; i < ninst; i++)
        inst_fill(&in[i], (unsigned) (1 + round * ninst + i));
    ch4coll_loop_begin(loop, tmsg, sizeof tmsg);
    before = ch4coll_alloc_calls();
    for (i = 0; i < ninst && rc == 0; i++)
        if (inst_start(&in[i], loop, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "round %d: %s: %s", round,
                     inst_name(&in[i], name, sizeof name), msg);
            rc = -1;
        }
    if (rc == 0 && drive(in, ninst, seed, tmsg, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "round %d: %s", round, msg);
        rc = -1;
    }
    if (rc == 0 && ch4coll_loop_end(loop) != CH4COLL_OK) {
        snprintf(err, errlen, "round %d: %s", round, tmsg);
        rc = -1;
    }
    rerun_allocs = round > 0 ? ch4coll_alloc_calls() - before : 0;
    for (i = 0; i < ninst && rc == 0; i++)
        if (inst_check(&in[i], msg, sizeof msg) != 0) {
            snprintf(err, errlen, "round %d: %s: %s", round,
                     inst_name(&in[i], name, sizeof name), msg);
            rc = -1;
        }
    return rc;
}

int hz_run_interleaved(const hz_case_t *cases, int ncases, int clones,
                       unsigned seed, char *err, size_t errlen)
{
    int ninst = ncases * clones, i, round, rc;
    ch4coll_loop_t *loop;
    inst_t *in;

    if (check_cases(cases, ncases, clones, err, errlen) != 0)
        return -1;
    in = xcalloc((size_t) ninst * sizeof *in);
    rc = open_all(in, cases, ninst, clones, err, errlen);
    loop = ch4coll_loop_create(cases[0].p, cases[0].eager);
    for (round = 0; round < 2 && rc == 0; round++)
        rc = run_round(in, ninst, loop, round, seed + 0x9e3779b9u * round, err,
                       errlen);
    ch4coll_loop_destroy(loop);
    for (i = 0; i < ninst; i++)
        inst_close(&in[i]);
    free(in);
    return rc;
}
