#!/usr/bin/env bash
# Every recorded time within 1 µs of the truth over the whole run, the first second
# after MPI_Init included: early_prog brackets traced MPI_Get_version calls with the
# true time (dense in the first second, sparse later) under the clock-skew library
# (8 ranks in 4 simulated nodes, 20 ms offsets, 50 ppm drift, 5 µs wander), and every
# ENTER/LEAVE in the archive must lie within 1 µs of its window on the global clock,
# with the defaults, for several seeds. The initial sync point used to be the 30 ms
# drift fit extrapolated over the rest of the initial sync: in some runs the first
# half second was 1.5-6 µs off (the test then fails; how often depends on the load).
# The simulated nodes are bound to CPUs as a cluster's nodes would be (SKEW_BIND=1, tests/skew/skew.c).
# Unbound, the scheduler kept a measuring pair of "nodes" on one of the 2 CPUs for tens of ms: every
# ping-pong then took two context switches (round trips of 10.5 µs against 2.2; honest bounds 5-12 µs
# wide) and offsets came out 1.3-3.5 µs off. Seed 8 failed so in CI on 1af40e0 (both attempts) and in 2 of
# 14 runs here, seed 9 in 1 of 3; bound, none of 23 runs of seeds 1-12 exceeded 0.45 µs (docs/clock-sync.md).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
[ -f "$ST_LIB" ] && [ -x "$ST_BIN/synctrace" ] || skip "no $ST_LIB or $ST_BIN/synctrace: build first (make all)"
bin=$(build_mpi_c sync_early_prog "$ST_ROOT/tests/sync/early_prog.c" -ldl)

# run SEED SECONDS [VAR=VALUE ...]: one traced run, checked against the true windows.
run() {
    local seed=$1 secs=$2 t0
    shift 2
    rm -rf "$ST_TMP/trace" "$ST_TMP"/win.*
    t0=$(skew_t0)
    ST_PRELOAD_FIRST=$SKEW_LIB ST_ENV="SKEW_NODE_SIZE=2 SKEW_BIND=1 SKEW_T0_NS=$t0 SKEW_SEED=$seed SKEW_OFFSET_NS=2e7
        SKEW_DRIFT_PPM=50 SKEW_WANDER_NS=5000 SYNCTRACE_NODE_SIZE=2 $*" \
        run_traced "$ST_TMP/trace" 8 "$bin" "$secs" "$ST_TMP/win" || fail "traced run failed: $(tail -n 5 "$ST_TMP/err.txt")"
    local off
    off=$(st info "$ST_TMP/trace" | sed -n 's/.*global offset \([0-9]*\).*/\1/p')
    [ -n "$off" ] || fail "no global offset in 'synctrace info'"
    st dump --json "$ST_TMP/trace" >"$ST_TMP/dump.json" || fail "synctrace dump failed"
    note "seed $seed $*:"
    python3 "$ST_ROOT/tests/sync/true_windows.py" "$ST_TMP/dump.json" "$off" "$ST_TMP/win" 8 MPI_Get_version 1000 \
        >/dev/null || fail "seed $seed $*: recorded times more than 1 µs off the truth"
    # The error bound recorded with every sync point (err_ns) must hold against the truth.
    local points
    points=$(SKEW_T0_NS=$t0 SKEW_SEED=$seed SKEW_OFFSET_NS=2e7 SKEW_DRIFT_PPM=50 SKEW_WANDER_NS=5000 \
        python3 "$ST_ROOT/tests/sync/sync_points.py" "$SKEW_LIB" "$ST_TMP/trace" 2 2>"$ST_TMP/bound.txt") ||
        fail "sync_points.py failed"
    note "sync points: $points"
    case $points in
    *outside_bound=0) ;;
    *) fail "seed $seed: sync points outside their recorded error bound: $(head -n 3 "$ST_TMP/bound.txt")" ;;
    esac
}

for seed in 6 8 9; do
    twice run $seed 2.5
done
