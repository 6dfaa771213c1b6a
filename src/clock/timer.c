/* timer.c — clock selection and the atomically published local→global map. */
#include "timer.h"

#include "../config/config.h"

static const st_timer_map_t identity = { 0, 0.0, 0, 1 };

clockid_t st_timer_clock = CLOCK_MONOTONIC;
_Atomic(const st_timer_map_t *) st_timer_current = &identity;

void st_timer_init(int which)
{
    static const clockid_t ids[] = {
        [ST_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
        [ST_CLOCK_REALTIME] = CLOCK_REALTIME,
        [ST_CLOCK_MONOTONIC_RAW] = CLOCK_MONOTONIC_RAW,
        [ST_CLOCK_BOOTTIME] = CLOCK_BOOTTIME,
    };
    if (which >= 0 && which < (int)(sizeof ids / sizeof ids[0]))
        st_timer_clock = ids[which];
}

void st_timer_set_map(const st_timer_map_t *map)
{
    atomic_store_explicit(&st_timer_current, map, memory_order_release);
}

uint64_t st_timer_resolution_ns(void)
{
    struct timespec ts;
    if (clock_getres(st_timer_clock, &ts) != 0)
        return 1;
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return ns ? ns : 1;
}
