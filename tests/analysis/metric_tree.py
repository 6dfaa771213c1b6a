"""metric_tree.py — what the metric tree of a synctrace analysis must look like, written down
independently of src/analysis/metrics.def (from Scalasca 2.6's metric tree, its
share/scout.spec.in), and the invariants its values must satisfy. Used by cubecheck.py (the
cube's metric tree) and anacheck.py (`tree`: the values of an analysis.json; `whole`: the whole
tree against the run, check_whole).
"""
import json
from collections import defaultdict

# uniq_name -> parent uniq_name (None: a root), Scalasca's unique names
TREE = {
    "time": None,
    "execution": "time",
    "comp": "execution",
    "mpi": "execution",
    "mpi_management": "mpi",
    "mpi_init_exit": "mpi_management",
    "mpi_init_completion": "mpi_init_exit",
    "mpi_finalize_wait": "mpi_init_exit",
    "mpi_mgmt_comm": "mpi_management",
    "mpi_mgmt_file": "mpi_management",
    "mpi_mgmt_win": "mpi_management",
    "mpi_rma_wait_at_create": "mpi_mgmt_win",
    "mpi_rma_wait_at_free": "mpi_mgmt_win",
    "mpi_synchronization": "mpi",
    "mpi_sync_collective": "mpi_synchronization",
    "mpi_barrier_wait": "mpi_sync_collective",
    "mpi_barrier_completion": "mpi_sync_collective",
    "mpi_rma_synchronization": "mpi_synchronization",
    "mpi_rma_sync_active": "mpi_rma_synchronization",
    "mpi_rma_sync_late_post": "mpi_rma_sync_active",
    "mpi_rma_early_wait": "mpi_rma_sync_active",
    "mpi_rma_late_complete": "mpi_rma_early_wait",
    "mpi_rma_wait_at_fence": "mpi_rma_sync_active",
    "mpi_rma_early_fence": "mpi_rma_wait_at_fence",
    "mpi_rma_sync_passive": "mpi_rma_synchronization",
    "mpi_rma_sync_lock_competition": "mpi_rma_sync_passive",
    "mpi_communication": "mpi",
    "mpi_point2point": "mpi_communication",
    "mpi_latesender": "mpi_point2point",
    "mpi_latesender_wo": "mpi_latesender",
    "mpi_lswo_different": "mpi_latesender_wo",
    "mpi_lswo_same": "mpi_latesender_wo",
    "mpi_latereceiver": "mpi_point2point",
    "mpi_collective": "mpi_communication",
    "mpi_earlyreduce": "mpi_collective",
    "mpi_earlyscan": "mpi_collective",
    "mpi_latebroadcast": "mpi_collective",
    "mpi_wait_nxn": "mpi_collective",
    "mpi_nxn_completion": "mpi_collective",
    "mpi_rma_communication": "mpi_communication",
    "mpi_rma_comm_late_post": "mpi_rma_communication",
    "mpi_rma_comm_lock_competition": "mpi_rma_communication",
    "mpi_io": "mpi",
    "mpi_io_individual": "mpi_io",
    "mpi_io_collective": "mpi_io",
    "omp_time": "execution",
    "omp_management": "omp_time",
    "omp_fork": "omp_management",
    "omp_synchronization": "omp_time",
    "omp_barrier": "omp_synchronization",
    "omp_ebarrier": "omp_barrier",
    "omp_ebarrier_wait": "omp_ebarrier",
    "omp_ibarrier": "omp_barrier",
    "omp_ibarrier_wait": "omp_ibarrier",
    "omp_critical": "omp_synchronization",
    "omp_lock_contention_critical": "omp_critical",
    "omp_lock_api": "omp_synchronization",
    "omp_lock_contention_api": "omp_lock_api",
    "omp_ordered": "omp_synchronization",
    "omp_taskwait": "omp_synchronization",
    "omp_flush": "omp_time",
    "overhead": "time",
    "omp_idle_threads": "time",
    "omp_limited_parallelism": "omp_idle_threads",
    "visits": None,
    # root causes: delay costs (each at the delaying activity), the classification of point-to-point
    # waits, the critical path and the performance impact derived from it
    "delay": None,
    "delay_mpi": "delay",
    "delay_p2p": "delay_mpi",
    "delay_latesender_aggregate": "delay_p2p",
    "delay_latesender": "delay_latesender_aggregate",
    "delay_latesender_longterm": "delay_latesender_aggregate",
    "delay_latereceiver_aggregate": "delay_p2p",
    "delay_latereceiver": "delay_latereceiver_aggregate",
    "delay_latereceiver_longterm": "delay_latereceiver_aggregate",
    "delay_collective": "delay_mpi",
    "delay_barrier_aggregate": "delay_collective",
    "delay_barrier": "delay_barrier_aggregate",
    "delay_barrier_longterm": "delay_barrier_aggregate",
    "delay_n2n_aggregate": "delay_collective",
    "delay_n2n": "delay_n2n_aggregate",
    "delay_n2n_longterm": "delay_n2n_aggregate",
    "delay_12n_aggregate": "delay_collective",
    "delay_12n": "delay_12n_aggregate",
    "delay_12n_longterm": "delay_12n_aggregate",
    "delay_n21_aggregate": "delay_collective",
    "delay_n21": "delay_n21_aggregate",
    "delay_n21_longterm": "delay_n21_aggregate",
    "delay_omp": "delay",
    "delay_ompbarrier_aggregate": "delay_omp",
    "delay_ompbarrier": "delay_ompbarrier_aggregate",
    "delay_ompbarrier_longterm": "delay_ompbarrier_aggregate",
    "delay_ompidle_aggregate": "delay_omp",
    "delay_ompidle": "delay_ompidle_aggregate",
    "delay_ompidle_longterm": "delay_ompidle_aggregate",
    "waitstates_direct_vs_indirect": None,
    "mpi_wait_direct": "waitstates_direct_vs_indirect",
    "mpi_wait_direct_latesender": "mpi_wait_direct",
    "mpi_wait_direct_latereceiver": "mpi_wait_direct",
    "mpi_wait_indirect": "waitstates_direct_vs_indirect",
    "mpi_wait_indirect_latesender": "mpi_wait_indirect",
    "mpi_wait_indirect_latereceiver": "mpi_wait_indirect",
    "waitstates_propagating_vs_terminal": None,
    "mpi_wait_propagating": "waitstates_propagating_vs_terminal",
    "mpi_wait_propagating_ls": "mpi_wait_propagating",
    "mpi_wait_propagating_lr": "mpi_wait_propagating",
    "mpi_wait_terminal": "waitstates_propagating_vs_terminal",
    "mpi_wait_terminal_ls": "mpi_wait_terminal",
    "mpi_wait_terminal_lr": "mpi_wait_terminal",
    "critical_path": None,
    "critical_path_imbalance": "critical_path",
    "performance_impact": None,
    "performance_impact_criticalpath": "performance_impact",
    "critical_path_activities": "performance_impact_criticalpath",
    "critical_imbalance_impact": "performance_impact_criticalpath",
    "intra_partition_imbalance": "critical_imbalance_impact",
    "inter_partition_imbalance": "critical_imbalance_impact",
    "non_critical_path_activities": "performance_impact",
}

