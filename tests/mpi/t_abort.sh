#!/usr/bin/env bash
# A job that ends in MPI_Abort (abort.c, rank 1 aborts after 20 ring rounds) under the plain launcher:
# the exit code is MPI_Abort's as without the shim; after `synctrace recover DIR` (if the shim
# could not write the archive itself) there is an archive otf2-print accepts, `synctrace info`
# marks it incomplete, and every rank in it has exactly its 20 ring sends and receives
# (the aborting rank must be there), and the one-sided window the job left open is defined: each
# rank's MPI_Put names it and its target's location (the dump once left the windows out, and every
# RMA record of an aborted run said "Window: UNDEFINED"). Then the same through bin/synctrace-run,
# which recovers by itself: the archive must be there without a manual `synctrace recover`.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools

# rma_named WHAT: otf2_ok's otf2-print output has one RMA_PUT per rank, each naming the window made on
# MPI_COMM_WORLD and a target location, and no RMA record without its window
rma_named() {
    local p=$ST_TMP/otf2-print.txt puts named
    puts=$(grep -c '^RMA_PUT ' "$p" || true)
    named=$(grep '^RMA_PUT ' "$p" | grep -c 'Window: "MPI window 0 of MPI_COMM_WORLD" <[0-9]*>, Remote: [0-9]* ("' || true)
    assert_eq "$1: MPI_Put records" "$ST_NP" "$puts"
    assert_eq "$1: MPI_Put records naming the window and the target" "$ST_NP" "$named"
    ! grep -q '^RMA_.*Window: UNDEFINED' "$p" || fail "$1: an RMA record without its window: $(grep -m1 '^RMA_.*Window: UNDEFINED' "$p")"
}
bin=$(build_mpi_c abort "$MPI_DIR/abort.c")
prc=0 trc=0
ST_TIMEOUT=60 run_plain "$ST_NP" "$bin" 20 || prc=$?
[ "$prc" -ne 0 ] || fail "abort without the shim exited 0"
TRACE=$ST_TMP/trace
ST_TIMEOUT=60 run_traced "$TRACE" "$ST_NP" "$bin" 20 || trc=$?
assert_eq "exit code of the aborted job with the shim" "$prc" "$trc"
grep -q '^ring:' "$ST_TMP/plain.txt" && { grep -qxF "$(grep '^ring:' "$ST_TMP/plain.txt")" "$ST_TMP/out.txt" ||
    fail "the ring checksums printed before MPI_Abort differ with the shim"; }
recover_if_needed "$TRACE"
info_incomplete "$TRACE"
otf2_ok "$TRACE"
rma_named "recovered archive"
dump_json "$TRACE" "$ST_TMP/abort.json"
tracecheck ring "$ST_TMP/abort.json" "$ST_NP" 20 exact >"$ST_TMP/ring.txt" ||
    fail "ring events after MPI_Abort: $(tr '\n' '|' <"$ST_TMP/ring.txt")"
aborter=$(( ST_NP > 1 ? 1 : 0 ))
python3 - "$ST_TMP/abort.json" "$aborter" <<'PY' || fail "the aborting rank $aborter is not in the archive"
import json, sys
sys.exit(0 if any(json.loads(l).get("rank") == int(sys.argv[2]) for l in open(sys.argv[1]) if l.strip()) else 1)
PY
note "$(tr '\n' '|' <"$ST_TMP/ring.txt")"

# The same job through synctrace-run: it runs `synctrace recover` itself.
if [ -x "$ST_BIN/synctrace-run" ]; then
    TRACE2=$ST_TMP/trace-run
    rrc=0
    mpi_cmd -n "$ST_NP" "$bin" 20
    timeout -k 10 60 "$ST_BIN/synctrace-run" -o "$TRACE2" "${MPI_CMD[@]}" \
        >"$ST_TMP/run-out.txt" 2>"$ST_TMP/run-err.txt" || rrc=$?
    assert_eq "exit code of the aborted job under synctrace-run" "$prc" "$rrc"
    [ -f "$TRACE2/traces.otf2" ] || fail "synctrace-run left no archive after MPI_Abort: $(tail -n 5 "$ST_TMP/run-err.txt")"
    info_incomplete "$TRACE2"
    otf2_ok "$TRACE2"
    rma_named "synctrace-run's archive"
    dump_json "$TRACE2" "$ST_TMP/abort-run.json"
    tracecheck ring "$ST_TMP/abort-run.json" "$ST_NP" 20 exact >"$ST_TMP/ring2.txt" ||
        fail "ring events after MPI_Abort under synctrace-run: $(tr '\n' '|' <"$ST_TMP/ring2.txt")"
    note "synctrace-run: $(tr '\n' '|' <"$ST_TMP/ring2.txt")"
fi
