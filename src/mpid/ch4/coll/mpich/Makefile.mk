##
## ch4coll inside MPICH: maint/build-mpich copies the module to
## src/mpid/ch4/coll and includes this file from src/mpid/ch4/Makefile.mk.
## Only the mode-independent core, the in-MPICH entry and the in-MPICH
## transport are compiled (ch4coll_common_c and ch4coll_mpich_c of
## sources.mk, the one source list); the preload entry points and the test
## transports are not.
##

include $(top_srcdir)/src/mpid/ch4/coll/sources.mk

if BUILD_CH4

AM_CPPFLAGS += -I$(top_srcdir)/src/mpid/ch4/coll/include

ch4coll_dir = src/mpid/ch4/coll
mpi_core_sources += $(ch4coll_common_c) $(ch4coll_mpich_c) \
    $(ch4coll_dir)/mpich/cvars.c \
    $(ch4coll_dir)/mpich/default_json.c

errnames_txt_files += $(ch4coll_dir)/mpich/errnames.txt

endif BUILD_CH4
