/*
 * inrun_mpi.c — the wait-state analysis at the end of a traced MPI run (inrun_mpi.h).
 */
#include "inrun_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../config/config.h"
#include "../exchange/polite_mpi.h"
#include "../util/log.h"
#include "../relations/graph.h"
#include "check.h"
#include "output.h"
#include "parallel_mpi.h"
#include "../util/clockread.h"

/* The report to write (a->res holds it): ms[5] = wall and CPU ms of the analysis, of its root causes, and the
 * events lost (the slowest rank's, the most lost), also as the archive's FINALIZE_ANALYSIS_ and
 * FINALIZE_ROOTCAUSE_ properties. */
static void keep(st_an_inrun_t *a, st_rankdata_t *rd, const double ms[5])
{
    a->have = 1, a->ms = ms[0], a->clc_off = st_config.clc != ST_CLC_ON, a->lossy = ms[4] > 0;
    a->resolution = rd->timer_resolution ? rd->timer_resolution : 1000000000u;
    st_rankdata_prop(rd, "FINALIZE_ANALYSIS_MS", "%.3f", ms[0]);
    st_rankdata_prop(rd, "FINALIZE_ANALYSIS_CPU_MS", "%.3f", ms[1]);
    if (a->res.causes) { /* a part of the above */
        st_rankdata_prop(rd, "FINALIZE_ROOTCAUSE_MS", "%.3f", ms[2]);
        st_rankdata_prop(rd, "FINALIZE_ROOTCAUSE_CPU_MS", "%.3f", ms[3]);
    }
}

void st_an_inrun_run(MPI_Comm toolworld, st_rankdata_t *rd, st_rel_derived_t *derived, int crowded, st_an_inrun_t *a)
{
    memset(a, 0, sizeof *a);
    if (st_config.analyze != ST_ANALYZE_ON)
        return;
    int me = rd->rank, n = 0;
    PMPI_Comm_size(toolworld, &n);
    /* CPU: this thread's, as FINALIZE_CLC_CPU_MS (replay_mpi.c): the application's idle OpenMP
     * threads may spin in their runtime meanwhile, and the two figures are compared */
    double t0 = st_clock_ms(CLOCK_MONOTONIC), c0 = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    st_rel_input_t in;
    int32_t *owner = malloc(sizeof *owner * (size_t)(n > 0 ? n : 1));
    int ok = owner && st_rel_input_from_rankdata(rd, 1, &in) == 0, all_ok = 0;
    MPI_Request req;
    if (PMPI_Iallreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, toolworld, &req) != MPI_SUCCESS ||
        st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS || !all_ok) {
        if (me == 0)
            st_log_error("analysis: out of memory on some rank; skipped");
        if (ok)
            st_rel_input_free(&in);
        free(owner);
        return;
    }
    in.sync = st_rel_sync_regions, in.nsync = ST_REL_NSYNC;
    for (int r = 0; r < n; r++)
        owner[r] = r; /* each rank analyses its own locations */
    int rc = st_an_par_locks_mpi(toolworld, &in, crowded);
    rc = rc ? rc : st_an_par_run_mpi(toolworld, &in, derived && derived->g.inst ? derived : NULL, owner, crowded, &a->res);
    for (uint32_t l = 0; l < in.nlocs; l++)
        in.locs[l].orig = NULL; /* CLC's, not ours */
    st_rel_input_free(&in);
    free(owner);
    /* the root causes' share: this rank's timeline, at rank 0 also the parts' timelines and the replay */
    /* (and whether any rank lost events: the check's invariants are promised only without) */
    double ms[5] = { st_clock_ms(CLOCK_MONOTONIC) - t0, st_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0, a->res.rootcause_ms[0],
                     a->res.rootcause_ms[1], (double)st_rankdata_events_lost(rd) };
    double ms_max[5] = { ms[0], ms[1], ms[2], ms[3], ms[4] };
    st_log_debug("analysis: %.1f ms, %.1f ms CPU; root causes %.1f ms, %.1f ms CPU of them", ms[0], ms[1], ms[2], ms[3]);
    if (rc == 0 && PMPI_Ireduce(ms, ms_max, 5, MPI_DOUBLE, MPI_MAX, 0, toolworld, &req) == MPI_SUCCESS)
        st_polite_wait_crowded(&req, crowded);
    if (rc == 0 && me == 0) {
        keep(a, rd, ms_max);
    } else if (me == 0) {
        st_an_free(&a->res);
    }
}

