/*
 * icoll.c — nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, ... completed by a Wait or
 * Test call). Scalasca defines no pattern for them; synctrace applies the rule it uses for
 * nonblocking point-to-point (Late Sender at the completing call): a member that gets data
 * waits, in the call that completes its request, for the latest begin of the members it
 * depends on. From the graph's instance (deps.c: the ICOLL_REQUEST at the start of the I-call
 * is a member's send, the ICOLL_COMPLETE its receive):
 *   B_ref = the latest ICOLL_REQUEST among the instance's senders (prefix: those of lower or
 *           equal rank; intercommunicator: the other group, as deps.c relates them)
 *   wait  = min(B_ref, L(C)) - E(C) at the completing call C (patterns.h st_an_icoll_wait)
 * with the metric of the operation's class (Wait at Barrier, Wait at N x N, Late Broadcast,
 * Early Reduce, Early Scan) and no completion metric (the completing call does not end
 * together with the others'). As for Late Sender: Test calls are skipped, a Waitall/Waitsome
 * gets its largest wait once. A call that also completes point-to-point requests gets none:
 * its time is point-to-point (tree.c), where a collective wait could not be a part of it.
 */
#include "internal.h"

#include <stdlib.h>

#include "patterns.h"

int an_icoll(an_ctx_t *c, const st_clc_inst_t *in, an_waits_t *acc)
{
    const st_clc_ref_t *refs = &c->g->refs[in->first];
    uint32_t nref = in->nsend + in->nrecv, done_loc = 0;
    const st_event_t *done = NULL;
    /* an analysed location's completion where there is one: its process knows the communicator */
    for (uint32_t k = in->nsend; k < nref && !(done && done_loc < c->nreal); k++)
        if (c->in->locs[refs[k].loc].ev[refs[k].ev].kind == ST_EV_MPI_ICOLL_COMPLETE)
            done = &c->in->locs[refs[k].loc].ev[refs[k].ev], done_loc = refs[k].loc;
    int inter = 0, metric;
    if (!done || !an_coll_analysed(c, done_loc, done, an_counts_inst(c, in), &inter) ||
        (metric = an_coll_wait_metric(done->op)) < 0)
        return 0;
    int prefix = st_clc_coll_class(done->op) == ST_CLC_CC_PREFIX;
    for (uint32_t k = in->nsend; k < nref; k++) {
        uint32_t l = refs[k].loc;
        if (l >= c->nreal)
            continue; /* a stand-in for a remote partner (parallel.c): its own part analyses it */
        uint64_t call = an_call(c, l, refs[k].ev);
        int coll, p2p, barrier;
        if (call == AN_NO_EV || an_is_test(an_region(c, l, call)))
            continue;
        an_call_completes(c, l, call, &coll, &p2p, &barrier);
        if (p2p)
            continue;
        uint64_t bref = 0;
        int any = 0;
        for (uint32_t s = 0; s < in->nsend; s++)
            if ((!prefix || refs[s].order <= refs[k].order) && (!any || an_time(c, refs[s].loc, refs[s].ev) > bref))
                bref = an_time(c, refs[s].loc, refs[s].ev), any = 1;
        if (!any)
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
