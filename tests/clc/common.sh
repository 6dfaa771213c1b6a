# tests/clc/common.sh — helpers of the CLC integration tests, sourced after tests/lib.sh.
#
# Runs use SYNCTRACE_SYNC=none under the clock-skew library (tests/skew): every rank gets
# its own clock, offset by up to SKEW_OFFSET_NS, so messages and collectives certainly
# look reversed before the correction. The seed is fixed: the offsets are the same in
# every run (seed 9, 4 ranks: offsets -2.77, 1.64, 0.22, -0.54 ms; no two within 0.7 ms, not
# ordered by rank).

CLC_DIR=$ST_ROOT/tests/clc
# shellcheck source=../skew/skew-env.sh
. "$ST_ROOT/tests/skew/skew-env.sh"
SKEW_LIB=$(skew_build "$ST_BUILD") || fail "cannot build the clock-skew library"
export KMP_BLOCKTIME=0
CLC_SKEW="SYNCTRACE_SYNC=none SKEW_PER_RANK=1 SKEW_SEED=9 SKEW_OFFSET_NS=3000000 SKEW_T0_NS=$(skew_t0) KMP_BLOCKTIME=0"

clccheck() { python3 "$CLC_DIR/clccheck.py" "$@"; }

need_tools() {
    [ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first (make all)"
    [ -f "$ST_LIB" ] || fail "no $ST_LIB: build first (make all)"
}

# run_skewed DIR NP PROG [ARGS]: traced run under the skew library; extra env in CLC_ENV.
run_skewed() {
    local dir=$1 np=$2 rc=0
    shift 2
    ST_PRELOAD_FIRST=$SKEW_LIB ST_ENV="$CLC_SKEW ${CLC_ENV:-}" run_traced "$dir" "$np" "$@" || rc=$?
    [ "$rc" -eq 0 ] || fail "$(basename "$1") exited $rc: $(tail -n 5 "$ST_TMP/err.txt")"
    [ -f "$dir/traces.otf2" ] || fail "no archive in $dir: $(tail -n 5 "$ST_TMP/err.txt")"
}

# violations DIR [--raw]: sets V_TOTAL V_P2P V_COLL V_OMP from `synctrace check`.
violations() {
    local out=$ST_TMP/check.txt
    st check "$@" >"$out" 2>&1 || true
    V_TOTAL=$(sed -nE 's/^violations: ([0-9]+)$/\1/p' "$out")
    V_P2P=$(sed -nE 's/^  p2p: ([0-9]+)$/\1/p' "$out")
    V_COLL=$(sed -nE 's/^  collective: ([0-9]+)$/\1/p' "$out")
    V_OMP=$(awk '/^  omp_/ {n += $2} END {print n + 0}' "$out")
    [ -n "$V_TOTAL" ] && [ -n "$V_P2P" ] && [ -n "$V_COLL" ] || fail "synctrace check $*: unexpected output: $(head -c 300 "$out")"
}

# prop DIR NAME: value of archive property SYNCTRACE::NAME ("" if absent).
prop() { st info "$1" | awk -v k="SYNCTRACE::$2" '$1 == k {print $2}'; }

# dump_json DIR OUT
dump_json() {
    st dump --json "$1" >"$2" 2>"$ST_TMP/dump-err.txt" || fail "synctrace dump --json $1 failed: $(head -c 300 "$ST_TMP/dump-err.txt")"
}

# corrected_ok DIR: no violation left, local order kept, events only moved forward, the
# statistics say nothing remains, interval deviations bounded.
corrected_ok() {
    local dir=$1 k
    violations "$dir" -v
    [ "$V_TOTAL" = 0 ] || fail "$V_TOTAL violations left after the correction: $(grep -A8 '^first' "$ST_TMP/check.txt" | tr '\n' '|')"
    dump_json "$dir" "$ST_TMP/corrected.json"
    clccheck order "$ST_TMP/corrected.json" >"$ST_TMP/order.txt" || fail "order: $(tr '\n' '|' <"$ST_TMP/order.txt")"
    note "$(basename "$dir"): $(cat "$ST_TMP/order.txt")"
    for k in P2P COLL OMP; do
        assert_eq "CLC_REMAINING_$k" 0 "$(prop "$dir" "CLC_REMAINING_$k")"
    done
    assert_eq "CLC_UNRESOLVED" 0 "$(prop "$dir" CLC_UNRESOLVED)"
    # Interval deviations (seed 000, Fig. 6): most local intervals keep their length.
    # The amortization spreads a jump over dt/SYNCTRACE_CLC_AMORT: those intervals deviate by
    # about the rate; an interval cut short by the location's start deviates more.
    local exact le1 le10 gt100
    exact=$(prop "$dir" CLC_INTERVAL_DEV_PCT_EXACT)
    le1=$(prop "$dir" CLC_INTERVAL_DEV_PCT_LE1PCT)
    le10=$(prop "$dir" CLC_INTERVAL_DEV_PCT_LE10PCT)
    gt100=$(prop "$dir" CLC_INTERVAL_DEV_PCT_GT100PCT)
    assert_ge "interval time within 10% of the original (%)" 90 "$(awk -v a="$exact" -v b="$le1" -v c="$le10" 'BEGIN{print a+b+c}')"
    assert_le "interval time deviating by more than 100% (%)" 2 "$gt100"
    note "intervals: exact $exact%, <=1% $le1%, <=10% $le10%, >100% $gt100%; moved $(prop "$dir" CLC_MOVED) of $(prop "$dir" CLC_EVENTS), max shift $(prop "$dir" CLC_SHIFT_MAX_NS) ns"
}
