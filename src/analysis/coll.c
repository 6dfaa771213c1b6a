/*
 * coll.c — collective patterns (docs/analysis.md, "Metrics") over the graph's
 * collective instances. The graph's sends and receives of an instance are the members
 * that contribute / get data (the payload rule of docs/clc.md), so count-0 instances
 * relate nothing and are not analysed, as in Scalasca. A member's begin and end are
 * its COLL_BEGIN and COLL_END (Scalasca: CollBegin, CollEnd); the wait goes to the
 * call path of the collective call on the waiting location.
 * One-sided collectives (the window's fences, its creation and release: RMA_COLL_BEGIN / RMA_COLL_END,
 * instances over the window's communicator) are reduced the same way and evaluated by rma_coll: Wait at
 * Fence with Early Fence (the fence's members bring the operations of the epoch it closes, per target:
 * an_cinst_t.ops), Wait at Create, Wait at Free.
 * Nonblocking collectives: icoll.c. Not analysed (counted in stats.coll_skipped):
 * MPI_(I)Alltoallv/w (Scalasca: the trace does not say who exchanges with whom).
 * Intercommunicators: relations/derive.c makes one instance per receiving group, whose senders are the
 * other group; its receivers wait for the latest of them (patterns.h), with the metric of
 * the operation's class (Wait at Barrier / N x N, Late Broadcast, Early Reduce) and no
 * completion metric. Communicators of size 1 do not synchronize and are ignored. Scans: each
 * member waits for the members of lower rank (Early Scan). MPI_Init and MPI_Finalize
 * (the graph's world-wide SYNC instances) are synchronizations over all ranks from ENTER
 * to LEAVE: Initialization Completion and Wait at Finalize.
 * Each instance is first reduced (an_cinst_build: patterns.h's st_an_cred_t over its
 * members), then each member's wait is a function of its times and the reduction
 * (an_coll_eval): the parallel analysis (coll_reduce.c) reduces over the communicator's
 * tree instead and evaluates the same way. Violations are counted per member, so that each
 * process counts its own.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../relations/relations.h"
#include "../util/mem.h"
#include "../model/region.h"
#include "patterns.h"

static int cmp_cmember(const void *a, const void *b)
{
    const st_an_member_t *x = &((const an_cmember_t *)a)->m, *y = &((const an_cmember_t *)b)->m;
    uint64_t kx[3], ky[3];
    st_an_member_key(x, kx), st_an_member_key(y, ky);
    return st_an_key_cmp(kx, ky);
}

int an_member_times(const an_ctx_t *c, uint32_t l, uint64_t call, st_an_member_t *m, const st_event_t **end)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    uint64_t last = an_leave(c, l, call) != AN_NO_EV ? an_leave(c, l, call) : L->n - 1;
    int have = 0;
    for (uint64_t i = call; i <= last; i++) {
        unsigned kind = L->ev[i].kind;
        if ((kind == ST_EV_MPI_COLL_BEGIN || kind == ST_EV_RMA_COLL_BEGIN) && an_call(c, l, i) == call)
            m->b = L->ev[i].time, have |= 1;
        else if ((kind == ST_EV_MPI_COLL_END || kind == ST_EV_RMA_COLL_END) && an_call(c, l, i) == call)
            m->e = L->ev[i].time, *end = &L->ev[i], have |= 2;
    }
    return have == 3 ? 0 : -1;
}

static int pool_fit(an_cpool_t *p, size_t nm, size_t ns)
{
    return st_mem_grow((void **)&p->m, &p->cm, p->nm + nm, sizeof *p->m) ||
           st_mem_grow((void **)&p->st, &p->cs, p->ns + ns, sizeof *p->st) ? -1 : 0;
}

static int cmp_stair(const void *a, const void *b)
{
    return st_an_key_cmp(((const st_an_stair_t *)a)->key, ((const st_an_stair_t *)b)->key);
}

/* A fence member's operations (location l, its fence call, the fence's end event): every RMA operation
 * on the same window (the end event's comm and tag) since the window's previous fence or creation on l,
 * as (target's world rank, return of the operation's call), appended to the pool. 0, or -1 (memory). */
