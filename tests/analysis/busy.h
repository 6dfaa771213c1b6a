/*
 * busy.h — computing for a known time, for the root-cause test programs (rootcause.c, rcomp.c):
 * the injected imbalance whose delay costs the tests expect. Header-only: each program is built alone.
 */
#ifndef ST_TEST_BUSY_H
#define ST_TEST_BUSY_H

#include <time.h>

static volatile double busy_sink;

static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Computes until ms milliseconds have passed on the clock. */
static inline void busy_ms(double ms)
{
    double end = now_ms() + ms, x = 1.0;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    busy_sink = x;
}

#endif
