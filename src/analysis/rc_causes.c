/*
 * rc_causes.c — the causes tables of a root-cause replay (rootcause.h's st_rc_causes_t): the delays
 * that caused each wait state, collected while the replay charges them, and how much of each wait
 * state propagated. Values are added in the replay's order; the tables are sorted by ids only at the
 * end (output order).
 */
#include "rc_replay.h"

#include <stdlib.h>
#include <string.h>

static uint64_t cause_hash(int32_t m, uint32_t wc, uint32_t dl, uint32_t dc)
{
    uint64_t h = ((uint64_t)(uint32_t)m << 32 | wc) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)dl << 32 | dc) + 0xbf58476d1ce4e5b9ull + (h << 6) + (h >> 2);
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

static int acc_grow(rc_causes_acc_t *a)
{
    size_t nslots = a->mask ? 2 * (a->mask + 1) : 64;
    uint32_t *slot = calloc(nslots, sizeof *slot);
    st_rc_cause_t *v = realloc(a->v, nslots / 2 * sizeof *v);
    if (!slot || !v) {
        free(slot);
        if (v)
            a->v = v;
        return -1;
    }
    a->v = v, a->cap = nslots / 2;
    free(a->slot);
    a->slot = slot, a->mask = nslots - 1;
    for (size_t i = 0; i < a->n; i++) {
        const st_rc_cause_t *c = &a->v[i];
        size_t s = cause_hash(c->metric, c->wait_cnode, c->delay_loc, c->delay_cnode) & a->mask;
        while (a->slot[s])
            s = (s + 1) & a->mask;
        a->slot[s] = (uint32_t)(i + 1);
    }
    return 0;
}

int rc_cause_add(rc_causes_acc_t *a, int32_t metric, uint32_t wcnode, uint32_t dloc, uint32_t dcnode, double s, double l)
{
    if (!(s > 0) && !(l > 0))
        return 0;
    if (a->n == a->cap && (a->n >= UINT32_MAX - 1 || acc_grow(a)))
        return -1;
    size_t h = cause_hash(metric, wcnode, dloc, dcnode) & a->mask;
    for (; a->slot[h]; h = (h + 1) & a->mask) {
        st_rc_cause_t *c = &a->v[a->slot[h] - 1];
        if (c->metric == metric && c->wait_cnode == wcnode && c->delay_loc == dloc && c->delay_cnode == dcnode) {
            c->short_ticks += s > 0 ? s : 0;
            c->long_ticks += l > 0 ? l : 0;
            return 0;
        }
    }
    a->v[a->n] = (st_rc_cause_t){ metric, wcnode, dloc, dcnode, s > 0 ? s : 0, l > 0 ? l : 0 };
    a->slot[h] = (uint32_t)++a->n;
    return 0;
}

void rc_causes_acc_free(rc_causes_acc_t *a)
{
    free(a->v), free(a->slot);
    memset(a, 0, sizeof *a);
}

/* By (metric, wait cnode), then short + long descending, then delay location, delay cnode. */
static int cmp_cause(const void *p, const void *q)
{
    const st_rc_cause_t *a = p, *b = q;
    if (a->metric != b->metric)
        return a->metric < b->metric ? -1 : 1;
    if (a->wait_cnode != b->wait_cnode)
        return a->wait_cnode < b->wait_cnode ? -1 : 1;
    double x = a->short_ticks + a->long_ticks, y = b->short_ticks + b->long_ticks;
    if (x != y)
        return x > y ? -1 : 1;
    if (a->delay_loc != b->delay_loc)
        return a->delay_loc < b->delay_loc ? -1 : 1;
    return a->delay_cnode < b->delay_cnode ? -1 : a->delay_cnode > b->delay_cnode;
}

static int cmp_prop(const void *p, const void *q)
{
    const struct st_rc_prop *a = p, *b = q;
    if (a->metric != b->metric)
        return a->metric < b->metric ? -1 : 1;
    return a->cnode < b->cnode ? -1 : a->cnode > b->cnode;
}

static int props_grow(rc_props_t *t)
{
    size_t nslots = t->mask ? 2 * (t->mask + 1) : 64;
    uint32_t *slot = calloc(nslots, sizeof *slot);
    struct st_rc_prop *v = slot ? realloc(t->v, nslots / 2 * sizeof *v) : NULL;
    if (!v) {
        free(slot);
        return -1;
    }
    t->v = v, t->cap = nslots / 2;
    free(t->slot);
    t->slot = slot, t->mask = nslots - 1;
    for (size_t i = 0; i < t->n; i++) {
        size_t s = cause_hash(t->v[i].metric, t->v[i].cnode, 0, 0) & t->mask;
        while (t->slot[s])
            s = (s + 1) & t->mask;
        t->slot[s] = (uint32_t)(i + 1);
    }
    return 0;
}

int rc_props_add1(rc_props_t *t, int32_t metric, uint32_t cnode, double wait, double propagating)
{
    if (t->n == t->cap && (t->n >= UINT32_MAX - 1 || props_grow(t)))
        return -1;
    size_t h = cause_hash(metric, cnode, 0, 0) & t->mask;
    for (; t->slot[h]; h = (h + 1) & t->mask)
        if (t->v[t->slot[h] - 1].metric == metric && t->v[t->slot[h] - 1].cnode == cnode)
            break;
    if (!t->slot[h]) {
        t->v[t->n] = (struct st_rc_prop){ metric, cnode, 0, 0 };
        t->slot[h] = (uint32_t)++t->n;
    }
    struct st_rc_prop *p = &t->v[t->slot[h] - 1];
    p->wait += wait;
    p->propagating += propagating;
    return 0;
}

int rc_props_add(rc_props_t *t, const st_rc_input_t *in, uint32_t loc0, const rc_wait_t *w, size_t nw)
{
    for (size_t i = 0; i < nw; i++) {
        if (w[i].loc == RC_NONE)
            continue;
        const st_rc_loc_t *L = &in->locs[w[i].loc - loc0];
        const st_rc_wait_t *sw = &L->waits[L->calls[w[i].call].wait_at + w[i].idx];
        if (st_rc_delay_metric(sw->metric) < 0 || !(sw->ticks > 0))
            continue;
        if (rc_props_add1(t, sw->metric, L->calls[w[i].call].cnode, sw->ticks,
                          w[i].prop < sw->ticks ? w[i].prop : sw->ticks))
            return -1;
    }
    return 0;
}

void rc_props_free(rc_props_t *t)
{
    free(t->v), free(t->slot);
    memset(t, 0, sizeof *t);
}

void rc_causes_sort(st_rc_causes_t *c)
{
    if (c->n > 1)
        qsort(c->v, c->n, sizeof *c->v, cmp_cause);
    if (c->nprop > 1)
        qsort(c->prop, c->nprop, sizeof *c->prop, cmp_prop);
}

int rc_causes_finish(rc_ctx_t *x, st_rc_causes_t *c)
{
    c->v = x->acc.v, c->n = x->acc.n;
    x->acc.v = NULL, x->acc.n = x->acc.cap = 0;
    rc_props_t t = { 0 };
    if (rc_props_add(&t, x->in, 0, x->w, x->nw)) {
        rc_props_free(&t);
        return -1;
    }
    free(t.slot);
    c->prop = t.v, c->nprop = t.n;
    rc_causes_sort(c);
    return 0;
}
