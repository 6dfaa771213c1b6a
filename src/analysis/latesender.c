/*
 * latesender.c — Late Sender and Late Sender, Wrong Order (ANALYSIS.md §2; Scalasca's
 * MPI_LATESENDER, MPI_LATESENDER_WO, MPI_LSWO_DIFFERENT / _SAME).
 *
 * Each location's receives are replayed in event order:
 *  - Late Sender of a receive: min(E(send call), L(recv call)) - E(recv call), at the call
 *    that completed it (Recv, Sendrecv, the Wait of an Irecv); Test calls are skipped; a
 *    multi wait (Waitall, Waitsome) gets the largest of its receives, once, as it ends.
 *  - Every counted Late Sender enters a buffer of the last 100 (the oldest drops out). At
 *    every later receive, each buffered instance whose send event is later than this
 *    receive's send leaves the buffer and its wait counts as Wrong Order too (same source:
 *    both messages came from the same rank), at the buffered receive's call path.
 */
#include "internal.h"

#include <stdlib.h>

#include "../clc/mem.h"
#include "patterns.h"

#define WO_BUFFER 100

/* One received message. */
typedef struct rmsg {
    uint32_t loc;
    int32_t  src;    /* sender's world rank */
    uint64_t ev;     /* the receive event */
    uint64_t call;   /* the call completing it */
    uint64_t t_send; /* the send event's time */
    int64_t  w;      /* its Late Sender wait (before the per-call rules) */
} rmsg_t;

/* The buffer in counting order; t_max bounds its send times from above (exact after a scan), so a
 * receive sent at or after it skips the scan: nothing can leave. */
typedef struct { rmsg_t v[WO_BUFFER]; uint32_t n; uint64_t t_max; } wo_buf_t;

static int cmp_rmsg(const void *a, const void *b)
{
    const rmsg_t *x = a, *y = b;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

/* The received messages of every location, in event order. */
static int collect(an_ctx_t *c, rmsg_t **out, size_t *n)
{
    *n = 0;
    if (!(*out = st_clc_malloc(sizeof **out * (c->g->ninst + 1))))
        return -1;
    for (uint64_t k = 0; k < c->g->ninst; k++) {
        const st_clc_inst_t *in = &c->g->inst[k];
        if (st_clc_inst_type(in) != ST_CLC_KEY_P2P || in->nsend != 1 || in->nrecv != 1)
            continue;
        const st_clc_ref_t *s = &c->g->refs[in->first], *r = s + 1;
        if (r->loc >= c->nreal)
            continue; /* a stand-in's receive (parallel.c): nothing of it is reported */
        uint64_t scall = an_call(c, s->loc, s->ev), rcall = an_call(c, r->loc, r->ev);
        if (rcall == AN_NO_EV)
            continue;
        uint64_t ts = an_time(c, s->loc, s->ev);
        c->res->stats.ls_violations += ts > an_time(c, r->loc, r->ev);
        int64_t w = scall == AN_NO_EV ? 0
                  : st_an_late_sender(an_time(c, s->loc, scall), an_time(c, r->loc, rcall),
                                      an_leave_time(c, r->loc, rcall));
        (*out)[(*n)++] = (rmsg_t){ r->loc, c->in->locs[s->loc].rank, r->ev, rcall, ts, w };
    }
    an_sort(*out, *n, sizeof **out, cmp_rmsg);
    return 0;
}

/* A receive with send time t_send from src: buffered instances sent later were received in the wrong order. */
static void wrong_order(an_ctx_t *c, wo_buf_t *b, const rmsg_t *m)
{
    if (b->t_max <= m->t_send)
        return;
    uint32_t keep = 0;
    b->t_max = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const rmsg_t *x = &b->v[i];
        if (x->t_send <= m->t_send) {
            b->t_max = x->t_send > b->t_max ? x->t_send : b->t_max;
            b->v[keep++] = *x;
            continue;
        }
        an_add(c, ST_AN_M_LATESENDER_WO, x->loc, x->call, (double)x->w);
        an_add(c, x->src == m->src ? ST_AN_M_LSWO_SAME : ST_AN_M_LSWO_DIFF, x->loc, x->call, (double)x->w);
    }
    b->n = keep;
}

/* A counted Late Sender: severity, buffer, and the call noted for the Late Receiver rule. */
static int counted(an_ctx_t *c, wo_buf_t *b, const rmsg_t *m, an_waits_t *ls)
{
    an_add(c, ST_AN_M_LATESENDER, m->loc, m->call, (double)m->w);
    if (b->n == WO_BUFFER) {
        for (uint32_t i = 1; i < b->n; i++)
            b->v[i - 1] = b->v[i];
        b->n--;
    }
    b->v[b->n++] = *m;
    b->t_max = m->t_send > b->t_max ? m->t_send : b->t_max;
    return an_waits_push(ls, (an_wait_t){ m->loc, 0, m->call, m->w });
}

/* One location's receives m[0 .. n). */
static int replay_loc(an_ctx_t *c, const rmsg_t *m, size_t n, wo_buf_t *b, an_waits_t *ls)
{
    const rmsg_t *pending = NULL; /* the largest Late Sender of the multi wait in progress */
    b->n = 0, b->t_max = 0;
    for (size_t i = 0; i < n; i++) {
        if (pending && pending->call != m[i].call) {
            if (counted(c, b, pending, ls))
                return -1;
            pending = NULL;
        }
        wrong_order(c, b, &m[i]);
        uint32_t region = an_region(c, m[i].loc, m[i].call);
        if (m[i].w <= 0 || an_is_test(region))
            continue;
        if (an_is_multi_wait(region)) {
            if (!pending || m[i].w > pending->w)
                pending = &m[i];
        } else if (counted(c, b, &m[i], ls)) {
            return -1;
        }
    }
    return pending ? counted(c, b, pending, ls) : 0;
}

int an_late_sender(an_ctx_t *c, an_waits_t *ls)
{
    rmsg_t *m = NULL;
    size_t n = 0;
    wo_buf_t *b = malloc(sizeof *b);
    int rc = b ? collect(c, &m, &n) : -1;
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        for (j = i; j < n && m[j].loc == m[i].loc; j++)
            ;
        rc = replay_loc(c, m + i, j - i, b, ls);
    }
    st_clc_free(m), free(b);
    return rc;
}
