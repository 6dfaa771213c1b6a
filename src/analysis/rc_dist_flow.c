/*
 * rc_dist_flow.c — the distributed root-cause replay's dataflow (rc_dist.h, steps 3 to 5): the waits'
 * packages to their delayers' owners in the serial replay's order, their charging there (rc_charge, as
 * st_rc_run does) and the answers, the critical path's token, the propagation table handed on, and a
 * process's own end (the classification of its waits, its locations' T).
 */
#include "rc_dist_int.h"

#include <stdlib.h>
#include <string.h>

/* A package: its head, then norig origins (rc_origin_t) and naw interval entries (rd_aw_t). */
typedef struct rd_pkg_head {
    rc_order_t k;
    uint32_t   dloc, y;
    int64_t    kd;
    int32_t    metric;
    uint32_t   cx;
    double     ticks;
    uint32_t   norig, naw;
} rd_pkg_head_t;
typedef struct rd_aw {
    uint32_t c, pad;
    int64_t  v;
} rd_aw_t;

/* An answer: the wait (location, call, index) and its indirect part. */
typedef struct rd_resp {
    uint32_t loc, call, idx, pad;
    double   indirect;
} rd_resp_t;

/* The token: where the walk is (rc_walk_t), then the moment per location of the run. */
typedef struct rd_token {
    uint64_t h, e, t, hop_end, first, last, nhops, last_t0, last_loc;
} rd_token_t;

/* ---- a wait's package ------------------------------------------------------------------------------ */

/* The run of relation rel of the local location in ctx, from the ends its keys' homes sent back. */
typedef struct at_loc {
    const rc_dist_t *d;
    uint32_t         l;
} at_loc_t;

static const void *home_run(const void *ctx, uint64_t rel, size_t *n, size_t *stride)
{
    const at_loc_t *a = ctx;
    const rc_dist_t *d = a->d;
    uint64_t run = d->relrun[d->rbase[a->l] + rel];
    *n = d->run[run + 1] - d->run[run], *stride = sizeof(rd_end_t);
    return &d->runend[d->run[run]];
}

/* Sends local wait wi's package to its delayer's owner (every earlier wait its location delayed charged). */
static int send_pkg(rc_dist_t *d, size_t wi)
{
    rc_wait_t *w = &d->w[wi];
    uint32_t l = w->loc - d->loc0;
    const st_rc_loc_t *L = &d->in->locs[l];
    const st_rc_wait_t *sw = &L->waits[L->calls[w->call].wait_at + w->idx];
    int64_t kw, kd;
    rc_shared_prev(&d->in->locs[l], w->call, w->by.loc, w->by.call, home_run, &(at_loc_t){ d, l }, &kw, &kd);
    rc_acc_clear(&d->aw);
    rc_interval(L, kw, w->call, &d->aw);
    rd_pkg_head_t h;
    memset(&h, 0, sizeof h);
    h.k = (rc_order_t){ w->by_enter, L->calls[w->call].leave, w->loc, w->call, w->idx };
    h.dloc = w->by.loc, h.y = w->by.call, h.kd = kd, h.metric = sw->metric, h.cx = L->calls[w->call].cnode;
    h.ticks = sw->ticks, h.norig = w->norig, h.naw = d->aw.nt;
    size_t n = sizeof h + w->norig * sizeof(rc_origin_t) + d->aw.nt * sizeof(rd_aw_t);
    st_xchg_rec_t rh = { .type = RD_PKG };
    uint8_t *p = st_xchg_record(&d->out, rd_owner(d, w->by.loc), &rh, n);
    if (!p)
        return rd_fail(d, "out of memory");
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    if (w->norig)
        memcpy(p, w->orig, w->norig * sizeof(rc_origin_t));
    p += w->norig * sizeof(rc_origin_t);
    for (uint32_t i = 0; i < d->aw.nt; i++) {
        rd_aw_t a = { d->aw.touched[i], 0, d->aw.v[d->aw.touched[i]] };
        memcpy(p + i * sizeof a, &a, sizeof a);
    }
    free(w->orig); /* replayed: what reaches it later is not read (as in st_rc_run) */
    w->orig = NULL, w->norig = w->corig = 0;
    d->nsent++;
    return 0;
}

