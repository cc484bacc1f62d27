/*
 * comm.h - per-communicator state.
 *
 * What a mode provides (rank, size, node of every rank, transport and its
 * context, the tag sequence) and what ch4coll derives from it once
 * (locality summary, the selection tree pruned for the communicator, the
 * schedule cache, scratch for v-collective arrays).
 *
 *   comm.c       the shared part: setup, release, the list of live states
 *   comm_pmpi.c  preload mode: set up at the first collective of any kind
 *                on a communicator (for MPI_COMM_WORLD in MPI_Init) with
 *                nonblocking steps (a private duplicate, the node of every
 *                rank), cached as an attribute, freed with the
 *                communicator or with the last nonblocking collective
 *                still in flight on it
 *   mpich.c      inside MPICH: created and freed with the communicator
 *                (the netmod's hooks), no communication, MPICH's
 *                collective context and its nonblocking tag sequence
 */
#ifndef CH4COLL_COMM_H
#define CH4COLL_COMM_H

#include <mpi.h>

#include "cache.h"
#include "../algos/algo.h"
#include "../select/tree.h"

#include "../transport/transport.h"

typedef struct ch4coll_comm {
    MPI_Comm user; /* the application's communicator */
    MPI_Comm dup;  /* preload: private duplicate (MPI_COMM_NULL: inter) */
    int inter;     /* intercommunicator: always native */
    int rank, size;
    const ch4coll_transport_t *tp; /* point-to-point for the schedules */
    void *tp_ctx;                  /* its context (&dup, MPIR_Comm *) */
    int tag;                       /* preload: next tag of the sequence */
    int *tag_next;                 /* the sequence: &tag, or MPICH's */
    int tag_lo, tag_ub;            /* tags in [tag_lo, tag_ub] */
    void (*host_free)(struct ch4coll_comm *); /* mode's part of release */
    int yield;                                /* yield the core when idle */
    ch4coll_cache_t cache;
    struct ch4coll_verify *verify; /* blocking calls' (VERIFY=1), lazily */
    size_t *vbuf;                  /* 4 * size entries */
    int *node_of;                  /* node index of every rank (first seen) */
    ch4coll_locality_t loc;        /* nodes and node_of, as builders see them */
    ch4coll_selin_t sel;           /* communicator part of selection inputs */
    ch4coll_tree_t tree;           /* the selection tree pruned for it */
    struct ch4coll_setup *setup;   /* preload: setup under way, else NULL */
    int setup_rc; /* how it ended: not CH4COLL_OK = every call native */
    int refs;     /* nonblocking and persistent requests using it (and a
                     setup under way) */
    int doomed;   /* the application freed it; release at refs == 0 */
    struct ch4coll_comm *prev, *next;
} ch4coll_comm_t;

/* Ranks on this node (set by the mode at initialisation). */
extern int ch4coll_node_ranks;

/* Shared part of creating a state: the mode has set user, rank, size,
 * inter, tp, tp_ctx, tag_next, tag_lo, tag_ub, host_free, and node_of
 * (a malloc'd array of p node ids, any numbering) unless inter or
 * virtual nodes are configured.  Derives the rest and links the state;
 * on error releases nothing (the caller frees what it set). */
int ch4coll_comm_setup(ch4coll_comm_t *c);

/* Release a state (unlinked or not); the mode's host_free runs first. */
void ch4coll_comm_release(ch4coll_comm_t *c);

/* Take c off the list of live states (its communicator is gone). */
void ch4coll_comm_unlink(ch4coll_comm_t *c);

/* Call drop on the first live state until none is left (finalize); drop
 * must unlink it. */
void ch4coll_comm_release_all(void (*drop)(ch4coll_comm_t *));

/* MPI_THREAD_MULTIPLE (multi: provided on some rank, the same answer on
 * every rank; the selection key is_multi_threaded reads it).  A mode that
 * can_lock (preload) then guards ch4coll's state with the process lock
 * (util/lock.h); inside MPICH every collective goes to the host MPI, as
 * with MPIR_CVAR_CH4COLL_ENABLE=0, and rank 0 says so once.  Called by the
 * mode at initialisation, before any state exists. */
void ch4coll_comm_threads(int multi, int can_lock);

/* Bumped whenever a state is unlinked (lookup caches compare it). */
extern unsigned ch4coll_comm_epoch;

/* Library-wide initialisation (CVARs, keyval, node size); idempotent.
 * Called from MPI_Init/MPI_Init_thread or lazily at the first collective.
 * Returns CH4COLL_OK or CH4COLL_ERR_ARG when a CVAR was bad and
 * MPIR_CVAR_CH4COLL_FALLBACK=error. */
int ch4coll_init(void);

/* Preload mode, before the host's MPI_Finalize: free every communicator's
 * state now, as the host would first thing in MPI_Finalize (MPI_COMM_SELF's
 * attributes).  SimGrid SMPI runs those callbacks when it already counts
 * MPI as finalized and warns for every attribute call they make. */
void ch4coll_finalize(void);

/* The state of comm, created on first use (collective over comm) and
 * waited for with progress; check (*out)->setup_rc. */
int ch4coll_comm_get(MPI_Comm comm, ch4coll_comm_t **out);

/* Preload mode: move the setups under way on (how many moved). */
int ch4coll_comm_setups_progress(void);

/* Yield the core while idle (MPIR_CVAR_CH4COLL_YIELD, or auto: the node
 * has more ranks than cores). */
int ch4coll_comm_want_yield(void);

/* Cores online on this node (asked of the system once). */
int ch4coll_cores(void);

/* A request is done with c (see refs). */
void ch4coll_comm_unref(ch4coll_comm_t *c);

/* Drop every cached schedule that names this datatype or op (before
 * MPI_Type_free / MPI_Op_free release the handle for reuse). */
void ch4coll_comm_forget(MPI_Datatype dt, MPI_Op op);

/* Tags [tag, tag + n) for the next call. */
static inline int ch4coll_comm_next_tag(ch4coll_comm_t *c, int n)
{
    int t;

    if (*c->tag_next > c->tag_ub - n)
        *c->tag_next = c->tag_lo;
    t = *c->tag_next;
    *c->tag_next += n;
    if (*c->tag_next > c->tag_ub)
        *c->tag_next = c->tag_lo;
    return t;
}

#endif /* CH4COLL_COMM_H */
