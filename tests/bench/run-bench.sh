#!/usr/bin/env bash
# tests/bench/run-bench.sh — `make bench`: what tracing costs on this machine.
#
#  1. Recording hot path (record_bench.c, no MPI traffic): median ns per event of
#     st_record_enter/leave (record.h + the clock read of timer.h), of an MPI_Send-shaped
#     wrapper body, and with buffer flushes; the call-site capture (SYNCTRACE_CALLSITE=1)
#     per MPI call. Target: at most 50 ns per event.
#  2. MPI ping-pong (pingpong.c, 2 ranks, 8 B and 64 KiB): untraced and traced runs
#     alternate within this benchmark (BENCH_REPS pairs, default 5), each run reporting the
#     median over batches of the one-way latency; the table shows the medians over runs, their
#     ratio, and the added ns per traced MPI call = (traced - untraced round trip) / 4, since a
#     round trip has four MPI calls on its critical path. Target: at most 150 ns per call.
#     The runs fit in one default-size event buffer: first-touch page faults are included,
#     buffer flushes are not (their cost per event is in part 1).
#  3. OTF2 bytes per event: size of a traced ping-pong archive / its number of events.
# Then tests/bench/sync_bench.sh, omp_bench.sh, clc_bench.sh, clc_write_bench.sh (CLC against
# the write on a consistent 10^6-event trace at 2, 4, 8 ranks), analysis_bench.sh (wait-state
# analysis cost next to CLC and write), scaling_bench.sh (costs by events per rank and by ranks),
# callpath_bench.sh (call-path cost per MPI call at stack depth 5 and 20) and html_bench.sh (the
# HTML report of a 1M-event trace in headless Chromium), when they exist.
# Environment: O (build root, as for make), BENCH_REPS, BENCH_SCALE (record_bench workload),
# BENCH_SCALING (quick, the default, or full: see scaling_bench.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
LIB=$O/lib/libsynctrace.so
BIN=$O/bin/synctrace
BUILD=$O/build/bench
REPS=${BENCH_REPS:-5}
SCALE=${BENCH_SCALE:-1}
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
mkdir -p "$BUILD"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
status=0

die() { echo "run-bench: $*" >&2; exit 1; }
[ -f "$LIB" ] || die "no $LIB: run make first"
[ -x "$BIN" ] || die "no $BIN: run make first"

# median of the numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
calc() { awk "BEGIN {printf \"%.${2:-1}f\", $1}"; }
verdict() { awk -v v="$1" -v l="$2" 'BEGIN {if (v == "nan" || v == "") print "n/a"; else if (v + 0 <= l + 0) print "ok"; else print "ABOVE TARGET"}'; }

# ---- 1. recording hot path ------------------------------------------------------------
# the sources it links are named in its "/* link: */" line, as the unit tests' (tests/infra/t_bench_build.sh builds it too)
mpicc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -pthread -I"$O/build/gen" -Isrc -Iinclude \
    -o "$BUILD/record_bench" tests/bench/record_bench.c $(sed -n 's|^/\* link: \(.*\) \*/$|\1|p' tests/bench/record_bench.c) \
    -lunwind -lpthread -lm ||
    die "cannot build tests/bench/record_bench.c"
SYNCTRACE_TMPDIR=$TMP "$BUILD/record_bench" "$SCALE" >"$TMP/record.txt" || die "record_bench failed"
rec() { awk -v k="$1" -v f="${2:-2}" '$1 == k {print $f}' "$TMP/record.txt"; }

# ---- 2. MPI ping-pong -------------------------------------------------------------------
mpicc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -o "$BUILD/pingpong" tests/bench/pingpong.c ||
    die "cannot build tests/bench/pingpong.c"
