#!/usr/bin/env bash
# Periodic resync inside collectives on MPI_COMM_WORLD: every rank takes the same
# decisions (the run would hang or mismatch otherwise), SYNCTRACE_RESYNC=0 disables
# it, and with an abrupt drift change of 2 ppm mid-run the resynced and interpolated
# timestamps stay close to the truth while the initial model alone drifts away.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
sync_run 4 2 SYNCTRACE_RESYNC=0 -- -r 1 -i 20
assert_eq "resyncs with SYNCTRACE_RESYNC=0" 0 "$(val resyncs)"
check() {
    sync_run 6 3 SYNCTRACE_RESYNC=1 SKEW_STEP_AT_S=3 SKEW_STEP_PPM=2 SKEW_WANDER_NS=0 -- -r 7 -i 20
    assert_ge "resyncs" 3 "$(val resyncs)"
    assert_le "error with resync, interpolated (ns)" 4000 "$(val err_interp)"
    assert_le "error with resync, online (ns)" 15000 "$(val err_online)"
    assert_ge "error of the initial model alone (ns)" "$(val err_interp)" "$(val err_noresync)"
}
twice check
