/*
 * replay.c - discrete-event replay of committed schedules on the
 * alpha-beta-gamma model (see replay.h).
 *
 * The model: per rank a send port, a receive port and a CPU; with a
 * locality also per node one network interface, an outgoing and an
 * incoming side.  A message is placed when its send vertex becomes ready,
 * at the earliest time every resource it needs is free, and holds them
 * until it ends: an intra-node message the two ranks' ports for
 * alpha_node + m beta_node, an inter-node message the ports and the two
 * nodes' interface sides for alpha + m beta.  No later message is placed
 * into an earlier gap, so each resource serves messages in the order they
 * became ready, and the result is deterministic.
 *
 * State: per rank, the pending-dependency counter and ready time of every
 * vertex; per rank, the time its send port, receive port and CPU become
 * free; per node (with a locality), the time its interface's outgoing and
 * incoming sides become free; a binary heap of ready vertices ordered by
 * (time, sequence); per destination rank, lists of unmatched messages and
 * unmatched receives.  This is a tool (tests, ch4coll-info, the tuner), so
 * it allocates freely.
 */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double t;
    long seq;
    int rank, v;
} event_t;

/* an unmatched message (src, tag, bytes, transfer end) or receive; a
 * rendezvous message (above the model's eager limit) waits unplaced */
typedef struct item {
    int src, tag, v; /* v: the receive vertex, or a rendezvous send's */
    int rndv;
    size_t bytes;
    double t; /* message: transfer end, or a rendezvous send's ready time;
                 receive: ready time */
    struct item *next;
} item_t;

typedef struct {
    int p;
    const ch4coll_model_t *m;
    const ch4coll_locality_t *loc; /* NULL: every rank its own node */
    ch4coll_sched_t *const *s;
    int32_t **pending;
    double **ready;
    double *sport, *rport, *cpu, *last;
    double *nic_out, *nic_in; /* per node, with a locality */
    event_t *heap;
    long nheap, capheap, seq;
    item_t **msgs, **recvs; /* per destination, FIFO */
    long left;              /* vertices not finished */
} sim_t;

static int heap_push(sim_t *S, double t, int rank, int v)
{
    long i;

    if (S->nheap == S->capheap) {
        long cap = S->capheap ? 2 * S->capheap : 1024;
        event_t *h = realloc(S->heap, (size_t) cap * sizeof *h);
        if (!h)
            return CH4COLL_ERR_NOMEM;
        S->heap = h;
        S->capheap = cap;
    }
    i = S->nheap++;
    event_t e = {t, S->seq++, rank, v};
    while (i > 0) {
        long up = (i - 1) / 2;
        event_t *u = &S->heap[up];
        if (u->t < e.t || (u->t == e.t && u->seq < e.seq))
            break;
        S->heap[i] = *u;
        i = up;
    }
    S->heap[i] = e;
    return CH4COLL_OK;
}

static event_t heap_pop(sim_t *S)
{
    event_t top = S->heap[0], e = S->heap[--S->nheap];
    long i = 0, n = S->nheap;

    for (;;) {
        long c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && (S->heap[c + 1].t < S->heap[c].t ||
                          (S->heap[c + 1].t == S->heap[c].t &&
                           S->heap[c + 1].seq < S->heap[c].seq)))
            c++;
        if (e.t < S->heap[c].t ||
            (e.t == S->heap[c].t && e.seq < S->heap[c].seq))
            break;
        S->heap[i] = S->heap[c];
        i = c;
    }
    if (n > 0)
        S->heap[i] = e;
    return top;
}

static size_t vbytes(const ch4coll_sched_t *s, const ch4coll_vtx_t *v)
{
    return v->count * s->elem.size;
}

