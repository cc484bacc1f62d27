/*
 * mpich.c - ch4coll inside MPICH at the ch4 netmod level (the place hcoll
 * takes); built only by maint/build-mpich.
 *
 * State   created by the netmod's commit hook for every intracommunicator
 *         the application can see (hierarchy flat or parent) and freed by
 *         its free hook; MPICH's own node and node-roots
 *         sub-communicators are skipped on purpose: MPICH's algorithms
 *         use them internally, and ch4coll's node-aware schedules build
 *         their own structure from the node of every rank, which MPICH
 *         already knows (MPID_Get_node_id), so creating a state
 *         communicates nothing.
 * Tags    from the communicator's nonblocking-collective sequence
 *         (next_sched_tag, the one MPICH's own nonblocking schedules use),
 *         in MPICH's collective context: MPICH's blocking collectives use
 *         fixed tags below it, so nothing collides whichever library runs
 *         a call, as long as every rank makes the same choice (selection
 *         is a function of arguments every rank agrees on).
 * Calls   blocking ones run to completion here; nonblocking ones get a
 *         request of MPICH's (kind COLL) and move on in a progress hook
 *         MPICH calls from its progress engine, active while any is in
 *         flight; persistent ones are MPICH's kind PREQUEST_COLL
 *         with a ch4coll op as their schedule (run_persistent below).
 */
#include "mpiimpl.h"

#include <limits.h>

#include "ch4coll.h"

#include "../select/config.h"
#include "../select/select.h"
#include "../util/util.h"
#include "../core/comm.h"
#include "../host/host.h"
#include "mpich.h"
#include "../core/run.h"

extern const ch4coll_transport_t ch4coll_transport_mpich;
extern int ch4coll_mpich_in_hook;
const char *ch4coll_mpich_cvar(const char *name); /* mpich/cvars.c */

/* ------------------------------------------------------------ state */

typedef struct mstate {
    ch4coll_comm_t c; /* first: released with ch4coll_comm_release */
    MPIR_Comm *comm;
    int *vint;            /* 4 * size ints: v-arrays converted from MPI_Aint */
    struct mstate *hnext; /* hash chain */
} mstate_t;

#define NBUCKETS 256
static mstate_t *buckets[NBUCKETS];
static int initialized, hook_id = -1;

static unsigned bucket_of(const MPIR_Comm *comm)
{
    return (unsigned) (((uintptr_t) comm >> 4) % NBUCKETS);
}

static mstate_t *state_of(const MPIR_Comm *comm)
{
    mstate_t *m;

    for (m = buckets[bucket_of(comm)]; m; m = m->hnext)
        if (m->comm == comm)
            return m;
    return NULL;
}

static void free_vint(ch4coll_comm_t *c)
{
    ch4coll_free(((mstate_t *) c)->vint);
}

static int progress_hook(int *made_progress);

static void init_once(void)
{
    if (initialized)
        return;
    initialized = 1;
    ch4coll_log_rank = MPIR_Process.rank;
    ch4coll_getenv = ch4coll_mpich_cvar;
    ch4coll_config_load();
    ch4coll_select_init();
    ch4coll_comm_threads(ch4coll_host_thread_multiple(), 0);
    ch4coll_node_ranks =
        MPIR_Process.local_size > 0 ? MPIR_Process.local_size : 1;
    MPIR_Progress_hook_register(progress_hook, &hook_id);
    ch4coll_log(CH4COLL_LOG_INFO,
                "ch4coll %s in MPICH: %s, %d rank(s) on this node, "
                "selection from %s",
                CH4COLL_VERSION, ch4coll_config.enable ? "enabled" : "disabled",
                ch4coll_node_ranks,
                ch4coll_select_tree() ? ch4coll_select_tree()->name : "-");
}

