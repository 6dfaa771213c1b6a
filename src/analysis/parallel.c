/*
 * parallel.c — the analysis of one process of a parallel run (parallel.h): what its
 * partners need of its collective members (wire records; point-to-point: p2p_wire.c), the
 * stand-in locations built from what they send, the local analysis, and the packing and
 * merging of the parts.
 */
#include "parallel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../clc/mem.h"
#include "../util/log.h"
#include "internal.h"
#include "p2p_wire.h"

#define GHOST_REGION (UINT32_MAX - 1) /* region of a stand-in call: never reported */
#define R_WIRE       1                /* record type: an array of wire_t (p2p_wire.h: the others) */
#define PACK_MAGIC   0x53544150524e4132ull
#define PART_HEAD    8 /* words of a part's header */

enum { S_NEW, S_STARTED, S_DONE, S_FAILED };
enum { W_SEND = 1, W_RECV = 2 };
enum { W_BLOCKING = 1, W_NONBLOCKING = 2 };

/* One member (one call on one location, sending and/or receiving) of a collective or
 * MPI_Init/Finalize as its partners need it. */
typedef struct wire {
    uint64_t key[4];
    int32_t  rank;
    uint32_t thread, order;
    uint8_t  role;  /* W_SEND | W_RECV */
    uint8_t  kind;  /* st_clc_kind */
    uint8_t  shape;
    uint8_t  valid; /* collectives: W_BLOCKING (a blocking call with begin and end), W_NONBLOCKING
                       (the request's and the completion's times), 0 (not analysable) */
    uint8_t  op;    /* collectives: the operation (OTF2_CollectiveOp) */
    uint8_t  pad[7];
    uint64_t b, e;   /* begin and end (MPI_Init/Finalize: enter and leave) */
} wire_t;

typedef struct wirevec { wire_t *v; size_t n, cap; } wirevec_t;

struct st_an_par {
    const st_clc_input_t *in;
    const int32_t        *owner;
    int32_t               me, nprocs;
    int                   state;
    st_xchg_out_t         out;
    wirevec_t            *to;   /* [nprocs] */
    wirevec_t             got;
    st_clc_epvec_t        ep;   /* this process's endpoints (point-to-point ones with a remote partner: pw) */
    an_pwire_t            pw;
    uint32_t              incoming, arrived;
    /* the analysis: local locations followed by the stand-ins */
    an_ctx_t       c;
    st_clc_input_t all;
    st_clc_graph_t g;
    st_an_result_t res;
};

