#!/usr/bin/env bash
# t_bytes.sh — the generated wrappers, run: ops, bytes, regions and p2p arguments they pass.
#
# Generates the wrappers from wrappers/mpi_functions.tbl, links them with a stub runtime
# (stub_runtime.c, recording what it is called with) into bytes_prog.c, and runs it on 4 ranks.
# bytes_prog.c checks every collective's op and sent/received bytes against hand-worked values
# (MPI_IN_PLACE, v/w variants, large-count, intercommunicator roots, neighborhoods), the byte
# balance over all ranks, that ignored arguments are never read, and the p2p/completion calls.
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT"
# MPICH's wrappers (bytes_prog.c uses the MPI-4 large-count functions, which Open MPI 4.1 lacks)
MPI_H="$(mpicc.mpich -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -n1)/mpi.h"
[ -f "$MPI_H" ] || skip "MPICH mpi.h not found (mpicc.mpich -show)"
python3 scripts/gen_wrappers.py --table wrappers/mpi_functions.tbl --mpi-h "mpich=$MPI_H" --out "$ST_TMP/gen" >/dev/null \
    || fail "generator failed"
# gcc 12 flags MPI_STATUSES_IGNORE passed for an array parameter (stringop-overflow): a false positive
mpicc.mpich -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-stringop-overflow -O1 -g -I"$ST_TMP/gen" -I"$ST_TMP/gen/mpich" \
    -Isrc -Iinclude -o "$ST_TMP/bytes_prog" tests/wrappers/bytes_prog.c tests/wrappers/stub_runtime.c \
    "$ST_TMP/gen/mpich/mpi_wrappers.c" src/model/region.c 2>"$ST_TMP/cc.log" \
    || fail "cannot build bytes_prog: $(head -c 2000 "$ST_TMP/cc.log")"
rc=0
timeout -k 10 120 mpiexec.mpich -n 4 "$ST_TMP/bytes_prog" >"$ST_TMP/out.txt" 2>&1 || rc=$?
cat "$ST_TMP/out.txt"
[ $rc -eq 0 ] || fail "bytes_prog failed (exit $rc)"
grep -q '^ok: 0 failures' "$ST_TMP/out.txt" || fail "bytes_prog did not report success"
