/*
 * cmd_report.c — `synctrace report DIR [--metric NAME] [--top N] [--causes]`: the wait-state
 * analysis of an archive in the terminal; with --html the same analysis and the timeline as one
 * HTML page (report_html.h). Without --metric: the metric tree with totals and percent
 * of Time, the quality of the time base, and each wait state's worst instance. With
 * --metric: where that metric sits (call paths, locations, worst instances). With --causes: the
 * largest wait states with the delays that caused them and the critical path (output.h). The
 * analysis is recomputed from the archive (analyze.h), the same numbers `synctrace analyze` writes.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/output.h"
#include "../analysis/rootcause.h"
#include "analyze.h"
#include "report_html.h"

/* Wait-state metrics: time metrics with instances. One line each: total and the worst instance. */
static void worst(const st_cli_archive_t *ar, const st_cli_analysis_t *a)
{
    const st_an_result_t *r = &a->res;
    double sc = 1.0 / (double)(ar->resolution ? ar->resolution : 1);
    int any = 0;
    for (int m = 0; m < ST_AN__METRICS; m++) {
        if (!r->ntop[m])
            continue;
        const st_an_instance_t *x = &r->top[m][0];
        if (!any++)
            printf("worst instance of each wait state (synctrace report DIR --metric NAME for more):\n");
        printf("  %-24s %10.6f s at %.6f s, rank %d thread %u, ", st_an_metric(m)->uniq, x->value * sc,
               (double)(x->time - ar->offset) * sc, a->in.locs[x->loc].rank, a->in.locs[x->loc].thread);
        st_an_print_cnode_path(stdout, r, x->cnode);
        putchar('\n');
    }
}

typedef struct report_args {
    const char *dir, *metric, *out;
    unsigned long top;
    unsigned long long max_events;
    int html, causes;
} report_args_t;

/* A count option's value: 1 .. max. 0, or the usage error's exit code. */
static int count_arg(const char *opt, const char *v, unsigned long long max, unsigned long long *n)
{
    char *end;
    *n = strtoull(v, &end, 10);
    if (*end || !*v || *v == '-' || *n == 0 || *n > max)
        return st_cli_usage_error(&st_cli_cmd_report, "%s needs a count from 1, not '%s'", opt, v);
    return 0;
}

static int parse(int argc, char **argv, report_args_t *o)
{
    *o = (report_args_t){ .top = 10, .max_events = ST_REPORT_HTML_MAX_EVENTS };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long n;
        int rc;
        if (!strcmp(a, "--html")) {
            o->html = 1;
        } else if (!strcmp(a, "--causes")) {
            o->causes = 1;
        } else if (!strcmp(a, "--metric") || !strcmp(a, "--top") || !strcmp(a, "-o") || !strcmp(a, "--max-events")) {
            if (i + 1 == argc)
                return st_cli_usage_error(&st_cli_cmd_report, "%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--metric"))
                o->metric = v;
            else if (!strcmp(a, "-o"))
                o->out = v;
            else if ((rc = count_arg(a, v, a[2] == 't' ? 1000000ull : UINT64_MAX, &n)))
                return rc;
            else if (a[2] == 't')
                o->top = (unsigned long)n;
            else
                o->max_events = n;
        } else if (a[0] == '-' && a[1]) {
            return st_cli_usage_error(&st_cli_cmd_report, "unknown option '%s'", a);
        } else if (!o->dir) {
            o->dir = a;
        } else {
            return st_cli_usage_error(&st_cli_cmd_report, "unexpected argument '%s'", a);
        }
    }
    if (!o->dir)
        return st_cli_usage_error(&st_cli_cmd_report, "missing archive directory");
    if ((o->out || o->max_events != ST_REPORT_HTML_MAX_EVENTS) && !o->html)
        return st_cli_usage_error(&st_cli_cmd_report, "-o and --max-events go with --html");
    if (o->html && (o->metric || o->causes))
        return st_cli_usage_error(&st_cli_cmd_report, "%s is for the text report, not --html",
                                  o->metric ? "--metric" : "--causes");
    return 0;
}

/* The HTML page: report.html beside the archive's anchor file (DIR/report.html, also when DIR
 * names DIR/traces.otf2) unless -o names another file; prints the path. */