static int fence_ops(const an_ctx_t *c, uint32_t l, uint64_t call, const st_event_t *end, an_cpool_t *p)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    for (uint64_t i = call; i-- > 0;) {
        const st_event_t *e = &L->ev[i];
        unsigned kind = e->kind;
        if ((kind != ST_EV_RMA_COLL_END && kind != ST_EV_RMA_WIN_CREATE && !st_event_is_rma_op(kind)) ||
            e->comm != end->comm || e->tag != end->tag)
            continue;
        if (!st_event_is_rma_op(kind))
            break; /* the epoch's opening fence, or the window's creation */
        if (e->peer < 0)
            continue;
        if (pool_fit(p, 0, 1))
            return -1;
        uint64_t op = an_call(c, l, i);
        st_an_stair_t s = { { (uint64_t)(uint32_t)e->peer, 0, 0 }, op != AN_NO_EV ? an_leave_time(c, l, op) : e->time };
        p->st[p->ns++] = s;
    }
    return 0;
}

/* The staircase of the senders among members m[0..n) (by key) at the pool's end. */
static void stair_of(an_cinst_t *x, const an_cmember_t *m, size_t n, an_cpool_t *p)
{
    st_an_stair_t *s = p->st + p->ns;
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i].m.send) {
            st_an_stair_t e = { { m[i].m.order, m[i].m.gid, m[i].m.call }, m[i].m.b };
            s[k++] = e;
        }
    x->nst = st_an_stair_merge(s, k, NULL, 0, s); /* in key order: keeps the increasing begins */
    p->ns += x->nst;
}

/* Nonblocking: the members are the references themselves (requests: sends, completions:
 * receives), keyed by (order, gid, event); r and the staircase over the requests. */
static void nonblocking_members(const an_ctx_t *c, an_cinst_t *x, const st_rel_ref_t *refs, uint32_t nsend,
                                uint32_t nref, uint8_t shape, an_cpool_t *p)
{
    an_cmember_t *m = p->m + p->nm;
    for (uint32_t k = 0; k < nref; k++) {
        const st_rel_ref_t *r = &refs[k];
        const st_event_t *e = &c->in->locs[r->loc].ev[r->ev];
        m[k] = (an_cmember_t){ r->loc, an_call(c, r->loc, r->ev), r->ev,
                               { .b = e->time, .e = e->time, .gid = an_gid(c, r->loc), .call = r->ev,
                                 .order = r->order, .send = k < nsend, .recv = k >= nsend } };
        if (k < nsend)
            st_an_cred_add(&x->r, &m[k].m);
        else if (x->end_ev == AN_NO_EV && e->kind == ST_EV_MPI_ICOLL_COMPLETE)
            x->end_loc = r->loc, x->end_ev = r->ev;
    }
    qsort(m, nref, sizeof *m, cmp_cmember);
    if (shape == ST_REL_PREFIX)
        stair_of(x, m, nref, p);
    x->n = nref;
    p->nm += nref;
}

/* Blocking (MPI_Init / MPI_Finalize: sync): one member per (location, call), merging its
 * send and receive references; begin and end its COLL_BEGIN and COLL_END (sync: ENTER, LEAVE; one-sided:
 * RMA_COLL_BEGIN, RMA_COLL_END). A fence also collects its members' operations (x->ops). 0, or -1 (memory). */
