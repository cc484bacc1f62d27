/*
 * cache.h - the schedule cache of one communicator.
 *
 * Keyed by the call's shape, never by buffer addresses: collective, root,
 * in-place flag, element count and datatype geometry, op and its
 * commutativity, and for v-collectives the count/displacement arrays.  The
 * algorithm is a pure function of that shape (selection reads only the
 * shape, the communicator and the CVARs fixed at init), so the shape alone
 * names the built schedule.  A hit re-runs the schedule with no allocation.
 *
 * At most `limit` entries are kept per communicator; the least recently
 * used is evicted (MPIR_CVAR_CH4COLL_CACHE_SIZE).
 */
#ifndef CH4COLL_CACHE_H
#define CH4COLL_CACHE_H

#include <stdint.h>

#include "../algos/algo.h"
#include "../sched/sched.h"

/* The MPI arguments that are significant on this rank, raw: counts,
 * datatype and op handles, and the v-arrays (NULL where unused).  Handles
 * stay valid keys because MPI_Type_free / MPI_Op_free evict the entries
 * that name them (ch4coll_cache_forget). */
typedef struct {
    /* compared as one block: keep these together and padding-free */
    struct {
        int coll, nb, root, inplace, p; /* nb: nonblocking or persistent */
        int scount, rcount;
        MPI_Datatype stype, rtype;
        MPI_Op op;
        int nv; /* number of non-NULL v[] */
    } f;
    const int *v[4]; /* rcounts, rdispls, scounts, sdispls */
    uint64_t hash;
} ch4coll_key_t;

/* How the entry layer binds the user buffers of a data-movement call:
 * datatype geometry of each side, whether the schedule reads or writes it,
 * and its block structure; a non-contiguous side goes through stage[]. */
typedef struct {
    ch4coll_elem_t st, rt; /* send / receive datatype geometry */
    int s_in;              /* schedule reads the send buffer */
    int r_in, r_out;       /* schedule reads / writes the recv buffer */
    int s_nblk, r_nblk;    /* blocks per side (regular) */
    int s_v, r_v;          /* side described by counts/displs */
    int staged;            /* some side goes through stage[] */
    int s_shift, r_shift;  /* smallest displacement of a v side (<= 0) */
} ch4coll_bind_t;

/* A runnable copy of an entry's schedule, for calls that overlap in time:
 * nonblocking and persistent requests.  The entry keeps its instances and
 * reuses an idle one, so a steady stream of nonblocking calls of one shape
 * allocates only up to the number in flight at once.  An instance outlives
 * the eviction of its entry (home becomes NULL) and is freed on release. */
typedef struct ch4coll_inst {
    ch4coll_sched_t sched;
    void *stage[2];
    ch4coll_bind_t bind;
    struct ch4coll_centry *home;
    struct ch4coll_inst *next; /* the home entry's instances */
    int busy;
    /* the call pipeline's own state for this instance, opaque here (the
     * argument exchange of MPIR_CVAR_CH4COLL_VERIFY that runs before
     * sched, core/verify.h), or NULL; ext_free frees it with the
     * instance */
    void *ext;
    void (*ext_free)(void *ext);
} ch4coll_inst_t;

typedef struct ch4coll_centry {
    ch4coll_key_t key; /* key.v[] point into vcopy */
    int *vcopy;
    const ch4coll_algo_t *algo;
    int64_t params[CH4COLL_MAX_PARAMS];
    char decision[200]; /* "allreduce count=... : algorithm (why)" */
    int built;          /* sched is valid (not native) */
    ch4coll_sched_t sched;
    void *stage[2]; /* packing buffers for non-dense types */
    size_t stage_bytes[2];
    ch4coll_bind_t bind;   /* how run.c binds the user buffers */
    ch4coll_inst_t *insts; /* copies for nonblocking and persistent calls */
    uint64_t uses;
    struct ch4coll_centry *hnext;         /* bucket chain */
    struct ch4coll_centry *lprev, *lnext; /* LRU list, newest first */
} ch4coll_centry_t;

#define CH4COLL_CACHE_BUCKETS 64

/* The raw arguments of a regular collective's blocking call that its key
 * is made of (core/run.c compares them). */
typedef struct {
    int coll, root, inplace, scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
} ch4coll_hot_args_t;

typedef struct {
    ch4coll_centry_t *bucket[CH4COLL_CACHE_BUCKETS];
    ch4coll_centry_t *newest, *oldest;
    int n, limit;
    uint64_t hits, misses, evictions;
    /* the entry of the communicator's last blocking call of a regular
     * collective, with that call's arguments: a loop of one call finds it
     * without building a key (cleared when the entry goes) */
    ch4coll_centry_t *hot;
    ch4coll_hot_args_t hot_args;
} ch4coll_cache_t;

/* Evictions over all caches of the process (statistics). */
extern uint64_t ch4coll_cache_evictions_total;

void ch4coll_cache_init(ch4coll_cache_t *c, int limit);
void ch4coll_cache_destroy(ch4coll_cache_t *c);

/* Fill key->hash from the other fields. */
void ch4coll_key_hash(ch4coll_key_t *k);

/* The entry with this key (moved to the front), or NULL.  The most recently
 * used entry is compared first; otherwise k->hash is computed here, and is
 * valid for ch4coll_cache_insert() after a miss. */
ch4coll_centry_t *ch4coll_cache_lookup(ch4coll_cache_t *c, ch4coll_key_t *k);

/* Evict every entry whose key names this datatype or op (called before
 * the handle is freed, so a recycled handle never finds a stale entry). */
void ch4coll_cache_forget(ch4coll_cache_t *c, MPI_Datatype dt, MPI_Op op);

/* Remove and free one entry (a build that failed after insertion). */
void ch4coll_cache_remove(ch4coll_cache_t *c, ch4coll_centry_t *e);

/* An idle instance of e's built schedule (a new copy when all are busy),
 * marked busy; NULL when out of memory. */
ch4coll_inst_t *ch4coll_cache_acquire(ch4coll_centry_t *e);

/* Done with the instance: idle again, or freed if its entry is gone. */
void ch4coll_cache_release(ch4coll_inst_t *in);

/* A new entry holding a copy of the key, inserted at the front; evicts the
 * oldest entry when over the limit.  The caller fills algo/params/sched. */
ch4coll_centry_t *ch4coll_cache_insert(ch4coll_cache_t *c,
                                       const ch4coll_key_t *k);

#endif /* CH4COLL_CACHE_H */
