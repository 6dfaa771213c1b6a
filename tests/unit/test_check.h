/*
 * test_check.h — CHECK(cond, fmt, ...) for unit tests that report every failed check and
 * go on: each failure is counted in `failures` (main returns failures != 0). Tests that
 * stop at the first failure use test_clc_lib.h's CHECK instead.
 */
#ifndef ST_TEST_CHECK_H
#define ST_TEST_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            failures++;                                                              \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
        }                                                                            \
    } while (0)

#endif
