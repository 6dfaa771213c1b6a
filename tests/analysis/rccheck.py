#!/usr/bin/env python3
"""rccheck.py — the root-cause metrics of an analysis.json against the imbalance a test program
injected (tests/analysis/rootcause.c, rcomp.c; t_analyze_rootcause.sh). docs/analysis.md, "Root causes".

  rccheck.py MODE FILE DUMP T_MS W_MS [S_MS]
      MODE: imbalance, chain, collective, balanced, handshake, posted (rootcause.c; W_MS its work(W)), omp (rcomp.c;
      W_MS its base B, S_MS its serial time S). DUMP: `synctrace dump --json` of the same archive,
      for the run's length.
  rccheck.py same FILE OTHER
      the same attribution: every delay cost and wait classification above SLACK_MS summed per
      (metric, rank, thread, function) in either report is in the other within 10 % + SLACK_MS (a
      run under skewed clocks against one without)
  rccheck.py show FILE
      every root-cause value summed per (metric, rank, thread, function)

Where a value sits is told by the application function of its call path (the innermost call-path
component that is no MPI or OpenMP region: main/solve/MPI_Comm_rank is in solve; <root> is in
no function) and, for OpenMP, the construct (the path's leaf region). An expectation is met
within 10 % + SLACK_MS (environment, default 20: the time a rank of the loaded 2-core machine
may lose between two calls); "none" means at most SLACK_MS, "nothing" exactly 0 (no such value).
Every check prints a line; exit 1 when one fails.
"""
import json
import os
import sys
from collections import defaultdict

SLACK = float(os.environ.get("SLACK_MS", "20")) / 1e3
TOL = 0.10

DELAY = ["delay_latesender", "delay_latesender_longterm", "delay_latereceiver", "delay_latereceiver_longterm",
         "delay_barrier", "delay_barrier_longterm", "delay_n2n", "delay_n2n_longterm", "delay_12n",
         "delay_12n_longterm", "delay_n21", "delay_n21_longterm", "delay_ompbarrier", "delay_ompbarrier_longterm",
         "delay_ompidle", "delay_ompidle_longterm"]
LONGTERM = [m for m in DELAY if m.endswith("_longterm")]
CLASSES = ["mpi_wait_direct_latesender", "mpi_wait_indirect_latesender", "mpi_wait_direct_latereceiver",
           "mpi_wait_indirect_latereceiver", "mpi_wait_propagating_ls", "mpi_wait_terminal_ls",
           "mpi_wait_propagating_lr", "mpi_wait_terminal_lr"]
CP = ["critical_path", "critical_path_imbalance", "performance_impact", "performance_impact_criticalpath",
      "critical_path_activities", "critical_imbalance_impact", "intra_partition_imbalance", "inter_partition_imbalance",
      "non_critical_path_activities"]


def is_construct(region):
    return region == "<root>" or region.startswith(("MPI_", "!$omp", "TRACE "))


class Report:
    """An analysis.json: its values by (metric, (rank, thread), call path)."""

    def __init__(self, path):
        with open(path) as f:
            self.doc = json.load(f)
        assert self.doc["format"] == "synctrace-analysis", "not an analysis file"
        self.metrics = {m["uniq_name"] for m in self.doc["metrics"]}
        self.loc = {l["id"]: (l["rank"], l["thread"]) for l in self.doc["locations"]}
        paths = {}
        for c in self.doc["cnodes"]:  # parents before children
            p = c["parent"]
            paths[c["id"]] = (paths[p] + (c["region"],)) if p is not None else ()
        self.paths = paths
        self.vals = defaultdict(float)  # (metric, loc, path) -> seconds
        for v in self.doc["values"]:
            self.vals[(v["metric"], self.loc[v["location"]], paths[v["cnode"]])] += v["value"]

    def sum(self, metric, loc=None, where=None):
        """metric summed over the locations loc ((rank, thread) or a list; None: all) and the
        call paths where(path) holds (None: all)"""
        locs = [loc] if isinstance(loc, tuple) else loc
        return sum(v for (m, l, p), v in self.vals.items()
                   if m == metric and (locs is None or l in locs) and (where is None or where(p)))


def function(path):
    """the application function a call path is in: its innermost component that is no construct"""
    for r in reversed(path):
        if not is_construct(r):
            return r
    return "<root>"


def in_function(name):
    return lambda p: function(p) == name


def not_in_function(name):
    return lambda p: function(p) != name


def in_construct(name, construct):
    return lambda p: function(p) == name and p and p[-1] == construct


