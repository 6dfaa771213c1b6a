/*
 * rc_pack.c — a process's root-cause timeline in its part of a parallel analysis' report, read back at
 * the collector with the merged result's cnodes and locations (rc_build.h); and the root-cause
 * analysis over a result's timeline once it is whole (an_rc_finish).
 */
#include "rc_build.h"

#include <stdlib.h>
#include <string.h>

#define LOC_WORDS  7 /* first, last, ncalls, nprof, nwaits, nrels, ntail */
#define CALL_WORDS 5 /* enter, leave, cnode << 32 | flags, nprof << 32 | nwait, nrel */
#define REL_WORDS  5

int an_rc_keep_timeline;

size_t an_rc_pack_words(const st_rc_input_t *in)
{
    size_t n = 0;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        n += LOC_WORDS + CALL_WORDS * (size_t)L->ncalls + 2 * L->nprof + 2 * L->nwaits + REL_WORDS * L->nrels;
    }
    return n;
}

uint64_t *an_rc_pack(const st_rc_input_t *in, uint64_t *q)
{
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        *q++ = L->first, *q++ = L->last, *q++ = L->ncalls, *q++ = L->nprof, *q++ = L->nwaits, *q++ = L->nrels,
        *q++ = L->ntail;
        for (uint32_t k = 0; k < L->ncalls; k++) {
            const st_rc_call_t *x = &L->calls[k];
            *q++ = x->enter, *q++ = x->leave, *q++ = (uint64_t)x->cnode << 32 | x->flags;
            *q++ = (uint64_t)x->nprof << 32 | x->nwait, *q++ = x->nrel;
            for (uint32_t i = 0; i < x->nprof; i++)
                *q++ = L->prof[x->prof_at + i].cnode, *q++ = L->prof[x->prof_at + i].ticks;
            for (uint32_t i = 0; i < x->nwait; i++) {
                const st_rc_wait_t *w = &L->waits[x->wait_at + i];
                *q++ = (uint64_t)(uint32_t)w->metric;
                memcpy(q++, &w->ticks, 8);
            }
            for (uint32_t i = 0; i < x->nrel; i++) {
                const st_rc_rel_t *r = &L->rels[x->rel_at + i];
                memcpy(q, r->key, sizeof r->key);
                q += 4, *q++ = r->role;
            }
        }
        for (uint32_t i = 0; i < L->ntail; i++)
            *q++ = L->prof[L->tail_at + i].cnode, *q++ = L->prof[L->tail_at + i].ticks;
    }
    return q;
}

static int cmp_prof(const void *a, const void *b)
{
    const st_rc_prof_t *x = a, *y = b;
    return (x->cnode > y->cnode) - (x->cnode < y->cnode);
}

/* A reader of a part's words. */
typedef struct rd {
    const uint64_t *w, *end;
} rd_t;

static int get(rd_t *r, uint64_t *v, size_t n)
{
    if ((size_t)(r->end - r->w) < n)
        return -1;
    memcpy(v, r->w, 8 * n);
    r->w += n;
    return 0;
}

/* n profile entries at L->prof + at (room checked by the caller), cnodes mapped and sorted. */
static int get_prof(rd_t *r, st_rc_prof_t *p, uint32_t n, const uint32_t *map, uint32_t nc)
{
    uint64_t v[2];
    for (uint32_t i = 0; i < n; i++) {
        if (get(r, v, 2) || v[0] >= nc || v[1] == 0)
            return -1;
        p[i] = (st_rc_prof_t){ map[v[0]], v[1] };
    }
    if (n > 1)
        qsort(p, n, sizeof *p, cmp_prof);
    for (uint32_t i = 1; i < n; i++)
        if (p[i - 1].cnode == p[i].cnode)
            return -1; /* two entries of one cnode */
    return 0;
}

/* One location of a part into L. */
static int get_loc(rd_t *r, const uint32_t *map, uint32_t nc, st_rc_loc_t *L)
{
    uint64_t h[LOC_WORDS], left = (uint64_t)(r->end - r->w);
    if (get(r, h, LOC_WORDS) || h[2] > left / CALL_WORDS || h[3] > left / 2 || h[4] > left / 2 ||
        h[5] > left / REL_WORDS || h[6] > h[3] || h[0] > h[1])
        return -1;
    L->first = h[0], L->last = h[1], L->ncalls = (uint32_t)h[2];
    if (!(L->calls = malloc(sizeof *L->calls * (h[2] + 1))) || !(L->prof = malloc(sizeof *L->prof * (h[3] + 1))) ||
        !(L->waits = malloc(sizeof *L->waits * (h[4] + 1))) || !(L->rels = malloc(sizeof *L->rels * (h[5] + 1))))
        return -1;
    uint64_t np = 0, nw = 0, nr = 0, v[CALL_WORDS];
    for (uint32_t k = 0; k < L->ncalls; k++) {
        st_rc_call_t *x = &L->calls[k];
        if (get(r, v, CALL_WORDS) || v[0] > v[1] || (v[2] >> 32) >= nc || (v[3] >> 32) > h[3] - np ||
            (uint32_t)v[3] > h[4] - nw || v[4] > h[5] - nr)
            return -1;
        *x = (st_rc_call_t){ .enter = v[0], .leave = v[1], .cnode = map[v[2] >> 32], .flags = (uint32_t)v[2],
                             .prof_at = np, .nprof = (uint32_t)(v[3] >> 32), .wait_at = nw, .nwait = (uint32_t)v[3],
                             .rel_at = nr, .nrel = (uint32_t)v[4] };
        if (get_prof(r, L->prof + np, x->nprof, map, nc))
            return -1;
        np += x->nprof;
        for (uint32_t i = 0; i < x->nwait; i++, nw++) {
            uint64_t m[2];
            if (get(r, m, 2) || m[0] >= ST_AN__METRICS)
                return -1;
            L->waits[nw].metric = (int32_t)m[0];
            memcpy(&L->waits[nw].ticks, &m[1], 8);
        }
        for (uint32_t i = 0; i < x->nrel; i++, nr++) {
            uint64_t rel[REL_WORDS];
            if (get(r, rel, REL_WORDS) || rel[4] > 0xffffffffu)
                return -1;
            memcpy(L->rels[nr].key, rel, sizeof L->rels[nr].key);
            L->rels[nr].role = (uint32_t)rel[4];
        }
    }
    if (np + h[6] != h[3] || nw != h[4] || nr != h[5])
        return -1;
    L->tail_at = np, L->ntail = (uint32_t)h[6];
    L->nprof = h[3], L->nwaits = h[4], L->nrels = h[5];
    return get_prof(r, L->prof + np, L->ntail, map, nc);
}

int an_rc_unpack(const uint64_t *w, size_t nw, size_t *used, uint32_t nl, uint32_t loc0, const uint32_t *map,
                 uint32_t nc, st_rc_input_t *out)
{
    rd_t r = { w, w + nw };
    if (loc0 > out->nlocs || nl > out->nlocs - loc0)
        return -1;
    for (uint32_t l = 0; l < nl; l++)
        if (get_loc(&r, map, nc, &out->locs[loc0 + l]))
            return -1;
    *used = (size_t)(r.w - w);
    return 0;
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
