/*
 * analysis.c — the serial analysis driver (analysis.h): the metric table, the call tree
 * (region nesting per location, merged by path), time, visits, MPI time and collective
 * counts; the patterns come from p2p.c and coll.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_Definitions.h>

#include "../util/mem.h"
#include "../model/region.h"
#include "patterns.h"
#include "rc_build.h"
#include "rootcause.h"
#include "source.h"

static const st_an_metric_def_t metrics[ST_AN__METRICS] = {
#define ST_AN_METRIC(id, uniq, disp, parent, unit, descr) { uniq, disp, ST_AN_M_##parent, unit, descr },
#include "metrics.def"
#undef ST_AN_METRIC
};

const st_an_metric_def_t *st_an_metric(int m) { return m >= 0 && m < ST_AN__METRICS ? &metrics[m] : NULL; }

int st_an_metric_find(const char *uniq)
{
    for (int m = 0; m < ST_AN__METRICS; m++)
        if (!strcmp(metrics[m].uniq, uniq))
            return m;
    return -1;
}

/* ---- call tree -------------------------------------------------------------------------------- */

/* (parent, region) -> cnode, open addressing; the tree is small, the lookups many. */
typedef an_tree_t tree_t;

static uint32_t slot_of(const tree_t *t, uint32_t parent, uint32_t region)
{
    uint64_t h = ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)region * 0xc2b2ae3d27d4eb4full);
    uint32_t s = (uint32_t)(h >> 32) & (t->nslot - 1);
    while (t->slot[s] && (t->v[t->slot[s] - 1].parent != parent || t->v[t->slot[s] - 1].region != region))
        s = (s + 1) & (t->nslot - 1);
    return s;
}

static int tree_grow(tree_t *t)
{
    uint32_t cap = t->cap ? 2 * t->cap : 64, nslot = 4 * cap;
    st_an_cnode_t *v = realloc(t->v, sizeof *v * cap);
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!v || !slot) {
        if (v)
            t->v = v;
        free(slot);
        return -1;
    }
    free(t->slot);
    t->v = v, t->cap = cap, t->slot = slot, t->nslot = nslot;
    for (uint32_t k = 0; k < t->n; k++)
        t->slot[slot_of(t, t->v[k].parent, t->v[k].region)] = k + 1;
    return 0;
}

uint32_t an_tree_child(tree_t *t, uint32_t parent, uint32_t region)
{
    if (t->n == t->cap && tree_grow(t))
        return ST_AN_NO_CNODE;
    uint32_t s = slot_of(t, parent, region);
    if (t->slot[s])
        return t->slot[s] - 1;
    uint32_t k = t->n++;
    t->v[k] = (st_an_cnode_t){ parent, region, ST_AN_NO_CNODE, ST_AN_NO_CNODE };
    if (parent != ST_AN_NO_CNODE) { /* append to the parent's children (creation order) */
        uint32_t *p = &t->v[parent].first_child;
        while (*p != ST_AN_NO_CNODE)
            p = &t->v[*p].next;
        *p = k;
    }
    t->slot[s] = k + 1;
    return k;
}

/* The cnode of e's application frames (call path) below parent, the cnode of the enclosing call
 * outer (NULL: none): the frames its path does not share with outer's, as function regions. */
static uint32_t frames_cnode(an_paths_t *ap, tree_t *t, const st_rel_loc_t *L, uint32_t parent, const st_event_t *e,
                             const st_event_t *outer)
{
    uint32_t node = st_event_callpath(e);
    if (node == ST_CP_NONE || L->rank < 0 || L->rank >= ap->nranks || !ap->func[L->rank] ||
        node >= ap->procs[L->rank].ncpnodes)
        return parent;
    uint64_t *memo = &ap->memo[L->rank][node];
    if (*memo != UINT64_MAX && (uint32_t)(*memo >> 32) == parent)
        return (uint32_t)*memo;
    uint32_t k = an_paths_below(ap, L->rank, node, outer ? st_event_callpath(outer) : ST_CP_NONE, ap->chain);
    uint32_t cn = parent;
    while (k-- && cn != ST_AN_NO_CNODE)
        cn = an_tree_child(t, cn, ap->func[L->rank][ap->chain[k]]);
    if (outer && st_event_callpath(outer) != ST_CP_NONE)
        return cn; /* the descent depends on outer's path too: not memoized */
    *memo = (uint64_t)parent << 32 | cn;
    return cn;
}

