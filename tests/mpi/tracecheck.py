#!/usr/bin/env python3
"""tracecheck.py — exact event-count checks for the MPI test programs in tests/mpi/.

Reads `synctrace dump --json DIR` output (one JSON object per line) and compares it
with what the test program does. For every program there is a model below that
lists, per rank, every MPI call it makes and every event that call must record:

  * enter/leave of each MPI region, keyed (rank, type, region);
  * message events (send, isend, recv, irecv) keyed additionally by peer (WORLD
    rank), tag and bytes; events on MPI_PROC_NULL (no peer) are "send(procnull)" etc.;
  * collective ends (coll_end, icoll_complete) keyed additionally by root (WORLD rank);
  * every other event keyed by its type and the innermost MPI region around it.

Counts must be equal; a few entries are "optional" (all or nothing), for calls the
shim may legitimately not wrap (MPI_Comm_rank, MPI_Get_count, ...) and for events
on MPI_PROC_NULL, which the shim may record without a peer or not at all.
Events inside MPI_Init*/MPI_Finalize and inside tool regions (not MPI_*) are the
tool's own and are not counted here, except TRACE BUFFER FLUSH (see `flush`).

Usage:
  tracecheck.py counts PROG DUMP NP COUNTPREFIX [PROGRAM ARGS...]
  tracecheck.py messages PROG NP [PROGRAM ARGS...]     expected messages, collective instances
  tracecheck.py flush DUMP CAP [any|behind]           FLUSH pairs per location: at most its hand-offs (behind: nearly all)
  tracecheck.py callsite DUMP SRC [N]                  call sites of MPI calls in SRC
  tracecheck.py ring DUMP NP ROUNDS MODE              ring sends/recvs per rank (MODE: exact|atleast|present)
  tracecheck.py summary DUMP                           per rank: events, sends, recvs
Exit status 0 when everything matches, 1 with one line per difference otherwise.
"""
import collections
import json
import os
import re
import sys

MSG_TYPES = ("send", "isend", "recv", "irecv")
COLL_END_TYPES = ("coll_end", "icoll_complete")
IGNORED_REGIONS = ("MPI_Init", "MPI_Init_thread", "MPI_Finalize")
FLUSH_REGION = "TRACE BUFFER FLUSH"
# Records the archive has besides the recorded events (the writer's, not the buffer's).
NOT_RECORDED = ("program_begin", "program_end", "measurement_on_off", "buffer_flush")


def load(path):
    events = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                events.append(json.loads(line))
            except ValueError as e:
                sys.exit("%s:%d: not JSON (%s): %.200s" % (path, n, e, line))
    return events


def _peer(v):
    return v if isinstance(v, int) and v >= 0 else None


def event_key(ev, region):
    """The key an event is counted under; region is its own (enter/leave) or the innermost MPI one."""
    t = ev.get("type")
    if t in MSG_TYPES:
        peer = _peer(ev.get("peer"))
        if peer is None:
            return (t + "(procnull)", region)
        return (t, region, peer, ev.get("tag"), ev.get("bytes"))
    if t in COLL_END_TYPES:
        return (t, region, _peer(ev.get("root")))
    return (t, region)


def histogram(events):
    """Counter {(rank,) + key: n} of the application's MPI events (see module doc)."""
    hist = collections.Counter()
    stacks = collections.defaultdict(list)
    for ev in events:
        stack = stacks[(ev.get("rank"), ev.get("thread"))]
        t = ev.get("type") or ""
        if t in NOT_RECORDED:
            continue
        if t in ("enter", "leave"):
            region = ev.get("region") or ""
            inside = stack + [region]
            if t == "enter":
                stack.append(region)
            elif region in stack:  # pop to the matching enter; a mismatch shows in the counts
                del stack[len(stack) - 1 - stack[::-1].index(region):]
            if not region.startswith("MPI_"):
                continue
        else:
            # innermost region, ignoring the user's "main" that may enclose the whole run
            inner = [r for r in stack if r != "main"]
            region = inner[-1] if inner else None
            if region is not None and not region.startswith("MPI_"):
                continue  # the tool's own event
            inside = stack
        if t.startswith("omp_") or any(r in IGNORED_REGIONS for r in inside):
            continue
        hist[(ev.get("rank"),) + event_key(ev, region)] += 1
    return hist


