/*
 * finalize.c — MPI_Finalize: the last clock synchronization, this rank's data prepared once,
 * the CLC correction, the in-run wait-state analysis (on CLC's logical messages), the parallel
 * archive write, then PMPI_Finalize (lifecycle.h). A signal meanwhile dumps the raw data (abend.h).
 */
#include "lifecycle_int.h"

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
#include "phases.h"
#include "st_mpi.h"

static void finish_and_write(void)
{
    st_rankdata_t rd;
    st_lc_probe_t ph[7]; /* the phases' ends (phases.h) */
    ph[0] = st_lc_probe();
    st_polite_doing("the clock synchronization at MPI_Finalize");
    st_clock_finalize_sync();
    st_polite_doing("preparing the trace at MPI_Finalize");
    st_lc_probe_t pp[5];
    pp[0] = ph[1] = st_lc_probe();
    if (st_collect_rankdata(&rd, 0) != 0) {
        st_log_error("out of memory collecting the trace; no archive written");
        return;
    }
    st_filtersum_collect(&rd); /* what a filter removed, and the filter (filtersum.h) */
    st_filtersum_props(&rd);
    st_lc_heap_begin(&rd);
    pp[1] = st_lc_probe();
    st_clock_remap_rankdata(&rd);
    st_clock_report(&rd);
    pp[2] = st_lc_probe();
    st_lc_collect_callpaths(&rd);
    pp[3] = st_lc_probe();
    st_otf2_prepare(&rd); /* once, for CLC and the writer */
    pp[4] = st_lc_probe();
    st_lc_report_preparation(pp, &rd);
    st_lc_lend_idle_buffers();
    ph[2] = st_lc_probe();
    st_polite_doing("the CLC correction at MPI_Finalize");
    st_rel_derived_t derived = { 0 }; /* CLC's logical messages, which the analysis takes instead of deriving them */
    int crowded = st_polite_crowded(st_tool_comm); /* once for both: their waits sleep on a crowded host */
    st_clc_run_mpi(st_tool_comm, &rd, st_config.analyze == ST_ANALYZE_ON ? &derived : NULL, crowded);
    ph[3] = st_lc_probe();
    st_an_inrun_t analysis;
    st_polite_doing("the wait-state analysis at MPI_Finalize");
    st_an_inrun_run(st_tool_comm, &rd, &derived, crowded, &analysis); /* after CLC: the archive's timestamps; idle buffers still lent */
    st_rel_derived_free(&derived);
    st_xmpi_release(); /* the receive buffer CLC's and the analysis' exchanges shared */
    st_lc_return_idle_buffers();
    if (st_config.check)
        st_rankdata_prop(&rd, "TRACE_CHECK_PROBLEMS", "%zu", st_trace_check(&rd));
    ph[4] = st_lc_probe();
    st_polite_doing("writing the archive at MPI_Finalize");
    int rc = st_archive_write_mpi(st_tool_comm, &rd, st_archive_dir);
    /* From here on a signal finds either an archive or its reported failure. (A signal during
     * the write's closing agreement, when the archive is already complete, still dumps: then
     * both are there, and `synctrace recover` says so.) */
    st_abend_disarm();
    ph[5] = st_lc_probe();
    if (rc == 0 && st_world_rank == 0)
        st_log_info("archive written to %s/traces.otf2", st_archive_dir);
    /* analysis.json, analysis.cubex and the summary, on rank 0: the application waits for them too (a 10^6-event
     * run's critical path alone wrote 31,695 hops into analysis.json), so they are a phase of the line */
    st_an_inrun_report(&analysis, st_archive_dir, rc == 0);
    ph[6] = st_lc_probe();
    st_lc_report_phases("MPI_Finalize", 1, ph, &rd, st_world_rank == 0 && rc == 0);
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
