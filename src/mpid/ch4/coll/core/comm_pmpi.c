/*
 * comm_pmpi.c - preload mode's communicator state: created at the first
 * collective of any kind on a private duplicate, carried as an attribute,
 * cleaned up at MPI_Finalize; and the run entry points that find it.
 *
 * MPI deletes the attributes of MPI_COMM_SELF first in MPI_Finalize; an
 * attribute there frees every state still alive (those of MPI_COMM_WORLD and
 * of communicators the application never freed).  A one-entry lookup cache
 * per thread avoids the attribute search on repeated calls; it is cleared
 * whenever a state is freed.
 *
 * Argument checks.  In preload mode ch4coll is the MPI_ layer, so it checks
 * what MPICH's MPI_ functions check before anything runs (doc/errors.md):
 * root, counts, datatypes (null, invalid or not committed), the op and
 * whether it is defined for the datatype, and the buffers (MPI_IN_PLACE
 * where it is not allowed, a null buffer with data, send and receive
 * buffers that are the same).  A bad argument is reported through the
 * communicator's error handler with MPICH's error class; the host MPI is
 * not called (Debian's MPICH 4.0.2 crashes on some of these, e.g. a
 * negative count in MPI_Allreduce).  Only the arguments MPI says are
 * significant on the rank are looked at.  Datatypes and (datatype, op)
 * pairs that passed are remembered (a few of each, forgotten when
 * MPI_Type_free or MPI_Op_free runs), so a repeated call costs a few
 * compares.  Inside MPICH (entry/mpich.c) MPICH's own MPI_ layer does all
 * of this.
 */
#include "comm.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../select/config.h"
#include "../select/select.h"
#include "../util/lock.h"
#include "../util/util.h"
#include "../host/host.h"
#include "nbc.h"
#include "run.h"

static int keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static int initialized;
#ifdef CH4COLL_SMPI
/* SimGrid SMPI loads one copy of the program per simulated rank with
 * dlopen: initial-exec TLS would take static TLS space per copy, which
 * runs out after a few dozen ranks; the general model has no limit */
#define TLS __thread
#else
/* initial-exec: a plain %fs load instead of a __tls_get_addr call */
#define TLS __thread __attribute__((tls_model("initial-exec")))
#endif
static TLS MPI_Comm last_comm = MPI_COMM_NULL;
static TLS ch4coll_comm_t *last_state;
static TLS unsigned last_epoch;

static void free_dup(ch4coll_comm_t *c)
{
    if (c->dup != MPI_COMM_NULL && c->dup != MPI_COMM_SELF)
        PMPI_Comm_free(&c->dup);
}

/* The application freed the communicator (or MPI_Finalize runs).  Its
 * nonblocking collectives may still be in flight: MPI lets them complete,
 * so the state (and the private duplicate they communicate on) lives until
 * the last request lets go of it (ch4coll_comm_unref). */
static int delete_state(MPI_Comm comm, int kv, void *val, void *extra)
{
    ch4coll_comm_t *c = val;

    (void) comm;
    (void) kv;
    (void) extra;
    ch4coll_lock(); /* held already when MPI_Comm_free came through us */
    ch4coll_comm_unlink(c);
    c->user = MPI_COMM_NULL;
    if (c->refs > 0)
        c->doomed = 1;
    else
        ch4coll_comm_release(c);
    ch4coll_unlock();
    return MPI_SUCCESS;
}

static void delete_attr(ch4coll_comm_t *c)
{
    PMPI_Comm_delete_attr(c->user, keyval); /* runs delete_state */
}

/* MPI_COMM_SELF's attribute: runs first in MPI_Finalize. */
static int finalize_all(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void) comm;
    (void) kv;
    (void) val;
    (void) extra;
    ch4coll_lock();
    ch4coll_comm_release_all(delete_attr);
    PMPI_Comm_free_keyval(&keyval);
    ch4coll_select_finalize();
    initialized = 0;
    ch4coll_unlock();
    return MPI_SUCCESS;
}

/* Ranks on this node: from the launcher if it says, else measured. */
static void detect_node_size(int may_split)
{
    const char *env = getenv("MPI_LOCALNRANKS");
    int64_t v;
    MPI_Comm node;

    if (env && ch4coll_parse_int64(env, 1, 1 << 24, &v) == CH4COLL_OK) {
        ch4coll_node_ranks = (int) v;
        return;
    }
    if (may_split &&
        PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        PMPI_Comm_size(node, &ch4coll_node_ranks);
        PMPI_Comm_free(&node);
    }
}

/* Every rank must select from the same tree: compare the checksums of
 * what each loaded (MPI_Init is collective, so this may communicate). */