class Expect:
    """Expected counts: {(rank,) + key: n}, plus keys that are all-or-nothing."""

    def __init__(self):
        self.n = collections.Counter()
        self.optional = set()
        self.messages = 0
        self.colls = [0, 0]  # collective instances in the whole job: at least, at most
        self.only = None  # set of regions: counts in any other region are not compared (shown)

    def instances(self, n, optional=0):
        """n collective instances (each counted once for the job), plus up to optional more."""
        self.colls[0] += n
        self.colls[1] += n + optional

    def add(self, rank, key, n=1, optional=False):
        self.n[(rank,) + key] += n
        if optional:
            self.optional.add((rank,) + key)

    def call(self, rank, region, n=1, optional=False):
        self.add(rank, ("enter", region), n, optional)
        self.add(rank, ("leave", region), n, optional)

    def ev(self, rank, t, region, n=1, optional=False):
        self.add(rank, (t, region), n, optional)

    def msg(self, rank, t, region, peer, tag, nbytes, n=1):
        self.add(rank, (t, region, peer, tag, nbytes), n)
        if t in ("send", "isend"):
            self.messages += n

    def procnull(self, rank, t, region, n=1):
        self.add(rank, (t + "(procnull)", region), n, optional=True)

    def coll(self, rank, region, root=None, n=1):
        """Blocking collective: enter, coll_begin, coll_end, leave."""
        self.call(rank, region, n)
        self.ev(rank, "coll_begin", region, n)
        self.add(rank, ("coll_end", region, root), n)

    def compare(self, hist):
        diffs = []
        for k in sorted(set(self.n) | set(hist), key=repr):
            want, got = self.n.get(k, 0), hist.get(k, 0)
            if want == got or (k in self.optional and got == 0):
                continue
            what = "rank %s %s" % (k[0], " ".join(str(x) for x in k[1:]))
            diffs.append("%s: expected %s%d, trace has %d" % (what, "0 or " if k in self.optional else "", want, got))
        return diffs


def read_counts(prefix, rank):
    """Counter of timing-dependent calls written by the program (st_test.h, -c FILE)."""
    c = collections.Counter()
    path = "%s.%d" % (prefix, rank)
    if prefix and os.path.exists(path):
        with open(path) as f:
            for line in f:
                name, n = line.split()
                c[name] = int(n)
    return c


def common(e, r, reports):
    e.call(r, "MPI_Comm_rank", optional=True)
    e.call(r, "MPI_Comm_size", optional=True)
    e.coll(r, "MPI_Gather", root=0, n=reports)


# ---- program models ---------------------------------------------------------------------
# Each mirrors the program's header comment; keep them in step with the C sources.

def model_p2p(np_, counts, args):
    rounds = int(args[0]) if args else 10
    e = Expect()
    I64 = 8
    for r in range(np_):
        left, right = (r - 1) % np_, (r + 1) % np_
        c = counts(r)
        common(e, r, reports=9)
        # ring and zero-byte ring (ring_step)
        for n, tag, nbytes in ((rounds, 1, I64), (3, 2, 0)):
            e.call(r, "MPI_Send", n)
            e.msg(r, "send", "MPI_Send", right, tag, nbytes, n)
            e.call(r, "MPI_Recv", n)
            e.msg(r, "recv", "MPI_Recv", left, tag, nbytes, n)
        # any source, 5 messages per rank > 0, then a barrier
        if r == 0:
            e.call(r, "MPI_Recv", 5 * (np_ - 1))
            for src in range(1, np_):
                for k in range(5):
                    e.msg(r, "recv", "MPI_Recv", src, 10 + k, 8)
        else:
            e.call(r, "MPI_Send", 5)
            for k in range(5):
                e.msg(r, "send", "MPI_Send", 0, 10 + k, 8)
        e.coll(r, "MPI_Barrier")
        # Sendrecv shift x4, then the non-periodic shift with MPI_PROC_NULL at the ends
        e.call(r, "MPI_Sendrecv", 5)
        e.msg(r, "send", "MPI_Sendrecv", right, 3, I64, 4)
        e.msg(r, "recv", "MPI_Sendrecv", left, 3, I64, 4)
        if r + 1 < np_:
            e.msg(r, "send", "MPI_Sendrecv", r + 1, 4, I64)
        else:
            e.procnull(r, "send", "MPI_Sendrecv")
        if r > 0:
            e.msg(r, "recv", "MPI_Sendrecv", r - 1, 4, I64)
        else:
            e.procnull(r, "recv", "MPI_Sendrecv")
        e.call(r, "MPI_Send")
        e.procnull(r, "send", "MPI_Send")
        e.call(r, "MPI_Recv")
        e.procnull(r, "recv", "MPI_Recv")
        e.call(r, "MPI_Get_count", 3, optional=True)
        # probe, iprobe, mprobe, improbe: one message to the right each
        e.call(r, "MPI_Send", 4)
        e.msg(r, "send", "MPI_Send", right, 5, 4 * 3 * (r + 1))
        e.msg(r, "send", "MPI_Send", right, 6, I64)
        e.msg(r, "send", "MPI_Send", right, 7, 4 * (r + 2))
        e.msg(r, "send", "MPI_Send", right, 8, I64)
        e.call(r, "MPI_Probe")
        e.call(r, "MPI_Recv", 2)
        e.msg(r, "recv", "MPI_Recv", left, 5, 4 * 3 * (left + 1))
        e.call(r, "MPI_Iprobe", c["MPI_Iprobe"])
        e.msg(r, "recv", "MPI_Recv", left, 6, I64)
        e.call(r, "MPI_Mprobe")
        e.call(r, "MPI_Mrecv")
        e.msg(r, "recv", "MPI_Mrecv", left, 7, 4 * (left + 2))
        e.call(r, "MPI_Improbe", c["MPI_Improbe"])
        e.call(r, "MPI_Imrecv")
        e.ev(r, "irecv_request", "MPI_Imrecv")
        e.call(r, "MPI_Wait")
        e.msg(r, "irecv", "MPI_Wait", left, 8, I64)
    e.instances(9 + 1)  # reports (MPI_Gather), MPI_Barrier
    return e


