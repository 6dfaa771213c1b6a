#!/usr/bin/env python3
"""anacheck.py — reads an analysis.json (docs/analysis.md) and checks values.

  anacheck.py FILE show
      prints every value summed per (metric, region of the call path's leaf, rank)
  anacheck.py FILE expect METRIC REGION RANKS MS [METRIC REGION RANKS MS ...]
      the value of METRIC at call paths ending in REGION on each rank of RANKS
      (comma-separated) is MS milliseconds within 10 % + SLACK_MS (env, default 5)
  anacheck.py FILE total METRIC MS
      the metric's sum over everything is MS within 10 % + SLACK_MS per location
  anacheck.py FILE waits OUT
      tests/analysis/waits.c: the waits its "mark PHASE RANK ENTER LEAVE" lines in OUT
      imply (the program's own clock readings around each call) against the analysis,
      within TOL (env, default 0.05) relative + SLACK_MS (the injected sleeps are only printed for comparison: on a
      loaded machine the waiting rank itself may arrive late)
  anacheck.py FILE tree
      the metric tree is Scalasca's (metric_tree.py) and its values are consistent at every
      (call path, location): a parent holds its children (exactly where it is their sum:
      Time = Execution + Overhead + Idle threads, Execution = Computation + MPI + OpenMP, ...),
      the MPI time of each call path sits in the category of its region
  anacheck.py FILE whole DUMP [PATH-REGEX ...]
      `tree`, and the whole tree against the run (DUMP: `synctrace dump --json` of the archive):
      on every location Time over all call paths adds up to its span, a thread's Idle threads less
      Limited parallelism is at most its master's Time outside parallel regions
      (metric_tree.check_whole); each PATH-REGEX matches the whole path ("main/.../MPI_Recv") of
      some call path
  anacheck.py FILE causes
      the root causes are consistent with the values: every wait state's delayers are valid
      locations and call paths, largest first, and cause no more than its waiting; its propagating
      part at most its waiting; per delay-cost metric the short-term costs of the causes add up to
      the metric's total, their long-term costs to its long-term sibling's (a long-term cost is a
      cause of the wait state that passed it on), and both to Delay costs; the critical path's
      hops run in time order without gaps from 0 to the run's length (critical_path over
      everything), a hop's end where the next begins (to a nanosecond)
  anacheck.py FILE cause METRIC REGION RANK [MIN_SHARE]
      METRIC's wait state at the call path ending in REGION (the largest if several) has its largest
      delayer on rank RANK, and that one caused at least MIN_SHARE (default 0.5) of the waiting
Exit 1 with one line per mismatch.
"""
import json
import os
import re
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        doc = json.load(f)
    assert doc["format"] == "synctrace-analysis", "not an analysis file"
    cn = {c["id"]: c for c in doc["cnodes"]}
    locs = {l["id"]: l for l in doc["locations"]}
    units = {m["uniq_name"]: m["unit"] for m in doc["metrics"]}
    agg = defaultdict(float)
    for v in doc["values"]:
        assert v["value"] > 0, "non-positive value stored: %r" % v
        agg[(v["metric"], cn[v["cnode"]]["region"], locs[v["location"]]["rank"])] += v["value"]
    return doc, agg, units


def cnode_regions(doc):
    """regions(cnode id) -> ("main", "exchange", ..., "MPI_Recv"): the regions from below the root down to it"""
    cn = {c["id"]: c for c in doc["cnodes"]}

    def regions(k):
        names = []
        while cn[k]["parent"] is not None:
            names.append(cn[k]["region"])
            k = cn[k]["parent"]
        return tuple(reversed(names))
    return regions


def cnode_paths(doc):
    """path(cnode id) -> "main/exchange/.../MPI_Recv": the regions from below the root down to it"""
    regions = cnode_regions(doc)
    return lambda k: "/".join(regions(k))


def close(got_ms, want_ms, slack):
    return abs(got_ms - want_ms) <= 0.1 * want_ms + slack


# waits.c: injected sleeps (ms) per phase, the call that waits and where
INJECTED = {"recv": 100, "wait": 80, "waitall": 90, "wo1": 70, "sendrecv": 45, "persist": 55, "ssend": 120, "barrier": 60, "allreduce": 70,
            "bcast": 50, "reduce": 40, "scan": 40, "subcomm": 30, "finalize": 50}


