/*
 * coll.c — collective patterns (ANALYSIS.md §2 "MPI collectives") over the graph's
 * collective instances. The graph's sends and receives of an instance are the members
 * that contribute / get data (the payload rule of docs/clc.md), so count-0 instances
 * relate nothing and are not analysed, as in Scalasca. A member's begin and end are
 * its COLL_BEGIN and COLL_END (Scalasca: CollBegin, CollEnd); the wait goes to the
 * call path of the collective call on the waiting location.
 * Nonblocking collectives: icoll.c. Not analysed (counted in stats.coll_skipped):
 * MPI_(I)Alltoallv/w (Scalasca: the trace does not say who exchanges with whom).
 * Intercommunicators: deps.c makes one instance per receiving group, whose senders are the
 * other group; its receivers wait for the latest of them (patterns.h), with the metric of
 * the operation's class (Wait at Barrier / N x N, Late Broadcast, Early Reduce) and no
 * completion metric. Communicators of size 1 do not synchronize and are ignored. Scans: each
 * member waits for the members of lower rank (Early Scan). MPI_Init and MPI_Finalize
 * (the graph's world-wide SYNC instances) are synchronizations over all ranks from ENTER
 * to LEAVE: Initialization Completion and Wait at Finalize.
 */
#include "internal.h"

#include <stdlib.h>

#include "../clc/mem.h"
#include "../record/region.h"
#include "patterns.h"

/* One member: its location ((rank, thread) in gid) and the call's ENTER index. */
typedef struct mref {
    uint64_t       gid;
    uint32_t       loc;
    uint64_t       call;
    st_an_member_t m;
} mref_t;

typedef struct scratch {
    mref_t  *mr;
    st_an_member_t *m;
    int64_t *wait, *compl;
    size_t   cap;
} scratch_t;

static int scratch_fit(scratch_t *s, size_t n)
{
    if (n <= s->cap)
        return 0;
    size_t cap = 2 * n;
    void *a = realloc(s->mr, sizeof *s->mr * cap), *b = a ? realloc(s->m, sizeof *s->m * cap) : NULL;
    if (a)
        s->mr = a;
    if (b)
        s->m = b;
    void *w = b ? realloc(s->wait, sizeof *s->wait * cap) : NULL;
    if (w)
        s->wait = w;
    void *x = w ? realloc(s->compl, sizeof *s->compl * cap) : NULL;
    if (x)
        s->compl = x;
    if (!x)
        return -1;
    s->cap = cap;
    return 0;
}

/* By order (scans need it; 0 for other instances), then location (rank, thread: the same
 * order in every process of a parallel analysis) and call. */
static int cmp_mref(const void *a, const void *b)
{
    const mref_t *x = a, *y = b;
    if (x->m.order != y->m.order) return x->m.order < y->m.order ? -1 : 1;
    if (x->gid != y->gid) return x->gid < y->gid ? -1 : 1;
    return (x->call > y->call) - (x->call < y->call);
}

int an_member_times(const an_ctx_t *c, uint32_t l, uint64_t call, st_an_member_t *m, const st_event_t **end)
{
    const st_clc_loc_t *L = &c->in->locs[l];
    uint64_t last = c->loc[l].leave[call] != AN_NO_EV ? c->loc[l].leave[call] : L->n - 1;
    int have = 0;
    for (uint64_t i = call; i <= last; i++)
        if (L->ev[i].kind == ST_EV_MPI_COLL_BEGIN && c->loc[l].call[i] == call)
            m->b = L->ev[i].time, have |= 1;
        else if (L->ev[i].kind == ST_EV_MPI_COLL_END && c->loc[l].call[i] == call)
            m->e = L->ev[i].time, *end = &L->ev[i], have |= 2;
    return have == 3 ? 0 : -1;
}

/* The instance's members (merged send and receive refs), or 0 members if it is not analysed.
 * sync: MPI_Init / MPI_Finalize, whose members begin at their ENTER and end at their LEAVE. */
