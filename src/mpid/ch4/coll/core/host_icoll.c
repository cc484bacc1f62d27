/*
 * host_icoll.c - a described call (ch4coll_call_t) as the host MPI's own
 * nonblocking collective on a given communicator (preload mode).
 *
 * ch4coll runs the `native` leaf of a nonblocking call through it when
 * the call cannot go to the host on the application's communicator at the
 * moment the application makes it: a call that waited for its
 * communicator's setup (its place in the communicator's sequence of host
 * collectives is gone by then), and every persistent call (MPICH 4.0.2's
 * persistent collective requests break MPI_Testall and MPI_Waitsome, and
 * a started one would then be the host's).  Both run on ch4coll's
 * private duplicate, whose sequence of collectives only ch4coll makes.
 */
#include "host_icoll.h"

#include "../algos/algo.h"

int ch4coll_host_icoll(const ch4coll_call_t *k, MPI_Comm comm, MPI_Request *r)
{
    const ch4coll_side_t *s = &k->snd, *v = &k->rcv;
    void *rb = (void *) v->buf;

    switch (k->coll) {
    case CH4COLL_BCAST:
        return PMPI_Ibcast(rb, v->count, v->dt, k->root, comm, r);
    case CH4COLL_REDUCE:
        return PMPI_Ireduce(s->buf, rb, v->count, v->dt, k->op, k->root, comm,
                            r);
    case CH4COLL_ALLREDUCE:
        return PMPI_Iallreduce(s->buf, rb, v->count, v->dt, k->op, comm, r);
    case CH4COLL_ALLGATHER:
        return PMPI_Iallgather(s->buf, s->count, s->dt, rb, v->count, v->dt,
                               comm, r);
    case CH4COLL_ALLGATHERV:
        return PMPI_Iallgatherv(s->buf, s->count, s->dt, rb, v->counts,
                                v->displs, v->dt, comm, r);
    case CH4COLL_ALLTOALL:
        return PMPI_Ialltoall(s->buf, s->count, s->dt, rb, v->count, v->dt,
                              comm, r);
    case CH4COLL_ALLTOALLV:
        return PMPI_Ialltoallv(s->buf, s->counts, s->displs, s->dt, rb,
                               v->counts, v->displs, v->dt, comm, r);
    case CH4COLL_GATHER:
        return PMPI_Igather(s->buf, s->count, s->dt, rb, v->count, v->dt,
                            k->root, comm, r);
    case CH4COLL_GATHERV:
        return PMPI_Igatherv(s->buf, s->count, s->dt, rb, v->counts, v->displs,
                             v->dt, k->root, comm, r);
    case CH4COLL_SCATTER:
        return PMPI_Iscatter(s->buf, s->count, s->dt, rb, v->count, v->dt,
                             k->root, comm, r);
    case CH4COLL_SCATTERV:
        return PMPI_Iscatterv(s->buf, s->counts, s->displs, s->dt, rb, v->count,
                              v->dt, k->root, comm, r);
    case CH4COLL_REDUCE_SCATTER:
        return PMPI_Ireduce_scatter(s->buf, rb, v->counts, v->dt, k->op, comm,
                                    r);
    case CH4COLL_REDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(s->buf, rb, v->count, v->dt, k->op,
                                          comm, r);
    case CH4COLL_BARRIER:
        return PMPI_Ibarrier(comm, r);
    case CH4COLL_SCAN:
        return PMPI_Iscan(s->buf, rb, v->count, v->dt, k->op, comm, r);
    case CH4COLL_EXSCAN:
        return PMPI_Iexscan(s->buf, rb, v->count, v->dt, k->op, comm, r);
    default:
        return MPI_ERR_OTHER;
    }
}
