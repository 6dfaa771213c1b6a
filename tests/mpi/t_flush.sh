#!/usr/bin/env bash
# SYNCTRACE_BUFFER=64k (1024 events per thread) with burst.c (about 11000 events per rank): about
# ten full buffers per rank, handed to the writer thread. Its writes are slowed to 300 ms each
# (slow_spill.c, preloaded first), so it falls behind and a rank that fills its buffer again must
# wait: no event may be lost (exact counts and every message matched), each location's TRACE BUFFER
# FLUSH regions must sit where its buffers begin, one at nearly every hand-off but the first, and
# `synctrace info` reports the same number of flushes as the dump holds.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c burst "$MPI_DIR/burst.c")
slow=$(build_slow_spill) || exit 1
ST_PRELOAD_FIRST=$slow ST_ENV="SYNCTRACE_BUFFER=64k SLOW_SPILL_MS=300" full_check flush burst "$bin" "$ST_NP" 48 32
tracecheck flush "$ST_TMP/flush.json" 1024 behind >"$ST_TMP/flush.txt" ||
    fail "flush counts: $(grep MISMATCH "$ST_TMP/flush.txt" | head -n 4 | tr '\n' '|')"
note "$(head -n 4 "$ST_TMP/flush.txt" | tr '\n' '|')"
grep -q '"region": *"TRACE BUFFER FLUSH"' "$ST_TMP/flush.json" || fail "no TRACE BUFFER FLUSH region in the dump"
st info "$TRACE" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info failed: $(head -c 300 "$ST_TMP/info.txt")"
flushes=$(sed -nE 's/^buffer flushes:[[:space:]]*([0-9]+).*/\1/p' "$ST_TMP/info.txt" | head -n 1)
[ -n "$flushes" ] || fail "synctrace info shows no 'buffer flushes: N' line: $(head -c 300 "$ST_TMP/info.txt")"
in_dump=$(grep -c '"type": *"enter", *"region": *"TRACE BUFFER FLUSH"' "$ST_TMP/flush.json" || true)
assert_ge "buffer flushes shown by synctrace info" 1 "$flushes"
assert_eq "buffer flushes in synctrace info vs FLUSH regions in the dump" "$in_dump" "$flushes"
note "info: buffer flushes: $flushes"