def model_nonblock(np_, counts, args):
    rounds = int(args[0]) if args else 5
    e = Expect()
    for r in range(np_):
        left, right = (r - 1) % np_, (r + 1) % np_
        c = counts(r)
        common(e, r, reports=8)
        # waitall: 2 Irecv, 2 Isend, Waitall per round
        e.call(r, "MPI_Irecv", 2 * rounds)
        e.ev(r, "irecv_request", "MPI_Irecv", 2 * rounds)
        e.call(r, "MPI_Isend", 2 * rounds)
        e.msg(r, "isend", "MPI_Isend", right, 1, 8, rounds)
        e.msg(r, "isend", "MPI_Isend", left, 2, 8, rounds)
        e.call(r, "MPI_Waitall", rounds)
        e.ev(r, "isend_complete", "MPI_Waitall", 2 * rounds)
        e.msg(r, "irecv", "MPI_Waitall", left, 1, 8, rounds)
        e.msg(r, "irecv", "MPI_Waitall", right, 2, 8, rounds)
        # waitany, waitsome (tags 30/31), testsome (tags 40/41)
        if r == 0:
            others = range(1, np_)
            e.call(r, "MPI_Irecv", 3 * (np_ - 1))
            e.ev(r, "irecv_request", "MPI_Irecv", 3 * (np_ - 1))
            e.call(r, "MPI_Waitany", np_ - 1)
            e.call(r, "MPI_Waitsome", np_ - 1)
            e.call(r, "MPI_Testsome", c["MPI_Testsome"])
            e.call(r, "MPI_Send", 2 * (np_ - 1))
            for s in others:
                e.msg(r, "irecv", "MPI_Waitany", s, 20, 8)
                e.msg(r, "irecv", "MPI_Waitsome", s, 30, 8)
                e.msg(r, "irecv", "MPI_Testsome", s, 40, 8)
                e.msg(r, "send", "MPI_Send", s, 31, 4)
                e.msg(r, "send", "MPI_Send", s, 41, 4)
        else:
            e.call(r, "MPI_Send", 3)
            e.msg(r, "send", "MPI_Send", 0, 20, 8)
            e.msg(r, "send", "MPI_Send", 0, 30, 8)
            e.msg(r, "send", "MPI_Send", 0, 40, 8)
            e.call(r, "MPI_Recv", 2)
            e.msg(r, "recv", "MPI_Recv", 0, 31, 4)
            e.msg(r, "recv", "MPI_Recv", 0, 41, 4)
        # test: Irecv + Isend, MPI_Test loop on the receive, MPI_Wait on the send
        e.call(r, "MPI_Irecv")
        e.ev(r, "irecv_request", "MPI_Irecv")
        e.call(r, "MPI_Isend")
        e.msg(r, "isend", "MPI_Isend", right, 50, 8)
        e.call(r, "MPI_Test", c["MPI_Test"])
        e.msg(r, "irecv", "MPI_Test", left, 50, 8)
        e.call(r, "MPI_Wait")
        e.ev(r, "isend_complete", "MPI_Wait")
        # persistent
        e.call(r, "MPI_Recv_init", 2)
        e.call(r, "MPI_Send_init", 2)
        e.call(r, "MPI_Startall", rounds)
        e.ev(r, "irecv_request", "MPI_Startall", rounds)
        e.msg(r, "isend", "MPI_Startall", right, 60, 8, rounds)
        e.call(r, "MPI_Waitall", rounds)
        e.ev(r, "isend_complete", "MPI_Waitall", rounds)
        e.msg(r, "irecv", "MPI_Waitall", left, 60, 8, rounds)
        e.call(r, "MPI_Start", 2 * rounds)
        e.ev(r, "irecv_request", "MPI_Start", rounds)
        e.msg(r, "isend", "MPI_Start", right, 61, 8, rounds)
        e.call(r, "MPI_Wait", 2 * rounds)
        e.ev(r, "isend_complete", "MPI_Wait", rounds)
        e.msg(r, "irecv", "MPI_Wait", left, 61, 8, rounds)
        e.call(r, "MPI_Request_free", 4)
        # cancel
        e.call(r, "MPI_Irecv")
        e.ev(r, "irecv_request", "MPI_Irecv")
        e.call(r, "MPI_Cancel")
        e.call(r, "MPI_Wait")
        e.ev(r, "cancelled", "MPI_Wait")
        e.call(r, "MPI_Test_cancelled", optional=True)
        # wildcard
        if r == 0:
            e.call(r, "MPI_Irecv", np_ - 1)
            e.ev(r, "irecv_request", "MPI_Irecv", np_ - 1)
            e.call(r, "MPI_Waitall")
            for s in range(1, np_):
                e.msg(r, "irecv", "MPI_Waitall", s, 70 + s, 8)
        else:
            e.call(r, "MPI_Send")
            e.msg(r, "send", "MPI_Send", 0, 70 + r, 8)
        e.coll(r, "MPI_Barrier")
    e.instances(8 + 1)  # reports (MPI_Gather), MPI_Barrier
    return e


