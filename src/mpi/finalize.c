/*
 * finalize.c — MPI_Finalize: the last clock synchronization, this rank's data prepared once,
 * the CLC correction, the in-run wait-state analysis (on CLC's logical messages), the parallel
 * archive write, then PMPI_Finalize (lifecycle.h). A signal meanwhile dumps the raw data (abend.h).
 */
#include "lifecycle_int.h"

#include <sys/resource.h>
#include <time.h>

#include "../analysis/inrun_mpi.h"
#include "../clc/clc_mpi.h"
#include "../clock/sync.h"
#include "../config/config.h"
#include "../exchange/exchange_mpi.h"
#include "../exchange/polite_mpi.h"
#include "../model/trace_check.h"
#include "../omp/omp.h"
#include "../otf2/writer.h"
#include "../util/log.h"
#include "abend.h"
#include "archive_mpi.h"
#include "comm.h"
#include "filtersum.h"
#include "lock_ticket.h"
#include "st_mpi.h"
#include "../util/clockread.h"

/*
 * Where MPI_Finalize's time goes, on rank 0 (SYNCTRACE_VERBOSE>=1; tests/bench reads it).
 * The write cannot be an archive property: it ends after the archive is closed. Its
 * last step is an agreement of all ranks, so rank 0's write time covers every rank's.
 */
static void report_finalize(const double *t, int written)
{
    if (st_world_rank == 0 && written)
        st_log_info("MPI_Finalize: sync %.1f ms, trace preparation %.1f ms, CLC %.1f ms, wait-state analysis %.1f ms, "
                    "archive write %.1f ms, report %.1f ms",
                    t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4], t[6] - t[5]);
}

/* This thread's CPU time (ms) and minor page faults so far: where finalize's time goes, at SYNCTRACE_VERBOSE=2. */
typedef struct probe {
    double cpu_ms;
    long   faults;
} probe_t;

