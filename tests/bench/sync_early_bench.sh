#!/usr/bin/env bash
# tests/bench/sync_early_bench.sh — accuracy of recorded times over a whole run, the first
# second after MPI_Init included (the measurement behind t_sync_early.sh and the
# "first second" table of docs/clock-sync.md).
#
# For every seed: tests/sync/early_prog under the clock-skew library, 8 ranks in 4
# simulated nodes (SYNCTRACE_NODE_SIZE=2), 20 ms offsets, 50 ppm drift, 5 µs wander,
# library defaults; prints the worst distance of a recorded MPI_Get_version ENTER/LEAVE
# outside its true-time window in the first second and after it, the initial sync's
# duration (max over ranks), the largest error of the sync points by kind (init, resync,
# final; tests/sync/sync_points.py) and the worst event error per time bin. Environment: O (build root), EARLY_BENCH_SEEDS
# (default "1 2 3 4 5 6 7 8"), EARLY_BENCH_SECONDS (run length, default 3), LIB (another
# build's libsynctrace.so, to compare), BENCH_FAMILY (tests/bench/family.sh; default the first built
# family), and any SYNCTRACE_* / SKEW_* to pass to the ranks. The simulated nodes are bound to CPUs as
# in t_sync_early.sh (SKEW_BIND=1, tests/skew/skew.c); SKEW_BIND=0 leaves them to the scheduler.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
O=$(cd "${O:-$ROOT}" && pwd)
source "$ROOT/tests/bench/family.sh"
fam_use "${BENCH_FAMILY:-$(bench_families | head -n 1)}" || exit 1
LIB=${LIB:-$FAM_LIB}
OUT=$O/build/bench/$FAM
mkdir -p "$OUT"
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
source "$ROOT/tests/skew/skew-env.sh"
SKEW=$(skew_build "$OUT")
PROG=$OUT/early_prog
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -o "$PROG" "$ROOT/tests/sync/early_prog.c" -ldl -lm
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-early.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

export SKEW_BIND=${SKEW_BIND:-1}
pass=()
for kv in $(env | grep -E '^(SYNCTRACE|SKEW)_' | grep -v '^SYNCTRACE_DIR=' || true); do
    pass+=("$kv")
done
for seed in ${EARLY_BENCH_SEEDS:-1 2 3 4 5 6 7 8}; do
    rm -rf "$TMP"/*
    t0=$(skew_t0)
    fam_cmd 8 SKEW_NODE_SIZE=2 SKEW_T0_NS="$t0" SKEW_SEED="$seed" SKEW_OFFSET_NS=2e7 SKEW_DRIFT_PPM=50 \
        SKEW_WANDER_NS=5000 SYNCTRACE_NODE_SIZE=2 "${pass[@]}" SYNCTRACE_DIR="$TMP/trace" LD_PRELOAD="$SKEW:$LIB" \
        -- "$PROG" "${EARLY_BENCH_SECONDS:-3}" "$TMP/win"
    timeout -k 10 120 "${CMD[@]}" >"$TMP/out" 2>"$TMP/err" || {
        echo "seed $seed: run failed: $(tail -n 3 "$TMP/err")"
        continue
    }
    "$O/bin/synctrace" info "$TMP/trace" >"$TMP/info"
    off=$(sed -n 's/.*global offset \([0-9]*\).*/\1/p' "$TMP/info")
    init=$(awk '/SYNC_INIT_MS_MAX/ {print $2}' "$TMP/info")
    "$O/bin/synctrace" dump --json "$TMP/trace" >"$TMP/dump.json"
    summary=$(python3 "$ROOT/tests/sync/true_windows.py" "$TMP/dump.json" "$off" "$TMP/win" 8 MPI_Get_version 1000 \
        2>&1 >/dev/null || true)
    first=$(echo "$summary" | sed -n 's/.*in the first second: \([0-9]*\) ns.*/\1/p')
    rest=$(echo "$summary" | sed -n 's/.*after it: \([0-9]*\) ns.*/\1/p')
    bins=$(echo "$summary" | sed -n 's/.*by time: //p')
    points=$(SKEW_T0_NS=$t0 SKEW_SEED=$seed SKEW_OFFSET_NS=2e7 SKEW_DRIFT_PPM=50 SKEW_WANDER_NS=5000 \
        python3 "$ROOT/tests/sync/sync_points.py" "$SKEW" "$TMP/trace" 2)
    echo "seed $seed: first second ${first} ns, after ${rest} ns, init sync ${init} ms, sync points $points   [$bins]"
done
