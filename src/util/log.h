/*
 * log.h — the one way synctrace talks to the user.
 *
 * Every line starts with "synctrace: " (and the rank once known). Errors and warnings
 * always print; info prints with SYNCTRACE_VERBOSE>=1, debug with >=2. st_log_once()
 * suppresses repeats of the same call site. Thread-safe; not async-signal-safe
 * (use st_log_raw() from signal handlers).
 */
#ifndef ST_LOG_H
#define ST_LOG_H

#include <stdarg.h>

#define ST_FMT(a, b) __attribute__((format(printf, a, b)))

void st_log_set_rank(int rank);
void st_log_set_verbosity(int level);
int  st_log_verbosity(void);

void st_log_error(const char *fmt, ...) ST_FMT(1, 2);
void st_log_warn(const char *fmt, ...) ST_FMT(1, 2);
void st_log_info(const char *fmt, ...) ST_FMT(1, 2);
void st_log_debug(const char *fmt, ...) ST_FMT(1, 2);

/* Writes a literal message with write(2); safe inside signal handlers. */
void st_log_raw(const char *msg);

/* The text of an errno value ("No space left on device"), the same in every locale; async-signal-safe. */
const char *st_errno_text(int err);

/* Warn once per call site: `static int flag; st_log_once(&flag, ...)`. */
#define st_log_warn_once(fmt, ...)                       \
    do {                                                 \
        static int st_once_;                             \
        if (!__atomic_exchange_n(&st_once_, 1, __ATOMIC_RELAXED)) \
            st_log_warn(fmt, ##__VA_ARGS__);             \
    } while (0)

#endif
