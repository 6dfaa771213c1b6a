/* frames.c — see frames.h. */
#include "frames.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/addr2line.h"

typedef struct frame {
    st_callsite_t *site;
    const char *obj; /* into site->text */
    st_a2l_t a2l;
} frame_t;

static int by_obj(const void *a, const void *b)
{
    return strcmp((*(frame_t *const *)a)->obj, (*(frame_t *const *)b)->obj);
}

/* "@BASE PATH" -> base, path; 0, or -1 if text is not such a text. */
static int parse(const char *text, uint64_t *base, const char **path)
{
    char *end;
    if (text[0] != '@')
        return -1;
    *base = strtoull(text + 1, &end, 16);
    if (end == text + 1 || *end != ' ' || end[1] != '/')
        return -1;
    *path = end + 1;
    return 0;
}

size_t st_frames_resolve(st_rankdata_t *rd)
{
    size_t n = 0, named = 0;
    frame_t *fr = calloc(rd->ncallsites ? rd->ncallsites : 1, sizeof *fr);
    frame_t **order = calloc(rd->ncallsites ? rd->ncallsites : 1, sizeof *order);
    st_a2l_t **queries = calloc(rd->ncallsites ? rd->ncallsites : 1, sizeof *queries);
    for (uint32_t i = 0; fr && order && queries && rd->callsites && i < rd->ncallsites; i++) {
        st_callsite_t *s = &rd->callsites[i];
        uint64_t base;
        const char *path;
        if (!s->text || parse(s->text, &base, &path) != 0)
            continue;
        uint64_t at = s->pc - 1; /* inside the call instruction */
        fr[n] = (frame_t){ .site = s, .obj = path };
        fr[n].a2l.rel = st_object_fixed(path) ? at : at - base;
        order[n] = &fr[n];
        n++;
    }
    if (n)
        qsort(order, n, sizeof *order, by_obj);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(order[j]->obj, order[i]->obj); j++)
            ;
        for (size_t k = i; k < j; k++)
            queries[k] = &order[k]->a2l;
        st_addr2line(order[i]->obj, queries + i, j - i);
    }
    for (size_t i = 0; i < n; i++) {
        char text[1700];
        const char *slash = strrchr(fr[i].obj, '/');
        if (st_a2l_text(&fr[i].a2l, text, sizeof text) == 0)
            named++;
        else
            snprintf(text, sizeof text, "%s+0x%" PRIx64, slash ? slash + 1 : fr[i].obj, fr[i].a2l.rel);
        char *copy = strdup(text);
        if (copy) {
            free(fr[i].site->text);
            fr[i].site->text = copy;
        }
    }
    free(queries);
    free(order);
    free(fr);
    return named;
}
