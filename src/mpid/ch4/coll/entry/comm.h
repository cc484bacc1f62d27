/*
 * comm.h - per-communicator state of preload mode.
 *
 * Created at the first blocking collective ch4coll runs on a communicator
 * (every rank reaches that call, so duplicating there is safe; for
 * MPI_COMM_WORLD in MPI_Init), cached as an attribute, freed with the
 * communicator or, when nonblocking collectives are still in flight on
 * it, with the last of them.  Creating it communicates with nonblocking
 * calls (MPI_Comm_idup, MPI_Iallgather), waited for with the progress of
 * the collectives in flight.  Holds the private duplicate all
 * schedules communicate on, the tag sequence, the schedule cache and
 * scratch for v-collective arrays.
 */
#ifndef CH4COLL_COMM_H
#define CH4COLL_COMM_H

#include <mpi.h>

#include "../sched/cache.h"
#include "../algos/algo.h"
#include "../select/tree.h"

typedef struct ch4coll_comm {
    MPI_Comm user; /* the application's communicator */
    MPI_Comm dup;  /* private duplicate (MPI_COMM_NULL: inter) */
    int inter;     /* intercommunicator: always native */
    int rank, size;
    int tag, tag_ub; /* next tag of the per-call sequence */
    int yield;       /* yield the core when idle */
    ch4coll_cache_t cache;
    size_t *vbuf;           /* 4 * size entries */
    int *node_of;           /* node index of every rank (first seen) */
    ch4coll_locality_t loc; /* nodes and node_of, as builders see them */
    ch4coll_selin_t sel;    /* communicator part of selection inputs */
    ch4coll_tree_t tree;    /* the selection tree pruned for it */
    int refs;               /* nonblocking and persistent requests using it */
    int doomed;             /* the application freed it; release at refs == 0 */
    struct ch4coll_comm *prev, *next;
} ch4coll_comm_t;

/* Library-wide initialisation (CVARs, keyval, node size); idempotent.
 * Called from MPI_Init/MPI_Init_thread or lazily at the first collective.
 * Returns CH4COLL_OK or CH4COLL_ERR_ARG when a CVAR was bad and
 * MPIR_CVAR_CH4COLL_FALLBACK=error. */
int ch4coll_init(void);

/* The state of comm, created on first use (collective over comm). */
int ch4coll_comm_get(MPI_Comm comm, ch4coll_comm_t **out);

/* Yield the core while idle (MPIR_CVAR_CH4COLL_YIELD, or auto: the node
 * has more ranks than cores). */
int ch4coll_comm_want_yield(void);

/* A request is done with c (see refs). */
void ch4coll_comm_unref(ch4coll_comm_t *c);

/* The state of comm if it exists (1), else 0: for calls that must not
 * block, since creating it is collective (nonblocking and persistent
 * collectives, entry/run.c). */
int ch4coll_comm_find(MPI_Comm comm, ch4coll_comm_t **out);

/* Drop every cached schedule that names this datatype or op (before
 * MPI_Type_free / MPI_Op_free release the handle for reuse). */
void ch4coll_comm_forget(MPI_Datatype dt, MPI_Op op);

/* Tags [tag, tag + n) for the next call. */
static inline int ch4coll_comm_next_tag(ch4coll_comm_t *c, int n)
{
    int t;

    if (c->tag > c->tag_ub - n)
        c->tag = 0;
    t = c->tag;
    c->tag += n;
    return t;
}

#endif /* CH4COLL_COMM_H */
