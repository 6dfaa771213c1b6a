#!/usr/bin/env bash
# An OpenMP program without MPI that ends abnormally, through synctrace-run (which recovers):
#  - SIGSEGV (omp_abend.c segv): the MPI runtime's UCX installs a fault handler when the shim
#    is loaded, before the shim's constructor runs; the shim must still get the fault first.
#    The archive must exist, say END SIGSEGV and hold the 20 parallel regions; the exit status
#    is the untraced one (139);
#  - SIGTERM while the 3 threads are inside malloc (omp_abend.c spin under malloc_guard.so),
#    TRIALS times (default 5): the handler may only dump (no allocation, no CLC, no OTF2);
#    the process ends within 10 s, and synctrace-run turns the dump into an archive.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools
bin=$(build_omp omp-abend clang "$OMP_DIR/omp_abend.c")
guard=$ST_BUILD/malloc_guard.so
if [ ! -f "$guard" ] || [ "$ST_ROOT/tests/mpi/malloc_guard.c" -nt "$guard" ]; then
    gcc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$guard" "$ST_ROOT/tests/mpi/malloc_guard.c" -ldl || fail "cannot build malloc_guard.so"
fi

prc=0 trc=0
timeout -k 10 60 "$bin" segv >/dev/null 2>&1 || prc=$?
timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$ST_TMP/segv" "$bin" segv >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || trc=$?
assert_eq "exit status after SIGSEGV with the shim" "$prc" "$trc"
[ -f "$ST_TMP/segv/traces.otf2" ] || fail "no archive after SIGSEGV: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
st info "$ST_TMP/segv" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info: $(head -n 3 "$ST_TMP/info.txt")"
grep -q 'SYNCTRACE::END *SIGSEGV' "$ST_TMP/info.txt" || fail "the archive does not say the run ended with SIGSEGV"
forks=$(st dump --json "$ST_TMP/segv" | grep -c '"omp_fork"' || true)
assert_eq "parallel regions (forks) in the archive after SIGSEGV" 20 "$forks"
note "segv: exit $trc, archive with $forks forks"

job=
trap '[ -z "$job" ] || kill -KILL $job 2>/dev/null || true' EXIT
for trial in $(seq "${TRIALS:-5}"); do
    D=$ST_TMP/term$trial
    : >"$ST_TMP/out.txt"
    rm -f "$ST_TMP/guard.log"
    MALLOC_GUARD_LOG=$ST_TMP/guard.log SYNCTRACE_DIR=$D LD_PRELOAD="$guard:$ST_LIB" \
        timeout -k 10 60 "$bin" spin 30 >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
    job=$!
    for _ in $(seq 600); do grep -q running "$ST_TMP/out.txt" && break; kill -0 $job 2>/dev/null || break; sleep 0.05; done
    grep -q running "$ST_TMP/out.txt" || fail "trial $trial: the program did not start: $(tail -n 3 "$ST_TMP/err.txt")"
    sleep "0.$((RANDOM % 3))"
    pid=$(pgrep -P $job | head -n 1)
    kill -TERM "${pid:-$job}"
    for _ in $(seq 100); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -0 $job 2>/dev/null && fail "trial $trial: the program still runs 10 s after SIGTERM (a handler hangs)"
    wait $job || true
    job=
    [ ! -s "$ST_TMP/guard.log" ] || fail "trial $trial: $(head -n 1 "$ST_TMP/guard.log")"
    [ -f "$D/partial/rank-0.strd" ] || fail "trial $trial: no dump: $(ls -R "$D" 2>&1 | head -n 5 | tr '\n' ' ') $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
done
trap - EXIT
# synctrace-run's automatic recovery of such a dump
rrc=0
timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$ST_TMP/run" "$bin" spin 30 >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
job=$!
for _ in $(seq 600); do grep -q running "$ST_TMP/out.txt" && break; sleep 0.05; done
sleep 0.2
prog=$(pgrep -f "omp-abend spin" | head -n 1)
[ -n "$prog" ] || fail "cannot find the traced program's pid"
kill -TERM "$prog"
wait $job || rrc=$?
assert_eq "synctrace-run's exit status after SIGTERM" 143 "$rrc"
[ -f "$ST_TMP/run/traces.otf2" ] || fail "synctrace-run did not recover the dump: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
st info "$ST_TMP/run" | grep -q 'SYNCTRACE::END *SIGTERM' || fail "the recovered archive does not say SIGTERM"
note "SIGTERM: ${TRIALS:-5} trials without allocation in the handler; synctrace-run recovered the dump"
