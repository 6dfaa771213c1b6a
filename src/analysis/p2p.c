/*
 * p2p.c — point-to-point patterns (docs/analysis.md, "Metrics") and counts over
 * the messages of the analysed locations (internal.h, an_msgs_t: from the graph's p2p
 * instances, one send ref and one receive ref each as relations/derive.c matched them, filled here; in a
 * parallel analysis also from the partners' processes, p2p_wire.c).
 *
 *  - Late Sender and Wrong Order: latesender.c.
 *  - Late Receiver at the call that completed the send when it is MPI_Send / MPI_Ssend or
 *    a wait on the Isend's request, against the enter of the call that posted the receive.
 *  - A call completing several messages (Waitall, Waitsome) gets the largest, once, and
 *    only if it had no Late Sender.
 *  - Counts and bytes at the send's and the receive's call, by the message's size.
 * Nonblocking requests are found by id among the process's request events (any thread
 * may complete them): the first completion at or after the send's post, the last post at
 * or before the receive's completion (every MPI_Start of a persistent request gets its
 * own id; the nearest one in time also holds if an id were ever reused).
 */
#include "internal.h"

#include <stdlib.h>

#include "../util/mem.h"
#include "../util/msort.h"
#include "call_kinds.h"
#include "patterns.h"

/* ---- call kinds (the wrapper table's, call_kinds.h) ------------------------------------------- */

static int is_blocking_send(uint32_t r) { return an_call_kind(r) == AN_CALL_SEND_BLOCKING; }
static int is_single_wait(uint32_t r) { return an_call_kind(r) == AN_CALL_WAIT_ONE; }
int an_is_multi_wait(uint32_t r) { return an_call_kind(r) == AN_CALL_WAIT_MANY; }
int an_is_test(uint32_t r) { return an_call_kind(r) == AN_CALL_TEST; }

/* ---- request events by (rank, id, time) ------------------------------------------------------- */

typedef an_req_t req_t;
typedef an_reqs_t reqs_t;

static int cmp_req(const void *a, const void *b)
{
    const req_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->time > y->time) - (x->time < y->time);
}

/* The entries of one request id are found by its number (dense ids) or by hashing (rank, id):
 * a binary search over every request event cost more than the rest of a message's analysis
 * (cache misses), and so did the hash's random probes where the ids are dense. */
static size_t req_hash(int32_t rank, uint64_t id, size_t mask)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)rank * 0xc2b2ae3d27d4eb4full;
    return (size_t)(h ^ h >> 29) & mask;
}

static int same_req(const req_t *x, int32_t rank, uint64_t id) { return x->rank == rank && x->id == id; }

/* The direct index of the sorted entries of r, when the ids of each rank span at most a few
 * times their number. 1 (built), 0 (too sparse), or -1 (memory). */
static int reqs_index_direct(reqs_t *r)
{
    size_t nseg = 0, span = 0;
    for (size_t i = 0; i < r->n; i++)
        if (i == 0 || r->v[i].rank != r->v[i - 1].rank)
            nseg++;
    for (size_t i = 0, j; i < r->n; i = j) { /* a rank's ids: sorted, from v[i].id to v[j - 1].id */
        for (j = i + 1; j < r->n && r->v[j].rank == r->v[i].rank; j++)
            ;
        span += (size_t)(r->v[j - 1].id - r->v[i].id) + 1;
        if (r->v[j - 1].id - r->v[i].id > 4 * (uint64_t)r->n + 1024 || span > 4 * r->n + 1024)
            return 0;
    }
    if (!(r->seg = st_mem_malloc(sizeof *r->seg * (nseg + 1))) || !(r->first = st_mem_calloc(span + 1, sizeof *r->first)))
        return -1;
    size_t at = 0;
    for (size_t i = 0, j; i < r->n; i = j) {
        for (j = i + 1; j < r->n && r->v[j].rank == r->v[i].rank; j++)
            ;
        an_reqseg_t *sg = &r->seg[r->nseg++];
        *sg = (an_reqseg_t){ r->v[i].rank, r->v[i].id, r->v[j - 1].id, at };
        for (size_t k = j; k-- > i;) /* the first entry of an id is the last one written */
            r->first[at + (r->v[k].id - sg->lo)] = (uint32_t)k + 1;
        at += (size_t)(sg->hi - sg->lo) + 1;
    }
    return 1;
}

