/*
 * cmd_info.c — `synctrace info DIR`: a readable summary of an archive: ranks, locations,
 * events by type, duration, buffer flushes, CLC-moved events, the incomplete flag and every
 * SYNCTRACE::* property (synchronization and CLC statistics written by the library).
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct summary {
    uint64_t by_kind[ST_EV__ALL];
    uint64_t total, first, last, moved, flushes;
    uint32_t min_threads, max_threads;
} summary_t;

static int is_flush_region(const st_cli_archive_t *ar, uint32_t region)
{
    const st_cli_region_t *r = st_cli_region(ar, region);
    return r && !strcmp(st_cli_string(ar, r->name), "TRACE BUFFER FLUSH");
}

static void count_threads(const st_cli_archive_t *ar, summary_t *s)
{
    s->min_threads = UINT32_MAX;
    for (size_t i = 0, j; i < ar->nlocs; i = j) {
        for (j = i + 1; j < ar->nlocs && ar->locs[j].rank == ar->locs[i].rank; j++)
            ;
        uint32_t n = (uint32_t)(j - i);
        s->min_threads = n < s->min_threads ? n : s->min_threads;
        s->max_threads = n > s->max_threads ? n : s->max_threads;
    }
}

static void summarize(const st_cli_archive_t *ar, summary_t *s)
{
    memset(s, 0, sizeof *s);
    s->first = UINT64_MAX;
    for (size_t i = 0; i < ar->nlocs; i++)
        for (size_t k = 0; k < ar->locs[i].n; k++) {
            const st_event_t *e = &ar->locs[i].ev[k];
            s->by_kind[e->kind < ST_EV__ALL ? e->kind : 0]++;
            s->total++;
            s->first = e->time < s->first ? e->time : s->first;
            s->last = e->time > s->last ? e->time : s->last;
            s->moved += (e->flags & ST_EVF_CLC_MOVED) != 0;
            s->flushes += e->kind == ST_EV_ENTER && is_flush_region(ar, e->region);
        }
    count_threads(ar, s);
}

static int truthy(const char *v)
{
    return v && strcasecmp(v, "0") && strcasecmp(v, "no") && strcasecmp(v, "false") && strcasecmp(v, "off") && *v;
}

/* Property value or "-". */
static const char *prop_or_dash(const st_cli_archive_t *ar, const char *name)
{
    const char *v = st_cli_prop(ar, name);
    return v && *v && strcmp(v, "-1") ? v : "-";
}

/* One SYNCTRACE_CLOCKCHECK result (sync.check.N: rank 0 measured every rank's global clock against its own),
 * in words; the property as it is if it does not read. */
static void print_check(int i, const char *check)
{
    double after_s, off_ns, bound_ns;
    int rank;
    if (sscanf(check, "after_s=%lf max_offset_ns=%lf rank=%d bound_ns=%lf", &after_s, &off_ns, &rank, &bound_ns) == 4)
        printf("  clock check %d  %.3f s after the initial sync: largest offset from rank 0's clock %.0f ns (rank %d), "
               "largest bound of any rank %.0f ns\n", i, after_s, off_ns, rank, bound_ns);
    else
        printf("  clock check %d  %s\n", i, check);
}

/*
 * The clock synchronization summary, from rank 0's SYNCTRACE::SYNC_* properties (src/clock/sync_mpi.c):
 * a duration "on rank 0" is rank 0's own, "on the slowest rank" the largest any rank had (the
 * _MAX properties); the resync durations are each rank's sum over all its resyncs; the round
 * trips the smallest any rank measured.
 */
