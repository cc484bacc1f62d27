/*
 * collcase.h - one collective call as a test case, shared by diffcoll.c and
 * zeroalloc.c.
 *
 * A case is what every rank of a communicator agrees on (cc_params_t: the
 * collective, root, in-place, datatypes, op, counts and a data seed) plus
 * what each rank derives from it (cc_case_t: its MPI arguments and
 * buffers).  The life of a case:
 *
 *   cc_prepare   arguments and buffers of this rank; send data and the
 *                receive buffer's "before" image (sentinel bytes, or input
 *                data where MPI_IN_PLACE or bcast's root reads it), framed
 *                by sentinel guards on both sides
 *   cc_run       MPI_X on a copy of the before image: through ch4coll
 *   cc_start     or MPI_I<coll> / MPI_<coll>_init on the same buffers
 *                (nonblocking, persistent); the result is there once the
 *                request completes, and cc_refill gives a persistent
 *                request new input between runs
 *   cc_expect    the expected receive buffer: PMPI_X (the host MPI) on
 *                another copy, or a fold every rank computes locally
 *   cc_check     byte-for-byte comparison of the whole receive allocation
 *                (guards and datatype holes included) and of the send buffer
 *   cc_release
 *
 * Input data is a pure function of (data seed, communicator rank,
 * position), so any rank can recompute any other rank's contribution: that
 * is what the local references (non-commutative op, scan, exscan) rely on.
 */
#ifndef COLLCASE_H
#define COLLCASE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "ch4coll.h"

/* Collectives, in the order of ch4coll's registry. */
enum {
    CC_BCAST,
    CC_REDUCE,
    CC_ALLREDUCE,
    CC_ALLGATHER,
    CC_ALLGATHERV,
    CC_ALLTOALL,
    CC_ALLTOALLV,
    CC_GATHER,
    CC_GATHERV,
    CC_SCATTER,
    CC_SCATTERV,
    CC_REDUCE_SCATTER,
    CC_REDUCE_SCATTER_BLOCK,
    CC_BARRIER,
    CC_SCAN,
    CC_EXSCAN,
    CC_NCOLL
};

/* Datatypes.  VEC is MPI_Type_vector(3, 1, 2, MPI_INT): 3 ints of data in
 * an extent of 5, with holes that a receive must leave alone.  PAIR is
 * MPI_Type_contiguous(2, MPI_INT). */
enum {
    CC_T_INT,
    CC_T_DOUBLE,
    CC_T_CHAR,
    CC_T_BYTE,
    CC_T_VEC,
    CC_T_PAIR,
    CC_NTYPES
};

/* Reduction operators.  The predefined ones apply to predefined datatypes
 * only (MPI 4.0 section 6.9.2; MPICH 4.0.2 rejects MPI_SUM even on a
 * contiguous type), so VEC and PAIR reduce with user-defined ops:
 * USERSUM, an integer sum created commutative, and AFFINE, created
 * non-commutative: composition of affine maps x -> a*x + b modulo a prime,
 * on PAIR (a, b) or VEC (a, b, c), values in [1, CC_AFFINE_MOD). */
enum {
    CC_OP_NONE = -1,
    CC_OP_SUM,
    CC_OP_MAX,
    CC_OP_MIN,
    CC_OP_PROD,
    CC_OP_BAND,
    CC_OP_BOR,
    CC_OP_BXOR,
    CC_OP_USERSUM,
    CC_OP_AFFINE,
    CC_NOPS
};

#define CC_AFFINE_MOD 1000003

/* Bytes of sentinel before and after every receive buffer. */
#define CC_GUARD    32
#define CC_SENTINEL 0xA5

/* Largest in-place MPI_Reduce at a non-zero root that the host MPICH 4.0.2
 * survives: above 2048 bytes its reduce_scatter_gather path segfaults. */
#define CC_HOST_INPLACE_REDUCE_MAX_BYTES 2048

/* splitmix64: the same seed gives the same stream on every rank. */
typedef struct {
    uint64_t s;
} cc_rng_t;