static void fail(st_an_par_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(st_an_par_t *p, const char *fmt, ...)
{
    if (p->state == S_FAILED)
        return;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_log_error("analysis (parallel, process %d): %s", (int)p->me, msg);
    p->state = S_FAILED;
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static int wire_push(wirevec_t *v, const wire_t *w)
{
    if (st_clc_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = *w;
    return 0;
}

static int32_t owner_of(const st_an_par_t *p, int32_t rank)
{
    return rank >= 0 && rank < p->in->nranks ? p->owner[rank] : -1;
}

/* ---- what the partners need ---------------------------------------------------------------- */

/* A local endpoint as a wire record (member fields filled by the caller for collectives). */
static wire_t wire_of(const an_ctx_t *c, const st_clc_endpoint_t *e)
{
    const st_clc_loc_t *L = &c->in->locs[e->ref.loc];
    wire_t w = { .rank = L->rank, .thread = L->thread, .order = e->ref.order, .kind = e->kind, .shape = e->shape,
                 .role = e->role == ST_CLC_SEND ? W_SEND : W_RECV, .valid = W_BLOCKING };
    memcpy(w.key, e->key, sizeof w.key);
    return w;
}

/* A collective endpoint, identified as a member by (key, location, call). */
typedef struct member {
    const st_clc_endpoint_t *ep;
    uint32_t loc;
    uint64_t call;
} member_t;

static int cmp_member(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    int k = memcmp(x->ep->key, y->ep->key, sizeof x->ep->key);
    if (k)
        return k;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->call > y->call) - (x->call < y->call);
}

/* The processes owning the members of the instance's communicator (every process for
 * MPI_Init / MPI_Finalize), this one excluded, into dest; returns how many. */
static uint32_t coll_dests(const st_an_par_t *p, const st_clc_endpoint_t *e, int32_t rank, uint8_t *seen,
                           int32_t *dest)
{
    uint32_t n = 0;
    if ((e->key[0] >> 56) == ST_CLC_KEY_SYNC) {
        for (int32_t q = 0; q < p->nprocs; q++)
            if (q != p->me)
                dest[n++] = q;
        return n;
    }
    const st_clc_proc_t *pr = rank >= 0 && rank < p->in->nranks ? &p->in->procs[rank] : NULL;
    const st_comm_def_t *d = NULL;
    for (uint32_t i = 0; pr && pr->comms && i < pr->ncomms && !d; i++)
        if (pr->comms[i].key == e->key[2])
            d = &pr->comms[i];
    if (!d)
        return 0;
    for (int side = 0; side < 2; side++) {
        const int32_t *w = side ? d->remote_world : d->world;
        uint32_t nw = side ? d->remote_size : d->size;
        for (uint32_t i = 0; w && i < nw; i++) {
            int32_t q = owner_of(p, w[i]);
            if (q >= 0 && q != p->me && !seen[q])
                seen[q] = 1, dest[n++] = q;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        seen[dest[i]] = 0;
    return n;
}

/* One member m[0 .. n) (its endpoints): begin, end, validity as coll.c's members() sees them. */
static int member_wire(st_an_par_t *p, const an_ctx_t *c, const member_t *m, size_t n, uint8_t *seen, int32_t *dest)
{
    wire_t w = wire_of(c, m[0].ep);
    int sync = (m[0].ep->key[0] >> 56) == ST_CLC_KEY_SYNC, nonblocking = !sync;
    w.role = 0;
    for (size_t k = 0; k < n; k++) {
        const st_event_t *ev = &c->in->locs[m[k].loc].ev[m[k].ep->ref.ev];
        w.role |= m[k].ep->role == ST_CLC_SEND ? W_SEND : W_RECV;
        w.op = ev->op;
        if (!sync && ev->kind != ST_EV_MPI_COLL_BEGIN && ev->kind != ST_EV_MPI_COLL_END)
            w.valid = 0;
        if (ev->kind == ST_EV_MPI_ICOLL_REQUEST)
            w.b = ev->time;
        else if (ev->kind == ST_EV_MPI_ICOLL_COMPLETE)
            w.e = ev->time;
        else
            nonblocking = 0;
    }
    if (nonblocking) { /* an I-call's request or the call completing it (icoll.c): their times */
        w.valid = W_NONBLOCKING;
    } else if (m[0].call == AN_NO_EV) {
        w.valid = 0;
    } else if (w.valid && sync) {
        w.b = an_time(c, m[0].loc, m[0].call), w.e = an_leave_time(c, m[0].loc, m[0].call);
    } else if (w.valid) {
        st_an_member_t mt = { 0 };
        const st_event_t *end = NULL;
        if (an_member_times(c, m[0].loc, m[0].call, &mt, &end))
            w.valid = 0;
        w.b = mt.b, w.e = mt.e;
    }
    uint32_t nd = coll_dests(p, m[0].ep, w.rank, seen, dest);
    for (uint32_t i = 0; i < nd; i++)
        if (wire_push(&p->to[dest[i]], &w))
            return -1;
    return 0;
}

/* The wire records of every local collective member that has a remote partner. */
static int derive_wires(st_an_par_t *p)
{
    const an_ctx_t *c = &p->c;
    member_t *mem = st_clc_malloc(sizeof *mem * (p->ep.n + 1));
    uint8_t *seen = calloc((size_t)p->nprocs + 1, 1);
    int32_t *dest = malloc(sizeof *dest * ((size_t)p->nprocs + 1));
    int rc = mem && seen && dest ? 0 : -1;
    size_t nm = 0;
    for (size_t k = 0; rc == 0 && k < p->ep.n; k++) {
        const st_clc_endpoint_t *e = &p->ep.v[k];
        if (e->kind == ST_CLC_COLL)
            mem[nm++] = (member_t){ e, e->ref.loc, an_call(c, e->ref.loc, e->ref.ev) };
    }
    if (rc == 0 && nm > 1)
        qsort(mem, nm, sizeof *mem, cmp_member);
    for (size_t i = 0, j; rc == 0 && i < nm; i = j) {
        for (j = i + 1; j < nm && cmp_member(&mem[i], &mem[j]) == 0; j++)
            ;
        rc = member_wire(p, c, mem + i, j - i, seen, dest);
    }
    st_clc_free(mem), free(seen), free(dest);
    return rc;
}

/* ---- stand-ins ---------------------------------------------------------------------------------- */

static int cmp_wire_loc(const void *a, const void *b)
{
    const wire_t *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static uint64_t wire_nev(const wire_t *w)
{
    if (!w->valid)
        return 1;
    if (w->valid == W_NONBLOCKING)
        return 2;
    return (w->key[0] >> 56) == ST_CLC_KEY_SYNC ? 2 : 4;
}

static st_event_t ev_at(unsigned kind, uint64_t t, uint32_t region)
{
    return (st_event_t){ .time = t, .kind = (uint8_t)kind, .region = region, .peer = -1 };
}

static int ghost_ep(st_clc_epvec_t *v, const wire_t *w, uint8_t role, uint32_t loc, uint64_t ev)
{
    st_clc_endpoint_t e = { .ref = { loc, w->order, ev }, .role = role, .kind = w->kind, .shape = w->shape };
    memcpy(e.key, w->key, sizeof e.key);
    return st_clc_epvec_push(v, &e);
}

/* The events of one wire record (a collective member) on a stand-in location, and its endpoints. */
static int ghost_events(st_clc_loc_t *L, uint32_t loc, const wire_t *w, st_clc_epvec_t *v)
{
    st_event_t *ev = L->ev + L->n;
    uint64_t at = L->n;
    uint64_t snd = at, rcv = at;
    if (!w->valid) {
        ev[0] = ev_at(ST_EV_MPI_SEND, 0, 0); /* no call, not a collective event: the instance is skipped */
        L->n += 1;
    } else if (w->valid == W_NONBLOCKING) { /* no calls: icoll.c only reads a remote request's time */
        ev[0] = ev_at(ST_EV_MPI_ICOLL_REQUEST, w->b, 0);
        ev[1] = ev_at(ST_EV_MPI_ICOLL_COMPLETE, w->e, 0);
        ev[0].op = ev[1].op = w->op;
        rcv = at + 1;
        L->n += 2;
    } else if ((w->key[0] >> 56) == ST_CLC_KEY_SYNC) {
        ev[0] = ev_at(ST_EV_ENTER, w->b, GHOST_REGION);
        ev[1] = ev_at(ST_EV_LEAVE, w->e, GHOST_REGION);
        rcv = at + 1;
        L->n += 2;
    } else {
        ev[0] = ev_at(ST_EV_ENTER, w->b, GHOST_REGION);
        ev[1] = ev_at(ST_EV_MPI_COLL_BEGIN, w->b, 0);
        ev[2] = ev_at(ST_EV_MPI_COLL_END, w->e, 0);
        ev[3] = ev_at(ST_EV_LEAVE, w->e, GHOST_REGION);
        snd = at + 1, rcv = at + 2;
        L->n += 4;
    }
    if ((w->role & W_SEND) && ghost_ep(v, w, ST_CLC_SEND, loc, snd))
        return -1;
    return (w->role & W_RECV) ? ghost_ep(v, w, ST_CLC_RECV, loc, rcv) : 0;
}

/* The local locations followed by one stand-in per remote (rank, thread) of a collective; the
 * graph over both (this process's endpoints, without the point-to-point ones with a remote
 * partner, and the stand-ins'). */
static int build_all(st_an_par_t *p)
{
    const st_clc_input_t *in = p->in;
    wirevec_t *gw = &p->got;
    an_sort(gw->v, gw->n, sizeof *gw->v, cmp_wire_loc); /* stable enough: order inside a location is free */
    uint32_t nghost = 0;
    for (size_t i = 0; i < gw->n; i++)
        nghost += i == 0 || cmp_wire_loc(&gw->v[i - 1], &gw->v[i]) != 0;
    st_clc_loc_t *locs = calloc((size_t)in->nlocs + nghost + 1, sizeof *locs);
    st_clc_epvec_t *v = &p->ep; /* the stand-ins' endpoints join it; the graph sorts it */
    if (!locs)
        return -1;
    memcpy(locs, in->locs, sizeof *locs * in->nlocs);
    for (uint32_t l = 0; l < in->nlocs; l++)
        locs[l].orig = NULL;
    p->all = (st_clc_input_t){ .nlocs = in->nlocs + nghost, .locs = locs, .nranks = in->nranks, .procs = in->procs,
                               .nsync = in->nsync, .sync = in->sync };
    int rc = st_clc_grow((void **)&v->v, &v->cap, v->n + gw->n * 2, sizeof *v->v);
    uint32_t l = in->nlocs;
    for (size_t i = 0, j; rc == 0 && i < gw->n; i = j, l++) {
        uint64_t nev = 0;
        for (j = i; j < gw->n && cmp_wire_loc(&gw->v[i], &gw->v[j]) == 0; j++)
            nev += wire_nev(&gw->v[j]);
        st_clc_loc_t *L = &locs[l];
        *L = (st_clc_loc_t){ .rank = gw->v[i].rank, .thread = gw->v[i].thread,
                             .ev = st_clc_malloc(sizeof *L->ev * (nev + 1)) };
        if (!L->ev)
            rc = -1;
        for (size_t k = i; rc == 0 && k < j; k++)
            rc = ghost_events(L, l, &gw->v[k], v);
    }
    if (rc == 0)
        rc = st_clc_graph_join(v->v, v->n, p->all.nlocs, 0, &p->g);
    st_clc_epvec_free(v);
    return rc;
}

/* ---- the engine ------------------------------------------------------------------------------------ */

int st_an_par_new(const st_clc_input_t *in, const int32_t *owner, int32_t me, int32_t nprocs,
                  const st_xchg_net_t *net, st_an_par_t **out)
{
    *out = NULL;
    st_an_par_t *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *p = (st_an_par_t){ .in = in, .owner = owner, .me = me, .nprocs = nprocs, .state = S_NEW };
    p->to = calloc((size_t)nprocs + 1, sizeof *p->to);
    int rc = p->to && st_xchg_out_init(&p->out, net, nprocs) == 0 ? 0 : -1;
    struct timespec t[4];
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t[0]);
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++) /* each owned rank once (locations are in rank order) */
        if (l == 0 || in->locs[l].rank != in->locs[l - 1].rank)
            rc = st_clc_endpoints(in, in->locs[l].rank, &p->ep, NULL);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t[1]);
    if (rc == 0)
        rc = an_begin(&p->c, in, in->nlocs, &p->res); /* the calls, once: the wires and the patterns read them */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t[2]);
    if (rc == 0)
        rc = an_pwire_derive(&p->pw, &p->c, &p->ep, owner, in->nranks, me, &p->out);
    if (rc == 0)
        rc = derive_wires(p);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t[3]);
    st_log_debug("analysis: process %d: CPU ms: logical messages %.1f, calls and time %.1f, what the partners need %.1f",
                 (int)me, ms_between(&t[0], &t[1]), ms_between(&t[1], &t[2]), ms_between(&t[2], &t[3]));
    if (rc) {
        st_log_error("analysis (parallel, process %d): out of memory", (int)me);
        st_an_par_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void st_an_par_partners(const st_an_par_t *p, uint8_t *flags)
{
    for (int32_t q = 0; q < p->nprocs; q++)
        if (p->to[q].n || st_xchg_buf(&p->out, q))
            flags[q] = 1;
}

int st_an_par_start(st_an_par_t *p, uint32_t incoming)
{
    p->incoming = incoming;
    p->state = S_STARTED;
    for (int32_t q = 0; q < p->nprocs; q++) {
        if (!p->to[q].n)
            continue;
        st_xchg_rec_t h = { .type = R_WIRE, .seq = (uint64_t)p->to[q].n };
        uint8_t *d = st_xchg_record(&p->out, q, &h, p->to[q].n * sizeof(wire_t));
        if (!d) {
            fail(p, "out of memory");
            return -1;
        }
        memcpy(d, p->to[q].v, p->to[q].n * sizeof(wire_t));
        st_clc_free(p->to[q].v);
        p->to[q] = (wirevec_t){ 0 };
    }
    int32_t bad = -1;
    if (st_xchg_flush(&p->out, 0, &bad)) {
        fail(p, "cannot send to process %d", (int)bad);
        return -1;
    }
    return 0;
}

int st_an_par_deliver(st_an_par_t *p, int32_t from, const void *buf, size_t len)
{
    st_xchg_reader_t msg = { buf, (const uint8_t *)buf + len }, rd;
    st_xchg_rec_t h;
    int k;
    while ((k = st_xchg_next(&msg, &h, &rd)) == 1) {
        int taken = an_pwire_deliver(&p->pw, &h, &rd);
        if (taken < 0) {
            k = -1;
            break;
        }
        if (taken)
            continue;
        if (h.type != R_WIRE || h.len % sizeof(wire_t) || h.len / sizeof(wire_t) != h.seq)
            break;
        if (st_clc_grow((void **)&p->got.v, &p->got.cap, p->got.n + h.seq, sizeof(wire_t))) {
            fail(p, "out of memory");
            return -1;
        }
        if (st_xchg_get(&rd, p->got.v + p->got.n, h.len)) /* the records as they are: one copy, one growth */
            break;
        p->got.n += h.seq;
    }
    if (k != 0) {
        fail(p, "malformed message from process %d", (int)from);
        return -1;
    }
    p->arrived++;
    return 0;
}

int st_an_par_progress(st_an_par_t *p)
{
    if (p->state == S_FAILED)
        return ST_AN_PAR_FAILED;
    if (p->state == S_DONE)
        return ST_AN_PAR_DONE;
    if (p->state != S_STARTED || p->arrived < p->incoming)
        return ST_AN_PAR_IDLE;
    struct timespec t0, t1, t2, t3;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    int rc = build_all(p);
    rc = rc || an_extend(&p->c, &p->all);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    rc = rc || an_msgs_from_graph(&p->c, &p->g) || an_pwire_join(&p->pw, &p->c);
    an_pwire_free(&p->pw);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t2);
    rc = rc || an_finish(&p->c, &p->g);
    an_end(&p->c);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t3);
    st_log_debug("analysis: process %d: CPU ms: stand-ins and graph %.1f, messages %.1f, patterns %.1f (%u locations, "
                 "%u stand-ins)",
                 (int)p->me, ms_between(&t0, &t1), ms_between(&t1, &t2), ms_between(&t2, &t3), p->in->nlocs,
                 p->all.nlocs - p->in->nlocs);
    if (rc) {
        fail(p, "out of memory");
        return ST_AN_PAR_FAILED;
    }
    p->state = S_DONE;
    return ST_AN_PAR_DONE;
}

