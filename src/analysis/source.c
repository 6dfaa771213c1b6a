/* source.c — the frames' source locations (source.h). */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/callpath.h"

/* Appends a frame (st_an_src_seal merges the frames of one path). */
static int add(st_an_src_t *s, const char *path, size_t plen, const char *file, uint32_t line, uint32_t fn_begin,
               uint32_t fn_end)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        st_an_frame_src_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v, s->cap = cap;
    }
    st_an_frame_src_t *f = &s->v[s->n];
    f->path = strndup(path, plen);
    f->file = strdup(file);
    f->line = line;
    f->fn_begin = fn_begin, f->fn_end = fn_end;
    if (!f->path || !f->file) {
        free(f->path), free(f->file);
        return -1;
    }
    s->n++;
    s->sealed = 0;
    return 0;
}

static int by_pc(const void *a, const void *b)
{
    uint64_t x = ((const st_callsite_t *)a)->pc, y = ((const st_callsite_t *)b)->pc;
    return (x > y) - (x < y);
}

/* Frame pc among the call sites sorted by pc, NULL if not there. */
static const st_callsite_t *site_of(const st_callsite_t *sorted, uint32_t n, uint64_t pc)
{
    st_callsite_t key = { .pc = pc };
    return n ? bsearch(&key, sorted, n, sizeof key, by_pc) : NULL;
}

/* One rank's frames: each node's path is its parent's plus its own function (parents come first). */
static int add_proc(st_an_src_t *s, const st_rel_proc_t *p)
{
    char **path = calloc(p->ncpnodes + 1, sizeof *path);
    st_callsite_t *sorted = malloc((p->ncallsites + 1) * sizeof *sorted); /* shallow copies */
    int rc = path && sorted ? 0 : -1;
    if (rc == 0 && p->ncallsites) {
        memcpy(sorted, p->callsites, p->ncallsites * sizeof *sorted);
        qsort(sorted, p->ncallsites, sizeof *sorted, by_pc);
    }
    for (uint32_t i = 0; rc == 0 && i < p->ncpnodes; i++) {
        const st_cpnode_t *c = &p->cpnodes[i];
        char file[256], fallback[32];
        uint32_t line;
        const st_callsite_t *site = site_of(sorted, p->ncallsites, c->pc);
        const char *text = site ? (site->text ? site->text : "") : NULL;
        if (!text) {
            snprintf(fallback, sizeof fallback, "0x%llx", (unsigned long long)c->pc);
            text = fallback; /* as the analysis names an unknown frame (callpath.c) */
        }
        char *func = malloc(strlen(text) + 1); /* a name of any length, whole */
        if (!func) {
            rc = -1;
            break;
        }
        st_callpath_split(text, func, strlen(text) + 1, file, sizeof file, &line);
        const char *up = c->parent < i ? path[c->parent] : NULL;
        size_t n = (up ? strlen(up) + 1 : 0) + strlen(func) + 1;
        if (!(path[i] = malloc(n))) {
            free(func);
            rc = -1;
            break;
        }
        snprintf(path[i], n, "%s%s%s", up ? up : "", up ? "/" : "", func);
        free(func);
        rc = add(s, path[i], strlen(path[i]), file, line, site ? site->fn_begin : 0, site ? site->fn_end : 0);
    }
    for (uint32_t i = 0; path && i < p->ncpnodes; i++)
        free(path[i]);
    free(path);
    free(sorted);
    return rc;
}

int st_an_src_add_procs(st_an_src_t *s, const st_rel_proc_t *procs, int32_t nprocs)
{
    for (int32_t r = 0; procs && r < nprocs; r++)
        if (procs[r].ncpnodes && add_proc(s, &procs[r]))
            return -1;
    return 0;
}

int st_an_src_pack(const st_an_src_t *s, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        fprintf(f, "%s\t%s\t%u\t%u\t%u\n", s->v[i].path, s->v[i].file, s->v[i].line, s->v[i].fn_begin,
                s->v[i].fn_end);
    return fclose(f) ? -1 : 0;
}

int st_an_src_unpack(st_an_src_t *s, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *t1 = nl ? memchr(p, '\t', (size_t)(nl - p)) : NULL;
        const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(nl - t1 - 1)) : NULL;
        if (!t2)
            return -1;
        char file[256], *num_end;
        snprintf(file, sizeof file, "%.*s", (int)(t2 - t1 - 1), t1 + 1);
        unsigned long v[3];
        num_end = (char *)t2;
        for (int k = 0; k < 3; k++) /* line, fn_begin, fn_end */
            if (*num_end != '\t' || (v[k] = strtoul(num_end + 1, &num_end, 10)) > UINT32_MAX)
                return -1;
        if (num_end != nl || add(s, p, (size_t)(t1 - p), file, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]))
            return -1;
        p = nl + 1;
    }
    return 0;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const st_an_frame_src_t *)a)->path, ((const st_an_frame_src_t *)b)->path);
}

/* Frames of one path: the file and line they agree on (a lattice: the result does not depend on the order). */
static void merge_into(st_an_frame_src_t *f, const st_an_frame_src_t *g)
{
    if (strcmp(f->file, g->file)) /* not the same file: neither is known */
        f->file[0] = 0, f->line = 0;
    else if (f->line != g->line)
        f->line = 0;
    if (f->fn_begin != g->fn_begin || f->fn_end != g->fn_end)
        f->fn_begin = f->fn_end = 0;
}

void st_an_src_seal(st_an_src_t *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, by_path);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k && !strcmp(s->v[k - 1].path, s->v[i].path)) {
            merge_into(&s->v[k - 1], &s->v[i]);
            free(s->v[i].path), free(s->v[i].file);
        } else {
            s->v[k++] = s->v[i];
        }
    }
    s->n = k;
    s->sealed = 1;
}

const st_an_frame_src_t *st_an_src_find(const st_an_src_t *s, const char *path, size_t len)
{
    size_t lo = 0, hi = s->sealed ? s->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *m = s->v[mid].path;
        int c = strncmp(m, path, len);
        if (c == 0)
            c = m[len] != 0; /* m longer than path: after it */
        if (c == 0)
            return &s->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *st_an_src_func(const st_an_src_t *s, const char *func, uint32_t *begin, uint32_t *end)
{
    const char *file = NULL;
    int lines = 1; /* every frame so far agrees on them */
    size_t fl = strlen(func);
    *begin = *end = 0;
    for (size_t i = 0; s->sealed && i < s->n; i++) {
        const st_an_frame_src_t *f = &s->v[i];
        size_t pl = strlen(f->path);
        if (pl < fl || strcmp(f->path + pl - fl, func) || (pl > fl && f->path[pl - fl - 1] != '/'))
            continue;
        if (lines && (!f->fn_begin || (file && (f->fn_begin != *begin || f->fn_end != *end))))
            lines = 0;
        if (!f->file[0] || (file && strcmp(file, f->file))) {
            *begin = *end = 0;
            return NULL;
        }
        file = f->file;
        *begin = lines ? f->fn_begin : 0, *end = lines ? f->fn_end : 0;
    }
    return file;
}

void st_an_src_free(st_an_src_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].path), free(s->v[i].file);
    free(s->v);
    memset(s, 0, sizeof *s);
}