# parents whose value is exactly the sum of their children (the others hold more: MPI its
# calls of no category, Late Sender the waits not in wrong order, ...)
EXACT = ["time", "execution", "mpi_management", "mpi_synchronization", "mpi_communication", "mpi_io",
         "mpi_rma_synchronization",
         "omp_time", "omp_synchronization", "omp_barrier",
         # root causes: a delay cost is its short-term plus its long-term part, a category its kinds'; a
         # classification its two halves; the performance impact its on- and off-path activities, the
         # imbalance impact its intra- and inter-partition parts
         "delay", "delay_mpi", "delay_p2p", "delay_collective", "delay_omp",
         "delay_latesender_aggregate", "delay_latereceiver_aggregate", "delay_barrier_aggregate", "delay_n2n_aggregate",
         "delay_12n_aggregate", "delay_n21_aggregate", "delay_ompbarrier_aggregate", "delay_ompidle_aggregate",
         "waitstates_direct_vs_indirect", "mpi_wait_direct", "mpi_wait_indirect",
         "waitstates_propagating_vs_terminal", "mpi_wait_propagating", "mpi_wait_terminal",
         "performance_impact", "performance_impact_criticalpath", "critical_imbalance_impact"]


def mpi_category(region):
    """The MPI subtree metric of a call of region (by name, then by the role MPICH's functions
    have in synctrace's wrapper table), or None: the mapping of Scalasca's scout.spec."""
    if not region.startswith("MPI_"):
        return None
    if region.startswith(("MPI_Init", "MPI_Finalize")):
        return "mpi_init_exit"
    if region.startswith(("MPI_Comm_", "MPI_Cart", "MPI_Graph", "MPI_Intercomm_", "MPI_Dims_create")):
        return "mpi_mgmt_comm"
    # Scalasca's masks: ^MPI_Win_(complete|fence|post|start|test|wait)$ active target,
    # ^MPI_Win_((flush(_local)?|lock|unlock)(_all)?|sync)$ passive, the RMA and atomic roles communication
    if region in ("MPI_Win_complete", "MPI_Win_fence", "MPI_Win_post", "MPI_Win_start", "MPI_Win_test",
                  "MPI_Win_wait"):
        return "mpi_rma_sync_active"
    if region.startswith(("MPI_Win_flush", "MPI_Win_lock", "MPI_Win_unlock")) or region == "MPI_Win_sync":
        return "mpi_rma_sync_passive"
    if region in ("MPI_Put", "MPI_Rput", "MPI_Get", "MPI_Rget", "MPI_Accumulate", "MPI_Raccumulate",
                  "MPI_Get_accumulate", "MPI_Rget_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap"):
        return "mpi_rma_communication"
    if region.startswith("MPI_Win_"):
        return "mpi_mgmt_win"
    if region.startswith("MPI_File_"):
        if any(region.startswith("MPI_File_" + p) for p in ("read", "write", "iread", "iwrite")):
            return "mpi_io_collective" if "_all" in region or "_ordered" in region else "mpi_io_individual"
        return "mpi_mgmt_file"
    if region in ("MPI_Barrier", "MPI_Ibarrier"):
        return "mpi_sync_collective"
    if region.startswith(("MPI_Wait", "MPI_Test", "MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv",
                          "MPI_Isend", "MPI_Irecv", "MPI_Sendrecv", "MPI_Start", "MPI_Request_free", "MPI_Probe",
                          "MPI_Iprobe", "MPI_Mprobe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Send_init", "MPI_Recv_init")):
        return "mpi_point2point"
    if any(region.startswith(p) for p in ("MPI_Bcast", "MPI_Gather", "MPI_Scatter", "MPI_Reduce", "MPI_Allreduce",
                                          "MPI_Allgather", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan", "MPI_Ibcast",
                                          "MPI_Igather", "MPI_Iscatter", "MPI_Ireduce", "MPI_Iallreduce",
                                          "MPI_Iallgather", "MPI_Ialltoall", "MPI_Iscan", "MPI_Iexscan")):
        return "mpi_collective"
    return None