void st_an_par_waiting(const st_an_par_t *p, char *buf, size_t n)
{
    snprintf(buf, n, "%u of %u partners' messages arrived", p->arrived, p->incoming);
}

const st_an_result_t *st_an_par_result(const st_an_par_t *p) { return &p->res; }

void st_an_par_free(st_an_par_t *p)
{
    if (!p)
        return;
    for (int32_t q = 0; p->to && q < p->nprocs; q++)
        st_clc_free(p->to[q].v);
    free(p->to);
    st_clc_free(p->got.v);
    st_clc_epvec_free(&p->ep);
    an_pwire_free(&p->pw);
    an_end(&p->c);
    st_xchg_out_free(&p->out);
    for (uint32_t l = p->in->nlocs; p->all.locs && l < p->all.nlocs; l++)
        st_clc_free(p->all.locs[l].ev);
    free(p->all.locs);
    st_clc_graph_free(&p->g);
    st_an_free(&p->res);
    free(p);
}

/* ---- parts of the report --------------------------------------------------------------------------- */

/* A part: magic, nlocs, ncnodes, the statistics, nfuncs; per location (rank, thread); per function
 * region its name (length, then the bytes in words); per cnode (parent, region);
 * sev [metric][cnode][location] as doubles; per metric ntop and its instances
 * (value, time, location, cnode, gid). All 8-byte words. A cnode's function region
 * (ST_AN_IS_FUNC) indexes the part's own names: parts are merged by name. */
