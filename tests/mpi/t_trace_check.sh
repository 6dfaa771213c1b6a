#!/usr/bin/env bash
# SYNCTRACE_CHECK=1 verifies every rank's trace (time order, nesting) before writing: real runs of
# the p2p and nonblocking programs must report no problem (and the count lands in the archive).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
for prog in p2p nonblock; do
    bin=$(build_mpi_c "$prog" "$MPI_DIR/$prog.c")
    ST_ENV="SYNCTRACE_CHECK=1" run_traced "$ST_TMP/$prog" "$ST_NP" "$bin" || fail "$prog failed under the shim: $(tail -n 3 "$ST_TMP/err.txt")"
    grep -q "trace check" "$ST_TMP/err.txt" && fail "$prog: trace check reported problems: $(grep 'trace check' "$ST_TMP/err.txt" | head -n 3)"
    problems=$(st info "$ST_TMP/$prog" | awk '$1 == "SYNCTRACE::TRACE_CHECK_PROBLEMS" {print $2}')
    assert_eq "$prog: SYNCTRACE::TRACE_CHECK_PROBLEMS" 0 "$problems"
done