/* Vertex v of rank r finished at t: release its successors. */
static int finish(sim_t *S, int r, int v, double t)
{
    const ch4coll_sched_t *s = S->s[r];
    const ch4coll_vtx_t *x = &s->vtx[v];
    int i, rc;

    S->left--;
    if (t > S->last[r])
        S->last[r] = t;
    for (i = 0; i < x->n_out; i++) {
        int w = s->succ[x->out_first + i];
        if (t > S->ready[r][w])
            S->ready[r][w] = t;
        if (--S->pending[r][w] == 0 &&
            (rc = heap_push(S, S->ready[r][w], r, w)) != CH4COLL_OK)
            return rc;
    }
    return CH4COLL_OK;
}

static item_t *take(item_t **list, int src, int tag)
{
    item_t **pp;

    for (pp = list; *pp; pp = &(*pp)->next)
        if ((*pp)->src == src && (*pp)->tag == tag) {
            item_t *it = *pp;
            *pp = it->next;
            return it;
        }
    return NULL;
}

static void append(item_t **list, item_t *it)
{
    while (*list)
        list = &(*list)->next;
    it->next = NULL;
    *list = it;
}

static int mismatch(int src, int dst, int tag, size_t sb, size_t rb, char *err,
                    size_t errlen)
{
    snprintf(err, errlen,
             "replay: message %d -> %d tag %d carries %zu bytes, the receive "
             "expects %zu",
             src, dst, tag, sb, rb);
    return CH4COLL_ERR_PROTOCOL;
}

static double later(double a, double b)
{
    return a > b ? a : b;
}

/* Place the transfer of `bytes` from src to dst, ready at t, on the ports
 * (and, between nodes, the interfaces) it needs; returns its end. */
static double transfer(sim_t *S, int src, int dst, size_t bytes, double t)
{
    const ch4coll_model_t *m = S->m;
    int from = S->loc ? S->loc->node_of[src] : src;
    int to = S->loc ? S->loc->node_of[dst] : dst;
    int inside = S->loc && from == to, nic = S->loc && from != to;
    double start = later(t, later(S->sport[src], S->rport[dst])), end;

    if (nic)
        start = later(start, later(S->nic_out[from], S->nic_in[to]));
    end = inside ? start + m->alpha_node + (double) bytes * m->beta_node
                 : start + m->alpha + (double) bytes * m->beta;
    S->sport[src] = S->rport[dst] = end;
    if (nic)
        S->nic_out[from] = S->nic_in[to] = end;
    return end;
}

/* A rendezvous send of rank r (vertex v) ready at t whose receive is not
 * posted: its transfer starts when the receive is (on_recv). */
static int wait_for_recv(sim_t *S, int r, int v, int dst, size_t bytes,
                         double t)
{
    item_t *it = calloc(1, sizeof *it);

    if (!it)
        return CH4COLL_ERR_NOMEM;
    it->src = r;
    it->tag = S->s[r]->vtx[v].tag;
    it->v = v;
    it->rndv = 1;
    it->bytes = bytes;
    it->t = t;
    append(&S->msgs[dst], it);
    return CH4COLL_OK;
}

static int on_send(sim_t *S, int r, int v, double t, char *err, size_t errlen)
{
    const ch4coll_sched_t *s = S->s[r];
    const ch4coll_vtx_t *x = &s->vtx[v];
    int dst = x->peer;
    size_t bytes = vbytes(s, x);
    double end;
    item_t *rv;

    if (dst < 0 || dst >= S->p || !S->s[dst]) {
        snprintf(err, errlen,
                 "replay: rank %d sends to rank %d, which has "
                 "no schedule",
                 r, dst);
        return CH4COLL_ERR_PROTOCOL;
    }
    rv = take(&S->recvs[dst], r, x->tag);
    if (!rv && S->m->eager > 0 && (double) bytes > S->m->eager)
        return wait_for_recv(S, r, v, dst, bytes, t);
    end = transfer(S, r, dst, bytes, t);
    if (rv) {
        size_t rb = vbytes(S->s[dst], &S->s[dst]->vtx[rv->v]);
        int rc;
        if (rb != bytes) {
            free(rv);
            return mismatch(r, dst, x->tag, bytes, rb, err, errlen);
        }
        rc = finish(S, dst, rv->v, rv->t > end ? rv->t : end);
        free(rv);
        if (rc != CH4COLL_OK)
            return rc;
    } else {
        item_t *it = calloc(1, sizeof *it);
        if (!it)
            return CH4COLL_ERR_NOMEM;
        it->src = r;
        it->tag = x->tag;
        it->bytes = bytes;
        it->t = end;
        append(&S->msgs[dst], it);
    }
    return finish(S, r, v, end);
}

