#!/usr/bin/env bash
# tests/bench/user_bench.sh — what a user pays (part of `make bench`, and runnable alone:
# `O=$PWD bash tests/bench/user_bench.sh`): long loops of empty parallel regions and barriers at 2
# threads (omp_bench.c's "user" mode) and of 8 B MPI ping-pong round trips on 2 ranks
# (pingpong.c's "pingpong-all" line), each timed as one loop — buffer flushes included — at the
# tool's default settings (the default SYNCTRACE_BUFFER: each loop records enough events to flush
# it several times). Untraced, synctrace (libsynctrace.so preloaded) and EZTrace (`eztrace -t
# ompt` for OpenMP, `eztrace -t <family>` for MPI) runs alternate USER_BENCH_REPS times (default
# BENCH_REPS, else 5); the table shows per operation the medians over the runs of the mean ns per
# operation, the ns synctrace and EZTrace add and their ratios to untraced, the buffer flushes of a
# synctrace run (`synctrace info`: buffer flushes, all locations), and the targets: parallel region
# <= +400 ns and below EZTrace's, barrier <= +80 ns, MPI round trip <= +200 ns.
# EZTrace traces OpenMP in the program built without MPI (omp_bench.sh says why); its untraced
# reference is the MPI-linked build's, which makes no MPI call. The round trip also runs with
# floor_tool.c preloaded (two TSC reads and two 64-byte records per call, nothing else): the least a
# tracer that records each call's ENTER and LEAVE adds, measured beside the others.
# Before and after the runs it prints the round trip of a cache line between the first two CPUs
# (core_to_core.c): a VM's host may place its two CPUs far apart, and every figure here then grows
# with it (docs/performance.md, "The machine"); above C2C_FAR ns (default 250) the line says so. It
# also reads that round trip before and after each operation's runs of one repetition (untraced,
# synctrace, EZTrace: a few seconds) and, when the CPUs were close or far apart at both readings,
# counts those runs under that state too: a second table gives each state's medians, every figure
# from runs made in that state (a repetition whose readings differ is in neither).
# USER_BENCH_WAIT_CLOSE=S waits up to S seconds for the CPUs to be close before it starts.
# Environment: O (build root, as for make), BENCH_FAMILY (tests/bench/family.sh; default the first
# built family), USER_BENCH_REPS / BENCH_REPS, USER_BENCH_DIV (divides the loops' lengths, default 1:
# for a quick look; fewer flushes).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh
bench_start user_bench
BIN=$O/bin/synctrace
REPS=${USER_BENCH_REPS:-${BENCH_REPS:-5}}
DIV=${USER_BENCH_DIV:-1}
THREADS=2
export LIBOMP_USE_HIDDEN_HELPER_TASK=${LIBOMP_USE_HIDDEN_HELPER_TASK:-0} MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}
[ -x "$BIN" ] || die "no $BIN: run make first"
command -v clang >/dev/null || die "clang not installed"

# The loops' lengths: the default buffer holds 131072 events (8 MiB). A parallel region records 8
# events on the master, a barrier 2 per thread, a round trip 6 per rank: about 7, 5 and 5 flushes of
# the most loaded location. omp_bench.c's rounds: parallel 7 x 500 x SCALE, barrier 7 x 2000 x SCALE.
PAR_SCALE=$((36 / DIV > 0 ? 36 / DIV : 1)) BAR_SCALE=$((24 / DIV > 0 ? 24 / DIV : 1))
RT=$((110000 / DIV / 21 * 21 > 21 ? 110000 / DIV / 21 * 21 : 21))

"${FAM_CC_CLANG[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fopenmp -Wl,--no-as-needed \
    -o "$BUILD/omp_bench" tests/bench/omp_bench.c || die "cannot build tests/bench/omp_bench.c with ${FAM_CC_CLANG[*]}"
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -o "$BUILD/pingpong" tests/bench/pingpong.c ||
    die "cannot build tests/bench/pingpong.c with ${FAM_CC[*]}"
