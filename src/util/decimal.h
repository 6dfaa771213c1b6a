/* decimal.h — an unsigned integer in decimal, without printf: async-signal-safe (the dumps of an abnormal end
 * and their paths) and cheap where numbers are many (analysis.json's critical path). */
#ifndef ST_UTIL_DECIMAL_H
#define ST_UTIL_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* v in decimal at out (room for 21 bytes: 20 digits at the most and a '\0'); returns the digits' count. */
static inline size_t st_u64_dec(char *out, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while (v /= 10);
    for (size_t i = 0; i < n; i++)
        out[i] = t[n - 1 - i];
    out[n] = 0;
    return n;
}

#endif
