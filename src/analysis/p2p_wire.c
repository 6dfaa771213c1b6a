/*
 * p2p_wire.c — point-to-point messages between the processes of a parallel analysis
 * (p2p_wire.h): the runs each end sends, and their join with the local ends.
 *
 * A record (one per destination and kind) holds runs: RUN_HEAD words (the channel: key[0 .. 2],
 * the first k, the number of messages n), then n times the values of one message, 8-byte
 * words: a send's SEND_VALS (enter of its call, AN_NO_TIME if none; the send event's time;
 * its size), a receive's RECV_VALS (enter of the call that posted it, AN_NO_TIME if none).
 */
#include "p2p_wire.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/msort.h"

#define RUN_HEAD  5
#define SEND_VALS 3
#define RECV_VALS 1

enum { SEND, RECV }; /* index of a role */

/* ---- runs ---------------------------------------------------------------------------------- */

/* Whether key continues the run r: same channel, the next k. */
static int continues(const an_pw_run_t *r, const uint64_t *key)
{
    return r && r->chan[0] == key[0] && r->chan[1] == key[1] && r->chan[2] == key[2] && key[3] == r->k0 + r->n;
}

static int cmp_chan(const an_pw_run_t *x, const an_pw_run_t *y)
{
    for (int i = 0; i < 3; i++)
        if (x->chan[i] != y->chan[i])
            return x->chan[i] < y->chan[i] ? -1 : 1;
    return 0;
}

static int cmp_run(const void *a, const void *b)
{
    const an_pw_run_t *x = a, *y = b;
    int k = cmp_chan(x, y);
    return k ? k : (x->k0 > y->k0) - (x->k0 < y->k0);
}

