/*
 * parallel_mpi.c — the parallel analysis over MPI (parallel_mpi.h).
 */
#include "parallel_mpi.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_have.h"
#include "../exchange/exchange_mpi.h"
#include "../exchange/polite_mpi.h"
#include "../util/log.h"
#include "parallel.h"
#include "source.h"
#include "../util/clockread.h"

#define STALL_S 60.0 /* no message and no local progress for this long (plus twice the time so far): give up */

static int eng_progress(void *p) { return st_an_par_progress(p); }
static int eng_deliver(void *p, int32_t from, const void *buf, size_t len)
{
    return st_an_par_deliver(p, from, buf, len);
}
static void eng_waiting(void *p, char *buf, size_t n) { st_an_par_waiting(p, buf, n); }

/* The exchange and the local analysis; 0 when this process has its part. */
static int run_engine(MPI_Comm comm, const st_rel_input_t *in, st_rel_derived_t *derived, const int32_t *owner,
                      int crowded, st_an_par_t **out)
{
    int me = 0, np = 0, all_ok = 0, started = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    st_xmpi_t m;
    int ok = st_xmpi_init(&m, comm) == 0;
    st_xchg_net_t net = st_xmpi_net(&m);
    st_an_par_t *p = NULL;
    ok = ok && st_an_par_new(in, derived, owner, me, np, &net, &p) == 0;
    uint8_t *flags = calloc((size_t)np, 1);
    uint32_t incoming = 0;
    if (ok && flags)
        st_an_par_partners(p, flags);
    ok = ok && flags;
    st_xmpi_engine_t e = { "analysis", eng_progress, eng_deliver, eng_waiting, p };
    /* Everyone must have an engine before anyone sends to it. */
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS || !all_ok ||
        st_xmpi_incoming(comm, flags, np, &incoming, crowded))
        ok = 0;
    else if (!(started = 1) || st_an_par_start(p, incoming) ||
             st_xmpi_loop(&m, &e, me, st_clock_s(CLOCK_MONOTONIC), STALL_S, crowded))
        ok = 0;
    if (started)
        ok = st_xmpi_finish(&m, ok, me, crowded, "analysis");
    st_xmpi_free(&m);
    free(flags);
    if (!ok) {
        st_an_par_free(p);
        p = NULL;
    }
    *out = p;
    return ok ? 0 : -1;
}

/*
 * MPI-4's large-count Igatherv of bytes where the MPI has it. Without it (Open MPI 4.1) counts and
 * displacements are ints: process 0 takes at most INT_MAX bytes in all (root_ready), and ints (at
 * process 0: int copies of counts and displs, alive until the request completes) is passed.
 */
static int igatherv_bytes(const void *mine, MPI_Count mylen, uint8_t *all, const MPI_Count *counts,
                          const MPI_Aint *displs, const int *ints, int np, MPI_Comm comm, MPI_Request *req)
{
#ifdef ST_HAVE_MPI_Igatherv_c
    (void)ints, (void)np;
    return PMPI_Igatherv_c(mine, mylen, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm, req);
#else
    (void)counts, (void)displs;
    return PMPI_Igatherv(mine, (int)mylen, MPI_BYTE, all, ints, ints ? ints + np : NULL, MPI_BYTE, 0, comm, req);
#endif
}

/* At process 0 without the large-count Igatherv: counts then displs as ints (malloc'd), else NULL. */
static int *int_copies(int me, int np, const MPI_Count *counts, const MPI_Aint *displs)
{
#ifdef ST_HAVE_MPI_Igatherv_c
    (void)me, (void)np, (void)counts, (void)displs;
    return NULL;
#else
    int *ints = me == 0 ? malloc(sizeof *ints * 2 * (size_t)np) : NULL;
    for (int i = 0; ints && i < np; i++)
        ints[i] = (int)counts[i], ints[np + i] = (int)displs[i];
    return ints;
#endif
}

/* At process 0: *all allocated for total bytes, and the gather can take them. */
static int root_ready(size_t total, uint8_t **all, const int *ints)
{
#ifdef ST_HAVE_MPI_Igatherv_c
    (void)ints;
#else
    if (total > INT_MAX || !ints)
        return 0;
#endif
    return (*all = malloc(total + 1)) != NULL;
}

