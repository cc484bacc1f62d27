/*
 * sched.c - the schedule arena and its executor.
 *
 * Build: vertices are appended to one array (doubling), their dependency
 * lists to one flat int array.  A dependency must name an earlier vertex, so
 * every schedule is acyclic by construction.
 *
 * Commit: in-edges become CSR out-edges (succ[], one counting pass and one
 * fill pass), the in-degrees are kept for resetting the counters at start,
 * the vertices without dependencies are listed once, scratch buffers are
 * packed into one 64-byte aligned allocation (ring slots last, each as
 * large as its largest generation), and the run-time arrays
 * (counters, ready queue, in-flight list, request slots) are allocated.
 *
 * Run: start copies the in-degrees into the counters and queues the roots;
 * progress issues ready vertices in FIFO order (local copies and reductions
 * complete at once, sends and receives go to the transport) and tests the
 * in-flight requests; a completed vertex decrements its successors' counters
 * and queues those that reach zero.  Each vertex is queued exactly once per
 * run, so the queue is a plain array with head and tail.
 */
#include "sched.h"

#include <string.h>

#include "../util/util.h"

#define SCRATCH_ALIGN 64

static int fail(ch4coll_sched_t *s, int status)
{
    if (s->status == CH4COLL_OK)
        s->status = status;
    return -1;
}

int ch4coll_sched_init(ch4coll_sched_t *s, const ch4coll_elem_t *elem,
                       MPI_Op op, int rank, int size)
{
    memset(s, 0, sizeof *s);
    s->elem = *elem;
    s->op = op;
    s->kernel = op == MPI_OP_NULL ? NULL : ch4coll_kernel_find(elem->dt, op);
    s->rank = rank;
    s->size = size;
    s->ntags = 1;
    s->last_fence = -1;
    s->nbufs = CH4COLL_BUF_FIRST_SCRATCH;
    s->cap_bufs = 8;
    s->bufs = ch4coll_calloc((size_t) s->cap_bufs, sizeof *s->bufs);
    s->slot = -1;
    s->scratch_of = ch4coll_calloc((size_t) s->cap_bufs, sizeof *s->scratch_of);
    if (!s->bufs || !s->scratch_of)
        s->status = CH4COLL_ERR_NOMEM;
    return s->status;
}

void ch4coll_sched_destroy(ch4coll_sched_t *s)
{
    ch4coll_free(s->vtx);
    ch4coll_free(s->deps);
    ch4coll_free(s->bufs);
    ch4coll_free(s->scratch_of);
    ch4coll_scratch_free(s->scratch);
    ch4coll_free(s->succ);
    ch4coll_free(s->indeg);
    ch4coll_free(s->roots);
    ch4coll_free(s->pending);
    ch4coll_free(s->ready);
    ch4coll_free(s->act);
    ch4coll_free(s->reqs);
    ch4coll_free(s->done_idx);
    ch4coll_free(s->plan);
    memset(s, 0, sizeof *s);
}

void ch4coll_sched_set_ntags(ch4coll_sched_t *s, int ntags)
{
    if (s->view)
        s->view_ntags = ntags > 0 ? ntags : 1;
    else
        s->ntags = ntags > 0 ? ntags : 1;
}

void ch4coll_sched_push_view(ch4coll_sched_t *s, const ch4coll_view_t *v)
{
    if (s->view)
        fail(s, CH4COLL_ERR_ARG);
    s->view = v;
    s->view_ntags = 1;
}

int ch4coll_sched_pop_view(ch4coll_sched_t *s)
{
    s->view = NULL;
    return s->view_ntags;
}

int ch4coll_sched_join(ch4coll_sched_t *s, int first)
{
    int n = s->nv - first, i, j, k = 0, id;
    int32_t *mark;

    if (s->status != CH4COLL_OK || n <= 0)
        return -1;
    mark = ch4coll_calloc((size_t) n, sizeof *mark);
    if (!mark)
        return fail(s, CH4COLL_ERR_NOMEM);
    for (i = first; i < s->nv; i++)
        for (j = 0; j < s->vtx[i].n_in; j++)
            if (s->deps[s->vtx[i].in_first + j] >= first)
                mark[s->deps[s->vtx[i].in_first + j] - first] = 1;
    for (i = 0; i < n; i++)
        if (!mark[i])
            mark[k++] = first + i; /* k <= i: overwrites only seen marks */
    id = ch4coll_sched_sink(s, k, mark);
    ch4coll_free(mark);
    return id;
}

