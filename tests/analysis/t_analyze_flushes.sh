#!/usr/bin/env bash
# families: mpich openmpi
# Buffer flushes in a hybrid run (tests/analysis/flushes.c, 2 ranks x 2 threads, the smallest
# SYNCTRACE_BUFFER): every thread flushes many times, masters between a fork and its team, between a
# team's end and its join, inside MPI calls. The traced run's trace check (SYNCTRACE_CHECK) finds no
# problem and its analysis keeps its metric tree (SYNCTRACE_ANALYZE_CHECK, tests/lib.sh), as do
# `synctrace check`, `synctrace analyze` and the parallel `synctrace analyze` (the same report); the
# masters' Time at <root> is their time outside every region and every fork / join interval, from
# the events (flushcheck.py: a flush in such an interval is Overhead once, not also taken off <root>).
# A thread waits for the disk (a flush region) only when the writer thread falls behind: spill writes
# are slowed to 60 ms each (tests/mpi/slow_spill.c, preloaded first) so that it does, at every buffer.
source "$ST_ROOT/tests/lib.sh"
command -v clang >/dev/null || skip "clang not installed"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
BIN=$(build_mpi_omp flushes "$ST_ROOT/tests/analysis/flushes.c") || exit 1
slow=$(build_slow_spill) || exit 1
D=$ST_TMP/f
ST_PRELOAD_FIRST=$slow ST_ENV="OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 SYNCTRACE_BUFFER=64k SYNCTRACE_CHECK=1 SLOW_SPILL_MS=60" \
    run_traced "$D" 2 "$BIN" 60 \
    || fail "traced run failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q "trace check" "$ST_TMP/err.txt" && fail "trace check reported problems: $(grep 'trace check' "$ST_TMP/err.txt" | head -n 3)"
st info "$D" >"$ST_TMP/info.txt" || fail "synctrace info failed"
problems=$(awk '$1 == "SYNCTRACE::TRACE_CHECK_PROBLEMS" {print $2}' "$ST_TMP/info.txt")
assert_eq "SYNCTRACE::TRACE_CHECK_PROBLEMS" 0 "$problems"
flushes=$(awk '/^buffer flushes:/ {print $3}' "$ST_TMP/info.txt")
assert_ge "buffer flushes" 8 "${flushes:-0}"
st check "$D" >"$ST_TMP/check.txt" 2>&1 || fail "synctrace check: $(tail -n 3 "$ST_TMP/check.txt")"
st analyze "$D" -o "$ST_TMP/serial.json" >"$ST_TMP/analyze.txt" 2>&1 \
    || fail "synctrace analyze: $(grep -m1 -i 'error' "$ST_TMP/analyze.txt" || tail -n 3 "$ST_TMP/analyze.txt")"
same_in_parallel "parallel analysis" "$D" "$ST_TMP/serial.json" "$ST_TMP/par.json"
st dump --json "$D" >"$ST_TMP/dump.json" || fail "synctrace dump failed"
python3 "$ST_ROOT/tests/analysis/flushcheck.py" "$ST_TMP/serial.json" "$ST_TMP/dump.json" >&2 \
    || fail "flushes: the masters' time or the flushes' places (above)"
note "$flushes buffer flushes, metric tree and trace invariants hold"
