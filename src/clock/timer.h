/*
 * timer.h — the clock every event is stamped with.
 *
 * st_timer_local() reads the selected clock_gettime clock (through the PLT, so a
 * preloaded library can skew it in tests). st_timer_now() maps it to the global
 * clock with the current map: G(L) = L + a + b·(L - t0). Clock synchronization
 * (sync.c) publishes a new map at every sync epoch with st_timer_set_map(); readers
 * take no lock, allocate nothing and make no call beyond clock_gettime. Every map
 * carries its epoch number so that a recorder can remember which map stamped an
 * event (st_timer_now_ep) and the finalize step can recover the local time exactly.
 * Thread-safe.
 */
#ifndef ST_TIMER_H
#define ST_TIMER_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Linear map from local to global time, already flattened (see clock/model.h). */
typedef struct st_timer_map {
    int64_t  a;     /* offset at t0, ns */
    double   b;     /* drift, ns per ns */
    uint64_t t0;    /* local time the drift is measured from */
    uint32_t epoch; /* 1: the local clock before the initial sync; +1 per published map */
} st_timer_map_t;

extern clockid_t st_timer_clock;
extern _Atomic(const st_timer_map_t *) st_timer_current;

/* Selects the clock (one of ST_CLOCK_* from config.h). Not thread-safe; call at start-up. */
void st_timer_init(int which);

/*
 * Publishes a new map. The caller keeps *map alive and unchanged forever (maps are
 * never freed: a reader may still hold the old pointer). Thread-safe.
 */
void st_timer_set_map(const st_timer_map_t *map);

/* Resolution of the selected clock in ns (clock_getres), at least 1. */
uint64_t st_timer_resolution_ns(void);

static inline uint64_t st_timer_local(void)
{
    struct timespec ts;
    clock_gettime(st_timer_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t st_timer_apply(const st_timer_map_t *m, uint64_t local)
{
    int64_t dl = (int64_t)(local - m->t0);
    return local + (uint64_t)(m->a + (int64_t)(m->b * (double)dl));
}

static inline uint64_t st_timer_now(void)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    return st_timer_apply(m, st_timer_local());
}

/* st_timer_now() that also reports the epoch of the map it used (for event records). */
static inline uint64_t st_timer_now_ep(uint32_t *epoch)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    *epoch = m->epoch;
    return st_timer_apply(m, st_timer_local());
}

#endif
