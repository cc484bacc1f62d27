/*
 * spec.h - pieces shared by the tools' key=value specs (ch4coll-info
 * --dot and --model): the algorithm= value and the synthetic call shape.
 */
#ifndef CH4COLL_SPEC_H
#define CH4COLL_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../algos/algo.h"

/* Copy spec into buf (size bytes); -1 with "spec too long" in err. */
int ch4coll_spec_copy(char *buf, size_t size, const char *spec, char *err,
                      size_t len);

/* The next "key=value" of a comma-separated copy at *cursor (which it
 * advances and cuts): 1 with *key and *val set, 0 at the end, -1 with
 * "'X' is not key=value" in err. */
int ch4coll_spec_next(char **cursor, char **key, char **val, char *err,
                      size_t len);

/* "name[:k=v,...]" of collective coll into *algo and params; native and
 * unknown names are errors ("'NAME' has no schedule to WHAT").  0 or -1
 * with the reason in err. */
int ch4coll_spec_algorithm(int coll, const char *text, const char *what,
                           const ch4coll_algo_t **algo, int64_t *params,
                           char *err, size_t len);

/* The shape of rank's call with regular blocks of count units (MPI_INT
 * and MPI_SUM for reductions, bytes for data movement); v (2 p entries)
 * receives the counts and displacements the v-collectives point at. */
void ch4coll_spec_args(int coll, int p, int rank, int root, size_t count,
                       int commutative, size_t *v, ch4coll_args_t *a);

#endif /* CH4COLL_SPEC_H */
