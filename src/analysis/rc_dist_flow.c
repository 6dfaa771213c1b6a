/*
 * rc_dist_flow.c — the distributed root-cause replay's packages and what follows them (rc_dist.h, steps 2 to
 * 5): the waits' packages to their delayers' owners, the coefficients to the sweeper, the charging of every
 * package in the serial replay's order once the sweeper's snapshots came (rc_charge, as st_rc_run does) and
 * the answers, the propagation table handed on, and a process's own end (the classification of its waits, its
 * locations' T). */
#include "rc_dist_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/msort.h"

/* An answer: the wait (location, call, index) and its indirect part. */
typedef struct rd_resp {
    uint32_t loc, call, idx, pad;
    double   indirect;
} rd_resp_t;

/* ---- the waits' packages ----------------------------------------------------------------------------- */

/* The run of relation rel of the local location in ctx, from the ends its keys' homes sent back. */
typedef struct at_loc {
    const rc_dist_t *d;
    uint32_t         l;
} at_loc_t;

static const void *home_run(const void *ctx, uint64_t rel, size_t *n, size_t *stride)
{
    const at_loc_t *a = ctx;
    *stride = sizeof(rd_end_t);
    return rd_run_of(a->d, a->l, rel, n);
}

/* Local wait wi's package (its interval and its delayer's) appended to b. 0, or -1 (memory). */
static int put_pkg(rc_dist_t *d, size_t wi, rd_bytes_t *b)
{
    const rc_wait_t *w = &d->w[wi];
    uint32_t l = w->loc - d->loc0;
    const st_rc_loc_t *L = &d->in->locs[l];
    const st_rc_wait_t *sw = &L->waits[L->calls[w->call].wait_at + w->idx];
    int64_t kw, kd;
    rc_shared_prev(L, w->call, w->by.loc, w->by.call, home_run, &(at_loc_t){ d, l }, &kw, &kd);
    rc_acc_clear(&d->aw);
    rc_interval(L, kw, w->call, &d->aw);
    rd_pkg_head_t h;
    memset(&h, 0, sizeof h);
    h.k = (rc_order_t){ w->by_enter, L->calls[w->call].leave, w->loc, w->call, w->idx };
    h.widx = L->calls[w->call].wait_at + w->idx;
    h.dloc = w->by.loc, h.y = w->by.call, h.kd = kd, h.metric = sw->metric, h.cx = L->calls[w->call].cnode;
    h.ticks = sw->ticks, h.naw = d->aw.nt;
    uint8_t *p = rd_put(b, NULL, sizeof h + d->aw.nt * sizeof(rd_aw_t));
    if (!p)
        return -1;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    for (uint32_t i = 0; i < d->aw.nt; i++) {
        rd_aw_t a = { d->aw.touched[i], 0, d->aw.v[d->aw.touched[i]] };
        memcpy(p + i * sizeof a, &a, sizeof a);
    }
    return 0;
}

int rd_send_pkgs(rc_dist_t *d)
{
    rd_bytes_t *b = calloc((size_t)d->nprocs, sizeof *b);
    if (!b)
        return rd_fail(d, "out of memory");
    int rc = 0;
    for (size_t i = 0; !rc && i < d->nw; i++) {
        const rc_wait_t *w = &d->w[i];
        if (w->loc == RC_NONE)
            continue;
        const st_rc_loc_t *L = &d->in->locs[w->loc - d->loc0];
        if (!rd_charged(w, &L->waits[L->calls[w->call].wait_at + w->idx]))
            continue;
        rc = put_pkg(d, i, &b[rd_owner(d, w->by.loc)]);
        d->nsent++;
    }
    for (int32_t q = 0; !rc && q < d->nprocs; q++)
        rc = rd_send_own(d, q, RD_PKGS, &b[q].p, b[q].n);
    for (int32_t q = 0; q < d->nprocs; q++)
        st_mem_free(b[q].p);
    free(b);
    return rc ? rd_fail(d, "out of memory") : 0;
}

/* A local wait in the replay's order. */
typedef struct alone {
    rc_order_t k;
    size_t     w;
} alone_t;

static inline int cmp_alone(const alone_t *p, const alone_t *q) { return rc_order_cmp(&p->k, &q->k); }
static int cmp_alone_void(const void *p, const void *q) { return cmp_alone(p, q); }
ST_MSORT(sort_alone, alone_t, cmp_alone)