/* The view's translation of a buffer reference. */
static ch4coll_ref_t view_ref(const ch4coll_sched_t *s, ch4coll_ref_t r)
{
    if (s->view && (r.buf == CH4COLL_BUF_SEND || r.buf == CH4COLL_BUF_RECV)) {
        ch4coll_ref_t base = s->view->io[r.buf];
        r.buf = base.buf;
        r.off += base.off;
    }
    return r;
}

static size_t aligned(size_t bytes)
{
    return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
}

/* Scratch for nelems elements in slot (or of its own: -1). */
static int scratch_in(ch4coll_sched_t *s, size_t nelems, int slot)
{
    ch4coll_scratch_t *sc;

    if (s->status != CH4COLL_OK || s->committed)
        return fail(s, s->committed ? CH4COLL_ERR_ARG : s->status);
    if (s->nbufs == s->cap_bufs) {
        int cap = s->cap_bufs * 2;
        void **b = ch4coll_realloc(s->bufs, (size_t) cap * sizeof *b);
        if (!b)
            return fail(s, CH4COLL_ERR_NOMEM);
        s->bufs = b;
        sc = ch4coll_realloc(s->scratch_of, (size_t) cap * sizeof *sc);
        if (!sc)
            return fail(s, CH4COLL_ERR_NOMEM);
        s->scratch_of = sc;
        s->cap_bufs = cap;
    }
    sc = &s->scratch_of[s->nbufs];
    sc->bytes = 0;
    if (nelems > 0)
        sc->bytes = (nelems - 1) * s->elem.extent + s->elem.true_extent;
    sc->slot = slot;
    sc->off = 0;
    if (slot >= 0) {
        sc->off = s->slot_fill;
        s->slot_fill += aligned(sc->bytes);
        if (s->slot_fill > s->slot_bytes[slot])
            s->slot_bytes[slot] = s->slot_fill;
    }
    return s->nbufs++;
}

int ch4coll_sched_scratch(ch4coll_sched_t *s, size_t nelems)
{
    return scratch_in(s, nelems, s->slot);
}

int ch4coll_sched_scratch_own(ch4coll_sched_t *s, size_t nelems)
{
    return scratch_in(s, nelems, -1);
}

void ch4coll_sched_scratch_slot(ch4coll_sched_t *s, int slot)
{
    if (slot >= CH4COLL_SCRATCH_SLOTS) {
        fail(s, CH4COLL_ERR_ARG);
        return;
    }
    s->slot = slot < 0 ? -1 : slot;
    s->slot_fill = 0;
}

/* Dependencies that name a vertex (negative ones are ignored). */
static int valid_deps(int ndeps, const int *deps)
{
    int i, n = 0;

    for (i = 0; i < ndeps; i++)
        n += deps[i] >= 0;
    return n;
}

/* Append a vertex with its dependency list; returns its id or -1. */
static int add_vertex(ch4coll_sched_t *s, const ch4coll_vtx_t *proto, int ndeps,
                      const int *deps)
{
    ch4coll_vtx_t *v;
    int i, n = 0;

    if (s->status != CH4COLL_OK)
        return -1;
    if (s->committed)
        return fail(s, CH4COLL_ERR_ARG);
    if (s->view && valid_deps(ndeps, deps) == 0) {
        ndeps = s->view->ndeps; /* a first vertex of the step */
        deps = s->view->deps;
    }
    if (s->nv == s->cap_v) {
        int cap = s->cap_v ? 2 * s->cap_v : 16;
        ch4coll_vtx_t *nvtx =
            ch4coll_realloc(s->vtx, (size_t) cap * sizeof *nvtx);
        if (!nvtx)
            return fail(s, CH4COLL_ERR_NOMEM);
        s->vtx = nvtx;
        s->cap_v = cap;
    }
    if (s->ndeps + ndeps > s->cap_deps) {
        int cap = s->cap_deps ? 2 * s->cap_deps : 32;
        int32_t *nd;
        while (cap < s->ndeps + ndeps)
            cap *= 2;
        nd = ch4coll_realloc(s->deps, (size_t) cap * sizeof *nd);
        if (!nd)
            return fail(s, CH4COLL_ERR_NOMEM);
        s->deps = nd;
        s->cap_deps = cap;
    }
    v = &s->vtx[s->nv];
    *v = *proto;
    v->in_first = s->ndeps;
    for (i = 0; i < ndeps; i++) {
        if (deps[i] < 0)
            continue;
        if (deps[i] >= s->nv) /* only earlier vertices: no cycles */
            return fail(s, CH4COLL_ERR_ARG);
        s->deps[s->ndeps + n++] = deps[i];
    }
    v->n_in = n;
    s->ndeps += n;
    return s->nv++;
}

