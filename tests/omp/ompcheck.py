#!/usr/bin/env python3
"""ompcheck.py — checks the OpenMP events of an archive against a test program's model.

usage: ompcheck.py DUMP EXPECT [--ranks N] [--mpi-region NAME]

DUMP    output of `synctrace dump --json DIR` (one JSON object per event, in time order)
EXPECT  the program's stdout: lines "EXPECT<TAB>role<TAB>key<TAB>count" (constructs.h)

For every rank:
  * per location: ENTER/LEAVE nest, each omp_fork has an omp_join and each
    omp_team_begin an omp_team_end with the same parallel_id;
  * location roles (master: forks outside any team; worker: member of a team the master
    forked; nested: member of inner teams only) and their number; exact event counts per
    role for every key of the model, and the totals of role "all";
  * time: fork before every team begin of its parallel region, every team end before the
    join, the k-th barrier of a team left by no thread before every thread entered it;
  * locks: per lock, orders 1..n, each acquired and released once on one thread, and the
    release of order k before the acquisition of order k + 1 (what CLC must guarantee);
  * tasks (team, creator, generation): created once, completed once, first switch after
    the creation;
  * with --mpi-region NAME: every master and worker location entered NAME exactly once
    (MPI called from every thread is recorded on that thread's location).
Prints one line per failed check (at most 40) and a summary; exit status 1 on failure.
"""
import collections
import json
import sys

failures = []


def fail(msg):
    failures.append(msg)


def load(path):
    ranks = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                e = json.loads(line)
                ranks[e["rank"]][e["thread"]].append(e)
    return ranks


def load_expect(path):
    want = collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4 and parts[0] == "EXPECT":
                want[parts[1]][parts[2]] = int(parts[3])
    if not want:
        fail("no EXPECT lines in %s" % path)
    return want


def key(e):
    return "enter:" + e.get("region", "?") if e["type"] == "enter" else e["type"]


def check_location(r, t, evs):
    stack, forks, teams = [], [], []
    last = None
    for e in evs:
        if last is not None and e["t"] < last:
            fail("rank %d thread %d: time goes back at t=%d" % (r, t, e["t"]))
        last = e["t"]
        ty = e["type"]
        if ty == "enter":
            stack.append(e.get("region"))
        elif ty == "leave":
            if not stack or stack[-1] != e.get("region"):
                fail("rank %d thread %d t=%d: leave %s, open: %s" % (r, t, e["t"], e.get("region"), stack[-1:]))
            if stack:
                stack.pop()
        elif ty == "omp_fork":
            forks.append(e.get("parallel_id"))
        elif ty == "omp_join":
            if not forks or forks[-1] != e.get("parallel_id"):
                fail("rank %d thread %d: join of %s without its fork" % (r, t, e.get("parallel_id")))
            if forks:
                forks.pop()
        elif ty == "omp_team_begin":
            teams.append(e.get("parallel_id"))
        elif ty == "omp_team_end":
            if not teams or teams[-1] != e.get("parallel_id"):
                fail("rank %d thread %d: team end of %s without its begin" % (r, t, e.get("parallel_id")))
            if teams:
                teams.pop()
    for what, left in (("regions", stack), ("forks", forks), ("teams", teams)):
        if left:
            fail("rank %d thread %d: %d %s left open" % (r, t, len(left), what))


def roles(locs):
    role, outer = {}, set()
    for t, evs in locs.items():
        depth = 0
        for e in evs:
            if e["type"] == "omp_team_begin":
                depth += 1
            elif e["type"] == "omp_team_end":
                depth -= 1
            elif e["type"] == "omp_fork" and depth == 0:
                role[t] = "master"
                outer.add(e.get("parallel_id"))
    for t, evs in locs.items():
        if t in role:
            continue
        begins = [e.get("parallel_id") for e in evs if e["type"] == "omp_team_begin"]
        if begins:
            role[t] = "worker" if begins[0] in outer else "nested"
    return role


def check_counts(r, locs, role, want):
    n = collections.Counter(role.values())
    for rl in ("worker", "nested"):
        if "locations" in want.get(rl, {}) and n[rl] != want[rl]["locations"]:
            fail("rank %d: %d %s locations, expected %d" % (r, n[rl], rl, want[rl]["locations"]))
    if n["master"] != 1:
        fail("rank %d: %d master locations, expected 1" % (r, n["master"]))
    total = collections.Counter()
    for t, evs in locs.items():
        c = collections.Counter(key(e) for e in evs)
        total.update(c)
        if t not in role:
            continue
        for k, v in want.get(role[t], {}).items():
            if k != "locations" and c[k] != v:
                fail("rank %d thread %d (%s): %s: expected %d, recorded %d" % (r, t, role[t], k, v, c[k]))
    for k, v in want.get("all", {}).items():
        if total[k] != v:
            fail("rank %d: all threads: %s: expected %d, recorded %d" % (r, k, v, total[k]))


