#!/usr/bin/env bash
# tests/bench/rma_bench.sh — what tracing adds to a one-sided call (MPI_Put, MPI_Accumulate) next
# to what it adds to a point-to-point call (MPI_Send; MPI_Isend with many requests outstanding),
# part of `make bench`, per MPI family.
#
# rma_bench.c (1 rank: its own window and MPI_COMM_SELF, so no partner's timing enters) issues
# BATCHES batches of CALLS calls of each kind; untraced and traced runs alternate BENCH_REPS times
# (default 5); each run reports the median ns per call over its batches. The table shows the
# medians over runs and what tracing adds per call. Target: a traced one-sided call adds no more
# than a traced point-to-point call (MPI_Send). The MPI_Isend row shows a known cost: both MPIs
# hand every send to self that completed at its post the same request handle, and the tool's
# request map (src/mpi/handle_map.c) keeps such duplicates in one probe chain, so with CALLS of
# them outstanding each registration and completion walks the chain. 8 x 2500 calls of four kinds (about 300000 events) fit in one
# default event buffer: no flush in the timed loops. Wall time of short batches on a shared
# machine: compare the rows of one table, not tables of different runs.
# Environment: O (build root, as for make), BENCH_FAMILY (family.sh; default the first built), BENCH_REPS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start rma_bench
REPS=${BENCH_REPS:-5}
CALLS=2500 BATCHES=8
[ -f "$LIB" ] || die "no $LIB: run make first"
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -o "$BUILD/rma_bench" tests/bench/rma_bench.c ||
    die "cannot build tests/bench/rma_bench.c"

KINDS="put accumulate send isend"
status=0
run() { # run NAME [NAME=VALUE...]: appends each kind's ns per call to $TMP/NAME.KIND
    local name=$1 k
    shift
    fam_cmd 1 "$@" -- "$BUILD/rma_bench" $CALLS $BATCHES
    if timeout -k 10 120 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
        for k in $KINDS; do awk -v k="$k" '$1 == k {print $2}' "$TMP/out.txt" >>"$TMP/$name.$k"; done
    else
        echo "rma_bench: run failed ($name): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
    fi
}
for i in $(seq "$REPS"); do
    run plain
    run traced LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_ANALYZE=off
    rm -rf "$TMP/t-$i"
done
med() { [ -s "$TMP/$1" ] && median <"$TMP/$1" || echo nan; }
echo "one-sided vs point-to-point calls, traced, 1 rank ($(fam_label))"
printf '%-40s %10s %10s %14s\n' "" "untraced" "traced" "added by tool"
for k in $KINDS; do
    u=$(med "plain.$k") t=$(med "traced.$k")
    case $k in
        put) label="MPI_Put (ENTER, RmaPut, LEAVE)" ;;
        accumulate) label="MPI_Accumulate (ENTER, RmaAtomic, LEAVE)" ;;
        send) label="MPI_Send (ENTER, send, LEAVE)" ;;
        isend) label="MPI_Isend, $CALLS outstanding" ;;
    esac
    printf '%-40s %10s %10s %11s ns\n' "$label" "$u" "$t" "$(calc "$t - $u")"
    echo "$(calc "$t - $u")" >"$TMP/added.$k"
done
verdict=$(awk -v p="$(cat "$TMP/added.put")" -v a="$(cat "$TMP/added.accumulate")" -v s="$(cat "$TMP/added.send")" \
    'BEGIN {if (p == "nan" || a == "nan" || s == "nan") print "n/a"; else if (p <= s && a <= s) print "ok"; else print "ABOVE TARGET"}')
echo "target: a traced one-sided call adds at most what a traced MPI_Send adds: $verdict"
echo "($REPS runs per row, interleaved, median of $BATCHES batches of $CALLS calls each; load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