def model_coll(np_, counts, args):
    rounds = int(args[0]) if args else 3
    e = Expect()
    for r in range(np_):
        c = counts(r)
        members = [w for w in range(np_) if w % 2 == r % 2]
        i, n = members.index(r), len(members)
        common(e, r, reports=3)
        e.call(r, "MPI_Comm_split")
        e.ev(r, "coll_begin", "MPI_Comm_split", optional=True)
        e.add(r, ("coll_end", "MPI_Comm_split", None), optional=True)
        e.call(r, "MPI_Comm_rank", optional=True)
        e.call(r, "MPI_Comm_size", optional=True)
        for region, root in (("MPI_Bcast", members[0]), ("MPI_Reduce", members[-1]), ("MPI_Allreduce", None),
                             ("MPI_Gatherv", members[0]), ("MPI_Alltoall", None), ("MPI_Scan", None),
                             ("MPI_Exscan", None), ("MPI_Barrier", None)):
            e.coll(r, region, root, rounds)
        e.call(r, "MPI_Sendrecv")
        e.msg(r, "send", "MPI_Sendrecv", members[(i + 1) % n], 9, 8)
        e.msg(r, "recv", "MPI_Sendrecv", members[(i - 1) % n], 9, 8)
        for region in ("MPI_Ibcast", "MPI_Iallreduce", "MPI_Ibarrier", "MPI_Ialltoall", "MPI_Ireduce"):
            e.call(r, region)
            e.ev(r, "icoll_request", region)
        e.call(r, "MPI_Waitall")
        e.add(r, ("icoll_complete", "MPI_Waitall", members[0]))
        e.add(r, ("icoll_complete", "MPI_Waitall", None), 2)
        e.call(r, "MPI_Wait")
        e.add(r, ("icoll_complete", "MPI_Wait", None))
        e.call(r, "MPI_Test", c["MPI_Test"])
        e.add(r, ("icoll_complete", "MPI_Test", 0))
        e.call(r, "MPI_Comm_free")
        e.ev(r, "coll_begin", "MPI_Comm_free", optional=True)
        e.add(r, ("coll_end", "MPI_Comm_free", None), optional=True)
    nsub = min(np_, 2)
    # reports, 8 blocking + 3 nonblocking per sub-communicator, Ialltoall + Ireduce on world;
    # MPI_Comm_split and MPI_Comm_free may count as collectives too
    e.instances(3 + nsub * (8 * rounds + 3) + 2, optional=1 + nsub)
    return e


def model_fring(np_, counts, args):
    rounds = 10
    e = Expect()
    for r in range(np_):
        left, right = (r - 1) % np_, (r + 1) % np_
        e.call(r, "MPI_Comm_rank", optional=True)
        e.call(r, "MPI_Comm_size", optional=True)
        e.call(r, "MPI_Send", rounds)
        e.msg(r, "send", "MPI_Send", right, 1, 4, rounds)
        e.call(r, "MPI_Recv", rounds)
        e.msg(r, "recv", "MPI_Recv", left, 1, 4, rounds)
        e.call(r, "MPI_Irecv")
        e.ev(r, "irecv_request", "MPI_Irecv")
        e.call(r, "MPI_Isend")
        e.msg(r, "isend", "MPI_Isend", right, 2, 4)
        e.call(r, "MPI_Waitall")
        e.ev(r, "isend_complete", "MPI_Waitall")
        e.msg(r, "irecv", "MPI_Waitall", left, 2, 4)
        e.coll(r, "MPI_Allreduce")
        e.coll(r, "MPI_Bcast", root=0)
        e.coll(r, "MPI_Barrier")
        e.coll(r, "MPI_Reduce", root=0)
    e.instances(4)
    return e


