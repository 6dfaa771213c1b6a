/*
 * output.c — analysis.json and the text summary (output.h), with the root causes as they show
 * (the wait states and their delayers, the critical path); `report --causes` is rc_output.c.
 */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../model/region.h"
#include "../util/decimal.h"
#include "../util/fileio.h"
#include "../util/json.h"
#include "cube.h"
#include "rootcause.h"
#include "source.h"

const char *st_an_cnode_name(const st_an_result_t *r, uint32_t cnode)
{
    if (cnode == 0)
        return "<root>";
    return st_an_region_name(r, r->cnodes[cnode].region);
}

void st_an_cnode_source(const st_an_result_t *r, uint32_t k, const char **file, uint32_t *line)
{
    *file = NULL, *line = 0;
    if (!r->src || k == 0 || k >= r->ncnodes || !ST_AN_IS_FUNC(r->cnodes[k].region))
        return;
    /* the frame's function path: the functions among k and its ancestors, outermost first */
    size_t len = 0, cap = 256;
    char *path = malloc(cap);
    for (uint32_t a = k; path && a != 0 && a < r->ncnodes; a = r->cnodes[a].parent) {
        if (!ST_AN_IS_FUNC(r->cnodes[a].region))
            continue;
        const char *name = st_an_region_name(r, r->cnodes[a].region);
        size_t nl = strlen(name), need = len + nl + (len ? 1 : 0) + 1;
        if (need > cap) {
            char *grown = realloc(path, cap = 2 * need);
            if (!grown) {
                free(path);
                return;
            }
            path = grown;
        }
        memmove(path + nl + (len ? 1 : 0), path, len); /* prepend the caller */
        memcpy(path, name, nl);
        if (len)
            path[nl] = '/';
        len += nl + (len ? 1 : 0);
    }
    const st_an_frame_src_t *fr = path ? st_an_src_find(r->src, path, len) : NULL;
    if (fr && fr->file[0])
        *file = fr->file, *line = fr->line;
    free(path);
}

static double scale(int m, uint64_t resolution)
{
    return !strcmp(st_an_metric(m)->unit, "sec") && resolution ? 1.0 / (double)resolution : 1.0;
}

/* ---- root causes: wait states and their delayers -------------------------------------------------- */

static const st_rc_causes_t *cmp_causes; /* qsort's context: single-threaded (output.h) */

static double cause_total(const st_rc_cause_t *c) { return c->short_ticks + c->long_ticks; }

double st_an_wstate_charged(const st_an_result_t *r, const st_an_wstates_t *ws, const st_an_wstate_t *w)
{
    double sum = 0;
    for (size_t j = 0; j < w->n; j++)
        sum += cause_total(&r->causes->v[ws->cause[w->first + j]]);
    return sum;
}

/* By wait state (metric, cnode), then the largest delay first, then delaying location and cnode. */
static int cmp_cause(const void *a, const void *b)
{
    const st_rc_cause_t *x = &cmp_causes->v[*(const size_t *)a], *y = &cmp_causes->v[*(const size_t *)b];
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if (x->wait_cnode != y->wait_cnode)
        return x->wait_cnode < y->wait_cnode ? -1 : 1;
    if (cause_total(x) != cause_total(y))
        return cause_total(x) > cause_total(y) ? -1 : 1;
    if (x->delay_loc != y->delay_loc)
        return x->delay_loc < y->delay_loc ? -1 : 1;
    return (x->delay_cnode > y->delay_cnode) - (x->delay_cnode < y->delay_cnode);
}

static int cmp_wstate(const void *a, const void *b)
{
    const st_an_wstate_t *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->cnode > y->cnode) - (x->cnode < y->cnode);
}

/* The wait state (metric, cnode) of ws->v[0 .. n), sorted; NULL if absent. */
static st_an_wstate_t *wstate_find(st_an_wstate_t *v, size_t n, int32_t metric, uint32_t cnode)
{
    st_an_wstate_t key = { .metric = metric, .cnode = cnode };
    return bsearch(&key, v, n, sizeof *v, cmp_wstate);
}

void st_an_wstates_free(st_an_wstates_t *ws)
{
    free(ws->v), free(ws->cause);
    memset(ws, 0, sizeof *ws);
}

