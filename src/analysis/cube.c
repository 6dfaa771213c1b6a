/*
 * cube.c — CUBE4 (.cubex) writer (cube.h): ustar container, anchor.xml, sparse index and
 * data per metric.
 */
#include "cube.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/region.h"
#include "output.h"
#include "source.h"

/* ---- ustar ---------------------------------------------------------------------------------------- */

/* One member: a 512-byte header, the data, zero padding to a multiple of 512. */
static int tar_member(FILE *f, const char *name, const void *data, size_t size)
{
    unsigned char h[512] = { 0 };
    snprintf((char *)h, 100, "%s", name);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
    memcpy(h + 136, "00000000000", 12);
    memset(h + 148, ' ', 8);
    h[156] = '0';
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum); /* six digits, NUL, then the space already there */
    h[155] = ' ';
    static const unsigned char zero[512];
    size_t pad = (512 - size % 512) % 512;
    return fwrite(h, 1, 512, f) == 512 && (!size || fwrite(data, 1, size, f) == size) &&
           (!pad || fwrite(zero, 1, pad, f) == pad) ? 0 : -1;
}

/* ---- the call tree in DFS preorder ------------------------------------------------------------------ */

typedef struct cube {
    const st_an_result_t *r;
    uint64_t  resolution;
    uint32_t *pos;      /* cnode -> DFS position (its CUBE id) */
    uint32_t *order;    /* DFS position -> cnode */
    uint32_t  nregions;
    uint32_t *region_of; /* cnode -> CUBE region id */
    uint32_t *regions;   /* CUBE region id -> st region (UINT32_MAX: the root's) */
    int       metric_id[ST_AN__METRICS]; /* CUBE metric ids, in DFS order of the metric tree */
} cube_t;

static void dfs(cube_t *c, uint32_t k, uint32_t *next)
{
    c->pos[k] = *next;
    c->order[(*next)++] = k;
    for (uint32_t ch = c->r->cnodes[k].first_child; ch != ST_AN_NO_CNODE; ch = c->r->cnodes[ch].next)
        dfs(c, ch, next);
}

static int regions(cube_t *c)
{
    const st_an_result_t *r = c->r;
    c->region_of = malloc(sizeof(uint32_t) * r->ncnodes);
    c->regions = malloc(sizeof(uint32_t) * r->ncnodes);
    if (!c->region_of || !c->regions)
        return -1;
    for (uint32_t k = 0; k < r->ncnodes; k++) {
        uint32_t reg = k ? r->cnodes[k].region : UINT32_MAX, id = 0;
        while (id < c->nregions && c->regions[id] != reg)
            id++;
        if (id == c->nregions)
            c->regions[c->nregions++] = reg;
        c->region_of[k] = id;
    }
    return 0;
}

/* ---- anchor.xml --------------------------------------------------------------------------------------- */

