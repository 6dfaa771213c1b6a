/*
 * stats.c — violation counting over the graph's relations (st_rel_relations) and CLC
 * statistics (clc.h).
 *
 * The deviation classes follow Becker et al. (seed 000, Fig. 6): for every pair of
 * adjacent events of a location, the relative deviation |dLC - dC| / dC of the
 * corrected interval from the original one; the figure is the share of the total
 * original interval time that falls into each class.
 */
#include "clc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[ST_REL__KINDS] = { "p2p", "coll", "omp" };
static const char *const dev_names[ST_CLC__DEVS] = { "exact", "le1pct", "le10pct", "le100pct", "gt100pct" };

void st_clc_vcount_add(st_clc_vcount_t *out, unsigned kind, uint64_t send, uint64_t mu, uint64_t recv)
{
    if (kind >= ST_REL__KINDS)
        kind = 0;
    out->messages[kind]++;
    uint64_t bound = send + mu;
    if (recv >= bound)
        return;
    uint64_t err = bound - recv;
    out->violated[kind]++;
    out->sum_err[kind] += err;
    if (err > out->max_err[kind])
        out->max_err[kind] = err;
}

typedef struct vctx {
    const st_rel_graph_t  *g;
    const st_clc_params_t *p;
    st_clc_vcount_t       *out;
} vctx_t;

static void count_relation(void *ctx, const st_rel_relation_t *r)
{
    const vctx_t *v = ctx;
    const st_rel_inst_t *in = &v->g->inst[r->inst];
    st_clc_vcount_add(v->out, in->kind, r->t_send, v->p ? st_clc_mu(v->p, in->mumask) : 0, r->t_recv);
}

void st_clc_violations(const st_rel_graph_t *g, const st_rel_loc_t *locs, const st_clc_params_t *p, int orig,
                       st_clc_vcount_t *out)
{
    vctx_t v = { g, p, out };
    st_rel_relations(g, locs, orig, count_relation, &v);
}

void st_clc_violations_refs(const st_rel_graph_t *g, const uint64_t *ks, size_t nk, const uint64_t *t,
                            const st_clc_params_t *p, st_clc_vcount_t *out)
{
    vctx_t v = { g, p, out };
    st_rel_relations_of(g, ks, nk, t, count_relation, &v);
}

void st_clc_stats_count_c(st_clc_stats_t *s, unsigned kind, uint64_t mu, uint64_t send, uint64_t recv)
{
    st_clc_vcount_add(&s->reversed, kind, send, 0, recv);
    st_clc_vcount_add(&s->violations, kind, send, mu, recv);
}

typedef struct on_c_ctx {
    const st_rel_graph_t  *g;
    const st_clc_params_t *p;
    st_clc_stats_t        *on_c;
} on_c_ctx_t;

static void count_relation_on_c(void *ctx, const st_rel_relation_t *r)
{
    const on_c_ctx_t *v = ctx;
    const st_rel_inst_t *in = &v->g->inst[r->inst];
    st_clc_stats_count_c(v->on_c, in->kind, st_clc_mu(v->p, in->mumask), r->t_send, r->t_recv);
}

static int count_part(void *ctx, const st_rel_graph_t *g)
{
    on_c_ctx_t *v = ctx;
    v->g = g;
    st_rel_relations_times(g, g->ref_time, count_relation_on_c, v);
    return 0;
}

int st_clc_violations_src(st_rel_epsrc_t *src, uint32_t nlocs, const st_clc_params_t *p, st_clc_stats_t *on_c)
{
    on_c_ctx_t v = { NULL, p, on_c };
    return st_rel_graph_parts(src, nlocs, ST_REL_JOIN_PARTIAL, count_part, &v);
}

/* ---- per-location figures ------------------------------------------------------------------------ */

static unsigned dev_class(uint64_t dev, uint64_t base)
{
    if (dev == 0)
        return ST_CLC_DEV_EXACT;
    if ((double)dev * 100.0 <= (double)base)
        return ST_CLC_DEV_1PCT;
    if ((double)dev * 10.0 <= (double)base)
        return ST_CLC_DEV_10PCT;
    return dev <= base ? ST_CLC_DEV_100PCT : ST_CLC_DEV_MORE;
}

