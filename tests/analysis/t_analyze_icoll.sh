#!/usr/bin/env bash
# synctrace analyze on nonblocking collectives with injected waits (icoll.c, 4 ranks):
# MPI_Ibarrier, Iallreduce, Ibcast, Ireduce, Iscan each completed by MPI_Wait, where each
# member that gets data waits for the latest I-call it depends on (Wait at Barrier / N x N,
# Late Broadcast, Early Reduce, Early Scan), equal (5 % + 3 ms) to the program's own clock
# readings; MPI_Ialltoallv not analysed; MPI_Test polling of an Ibarrier gets no wait, the
# Test that completes it is collective synchronization time; the metric tree holds together; the cube agrees.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c icoll "$ST_ROOT/tests/analysis/icoll.c" -ldl)
run_traced "$ST_TMP/run" 4 "$bin" || fail "icoll exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q '^mark ibarrier 0 ' "$ST_TMP/out.txt" || fail "no marks in the program's output"
st analyze "$ST_TMP/run" >"$ST_TMP/summary.txt" || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
python3 "$ST_ROOT/tests/analysis/icollcheck.py" "$ST_TMP/run/analysis.json" "$ST_TMP/out.txt" >&2 \
    || fail "nonblocking collective waits differ from the program's clock"
python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/run/analysis.json" tree >&2 || fail "metric tree inconsistent"
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/run/analysis.cubex" "$ST_TMP/run/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json"
