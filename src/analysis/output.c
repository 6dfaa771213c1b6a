/*
 * output.c — analysis.json and the text summary (output.h).
 */
#include "output.h"

#include <inttypes.h>
#include <string.h>

#include "../record/region.h"

const char *st_an_cnode_name(const st_an_result_t *r, uint32_t cnode)
{
    if (cnode == 0)
        return "<root>";
    const st_region_info_t *ri = st_region_info(r->cnodes[cnode].region);
    return ri ? ri->name : "?";
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
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
        json_string(f, d->uniq);
        fprintf(f, ", \"disp_name\": ");
        json_string(f, d->disp);
        fprintf(f, ", \"parent\": ");
        if (d->parent < 0)
            fprintf(f, "null");
        else
            json_string(f, st_an_metric(d->parent)->uniq);
        fprintf(f, ", \"unit\": \"%s\", \"descr\": ", d->unit);
        json_string(f, d->descr);
        fprintf(f, "}%s\n", m + 1 < ST_AN__METRICS ? "," : "");
    }
    fprintf(f, "  ],\n");
}

static void json_tree(FILE *f, const st_an_result_t *r, const st_clc_input_t *in)
{
    fprintf(f, "  \"cnodes\": [\n");
    for (uint32_t k = 0; k < r->ncnodes; k++) {
        fprintf(f, "    {\"id\": %" PRIu32 ", \"parent\": ", k);
        if (r->cnodes[k].parent == ST_AN_NO_CNODE)
            fprintf(f, "null");
        else
            fprintf(f, "%" PRIu32, r->cnodes[k].parent);
        fprintf(f, ", \"region\": ");
        json_string(f, st_an_cnode_name(r, k));
        fprintf(f, "}%s\n", k + 1 < r->ncnodes ? "," : "");
    }
    fprintf(f, "  ],\n  \"locations\": [\n");
    for (uint32_t l = 0; l < r->nlocs; l++)
        fprintf(f, "    {\"id\": %" PRIu32 ", \"rank\": %" PRId32 ", \"thread\": %" PRIu32 "}%s\n", l, in->locs[l].rank,
                in->locs[l].thread, l + 1 < r->nlocs ? "," : "");
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

int st_an_write_json(FILE *f, const st_an_result_t *r, const st_clc_input_t *in, uint64_t resolution)
{
    fprintf(f, "{\n  \"format\": \"synctrace-analysis\",\n  \"version\": 1,\n");
    json_metrics(f);
    json_tree(f, r, in);
    json_values(f, r, resolution);
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
