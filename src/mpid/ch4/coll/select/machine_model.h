/*
 * machine_model.h - the model of a machine description (machines/NAME.json,
 * doc/machines.md) for the library itself: MPIR_CVAR_CH4COLL_MACHINE names
 * one, and the automatic parameters (circulant's block counts,
 * pipelined_ring's block size) follow its alpha, beta and gamma instead of
 * ch4coll_model_default.
 *
 * The reader of the whole description (overheads, gammas per op and type,
 * SimGrid figures) is model/machine.c, which sits above the library; it
 * reads the "model" object and its numbers through these functions, so
 * the two cannot disagree.
 */
#ifndef CH4COLL_MACHINE_MODEL_H
#define CH4COLL_MACHINE_MODEL_H

#include <stddef.h>

#include "../model/model.h"

struct json_object;

/* o[key] as a finite number >= 0 into *v: 0; absent and not required: 0
 * with *v unchanged; else -1 with "where: why" in err. */
int ch4coll_json_number(struct json_object *o, const char *key, double *v,
                        int required, const char *where, char *err, size_t len);

/* The "model" object of a description's root: alpha, beta, gamma
 * (required), alpha_node and beta_node (default alpha and beta), gap
 * (default 0: single-ported), eager (default 0: every message eager). */
int ch4coll_json_model(struct json_object *root, ch4coll_model_t *m, char *err,
                       size_t len);

/* The model of the description in the file at path: 0, or -1 with the
 * reason in err. */
int ch4coll_machine_model_load(const char *path, ch4coll_model_t *m, char *err,
                               size_t len);

#endif /* CH4COLL_MACHINE_MODEL_H */
