#!/usr/bin/env bash
# tests/bench/rma_bench.sh — what tracing adds to a one-sided call (MPI_Put, MPI_Accumulate) next
# to what it adds to a point-to-point call (MPI_Send; MPI_Isend with many requests outstanding),
# part of `make bench`, per MPI family.
#
# rma_bench.c (1 rank: its own window and MPI_COMM_SELF, so no partner's timing enters) times BATCHES
# rounds of one batch of CALLS calls of each kind in turn; untraced and traced runs alternate BENCH_REPS
# times (default 5); each run reports the median ns per call over its batches and its fastest batch's (the
# floor, which the noise of a shared VM moves less). The table shows the medians over runs and what tracing
# adds per call. Target: a traced one-sided call adds no more than a traced point-to-point call (MPI_Send).
# A run records about 520,000 events: with the default 8 MiB buffer (131,072 events) the thread hands
# three full buffers to the writer while the batches run, and the longest call pays most for the writer's
# work beside it (MPICH, 21 runs: MPI_Accumulate's fastest run +78 ns with the hand-offs, +22 without;
# MPI_Send's +35 and +21); the rows
# "no hand-off" run the traced program again with a buffer that holds the whole run below its half
# (SYNCTRACE_BUFFER=128M: no spare buffer is made either), which is the call's own cost. Both are shown and the target is judged on both.
# Untraced, MPICH's MPI_Accumulate runs at one of two speeds per process (about 240 or 430 ns here), so
# its medians over runs depend on how many runs drew which: the fastest-batch rows compare like with like.
# The rows "MPI_Send of 4 KiB" (a point-to-point call of about an MPI_Accumulate's length, most of it a
# copy) show what the writer's work costs such a call: the one-sided calls pay it as it does.
# The floor rows run the program with tests/bench/floor_tool.c preloaded instead (two TSC reads and two
# 64-byte records per call, nothing else: the least a tracer of ENTER and LEAVE adds): MPICH's
# MPI_Accumulate pays more for those alone than MPI_Send does (7 runs, 16:01 UTC: +13.4 ns against +9.2),
# so those rows also show what synctrace adds beyond the floor (its runs without a hand-off) on each call.
# The lock rows time a passive-target epoch (MPI_Win_lock, MPI_Put, MPI_Win_unlock at this rank's own
# window): traced with the default lock tickets and with SYNCTRACE_LOCK_TICKETS=remote (the ticket a
# fetch-and-add through MPI, here to this rank itself: a floor of what it costs at a target elsewhere).
# The MPI_Isend rows show the cost of a request with 10,
# 100 and 2500 outstanding (each count its own runs, isend only: ISEND_COUNTS), and the MPI_Waitall
# rows what completing each of them costs: both MPIs hand every send to self that completed at its post
# the same request handle, so the tool's request map (src/mpi/handle_map.c) holds thousands of entries
# under one handle; it keeps them in one FIFO per handle, so the added cost should not grow with the
# count (up to session 20 the duplicates were one probe chain: 6-9 us per call at 2500). Wall
# time of short batches on a shared machine: compare the rows of one table, not tables of different runs.
# Environment: O (build root, as for make), BENCH_FAMILY (family.sh; default the first built), BENCH_REPS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start rma_bench
REPS=${BENCH_REPS:-5}
CALLS=2500 BATCHES=8
ISEND_COUNTS=${ISEND_COUNTS:-10 100} # besides CALLS; batches: 2500 requests each, at most 256
[ -f "$LIB" ] || die "no $LIB: run make first"
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -o "$BUILD/rma_bench" tests/bench/rma_bench.c ||
    die "cannot build tests/bench/rma_bench.c"
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -shared -fPIC -o "$BUILD/libfloor_tool.so" \
    tests/bench/floor_tool.c || die "cannot build tests/bench/floor_tool.c"

KINDS="put accumulate send send4k lock isend"
status=0
run() { # run NAME CALLS BATCHES [isend] -- [NAME=VALUE...]: appends each kind's ns per call to $TMP/NAME.KIND.CALLS
    local name=$1 calls=$2 batches=$3 only= k
    shift 3
    [ "$1" = isend ] && only=isend && shift
    shift
    fam_cmd 1 "$@" -- "$BUILD/rma_bench" "$calls" "$batches" $only
    if timeout -k 10 120 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
        for k in $KINDS waitall; do awk -v k="$k" '$1 == k {print $2}' "$TMP/out.txt" >>"$TMP/$name.$k.$calls"; done
        for k in $KINDS; do awk -v k="$k" '$1 == k {print $3}' "$TMP/out.txt" >>"$TMP/$name.$k-fastest.$calls"; done
    else
        echo "rma_bench: run failed ($name): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
    fi
}
for i in $(seq "$REPS"); do
    run plain $CALLS $BATCHES --
    run traced $CALLS $BATCHES -- LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_ANALYZE=off
    rm -rf "$TMP/t-$i"
    run whole $CALLS $BATCHES -- LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_ANALYZE=off SYNCTRACE_BUFFER=128M
    rm -rf "$TMP/t-$i"
    run remote $CALLS $BATCHES -- LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_ANALYZE=off SYNCTRACE_LOCK_TICKETS=remote
    rm -rf "$TMP/t-$i"
    run floor $CALLS $BATCHES -- LD_PRELOAD="$BUILD/libfloor_tool.so"
    for n in $ISEND_COUNTS; do
        b=$((2500 / n)); [ $b -le 256 ] || b=256
        run plain "$n" $b isend --
        run traced "$n" $b isend -- LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_ANALYZE=off
        rm -rf "$TMP/t-$i"
    done