int rd_replay_alone(rc_dist_t *d)
{
    size_t n = 0;
    alone_t *ord = st_mem_malloc((d->nw ? d->nw : 1) * sizeof *ord); /* at most every wait is charged */
    if (!ord)
        return rd_fail(d, "out of memory");
    for (size_t i = d->nw; i-- > 0;) { /* last first: a location's waits come as one run of the replay's order */
        const rc_wait_t *w = &d->w[i];
        const st_rc_loc_t *L = w->loc == RC_NONE ? NULL : &d->in->locs[w->loc - d->loc0];
        if (L && rd_charged(w, &L->waits[L->calls[w->call].wait_at + w->idx]))
            ord[n++] = (alone_t){ { w->by_enter, L->calls[w->call].leave, w->loc, w->call, w->idx }, i };
    }
    if (n > 1)
        sort_alone(ord, n);
    int rc = 0;
    for (size_t i = 0; !rc && i < n; i++) { /* as st_rc_run's replay (rc_replay.c) */
        rc_wait_t *w = &d->w[ord[i].w];
        uint32_t l = w->loc - d->loc0, D = w->by.loc - d->loc0;
        const st_rc_loc_t *L = &d->in->locs[l];
        int64_t kw, kd;
        rc_shared_prev(L, w->call, w->by.loc, w->by.call, home_run, &(at_loc_t){ d, l }, &kw, &kd);
        rc_acc_clear(&d->aw);
        rc_interval(L, kw, w->call, &d->aw);
        rc = rc_charge(d->res, D, w->by.loc, &d->in->locs[D], &d->w[d->wbase[D]], 1, kd, w->by.call,
                       &L->waits[L->calls[w->call].wait_at + w->idx], L->calls[w->call].cnode, w->orig, w->norig,
                       &d->aw, &d->ad, &d->acc, &w->indirect);
        free(w->orig); /* replayed: what reaches it later is not read */
        w->orig = NULL, w->norig = w->corig = 0;
        d->ncharged++;
    }
    st_mem_free(ord);
    d->coef_sent = d->swept = d->got_snap = d->charged = 1; /* no packages, coefficients, snapshots or answers */
    return rc ? rd_fail(d, "out of memory") : 0;
}

int rd_pkgs_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    const uint8_t *c = rd_keep(d, p, n), *end = c + n;
    if (!c)
        return -1;
    while (c < end) {
        rd_pkg_head_t h;
        if ((size_t)(end - c) < sizeof h)
            return -1;
        memcpy(&h, c, sizeof h);
        if ((size_t)(end - c - sizeof h) / sizeof(rd_aw_t) < h.naw || h.dloc < d->loc0 ||
            h.dloc - d->loc0 >= d->in->nlocs)
            return -1;
        size_t len = sizeof h + (size_t)h.naw * sizeof(rd_aw_t);
        uint32_t l = h.dloc - d->loc0;
        if (d->ninc[l] == d->cinc[l]) {
            size_t cap = d->cinc[l] ? 2 * d->cinc[l] : 16;
            rd_inc_t *v = st_mem_realloc(d->inc[l], cap * sizeof *v);
            if (!v)
                return rd_fail(d, "out of memory");
            d->inc[l] = v, d->cinc[l] = cap;
        }
        d->inc[l][d->ninc[l]++] = (rd_inc_t){ h.k, c, len, NULL, 0 };
        c += len;
    }
    return 0;
}

/* The head of package inc of local location l, its waiter's interval into d->aw; checked against the
 * timeline. 0, or -1 (failed). */
static int read_pkg(rc_dist_t *d, uint32_t l, const rd_inc_t *inc, rd_pkg_head_t *h)
{
    memcpy(h, inc->pkg, sizeof *h);
    const st_rc_loc_t *LD = &d->in->locs[l];
    if (h->y >= LD->ncalls || h->kd >= (int64_t)h->y || h->kd < -1 || h->cx >= d->res->ncnodes ||
        st_rc_delay_metric(h->metric) < 0)
        return rd_fail(d, "a package that does not fit the timeline");
    rc_acc_clear(&d->aw);
    for (uint32_t i = 0; i < h->naw; i++) {
        rd_aw_t a;
        memcpy(&a, inc->pkg + sizeof *h + i * sizeof a, sizeof a);
        if (a.c >= d->res->ncnodes)
            return rd_fail(d, "a package that does not fit the timeline");
        rc_acc_add(&d->aw, a.c, a.v);
    }
    return 0;
}

/* The delayer's timeline that package i of local location l reads first (its interval's first call, then that
 * call's profile), fetched ahead: the packages come in the replay's order, their intervals far apart. */
