#!/usr/bin/env bash
# Default scheme (H2HCA: HCA3 across node leaders, ClockPropSync inside nodes) on 8
# ranks in 4 simulated nodes with ±1 s offsets, ±100 ppm drift and wander: the initial
# sync is quick and accurate, a run with periodic resync stays accurate, and the
# finalize re-mapping (interpolation) is at least as good. Events before MPI_Init are
# mapped onto the global clock too, and re-mapped time never decreases (sync_prog
# checks that and reports 1e18 otherwise). Those events lie 1-3 s before the initial
# sync point when 8 ranks start on 2 loaded cores; extrapolated with the initial fit's
# drift (up to 80 ppm off then) they were 46-143 us off, along the line to a later sync
# point (clock model) their error is the initial point's plus a few us (SYNC_PROG_DEBUG=1
# prints it per rank).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
check() {
    sync_run 8 4 SYNCTRACE_RESYNC=1 -- -r 4 -i 20
    assert_eq "init failed" 0 "$(val init_failed)"
    assert_le "initial sync duration (s)" 1.0 "$(val init_s)"
    assert_le "error right after sync (ns)" 3000 "$(val err_after_sync)"
    assert_le "error with interpolation (ns)" 3000 "$(val err_interp)"
    assert_le "error of the run, online (ns)" 20000 "$(val err_online)"
    assert_le "error including events before MPI_Init (ns)" 20000 "$(val err_with_preinit)"
    assert_ge "resyncs" 1 "$(val resyncs)"
}
twice check
# Without sync the same clocks are up to a second apart: the test can tell.
sync_run 4 2 SYNCTRACE_SYNC=none -- -r 0
assert_ge "error without sync (ns)" 1000000 "$(val err_after_sync)"