int MPIDI_CH4COLL_comm_create(MPIR_Comm *comm)
{
    mstate_t *m;
    ch4coll_comm_t *c;
    int i, id;

    init_once();
    if (!ch4coll_config.enable ||
        comm->comm_kind != MPIR_COMM_KIND__INTRACOMM ||
        (comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__FLAT &&
         comm->hierarchy_kind != MPIR_COMM_HIERARCHY_KIND__PARENT))
        return MPI_SUCCESS; /* MPICH runs everything on it */
    m = ch4coll_calloc(1, sizeof *m);
    if (!m)
        return MPI_SUCCESS; /* no state: MPICH's collectives, as without */
    c = &m->c;
    m->comm = comm;
    c->user = comm->handle;
    c->dup = MPI_COMM_NULL;
    c->rank = comm->rank;
    c->size = comm->local_size;
    c->tp = &ch4coll_transport_mpich;
    c->tp_ctx = comm;
    c->tag_next = &comm->next_sched_tag;
    c->tag_lo = MPIR_FIRST_NBC_TAG;
    c->tag_ub = MPIR_Process.attrs.tag_ub - 1; /* 0 before MPI_Init ends */
    c->host_free = free_vint;
    m->vint = ch4coll_malloc(4 * (size_t) c->size * sizeof *m->vint);
    c->node_of = ch4coll_malloc((size_t) c->size * sizeof *c->node_of);
    if (!m->vint || !c->node_of) {
        ch4coll_comm_release(c);
        return MPI_SUCCESS;
    }
    for (i = 0; i < c->size; i++)
        c->node_of[i] = MPID_Get_node_id(comm, i, &id) == MPI_SUCCESS ? id : 0;
    if (ch4coll_comm_setup(c) != CH4COLL_OK) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "warning: no ch4coll state for a communicator of "
                    "%d ranks (out of memory); MPICH runs its collectives",
                    c->size);
        ch4coll_comm_release(c);
        return MPI_SUCCESS;
    }
    m->hnext = buckets[bucket_of(comm)];
    buckets[bucket_of(comm)] = m;
    return MPI_SUCCESS;
}

/* MPICH frees a communicator only when no request holds it, and every
 * ch4coll request holds its communicator: nothing is in flight here. */
int MPIDI_CH4COLL_comm_free(MPIR_Comm *comm)
{
    mstate_t **p, *m;

    for (p = &buckets[bucket_of(comm)]; *p; p = &(*p)->hnext) {
        if ((*p)->comm != comm)
            continue;
        m = *p;
        *p = m->hnext;
        ch4coll_comm_unlink(&m->c);
        ch4coll_comm_release(&m->c);
        break;
    }
    return MPI_SUCCESS;
}

/* A datatype or op is destroyed (its handle may be reused): cached
 * schedules that name it go (the netmod's free hooks). */
int MPIDI_CH4COLL_type_free(MPI_Datatype dt)
{
    ch4coll_comm_forget(dt, MPI_OP_NULL);
    return MPI_SUCCESS;
}

