/* log.c — formatted, rank-tagged messages on stderr. */
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int log_rank = -1;
static int log_level;

void st_log_set_rank(int rank) { log_rank = rank; }
void st_log_set_verbosity(int level) { log_level = level; }
int st_log_verbosity(void) { return log_level; }

static void emit(const char *what, const char *fmt, va_list ap)
{
    char line[1024];
    int n;
    if (log_rank >= 0)
        n = snprintf(line, sizeof line, "synctrace[%d]: %s", log_rank, what);
    else
        n = snprintf(line, sizeof line, "synctrace: %s", what);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    size_t len = strlen(line);
    if (len + 1 < sizeof line) {
        line[len++] = '\n';
        line[len] = 0;
    }
    /* One write per line keeps lines of concurrent ranks from interleaving. */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

#define ST_LOG_FN(fn, what, min)           \
    void fn(const char *fmt, ...)          \
    {                                      \
        if (log_level < (min))             \
            return;                        \
        va_list ap;                        \
        va_start(ap, fmt);                 \
        emit(what, fmt, ap);               \
        va_end(ap);                        \
    }

ST_LOG_FN(st_log_error, "error: ", 0)
ST_LOG_FN(st_log_warn, "warning: ", 0)
ST_LOG_FN(st_log_info, "", 1)
ST_LOG_FN(st_log_debug, "debug: ", 2)

const char *st_errno_text(int err)
{
    const char *t = err > 0 ? strerrordesc_np(err) : NULL; /* a constant table: no locale, no buffer */
    return t ? t : "unknown error";
}

void st_log_raw(const char *msg)
{
    ssize_t w = write(STDERR_FILENO, msg, strlen(msg));
    (void)w;
}
