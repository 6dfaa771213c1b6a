/*
 * derive_lock.c — passive-target lock epochs (locks.h): the table of epochs, their order at each
 * target, and the relations between consecutive phases (derive.c calls rel_lock_finish).
 *
 * An epoch is found on its location: RMA_REQUEST_LOCK (at MPI_Win_lock(_all)'s enter; peer -1:
 * every target), its tickets (RMA_ACQUIRE_LOCK as the lock call returned, one per target on the
 * origin's machine), the RMA operations of the same window to its target and their completions at it
 * (RMA_OP_COMPLETE_REMOTE: a flush, or the unlock), RMA_RELEASE_LOCK (at the unlock's return; the
 * unlock call's ENTER is the latest ENTER before it). An MPI_Win_lock epoch without an operation to
 * its target is kept only with a ticket: MPI lets such an epoch never acquire the lock, but a ticket is
 * taken only where MPI_Win_lock returns holding it (lock_ticket.c), so that epoch held the lock and may
 * have made others wait. (A lock_all's targets without an operation stay out: its ticket there is
 * shared and conflicts only with exclusive epochs, which rarely meet it, and a window of many ranks
 * would add an epoch per rank.)
 *
 * The relation of phase p to phase p + 1 at a (window, target), for every epoch A of p and B of
 * p + 1: the ENTER of A's MPI_Win_unlock -> B's RMA_ACQUIRE_LOCK where tickets ordered them, else
 * B's RMA_RELEASE_LOCK (kind P2P: one send, one receive; key (origin A << 32 | origin B, window, k:
 * the k-th relation of those two origins at the window in the table's order)).
 */
#include "derive_int.h"
#include "locks.h"
#include "../util/u64map.h"

enum { LOCK_EXCLUSIVE = 0 }; /* OTF2_LOCK_EXCLUSIVE, kept numeric: no OTF2 header here */

/* An epoch open on a location while its events are read. */
typedef struct open_ep {
    uint32_t comm, win;
    int32_t  peer;    /* target (world rank), -1 every target (lock_all) */
    uint8_t  excl;
    uint8_t  used;    /* an operation to peer was issued (single target) */
    uint64_t held;    /* 1 + the last event that proves the lock held: an operation of the epoch
                         completed at the target (a flush), 0 none */
    uint64_t ticket;  /* single target: its ticket, 0 none */
    uint64_t acq;     /* and its RMA_ACQUIRE_LOCK event */
    int32_t *tgt;     /* lock_all: the targets operations went to (may repeat) */
    size_t   ntgt, cap;
    struct tk { int32_t target; uint64_t ticket, ev; } *tk; /* lock_all: the tickets taken, one per target */
    size_t   ntk, tkcap;
} open_ep_t;

typedef struct { open_ep_t *v; size_t n, cap; } openvec_t;

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static open_ep_t *find_open(openvec_t *o, const st_event_t *e, int any_target)
{
    for (size_t k = o->n; k-- > 0;) {
        open_ep_t *x = &o->v[k];
        if (x->comm == e->comm && x->win == (uint32_t)e->tag && (x->peer == e->peer || (any_target && x->peer < 0)))
            return x;
    }
    return NULL;
}

/* The epoch's place in its target's order: the unlock's ENTER if the lock was held before it (a flush
 * completed an operation at the target), else its return. */
static int add_epoch(st_rel_lockvec_t *out, uint64_t win, const st_rel_loc_t *L, uint32_t l, uint64_t enter,
                     uint64_t rel, int32_t target, uint8_t excl, int held, uint64_t ticket, uint64_t acq)
{
    st_rel_lock_epoch_t x = { .win = win, .t = L->ev[held ? enter : rel].time,
                              .enter = enter, .release = rel, .acquire = acq, .target = target, .origin = L->rank,
                              .loc = l, .ticket = ticket, .excl = excl };
    return PUSH(*out, x);
}

/* A lock_all epoch's ticket at target (0 none) and its event. */
static uint64_t ticket_of(const open_ep_t *x, int32_t target, uint64_t *ev)
{
    for (size_t k = 0; k < x->ntk; k++)
        if (x->tk[k].target == target)
            return *ev = x->tk[k].ev, x->tk[k].ticket;
    return *ev = NO_EV, 0;
}

/* An unlock: the epoch it closes goes to out (one entry per target with operations). */
static int close_epoch(const st_rel_input_t *in, const st_rel_proc_t *p, openvec_t *o, open_ep_t *x, uint32_t l,
                       uint64_t enter, uint64_t rel, st_rel_lockvec_t *out)
{
    const st_rel_loc_t *L = &in->locs[l];
    int rc = 0;
    if (enter != NO_EV && x->comm < p->ncomms) {
        uint64_t win = st_rel_win_key(p->comms[x->comm].key, x->win);
        int held = x->held && x->held - 1 < enter;
        if (x->peer >= 0 && (x->used || x->ticket))
            rc = add_epoch(out, win, L, l, enter, rel, x->peer, x->excl, held, x->ticket, x->acq);
        if (x->peer < 0 && x->ntgt) {
            qsort(x->tgt, x->ntgt, sizeof *x->tgt, cmp_i32);
            for (size_t k = 0; rc == 0 && k < x->ntgt; k++)
                if (k == 0 || x->tgt[k] != x->tgt[k - 1]) {
                    uint64_t acq, ticket = ticket_of(x, x->tgt[k], &acq);
                    rc = add_epoch(out, win, L, l, enter, rel, x->tgt[k], x->excl, held, ticket, acq);
                }
        }
    }
    st_mem_free(x->tgt);
    st_mem_free(x->tk);
    *x = o->v[--o->n];
    return rc;
}

