#!/usr/bin/env bash
# synctrace score on a real run (score_app.c, 2 ranks): the three cheap calls it makes N times
# (MPI_Type_size, MPI_Comm_rank, MPI_Win_flush_all) top the list with their exact visits, the
# groups add up to the total, the estimated event files match the real ones within 5 %, and
# --filter proposes exactly those three in a well-formed filter file; with it as
# SYNCTRACE_FILTER (docs/filter.md), a rerun shrinks the event files by the
# predicted share (within 5 % of it) and keeps every call that may not be filtered.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"

# bad arguments: one line, exit 2
for args in "" "--filter" "x --for" "x --for -3" "x --min-visits many" "x --bogus" "x --filter --json" "x y"; do
    rc=0
    "$ST_BIN/synctrace" score $args >"$ST_TMP/u.out" 2>"$ST_TMP/u.err" || rc=$?
    assert_eq "exit of score $args" 2 "$rc"
    assert_eq "stderr lines of score $args" 1 "$(wc -l <"$ST_TMP/u.err")"
    [ -s "$ST_TMP/u.out" ] && fail "score $args printed on stdout"
done
N=100000
bin=$(build_mpi_c score_app "$ST_ROOT/tests/cli/score_app.c")
export ST_ENV="SYNCTRACE_ANALYZE=off"
run_traced "$ST_TMP/run1" 2 "$bin" "$N" || fail "traced run failed: $(tail -n 3 "$ST_TMP/err.txt")"
grep -q "checksum=" "$ST_TMP/out.txt" || fail "score_app printed no checksum"

st score "$ST_TMP/run1" >"$ST_TMP/score.txt" 2>"$ST_TMP/score-err.txt" || fail "score failed: $(cat "$ST_TMP/score-err.txt")"
[ -s "$ST_TMP/score-err.txt" ] && fail "score wrote to stderr: $(head -c 300 "$ST_TMP/score-err.txt")"
# the region rows follow the blank line after the group rows; the first three are the cheap calls
top=$(awk 'NF == 0 { blank++; next } blank == 3 && NF >= 9 { print $NF }' "$ST_TMP/score.txt" | head -n 3 | sort | tr '\n' ' ')
assert_eq "top three regions" "MPI_Comm_rank MPI_Type_size MPI_Win_flush_all " "$top"
grep -q "Estimated aggregate size of event trace" "$ST_TMP/score.txt" || fail "no trace size estimate in the header"

st score "$ST_TMP/run1" --json >"$ST_TMP/score.json" || fail "score --json failed"
python3 - "$ST_TMP/score.json" "$N" <<'PY' || fail "score --json: see above"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
regions = {r["name"]: r for r in d["regions"]}
bad = []
def want(what, exp, got):
    if exp != got: bad.append("%s: expected %s, got %s" % (what, exp, got))
for name, per_rank in (("MPI_Type_size", n), ("MPI_Comm_rank", n + 1), ("MPI_Win_flush_all", n)):
    r = regions.get(name)
    if not r: bad.append("no row " + name); continue
    want(name + " visits", 2 * per_rank, r["visits"])
    want(name + " visits/location", per_rank, r["visits_max"])
    want(name + " events", 4 * per_rank, r["events"])
