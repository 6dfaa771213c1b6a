/*
 * analyze.c — an archive's wait-state analysis for the CLI (analyze.h).
 */
#include "analyze.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "../analysis/check.h"
#include "../clc/clc.h"
#include "../config/config.h"
#include "../util/clockread.h"

int st_cli_analyze(const st_cli_archive_t *ar, st_cli_analysis_t *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    if (st_cli_convert(ar, ST_CLI_CONV_CHECK, &a->rk, err, errlen))
        return -1;
    int rc = st_rel_input_from_rankdata(a->rk.rd, a->rk.nranks, &a->in);
    a->in.sync = st_rel_sync_regions, a->in.nsync = ST_REL_NSYNC;
    double t0 = st_clock_ms(CLOCK_MONOTONIC);
    if (rc == 0)
        rc = st_rel_graph_build(&a->in, &a->g);
    double t1 = st_clock_ms(CLOCK_MONOTONIC);
    if (rc == 0)
        rc = st_an_run(&a->in, &a->g, &a->res);
    a->graph_ms = t1 - t0, a->run_ms = st_clock_ms(CLOCK_MONOTONIC) - t1;
    for (uint32_t l = 0; l < a->in.nlocs; l++)
        a->nevents += a->in.locs[l].n;
    if (rc)
        snprintf(err, errlen, "out of memory");
    else if ((rc = st_cli_analysis_check(ar, &a->res)))
        snprintf(err, errlen, "the metric tree does not hold (SYNCTRACE_ANALYZE_CHECK=fail)");
    if (rc)
        st_cli_analysis_free(a);
    return rc;
}

int st_cli_analysis_check(const st_cli_archive_t *ar, const st_an_result_t *res)
{
    const char *lost = st_cli_prop(ar, "SYNCTRACE::EVENTS_LOST");
    if (!st_an_check_report(res, ar->resolution, lost && strtoull(lost, NULL, 10) > 0))
        return 0;
    char err[700];
    if (st_config_load(err, sizeof err) != 0) { /* SYNCTRACE_ANALYZE_CHECK: the only setting the analysis reads */
        fprintf(stderr, "synctrace: %s\n", err);
        return 0;
    }
    return st_config.analyze_check == ST_ANALYZE_CHECK_FAIL ? -1 : 0;
}

void st_cli_analysis_free(st_cli_analysis_t *a)
{
    st_an_free(&a->res);
    st_rel_graph_free(&a->g);
    st_rel_input_free(&a->in);
    st_cli_ranks_free(&a->rk);
    memset(a, 0, sizeof *a);
}

static const char *prop(const st_cli_archive_t *ar, const char *key, const char *none)
{
    const char *v = st_cli_prop(ar, key);
    return v ? v : none;
}

static uint64_t prop_sum(const st_cli_archive_t *ar, const char *prefix)
{
    static const char *const kinds[] = { "P2P", "COLL", "OMP" };
    uint64_t n = 0;
    char key[96];
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "%s_%s", prefix, kinds[k]);
        const char *v = st_cli_prop(ar, key);
        n += v ? strtoull(v, NULL, 10) : 0;
    }
    return n;
}

void st_cli_print_time_base(FILE *f, const st_cli_archive_t *ar, const st_an_result_t *res)
{
    fprintf(f, "time base: clock sync %s (interpolation error estimate %s ns, min RTT %s ns), CLC %s\n",
            prop(ar, "SYNCTRACE::SYNC_SCHEME", "?"), prop(ar, "SYNCTRACE::SYNC_INTERPOLATION_LOO_NS", "?"),
            prop(ar, "SYNCTRACE::SYNC_RTT_MIN_INTRA_NS", "?"), prop(ar, "SYNCTRACE::CLC_STATE", "not recorded"));
    fprintf(f, "  relations reversed before CLC: %" PRIu64 ", events moved by CLC: %s (largest shift %s ns)\n",
            prop_sum(ar, "SYNCTRACE::CLC_REVERSED"), prop(ar, "SYNCTRACE::CLC_MOVED", "?"),
            prop(ar, "SYNCTRACE::CLC_SHIFT_MAX_NS", "?"));
    fprintf(f, "  violations seen by the analysis: %" PRIu64 " receives before their send, %" PRIu64
               " collective ends before the reference begin\n",
            res->stats.ls_violations, res->stats.coll_violations);
}
