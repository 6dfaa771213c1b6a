#!/usr/bin/env bash
# A long exclusive lock epoch after a phase of many shared ones (long_epoch.c, 3 ranks): rank 1 takes
# 3,000 shared epochs at rank 0, then rank 2 one exclusive epoch with 150,000 puts. Each shared
# epoch's release relates to the exclusive epoch's acquisition (`synctrace check` counts 6,001
# unlock -> unlock: rank 0's epoch that zeroes its window -> each shared one, each shared one -> the
# exclusive one, that one -> rank 0's closing read), and the analysis charges each relation at
# that epoch's release. It looked the release up once per relation, scanning the long epoch each time: 3,000 x 450,000
# events, seconds at MPI_Finalize for a program of a second (1.7 s for 2,000 x 100,000 under load,
# 7.9 s for 3,000 x 200,000). Now once per acquisition: the wait-state analysis must stay under
# 500 ms (tens of ms here), in-run and offline the same analysis, stdout and exit code as
# untraced, no violation.
# families: mpich openmpi
# alone: the wait-state analysis at MPI_Finalize must take at most 500 ms (tests/run-tests.sh runs it with no other test beside it)
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c long_epoch "$MPI_DIR/long_epoch.c")

ST_ENV="SYNCTRACE_VERBOSE=1" run_both long_epoch "$bin" 3 3000 150000
check_messages "$TRACE" "0"
assert_eq "synctrace check: unlock -> unlock relations" 6001 \
    "$(sed -nE 's/^rma: .* ([0-9]+) unlock -> unlock$/\1/p' "$ST_TMP/check.txt")"
ms=$(sed -nE 's/.*MPI_Finalize: .*wait-state analysis ([0-9.]+) ms.*/\1/p' "$ST_TMP/err.txt" | head -n 1)
[ -n "$ms" ] || fail "no MPI_Finalize phase line with the wait-state analysis' time: $(grep -m2 'MPI_Finalize' "$ST_TMP/err.txt")"
assert_le "wait-state analysis at MPI_Finalize in ms" 500 "$ms"
st analyze "$TRACE" -o "$ST_TMP/offline.json" >"$ST_TMP/analyze.txt" 2>&1 ||
    fail "synctrace analyze failed: $(tail -n 3 "$ST_TMP/analyze.txt")"
cmp -s "$ST_TMP/offline.json" "$TRACE/analysis.json" || fail "the offline analysis differs from the in-run one"
note "wait-state analysis ${ms} ms for 3,000 relations into an epoch of 450,002 events"
echo "PASS"
