#!/usr/bin/env bash
# scripts/demo.sh — builds the bundled hybrid example, traces it and prints the summary (`make demo`).
#
# Steps: build examples/hybrid_demo.c with the MPI family's compiler on clang (-fopenmp: LLVM's
# libomp, whose OMPT interface synctrace uses), run it as 2 ranks x 2 threads under
# bin/synctrace-run with that family's launcher into a new directory, print `synctrace info` of the
# archive. About 5 s on a 2-core machine.
#   MPICH (the default when installed)  mpicc.mpich -cc=clang, mpiexec.mpich, lib/mpich/
#   Open MPI (make demo MPI=openmpi)    OMPI_CC=clang mpicc.openmpi, mpirun.openmpi, lib/openmpi/
# synctrace-run chooses the library from the program's MPI (and passes its settings with -x under
# Open MPI); the demo names the family's compiler and launcher explicitly, never the plain
# mpicc/mpirun, which Debian's alternatives may point to either family.
# Open MPI refuses to start as root and to start more ranks than cores. When the demo runs as root
# under Open MPI it sets OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 for its own
# launch only, and says so: the demo is run on fresh machines and containers where root is the
# usual user, and it only runs the bundled example (synctrace itself never sets them for a user's
# run). With more ranks than cores it adds --oversubscribe to the command it shows.
#
# usage: scripts/demo.sh [ARCHIVE_DIR]     (default: $O/demo/trace-YYYYMMDD-HHMMSS)
# Environment: O = build output root (make O=...), DEMO_MPI (mpich or openmpi; default mpich when
#              installed, else openmpi; make demo MPI=...), DEMO_NP (2), OMP_NUM_THREADS (2),
#              DEMO_ARGS (program arguments: "steps points_per_rank"), DEMO_TIMEOUT (120 s).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
O=$(cd "${O:-$ROOT}" 2>/dev/null && pwd) || { echo "demo: error: build directory O='${O:-}' does not exist; run make first" >&2; exit 1; }
NP=${DEMO_NP:-2}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# Ranks x threads may exceed the cores: let idle OpenMP threads sleep at once instead of spinning
# for 200 ms (LLVM libomp's default), which would steal the core another rank needs.
export KMP_BLOCKTIME=${KMP_BLOCKTIME:-0}

MAKE_CMD="make"
[ "$O" = "$ROOT" ] || MAKE_CMD="make O=$O"
n=0
step() { n=$((n + 1)); printf '\n[%d/4] %s\n' "$n" "$*"; }
die()  { printf '\ndemo: error: %s\n' "$*" >&2; exit 1; }

MPI=${DEMO_MPI:-}
if [ -z "$MPI" ]; then
    MPI=mpich
    command -v mpicc.mpich >/dev/null 2>&1 || ! command -v mpicc.openmpi >/dev/null 2>&1 || MPI=openmpi
fi
case $MPI in
mpich)
    CC_CMD=(mpicc.mpich -cc=clang) CC_SHOWN="mpicc.mpich -cc=clang" LAUNCH=(mpiexec.mpich) ;;
openmpi)
    CC_CMD=(env OMPI_CC=clang mpicc.openmpi) CC_SHOWN="OMPI_CC=clang mpicc.openmpi" LAUNCH=(mpirun.openmpi) ;;
*) die "MPI='$MPI': the demo runs under mpich or openmpi (make demo MPI=openmpi)" ;;
esac
[ "$MPI" = openmpi ] && [ "$NP" -gt "$(nproc)" ] && LAUNCH+=(--oversubscribe)
LIB=$O/lib/$MPI/libsynctrace.so
[ -e "$LIB" ] || [ "$MPI" != mpich ] || LIB=$O/lib/libsynctrace.so # a build from before the per-family libraries

RUN=$O/bin/synctrace-run
CLI=$O/bin/synctrace
EXE=$O/build/examples/$MPI/hybrid_demo
DIR=${1:-$O/demo/trace-$(date +%Y%m%d-%H%M%S)}

step "checking the tools and the build (MPI family: $MPI)"
for t in "mpicc.$MPI" "${LAUNCH[0]}" clang; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found; run: bash scripts/install-deps.sh"
done
for f in "$LIB" "$RUN" "$CLI"; do
    [ -e "$f" ] || die "$f is not built; run: $MAKE_CMD"
done
[ ! -e "$DIR" ] || die "$DIR exists already; give a new directory: scripts/demo.sh DIR"
echo "    library  $LIB"
echo "    archive  $DIR"
if [ "$MPI" = openmpi ] && [ "$(id -u)" = 0 ] && [ -z "${OMPI_ALLOW_RUN_AS_ROOT:-}" ]; then
    # Open MPI refuses root without both; set for this demo's launch only (see the header)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    echo "    running as root: the demo sets OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 for its"
    echo "    own mpirun (Open MPI refuses root without them); for your runs as root, set them yourself"
fi

step "building examples/hybrid_demo.c ($CC_SHOWN -fopenmp)"
mkdir -p "$(dirname "$EXE")"
cmd=("${CC_CMD[@]}" -fopenmp -std=c11 -O2 -g -Wall -Wextra -I"$ROOT/include" -o "$EXE" "$ROOT/examples/hybrid_demo.c" -lm)
echo "    $CC_SHOWN ${cmd[*]:${#CC_CMD[@]}}"
"${cmd[@]}" || die "building the example failed (command above)"

step "tracing: synctrace-run -o DIR ${LAUNCH[*]} -n $NP hybrid_demo  (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
# shellcheck disable=SC2086
if ! timeout "${DEMO_TIMEOUT:-120}" "$RUN" -o "$DIR" "${LAUNCH[@]}" -n "$NP" "$EXE" ${DEMO_ARGS:-}; then
    die "the traced run failed or timed out after ${DEMO_TIMEOUT:-120} s (output above); retry with SYNCTRACE_VERBOSE=2"
fi
[ -e "$DIR/traces.otf2" ] || die "the run ended but $DIR/traces.otf2 was not written (SYNCTRACE_VERBOSE=1 tells more)"

step "summary: synctrace info $DIR"
"$CLI" info "$DIR" || die "'synctrace info $DIR' failed"

cat <<EOF

demo done. The archive: $DIR
  synctrace dump $DIR | less       every event, in corrected global time
  otf2-print $DIR/traces.otf2      the raw OTF2 records
  vite $DIR/traces.otf2            the timeline in ViTE (Debian package vite, which make demo does not install; Vampir or any OTF2 reader opens it too)
  synctrace export $DIR --chrome demo.json   the timeline for Perfetto UI / chrome://tracing
EOF
