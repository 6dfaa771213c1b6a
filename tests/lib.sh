# tests/lib.sh — helpers sourced by every integration test script (tests/<area>/t_*.sh).
#
# The runner exports: ST_ROOT (repo root), ST_MPI (the MPI family of this run: mpich or openmpi), ST_O
# (the build output root, make O=...), ST_BIN (bin/), ST_BUILD (build/tests/<family>: compiled test
# programs), ST_TMP (fresh empty dir for this test). ST_LIB is set here: the shim built for ST_MPI.
# A test script exits 0 on success; `fail` prints one line and exits 1; `skip` exits 77.
#
# MPI families. A test never calls plain mpicc/mpiexec (Debian's alternatives choose what those are);
# it calls the functions below, which name the implementation of ST_MPI explicitly. A test that also
# runs on Open MPI says so in a line `# families: mpich openmpi` (tests/run-tests.sh); a script
# sourced outside the runner (benchmarks) sets ST_ROOT and, optionally, ST_MPI (default mpich).
#   ST_LIB                    $O/lib/$ST_MPI/libsynctrace.so (the runner's O; exported)
#   mpi_cc ARGS...            the family's C compiler wrapper: mpicc.mpich | mpicc.openmpi
#   mpi_cc_clang ARGS...      the same on clang (OpenMP programs on LLVM's libomp)
#   mpi_cxx ARGS...           C++: mpicxx.mpich | mpicxx.openmpi; mpi_cxx_clang ARGS...: on clang++
#   mpi_f90 ARGS...           Fortran: mpif90.mpich | mpif90.openmpi
#   mpi_incflags              prints the -I flags of the family's mpi.h (for libraries built with gcc)
#   mpi_cmd [-e NAME=VALUE]... ARGS...
#                             sets the array MPI_CMD to a launcher command line: mpiexec.mpich |
#                             mpirun.openmpi --oversubscribe, each -e NAME=VALUE passed to the ranks
#                             (-genv NAME VALUE | -x NAME=VALUE), then ARGS (-n N PROG ARGS...) as they
#                             are. For `timeout S "${MPI_CMD[@]}"`, background jobs to signal, synctrace-run.
#   mpi_run [-t SECONDS] [-e NAME=VALUE]... ARGS...
#                             runs that command line (under `timeout SECONDS` with -t)
#   MPI_LAUNCHER              the launcher's name (mpiexec.mpich | mpirun.openmpi), e.g. for messages
#   MPI_RANK_VAR              the environment variable holding a rank's number (PMI_RANK | OMPI_COMM_WORLD_RANK)
# Open MPI's root settings (OMPI_ALLOW_RUN_AS_ROOT*) are exported here, for the tests only: the tool
# never sets them for the user.

set -euo pipefail
: "${ST_ROOT:?run tests through tests/run-tests.sh}"
ST_MPI=${ST_MPI:-mpich}
# mpi_family FAM: sets the MPI_* names above for FAM (mpich | openmpi); the harness calls it for ST_MPI,
# a test that runs both families calls it in a subshell for the other
mpi_family() {
    case $1 in
    mpich)
        MPI_CC=mpicc.mpich MPI_CXX=mpicxx.mpich MPI_F90=mpif90.mpich MPI_LAUNCHER=mpiexec.mpich
        MPI_OVERSUB= MPI_RANK_VAR=PMI_RANK ;;
    openmpi)
        MPI_CC=mpicc.openmpi MPI_CXX=mpicxx.openmpi MPI_F90=mpif90.openmpi MPI_LAUNCHER=mpirun.openmpi
        MPI_OVERSUB=--oversubscribe MPI_RANK_VAR=OMPI_COMM_WORLD_RANK
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
    *) echo "FAIL: MPI family '$1': expected mpich or openmpi" >&2; exit 1 ;;
    esac
    ST_MPI=$1
}
mpi_family "$ST_MPI"
export ST_MPI
export ST_LIB=${ST_O:-$ST_ROOT}/lib/$ST_MPI/libsynctrace.so
# until the build makes lib/<family>/: the one library there is, MPICH's
[ -e "$ST_LIB" ] || [ "$ST_MPI" != mpich ] || ST_LIB=${ST_O:-$ST_ROOT}/lib/libsynctrace.so
ST_NP=${ST_NP:-4}
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
# every analysis in the tests (in-run and `synctrace analyze`) checks its metric tree and writes no report
# that breaks it (docs/analysis.md, "Consistency of the metric tree")
export SYNCTRACE_ANALYZE_CHECK=${SYNCTRACE_ANALYZE_CHECK:-fail}