/*
 * Every process's len bytes at mine, concatenated at process 0 into *all (malloc'd; process i's at
 * displs[i], counts[i] bytes; the arrays malloc'd at process 0 only), if every process is ok (has
 * its bytes). 0 on every process, or -1 on every process.
 */
static int gather_bytes(MPI_Comm comm, int ok, const void *mine, size_t len, int crowded, uint8_t **all,
                        MPI_Count **counts, MPI_Aint **displs)
{
    int me = 0, np = 0, all_ok = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    *all = NULL;
    *counts = me == 0 ? calloc((size_t)np, sizeof **counts) : NULL;
    *displs = me == 0 ? calloc((size_t)np, sizeof **displs) : NULL;
    if (me == 0 && (!*counts || !*displs))
        ok = 0;
    MPI_Count mylen = (MPI_Count)len;
    MPI_Request req;
    int rc = -1;
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) == MPI_SUCCESS && all_ok &&
        PMPI_Igather(&mylen, 1, MPI_COUNT, *counts, 1, MPI_COUNT, 0, comm, &req) == MPI_SUCCESS &&
        st_polite_wait_crowded(&req, crowded) == MPI_SUCCESS) {
        size_t total = 0;
        for (int i = 0; me == 0 && i < np; i++)
            (*displs)[i] = (MPI_Aint)total, total += (size_t)(*counts)[i];
        int *ints = int_copies(me, np, *counts, *displs);
        ok = me != 0 || root_ready(total, all, ints);
        if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) == MPI_SUCCESS && all_ok &&
            igatherv_bytes(mine, mylen, *all, *counts, *displs, ints, np, comm, &req) == MPI_SUCCESS &&
            st_polite_wait_crowded(&req, crowded) == MPI_SUCCESS)
            rc = 0;
        free(ints);
    }
    if (rc) {
        free(*all), free(*counts), free(*displs);
        *all = NULL, *counts = NULL, *displs = NULL;
    }
    return rc;
}

/* The parts at process 0, merged. 0, or -1 (at process 0: the merge failed). */
static int gather(MPI_Comm comm, st_an_par_t *p, int crowded, st_an_result_t *res)
{
    int me = 0, np = 0, ok = 1;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    void *mine = NULL;
    size_t len = 0;
    if (st_an_par_pack(p, &mine, &len))
        ok = 0;
    uint8_t *all = NULL;
    MPI_Count *counts = NULL;
    MPI_Aint *displs = NULL;
    int rc = gather_bytes(comm, ok, mine, len, crowded, &all, &counts, &displs);
    if (rc == 0 && me == 0) {
        const void **parts = malloc(sizeof *parts * (size_t)np);
        size_t *lens = malloc(sizeof *lens * (size_t)np);
        for (int i = 0; parts && lens && i < np; i++)
            parts[i] = all + displs[i], lens[i] = (size_t)counts[i];
        rc = parts && lens ? st_an_par_merge(parts, lens, np, res) : -1;
        free(parts), free(lens);
    }
    free(mine), free(all), free(counts), free(displs);
    return rc;
}

/*
 * The frames' source locations (source.h) of every process's ranks, merged into res at process 0:
 * the same table the serial analysis builds from all ranks. 0, or -1.
 */
static int gather_sources(MPI_Comm comm, const st_rel_input_t *in, int crowded, st_an_result_t *res)
{
    int me = 0, np = 0, ok;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    st_an_src_t mine = { 0 };
    char *text = NULL;
    size_t len = 0;
    ok = st_an_src_add_procs(&mine, in->procs, in->nranks) == 0;
    st_an_src_seal(&mine); /* one line per path */
    ok = ok && st_an_src_pack(&mine, &text, &len) == 0;
    st_an_src_free(&mine);
    uint8_t *all = NULL;
    MPI_Count *counts = NULL;
    MPI_Aint *displs = NULL;
    int rc = gather_bytes(comm, ok, text, len, crowded, &all, &counts, &displs);
    if (rc == 0 && me == 0) {
        size_t total = 0;
        for (int i = 0; i < np; i++)
            total += (size_t)counts[i];
        if (total && (!(res->src = calloc(1, sizeof *res->src)) ||
                      st_an_src_unpack(res->src, (const char *)all, total) != 0))
            rc = -1;
        else if (res->src)
            st_an_src_seal(res->src);
    }
    free(text), free(all), free(counts), free(displs);
    return rc;
}

