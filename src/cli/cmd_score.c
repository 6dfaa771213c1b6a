/*
 * cmd_score.c — `synctrace score DIR [--filter] [--json] [--for SECONDS] [--min-visits N]
 * [--max-us-per-visit US]`: which regions fill the trace (bytes, visits, time, share), the
 * trace's size per rank now and for a longer run, and a proposed filter file (docs/score.md).
 * The profile is score.c's; this file reads the arguments and the event files' sizes and prints.
 */
#include "cli.h"
#include "score.h"
#include "../model/region.h"
#include "../util/json.h"


#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EVENT_MEM 64u       /* bytes of an event in a thread's buffer (model/event.h) */
#define FINALIZE_MEM 250u   /* bytes per event a rank needs at finalize (docs/performance.md) */

typedef struct opts {
    const char *dir;
    int filter, json;
    double for_s;            /* 0: no projection */
    st_score_rule_t rule;
} opts_t;

typedef struct sizes {
    uint64_t file_total, file_rank_max;  /* the .evt files as they are (0: not found) */
    uint64_t est_total, est_rank_max;    /* estimated .evt files */
    uint64_t ev_rank_max, ev_loc_max;    /* events of the largest rank / location */
    int32_t  nranks;
    double   seconds;                    /* first to last event */
    uint64_t buffer;                     /* SYNCTRACE_BUFFER of the run (8M when not recorded) */
    size_t   found;                      /* event files found */
} sizes_t;

/* ---- arguments ------------------------------------------------------------------------------- */

static int number(const char *s, double lo, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return !errno && end != s && !*end && *v >= lo;
}

static int parse(int argc, char **argv, opts_t *o)
{
    const st_cli_cmd_t *cmd = &st_cli_cmd_score;
    *o = (opts_t){.rule = {ST_SCORE_MIN_VISITS, ST_SCORE_MAX_NS_PER_VISIT}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "--filter"))
            o->filter = 1;
        else if (!strcmp(a, "--json"))
            o->json = 1;
        else if (!strcmp(a, "--for") || !strcmp(a, "--min-visits") || !strcmp(a, "--max-us-per-visit")) {
            if (i + 1 >= argc)
                return st_cli_usage_error(cmd, "%s needs a number", a);
            if (!number(argv[++i], strcmp(a, "--for") ? 0 : 1e-9, &v))
                return st_cli_usage_error(cmd, "%s: '%s' is no %s number", a, argv[i],
                                          strcmp(a, "--for") ? "non-negative" : "positive");
            if (!strcmp(a, "--for"))
                o->for_s = v;
            else if (!strcmp(a, "--min-visits"))
                o->rule.min_visits = (uint64_t)v;
            else
                o->rule.max_ns_per_visit = v * 1e3;
        } else if (a[0] == '-' && a[1])
            return st_cli_usage_error(cmd, "unknown option '%s'", a);
        else if (o->dir)
            return st_cli_usage_error(cmd, "unexpected argument '%s'", a);
        else
            o->dir = a;
    }
    if (!o->dir)
        return st_cli_usage_error(cmd, "missing archive directory");
    if (o->filter && o->json)
        return st_cli_usage_error(cmd, "--filter and --json exclude each other");
    return 0;
}

/* ---- sizes ----------------------------------------------------------------------------------- */

/* Why a region may not be filtered (the library's rule), by its name in the archive. */
static const char *unfilterable(const char *name)
{
    st_region_t r = st_score_region_id(name);
    if (r >= ST_REGION__COUNT)
        return "not a region synctrace records";
    return st_region_unfilterable(r);
}

/* The size of location id's event file: DIR/traces/ID.evt beside the anchor file. */
static int evt_size(const st_cli_archive_t *ar, uint64_t id, uint64_t *bytes)
{
    size_t n = strlen(ar->path);
    char *p = malloc(n + 48);
    if (!p)
        return -1;
    size_t stem = n > 5 && !strcmp(ar->path + n - 5, ".otf2") ? n - 5 : n;
    snprintf(p, n + 48, "%.*s/%" PRIu64 ".evt", (int)stem, ar->path, id);
    struct stat st;
    int rc = stat(p, &st);
    free(p);
    if (rc)
        return -1;
    *bytes = (uint64_t)st.st_size;
    return 0;
}

