/*
 * rc_replay.c — st_rc_run (rootcause.h): the backward replay of a timeline's waits that charges each
 * wait to its delayer's excess time (delay costs, short- and long-term), classifies point-to-point
 * waits (direct / indirect, propagating / terminal), then the critical path (rc_cpath.c) and the
 * causes tables (rc_causes.c). docs/analysis.md ("Root causes") says it in a user's words:
 *
 *  - The delayer of a wait at call X of location W: among X's relations, the other ends that can
 *    delay it (senders; the root of 1-to-N; the non-roots of N-to-1; every other member of a barrier
 *    or N-to-N; the master's fork for idleness; for Late Receiver the receive's post, else its
 *    completion), the one with the latest enter (ties: smaller location, then earlier call); relations
 *    of the wait's kind (key type) first, any if none. Its enter is the wait's synchronization time.
 *  - The interval: from the last call of W before X sharing a relation with a call of D before the
 *    delayer call Y (on D from that call), else from the locations' start, to X and Y. delta(c): the
 *    location's exclusive time at cnode c in it (segments, and the intermediate calls less their
 *    waits); d(c) = max(0, delta_D(c) - delta_W(c)), S = sum d; W_D = the waits of D's intermediate calls.
 *  - Latest synchronization time first (ties: the later leave of the waiting call first, so that a wait
 *    whose delayer's call followed the end of another wait at the same moment comes before that one;
 *    then location, call, wait descending): scale = min(1, w / (S + W_D)); short-term cost
 *    scale * d(c) at (c, D); long-term R[q] / (S + W_D) * d(c) per category q of the downstream waiting
 *    R that w passed on; each intermediate wait k of D takes on scale * w_k (w's category) and
 *    R[q] / (S + W_D) * w_k. S + W_D == 0: nothing is charged.
 *
 * Sums over cnodes are of integer ticks (the deltas, waits rounded to ticks), every double is added in
 * the order of the replay (times, locations, calls): the values do not depend on the cnode numbering.
 */
#include "rc_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../relations/endpoints.h"
#include "../util/log.h"
#include "../util/mem.h"
#include "../util/msort.h"

/* The delay categories, by their short-term metric; long-term is the next metric. */
static const int cats[] = { ST_AN_M_DELAY_LS,  ST_AN_M_DELAY_LR,  ST_AN_M_DELAY_BARRIER,    ST_AN_M_DELAY_N2N,
                            ST_AN_M_DELAY_12N, ST_AN_M_DELAY_N21, ST_AN_M_DELAY_OMPBARRIER, ST_AN_M_DELAY_OMPIDLE };
#define NCAT ((int)(sizeof cats / sizeof cats[0]))

static int cat_of(int m)
{
    int d = st_rc_delay_metric(m);
    for (int q = 0; q < NCAT; q++)
        if (cats[q] == d)
            return q;
    return -1;
}

const int16_t rc_metric_parent[ST_AN__METRICS] = {
#define ST_AN_METRIC(id, uniq, disp, parent, unit, descr) [ST_AN_M_##id] = ST_AN_M_##parent,
#include "metrics.def"
#undef ST_AN_METRIC
};
_Static_assert(ST_AN__METRICS <= INT16_MAX, "rc_metric_parent holds a metric in an int16_t");

static const st_rc_wait_t *wait_of(const rc_ctx_t *x, const rc_wait_t *w)
{
    return &x->in->locs[w->loc].waits[x->in->locs[w->loc].calls[w->call].wait_at + w->idx];
}

/* ---- the timeline's consistency with the result -------------------------------------------------- */