static int trees_agree(void)
{
    const ch4coll_tree_t *t = ch4coll_select_tree();
    uint64_t mine = t ? t->checksum : 0, lo, hi;

    PMPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* MPI_THREAD_MULTIPLE on any rank (all ranks must agree whether ch4coll
 * runs their collectives). */
static int any_multi_threaded(int collective)
{
    int mine = ch4coll_host_thread_multiple(), any = mine;

    if (collective)
        PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static int init_once(int collective)
{
    int rank, rc = CH4COLL_OK;

    if (initialized)
        return CH4COLL_OK;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ch4coll_log_rank = rank;
    if (ch4coll_config_load() > 0)
        rc = CH4COLL_ERR_ARG;
    if (ch4coll_select_init() != CH4COLL_OK)
        rc = CH4COLL_ERR_ARG;
    if (collective && !trees_agree()) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: the ranks loaded different "
                    "selection trees (tuning file differs or is unreadable "
                    "on some); all use the embedded default");
        ch4coll_select_use_default();
        rc = CH4COLL_ERR_ARG;
    }
    if (ch4coll_config.fallback != CH4COLL_FALLBACK_ERROR)
        rc = CH4COLL_OK; /* reported; defaults are in use */
#ifdef CH4COLL_SMPI
    /* simulated ranks share threads: a lock would hold up the simulation */
    ch4coll_comm_threads(any_multi_threaded(collective), 0);
#else
    ch4coll_comm_threads(any_multi_threaded(collective), 1);
#endif
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL);
    if (self_keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_all,
                                &self_keyval, NULL);
    PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    detect_node_size(collective);
    if (ch4coll_nb_init() != CH4COLL_OK)
        rc = CH4COLL_ERR_MPI;
    initialized = 1;
    ch4coll_log(CH4COLL_LOG_INFO,
                "ch4coll %s: %s, %d rank(s) on this node, "
                "%d core(s), selection from %s",
                "0.1.0", ch4coll_config.enable ? "enabled" : "disabled",
                ch4coll_node_ranks, ch4coll_cores(),
                ch4coll_select_tree() ? ch4coll_select_tree()->name : "-");
    return rc;
}

int ch4coll_init(void)
{
    return init_once(1);
}

/* FNV-1a of the processor name: ranks with the same name share a node. */
static uint64_t host_hash(void)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    uint64_t h = UINT64_C(14695981039346656037);
    int len = 0, i;

    PMPI_Get_processor_name(name, &len);
    for (i = 0; i < len; i++)
        h = (h ^ (unsigned char) name[i]) * UINT64_C(1099511628211);
    return h;
}

static const uint64_t *sort_keys;

static int by_key(const void *a, const void *b)
{
    uint64_t x = sort_keys[*(const int *) a], y = sort_keys[*(const int *) b];

    return x < y ? -1 : x > y ? 1 : *(const int *) a - *(const int *) b;
}

/* node_of[i] = the lowest rank with the same host hash (p log p). */
static void nodes_from_hashes(int p, const uint64_t *h, int *idx, int *node_of)
{
    int i, lead = 0;

    for (i = 0; i < p; i++)
        idx[i] = i;
    sort_keys = h;
    qsort(idx, (size_t) p, sizeof *idx, by_key);
    for (i = 0; i < p; i++) {
        if (i == 0 || h[idx[i]] != h[idx[i - 1]])
            lead = idx[i]; /* stable order: the group's lowest rank */
        node_of[idx[i]] = lead;
    }
}

/* ------------------------------------------------ creating a state
 *
 * A state is made at the first collective of any kind on a communicator:
 * a private duplicate (MPI_Comm_idup) and the node of every rank (an
 * MPI_Iallgather of processor-name hashes over the duplicate).  Both are
 * nonblocking collectives of the host, posted by every rank at the same
 * point of the communicator's sequence of collectives, so all ranks
 * agree; they move on with the rest of ch4coll's progress (the setup
 * counts as a collective in flight, core/nbc.c).  A blocking collective
 * waits for them with progress; a nonblocking or persistent one does not
 * wait: its record is resolved when the setup completes, in the order of
 * the calls (ch4coll_nb_comm_ready).
 *
 * Why here and not at communicator creation: this covers every way a
 * communicator comes to exist (MPI_Comm_split, _create_group, Cart_sub,
 * Intercomm_merge, MPI_Comm_idup, communicators made inside libraries or
 * through the Fortran bindings) with no wrapper per constructor, and a
 * communicator used only for point-to-point never pays for a duplicate.
 *
 * SimGrid SMPI has no MPI_Comm_idup and its simulated ranks take no host
 * CPU waiting: there the steps are the blocking forms, made at once.
 *
 * A communicator of one rank gets no duplicate: nothing is ever sent on
 * it, and MPI_COMM_SELF stands in for the native leaf.  Duplicating it
 * would hang: MPICH 4.0.2 allocates the context id of a one-rank
 * communicator by an allreduce that completes inside the call, and while
 * another allocation holds the mask (a setup of a larger communicator
 * still waiting for its peers) it retries in a loop that never makes
 * progress (src/mpi/comm/contextid.c, sched_cb_gcn_allocate_cid). */
