# tests/sync/common.sh — helpers of the clock-sync tests, sourced after tests/lib.sh.
#
# The tests drive src/clock directly through sync_prog (no shim needed) under the
# clock-skew library, so every error is measured against ground truth. sync_prog
# prints "RESULT key=value ..." on rank 0 (all errors in ns, maxima over ranks):
#   err_after_sync  global clock right after the initial sync
#   err_online      timestamps of the run as recorded (current map, periodic resync)
#   err_interp      the same after the finalize re-mapping with interpolation
#   err_remap       ... re-mapped without interpolation (only pre-MPI_Init events move)
#   err_noresync(_interp)  what the run would have had without periodic resync
#   points_outside  measured sync points further from the truth than their recorded bound (err_ns) + 200
#   point_err       the largest sync point error
source "$ST_ROOT/tests/skew/skew-env.sh"
source "$ST_ROOT/tests/sync/build.sh"

SKEW_LIB=$(skew_build "$ST_BUILD") || fail "cannot build the clock-skew library"
SYNC_PROG=$(sync_build "$ST_BUILD" "$MPI_CC") || fail "cannot build sync_prog"

# sync_run NP NODES [VAR=VALUE ...] -- [sync_prog args]: stdout in $ST_TMP/sync.out,
# stderr in $ST_TMP/sync.err; sets RESULT to the RESULT line (fails without one).
sync_run() {
    local np=$1 nodes=$2
    shift 2
    local per=$((np / nodes)) envargs=() kv
    envargs=(-e LD_PRELOAD="$SKEW_LIB" -e SKEW_NODE_SIZE="$per" -e SKEW_T0_NS="$(skew_t0)"
             -e SYNCTRACE_NODE_SIZE="$per")
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        kv=$1
        envargs+=(-e "$kv")
        shift
    done
    [ "${1:-}" = "--" ] && shift
    mpi_run -t "${ST_TIMEOUT:-120}" "${envargs[@]}" -n "$np" "$SYNC_PROG" "$@" \
        >"$ST_TMP/sync.out" 2>"$ST_TMP/sync.err" || fail "sync_prog failed: $(tail -n 5 "$ST_TMP/sync.err")"
    RESULT=$(grep '^RESULT' "$ST_TMP/sync.out") || fail "no RESULT line: $(tail -n 5 "$ST_TMP/sync.err")"
    note "$RESULT"
}

# val KEY: a value of the last RESULT line.
val() { echo "$RESULT" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# twice FUNC: runs FUNC in a subshell and, if it fails, once more. Accuracy depends on
# how the 2 cores are shared at that moment (another job's burst can spoil a sync);
# a real defect fails both times.
twice() {
    ( "$@" ) && return 0
    note "first attempt failed; retrying once (timing-sensitive)"
    "$@"
}
