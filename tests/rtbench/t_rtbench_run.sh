#!/usr/bin/env bash
# synctrace-bench at 2 and 4 ranks: every operation finishes within its slice, min <= median <= max,
# JSON and CSV agree and carry the metadata, the table has one line per operation and size, and the
# run leaves no trace archive behind. At 4 ranks with another sync scheme, named in the metadata.
source "$ST_ROOT/tests/rtbench/common.sh"
slice=0.15
for np in 2 4; do
    sync=h2hca extra=()
    # 4 ranks share the 2 cores: with the default tolerance no round could be valid (docs/bench.md)
    [ "$np" = 4 ] && sync=flat extra=(--tolerance 1000000) && export SYNCTRACE_SYNC=flat
    start=$(date +%s%N)
    bench "$np" -o allreduce,bcast,alltoall,reduce_scatter_block,barrier -s 8,1k --slice $slice --scheme both \
        "${extra[@]}" --json out.json --csv out.csv || fail "$np ranks: exit $? $(head -c 400 "$ST_TMP/err.txt")"
    secs=$(( ($(date +%s%N) - start) / 1000000000 ))
    # 4 operations x 2 sizes + barrier once, 2 schemes each: 18 slices, plus start-up and the clock sync
    assert_le "$np ranks: wall time (s) of 18 slices of $slice s" 30 "$secs"
    python3 "$ST_ROOT/tests/rtbench/check_results.py" "$ST_TMP/out.json" "$ST_TMP/out.csv" "$np" $slice >&2 \
        || fail "$np ranks: results do not hold"
    assert_eq "$np ranks: results" 18 "$(jq_py 'len(d["results"])')"
    assert_ge "$np ranks: Round-Time slices with valid rounds" 1 \
        "$(jq_py 'sum(1 for r in d["results"] if r["scheme"] == "roundtime" and r["valid"] > 0)')"
    assert_eq "$np ranks: sync" "$sync" "$(jq_py 'd["sync"]')"
    assert_eq "$np ranks: ranks per node" "$np" "$(jq_py 'd["ranks_per_node_max"]')"
    assert_eq "$np ranks: cores per node" "$(getconf _NPROCESSORS_ONLN)" "$(jq_py 'd["cores_per_node_min"]')"
    want=0
    [ "$np" -gt "$(getconf _NPROCESSORS_ONLN)" ] && want=1
    assert_eq "$np ranks: note on shared cores" $want "$(grep -c '^# note: .* ranks share .* cores' "$ST_TMP/out.txt")"
    assert_eq "$np ranks: table lines" 9 "$(grep -cE '^(allreduce|bcast|alltoall|reduce_scatter_block|barrier) ' "$ST_TMP/out.txt")"
    grep -qE '^reduce_scatter_block +8 double' "$ST_TMP/out.txt" || fail "reductions are not MPI_DOUBLE: $(cat "$ST_TMP/out.txt")"
    grep -qE '^alltoall +1024 byte' "$ST_TMP/out.txt" || fail "alltoall is not MPI_BYTE"
    [ ! -s "$ST_TMP/err.txt" ] || fail "$np ranks: stderr: $(head -c 400 "$ST_TMP/err.txt")"
    ls -d "$ST_TMP"/synctrace-* 2>/dev/null && fail "$np ranks: the benchmark run was traced (archive directory)"
    unset SYNCTRACE_SYNC
done
# a size list that rounds to the same number of doubles is measured once: 1, 2, 4 bytes -> 8
bench 2 -o allreduce,bcast -s 1:4 --slice 0.05 --json out.json || fail "range: exit $?"
assert_eq "sizes of a reduction" "[8]" "$(jq_py '[r["bytes"] for r in d["results"] if r["operation"]=="allreduce"]')"
assert_eq "sizes of bcast" "[1, 2, 4]" "$(jq_py '[r["bytes"] for r in d["results"] if r["operation"]=="bcast"]')"
# --max-rounds ends a slice after that many valid rounds, late ones (rank 0 held back) not counted
bench 2 -o bcast -s 8 --slice 5 --max-rounds 7 --test-delay 0:100 --json out.json || fail "max-rounds: exit $?"
assert_eq "valid rounds with --max-rounds 7" 7 "$(jq_py 'd["results"][0]["valid"]')"
assert_le "slice used with --max-rounds (s)" 2 "$(jq_py 'd["results"][0]["slice_used_s"]')"
