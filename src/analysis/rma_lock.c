/*
 * rma_lock.c — Lock Contention of passive-target epochs (docs/analysis.md, "One-sided communication
 * (RMA)"), over the lock relations (relations/locks.h, derive_lock.c: a lock epoch's MPI_Win_unlock
 * ENTER -> the unlock return of each conflicting epoch of the next phase at the target, or its lock
 * return where tickets ordered the epochs: counted for the epoch all the same). At the
 * later epoch's origin each relation brings the enter of the earlier epoch's unlock, from the graph
 * when that end is analysed here, else from its process (p2p_wire.c, as a message's send time).
 * The lock cannot have passed to the later epoch before that moment: the call of the later epoch
 * open then waited since its enter (mpi_rma_sync_lock_competition at MPI_Win_lock, unlock or a
 * flush, mpi_rma_comm_lock_competition at an RMA operation).
 */
#include "internal.h"

#include <stdlib.h>

#include "../util/mem.h"
#include "call_kinds.h"

/* A relation received at a later epoch's RMA_ACQUIRE_LOCK (epochs ordered by their tickets, derive_lock.c)
 * counts for that epoch: its RMA_RELEASE_LOCK (a lock_all's is one for all its targets), i if none. */
static uint64_t release_of(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    const st_event_t *a = &L->ev[i];
    if (a->kind != ST_EV_RMA_ACQUIRE_LOCK)
        return i;
    for (uint64_t j = i + 1; j < L->n; j++)
        if (L->ev[j].kind == ST_EV_RMA_RELEASE_LOCK && L->ev[j].comm == a->comm && L->ev[j].tag == a->tag &&
            (L->ev[j].peer == a->peer || L->ev[j].peer < 0))
            return j;
    return i;
}

/* The relations into one acquisition (one per epoch of the phase before) come one after another, in
 * event order per location, from both the graph and the in-run join: the release is looked up once
 * for them, not once each (a long epoch after a phase of 3,000 shared ones took 7.9 s of scanning). */
int an_lock_push(an_ctx_t *c, an_lock_t x)
{
    an_msgs_t *m = &c->msgs;
    if (!m->lock_last.valid || m->lock_last.loc != x.loc || m->lock_last.ev != x.ev) {
        m->lock_last.valid = 1, m->lock_last.loc = x.loc, m->lock_last.ev = x.ev;
        m->lock_last.release = release_of(c, x.loc, x.ev);
    }
    x.ev = m->lock_last.release;
    if (st_mem_grow((void **)&m->lock, &m->lock_cap, m->nlock + 1, sizeof *m->lock))
        return -1;
    m->lock[m->nlock++] = x;
    return 0;
}

int an_lock_from_graph(an_ctx_t *c, const st_rel_graph_t *g)
{
    for (uint32_t l = 0; l < g->nlocs; l++)
        for (uint64_t k = g->port_first[l]; k < g->port_first[l + 1]; k++) {
            const st_rel_port_t *p = &g->ports[k];
            const st_rel_inst_t *in = &g->inst[p->inst];
            if (st_rel_inst_type(in) != ST_REL_KEY_RMA_LOCK || in->nsend != 1 || in->nrecv != 1 || p->role != ST_REL_RECV)
                continue;
            const st_rel_ref_t *s = &g->refs[in->first], *r = s + 1;
            if (an_lock_push(c, (an_lock_t){ r->loc, r->ev, an_time(c, s->loc, s->ev) }))
                return -1;
        }
    return 0;
}

static int cmp_lock(const void *a, const void *b)
{
    const an_lock_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The RMA_REQUEST_LOCK that opened the epoch closed by RMA_RELEASE_LOCK i of location l, AN_NO_EV none. */
static uint64_t request_of(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    const st_event_t *ev = c->in->locs[l].ev, *r = &ev[i];
    for (uint64_t j = i; j-- > 0;)
        if (ev[j].kind == ST_EV_RMA_REQUEST_LOCK && ev[j].comm == r->comm && ev[j].tag == r->tag &&
            ev[j].peer == r->peer)
            return j;
    return AN_NO_EV;
}

/* The wait of the epoch closed by RMA_RELEASE_LOCK i of location l until t: at its call open then. */
static void contention(an_ctx_t *c, uint32_t l, uint64_t i, uint64_t t)
{
    uint64_t req = request_of(c, l, i), unlock = an_call(c, l, i);
    uint64_t first = req == AN_NO_EV ? AN_NO_EV : an_call(c, l, req);
    if (first == AN_NO_EV || unlock == AN_NO_EV)
        return;
    for (uint64_t j = first; j <= unlock; j++) {
        if (!an_is_enter(c, l, j))
            continue;
        enum an_call_category cat = an_call_category(an_region(c, l, j));
        if (cat != AN_CAT_RMA_PASSIVE && cat != AN_CAT_RMA_COMM)
            continue;
        uint64_t b = an_time(c, l, j);
        if (b <= t && t < an_leave_time(c, l, j)) {
            an_add(c, cat == AN_CAT_RMA_COMM ? ST_AN_M_RMA_COMM_LOCK_COMP : ST_AN_M_RMA_SYNC_LOCK_COMP, l, j,
                   (double)(t - b));
            return;
        }
    }
}

int an_lock(an_ctx_t *c)
{
    an_msgs_t *m = &c->msgs;
    if (m->nlock > 1)
        qsort(m->lock, m->nlock, sizeof *m->lock, cmp_lock);
    for (size_t i = 0, j; i < m->nlock; i = j) { /* one epoch: the latest of its predecessors' unlocks */
        uint64_t t = 0;
        for (j = i; j < m->nlock && m->lock[j].loc == m->lock[i].loc && m->lock[j].ev == m->lock[i].ev; j++)
            t = m->lock[j].t_unlock > t ? m->lock[j].t_unlock : t;
        contention(c, m->lock[i].loc, m->lock[i].ev, t);
    }
    return 0;
}
