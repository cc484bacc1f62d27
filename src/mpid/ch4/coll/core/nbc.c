/*
 * nbc.c - nonblocking and persistent collectives in preload mode.
 *
 * A nonblocking collective is the blocking call's cached schedule, run by
 * an instance of its own (core/cache.h: several calls of one shape may be
 * in flight at once), started at MPI_I<coll> and moved on whenever the
 * application is inside MPI: the wrappers of the wait/test family, of the
 * blocking point-to-point calls and of the collectives call
 * ch4coll_nb_progress() while any collective is in flight (preload.c).
 *
 * The request.  The application needs an MPI_Request of the host MPI that
 * it can mix with its own in MPI_Waitall, MPI_Testsome, ... and that works
 * for persistent collectives too (MPI_Start, inactive after completion,
 * MPI_Request_free).  Generalized requests cannot be restarted, so every
 * ch4coll request is a zero-byte receive on a private duplicate of
 * MPI_COMM_SELF, with a tag no other live request uses: MPI_Irecv for a
 * nonblocking call, MPI_Recv_init for a persistent one (MPI_Start posts it
 * again).  When the schedule completes, ch4coll sends the zero-byte message
 * that completes it; from then on the host MPI's own Wait/Test semantics
 * apply unchanged (status: MPI leaves MPI_SOURCE and MPI_TAG of a
 * collective's status undefined; the count is 0).
 *
 * Records.  Each request has a record, found by handle (a hash table) while
 * it is active or persistent: MPI_Start, MPI_Request_free and MPI_Cancel
 * need to know which handles are ch4coll's.  Active records are also on a
 * list that progress walks.  A record holds a reference on its
 * communicator's state, so MPI_Comm_free with collectives in flight is
 * fine (MPI lets them complete).
 *
 * Three kinds of record.  A schedule record runs ch4coll's schedule.  A
 * native record runs the host's MPI_I<coll> on the communicator's private
 * duplicate (host_icoll.c says when), and completes when that does.  A
 * record made while its communicator's setup is under way (comm_pmpi.c)
 * is deferred: it has neither yet.  When the setup completes, every
 * deferred record of the communicator is resolved in the order of the
 * calls (ch4coll_nb_comm_ready), so all ranks take the same tags and post
 * the same host collectives in the same order; one that was started (or
 * is nonblocking) starts then.  A deferred record holds a duplicate of a
 * derived datatype: the application may free its own meanwhile.
 *
 * MPI rules kept: nonblocking collective requests cannot be cancelled and
 * must not be freed while active (MPI 4.0 sections 6.12 and 6.13); such
 * calls get MPI_ERR_REQUEST through the communicator's error handler.
 * MPI_Finalize with collectives in flight is erroneous too: ch4coll says
 * so and completes them first (drain, below).
 */
#include "nbc.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../util/lock.h"
#include "../util/util.h"
#include "comm.h"
#include "../host/host.h"
#include "host_icoll.h"
#include "run.h"

typedef struct nbreq {
    MPI_Request handle; /* the application's request */
    int tag;            /* its tag on token_comm */
    int sched_tag;      /* persistent: the schedule's tags, fixed at init */
    int persistent;
    int active;
    ch4coll_comm_t *c;
    ch4coll_inst_t *inst;      /* a schedule record's */
    int native;                /* a native record */
    int deferred;              /* waiting for the communicator's setup */
    int resolve_rc;            /* a persistent record that failed to resolve */
    MPI_Request host;          /* a native record's host request (started) */
    MPI_Datatype held[2];      /* duplicates of derived types, or NULL */
    MPI_Datatype orig[2];      /* the application's types they stand for */
    ch4coll_call_t call;       /* buffers and v-arrays stay the application's */
    struct nbreq *prev, *next; /* active list; free list */
    struct nbreq *hnext;       /* handle hash chain */
    struct nbreq *dnext;       /* deferred records, in call order */
} nbreq_t;

#define NB_BUCKETS 256