int st_an_wstates(const st_an_result_t *r, st_an_wstates_t *ws)
{
    memset(ws, 0, sizeof *ws);
    const st_rc_causes_t *c = r->causes;
    if (!c || (!c->n && !c->nprop))
        return 0;
    ws->cause = malloc(sizeof *ws->cause * (c->n + 1));
    ws->v = malloc(sizeof *ws->v * (c->n + c->nprop + 1));
    if (!ws->cause || !ws->v) {
        st_an_wstates_free(ws);
        return -1;
    }
    for (size_t i = 0; i < c->n; i++)
        ws->cause[i] = i;
    cmp_causes = c;
    qsort(ws->cause, c->n, sizeof *ws->cause, cmp_cause);
    for (size_t i = 0; i < c->n; i++) { /* one wait state per run of causes */
        const st_rc_cause_t *x = &c->v[ws->cause[i]];
        if (ws->n && ws->v[ws->n - 1].metric == x->metric && ws->v[ws->n - 1].cnode == x->wait_cnode) {
            ws->v[ws->n - 1].n++;
            continue;
        }
        ws->v[ws->n++] = (st_an_wstate_t){ .metric = x->metric, .cnode = x->wait_cnode, .wait = -1, .first = i, .n = 1 };
    }
    size_t with_causes = ws->n;
    for (size_t i = 0; i < c->nprop; i++) { /* propagation records, of wait states with delayers or not */
        const struct st_rc_prop *p = &c->prop[i];
        st_an_wstate_t *w = wstate_find(ws->v, with_causes, p->metric, p->cnode);
        if (!w) {
            w = &ws->v[ws->n++];
            *w = (st_an_wstate_t){ .metric = p->metric, .cnode = p->cnode, .first = c->n };
        }
        w->wait = p->wait, w->propagating = p->propagating;
    }
    qsort(ws->v, ws->n, sizeof *ws->v, cmp_wstate);
    for (size_t i = 0; i < ws->n; i++) { /* no propagation record: the metric's values at the call path */
        st_an_wstate_t *w = &ws->v[i];
        if (w->wait >= 0)
            continue;
        w->wait = 0;
        if (w->metric >= 0 && w->metric < ST_AN__METRICS && w->cnode < r->ncnodes)
            for (uint32_t l = 0; l < r->nlocs; l++)
                w->wait += *st_an_sev(r, w->metric, w->cnode, l);
    }
    return 0;
}

uint64_t st_an_path_origin(const st_an_result_t *r)
{
    const st_rc_causes_t *c = r->causes;
    if (!c || !c->npath)
        return 0;
    uint64_t end = 0, begin = UINT64_MAX;
    for (size_t i = 0; i < c->npath; i++) {
        end = c->path[i].t1 > end ? c->path[i].t1 : end;
        begin = c->path[i].t0 < begin ? c->path[i].t0 : begin;
    }
    double len = st_an_total(r, ST_AN_M_CRITICAL_PATH);
    return len > 0 && len <= (double)end ? end - (uint64_t)(len + 0.5) : begin;
}

const char *st_an_loc_label(const st_an_result_t *r, uint32_t l, char *buf, size_t size)
{
    if (l >= r->nlocs)
        snprintf(buf, size, "location %" PRIu32, l);
    else if (r->locs[l].thread)
        snprintf(buf, size, "rank %" PRId32 " thread %" PRIu32, r->locs[l].rank, r->locs[l].thread);
    else
        snprintf(buf, size, "rank %" PRId32, r->locs[l].rank);
    return buf;
}

static void json_metrics(FILE *f)
{
    fprintf(f, "  \"metrics\": [\n");
    for (int m = 0; m < ST_AN__METRICS; m++) {
        const st_an_metric_def_t *d = st_an_metric(m);
        fprintf(f, "    {\"id\": %d, \"uniq_name\": ", m);
        st_json_string(f, d->uniq);
        fprintf(f, ", \"disp_name\": ");
        st_json_string(f, d->disp);
        fprintf(f, ", \"parent\": ");
        if (d->parent < 0)
            fprintf(f, "null");
        else
            st_json_string(f, st_an_metric(d->parent)->uniq);
        fprintf(f, ", \"unit\": \"%s\", \"descr\": ", d->unit);
        st_json_string(f, d->descr);
        fprintf(f, "}%s\n", m + 1 < ST_AN__METRICS ? "," : "");
    }
    fprintf(f, "  ],\n");
}

