#!/usr/bin/env bash
# synctrace analyze on a program with injected waits (waits.c, 4 ranks): Late Sender
# (MPI_Recv, the MPI_Wait of an Irecv and of a persistent request, MPI_Sendrecv, the largest
# of a Waitall once), Wrong Order from
# different sources (MPI_Waitany), Late Receiver (MPI_Ssend), Wait at Barrier, Wait at
# N x N (Allreduce, Alltoall on sub-communicators), Late Broadcast, Early Reduce, Early
# Scan, nothing for a count-0 Gather, Wait at Finalize, each at the call path of the waiting call on the waiting
# rank, equal (5 % + 2 ms) to what the program's own clock readings around the calls imply;
# the CUBE4 report against the JSON (independent reader); -o, the summary, report, usage errors.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
check="$ST_ROOT/tests/analysis/anacheck.py"
run_traced "$ST_TMP/run" 4 "$bin" || fail "waits exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q '^mark recv 0 ' "$ST_TMP/out.txt" || fail "no marks in the program's output"

st analyze "$ST_TMP/run" >"$ST_TMP/summary.txt" || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
[ -s "$ST_TMP/run/analysis.json" ] || fail "no $ST_TMP/run/analysis.json"
# the CUBE4 report, read by an independent reader, holds the same values as the JSON
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/run/analysis.cubex" "$ST_TMP/run/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json"
# the metric tree: Scalasca's, a parent holds its children at every (call path, location)
python3 "$check" "$ST_TMP/run/analysis.json" tree >&2 || fail "metric tree inconsistent"
SLACK_MS=2 python3 "$check" "$ST_TMP/run/analysis.json" waits "$ST_TMP/out.txt" >&2 || fail "analysis differs from the program's clock"

# the summary: metric tree with percent of Time
grep -Eq '^Time +[0-9.]+ s 100.00%  time$' "$ST_TMP/summary.txt" || fail "summary without Time: $(head -3 "$ST_TMP/summary.txt")"
grep -Eq '^          Late Sender +0\.[0-9]+ s +[0-9.]+%  mpi_latesender$' "$ST_TMP/summary.txt" || fail "summary without Late Sender under Execution / MPI / Communication / Point-to-point"
# exact counts: 10 messages of one int each (MPI_Send x5, Isend, Ssend, Sendrecv x2, persistent), 4 count-0 gathers
python3 "$check" "$ST_TMP/run/analysis.json" show >"$ST_TMP/show.txt"
n=$(awk '$1 == "comms_send" {s += $5} END {print s + 0}' "$ST_TMP/show.txt")
assert_eq "comms_send" 10 "$n"
n=$(awk '$1 == "bytes_rcvd" {s += $5} END {print s + 0}' "$ST_TMP/show.txt")
assert_eq "bytes_rcvd" 40 "$n"
n=$(awk '$1 == "syncs_coll" && $2 == "MPI_Gather" {s += $5} END {print s + 0}' "$ST_TMP/show.txt")
assert_eq "count-0 gathers counted as synchronizations" 4 "$n"

# -o writes elsewhere and the same values, the format by the extension
st analyze "$ST_TMP/run" -o "$ST_TMP/other.json" >/dev/null || fail "analyze -o failed"
cmp -s "$ST_TMP/other.json" "$ST_TMP/run/analysis.json" || fail "-o wrote different values"
st analyze "$ST_TMP/run" -o "$ST_TMP/other.cubex" >/dev/null || fail "analyze -o .cubex failed"
cmp -s "$ST_TMP/other.cubex" "$ST_TMP/run/analysis.cubex" || fail "-o .cubex wrote a different report"
rc=0; st analyze "$ST_TMP/run" -o "$ST_TMP/no/such/dir.cubex" >/dev/null 2>"$ST_TMP/werr.txt" || rc=$?
assert_eq "analyze -o into a missing directory" 1 "$rc"
grep -q "cannot write" "$ST_TMP/werr.txt" || fail "no message for an unwritable output: $(cat "$ST_TMP/werr.txt")"
# usage errors exit 2
rc=0; st analyze >/dev/null 2>&1 || rc=$?
assert_eq "analyze without DIR" 2 "$rc"
rc=0; st analyze "$ST_TMP/run" -o >/dev/null 2>&1 || rc=$?
assert_eq "analyze -o without FILE" 2 "$rc"
rc=0; st analyze "$ST_TMP/nothere" >/dev/null 2>&1 || rc=$?
assert_eq "analyze of a missing archive" 1 "$rc"

# synctrace report: the tree, the time base, worst instances; one metric in detail
st report "$ST_TMP/run" >"$ST_TMP/report.txt" || fail "report failed"
grep -Eq '^Time +[0-9.]+ s 100.00%  time$' "$ST_TMP/report.txt" || fail "report without the metric tree"
grep -q '^time base: clock sync .*, CLC on$' "$ST_TMP/report.txt" || fail "report without the time base: $(cat "$ST_TMP/report.txt")"
grep -Eq '^  mpi_latereceiver +0\.[0-9]+ s at [0-9.]+ s, rank 3 thread 0, MPI_Ssend$' "$ST_TMP/report.txt" \
    || fail "report: worst Late Receiver not at rank 3 MPI_Ssend: $(grep mpi_latereceiver "$ST_TMP/report.txt")"
st report "$ST_TMP/run" --metric mpi_barrier_wait --top 2 >"$ST_TMP/metric.txt" || fail "report --metric failed"
head -1 "$ST_TMP/metric.txt" | grep -q '^Wait at Barrier \[mpi_barrier_wait\]:' || fail "report --metric: $(head -1 "$ST_TMP/metric.txt")"
# --top 2: two locations (of the three that waited), never rank 1 (the late one)
n=$(sed -n '/^  locations:/,/^  worst/p' "$ST_TMP/metric.txt" | grep -c 'rank [023] thread 0$' || true)
assert_eq "report --top 2 locations" 2 "$n"
grep -q 'rank 1 thread 0' "$ST_TMP/metric.txt" && fail "report: the late rank 1 waits at the barrier"
rc=0; st report "$ST_TMP/run" --metric nope >/dev/null 2>&1 || rc=$?
assert_eq "report --metric of an unknown name" 2 "$rc"
rc=0; st report "$ST_TMP/run" --top 0 >/dev/null 2>&1 || rc=$?
assert_eq "report --top 0" 2 "$rc"
