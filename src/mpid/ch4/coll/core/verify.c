/*
 * verify.c - the signature of a call, its exchange, the check (verify.h).
 *
 * What is compared, per collective (MPI's matching rules):
 *
 *   all            the collective, blocking or not, and the root
 *   reductions     op (predefined: the same one; user-defined: all
 *                  user-defined), datatype (predefined: the same one;
 *                  derived: the same size), count; reduce_scatter its
 *                  recvcounts
 *   bcast, gather, scatter, allgather, alltoall
 *                  each rank's bytes per block against the root's (rank
 *                  0's when unrooted): named rank by rank
 *   allgatherv     the recvcounts (hash) and each rank's send bytes
 *                  against its entry in them: named rank by rank
 *   gatherv, scatterv, alltoallv
 *                  the weighted sums of verify.h; the root names the
 *                  rank for gatherv and scatterv, alltoallv reports totals
 *
 * Datatype signatures of data movement are compared by their size in
 * bytes, which is what ch4coll's schedules depend on; a type map that
 * differs with equal sizes is not detected.
 */
#include "verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../algos/algo.h"
#include "../util/util.h"
#include "comm.h"
#include "../host/host.h"

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The weight of the message from rank i to rank j. */
static uint64_t weight(int i, int j)
{
    return mix(((uint64_t) (uint32_t) i << 32) | (uint32_t) j) | 1;
}

static uint64_t hash_counts(const int *counts, int p, int64_t size)
{
    uint64_t h = UINT64_C(14695981039346656037);
    int i;

    for (i = 0; i < p; i++)
        h = mix(h ^ (uint64_t) ((int64_t) counts[i] * size));
    return h;
}

static int64_t type_bytes(MPI_Datatype dt)
{
    ch4coll_elem_t e;

    if (dt == MPI_DATATYPE_NULL)
        return 0;
    ch4coll_host_elem(dt, &e);
    return (int64_t) e.size;
}

ch4coll_verify_t *ch4coll_verify_new(int rank, int size)
{
    ch4coll_verify_t *v = ch4coll_calloc(1, sizeof *v);
    const ch4coll_algo_t *al = ch4coll_algo_find(CH4COLL_ALLGATHER, "bruck");
    const ch4coll_elem_t byte = {MPI_BYTE, 1, 1, 0, 1, 1};
    ch4coll_args_t a;
    int64_t params[CH4COLL_MAX_PARAMS];
    int rc;

    if (!v)
        return NULL;
    v->size = size;
    v->sig = ch4coll_calloc((size_t) size, sizeof *v->sig);
    memset(&a, 0, sizeof a);
    a.coll = CH4COLL_ALLGATHER;
    a.rank = rank;
    a.size = size;
    a.inplace = 1;
    a.count = sizeof *v->sig;
    a.elem = byte;
    a.op = MPI_OP_NULL;
    a.commutative = 1;
    ch4coll_algo_default_params(al, params);
    rc = v->sig ? ch4coll_sched_init(&v->sched, &byte, MPI_OP_NULL, rank, size)
                : CH4COLL_ERR_NOMEM;
    if (rc == CH4COLL_OK)
        rc = al->build(&v->sched, &a, params);
    if (rc == CH4COLL_OK)
        rc = ch4coll_sched_commit(&v->sched);
    if (rc != CH4COLL_OK) {
        ch4coll_verify_free(v);
        return NULL;
    }
    return v;
}

void ch4coll_verify_free(ch4coll_verify_t *v)
{
    if (!v)
        return;
    if (v->sig)
        ch4coll_sched_destroy(&v->sched);
    ch4coll_free(v->sig);
    ch4coll_free(v);
}

int ch4coll_verify_ntags(const ch4coll_verify_t *v)
{
    return v->sched.ntags;
}

/* The bytes this rank sends to each rank (S) and expects from each (R),
 * as weighted sums and totals; per-block sizes for the regular ones. */
