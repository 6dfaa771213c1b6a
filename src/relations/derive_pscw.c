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
 * returned true). MPI_Win_start may return before the matching MPI_Win_post (it is allowed to
 * block, not required to), so post -> start relates nothing.
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
    int32_t  other;     /* the target (a send) or the origin (a receive), world rank */
    uint8_t  role;
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

static const st_group_def_t *group_of(const ctx_t *c, uint64_t id)
{
    return id && c->proc->groups && id <= c->proc->ngroups ? &c->proc->groups[id - 1] : NULL;
}

/* The ends of item x (a complete: one per target of the epoch's start; a wait: one per origin of the post). */
static int item_ends(ctx_t *c, const pscw_item_t *x, uint64_t group, pscwendvec_t *ends)
{
    const st_group_def_t *g = group_of(c, group);
    for (uint32_t m = 0; g && m < g->size; m++) {
        pscw_end_t e = { .comm = x->comm, .win = x->win, .loc = x->loc, .other = g->world[m],
                         .role = x->op == ST_PSCW_COMPLETE ? ST_REL_SEND : ST_REL_RECV,
                         .time = x->time, .ev = x->end };
        if (PUSH(*ends, e))
            return -1;
    }
    return 0;
}

int rel_pscw_finish(ctx_t *c, pscwvec_t *v)
{
    if (v->n == 0)
        return 0;
    sort(v->v, v->n, sizeof *v->v, cmp_item);
    pscwendvec_t ends = { 0 };
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
        else
            rc = item_ends(c, x, x->op == ST_PSCW_COMPLETE ? start : post, &ends);
    }
    sort(ends.v, ends.n, sizeof *ends.v, cmp_end);
    uint64_t k0 = key0(ST_REL_KEY_RMA_PSCW, 0);
    for (size_t i = 0; rc == 0 && i < ends.n; i++) {
        pscw_end_t *e = &ends.v[i];
        const pscw_end_t *p = i ? &ends.v[i - 1] : NULL;
        e->k = p && p->comm == e->comm && p->win == e->win && p->role == e->role && p->other == e->other ? p->k + 1 : 0;
        const st_comm_def_t *d = comm_def(c, e->comm);
        if (!d)
            continue;
        int32_t origin = e->role == ST_REL_SEND ? c->rank : e->other, target = e->role == ST_REL_SEND ? e->other : c->rank;
        uint64_t pair = (uint64_t)(uint32_t)origin << 32 | (uint32_t)target;
        rc = emit(c, k0, pair, st_rel_win_key(d->key, e->win), e->k, e->loc, e->ev, c->in->locs[e->loc].ev[e->ev].time,
                  e->role, ST_REL_P2P, ST_REL_PRODUCT, pair_mask(c->in, origin, target), 0);
    }
    st_mem_free(ends.v);
    return rc;
}
