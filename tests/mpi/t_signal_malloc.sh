#!/usr/bin/env bash
# SIGTERM to the launcher while the ranks are inside malloc (mallocspin.c under malloc_guard.so, which
# makes every allocation slow and reports an allocation from a handler that interrupted one —
# on real runs that deadlocks on glibc's arena lock and hangs the job for good).
# Repeated TRIALS times (default 8; the guard makes "inside malloc" the common case, so code that
# allocates in its handler fails nearly every trial): the job must end within 15 s of the signal
# (its exit status is not checked: MPICH 4.0's hydra itself returns 0 or 15 after SIGTERM, shim or not), no
# handler may allocate, and every rank's dump must be in
# DIR/partial. The first trial's dumps are recovered: an archive marked incomplete that
# otf2-print accepts, with every rank's MPI_Allreduce calls.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c mallocspin "$MPI_DIR/mallocspin.c")
guard=$ST_BUILD/malloc_guard.so
if [ ! -f "$guard" ] || [ "$MPI_DIR/malloc_guard.c" -nt "$guard" ]; then
    gcc -shared -fPIC -O1 -Wall -Wextra -Werror -o "$guard" "$MPI_DIR/malloc_guard.c" -ldl || fail "cannot build malloc_guard.so"
fi
np=2
job=
trap '[ -z "$job" ] || kill -KILL $job 2>/dev/null || true' EXIT
for trial in $(seq "${TRIALS:-8}"); do
    TRACE=$ST_TMP/trace$trial
    rm -f "$ST_TMP/out.txt" "$ST_TMP/guard.log"
    : >"$ST_TMP/out.txt"
    mpi_cmd -e MALLOC_GUARD_LOG="$ST_TMP/guard.log" -e SYNCTRACE_DIR="$TRACE" -e LD_PRELOAD="$guard:$ST_LIB" \
        -n $np "$bin" 60
    "${MPI_CMD[@]}" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
    job=$!
    for _ in $(seq 600); do
        grep -q running "$ST_TMP/out.txt" && break
        kill -0 $job 2>/dev/null || fail "trial $trial: the job ended before it was signalled: $(tail -n 3 "$ST_TMP/err.txt")"
        sleep 0.05
    done
    grep -q running "$ST_TMP/out.txt" || fail "trial $trial: the job did not start within 30 s"
    sleep "0.$((RANDOM % 4))"
    start=$(date +%s%N)
    kill -TERM $job
    for _ in $(seq 150); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
    kill -0 $job 2>/dev/null && fail "trial $trial: the job still runs 15 s after SIGTERM (a handler hangs)"
    rc=0
    wait $job || rc=$?
    job=
    ms=$((($(date +%s%N) - start) / 1000000))
    [ ! -s "$ST_TMP/guard.log" ] || fail "trial $trial: $(head -n 1 "$ST_TMP/guard.log")"
    for r in $(seq 0 $((np - 1))); do
        [ -f "$TRACE/partial/rank-$r.strd" ] || fail "trial $trial: no dump of rank $r: $(ls "$TRACE/partial" 2>&1 | tr '\n' ' ') $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    done
    note "trial $trial: ended ${ms} ms after SIGTERM (exit $rc), dumps of all $np ranks"
done
trap - EXIT
st recover "$ST_TMP/trace1" >"$ST_TMP/recover.txt" 2>&1 || fail "synctrace recover failed: $(head -c 300 "$ST_TMP/recover.txt")"
info_incomplete "$ST_TMP/trace1"
otf2_ok "$ST_TMP/trace1"
ranks=$(st dump --json "$ST_TMP/trace1" | python3 -c 'import sys, json; print(" ".join(map(str, sorted({json.loads(l)["rank"] for l in sys.stdin if "MPI_Allreduce" in l}))))')
assert_eq "ranks with MPI_Allreduce in the recovered archive" "0 1" "$ranks"