# 6 events per round trip and rank: 17600 round trips stay within one default 8 MiB buffer
# (131072 events), so no flush falls into the timed loop; the flush cost is figure 1's.
IT8=16000 IT64=1600
pp() { # pp OUT [mpiexec options...]: one ping-pong run; its two latencies appended to OUT.{8,65536}
    local out=$1
    shift
    if timeout 120 mpiexec -n 2 "$@" "$BUILD/pingpong" $IT8 $IT64 >"$TMP/pp.txt" 2>"$TMP/pp-err.txt"; then
        awk -v o="$out" '$1 == "pingpong" {print $3 >> (o "." $2)}' "$TMP/pp.txt"
    else
        echo "run-bench: ping-pong run failed ($*): $(tail -n 3 "$TMP/pp-err.txt")" >&2
        status=1
    fi
}
# EZTrace 2.0 (`eztrace -t mpich`, optional: scripts/install-deps.sh --for bench) interleaved as the peer.
have_ez=0
command -v eztrace >/dev/null && have_ez=1
pp_ez() { # pp_ez OUT DIR: one ping-pong run under eztrace -t mpich
    if timeout 120 mpiexec -n 2 eztrace -t mpich -o "$2" "$BUILD/pingpong" $IT8 $IT64 >"$TMP/pp.txt" 2>"$TMP/pp-err.txt"; then
        awk -v o="$1" '$1 == "pingpong" {print $3 >> (o "." $2)}' "$TMP/pp.txt"
    else
        echo "run-bench: eztrace ping-pong run failed: $(tail -n 3 "$TMP/pp-err.txt")" >&2
    fi
    rm -rf "$2"
}
for i in $(seq "$REPS"); do
    pp "$TMP/plain"
    pp "$TMP/traced" -genv LD_PRELOAD "$LIB" -genv SYNCTRACE_DIR "$TMP/pp-$i"
    [ "$i" -eq 1 ] || rm -rf "$TMP/pp-$i"
    pp "$TMP/clock" -genv LD_PRELOAD "$LIB" -genv SYNCTRACE_DIR "$TMP/ppc-$i" -genv SYNCTRACE_TIMER clock
    rm -rf "$TMP/ppc-$i"
    [ $have_ez = 1 ] && pp_ez "$TMP/ez" "$TMP/ppez-$i"
done
for i in $(seq $(( (REPS + 1) / 2 ))); do
    pp "$TMP/callsite" -genv LD_PRELOAD "$LIB" -genv SYNCTRACE_DIR "$TMP/cs-$i" -genv SYNCTRACE_CALLSITE 1
    rm -rf "$TMP/cs-$i"
done
lat() { [ -s "$TMP/$1.$2" ] && median <"$TMP/$1.$2" || echo nan; }
u8=$(lat plain 8) t8=$(lat traced 8) c8=$(lat callsite 8)
u64=$(lat plain 65536) t64=$(lat traced 65536)
k8=$(lat clock 8) e8=$(lat ez 8)
timer=$(rec timer)

# ---- 3. OTF2 bytes per event ------------------------------------------------------------
bytes=nan events=nan
if [ -f "$TMP/pp-1/traces.otf2" ]; then
    bytes=$(du -sb "$TMP/pp-1" | cut -f1)
    ppflush=$("$BIN" info "$TMP/pp-1" 2>/dev/null | sed -nE 's/^buffer flushes:[[:space:]]*([0-9]+).*/\1/p' | head -n 1)
    if "$BIN" dump --json "$TMP/pp-1" >"$TMP/pp-dump.json" 2>"$TMP/dump-err.txt"; then
        events=$(grep -c . "$TMP/pp-dump.json" || true)
        known=$(python3 tests/mpi/tracecheck.py counts pingpong "$TMP/pp-dump.json" 2 "" $IT8 $IT64 2>&1 | tail -n 1)
    else
        echo "run-bench: synctrace dump failed: $(head -c 300 "$TMP/dump-err.txt")" >&2
        status=1
    fi
fi