int MPIDI_CH4COLL_op_free(MPI_Op op)
{
    ch4coll_comm_forget(MPI_DATATYPE_NULL, op);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------- call helpers */

typedef struct {
    ch4coll_call_t call;
    mstate_t *m;
    int ok; /* 0: some count does not fit ch4coll's int counts */
} mcall_t;

static void mcall_init(mcall_t *mc, int coll, MPIR_Comm *comm, int root,
                       MPI_Op op)
{
    memset(mc, 0, sizeof *mc);
    mc->call.coll = coll;
    mc->call.comm = comm->handle;
    mc->call.root = root;
    mc->call.op = op;
    mc->call.snd.dt = mc->call.rcv.dt = MPI_DATATYPE_NULL;
    mc->m = ch4coll_config.enable ? state_of(comm) : NULL;
    mc->ok = mc->m != NULL;
    if (mc->m && mc->m->c.tag_ub <= mc->m->c.tag_lo)
        mc->m->c.tag_ub = MPIR_Process.attrs.tag_ub - 1;
}

static int count_of(mcall_t *mc, MPI_Aint n)
{
    if (n > INT_MAX || n < INT_MIN)
        mc->ok = 0;
    return (int) n;
}

static void side(mcall_t *mc, ch4coll_side_t *s, const void *buf, MPI_Aint n,
                 MPI_Datatype dt)
{
    s->buf = buf;
    s->count = count_of(mc, n);
    s->dt = dt;
}

/* v-arrays into the state's int scratch (slot 0..3 of size ints). */
static const int *ints(mcall_t *mc, int slot, const MPI_Aint *a)
{
    int p = mc->m ? mc->m->c.size : 0, i, *dst;

    if (!a || !mc->m)
        return NULL;
    dst = mc->m->vint + (size_t) slot * (size_t) p;
    for (i = 0; i < p; i++)
        dst[i] = count_of(mc, a[i]);
    return dst;
}

/* 1 if ch4coll ran the blocking call (*rc its result), 0 for MPICH. */
static int run_blocking(mcall_t *mc, int *rc)
{
    ch4coll_centry_t *e;

    if (!mc->ok) {
        ch4coll_run_native();
        return 0;
    }
    ch4coll_call_describe(&mc->call, mc->m->c.rank, mc->m->c.size);
    *rc = ch4coll_run_lookup(&mc->m->c, &mc->call, 0, &e);
    if (*rc == CH4COLL_RUN_NATIVE)
        return 0;
    if (*rc == MPI_SUCCESS)
        *rc = ch4coll_run_execute(&mc->m->c, e, &mc->call);
    return 1;
}

/* ------------------------------------- nonblocking and persistent calls */

typedef struct op {
    MPIR_Request *req; /* the running call's; NULL between persistent runs */
    mstate_t *m;
    ch4coll_inst_t *in;
    ch4coll_call_t call; /* v-arrays point into vint below */
    MPI_Datatype st, rt; /* held until released: the application may */
    MPI_Op op;           /* free them before (MPI keeps them alive) */
    int *vint;
    int tag;        /* persistent: its tags, fixed at init; else -1 */
    int persistent; /* owned by a persistent request, not by its run */
    struct op *next;
} op_t;

static op_t *active;

/* Let go of everything o holds, and o. */
static void op_release(op_t *o)
{
    ch4coll_cache_release(o->in);
    o->m->c.refs--;
    MPIR_Datatype_release_if_not_builtin(o->st);
    MPIR_Datatype_release_if_not_builtin(o->rt);
    if (o->op != MPI_OP_NULL)
        MPIR_Op_release_if_not_builtin(o->op);
    ch4coll_free(o->vint);
    ch4coll_free(o);
}

static int finish(op_t *o, int rc)
{
    MPIR_Request *req = o->req;

    if (rc == CH4COLL_OK)
        rc = ch4coll_run_end(&o->m->c, o->in, &o->call);
    req->status.MPI_ERROR =
        rc == CH4COLL_OK ? MPI_SUCCESS : ch4coll_host_error(o->call.comm, rc);
    o->req = NULL;
    if (!o->persistent)
        op_release(o);
    MPID_Request_complete(req); /* drops the reference of the schedule */
    return MPI_SUCCESS;
}

static int progress_hook(int *made_progress)
{
    op_t **p = &active, *o;
    int rc, progressed, done;

    if (ch4coll_mpich_in_hook)
        return MPI_SUCCESS;
    ch4coll_mpich_in_hook = 1;
    while ((o = *p)) {
        progressed = 0;
        rc =
            ch4coll_run_progress(&o->m->c, o->in, &o->call, &progressed, &done);
        if (progressed)
            *made_progress = 1;
        if (rc != CH4COLL_OK || done) {
            *p = o->next;
            finish(o, rc);
            *made_progress = 1;
        } else {
            p = &o->next;
        }
    }
    ch4coll_mpich_in_hook = 0;
    if (!active)
        MPIR_Progress_hook_deactivate(hook_id);
    return MPI_SUCCESS;
}

/* The call's v-arrays copied into o (they must outlive the start call). */
static int keep_arrays(op_t *o, int p)
{
    const int **v[4] = {&o->call.rcv.counts, &o->call.rcv.displs,
                        &o->call.snd.counts, &o->call.snd.displs};
    int i;

    o->vint = ch4coll_malloc(4 * (size_t) p * sizeof *o->vint);
    if (!o->vint)
        return CH4COLL_ERR_NOMEM;
    for (i = 0; i < 4; i++) {
        if (!*v[i])
            continue;
        memcpy(o->vint + (size_t) i * (size_t) p, *v[i],
               (size_t) p * sizeof(int));
        *v[i] = o->vint + (size_t) i * (size_t) p;
    }
    return CH4COLL_OK;
}

/* 1 if ch4coll takes the call: *rc is MPI_SUCCESS with *out an op of it
 * (an instance of its schedule, references on its communicator,
 * datatypes and op), or the error; 0 for MPICH. */
static int op_make(mcall_t *mc, op_t **out, int *rc)
{
    ch4coll_centry_t *e;
    op_t *o;

    *out = NULL;
    if (!mc->ok) {
        ch4coll_run_native();
        return 0;
    }
    ch4coll_call_describe(&mc->call, mc->m->c.rank, mc->m->c.size);
    *rc = ch4coll_run_lookup(&mc->m->c, &mc->call, 1, &e);
    if (*rc == CH4COLL_RUN_NATIVE)
        return 0;
    if (*rc != MPI_SUCCESS)
        return 1;
    o = ch4coll_calloc(1, sizeof *o);
    if (o) {
        o->m = mc->m;
        o->call = mc->call;
        o->tag = -1;
    }
    if (!o || keep_arrays(o, mc->m->c.size) != CH4COLL_OK ||
        (*rc = ch4coll_run_acquire(&mc->m->c, e, &o->call, &o->in)) !=
            MPI_SUCCESS) {
        if (o)
            ch4coll_free(o->vint);
        ch4coll_free(o);
        if (*rc == MPI_SUCCESS)
            *rc = ch4coll_host_error(mc->call.comm, CH4COLL_ERR_NOMEM);
        return 1;
    }
    o->m->c.refs++;
    ch4coll_run_types(&o->call, &o->st, &o->rt);
    o->op = o->call.op;
    MPIR_Datatype_add_ref_if_not_builtin(o->st);
    MPIR_Datatype_add_ref_if_not_builtin(o->rt);
    if (o->op != MPI_OP_NULL)
        MPIR_Op_add_ref_if_not_builtin(o->op);
    *out = o;
    return 1;
}

/* Run o once behind a new request of MPICH's (kind COLL): MPI_SUCCESS
 * (an error of the run is reported through the request's status), or an
 * error with no request. */
static int op_start(op_t *o, MPIR_Request **req)
{
    int rc;

    o->req = MPIR_Request_create(MPIR_REQUEST_KIND__COLL);
    if (!o->req)
        return ch4coll_host_error(o->call.comm, CH4COLL_ERR_NOMEM);
    MPIR_Request_add_ref(o->req); /* the schedule's, dropped at completion */
    o->req->comm = o->m->comm;    /* holds the communicator until freed */
    MPIR_Comm_add_ref(o->m->comm);
    *req = o->req;
    rc = ch4coll_run_begin(&o->m->c, o->in, &o->call, o->tag);
    if (rc != MPI_SUCCESS)
        return finish(o, CH4COLL_ERR_MPI);
    o->next = active;
    active = o;
    MPIR_Progress_hook_activate(hook_id);
    return MPI_SUCCESS;
}

/* 1 if ch4coll started the nonblocking call (*rc, *req), 0 for MPICH. */
static int run_nonblocking(mcall_t *mc, MPIR_Request **req, int *rc)
{
    op_t *o;

    if (!op_make(mc, &o, rc))
        return 0;
    if (*rc == MPI_SUCCESS && (*rc = op_start(o, req)) != MPI_SUCCESS)
        op_release(o); /* no request was made */
    return 1;
}

/* Persistent collectives.  maint/build-mpich turns MPICH's
 * MPID_<Coll>_init (ch4_coll.h) into MPIDI_CH4COLL_<Coll>_init.  ch4coll's
 * request is MPICH's own kind PREQUEST_COLL, with sched_type
 * MPIR_SCHED_CH4COLL (a value the build adds) and an op that lives as
 * long as the request as its sched: the schedule's instance, the call
 * with its v-arrays, its tags (fixed now: persistent collectives match in
 * the order of their init calls) and the references.  MPICH's
 * MPIR_Persist_coll_start and MPIR_Persist_coll_free_cb call
 * MPIDI_CH4COLL_persist_start and _free for it; each start runs the op
 * behind a new request, as a nonblocking call. */
static int run_persistent(mcall_t *mc, MPIR_Request **req, int *rc)
{
    MPIR_Request *r;
    op_t *o;

    if (!op_make(mc, &o, rc))
        return 0;
    if (*rc != MPI_SUCCESS)
        return 1;
    r = MPIR_Request_create(MPIR_REQUEST_KIND__PREQUEST_COLL);
    if (!r) {
        op_release(o);
        *rc = ch4coll_host_error(mc->call.comm, CH4COLL_ERR_NOMEM);
        return 1;
    }
    o->persistent = 1;
    o->tag = ch4coll_comm_next_tag(&o->m->c, ch4coll_run_ntags(o->in));
    MPIR_Comm_add_ref(o->m->comm);
    r->comm = o->m->comm;
    r->u.persist_coll.sched_type = MPIR_SCHED_CH4COLL;
    r->u.persist_coll.sched = o;
    r->u.persist_coll.real_request = NULL;
    *req = r;
    return 1;
}

int MPIDI_CH4COLL_persist_start(void *sched, MPIR_Request **real)
{
    return op_start(sched, real);
}

void MPIDI_CH4COLL_persist_free(void *sched)
{
    op_release(sched);
}

/* --------------------------------------------------- the 32 entries */

static void barrier_call(mcall_t *mc, MPIR_Comm *comm)
{
    mcall_init(mc, CH4COLL_BARRIER, comm, 0, MPI_OP_NULL);
}

int MPIDI_CH4COLL_Barrier(MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    barrier_call(&mc, comm);
    return run_blocking(&mc, &rc) ? rc : MPIR_Barrier_impl(comm, errflag);
}

int MPIDI_CH4COLL_Ibarrier(MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    barrier_call(&mc, comm);
    return run_nonblocking(&mc, req, &rc) ? rc : MPIR_Ibarrier_impl(comm, req);
}

static void bcast_call(mcall_t *mc, void *buffer, MPI_Aint count,
                       MPI_Datatype datatype, int root, MPIR_Comm *comm)
{
    mcall_init(mc, CH4COLL_BCAST, comm, root, MPI_OP_NULL);
    side(mc, &mc->call.rcv, buffer, count, datatype);
}

int MPIDI_CH4COLL_Bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                        int root, MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    bcast_call(&mc, buffer, count, datatype, root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Bcast_impl(buffer, count, datatype, root, comm, errflag);
}

int MPIDI_CH4COLL_Ibcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                         int root, MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    bcast_call(&mc, buffer, count, datatype, root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ibcast_impl(buffer, count, datatype, root, comm, req);
}

/* reduce, allreduce, scan, exscan, reduce_scatter_block: one count */
static void reduction_call(mcall_t *mc, int coll, const void *sendbuf,
                           void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                           MPI_Op op, int root, MPIR_Comm *comm)
{
    mcall_init(mc, coll, comm, root, op);
    side(mc, &mc->call.snd, sendbuf, count, datatype);
    side(mc, &mc->call.rcv, recvbuf, count, datatype);
}

int MPIDI_CH4COLL_Reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root,
                         MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE, sendbuf, recvbuf, count, datatype, op,
                   root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Reduce_impl(sendbuf, recvbuf, count, datatype, op, root,
                                  comm, errflag);
}