def model_pingpong(np_, counts, args):
    """tests/bench/pingpong.c: pingpong ITERS8 ITERS64K [BATCHES] (ranks 0 and 1 ping-pong)."""
    nb = int(args[2]) if len(args) > 2 else 21
    it8, it64 = int(args[0]) - int(args[0]) % nb, int(args[1]) - int(args[1]) % nb
    e = Expect()
    for r in range(np_):
        e.call(r, "MPI_Comm_rank", optional=True)
        e.call(r, "MPI_Comm_size", optional=True)
        e.coll(r, "MPI_Barrier", n=2)
        if r > 1:
            continue
        for iters, nbytes in ((it8, 8), (it64, 65536)):
            e.call(r, "MPI_Send", iters)
            e.msg(r, "send", "MPI_Send", 1 - r, 1, nbytes, iters)
            e.call(r, "MPI_Recv", iters)
            e.msg(r, "recv", "MPI_Recv", 1 - r, 1, nbytes, iters)
    e.instances(2)
    return e


def model_burst(np_, counts, args):
    bursts = int(args[0]) if args else 25
    k = int(args[1]) if len(args) > 1 else 32
    e = Expect()
    for r in range(np_):
        left, right = (r - 1) % np_, (r + 1) % np_
        common(e, r, reports=1)
        e.call(r, "MPI_Irecv", bursts * k)
        e.ev(r, "irecv_request", "MPI_Irecv", bursts * k)
        e.call(r, "MPI_Isend", bursts * k)
        e.call(r, "MPI_Waitall", bursts)
        e.ev(r, "isend_complete", "MPI_Waitall", bursts * k)
        for tag in range(k):
            e.msg(r, "isend", "MPI_Isend", right, tag, 8, bursts)
            e.msg(r, "irecv", "MPI_Waitall", left, tag, 8, bursts)
    e.instances(1)
    return e


def model_inter(np_, counts, args):
    """tests/mpi/inter.c: groups A (even ranks) and B (odd ranks) joined by an intercommunicator."""
    e = Expect()
    groups = [list(range(0, np_, 2)), list(range(1, np_, 2))]
    I64 = 8

    def created(r, region, n=1):  # communicator creation/destruction: a CREATE/DESTROY_HANDLE collective
        e.coll(r, region, None, n)

    for r in range(np_):
        b = r % 2
        own, remote = groups[b], groups[1 - b]
        lr, ls, rs = own.index(r), len(own), len(remote)

        def root(root_b, root_lr):
            """Recorded root: the root itself names itself, the rest of its group none, the other group the root."""
            if b == root_b:
                return r if lr == root_lr else None
            return groups[root_b][root_lr]

        common(e, r, reports=4)
        e.call(r, "MPI_Comm_rank", 2, optional=True)  # of inter and merged (world's in common)
        e.call(r, "MPI_Comm_size", optional=True)  # of inter
        e.call(r, "MPI_Comm_remote_size", optional=True)
        created(r, "MPI_Comm_split")
        created(r, "MPI_Intercomm_create")
        # p2p
        e.call(r, "MPI_Isend", rs)
        e.call(r, "MPI_Recv", rs)
        e.call(r, "MPI_Irecv", rs)
        e.ev(r, "irecv_request", "MPI_Irecv", rs)
        e.call(r, "MPI_Send", rs)
        e.call(r, "MPI_Waitall", 3)
        e.ev(r, "isend_complete", "MPI_Waitall", rs)
        for j in remote:
            e.msg(r, "isend", "MPI_Isend", j, 1, I64)
            e.msg(r, "recv", "MPI_Recv", j, 1, I64)
            e.msg(r, "send", "MPI_Send", j, 2, I64)
            e.msg(r, "irecv", "MPI_Waitall", j, 2, I64)
        if lr < min(ls, rs):
            e.call(r, "MPI_Sendrecv")
            e.msg(r, "send", "MPI_Sendrecv", remote[lr], 3, I64)
            e.msg(r, "recv", "MPI_Sendrecv", remote[lr], 3, I64)
        # collectives on the intercommunicator
        for region, rt in (("MPI_Bcast", root(0, 0)), ("MPI_Bcast", root(1, len(groups[1]) - 1)),
                           ("MPI_Reduce", root(1, 0)), ("MPI_Scatter", root(0, 0)), ("MPI_Gather", root(1, 0)),
                           ("MPI_Scatterv", root(1, 0)), ("MPI_Gatherv", root(0, 0)), ("MPI_Allreduce", None),
                           ("MPI_Allgather", None), ("MPI_Alltoall", None), ("MPI_Reduce_scatter", None),
                           ("MPI_Barrier", None)):
            e.coll(r, region, rt)
        for region in ("MPI_Ibcast", "MPI_Iallreduce"):
            e.call(r, region)
            e.ev(r, "icoll_request", region)
        e.add(r, ("icoll_complete", "MPI_Waitall", root(0, 0)))
        e.add(r, ("icoll_complete", "MPI_Waitall", None))
        # merge (A below B: merged rank 0 = world 0), dup
        created(r, "MPI_Intercomm_merge")
        e.coll(r, "MPI_Allreduce")
        e.coll(r, "MPI_Bcast", root=0)
        created(r, "MPI_Comm_dup")
        e.coll(r, "MPI_Allreduce")
        if lr == 0:
            e.call(r, "MPI_Sendrecv")
            e.msg(r, "send", "MPI_Sendrecv", remote[0], 4, 4)
            e.msg(r, "recv", "MPI_Sendrecv", remote[0], 4, 4)
        created(r, "MPI_Comm_free", 4)
    # reports 4; split 1; Intercomm_create 2 (one per group); on inter 12 blocking + 2 nonblocking,
    # merge, dup, free; on merged 2 + free; on dup 1 + free; free of the two halves 2
    e.instances(4 + 1 + 2 + 14 + 3 + 3 + 2 + 2)
    return e


