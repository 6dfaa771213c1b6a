#!/usr/bin/env python3
"""icollcheck.py — tests/analysis/icoll.c: the waits at the calls completing nonblocking
collectives, against the program's own clock readings.

  icollcheck.py ANALYSIS.json OUT

OUT holds "mark PHASE RANK ICALL WAIT_ENTER WAIT_LEAVE" (ms). A member that gets data waits in
its MPI_Wait for the latest I-call of the members it depends on:
min(B_ref, leave) - enter, within TOL (env, default 0.05) relative + SLACK_MS (env, default 3).
The Ialltoallv and the Ibarrier completed by MPI_Test polling have no wait; the MPI_Wait calls
and the MPI_Test that completed the Ibarrier are collective time, never point-to-point (the
Tests that completed nothing do not say what they tested: point-to-point, as in Scalasca). Exit 1 with one line per mismatch.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anacheck import load  # noqa: E402

# phase -> (metric, senders of receiver r, receivers)
ALL = range(4)
PHASES = {
    "ibarrier": ("mpi_barrier_wait", lambda r: ALL, ALL),
    "iallreduce": ("mpi_wait_nxn", lambda r: ALL, ALL),
    "ibcast": ("mpi_latebroadcast", lambda r: [3], ALL),
    "ireduce": ("mpi_earlyreduce", lambda r: ALL, [0]),
    "iscan": ("mpi_earlyscan", lambda r: range(r + 1), ALL),
}


def main():
    doc, agg, _ = load(sys.argv[1])
    tol, slack = float(os.environ.get("TOL", "0.05")), float(os.environ.get("SLACK_MS", "3"))
    pslack = float(os.environ.get("POLL_SLACK_MS", "0"))
    m = {}
    for line in open(sys.argv[2]):
        w = line.split()
        if w and w[0] == "mark":
            m.setdefault(w[1], {})[int(w[2])] = tuple(float(x) for x in w[3:6])
    if sorted(m) != sorted(list(PHASES) + ["ialltoallv", "ibarrier2"]) or any(len(v) != 4 for v in m.values()):
        print("icollcheck: marks missing in %s" % sys.argv[2])
        return 1
    bad = []
    for phase, (metric, senders, receivers) in PHASES.items():
        for r in ALL:
            want = 0.0
            if r in receivers:
                bref = max(m[phase][s][0] for s in senders(r))
                enter, leave = m[phase][r][1], m[phase][r][2]
                want = max(0.0, min(bref, leave) - enter)
            got = agg.get((metric, "MPI_Wait", r), 0.0) * 1e3
            ok = abs(got - want) <= tol * want + slack
            print("%-18s %-9s rank %d: %8.3f ms (program saw %8.3f ms)%s" % (metric, "MPI_Wait", r, got, want,
                                                                          "" if ok else "  <-- MISMATCH"))
            if not ok:
                bad.append("%s on rank %d: %.3f ms, the program's clock says %.3f ms" % (metric, r, got, want))
    for r in ALL:
        if agg.get(("mpi_point2point", "MPI_Wait", r), 0):
            bad.append("rank %d: completions of collectives counted as point-to-point" % r)
        if agg.get(("mpi_barrier_wait", "MPI_Test", r), 0):
            bad.append("rank %d: a wait at MPI_Test (Test calls are skipped)" % r)
        poll = m["ibarrier2"][r][2] - m["ibarrier2"][r][1]
        sync, p2p = (agg.get((x, "MPI_Test", r), 0.0) * 1e3 for x in ("mpi_sync_collective", "mpi_point2point"))
        # the completing Test; all of them within the polling (POLL_SLACK_MS: under the skew library CLC
        # moves events by microseconds, and a 14 µs polling window once held a 19 µs Test)
        if not 0 < sync <= poll + pslack or sync + p2p > poll + 0.1 + pslack:
            bad.append("rank %d: MPI_Test %.3f ms synchronization, %.3f ms point-to-point, polled %.3f ms" % (
                r, sync, p2p, poll))
    if doc["stats"]["coll_skipped"] != 1:
        bad.append("%d collective instances skipped, want 1 (the Ialltoallv)" % doc["stats"]["coll_skipped"])
    for b in bad:
        print("icollcheck: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