class Checker:
    def __init__(self, rep):
        self.rep = rep
        self.bad = []

    def line(self, ok, text):
        print("%-6s %s" % ("ok" if ok else "WRONG", text))
        if not ok:
            self.bad.append(text)

    def about(self, what, metric, loc, where, want, wdesc):
        """metric at (loc, where) is want seconds within TOL + SLACK"""
        got = self.rep.sum(metric, loc, where)
        ok = abs(got - want) <= TOL * want + SLACK
        text = "%-28s %-26s %9.1f ms  (want %.1f ms: %s)" % (metric, what, got * 1e3, want * 1e3, wdesc)
        if not ok:  # where the metric is instead, on these locations
            locs = [loc] if isinstance(loc, tuple) else loc
            other = defaultdict(float)
            for (m, l, p), v in self.rep.vals.items():
                if m == metric and (locs is None or l in locs) and not (where and where(p)):
                    other["/".join(p) or "<root>"] += v
            text += "; found instead: " + (", ".join("%s %.1f ms" % (p, v * 1e3) for p, v in
                                                     sorted(other.items(), key=lambda x: -x[1])[:3]) or "nothing")
        self.line(ok, text)
        return got

    def none(self, what, metric, loc=None, where=None, limit=None):
        """at most SLACK (or limit)"""
        limit = SLACK if limit is None else limit
        got = self.rep.sum(metric, loc, where)
        self.line(got <= limit, "%-28s %-26s %9.1f ms  (want none: at most %.1f ms)" % (metric, what, got * 1e3,
                                                                                        limit * 1e3))
        return got
        return got

    def nothing(self, what, metric, loc=None, where=None):
        got = self.rep.sum(metric, loc, where)
        self.line(got == 0, "%-28s %-26s %9.4f ms  (want nothing)" % (metric, what, got * 1e3))

    def leq(self, text, a, b, eps=1e-9):
        self.line(a <= b + eps, "%s: %.4f <= %.4f ms" % (text, a * 1e3, b * 1e3))


def run_length(dump):
    lo = hi = None
    with open(dump) as f:
        for line in f:
            t = json.loads(line)["t"]
            lo = t if lo is None else min(lo, t)
            hi = t if hi is None else max(hi, t)
    return (hi - lo) / 1e9


def common(c, rep, dump, ranks):
    """what holds for every run: the metrics exist, the critical path adds up to the run's length,
    no delay exceeds the waiting time it explains"""
    missing = [m for m in DELAY + CLASSES + CP if m not in rep.metrics]
    c.line(not missing, "root-cause metrics in the report%s" % (": missing " + " ".join(missing) if missing else ""))
    length, cp = run_length(dump), rep.sum("critical_path")
    c.line(abs(cp - length) <= 1e-9 + 1e-12 * length,
           "critical_path over everything %.9f s = the run's length (first to last event) %.9f s" % (cp, length))
    waits = {"delay_latesender": "mpi_latesender", "delay_latereceiver": "mpi_latereceiver",
             "delay_barrier": "mpi_barrier_wait", "delay_n2n": "mpi_wait_nxn", "delay_12n": "mpi_latebroadcast",
             "delay_n21": "mpi_earlyreduce", "delay_ompidle": "omp_idle_threads"}
    for d, w in waits.items():  # a short-term cost is a share of the waits it caused: never more
        if rep.sum(d) > 0:
            c.leq("%s over everything <= %s over everything" % (d, w), rep.sum(d), rep.sum(w))
    for r in range(ranks):  # classification: direct + indirect = propagating + terminal = the Late Sender waits
        loc = (r, 0)
        ls = rep.sum("mpi_latesender", loc)
        if ls > 0:
            di = rep.sum("mpi_wait_direct_latesender", loc) + rep.sum("mpi_wait_indirect_latesender", loc)
            pt = rep.sum("mpi_wait_propagating_ls", loc) + rep.sum("mpi_wait_terminal_ls", loc)
            c.line(abs(di - ls) <= 1e-9 and abs(pt - ls) <= 1e-9,
                   "rank %d: Late Sender %.3f ms = direct + indirect %.3f ms = propagating + terminal %.3f ms"
                   % (r, ls * 1e3, di * 1e3, pt * 1e3))


