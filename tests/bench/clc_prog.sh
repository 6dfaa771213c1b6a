# tests/bench/clc_prog.sh — sourced by the benches that run tests/bench/clc_bench.c (clc_bench.sh,
# analysis_bench.sh, scaling_bench.sh, html_bench.sh), after they set ROOT.
#   clc_bench_setup NAME  O (build root, default ROOT), the MPI family (BENCH_FAMILY, default the
#                      first of bench_families; family.sh: FAM, FAM_CC, fam_cmd), OUT=$O/build/bench/FAM
#                      (created), LIB and BIN (the family's shim and the CLI, which must be built:
#                      else "NAME: build first" and exit 1), MPIR_CVAR_CH4_NUM_VCIS=1 unless set
#   clc_bench_skew NAME   SKEW, the clock-skew library (tests/skew/skew-env.sh: also exports
#                      SYNCTRACE_TIMER=clock), built into OUT; else exit 1
#   clc_prog NAME      PROG=$OUT/clc_bench, built when missing or older than its source; on failure
#                      "NAME: cannot build clc_bench.c" and exit 1
#   clc_prog_omp       HPROG=$OUT/clc_bench_omp, the hybrid build (clang's OpenMP), when clang is
#                      there; HPROG is then an executable, else a path that does not exist
clc_bench_setup() {
    O=$(cd "${O:-$ROOT}" && pwd)
    source "$ROOT/tests/bench/family.sh"
    fam_use "${BENCH_FAMILY:-$(bench_families | head -n 1)}" || { echo "$1: build first (make all)" >&2; exit 1; }
    OUT=$O/build/bench/$FAM
    LIB=$FAM_LIB
    BIN=$O/bin/synctrace
    export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
    mkdir -p "$OUT"
    [ -f "$LIB" ] && [ -x "$BIN" ] || { echo "$1: build first (make all)" >&2; exit 1; }
}

clc_bench_skew() {
    source "$ROOT/tests/skew/skew-env.sh"
    SKEW=$(skew_build "$OUT") || { echo "$1: cannot build the skew library" >&2; exit 1; }
}

clc_prog() {
    PROG=$OUT/clc_bench
    if [ ! -x "$PROG" ] || [ "$ROOT/tests/bench/clc_bench.c" -nt "$PROG" ]; then
        "${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$PROG" "$ROOT/tests/bench/clc_bench.c" ||
            { echo "$1: cannot build clc_bench.c" >&2; exit 1; }
    fi
}

clc_prog_omp() {
    HPROG=$OUT/clc_bench_omp
    if command -v clang >/dev/null && { [ ! -x "$HPROG" ] || [ "$ROOT/tests/bench/clc_bench.c" -nt "$HPROG" ]; }; then
        "${FAM_CC_CLANG[@]}" -std=c11 -D_GNU_SOURCE -O2 -fopenmp -o "$HPROG" "$ROOT/tests/bench/clc_bench.c" || rm -f "$HPROG"
    fi
}
