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

# The blocking sends and receives take the wrappers' inline usual case (src/mpi/p2p_fast.h); with call
# sites asked for, every call takes the general wrapper. Both must record the same events: per rank, the
# same multiset of events in everything but their times, the receives' post ids and the ENTERs' call
# sites (wildcard receives may match in another order; the probe loops run as often as they need).
general=$ST_TMP/p2p-general
ST_ENV="SYNCTRACE_CALLSITE=1" run_traced "$general" "$ST_NP" "$bin" -c "$ST_TMP/counts-general" 10 ||
    fail "p2p with call sites failed: $(tail -n 3 "$ST_TMP/err.txt")"
dump_json "$general" "$ST_TMP/p2p-general.json"
python3 - "$ST_TMP/p2p.json" "$ST_TMP/p2p-general.json" >"$ST_TMP/fast_general.txt" <<'PY' || fail "the usual case and the general wrappers record different events: $(head -c 600 "$ST_TMP/fast_general.txt")"
import collections, json, sys
def events(path):
    per = collections.defaultdict(collections.Counter)
    for line in open(path):
        e = json.loads(line)
        if e.get("region") in ("MPI_Iprobe", "MPI_Improbe"):
            continue
        key = tuple(sorted((k, str(v)) for k, v in e.items() if k not in ("t", "orig_t", "post", "callsite", "clc_moved")))
        per[(e["rank"], e["thread"])][key] += 1
    return per
fast, gen = events(sys.argv[1]), events(sys.argv[2])
bad = []
for loc in sorted(set(fast) | set(gen)):
    d = (fast[loc] - gen[loc]) + (gen[loc] - fast[loc])
    for key, n in list(d.items())[:3]:
        bad.append(f"rank {loc[0]}: {dict(key)} x{fast[loc][key]} usual case, x{gen[loc][key]} general")
n = sum(sum(c[k] for k in c if ("type", "send") in k or ("type", "recv") in k) for c in fast.values())
print(f"{n} sends and receives compared; " + "; ".join(bad[:6]))
sys.exit(1 if bad or n == 0 else 0)
PY
note "$(cat "$ST_TMP/fast_general.txt")"