void an_tree_free(tree_t *t)
{
    free(t->v), free(t->slot);
    memset(t, 0, sizeof *t);
}

/* Unmatched LEAVEs are ignored, calls never left end at the end. */
/* The events an analysed location's later passes need, noted during its scan (c->icoll_done,
 * c->coll_end, the request events): the scan is the one sweep over its events. */
static int note_event(an_ctx_t *c, uint32_t l, uint64_t i, const st_event_t *e)
{
    switch (e->kind) {
    case ST_EV_MPI_ICOLL_COMPLETE: return an_evs_push(&c->icoll_done, &c->caps[0], l, i);
    case ST_EV_MPI_COLL_END:       return an_evs_push(&c->coll_end, &c->caps[1], l, i);
    case ST_EV_MPI_IRECV_REQUEST:
    case ST_EV_MPI_ISEND_COMPLETE: return an_reqs_note(c, l, i, &c->caps[2]);
    default:                       return 0;
    }
}

/* Room in acc for cnode k. 0, or -1 (memory). */
static int tacc_fit(an_tacc_t *acc, uint32_t k)
{
    if (k < acc->cap)
        return 0;
    uint32_t cap = acc->cap ? acc->cap : 64;
    while (cap <= k)
        cap *= 2;
    int64_t *v = realloc(acc->v, sizeof *v * 2 * cap);
    if (!v)
        return -1;
    memset(v + 2 * acc->cap, 0, sizeof *v * 2 * (cap - acc->cap));
    acc->v = v, acc->cap = cap;
    return 0;
}

/* A call of cnode k lasted d: its time (inclusive here, taken off the cnode of the call around it,
 * outer; the root outside every call). Not off k's parent in the tree: with call paths that is a
 * function frame, which has no time of its own (no ENTER/LEAVE), so the time outside the calls
 * stays where it was spent, in the enclosing call or at the root. */
static inline void tacc_call(an_tacc_t *acc, uint32_t k, uint32_t outer, int64_t d)
{
    acc->v[2 * k] += d, acc->v[2 * k + 1]++;
    acc->v[2 * outer] -= d;
}

/* The cnode of the call at stack[s - 1] (the root for s == 0). */
static inline uint32_t open_cnode(const an_loc_t *A, const uint64_t *stack, uint64_t s)
{
    return s ? (uint32_t)(A->w[stack[s - 1]] >> 32) & 0x7fffffffu : 0;
}

/* A region of the tool itself (a buffer flush). */
static int is_tool(uint32_t region)
{
    const st_region_info_t *ri = st_region_info(region);
    return ri && ri->paradigm == ST_PARADIGM_MEASUREMENT;
}

/* The last cnodes an_scan_loc found by (parent, region), direct-mapped: a trace enters the same few
 * calls under the same few parents over and over, and a hit here skips the tree's hash probe and
 * the accumulator's size check (done when the entry was made). A node, once made, keeps its
 * number, so a hit gives what an_tree_child would. */
enum { MEMO_SLOTS = 64 };
typedef struct memo_slot {
    uint32_t parent, region, cn;
} memo_slot_t;

static inline memo_slot_t *memo_of(memo_slot_t *memo, uint32_t parent, uint32_t region)
{
    return &memo[(parent * 0x9e3779b1u ^ region * 0x85ebca6bu) >> 26];
}

