/*
 * report_html.c — the HTML report's data (report_html.h): one JSON object written between
 * the two halves of the embedded page. Everything is streamed to the file as it is computed;
 * what is held besides the archive and its analysis is per location (a stack of open regions,
 * or one location's bins) or a table of locations.
 *
 * Times are integer nanoseconds since the archive's global offset (as `synctrace dump`
 * counts), delta-coded where a sequence is long (the timeline, messages). The root causes (the
 * wait states' delayers, the critical path) are analysis.json's, on the page's locations.
 */
#include "report_html.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_GeneralDefinitions.h>
#include <otf2/OTF2_Definitions.h>

#include "../analysis/output.h"
#include "../analysis/rootcause.h"
#include "../util/fileio.h"
#include "../util/json.h"

/* Bins per location of an aggregated timeline. */
#define AGG_BINS 2000

typedef struct page {
    FILE                    *out;
    const st_cli_archive_t  *ar;
    const st_cli_analysis_t *a;
    long                    *loc_of; /* analysis location -> archive location index (-1: none) */
    uint64_t                 nevents;
    int                      full;   /* every event in the page (else aggregated) */
    int                      werr;   /* errno of the first failed write */
} page_t;

static int64_t ns(const page_t *p, uint64_t t)
{
    return (int64_t)llround(((double)t - (double)p->ar->offset) * 1e9 / (double)p->ar->resolution);
}

static void str(const page_t *p, const char *s) { st_json_string_html(p->out, s); }

/* ---- regions: name and the kind the timeline colours ------------------------------------------ */

static const char *region_kind(const st_cli_region_t *r)
{
    if (r->paradigm == OTF2_PARADIGM_MPI) {
        switch (r->role) {
        case OTF2_REGION_ROLE_POINT2POINT: return "mpi-p2p";
        case OTF2_REGION_ROLE_BARRIER: case OTF2_REGION_ROLE_COLL_ONE2ALL: case OTF2_REGION_ROLE_COLL_ALL2ONE:
        case OTF2_REGION_ROLE_COLL_ALL2ALL: case OTF2_REGION_ROLE_COLL_OTHER: return "mpi-coll";
        default: return "mpi";
        }
    }
    if (r->paradigm == OTF2_PARADIGM_OPENMP) {
        switch (r->role) {
        case OTF2_REGION_ROLE_PARALLEL: return "omp-par";
        case OTF2_REGION_ROLE_BARRIER: case OTF2_REGION_ROLE_IMPLICIT_BARRIER: case OTF2_REGION_ROLE_CRITICAL:
        case OTF2_REGION_ROLE_ORDERED: case OTF2_REGION_ROLE_TASK_WAIT: case OTF2_REGION_ROLE_ATOMIC:
            return "omp-sync";
        default: return "omp";
        }
    }
    if (r->paradigm == OTF2_PARADIGM_USER)
        return "user";
    return "other";
}

/* Index + 1 of the region with id in ar->regions (sorted by id); an id without definition gets
 * the extra entry after them ("?"), so an enter is never mistaken for a leave (code 0). */
static uint32_t region_code(const st_cli_archive_t *ar, uint32_t id)
{
    const st_cli_region_t *r = st_cli_region(ar, id);
    return (uint32_t)(r ? (size_t)(r - ar->regions) : ar->nregions) + 1;
}

static void regions(page_t *p)
{
    fputs(",\n\"regions\":[", p->out);
    for (size_t i = 0; i < p->ar->nregions; i++) {
        const st_cli_region_t *r = &p->ar->regions[i];
        fputs("[", p->out);
        str(p, st_cli_string(p->ar, r->name));
        fprintf(p->out, ",\"%s\"],", region_kind(r));
    }
    fputs("[\"?\",\"other\"]]", p->out);
}

/* ---- the analysis: metrics, call tree, locations, severities, worst instances ----------------- */

static void metrics(page_t *p)
{
    fputs(",\n\"metrics\":[", p->out);
    for (int m = 0; m < ST_AN__METRICS; m++) {
        const st_an_metric_def_t *d = st_an_metric(m);
        fputs(m ? ",\n[" : "[", p->out);
        str(p, d->uniq);
        fputc(',', p->out);
        str(p, d->disp);
        fprintf(p->out, ",%d,\"%s\",", d->parent, d->unit);
        str(p, d->descr);
        fputc(']', p->out);
    }
    fputs("]", p->out);
}