/* |a - b| without signed arithmetic (corrupt input may hold any values). */
static uint64_t dist(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Figures of one location, and its commit: every moved event gets LC, ST_EVF_CLC_MOVED
 * and, when moved != NULL, a call moved(ctx, e, C). The dense C and LC arrays are read in
 * order; only moved events are written. */
static void loc_figures(st_clc_stats_t *s, const st_rel_loc_t *L, st_clc_moved_fn moved, void *ctx)
{
    const uint64_t *C = L->orig, *T = st_rel_lc(L);
    uint64_t nmoved = 0, sum_shift = 0, max_shift = 0, max_pos = 0, interval = 0;
    uint64_t dev[ST_CLC__DEVS] = { 0 };
    for (uint64_t i = 0; i < L->n; i++) {
        uint64_t t = T[i], c = C[i];
        if (t != c) {
            uint64_t shift = t > c ? t - c : 0;
            nmoved++;
            sum_shift += shift;
            if (shift > max_shift)
                max_shift = shift;
            L->ev[i].time = t;
            L->ev[i].flags |= ST_EVF_CLC_MOVED;
            if (moved)
                moved(ctx, &L->ev[i], c);
        }
        if (i == 0)
            continue;
        uint64_t pos = dist(t - T[0], c - C[0]);
        if (pos > max_pos)
            max_pos = pos;
        uint64_t dc = c > C[i - 1] ? c - C[i - 1] : 0;
        if (dc == 0)
            continue;
        interval += dc;
        dev[dev_class(dist(t - T[i - 1], dc), dc)] += dc;
    }
    s->events += L->n;
    s->moved += nmoved;
    s->sum_shift += sum_shift;
    if (max_shift > s->max_shift)
        s->max_shift = max_shift;
    if (max_pos > s->max_pos_dev)
        s->max_pos_dev = max_pos;
    s->interval_time += interval;
    for (int k = 0; k < ST_CLC__DEVS; k++)
        s->dev_time[k] += dev[k];
}

/* A location without orig: nothing moved, every interval kept (all "exact"). The parallel
 * engine's forward pass leaves C non-decreasing there (mono == n): the intervals sum up to
 * the span; else they are summed. */
static void unmoved_figures(st_clc_stats_t *s, const st_rel_loc_t *L)
{
    uint64_t interval = 0;
    if (L->n > 1 && L->mono >= L->n)
        interval = L->ev[L->n - 1].time - L->ev[0].time;
    for (uint64_t i = 1; L->mono < L->n && i < L->n; i++)
        interval += L->ev[i].time > L->ev[i - 1].time ? L->ev[i].time - L->ev[i - 1].time : 0;
    s->events += L->n;
    s->interval_time += interval;
    s->dev_time[ST_CLC_DEV_EXACT] += interval;
}

void st_clc_finish_locs(st_clc_stats_t *s, st_rel_loc_t *locs, uint32_t nlocs, st_clc_moved_fn moved, void *ctx)
{
    for (uint32_t l = 0; l < nlocs; l++) {
        if (locs[l].orig)
            loc_figures(s, &locs[l], moved, ctx);
        else
            unmoved_figures(s, &locs[l]);
    }
}

/* ---- merge and emit ---------------------------------------------------------------------------------- */

static void vmerge(st_clc_vcount_t *a, const st_clc_vcount_t *b)
{
    for (int k = 0; k < ST_REL__KINDS; k++) {
        a->messages[k] += b->messages[k];
        a->violated[k] += b->violated[k];
        a->sum_err[k] += b->sum_err[k];
        if (b->max_err[k] > a->max_err[k])
            a->max_err[k] = b->max_err[k];
    }
}

#define MAXF(f) if (b->f > a->f) a->f = b->f
void st_clc_stats_merge(st_clc_stats_t *a, const st_clc_stats_t *b)
{
    vmerge(&a->reversed, &b->reversed);
    vmerge(&a->violations, &b->violations);
    vmerge(&a->remaining, &b->remaining);
    for (int k = 0; k < ST_REL__KINDS; k++)
        a->jumps[k] += b->jumps[k];
    for (int k = 0; k < ST_CLC__DEVS; k++)
        a->dev_time[k] += b->dev_time[k];
    a->unresolved += b->unresolved;
    a->ramps += b->ramps;
    a->ramps_bent += b->ramps_bent;
    a->events += b->events;
    a->moved += b->moved;
    a->sum_shift += b->sum_shift;
    a->interval_time += b->interval_time;
    MAXF(max_shift);
    MAXF(max_pos_dev);
    a->deps.bad_comm += b->deps.bad_comm;
    a->deps.no_root += b->deps.no_root;
    a->deps.unmatched_send += b->deps.unmatched_send;
    a->deps.unmatched_recv += b->deps.unmatched_recv;
    a->deps.cancelled += b->deps.cancelled;
    a->deps.no_begin += b->deps.no_begin;
}
#undef MAXF

static void emit_u(st_clc_emit_fn emit, void *ctx, const char *key, const char *sub, uint64_t v)
{
    char k[64], val[32];
    if (sub)
        snprintf(k, sizeof k, "clc.%s.%s", key, sub);
    else
        snprintf(k, sizeof k, "clc.%s", key);
    snprintf(val, sizeof val, "%" PRIu64, v);
    emit(ctx, k, val);
}

static void emit_pct(st_clc_emit_fn emit, void *ctx, const char *key, const char *sub, uint64_t part, uint64_t all)
{
    char k[64], val[32];
    snprintf(k, sizeof k, "clc.%s.%s", key, sub);
    snprintf(val, sizeof val, "%.3f", all ? 100.0 * (double)part / (double)all : 0.0);
    emit(ctx, k, val);
}

void st_clc_stats_emit(const st_clc_stats_t *s, st_clc_emit_fn emit, void *ctx)
{
    for (int k = 0; k < ST_REL__KINDS; k++) {
        const char *n = kind_names[k];
        emit_u(emit, ctx, "messages", n, s->reversed.messages[k]);
        emit_u(emit, ctx, "reversed", n, s->reversed.violated[k]);
        emit_u(emit, ctx, "reversed_max_ns", n, s->reversed.max_err[k]);
        emit_u(emit, ctx, "reversed_mean_ns", n, s->reversed.violated[k] ? s->reversed.sum_err[k] / s->reversed.violated[k] : 0);
        emit_u(emit, ctx, "violations", n, s->violations.violated[k]);
        emit_u(emit, ctx, "jumps", n, s->jumps[k]);
        emit_u(emit, ctx, "remaining", n, s->remaining.violated[k]);
    }
    emit_u(emit, ctx, "unresolved", NULL, s->unresolved);
    emit_u(emit, ctx, "events", NULL, s->events);
    emit_u(emit, ctx, "moved", NULL, s->moved);
    emit_u(emit, ctx, "shift_max_ns", NULL, s->max_shift);
    emit_u(emit, ctx, "shift_mean_ns", NULL, s->moved ? s->sum_shift / s->moved : 0);
    emit_u(emit, ctx, "ramps", NULL, s->ramps);
    emit_u(emit, ctx, "ramps_bent", NULL, s->ramps_bent);
    emit_u(emit, ctx, "position_dev_max_ns", NULL, s->max_pos_dev);
    for (int k = 0; k < ST_CLC__DEVS; k++)
        emit_pct(emit, ctx, "interval_dev_pct", dev_names[k], s->dev_time[k], s->interval_time);
    emit_u(emit, ctx, "deps", "bad_comm", s->deps.bad_comm);
    emit_u(emit, ctx, "deps", "no_root", s->deps.no_root);
    emit_u(emit, ctx, "deps", "no_begin", s->deps.no_begin);
    emit_u(emit, ctx, "deps", "unmatched_send", s->deps.unmatched_send);
    emit_u(emit, ctx, "deps", "unmatched_recv", s->deps.unmatched_recv);
    emit_u(emit, ctx, "deps", "cancelled", s->deps.cancelled);
}