static int on_recv(sim_t *S, int r, int v, double t, char *err, size_t errlen)
{
    const ch4coll_vtx_t *x = &S->s[r]->vtx[v];
    size_t bytes = vbytes(S->s[r], x);
    item_t *it = take(&S->msgs[r], x->peer, x->tag);

    if (it) {
        double end = it->t > t ? it->t : t;
        size_t sb = it->bytes;
        int src = it->src, sv = it->v, rndv = it->rndv, rc;
        free(it);
        if (sb != bytes)
            return mismatch(x->peer, r, x->tag, sb, bytes, err, errlen);
        if (rndv) { /* the send waited for this receive: transfer now */
            end = transfer(S, src, r, bytes, t);
            if ((rc = finish(S, src, sv, end)) != CH4COLL_OK)
                return rc;
        }
        return finish(S, r, v, end);
    }
    it = calloc(1, sizeof *it);
    if (!it)
        return CH4COLL_ERR_NOMEM;
    it->src = x->peer;
    it->tag = x->tag;
    it->v = v;
    it->t = t;
    append(&S->recvs[r], it);
    return CH4COLL_OK;
}

static int on_ready(sim_t *S, event_t e, char *err, size_t errlen)
{
    const ch4coll_sched_t *s = S->s[e.rank];
    const ch4coll_vtx_t *x = &s->vtx[e.v];
    double t = e.t;

    switch (x->kind) {
    case CH4COLL_V_SEND:
        return on_send(S, e.rank, e.v, t, err, errlen);
    case CH4COLL_V_RECV:
        return on_recv(S, e.rank, e.v, t, err, errlen);
    case CH4COLL_V_REDUCE:
        if (S->cpu[e.rank] > t)
            t = S->cpu[e.rank];
        t += (double) vbytes(s, x) * S->m->gamma;
        S->cpu[e.rank] = t;
        return finish(S, e.rank, e.v, t);
    default: /* copy, sink, fence */
        return finish(S, e.rank, e.v, t);
    }
}

static void free_list(item_t *it)
{
    while (it) {
        item_t *n = it->next;
        free(it);
        it = n;
    }
}

static void sim_free(sim_t *S)
{
    int r;

    for (r = 0; r < S->p; r++) {
        if (S->pending)
            free(S->pending[r]);
        if (S->ready)
            free(S->ready[r]);
        if (S->msgs)
            free_list(S->msgs[r]);
        if (S->recvs)
            free_list(S->recvs[r]);
    }
    free(S->pending);
    free(S->ready);
    free(S->msgs);
    free(S->recvs);
    free(S->sport);
    free(S->rport);
    free(S->cpu);
    free(S->last);
    free(S->nic_out);
    free(S->nic_in);
    free(S->heap);
}

/* Check the node map: nodes >= 1 and every rank's node in 0..nodes-1. */
static int check_loc(const ch4coll_locality_t *loc, int p, char *err,
                     size_t errlen)
{
    int r;

    if (loc->nodes < 1 || !loc->node_of) {
        snprintf(err, errlen, "replay: a locality of %d nodes", loc->nodes);
        return CH4COLL_ERR_ARG;
    }
    for (r = 0; r < p; r++)
        if (loc->node_of[r] < 0 || loc->node_of[r] >= loc->nodes) {
            snprintf(err, errlen, "replay: rank %d on node %d of %d", r,
                     loc->node_of[r], loc->nodes);
            return CH4COLL_ERR_ARG;
        }
    return CH4COLL_OK;
}