static void cnodes(page_t *p)
{
    const st_an_result_t *r = &p->a->res;
    fputs(",\n\"cnodes\":[", p->out);
    for (uint32_t k = 0; k < r->ncnodes; k++) {
        fprintf(p->out, "%s[%" PRId64 ",", k ? ",\n" : "",
                r->cnodes[k].parent == ST_AN_NO_CNODE ? (int64_t)-1 : (int64_t)r->cnodes[k].parent);
        str(p, st_an_cnode_name(r, k));
        fputc(']', p->out);
    }
    fputs("]", p->out);
}

static void locations(page_t *p)
{
    fputs(",\n\"locs\":[", p->out);
    for (size_t i = 0; i < p->ar->nlocs; i++) {
        const st_cli_location_t *l = &p->ar->locs[i];
        fprintf(p->out, "%s[%" PRId32 ",%" PRIu32 ",", i ? ",\n" : "", l->rank, l->thread);
        str(p, st_cli_string(p->ar, l->name));
        fputc(',', p->out);
        const char *node = st_cli_group_node(p->ar, (uint32_t)l->rank);
        str(p, node && *node ? node : "node");
        fputc(']', p->out);
    }
    fputs("]", p->out);
}

static double metric_scale(const page_t *p, int m)
{
    return !strcmp(st_an_metric(m)->unit, "sec") ? 1.0 / (double)p->ar->resolution : 1.0;
}

/* Nonzero severities, flat: metric, cnode, location (archive index), value (seconds or count). */
static void severities(page_t *p)
{
    const st_an_result_t *r = &p->a->res;
    int first = 1;
    fputs(",\n\"sev\":[", p->out);
    for (int m = 0; m < ST_AN__METRICS; m++) {
        double sc = metric_scale(p, m);
        for (uint32_t k = 0; k < r->ncnodes; k++)
            for (uint32_t l = 0; l < r->nlocs; l++) {
                double v = *st_an_sev(r, m, k, l);
                if (v <= 0 || p->loc_of[l] < 0)
                    continue;
                fprintf(p->out, "%s%d,%" PRIu32 ",%ld,%.9g", first ? "" : ",\n", m, k, p->loc_of[l], v * sc);
                first = 0;
            }
    }
    fputs("]", p->out);
}

/* The analysis' largest wait instances: metric, location, cnode, enter (ns), wait (ns). */
static void worst(page_t *p)
{
    const st_an_result_t *r = &p->a->res;
    int first = 1;
    fputs(",\n\"worst\":[", p->out);
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t i = 0; i < r->ntop[m]; i++) {
            const st_an_instance_t *x = &r->top[m][i];
            if (p->loc_of[x->loc] < 0)
                continue;
            fprintf(p->out, "%s[%d,%ld,%" PRIu32 ",%" PRId64 ",%.0f]", first ? "" : ",\n", m, p->loc_of[x->loc],
                    x->cnode, ns(p, x->time), x->value * 1e9 / (double)p->ar->resolution);
            first = 0;
        }
    fputs("]", p->out);
}

/* ---- root causes: the wait states with their delayers, the critical path ------------------------ */

/* "causes": per wait state [metric, cnode, waiting s, propagating s, [location, cnode, short-term s,
 * long-term s, ...]] (delayers largest first), as analysis.json's; absent without a root-cause
 * analysis. 0, or -1 when out of memory. */
static int causes(page_t *p)
{
    const st_an_result_t *r = &p->a->res;
    if (!r->causes)
        return 0;
    st_an_wstates_t ws;
    if (st_an_wstates(r, &ws))
        return -1;
    double sc = 1.0 / (double)p->ar->resolution;
    fputs(",\n\"causes\":[", p->out);
    for (size_t i = 0; i < ws.n; i++) {
        const st_an_wstate_t *w = &ws.v[i];
        fprintf(p->out, "%s[%d,%" PRIu32 ",%.9g,%.9g,[", i ? ",\n" : "", w->metric, w->cnode, w->wait * sc,
                w->propagating * sc);
        int first = 1;
        for (size_t j = 0; j < w->n; j++) {
            const st_rc_cause_t *x = &r->causes->v[ws.cause[w->first + j]];
            if (x->delay_loc >= r->nlocs || p->loc_of[x->delay_loc] < 0)
                continue;
            fprintf(p->out, "%s%ld,%" PRIu32 ",%.9g,%.9g", first ? "" : ",", p->loc_of[x->delay_loc], x->delay_cnode,
                    x->short_ticks * sc, x->long_ticks * sc);
            first = 0;
        }
        fputs("]]", p->out);
    }
    fputs("]", p->out);
    st_an_wstates_free(&ws);
    return 0;
}

