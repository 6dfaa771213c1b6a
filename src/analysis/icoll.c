/*
 * icoll.c — nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, ... completed by a Wait or
 * Test call). Scalasca defines no pattern for them; synctrace applies the rule it uses for
 * nonblocking point-to-point (Late Sender at the completing call): a member that gets data
 * waits, in the call that completes its request, for the latest begin of the members it
 * depends on. From the graph's instance (relations/derive.c: the ICOLL_REQUEST at the start of the I-call
 * is a member's send, the ICOLL_COMPLETE its receive):
 *   B_ref = the latest ICOLL_REQUEST among the instance's senders (prefix: those of lower or
 *           equal rank; intercommunicator: the other group, as relations/derive.c relates them)
 *   wait  = min(B_ref, L(C)) - E(C) at the completing call C (patterns.h st_an_icoll_wait)
 * with the metric of the operation's class (Wait at Barrier, Wait at N x N, Late Broadcast,
 * Early Reduce, Early Scan) and no completion metric (the completing call does not end
 * together with the others'). As for Late Sender: Test calls are skipped, a Waitall/Waitsome
 * gets its largest wait once. A call that also completes point-to-point requests gets none:
 * its time is point-to-point (tree.c), where a collective wait could not be a part of it; one
 * that completes barriers and other collectives gets no barrier wait, for the same reason: its
 * time is Communication / Collective, not Synchronization.
 * B_ref comes from the instance's reduction (coll.c, coll_reduce.c): the latest request and,
 * for scans, the staircase of requests by (order, ...).
 */
#include "internal.h"

#include <stdlib.h>

#include "patterns.h"

int an_icoll(an_ctx_t *c, const an_cinst_t *x, an_waits_t *acc)
{
    int inter = 0, metric;
    const st_event_t *done = x->end_ev != AN_NO_EV ? &c->in->locs[x->end_loc].ev[x->end_ev] : NULL;
    if (!done || !an_coll_analysed(c, x->end_loc, done, x->counted, &inter) ||
        (metric = an_coll_wait_metric(done->op)) < 0)
        return 0;
    int prefix = st_rel_coll_class(done->op) == ST_REL_CC_PREFIX;
    for (uint32_t k = 0; k < x->n; k++) {
        const an_cmember_t *m = &x->m[k];
        uint32_t l = m->loc;
        uint64_t call = m->call;
        int coll, p2p, barrier;
        if (!m->m.recv || call == AN_NO_EV || an_is_test(an_region(c, l, call)))
            continue;
        an_call_completes(c, l, call, &coll, &p2p, &barrier);
        if (p2p || (metric == ST_AN_M_BARRIER_WAIT && !barrier))
            continue; /* the call's time is not synchronization (tree.c): the wait would not be a part of it */
        uint64_t bref = x->r.sb, upto[3] = { m->m.order, UINT64_MAX, UINT64_MAX };
        if (prefix ? !st_an_stair_find(x->st, x->nst, upto, &bref) : x->r.sk[0] == ST_AN_NO_KEY)
            continue;
        uint64_t enter = an_time(c, l, call), leave = an_leave_time(c, l, call);
        c->res->stats.coll_violations += bref > leave;
        int64_t w = st_an_icoll_wait(bref, enter, leave);
        if (w > 0 && an_waits_push(acc, (an_wait_t){ l, (uint8_t)metric, call, w }))
            return -1;
    }
    return 0;
}

static int cmp_wait(const void *a, const void *b)
{
    const an_wait_t *x = a, *y = b;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    if (x->call != y->call) return x->call < y->call ? -1 : 1;
    return (x->w < y->w) - (x->w > y->w); /* largest first */
}

void an_icoll_add(an_ctx_t *c, an_waits_t *acc)
{
    if (acc->n)
        qsort(acc->v, acc->n, sizeof *acc->v, cmp_wait);
    for (size_t i = 0; i < acc->n; i++) {
        const an_wait_t *w = &acc->v[i];
        int again = i && acc->v[i - 1].loc == w->loc && acc->v[i - 1].call == w->call;
        if (again && an_is_multi_wait(an_region(c, w->loc, w->call)))
            continue; /* a Waitall / Waitsome: its largest wait, once */
        an_add(c, w->kind, w->loc, w->call, (double)w->w);
    }
}
