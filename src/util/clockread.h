/*
 * clockread.h — a POSIX clock's reading in the unit its caller counts in: the tool's own timings
 * (how long a phase, a wait or a step took, in wall or CPU time), never the events' stamps (those
 * come from src/clock/timer.h). A clock that cannot be read reads 0.
 */
#ifndef ST_CLOCKREAD_H
#define ST_CLOCKREAD_H

#include <stdint.h>
#include <time.h>

static inline struct timespec st_clockread_ts(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        ts.tv_sec = 0, ts.tv_nsec = 0;
    return ts;
}

static inline int64_t st_clock_ns(clockid_t id)
{
    struct timespec ts = st_clockread_ts(id);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline double st_clock_ms(clockid_t id)
{
    struct timespec ts = st_clockread_ts(id);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline double st_clock_s(clockid_t id)
{
    struct timespec ts = st_clockread_ts(id);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* ST_CLOCKREAD_H */