def check_imbalance(c, T, W):
    r0, r1, r2 = (0, 0), (1, 0), (2, 0)
    solve, work = in_function("solve"), in_function("work")
    c.about("rank 0", "mpi_latesender", r0, None, T, "rank 0 waits for rank 1")
    c.about("rank 1", "mpi_latesender", r1, None, T, "rank 1 waits for rank 2")
    c.about("rank 1", "delay_latesender", r1, None, T, "rank 0's wait")
    c.about("rank 2", "delay_latesender", r2, None, T, "rank 1's wait")
    c.about("rank 1 solve", "delay_latesender", r1, solve, T, "solve T, its receiver's 0")
    c.about("rank 2 solve", "delay_latesender", r2, solve, T, "solve 2T, its receiver's T")
    c.none("ranks 1, 2 outside solve", "delay_latesender", [r1, r2], not_in_function("solve"))
    c.none("every rank at work", "delay_latesender", None, work)
    for m in DELAY:
        c.nothing("rank 0 (delays nobody)", m, r0)
    for m in LONGTERM:
        c.none("everywhere (no chain)", m)
    for r in (r0, r1):
        c.about("rank %d" % r[0], "mpi_wait_direct_latesender", r, None, T, "its partner's own excess")
        c.none("rank %d" % r[0], "mpi_wait_indirect_latesender", r)
        c.about("rank %d" % r[0], "mpi_wait_terminal_ls", r, None, T, "it delays nobody after")
        c.none("rank %d" % r[0], "mpi_wait_propagating_ls", r)
    c.about("rank 2 solve", "critical_path", r2, solve, 2 * T, "the slowest rank's solve")
    c.about("rank 2 work", "critical_path", r2, work, W, "the path runs on rank 2 from the start")
    c.none("ranks 0, 1 solve", "critical_path", [r0, r1], solve)
    c.about("rank 2 solve", "critical_path_imbalance", r2, solve, T, "2T above the mean T of 0, T, 2T")
    c.none("every rank at work", "critical_path_imbalance", None, work)
    c.about("rank 1 solve", "critical_path_activities", r1, solve, T, "min(critical path 2T, its T)")
    c.about("rank 2 solve", "critical_path_activities", r2, solve, 2 * T, "min(critical path 2T, its 2T)")
    c.none("every rank at solve", "non_critical_path_activities", None, solve)


def check_chain(c, T, W):
    r0, r1, r2 = (0, 0), (1, 0), (2, 0)
    solve = in_function("solve")
    c.about("rank 1", "mpi_latesender", r1, None, T, "rank 1 waits for rank 2")
    c.about("rank 0", "mpi_latesender", r0, None, T, "rank 0 waits for rank 1, which waited")
    c.about("rank 2", "delay_latesender", r2, None, T, "rank 1's wait, short-term")
    c.about("rank 2", "delay_latesender_longterm", r2, None, T, "rank 0's wait, through rank 1")
    c.about("rank 2 solve", "delay_latesender", r2, solve, T, "rank 1's wait, short-term")
    c.about("rank 2 solve", "delay_latesender_longterm", r2, solve, T, "rank 0's wait, through rank 1")
    c.none("rank 2 outside solve", "delay_latesender", r2, not_in_function("solve"))
    c.none("rank 2 outside solve", "delay_latesender_longterm", r2, not_in_function("solve"))
    for m in ("delay_latesender", "delay_latesender_longterm"):
        c.none("rank 1 (passes it on)", m, r1)
    for m in DELAY:
        c.nothing("rank 0 (delays nobody)", m, r0)
    c.about("rank 1", "mpi_wait_propagating_ls", r1, None, T, "it made rank 0 wait")
    c.none("rank 1", "mpi_wait_terminal_ls", r1)
    c.about("rank 0", "mpi_wait_terminal_ls", r0, None, T, "the end of the chain")
    c.none("rank 0", "mpi_wait_propagating_ls", r0)
    c.about("rank 1", "mpi_wait_direct_latesender", r1, None, T, "rank 2 computed")
    c.none("rank 1", "mpi_wait_indirect_latesender", r1)
    c.about("rank 0", "mpi_wait_indirect_latesender", r0, None, T, "rank 1 waited")
    c.none("rank 0", "mpi_wait_direct_latesender", r0)
    c.about("rank 2 solve", "critical_path", r2, solve, T, "the chain's origin")


def rank1_delays_rank0(c, T, wait_why, delay_why):
    """rank 0's Late Sender T, charged to rank 1's solve alone; rank 2 takes no part"""
    r0, r1, r2 = (0, 0), (1, 0), (2, 0)
    solve = in_function("solve")
    c.about("rank 0", "mpi_latesender", r0, None, T, wait_why)
    c.about("rank 1 solve", "delay_latesender", r1, solve, T, delay_why)
    c.none("rank 1 outside solve", "delay_latesender", r1, not_in_function("solve"))
    for m in DELAY:
        c.nothing("rank 0 (delays nobody)", m, r0)
        c.nothing("rank 2 (takes no part)", m, r2)