static int check_ref(ch4coll_sched_t *s, ch4coll_ref_t r)
{
    return r.buf >= 0 && r.buf < s->nbufs;
}

static int add_p2p(ch4coll_sched_t *s, int kind, ch4coll_ref_t buf,
                   size_t count, int peer, int tag, int ndeps, const int *deps)
{
    ch4coll_vtx_t v = {0};

    if (s->view) {
        if (peer < 0 || peer >= s->view->size)
            return fail(s, CH4COLL_ERR_ARG);
        peer = s->view->peers[peer];
        tag += s->view->tag_base;
        buf = view_ref(s, buf);
    }
    if (!check_ref(s, buf) || peer < 0 || peer >= s->size || tag < 0)
        return fail(s, CH4COLL_ERR_ARG);
    v.kind = (uint8_t) kind;
    v.peer = peer;
    v.tag = tag;
    v.a = buf;
    v.count = count;
    return add_vertex(s, &v, ndeps, deps);
}

int ch4coll_sched_send(ch4coll_sched_t *s, ch4coll_ref_t buf, size_t count,
                       int peer, int tag, int ndeps, const int *deps)
{
    return add_p2p(s, CH4COLL_V_SEND, buf, count, peer, tag, ndeps, deps);
}

int ch4coll_sched_recv(ch4coll_sched_t *s, ch4coll_ref_t buf, size_t count,
                       int peer, int tag, int ndeps, const int *deps)
{
    return add_p2p(s, CH4COLL_V_RECV, buf, count, peer, tag, ndeps, deps);
}

static int add_local(ch4coll_sched_t *s, int kind, ch4coll_ref_t a,
                     ch4coll_ref_t b, size_t count, int ndeps, const int *deps)
{
    ch4coll_vtx_t v = {0};

    a = view_ref(s, a);
    b = view_ref(s, b);
    if (!check_ref(s, a) || !check_ref(s, b))
        return fail(s, CH4COLL_ERR_ARG);
    v.kind = (uint8_t) kind;
    v.a = a;
    v.b = b;
    v.count = count;
    return add_vertex(s, &v, ndeps, deps);
}

int ch4coll_sched_reduce(ch4coll_sched_t *s, ch4coll_ref_t in,
                         ch4coll_ref_t inout, size_t count, int ndeps,
                         const int *deps)
{
    return add_local(s, CH4COLL_V_REDUCE, in, inout, count, ndeps, deps);
}

int ch4coll_sched_copy(ch4coll_sched_t *s, ch4coll_ref_t src, ch4coll_ref_t dst,
                       size_t count, int ndeps, const int *deps)
{
    return add_local(s, CH4COLL_V_COPY, src, dst, count, ndeps, deps);
}

int ch4coll_sched_sink(ch4coll_sched_t *s, int ndeps, const int *deps)
{
    ch4coll_vtx_t v = {0};

    v.kind = CH4COLL_V_SINK;
    return add_vertex(s, &v, ndeps, deps);
}

/* A fence depends on every vertex since the previous fence (and on that
 * fence), which by transitivity is every earlier vertex. */
int ch4coll_sched_fence(ch4coll_sched_t *s)
{
    ch4coll_vtx_t v = {0};
    int first = s->last_fence < 0 ? 0 : s->last_fence;
    int n = s->nv - first, i, id;
    int32_t *tmp;

    if (s->status != CH4COLL_OK)
        return -1;
    tmp = ch4coll_malloc((size_t) (n > 0 ? n : 1) * sizeof *tmp);
    if (!tmp)
        return fail(s, CH4COLL_ERR_NOMEM);
    for (i = 0; i < n; i++)
        tmp[i] = first + i;
    v.kind = CH4COLL_V_FENCE;
    id = add_vertex(s, &v, n, tmp);
    ch4coll_free(tmp);
    if (id >= 0)
        s->last_fence = id;
    return id;
}

/* One allocation: the buffers of their own in id order, then the slots. */
static int bind_scratch(ch4coll_sched_t *s)
{
    size_t total = ch4coll_sched_scratch_total(s), off = 0;
    size_t base[CH4COLL_SCRATCH_SLOTS];
    int b, r;

    if (total == 0)
        return CH4COLL_OK;
    s->scratch = ch4coll_scratch_alloc(total);
    if (!s->scratch)
        return CH4COLL_ERR_NOMEM;
    for (b = CH4COLL_BUF_FIRST_SCRATCH; b < s->nbufs; b++)
        if (s->scratch_of[b].slot < 0) {
            /* element 0's first byte is at base + true_lb */
            s->bufs[b] = (char *) s->scratch + off - s->elem.true_lb;
            off += aligned(s->scratch_of[b].bytes);
        }
    for (r = 0; r < CH4COLL_SCRATCH_SLOTS; r++) {
        base[r] = off;
        off += s->slot_bytes[r];
    }
    for (b = CH4COLL_BUF_FIRST_SCRATCH; b < s->nbufs; b++)
        if (s->scratch_of[b].slot >= 0)
            s->bufs[b] = (char *) s->scratch + base[s->scratch_of[b].slot] +
                         s->scratch_of[b].off - s->elem.true_lb;
    return CH4COLL_OK;
}

