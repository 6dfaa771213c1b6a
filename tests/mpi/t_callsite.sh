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

# Many distinct call sites: resolved with one addr2line run per object and batch (not one per address),
# and still each to its own line. A generated program makes 300 MPI_Barrier calls on 300 lines; an
# addr2line wrapper first in PATH counts its runs.
gen=$ST_TMP/many_sites.c
{
    echo '#include <mpi.h>'
    echo 'int main(int argc, char **argv) { MPI_Init(&argc, &argv);'
    for i in $(seq 1 300); do echo "    MPI_Barrier(MPI_COMM_WORLD); /* site $i */"; done
    echo '    MPI_Finalize(); return 0; }'
} >"$gen"
many=$(build_mpi_c many_sites "$gen" -O0)
mkdir -p "$ST_TMP/wrap"
real=$(command -v addr2line) || fail "addr2line not found (binutils)"
printf '#!/bin/sh\necho run >>"%s/a2l-runs.txt"\nexec "%s" "$@"\n' "$ST_TMP" "$real" >"$ST_TMP/wrap/addr2line"
chmod +x "$ST_TMP/wrap/addr2line"
: >"$ST_TMP/a2l-runs.txt"
t0=$(date +%s%N)
ST_ENV="SYNCTRACE_CALLSITE=1 PATH=$ST_TMP/wrap:$PATH" run_traced "$ST_TMP/many" 2 "$many" ||
    fail "many call sites: the run failed: $(tail -n 3 "$ST_TMP/err.txt")"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
runs=$(wc -l <"$ST_TMP/a2l-runs.txt")
assert_le "addr2line runs for 300 call sites on 2 ranks" 6 "$runs"
st dump --json "$ST_TMP/many" >"$ST_TMP/many.json"
lines=$(python3 -c '
import json, re, sys
seen = set()
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("type") == "enter" and e.get("region") == "MPI_Barrier" and e.get("rank") == 0:
        m = re.search(r"many_sites\.c:(\d+)", e.get("callsite") or "")
        seen.add(int(m.group(1)) if m else -1)
print(len(seen - {-1}), -1 in seen)' "$ST_TMP/many.json")
assert_eq "distinct resolved lines of rank 0's 300 barriers (and any unresolved)" "300 False" "$lines"
note "300 call sites: $runs addr2line runs, job $ms ms"
