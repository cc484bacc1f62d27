/*
 * comm_pmpi.c - preload mode's communicator state: created at the first
 * blocking collective on a private duplicate, carried as an attribute,
 * cleaned up at MPI_Finalize; and the run entry points that find it.
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
#include "host.h"
#include "nbc.h"
#include "run.h"

static int keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static int initialized;
/* initial-exec: a plain %fs load instead of a __tls_get_addr call */
#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS MPI_Comm last_comm = MPI_COMM_NULL;
static TLS ch4coll_comm_t *last_state;
static TLS unsigned last_epoch;

static void free_dup(ch4coll_comm_t *c)
{
    if (c->dup != MPI_COMM_NULL)
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
    ch4coll_comm_unlink(c);
    c->user = MPI_COMM_NULL;
    if (c->refs > 0)
        c->doomed = 1;
    else
        ch4coll_comm_release(c);
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
    ch4coll_comm_release_all(delete_attr);
    PMPI_Comm_free_keyval(&keyval);
    ch4coll_select_finalize();
    initialized = 0;
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
    ch4coll_comm_threads(any_multi_threaded(collective));
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
                ch4coll_node_ranks, (int) sysconf(_SC_NPROCESSORS_ONLN),
                ch4coll_select_tree() ? ch4coll_select_tree()->name : "-");
    return rc;
}

int ch4coll_init(void)
{
    return init_once(1);
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

/* node_of from an allgather of processor-name hashes over dup (the ranks
 * of one shared-memory node report the same host); none when virtual
 * nodes are configured (comm.c makes them). */
static int host_nodes(ch4coll_comm_t *c)
{
    int p = c->size, *tmp;
    uint64_t mine, *all;
    MPI_Request r;

    if (ch4coll_config.virtual_ppn > 0)
        return CH4COLL_OK;
    c->node_of = ch4coll_malloc((size_t) p * sizeof *c->node_of);
    tmp = ch4coll_malloc((size_t) p * sizeof *tmp);
    all = ch4coll_malloc((size_t) p * sizeof *all);
    if (!c->node_of || !tmp || !all) {
        ch4coll_free(all);
        ch4coll_free(tmp);
        return CH4COLL_ERR_NOMEM;
    }
    mine = host_hash();
    if (PMPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, c->dup,
                        &r) != MPI_SUCCESS ||
        wait_progress(&r) != MPI_SUCCESS) {
        ch4coll_free(all);
        ch4coll_free(tmp);
        return CH4COLL_ERR_MPI;
    }
    nodes_from_hashes(p, all, tmp, c->node_of);
    ch4coll_free(all);
    ch4coll_free(tmp);
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
    c->tp = &ch4coll_transport_pmpi;
    c->tp_ctx = &c->dup;
    c->tag_next = &c->tag;
    c->host_free = free_dup;
    PMPI_Comm_test_inter(comm, &c->inter);
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    if (!c->inter) {
        if (PMPI_Comm_idup(comm, &c->dup, &r) != MPI_SUCCESS ||
            wait_progress(&r) != MPI_SUCCESS) {
            ch4coll_free(c);
            return CH4COLL_ERR_MPI;
        }
        PMPI_Comm_get_attr(c->dup, MPI_TAG_UB, &ub, &flag);
        c->tag_ub = flag ? *ub : 32767;
        rc = host_nodes(c);
    }
    if (rc == CH4COLL_OK)
        rc = ch4coll_comm_setup(c);
    if (rc != CH4COLL_OK) {
        ch4coll_comm_release(c);
        return rc;
    }
    PMPI_Comm_set_attr(comm, keyval, c);
    *out = c;
    return CH4COLL_OK;
}

int ch4coll_comm_find(MPI_Comm comm, ch4coll_comm_t **out)
{
    void *val;
    int flag = 0;

    *out = NULL;
    if (comm == last_comm && last_epoch == ch4coll_comm_epoch)
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

    if (comm == last_comm && last_epoch == ch4coll_comm_epoch) {
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
    last_epoch = ch4coll_comm_epoch;
    return CH4COLL_OK;
}

/* ------------------------------------------------ preload run entries */

/* The state for call, or native: nonblocking and persistent calls run
 * native until a blocking collective has created it (creating it is a
 * blocking collective; every rank sees the same sequence of collectives,
 * so all of them agree). */
static int state_for(const ch4coll_call_t *call, int nb, ch4coll_comm_t **c)
{
    int rc;

    if (!ch4coll_config.enable || call->comm == MPI_COMM_NULL)
        return ch4coll_run_native();
    if (nb && !ch4coll_comm_find(call->comm, c)) {
        ch4coll_log(CH4COLL_LOG_CALL,
                    "i%s: native (no blocking collective on this "
                    "communicator yet)",
                    ch4coll_coll_name(call->coll));
        return ch4coll_run_native();
    }
    rc = nb ? CH4COLL_OK : ch4coll_comm_get(call->comm, c);
    return rc == CH4COLL_OK ? MPI_SUCCESS : ch4coll_host_error(call->comm, rc);
}

int ch4coll_run(const ch4coll_call_t *call)
{
    ch4coll_comm_t *c;
    ch4coll_centry_t *e;
    int rc = state_for(call, 0, &c);

    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_lookup(c, call, 0, &e);
    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_execute(c, e, call);
    return rc;
}

int ch4coll_run_prepare(const ch4coll_call_t *call, ch4coll_comm_t **c,
                        ch4coll_inst_t **in)
{
    ch4coll_centry_t *e;
    int rc = state_for(call, 1, c);

    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_lookup(*c, call, 1, &e);
    if (rc == MPI_SUCCESS)
        rc = ch4coll_run_acquire(*c, e, call, in);
    return rc;
}