struct ch4coll_setup {
    ch4coll_comm_t *c;
    MPI_Request req;
    int phase; /* SETUP_DUP, then SETUP_NODES */
    uint64_t mine, *all;
    int *idx;
    struct ch4coll_setup *next;
};

enum { SETUP_DUP, SETUP_NODES };

static struct ch4coll_setup *setups; /* under way, oldest last */

static int tag_ub_of(MPI_Comm comm)
{
    int *ub, flag;

    PMPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    return flag ? *ub : 32767;
}

/* After the duplicate exists: its error handler and tag bound. */
static void dup_made(ch4coll_comm_t *c)
{
    /* the duplicate has the handler the communicator had (for
     * MPI_COMM_WORLD: at MPI_Init, fatal); a failing point-to-point call
     * must come back to ch4coll, which reports it through the
     * communicator's handler as it is then */
    PMPI_Comm_set_errhandler(c->dup, MPI_ERRORS_RETURN);
    c->tag_ub = tag_ub_of(c->dup);
}

/* node_of from the gathered hashes; the setup's arrays are released. */
static void nodes_made(struct ch4coll_setup *s)
{
    nodes_from_hashes(s->c->size, s->all, s->idx, s->c->node_of);
    ch4coll_free(s->all);
    ch4coll_free(s->idx);
    s->all = NULL;
    s->idx = NULL;
}

/* Post the gather of host hashes (none with virtual nodes: comm.c makes
 * them); *done when there is nothing to wait for. */
static int nodes_post(struct ch4coll_setup *s, int *done)
{
    ch4coll_comm_t *c = s->c;
    size_t p = (size_t) c->size;
    int rc;

    *done = ch4coll_config.virtual_ppn > 0;
    if (*done)
        return CH4COLL_OK;
    c->node_of = ch4coll_malloc(p * sizeof *c->node_of);
    s->idx = ch4coll_malloc(p * sizeof *s->idx);
    s->all = ch4coll_malloc(p * sizeof *s->all);
    if (!c->node_of || !s->idx || !s->all)
        return CH4COLL_ERR_NOMEM;
    s->mine = host_hash();
#ifdef CH4COLL_SMPI
    rc = PMPI_Allgather(&s->mine, 1, MPI_UINT64_T, s->all, 1, MPI_UINT64_T,
                        c->dup);
    *done = rc == MPI_SUCCESS;
    if (*done)
        nodes_made(s);
#else
    rc = PMPI_Iallgather(&s->mine, 1, MPI_UINT64_T, s->all, 1, MPI_UINT64_T,
                         c->dup, &s->req);
#endif
    return rc == MPI_SUCCESS ? CH4COLL_OK : CH4COLL_ERR_MPI;
}

/* The setup ended (rc): derive the rest of the state, let the calls that
 * wait for it go on, and drop the setup. */
static void setup_end(struct ch4coll_setup *s, int rc)
{
    struct ch4coll_setup **pp = &setups;
    ch4coll_comm_t *c = s->c;

    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = s->next;
        ch4coll_nb_hold(-1);
    }
    if (rc == CH4COLL_OK)
        rc = ch4coll_comm_setup(c);
    if (rc == CH4COLL_OK && c->user == MPI_COMM_NULL)
        ch4coll_comm_unlink(c); /* freed meanwhile: only requests use it */
    if (rc != CH4COLL_OK) {
        ch4coll_log(CH4COLL_LOG_WARN,
                    "error: cannot set up ch4coll on a communicator of %d "
                    "ranks (%s); its collectives go to the host MPI",
                    c->size, ch4coll_strerror(rc));
        c->setup_rc = rc;
    }
    c->setup = NULL;
    ch4coll_free(s->all);
    ch4coll_free(s->idx);
    ch4coll_free(s);
    ch4coll_nb_comm_ready(c);
    ch4coll_comm_unref(c); /* the setup's reference */
}

