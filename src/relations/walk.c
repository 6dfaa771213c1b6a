/*
 * walk.c — the relations of a graph (graph.h): per instance, each receive and the latest send
 * it depends on, with their times from the locations (C or LC) or from an array per ref.
 */
#include "relations.h"

/* Where the relations' times come from: the locations (C or LC), or an array per ref. */
typedef struct tsrc {
    const st_rel_graph_t *g;
    const st_rel_loc_t   *locs;
    int                   orig;
    const uint64_t       *reft; /* [g->nrefs] or NULL */
    int                   all;  /* walk every instance, else ks[0 .. nk) */
    const uint64_t       *ks;
    size_t                nk;
} tsrc_t;

static uint64_t t_of(const tsrc_t *ts, const st_rel_ref_t *r)
{
    if (ts->reft)
        return ts->reft[r - ts->g->refs];
    return ts->orig ? st_rel_c_at(&ts->locs[r->loc], r->ev) : st_rel_lc_at(&ts->locs[r->loc], r->ev);
}

/* PRODUCT: each receive against the latest send on another location (the two latest
 * sends on distinct locations are kept: a receive ignores its own location). */
static void product_relations(const tsrc_t *ts, uint64_t k, st_rel_relation_fn fn, void *ctx)
{
    const st_rel_graph_t *g = ts->g;
    const st_rel_inst_t *in = &g->inst[k];
    const st_rel_ref_t *s = &g->refs[in->first], *r = s + in->nsend, *s1 = NULL, *s2 = NULL;
    uint64_t v1 = 0, v2 = 0;
    for (uint32_t i = 0; i < in->nsend; i++) {
        uint64_t t = t_of(ts, &s[i]);
        if (s1 && s[i].loc == s1->loc) {
            if (t > v1)
                v1 = t, s1 = &s[i];
        } else if (!s1 || t > v1) {
            v2 = v1, s2 = s1, v1 = t, s1 = &s[i];
        } else if (!s2 || t > v2) {
            v2 = t, s2 = &s[i];
        }
    }
    for (uint32_t i = 0; i < in->nrecv; i++) {
        const st_rel_ref_t *m = s1 && s1->loc != r[i].loc ? s1 : s2 && s2->loc != r[i].loc ? s2 : NULL;
        if (m)
            fn(ctx, &(st_rel_relation_t){ k, *m, r[i], m == s1 ? v1 : v2, t_of(ts, &r[i]) });
    }
}

/* PREFIX: the receive of order o against the latest send of order < o. */
static void prefix_relations(const tsrc_t *ts, uint64_t k, st_rel_relation_fn fn, void *ctx)
{
    const st_rel_graph_t *g = ts->g;
    const st_rel_inst_t *in = &g->inst[k];
    const st_rel_ref_t *s = &g->refs[in->first], *r = s + in->nsend, *best = NULL;
    uint64_t m = 0;
    uint32_t j = 0;
    for (uint32_t i = 0; i < in->nrecv; i++) {
        for (; j < in->nsend && s[j].order < r[i].order; j++) {
            uint64_t t = t_of(ts, &s[j]);
            if (!best || t > m)
                m = t, best = &s[j];
        }
        if (best)
            fn(ctx, &(st_rel_relation_t){ k, *best, r[i], m, t_of(ts, &r[i]) });
    }
}

static void relations(const tsrc_t *ts, st_rel_relation_fn fn, void *ctx)
{
    uint64_t n = ts->all ? ts->g->ninst : ts->nk;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t k = ts->all ? j : ts->ks[j];
        if (ts->g->inst[k].shape == ST_REL_PREFIX)
            prefix_relations(ts, k, fn, ctx);
        else
            product_relations(ts, k, fn, ctx);
    }
}

void st_rel_relations(const st_rel_graph_t *g, const st_rel_loc_t *locs, int orig, st_rel_relation_fn fn, void *ctx)
{
    relations(&(tsrc_t){ g, locs, orig, NULL, 1, NULL, 0 }, fn, ctx);
}

void st_rel_relations_times(const st_rel_graph_t *g, const uint64_t *t, st_rel_relation_fn fn, void *ctx)
{
    relations(&(tsrc_t){ g, NULL, 0, t, 1, NULL, 0 }, fn, ctx);
}

void st_rel_relations_of(const st_rel_graph_t *g, const uint64_t *ks, size_t nk, const uint64_t *t,
                         st_rel_relation_fn fn, void *ctx)
{
    relations(&(tsrc_t){ g, NULL, 0, t, 0, ks, nk }, fn, ctx);
}