/* "cpath": the critical path's hops in time order, flat [location, t0 ns, t1 ns, ...]. */
static void critical_path(page_t *p)
{
    const st_an_result_t *r = &p->a->res;
    if (!r->causes)
        return;
    int first = 1;
    fputs(",\n\"cpath\":[", p->out);
    for (size_t i = r->causes->npath; i-- > 0;) { /* stored end first */
        const struct st_rc_hop *h = &r->causes->path[i];
        if (h->loc >= r->nlocs || p->loc_of[h->loc] < 0)
            continue;
        fprintf(p->out, "%s%ld,%" PRId64 ",%" PRId64, first ? "" : ",\n", p->loc_of[h->loc], ns(p, h->t0), ns(p, h->t1));
        first = 0;
    }
    fputs("]", p->out);
}

/* ---- timeline, full detail: per location [dt, code, dt, code, ...] ----------------------------- */

/* code = region index + 1 for an enter, 0 for a leave; dt = ns since the location's previous
 * enter/leave (the first: since the offset). Other events are left out. */
static void timeline_full(page_t *p)
{
    fputs(",\n\"tl\":[", p->out);
    for (size_t i = 0; i < p->ar->nlocs; i++) {
        const st_cli_location_t *l = &p->ar->locs[i];
        int64_t prev = 0;
        int first = 1;
        fputs(i ? ",\n[" : "[", p->out);
        for (size_t k = 0; k < l->n; k++) {
            const st_event_t *e = &l->ev[k];
            if (e->kind != ST_EV_ENTER && e->kind != ST_EV_LEAVE)
                continue;
            int64_t t = ns(p, e->time);
            fprintf(p->out, "%s%" PRId64 ",%" PRIu32, first ? "" : ",", t - prev,
                    e->kind == ST_EV_ENTER ? region_code(p->ar, e->region) : 0);
            prev = t, first = 0;
        }
        fputc(']', p->out);
    }
    fputs("]", p->out);
}

/* ---- timeline, aggregated: per location and bin, the time under each kind of region ----------- */

static const char *const agg_kinds[] = { "mpi-p2p", "mpi-coll", "mpi", "omp-par", "omp-sync", "omp", "user", "other" };
#define NKINDS (sizeof agg_kinds / sizeof *agg_kinds)

static int kind_index(const st_cli_archive_t *ar, uint32_t code)
{
    const char *k = code && code <= ar->nregions ? region_kind(&ar->regions[code - 1]) : "other";
    for (size_t i = 0; i < NKINDS; i++)
        if (!strcmp(agg_kinds[i], k))
            return (int)i;
    return NKINDS - 1;
}

/* Adds [a, b) (ns) under kind to the bins of [t0, t0 + B * w). */
static void agg_add(double *bins, int64_t t0, double w, int64_t a, int64_t b, int kind)
{
    double x = (double)(a - t0) / w, y = (double)(b - t0) / w;
    if (x < 0) x = 0;
    if (y > AGG_BINS) y = AGG_BINS;
    for (long i = (long)x; i < AGG_BINS && (double)i < y; i++) {
        double lo = x > (double)i ? x : (double)i, hi = y < (double)(i + 1) ? y : (double)(i + 1);
        if (hi > lo)
            bins[i * (long)NKINDS + kind] += hi - lo;
    }
}

/* One location: the kind of the innermost open region owns the time up to the next enter/leave. */
static int agg_location(page_t *p, const st_cli_location_t *l, double *bins, int64_t t0, double w)
{
    size_t depth = 0, cap = 64;
    uint32_t *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    int64_t prev = 0;
    for (size_t k = 0; k < l->n; k++) {
        const st_event_t *e = &l->ev[k];
        if (e->kind != ST_EV_ENTER && e->kind != ST_EV_LEAVE)
            continue;
        int64_t t = ns(p, e->time);
        if (depth)
            agg_add(bins, t0, w, prev, t, kind_index(p->ar, stack[depth - 1]));
        prev = t;
        if (e->kind == ST_EV_LEAVE) {
            depth -= depth > 0;
            continue;
        }
        if (depth == cap) {
            uint32_t *grown = realloc(stack, 2 * cap * sizeof *stack);
            if (!grown) {
                free(stack);
                return -1;
            }
            stack = grown, cap *= 2;
        }
        stack[depth++] = region_code(p->ar, e->region);
    }
    free(stack);
    return 0;
}