/* The target (world rank) of an operation's matching id (rma.c: window rank << 40 | number), -1 unknown. */
static int32_t id_target(const st_rel_proc_t *p, const st_event_t *e)
{
    const st_comm_def_t *d = e->comm < p->ncomms ? &p->comms[e->comm] : NULL;
    uint64_t t = e->id >> 40;
    return d && d->world && t < d->size ? d->world[t] : -1;
}

static int loc_epochs(const st_rel_input_t *in, const st_rel_proc_t *p, uint32_t l, st_rel_lockvec_t *out)
{
    const st_rel_loc_t *L = &in->locs[l];
    openvec_t o = { 0 };
    uint64_t enter = NO_EV;
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < L->n; i++) {
        const st_event_t *e = &L->ev[i];
        open_ep_t *x;
        if (e->kind == ST_EV_ENTER) {
            enter = i;
        } else if (e->kind == ST_EV_RMA_REQUEST_LOCK && e->comm != ST_NO_COMM) {
            open_ep_t y = { .comm = e->comm, .win = (uint32_t)e->tag, .peer = e->peer < 0 ? -1 : e->peer,
                            .excl = e->op == LOCK_EXCLUSIVE };
            rc = PUSH(o, y);
        } else if (st_event_is_rma_op(e->kind) && (x = find_open(&o, e, 1))) {
            if (x->peer >= 0)
                x->used = 1;
            else if (!x->ntgt || x->tgt[x->ntgt - 1] != e->peer) /* (operations mostly repeat a target) */
                rc = st_mem_grow((void **)&x->tgt, &x->cap, x->ntgt + 1, sizeof *x->tgt) ? -1
                                                                                         : (x->tgt[x->ntgt++] = e->peer, 0);
        } else if (e->kind == ST_EV_RMA_OP_COMPLETE_REMOTE && e->comm != ST_NO_COMM) {
            st_event_t t = { .comm = e->comm, .tag = e->tag, .peer = id_target(p, e) };
            if (t.peer >= 0 && (x = find_open(&o, &t, 1)))
                x->held = i + 1;
        } else if (e->kind == ST_EV_RMA_ACQUIRE_LOCK && e->id && (x = find_open(&o, e, 1))) {
            if (x->peer >= 0)
                x->ticket = e->id, x->acq = i;
            else
                rc = st_mem_grow((void **)&x->tk, &x->tkcap, x->ntk + 1, sizeof *x->tk)
                         ? -1 : (x->tk[x->ntk++] = (struct tk){ e->peer, e->id, i }, 0);
        } else if (e->kind == ST_EV_RMA_RELEASE_LOCK && (x = find_open(&o, e, 0))) {
            rc = close_epoch(in, p, &o, x, l, enter, i, out);
        }
    }
    for (size_t k = 0; k < o.n; k++) /* never unlocked (a run cut short) */
        st_mem_free(o.v[k].tgt), st_mem_free(o.v[k].tk);
    st_mem_free(o.v);
    return rc;
}

int st_rel_lock_epochs(const st_rel_input_t *in, int32_t rank, st_rel_lockvec_t *out)
{
    const st_rel_proc_t *p = in->procs && rank >= 0 && rank < in->nranks ? &in->procs[rank] : NULL;
    uint32_t wins = 0;
    for (uint32_t k = 0; p && p->comms && k < p->ncomms; k++)
        wins += p->comms[k].nwins;
    if (!wins) /* no window: no sweep over the events */
        return 0;
    int rc = 0;
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++)
        if (in->locs[l].rank == rank)
            rc = loc_epochs(in, p, l, out);
    return rc;
}

