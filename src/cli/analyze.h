/*
 * analyze.h — an archive's wait-state analysis for the CLI (`synctrace analyze`,
 * `synctrace report`): archive -> rank data (convert.h) -> CLC input and dependency graph
 * (src/clc, the derivation `synctrace check` uses) -> st_an_run (src/analysis).
 */
#ifndef ST_CLI_ANALYZE_H
#define ST_CLI_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../analysis/analysis.h"
#include "convert.h"

typedef struct st_cli_analysis {
    st_cli_ranks_t rk;
    st_rel_input_t in;  /* the locations of res, in archive order */
    st_rel_graph_t g;
    st_an_result_t res;
    uint64_t       nevents;
    double         graph_ms, run_ms; /* wall time of st_rel_graph_build and st_an_run */
} st_cli_analysis_t;

/* Analyses ar (timestamps as written). Returns 0, or -1 with a one-line reason in err
 * (a is then empty). Free with st_cli_analysis_free(). */
int st_cli_analyze(const st_cli_archive_t *ar, st_cli_analysis_t *a, char *err, size_t errlen);
void st_cli_analysis_free(st_cli_analysis_t *a);

/* The metric tree's invariants on res (src/analysis/check.h): a violation is named on stderr;
 * returns -1 if there is one and SYNCTRACE_ANALYZE_CHECK=fail, else 0.
 * st_cli_analyze checks its result itself. With events lost (ar's SYNCTRACE::EVENTS_LOST) a violation
 * is only a warning. */
int st_cli_analysis_check(const st_cli_archive_t *ar, const st_an_result_t *res);

/* Writes out (or DIR/analysis.json and DIR/analysis.cubex) for res and prints the summary and
 * the time base on stdout. 0, or 1 after a message. */
int st_cli_analysis_report(const char *dir, const st_cli_archive_t *ar, const st_an_result_t *res, const char *out);

/* `mpiexec -n N synctrace analyze DIR [-o FILE]`: runs st_cli_analyze_mpi from the plugin of the
 * launcher's MPI family (analyze_plugin.c); bin/synctrace itself links no MPI. Exit code; 1 after
 * one line (from the job's first process) when the plugin is not built or does not load. */
int st_cli_analyze_parallel(const char *dir, const char *out);

/* In the plugin (analyze_mpi.c, one build per MPI family): the parallel analysis (parallel_mpi.h)
 * over blocks of the archive's ranks; rank 0 writes and prints as the serial command. Exit code. */
typedef int st_cli_analyze_mpi_fn(const char *dir, const char *out);
st_cli_analyze_mpi_fn st_cli_analyze_mpi;

/* The quality of the time base the values stand on, a few lines from the archive's
 * properties: clock synchronization, CLC state, what it corrected, violations left. */
void st_cli_print_time_base(FILE *f, const st_cli_archive_t *ar, const st_an_result_t *res);

#endif
