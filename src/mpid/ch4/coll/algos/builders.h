/*
 * builders.h - the functions of every algorithm of the registry: tag
 * counts (ch4coll_ntags_fn), builders (ch4coll_build_fn) and cost
 * functions (ch4coll_cost_fn), named ch4coll_<collective>_<algorithm>,
 * ch4coll_ntags_<...> and ch4coll_cost_<...>.
 *
 * registry.c and the builders use them; algo.h includes this header
 * last, so adding an algorithm changes this file and not algo.h, which
 * maint/smpi-compare hashes with the engine (a changed engine reruns
 * every ch4coll, auto and tuned part of the grid); declarations and the
 * two block accessors below change no engine code, so it leaves this file
 * out (a change to the accessors changes the schedules' digests).
 */
#ifndef CH4COLL_BUILDERS_H
#define CH4COLL_BUILDERS_H

#include "algo.h"

/* Rank i's block of a block collective (allgather(v): bytes;
 * reduce_scatter(_block): elements): counts[i], or the common count when
 * the call has no counts array. */
static inline size_t ch4coll_blk_count(const ch4coll_args_t *a, int i)
{
    return a->counts ? a->counts[i] : a->count;
}

/* Element displacement of block i: displs[i], or i blocks of the common
 * count; i >= size gives the end of the last block. */
static inline size_t ch4coll_blk_displ(const ch4coll_args_t *a, int i)
{
    if (i >= a->size)
        return ch4coll_blk_displ(a, a->size - 1) +
               ch4coll_blk_count(a, a->size - 1);
    return a->displs ? a->displs[i] : (size_t) i * a->count;
}

/* allgather(v) not in place: the rank's own block from the send buffer
 * into its place in the receive buffer (nothing when it is empty); the
 * copy's vertex, or -1. */
static inline int ch4coll_copy_own_block(ch4coll_sched_t *s,
                                         const ch4coll_args_t *a)
{
    size_t own = ch4coll_blk_count(a, a->rank);

    if (a->inplace || own == 0)
        return -1;
    return ch4coll_sched_copy(
        s, ch4coll_ref(CH4COLL_BUF_SEND, 0),
        ch4coll_ref(CH4COLL_BUF_RECV,
                    ch4coll_eoff(a, ch4coll_blk_displ(a, a->rank))),
        own, 0, NULL);
}

