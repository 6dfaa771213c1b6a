#!/usr/bin/env bash
# tests/bench/run-bench.sh — `make bench`: what tracing costs on this machine.
#
#  1. Recording hot path (record_bench.c, no MPI traffic): median ns per event of
#     st_record_enter/leave (record.h + the clock read of timer.h), of an MPI_Send-shaped
#     wrapper body, and with buffer flushes; the call-site capture (SYNCTRACE_CALLSITE=1)
#     per MPI call. Target: at most 50 ns per event.
#  2. MPI ping-pong (pingpong.c, 2 ranks, 8 B and 64 KiB), for every installed MPI family
#     (tests/bench/family.sh: pingpong.c built with mpicc.<fam>, run with that family's launcher,
#     lib/<fam>/libsynctrace.so preloaded): untraced and traced runs alternate within this benchmark (BENCH_REPS pairs, default 5), each run reporting the
#     median over batches of the one-way latency; the table shows the medians over runs, their
#     ratio, and the added ns per traced MPI call = (traced - untraced round trip) / 4, since a
#     round trip has four MPI calls on its critical path. Target: at most 150 ns per call.
#     The runs fit in one default-size event buffer: first-touch page faults are included,
#     buffer flushes are not (their cost per event is in part 1).
#     EZTrace (`eztrace -t mpich`, `eztrace -t openmpi`: the module of the family) runs are
#     interleaved with them when eztrace and that module are installed; otherwise the row says which.
#  3. OTF2 bytes per event: size of a traced ping-pong archive / its number of events (per family).
# The table has a column per family. Then, on the first family, user_bench.sh (what a user pays:
# loops of parallel regions, barriers and ping-pongs at default settings, buffer flushes included,
# next to untraced and EZTrace runs); per family: omp_bench.sh (OpenMP constructs),
# filter_bench.sh (a call a filter excludes against a recorded and an untraced one), rma_bench.sh
# (a traced one-sided call against a traced MPI_Send),
# finwait_bench.sh (a rank waiting in the tool's MPI_Finalize for a slow peer: CPU it takes),
# clc_bench.sh (CLC at MPI_Finalize, finalize on/off) and analysis_bench.sh (wait-state analysis
# cost next to CLC and write); on the first family only: sync_bench.sh, clc_write_bench.sh (CLC
# against the write on a consistent 10^6-event trace at 2, 4, 8 ranks), scaling_bench.sh (costs by events per rank and by ranks),
# callpath_bench.sh (call-path cost per MPI call at stack depth 5 and 20) and html_bench.sh (the
# HTML report of a 1M-event trace in headless Chromium), when they exist. Last, across the families:
# roundtime_compare.sh (synctrace-bench next to IMB-MPI1 and OSU, when IMB_MPI1 / OSU_DIR name their
# binaries; otherwise it says what it skips; BENCH_QUICK=1: 2 ranks only).
# Environment: O (build root, as for make), BENCH_MPI (families, default: every built one),
# BENCH_REPS, BENCH_SCALE (record_bench workload), BENCH_SCALING (quick, the default, or full: see
# scaling_bench.sh), BENCH_QUICK=1 (development: 2 ping-pong pairs, one run per figure elsewhere,
# 2 ranks only, and without the single-family parts; a few minutes).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
BIN=$O/bin/synctrace
BUILD=$O/build/bench
source tests/bench/family.sh
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    REPS=${BENCH_REPS:-2}
    export BENCH_REPS=$REPS BENCH_OMP_THREADS=${BENCH_OMP_THREADS:-2} CLC_BENCH_REPS=${CLC_BENCH_REPS:-1} \
        CLC_BENCH_NP=${CLC_BENCH_NP:-2} ANALYSIS_BENCH_REPS=${ANALYSIS_BENCH_REPS:-1} ANALYSIS_BENCH_NP=${ANALYSIS_BENCH_NP:-2} \
        FINWAIT_REPS=${FINWAIT_REPS:-1}
else
    REPS=${BENCH_REPS:-5}
fi
FAMILIES=$(bench_families | tr '\n' ' ')
SCALE=${BENCH_SCALE:-1}
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
mkdir -p "$BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
status=0

