#!/usr/bin/env bash
# Blocking point-to-point under the shim (p2p.c): ring, zero-byte, MPI_ANY_SOURCE/ANY_TAG with
# and without MPI_STATUS_IGNORE, Sendrecv, MPI_PROC_NULL, Probe/Iprobe/Mprobe+Mrecv/Improbe+Imrecv.
# Asserts unchanged output and exit code, exact per-rank event counts (peers, tags, bytes),
# every message matched by `synctrace check`, and an archive otf2-print accepts.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")
ST_ENV="SYNCTRACE_VERBOSE=2" full_check p2p p2p "$bin" "$ST_NP" 10
# the byte counts above were read from the receive statuses directly (p2p.c: status_bytes), which
# this MPI's status fields allowed when they were checked at MPI_Init
grep -q 'debug: receive sizes: read from the status (its fields checked)' "$ST_TMP/err.txt" ||
    fail "receive sizes not read from the status: $(grep -m1 'receive sizes' "$ST_TMP/err.txt")"

# A blocking receive reads the clock once after PMPI: its LEAVE shares the RECV's stamp (the
# original time where CLC moved an event), in Recv, Sendrecv and Mrecv alike.
python3 - "$ST_TMP/p2p.json" >"$ST_TMP/recv_leave.txt" <<'PY' || fail "a blocking receive's LEAVE does not share its RECV's stamp: $(head -c 400 "$ST_TMP/recv_leave.txt")"
import json, sys
locs = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    locs.setdefault((e["rank"], e["thread"]), []).append(e)
n, bad = 0, []
for loc, evs in locs.items():
    for a, b in zip(evs, evs[1:]):
        if a["type"] != "recv":
            continue
        n += 1
        ta, tb = a.get("orig_t", a["t"]), b.get("orig_t", b["t"])
        if b["type"] != "leave" or ta != tb:
            bad.append(f"rank {loc[0]}: recv at {ta}, then {b['type']} {b.get('region', '')} at {tb}")
print(f"{n} receives, {len(bad)} apart: " + "; ".join(bad[:3]))
sys.exit(1 if bad or n == 0 else 0)
PY
