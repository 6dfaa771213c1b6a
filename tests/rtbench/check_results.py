#!/usr/bin/env python3
"""check_results.py JSON CSV RANKS SLICE — checks a synctrace-bench run's files against each other
and the invariants every figure must hold. Prints one line per problem; exit 1 if any."""
import csv
import json
import sys

path, csv_path, ranks, slc = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
d = json.load(open(path))
bad = []
for key in ("ranks", "nodes", "sync", "clock_offset_max_ns", "mpi_library", "margin_ns", "slice_s", "date"):
    if key not in d:
        bad.append(f"metadata '{key}' missing")
off = d.get("clock_offset_max_ns", {})
for k in ("after_sync", "at_end", "after_sync_bound", "at_end_bound"):
    if not isinstance(off.get(k), (int, float)) or off[k] < 0:
        bad.append(f"clock_offset_max_ns.{k}: {off.get(k)!r}")
# one node under h2hca (ClockPropSync inside a node: the ranks share one clock, offset 0) or none: a
# measured offset is the measurement's own error, which half the fastest ping-pong bounds (0.1 ns: the
# figures' rounding). A flat scheme estimates every rank's offset by ping-pongs, on one node too: its
# own error is real (seen: 43 us at the end, 4 ranks on 2 cores, bound 2.6 us).
if d.get("nodes") == 1 and d.get("sync") in ("h2hca", "none") and not bad:
    for k in ("after_sync", "at_end"):
        if off[k] > off[k + "_bound"] + 0.1:
            bad.append(f"one node: clock offset {k} {off[k]} ns beyond its bound {off[k + '_bound']} ns")
if d.get("ranks") != ranks:
    bad.append(f"ranks {d.get('ranks')} != {ranks}")
if not str(d.get("mpi_library", "")).startswith("MPICH"):
    bad.append(f"mpi_library {d.get('mpi_library')!r}")
if not d["results"]:
    bad.append("no results")
for r in d["results"]:
    name = f"{r['operation']}/{r['bytes']}/{r['scheme']}"
    rounds = r["valid"] + r["invalid"]
    if rounds < 1:
        bad.append(f"{name}: no rounds at all")
    if (r["valid"] > 0) != all(r[k] is not None for k in ("min_ns", "median_ns", "mean_ns", "max_ns")):
        bad.append(f"{name}: figures must be given exactly when there are valid rounds: {r}")
        continue
    if r["valid"] > 0 and not (r["min_ns"] <= r["median_ns"] <= r["max_ns"] and r["min_ns"] <= r["mean_ns"] <= r["max_ns"]):
        bad.append(f"{name}: min/median/mean/max out of order: {r}")
    if r["valid"] > 0 and r["min_ns"] <= 0:
        bad.append(f"{name}: latency {r['min_ns']} ns")
    # the slice ends after the round that used it up: at least the slice, and not much more
    if not (slc <= r["slice_used_s"] <= 2 * slc + 0.3):
        bad.append(f"{name}: slice used {r['slice_used_s']} s for a slice of {slc} s")
rows = list(csv.DictReader(open(csv_path)))
if len(rows) != len(d["results"]):
    bad.append(f"CSV has {len(rows)} rows, JSON {len(d['results'])}")
for row, r in zip(rows, d["results"]):
    for k in ("operation", "scheme"):
        if row[k] != str(r[k]):
            bad.append(f"CSV {k} {row[k]} != JSON {r[k]}")
    for k in ("valid", "invalid", "bytes"):
        if int(row[k]) != r[k]:
            bad.append(f"CSV {k} {row[k]} != JSON {r[k]}")
    if r["median_ns"] is None:
        if row["median_ns"] != "":
            bad.append(f"CSV has a median where JSON has none: {row}")
    elif abs(float(row["median_ns"]) - r["median_ns"]) > 0.1:
        bad.append(f"CSV median differs from JSON: {row}")
    for k in ("after_sync", "at_end"):
        for suffix in ("", "_bound"):
            if abs(float(row[f"clock_offset_{k}{suffix}_ns"]) - off.get(k + suffix, -1)) > 0.1:
                bad.append(f"CSV clock_offset_{k}{suffix}_ns differs from JSON: {row}")
    if int(row["ranks"]) != ranks or row["sync"] != d["sync"]:
        bad.append(f"CSV metadata differs from JSON: {row}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