static size_t members(an_ctx_t *c, const st_clc_inst_t *in, int sync, scratch_t *s, const st_event_t **end,
                      uint32_t *end_loc)
{
    size_t n = 0, nref = (size_t)in->nsend + in->nrecv;
    for (size_t k = 0; k < nref; k++) {
        const st_clc_ref_t *r = &c->g->refs[in->first + k];
        unsigned kind = c->in->locs[r->loc].ev[r->ev].kind;
        uint64_t call = an_call(c, r->loc, r->ev);
        if ((!sync && kind != ST_EV_MPI_COLL_BEGIN && kind != ST_EV_MPI_COLL_END) || call == AN_NO_EV)
            return 0; /* nonblocking, or no begin recorded */
        s->mr[n++] = (mref_t){ an_gid(c, r->loc), r->loc, call,
                               { .order = r->order, .send = k < in->nsend, .recv = k >= in->nsend } };
    }
    qsort(s->mr, n, sizeof *s->mr, cmp_mref);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (m && s->mr[m - 1].loc == s->mr[k].loc && s->mr[m - 1].call == s->mr[k].call) {
            s->mr[m - 1].m.send |= s->mr[k].m.send, s->mr[m - 1].m.recv |= s->mr[k].m.recv;
            continue;
        }
        s->mr[m] = s->mr[k];
        if (sync) {
            s->mr[m].m.b = an_time(c, s->mr[m].loc, s->mr[m].call);
            s->mr[m].m.e = an_leave_time(c, s->mr[m].loc, s->mr[m].call);
        } else {
            const st_event_t *e = NULL;
            if (an_member_times(c, s->mr[m].loc, s->mr[m].call, &s->mr[m].m, &e))
                return 0;
            if (!*end || s->mr[m].loc < c->nreal) /* an analysed location's: its process knows the comm */
                *end = e, *end_loc = s->mr[m].loc;
        }
        m++;
    }
    return m;
}

int an_coll_analysed(an_ctx_t *c, uint32_t loc, const st_event_t *e, int counted, int *inter)
{
    int32_t rank = c->in->locs[loc].rank;
    const st_clc_proc_t *p = c->in->procs && rank >= 0 && rank < c->in->nranks ? &c->in->procs[rank] : NULL;
    const st_comm_def_t *d = p && p->comms && e->comm < p->ncomms ? &p->comms[e->comm] : NULL;
    if (!d)
        return 0;
    if (e->op == 9 || e->op == 10) { /* OTF2_COLLECTIVE_OP_ALLTOALLV / _ALLTOALLW */
        c->res->stats.coll_skipped += counted;
        return 0;
    }
    *inter = (d->flags & ST_COMMF_INTER) || (e->flags & ST_EVF_INTERCOMM);
    return *inter || d->size > 1;
}

int an_coll_wait_metric(unsigned op)
{
    enum st_clc_coll_class cc = st_clc_coll_class(op);
    return op == 0 /* OTF2_COLLECTIVE_OP_BARRIER */ ? ST_AN_M_BARRIER_WAIT : cc == ST_CLC_CC_N2N ? ST_AN_M_WAIT_NXN
         : cc == ST_CLC_CC_ONE2N ? ST_AN_M_LATEBROADCAST : cc == ST_CLC_CC_N2ONE ? ST_AN_M_EARLYREDUCE
         : cc == ST_CLC_CC_PREFIX ? ST_AN_M_EARLYSCAN : -1;
}