/* At process 0: the unified numbering of the call trees all[displs[i] .. + counts[i]) (st_an_par_unify): info =
 * nglobal, then ploc0[0 .. np]; the maps concatenated into *flat, process i's at md[i], mc[i] of them. 0, or -1. */
static int unify_at_root(const uint8_t *all, const MPI_Count *counts, const MPI_Aint *displs, int np, uint32_t *info,
                         uint32_t **flat, int **mc, int **md)
{
    const void **parts = malloc(sizeof *parts * (size_t)np);
    size_t *lens = malloc(sizeof *lens * (size_t)np), total = 0;
    uint32_t **maps = calloc((size_t)np, sizeof *maps);
    *mc = malloc(sizeof **mc * (size_t)np), *md = malloc(sizeof **md * (size_t)np);
    int rc = parts && lens && maps && *mc && *md ? 0 : -1;
    for (int i = 0; !rc && i < np; i++)
        parts[i] = all + displs[i], lens[i] = (size_t)counts[i];
    if (!rc)
        rc = st_an_par_unify(parts, lens, np, &info[0], maps, info + 1);
    for (int i = 0; !rc && i < np; i++) { /* a tree's cnodes: its header's third word */
        uint64_t nc;
        memcpy(&nc, (const uint8_t *)parts[i] + 16, 8);
        (*mc)[i] = (int)nc, (*md)[i] = (int)total;
        total += nc;
        rc = total > INT_MAX ? -1 : 0;
    }
    if (!rc && !(*flat = malloc(sizeof **flat * (total ? total : 1))))
        rc = -1;
    for (int i = 0; !rc && i < np; i++)
        memcpy(*flat + (*md)[i], maps[i], sizeof **flat * (size_t)(*mc)[i]);
    for (int i = 0; maps && i < np; i++)
        free(maps[i]);
    free(maps), free(parts), free(lens);
    return rc;
}

/*
 * The root causes in parallel (rc_dist.h), collective: the call trees unified at process 0 as the merge will
 * unify the parts, each process's cnode map and the processes' first locations sent back, then the
 * distributed replay on its own exchange. 0 on every process when it ran everywhere (each part carries the
 * replay's values and part then), else -1 on every process (the parts carry no root causes).
 */