def check_handshake(c, T, W):
    rank1_delays_rank0(c, T, "rank 0 waits for rank 1's answer",
                       "solve before the message nobody waited for: the interval starts at MPI_Init")
    c.none("rank 1", "mpi_latesender", (1, 0))
    c.about("rank 0", "mpi_wait_direct_latesender", (0, 0), None, T, "rank 1 computed")
    c.about("rank 1 solve", "critical_path", (1, 0), in_function("solve"), T, "the answer's delay")


def check_posted(c, T, W):
    rank1_delays_rank0(c, T, "rank 0's MPI_Waitall waits for rank 1's sends",
                       "solve before both sends: the posts start no interval")


def check_collective(c, T, W):
    r0, r1, r2 = (0, 0), (1, 0), (2, 0)
    slow = in_function("slow")
    c.about("ranks 0, 1", "mpi_wait_nxn", [r0, r1], None, 2 * T, "T each at MPI_Allreduce")
    c.about("ranks 0, 2", "mpi_barrier_wait", [r0, r2], None, 2 * T, "T each at MPI_Barrier")
    c.about("rank 2", "delay_n2n", r2, None, 2 * T, "the last to arrive at MPI_Allreduce")
    c.about("rank 1", "delay_barrier", r1, None, 2 * T, "the last to arrive at MPI_Barrier")
    c.about("rank 2 slow", "delay_n2n", r2, slow, 2 * T, "its excess was in slow")
    c.about("rank 1 slow", "delay_barrier", r1, slow, 2 * T, "its excess was in slow")
    c.none("ranks 0, 1", "delay_n2n", [r0, r1])
    c.none("rank 2 outside slow", "delay_n2n", r2, not_in_function("slow"))
    c.none("ranks 0, 2", "delay_barrier", [r0, r2])
    c.none("rank 1 outside slow", "delay_barrier", r1, not_in_function("slow"))
    for m in DELAY:
        c.nothing("rank 0 (delays nobody)", m, r0)
    for m in LONGTERM:
        c.none("everywhere (no chain)", m)
    c.about("ranks 1, 2 slow", "critical_path", [r1, r2], slow, 2 * T, "T on each")


def check_balanced(c, T, W):
    # 3 ranks on the test machine's 2 cores: the scheduler starts equal work up to tens of ms apart, and
    # those waits have delay costs too; a quarter of the work is far below what an imbalance of T gives
    noise = max(SLACK, T / 4)
    for r in range(3):
        for m in DELAY:
            c.none("rank %d" % r, m, (r, 0), None, noise)
        c.none("rank %d solve" % r, "critical_path_imbalance", (r, 0), in_function("solve"), noise)


def check_omp(c, T, B, S):
    """rcomp.c on every rank of the report (3 threads each)"""
    ranks = sorted({l[0] for l in c.rep.loc.values()})
    loop = in_construct("sweep", "!$omp for")
    init = lambda p: bool(p) and p[-1].startswith("MPI_Init")
    slow = {}
    for r in ranks:
        # the slow thread is OpenMP's thread 2; which location thread that is depends on the order in
        # which the runtime's threads began: the worker with the longer loop
        t0, t1, t2 = (r, 0), (r, 1), (r, 2)
        if c.rep.sum("time", t1, loop) > c.rep.sum("time", t2, loop):
            t1, t2 = t2, t1
        slow[r] = t2
        c.about("rank %d threads 0, 1" % r, "omp_ebarrier_wait", [t0, t1], None, 2 * T, "T each at meet's barrier")
        c.about("rank %d thread 2 sweep's loop" % r, "delay_ompbarrier", t2, loop, 2 * T, "the others' waits")
        # outside its loop thread 2 can only be late by its own start: the time from the fork to its loop
        # (its fork time and its time in the region before the loop; on a busy machine a worker may
        # start 20-30 ms after the fork, and the master's and the workers' call paths differ, so the
        # master's start is not taken off); Time has both at the thread's `!$omp parallel`
        start = c.rep.sum("time", t2, lambda p: bool(p) and p[-1] == "!$omp parallel")
        c.none("rank %d thread 2 elsewhere" % r, "delay_ompbarrier", t2, lambda p: not loop(p), SLACK + start)
        c.none("rank %d threads 0, 1" % r, "delay_ompbarrier", [t0, t1])
        c.about("rank %d master step" % r, "delay_ompidle", t0, in_function("step"), 2 * S,
                "its serial part: the 2 workers idle S each")
        # with MPI the workers also idle through the master's MPI_Init_thread, the first idle stretch
        idle_init = c.rep.sum("omp_idle_threads", [t1, t2], init)
        c.about("rank %d master MPI_Init" % r, "delay_ompidle", t0, init, idle_init,
                "the workers' idle time in it")
        c.none("rank %d master elsewhere" % r, "delay_ompidle", t0,
               lambda p: function(p) != "step" and not init(p))
        c.nothing("rank %d workers" % r, "delay_ompidle", [t1, t2])
    # the critical path runs through the whole of the slow thread's first loop on one rank (the ranks
    # meet only in MPI_Init and MPI_Finalize); the second region's loop (B on every thread, the same call
    # path) is on the path too where thread 2 ends it last, as it does whenever it got a core last
    # (3 threads on 2 cores)
    cp = max(c.rep.sum("critical_path", slow[r], loop) for r in ranks)
    near = lambda want: abs(cp - want) <= TOL * want + SLACK
    c.line(near(B + T) or near(2 * B + T),
           "%-28s %-26s %9.1f ms  (want %.1f ms: B + T, on the rank it runs through; %.1f ms with the second loop)"
           % ("critical_path", "thread 2 sweep's loop", cp * 1e3, (B + T) * 1e3, (2 * B + T) * 1e3))


