#!/usr/bin/env bash
# The OpenMP metrics on programs with injected waits (ompwaits.c): an OpenMP program (clang,
# 4 threads) and the same phases in a hybrid run (2 ranks x 3 threads). One thread sleeps
# before an explicit barrier (omp_ebarrier_wait), before the end of a parallel region
# (omp_ibarrier_wait), while holding a critical section (omp_lock_contention_critical) and
# an omp_lock (omp_lock_contention_api); serial time between parallel regions
# (omp_idle_threads); a region of 2 threads (omp_limited_parallelism). ompcheck_waits.py
# checks each at the call path of its construct against the injected sizes and the
# program's clock readings, and that every thread's time adds up to its master's; the
# CUBE4 report holds the JSON's values.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools
check="$ST_ROOT/tests/analysis/ompcheck_waits.py"
src="$ST_ROOT/tests/analysis/ompwaits.c"

bin=$(build_omp ompwaits clang "$src")
OMP_NUM_THREADS=4 SYNCTRACE_DIR=$ST_TMP/omp LD_PRELOAD=$ST_LIB timeout -k 10 120 "$bin" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
    fail "ompwaits failed: $(tail -n 5 "$ST_TMP/err.txt")"
st analyze "$ST_TMP/omp" >"$ST_TMP/summary.txt" || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
python3 "$check" "$ST_TMP/omp/analysis.json" "$ST_TMP/out.txt" >&2 || fail "OpenMP metrics (4 threads) off"
python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/omp/analysis.json" tree >&2 || fail "metric tree inconsistent (omp)"
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/omp/analysis.cubex" "$ST_TMP/omp/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json"
grep -Eq '^        Critical +0\.[0-9]+ s .*omp_critical$' "$ST_TMP/summary.txt" \
    || fail "summary without Execution / OpenMP / Synchronization / Critical: $(head -20 "$ST_TMP/summary.txt")"

hbin=$(build_mpi_omp ompwaits_mpi "$src" -DWITH_MPI) || exit 1
ST_ENV="OMP_NUM_THREADS=3 KMP_BLOCKTIME=0" run_traced "$ST_TMP/hyb" 2 "$hbin" \
    || fail "hybrid ompwaits failed: $(tail -n 5 "$ST_TMP/err.txt")"
st analyze "$ST_TMP/hyb" >"$ST_TMP/summary.txt" || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
python3 "$check" "$ST_TMP/hyb/analysis.json" "$ST_TMP/out.txt" >&2 || fail "OpenMP metrics (2 ranks x 3 threads) off"
python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/hyb/analysis.json" tree >&2 || fail "metric tree inconsistent (hyb)"
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/hyb/analysis.cubex" "$ST_TMP/hyb/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json (hybrid)"