static int run_rootcause(MPI_Comm comm, st_an_par_t *p, int crowded)
{
    int me = 0, np = 0, ok, all_ok = 0, begun = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    void *tree = NULL;
    size_t len = 0;
    uint64_t myn = 0;
    ok = st_an_par_has_timeline(p) && st_an_par_tree(p, &tree, &len) == 0;
    if (ok)
        memcpy(&myn, (const uint8_t *)tree + 16, 8);
    uint8_t *all = NULL;
    MPI_Count *counts = NULL;
    MPI_Aint *displs = NULL;
    int rc = gather_bytes(comm, ok, tree, len, crowded, &all, &counts, &displs);
    free(tree);
    uint32_t *info = calloc((size_t)np + 2, sizeof *info), *flat = NULL, *mymap = malloc(sizeof *mymap * (myn + 1));
    int *mc = NULL, *md = NULL;
    ok = rc == 0 && info && mymap;
    if (ok && me == 0)
        ok = unify_at_root(all, counts, displs, np, info, &flat, &mc, &md) == 0;
    free(all), free(counts), free(displs);
    MPI_Request req;
    if (rc == 0 && st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) == MPI_SUCCESS && all_ok &&
        PMPI_Ibcast(info, np + 2, MPI_UINT32_T, 0, comm, &req) == MPI_SUCCESS &&
        st_polite_wait_crowded(&req, crowded) == MPI_SUCCESS &&
        PMPI_Iscatterv(flat, mc, md, MPI_UINT32_T, mymap, (int)myn, MPI_UINT32_T, 0, comm, &req) == MPI_SUCCESS &&
        st_polite_wait_crowded(&req, crowded) == MPI_SUCCESS) {
        st_xmpi_t m;
        ok = st_xmpi_init(&m, comm) == 0;
        st_xchg_net_t net = st_xmpi_net(&m);
        ok = ok && (begun = st_an_par_rc_begin(p, mymap, info[0], info + 1, &net) == 0);
        st_xmpi_engine_t e = { "root causes", st_an_par_rc_progress, st_an_par_rc_deliver, st_an_par_rc_waiting, p };
        /* everyone must have an engine before anyone sends to it */
        if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) == MPI_SUCCESS && all_ok) {
            ok = st_an_par_rc_start(p) == 0 && st_xmpi_loop(&m, &e, me, st_clock_s(CLOCK_MONOTONIC), STALL_S, crowded) == 0;
            ok = st_xmpi_finish(&m, ok, me, crowded, "root causes");
            if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS)
                all_ok = 0;
        }
        st_xmpi_free(&m);
    } else
        all_ok = 0;
    (void)begun;
    st_an_par_rc_end(p, all_ok);
    if (!all_ok && me == 0)
        st_log_error("analysis: the root causes failed on at least one rank; left out of the report");
    free(info), free(flat), free(mymap), free(mc), free(md);
    return all_ok ? 0 : -1;
}

int st_an_par_run_mpi(MPI_Comm toolcomm, const st_rel_input_t *in, st_rel_derived_t *derived, const int32_t *owner,
                      int crowded, st_an_result_t *res)
{
    MPI_Comm comm;
    MPI_Request req;
    int me = 0, ok = 0, all_ok = 0;
    memset(res, 0, sizeof *res);
    PMPI_Comm_rank(toolcomm, &me);
    if (PMPI_Comm_idup(toolcomm, &comm, &req) != MPI_SUCCESS || st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS) {
        st_log_error("analysis: cannot duplicate the tool communicator; skipped");
        return -1;
    }
    st_an_par_t *p = NULL;
    ok = run_engine(comm, in, derived, owner, crowded, &p) == 0;
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS)
        all_ok = 0;
    if (!all_ok && me == 0)
        st_log_error("analysis: failed on at least one rank; skipped");
    /* the root causes wanted (SYNCTRACE_ROOTCAUSE, the same everywhere): every process has its timeline */
    if (all_ok && st_an_par_has_timeline(p))
        run_rootcause(comm, p, crowded);
    int rc = all_ok ? gather(comm, p, crowded, res) : -1;
    if (all_ok && p) { /* this process's root-cause time: its timeline (and at process 0 the replay) */
        double ms[2];
        st_an_par_rootcause_ms(p, ms);
        res->rootcause_ms[0] += ms[0], res->rootcause_ms[1] += ms[1];
    }
    /* every process takes part (the tables travel in a collective), whatever process 0's merge gave */
    int src_rc = all_ok ? gather_sources(comm, in, crowded, res) : -1;
    if (all_ok && me == 0 && rc == 0 && src_rc != 0)
        st_an_free(res), rc = -1;
    else if (all_ok && me == 0 && rc != 0 && res->src)
        st_an_src_free(res->src), free(res->src), res->src = NULL;
    if (all_ok && rc && me == 0)
        st_log_error("analysis: collecting the report failed; skipped");
    st_an_par_free(p);
    PMPI_Comm_free(&comm);
    return all_ok ? (me == 0 ? rc : 0) : -1;
}

int st_an_par_locks_mpi(MPI_Comm comm, st_rel_input_t *in, int crowded)
{
    void *all = NULL;
    size_t n = 0;
    if (st_xmpi_allgather_items(comm, 1, in->locks, in->nlocks, sizeof *in->locks, &all, &n, crowded))
        return -1;
    st_rel_input_lock_take(in, all, n);
    return 0;
}