static int build_csr(ch4coll_sched_t *s)
{
    int i, j;

    s->indeg = ch4coll_malloc((size_t) (s->nv + 1) * sizeof *s->indeg);
    s->succ = ch4coll_malloc((size_t) (s->ndeps + 1) * sizeof *s->succ);
    s->roots = ch4coll_malloc((size_t) (s->nv + 1) * sizeof *s->roots);
    if (!s->indeg || !s->succ || !s->roots)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i < s->nv; i++)
        s->vtx[i].n_out = 0;
    for (i = 0; i < s->nv; i++) {
        ch4coll_vtx_t *v = &s->vtx[i];
        s->indeg[i] = v->n_in;
        for (j = 0; j < v->n_in; j++)
            s->vtx[s->deps[v->in_first + j]].n_out++;
        if (v->n_in == 0)
            s->roots[s->nroots++] = i;
    }
    j = 0;
    for (i = 0; i < s->nv; i++) {
        s->vtx[i].out_first = j;
        j += s->vtx[i].n_out;
        s->vtx[i].n_out = 0;
    }
    for (i = 0; i < s->nv; i++) {
        ch4coll_vtx_t *v = &s->vtx[i];
        for (j = 0; j < v->n_in; j++) {
            ch4coll_vtx_t *u = &s->vtx[s->deps[v->in_first + j]];
            s->succ[u->out_first + u->n_out++] = i;
        }
    }
    return CH4COLL_OK;
}

/* Whether vertex `to` depends on `from`, through the out-edges; pending
 * and ready serve as the marks and the stack (the schedule is not
 * running). */
static int depends_on(ch4coll_sched_t *s, int to, int from)
{
    int top = 0, j;

    memset(s->pending, 0, (size_t) s->nv * sizeof *s->pending);
    s->ready[top++] = from;
    s->pending[from] = 1;
    while (top > 0) {
        const ch4coll_vtx_t *u = &s->vtx[s->ready[--top]];
        for (j = 0; j < u->n_out; j++) {
            int w = s->succ[u->out_first + j];
            if (w == to)
                return 1;
            if (!s->pending[w]) {
                s->pending[w] = 1;
                s->ready[top++] = w;
            }
        }
    }
    return 0;
}

/* At most one send and one receive, neither after the other. */
static int is_exchange(ch4coll_sched_t *s)
{
    int i, snd = -1, rcv = -1;

    if (s->ncomm > 2)
        return 0;
    for (i = 0; i < s->nv; i++) {
        int k = s->vtx[i].kind;
        if (k == CH4COLL_V_SEND && snd < 0)
            snd = i;
        else if (k == CH4COLL_V_RECV && rcv < 0)
            rcv = i;
        else if (k == CH4COLL_V_SEND || k == CH4COLL_V_RECV)
            return 0;
    }
    return snd < 0 || rcv < 0 ||
           (!depends_on(s, rcv, snd) && !depends_on(s, snd, rcv));
}

static int plan_exchange(ch4coll_sched_t *s);
int ch4coll_sched_commit(ch4coll_sched_t *s)
{
    int i, rc;
    size_t n;

    if (s->status != CH4COLL_OK)
        return s->status;
    for (i = 0; i < s->nv; i++) {
        int k = s->vtx[i].kind;
        if (k == CH4COLL_V_SEND || k == CH4COLL_V_RECV) {
            s->ncomm++;
            if (s->vtx[i].tag >= s->ntags) /* builder bug */
                return s->status = CH4COLL_ERR_ARG;
        }
    }
    rc = build_csr(s);
    if (rc == CH4COLL_OK)
        rc = bind_scratch(s);
    if (rc != CH4COLL_OK)
        return s->status = rc;
    n = (size_t) (s->nv + 1);
    s->pending = ch4coll_malloc(n * sizeof *s->pending);
    s->ready = ch4coll_malloc(n * sizeof *s->ready);
    n = (size_t) (s->ncomm + 1);
    s->act = ch4coll_malloc(n * sizeof *s->act);
    s->reqs = ch4coll_malloc(n * CH4COLL_REQ_MAX);
    s->done_idx = ch4coll_malloc(n * sizeof *s->done_idx);
    if (!s->pending || !s->ready || !s->act || !s->reqs || !s->done_idx)
        return s->status = CH4COLL_ERR_NOMEM;
    if (is_exchange(s) && (rc = plan_exchange(s)) != CH4COLL_OK)
        return s->status = rc;
    /* the build-time dependency lists are no longer needed */
    ch4coll_free(s->deps);
    s->deps = NULL;
    s->committed = 1;
    s->ndone = s->nv; /* not running */
    return CH4COLL_OK;
}

