/*
 * derive_coll.c — the collective logical messages of one process (derive.c's scan), and
 * those of MPI_Init / MPI_Finalize.
 *
 *  - blocking collectives: the COLL_BEGIN (recorded just after the ENTER, before the
 *    PMPI call) is the send, the COLL_END (before the LEAVE) the receive: the inner
 *    pair, so a constraint on them also holds for the ENTER and LEAVE around them.
 *  - nonblocking collectives: the ICOLL_REQUEST (recorded at the start of the I-call,
 *    before PMPI) is the send, the ICOLL_COMPLETE the receive (its request may have been
 *    started on another thread: resolved after the scan).
 *  - MPI_Init / MPI_Finalize (in->sync): ENTER send, LEAVE receive, N-to-N over world.
 * Which members of a collective send and which receive follows its class
 * (st_rel_coll_class) and the payload rule (coll_takes_part); mu classes come from the
 * node ids of the communicator's members.
 */
#include "derive_int.h"

/* ---- node sets ------------------------------------------------------------------------------- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

static int nodeset_fill(const st_rel_input_t *in, nodeset_t *ns, const int32_t *a, uint32_t na, const int32_t *b,
                        uint32_t nb)
{
    ns->node = st_mem_malloc(sizeof(int32_t) * (na + nb + 1));
    if (!ns->node)
        return -1;
    for (uint32_t i = 0; i < na; i++)
        ns->node[ns->n++] = node_of(in, a[i]);
    for (uint32_t i = 0; b && i < nb; i++)
        ns->node[ns->n++] = node_of(in, b[i]);
    sort(ns->node, ns->n, sizeof(int32_t), cmp_i32);
    ns->done = 1;
    return 0;
}

/* mu classes of all distinct pairs of members. */
uint8_t rel_nodeset_mask_all(const nodeset_t *ns)
{
    uint8_t m = 0;
    for (uint32_t i = 1; i < ns->n; i++)
        if (ns->node[i] == ns->node[i - 1])
            m |= ST_REL_MU_INTRA;
    if (ns->n > 1 && ns->node[0] != ns->node[ns->n - 1])
        m |= ST_REL_MU_INTER;
    return m;
}