int MPIDI_CH4COLL_Ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, int root,
                          MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE, sendbuf, recvbuf, count, datatype, op,
                   root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ireduce_impl(sendbuf, recvbuf, count, datatype, op, root,
                                   comm, req);
}

int MPIDI_CH4COLL_Allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                            MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                   op, 0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Allreduce_impl(sendbuf, recvbuf, count, datatype, op,
                                     comm, errflag);
}

int MPIDI_CH4COLL_Iallreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                             MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                             MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                   op, 0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iallreduce_impl(sendbuf, recvbuf, count, datatype, op,
                                      comm, req);
}

int MPIDI_CH4COLL_Scan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                       MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                       MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0,
                   comm);
    return run_blocking(&mc, &rc) ? rc
                                  : MPIR_Scan_impl(sendbuf, recvbuf, count,
                                                   datatype, op, comm, errflag);
}

int MPIDI_CH4COLL_Iscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                        MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                        MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0,
                   comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iscan_impl(sendbuf, recvbuf, count, datatype, op, comm,
                                 req);
}

int MPIDI_CH4COLL_Exscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                         MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op,
                   0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Exscan_impl(sendbuf, recvbuf, count, datatype, op, comm,
                                  errflag);
}

int MPIDI_CH4COLL_Iexscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                          MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op,
                   0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iexscan_impl(sendbuf, recvbuf, count, datatype, op, comm,
                                   req);
}

