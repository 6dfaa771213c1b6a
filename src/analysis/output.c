/*
 * output.c — analysis.json and the text summary (output.h).
 */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../model/region.h"
#include "../util/fileio.h"
#include "../util/json.h"
#include "cube.h"
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

int st_an_write_json(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    fprintf(f, "{\n  \"format\": \"synctrace-analysis\",\n  \"version\": 1,\n");
    json_metrics(f);
    json_tree(f, r);
    json_values(f, r, resolution);
    json_worst(f, r, resolution);
    const st_an_stats_t *s = &r->stats;
    fprintf(f, "  \"stats\": {\"unpaired\": %" PRIu64 ", \"ls_violations\": %" PRIu64 ", \"coll_violations\": %" PRIu64
               ", \"coll_skipped\": %" PRIu64 "}\n}\n",
            s->unpaired, s->ls_violations, s->coll_violations, s->coll_skipped);
    return ferror(f) ? -1 : 0;
}

/* ---- summary ------------------------------------------------------------------------------------ */

static void summary_metric(FILE *f, const st_an_result_t *r, uint64_t resolution, int m, int depth, double total_time)
{
    const st_an_metric_def_t *d = st_an_metric(m);
    double v = st_an_total(r, m) * scale(m, resolution);
    if (v <= 0 && m != ST_AN_M_TIME)
        return;
    int w = 2 * depth;
    if (!strcmp(d->unit, "sec"))
        fprintf(f, "%*s%-*s %12.6f s %6.2f%%  %s\n", w, "", 40 - w, d->disp, v,
                total_time > 0 ? 100.0 * v / total_time : 0.0, d->uniq);
    else
        fprintf(f, "%*s%-*s %14.0f %-8s %s\n", w, "", 40 - w, d->disp, v, d->unit, d->uniq);
    for (int c = 0; c < ST_AN__METRICS; c++)
        if (st_an_metric(c)->parent == m)
            summary_metric(f, r, resolution, c, depth + 1, total_time);
}

void st_an_print_summary(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    double total_time = st_an_total(r, ST_AN_M_TIME) * scale(ST_AN_M_TIME, resolution);
    for (int m = 0; m < ST_AN__METRICS; m++)
        if (st_an_metric(m)->parent == ST_AN_M_ROOT)
            summary_metric(f, r, resolution, m, 0, total_time);
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
    case ST_AN_M_OMP_FLUSH:
    case ST_AN_M_TIME: case ST_AN_M_MPI: case ST_AN_M_OMP: case ST_AN_M_OMP_SYNC: case ST_AN_M_OMP_BARRIER:
    case ST_AN_M_OMP_EBARRIER: case ST_AN_M_OMP_IBARRIER: case ST_AN_M_OMP_CRITICAL: case ST_AN_M_OMP_LOCK_API:
    case ST_AN_M_OMP_ORDERED: case ST_AN_M_OMP_TASKWAIT:
        return 1;
    default:
        return 0;
    }
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
    for (int i = 0; i < n && i < (int)top; i++) {
        double v = st_an_total(r, best[i]) * sc;
        fprintf(f, "  %-28s %12.6f s %6.2f%%\n", st_an_metric(best[i])->uniq, v, total > 0 ? 100 * v / total : 0.0);
    }
}

/* ---- one metric in detail ---------------------------------------------------------------------- */

void st_an_print_cnode_path(FILE *f, const st_an_result_t *r, uint32_t k)
{
    uint32_t depth = 0, c;
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
    int err = 0;
    if (ends_with(path, ".cubex")) {
        errno = 0;
        if (st_an_write_cube(path, r, resolution) != 0)
            err = errno ? errno : EIO;
    } else {
        FILE *f = fopen(path, "w");
        if (!f) {
            err = errno;
        } else {
            int bad = st_an_write_json(f, r, resolution);
            err = st_file_close(f);
            if (bad && !err)
                err = EIO;
        }
    }
    return err;
}
