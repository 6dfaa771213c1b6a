#!/usr/bin/env bash
# Collectives on sub-communicators from MPI_Comm_split by parity (coll.c): Bcast, Reduce,
# Allreduce, Gatherv, Alltoall, Scan, Exscan, Barrier; a Sendrecv on the sub-communicator
# (peers must be WORLD ranks); nonblocking collectives completed by Waitall, Wait and Test.
# Roots of rooted collectives must be recorded as WORLD ranks.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c coll "$MPI_DIR/coll.c")
full_check coll coll "$bin" "$ST_NP" 3