int an_scan_loc(const st_rel_loc_t *L, an_loc_t *A, tree_t *t, an_paths_t *paths, uint64_t *stack,
                uint64_t *unpaired, an_ctx_t *c, uint32_t l, an_tacc_t *acc)
{
    _Static_assert(MEMO_SLOTS == 1 << (32 - 26), "memo_of's shift");
    memo_slot_t memo[MEMO_SLOTS];
    for (int k = 0; k < MEMO_SLOTS; k++)
        memo[k].parent = ST_AN_NO_CNODE; /* no call's parent: an empty slot */
    uint64_t depth = 0;
    if (acc && L->n)
        acc->v[0] += st_an_diff(L->ev[L->n - 1].time, L->ev[0].time);
    for (uint64_t i = 0; i < L->n; i++) {
        const st_event_t *e = &L->ev[i];
        A->t[i] = e->time;
        if (e->kind == ST_EV_ENTER) {
            uint32_t parent = t ? open_cnode(A, stack, depth) : 0, cn = 0;
            if (t && paths && paths->nranks)
                parent = frames_cnode(paths, t, L, parent, e, depth ? &L->ev[stack[depth - 1]] : NULL);
            memo_slot_t *ms = t ? memo_of(memo, parent, e->region) : NULL;
            if (ms && ms->parent == parent && ms->region == e->region && parent != ST_AN_NO_CNODE)
                cn = ms->cn;
            else if (t && (parent == ST_AN_NO_CNODE || (cn = an_tree_child(t, parent, e->region)) == ST_AN_NO_CNODE ||
                           cn > 0x7fffffffu || (acc && tacc_fit(acc, cn))))
                return -1;
            else if (ms)
                *ms = (memo_slot_t){ parent, e->region, cn };
            stack[depth++] = i;
            A->w[i] = AN_W_ENTER | (uint64_t)cn << 32;
            if (c && is_tool(e->region) && an_evs_push(&c->tool, &c->tool_cap, l, i))
                return -1;
        } else if (e->kind == ST_EV_LEAVE && depth) {
            uint64_t open = stack[--depth];
            if (i - open > UINT32_MAX)
                return -1; /* a call over 2^32 events: beyond an_loc_t's word */
            A->w[open] |= i - open;
            A->w[i] = open + 1;
            if (acc)
                tacc_call(acc, open_cnode(A, stack, depth + 1), open_cnode(A, stack, depth),
                          st_an_diff(A->t[i], A->t[open]));
        } else {
            *unpaired += e->kind == ST_EV_LEAVE;
            A->w[i] = depth ? stack[depth - 1] + 1 : 0;
            if (c && note_event(c, l, i, e))
                return -1;
        }
    }
    *unpaired += depth;
    for (uint64_t s = 0; acc && s < depth; s++) /* never left: until the last event */
        tacc_call(acc, open_cnode(A, stack, s + 1), open_cnode(A, stack, s),
                  st_an_diff(A->t[L->n - 1], A->t[stack[s]]));
    return 0;
}

/* Whether the exclusive time of a call of region r (ST_AN_NO_CNODE: the root) can hold filtered calls:
 * the root, functions, user regions and OpenMP constructs whose body runs code; not MPI, the tool's
 * regions, nor OpenMP waits (barriers, task waits, entering a critical region, locks). */
static int holds_filtered(uint32_t r)
{
    if (r == UINT32_MAX || (r & 0x80000000u))
        return 1;
    const st_region_info_t *ri = st_region_info(r);
    if (!ri || ri->paradigm == ST_PARADIGM_USER)
        return 1;
    if (ri->paradigm != ST_PARADIGM_OPENMP)
        return 0;
    switch (ri->otf2_role) {
    case OTF2_REGION_ROLE_PARALLEL: case OTF2_REGION_ROLE_TASK: case OTF2_REGION_ROLE_LOOP:
    case OTF2_REGION_ROLE_SECTIONS: case OTF2_REGION_ROLE_SINGLE: case OTF2_REGION_ROLE_WORKSHARE:
    case OTF2_REGION_ROLE_MASTER: case OTF2_REGION_ROLE_CRITICAL_SBLOCK: case OTF2_REGION_ROLE_ORDERED_SBLOCK:
        return 1;
    default:
        return 0;
    }
}

/* The calls a filter removed on location l (docs/analysis.md, "Filtered calls"): each region's become a
 * child cnode of the call tree whose time is carved out of the exclusive time of the cnodes that can
 * hold it, the largest first, so no time counts twice; the visits go to the first such child. Time no
 * cnode can hold (only when clocks disagree) is left out. 0, or -1 (memory). */
