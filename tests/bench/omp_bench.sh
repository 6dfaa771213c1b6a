#!/usr/bin/env bash
# tests/bench/omp_bench.sh — what tracing OpenMP costs per construct (part of `make bench`).
#
# omp_bench.c (the MPI family's mpicc on clang -fopenmp, LLVM libomp; it links that MPI library
# but makes no MPI call, so the OpenMP-only path of lib/<fam>/libsynctrace.so traces it) measures, EPCC-syncbench style, the overhead
# per instance of a parallel region, a barrier, a static loop with its barrier, a critical
# section, an omp_set/unset_lock pair and a task (create, run, taskwait). Untraced and
# traced runs (libsynctrace.so preloaded, default settings) alternate BENCH_REPS times
# (default 5) per construct and thread count (BENCH_OMP_THREADS, default "1 2"); the table
# shows the medians, their ratio, the ns added per instance and per recorded event (the
# events one instance records on the thread that times it). With 1 thread the constructs
# do not wait for anyone: the difference is the callbacks' own cost. With more threads than
# free cores the untraced figures are dominated by scheduling and the ratios mean little.
# When EZTrace is installed (scripts/install-deps.sh --for bench), `eztrace -t ompt` runs are interleaved
# with the others and shown beside them ("eztrace ns", "ez added"); otherwise those read n/a. EZTrace
# runs the same source built with clang alone: in a program that links an MPI library EZTrace 2.0
# waits for MPI_Init to open its archive and aborts at exit without one. OMP_BENCH_EZ=0 leaves
# them out (run-bench.sh does for every family after the first: the program is the same).
# Environment: O (build root, as for make), BENCH_FAMILY (tests/bench/family.sh; default the first
# built family), BENCH_REPS, BENCH_OMP_THREADS, BENCH_SCALE.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start omp_bench
REPS=${BENCH_REPS:-5}
THREADS=${BENCH_OMP_THREADS:-1 2}
SCALE=${BENCH_SCALE:-1}

command -v clang >/dev/null || die "clang not installed"
# --no-as-needed: the MPI library stays a dependency although no MPI function is called
"${FAM_CC_CLANG[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fopenmp -Wl,--no-as-needed \
    -o "$BUILD/omp_bench" tests/bench/omp_bench.c || die "cannot build tests/bench/omp_bench.c with ${FAM_CC_CLANG[*]}"

# construct and the events one instance records on the timing thread (see omp_bench.c)
constructs="parallel:8 barrier:2 for:4 critical:6 lock:6 task:10"
med() { if [ -s "$1" ]; then median <"$1"; else echo "$2"; fi; } # med FILE DEFAULT

have_ez=0 ez_note="not installed"
if [ "${OMP_BENCH_EZ:-1}" = 0 ]; then
    ez_note="left out here (the same program as in the first family's table)"
elif command -v eztrace >/dev/null; then
    have_ez=1 ez_note="eztrace -t ompt, interleaved, on the program built without MPI"
    clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fopenmp -o "$BUILD/omp_bench_nompi" tests/bench/omp_bench.c ||
        die "cannot build tests/bench/omp_bench.c with clang"
fi

status=0
run() { # run OUT CONSTRUCT THREADS PROGRAM [env...]: appends the ns per instance to OUT
    local out=$1 c=$2 t=$3 prog=$4
    shift 4
    if timeout -k 10 300 env OMP_NUM_THREADS="$t" "$@" "$prog" "$c" "$SCALE" >"$TMP/run.txt" 2>"$TMP/err.txt"; then
        awk '$1 == "ompbench" {print $4}' "$TMP/run.txt" >>"$out"
    else
        echo "omp_bench: run failed ($c, $t threads, $*): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
    fi
}

echo "OpenMP constructs, untraced vs traced ($(fam_label); omp_bench.c, clang/LLVM libomp, $REPS alternating runs each)"
printf '%-10s %7s %13s %13s %7s %13s %11s %13s %10s\n' construct threads "untraced ns" "traced ns" ratio "added ns" \
    "ns/event" "eztrace ns" "ez added"
for t in $THREADS; do
    for ce in $constructs; do
        c=${ce%%:*} ev=${ce##*:}
        for i in $(seq "$REPS"); do
            run "$TMP/plain-$c-$t" "$c" "$t" "$BUILD/omp_bench"
            run "$TMP/traced-$c-$t" "$c" "$t" "$BUILD/omp_bench" LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/trace-$c-$t-$i"
            rm -rf "$TMP/trace-$c-$t-$i"
            if [ $have_ez = 1 ]; then
                run "$TMP/ez-$c-$t" "$c" "$t" "$BUILD/omp_bench_nompi" eztrace -t ompt -o "$TMP/ez-$c-$t-$i"
                rm -rf "$TMP/ez-$c-$t-$i"
            fi
        done
        u=$(med "$TMP/plain-$c-$t" nan)
        tr=$(med "$TMP/traced-$c-$t" nan)
        ez=$(med "$TMP/ez-$c-$t" n/a)
        ratio=nan added=nan per=nan ezadded=n/a
        [[ $u =~ ^-?[0-9.]+$ && $ez =~ ^-?[0-9.]+$ ]] && ezadded=$(calc "$ez - $u")
        if [[ $u =~ ^-?[0-9.]+$ && $tr =~ ^-?[0-9.]+$ ]]; then
            added=$(calc "$tr - $u")
            per=$(calc "($tr - $u) / $ev")
            ratio=$(awk -v a="$tr" -v b="$u" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}')
        fi
        printf '%-10s %7s %13s %13s %7s %13s %11s %13s %10s\n' "$c" "$t" "$u" "$tr" "$ratio" "$added" "$per" "$ez" \
            "$ezadded"
    done
done
echo "(ns per construct instance, median of the runs' medians; ns/event = added / events recorded per instance:"
echo " parallel 8 on the master, barrier 2, for 4, critical 6, lock 6, task 10; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "(targets at 2 threads: parallel <= +400 ns, barrier <= +80 ns; eztrace: $ez_note)"
exit $status
