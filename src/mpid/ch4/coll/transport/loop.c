/*
 * loop.c - in-process transport and round-robin runner (see loop.h).
 *
 * Requests live in one table per world, reset at the start of every run; a
 * request slot holds the table index.  Messages wait in a FIFO per
 * destination rank.  This is test and modelling code: it uses plain malloc,
 * which keeps the library's allocation counter about the library alone.
 * Sizes are size_t throughout: messages above 2 GiB are packed in pieces
 * (host/host.h), and MPI_BYTE messages are copied directly.
 */
#include "loop.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host.h"
#include "../util/util.h"

typedef struct {
    int is_send;
    int rank, peer, tag; /* owner, other side, absolute tag */
    void *buf;
    size_t count;
    MPI_Datatype dt;
    int done;
    int matched;
    void *eager; /* packed copy of an eager send */
    size_t bytes;
    int next; /* next message in the destination FIFO */
} loop_req_t;

typedef struct {
    ch4coll_loop_t *w;
    int rank;
} loop_ctx_t;

struct ch4coll_loop {
    int p, eager;
    loop_ctx_t *ctx;
    loop_req_t *req;
    int nreq, cap;
    int *head, *tail; /* unmatched messages per destination */
    char *err;
    size_t errlen;
    char noerr[1]; /* err when the caller passes none */
    size_t nmsgs, nbytes;
};

ch4coll_loop_t *ch4coll_loop_create(int p, int eager)
{
    ch4coll_loop_t *w = calloc(1, sizeof *w);
    int r;

    if (!w)
        return NULL;
    w->p = p;
    w->eager = eager;
    w->ctx = calloc((size_t) p, sizeof *w->ctx);
    w->head = malloc((size_t) p * sizeof *w->head);
    w->tail = malloc((size_t) p * sizeof *w->tail);
    if (!w->ctx || !w->head || !w->tail) {
        ch4coll_loop_destroy(w);
        return NULL;
    }
    for (r = 0; r < p; r++) {
        w->ctx[r].w = w;
        w->ctx[r].rank = r;
    }
    ch4coll_loop_begin(w, NULL, 0);
    return w;
}

static void reset(ch4coll_loop_t *w)
{
    int i;

    for (i = 0; i < w->nreq; i++)
        free(w->req[i].eager);
    w->nreq = 0;
    for (i = 0; i < w->p; i++)
        w->head[i] = w->tail[i] = -1;
}

void ch4coll_loop_destroy(ch4coll_loop_t *w)
{
    if (!w)
        return;
    if (w->req)
        reset(w);
    free(w->req);
    free(w->ctx);
    free(w->head);
    free(w->tail);
    free(w);
}

void *ch4coll_loop_ctx(ch4coll_loop_t *w, int r)
{
    return &w->ctx[r];
}

int ch4coll_loop_size(const ch4coll_loop_t *w)
{
    return w->p;
}

size_t ch4coll_loop_messages(const ch4coll_loop_t *w)
{
    return w->nmsgs;
}

size_t ch4coll_loop_bytes(const ch4coll_loop_t *w)
{
    return w->nbytes;
}

static size_t type_bytes(size_t count, MPI_Datatype dt)
{
    MPI_Count size = 0; /* MPI_Type_size says MPI_UNDEFINED above 2 GiB */

    PMPI_Type_size_x(dt, &size);
    return count * (size_t) (size > 0 ? size : 0);
}

/* Pack count elements of dt at buf into a new contiguous block (in
 * pieces: above 2 GiB MPI's int arguments do not reach). */
static void *pack(const void *buf, size_t count, MPI_Datatype dt, size_t bytes)
{
    void *out = malloc(bytes ? bytes : 1);

    if (out && bytes > 0 &&
        ch4coll_host_pack(buf, count, dt, out, bytes) != CH4COLL_OK) {
        free(out);
        out = NULL;
    }
    return out;
}

static int unpack(const void *packed, size_t bytes, void *buf, size_t count,
                  MPI_Datatype dt)
{
    return bytes > 0 ? ch4coll_host_unpack(packed, bytes, buf, count, dt)
                     : CH4COLL_OK;
}

static int new_req(ch4coll_loop_t *w, int is_send, int rank, void *buf,
                   size_t count, MPI_Datatype dt, int peer, int tag)
{
    loop_req_t *q;

    if (w->nreq == w->cap) {
        int cap = w->cap ? 2 * w->cap : 64;
        loop_req_t *n = realloc(w->req, (size_t) cap * sizeof *n);
        if (!n)
            return -1;
        w->req = n;
        w->cap = cap;
    }
    q = &w->req[w->nreq];
    memset(q, 0, sizeof *q);
    q->is_send = is_send;
    q->rank = rank;
    q->peer = peer;
    q->tag = tag;
    q->buf = buf;
    q->count = count;
    q->dt = dt;
    q->bytes = type_bytes(count, dt);
    q->next = -1;
    return w->nreq++;
}