def check_relations(r, locs):
    par = collections.defaultdict(lambda: {"fork": [], "join": [], "begin": [], "end": []})
    barriers = collections.defaultdict(lambda: {"enter": [], "leave": []})
    locks = collections.defaultdict(lambda: collections.defaultdict(list))
    tasks = collections.defaultdict(lambda: {"create": [], "complete": [], "switch": []})
    names = {"omp_fork": "fork", "omp_join": "join", "omp_team_begin": "begin", "omp_team_end": "end"}
    for t, evs in locs.items():
        team, count = [], []
        for e in evs:
            ty = e["type"]
            if ty in names:
                par[e.get("parallel_id")][names[ty]].append(e["t"])
                if ty == "omp_team_begin":
                    team.append(e.get("parallel_id"))
                    count.append(0)
                elif ty == "omp_team_end" and team:
                    team.pop()
                    count.pop()
            elif ty in ("enter", "leave") and e.get("region") in ("!$omp barrier", "!$omp implicit barrier") and team:
                barriers[(team[-1], count[-1])][ty].append(e["t"])
                if ty == "leave":
                    count[-1] += 1
            elif ty in ("omp_acquire", "omp_release"):
                locks[e.get("lock")][e.get("order")].append((ty, e["t"], t))
            elif ty.startswith("omp_task_"):
                tasks[(e.get("team"), e.get("creator"), e.get("generation"))][ty[9:]].append(e["t"])
    for pid, p in par.items():
        if len(p["fork"]) != 1 or len(p["join"]) != 1:
            fail("rank %d parallel %s: %d forks, %d joins" % (r, pid, len(p["fork"]), len(p["join"])))
            continue
        if p["begin"] and min(p["begin"]) <= p["fork"][0]:
            fail("rank %d parallel %s: a team begins %d ns before its fork" % (r, pid, p["fork"][0] - min(p["begin"])))
        if p["end"] and max(p["end"]) >= p["join"][0]:
            fail("rank %d parallel %s: a team ends %d ns after its join" % (r, pid, max(p["end"]) - p["join"][0]))
    for (pid, k), b in barriers.items():
        if b["enter"] and b["leave"] and min(b["leave"]) <= max(b["enter"]):
            fail("rank %d parallel %s barrier %d: left %d ns before the last thread entered"
                 % (r, pid, k, max(b["enter"]) - min(b["leave"])))
    nacq = 0
    for lock, orders in locks.items():
        ks = sorted(orders)
        if ks != list(range(1, len(ks) + 1)):
            fail("rank %d lock %s: orders %s are not 1..%d" % (r, lock, ks[:8], len(ks)))
            continue
        prev_release = None
        for k in ks:
            evs = orders[k]
            acq = [x for x in evs if x[0] == "omp_acquire"]
            rel = [x for x in evs if x[0] == "omp_release"]
            nacq += len(acq)
            if len(acq) != 1 or len(rel) != 1 or acq[0][2] != rel[0][2] or acq[0][1] > rel[0][1]:
                fail("rank %d lock %s order %d: acquisitions %s, releases %s" % (r, lock, k, acq, rel))
                break
            if prev_release is not None and acq[0][1] <= prev_release:
                fail("rank %d lock %s: order %d acquired %d ns before order %d was released"
                     % (r, lock, k, prev_release - acq[0][1], k - 1))
            prev_release = rel[0][1]
    for tk, ev in tasks.items():
        if not ev["create"]:
            continue  # implicit tasks: switched to, never created
        if len(ev["create"]) != 1 or len(ev["complete"]) != 1:
            fail("rank %d task %s: %d creations, %d completions" % (r, tk, len(ev["create"]), len(ev["complete"])))
        elif not ev["switch"] or min(ev["switch"]) <= ev["create"][0]:
            fail("rank %d task %s: not started after its creation" % (r, tk))
    return len(par), len(barriers), nacq, sum(1 for v in tasks.values() if v["create"])


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    dump, expect = args[0], args[1]
    nranks, mpi_region = None, None
    i = 2
    while i < len(args):
        if args[i] == "--ranks":
            nranks = int(args[i + 1])
        elif args[i] == "--mpi-region":
            mpi_region = args[i + 1]
        i += 2
    ranks, want = load(dump), load_expect(expect)
    if nranks is not None and len(ranks) != nranks:
        fail("%d ranks in the archive, expected %d" % (len(ranks), nranks))
    totals = [0, 0, 0, 0]
    for r in sorted(ranks):
        locs = {t: evs for t, evs in ranks[r].items()
                if any(e["type"].startswith("omp_") for e in evs)}
        for t, evs in ranks[r].items():
            check_location(r, t, evs)
        role = roles(locs)
        check_counts(r, locs, role, want)
        for j, v in enumerate(check_relations(r, locs)):
            totals[j] += v
        if mpi_region:
            for t, rl in role.items():
                n = sum(1 for e in ranks[r][t] if e["type"] == "enter" and e.get("region") == mpi_region)
                if rl in ("master", "worker") and n != 1:
                    fail("rank %d thread %d (%s): %d enters of %s, expected 1" % (r, t, rl, n, mpi_region))
    for f in failures[:40]:
        print("FAIL: " + f)
    print("ompcheck: %d ranks, %d parallel regions, %d barrier instances, %d lock acquisitions, %d tasks: %s"
          % (len(ranks), totals[0], totals[1], totals[2], totals[3],
             "%d failures" % len(failures) if failures else "all checks passed"), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
