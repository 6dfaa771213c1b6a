#!/usr/bin/env bash
# A TSC that jumps against the system clock during a run is named, not silently believed. A virtual
# machine restored from a snapshot or moved to another host keeps CLOCK_MONOTONIC but not its TSC;
# the calibration points then disagree by more than the conversion's rate error (1 ms + 100 ppm of
# the time between them), and event times after the jump are wrong. Made here with the clock-skew
# library: the system clock (as the processes read it) gains 10 % from 0.3 s on (SKEW_STEP_PPM=100000),
# which to the tool looks like the TSC falling behind by tens of ms; no offset, drift or wander before
# the step, so the node's shared conversion (/dev/shm) is measured right and other runs keep it.
# With the step: one line on stderr naming the jump and SYNCTRACE_TIMER=clock, the archive's
# TIMER_TSC_JUMP_NS, 'synctrace info' says it, and the program's exit code is its own; without the step
# none of them.
source "$ST_ROOT/tests/lib.sh"
[ -f "$ST_LIB" ] && [ -x "$ST_BIN/synctrace" ] || skip "no $ST_LIB or $ST_BIN/synctrace: build first (make all)"
grep -q '^flags.* constant_tsc.* nonstop_tsc' /proc/cpuinfo || skip "no invariant TSC (constant_tsc, nonstop_tsc)"
source "$ST_ROOT/tests/skew/skew-env.sh"
SKEW_LIB=$(skew_build "$ST_BUILD") || fail "cannot build the clock-skew library"
bin=$(build_mpi_c sync_early_prog "$ST_ROOT/tests/sync/early_prog.c" -ldl)

# run NAME [VAR=VALUE...]: 2 ranks of early_prog for 1.2 s on the TSC under the skew library
run() {
    local name=$1
    shift
    ST_PRELOAD_FIRST=$SKEW_LIB ST_ENV="SYNCTRACE_TIMER=tsc SKEW_T0_NS=$(skew_t0) SKEW_NODE_SIZE=2 SKEW_OFFSET_NS=0
        SKEW_DRIFT_PPM=0 SKEW_WANDER_NS=0 $*" run_traced "$ST_TMP/$name" 2 "$bin" 1.2 "$ST_TMP/win.$name" ||
        fail "$name: traced run failed: $(tail -n 5 "$ST_TMP/err.txt")"
    cp "$ST_TMP/err.txt" "$ST_TMP/err.$name.txt"
    st info "$ST_TMP/$name" >"$ST_TMP/info.$name.txt" || fail "$name: synctrace info failed"
    grep -q 'stamped by     tsc' "$ST_TMP/info.$name.txt" || fail "$name: not stamped by the TSC"
}

run jump SKEW_STEP_AT_S=0.3 SKEW_STEP_PPM=100000
grep -q 'the TSC jumped by .* SYNCTRACE_TIMER=clock' "$ST_TMP/err.jump.txt" ||
    fail "no warning of the jump on stderr: $(grep -i tsc "$ST_TMP/err.jump.txt" | head -3)"
note "$(grep -m1 'the TSC jumped' "$ST_TMP/err.jump.txt")"
grep -Eq 'SYNCTRACE::TIMER_TSC_JUMP_NS +-?[1-9]' "$ST_TMP/info.jump.txt" || fail "no TIMER_TSC_JUMP_NS in the archive"
grep -q 'TSC jump .* jumped by' "$ST_TMP/info.jump.txt" || fail "'synctrace info' does not name the jump"

run steady
grep -q 'the TSC jumped' "$ST_TMP/err.steady.txt" && fail "a jump named without one: $(grep 'the TSC jumped' "$ST_TMP/err.steady.txt")"
grep -q 'TIMER_TSC_JUMP_NS\|TSC jump' "$ST_TMP/info.steady.txt" && fail "'synctrace info' names a jump without one"
exit 0
