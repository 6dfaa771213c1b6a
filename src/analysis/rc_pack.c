/*
 * rc_pack.c — a process's root-cause timeline in its part of a parallel analysis' report, read back at
 * the collector with the merged result's cnodes and locations (rc_build.h); and the root-cause
 * analysis over a result's timeline once it is whole (an_rc_finish).
 */
#include "rc_build.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"

int an_rc_keep_timeline;

/* ---- the encoding: LEB128 varints, times as differences to the previous time, keys to the previous key -- */

/* A writer; p NULL: counts the bytes only. */
typedef struct wr {
    uint8_t *p;
    size_t   n;
} wr_t;

static void put_u(wr_t *w, uint64_t v)
{
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (w->p)
            w->p[w->n] = (uint8_t)(b | (v ? 0x80 : 0));
        w->n++;
    } while (v);
}

/* A difference of two 64-bit values, wrapping (zigzag: small either way). */
static void put_d(wr_t *w, uint64_t x, uint64_t prev)
{
    int64_t d = (int64_t)(x - prev);
    put_u(w, (uint64_t)d << 1 ^ (uint64_t)(d >> 63));
}

static void put_prof(wr_t *w, const st_rc_prof_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        put_u(w, p[i].cnode), put_u(w, p[i].ticks);
}

static void put_loc(wr_t *w, const st_rc_loc_t *L)
{
    uint64_t prev = L->first, key[4] = { 0 };
    put_u(w, L->first), put_d(w, L->last, L->first);
    put_u(w, L->ncalls), put_u(w, L->nprof), put_u(w, L->nwaits), put_u(w, L->nrels), put_u(w, L->ntail);
    for (uint32_t k = 0; k < L->ncalls; k++) {
        const st_rc_call_t *x = &L->calls[k];
        put_d(w, x->enter, prev), put_u(w, x->leave - x->enter);
        put_u(w, x->cnode), put_u(w, x->flags), put_u(w, x->nprof), put_u(w, x->nwait), put_u(w, x->nrel);
        put_prof(w, L->prof + x->prof_at, x->nprof);
        for (uint32_t i = 0; i < x->nwait; i++) {
            const st_rc_wait_t *y = &L->waits[x->wait_at + i];
            put_u(w, (uint32_t)y->metric);
            if (w->p)
                memcpy(w->p + w->n, &y->ticks, 8);
            w->n += 8;
        }
        for (uint32_t i = 0; i < x->nrel; i++) {
            const st_rc_rel_t *r = &L->rels[x->rel_at + i];
            for (int j = 0; j < 4; j++)
                put_d(w, r->key[j], key[j]), key[j] = r->key[j];
            put_u(w, r->role);
        }
        prev = x->leave;
    }
    put_prof(w, L->prof + L->tail_at, L->ntail);
}

size_t an_rc_pack_size(const st_rc_input_t *in)
{
    wr_t w = { NULL, 0 };
    for (uint32_t l = 0; l < in->nlocs; l++)
        put_loc(&w, &in->locs[l]);
    return w.n;
}

size_t an_rc_pack_bound(const st_rc_input_t *in)
{
    size_t n = 0; /* varints of at most 10 bytes (a 32-bit value's 5), a wait's ticks 8 */
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        n += 7 * 10 + (size_t)L->ncalls * (2 * 10 + 5 * 5) + L->nprof * (5 + 10) + L->nwaits * (5 + 8) +
             L->nrels * (4 * 10 + 5);
    }
    return n;
}

uint8_t *an_rc_pack(const st_rc_input_t *in, uint8_t *out)
{
    wr_t w = { out, 0 };
    for (uint32_t l = 0; l < in->nlocs; l++)
        put_loc(&w, &in->locs[l]);
    return out + w.n;
}

/* ---- reading it back ---------------------------------------------------------------------------------- */

typedef struct rd {
    const uint8_t *p, *end;
    int            bad;
} rd_t;

static uint64_t get_u(rd_t *r)
{
    uint64_t v = 0;
    for (int s = 0; s < 64 && r->p < r->end; s += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80))
            return s == 63 && b > 1 ? (r->bad = 1, 0) : v;
    }
    r->bad = 1;
    return 0;
}

static uint64_t get_d(rd_t *r, uint64_t prev)
{
    uint64_t z = get_u(r);
    return prev + ((z >> 1) ^ (uint64_t)-(int64_t)(z & 1));
}

/* At most that many of something of min bytes each are left. */
static int fits(const rd_t *r, uint64_t n, size_t min) { return n <= (uint64_t)(r->end - r->p) / min; }

static int cmp_prof(const void *a, const void *b)
{
    const st_rc_prof_t *x = a, *y = b;
    return (x->cnode > y->cnode) - (x->cnode < y->cnode);
}

/* n profile entries into p, cnodes mapped and sorted; one per cnode, positive. */
static int get_prof(rd_t *r, st_rc_prof_t *p, uint32_t n, const uint32_t *map, uint32_t nc)
{
    for (uint32_t i = 0; i < n; i++) {
        uint64_t k = get_u(r), t = get_u(r);
        if (r->bad || k >= nc || t == 0)
            return -1;
        p[i] = (st_rc_prof_t){ map[k], t };
    }
    if (n > 16)
        qsort(p, n, sizeof *p, cmp_prof);
    else /* most calls' few: qsort's call per comparison costs more than the sort */
        for (uint32_t i = 1; i < n; i++) {
            st_rc_prof_t v = p[i];
            uint32_t j = i;
            for (; j > 0 && p[j - 1].cnode > v.cnode; j--)
                p[j] = p[j - 1];
            p[j] = v;
        }
    for (uint32_t i = 1; i < n; i++)
        if (p[i - 1].cnode == p[i].cnode)
            return -1;
    return 0;
}

