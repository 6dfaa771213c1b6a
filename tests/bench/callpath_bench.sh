#!/usr/bin/env bash
# tests/bench/callpath_bench.sh — what SYNCTRACE_CALLPATH=1 costs per MPI call (part of `make bench`).
#
# callpath_bench.c (1 rank) calls MPI_Comm_rank from the bottom of DEPTH recursive application
# frames (5 and 20), untraced, traced, and traced with SYNCTRACE_CALLPATH=1, BENCH_REPS times each
# (default 5, alternating); each run reports the median ns per call over its batches; the table
# shows the medians over runs, the tracing cost per call (traced - untraced) and the call path's
# extra cost per call (with - without SYNCTRACE_CALLPATH). 8 x 2500 calls = 40000 events fit in
# one default event buffer: no flush in the timed loop.
# Environment: O (build root, as for make), BENCH_FAMILY (family.sh; default the first built), BENCH_REPS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start callpath_bench
REPS=${BENCH_REPS:-5}
CALLS=2500 BATCHES=8
[ -f "$LIB" ] || die "no $LIB: run make first"
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fno-optimize-sibling-calls -o "$BUILD/callpath_bench" \
    tests/bench/callpath_bench.c || die "cannot build tests/bench/callpath_bench.c"

status=0
run() { # run OUT DEPTH [NAME=VALUE...]: appends the ns per call to OUT
    local out=$1 d=$2
    shift 2
    fam_cmd 1 "$@" -- "$BUILD/callpath_bench" "$d" $CALLS $BATCHES
    if timeout -k 10 120 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
        awk '$1 == "callpath" {print $3}' "$TMP/out.txt" >>"$out"
    else
        echo "callpath_bench: run failed ($*): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
    fi
}
for d in 5 20; do
    for i in $(seq "$REPS"); do
        run "$TMP/plain.$d" "$d"
        run "$TMP/traced.$d" "$d" LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$d-$i"
        run "$TMP/path.$d" "$d" LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/p-$d-$i" SYNCTRACE_CALLPATH=1
        rm -rf "$TMP/t-$d-$i" "$TMP/p-$d-$i"
    done
done
med() { [ -s "$1" ] && median <"$1" || echo nan; }
echo "call paths (SYNCTRACE_CALLPATH=1): MPI_Comm_rank from the bottom of DEPTH application frames, 1 rank ($(fam_label))"
printf '%-8s %14s %14s %20s %18s %18s\n' "depth" "untraced ns" "traced ns" "traced+callpath ns" "tracing per call" "call path extra"
for d in 5 20; do
    u=$(med "$TMP/plain.$d") t=$(med "$TMP/traced.$d") p=$(med "$TMP/path.$d")
    printf '%-8s %14s %14s %20s %18s %18s\n' "$d" "$u" "$t" "$p" "$(calc "$t - $u") ns" "$(calc "$p - $t") ns"
done
echo "($REPS runs per column, median of $BATCHES batches of $CALLS calls each; load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
