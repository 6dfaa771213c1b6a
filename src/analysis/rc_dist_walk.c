/*
 * rc_dist_walk.c — the critical path of the distributed root-cause replay (rc_dist.h, step 4), planned at one
 * process and walked by every holder at once.
 *
 * The walk (rc_cpath.c) goes back in time on its holder and moves to another location only at a call with a
 * wait whose delayer entered while the holder was in the call; where it goes depends on the calls with such
 * waits, their times and their delayers, and on the moment the walk last left each location. So every
 * process sends the walker (process RD_SWEEPER) its locations' jump tables (per call with a delayed wait: its
 * enter, leave, the next call's enter, the delayers), the walker follows the path over them alone (the
 * cursor as rc_walk_on moves it: over the calls and segments between two calls with waits it only takes the
 * minimum with their bounds) and sends every process the path's entries (the state of the walk where it
 * arrives on a location, as a token would carry it); each process then walks its own pieces with rc_walk_on,
 * crediting them, and checks that each ends where the plan says. One round trip, instead of one message per
 * move of the path between processes.
 */
#include "rc_dist_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"

/* A location's jump table: its head, then ncand calls (rd_jcall_t) each followed by its nc delayers
 * (rd_jcand_t). */
typedef struct rd_jloc {
    uint32_t loc, ncand;
    uint64_t ncalls;
} rd_jloc_t;
typedef struct rd_jcall {
    uint32_t call, nc;
    uint64_t enter, leave, bnext; /* bnext: the next call's enter, the location's last event after the last */
} rd_jcall_t;
typedef struct rd_jcand {
    uint32_t loc, call;
    uint64_t enter;
} rd_jcand_t;

/* Where the walk arrives on a location (rc_walk_t without seen). */
typedef struct rd_token {
    uint64_t h, e, t, hop_end, first, last, nhops, last_t0, last_loc;
} rd_token_t;

int rd_send_jumps(rc_dist_t *d)
{
    rd_bytes_t b = { 0 };
    int rc = 0;
    for (uint32_t l = 0; !rc && l < d->in->nlocs; l++) {
        const st_rc_loc_t *L = &d->in->locs[l];
        const rc_wait_t *KW = &d->w[d->wbase[l]];
        rd_jloc_t h = { d->loc0 + l, 0, L->ncalls };
        size_t at = b.n;
        rc = rd_put(&b, &h, sizeof h) ? 0 : -1;
        for (uint32_t c = 0; !rc && c < L->ncalls; c++) {
            const st_rc_call_t *C = &L->calls[c];
            rd_jcall_t j = { c, 0, C->enter, C->leave, c + 1 < L->ncalls ? L->calls[c + 1].enter : L->last };
            for (uint32_t k = 0; k < C->nwait; k++)
                j.nc += KW[C->wait_at + k].by.loc != RC_NONE;
            if (!j.nc)
                continue;
            rc = rd_put(&b, &j, sizeof j) ? 0 : -1;
            for (uint32_t k = 0; !rc && k < C->nwait; k++) {
                const rc_wait_t *w = &KW[C->wait_at + k];
                rd_jcand_t x = { w->by.loc, w->by.call, w->by_enter };
                if (w->by.loc != RC_NONE)
                    rc = rd_put(&b, &x, sizeof x) ? 0 : -1;
            }
            h.ncand++;
        }
        if (!rc)
            memcpy(b.p + at, &h, sizeof h);
    }
    rc = rc ? rd_fail(d, "out of memory") : rd_send(d, RD_SWEEPER, RD_JUMPS, b.p, b.n);
    st_mem_free(b.p);
    return rc;
}

/* ---- the walker --------------------------------------------------------------------------------------- */

/* The jump tables of the run's locations. */
typedef struct jtab {
    uint64_t         *ncalls; /* [nall] */
    uint64_t         *c0;     /* [nall + 1]: a location's first call in calls */
    rd_jcall_t       *calls;  /* by location, then call */
    uint64_t         *k0;     /* [calls]: a call's first delayer in cands */
    rd_jcand_t       *cands;
    size_t            ncl, ncd;
} jtab_t;

static void jtab_free(jtab_t *j)
{
    st_mem_free(j->ncalls), st_mem_free(j->c0), st_mem_free(j->calls), st_mem_free(j->k0), st_mem_free(j->cands);
}