# ---- table ----------------------------------------------------------------------------
isnum() { [[ $1 =~ ^[0-9.]+$ ]]; }
added8=nan ratio8=nan ratio64=nan added64=nan cs_added=nan bpe=nan
isnum "$u8" && isnum "$t8" && added8=$(calc "($t8 - $u8) / 2") && ratio8=$(calc "$t8 / $u8" 2)
isnum "$u64" && isnum "$t64" && added64=$(calc "($t64 - $u64) / 2") && ratio64=$(calc "$t64 / $u64" 2)
isnum "$c8" && isnum "$t8" && cs_added=$(calc "($c8 - $t8) / 2")
# one-way latency: a round trip is two of them (each rank makes two traced calls per round trip)
rt_added=nan rt_clock=nan rt_ez=n/a
isnum "$u8" && isnum "$t8" && rt_added=$(calc "2 * ($t8 - $u8)")
isnum "$u8" && isnum "$k8" && rt_clock=$(calc "2 * ($k8 - $u8)")
isnum "$u8" && isnum "$e8" && rt_ez=$(calc "2 * ($e8 - $u8)")
isnum "$bytes" && isnum "$events" && [ "$events" -gt 0 ] && bpe=$(calc "$bytes / $events" 1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

echo
echo "synctrace benchmark — $(hostname), ${cpu:-unknown cpu}, $(nproc) cores"
printf '%-56s %12s %14s\n' "figure" "measured" "target"
row() { printf '%-56s %12s %14s\n' "$1" "$2" "${3:-}"; }
row "recording cost per event (enter+leave, median; $timer timer)" "$(rec enter_leave) ns" "<= 40 ns: $(verdict "$(rec enter_leave)" 40)"
row "  MPI_Send-shaped wrapper body, per event" "$(rec wrapper) ns" "<= 50 ns: $(verdict "$(rec wrapper)" 50)"
row "  first fill of a fresh buffer (page faults)" "$(rec cold) ns" ""
row "  with buffer flushes (default SYNCTRACE_BUFFER)" "$(rec flushing) ns" "($(rec flushes) flushes)"
row "call-site capture per MPI call (SYNCTRACE_CALLSITE=1)" "$(rec callsite) ns" "(= per ENTER event)"
row "ping-pong 8 B one-way: untraced / traced" "$u8 / $t8 ns" "ratio $ratio8"
row "ping-pong 64 KiB one-way: untraced / traced" "$u64 / $t64 ns" "ratio $ratio64"
row "added per traced MPI call (8 B)" "$added8 ns" "<= 150 ns: $(verdict "$added8" 150)"
row "added per 8 B round trip (default timer)" "$rt_added ns" "<= 200 ns: $(verdict "$rt_added" 200)"
row "  the same with SYNCTRACE_TIMER=clock" "$rt_clock ns" ""
row "  EZTrace 2.0 -t mpich, same runs interleaved" "$rt_ez ns" "$([ $have_ez = 1 ] || echo "(not installed)")"
row "added per traced MPI call (64 KiB)" "$added64 ns" "<= 150 ns: $(verdict "$added64" 150)"
row "  extra with SYNCTRACE_CALLSITE=1 (8 B)" "$cs_added ns" ""
row "OTF2 bytes per event (ping-pong archive)" "$bpe B" "($bytes B / $events events)"
echo "($REPS untraced/traced ping-pong pairs, $IT8 x 8 B and $IT64 x 64 KiB round trips each, ${ppflush:-?} buffer flushes"
echo " in a traced run; ${known:-no event-count check};"
echo " load average $(cut -d' ' -f1-3 /proc/loadavg): other work on the $(nproc) cores inflates the ping-pong figures)"

# ---- other parts --------------------------------------------------------------------------
for part in sync_bench.sh omp_bench.sh clc_bench.sh clc_write_bench.sh analysis_bench.sh scaling_bench.sh callpath_bench.sh html_bench.sh; do
    if [ -f "tests/bench/$part" ]; then
        echo
        O=$O bash "tests/bench/$part" || { echo "run-bench: tests/bench/$part failed" >&2; status=1; }
    fi
done
exit $status
