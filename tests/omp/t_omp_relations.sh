#!/usr/bin/env bash
# OpenMP relations in the raw trace, with buffer flushes: relations.c repeats the constructs
# of constructs.c (parallel regions, barriers, critical, locks, tasks, ordered, nested
# teams) OpenMP-only and hybrid (every thread calls MPI), with SYNCTRACE_BUFFER=64k (every
# thread waits for the disk at least 4 times, at whatever callback fills its buffer) and with the
# default buffer. On one node every thread reads the same clock, so no OpenMP relation
# may be reversed before CLC (`synctrace check --raw`: fork, join, barrier, lock) and CLC
# must move no event (SYNCTRACE_CLC_MU=1: 1 ns of MPI latency, so the MPI side moves
# nothing either). Repeated runs, because what breaks a relation is a race (a flush or a
# late callback landing between two threads' stamps: a worker's team end, a lock release
# reported after the lock is free); the flushes must stay visible. A thread waits for the disk (a
# flush region) only when the writer thread falls behind: with 64k buffers the spill writes are
# slowed to 150 ms each (tests/mpi/slow_spill.c, preloaded first) so that it does. 20 ms was not
# enough on a loaded machine: the threads, slowed too, filled no second buffer within a write.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools

omp_bin=$(build_omp omp-relations clang "$OMP_DIR/relations.c" "$OMP_DIR/constructs.c")
hyb_bin=$(build_omp omp-relations-hybrid "mpi_cc_clang -DST_RELATIONS_MPI" "$OMP_DIR/relations.c" "$OMP_DIR/constructs.c")

# check_run NAME DIR MIN_FLUSHES: no reversed OpenMP relation raw, nothing moved by CLC.
check_run() {
    local name=$1 dir=$2 min_flushes=$3 raw info
    [ -f "$dir/traces.otf2" ] || fail "$name: no archive; stderr: $(tail -n 3 "$ST_TMP/err.txt")"
    raw=$(st check --raw "$dir" 2>&1) || true
    bad=$(awk '$1 ~ /^omp_[a-z]+:$/ && $2 != 0' <<<"$raw")
    # (the examples `check -v` lists after "first violations:", and the run's own OpenMP notes:
    # lost regions, lock events without acquisition order)
    [ -z "$bad" ] || fail "$name: reversed OpenMP relations in the raw trace: $(tr '\n' ' ' <<<"$bad")" \
        "$(st check --raw -v "$dir" 2>&1 | sed -n '/^first violations:/,$p' | head -n 4 | tr '\n' '|')" \
        "$(grep -m 2 'OpenMP' "$ST_TMP/err.txt" | tr '\n' '|')"
    info=$(st info "$dir")
    prop() { awk -v k="SYNCTRACE::$1" '$1 == k {print $2}' <<<"$info"; }
    flushes=$(awk '/^buffer flushes:/ {print $3}' <<<"$info")
    assert_ge "$name: buffer flushes (TRACE BUFFER FLUSH regions)" "$min_flushes" "$flushes"
    assert_ge "$name: OpenMP relations CLC checked" 100 "$(prop CLC_MESSAGES_OMP)"
    assert_eq "$name: OpenMP relations reversed before CLC" 0 "$(prop CLC_REVERSED_OMP)"
    assert_eq "$name: events moved by CLC" 0 "$(prop CLC_MOVED)"
    note "$name: $(grep -m1 '^openmp:' <<<"$raw"), $flushes flushes, 0 reversed, 0 moved"
}

export SYNCTRACE_CLC_MU=1
slow=$(build_slow_spill) || exit 1
for i in 1 2 3 4 5; do
    SYNCTRACE_BUFFER=64k SLOW_SPILL_MS=150 SYNCTRACE_DIR=$ST_TMP/omp64k-$i LD_PRELOAD=$slow:$ST_LIB timeout -k 10 120 "$omp_bin" -t 3 -r 30 \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || fail "relations (OpenMP, 64k) failed: $(tail -n 3 "$ST_TMP/err.txt")"
    check_run "OpenMP-only 3 threads, 64k buffer, run $i" "$ST_TMP/omp64k-$i" 4
done
SYNCTRACE_DIR=$ST_TMP/omp LD_PRELOAD=$ST_LIB timeout -k 10 120 "$omp_bin" -t 3 -r 30 >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
    fail "relations (OpenMP) failed: $(tail -n 3 "$ST_TMP/err.txt")"
check_run "OpenMP-only 3 threads, default buffer" "$ST_TMP/omp" 0
# Spinning waiters (KMP_BLOCKTIME=200 ms): the next owner takes a lock within the time
# the runtime needs to report its release (reported after the lock is free).
for i in 1 2 3 4 5 6; do
    KMP_BLOCKTIME=200 SYNCTRACE_DIR=$ST_TMP/spin-$i LD_PRELOAD=$ST_LIB timeout -k 10 120 "$omp_bin" -t 2 -r 20 \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || fail "relations (OpenMP, spinning) failed: $(tail -n 3 "$ST_TMP/err.txt")"
    check_run "OpenMP-only 2 spinning threads, run $i" "$ST_TMP/spin-$i" 0
done

ST_ENV="SYNCTRACE_CLC_MU=1 SYNCTRACE_BUFFER=64k SLOW_SPILL_MS=150"
for i in 1 2 3; do
    ST_PRELOAD_FIRST=$slow ST_TIMEOUT=120 run_traced "$ST_TMP/hyb64k-$i" 2 "$hyb_bin" -t 2 -r 20 ||
        fail "relations (hybrid, 64k) failed: $(tail -n 3 "$ST_TMP/err.txt")"
    check_run "hybrid 2 ranks x 2 threads, 64k buffer, run $i" "$ST_TMP/hyb64k-$i" 4
done
ST_ENV="SYNCTRACE_CLC_MU=1"
for i in 1 2; do
    ST_TIMEOUT=120 run_traced "$ST_TMP/hyb-$i" 4 "$hyb_bin" -t 2 -r 10 ||
        fail "relations (hybrid) failed: $(tail -n 3 "$ST_TMP/err.txt")"
    check_run "hybrid 4 ranks x 2 threads, default buffer, run $i" "$ST_TMP/hyb-$i" 0
done
