/*
 * comm.c - the part of a communicator's state every mode shares: what is
 * derived from rank, size and the node of every rank (locality summary,
 * pruned selection tree, schedule cache, scratch), the list of live
 * states, and release.  The modes create states (comm_pmpi.c, mpich.c).
 */
#include "comm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../select/config.h"
#include "../select/select.h"
#include "../util/lock.h"
#include "../util/util.h"
#include "../host/host.h"
#include "verify.h"

int ch4coll_node_ranks = 1;
unsigned ch4coll_comm_epoch;
static ch4coll_comm_t *all_states;
static int threads_multiple; /* MPI_THREAD_MULTIPLE on some rank */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void ch4coll_comm_unlink(ch4coll_comm_t *c)
{
    pthread_mutex_lock(&lock);
    if (c->prev)
        c->prev->next = c->next;
    else if (all_states == c)
        all_states = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    ch4coll_comm_epoch++;
    pthread_mutex_unlock(&lock);
}

void ch4coll_comm_threads(int multi, int can_lock)
{
    threads_multiple = multi;
    if (!multi || !ch4coll_config.enable)
        return;
    if (can_lock) {
        ch4coll_locking = 1;
        if (ch4coll_log_rank <= 0)
            ch4coll_log(CH4COLL_LOG_INFO,
                        "MPI_THREAD_MULTIPLE: ch4coll's state is guarded by "
                        "its process lock");
        return;
    }
    ch4coll_config.enable = 0;
    if (ch4coll_log_rank <= 0)
        ch4coll_log(CH4COLL_LOG_WARN,
                    "notice: MPI_THREAD_MULTIPLE: every collective goes to "
                    "the host MPI (ch4coll inside MPICH runs only below "
                    "MPI_THREAD_MULTIPLE)");
}

void ch4coll_comm_release(ch4coll_comm_t *c)
{
    if (c->host_free)
        c->host_free(c);
    ch4coll_cache_destroy(&c->cache);
    ch4coll_verify_free(c->verify);
    ch4coll_tree_free(&c->tree);
    ch4coll_free(c->vbuf);
    ch4coll_free(c->node_of);
    ch4coll_free(c);
}

void ch4coll_comm_unref(ch4coll_comm_t *c)
{
    if (--c->refs == 0 && c->doomed)
        ch4coll_comm_release(c);
}

/* Cores online, asked once: sysconf reads a file in /sys on every call,
 * and the wait loops ask on every call (a relaxed atomic: threads that
 * race store the same number). */
int ch4coll_cores(void)
{
    static int cores;
    int n = __atomic_load_n(&cores, __ATOMIC_RELAXED);

    if (n == 0) {
        long v = sysconf(_SC_NPROCESSORS_ONLN);
        n = v > 0 ? (int) v : 1;
        __atomic_store_n(&cores, n, __ATOMIC_RELAXED);
    }
    return n;
}

int ch4coll_comm_want_yield(void)
{
    if (ch4coll_config.yield != CH4COLL_YIELD_AUTO)
        return ch4coll_config.yield;
    return ch4coll_node_ranks > ch4coll_cores();
}

/* Locality summary from node_of (renumbered in order of first
 * appearance): nodes, ranks per node, node-consecutive, hierarchy.
 * Virtual nodes (MPIR_CVAR_CH4COLL_VIRTUAL_PPN) replace the real ones. */
static int locality(ch4coll_comm_t *c)
{
    int i, p = c->size, *tmp, ppn = ch4coll_config.virtual_ppn;
    ch4coll_selin_t *s = &c->sel;

    if (!c->node_of || ppn > 0) {
        ch4coll_free(c->node_of);
        c->node_of = ch4coll_malloc((size_t) p * sizeof *c->node_of);
        if (!c->node_of)
            return CH4COLL_ERR_NOMEM;
        for (i = 0; i < p; i++)
            c->node_of[i] = ppn > 0 ? ch4coll_virtual_node(
                                          i, p, ppn, ch4coll_config.virtual_map)
                                    : 0;
    }
    tmp = ch4coll_malloc((size_t) p * sizeof *tmp);
    if (!tmp)
        return CH4COLL_ERR_NOMEM;
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
    s->multi_threaded = threads_multiple;
    return CH4COLL_OK;
}

int ch4coll_comm_setup(ch4coll_comm_t *c)
{
    int rc = CH4COLL_OK;

    c->sel.inter = c->inter;
    c->sel.comm_size = c->size;
    if (!c->inter) {
        c->vbuf = ch4coll_malloc(4 * (size_t) c->size * sizeof *c->vbuf);
        rc = c->vbuf ? locality(c) : CH4COLL_ERR_NOMEM;
        if (rc == CH4COLL_OK)
            rc = ch4coll_tree_prune(ch4coll_select_tree(), &c->sel, &c->tree);
        if (rc != CH4COLL_OK)
            return rc;
    }
    c->yield = ch4coll_comm_want_yield();
    ch4coll_cache_init(&c->cache, ch4coll_config.cache_size);
    pthread_mutex_lock(&lock);
    c->next = all_states;
    if (all_states)
        all_states->prev = c;
    all_states = c;
    pthread_mutex_unlock(&lock);
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

/* Release every state still linked (finalize): the mode's hook decides
 * what else happens to it; a state with requests in flight stays. */
void ch4coll_comm_release_all(void (*drop)(ch4coll_comm_t *))
{
    while (all_states)
        drop(all_states);
}