size_t ch4coll_sched_scratch_total(const ch4coll_sched_t *s)
{
    size_t total = 0;
    int b, r;

    for (b = CH4COLL_BUF_FIRST_SCRATCH; b < s->nbufs; b++)
        if (s->scratch_of[b].slot < 0)
            total += aligned(s->scratch_of[b].bytes);
    for (r = 0; r < CH4COLL_SCRATCH_SLOTS; r++)
        total += s->slot_bytes[r];
    return total;
}

size_t ch4coll_sched_bytes(const ch4coll_sched_t *s)
{
    size_t nv = (size_t) (s->nv + 1), nc = (size_t) (s->ncomm + 1);

    return sizeof *s + (size_t) s->cap_v * sizeof *s->vtx +
           (size_t) s->cap_deps * sizeof *s->deps +
           (size_t) (s->ndeps + 1) * sizeof *s->succ +
           nv * (sizeof *s->indeg + sizeof *s->roots + sizeof *s->pending +
                 sizeof *s->ready) +
           nc * (sizeof *s->act + CH4COLL_REQ_MAX + sizeof *s->done_idx) +
           (s->plan ? nv * sizeof *s->plan : 0) +
           (size_t) s->cap_bufs * (sizeof *s->bufs + sizeof *s->scratch_of) +
           ch4coll_sched_scratch_total(s);
}

/* A fresh copy of n bytes of src (NULL when n is 0 or src is NULL). */
static void *dup_bytes(const void *src, size_t n, int *nomem)
{
    void *d;

    if (!src || n == 0)
        return NULL;
    d = ch4coll_malloc(n);
    if (!d)
        *nomem = 1;
    else
        memcpy(d, src, n);
    return d;
}

int ch4coll_sched_clone(ch4coll_sched_t *dst, const ch4coll_sched_t *src)
{
    size_t nv = (size_t) (src->nv + 1), nc = (size_t) (src->ncomm + 1);
    int nomem = 0, rc;

    if (!src->committed)
        return CH4COLL_ERR_ARG;
    *dst = *src;      /* the scalars; every pointer is replaced below */
    dst->deps = NULL; /* freed at commit: a clone cannot grow */
    dst->cap_v = src->nv;
    dst->cap_deps = 0;
    dst->view = NULL;
    dst->scratch = NULL;
    dst->vtx = dup_bytes(src->vtx, (size_t) src->nv * sizeof *src->vtx, &nomem);
    dst->succ = dup_bytes(
        src->succ, (size_t) (src->ndeps + 1) * sizeof *src->succ, &nomem);
    dst->indeg = dup_bytes(src->indeg, nv * sizeof *src->indeg, &nomem);
    dst->roots = dup_bytes(src->roots, nv * sizeof *src->roots, &nomem);
    dst->plan = dup_bytes(src->plan, nv * sizeof *src->plan, &nomem);
    dst->scratch_of =
        dup_bytes(src->scratch_of,
                  (size_t) src->cap_bufs * sizeof *src->scratch_of, &nomem);
    dst->bufs = ch4coll_calloc((size_t) src->cap_bufs, sizeof *dst->bufs);
    dst->pending = ch4coll_malloc(nv * sizeof *dst->pending);
    dst->ready = ch4coll_malloc(nv * sizeof *dst->ready);
    dst->act = ch4coll_malloc(nc * sizeof *dst->act);
    dst->reqs = ch4coll_malloc(nc * CH4COLL_REQ_MAX);
    dst->done_idx = ch4coll_malloc(nc * sizeof *dst->done_idx);
    rc = nomem || !dst->bufs || !dst->pending || !dst->ready || !dst->act ||
                 !dst->reqs || !dst->done_idx
             ? CH4COLL_ERR_NOMEM
             : bind_scratch(dst);
    if (rc != CH4COLL_OK) {
        ch4coll_sched_destroy(dst);
        return rc;
    }
    dst->ndone = dst->nv; /* not running */
    return CH4COLL_OK;
}

