/*
 * fnv.h — FNV-1a, the 64-bit hash the tool uses for keys and digests (strings, groups, a filter's
 * text, the machine's identity): not cryptographic, only well spread and cheap.
 */
#ifndef ST_FNV_H
#define ST_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ST_FNV_BASIS 0xcbf29ce484222325ull /* the offset basis: the hash of nothing */

/* h carried on over the n bytes at data (which may be NULL when n is 0). */
static inline uint64_t st_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    while (n--)
        h = (h ^ *p++) * 0x100000001b3ull;
    return h;
}

/* The hash of the string s (its bytes up to the terminating NUL). */
static inline uint64_t st_fnv1a_str(const char *s) { return st_fnv1a(ST_FNV_BASIS, s, strlen(s)); }

#endif
