/*
 * algo.h - what a builder sees (the call's shape) and the registry of
 * algorithms.
 *
 * A builder is a pure function (args, params) -> schedule for one rank.  It
 * calls the schedule verbs of sched/sched.h and the rank arithmetic of
 * topo/topo.h, nothing else.
 *
 * Units.  Reductions (reduce, allreduce, reduce_scatter(_block), scan,
 * exscan) count elements of the user's datatype: the schedule's element is
 * that datatype and offsets are i * extent.  Data-movement collectives count
 * bytes: the entry layer hands them dense byte buffers (packing
 * non-contiguous datatypes into staging buffers itself), so every count,
 * displacement and offset of a data-movement builder is in bytes.
 *
 * The registry (registry.c) is the single source of truth for names,
 * parameters, restrictions and descriptions; the CVAR parser, selection,
 * ch4coll-info, the tests and the docs all iterate it.
 */
#ifndef CH4COLL_ALGO_H
#define CH4COLL_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "../sched/sched.h"
#include "../util/util.h"

typedef enum {
    CH4COLL_BCAST,
    CH4COLL_REDUCE,
    CH4COLL_ALLREDUCE,
    CH4COLL_ALLGATHER,
    CH4COLL_ALLGATHERV,
    CH4COLL_ALLTOALL,
    CH4COLL_ALLTOALLV,
    CH4COLL_GATHER,
    CH4COLL_GATHERV,
    CH4COLL_SCATTER,
    CH4COLL_SCATTERV,
    CH4COLL_REDUCE_SCATTER,
    CH4COLL_REDUCE_SCATTER_BLOCK,
    CH4COLL_BARRIER,
    CH4COLL_SCAN,
    CH4COLL_EXSCAN,
    CH4COLL_NCOLL
} ch4coll_coll_t;

/* "bcast", "reduce_scatter_block", ... and the CVAR spelling "BCAST". */
const char *ch4coll_coll_name(int coll);
const char *ch4coll_coll_cvar(int coll);
int ch4coll_coll_from_name(const char *name); /* -1 if unknown */
static inline int ch4coll_coll_is_reduction(int coll)
{
    return coll == CH4COLL_REDUCE || coll == CH4COLL_ALLREDUCE ||
           coll == CH4COLL_REDUCE_SCATTER ||
           coll == CH4COLL_REDUCE_SCATTER_BLOCK || coll == CH4COLL_SCAN ||
           coll == CH4COLL_EXSCAN;
}

/* Where the ranks run (core/comm.c computes it once per communicator,
 * from the host or from MPIR_CVAR_CH4COLL_VIRTUAL_PPN). */
typedef struct {
    int nodes;          /* nodes the communicator spans */
    int consecutive;    /* the ranks of every node are contiguous */
    const int *node_of; /* node of each rank, 0..nodes-1 numbered in order
                         * of first appearance */
} ch4coll_locality_t;

struct ch4coll_args;
struct ch4coll_algo;

/* How a composition chooses the algorithm of an inner step (the leaders'
 * collective of smp): the selection tree for the inner call's shape, on a
 * communicator of one rank per node.  Fills *al and params (registry
 * defaults where the tree gives none); returns 0, or -1 for "use your own
 * default". */
typedef int (*ch4coll_subselect_fn)(const struct ch4coll_args *inner,
                                    const struct ch4coll_algo **al,
                                    int64_t *params);

/* The shape of one call on one rank. */
typedef struct ch4coll_args {
    int coll; /* ch4coll_coll_t */
    int rank, size;
    int root;    /* rooted collectives, else 0 */
    int inplace; /* MPI_IN_PLACE on this rank */
    /* Block size: elements (reductions: vector length, reduce_scatter_block
     * block) or bytes (data movement: per-rank block). */
    size_t count;
    /* v-collectives, length size (NULL where the rank does not know them,
     * e.g. gatherv/scatterv at a non-root).  Reductions: elements;
     * data movement: bytes.  counts/displs describe the receive side,
     * scounts/sdispls the send side of alltoallv and scatterv. */
    const size_t *counts, *displs;
    const size_t *scounts, *sdispls;
    ch4coll_elem_t elem; /* MPI_BYTE for data movement */
    MPI_Op op;
    int commutative;
    int op_builtin;                 /* a predefined op (selection input) */
    const ch4coll_locality_t *loc;  /* NULL: one rank per node */
    ch4coll_subselect_fn subselect; /* NULL: compositions use defaults */
    int nonblocking; /* MPI_I<coll> or <coll>_init: selection input only */
    /* The model the automatic parameters follow (MPIR_CVAR_CH4COLL_MACHINE
     * or a model spec's); NULL: ch4coll_model_default. */
    const ch4coll_model_t *model;
} ch4coll_args_t;