size_t ch4coll_sched_scratch_size(const ch4coll_sched_t *s)
{
    size_t total = 0;
    int b, r;

    for (b = CH4COLL_BUF_FIRST_SCRATCH; b < s->nbufs; b++)
        if (s->scratch_of[b].slot < 0)
            total += s->scratch_of[b].bytes;
    for (r = 0; r < CH4COLL_SCRATCH_SLOTS; r++)
        total += s->slot_bytes[r];
    return total;
}

int ch4coll_sched_start(ch4coll_sched_t *s, const void *sendbuf, void *recvbuf,
                        int tag_base, const ch4coll_transport_t *tp, void *tctx)
{
    if (!s->committed || tp->req_size > CH4COLL_REQ_MAX)
        return CH4COLL_ERR_ARG;
    s->bufs[CH4COLL_BUF_SEND] = (void *) (uintptr_t) sendbuf;
    s->bufs[CH4COLL_BUF_RECV] = recvbuf;
    s->tag_base = tag_base;
    s->tp = tp;
    s->tctx = tctx;
    memcpy(s->pending, s->indeg, (size_t) s->nv * sizeof *s->pending);
    memcpy(s->ready, s->roots, (size_t) s->nroots * sizeof *s->ready);
    s->rhead = 0;
    s->rtail = s->nroots;
    s->nact = 0;
    s->ndone = 0;
    return CH4COLL_OK;
}

static inline void *ref_ptr(const ch4coll_sched_t *s, ch4coll_ref_t r)
{
    return (char *) s->bufs[r.buf] + r.off;
}

static void complete(ch4coll_sched_t *s, int id)
{
    const ch4coll_vtx_t *v = &s->vtx[id];
    int j;

    for (j = 0; j < v->n_out; j++) {
        int w = s->succ[v->out_first + j];
        if (--s->pending[w] == 0)
            s->ready[s->rtail++] = w;
    }
    s->ndone++;
}

/* A local step (reduce, copy, fence, sink) of vertex v. */
static int run_local(ch4coll_sched_t *s, const ch4coll_vtx_t *v)
{
    switch (v->kind) {
    case CH4COLL_V_REDUCE:
        if (v->count > 0 && s->kernel)
            s->kernel(ref_ptr(s, v->a), ref_ptr(s, v->b), v->count);
        else if (v->count > 0)
            return s->tp->reduce(s->tctx, ref_ptr(s, v->a), ref_ptr(s, v->b),
                                 v->count, s->elem.dt, s->op);
        return CH4COLL_OK;
    case CH4COLL_V_COPY:
        if (v->count > 0 && s->elem.dense)
            memmove(ref_ptr(s, v->b), ref_ptr(s, v->a),
                    v->count * s->elem.extent);
        else if (v->count > 0)
            return ch4coll_typed_copy(ref_ptr(s, v->a), ref_ptr(s, v->b),
                                      v->count, s->elem.dt);
        return CH4COLL_OK;
    default:
        return CH4COLL_OK;
    }
}

static int issue(ch4coll_sched_t *s, int id)
{
    const ch4coll_vtx_t *v = &s->vtx[id];
    void *req;
    int rc;

    if (v->kind == CH4COLL_V_SEND || v->kind == CH4COLL_V_RECV) {
        req = s->reqs + (size_t) s->nact * s->tp->req_size;
        if (v->kind == CH4COLL_V_SEND)
            rc = s->tp->isend(s->tctx, ref_ptr(s, v->a), v->count, s->elem.dt,
                              v->peer, s->tag_base + v->tag, req);
        else
            rc = s->tp->irecv(s->tctx, ref_ptr(s, v->a), v->count, s->elem.dt,
                              v->peer, s->tag_base + v->tag, req);
        if (rc == CH4COLL_OK)
            s->act[s->nact++] = id;
        return rc;
    }
    rc = run_local(s, v);
    if (rc == CH4COLL_OK)
        complete(s, id);
    return rc;
}

/* Remove the completed in-flight entries (indices in done_idx[0..nd)),
 * keeping the others in posting order, then complete them. */
static void retire(ch4coll_sched_t *s, int nd)
{
    size_t rs = s->tp->req_size;
    int i, w = 0, k = 0;

    for (i = 0; i < nd; i++) {
        int slot = s->done_idx[i];
        s->done_idx[i] = s->act[slot];
        s->act[slot] = -1;
    }
    for (i = 0; i < s->nact; i++) {
        if (s->act[i] < 0)
            continue;
        if (w != i) {
            s->act[w] = s->act[i];
            memcpy(s->reqs + (size_t) w * rs, s->reqs + (size_t) i * rs, rs);
        }
        w++;
    }
    s->nact = w;
    for (k = 0; k < nd; k++)
        complete(s, s->done_idx[k]);
}