static an_pw_run_t *runs_push(an_pw_runs_t *v, const uint64_t *key, size_t at)
{
    if (st_mem_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return NULL;
    an_pw_run_t *r = &v->v[v->n++];
    *r = (an_pw_run_t){ { key[0], key[1], key[2] }, key[3], 0, at };
    return r;
}

/* ---- what the partners get ------------------------------------------------------------------ */

/* Whether a key (or a run's channel) is an RMA complete -> wait, or a lock relation, not a point-to-point
 * message. */
static int is_pscw(const uint64_t *key) { return key[0] >> 56 == ST_REL_KEY_RMA_PSCW; }
static int is_lock(const uint64_t *key) { return key[0] >> 56 == ST_REL_KEY_RMA_LOCK; }

/* The process analysing the partner of a point-to-point endpoint, -1 if none (unknown rank). */
static int32_t partner_owner(const st_rel_endpoint_t *e, const int32_t *owner, int32_t nranks)
{
    int32_t other = e->role == ST_REL_SEND ? (int32_t)(uint32_t)e->key[1] : (int32_t)(e->key[1] >> 32);
    return other >= 0 && other < nranks ? owner[other] : -1;
}

/* Whether endpoint e is a point-to-point end whose partner another process analyses (its owner in *dest). */
static int remote(const st_rel_endpoint_t *e, const int32_t *owner, int32_t nranks, int32_t me, int32_t *dest)
{
    if (e->kind != ST_REL_P2P) /* a message, or an RMA complete -> wait (rma_pscw.c) */
        return 0;
    *dest = partner_owner(e, owner, nranks);
    return *dest >= 0 && *dest != me;
}

/* Per destination and role: the size of its record, then where its current run's head and
 * its next values go (offsets into the destination's buffer). */
typedef struct an_pw_dest {
    size_t         words[2];
    an_pw_run_t    last[2]; /* the current run (n = 0: none) */
    size_t         head[2], at[2];
} dest_t;

static size_t vals(int role) { return role == SEND ? SEND_VALS : RECV_VALS; }

/* Counting pass: the words of each destination's records. */
static void count_end(dest_t *d, int role, const uint64_t *key)
{
    if (!continues(d->last[role].n ? &d->last[role] : NULL, key)) {
        d->words[role] += RUN_HEAD;
        d->last[role] = (an_pw_run_t){ { key[0], key[1], key[2] }, key[3], 0, 0 };
    }
    d->last[role].n++;
    d->words[role] += vals(role);
}

/* Opens the records of every destination with ends; the offsets of their payloads in d. */
static int open_records(st_xchg_out_t *out, dest_t *d, int32_t nprocs)
{
    for (int32_t q = 0; q < nprocs; q++)
        for (int role = SEND; role <= RECV; role++) {
            d[q].last[role].n = 0;
            if (!d[q].words[role])
                continue;
            st_xchg_rec_t h = { .type = role == SEND ? AN_REC_P2P_SEND : AN_REC_P2P_RECV };
            uint8_t *p = st_xchg_record(out, q, &h, d[q].words[role] * 8);
            st_xchg_buf_t *b = st_xchg_buf(out, q);
            if (!p || !b)
                return -1;
            d[q].at[role] = (size_t)(p - b->data);
        }
    return 0;
}

/* The values of local end e (role) into its destination q's record. */
static void put_end(const an_ctx_t *c, const st_rel_endpoint_t *e, int role, st_xchg_out_t *out, int32_t q, dest_t *d)
{
    uint8_t *data = st_xchg_buf(out, q)->data;
    uint64_t w[RUN_HEAD > SEND_VALS ? RUN_HEAD : SEND_VALS];
    if (!continues(d[q].last[role].n ? &d[q].last[role] : NULL, e->key)) {
        d[q].last[role] = (an_pw_run_t){ { e->key[0], e->key[1], e->key[2] }, e->key[3], 0, 0 };
        d[q].head[role] = d[q].at[role];
        memcpy(w, e->key, 4 * 8);
        w[4] = 0;
        memcpy(data + d[q].at[role], w, RUN_HEAD * 8);
        d[q].at[role] += RUN_HEAD * 8;
    }
    d[q].last[role].n++;
    memcpy(data + d[q].head[role] + 4 * 8, &d[q].last[role].n, 8);
    uint32_t l = e->ref.loc;
    uint64_t i = e->ref.ev;
    if (role == SEND && is_pscw(e->key)) /* the enter of MPI_Win_complete, the epoch's last operation to the target */
        w[0] = an_call_time(c, l, i), w[1] = an_time(c, l, i), w[2] = an_pscw_lastop(c, l, i, (int32_t)(uint32_t)e->key[1]);
    else if (role == SEND)
        w[0] = an_call_time(c, l, i), w[1] = an_time(c, l, i), w[2] = c->in->locs[l].ev[i].bytes;
    else if (is_pscw(e->key)) /* the enter of the target's MPI_Win_post (Late Post) */
        w[0] = an_pscw_post(c, l, i);
    else if (is_lock(e->key)) /* (the earlier epoch needs nothing from the later one) */
        w[0] = AN_NO_TIME;
    else
        w[0] = an_recv_post_time(c, l, i);
    memcpy(data + d[q].at[role], w, vals(role) * 8);
    d[q].at[role] += vals(role) * 8;
}

/* A local end into its role's ends and runs. */
static int keep_end(an_pwire_t *w, const st_rel_endpoint_t *e, int role)
{
    an_pw_runs_t *runs = role == SEND ? &w->lsend : &w->lrecv;
    an_pw_end_t *ends = role == SEND ? w->send : w->recv;
    size_t n = role == SEND ? w->nsend++ : w->nrecv++;
    ends[n] = (an_pw_end_t){ e->ref.loc, e->ref.ev };
    an_pw_run_t *r = runs->n ? &runs->v[runs->n - 1] : NULL;
    if (!continues(r, e->key) && !(r = runs_push(runs, e->key, n)))
        return -1;
    r->n++;
    return 0;
}

int an_pwire_begin(an_pwire_t *w, const int32_t *owner, int32_t nranks, int32_t me, int32_t nprocs, size_t most)
{
    memset(w, 0, sizeof *w);
    w->owner = owner, w->nranks = nranks, w->me = me, w->nprocs = nprocs;
    w->dest = calloc((size_t)nprocs + 1, sizeof *w->dest);
    /* room for the most ends of each role: only the pages written become memory (an_pwire_open shrinks) */
    w->send = st_mem_malloc(sizeof *w->send * (most + 1));
    w->recv = st_mem_malloc(sizeof *w->recv * (most + 1));
    w->most = most;
    return w->dest && w->send && w->recv ? 0 : -1;
}

int an_pwire_take(an_pwire_t *w, const st_rel_endpoint_t *ep, size_t n, st_rel_endpoint_t *rest, size_t *nrest)
{
    int rc = 0;
    int32_t q;
    size_t keep = 0;
    if (w->nprocs <= 1) { /* a process of its own: every end stays */
        if (rest != ep)
            memmove(rest, ep, sizeof *ep * n);
        *nrest = n;
        return 0;
    }
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const st_rel_endpoint_t *e = &ep[k];
        if (e->key[0] >> 56 == ST_REL_KEY_RMA_POST) /* the analysis reads no post -> start (rma_pscw.c) */
            continue;
        if (!remote(e, w->owner, w->nranks, w->me, &q)) {
            if (&rest[keep] != e) /* rest may be ep: written at or before where it is read */
                rest[keep] = *e;
            keep++;
            continue;
        }
        int role = e->role == ST_REL_SEND ? SEND : RECV;
        if ((role == SEND ? w->nsend : w->nrecv) == w->most)
            rc = -1; /* more than an_pwire_begin was told */
        else
            count_end(&w->dest[q], role, e->key), rc = keep_end(w, e, role);
    }
    *nrest = keep;
    return rc;
}

