/*
 * derive_pscw.c — the logical messages of general active target synchronization on a window
 * (MPI_Win_post, _start, _complete, _wait / _test; derive.c's scan).
 *
 * What MPI guarantees (MPI-3.1, 11.5.2): MPI_Win_wait "will block until all matching calls to
 * MPI_Win_complete have occurred", the calls of every origin the post granted access to; the
 * k-th access epoch of an origin that names a target matches the k-th exposure epoch of that target
 * that names the origin. So each origin's MPI_Win_complete (its ENTER: the call has occurred once
 * it began) is a logical send to each target of its start's group, received by the target's
 * MPI_Win_wait (its RMA_GROUP_SYNC, recorded when the call returned; MPI_Win_test only when it
 * returned true).
 *
 * MPI_Win_start may return before the matching MPI_Win_post (it is allowed to block, not required
 * to): post -> start is made true by the recorder (src/mpi/rma.c), whose post sends each origin of
 * its group a note after recording its RMA_GROUP_SYNC and whose start records its own only once
 * the note of every target of its group came. Both record the notes right after their
 * RMA_GROUP_SYNC (and its members), at its time, in the group's order: an RMA_SYNC NOTIFY_OUT per
 * origin notified, a NOTIFY_IN per target whose note came. So a post's NOTIFY_OUT to an origin is
 * a logical send, received by the origin's start's NOTIFY_IN from that target. The ends are
 * numbered as the complete's and the wait's, per (window, origin, target) over every post and
 * start (with or without notes), so that the k-th of each side still meet; only where both
 * notes are recorded do they relate (with MPI_MODE_NOCHECK, on a window one side did not know, a
 * note that did not come in time, or an archive recorded without notes: no relation).
 *
 * The groups are the rank's (st_rel_proc_t.groups, world ranks). A window's synchronizations are
 * taken in the process's time order (its threads read one clock; MPI allows one access and one
 * exposure epoch per window at a time): a complete closes the latest start's epoch, a wait the
 * latest post's. The pair's epochs are numbered 0, 1, ... per (window, origin, target) on both
 * sides from local information only: key (origin << 32 | target, window, k).
 */
#include "derive_int.h"


/* One end of an origin-target pair's epoch. */
typedef struct pscw_end {
    uint32_t comm, win, loc;
    int32_t  other;     /* the target (a send) or the origin (a receive), world rank; post -> start: the reverse */
    uint8_t  role;
    uint8_t  related;   /* post -> start: both sides notified (else numbered only) */
    uint64_t time, ev;
    uint64_t k;
} pscw_end_t;

typedef struct { pscw_end_t *v; size_t n, cap; } pscwendvec_t;

int rel_pscw_event(ctx_t *c, pscwvec_t *v, uint32_t l, uint64_t i, uint64_t enter)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    if (e->comm == ST_NO_COMM || e->op < ST_PSCW_POST || e->op > ST_PSCW_WAIT)
        return 0;
    pscw_item_t x = { .comm = e->comm, .win = (uint32_t)e->tag, .loc = l, .op = e->op, .time = e->time, .ev = i,
                      .end = e->op == ST_PSCW_COMPLETE && enter != NO_EV ? enter : i, .group = e->id };
    return PUSH(*v, x);
}