int rd_pkg_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    rd_pkg_head_t h;
    if (n < sizeof h)
        return -1;
    memcpy(&h, p, sizeof h);
    if (h.dloc < d->loc0 || h.dloc - d->loc0 >= d->in->nlocs ||
        (n - sizeof h) / sizeof(rc_origin_t) < h.norig ||
        n != sizeof h + (size_t)h.norig * sizeof(rc_origin_t) + (size_t)h.naw * sizeof(rd_aw_t))
        return -1;
    uint32_t l = h.dloc - d->loc0;
    size_t lo = 0, hi = d->ninc[l];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rc_order_cmp(&d->inc[l][mid].k, &h.k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == d->ninc[l] || rc_order_cmp(&d->inc[l][lo].k, &h.k) || d->inc[l][lo].pkg)
        return -1; /* not announced, or twice */
    uint8_t *c = malloc(n);
    if (!c)
        return rd_fail(d, "out of memory");
    memcpy(c, p, n);
    d->inc[l][lo].pkg = c, d->inc[l][lo].len = n;
    return 0;
}

/* Charges the package of local location l's next incoming wait and answers its owner. */
static int charge(rc_dist_t *d, uint32_t l, rd_inc_t *inc)
{
    rd_pkg_head_t h;
    memcpy(&h, inc->pkg, sizeof h);
    const st_rc_loc_t *LD = &d->in->locs[l];
    if (h.y > LD->ncalls || h.kd >= (int64_t)h.y || h.kd < -1 || h.cx >= d->res->ncnodes ||
        st_rc_delay_metric(h.metric) < 0)
        return rd_fail(d, "a package that does not fit the timeline");
    const rc_origin_t *orig = (const rc_origin_t *)(inc->pkg + sizeof h); /* malloc'd: aligned */
    const uint8_t *aw = inc->pkg + sizeof h + h.norig * sizeof(rc_origin_t);
    rc_acc_clear(&d->aw);
    for (uint32_t i = 0; i < h.naw; i++) {
        rd_aw_t a;
        memcpy(&a, aw + i * sizeof a, sizeof a);
        if (a.c >= d->res->ncnodes)
            return rd_fail(d, "a package that does not fit the timeline");
        rc_acc_add(&d->aw, a.c, a.v);
    }
    for (uint32_t o = 0; o < h.norig; o++)
        if (st_rc_delay_metric(orig[o].metric) < 0 || orig[o].cnode >= d->res->ncnodes)
            return rd_fail(d, "a package that does not fit the timeline");
    st_rc_wait_t sw = { h.metric, h.ticks };
    rd_resp_t r = { h.k.loc, h.k.call, h.k.idx, 0, 0 };
    if (rc_charge(d->res, l, h.dloc, LD, &d->w[d->wbase[l]], h.kd, h.y, &sw, h.cx, orig, h.norig, &d->aw, &d->ad,
                  &d->acc, &r.indirect))
        return rd_fail(d, "out of memory");
    free(inc->pkg);
    inc->pkg = NULL;
    return rd_send(d, rd_owner(d, h.k.loc), RD_RESP, &r, sizeof r);
}

int rd_resp_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    rd_resp_t r;
    if (n != sizeof r)
        return -1;
    memcpy(&r, p, sizeof r);
    if (r.loc < d->loc0 || r.loc - d->loc0 >= d->in->nlocs)
        return -1;
    const st_rc_loc_t *L = &d->in->locs[r.loc - d->loc0];
    if (r.call >= L->ncalls || r.idx >= L->calls[r.call].nwait)
        return -1;
    d->w[d->wbase[r.loc - d->loc0] + L->calls[r.call].wait_at + r.idx].indirect = r.indirect;
    d->nresp++;
    return 0;
}

/* Location l's packages and waits in the order: a wait goes once every earlier package is charged. 1: did
 * something, 0: waits for a package, -1: failed. */
static int flow_loc(rc_dist_t *d, uint32_t l)
{
    int did = 0;
    for (;;) {
        int have_out = d->out_next[l] < d->nout[l], have_inc = d->inc_next[l] < d->ninc[l];
        if (!have_out && !have_inc)
            return did;
        if (have_out) {
            size_t wi = d->outw[l][d->out_next[l]];
            const rc_wait_t *w = &d->w[wi];
            rc_order_t k = { w->by_enter, d->in->locs[l].calls[w->call].leave, w->loc, w->call, w->idx };
            if (!have_inc || rc_order_cmp(&k, &d->inc[l][d->inc_next[l]].k) < 0) {
                if (send_pkg(d, wi))
                    return -1;
                d->out_next[l]++, did = 1;
                continue;
            }
        }
        rd_inc_t *inc = &d->inc[l][d->inc_next[l]];
        if (!inc->pkg)
            return did;
        if (charge(d, l, inc))
            return -1;
        d->inc_next[l]++, did = 1;
    }
}

