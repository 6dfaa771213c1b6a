#!/usr/bin/env python3
"""htmldata.py — the data inside a `synctrace report --html` page against independent outputs.

usage: htmldata.py PAGE DUMP.jsonl ANALYSIS.json CHROME.json

DUMP is `synctrace dump --json`, ANALYSIS `synctrace analyze`'s JSON, CHROME `synctrace export
--chrome` of the same archive. Checks, for a page with every event: each location's timeline
decodes to exactly the dump's enter/leave events (time in ns, region name, order); every
severity equals analysis.json's at the same (metric, call path, rank, thread) and none is
missing; the messages are the export's flows (sender, receiver, times within 1 ns). For an
aggregated page: each location's binned time equals its time inside regions from the dump
(within one bin). Either page: the root causes are analysis.json's (each wait state's waiting,
propagation and delayers at the same metric, call paths and locations; the critical path's hops
on the same locations in the same order, each as long, all shifted by one offset: the page counts
from the archive's offset, the JSON from the run's first event); none when the JSON has none.
Prints a summary line; exit 1 with the differences.
"""
import collections
import json
import sys


def page_data(path):
    s = open(path, encoding="utf-8").read()
    start = s.index('id="st-data">') + len('id="st-data">')
    return json.loads(s[start:s.index("</script>", start)])


def main():
    page, dump, ana, chrome = sys.argv[1:5]
    D = page_data(page)
    errors = []
    locs = [(l[0], l[1]) for l in D["locs"]]
    ev = collections.defaultdict(list)
    for line in open(dump):
        e = json.loads(line)
        if e["type"] in ("enter", "leave"):
            ev[(e["rank"], e["thread"])].append((e["t"], e.get("region") if e["type"] == "enter" else None))
    if D["meta"]["detail"] == "full":
        check_timeline(D, locs, ev, errors)
        check_messages(D, locs, chrome, errors)
    else:
        check_bins(D, locs, ev, errors)
    check_values(D, locs, ana, errors)
    check_causes(D, locs, ana, errors)
    for e in errors[:20]:
        print("FAIL: " + e, file=sys.stderr)
    print("page data: %d locations, %d enter/leave, %d values, %d messages, %d wait states with causes, %d critical-path "
          "hops, detail %s" % (len(locs), sum(len(v) for v in ev.values()), len(D["sev"]) // 4,
                               len(D.get("msgs", [])) // 4, len(D.get("causes", [])), len(D.get("cpath", [])) // 3,
                               D["meta"]["detail"]))
    sys.exit(1 if errors else 0)


def check_timeline(D, locs, ev, errors):
    for i, seq in enumerate(D["tl"]):
        t, got = 0, []
        for k in range(0, len(seq), 2):
            t += seq[k]
            got.append((t, D["regions"][seq[k + 1] - 1][0] if seq[k + 1] else None))
        want = ev.get(locs[i], [])
        if got != want:
            bad = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
            errors.append("timeline of rank %d thread %d: %d events, dump %d; first difference at %d: %s vs %s" % (
                locs[i] + (len(got), len(want), bad, got[bad:bad + 1], want[bad:bad + 1])))


def check_messages(D, locs, chrome, errors):
    m, st, got = D["msgs"], 0, []
    for k in range(0, len(m), 4):
        st += m[k + 1]
        got.append((locs[m[k]], st, locs[m[k + 2]], st + m[k + 3]))
    ev = json.load(open(chrome))["traceEvents"]
    s = {e["id"]: e for e in ev if e["ph"] == "s"}
    f = {e["id"]: e for e in ev if e["ph"] == "f"}
    want = [((s[i]["pid"], s[i]["tid"]), round(s[i]["ts"] * 1000), (f[i]["pid"], f[i]["tid"]), round(f[i]["ts"] * 1000))
            for i in s]
    if len(got) != len(want):
        errors.append("%d messages, the export has %d flows" % (len(got), len(want)))
        return
    for g, w in zip(sorted(got), sorted(want)):
        if g[0] != w[0] or g[2] != w[2] or abs(g[1] - w[1]) > 1 or abs(g[3] - w[3]) > 1:
            errors.append("message %s, the export has %s" % (g, w))
            return