static int blocking_members(const an_ctx_t *c, an_cinst_t *x, const st_rel_ref_t *refs, uint32_t nsend,
                             uint32_t nref, uint8_t shape, an_cpool_t *p)
{
    int sync = x->type == ST_REL_KEY_SYNC;
    an_cmember_t *m = p->m + p->nm;
    size_t n = 0;
    for (uint32_t k = 0; k < nref; k++) {
        const st_rel_ref_t *r = &refs[k];
        unsigned kind = c->in->locs[r->loc].ev[r->ev].kind;
        uint64_t call = an_call(c, r->loc, r->ev);
        if ((!sync && kind != ST_EV_MPI_COLL_BEGIN && kind != ST_EV_MPI_COLL_END && kind != ST_EV_RMA_COLL_BEGIN &&
             kind != ST_EV_RMA_COLL_END) ||
            call == AN_NO_EV) {
            x->valid = 0; /* nonblocking, or no begin recorded */
            return 0;
        }
        m[n++] = (an_cmember_t){ r->loc, call, r->ev,
                                 { .gid = an_gid(c, r->loc), .call = call, .order = r->order, .send = k < nsend,
                                   .recv = k >= nsend } };
    }
    an_sort(m, n, sizeof *m, cmp_cmember);
    size_t j = 0;
    for (size_t k = 0; k < n; k++) {
        if (j && m[j - 1].loc == m[k].loc && m[j - 1].call == m[k].call) {
            m[j - 1].m.send |= m[k].m.send, m[j - 1].m.recv |= m[k].m.recv;
            continue;
        }
        m[j] = m[k];
        if (sync) {
            m[j].m.b = an_time(c, m[j].loc, m[j].call), m[j].m.e = an_leave_time(c, m[j].loc, m[j].call);
        } else {
            const st_event_t *e = NULL;
            if (an_member_times(c, m[j].loc, m[j].call, &m[j].m, &e)) {
                x->valid = 0;
                return 0;
            }
            x->end_loc = m[j].loc, x->end_ev = (uint64_t)(e - c->in->locs[m[j].loc].ev);
            if (e->kind == ST_EV_RMA_COLL_END && e->op == 0 /* OTF2_COLLECTIVE_OP_BARRIER: a fence */) {
                x->ops = 1;
                if (fence_ops(c, m[j].loc, m[j].call, e, p))
                    return -1;
            }
        }
        j++;
    }
    for (size_t k = 0; k < j; k++)
        st_an_cred_add(&x->r, &m[k].m);
    if (shape == ST_REL_PREFIX)
        stair_of(x, m, j, p);
    if (x->ops) { /* one entry per target, the latest */
        st_an_stair_t *s = p->st + x->st_at;
        qsort(s, p->ns - x->st_at, sizeof *s, cmp_stair);
        x->nst = st_an_oplist_merge(s, (uint32_t)(p->ns - x->st_at), NULL, 0, s);
        p->ns = x->st_at + x->nst;
    }
    x->n = (uint32_t)j;
    p->nm += j;
    return 0;
}

int an_cinst_build(const an_ctx_t *c, an_cinst_t *x, const st_rel_ref_t *refs, uint32_t nsend, uint32_t nrecv,
                   uint8_t shape, an_cpool_t *pool)
{
    uint32_t nref = nsend + nrecv;
    if (pool_fit(pool, nref, nref))
        return -1;
    unsigned kind0 = nref ? c->in->locs[refs[0].loc].ev[refs[0].ev].kind : 0;
    x->nonblocking = x->type == ST_REL_KEY_COLL && (kind0 == ST_EV_MPI_ICOLL_REQUEST ||
                                                    kind0 == ST_EV_MPI_ICOLL_COMPLETE);
    x->valid = 1, x->n = x->nst = x->ops = 0, x->end_ev = AN_NO_EV, x->mingid = UINT64_MAX;
    x->m_at = pool->nm, x->st_at = pool->ns;
    st_an_cred_init(&x->r);
    for (uint32_t k = 0; k < nref; k++)
        if (an_gid(c, refs[k].loc) < x->mingid)
            x->mingid = an_gid(c, refs[k].loc);
    if (x->nonblocking)
        nonblocking_members(c, x, refs, nsend, nref, shape, pool);
    else if (blocking_members(c, x, refs, nsend, nref, shape, pool))
        return -1;
    if (!x->valid)
        x->n = x->nst = x->ops = 0;
    return 0;
}