static int filtered_calls(an_ctx_t *c, tree_t *t, an_tacc_t *acc, uint32_t l)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    if (!c->in->procs || L->rank < 0 || L->rank >= c->in->nranks)
        return 0;
    const st_rel_proc_t *p = &c->in->procs[L->rank];
    for (uint32_t region = 0; p->nfiltered && region < ST_REGION__COUNT; region++) /* in region order */
        for (uint32_t i = 0; i < p->nfiltered; i++) {
            const st_filtered_sum_t *f = &p->filtered[i];
            if (f->thread != L->thread || f->region != region || !f->visits)
                continue;
            int64_t left = f->time > INT64_MAX ? INT64_MAX : (int64_t)f->time;
            uint64_t visits = f->visits;
            do {
                uint32_t best = ST_AN_NO_CNODE, n = t->n < acc->cap ? t->n : acc->cap;
                for (uint32_t k = 0; k < n; k++)
                    if (acc->v[2 * k] > 0 && (best == ST_AN_NO_CNODE || acc->v[2 * k] > acc->v[2 * best]) &&
                        t->v[k].region != region && holds_filtered(t->v[k].region))
                        best = k;
                if (best == ST_AN_NO_CNODE && visits == 0)
                    break;
                uint32_t parent = best == ST_AN_NO_CNODE ? 0 : best;
                int64_t d = best == ST_AN_NO_CNODE ? 0 : left < acc->v[2 * best] ? left : acc->v[2 * best];
                uint32_t k = an_tree_child(t, parent, region);
                if (k == ST_AN_NO_CNODE || tacc_fit(acc, k))
                    return -1;
                acc->v[2 * k] += d, acc->v[2 * k + 1] += (int64_t)visits;
                acc->v[2 * parent] -= d;
                left -= d, visits = 0;
            } while (left > 0);
        }
    return 0;
}

/* The calls and the call tree of the locations: res's cnodes; their time and visits by location
 * (c->tsum); reqs: an_begin's. */
static int build_tree(an_ctx_t *c, const size_t *reqs)
{
    tree_t t = { 0 };
    uint64_t nmax = 0;
    int rc = 0;
    for (uint32_t l = 0; l < c->in->nlocs; l++)
        nmax = c->in->locs[l].n > nmax ? c->in->locs[l].n : nmax;
    /* The arrays before the stack: they fill all their pages, the stack only its first few, so
     * they are the ones that should get the free blocks of the heap (fresh pages are faults). */
    for (uint32_t l = 0; rc == 0 && l < c->in->nlocs; l++) {
        an_loc_t *A = &c->loc[l];
        uint64_t n = c->in->locs[l].n + 1;
        if (!(A->w = st_mem_malloc(sizeof *A->w * n)) || !(A->t = st_mem_malloc(sizeof *A->t * n)))
            rc = -1;
    }
    if (rc == 0 && reqs) /* then the requests' room (an_begin) */
        an_reqs_reserve(c, reqs);
    uint64_t *stack = rc ? NULL : st_mem_malloc(sizeof *stack * (nmax + 1));
    an_tacc_t acc = { 0 };
    if (!stack || an_tree_child(&t, ST_AN_NO_CNODE, UINT32_MAX) == ST_AN_NO_CNODE || tacc_fit(&acc, 0) ||
        !(c->tsum = calloc(c->in->nlocs + 1, sizeof *c->tsum)))
        rc = -1;
    for (uint32_t l = 0; rc == 0 && l < c->in->nlocs; l++) {
        an_loc_t *A = &c->loc[l];
        rc = an_scan_loc(&c->in->locs[l], A, &t, &c->paths, stack, &c->res->stats.unpaired, c, l, &acc);
        if (rc == 0)
            rc = filtered_calls(c, &t, &acc, l);
        if (rc == 0 && !(c->tsum[l].v = malloc(sizeof *acc.v * 2 * t.n)))
            rc = -1;
        if (rc == 0) { /* the location's sums (its cnodes are among the first t.n), for the values once the tree is complete */
            memcpy(c->tsum[l].v, acc.v, sizeof *acc.v * 2 * t.n);
            c->tsum[l].cap = t.n;
            memset(acc.v, 0, sizeof *acc.v * 2 * acc.cap);
        }
    }
    st_mem_free(stack), free(t.slot), free(acc.v);
    c->res->cnodes = t.v;
    c->res->ncnodes = t.n;
    return rc;
}

/* ---- time, visits, MPI time, collective counts ------------------------------------------------ */