die() { echo "run-bench: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "no $BIN: run make first"
for f in $FAMILIES; do fam_use "$f" || die "cannot bench $f"; done
FIRST=${FAMILIES%% *}
fam_use "$FIRST"

# median of the numbers on stdin
verdict() { awk -v v="$1" -v l="$2" 'BEGIN {if (v == "nan" || v == "") print "n/a"; else if (v + 0 <= l + 0) print "ok"; else print "ABOVE TARGET"}'; }

# ---- 1. recording hot path ------------------------------------------------------------
# the sources it links are named in its "/* link: */" line, as the unit tests' (tests/infra/t_bench_build.sh builds it too)
# (no MPI traffic: built once, with the first family's compiler and generated headers)
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -pthread -I"$O/build/gen/$FAM" -I"$O/build/gen" -Isrc -Iinclude \
    -o "$BUILD/record_bench" tests/bench/record_bench.c $(sed -n 's|^/\* link: \(.*\) \*/$|\1|p' tests/bench/record_bench.c) \
    -lunwind -lpthread -lm ||
    die "cannot build tests/bench/record_bench.c"
SYNCTRACE_TMPDIR=$TMP "$BUILD/record_bench" "$SCALE" >"$TMP/record.txt" || die "record_bench failed"
rec() { awk -v k="$1" -v f="${2:-2}" '$1 == k {print $f}' "$TMP/record.txt"; }

# ---- 2. MPI ping-pong, 3. bytes per event: per family ----------------------------------
# 6 events per round trip and rank: 17600 round trips stay within one default 8 MiB buffer
# (131072 events), so no flush falls into the timed loop; the flush cost is figure 1's.
IT8=16000 IT64=1600
pp() { # pp OUT [NAME=VALUE...] [-- WRAPPER...]: one ping-pong run; its two latencies appended to OUT.{8,65536}
    local out=$1 a
    shift
    for a in "$@"; do [ "$a" != -- ] || break; done
    [ "${a:-}" = -- ] || set -- "$@" --
    fam_cmd 2 "$@" "$BUILD/$FAM/pingpong" $IT8 $IT64
    if timeout -k 10 120 "${CMD[@]}" >"$TMP/pp.txt" 2>"$TMP/pp-err.txt"; then
        awk -v o="$out" '$1 == "pingpong" {print $3 >> (o "." $2)}' "$TMP/pp.txt"
    else
        echo "run-bench: $FAM ping-pong run failed (${CMD[*]}): $(tail -n 3 "$TMP/pp-err.txt")" >&2
        return 1
    fi
}
# EZTrace 2.0 (optional: scripts/install-deps.sh --for bench) interleaved as the peer, with the
# module of the family (eztrace -t mpich / -t openmpi); ez_state says why not when it cannot run.
ez_state() {
    command -v eztrace >/dev/null || { echo "not installed"; return; }
    eztrace_avail 2>/dev/null | grep -q "^$FAM[[:space:]]" || { echo "eztrace has no $FAM module (eztrace_avail)"; return; }
    echo ok
}
isnum() { [[ $1 =~ ^[0-9.]+$ ]]; }
lat() { [ -s "$TMP/$FAM-$1.$2" ] && median <"$TMP/$FAM-$1.$2" || echo nan; }
declare -A F # F[<figure>,<fam>]
for fam in $FAMILIES; do
    fam_use "$fam"
    mkdir -p "$BUILD/$FAM"
    "${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -o "$BUILD/$FAM/pingpong" tests/bench/pingpong.c ||
        die "cannot build tests/bench/pingpong.c with ${FAM_CC[*]}"
    ez=$(ez_state)
    P=$TMP/$FAM
    for i in $(seq "$REPS"); do
        pp "$P-plain" || status=1
        pp "$P-traced" LD_PRELOAD="$FAM_LIB" SYNCTRACE_DIR="$P-pp-$i" || status=1
        [ "$i" -eq 1 ] || rm -rf "$P-pp-$i"
        pp "$P-clock" LD_PRELOAD="$FAM_LIB" SYNCTRACE_DIR="$P-ppc-$i" SYNCTRACE_TIMER=clock || status=1
        rm -rf "$P-ppc-$i"
        if [ "$ez" = ok ]; then
            pp "$P-ez" -- eztrace -t "$FAM" -o "$P-ppez-$i" || ez="eztrace -t $FAM runs failed (stderr above)"
            rm -rf "$P-ppez-$i"
        fi
    done
    for i in $(seq $(( (REPS + 1) / 2 ))); do
        pp "$P-callsite" LD_PRELOAD="$FAM_LIB" SYNCTRACE_DIR="$P-cs-$i" SYNCTRACE_CALLSITE=1 || status=1
        rm -rf "$P-cs-$i"
    done
    u8=$(lat plain 8) t8=$(lat traced 8) c8=$(lat callsite 8)
    u64=$(lat plain 65536) t64=$(lat traced 65536)
    k8=$(lat clock 8) e8=$(lat ez 8)
    F[u8,$FAM]=$u8 F[t8,$FAM]=$t8 F[u64,$FAM]=$u64 F[t64,$FAM]=$t64
    F[ratio8,$FAM]=nan F[ratio64,$FAM]=nan F[added8,$FAM]=nan F[added64,$FAM]=nan F[cs,$FAM]=nan
    F[rt,$FAM]=nan F[rtclock,$FAM]=nan F[rtez,$FAM]=n/a F[ezratio,$FAM]=n/a F[bpe,$FAM]=nan
    isnum "$u8" && isnum "$t8" && F[added8,$FAM]=$(calc "($t8 - $u8) / 2") && F[ratio8,$FAM]=$(calc "$t8 / $u8" 2)
    isnum "$u64" && isnum "$t64" && F[added64,$FAM]=$(calc "($t64 - $u64) / 2") && F[ratio64,$FAM]=$(calc "$t64 / $u64" 2)
    isnum "$c8" && isnum "$t8" && F[cs,$FAM]=$(calc "($c8 - $t8) / 2")
    # one-way latency: a round trip is two of them (each rank makes two traced calls per round trip)
    isnum "$u8" && isnum "$t8" && F[rt,$FAM]=$(calc "2 * ($t8 - $u8)")
    isnum "$u8" && isnum "$k8" && F[rtclock,$FAM]=$(calc "2 * ($k8 - $u8)")
    isnum "$u8" && isnum "$e8" && F[rtez,$FAM]=$(calc "2 * ($e8 - $u8)") && F[ezratio,$FAM]=$(calc "$e8 / $u8" 2)
    [ "$ez" = ok ] || F[rtez,$FAM]="-"
    F[ez,$FAM]=$ez
    # 3. OTF2 bytes per event
    F[bytes,$FAM]=nan F[events,$FAM]=nan F[flushes,$FAM]="?" F[known,$FAM]="no event-count check"
    if [ -f "$P-pp-1/traces.otf2" ]; then
        F[bytes,$FAM]=$(du -sb "$P-pp-1" | cut -f1)
        F[flushes,$FAM]=$("$BIN" info "$P-pp-1" 2>/dev/null | sed -nE 's/^buffer flushes:[[:space:]]*([0-9]+).*/\1/p' | head -n 1)
        if "$BIN" dump --json "$P-pp-1" >"$TMP/pp-dump.json" 2>"$TMP/dump-err.txt"; then
            F[events,$FAM]=$(grep -c . "$TMP/pp-dump.json" || true)
            F[known,$FAM]=$(python3 tests/mpi/tracecheck.py counts pingpong "$TMP/pp-dump.json" 2 "" $IT8 $IT64 2>&1 | tail -n 1)
        else
            echo "run-bench: synctrace dump of the $FAM ping-pong failed: $(head -c 300 "$TMP/dump-err.txt")" >&2
            status=1
        fi
    fi
    isnum "${F[bytes,$FAM]}" && isnum "${F[events,$FAM]}" && [ "${F[events,$FAM]}" -gt 0 ] &&
        F[bpe,$FAM]=$(calc "${F[bytes,$FAM]} / ${F[events,$FAM]}" 1)
    rm -rf "$P-pp-1"
    F[label,$FAM]=$(fam_label)
    F[note,$FAM]=$FAM_NOTE
done

# ---- table ----------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
timer=$(rec timer)
echo
echo "synctrace benchmark — $(hostname), ${cpu:-unknown cpu}, $(nproc) cores"
printf '%-56s %12s %14s\n' "figure" "measured" "target"
row() { printf '%-56s %12s %14s\n' "$1" "$2" "${3:-}"; }
row "recording cost per event (enter+leave, median; $timer timer)" "$(rec enter_leave) ns" "<= 40 ns: $(verdict "$(rec enter_leave)" 40)"
row "  MPI_Send-shaped wrapper body, per event" "$(rec wrapper) ns" "<= 50 ns: $(verdict "$(rec wrapper)" 50)"
row "  first fill of a fresh buffer (page faults)" "$(rec cold) ns" ""
row "  with buffer flushes (default SYNCTRACE_BUFFER)" "$(rec flushing) ns" "($(rec flushes) flushes)"
row "call-site capture per MPI call (SYNCTRACE_CALLSITE=1)" "$(rec callsite) ns" "(= per ENTER event)"
echo
# one column per family
frow() { # frow TITLE KEY UNIT [TARGET_NS]
    local f v line
    line=$(printf '%-50s' "$1")
    for f in $FAMILIES; do
        v=${F[$2,$f]}
        [ -n "$3" ] && isnum "$v" && v="$v $3"
        [ -n "${4:-}" ] && v="$v ($(verdict "${F[$2,$f]}" "$4"))"
        line+=$(printf ' %26s' "$v")
    done
    echo "$line"
}
hdr=$(printf '%-50s' "MPI ping-pong, 2 ranks")
for f in $FAMILIES; do hdr+=$(printf ' %26s' "${F[label,$f]}"); done
echo "$hdr"
frow "8 B one-way, untraced ns" u8 ""
frow "8 B one-way, traced ns" t8 ""
frow "  ratio traced / untraced" ratio8 ""
frow "64 KiB one-way, untraced ns" u64 ""
frow "64 KiB one-way, traced ns" t64 ""
frow "  ratio traced / untraced" ratio64 ""
frow "added per traced MPI call, 8 B (<= 150 ns)" added8 ns 150
frow "added per 8 B round trip (<= 200 ns)" rt ns 200
frow "  the same with SYNCTRACE_TIMER=clock" rtclock ns
frow "  EZTrace -t <family>, same runs interleaved" rtez ns
frow "  EZTrace's ratio to untraced (8 B)" ezratio ""
frow "added per traced MPI call, 64 KiB (<= 150 ns)" added64 ns 150
frow "  extra with SYNCTRACE_CALLSITE=1 (8 B)" cs ns
frow "OTF2 bytes per event (ping-pong archive)" bpe B
for f in $FAMILIES; do
    echo "(${F[label,$f]}: ${F[bytes,$f]} B / ${F[events,$f]} events, ${F[flushes,$f]} buffer flushes in a traced run;" \
        "${F[known,$f]}; EZTrace: ${F[ez,$f]}${F[note,$f]:+; ${F[note,$f]}})"
done
echo "($REPS untraced/traced ping-pong pairs per family, $IT8 x 8 B and $IT64 x 64 KiB round trips each; medians of the"
echo " runs' medians; load average $(cut -d' ' -f1-3 /proc/loadavg): other work on the $(nproc) cores inflates the ping-pong figures)"

# ---- other parts --------------------------------------------------------------------------
# part FAMILY SCRIPT: one part under one family (BENCH_FAMILY), with a header naming the family
part() {
    [ -f "tests/bench/$2" ] || return 0
    fam_use "$1"
    echo
    echo "==== $2 — $(fam_label) ===="
    local ez=1
    [ "$1" = "$FIRST" ] || ez=0
    O=$O BENCH_FAMILY=$1 OMP_BENCH_EZ=$ez bash "tests/bench/$2" || { echo "run-bench: tests/bench/$2 ($1) failed" >&2; status=1; }
}
part "$FIRST" user_bench.sh
for p in omp_bench.sh filter_bench.sh rma_bench.sh finwait_bench.sh clc_bench.sh analysis_bench.sh; do
    for f in $FAMILIES; do part "$f" "$p"; done
done
if [ "$QUICK" = 1 ]; then
    echo
    echo "(BENCH_QUICK=1: sync_bench, clc_write_bench, scaling_bench, callpath_bench and html_bench left out)"
else
    for p in sync_bench.sh clc_write_bench.sh scaling_bench.sh callpath_bench.sh html_bench.sh; do part "$FIRST" "$p"; done
fi
# every family in one run (its repetitions interleave the tools and the families)
echo
echo "==== roundtime_compare.sh — $FAMILIES===="
rtc_np=${RTC_NP:-2 4 8}
[ "$QUICK" = 1 ] && rtc_np=${RTC_NP:-2}
O=$O BENCH_MPI="$FAMILIES" RTC_NP=$rtc_np bash tests/bench/roundtime_compare.sh ||
    { echo "run-bench: tests/bench/roundtime_compare.sh failed" >&2; status=1; }
exit $status
