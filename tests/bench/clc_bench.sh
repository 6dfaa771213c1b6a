#!/usr/bin/env bash
# tests/bench/clc_bench.sh — cost of the CLC correction at MPI_Finalize.
#
# Workloads: tests/bench/clc_bench.c, 2, 4 and 8 ranks on per-rank skewed clocks (tests/skew,
# offsets up to 3 ms, SYNCTRACE_SYNC=none: every message direction needs corrections):
#   mpi     a communication-bound loop (ring messages, nonblocking exchanges with both
#           neighbours, an allreduce every 4th iteration): the worst case for the
#           replay, which must follow the message chain hop by hop like the application;
#   hybrid  the same plus a 2-thread OpenMP region per iteration (when clang/OMPT is
#           available): most events are then local to a process, as in hybrid codes.
# For each workload and rank count, CLC_BENCH_REPS pairs of runs (default 3), one with
# SYNCTRACE_CLC=on and one with =off; medians of:
#   events/rank     events of the archive / ranks
#   clc ms          SYNCTRACE::FINALIZE_CLC_MS (wall, slowest rank) and ..._CPU_MS (CPU)
#   clc ms/Mev      clc wall ms per million events per rank
#   write ms        the archive write of the same (CLC on) run, rank 0's wall time up to
#                   the closing agreement of all ranks (SYNCTRACE_VERBOSE=1 log line)
#   finalize on/off MPI_Finalize wall time measured by the program (sync + trace
#                   preparation + CLC + write / the same without CLC)
# Target: CLC costs less than writing the archive (clc ms < write ms, same run). The machine may
# have fewer cores than ranks: ranks then wait for each other's time slices, which shows in
# the wall times (CPU ms stays per rank). Prints a markdown table (also in
# $O/build/bench/clc-report.md). Environment: O (build root), CLC_BENCH_REPS,
# CLC_BENCH_ITERS (iterations per run, default 10000), CLC_BENCH_NP (default "2 4 8"),
# CLC_BENCH_BUFFER (SYNCTRACE_BUFFER, default: room for the run's events, see below).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/clc_prog.sh"
clc_bench_setup clc_bench
REPS=${CLC_BENCH_REPS:-3}
ITERS=${CLC_BENCH_ITERS:-10000}
NPS=${CLC_BENCH_NP:-"2 4 8"}
clc_bench_skew clc_bench
clc_prog clc_bench
clc_prog_omp
export KMP_BLOCKTIME=0
# Per-thread buffer: room for the run's events (64 B each, 285k per rank at the default
# 10000 iterations) so nothing is flushed; not more: buffers are pre-faulted, and 512M
# per thread made CLC and writing 1.5x slower at 4 ranks (page allocation, not the work).
BUFFER=${CLC_BENCH_BUFFER:-$(( (ITERS * 29 * 64 * 3 / 2) / 1048576 + 8 ))M}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-clcbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

prop() { "$BIN" info "$1" | awk -v k="SYNCTRACE::$2" '$1 == k {print $2}'; }

# run NP CLC DIR -> prints "finalize_ms events write_ms"; runs $WPROG $WARGS
run() {
    local np=$1 clc=$2 dir=$3
    rm -rf "$dir"
    fam_cmd "$np" SYNCTRACE_DIR="$dir" SYNCTRACE_CLC="$clc" SYNCTRACE_SYNC=none SYNCTRACE_BUFFER="$BUFFER" \
        SKEW_PER_RANK=1 SKEW_OFFSET_NS=3000000 SKEW_SEED=9 SKEW_T0_NS="$(skew_t0)" KMP_BLOCKTIME=0 SYNCTRACE_VERBOSE=1 \
        SYNCTRACE_TIMER=clock LD_PRELOAD="$SKEW:$LIB" -- $WPROG $WARGS
    timeout -k 10 600 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
        { echo "clc_bench: run failed ($np ranks, CLC $clc): $(tail -n 3 "$TMP/err.txt")" >&2; return 1; }
    local f ev w
    f=$(awk '$1 == "finalize_ms" {print $2}' "$TMP/out.txt")
    ev=$("$BIN" info "$dir" | awk '$1 == "events:" {print $2}')
    w=$(sed -nE 's/.*MPI_Finalize: .*archive write ([0-9.]+) ms.*/\1/p' "$TMP/err.txt" | head -n 1)
    echo "$f $ev ${w:-nan}"
}

report=$OUT/clc-report.md
: >"$report"
status=0
# table NAME PROG ARGS...: one table for a workload
table() {
    local name=$1
    WPROG=$2
    shift 2
    WARGS="$*"
    {
        echo "### $name: $WPROG $WARGS"
        echo
        echo "| ranks | events/rank | clc ms | clc CPU ms | clc ms/Mev/rank | write ms | finalize on ms | finalize off ms | clc < write |"
        echo "|---|---|---|---|---|---|---|---|---|"
    } >>"$report"
    for np in $NPS; do
        : >"$TMP/on" && : >"$TMP/off" && : >"$TMP/clc" && : >"$TMP/cpu" && : >"$TMP/ev" && : >"$TMP/write"
        for rep in $(seq "$REPS"); do
            r=$(run "$np" on "$TMP/a-$np-$rep") || { status=1; continue; }
            read -r f e w <<<"$r"
            echo "$f" >>"$TMP/on"
            echo $(( e / np )) >>"$TMP/ev"
            echo "$w" >>"$TMP/write"
            prop "$TMP/a-$np-$rep" FINALIZE_CLC_MS >>"$TMP/clc"
            prop "$TMP/a-$np-$rep" FINALIZE_CLC_CPU_MS >>"$TMP/cpu"
            r=$(run "$np" off "$TMP/b-$np-$rep") || { status=1; continue; }
            echo "${r%% *}" >>"$TMP/off"
            rm -rf "$TMP/a-$np-$rep" "$TMP/b-$np-$rep"
        done
        ev=$(median <"$TMP/ev"); clc=$(median <"$TMP/clc"); cpu=$(median <"$TMP/cpu")
        on=$(median <"$TMP/on"); off=$(median <"$TMP/off"); wr=$(median <"$TMP/write")
        permev=$(awk -v c="$clc" -v e="$ev" 'BEGIN {printf "%.0f", (e > 0) ? c / (e / 1e6) : 0}')
        ok=$(awk -v c="$clc" -v w="$wr" 'BEGIN {print (w == "nan") ? "n/a" : (c + 0 < w + 0) ? "yes" : "NO"}')
        printf '| %s | %s | %.1f | %.1f | %s | %.1f | %.1f | %.1f | %s |\n' "$np" "$ev" "$clc" "$cpu" "$permev" "$wr" "$on" "$off" "$ok" >>"$report"
    done
    echo >>"$report"
}
table mpi "$PROG" "$ITERS"
if [ -x "$HPROG" ]; then table hybrid "$HPROG" "$((ITERS / 4))" 2; fi
echo "## CLC at MPI_Finalize ($(fam_label); skewed clocks, SYNCTRACE_SYNC=none, $(nproc) cores, medians of $REPS)"
echo
cat "$report"
exit $status