/* The per-rank (and per-node) arrays, all zero. */
static int sim_alloc(sim_t *S)
{
    size_t p = (size_t) S->p, nodes = S->loc ? (size_t) S->loc->nodes : 0;

    S->pending = calloc(p, sizeof *S->pending);
    S->ready = calloc(p, sizeof *S->ready);
    S->msgs = calloc(p, sizeof *S->msgs);
    S->recvs = calloc(p, sizeof *S->recvs);
    S->sport = calloc(p, sizeof *S->sport);
    S->rport = calloc(p, sizeof *S->rport);
    S->cpu = calloc(p, sizeof *S->cpu);
    S->last = calloc(p, sizeof *S->last);
    if (nodes) {
        S->nic_out = calloc(nodes, sizeof *S->nic_out);
        S->nic_in = calloc(nodes, sizeof *S->nic_in);
    }
    if (!S->pending || !S->ready || !S->msgs || !S->recvs || !S->sport ||
        !S->rport || !S->cpu || !S->last ||
        (nodes && (!S->nic_out || !S->nic_in)))
        return CH4COLL_ERR_NOMEM;
    return CH4COLL_OK;
}

/* Every rank's dependency counters; the vertices without dependencies
 * ready at time 0. */
static int sim_load(sim_t *S, char *err, size_t errlen)
{
    int r, v, rc = CH4COLL_OK;

    for (r = 0; r < S->p && rc == CH4COLL_OK; r++) {
        const ch4coll_sched_t *s = S->s[r];
        if (!s)
            continue;
        if (!s->committed) {
            snprintf(err, errlen, "replay: rank %d's schedule is not committed",
                     r);
            return CH4COLL_ERR_ARG;
        }
        S->pending[r] = malloc((size_t) (s->nv ? s->nv : 1) * sizeof(int32_t));
        S->ready[r] = calloc((size_t) (s->nv ? s->nv : 1), sizeof(double));
        if (!S->pending[r] || !S->ready[r])
            return CH4COLL_ERR_NOMEM;
        memcpy(S->pending[r], s->indeg, (size_t) s->nv * sizeof(int32_t));
        S->left += s->nv;
        for (v = 0; v < s->nv && rc == CH4COLL_OK; v++)
            if (s->indeg[v] == 0)
                rc = heap_push(S, 0.0, r, v);
    }
    return rc;
}

/* After the last event: everything ran and was received?  *time = the
 * last rank's finish. */
static int sim_result(sim_t *S, double *time, char *err, size_t errlen)
{
    int r;
    double t = 0;

    if (S->left > 0) {
        for (r = 0; r < S->p; r++)
            if (S->recvs[r] || S->msgs[r])
                break;
        snprintf(err, errlen,
                 "replay: %ld vertices never ran (first rank with an "
                 "unmatched message or receive: %d)",
                 S->left, r < S->p ? r : -1);
        return CH4COLL_ERR_DEADLOCK;
    }
    for (r = 0; r < S->p; r++) {
        if (S->msgs[r]) {
            snprintf(err, errlen,
                     "replay: message %d -> %d tag %d was never received",
                     S->msgs[r]->src, r, S->msgs[r]->tag);
            return CH4COLL_ERR_PROTOCOL;
        }
        if (S->last[r] > t)
            t = S->last[r];
    }
    *time = t;
    return CH4COLL_OK;
}

int ch4coll_replay(ch4coll_sched_t *const *scheds, int p,
                   const ch4coll_model_t *model, const ch4coll_locality_t *loc,
                   double *time, char *err, size_t errlen)
{
    sim_t S;
    int rc;

    memset(&S, 0, sizeof S);
    S.p = p;
    S.m = model;
    S.loc = loc;
    S.s = scheds;
    rc = loc ? check_loc(loc, p, err, errlen) : CH4COLL_OK;
    if (rc == CH4COLL_OK)
        rc = sim_alloc(&S);
    if (rc == CH4COLL_OK)
        rc = sim_load(&S, err, errlen);
    while (rc == CH4COLL_OK && S.nheap > 0)
        rc = on_ready(&S, heap_pop(&S), err, errlen);
    if (rc == CH4COLL_OK)
        rc = sim_result(&S, time, err, errlen);
    sim_free(&S);
    return rc;
}