static void sign_movement(const ch4coll_call_t *call, int rank, int p,
                          ch4coll_vsig_t *g)
{
    const ch4coll_side_t *s = &call->snd, *r = &call->rcv;
    int root = call->root, i, inplace = (int) g->inplace;
    MPI_Datatype st, rt;
    int64_t ss, rs, sb, rb;

    ch4coll_run_types(call, &st, &rt);
    ss = type_bytes(st);
    rs = type_bytes(rt);
    sb = st != MPI_DATATYPE_NULL ? (int64_t) s->count * ss : -1;
    rb = rt != MPI_DATATYPE_NULL ? (int64_t) r->count * rs : -1;
    g->sblk = g->rblk = -1;
    switch (call->coll) {
    case CH4COLL_BCAST:
        g->sblk = g->rblk = rb;
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
    case CH4COLL_ALLTOALL:
        g->sblk = inplace ? rb : sb;
        if (rt != MPI_DATATYPE_NULL)
            g->rblk = rb;
        break;
    case CH4COLL_SCATTER:
        g->rblk = rank == root && inplace ? sb : rb;
        if (rank == root)
            g->sblk = sb;
        break;
    case CH4COLL_ALLGATHERV:
        g->vhash = (int64_t) hash_counts(r->counts, p, rs);
        g->sblk = inplace ? (int64_t) r->counts[rank] * rs : sb;
        break;
    case CH4COLL_GATHERV:
        g->sblk = inplace ? (int64_t) r->counts[rank] * rs : sb;
        break;
    case CH4COLL_SCATTERV:
        g->rblk = rank == root && inplace ? (int64_t) s->counts[rank] * ss : rb;
        break;
    default:
        break;
    }
    /* the weighted sums over the logical messages (self included) */
    for (i = 0; i < p; i++) {
        int64_t out = 0, in = 0;
        switch (call->coll) {
        case CH4COLL_BCAST:
            out = rank == root ? g->sblk : 0;
            in = i == root ? g->rblk : 0;
            break;
        case CH4COLL_GATHER:
        case CH4COLL_GATHERV:
            out = i == root ? g->sblk : 0;
            if (rank == root)
                in = call->coll == CH4COLL_GATHER ? g->rblk
                                                  : (int64_t) r->counts[i] * rs;
            break;
        case CH4COLL_SCATTER:
        case CH4COLL_SCATTERV:
            if (rank == root)
                out = call->coll == CH4COLL_SCATTER
                          ? g->sblk
                          : (int64_t) s->counts[i] * ss;
            in = i == root ? g->rblk : 0;
            break;
        case CH4COLL_ALLGATHER:
        case CH4COLL_ALLTOALL:
            out = g->sblk;
            in = g->rblk;
            break;
        case CH4COLL_ALLGATHERV:
            out = g->sblk;
            in = (int64_t) r->counts[i] * rs;
            break;
        case CH4COLL_ALLTOALLV:
            in = (int64_t) r->counts[i] * rs;
            out = inplace ? in : (int64_t) s->counts[i] * ss;
            break;
        default:
            break;
        }
        g->stot += out;
        g->rtot += in;
        g->hs += (uint64_t) out * weight(rank, i);
        g->hr += (uint64_t) in * weight(i, rank);
    }
}

static void sign(const ch4coll_comm_t *c, const ch4coll_call_t *call, int nb,
                 int valid, ch4coll_vsig_t *g)
{
    int p = c->size, i;

    memset(g, 0, sizeof *g);
    g->coll = (int64_t) call->coll * 2 + (nb != 0);
    g->valid = valid;
    g->root = call->rooted ? call->root : 0;
    if (!valid)
        return; /* nothing else is read: it may not be safe to */
    g->inplace = call->inplace;
    if (ch4coll_coll_is_reduction(call->coll)) {
        ch4coll_elem_t e;
        ch4coll_host_elem(call->rcv.dt, &e);
        g->op = ch4coll_run_op_builtin(call->op) ? (int64_t) call->op : -1;
        g->type = ch4coll_host_type_predefined(call->rcv.dt)
                      ? (int64_t) call->rcv.dt
                      : -(int64_t) e.size;
        g->count = call->rcv.count;
        if (call->coll == CH4COLL_REDUCE_SCATTER) {
            g->vhash = (int64_t) hash_counts(call->rcv.counts, p, 1);
            for (g->count = 0, i = 0; i < p; i++)
                g->count += call->rcv.counts[i];
        }
        return;
    }
    sign_movement(call, c->rank, p, g);
}

int ch4coll_verify_start(ch4coll_comm_t *c, ch4coll_verify_t *v,
                         const ch4coll_call_t *call, int nb, int valid, int tag)
{
    sign(c, call, nb, valid, &v->sig[c->rank]);
    return ch4coll_sched_start(&v->sched, NULL, v->sig, tag, c->tp, c->tp_ctx);
}