static void json_tree(FILE *f, const st_an_result_t *r)
{
    fprintf(f, "  \"cnodes\": [\n");
    for (uint32_t k = 0; k < r->ncnodes; k++) {
        fprintf(f, "    {\"id\": %" PRIu32 ", \"parent\": ", k);
        if (r->cnodes[k].parent == ST_AN_NO_CNODE)
            fprintf(f, "null");
        else
            fprintf(f, "%" PRIu32, r->cnodes[k].parent);
        fprintf(f, ", \"region\": ");
        st_json_string(f, st_an_cnode_name(r, k));
        const char *file;
        uint32_t line;
        st_an_cnode_source(r, k, &file, &line);
        if (file) {
            fprintf(f, ", \"file\": ");
            st_json_string(f, file);
        }
        if (file && line)
            fprintf(f, ", \"line\": %" PRIu32, line);
        fprintf(f, "}%s\n", k + 1 < r->ncnodes ? "," : "");
    }
    fprintf(f, "  ],\n  \"locations\": [\n");
    for (uint32_t l = 0; l < r->nlocs; l++)
        fprintf(f, "    {\"id\": %" PRIu32 ", \"rank\": %" PRId32 ", \"thread\": %" PRIu32 "}%s\n", l, r->locs[l].rank,
                r->locs[l].thread, l + 1 < r->nlocs ? "," : "");
    fprintf(f, "  ],\n");
}

static void json_values(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    int first = 1;
    fprintf(f, "  \"values\": [");
    for (int m = 0; m < ST_AN__METRICS; m++) {
        double sc = scale(m, resolution);
        for (uint32_t k = 0; k < r->ncnodes; k++)
            for (uint32_t l = 0; l < r->nlocs; l++) {
                double v = *st_an_sev(r, m, k, l);
                if (v <= 0)
                    continue;
                fprintf(f, "%s\n    {\"metric\": \"%s\", \"cnode\": %" PRIu32 ", \"location\": %" PRIu32
                           ", \"value\": %.17g}", first ? "" : ",", st_an_metric(m)->uniq, k, l, v * sc);
                first = 0;
            }
    }
    fprintf(f, "\n  ],\n");
}

/* The worst instances of each wait metric, largest first. */
static void json_worst(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    int first = 1;
    fprintf(f, "  \"worst\": [");
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t i = 0; i < r->ntop[m]; i++) {
            const st_an_instance_t *x = &r->top[m][i];
            fprintf(f, "%s\n    {\"metric\": \"%s\", \"value\": %.17g, \"time\": %" PRIu64 ", \"location\": %" PRIu32
                       ", \"cnode\": %" PRIu32 "}", first ? "" : ",", st_an_metric(m)->uniq,
                    x->value * scale(m, resolution), x->time, x->loc, x->cnode);
            first = 0;
        }
    fprintf(f, "\n  ],\n");
}

/* "causes": per wait state (by metric, then call path) its waiting, the part that propagated and its
 * delayers, largest first. */
