/*
 * replay_mpi.c — the shim's CLC: st_clc_run_mpi() at MPI_Finalize, called by the
 * lifecycle (src/mpi/finalize.c, finish_and_write) after the clock re-mapping and
 * before the archive is written; st_clc_run_local() at the exit of a program that never
 * called MPI_Init (OpenMP only: the sequential st_clc_run, nothing to exchange).
 *
 * Every rank corrects its own locations with the engine of replay.h over the MPI transport of
 * the exchange layer (exchange_mpi.h); this file does the surrounding steps:
 *   1. parameters: SYNCTRACE_CLC_* plus the timer resolution (the coarsest rank's, one
 *      allreduce), identical on every rank, stored as clc.* properties (rank 0); mu is
 *      SYNCTRACE_CLC_MU or 0, never measured (docs/clc.md, "mu");
 *   2. st_otf2_prepare() the rank's data (the lifecycle has done so already; it runs once),
 *      so CLC sees exactly the events the archive will hold (the offline `synctrace clc`
 *      then reads the same input);
 *   3. node ids (allgather of hashes of the node and host names), the engine, the partner count
 *      (one reduce-scatter), then the message loop on a private duplicate of the tool's
 *      communicator: Isend of the engine's buffers, Improbe/Mrecv of what arrives,
 *      PMPI_Testsome and st_polite_pause when idle — never a blocking wait;
 *   4. all-or-nothing: if any rank failed or stalled (no progress for ST_CLC_STALL_S
 *      seconds), every rank restores its original times and the archive says so. A rank
 *      that fails tells every other (an empty abort message), so they stop at once
 *      instead of waiting for it; then every rank drains: the number of messages each rank
 *      sent to each other is summed (one reduce-scatter), and each receives (and discards)
 *      until it has all of its own, then completes its sends — no tool message is left
 *      pending when the communicator is freed (MPI/UCX would warn about it at exit);
 *   5. otherwise each moved event keeps its pre-correction time in the slot the OTF2
 *      writer reads (st_event_set_orig_time), and the statistics of all ranks are
 *      reduced to rank 0's properties (clc.*, FINALIZE_CLC_MS).
 * Collective over toolworld; call from one thread; never aborts the application.
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../clock/timer.h"
#include "../config/config.h"
#include "../exchange/polite_mpi.h"
#include "../model/prepare.h"
#include "../model/region.h"
#include "../util/fnv.h"
#include "../util/log.h"
#include "clc_mpi.h"
#include "../exchange/exchange_mpi.h"
#include "replay.h"
#include "../util/clockread.h"

#define ST_CLC_STALL_S 60.0 /* no message and no local progress for this long (plus twice the time the
                              correction has taken so far: large traces take long): give up */

/* The correction's CPU time is the calling thread's (CLOCK_THREAD_CPUTIME_ID), which runs all of it.
 * Not the process's: in a hybrid run the application's idle OpenMP threads spin-wait in the runtime
 * during MPI_Finalize (KMP_BLOCKTIME, 200 ms by default in libomp), which doubled the process figure. */

/* ---- parameters ------------------------------------------------------------------------------- */

/* The same parameters on every rank: the configured ones, delta from the coarsest timer; *incomplete: some
 * rank's trace lacks events (buffers that could not be spilled), so its messages cannot be matched. */