def ancestors(m):
    while m is not None:
        yield m
        m = TREE[m]


def check_json(doc, eps=1e-9):
    """Problems (strings) of an analysis.json's metric tree and values."""
    bad = []
    got = {m["uniq_name"]: m["parent"] for m in doc["metrics"] if m["unit"] == "sec" or m["uniq_name"] == "visits"}
    if got != TREE:
        bad.append("metric tree differs: extra %s, missing %s, other parents %s" % (
            sorted(set(got) - set(TREE)), sorted(set(TREE) - set(got)),
            sorted(m for m in set(got) & set(TREE) if got[m] != TREE[m])))
        return bad
    children = defaultdict(list)
    for m, p in TREE.items():
        if p is not None and m in got:
            children[p].append(m)
    cn = {c["id"]: c for c in doc["cnodes"]}
    val = defaultdict(float)
    for v in doc["values"]:
        val[(v["metric"], v["cnode"], v["location"])] += v["value"]
    for k in cn:
        for l in range(len(doc["locations"])):
            def at(m):
                return val.get((m, k, l), 0.0)
            where = "%s on location %d" % (cn[k]["region"], l)
            for p, ch in children.items():
                s, whole = sum(at(c) for c in ch), at(p)
                if p == "time" or p in EXACT:
                    if abs(s - whole) > eps * max(1.0, whole):
                        bad.append("%s = %.9f, its children add up to %.9f at %s" % (p, whole, s, where))
                elif s > whole + eps:
                    bad.append("%s = %.9f holds less than its children (%.9f) at %s" % (p, whole, s, where))
            # the MPI time of a call path by its region: all of it in one category
            cat = mpi_category(cn[k]["region"])
            mpi = at("mpi")
            if cat and cn[k]["region"].startswith(("MPI_Wait", "MPI_Test")):
                # completions: point-to-point, or the collective they complete (Ibarrier: synchronization)
                if abs(at("mpi_point2point") + at("mpi_collective") + at("mpi_sync_collective") - mpi) > eps:
                    bad.append("%s: MPI time %.9f not in point-to-point or collective" % (where, mpi))
            elif cat:
                if abs(at(cat) - mpi) > eps:
                    bad.append("%s: %s = %.9f, MPI time %.9f" % (where, cat, at(cat), mpi))
            if cn[k]["region"] == "TRACE BUFFER FLUSH" and abs(at("overhead") + at("omp_idle_threads") - at("time")) > eps:
                bad.append("%s: the tool's flush is not overhead" % where)
    return bad


