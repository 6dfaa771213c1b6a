#!/usr/bin/env python3
"""flushcheck.py — where a hybrid run's buffer flushes landed, and the master's Time at <root> around them.

Usage: flushcheck.py ANALYSIS_JSON DUMP_JSONL

Reads `synctrace dump --json` (the events) and the analysis of the same archive. Prints, per location,
the buffer flushes ("TRACE BUFFER FLUSH" regions) and where they lie: between a master's fork and its
team begin or between its team end and its join (the fork / join intervals), inside an MPI call,
elsewhere. Fails (exit 1) when
  - a location has no flush, or no master flushed in a fork or join interval (the run did not test
    what it is for: raise the rounds);
  - on a master (thread 0 with a team), the analysis' Time at <root> is not the time it spent outside
    every region and outside the fork and join intervals of its teams (computed here from the events,
    independently of the analysis): a flush in such an interval is its own time (Overhead), not the
    interval's, so it must not be taken off <root> a second time.
"""
import collections
import json
import sys

FLUSH = "TRACE BUFFER FLUSH"


def main():
    doc = json.load(open(sys.argv[1]))
    evs = collections.defaultdict(list)
    for line in open(sys.argv[2]):
        e = json.loads(line)
        evs[(e["rank"], e["thread"])].append(e)
    locs = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
    root = [c["id"] for c in doc["cnodes"] if c["parent"] is None][0]
    root_time = {locs[v["location"]]: v["value"] for v in doc["values"]
                 if v["metric"] == "time" and v["cnode"] == root}
    bad = []
    window_flushes = 0
    for loc in sorted(evs):
        ev = evs[loc]
        n = {"fork/join interval": 0, "MPI call": 0, "elsewhere": 0}
        stack = []        # open regions
        window = False    # in a fork or join interval of an outermost team (master)
        outside = 0       # time outside every region and every such interval, in ticks (ns)
        forked = False
        for i, e in enumerate(ev):
            if i and not stack and not window:
                outside += e["t"] - ev[i - 1]["t"]
            kind = e["type"]
            if kind == "omp_fork" and not stack:
                window, forked = True, True
            elif kind == "enter":
                if e["region"] == FLUSH:
                    where = "fork/join interval" if window and not stack else \
                        "MPI call" if stack and stack[-1].startswith("MPI_") else "elsewhere"
                    n[where] += 1
                if e["region"] == "!$omp parallel" and not stack:
                    window = False
                stack.append(e["region"])
            elif kind == "leave":
                if stack:
                    r = stack.pop()
                    if r == "!$omp parallel" and not stack and forked:
                        window = True
            elif kind == "omp_join" and not stack:
                window = False
        total = sum(n.values())
        print("rank %d thread %d: %d flushes (%s)" % (loc[0], loc[1], total,
              ", ".join("%s %d" % kv for kv in n.items())))
        if total == 0 and loc[1] == 0:  # workers fill fewer buffers: the writer keeps up with them
            bad.append("rank %d thread %d: no buffer flush" % loc)
        if loc[1] == 0 and forked:
            window_flushes += n["fork/join interval"]
            want, got = outside / 1e9, root_time.get(loc, 0.0)
            print("  master: Time at <root> %.9f s, outside regions and fork/join intervals %.9f s" % (got, want))
            if abs(got - want) > 1e-6:
                bad.append("rank %d thread 0: Time at <root> %.9f s, expected %.9f s (its time outside regions "
                           "and fork/join intervals)" % (loc[0], got, want))
    if window_flushes == 0:
        bad.append("no master flushed in a fork or join interval: raise the rounds")
    for b in bad:
        print("flushcheck: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