static int agree_params(MPI_Comm comm, const st_rankdata_t *rd, st_clc_params_t *p, int *incomplete)
{
    uint64_t mine[2] = { st_timer_resolution_ns(), (rd->flags & ST_RANKF_INCOMPLETE) != 0 }, all[2] = { 0, 0 };
    if (st_polite_allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return -1;
    st_clc_params_from_config(p, &st_config, all[0]);
    *incomplete = all[1] != 0;
    return 0;
}

/* ---- input -------------------------------------------------------------------------------------- */

/* The lock epochs that tickets order (relations/locks.h), the same table on every rank: each rank's
 * epochs gathered (all of them: a (window, target) is ticketed only if every origin's epochs are),
 * ordered, and those ordered by the times dropped. Collective; 0, or -1 on every rank (in freed). */
static int lock_table(MPI_Comm comm, int32_t rank, st_rel_input_t *in, int crowded)
{
    st_rel_lockvec_t mine = { 0 };
    void *all = NULL;
    size_t n = 0;
    int ok = st_rel_lock_epochs(in, rank, &mine) == 0;
    int rc = st_xmpi_allgather_items(comm, ok, mine.v, mine.n, sizeof *mine.v, &all, &n, crowded);
    st_mem_free(mine.v);
    if (rc) {
        free(all);
        st_rel_input_free(in);
        return -1;
    }
    st_rel_input_lock_take(in, all, n);
    st_rel_input_lock_keep_ticketed(in);
    return 0;
}

/* This rank's locations, every rank's node id (equal node names: equal ids), this rank's comms.
 * Collective; every rank returns the same input. */
static int build_input(MPI_Comm comm, st_rankdata_t *rd, st_rel_input_t *in, int crowded)
{
    int32_t n = rd->nranks;
    uint64_t mine = st_fnv1a_str(rd->nodename), *all = malloc(sizeof *all * (size_t)n);
    st_rel_proc_t *procs = calloc((size_t)n, sizeof *procs);
    st_rel_loc_t *locs = calloc(rd->nthreads ? rd->nthreads : 1, sizeof *locs);
    MPI_Request req;
    int ok = all && procs && locs, all_ok = 0;
    if (st_polite_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all_ok ||
        PMPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm, &req) != MPI_SUCCESS ||
        st_polite_wait(&req, NULL) != MPI_SUCCESS) {
        free(all), free(procs), free(locs);
        return -1;
    }
    for (int32_t r = 0; r < n; r++) {
        int32_t first = 0;
        while (all[first] != all[r])
            first++;
        procs[r].node = first;
    }
    free(all);
    procs[rd->rank].ncomms = rd->ncomms;
    procs[rd->rank].comms = rd->comms;
    procs[rd->rank].ngroups = rd->groups ? rd->ngroups : 0;
    procs[rd->rank].groups = rd->groups;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        locs[t] = (st_rel_loc_t){ .rank = rd->rank, .thread = rd->threads[t].index, .ev = rd->threads[t].events,
                                  .n = rd->threads[t].events ? rd->threads[t].nevents : 0 };
    *in = (st_rel_input_t){ .nlocs = rd->nthreads, .locs = locs, .nranks = n, .procs = procs,
                            .nsync = ST_REL_NSYNC, .sync = st_rel_sync_regions };
    return lock_table(comm, rd->rank, in, crowded);
}

/* ---- the run ----------------------------------------------------------------------------------- */

/* The engine as the transport's loop sees it. */
static int eng_progress(void *r) { return st_clc_replay_progress(r); }
static int eng_deliver(void *r, int32_t from, const void *buf, size_t len)
{
    return st_clc_replay_deliver(r, from, buf, len);
}
static void eng_waiting(void *r, char *buf, size_t n) { st_clc_replay_waiting(r, buf, n); }

static int partner_count(MPI_Comm comm, st_clc_replay_t *r, int32_t nranks, uint32_t *incoming, int crowded)
{
    uint8_t *flags = calloc((size_t)nranks, 1);
    int rc = -1;
    if (flags) {
        if (r)
            st_clc_replay_partners(r, flags);
        rc = st_xmpi_incoming(comm, flags, nranks, incoming, crowded);
    }
    free(flags);
    return rc;
}

/* Statistics of all ranks merged at rank 0 (a user-defined reduction over the struct's bytes). */
static void merge_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        st_clc_stats_merge((st_clc_stats_t *)inout + i, (const st_clc_stats_t *)in + i);
}

