#!/usr/bin/env bash
# t_clc_mpi.sh — CLC at MPI_Finalize on an MPI-only program with every relation kind
# (clc_mpi.c: blocking / nonblocking / wildcard point-to-point, 1-to-N, N-to-1, N-to-N,
# scans, a sub-communicator, nonblocking collectives, Init/Finalize), ranks on skewed
# clocks without clock synchronization:
#  - before the correction `synctrace check --raw` finds p2p and collective violations,
#    and the archive's statistics count the same reversed relations;
#  - after it `synctrace check` finds none, local order is kept, events only moved
#    forward, interval deviations are bounded (common.sh: corrected_ok);
#  - the application's output is unchanged; otf2-print reads the archive;
#  - the parameters in the archive are the configured ones (SYNCTRACE_CLC_GAMMA/_AMORT),
#    and SYNCTRACE_CLC=off leaves every timestamp as recorded.
# families: mpich openmpi
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c clc_mpi "$CLC_DIR/clc_mpi.c")

run_plain "$ST_NP" "$BIN" 3 || fail "clc_mpi without the shim failed"
CLC_ENV="SYNCTRACE_CLC_AMORT=0.05 SYNCTRACE_VERBOSE=1" run_skewed "$ST_TMP/on" "$ST_NP" "$BIN" 3
cp "$ST_TMP/err.txt" "$ST_TMP/on-err.txt"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "output differs with the shim: $(cat "$ST_TMP/out.txt")"
otf2_ok "$ST_TMP/on"

violations --raw "$ST_TMP/on"
note "before the correction: $V_TOTAL violations (p2p $V_P2P, collective $V_COLL)"
assert_ge "p2p violations before the correction" 1 "$V_P2P"
assert_ge "collective violations before the correction" 1 "$V_COLL"
assert_eq "reversed p2p messages in the statistics" "$V_P2P" "$(prop "$ST_TMP/on" CLC_REVERSED_P2P)"
assert_ge "collective violations corrected" 1 "$(prop "$ST_TMP/on" CLC_VIOLATIONS_COLL)"
assert_eq "CLC_STATE" on "$(prop "$ST_TMP/on" CLC_STATE)"
assert_eq "CLC_AMORT" 0.050000000000000003 "$(prop "$ST_TMP/on" CLC_AMORT)"
assert_eq "CLC_GAMMA" 0.98999999999999999 "$(prop "$ST_TMP/on" CLC_GAMMA)"
[ -n "$(prop "$ST_TMP/on" FINALIZE_CLC_MS)" ] || fail "no SYNCTRACE::FINALIZE_CLC_MS"
# MPI_Finalize's phases, one line from rank 0; its CLC phase encloses every rank's timed
# correction (it starts before the parameter agreement and ends after the timings' reduction).
phases=$(grep 'MPI_Finalize: sync' "$ST_TMP/on-err.txt")
assert_eq "MPI_Finalize phase lines" 1 "$(printf '%s\n' "$phases" | grep -c 'synctrace\[0\]: MPI_Finalize: sync [0-9.]* ms, trace preparation [0-9.]* ms, CLC [0-9.]* ms, wait-state analysis [0-9.]* ms, archive write [0-9.]* ms, report [0-9.]* ms$')"
awk -v l="$phases" -v c="$(prop "$ST_TMP/on" FINALIZE_CLC_MS)" 'BEGIN {
    n = split(l, w, " "); clc = w[n - 12]; wr = w[n - 4]
    exit !(clc + 0 >= 0.99 * c && wr + 0 > 0) }' || fail "MPI_Finalize phases '$phases' vs FINALIZE_CLC_MS $(prop "$ST_TMP/on" FINALIZE_CLC_MS)"
corrected_ok "$ST_TMP/on"

# SYNCTRACE_CLC=off: nothing moves, the raw and the written timestamps are the same.
CLC_ENV="SYNCTRACE_CLC=off" run_skewed "$ST_TMP/off" "$ST_NP" "$BIN" 3
st info "$ST_TMP/off" | grep -q '^moved by CLC: *0 events' || fail "SYNCTRACE_CLC=off: events were moved"
violations "$ST_TMP/off"
assert_ge "violations with SYNCTRACE_CLC=off" 1 "$V_TOTAL"
