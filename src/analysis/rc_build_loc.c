/*
 * rc_build_loc.c — one location's root-cause timeline (rc_build.h): its synchronizing calls from the
 * relation ends and waits at them (a call inside another one merged into it) and its idle stretches,
 * written in time order straight into the timeline's arrays (they are most of its memory: no copy),
 * then one sweep over its events that shares out the time between the calls by cnode as the
 * analysis' Time does and decides where the thread was idle.
 */
#include "rc_build.h"

#include <stdlib.h>
#include <string.h>

#include "../model/region.h"
#include "../util/mem.h"
#include "../util/msort.h"

#define PREFETCH 8          /* ends ahead whose key is asked for */
#define DROPPED 8u /* the flags of an idle stretch left out (the thread was inside a call): no ST_RC_* bit, fits the 4 bits */

static int cmp_rel(const void *a, const void *b)
{
    const st_rc_rel_t *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

static int cmp_rcwait(const void *a, const void *b)
{
    const st_rc_wait_t *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->ticks > y->ticks) - (x->ticks < y->ticks);
}

/* Sorts of a call's relations, waits, profile cnodes: most calls have a few, for which qsort's call per
 * comparison costs more than an insertion sort. The orders are total up to equal elements (which are
 * merged or identical), so the result is qsort's. */
#define FEW 16

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

ST_FEW_SORT(sort_rels, st_rc_rel_t, cmp_rel, FEW)

ST_FEW_SORT(sort_rcwaits, st_rc_wait_t, cmp_rcwait, FEW)

ST_FEW_SORT(sort_u32, uint32_t, cmp_u32, FEW)

/* The last call of o (its relations and waits at the arrays' ends, o->nrels - rel_at and o->nwaits - wait_at of
 * them): relations by key, one per key; waits one per metric (summed in value order, whatever the order they were
 * noted in). */
static __attribute__((noinline)) void normalize(st_rc_loc_t *o)
{
    st_rc_call_t *x = &o->calls[o->ncalls - 1];
    st_rc_rel_t *r = o->rels + x->rel_at;
    st_rc_wait_t *w = o->waits + x->wait_at;
    uint64_t nr = o->nrels - x->rel_at, nw = o->nwaits - x->wait_at, n = 0;
    if (nr > 1) {
        sort_rels(r, nr);
        for (uint64_t i = 0; i < nr; i++)
            if (n && !cmp_rel(&r[n - 1], &r[i]))
                r[n - 1].role |= r[i].role;
            else
                r[n++] = r[i];
        o->nrels = x->rel_at + n;
    }
    if (nw > 1) {
        sort_rcwaits(w, nw);
        n = 0;
        for (uint64_t i = 0; i < nw; i++)
            if (n && w[n - 1].metric == w[i].metric)
                w[n - 1].ticks += w[i].ticks;
            else
                w[n++] = w[i];
        o->nwaits = x->wait_at + n;
    }
}

/* The last call of o's point-to-point ends where it waited: ST_RC_WAITED on its receiving ends when it has a Late
 * Sender wait, on its sending and completing ends when it has a Late Receiver wait. */
static void mark_waited(st_rc_loc_t *o)
{
    const st_rc_call_t *x = &o->calls[o->ncalls - 1];
    int ls = 0, lr = 0;
    for (uint64_t i = x->wait_at; i < o->nwaits; i++)
        if (o->waits[i].ticks > 0)
            ls |= o->waits[i].metric == ST_AN_M_LATESENDER, lr |= o->waits[i].metric == ST_AN_M_LATERECEIVER;
    if (!ls && !lr)
        return;
    for (uint64_t i = x->rel_at; i < o->nrels; i++) {
        st_rc_rel_t *r = &o->rels[i];
        if (r->key[0] >> 56 != ST_REL_KEY_P2P)
            continue;
        if ((ls && (r->role & ST_RC_RECEIVES)) ||
            (lr && ((r->role & ST_RC_SENDS) || !(r->role & (ST_RC_RECEIVES | ST_RC_POSTS)))))
            r->role |= ST_RC_WAITED;
    }
}

/* Ends the last call of o, whose relations and waits were counted at the arrays' ends while it grew: ordered and
 * merged when it took in calls inside it (merged), then their counts into the call's narrow fields. 0, or -1 (more
 * relations than a call holds, ST_RC_CALL_RELS; its waits, one per metric, always fit). */