static void measure(const st_cli_archive_t *ar, const st_score_t *s, sizes_t *z)
{
    memset(z, 0, sizeof *z);
    z->nranks = ar->nranks;
    z->seconds = (double)(s->last - s->first) / (double)s->resolution;
    const char *buf = st_cli_prop(ar, "SYNCTRACE::BUFFER");
    z->buffer = buf && strtoull(buf, NULL, 10) ? strtoull(buf, NULL, 10) : 8u << 20;
    for (size_t i = 0, j; i < s->nlocs; i = j) { /* locations are sorted by rank */
        uint64_t file = 0, est = 0, ev = 0;
        for (j = i; j < s->nlocs && s->locs[j].rank == s->locs[i].rank; j++) {
            uint64_t b;
            if (!evt_size(ar, ar->locs[j].id, &b))
                file += b, z->found++;
            est += s->locs[j].file_bytes;
            ev += s->locs[j].events;
            z->ev_loc_max = s->locs[j].events > z->ev_loc_max ? s->locs[j].events : z->ev_loc_max;
        }
        z->file_total += file, z->est_total += est;
        z->file_rank_max = file > z->file_rank_max ? file : z->file_rank_max;
        z->est_rank_max = est > z->est_rank_max ? est : z->est_rank_max;
        z->ev_rank_max = ev > z->ev_rank_max ? ev : z->ev_rank_max;
    }
}

/* ---- text ------------------------------------------------------------------------------------ */

static const char *human(char *b, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(b, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return b;
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }

/* One row: a region's (group = its group), a group's (region "(group)") or the total (ALL, ALL). */
static void print_row(const st_score_row_t *r, uint64_t total, char flag, const char *group, const char *name)
{
    char b[32];
    double t = (double)r->time_ns / 1e9;
    double per = r->visits ? (double)r->time_ns / (double)r->visits / 1e3 : 0;
    printf("%c %-11s %11s %6.2f%% %11" PRIu64 " %12" PRIu64 " %12" PRIu64 " %11.6f %12.3f  %s\n", flag, group,
           human(b, sizeof b, (double)r->bytes), pct(r->bytes, total), r->visits_max, r->visits, r->events, t, per,
           name);
}

static void print_sizes(const sizes_t *z, const st_score_t *s, const opts_t *o, uint64_t saved)
{
    char a[32], b[32], c[32], d[32];
    printf("archive:        %s (%d ranks, %zu locations, %.3f s from the first to the last event)\n", o->dir,
           z->nranks, s->nlocs, z->seconds);
    printf("events:         %" PRIu64 " (largest rank %" PRIu64 ", largest location %" PRIu64 ")\n", s->events,
           z->ev_rank_max, z->ev_loc_max);
    if (z->found)
        printf("event files:    %s, largest rank %s (as written)\n", human(a, sizeof a, (double)z->file_total),
               human(b, sizeof b, (double)z->file_rank_max));
    printf("estimated:      %s, largest rank %s (the rows' records + OTF2 chunk headers", human(c, sizeof c, (double)z->est_total),
           human(d, sizeof d, (double)z->est_rank_max));
    if (z->found && z->file_total)
        printf("; %+.1f %% of the files", 100.0 * ((double)z->est_total - (double)z->file_total) / (double)z->file_total);
    printf(")\n");
    double scale = o->for_s > 0 && z->seconds > 0 ? o->for_s / z->seconds : 1;
    if (o->for_s > 0)
        printf("\nFor a run of %g s (x%.2f this one; events in proportion to the run's length):\n", o->for_s, scale);
    else
        printf("\nThis run's requirements (--for SECONDS projects them to a longer run):\n");
    double loc_ev = (double)z->ev_loc_max * scale, rank_ev = (double)z->ev_rank_max * scale;
    printf("  Estimated aggregate size of event trace:          %s (largest rank %s)\n",
           human(a, sizeof a, (double)z->est_total * scale), human(b, sizeof b, (double)z->est_rank_max * scale));
    printf("  Estimated requirements for largest trace buffer:  %s (%.0f events x %u B on the busiest thread)\n",
           human(c, sizeof c, loc_ev * EVENT_MEM), loc_ev, EVENT_MEM);
    char label[96];
    snprintf(label, sizeof label, "Full buffers (SYNCTRACE_BUFFER=%s):", human(d, sizeof d, (double)z->buffer));
    printf("  %-49s %.0f on that thread, each handed to the writer thread (SYNCTRACE_TMPDIR)\n", label,
           floor(loc_ev * EVENT_MEM / (double)z->buffer));
    printf("  Event buffers per thread:                         %s (twice that once a thread filled half of one)\n",
           human(a, sizeof a, (double)z->buffer));
    printf("  Memory at finalize (about %u B per event):       %s on the largest rank\n", FINALIZE_MEM,
           human(b, sizeof b, rank_ev * FINALIZE_MEM));
    if (saved)
        printf("  With the proposed filter (rows marked F):         event records %s smaller (-%.1f %%)\n",
               human(c, sizeof c, (double)saved * scale), pct(saved, s->bytes));
}

static void print_table(const st_score_t *s, const unsigned char *pick)
{
    st_score_row_t g[ST_SCORE__GROUPS], all = {.name = "ALL", .region = ST_CLI_NONE};
    st_score_groups(s->rows, s->nrows, g);
    printf("\n  %-11s %11s %7s %11s %12s %12s %11s %12s  %s\n", "group", "bytes", "share", "visits/loc", "visits",
           "events", "time (s)", "us/visit", "region");
    for (unsigned i = 0; i < ST_SCORE__GROUPS; i++) {
        all.visits += g[i].visits, all.events += g[i].events, all.bytes += g[i].bytes, all.time_ns += g[i].time_ns;
        all.visits_max = g[i].visits_max > all.visits_max ? g[i].visits_max : all.visits_max;
    }
    print_row(&all, s->bytes, ' ', "ALL", "ALL");
    for (unsigned i = 0; i < ST_SCORE__GROUPS; i++)
        if (g[i].events)
            print_row(&g[i], s->bytes, ' ', g[i].name, "(group)");
    printf("\n");
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i].events)
            print_row(&s->rows[i], s->bytes, pick[i] ? 'F' : ' ', st_score_group_name(s->rows[i].group),
                      s->rows[i].name);
    printf("\nF: in the proposed filter (synctrace score DIR --filter). visits/loc: the most on one location; time: "
           "inclusive, summed over locations.\n");
}