def by_function(rep, metrics=DELAY + CLASSES + CP):
    """root-cause values summed per (metric, location, function[/construct])"""
    agg = defaultdict(float)
    for (m, l, p), v in rep.vals.items():
        if m in metrics:
            agg[(m, l, function(p) + ("/" + p[-1] if p and p[-1].startswith("!$omp") else ""))] += v
    return agg


def show(rep):
    for (m, l, f), v in sorted(by_function(rep).items()):
        print("%-32s rank %d thread %d  %-34s %10.3f ms" % (m, l[0], l[1], f, v * 1e3))


# What two runs of one program share: the values at the functions the program gives known work. The
# rest (<root>, main: the start-up, MPI_Init, the time outside the marked functions) is another run's,
# and so are the metrics that weigh every call path against the others (imbalance impact, performance
# impact, activities).
SAME_METRICS = DELAY + CLASSES + ["critical_path"]
SAME_SKIP_FUNCS = ("<root>", "main")


def comparable(rep):
    """by_function, but the critical path per function over all locations: where the work is balanced
    the path may run on any of them (which one is the run's chance)"""
    agg = defaultdict(float)
    for (m, l, f), v in by_function(rep).items():
        agg[(m, (-1, -1) if m == "critical_path" else l, f)] += v
    return agg


def same(a, b):
    va, vb = comparable(a), comparable(b)
    bad = 0
    for k in sorted(set(va) | set(vb)):
        x, y = va.get(k, 0.0), vb.get(k, 0.0)
        if max(x, y) <= SLACK or k[0] not in SAME_METRICS or k[2].split("/")[0] in SAME_SKIP_FUNCS:
            continue
        ok = abs(x - y) <= TOL * max(x, y) + SLACK
        bad += not ok
        print("%-6s %-32s rank %d thread %d  %-28s %9.1f ms  %9.1f ms" % ("ok" if ok else "WRONG", k[0], k[1][0], k[1][1],
                                                                         k[2], x * 1e3, y * 1e3))
    if bad:
        print("rccheck same: %d values differ" % bad)
    return 1 if bad else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "show":
        show(Report(argv[2]))
        return 0
    if len(argv) == 4 and argv[1] == "same":
        return same(Report(argv[2]), Report(argv[3]))
    if len(argv) < 6 or argv[1] not in ("imbalance", "chain", "collective", "balanced", "handshake", "posted",
                                              "omp"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, rep = argv[1], Report(argv[2])
    T, W = float(argv[4]) / 1e3, float(argv[5]) / 1e3
    c = Checker(rep)
    ranks = len({l[0] for l in rep.loc.values()})
    common(c, rep, argv[3], ranks)
    if mode == "omp":
        check_omp(c, T, W, float(argv[6]) / 1e3)
    else:
        {"imbalance": check_imbalance, "chain": check_chain, "collective": check_collective,
         "balanced": check_balanced, "handshake": check_handshake, "posted": check_posted}[mode](c, T, W)
    if c.bad:
        print("rccheck %s: %d of the checks failed" % (mode, len(c.bad)))
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
