#!/usr/bin/env bash
# SYNCTRACE_CALLPATH=1 on a C++ program whose MPI calls sit in template functions with names of
# 8-10 KiB demangled (longnames.cc, 2 ranks), called in turns with short-named functions: every
# frame of every path comes out whole and in its place. Checked for every MPI ENTER of every rank in
# `synctrace dump` (main/<function>, in the program's order), for every function region of the
# archive (otf2-print -G: no name cut or shifted, no file:line or address where a function was
# named) and for every call path of `synctrace analyze`'s analysis.json and `synctrace report`.
# The names are llvm-symbolizer's demangled ones or, where binutils' addr2line names the frames
# and its demangler gives up on these, the mangled symbols (nm): compared without blanks
# (demanglers differ in "> >").
source "$ST_ROOT/tests/lib.sh"
command -v "$MPI_CXX" >/dev/null || skip "$MPI_CXX not installed"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
src="$ST_ROOT/tests/analysis/longnames.cc"
BIN="$ST_BUILD/longnames"
if [ ! -x "$BIN" ] || [ "$src" -nt "$BIN" ]; then
    mpi_cxx -std=c++14 -O1 -g -o "$BIN" "$src" || fail "cannot build $src"
fi
nm "$BIN" | awk '$3 ~ /exchange_long/ {print $3}' >"$ST_TMP/mangled.txt"
[ "$(wc -l <"$ST_TMP/mangled.txt")" -eq 2 ] || fail "longnames has not two exchange_long instances: $(cat "$ST_TMP/mangled.txt")"
ST_ENV="SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/p" 2 "$BIN" || fail "longnames failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -qx done "$ST_TMP/out.txt" || fail "longnames printed: $(head -c 200 "$ST_TMP/out.txt")"
st dump "$ST_TMP/p" >"$ST_TMP/dump.txt" || fail "synctrace dump failed"
otf2-print -G "$ST_TMP/p/traces.otf2" >"$ST_TMP/defs.txt" 2>&1 || fail "otf2-print -G failed: $(tail -c 300 "$ST_TMP/defs.txt")"
st analyze "$ST_TMP/p" >"$ST_TMP/summary.txt" || fail "analyze failed: $(tail -c 300 "$ST_TMP/summary.txt")"
st report "$ST_TMP/p" --metric time >"$ST_TMP/report.txt" || fail "report failed: $(tail -c 300 "$ST_TMP/report.txt")"

PYTHONPATH="$ST_ROOT/tests/analysis" python3 - "$ST_TMP" <<'PY' || fail "call paths with names not whole (see above)"
import json, re, sys
from anacheck import cnode_paths
tmp = sys.argv[1]
def squeeze(s):
    return s.replace(" ", "")
def long_name(n):
    lst = "TypeList<" + ", ".join(f"Tag<{i}>" for i in range(n)) + ">"
    return f"void exchange_long<{lst}>({lst} const&)"
mangled = open(f"{tmp}/mangled.txt").read().split()
def is_long(got, n):
    """got names exchange_long<Long<n>>: demangled, or the mangled symbol (its last tag is n - 1)"""
    return squeeze(got) == squeeze(long_name(n)) or (got in mangled and got.endswith(f"ILi{n - 1}EEEEEvRKT_"))
shorts = {"short_a": ("short_a", "short_a()"), "short_b": ("short_b", "short_b()")}
def frame_ok(got, want):
    return is_long(got, want) if isinstance(want, int) else got in shorts.get(want, (want,))
bad = 0
# dump: every ENTER's path, rank by rank, in the program's order
want = [("MPI_Init", []), ("MPI_Barrier", ["short_a"]), ("MPI_Allreduce", [500]), ("MPI_Barrier", ["short_b"]),
        ("MPI_Allreduce", [420]), ("MPI_Barrier", ["short_a"]), ("MPI_Allreduce", [500]), ("MPI_Comm_rank", []),
        ("MPI_Finalize", [])]
got = {0: [], 1: []}
for line in open(f"{tmp}/dump.txt"):
    m = re.match(r'\s*\d+\s+(\d+)\s+0\s+enter\s+region=(\S+)(.*)$', line)
    if not m:
        continue
    p = re.search(r'callpath=(?:"([^"]*)"|(\S+))', m.group(3))
    got[int(m.group(1))].append((m.group(2), (p.group(1) or p.group(2)) if p else None))
for rank in (0, 1):
    if len(got[rank]) != len(want):
        print(f"rank {rank}: {len(got[rank])} ENTERs, want {len(want)}: {[r for r, _ in got[rank]]}"); bad += 1
        continue
    for k, ((region, path), (wregion, wframes)) in enumerate(zip(got[rank], want)):
        frames = path.split("/") if path else []
        # a frame's name may hold "/" only inside a template argument: none here
        ok = region == wregion and len(frames) == 1 + len(wframes) and frames[0] == "main" and \
             all(frame_ok(f, w) for f, w in zip(frames[1:], wframes))
        if not ok:
            print(f"rank {rank} ENTER {k} {region}: path {path[:120] if path else path}... ({len(path or '')} bytes), "
                  f"want main/{wframes}"); bad += 1
# the archive: every function region (paradigm SAMPLING) is one of the program's functions, whole
names = re.findall(r'^REGION .*?Name: "(.*?)" <\d+> \(Aka\..*Paradigm: SAMPLING', open(f"{tmp}/defs.txt").read(), re.M)
for n in names:
    if not (n == "main" or frame_ok(n, "short_a") or frame_ok(n, "short_b") or is_long(n, 500) or is_long(n, 420)):
        print(f"archive: function region {n[:100]!r} ({len(n)} bytes) is none of the program's functions"); bad += 1
if len(names) != 5:
    print(f"archive: {len(names)} function regions, want 5 (main, short_a, short_b, two exchange_long)"); bad += 1
# analyze: every call path of analysis.json
doc = json.load(open(f"{tmp}/p/analysis.json"))
path = cnode_paths(doc)
paths = {path(c["id"]) for c in doc["cnodes"] if c["region"].startswith("MPI_")}
for p in paths:
    frames = p.split("/")
    inner = frames[1:-1]
    ok = frames[0] == "main" and len(inner) <= 1 and \
         all(frame_ok(f, "short_a") or frame_ok(f, "short_b") or is_long(f, 500) or is_long(f, 420) for f in inner)
    if not ok:
        print(f"analysis.json: call path {p[:150]}... ({len(p)} bytes)"); bad += 1
longs = [p for p in paths if "exchange_long" in p]
if len(longs) != 2:
    print(f"analysis.json: {len(longs)} call paths through exchange_long, want 2"); bad += 1
# report: the exchange_long paths printed whole
rep = open(f"{tmp}/report.txt").read()
for p in longs:
    if p not in rep:
        print(f"report: call path of {len(p)} bytes not printed whole"); bad += 1
print(f"{len(paths)} call paths, {len(names)} function regions, {sum(len(v) for v in got.values())} ENTERs checked")
sys.exit(1 if bad else 0)
PY
exit 0
