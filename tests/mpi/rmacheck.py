#!/usr/bin/env python3
"""rmacheck.py — the one-sided records of rma.c's trace, read with python3-otf2 (t_rma.sh).

Usage: rmacheck.py ARCHIVE_DIR NRANKS ITERS

For every rank (its master location): the exact sequence of RmaPut/RmaGet/RmaAtomic records
(window, target as a rank of the window's communicator, bytes, atomic type), in issue order, as
rma.c issues them; every operation completed at the target (RmaOpCompleteRemote) exactly once,
after it, on the same location and window; the request-based ones also at the origin
(RmaOpCompleteNonBlocking) exactly once; the windows' communicators; and the count of every other
Rma* record; the groups of the RmaGroupSync records: an even rank's MPI_Win_post names the odd
ranks, an odd rank's MPI_Win_start the even ones, complete and wait none; the notes of post -> start
(RmaSync NOTIFY_OUT to each odd rank on an even one, NOTIFY_IN from each even rank on an odd one; none
in the second epoch, with MPI_MODE_NOCHECK); the lock tickets (RmaAcquireLock's lock id): at each
target 1, 2, ... once each over all ranks. Prints one line per rank;
exits 1 with the first differences.
"""
import sys
from collections import Counter

import otf2
from otf2.enums import RmaAtomicType as AT
from otf2.enums import RmaSyncType as ST


def expected_ops(r, n, iters):
    """(window, target, kind, sent, received, atomic type, request-based) of rank r, in issue order."""
    right, left, far = (r + 1) % n, (r + n - 1) % n, (r + 2) % n
    evens = [t for t in (0, 2) if t < n]
    ops = [("A", right, "put", 16, 0, None, False), ("A", left, "get", 0, 8, None, False),
           ("A", 0, "atomic", 12, 0, AT.ACCUMULATE, False)]
    if r % 2:
        ops += [("B", t, "put", 4, 0, None, False) for t in evens]
        ops += [("B", 0, "atomic", 4, 4, AT.FETCH_AND_ACCUMULATE, False)]
    ops += [("A", right, "atomic", 8, 4, AT.COMPARE_AND_SWAP, False),
            ("A", right, "atomic", 8, 8, AT.FETCH_AND_ACCUMULATE, False),
            ("A", right, "put", 20, 0, None, True), ("A", far, "get", 0, 24, None, True),
            ("A", 0, "atomic", 4, 0, AT.ACCUMULATE, True), ("A", 0, "atomic", 0, 4, AT.FETCH_AND_ACCUMULATE, True)]
    ops += [("G", (r + i) % n, "atomic", 8, 0, AT.ACCUMULATE, False) for i in range(iters)]
    return ops


def expected_counts(r, n, iters):
    # RmaSync: MPI_Win_sync's, and the post's notes (an even rank's, one per odd rank) or the start's
    # (an odd rank's, one per even rank)
    notes = n // 2 if r % 2 == 0 else (n + 1) // 2
    return {"RmaWinCreate": 5, "RmaWinDestroy": 5, "RmaCollectiveBegin": 12, "RmaCollectiveEnd": 12,
            "RmaGroupSync": 4, "RmaRequestLock": 4, "RmaReleaseLock": 4, "RmaSync": 1 + notes,
            "RmaAcquireLock": 2 + 2 * n,
            "RmaOpCompleteNonBlocking": 4}


def window_names(wins):
    """Window definitions -> rma.c's letters: A, G, Y are MPI_COMM_WORLD's windows 0, 1, 2; B the
    dup's window 0, S the node communicator's."""
    out, world = {}, []
    for w in wins:
        if w.comm.name == "MPI_COMM_WORLD":
            world.append(w)
    world.sort(key=lambda w: w._ref)
    for w, letter in zip(world, "AGY"):
        out[w._ref] = letter
    def created(w):  # "Comm N": the communicator's creation index (the dup before the node communicator)
        tail = w.comm.name.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 1 << 30
    others = sorted((w for w in wins if w.comm.name != "MPI_COMM_WORLD"), key=created)
    for w in others:  # B on the dup, S on the node communicator (the same members on one host)
        out[w._ref] = "B" if "B" not in out.values() else "S"
    return out


