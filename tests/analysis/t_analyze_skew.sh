#!/usr/bin/env bash
# The point of CLC for the analysis: waits.c (and icoll.c: nonblocking collectives) under the clock-skew library with
# SYNCTRACE_SYNC=none (every rank's clock off by up to 3 ms, tests/clc/common.sh) and CLC on.
# The raw timestamps reverse messages (check --raw finds violations); after CLC the
# analysis sees none, and every wait matches what the program's true-time readings imply
# (skew.h ground truth) within 10 % + 4 ms: the offsets CLC leaves where no message is
# reversed are below 3 ms.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/clc/common.sh"
need_tools
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
run_skewed "$ST_TMP/run" 4 "$bin"
grep -q '^mark recv 0 ' "$ST_TMP/out.txt" || fail "no marks in the program's output"
rc=0; st check --raw "$ST_TMP/run" >"$ST_TMP/raw.txt" || rc=$?
assert_eq "check --raw finds reversed relations under the skew" 1 "$rc"
st analyze "$ST_TMP/run" >"$ST_TMP/summary.txt" || fail "analyze failed"
grep -q '^  violations seen by the analysis: 0 receives before their send, 0 collective ends' "$ST_TMP/summary.txt" \
    || fail "violations after CLC: $(grep violations "$ST_TMP/summary.txt")"
SLACK_MS=4 TOL=0.10 python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/run/analysis.json" waits "$ST_TMP/out.txt" >&2 \
    || fail "analysis after CLC differs from the program's true time"

# nonblocking collectives: the waits at the completing calls after CLC
ibin=$(build_mpi_c icoll "$ST_ROOT/tests/analysis/icoll.c" -ldl)
run_skewed "$ST_TMP/icoll" 4 "$ibin"
grep -q '^mark ibarrier 0 ' "$ST_TMP/out.txt" || fail "no marks in icoll's output"
st analyze "$ST_TMP/icoll" >"$ST_TMP/summary.txt" || fail "analyze failed (icoll)"
grep -q '^  violations seen by the analysis: 0 receives before their send, 0 collective ends' "$ST_TMP/summary.txt" \
    || fail "violations after CLC (icoll): $(grep violations "$ST_TMP/summary.txt")"
SLACK_MS=4 TOL=0.10 POLL_SLACK_MS=0.1 python3 "$ST_ROOT/tests/analysis/icollcheck.py" "$ST_TMP/icoll/analysis.json" "$ST_TMP/out.txt" >&2 \
    || fail "nonblocking collective waits after CLC differ from the program's true time"
