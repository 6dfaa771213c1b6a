#!/usr/bin/env python3
"""chromecheck.py TRACE.json DUMP.jsonl [ANALYSIS.json]: checks `synctrace export --chrome` against
`synctrace dump --json` of the same archive (and the analysis when given). Prints one line per
problem and exits 1, or prints a summary and exits 0."""
import collections, json, sys

trace = json.load(open(sys.argv[1]))
dump = [json.loads(l) for l in open(sys.argv[2])]
analysis = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else None
bad = []
ev = trace.get("traceEvents")
if not isinstance(ev, list) or not ev:
    sys.exit("no traceEvents list")
for e in ev:
    need = {"M": ("name", "pid", "args"), "X": ("name", "cat", "pid", "tid", "ts", "dur"),
            "s": ("name", "id", "pid", "tid", "ts"), "f": ("name", "id", "pid", "tid", "ts", "bp"),
            "C": ("name", "pid", "ts", "args")}.get(e.get("ph"))
    if need is None:
        bad.append("unexpected event %r" % e)
    elif any(k not in e for k in need):
        bad.append("%s event lacks %s: %r" % (e["ph"], [k for k in need if k not in e], e))
by = collections.defaultdict(list)
for e in ev:
    by[e.get("ph")].append(e)

# processes and threads = ranks and locations of the dump
locs = {(d["rank"], d["thread"]) for d in dump}
pn = {e["pid"] for e in by["M"] if e["name"] == "process_name"}
tn = {(e["pid"], e["tid"]) for e in by["M"] if e["name"] == "thread_name"}
if pn != {r for r, _ in locs}: bad.append("processes %s, ranks %s" % (sorted(pn), sorted({r for r, _ in locs})))
if tn != locs: bad.append("threads %s, locations %s" % (sorted(tn), sorted(locs)))

# one complete event per enter, per location, nesting properly
enters = collections.Counter((d["rank"], d["thread"]) for d in dump if d["type"] == "enter")
xs = collections.Counter((e["pid"], e["tid"]) for e in by["X"])
if xs != enters: bad.append("complete events per location %s, enters %s" % (dict(xs), dict(enters)))
names = collections.Counter(d["region"] for d in dump if d["type"] == "enter")
if collections.Counter(e["name"] for e in by["X"]) != names: bad.append("region names differ from the enters")
for loc in locs:
    stack = []
    for e in sorted((e for e in by["X"] if (e["pid"], e["tid"]) == loc), key=lambda e: (e["ts"], -e["dur"])):
        if e["dur"] < 0: bad.append("negative duration %r" % e)
        while stack and stack[-1] <= e["ts"] + 1e-3: stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1] + 1e-3:
            bad.append("%r overlaps its enclosing region (ends %s)" % (e, stack[-1])); break
        stack.append(e["ts"] + e["dur"])

# flows: one s and one f per id, none ending before it starts; a message's s at a send of the dump,
# its f at the matching receive; the one-sided relations' (cat rma) between two ranks
sends = collections.Counter((d["rank"], d["peer"], d["tag"]) for d in dump if d["type"] in ("send", "isend"))
recvs = collections.Counter((d["peer"], d["rank"], d["tag"]) for d in dump if d["type"] in ("recv", "irecv"))
s = {e["id"]: e for e in by["s"]}
f = {e["id"]: e for e in by["f"]}
if len(s) != len(by["s"]) or len(f) != len(by["f"]) or set(s) != set(f): bad.append("flow ids do not pair up")
for i in s:
    if i in f and (s[i]["cat"], s[i]["name"]) != (f[i]["cat"], f[i]["name"]): bad.append("flow %s changes its kind" % i)
rma = collections.Counter(s[i]["name"] for i in s if s[i]["cat"] == "rma")
bad += ["an rma arrow within rank %s: %r" % (s[i]["pid"], s[i]) for i in s
        if s[i]["cat"] == "rma" and i in f and f[i]["pid"] == s[i]["pid"]][:3]
unknown = {s[i]["cat"] for i in s} - {"message", "rma"}
if unknown: bad.append("flows of unknown categories %s" % sorted(unknown))
s = {i: e for i, e in s.items() if e["cat"] == "message"}
flows = collections.Counter((s[i]["pid"], f[i]["pid"], s[i]["args"]["tag"]) for i in s if i in f)
if flows != sends: bad.append("flows %s, sends of the dump %s" % (dict(flows), dict(sends)))
if flows != recvs: bad.append("flows %s, receives of the dump %s" % (dict(flows), dict(recvs)))
s = {e["id"]: e for e in by["s"]}
late = [i for i in s if i in f and f[i]["ts"] < s[i]["ts"]]
if late: bad.append("%d flows end before they start (first %r)" % (len(late), s[late[0]]))

# counters: only with the analysis; the worst Late Sender wait is the analysis' largest (none without)
if analysis is None:
    if by["C"]: bad.append("counters without analysis.json")
else:
    cs = [e for e in by["C"] if e["name"].startswith("wait: ")]
    if not cs or len(cs) != len(by["C"]): bad.append("%d wait counters of %d" % (len(cs), len(by["C"])))
    peak = max((e["args"]["s"] for e in cs if e["name"] == "wait: Late Sender"), default=0)
    total = sum(v["value"] for v in analysis["values"] if v["metric"] == "mpi_latesender")
    if not (0 < peak <= total + 1e-9 if total > 0 else peak == 0):
        bad.append("Late Sender peak %g, analysis total %g" % (peak, total))
    if any(e["args"]["s"] < 0 for e in cs): bad.append("negative wait")

for b in bad[:10]: print(b)
if bad: sys.exit(1)
print("ok: %d regions, %d messages, %d counter samples, %d locations" % (len(by["X"]), sum(flows.values()), len(by["C"]), len(locs)))
print("rma arrows: post -> start %d, complete -> wait %d, unlock -> unlock %d"
      % (rma["post -> start"], rma["complete -> wait"], rma["unlock -> unlock"]))
