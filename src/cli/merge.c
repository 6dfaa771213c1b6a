/* merge.c — global time order of all events (see merge.h). */
#include "merge.h"

#include <stdlib.h>

static int less(const st_cli_merge_t *m, size_t a, size_t b)
{
    uint64_t ta = m->ar->locs[a].ev[m->pos[a]].time, tb = m->ar->locs[b].ev[m->pos[b]].time;
    return ta != tb ? ta < tb : a < b;
}

static void sift_down(st_cli_merge_t *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < m->n && less(m, m->heap[l], m->heap[s])) s = l;
        if (r < m->n && less(m, m->heap[r], m->heap[s])) s = r;
        if (s == i)
            return;
        size_t t = m->heap[i];
        m->heap[i] = m->heap[s];
        m->heap[s] = t;
        i = s;
    }
}

int st_cli_merge_init(st_cli_merge_t *m, const st_cli_archive_t *ar)
{
    m->ar = ar;
    m->n = 0;
    m->pos = calloc(ar->nlocs + 1, sizeof *m->pos);
    m->heap = calloc(ar->nlocs + 1, sizeof *m->heap);
    if (!m->pos || !m->heap) {
        st_cli_merge_free(m);
        return -1;
    }
    for (size_t i = 0; i < ar->nlocs; i++)
        if (ar->locs[i].n)
            m->heap[m->n++] = i;
    for (size_t i = m->n / 2; i-- > 0;)
        sift_down(m, i);
    return 0;
}

int st_cli_merge_next(st_cli_merge_t *m, size_t *loc, const st_event_t **ev)
{
    if (!m->n)
        return 0;
    size_t l = m->heap[0];
    *loc = l;
    *ev = &m->ar->locs[l].ev[m->pos[l]++];
    if (m->pos[l] == m->ar->locs[l].n)
        m->heap[0] = m->heap[--m->n];
    sift_down(m, 0);
    return 1;
}

void st_cli_merge_free(st_cli_merge_t *m)
{
    free(m->pos);
    free(m->heap);
    m->pos = m->heap = NULL;
    m->n = 0;
}