static void xml_escaped(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

static void xml_text(FILE *f, const char *tag, const char *s)
{
    fprintf(f, "<%s>", tag);
    xml_escaped(f, s);
    fprintf(f, "</%s>", tag);
}

static int is_time(int m) { return st_an_metric(m)->unit[0] == 's'; }

static void xml_metric(FILE *f, cube_t *c, int m, int *next)
{
    const st_an_metric_def_t *d = st_an_metric(m);
    c->metric_id[m] = (*next)++;
    fprintf(f, "<metric id=\"%d\" type=\"EXCLUSIVE\">", c->metric_id[m]);
    xml_text(f, "disp_name", d->disp);
    xml_text(f, "uniq_name", d->uniq);
    xml_text(f, "dtype", is_time(m) ? "FLOAT" : "UINT64");
    xml_text(f, "uom", is_time(m) ? "sec" : d->unit);
    fprintf(f, "<url>@mirror@scalasca_patterns.html#%s</url>", d->uniq);
    xml_text(f, "descr", d->descr);
    fputc('\n', f);
    for (int ch = 0; ch < ST_AN__METRICS; ch++)
        if (st_an_metric(ch)->parent == m)
            xml_metric(f, c, ch, next);
    fprintf(f, "</metric>\n");
}

static void xml_attr(FILE *f, const char *key, const char *s)
{
    fprintf(f, " %s=\"", key);
    xml_escaped(f, s);
    fputc('"', f);
}

/* A function's cnode carries the file and line of the call its frames made, as Scalasca's cnodes
   of Score-P calling contexts do ("line" and "mod", cubew's order). */
static void xml_cnode(FILE *f, const cube_t *c, uint32_t k)
{
    const char *file;
    uint32_t line;
    st_an_cnode_source(c->r, k, &file, &line);
    fprintf(f, "<cnode id=\"%u\"", c->pos[k]);
    if (file && line)
        fprintf(f, " line=\"%u\"", line);
    if (file)
        xml_attr(f, "mod", file);
    fprintf(f, " calleeId=\"%u\">\n", c->region_of[k]);
    for (uint32_t ch = c->r->cnodes[k].first_child; ch != ST_AN_NO_CNODE; ch = c->r->cnodes[ch].next)
        xml_cnode(f, c, ch);
    fprintf(f, "</cnode>\n");
}

static void xml_program(FILE *f, const cube_t *c)
{
    fprintf(f, "<program>\n");
    for (uint32_t id = 0; id < c->nregions; id++) {
        uint32_t reg = c->regions[id];
        const st_region_info_t *ri = reg == UINT32_MAX || ST_AN_IS_FUNC(reg) ? NULL : st_region_info(reg);
        const char *name = reg == UINT32_MAX ? "synctrace:trace" : st_an_region_name(c->r, reg);
        const char *paradigm = ST_AN_IS_FUNC(reg) ? "user" : !ri ? "measurement" : ri->paradigm == ST_PARADIGM_MPI ? "mpi"
                             : ri->paradigm == ST_PARADIGM_OPENMP ? "openmp" : "user";
        uint32_t begin = 0, end = 0; /* 0: unknown, "-1" in CUBE */
        const char *mod = ST_AN_IS_FUNC(reg) && c->r->src ? st_an_src_func(c->r->src, name, &begin, &end) : NULL;
        fprintf(f, "<region id=\"%u\"", id);
        xml_attr(f, "mod", mod ? mod : "");
        fprintf(f, " begin=\"%lld\" end=\"%lld\">", begin ? (long long)begin : -1, end ? (long long)end : -1);
        xml_text(f, "name", name);
        xml_text(f, "mangled_name", name);
        xml_text(f, "paradigm", paradigm);
        xml_text(f, "role", "function");
        fprintf(f, "<url></url><descr></descr></region>\n");
    }
    xml_cnode(f, c, 0);
    fprintf(f, "</program>\n");
}

/* Locations grouped by rank, in the result's order (the data's column order). */
static void xml_system(FILE *f, const cube_t *c)
{
    const st_an_result_t *r = c->r;
    fprintf(f, "<system>\n<systemtreenode Id=\"0\"><name>machine</name><class>machine</class>\n");
    uint32_t group = 0;
    for (uint32_t l = 0; l < r->nlocs; l++) {
        if (l == 0 || r->locs[l].rank != r->locs[l - 1].rank) {
            if (l)
                fprintf(f, "</locationgroup>\n");
            fprintf(f, "<locationgroup Id=\"%u\"><name>rank %d</name><rank>%d</rank><type>process</type>\n", group++,
                    r->locs[l].rank, r->locs[l].rank);
        }
        fprintf(f, "<location Id=\"%u\"><name>thread %u</name><rank>%u</rank><type>thread</type></location>\n", l,
                r->locs[l].thread, r->locs[l].thread);
    }
    if (r->nlocs)
        fprintf(f, "</locationgroup>\n");
    fprintf(f, "</systemtreenode>\n<topologies>\n</topologies>\n</system>\n");
}

static int anchor(FILE *out, cube_t *c)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return -1;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.4\">\n"
               "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n<attr key=\"synctrace::analysis\" value=\"1\"/>\n"
               "<doc><mirrors><murl>https://apps.fz-juelich.de/scalasca/releases/scalasca/2.6/help/</murl>"
               "</mirrors></doc>\n<metrics>\n");
    int next = 0;
    for (int m = 0; m < ST_AN__METRICS; m++)
        if (st_an_metric(m)->parent == ST_AN_M_ROOT)
            xml_metric(f, c, m, &next);
    fprintf(f, "</metrics>\n");
    xml_program(f, c);
    xml_system(f, c);
    fprintf(f, "</cube>\n");
    int rc = fclose(f) ? -1 : tar_member(out, "anchor.xml", buf, n);
    free(buf);
    return rc;
}

/* ---- index and data ------------------------------------------------------------------------------------ */

