#!/usr/bin/env bash
# The benchmark programs `make bench` compiles still build from today's sources (make check does not
# run the benchmarks): record_bench.c with the sources its "/* link: */" line names, as run-bench.sh
# builds it, and the MPI programs the bench scripts compile. A source file moved or split without the
# benchmarks' link lines following it fails here, not first in `make bench`.
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT"
gen=$ST_O/build/gen
out=$ST_TMP/record_bench
mpi_cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -pthread -I"$gen" -Isrc -Iinclude -o "$out" \
    tests/bench/record_bench.c $(sed -n 's|^/\* link: \(.*\) \*/$|\1|p' tests/bench/record_bench.c) -lunwind -lpthread -lm \
    >"$ST_TMP/cc.txt" 2>&1 || fail "record_bench.c does not build: $(grep -m3 -E 'error|undefined' "$ST_TMP/cc.txt" | tr '\n' '|')"
for p in pingpong clc_bench; do
    mpi_cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -o "$ST_TMP/$p" "tests/bench/$p.c" >"$ST_TMP/cc.txt" 2>&1 ||
        fail "tests/bench/$p.c does not build: $(head -c 300 "$ST_TMP/cc.txt")"
done
note "record_bench, pingpong and clc_bench build"
