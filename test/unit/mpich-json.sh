#!/bin/sh
# MPICH 4.0.2's own tuning files through ch4coll's JSON loader and search
# (test_select.c, suite "mpich").  They come from the MPICH source that
# CH4COLL_MPICH_SRC names (maint/mpich-source prints it): without it the
# test says SKIP (exit 77).  make check runs in the build directory.
exec test/unit/test_select --mpich "$@"
