#!/usr/bin/env python3
"""rmawaitcheck.py — the one-sided wait states of rmawaits.c (t_analyze_rma.sh) against the program's clock.

  rmawaitcheck.py ANALYSIS.json OUT

OUT holds the program's "mark PHASE RANK ENTER_MS LEAVE_MS" lines (its own clock around each call).
For each phase's call (window creation, the two fences, MPI_Win_free) the members waited, by the
definition of docs/analysis.md ("One-sided communication"), until the latest of them entered, if
all calls overlap; the put's return bounds Early Fence on its target. In the PSCW phases rank 0's
MPI_Win_wait waits for the latest MPI_Win_complete of ranks 1 and 2 (Early Wait), the part after the
last put returned being Late Complete. In the passive-target phases the later origin's call that was
open when the earlier one entered MPI_Win_unlock waited since its enter (Lock Contention, exclusive
locks only). Each metric's value at
main/<phase>/<MPI call> on each rank must equal that within TOL (env, default 0.10) relative +
SLACK_MS (env, default 2); nowhere else may a metric hold more than SLACK_MS (but at the fence in
main that opens the first epoch: the ranks leave the barrier before it at different times); the waits
the injected computation should cause must be there: the computing rank entered last, and every
other rank waited at least MIN_MS (5; not the injected time: on the loaded 2-core machine a rank may
leave the aligning barrier many ms late, which shortens the wait it then causes). Exit 1 with one line
per mismatch.
"""
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anacheck import cnode_paths, load  # noqa: E402

# phase -> (metric, MPI call, the rank that computes before it, the ranks that wait)
PHASES = {"create": ("mpi_rma_wait_at_create", "MPI_Win_create", 2, (0, 1)),
          "fence_late": ("mpi_rma_wait_at_fence", "MPI_Win_fence", 1, (0, 2)),
          "fence_early": ("mpi_rma_wait_at_fence", "MPI_Win_fence", 1, (0, 2)),
          "free": ("mpi_rma_wait_at_free", "MPI_Win_free", 0, (1, 2))}
# general active target phases: rank 0 waits in MPI_Win_wait for origins 1 and 2 (MPI_Win_complete)
PSCW = ("early_wait", "late_complete", "late_post")
# passive target phases: (earlier origin A, later origin B, whether their epochs conflict)
LOCKS = {"lock_excl": (1, 2, True), "lock_shared": (0, 2, False)}
LOCK_CALLS = (("MPI_Win_lock", "_sync"), ("MPI_Put", "_put"), ("MPI_Win_unlock", ""))
MIN_MS = 5.0


def expected(m):
    """{(metric, path, rank): ms} from the marks m[phase][rank] = (enter, leave)."""
    e = {}
    for phase, (metric, call, _, _) in PHASES.items():
        path = "main/phase_%s/%s" % (phase, call)
        bmax = max(v[0] for v in m[phase].values())
        sync = min(v[1] for v in m[phase].values()) > bmax
        for r, (E, _) in m[phase].items():
            e[(metric, path, r)] = bmax - E if sync and E < bmax else 0.0
        if metric == "mpi_rma_wait_at_fence":
            for r, (E, L) in m[phase].items():
                w, P = e[(metric, path, r)], m["put"][1][1]
                early = min(P - E, w) if phase == "fence_early" and r == 2 and w > 0 and E < P <= L else 0.0
                e[("mpi_rma_early_fence", path, r)] = early
    # Early Wait: E(last complete) - E(wait); Late Complete: E(last complete) - max(L(last put), E(wait))
    for phase in PSCW:
        w, last = m[phase][0][0], max(m[phase][r][0] for r in (1, 2))
        put = max(m[phase + "_put"][r][1] for r in (1, 2))
        path = "main/phase_%s/pscw_epoch/MPI_Win_wait" % phase
        e[("mpi_rma_early_wait", path, 0)] = max(last - w, 0.0)
        e[("mpi_rma_late_complete", path, 0)] = max(last - max(put, w), 0.0)
        # Late Post: at the origin's call open when rank 0 entered MPI_Win_post
        post = m[phase + "_sync"][0][0]
        for r in (1, 2):
            calls = (("MPI_Win_complete", m[phase][r]), ("MPI_Win_start", m[phase + "_sync"][r]),
                     ("MPI_Put", m[phase + "_put"][r]))
            for call, (E, L) in calls:
                metric = "mpi_rma_comm_late_post" if call == "MPI_Put" else "mpi_rma_sync_late_post"
                p = "main/phase_%s/pscw_epoch/%s" % (phase, call)
                e[(metric, p, r)] = e.get((metric, p, r), 0.0)
            for call, (E, L) in calls:
                if (call == "MPI_Win_complete" and post > E) or (call != "MPI_Win_complete" and E <= post < L):
                    metric = "mpi_rma_comm_late_post" if call == "MPI_Put" else "mpi_rma_sync_late_post"
                    e[(metric, "main/phase_%s/pscw_epoch/%s" % (phase, call), r)] = min(post, L) - E
                    break
    # Lock Contention: B's call open when A entered MPI_Win_unlock waited since its enter (a conflict only)
    for phase, (a, b, conflict) in LOCKS.items():
        unlock_a = m[phase][a][0]
        for r in (a, b):
            for call, suffix in LOCK_CALLS:
                metric = "mpi_rma_comm_lock_competition" if call == "MPI_Put" else "mpi_rma_sync_lock_competition"
                E, L = m[phase + suffix][r]
                p = "main/phase_%s/lock_epochs/%s" % (phase, call)
                e[(metric, p, r)] = unlock_a - E if conflict and r == b and E <= unlock_a < L else 0.0
    return e