int an_pwire_open(an_pwire_t *w, st_xchg_out_t *out)
{
    an_pw_end_t *v = st_mem_realloc(w->send, sizeof *v * (w->nsend + 1));
    w->send = v ? v : w->send;
    v = st_mem_realloc(w->recv, sizeof *v * (w->nrecv + 1));
    w->recv = v ? v : w->recv;
    return open_records(out, w->dest, w->nprocs);
}

void an_pwire_write(an_pwire_t *w, const an_ctx_t *c, st_xchg_out_t *out)
{
    for (int role = SEND; role <= RECV; role++) {
        const an_pw_runs_t *runs = role == SEND ? &w->lsend : &w->lrecv;
        const an_pw_end_t *ends = role == SEND ? w->send : w->recv;
        size_t nends = role == SEND ? w->nsend : w->nrecv;
        for (size_t i = 0; i < runs->n; i++) {
            const an_pw_run_t *r = &runs->v[i];
            st_rel_endpoint_t e = { .key = { r->chan[0], r->chan[1], r->chan[2], 0 },
                                    .role = role == SEND ? ST_REL_SEND : ST_REL_RECV, .kind = ST_REL_P2P };
            int32_t q = partner_owner(&e, w->owner, w->nranks);
            for (size_t j = 0; j < r->n; j++) {
                size_t at = r->at + j;
                if (at + AN_PREFETCH_AHEAD < nends) { /* a send's call word and time too */
                    const an_pw_end_t *ahead = &ends[at + AN_PREFETCH_AHEAD];
                    an_prefetch_event(c, ahead->loc, ahead->ev);
                    if (role == SEND) {
                        __builtin_prefetch(&c->loc[ahead->loc].w[ahead->ev]);
                        __builtin_prefetch(&c->loc[ahead->loc].t[ahead->ev]);
                    }
                }
                e.key[3] = r->k0 + j;
                e.ref = (st_rel_ref_t){ .loc = ends[at].loc, .ev = ends[at].ev };
                put_end(c, &e, role, out, q, w->dest);
            }
        }
    }
}

int an_pwire_derive(an_pwire_t *w, st_rel_epvec_t *ep, const int32_t *owner, int32_t nranks, int32_t me,
                    st_xchg_out_t *out)
{
    size_t keep = ep->n;
    int rc = an_pwire_begin(w, owner, nranks, me, out->nranks, ep->n);
    rc = rc ? rc : an_pwire_take(w, ep->v, ep->n, ep->v, &keep);
    rc = rc ? rc : an_pwire_open(w, out);
    if (rc == 0 && keep < ep->n) { /* the memory of the ends taken out goes back to the loan (mem.h) */
        st_rel_endpoint_t *v = st_mem_realloc(ep->v, sizeof *v * (keep + 1));
        if (v)
            ep->v = v, ep->cap = keep + 1;
        ep->n = keep;
    }
    return rc;
}

/* ---- what arrives ---------------------------------------------------------------------------- */

/* The runs of one record into runs, their values appended to *v (count, capacity in messages;
 * the first record gets room for `expect` messages, the local ends of the other kind: one
 * each in a consistent trace, so the array is allocated once). 0, or -1. */
