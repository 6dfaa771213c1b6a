/*
 * derive_rma.c — the logical messages of MPI one-sided communication (derive.c's scan).
 *
 * The collectives on a window — its creation, MPI_Win_fence, its release — are N-to-N
 * instances over the window's communicator, as a barrier is: each member's RMA_COLL_BEGIN
 * (recorded at the call's ENTER time, before PMPI) is a send, its RMA_COLL_END a receive, so
 * every member's end waits for every other member's begin.
 *
 * A window is what the events name (events.def: comm, the communicator's local index, and
 * tag, the window's number among those created on it). Its collectives are numbered 0, 1, ...
 * per window in the process's time order (its threads read one clock): every member calls a
 * window's collectives in the same order and never two at once on one window, so the k-th of a
 * window on one member meets the k-th on every other member — a key from local information
 * only, (comm key, window number, k).
 *
 * A fence that only opens an epoch (MPI_MODE_NOPRECEDE: recorded with sync level MEMORY,
 * without PROCESS) need not synchronize the processes (MPI-3.1, 11.5.1: it does not
 * necessarily act as a barrier), so it relates nothing; it still takes its number. Creation
 * and release always synchronize (every member needs the others' windows; the release waits
 * until every member released it).
 */
#include "derive_int.h"

/* OTF2 values, kept numeric so that the relations need no OTF2 header. */
enum { OP_BARRIER = 0, OP_CREATE_HANDLE = 17, OP_DESTROY_HANDLE = 18 };
enum { SYNC_LEVEL_PROCESS = 1 };

int rel_rma_coll_end(ctx_t *c, rmacollvec_t *v, uint32_t l, uint64_t i, uint64_t *begin, uint64_t enter)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    rma_coll_t x = { .comm = e->comm, .win = (uint32_t)e->tag, .loc = l, .time = e->time,
                     .send = *begin != NO_EV ? *begin : enter, .recv = i };
    *begin = NO_EV;
    if (e->comm == ST_NO_COMM) /* a window the recorder did not know */
        return 0;
    return PUSH(*v, x);
}

/* The order in which a window's collectives are numbered. */
static int cmp_rma_time(const void *a, const void *b)
{
    const rma_coll_t *x = a, *y = b;
    int r;
    if ((r = cmp_u64(x->comm, y->comm)) || (r = cmp_u64(x->win, y->win)) || (r = cmp_u64(x->time, y->time)) ||
        (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->recv, y->recv);
}

/* The join's order of their endpoints (key: seq, comm key, window; then location and event). */
static int cmp_rma_key(const void *a, const void *b)
{
    const rma_coll_t *x = a, *y = b;
    int r;
    if ((r = cmp_u64(x->seq, y->seq)) || (r = cmp_u64(x->key, y->key)) || (r = cmp_u64(x->win, y->win)) ||
        (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->recv, y->recv);
}

/* Whether a window collective synchronizes its members (see the top). */
static int rma_coll_syncs(const st_event_t *e)
{
    if (e->op == OP_CREATE_HANDLE || e->op == OP_DESTROY_HANDLE)
        return 1;
    return e->op == OP_BARRIER && (e->bytes & SYNC_LEVEL_PROCESS);
}

int rel_rma_finish(ctx_t *c, rmacollvec_t *v)
{
    sort(v->v, v->n, sizeof *v->v, cmp_rma_time);
    for (size_t k = 0; k < v->n; k++) /* numbered per window */
        v->v[k].seq = k && v->v[k].comm == v->v[k - 1].comm && v->v[k].win == v->v[k - 1].win ? v->v[k - 1].seq + 1 : 0;
    size_t n = 0;
    for (size_t k = 0; k < v->n; k++) { /* only those that relate stay, with their communicator's key */
        rma_coll_t x = v->v[k];
        const st_comm_def_t *d;
        if (!rma_coll_syncs(&c->in->locs[x.loc].ev[x.recv]) || !(d = comm_def(c, x.comm)))
            continue;
        x.key = d->key;
        c->ds->no_begin += x.send == NO_EV;
        v->v[n++] = x;
    }
    sort(v->v, n, sizeof *v->v, cmp_rma_key);
    uint64_t k0 = key0(ST_REL_KEY_RMA_COLL, 0);
    for (size_t k = 0; k < n; k++) {
        const rma_coll_t *x = &v->v[k];
        const nodeset_t *ns = rel_comm_nodes(c, x->comm, &c->proc->comms[x->comm]);
        if (!ns)
            return -1;
        uint8_t mask = rel_nodeset_mask_all(ns);
        const st_rel_loc_t *L = &c->in->locs[x->loc];
        if (x->send != NO_EV && emit(c, k0, x->seq, x->key, x->win, x->loc, x->send, L->ev[x->send].time, ST_REL_SEND,
                                     ST_REL_COLL, ST_REL_PRODUCT, mask, 0))
            return -1;
        if (emit(c, k0, x->seq, x->key, x->win, x->loc, x->recv, L->ev[x->recv].time, ST_REL_RECV, ST_REL_COLL,
                 ST_REL_PRODUCT, mask, 0))
            return -1;
    }
    return 0;
}