/* First index in the sorted set whose node is > v (upper != 0) or >= v (upper == 0). */
static uint32_t nodeset_bound(const nodeset_t *ns, int32_t v, int upper)
{
    uint32_t lo = 0, hi = ns->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ns->node[mid] < v || (upper && ns->node[mid] == v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* mu classes of the pairs (root, other member). */
static uint8_t nodeset_mask_rooted(const nodeset_t *ns, int32_t root_node)
{
    uint32_t same = nodeset_bound(ns, root_node, 1) - nodeset_bound(ns, root_node, 0);
    return (uint8_t)((same >= 2 ? ST_REL_MU_INTRA : 0) | (same < ns->n ? ST_REL_MU_INTER : 0));
}

/* ---- collectives ---------------------------------------------------------------------------- */

/* OTF2_CollectiveOp values (OTF2_Events.h), kept numeric so this file needs no OTF2 header. */
enum st_rel_coll_class st_rel_coll_class(unsigned op)
{
    switch (op) {
    case 0: /* BARRIER */
    case 6: case 7: /* ALLGATHER(V) */
    case 8: case 9: case 10: /* ALLTOALL(V,W) */
    case 11: /* ALLREDUCE */
    case 13: case 16: /* REDUCE_SCATTER(_BLOCK) */
        return ST_REL_CC_N2N;
    case 1: case 4: case 5: /* BCAST, SCATTER(V) */
        return ST_REL_CC_ONE2N;
    case 2: case 3: case 12: /* GATHER(V), REDUCE */
        return ST_REL_CC_N2ONE;
    case 14: case 15: /* SCAN, EXSCAN */
        return ST_REL_CC_PREFIX;
    default: /* handle creation/destruction, allocation: no data, no guaranteed order */
        return ST_REL_CC_NONE;
    }
}

static int32_t min_rank(const int32_t *w, uint32_t n)
{
    int32_t m = INT32_MAX;
    for (uint32_t i = 0; w && i < n; i++)
        if (w[i] < m)
            m = w[i];
    return m;
}

static int32_t comm_rank_of(const st_comm_def_t *d, int32_t world)
{
    for (uint32_t i = 0; d->world && i < d->size; i++)
        if (d->world[i] == world)
            return (int32_t)i;
    return -1;
}

const nodeset_t *rel_comm_nodes(ctx_t *c, uint32_t comm, const st_comm_def_t *d)
{
    nodeset_t *ns = &c->comm_nodes[comm];
    if (!ns->done && nodeset_fill(c->in, ns, d->world, d->size, d->remote_world, d->remote_size))
        return NULL;
    return ns;
}

/* One collective operation of one process: its logical send and receive events. */
typedef struct coll_ev {
    uint32_t          send_loc, recv_loc;
    uint64_t          send_ev, recv_ev; /* NO_EV: none */
    const st_event_t *e;                /* the end event: op, comm, root, bytes */
    uint64_t          seq;
} coll_ev_t;

/*
 * The payload rule (docs/clc.md, Decisions 4): a member is a logical send of a collective
 * only if it contributes data (bytes sent > 0), a logical receive only if it gets data
 * (bytes received > 0); a barrier always synchronizes. Count-0 operations of every class
 * and 0-element members of v-collectives thus create no relation, although their events
 * stay in the trace. The recorder counts a process's own block in both figures except
 * with MPI_IN_PLACE (wrappers/mpi_functions.tbl), so a member only looks payload-free
 * when it exchanges nothing with any other member.
 */
static int coll_takes_part(const st_event_t *e, uint8_t role)
{
    if (e->op == 0) /* OTF2_COLLECTIVE_OP_BARRIER */
        return 1;
    return (role == ST_REL_SEND ? e->bytes : e->bytes2) > 0;
}

static int coll_emit_one(ctx_t *c, const coll_ev_t *ce, uint8_t role, uint64_t group, uint8_t shape,
                         uint8_t mask, uint32_t order, uint64_t comm_key)
{
    uint64_t ev = role == ST_REL_SEND ? ce->send_ev : ce->recv_ev;
    uint32_t loc = role == ST_REL_SEND ? ce->send_loc : ce->recv_loc;
    if (ev == NO_EV || !coll_takes_part(ce->e, role))
        return 0;
    return emit(c, key0(ST_REL_KEY_COLL, 0), ce->seq, comm_key, group, loc, ev, c->in->locs[loc].ev[ev].time, role,
                ST_REL_COLL, shape, mask, order);
}

static int coll_intra(ctx_t *c, const coll_ev_t *ce, const st_comm_def_t *d, const nodeset_t *ns)
{
    const st_event_t *e = ce->e;
    enum st_rel_coll_class cc = st_rel_coll_class(e->op);
    int32_t root = e->peer;
    int r = 0;
    switch (cc) {
    case ST_REL_CC_N2N:
        r = coll_emit_one(c, ce, ST_REL_SEND, 0, ST_REL_PRODUCT, rel_nodeset_mask_all(ns), 0, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, 0, ST_REL_PRODUCT, rel_nodeset_mask_all(ns), 0, d->key);
    case ST_REL_CC_PREFIX: {
        int32_t me = comm_rank_of(d, c->rank);
        if (me < 0)
            return 0;
        r = coll_emit_one(c, ce, ST_REL_SEND, 0, ST_REL_PREFIX, rel_nodeset_mask_all(ns), (uint32_t)me, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, 0, ST_REL_PREFIX, rel_nodeset_mask_all(ns), (uint32_t)me, d->key);
    }
    case ST_REL_CC_ONE2N:
    case ST_REL_CC_N2ONE:
        if (root < 0) {
            c->ds->no_root++;
            return 0;
        }
        {
            uint8_t mask = nodeset_mask_rooted(ns, node_of(c->in, root));
            int one2n = cc == ST_REL_CC_ONE2N;
            uint8_t role = (root == c->rank) == one2n ? ST_REL_SEND : ST_REL_RECV;
            return coll_emit_one(c, ce, role, 0, ST_REL_PRODUCT, mask, 0, d->key);
        }
    default:
        return 0;
    }
}

/* Intercommunicators: data flows between the groups; the receiving group names the instance. */
static int coll_inter(ctx_t *c, const coll_ev_t *ce, const st_comm_def_t *d, const nodeset_t *ns)
{
    const st_event_t *e = ce->e;
    enum st_rel_coll_class cc = st_rel_coll_class(e->op);
    uint64_t mine = (uint32_t)min_rank(d->world, d->size), theirs = (uint32_t)min_rank(d->remote_world, d->remote_size);
    uint8_t mask = rel_nodeset_mask_all(ns);
    int r;
    switch (cc) {
    case ST_REL_CC_N2N:
        r = coll_emit_one(c, ce, ST_REL_SEND, theirs, ST_REL_PRODUCT, mask, 0, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, mine, ST_REL_PRODUCT, mask, 0, d->key);
    case ST_REL_CC_ONE2N:
    case ST_REL_CC_N2ONE:
        if (e->peer < 0) /* a non-root member of the root's group: takes no part */
            return 0;
        if (e->peer == c->rank) /* the root */
            return coll_emit_one(c, ce, cc == ST_REL_CC_ONE2N ? ST_REL_SEND : ST_REL_RECV,
                                 cc == ST_REL_CC_ONE2N ? theirs : mine, ST_REL_PRODUCT, mask, 0, d->key);
        return coll_emit_one(c, ce, cc == ST_REL_CC_ONE2N ? ST_REL_RECV : ST_REL_SEND,
                             cc == ST_REL_CC_ONE2N ? mine : theirs, ST_REL_PRODUCT, mask, 0, d->key);
    default:
        return 0; /* no scans on intercommunicators */
    }
}

static int coll_one(ctx_t *c, const coll_ev_t *ce)
{
    const st_event_t *e = ce->e;
    if (st_rel_coll_class(e->op) == ST_REL_CC_NONE)
        return 0;
    const st_comm_def_t *d = comm_def(c, e->comm);
    if (!d)
        return 0;
    const nodeset_t *ns = rel_comm_nodes(c, e->comm, d);
    if (!ns)
        return -1;
    if ((d->flags & ST_COMMF_INTER) || (e->flags & ST_EVF_INTERCOMM))
        return coll_inter(c, ce, d, ns);
    return coll_intra(c, ce, d, ns);
}

static int cmp_icoll(const void *a, const void *b)
{
    return cmp_u64(((const icoll_req_t *)a)->id, ((const icoll_req_t *)b)->id);
}

/* A blocking collective ends: send = its COLL_BEGIN (or the ENTER before it), receive = the end. */
int rel_coll_end(ctx_t *c, uint32_t l, uint64_t i, uint64_t *begin, uint64_t enter)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    coll_ev_t ce = { .send_loc = l, .recv_loc = l, .recv_ev = i, .e = e, .seq = e->id,
                     .send_ev = *begin != NO_EV ? *begin : enter };
    *begin = NO_EV;
    c->ds->no_begin += ce.send_ev == NO_EV;
    return coll_one(c, &ce);
}

/* Nonblocking: send = the ENTER of the I-call that made the request (maybe on another thread). */
int rel_coll_finish(ctx_t *c, icollvec_t *reqs, const icdvec_t *done)
{
    sort(reqs->v, reqs->n, sizeof(icoll_req_t), cmp_icoll);
    for (size_t k = 0; k < done->n; k++) {
        uint32_t l = done->v[k].loc;
        const st_event_t *e = &c->in->locs[l].ev[done->v[k].ev];
        icoll_req_t key = { .id = e->id };
        const icoll_req_t *r = find(&key, reqs->v, reqs->n, sizeof key, cmp_icoll);
        coll_ev_t ce = { .send_loc = r ? r->loc : l, .recv_loc = l, .recv_ev = done->v[k].ev, .e = e,
                         .send_ev = r ? r->enter : NO_EV, .seq = e->aux };
        c->ds->no_begin += ce.send_ev == NO_EV;
        if (coll_one(c, &ce))
            return -1;
    }
    return 0;
}

/* MPI_Init / MPI_Finalize: N-to-N over all ranks; mu classes of all pairs of ranks. */
int rel_sync_prepare(ctx_t *c)
{
    c->sync_lo = UINT32_MAX, c->sync_hi = 0;
    for (uint32_t s = 0; c->in->sync && s < c->in->nsync; s++) {
        c->sync_lo = c->in->sync[s].region < c->sync_lo ? c->in->sync[s].region : c->sync_lo;
        c->sync_hi = c->in->sync[s].region > c->sync_hi ? c->in->sync[s].region : c->sync_hi;
    }
    if (!c->in->nsync || !c->in->sync || c->world_nodes.done)
        return 0;
    int32_t *all = st_mem_malloc(sizeof(int32_t) * (size_t)(c->in->nranks > 0 ? c->in->nranks : 1));
    if (!all)
        return -1;
    for (int32_t r = 0; r < c->in->nranks; r++)
        all[r] = r;
    int rc = nodeset_fill(c->in, &c->world_nodes, all, (uint32_t)(c->in->nranks > 0 ? c->in->nranks : 0), NULL, 0);
    st_mem_free(all);
    return rc;
}

int rel_sync_event(ctx_t *c, const st_event_t *e, uint32_t l, uint64_t i)
{
    for (uint32_t s = 0; s < c->in->nsync; s++)
        if (c->in->sync[s].region == e->region &&
            emit(c, key0(ST_REL_KEY_SYNC, 0), c->in->sync[s].group, 0, 0, l, i, e->time,
                 e->kind == ST_EV_ENTER ? ST_REL_SEND : ST_REL_RECV, ST_REL_COLL, ST_REL_PRODUCT,
                 rel_nodeset_mask_all(&c->world_nodes), 0))
            return -1;
    return 0;
}
