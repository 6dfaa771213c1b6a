#!/usr/bin/env bash
# SYNCTRACE_CALLPATH=1 SYNCTRACE_CALLSITE=1 (then SYNCTRACE_CALLSITE=1 alone) and a run that ends in MPI_Abort (pathwaits.c abort,
# 2 ranks x 2 threads): the raw dumps carry each rank's call tree, where its frames' code lies
# (object and load address) and the code mappings (written from the signal-safe dump path);
# `synctrace recover` rebuilds the tree and names the frames and the events' call sites
# (addr2line on the objects), so `synctrace dump` shows both, the recovered archive has calling contexts
# with source locations and `synctrace analyze` of it puts the injected Late Sender at
# main/exchange/late_sender_victim/MPI_Recv as for a normal run (t_analyze_callpath.sh), with the
# recursion's nested frames; analysis.cubex names the function.
source "$ST_ROOT/tests/lib.sh"
command -v clang >/dev/null || skip "clang not installed"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
src="$ST_ROOT/tests/analysis/pathwaits.c"
BIN=$(build_mpi_omp pathwaits "$src" -fno-optimize-sibling-calls) || exit 1
rc=0
ST_TIMEOUT=90 ST_ENV="OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 SYNCTRACE_CALLPATH=1 SYNCTRACE_CALLSITE=1" run_traced "$ST_TMP/p" 2 "$BIN" abort || rc=$?
[ "$rc" -ne 0 ] || fail "the aborted run exited 0"
[ ! -f "$ST_TMP/p/traces.otf2" ] || fail "an archive was written although the run aborted"
st recover "$ST_TMP/p" >"$ST_TMP/recover.txt" 2>&1 || fail "synctrace recover failed: $(head -c 400 "$ST_TMP/recover.txt")"
note "$(head -n 1 "$ST_TMP/recover.txt")"
otf2-print -G "$ST_TMP/p/traces.otf2" >"$ST_TMP/defs.txt" 2>&1 || fail "otf2-print -G failed: $(tail -3 "$ST_TMP/defs.txt")"
grep -Eq '^CALLING_CONTEXT +[0-9]+ +Region: "late_sender_victim"' "$ST_TMP/defs.txt" \
    || fail "no calling context for late_sender_victim in the recovered archive: $(grep -c CALLING_CONTEXT "$ST_TMP/defs.txt") contexts"
grep -q 'Source code location: "pathwaits.c:' "$ST_TMP/defs.txt" || fail "recovered calling contexts without source locations"
# the function's lines come from its object file after the process is gone, as at MPI_Finalize
decl_line=$(grep -n '^static void __attribute__((noinline)) late_sender_victim(void)$' "$src" | cut -d: -f1)
end_line=$(awk -v d="$decl_line" 'NR > d && /^}$/ {print NR; exit}' "$src")
grep -Eq "^REGION .* Name: \"late_sender_victim\" .*, Begin: ($decl_line|$((decl_line + 1))), End: ($end_line|$((end_line - 1)))$" "$ST_TMP/defs.txt" \
    || fail "recovered Region late_sender_victim not at lines $decl_line-$end_line: $(grep 'Name: "late_sender_victim"' "$ST_TMP/defs.txt")"
st dump "$ST_TMP/p" >"$ST_TMP/dump.txt" || fail "synctrace dump failed"
grep -Eq ' 0 +0 +enter +region=MPI_Recv callsite="late_sender_victim \(pathwaits.c:[0-9]+\)" callpath=main/exchange/late_sender_victim$' \
    "$ST_TMP/dump.txt" || fail "dump: no call site and call path on rank 0's MPI_Recv: $(grep MPI_Recv "$ST_TMP/dump.txt" | head -2)"
grep -Eq ' 1 +0 +enter +region=MPI_Send callsite="late_sender_culprit \(pathwaits.c:[0-9]+\)"' "$ST_TMP/dump.txt" \
    || fail "dump: no call site on rank 1's MPI_Send: $(grep MPI_Send "$ST_TMP/dump.txt" | head -2)"
st analyze "$ST_TMP/p" >"$ST_TMP/summary.txt" 2>&1 || fail "analyze failed: $(cat "$ST_TMP/summary.txt")"
PYTHONPATH="$ST_ROOT/tests/analysis" python3 - "$ST_TMP/p/analysis.json" <<'PY' || fail "the recovered analysis lacks the call paths"
import json, sys
from anacheck import cnode_paths
doc = json.load(open(sys.argv[1]))
path = cnode_paths(doc)
want = "main/exchange/late_sender_victim/MPI_Recv"
v = sum(x["value"] for x in doc["values"] if x["metric"] == "mpi_latesender" and path(x["cnode"]) == want)
tot = sum(x["value"] for x in doc["values"] if x["metric"] == "mpi_latesender")
print(f"mpi_latesender at {want}: {v * 1e3:.1f} ms of {tot * 1e3:.1f} (injected 120)")
bad = not (abs(v - 0.120) <= 0.012 + 0.020 and v >= 0.9 * tot)
rec = "main/exchange/" + "/".join(["recurse"] * 7) + "/MPI_Barrier"
if not any(path(c["id"]) == rec for c in doc["cnodes"]):
    print("no call path", rec); bad = True
sys.exit(1 if bad else 0)
PY
tar -xOf "$ST_TMP/p/analysis.cubex" anchor.xml >"$ST_TMP/anchor.xml" || fail "no anchor.xml in analysis.cubex"
grep -q '<name>late_sender_victim</name>' "$ST_TMP/anchor.xml" \
    || fail "analysis.cubex of the recovered archive does not name late_sender_victim"
python3 "$ST_ROOT/tests/analysis/cubecheck.py" "$ST_TMP/p/analysis.cubex" "$ST_TMP/p/analysis.json" >&2 \
    || fail "analysis.cubex does not hold the values of analysis.json"

# SYNCTRACE_CALLSITE=1 alone: no call tree, the events' call sites are named through the code
# mappings the dumps carry
rc=0
ST_TIMEOUT=90 ST_ENV="OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 SYNCTRACE_CALLSITE=1" run_traced "$ST_TMP/s" 2 "$BIN" abort || rc=$?
[ "$rc" -ne 0 ] || fail "the aborted run (call sites only) exited 0"
st recover "$ST_TMP/s" >"$ST_TMP/recover-s.txt" 2>&1 || fail "synctrace recover (call sites only) failed: $(head -c 400 "$ST_TMP/recover-s.txt")"
st dump "$ST_TMP/s" >"$ST_TMP/dump-s.txt" || fail "synctrace dump failed (call sites only)"
grep -Eq ' 0 +0 +enter +region=MPI_Recv callsite="late_sender_victim \(pathwaits.c:[0-9]+\)"$' "$ST_TMP/dump-s.txt" \
    || fail "dump: no call site on rank 0's MPI_Recv (call sites only): $(grep MPI_Recv "$ST_TMP/dump-s.txt" | head -2)"
