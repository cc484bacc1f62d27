/*
 * call.h - the call descriptor: one collective call's MPI arguments, and
 * what MPI says they mean on this rank, worked out once.
 *
 * A binding (entry/) fills in the arguments: collective, communicator,
 * root, op and both sides, as the application passed them.  As soon as the
 * communicator's rank and size are known, ch4coll_call_describe() works
 * out the rest, and every later stage reads it instead of deciding again:
 * the argument checks (core/comm_pmpi.c), the cache key and the call shape
 * (core/run.c), the datatypes a nonblocking call keeps alive (core/nbc.c,
 * entry/mpich.c) and the verification signature (core/verify.c).
 *
 *   rooted    the collective has a root (bcast, reduce, gather(v),
 *             scatter(v))
 *   at_root   rooted and this rank is the root
 *   inplace   MPI_IN_PLACE where MPI looks for it on this rank: the send
 *             buffer, or for scatter(v) the receive buffer, and for a
 *             rooted collective only at the root
 *   s_sig     MPI reads the send count(s) and datatype on this rank
 *   r_sig     MPI reads the receive count(s) and datatype on this rank
 *             (a reduction's datatype is the receive side's: s_sig 0,
 *             r_sig 1)
 */
#ifndef CH4COLL_CALL_H
#define CH4COLL_CALL_H

#include <mpi.h>

#include "../algos/algo.h"

/* One side (send or receive) of a call, as the application passed it. */
typedef struct {
    const void *buf;
    int count; /* regular: elements per block */
    MPI_Datatype dt;
    const int *counts, *displs; /* v-collectives (elements), else NULL */
} ch4coll_side_t;

typedef struct {
    /* the arguments */
    int coll; /* ch4coll_coll_t */
    MPI_Comm comm;
    int root;
    MPI_Op op;
    ch4coll_side_t snd, rcv; /* bcast: the buffer is rcv */
    /* worked out by ch4coll_call_describe() (see above) */
    int rank, size;
    unsigned char rooted, at_root, inplace, s_sig, r_sig;
} ch4coll_call_t;

static inline int ch4coll_coll_is_rooted(int coll)
{
    return coll == CH4COLL_BCAST || coll == CH4COLL_REDUCE ||
           coll == CH4COLL_GATHER || coll == CH4COLL_GATHERV ||
           coll == CH4COLL_SCATTER || coll == CH4COLL_SCATTERV;
}

/* Work out the descriptor of call for rank of a communicator of size
 * ranks (MPI 4.0's rules of significance, chapter 6). */
static inline void ch4coll_call_describe(ch4coll_call_t *call, int rank,
                                         int size)
{
    int coll = call->coll;
    int scat = coll == CH4COLL_SCATTER || coll == CH4COLL_SCATTERV;
    int gath = coll == CH4COLL_GATHER || coll == CH4COLL_GATHERV;
    int root;

    call->rank = rank;
    call->size = size;
    call->rooted = (unsigned char) ch4coll_coll_is_rooted(coll);
    root = call->rooted && rank == call->root;
    call->at_root = (unsigned char) root;
    call->inplace = (unsigned char) ((!call->rooted || root) &&
                                     (scat ? call->rcv.buf : call->snd.buf) ==
                                         MPI_IN_PLACE);
    if (ch4coll_coll_is_reduction(coll)) {
        call->s_sig = 0;
        call->r_sig = 1;
    } else if (coll == CH4COLL_BARRIER) {
        call->s_sig = call->r_sig = 0;
    } else if (coll == CH4COLL_BCAST) {
        call->s_sig = 0;
        call->r_sig = 1;
    } else {
        call->s_sig = (unsigned char) (scat ? root : !call->inplace);
        call->r_sig = (unsigned char) (gath   ? root
                                       : scat ? !(root && call->inplace)
                                              : 1);
    }
}

#endif /* CH4COLL_CALL_H */