int MPIDI_CH4COLL_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       MPI_Aint recvcount,
                                       MPI_Datatype datatype, MPI_Op op,
                                       MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
                   recvcount, datatype, op, 0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Reduce_scatter_block_impl(sendbuf, recvbuf, recvcount,
                                                datatype, op, comm, errflag);
}

int MPIDI_CH4COLL_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                        MPI_Aint recvcount,
                                        MPI_Datatype datatype, MPI_Op op,
                                        MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
                   recvcount, datatype, op, 0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ireduce_scatter_block_impl(sendbuf, recvbuf, recvcount,
                                                 datatype, op, comm, req);
}

static void reduce_scatter_call(mcall_t *mc, const void *sendbuf, void *recvbuf,
                                const MPI_Aint *recvcounts,
                                MPI_Datatype datatype, MPI_Op op,
                                MPIR_Comm *comm)
{
    mcall_init(mc, CH4COLL_REDUCE_SCATTER, comm, 0, op);
    side(mc, &mc->call.snd, sendbuf, 0, datatype);
    side(mc, &mc->call.rcv, recvbuf, 0, datatype);
    mc->call.rcv.counts = ints(mc, 0, recvcounts);
}

int MPIDI_CH4COLL_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const MPI_Aint *recvcounts,
                                 MPI_Datatype datatype, MPI_Op op,
                                 MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    reduce_scatter_call(&mc, sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Reduce_scatter_impl(sendbuf, recvbuf, recvcounts,
                                          datatype, op, comm, errflag);
}

int MPIDI_CH4COLL_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                                  const MPI_Aint *recvcounts,
                                  MPI_Datatype datatype, MPI_Op op,
                                  MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduce_scatter_call(&mc, sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ireduce_scatter_impl(sendbuf, recvbuf, recvcounts,
                                           datatype, op, comm, req);
}