def model_commsel(np_, counts, args):
    """tests/mpi/commsel.c: the same traffic on world, a dup, a split, a reversed split, an intercommunicator."""
    e = Expect()
    groups = [list(range(0, np_, 2)), list(range(1, np_, 2))]
    for r in range(np_):
        b = r % 2
        own, remote = groups[b], groups[1 - b]
        common(e, r, reports=1)
        for region in ("MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_split", "MPI_Intercomm_create"):
            e.coll(r, region)
        e.coll(r, "MPI_Comm_free", n=4)
        e.call(r, "MPI_Comm_rank", 5, optional=True)
        e.call(r, "MPI_Comm_size", 5, optional=True)
        e.call(r, "MPI_Comm_remote_size", optional=True)
        e.call(r, "MPI_Isend", 5)
        e.call(r, "MPI_Wait", 5)
        e.ev(r, "isend_complete", "MPI_Wait", 5)
        e.call(r, "MPI_Bcast", 5)
        e.ev(r, "coll_begin", "MPI_Bcast", 5)
        e.coll(r, "MPI_Allreduce", n=5)
        recvs = 0
        for tag, members in ((10, list(range(np_))), (11, list(range(np_))), (12, own),
                             (13, list(range(np_ - 1, -1, -1)))):
            i, n = members.index(r), len(members)
            e.msg(r, "isend", "MPI_Isend", members[(i + 1) % n], tag, 4)
            e.msg(r, "recv", "MPI_Recv", members[(i - 1) % n], tag, 4)
            recvs += 1
            e.add(r, ("coll_end", "MPI_Bcast", members[n - 1]))
            e.coll(r, "MPI_Gather", root=members[0])
            e.coll(r, "MPI_Barrier")
        lr, ls, rs = own.index(r), len(own), len(remote)
        e.msg(r, "isend", "MPI_Isend", remote[lr % rs], 14, 4)
        for j in range(lr, rs, ls):
            e.msg(r, "recv", "MPI_Recv", remote[j], 14, 4)
            recvs += 1
        e.add(r, ("coll_end", "MPI_Bcast", (r if lr == 0 else None) if b == 0 else groups[0][0]))
        e.call(r, "MPI_Recv", recvs)
    # report; dup, 2 splits (on world), Intercomm_create (one per group); world, dup, reversed:
    # 4 each; split: 4 per group; inter: 2; frees: inter, reversed, split (per group), dup
    e.instances(1 + 3 + 2 + 3 * 4 + 2 * 4 + 2 + 5)
    return e


def model_mpi4py(np_, counts, args):
    """ring4py.py ROUNDS under mpi4py: the calls the script makes. mpi4py's own calls around them
    (error handlers, MPI_Comm_rank, MPI_Type_get_extent, ... which differ between its versions) are
    not the script's: only the regions below are compared."""
    rounds = int(args[0]) if args else 10
    e = Expect()
    for r in range(np_):
        left, right = (r - 1) % np_, (r + 1) % np_
        e.call(r, "MPI_Send", rounds)
        e.msg(r, "send", "MPI_Send", right, 1, 8, rounds)
        e.call(r, "MPI_Recv", rounds)
        e.msg(r, "recv", "MPI_Recv", left, 1, 8, rounds)
        e.call(r, "MPI_Irecv")
        e.ev(r, "irecv_request", "MPI_Irecv")
        e.call(r, "MPI_Isend")
        e.msg(r, "isend", "MPI_Isend", right, 2, 16)
        e.call(r, "MPI_Waitall")
        e.ev(r, "isend_complete", "MPI_Waitall")
        e.msg(r, "irecv", "MPI_Waitall", left, 2, 16)
        e.coll(r, "MPI_Bcast", root=0)
        e.coll(r, "MPI_Allreduce")
        e.coll(r, "MPI_Reduce", root=1 % np_)
        e.coll(r, "MPI_Barrier")
    e.instances(4)
    e.only = {"MPI_Send", "MPI_Recv", "MPI_Irecv", "MPI_Isend", "MPI_Waitall",
              "MPI_Bcast", "MPI_Allreduce", "MPI_Reduce", "MPI_Barrier"}
    return e


