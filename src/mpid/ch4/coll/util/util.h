/*
 * util.h - allocation accounting, the leveled logger and status codes.
 *
 * Every allocation the library makes goes through ch4coll_malloc() and
 * friends so that tests can count them: a cached schedule re-run must not
 * allocate (DESIGN.md section 3).  Logging goes through ch4coll_log(), whose
 * level is MPIR_CVAR_CH4COLL_VERBOSE; library code never calls printf.
 */
#ifndef CH4COLL_UTIL_H
#define CH4COLL_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Internal status codes.  Functions return CH4COLL_OK or one of these; the
 * entry layer turns them into MPI error classes. */
enum {
    CH4COLL_OK = 0,
    CH4COLL_ERR_NOMEM = -1,        /* allocation failed */
    CH4COLL_ERR_ARG = -2,          /* bad argument or parameter */
    CH4COLL_ERR_MPI = -3,          /* the transport's MPI call failed */
    CH4COLL_ERR_DEADLOCK = -4,     /* loop transport: nothing can progress */
    CH4COLL_ERR_PROTOCOL = -5,     /* loop transport: unmatched/leftover msgs */
    CH4COLL_ERR_INAPPLICABLE = -6, /* algorithm does not apply to the call */
    CH4COLL_ERR_COUNT = -7,        /* a count does not fit the transport */
    CH4COLL_ERR_MISMATCH = -8      /* ranks passed arguments that do not
                                    * match (MPIR_CVAR_CH4COLL_VERIFY) */
};

const char *ch4coll_strerror(int status);

void *ch4coll_malloc(size_t n);
void *ch4coll_calloc(size_t n, size_t sz);
void *ch4coll_realloc(void *p, size_t n);
void ch4coll_free(void *p);
/* A schedule's scratch arena, which holds data only (never control):
 * ch4coll_malloc and ch4coll_free, except in the SimGrid build when the
 * environment has CH4COLL_SMPI_FOLD=1 (maint/smpi-compare's timing runs,
 * whose data nobody reads): there an arena of 1 MiB or more comes from
 * SMPI_SHARED_MALLOC, so that a simulation neither faults in nor copies
 * gigabytes it does not need (simulated times do not change). */
void *ch4coll_scratch_alloc(size_t n);
void ch4coll_scratch_free(void *p);
/* Number of successful ch4coll_malloc/calloc/realloc calls so far. */
uint64_t ch4coll_alloc_calls(void);

/* Log levels: 0 errors and warnings (always), 1 decisions once, 2 every
 * call, 3 debugging. */
enum {
    CH4COLL_LOG_WARN = 0,
    CH4COLL_LOG_INFO = 1,
    CH4COLL_LOG_CALL = 2,
    CH4COLL_LOG_DEBUG = 3
};

extern int ch4coll_log_level;
/* Rank printed in the log prefix (set by the entry layer). */
extern int ch4coll_log_rank;

void ch4coll_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline int ch4coll_log_on(int level)
{
    return level <= ch4coll_log_level;
}

/* Smallest power of two >= n (n >= 1), and floor(log2(n)). */
static inline int ch4coll_pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static inline int ch4coll_ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

#endif /* CH4COLL_UTIL_H */
