#!/usr/bin/env bash
# tests/bench/analysis_bench.sh — cost of the in-run wait-state analysis and root causes at
# MPI_Finalize, next to the CLC's and the archive writing's, on the workloads of clc_bench.sh (tests/bench/clc_bench.c,
# 2, 4 and 8 ranks, per-rank skewed clocks, SYNCTRACE_SYNC=none: CLC has work to do).
# For each workload and rank count, ANALYSIS_BENCH_REPS triples of runs (default 3):
#   on   SYNCTRACE_CLC=on, SYNCTRACE_ANALYZE=on (SYNCTRACE_ROOTCAUSE=on, the default):
#        FINALIZE_CLC_MS, FINALIZE_ANALYSIS_MS (the whole analysis) and FINALIZE_ROOTCAUSE_MS (the
#        part of it the root causes' timeline and replay took) (wall, slowest rank) and their
#        _CPU_MS (CPU, in parentheses) from the archive;
#   ws   the same with SYNCTRACE_ROOTCAUSE=off: FINALIZE_ANALYSIS_MS, the wait states alone;
#   off  all off: MPI_Finalize as measured by the program = sync + archive writing ("write ms").
# Medians; "ms/Mev" = ms per million events per rank; "rc added / wait states" = what the root
# causes add to the analysis (on less ws: their timeline, replay, and what they take from the
# wait-state patterns and the gather) over the wait states alone. Targets: analysis <= CLC, root
# causes <= the wait states (that ratio <= 1). On a machine with fewer cores than ranks (or busy
# with other work) the wall times include waiting for time slices; the CPU times do not.
# Prints a markdown table (also in $O/build/bench/analysis-report.md). Environment: O (build
# root), ANALYSIS_BENCH_REPS, ANALYSIS_BENCH_ITERS (iterations, default 10000),
# ANALYSIS_BENCH_NP (default "2 4 8"), BENCH_WARM_MB (default 0: off): before every run, touch and free
# that many MiB (tests/bench/warm_memory.c), so that the pages finalize gets fresh are ones the machine
# has just had in use (docs/performance.md, "Fresh memory on this machine": in this VM a page its host
# must back again costs 15-50 times one the guest freed a moment ago, and finalize's times swing with it).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/clc_prog.sh"
clc_bench_setup analysis_bench
REPS=${ANALYSIS_BENCH_REPS:-3}
ITERS=${ANALYSIS_BENCH_ITERS:-10000}
NPS=${ANALYSIS_BENCH_NP:-"2 4 8"}
clc_bench_skew analysis_bench
clc_prog analysis_bench
clc_prog_omp
export KMP_BLOCKTIME=0
WARM_MB=${BENCH_WARM_MB:-0}
WARM=$OUT/warm_memory
if [ "$WARM_MB" -gt 0 ] && { [ ! -x "$WARM" ] || [ "$ROOT/tests/bench/warm_memory.c" -nt "$WARM" ]; }; then
    cc -std=c11 -O2 -Wall -Wextra -Werror -o "$WARM" "$ROOT/tests/bench/warm_memory.c" ||
        { echo "analysis_bench: cannot build warm_memory.c" >&2; exit 1; }
fi
BUFFER=$(( (ITERS * 29 * 64 * 3 / 2) / 1048576 + 8 ))M # room for the run's events: no flushes (as clc_bench.sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-anabench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
prop() { "$BIN" info "$1" | awk -v k="SYNCTRACE::$2" '$1 == k {print $2}'; }

# run NP on|ws|off DIR -> prints "finalize_ms events"
run() {
    local np=$1 on=$2 dir=$3 rc=on
    [ "$on" = ws ] && on=on rc=off
    rm -rf "$dir"
    [ "$WARM_MB" -gt 0 ] && "$WARM" "$WARM_MB"
    fam_cmd "$np" SYNCTRACE_DIR="$dir" SYNCTRACE_CLC="$on" SYNCTRACE_ANALYZE="$on" SYNCTRACE_ROOTCAUSE="$rc" SYNCTRACE_SYNC=none \
        SYNCTRACE_BUFFER="$BUFFER" SKEW_PER_RANK=1 SKEW_OFFSET_NS=3000000 SKEW_SEED=9 SKEW_T0_NS="$(skew_t0)" \
        KMP_BLOCKTIME=0 SYNCTRACE_TIMER=clock LD_PRELOAD="$SKEW:$LIB" -- $WPROG $WARGS
    timeout -k 10 600 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
        { echo "analysis_bench: run failed ($np ranks, $on): $(tail -n 3 "$TMP/err.txt")" >&2; return 1; }
    local f ev
    f=$(awk '$1 == "finalize_ms" {print $2}' "$TMP/out.txt")
    ev=$("$BIN" info "$dir" | awk '$1 == "events:" {print $2}')
    echo "$f $ev"
}

