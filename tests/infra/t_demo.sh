#!/usr/bin/env bash
# t_demo.sh — `make demo`'s script end to end with the real library: builds and traces the bundled
# hybrid example (2 ranks x 2 threads), within 30 s; the archive is valid OTF2, `synctrace info`
# printed a summary, the example computed exactly what it computes untraced, and its weak
# synctrace.h calls were resolved by the preloaded library.
source "$ST_ROOT/tests/lib.sh"

O=$ST_O
DIR=$ST_TMP/trace
start=$(date +%s)
O=$O bash "$ST_ROOT/scripts/demo.sh" "$DIR" >demo.txt 2>&1 || fail "demo failed: $(tail -n 20 demo.txt)"
elapsed=$(( $(date +%s) - start ))
note "demo took $elapsed s"
assert_le "demo seconds" 30 "$elapsed"
grep -q '^\[4/4\] summary' demo.txt || fail "demo did not reach the summary step"
grep -q 'hybrid_demo: clock synctrace global (traced)' demo.txt \
    || fail "synctrace_global_time_ns not resolved in the traced example: $(grep hybrid_demo: demo.txt)"
otf2_ok "$DIR"
st info "$DIR" >info.txt 2>&1 || fail "synctrace info: $(head -c 300 info.txt)"
[ -s info.txt ] || fail "synctrace info printed nothing"

# same numbers untraced (the tool must not change what the application computes)
OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 run_plain 2 "$O/build/examples/hybrid_demo" || fail "untraced run failed"
assert_eq "results traced vs untraced" "$(grep -E 'residual' "$ST_TMP/plain.txt")" "$(grep -E 'residual' demo.txt)"
grep -q 'clock MPI_Wtime (not traced)' "$ST_TMP/plain.txt" || fail "untraced run claims to be traced"
echo ok