/* "agg": {t0, width (ns per bin), kinds, v: per location [bin * kinds + kind] in permille of a bin}. */
static int timeline_aggregated(page_t *p)
{
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < p->ar->nlocs; i++)
        if (p->ar->locs[i].n) {
            int64_t a = ns(p, p->ar->locs[i].ev[0].time), b = ns(p, p->ar->locs[i].ev[p->ar->locs[i].n - 1].time);
            t0 = a < t0 ? a : t0, t1 = b > t1 ? b : t1;
        }
    if (t0 > t1)
        t0 = t1 = 0;
    double w = (double)(t1 - t0 + 1) / AGG_BINS;
    double *bins = malloc(AGG_BINS * NKINDS * sizeof *bins);
    if (!bins)
        return -1;
    fprintf(p->out, ",\n\"agg\":{\"t0\":%" PRId64 ",\"w\":%.6f,\"bins\":%d,\"kinds\":[", t0, w, AGG_BINS);
    for (size_t k = 0; k < NKINDS; k++)
        fprintf(p->out, "%s\"%s\"", k ? "," : "", agg_kinds[k]);
    fputs("],\"v\":[", p->out);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->ar->nlocs; i++) {
        memset(bins, 0, AGG_BINS * NKINDS * sizeof *bins);
        rc = agg_location(p, &p->ar->locs[i], bins, t0, w);
        fputs(i ? ",\n[" : "[", p->out);
        for (size_t b = 0; b < AGG_BINS * NKINDS; b++)
            fprintf(p->out, "%s%.0f", b ? "," : "", bins[b] * 1000);
        fputc(']', p->out);
    }
    fputs("]}", p->out);
    free(bins);
    return rc;
}

/* ---- messages and collective instances (the logical relations of the one derivation) --------- */

static int ref_event(const page_t *p, const st_rel_ref_t *ref, long *loc, int64_t *t)
{
    *loc = p->loc_of[ref->loc];
    if (*loc < 0 || ref->ev >= p->ar->locs[*loc].n)
        return -1;
    *t = ns(p, p->ar->locs[*loc].ev[ref->ev].time);
    return 0;
}

/* "msgs": flat [send loc, send ns - previous message's send ns, receive loc, receive ns - send ns]. */
static void messages(page_t *p)
{
    const st_rel_graph_t *g = &p->a->g;
    int64_t prev = 0;
    int first = 1;
    fputs(",\n\"msgs\":[", p->out);
    for (uint64_t k = 0; k < g->ninst; k++) {
        const st_rel_inst_t *in = &g->inst[k];
        if (st_rel_inst_type(in) != ST_REL_KEY_P2P || in->nsend != 1 || in->nrecv != 1)
            continue;
        long sl, rl;
        int64_t st, rt;
        if (ref_event(p, &g->refs[in->first], &sl, &st) || ref_event(p, &g->refs[in->first + 1], &rl, &rt))
            continue;
        fprintf(p->out, "%s%ld,%" PRId64 ",%ld,%" PRId64, first ? "" : ",\n", sl, st - prev, rl, rt - st);
        prev = st, first = 0;
    }
    fputs("]", p->out);
}

/* "colls": per MPI collective instance [loc, ns, loc, ns, ...] of its members' completing events. */
static void collectives(page_t *p)
{
    const st_rel_graph_t *g = &p->a->g;
    int first = 1;
    fputs(",\n\"colls\":[", p->out);
    for (uint64_t k = 0; k < g->ninst; k++) {
        const st_rel_inst_t *in = &g->inst[k];
        if (st_rel_inst_type(in) != ST_REL_KEY_COLL || in->nrecv < 2)
            continue;
        fputs(first ? "[" : ",\n[", p->out);
        first = 0;
        int any = 0;
        for (uint64_t j = in->first + in->nsend; j < in->first + in->nsend + in->nrecv; j++) {
            long l;
            int64_t t;
            if (ref_event(p, &g->refs[j], &l, &t) == 0)
                fprintf(p->out, "%s%ld,%" PRId64, any++ ? "," : "", l, t);
        }
        fputc(']', p->out);
    }
    fputs("]", p->out);
}

/* ---- time base: the archive's properties, each rank's, the analysis' consistency counts ------- */

