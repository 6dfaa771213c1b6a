/* timer.c — clock and timer selection and the atomically published local→global map. */
#include "timer.h"

#include "../config/config.h"
#include "../util/log.h"
#include "tsc.h"

static st_timer_map_t identity = { .epoch = 1 }; /* its TSC form: st_timer_init */

clockid_t st_timer_clock = CLOCK_MONOTONIC;
int st_timer_tsc;
st_tsc_conv_t st_tsc_conv;
_Atomic(const st_timer_map_t *) st_timer_current = &identity;

int st_timer_tsc_shared;

/* The TSC where asked for (tsc) or where invariant (auto). */
static void select_tsc(int timer)
{
    if (timer == ST_TIMER_CLOCK)
        return;
#if defined(__x86_64__)
    int inv = st_tsc_invariant(NULL);
    if (timer == ST_TIMER_AUTO && !inv)
        return;
    if (timer == ST_TIMER_TSC && !inv)
        st_log_warn_once("SYNCTRACE_TIMER=tsc: /proc/cpuinfo does not list constant_tsc and nonstop_tsc; "
                         "using the TSC all the same (times may be wrong if its rate changes)");
    int shared = 0;
    if (st_tsc_calibrate(&st_tsc_conv, &shared) != 0) {
        if (timer == ST_TIMER_TSC)
            st_log_warn_once("SYNCTRACE_TIMER=tsc: cannot calibrate the TSC; using clock_gettime");
        return;
    }
    if (!shared)
        st_log_info("cannot share the TSC conversion through /dev/shm: this process measured its own, a few ppm off "
                    "its neighbours' (clock sync inside a node assumes one clock)");
    st_timer_tsc = 1;
    st_timer_tsc_shared = shared;
#else
    if (timer == ST_TIMER_TSC)
        st_log_warn_once("SYNCTRACE_TIMER=tsc: no time-stamp counter on this CPU; using clock_gettime");
#endif
}

void st_timer_init(int which, int timer)
{
    static const clockid_t ids[] = {
        [ST_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
        [ST_CLOCK_REALTIME] = CLOCK_REALTIME,
        [ST_CLOCK_MONOTONIC_RAW] = CLOCK_MONOTONIC_RAW,
        [ST_CLOCK_BOOTTIME] = CLOCK_BOOTTIME,
    };
    if (which >= 0 && which < (int)(sizeof ids / sizeof ids[0]))
        st_timer_clock = ids[which];
    st_timer_tsc = st_timer_tsc_shared = 0;
    select_tsc(timer);
    st_timer_map_tsc(&identity);
}

void st_timer_map_tsc(st_timer_map_t *m)
{
    m->tsc0 = st_tsc_conv.tsc0, m->g0 = 0, m->gm = 0;
    /* ns per tick x (1 + b), in 0.64 fixed point: below 1 (a TSC above 1 GHz) */
    long double gm = (long double)st_tsc_conv.mult * 4294967296.0L * (1.0L + (long double)m->b);
    if (!st_timer_tsc || !(gm > 0) || gm >= 18446744073709551615.0L)
        return;
    m->gm = (uint64_t)(gm + 0.5L);
    /* G(ns0) = ns0 + a + b (ns0 - t0) */
    m->g0 = (int64_t)st_tsc_conv.ns0 + m->a + (int64_t)(m->b * (double)(int64_t)(st_tsc_conv.ns0 - m->t0));
}

uint64_t st_timer_global_early(const st_timer_map_t *m, uint64_t tsc)
{
    return st_timer_apply(m, st_tsc_to_ns(tsc));
}

uint64_t st_timer_global_local(const st_timer_map_t *m, int ordered)
{
    return st_timer_apply(m, ordered ? st_timer_local() : st_timer_stamp());
}

void st_timer_set_map(st_timer_map_t *map)
{
    st_timer_map_tsc(map);
    atomic_store_explicit(&st_timer_current, map, memory_order_release);
}

uint64_t st_timer_resolution_ns(void)
{
    if (st_timer_tsc)
        return 1;
    struct timespec ts;
    if (clock_getres(st_timer_clock, &ts) != 0)
        return 1;
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return ns ? ns : 1;
}
