/*
 * run.c - args -> select -> build or cache -> execute -> transport.
 *
 * key        the significant MPI arguments, raw (counts, handles,
 *            v-arrays): enough to find the cached schedule without asking
 *            MPI anything about the datatypes.
 * lookup     the communicator's cache.  On a miss shape() turns the
 *            arguments into the call shape (ch4coll_args_t: reductions keep
 *            the user's datatype as element, data movement is described in
 *            bytes), select() picks the algorithm, the builder emits the
 *            schedule, commit freezes it, and packing buffers are sized for
 *            non-contiguous datatypes.
 * execute    bind the buffers (packing non-contiguous data first), start,
 *            progress until done (yielding the core when idle and
 *            oversubscribed), unpack.
 *
 * A cache hit does no allocation and no datatype query: the key is built on
 * the stack from the arguments, the schedule and its buffers exist.
 */
#include "run.h"

#include "ch4coll.h"

#include <stdio.h>
#include <string.h>

#include "../algos/algo.h"
#include "../select/config.h"
#include "../select/select.h"
#include "../util/lock.h"
#include "../util/util.h"
#include "comm.h"
#include "../host/host.h"
#include "verify.h"

static uint64_t stat_calls, stat_native, stat_hits, stat_misses;
static char last_decision[sizeof(((ch4coll_centry_t *) 0)->decision)];
static const ch4coll_centry_t *last_entry;

void ch4coll_run_stats(uint64_t *calls, uint64_t *native, uint64_t *hits,
                       uint64_t *misses)
{
    *calls = stat_calls;
    *native = stat_native;
    *hits = stat_hits;
    *misses = stat_misses;
}

const char *ch4coll_last_decision(void)
{
    return last_decision;
}

static const ch4coll_elem_t byte_elem = {MPI_BYTE, 1, 1, 0, 1, 1};

/* Arguments MPICH would reject: leave them to the host MPI, which reports
 * them through the communicator's error handler. */
/* Only the counts MPI reads on this rank are checked: an ignored count may
 * be anything, and refusing it here would send this rank alone native.  In
 * preload mode comm_pmpi.c has already checked and reported bad arguments
 * before this runs; MPIR_CVAR_CH4COLL_VERIFY still relies on this check
 * (a rank whose arguments fail it joins the exchange as invalid). */
static int args_valid(const ch4coll_call_t *call)
{
    if (call->rooted && (call->root < 0 || call->root >= call->size))
        return 0;
    if (ch4coll_coll_is_reduction(call->coll))
        return call->rcv.count >= 0 && call->op != MPI_OP_NULL;
    if (call->s_sig && call->snd.count < 0)
        return 0;
    if (call->r_sig && call->rcv.count < 0)
        return 0;
    return 1;
}

/* The smallest displacement, or 0: MPI allows negative displacements,
 * the schedule's offsets are unsigned, so the side's base pointer moves
 * down by this many elements instead. */
static int min_displ(const int *displs, int p)
{
    int i, m = 0;

    for (i = 0; i < p; i++)
        if (displs[i] < m)
            m = displs[i];
    return m;
}

/* v-arrays in bytes into dst[0..p) (counts) and dst[p..2p) (displs, taken
 * from the shifted base). */
static int v_bytes(const int *counts, const int *displs, size_t size, int p,
                   int shift, size_t *dst)
{
    int i;

    for (i = 0; i < p; i++) {
        if (counts[i] < 0)
            return 0;
        dst[i] = (size_t) counts[i] * size;
        dst[p + i] = (size_t) ((int64_t) displs[i] - shift) * size;
    }
    return 1;
}

