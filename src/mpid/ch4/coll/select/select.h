/*
 * select.h - choose the algorithm for a call shape.
 *
 * Inputs are identical on every rank: the communicator's size and locality
 * summary, and of the call only what every rank knows (totals of
 * v-collectives, never one rank's own count; the in-place flag only where
 * MPI makes it collective; op properties; root).  Order of precedence:
 *
 *   1. MPIR_CVAR_CH4COLL_ENABLE=0: native;
 *   2. a forced algorithm (MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM) if it applies
 *      to the call, else MPIR_CVAR_CH4COLL_FALLBACK decides;
 *   3. the first applicable leaf of the communicator's pruned tree (the
 *      tuning file, or the embedded json_tuning/default.json);
 *   4. native.
 */
#ifndef CH4COLL_SELECT_H
#define CH4COLL_SELECT_H

#include "../algos/algo.h"
#include "tree.h"

/* The process-wide tree: the tuning file named by
 * MPIR_CVAR_CH4COLL_SELECTION_TUNING_JSON_FILE, or the embedded default.
 * Loaded by ch4coll_select_init(); a missing, unreadable or invalid file is
 * reported and replaced by the default (status CH4COLL_ERR_ARG). */
int ch4coll_select_init(void);
const ch4coll_tree_t *ch4coll_select_tree(void);
/* Replace the process tree by the embedded default (ranks disagreed). */
void ch4coll_select_use_default(void);
void ch4coll_select_finalize(void);

/* Call-level selection inputs from a call shape (comm fields untouched). */
void ch4coll_selin_from_args(const ch4coll_args_t *a, ch4coll_selin_t *in);

/* The decision. */
typedef struct {
    const ch4coll_algo_t *algo;
    int64_t params[CH4COLL_MAX_PARAMS];
    const char *why;  /* "forced by CVAR", "tuning tree", ... */
    const char *path; /* JSON path of the leaf, or NULL */
} ch4coll_choice_t;

/* Choose for call a on a communicator whose pruned tree is tree (NULL:
 * the process tree unpruned) and whose summary is comm.  Returns
 * CH4COLL_OK, or CH4COLL_ERR_INAPPLICABLE when FALLBACK=error refuses an
 * inapplicable forced algorithm.  trace (optional) sees every tree step. */
int ch4coll_select(const ch4coll_args_t *a, const ch4coll_tree_t *tree,
                   const ch4coll_selin_t *comm, ch4coll_choice_t *out,
                   void (*trace)(const char *line, void *ctx), void *ctx);

/* ch4coll_subselect_fn (algo.h) of the entry layer and the tests: the
 * process tree (unpruned, forced CVARs not consulted: they name the outer
 * collective's algorithm) searched for inner on a flat communicator of
 * inner->size ranks, one per node.  -1 when no ch4coll algorithm matches. */
int ch4coll_select_sub(const ch4coll_args_t *inner, const ch4coll_algo_t **al,
                       int64_t *params);

#endif /* CH4COLL_SELECT_H */