/* ---- the critical path's token ------------------------------------------------------------------------ */

int rd_walk_start(rc_dist_t *d)
{
    const rd_facts_t *f = &d->facts;
    if (!f->any) {
        d->walk_done = 1;
        return 0;
    }
    uint32_t s = (uint32_t)(f->fin ? f->fin_loc : f->last_loc);
    if (rd_owner(d, s) != d->me)
        return 0;
    d->walk.seen = malloc((d->nall ? d->nall : 1) * sizeof *d->walk.seen);
    if (!d->walk.seen)
        return rd_fail(d, "out of memory");
    for (uint32_t l = 0; l < d->nall; l++)
        d->walk.seen[l] = UINT64_MAX;
    uint64_t first = f->ev ? f->first : 0, last = f->ev ? f->last : 0;
    d->walk.h = s, d->walk.e = 2 * (int64_t)d->in->locs[s - d->loc0].ncalls;
    d->walk.t = d->walk.hop_end = last, d->walk.first = first > last ? last : first, d->walk.last = last;
    d->walking = 1;
    return 0;
}

int rd_token_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    rd_token_t t;
    if (n != sizeof t + (size_t)d->nall * 8)
        return -1;
    memcpy(&t, p, sizeof t);
    if (t.h < d->loc0 || t.h - d->loc0 >= d->in->nlocs || d->walking ||
        t.e > 2 * (uint64_t)d->in->locs[t.h - d->loc0].ncalls)
        return -1;
    if (!d->walk.seen && !(d->walk.seen = malloc((d->nall ? d->nall : 1) * sizeof *d->walk.seen)))
        return rd_fail(d, "out of memory");
    memcpy(d->walk.seen, p + sizeof t, (size_t)d->nall * 8);
    d->walk.h = (uint32_t)t.h, d->walk.e = (int64_t)t.e, d->walk.t = t.t, d->walk.hop_end = t.hop_end;
    d->walk.first = t.first, d->walk.last = t.last, d->walk.nhops = t.nhops, d->walk.last_t0 = t.last_t0;
    d->walk.last_loc = (uint32_t)t.last_loc;
    d->walking = 1;
    return 0;
}

/* Walks while the path stays on local locations, then hands the token on (or says the walk is done). */
static int walk(rc_dist_t *d)
{
    while (d->walking) {
        uint32_t l = d->walk.h - d->loc0;
        int k = rc_walk_on(&d->walk, &d->in->locs[l], &d->w[d->wbase[l]], d->res, l, &d->hops);
        if (k < 0)
            return rd_fail(d, "out of memory");
        if (k == 0) {
            d->walking = 0;
            for (int32_t q = 0; q < d->nprocs; q++)
                if (rd_send(d, q, RD_WALKED, NULL, 0))
                    return -1;
            return 1;
        }
        int32_t q = rd_owner(d, d->walk.h);
        if (q == d->me)
            continue;
        rd_token_t t = { d->walk.h,      (uint64_t)d->walk.e, d->walk.t,     d->walk.hop_end, d->walk.first,
                         d->walk.last,   d->walk.nhops,       d->walk.last_t0, d->walk.last_loc };
        st_xchg_rec_t rh = { .type = RD_TOKEN };
        uint8_t *p = st_xchg_record(&d->out, q, &rh, sizeof t + (size_t)d->nall * 8);
        if (!p)
            return rd_fail(d, "out of memory");
        memcpy(p, &t, sizeof t);
        memcpy(p + sizeof t, d->walk.seen, (size_t)d->nall * 8);
        d->walking = 0;
    }
    return 1;
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
    int did = 0, k;
    for (uint32_t l = 0; l < d->in->nlocs; l++) {
        if ((k = flow_loc(d, l)) < 0)
            return -1;
        did |= k;
    }
    if (d->walking) {
        if ((k = walk(d)) < 0)
            return -1;
        did |= k;
    }
    int replayed = d->nresp == d->nsent;
    for (uint32_t l = 0; replayed && l < d->in->nlocs; l++)
        replayed = d->out_next[l] == d->nout[l] && d->inc_next[l] == d->ninc[l];
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
