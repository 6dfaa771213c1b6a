#!/usr/bin/env bash
# Full buffers handed to the writer thread lose and reorder nothing: burst.c with 1500 bursts (over 3·
# 10^5 events per rank) on 2 ranks with SYNCTRACE_BUFFER=64k (1024 events: over 300 hand-offs per
# rank). The archive must be complete, every rank's event counts exact, every message matched, and
# the TRACE BUFFER FLUSH regions (waits for a writer that fell behind) only where buffers begin,
# at most one per hand-off.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c burst "$MPI_DIR/burst.c")
ST_TIMEOUT=300 ST_ENV="SYNCTRACE_BUFFER=64k" full_check handoff burst "$bin" 2 1500 32
tracecheck flush "$ST_TMP/handoff.json" 1024 any >"$ST_TMP/flush.txt" ||
    fail "FLUSH regions: $(grep MISMATCH "$ST_TMP/flush.txt" | head -n 4 | tr '\n' '|')"
note "$(tr '\n' '|' <"$ST_TMP/flush.txt")"
