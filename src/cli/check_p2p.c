/*
 * check_p2p.c — matches point-to-point messages and counts receives completed before
 * their send started.
 *
 * A channel is (sender world rank, receiver world rank, communicator, tag). MPI does not
 * let messages of one channel overtake each other, so the k-th send of a channel, in the
 * sender's post order, matches the k-th receive of that channel, in the receiver's post
 * order. Post points: MpiSend / MpiIsend themselves; a blocking MpiRecv is posted at the
 * Enter of the region enclosing it (the MPI call); an MpiIrecv at the MpiIrecvRequest
 * with its request id (or at itself when there is none). Posts of several threads of one
 * rank are ordered by time, then location; within a location by position (the time key
 * is the running maximum of the location's timestamps, so it never contradicts position).
 * Matching uses the corrected timestamps also with --raw, so both modes match the same
 * messages. Cancelled requests are left out; receive requests never completed are counted
 * as pending (their source and tag are unknown).
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#include "archive_read.h"

typedef struct msg_end {
    int32_t  from, to;   /* channel: world ranks */
    uint32_t comm, tag;
    uint64_t key;        /* post order: running max time of the location at the post */
    uint32_t loc;        /* location index */
    size_t   pos;        /* post position in the location */
    size_t   ev;         /* the event whose time counts: the send, or the receive completion */
    uint8_t  state;      /* END_* */
} msg_end_t;

enum { END_DONE, END_CANCELLED, END_PENDING };

typedef struct ends {
    msg_end_t *a;
    size_t n, cap;
} ends_t;

typedef struct walk {       /* per-location state */
    size_t *enters;         /* stack of open Enter positions */
    uint64_t *enter_keys;
    size_t depth, cap;
    st_cli_reqs_t sreq, rreq; /* open Isend / Irecv requests -> index in sends / recvs */
} walk_t;

static msg_end_t *push(ends_t *e)
{
    return st_cli_grow((void **)&e->a, &e->n, &e->cap, sizeof *e->a);
}

static int push_enter(walk_t *w, size_t pos, uint64_t key)
{
    if (w->depth == w->cap) {
        size_t nc = w->cap ? 2 * w->cap : 32;
        size_t *p = realloc(w->enters, nc * sizeof *p);
        if (p)
            w->enters = p;
        uint64_t *k = realloc(w->enter_keys, nc * sizeof *k);
        if (k)
            w->enter_keys = k;
        if (!p || !k)
            return -1;
        w->cap = nc;
    }
    w->enters[w->depth] = pos;
    w->enter_keys[w->depth++] = key;
    return 0;
}

/* A send (MpiSend / MpiIsend) at position i. */
static int on_send(ends_t *sends, walk_t *w, const st_cli_location_t *l, uint32_t li, size_t i, uint64_t key)
{
    const st_cli_event_t *e = &l->ev[i];
    msg_end_t *m = push(sends);
    if (!m)
        return -1;
    *m = (msg_end_t){.from = l->rank, .to = e->peer, .comm = e->comm, .tag = e->tag, .key = key, .loc = li,
                     .pos = i, .ev = i};
    return e->kind == ST_EV_MPI_ISEND ? st_cli_reqs_put(&w->sreq, e->req, sends->n - 1) : 0;
}

/* A receive completion (MpiRecv / MpiIrecv) at position i. */
static int on_recv(ends_t *recvs, walk_t *w, const st_cli_location_t *l, uint32_t li, size_t i, uint64_t key)
{
    const st_cli_event_t *e = &l->ev[i];
    size_t idx;
    msg_end_t *m;
    if (e->kind == ST_EV_MPI_IRECV && st_cli_reqs_take(&w->rreq, e->req, &idx))
        m = &recvs->a[idx];
    else {
        if (!(m = push(recvs)))
            return -1;
        m->key = key, m->pos = i;
        if (e->kind == ST_EV_MPI_RECV && w->depth) /* posted at the enclosing Enter */
            m->key = w->enter_keys[w->depth - 1], m->pos = w->enters[w->depth - 1];
    }
    m->from = e->peer, m->to = l->rank, m->comm = e->comm, m->tag = e->tag;
    m->loc = li, m->ev = i, m->state = END_DONE;
    return 0;
}

static int on_irecv_request(ends_t *recvs, walk_t *w, const st_cli_event_t *e, uint32_t li, size_t i, uint64_t key)
{
    msg_end_t *m = push(recvs);
    if (!m)
        return -1;
    *m = (msg_end_t){.from = -1, .to = -1, .key = key, .loc = li, .pos = i, .ev = i, .state = END_PENDING};
    return st_cli_reqs_put(&w->rreq, e->req, recvs->n - 1);
}