/* Metric m's own value at (cnode, loc): its whole amount minus its children's (metric-tree exclusive), the nkids
 * metrics at kids in the metric order. The children are looked up once per metric: found again for every value,
 * they made a 4-rank run's 335-event cube cost 27 M instructions (129 metrics x 129 x cnodes x locations). */
static double own(const st_an_result_t *r, int m, const int *kids, int nkids, uint32_t k, uint32_t l)
{
    double v = *st_an_sev(r, m, k, l);
    for (int i = 0; i < nkids; i++)
        v -= *st_an_sev(r, kids[i], k, l);
    return v > 0 ? v : 0; /* rounding of derived differences never goes below 0 */
}

static int metric_files(FILE *out, const cube_t *c, int m)
{
    const st_an_result_t *r = c->r;
    size_t nl = r->nlocs, rows = 0;
    uint32_t *pos = malloc(sizeof(uint32_t) * (r->ncnodes + 1));
    unsigned char *data = malloc(10 + (size_t)r->ncnodes * nl * 8 + 1), *idx = malloc(23 + 4 * (size_t)r->ncnodes + 1);
    int rc = pos && data && idx ? 0 : -1;
    double sc = is_time(m) && c->resolution ? 1.0 / (double)c->resolution : 1.0;
    int kids[ST_AN__METRICS], nkids = 0, time = is_time(m);
    for (int ch = 0; ch < ST_AN__METRICS; ch++)
        if (st_an_metric(ch)->parent == m)
            kids[nkids++] = ch;
    if (rc == 0) {
        memcpy(data, "CUBEX.DATA", 10);
        for (uint32_t p = 0; p < r->ncnodes; p++) {
            uint32_t k = c->order[p];
            int any = 0;
            unsigned char *row = data + 10 + rows * nl * 8; /* kept only when a value is above 0 */
            for (uint32_t l = 0; l < nl; l++) {
                double o = own(r, m, kids, nkids, k, l), v = o * sc;
                uint64_t u = (uint64_t)(v + 0.5);
                any |= o > 0;
                memcpy(row + 8 * l, time ? (void *)&v : (void *)&u, 8); /* x86-64 / aarch64: little-endian */
            }
            if (any)
                pos[rows++] = p;
        }
        uint32_t one = 1, nrows = (uint32_t)rows;
        uint16_t version = 0;
        memcpy(idx, "CUBEX.INDEX", 11);
        memcpy(idx + 11, &one, 4);
        memcpy(idx + 15, &version, 2);
        idx[17] = 1; /* SPARSE */
        memcpy(idx + 18, &nrows, 4);
        memcpy(idx + 22, pos, 4 * rows);
        char name[32];
        snprintf(name, sizeof name, "%d.index", c->metric_id[m]);
        rc = tar_member(out, name, idx, 22 + 4 * rows);
        snprintf(name, sizeof name, "%d.data", c->metric_id[m]);
        if (rc == 0)
            rc = tar_member(out, name, data, 10 + rows * nl * 8);
    }
    free(pos), free(data), free(idx);
    return rc;
}

int st_an_write_cube(FILE *f, const st_an_result_t *r, uint64_t resolution)
{
    cube_t c = { .r = r, .resolution = resolution };
    c.pos = malloc(sizeof(uint32_t) * (r->ncnodes + 1));
    c.order = malloc(sizeof(uint32_t) * (r->ncnodes + 1));
    int rc = c.pos && c.order && r->ncnodes ? regions(&c) : -1;
    if (rc == 0) {
        uint32_t next = 0;
        dfs(&c, 0, &next);
        /* anchor.xml assigns the metric ids the files are named by; it is written last, as cubew does */
        char *tmp = NULL;
        size_t n = 0;
        FILE *sink = open_memstream(&tmp, &n);
        rc = sink ? anchor(sink, &c) : -1;
        for (int m = 0; rc == 0 && m < ST_AN__METRICS; m++)
            rc = metric_files(f, &c, m);
        if (sink && fclose(sink))
            rc = -1;
        if (rc == 0 && fwrite(tmp, 1, n, f) != n)
            rc = -1;
        free(tmp);
        static const unsigned char end[1024];
        if (rc == 0 && fwrite(end, 1, sizeof end, f) != sizeof end)
            rc = -1;
    }
    free(c.pos), free(c.order), free(c.region_of), free(c.regions);
    if (rc && !errno)
        errno = EIO;
    return rc;
}
