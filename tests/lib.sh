# tests/lib.sh — helpers sourced by every integration test script (tests/<area>/t_*.sh).
#
# The runner exports: ST_ROOT (repo root), ST_LIB (lib/libsynctrace.so), ST_BIN (bin/),
# ST_BUILD (build/tests: compiled test programs), ST_TMP (fresh empty dir for this test).
# A test script exits 0 on success; `fail` prints one line and exits 1; `skip` exits 77.

set -euo pipefail
: "${ST_ROOT:?run tests through tests/run-tests.sh}"
ST_NP=${ST_NP:-4}
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
# every analysis in the tests (in-run and `synctrace analyze`) checks its metric tree and writes no report
# that breaks it (docs/analysis.md, "Consistency of the metric tree")
export SYNCTRACE_ANALYZE_CHECK=${SYNCTRACE_ANALYZE_CHECK:-fail}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
note() { echo "  $*" >&2; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# assert_le WHAT LIMIT ACTUAL (numbers, may be decimals)
assert_le() { awk -v a="$3" -v l="$2" 'BEGIN{exit !(a+0 <= l+0)}' || fail "$1: $3 > limit $2"; }
assert_ge() { awk -v a="$3" -v l="$2" 'BEGIN{exit !(a+0 >= l+0)}' || fail "$1: $3 < minimum $2"; }

# build_mpi_c NAME SRC [extra flags...] -> $ST_BUILD/NAME (built once per run)
build_mpi_c() {
    local name=$1 src=$2; shift 2
    local out="$ST_BUILD/$name"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        mpicc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$ST_ROOT/include" -o "$out" "$src" "$@" -lm \
            || fail "cannot build $src"
    fi
    echo "$out"
}

# build_mpi_omp NAME SRC [extra flags...] -> $ST_BUILD/NAME: MPI + OpenMP with clang (LLVM libomp,
# whose OMPT the shim uses), built once per run
build_mpi_omp() {
    local name=$1 src=$2; shift 2
    local out="$ST_BUILD/$name"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        mpicc -cc=clang -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fopenmp -o "$out" "$src" "$@" \
            || fail "cannot build $src"
    fi
    echo "$out"
}

# build_mpi_f90 NAME SRC -> $ST_BUILD/NAME
build_mpi_f90() {
    local name=$1 src=$2; shift 2
    local out="$ST_BUILD/$name"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        mpif90 -O1 -g -o "$out" "$src" "$@" || fail "cannot build $src"
    fi
    echo "$out"
}

# run_traced DIR NP PROG [args...]: runs PROG under mpiexec with the shim, archive in DIR.
# Extra environment for the ranks: put it in ST_ENV as "VAR=value VAR2=value2".
# stdout of the application goes to $ST_TMP/out.txt, stderr to $ST_TMP/err.txt; returns its exit code
# (1 if it was 0 but the analysis at MPI_Finalize found its metric tree broken).
run_traced() {
    local dir=$1 np=$2; shift 2
    local envargs=(-genv SYNCTRACE_DIR "$dir")
    local kv
    for kv in ${ST_ENV:-}; do envargs+=(-genv "${kv%%=*}" "${kv#*=}"); done
    local pre="$ST_LIB"
    [ -n "${ST_PRELOAD_FIRST:-}" ] && pre="$ST_PRELOAD_FIRST:$ST_LIB"
    local rc=0
    timeout "${ST_TIMEOUT:-120}" mpiexec -n "$np" "${envargs[@]}" -genv LD_PRELOAD "$pre" "$@" \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || rc=$?
    # the analysis at MPI_Finalize found its metric tree broken (SYNCTRACE_ANALYZE_CHECK above): a failure
    if [ $rc = 0 ] && grep -q "the metric tree does not hold" "$ST_TMP/err.txt"; then
        echo "run_traced: $(grep -m1 "the metric tree does not hold" "$ST_TMP/err.txt")" >&2
        rc=1
    fi
    return $rc
}

# run_plain NP PROG [args...]: same without the shim (reference output in $ST_TMP/plain.txt).
run_plain() {
    local np=$1; shift
    timeout "${ST_TIMEOUT:-120}" mpiexec -n "$np" "$@" >"$ST_TMP/plain.txt" 2>"$ST_TMP/plain-err.txt"
}

# otf2_ok DIR: otf2-print reads the whole archive without error.
otf2_ok() {
    otf2-print "$1/traces.otf2" >"$ST_TMP/otf2-print.txt" 2>"$ST_TMP/otf2-print-err.txt" \
        || fail "otf2-print rejects $1: $(head -c 400 "$ST_TMP/otf2-print-err.txt")"
    if grep -qi "error\|warning" "$ST_TMP/otf2-print-err.txt"; then
        fail "otf2-print complains about $1: $(head -c 400 "$ST_TMP/otf2-print-err.txt")"
    fi
}

# st CMD...: the synctrace CLI
st() { "$ST_BIN/synctrace" "$@"; }

# same_in_parallel WHAT DIR SERIAL OUT: `mpiexec -n 2 synctrace analyze DIR -o OUT` writes, byte for byte,
# the analysis.json the serial analysis wrote (SERIAL); fails naming WHAT otherwise.
same_in_parallel() {
    timeout 120 mpiexec -n 2 "$ST_BIN/synctrace" analyze "$2" -o "$4" >"$4.txt" 2>&1 ||
        fail "$1: mpiexec -n 2 synctrace analyze failed: $(tail -n 3 "$4.txt")"
    cmp -s "$4" "$3" || fail "$1: the parallel analysis over 2 processes differs from the serial one"
}

# tool_stderr FILE: FILE without the wait-state summary a traced MPI run ends with
# (SYNCTRACE_ANALYZE, docs/analysis.md): what is left is noise a test may forbid.
tool_stderr() { sed '/^wait states: /,/^wait-state analysis: /d' "$1"; }
