#!/usr/bin/env python3
"""erdcheck.py — tests/analysis/earlyreduce.c: Early Reduce against the program's own clock.

  erdcheck.py ANALYSIS.json OUT

OUT holds "mark PHASE RANK ENTER_MS LEAVE_MS SENDS". The root (rank 0) of each N-to-1 call waits
until the latest member that sends data entered: min(latest sender's enter, root's leave) -
root's enter (Scalasca 2.6's Early Reduce; members sending 0 bytes left out), within TOL (env,
default 0.05) relative + SLACK_MS (env, default 2), at the call path of that call on rank 0
thread 0, and nowhere else. Each phase must tell the rule apart from the earliest sender's
(Scalasca up to 2.5) by more than 30 ms, else the run says nothing (a heavily loaded machine) and
the check fails. A member sending nothing that enters last cannot be told apart here: the root
leaves once the data is in, before that member enters (tests/unit/test_analysis.c checks that
rule on a trace where it can). Exit 1 with one line per mismatch.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anacheck import cnode_paths  # noqa: E402
import json  # noqa: E402

REGION = {"reduce": "MPI_Reduce", "gatherv": "MPI_Gatherv", "gather": "MPI_Gather"}
APART_MS = 30.0


def marks(out):
    m = {}
    for line in open(out):
        w = line.split()
        if w and w[0] == "mark":
            m.setdefault(w[1], {})[int(w[2])] = (float(w[3]), float(w[4]), w[5] == "1")
    return m


def wait(root, ref):
    enter, leave, _ = root
    return max(0.0, min(ref, leave) - enter)


def main():
    doc = json.load(open(sys.argv[1]))
    m = marks(sys.argv[2])
    tol, slack = float(os.environ.get("TOL", "0.05")), float(os.environ.get("SLACK_MS", "2"))
    if sorted(m) != sorted(REGION) or any(sorted(v) != [0, 1, 2, 3] for v in m.values()):
        print("erdcheck: marks missing in %s" % sys.argv[2])
        return 1
    path = cnode_paths(doc)
    loc = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
    got = {}  # (call path, (rank, thread)) -> ms
    for v in doc["values"]:
        if v["metric"] == "mpi_earlyreduce":
            k = (path(v["cnode"]), loc[v["location"]])
            got[k] = got.get(k, 0.0) + v["value"] * 1e3
    bad = []
    for phase, region in REGION.items():
        mm = m[phase]
        senders = [r for r in range(1, 4) if mm[r][2]]
        want = wait(mm[0], max(mm[r][0] for r in senders))
        earliest = wait(mm[0], min(mm[r][0] for r in senders))
        with_zero = wait(mm[0], max(mm[r][0] for r in range(1, 4)))
        at = [k for k in got if k[0].split("/")[-1] == region]
        value = sum(got[k] for k in at if k[1] == (0, 0))
        ok = abs(value - want) <= tol * want + slack
        print("mpi_earlyreduce %-11s rank 0: %8.3f ms (latest sender %8.3f ms; earliest sender %8.3f ms, "
              "latest member %8.3f ms)%s" % (region, value, want, earliest, with_zero, "" if ok else "  <-- MISMATCH"))
        if not ok:
            bad.append("%s: %.3f ms at rank 0, the latest data sender implies %.3f ms" % (region, value, want))
        if abs(earliest - want) <= APART_MS:
            bad.append("%s: the run does not tell the rules apart (%.1f / %.1f / %.1f ms): loaded machine?"
                       % (region, want, earliest, with_zero))
        for k in at:
            if k[1] != (0, 0):
                bad.append("%s: Early Reduce on rank %d thread %d (%.3f ms): only the root waits" % ((region,) + k[1]
                                                                                                    + (got[k],)))
    regions = set(REGION.values())
    for k, v in got.items():
        if k[0].split("/")[-1] not in regions:
            bad.append("Early Reduce at %s on rank %d: %.3f ms" % (k[0], k[1][0], v))
    for b in bad:
        print("erdcheck: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
