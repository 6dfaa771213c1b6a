#!/usr/bin/env bash
# Bad SYNCTRACE_SYNC values are rejected with one line that names the variable, the
# bad part and what is accepted; with the shim they stop the run at start-up (exit 2).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/sync/common.sh"
while IFS='|' read -r spec part; do
    out=$("$SYNC_PROG" -p "$spec") && fail "'$spec' accepted"
    [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "'$spec': more than one line: $out"
    case $out in *SYNCTRACE_SYNC*accepted:*) ;; *) fail "'$spec': message lacks SYNCTRACE_SYNC or 'accepted': $out" ;; esac
    case $out in *"$part"*) ;; *) fail "'$spec': message does not mention '$part': $out" ;; esac
done <<'LIST'
hca4|hca4
h2hca:hca3|2 level
hca3(fit=0)|fit=1..100
prop(fit=3)|fit
hca3(pp=10|')'
h2hca(resync=sometimes)|resync=offset|full
LIST
for spec in none h2hca h3hca hca3 hca2 jk 'hca3/prop' 'h2hca(resync=full):jk(fit=4,pp=8,window=20)/prop(check=0)'; do
    "$SYNC_PROG" -p "$spec" >/dev/null || fail "'$spec' rejected"
done
# Through the shim: the application does not start.
if [ -f "$ST_LIB" ] && nm -D --defined-only "$ST_LIB" 2>/dev/null | grep -q MPI_Init; then
    bin=$(build_mpi_c sync_hello "$ST_ROOT/tests/sync/hello.c")
    rc=0
    SYNCTRACE_SYNC='hca3(fit=zero)' mpi_run -t 60 -e LD_PRELOAD="$ST_LIB" -n 2 "$bin" \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || rc=$?
    [ $rc -ne 0 ] || fail "the shim accepted a bad SYNCTRACE_SYNC"
    grep -q "SYNCTRACE_SYNC=.*accepted" "$ST_TMP/err.txt" || fail "no clear message: $(head -c 300 "$ST_TMP/err.txt")"
    ! grep -q "hello from" "$ST_TMP/out.txt" || fail "the application ran with a bad SYNCTRACE_SYNC"
else
    note "no shim library yet: checked the parser only"
fi
