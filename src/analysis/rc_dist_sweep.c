/*
 * rc_dist_sweep.c — the downstream waiting of the distributed root-cause replay (rc_dist.h, step 3), passed on
 * at one process, the sweeper. A charge passes its wait's share and the wait's own downstream waiting on to the
 * delayer's waits in the interval (rc_charge): what reaches a wait before its own turn is what its charge
 * carries on (its long-term costs). That part needs the serial order over all waits of the run; everything
 * else in a charge needs only the waiter's and the delayer's timelines. So each delayer's owner sends the
 * sweeper, per package it charges, the share's scale and denominator and the delayer's charged waits in the
 * interval with their ticks (the coefficients, known before any downstream waiting is), the sweeper adds
 * them up in the serial order exactly as rc_charge does (rc_origin_add, the same operands in the same order:
 * the same bits) and sends each delayer's owner the downstream waiting of its packages as it was at their
 * turns; the owners then charge their packages alone. One round trip, instead of one message hop per step of
 * a chain of waits that alternates between processes.
 */
#include "rc_dist_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/msort.h"
#include "../util/u64map.h"

/* A charge as the sweeper reads it: the coefficients' head and where its targets are. */
typedef struct sw_rec {
    rd_coef_t      c;
    const uint8_t *t; /* c.nt rd_target_t */
} sw_rec_t;

static inline int cmp_rec(const sw_rec_t *p, const sw_rec_t *q) { return rc_order_cmp(&p->c.k, &q->c.k); }
static int cmp_rec_void(const void *p, const void *q) { return cmp_rec(p, q); }
ST_MSORT(sort_recs, sw_rec_t, cmp_rec)

static uint64_t wait_key(uint32_t loc, uint64_t widx) { return (uint64_t)loc << 32 | widx; }

/* A charged wait's downstream waiting as it grows (16 bytes: the sweeper holds one per wait of the run). */
typedef struct sw_orig {
    rc_origin_t *v;
    uint32_t     n, cap;
} sw_orig_t;

/* Every process's coefficients (d->coef: length, bytes, ...) read into *out (n of them). 0, or -1. */
static int read_coefs(const rc_dist_t *d, sw_rec_t **out, size_t *nout)
{
    size_t n = 0, cap = 0;
    sw_rec_t *v = NULL;
    for (size_t at = 0; at < d->coef.n;) {
        size_t len;
        memcpy(&len, d->coef.p + at, sizeof len);
        const uint8_t *c = d->coef.p + at + sizeof len, *end = c + len;
        at += sizeof len + len;
        while (c < end) {
            sw_rec_t r;
            if ((size_t)(end - c) < sizeof r.c)
                goto bad;
            memcpy(&r.c, c, sizeof r.c);
            c += sizeof r.c;
            if ((size_t)(end - c) / sizeof(rd_target_t) < r.c.nt || r.c.dloc >= d->nall || r.c.k.loc >= d->nall ||
                r.c.widx > UINT32_MAX || !(r.c.den > 0))
                goto bad;
            r.t = c;
            c += (size_t)r.c.nt * sizeof(rd_target_t);
            if (n == cap) {
                cap = cap ? 2 * cap : 1024;
                sw_rec_t *w = st_mem_realloc(v, cap * sizeof *w);
                if (!w)
                    goto bad;
                v = w;
            }
            v[n++] = r;
        }
    }
    *out = v, *nout = n;
    return 0;
bad:
    st_mem_free(v);
    return -1;
}

int rd_sweep(rc_dist_t *d)
{
    sw_rec_t *r = NULL;
    size_t n = 0;
    if (read_coefs(d, &r, &n))
        return rd_fail(d, "malformed or too many coefficients");
    if (n > 1)
        sort_recs(r, n);
    st_u64map_t at = { .lent = 1 }; /* a charged wait -> its charge */
    sw_orig_t *o = st_mem_calloc(n ? n : 1, sizeof *o);
    rd_bytes_t *b = calloc((size_t)d->nprocs, sizeof *b);
    int rc = o && b ? 0 : -1;
    for (size_t i = 0; !rc && i < n; i++)
        rc = st_u64map_put(&at, wait_key(r[i].c.k.loc, r[i].c.widx), i);
    for (size_t i = 0; !rc && i < n; i++) {
        const rd_coef_t *c = &r[i].c;
        sw_orig_t *w = &o[i];
        if (w->n) { /* what the charge carries on, to the delayer's owner */
            rd_snap_t s;
            memset(&s, 0, sizeof s);
            s.k = c->k, s.dloc = c->dloc, s.norig = w->n;
            rd_bytes_t *q = &b[rd_owner(d, c->dloc)];
            rc = rd_put(q, &s, sizeof s) && rd_put(q, w->v, w->n * sizeof *w->v) ? 0 : -1;
        }
        for (uint32_t j = 0; !rc && j < c->nt; j++) { /* as rc_charge passes it on */
            rd_target_t t;
            uint64_t k;
            memcpy(&t, r[i].t + j * sizeof t, sizeof t);
            if (t.widx > UINT32_MAX || !st_u64map_get(&at, wait_key(c->dloc, t.widx), &k) || k == i)
                continue; /* (a wait's own delayer is another location) */
            sw_orig_t *K = &o[k];
            rc = rc_origin_add(&K->v, &K->n, &K->cap, c->metric, c->cx, c->scale * t.wk);
            for (uint32_t e = 0; !rc && e < w->n; e++)
                rc = rc_origin_add(&K->v, &K->n, &K->cap, w->v[e].metric, w->v[e].cnode,
                                   w->v[e].ticks / c->den * t.wk);
        }
        free(w->v); /* replayed: what reaches it later is not read (as in st_rc_run) */
        *w = (sw_orig_t){ 0 };
    }
    for (int32_t q = 0; !rc && q < d->nprocs; q++)
        rc = rd_send_own(d, q, RD_SNAP, &b[q].p, b[q].n);
    for (size_t i = 0; o && i < n; i++)
        free(o[i].v);
    for (int32_t q = 0; b && q < d->nprocs; q++)
        st_mem_free(b[q].p);
    free(b), st_mem_free(o), st_mem_free(r);
    st_u64map_free(&at);
    st_mem_free(d->coef.p); /* the targets were read there */
    d->coef = (rd_bytes_t){ 0 };
    return rc ? rd_fail(d, "out of memory") : 0;
}