MODELS = {"burst": model_burst, "p2p": model_p2p, "nonblock": model_nonblock, "coll": model_coll, "fring": model_fring,
          "pingpong": model_pingpong, "inter": model_inter,
          "commsel": model_commsel, "mpi4py": model_mpi4py}


# ---- commands ---------------------------------------------------------------------------

def cmd_counts(prog, dump, np_, prefix, args):
    e = MODELS[prog](np_, lambda r: read_counts(prefix, r), args)
    events = load(dump)
    hist = histogram(events)
    ranks = sorted({ev.get("rank") for ev in events})
    diffs = []
    if ranks != list(range(np_)):
        diffs.append("ranks in the trace: %s, expected 0..%d" % (ranks, np_ - 1))
    if e.only is not None:
        others = collections.Counter()
        for k, v in hist.items():
            if k[2] not in e.only and k[1] == "enter":
                others[k[2]] += v
        hist = collections.Counter({k: v for k, v in hist.items() if k[2] in e.only})
        if others:
            print("%s: not compared: %s" % (prog, ", ".join("%s x%d" % kv for kv in sorted(others.items()))),
                  file=sys.stderr)
    diffs += e.compare(hist)
    for d in diffs[:60]:
        print(d)
    if len(diffs) > 60:
        print("... %d more differences" % (len(diffs) - 60))
    print("%s: %d events, %d counted keys, %d differences" % (prog, len(events), len(e.n), len(diffs)),
          file=sys.stderr)
    return 1 if diffs else 0


def cmd_messages(prog, np_, args):
    """Prints "MESSAGES COLL_MIN COLL_MAX": point-to-point messages, collective instances."""
    e = MODELS[prog](np_, lambda r: collections.Counter(), args)
    print(e.messages, e.colls[0], e.colls[1])
    return 0


def cmd_flush(dump, cap, mode="any"):
    """A full buffer of cap events is handed to the writer thread; a thread that must wait
    for it (the writer fell behind) records the wait as a FLUSH enter/leave pair, the first
    two records of the next buffer. So every location's buffers hold cap events each, and its
    FLUSH pairs are at most its hand-offs: (app + 2 * pairs - 1) // cap. mode "behind" (a
    writer slowed down on purpose) also wants a pair at every hand-off but the first (the
    spare was free then), less at most one."""
    events = load(dump)
    per = collections.defaultdict(lambda: [0, 0, 0])  # app events, flush enters, flush leaves
    for ev in events:
        if ev.get("type") in NOT_RECORDED:
            continue
        p = per[(ev.get("rank"), ev.get("thread"))]
        if ev.get("region") == FLUSH_REGION and ev.get("type") in ("enter", "leave"):
            p[1 if ev["type"] == "enter" else 2] += 1
        else:
            p[0] += 1
    bad = 0
    for loc in sorted(per, key=repr):
        app, fe, fl = per[loc]
        handoffs = max(0, (app + 2 * fe - 1) // cap)
        ok = fe == fl and fe <= handoffs
        if mode == "behind" and handoffs >= 2:
            ok = ok and fe >= handoffs - 2
        bad += not ok
        print("rank %s thread %s: %d events, %d/%d FLUSH enter/leave, %d hand-offs%s"
              % (loc[0], loc[1], app, fe, fl, handoffs, "" if ok else "  <-- MISMATCH"))
    return 1 if bad or not per else 0


def cmd_callsite(dump, src, per_rank=None):
    """With SYNCTRACE_CALLSITE=1: every MPI call of the program (enter of an MPI_* region
    outside MPI_Init/Finalize) carries a call site naming SRC:LINE (or st_test.h:LINE, whose
    helpers call MPI_Gather). Calls on lines marked /* CALLSITE:... */ in SRC (p2p.c's
    ring_step) must name ring_step and their exact line; with per_rank, every rank has
    exactly that many such MPI_Send and MPI_Recv calls."""
    base = os.path.basename(src)
    marks = {}
    with open(src) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"(MPI_\w+)\(.*CALLSITE:([\w-]+)", line)
            if m:
                marks.setdefault(m.group(1), set()).add(n)
    events = load(dump)
    bad, ring, seen = [], collections.Counter(), 0
    for ev in events:
        region = ev.get("region") or ""
        if ev.get("type") != "enter" or not region.startswith("MPI_") or region in IGNORED_REGIONS:
            continue
        if region in ("MPI_Comm_rank", "MPI_Comm_size", "MPI_Get_count"):
            continue
        seen += 1
        cs = ev.get("callsite") or ""
        m = re.search(r"\b(%s|st_test\.h):(\d+)" % re.escape(base), cs)
        if not m:
            bad.append("rank %s %s: callsite %r does not name %s:LINE" % (ev.get("rank"), region, cs, base))
            continue
        if "ring_step" in cs:
            ring[(ev.get("rank"), region)] += 1
            if m.group(1) != base or int(m.group(2)) not in marks.get(region, ()):
                bad.append("rank %s %s: callsite %r, expected line %s" % (ev.get("rank"), region, cs,
                                                                        sorted(marks.get(region, ()))))
    if marks and not ring:
        bad.append("no call site names ring_step (markers on lines %s)" % sorted(set().union(*marks.values())))
    if per_rank is not None:
        for r in sorted({k[0] for k in ring} | {ev.get("rank") for ev in events}, key=repr):
            for region in ("MPI_Send", "MPI_Recv"):
                if ring.get((r, region), 0) != per_rank:
                    bad.append("rank %s: %d %s calls attributed to ring_step, expected %d"
                               % (r, ring.get((r, region), 0), region, per_rank))
    for d in bad[:20]:
        print(d)
    print("%d MPI calls with call sites checked, %d in ring_step: %s" % (seen, sum(ring.values()), dict(ring)),
          file=sys.stderr)
    if not seen:
        return 1
    return 1 if bad else 0


