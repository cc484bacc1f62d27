/*
 * config.h - the CVARs of DESIGN.md section 5, parsed once at init.
 *
 * Every variable is parsed strictly: a bad value is reported with the
 * variable's name and its valid values, and the variable keeps its default
 * (or initialisation fails when MPIR_CVAR_CH4COLL_FALLBACK=error).
 */
#ifndef CH4COLL_CONFIG_H
#define CH4COLL_CONFIG_H

#include <stdint.h>

#include "../algos/algo.h"
#include "../topo/nodes.h"

enum { CH4COLL_FALLBACK_WARN, CH4COLL_FALLBACK_SILENT, CH4COLL_FALLBACK_ERROR };
enum { CH4COLL_YIELD_AUTO = -1 };

typedef struct {
    const ch4coll_algo_t *algo; /* NULL = auto */
    int64_t params[CH4COLL_MAX_PARAMS];
} ch4coll_forced_t;

typedef struct {
    int enable;
    int verbose;
    int yield; /* CH4COLL_YIELD_AUTO, 0, 1 */
    int fallback;
    int cache_size;
    int64_t chunk_size;
    int chunk_size_set; /* MPIR_CVAR_CH4COLL_CHUNK_SIZE was given */
    int virtual_ppn;    /* 0: host nodes; k: virtual nodes of k ranks */
    int virtual_map;    /* CH4COLL_MAP_BLOCK or CH4COLL_MAP_CYCLIC */
    int verify;         /* check arguments across ranks (core/verify.h) */
    /* MPIR_CVAR_CH4COLL_MACHINE's model, else ch4coll_model_default: what
     * the automatic parameters follow (args.model) */
    ch4coll_model_t model;
    ch4coll_forced_t forced[CH4COLL_NCOLL];
    ch4coll_forced_t forced_nb[CH4COLL_NCOLL]; /* MPIR_CVAR_CH4COLL_I... */
    int nerrors; /* bad values seen while parsing */
} ch4coll_config_t;

extern ch4coll_config_t ch4coll_config;

/* Read the environment into ch4coll_config.  Returns the number of bad
 * values (each already reported on stderr). */
int ch4coll_config_load(void);

/* Where CVAR values come from: the environment, or inside MPICH the
 * values MPICH's MPI_T layer holds (registered from the same names). */
extern const char *(*ch4coll_getenv)(const char *name);

/* Parse "name[:k=v,...]" for collective coll into *out.  On error returns
 * CH4COLL_ERR_ARG and writes a message naming the valid choices. */
int ch4coll_parse_algorithm(int coll, const char *text, ch4coll_forced_t *out,
                            char *err, size_t errlen);

/* The registry defaults of al's parameters, with
 * MPIR_CVAR_CH4COLL_CHUNK_SIZE (when set) as the default of a "chunk"
 * parameter.  Explicit values (tuning file, forced CVAR) override these. */
void ch4coll_config_default_params(const ch4coll_algo_t *al, int64_t *params);

/* Strict integer parse: whole string, in [min, max]. */
int ch4coll_parse_int64(const char *text, int64_t min, int64_t max,
                        int64_t *out);

#endif /* CH4COLL_CONFIG_H */
