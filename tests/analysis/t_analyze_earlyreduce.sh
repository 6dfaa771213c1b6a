#!/usr/bin/env bash
# Early Reduce with known member entry times (earlyreduce.c, 4 ranks, root 0): the root of an
# N-to-1 call waits until the latest member that sends data entered (Scalasca 2.6), not the
# earliest (Scalasca up to 2.5) (MPI_Reduce: 300 ms, not 100), members sending 0 bytes are left out
# (MPI_Gatherv: rank 1, the latest, sends nothing: 200 ms), and a root that enters after the
# earliest sender still waits for the latest (MPI_Gather: 150 ms, not 0). Checked against the
# program's own clock readings at the call path of each call on
# rank 0 thread 0 (erdcheck.py), in the in-run report and in the offline serial and parallel ones,
# which are byte-identical.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c earlyreduce "$ST_ROOT/tests/analysis/earlyreduce.c" -ldl)
check="$ST_ROOT/tests/analysis/erdcheck.py"
run_traced "$ST_TMP/run" 4 "$bin" || fail "earlyreduce exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q '^mark reduce 0 ' "$ST_TMP/out.txt" || fail "no marks in the program's output"
[ -s "$ST_TMP/run/analysis.json" ] || fail "no in-run report: $(tail -n 5 "$ST_TMP/err.txt")"

python3 "$check" "$ST_TMP/run/analysis.json" "$ST_TMP/out.txt" >&2 || fail "in-run Early Reduce differs from Scalasca's rule"
st analyze "$ST_TMP/run" -o "$ST_TMP/offline.json" >/dev/null || fail "analyze failed"
python3 "$check" "$ST_TMP/offline.json" "$ST_TMP/out.txt" >&2 || fail "offline Early Reduce differs from Scalasca's rule"
cmp -s "$ST_TMP/run/analysis.json" "$ST_TMP/offline.json" || fail "in-run and offline reports differ"
same_in_parallel "Early Reduce" "$ST_TMP/run" "$ST_TMP/offline.json" "$ST_TMP/par2.json"
python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/offline.json" tree >&2 || fail "metric tree inconsistent"
