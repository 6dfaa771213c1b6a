#!/usr/bin/env bash
# synctrace analyze on a hybrid MPI+OpenMP run (tests/clc/clc_hybrid.c, 2 ranks x 3 threads):
# every thread is a location, OpenMP constructs nest in the call tree, and the exclusive
# times of each location add up to its master's span (first to last event of thread 0, from
# `synctrace dump`: a worker's time is its teams' fork to join and idle time; docs/analysis.md),
# code the analysis does not share); no clock violation after CLC; the CUBE4 report holds
# the JSON's values (independent reader).
source "$ST_ROOT/tests/lib.sh"
command -v clang >/dev/null || skip "clang not installed"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
BIN=$(build_mpi_omp clc_hybrid_ana "$ST_ROOT/tests/clc/clc_hybrid.c" -lm) || exit 1
ST_ENV="OMP_NUM_THREADS=3 KMP_BLOCKTIME=0" run_traced "$ST_TMP/h" 2 "$BIN" -t 3 6 \
    || fail "hybrid run failed: $(tail -n 5 "$ST_TMP/err.txt")"
st analyze "$ST_TMP/h" >"$ST_TMP/summary.txt" || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
grep -q '^  violations seen by the analysis: 0 receives before their send, 0 collective ends' "$ST_TMP/summary.txt" \
    || fail "violations after CLC: $(grep violations "$ST_TMP/summary.txt")"
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/h/analysis.cubex" "$ST_TMP/h/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json"
python3 "$ST_ROOT/tests/analysis/anacheck.py" "$ST_TMP/h/analysis.json" tree >&2 || fail "metric tree inconsistent"
st dump --json "$ST_TMP/h" >"$ST_TMP/dump.json" || fail "dump failed"
python3 - "$ST_TMP/h/analysis.json" "$ST_TMP/dump.json" <<'PY' || fail "times do not add up"
import json, sys
doc = json.load(open(sys.argv[1]))
span = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    k = (e["rank"], e["thread"])
    lo, hi = span.get(k, (e["t"], e["t"]))
    span[k] = (min(lo, e["t"]), max(hi, e["t"]))
locs = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
if sorted(locs.values()) != sorted(span):
    sys.exit("locations %s, dump has %s" % (sorted(locs.values()), sorted(span)))
if len([k for k in span if k[1] > 0]) < 2:
    sys.exit("no worker threads in the trace")
total = {k: 0.0 for k in span}
for v in doc["values"]:
    if v["metric"] == "time":
        total[locs[v["location"]]] += v["value"]
for k in sorted(span):
    lo, hi = span[(k[0], 0)]
    if abs(total[k] - (hi - lo) / 1e9) > 1e-6:
        sys.exit("rank %d thread %d: time %.9f s, master's span %.9f s" % (k[0], k[1], total[k], (hi - lo) / 1e9))
regions = {c["region"] for c in doc["cnodes"]}
if "!$omp parallel" not in regions:
    sys.exit("no OpenMP region in the call tree: %s" % sorted(regions))
print("times add up on %d locations" % len(span))
PY
