/*
 * p2p_wire.c — point-to-point messages between the processes of a parallel analysis
 * (p2p_wire.h): the records each end sends, and their join with the local ends.
 */
#include "p2p_wire.h"

#include <stdlib.h>
#include <string.h>

#include "../clc/mem.h"
#include "../clc/msort.h"

/* Record payloads, 8-byte words: key[4], then
 *   send: enter of the send's call (AN_NO_TIME: none), the send event's time, its size;
 *   recv: enter of the call that posted the receive (AN_NO_TIME: none). */
#define SEND_WORDS 7
#define RECV_WORDS 5

static inline int cmp_key(const uint64_t *x, const uint64_t *y)
{
    for (int i = 0; i < 4; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static inline int cmp_end(const an_pw_end_t *x, const an_pw_end_t *y) { return cmp_key(x->key, y->key); }
static int cmp_end_void(const void *a, const void *b) { return cmp_end(a, b); }
ST_CLC_MSORT(sort_ends, an_pw_end_t, cmp_end)

typedef struct { uint64_t w[SEND_WORDS]; } send_rec_t;
typedef struct { uint64_t w[RECV_WORDS]; } recv_rec_t;
static inline int cmp_send_rec(const send_rec_t *x, const send_rec_t *y) { return cmp_key(x->w, y->w); }
static inline int cmp_recv_rec(const recv_rec_t *x, const recv_rec_t *y) { return cmp_key(x->w, y->w); }
static int cmp_send_rec_void(const void *a, const void *b) { return cmp_send_rec(a, b); }
static int cmp_recv_rec_void(const void *a, const void *b) { return cmp_recv_rec(a, b); }
ST_CLC_MSORT(sort_send_recs, send_rec_t, cmp_send_rec)
ST_CLC_MSORT(sort_recv_recs, recv_rec_t, cmp_recv_rec)

/* The process analysing the partner of a point-to-point endpoint, -1 if none (unknown rank). */
static int32_t partner_owner(const st_clc_endpoint_t *e, const int32_t *owner, int32_t nranks)
{
    int32_t other = e->role == ST_CLC_SEND ? (int32_t)(uint32_t)e->key[1] : (int32_t)(e->key[1] >> 32);
    return other >= 0 && other < nranks ? owner[other] : -1;
}

/* Whether endpoint e is a point-to-point end whose partner another process analyses (its owner in *dest). */
static int remote(const st_clc_endpoint_t *e, const int32_t *owner, int32_t nranks, int32_t me, int32_t *dest)
{
    if (e->kind != ST_CLC_P2P)
        return 0;
    *dest = partner_owner(e, owner, nranks);
    return *dest >= 0 && *dest != me;
}

/* Per destination: where its send and receive records go (offsets into its buffer). */
typedef struct dest {
    size_t nsend, nrecv, at_send, at_recv;
} dest_t;

/* Opens the two records of every destination with ends; their payload offsets into d. */
static int open_records(st_xchg_out_t *out, dest_t *d, int32_t nprocs)
{
    for (int32_t q = 0; q < nprocs; q++) {
        st_xchg_buf_t *b;
        uint8_t *p;
        if (d[q].nsend) {
            st_xchg_rec_t h = { .type = AN_REC_P2P_SEND, .seq = d[q].nsend };
            if (!(p = st_xchg_record(out, q, &h, d[q].nsend * SEND_WORDS * 8)) || !(b = st_xchg_buf(out, q)))
                return -1;
            d[q].at_send = (size_t)(p - b->data);
        }
        if (d[q].nrecv) {
            st_xchg_rec_t h = { .type = AN_REC_P2P_RECV, .seq = d[q].nrecv };
            if (!(p = st_xchg_record(out, q, &h, d[q].nrecv * RECV_WORDS * 8)) || !(b = st_xchg_buf(out, q)))
                return -1;
            d[q].at_recv = (size_t)(p - b->data);
        }
    }
    return 0;
}

/* The record of local end e (a send or a receive) into its destination's buffer. */
static void put_record(const an_ctx_t *c, const st_clc_endpoint_t *e, st_xchg_out_t *out, int32_t q, dest_t *d)
{
    uint32_t l = e->ref.loc;
    uint64_t i = e->ref.ev, w[SEND_WORDS];
    memcpy(w, e->key, 4 * 8);
    size_t n;
    if (e->role == ST_CLC_SEND) {
        const st_event_t *ev = &c->in->locs[l].ev[i];
        w[4] = an_call_time(c, l, i), w[5] = ev->time, w[6] = ev->bytes;
        n = SEND_WORDS * 8;
        memcpy(st_xchg_buf(out, q)->data + d[q].at_send, w, n);
        d[q].at_send += n;
    } else {
        w[4] = an_recv_post_time(c, l, i);
        n = RECV_WORDS * 8;
        memcpy(st_xchg_buf(out, q)->data + d[q].at_recv, w, n);
        d[q].at_recv += n;
    }
}

int an_pwire_derive(an_pwire_t *w, const an_ctx_t *c, st_clc_epvec_t *ep, const int32_t *owner, int32_t nranks,
                    int32_t me, st_xchg_out_t *out)
{
    memset(w, 0, sizeof *w);
    int32_t nprocs = out->nranks, q;
    dest_t *d = calloc((size_t)nprocs + 1, sizeof *d);
    if (!d)
        return -1;
    size_t ns = 0, nr = 0;
    for (size_t k = 0; k < ep->n; k++) /* counted first: exact arrays and records */
        if (remote(&ep->v[k], owner, nranks, me, &q)) {
            int send = ep->v[k].role == ST_CLC_SEND;
            ns += send, nr += !send;
            d[q].nsend += send, d[q].nrecv += !send;
        }
    w->send = st_clc_malloc(sizeof *w->send * (ns + 1));
    w->recv = st_clc_malloc(sizeof *w->recv * (nr + 1));
    int rc = w->send && w->recv ? open_records(out, d, nprocs) : -1;
    size_t keep = 0;
    for (size_t k = 0; rc == 0 && k < ep->n; k++) {
        const st_clc_endpoint_t *e = &ep->v[k];
        if (k + AN_PREFETCH_AHEAD < ep->n)
            an_prefetch_event(c, ep->v[k + AN_PREFETCH_AHEAD].ref.loc, ep->v[k + AN_PREFETCH_AHEAD].ref.ev);
        if (!remote(e, owner, nranks, me, &q)) {
            ep->v[keep++] = *e;
            continue;
        }
        put_record(c, e, out, q, d);
        an_pw_end_t end = { .loc = e->ref.loc, .ev = e->ref.ev };
        memcpy(end.key, e->key, sizeof end.key);
        if (e->role == ST_CLC_SEND)
            w->send[w->nsend++] = end;
        else
            w->recv[w->nrecv++] = end;
    }
    if (rc == 0)
        ep->n = keep;
    free(d);
    return rc;
}

/* Appends count records of `words` words from rd to *v (capacity *cap). The first ones get room
 * for `expect` (the local ends of the other kind: one record each in a consistent trace), so
 * the array is allocated once. */
static int take_records(uint64_t **v, size_t *n, size_t *cap, size_t words, uint64_t count, size_t expect,
                        st_xchg_reader_t *rd)
{
    if (*n + count > *cap) {
        size_t want = *n + count > expect || *v ? *n + count : expect;
        uint64_t *p = st_clc_realloc(*v, 8 * words * want);
        if (!p)
            return -1;
        *v = p, *cap = want;
    }
    if (st_xchg_get(rd, *v + *n * words, 8 * words * count))
        return -1;
    *n += count;
    return 0;
}

int an_pwire_deliver(an_pwire_t *w, const st_xchg_rec_t *h, st_xchg_reader_t *rd)
{
    size_t words = h->type == AN_REC_P2P_SEND ? SEND_WORDS : h->type == AN_REC_P2P_RECV ? RECV_WORDS : 0;
    if (!words)
        return 0;
    if (h->seq > h->len || h->len != h->seq * words * 8)
        return -1;
    int rc = h->type == AN_REC_P2P_SEND
           ? take_records(&w->got_send, &w->ngot_send, &w->cap_send, words, h->seq, w->nrecv, rd)
           : take_records(&w->got_recv, &w->ngot_recv, &w->cap_recv, words, h->seq, w->nsend, rd);
    return rc ? -1 : 1;
}

int an_pwire_join(an_pwire_t *w, an_ctx_t *c)
{
    if (an_msgs_reserve(&c->msgs, w->nrecv, w->nsend))
        return -1;
    send_rec_t *sr = (send_rec_t *)w->got_send;
    recv_rec_t *rr = (recv_rec_t *)w->got_recv;
    sort_ends(w->recv, w->nrecv), sort_send_recs(sr, w->ngot_send);
    sort_ends(w->send, w->nsend), sort_recv_recs(rr, w->ngot_recv);
    for (size_t i = 0, j = 0; i < w->nrecv && j < w->ngot_send;) { /* our receives, their sends */
        int k = cmp_key(w->recv[i].key, sr[j].w);
        if (k == 0) {
            const an_pw_end_t *e = &w->recv[i];
            c->msgs.recv[c->msgs.nrecv++] =
                (an_recv_t){ e->loc, (int32_t)(e->key[1] >> 32), e->ev, sr[j].w[5], sr[j].w[4], sr[j].w[6] };
        }
        i += k <= 0, j += k >= 0;
    }
    for (size_t i = 0, j = 0; i < w->nsend && j < w->ngot_recv;) { /* our sends, their receives */
        int k = cmp_key(w->send[i].key, rr[j].w);
        if (k == 0)
            c->msgs.send[c->msgs.nsend++] = (an_send_t){ w->send[i].loc, w->send[i].ev, rr[j].w[4] };
        i += k <= 0, j += k >= 0;
    }
    return 0;
}

void an_pwire_free(an_pwire_t *w)
{
    st_clc_free(w->send), st_clc_free(w->recv), st_clc_free(w->got_send), st_clc_free(w->got_recv);
    memset(w, 0, sizeof *w);
}