int ch4coll_nb_nactive;
static nbreq_t *active_head;
static nbreq_t *spare; /* freed records, reused */
static nbreq_t *hash[NB_BUCKETS];
static int npersistent; /* live persistent records */
static MPI_Comm token_comm = MPI_COMM_NULL;
static int token_tag_ub, next_token_tag;
static nbreq_t *deferred_head, *deferred_tail;

void ch4coll_nb_hold(int n)
{
    __atomic_fetch_add(&ch4coll_nb_nactive, n, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ handle table */

static unsigned bucket_of(MPI_Request r)
{
    uint64_t h = 0;

    memcpy(&h, &r, sizeof r < sizeof h ? sizeof r : sizeof h);
    return (unsigned) ((h * UINT64_C(0x9E3779B97F4A7C15)) >> 56) % NB_BUCKETS;
}

static nbreq_t *find(MPI_Request r)
{
    nbreq_t *q;

    if (r == MPI_REQUEST_NULL)
        return NULL;
    for (q = hash[bucket_of(r)]; q; q = q->hnext)
        if (q->handle == r)
            return q;
    return NULL;
}

static void hash_add(nbreq_t *q)
{
    unsigned b = bucket_of(q->handle);

    q->hnext = hash[b];
    hash[b] = q;
}

static void hash_del(nbreq_t *q)
{
    nbreq_t **pp = &hash[bucket_of(q->handle)];

    while (*pp && *pp != q)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = q->hnext;
}

/* ------------------------------------------------------------ tokens */

/* The host's progress hook (host/host.h): a blocking schedule that waits
 * moves the nonblocking collectives in flight on. */
static int progress_others(void)
{
    return ch4coll_nb_outstanding() && ch4coll_nb_progress() > 0;
}

static int busy(void)
{
    return ch4coll_nb_outstanding();
}

int ch4coll_nb_init(void)
{
    int *ub, flag;

    ch4coll_host_set_progress(progress_others, busy);
    if (token_comm != MPI_COMM_NULL)
        return CH4COLL_OK;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &token_comm) != MPI_SUCCESS)
        return CH4COLL_ERR_MPI;
    PMPI_Comm_get_attr(token_comm, MPI_TAG_UB, &ub, &flag);
    token_tag_ub = flag ? *ub : 32767;
    return CH4COLL_OK;
}

static int tag_in_use(int tag)
{
    int b;
    nbreq_t *q;

    for (b = 0; b < NB_BUCKETS; b++)
        for (q = hash[b]; q; q = q->hnext)
            if (q->tag == tag)
                return 1;
    return 0;
}

/* A tag no live request holds.  The sequence wraps only after tag_ub
 * requests; from then on a tag is checked against the live ones. */
static int token_tag(void)
{
    static int wrapped;
    int t;

    do {
        if (next_token_tag >= token_tag_ub) {
            next_token_tag = 0;
            wrapped = 1;
        }
        t = next_token_tag++;
    } while (wrapped && tag_in_use(t));
    return t;
}