enum { PKG_AHEAD = 8 };
static void prefetch_pkg(const rc_dist_t *d, uint32_t l, size_t i)
{
    const st_rc_loc_t *LD = &d->in->locs[l];
    rd_pkg_head_t h;
    if (i + PKG_AHEAD < d->ninc[l]) {
        memcpy(&h, d->inc[l][i + PKG_AHEAD].pkg, sizeof h);
        if (h.kd + 1 >= 0 && h.kd + 1 < (int64_t)LD->ncalls)
            __builtin_prefetch(&LD->calls[h.kd + 1]);
    }
    if (i + PKG_AHEAD / 2 < d->ninc[l]) {
        memcpy(&h, d->inc[l][i + PKG_AHEAD / 2].pkg, sizeof h);
        if (h.kd + 1 >= 0 && h.kd + 1 < (int64_t)LD->ncalls && LD->calls[h.kd + 1].prof_at < LD->nprof)
            __builtin_prefetch(&LD->prof[LD->calls[h.kd + 1].prof_at]);
    }
}

static inline int cmp_inc(const rd_inc_t *p, const rd_inc_t *q) { return rc_order_cmp(&p->k, &q->k); }
static int cmp_inc_void(const void *p, const void *q) { return cmp_inc(p, q); }
ST_MSORT(sort_inc, rd_inc_t, cmp_inc)

int rd_send_coefs(rc_dist_t *d)
{
    rd_bytes_t b = { 0 };
    for (uint32_t l = 0; l < d->in->nlocs; l++) {
        if (d->ninc[l] > 1)
            sort_inc(d->inc[l], d->ninc[l]);
        const st_rc_loc_t *LD = &d->in->locs[l];
        const rc_wait_t *KD = &d->w[d->wbase[l]];
        for (size_t i = 0; i < d->ninc[l]; i++) {
            rd_pkg_head_t h;
            prefetch_pkg(d, l, i);
            if ((i && !rc_order_cmp(&d->inc[l][i - 1].k, &d->inc[l][i].k)) || read_pkg(d, l, &d->inc[l][i], &h)) {
                st_mem_free(b.p);
                return rd_fail(d, "a package twice, or one that does not fit the timeline");
            }
            double wd, den = rc_charge_den(LD, h.kd, h.y, &d->aw, &d->ad, &wd);
            if (!(den > 0))
                continue; /* charges nothing, passes nothing on */
            rd_coef_t r;
            memset(&r, 0, sizeof r);
            r.k = h.k, r.widx = h.widx, r.dloc = h.dloc, r.metric = h.metric, r.cx = h.cx;
            r.scale = h.ticks < den ? h.ticks / den : 1, r.den = den;
            size_t at = b.n;
            if (!rd_put(&b, &r, sizeof r))
                goto oom;
            for (uint32_t j = (uint32_t)(h.kd + 1); j < h.y; j++)
                for (uint32_t k = 0; k < LD->calls[j].nwait; k++) {
                    uint64_t wi = LD->calls[j].wait_at + k;
                    if (!rd_charged(&KD[wi], &LD->waits[wi]))
                        continue; /* what reaches it is never read */
                    rd_target_t t = { wi, LD->waits[wi].ticks };
                    if (!rd_put(&b, &t, sizeof t))
                        goto oom;
                    r.nt++;
                }
            memcpy(b.p + at, &r, sizeof r);
        }
    }
    int rc = rd_send(d, RD_SWEEPER, RD_COEF, b.p, b.n);
    st_mem_free(b.p);
    return rc;
oom:
    st_mem_free(b.p);
    return rd_fail(d, "out of memory");
}

/* Charges every package of every local location in the order (each with its downstream waiting) and answers
 * their owners: one record of answers per process. 0, or -1. */
static int charge_all(rc_dist_t *d)
{
    rd_bytes_t *b = calloc((size_t)d->nprocs, sizeof *b);
    if (!b)
        return rd_fail(d, "out of memory");
    int rc = 0;
    for (uint32_t l = 0; !rc && l < d->in->nlocs; l++)
        for (size_t i = 0; !rc && i < d->ninc[l]; i++) {
            const rd_inc_t *inc = &d->inc[l][i];
            rd_pkg_head_t h;
            prefetch_pkg(d, l, i);
            if (read_pkg(d, l, inc, &h)) {
                rc = -1;
                break;
            }
            st_rc_wait_t sw = { h.metric, h.ticks };
            rd_resp_t r = { h.k.loc, h.k.call, h.k.idx, 0, 0 };
            if (rc_charge(d->res, l, h.dloc, &d->in->locs[l], &d->w[d->wbase[l]], 0, h.kd, h.y, &sw, h.cx, inc->orig,
                          inc->norig, &d->aw, &d->ad, &d->acc, &r.indirect) ||
                !rd_put(&b[rd_owner(d, h.k.loc)], &r, sizeof r))
                rc = rd_fail(d, "out of memory");
            d->ncharged++;
        }
    for (int32_t q = 0; !rc && q < d->nprocs; q++)
        if (b[q].n)
            rc = rd_send(d, q, RD_RESP, b[q].p, b[q].n);
    for (int32_t q = 0; q < d->nprocs; q++)
        st_mem_free(b[q].p);
    free(b);
    return rc;
}