def location_spans(dump_lines):
    """{(rank, thread): span in seconds} from `synctrace dump --json` lines: what each location's Time
    must add up to over all call paths (docs/analysis.md, "Consistency of the metric tree"): its first
    to last event; a thread > 0 (every thread of the test programs besides the master is an OpenMP
    team thread) its master's (thread 0 of its rank), whose time outside parallel regions it idles."""
    first, last = {}, {}
    for line in dump_lines:
        e = json.loads(line)
        k = (e["rank"], e["thread"])
        first[k] = min(first.get(k, e["t"]), e["t"])
        last[k] = max(last.get(k, e["t"]), e["t"])
    own = {k: (last[k] - first[k]) / 1e9 for k in first}
    return {k: own.get((k[0], 0), own[k]) for k in own}


def check_whole(doc, spans, eps=1e-8):
    """Problems (strings) of an analysis.json against the run, over the whole tree: on every
    location Time over all call paths adds up to its span (spans: location_spans), and a thread's
    Idle threads less Limited parallelism is at most its master's Time outside parallel regions.
    (No value is negative: a writer drops values <= 0, so a negative one shows as a Time sum
    above the span.)"""
    bad = []
    cn = {c["id"]: c for c in doc["cnodes"]}
    inpar = {}

    def in_parallel(k):
        if k not in inpar:
            c = cn[k]
            inpar[k] = c["region"] == "!$omp parallel" or (c["parent"] is not None and in_parallel(c["parent"]))
        return inpar[k]
    locs = {l["id"]: (l["rank"], l["thread"]) for l in doc["locations"]}
    if sorted(locs.values()) != sorted(spans):
        return ["locations %s, the run has %s" % (sorted(locs.values()), sorted(spans))]
    time, idle, outside = defaultdict(float), defaultdict(float), defaultdict(float)
    for v in doc["values"]:
        where = locs[v["location"]]
        if v["metric"] == "time":
            time[where] += v["value"]
            if not in_parallel(v["cnode"]):
                outside[where] += v["value"]
        elif v["metric"] == "omp_idle_threads":
            idle[where] += v["value"]
        elif v["metric"] == "omp_limited_parallelism":
            idle[where] -= v["value"]
    for k in sorted(spans):
        if abs(time[k] - spans[k]) > eps + 1e-12 * spans[k]:
            bad.append("Time over all call paths of rank %d thread %d: %.9f s, its span %.9f s"
                       % (k + (time[k], spans[k])))
        master = (k[0], 0)
        if idle[k] > outside.get(master, 0.0) + eps:
            bad.append("Idle threads less Limited parallelism of rank %d thread %d: %.9f s, its master's Time outside "
                       "parallel regions %.9f s" % (k + (idle[k], outside.get(master, 0.0))))
    return bad
