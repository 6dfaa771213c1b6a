/*
 * rma_pscw.c — the wait states of general active target synchronization (docs/analysis.md,
 * "One-sided communication (RMA)"): Early Wait and its part Late Complete at a target's
 * MPI_Win_wait, over the complete -> wait relations (relations/derive_pscw.c: one per origin and
 * epoch; the send is the origin's MPI_Win_complete's ENTER, the receive the wait's RMA_GROUP_SYNC).
 * Each relation brings the enter of the origin's MPI_Win_complete and the return of the origin's last
 * RMA operation to this target in the epoch: from the graph when the origin is analysed here, else
 * from the origin's process (p2p_wire.c carries them as a message's send enter and size), so the
 * serial and the parallel analysis see the same values.
 */
#include "internal.h"

#include <stdlib.h>

#include "../util/mem.h"

enum { PSCW_START = 2, PSCW_COMPLETE = 3 }; /* RMA_GROUP_SYNC.op (events.def) */

static int is_rma_op(unsigned kind)
{
    return kind == ST_EV_RMA_PUT || kind == ST_EV_RMA_GET || kind == ST_EV_RMA_ATOMIC;
}

uint64_t an_pscw_lastop(const an_ctx_t *c, uint32_t l, uint64_t i, int32_t target)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    uint64_t leave = an_leave(c, l, i), sync = AN_NO_EV;
    for (uint64_t j = i; j < L->n && (leave == AN_NO_EV || j <= leave); j++) /* the window: the complete's sync */
        if (L->ev[j].kind == ST_EV_RMA_GROUP_SYNC && L->ev[j].op == PSCW_COMPLETE) {
            sync = j;
            break;
        }
    if (sync == AN_NO_EV)
        return AN_NO_TIME;
    const st_event_t *w = &L->ev[sync];
    for (uint64_t j = i; j-- > 0;) { /* back to the epoch's start: the latest operation issued to target */
        const st_event_t *e = &L->ev[j];
        if (e->comm != w->comm || e->tag != w->tag)
            continue;
        if (e->kind == ST_EV_RMA_GROUP_SYNC && e->op == PSCW_START)
            break;
        if (is_rma_op(e->kind) && e->peer == target) {
            uint64_t call = an_call(c, l, j);
            return call == AN_NO_EV ? an_time(c, l, j) : an_leave_time(c, l, call);
        }
    }
    return AN_NO_TIME;
}

int an_pscw_push(an_ctx_t *c, an_pscw_t x)
{
    an_msgs_t *m = &c->msgs;
    if (st_mem_grow((void **)&m->pscw, &m->pscw_cap, m->npscw + 1, sizeof *m->pscw))
        return -1;
    m->pscw[m->npscw++] = x;
    return 0;
}

int an_pscw_from_graph(an_ctx_t *c, const st_rel_graph_t *g)
{
    for (uint32_t l = 0; l < g->nlocs; l++)
        for (uint64_t k = g->port_first[l]; k < g->port_first[l + 1]; k++) {
            const st_rel_port_t *p = &g->ports[k];
            const st_rel_inst_t *in = &g->inst[p->inst];
            if (p->role != ST_REL_RECV || st_rel_inst_type(in) != ST_REL_KEY_RMA_PSCW || in->nsend != 1 ||
                in->nrecv != 1)
                continue;
            const st_rel_ref_t *s = &g->refs[in->first], *r = s + 1;
            an_pscw_t x = { r->loc, r->ev, an_call_time(c, s->loc, s->ev),
                            an_pscw_lastop(c, s->loc, s->ev, c->in->locs[r->loc].rank) };
            if (an_pscw_push(c, x))
                return -1;
        }
    return 0;
}

static int cmp_pscw(const void *a, const void *b)
{
    const an_pscw_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

int an_pscw(an_ctx_t *c)
{
    an_msgs_t *m = &c->msgs;
    if (m->npscw > 1)
        qsort(m->pscw, m->npscw, sizeof *m->pscw, cmp_pscw);
    for (size_t i = 0, j; i < m->npscw; i = j) { /* one wait: the relations of all its origins */
        uint64_t complete = 0, lastop = 0;
        int ops = 0;
        for (j = i; j < m->npscw && m->pscw[j].loc == m->pscw[i].loc && m->pscw[j].ev == m->pscw[i].ev; j++) {
            complete = m->pscw[j].t_complete != AN_NO_TIME && m->pscw[j].t_complete > complete ? m->pscw[j].t_complete
                                                                                                : complete;
            if (m->pscw[j].t_lastop != AN_NO_TIME) {
                lastop = m->pscw[j].t_lastop > lastop ? m->pscw[j].t_lastop : lastop;
                ops = 1;
            }
        }
        uint32_t l = m->pscw[i].loc;
        uint64_t call = an_call(c, l, m->pscw[i].ev);
        if (call == AN_NO_EV)
            continue; /* (an MPI_Win_test that returned true: at most its own short time) */
        uint64_t enter = an_time(c, l, call);
        if (complete <= enter)
            continue;
        an_add(c, ST_AN_M_RMA_EARLY_WAIT, l, call, (double)(complete - enter));
        uint64_t from = ops && lastop > enter ? lastop : enter; /* no operation: all of it was late */
        if (complete > from)
            an_add(c, ST_AN_M_RMA_LATE_COMPLETE, l, call, (double)(complete - from));
    }
    return 0;
}
