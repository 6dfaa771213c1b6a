#!/usr/bin/env bash
# tests/bench/finwait_bench.sh — does a rank waiting in MPI_Finalize for a slow peer take the
# peer's core? (part of `make bench`, once per MPI family: BENCH_FAMILY, see family.sh)
#
# finwait.c, 2 ranks moved onto one CPU: rank 1 enters MPI_Finalize at once, rank 0 computes
# FINWAIT_MS (default 1000) ms of CPU first. Untraced and traced (lib/<fam>/libsynctrace.so) runs
# alternate FINWAIT_REPS times (default 3); medians of:
#   peer wall ms     wall time the peer needed for its FINWAIT_MS of CPU (other processes on
#                    that CPU lengthen it in both columns alike)
#   waiter CPU ms    CPU time of the waiting rank over its MPI_Finalize (traced: the tool's
#                    finalize, i.e. its waits plus its own work: sync, CLC, analysis, write)
#   waiter share     waiter CPU / peer CPU: near 0 when the waiter yields its core, near 1 (or
#                    more) when it competes with the peer for it
# Target: traced waiter share <= 0.25 (the tool's waits are polite). Environment: O, BENCH_FAMILY,
# FINWAIT_REPS, FINWAIT_MS.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start finwait_bench
REPS=${FINWAIT_REPS:-3}
MS=${FINWAIT_MS:-1000}
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}

"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$BUILD/finwait" tests/bench/finwait.c ||
    die "cannot build tests/bench/finwait.c with ${FAM_CC[*]}"

status=0
run() { # run NAME [NAME=VALUE...]: one run; its figures appended to $TMP/NAME.{peerwall,peercpu,waitcpu,share}
    local name=$1
    shift
    fam_cmd 2 "$@" -- "$BUILD/finwait" "$MS"
    if timeout -k 10 300 "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"; then
        awk -v o="$TMP/$name" '$1 == "finwait" && $2 == "slow" {pc = $3; pw = $4} $1 == "finwait" && $2 == "waiter" {wc = $3}
            END {if (pc > 0) {print pw >> (o ".peerwall"); print pc >> (o ".peercpu"); print wc >> (o ".waitcpu")
                 printf "%.2f\n", wc / pc >> (o ".share")}}' "$TMP/out.txt"
    else
        echo "finwait_bench: $FAM run failed (${CMD[*]}): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
    fi
}
for i in $(seq "$REPS"); do
    run plain
    run traced LD_PRELOAD="$FAM_LIB" SYNCTRACE_DIR="$TMP/t-$i" SYNCTRACE_VERBOSE=0
    rm -rf "$TMP/t-$i"
done
med() { [ -s "$TMP/$1" ] && median <"$TMP/$1" || echo nan; }
echo "A rank waiting in MPI_Finalize for a slow peer on the same CPU ($(fam_label); finwait.c, peer computes $MS ms CPU;"
echo "medians of $REPS alternating runs)"
printf '%-10s %14s %14s %16s %14s %s\n' run "peer CPU ms" "peer wall ms" "waiter CPU ms" "waiter share" ""
for r in plain traced; do
    share=$(med "$r.share")
    v=$(awk -v s="$share" 'BEGIN {if (s == "nan") print "n/a"; else if (s + 0 <= 0.25) print "polite"; else print "BUSY: competes with the peer for its core"}')
    [ "$r" = plain ] && v="(the MPI library's own MPI_Finalize)"
    printf '%-10s %14s %14s %16s %14s %s\n' "$([ "$r" = plain ] && echo untraced || echo traced)" "$(med "$r.peercpu")" \
        "$(med "$r.peerwall")" "$(med "$r.waitcpu")" "$share" "$v"
done
echo "(waiter share = waiter CPU / peer CPU; target for traced: <= 0.25; load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
