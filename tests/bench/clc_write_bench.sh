#!/usr/bin/env bash
# tests/bench/clc_write_bench.sh — CLC against the archive write on the usual trace (docs/performance.md, "CLC versus the archive write").
#
# clc_bench.sh measures CLC where every message direction needs corrections (SYNCTRACE_SYNC=none)
# and the events fit the buffers. This one runs a normal traced run: the default buffer (full
# buffers are flushed and read back at MPI_Finalize), clock synchronization on, every rank on its
# own skewed clock and simulated node (tests/skew, offsets up to 3 ms; SYNCTRACE_NODE_SIZE=1), so
# the trace is consistent and CLC checks it and moves nothing (the column "moved" says when it
# did). 10^6 events per rank by default (CLC_WRITE_EVENTS), at CLC_WRITE_NP ranks (default
# "2 4 8", oversubscribed past the cores), CLC_WRITE_REPS runs each (default 3), medians:
#   clc ms        SYNCTRACE::FINALIZE_CLC_MS (wall, slowest rank), CPU: ..._CPU_MS
#   analysis ms   SYNCTRACE::FINALIZE_ANALYSIS_MS, the in-run wait-state analysis after CLC (CPU)
#   root causes ms  SYNCTRACE::FINALIZE_ROOTCAUSE_MS, the part of the analysis the root causes took (CPU)
#   write ms      the archive write (rank 0's SYNCTRACE_VERBOSE=1 line, up to the closing agreement)
# Workloads: mpi (tests/bench/clc_bench.c, 28.5 events per iteration and rank) and hybrid (its
# OpenMP build with 2 threads, KMP_BLOCKTIME=0, 62.5 events per iteration and rank), when clang
# with OpenMP is there. Target: clc ms < write ms. Prints a markdown table (also in
# $O/build/bench/clc-write-report.md). Environment: O (build root), CLC_WRITE_EVENTS,
# CLC_WRITE_NP, CLC_WRITE_REPS.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/clc_prog.sh"
clc_bench_setup clc_write_bench
EVENTS=${CLC_WRITE_EVENTS:-1000000}
NPS=${CLC_WRITE_NP:-"2 4 8"}
REPS=${CLC_WRITE_REPS:-3}
case $EVENTS$REPS in *[!0-9]*) echo "clc_write_bench: CLC_WRITE_EVENTS and CLC_WRITE_REPS must be whole numbers" >&2; exit 2 ;; esac
clc_bench_skew clc_write_bench
clc_prog clc_write_bench
clc_prog_omp
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-clcwrite.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

prop() { "$BIN" info "$1" | awk -v k="SYNCTRACE::$2" '$1 == k {print $2}'; }

# run NP DIR PROG ARGS...: one traced run, its figures appended to $TMP/<column>
run() {
    local np=$1 dir=$2
    shift 2
    rm -rf "$dir"
    fam_cmd "$np" LD_PRELOAD="$SKEW:$LIB" SYNCTRACE_DIR="$dir" SYNCTRACE_NODE_SIZE=1 SYNCTRACE_VERBOSE=1 \
        SKEW_PER_RANK=1 SKEW_OFFSET_NS=3000000 SKEW_SEED=9 SKEW_T0_NS="$(skew_t0)" OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 \
        LIBOMP_USE_HIDDEN_HELPER_TASK=0 SYNCTRACE_TIMER=clock -- "$@"
    timeout -k 10 1200 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
        { echo "clc_write_bench: run failed ($np ranks, $*): $(tail -n 3 "$TMP/err.txt")" >&2; return 1; }
    sed -nE 's/.*MPI_Finalize: .*archive write ([0-9.]+) ms.*/\1/p' "$TMP/err.txt" | head -n 1 >>"$TMP/write"
    "$BIN" info "$dir" | awk -v np="$np" '$1 == "events:" {print int($2 / np)}' >>"$TMP/ev"
    prop "$dir" CLC_MOVED >>"$TMP/moved"
    prop "$dir" FINALIZE_CLC_MS >>"$TMP/clc"
    prop "$dir" FINALIZE_CLC_CPU_MS >>"$TMP/cpu"
    prop "$dir" FINALIZE_ANALYSIS_MS >>"$TMP/an"
    prop "$dir" FINALIZE_ANALYSIS_CPU_MS >>"$TMP/ancpu"
    prop "$dir" FINALIZE_ROOTCAUSE_MS >>"$TMP/rc"
    prop "$dir" FINALIZE_ROOTCAUSE_CPU_MS >>"$TMP/rccpu"
    rm -rf "$dir"
}

report=$OUT/clc-write-report.md
: >"$report"
status=0
# table NAME EVENTS_PER_ITERATION PROG [THREADS]
table() {
    local name=$1 per=$2 prog=$3 threads=${4:-}
    local iters=$(( EVENTS * 10 / per ))
    {
        echo "### $name: $prog $iters $threads"
        echo
        echo "| ranks | events/rank | clc ms | clc CPU ms | write ms | analysis ms (CPU) | root causes ms (CPU) | moved (max) | clc < write |"
        echo "|---|---|---|---|---|---|---|---|---|"
    } >>"$report"
    for np in $NPS; do
        for f in write ev moved clc cpu an ancpu rc rccpu; do : >"$TMP/$f"; done
        for rep in $(seq "$REPS"); do
            run "$np" "$TMP/a" "$prog" "$iters" $threads || status=1
        done
        local ev clc cpu wr an ancpu rc rccpu moved ok
        ev=$(median <"$TMP/ev"); clc=$(median <"$TMP/clc"); cpu=$(median <"$TMP/cpu"); wr=$(median <"$TMP/write")
        an=$(median <"$TMP/an"); ancpu=$(median <"$TMP/ancpu"); moved=$(sort -g "$TMP/moved" | tail -n 1)
        rc=$(median <"$TMP/rc"); rccpu=$(median <"$TMP/rccpu")
        ok=$(awk -v c="$clc" -v w="$wr" 'BEGIN {print (c == "nan" || w == "nan") ? "n/a" : (c + 0 < w + 0) ? "yes" : "NO"}')
        printf '| %s | %s | %.1f | %.1f | %.1f | %.1f (%.1f) | %.1f (%.1f) | %s | %s |\n' "$np" "$ev" "$clc" "$cpu" "$wr" \
            "$an" "$ancpu" "$rc" "$rccpu" "${moved:-?}" "$ok" >>"$report"
    done
    echo >>"$report"
}
table mpi 285 "$PROG"
if [ -x "$HPROG" ]; then table hybrid 625 "$HPROG" 2; fi
echo "## CLC against the archive write, consistent trace ($(fam_label); sync on, default buffer, $(nproc) cores, medians of $REPS; load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
cat "$report"
exit $status