static int loop_isend(void *ctx, const void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    loop_ctx_t *c = ctx;
    ch4coll_loop_t *w = c->w;
    int id =
        new_req(w, 1, c->rank, (void *) (uintptr_t) buf, count, dt, peer, tag);
    loop_req_t *q;

    if (id < 0)
        return CH4COLL_ERR_NOMEM;
    q = &w->req[id];
    if (w->eager) {
        q->eager = pack(buf, count, dt, q->bytes);
        if (!q->eager)
            return CH4COLL_ERR_NOMEM;
        q->done = 1;
    }
    if (w->tail[peer] < 0)
        w->head[peer] = id;
    else
        w->req[w->tail[peer]].next = id;
    w->tail[peer] = id;
    w->nmsgs++;
    w->nbytes += q->bytes;
    *(int32_t *) req = id;
    return CH4COLL_OK;
}

static int loop_irecv(void *ctx, void *buf, size_t count, MPI_Datatype dt,
                      int peer, int tag, void *req)
{
    loop_ctx_t *c = ctx;
    int id = new_req(c->w, 0, c->rank, buf, count, dt, peer, tag);

    if (id < 0)
        return CH4COLL_ERR_NOMEM;
    *(int32_t *) req = id;
    return CH4COLL_OK;
}

/* Match receive r with the first message from its peer with its tag. */
static int try_match(ch4coll_loop_t *w, loop_req_t *r)
{
    int prev = -1, m = w->head[r->rank], rc = CH4COLL_OK;
    loop_req_t *s;

    while (m >= 0 && !(w->req[m].rank == r->peer && w->req[m].tag == r->tag)) {
        prev = m;
        m = w->req[m].next;
    }
    if (m < 0)
        return CH4COLL_OK;
    s = &w->req[m];
    if (s->bytes != r->bytes) {
        snprintf(w->err, w->errlen,
                 "size mismatch: rank %d sends %zu bytes to rank %d (tag %d), "
                 "which expects %zu",
                 s->rank, s->bytes, r->rank, r->tag, r->bytes);
        return CH4COLL_ERR_PROTOCOL;
    }
    /* unlink */
    if (prev < 0)
        w->head[r->rank] = s->next;
    else
        w->req[prev].next = s->next;
    if (w->tail[r->rank] == m)
        w->tail[r->rank] = prev;
    if (s->eager) {
        rc = unpack(s->eager, s->bytes, r->buf, r->count, r->dt);
    } else if (s->dt == MPI_BYTE && r->dt == MPI_BYTE) {
        memcpy(r->buf, s->buf, s->bytes); /* data movement: no bounce copy */
    } else {
        void *tmp = pack(s->buf, s->count, s->dt, s->bytes);
        if (!tmp)
            return CH4COLL_ERR_NOMEM;
        rc = unpack(tmp, s->bytes, r->buf, r->count, r->dt);
        free(tmp);
    }
    if (rc != CH4COLL_OK)
        return rc;
    s->done = 1;
    s->matched = 1;
    r->done = 1;
    r->matched = 1;
    return CH4COLL_OK;
}

static int loop_testsome(void *ctx, int n, void *reqs, int *ndone, int *done)
{
    ch4coll_loop_t *w = ((loop_ctx_t *) ctx)->w;
    int i, rc;

    *ndone = 0;
    for (i = 0; i < n; i++) {
        loop_req_t *q = &w->req[((int32_t *) reqs)[i]];
        if (!q->is_send && !q->done) {
            rc = try_match(w, q);
            if (rc != CH4COLL_OK)
                return rc;
        }
        if (q->done)
            done[(*ndone)++] = i;
    }
    return CH4COLL_OK;
}

static int loop_reduce(void *ctx, const void *in, void *inout, size_t count,
                       MPI_Datatype dt, MPI_Op op)
{
    (void) ctx;
    return ch4coll_reduce_local(in, inout, count, dt, op);
}

const ch4coll_transport_t ch4coll_transport_loop = {
    .name = "loop",
    .req_size = sizeof(int32_t),
    .isend = loop_isend,
    .irecv = loop_irecv,
    .testsome = loop_testsome,
    .reduce = loop_reduce,
};

static void report_leftovers(ch4coll_loop_t *w)
{
    size_t used;
    int r;

    for (r = 0; r < w->p; r++) {
        if (w->head[r] < 0)
            continue;
        used = strlen(w->err);
        snprintf(w->err + used, w->errlen - used,
                 "%sleftover message from rank %d to rank %d tag %d",
                 used ? "; " : "", w->req[w->head[r]].rank, r,
                 w->req[w->head[r]].tag);
    }
}

void ch4coll_loop_begin(ch4coll_loop_t *w, char *err, size_t errlen)
{
    w->err = err ? err : w->noerr;
    w->errlen = err ? errlen : sizeof w->noerr;
    w->err[0] = '\0';
    reset(w);
}

int ch4coll_loop_end(ch4coll_loop_t *w)
{
    int r;

    for (r = 0; r < w->p; r++)
        if (w->head[r] >= 0) {
            report_leftovers(w);
            return CH4COLL_ERR_PROTOCOL;
        }
    return CH4COLL_OK;
}