static const char *bad_timeline(const st_an_result_t *res, const st_rc_input_t *in)
{
    if (in->nlocs != res->nlocs || (in->nlocs && !in->locs))
        return "its locations are not the result's";
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        if (L->ncalls && !L->calls)
            return "a location without its calls";
        if (L->tail_at + L->ntail > L->nprof || L->tail_at > L->nprof || (L->nprof && !L->prof) ||
            (L->nwaits && !L->waits) || (L->nrels && !L->rels))
            return "a location's tables are out of range";
        for (uint64_t p = 0; p < L->nprof; p++)
            if (L->prof[p].cnode >= res->ncnodes)
                return "a profile names a call path the result does not have";
        for (uint64_t k = 0; k < L->nwaits; k++)
            if (L->waits[k].metric < 0 || L->waits[k].metric >= ST_AN__METRICS || !(L->waits[k].ticks >= 0) ||
                !isfinite(L->waits[k].ticks))
                return "a wait of no known metric or of no finite positive length";
        for (uint32_t c = 0; c < L->ncalls; c++) {
            const st_rc_call_t *C = &L->calls[c];
            if (C->cnode >= res->ncnodes)
                return "a call on a call path the result does not have";
            if (C->prof_at > L->nprof || C->nprof > L->nprof - C->prof_at || C->wait_at > L->nwaits ||
                C->nwait > L->nwaits - C->wait_at || C->rel_at > L->nrels || C->nrel > L->nrels - C->rel_at)
                return "a call's profile, waits or relations are out of range";
        }
    }
    return NULL;
}

/* ---- delayers ------------------------------------------------------------------------------------ */

unsigned rc_key_type_of(int m)
{
    switch (m) {
    case ST_AN_M_LATESENDER:
    case ST_AN_M_LATERECEIVER:      return ST_REL_KEY_P2P;
    case ST_AN_M_BARRIER_WAIT:
    case ST_AN_M_WAIT_NXN:
    case ST_AN_M_LATEBROADCAST:
    case ST_AN_M_EARLYREDUCE:       return ST_REL_KEY_COLL;
    case ST_AN_M_FINALIZE_WAIT:     return ST_REL_KEY_SYNC;
    case ST_AN_M_OMP_EBARRIER_WAIT:
    case ST_AN_M_OMP_IBARRIER_WAIT: return ST_REL_KEY_OMP_BARRIER;
    case ST_AN_M_OMP_IDLE:          return ST_REL_KEY_OMP_FORK;
    default:                        return 0;
    }
}

/* The delayer of a wait of metric m at call c of location l (loc RC_NONE: none). */
static rc_at_t find_delayer(const rc_ctx_t *x, uint32_t l, uint32_t c, int m)
{
    const st_rc_loc_t *L = &x->in->locs[l];
    const st_rc_call_t *C = &L->calls[c];
    int cls = m == ST_AN_M_LATEBROADCAST ? RC_SENDS_ROOT : m == ST_AN_M_EARLYREDUCE ? RC_SENDS_NONROOT : RC_SENDS;
    unsigned type = rc_key_type_of(m);
    rc_at_t best = { RC_NONE, 0 };
    for (int any = 0; any < 2 && best.loc == RC_NONE; any++)
        for (uint32_t r = 0; r < C->nrel; r++) {
            const st_rc_rel_t *R = &L->rels[C->rel_at + r];
            if (!any && type && R->key[0] >> 56 != type)
                continue;
            size_t n;
            const rc_key_t *s;
            const rc_end_t *e = rc_index_run(&x->ix, l, C->rel_at + r, &n, &s);
            rc_at_t a;
            if (m == ST_AN_M_LATERECEIVER) {
                a = rc_index_best(&x->ix, x->in, e, n, s, RC_POSTS, l);
                if (a.loc == RC_NONE)
                    a = rc_index_best(&x->ix, x->in, e, n, s, RC_RECEIVES, l);
            } else
                a = rc_index_best(&x->ix, x->in, e, n, s, cls, l);
            if (a.loc != RC_NONE && rc_later(x->in, a, best))
                best = a;
        }
    return best;
}

/* The roles of a message's ends that its synchronization point joins, from the run's ends (e, n of them, each
 * stride bytes: location, call, role): a Late Sender's receive and send (ST_RC_RECEIVES, ST_RC_SENDS), a Late
 * Receiver's send or send completion and post (ST_RC_SENDS, no bit, ST_RC_POSTS); none (0) when nobody waited
 * for the message. A post is no synchronization point of a Late Sender (the Irecv waits for nothing), a
 * receive none of a Late Receiver. */