static int html(const report_args_t *o, const st_cli_archive_t *ar, const st_cli_analysis_t *a)
{
    char path[4096];
    const char *slash = strrchr(ar->path, '/');
    if (o->out)
        snprintf(path, sizeof path, "%s", o->out);
    else if (slash)
        snprintf(path, sizeof path, "%.*s/report.html", (int)(slash - ar->path), ar->path);
    else
        snprintf(path, sizeof path, "report.html");
    if (st_cli_report_html(ar, a, path, o->max_events))
        return 1;
    printf("%s\n", path);
    return 0;
}

static int run_report(int argc, char **argv)
{
    report_args_t o;
    int prc = parse(argc, argv, &o);
    if (prc)
        return prc;
    const char *dir = o.dir, *metric = o.metric;
    unsigned long top = o.top;
    int m = metric ? st_an_metric_find(metric) : -1;
    if (metric && m < 0)
        return st_cli_usage_error(&st_cli_cmd_report, "unknown metric '%s' (names: the right-hand column of the tree `synctrace report DIR` prints)", metric);
    if (o.causes && m >= 0 && st_rc_delay_metric(m) < 0)
        return st_cli_usage_error(&st_cli_cmd_report, "--causes --metric needs a wait state with delay costs "
                                  "(mpi_latesender, mpi_latereceiver, mpi_barrier_wait, mpi_wait_nxn, mpi_latebroadcast, "
                                  "mpi_earlyreduce, omp_ebarrier_wait, omp_ibarrier_wait, omp_idle_threads), not '%s'",
                                  metric);
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    st_cli_analysis_t a;
    char err[300];
    int rc = 1;
    if (st_cli_analyze(&ar, &a, err, sizeof err)) {
        fprintf(stderr, "synctrace: cannot analyse archive %s: %s\n", dir, err);
    } else {
        if (o.html) {
            rc = html(&o, &ar, &a);
        } else if (o.causes) {
            rc = st_an_print_causes(stdout, &a.res, ar.resolution, m, (unsigned)top) ? 1 : 0;
            if (rc)
                fprintf(stderr, "synctrace: report: out of memory\n");
        } else if (m >= 0) {
            rc = st_an_print_metric(stdout, &a.res, ar.resolution, ar.offset, m, (unsigned)top) ? 1 : 0;
        } else {
            st_an_print_summary(stdout, &a.res, ar.resolution);
            st_cli_print_time_base(stdout, &ar, &a.res);
            worst(&ar, &a);
            if (a.res.causes)
                printf("what caused the waiting (delays, propagation, critical path): synctrace report %s --causes\n", dir);
            rc = 0;
        }
        st_cli_analysis_free(&a);
    }
    st_cli_archive_free(&ar);
    return rc;
}

const st_cli_cmd_t st_cli_cmd_report = {
    .name = "report",
    .usage = "report DIR [--metric NAME] [--top N] [--causes] | report DIR --html [-o FILE] [--max-events N]",
    .summary = "wait-state report: metric tree, where one metric sits, or the causes of the waits",
    .help =
        "Prints the wait-state analysis of an archive (the values `synctrace analyze` writes;\n"
        "docs/analysis.md): the metric tree with totals in seconds and percent of Time, the\n"
        "quality of the time base (clock synchronization, what CLC corrected, violations\n"
        "left) and the worst instance of each wait state.\n"
        "  --metric NAME  where one metric sits instead: its top call paths and locations and\n"
        "                 its worst instances (time, rank, thread, call path). NAME is a\n"
        "                 metric's name: the tree's right-hand column (mpi_latesender,\n"
        "                 omp_ibarrier_wait, delay_latesender, critical_path, ...).\n"
        "  --causes       the root causes instead: the largest wait states (metric at a call\n"
        "                 path), each with how much of its waiting propagated (made others wait)\n"
        "                 and its largest delays (rank, thread, call path, seconds: short-term +\n"
        "                 long-term); then the critical path. With --metric: that wait state's.\n"
        "  --top N        how many call paths, locations, instances, wait states and delays\n"
        "                 (default 10)\n"
        "  --html         writes DIR/report.html instead (or -o FILE) and prints its path: one\n"
        "                 self-contained page (no network) with the metric, call and system\n"
        "                 trees, the timeline with messages, collectives and the critical path,\n"
        "                 the worst wait states (click to jump there), the causes (click a wait\n"
        "                 state: its delays) and the time base.\n"
        "  --max-events N every event in the page up to N events (default 1000000); beyond,\n"
        "                 the timeline shows each location's time per kind of region in bins.\n"
        "Exit 0 on success, 1 if the archive cannot be read, 2 on a usage error.\n",
    .reads_archive = 1,
    .run = run_report,
};