static inline int close_call(st_rc_loc_t *o, int merged)
{
    st_rc_call_t *x = &o->calls[o->ncalls - 1];
    if (merged)
        normalize(o);
    mark_waited(o);
    uint64_t nr = o->nrels - x->rel_at, nw = o->nwaits - x->wait_at;
    if (nr >= ST_RC_CALL_RELS || nw >= ST_RC_CALL_WAITS)
        return -1;
    x->nrel = (uint32_t)nr, x->nwait = (uint32_t)nw;
    return 0;
}

/* A relation's group (st_rc_rel_t) from its graph instance; 0 (unknown) when it does not fit. */
static uint32_t group_of(uint64_t inst) { return inst < UINT32_MAX ? (uint32_t)inst + 1 : 0; }

static uint32_t call_flags(const an_ctx_t *c, uint32_t l, uint64_t id)
{
    if (!an_is_enter(c, l, id))
        return 0;
    uint32_t r = an_region(c, l, id);
    return r == ST_REGION_MPI_Finalize ? ST_RC_FINALIZE
         : r == ST_REGION_MPI_Init || r == ST_REGION_MPI_Init_thread ? ST_RC_INIT : 0;
}

/* The first event of l at or after time T (a location's events are in time order). */
static uint64_t first_at(const an_ctx_t *c, uint32_t l, uint64_t T)
{
    uint64_t lo = 0, hi = c->in->locs[l].n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (an_time(c, l, mid) < T)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The calls of location l into o, in time order: from its ends and waits (by call: a call inside the
 * previous one is merged into it), and before the first event at or after each fork (pos[j]) the idle
 * stretch j (enter: its start, prof_at: pos[j] for now), unless that event lies inside the previous call.
 * 0, or -1 (a call with more relations than it holds). */
static int collect(const an_ctx_t *c, uint32_t l, const an_rcb_t *b, const an_rc_end_t *e, size_t ne,
                    const an_rc_wait_t *w, size_t nw, const an_rc_idle_t *idle, size_t nidle, const uint64_t *pos,
                    st_rc_loc_t *o)
{
    uint64_t n = c->in->locs[l].n, end = 0; /* end: the last event of the last call from the events */
    int have = 0, merged = 0;                /* have: that call is the last one */
    size_t i = 0, j = 0, d = 0;
    while (i < ne || j < nw || d < nidle) {
        uint64_t ec = i < ne ? an_rc_end_call(&e[i]) : UINT64_MAX;
        uint64_t id = i < ne && (j == nw || ec <= w[j].call) ? ec : j < nw ? w[j].call : UINT64_MAX;
        if (d < nidle && pos[d] <= id) {
            if (!(have && pos[d] <= end)) {
                if (have && close_call(o, merged))
                    return -1;
                merged = 0;
                st_rc_rel_t *r = &o->rels[o->nrels];
                memcpy(r->key, idle[d].key, sizeof r->key);
                r->role = ST_RC_RECEIVES;
                r->group = group_of(idle[d].inst); /* the fork's */
                o->waits[o->nwaits] = (st_rc_wait_t){ ST_AN_M_OMP_IDLE, 0 };
                o->calls[o->ncalls++] = (st_rc_call_t){ .enter = idle[d].t0, .leave = idle[d].t1, .cnode = idle[d].cnode,
                                                        .flags = ST_RC_IDLE, .prof_at = (uint32_t)pos[d], /* until the sweep */
                                                        .nwait = 1, .wait_at = (uint32_t)o->nwaits++,
                                                        .rel_at = (uint32_t)o->nrels++, .nrel = 1 };
                have = 0;
            }
            d++;
            continue;
        }
        st_rc_call_t *x;
        if (have && id <= end) {
            x = &o->calls[o->ncalls - 1], merged = 1; /* inside the previous call */
        } else {
            if (have && close_call(o, merged))
                return -1;
            merged = 0;
            int real = an_is_enter(c, l, id);
            end = !real ? id : an_leave(c, l, id) != AN_NO_EV ? an_leave(c, l, id) : n - 1;
            x = &o->calls[o->ncalls++];
            *x = (st_rc_call_t){ .enter = an_time(c, l, id), .leave = real ? an_leave_time(c, l, id) : an_time(c, l, id),
                                 .cnode = an_cnode(c, l, real ? id : an_call(c, l, id)), .flags = call_flags(c, l, id),
                                 .wait_at = (uint32_t)o->nwaits, .rel_at = (uint32_t)o->nrels };
            have = 1;
        }
        for (; i < ne && an_rc_end_call(&e[i]) == id; i++) {
            if (i + PREFETCH < ne) /* the keys are far apart in the graph */
                __builtin_prefetch(an_rc_key_at(b, e[i + PREFETCH].kref));
            if (o->nrels > x->rel_at && i && an_rc_end_call(&e[i - 1]) == id && e[i - 1].kref == e[i].kref) {
                o->rels[o->nrels - 1].role |= an_rc_end_role(&e[i]);
                continue;
            }
            st_rc_rel_t *r = &o->rels[o->nrels++];
            an_rc_key(b, e[i].kref, r->key);
            r->role = an_rc_end_role(&e[i]);
            r->group = an_rc_group(b, e[i].kref);
            merged |= o->nrels - x->rel_at > 1; /* keys to be ordered */
        }
        for (; j < nw && w[j].call == id; j++) {
            if (o->nwaits > x->wait_at && o->waits[o->nwaits - 1].metric == w[j].metric)
                o->waits[o->nwaits - 1].ticks += w[j].v;
            else
                o->waits[o->nwaits++] = (st_rc_wait_t){ w[j].metric, w[j].v };
        }
    }
    return have ? close_call(o, merged) : 0;
}

/* ---- the sweep ------------------------------------------------------------------------------------------ */

typedef struct sweep {
    const st_an_cnode_t *cn; /* the result's call tree */
    const uint64_t  *t, *w;
    uint64_t         n, i, depth, now;
    an_rc_scratch_t *s;
    st_rc_loc_t     *out;
    uint64_t         pcap;
} sweep_t;

/* The stack of open calls one deeper (cold: it doubles from 64). 0, or -1 (memory). */
static __attribute__((noinline)) int grow_stack(an_rc_scratch_t *s)
{
    uint64_t cap = s->cap ? 2 * s->cap : 64, *v = realloc(s->stack, sizeof *v * cap);
    if (!v)
        return -1;
    s->stack = v, s->cap = cap;
    return 0;
}

/* Event i: an ENTER opens a call, the LEAVE of the innermost one closes it (as an_scan_loc paired them). */
static inline int step(sweep_t *x)
{
    uint64_t i = x->i++, w = x->w[i];
    an_rc_scratch_t *s = x->s;
    if (w & AN_W_ENTER) {
        if (x->depth == s->cap && grow_stack(s))
            return -1;
        s->stack[x->depth++] = i;
    } else if (x->depth) {
        uint64_t top = s->stack[x->depth - 1];
        uint32_t d = (uint32_t)x->w[top];
        if (d && top + d == i)
            x->depth--;
    }
    return 0;
}

/* Events up to time T. */
static inline int events_to(sweep_t *x, uint64_t T)
{
    while (x->i < x->n && x->t[x->i] <= T)
        if (step(x))
            return -1;
    return 0;
}

/* The deepest common ancestor of cnodes a and b. */
static uint32_t common_ancestor(const sweep_t *x, uint32_t a, uint32_t b)
{
    const uint32_t *d = x->s->depth;
    while (d[a] > d[b])
        a = x->cn[a].parent;
    while (d[b] > d[a])
        b = x->cn[b].parent;
    while (a != b)
        a = x->cn[a].parent, b = x->cn[b].parent;
    return a;
}

/* Whose time the gap before event x->i is, when the innermost open call is cnode k. synctrace records
 * no ENTER / LEAVE of application functions, only the call path of the calls it records: between a call
 * that ended and the next call that begins, the function that ran is the deepest one both calls lie in
 * (solve() between two MPI calls made inside solve()), when it lies inside k. Else k. */
#define GAP_LOOK 4 /* events outside every call (an OpenMP fork or join) looked past around a gap */
static uint32_t gap_owner(const sweep_t *x, uint32_t k)
{
    uint64_t i = x->i, j = x->i;
    if (i == 0 || i >= x->n)
        return k;
    /* the call that ended before the gap (its LEAVE at j - 1) and the one that begins after it (at i) */
    for (int q = 0; q < GAP_LOOK && j > 1 && x->w[j - 1] == 0; q++)
        j--;
    for (int q = 0; q < GAP_LOOK && i + 1 < x->n && x->w[i] == 0; q++)
        i++;
    if (!(x->w[i] & AN_W_ENTER) || (x->w[j - 1] & AN_W_ENTER) || x->w[j - 1] == 0)
        return k;
    uint64_t prev = x->w[j - 1] - 1; /* the ENTER of the call that ended at event j - 1 */
    if (prev >= j - 1 || !(x->w[prev] & AN_W_ENTER))
        return k;
    uint32_t a = (uint32_t)(x->w[prev] >> 32) & 0x7fffffffu, b = (uint32_t)(x->w[i] >> 32) & 0x7fffffffu;
    if (a == 0 || b == 0)
        return k;
    uint32_t m = common_ancestor(x, x->cn[a].parent, x->cn[b].parent), up = m;
    while (x->s->depth[up] > x->s->depth[k])
        up = x->cn[up].parent;
    return up == k ? m : k;
}

/* Time from now to upto, to the cnode of the innermost call open (the root outside every call and outside the
 * location's events; gap_owner refines it by the call paths around the gap) in the scratch's accumulators. */
static int advance(sweep_t *x, uint64_t upto)
{
    an_rc_scratch_t *s = x->s;
    while (x->now < upto) {
        if (events_to(x, x->now))
            return -1;
        uint64_t b = x->i < x->n && x->t[x->i] < upto ? x->t[x->i] : upto;
        uint32_t k = x->i == x->n || !x->depth ? 0 : (uint32_t)(x->w[s->stack[x->depth - 1]] >> 32) & 0x7fffffffu;
        k = gap_owner(x, k);
        if (!s->mark[k])
            s->mark[k] = 1, s->touched[s->ntouched++] = k;
        s->acc[k] += (int64_t)(b - x->now);
        x->now = b;
    }
    return 0;
}

/* From now to upto without adding (inside a call): every event before upto. Inline: once per call. */
static inline int skip_to(sweep_t *x, uint64_t upto)
{
    if (x->now >= upto)
        return 0;
    while (x->i < x->n && x->t[x->i] < upto)
        if (step(x))
            return -1;
    x->now = upto;
    return 0;
}

/* Room in the profile for n more entries (cold: it doubles). 0, or -1 (memory, or more than a call's 32-bit
 * prof_at reaches). */
static __attribute__((noinline)) int grow_prof(sweep_t *x, uint64_t n)
{
    st_rc_loc_t *o = x->out;
    if (o->nprof + n > UINT32_MAX) /* st_rc_call_t's prof_at */
        return -1;
    uint64_t cap = x->pcap ? 2 * x->pcap : 16;
    while (cap < o->nprof + n)
        cap *= 2;
    st_rc_prof_t *p = st_mem_realloc(o->prof, sizeof *p * cap);
    if (!p)
        return -1;
    o->prof = p, x->pcap = cap;
    return 0;
}

/* The accumulated time as profile entries (by cnode, positive only) at *at, *np of them. */
static inline int flush(sweep_t *x, uint64_t *at, uint32_t *np)
{
    an_rc_scratch_t *s = x->s;
    st_rc_loc_t *o = x->out;
    if (o->nprof + s->ntouched > x->pcap && grow_prof(x, s->ntouched))
        return -1;
    if (s->ntouched > 1)
        sort_u32(s->touched, s->ntouched);
    *at = o->nprof, *np = 0;
    for (uint32_t q = 0; q < s->ntouched; q++) {
        uint32_t k = s->touched[q];
        if (s->acc[k] > 0)
            o->prof[o->nprof++] = (st_rc_prof_t){ k, (uint64_t)s->acc[k] }, (*np)++;
        s->acc[k] = 0, s->mark[k] = 0;
    }
    s->ntouched = 0;
    return 0;
}

/* Idle stretch C (its first event at or after the fork in prof_at): where the thread is outside every
 * call from its last event before the fork (or the stretch's start) to the fork, else DROPPED. */
static int sweep_idle(sweep_t *x, st_rc_call_t *C)
{
    uint64_t enter = C->enter, p = C->prof_at;
    if (p && x->t[p - 1] > enter)
        enter = x->t[p - 1];
    if (x->now > enter)
        enter = x->now;
    if (enter >= C->leave) {
        C->flags = DROPPED;
        return 0;
    }
    if (advance(x, enter) || events_to(x, enter))
        return -1;
    if (x->depth || x->i != p) {
        C->flags = DROPPED; /* inside a call */
        return 0;
    }
    C->enter = enter;
    x->out->waits[C->wait_at].ticks = (double)(C->leave - enter);
    x->now = C->leave; /* no event lies in the stretch */
    uint64_t at = 0;
    int rc = flush(x, &at, &C->nprof);
    C->prof_at = (uint32_t)at;
    return rc;
}

/* Removes the idle stretches left out, their relation and wait with them. */
static void compact(st_rc_loc_t *o)
{
    uint32_t n = 0, nr = 0, nw = 0;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        st_rc_call_t x = o->calls[k];
        if (x.flags == DROPPED)
            continue;
        memmove(o->rels + nr, o->rels + x.rel_at, sizeof *o->rels * x.nrel);
        memmove(o->waits + nw, o->waits + x.wait_at, sizeof *o->waits * x.nwait);
        x.rel_at = nr, x.wait_at = nw;
        nr += x.nrel, nw += x.nwait;
        o->calls[n++] = x;
    }
    o->ncalls = n, o->nrels = nr, o->nwaits = nw;
}

