/* omp_only.c — the archive of a program that never called MPI_Init (OpenMP only): one process,
 * written serially at exit with the TSC correction and the local CLC (lifecycle_int.h). */
#include "lifecycle_int.h"

#include "../analysis/inrun_mpi.h"
#include "../clc/clc_mpi.h"
#include "../clock/sync.h"
#include "../clock/tsc.h"
#include "../config/config.h"
#include "../exchange/polite_mpi.h"
#include "../model/trace_check.h"
#include "../omp/omp.h"
#include "../otf2/writer.h"
#include "../util/archive_dir.h"
#include "../util/log.h"
#include "abend.h"
#include "filtersum.h"
#include "phases.h"
#include "st_mpi.h"

/* Programs that never called MPI_Init (OpenMP only): a single-process archive at exit. A signal
 * before the archive is complete leaves a dump as in a run with MPI (abend.h): the recording
 * buffers are read, never the copy the preparation and CLC work on. */
void st_lc_write_without_mpi(int incomplete)
{
    if (st_config.omp)
        st_omp_runtime_notice(1, 1); /* gcc's libgomp loaded while the program ran: its regions are missing */
    size_t nth;
    st_record_threads(&nth);
    if (!nth) {
        st_abend_disarm();
        return;
    }
    st_omp_finalize();
    st_record_stop();
    char err[600];
    if (st_archive_dir_prepare(st_config.dir, st_archive_dir, sizeof st_archive_dir, err, sizeof err) != 0) {
        st_log_error("%s; no archive written", err);
        st_abend_disarm();
        return;
    }
    st_abend_use_dir(st_archive_dir);
    st_polite_doing("preparing the trace at exit");
    st_lc_probe_t ph[7], pp[5]; /* the phases' ends (phases.h; no sync: ph[0] is ph[1]) */
    pp[0] = ph[0] = ph[1] = st_lc_probe();
    st_tsc_point(); /* the TSC's last calibration point (no sync without MPI) */
    st_rankdata_t rd;
    if (st_collect_rankdata(&rd, incomplete) != 0) {
        st_log_error("out of memory collecting the trace; no archive written");
        st_abend_disarm();
        return;
    }
    st_filtersum_collect(&rd);
    st_filtersum_props(&rd);
    st_lc_heap_begin(&rd);
    pp[1] = st_lc_probe();
    st_clock_remap_rankdata(&rd); /* without MPI only the TSC correction */
    st_clock_report_timer(&rd);
    pp[2] = st_lc_probe();
    st_lc_collect_callpaths(&rd);
    pp[3] = st_lc_probe();
    st_otf2_prepare(&rd);
    pp[4] = st_lc_probe();
    st_lc_report_preparation(pp, &rd);
    st_polite_doing("the CLC correction at exit");
    st_lc_lend_idle_buffers();
    ph[2] = st_lc_probe();
    st_rel_graph_t graph; /* CLC's relations, which the analysis takes (and frees) when nothing moved */
    st_clc_run_local(&rd, &graph);
    ph[3] = st_lc_probe();
    st_an_inrun_t analysis;
    st_polite_doing("the wait-state analysis at exit");
    st_an_inrun_local(&rd, &graph, &analysis); /* after CLC: the archive's timestamps; idle buffers still lent */
    st_lc_return_idle_buffers();
    if (st_config.check)
        st_rankdata_prop(&rd, "TRACE_CHECK_PROBLEMS", "%zu", st_trace_check(&rd));
    ph[4] = st_lc_probe();
    st_polite_doing("writing the archive at exit");
    int rc = st_otf2_write_serial(st_archive_dir, &rd, 1, incomplete ? ST_OTF2_INCOMPLETE : 0);
    st_abend_disarm(); /* from here on a signal finds the archive or its reported failure */
    st_polite_doing(NULL);
    ph[5] = st_lc_probe();
    if (rc == 0)
        st_log_info("archive written to %s/traces.otf2", st_archive_dir);
    st_an_inrun_report(&analysis, st_archive_dir, rc == 0); /* analysis.json, analysis.cubex, the summary */
    ph[6] = st_lc_probe();
    st_lc_report_phases("exit", 0, ph, &rd, rc == 0);
    st_rankdata_free(&rd);
    st_lc_heap_end();
}