/* allgather, alltoall, gather, scatter: one count per side */
static void regular_call(mcall_t *mc, int coll, const void *sendbuf,
                         MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount,
                         MPI_Datatype recvtype, int root, MPIR_Comm *comm)
{
    mcall_init(mc, coll, comm, root, MPI_OP_NULL);
    side(mc, &mc->call.snd, sendbuf, sendcount, sendtype);
    side(mc, &mc->call.rcv, recvbuf, recvcount, recvtype);
}

int MPIDI_CH4COLL_Allgather(const void *sendbuf, MPI_Aint sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            MPI_Aint recvcount, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Allgather_impl(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, comm, errflag);
}

int MPIDI_CH4COLL_Iallgather(const void *sendbuf, MPI_Aint sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             MPI_Aint recvcount, MPI_Datatype recvtype,
                             MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iallgather_impl(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcount, recvtype, comm, req);
}

int MPIDI_CH4COLL_Alltoall(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           MPI_Aint recvcount, MPI_Datatype recvtype,
                           MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Alltoall_impl(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, comm, errflag);
}

int MPIDI_CH4COLL_Ialltoall(const void *sendbuf, MPI_Aint sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            MPI_Aint recvcount, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ialltoall_impl(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcount, recvtype, comm, req);
}

int MPIDI_CH4COLL_Gather(const void *sendbuf, MPI_Aint sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                         MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Gather_impl(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, errflag);
}

int MPIDI_CH4COLL_Igather(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                          MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Igather_impl(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, root, comm, req);
}

int MPIDI_CH4COLL_Scatter(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                          MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Scatter_impl(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, root, comm, errflag);
}

int MPIDI_CH4COLL_Iscatter(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                           MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iscatter_impl(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, req);
}

/* allgatherv, gatherv: v on the receive side */
static void vrecv_call(mcall_t *mc, int coll, const void *sendbuf,
                       MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Aint *recvcounts, const MPI_Aint *displs,
                       MPI_Datatype recvtype, int root, MPIR_Comm *comm)
{
    mcall_init(mc, coll, comm, root, MPI_OP_NULL);
    side(mc, &mc->call.snd, sendbuf, sendcount, sendtype);
    side(mc, &mc->call.rcv, recvbuf, 0, recvtype);
    mc->call.rcv.counts = ints(mc, 0, recvcounts);
    mc->call.rcv.displs = ints(mc, 1, displs);
}

int MPIDI_CH4COLL_Allgatherv(const void *sendbuf, MPI_Aint sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Aint *recvcounts, const MPI_Aint *displs,
                             MPI_Datatype recvtype, MPIR_Comm *comm,
                             MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    vrecv_call(&mc, CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
               recvcounts, displs, recvtype, 0, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf,
                                      recvcounts, displs, recvtype, comm,
                                      errflag);
}

