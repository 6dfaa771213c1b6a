/*
 * latesender.c — Late Sender and Late Sender, Wrong Order (docs/analysis.md, "Metrics"; Scalasca's
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
 * The receives' counts and bytes are added in the same pass. The receives are c->msgs.recv
 * (internal.h), sorted here by location and event.
 */
#include "internal.h"

#include <stdlib.h>

#include "../util/mem.h"
#include "../util/msort.h"
#include "patterns.h"

#define WO_BUFFER 100

/* A received message as the replay sees it. */
typedef struct rmsg {
    uint32_t loc;
    int32_t  src;    /* sender's world rank */
    uint64_t call;   /* the call completing it */
    uint64_t t_send; /* the send event's time */
    int64_t  w;      /* its Late Sender wait (before the per-call rules) */
} rmsg_t;

/* The buffer in counting order; t_max bounds its send times from above (exact after a scan), so a
 * receive sent at or after it skips the scan: nothing can leave. */
typedef struct { rmsg_t v[WO_BUFFER]; uint32_t n; uint64_t t_max; } wo_buf_t;

static inline int cmp_recv(const an_recv_t *x, const an_recv_t *y)
{
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}
static int cmp_recv_void(const void *a, const void *b) { return cmp_recv(a, b); }
ST_MSORT(sort_recv, an_recv_t, cmp_recv)

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

/* The receive's counts (by the send's size, bytes as received) and, for a receive completed
 * by a call, its replay message; 0 when there is none. */
static int received(an_ctx_t *c, const an_recv_t *r, rmsg_t *m)
{
    const st_event_t *re = &c->in->locs[r->loc].ev[r->ev];
    uint64_t rcall = an_call(c, r->loc, r->ev);
    an_add(c, r->sbytes ? ST_AN_M_COMMS_RECV : ST_AN_M_SYNCS_RECV, r->loc, rcall, 1);
    an_add(c, ST_AN_M_BYTES_RCVD, r->loc, rcall, (double)re->bytes);
    if (rcall == AN_NO_EV)
        return 0;
    c->res->stats.ls_violations += r->t_send > an_time(c, r->loc, r->ev);
    int64_t w = r->t_scall == AN_NO_TIME ? 0
              : st_an_late_sender(r->t_scall, an_time(c, r->loc, rcall), an_leave_time(c, r->loc, rcall));
    *m = (rmsg_t){ r->loc, r->src, rcall, r->t_send, w };
    return 1;
}

/* One location's receives r[0 .. n). */
static int replay_loc(an_ctx_t *c, const an_recv_t *r, size_t n, wo_buf_t *b, an_waits_t *ls)
{
    rmsg_t pending, m; /* pending: the largest Late Sender of the multi wait in progress */
    int have = 0;
    b->n = 0, b->t_max = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + AN_PREFETCH_AHEAD < n)
            an_prefetch_event(c, r[i + AN_PREFETCH_AHEAD].loc, r[i + AN_PREFETCH_AHEAD].ev);
        if (!received(c, &r[i], &m))
            continue;
        if (have && pending.call != m.call) {
            if (counted(c, b, &pending, ls))
                return -1;
            have = 0;
        }
        wrong_order(c, b, &m);
        uint32_t region = an_region(c, m.loc, m.call);
        if (m.w <= 0 || an_is_test(region))
            continue;
        if (an_is_multi_wait(region)) {
            if (!have || m.w > pending.w)
                pending = m, have = 1;
        } else if (counted(c, b, &m, ls)) {
            return -1;
        }
    }
    return have ? counted(c, b, &pending, ls) : 0;
}

int an_late_sender(an_ctx_t *c, an_waits_t *ls)
{
    const an_recv_t *r = c->msgs.recv;
    size_t n = c->msgs.nrecv;
    wo_buf_t *b = malloc(sizeof *b);
    int rc = b ? 0 : -1;
    sort_recv(c->msgs.recv, n);
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        for (j = i; j < n && r[j].loc == r[i].loc; j++)
            ;
        rc = replay_loc(c, r + i, j - i, b, ls);
    }
    free(b);
    return rc;
}