int st_an_par_pack(const st_an_par_t *p, void **buf, size_t *len)
{
    const st_an_result_t *r = &p->res;
    size_t nsev = (size_t)ST_AN__METRICS * r->ncnodes * r->nlocs, ntop = 0;
    for (int m = 0; m < ST_AN__METRICS; m++)
        ntop += 1 + 5 * (size_t)r->ntop[m];
    size_t nfw = 0;
    for (uint32_t k = 0; k < r->nfuncs; k++)
        nfw += 1 + (strlen(r->funcs[k]) + 7) / 8;
    size_t n = PART_HEAD + 2 * (size_t)r->nlocs + nfw + 2 * (size_t)r->ncnodes + nsev + ntop;
    uint64_t *w = malloc(8 * n), *q = w;
    if (!w)
        return -1;
    *q++ = PACK_MAGIC, *q++ = r->nlocs, *q++ = r->ncnodes;
    *q++ = r->stats.unpaired, *q++ = r->stats.ls_violations, *q++ = r->stats.coll_violations,
    *q++ = r->stats.coll_skipped, *q++ = r->nfuncs;
    for (uint32_t l = 0; l < r->nlocs; l++)
        *q++ = (uint64_t)(uint32_t)p->in->locs[l].rank, *q++ = p->in->locs[l].thread;
    for (uint32_t k = 0; k < r->nfuncs; k++) {
        size_t sl = strlen(r->funcs[k]), nw = (sl + 7) / 8;
        *q++ = sl;
        if (nw)
            q[nw - 1] = 0; /* the padding */
        memcpy(q, r->funcs[k], sl);
        q += nw;
    }
    for (uint32_t k = 0; k < r->ncnodes; k++)
        *q++ = r->cnodes[k].parent, *q++ = r->cnodes[k].region;
    memcpy(q, r->sev, 8 * nsev);
    q += nsev;
    for (int m = 0; m < ST_AN__METRICS; m++) {
        *q++ = r->ntop[m];
        for (uint32_t i = 0; i < r->ntop[m]; i++) {
            const st_an_instance_t *x = &r->top[m][i];
            memcpy(q++, &x->value, 8);
            *q++ = x->time, *q++ = x->loc, *q++ = x->cnode, *q++ = r->topgid[m][i];
        }
    }
    *buf = w, *len = 8 * n;
    return 0;
}