# The round trip's floor: floor_tool.c adds only two TSC reads and two 64-byte records per call
"${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -shared -fPIC -o "$BUILD/libfloor_tool.so" \
    tests/bench/floor_tool.c || die "cannot build tests/bench/floor_tool.c with ${FAM_CC[*]}"
# How far apart the two CPUs are (a cache line's round trip between them): the untraced loops follow it
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -pthread -o "$BUILD/core_to_core" tests/bench/core_to_core.c ||
    die "cannot build tests/bench/core_to_core.c"
C2C_FAR=${C2C_FAR:-250} # ns: above it, the machine's slow state (docs/performance.md, "The machine")
c2c() { "$BUILD/core_to_core" 2>/dev/null | awk '$1 == "core_to_core_ns" {print $2}' || true; }
ez_omp="not installed" ez_mpi="not installed"
if command -v eztrace >/dev/null; then
    clang -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fopenmp -o "$BUILD/omp_bench_nompi" tests/bench/omp_bench.c ||
        die "cannot build tests/bench/omp_bench.c with clang"
    ez_omp=ok ez_mpi=ok
    eztrace_avail 2>/dev/null | grep -q "^ompt[[:space:]]" || ez_omp="eztrace has no ompt module (eztrace_avail)"
    eztrace_avail 2>/dev/null | grep -q "^$FAM[[:space:]]" || ez_mpi="eztrace has no $FAM module (eztrace_avail)"
fi

status=0
# one OP VARIANT: one run of operation OP (parallel, barrier, pingpong) as VARIANT (plain, st, floor,
# ez); appends its ns per operation to $TMP/OP-VARIANT and, for st, the buffer flushes to OP-flushes;
# one_got: 1 when it appended its figure, else 0 (a variable, not a status: set -e stays in force inside)
one() {
    local op=$1 v=$2 dir=$TMP/trace-$1-$2 pre=() out
    one_got=0
    rm -rf "$dir"
    case $v in
    st) pre=(LD_PRELOAD="$FAM_LIB" SYNCTRACE_DIR="$dir") ;;
    floor) pre=(LD_PRELOAD="$BUILD/libfloor_tool.so") ;;
    ez) pre=(eztrace -t "$([ "$op" = pingpong ] && echo "$FAM" || echo ompt)" -o "$dir") ;;
    esac
    if [ "$op" = pingpong ]; then
        if [ "$v" = ez ]; then
            fam_cmd 2 -- "${pre[@]}" "$BUILD/pingpong" "$RT" 21 21
        else
            fam_cmd 2 "${pre[@]}" -- "$BUILD/pingpong" "$RT" 21 21
        fi
    else
        local prog=$BUILD/omp_bench scale=$PAR_SCALE
        [ "$v" != ez ] || prog=$BUILD/omp_bench_nompi
        [ "$op" = parallel ] || scale=$BAR_SCALE
        CMD=(env OMP_NUM_THREADS=$THREADS "${pre[@]}" "$prog" "$op" "$scale" user)
    fi
    if timeout -k 10 300 "${CMD[@]}" >"$TMP/run.txt" 2>"$TMP/err.txt"; then
        # a round trip is two one-way latencies
        out=$(awk '$1 == "ompuser" {print $4} $1 == "pingpong-all" && $2 == 8 {printf "%.1f\n", 2 * $3}' "$TMP/run.txt")
        [ -n "$out" ] && echo "$out" >>"$TMP/$op-$v" && one_got=1 || { echo "user_bench: $op $v printed no figure" >&2; status=1; }
        [ "$v" != st ] || "$BIN" info "$dir" 2>/dev/null | sed -nE 's/^buffer flushes:[[:space:]]*([0-9]+).*/\1/p' |
            head -n 1 >>"$TMP/$op-flushes"
    else
        echo "user_bench: $op $v run failed (${CMD[*]}): $(tail -n 3 "$TMP/err.txt")" >&2
        status=1
        if [ "$v" = ez ] && [ "$op" = pingpong ]; then
            ez_mpi="runs failed (stderr above)"
        elif [ "$v" = ez ]; then
            ez_omp="runs failed (stderr above)"
        fi
    fi
    rm -rf "$dir"
}