static int take_runs(an_pw_runs_t *runs, uint64_t **v, size_t *count, size_t *cap, size_t nv, size_t expect,
                     st_xchg_reader_t *rd)
{
    uint64_t head[RUN_HEAD];
    while (rd->p < rd->end) {
        if (st_xchg_get(rd, head, sizeof head) || head[4] == 0 ||
            head[4] > (size_t)(rd->end - rd->p) / (8 * nv))
            return -1;
        size_t need = *count + head[4];
        if (need > *cap) {
            size_t want = *v || need > expect ? need : expect;
            uint64_t *p = st_mem_realloc(*v, 8 * nv * want);
            if (!p)
                return -1;
            *v = p, *cap = want;
        }
        an_pw_run_t *r = runs_push(runs, head, *count);
        if (!r)
            return -1;
        r->n = head[4];
        st_xchg_get(rd, *v + *count * nv, 8 * nv * head[4]);
        *count = need;
    }
    return 0;
}

int an_pwire_deliver(an_pwire_t *w, const st_xchg_rec_t *h, st_xchg_reader_t *rd)
{
    if (h->type != AN_REC_P2P_SEND && h->type != AN_REC_P2P_RECV)
        return 0;
    int rc = h->type == AN_REC_P2P_SEND
           ? take_runs(&w->rsend, &w->got_send, &w->ngot_send, &w->cap_send, SEND_VALS, w->nrecv, rd)
           : take_runs(&w->rrecv, &w->got_recv, &w->ngot_recv, &w->cap_recv, RECV_VALS, w->nsend, rd);
    return rc ? -1 : 1;
}

/* ---- the join -------------------------------------------------------------------------------- */

/* Calls match(ctx, local run, first local end index, first remote message index, count) for
 * every stretch of k in both a local and a remote run of the same channel (both lists sorted
 * by channel and k). */
static int join_runs(const an_pw_runs_t *loc, const an_pw_runs_t *rem,
                     int (*match)(void *, const an_pw_run_t *, size_t, size_t, size_t), void *ctx)
{
    for (size_t i = 0, j = 0; i < loc->n && j < rem->n;) {
        const an_pw_run_t *a = &loc->v[i], *b = &rem->v[j];
        int k = cmp_chan(a, b);
        if (k) {
            i += k < 0, j += k > 0;
            continue;
        }
        uint64_t lo = a->k0 > b->k0 ? a->k0 : b->k0, hi = a->k0 + a->n < b->k0 + b->n ? a->k0 + a->n : b->k0 + b->n;
        if (lo < hi && match(ctx, a, a->at + (lo - a->k0), b->at + (lo - b->k0), hi - lo))
            return -1;
        if (a->k0 + a->n <= b->k0 + b->n)
            i++;
        else
            j++;
    }
    return 0;
}

/* A stretch of received messages: local ends recv[end ..], the senders' values from msg on. */
typedef struct recv_seg {
    size_t  end, msg, n;
    int32_t src;
    int     pscw; /* an RMA complete -> wait: to c->msgs.pscw */
    int     lock; /* a lock relation: to c->msgs.lock */
} recv_seg_t;

typedef struct join {
    an_pwire_t *w;
    an_ctx_t   *c;
    recv_seg_t *seg;
    size_t      nseg, cap;
} join_t;

static int match_recv(void *ctx, const an_pw_run_t *run, size_t end, size_t msg, size_t n)
{
    join_t *j = ctx;
    if (st_mem_grow((void **)&j->seg, &j->cap, j->nseg + 1, sizeof *j->seg))
        return -1;
    j->seg[j->nseg++] = (recv_seg_t){ end, msg, n, (int32_t)(run->chan[1] >> 32), is_pscw(run->chan), is_lock(run->chan) };
    return 0;
}

static int match_send(void *ctx, const an_pw_run_t *run, size_t end, size_t msg, size_t n)
{
    join_t *j = ctx;
    for (size_t x = 0; is_pscw(run->chan) && x < n; x++) /* the origin's complete: its targets' posts */
        if (an_pscw_push_send(j->c, (an_send_t){ j->w->send[end + x].loc, j->w->send[end + x].ev,
                                                 j->w->got_recv[(msg + x) * RECV_VALS] }))
            return -1;
    if (is_pscw(run->chan) || is_lock(run->chan))
        return 0;
    for (size_t x = 0; x < n; x++)
        j->c->msgs.send[j->c->msgs.nsend++] =
            (an_send_t){ j->w->send[end + x].loc, j->w->send[end + x].ev, j->w->got_recv[(msg + x) * RECV_VALS] };
    return 0;
}

/* Whether stretch a's next receive comes before stretch b's: location, event, then the join's order. */
static int seg_before(const join_t *j, size_t a, size_t b)
{
    const an_pw_end_t *x = &j->w->recv[j->seg[a].end], *y = &j->w->recv[j->seg[b].end];
    if (x->loc != y->loc)
        return x->loc < y->loc;
    return x->ev != y->ev ? x->ev < y->ev : a < b;
}

