/*
 * timer.h — the clock every event is stamped with.
 *
 * st_timer_local() reads the selected clock_gettime clock (through the PLT, so a
 * preloaded library can skew it in tests). st_timer_now() maps it to the global
 * clock with the current model: G(L) = L + a + b·(L - t0). The model is swapped
 * atomically at (re)synchronization; readers take no lock. Thread-safe.
 */
#ifndef ST_TIMER_H
#define ST_TIMER_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Linear map from local to global time, already flattened (see clock/model.h). */
typedef struct st_timer_map {
    int64_t  a;  /* offset at t0, ns */
    double   b;  /* drift, ns per ns */
    uint64_t t0; /* local time the drift is measured from */
} st_timer_map_t;

extern clockid_t st_timer_clock;
extern _Atomic(const st_timer_map_t *) st_timer_current;

/* Selects the clock (one of ST_CLOCK_* from config.h). Not thread-safe; call at start-up. */
void st_timer_init(int which);

/* Publishes a new map; the old one stays valid forever (maps are never freed). */
void st_timer_set_map(const st_timer_map_t *map);

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

#endif
