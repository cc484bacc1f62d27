/*
 * util.c - counted allocation, the one logger of the library, and the
 * process lock (lock.h).
 */
#include "util.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ch4coll_log_level = 0;
int ch4coll_log_rank = -1;

static uint64_t alloc_calls;

/* ------------------------------------------------ lock.h: ticket lock */

#include "lock.h"

#ifdef CH4COLL_SMPI
#include <smpi/smpi.h>
#endif

int ch4coll_locking;
static unsigned lock_next, lock_serving; /* tickets handed out, served */
static __thread int lock_depth;          /* this thread's holds */

void ch4coll_lock_enter(void)
{
    unsigned t;

    if (lock_depth++ > 0)
        return;
    t = __atomic_fetch_add(&lock_next, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(&lock_serving, __ATOMIC_ACQUIRE) != t)
        sched_yield();
}

void ch4coll_lock_leave(void)
{
    if (--lock_depth > 0)
        return;
    /* only the holder writes lock_serving */
    __atomic_store_n(&lock_serving, lock_serving + 1, __ATOMIC_RELEASE);
}

void ch4coll_lock_pause_held(int idle)
{
    int depth = lock_depth;

    if (depth == 0) {
        if (idle)
            sched_yield();
        return;
    }
    lock_depth = 1;
    ch4coll_lock_leave();
    if (idle)
        sched_yield();
    ch4coll_lock_enter();
    lock_depth = depth;
}

/* ---------------------------------------------------------- allocation */

static void count_alloc(void)
{
    __atomic_fetch_add(&alloc_calls, 1, __ATOMIC_RELAXED);
}

uint64_t ch4coll_alloc_calls(void)
{
    return __atomic_load_n(&alloc_calls, __ATOMIC_RELAXED);
}

void *ch4coll_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p)
        count_alloc();
    return p;
}

void *ch4coll_calloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (p)
        count_alloc();
    return p;
}

void *ch4coll_realloc(void *old, size_t n)
{
    void *p = realloc(old, n ? n : 1);
    if (p)
        count_alloc();
    return p;
}

void ch4coll_free(void *p)
{
    free(p);
}

#ifdef CH4COLL_SMPI
/* CH4COLL_SMPI_FOLD=1: read once. */
static int fold_scratch(void)
{
    static int fold = -1;

    if (fold < 0) {
        const char *e = getenv("CH4COLL_SMPI_FOLD");
        fold = e && strcmp(e, "1") == 0;
    }
    return fold;
}
#endif

void *ch4coll_scratch_alloc(size_t n)
{
#ifdef CH4COLL_SMPI
    if (fold_scratch() && n >= ((size_t) 1 << 20)) {
        void *p = SMPI_SHARED_MALLOC(n);
        if (p)
            count_alloc();
        return p;
    }
#endif
    return ch4coll_malloc(n);
}

void ch4coll_scratch_free(void *p)
{
#ifdef CH4COLL_SMPI
    if (fold_scratch()) {
        SMPI_SHARED_FREE(p); /* a pointer it did not hand out: free() */
        return;
    }
#endif
    ch4coll_free(p);
}

const char *ch4coll_strerror(int status)
{
    switch (status) {
    case CH4COLL_OK:
        return "success";
    case CH4COLL_ERR_NOMEM:
        return "out of memory";
    case CH4COLL_ERR_ARG:
        return "invalid argument";
    case CH4COLL_ERR_MPI:
        return "MPI call failed";
    case CH4COLL_ERR_DEADLOCK:
        return "deadlock: no vertex can progress";
    case CH4COLL_ERR_PROTOCOL:
        return "unmatched or leftover messages";
    case CH4COLL_ERR_INAPPLICABLE:
        return "algorithm does not apply";
    case CH4COLL_ERR_COUNT:
        return "count too large for the transport";
    case CH4COLL_ERR_MISMATCH:
        return "the ranks' arguments do not match";
    default:
        return "unknown error";
    }
}

void ch4coll_log(int level, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    int n;

    if (!ch4coll_log_on(level))
        return;
    if (ch4coll_log_rank >= 0)
        n = snprintf(line, sizeof line, "ch4coll[%d]: ", ch4coll_log_rank);
    else
        n = snprintf(line, sizeof line, "ch4coll: ");
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t) n, fmt, ap);
    va_end(ap);
    /* One write per line so that lines of different ranks do not mix. */
    fprintf(stderr, "%s\n", line);
}
