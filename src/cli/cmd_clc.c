/*
 * cmd_clc.c — `synctrace clc IN OUT [--redo]`: the sequential reference CLC (st_clc_run,
 * src/clc/run.c) applied offline to an archive; writes the corrected archive OUT.
 *
 * The archive is turned back into the rank data the shim hands to its CLC and writer
 * (convert.c), so the logical messages come from the shim's derivation (src/relations/derive.c).
 * Parameters: those the run used (SYNCTRACE::CLC_* properties), else the defaults (mu 0,
 * docs/clc.md "mu"); a SYNCTRACE_CLC_* variable set to a value other than its default
 * overrides. --redo starts from the timestamps before CLC
 * (synctrace:orig_time), so an archive corrected at MPI_Finalize is corrected again from
 * its raw times: with the same parameters the result is identical, which
 * tests/clc/t_clc_offline.sh checks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clc/clc.h"
#include "../config/config.h"
#include "../model/rankdata.h"
#include "../otf2/writer.h"
#include "cli.h"
#include "convert.h"

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "synctrace: clc: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

/* ---- parameters ---------------------------------------------------------------------------------------- */

/* Default of a SYNCTRACE_* variable's field, from variables.def. */
static double var_default(const char *field)
{
    static const struct { const char *field, *def; } defs[] = {
#define ST_VAR(name, type, fld, def, lo, hi, accepted, doc) { #fld, def },
#include "../config/variables.def"
#undef ST_VAR
    };
    for (size_t i = 0; i < sizeof defs / sizeof *defs; i++)
        if (!strcmp(defs[i].field, field))
            return strtod(defs[i].def, NULL);
    return 0;
}

static int prop_u64(const st_cli_archive_t *ar, const char *name, uint64_t *v)
{
    const char *s = st_cli_prop(ar, name);
    char *end;
    if (!s || !*s)
        return 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end)
        return 0;
    *v = x;
    return 1;
}

static int prop_double(const st_cli_archive_t *ar, const char *name, double *v)
{
    const char *s = st_cli_prop(ar, name);
    char *end;
    if (!s || !*s)
        return 0;
    double x = strtod(s, &end);
    if (*end)
        return 0;
    *v = x;
    return 1;
}

static const char *params(const st_cli_archive_t *ar, st_clc_params_t *p, char *over, size_t n)
{
    const char *src = "the archive (SYNCTRACE::CLC_*)";
    if (!(prop_double(ar, "SYNCTRACE::CLC_GAMMA", &p->gamma) && prop_u64(ar, "SYNCTRACE::CLC_DELTA", &p->delta) &&
          prop_u64(ar, "SYNCTRACE::CLC_MU_INTRA", &p->mu_intra) &&
          prop_u64(ar, "SYNCTRACE::CLC_MU_INTER", &p->mu_inter) &&
          prop_u64(ar, "SYNCTRACE::CLC_MU_PROC", &p->mu_proc) && prop_double(ar, "SYNCTRACE::CLC_AMORT", &p->amort))) {
        st_config_t dflt = st_config;
        dflt.clc_gamma = var_default("clc_gamma"), dflt.clc_amort = var_default("clc_amort");
        dflt.clc_delta = dflt.clc_mu = 0, dflt.clc_mu_omp = var_default("clc_mu_omp");
        st_clc_params_from_config(p, &dflt, 1);
        src = "defaults";
    } else {
        p->mu_source = (uint8_t)st_clc_mu_source_parse(st_cli_prop(ar, "SYNCTRACE::CLC_MU_SOURCE"));
    }
    over[0] = 0;
#define OVER(cond, what, stmt)                                                                  \
    if (cond) {                                                                                 \
        stmt;                                                                                   \
        snprintf(over + strlen(over), n - strlen(over), "%s%s", over[0] ? ", " : "", what);     \
    }
    OVER(st_config.clc_gamma != var_default("clc_gamma"), "SYNCTRACE_CLC_GAMMA", p->gamma = st_config.clc_gamma)
    OVER(st_config.clc_amort != var_default("clc_amort"), "SYNCTRACE_CLC_AMORT", p->amort = st_config.clc_amort)
    OVER(st_config.clc_mu_omp != var_default("clc_mu_omp"), "SYNCTRACE_CLC_MU_OMP",
         p->mu_proc = (uint64_t)floor(st_config.clc_mu_omp))
    OVER(st_config.clc_delta > 0, "SYNCTRACE_CLC_DELTA", p->delta = (uint64_t)ceil(st_config.clc_delta))
    OVER(st_config.clc_mu > 0, "SYNCTRACE_CLC_MU",
         (p->mu_intra = p->mu_inter = (uint64_t)floor(st_config.clc_mu), p->mu_source = ST_CLC_MU_SRC_USER))
#undef OVER
    return src;
}

/* ---- the command ----------------------------------------------------------------------------------------- */

/* Corrects the converted data in place; moved events keep C in the writer's orig-time slot. */
static int correct(st_cli_ranks_t *c, const st_clc_params_t *p, st_clc_stats_t *s)
{
    int rc = st_clc_correct_rankdata(p, c->rd, c->nranks, st_rel_sync_regions, ST_REL_NSYNC, s, NULL);
    st_cli_ranks_unscale(c);
    return rc ? bad("out of memory during the correction") : 0;
}