def main():
    doc, _, _ = load(sys.argv[1])
    tol, slack = float(os.environ.get("TOL", "0.10")), float(os.environ.get("SLACK_MS", "2"))
    m = defaultdict(dict)
    for line in open(sys.argv[2]):
        w = line.split()
        if len(w) == 5 and w[0] == "mark":
            m[w[1]][int(w[2])] = (float(w[3]), float(w[4]))
    bad = []
    phases = set(PHASES) | {"put"} | set(PSCW) | {p + s for p in PSCW for s in ("_put", "_sync")}
    phases |= set(LOCKS) | {p + s for p in LOCKS for s in ("_put", "_sync")}
    if set(m) != phases:
        print("marks of phases %s, expected %s" % (sorted(m), sorted(phases)))
        return 1
    want = expected(m)
    path = cnode_paths(doc)
    locs = {l["id"]: l["rank"] for l in doc["locations"]}
    got = defaultdict(float)
    metrics = {k[0] for k in want}
    for v in doc["values"]:
        if v["metric"] in metrics:
            got[(v["metric"], path(v["cnode"]), locs[v["location"]])] += v["value"] * 1e3
    for k in sorted(set(want) | set(got)):
        g, x = got.get(k, 0.0), want.get(k)
        if x is None:
            if g > slack and k[1] != "main/MPI_Win_fence":
                bad.append("%s at %s on rank %d: %.3f ms where no wait is expected" % (k[0], k[1], k[2], g))
        elif abs(g - x) > tol * x + slack:
            bad.append("%s at %s on rank %d: %.3f ms, the program's clock says %.3f ms" % (k[0], k[1], k[2], g, x))
    # the run shows the injected waits (else the comparison above would prove little)
    for phase, (metric, call, late, ranks) in PHASES.items():
        if max(m[phase], key=lambda r: m[phase][r][0]) != late:
            bad.append("%s: rank %d, which computed first, did not enter last: %s" % (phase, late, m[phase]))
        for r in ranks:
            x = want[(metric, "main/phase_%s/%s" % (phase, call), r)]
            if x < MIN_MS:
                bad.append("%s: rank %d waited %.3f ms by the program's clock, less than %.0f" % (phase, r, x, MIN_MS))
    # rank 1 computed before its put (early_wait) or after it (late_complete), then completed last
    for phase, metric in (("early_wait", "mpi_rma_early_wait"), ("late_complete", "mpi_rma_late_complete")):
        if m[phase][1][0] < m[phase][2][0]:
            bad.append("%s: rank 1, which computed, did not enter MPI_Win_complete last: %s" % (phase, m[phase]))
        x = want[(metric, "main/phase_%s/pscw_epoch/MPI_Win_wait" % phase, 0)]
        if x < MIN_MS:
            bad.append("%s: rank 0's %s by the program's clock is %.3f ms, less than %.0f" % (phase, metric, x, MIN_MS))
    for r in (1, 2):  # rank 0 posted late: each origin waited somewhere, by the program's clock
        x = sum(v for k, v in want.items() if k[0].endswith("_late_post") and "phase_late_post/" in k[1] and k[2] == r)
        if x < MIN_MS:
            bad.append("late_post: rank %d's Late Post by the program's clock is %.3f ms, less than %.0f" % (r, x, MIN_MS))
    # the later exclusive epoch waited for the lock, by the program's clock
    x = sum(v for k, v in want.items() if "lock_competition" in k[0] and "phase_lock_excl/" in k[1])
    if x < MIN_MS:
        bad.append("lock_excl: rank 2's Lock Contention by the program's clock is %.3f ms, less than %.0f" % (x, MIN_MS))
    x = want[("mpi_rma_early_fence", "main/phase_fence_early/MPI_Win_fence", 2)]
    if x < MIN_MS:
        bad.append("fence_early: rank 2's Early Fence by the program's clock is %.3f ms, less than %.0f" % (x, MIN_MS))
    for b in bad:
        print(b)
    if not bad:
        print("  %d one-sided wait values as the program's clock says (TOL %.2f, SLACK %.1f ms)" % (len(want), tol, slack),
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