/* Parameters: int64 values, declared per algorithm with range and default. */
#define CH4COLL_MAX_PARAMS 5

typedef struct {
    const char *name;
    int64_t def, min, max;
    const char *desc;
} ch4coll_param_def_t;

/* Restrictions, checked by ch4coll_algo_applicable(). */
enum {
    CH4COLL_R_COMMUTATIVE = 1 << 0, /* needs a commutative op */
    CH4COLL_R_NODES = 1 << 1,       /* needs several nodes, one with more
                                     * than one rank */
    CH4COLL_R_ORDERED = 1 << 2,     /* needs a commutative op unless the
                                     * nodes are consecutive */
    CH4COLL_F_NODES = 1 << 3,       /* not a restriction: the schedule
                                     * follows args.loc (tests sweep it
                                     * over placements) */
    CH4COLL_F_COMPOSED = 1 << 4     /* not a restriction: the schedule runs
                                     * other rows' schedules inside (smp,
                                     * multi_leader, group_lanes); a choice
                                     * of an inner step by cost passes it
                                     * over (smp_multi_leader.c) */
};

typedef int (*ch4coll_build_fn)(ch4coll_sched_t *s, const ch4coll_args_t *a,
                                const int64_t *params);

/* Predicted time of one call with these parameters (the builder's own
 * parameter adjustments included). */
typedef double (*ch4coll_cost_fn)(const ch4coll_args_t *a,
                                  const int64_t *params,
                                  const ch4coll_model_t *m);

/* Tags the builder declares (ch4coll_sched_set_ntags) for this shape and
 * these parameters: the same on every rank, computed without building.
 * A composition that runs the algorithm as an inner step on some ranks
 * only (smp's leaders) reserves this many on the others. */
typedef int (*ch4coll_ntags_fn)(const ch4coll_args_t *a, const int64_t *params);

typedef struct ch4coll_algo {
    const char *name;
    int coll;
    ch4coll_build_fn build; /* NULL for "native" */
    unsigned restrictions;
    ch4coll_param_def_t params[CH4COLL_MAX_PARAMS]; /* the first nameless
                                                       one ends the list */
    const char *desc;
    ch4coll_cost_fn cost;   /* NULL for "native" */
    ch4coll_ntags_fn ntags; /* NULL: one tag (the builder declares none) */
} ch4coll_algo_t;

extern const ch4coll_algo_t ch4coll_algos[];
extern const int ch4coll_nalgos;

/* How many parameters al takes (counted, never written by hand). */
static inline int ch4coll_algo_nparams(const ch4coll_algo_t *al)
{
    int n = 0;

    while (n < CH4COLL_MAX_PARAMS && al->params[n].name)
        n++;
    return n;
}

/* The row of name for coll (an old name: the row it is an alias of), or
 * NULL. */
const ch4coll_algo_t *ch4coll_algo_find(int coll, const char *name);
int ch4coll_algo_is_native(const ch4coll_algo_t *al);
/* 1 if the algorithm can run this call; else 0 and a reason in *why. */
int ch4coll_algo_applicable(const ch4coll_algo_t *al, const ch4coll_args_t *a,
                            const char **why);
void ch4coll_algo_default_params(const ch4coll_algo_t *al, int64_t *params);
/* Tags al's schedule declares for a with params (al->ntags, or 1). */
int ch4coll_algo_ntags(const ch4coll_algo_t *al, const ch4coll_args_t *a,
                       const int64_t *params);

/* The model of a call's automatic parameters (block counts and sizes
 * chosen from alpha, beta, gamma). */
static inline const ch4coll_model_t *ch4coll_auto_model(const ch4coll_args_t *a)
{
    return a->model ? a->model : &ch4coll_model_default;
}

/* Bytes of n elements of the call's element (the model's unit). */
static inline double ch4coll_nbytes(const ch4coll_args_t *a, size_t n)
{
    return (double) n * (double) a->elem.size;
}

/* Byte offset of element i. */
static inline size_t ch4coll_eoff(const ch4coll_args_t *a, size_t i)
{
    return i * a->elem.extent;
}

/* Every builder's functions (registry.c's rows name them): a header of
 * their own, so that a new algorithm leaves this interface unchanged. */
#include "builders.h"

#endif /* CH4COLL_ALGO_H */