int an_coll_analysed(an_ctx_t *c, uint32_t loc, const st_event_t *e, int counted, int *inter)
{
    int32_t rank = c->in->locs[loc].rank;
    const st_rel_proc_t *p = c->in->procs && rank >= 0 && rank < c->in->nranks ? &c->in->procs[rank] : NULL;
    const st_comm_def_t *d = p && p->comms && e->comm < p->ncomms ? &p->comms[e->comm] : NULL;
    if (!d)
        return 0;
    if (e->op == 9 || e->op == 10) { /* OTF2_COLLECTIVE_OP_ALLTOALLV / _ALLTOALLW */
        if (counted)
            c->res->stats.coll_skipped++;
        return 0;
    }
    *inter = (d->flags & ST_COMMF_INTER) || (e->flags & ST_EVF_INTERCOMM);
    return *inter || d->size > 1;
}

int an_coll_wait_metric(unsigned op)
{
    enum st_rel_coll_class cc = st_rel_coll_class(op);
    return op == 0 /* OTF2_COLLECTIVE_OP_BARRIER */ ? ST_AN_M_BARRIER_WAIT : cc == ST_REL_CC_N2N ? ST_AN_M_WAIT_NXN
         : cc == ST_REL_CC_ONE2N ? ST_AN_M_LATEBROADCAST : cc == ST_REL_CC_N2ONE ? ST_AN_M_EARLYREDUCE
         : cc == ST_REL_CC_PREFIX ? ST_AN_M_EARLYSCAN : -1;
}

/* The members' waits against the reduction r; with the serial analysis's own members (c->coll
 * NULL: they are all of them), the partial N x N rule's second round is reduced here. */
static void attribute(an_ctx_t *c, const an_cinst_t *x, const st_event_t *e, int inter)
{
    enum st_rel_coll_class cc = st_rel_coll_class(e->op);
    int barrier = e->op == 0; /* OTF2_COLLECTIVE_OP_BARRIER */
    int mw = an_coll_wait_metric(e->op);
    int mc = inter ? -1 : barrier ? ST_AN_M_BARRIER_COMPL : cc == ST_REL_CC_N2N ? ST_AN_M_NXN_COMPL : -1;
    if (mw < 0)
        return;
    st_an_cred_t r = x->r;
    if (!c->coll && st_an_cred_round2(&r, cc, barrier, inter))
        for (uint32_t k = 0; k < x->n; k++)
            st_an_cred_add2(&r, &x->m[k].m);
    for (uint32_t k = 0; k < x->n; k++) {
        int64_t w, compl;
        c->res->stats.coll_violations += st_an_coll_wait(cc, barrier, inter, &r, x->st, x->nst, &x->m[k].m, &w, &compl);
        an_add(c, mw, x->m[k].loc, x->m[k].call, (double)w);
        if (mc >= 0)
            an_add(c, mc, x->m[k].loc, x->m[k].call, (double)compl);
    }
}

/* A one-sided collective (fence, window creation or release): each member's wait (Scalasca's rule,
 * patterns.h st_an_rma_coll_wait) in the metric of the operation; at a fence, the part of the wait until
 * the last operation to the member returned is Early Fence. No completion metric, no violations counted:
 * a fence need not synchronize. */