/* The calls the run's filter counted instead of recording: no bytes in the trace, their visits and time. */
static void print_filtered(const st_cli_archive_t *ar, const st_score_t *s)
{
    if (!s->nfiltered)
        return;
    const char *path = st_cli_prop(ar, "SYNCTRACE::FILTER");
    printf("\nFiltered: calls of %zu region(s) counted, not recorded (SYNCTRACE_FILTER=%s); none of their bytes are "
           "in the trace:\n", s->nfiltered, path ? path : "?");
    printf("  %-11s %11s %7s %11s %12s %12s %11s %12s  %s\n", "group", "bytes", "share", "visits/loc", "visits",
           "events", "time (s)", "us/visit", "region");
    for (size_t i = 0; i < s->nfiltered; i++)
        print_row(&s->filtered[i], s->bytes, '-', st_score_group_name(s->filtered[i].group), s->filtered[i].name);
    printf("\n-: filtered in this run (time: the calls' own, raw clock).\n");
}

static void print_filter(const st_score_t *s, const sizes_t *z, const opts_t *o, const unsigned char *pick,
                         size_t n, uint64_t saved)
{
    char a[32], b[32], c[32], d[32];
    printf("# Proposed by synctrace score --filter for %s\n", o->dir);
    printf("# Excluded: regions that may be filtered, visited at least %" PRIu64 " times on one location, at most "
           "%.3f us per visit on average (--min-visits, --max-us-per-visit).\n", o->rule.min_visits,
           o->rule.max_ns_per_visit / 1e3);
    printf("# Predicted: event records -%s of %s (-%.2f %%); event files about %s instead of %s.\n",
           human(a, sizeof a, (double)saved), human(b, sizeof b, (double)s->bytes), pct(saved, s->bytes),
           human(c, sizeof c, (double)(z->est_total > saved ? z->est_total - saved : 0)),
           human(d, sizeof d, (double)z->est_total));
    printf("# predicted_saved_bytes=%" PRIu64 " predicted_saved_percent=%.3f regions=%zu\n", saved,
           pct(saved, s->bytes), n);
    printf("SCOREP_REGION_NAMES_BEGIN\n");
    for (size_t i = 0; i < s->nrows; i++) {
        const st_score_row_t *r = &s->rows[i];
        if (!pick[i])
            continue;
        printf("  # %s, %.2f %% of the trace, %" PRIu64 " visits (%" PRIu64 " on one location), %.6f s, %.3f us "
               "per visit\n", human(a, sizeof a, (double)r->own_bytes), pct(r->own_bytes, s->bytes), r->visits,
               r->visits_max, (double)r->time_ns / 1e9, (double)r->time_ns / (double)r->visits / 1e3);
        printf("  EXCLUDE %s\n", r->name);
    }
    printf("SCOREP_REGION_NAMES_END\n");
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void json_row(const st_score_row_t *r, const char *pre, int picked)
{
    printf("%s{\"name\":", pre);
    st_json_string(stdout, r->name);
    printf(",\"group\":\"%s\",\"bytes\":%" PRIu64 ",\"own_bytes\":%" PRIu64 ",\"visits\":%" PRIu64
           ",\"visits_max\":%" PRIu64 ",\"events\":%" PRIu64 ",\"time_ns\":%" PRIu64 ",\"filter\":%s,\"unfilterable\":",
           st_score_group_name(r->group), r->bytes, r->own_bytes, r->visits, r->visits_max, r->events, r->time_ns,
           picked ? "true" : "false");
    if (r->unfilterable)
        st_json_string(stdout, r->unfilterable);
    else
        printf("null");
    printf("}");
}

static void print_json(const st_score_t *s, const sizes_t *z, const opts_t *o, const unsigned char *pick,
                       uint64_t saved)
{
    printf("{\"archive\":");
    st_json_string(stdout, o->dir);
    printf(",\"ranks\":%d,\"locations\":%zu,\"seconds\":%.9f,\"events\":%" PRIu64 ",\"record_bytes\":%" PRIu64
           ",\"estimated_file_bytes\":%" PRIu64 ",\"estimated_file_bytes_rank_max\":%" PRIu64
           ",\"file_bytes\":%" PRIu64 ",\"file_bytes_rank_max\":%" PRIu64 ",\"events_rank_max\":%" PRIu64
           ",\"events_location_max\":%" PRIu64 ",\"buffer\":%" PRIu64 ",\"filter_saved_bytes\":%" PRIu64,
           z->nranks, s->nlocs, z->seconds, s->events, s->bytes, z->est_total, z->est_rank_max, z->file_total,
           z->file_rank_max, z->ev_rank_max, z->ev_loc_max, z->buffer, saved);
    st_score_row_t g[ST_SCORE__GROUPS];
    st_score_groups(s->rows, s->nrows, g);
    printf(",\n\"groups\":[");
    for (unsigned i = 0; i < ST_SCORE__GROUPS; i++)
        json_row(&g[i], i ? ",\n " : "\n ", 0);
    printf("],\n\"regions\":[");
    int first = 1;
    for (size_t i = 0; i < s->nrows; i++)
        if (s->rows[i].events)
            json_row(&s->rows[i], first ? "\n " : ",\n ", pick[i]), first = 0;
    printf("],\n\"filtered\":[");
    for (size_t i = 0; i < s->nfiltered; i++)
        json_row(&s->filtered[i], i ? ",\n " : "\n ", 0);
    printf("]}\n");
}

/* ---- the command ----------------------------------------------------------------------------- */

static int run_score(int argc, char **argv)
{
    opts_t o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    st_cli_archive_t ar;
    if (st_cli_open(o.dir, &ar))
        return 1;
    st_score_t s;
    unsigned char *pick = NULL;
    if (st_score_build(&ar, unfilterable, &s) || !(pick = calloc(s.nrows ? s.nrows : 1, 1))) {
        fprintf(stderr, "synctrace: score: out of memory\n");
        st_score_free(&s);
        st_cli_archive_free(&ar);
        return 1;
    }
    sizes_t z;
    measure(&ar, &s, &z);
    st_score_rank(s.rows, s.nrows);
    uint64_t saved;
    size_t n = st_score_propose(s.rows, s.nrows, &o.rule, pick, &saved);
    if (o.filter)
        print_filter(&s, &z, &o, pick, n, saved);
    else if (o.json)
        print_json(&s, &z, &o, pick, saved);
    else {
        print_sizes(&z, &s, &o, saved);
        print_table(&s, pick);
        print_filtered(&ar, &s);
    }
    free(pick);
    st_score_free(&s);
    st_cli_archive_free(&ar);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "synctrace: score: cannot write the output\n");
        return 1;
    }
    return 0;
}