def expected_waits(m):
    """(metric, region, rank) -> ms, from the marks m[phase][rank] = (enter, leave)."""
    e = {}

    def ls(phase, region, recv, sends):
        E, L = m[phase][recv]
        e[("mpi_latesender", region, recv, phase)] = max(0.0, max(min(m[phase][s][0], L) for s in sends) - E)
        # (a receive may be paired with its own rank's send in the same phase, e.g. MPI_Sendrecv)

    ls("recv", "MPI_Recv", 0, [1])
    ls("wait", "MPI_Wait", 0, [1])
    ls("sendrecv", "MPI_Sendrecv", 0, [1])
    ls("sendrecv", "MPI_Sendrecv", 1, [0])
    ls("persist", "MPI_Wait", 0, [1])
    ls("waitall", "MPI_Waitall", 0, [1, 2])
    # MPI_Waitany: two receives on rank 0; the first is Wrong Order if its send came after the second's
    E1, L1 = m["wo1"][0]
    E2, L2 = m["wo2"][0]
    ls1 = max(0.0, min(m["wo1"][1][0], L1) - E1)
    ls2 = max(0.0, min(m["wo2"][2][0], L2) - E2)
    e[("mpi_latesender", "MPI_Waitany", 0, "wo1")] = ls1 + ls2
    e[("mpi_lswo_different", "MPI_Waitany", 0, "wo1")] = ls1 if m["wo1"][1][0] > m["wo2"][2][0] else 0.0
    E3, L3 = m["ssend"][3]
    e[("mpi_latereceiver", "MPI_Ssend", 3, "ssend")] = m["ssend"][2][0] - E3 if L3 > m["ssend"][2][0] else 0.0
    for phase, region, metric in (("barrier", "MPI_Barrier", "mpi_barrier_wait"),
                                  ("allreduce", "MPI_Allreduce", "mpi_wait_nxn")):
        bref = max(v[0] for v in m[phase].values())
        for r, (E, L) in m[phase].items():
            e[(metric, region, r, phase)] = max(0.0, min(bref, L) - E)
    for r in (0, 1, 2):
        E, L = m["bcast"][r]
        e[("mpi_latebroadcast", "MPI_Bcast", r, "bcast")] = max(0.0, min(m["bcast"][3][0], L) - E)
    E, L = m["reduce"][0]
    e[("mpi_earlyreduce", "MPI_Reduce", 0, "reduce")] = max(0.0, min(max(m["reduce"][r][0] for r in (1, 2, 3)), L) - E)
    for r, (E, L) in m["scan"].items():  # inclusive prefix of the begins
        pmax = max(m["scan"][j][0] for j in m["scan"] if j <= r)
        e[("mpi_earlyscan", "MPI_Scan", r, "scan")] = max(0.0, min(pmax, L) - E)
    for r, (E, L) in m["subcomm"].items():  # groups {0,1} and {2,3}
        bref = max(m["subcomm"][j][0] for j in m["subcomm"] if j // 2 == r // 2)
        e[("mpi_wait_nxn", "MPI_Alltoall", r, "subcomm")] = max(0.0, min(bref, L) - E)
    bref = max(v[0] for v in m["finalize"].values())
    for r, (E, L) in m["finalize"].items():
        e[("mpi_finalize_wait", "MPI_Finalize", r, "finalize")] = max(0.0, min(bref, L) - E)
    for r in range(4):  # count-0 gather: no synchronization
        e[("mpi_earlyreduce", "MPI_Gather", r, "gather")] = 0.0
    return e


def waits(agg, out, slack):
    tol = float(os.environ.get("TOL", "0.05"))
    m = {}
    with open(out) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "mark":
                m.setdefault(w[1], {})[int(w[2])] = (float(w[3]), float(w[4]))
    bad = []
    largest, exp = {}, {}
    for (metric, region, rank, phase), want in expected_waits(m).items():  # phases may share a call path
        largest[phase] = max(largest.get(phase, 0.0), want)
        exp[(metric, region, rank)] = exp.get((metric, region, rank), 0.0) + want
    for (metric, region, rank), want in sorted(exp.items()):
        got = agg.get((metric, region, rank), 0.0) * 1e3
        ok = abs(got - want) <= tol * want + slack
        print("%-18s %-14s rank %d: %9.3f ms (program saw %9.3f ms)%s" % (metric, region, rank, got, want,
                                                                           "" if ok else "  <-- MISMATCH"))
        if not ok:
            bad.append("%s at %s on rank %d: %.3f ms, the program's clock says %.3f ms" % (metric, region, rank,
                                                                                         got, want))
    for phase, ms in INJECTED.items():  # not a failure: a loaded machine may delay the waiter too
        if largest.get(phase, 0.0) < ms - slack:
            print("note: phase %s: largest wait %.3f ms, injected %d ms" % (phase, largest[phase], ms))
    return bad


# the delay-cost metric a wait-state metric's short-term costs are charged to (docs/analysis.md)
DELAY_OF = {"mpi_latesender": "delay_latesender", "mpi_latereceiver": "delay_latereceiver",
            "mpi_barrier_wait": "delay_barrier", "mpi_wait_nxn": "delay_n2n", "mpi_latebroadcast": "delay_12n",
            "mpi_earlyreduce": "delay_n21", "omp_ebarrier_wait": "delay_ompbarrier",
            "omp_ibarrier_wait": "delay_ompbarrier", "omp_idle_threads": "delay_ompidle"}


def causes(doc):
    bad = []
    if "causes" not in doc or "critical_path" not in doc:
        return ["no root causes in the file"]
    ncn, nloc = len(doc["cnodes"]), len(doc["locations"])
    locs = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
    total = defaultdict(float)
    for v in doc["values"]:
        total[v["metric"]] += v["value"]
    short, long_, both, seen = defaultdict(float), defaultdict(float), 0.0, set()
    eps = lambda x: 1e-9 + 1e-9 * abs(x)
    for w in doc["causes"]:
        key = (w["metric"], w["cnode"])
        if key in seen or not 0 <= w["cnode"] < ncn:
            bad.append("wait state %s repeated or at no call path" % (key,))
        seen.add(key)
        ds = w["delayers"]
        got = sum(d["short_term"] + d["long_term"] for d in ds)
        if got > w["wait"] + eps(w["wait"]):
            bad.append("%s at cnode %d: delays %.9f s cause more than its waiting %.9f s" % (key + (got, w["wait"])))
        if not 0 <= w["propagating"] <= w["wait"] + eps(w["wait"]):
            bad.append("%s at cnode %d: propagating %.9f s of %.9f s" % (key + (w["propagating"], w["wait"])))
        sums = [d["short_term"] + d["long_term"] for d in ds]
        if sums != sorted(sums, reverse=True):
            bad.append("%s at cnode %d: delayers not largest first" % key)
        for d in ds:
            if locs.get(d["location"]) != (d["rank"], d["thread"]) or not 0 <= d["cnode"] < ncn:
                bad.append("%s at cnode %d: delayer %r at no location or call path" % (key + (d,)))
            if d["short_term"] < 0 or d["long_term"] < 0:
                bad.append("%s at cnode %d: negative delay %r" % (key + (d,)))
            short[DELAY_OF.get(w["metric"], "?")] += d["short_term"]
            long_[DELAY_OF.get(w["metric"], "?") + "_longterm"] += d["long_term"]
            both += d["short_term"] + d["long_term"]
    for m in set(DELAY_OF.values()) | set(short):
        for part, lt in ((short, m), (long_, m + "_longterm")):
            if abs(part[lt] - total[lt]) > 1e-7 + 1e-7 * total[lt]:
                bad.append("delays of the causes charged to %s: %.9f s, the metric's total %.9f s" % (
                    lt, part[lt], total[lt]))
    if abs(both - total["delay"]) > 1e-7 + 1e-7 * total["delay"]:
        bad.append("delays of all causes %.9f s, Delay costs %.9f s" % (both, total["delay"]))
    hops, t = doc["critical_path"], 0.0
    for h in hops:
        if abs(h["t0"] - t) > 1e-9 or h["t1"] < h["t0"] or locs.get(h["location"]) != (h["rank"], h["thread"]):
            bad.append("critical-path hop %r after %.9f s" % (h, t))
            break
        t = h["t1"]
    cp = total["critical_path"]
    if abs(t - cp) > 1e-8 + 1e-9 * cp:
        bad.append("critical path ends at %.9f s, critical_path over everything %.9f s" % (t, cp))
    if not bad:
        print("anacheck: %d wait states with %d delays; delay costs = the causes' delays; critical path of %d hops "
              "over %.6f s" % (len(doc["causes"]), sum(len(w["delayers"]) for w in doc["causes"]), len(hops), cp))
    return bad


def cause(doc, metric, region, rank, share):
    cn = {c["id"]: c for c in doc["cnodes"]}
    states = [w for w in doc.get("causes", []) if w["metric"] == metric and cn[w["cnode"]]["region"] == region]
    if not states:
        return ["no wait state of %s at %s" % (metric, region)]
    w = max(states, key=lambda x: x["wait"])
    if not w["delayers"]:
        return ["%s at %s: %.6f s waiting without delayers" % (metric, region, w["wait"])]
    path = cnode_paths(doc)
    d = w["delayers"][0]
    got = d["short_term"] + d["long_term"]
    print("anacheck: %s at %s: %.6f s waiting, the largest delay %.6f s on rank %d thread %d at %s" % (
        metric, region, w["wait"], got, d["rank"], d["thread"], path(d["cnode"]) or "<root>"))
    bad = []
    if d["rank"] != rank:
        bad.append("%s at %s: the largest delay on rank %d, expected rank %d" % (metric, region, d["rank"], rank))
    if got < share * w["wait"]:
        bad.append("%s at %s: the largest delay %.6f s, less than %.0f%% of the waiting %.6f s" % (
            metric, region, got, 100 * share, w["wait"]))
    return bad


def main():
    path, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    doc, agg, units = load(path)
    slack = float(os.environ.get("SLACK_MS", "5"))
    bad = []
    if mode == "show":
        for k in sorted(agg):
            scale = 1e3 if units[k[0]] == "sec" else 1
            print("%-24s %-16s rank %d  %12.3f%s" % (k[0], k[1], k[2], agg[k] * scale,
                                                       " ms" if scale != 1 else ""))
        return 0
    if mode == "expect":
        for i in range(0, len(args), 4):
            metric, region, ranks, ms = args[i], args[i + 1], args[i + 2], float(args[i + 3])
            assert metric in units, "unknown metric " + metric
            for r in ranks.split(","):
                got = agg.get((metric, region, int(r)), 0.0) * 1e3
                if not close(got, ms, slack):
                    bad.append("%s at %s on rank %s: %.3f ms, expected %.3f ms" % (metric, region, r, got, ms))
    elif mode == "total":
        metric, ms = args[0], float(args[1])
        got = sum(v for k, v in agg.items() if k[0] == metric) * 1e3
        if not close(got, ms, slack * len(doc["locations"])):
            bad.append("%s in total: %.3f ms, expected %.3f ms" % (metric, got, ms))
    elif mode == "waits":
        bad = waits(agg, args[0], slack)
    elif mode == "causes":
        bad = causes(doc)
    elif mode == "cause":
        bad = cause(doc, args[0], args[1], int(args[2]), float(args[3]) if len(args) > 3 else 0.5)
    elif mode in ("tree", "whole"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import metric_tree
        bad = metric_tree.check_json(doc)
        if mode == "whole":
            with open(args[0]) as f:
                bad += metric_tree.check_whole(doc, metric_tree.location_spans(f))
            path = cnode_paths(doc)
            paths = [path(c["id"]) for c in doc["cnodes"]]
            bad += ["no call path matches %s (%d paths)" % (rx, len(paths)) for rx in args[1:]
                    if not any(re.fullmatch(rx, p) for p in paths)]
        if not bad:
            print("anacheck: metric tree of %d metrics consistent at %d call paths x %d locations%s" % (
                len(doc["metrics"]), len(doc["cnodes"]), len(doc["locations"]),
                ", Time adds up to every location's span" if mode == "whole" else ""))
    for b in bad:
        print("anacheck: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
