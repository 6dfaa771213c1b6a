#!/usr/bin/env bash
# SIGTERM at a spread of moments after an OpenMP program without MPI returned from main: the
# tool then prepares the trace, runs CLC and writes the archive (omp_only.c), which takes a
# while at some 10^6 events. As in MPI_Finalize (tests/mpi/t_sigterm_finalize.sh), each run must
# end within 30 s with one of these results, never a crash, a hang or an empty directory:
#  - the archive was complete before the signal: marked complete, every event, no dump;
#  - it was not: the process's raw dump in the archive's directory (also a directory of the
#    synctrace-DATE-TIME default, not a second one), a message on stderr, and `synctrace recover`
#    makes an archive marked incomplete with every event of the run, whose END names SIGTERM and
#    the exit phase it cut short; over an archive the signal cut short, recover says so.
# (The tool used to stop saving anything once main had returned: a signal in that phase left
# nothing or half an archive.)
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_omp_tools
bin=$(build_omp omp-abend clang "$OMP_DIR/omp_abend.c")
rounds=${ROUNDS:-25000}
job=
trap '[ -z "$job" ] || kill -KILL $job 2>/dev/null || true' EXIT
launch() { # DIR (empty: the default directory, in $ST_TMP/cwd)
    : >"$ST_TMP/out.txt"
    mkdir -p "$ST_TMP/cwd"
    (cd "$ST_TMP/cwd" && exec env -u SYNCTRACE_DIR ${1:+SYNCTRACE_DIR="$1"} LIBOMP_USE_HIDDEN_HELPER_TASK=0 LD_PRELOAD="$ST_LIB" \
        "$bin" rounds "$rounds" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt") &
    job=$!
}
wait_done() { # WHAT: until the program printed "done" (main returns next)
    for _ in $(seq 3000); do grep -q '^done' "$ST_TMP/out.txt" && return 0; kill -0 $job 2>/dev/null || break; sleep 0.01; done
    grep -q '^done' "$ST_TMP/out.txt" || fail "$1: the program never printed done: $(tail -n 3 "$ST_TMP/err.txt")"
}

launch "$ST_TMP/plain"
wait_done "unsignalled"
t0=$(date +%s%N)
wait $job || fail "the unsignalled run failed: $(tail -n 3 "$ST_TMP/err.txt")"
job=
exit_ms=$((($(date +%s%N) - t0) / 1000000))
info_complete "$ST_TMP/plain"
events=$(app_events "$ST_TMP/info.txt")
note "unsignalled: $events events, $exit_ms ms from main's return to the process's end"
[ "$events" -gt 100000 ] || fail "the unsignalled run recorded only $events events"

# moments after main returned: 0 .. 1.3 x the exit time, 8 steps; the odd ones without SYNCTRACE_DIR
complete=0 dumped=0
for k in 0 1 2 3 4 5 6 7; do
    d=$(awk -v t="$exit_ms" -v k="$k" 'BEGIN {printf "%.3f", t * 1.3 * k / 7 / 1000}')
    rm -rf "$ST_TMP/cwd"
    dir=$ST_TMP/sig$k
    [ $((k % 2)) = 0 ] || dir=
    launch "$dir"
    wait_done "moment $k"
    sleep "$d"
    term_job "moment $k (+$d s)" 30
    if [ -z "$dir" ]; then
        n=$(find "$ST_TMP/cwd" -mindepth 1 -maxdepth 1 -name 'synctrace-*' | wc -l)
        [ "$n" = 1 ] || fail "moment $k (+$d s): $n directories in the working directory: $(ls "$ST_TMP/cwd" | tr '\n' ' ')"
        dir=$(find "$ST_TMP/cwd" -mindepth 1 -maxdepth 1 -name 'synctrace-*')
    fi
    signal_outcome "moment $k (+$d s)" "$dir" "$events" "at exit" 1
    if [ $OUTCOME = dumped ]; then dumped=$((dumped + 1)); else complete=$((complete + 1)); fi
    note "+$d s: $OUTCOME_NOTE"
done
trap - EXIT
note "$dumped moments dumped and recovered, $complete found the archive complete"
[ "$dumped" -gt 0 ] || fail "no signal arrived before the archive was complete: the moments missed the exit work"
