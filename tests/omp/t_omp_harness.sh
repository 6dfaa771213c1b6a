#!/usr/bin/env bash
# The OMPT callbacks linked directly into OpenMP programs (no MPI, no rest of the shim):
# harness.c runs constructs.c with 2 and 3 threads, built with clang and with gcc (run on
# LLVM's GOMP stand-in), and checks per-thread event counts, pairing, fork/join, barrier,
# lock-order and task relations on the raw recorded events. Then LLVM's hidden-helper
# threads (target nowait): no location for them, nothing left unpaired; with
# LIBOMP_USE_HIDDEN_HELPER_TASK=0 the target task is recorded completely.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
command -v clang >/dev/null || skip "clang not installed"
[ -f "$GEN_DIR/omp-tools.h" ] && [ -f "$GEN_DIR/mpi_regions.def" ] || fail "no generated headers in $GEN_DIR (make all)"
[ -e "$GOMP_DIR/libgomp.so.1" ] || fail "no GOMP stand-in $GOMP_DIR/libgomp.so.1 (make all)"

src=("$OMP_DIR/harness.c" "$OMP_DIR/constructs.c" "$ST_ROOT"/src/omp/*.c "$ST_ROOT/src/model/event.c" "$ST_ROOT/src/model/late_ends.c"
     "$ST_ROOT/src/record/record.c" "$ST_ROOT/src/model/gaps.c" "$ST_ROOT/src/util/mem.c" "$ST_ROOT/src/record/spill.c" "$ST_ROOT/src/model/region.c" "$ST_ROOT/src/clock/timer.c" "$ST_ROOT/src/clock/tsc.c" "$ST_ROOT/src/util/nodeid.c" "$ST_ROOT/src/clock/tsc_points.c"
     "$ST_ROOT/src/config/config.c" "$ST_ROOT/src/util/archive_dir.c" "$ST_ROOT/src/util/log.c"
     "$ST_ROOT/src/record/unwind.c" "$ST_ROOT/src/model/rankdata.c" "$ST_ROOT/src/model/rankdata_dump.c" "$ST_ROOT/src/model/callpath.c")
# both builds at once (each compiles every source in one process)
declare -A builder
for cc in clang gcc; do
    $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fopenmp -I"$GEN_DIR" -I"$ST_ROOT/src/record" \
        -I"$ST_ROOT/include" -rdynamic -o "$ST_BUILD/omp-harness-$cc" "${src[@]}" -lunwind -lm -lpthread \
        >"$ST_TMP/build-$cc.txt" 2>&1 &
    builder[$cc]=$!
done
for cc in clang gcc; do
    wait "${builder[$cc]}" || fail "cannot build the harness with $cc: $(head -c 1500 "$ST_TMP/build-$cc.txt")"
done
for cc in clang gcc; do
    out=$ST_BUILD/omp-harness-$cc
    ldpath=
    [ $cc = gcc ] && ldpath=$GOMP_DIR
    for t in 2 3; do
        LD_LIBRARY_PATH=$ldpath timeout -k 10 120 "$out" -t $t >"$ST_TMP/h.txt" 2>&1 ||
            fail "harness ($cc, $t threads):$(head -n 20 "$ST_TMP/h.txt" | sed 's/^/\n    /' | tr -d '\n')"
        note "$cc, $t threads: $(grep -c . "$ST_TMP/h.txt") lines, $(grep 'locations' "$ST_TMP/h.txt")"
    done
done
out=$ST_BUILD/omp-harness-clang
timeout -k 10 120 "$out" hidden >"$ST_TMP/h.txt" 2>&1 || fail "harness hidden helpers:$(sed 's/^/\n    /' "$ST_TMP/h.txt" | tr -d '\n')"
LIBOMP_USE_HIDDEN_HELPER_TASK=0 timeout -k 10 120 "$out" hidden >"$ST_TMP/h.txt" 2>&1 ||
    fail "harness hidden helpers off:$(sed 's/^/\n    /' "$ST_TMP/h.txt" | tr -d '\n')"
grep -q '1 locations, 10 events' "$ST_TMP/h.txt" || fail "target task not recorded completely: $(cat "$ST_TMP/h.txt")"
