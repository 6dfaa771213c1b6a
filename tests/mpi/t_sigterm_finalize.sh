#!/usr/bin/env bash
# SIGTERM at a spread of moments inside MPI_Finalize (burst.c, ~0.3 M events per rank): the
# clock sync, the trace preparation, CLC, the in-run wait-state analysis, the archive write
# and after it. Each run must end within 30 s with one of these results, never a crash, a hang
# or an empty directory:
#  - the archive was complete before the signal: traces.otf2 marked complete, no dumps;
#  - it was not: every rank's raw dump, a message on stderr, `synctrace recover` makes an
#    archive marked incomplete holding every event of the run (a dump is taken from the
#    recording buffers, never from the corrected copy CLC and the analysis work on), and
#    `synctrace info` says it ended by SIGTERM and in which phase of MPI_Finalize;
#  - the signal came while the ranks agreed that the archive was complete: the complete
#    archive and the dumps, and `synctrace recover` explains that instead of rebuilding;
#  - it came while a rank still wrote its events, after rank 0 had written the anchor file:
#    an archive that does not read back and the dumps; `synctrace recover` says so and
#    rebuilds it from the dumps with every event.
# A first run without a signal gives the phases' times (SYNCTRACE_VERBOSE=1); the signals are
# placed across them and the note says which result each moment gave.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c burst "$MPI_DIR/burst.c")
np=2
args="600 64"
job=
trap '[ -z "$job" ] || kill -KILL $job 2>/dev/null || true' EXIT
launch() { # DIR
    : >"$ST_TMP/out.txt"
    # shellcheck disable=SC2086
    mpi_cmd -e SYNCTRACE_DIR="$1" -e SYNCTRACE_BUFFER=4M -e SYNCTRACE_VERBOSE=1 -e LD_PRELOAD="$ST_LIB" \
        -n $np "$bin" $args
    "${MPI_CMD[@]}" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
    job=$!
}

launch "$ST_TMP/plain"
wait $job || fail "the unsignalled run failed: $(tail -n 3 "$ST_TMP/err.txt")"
job=
phases=$(grep -o 'MPI_Finalize: .*' "$ST_TMP/err.txt") || fail "no MPI_Finalize phase line: $(tail -n 3 "$ST_TMP/err.txt")"
total=$(echo "$phases" | grep -oE '[0-9.]+ ms' | awk '{s += $1} END {printf "%.0f", s}')
events=$(st info "$ST_TMP/plain" | app_events)
note "unsignalled: $phases; $events events"
[ "$events" -gt 0 ] || fail "the unsignalled run recorded no events"

# moments after the program's last line: 0 .. 1.3 x the finalize time, 8 steps
complete=0 dumped=0
for k in 0 1 2 3 4 5 6 7; do
    d=$(awk -v t="$total" -v k="$k" 'BEGIN {printf "%.3f", t * 1.3 * k / 7 / 1000}')
    dir=$ST_TMP/sig$k
    launch "$dir"
    for _ in $(seq 3000); do grep -q '^burst:' "$ST_TMP/out.txt" && break; kill -0 $job 2>/dev/null || break; sleep 0.01; done
    grep -q '^burst:' "$ST_TMP/out.txt" || fail "moment $k: the program never printed its result: $(tail -n 3 "$ST_TMP/err.txt")"
    sleep "$d"
    term_job "moment $k (+$d s)" 30
    signal_outcome "moment $k (+$d s)" "$dir" "$events" "at MPI_Finalize" $np
    if [ $OUTCOME = dumped ]; then dumped=$((dumped + 1)); else complete=$((complete + 1)); fi
    note "+$d s: $OUTCOME_NOTE"
done
note "$dumped moments dumped and recovered, $complete found the archive complete"
[ "$dumped" -gt 0 ] || fail "no signal arrived before the archive was complete: the moments missed MPI_Finalize"
