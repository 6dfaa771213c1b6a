/*
 * true_time.h — the true time in ms for the injected-waits programs (waits.c, icoll.c): the
 * clock-skew library's ground truth when it is loaded (tests/skew/skew.h: it skews clock_gettime
 * per rank and exports skew_true_ns), else CLOCK_MONOTONIC. Link with -ldl.
 */
#ifndef ST_TEST_TRUE_TIME_H
#define ST_TEST_TRUE_TIME_H

#include <dlfcn.h>
#include <stdint.h>
#include <time.h>

static inline double now_ms(void)
{
    static uint64_t (*true_ns)(clockid_t);
    static int looked;
    if (!looked) {
        *(void **)&true_ns = dlsym(RTLD_DEFAULT, "skew_true_ns");
        looked = 1;
    }
    if (true_ns)
        return true_ns(CLOCK_MONOTONIC) / 1e6;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