typedef struct part {
    const uint64_t *w, *end;
} part_t;

static int take(part_t *pt, uint64_t *v, size_t n)
{
    if ((size_t)(pt->end - pt->w) < n)
        return -1;
    if (v)
        memcpy(v, pt->w, 8 * n);
    pt->w += n;
    return 0;
}

/* The header of a part and its position after the header; 0, or -1 (malformed). */
static int part_head(const void *buf, size_t len, part_t *pt, uint64_t *head)
{
    *pt = (part_t){ buf, (const uint64_t *)buf + len / 8 };
    return len % 8 || take(pt, head, PART_HEAD) || head[0] != PACK_MAGIC || head[2] == 0 ? -1 : 0;
}

/* Skips the function names of a part (after its locations). */
static int skip_funcs(part_t *pt, uint64_t nfuncs)
{
    uint64_t sl;
    for (uint64_t k = 0; k < nfuncs; k++)
        if (take(pt, &sl, 1) || sl > 8 * (uint64_t)(pt->end - pt->w) || take(pt, NULL, (sl + 7) / 8))
            return -1;
    return 0;
}

/* Reads a part's function names into res->funcs (merged by name); fmap[k]: the merged region of the
 * part's function k. 0, or -1 (malformed, memory). */
static int merge_funcs(part_t *pt, uint64_t nfuncs, st_an_result_t *res, uint32_t *fmap)
{
    uint64_t sl;
    for (uint64_t k = 0; k < nfuncs; k++) {
        if (take(pt, &sl, 1) || sl > 8 * (uint64_t)(pt->end - pt->w))
            return -1;
        const char *name = (const char *)pt->w;
        uint32_t f = 0;
        while (f < res->nfuncs && (strlen(res->funcs[f]) != sl || memcmp(res->funcs[f], name, sl)))
            f++;
        if (f == res->nfuncs) {
            char **v = realloc(res->funcs, sizeof *v * (res->nfuncs + 1));
            if (!v)
                return -1;
            res->funcs = v;
            if (!(v[f] = strndup(name, sl)))
                return -1;
            res->nfuncs++;
        }
        fmap[k] = ST_AN_FUNC_REGION(f);
        take(pt, NULL, (sl + 7) / 8);
    }
    return 0;
}

