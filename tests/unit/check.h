/*
 * check.h — the checks of the unit tests (tests/unit/test_*.c), in two meanings:
 *
 *   EXPECT(cond[, fmt, ...])  a failed check is reported and counted in `failures`; the test
 *                             goes on (it ends with `return failures != 0`);
 *   REQUIRE(cond[, fmt, ...]) a failed check is reported and the test exits with status 1 at once
 *                             (for what later checks cannot do without);
 *   REQUIRE_EQ(a, b)          REQUIRE(a == b) as unsigned 64-bit numbers, both values reported.
 *
 * A report is "file:line: check failed: cond[: message]" on stderr, after `check_context` when a
 * test sets it (e.g. "[rank 2] "). The message is a printf format given as a string literal.
 * A check without a message leaves the macro's variadic part empty, which GCC and C23 accept
 * (the unit tests are not built with -pedantic).
 */
#ifndef ST_TEST_CHECK_H
#define ST_TEST_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures __attribute__((unused));
static char check_context[64] __attribute__((unused));

/* Reports one failed check; `fmt` is " " followed by the caller's message format, if any. */
__attribute__((format(printf, 4, 5), unused)) static void check_failed(const char *file, int line,
                                                                        const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "%s%s:%d: check failed: %s", check_context, file, line, cond);
    if (fmt[1]) {
        va_list ap;
        va_start(ap, fmt);
        fputc(':', stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
}

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            check_failed(__FILE__, __LINE__, #cond, " " __VA_ARGS__);          \
        }                                                                      \
    } while (0)

#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond)) {                                                         \
            check_failed(__FILE__, __LINE__, #cond, " " __VA_ARGS__);          \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#define REQUIRE_EQ(a, b)                                                                 \
    do {                                                                                 \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                 \
        if (a_ != b_) {                                                                  \
            fprintf(stderr, "%s%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n",  \
                    check_context, __FILE__, __LINE__, #a, a_, #b, b_);                  \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#endif