/* Complete the application's request. */
static int token_send(const nbreq_t *q)
{
    MPI_Request r;

    if (PMPI_Isend(NULL, 0, MPI_BYTE, 0, q->tag, token_comm, &r) != MPI_SUCCESS)
        return CH4COLL_ERR_MPI;
    return PMPI_Request_free(&r) == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

/* ------------------------------------------------------------ records */

static nbreq_t *record_new(void)
{
    nbreq_t *q = spare;

    if (q)
        spare = q->next;
    else
        q = ch4coll_malloc(sizeof *q);
    if (q) {
        memset(q, 0, sizeof *q);
        q->host = MPI_REQUEST_NULL;
        q->held[0] = q->held[1] = MPI_DATATYPE_NULL;
        q->orig[0] = q->orig[1] = MPI_DATATYPE_NULL;
    }
    return q;
}

/* ------------------------------------------------------- held types */

/* MPI lets the application free a datatype while a collective that uses
 * it is in flight (MPI 4.0 section 5.1.9: the communication completes
 * normally), and before a persistent request is freed.  So a record
 * duplicates the derived datatypes of its call and uses the duplicates
 * from then on: in its call, and in its schedule instance (the
 * reduction's element, the packing of staged sides), which was looked
 * up under the application's types and goes back to them on release. */
static int derived(MPI_Datatype dt)
{
    return dt != MPI_DATATYPE_NULL && !ch4coll_host_type_predefined(dt);
}

static void hold_types(nbreq_t *q)
{
    MPI_Datatype st = q->call.snd.dt, rt = q->call.rcv.dt;

    if (derived(st) && PMPI_Type_dup(st, &q->held[0]) == MPI_SUCCESS) {
        q->orig[0] = st;
        q->call.snd.dt = q->held[0];
    }
    if (rt == st)
        q->call.rcv.dt = q->call.snd.dt; /* one type, one duplicate */
    else if (derived(rt) && PMPI_Type_dup(rt, &q->held[1]) == MPI_SUCCESS) {
        q->orig[1] = rt;
        q->call.rcv.dt = q->held[1];
    }
}

static void swap_type(MPI_Datatype *f, MPI_Datatype from, MPI_Datatype to)
{
    if (*f == from)
        *f = to;
}

/* The instance's types: the held duplicates (back = 0), or the
 * application's again (back = 1). */
static void instance_types(nbreq_t *q, int back)
{
    ch4coll_inst_t *in = q->inst;
    int i;

    for (i = 0; in && i < 2; i++) {
        MPI_Datatype from = back ? q->held[i] : q->orig[i];
        MPI_Datatype to = back ? q->orig[i] : q->held[i];
        if (q->held[i] == MPI_DATATYPE_NULL || q->orig[i] == MPI_DATATYPE_NULL)
            continue;
        swap_type(&in->sched.elem.dt, from, to);
        swap_type(&in->bind.st.dt, from, to);
        swap_type(&in->bind.rt.dt, from, to);
    }
}

/* ---------------------------------------------------- deferred records */

/* q waits for its communicator's setup, after every record made before
 * it (its types are held already: it is looked up under them). */
static void defer(nbreq_t *q)
{
    q->deferred = 1;
    q->dnext = NULL;
    if (deferred_tail)
        deferred_tail->dnext = q;
    else
        deferred_head = q;
    deferred_tail = q;
}

static void undefer(nbreq_t *q)
{
    nbreq_t **pp = &deferred_head, *last = NULL;

    while (*pp && *pp != q) {
        last = *pp;
        pp = &(*pp)->dnext;
    }
    if (*pp)
        *pp = q->dnext;
    if (deferred_tail == q)
        deferred_tail = last;
    q->deferred = 0;
}

/* The record lets go of its instance, types and communicator. */
static void record_free(nbreq_t *q)
{
    int i;

    if (q->deferred)
        undefer(q);
    instance_types(q, 1);
    if (q->inst)
        ch4coll_cache_release(q->inst);
    for (i = 0; i < 2; i++)
        if (q->held[i] != MPI_DATATYPE_NULL) {
            /* a deferred record was looked up under it: no cache entry
             * may outlive the handle */
            ch4coll_comm_forget(q->held[i], MPI_OP_NULL);
            ch4coll_pmpi_args_forget(q->held[i], MPI_OP_NULL);
            PMPI_Type_free(&q->held[i]);
        }
    ch4coll_comm_unref(q->c);
    q->next = spare;
    spare = q;
}

static MPI_Comm error_comm(const nbreq_t *q)
{
    return q->c->user != MPI_COMM_NULL ? q->c->user : MPI_COMM_WORLD;
}

static void activate(nbreq_t *q)
{
    q->active = 1;
    q->prev = NULL;
    q->next = active_head;
    if (active_head)
        active_head->prev = q;
    active_head = q;
    __atomic_fetch_add(&ch4coll_nb_nactive, 1, __ATOMIC_RELAXED);
}

static void deactivate(nbreq_t *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        active_head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    q->active = 0;
    __atomic_fetch_sub(&ch4coll_nb_nactive, 1, __ATOMIC_RELAXED);
}

/* The schedule is done (rc: how it ended): unpack, complete the
 * application's request, and drop a nonblocking record. */
static void finish(nbreq_t *q, int rc)
{
    deactivate(q);
    if (rc == CH4COLL_OK && q->inst)
        rc = ch4coll_run_end(q->c, q->inst, &q->call);
    if (rc != CH4COLL_OK) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: nonblocking %s failed: %s; its request "
                    "completes with undefined buffer contents",
                    ch4coll_coll_name(q->call.coll), ch4coll_strerror(rc));
        ch4coll_host_error(error_comm(q), rc);
    }
    if (token_send(q) != CH4COLL_OK)
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: cannot complete the request of a nonblocking "
                    "%s",
                    ch4coll_coll_name(q->call.coll));
    if (!q->persistent) {
        hash_del(q);
        record_free(q);
    }
}

