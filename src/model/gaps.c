/* gaps.c — closing the regions a hole in a location's events leaves open (gaps.h). */
#include "gaps.h"

#include <stdlib.h>
#include <string.h>

#include "../util/hugealloc.h"
#include "../util/mem.h"

/* What a later event closes: a region (ENTER .. LEAVE, by region), a thread's part in a team
 * (TEAM_BEGIN .. TEAM_END) and a master's team (FORK .. JOIN), both by parallel id. */
enum { NOTHING, REGION, TEAM, FORKED, KINDS };

static int opens(const st_event_t *e)
{
    return e->kind == ST_EV_ENTER ? REGION : e->kind == ST_EV_THREAD_TEAM_BEGIN ? TEAM
         : e->kind == ST_EV_THREAD_FORK ? FORKED : NOTHING;
}
static int closes(const st_event_t *e)
{
    return e->kind == ST_EV_LEAVE ? REGION : e->kind == ST_EV_THREAD_TEAM_END ? TEAM
         : e->kind == ST_EV_THREAD_JOIN ? FORKED : NOTHING;
}
static int same_thing(const st_event_t *open, const st_event_t *close)
{
    return open->kind == ST_EV_ENTER ? open->region == close->region : open->id == close->id;
}

/* The event that closes `open` at the time of `last` (the last event kept before a hole). */
static st_event_t closing(const st_event_t *open, const st_event_t *last)
{
    st_event_t x = { .time = last->time, .epoch = last->epoch, .peer = -1 };
    switch (opens(open)) {
    case REGION: x.kind = ST_EV_LEAVE, x.region = open->region; break;
    case TEAM: x.kind = ST_EV_THREAD_TEAM_END, x.id = open->id, x.peer = open->peer; break;
    default: x.kind = ST_EV_THREAD_JOIN, x.id = open->id, x.aux = open->aux; break;
    }
    return x;
}

/* What is open (indices of the opening events), in the order it was opened. */
typedef struct {
    size_t *v;
    size_t  n, cap;
} open_t;

static int push(open_t *s, size_t i)
{
    if (st_mem_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != 0)
        return -1;
    s->v[s->n++] = i;
    return 0;
}

/* Closes the innermost open thing of e's class if e closes it; 0 when e closes nothing open (an orphan). */
static int close_one(open_t *s, const st_event_t *ev, const st_event_t *e)
{
    int cls = closes(e);
    for (size_t j = s->n; j-- > 0;) {
        const st_event_t *o = &ev[s->v[j]];
        if (opens(o) != cls)
            continue;
        if (!same_thing(o, e))
            return 0;
        memmove(&s->v[j], &s->v[j + 1], (s->n - j - 1) * sizeof *s->v);
        s->n--;
        return 1;
    }
    return 0;
}

/*
 * After a hole in an OpenMP team (a TEAM_BEGIN or FORK open before it): the index of the event that
 * ends that team on this thread (its TEAM_END or JOIN, whose beginning the hole has cut off), looked
 * for in ev[i .. end); end when there is none (the team ended inside the hole). Until then the thread
 * is inside a team whose beginning is lost, so those events belong to no team the readers know.
 */
static size_t team_rest(const st_event_t *ev, size_t i, size_t end, const int open_class[KINDS])
{
    size_t last = end;
    for (int cls = TEAM; cls <= FORKED; cls++) {
        if (!open_class[cls])
            continue;
        long depth = 0;
        for (size_t j = i; j < end; j++) {
            depth += opens(&ev[j]) == cls;
            if (closes(&ev[j]) == cls && depth-- == 0) {
                last = last == end || j > last ? j : last;
                break;
            }
        }
    }
    return last;
}

/*
 * One pass over the events: with out == NULL it only counts (*nout, *ndrop); else it writes
 * the events as kept into out. What is open at a hole is closed there, innermost first; the rest
 * of an OpenMP team the hole cut into is dropped (team_rest).
 */
static int walk(const st_event_t *ev, size_t n, const st_gap_t *gaps, size_t ngaps, st_event_t *out,
                size_t *nout, uint64_t *ndrop)
{
    open_t s = { 0 };
    size_t k = 0, g = 0;
    uint64_t drop = 0;
    const st_event_t *last = NULL; /* the last event kept */
    for (size_t i = 0; i <= n; i++) {
        for (; g < ngaps && gaps[g].at <= i; g++) { /* a hole before event i (or a range from it) */
            int open_class[KINDS] = { 0 };
            for (; s.n; s.n--, k++) { /* (something open means an event was kept: last is set) */
                open_class[opens(&ev[s.v[s.n - 1]])] = 1;
                if (out)
                    out[k] = closing(&ev[s.v[s.n - 1]], last);
            }
            if (gaps[g].upto > i) { /* widened: events at [at, upto) go too */
                size_t upto = gaps[g].upto < n ? (size_t)gaps[g].upto : n;
                drop += upto - i;
                i = upto;
            }
            size_t end = g + 1 < ngaps && gaps[g + 1].at < n ? (size_t)gaps[g + 1].at : n;
            size_t rest = open_class[TEAM] || open_class[FORKED] ? team_rest(ev, i, end, open_class) : end;
            if (rest < end) {
                drop += rest + 1 - i;
                i = rest + 1;
            }
        }
        if (i == n)
            break;
        const st_event_t *e = &ev[i];
        if (opens(e) && push(&s, i) != 0) {
            st_mem_free(s.v);
            return -1;
        }
        if (closes(e) && !close_one(&s, ev, e)) { /* what it closes began in a hole */
            drop++;
            continue;
        }
        if (out)
            out[k] = *e;
        k++;
        last = e;
    }
    st_mem_free(s.v);
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
