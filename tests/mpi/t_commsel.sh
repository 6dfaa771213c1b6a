#!/usr/bin/env bash
# HLRS-style communicator selection (commsel.c): the same point-to-point (Isend, Recv from
# MPI_ANY_SOURCE, Wait) and collectives (Bcast with a non-zero root, Allreduce, Gather, Barrier)
# on MPI_COMM_WORLD, a duplicate, a split, a reversed split (comm rank i = world size-1-i) and
# an intercommunicator (MPI_ROOT / MPI_PROC_NULL Bcast). Exact counts with peers and roots as
# world ranks, every message matched, `synctrace check` clean; at 4 and 5 ranks (uneven groups).
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c commsel "$MPI_DIR/commsel.c")
for np in 4 5; do
    full_check "commsel$np" commsel "$bin" "$np"
done
