# The one list of ch4coll's library sources.  Three builds read it:
#   Makefile.am           preload mode (libch4coll), this repository;
#   mpich/Makefile.mk     inside MPICH (maint/build-mpich);
#   maint/smpi            the SimGrid SMPI library (make -f this file).
# Paths are relative to the top of the tree that builds: the module sits at
# src/mpid/ch4/coll in this repository and in MPICH's.  A new algorithm
# file goes into ch4coll_common_c and nowhere else.

ch4coll = src/mpid/ch4/coll

# Both modes: the scheduler, the algorithms, the selection, the call
# pipeline.
ch4coll_common_c = \
	$(ch4coll)/util/util.c \
	$(ch4coll)/host/progress.c \
	$(ch4coll)/topo/circulant.c \
	$(ch4coll)/topo/packing.c \
	$(ch4coll)/sched/sched.c \
	$(ch4coll)/sched/kernels.c \
	$(ch4coll)/algos/registry.c \
	$(ch4coll)/algos/binomial.c \
	$(ch4coll)/algos/recursive_doubling.c \
	$(ch4coll)/algos/pairwise.c \
	$(ch4coll)/algos/direct.c \
	$(ch4coll)/algos/ring.c \
	$(ch4coll)/algos/smp.c \
	$(ch4coll)/algos/smp_barrier.c \
	$(ch4coll)/algos/smp_bcast.c \
	$(ch4coll)/algos/smp_reduce.c \
	$(ch4coll)/algos/smp_allreduce.c \
	$(ch4coll)/algos/smp_allgather.c \
	$(ch4coll)/algos/smp_reduce_scatter.c \
	$(ch4coll)/algos/smp_multi_leader.c \
	$(ch4coll)/algos/linear.c \
	$(ch4coll)/algos/multi_ring.c \
	$(ch4coll)/algos/chain.c \
	$(ch4coll)/algos/dissemination.c \
	$(ch4coll)/algos/recursive_halving.c \
	$(ch4coll)/algos/butterfly.c \
	$(ch4coll)/algos/knomial.c \
	$(ch4coll)/algos/scatter_allgather.c \
	$(ch4coll)/algos/allgather_doubling.c \
	$(ch4coll)/algos/alltoall_bruck.c \
	$(ch4coll)/algos/alltoall_scattered.c \
	$(ch4coll)/algos/ring_reduce.c \
	$(ch4coll)/algos/reduce_butterfly.c \
	$(ch4coll)/algos/noncommutative.c \
	$(ch4coll)/algos/scan_linear.c \
	$(ch4coll)/algos/reduce_bcast.c \
	$(ch4coll)/algos/pipelined_bintree.c \
	$(ch4coll)/algos/pipelined_ring.c \
	$(ch4coll)/algos/binary_blocks.c \
	$(ch4coll)/algos/hampath.c \
	$(ch4coll)/algos/line.c \
	$(ch4coll)/algos/two_tree.c \
	$(ch4coll)/algos/circulant.c \
	$(ch4coll)/algos/circulant_allgatherv.c \
	$(ch4coll)/algos/torus_2d.c \
	$(ch4coll)/select/cvar.c \
	$(ch4coll)/select/select.c \
	$(ch4coll)/select/tree.c \
	$(ch4coll)/select/predicates.c \
	$(ch4coll)/select/machine_model.c \
	$(ch4coll)/core/cache.c \
	$(ch4coll)/core/comm.c \
	$(ch4coll)/core/run.c \
	$(ch4coll)/core/verify.c

# Preload mode (and SMPI): the MPI_* wrappers over PMPI, the host services
# through PMPI, the public API, the test transport and the cost model (model/: never inside MPICH).
ch4coll_preload_c = \
	$(ch4coll)/host/pmpi.c \
	$(ch4coll)/transport/pmpi.c \
	$(ch4coll)/transport/loop.c \
	$(ch4coll)/sched/loop_run.c \
	$(ch4coll)/model/model.c \
	$(ch4coll)/model/machine.c \
	$(ch4coll)/model/replay.c \
	$(ch4coll)/model/bounds.c \
	$(ch4coll)/model/report.c \
	$(ch4coll)/select/spec.c \
	$(ch4coll)/core/comm_pmpi.c \
	$(ch4coll)/core/nbc.c \
	$(ch4coll)/core/host_icoll.c \
	$(ch4coll)/core/api.c \
	$(ch4coll)/entry/preload.c \
	$(ch4coll)/entry/preload_nb.c

# Inside MPICH: the netmod entry, MPICH's own point-to-point and its host
# services.
ch4coll_mpich_c = \
	$(ch4coll)/host/mpich.c \
	$(ch4coll)/transport/mpich.c \
	$(ch4coll)/entry/mpich.c

ch4coll_h = \
	$(ch4coll)/util/util.h $(ch4coll)/util/lock.h \
	$(ch4coll)/sched/sched.h $(ch4coll)/core/cache.h \
	$(ch4coll)/sched/kernels.h \
	$(ch4coll)/topo/topo.h $(ch4coll)/topo/mesh.h $(ch4coll)/topo/blocks.h \
	$(ch4coll)/topo/trees.h $(ch4coll)/topo/index.h \
	$(ch4coll)/topo/distrib.h $(ch4coll)/topo/nodes.h \
	$(ch4coll)/topo/circulant.h $(ch4coll)/topo/torus.h $(ch4coll)/topo/packing.h \
	$(ch4coll)/algos/algo.h $(ch4coll)/algos/builders.h $(ch4coll)/algos/cycle.h $(ch4coll)/algos/torus_trees.h $(ch4coll)/algos/hazard.h \
	$(ch4coll)/algos/fold.h $(ch4coll)/algos/smp.h $(ch4coll)/algos/lanes.h \
	$(ch4coll)/algos/post.h \
	$(ch4coll)/select/config.h $(ch4coll)/select/select.h \
	$(ch4coll)/select/tree.h $(ch4coll)/select/machine_model.h \
	$(ch4coll)/transport/transport.h $(ch4coll)/transport/loop.h \
	$(ch4coll)/sched/loop_run.h \
	$(ch4coll)/model/model.h $(ch4coll)/model/replay.h \
	$(ch4coll)/model/bounds.h $(ch4coll)/model/machine.h \
	$(ch4coll)/model/model_default.h \
	$(ch4coll)/host/host.h $(ch4coll)/core/call.h $(ch4coll)/core/comm.h $(ch4coll)/core/run.h \
	$(ch4coll)/core/verify.h $(ch4coll)/core/nbc.h \
	$(ch4coll)/core/host_icoll.h $(ch4coll)/select/spec.h \
	$(ch4coll)/entry/calls.h $(ch4coll)/entry/mpich.h