for name in ("MPI_Send", "MPI_Recv"):
    want(name + " visits", 2 * (n // 100), regions.get(name, {}).get("visits"))
want("groups' bytes = total", d["record_bytes"], sum(g["bytes"] for g in d["groups"]))
want("regions' bytes = total", d["record_bytes"], sum(r["bytes"] for r in d["regions"]))
want("groups' events = total", d["events"], sum(g["events"] for g in d["groups"]))
est, real = d["estimated_file_bytes"], d["file_bytes"]
if not real or abs(est - real) > 0.05 * real:
    bad.append("estimated event files %d B, real %d B (more than 5 %% off)" % (est, real))
print("  estimated event files %d B, real %d B (%+.2f %%)" % (est, real, 100.0 * (est - real) / real), file=sys.stderr)
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY

st score "$ST_TMP/run1" --filter >"$ST_TMP/proposal.filter" || fail "score --filter failed"
proposed=$(awk '$1 == "EXCLUDE" { print $2 }' "$ST_TMP/proposal.filter" | sort | tr '\n' ' ')
assert_eq "proposed filter" "MPI_Comm_rank MPI_Type_size MPI_Win_flush_all " "$proposed"
# well-formed: comments, the region-names block once, and one EXCLUDE/INCLUDE rule per line
awk '/^[[:space:]]*(#|$)/ { next }
     $1 == "SCOREP_REGION_NAMES_BEGIN" && NF == 1 { b++; next }
     $1 == "SCOREP_REGION_NAMES_END" && NF == 1 { e++; next }
     ($1 == "EXCLUDE" || $1 == "INCLUDE") && NF >= 2 && b == 1 && !e { next }
     { print "line " NR ": " $0; bad = 1 }
     END { exit bad || b != 1 || e != 1 }' "$ST_TMP/proposal.filter" >"$ST_TMP/syntax.txt" ||
    fail "proposal is no well-formed filter file: $(head -n 3 "$ST_TMP/syntax.txt")"
predicted=$(sed -n 's/.*predicted_saved_bytes=\([0-9]*\).*/\1/p' "$ST_TMP/proposal.filter")
[ -n "$predicted" ] && [ "$predicted" -gt 0 ] || fail "proposal predicts no shrink"

# the rerun with the proposal
ST_ENV="SYNCTRACE_ANALYZE=off SYNCTRACE_FILTER=$ST_TMP/proposal.filter" run_traced "$ST_TMP/run2" 2 "$bin" "$N" ||
    fail "filtered run failed: $(tail -n 3 "$ST_TMP/err.txt")"
st score "$ST_TMP/run2" --json >"$ST_TMP/score2.json" || fail "score of the filtered run failed"
python3 - "$ST_TMP/score.json" "$ST_TMP/score2.json" "$predicted" "$N" <<'PY' || fail "filtered rerun: see above"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])); predicted = int(sys.argv[3]); n = int(sys.argv[4])
real = a["file_bytes"] - b["file_bytes"]
print("  event files %d -> %d B: shrink %d B (%.2f %%), predicted %d B (%.2f %%)" % (a["file_bytes"], b["file_bytes"],
      real, 100.0 * real / a["file_bytes"], predicted, 100.0 * predicted / a["file_bytes"]), file=sys.stderr)
bad = []
if abs(real - predicted) > 0.05 * predicted:
    bad.append("real shrink %d B is more than 5 %% off the predicted %d B" % (real, predicted))
regions = {r["name"]: r for r in b["regions"]}
for name in ("MPI_Type_size", "MPI_Comm_rank", "MPI_Win_flush_all"):
    if regions.get(name, {}).get("visits"):
        bad.append("%s still has events in the filtered trace" % name)
# the filtered calls are counted: each excluded region's visits as in the unfiltered run, no bytes
filtered = {r["name"]: r for r in b.get("filtered", [])}
unfiltered = {r["name"]: r for r in a["regions"]}
if sorted(filtered) != ["MPI_Comm_rank", "MPI_Type_size", "MPI_Win_flush_all"]:
    bad.append("filtered rows %s, expected the three excluded regions" % sorted(filtered))
for name, r in filtered.items():
    u = unfiltered.get(name, {})
    if (r["visits"], r["visits_max"], r["bytes"], r["events"]) != (u.get("visits"), u.get("visits_max"), 0, 0):
        bad.append("%s filtered: visits %s (max %s), bytes %s, events %s; unfiltered run: visits %s (max %s)" %
                   (name, r["visits"], r["visits_max"], r["bytes"], r["events"], u.get("visits"), u.get("visits_max")))
    if not 0 < r["time_ns"] < 10 * max(u.get("time_ns", 0), 1):
        bad.append("%s filtered: time %s ns, unfiltered run %s ns" % (name, r["time_ns"], u.get("time_ns")))
for name, visits in (("MPI_Send", 2 * (n // 100)), ("MPI_Recv", 2 * (n // 100)), ("MPI_Win_unlock_all", 2),
                     ("MPI_Win_lock_all", 2), ("MPI_Barrier", 2)):
    got = regions.get(name, {}).get("visits")
    if got != visits: bad.append("%s: %s visits in the filtered trace, expected %d" % (name, got, visits))
if bad:
    print("\n".join(bad), file=sys.stderr); sys.exit(1)
PY