int ch4coll_run_op_builtin(MPI_Op op)
{
    static const MPI_Op builtin[] = {
        MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
        MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
        MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    size_t i;

    for (i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (op == builtin[i])
            return 1;
    return 0;
}

/* Reductions: the user's datatype is the element. */
static int shape_reduction(ch4coll_comm_t *c, const ch4coll_call_t *call,
                           ch4coll_args_t *a)
{
    int p = c->size, i;
    size_t sum = 0;

    ch4coll_host_elem(call->rcv.dt, &a->elem);
    a->op = call->op;
    a->commutative = ch4coll_host_commutative(call->op);
    a->op_builtin = ch4coll_run_op_builtin(call->op);
    if (a->op_builtin &&
        !ch4coll_host_accepts(call->rcv.dt, call->op, &a->elem))
        return 0;
    a->count = (size_t) call->rcv.count;
    if (call->coll == CH4COLL_REDUCE_SCATTER) {
        for (i = 0; i < p; i++) {
            if (call->rcv.counts[i] < 0)
                return 0;
            c->vbuf[i] = (size_t) call->rcv.counts[i];
            c->vbuf[p + i] = sum;
            sum += c->vbuf[i];
        }
        a->counts = c->vbuf;
        a->displs = c->vbuf + p;
        a->count = c->vbuf[c->rank];
    }
    return 1;
}

/* Data movement: everything in bytes, io describes the packing needs. */
static int shape_movement(ch4coll_comm_t *c, const ch4coll_call_t *call,
                          ch4coll_args_t *a, ch4coll_bind_t *io)
{
    int p = c->size, root = call->at_root;
    size_t *v = c->vbuf;
    const ch4coll_side_t *s = &call->snd, *r = &call->rcv;

    a->elem = byte_elem;
    a->commutative = 1;
    /* only the datatypes MPI says are significant on this rank are read */
    if (call->s_sig)
        ch4coll_host_elem(s->dt, &io->st);
    if (call->r_sig)
        ch4coll_host_elem(r->dt, &io->rt);
    io->s_nblk = io->r_nblk = 1;
    switch (a->coll) {
    case CH4COLL_BCAST:
        a->count = (size_t) r->count * io->rt.size;
        io->r_in = root;
        io->r_out = !root;
        break;
    case CH4COLL_GATHER:
    case CH4COLL_ALLGATHER:
    case CH4COLL_ALLTOALL:
        a->count = a->inplace ? (size_t) r->count * io->rt.size
                              : (size_t) s->count * io->st.size;
        io->s_in = !a->inplace;
        io->s_nblk = a->coll == CH4COLL_ALLTOALL ? p : 1;
        io->r_in = a->inplace;
        io->r_out = a->coll != CH4COLL_GATHER || root;
        io->r_nblk = p;
        break;
    case CH4COLL_SCATTER:
        a->count = root && a->inplace ? (size_t) s->count * io->st.size
                                      : (size_t) r->count * io->rt.size;
        io->s_in = root;
        io->s_nblk = p;
        io->r_out = !(root && a->inplace);
        break;
    case CH4COLL_ALLGATHERV:
    case CH4COLL_GATHERV:
        io->s_in = !a->inplace;
        io->r_v = 1;
        io->r_in = a->inplace;
        io->r_out = a->coll == CH4COLL_ALLGATHERV || root;
        if (a->coll == CH4COLL_ALLGATHERV || root) {
            io->r_shift = min_displ(r->displs, p);
            if (!v_bytes(r->counts, r->displs, io->rt.size, p, io->r_shift, v))
                return 0;
            a->counts = v;
            a->displs = v + p;
        }
        a->count = a->inplace ? v[a->rank] : (size_t) s->count * io->st.size;
        break;
    case CH4COLL_SCATTERV:
        io->s_in = root;
        io->s_v = 1;
        io->r_out = !(root && a->inplace);
        if (root) {
            io->s_shift = min_displ(s->displs, p);
            if (!v_bytes(s->counts, s->displs, io->st.size, p, io->s_shift, v))
                return 0;
            a->scounts = v;
            a->sdispls = v + p;
        }
        a->count =
            root && a->inplace ? v[a->rank] : (size_t) r->count * io->rt.size;
        break;
    case CH4COLL_ALLTOALLV:
        io->s_in = !a->inplace;
        io->s_v = io->r_v = 1;
        io->r_in = a->inplace;
        io->r_out = 1;
        io->r_shift = min_displ(r->displs, p);
        if (!v_bytes(r->counts, r->displs, io->rt.size, p, io->r_shift, v))
            return 0;
        if (a->inplace)
            memset(v + 2 * p, 0, 2 * (size_t) p * sizeof *v);
        else if ((io->s_shift = min_displ(s->displs, p)),
                 !v_bytes(s->counts, s->displs, io->st.size, p, io->s_shift,
                          v + 2 * p))
            return 0;
        a->counts = v;
        a->displs = v + p;
        a->scounts = v + 2 * p;
        a->sdispls = v + 3 * p;
        break;
    default: /* barrier */
        break;
    }
    return 1;
}

/* The cache key: the arguments MPI says are significant on this rank. */
static void make_key(const ch4coll_comm_t *c, const ch4coll_call_t *call,
                     int nb, ch4coll_key_t *k)
{
    int coll = call->coll, root = call->at_root;

    memset(&k->f, 0, sizeof k->f); /* padding too: compared bytewise */
    k->v[0] = k->v[1] = k->v[2] = k->v[3] = NULL;
    k->f.coll = coll;
    k->f.nb = nb;
    k->f.root = call->rooted ? call->root : 0;
    k->f.inplace = call->inplace;
    k->f.op = call->op;
    k->f.p = c->size;
    k->f.stype = k->f.rtype = MPI_DATATYPE_NULL;
    if (ch4coll_coll_is_reduction(coll)) {
        k->f.rcount = call->rcv.count;
        k->f.rtype = call->rcv.dt;
        k->v[0] = call->rcv.counts; /* reduce_scatter */
    } else {
        if (call->s_sig) {
            k->f.scount = call->snd.count;
            k->f.stype = call->snd.dt;
            if (call->snd.counts && (coll != CH4COLL_SCATTERV || root)) {
                k->v[2] = call->snd.counts;
                k->v[3] = call->snd.displs;
            }
        }
        if (call->r_sig) {
            k->f.rcount = call->rcv.count;
            k->f.rtype = call->rcv.dt;
            if (call->rcv.counts && (coll != CH4COLL_GATHERV || root)) {
                k->v[0] = call->rcv.counts;
                k->v[1] = call->rcv.displs;
            }
        }
    }
    k->f.nv = !!k->v[0] + !!k->v[1] + !!k->v[2] + !!k->v[3];
}

static int shape(ch4coll_comm_t *c, const ch4coll_call_t *call,
                 ch4coll_args_t *a, ch4coll_bind_t *io)
{
    int ok;

    memset(a, 0, sizeof *a);
    memset(io, 0, sizeof *io);
    a->coll = call->coll;
    a->rank = c->rank;
    a->size = c->size;
    a->root = call->rooted ? call->root : 0;
    a->inplace = call->inplace;
    a->op = MPI_OP_NULL;
    a->loc = &c->loc;
    a->subselect = ch4coll_select_sub;
    a->model = &ch4coll_config.model;
    if (ch4coll_coll_is_reduction(call->coll))
        ok = shape_reduction(c, call, a);
    else
        ok = shape_movement(c, call, a, io);
    return ok;
}

/* ------------------------------------------------------ packing support */

typedef struct {
    const ch4coll_side_t *side;
    const ch4coll_elem_t *t;
    int nblk, v;
    int shift; /* smallest displacement (<= 0) */
} side_view_t;

static size_t blk_count(const side_view_t *sv, int i)
{
    return sv->v ? (size_t) sv->side->counts[i] : (size_t) sv->side->count;
}

/* Displacement of block i from the shifted base, in elements. */
static size_t blk_disp(const side_view_t *sv, int i)
{
    return sv->v ? (size_t) ((int64_t) sv->side->displs[i] - sv->shift)
                 : (size_t) i * sv->side->count;
}

static size_t packed_bytes(const side_view_t *sv)
{
    size_t end = 0, e;
    int i;

    for (i = 0; i < sv->nblk; i++) {
        e = (blk_disp(sv, i) + blk_count(sv, i)) * sv->t->size;
        if (blk_count(sv, i) > 0 && e > end)
            end = e;
    }
    return end;
}

/* Pack (or unpack) every block between the user buffer and the stage. */
static int move_side(const side_view_t *sv, void *user, void *stage, int unpack)
{
    int i, rc = CH4COLL_OK;

    for (i = 0; i < sv->nblk && rc == CH4COLL_OK; i++) {
        size_t n = blk_count(sv, i), d = blk_disp(sv, i);
        char *u = (char *) user +
                  (ptrdiff_t) sv->shift * (ptrdiff_t) sv->t->extent +
                  d * sv->t->extent;
        char *st = (char *) stage + d * sv->t->size;
        if (n == 0)
            continue;
        if (unpack)
            rc = ch4coll_host_unpack(st, n * sv->t->size, u, n, sv->t->dt);
        else
            rc = ch4coll_host_pack(u, n, sv->t->dt, st, n * sv->t->size);
    }
    return rc;
}

static void views(const ch4coll_call_t *call, const ch4coll_bind_t *io, int p,
                  side_view_t *s, side_view_t *r)
{
    s->side = &call->snd;
    s->t = &io->st;
    s->v = io->s_v;
    s->nblk = io->s_v ? p : io->s_nblk;
    s->shift = io->s_shift;
    r->side = &call->rcv;
    r->t = &io->rt;
    r->v = io->r_v;
    r->nblk = io->r_v ? p : io->r_nblk;
    r->shift = io->r_shift;
}

static int need_send_stage(const ch4coll_bind_t *io)
{
    return io->s_in && !io->st.dense;
}

static int need_recv_stage(const ch4coll_bind_t *io)
{
    return (io->r_in || io->r_out) && !io->rt.dense;
}

/* ------------------------------------------------------------ build */

/* The decision text of an entry, formatted once when it is built. */
static void format_decision(ch4coll_centry_t *e, const ch4coll_args_t *a,
                            const ch4coll_choice_t *ch)
{
    int red = ch4coll_coll_is_reduction(a->coll), i, n;
    char params[96] = "";
    size_t used = 0;

    for (i = 0; i < ch4coll_algo_nparams(e->algo) && used < sizeof params; i++)
        used += (size_t) snprintf(
            params + used, sizeof params - used, "%s%s=%lld", i ? "," : ":",
            e->algo->params[i].name, (long long) ch->params[i]);
    n = snprintf(e->decision, sizeof e->decision,
                 "%s%s p=%d count=%zu %s=%zu root=%d%s%s: %s%s (%s)",
                 a->nonblocking ? "i" : "", ch4coll_coll_name(a->coll), a->size,
                 a->count, red ? "elem_bytes" : "bytes",
                 red ? a->elem.size : a->count, a->root,
                 a->inplace ? " in_place" : "",
                 red && !a->commutative ? " noncommutative" : "", e->algo->name,
                 params, ch->why);
    if (ch->path && n > 0 && (size_t) n < sizeof e->decision)
        snprintf(e->decision + n, sizeof e->decision - (size_t) n, " [%s]",
                 ch->path);
}

static void describe(const ch4coll_centry_t *e)
{
    memcpy(last_decision, e->decision, sizeof last_decision);
    last_entry = e;
}

static int alloc_stages(ch4coll_centry_t *e, const ch4coll_call_t *call,
                        const ch4coll_bind_t *io, int p);

static int build_entry(ch4coll_comm_t *c, const ch4coll_call_t *call,
                       const ch4coll_args_t *a, const ch4coll_key_t *k,
                       const ch4coll_bind_t *io, ch4coll_centry_t **out)
{
    ch4coll_centry_t *e;
    const ch4coll_algo_t *al;
    ch4coll_choice_t ch;
    int rc;

    rc = ch4coll_select(a, &c->tree, &c->sel, &ch, NULL, NULL);
    if (rc != CH4COLL_OK)
        return rc;
    al = ch.algo;
    e = ch4coll_cache_insert(&c->cache, k);
    if (!e)
        return CH4COLL_ERR_NOMEM;
    e->algo = al;
    e->bind = *io;
    e->bind.staged = !ch4coll_coll_is_reduction(a->coll) &&
                     (need_send_stage(io) || need_recv_stage(io));
    memcpy(e->params, ch.params, sizeof e->params);
    format_decision(e, a, &ch);
    describe(e);
    if (c->rank == 0 || ch4coll_log_on(CH4COLL_LOG_CALL))
        ch4coll_log(CH4COLL_LOG_INFO, "%s", last_decision);
    *out = e;
    if (ch4coll_algo_is_native(al))
        return CH4COLL_OK;
    rc = ch4coll_sched_init(&e->sched, &a->elem, a->op, a->rank, a->size);
    e->built = 1;
    if (rc == CH4COLL_OK)
        rc = al->build(&e->sched, a, e->params);
    if (rc == CH4COLL_OK)
        rc = ch4coll_sched_commit(&e->sched);
    if (rc == CH4COLL_OK && e->sched.ntags > c->tag_ub - c->tag_lo) {
        /* more tags than MPI_TAG_UB allows (huge p): the same on every
         * rank, so all of them run native */
        ch4coll_log(CH4COLL_LOG_WARN,
                    "warning: %s needs %d tags, above "
                    "MPI_TAG_UB %d; running native",
                    al->name, e->sched.ntags, c->tag_ub - c->tag_lo);
        ch4coll_sched_destroy(&e->sched);
        e->built = 0;
        e->algo = ch4coll_algo_find(a->coll, "native");
        return CH4COLL_OK;
    }
    if (rc == CH4COLL_OK && !ch4coll_coll_is_reduction(a->coll))
        rc = alloc_stages(e, call, io, a->size);
    if (rc != CH4COLL_OK) { /* never leave a broken entry behind */
        ch4coll_cache_remove(&c->cache, e);
        *out = NULL;
    }
    return rc;
}

/* Packing buffers for the non-contiguous sides of a data-movement call. */
static int alloc_stages(ch4coll_centry_t *e, const ch4coll_call_t *call,
                        const ch4coll_bind_t *io, int p)
{
    side_view_t sv, rv;

    views(call, io, p, &sv, &rv);
    if (need_send_stage(io)) {
        e->stage_bytes[0] = packed_bytes(&sv);
        e->stage[0] = ch4coll_malloc(e->stage_bytes[0]);
    }
    if (need_recv_stage(io)) {
        e->stage_bytes[1] = packed_bytes(&rv);
        e->stage[1] = ch4coll_malloc(e->stage_bytes[1]);
    }
    if ((need_send_stage(io) && !e->stage[0]) ||
        (need_recv_stage(io) && !e->stage[1]))
        return CH4COLL_ERR_NOMEM;
    return CH4COLL_OK;
}

/* ---------------------------------------------------------- execute */

/* Blocking inside the host spins without yielding the core; under SMPI
 * every poll costs simulated time instead, so there it always blocks. */
#ifdef CH4COLL_SMPI
#define MAY_BLOCK(yield) 1
#else
#define MAY_BLOCK(yield) (!(yield))
#endif

static int wait_done(ch4coll_sched_t *s, int yield)
{
    int rc, progressed, others;

    /* a transport that can block, a core of this rank's own, no nonblocking
     * collective needing progress meanwhile, and no other thread that could
     * want the lock */
    if (s->tp->waitsome && MAY_BLOCK(yield) && !ch4coll_host_busy() &&
        !ch4coll_locking)
        return ch4coll_sched_wait(s);
    for (;;) {
        rc = ch4coll_sched_progress(s, &progressed);
        if (rc != CH4COLL_OK || ch4coll_sched_done(s))
            return rc;
        /* outstanding nonblocking collectives move on meanwhile: a peer
         * may be waiting for them before it joins this call */
        others = ch4coll_host_progress_others();
        ch4coll_lock_pause(!progressed && !others && yield);
    }
}

/* The buffers the schedule runs on: the user's, or the stages with the
 * non-contiguous sides packed into them. */
static int bind(ch4coll_comm_t *c, void *const *stage, const ch4coll_bind_t *io,
                const ch4coll_call_t *call, const void **sbuf_out,
                void **rbuf_out)
{
    const void *sbuf = call->snd.buf == MPI_IN_PLACE ? NULL : call->snd.buf;
    void *rbuf = call->rcv.buf == MPI_IN_PLACE ? NULL : (void *) call->rcv.buf;
    side_view_t sv, rv;
    int rc;

    if (io->staged) {
        views(call, io, c->size, &sv, &rv);
        if (need_send_stage(io)) {
            rc = move_side(&sv, (void *) sbuf, stage[0], 0);
            if (rc != CH4COLL_OK)
                return rc;
        }
        if (need_recv_stage(io) && io->r_in) {
            rc = move_side(&rv, rbuf, stage[1], 0);
            if (rc != CH4COLL_OK)
                return rc;
        }
    }
    /* a v side with negative displacements: offsets start at the lowest */
    if (io->staged && need_send_stage(io))
        sbuf = stage[0];
    else if (sbuf && io->s_shift)
        sbuf = (const char *) sbuf +
               (ptrdiff_t) io->s_shift * (ptrdiff_t) io->st.extent;
    if (io->staged && need_recv_stage(io))
        rbuf = stage[1];
    else if (rbuf && io->r_shift)
        rbuf =
            (char *) rbuf + (ptrdiff_t) io->r_shift * (ptrdiff_t) io->rt.extent;
    *sbuf_out = sbuf;
    *rbuf_out = rbuf;
    return CH4COLL_OK;
}

/* After the schedule: unpack a staged receive side. */
static int end(ch4coll_comm_t *c, void *const *stage, const ch4coll_bind_t *io,
               const ch4coll_call_t *call)
{
    side_view_t sv, rv;

    if (!(io->staged && need_recv_stage(io) && io->r_out))
        return CH4COLL_OK;
    views(call, io, c->size, &sv, &rv);
    return move_side(&rv, (void *) call->rcv.buf, stage[1], 1);
}

/* Run sched with its stage and binding from start to finish.  direct: it
 * may block in the host MPI for a one-message schedule. */
static int run_to_end(ch4coll_comm_t *c, ch4coll_sched_t *sched,
                      void *const *stage, const ch4coll_bind_t *io,
                      const ch4coll_call_t *call, int direct)
{
    const void *sbuf;
    void *rbuf;
    int rc = bind(c, stage, io, call, &sbuf, &rbuf), tag;

    if (rc != CH4COLL_OK)
        return rc;
    tag = ch4coll_comm_next_tag(c, sched->ntags);
    if (!(direct && ch4coll_sched_run_now(sched, sbuf, rbuf, tag, c->tp,
                                          c->tp_ctx, &rc))) {
        rc = ch4coll_sched_start(sched, sbuf, rbuf, tag, c->tp, c->tp_ctx);
        if (rc == CH4COLL_OK)
            rc = wait_done(sched, c->yield);
    }
    return rc == CH4COLL_OK ? end(c, stage, io, call) : rc;
}

/* The entry's own schedule.  At MPI_THREAD_MULTIPLE the wait lets go of
 * the lock, and meanwhile another thread may free a datatype or op the
 * entry is keyed by, which evicts it: the call runs an instance then,
 * which outlives its entry (core/cache.h).  It never blocks in the host
 * there, and otherwise only with a core of its own and no nonblocking
 * collective that would wait meanwhile. */
static int execute(ch4coll_comm_t *c, ch4coll_centry_t *e,
                   const ch4coll_call_t *call)
{
    ch4coll_inst_t *in;
    int rc;

    if (!ch4coll_locking)
        return run_to_end(c, &e->sched, e->stage, &e->bind, call,
                          !c->yield && !ch4coll_host_busy());
    in = ch4coll_cache_acquire(e);
    if (!in)
        return CH4COLL_ERR_NOMEM;
    rc = run_to_end(c, &in->sched, in->stage, &in->bind, call, 0);
    ch4coll_cache_release(in);
    return rc;
}

/* A miss: check the arguments, compute the shape, select and build. */
static int miss(ch4coll_comm_t *c, const ch4coll_call_t *call, int nb,
                const ch4coll_key_t *k, ch4coll_centry_t **e)
{
    ch4coll_args_t a;
    ch4coll_bind_t io;

    *e = NULL;
    if (!args_valid(call) || !shape(c, call, &a, &io))
        return CH4COLL_OK; /* invalid: the host MPI reports it */
    a.nonblocking = nb;
    return build_entry(c, call, &a, k, &io, e);
}

/* MPIR_CVAR_CH4COLL_VERIFY on a blocking call: exchange the signatures
 * with the communicator's verifier and check them, before anything else
 * (a mismatch may send ranks to different algorithms, or some native). */
static int verify_blocking(ch4coll_comm_t *c, const ch4coll_call_t *call)
{
    int rc;

    if (!c->verify && !(c->verify = ch4coll_verify_new(c->rank, c->size)))
        return CH4COLL_ERR_NOMEM;
    rc = ch4coll_verify_start(
        c, c->verify, call, 0, args_valid(call),
        ch4coll_comm_next_tag(c, ch4coll_verify_ntags(c->verify)));
    if (rc == CH4COLL_OK)
        rc = wait_done(&c->verify->sched, c->yield);
    return rc == CH4COLL_OK ? ch4coll_verify_check(c, c->verify, call) : rc;
}

/* A found or new entry e: its schedule, or native. */
static int take(ch4coll_centry_t *e, ch4coll_centry_t **ep)
{
    if (e != last_entry)
        describe(e);
    if (!e->built)
        return ch4coll_run_native();
    if (ch4coll_log_on(CH4COLL_LOG_CALL))
        ch4coll_log(CH4COLL_LOG_CALL, "%s", last_decision);
    *ep = e;
    return MPI_SUCCESS;
}

/* The hot entry (core/cache.h) serves blocking calls of the regular
 * collectives (no v-arrays, whose contents may change under the same
 * pointers). */
static int hot_kind(const ch4coll_call_t *call, int nb)
{
    return !nb && !call->snd.counts && !call->rcv.counts;
}

/* The arguments the key is made of, raw: equal ones give an equal key on
 * the same communicator and rank (the ones MPI ignores here too, which can
 * only make a repeat miss). */
static void hot_args(const ch4coll_call_t *call, ch4coll_hot_args_t *h)
{
    h->coll = call->coll;
    h->root = call->root;
    h->inplace = call->inplace;
    h->scount = call->snd.count;
    h->rcount = call->rcv.count;
    h->stype = call->snd.dt;
    h->rtype = call->rcv.dt;
    h->op = call->op;
}

static int hot_repeat(const ch4coll_hot_args_t *h, const ch4coll_call_t *call)
{
    return h->coll == call->coll && h->root == call->root &&
           h->rcount == call->rcv.count && h->rtype == call->rcv.dt &&
           h->scount == call->snd.count && h->stype == call->snd.dt &&
           h->op == call->op && h->inplace == call->inplace;
}

static void make_hot(ch4coll_cache_t *cache, const ch4coll_call_t *call, int nb,
                     ch4coll_centry_t *e)
{
    if (hot_kind(call, nb)) {
        hot_args(call, &cache->hot_args);
        cache->hot = e;
    }
}

/* The key of call into k, and its entry taken if the cache holds it:
 * CH4COLL_RUN_MISS otherwise.  A repeat of the communicator's last
 * blocking call needs no key. */
static int cached(ch4coll_comm_t *c, const ch4coll_call_t *call, int nb,
                  ch4coll_key_t *k, ch4coll_centry_t **ep)
{
    ch4coll_cache_t *cache = &c->cache;
    ch4coll_centry_t *e = cache->hot;

    if (e && hot_kind(call, nb) && hot_repeat(&cache->hot_args, call)) {
        cache->hits++;
        stat_hits++;
        return take(e, ep);
    }
    make_key(c, call, nb, k);
    e = ch4coll_cache_lookup(cache, k);
    if (!e)
        return CH4COLL_RUN_MISS;
    stat_hits++;
    make_hot(cache, call, nb, e);
    return take(e, ep);
}

int ch4coll_run_cached(ch4coll_comm_t *c, const ch4coll_call_t *call, int nb,
                       ch4coll_centry_t **ep)
{
    ch4coll_key_t k;

    return c->inter ? ch4coll_run_native() : cached(c, call, nb, &k, ep);
}

int ch4coll_run_lookup(ch4coll_comm_t *c, const ch4coll_call_t *call, int nb,
                       ch4coll_centry_t **ep)
{
    ch4coll_key_t k;
    ch4coll_centry_t *e;
    int rc;

    if (c->inter)
        return ch4coll_run_native();
    if (ch4coll_config.verify && !nb) {
        rc = verify_blocking(c, call);
        if (rc != CH4COLL_OK)
            return ch4coll_host_error(call->comm, rc);
    }
    rc = cached(c, call, nb, &k, ep);
    if (rc != CH4COLL_RUN_MISS)
        return rc;
    stat_misses++;
    rc = miss(c, call, nb, &k, &e);
    if (rc != CH4COLL_OK)
        return ch4coll_host_error(call->comm, rc);
    if (!e)
        return ch4coll_run_native();
    make_hot(&c->cache, call, nb, e);
    return take(e, ep);
}

int ch4coll_run_native(void)
{
    stat_native++;
    return CH4COLL_RUN_NATIVE;
}

int ch4coll_run_execute(ch4coll_comm_t *c, ch4coll_centry_t *e,
                        const ch4coll_call_t *call)
{
    int rc;

    stat_calls++;
    rc = execute(c, e, call);
    return rc == CH4COLL_OK ? MPI_SUCCESS : ch4coll_host_error(call->comm, rc);
}

static void free_verifier(void *v)
{
    ch4coll_verify_free(v);
}

/* An instance's verifier (MPIR_CVAR_CH4COLL_VERIFY): its extension. */
static int attach_verifier(ch4coll_inst_t *in, const ch4coll_comm_t *c)
{
    in->ext = ch4coll_verify_new(c->rank, c->size);
    in->ext_free = free_verifier;
    return in->ext != NULL;
}

int ch4coll_run_acquire(ch4coll_comm_t *c, ch4coll_centry_t *e,
                        const ch4coll_call_t *call, ch4coll_inst_t **in)
{
    *in = ch4coll_cache_acquire(e);
    if (*in && ch4coll_config.verify && !(*in)->ext &&
        !attach_verifier(*in, c)) {
        ch4coll_cache_release(*in);
        *in = NULL;
    }
    return *in ? MPI_SUCCESS
               : ch4coll_host_error(call->comm, CH4COLL_ERR_NOMEM);
}

int ch4coll_run_ntags(const ch4coll_inst_t *in)
{
    return in->sched.ntags + (in->ext ? ch4coll_verify_ntags(in->ext) : 0);
}

int ch4coll_run_begin(ch4coll_comm_t *c, ch4coll_inst_t *in,
                      const ch4coll_call_t *call, int tag)
{
    ch4coll_verify_t *v = in->ext;
    const void *sbuf;
    void *rbuf;
    int rc = bind(c, in->stage, &in->bind, call, &sbuf, &rbuf), vtag = -1;

    stat_calls++; /* every start of a persistent request counts */
    if (rc != CH4COLL_OK)
        return ch4coll_host_error(call->comm, rc);
    if (tag < 0)
        tag = ch4coll_comm_next_tag(c, ch4coll_run_ntags(in));
    if (v) { /* the exchange first; the schedule starts after the check */
        vtag = tag;
        tag += ch4coll_verify_ntags(v);
        v->sbuf = sbuf;
        v->rbuf = rbuf;
        v->tag = tag;
        v->pending = 1;
        rc = ch4coll_verify_start(c, v, call, 1, 1, vtag);
    } else {
        rc = ch4coll_sched_start(&in->sched, sbuf, rbuf, tag, c->tp, c->tp_ctx);
    }
    return rc == CH4COLL_OK ? MPI_SUCCESS : ch4coll_host_error(call->comm, rc);
}

int ch4coll_run_progress(ch4coll_comm_t *c, ch4coll_inst_t *in,
                         const ch4coll_call_t *call, int *progressed, int *done)
{
    ch4coll_verify_t *v = in->ext;
    int rc, moved;

    *done = 0;
    *progressed = 0;
    if (v && v->pending) {
        rc = ch4coll_sched_progress(&v->sched, progressed);
        if (rc != CH4COLL_OK || !ch4coll_sched_done(&v->sched))
            return rc;
        v->pending = 0;
        rc = ch4coll_verify_check(c, v, call);
        if (rc == CH4COLL_OK)
            rc = ch4coll_sched_start(&in->sched, v->sbuf, v->rbuf, v->tag,
                                     c->tp, c->tp_ctx);
        if (rc != CH4COLL_OK)
            return rc;
    }
    rc = ch4coll_sched_progress(&in->sched, &moved);
    *progressed |= moved;
    *done = rc == CH4COLL_OK && ch4coll_sched_done(&in->sched);
    return rc;
}

int ch4coll_run_end(ch4coll_comm_t *c, ch4coll_inst_t *in,
                    const ch4coll_call_t *call)
{
    return end(c, in->stage, &in->bind, call);
}

void ch4coll_run_types(const ch4coll_call_t *call, MPI_Datatype *st,
                       MPI_Datatype *rt)
{
    *st = call->s_sig ? call->snd.dt : MPI_DATATYPE_NULL;
    *rt = call->r_sig ? call->rcv.dt : MPI_DATATYPE_NULL;
}
