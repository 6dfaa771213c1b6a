#!/usr/bin/env bash
# A Fortran program (fring.f90, `use mpi`) under the shim: MPICH's Fortran bindings call the
# C MPI_* functions, so the same wrappers must record exact events for it, and with
# SYNCTRACE_CALLSITE=1 attribute every call to fring.f90:LINE.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
command -v "$MPI_F90" >/dev/null || skip "no $MPI_F90"
bin=$(build_mpi_f90 fring "$MPI_DIR/fring.f90")
full_check fring fring "$bin" "$ST_NP"

# Call sites through the Fortran bindings: the shim skips MPICH's frames, so every MPI call
# must be attributed to fring.f90:LINE.
ST_ENV="SYNCTRACE_CALLSITE=1" run_both fring-cs "$bin" "$ST_NP"
dump_json "$TRACE" "$ST_TMP/fring-cs.json"
tracecheck callsite "$ST_TMP/fring-cs.json" "$MPI_DIR/fring.f90" >"$ST_TMP/cs.txt" 2>"$ST_TMP/cs-err.txt" ||
    fail "Fortran call sites: $(head -n 8 "$ST_TMP/cs.txt" "$ST_TMP/cs-err.txt" | tr '\n' '|')"
note "$(cat "$ST_TMP/cs-err.txt")"
