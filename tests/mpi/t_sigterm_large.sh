#!/usr/bin/env bash
# SIGTERM to the launcher with large traces (burst.c, ~1M events per rank, 1 MiB buffers: most of it
# in spill files), at two moments:
#  - mid-run: every rank must be saved (the ranks wait for each other's dumps, however long
#    they take, before hydra SIGKILLs the rest) and the job must end within 10 s;
#  - inside MPI_Finalize (right after the program's last output): the ranks must still dump
#    (not leave an empty directory and say nothing): a message on stderr, every rank's dump,
#    and `synctrace recover` must make an archive of them;
#  - lopsided (lopsided.c: rank 0 a few events, rank 1 ~1M): rank 0 is done at once and must
#    wait while rank 1's dump is being written (before the fix it took rank 1's temporary file
#    for a finished dump, died, and hydra killed rank 1 mid-dump: one rank of two recovered).
# Each recovered archive is marked incomplete (`synctrace info` reads all its events).
# alone: ms from SIGTERM to the end of the job are bounded (tests/run-tests.sh runs it with no other test beside it)
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c burst "$MPI_DIR/burst.c")
np=2
job=
trap '[ -z "$job" ] || kill -KILL $job 2>/dev/null || true' EXIT
# signal_job DIR ARGS WHEN [PROGRAM]: WHEN = a number of seconds after MPI_Init, "final" (when stdout has the program's
# last line) or "running" (when stdout says so)
signal_job() {
    : >"$ST_TMP/out.txt"
    # shellcheck disable=SC2086
    mpi_cmd -e SYNCTRACE_DIR="$1" -e SYNCTRACE_BUFFER=1M -e LD_PRELOAD="$ST_LIB" -n $np "${4:-$bin}" $2
    "${MPI_CMD[@]}" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
    job=$!
    if [ "$3" = final ] || [ "$3" = running ]; then
        local want='^burst:'
        [ "$3" = running ] && want=running
        for _ in $(seq 3000); do grep -q "$want" "$ST_TMP/out.txt" && break; kill -0 $job 2>/dev/null || break; sleep 0.01; done
    else
        # seconds after MPI_Init (the archive directory appears there), not after the launch: on a
        # loaded machine the ranks may need longer than that to start
        for _ in $(seq 3000); do [ -d "$1" ] && break; kill -0 $job 2>/dev/null || break; sleep 0.01; done
        sleep "$3"
    fi
    kill -0 $job 2>/dev/null || fail "$1: the job ended before it was signalled: $(tail -n 3 "$ST_TMP/err.txt")"
    start=$(date +%s%N)
    kill -TERM $job
    for _ in $(seq 300); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -0 $job 2>/dev/null && fail "$1: the job still runs 30 s after SIGTERM"
    wait $job || true
    job=
    ms=$((($(date +%s%N) - start) / 1000000))
}
recover_all() { # DIR WHAT
    for r in $(seq 0 $((np - 1))); do
        [ -f "$1/partial/rank-$r.strd" ] ||
            fail "$2: no dump of rank $r (have: $(ls "$1/partial" 2>&1 | tr '\n' ' ')); stderr: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    done
    st recover "$1" >"$ST_TMP/recover.txt" 2>&1 || fail "$2: synctrace recover failed: $(head -c 300 "$ST_TMP/recover.txt")"
    info_incomplete "$1" # reads every event; otf2-print would take many seconds for these
    note "$2: ended ${ms} ms after SIGTERM; $(head -n 1 "$ST_TMP/recover.txt"); $(du -sh "$1/partial" | cut -f1) of dumps"
}

signal_job "$ST_TMP/mid" "6000 64" 0.5
assert_le "mid-run: ms from SIGTERM to the end of the job" 10000 "$ms"
recover_all "$ST_TMP/mid" mid-run

lopsided=$(build_mpi_c lopsided "$MPI_DIR/lopsided.c")
signal_job "$ST_TMP/lopsided" 500000 running "$lopsided"
assert_le "lopsided: ms from SIGTERM to the end of the job" 10000 "$ms"
recover_all "$ST_TMP/lopsided" lopsided

signal_job "$ST_TMP/final" "2000 64" final
[ -f "$ST_TMP/final/traces.otf2" ] && [ ! -d "$ST_TMP/final/partial" ] &&
    skip "the archive was complete before SIGTERM arrived (finalize too fast on this machine)"
grep -q "SIGTERM: partial trace" "$ST_TMP/err.txt" || fail "in MPI_Finalize: no message on stderr: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
recover_all "$ST_TMP/final" "in MPI_Finalize"
