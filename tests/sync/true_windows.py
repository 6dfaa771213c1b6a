#!/usr/bin/env python3
"""true_windows.py — recorded times against true-time windows (t_sync_early.sh, sync_bench).

Usage: true_windows.py DUMP_JSON GLOBAL_OFFSET WIN_PREFIX NP REGION LIMIT_NS

DUMP_JSON is `synctrace dump --json`; GLOBAL_OFFSET the archive's global offset
(`synctrace info`). WIN_PREFIX.RANK holds one "i lo hi" line per call of REGION made
by the program on that rank, lo/hi being the true instants before and after the call
on the global clock. The i-th ENTER and LEAVE of REGION on the rank must lie in the
i-th window; the error of an event is its distance outside the window (0 inside), so
a window stretched by preemption between the two clock reads still counts as right.
Prints the worst error in the first second after the first window, after it, and per
time bin, per simulated rank; exits 1 when the worst exceeds LIMIT_NS.
"""
import json
import sys

BINS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, float("inf"))  # upper edges, s after the first window


def main():
    dump, off, prefix, np, region, limit = sys.argv[1:7]
    off, np, limit = int(off), int(np), float(limit)
    ev = {}
    for line in open(dump):
        e = json.loads(line)
        if e["type"] in ("enter", "leave") and e.get("region") == region:
            ev.setdefault(e["rank"], []).append(e["t"] + off)
    wins = {r: [tuple(map(int, l.split()[1:])) for l in open(f"{prefix}.{r}")] for r in range(np)}
    start = min(w[0][0] for w in wins.values() if w)
    worst = {"first": (0, -1, 0.0), "rest": (0, -1, 0.0)}
    bins = [0] * len(BINS)
    widths = []
    for r in range(np):
        got = sorted(ev.get(r, []))
        if len(got) != 2 * len(wins[r]):
            sys.exit(f"rank {r}: {len(got)} {region} events, {len(wins[r])} windows")
        for i, (lo, hi) in enumerate(wins[r]):
            widths.append(hi - lo)
            at = (lo - start) / 1e9
            for g in got[2 * i:2 * i + 2]:
                err = max(lo - g, g - hi, 0)
                phase = "first" if at < 1.0 else "rest"
                if err > worst[phase][0]:
                    worst[phase] = (err, r, at)
                b = next(k for k, edge in enumerate(BINS) if at < edge)
                bins[b] = max(bins[b], err)
    widths.sort()
    for phase, (err, r, at) in worst.items():
        where = f" (rank {r}, {at:.3f} s)" if r >= 0 else ""
        print(f"  worst error {'in the first second' if phase == 'first' else 'after it'}: {err} ns{where}",
              file=sys.stderr)
    edges = ["<%gs" % e if e != float("inf") else "later" for e in BINS]
    print("  by time: " + " ".join(f"{e}:{v}" for e, v in zip(edges, bins)), file=sys.stderr)
    print(f"  {len(widths)} windows, median width {widths[len(widths) // 2]} ns", file=sys.stderr)
    print(f"WORST {max(v[0] for v in worst.values())} FIRST {worst['first'][0]} REST {worst['rest'][0]}")
    sys.exit(0 if max(v[0] for v in worst.values()) <= limit else 1)


main()