/* Issue what is ready, then test (or, with block, wait for) what is in
 * flight, until nothing more moves (with block: until the end). */
static int advance(ch4coll_sched_t *s, int block, int *progressed)
{
    int rc, nd;

    *progressed = 0;
    for (;;) {
        while (s->rhead < s->rtail) {
            rc = issue(s, s->ready[s->rhead++]);
            if (rc != CH4COLL_OK)
                return rc;
            *progressed = 1;
        }
        if (s->nact == 0)
            return CH4COLL_OK;
        rc = (block ? s->tp->waitsome : s->tp->testsome)(
            s->tctx, s->nact, s->reqs, &nd, s->done_idx);
        if (rc != CH4COLL_OK)
            return rc;
        if (nd == 0 && !block)
            return CH4COLL_OK;
        *progressed = 1;
        retire(s, nd);
    }
}

int ch4coll_sched_progress(ch4coll_sched_t *s, int *progressed)
{
    return advance(s, 0, progressed);
}

int ch4coll_sched_wait(ch4coll_sched_t *s)
{
    int progressed;

    return advance(s, 1, &progressed);
}

/* Bytes of local work that a blocking exchange would hold back for
 * nothing: at or above this, the messages go as requests and the work
 * runs while they are in flight (the ready-queue loop).  A gather root's
 * copy of its own block then overlaps the receive: at p = 2, 64 KiB, the
 * slower rank's time went from 8.2 to 7.3-7.6 us, the host's 7.4-7.5 (OSU
 * 7.4's osu_gather -f, its maximum over ranks).  Below it the blocking
 * call's saving, about 0.1 us, is worth more than the overlap. */
#define CH4COLL_OVERLAP_BYTES 16384

/* A receive of at least this many bytes goes first, before any local
 * work, with or without a send beside it.  Such a message travels by
 * rendezvous, and on shared memory (UCX's CMA) the receiver's own
 * progress calls copy it: local work run first only holds the sender up,
 * and OSU averages both ranks.  p = 2, osu_gather 7.4, the minimum of 3
 * alternating runs of each side, ch4coll / host, 256 KiB-16 MiB: 0.59-0.78
 * with the receive first, 1.01-1.30 with the root's copy first or
 * overlapped (doc/performance.md, "Large receives first"). */
#define CH4COLL_RECV_FIRST_BYTES 262144

/* Mark in pending what is reachable from the exchange's messages: 1
 * forward (steps that wait for them), 2 backward (steps they wait for);
 * ready is the stack.  The build-time in-edges still exist. */
static void mark_from_messages(ch4coll_sched_t *s, int backward)
{
    int top = 0, j, n, w;

    if (s->xsend >= 0)
        s->ready[top++] = s->xsend;
    if (s->xrecv >= 0)
        s->ready[top++] = s->xrecv;
    while (top > 0) {
        const ch4coll_vtx_t *u = &s->vtx[s->ready[--top]];
        n = backward ? u->n_in : u->n_out;
        for (j = 0; j < n; j++) {
            w = backward ? s->deps[u->in_first + j] : s->succ[u->out_first + j];
            if (!s->pending[w]) {
                s->pending[w] = 1 + backward;
                s->ready[top++] = w;
            }
        }
    }
}

/* The bytes of the local steps that neither wait for the exchange's
 * messages nor are waited for by them: work that could run while the
 * messages are in flight. */
static size_t overlap_bytes(ch4coll_sched_t *s)
{
    size_t bytes = 0;
    int id;

    memset(s->pending, 0, (size_t) s->nv * sizeof *s->pending);
    mark_from_messages(s, 0);
    mark_from_messages(s, 1);
    for (id = 0; id < s->nv; id++)
        if (!s->pending[id] && (s->vtx[id].kind == CH4COLL_V_COPY ||
                                s->vtx[id].kind == CH4COLL_V_REDUCE))
            bytes += s->vtx[id].count * s->elem.extent;
    return bytes;
}

/* The order of an exchange's steps (sched.h: plan): the ready queue run
 * dry.  Local steps run while a message is not ready yet.  Once every
 * message is, a send goes out before any local step that is ready too (a
 * scatter root's send before its own copy: the peer waits for the send,
 * not for the copy); a receive alone waits for those steps (a gather
 * root's copy of its own block runs while the peer's message is on its
 * way: osu_gather at 4 and 8 KiB, eager messages, had the root 1.09x the
 * host's time), unless it is large (CH4COLL_RECV_FIRST_BYTES): then
 * the messages go first.  The messages go in one call: a blocking send and a
 * blocking receive, in either order, could each wait for the other
 * rank's rendezvous. */
