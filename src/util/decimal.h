/* decimal.h — an unsigned integer in decimal, without printf: async-signal-safe (the dumps of an abnormal end
 * and their paths) and cheap where numbers are many (analysis.json's critical path). */
#ifndef ST_UTIL_DECIMAL_H
#define ST_UTIL_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* v in decimal at out (room for 21 bytes: 20 digits at the most and a '\0'); returns the digits' count. Two
 * digits per division. */
static inline size_t st_u64_dec(char *out, uint64_t v)
{
    static const char pairs[201] =
        "0001020304050607080910111213141516171819"
        "2021222324252627282930313233343536373839"
        "4041424344454647484950515253545556575859"
        "6061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char t[20];
    size_t n = sizeof t;
    for (; v >= 100; v /= 100) {
        unsigned r = (unsigned)(v % 100);
        t[--n] = pairs[2 * r + 1];
        t[--n] = pairs[2 * r];
    }
    if (v >= 10) {
        t[--n] = pairs[2 * v + 1];
        t[--n] = pairs[2 * v];
    } else {
        t[--n] = (char)('0' + v);
    }
    size_t len = sizeof t - n;
    for (size_t i = 0; i < len; i++)
        out[i] = t[n + i];
    out[len] = 0;
    return len;
}

#endif