/* Indexes the sorted entries of r by (rank, id). 0, or -1 (memory). */
static int reqs_index(reqs_t *r)
{
    if (r->n >= UINT32_MAX)
        return -1;
    int direct = reqs_index_direct(r);
    if (direct)
        return direct < 0 ? -1 : 0;
    size_t nslot = 16;
    while (nslot < 2 * r->n)
        nslot *= 2;
    if (!(r->first = st_mem_calloc(nslot, sizeof *r->first)))
        return -1;
    r->nslot = nslot;
    for (size_t i = 0; i < r->n; i++) {
        if (i && same_req(&r->v[i - 1], r->v[i].rank, r->v[i].id))
            continue;
        size_t h = req_hash(r->v[i].rank, r->v[i].id, nslot - 1);
        while (r->first[h])
            h = (h + 1) & (nslot - 1);
        r->first[h] = (uint32_t)i + 1;
    }
    return 0;
}

/* The index of rank's segment (binary search), r->nseg if it has none. */
static size_t reqs_seg(const reqs_t *r, int32_t rank)
{
    size_t a = 0, b = r->nseg;
    while (a < b) {
        size_t m = (a + b) / 2;
        if (r->seg[m].rank < rank)
            a = m + 1;
        else
            b = m;
    }
    return a < r->nseg && r->seg[a].rank == rank ? a : r->nseg;
}

/* The first entry of (rank, id), or r->n. */
static size_t reqs_first(const reqs_t *r, int32_t rank, uint64_t id)
{
    if (r->seg) {
        size_t a = reqs_seg(r, rank);
        const an_reqseg_t *sg = &r->seg[a];
        if (a == r->nseg || id < sg->lo || id > sg->hi || !r->first[sg->at + (id - sg->lo)])
            return r->n;
        return r->first[sg->at + (id - sg->lo)] - 1;
    }
    for (size_t h = req_hash(rank, id, r->nslot - 1); r->first[h]; h = (h + 1) & (r->nslot - 1))
        if (same_req(&r->v[r->first[h] - 1], rank, id))
            return r->first[h] - 1;
    return r->n;
}

/* The completion of an Isend (first at or after it), or NULL. */
static const req_t *completion_of(const reqs_t *r, int32_t rank, uint64_t id, uint64_t time)
{
    for (size_t k = reqs_first(r, rank, id); k < r->n && same_req(&r->v[k], rank, id); k++)
        if (r->v[k].time >= time)
            return &r->v[k];
    return NULL;
}

/* The post of an Irecv (last at or before its completion), or NULL. */
static const req_t *post_of(const reqs_t *r, int32_t rank, uint64_t id, uint64_t time)
{
    const req_t *last = NULL;
    for (size_t k = reqs_first(r, rank, id); k < r->n && same_req(&r->v[k], rank, id) && r->v[k].time <= time; k++)
        last = &r->v[k];
    return last;
}

