#!/usr/bin/env bash
# OpenMP without MPI: a program that never calls MPI_Init is traced as one process with
# its threads, the archive written at exit (omp_only.c, 3 threads): preloaded directly
# (clang build) and through synctrace-run (gcc build: GOMP stand-in detected). The library
# exports ompt_start_tool, and SYNCTRACE_OMP=0 switches the OpenMP tool off. The wait-state
# analysis runs at exit as at MPI_Finalize: analysis.json and analysis.cubex byte-equal to
# `synctrace analyze` of the archive, the summary on stderr; SYNCTRACE_ANALYZE=off: none. It takes the
# relations' graph CLC built when CLC moved nothing (one clock), else derives it (SYNCTRACE_CLC=off: the
# same files as `synctrace analyze` then too); SYNCTRACE_VERBOSE=1 prints the exit's phases as MPI_Finalize's.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools
[[ $(nm -D --defined-only "$ST_LIB") == *" T ompt_start_tool"* ]] || fail "$ST_LIB does not export ompt_start_tool"

clang_bin=$(build_omp omp-only-clang clang "$OMP_DIR/omp_only.c" "$OMP_DIR/constructs.c")
gcc_bin=$(build_omp omp-only-gcc gcc "$OMP_DIR/omp_only.c" "$OMP_DIR/constructs.c")

timeout -k 10 120 "$clang_bin" >"$ST_TMP/plain.txt" || fail "omp_only failed without the shim"
SYNCTRACE_VERBOSE=2 SYNCTRACE_DIR=$ST_TMP/clang LD_PRELOAD=$ST_LIB timeout -k 10 120 "$clang_bin" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
    fail "omp_only (clang) traced failed: $(tail -n 5 "$ST_TMP/err.txt")"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "omp_only: output differs with the shim"
omp_verify "$ST_TMP/clang" "$ST_TMP/out.txt" 1
# The OpenMP relations are CLC-corrected at exit as in MPI runs (sequentially: one process).
info=$(st info "$ST_TMP/clang")
prop() { awk -v k="SYNCTRACE::$1" '$1 == k {print $2}' <<<"$info"; }
[ "$(prop CLC_STATE)" = on ] || fail "OpenMP-only run: CLC_STATE is '$(prop CLC_STATE)', expected on"
[ "${prop_omp:=$(prop CLC_MESSAGES_OMP)}" -ge 50 ] 2>/dev/null || fail "OpenMP-only run: CLC checked '$prop_omp' OpenMP relations, expected >= 50"
[ "$(prop CLC_REMAINING_OMP)" = 0 ] || fail "OpenMP-only run: $(prop CLC_REMAINING_OMP) OpenMP relations violated after CLC"
st check "$ST_TMP/clang" >"$ST_TMP/check.txt" 2>&1 || fail "synctrace check on the OpenMP-only archive: $(head -n 5 "$ST_TMP/check.txt")"
grep -q '^violations: 0$' "$ST_TMP/check.txt" || fail "OpenMP-only archive: $(head -n 3 "$ST_TMP/check.txt")"
# the analysis at exit: the same files as `synctrace analyze` makes of the archive, and the summary
grep -q "^wait-state analysis: .* ms; report $ST_TMP/clang/analysis.json" "$ST_TMP/err.txt" ||
    fail "no analysis summary on stderr at exit: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
grep -Eq '^synctrace: exit: trace preparation [0-9.]+ ms, CLC [0-9.]+ ms, wait-state analysis [0-9.]+ ms, archive write [0-9.]+ ms, report [0-9.]+ ms$' "$ST_TMP/err.txt" ||
    fail "no line of the exit's phases: $(grep 'exit:' "$ST_TMP/err.txt" | head -n 2 | tr '\n' '|')"
grep -q "^synctrace: debug: analysis: the relations' graph CLC's$" "$ST_TMP/err.txt" ||
    fail "the analysis at exit did not take CLC's graph (CLC moved $(prop CLC_MOVED)): $(grep "relations' graph" "$ST_TMP/err.txt")"
