#!/usr/bin/env python3
"""cubecheck.py — an independent reader of synctrace's CUBE4 reports (.cubex).

  cubecheck.py FILE.cubex ANALYSIS.json

Reads the report with Python's own tar, XML and struct modules (nothing of the writer) and
checks the CUBE4 layout (docs/analysis.md, "analysis.cubex"): a ustar archive ending in zero blocks with
anchor.xml and <id>.index / <id>.data per metric; metric, region, cnode and location ids
0-based in definition order, cnodes in preorder, one call-tree root, one system-tree root;
sparse indexes ("CUBEX.INDEX", endianness marker 1, version 0, format 1, ascending rows) and
data ("CUBEX.DATA", one value per location per row: double for FLOAT, uint64 for UINT64).
The metric tree must be Scalasca's (metric_tree.py, written independently of the writer).
Then it rebuilds each metric's whole value (own value plus its metric-tree descendants')
per (call path, rank, thread) and compares every one with ANALYSIS.json, and each cnode's
source location (cnode attributes line and mod) with the JSON cnode's "line" and "file"; a
function region's mod must be the file of its cnodes.
Exit 1 with the first problems.
"""
import json
import os
import struct
import sys
import tarfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import anacheck  # noqa: E402  (the JSON side's call paths, as the other analysis checks read them)


def fail(msg):
    print("cubecheck: " + msg)
    sys.exit(1)


def check_tar(path):
    raw = open(path, "rb").read()
    if len(raw) % 512 or raw[-1024:] != bytes(1024):
        fail("not a tar archive ending in two zero blocks")
    off = 0
    names = []
    while off < len(raw) and raw[off:off + 512] != bytes(512):
        h = raw[off:off + 512]
        if h[257:263] != b"ustar\0" or h[263:265] != b"00":
            fail("member at %d: no ustar magic" % off)
        stored = int(h[148:154], 8)
        if stored != sum(h[:148]) + 8 * 32 + sum(h[156:]):
            fail("member at %d: bad checksum" % off)
        size = int(h[124:136].split(b"\0")[0].strip() or b"0", 8)
        names.append(h[:100].split(b"\0")[0].decode())
        off += 512 + (size + 511) // 512 * 512
    return names