static void coll_counts(an_ctx_t *c, uint32_t l, uint64_t i, const st_event_t *e)
{
    if (st_rel_coll_class(e->op) == ST_REL_CC_NONE)
        return;
    uint64_t call = an_call(c, l, i);
    int m = e->bytes && e->bytes2 ? ST_AN_M_COMMS_CXCH : e->bytes ? ST_AN_M_COMMS_CSRC
          : e->bytes2 ? ST_AN_M_COMMS_CDST : ST_AN_M_SYNCS_COLL;
    an_add(c, m, l, call, 1);
    an_add(c, ST_AN_M_BYTES_COUT, l, call, (double)e->bytes);
    an_add(c, ST_AN_M_BYTES_CIN, l, call, (double)e->bytes2);
}

/* Time and visits of location l: the sums of its scan (integers: exact in any order). */
static void time_loc(an_ctx_t *c, uint32_t l)
{
    const an_tacc_t *s = &c->tsum[l];
    for (uint32_t k = 0; k < s->cap; k++) {
        *st_an_sev(c->res, ST_AN_M_TIME, k, l) += (double)s->v[2 * k];
        *st_an_sev(c->res, ST_AN_M_VISITS, k, l) += (double)s->v[2 * k + 1];
    }
}

/* Which end of its call a wait of metric m is measured from: 1 the ENTER, -1 the LEAVE (a completion),
 * 0 none (not a wait, or one less its callees already). */
static int wait_end(int m)
{
    switch (m) {
    case ST_AN_M_BARRIER_COMPL: case ST_AN_M_NXN_COMPL: case ST_AN_M_INIT_COMPL:
        return -1;
    case ST_AN_M_LATESENDER: case ST_AN_M_LATESENDER_WO: case ST_AN_M_LSWO_DIFF: case ST_AN_M_LSWO_SAME:
    case ST_AN_M_LATERECEIVER: case ST_AN_M_EARLYREDUCE: case ST_AN_M_EARLYSCAN: case ST_AN_M_LATEBROADCAST:
    case ST_AN_M_WAIT_NXN: case ST_AN_M_BARRIER_WAIT: case ST_AN_M_FINALIZE_WAIT:
    case ST_AN_M_OMP_LOCK_CONT_CRITICAL: case ST_AN_M_OMP_LOCK_CONT_API:
    case ST_AN_M_RMA_WAIT_CREATE: case ST_AN_M_RMA_WAIT_FREE: case ST_AN_M_RMA_WAIT_FENCE: case ST_AN_M_RMA_EARLY_FENCE:
    case ST_AN_M_RMA_EARLY_WAIT: case ST_AN_M_RMA_LATE_COMPLETE: case ST_AN_M_RMA_SYNC_LATE_POST:
    case ST_AN_M_RMA_COMM_LATE_POST: case ST_AN_M_RMA_SYNC_LOCK_COMP: case ST_AN_M_RMA_COMM_LOCK_COMP:
        return 1;
    default:
        return 0;
    }
}

double an_less_tool(const an_ctx_t *c, int m, uint32_t l, uint64_t call, double v)
{
    int end = wait_end(m);
    uint64_t leave = call != AN_NO_EV ? an_leave(c, l, call) : AN_NO_EV;
    if (!end || leave == AN_NO_EV)
        return v;
    /* the wait's interval [lo, hi] */
    double lo = end > 0 ? (double)an_time(c, l, call) : (double)an_time(c, l, leave) - v;
    double hi = end > 0 ? (double)an_time(c, l, call) + v : (double)an_time(c, l, leave);
    const an_evs_t *tl = &c->tool;
    size_t a = 0, b = tl->n; /* the first tool ENTER after (l, call) */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (tl->v[mid].loc < l || (tl->v[mid].loc == l && tl->v[mid].ev <= call))
            a = mid + 1;
        else
            b = mid;
    }
    double less = 0;
    for (; a < tl->n && tl->v[a].loc == l && tl->v[a].ev < leave; a++) {
        double t0 = (double)an_time(c, l, tl->v[a].ev), t1 = (double)an_leave_time(c, l, tl->v[a].ev);
        t0 = t0 > lo ? t0 : lo, t1 = t1 < hi ? t1 : hi;
        less += t1 > t0 ? t1 - t0 : 0;
    }
    return v - less;
}