/* Adds part pt (locations from loc0; its cnodes mapped through map) to res. */
static int merge_part(part_t *pt, const uint64_t *head, uint32_t loc0, const uint32_t *map, st_an_result_t *res)
{
    uint32_t nl = (uint32_t)head[1], nc = (uint32_t)head[2];
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t k = 0; k < nc; k++)
            for (uint32_t l = 0; l < nl; l++) {
                double v;
                if (take(pt, (uint64_t *)&v, 1))
                    return -1;
                *st_an_sev(res, m, map[k], loc0 + l) += v;
            }
    for (int m = 0; m < ST_AN__METRICS; m++) {
        uint64_t nt, x[5];
        if (take(pt, &nt, 1) || nt > ST_AN_TOP)
            return -1;
        for (uint64_t i = 0; i < nt; i++) {
            if (take(pt, x, 5) || x[2] >= nl || x[3] >= nc)
                return -1;
            st_an_instance_t in = { 0, x[1], loc0 + (uint32_t)x[2], map[x[3]] };
            memcpy(&in.value, &x[0], 8);
            st_an_top_note(res, m, &in, x[4]);
        }
    }
    return 0;
}

int st_an_par_merge(const void *const *part, const size_t *len, int n, st_an_result_t *res, st_clc_loc_t **locs)
{
    memset(res, 0, sizeof *res);
    *locs = NULL;
    an_tree_t t = { 0 };
    uint32_t **map = calloc((size_t)n + 1, sizeof *map), nlocs = 0;
    int rc = map && an_tree_child(&t, ST_AN_NO_CNODE, UINT32_MAX) != ST_AN_NO_CNODE ? 0 : -1;
    /* 1: locations and the unified call tree (a part's parent precedes its children) */
    for (int i = 0; rc == 0 && i < n; i++) {
        part_t pt;
        uint64_t head[PART_HEAD], cn[2];
        uint32_t *fmap = NULL;
        if (part_head(part[i], len[i], &pt, head) || !(map[i] = malloc(sizeof **map * head[2])) ||
            head[7] > (uint64_t)(pt.end - pt.w) || !(fmap = malloc(sizeof *fmap * (head[7] + 1)))) {
            rc = -1;
            break;
        }
        nlocs += (uint32_t)head[1];
        rc = take(&pt, NULL, 2 * head[1]);
        if (rc == 0)
            rc = merge_funcs(&pt, head[7], res, fmap);
        for (uint64_t k = 0; rc == 0 && k < head[2]; k++) {
            rc = take(&pt, cn, 2);
            if (rc == 0 && ST_AN_IS_FUNC((uint32_t)cn[1]))
                cn[1] = (cn[1] & 0x7fffffffu) < head[7] ? fmap[cn[1] & 0x7fffffffu] : UINT32_MAX - 1;
            if (rc == 0 && k == 0)
                map[i][0] = 0;
            else if (rc == 0 && (cn[0] >= k || (map[i][k] = an_tree_child(&t, map[i][cn[0]], (uint32_t)cn[1])) ==
                                                   ST_AN_NO_CNODE))
                rc = -1;
        }
        free(fmap);
    }
    res->ncnodes = t.n, res->nlocs = nlocs;
    if (rc == 0 && (!(res->sev = calloc((size_t)ST_AN__METRICS * t.n * (nlocs ? nlocs : 1), sizeof(double))) ||
                    !(*locs = calloc(nlocs + 1, sizeof **locs))))
        rc = -1;
    /* 2: values, worst instances, statistics */
    for (int i = 0, loc0 = 0; rc == 0 && i < n; i++) {
        part_t pt;
        uint64_t head[PART_HEAD], rt[2];
        part_head(part[i], len[i], &pt, head);
        for (uint64_t l = 0; rc == 0 && l < head[1]; l++) {
            rc = take(&pt, rt, 2);
            (*locs)[loc0 + l] = (st_clc_loc_t){ .rank = (int32_t)rt[0], .thread = (uint32_t)rt[1] };
        }
        if (rc == 0)
            rc = skip_funcs(&pt, head[7]);
        if (rc == 0)
            rc = take(&pt, NULL, 2 * head[2]);
        if (rc == 0)
            rc = merge_part(&pt, head, (uint32_t)loc0, map[i], res);
        res->stats.unpaired += head[3], res->stats.ls_violations += head[4];
        res->stats.coll_violations += head[5], res->stats.coll_skipped += head[6];
        loc0 += (int)head[1];
    }
    for (int i = 0; map && i < n; i++)
        free(map[i]);
    free(map);
    free(t.slot);
    res->cnodes = t.v;
    if (rc) {
        st_an_free(res);
        free(*locs);
        *locs = NULL;
    }
    return rc;
}
