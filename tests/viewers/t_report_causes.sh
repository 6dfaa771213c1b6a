#!/usr/bin/env bash
# t_report_causes.sh — the root causes as synctrace shows them (docs/analysis.md, "Root causes"), on
# waits.c (tests/analysis/: 4 ranks, one rank late by a known sleep per phase). The traced run's stderr
# summary names each top wait state's top cause ("Late Sender ... s at MPI_...: ... s caused by rank
# 1 in ..."; Wait at Barrier: rank 1, the one that slept). analysis.json's causes are consistent with
# the delay-cost values (anacheck.py causes: per delay metric the causes' short-term delays add up to
# its total; the critical path's hops run from 0 to its length without gaps) and name the late rank
# as the largest delayer, with at least half of the waiting: Late Sender at MPI_Recv rank 1, Late
# Receiver at MPI_Ssend rank 2, barrier rank 1, Late Broadcast rank 3 (anacheck.py cause); the same
# bytes offline and over 2 processes; analysis.cubex holds every new metric as the JSON does
# (cubecheck.py). `synctrace report` shows the Delay costs and Critical path trees; `--causes` the
# largest wait states with their delays (the Late Receiver's delay on rank 2, about its waiting),
# `--metric` one wait state's, `--top` limits both; its usage errors get one line and exit 2.
# `synctrace analyze` prints the same top wait states with their causes as the run.
# SYNCTRACE_ROOTCAUSE=off: no causes in the JSON, the report says the analysis did not run.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
check="$ST_ROOT/tests/analysis/anacheck.py"
run_traced "$ST_TMP/run" 4 "$bin" || fail "waits exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
json=$ST_TMP/run/analysis.json

# ---- the run's summary: each top wait state with its top cause ----
sed -n '/^wait states: /,/^wait-state analysis: /p' "$ST_TMP/err.txt" >summary.txt
note "$(cat summary.txt)"
grep -Eq '^    Late Sender [0-9.]+ s at MPI_[A-Za-z]+: [0-9.]+ s caused by rank [0-9]+ in .+$' summary.txt ||
    fail "summary without the Late Sender's top cause: $(cat summary.txt)"
grep -Eq '^    Wait at Barrier [0-9.]+ s at MPI_Barrier: [0-9.]+ s caused by rank 1 in .+$' summary.txt ||
    fail "summary: the barrier's top cause is not rank 1: $(cat summary.txt)"
# a cause line follows its metric's line
awk '/^    [A-Z]/ && prev !~ /^  [a-z_]+ +[0-9.]+ s/ { bad = 1 } { prev = $0 } END { exit bad }' summary.txt ||
    fail "summary: a cause line not below its metric: $(cat summary.txt)"

# ---- analysis.json: consistent, the late ranks as delayers; the same offline and in parallel ----
python3 "$check" "$json" causes >causes.txt 2>&1 || fail "causes inconsistent: $(cat causes.txt)"
note "$(cat causes.txt)"
python3 "$check" "$json" tree >tree.txt 2>&1 || fail "metric tree: $(head -n 5 tree.txt)"
for c in "mpi_latesender MPI_Recv 1" "mpi_latereceiver MPI_Ssend 2" "mpi_barrier_wait MPI_Barrier 1" \
         "mpi_latebroadcast MPI_Bcast 3"; do
    # shellcheck disable=SC2086
    python3 "$check" "$json" cause $c >cause.txt 2>&1 || fail "cause: $(cat cause.txt)"
    note "$(cat cause.txt)"
done
st analyze "$ST_TMP/run" -o offline.json >analyze.txt || fail "synctrace analyze failed"
cmp -s offline.json "$json" || fail "the in-run and offline analysis.json differ"
# `synctrace analyze` ends with the same lines as the run (but for the run's own last line)
sed -n '/^wait states: /,/^analysis of /p' analyze.txt | sed '$d' >analyze-brief.txt
sed '$d' summary.txt | cmp -s - analyze-brief.txt ||
    fail "synctrace analyze's top wait states differ from the run's: $(diff <(sed '$d' summary.txt) analyze-brief.txt | head -n 6)"
same_in_parallel waits "$ST_TMP/run" "$json" par.json
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/run/analysis.cubex" "$json" >cube.txt 2>&1 ||
    fail "analysis.cubex: $(cat cube.txt)"
for m in delay_latesender delay_latesender_longterm mpi_wait_direct_latesender critical_path_imbalance \
         non_critical_path_activities; do
    grep -q "<uniq_name>$m</uniq_name>" <(tar -xOf "$ST_TMP/run/analysis.cubex" anchor.xml) ||
        fail "analysis.cubex without metric $m"
done

