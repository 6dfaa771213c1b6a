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
# launch DIR: "${MPI_CMD[@]}" through synctrace-run within 60 s, exit status in RC. Open MPI's mpirun
# can hang after every rank has ended, in its PMIx server's finalize (seen once in 30 runs of "segv"
# under load: the ranks reaped or zombies, mpirun waiting in PMIx_server_finalize; without the tool
# too). Then, and only if no rank of the job is alive, the job is stopped and its archive recovered
# by hand as a user would (synctrace recover DIR); a rank still alive is this library's hang.
launch() {
    RC=0
    timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$1" "${MPI_CMD[@]}" >/dev/null 2>"$1-err.txt" || RC=$?
    [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ] || return 0
    local alive
    alive=$(ps -eo stat=,args= | awk -v b="$bin" '$2 == b && $1 !~ /^Z/' | wc -l)
    [ "$alive" -eq 0 ] || fail "$(basename "$1"): $alive ranks still alive after 60 s: $(tail -n 3 "$1-err.txt")"
    note "$(basename "$1"): the launcher outlived every rank by 60 s; recovered by hand"
    [ -f "$1/traces.otf2" ] || st recover "$1" >/dev/null 2>>"$1-err.txt" || fail "recover $1: $(tail -n 3 "$1-err.txt")"
}
ranks_in() { st dump --json "$1" | python3 -c 'import sys, json; print(" ".join(map(str, sorted({json.loads(l)["rank"] for l in sys.stdin if "MPI_Barrier" in l}))))'; }

mpi_cmd -n "$ST_NP" "$bin" exit
launch "$ST_TMP/exit"
[ -f "$ST_TMP/exit/traces.otf2" ] || fail "no archive after exit without MPI_Finalize: $(tail -n 3 "$ST_TMP/exit-err.txt" 2>/dev/null)"
otf2_ok "$ST_TMP/exit"
st info "$ST_TMP/exit" | grep -q '^incomplete: *yes' || fail "exit without MPI_Finalize: archive not marked incomplete"
assert_eq "ranks with their MPI_Barrier after exit()" "$(seq -s ' ' 0 $((ST_NP - 1)))" "$(ranks_in "$ST_TMP/exit")"

mpi_cmd -n "$ST_NP" "$bin" segv
launch "$ST_TMP/segv"
[ "$RC" -ne 0 ] || fail "a crashing job exited 0"
[ -f "$ST_TMP/segv/traces.otf2" ] || fail "no archive after SIGSEGV: $(tail -n 3 "$ST_TMP/segv-err.txt")"
otf2_ok "$ST_TMP/segv"
st info "$ST_TMP/segv" | grep -q 'SYNCTRACE::END *SIGSEGV' || fail "the archive does not say the run ended with SIGSEGV"
ranks_in "$ST_TMP/segv" | grep -qw 1 || fail "the crashing rank 1 is not in the archive"
note "exit: ranks $(ranks_in "$ST_TMP/exit"); segv: ranks $(ranks_in "$ST_TMP/segv")"
