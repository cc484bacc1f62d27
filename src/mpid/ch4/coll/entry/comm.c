/*
 * comm.c - communicator state, the attribute that carries it, and cleanup
 * at MPI_Finalize.
 *
 * MPI deletes the attributes of MPI_COMM_SELF first in MPI_Finalize; an
 * attribute there frees every state still alive (those of MPI_COMM_WORLD and
 * of communicators the application never freed).  A one-entry lookup cache
 * per thread avoids the attribute search on repeated calls; it is cleared
 * whenever a state is freed.
 */
#include "comm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../select/config.h"
#include "../select/select.h"
#include "../util/util.h"
#include "nbc.h"

static int keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static int initialized;
static int node_size = 1;
static ch4coll_comm_t *all_states;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* initial-exec: a plain %fs load instead of a __tls_get_addr call */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS MPI_Comm last_comm = MPI_COMM_NULL;
static TLS ch4coll_comm_t *last_state;
static unsigned state_epoch; /* bumped on every free */
static TLS unsigned last_epoch;

static void state_unlink(ch4coll_comm_t *c)
{
    pthread_mutex_lock(&lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        all_states = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    state_epoch++;
    pthread_mutex_unlock(&lock);
}

static void state_release(ch4coll_comm_t *c)
{
    ch4coll_cache_destroy(&c->cache);
    ch4coll_tree_free(&c->tree);
    if (c->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&c->dup);
    ch4coll_free(c->vbuf);
    ch4coll_free(c->node_of);
    ch4coll_free(c);
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
    state_unlink(c);
    c->user = MPI_COMM_NULL;
    if (c->refs > 0)
        c->doomed = 1;
    else
        state_release(c);
    return MPI_SUCCESS;
}

void ch4coll_comm_unref(ch4coll_comm_t *c)
{
    if (--c->refs == 0 && c->doomed)
        state_release(c);
}

/* MPI_COMM_SELF's attribute: runs first in MPI_Finalize. */
static int finalize_all(MPI_Comm comm, int kv, void *val, void *extra)
{
    (void) comm;
    (void) kv;
    (void) val;
    (void) extra;
    while (all_states)
        PMPI_Comm_delete_attr(all_states->user, keyval);
    PMPI_Comm_free_keyval(&keyval);
    ch4coll_select_finalize();
    initialized = 0;
    return MPI_SUCCESS;
}

static int count_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int) n : 1;
}

/* Ranks on this node: from the launcher if it says, else measured. */
static void detect_node_size(int may_split)
{
    const char *env = getenv("MPI_LOCALNRANKS");
    int64_t v;
    MPI_Comm node;

    if (env && ch4coll_parse_int64(env, 1, 1 << 24, &v) == CH4COLL_OK) {
        node_size = (int) v;
        return;
    }
    if (may_split &&
        PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        PMPI_Comm_size(node, &node_size);
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
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &keyval, NULL);
    if (self_keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_all,
                                &self_keyval, NULL);
    PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    detect_node_size(collective);
    initialized = 1;
    ch4coll_log(CH4COLL_LOG_INFO,
                "ch4coll %s: %s, %d rank(s) on this node, "
                "%d core(s), selection from %s",
                "0.1.0", ch4coll_config.enable ? "enabled" : "disabled",
                node_size, count_cores(),
                ch4coll_select_tree() ? ch4coll_select_tree()->name : "-");
    return rc;
}

int ch4coll_init(void)
{
    return init_once(1);
}

int ch4coll_comm_want_yield(void)
{
    if (ch4coll_config.yield != CH4COLL_YIELD_AUTO)
        return ch4coll_config.yield;
    return node_size > count_cores();
}

/* Creating a state communicates (a duplicate, an allgather) inside the
 * application's first collective on the communicator.  Nonblocking
 * collectives may be in flight, and a peer may wait for this rank's part in
 * them before it joins: so every step is the nonblocking form, waited for
 * with their progress (entry/nbc.c). */
static int test_one(void *ctx, int *flag)
{
    return PMPI_Test(ctx, flag, MPI_STATUS_IGNORE);
}