def check_bins(D, locs, ev, errors):
    A = D["agg"]
    K = len(A["kinds"])
    for i, v in enumerate(A["v"]):
        binned = sum(v) / 1000 * A["w"]
        depth, prev, inside = 0, 0, 0
        for t, region in ev.get(locs[i], []):
            if depth:
                inside += t - prev
            depth += 1 if region else -1
            prev = t
        if abs(binned - inside) > A["w"] + 1e-6 * inside:
            errors.append("rank %d thread %d: %.0f ns in bins, %.0f ns inside regions" % (locs[i] + (binned, inside)))
        if len(v) != A["bins"] * K:
            errors.append("rank %d thread %d: %d bin values, expected %d" % (locs[i] + (len(v), A["bins"] * K)))


def check_values(D, locs, ana, errors):
    J = json.load(open(ana))
    cpath = lambda nodes, c: "/".join(reversed([n for n in walk(nodes, c)]))
    jn = {n["id"]: (n["parent"], n["region"]) for n in J["cnodes"]}
    pn = {i: (c[0] if c[0] >= 0 else None, c[1]) for i, c in enumerate(D["cnodes"])}
    jl = {l["id"]: (l["rank"], l["thread"]) for l in J["locations"]}
    want = {(v["metric"], cpath(jn, v["cnode"]), jl[v["location"]]): v["value"] for v in J["values"]}
    got = {}
    s = D["sev"]
    for k in range(0, len(s), 4):
        got[(D["metrics"][s[k]][0], cpath(pn, s[k + 1]), locs[s[k + 2]])] = s[k + 3]
    for key in set(want) | set(got):
        a, b = want.get(key, 0), got.get(key, 0)
        if abs(a - b) > 1e-7 * max(abs(a), 1e-3):
            errors.append("value %s: page %r, analysis.json %r" % (key, b, a))


def check_causes(D, locs, ana, errors):
    J = json.load(open(ana))
    if "causes" not in J:
        if "causes" in D or "cpath" in D:
            errors.append("the page has root causes, analysis.json none")
        return
    if "causes" not in D or "cpath" not in D:
        errors.append("analysis.json has root causes, the page none")
        return
    cpath = lambda nodes, c: "/".join(reversed([n for n in walk(nodes, c)]))
    jn = {n["id"]: (n["parent"], n["region"]) for n in J["cnodes"]}
    pn = {i: (c[0] if c[0] >= 0 else None, c[1]) for i, c in enumerate(D["cnodes"])}
    near = lambda a, b: abs(a - b) <= 1e-7 * max(abs(a), 1e-3)
    want = {}
    for w in J["causes"]:
        want[(w["metric"], cpath(jn, w["cnode"]))] = (w["wait"], w["propagating"], [
            ((d["rank"], d["thread"]), cpath(jn, d["cnode"]), d["short_term"], d["long_term"]) for d in w["delayers"]])
    got = {}
    for m, c, wait, prop, ds in D["causes"]:
        got[(D["metrics"][m][0], cpath(pn, c))] = (wait, prop, [
            (locs[ds[i]], cpath(pn, ds[i + 1]), ds[i + 2], ds[i + 3]) for i in range(0, len(ds), 4)])
    for key in set(want) | set(got):
        if key not in want or key not in got:
            errors.append("wait state %s only in the %s" % (key, "page" if key in got else "analysis.json"))
            continue
        (a, b, x), (c, d, y) = want[key], got[key]
        if not near(a, c) or not near(b, d) or len(x) != len(y) or any(
                p[:2] != q[:2] or not near(p[2], q[2]) or not near(p[3], q[3]) for p, q in zip(x, y)):
            errors.append("wait state %s: page %r, analysis.json %r" % (key, got[key], want[key]))
    hops = [(locs[D["cpath"][i]], D["cpath"][i + 1], D["cpath"][i + 2]) for i in range(0, len(D["cpath"]), 3)]
    jhops = [((h["rank"], h["thread"]), h["t0"] * 1e9, h["t1"] * 1e9) for h in J["critical_path"]]
    if [h[0] for h in hops] != [h[0] for h in jhops]:
        errors.append("critical path: page over %s, analysis.json over %s" % ([h[0] for h in hops][:10],
                                                                             [h[0] for h in jhops][:10]))
        return
    if hops:
        shift = hops[0][1] - jhops[0][1]
        for h, j in zip(hops, jhops):
            if abs(h[1] - j[1] - shift) > 2 or abs(h[2] - j[2] - shift) > 2:
                errors.append("critical-path hop on %s: page %d..%d ns, analysis.json %.0f..%.0f ns (+ %.0f)" % (
                    h[0], h[1], h[2], j[1], j[2], shift))
                return


def walk(nodes, c):
    while c is not None:
        parent, name = nodes[c]
        yield name
        c = parent


main()
