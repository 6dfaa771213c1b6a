#!/usr/bin/env bash
# t_clc_abort.sh — a CLC run that fails on one rank in the middle of the exchange ends at once
# on every rank and leaves no tool message behind. corrupt.c (preloaded before the shim)
# corrupts the first CLC message one rank sends; its receiver rejects it. Asserts: the
# application's stdout and exit code unchanged (MPI/UCX used to append "unexpected tag-receive
# descriptor was not matched" for tool messages left unreceived), the run ends in seconds (the
# other ranks used to wait 60 s for the failed one), the failure is reported on stderr, the
# archive is written with CLC_STATE failed and no event moved.
# families: mpich openmpi
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c clc_mpi "$CLC_DIR/clc_mpi.c")
CORRUPT_LIB=$ST_BUILD/libcorrupt.so
gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden $(mpi_incflags) \
    -o "$CORRUPT_LIB" "$CLC_DIR/corrupt.c" -ldl || fail "cannot build corrupt.c"

run_plain "$ST_NP" "$BIN" 3 || fail "clc_mpi without the shim failed"
for bad in 1 0; do
    dir=$ST_TMP/abort$bad rc=0 start=$(date +%s)
    ST_PRELOAD_FIRST=$CORRUPT_LIB ST_ENV="CORRUPT_RANK=$bad" run_traced "$dir" "$ST_NP" "$BIN" 3 || rc=$?
    secs=$(( $(date +%s) - start ))
    assert_eq "rank $bad's message corrupted: exit code" 0 "$rc"
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" ||
        fail "rank $bad's message corrupted: stdout differs: $(diff "$ST_TMP/plain.txt" "$ST_TMP/out.txt" | head -n 4 | tr '\n' '|')"
    ! grep -qi 'ucx' "$ST_TMP/err.txt" || fail "rank $bad's message corrupted: MPI warns: $(grep -i ucx "$ST_TMP/err.txt" | head -n 2)"
    grep -q 'malformed or unexpected message' "$ST_TMP/err.txt" ||
        fail "rank $bad's message corrupted: no report of the bad message: $(head -c 400 "$ST_TMP/err.txt")"
    grep -q 'the correction failed on at least one rank' "$ST_TMP/err.txt" ||
        fail "rank $bad's message corrupted: no report of the failure: $(head -c 400 "$ST_TMP/err.txt")"
    ! grep -q 'made no progress' "$ST_TMP/err.txt" || fail "rank $bad's message corrupted: a rank waited for the failed one"
    assert_le "rank $bad's message corrupted: seconds of the traced run" 15 "$secs"
    [ -f "$dir/traces.otf2" ] || fail "rank $bad's message corrupted: no archive"
    assert_eq "rank $bad's message corrupted: CLC_STATE" failed "$(st info "$dir" | sed -n 's/^ *SYNCTRACE::CLC_STATE *//p')"
    st info "$dir" | grep -qE '^moved by CLC: *0 events' || fail "rank $bad's message corrupted: events moved"
    note "rank $bad's first CLC message corrupted: $secs s, $(wc -l <"$ST_TMP/err.txt") stderr lines"
done
