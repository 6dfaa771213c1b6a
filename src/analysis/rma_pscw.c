/*
 * rma_pscw.c — the wait states of general active target synchronization (docs/analysis.md,
 * "One-sided communication (RMA)"): Early Wait and its part Late Complete at a target's
 * MPI_Win_wait, Late Post in an origin's access epoch, over the complete -> wait relations
 * (relations/derive_pscw.c: one per origin and epoch; the send is the origin's MPI_Win_complete's
 * ENTER, the receive the wait's RMA_GROUP_SYNC). At the target each relation brings the enter of the
 * origin's MPI_Win_complete and the return of the origin's last RMA operation to this target in the
 * epoch; at the origin, the enter of the target's MPI_Win_post. Both come from the graph when the
 * other end is analysed here, else from its process (p2p_wire.c carries them as a message's send
 * enter and size, and as a receive's post), so the serial and the parallel analysis see the same.
 */
#include "internal.h"

#include <stdlib.h>

#include "../util/mem.h"

/* The RMA_GROUP_SYNC of the MPI_Win_complete whose ENTER is event i of location l (its window), AN_NO_EV none. */
static uint64_t complete_sync(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    uint64_t leave = an_leave(c, l, i);
    for (uint64_t j = i; j < L->n && (leave == AN_NO_EV || j <= leave); j++)
        if (L->ev[j].kind == ST_EV_RMA_GROUP_SYNC && L->ev[j].op == ST_PSCW_COMPLETE)
            return j;
    return AN_NO_EV;
}

/* The latest RMA_GROUP_SYNC of kind op on the window of event w before event i of location l, AN_NO_EV none. */
static uint64_t sync_before(const an_ctx_t *c, uint32_t l, uint64_t i, const st_event_t *w, unsigned op)
{
    const st_event_t *ev = c->in->locs[l].ev;
    for (uint64_t j = i; j-- > 0;)
        if (ev[j].kind == ST_EV_RMA_GROUP_SYNC && ev[j].op == op && ev[j].comm == w->comm && ev[j].tag == w->tag)
            return j;
    return AN_NO_EV;
}

uint64_t an_pscw_post(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    uint64_t p = sync_before(c, l, i, &c->in->locs[l].ev[i], ST_PSCW_POST);
    return p == AN_NO_EV ? AN_NO_TIME : an_call_time(c, l, p);
}

uint64_t an_pscw_lastop(const an_ctx_t *c, uint32_t l, uint64_t i, int32_t target)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    uint64_t sync = complete_sync(c, l, i);
    if (sync == AN_NO_EV)
        return AN_NO_TIME;
    const st_event_t *w = &L->ev[sync];
    for (uint64_t j = i; j-- > 0;) { /* back to the epoch's start: the latest operation issued to target */
        const st_event_t *e = &L->ev[j];
        if (e->comm != w->comm || e->tag != w->tag)
            continue;
        if (e->kind == ST_EV_RMA_GROUP_SYNC && e->op == ST_PSCW_START)
            break;
        if (st_event_is_rma_op(e->kind) && e->peer == target) {
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

int an_pscw_push_send(an_ctx_t *c, an_send_t x)
{
    an_msgs_t *m = &c->msgs;
    if (st_mem_grow((void **)&m->pscw_send, &m->pscw_send_cap, m->npscw_send + 1, sizeof *m->pscw_send))
        return -1;
    m->pscw_send[m->npscw_send++] = x;
    return 0;
}

int an_pscw_from_graph(an_ctx_t *c, const st_rel_graph_t *g)
{
    for (uint32_t l = 0; l < g->nlocs; l++)
        for (uint64_t k = g->port_first[l]; k < g->port_first[l + 1]; k++) {
            const st_rel_port_t *p = &g->ports[k];
            const st_rel_inst_t *in = &g->inst[p->inst];
            if (st_rel_inst_type(in) != ST_REL_KEY_RMA_PSCW || in->nsend != 1 || in->nrecv != 1)
                continue;
            const st_rel_ref_t *s = &g->refs[in->first], *r = s + 1;
            if (p->role == ST_REL_RECV) {
                an_pscw_t x = { r->loc, r->ev, an_call_time(c, s->loc, s->ev),
                                an_pscw_lastop(c, s->loc, s->ev, c->in->locs[r->loc].rank) };
                if (an_pscw_push(c, x))
                    return -1;
            } else if (an_pscw_push_send(c, (an_send_t){ s->loc, s->ev, an_pscw_post(c, r->loc, r->ev) }))
                return -1;
        }
    return 0;
}

static int cmp_pscw_send(const void *a, const void *b)
{
    const an_send_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* Late Post of one access epoch, closed by the MPI_Win_complete whose ENTER is event i of location l,
 * whose last target posted at `post`: charged to the call of the epoch that was open then. */
static void late_post(an_ctx_t *c, uint32_t l, uint64_t i, uint64_t post)
{
    uint64_t sync = complete_sync(c, l, i);
    if (sync == AN_NO_EV)
        return;
    uint64_t enter = an_time(c, l, i), leave = an_leave_time(c, l, i);
    if (post > enter) { /* the complete waited for it */
        an_add(c, ST_AN_M_RMA_SYNC_LATE_POST, l, i, (double)((post < leave ? post : leave) - enter));
        return;
    }
    const st_event_t *w = &c->in->locs[l].ev[sync];
    uint64_t start = sync_before(c, l, i, w, ST_PSCW_START);
    if (start == AN_NO_EV)
        return;
    for (uint64_t j = start; j < i; j++) { /* the start (it may block), else the operation open then */
        const st_event_t *e = &c->in->locs[l].ev[j];
        if (j != start && !(st_event_is_rma_op(e->kind) && e->comm == w->comm && e->tag == w->tag))
            continue;
        uint64_t call = an_call(c, l, j);
        if (call == AN_NO_EV)
            continue;
        uint64_t b = an_time(c, l, call);
        if (b <= post && post < an_leave_time(c, l, call)) {
            an_add(c, j == start ? ST_AN_M_RMA_SYNC_LATE_POST : ST_AN_M_RMA_COMM_LATE_POST, l, call, (double)(post - b));
            return;
        }
    }
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
    if (m->npscw_send > 1)
        qsort(m->pscw_send, m->npscw_send, sizeof *m->pscw_send, cmp_pscw_send);
    for (size_t i = 0, j; i < m->npscw_send; i = j) { /* one access epoch: the posts of all its targets */
        uint64_t post = 0;
        for (j = i; j < m->npscw_send && m->pscw_send[j].loc == m->pscw_send[i].loc && m->pscw_send[j].ev == m->pscw_send[i].ev; j++)
            if (m->pscw_send[j].t_post != AN_NO_TIME && m->pscw_send[j].t_post > post)
                post = m->pscw_send[j].t_post;
        if (post)
            late_post(c, m->pscw_send[i].loc, m->pscw_send[i].ev, post);
    }
    return 0;
}
