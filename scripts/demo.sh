#!/usr/bin/env bash
# scripts/demo.sh — builds the bundled hybrid example, traces it and prints the summary (`make demo`).
#
# Steps: build examples/hybrid_demo.c with MPICH's mpicc on clang (-fopenmp: LLVM's libomp, whose
# OMPT interface synctrace uses), run it as 2 ranks x 2 threads under bin/synctrace-run into a new
# directory, print `synctrace info` of the archive. About 5 s on a 2-core machine.
#
# usage: scripts/demo.sh [ARCHIVE_DIR]     (default: $O/demo/trace-YYYYMMDD-HHMMSS)
# Environment: O = build output root (make O=...), DEMO_NP (2), OMP_NUM_THREADS (2),
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

RUN=$O/bin/synctrace-run
CLI=$O/bin/synctrace
EXE=$O/build/examples/hybrid_demo
DIR=${1:-$O/demo/trace-$(date +%Y%m%d-%H%M%S)}

step "checking the tools and the build"
for t in mpicc mpiexec clang; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found; run: bash scripts/install-deps.sh"
done
for f in "$O/lib/libsynctrace.so" "$RUN" "$CLI"; do
    [ -e "$f" ] || die "$f is not built; run: $MAKE_CMD"
done
[ ! -e "$DIR" ] || die "$DIR exists already; give a new directory: scripts/demo.sh DIR"
echo "    library  $O/lib/libsynctrace.so"
echo "    archive  $DIR"

step "building examples/hybrid_demo.c (mpicc -cc=clang -fopenmp)"
mkdir -p "$(dirname "$EXE")"
cmd=(mpicc -cc=clang -fopenmp -std=c11 -O2 -g -Wall -Wextra -I"$ROOT/include" -o "$EXE" "$ROOT/examples/hybrid_demo.c" -lm)
echo "    ${cmd[*]}"
"${cmd[@]}" || die "building the example failed (command above)"

step "tracing: synctrace-run -o DIR mpiexec -n $NP hybrid_demo  (OMP_NUM_THREADS=$OMP_NUM_THREADS)"
# shellcheck disable=SC2086
if ! timeout "${DEMO_TIMEOUT:-120}" "$RUN" -o "$DIR" mpiexec -n "$NP" "$EXE" ${DEMO_ARGS:-}; then
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
