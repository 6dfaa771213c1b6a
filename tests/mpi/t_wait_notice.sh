#!/usr/bin/env bash
# No silent wait in the tool's finalize: when one rank stalls (slow_finalize.c, preloaded before the shim,
# holds rank 1 for 7 s once MPI_Finalize has begun), the ranks waiting for it say once on stderr, after
# ST_POLITE_NOTICE_S = 5 s, what they are waiting for; the run still completes with an archive and the
# application's output unchanged. A run without a stall prints no such line.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")
slow=$ST_BUILD/libslow_finalize.so
gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared $(mpi_incflags) \
    -o "$slow" "$MPI_DIR/slow_finalize.c" -ldl || fail "cannot build slow_finalize.c"
run_plain 2 "$bin" 3 || fail "p2p without the shim failed"

ST_PRELOAD_FIRST=$slow run_traced "$ST_TMP/quick" 2 "$bin" 3 || fail "run without a stall failed"
! grep -q "still waiting" "$ST_TMP/err.txt" || fail "a notice without a stall: $(grep 'still waiting' "$ST_TMP/err.txt")"

ST_PRELOAD_FIRST=$slow ST_ENV="SLOW_RANK=1 SLOW_SECONDS=7" run_traced "$ST_TMP/slow" 2 "$bin" 3 ||
    fail "run with a stalled rank failed: $(tail -n 3 "$ST_TMP/err.txt")"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs"
[ -f "$ST_TMP/slow/traces.otf2" ] || fail "no archive after the stall"
grep -q "synctrace\[0\]: .*still waiting after [0-9]* s for other ranks (the CLC correction at MPI_Finalize)" "$ST_TMP/err.txt" ||
    fail "rank 0 did not say what it waited for: $(head -c 400 "$ST_TMP/err.txt")"
assert_eq "notices from rank 0" 1 "$(grep -c 'synctrace\[0\]: .*still waiting' "$ST_TMP/err.txt")"
note "$(grep -m1 'still waiting' "$ST_TMP/err.txt")"