static void rma_coll(an_ctx_t *c, const an_cinst_t *x, const st_event_t *end)
{
    int m = end->op == 0 ? ST_AN_M_RMA_WAIT_FENCE                    /* OTF2_COLLECTIVE_OP_BARRIER */
          : end->op == 17 ? ST_AN_M_RMA_WAIT_CREATE                  /* OTF2_COLLECTIVE_OP_CREATE_HANDLE */
          : end->op == 18 ? ST_AN_M_RMA_WAIT_FREE : -1;              /* OTF2_COLLECTIVE_OP_DESTROY_HANDLE */
    for (uint32_t k = 0; m >= 0 && k < x->n; k++) {
        const an_cmember_t *a = &x->m[k];
        int64_t w = st_an_rma_coll_wait(&x->r, &a->m);
        uint64_t last;
        an_add(c, m, a->loc, a->call, (double)w);
        if (w > 0 && x->ops && st_an_oplist_find(x->st, x->nst, (uint64_t)(uint32_t)c->in->locs[a->loc].rank, &last))
            an_add(c, ST_AN_M_RMA_EARLY_FENCE, a->loc, a->call,
                   (double)st_an_early_fence(w, last, an_time(c, a->loc, a->call), a->m.e));
    }
}

/* MPI_Init (group 0): completion only; MPI_Finalize (group 1): wait only (Scalasca). */
static void init_finalize(an_ctx_t *c, const an_cinst_t *x)
{
    int fin = x->key[1] == 1;
    for (uint32_t k = 0; k < x->n; k++) {
        int64_t w, compl;
        c->res->stats.coll_violations += st_an_coll_wait(ST_REL_CC_N2N, 1, 0, &x->r, NULL, 0, &x->m[k].m, &w, &compl);
        an_add(c, fin ? ST_AN_M_FINALIZE_WAIT : ST_AN_M_INIT_COMPL, x->m[k].loc, x->m[k].call,
               (double)(fin ? w : compl));
    }
}

int an_coll_eval(an_ctx_t *c, const an_cinst_t *x, an_waits_t *nb)
{
    if (x->nonblocking)
        return an_icoll(c, x, nb);
    if (!x->valid || (x->type != ST_REL_KEY_SYNC && x->end_ev == AN_NO_EV)) {
        c->res->stats.coll_skipped += x->counted;
        return 0;
    }
    if (x->type == ST_REL_KEY_SYNC) {
        init_finalize(c, x);
        return 0;
    }
    int inter = 0;
    const st_event_t *end = &c->in->locs[x->end_loc].ev[x->end_ev];
    if (!an_coll_analysed(c, x->end_loc, end, x->counted, &inter))
        return 0;
    if (end->kind == ST_EV_RMA_COLL_END)
        rma_coll(c, x, end);
    else
        attribute(c, x, end, inter);
    return 0;
}

int an_coll(an_ctx_t *c)
{
    an_cpool_t pool = { 0 };
    an_waits_t nb = { 0 };
    int rc = 0;
    for (size_t k = 0; rc == 0 && c->coll && k < c->coll->n; k++)
        rc = an_coll_eval(c, &c->coll->v[k], &nb);
    for (uint64_t k = 0; rc == 0 && !c->coll && k < c->g->ninst; k++) {
        const st_rel_inst_t *in = &c->g->inst[k];
        unsigned type = st_rel_inst_type(in);
        if (type != ST_REL_KEY_COLL && type != ST_REL_KEY_SYNC && type != ST_REL_KEY_RMA_COLL)
            continue;
        an_cinst_t x = { .type = (uint8_t)type, .counted = 1 }; /* serial: every instance counted here */
        memcpy(x.key, in->key, sizeof x.key);
        pool.nm = pool.ns = 0;
        if ((rc = an_cinst_build(c, &x, &c->g->refs[in->first], in->nsend, in->nrecv, in->shape, &pool)))
            break;
        x.m = pool.m + x.m_at, x.st = pool.st + x.st_at;
        rc = an_coll_eval(c, &x, &nb);
    }
    if (rc == 0)
        an_icoll_add(c, &nb);
    st_mem_free(nb.v);
    st_mem_free(pool.m), st_mem_free(pool.st);
    return rc;
}