static void print_sync(const st_cli_archive_t *ar)
{
    const char *scheme = st_cli_prop(ar, "SYNCTRACE::SYNC_SCHEME");
    if (!scheme)
        return;
    printf("clock sync:      %s on %s node(s), clock %s\n", scheme, prop_or_dash(ar, "SYNCTRACE::SYNC_NODES"),
           prop_or_dash(ar, "SYNCTRACE::SYNC_CLOCK"));
    printf("  initial sync   took %s ms on rank 0, %s ms on the slowest rank\n",
           prop_or_dash(ar, "SYNCTRACE::SYNC_INIT_MS"), prop_or_dash(ar, "SYNCTRACE::SYNC_INIT_MS_MAX"));
    printf("  resyncs        %s, all of them together took %s ms on rank 0, %s ms on the slowest rank\n",
           prop_or_dash(ar, "SYNCTRACE::SYNC_RESYNCS"), prop_or_dash(ar, "SYNCTRACE::SYNC_RESYNC_MS"),
           prop_or_dash(ar, "SYNCTRACE::SYNC_RESYNC_MS_MAX"));
    printf("  min RTT        %s ns within nodes, %s ns between nodes (the smallest of any rank)\n",
           prop_or_dash(ar, "SYNCTRACE::SYNC_RTT_MIN_INTRA_NS"), prop_or_dash(ar, "SYNCTRACE::SYNC_RTT_MIN_INTER_NS"));
    for (int i = 0; i < 8; i++) { /* SYNCTRACE_CLOCKCHECK results, one per check */
        char key[48];
        snprintf(key, sizeof key, "SYNCTRACE::SYNC_CHECK_%d", i);
        const char *check = st_cli_prop(ar, key);
        if (!check)
            break;
        print_check(i, check);
    }
}

/* What stamped the events (rank 0's SYNCTRACE::TIMER*; archives before it: nothing). */
static void print_stamps(const st_cli_archive_t *ar)
{
    const char *timer = st_cli_prop(ar, "SYNCTRACE::TIMER");
    if (!timer)
        return;
    const char *hz = st_cli_prop(ar, "SYNCTRACE::TIMER_TSC_HZ");
    if (strcmp(timer, "tsc") || !hz) {
        printf("  stamped by     %s\n", timer);
        return;
    }
    printf("  stamped by     tsc at %.6f MHz (%s clock); rank 0's %s calibration points: drift %s ns over the run, "
           "nonlinearity %s ns\n", atof(hz) / 1e6, prop_or_dash(ar, "SYNCTRACE::TIMER_TSC_SOURCE"),
           prop_or_dash(ar, "SYNCTRACE::TIMER_TSC_POINTS"), prop_or_dash(ar, "SYNCTRACE::TIMER_TSC_DRIFT_NS"),
           prop_or_dash(ar, "SYNCTRACE::TIMER_TSC_NONLINEARITY_NS"));
    const char *jump = st_cli_prop(ar, "SYNCTRACE::TIMER_TSC_JUMP_NS");
    if (jump)
        printf("  TSC jump       rank 0's counter jumped by %.3f s against the system clock during the run: event times "
               "after it are wrong\n", atof(jump) / 1e9);
}

/* Per region, the calls a filter removed (all locations). */
typedef struct removed {
    char     region[64];
    uint64_t visits, time;
} removed_t;

static int by_visits(const void *a, const void *b)
{
    const removed_t *x = a, *y = b;
    return x->visits != y->visits ? (x->visits < y->visits) - (x->visits > y->visits) : strcmp(x->region, y->region);
}

#define FILTER_TOP 5 /* regions listed by their removed calls */

/* The filter of the run (rank 0's SYNCTRACE::FILTER* properties) and the calls it removed (the
 * locations' SYNCTRACE::FILTERED_* properties), when there was one. */
static void print_filter(const st_cli_archive_t *ar)
{
    const char *path = st_cli_prop(ar, "SYNCTRACE::FILTER");
    st_cli_filtered_t *f;
    size_t n;
    if (st_cli_filtered(ar, &f, &n)) {
        fprintf(stderr, "synctrace info: out of memory reading the filtered calls\n");
        return;
    }
    if (!path && !n)
        return;
    printf("filter:          %s (%s), %s rule(s)\n", path ? path : "(not recorded)",
           prop_or_dash(ar, "SYNCTRACE::FILTER_DIGEST"), prop_or_dash(ar, "SYNCTRACE::FILTER_RULES"));
    for (int k = 1; k <= 64; k++) {
        char key[48];
        snprintf(key, sizeof key, "SYNCTRACE::FILTER_RULE_%d", k);
        const char *rule = st_cli_prop(ar, key);
        if (!rule)
            break;
        printf("  rule %-9d %s\n", k, rule);
    }
    removed_t *r = calloc(n + 1, sizeof *r);
    size_t nr = 0;
    uint64_t visits = 0, time = 0;
    for (size_t i = 0; r && i < n; i++) {
        size_t k = 0;
        while (k < nr && strcmp(r[k].region, f[i].region))
            k++;
        if (k == nr)
            snprintf(r[nr++].region, sizeof r->region, "%s", f[i].region);
        r[k].visits += f[i].visits, r[k].time += f[i].time;
        visits += f[i].visits, time += f[i].time;
    }
    printf("filtered calls:  %" PRIu64 " removed (all locations), %.6f s in them, %zu region(s)\n", visits,
           (double)time / 1e9, nr);
    if (r)
        qsort(r, nr, sizeof *r, by_visits);
    for (size_t k = 0; r && k < nr && k < FILTER_TOP; k++)
        printf("  %-30s %12" PRIu64 " calls %12.6f s\n", r[k].region, r[k].visits, (double)r[k].time / 1e9);
    if (nr > FILTER_TOP)
        printf("  (%zu more region(s))\n", nr - FILTER_TOP);
    free(r);
    free(f);
}

