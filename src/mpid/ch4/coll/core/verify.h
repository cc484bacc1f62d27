/*
 * verify.h - MPIR_CVAR_CH4COLL_VERIFY=1: collective argument verification.
 *
 * Träff and Worringen's MPI/SX collective verification (NEC MPI/SX paper,
 * closing section; refs [24, 25] there): before a collective runs, every
 * rank learns what every other rank passed, so that a mismatch becomes an
 * error naming the ranks and the differing values on all of them, where
 * it would otherwise hang or produce garbage.
 *
 * Each rank fills one fixed-size signature of its call (verify.c says what
 * goes in) and the ranks allgather them with one of ch4coll's own
 * schedules (Bruck, ceil(lg p) rounds).  Every rank then runs the same
 * deterministic check on the same p signatures, so all of them agree on
 * the verdict.  Byte counts that only the two ends of a message know (a
 * v-collective's counts at the root, alltoallv's pairs) are compared
 * through weighted sums: rank i adds sum_j S_i[j] w(i, j) for the bytes it
 * sends to j, rank j adds sum_i R_j[i] w(i, j) for the bytes it expects
 * from i, with pseudo-random 64-bit weights w; the two totals differ when
 * any pair differs (except with probability about 2^-64).
 *
 * Blocking calls are verified before selection, so a call that would go
 * to the host MPI is checked too.  Nonblocking and persistent calls that
 * ch4coll runs are verified inside their request: the exchange runs first,
 * then the check, then the collective's own schedule.
 */
#ifndef CH4COLL_VERIFY_H
#define CH4COLL_VERIFY_H

#include <stdint.h>

#include "../sched/sched.h"
#include "run.h"

struct ch4coll_comm;

/* One rank's call, as exchanged (all int64: no padding, same layout on
 * every rank). */
typedef struct {
    int64_t coll;  /* ch4coll_coll_t * 2 + nonblocking */
    int64_t valid; /* the arguments pass ch4coll's checks on this rank */
    int64_t root;  /* rooted collectives, else 0 */
    int64_t op;    /* predefined op handle, -1 user-defined, 0 none */
    int64_t type;  /* reductions: predefined datatype handle, or -(bytes)
                    * of a derived one; else 0 */
    int64_t count; /* reductions: elements (reduce_scatter: the sum) */
    int64_t vhash; /* reduce_scatter, allgatherv: hash of the counts */
    int64_t sblk;  /* bytes sent per block (-1: no send side) */
    int64_t rblk;  /* bytes expected per block (-1: no receive side) */
    int64_t stot;  /* bytes sent in total */
    int64_t rtot;  /* bytes received in total */
    uint64_t hs;   /* weighted sum of the bytes sent, per destination */
    uint64_t hr;   /* weighted sum of the bytes expected, per source */
    int64_t inplace;
} ch4coll_vsig_t;

/* The exchange of one call: its allgather schedule and the p records. */
typedef struct ch4coll_verify {
    ch4coll_sched_t sched;
    ch4coll_vsig_t *sig; /* p records, sig[rank] this rank's */
    int size;
    /* nonblocking: the collective's schedule waits for the check */
    int pending; /* exchange under way, collective not started */
    const void *sbuf;
    void *rbuf;
    int tag;
} ch4coll_verify_t;

/* A verifier for a communicator of size ranks; NULL when out of memory. */
ch4coll_verify_t *ch4coll_verify_new(int rank, int size);
void ch4coll_verify_free(ch4coll_verify_t *v);

/* Tags one exchange uses (the same on every rank). */
int ch4coll_verify_ntags(const ch4coll_verify_t *v);

/* Fill this rank's record of call and start the exchange at tags from
 * tag on. */
int ch4coll_verify_start(struct ch4coll_comm *c, ch4coll_verify_t *v,
                         const ch4coll_call_t *call, int nb, int valid,
                         int tag);

/* After the exchange: CH4COLL_OK, or CH4COLL_ERR_MISMATCH with the
 * reason logged on this rank.  Every rank reaches the same verdict; a rank
 * whose own arguments are invalid gets CH4COLL_OK and leaves the error to
 * the host MPI's argument checks (the others report it as a mismatch). */
int ch4coll_verify_check(const struct ch4coll_comm *c,
                         const ch4coll_verify_t *v, const ch4coll_call_t *call);

#endif /* CH4COLL_VERIFY_H */