int an_evs_push(an_evs_t *v, size_t *cap, uint32_t l, uint64_t i)
{
    if (st_mem_grow((void **)&v->v, cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = (an_evref_t){ l, i };
    return 0;
}

static void mpi_time(st_an_result_t *r)
{
    for (uint32_t k = 1; k < r->ncnodes; k++) {
        const st_region_info_t *ri = st_region_info(r->cnodes[k].region);
        if (ri && ri->paradigm == ST_PARADIGM_MPI)
            memcpy(st_an_sev(r, ST_AN_M_MPI, k, 0), st_an_sev(r, ST_AN_M_TIME, k, 0), sizeof(double) * r->nlocs);
    }
}

void an_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *b = v;
    size_t i = 1;
    while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
        i++;
    if (i < n)
        qsort(v, n, size, cmp);
}

/* ---- worst instances ------------------------------------------------------------------------------ */

void an_note(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v)
{
    if (metrics[m].unit[0] != 's')
        return;
    st_an_instance_t x = { v, call == AN_NO_EV ? 0 : an_time(c, l, call), l, an_cnode(c, l, call) };
    st_an_top_note(c->res, m, &x, an_gid(c, l));
}

/* Larger value first, then earlier, then smaller (rank, thread): one order whatever the
 * order of noting (serial, per process, merged), so the kept instances are the same. */
static int top_before(const st_an_instance_t *a, uint64_t ga, const st_an_instance_t *b, uint64_t gb)
{
    if (a->value != b->value)
        return a->value > b->value;
    if (a->time != b->time)
        return a->time < b->time;
    return ga < gb;
}

void st_an_top_note(st_an_result_t *r, int m, const st_an_instance_t *x, uint64_t gid)
{
    uint32_t n = r->ntop[m];
    if (n == ST_AN_TOP && !top_before(x, gid, &r->top[m][n - 1], r->topgid[m][n - 1]))
        return;
    uint32_t k = n < ST_AN_TOP ? n++ : n - 1; /* the new one's slot, then bubble it up */
    while (k > 0 && top_before(x, gid, &r->top[m][k - 1], r->topgid[m][k - 1])) {
        r->top[m][k] = r->top[m][k - 1];
        r->topgid[m][k] = r->topgid[m][k - 1];
        k--;
    }
    r->top[m][k] = *x;
    r->topgid[m][k] = gid;
    r->ntop[m] = n;
}

/* ---- entry points ------------------------------------------------------------------------------ */

int st_an_attach_sources(st_an_result_t *res, const st_rel_proc_t *procs, int32_t nprocs)
{
    int any = 0;
    for (int32_t r = 0; procs && r < nprocs; r++)
        any |= procs[r].ncpnodes > 0;
    if (!any)
        return 0;
    if (!(res->src = calloc(1, sizeof *res->src)) || st_an_src_add_procs(res->src, procs, nprocs))
        return -1;
    st_an_src_seal(res->src);
    return 0;
}

/* A location's span: first to last event, the time an_scan_loc shares out from the root. */
static uint64_t loc_span(const st_rel_loc_t *L)
{
    int64_t d = L->n ? st_an_diff(L->ev[L->n - 1].time, L->ev[0].time) : 0;
    return d > 0 ? (uint64_t)d : 0;
}

int an_begin(an_ctx_t *c, const st_rel_input_t *in, const size_t *reqs, st_an_result_t *res)
{
    memset(res, 0, sizeof *res);
    *c = (an_ctx_t){ .in = in, .res = res, .loc = calloc(in->nlocs + 1, sizeof(an_loc_t)) };
    res->nlocs = in->nlocs;
    int rc = c->loc && (res->locs = calloc(in->nlocs + 1, sizeof *res->locs)) ? 0 : -1;
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++)
        res->locs[l] = (st_an_loc_t){ in->locs[l].rank, in->locs[l].thread };
    rc = rc == 0 && an_paths_build(&c->paths, in, res) == 0 ? build_tree(c, reqs) : -1;
    an_paths_free(&c->paths);
    if (rc == 0 && (!(res->sev = calloc((size_t)ST_AN__METRICS * res->ncnodes * (in->nlocs ? in->nlocs : 1),
                                        sizeof(double))) || !(res->span = calloc(in->nlocs + 1, sizeof *res->span))))
        rc = -1;
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++)
        res->span[l] = loc_span(&in->locs[l]);
    if (rc == 0) {
        for (uint32_t l = 0; l < in->nlocs; l++)
            time_loc(c, l);
        for (size_t k = 0; k < c->coll_end.n; k++) {
            const an_evref_t *x = &c->coll_end.v[k];
            coll_counts(c, x->loc, x->ev, &c->in->locs[x->loc].ev[x->ev]);
        }
        mpi_time(res);
        rc = an_reqs_finish(c);
    }
    return rc;
}