/* ------------------------------------------------------------ check */

static const char *coll_of(int64_t code)
{
    static char buf[40];

    snprintf(buf, sizeof buf, "%s%s", code % 2 ? "i" : "",
             ch4coll_coll_name((int) (code / 2)));
    return buf;
}

/* The first rank whose field differs from rank ref's, or -1. */
#define FIRST_DIFF(v, field, ref, out)                                         \
    do {                                                                       \
        int r_;                                                                \
        (out) = -1;                                                            \
        for (r_ = 0; r_ < (v)->size && (out) < 0; r_++)                        \
            if ((v)->sig[r_].field != (v)->sig[ref].field)                     \
                (out) = r_;                                                    \
    } while (0)

static int fail(const ch4coll_comm_t *c, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(const ch4coll_comm_t *c, const char *what, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ch4coll_log(CH4COLL_LOG_WARN,
                "error: MPIR_CVAR_CH4COLL_VERIFY: %s on a communicator of %d "
                "ranks (this is rank %d): %s",
                what, c->size, c->rank, msg);
    return CH4COLL_ERR_MISMATCH;
}

static void op_text(int64_t op, char *buf, size_t len)
{
    if (op < 0)
        snprintf(buf, len, "a user-defined op");
    else
        snprintf(buf, len, "predefined op %#" PRIx64, (uint64_t) op);
}

static void type_text(int64_t t, char *buf, size_t len)
{
    if (t < 0)
        snprintf(buf, len, "a derived datatype of %" PRId64 " bytes", -t);
    else
        snprintf(buf, len, "predefined datatype %#" PRIx64, (uint64_t) t);
}

static int check_reduction(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                           const char *what)
{
    const ch4coll_vsig_t *s = v->sig;
    char a[64], b[64];
    int r;

    FIRST_DIFF(v, op, 0, r);
    if (r >= 0) {
        op_text(s[r].op, a, sizeof a);
        op_text(s[0].op, b, sizeof b);
        return fail(c, what, "rank %d passed %s, rank 0 %s", r, a, b);
    }
    FIRST_DIFF(v, type, 0, r);
    if (r >= 0) {
        type_text(s[r].type, a, sizeof a);
        type_text(s[0].type, b, sizeof b);
        return fail(c, what, "rank %d passed %s, rank 0 %s", r, a, b);
    }
    FIRST_DIFF(v, count, 0, r);
    if (r >= 0)
        return fail(c, what,
                    "rank %d passed count %" PRId64 ", rank 0 count %" PRId64,
                    r, s[r].count, s[0].count);
    FIRST_DIFF(v, vhash, 0, r);
    if (r >= 0)
        return fail(c, what,
                    "rank %d passed recvcounts that differ from rank 0's", r);
    return CH4COLL_OK;
}

/* Rooted regular collectives: the root's block size against the others'
 * (fields: the one the root declares, the one each rank declares). */
static int check_blocks(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                        const char *what, int ref, int root_field_send)
{
    const ch4coll_vsig_t *s = v->sig;
    int64_t want = root_field_send ? s[ref].sblk : s[ref].rblk;
    int r;

    for (r = 0; r < v->size; r++) {
        int64_t have = root_field_send ? s[r].rblk : s[r].sblk;
        if (r == ref && s[r].inplace)
            continue;
        if (have != want)
            return fail(c, what,
                        "rank %d %s %" PRId64 " bytes per block, rank %d %s "
                        "%" PRId64,
                        r, root_field_send ? "expects" : "sends", have, ref,
                        root_field_send ? "sends" : "expects", want);
    }
    return CH4COLL_OK;
}

static int check_matrix(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                        const char *what)
{
    const ch4coll_vsig_t *s = v->sig;
    uint64_t hs = 0, hr = 0;
    int64_t stot = 0, rtot = 0;
    int r;

    for (r = 0; r < v->size; r++) {
        hs += s[r].hs;
        hr += s[r].hr;
        stot += s[r].stot;
        rtot += s[r].rtot;
    }
    if (hs == hr)
        return CH4COLL_OK;
    return fail(c, what,
                "the send and receive counts do not match (the ranks send "
                "%" PRId64 " bytes in total and expect %" PRId64 ")",
                stot, rtot);
}

/* gatherv (send = 0) and scatterv at the root: rank by rank. */
static int check_root_v(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                        const ch4coll_call_t *call, const char *what, int send)
{
    const ch4coll_side_t *side = send ? &call->snd : &call->rcv;
    int64_t size = type_bytes(side->dt);
    int r;

    for (r = 0; r < v->size; r++) {
        int64_t want = (int64_t) side->counts[r] * size;
        int64_t have = send ? v->sig[r].rblk : v->sig[r].sblk;
        if (r == c->rank && v->sig[r].inplace)
            continue;
        if (have != want)
            return fail(c, what,
                        "rank %d %s %" PRId64 " bytes, the root's %s give "
                        "%" PRId64,
                        r, send ? "expects" : "sends", have,
                        send ? "sendcounts" : "recvcounts", want);
    }
    return CH4COLL_OK;
}

static int check_allgatherv(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                            const ch4coll_call_t *call, const char *what)
{
    int64_t size = type_bytes(call->rcv.dt);
    int r;

    FIRST_DIFF(v, vhash, 0, r);
    if (r >= 0)
        return fail(c, what,
                    "rank %d passed recvcounts (in bytes) that differ from "
                    "rank 0's",
                    r);
    for (r = 0; r < v->size; r++)
        if (v->sig[r].sblk != (int64_t) call->rcv.counts[r] * size)
            return fail(c, what,
                        "rank %d sends %" PRId64 " bytes, recvcounts[%d] "
                        "gives %" PRId64,
                        r, v->sig[r].sblk, r,
                        (int64_t) call->rcv.counts[r] * size);
    return CH4COLL_OK;
}

static int check_call(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                      const ch4coll_call_t *call)
{
    const ch4coll_vsig_t *s = v->sig;
    int coll = (int) (s[0].coll / 2), root = (int) s[0].root, r;
    const char *what = coll_of(s[0].coll);

    if (ch4coll_coll_is_reduction(coll))
        return check_reduction(c, v, what);
    switch (coll) {
    case CH4COLL_BCAST:
        return check_blocks(c, v, what, root, 1);
    case CH4COLL_GATHER:
        return check_blocks(c, v, what, root, 0);
    case CH4COLL_SCATTER:
        return check_blocks(c, v, what, root, 1);
    case CH4COLL_ALLGATHER:
    case CH4COLL_ALLTOALL:
        /* everyone's send block and receive block equal rank 0's */
        for (r = 0; r < v->size; r++)
            if (s[r].rblk != s[0].rblk || s[r].sblk != s[0].rblk)
                return fail(c, what,
                            "rank %d sends %" PRId64 " and expects %" PRId64
                            " bytes per block, rank 0 expects %" PRId64,
                            r, s[r].sblk, s[r].rblk, s[0].rblk);
        return CH4COLL_OK;
    case CH4COLL_ALLGATHERV:
        return check_allgatherv(c, v, call, what);
    case CH4COLL_GATHERV:
    case CH4COLL_SCATTERV:
        if (c->rank == root &&
            check_root_v(c, v, call, what, coll == CH4COLL_SCATTERV) != 0)
            return CH4COLL_ERR_MISMATCH;
        if (check_matrix(c, v, what) != CH4COLL_OK)
            return CH4COLL_ERR_MISMATCH;
        return CH4COLL_OK;
    case CH4COLL_ALLTOALLV:
        return check_matrix(c, v, what);
    default: /* barrier */
        return CH4COLL_OK;
    }
}

int ch4coll_verify_check(const ch4coll_comm_t *c, const ch4coll_verify_t *v,
                         const ch4coll_call_t *call)
{
    const ch4coll_vsig_t *s = v->sig;
    int r;

    FIRST_DIFF(v, coll, 0, r);
    if (r >= 0)
        return fail(c, coll_of(s[c->rank].coll), "rank %d called %s, rank 0 %s",
                    r, coll_of(s[r].coll), coll_of(s[0].coll));
    FIRST_DIFF(v, root, 0, r);
    if (r >= 0)
        return fail(c, coll_of(s[0].coll),
                    "rank %d passed root %" PRId64 ", rank 0 root %" PRId64, r,
                    s[r].root, s[0].root);
    if (!s[c->rank].valid)
        return CH4COLL_OK; /* the host MPI reports this rank's error */
    for (r = 0; r < v->size; r++)
        if (!s[r].valid)
            return fail(c, coll_of(s[0].coll),
                        "rank %d passed invalid arguments (its MPI error "
                        "says which)",
                        r);
    return check_call(c, v, call);
}