mpi_cc() { "$MPI_CC" "$@"; }
mpi_cxx() { "$MPI_CXX" "$@"; }
mpi_f90() { "$MPI_F90" "$@"; }
mpi_cc_clang() {
    case $ST_MPI in mpich) "$MPI_CC" -cc=clang "$@" ;; openmpi) OMPI_CC=clang "$MPI_CC" "$@" ;; esac
}
mpi_cxx_clang() {
    case $ST_MPI in mpich) "$MPI_CXX" -cxx=clang++ "$@" ;; openmpi) OMPI_CXX=clang++ "$MPI_CXX" "$@" ;; esac
}
mpi_incflags() { "$MPI_CC" -show | tr ' ' '\n' | grep -- '^-I' | tr '\n' ' '; }
mpi_cmd() {
    MPI_CMD=("$MPI_LAUNCHER" $MPI_OVERSUB)
    while [ "${1:-}" = -e ]; do
        case $ST_MPI in mpich) MPI_CMD+=(-genv "${2%%=*}" "${2#*=}") ;; openmpi) MPI_CMD+=(-x "$2") ;; esac
        shift 2
    done
    MPI_CMD+=("$@")
}
mpi_run() {
    local tmo=()
    [ "${1:-}" = -t ] && { tmo=(timeout -k 10 "$2"); shift 2; }
    mpi_cmd "$@"
    "${tmo[@]}" "${MPI_CMD[@]}"
}

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
        mpi_cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$ST_ROOT/include" -o "$out" "$src" "$@" -lm \
            || fail "cannot build $src"
    fi
    echo "$out"
}

# build_slow_spill -> the path of tests/mpi/slow_spill.c built as a library (in $ST_TMP): preloaded
# before the shim, it slows the spill writes (SLOW_SPILL_MS) so that the writer thread falls behind.
build_slow_spill() {
    local so=$ST_TMP/libslow_spill.so
    gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -o "$so" "$ST_ROOT/tests/mpi/slow_spill.c" -ldl >&2 \
        || fail "cannot build slow_spill.c"
    echo "$so"
}

# build_mpi_omp NAME SRC [extra flags...] -> $ST_BUILD/NAME: MPI + OpenMP with clang (LLVM libomp,
# whose OMPT the shim uses), built once per run
build_mpi_omp() {
    local name=$1 src=$2; shift 2
    local out="$ST_BUILD/$name"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        mpi_cc_clang -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -fopenmp -o "$out" "$src" "$@" \
            || fail "cannot build $src"
    fi
    echo "$out"
}

# build_mpi_f90 NAME SRC -> $ST_BUILD/NAME
build_mpi_f90() {
    local name=$1 src=$2; shift 2
    local out="$ST_BUILD/$name"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        mpi_f90 -O1 -g -o "$out" "$src" "$@" || fail "cannot build $src"
    fi
    echo "$out"
}

# run_traced DIR NP PROG [args...]: runs PROG under the family's launcher with the shim, archive in DIR.
# Extra environment for the ranks: put it in ST_ENV as "VAR=value VAR2=value2".
# stdout of the application goes to $ST_TMP/out.txt, stderr to $ST_TMP/err.txt; returns its exit code
# (1 if it was 0 but the analysis at MPI_Finalize found its metric tree broken).
run_traced() {
    local dir=$1 np=$2; shift 2
    local envargs=(-e SYNCTRACE_DIR="$dir")
    local kv
    for kv in ${ST_ENV:-}; do envargs+=(-e "$kv"); done
    local pre="$ST_LIB"
    [ -n "${ST_PRELOAD_FIRST:-}" ] && pre="$ST_PRELOAD_FIRST:$ST_LIB"
    local rc=0
    mpi_run -t "${ST_TIMEOUT:-120}" "${envargs[@]}" -e LD_PRELOAD="$pre" -n "$np" "$@" \
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
    mpi_run -t "${ST_TIMEOUT:-120}" -n "$np" "$@" >"$ST_TMP/plain.txt" 2>"$ST_TMP/plain-err.txt"
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

# same_in_parallel WHAT DIR SERIAL OUT: `mpi_run -n 2 synctrace analyze DIR -o OUT` writes, byte for byte,
# the analysis.json the serial analysis wrote (SERIAL); fails naming WHAT otherwise.
same_in_parallel() {
    mpi_run -t 120 -n 2 "$ST_BIN/synctrace" analyze "$2" -o "$4" >"$4.txt" 2>&1 ||
        fail "$1: $MPI_LAUNCHER -n 2 synctrace analyze failed: $(tail -n 3 "$4.txt")"
    cmp -s "$4" "$3" || fail "$1: the parallel analysis over 2 processes differs from the serial one"
}

# tool_stderr FILE: FILE without the wait-state summary a traced MPI run ends with
# (SYNCTRACE_ANALYZE, docs/analysis.md): what is left is noise a test may forbid.
tool_stderr() { sed '/^wait states: /,/^wait-state analysis: /d' "$1"; }
