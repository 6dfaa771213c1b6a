#!/usr/bin/env bash
# Sanity, not a target: the Round-Time median of an 8-byte Allreduce on 2 ranks lies within a factor
# of 10 of the barrier scheme's (per-call mean, max over ranks). The two measure different things:
# Round-Time times each call from a common start to the last rank's end, the barrier scheme averages
# back-to-back calls that overlap; seen here 0.45-0.5 (barrier/Round-Time), on the CI machine
# 0.26-0.30. What the check is for, a unit or per-call division slip, is a factor of 1000.
# The machine has 2 cores shared with other work, which can stall either scheme for milliseconds:
# up to 3 attempts.
source "$ST_ROOT/tests/rtbench/common.sh"
for attempt in 1 2 3; do
    bench 2 -o allreduce -s 8 --slice 0.5 --scheme both --json out.json || fail "exit $?"
    rt=$(jq_py '[r["median_ns"] for r in d["results"] if r["scheme"]=="roundtime"][0] or 0')
    bar=$(jq_py '[r["median_ns"] for r in d["results"] if r["scheme"]=="barrier"][0]')
    if [ "$rt" = 0 ]; then
        note "attempt $attempt: no valid Round-Time round (the machine is busy)"
        grep -qE '^allreduce .* -  *\| .* \|  *-$' "$ST_TMP/out.txt" || fail "no valid round, but the table does not say so: $(cat "$ST_TMP/out.txt")"
        continue
    fi
    q=$(awk -v a="$rt" -v b="$bar" 'BEGIN{print b/a}')
    note "attempt $attempt: Round-Time median $rt ns, barrier $bar ns, barrier/Round-Time $q"
    # the table prints the same ratio (barrier / Round-Time)
    ratio=$(awk '$1=="allreduce"{print $NF}' "$ST_TMP/out.txt")
    assert_le "printed ratio vs computed" 0.006 "$(awk -v p="$ratio" -v q="$q" 'BEGIN{d=p-q; print d<0?-d:d}')"
    awk -v q="$q" 'BEGIN{exit !(q <= 10 && q >= 1/10)}' && exit 0
done
fail "Round-Time and barrier medians differ by more than a factor of 10 in 3 attempts"
