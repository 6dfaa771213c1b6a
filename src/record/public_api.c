/*
 * public_api.c — the application-facing API declared in include/synctrace.h.
 * Both functions are lock-free and async-signal-safe.
 */
#define SYNCTRACE_BUILDING 1
#include "synctrace.h"

#include "../clock/timer.h"
#include "record.h"

int synctrace_enabled(void)
{
    return st_record_active != 0;
}

uint64_t synctrace_global_time_ns(void)
{
    return st_timer_now();
}