def main():
    path, n, iters = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    bad = []
    with otf2.reader.open(path + "/traces.otf2") as trace:
        wins = list(trace.definitions.rma_wins)
        if len(wins) != 5:
            bad.append(f"{len(wins)} RmaWin definitions, expected 5")
        letter = window_names(wins)
        per_loc = {}
        for loc, ev in trace.events:
            per_loc.setdefault(loc, []).append(ev)
    tickets = {}  # target -> the lock ids (tickets) of every rank's RmaAcquireLock there
    for loc, evs in per_loc.items():
        for e in evs:
            if type(e).__name__ == "RmaAcquireLock":
                tickets.setdefault(e.remote, []).append(e.lock_id)
    for t in range(n):  # at each target: its epochs from the left (exclusive), both lock_all, its own
        if sorted(tickets.get(t, [])) != list(range(1, 2 * n + 3)):
            bad.append(f"target {t}: tickets {sorted(tickets.get(t, []))}, expected 1 .. {2 * n + 2}")
    by_rank = {}
    for loc, evs in per_loc.items():
        rank = loc.group._ref
        if rank in by_rank:
            bad.append(f"rank {rank}: RMA records on two locations")
        if any(type(e).__name__.startswith("Rma") for e in evs) or rank not in by_rank:
            by_rank[rank] = evs
    for r in range(n):
        evs = by_rank.get(r, [])
        rma = [e for e in evs if type(e).__name__.startswith("Rma")]
        counts = Counter(type(e).__name__ for e in rma)
        got_ops, issued, remote, local = [], {}, Counter(), Counter()
        for i, e in enumerate(rma):
            name = type(e).__name__
            if name in ("RmaPut", "RmaGet", "RmaAtomic"):
                w = letter.get(e.win._ref, "?")
                kind = name[3:].lower()
                sent = e.bytes if name == "RmaPut" else e.bytes_sent if name == "RmaAtomic" else 0
                recv = e.bytes if name == "RmaGet" else e.bytes_received if name == "RmaAtomic" else 0
                got_ops.append((w, e.remote, kind, sent, recv, e.type if name == "RmaAtomic" else None))
                key = (e.win._ref, e.matching_id)
                if key in issued and key not in remote:
                    bad.append(f"rank {r}: matching id {e.matching_id} reused before its completion")
                issued[key] = i
            elif name in ("RmaOpCompleteRemote", "RmaOpCompleteNonBlocking"):
                key = (e.win._ref, e.matching_id)
                if key not in issued:
                    bad.append(f"rank {r}: {name} of id {e.matching_id} before or without its operation")
                (remote if name == "RmaOpCompleteRemote" else local)[key] += 1
        groups = [sorted(m.group._ref for m in e.group.members) if e.group is not None else None
                  for e in rma if type(e).__name__ == "RmaGroupSync"]
        other = [t for t in range(n) if t % 2 != r % 2]
        if groups != [other, None, other, None]:
            bad.append(f"rank {r}: RmaGroupSync groups {groups}, expected {[other, None, other, None]}")
        # the notes of post -> start: NOTIFY_OUT to each origin (even ranks), NOTIFY_IN from each target (odd)
        kind = str(ST.NOTIFY_OUT if r % 2 == 0 else ST.NOTIFY_IN)
        notes = sorted((str(e.sync_type), e.remote) for e in rma
                       if type(e).__name__ == "RmaSync" and e.sync_type != ST.MEMORY)
        if notes != [(kind, t) for t in other]:
            bad.append(f"rank {r}: RmaSync notes {notes}, expected {[(kind, t) for t in other]}")
        want = expected_ops(r, n, iters)
        if got_ops != [w[:6] for w in want]:
            diff = next((i for i, (a, b) in enumerate(zip(got_ops, want)) if a != b[:6]), min(len(got_ops), len(want)))
            bad.append(f"rank {r}: operations differ at #{diff} of {len(want)} (got {len(got_ops)}): "
                       f"got {got_ops[diff] if diff < len(got_ops) else None}, expected {want[diff][:6] if diff < len(want) else None}")
        if any(v != 1 for v in remote.values()) or len(remote) != len(issued):
            bad.append(f"rank {r}: {len(issued)} operations, {len(remote)} completed at the target, "
                       f"{sum(1 for v in remote.values() if v != 1)} more than once")
        wl = sum(1 for w in want if w[6])
        if len(local) != wl or any(v != 1 for v in local.values()):
            bad.append(f"rank {r}: {len(local)} operations completed at the origin, expected {wl}")
        want_counts = dict(expected_counts(r, n, iters))
        want_counts["RmaOpCompleteRemote"] = len(want)
        for k, v in want_counts.items():
            if counts.get(k, 0) != v:
                bad.append(f"rank {r}: {counts.get(k, 0)} {k}, expected {v}")
        print(f"  rank {r}: {len(got_ops)} operations, {sum(remote.values())} remote and {sum(local.values())} "
              f"origin completions, {sum(counts.values())} RMA records", file=sys.stderr)
    for b in bad[:12]:
        print("  " + b, file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
