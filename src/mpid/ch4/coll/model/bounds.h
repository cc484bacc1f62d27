/*
 * bounds.h - the lower bound of a call on the alpha-beta-gamma model
 * (bounds.c): the yardstick of ch4coll-info --model and
 * doc/performance.md.
 */
#ifndef CH4COLL_BOUNDS_H
#define CH4COLL_BOUNDS_H

#include "../algos/algo.h"

double ch4coll_lower_bound(const ch4coll_args_t *a, const ch4coll_model_t *m);

#endif /* CH4COLL_BOUNDS_H */
