#!/usr/bin/env bash
# tests/bench/scaling_bench.sh — how tracing costs grow with events per rank and with ranks.
#
# Workload: tests/bench/clc_bench.c (the MPI-only ring of the CLC benchmark, 28.5 events per
# iteration and rank), every rank on its own skewed clock and its own simulated node
# (tests/skew, offsets up to 3 ms; SYNCTRACE_NODE_SIZE=1), clock synchronization on (the
# default scheme) and the default SYNCTRACE_BUFFER (full buffers are flushed to the spill
# file), so every cost below is the one of a normal traced run:
#   record ns/ev    recording cost per event with the default buffer, flushes included
#                   (record_bench "flushing", one thread, as many events as a rank records;
#                   built by run-bench.sh, "-" when absent). Recording is per thread, without
#                   any cross-rank work: it is measured once per event count, not per rank
#                   count (on an oversubscribed machine the run time is scheduling noise)
#   record ms       record ns/ev x events of a rank
#   sync ms         initial sync (slowest rank, `synctrace info`) + the sync at MPI_Finalize
#   prep ms         collecting the trace (reading back the flushes) and preparing it
#   clc ms          SYNCTRACE::FINALIZE_CLC_MS (wall, slowest rank)
#   analysis ms     SYNCTRACE::FINALIZE_ANALYSIS_MS, the in-run wait-state analysis after CLC (wall,
#                   slowest rank)
#   rc ms           SYNCTRACE::FINALIZE_ROOTCAUSE_MS, the part of the analysis the root causes took
#                   (wall, slowest rank)
#   write ms        the archive write (rank 0, up to the closing agreement of all ranks)
#   MB/Mev          peak resident memory per rank (VmHWM) of the traced run minus the
#                   untraced one, per million events of the rank (largest rank)
#   peak MB         peak resident memory (VmHWM) of the largest traced rank
# A second table, "CPU per event", holds rank 0's CPU time of each finalize phase divided by its
# events (the SYNCTRACE_VERBOSE=2 line "MPI_Finalize: N events; this thread's CPU ms ..."), and the
# ratio of the tool's own finalize work (preparation + CLC + analysis) to the write: the target is
# at most 1 (docs/performance.md, "Finalize per event").
# The sync, prep and write figures come from rank 0's SYNCTRACE_VERBOSE=1 line
# "MPI_Finalize: sync .., trace preparation .., CLC .., wait-state analysis .., archive write ..".
# Series: events per rank at 2 ranks, and ranks (oversubscribed past the cores) at a fixed
# number of events per rank. BENCH_SCALING=quick (default, about 2 minutes: 1e5 and 1e6
# events per rank; 1, 2, 4, 8, 16 ranks at 1e5; one run each) or full (1e5, 1e6, 1e7; 1..16
# ranks at 1e6; then 1e7 events per rank at 16 ranks and 1e8 on one rank; SCALING_REPS runs
# each, default 3, medians) or big (the 1e8 row alone, one run). A row whose memory estimate (the formula of docs/performance.md:
# per rank 40 MB + SCALING_B_PER_EV bytes, default 200, per event) exceeds SCALING_MEM_MB
# (default: half of MemAvailable, at most 6144) is not run: the table says what it would need.
# Prints markdown tables (also $O/build/bench/scaling-report.md). Environment: O (build root),
# BENCH_SCALING, SCALING_REPS, SCALING_MEM_MB, SCALING_B_PER_EV.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/clc_prog.sh"
clc_bench_setup scaling_bench
MODE=${BENCH_SCALING:-quick}
case $MODE in
quick) EVENTS="100000 1000000" NPS="1 2 4 8 16" NP_EVENTS=100000 REPS=${SCALING_REPS:-1} BIG="" ;;
full) EVENTS="100000 1000000 10000000" NPS="1 2 4 8 16" NP_EVENTS=1000000 REPS=${SCALING_REPS:-3}
    BIG="16:10000000 1:100000000" ;;
