#!/usr/bin/env bash
# tests/bench/sync_bench.sh — clock synchronization report (default scheme, injected skew).
#
# For 2, 4, 8 ranks in 1, 2, 4 simulated nodes (tests/skew: every node its own clock,
# offsets up to ±1 s, drift up to ±100 ppm, 2 µs of non-linear wander), measured against
# ground truth with tests/sync/sync_prog (src/clock linked directly, no shim):
#   phase 1 (one configuration at a time, SYNC_BENCH_REPS runs each): initial sync
#     duration and the max |error| of any rank's global clock right after it;
#   phase 2 (all configurations at once, SYNC_BENCH_SECONDS long, default 60): max
#     |error| of the timestamps of a run with wander, with periodic resync
#     (SYNCTRACE_RESYNC, default: the library's) and without, each with and without the finalize
#     interpolation. Without-resync numbers come from the same run: the initial map
#     alone, and interpolation between the initial and the final sync point only.
# Targets: <= 1 µs right after sync, <= 2 µs over the run with resync + interpolation,
# initial sync <= 0.3 s for 8 ranks. Prints a markdown report (also in
# $O/build/bench/<family>/sync-report.md). Environment: O (build root), BENCH_FAMILY (tests/bench/family.sh;
# default the first built family), SYNC_BENCH_SECONDS, SYNC_BENCH_REPS, SYNC_BENCH_CONFIGS ("NP:NODES ...").
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
O=$(cd "${O:-$ROOT}" && pwd)
source "$ROOT/tests/bench/family.sh"
fam_use "${BENCH_FAMILY:-$(bench_families | head -n 1)}" || exit 1
OUT=$O/build/bench/$FAM
mkdir -p "$OUT"
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
SECONDS_RUN=${SYNC_BENCH_SECONDS:-60}
REPS=${SYNC_BENCH_REPS:-3}
CONFIGS=${SYNC_BENCH_CONFIGS:-"2:1 2:2 4:1 4:2 4:4 8:1 8:2 8:4"}
DEFAULT_RESYNC=$(sed -n 's/^ST_VAR(RESYNC, *DOUBLE, *resync, *"\([^"]*\)".*/\1/p' "$ROOT/src/config/variables.def")
RESYNC=${SYNCTRACE_RESYNC:-${DEFAULT_RESYNC:-10}}

source "$ROOT/tests/skew/skew-env.sh"
source "$ROOT/tests/sync/build.sh"
SKEW=$(skew_build "$OUT") || { echo "sync_bench: cannot build the skew library" >&2; exit 1; }
# sync_build compiles with the plain name `mpicc`, which Debian's alternatives may point to either
# family: within this call it is the family's compiler (a directory of one link, first in PATH).
mkdir -p "$OUT/cc" && ln -sfn "$(command -v "${FAM_CC[0]}")" "$OUT/cc/mpicc"
PROG=$(PATH=$OUT/cc:$PATH sync_build "$OUT") || { echo "sync_bench: cannot build sync_prog" >&2; exit 1; }
T0=$(skew_t0)

# run NP NODES SEED LOG [sync_prog args...]
run() {
    local np=$1 nodes=$2 seed=$3 log=$4
    shift 4
    local per=$((np / nodes))
    fam_cmd "$np" LD_PRELOAD="$SKEW" SKEW_NODE_SIZE="$per" SKEW_SEED="$seed" SKEW_T0_NS="$T0" SYNCTRACE_NODE_SIZE="$per" \
        SYNCTRACE_RESYNC="$RESYNC" SYNCTRACE_TIMER=clock -- "$PROG" "$@"
    timeout $((SECONDS_RUN * 3 + 120)) "${CMD[@]}" >"$log" 2>&1
}

# get KEY FILE: value from the RESULT line of FILE ("-" if none).
get() { sed -n "s/.*RESULT.* $1=\([^ ]*\).*/\1/p" "$2" | head -n1 | grep . || echo -; }

us() { awk -v v="$1" 'BEGIN { if (v == "-" || v < 0) print "-"; else printf "%.2f", v / 1000 }'; }

report() {
start=$(date +%s)
echo "## Clock synchronization ($(fam_label); SYNCTRACE_SYNC=${SYNCTRACE_SYNC:-h2hca, the default})"
echo
echo "Injected skew per simulated node: offset ±1 s, drift ±100 ppm, wander 2 µs (periods ~18 s and ~60 s)."
echo "Errors are max |global clock - rank 0's clock| over all ranks against ground truth, in µs."
echo
echo "### Initial sync ($REPS runs per configuration, one at a time)"
echo
echo "| ranks | nodes | sync duration max (s) | error after sync median / max (µs) | min RTT intra / inter (µs) |"
echo "|---:|---:|---:|---:|---:|"
for c in $CONFIGS; do
    np=${c%:*} nodes=${c#*:}
    durs=() errs=() rtt="-"
    for r in $(seq 1 "$REPS"); do
        log=$OUT/init-$np-$nodes-$r.log
        run "$np" "$nodes" "$r" "$log" -r 0
        durs+=("$(get init_s "$log")")
        errs+=("$(get err_after_sync "$log")")
        rtt="$(us "$(get rtt_intra "$log")") / $(us "$(get rtt_inter "$log")")"
    done
    dmax=$(printf '%s\n' "${durs[@]}" | grep -v - | sort -g | tail -n1)
    emed=$(printf '%s\n' "${errs[@]}" | grep -v - | sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : "-"}')
    emax=$(printf '%s\n' "${errs[@]}" | grep -v - | sort -g | tail -n1)
    echo "| $np | $nodes | ${dmax:--} | $(us "${emed:--}") / $(us "${emax:--}") | $rtt |"
done
echo
echo "### A ${SECONDS_RUN} s run with wander (all configurations at the same time, SYNCTRACE_RESYNC=$RESYNC)"
echo
pids=()
for c in $CONFIGS; do
    np=${c%:*} nodes=${c#*:}
    run "$np" "$nodes" 7 "$OUT/run-$np-$nodes.log" -r "$SECONDS_RUN" -i 100 &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo "| ranks | nodes | resyncs (unmeasured) | resync: online | resync + interpolation | no resync: initial map | no resync + interpolation |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for c in $CONFIGS; do
    np=${c%:*} nodes=${c#*:}
    log=$OUT/run-$np-$nodes.log
    echo "| $np | $nodes | $(get resyncs "$log") ($(get unmeasured "$log")) | $(us "$(get err_online "$log")") | $(us "$(get err_interp "$log")") |" \
         "$(us "$(get err_noresync "$log")") | $(us "$(get err_noresync_interp "$log")") |"
done
echo
echo "Total bench time: $(( $(date +%s) - start )) s. Logs: $OUT/{init,run}-*.log"
}
report | tee "$OUT/sync-report.md"