/* One location into L. */
static int get_loc(rd_t *r, const uint32_t *map, uint32_t nc, st_rc_loc_t *L)
{
    uint64_t h[7];
    h[0] = get_u(r), h[1] = get_d(r, h[0]);
    for (int i = 2; i < 7; i++)
        h[i] = get_u(r);
    /* smallest encodings: a call 7 bytes, a profile entry 2, a wait 9, a relation 5 */
    if (r->bad || h[1] < h[0] || !fits(r, h[2], 7) || !fits(r, h[3], 2) || !fits(r, h[4], 9) || !fits(r, h[5], 5) ||
        h[6] > h[3] || h[2] > UINT32_MAX || h[3] > UINT32_MAX || h[4] > UINT32_MAX || h[5] > UINT32_MAX)
        return -1;
    L->first = h[0], L->last = h[1], L->ncalls = (uint32_t)h[2];
    if (!(L->calls = st_mem_malloc(sizeof *L->calls * (h[2] + 1))) ||
        !(L->prof = st_mem_malloc(sizeof *L->prof * (h[3] + 1))) ||
        !(L->waits = st_mem_malloc(sizeof *L->waits * (h[4] + 1))) ||
        !(L->rels = st_mem_malloc(sizeof *L->rels * (h[5] + 1))))
        return -1;
    uint64_t np = 0, nw = 0, nr = 0, prev = h[0], key[4] = { 0 };
    for (uint32_t k = 0; k < L->ncalls; k++) {
        st_rc_call_t *x = &L->calls[k];
        uint64_t enter = get_d(r, prev), d = get_u(r), v[5];
        for (int i = 0; i < 5; i++)
            v[i] = get_u(r);
        if (r->bad || enter + d < enter || v[0] >= nc || map[v[0]] >= ST_RC_CNODES ||
            v[1] > (ST_RC_IDLE | ST_RC_FINALIZE | ST_RC_INIT) || v[2] > h[3] - np || v[3] > h[4] - nw ||
            v[3] >= ST_RC_CALL_WAITS || v[4] > h[5] - nr || v[4] >= ST_RC_CALL_RELS) /* the call's narrow fields */
            return -1;
        *x = (st_rc_call_t){ .enter = enter, .leave = enter + d, .cnode = map[v[0]], .flags = (uint32_t)v[1],
                             .prof_at = np, .nprof = (uint32_t)v[2], .wait_at = nw, .nwait = (uint32_t)v[3],
                             .rel_at = nr, .nrel = (uint32_t)v[4] };
        if (get_prof(r, L->prof + np, x->nprof, map, nc))
            return -1;
        np += x->nprof;
        for (uint32_t i = 0; i < x->nwait; i++, nw++) {
            uint64_t m = get_u(r);
            if (r->bad || m >= ST_AN__METRICS || !fits(r, 1, 8))
                return -1;
            L->waits[nw].metric = (int32_t)m;
            memcpy(&L->waits[nw].ticks, r->p, 8);
            r->p += 8;
        }
        for (uint32_t i = 0; i < x->nrel; i++, nr++) {
            for (int j = 0; j < 4; j++)
                key[j] = L->rels[nr].key[j] = get_d(r, key[j]);
            uint64_t role = get_u(r);
            if (r->bad || role > UINT32_MAX)
                return -1;
            L->rels[nr].role = (uint32_t)role, L->rels[nr].group = 0; /* the builder's numbering stays there */
        }
        prev = x->leave;
    }
    if (np + h[6] != h[3] || nw != h[4] || nr != h[5])
        return -1;
    L->tail_at = np, L->ntail = (uint32_t)h[6];
    L->nprof = h[3], L->nwaits = h[4], L->nrels = h[5];
    return get_prof(r, L->prof + np, L->ntail, map, nc);
}

int an_rc_unpack(const uint8_t *p, size_t n, uint32_t nl, uint32_t loc0, const uint32_t *map, uint32_t nc,
                 st_rc_input_t *out)
{
    rd_t r = { p, p + n, 0 };
    if (loc0 > out->nlocs || nl > out->nlocs - loc0)
        return -1;
    for (uint32_t l = 0; l < nl; l++)
        if (get_loc(&r, map, nc, &out->locs[loc0 + l]))
            return -1;
    return r.p == r.end ? 0 : -1;
}

int an_rc_finish(st_an_result_t *res)
{
    if (!res->timeline)
        return 0;
    double t0[2];
    an_rc_clock(t0);
    int rc = (res->causes = calloc(1, sizeof *res->causes)) ? st_rc_run(res, res->timeline, res->causes) : -1;
    an_rc_clock_add(res->rootcause_ms, t0);
    if (!an_rc_keep_timeline) {
        st_rc_input_free(res->timeline);
        free(res->timeline);
        res->timeline = NULL;
    }
    if (rc && res->causes) {
        st_rc_causes_free(res->causes);
        free(res->causes);
        res->causes = NULL;
    }
    return rc;
}