static int cmp_item(const void *a, const void *b)
{
    const pscw_item_t *x = a, *y = b;
    int r;
    if ((r = cmp_u64(x->comm, y->comm)) || (r = cmp_u64(x->win, y->win)) || (r = cmp_u64(x->time, y->time)) ||
        (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->ev, y->ev);
}

/* The order in which a pair's ends are numbered. */
static int cmp_end(const void *a, const void *b)
{
    const pscw_end_t *x = a, *y = b;
    int r;
    if ((r = cmp_u64(x->comm, y->comm)) || (r = cmp_u64(x->win, y->win)) || (r = cmp_u64(x->role, y->role)) ||
        (r = cmp_u64((uint32_t)x->other, (uint32_t)y->other)) || (r = cmp_u64(x->time, y->time)) ||
        (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->ev, y->ev);
}

/* Past event i of location l and the buffer flushes after it: the next event (NO_EV: none). */
static uint64_t next_event(const ctx_t *c, uint32_t l, uint64_t i)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    for (i++; i < L->n; i++)
        if (!((L->ev[i].kind == ST_EV_ENTER || L->ev[i].kind == ST_EV_LEAVE) && L->ev[i].region == REL_REGION_FLUSH))
            return i;
    return NO_EV;
}

static const st_group_def_t *group_of(const ctx_t *c, uint64_t id)
{
    return id && c->proc->groups && id <= c->proc->ngroups ? &c->proc->groups[id - 1] : NULL;
}

/* The ends of item x (a complete: one per target of the epoch's start; a wait: one per origin of the
 * post; a post: one per origin of its group; a start: one per target of its group). */
static int item_ends(ctx_t *c, const pscw_item_t *x, uint64_t group, pscwendvec_t *ends)
{
    const st_group_def_t *g = group_of(c, group);
    int opens = x->op == ST_PSCW_POST || x->op == ST_PSCW_START;
    uint16_t note = x->op == ST_PSCW_POST ? ST_RMA_SYNC_NOTIFY_OUT : ST_RMA_SYNC_NOTIFY_IN;
    uint64_t n = opens ? next_event(c, x->loc, x->ev) : NO_EV; /* the call's next note, in the group's order */
    for (uint32_t m = 0; g && m < g->size; m++) {
        pscw_end_t e = { .comm = x->comm, .win = x->win, .loc = x->loc, .other = g->world[m],
                         .role = x->op == ST_PSCW_COMPLETE || x->op == ST_PSCW_POST ? ST_REL_SEND : ST_REL_RECV,
                         .time = x->time, .ev = x->end };
        const st_event_t *ne = n != NO_EV ? &c->in->locs[x->loc].ev[n] : NULL;
        if (ne && ne->kind == ST_EV_RMA_SYNC && ne->op == note && ne->comm == x->comm && (uint32_t)ne->tag == x->win &&
            ne->peer == g->world[m]) {
            e.related = 1;
            e.ev = n;
            n = next_event(c, x->loc, n);
        }
        if (PUSH(*ends, e))
            return -1;
    }
    return 0;
}

/* The ends numbered per (window, role, partner) in time order, emitted as key type `type`; the sender
 * is the origin (complete -> wait), or the target (reversed: post -> start, whose ends are emitted
 * only where related). */
static int emit_ends(ctx_t *c, pscwendvec_t *ends, unsigned type, int reversed)
{
    sort(ends->v, ends->n, sizeof *ends->v, cmp_end);
    uint64_t k0 = key0(type, 0);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < ends->n; i++) {
        pscw_end_t *e = &ends->v[i];
        const pscw_end_t *p = i ? &ends->v[i - 1] : NULL;
        e->k = p && p->comm == e->comm && p->win == e->win && p->role == e->role && p->other == e->other ? p->k + 1 : 0;
        const st_comm_def_t *d = comm_def(c, e->comm);
        if (!d || (reversed && !e->related))
            continue;
        /* sender << 32 | receiver, as a message's (the parallel correction reads who sends from it) */
        int32_t from = e->role == ST_REL_SEND ? c->rank : e->other, to = e->role == ST_REL_SEND ? e->other : c->rank;
        uint64_t pair = (uint64_t)(uint32_t)from << 32 | (uint32_t)to;
        rc = emit(c, k0, pair, st_rel_win_key(d->key, e->win), e->k, e->loc, e->ev, c->in->locs[e->loc].ev[e->ev].time,
                  e->role, ST_REL_P2P, ST_REL_PRODUCT, pair_mask(c->in, from, to), 0);
    }
    return rc;
}

int rel_pscw_finish(ctx_t *c, pscwvec_t *v)
{
    if (v->n == 0)
        return 0;
    sort(v->v, v->n, sizeof *v->v, cmp_item);
    pscwendvec_t ends = { 0 }, opens = { 0 };
    uint64_t post = 0, start = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < v->n; i++) {
        const pscw_item_t *x = &v->v[i];
        if (i == 0 || x->comm != v->v[i - 1].comm || x->win != v->v[i - 1].win)
            post = start = 0;
        if (x->op == ST_PSCW_POST)
            post = x->group;
        else if (x->op == ST_PSCW_START)
            start = x->group;
        rc = x->op == ST_PSCW_POST || x->op == ST_PSCW_START
                 ? item_ends(c, x, x->group, &opens)
                 : item_ends(c, x, x->op == ST_PSCW_COMPLETE ? start : post, &ends);
    }
    if (rc == 0)
        rc = emit_ends(c, &ends, ST_REL_KEY_RMA_PSCW, 0);
    if (rc == 0)
        rc = emit_ends(c, &opens, ST_REL_KEY_RMA_POST, 1);
    st_mem_free(ends.v);
    st_mem_free(opens.v);
    return rc;
}