big) EVENTS="" NPS="" NP_EVENTS=1000000 REPS=${SCALING_REPS:-1} BIG="1:100000000" ;; # the 10^8-event row alone
*) echo "scaling_bench: BENCH_SCALING must be quick, full or big" >&2; exit 2 ;;
esac
clc_bench_skew scaling_bench
clc_prog scaling_bench
avail_mb=$(awk '$1 == "MemAvailable:" {print int($2 / 1024)}' /proc/meminfo)
MEM_MB=${SCALING_MEM_MB:-$(( avail_mb / 2 < 6144 ? avail_mb / 2 : 6144 ))}
B_PER_EV=${SCALING_B_PER_EV:-200}
case $MEM_MB$B_PER_EV in *[!0-9]*) echo "scaling_bench: SCALING_MEM_MB and SCALING_B_PER_EV must be whole numbers" >&2; exit 2 ;; esac
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-scaling.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# phase NAME: rank 0's figure from the MPI_Finalize line of the last run
phase() { sed -nE "s/.*MPI_Finalize: .*$1 ([0-9.]+) ms.*/\\1/p" "$TMP/err.txt" | head -n 1; }
maxkb() { awk '$1 == "vmhwm_kb" && $3 > m {m = $3} END {print m + 0}' "$TMP/out.txt"; }

# run NP ITERS TRACED(0|1) DIR -> appends one line of figures to $TMP/rows
run() {
    local np=$1 iters=$2 traced=$3 dir=$4 env=()
    rm -rf "$dir"
    [ "$traced" = 1 ] && env=(LD_PRELOAD="$SKEW:$LIB" SYNCTRACE_DIR="$dir" SYNCTRACE_NODE_SIZE=1 SYNCTRACE_VERBOSE=2 SKEW_PER_RANK=1
        SKEW_OFFSET_NS=3000000 SKEW_SEED=9 SKEW_T0_NS="$(skew_t0)" SYNCTRACE_TIMER=clock)
    fam_cmd "$np" "${env[@]}" -- "$PROG" "$iters"
    timeout -k 10 1200 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt" ||
        { echo "scaling_bench: run failed ($np ranks, $iters iterations, traced $traced): $(tail -n 3 "$TMP/err.txt")" >&2; return 1; }
    local kb
    kb=$(maxkb)
    if [ "$traced" = 0 ]; then
        echo "$kb"
        return 0
    fi
    local ev init
    ev=$("$BIN" info "$dir" | awk '$1 == "events:" {print $2}')
    init=$("$BIN" info "$dir" | awk '$1 == "SYNCTRACE::SYNC_INIT_MS_MAX" {print $2}') # the slowest rank's
    echo "$kb $((ev / np)) $(awk -v a="${init:-0}" -v b="$(phase sync)" 'BEGIN {print a + b}') $(phase 'trace preparation') $(
        "$BIN" info "$dir" | awk '$1 == "SYNCTRACE::FINALIZE_CLC_MS" {print $2}') $(phase 'archive write') $(
        "$BIN" info "$dir" | awk '$1 == "SYNCTRACE::FINALIZE_ANALYSIS_MS" {print $2}') $(
        "$BIN" info "$dir" | awk '$1 == "SYNCTRACE::FINALIZE_ROOTCAUSE_MS" {r = $2} END {print r == "" ? "nan" : r}') $(cpu_ns)"
    rm -rf "$dir"
}
# cpu_ns: rank 0's CPU ns per event of preparation, CLC, analysis and write (its SYNCTRACE_VERBOSE=2 line)
cpu_ns() {
    sed -nE 's/^synctrace\[0\]: debug: MPI_Finalize: ([0-9]+) events; .*trace preparation ([0-9.]+) .*CLC ([0-9.]+) .*wait-state analysis ([0-9.]+) .*archive write ([0-9.]+) .*/\1 \2 \3 \4 \5/p' \
        "$TMP/err.txt" | head -n 1 | awk '{n = $1 > 0 ? $1 : 1; printf "%.1f %.1f %.1f %.1f", $2 * 1e6 / n, $3 * 1e6 / n, $4 * 1e6 / n, $5 * 1e6 / n} END {if (NR == 0) print "nan nan nan nan"}'
}
# fits NP EVENTS_PER_RANK: 0 when the estimate is within SCALING_MEM_MB; else prints the estimate (MB)
fits() {
    local need=$(( $1 * (40 + $2 * B_PER_EV / 1000000) ))
    [ "$need" -le "$MEM_MB" ] && return 0
    echo "$need"
    return 1
}

report=$OUT/scaling-report.md
status=0
# record_ns EVENTS: recording ns per event with flushes, for EVENTS events on one thread
record_ns() {
    local rb=$O/build/bench/record_bench
    [ -x "$rb" ] || { echo "-"; return; }
    SYNCTRACE_TMPDIR=$TMP "$rb" "$(awk -v e="$1" 'BEGIN {print e / 1e6}')" 2>/dev/null |
        awk '$1 == "flushing" {print $2}' | grep . || echo "-"
}