report=$OUT/analysis-report.md
: >"$report"
status=0
per_mev() { awk -v c="$1" -v e="$2" 'BEGIN {printf "%.0f", (e > 0) ? c / (e / 1e6) : 0}'; }
table() {
    local name=$1
    WPROG=$2
    shift 2
    WARGS="$*"
    {
        echo "### $name: $WPROG $WARGS"
        echo
        echo "| ranks | events/rank | analysis ms (CPU) | analysis ms/Mev/rank (CPU) | of it root causes ms (CPU) | wait states alone ms (CPU) | rc added / wait states (CPU) | clc ms (CPU) | clc ms/Mev/rank (CPU) | write ms | write ms/Mev/rank | analysis <= clc (CPU) | rc added <= wait states (CPU) |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >>"$report"
    for np in $NPS; do
        for f in ana clc off ev anac clcc rc rcc ws wsc; do : >"$TMP/$f"; done
        for rep in $(seq "$REPS"); do
            r=$(run "$np" on "$TMP/a-$np-$rep") || { status=1; continue; }
            echo $(( ${r#* } / np )) >>"$TMP/ev"
            prop "$TMP/a-$np-$rep" FINALIZE_ANALYSIS_MS >>"$TMP/ana"
            prop "$TMP/a-$np-$rep" FINALIZE_CLC_MS >>"$TMP/clc"
            prop "$TMP/a-$np-$rep" FINALIZE_ANALYSIS_CPU_MS >>"$TMP/anac"
            prop "$TMP/a-$np-$rep" FINALIZE_CLC_CPU_MS >>"$TMP/clcc"
            prop "$TMP/a-$np-$rep" FINALIZE_ROOTCAUSE_MS >>"$TMP/rc"
            prop "$TMP/a-$np-$rep" FINALIZE_ROOTCAUSE_CPU_MS >>"$TMP/rcc"
            run "$np" ws "$TMP/w-$np-$rep" >/dev/null || { status=1; continue; }
            prop "$TMP/w-$np-$rep" FINALIZE_ANALYSIS_MS >>"$TMP/ws"
            prop "$TMP/w-$np-$rep" FINALIZE_ANALYSIS_CPU_MS >>"$TMP/wsc"
            r=$(run "$np" off "$TMP/b-$np-$rep") || { status=1; continue; }
            echo "${r% *}" >>"$TMP/off"
            rm -rf "$TMP/a-$np-$rep" "$TMP/w-$np-$rep" "$TMP/b-$np-$rep"
        done
        ev=$(median <"$TMP/ev"); ana=$(median <"$TMP/ana"); clc=$(median <"$TMP/clc"); off=$(median <"$TMP/off")
        anac=$(median <"$TMP/anac"); clcc=$(median <"$TMP/clcc"); rc=$(median <"$TMP/rc"); rcc=$(median <"$TMP/rcc")
        ws=$(median <"$TMP/ws"); wsc=$(median <"$TMP/wsc")
        ok=$(awk -v a="$ana" -v c="$clc" -v x="$anac" -v y="$clcc" \
            'BEGIN {printf "%s (%s)", (a + 0 <= c + 0) ? "yes" : "NO", (x + 0 <= y + 0) ? "yes" : "NO"}')
        # what the root causes add (with less without) over the wait states alone; n/a: a value missing
        added() { awk -v a="$1" -v w="$2" -v x="$3" -v y="$4" -v f="$5" 'function q(p, d) {
            if (p == "nan" || d == "nan" || d + 0 <= 0) return "n/a"
            return f == "ratio" ? sprintf("%.2f", (p - d) / d) : (p - d <= d + 0) ? "yes" : "NO" }
            BEGIN {printf "%s (%s)", q(a, w), q(x, y)}'; }
        printf '| %s | %s | %.1f (%.1f) | %s (%s) | %.1f (%.1f) | %.1f (%.1f) | %s | %.1f (%.1f) | %s (%s) | %.1f | %s | %s | %s |\n' \
            "$np" "$ev" "$ana" "$anac" "$(per_mev "$ana" "$ev")" "$(per_mev "$anac" "$ev")" "$rc" "$rcc" "$ws" "$wsc" \
            "$(added "$ana" "$ws" "$anac" "$wsc" ratio)" "$clc" "$clcc" "$(per_mev "$clc" "$ev")" "$(per_mev "$clcc" "$ev")" \
            "$off" "$(per_mev "$off" "$ev")" "$ok" "$(added "$ana" "$ws" "$anac" "$wsc" ok)" >>"$report"
    done
    echo >>"$report"
}
table mpi "$PROG" "$ITERS"
if [ -x "$HPROG" ]; then table hybrid "$HPROG" "$((ITERS / 4))" 2; fi
echo "## Wait-state analysis and root causes at MPI_Finalize ($(fam_label); skewed clocks, SYNCTRACE_SYNC=none, $(nproc) cores, medians of $REPS$([ "$WARM_MB" -gt 0 ] && echo ", $WARM_MB MiB warmed before each run"))"
echo
cat "$report"
exit $status