/* Move q on once: *progressed if it did, *done when it has finished
 * (rc: how). */
static int step(nbreq_t *q, int *progressed, int *done)
{
    int rc;

    *progressed = *done = 0;
    if (q->deferred)
        return CH4COLL_OK;
    if (!q->native)
        return ch4coll_run_progress(q->c, q->inst, &q->call, progressed, done);
    rc = PMPI_Test(&q->host, done, MPI_STATUS_IGNORE);
    *progressed = *done;
    if (rc != MPI_SUCCESS) {
        *done = 1;
        return CH4COLL_ERR_MPI;
    }
    return CH4COLL_OK;
}

/* Start q's schedule, or post its host collective (nothing while it is
 * deferred); MPI_SUCCESS or a reported MPI error. */
static int post(nbreq_t *q)
{
    if (q->deferred)
        return MPI_SUCCESS;
    if (!q->native)
        return ch4coll_run_begin(q->c, q->inst, &q->call,
                                 q->persistent ? q->sched_tag : -1);
    if (ch4coll_host_icoll(&q->call, q->c->dup, &q->host) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return ch4coll_host_error(error_comm(q), CH4COLL_ERR_MPI);
}

/* Post q and take its first steps at once (the first sends go out now,
 * not at the first wait: that is where overlap comes from). */
static int launch(nbreq_t *q)
{
    int rc = q->resolve_rc == CH4COLL_OK ? post(q) : MPI_SUCCESS, moved, done;

    if (rc != MPI_SUCCESS)
        return rc;
    activate(q);
    if (q->resolve_rc != CH4COLL_OK) {
        finish(q, q->resolve_rc);
        return MPI_SUCCESS;
    }
    rc = step(q, &moved, &done);
    if (rc != CH4COLL_OK || done)
        finish(q, rc);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------- entry */

/* The native leaf runs on c's private duplicate (host_icoll.c). */
static int native_here(const ch4coll_comm_t *c)
{
    return c && !c->inter && c->setup_rc == CH4COLL_OK &&
           c->dup != MPI_COMM_NULL;
}

/* What q runs, from ch4coll_run_prepare's (or _resolve's) answer rc and
 * instance in: its schedule, or the host's collective; or it ends with an
 * error when started. */
static void settle(nbreq_t *q, int rc, ch4coll_inst_t *in)
{
    if (rc == MPI_SUCCESS) {
        q->inst = in;
        /* persistent collectives match in the order of their init calls,
         * and may be started in any order: their tags are fixed now */
        q->sched_tag = q->persistent
                           ? ch4coll_comm_next_tag(q->c, ch4coll_run_ntags(in))
                           : -1;
    } else if (rc == CH4COLL_RUN_NATIVE && native_here(q->c)) {
        q->native = 1;
    } else {
        q->resolve_rc = CH4COLL_ERR_MPI;
    }
}

/* A deferred record whose communicator is ready: settle it, and start it
 * if it is active (nonblocking, or a started persistent one). */
static void resolve(nbreq_t *q)
{
    ch4coll_inst_t *in = NULL;
    int rc = ch4coll_run_resolve(q->c, &q->call, &in), moved, done = 1;

    undefer(q);
    settle(q, rc, in);
    if (!q->active)
        return;
    rc = q->resolve_rc;
    if (rc == CH4COLL_OK)
        rc = post(q) == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
    if (rc == CH4COLL_OK)
        rc = step(q, &moved, &done);
    if (rc != CH4COLL_OK || done)
        finish(q, rc);
}

void ch4coll_nb_comm_ready(ch4coll_comm_t *c)
{
    nbreq_t *q = deferred_head, *next;

    for (; q; q = next) {
        next = q->dnext;
        if (q->c == c)
            resolve(q);
    }
}

static int create(ch4coll_call_t *call, int persistent, MPI_Request *req)
{
    ch4coll_comm_t *c;
    ch4coll_inst_t *in = NULL;
    nbreq_t *q;
    int rc = ch4coll_run_prepare(call, &c, &in);

    /* a nonblocking native call goes to the host on the application's
     * communicator (the caller does that); a persistent one runs on the
     * duplicate, so that no persistent request is the host's */
    if (rc != MPI_SUCCESS && rc != CH4COLL_RUN_DEFER &&
        !(rc == CH4COLL_RUN_NATIVE && persistent && native_here(c)))
        return rc;
    q = record_new();
    if (!q || ch4coll_nb_init() != CH4COLL_OK) {
        ch4coll_free(q);
        if (in)
            ch4coll_cache_release(in);
        return ch4coll_host_error(call->comm,
                                  q ? CH4COLL_ERR_MPI : CH4COLL_ERR_NOMEM);
    }
    q->persistent = persistent;
    q->c = c;
    q->call = *call;
    q->tag = token_tag();
    c->refs++;
    hold_types(q);
    if (rc == CH4COLL_RUN_DEFER) {
        defer(q);
    } else {
        settle(q, rc, in);
        instance_types(q, 0);
    }
    rc = persistent
             ? PMPI_Recv_init(NULL, 0, MPI_BYTE, 0, q->tag, token_comm,
                              &q->handle)
             : PMPI_Irecv(NULL, 0, MPI_BYTE, 0, q->tag, token_comm, &q->handle);
    if (rc != MPI_SUCCESS) {
        record_free(q);
        return ch4coll_host_error(call->comm, CH4COLL_ERR_MPI);
    }
    hash_add(q);
    npersistent += persistent;
    *req = q->handle;
    return persistent ? MPI_SUCCESS : launch(q);
}

int ch4coll_nb_create(ch4coll_call_t *call, int persistent, MPI_Request *req)
{
    int rc;

    ch4coll_lock();
    rc = create(call, persistent, req);
    ch4coll_unlock();
    return rc;
}

/* Not re-entered: an error handler that finish() calls may call MPI, whose
 * wrappers would walk the list being walked. */
int ch4coll_nb_progress(void)
{
    static int busy;
    nbreq_t *q, *next;
    int n = 0, progressed, done, rc;

    ch4coll_lock();
    if (busy) {
        ch4coll_unlock();
        return 0;
    }
    busy = 1;
    n = ch4coll_comm_setups_progress();
    for (q = active_head; q; q = next) {
        next = q->next;
        rc = step(q, &progressed, &done);
        if (rc != CH4COLL_OK || done)
            finish(q, rc);
        n += progressed || rc != CH4COLL_OK;
    }
    busy = 0;
    ch4coll_unlock();
    return n;
}

int ch4coll_nb_wait_until(int (*test)(void *ctx, int *flag), void *ctx)
{
    int flag = 0, rc, moved, yield = ch4coll_comm_want_yield();

    for (;;) {
        moved = ch4coll_nb_progress();
        rc = test(ctx, &flag);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        ch4coll_lock_pause(!moved && yield);
    }
}

static int request_error(const nbreq_t *q, const char *what)
{
    ch4coll_log(CH4COLL_LOG_WARN, "error: %s %s collective request (%s): %s",
                what, q->persistent ? "persistent" : "nonblocking",
                ch4coll_coll_name(q->call.coll),
                "MPI 4.0 sections 6.12 and 6.13 make this erroneous");
    PMPI_Comm_call_errhandler(error_comm(q), MPI_ERR_REQUEST);
    return MPI_ERR_REQUEST;
}

static int start(MPI_Request *req, int *handled)
{
    nbreq_t *q = find(*req);
    int rc;

    *handled = q && q->persistent;
    if (!*handled)
        return MPI_SUCCESS;
    if (q->active)
        return request_error(q, "MPI_Start on an active");
    rc = PMPI_Start(&q->handle);
    return rc != MPI_SUCCESS ? rc : launch(q);
}

int ch4coll_nb_start(MPI_Request *req, int *handled)
{
    int rc;

    ch4coll_lock();
    rc = start(req, handled);
    ch4coll_unlock();
    return rc;
}

static int request_free(MPI_Request *req, int *handled)
{
    nbreq_t *q = find(*req);

    *handled = q != NULL;
    if (!q)
        return MPI_SUCCESS;
    if (q->active)
        return request_error(q, "MPI_Request_free on an active");
    hash_del(q);
    npersistent--;
    record_free(q);
    return PMPI_Request_free(req);
}

int ch4coll_nb_request_free(MPI_Request *req, int *handled)
{
    int rc;

    ch4coll_lock();
    rc = request_free(req, handled);
    ch4coll_unlock();
    return rc;
}

int ch4coll_nb_cancel(MPI_Request *req, int *handled)
{
    nbreq_t *q;
    int rc = MPI_SUCCESS;

    ch4coll_lock();
    q = find(*req);
    *handled = q != NULL;
    if (q)
        rc = request_error(q, "MPI_Cancel on a");
    ch4coll_unlock();
    return rc;
}

/* MPI_Finalize with collectives in flight: MPI makes it erroneous, but
 * the other ranks usually started the same collectives and are about to
 * finalize too.  Progress them until they are done, or until nothing has
 * moved for FINALIZE_STALL seconds (a peer that never started one);
 * returns how many are still in flight then. */
#define FINALIZE_STALL 10.0

static int drain(void)
{
    double idle_since = PMPI_Wtime();
    int yield = ch4coll_comm_want_yield();

    while (ch4coll_nb_nactive > 0) {
        if (ch4coll_nb_progress() > 0)
            idle_since = PMPI_Wtime();
        else if (PMPI_Wtime() - idle_since > FINALIZE_STALL)
            break;
        else
            ch4coll_lock_pause(yield);
    }
    return ch4coll_nb_nactive;
}

static int nb_finalize(void)
{
    int b, n = ch4coll_nb_nactive, left;
    nbreq_t *q, *next;

    if (n > 0) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "warning: MPI_Finalize with %d ch4coll nonblocking "
                    "collective(s) not completed (the first: %s); MPI makes "
                    "this erroneous; completing them first",
                    n, ch4coll_coll_name(active_head->call.coll));
        left = drain();
        if (left > 0) {
            /* their sends may never complete, and the host's
             * MPI_Finalize would wait for them: end the job instead of
             * hanging */
            ch4coll_log(CH4COLL_LOG_WARN,
                        "error: MPI_Finalize: %d ch4coll nonblocking "
                        "collective(s) made no progress for %.0f s (did "
                        "every rank start them?); calling MPI_Abort",
                        left, FINALIZE_STALL);
            /* the launcher forwards stderr asynchronously and the abort
             * tears its forwarders down: give the line time to get out
             * (runtests once lost it under load) */
            usleep(200000);
            PMPI_Abort(MPI_COMM_WORLD, 1);
            return 1;
        }
    }
    for (b = 0; b < NB_BUCKETS; b++) { /* persistent, never freed */
        for (q = hash[b]; q; q = next) {
            next = q->hnext;
            PMPI_Request_free(&q->handle);
            record_free(q);
        }
        hash[b] = NULL;
    }
    npersistent = 0;
    while (spare) {
        q = spare;
        spare = q->next;
        ch4coll_free(q);
    }
    if (token_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&token_comm);
    next_token_tag = 0;
    return 0;
}

int ch4coll_nb_finalize(void)
{
    int rc;

    ch4coll_lock();
    rc = nb_finalize();
    ch4coll_unlock();
    return rc;
}
