#!/usr/bin/env bash
# SYNCTRACE_CALLSITE=1: every MPI call of p2p.c carries a call site naming p2p.c:LINE, and the
# ring's calls (marked /* CALLSITE:... */ in p2p.c) name ring_step and their exact line, 13 per
# rank each of MPI_Send and MPI_Recv (10 ring + 3 zero-byte rounds).
# Event counts stay exact.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")
ST_ENV="SYNCTRACE_CALLSITE=1" full_check callsite p2p "$bin" "$ST_NP" 10
tracecheck callsite "$ST_TMP/callsite.json" "$MPI_DIR/p2p.c" 13 >"$ST_TMP/cs.txt" 2>"$ST_TMP/cs-err.txt" ||
    fail "call sites: $(head -n 8 "$ST_TMP/cs.txt" "$ST_TMP/cs-err.txt" | tr '\n' '|')"
note "$(cat "$ST_TMP/cs-err.txt")"