/* One step of a setup under way: *moved if it advanced. */
static void setup_step(struct ch4coll_setup *s, int *moved)
{
    int flag = 0, done = 0, rc = CH4COLL_OK;

    *moved = 0;
#ifndef CH4COLL_SMPI
    if (PMPI_Test(&s->req, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        rc = CH4COLL_ERR_MPI;
#endif
    if (rc == CH4COLL_OK && !flag)
        return;
    *moved = 1;
    if (rc == CH4COLL_OK && s->phase == SETUP_DUP) {
        dup_made(s->c);
        s->phase = SETUP_NODES;
        rc = nodes_post(s, &done);
        if (rc == CH4COLL_OK && !done)
            return;
    } else if (rc == CH4COLL_OK) {
        nodes_made(s);
    }
    setup_end(s, rc);
}

int ch4coll_comm_setups_progress(void)
{
    struct ch4coll_setup *s, *next;
    int n = 0, moved;

    for (s = setups; s; s = next) {
        next = s->next;
        setup_step(s, &moved);
        n += moved;
    }
    return n;
}

/* Post the duplicate: the first step of a setup. */
static int setup_post(struct ch4coll_setup *s)
{
    ch4coll_comm_t *c = s->c;
    int done = 0, rc;

#ifdef CH4COLL_SMPI
    rc = PMPI_Comm_dup(c->user, &c->dup) == MPI_SUCCESS ? CH4COLL_OK
                                                        : CH4COLL_ERR_MPI;
    if (rc == CH4COLL_OK) {
        dup_made(c);
        s->phase = SETUP_NODES;
        rc = nodes_post(s, &done);
    }
    if (rc != CH4COLL_OK || done) {
        setup_end(s, rc);
        return CH4COLL_OK;
    }
#else
    (void) done;
    rc = PMPI_Comm_idup(c->user, &c->dup, &s->req) == MPI_SUCCESS
             ? CH4COLL_OK
             : CH4COLL_ERR_MPI;
    if (rc != CH4COLL_OK) {
        setup_end(s, rc);
        return CH4COLL_OK;
    }
#endif
    s->next = setups;
    setups = s;
    ch4coll_nb_hold(1);
    return CH4COLL_OK;
}

/* A state for comm, attached to it, its setup under way (done at once for
 * an intercommunicator, always native, and for one rank: nothing to
 * make). */
static int state_begin(MPI_Comm comm, ch4coll_comm_t **out)
{
    ch4coll_comm_t *c = ch4coll_calloc(1, sizeof *c);
    struct ch4coll_setup *s = ch4coll_calloc(1, sizeof *s);
    int rc;

    if (!c || !s) {
        ch4coll_free(c);
        ch4coll_free(s);
        return CH4COLL_ERR_NOMEM;
    }
    c->user = comm;
    c->dup = MPI_COMM_NULL;
    c->tp = &ch4coll_transport_pmpi;
    c->tp_ctx = &c->dup;
    c->tag_next = &c->tag;
    c->host_free = free_dup;
    PMPI_Comm_test_inter(comm, &c->inter);
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    PMPI_Comm_set_attr(comm, keyval, c);
    *out = c;
    if (c->inter || c->size == 1) {
        ch4coll_free(s);
        if (!c->inter) {
            c->dup = MPI_COMM_SELF;
            c->tag_ub = tag_ub_of(MPI_COMM_SELF);
        }
        rc = ch4coll_comm_setup(c);
        c->setup_rc = rc;
        return CH4COLL_OK;
    }
    s->c = c;
    c->setup = s;
    c->refs++; /* the setup's, dropped in setup_end */
    return setup_post(s);
}

void ch4coll_finalize(void)
{
    ch4coll_lock();
    if (initialized && self_keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_delete_attr(MPI_COMM_SELF, self_keyval); /* finalize_all */
    ch4coll_unlock();
}

/* The state of comm, begun if there is none (not waited for). */
static int state_open(MPI_Comm comm, ch4coll_comm_t **out)
{
    void *val;
    int flag = 0, rc;

    if (comm == last_comm && last_epoch == ch4coll_comm_epoch) {
        *out = last_state;
        return CH4COLL_OK;
    }
    if (!initialized && (rc = init_once(0)) != CH4COLL_OK)
        return rc;
    PMPI_Comm_get_attr(comm, keyval, &val, &flag);
    if (!flag)
        return state_begin(comm, out);
    *out = val;
    if (!(*out)->setup) {
        last_comm = comm;
        last_state = *out;
        last_epoch = ch4coll_comm_epoch;
    }
    return CH4COLL_OK;
}

static int setup_done(void *ctx, int *flag)
{
    *flag = ((ch4coll_comm_t *) ctx)->setup == NULL;
    return MPI_SUCCESS;
}

int ch4coll_comm_get(MPI_Comm comm, ch4coll_comm_t **out)
{
    int rc = state_open(comm, out);

    if (rc == CH4COLL_OK && (*out)->setup)
        rc = ch4coll_nb_wait_until(setup_done, *out) == MPI_SUCCESS
                 ? CH4COLL_OK
                 : CH4COLL_ERR_MPI;
    return rc;
}

/* ------------------------------------------------- argument checks */

/* Named datatypes by the groups of MPI 4.0 section 6.9.2, with MPICH's
 * additions (MPI_CHAR among the C integers; MPI_CHARACTER and the sized
 * Fortran integers; MPI_REAL4/8/16; the extra complex types). */
enum {
    G_INT = 1,     /* C and Fortran integers, MPI_AINT, MPI_OFFSET, ... */
    G_FLOAT = 2,   /* floating point */
    G_LOGICAL = 4, /* MPI_C_BOOL, MPI_LOGICAL, MPI_CXX_BOOL */
    G_COMPLEX = 8,
    G_BYTE = 16,
    G_PAIR = 32 /* value-index pairs of MPI_MINLOC and MPI_MAXLOC */
};

static int group_of(MPI_Datatype dt)
{
    /* automatic: some MPIs' handles are not constant expressions */
    const struct {
        MPI_Datatype dt;
        int group;
    } t[] = {
        {MPI_INT, G_INT},
        {MPI_LONG, G_INT},
        {MPI_SHORT, G_INT},
        {MPI_UNSIGNED_SHORT, G_INT},
        {MPI_UNSIGNED, G_INT},
        {MPI_UNSIGNED_LONG, G_INT},
        {MPI_LONG_LONG_INT, G_INT},
        {MPI_LONG_LONG, G_INT},
        {MPI_UNSIGNED_LONG_LONG, G_INT},
        {MPI_SIGNED_CHAR, G_INT},
        {MPI_UNSIGNED_CHAR, G_INT},
        {MPI_CHAR, G_INT},
        {MPI_INT8_T, G_INT},
        {MPI_INT16_T, G_INT},
        {MPI_INT32_T, G_INT},
        {MPI_INT64_T, G_INT},
        {MPI_UINT8_T, G_INT},
        {MPI_UINT16_T, G_INT},
        {MPI_UINT32_T, G_INT},
        {MPI_UINT64_T, G_INT},
        {MPI_AINT, G_INT},
        {MPI_OFFSET, G_INT},
        {MPI_COUNT, G_INT},
        {MPI_INTEGER, G_INT},
        {MPI_CHARACTER, G_INT},
#ifdef MPI_INTEGER1
        {MPI_INTEGER1, G_INT},
        {MPI_INTEGER2, G_INT},
        {MPI_INTEGER4, G_INT},
        {MPI_INTEGER8, G_INT},
#endif
#ifdef MPI_INTEGER16
        {MPI_INTEGER16, G_INT},
#endif
        {MPI_FLOAT, G_FLOAT},
        {MPI_DOUBLE, G_FLOAT},
        {MPI_LONG_DOUBLE, G_FLOAT},
        {MPI_REAL, G_FLOAT},
        {MPI_DOUBLE_PRECISION, G_FLOAT},
#ifdef MPI_REAL4
        {MPI_REAL4, G_FLOAT},
        {MPI_REAL8, G_FLOAT},
#endif
#ifdef MPI_REAL16
        {MPI_REAL16, G_FLOAT},
#endif
        {MPI_C_BOOL, G_LOGICAL},
        {MPI_LOGICAL, G_LOGICAL},
#ifdef MPI_CXX_BOOL
        {MPI_CXX_BOOL, G_LOGICAL},
#endif
        {MPI_C_COMPLEX, G_COMPLEX},
        {MPI_C_FLOAT_COMPLEX, G_COMPLEX},
        {MPI_C_DOUBLE_COMPLEX, G_COMPLEX},
        {MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX},
        {MPI_COMPLEX, G_COMPLEX},
        {MPI_DOUBLE_COMPLEX, G_COMPLEX},
#ifdef MPI_COMPLEX8
        {MPI_COMPLEX8, G_COMPLEX},
        {MPI_COMPLEX16, G_COMPLEX},
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
        {MPI_CXX_FLOAT_COMPLEX, G_COMPLEX},
        {MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX},
#endif
        {MPI_BYTE, G_BYTE},
        {MPI_2INT, G_PAIR},
        {MPI_FLOAT_INT, G_PAIR},
        {MPI_DOUBLE_INT, G_PAIR},
        {MPI_LONG_INT, G_PAIR},
        {MPI_SHORT_INT, G_PAIR},
        {MPI_LONG_DOUBLE_INT, G_PAIR},
        {MPI_2INTEGER, G_PAIR},
        {MPI_2REAL, G_PAIR},
        {MPI_2DOUBLE_PRECISION, G_PAIR},
    };
    size_t i;

    for (i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].dt == dt && dt != MPI_DATATYPE_NULL)
            return t[i].group;
    return 0;
}

/* The groups a predefined op is defined on (-1: every type). */
static int groups_of(MPI_Op op)
{
    if (op == MPI_MAX || op == MPI_MIN)
        return G_INT | G_FLOAT;
    if (op == MPI_SUM || op == MPI_PROD)
        return G_INT | G_FLOAT | G_COMPLEX;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return G_INT | G_LOGICAL;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return G_INT | G_BYTE;
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
        return G_PAIR;
    return -1; /* MPI_REPLACE, MPI_NO_OP */
}

/* What is remembered of a datatype that passed. */
typedef struct {
    MPI_Datatype dt;
    int named;
    int null_bad; /* a null buffer with count > 0 is an error */
} type_ok_t;

typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
} pair_ok_t;

#define MEMO 8 /* datatypes and (datatype, op) pairs remembered */

static type_ok_t types_ok[MEMO];
static pair_ok_t pairs_ok[MEMO];
static int ntypes_ok, npairs_ok, next_type, next_pair;

void ch4coll_pmpi_args_forget(MPI_Datatype dt, MPI_Op op)
{
    int i;

    for (i = 0; i < ntypes_ok; i++)
        if (dt != MPI_DATATYPE_NULL && types_ok[i].dt == dt)
            types_ok[i].dt = MPI_DATATYPE_NULL;
    for (i = 0; i < npairs_ok; i++)
        if ((dt != MPI_DATATYPE_NULL && pairs_ok[i].dt == dt) ||
            (op != MPI_OP_NULL && pairs_ok[i].op == op))
            pairs_ok[i].dt = MPI_DATATYPE_NULL;
}

/* Is dt a valid, committed datatype?  MPI_Pack_size with a zero count
 * checks exactly that, quietly with MPI_COMM_SELF's handler set to
 * return.  A freed handle cannot be told from a live one (MPICH cannot
 * either). */
static int type_valid(MPI_Datatype dt, type_ok_t *out)
{
    MPI_Errhandler self;
    MPI_Aint tlb = 0, text = 0;
    int i, rc, n, ni, na, nd, combiner = MPI_COMBINER_NAMED, size = 0;

    if (dt == MPI_DATATYPE_NULL)
        return 0;
    for (i = 0; i < ntypes_ok; i++)
        if (types_ok[i].dt == dt) {
            *out = types_ok[i];
            return 1;
        }
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = PMPI_Pack_size(0, dt, MPI_COMM_SELF, &n);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    PMPI_Errhandler_free(&self);
    if (rc != MPI_SUCCESS)
        return 0;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner);
    PMPI_Type_size(dt, &size); /* MPI_UNDEFINED: above INT_MAX */
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    out->dt = dt;
    out->named = combiner == MPI_COMBINER_NAMED;
    out->null_bad = size != 0 && (out->named || tlb == 0);
    types_ok[next_type] = *out;
    next_type = (next_type + 1) % MEMO;
    if (ntypes_ok < MEMO)
        ntypes_ok++;
    return 1;
}