/* Tag counts (ch4coll_ntags_fn) of the builders that use more than one. */
int ch4coll_ntags_alltoall_permuted(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_binary_blocks(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_reduce_binomial(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_circulant(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_direct(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_allreduce_circulant(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_barrier_dissemination(const ch4coll_args_t *,
                                        const int64_t *);
int ch4coll_ntags_hampath(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bcast_line(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bcast_bidir_chain(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bcast_torus_trees(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_torus_2d(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_torus_2d_reduce(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_reduce_torus_trees(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_allreduce_torus_trees(const ch4coll_args_t *,
                                        const int64_t *);
int ch4coll_ntags_noncommutative(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bcast_pipelined_bintree(const ch4coll_args_t *,
                                          const int64_t *);
int ch4coll_ntags_reduce_pipelined_bintree(const ch4coll_args_t *,
                                           const int64_t *);
int ch4coll_ntags_allgatherv_pipelined_ring(const ch4coll_args_t *,
                                            const int64_t *);
int ch4coll_ntags_reduce_butterfly(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_allgather_ring(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bidir_ring(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_neighbor_exchange(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_multi_ring(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_multi_leader(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_group_lanes(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_reduce_chain(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_reduce_bidir_chain(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_ring_reduce(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bidir_ring_reduce(const ch4coll_args_t *, const int64_t *);
int ch4coll_ntags_bcast_scatter_ring_allgather(const ch4coll_args_t *,
                                               const int64_t *);
int ch4coll_ntags_bcast_scatter_rd_allgather(const ch4coll_args_t *,
                                             const int64_t *);
int ch4coll_ntags_bcast_two_tree(const ch4coll_args_t *, const int64_t *);

/* Builders, one family per file (bcast_tree.c, ...). */
int ch4coll_bcast_binomial(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_reduce_binomial(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_allreduce_recursive_doubling(ch4coll_sched_t *,
                                         const ch4coll_args_t *,
                                         const int64_t *);
int ch4coll_reduce_scatter_pairwise(ch4coll_sched_t *, const ch4coll_args_t *,
                                    const int64_t *);
int ch4coll_reduce_scatter_block_pairwise(ch4coll_sched_t *,
                                          const ch4coll_args_t *,
                                          const int64_t *);
int ch4coll_allreduce_butterfly(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_allreduce_direct(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_reduce_scatter_recursive_halving(ch4coll_sched_t *,
                                             const ch4coll_args_t *,
                                             const int64_t *);
int ch4coll_reduce_scatter_block_recursive_halving(ch4coll_sched_t *,
                                                   const ch4coll_args_t *,
                                                   const int64_t *);
int ch4coll_allgather_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_allgatherv_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_allgather_neighbor_exchange(ch4coll_sched_t *,
                                        const ch4coll_args_t *,
                                        const int64_t *);
int ch4coll_allgatherv_neighbor_exchange(ch4coll_sched_t *,
                                         const ch4coll_args_t *,
                                         const int64_t *);
int ch4coll_allgather_bidir_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *);
int ch4coll_allreduce_torus_2d(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_reduce_scatter_torus_2d(ch4coll_sched_t *, const ch4coll_args_t *,
                                    const int64_t *);
int ch4coll_reduce_scatter_block_torus_2d(ch4coll_sched_t *,
                                          const ch4coll_args_t *,
                                          const int64_t *);
int ch4coll_allgather_torus_2d(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_allgatherv_torus_2d(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_allgatherv_bidir_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                  const int64_t *);
int ch4coll_allgather_multi_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *);
int ch4coll_allgatherv_multi_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                  const int64_t *);
int ch4coll_allreduce_multi_leader(ch4coll_sched_t *, const ch4coll_args_t *,
                                   const int64_t *);
int ch4coll_bcast_multi_leader(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_allreduce_group_lanes(ch4coll_sched_t *, const ch4coll_args_t *,
                                  const int64_t *);
int ch4coll_reduce_multi_leader(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_reduce_chain(ch4coll_sched_t *, const ch4coll_args_t *,
                         const int64_t *);
int ch4coll_reduce_bidir_chain(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_reduce_torus_trees(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_allreduce_torus_trees(ch4coll_sched_t *, const ch4coll_args_t *,
                                  const int64_t *);
int ch4coll_reduce_knomial(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_allgather_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_allgatherv_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_alltoall_pairwise(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_alltoallv_pairwise(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_gather_binomial(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_scatter_binomial(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_gatherv_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_scatterv_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_barrier_dissemination(ch4coll_sched_t *, const ch4coll_args_t *,
                                  const int64_t *);
int ch4coll_scan_recursive_doubling(ch4coll_sched_t *, const ch4coll_args_t *,
                                    const int64_t *);
int ch4coll_exscan_recursive_doubling(ch4coll_sched_t *, const ch4coll_args_t *,
                                      const int64_t *);

int ch4coll_bcast_knomial(ch4coll_sched_t *, const ch4coll_args_t *,
                          const int64_t *);
int ch4coll_barrier_tree(ch4coll_sched_t *, const ch4coll_args_t *,
                         const int64_t *);
int ch4coll_bcast_scatter_ring_allgather(ch4coll_sched_t *,
                                         const ch4coll_args_t *,
                                         const int64_t *);
int ch4coll_bcast_scatter_rd_allgather(ch4coll_sched_t *,
                                       const ch4coll_args_t *, const int64_t *);
int ch4coll_allgather_recursive_doubling(ch4coll_sched_t *,
                                         const ch4coll_args_t *,
                                         const int64_t *);
int ch4coll_allgather_bruck(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_allgatherv_recursive_doubling(ch4coll_sched_t *,
                                          const ch4coll_args_t *,
                                          const int64_t *);
int ch4coll_allgatherv_bruck(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_alltoall_bruck(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_alltoall_scattered(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_alltoallv_scattered(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_alltoall_permuted(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_alltoallv_permuted(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_gather_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                          const int64_t *);
int ch4coll_scatter_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);

int ch4coll_allreduce_bidir_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *);
int ch4coll_reduce_scatter_bidir_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                      const int64_t *);
int ch4coll_reduce_scatter_block_bidir_ring(ch4coll_sched_t *,
                                            const ch4coll_args_t *,
                                            const int64_t *);
int ch4coll_allreduce_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_reduce_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                        const int64_t *);
int ch4coll_reduce_scatter_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_reduce_scatter_block_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                      const int64_t *);
int ch4coll_reduce_butterfly(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_reduce_scatter_noncommutative(ch4coll_sched_t *,
                                          const ch4coll_args_t *,
                                          const int64_t *);
int ch4coll_reduce_scatter_block_noncommutative(ch4coll_sched_t *,
                                                const ch4coll_args_t *,
                                                const int64_t *);
int ch4coll_scan_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                        const int64_t *);
int ch4coll_exscan_linear(ch4coll_sched_t *, const ch4coll_args_t *,
                          const int64_t *);
int ch4coll_allreduce_reduce_bcast(ch4coll_sched_t *, const ch4coll_args_t *,
                                   const int64_t *);

int ch4coll_bcast_pipelined_bintree(ch4coll_sched_t *, const ch4coll_args_t *,
                                    const int64_t *);

/* Cost functions (ch4coll_cost_fn), one per builder, in the builder's
 * family file: the closed-form time of its schedule on the model above. */
double ch4coll_cost_bcast_binomial(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_bcast_knomial(const ch4coll_args_t *, const int64_t *,
                                  const ch4coll_model_t *);
double ch4coll_cost_bcast_scatter_ring_allgather(const ch4coll_args_t *,
                                                 const int64_t *,
                                                 const ch4coll_model_t *);
double ch4coll_cost_bcast_scatter_rd_allgather(const ch4coll_args_t *,
                                               const int64_t *,
                                               const ch4coll_model_t *);
double ch4coll_cost_reduce_binomial(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_reduce_ring(const ch4coll_args_t *, const int64_t *,
                                const ch4coll_model_t *);
double ch4coll_cost_reduce_butterfly(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_allreduce_recursive_doubling(const ch4coll_args_t *,
                                                 const int64_t *,
                                                 const ch4coll_model_t *);
double ch4coll_cost_allreduce_butterfly(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_allreduce_direct(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_allreduce_bidir_ring(const ch4coll_args_t *,
                                         const int64_t *,
                                         const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_bidir_ring(const ch4coll_args_t *,
                                              const int64_t *,
                                              const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_bidir_ring(const ch4coll_args_t *,
                                                    const int64_t *,
                                                    const ch4coll_model_t *);
double ch4coll_cost_allreduce_ring(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_allreduce_reduce_bcast(const ch4coll_args_t *,
                                           const int64_t *,
                                           const ch4coll_model_t *);
double ch4coll_cost_allgather_ring(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_allgather_recursive_doubling(const ch4coll_args_t *,
                                                 const int64_t *,
                                                 const ch4coll_model_t *);
double ch4coll_cost_allgather_bruck(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_allgatherv_bruck(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_allgatherv_ring(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_allgather_neighbor_exchange(const ch4coll_args_t *,
                                                const int64_t *,
                                                const ch4coll_model_t *);
double ch4coll_cost_allgatherv_neighbor_exchange(const ch4coll_args_t *,
                                                 const int64_t *,
                                                 const ch4coll_model_t *);
double ch4coll_cost_allgather_bidir_ring(const ch4coll_args_t *,
                                         const int64_t *,
                                         const ch4coll_model_t *);
double ch4coll_cost_allreduce_torus_2d(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_torus_2d(const ch4coll_args_t *,
                                            const int64_t *,
                                            const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_torus_2d(const ch4coll_args_t *,
                                                  const int64_t *,
                                                  const ch4coll_model_t *);
double ch4coll_cost_allgather_torus_2d(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_allgatherv_torus_2d(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_allgatherv_bidir_ring(const ch4coll_args_t *,
                                          const int64_t *,
                                          const ch4coll_model_t *);
double ch4coll_cost_allgather_multi_ring(const ch4coll_args_t *,
                                         const int64_t *,
                                         const ch4coll_model_t *);
double ch4coll_cost_allgatherv_multi_ring(const ch4coll_args_t *,
                                          const int64_t *,
                                          const ch4coll_model_t *);
double ch4coll_cost_allreduce_multi_leader(const ch4coll_args_t *,
                                           const int64_t *,
                                           const ch4coll_model_t *);
double ch4coll_cost_bcast_multi_leader(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_allreduce_group_lanes(const ch4coll_args_t *,
                                          const int64_t *,
                                          const ch4coll_model_t *);
double ch4coll_cost_reduce_multi_leader(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_reduce_knomial(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_reduce_chain(const ch4coll_args_t *, const int64_t *,
                                 const ch4coll_model_t *);
double ch4coll_cost_reduce_bidir_chain(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_reduce_torus_trees(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_allreduce_torus_trees(const ch4coll_args_t *,
                                          const int64_t *,
                                          const ch4coll_model_t *);
double ch4coll_cost_allgather_linear(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_allgatherv_linear(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_allgatherv_recursive_doubling(const ch4coll_args_t *,
                                                  const int64_t *,
                                                  const ch4coll_model_t *);
double ch4coll_cost_alltoall_pairwise(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_alltoall_bruck(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_alltoall_scattered(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_alltoall_permuted(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_alltoallv_pairwise(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_alltoallv_scattered(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_alltoallv_permuted(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_gather_binomial(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_gather_linear(const ch4coll_args_t *, const int64_t *,
                                  const ch4coll_model_t *);
double ch4coll_cost_gatherv_linear(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_scatter_binomial(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_scatter_linear(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_scatterv_linear(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_pairwise(const ch4coll_args_t *,
                                            const int64_t *,
                                            const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_recursive_halving(const ch4coll_args_t *,
                                                     const int64_t *,
                                                     const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_ring(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_noncommutative(const ch4coll_args_t *,
                                                  const int64_t *,
                                                  const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_pairwise(const ch4coll_args_t *,
                                                  const int64_t *,
                                                  const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_recursive_halving(
    const ch4coll_args_t *, const int64_t *, const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_ring(const ch4coll_args_t *,
                                              const int64_t *,
                                              const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_noncommutative(
    const ch4coll_args_t *, const int64_t *, const ch4coll_model_t *);
double ch4coll_cost_barrier_dissemination(const ch4coll_args_t *,
                                          const int64_t *,
                                          const ch4coll_model_t *);
double ch4coll_cost_barrier_tree(const ch4coll_args_t *, const int64_t *,
                                 const ch4coll_model_t *);
double ch4coll_cost_scan_recursive_doubling(const ch4coll_args_t *,
                                            const int64_t *,
                                            const ch4coll_model_t *);
double ch4coll_cost_scan_linear(const ch4coll_args_t *, const int64_t *,
                                const ch4coll_model_t *);
double ch4coll_cost_exscan_recursive_doubling(const ch4coll_args_t *,
                                              const int64_t *,
                                              const ch4coll_model_t *);
double ch4coll_cost_exscan_linear(const ch4coll_args_t *, const int64_t *,
                                  const ch4coll_model_t *);

/* Builders and cost functions of the BlueGene/L, Rabenseifner 3.6, NEC 3.4
 * and Traeff et al. families. */
int ch4coll_bcast_line(ch4coll_sched_t *, const ch4coll_args_t *,
                       const int64_t *);
int ch4coll_bcast_bidir_chain(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_bcast_torus_trees(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_allreduce_line(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_allgather_line(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_allgatherv_line(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_reduce_hampath(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_allreduce_hampath(ch4coll_sched_t *, const ch4coll_args_t *,
                              const int64_t *);
int ch4coll_allreduce_binary_blocks(ch4coll_sched_t *, const ch4coll_args_t *,
                                    const int64_t *);
int ch4coll_allreduce_swing(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
int ch4coll_reduce_binary_blocks(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *);
int ch4coll_reduce_swing(ch4coll_sched_t *, const ch4coll_args_t *,
                         const int64_t *);
int ch4coll_allgatherv_pipelined_ring(ch4coll_sched_t *, const ch4coll_args_t *,
                                      const int64_t *);
int ch4coll_reduce_pipelined_bintree(ch4coll_sched_t *, const ch4coll_args_t *,
                                     const int64_t *);
double ch4coll_cost_bcast_line(const ch4coll_args_t *, const int64_t *,
                               const ch4coll_model_t *);
double ch4coll_cost_bcast_bidir_chain(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_bcast_torus_trees(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_allreduce_line(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_allgather_line(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_allgatherv_line(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
double ch4coll_cost_reduce_hampath(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);
double ch4coll_cost_allreduce_hampath(const ch4coll_args_t *, const int64_t *,
                                      const ch4coll_model_t *);
double ch4coll_cost_allreduce_binary_blocks(const ch4coll_args_t *,
                                            const int64_t *,
                                            const ch4coll_model_t *);
double ch4coll_cost_reduce_binary_blocks(const ch4coll_args_t *,
                                         const int64_t *,
                                         const ch4coll_model_t *);
double ch4coll_cost_allgatherv_pipelined_ring(const ch4coll_args_t *,
                                              const int64_t *,
                                              const ch4coll_model_t *);
double ch4coll_cost_bcast_pipelined_bintree(const ch4coll_args_t *,
                                            const int64_t *,
                                            const ch4coll_model_t *);
double ch4coll_cost_reduce_pipelined_bintree(const ch4coll_args_t *,
                                             const int64_t *,
                                             const ch4coll_model_t *);

int ch4coll_bcast_two_tree(ch4coll_sched_t *, const ch4coll_args_t *,
                           const int64_t *);
int ch4coll_bcast_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                            const int64_t *);
double ch4coll_cost_bcast_circulant(const ch4coll_args_t *, const int64_t *,
                                    const ch4coll_model_t *);
/* The circulant reduce run backwards into the receive buffer, every
 * rank's partial already there (no copy): have[b] the vertex block b of
 * a rank's own partial waits for (-1: none); done[b] at the root the
 * vertex after which block b holds the result (multi_leader's lanes). */
long ch4coll_circ_reduce_nblocks(const ch4coll_args_t *a,
                                 const int64_t *params);
int ch4coll_circ_reduce_run(ch4coll_sched_t *s, const ch4coll_args_t *a, long n,
                            const int *have, int *done);
/* For compositions (smp_multi_leader.c): the bcast's blocks n with params
 * (the registry's: blocks), and its schedule in n blocks of a->count,
 * ch4coll_seg_off/len's split.  At the root have[b] (NULL: every block
 * there from the start) is the vertex block b waits for, -1 none;
 * elsewhere got[b] (n entries) is set to the receive of block b. */
long ch4coll_circ_bcast_nblocks(const ch4coll_args_t *a, const int64_t *params);
int ch4coll_circ_bcast_run(ch4coll_sched_t *s, const ch4coll_args_t *a, long n,
                           const int *have, int *got);
int ch4coll_allgatherv_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                                 const int64_t *);
int ch4coll_allgather_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
int ch4coll_reduce_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                             const int64_t *);
int ch4coll_allreduce_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                                const int64_t *);
double ch4coll_cost_allreduce_circulant(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
int ch4coll_reduce_scatter_circulant(ch4coll_sched_t *, const ch4coll_args_t *,
                                     const int64_t *);
int ch4coll_reduce_scatter_block_circulant(ch4coll_sched_t *,
                                           const ch4coll_args_t *,
                                           const int64_t *);
double ch4coll_cost_reduce_scatter_circulant(const ch4coll_args_t *,
                                             const int64_t *,
                                             const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_circulant(const ch4coll_args_t *,
                                                   const int64_t *,
                                                   const ch4coll_model_t *);

double ch4coll_cost_reduce_circulant(const ch4coll_args_t *, const int64_t *,
                                     const ch4coll_model_t *);
double ch4coll_cost_allgatherv_circulant(const ch4coll_args_t *,
                                         const int64_t *,
                                         const ch4coll_model_t *);
double ch4coll_cost_allgather_circulant(const ch4coll_args_t *, const int64_t *,
                                        const ch4coll_model_t *);
double ch4coll_cost_bcast_two_tree(const ch4coll_args_t *, const int64_t *,
                                   const ch4coll_model_t *);

/* Locality: the hierarchical compositions (smp.c, NEC Table 2). */
int ch4coll_barrier_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                        const int64_t *);
int ch4coll_bcast_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                      const int64_t *);
int ch4coll_reduce_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                       const int64_t *);
int ch4coll_allreduce_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                          const int64_t *);
int ch4coll_allgather_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                          const int64_t *);
int ch4coll_reduce_scatter_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                               const int64_t *);
int ch4coll_reduce_scatter_block_smp(ch4coll_sched_t *, const ch4coll_args_t *,
                                     const int64_t *);

double ch4coll_cost_barrier_smp(const ch4coll_args_t *, const int64_t *,
                                const ch4coll_model_t *);
double ch4coll_cost_bcast_smp(const ch4coll_args_t *, const int64_t *,
                              const ch4coll_model_t *);
double ch4coll_cost_reduce_smp(const ch4coll_args_t *, const int64_t *,
                               const ch4coll_model_t *);
double ch4coll_cost_allreduce_smp(const ch4coll_args_t *, const int64_t *,
                                  const ch4coll_model_t *);
double ch4coll_cost_allgather_smp(const ch4coll_args_t *, const int64_t *,
                                  const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_smp(const ch4coll_args_t *, const int64_t *,
                                       const ch4coll_model_t *);
double ch4coll_cost_reduce_scatter_block_smp(const ch4coll_args_t *,
                                             const int64_t *,
                                             const ch4coll_model_t *);

#endif /* CH4COLL_BUILDERS_H */
