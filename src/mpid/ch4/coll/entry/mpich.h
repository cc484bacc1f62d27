/*
 * mpich.h - ch4coll inside MPICH: what the netmod calls.
 *
 * maint/build-mpich turns each call of MPIR_<Coll>_impl in the netmod's
 * collective header into a call of MPIDI_CH4COLL_<Coll> with the same
 * arguments.  Each runs the call through ch4coll's selection and
 * schedules, or, when ch4coll does not take it (disabled, native choice,
 * intercommunicator, one of MPICH's own node sub-communicators, counts
 * above INT_MAX), calls MPIR_<Coll>_impl itself.  The communicator hooks
 * create and free ch4coll's state with the communicator; the datatype and
 * op free hooks drop cached schedules that name a destroyed handle.
 */
#ifndef CH4COLL_MPICH_H
#define CH4COLL_MPICH_H

int MPIDI_CH4COLL_comm_create(MPIR_Comm *comm);
int MPIDI_CH4COLL_comm_free(MPIR_Comm *comm);
int MPIDI_CH4COLL_type_free(MPI_Datatype dt);
int MPIDI_CH4COLL_op_free(MPI_Op op);

int MPIDI_CH4COLL_Barrier(MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ibarrier(MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                        int root, MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ibcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                         int root, MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, int root,
                         MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, int root,
                          MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                            MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iallreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                             MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                             MPIR_Request **req);
int MPIDI_CH4COLL_Allgather(const void *sendbuf, MPI_Aint sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            MPI_Aint recvcount, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iallgather(const void *sendbuf, MPI_Aint sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             MPI_Aint recvcount, MPI_Datatype recvtype,
                             MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Allgatherv(const void *sendbuf, MPI_Aint sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Aint *recvcounts, const MPI_Aint *displs,
                             MPI_Datatype recvtype, MPIR_Comm *comm,
                             MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iallgatherv(const void *sendbuf, MPI_Aint sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Aint *recvcounts,
                              const MPI_Aint *displs, MPI_Datatype recvtype,
                              MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                 const MPI_Aint *recvcounts,
                                 MPI_Datatype datatype, MPI_Op op,
                                 MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                                  const MPI_Aint *recvcounts,
                                  MPI_Datatype datatype, MPI_Op op,
                                  MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                       MPI_Aint recvcount,
                                       MPI_Datatype datatype, MPI_Op op,
                                       MPIR_Comm *comm,
                                       MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                        MPI_Aint recvcount,
                                        MPI_Datatype datatype, MPI_Op op,
                                        MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Alltoall(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           MPI_Aint recvcount, MPI_Datatype recvtype,
                           MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ialltoall(const void *sendbuf, MPI_Aint sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            MPI_Aint recvcount, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Alltoallv(const void *sendbuf, const MPI_Aint *sendcounts,
                            const MPI_Aint *sdispls, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Aint *recvcounts,
                            const MPI_Aint *rdispls, MPI_Datatype recvtype,
                            MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Ialltoallv(const void *sendbuf, const MPI_Aint *sendcounts,
                             const MPI_Aint *sdispls, MPI_Datatype sendtype,
                             void *recvbuf, const MPI_Aint *recvcounts,
                             const MPI_Aint *rdispls, MPI_Datatype recvtype,
                             MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Gather(const void *sendbuf, MPI_Aint sendcount,
                         MPI_Datatype sendtype, void *recvbuf,
                         MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                         MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Igather(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                          MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Gatherv(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Aint *recvcounts, const MPI_Aint *displs,
                          MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                          MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Igatherv(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Aint *recvcounts, const MPI_Aint *displs,
                           MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                           MPIR_Request **req);
int MPIDI_CH4COLL_Scatter(const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                          MPIR_Comm *comm, MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iscatter(const void *sendbuf, MPI_Aint sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                           MPIR_Comm *comm, MPIR_Request **req);
int MPIDI_CH4COLL_Scatterv(const void *sendbuf, const MPI_Aint *sendcounts,
                           const MPI_Aint *displs, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount,
                           MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                           MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iscatterv(const void *sendbuf, const MPI_Aint *sendcounts,
                            const MPI_Aint *displs, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Aint recvcount,
                            MPI_Datatype recvtype, int root, MPIR_Comm *comm,
                            MPIR_Request **req);
int MPIDI_CH4COLL_Scan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                       MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                       MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                        MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                        MPIR_Request **req);
int MPIDI_CH4COLL_Exscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                         MPIR_Errflag_t *errflag);
int MPIDI_CH4COLL_Iexscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                          MPIR_Request **req);

/* Persistent collectives (MPID_<Coll>_init): a request of kind
 * PREQUEST_COLL whose sched is ch4coll's (sched_type MPIR_SCHED_CH4COLL),
 * or MPIR_<Coll>_init_impl's when ch4coll does not take the call.
 * MPIR_Persist_coll_start and MPIR_Persist_coll_free_cb call
 * MPIDI_CH4COLL_persist_start and _free for such a sched. */
int MPIDI_CH4COLL_Barrier_init(MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req);
int MPIDI_CH4COLL_Bcast_init(void *buffer, MPI_Aint count,
                             MPI_Datatype datatype, int root, MPIR_Comm *comm,
                             MPIR_Info *info, MPIR_Request **req);
int MPIDI_CH4COLL_Reduce_init(const void *sendbuf, void *recvbuf,
                              MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                              int root, MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req);
int MPIDI_CH4COLL_Allreduce_init(const void *sendbuf, void *recvbuf,
                                 MPI_Aint count, MPI_Datatype datatype,
                                 MPI_Op op, MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req);
int MPIDI_CH4COLL_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf,
                                            MPI_Aint recvcount,
                                            MPI_Datatype datatype, MPI_Op op,
                                            MPIR_Comm *comm, MPIR_Info *info,
                                            MPIR_Request **req);
int MPIDI_CH4COLL_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                      const MPI_Aint *recvcounts,
                                      MPI_Datatype datatype, MPI_Op op,
                                      MPIR_Comm *comm, MPIR_Info *info,
                                      MPIR_Request **req);
int MPIDI_CH4COLL_Allgather_init(const void *sendbuf, MPI_Aint sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 MPI_Aint recvcount, MPI_Datatype recvtype,
                                 MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req);
int MPIDI_CH4COLL_Alltoall_init(const void *sendbuf, MPI_Aint sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                MPI_Aint recvcount, MPI_Datatype recvtype,
                                MPIR_Comm *comm, MPIR_Info *info,
                                MPIR_Request **req);
int MPIDI_CH4COLL_Gather_init(const void *sendbuf, MPI_Aint sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              MPI_Aint recvcount, MPI_Datatype recvtype,
                              int root, MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req);
int MPIDI_CH4COLL_Scatter_init(const void *sendbuf, MPI_Aint sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               MPI_Aint recvcount, MPI_Datatype recvtype,
                               int root, MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req);
int MPIDI_CH4COLL_Allgatherv_init(const void *sendbuf, MPI_Aint sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Aint *recvcounts,
                                  const MPI_Aint *displs, MPI_Datatype recvtype,
                                  MPIR_Comm *comm, MPIR_Info *info,
                                  MPIR_Request **req);
int MPIDI_CH4COLL_Gatherv_init(const void *sendbuf, MPI_Aint sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Aint *recvcounts,
                               const MPI_Aint *displs, MPI_Datatype recvtype,
                               int root, MPIR_Comm *comm, MPIR_Info *info,
                               MPIR_Request **req);
int MPIDI_CH4COLL_Scatterv_init(const void *sendbuf, const MPI_Aint *sendcounts,
                                const MPI_Aint *displs, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Aint recvcount,
                                MPI_Datatype recvtype, int root,
                                MPIR_Comm *comm, MPIR_Info *info,
                                MPIR_Request **req);
int MPIDI_CH4COLL_Alltoallv_init(const void *sendbuf,
                                 const MPI_Aint *sendcounts,
                                 const MPI_Aint *sdispls, MPI_Datatype sendtype,
                                 void *recvbuf, const MPI_Aint *recvcounts,
                                 const MPI_Aint *rdispls, MPI_Datatype recvtype,
                                 MPIR_Comm *comm, MPIR_Info *info,
                                 MPIR_Request **req);
int MPIDI_CH4COLL_Scan_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm,
                            MPIR_Info *info, MPIR_Request **req);
int MPIDI_CH4COLL_Exscan_init(const void *sendbuf, void *recvbuf,
                              MPI_Aint count, MPI_Datatype datatype, MPI_Op op,
                              MPIR_Comm *comm, MPIR_Info *info,
                              MPIR_Request **req);
int MPIDI_CH4COLL_persist_start(void *sched, MPIR_Request **real);
void MPIDI_CH4COLL_persist_free(void *sched);

#endif /* CH4COLL_MPICH_H */