/* Pairs outside MPI's groups that MPICH defines, with a kernel: MPI_LXOR
 * on floating point (its test oplxor uses it).  MPICH's MPI_LAND and
 * MPI_LOR pass its check on floating point too, but their kernel then
 * aborts the process: for those ch4coll keeps MPI_ERR_OP, and a probe
 * must not be made. */
static int host_extension(MPI_Op op, int group)
{
    return op == MPI_LXOR && group == G_FLOAT;
}

/* Is the predefined op defined on dt (valid)?  Named types by the groups
 * of MPI 4.0 section 6.9.2, or a host extension the host's
 * MPI_Reduce_local takes; derived ones by a one-element MPI_Reduce_local
 * probe.  What the host accepts, ch4coll accepts. */
static int op_defined(MPI_Op op, const type_ok_t *t)
{
    ch4coll_elem_t e;
    int i, groups = groups_of(op), group = t->named ? group_of(t->dt) : 0, ok;

    if (groups < 0)
        return 1;
    for (i = 0; i < npairs_ok; i++)
        if (pairs_ok[i].dt == t->dt && pairs_ok[i].op == op)
            return 1;
    ok = (group & groups) != 0;
    if (!ok && (!t->named || host_extension(op, group))) {
        ch4coll_host_elem(t->dt, &e);
        ok = ch4coll_host_reduce_defined(t->dt, op, &e);
    }
    if (ok) {
        pairs_ok[next_pair].dt = t->dt;
        pairs_ok[next_pair].op = op;
        next_pair = (next_pair + 1) % MEMO;
        if (npairs_ok < MEMO)
            npairs_ok++;
    }
    return ok;
}

