#!/usr/bin/env bash
# SIGTERM to a running traced job (spin.c under plain mpiexec, which forwards the signal to the
# ranks): the job ends promptly; after `synctrace recover DIR` (if needed) there is an archive
# otf2-print accepts, marked incomplete by `synctrace info`, in which every rank present has at
# least the 50 ring rounds it had done when rank 0 printed "running". Every rank must be there:
# hydra kills the remaining ranks (SIGKILL) as soon as the first one has died of the signal,
# so each rank waits for the others' dumps (while they make progress) before it lets the signal end it.
# ST_SIGTERM_ALL=0 relaxes the check to "the ranks present are right".
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c spin "$MPI_DIR/spin.c")
TRACE=$ST_TMP/trace
mpiexec -n "$ST_NP" -genv SYNCTRACE_DIR "$TRACE" -genv LD_PRELOAD "$ST_LIB" "$bin" 60 \
    >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" &
job=$!
trap 'kill -KILL $job 2>/dev/null || true' EXIT
for _ in $(seq 600); do
    grep -q running "$ST_TMP/out.txt" 2>/dev/null && break
    kill -0 $job 2>/dev/null || fail "the traced job ended before it was signalled: $(tail -n 5 "$ST_TMP/err.txt")"
    sleep 0.1
done
grep -q running "$ST_TMP/out.txt" || fail "the traced job did not start within 60 s: $(tail -n 5 "$ST_TMP/err.txt")"
sleep 0.5
start=$(date +%s)
kill -TERM $job
rc=0
for _ in $(seq 300); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
kill -0 $job 2>/dev/null && fail "the job is still running 30 s after SIGTERM"
wait $job || rc=$?
trap - EXIT
[ "$rc" -ne 0 ] || fail "the job exited 0 after SIGTERM"
grep -q finished "$ST_TMP/out.txt" && fail "the job finished normally: SIGTERM was not delivered"
note "job ended $(( $(date +%s) - start )) s after SIGTERM with exit code $rc"
recover_if_needed "$TRACE"
info_incomplete "$TRACE"
otf2_ok "$TRACE"
dump_json "$TRACE" "$ST_TMP/sigterm.json"
mode=present
[ "${ST_SIGTERM_ALL:-1}" = 1 ] && mode=atleast
tracecheck ring "$ST_TMP/sigterm.json" "$ST_NP" 50 $mode >"$ST_TMP/ring.txt" ||
    fail "ring events after SIGTERM: $(tr '\n' '|' <"$ST_TMP/ring.txt")"
note "$(tr '\n' '|' <"$ST_TMP/ring.txt")"
