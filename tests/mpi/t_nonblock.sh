#!/usr/bin/env bash
# Nonblocking and persistent point-to-point under the shim (nonblock.c): Waitall, Waitany,
# Waitsome/Testsome with partial completion, Test, Send_init/Recv_init with Start/Startall,
# a cancelled Irecv, MPI_ANY_SOURCE/ANY_TAG with MPI_STATUSES_IGNORE. Exact counts as in t_p2p.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c nonblock "$MPI_DIR/nonblock.c")
full_check nonblock nonblock "$bin" "$ST_NP" 5
