/*
 * cmd_analyze.c — `synctrace analyze DIR [-o FILE]`: the wait-state analysis
 * (src/analysis) of an archive, serially. Loads the archive like `synctrace check`
 * (archive -> rank data -> CLC input and the graph of logical messages), analyses the
 * timestamps as written (after CLC if the archive was corrected), writes
 * DIR/analysis.json and DIR/analysis.cubex (or FILE) and prints the metric tree with totals and
 * the largest wait states with their top causes (as a traced run ends).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/output.h"
#include "../config/config.h"
#include "analyze.h"

/* Writes the JSON or CUBE4 file out (by its extension). 0, or -1 after a message. */
static int write_one(const char *out, const st_cli_archive_t *ar, const st_an_result_t *res)
{
    int err = st_an_write_file(out, res, ar->resolution);
    if (err)
        fprintf(stderr, "synctrace: analyze: cannot write %s: %s\n", out, strerror(err));
    return err ? -1 : 0;
}

int st_cli_analysis_report(const char *dir, const st_cli_archive_t *ar, const st_an_result_t *res, const char *out)
{
    char json[4096], cube[4096];
    snprintf(json, sizeof json, "%s/analysis.json", dir);
    snprintf(cube, sizeof cube, "%s/analysis.cubex", dir);
    if (out ? write_one(out, ar, res) : write_one(json, ar, res) || write_one(cube, ar, res))
        return 1;
    printf("wait-state analysis of %s (%u locations, %u call paths) -> %s\n", dir, res->nlocs, res->ncnodes,
           out ? out : "analysis.json, analysis.cubex");
    st_an_print_summary(stdout, res, ar->resolution);
    st_cli_print_time_base(stdout, ar, res);
    st_an_print_brief(stdout, res, ar->resolution, 5); /* the largest wait states and their top causes */
    return 0;
}

static int run_analyze(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (++i == argc)
                return st_cli_usage_error(&st_cli_cmd_analyze, "-o needs a file name");
            out = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return st_cli_usage_error(&st_cli_cmd_analyze, "unknown option '%s'", argv[i]);
        } else if (!dir) {
            dir = argv[i];
        } else {
            return st_cli_usage_error(&st_cli_cmd_analyze, "unexpected argument '%s'", argv[i]);
        }
    }
    if (!dir)
        return st_cli_usage_error(&st_cli_cmd_analyze, "missing archive directory");
    if (st_config_mpi_launched()) /* mpiexec -n N: the parallel analysis */
        return st_cli_analyze_parallel(dir, out);
    char err[300];
    st_cli_analysis_t a;
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    int rc = 1;
    if (st_cli_analyze(&ar, &a, err, sizeof err)) {
        fprintf(stderr, "synctrace: cannot analyse archive %s: %s\n", dir, err);
    } else {
        rc = st_cli_analysis_report(dir, &ar, &a.res, out);
        if (rc == 0)
            printf("analysis of %llu events: %.1f ms (logical messages %.1f ms)\n", (unsigned long long)a.nevents,
                   a.run_ms, a.graph_ms);
        st_cli_analysis_free(&a);
    }
    st_cli_archive_free(&ar);
    return rc;
}

const st_cli_cmd_t st_cli_cmd_analyze = {
    .name = "analyze",
    .usage = "analyze DIR [-o FILE]",
    .summary = "wait-state analysis (Scalasca's metrics) -> DIR/analysis.json, .cubex",
    .help =
        "Computes Scalasca's metrics, with its definitions and names (docs/analysis.md), for\n"
        "every call path and location (rank, thread): time, visits, the MPI and OpenMP wait\n"
        "states (Late Sender, Late Receiver, barrier and N x N waits, OpenMP barrier waits and\n"
        "idleness, ...), the MPI synchronization / communication counts and bytes, and, unless\n"
        "SYNCTRACE_ROOTCAUSE=off, the root causes of the waiting: delay costs (short- and\n"
        "long-term), direct / indirect and propagating / terminal wait states, the critical\n"
        "path and its imbalance metrics. `synctrace report DIR` prints the tree with each\n"
        "metric's name. Uses the timestamps as written (after CLC correction if the archive\n"
        "had it) and the logical messages of `synctrace check` (the same derivation as CLC).\n"
        "Writes DIR/analysis.json (schema in docs/analysis.md) and DIR/analysis.cubex (CUBE4,\n"
        "for Cube and other CUBE4 readers) and prints the metric tree with totals (seconds\n"
        "and percent of Time) and the quality of the time base. Exit 0 on success, 1 if the\n"
        "archive cannot be read or the result cannot be written, 2 on a usage error.\n"
        "Under an MPI launcher (`mpiexec -n N synctrace analyze DIR`, N at most the archive's\n"
        "ranks) the N processes analyse blocks of the archive's ranks in parallel, exchanging\n"
        "only what the patterns need (the in-run analysis's code); same values as serially.\n"
        "The MPI part is lib/<mpich|openmpi>/synctrace-analyze-mpi.so beside bin/, the launcher's\n"
        "family (mpiexec.mpich, mpirun.openmpi); synctrace itself links no MPI library.\n"
        "  -o FILE   write only FILE: CUBE4 if it ends in .cubex, else JSON\n",
    .reads_archive = 1,
    .run = run_analyze,
};
