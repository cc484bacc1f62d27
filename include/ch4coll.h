/*
 * ch4coll.h - public interface of the ch4coll collective module.
 *
 * Applications need nothing from here: they call MPI_Bcast, MPI_Allreduce,
 * ... and get ch4coll through LD_PRELOAD or -lch4coll.  This header serves
 * tools (ch4coll-info, ch4coll-bench) and tests: version, statistics, the
 * algorithm catalog and the decision log.
 */
#ifndef CH4COLL_H
#define CH4COLL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CH4COLL_VERSION "0.1.0"

/* The library is built with hidden visibility; these are its exports. */
#if defined(__GNUC__)
#define CH4COLL_API __attribute__((visibility("default")))
#else
#define CH4COLL_API
#endif

/* Process-wide counters. */
typedef struct {
    uint64_t alloc_calls;  /* allocations made by the library so far */
    uint64_t calls;        /* collectives run by ch4coll schedules */
    uint64_t native_calls; /* collectives handed to the host MPI */
    uint64_t cache_hits, cache_misses, cache_evictions;
} ch4coll_stats_t;

CH4COLL_API const char *ch4coll_version(void);
CH4COLL_API void ch4coll_get_stats(ch4coll_stats_t *out);

/* The algorithm catalog: entries 0 .. ch4coll_algorithm_count()-1. */
#define CH4COLL_ALGORITHM_MAX_PARAMS 8 /* room for nparams */
typedef struct {
    const char *collective; /* "allreduce" */
    const char *name;       /* "recursive_doubling" */
    const char *description;
    int commutative_only;
    int nparams;
    const char *param_names[CH4COLL_ALGORITHM_MAX_PARAMS];
    int64_t param_defaults[CH4COLL_ALGORITHM_MAX_PARAMS];
    int64_t param_min[CH4COLL_ALGORITHM_MAX_PARAMS];
    int64_t param_max[CH4COLL_ALGORITHM_MAX_PARAMS];
    int node_aware; /* follows the node map (smp, node_ring, ...) */
} ch4coll_algorithm_info_t;

CH4COLL_API int ch4coll_algorithm_count(void);
CH4COLL_API int ch4coll_algorithm_info(int i, ch4coll_algorithm_info_t *out);

/* The CVARs: entries 0 .. ch4coll_cvar_count()-1 (the per-collective
 * MPIR_CVAR_CH4COLL_<COLL>_ALGORITHM is one entry). */
typedef struct {
    const char *name;
    const char *default_value;
    const char *valid_values;
    const char *description;
} ch4coll_cvar_info_t;

CH4COLL_API int ch4coll_cvar_count(void);
CH4COLL_API int ch4coll_cvar_info(int i, ch4coll_cvar_info_t *out);

/* Explain the decision for a call shape under the current environment (the
 * CVARs, the tuning file they name or the embedded default), or with
 * file=F in the spec, under that tuning file: spec
 * "coll=allreduce,comm_size=96,bytes=1048576[,ppn=8|nodes=N]
 * [,op=commutative|noncommutative|user][,inplace=1][,root=R][,threaded=1]
 * [,file=F]".  Writes the tree steps and the decision into out.  Returns 0,
 * or -1 with the error in out. */
CH4COLL_API int ch4coll_explain(const char *spec, char *out, size_t outlen);

/* Rank the algorithms of a collective on the alpha-beta-gamma model: spec
 * "coll=allreduce,p=96,bytes=1048576[,algorithm=A[:k=v,...]][,root=R]
 * [,op=noncommutative][,dist=D][,alpha=S][,beta=S_PER_BYTE]
 * [,gamma=S_PER_BYTE][,replay=0]".  bytes = per-rank message (reductions:
 * MPI_INT vector); dist = regular, broadcast, spike, half_full, linear or
 * geometric gives v-collectives the block sizes of Träff et al. section 3
 * with base size bytes.
 * Each applicable algorithm gets its closed-form time and, unless
 * replay=0, the time of its schedules replayed on the model, sorted, with
 * the lower bound.  Returns 0, or -1 with the error in out. */
CH4COLL_API int ch4coll_model(const char *spec, char *out, size_t outlen);

/* Validate a tuning file: 0 if it loads (warnings are listed in out), -1
 * with the first error (file:line:column or the JSON path) in out. */
CH4COLL_API int ch4coll_validate(const char *path, char *out, size_t outlen);

/* The last decision made on this process, e.g.
 * "allreduce count=1 bytes=8 p=2: recursive_doubling (default)". */
CH4COLL_API const char *ch4coll_last_decision(void);

/* Build the schedule of one algorithm for every rank of a p-rank
 * communicator, run it in the in-process executor with test data and write
 * it as Graphviz to path ("-" = stdout).  spec: "coll=bcast,algorithm=
 * binomial,p=16[,rank=3][,count=N][,root=R]".  Returns 0 or -1 with a
 * message in err. */
CH4COLL_API int ch4coll_dot(const char *spec, const char *path, char *err,
                            size_t errlen);

/* A digest of what a call runs: for every rank of the call shape of
 * spec (--explain's keys), the algorithm ch4coll_explain would choose under
 * the current environment (forced CVARs included), its parameters and
 * every vertex and edge of the schedule it builds (native: the name).
 * Builders are pure, so a digest that did not change means the same
 * messages, in the same order, with the same dependencies
 * (maint/smpi-compare keeps a grid part while its digests hold).  Returns
 * 0, or -1 with the reason in err. */
CH4COLL_API int ch4coll_fingerprint(const char *spec, uint64_t *out, char *err,
                                    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* CH4COLL_H */