static void summary(const char *out, const st_clc_stats_t *s, const st_clc_params_t *p, const char *src,
                    const char *over)
{
    printf("parameters: gamma=%g delta=%" PRIu64 " ns mu_intra=%" PRIu64 " ns mu_inter=%" PRIu64
           " ns (mu source %s) mu_omp=%" PRIu64 " ns amort=%g (from %s%s%s)\n",
           p->gamma, p->delta, p->mu_intra, p->mu_inter, st_clc_mu_source_name(p->mu_source), p->mu_proc, p->amort,
           src, *over ? "; overridden: " : "", over);
    static const char *const kinds[] = { "p2p", "collective", "omp" };
    for (int k = 0; k < ST_REL__KINDS; k++)
        printf("%-10s %" PRIu64 " relations, %" PRIu64 " reversed, %" PRIu64 " violations corrected, %" PRIu64
               " remaining\n",
               kinds[k], s->reversed.messages[k], s->reversed.violated[k], s->violations.violated[k],
               s->remaining.violated[k]);
    printf("events: %" PRIu64 ", moved %" PRIu64 " (max %" PRIu64 " ns, mean %" PRIu64 " ns)\n", s->events, s->moved,
           s->max_shift, s->moved ? s->sum_shift / s->moved : 0);
    printf("written: %s/traces.otf2\n", out);
}

static int any_moved(const st_cli_archive_t *ar)
{
    for (size_t l = 0; l < ar->nlocs; l++)
        for (size_t i = 0; i < ar->locs[l].n; i++)
            if (ar->locs[l].ev[i].flags & ST_EVF_CLC_MOVED)
                return 1;
    return 0;
}

static int run_clc(int argc, char **argv)
{
    const char *pos[2] = { NULL, NULL };
    int redo = 0, npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--redo"))
            redo = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return st_cli_usage_error(&st_cli_cmd_clc, "unknown option '%s'", argv[i]);
        else if (npos < 2)
            pos[npos++] = argv[i];
        else
            return st_cli_usage_error(&st_cli_cmd_clc, "unexpected argument '%s'", argv[i]);
    }
    if (npos < 2)
        return st_cli_usage_error(&st_cli_cmd_clc, "missing %s", npos ? "output directory" : "archive directory");
    char err[700];
    if (st_config_load(err, sizeof err) != 0) {
        fprintf(stderr, "synctrace: clc: %s\n", err);
        return 2;
    }
    st_cli_archive_t ar;
    if (st_cli_open(pos[0], &ar))
        return 1;
    int rc = 1;
    st_cli_ranks_t c = { 0 };
    st_clc_params_t p;
    st_clc_stats_t s;
    char over[200];
    const char *src = params(&ar, &p, over, sizeof over);
    if (!redo && any_moved(&ar)) {
        bad("%s was already corrected (events carry synctrace:orig_time); --redo corrects again from the times "
            "before CLC", pos[0]);
    } else if (st_clc_params_check(&p, err, sizeof err) != 0) {
        bad("%s", err);
    } else if (st_cli_convert(&ar, redo ? ST_CLI_CONV_RAW : 0, &c, err, sizeof err) != 0) {
        bad("%s", err);
    } else if (correct(&c, &p, &s) == 0) {
        const char *inc = st_cli_prop(&ar, "SYNCTRACE::INCOMPLETE");
        st_clc_params_emit(&p, "offline", st_rankdata_prop_str, &c.rd[0]);
        st_clc_stats_emit(&s, st_rankdata_prop_str, &c.rd[0]);
        if (st_otf2_write_serial(pos[1], c.rd, c.nranks, inc && !strcmp(inc, "true") ? ST_OTF2_INCOMPLETE : 0) == 0) {
            summary(pos[1], &s, &p, src, over);
            rc = 0;
        }
    }
    st_cli_ranks_free(&c);
    st_cli_archive_free(&ar);
    return rc;
}

const st_cli_cmd_t st_cli_cmd_clc = {
    .name = "clc",
    .usage = "clc IN OUT [--redo]",
    .summary = "apply the CLC correction offline; write the corrected archive OUT",
    .help =
        "Applies the controlled-logical-clock correction (the sequential reference of the one\n"
        "the library runs at MPI_Finalize) to the archive IN, typically recorded with\n"
        "SYNCTRACE_CLC=off, and writes the corrected archive to OUT (a new directory).\n"
        "Moved events carry their previous time as synctrace:orig_time; the statistics are\n"
        "SYNCTRACE::CLC_* properties ('synctrace info OUT').\n"
        "Parameters: those recorded in IN (SYNCTRACE::CLC_GAMMA, _DELTA, _MU_INTRA, _MU_INTER,\n"
        "_MU_PROC, _AMORT), else the defaults (mu 0: no latency bound known).\n"
        "SYNCTRACE_CLC_GAMMA, _DELTA, _MU, _MU_OMP and _AMORT override them when set to a\n"
        "value other than their default.\n"
        "  --redo   IN was corrected already: start from the times before CLC\n"
        "           (synctrace:orig_time); with the parameters of the run this reproduces\n"
        "           IN's timestamps exactly\n"
        "Exit status 0 on success, 1 on an unreadable or unconvertible archive or a write\n"
        "error (OUT must not hold an archive), 2 on a usage error.\n",
    .reads_archive = 1,
    .run = run_clc,
};
