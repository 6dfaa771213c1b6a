/* frames.c — see frames.h. */
#include "frames.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/symbols.h"
#include "../util/addr2line.h"

typedef struct frame {
    uint64_t pc;
    st_callsite_t *site; /* where the name goes (its owned text) and its function's lines */
    const char *obj; /* the object file */
    st_a2l_t a2l;
} frame_t;

typedef struct mapping {
    uint64_t start, end, base;
    const char *path; /* into the pseudo call site's text */
} mapping_t;

static int by_pc(const void *a, const void *b)
{
    uint64_t x = ((const st_callsite_t *)a)->pc, y = ((const st_callsite_t *)b)->pc;
    return (x > y) - (x < y);
}

/* n hex numbers, each followed by one space, then a path; 0, or -1 if text is not such a text. */
static int parse(const char *text, uint64_t *num, int n, const char **path)
{
    char *end;
    for (int i = 0; i < n; i++) {
        num[i] = strtoull(text, &end, 16);
        if (end == text || *end != ' ')
            return -1;
        text = end + 1;
    }
    *path = text;
    return *text == '/' ? 0 : -1;
}

/* The code mappings the dump carries (pseudo call sites), taken out of rd->callsites into *maps (sorted). */
static size_t take_maps(st_rankdata_t *rd, mapping_t **maps, char ***keep)
{
    size_t n = 0, k = 0;
    *maps = calloc(rd->ncallsites + 1, sizeof **maps);
    *keep = calloc(rd->ncallsites + 1, sizeof **keep); /* the texts the mappings point into */
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites; i++) {
        st_callsite_t *s = &rd->callsites[i];
        uint64_t num[3];
        const char *path;
        int is_map = s->pc >> 63 && s->text && !strncmp(s->text, "@map ", 5);
        if (is_map && *maps && *keep && parse(s->text + 5, num, 3, &path) == 0) {
            (*maps)[n++] = (mapping_t){ .start = num[0], .end = num[1], .base = num[2], .path = path };
            (*keep)[n - 1] = s->text;
            continue;
        }
        if (is_map) {
            free(s->text);
            continue;
        }
        rd->callsites[k++] = *s;
    }
    rd->ncallsites = (uint32_t)k;
    return n;
}

static const mapping_t *find_map(const mapping_t *m, size_t n, uint64_t at)
{
    for (size_t i = 0; i < n; i++) /* a few dozen code mappings */
        if (at >= m[i].start && at < m[i].end)
            return &m[i];
    return NULL;
}

/* The events' call sites without a text yet, as new call sites with empty texts; returns how many. */
static size_t add_event_sites(st_rankdata_t *rd)
{
    size_t n = rd->ncallsites, cap = n + 16;
    st_callsite_t *cs = realloc(rd->callsites, cap * sizeof *cs);
    if (!cs)
        return 0;
    rd->callsites = cs;
    if (n > 1)
        qsort(cs, n, sizeof *cs, by_pc);
    size_t known = n;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; rd->threads[t].events && i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            st_callsite_t key = { .pc = e->aux };
            if (e->kind != ST_EV_ENTER || !e->aux || (known && bsearch(&key, cs, known, sizeof key, by_pc)))
                continue;
            int seen = 0;
            for (size_t k = known; k < n && !seen; k++) /* new ones: few distinct call sites */
                seen = cs[k].pc == e->aux;
            if (seen)
                continue;
            if (n == cap) {
                st_callsite_t *g = realloc(cs, (cap *= 2) * sizeof *g);
                if (!g)
                    break;
                rd->callsites = cs = g;
            }
            cs[n++] = (st_callsite_t){ .pc = e->aux, .text = NULL };
        }
    rd->ncallsites = (uint32_t)n;
    return n - known;
}