static void print_summary(const st_cli_archive_t *ar, const summary_t *s)
{
    printf("archive:         %s\n", ar->path);
    printf("ranks:           %d\n", ar->nranks);
    if (ar->nlocs)
        printf("locations:       %zu (threads per rank: %u..%u)\n", ar->nlocs, s->min_threads, s->max_threads);
    else
        printf("locations:       0\n");
    printf("events:          %" PRIu64 " (all locations)\n", s->total);
    for (unsigned k = 0; k < ST_EV__ALL; k++)
        if (s->by_kind[k])
            printf("  %-20s %" PRIu64 "\n", st_event_kind_name(k), s->by_kind[k]);
    double span = s->total ? (double)(s->last - s->first) : 0;
    printf("duration:        %.9f s (first to last event, %.0f ticks)\n", span / (double)ar->resolution, span);
    printf("timer:           %" PRIu64 " ticks/s, global offset %" PRIu64 "\n", ar->resolution, ar->offset);
    print_stamps(ar);
    printf("buffer flushes:  %" PRIu64 " (all locations)\n", s->flushes);
    printf("moved by CLC:    %" PRIu64 " events (all locations)\n", s->moved);
    const char *inc = st_cli_prop(ar, "SYNCTRACE::INCOMPLETE");
    const char *lost = st_cli_prop(ar, "SYNCTRACE::EVENTS_LOST");
    const char *end = st_cli_prop(ar, "SYNCTRACE::END"); /* a dump's reason ("?": the handler wrote none) */
    int ended = truthy(inc) && end && *end && strcmp(end, "?") != 0;
    if (truthy(inc) && lost)
        printf("incomplete:      yes (%s%s%s%s events lost: buffer flushes could not be written)\n", ended ? "ended by " : "",
               ended ? end : "", ended ? "; " : "", lost);
    else if (ended)
        printf("incomplete:      yes (ended by %s)\n", end);
    else
        printf("incomplete:      %s\n", truthy(inc) ? "yes (the run ended without MPI_Finalize)" : "no");
    print_sync(ar);
    print_filter(ar);
    int header = 0;
    for (size_t i = 0; i < ar->nprops; i++) {
        if (strncmp(ar->props[i].name, "SYNCTRACE::", 11))
            continue;
        if (!header++)
            printf("properties (rank 0's; after a recovery without rank 0, the lowest rank's):\n");
        printf("  %-40s %s\n", ar->props[i].name, ar->props[i].value);
    }
}

static int run_info(int argc, char **argv)
{
    const char *dir;
    int rc = st_cli_args(&st_cli_cmd_info, argc, argv, NULL, NULL, &dir);
    if (rc)
        return rc;
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    summary_t s;
    summarize(&ar, &s);
    print_summary(&ar, &s);
    st_cli_archive_free(&ar);
    return 0;
}

const st_cli_cmd_t st_cli_cmd_info = {
    .name = "info",
    .usage = "info DIR",
    .summary = "summary of an archive (ranks, events, duration, statistics)",
    .help = "Summarizes the archive in DIR (or DIR/traces.otf2): ranks, locations (threads),\n"
            "events by type, duration from the first to the last event, buffer flushes (count\n"
            "of 'TRACE BUFFER FLUSH' regions), events moved by the CLC correction, whether the\n"
            "run was incomplete (SYNCTRACE::INCOMPLETE), the filter of the run (SYNCTRACE_FILTER:\n"
            "its path, digest and rules) and the calls it removed (in all, and the regions with\n"
            "the most), and every SYNCTRACE::* property\n"
            "(clock synchronization and CLC statistics written by the library).\n",
    .reads_archive = 1,
    .run = run_info,
};
