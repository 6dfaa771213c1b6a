#!/usr/bin/env bash
# Runs that end without MPI_Finalize, through synctrace-run (which recovers by itself):
#  - exit() after MPI_Init on every rank: every rank's data is in the archive, marked incomplete;
#  - SIGSEGV on rank 1: the MPI runtime installs its own fault handler at MPI_Init; the shim must
#    still get the fault first, so rank 1's data (its MPI_Init and MPI_Barrier) is in the archive.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c crash "$MPI_DIR/crash.c")
ranks_in() { st dump --json "$1" | python3 -c 'import sys, json; print(" ".join(map(str, sorted({json.loads(l)["rank"] for l in sys.stdin if "MPI_Barrier" in l}))))'; }

mpi_cmd -n "$ST_NP" "$bin" exit
timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$ST_TMP/exit" "${MPI_CMD[@]}" >/dev/null 2>"$ST_TMP/exit-err.txt" || true
[ -f "$ST_TMP/exit/traces.otf2" ] || fail "no archive after exit without MPI_Finalize: $(tail -n 3 "$ST_TMP/exit-err.txt")"
otf2_ok "$ST_TMP/exit"
st info "$ST_TMP/exit" | grep -q '^incomplete: *yes' || fail "exit without MPI_Finalize: archive not marked incomplete"
assert_eq "ranks with their MPI_Barrier after exit()" "$(seq -s ' ' 0 $((ST_NP - 1)))" "$(ranks_in "$ST_TMP/exit")"

rc=0
mpi_cmd -n "$ST_NP" "$bin" segv
timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$ST_TMP/segv" "${MPI_CMD[@]}" >/dev/null 2>"$ST_TMP/segv-err.txt" || rc=$?
[ "$rc" -ne 0 ] || fail "a crashing job exited 0"
[ -f "$ST_TMP/segv/traces.otf2" ] || fail "no archive after SIGSEGV: $(tail -n 3 "$ST_TMP/segv-err.txt")"
otf2_ok "$ST_TMP/segv"
st info "$ST_TMP/segv" | grep -q 'SYNCTRACE::END *SIGSEGV' || fail "the archive does not say the run ended with SIGSEGV"
ranks_in "$ST_TMP/segv" | grep -qw 1 || fail "the crashing rank 1 is not in the archive"
note "exit: ranks $(ranks_in "$ST_TMP/exit"); segv: ranks $(ranks_in "$ST_TMP/segv")"