static void json_causes(FILE *f, const st_an_result_t *r, const st_an_wstates_t *ws, double sc)
{
    fprintf(f, "  \"causes\": [");
    for (size_t i = 0; i < ws->n; i++) {
        const st_an_wstate_t *w = &ws->v[i];
        fprintf(f, "%s\n    {\"metric\": \"%s\", \"cnode\": %" PRIu32 ", \"wait\": %.17g, \"propagating\": %.17g, "
                   "\"delayers\": [", i ? "," : "", st_an_metric(w->metric)->uniq, w->cnode, w->wait * sc,
                w->propagating * sc);
        for (size_t j = 0; j < w->n; j++) {
            const st_rc_cause_t *x = &r->causes->v[ws->cause[w->first + j]];
            const st_an_loc_t *L = x->delay_loc < r->nlocs ? &r->locs[x->delay_loc] : &(st_an_loc_t){ -1, 0 };
            fprintf(f, "%s\n      {\"location\": %" PRIu32 ", \"rank\": %" PRId32 ", \"thread\": %" PRIu32
                       ", \"cnode\": %" PRIu32 ", \"short_term\": %.17g, \"long_term\": %.17g}",
                    j ? "," : "", x->delay_loc, L->rank, L->thread, x->delay_cnode, x->short_ticks * sc, x->long_ticks * sc);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n");
}

/* ---- the critical path's hops: tens of thousands per 10^6 events, two times each ---------------------- */

/* The decimal places of resolution when it is a power of ten (ticks of ns: 9), else -1. */
static int pow10_places(uint64_t resolution)
{
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10)
        if (p == resolution)
            return k;
        else if (p > UINT64_MAX / 10)
            break;
    return -1;
}

/* d ticks in seconds as a JSON number at b (48 bytes of room); returns the length. With a power-of-ten
 * resolution (places >= 0) the exact decimal, in its shortest form; else d * sc as %.17g. Both read back
 * as d / resolution, the first to the nearest double, the second within one step of it. */
static size_t ticks_json(char *b, int64_t d, int places, double sc)
{
    if (places < 0 || d == INT64_MIN) {
        int n = snprintf(b, 48, "%.17g", (double)d * sc);
        return n > 0 ? (size_t)n : 0;
    }
    size_t n = 0;
    uint64_t v = d < 0 ? (uint64_t)-d : (uint64_t)d, res = 1;
    for (int k = 0; k < places; k++)
        res *= 10;
    if (d < 0)
        b[n++] = '-';
    n += st_u64_dec(b + n, v / res);
    uint64_t frac = v % res;
    if (frac) {
        int keep = places;
        while (frac % 10 == 0)
            frac /= 10, keep--;
        b[n++] = '.';
        char t[21];
        size_t m = st_u64_dec(t, frac);
        for (size_t z = m; z < (size_t)keep; z++) /* leading zeros of the fraction */
            b[n++] = '0';
        memcpy(b + n, t, m);
        n += m;
    }
    return n;
}

static size_t put(char *b, const char *s)
{
    size_t n = strlen(s);
    memcpy(b, s, n);
    return n;
}

/* "critical_path": its hops in time order, [t0, t1) in seconds since the run's first event. Each line is made
 * here and written whole: with fprintf and %.17g (whose exact binary-to-decimal conversion alone took 2,600
 * instructions a number) writing analysis.json took 212 M instructions for a 10^6-event hybrid run, 31,695
 * hops; so 35 M. */
static void json_path(FILE *f, const st_an_result_t *r, uint64_t resolution, double sc)
{
    const st_rc_causes_t *c = r->causes;
    uint64_t origin = st_an_path_origin(r);
    int places = pow10_places(resolution);
    fprintf(f, "  \"critical_path\": [");
    for (size_t i = 0; i < c->npath; i++) {
        const struct st_rc_hop *h = &c->path[c->npath - 1 - i]; /* stored end first */
        const st_an_loc_t *L = h->loc < r->nlocs ? &r->locs[h->loc] : &(st_an_loc_t){ -1, 0 };
        char b[320];
        size_t n = put(b, i ? ",\n    {\"location\": " : "\n    {\"location\": ");
        n += st_u64_dec(b + n, h->loc);
        n += put(b + n, ", \"rank\": ");
        if (L->rank < 0)
            b[n++] = '-';
        n += st_u64_dec(b + n, L->rank < 0 ? (uint64_t)-(int64_t)L->rank : (uint64_t)L->rank);
        n += put(b + n, ", \"thread\": ");
        n += st_u64_dec(b + n, L->thread);
        n += put(b + n, ", \"t0\": ");
        n += ticks_json(b + n, (int64_t)(h->t0 - origin), places, sc);
        n += put(b + n, ", \"t1\": ");
        n += ticks_json(b + n, (int64_t)(h->t1 - origin), places, sc);
        b[n++] = '}';
        fwrite(b, 1, n, f);
    }
    fprintf(f, "\n  ],\n");
}

int st_an_write_json(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    st_an_wstates_t ws;
    if (st_an_wstates(r, &ws)) { /* before the first byte: no half-written file */
        errno = ENOMEM;
        return -1;
    }
    fprintf(f, "{\n  \"format\": \"synctrace-analysis\",\n  \"version\": 1,\n");
    json_metrics(f);
    json_tree(f, r);
    json_values(f, r, resolution);
    json_worst(f, r, resolution);
    if (r->causes) { /* the root-cause analysis ran (SYNCTRACE_ROOTCAUSE) */
        json_causes(f, r, &ws, scale(ST_AN_M_TIME, resolution));
        json_path(f, r, resolution, scale(ST_AN_M_TIME, resolution));
    }
    st_an_wstates_free(&ws);
    const st_an_stats_t *s = &r->stats;
    fprintf(f, "  \"stats\": {\"unpaired\": %" PRIu64 ", \"ls_violations\": %" PRIu64 ", \"coll_violations\": %" PRIu64
               ", \"coll_skipped\": %" PRIu64 "}\n}\n",
            s->unpaired, s->ls_violations, s->coll_violations, s->coll_skipped);
    return ferror(f) ? -1 : 0;
}

/* ---- summary ------------------------------------------------------------------------------------ */

/* The name column's width: the longest indented name of any metric (at least 40), so that the
 * values line up whatever the run shows. */
static int summary_name_width(void)
{
    int width = 40;
    for (int m = 0; m < ST_AN__METRICS; m++) {
        int depth = 0;
        for (int p = st_an_metric(m)->parent; p != ST_AN_M_ROOT && depth < ST_AN__METRICS; p = st_an_metric(p)->parent)
            depth++;
        int w = 2 * depth + (int)strlen(st_an_metric(m)->disp);
        width = w > width ? w : width;
    }
    return width;
}

static void summary_metric(FILE *f, const st_an_result_t *r, uint64_t resolution, int m, int depth, double total_time,
                           int width)
{
    const st_an_metric_def_t *d = st_an_metric(m);
    double v = st_an_total(r, m) * scale(m, resolution);
    if (v <= 0 && m != ST_AN_M_TIME)
        return;
    int w = 2 * depth;
    if (!strcmp(d->unit, "sec"))
        fprintf(f, "%*s%-*s %12.6f s %6.2f%%  %s\n", w, "", width - w, d->disp, v,
                total_time > 0 ? 100.0 * v / total_time : 0.0, d->uniq);
    else
        fprintf(f, "%*s%-*s %14.0f %-8s %s\n", w, "", width - w, d->disp, v, d->unit, d->uniq);
    for (int c = 0; c < ST_AN__METRICS; c++)
        if (st_an_metric(c)->parent == m)
            summary_metric(f, r, resolution, c, depth + 1, total_time, width);
}

void st_an_print_summary(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    double total_time = st_an_total(r, ST_AN_M_TIME) * scale(ST_AN_M_TIME, resolution);
    int width = summary_name_width();
    for (int pass = 0; pass < 2; pass++) /* the time trees (Time, Delay costs, Critical path, ...), then counts */
        for (int m = 0; m < ST_AN__METRICS; m++)
            if (st_an_metric(m)->parent == ST_AN_M_ROOT && (st_an_metric(m)->unit[0] == 's') == !pass)
                summary_metric(f, r, resolution, m, 0, total_time, width);
}

/* Metrics that sum the time of constructs or categories rather than a wait (their wait children are
 * listed). */
static int is_aggregate(int m)
{
    switch (m) {
    case ST_AN_M_EXECUTION: case ST_AN_M_COMP: case ST_AN_M_OVERHEAD: case ST_AN_M_MPI_MGMT:
    case ST_AN_M_MPI_INIT_EXIT: case ST_AN_M_MPI_MGMT_COMM: case ST_AN_M_MPI_MGMT_FILE: case ST_AN_M_MPI_MGMT_WIN:
    case ST_AN_M_MPI_SYNC: case ST_AN_M_MPI_SYNC_COLL: case ST_AN_M_MPI_COMM: case ST_AN_M_MPI_P2P:
    case ST_AN_M_MPI_COLL: case ST_AN_M_MPI_IO: case ST_AN_M_MPI_IO_INDIV: case ST_AN_M_MPI_IO_COLL:
    case ST_AN_M_RMA_SYNC: case ST_AN_M_RMA_SYNC_ACTIVE: case ST_AN_M_RMA_SYNC_PASSIVE: case ST_AN_M_RMA_COMM:
    case ST_AN_M_OMP_FLUSH:
    case ST_AN_M_TIME: case ST_AN_M_MPI: case ST_AN_M_OMP: case ST_AN_M_OMP_SYNC: case ST_AN_M_OMP_BARRIER:
    case ST_AN_M_OMP_EBARRIER: case ST_AN_M_OMP_IBARRIER: case ST_AN_M_OMP_CRITICAL: case ST_AN_M_OMP_LOCK_API:
    case ST_AN_M_OMP_ORDERED: case ST_AN_M_OMP_TASKWAIT:
        return 1;
    default:
        return 0;
    }
}

/* The top cause of wait-state metric m: at its largest wait state (call path), the largest delayer,
 * "Late Sender 1.200000 s at main/exchange/MPI_Recv: 1.100000 s caused by rank 2 in main/solve". */
static void brief_cause(FILE *f, const st_an_result_t *r, const st_an_wstates_t *ws, int m, double sc)
{
    const st_an_wstate_t *top = NULL;
    for (size_t i = 0; i < ws->n; i++)
        if (ws->v[i].metric == m && ws->v[i].n && (!top || ws->v[i].wait > top->wait))
            top = &ws->v[i];
    if (!top)
        return;
    const st_rc_cause_t *x = &r->causes->v[ws->cause[top->first]];
    char who[64];
    fprintf(f, "    %s %.6f s at ", st_an_metric(m)->disp, top->wait * sc);
    st_an_print_cnode_path(f, r, top->cnode);
    fprintf(f, ": %.6f s caused by %s in ", cause_total(x) * sc, st_an_loc_label(r, x->delay_loc, who, sizeof who));
    st_an_print_cnode_path(f, r, x->delay_cnode);
    double charged = st_an_wstate_charged(r, ws, top);
    if (st_an_wstate_mostly_uncharged(top, charged)) /* say so, or the line reads as the wait's whole story */
        fprintf(f, "; of the wait only %.6f s is charged to delays in all (the rest: no excess time of a delayer)",
                charged * sc);
    fputc('\n', f);
}

void st_an_print_brief(FILE *f, const st_an_result_t *r, uint64_t resolution, unsigned top)
{
    double sc = scale(ST_AN_M_TIME, resolution), total = st_an_total(r, ST_AN_M_TIME) * sc;
    int best[ST_AN__METRICS], n = 0;
    for (int m = 0; m < ST_AN__METRICS; m++)
        if (st_an_metric(m)->unit[0] == 's' && !is_aggregate(m) && is_aggregate(st_an_metric(m)->parent) &&
            st_an_total(r, m) > 0)
            best[n++] = m;
    for (int i = 1; i < n; i++) /* by total, largest first */
        for (int j = i; j > 0 && st_an_total(r, best[j]) > st_an_total(r, best[j - 1]); j--) {
            int t = best[j];
            best[j] = best[j - 1], best[j - 1] = t;
        }
    fprintf(f, "wait states: Time %.6f s over %u locations%s\n", total, r->nlocs, n ? "; largest:" : ", none found");
    st_an_wstates_t ws;
    int have_causes = st_an_wstates(r, &ws) == 0; /* out of memory: the lines without their causes */
    for (int i = 0; i < n && i < (int)top; i++) {
        double v = st_an_total(r, best[i]) * sc;
        fprintf(f, "  %-28s %12.6f s %6.2f%%\n", st_an_metric(best[i])->uniq, v, total > 0 ? 100 * v / total : 0.0);
        if (have_causes)
            brief_cause(f, r, &ws, best[i], sc);
    }
    st_an_wstates_free(&ws);
}

/* ---- one metric in detail ---------------------------------------------------------------------- */

void st_an_print_cnode_path(FILE *f, const st_an_result_t *r, uint32_t k)
{
    uint32_t depth = 0, c;
    if (k >= r->ncnodes) {
        fputc('?', f);
        return;
    }
    for (c = k; c != 0 && c != ST_AN_NO_CNODE && depth <= r->ncnodes; c = r->cnodes[c].parent)
        depth++;
    if (!depth)
        fputs(st_an_cnode_name(r, 0), f);
    for (uint32_t d = depth; d > 0; d--) { /* the root's child first: the d-th cnode up from k */
        c = k;
        for (uint32_t up = 1; up < d; up++)
            c = r->cnodes[c].parent;
        fprintf(f, "%s%s", d < depth ? "/" : "", st_an_cnode_name(r, c));
    }
}

typedef struct ranked { double v; uint32_t id; } ranked_t;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

static void print_value(FILE *f, int m, double v, double sc, double total_time)
{
    if (st_an_metric(m)->unit[0] == 's')
        fprintf(f, "%12.6f s %6.2f%%", v * sc, total_time > 0 ? 100.0 * v * sc / total_time : 0.0);
    else
        fprintf(f, "%14.0f %-7s", v, st_an_metric(m)->unit);
}

/* The n largest sums, over cnodes (by_loc 0) or locations (1), printed with label(). */
static int print_ranked(FILE *f, const st_an_result_t *r, int m, int by_loc, unsigned top,
                        double sc, double total_time)
{
    uint32_t n = by_loc ? r->nlocs : r->ncnodes;
    ranked_t *v = calloc(n + 1, sizeof *v);
    if (!v)
        return -1;
    for (uint32_t k = 0; k < r->ncnodes; k++)
        for (uint32_t l = 0; l < r->nlocs; l++)
            v[by_loc ? l : k].v += *st_an_sev(r, m, k, l);
    for (uint32_t i = 0; i < n; i++)
        v[i].id = i;
    qsort(v, n, sizeof *v, cmp_ranked);
    fprintf(f, "  %s:\n", by_loc ? "locations" : "call paths");
    for (uint32_t i = 0; i < n && i < top && v[i].v > 0; i++) {
        fprintf(f, "    ");
        print_value(f, m, v[i].v, sc, total_time);
        if (by_loc) {
            fprintf(f, "  rank %" PRId32 " thread %" PRIu32 "\n", r->locs[v[i].id].rank, r->locs[v[i].id].thread);
        } else {
            fprintf(f, "  ");
            st_an_print_cnode_path(f, r, v[i].id);
            fputc('\n', f);
        }
    }
    free(v);
    return 0;
}

int st_an_print_metric(FILE *f, const st_an_result_t *r, uint64_t resolution,
                       uint64_t origin, int m, unsigned top)
{
    const st_an_metric_def_t *d = st_an_metric(m);
    double sc = scale(m, resolution), total_time = st_an_total(r, ST_AN_M_TIME) * scale(ST_AN_M_TIME, resolution);
    fprintf(f, "%s [%s]: ", d->disp, d->uniq);
    print_value(f, m, st_an_total(r, m), sc, total_time);
    fprintf(f, "\n  %s\n", d->descr);
    if (print_ranked(f, r, m, 0, top, sc, total_time) || print_ranked(f, r, m, 1, top, sc, total_time))
        return -1;
    if (!r->ntop[m])
        return 0;
    fprintf(f, "  worst instances (enter time since the trace's start):\n");
    for (uint32_t i = 0; i < r->ntop[m] && i < top; i++) {
        const st_an_instance_t *x = &r->top[m][i];
        fprintf(f, "    %12.6f s  at %.6f s  rank %" PRId32 " thread %" PRIu32 "  ", x->value * sc,
                (double)(x->time - origin) * sc, r->locs[x->loc].rank, r->locs[x->loc].thread);
        st_an_print_cnode_path(f, r, x->cnode);
        fputc('\n', f);
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int st_an_write_file(const char *path, const st_an_result_t *r, uint64_t resolution)
{
    st_file_new_t n;
    int err = st_file_new_open(&n, path);
    if (err)
        return err;
    errno = 0;
    int bad = ends_with(path, ".cubex") ? st_an_write_cube(n.f, r, resolution) : st_an_write_json(n.f, r, resolution);
    return st_file_new_commit(&n, !bad ? 0 : errno == ENOMEM ? ENOMEM : EIO);
}