static probe_t probe(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return (probe_t){ 0, 0 };
    return (probe_t){ (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec * 1e-3 +
                          (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec * 1e-3,
                      ru.ru_minflt };
}

#define PROBE_DIFF(p, a, b) (p)[b].cpu_ms - (p)[a].cpu_ms, (p)[b].faults - (p)[a].faults

/* The preparation's steps: p[0] before loading, p[1] loaded, p[2] remapped, p[3] call paths, p[4] prepared. */
static void report_preparation(const probe_t *p, const st_rankdata_t *rd)
{
    st_log_debug("trace preparation: %llu events; CPU ms (page faults): load %.1f (%ld), remap %.1f (%ld), "
                 "call paths %.1f (%ld), prepare %.1f (%ld)",
                 (unsigned long long)st_rankdata_nevents(rd), PROBE_DIFF(p, 0, 1), PROBE_DIFF(p, 1, 2),
                 PROBE_DIFF(p, 2, 3), PROBE_DIFF(p, 3, 4));
}

/* The phases of the MPI_Finalize line on this rank: p[0] .. p[6] at t[0] .. t[6]. */
static void report_phases(const probe_t *p, const st_rankdata_t *rd)
{
    st_log_debug("MPI_Finalize: %llu events; this thread's CPU ms (page faults): sync %.1f (%ld), trace preparation "
                 "%.1f (%ld), CLC %.1f (%ld), wait-state analysis %.1f (%ld), archive write %.1f (%ld), report %.1f (%ld)",
                 (unsigned long long)st_rankdata_nevents(rd), PROBE_DIFF(p, 0, 1), PROBE_DIFF(p, 1, 2),
                 PROBE_DIFF(p, 2, 3), PROBE_DIFF(p, 3, 4), PROBE_DIFF(p, 4, 5), PROBE_DIFF(p, 5, 6));
}

static void finish_and_write(void)
{
    st_rankdata_t rd;
    double t[7];
    probe_t ph[7]; /* the phases' CPU and faults (SYNCTRACE_VERBOSE=2) */
    t[0] = st_clock_ms(CLOCK_MONOTONIC);
    ph[0] = probe();
    st_polite_doing("the clock synchronization at MPI_Finalize");
    st_clock_finalize_sync();
    st_polite_doing("preparing the trace at MPI_Finalize");
    t[1] = st_clock_ms(CLOCK_MONOTONIC);
    probe_t pp[5];
    pp[0] = ph[1] = probe();
    if (st_collect_rankdata(&rd, 0) != 0) {
        st_log_error("out of memory collecting the trace; no archive written");
        return;
    }
    st_filtersum_collect(&rd); /* what a filter removed, and the filter (filtersum.h) */
    st_filtersum_props(&rd);
    st_lc_heap_begin(&rd);
    pp[1] = probe();
    st_clock_remap_rankdata(&rd);
    st_clock_report(&rd);
    pp[2] = probe();
    st_lc_collect_callpaths(&rd);
    pp[3] = probe();
    st_otf2_prepare(&rd); /* once, for CLC and the writer */
    pp[4] = probe();
    report_preparation(pp, &rd);
    st_lc_lend_idle_buffers();
    t[2] = st_clock_ms(CLOCK_MONOTONIC);
    ph[2] = probe();
    st_polite_doing("the CLC correction at MPI_Finalize");
    st_rel_derived_t derived = { 0 }; /* CLC's logical messages, which the analysis takes instead of deriving them */
    int crowded = st_polite_crowded(st_tool_comm); /* once for both: their waits sleep on a crowded host */
    st_clc_run_mpi(st_tool_comm, &rd, st_config.analyze == ST_ANALYZE_ON ? &derived : NULL, crowded);
    t[3] = st_clock_ms(CLOCK_MONOTONIC);
    ph[3] = probe();
    st_an_inrun_t analysis;
    st_polite_doing("the wait-state analysis at MPI_Finalize");
    st_an_inrun_run(st_tool_comm, &rd, &derived, crowded, &analysis); /* after CLC: the archive's timestamps; idle buffers still lent */
    st_rel_derived_free(&derived);
    st_xmpi_release(); /* the receive buffer CLC's and the analysis' exchanges shared */
    st_lc_return_idle_buffers();
    if (st_config.check)
        st_rankdata_prop(&rd, "TRACE_CHECK_PROBLEMS", "%zu", st_trace_check(&rd));
    t[4] = st_clock_ms(CLOCK_MONOTONIC);
    ph[4] = probe();
    st_polite_doing("writing the archive at MPI_Finalize");
    int rc = st_archive_write_mpi(st_tool_comm, &rd, st_archive_dir);
    /* From here on a signal finds either an archive or its reported failure. (A signal during
     * the write's closing agreement, when the archive is already complete, still dumps: then
     * both are there, and `synctrace recover` says so.) */
    st_abend_disarm();
    t[5] = st_clock_ms(CLOCK_MONOTONIC);
    ph[5] = probe();
    if (rc == 0 && st_world_rank == 0)
        st_log_info("archive written to %s/traces.otf2", st_archive_dir);
    /* analysis.json, analysis.cubex and the summary, on rank 0: the application waits for them too (a 10^6-event
     * run's critical path alone wrote 31,695 hops into analysis.json), so they are a phase of the line */
    st_an_inrun_report(&analysis, st_archive_dir, rc == 0);
    t[6] = st_clock_ms(CLOCK_MONOTONIC);
    ph[6] = probe();
    report_finalize(t, rc == 0);
    report_phases(ph, &rd);
    st_polite_doing(NULL);
    st_rankdata_free(&rd);
    st_lc_heap_end();
}

void st_lc_finalize_tool(void)
{
    st_thread_t *th = st_mpi_begin();
    if (th) {
        st_mpi_enter(th, ST_REGION_MPI_Finalize);
        st_polite_barrier(st_tool_comm); /* the N-to-N synchronization of Finalize */
        st_mpi_leave(th, ST_REGION_MPI_Finalize);
        st_mpi_end(th);
    }
    st_lock_tickets_fini(); /* no lock call can follow: every process is in MPI_Finalize */
    if (st_config.omp)
        st_omp_runtime_notice(1, st_world_rank == 0); /* gcc's libgomp loaded while the program ran */
    int tracing = st_mpi_tracing;
    st_mpi_tracing = 0;
    st_lc_ending = 1;
    st_lc_mpi_finished = 1;
    if (tracing) {
        st_omp_finalize();
        st_record_stop();
        finish_and_write(); /* a signal meanwhile dumps the raw data (abend.h) */
    }
    st_abend_disarm();
    st_record_stop();
    if (st_tool_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&st_tool_comm);
}

ST_EXPORT int MPI_Finalize(void)
{
    st_lc_finalize_tool();
    return PMPI_Finalize();
}