enum { SP_NONE = 0, SP_LS = 1, SP_LR = 2 };
static int msg_sp(const unsigned char *e, size_t n, size_t stride)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t role = ((const uint32_t *)(const void *)(e + i * stride))[2];
        if (role & ST_RC_WAITED)
            return role & ST_RC_RECEIVES ? SP_LS : SP_LR;
    }
    return SP_NONE;
}

static int sp_end(int sp, uint32_t role)
{
    if (sp == SP_LS)
        return (role & (ST_RC_SENDS | ST_RC_RECEIVES)) != 0;
    return sp == SP_LR && ((role & (ST_RC_SENDS | ST_RC_POSTS)) || !(role & ST_RC_RECEIVES));
}

void rc_shared_prev(const st_rc_loc_t *L, uint32_t x, uint32_t D, uint32_t y, rc_run_fn run, const void *ctx,
                    int64_t *kw, int64_t *kd)
{
    *kw = *kd = -1;
    for (int64_t k = (int64_t)x - 1; k >= 0; k--) {
        const st_rc_call_t *C = &L->calls[k];
        int64_t best = -1;
        for (uint32_t r = 0; r < C->nrel; r++) {
            size_t n, stride;
            const unsigned char *e = run(ctx, C->rel_at + r, &n, &stride);
#define END(i) ((const uint32_t *)(const void *)(e + (i) * stride)) /* [0] its location, [1] its call, [2] its role */
            int sp = SP_NONE; /* a message: only one that waited, only at the ends its waiting joined */
            if (L->rels[C->rel_at + r].key[0] >> 56 == ST_REL_KEY_P2P &&
                ((sp = msg_sp(e, n, stride)) == SP_NONE || !sp_end(sp, L->rels[C->rel_at + r].role)))
                continue;
            size_t lo = 0, hi = n; /* the first end on D or later: ends by (loc, call) */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (END(mid)[0] < D)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < n && END(lo)[0] == D && END(lo)[1] < y; lo++)
                if ((int64_t)END(lo)[1] > best && (sp == SP_NONE || sp_end(sp, END(lo)[2])))
                    best = END(lo)[1];
#undef END
        }
        if (best >= 0) {
            *kw = k, *kd = best;
            return;
        }
    }
}

/* The run of ends of relation rel of the location in ctx (index run). */
typedef struct at_loc {
    const rc_ctx_t *x;
    uint32_t        l;
} at_loc_t;

static const void *index_run(const void *ctx, uint64_t rel, size_t *n, size_t *stride)
{
    const at_loc_t *a = ctx;
    *stride = sizeof(rc_end_t);
    return rc_index_run(&a->x->ix, a->l, rel, n, NULL);
}

/* ---- the intervals' exclusive time per cnode -------------------------------------------------------- */

int rc_acc_init(rc_acc_t *a, uint32_t ncnodes)
{
    uint32_t nc = ncnodes ? ncnodes : 1;
    a->v = malloc(nc * sizeof *a->v);
    a->touched = malloc(nc * sizeof *a->touched);
    a->in = calloc(nc, 1);
    a->nt = 0;
    return a->v && a->touched && a->in ? 0 : -1;
}

void rc_acc_free(rc_acc_t *a)
{
    free(a->v), free(a->touched), free(a->in);
    memset(a, 0, sizeof *a);
}

void rc_acc_add(rc_acc_t *a, uint32_t c, int64_t v)
{
    if (!a->in[c]) {
        a->in[c] = 1, a->v[c] = 0;
        a->touched[a->nt++] = c;
    }
    a->v[c] += v;
}

void rc_acc_clear(rc_acc_t *a)
{
    for (uint32_t i = 0; i < a->nt; i++)
        a->in[a->touched[i]] = 0;
    a->nt = 0;
}

/* Waiting time of a call (its waits' sum, in order). */
static double call_waits(const st_rc_loc_t *L, const st_rc_call_t *C)
{
    double s = 0;
    for (uint32_t k = 0; k < C->nwait; k++)
        s += L->waits[C->wait_at + k].ticks;
    return s;
}