int an_rc_loc(const an_ctx_t *c, uint32_t l, const an_rcb_t *b, const an_rc_end_t *e, size_t ne,
              const an_rc_wait_t *w, size_t nw, const an_rc_idle_t *idle, size_t nidle, an_rc_scratch_t *s,
              st_rc_loc_t *out)
{
    sweep_t x = { c->res->cnodes, c->loc[l].t, c->loc[l].w, c->in->locs[l].n, 0, 0, 0, s, out, 0 };
    memset(out, 0, sizeof *out);
    s->ntouched = 0;
    if (nidle > s->cpos) {
        uint64_t *v = realloc(s->pos, sizeof *v * nidle);
        if (!v)
            return -1;
        s->pos = v, s->cpos = nidle;
    }
    /* room for every call there may be: pages not written stay free; the calls' 32-bit offsets (st_rc_call_t) and
     * an idle stretch's first event (prof_at until the sweep) fit */
    if (ne + nidle >= UINT32_MAX || nw + nidle >= UINT32_MAX || (nidle && x.n >= UINT32_MAX) ||
        c->res->ncnodes > ST_RC_CNODES) /* the calls' cnodes fit their 28 bits */
        return -1;
    if (!(out->calls = st_mem_malloc(sizeof *out->calls * (ne + nw + nidle + 1))) ||
        !(out->rels = st_mem_malloc(sizeof *out->rels * (ne + nidle + 1))) ||
        !(out->waits = st_mem_malloc(sizeof *out->waits * (nw + nidle + 1))))
        return -1;
    uint64_t first = x.n ? x.t[0] : UINT64_MAX;
    for (size_t j = 0; j < nidle; j++)
        if ((s->pos[j] = first_at(c, l, idle[j].t1)) == 0 && idle[j].t0 < first)
            first = idle[j].t0; /* the thread is idle before its first event */
    if (collect(c, l, b, e, ne, w, nw, idle, nidle, s->pos, out))
        return -1;
    x.now = out->first = first == UINT64_MAX ? 0 : first;
    int rc = 0, dropped = 0;
    for (uint32_t k = 0; rc == 0 && k < out->ncalls; k++) {
        st_rc_call_t *C = &out->calls[k];
        if (C->flags & ST_RC_IDLE) {
            rc = sweep_idle(&x, C);
            dropped |= C->flags == DROPPED;
            continue;
        }
        C->enter = C->enter > x.now ? C->enter : x.now, C->leave = C->leave > C->enter ? C->leave : C->enter;
        uint64_t at = 0;
        rc = advance(&x, C->enter) || flush(&x, &at, &C->nprof) || skip_to(&x, C->leave) ? -1 : 0;
        C->prof_at = (uint32_t)at;
    }
    out->last = x.n && x.t[x.n - 1] > x.now ? x.t[x.n - 1] : x.now;
    if (rc == 0)
        rc = advance(&x, out->last) || flush(&x, &out->tail_at, &out->ntail) ? -1 : 0;
    if (rc == 0 && dropped)
        compact(out);
    if (rc == 0) { /* the memory not needed back */
        st_rc_call_t *v = st_mem_realloc(out->calls, sizeof *v * (out->ncalls + 1));
        st_rc_rel_t *r = st_mem_realloc(out->rels, sizeof *r * (out->nrels + 1));
        st_rc_wait_t *u = st_mem_realloc(out->waits, sizeof *u * (out->nwaits + 1));
        st_rc_prof_t *p = st_mem_realloc(out->prof, sizeof *p * (out->nprof + 1));
        out->calls = v ? v : out->calls, out->rels = r ? r : out->rels, out->waits = u ? u : out->waits;
        out->prof = p ? p : out->prof;
    }
    return rc;
}