const st_cli_cmd_t st_cli_cmd_score = {
    .name = "score",
    .usage = "score DIR [--filter|--json] [--for S] [--min-visits N] [--max-us-per-visit US]",
    .summary = "which regions fill the trace; a proposed filter",
    .help = "Lists the regions of the archive in DIR by the bytes their events take in the trace\n"
            "(estimated from OTF2's record sizes), with their share, visits (the most on one location,\n"
            "and in all), events, inclusive time and time per visit, and per group (mpi-p2p, mpi-coll,\n"
            "mpi-rma, mpi-other, openmp, user, measurement). The header gives the trace's size (the event\n"
            "files as written and as estimated), the largest trace buffer and the memory a run needs.\n"
            "Rows marked F are what --filter proposes to exclude. docs/score.md explains every column.\n"
            "  --filter               print the proposed filter file (SYNCTRACE_FILTER, docs/filter.md):\n"
            "                         regions that may be filtered, visited often and briefly; the\n"
            "                         predicted shrink in its comments\n"
            "  --json                 the same figures as one JSON object\n"
            "  --for S                project the requirements to a run of S seconds\n"
            "  --min-visits N         propose regions visited at least N times on one location (10000)\n"
            "  --max-us-per-visit US  ... taking at most US microseconds per visit on average (10)\n",
    .reads_archive = 1,
    .run = run_score,
};
