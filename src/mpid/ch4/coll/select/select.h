/*
 * select.h - choose the algorithm for a call shape.
 *
 * Inputs are identical on every rank (communicator size, counts every rank
 * knows, op properties, root; the in-place flag only where MPI makes it
 * collective), so every rank picks the same schedule.  Order: a forced
 * algorithm (MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM) if it applies, else the
 * built-in default: the first applicable algorithm of the collective in
 * registry order.  An inapplicable forced algorithm follows
 * MPIR_CVAR_CH4COLL_FALLBACK.
 */
#ifndef CH4COLL_SELECT_H
#define CH4COLL_SELECT_H

#include "../algos/algo.h"

/* Returns the algorithm and fills params; NULL (with *status set) only when
 * FALLBACK=error refuses an inapplicable forced algorithm.  *why explains
 * the decision for the verbose log. */
const ch4coll_algo_t *ch4coll_select(const ch4coll_args_t *a, int64_t *params,
                                     const char **why, int *status);

#endif /* CH4COLL_SELECT_H */