double rc_interval(const st_rc_loc_t *L, int64_t k0, uint32_t k1, rc_acc_t *a)
{
    double waits = 0;
    for (int64_t j = k0 + 1; j <= (int64_t)k1; j++) {
        const st_rc_call_t *C = &L->calls[j];
        for (uint32_t p = 0; p < C->nprof; p++)
            rc_acc_add(a, L->prof[C->prof_at + p].cnode, (int64_t)L->prof[C->prof_at + p].ticks);
        if (j == (int64_t)k1)
            break;
        double w = call_waits(L, C);
        int64_t t = C->leave > C->enter ? (int64_t)(C->leave - C->enter) : 0;
        t -= rc_llround(w);
        rc_acc_add(a, C->cnode, t > 0 ? t : 0);
        waits += w;
    }
    return waits;
}

/* ---- the downstream costs a wait passed on ---------------------------------------------------------- */

int rc_origin_add(rc_origin_t **o, uint32_t *n, uint32_t *cap, int32_t metric, uint32_t cnode, double v)
{
    if (!(v > 0))
        return 0;
    for (uint32_t i = 0; i < *n; i++)
        if ((*o)[i].metric == metric && (*o)[i].cnode == cnode) {
            (*o)[i].ticks += v;
            return 0;
        }
    if (*n == *cap) {
        uint32_t c = *cap ? 2 * *cap : 4;
        rc_origin_t *x = realloc(*o, c * sizeof *x);
        if (!x)
            return -1;
        *o = x, *cap = c;
    }
    (*o)[(*n)++] = (rc_origin_t){ metric, cnode, v };
    return 0;
}

/* ---- the backward replay ------------------------------------------------------------------------- */

typedef struct order {
    rc_order_t k;
    size_t     w;
} order_t;

static inline int cmp_order(const order_t *a, const order_t *b) { return rc_order_cmp(&a->k, &b->k); }
static int cmp_order_void(const void *a, const void *b) { return cmp_order(a, b); }
ST_MSORT(sort_order, order_t, cmp_order)

double rc_charge_den(const st_rc_loc_t *LD, int64_t kd, uint32_t y, const rc_acc_t *aw, rc_acc_t *ad, double *wd)
{
    rc_acc_clear(ad);
    *wd = rc_interval(LD, kd, y, ad);
    int64_t S = 0;
    for (uint32_t i = 0; i < ad->nt; i++) {
        uint32_t c = ad->touched[i];
        int64_t d = ad->v[c] - (aw->in[c] ? aw->v[c] : 0);
        S += d > 0 ? d : 0;
    }
    return (double)S + *wd;
}

int rc_charge(st_an_result_t *res, uint32_t dres, uint32_t dloc, const st_rc_loc_t *LD, rc_wait_t *KD, int pass_on,
              int64_t kd, uint32_t y, const st_rc_wait_t *sw, uint32_t cx, const rc_origin_t *orig, uint32_t norig,
              const rc_acc_t *aw, rc_acc_t *ad, rc_causes_acc_t *acc, double *indirect)
{
    int cat = cat_of(sw->metric);
    *indirect = 0;
    double wd, den = rc_charge_den(LD, kd, y, aw, ad, &wd);
    if (!(den > 0))
        return 0;
    double scale = sw->ticks < den ? sw->ticks / den : 1;
    double R[NCAT] = { 0 };
    for (uint32_t o = 0; o < norig; o++)
        R[cat_of(orig[o].metric)] += orig[o].ticks;
    int qs[NCAT], nq = 0; /* the categories passed on, in order (most waits pass on none or one) */
    for (int q = 0; q < NCAT; q++)
        if (R[q] > 0)
            qs[nq++] = q;

    for (uint32_t i = 0; i < ad->nt; i++) {
        uint32_t c = ad->touched[i];
        int64_t di = ad->v[c] - (aw->in[c] ? aw->v[c] : 0);
        if (di <= 0)
            continue;
        double d = (double)di;
        rc_add(res, cats[cat], c, dres, scale * d);
        for (int j = 0; j < nq; j++)
            rc_add(res, cats[qs[j]] + 1, c, dres, R[qs[j]] / den * d);
        if (acc) {
            if (rc_cause_add(acc, sw->metric, cx, dloc, c, scale * d, 0))
                return -1;
            for (uint32_t o = 0; o < norig; o++)
                if (rc_cause_add(acc, orig[o].metric, orig[o].cnode, dloc, c, 0, orig[o].ticks / den * d))
                    return -1;
        }
    }
    for (uint32_t j = (uint32_t)(kd + 1); j < y; j++) {
        const st_rc_call_t *C = &LD->calls[j];
        for (uint32_t k = 0; k < C->nwait; k++) {
            double wk = LD->waits[C->wait_at + k].ticks;
            rc_wait_t *K = &KD[C->wait_at + k];
            if (pass_on && rc_origin_add(&K->orig, &K->norig, &K->corig, sw->metric, cx, scale * wk))
                return -1;
            for (uint32_t o = 0; pass_on && o < norig; o++)
                if (rc_origin_add(&K->orig, &K->norig, &K->corig, orig[o].metric, orig[o].cnode,
                                  orig[o].ticks / den * wk))
                    return -1;
            if (scale * wk > K->prop)
                K->prop = scale * wk;
        }
    }
    *indirect = scale * wd < sw->ticks ? scale * wd : sw->ticks;
    return 0;
}

