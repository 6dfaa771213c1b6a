# tests/bench/family.sh — sourced by the benchmarks: which MPI families to measure and how to
# compile, launch and preload for one of them. The build and the launcher are always named per
# family (mpicc.mpich / mpiexec.mpich, mpicc.openmpi / mpirun.openmpi), never the plain names,
# which Debian's alternatives may point to either.
#
#   bench_families       prints the families to measure, one per line: BENCH_MPI if set ("mpich",
#                        "openmpi" or both, space-separated), else every family whose library
#                        $O/lib/<fam>/libsynctrace.so is built and whose mpicc.<fam> is installed;
#                        a build without per-family libraries ($O/lib/libsynctrace.so only) is mpich.
#   fam_use FAM          sets FAM, FAM_CC (the family's C compiler wrapper, an array: on clang
#                        with FAM_CC_CLANG), FAM_LIB (the library to preload) and FAM_LAUNCH (the
#                        launcher and its fixed options, an array). Under Open MPI it exports
#                        OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1 (the benchmark may run as root; the tool
#                        never sets them for the user), passes --oversubscribe (the benches run more
#                        ranks than this machine has cores) and, unless the caller set it,
#                        OMPI_MCA_btl_vader_single_copy_mechanism=none (see below). Returns 1 with a
#                        message when the family's compiler, launcher or library is missing.
#   fam_cmd NP [NAME=VALUE...] -- PROG [ARGS...]
#                        sets CMD (array): the launch of NP ranks of PROG with those variables
#                        passed to every rank (-genv NAME VALUE for MPICH's hydra, -x NAME=VALUE for
#                        Open MPI); run it as `timeout S "${CMD[@]}"`.
#   fam_label            "MPICH 4.0.2" / "Open MPI 4.1.4": the family and its version, for headers.
#   bench_start NAME     the common start of a per-family part: fam_use of BENCH_FAMILY (else the first
#                        family of bench_families; exits 1 when it cannot), LIB (the family's library),
#                        BUILD ($O/build/bench/<fam>, created), TMP (a new directory removed at exit)
#                        and die MESSAGE (one line "NAME: MESSAGE", exit 1).
#   median               the median of the numbers on stdin, one a line ("nan" without any)
#   calc EXPR [DIGITS]   EXPR evaluated by awk, printed with DIGITS decimals (default 1)
#
# Open MPI's shared-memory transport copies large messages with CMA (process_vm_readv) by default;
# in this machine's container that made a 64 KiB one-way message take 270-540 us (5.6 us with
# the copy-in/copy-out path), for traced and untraced runs alike, which would drown the figure.
# The bench therefore uses the copy-in/copy-out path and says so in its output (FAM_NOTE).

bench_families() {
    if [ -n "${BENCH_MPI:-}" ]; then
        printf '%s\n' $BENCH_MPI
        return
    fi
    local f found=0
    for f in mpich openmpi; do
        if [ -f "$O/lib/$f/libsynctrace.so" ] && command -v "mpicc.$f" >/dev/null; then
            echo "$f"
            found=1
        fi
    done
    [ $found = 1 ] || echo mpich
}

fam_use() {
    FAM=$1
    FAM_NOTE=
    case $FAM in
    mpich)
        FAM_CC=(mpicc.mpich)
        FAM_CC_CLANG=(mpicc.mpich -cc=clang)
        FAM_LAUNCH=(mpiexec.mpich)
        ;;
    openmpi)
        FAM_CC=(mpicc.openmpi)
        FAM_CC_CLANG=(env OMPI_CC=clang mpicc.openmpi)
        FAM_LAUNCH=(mpirun.openmpi --oversubscribe)
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        if [ -z "${OMPI_MCA_btl_vader_single_copy_mechanism+set}" ]; then
            export OMPI_MCA_btl_vader_single_copy_mechanism=none
            FAM_NOTE="Open MPI: OMPI_MCA_btl_vader_single_copy_mechanism=none (CMA was 50-100x slower here at 64 KiB)"
        fi
        ;;
    *)
        echo "bench: unknown MPI family '$FAM' (mpich or openmpi)" >&2
        return 1
        ;;
    esac
    FAM_LIB=$O/lib/$FAM/libsynctrace.so
    # a build from before the per-family libraries: lib/libsynctrace.so is MPICH's
    [ -f "$FAM_LIB" ] || [ "$FAM" != mpich ] || FAM_LIB=$O/lib/libsynctrace.so
    command -v "${FAM_CC[0]}" >/dev/null || { echo "bench: ${FAM_CC[0]} not installed" >&2; return 1; }
    command -v "${FAM_LAUNCH[0]}" >/dev/null || { echo "bench: ${FAM_LAUNCH[0]} not installed" >&2; return 1; }
    [ -f "$FAM_LIB" ] || { echo "bench: no $FAM_LIB: run make first" >&2; return 1; }
}

fam_cmd() {
    local np=$1
    shift
    CMD=("${FAM_LAUNCH[@]}" -n "$np")
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        case $FAM in
        mpich) CMD+=(-genv "${1%%=*}" "${1#*=}") ;;
        openmpi) CMD+=(-x "$1") ;;
        esac
        shift
    done
    [ "${1:-}" = -- ] && shift
    CMD+=("$@")
}

fam_label() {
    case $FAM in
    mpich) echo "MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')" ;;
    openmpi) echo "Open MPI $(mpirun.openmpi --version 2>/dev/null | sed -nE 's/^mpirun[^ ]* \(Open(RTE| MPI)\) //p' | head -n 1)" ;;
    esac
}

bench_start() {
    BENCH_NAME=$1
    fam_use "${BENCH_FAMILY:-$(bench_families | head -n 1)}" || exit 1
    LIB=$FAM_LIB
    BUILD=$O/build/bench/$FAM
    mkdir -p "$BUILD"
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-$BENCH_NAME.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
}

die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 1; }

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

calc() { awk "BEGIN {printf \"%.${2:-1}f\", $1}"; }