def main():
    cubex, js = sys.argv[1], sys.argv[2]
    names = check_tar(cubex)
    if names[-1] != "anchor.xml":
        fail("anchor.xml is not the last member: %r" % names[-1:])
    tar = tarfile.open(cubex)
    root = ET.fromstring(tar.extractfile("anchor.xml").read())
    if root.tag != "cube" or not root.get("version", "").startswith("4"):
        fail("no <cube version=4.x>")

    metrics, parent = [], {}

    def walk_metric(el, par):
        mid = int(el.get("id"))
        if mid != len(metrics):
            fail("metric ids not in definition order")
        if el.get("type") != "EXCLUSIVE":
            fail("metric %d not EXCLUSIVE" % mid)
        metrics.append((el.findtext("uniq_name"), el.findtext("dtype")))
        parent[mid] = par
        for ch in el.findall("metric"):
            walk_metric(ch, mid)

    for el in root.find("metrics").findall("metric"):
        walk_metric(el, None)
    import metric_tree
    names = [u for u, _ in metrics]
    tree = {u: (names[parent[i]] if parent[i] is not None else None) for i, u in enumerate(names)}
    for u, p in metric_tree.TREE.items():
        if u not in tree or tree[u] != p:
            fail("metric %s: parent %r in the cube, %r in Scalasca's tree" % (u, tree.get(u, "(missing)"), p))
    prog = root.find("program")
    regions = {}
    for el in prog.findall("region"):
        if int(el.get("id")) != len(regions):
            fail("region ids not in definition order")
        regions[int(el.get("id"))] = el.findtext("name")
        if el.get("mod") is None or el.get("begin") is None or el.get("end") is None:
            fail("region %s without mod, begin or end" % el.get("id"))
    region_mod = {int(el.get("id")): el.get("mod") for el in prog.findall("region")}
    cpath = []
    csrc = {}
    roots = prog.findall("cnode")
    if len(roots) != 1:
        fail("%d call-tree roots" % len(roots))

    def walk_cnode(el, path):
        if int(el.get("id")) != len(cpath):
            fail("cnode ids not in preorder")
        here = path + (regions[int(el.get("calleeId"))],) if path is not None else ()
        cpath.append(here)
        line = el.get("line")
        if line is not None and (not line.isdigit() or int(line) < 1):
            fail("cnode %s: line %r" % (el.get("id"), line))
        csrc[here] = (el.get("mod"), int(line) if line else None)
        mod = region_mod[int(el.get("calleeId"))]
        if el.get("mod") is not None and mod and mod != el.get("mod"):
            fail("cnode %s in %s, its region in %s" % (el.get("id"), el.get("mod"), mod))
        for ch in el.findall("cnode"):
            walk_cnode(ch, here)

    walk_cnode(roots[0], None)
    stn = root.find("system").findall("systemtreenode")
    if len(stn) != 1:
        fail("%d system-tree roots" % len(stn))
    locs = []
    for g in stn[0].iter("locationgroup"):
        for l in g.findall("location"):
            if int(l.get("Id")) != len(locs):
                fail("location ids not in definition order")
            locs.append((int(g.findtext("rank")), int(l.findtext("rank"))))

    own = {}
    for mid, (uniq, dtype) in enumerate(metrics):
        idx = tar.extractfile("%d.index" % mid).read()
        if idx[:11] != b"CUBEX.INDEX" or struct.unpack("<I", idx[11:15])[0] != 1:
            fail("%d.index: bad header" % mid)
        ver, fmt, n = struct.unpack("<HBI", idx[15:22])
        if ver != 0 or fmt != 1 or len(idx) != 22 + 4 * n:
            fail("%d.index: version %d format %d rows %d size %d" % (mid, ver, fmt, n, len(idx)))
        rows = struct.unpack("<%dI" % n, idx[22:])
        if list(rows) != sorted(set(rows)) or (rows and rows[-1] >= len(cpath)):
            fail("%d.index: rows not ascending within the call tree" % mid)
        data = tar.extractfile("%d.data" % mid).read()
        if data[:10] != b"CUBEX.DATA" or len(data) != 10 + 8 * n * len(locs):
            fail("%d.data: bad header or size %d" % (mid, len(data)))
        fmtc = {"FLOAT": "d", "DOUBLE": "d", "UINT64": "Q", "INT64": "q"}[dtype]
        vals = struct.unpack("<%d%s" % (n * len(locs), fmtc), data[10:])
        for i, row in enumerate(rows):
            for l in range(len(locs)):
                v = vals[i * len(locs) + l]
                if v < 0:
                    fail("%s: negative value" % uniq)
                if v:
                    own[(mid, row, l)] = v

    def whole(mid, row, l):
        return own.get((mid, row, l), 0) + sum(whole(c, row, l) for c, p in parent.items() if p == mid)

    doc = json.load(open(js))
    jpath = anacheck.cnode_regions(doc)

    jl = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
    want = {}
    for v in doc["values"]:
        want[(v["metric"], jpath(v["cnode"]), jl[v["location"]])] = v["value"]
    bad = []
    row_of = {p: i for i, p in enumerate(cpath)}
    loc_of = {x: i for i, x in enumerate(locs)}
    for mid, (uniq, _) in enumerate(metrics):
        for p, row in row_of.items():
            for x, l in loc_of.items():
                got, exp = whole(mid, row, l), want.get((uniq, p, x), 0.0)
                if abs(got - exp) > 1e-9 * abs(exp) + 1e-12:
                    bad.append("%s at %s on rank %d thread %d: cube %r, json %r" % (uniq, "/".join(p) or "<root>",
                                                                                    x[0], x[1], got, exp))
    for c in doc["cnodes"]:
        p = jpath(c["id"])
        if p in csrc and csrc[p] != (c.get("file"), c.get("line")):
            bad.append("source of %s: cube %r, json %r" % ("/".join(p) or "<root>", csrc[p], (c.get("file"), c.get("line"))))
    if set(k[1] for k in want) - set(row_of) or set(k[2] for k in want) - set(loc_of):
        bad.append("call paths or locations of the JSON missing in the cube")
    for b in bad[:10]:
        print("cubecheck: " + b)
    if not bad:
        print("cubecheck: %d metrics, %d call paths, %d locations, %d values agree with %s" % (
            len(metrics), len(cpath), len(locs), len(want), js))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