static inline int seg_first(const join_t *j, const size_t *a, const size_t *b) { return seg_before(j, *a, *b); }
ST_HEAP_DOWN(heap_down, size_t, const join_t *, seg_first)

/* The received messages appended in event order per location (each channel's stretch is, in a
 * consistent trace), merged from the stretches: the pattern code's sort (latesender.c) then
 * finds them in order and needs no scratch copy of them, fresh pages at MPI_Finalize. The
 * stretches' order breaks ties, so that sort's result is what it was on the join's order. */
static int merge_recv(join_t *j)
{
    int rc = 0;
    size_t n = j->nseg, *h = malloc(sizeof *h * (n + 1));
    if (!h)
        return -1;
    for (size_t i = 0; i < n; i++)
        h[i] = i;
    for (size_t i = n / 2; i-- > 0;)
        heap_down(j, h, n, i);
    while (n) {
        recv_seg_t *g = &j->seg[h[0]];
        const an_pw_end_t *e = &j->w->recv[g->end];
        const uint64_t *v = j->w->got_send + g->msg * SEND_VALS;
        if (g->pscw && an_pscw_push(j->c, (an_pscw_t){ e->loc, e->ev, v[0], v[2] }))
            rc = -1;
        else if (g->lock && an_lock_push(j->c, (an_lock_t){ e->loc, e->ev, v[1] }))
            rc = -1;
        else if (!g->pscw && !g->lock)
            j->c->msgs.recv[j->c->msgs.nrecv++] = (an_recv_t){ e->loc, g->src, e->ev, v[1], v[0], v[2] };
        g->end++, g->msg++;
        if (--g->n == 0)
            h[0] = h[--n];
        heap_down(j, h, n, 0);
    }
    free(h);
    return rc;
}

int an_pwire_join(an_pwire_t *w, an_ctx_t *c)
{
    if (an_msgs_reserve(&c->msgs, w->nrecv, w->nsend))
        return -1;
    an_pw_runs_t *lists[4] = { &w->lsend, &w->lrecv, &w->rsend, &w->rrecv };
    for (int i = 0; i < 4; i++)
        if (lists[i]->n > 1)
            qsort(lists[i]->v, lists[i]->n, sizeof *lists[i]->v, cmp_run);
    join_t j = { w, c, NULL, 0, 0 };
    int rc = join_runs(&w->lrecv, &w->rsend, match_recv, &j); /* our receives, their sends */
    rc = rc ? rc : merge_recv(&j);
    rc = rc ? rc : join_runs(&w->lsend, &w->rrecv, match_send, &j); /* our sends, their receives */
    st_mem_free(j.seg);
    return rc;
}

/* The local ends of one joined stretch, with their keys, to the caller's function. */
typedef struct joined {
    const an_pw_end_t *ends;
    int                role;
    int (*fn)(void *, int, const uint64_t *, const an_pw_end_t *);
    void *ctx;
} joined_t;

static int match_joined(void *ctx, const an_pw_run_t *run, size_t end, size_t msg, size_t n)
{
    (void)msg;
    const joined_t *j = ctx;
    for (size_t x = 0; x < n; x++) {
        uint64_t key[4] = { run->chan[0], run->chan[1], run->chan[2], run->k0 + (end + x - run->at) };
        if (j->fn(j->ctx, j->role, key, &j->ends[end + x]))
            return -1;
    }
    return 0;
}

int an_pwire_joined(const an_pwire_t *w, int (*fn)(void *ctx, int role, const uint64_t *key, const an_pw_end_t *end),
                    void *ctx)
{
    joined_t s = { w->send, ST_REL_SEND, fn, ctx }, r = { w->recv, ST_REL_RECV, fn, ctx };
    return join_runs(&w->lsend, &w->rrecv, match_joined, &s) || join_runs(&w->lrecv, &w->rsend, match_joined, &r)
         ? -1 : 0;
}

void an_pwire_free(an_pwire_t *w)
{
    st_mem_free(w->send), st_mem_free(w->recv), st_mem_free(w->got_send), st_mem_free(w->got_recv);
    st_mem_free(w->lsend.v), st_mem_free(w->lrecv.v), st_mem_free(w->rsend.v), st_mem_free(w->rrecv.v);
    free(w->dest);
    memset(w, 0, sizeof *w);
}