static int cmp_epoch(const void *a, const void *b)
{
    const st_rel_lock_epoch_t *x = a, *y = b;
    int r;
    if ((r = cmp_u64(x->win, y->win)) || (r = cmp_u64((uint32_t)x->target, (uint32_t)y->target)) ||
        (r = cmp_u64(x->t, y->t)) || (r = cmp_u64((uint32_t)x->origin, (uint32_t)y->origin)) ||
        (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->release, y->release);
}

/* Within one (window, target) whose epochs all have tickets: by the tickets (each unique at a target). */
static int cmp_ticket(const void *a, const void *b)
{
    const st_rel_lock_epoch_t *x = a, *y = b;
    int r = cmp_u64(x->ticket, y->ticket);
    return r ? r : cmp_epoch(a, b);
}

static int same_target(const st_rel_lock_epoch_t *x, const st_rel_lock_epoch_t *y)
{
    return x->win == y->win && x->target == y->target;
}

void st_rel_lock_order(st_rel_lock_epoch_t *v, size_t n)
{
    sort(v, n, sizeof *v, cmp_epoch);
    for (size_t s = 0, e; s < n; s = e) { /* each (window, target): by the tickets if all have one */
        int all = 1;
        for (e = s; e < n && same_target(&v[e], &v[s]); e++)
            all &= v[e].ticket != 0;
        if (all)
            sort(v + s, e - s, sizeof *v, cmp_ticket);
        for (size_t i = s; i < e; i++)
            v[i].by_ticket = (uint8_t)all;
    }
    for (size_t i = 0; i < n; i++) /* a new phase at each conflict: either epoch exclusive */
        v[i].phase = i && same_target(&v[i], &v[i - 1]) ? v[i - 1].phase + (v[i].excl || v[i - 1].excl) : 0;
}

int st_rel_input_lock_order(st_rel_input_t *in)
{
    st_rel_lockvec_t v = { 0 };
    int rc = 0;
    for (int32_t r = 0; rc == 0 && r < in->nranks; r++)
        rc = st_rel_lock_epochs(in, r, &v);
    if (rc) {
        st_mem_free(v.v);
        return -1;
    }
    st_rel_input_lock_take(in, v.v, v.n);
    return 0;
}

void st_rel_input_lock_take(st_rel_input_t *in, st_rel_lock_epoch_t *v, size_t n)
{
    st_rel_lock_order(v, n);
    if (in->locks != v)
        st_mem_free(in->locks);
    in->locks = v;
    in->nlocks = v ? n : 0;
}

void st_rel_input_lock_keep_ticketed(st_rel_input_t *in)
{
    size_t m = 0;
    for (size_t i = 0; i < in->nlocks; i++)
        if (in->locks[i].by_ticket)
            in->locks[m++] = in->locks[i];
    in->nlocks = m;
}

/* ---- the relations ------------------------------------------------------------------------- */

/* The relation of epoch a to epoch b, the k-th of the pair's origins at this window (k numbers them like
 * a channel's messages: the parallel correction matches a partner's by it). */
static int emit_pair(ctx_t *c, const st_rel_lock_epoch_t *t, size_t a, size_t b, uint64_t k, uint8_t role)
{
    const st_rel_lock_epoch_t *x = &t[role == ST_REL_SEND ? a : b];
    if (x->loc >= c->in->nlocs || c->in->locs[x->loc].rank != c->rank)
        return 0;
    const st_rel_loc_t *L = &c->in->locs[x->loc];
    /* ordered by the tickets: the later epoch's lock return (its ticket's record) already came after the
     * earlier one's unlock began; else only its unlock's return is known to */
    uint64_t ev = role == ST_REL_SEND ? x->enter : x->by_ticket ? x->acquire : x->release;
    if (ev >= L->n)
        return 0;
    uint64_t pair = (uint64_t)(uint32_t)t[a].origin << 32 | (uint32_t)t[b].origin;
    return emit(c, key0(ST_REL_KEY_RMA_LOCK, 0), pair, x->win, k, x->loc, ev, L->ev[ev].time, role,
                ST_REL_P2P, ST_REL_PRODUCT, pair_mask(c->in, t[a].origin, t[b].origin), 0);
}

int rel_lock_finish(ctx_t *c)
{
    const st_rel_lock_epoch_t *t = c->in->locks;
    size_t n = c->in->nlocks;
    if (!t || n >= UINT32_MAX)
        return 0;
    /* runs of one phase: [ps, s) the previous (same target), [s, e) this one; count: per pair of
     * origins, the relations so far at the window (every process counts all, in the table's order) */
    size_t ps = 0;
    int rc = 0;
    st_u64map_t count = { 0 };
    for (size_t s = 0, e; rc == 0 && s < n; s = e) {
        for (e = s + 1; e < n && same_target(&t[e], &t[s]) && t[e].phase == t[s].phase;)
            e++;
        if (s > 0 && t[s].win != t[s - 1].win)
            st_u64map_free(&count);
        int prev = s > 0 && same_target(&t[s - 1], &t[s]);
        for (size_t b = s; prev && rc == 0 && b < e; b++)
            for (size_t a = ps; rc == 0 && a < s; a++) {
                uint64_t pair = (uint64_t)(uint32_t)t[a].origin << 32 | (uint32_t)t[b].origin, k = 0;
                st_u64map_get(&count, pair, &k);
                rc = st_u64map_put(&count, pair, k + 1);
                if (rc == 0 && t[a].origin == c->rank)
                    rc = emit_pair(c, t, a, b, k, ST_REL_SEND);
                if (rc == 0 && t[b].origin == c->rank)
                    rc = emit_pair(c, t, a, b, k, ST_REL_RECV);
            }
        ps = s;
    }
    st_u64map_free(&count);
    return rc;
}