/* Charges wait w (its delayer known) and passes its share on to the delayer's intermediate waits. */
static int replay_one(rc_ctx_t *x, rc_wait_t *w, rc_acc_t *aw, rc_acc_t *ad)
{
    const st_rc_input_t *in = x->in;
    uint32_t W = w->loc, D = w->by.loc, y = w->by.call;
    int64_t kw, kd;
    rc_shared_prev(&in->locs[W], w->call, D, y, index_run, &(at_loc_t){ x, W }, &kw, &kd);
    rc_acc_clear(aw);
    rc_interval(&in->locs[W], kw, w->call, aw);
    return rc_charge(x->res, D, D, &in->locs[D], &x->w[x->wbase[D]], 1, kd, y, wait_of(x, w),
                     in->locs[W].calls[w->call].cnode, w->orig, w->norig, aw, ad, x->want_causes ? &x->acc : NULL,
                     &w->indirect);
}

static int replay(rc_ctx_t *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->nw; i++)
        n += x->w[i].by.loc != RC_NONE && cat_of(wait_of(x, &x->w[i])->metric) >= 0; /* by: at a call */
    order_t *ord = st_mem_malloc((n ? n : 1) * sizeof *ord);
    rc_acc_t a[2] = { { 0 }, { 0 } };
    int rc = ord && !rc_acc_init(&a[0], x->res->ncnodes) && !rc_acc_init(&a[1], x->res->ncnodes) ? 0 : -1;
    if (!rc) {
        n = 0;
        for (size_t i = x->nw; i-- > 0;) /* last first: a location's waits come as one run of the order */
            if (x->w[i].by.loc != RC_NONE && cat_of(wait_of(x, &x->w[i])->metric) >= 0)
                ord[n++] = (order_t){ { x->w[i].by_enter, x->in->locs[x->w[i].loc].calls[x->w[i].call].leave,
                                        x->w[i].loc, x->w[i].call, x->w[i].idx },
                                      i };
        sort_order(ord, n);
        for (size_t i = 0; i < n && !rc; i++) {
            rc = replay_one(x, &x->w[ord[i].w], &a[0], &a[1]);
            free(x->w[ord[i].w].orig);
            x->w[ord[i].w].orig = NULL, x->w[ord[i].w].norig = x->w[ord[i].w].corig = 0;
        }
    }
    rc_acc_free(&a[0]), rc_acc_free(&a[1]);
    st_mem_free(ord);
    return rc;
}

/* ---- the classification of point-to-point waits ------------------------------------------------- */

void rc_classify_one(st_an_result_t *res, uint32_t c, uint32_t l, const st_rc_wait_t *sw, const rc_wait_t *w)
{
    int ls = sw->metric == ST_AN_M_LATESENDER;
    if (!ls && sw->metric != ST_AN_M_LATERECEIVER)
        return;
    double prop = w->prop < sw->ticks ? w->prop : sw->ticks;
    rc_add(res, ls ? ST_AN_M_WAIT_INDIRECT_LS : ST_AN_M_WAIT_INDIRECT_LR, c, l, w->indirect);
    rc_add(res, ls ? ST_AN_M_WAIT_DIRECT_LS : ST_AN_M_WAIT_DIRECT_LR, c, l, sw->ticks - w->indirect);
    rc_add(res, ls ? ST_AN_M_WAIT_PROP_LS : ST_AN_M_WAIT_PROP_LR, c, l, prop);
    rc_add(res, ls ? ST_AN_M_WAIT_TERM_LS : ST_AN_M_WAIT_TERM_LR, c, l, sw->ticks - prop);
}