# row NP EVENTS_PER_RANK [RECORD_NS]: REPS pairs of untraced / traced runs, one table row of medians
row() {
    local np=$1 iters=$(( $2 * 2 / 57 ))
    : >"$TMP/plain" && : >"$TMP/traced"
    for _ in $(seq "$REPS"); do
        run "$np" "$iters" 0 "$TMP/a" >>"$TMP/plain" || { status=1; continue; }
        run "$np" "$iters" 1 "$TMP/a" >>"$TMP/traced" || status=1
    done
    col() { awk -v c="$2" '{print $c}' "$TMP/$1" | median; }
    local p_kb t_kb ev sync prep clc wr ana rc
    p_kb=$(col plain 1) t_kb=$(col traced 1) ev=$(col traced 2)
    sync=$(col traced 3) prep=$(col traced 4) clc=$(col traced 5) wr=$(col traced 6) ana=$(col traced 7) rc=$(col traced 8)
    awk -v np="$np" -v ev="$ev" -v rns="${3:--}" -v pk="$p_kb" -v tk="$t_kb" -v s="$sync" -v pr="$prep" \
        -v c="$clc" -v w="$wr" -v a="$ana" -v r="$rc" 'BEGIN {
        mev = ev / 1e6
        rec = (rns == "-") ? "-" : sprintf("%.0f | %.1f", rns, rns * ev / 1e6)
        if (rns == "-") rec = "- | -"
        printf "| %d | %d | %s | %.1f | %.1f | %.1f | %.1f | %s | %.1f | %.0f | %.0f |\n", np, ev, rec,
               s, pr, c, a, (r == "nan") ? "-" : sprintf("%.1f", r), w, (mev > 0) ? (tk - pk) / 1024 / mev : 0, tk / 1024 }' >>"$report"
    awk -v np="$np" -v ev="$ev" -v p="$(col traced 9)" -v c="$(col traced 10)" -v a="$(col traced 11)" -v w="$(col traced 12)" 'BEGIN {
        printf "| %d | %d | %.0f | %.0f | %.0f | %.0f | %.2f |\n", np, ev, p, c, a, w, (w > 0) ? (p + c + a) / w : 0 }' >>"$TMP/cpu-report"
}
# skipped NP EVENTS_PER_RANK NEED_MB: a row not run for want of memory
skipped() {
    echo "| $1 | $2 | not run: needs about $3 MB by the formula (limit $MEM_MB MB: SCALING_MEM_MB) |||||||||" >>"$report"
    echo "| $1 | $2 | not run (about $3 MB) ||||| |" >>"$TMP/cpu-report"
}
try_row() {
    local need
    if need=$(fits "$1" "$2"); then row "$@"; else skipped "$1" "$2" "$need"; fi
}
header() {
    {
        echo "### $1"
        echo
        echo "| ranks | events/rank | record ns/ev | record ms | sync ms | prep ms | clc ms | analysis ms | rc ms | write ms | MB/Mev | peak MB |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    } >>"$report"
}
: >"$report"
: >"$TMP/cpu-report"
if [ -n "$EVENTS" ]; then
    header "Events per rank (2 ranks)"
    for ev in $EVENTS; do try_row 2 "$ev" "$(record_ns "$ev")"; done
    echo >>"$report"
fi
if [ -n "$NPS" ]; then
    header "Ranks ($NP_EVENTS events per rank)"
    rns=$(record_ns "$NP_EVENTS")
    for np in $NPS; do try_row "$np" "$NP_EVENTS" "$rns"; done
    echo >>"$report"
fi
if [ -n "$BIG" ]; then
    header "Large traces"
    for big in $BIG; do try_row "${big%%:*}" "${big#*:}"; done
    echo >>"$report"
fi
{
    echo "### CPU per event (rank 0, ns; tool / write = (prep + clc + analysis) / write, target at most 1)"
    echo
    echo "| ranks | events/rank | prep | clc | analysis | write | tool / write |"
    echo "|---|---|---|---|---|---|---|"
    cat "$TMP/cpu-report"
    echo
} >>"$report"
echo "## Scaling ($(fam_label); BENCH_SCALING=$MODE, $(nproc) cores, medians of $REPS, load average at the end $(cut -d' ' -f1-3 /proc/loadavg))"
echo
cat "$report"
exit $status
