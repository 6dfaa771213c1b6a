/*
 * late_ends.c — the OpenMP workers' late team ends stamped with their masters' times
 * (late_ends.h).
 */
#include "late_ends.h"

#include <stdlib.h>

#include "region.h"

static int push(st_late_end_at_t **v, size_t *n, size_t *cap, const st_thread_data_t *t, const st_event_t *e)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        st_late_end_at_t *g = realloc(*v, nc * sizeof *g);
        if (!g)
            return -1;
        *v = g, *cap = nc;
    }
    (*v)[(*n)++] = (st_late_end_at_t){ (st_thread_data_t *)t, (uint64_t)(e - t->events), e->id };
    return 0;
}

void st_late_ends_note(st_late_ends_t *le, const st_thread_data_t *t, const st_event_t *e)
{
    if (e->kind != ST_EV_THREAD_TEAM_END || le->failed)
        return;
    int rc = 0;
    if (e->tag == ST_OMP_LATE_END)
        rc = push(&le->late, &le->nlate, &le->caplate, t, e);
    else if (e->peer == 0)
        rc = push(&le->master, &le->nmaster, &le->capmaster, t, e);
    if (rc)
        le->failed = 1;
}

static inline const st_event_t *at(const st_late_end_at_t *a)
{
    return &a->t->events[a->pos];
}

static int cmp_id(const void *x, const void *y)
{
    uint64_t a = ((const st_late_end_at_t *)x)->id, b = ((const st_late_end_at_t *)y)->id;
    return a < b ? -1 : a > b;
}

/* The masters' ends sorted by id: one thread's come in the order of its ids (its regions' numbers), so they
 * usually are already. */
static void sort_masters(st_late_ends_t *le)
{
    for (size_t i = 1; i < le->nmaster; i++)
        if (le->master[i].id < le->master[i - 1].id) {
            qsort(le->master, le->nmaster, sizeof *le->master, cmp_id);
            return;
        }
}

static const st_late_end_at_t *find_master(const st_late_ends_t *le, uint64_t id)
{
    size_t lo = 0, hi = le->nmaster;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t m = le->master[mid].id;
        if (m == id)
            return &le->master[mid];
        if (m < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static inline uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
    return t < lo ? lo : t > hi ? hi : t;
}

/* When the master at ma left the team's last implicit barrier: its LEAVE of it, before its team end and the LEAVEs
 * that closed the team, a buffer flush possibly between; else its team end. An event's time, so that whatever the
 * finalize's re-mapping did to the master's times, the workers' barrier ends follow. */
static uint64_t master_barrier_end(const st_late_end_at_t *ma)
{
    const st_event_t *ev = ma->t->events;
    for (uint64_t k = ma->pos, steps = 0; k > 0 && steps < 16; k--, steps++) {
        const st_event_t *e = &ev[k - 1];
        if (e->kind == ST_EV_LEAVE && e->region == ST_REGION_OMP_IBARRIER)
            return e->time;
        if (e->kind != ST_EV_LEAVE && !(e->kind == ST_EV_ENTER && e->region == ST_REGION_FLUSH))
            break;
    }
    return ev[ma->pos].time;
}

/* One marked team end at a: its marked LEAVEs before it, and the last implicit barrier's LEAVE before those, stamped
 * from the master's team end at ma (NULL: none; the marks are only cleared). Returns 1 when stamped. */
static int stamp(const st_late_end_at_t *a, const st_late_end_at_t *ma)
{
    st_event_t *ev = a->t->events, *e = &ev[a->pos];
    uint64_t id = e->id, first = a->pos;
    while (first > 0 && ev[first - 1].kind == ST_EV_LEAVE && ev[first - 1].tag == ST_OMP_LATE_END &&
           ev[first - 1].id == id) {
        first--;
        ev[first].tag = 0, ev[first].id = 0;
    }
    e->tag = 0;
    if (!ma)
        return 0;
    const st_event_t *m = at(ma);
    uint64_t barrier = first > 0 && ev[first - 1].kind == ST_EV_LEAVE && ev[first - 1].region == ST_REGION_OMP_IBARRIER
                           ? first - 1 : UINT64_MAX;
    uint64_t from = barrier != UINT64_MAX ? barrier : first;
    /* between the worker's events before and after them, which keep their times */
    uint64_t lo = from > 0 ? ev[from - 1].time : 0;
    uint64_t hi = a->pos + 1 < a->t->nevents ? ev[a->pos + 1].time : UINT64_MAX;
    uint64_t te = clamp(m->time, lo, hi);
    for (uint64_t k = first; k <= a->pos; k++)
        ev[k].time = te, ev[k].epoch = m->epoch;
    if (barrier != UINT64_MAX) {
        ev[barrier].time = clamp(master_barrier_end(ma), lo, te);
        ev[barrier].epoch = m->epoch;
    }
    return 1;
}

uint64_t st_late_ends_resolve(st_late_ends_t *le)
{
    uint64_t lost = 0;
    if (!le->failed)
        sort_masters(le);
    for (size_t i = 0; i < le->nlate; i++)
        if (!stamp(&le->late[i], le->failed ? NULL : find_master(le, le->late[i].id)))
            lost++;
    free(le->master);
    free(le->late);
    *le = (st_late_ends_t){ 0 };
    return lost;
}
