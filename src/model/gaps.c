/* gaps.c — closing the regions a hole in a location's events leaves open (gaps.h). */
#include "gaps.h"

#include <stdlib.h>

#include "../util/hugealloc.h"

/* The open regions, innermost last. */
typedef struct {
    uint32_t *v;
    size_t    n, cap;
} stack_t_;

static int push(stack_t_ *s, uint32_t region)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        uint32_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = region;
    return 0;
}

/*
 * One pass over the events: with out == NULL it only counts (*nout, *ndrop); else it writes
 * the events as kept into out. The stack's depth at a hole is the number of LEAVEs added there.
 */
static int walk(const st_event_t *ev, size_t n, const st_gap_t *gaps, size_t ngaps, st_event_t *out,
                size_t *nout, uint64_t *ndrop)
{
    stack_t_ s = { 0 };
    size_t k = 0, g = 0;
    uint64_t drop = 0;
    const st_event_t *last = NULL; /* the last event kept */
    for (size_t i = 0; i <= n; i++) {
        for (; g < ngaps && gaps[g].at <= i; g++) { /* a hole before event i (or a range from it) */
            for (; s.n; s.n--) {
                if (out) /* (an open region means an ENTER was kept: last is set) */
                    out[k] = (st_event_t){ .kind = ST_EV_LEAVE, .region = s.v[s.n - 1], .peer = -1,
                                           .time = last->time, .epoch = last->epoch };
                k++;
            }
            if (gaps[g].upto > i) { /* widened: events at [at, upto) go too */
                size_t upto = gaps[g].upto < n ? (size_t)gaps[g].upto : n;
                drop += upto - i;
                i = upto;
            }
        }
        if (i == n)
            break;
        const st_event_t *e = &ev[i];
        if (e->kind == ST_EV_ENTER) {
            if (push(&s, e->region) != 0) {
                free(s.v);
                return -1;
            }
        } else if (e->kind == ST_EV_LEAVE) {
            if (!s.n || s.v[s.n - 1] != e->region) { /* its ENTER was in a hole */
                drop++;
                continue;
            }
            s.n--;
        }
        if (out)
            out[k] = *e;
        k++;
        last = e;
    }
    free(s.v);
    *nout = k;
    *ndrop = drop;
    return 0;
}

st_event_t *st_events_close_gaps(st_event_t *ev, size_t *n, const st_gap_t *gaps, size_t ngaps, uint64_t *dropped)
{
    size_t nout;
    uint64_t ndrop;
    if (dropped)
        *dropped = 0;
    if (!ngaps || !*n)
        return ev;
    if (walk(ev, *n, gaps, ngaps, NULL, &nout, &ndrop) != 0)
        return NULL;
    if (nout == *n && !ndrop)
        return ev; /* nothing open at any hole, nothing orphaned */
    st_event_t *out = st_huge_alloc((nout ? nout : 1) * sizeof *out);
    if (!out || walk(ev, *n, gaps, ngaps, out, &nout, &ndrop) != 0) {
        free(out);
        return NULL;
    }
    free(ev);
    *n = nout;
    if (dropped)
        *dropped = ndrop;
    return out;
}