# same_as_offline RUN: RUN's analysis.json and analysis.cubex are those `synctrace analyze` makes of its archive
same_as_offline() {
    rm -rf "$ST_TMP/offline" && mkdir -p "$ST_TMP/offline"
    cp -r "$ST_TMP/$1/traces" "$ST_TMP/$1/traces.otf2" "$ST_TMP/$1/traces.def" "$ST_TMP/offline/"
    st analyze "$ST_TMP/offline" >"$ST_TMP/analyze.txt" 2>&1 || fail "synctrace analyze ($1): $(head -n 3 "$ST_TMP/analyze.txt")"
    for f in analysis.json analysis.cubex; do
        [ -s "$ST_TMP/$1/$f" ] || fail "no $f written at exit ($1)"
        cmp -s "$ST_TMP/$1/$f" "$ST_TMP/offline/$f" || fail "$f at exit ($1) differs from synctrace analyze's"
    done
    grep -q '"delay_ompbarrier' "$ST_TMP/$1/analysis.json" || fail "analysis.json at exit ($1) without the root causes"
}
same_as_offline clang
SYNCTRACE_CLC=off SYNCTRACE_VERBOSE=2 SYNCTRACE_DIR=$ST_TMP/noclc LD_PRELOAD=$ST_LIB timeout -k 10 120 "$clang_bin" >/dev/null 2>"$ST_TMP/err.txt" ||
    fail "omp_only with SYNCTRACE_CLC=off failed: $(tail -n 3 "$ST_TMP/err.txt")"
grep -q "^synctrace: debug: analysis: the relations' graph derived$" "$ST_TMP/err.txt" ||
    fail "SYNCTRACE_CLC=off: the analysis at exit did not derive the relations: $(grep "relations' graph" "$ST_TMP/err.txt")"
same_as_offline noclc
SYNCTRACE_ANALYZE=off SYNCTRACE_DIR=$ST_TMP/noan LD_PRELOAD=$ST_LIB timeout -k 10 120 "$clang_bin" >/dev/null 2>"$ST_TMP/err.txt" ||
    fail "omp_only with SYNCTRACE_ANALYZE=off failed: $(tail -n 3 "$ST_TMP/err.txt")"
[ -f "$ST_TMP/noan/traces.otf2" ] && [ ! -e "$ST_TMP/noan/analysis.json" ] && ! grep -q 'wait-state analysis' "$ST_TMP/err.txt" ||
    fail "SYNCTRACE_ANALYZE=off: $(ls "$ST_TMP/noan" | tr '\n' ' '); $(tail -n 2 "$ST_TMP/err.txt" | tr '\n' '|')"

timeout -k 10 120 "$gcc_bin" >"$ST_TMP/plain.txt" || fail "omp_only (gcc) failed without the shim"
timeout -k 10 120 "$ST_BIN/synctrace-run" -o "$ST_TMP/gcc" "$gcc_bin" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
    fail "omp_only (gcc) through synctrace-run failed: $(tail -n 5 "$ST_TMP/err.txt")"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "omp_only (gcc): output differs with the shim"
omp_verify "$ST_TMP/gcc" "$ST_TMP/out.txt" 1

# SYNCTRACE_OMP=0: no OpenMP events at all (nothing recorded: no archive, or one without them)
SYNCTRACE_OMP=0 SYNCTRACE_DIR=$ST_TMP/off LD_PRELOAD=$ST_LIB timeout -k 10 120 "$clang_bin" >/dev/null 2>"$ST_TMP/err.txt" ||
    fail "omp_only with SYNCTRACE_OMP=0 failed: $(tail -n 3 "$ST_TMP/err.txt")"
if [ -f "$ST_TMP/off/traces.otf2" ]; then
    [[ $(st dump --json "$ST_TMP/off") != *'"omp_'* ]] || fail "SYNCTRACE_OMP=0 still recorded OpenMP events"
fi
true
