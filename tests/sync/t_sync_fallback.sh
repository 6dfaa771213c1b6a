#!/usr/bin/env bash
# ClockPropSync checks that a node's ranks share a time source before it copies the
# leader's clock. With the skew library giving every rank its own clock (SKEW_PER_RANK=1)
# the check must fail, the level falls back to HCA3 with a warning, and the clocks are
# still synchronized. With shared clocks there is no warning.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
check() {
    sync_run 4 2 SKEW_PER_RANK=1 -- -r 0
    grep -q "do not share a time source.*hca3 instead of prop" "$ST_TMP/sync.err" ||
        fail "no fallback warning: $(head -c 300 "$ST_TMP/sync.err")"
    assert_le "error right after sync with per-rank clocks (ns)" 3000 "$(val err_after_sync)"
    assert_le "error at finalize with per-rank clocks (ns)" 3000 "$(val err_final)"
}
twice check
sync_run 4 2 -- -r 0
! grep -q "do not share a time source" "$ST_TMP/sync.err" || fail "fallback although the clocks are shared"