static int wait_progress(MPI_Request *r)
{
    return ch4coll_nb_wait_until(test_one, r);
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

/* Locality summary: node of every rank (numbered in order of first
 * appearance), nodes, node-consecutive, hierarchy.  Collective over dup
 * (an allgather of processor-name hashes: the ranks of one shared-memory
 * node report the same host) unless virtual nodes are asked for
 * (MPIR_CVAR_CH4COLL_VIRTUAL_PPN). */
static int detect_locality(ch4coll_comm_t *c)
{
    int i, p = c->size, provided, *tmp;
    uint64_t mine, *all;
    MPI_Request r;
    int ppn = ch4coll_config.virtual_ppn;
    ch4coll_selin_t *s = &c->sel;

    c->node_of = ch4coll_malloc((size_t) p * sizeof *c->node_of);
    tmp = ch4coll_malloc((size_t) p * sizeof *tmp);
    if (!c->node_of || !tmp) {
        ch4coll_free(tmp);
        return CH4COLL_ERR_NOMEM;
    }
    if (ppn > 0) {
        for (i = 0; i < p; i++)
            c->node_of[i] =
                ch4coll_virtual_node(i, p, ppn, ch4coll_config.virtual_map);
    } else {
        mine = host_hash();
        all = ch4coll_malloc((size_t) p * sizeof *all);
        if (!all ||
            PMPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                            c->dup, &r) != MPI_SUCCESS ||
            wait_progress(&r) != MPI_SUCCESS) {
            ch4coll_free(all);
            ch4coll_free(tmp);
            return all ? CH4COLL_ERR_MPI : CH4COLL_ERR_NOMEM;
        }
        nodes_from_hashes(p, all, tmp, c->node_of);
        ch4coll_free(all);
    }
    s->nodes = ch4coll_nodes_normalise(p, c->node_of, tmp);
    ch4coll_nodes_ppn(p, c->node_of, s->nodes, tmp, &s->ppn_min, &s->ppn_max);
    ch4coll_free(tmp);
    s->node_consecutive = ch4coll_nodes_consecutive(p, c->node_of);
    s->hierarchy = ch4coll_hierarchy(s->nodes, p);
    if (c->rank == 0)
        ch4coll_log(CH4COLL_LOG_INFO,
                    "locality: %d ranks on %d nodes (%s), %d to %d per node, "
                    "%sconsecutive",
                    p, s->nodes, ppn > 0 ? "virtual" : "host", s->ppn_min,
                    s->ppn_max, s->node_consecutive ? "" : "not ");
    c->loc.nodes = s->nodes;
    c->loc.consecutive = s->node_consecutive;
    c->loc.node_of = c->node_of;
    PMPI_Query_thread(&provided);
    s->multi_threaded = provided == MPI_THREAD_MULTIPLE;
    return CH4COLL_OK;
}

static int state_create(MPI_Comm comm, ch4coll_comm_t **out)
{
    ch4coll_comm_t *c = ch4coll_calloc(1, sizeof *c);
    int *ub, flag, rc = CH4COLL_OK;
    MPI_Request r;

    if (!c)
        return CH4COLL_ERR_NOMEM;
    c->user = comm;
    c->dup = MPI_COMM_NULL;
    PMPI_Comm_test_inter(comm, &c->inter);
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    c->sel.inter = c->inter;
    c->sel.comm_size = c->size;
    if (!c->inter) {
        if (PMPI_Comm_idup(comm, &c->dup, &r) != MPI_SUCCESS ||
            wait_progress(&r) != MPI_SUCCESS) {
            ch4coll_free(c);
            return CH4COLL_ERR_MPI;
        }
        PMPI_Comm_get_attr(c->dup, MPI_TAG_UB, &ub, &flag);
        c->tag_ub = flag ? *ub : 32767;
        c->vbuf = ch4coll_malloc(4 * (size_t) c->size * sizeof *c->vbuf);
        rc = c->vbuf ? detect_locality(c) : CH4COLL_ERR_NOMEM;
        if (rc == CH4COLL_OK)
            rc = ch4coll_tree_prune(ch4coll_select_tree(), &c->sel, &c->tree);
        if (rc != CH4COLL_OK) {
            PMPI_Comm_free(&c->dup);
            ch4coll_free(c->vbuf);
            ch4coll_free(c->node_of);
            ch4coll_free(c);
            return rc;
        }
    }
    c->yield = ch4coll_comm_want_yield();
    ch4coll_cache_init(&c->cache, ch4coll_config.cache_size);
    pthread_mutex_lock(&lock);
    c->next = all_states;
    if (all_states)
        all_states->prev = c;
    all_states = c;
    pthread_mutex_unlock(&lock);
    PMPI_Comm_set_attr(comm, keyval, c);
    *out = c;
    return CH4COLL_OK;
}

int ch4coll_comm_find(MPI_Comm comm, ch4coll_comm_t **out)
{
    void *val;
    int flag = 0;

    *out = NULL;
    if (comm == last_comm && last_epoch == state_epoch)
        *out = last_state;
    else if (initialized &&
             PMPI_Comm_get_attr(comm, keyval, &val, &flag) == MPI_SUCCESS &&
             flag)
        *out = val;
    return *out != NULL;
}

int ch4coll_comm_get(MPI_Comm comm, ch4coll_comm_t **out)
{
    void *val;
    int flag = 0, rc;

    if (comm == last_comm && last_epoch == state_epoch) {
        *out = last_state;
        return CH4COLL_OK;
    }
    if (!initialized && (rc = init_once(0)) != CH4COLL_OK)
        return rc;
    PMPI_Comm_get_attr(comm, keyval, &val, &flag);
    if (flag) {
        *out = val;
    } else {
        rc = state_create(comm, out);
        if (rc != CH4COLL_OK)
            return rc;
    }
    last_comm = comm;
    last_state = *out;
    last_epoch = state_epoch;
    return CH4COLL_OK;
}

void ch4coll_comm_forget(MPI_Datatype dt, MPI_Op op)
{
    ch4coll_comm_t *c;

    pthread_mutex_lock(&lock);
    for (c = all_states; c; c = c->next)
        ch4coll_cache_forget(&c->cache, dt, op);
    pthread_mutex_unlock(&lock);
}