void st_an_inrun_local(st_rankdata_t *rd, st_rel_graph_t *kept, st_an_inrun_t *a)
{
    memset(a, 0, sizeof *a);
    st_rel_graph_t g;
    memset(&g, 0, sizeof g);
    if (kept)
        g = *kept, memset(kept, 0, sizeof *kept);
    if (st_config.analyze != ST_ANALYZE_ON) {
        st_rel_graph_free(&g);
        return;
    }
    double t0 = st_clock_ms(CLOCK_MONOTONIC), c0 = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    st_rel_input_t in;
    if (st_rel_input_from_rankdata(rd, 1, &in) != 0) {
        st_rel_graph_free(&g);
        st_log_error("analysis: out of memory; skipped");
        return;
    }
    in.sync = st_rel_sync_regions, in.nsync = ST_REL_NSYNC;
    /* as `synctrace analyze` does: the graph of the relations (CLC's, when it kept one of these times and
     * locations), then the serial analysis */
    int rc = 0, derived = g.nlocs != in.nlocs;
    if (derived) {
        st_rel_graph_free(&g);
        rc = st_rel_graph_build(&in, &g);
    }
    st_log_debug("analysis: the relations' graph %s", derived ? "derived" : "CLC's");
    rc = rc || st_an_run(&in, &g, &a->res) ? -1 : 0;
    st_rel_graph_free(&g);
    st_rel_input_free(&in);
    if (rc) {
        st_log_error("analysis: out of memory; skipped");
        return;
    }
    const double ms[5] = { st_clock_ms(CLOCK_MONOTONIC) - t0, st_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0,
                           a->res.rootcause_ms[0], a->res.rootcause_ms[1], (double)st_rankdata_events_lost(rd) };
    st_log_debug("analysis: %.1f ms, %.1f ms CPU; root causes %.1f ms, %.1f ms CPU of them", ms[0], ms[1], ms[2], ms[3]);
    keep(a, rd, ms);
}

void st_an_inrun_report(st_an_inrun_t *a, const char *dir, int archive_written)
{
    if (!a->have)
        return;
    char json[4200], cube[4200];
    snprintf(json, sizeof json, "%s/analysis.json", dir);
    snprintf(cube, sizeof cube, "%s/analysis.cubex", dir);
    /* a result that breaks the tree's invariants is never written without a word */
    int broken = st_an_check_report(&a->res, a->resolution, a->lossy) &&
                 st_config.analyze_check == ST_ANALYZE_CHECK_FAIL;
    /* each file appears whole or not at all (st_an_write_file); the JSON is the report `synctrace report` reads */
    int json_err = 0, cube_err = 0;
    if (archive_written && !broken && (json_err = st_an_write_file(json, &a->res, a->resolution)) != 0)
        st_log_error("analysis: cannot write %s: %s", json, strerror(json_err));
    if (archive_written && !broken && !json_err && (cube_err = st_an_write_file(cube, &a->res, a->resolution)) != 0)
        st_log_error("analysis: cannot write %s: %s", cube, strerror(cube_err));
    st_an_print_brief(stderr, &a->res, a->resolution, 5);
    const char *uncorrected = a->clc_off ? " on uncorrected timestamps (SYNCTRACE_CLC=off)" : "";
    if (broken)
        fprintf(stderr, "wait-state analysis: %.1f ms; no report (the metric tree does not hold, "
                        "SYNCTRACE_ANALYZE_CHECK=fail)\n", a->ms);
    else if (!archive_written)
        fprintf(stderr, "wait-state analysis: %.1f ms%s; no report (no archive)\n", a->ms, uncorrected);
    else if (json_err)
        fprintf(stderr, "wait-state analysis: %.1f ms%s; no report (%s not written: %s)\n", a->ms, uncorrected,
                json, strerror(json_err));
    else
        fprintf(stderr, "wait-state analysis: %.1f ms%s; report %s%s%s (synctrace report %s)\n", a->ms, uncorrected,
                json, cube_err ? ", analysis.cubex not written: " : "", cube_err ? strerror(cube_err) : "", dir);
    st_an_free(&a->res);
    memset(a, 0, sizeof *a);
}
