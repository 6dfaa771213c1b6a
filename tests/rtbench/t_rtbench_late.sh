#!/usr/bin/env bash
# Round-Time counts late ranks: rank 1 held back 100 ms in every other round (hidden option
# --test-delay) makes at least those rounds invalid, and only the others are valid. The barrier
# imbalance run gives an ordered distribution.
source "$ST_ROOT/tests/rtbench/common.sh"
# --tolerance 1 ms: the rounds in between must count as valid whatever the machine's wake-up latency
# (with the default 10 us a fresh-machine run had 1 valid round of 14); the 100 ms delay stays far beyond it.
bench 2 -o allreduce -s 8 --slice 0.8 --test-delay 1:100000 --tolerance 1000 --json out.json ||
    fail "exit $? $(head -c 300 "$ST_TMP/err.txt")"
valid=$(jq_py 'd["results"][0]["valid"]')
invalid=$(jq_py 'd["results"][0]["invalid"]')
note "delayed: $valid valid, $invalid invalid rounds"
assert_ge "invalid rounds" 3 "$invalid"
assert_ge "valid rounds" 3 "$valid"
# every odd round is late; the even ones may be late too on a busy machine, never fewer
assert_ge "invalid rounds (half of all)" $(( (valid + invalid) / 2 )) "$invalid"
# a delayed round that was counted as valid would have a latency of ~100 ms
assert_le "max latency of a valid round (ns)" 50000000 "$(jq_py 'd["results"][0]["max_ns"]')"

bench 2 --barrier-imbalance --slice 0.2 --json out.json || fail "imbalance: exit $?"
assert_eq "imbalance scheme" "barrier-imbalance" "$(jq_py 'd["results"][0]["scheme"]')"
assert_ge "imbalance rounds" 1 "$(jq_py 'd["results"][0]["valid"]')"
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]
sys.exit(not (0 <= r['min_ns'] <= r['median_ns'] <= r['max_ns']))" "$ST_TMP/out.json" || fail "imbalance figures out of order"

# A rank late in every round: after 8 invalid rounds in a row the margin doubles, until it covers
# the 3 ms delay and rounds become valid (with the margin of the start, every round would be late).
bench 2 -o allreduce -s 8 --slice 1 --test-delay 1:3000:1 --json out.json || fail "every round late: exit $?"
valid=$(jq_py 'd["results"][0]["valid"]')
margin=$(jq_py 'd["results"][0]["margin_ns"]')
note "late in every round: $valid valid, $(jq_py 'd["results"][0]["invalid"]') invalid, margin at the end $margin ns"
assert_ge "valid rounds after the margin grew" 10 "$valid"
assert_ge "margin at the end (ns)" 3000000 "$margin"

# --tolerance 0: a rank whose first clock read after the wait is past the start time at all woke up
# late, i.e. nearly every round is invalid; those rounds do not lengthen the margin (only missed
# start times do).
bench 2 -o allreduce -s 8 --slice 0.3 --tolerance 0 --json out.json || fail "tolerance 0: exit $?"
valid=$(jq_py 'd["results"][0]["valid"]')
invalid=$(jq_py 'd["results"][0]["invalid"]')
note "tolerance 0: $valid valid, $invalid invalid rounds"
assert_ge "invalid rounds with tolerance 0 (90 %)" $(( (valid + invalid) * 9 / 10 )) "$invalid"
# counted as missed, thousands of invalid rounds would double it up to its cap (a tenth of the slice,
# 30 ms); a streak of 8 rounds that really missed their start may double it once or twice on a busy machine
assert_le "margin after woken-late rounds (ns)" "$(jq_py '4 * d["margin_ns"]')" "$(jq_py 'd["results"][0]["margin_ns"]')"
