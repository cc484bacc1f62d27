##
## ch4coll inside MPICH: maint/build-mpich copies the module to
## src/mpid/ch4/coll and includes this file from src/mpid/ch4/Makefile.mk.
## Only the mode-independent core, the in-MPICH entry and the in-MPICH
## transport are compiled; the preload entry points (entry/preload*.c,
## comm_pmpi.c, nbc.c, transport/pmpi.c) and the test transports are not.
##

if BUILD_CH4

AM_CPPFLAGS += -I$(top_srcdir)/src/mpid/ch4/coll/include

ch4coll_dir = src/mpid/ch4/coll
mpi_core_sources += \
    $(ch4coll_dir)/util/util.c \
    $(ch4coll_dir)/sched/sched.c \
    $(ch4coll_dir)/sched/cache.c \
    $(ch4coll_dir)/sched/kernels.c \
    $(ch4coll_dir)/algos/registry.c \
    $(ch4coll_dir)/algos/bounds.c \
    $(ch4coll_dir)/algos/binomial.c \
    $(ch4coll_dir)/algos/recursive_doubling.c \
    $(ch4coll_dir)/algos/pairwise.c \
    $(ch4coll_dir)/algos/ring.c \
    $(ch4coll_dir)/algos/node_ring.c \
    $(ch4coll_dir)/algos/smp.c \
    $(ch4coll_dir)/algos/linear.c \
    $(ch4coll_dir)/algos/dissemination.c \
    $(ch4coll_dir)/algos/recursive_halving.c \
    $(ch4coll_dir)/algos/butterfly.c \
    $(ch4coll_dir)/algos/knomial.c \
    $(ch4coll_dir)/algos/scatter_allgather.c \
    $(ch4coll_dir)/algos/allgather_rd.c \
    $(ch4coll_dir)/algos/alltoall_more.c \
    $(ch4coll_dir)/algos/ring_reduce.c \
    $(ch4coll_dir)/algos/reduce_butterfly.c \
    $(ch4coll_dir)/algos/noncommutative.c \
    $(ch4coll_dir)/algos/linear_scan.c \
    $(ch4coll_dir)/algos/pipelined.c \
    $(ch4coll_dir)/algos/pipelined_ring.c \
    $(ch4coll_dir)/algos/binary_blocks.c \
    $(ch4coll_dir)/algos/hampath.c \
    $(ch4coll_dir)/algos/line.c \
    $(ch4coll_dir)/algos/two_tree.c \
    $(ch4coll_dir)/select/cvar.c \
    $(ch4coll_dir)/select/select.c \
    $(ch4coll_dir)/select/tree.c \
    $(ch4coll_dir)/select/predicates.c \
    $(ch4coll_dir)/transport/mpich.c \
    $(ch4coll_dir)/entry/comm.c \
    $(ch4coll_dir)/entry/run.c \
    $(ch4coll_dir)/entry/verify.c \
    $(ch4coll_dir)/entry/mpich.c \
    $(ch4coll_dir)/mpich/cvars.c \
    $(ch4coll_dir)/mpich/default_json.c

errnames_txt_files += $(ch4coll_dir)/mpich/errnames.txt

endif BUILD_CH4