# USER_BENCH_WAIT_CLOSE=S: wait up to S seconds (reading every 10 s) for the CPUs to be close; after every build,
# right before the runs (a close moment may last only a minute or two)
c2c_before=$(c2c)
if [ "${USER_BENCH_WAIT_CLOSE:-0}" -gt 0 ]; then
    waited_from=$SECONDS
    while [ -n "$c2c_before" ] && [ "$c2c_before" -gt "$C2C_FAR" ] && [ $((SECONDS - waited_from)) -lt "$USER_BENCH_WAIT_CLOSE" ]; do
        sleep 10
        c2c_before=$(c2c)
    done
    echo "user_bench: core-to-core round trip ${c2c_before:-n/a} ns after $((SECONDS - waited_from)) s of waiting" \
        "for it to be at most $C2C_FAR ns" >&2
fi
ops="parallel barrier pingpong"
for i in $(seq "$REPS"); do
    for op in $ops; do
        vs="plain st"
        [ "$op" != pingpong ] || vs="$vs floor"
        ez=$ez_omp
        [ "$op" != pingpong ] || ez=$ez_mpi
        [ "$ez" != ok ] || vs="$vs ez"
        all=1 r0=$(c2c)
        for v in $vs; do
            one "$op" "$v"
            [ "$one_got" = 1 ] || all=0
        done
        r1=$(c2c)
        state=mixed
        if [ -n "$r0" ] && [ -n "$r1" ]; then
            if [ "$r0" -le "$C2C_FAR" ] && [ "$r1" -le "$C2C_FAR" ]; then state=close
            elif [ "$r0" -gt "$C2C_FAR" ] && [ "$r1" -gt "$C2C_FAR" ]; then state=far; fi
        fi
        # every variant added its one figure: this repetition's figures go to its state's files too
        if [ "$state" != mixed ] && [ "$all" = 1 ]; then
            for v in $vs; do tail -n 1 "$TMP/$op-$v" >>"$TMP/$op-$v-$state"; done
            echo "$r0 $r1" >>"$TMP/$op-c2c-$state"
        fi
    done
done

med() { if [ -s "$TMP/$1" ]; then median <"$TMP/$1"; else echo nan; fi; }
# op_target OP: the operation's name in the tables (name) and its target, the ns synctrace may add (lim)
op_target() {
    case $1 in
    parallel) name="parallel region" lim=400 ;;
    barrier) name="barrier" lim=80 ;;
    pingpong) name="MPI 8 B round trip" lim=200 ;;
    esac
}
# verdict_of OP ADDED EZ_ADDED: whether what synctrace added meets OP's target (the region's: also below EZTrace's)
verdict_of() {
    local lim name v=n/a
    op_target "$1"
    if isnum "$2"; then
        v=$(awk -v a="$2" -v l="$lim" 'BEGIN {print (a + 0 <= l ? "ok" : "ABOVE TARGET")}')
        [ "$1" != parallel ] || ! isnum "$3" || [ "${2#+}" -lt "${3#+}" ] || v="$v, not below EZTrace's"
    fi
    echo "$v"
}
isnum() { [[ $1 =~ ^[-+]?[0-9.]+$ ]]; }
diff_() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%+.0f", a - b}'; else echo n/a; fi; }
ratio() { if isnum "$1" && isnum "$2"; then awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; else echo n/a; fi; }

echo "What a user pays: default settings, buffer flushes included ($(fam_label), $THREADS threads / 2 ranks;" \
    "$REPS alternating runs; load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-24s %8s %10s %10s %8s %6s %8s %10s %8s %6s  %s\n' operation count "untraced" synctrace added ratio flushes \
    eztrace "ez added" ratio "target (synctrace added)"