/* The call sites of rd to name: call-path frames ("@BASE PATH") and, through maps, the events' (no text). */
static size_t collect(st_rankdata_t *rd, const mapping_t *maps, size_t nmaps, frame_t *fr)
{
    size_t n = 0;
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites; i++) {
        st_callsite_t *s = &rd->callsites[i];
        uint64_t at = s->pc - 1, base; /* inside the call instruction */
        const char *path;
        const mapping_t *m;
        if (s->text && s->text[0] == '@' && parse(s->text + 1, &base, 1, &path) == 0)
            ; /* a call-path frame */
        else if (!s->text && (m = find_map(maps, nmaps, at)))
            base = m->base, path = m->path; /* an event's call site */
        else
            continue;
        fr[n] = (frame_t){ .pc = s->pc, .site = s, .obj = path };
        fr[n].a2l.rel = st_object_fixed(path) ? at : at - base;
        n++;
    }
    return n;
}

/* Resolves fr[0..n) with one symbolizer run per object. */
static void symbolize(frame_t *fr, size_t n)
{
    st_a2l_t **q = calloc(n + 1, sizeof *q);
    const char **obj = calloc(n + 1, sizeof *obj);
    for (size_t i = 0; q && obj && i < n; i++)
        q[i] = &fr[i].a2l, obj[i] = fr[i].obj;
    if (q && obj)
        st_addr2line_objects(q, obj, n);
    free(obj), free(q);
}

/*
 * Names fr[0..n): each frame's call site takes the text of its innermost frame (as the shim's
 * st_callsite_from_a2l), the frames its code was inlined into are appended as new call sites; returns
 * how many the symbolizer knew.
 */
static size_t name(st_rankdata_t *rd, frame_t *fr, size_t n, st_cpcallee_t *callees, size_t *ncallees)
{
    size_t named = 0, extra = 0;
    symbolize(fr, n);
    for (size_t i = 0; i < n; i++)
        extra += (fr[i].a2l.nfr > 1 ? fr[i].a2l.nfr - 1 : 0) + 1;
    st_callsite_t *cs = realloc(rd->callsites, (rd->ncallsites + extra + 1) * sizeof *cs);
    if (cs) {
        for (size_t i = 0; i < n; i++) /* the frames point into the old array */
            fr[i].site = cs + (fr[i].site - rd->callsites);
        rd->callsites = cs;
    }
    for (size_t i = 0; i < n; i++) {
        st_callsite_t *out = malloc(sizeof *out * (fr[i].a2l.nfr + 2));
        *ncallees += callees && st_cpcallee_from_a2l(&fr[i].a2l, fr[i].pc, &callees[*ncallees]) == 0;
        uint32_t k = out ? st_callsite_from_a2l(&fr[i].a2l, fr[i].obj, fr[i].pc, out) : 0;
        named += fr[i].a2l.nfr > 0;
        if (k) {
            free(fr[i].site->text);
            *fr[i].site = out[0];
        }
        for (uint32_t j = 1; j < k; j++)
            if (cs)
                rd->callsites[rd->ncallsites++] = out[j];
            else
                free(out[j].text);
        free(out);
        st_a2l_clear(&fr[i].a2l);
    }
    return named;
}

size_t st_frames_resolve(st_rankdata_t *rd)
{
    mapping_t *maps;
    char **keep;
    size_t nmaps = take_maps(rd, &maps, &keep), named = 0;
    if (nmaps)
        add_event_sites(rd);
    frame_t *fr = calloc(rd->ncallsites + 1, sizeof *fr);
    st_cpcallee_t *callees = calloc(rd->ncallsites + 1, sizeof *callees);
    size_t ncallees = 0;
    if (fr)
        named = name(rd, fr, collect(rd, maps, nmaps, fr), callees, &ncallees);
    /* call sites still without a text (outside every code mapping) are no call sites */
    size_t k = 0;
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites; i++)
        if (rd->callsites[i].text)
            rd->callsites[k++] = rd->callsites[i];
    rd->ncallsites = (uint32_t)k;
    for (size_t i = 0; i < nmaps; i++)
        free(keep[i]);
    free(keep), free(maps), free(fr);
    if (st_callpath_inline(rd, callees, ncallees) != 0)
        fprintf(stderr, "synctrace: recover: out of memory making inlined frames call-path nodes\n");
    free(callees);
    return named;
}
