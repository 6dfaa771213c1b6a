#!/usr/bin/env python3
"""sync_points.py — every rank's sync points (archive property sync.epoch.N) against the truth.

Usage: SKEW_...=... sync_points.py LIBSKEW TRACE_DIR RANKS_PER_NODE

The SKEW_* variables must be those of the traced run (seed, offsets, drift, wander, T0).
A sync point (L, G) of rank r says: when r's local clock read L, rank 0's read G. The
skew library knows both clocks: the true instant t with L = t + delta(node(r), t) and the
right G = t + delta(node(0), t). Prints, per kind of sync point (init, resync, final),
the largest |G - right G| over ranks and points, in ns; unmeasured points are skipped.
Then `outside_bound=N`: measured points whose error exceeds the bound the archive records for
them (err_ns, what the exact SKaMPI bounds leave open) by more than 200 ns (the bounds hold at
the measurement; the point lies up to a few ms away, on a drift known to a few ppm).
"""
import ctypes
import re
import subprocess
import sys

EPOCH = re.compile(r'"MPI Rank (\d+)".*"SYNCTRACE::SYNC_EPOCH_\d+".*Value: "(\w+)( unmeasured)? local=(-?\d+) '
                   r'global=(-?\d+)[^"]*?(?: err_ns=(-?\d+))?"')


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.skew_delta_ns.restype = ctypes.c_int64
    lib.skew_delta_ns.argtypes = [ctypes.c_int, ctypes.c_uint64]
    per_node = int(sys.argv[3])
    defs = subprocess.run(["otf2-print", "-G", sys.argv[2] + "/traces.otf2"], capture_output=True, text=True,
                          check=True).stdout
    worst = {"init": 0, "resync": 0, "final": 0}
    outside = 0
    for m in EPOCH.finditer(defs):
        rank, kind, unmeasured, L, G = int(m[1]), m[2], m[3], int(m[4]), int(m[5])
        if unmeasured or kind not in worst:
            continue
        t = L
        for _ in range(4):  # delta changes by ppm: a few fixed-point steps are exact to the ns
            t = L - lib.skew_delta_ns(rank // per_node, t)
        err = abs(G - (t + lib.skew_delta_ns(0, t)))
        worst[kind] = max(worst[kind], err)
        bound = int(m[6]) if m[6] is not None else -1
        if bound >= 0 and err > bound + 200:
            print(f"rank {rank} {kind} point at local {L}: {err} ns off, bound {bound} ns", file=sys.stderr)
            outside += 1
    print(" ".join(f"{k}={v}" for k, v in worst.items()) + f" outside_bound={outside}")


main()
