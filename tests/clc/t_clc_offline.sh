#!/usr/bin/env bash
# t_clc_offline.sh — `synctrace clc`, the offline (sequential) correction, against the
# parallel one the library runs at MPI_Finalize, on skewed-clock runs:
#  - identity: an archive corrected in the run, corrected again offline from its raw times
#    (--redo: the times before CLC are in synctrace:orig_time, so the input is exactly the
#    one the run corrected) with the run's parameters (read from SYNCTRACE::CLC_*), has the
#    same timestamps and orig_time on every event and the same statistics — MPI-only and
#    hybrid programs, with the in-run correction done by bulk rounds (the default) and by the
#    message-by-message replay (SYNCTRACE_CLC_ROUNDS=0);
#  - a run recorded with SYNCTRACE_CLC=off, corrected offline: no violation left, and
#    `check --raw` of the result counts what `check` counted on the input;
#  - SYNCTRACE_CLC_MU overrides the recorded mu (and changes the result);
#  - errors: an already corrected input without --redo, an existing output, usage.
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c clc_mpi "$CLC_DIR/clc_mpi.c")

# stats DIR: the CLC statistics properties (minus run-only ones), one per line.
stats() { st info "$1" | awk '$1 ~ /^SYNCTRACE::CLC_/ && $1 != "SYNCTRACE::CLC_STATE" && $1 != "SYNCTRACE::CLC_METHOD" {print $1, $2}'; }

# same_as_run IN: IN corrected offline from its raw times equals IN.
same_as_run() {
    local in=$1 out=$1-offline
    st clc --redo "$in" "$out" >"$ST_TMP/clc.txt" 2>&1 || fail "synctrace clc --redo $in: $(cat "$ST_TMP/clc.txt")"
    grep -q 'from the archive (SYNCTRACE::CLC_\*)' "$ST_TMP/clc.txt" || fail "parameters not read from $in: $(head -n1 "$ST_TMP/clc.txt")"
    dump_json "$in" "$ST_TMP/run.json"
    dump_json "$out" "$ST_TMP/offline.json"
    clccheck compare "$ST_TMP/run.json" "$ST_TMP/offline.json" >"$ST_TMP/cmp.txt" ||
        fail "in-run and offline correction differ: $(tr '\n' '|' <"$ST_TMP/cmp.txt")"
    [ "$(stats "$in")" = "$(stats "$out")" ] || fail "statistics differ: $(diff <(stats "$in") <(stats "$out") | tr '\n' '|')"
    assert_eq "CLC_STATE of the offline archive" offline "$(prop "$out" CLC_STATE)"
    otf2_ok "$out"
    note "$(basename "$in"): $(cat "$ST_TMP/cmp.txt"), moved $(prop "$in" CLC_MOVED), statistics identical ($(st info "$in" | sed -n 's/^ *SYNCTRACE::CLC_METHOD *//p'))"
}

run_skewed "$ST_TMP/mpi" "$ST_NP" "$BIN" 3
assert_eq "in-run method (default)" bulk "$(prop "$ST_TMP/mpi" CLC_METHOD)"
same_as_run "$ST_TMP/mpi"
CLC_ENV="SYNCTRACE_CLC_ROUNDS=0" run_skewed "$ST_TMP/replay" "$ST_NP" "$BIN" 3
assert_eq "in-run method with SYNCTRACE_CLC_ROUNDS=0" replay "$(prop "$ST_TMP/replay" CLC_METHOD)"
same_as_run "$ST_TMP/replay"

if command -v clang >/dev/null; then
    HYB=$ST_BUILD/clc_hybrid
    if [ ! -x "$HYB" ] || [ "$CLC_DIR/clc_hybrid.c" -nt "$HYB" ]; then
        mpi_cc_clang -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fopenmp -o "$HYB" "$CLC_DIR/clc_hybrid.c" ||
            fail "cannot build clc_hybrid.c"
    fi
    run_skewed "$ST_TMP/hybrid" "$ST_NP" "$HYB" -t 3 3
    same_as_run "$ST_TMP/hybrid"
    CLC_ENV="SYNCTRACE_CLC_ROUNDS=0" run_skewed "$ST_TMP/hybrid-replay" "$ST_NP" "$HYB" -t 3 3
    same_as_run "$ST_TMP/hybrid-replay"
else
    note "clang not installed: hybrid identity not checked"
fi

# Recorded without correction, corrected offline.
CLC_ENV="SYNCTRACE_CLC=off" run_skewed "$ST_TMP/raw" "$ST_NP" "$BIN" 3
violations "$ST_TMP/raw"
before="$V_P2P $V_COLL $V_OMP"
assert_ge "violations in the uncorrected archive" 1 "$V_TOTAL"
st clc "$ST_TMP/raw" "$ST_TMP/fixed" >"$ST_TMP/clc.txt" 2>&1 || fail "synctrace clc: $(cat "$ST_TMP/clc.txt")"
note "$(head -n 1 "$ST_TMP/clc.txt")"
corrected_ok "$ST_TMP/fixed"
violations --raw "$ST_TMP/fixed"
assert_eq "check --raw of the corrected archive (p2p collective omp)" "$before" "$V_P2P $V_COLL $V_OMP"
otf2_ok "$ST_TMP/fixed"

# SYNCTRACE_CLC_MU overrides the recorded latencies.
SYNCTRACE_CLC_MU=20000 st clc --redo "$ST_TMP/mpi" "$ST_TMP/mu" >"$ST_TMP/clc.txt" 2>&1 || fail "clc with SYNCTRACE_CLC_MU: $(cat "$ST_TMP/clc.txt")"
grep -q 'mu_intra=20000 ns mu_inter=20000 ns.*overridden: SYNCTRACE_CLC_MU' "$ST_TMP/clc.txt" ||
    fail "SYNCTRACE_CLC_MU not applied: $(head -n 1 "$ST_TMP/clc.txt")"
assert_eq "CLC_MU_INTER with SYNCTRACE_CLC_MU" 20000 "$(prop "$ST_TMP/mu" CLC_MU_INTER)"
dump_json "$ST_TMP/mu" "$ST_TMP/mu.json"
if clccheck compare "$ST_TMP/run.json" "$ST_TMP/mu.json" >/dev/null; then fail "a larger mu changed nothing"; fi

# Errors.
rc=0; st clc "$ST_TMP/mpi" "$ST_TMP/again" >"$ST_TMP/e.txt" 2>&1 || rc=$?
assert_eq "exit status on an already corrected input" 1 "$rc"
grep -q 'already corrected.*--redo' "$ST_TMP/e.txt" || fail "no hint at --redo: $(cat "$ST_TMP/e.txt")"
[ ! -e "$ST_TMP/again/traces.otf2" ] || fail "an archive was written for a refused input"
rc=0; st clc --redo "$ST_TMP/mpi" "$ST_TMP/fixed" >"$ST_TMP/e.txt" 2>&1 || rc=$?
assert_eq "exit status when OUT holds an archive" 1 "$rc"
rc=0; st clc "$ST_TMP/mpi" >"$ST_TMP/e.txt" 2>&1 || rc=$?
assert_eq "exit status without OUT" 2 "$rc"
rc=0; st clc --bogus "$ST_TMP/mpi" "$ST_TMP/x" >"$ST_TMP/e.txt" 2>&1 || rc=$?
assert_eq "exit status with an unknown option" 2 "$rc"
rc=0; st clc "$ST_TMP/nonexistent" "$ST_TMP/x" >"$ST_TMP/e.txt" 2>&1 || rc=$?
assert_eq "exit status on a missing archive" 1 "$rc"