for op in $ops; do
    u=$(med "$op-plain") s=$(med "$op-st") e=$(med "$op-ez") fl=$(med "$op-flushes")
    a=$(diff_ "$s" "$u") ea=$(diff_ "$e" "$u")
    op_target "$op"
    case $op in
    parallel) n=$((3500 * PAR_SCALE)) ;;
    barrier) n=$((14000 * BAR_SCALE)) ;;
    pingpong) n=$RT ;;
    esac
    verdict=$(verdict_of "$op" "$a" "$ea")
    tgt="<= +$lim ns"
    [ "$op" != parallel ] || tgt="$tgt, < EZTrace's"
    printf '%-24s %8s %10s %10s %8s %6s %8s %10s %8s %6s  %s\n' "$name" "$n" "$u" "$s" "$a" "$(ratio "$s" "$u")" "$fl" \
        "$e" "$ea" "$(ratio "$e" "$u")" "$tgt: $verdict"
done
fl_rt=$(med pingpong-floor)
printf '%-24s %8s %10s %10s %8s %6s  %s\n' "round trip, floor tool" "$RT" "$(med pingpong-plain)" "$fl_rt" \
    "$(diff_ "$fl_rt" "$(med pingpong-plain)")" "$(ratio "$fl_rt" "$(med pingpong-plain)")" \
    "(floor_tool.c: two TSC reads and two 64-byte records per call, nothing else)"
# The same by the CPUs' distance: each state's repetitions alone (no table where the distance was not read)
states=""
for state in close far; do
    for op in $ops; do [ ! -s "$TMP/$op-plain-$state" ] || states="$states $state"; done
done
if [ -n "$states" ]; then
    echo "By how far apart the CPUs were (core-to-core round trip read before and after each operation's runs of a"
    echo "repetition, both at most $C2C_FAR ns: close; both above: far; otherwise counted in neither):"
    printf '%-8s %-24s %5s %13s %10s %10s %8s %10s %8s  %s\n' state operation reps "c2c ns" untraced synctrace added \
        eztrace "ez added" "target (synctrace added)"
fi
for state in close far; do
    for op in $ops; do
        [ -s "$TMP/$op-plain-$state" ] || continue
        u=$(med "$op-plain-$state") s=$(med "$op-st-$state") e=$(med "$op-ez-$state")
        a=$(diff_ "$s" "$u") ea=$(diff_ "$e" "$u")
        n=$(wc -l <"$TMP/$op-plain-$state")
        rr=$(awk '{print $1; print $2}' "$TMP/$op-c2c-$state" | sort -n | awk '{v[NR] = $1} END {print v[1] "-" v[NR]}')
        op_target "$op"
        verdict=$(verdict_of "$op" "$a" "$ea")
        printf '%-8s %-24s %5s %13s %10s %10s %8s %10s %8s  %s\n' "$state" "$name" "$n" "$rr" "$u" "$s" "$a" "$e" "$ea" \
            "<= +$lim ns: $verdict"
    done
done
c2c_after=$(c2c)
far=$(awk -v a="${c2c_before:-0}" -v b="${c2c_after:-0}" -v c="$C2C_FAR" 'BEGIN {print (a + 0 > c || b + 0 > c) ? 1 : 0}')
echo "core-to-core round trip (core_to_core.c: a cache line between the first two CPUs): ${c2c_before:-n/a} ns before the runs," \
    "${c2c_after:-n/a} ns after$([ "$far" = 1 ] && echo "; above $C2C_FAR ns the CPUs are far apart and the untraced loops slow" \
    "(docs/performance.md, \"The machine\"): the figures say more about the machine than about the tool")"
echo "(ns per operation: mean over each run's whole timed loop, median over the runs; flushes: a synctrace run's, all"
echo " locations; EZTrace OpenMP: $ez_omp; EZTrace MPI: $ez_mpi${FAM_NOTE:+; $FAM_NOTE})"
exit $status
