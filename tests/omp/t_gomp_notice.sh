#!/usr/bin/env bash
# A gcc-built OpenMP program runs on GNU libgomp, which has no OMPT: with a plain LD_PRELOAD the tool
# records no OpenMP events. It must say so once on stderr (how to get them: synctrace-run), never on
# stdout, and stay quiet where OpenMP is traced (clang-built, or the gcc build under synctrace-run).
# A program that loads gcc's libgomp only while it runs (gomp_late.c: dlopen with RTLD_LOCAL, as Python
# loads numpy's OpenBLAS) is told so once at its end, with synctrace-run --gomp as the way, which then
# records its regions.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools
src=("$OMP_DIR/omp_only.c" "$OMP_DIR/constructs.c")
gccbin=$(build_omp omp-only-gcc gcc "${src[@]}")
clangbin=$(build_omp omp-only-clang clang "${src[@]}")

SYNCTRACE_DIR=$ST_TMP/plain LD_PRELOAD=$ST_LIB "$gccbin" -t 2 >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
    fail "gcc build with LD_PRELOAD failed: $(tail -n 3 "$ST_TMP/err.txt")"
"$gccbin" -t 2 >"$ST_TMP/untraced.txt" 2>/dev/null
cmp -s "$ST_TMP/out.txt" "$ST_TMP/untraced.txt" || fail "stdout differs with the shim"
assert_eq "notices about libgomp" 1 "$(grep -c "libgomp" "$ST_TMP/err.txt")"
grep -q "synctrace-run" "$ST_TMP/err.txt" || fail "the notice does not say how to get OpenMP events: $(cat "$ST_TMP/err.txt")"
note "$(grep libgomp "$ST_TMP/err.txt")"

SYNCTRACE_DIR=$ST_TMP/clang LD_PRELOAD=$ST_LIB "$clangbin" -t 2 >/dev/null 2>"$ST_TMP/err2.txt" || fail "clang build failed"
! grep -q "libgomp" "$ST_TMP/err2.txt" || fail "notice for a clang-built program: $(cat "$ST_TMP/err2.txt")"
"$ST_BIN/synctrace-run" -o "$ST_TMP/run" "$gccbin" -t 2 >/dev/null 2>"$ST_TMP/err3.txt" || fail "synctrace-run failed"
! grep -q "no OMPT" "$ST_TMP/err3.txt" || fail "notice under synctrace-run: $(cat "$ST_TMP/err3.txt")"
st info "$ST_TMP/run" | grep -qi "omp" || fail "no OpenMP events under synctrace-run"

# libgomp loaded while the program runs
late=$ST_BUILD/gomp-late work=$ST_BUILD/libgomp-late-work.so
if [ ! -x "$late" ] || [ "$OMP_DIR/gomp_late.c" -nt "$late" ] || [ "$OMP_DIR/gomp_late_work.c" -nt "$work" ]; then
    gcc -std=c11 -O1 -Wall -Wextra -Werror -o "$late" "$OMP_DIR/gomp_late.c" -ldl || fail "cannot build gomp_late"
    gcc -std=c11 -O1 -Wall -Wextra -Werror -fopenmp -shared -fPIC -o "$work" "$OMP_DIR/gomp_late_work.c" ||
        fail "cannot build gomp_late_work"
fi
! ldd "$late" | grep -q gomp || fail "gomp_late is linked with an OpenMP runtime: $(ldd "$late" | grep gomp)"
"$late" "$work" >"$ST_TMP/untraced.txt" || fail "gomp_late failed untraced"
SYNCTRACE_DIR=$ST_TMP/late LD_PRELOAD=$ST_LIB "$late" "$work" >"$ST_TMP/out.txt" 2>"$ST_TMP/err4.txt" ||
    fail "gomp_late with LD_PRELOAD failed: $(tail -n 3 "$ST_TMP/err4.txt")"
cmp -s "$ST_TMP/out.txt" "$ST_TMP/untraced.txt" || fail "gomp_late: stdout differs with the shim"
assert_eq "notices about a libgomp loaded while the program ran" 1 "$(grep -c "libgomp" "$ST_TMP/err4.txt")"
grep -q "synctrace-run --gomp" "$ST_TMP/err4.txt" || fail "the late notice does not name synctrace-run --gomp: $(cat "$ST_TMP/err4.txt")"
note "$(grep libgomp "$ST_TMP/err4.txt")"
"$ST_BIN/synctrace-run" --gomp -o "$ST_TMP/late-run" "$late" "$work" >"$ST_TMP/out.txt" 2>"$ST_TMP/err5.txt" ||
    fail "gomp_late under synctrace-run --gomp failed: $(tail -n 3 "$ST_TMP/err5.txt")"
cmp -s "$ST_TMP/out.txt" "$ST_TMP/untraced.txt" || fail "gomp_late: stdout differs under synctrace-run --gomp"
! grep -q "libgomp" "$ST_TMP/err5.txt" || fail "notice under synctrace-run --gomp: $(cat "$ST_TMP/err5.txt")"
forks=$(st dump --json "$ST_TMP/late-run" | grep -c '"omp_fork"' || true)
assert_eq "parallel regions recorded under synctrace-run --gomp" 20 "$forks"
