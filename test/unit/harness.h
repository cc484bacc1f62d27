/*
 * harness.h - run one algorithm for all p ranks in the in-process executor
 * with deterministic data and compare every rank's result with a serial
 * reference.
 *
 * Data-movement collectives run on bytes (what the entry layer hands their
 * builders); reductions run on one of three element types:
 *
 *   HZ_INT_SUM    MPI_INT with MPI_SUM (built-in, commutative, dense)
 *   HZ_PAIR_AFF   2 contiguous ints with a user op composing affine maps
 *                 f(x) = a x + b mod 1000003 (non-commutative, dense)
 *   HZ_VEC_AFF    MPI_Type_vector(2, 1, 2, MPI_INT) with the same op (non-
 *                 commutative, non-contiguous: the gap ints must survive)
 *   HZ_VEC_SUM    the same vector type with a commutative user op adding
 *                 both fields (non-contiguous, commutative)
 *
 * v-collectives get irregular counts with zeros and displacements laid out
 * in reverse rank order with gaps.  Receive buffers are pre-filled with a
 * sentinel, which must survive outside the written blocks; send buffers
 * must come back unchanged.
 */
#ifndef CH4COLL_TEST_HARNESS_H
#define CH4COLL_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "topo/nodes.h"

enum { HZ_INT_SUM, HZ_PAIR_AFF, HZ_VEC_AFF, HZ_VEC_SUM, HZ_NTYPES };

typedef struct {
    const ch4coll_algo_t *algo;
    const int64_t *params; /* NULL: registry defaults */
    int p;
    size_t n; /* block size: elements or bytes */
    int root;
    int inplace;
    int dtype; /* reductions only */
    int eager; /* loop transport mode */
    int runs;  /* run the built schedules this many times */
    int ppn;   /* > 0: ranks on virtual nodes of ppn ranks (args.loc) */
    int map;   /* CH4COLL_MAP_BLOCK or CH4COLL_MAP_CYCLIC */
    /* the model of the automatic parameters and of the builders' choices
     * by message length (args.model); NULL: ch4coll_model_default */
    const ch4coll_model_t *model;
} hz_case_t;

/* Create the MPI datatypes and ops (after MPI_Init). */
void hz_setup(void);
void hz_teardown(void);

/* 0 if every rank's result matches; else -1 with a description in err. */
int hz_run(const hz_case_t *c, char *err, size_t errlen);

/*
 * Several calls in flight at once, as nonblocking and persistent
 * collectives are: every case's schedules are built as hz_run builds them
 * and cloned (ch4coll_sched_clone) into `clones` instances (1: the original
 * only), each with its own buffers, data and tag range (consecutive from 0,
 * each instance's ntags wide), all on one loop world, so a rank's instances
 * share its one mailbox.  Everything is started, then progressed one
 * (instance, rank) at a time in an order drawn from seed until all are done;
 * a deadlock is reported when every unfinished pair was tried without
 * progress since the last progress, with what each one waits for.  Every
 * result is checked as hz_run checks it, and the world must hold no message
 * at the end.  A second round restarts the same instances with new data
 * and another order (reuse).  All cases need the same p and eager; their
 * runs field is ignored.  0, or -1 with a description in err.
 */
int hz_run_interleaved(const hz_case_t *cases, int ncases, int clones,
                       unsigned seed, char *err, size_t errlen);

/* Build the schedules of every rank (no data) and replay them on the cost
 * model (model/replay.h): *t = simulated time; *formula (if not NULL)
 * = the registry's cost function evaluated with the root's arguments, or
 * -1 if the algorithm has none.  0, or -1 with a description in err. */
int hz_model(const hz_case_t *c, const ch4coll_model_t *m, double *t,
             double *formula, char *err, size_t errlen);

/* The elements each rank sends to each peer, summed over the built
 * schedules into sends[rank p + peer] (p * p doubles).  0, or -1 with a
 * description in err. */
int hz_peer_sends(const hz_case_t *c, double *sends, char *err, size_t errlen);

/* The most sends of one rank to one peer that the built schedules let
 * be in flight together: the largest set of them none of which waits for
 * another (directly or through others), over every rank and peer, into
 * *most.  0, or -1 with a description in err. */
int hz_sends_in_flight(const hz_case_t *c, int *most, char *err, size_t errlen);

/* The elements the ranks of each virtual node send to other nodes
 * (c->ppn > 0), summed over the built schedules into elems[node]: what
 * crosses each node's link.  0, or -1 with a description in err. */
int hz_node_sends(const hz_case_t *c, double *elems, char *err, size_t errlen);

/* The lower bound (model/bounds.h) of the case's call on m. */
double hz_bound(const hz_case_t *c, const ch4coll_model_t *m);

/* Allocation calls of the library during the second and later runs of
 * the last hz_run, or the second round of the last hz_run_interleaved
 * (must be 0: cached schedules do not allocate). */
uint64_t hz_rerun_allocs(void);

#endif /* CH4COLL_TEST_HARNESS_H */