static void classify(rc_ctx_t *x)
{
    for (size_t i = 0; i < x->nw; i++) {
        const rc_wait_t *w = &x->w[i];
        if (w->loc != RC_NONE)
            rc_classify_one(x->res, x->in->locs[w->loc].calls[w->call].cnode, w->loc, wait_of(x, w), w);
    }
}

/* ---- st_rc_run ------------------------------------------------------------------------------------ */

static void ctx_free(rc_ctx_t *x)
{
    for (size_t i = 0; x->w && i < x->nw; i++)
        free(x->w[i].orig);
    st_mem_free(x->w), free(x->wbase);
    rc_index_free(&x->ix);
    rc_causes_acc_free(&x->acc);
}

static int ctx_init(rc_ctx_t *x)
{
    const st_rc_input_t *in = x->in;
    x->wbase = malloc(((size_t)in->nlocs + 1) * sizeof *x->wbase);
    if (!x->wbase)
        return -1;
    x->nw = 0;
    x->first = UINT64_MAX, x->last = 0;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        x->wbase[l] = x->nw;
        x->nw += L->nwaits;
        if (!L->ncalls && !L->first && !L->last)
            continue; /* no events: not part of the run */
        x->first = L->first < x->first ? L->first : x->first;
        x->last = L->last > x->last ? L->last : x->last;
    }
    x->wbase[in->nlocs] = x->nw;
    if (x->first > x->last)
        x->first = x->last;
    x->w = st_mem_calloc(x->nw ? x->nw : 1, sizeof *x->w);
    if (!x->w || rc_index_build(&x->ix, in))
        return -1;
    /* a wait at no call keeps no delayer (it is not charged) */
    for (size_t i = 0; i < x->nw; i++)
        x->w[i].by.loc = x->w[i].loc = RC_NONE;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t k = 0; k < L->calls[c].nwait; k++) {
                rc_wait_t *w = &x->w[x->wbase[l] + L->calls[c].wait_at + k];
                w->loc = l, w->call = c, w->idx = k;
                w->by = find_delayer(x, l, c, L->waits[L->calls[c].wait_at + k].metric);
                if (w->by.loc != RC_NONE)
                    w->by_enter = in->locs[w->by.loc].calls[w->by.call].enter;
            }
    }
    return 0;
}

void rc_zero_metrics(st_an_result_t *res)
{
    if (res->ncnodes && res->nlocs)
        for (int m = ST_AN_M_DELAY; m <= ST_AN_M_NON_CP_ACTIVITIES; m++)
            memset(st_an_sev(res, m, 0, 0), 0, sizeof(double) * res->ncnodes * res->nlocs);
}

int st_rc_run(st_an_result_t *res, const st_rc_input_t *in, st_rc_causes_t *causes)
{
    if (causes)
        memset(causes, 0, sizeof *causes);
    if (res->ncnodes && res->nlocs && !res->sev) {
        st_log_warn("root causes: not computed, the analysis result has no values");
        return 0;
    }
    rc_zero_metrics(res); /* whatever they held */
    const char *bad = bad_timeline(res, in);
    if (bad) {
        st_log_warn("root causes: not computed, the timeline does not fit the analysis result (%s)", bad);
        return 0;
    }
    rc_ctx_t x = { .res = res, .in = in, .want_causes = causes != NULL };
    int rc = ctx_init(&x);
    if (!rc)
        rc = replay(&x);
    if (!rc)
        classify(&x);
    if (!rc)
        rc = rc_cpath(&x, causes);
    if (!rc && causes)
        rc = rc_causes_finish(&x, causes);
    ctx_free(&x);
    if (rc) {
        rc_zero_metrics(res);
        if (causes)
            st_rc_causes_free(causes);
    }
    return rc;
}