static void attribute(an_ctx_t *c, const st_event_t *e, int inter, int counted, scratch_t *s, size_t n)
{
    enum st_clc_coll_class cc = st_clc_coll_class(e->op);
    int barrier = e->op == 0; /* OTF2_COLLECTIVE_OP_BARRIER */
    int mw = an_coll_wait_metric(e->op);
    int mc = inter ? -1 : barrier ? ST_AN_M_BARRIER_COMPL : cc == ST_CLC_CC_N2N ? ST_AN_M_NXN_COMPL : -1;
    if (mw < 0)
        return;
    for (size_t k = 0; k < n; k++)
        s->m[k] = s->mr[k].m;
    unsigned v = st_an_coll_waits(cc, barrier, inter, s->m, (uint32_t)n, s->wait, s->compl);
    c->res->stats.coll_violations += counted ? v : 0;
    for (size_t k = 0; k < n; k++) {
        an_add(c, mw, s->mr[k].loc, s->mr[k].call, (double)s->wait[k]);
        if (mc >= 0)
            an_add(c, mc, s->mr[k].loc, s->mr[k].call, (double)s->compl[k]);
    }
}

/* MPI_Init (group 0): completion only; MPI_Finalize (group 1): wait only (Scalasca). */
static void init_finalize(an_ctx_t *c, const st_clc_inst_t *in, int counted, scratch_t *s, size_t n)
{
    int fin = in->key[1] == 1;
    for (size_t k = 0; k < n; k++)
        s->m[k] = s->mr[k].m;
    unsigned v = st_an_coll_waits(ST_CLC_CC_N2N, 1, 0, s->m, (uint32_t)n, s->wait, s->compl);
    c->res->stats.coll_violations += counted ? v : 0;
    for (size_t k = 0; k < n; k++)
        an_add(c, fin ? ST_AN_M_FINALIZE_WAIT : ST_AN_M_INIT_COMPL, s->mr[k].loc, s->mr[k].call,
               (double)(fin ? s->wait[k] : s->compl[k]));
}

/* Whether a member is analysed here (else the instance only concerns stand-ins, parallel.c). */
static int has_real(const an_ctx_t *c, const st_clc_inst_t *in)
{
    for (uint64_t k = in->first; k < in->first + in->nsend + in->nrecv; k++)
        if (c->g->refs[k].loc < c->nreal)
            return 1;
    return 0;
}

/* Whether an instance's members are nonblocking (ICOLL_REQUEST sends, ICOLL_COMPLETE receives). */
static int nonblocking(const an_ctx_t *c, const st_clc_inst_t *in)
{
    const st_clc_ref_t *r = &c->g->refs[in->first];
    unsigned kind = in->nsend + in->nrecv ? c->in->locs[r->loc].ev[r->ev].kind : 0;
    return kind == ST_EV_MPI_ICOLL_REQUEST || kind == ST_EV_MPI_ICOLL_COMPLETE;
}

int an_coll(an_ctx_t *c)
{
    scratch_t s = { 0 };
    an_waits_t nb = { 0 };
    int rc = 0;
    for (uint64_t k = 0; rc == 0 && k < c->g->ninst; k++) {
        const st_clc_inst_t *in = &c->g->inst[k];
        unsigned type = st_clc_inst_type(in);
        if ((type != ST_CLC_KEY_COLL && type != ST_CLC_KEY_SYNC) || !has_real(c, in))
            continue;
        if (type == ST_CLC_KEY_COLL && nonblocking(c, in)) {
            rc = an_icoll(c, in, &nb);
            continue;
        }
        if ((rc = scratch_fit(&s, (size_t)in->nsend + in->nrecv)))
            break;
        const st_event_t *end = NULL;
        uint32_t end_loc = 0;
        size_t n = members(c, in, type == ST_CLC_KEY_SYNC, &s, &end, &end_loc);
        int counted = an_counts_inst(c, in);
        if (n && type == ST_CLC_KEY_SYNC) {
            init_finalize(c, in, counted, &s, n);
            continue;
        }
        if (!n || !end) {
            c->res->stats.coll_skipped += counted;
            continue;
        }
        int inter = 0;
        if (an_coll_analysed(c, end_loc, end, counted, &inter))
            attribute(c, end, inter, counted, &s, n);
    }
    if (rc == 0)
        an_icoll_add(c, &nb);
    st_clc_free(nb.v);
    free(s.mr), free(s.m), free(s.wait), free(s.compl);
    return rc;
}