static int reduce_stats(MPI_Comm comm, const st_clc_stats_t *mine, st_clc_stats_t *total, int crowded)
{
    MPI_Datatype type;
    MPI_Op op;
    MPI_Request req;
    if (PMPI_Type_contiguous((int)sizeof *mine, MPI_BYTE, &type) != MPI_SUCCESS)
        return -1;
    PMPI_Type_commit(&type);
    PMPI_Op_create(merge_op, 1, &op);
    int rc = PMPI_Ireduce(mine, total, 1, type, op, 0, comm, &req);
    if (rc == MPI_SUCCESS)
        rc = st_polite_wait_crowded(&req, crowded);
    PMPI_Op_free(&op);
    PMPI_Type_free(&type);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* A moved event keeps C in the slot the OTF2 writer reads. Called when the engine is
 * done: CLC reads aux of TASK_SWITCH, which the writer does not write. */
static void keep_orig(void *ctx, st_event_t *e, uint64_t orig)
{
    (void)ctx;
    st_event_set_orig_time(e, orig);
}

/* Runs the engine; 0 when this rank completed its part. */
/* rounds: bulk rounds until convergence, -(rounds tried) when the replay was needed, 0: replay only. */
/* keep (may be NULL): gets the derivation when this rank completed and moved nothing (st_clc_replay_keep). */
/* flags: ST_CLC_REPLAY_CHECK_FIRST (replay.h). *again: NULL, or the engine of a run that ended for a
 * restart, made anew here (st_clc_replay_again); on return, the engine when this run ended so.
 * *checked: whether relations were left out, OpenMP ones by any rank or point-to-point ones by all
 * (the same on every rank). */
static int run_engine(MPI_Comm comm, const st_clc_params_t *p, st_rel_input_t *in, int32_t rank, st_clc_stats_t *s,
                      double t_start, int crowded, int *rounds, st_rel_derived_t *keep, unsigned flags,
                      st_clc_replay_t **again, int *checked)
{
    st_xmpi_t m;
    int ok = st_xmpi_init(&m, comm) == 0, started = 0;
    st_xchg_net_t net = st_xmpi_net(&m);
    st_clc_replay_t *r = NULL;
    double c0 = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    if (*again) { /* (st_clc_replay_again frees the old engine) */
        if (ok)
            ok = st_clc_replay_again(*again, &net, &r) == 0;
        else
            st_clc_replay_free(*again);
        *again = NULL;
    } else {
        ok = ok && st_clc_replay_new(p, in, rank, keep ? &keep->self_ends : NULL, &net, flags, &r) == 0;
    }
    double c1 = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    uint32_t incoming = 0;
    /* Everyone must have an engine before anyone sends to it; the same reduction tells whether
     * any rank left its OpenMP relations out (CHECK_FIRST; the min of the negation) and whether
     * every rank left its point-to-point relations out: if not, none may (replay.h). */
    int mine[3] = { ok, ok && st_clc_replay_omp_left_out(r) ? -1 : 0, ok && st_clc_replay_p2p_left_out(r) },
        all[3] = { 0, 0, 0 };
    int agreed = st_xmpi_min_all(mine, all, 3, comm, crowded) == MPI_SUCCESS && all[0];
    if (agreed && mine[2] && !all[2] && st_clc_replay_again(r, &net, &r)) /* (r is NULL then) */
        ok = 0;
    if (r) {
        st_clc_replay_on_moved(r, keep_orig, NULL);
        st_clc_replay_set_rounds(r, (int)(st_config.clc_rounds < 200 ? st_config.clc_rounds : 200));
    }
    st_xmpi_engine_t e = { "CLC", eng_progress, eng_deliver, eng_waiting, r };
    if (!agreed || partner_count(comm, r, in->nranks, &incoming, crowded)) {
        ok = 0;
    } else {
        if (ok && (all[1] < 0 || all[2]))
            st_clc_replay_restart_if_moving(r);
        started = 1; /* (a rank that failed since the agreement tells the others in the drain) */
        if (!ok || st_clc_replay_start(r, incoming) || st_xmpi_loop(&m, &e, rank, t_start, ST_CLC_STALL_S, crowded))
            ok = 0;
    }
    *checked = all[1] < 0 || all[2];
    int restart = ok && st_clc_replay_restart(r);
    const char *which = all[1] < 0 && all[2] ? "OpenMP and point-to-point" : all[1] < 0 ? "OpenMP" : "point-to-point";
    st_log_debug("CLC: CPU ms: derivation %.1f, replay %.1f%s%s%s", c1 - c0, st_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c1,
                 ok && *checked ? " (the " : "", ok && *checked ? which : "",
                 restart ? " relations were checked first: something moves, again with them)"
                 : ok && *checked ? " relations were checked first)" : "");
    if (ok && !restart) {
        st_clc_replay_stats(r, s);
        *rounds = st_clc_replay_rounds(r);
        if (keep && s->moved == 0)
            st_clc_replay_keep(r, keep);
        else if (keep) /* the derivation reads times (task switches): the analysis, on LC, derives again */
            st_rel_derived_free(keep);
    }
    if (started) /* every rank that started takes part in the drain */
        ok = st_xmpi_finish(&m, ok, rank, crowded, "CLC");
    st_xmpi_free(&m);
    if (ok && restart)
        *again = r;
    else
        st_clc_replay_free(r);
    return ok ? 0 : -1;
}

/* The correction: first with the OpenMP and point-to-point relations checked before they would go
 * into the engine's graph (with bulk rounds, which tell at round 0 whether anything moves), again
 * with them in when something does. */
static int correct(MPI_Comm comm, const st_clc_params_t *p, st_rel_input_t *in, int32_t rank, st_clc_stats_t *s,
                   double t_start, int crowded, int *rounds, st_rel_derived_t *keep)
{
    st_clc_replay_t *again = NULL;
    unsigned flags = st_config.clc_rounds > 0 ? ST_CLC_REPLAY_CHECK_FIRST : 0;
    int checked = 0, rc = run_engine(comm, p, in, rank, s, t_start, crowded, rounds, keep, flags, &again, &checked);
    /* Every rank stops at the same round 0, or none does; but one that failed meanwhile must not
     * leave the others alone in the next run's collectives: they agree first (min and max). */
    int go = rc == 0 && again, mine[2] = { go, -go }, all[2] = { 0, 0 };
    if (checked && st_xmpi_min_all(mine, all, 2, comm, crowded) != MPI_SUCCESS)
        all[0] = 0, all[1] = -1;
    if (checked && !all[0] && all[1] < 0) /* some stopped to start again, not all: a rank failed */
        rc = -1, go = 0;
    if (go)
        rc = run_engine(comm, p, in, rank, s, t_start, crowded, rounds, keep, 0, &again, &checked);
    st_clc_replay_free(again);
    return rc;
}

/* ms: wall and CPU time of the correction, maxima over the ranks. */
static void report(st_rankdata_t *rd, const st_clc_stats_t *t, const double *ms)
{
    st_clc_stats_emit(t, st_rankdata_prop_str, rd);
    st_rankdata_prop(rd, "FINALIZE_CLC_MS", "%.3f", ms[0]);
    st_rankdata_prop(rd, "FINALIZE_CLC_CPU_MS", "%.3f", ms[1]);
    st_log_info("CLC: %" PRIu64 " events, %" PRIu64 " moved (max %" PRIu64 " ns); violations corrected: p2p %" PRIu64
                ", collective %" PRIu64 ", OpenMP %" PRIu64 "; %.1f ms",
                t->events, t->moved, t->max_shift, t->violations.violated[ST_REL_P2P],
                t->violations.violated[ST_REL_COLL], t->violations.violated[ST_REL_OMP], ms[0]);
}

/* Says why CLC does not run on a trace with events lost (EVENTS_LOST). */
static void warn_lost(void)
{
    st_log_warn("CLC skipped: events are missing from the trace (see EVENTS_LOST), so messages and other "
                "relations cannot be matched; timestamps left uncorrected");
}

int st_clc_run_mpi(MPI_Comm toolworld, st_rankdata_t *rd, st_rel_derived_t *keep, int crowded)
{
    st_clc_params_t p;
    char err[200];
    int rank = rd->rank, on = st_config.clc == ST_CLC_ON, incomplete = 0;
    if (agree_params(toolworld, rd, &p, &incomplete) != 0) {
        st_log_error("CLC: cannot agree on the parameters; timestamps left uncorrected");
        return -1;
    }
    /* Timed from here: the agreement (done with CLC off too) absorbs the ranks' different
     * arrival times, which are not the correction's cost. */
    double t0 = st_clock_s(CLOCK_MONOTONIC), c0 = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    if (on && st_clc_params_check(&p, err, sizeof err) != 0) {
        if (rank == 0)
            st_log_error("%s; timestamps left uncorrected", err);
        on = 0;
    }
    if (on && incomplete) {
        if (rank == 0)
            warn_lost();
        on = 0;
    }
    if (rank == 0)
        st_clc_params_emit(&p, on ? "on" : incomplete && st_config.clc == ST_CLC_ON ? "skipped" : "off",
                           st_rankdata_prop_str, rd);
    if (!on)
        return 0;
    st_rankdata_prepare(rd); /* normally done already by the caller (runs once) */
    st_rel_input_t in;
    MPI_Comm comm;
    MPI_Request req;
    if (build_input(toolworld, rd, &in, crowded) != 0) {
        if (rank == 0)
            st_log_error("CLC: out of memory on some rank; timestamps left uncorrected");
        return -1;
    }
    if (PMPI_Comm_idup(toolworld, &comm, &req) != MPI_SUCCESS || st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS) {
        st_log_error("CLC: cannot duplicate the tool communicator; timestamps left uncorrected");
        st_rel_input_free(&in);
        return -1;
    }
    st_clc_stats_t mine = { 0 }, total = { 0 };
    int rounds = 0, ok = correct(comm, &p, &in, rank, &mine, t0, crowded, &rounds, keep) == 0, all_ok = 0;
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS)
        all_ok = 0;
    if (!all_ok)
        st_clc_restore_orig(&in);
    if (!all_ok && keep)
        st_rel_derived_free(keep);
    double ms[2] = { (st_clock_s(CLOCK_MONOTONIC) - t0) * 1e3, st_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0 }, ms_max[2] = { ms[0], ms[1] };
    st_log_debug("CLC: %.1f ms, %.1f ms CPU", ms[0], ms[1]);
    if (PMPI_Ireduce(ms, ms_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm, &req) == MPI_SUCCESS)
        st_polite_wait_crowded(&req, crowded);
    if (all_ok && reduce_stats(comm, &mine, &total, crowded) == 0 && rank == 0) {
        report(rd, &total, ms_max);
        if (rounds > 0)
            st_rankdata_prop(rd, "clc.method", "bulk rounds: converged after %d", rounds);
        else if (rounds < 0)
            st_rankdata_prop(rd, "clc.method", "replay (bulk rounds: %d without convergence)", -rounds);
        else
            st_rankdata_prop(rd, "clc.method", "replay");
    }
    if (!all_ok && rank == 0) {
        st_rankdata_prop(rd, "clc.state", "failed");
        st_log_error("CLC: the correction failed on at least one rank; timestamps left uncorrected");
    }
    PMPI_Comm_free(&comm);
    st_rel_input_free(&in);
    return all_ok ? 0 : -1;
}

int st_clc_run_local(st_rankdata_t *rd, st_rel_graph_t *keep)
{
    st_clc_params_t p;
    st_clc_stats_t s;
    char err[200];
    st_clc_params_from_config(&p, &st_config, st_timer_resolution_ns());
    int on = st_config.clc == ST_CLC_ON, lost = st_rankdata_events_lost(rd) > 0;
    if (on && st_clc_params_check(&p, err, sizeof err) != 0) {
        st_log_error("%s; timestamps left uncorrected", err);
        on = 0;
    }
    const char *state = on ? "on" : "off";
    if (on && lost) { /* as st_clc_run_mpi: the relations' partners may be in the holes */
        warn_lost();
        state = "skipped";
        on = 0;
    }
    if (keep)
        memset(keep, 0, sizeof *keep);
    if (on && st_clc_correct_rankdata(&p, rd, 1, st_rel_sync_regions, ST_REL_NSYNC, &s, keep) != 0) {
        st_log_error("CLC: out of memory; timestamps left uncorrected");
        state = "failed";
        on = 0;
    }
    st_clc_params_emit(&p, state, st_rankdata_prop_str, rd);
    if (on)
        st_clc_stats_emit(&s, st_rankdata_prop_str, rd);
    return on ? 0 : -1;
}
