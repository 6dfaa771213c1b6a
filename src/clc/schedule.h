/*
 * schedule.h — the scheduler of a forward pass over locations, one definition for the sequential
 * reference (run.c) and the parallel engine (replay_forward.c): a ring of runnable locations
 * and, per instance, the locations blocked on it (a receive whose sends are not computed yet).
 *
 * A location runs (st_clc_forward_loc) until it blocks on an instance; the caller then parks it
 * there (st_clc_sched_wait) and, when the instance's state changes, wakes every location parked
 * on it (st_clc_sched_wake), which puts them back in the ring. A location is runnable while its
 * pass has events left (fwd[l].pos < locs[l].n); the ring holds each location at most once.
 * The caller allocates the arrays and sets them to "nothing waits, nothing queued" (wait_head
 * and wait_next all ST_CLC_SCHED_NONE, queued all 0, qhead = qlen = 0).
 */
#ifndef ST_CLC_SCHEDULE_H
#define ST_CLC_SCHEDULE_H

#include <stdint.h>

#include "clc.h"

#define ST_CLC_SCHED_NONE UINT32_MAX

typedef struct st_clc_sched {
    uint32_t           *wait_head; /* [ninst] first location waiting on the instance; ST_CLC_SCHED_NONE */
    uint32_t           *wait_next; /* [nlocs] the next location waiting on the same instance */
    uint32_t           *queue;     /* [nlocs] ring of runnable locations */
    uint8_t            *queued;    /* [nlocs] whether the location is in the ring */
    uint32_t            qhead, qlen;
    uint32_t            nlocs;     /* the ring's size */
    const st_clc_fwd_t *fwd;       /* [nlocs] the locations' forward states */
    const st_rel_loc_t *locs;      /* [nlocs] the locations (their event counts) */
} st_clc_sched_t;

/* Puts location l in the ring, unless it is there already or its pass is complete. */
static inline void st_clc_sched_enqueue(st_clc_sched_t *s, uint32_t l)
{
    if (s->queued[l] || s->fwd[l].pos >= s->locs[l].n)
        return;
    s->queued[l] = 1;
    s->queue[(s->qhead + s->qlen++) % s->nlocs] = l;
}

/* Takes the next runnable location out of the ring (qlen > 0). */
static inline uint32_t st_clc_sched_next(st_clc_sched_t *s)
{
    uint32_t l = s->queue[s->qhead];
    s->qhead = (s->qhead + 1) % s->nlocs;
    s->qlen--;
    s->queued[l] = 0;
    return l;
}

/* Parks location l, blocked on instance k, until st_clc_sched_wake(s, k). */
static inline void st_clc_sched_wait(st_clc_sched_t *s, uint32_t l, uint64_t k)
{
    s->wait_next[l] = s->wait_head[k];
    s->wait_head[k] = l;
}

/* Instance k's state changed: every location parked on it goes back to the ring. */
static inline void st_clc_sched_wake(st_clc_sched_t *s, uint64_t k)
{
    for (uint32_t l = s->wait_head[k]; l != ST_CLC_SCHED_NONE;) {
        uint32_t next = s->wait_next[l];
        s->wait_next[l] = ST_CLC_SCHED_NONE;
        st_clc_sched_enqueue(s, l);
        l = next;
    }
    s->wait_head[k] = ST_CLC_SCHED_NONE;
}

/* Takes location l off instance k's list (before it is forced through a cycle). */
static inline void st_clc_sched_unlink(st_clc_sched_t *s, uint64_t k, uint32_t l)
{
    for (uint32_t *pp = &s->wait_head[k]; *pp != ST_CLC_SCHED_NONE; pp = &s->wait_next[*pp])
        if (*pp == l) {
            *pp = s->wait_next[l];
            s->wait_next[l] = ST_CLC_SCHED_NONE;
            return;
        }
}

#endif
