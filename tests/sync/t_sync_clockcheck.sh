#!/usr/bin/env bash
# SYNCTRACE_CLOCKCHECK=W runs the paper's Check-Global-Clock (Alg. 6) right after the
# initial sync, W s later and at finalize: rank 0 prints each, small after a sync and
# huge without one; the results are archive properties.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
check() {
    sync_run 4 2 SYNCTRACE_CLOCKCHECK=0.5 SYNC_PROG_PROPS=0 -- -r 0
    n=$(grep -c "clock check" "$ST_TMP/sync.err" || true)
    [ "$n" -eq 3 ] || fail "expected 3 clock check lines from rank 0, got $n: $(head -c 300 "$ST_TMP/sync.err")"
    grep -q "clock check 0 s after" "$ST_TMP/sync.err" || fail "no check right after the sync"
    grep -q "clock check 0.5 s after" "$ST_TMP/sync.err" || fail "no check 0.5 s later"
    for v in $(grep "clock check" "$ST_TMP/sync.err" | sed 's/.*= \([0-9]*\) ns.*/\1/'); do
        assert_le "clock check max offset (ns)" 5000 "$v"
    done
    grep -q "PROP sync.check.0 = after_s=0.000 max_offset_ns=" "$ST_TMP/sync.out" || fail "check not in the properties"
}
twice check
sync_run 4 2 SYNCTRACE_SYNC=none SYNCTRACE_CLOCKCHECK=0.1 -- -r 0
v=$(grep "clock check 0 s" "$ST_TMP/sync.err" | sed 's/.*= \([0-9]*\) ns.*/\1/')
assert_ge "clock check without sync (ns)" 100000 "$v"
