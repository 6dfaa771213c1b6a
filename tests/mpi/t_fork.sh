#!/usr/bin/env bash
# fork() without exec in traced ranks (forker.c): the child records nothing, writes nothing
# (no DIR/partial, no second archive), prints nothing and lives as briefly as without the shim
# (< 300 ms from fork to reaped; before the fix its exit handler dumped into the parent's
# DIR/partial, warned, and could wait up to 2 s for dumps that never came); the parents' archive is complete with their 20 ring rounds each, and
# the application's output and exit code are unchanged.
# alone: a child process's lifetime in ms is compared with the untraced one (tests/run-tests.sh runs it with no other test beside it)
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c forker "$MPI_DIR/forker.c")
np=2
run_plain $np "$bin" "$ST_TMP/plain-child" || fail "forker without the shim failed: $(tail -n 3 "$ST_TMP/plain-err.txt")"
TRACE=$ST_TMP/trace
rc=0
run_traced "$TRACE" $np "$bin" "$ST_TMP/child" || rc=$?
assert_eq "exit code with the shim" 0 "$rc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with the shim"
[ -z "$(tool_stderr "$ST_TMP/err.txt")" ] || fail "something printed on stderr: $(head -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
[ ! -e "$TRACE/partial" ] || fail "a child wrote a partial dump: $(ls "$TRACE/partial" | tr '\n' ' ')"
for r in $(seq 0 $((np - 1))); do
    read -r ms status <"$ST_TMP/child.$r" || fail "rank $r wrote no child timing"
    read -r pms _ <"$ST_TMP/plain-child.$r"
    assert_eq "exit status of rank $r's child" 0 "$status"
    assert_le "ms rank $r's child lived (untraced: $pms)" 300 "$ms"
    note "rank $r: child lived $ms ms (untraced $pms ms)"
done
info_complete "$TRACE"
otf2_ok "$TRACE"
dump_json "$TRACE" "$ST_TMP/fork.json"
tracecheck ring "$ST_TMP/fork.json" $np 20 exact >"$ST_TMP/ring.txt" || fail "ring events: $(tr '\n' '|' <"$ST_TMP/ring.txt")"
st check "$TRACE" >"$ST_TMP/check.txt" 2>&1 || fail "synctrace check: $(head -c 300 "$ST_TMP/check.txt")"