int rd_snap_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    if (!d->coef_sent)
        return -1; /* the sweeper answers the coefficients */
    const uint8_t *c = n ? rd_keep(d, p, n) : p, *end = c + n;
    if (n && !c)
        return -1;
    while (c < end) {
        rd_snap_t s;
        if ((size_t)(end - c) < sizeof s)
            return -1;
        memcpy(&s, c, sizeof s);
        c += sizeof s;
        if ((size_t)(end - c) / sizeof(rc_origin_t) < s.norig || !s.norig || s.dloc < d->loc0 ||
            s.dloc - d->loc0 >= d->in->nlocs)
            return -1;
        uint32_t l = s.dloc - d->loc0;
        size_t lo = 0, hi = d->ninc[l];
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rc_order_cmp(&d->inc[l][mid].k, &s.k) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == d->ninc[l] || rc_order_cmp(&d->inc[l][lo].k, &s.k) || d->inc[l][lo].orig)
            return -1; /* no such package, or twice */
        const rc_origin_t *o = (const rc_origin_t *)(const void *)c; /* kept copy, 8-byte records: aligned */
        for (uint32_t i = 0; i < s.norig; i++)
            if (st_rc_delay_metric(o[i].metric) < 0 || o[i].cnode >= d->res->ncnodes)
                return -1;
        d->inc[l][lo].orig = o, d->inc[l][lo].norig = s.norig;
        c += s.norig * sizeof(rc_origin_t);
    }
    return 0;
}

int rd_resp_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    rd_resp_t r;
    if (n % sizeof r)
        return -1;
    for (size_t k = 0; k < n / sizeof r; k++) {
        memcpy(&r, p + k * sizeof r, sizeof r);
        if (r.loc < d->loc0 || r.loc - d->loc0 >= d->in->nlocs)
            return -1;
        const st_rc_loc_t *L = &d->in->locs[r.loc - d->loc0];
        if (r.call >= L->ncalls || r.idx >= L->calls[r.call].nwait)
            return -1;
        d->w[d->wbase[r.loc - d->loc0] + L->calls[r.call].wait_at + r.idx].indirect = r.indirect;
        d->nresp++;
    }
    return 0;
}

/* ---- the propagation table and the end ------------------------------------------------------------------ */

int rd_props_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    if (n % sizeof(struct st_rc_prop) || d->props_in)
        return -1;
    for (size_t i = 0; i < n / sizeof(struct st_rc_prop); i++) {
        struct st_rc_prop e;
        memcpy(&e, p + i * sizeof e, sizeof e);
        if (rc_props_add1(&d->props, e.metric, e.cnode, e.wait, e.propagating))
            return rd_fail(d, "out of memory");
    }
    d->props_in = 1;
    return 0;
}

int rd_finish_local(rc_dist_t *d)
{
    const st_rc_input_t *in = d->in;
    for (size_t i = 0; i < d->nw; i++) {
        const rc_wait_t *w = &d->w[i];
        if (w->loc == RC_NONE)
            continue;
        const st_rc_loc_t *L = &in->locs[w->loc - d->loc0];
        rc_classify_one(d->res, L->calls[w->call].cnode, w->loc - d->loc0, &L->waits[L->calls[w->call].wait_at + w->idx],
                        w);
    }
    uint32_t nc = d->res->ncnodes;
    size_t nT = (size_t)in->nlocs * nc;
    d->T = malloc((nT > 0 ? nT : 1) * sizeof *d->T);
    if (!d->T)
        return rd_fail(d, "out of memory");
    for (uint32_t l = 0; l < in->nlocs; l++)
        rc_loc_T(d->res, l, &in->locs[l], d->T + (size_t)l * nc);
    return 0;
}

int rd_flow(rc_dist_t *d)
{
    int did = 0;
    if (d->coef_sent && d->got_snap && !d->charged) {
        d->charged = 1, did = 1;
        if (charge_all(d))
            return -1;
    }
    if (d->got_plan && !d->walk_done) {
        d->walk_done = 1, did = 1;
        if (rd_walk_plan(d))
            return -1;
    }
    int replayed = d->charged && d->nresp == d->nsent;
    if (replayed && d->props_in && !d->props_done) {
        if (rc_props_add(&d->props, d->in, d->loc0, d->w, d->nw))
            return rd_fail(d, "out of memory");
        if (d->me + 1 < d->nprocs) {
            if (rd_send(d, d->me + 1, RD_PROPS, d->props.v, d->props.n * sizeof *d->props.v))
                return -1;
            rc_props_free(&d->props);
        }
        d->props_done = 1, did = 1;
    }
    if (replayed && d->props_done && d->walk_done && !d->finished) {
        if (rd_finish_local(d))
            return -1;
        d->finished = 1, did = 1;
    }
    return did;
}