/* Reads d->jumps (every location once) into *j. 0, or -1 (malformed or memory). */
static int read_jumps(const rc_dist_t *d, jtab_t *j)
{
    memset(j, 0, sizeof *j);
    uint32_t N = d->nall;
    j->ncalls = st_mem_calloc(N ? N : 1, sizeof *j->ncalls);
    j->c0 = st_mem_calloc((size_t)N + 1, sizeof *j->c0);
    uint8_t *got = calloc(N ? N : 1, 1);
    size_t ncl = 0, ncd = 0;
    int rc = j->ncalls && j->c0 && got ? 0 : -1;
    for (int pass = 0; !rc && pass < 2; pass++) { /* count, then fill */
        size_t cl = 0, cd = 0;
        for (size_t at = 0; !rc && at < d->jumps.n;) {
            size_t len;
            memcpy(&len, d->jumps.p + at, sizeof len);
            const uint8_t *p = d->jumps.p + at + sizeof len, *end = p + len;
            at += sizeof len + len;
            while (!rc && p < end) {
                rd_jloc_t h;
                if ((size_t)(end - p) < sizeof h)
                    break;
                memcpy(&h, p, sizeof h);
                p += sizeof h;
                if (h.loc >= N || (pass == 0 && got[h.loc]) || h.ncand > h.ncalls) {
                    rc = -1;
                    break;
                }
                if (pass == 0)
                    got[h.loc] = 1, j->ncalls[h.loc] = h.ncalls, j->c0[h.loc + 1] = h.ncand;
                else
                    cl = j->c0[h.loc];
                for (uint32_t i = 0; !rc && i < h.ncand; i++) {
                    rd_jcall_t c;
                    if ((size_t)(end - p) < sizeof c) {
                        rc = -1;
                        break;
                    }
                    memcpy(&c, p, sizeof c);
                    p += sizeof c;
                    if ((size_t)(end - p) / sizeof(rd_jcand_t) < c.nc || c.call >= h.ncalls ||
                        (pass == 1 && i && c.call <= j->calls[cl - 1].call)) {
                        rc = -1;
                        break;
                    }
                    if (pass == 1) {
                        j->calls[cl] = c, j->k0[cl] = cd;
                        memcpy(&j->cands[cd], p, c.nc * sizeof(rd_jcand_t));
                        for (uint32_t k = 0; k < c.nc; k++)
                            if (j->cands[cd + k].loc >= N)
                                rc = -1;
                    }
                    p += c.nc * sizeof(rd_jcand_t);
                    cl++, cd += c.nc;
                }
            }
            if (p != end)
                rc = -1;
        }
        if (!rc && pass == 0) {
            for (uint32_t l = 0; l < N; l++)
                rc |= !got[l] ? -1 : 0, j->c0[l + 1] += j->c0[l];
            ncl = cl, ncd = cd;
            j->calls = st_mem_malloc((ncl ? ncl : 1) * sizeof *j->calls);
            j->k0 = st_mem_malloc((ncl ? ncl : 1) * sizeof *j->k0);
            j->cands = st_mem_malloc((ncd ? ncd : 1) * sizeof *j->cands);
            rc = rc || !j->calls || !j->k0 || !j->cands ? -1 : 0;
        }
    }
    j->ncl = ncl, j->ncd = ncd;
    free(got);
    return rc;
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The path's hop [t0, t1) on loc in the token's count (rc_cpath.c's hop without the hops). */
static void dry_hop(rd_token_t *k, uint32_t loc, uint64_t t0, uint64_t t1)
{
    if (t1 <= t0)
        return;
    if (k->nhops && k->last_loc == loc && k->last_t0 == t1) {
        k->last_t0 = t0;
        return;
    }
    k->nhops++, k->last_loc = loc, k->last_t0 = t0;
}

/* From where token k arrived, walks its holder back to the next jump (1: k moved on to the new holder) or to
 * the run's start (0), as rc_walk_on does: the cursor meets each call with delayed waits at the minimum of where
 * it was and the bounds of the segment after the call and of the call. */
static int walk_to_jump(const jtab_t *j, uint64_t *seen, rd_token_t *k)
{
    uint32_t h = (uint32_t)k->h;
    size_t lo = j->c0[h], hi = j->c0[h + 1]; /* past the calls before element e (2 call + 1 < e) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (2 * (uint64_t)j->calls[mid].call + 1 < k->e)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t t = k->t;
    for (size_t i = lo; i-- > j->c0[h];) {
        const rd_jcall_t *C = &j->calls[i];
        t = min64(t, min64(max64(C->leave, k->first), C->bnext)); /* the segment after the call */
        t = min64(t, C->leave);                                   /* the call, up to the cursor */
        rc_at_t best = { RC_NONE, 0 };
        uint64_t be = 0;
        for (uint64_t x = j->k0[i]; x < j->k0[i] + C->nc; x++) { /* rc_cpath.c's jump_of */
            const rd_jcand_t *D = &j->cands[x];
            rc_at_t by = { D->loc, D->call };
            if (D->loc == h || D->enter < C->enter || D->enter > C->leave || seen[D->loc] == min64(D->enter, t))
                continue;
            if (rc_later_at(D->enter, by, be, best))
                best = by, be = D->enter;
        }
        if (best.loc != RC_NONE) {
            uint64_t s = min64(be, t);
            seen[h] = s;
            dry_hop(k, h, s, k->hop_end);
            k->hop_end = s, k->h = best.loc, k->e = 2 * (uint64_t)best.call, k->t = s;
            seen[best.loc] = s;
            return 1;
        }
        t = min64(max64(C->enter, k->first), t);
    }
    return 0;
}

int rd_plan(rc_dist_t *d)
{
    jtab_t j;
    rd_bytes_t b = { 0 };
    uint64_t *seen = NULL;
    int rc = read_jumps(d, &j);
    if (rc) {
        jtab_free(&j);
        return rd_fail(d, "malformed jump tables");
    }
    const rd_facts_t *f = &d->facts;
    if (f->any) {
        uint64_t first = f->ev ? f->first : 0, last = f->ev ? f->last : 0;
        uint32_t s = (uint32_t)(f->fin ? f->fin_loc : f->last_loc);
        rd_token_t k = { s, 2 * j.ncalls[s], last, last, first > last ? last : first, last, 0, 0, 0 };
        seen = malloc((d->nall ? d->nall : 1) * sizeof *seen);
        rc = seen ? 0 : -1;
        for (uint32_t l = 0; !rc && l < d->nall; l++)
            seen[l] = UINT64_MAX;
        /* a jump moves the cursor back or leaves a location for good at that moment: a guard, far above */
        for (size_t steps = 0; !rc; steps++) {
            if (!rd_put(&b, &k, sizeof k) || steps > 4 * (j.ncd + d->nall + 1)) {
                rc = -1;
                break;
            }
            if (!walk_to_jump(&j, seen, &k))
                break;
        }
    }
    jtab_free(&j);
    free(seen);
    st_mem_free(d->jumps.p);
    d->jumps = (rd_bytes_t){ 0 };
    for (int32_t q = 0; !rc && q < d->nprocs; q++) /* every other process, then this one (which keeps b) */
        if (q != d->me)
            rc = rd_send(d, q, RD_PLAN, b.p, b.n);
    if (!rc)
        rc = rd_send_own(d, d->me, RD_PLAN, &b.p, b.n);
    st_mem_free(b.p);
    return rc ? rd_fail(d, "out of memory, or a critical path without end") : 0;
}

/* ---- every process -------------------------------------------------------------------------------------- */

int rd_plan_arrived(rc_dist_t *d, const uint8_t *p, size_t n)
{
    if (n % sizeof(rd_token_t))
        return -1;
    for (size_t i = 0; i < n / sizeof(rd_token_t); i++) {
        rd_token_t k;
        memcpy(&k, p + i * sizeof k, sizeof k);
        if (k.h >= d->nall ||
            (rd_owner(d, (uint32_t)k.h) == d->me && k.e > 2 * (uint64_t)d->in->locs[k.h - d->loc0].ncalls))
            return -1;
    }
    if (n && !(d->plan = rd_keep(d, p, n)))
        return -1;
    d->nplan = n / sizeof(rd_token_t);
    return 0;
}

int rd_walk_plan(rc_dist_t *d)
{
    if (!d->walk.seen && !(d->walk.seen = malloc((d->nall ? d->nall : 1) * sizeof *d->walk.seen)))
        return rd_fail(d, "out of memory");
    uint64_t *seen = d->walk.seen;
    for (uint32_t l = 0; l < d->nall; l++)
        seen[l] = UINT64_MAX;
    for (size_t i = 0; i < d->nplan; i++) {
        rd_token_t k, nx = { 0 };
        memcpy(&k, d->plan + i * sizeof k, sizeof k);
        int more = i + 1 < d->nplan;
        if (more)
            memcpy(&nx, d->plan + (i + 1) * sizeof nx, sizeof nx);
        if (rd_owner(d, (uint32_t)k.h) != d->me) { /* as its holder leaves it */
            if (more)
                seen[k.h] = seen[nx.h] = nx.t;
            continue;
        }
        rc_walk_t *w = &d->walk;
        w->h = (uint32_t)k.h, w->e = (int64_t)k.e, w->t = k.t, w->hop_end = k.hop_end, w->first = k.first;
        w->last = k.last, w->nhops = k.nhops, w->last_t0 = k.last_t0, w->last_loc = (uint32_t)k.last_loc;
        uint32_t l = w->h - d->loc0;
        int r = rc_walk_on(w, &d->in->locs[l], &d->w[d->wbase[l]], d->res, l, &d->hops);
        if (r < 0)
            return rd_fail(d, "out of memory");
        if (r != more || (more && (w->h != nx.h || (uint64_t)w->e != nx.e || w->t != nx.t || w->hop_end != nx.hop_end ||
                                   w->nhops != nx.nhops || w->last_t0 != nx.last_t0 || w->last_loc != nx.last_loc)))
            return rd_fail(d, "the critical path's plan does not fit the timeline");
    }
    return 0;
}
