/*
 * exchange.c — records, output buffers and trees of the exchange layer (exchange.h).
 */
#include "exchange.h"

#include <stdlib.h>

#include "../util/mem.h"

int st_xchg_next(st_xchg_reader_t *msg, st_xchg_rec_t *h, st_xchg_reader_t *payload)
{
    if (msg->p == msg->end)
        return 0;
    if (st_xchg_get(msg, h, sizeof *h) || h->len > (uint64_t)(msg->end - msg->p))
        return -1;
    *payload = (st_xchg_reader_t){ msg->p, msg->p + h->len };
    msg->p += h->len;
    return 1;
}

int st_xchg_out_init(st_xchg_out_t *o, const st_xchg_net_t *net, int32_t nranks)
{
    *o = (st_xchg_out_t){ .net = *net, .nranks = nranks };
    if (!(o->slot = st_mem_malloc(sizeof *o->slot * (size_t)(nranks > 0 ? nranks : 1))))
        return -1;
    for (int32_t q = 0; q < nranks; q++)
        o->slot[q] = UINT32_MAX;
    return 0;
}

void st_xchg_out_free(st_xchg_out_t *o)
{
    for (uint32_t i = 0; i < o->nb; i++)
        st_mem_free(o->b[i].data);
    st_mem_free(o->b);
    st_mem_free(o->slot);
    memset(o, 0, sizeof *o);
}

uint8_t *st_xchg_reserve(st_xchg_out_t *o, int32_t to, size_t n, st_xchg_buf_t **pb)
{
    if (to < 0 || to >= o->nranks)
        return NULL;
    uint32_t k = o->slot[to];
    if (k == UINT32_MAX) {
        /* exact-size growth keeps the code simple; destinations are few */
        st_xchg_buf_t *b = st_mem_realloc(o->b, (o->nb + 1) * sizeof *b);
        if (!b)
            return NULL;
        o->b = b;
        k = o->nb++;
        o->b[k] = (st_xchg_buf_t){ .rank = to, .open_at = SIZE_MAX };
        o->slot[to] = k;
    }
    st_xchg_buf_t *b = &o->b[k];
    if (st_mem_grow((void **)&b->data, &b->cap, b->len + n, 1))
        return NULL;
    uint8_t *p = b->data + b->len;
    b->len += n;
    if (pb)
        *pb = b;
    return p;
}

uint8_t *st_xchg_record(st_xchg_out_t *o, int32_t to, const st_xchg_rec_t *h, size_t len)
{
    st_xchg_buf_t *b;
    uint8_t *p = st_xchg_reserve(o, to, sizeof *h + len, &b);
    if (!p)
        return NULL;
    b->open_at = SIZE_MAX;
    st_xchg_rec_t hh = *h;
    hh.len = len;
    memcpy(p, &hh, sizeof hh);
    return p + sizeof hh;
}

int st_xchg_flush(st_xchg_out_t *o, size_t min_bytes, int32_t *bad)
{
    for (uint32_t i = 0; i < o->nb; i++) {
        st_xchg_buf_t *b = &o->b[i];
        if (!b->len || b->len < min_bytes)
            continue;
        void *data = b->data;
        size_t len = b->len;
        b->data = NULL;
        b->len = b->cap = 0;
        b->open_at = SIZE_MAX;
        if (o->net.send(o->net.ctx, b->rank, data, len) != 0) {
            *bad = b->rank;
            return -1;
        }
    }
    return 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

int st_xchg_tree_build(st_xchg_tree_t *t, const int32_t *a, uint32_t na, const int32_t *b, uint32_t nb,
                       int32_t nranks, int32_t me)
{
    memset(t, 0, sizeof *t);
    t->members = st_mem_malloc(sizeof(int32_t) * (na + nb + 1));
    t->child = st_mem_malloc(sizeof(int32_t) * 33);
    if (!t->members || !t->child) {
        st_xchg_tree_free(t);
        return -1;
    }
    for (uint32_t i = 0; a && i < na; i++)
        t->members[t->n++] = a[i];
    for (uint32_t i = 0; b && i < nb; i++)
        t->members[t->n++] = b[i];
    if (t->n > 1)
        qsort(t->members, t->n, sizeof(int32_t), cmp_i32);
    uint32_t m = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->members[i] >= 0 && t->members[i] < nranks && (m == 0 || t->members[m - 1] != t->members[i]))
            t->members[m++] = t->members[i];
    t->n = m;
    uint32_t at = 0;
    while (at < t->n && t->members[at] != me)
        at++;
    if (at == t->n) {
        st_xchg_tree_free(t);
        return 1;
    }
    t->me = at;
    t->parent = at ? t->members[at & (at - 1)] : -1;
    for (uint64_t bit = 1; bit < t->n && !(at & bit); bit <<= 1)
        if (at + bit < t->n)
            t->child[t->nchild++] = t->members[at + bit];
    return 0;
}

void st_xchg_tree_free(st_xchg_tree_t *t)
{
    st_mem_free(t->members);
    st_mem_free(t->child);
    memset(t, 0, sizeof *t);
}
