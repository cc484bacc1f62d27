#!/bin/sh
# Shard 1 of 2 of the registry sweep: make check -j2 runs the two side by
# side (test_sweep.c, CH4COLL_SWEEP_SHARD).  make check runs in the build
# directory.
CH4COLL_SWEEP_SHARD=1/2 exec test/unit/test_sweep "$@"