static void time_base(page_t *p)
{
    const st_cli_archive_t *ar = p->ar;
    fputs(",\n\"props\":[", p->out);
    for (size_t i = 0, n = 0; i < ar->nprops; i++)
        if (!strncmp(ar->props[i].name, "SYNCTRACE::", 11)) {
            fputs(n++ ? ",[" : "[", p->out);
            str(p, ar->props[i].name + 11);
            fputc(',', p->out);
            str(p, ar->props[i].value);
            fputc(']', p->out);
        }
    fputs("],\n\"rankprops\":[", p->out);
    for (size_t i = 0, n = 0; i < ar->ngprops; i++) {
        const char *name = st_cli_string(ar, ar->gprops[i].name);
        if (strncmp(name, "SYNCTRACE::", 11) || ar->gprops[i].value == ST_CLI_NONE)
            continue;
        fprintf(p->out, "%s[%" PRIu32 ",", n++ ? ",\n" : "", ar->gprops[i].group);
        str(p, name + 11);
        fputc(',', p->out);
        str(p, st_cli_string(ar, ar->gprops[i].value));
        fputc(']', p->out);
    }
    const st_an_stats_t *s = &p->a->res.stats;
    fprintf(p->out, "],\n\"stats\":{\"unpaired\":%" PRIu64 ",\"ls_violations\":%" PRIu64 ",\"coll_violations\":%" PRIu64
                    ",\"coll_skipped\":%" PRIu64 "}", s->unpaired, s->ls_violations, s->coll_violations,
            s->coll_skipped);
}

/* ---- the page ---------------------------------------------------------------------------------- */

static void meta(page_t *p, uint64_t max_events)
{
    int64_t end = 0;
    for (size_t i = 0; i < p->ar->nlocs; i++)
        if (p->ar->locs[i].n) {
            int64_t t = ns(p, p->ar->locs[i].ev[p->ar->locs[i].n - 1].time);
            end = t > end ? t : end;
        }
    fputs("{\"meta\":{\"archive\":", p->out);
    str(p, p->ar->path);
    fprintf(p->out, ",\"ranks\":%" PRId32 ",\"locations\":%zu,\"events\":%" PRIu64 ",\"end\":%" PRId64
                    ",\"detail\":\"%s\",\"max_events\":%" PRIu64 "}",
            p->ar->nranks, p->ar->nlocs, p->nevents, end, p->full ? "full" : "aggregated", max_events);
}

/* The cause of the first failed write (0: none yet); stops the writing early. */
static int write_failed(page_t *p)
{
    if (!p->werr && ferror(p->out))
        p->werr = errno ? errno : EIO;
    return p->werr;
}

/* 0, -1 when out of memory, or 1 when a write failed (p->werr). */
static int write_data(page_t *p, uint64_t max_events)
{
    static void (*const sections[])(page_t *) = { regions, metrics, cnodes, locations, severities, worst, time_base };
    meta(p, max_events);
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        sections[i](p);
        if (write_failed(p))
            return 1;
    }
    int rc = causes(p);
    critical_path(p);
    if (rc == 0 && p->full) {
        timeline_full(p);
        messages(p);
        collectives(p);
    } else if (rc == 0) {
        rc = timeline_aggregated(p);
    }
    fputs("}\n", p->out);
    return rc ? rc : write_failed(p) ? 1 : 0;
}

int st_cli_report_html(const st_cli_archive_t *ar, const st_cli_analysis_t *a, const char *file,
                       uint64_t max_events)
{
    page_t p = { .ar = ar, .a = a };
    p.loc_of = malloc((a->in.nlocs + 1) * sizeof *p.loc_of);
    if (!p.loc_of) {
        fprintf(stderr, "synctrace: report: out of memory\n");
        return 1;
    }
    for (uint32_t l = 0; l < a->in.nlocs; l++)
        p.loc_of[l] = st_cli_location_find(ar, a->in.locs[l].rank, a->in.locs[l].thread);
    for (size_t i = 0; i < ar->nlocs; i++)
        p.nevents += ar->locs[i].n;
    p.full = p.nevents <= max_events;
    st_file_new_t nf; /* whole or not at all, and never through a link planted in the archive's directory */
    int oerr = st_file_new_open(&nf, file);
    if (oerr) {
        fprintf(stderr, "synctrace: report: cannot write %s: %s\n", file, strerror(oerr));
        free(p.loc_of);
        return 1;
    }
    p.out = nf.f;
    fputs(st_report_page_head, p.out);
    int rc = write_failed(&p) ? 1 : write_data(&p, max_events);
    if (rc == 0)
        fputs(st_report_page_tail, p.out);
    free(p.loc_of);
    int werr = st_file_new_commit(&nf, rc < 0 ? ENOMEM : p.werr);
    if (rc < 0)
        fprintf(stderr, "synctrace: report: out of memory\n");
    else if (werr)
        fprintf(stderr, "synctrace: report: cannot write %s: %s\n", file, strerror(werr));
    return rc || werr ? 1 : 0;
}
