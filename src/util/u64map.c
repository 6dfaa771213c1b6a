/* u64map.c — see u64map.h. */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

static size_t map_slot(const st_u64map_t *m, uint64_t key)
{
    size_t i = (size_t)st_u64_mix(key) & (m->cap - 1);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int map_grow(st_u64map_t *m)
{
    st_u64map_t g = { .cap = m->cap ? m->cap * 2 : 64, .lent = m->lent };
    g.keys = g.lent ? st_mem_malloc(g.cap * sizeof *g.keys) : malloc(g.cap * sizeof *g.keys);
    g.vals = g.lent ? st_mem_malloc(g.cap * sizeof *g.vals) : malloc(g.cap * sizeof *g.vals);
    g.used = g.lent ? st_mem_calloc(g.cap, 1) : calloc(g.cap, 1);
    if (!g.keys || !g.vals || !g.used) {
        st_u64map_free(&g);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i]) {
            size_t s = map_slot(&g, m->keys[i]);
            g.used[s] = 1;
            g.keys[s] = m->keys[i];
            g.vals[s] = m->vals[i];
            g.n++;
        }
    st_u64map_free(m);
    *m = g;
    return 0;
}

int st_u64map_put(st_u64map_t *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap && map_grow(m) != 0)
        return -1;
    size_t s = map_slot(m, key);
    if (!m->used[s]) {
        m->used[s] = 1;
        m->keys[s] = key;
        m->n++;
    }
    m->vals[s] = val;
    return 0;
}

int st_u64map_get(const st_u64map_t *m, uint64_t key, uint64_t *val)
{
    if (m->cap == 0)
        return 0;
    size_t s = map_slot(m, key);
    if (!m->used[s])
        return 0;
    *val = m->vals[s];
    return 1;
}

void st_u64map_free(st_u64map_t *m)
{
    int lent = m->lent;
    if (lent)
        st_mem_free(m->keys), st_mem_free(m->vals), st_mem_free(m->used);
    else
        free(m->keys), free(m->vals), free(m->used);
    memset(m, 0, sizeof *m);
    m->lent = lent;
}