def cmd_ring(dump, np_, rounds, mode):
    """Runs cut short (MPI_Abort, SIGTERM: abort.c, spin.c): every rank that is in the trace
    has ROUNDS (exact) or at least ROUNDS (atleast, present) ring sends to its right
    neighbour and receives from its left one, tag 1; with atleast, every rank must be there."""
    events = load(dump)
    hist = histogram(events)
    ranks = sorted({ev.get("rank") for ev in events if isinstance(ev.get("rank"), int)})
    bad = []
    if mode == "atleast" and ranks != list(range(np_)):
        bad.append("ranks in the trace: %s, expected 0..%d" % (ranks, np_ - 1))
    for r in ranks:
        left, right = (r - 1) % np_, (r + 1) % np_
        sends = hist.get((r, "send", "MPI_Send", right, 1, 8), 0)
        recvs = hist.get((r, "recv", "MPI_Recv", left, 1, 8), 0)
        ok = (sends == rounds and recvs == rounds) if mode == "exact" else (sends >= rounds and recvs >= rounds)
        # a rank killed inside MPI_Send/MPI_Recv may miss its last receive (atleast/present)
        print("rank %d: %d ring sends, %d ring receives%s" % (r, sends, recvs, "" if ok else "  <-- expected %s %d"
                                                             % ("exactly" if mode == "exact" else "at least", rounds)))
        if not ok:
            bad.append(r)
    for b in bad:
        if isinstance(b, str):
            print(b)
    return 1 if bad or not ranks else 0


def cmd_summary(dump):
    events = load(dump)
    per = collections.defaultdict(collections.Counter)
    for ev in events:
        per[ev.get("rank")][ev.get("type")] += 1
        if ev.get("type") == "enter" and ev.get("region") == "MPI_Send":
            per[ev.get("rank")]["MPI_Send"] += 1
    for r in sorted(per, key=repr):
        print("rank %s: %s" % (r, " ".join("%s=%d" % kv for kv in sorted(per[r].items(), key=repr))))
    return 0


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd, a = argv[1], argv[2:]
    if cmd == "counts" and len(a) >= 4:
        return cmd_counts(a[0], a[1], int(a[2]), a[3], a[4:])
    if cmd == "messages" and len(a) >= 2:
        return cmd_messages(a[0], int(a[1]), a[2:])
    if cmd == "flush" and len(a) in (2, 3) and a[2:] in ([], ["any"], ["behind"]):
        return cmd_flush(a[0], int(a[1]), *a[2:])
    if cmd == "callsite" and len(a) in (2, 3):
        return cmd_callsite(a[0], a[1], int(a[2]) if len(a) == 3 else None)
    if cmd == "ring" and len(a) == 4 and a[3] in ("exact", "atleast", "present"):
        return cmd_ring(a[0], int(a[1]), int(a[2]), a[3])
    if cmd == "summary" and len(a) == 1:
        return cmd_summary(a[0])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
