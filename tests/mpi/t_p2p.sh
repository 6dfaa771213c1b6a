#!/usr/bin/env bash
# Blocking point-to-point under the shim (p2p.c): ring, zero-byte, MPI_ANY_SOURCE/ANY_TAG with
# and without MPI_STATUS_IGNORE, Sendrecv, MPI_PROC_NULL, Probe/Iprobe/Mprobe+Mrecv/Improbe+Imrecv.
# Asserts unchanged output and exit code, exact per-rank event counts (peers, tags, bytes),
# every message matched by `synctrace check`, and an archive otf2-print accepts.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")
full_check p2p p2p "$bin" "$ST_NP" 10