done
med() { [ -s "$TMP/$1" ] && median <"$TMP/$1" || echo nan; }
echo "one-sided vs point-to-point calls, traced, 1 rank ($(fam_label))"
printf '%-40s %10s %10s %14s %10s %14s\n' "" "untraced" "traced" "added by tool" "no hand-off" "added by tool"
row() { # row KIND CALLS LABEL [whole]: untraced, traced (and traced without a buffer hand-off)
    local u t w=
    u=$(med "plain.$1.$2") t=$(med "traced.$1.$2")
    echo "$(calc "$t - $u")" >"$TMP/added.$1.$2"
    if [ -n "${4:-}" ]; then
        w=$(med "whole.$1.$2")
        echo "$(calc "$w - $u")" >"$TMP/added-whole.$1.$2"
        printf '%-40s %10s %10s %11s ns %10s %11s ns\n' "$3" "$u" "$t" "$(calc "$t - $u")" "$w" "$(calc "$w - $u")"
    else
        printf '%-40s %10s %10s %11s ns\n' "$3" "$u" "$t" "$(calc "$t - $u")"
    fi
}
row put $CALLS "MPI_Put (ENTER, RmaPut, LEAVE)" whole
row accumulate $CALLS "MPI_Accumulate (ENTER, RmaAtomic, LEAVE)" whole
row send $CALLS "MPI_Send (ENTER, send, LEAVE)" whole
row send4k $CALLS "MPI_Send of 4 KiB" whole
row put-fastest $CALLS "  MPI_Put, fastest batch" whole
row accumulate-fastest $CALLS "  MPI_Accumulate, fastest batch" whole
row send-fastest $CALLS "  MPI_Send, fastest batch" whole
row send4k-fastest $CALLS "  MPI_Send of 4 KiB, fastest batch" whole
row lock $CALLS "lock, put, unlock (an epoch)" whole
# the same epochs with the ticket from the tool's window (a fetch-and-add through MPI, here at this rank)
printf '%-40s %10s %10s %11s ns\n' "  with SYNCTRACE_LOCK_TICKETS=remote" "$(med plain.lock.$CALLS)" "$(med remote.lock.$CALLS)" \
    "$(calc "$(med remote.lock.$CALLS) - $(med plain.lock.$CALLS)")"
for n in $ISEND_COUNTS $CALLS; do row isend "$n" "MPI_Isend, $n outstanding"; done
for n in $ISEND_COUNTS $CALLS; do row waitall "$n" "MPI_Waitall of $n+$n, per request"; done
floor_row() { # floor_row KIND LABEL: untraced, with the floor tool, what the floor adds, what synctrace adds beyond it
    local u f w
    u=$(med "plain.$1.$CALLS") f=$(med "floor.$1.$CALLS") w=$(med "whole.$1.$CALLS")
    printf '%-40s %10s %10s %11s ns %10s %11s ns\n' "$2" "$u" "$f" "$(calc "$f - $u")" "$w" "$(calc "$w - $f")"
}
printf '%-40s %10s %10s %14s %10s %14s\n' "the floor tool (floor_tool.c)" "untraced" "floor" "added by floor" "no hand-off" "beyond floor"
floor_row put "  MPI_Put"
floor_row accumulate "  MPI_Accumulate"
floor_row send "  MPI_Send"
verdict() { # verdict PUT ACCUMULATE REFERENCE: files of what tracing added; ok if neither one-sided call adds more
    awk -v p="$(cat "$TMP/$1")" -v a="$(cat "$TMP/$2")" -v s="$(cat "$TMP/$3")" \
        'BEGIN {if (p == "nan" || a == "nan" || s == "nan") print "n/a"; else if (p <= s && a <= s) print "ok"; else print "ABOVE TARGET"}'
}
against_send() { # against_send ADDED SUFFIX: the median (no suffix) or the fastest-batch rows
    local x=${2:-}
    verdict "$1.put$x.$CALLS" "$1.accumulate$x.$CALLS" "$1.send$x.$CALLS"
}
echo "target: a traced one-sided call adds at most what a traced MPI_Send adds:"
echo "  buffers handed over during the run: $(against_send added) (medians of batches), $(against_send added -fastest) (fastest batches)"
echo "  no hand-off (the call's own cost):  $(against_send added-whole) (medians of batches), $(against_send added-whole -fastest) (fastest batches)"
# MPI_Put and MPI_Accumulate start a transfer that a later call completes, as MPI_Isend does (and the
# blocking MPI_Send does not): against MPI_Isend with few requests outstanding (its own runs, no hand-off)
first_count=${ISEND_COUNTS%% *}
if [ -n "$first_count" ] && [ -s "$TMP/added.isend.$first_count" ]; then
    echo "  no hand-off, against MPI_Isend with $first_count outstanding: $(verdict "added-whole.put.$CALLS" \
        "added-whole.accumulate.$CALLS" "added.isend.$first_count") (medians of batches)"
fi
echo "($REPS runs per row, interleaved, median of $BATCHES batches of $CALLS calls each; load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