static int req_push(reqs_t *v, size_t *cap, const req_t *r)
{
    if (st_mem_grow((void **)&v->v, cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = *r;
    return 0;
}

int an_reqs_note(an_ctx_t *c, uint32_t l, uint64_t i, size_t *cap)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    req_t r = { c->in->locs[l].rank, l, e->id, e->time, i, an_call_time(c, l, i) };
    return e->kind == ST_EV_MPI_IRECV_REQUEST ? req_push(&c->posted, &cap[1], &r) : req_push(&c->done, &cap[0], &r);
}

void an_reqs_reserve(an_ctx_t *c, const size_t *reqs)
{
    reqs_t *v[2] = { &c->done, &c->posted };
    for (int k = 0; k < 2; k++)
        if (reqs[k] && !v[k]->v && (v[k]->v = st_mem_malloc(sizeof *v[k]->v * reqs[k])))
            c->caps[2 + k] = reqs[k]; /* (without the room, the vector grows as it goes) */
}

/* The room an_reqs_reserve made that the requests did not take, given back (a block in the idle event
 * buffers would keep it until the analysis ends). */
static void reqs_fit(reqs_t *v, size_t *cap)
{
    if (v->v && *cap > v->n + v->n / 8 + 64) {
        void *p = st_mem_realloc(v->v, sizeof *v->v * (v->n + 1));
        v->v = p ? p : v->v;
        *cap = p ? v->n + 1 : *cap;
    }
}

int an_reqs_finish(an_ctx_t *c)
{
    reqs_fit(&c->done, &c->caps[2]);
    reqs_fit(&c->posted, &c->caps[3]);
    an_sort(c->done.v, c->done.n, sizeof *c->done.v, cmp_req);
    an_sort(c->posted.v, c->posted.n, sizeof *c->posted.v, cmp_req);
    return reqs_index(&c->done) || reqs_index(&c->posted) ? -1 : 0;
}

uint64_t an_recv_post_time(const an_ctx_t *c, uint32_t loc, uint64_t ev)
{
    const st_event_t *re = &c->in->locs[loc].ev[ev];
    if (re->kind != ST_EV_MPI_IRECV)
        return an_call_time(c, loc, ev);
    const req_t *q = post_of(&c->posted, c->in->locs[loc].rank, re->id, re->time);
    return q ? q->t_call : AN_NO_TIME;
}

const an_req_t *an_recv_post(const an_ctx_t *c, uint32_t loc, uint64_t ev)
{
    const st_event_t *re = &c->in->locs[loc].ev[ev];
    return re->kind == ST_EV_MPI_IRECV ? post_of(&c->posted, c->in->locs[loc].rank, re->id, re->time) : NULL;
}

const an_req_t *an_send_completion(const an_ctx_t *c, uint32_t loc, uint64_t ev)
{
    const st_event_t *se = &c->in->locs[loc].ev[ev];
    return se->kind == ST_EV_MPI_ISEND ? completion_of(&c->done, c->in->locs[loc].rank, se->id, se->time) : NULL;
}

void an_req_prefetch_req(const an_ctx_t *c, uint32_t loc, uint64_t ev, int stage)
{
    const st_event_t *e = &c->in->locs[loc].ev[ev];
    const reqs_t *r = e->kind == ST_EV_MPI_ISEND ? &c->done : e->kind == ST_EV_MPI_IRECV ? &c->posted : NULL;
    if (!r || !r->seg || !r->nseg)
        return;
    size_t a = reqs_seg(r, c->in->locs[loc].rank);
    const an_reqseg_t *sg = &r->seg[a];
    if (a == r->nseg || e->id < sg->lo || e->id > sg->hi)
        return;
    const uint32_t *f = &r->first[sg->at + (e->id - sg->lo)];
    if (stage == 1)
        __builtin_prefetch(f);
    else if (*f && stage == 2)
        __builtin_prefetch(&r->v[*f - 1]);
    else if (*f && r->v[*f - 1].loc < c->in->nlocs)
        __builtin_prefetch(&c->loc[r->v[*f - 1].loc].w[r->v[*f - 1].ev]);
}

/* ---- the messages ------------------------------------------------------------------------------ */

int an_msgs_reserve(an_msgs_t *m, size_t nrecv, size_t nsend)
{
    if (m->nrecv + nrecv > m->recv_cap) {
        an_recv_t *v = st_mem_realloc(m->recv, sizeof *v * (m->nrecv + nrecv));
        if (!v)
            return -1;
        m->recv = v, m->recv_cap = m->nrecv + nrecv;
    }
    if (m->nsend + nsend > m->send_cap) {
        an_send_t *v = st_mem_realloc(m->send, sizeof *v * (m->nsend + nsend));
        if (!v)
            return -1;
        m->send = v, m->send_cap = m->nsend + nsend;
    }
    return 0;
}

/* Whether port p of the graph is an end of a point-to-point message (one send, one receive). */
static const st_rel_inst_t *p2p_inst(const st_rel_graph_t *g, const st_rel_port_t *p)
{
    const st_rel_inst_t *in = &g->inst[p->inst];
    return st_rel_inst_type(in) == ST_REL_KEY_P2P && in->nsend == 1 && in->nrecv == 1 ? in : NULL;
}

/* What the message of port j will read, asked for ahead in stages (each stage's addresses come from
 * lines the stage before asked for): its instance, its refs, then the other end's event and call word
 * (a receive reads the send's, a send the receive's post), then the call's time or the request's
 * entries. Without it each message waited for 4-6 lines of memory in turn (the ports come in event
 * order, their partners' events and instances do not). */
enum { MSG_STAGES = 5 };
static const unsigned msg_ahead[MSG_STAGES] = { 40, 32, 24, 16, 8 };

static void msg_prefetch(const an_ctx_t *c, const st_rel_graph_t *g, uint64_t j, int stage)
{
    const st_rel_port_t *p = &g->ports[j];
    if (stage == 0) {
        __builtin_prefetch(&g->inst[p->inst]);
        return;
    }
    const st_rel_inst_t *in = p2p_inst(g, p);
    if (!in)
        return;
    const st_rel_ref_t *x = &g->refs[in->first];
    if (stage == 1) {
        __builtin_prefetch(x);
        return;
    }
    const st_rel_ref_t *e = p->role == ST_REL_SEND ? &x[1] : x; /* a send reads its receive's post */
    if (stage == 2) {
        an_req_prefetch(c, e->loc, e->ev, 0); /* the event and its call word */
        return;
    }
    if (stage == 3) { /* the call's enter time (a receive's send, a blocking receive's post) */
        uint64_t call = an_call(c, e->loc, e->ev);
        if (call != AN_NO_EV)
            __builtin_prefetch(&c->loc[e->loc].t[call]);
    }
    if (p->role == ST_REL_SEND) /* a nonblocking receive's request entries */
        an_req_prefetch(c, e->loc, e->ev, stage - 2);
}

int an_msgs_from_graph(an_ctx_t *c, const st_rel_graph_t *g)
{
    size_t nr = 0, ns = 0, n = 0, cap = 0;
    uint64_t np = g->port_first[g->nlocs], *pk = NULL; /* pk: the point-to-point ports, n of them */
    unsigned types = 0; /* the key types of the ports' instances (bit per type) */
    for (uint64_t k = 0; k < np; k++) { /* the instances are far apart: asked for ahead */
        if (k + AN_PREFETCH_AHEAD < np)
            __builtin_prefetch(&g->inst[g->ports[k + AN_PREFETCH_AHEAD].inst]);
        types |= 1u << st_rel_inst_type(&g->inst[g->ports[k].inst]);
        if (p2p_inst(g, &g->ports[k])) {
            if (n == cap && st_mem_grow((void **)&pk, &cap, n + 1, sizeof *pk))
                return -1;
            pk[n++] = k;
            nr += g->ports[k].role == ST_REL_RECV, ns += g->ports[k].role == ST_REL_SEND;
        }
    }
    if (an_msgs_reserve(&c->msgs, nr, ns)) {
        st_mem_free(pk);
        return -1;
    }
    /* by location and event (the ports' order: receives in the order Late Sender replays them), only the
     * point-to-point ports: in a hybrid trace most are OpenMP ones, whose prefetch stages cost 150 instructions
     * a port for nothing */
    for (size_t q = 0; q < n; q++) {
        for (int stage = 0; stage < MSG_STAGES; stage++)
            if (q + msg_ahead[stage] < n)
                msg_prefetch(c, g, pk[q + msg_ahead[stage]], stage);
        uint64_t k = pk[q];
        const st_rel_inst_t *in = &g->inst[g->ports[k].inst];
        const st_rel_ref_t *s = &g->refs[in->first], *r = s + 1;
        if (g->ports[k].role == ST_REL_RECV) {
            const st_event_t *se = &c->in->locs[s->loc].ev[s->ev];
            c->msgs.recv[c->msgs.nrecv++] = (an_recv_t){ r->loc, c->in->locs[s->loc].rank, r->ev, se->time,
                                                         an_call_time(c, s->loc, s->ev), se->bytes };
        } else {
            c->msgs.send[c->msgs.nsend++] = (an_send_t){ s->loc, s->ev, an_recv_post_time(c, r->loc, r->ev) };
        }
    }
    st_mem_free(pk);
    /* the RMA relations' passes over every port, where there are any */
    if ((types >> ST_REL_KEY_RMA_PSCW & 1) && an_pscw_from_graph(c, g))
        return -1;
    return types >> ST_REL_KEY_RMA_LOCK & 1 ? an_lock_from_graph(c, g) : 0;
}

/* ---- waits per call ------------------------------------------------------------------------------ */

int an_waits_push(an_waits_t *ws, an_wait_t w)
{
    if (st_mem_grow((void **)&ws->v, &ws->cap, ws->n + 1, sizeof *ws->v))
        return -1;
    ws->v[ws->n++] = w;
    return 0;
}

static inline int cmp_wait(const an_wait_t *x, const an_wait_t *y)
{
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    return (x->call > y->call) - (x->call < y->call);
}
static int cmp_wait_void(const void *a, const void *b) { return cmp_wait(a, b); }
/* Late Senders come in event order, Late Receivers in runs of it (per channel): a natural merge sort */
ST_MSORT(sort_waits, an_wait_t, cmp_wait)

/* Late Receiver, one value per call: the largest, unless a multi wait had a Late Sender
 * (ws holds the Late Receivers and the calls with a Late Sender, latesender.c). */
static void waits_apply(an_ctx_t *c, an_waits_t *ws)
{
    sort_waits(ws->v, ws->n);
    for (size_t i = 0, j; i < ws->n; i = j) {
        int64_t ls = 0, lr = 0;
        for (j = i; j < ws->n && ws->v[j].loc == ws->v[i].loc && ws->v[j].call == ws->v[i].call; j++) {
            int64_t *m = ws->v[j].kind ? &lr : &ls;
            if (ws->v[j].w > *m)
                *m = ws->v[j].w;
        }
        uint32_t l = ws->v[i].loc;
        uint64_t call = ws->v[i].call;
        if (!(ls > 0 && an_is_multi_wait(an_region(c, l, call))))
            an_add(c, ST_AN_M_LATERECEIVER, l, call, (double)lr);
    }
}

/* ---- one message --------------------------------------------------------------------------------- */

static void send_counts(an_ctx_t *c, const an_send_t *m)
{
    const st_event_t *se = &c->in->locs[m->loc].ev[m->ev];
    uint64_t scall = an_call(c, m->loc, m->ev);
    an_add(c, se->bytes ? ST_AN_M_COMMS_SEND : ST_AN_M_SYNCS_SEND, m->loc, scall, 1);
    an_add(c, ST_AN_M_BYTES_SENT, m->loc, scall, (double)se->bytes);
}

/* The send's completing call (MPI_Send / Ssend, or the wait of an Isend) waited for the post. */
static int late_receiver(an_ctx_t *c, const an_send_t *m, an_waits_t *ws)
{
    const st_event_t *se = &c->in->locs[m->loc].ev[m->ev];
    uint32_t cl = m->loc;
    uint64_t ccall = an_call(c, m->loc, m->ev);
    if (m->t_post == AN_NO_TIME)
        return 0;
    if (se->kind == ST_EV_MPI_ISEND) {
        const req_t *d = completion_of(&c->done, c->in->locs[m->loc].rank, se->id, se->time);
        ccall = d ? an_call(c, d->loc, d->ev) : AN_NO_EV;
        cl = d ? d->loc : cl;
    }
    if (ccall == AN_NO_EV)
        return 0;
    uint32_t creg = an_region(c, cl, ccall);
    if (!(se->kind == ST_EV_MPI_SEND ? is_blocking_send(creg) : is_single_wait(creg) || an_is_multi_wait(creg)))
        return 0;
    int64_t w = st_an_late_receiver(an_time(c, cl, ccall), an_leave_time(c, cl, ccall), m->t_post);
    return w > 0 ? an_waits_push(ws, (an_wait_t){ cl, 1, ccall, w }) : 0;
}

int an_p2p(an_ctx_t *c)
{
    /* at most one wait per message: no growth */
    an_waits_t waits = { st_mem_malloc(sizeof(an_wait_t) * (c->msgs.nrecv + c->msgs.nsend + 1)), 0,
                         c->msgs.nrecv + c->msgs.nsend + 1 };
    int rc = waits.v ? an_late_sender(c, &waits) : -1;
    for (size_t k = 0; rc == 0 && k < c->msgs.nsend; k++) {
        if (k + AN_PREFETCH_AHEAD < c->msgs.nsend)
            an_prefetch_event(c, c->msgs.send[k + AN_PREFETCH_AHEAD].loc, c->msgs.send[k + AN_PREFETCH_AHEAD].ev);
        send_counts(c, &c->msgs.send[k]);
        rc = late_receiver(c, &c->msgs.send[k], &waits);
    }
    if (rc == 0)
        waits_apply(c, &waits);
    st_mem_free(waits.v);
    return rc;
}