int MPIDI_CH4COLL_Iallgatherv(const void *sendbuf, MPI_Aint sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Aint *recvcounts,
                              const MPI_Aint *displs, MPI_Datatype recvtype,
                              MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    vrecv_call(&mc, CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
               recvcounts, displs, recvtype, 0, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iallgatherv_impl(sendbuf, sendcount, sendtype, recvbuf,
                                       recvcounts, displs, recvtype, comm, req);
}

int MPIDI_CH4COLL_Gatherv(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Aint *recvcounts, const MPI_Aint *displs,
                          MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                          MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    /* MPI reads the v-arrays at the root only */
    vrecv_call(&mc, CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
               comm->rank == root ? recvcounts : NULL,
               comm->rank == root ? displs : NULL, recvtype, root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Gatherv_impl(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcounts, displs, recvtype, root, comm,
                                   errflag);
}

int MPIDI_CH4COLL_Igatherv(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Aint *recvcounts, const MPI_Aint *displs,
                           MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                           MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    vrecv_call(&mc, CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
               comm->rank == root ? recvcounts : NULL,
               comm->rank == root ? displs : NULL, recvtype, root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Igatherv_impl(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcounts, displs, recvtype, root, comm,
                                    req);
}

static void scatterv_call(mcall_t *mc, const void *sendbuf,
                          const MPI_Aint *sendcounts, const MPI_Aint *displs,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                          MPIR_Comm *comm)
{
    int at_root = comm->rank == root;

    mcall_init(mc, CH4COLL_SCATTERV, comm, root, MPI_OP_NULL);
    side(mc, &mc->call.snd, sendbuf, 0, sendtype);
    side(mc, &mc->call.rcv, recvbuf, recvcount, recvtype);
    mc->call.snd.counts = at_root ? ints(mc, 2, sendcounts) : NULL;
    mc->call.snd.displs = at_root ? ints(mc, 3, displs) : NULL;
}

int MPIDI_CH4COLL_Scatterv(const void *sendbuf, const MPI_Aint *sendcounts,
                           const MPI_Aint *displs, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount,
                           MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                           MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    scatterv_call(&mc, sendbuf, sendcounts, displs, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Scatterv_impl(sendbuf, sendcounts, displs, sendtype,
                                    recvbuf, recvcount, recvtype, root, comm,
                                    errflag);
}

int MPIDI_CH4COLL_Iscatterv(const void *sendbuf, const MPI_Aint *sendcounts,
                            const MPI_Aint *displs, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Aint recvcount,
                            MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                            MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    scatterv_call(&mc, sendbuf, sendcounts, displs, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Iscatterv_impl(sendbuf, sendcounts, displs, sendtype,
                                     recvbuf, recvcount, recvtype, root, comm,
                                     req);
}

static void alltoallv_call(mcall_t *mc, const void *sendbuf,
                           const MPI_Aint *sendcounts, const MPI_Aint *sdispls,
                           MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Aint *recvcounts, const MPI_Aint *rdispls,
                           MPI_Datatype recvtype, MPIR_Comm *comm)
{
    mcall_init(mc, CH4COLL_ALLTOALLV, comm, 0, MPI_OP_NULL);
    side(mc, &mc->call.snd, sendbuf, 0, sendtype);
    side(mc, &mc->call.rcv, recvbuf, 0, recvtype);
    mc->call.rcv.counts = ints(mc, 0, recvcounts);
    mc->call.rcv.displs = ints(mc, 1, rdispls);
    if (sendbuf != MPI_IN_PLACE) {
        mc->call.snd.counts = ints(mc, 2, sendcounts);
        mc->call.snd.displs = ints(mc, 3, sdispls);
    }
}

int MPIDI_CH4COLL_Alltoallv(const void *sendbuf, const MPI_Aint *sendcounts,
                            const MPI_Aint *sdispls, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Aint *recvcounts,
                            const MPI_Aint *rdispls, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Errflag_t *errflag)
{
    mcall_t mc;
    int rc;

    alltoallv_call(&mc, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                   recvcounts, rdispls, recvtype, comm);
    return run_blocking(&mc, &rc)
               ? rc
               : MPIR_Alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype,
                                     recvbuf, recvcounts, rdispls, recvtype,
                                     comm, errflag);
}

int MPIDI_CH4COLL_Ialltoallv(const void *sendbuf, const MPI_Aint *sendcounts,
                             const MPI_Aint *sdispls, MPI_Datatype sendtype,
                             void *recvbuf, const MPI_Aint *recvcounts,
                             const MPI_Aint *rdispls, MPI_Datatype recvtype,
                             MPIR_Comm *comm, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    alltoallv_call(&mc, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                   recvcounts, rdispls, recvtype, comm);
    return run_nonblocking(&mc, req, &rc)
               ? rc
               : MPIR_Ialltoallv_impl(sendbuf, sendcounts, sdispls, sendtype,
                                      recvbuf, recvcounts, rdispls, recvtype,
                                      comm, req);
}

/* ------------------------------------------- the 16 persistent entries */

int MPIDI_CH4COLL_Barrier_init(MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    barrier_call(&mc, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Barrier_init_impl(comm, info, req);
}

int MPIDI_CH4COLL_Bcast_init(void *buffer, MPI_Aint count,
                             MPI_Datatype datatype, int root, MPIR_Comm *comm,
                             MPIR_Info *info, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    bcast_call(&mc, buffer, count, datatype, root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Bcast_init_impl(buffer, count, datatype, root, comm, info, req);
}

int MPIDI_CH4COLL_Reduce_init(const void *sendbuf, void *recvbuf,
                              MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE, sendbuf, recvbuf, count, datatype, op,
                   root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Reduce_init_impl(sendbuf, recvbuf, count, datatype, op, root,
                                 comm, info, req);
}

int MPIDI_CH4COLL_Allreduce_init(const void *sendbuf, void *recvbuf,
                                 MPI_Aint count, MPI_Datatype datatype,
                                 MPI_Op op, MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype,
                   op, 0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Allreduce_init_impl(sendbuf, recvbuf, count, datatype, op, comm,
                                    info, req);
}

int MPIDI_CH4COLL_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                            MPI_Aint recvcount,
                                            MPI_Datatype datatype, MPI_Op op,
                                            MPIR_Comm *comm, MPIR_Info *info,
                                            MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
                   recvcount, datatype, op, 0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Reduce_scatter_block_init_impl(sendbuf, recvbuf, recvcount,
                                               datatype, op, comm, info, req);
}

int MPIDI_CH4COLL_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                      const MPI_Aint *recvcounts,
                                      MPI_Datatype datatype, MPI_Op op,
                                      MPIR_Comm *comm, MPIR_Info *info,
                                      MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduce_scatter_call(&mc, sendbuf, recvbuf, recvcounts, datatype, op, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Reduce_scatter_init_impl(sendbuf, recvbuf, recvcounts, datatype,
                                         op, comm, info, req);
}

int MPIDI_CH4COLL_Allgather_init(const void *sendbuf, MPI_Aint sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Aint recvcount, MPI_Datatype recvtype,
                                 MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Allgather_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, comm, info, req);
}

int MPIDI_CH4COLL_Alltoall_init(const void *sendbuf, MPI_Aint sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                MPI_Aint recvcount, MPI_Datatype recvtype,
                                MPIR_Comm *comm, MPIR_Info *info,
                                MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, 0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Alltoall_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, comm, info, req);
}

int MPIDI_CH4COLL_Gather_init(const void *sendbuf, MPI_Aint sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Aint recvcount, MPI_Datatype recvtype,
                              int root, MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Gather_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, root, comm, info, req);
}

int MPIDI_CH4COLL_Scatter_init(const void *sendbuf, MPI_Aint sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               MPI_Aint recvcount, MPI_Datatype recvtype,
                               int root, MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    regular_call(&mc, CH4COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                 recvcount, recvtype, root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Scatter_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, recvtype, root, comm, info, req);
}

int MPIDI_CH4COLL_Allgatherv_init(const void *sendbuf, MPI_Aint sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Aint *recvcounts,
                                  const MPI_Aint *displs, MPI_Datatype recvtype,
                                  MPIR_Comm *comm, MPIR_Info *info,
                                  MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    vrecv_call(&mc, CH4COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
               recvcounts, displs, recvtype, 0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Allgatherv_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                     recvcounts, displs, recvtype, comm, info,
                                     req);
}

int MPIDI_CH4COLL_Gatherv_init(const void *sendbuf, MPI_Aint sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Aint *recvcounts,
                               const MPI_Aint *displs, MPI_Datatype recvtype,
                               int root, MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    /* MPI reads the v-arrays at the root only */
    vrecv_call(&mc, CH4COLL_GATHERV, sendbuf, sendcount, sendtype, recvbuf,
               comm->rank == root ? recvcounts : NULL,
               comm->rank == root ? displs : NULL, recvtype, root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Gatherv_init_impl(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcounts, displs, recvtype, root, comm,
                                  info, req);
}

int MPIDI_CH4COLL_Scatterv_init(const void *sendbuf, const MPI_Aint *sendcounts,
                                const MPI_Aint *displs, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Aint recvcount,
                                MPI_Datatype recvtype, int root,
                                MPIR_Comm *comm, MPIR_Info *info,
                                MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    scatterv_call(&mc, sendbuf, sendcounts, displs, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Scatterv_init_impl(sendbuf, sendcounts, displs, sendtype,
                                   recvbuf, recvcount, recvtype, root, comm,
                                   info, req);
}

int MPIDI_CH4COLL_Alltoallv_init(const void *sendbuf,
                                 const MPI_Aint *sendcounts,
                                 const MPI_Aint *sdispls, MPI_Datatype sendtype,
                                 void *recvbuf, const MPI_Aint *recvcounts,
                                 const MPI_Aint *rdispls, MPI_Datatype recvtype,
                                 MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    alltoallv_call(&mc, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                   recvcounts, rdispls, recvtype, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Alltoallv_init_impl(sendbuf, sendcounts, sdispls, sendtype,
                                    recvbuf, recvcounts, rdispls, recvtype,
                                    comm, info, req);
}

int MPIDI_CH4COLL_Scan_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                            MPIR_Info *info, MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_SCAN, sendbuf, recvbuf, count, datatype, op, 0,
                   comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Scan_init_impl(sendbuf, recvbuf, count, datatype, op, comm,
                               info, req);
}

int MPIDI_CH4COLL_Exscan_init(const void *sendbuf, void *recvbuf,
                              MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                              MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req)
{
    mcall_t mc;
    int rc;

    reduction_call(&mc, CH4COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op,
                   0, comm);
    if (run_persistent(&mc, req, &rc))
        return rc;
    return MPIR_Exscan_init_impl(sendbuf, recvbuf, count, datatype, op, comm,
                                 info, req);
}