static int plan_exchange(ch4coll_sched_t *s)
{
    int left = s->ncomm, n = 0, id, k, w, big = 0;

    s->plan = ch4coll_malloc((size_t) (s->nv + 1) * sizeof *s->plan);
    if (!s->plan)
        return CH4COLL_ERR_NOMEM;
    s->xsend = s->xrecv = -1;
    s->ndone = 0;
    memcpy(s->pending, s->indeg, (size_t) s->nv * sizeof *s->pending);
    memcpy(s->ready, s->roots, (size_t) s->nroots * sizeof *s->ready);
    s->rhead = 0;
    s->rtail = s->nroots;
    for (;;) {
        for (k = w = s->rhead; k < s->rtail; k++) {
            id = s->ready[k];
            if (s->vtx[id].kind == CH4COLL_V_SEND)
                s->xsend = id;
            else if (s->vtx[id].kind == CH4COLL_V_RECV) {
                s->xrecv = id;
                big = s->vtx[id].count * s->elem.extent >=
                      CH4COLL_RECV_FIRST_BYTES;
            } else
                s->ready[w++] = id;
        }
        s->rtail = w;
        if (left > 0 && (s->xsend >= 0) + (s->xrecv >= 0) == left &&
            (s->xsend >= 0 || big || s->rhead == s->rtail)) {
            s->plan[n++] = -1;
            left = 0;
            if (s->xsend >= 0)
                complete(s, s->xsend);
            if (s->xrecv >= 0)
                complete(s, s->xrecv);
        } else if (s->rhead < s->rtail) {
            s->plan[n++] = id = s->ready[s->rhead++];
            complete(s, id);
        } else {
            break;
        }
    }
    s->nplan = n;
    /* an exchange's messages depend on local steps only, so all of them
     * become ready, and so does every step: a shortfall is a bug */
    if (left > 0 || s->ndone != s->nv)
        return CH4COLL_ERR_ARG;
    if (!big && overlap_bytes(s) >= CH4COLL_OVERLAP_BYTES) {
        ch4coll_free(s->plan);
        s->plan = NULL;
    }
    return CH4COLL_OK;
}

/* The message(s) of an exchange: one blocking call. */
static int exchange_now(ch4coll_sched_t *s)
{
    const ch4coll_vtx_t *snd = s->xsend >= 0 ? &s->vtx[s->xsend] : NULL;
    const ch4coll_vtx_t *rcv = s->xrecv >= 0 ? &s->vtx[s->xrecv] : NULL;

    if (snd && rcv)
        return s->tp->sendrecv(s->tctx, ref_ptr(s, snd->a), snd->count,
                               snd->peer, s->tag_base + snd->tag,
                               ref_ptr(s, rcv->a), rcv->count, rcv->peer,
                               s->tag_base + rcv->tag, s->elem.dt);
    if (snd)
        return s->tp->send(s->tctx, ref_ptr(s, snd->a), snd->count, s->elem.dt,
                           snd->peer, s->tag_base + snd->tag);
    return s->tp->recv(s->tctx, ref_ptr(s, rcv->a), rcv->count, s->elem.dt,
                       rcv->peer, s->tag_base + rcv->tag);
}

int ch4coll_sched_run_now(ch4coll_sched_t *s, const void *sendbuf,
                          void *recvbuf, int tag_base,
                          const ch4coll_transport_t *tp, void *tctx, int *rc)
{
    int k;

    if (!s->plan || !tp->sendrecv)
        return 0;
    s->bufs[CH4COLL_BUF_SEND] = (void *) (uintptr_t) sendbuf;
    s->bufs[CH4COLL_BUF_RECV] = recvbuf;
    s->tag_base = tag_base;
    s->tp = tp;
    s->tctx = tctx;
    *rc = CH4COLL_OK;
    for (k = 0; k < s->nplan && *rc == CH4COLL_OK; k++)
        *rc = s->plan[k] < 0 ? exchange_now(s)
                             : run_local(s, &s->vtx[s->plan[k]]);
    return 1;
}

const char *ch4coll_vkind_name(int kind)
{
    static const char *names[] = {"send", "recv",  "reduce",
                                  "copy", "fence", "sink"};
    return kind >= 0 && kind <= CH4COLL_V_SINK ? names[kind] : "?";
}