int an_finish(an_ctx_t *c, const st_rel_graph_t *g, const an_ctab_t *coll)
{
    c->g = g, c->coll = coll;
    int rc = an_omp(c);
    if (rc == 0)
        rc = an_p2p(c);
    if (rc == 0)
        rc = an_pscw(c);
    if (rc == 0)
        rc = an_lock(c);
    if (rc == 0)
        rc = an_coll(c);
    if (rc == 0)
        rc = an_tree(c);
    return rc;
}

void an_end(an_ctx_t *c)
{
    an_rcb_free(c->rcb);
    for (uint32_t l = 0; c->loc && l < c->in->nlocs; l++)
        st_mem_free(c->loc[l].w), st_mem_free(c->loc[l].t);
    free(c->loc);
    for (uint32_t l = 0; c->tsum && l < c->in->nlocs; l++)
        free(c->tsum[l].v);
    free(c->tsum);
    st_mem_free(c->done.v), st_mem_free(c->posted.v), st_mem_free(c->done.first), st_mem_free(c->posted.first);
    st_mem_free(c->done.seg), st_mem_free(c->posted.seg);
    st_mem_free(c->icoll_done.v), st_mem_free(c->coll_end.v), st_mem_free(c->tool.v);
    st_mem_free(c->msgs.recv), st_mem_free(c->msgs.send), st_mem_free(c->msgs.pscw), st_mem_free(c->msgs.pscw_send);
    st_mem_free(c->msgs.lock);
    memset(c, 0, sizeof *c);
}

int st_an_run(const st_rel_input_t *in, const st_rel_graph_t *g, st_an_result_t *res)
{
    an_ctx_t c;
    int rc = an_begin(&c, in, NULL, res);
    if (rc == 0)
        rc = an_msgs_from_graph(&c, g);
    if (rc == 0 && an_rc_wanted() && !(c.rcb = an_rcb_new()))
        rc = -1;
    if (rc == 0)
        rc = an_finish(&c, g, NULL);
    double t0[2];
    an_rc_clock(t0);
    if (rc == 0 && c.rcb) { /* the root-cause timeline of every location, while the calls are known */
        rc = an_rcb_graph(&c, g) || an_rcb_build(&c, g, &res->timeline) ? -1 : 0;
        an_rc_clock_add(res->rootcause_ms, t0);
    }
    an_end(&c);
    if (rc == 0 && st_an_attach_sources(res, in->procs, in->nranks) != 0)
        rc = -1;
    if (rc == 0)
        rc = an_rc_finish(res);
    if (rc)
        st_an_free(res);
    return rc;
}

void st_an_free(st_an_result_t *res)
{
    for (uint32_t k = 0; k < res->nfuncs; k++)
        free(res->funcs[k]);
    free(res->funcs);
    if (res->src)
        st_an_src_free(res->src);
    free(res->src);
    if (res->timeline)
        st_rc_input_free(res->timeline);
    free(res->timeline);
    if (res->causes)
        st_rc_causes_free(res->causes);
    free(res->causes);
    free(res->cnodes);
    free(res->sev);
    free(res->span);
    free(res->locs);
    memset(res, 0, sizeof *res);
}

const char *st_an_region_name(const st_an_result_t *r, uint32_t region)
{
    if (ST_AN_IS_FUNC(region))
        return (region & 0x7fffffffu) < r->nfuncs ? r->funcs[region & 0x7fffffffu] : "?";
    const st_region_info_t *ri = st_region_info(region);
    return ri ? ri->name : "?";
}

double st_an_total(const st_an_result_t *r, int m)
{
    double s = 0;
    for (uint64_t k = 0; k < (uint64_t)r->ncnodes * r->nlocs; k++)
        s += r->sev[(uint64_t)m * r->ncnodes * r->nlocs + k];
    return s;
}