# ---- synctrace report: the trees; --causes ----
st report "$ST_TMP/run" >report.txt || fail "report failed"
grep -qx "what caused the waiting (delays, propagation, critical path): synctrace report $ST_TMP/run --causes" report.txt ||
    fail "report: no pointer to --causes: $(tail -n 2 report.txt)"
grep -Eq '^Delay costs +[0-9.]+ s +[0-9.]+%  delay$' report.txt || fail "report without Delay costs: $(cat report.txt)"
grep -Eq '^Critical path +[0-9.]+ s +[0-9.]+%  critical_path$' report.txt || fail "report without the critical path"
grep -Eq '^      Late Sender +[0-9.]+ s +[0-9.]+%  delay_latesender_aggregate$' report.txt ||
    fail "report: no Late Sender delay under Delay costs / MPI / Point-to-point"
[ "$(grep -n '^Critical path' report.txt | cut -d: -f1)" -lt "$(grep -n '^Visits' report.txt | cut -d: -f1)" ] ||
    fail "report: the counts before the time trees"
st report "$ST_TMP/run" --causes >rc.txt || fail "report --causes failed"
note "$(head -n 12 rc.txt)"
grep -q '^the largest 10 wait states (metric at a call path) and the delays that caused them$' rc.txt ||
    fail "report --causes: $(head -n 3 rc.txt)"
n=$(grep -Ec '^[0-9]+\. ' rc.txt)
assert_eq "report --causes: wait states" 10 "$n"
grep -Eq '^critical path: [0-9.]+ s \(the run from its first to its last event\), [0-9]+ hops? over [1-4] locations?' rc.txt ||
    fail "report --causes without the critical path: $(tail -n 6 rc.txt)"
# the Late Receiver: one wait state, its delay on rank 2 about its waiting
st report "$ST_TMP/run" --causes --metric mpi_latereceiver --top 1 >lr.txt || fail "report --causes --metric failed"
note "$(cat lr.txt)"
wait=$(sed -nE 's/^1\. Late Receiver \[mpi_latereceiver\] at MPI_Ssend: ([0-9.]+) s waiting, .*/\1/p' lr.txt)
[ -n "$wait" ] || fail "report --causes --metric mpi_latereceiver: $(cat lr.txt)"
read -r delay rank < <(awk '/^ +[0-9]+\.[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+  / { print $1, $4; exit }' lr.txt)
assert_eq "Late Receiver's delay on rank" 2 "$rank"
assert_ge "Late Receiver's delay (s)" "$(awk -v w="$wait" 'BEGIN { print 0.8 * w }')" "$delay"
assert_le "Late Receiver's delay (s)" "$wait" "$delay"
grep -q 'Late Sender\|critical path' lr.txt && fail "report --causes --metric mpi_latereceiver shows more: $(cat lr.txt)"
# --top: wait states and delays
st report "$ST_TMP/run" --causes --top 2 >top.txt || fail "report --causes --top 2 failed"
assert_eq "wait states with --top 2" 2 "$(grep -Ec '^[0-9]+\. ' top.txt)"
awk '/^[0-9]+\. / { n = 0 } /^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+  / { if (++n > 2) bad = 1 } END { exit bad }' top.txt ||
    fail "more than 2 delays per wait state with --top 2: $(cat top.txt)"
# usage errors: one line, exit 2
for args in "--causes --html" "--causes --metric time" "--causes --metric nosuch" "--causes --top 0"; do
    rc=0
    # shellcheck disable=SC2086
    st report "$ST_TMP/run" $args >out.txt 2>err.txt || rc=$?
    assert_eq "report $args" 2 "$rc"
    [ "$(wc -l <err.txt)" = 1 ] && grep -q "^synctrace: report: " err.txt || fail "report $args: $(cat err.txt)"
    [ -s out.txt ] && fail "report $args printed: $(cat out.txt)"
done

# ---- SYNCTRACE_ROOTCAUSE=off ----
SYNCTRACE_ROOTCAUSE=off st analyze "$ST_TMP/run" -o off.json >/dev/null || fail "analyze with the root causes off failed"
grep -q '"causes"\|"critical_path":' off.json && fail "SYNCTRACE_ROOTCAUSE=off: causes in analysis.json"
SYNCTRACE_ROOTCAUSE=off st report "$ST_TMP/run" --causes >off.txt || fail "report --causes, root causes off, failed"
SYNCTRACE_ROOTCAUSE=off st report "$ST_TMP/run" >off-report.txt || fail "report, root causes off, failed"
grep -q 'Delay costs\|what caused the waiting' off-report.txt && fail "report, root causes off: $(tail -n 3 off-report.txt)"
assert_eq "report --causes with the root causes off" \
    "no root causes: the root-cause analysis did not run (SYNCTRACE_ROOTCAUSE=off)" "$(cat off.txt)"
echo ok