static inline uint64_t cc_mix(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

static inline uint64_t cc_next(cc_rng_t *r)
{
    r->s += UINT64_C(0x9E3779B97F4A7C15);
    return cc_mix(r->s);
}

/* Uniform in [0, n); 0 when n <= 0. */
static inline int cc_below(cc_rng_t *r, int n)
{
    return n > 0 ? (int) (cc_next(r) % (uint64_t) n) : 0;
}

static inline int cc_percent(cc_rng_t *r, int pct)
{
    return cc_below(r, 100) < pct;
}

/* What every rank of the communicator agrees on. */
typedef struct {
    int coll;
    MPI_Comm comm;
    const char *comm_name; /* for messages */
    int root;              /* rooted collectives */
    int inplace;           /* where MPI allows it (cc_inplace_allowed) */
    int stype, smult;      /* send datatype, elements per count unit */
    int rtype, rmult;      /* receive datatype, elements per unit */
    int op;                /* reductions (datatype: stype) */
    int count;             /* units per block, or reduction elements */
    const int *vcounts;    /* units per rank (v-collectives, elements
                            * for reduce_scatter); alltoallv: p*p,
                            * row = sender */
    uint64_t seed;         /* data (first run) and this rank's
                            * displacements */
} cc_params_t;

/* Forms of a collective besides the blocking one. */
enum { CC_FORM_NONBLOCKING, CC_FORM_PERSISTENT };

/* How a buffer argument is passed. */
enum { CC_ARG_BUF, CC_ARG_NULL, CC_ARG_IN_PLACE };

/* This rank's MPI arguments and buffers. */
typedef struct {
    cc_params_t prm;
    int rank, size;
    MPI_Datatype sdt, rdt;                      /* datatypes this rank passes */
    int stype_i, rtype_i;                       /* their cc type indices */
    int scount, rcount;                         /* counts this rank passes */
    int *scounts, *sdispls, *rcounts, *rdispls; /* NULL if not passed */
    int skind, rkind;                           /* CC_ARG_* */
    size_t sbytes, rbytes;        /* buffer sizes (receive: without guards) */
    size_t nin;                   /* reductions: input elements per rank */
    int rinput;                   /* receive buffer starts with input data */
    int local_ref;                /* expected result folded locally */
    uint64_t dseed;               /* input data: prm.seed, or cc_refill's */
    char *sbuf, *sorig;           /* send buffer and its pristine copy */
    char *rbefore, *rtest, *rexp; /* receive: guard + rbytes + guard */
} cc_case_t;

/* Create the derived datatypes and the user op; free them. */
int cc_init(void);
void cc_finalize(void);

const char *cc_coll_name(int coll);
int cc_coll_from_name(const char *name); /* -1 if unknown */
const char *cc_type_name(int type);
const char *cc_op_name(int op);
int cc_type_size(int type);
int cc_is_reduction(int coll);
int cc_is_rooted(int coll);
int cc_inplace_allowed(int coll);

/* Derive this rank's arguments and buffers; 0 or -1 (out of memory).  The
 * case keeps a pointer to prm->vcounts. */
int cc_prepare(cc_case_t *c, const cc_params_t *prm);

/* MPI_X through ch4coll into rtest; the MPI return code. */
int cc_run(cc_case_t *c);

/* Start the case through ch4coll in form: MPI_I<coll>, or MPI_<coll>_init
 * with MPI_INFO_NULL (run it with MPI_Start); the same arguments and
 * buffers as cc_run, so the result is in rtest once *req completes.  The
 * MPI return code. */
int cc_start(cc_case_t *c, int form, MPI_Request *req);

/* New input for another run of the same arguments (a persistent request):
 * the send buffer, the before image, rtest and rexp are refilled in place
 * from data seed dseed; pointers, counts and displacements stay. */
void cc_refill(cc_case_t *c, uint64_t dseed);

/* The expected receive buffer into rexp; an MPI return code. */
int cc_expect(cc_case_t *c);

/* 0 if rtest equals rexp and the send buffer is unchanged; else 1 and a
 * description of the first difference in msg. */
int cc_check(const cc_case_t *c, char *msg, size_t len);

/* One line: collective, size, count, datatypes, op, root, in-place. */
void cc_describe(const cc_case_t *c, char *buf, size_t len);

void cc_release(cc_case_t *c);

/* ch4coll_get_stats looked up at run time (the test may be linked against
 * ch4coll or have it preloaded); -1 if the symbol is not there. */
int cc_get_stats(ch4coll_stats_t *out);

/* From MPIR_CVAR_CH4COLL_ENABLE / _<COLL>_ALGORITHM: may this collective
 * be handed to the host MPI (so the host's bugs apply to MPI_X too)? */
int cc_module_enabled(void);
int cc_host_may_run(int coll);

/* The same for the nonblocking and persistent forms: forced by
 * MPIR_CVAR_CH4COLL_I<COLL>_ALGORITHM, or else by _<COLL>_ALGORITHM. */
int cc_host_may_run_nb(int coll);

#endif /* COLLCASE_H */
