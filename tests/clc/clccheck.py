#!/usr/bin/env python3
"""clccheck.py — checks of CLC-corrected archives on `synctrace dump --json` output.

  clccheck.py order DUMP          every location's timestamps are non-decreasing in record
                                  order (local order kept), and every moved event moved
                                  forward (t >= orig_t); prints events / moved / max shift
  clccheck.py compare DUMP1 DUMP2 the same events per location with the same t and orig_t
                                  (orig_t absent = not moved)
  clccheck.py icoll DUMP CHECK    CHECK is `synctrace check -v` output: every violation it
                                  reports is an icoll_complete before another rank's
                                  icoll_request, and the completion is not before the ENTER
                                  of that rank's nonblocking call (the send CLC uses, see
                                  src/clc/README-clc.md decision 3; the request is recorded
                                  only after the call returned)
Exit status 0 when the check holds, 1 otherwise (the first problems are printed)."""
import json
import re
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


ICOLL = re.compile(r"collective: icoll_complete at rank (\d+) thread (\d+) t=(-?\d+) is -?\d+ \S+ before "
                   r"icoll_request at rank (\d+) thread (\d+) t=(-?\d+)")


def icoll(dump, check):
    text = open(check).read()
    total = int(re.search(r"^violations: (\d+)$", text, re.M).group(1))
    found = ICOLL.findall(text)
    if total == 0:
        return 0
    if total != len(found) or total > 8:
        print("%d violations, %d of them listed as icoll_complete before icoll_request" % (total, len(found)))
        return 1
    locs = {}
    with open(dump) as f:
        for line in f:
            e = json.loads(line)
            locs.setdefault((e["rank"], e["thread"]), []).append(e)
    for rr, rt, tr, sr, stt, ts in found:
        evs = locs.get((int(sr), int(stt)), [])
        idx = [i for i, e in enumerate(evs) if e["type"] == "icoll_request" and e["t"] == int(ts)]
        enter = [e["t"] for e in evs[:idx[0]] if e["type"] == "enter"] if idx else []
        if not enter or int(tr) < enter[-1]:
            print("icoll_complete at rank %s t=%s precedes the nonblocking call at rank %s (t=%s)"
                  % (rr, tr, sr, enter[-1] if enter else "?"))
            return 1
    print("%d nonblocking-collective completions precede another rank's request record but not its call" % total)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "icoll":
        sys.exit(icoll(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "order":
        sys.exit(order(sys.argv[2]))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
