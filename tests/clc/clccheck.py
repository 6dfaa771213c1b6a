#!/usr/bin/env python3
"""clccheck.py — checks of CLC-corrected archives on `synctrace dump --json` output.

  clccheck.py order DUMP          every location's timestamps are non-decreasing in record
                                  order (local order kept), and every moved event moved
                                  forward (t >= orig_t); prints events / moved / max shift
  clccheck.py compare DUMP1 DUMP2 the same events per location with the same t and orig_t
                                  (orig_t absent = not moved)
Exit status 0 when the check holds, 1 otherwise (the first problems are printed)."""
import json
import sys


def load(path):
    locs = {}
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            locs.setdefault((e["rank"], e["thread"]), []).append((e["type"], e["t"], e.get("orig_t")))
    return locs


def order(path):
    locs, bad, events, moved, shift = load(path), [], 0, 0, 0
    for loc, evs in sorted(locs.items()):
        for i, (kind, t, orig) in enumerate(evs):
            events += 1
            if i and t < evs[i - 1][1]:
                bad.append("rank %d thread %d event %d (%s): t %d before its predecessor's %d"
                           % (loc + (i, kind, t, evs[i - 1][1])))
            if orig is not None:
                moved += 1
                shift = max(shift, t - orig)
                if t < orig:
                    bad.append("rank %d thread %d event %d (%s) moved backward: %d -> %d" % (loc + (i, kind, orig, t)))
    for b in bad[:10]:
        print(b)
    print("events %d moved %d max_shift_ns %d problems %d" % (events, moved, shift, len(bad)))
    return 1 if bad or not events else 0


def compare(p1, p2):
    a, b = load(p1), load(p2)
    diffs, events = [], 0
    if sorted(a) != sorted(b):
        print("locations differ: %s vs %s" % (sorted(a), sorted(b)))
        return 1
    for loc in sorted(a):
        if len(a[loc]) != len(b[loc]):
            diffs.append("rank %d thread %d: %d vs %d events" % (loc + (len(a[loc]), len(b[loc]))))
            continue
        for i, (x, y) in enumerate(zip(a[loc], b[loc])):
            events += 1
            if x != y:
                diffs.append("rank %d thread %d event %d: %s vs %s" % (loc + (i, x, y)))
    for d in diffs[:10]:
        print(d)
    print("%d events compared, %d differ" % (events, len(diffs)))
    return 1 if diffs or not events else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "order":
        sys.exit(order(sys.argv[2]))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