/* The verdict: MPI_SUCCESS, or an MPI error class and why. */
typedef struct {
    int cls;
    int native; /* no error, but leave the call to the host MPI */
    char why[160];
} verdict_t;

/* Record a bad argument; returns 0 (not ok). */
static int bad(verdict_t *v, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(verdict_t *v, int cls, const char *fmt, ...)
{
    va_list ap;

    v->cls = cls;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    return 0;
}

/* One side of a data-movement call (significant on this rank, so not
 * in place): its counts, its datatype, and its buffer (MPI_IN_PLACE or
 * NULL with data to move: MPICH's tests, which skip empty sides). */
static int side_ok(const ch4coll_side_t *s, int p, const char *name,
                   type_ok_t *t, verdict_t *v)
{
    int i, any = s->counts ? 0 : s->count > 0, at0 = any;

    if (!s->counts && s->count < 0)
        return bad(v, MPI_ERR_COUNT, "%scount %d is negative", name, s->count);
    for (i = 0; s->counts && i < p; i++) {
        if (s->counts[i] < 0)
            return bad(v, MPI_ERR_COUNT, "%scount %d is negative", name,
                       s->counts[i]);
        any |= s->counts[i] > 0;
        /* MPICH: a null buffer only where a displacement is 0 */
        at0 |= s->counts[i] > 0 && (!s->displs || s->displs[i] == 0);
    }
    if (!type_valid(s->dt, t))
        return bad(v, MPI_ERR_TYPE,
                   "the %sdatatype is null, invalid or not committed", name);
    if (s->buf == MPI_IN_PLACE && any)
        return bad(v, MPI_ERR_BUFFER,
                   "MPI_IN_PLACE is not allowed as the %sbuffer", name);
    if (!s->buf && at0 && t->null_bad)
        return bad(v, MPI_ERR_BUFFER, "the %sbuffer is NULL", name);
    return 1;
}

/* A reduction: count(s), datatype, op, buffers. */
static int reduction_ok(const ch4coll_call_t *call, int rank, int p,
                        verdict_t *v)
{
    int coll = call->coll, i;
    int has_recv = coll != CH4COLL_REDUCE || rank == call->root;
    long long count = call->rcv.count, total = count;
    const void *sb = call->snd.buf, *rb = call->rcv.buf;
    type_ok_t t;

    if (coll == CH4COLL_REDUCE_SCATTER)
        for (i = 0, total = 0; i < p; i++) {
            if (call->rcv.counts[i] < 0)
                return bad(v, MPI_ERR_COUNT, "receive count %d is negative",
                           call->rcv.counts[i]);
            total += call->rcv.counts[i];
            count = call->rcv.counts[rank];
        }
    else if (coll == CH4COLL_REDUCE_SCATTER_BLOCK)
        total = count * p;
    if (count < 0)
        return bad(v, MPI_ERR_COUNT, "count %lld is negative", count);
    if (call->op == MPI_OP_NULL)
        return bad(v, MPI_ERR_OP, "the op is %s", "MPI_OP_NULL");
    if (!type_valid(call->rcv.dt, &t))
        return bad(v, MPI_ERR_TYPE, "the %s is null, invalid or not committed",
                   "datatype");
    if (ch4coll_run_op_builtin(call->op) && !op_defined(call->op, &t))
        return bad(v, MPI_ERR_OP, "the predefined op is not defined for %s",
                   "the datatype");
    if (has_recv && rb == MPI_IN_PLACE && count > 0)
        return bad(v, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the %s",
                   "receive buffer");
    if (!has_recv && sb == MPI_IN_PLACE && count > 0) /* reduce, non-root */
        return bad(v, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the %s",
                   "send buffer at a non-root");
    if (has_recv && sb == rb && sb && total > 0)
        return bad(v, MPI_ERR_BUFFER,
                   "the send and receive buffers are the same");
    if (t.null_bad && ((has_recv && !rb && count > 0) || (!sb && total > 0)))
        return bad(v, MPI_ERR_BUFFER, "a buffer is NULL");
    return 1;
}

/* The checks of MPICH's MPI_ layer for a described call on an
 * intracommunicator. */
static int args_ok(const ch4coll_call_t *call, verdict_t *v)
{
    int coll = call->coll, p = call->size, st = call->s_sig, rt = call->r_sig;
    type_ok_t ts, tr;

    v->cls = MPI_SUCCESS;
    v->native = 0;
    if (call->rooted && (call->root < 0 || call->root >= p))
        return bad(v, MPI_ERR_ROOT, "root %d is not a rank of %d", call->root,
                   p);
    if (ch4coll_coll_is_reduction(coll))
        return reduction_ok(call, call->rank, p, v);
    if (coll == CH4COLL_BARRIER)
        return 1;
    if (coll == CH4COLL_BCAST && call->rcv.count == 0) {
        /* MPICH reads the datatype only if count > 0; ch4coll would */
        v->native = !type_valid(call->rcv.dt, &tr);
        return 1;
    }
    if (coll == CH4COLL_BCAST)
        return side_ok(&call->rcv, p, "", &tr, v);
    if (st && !side_ok(&call->snd, p, "send ", &ts, v))
        return 0;
    if (rt && !side_ok(&call->rcv, p, "receive ", &tr, v))
        return 0;
    /* MPICH compares whole buffers for alltoall(v) (same type, same
     * count or counts array); for the others it compares with this
     * rank's own block, which is not checked here */
    if (st && rt && call->snd.buf == call->rcv.buf && call->snd.buf &&
        call->snd.dt == call->rcv.dt &&
        ((coll == CH4COLL_ALLTOALL && call->snd.count == call->rcv.count &&
          call->snd.count > 0) ||
         (coll == CH4COLL_ALLTOALLV && call->snd.counts == call->rcv.counts)))
        return bad(v, MPI_ERR_BUFFER,
                   "the send and receive buffers are the same");
    return 1;
}

/* Check a described call on this rank (c: its communicator's state);
 * MPI_SUCCESS, CH4COLL_RUN_NATIVE, or the error class, reported through
 * the communicator's error handler.  With MPIR_CVAR_CH4COLL_VERIFY a
 * blocking call with bad arguments still takes part in the verification
 * exchange (as an invalid call), so the other ranks fail instead of
 * waiting for this one. */
static int check_args(ch4coll_comm_t *c, const ch4coll_call_t *call, int nb)
{
    verdict_t v;
    ch4coll_call_t poisoned;
    ch4coll_centry_t *e;
    int rc;

    if (c->inter)
        return MPI_SUCCESS;
    if (args_ok(call, &v))
        return v.native ? ch4coll_run_native() : MPI_SUCCESS;
    ch4coll_log(CH4COLL_LOG_WARN, "error: %s%s: %s", nb ? "i" : "",
                ch4coll_coll_name(call->coll), v.why);
    if (!nb && ch4coll_config.verify) {
        poisoned = *call;
        poisoned.snd.count = poisoned.rcv.count = -1;
        rc = ch4coll_run_lookup(c, &poisoned, 0, &e);
        if (rc != MPI_SUCCESS && rc != CH4COLL_RUN_NATIVE)
            return rc; /* the verification failed here too (reported) */
    }
    PMPI_Comm_call_errhandler(call->comm, v.cls);
    return v.cls;
}

/* ------------------------------------------------ preload run entries */

/* No buffer argument that MPI reads on this rank can be wrong: none is
 * NULL or MPI_IN_PLACE, and the send and receive buffers differ.  What
 * else args_ok() checks is part of the cache key. */
static int plain_buffers(const ch4coll_call_t *call)
{
    const void *s = call->snd.buf, *r = call->rcv.buf;
    int sr = call->s_sig || ch4coll_coll_is_reduction(call->coll);

    if (sr && (!s || s == MPI_IN_PLACE))
        return 0;
    if (call->r_sig && (!r || r == MPI_IN_PLACE))
        return 0;
    return !(sr && call->r_sig && s == r);
}

/* The state for call, and the call's entry or native.  A blocking call
 * waits for the state's setup; a nonblocking or persistent one does not:
 * CH4COLL_RUN_DEFER while the setup is under way (core/nbc.c resolves it
 * later; *c is NULL unless a state was found or begun).  The call is
 * described, and its arguments checked unless the cache already holds its
 * shape (an entry exists only for checked arguments) and its buffers
 * cannot be wrong; with MPIR_CVAR_CH4COLL_VERIFY every call is checked
 * first, as the verification exchange wants. */
static int entry_for(ch4coll_call_t *call, int nb, ch4coll_comm_t **c,
                     ch4coll_centry_t **e)
{
    int rc;

    *c = NULL;
    if (!ch4coll_config.enable || call->comm == MPI_COMM_NULL)
        return ch4coll_run_native();
    rc = nb ? state_open(call->comm, c) : ch4coll_comm_get(call->comm, c);
    if (rc != CH4COLL_OK)
        return ch4coll_host_error(call->comm, rc);
    ch4coll_call_describe(call, (*c)->rank, (*c)->size);
    if (!(*c)->setup && (*c)->setup_rc == CH4COLL_OK &&
        !ch4coll_config.verify && plain_buffers(call) &&
        (rc = ch4coll_run_cached(*c, call, nb, e)) != CH4COLL_RUN_MISS)
        return rc;
    rc = check_args(*c, call, nb);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((*c)->setup)
        return CH4COLL_RUN_DEFER;
    if ((*c)->setup_rc != CH4COLL_OK)
        return ch4coll_run_native();
    return ch4coll_run_lookup(*c, call, nb, e);
}

int ch4coll_run(ch4coll_call_t *call)
{
    ch4coll_comm_t *c;
    ch4coll_centry_t *e;
    int rc;

    ch4coll_lock();
    rc = entry_for(call, 0, &c, &e);
    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_execute(c, e, call);
    ch4coll_unlock();
    return rc;
}

int ch4coll_run_prepare(ch4coll_call_t *call, ch4coll_comm_t **c,
                        ch4coll_inst_t **in)
{
    ch4coll_centry_t *e;
    int rc = entry_for(call, 1, c, &e);

    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_acquire(*c, e, call, in);
    return rc;
}

int ch4coll_run_resolve(ch4coll_comm_t *c, const ch4coll_call_t *call,
                        ch4coll_inst_t **in)
{
    ch4coll_centry_t *e;
    int rc;

    if (c->setup_rc != CH4COLL_OK)
        return ch4coll_run_native();
    rc = ch4coll_run_lookup(c, call, 1, &e);
    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_acquire(c, e, call, in);
    return rc;
}
