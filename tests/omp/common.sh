# tests/omp/common.sh — helpers of the OpenMP tests, sourced after tests/lib.sh.
#
# Test programs are built with clang (-fopenmp: LLVM libomp) and with gcc (-fopenmp:
# gcc's libgomp.so.1, which has no OMPT; synctrace-run runs them on LLVM's GOMP stand-in,
# $GOMP_DIR/libgomp.so.1). constructs.c holds the OpenMP phases and the exact events they
# must produce; ompcheck.py compares an archive with them.

OMP_DIR=$ST_ROOT/tests/omp
GOMP_DIR=$ST_O/lib/gomp
GEN_DIR=$ST_O/build/gen
export KMP_BLOCKTIME=0   # 2 cores, many threads: sleep at once instead of spinning 200 ms
ST_ENV="${ST_ENV:-} KMP_BLOCKTIME=0"

need_omp_tools() {
    command -v clang >/dev/null || skip "clang not installed"
    [ -f "$ST_LIB" ] || fail "no $ST_LIB: build first (make all)"
    [ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first (make all)"
    [ -e "$GOMP_DIR/libgomp.so.1" ] || fail "no GOMP stand-in $GOMP_DIR/libgomp.so.1 (make all)"
}

# build_omp NAME COMPILER SOURCES...: COMPILER is e.g. "clang", "gcc", "mpi_cc_clang", "mpi_cc"
# (tests/lib.sh), with options after it if needed.
# Prints the program's path; rebuilds when a source (or constructs.h) is newer.
build_omp() {
    local name=$1 cc=$2 out=$ST_BUILD/$1 s stale=0
    shift 2
    for s in "$@" "$OMP_DIR/constructs.h"; do [ "$s" -nt "$out" ] && stale=1; done
    if [ ! -x "$out" ] || [ $stale = 1 ]; then
        # shellcheck disable=SC2086
        $cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fopenmp -o "$out.$$" "$@" >&2 \
            || fail "cannot build $name with $cc"
        mv -f "$out.$$" "$out"
    fi
    echo "$out"
}

# omp_verify DIR EXPECT NP [ompcheck options]: otf2-print reads DIR, the events match the
# model printed by the program (EXPECT), and `synctrace check` finds no violation.
omp_verify() {
    local dir=$1 expect=$2 np=$3
    shift 3
    [ -f "$dir/traces.otf2" ] || fail "no archive $dir/traces.otf2; stderr: $(tail -n 5 "$ST_TMP/err.txt" 2>/dev/null)"
    otf2_ok "$dir"
    st dump --json "$dir" >"$ST_TMP/dump.json" 2>"$ST_TMP/dump-err.txt" \
        || fail "synctrace dump --json $dir failed: $(head -c 300 "$ST_TMP/dump-err.txt")"
    python3 "$OMP_DIR/ompcheck.py" "$ST_TMP/dump.json" "$expect" --ranks "$np" "$@" >"$ST_TMP/ompcheck.txt" 2>&1 ||
        fail "$dir: OpenMP events differ from the model:$(head -n 20 "$ST_TMP/ompcheck.txt" | sed 's/^/\n    /' | tr -d '\n')"
    note "$(tail -n 1 "$ST_TMP/ompcheck.txt")"
    local rc=0
    st check "$dir" >"$ST_TMP/check.txt" 2>&1 || rc=$?
    [ $rc -eq 0 ] || fail "synctrace check $dir (exit $rc): $(head -c 600 "$ST_TMP/check.txt")"
}