static void on_cancelled(ends_t *sends, ends_t *recvs, walk_t *w, const st_cli_event_t *e)
{
    size_t idx;
    if (st_cli_reqs_take(&w->sreq, e->req, &idx))
        sends->a[idx].state = END_CANCELLED;
    else if (st_cli_reqs_take(&w->rreq, e->req, &idx))
        recvs->a[idx].state = END_CANCELLED;
}

/* Collects the sends and receives of location li. */
static int walk_location(const st_cli_archive_t *ar, uint32_t li, ends_t *sends, ends_t *recvs, walk_t *w)
{
    const st_cli_location_t *l = &ar->locs[li];
    uint64_t key = 0;
    size_t idx;
    int rc = 0;
    w->depth = 0;
    for (size_t i = 0; i < l->n && !rc; i++) {
        const st_cli_event_t *e = &l->ev[i];
        key = e->time > key ? e->time : key;
        switch (e->kind) {
        case ST_EV_ENTER: rc = push_enter(w, i, key); break;
        case ST_EV_LEAVE: w->depth -= w->depth > 0; break;
        case ST_EV_MPI_SEND:
        case ST_EV_MPI_ISEND: rc = on_send(sends, w, l, li, i, key); break;
        case ST_EV_MPI_ISEND_COMPLETE: st_cli_reqs_take(&w->sreq, e->req, &idx); break;
        case ST_EV_MPI_IRECV_REQUEST: rc = on_irecv_request(recvs, w, e, li, i, key); break;
        case ST_EV_MPI_RECV:
        case ST_EV_MPI_IRECV: rc = on_recv(recvs, w, l, li, i, key); break;
        case ST_EV_MPI_REQUEST_CANCELLED: on_cancelled(sends, recvs, w, e); break;
        default: break;
        }
    }
    w->sreq.n = w->rreq.n = 0; /* requests do not outlive their location */
    return rc;
}

/* ---- matching -------------------------------------------------------------------------- */

static int cmp_channel(const msg_end_t *x, const msg_end_t *y)
{
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return 0;
}

static int cmp_post(const void *a, const void *b)
{
    const msg_end_t *x = a, *y = b;
    int c = cmp_channel(x, y);
    if (c) return c;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Drops cancelled and pending ends (counting them) and sorts the rest into post order. */
static void settle(ends_t *e, st_cli_check_t *res)
{
    size_t k = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (e->a[i].state == END_CANCELLED) res->cancelled++;
        else if (e->a[i].state == END_PENDING) res->pending_recvs++;
        else e->a[k++] = e->a[i];
    }
    e->n = k;
    st_cli_sort(e->a, e->n, sizeof *e->a, cmp_post);
}

static void check_pair(const st_cli_archive_t *ar, st_cli_check_t *res, const msg_end_t *s, const msg_end_t *r)
{
    const st_cli_event_t *se = &ar->locs[s->loc].ev[s->ev], *re = &ar->locs[r->loc].ev[r->ev];
    res->matched++;
    if (st_cli_check_time(res, re) >= st_cli_check_time(res, se))
        return;
    res->p2p++;
    char detail[64];
    snprintf(detail, sizeof detail, "(comm %u, tag %u)", s->comm, s->tag);
    st_cli_check_example(ar, res, "p2p", r->loc, r->ev, s->loc, s->ev, detail);
}

/* Walks both sorted lists channel by channel, pairing the k-th send with the k-th receive. */
static void match(const st_cli_archive_t *ar, st_cli_check_t *res, const ends_t *sends, const ends_t *recvs)
{
    size_t i = 0, j = 0;
    while (i < sends->n || j < recvs->n) {
        int c = i == sends->n ? 1 : j == recvs->n ? -1 : cmp_channel(&sends->a[i], &recvs->a[j]);
        if (c < 0) {
            res->unmatched_sends++, i++;
        } else if (c > 0) {
            res->unmatched_recvs++, j++;
        } else {
            check_pair(ar, res, &sends->a[i], &recvs->a[j]);
            i++, j++;
        }
    }
}

int st_cli_check_p2p(const st_cli_archive_t *ar, st_cli_check_t *res)
{
    ends_t sends = {0}, recvs = {0};
    walk_t w = {0};
    int rc = 0;
    for (size_t li = 0; li < ar->nlocs && !rc; li++)
        rc = walk_location(ar, (uint32_t)li, &sends, &recvs, &w);
    if (!rc) {
        settle(&sends, res);
        settle(&recvs, res);
        match(ar, res, &sends, &recvs);
    }
    free(sends.a);
    free(recvs.a);
    free(w.enters);
    free(w.enter_keys);
    st_cli_reqs_free(&w.sreq);
    st_cli_reqs_free(&w.rreq);
    return rc;
}
