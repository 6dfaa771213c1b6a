/*
 * msort.h — a natural merge sort with the comparison inlined, for the large arrays of the
 * CLC derivation (endpoints, point-to-point items, ports).
 *
 * Those arrays arrive as long sorted runs (events are scanned in time order, endpoints of a
 * kind are emitted in key order), which a natural merge sort exploits: O(n log r) for r
 * runs, one pass when already sorted; and an inlined comparison avoids qsort's indirect
 * call per comparison. Stable. Falls back to qsort when its buffer cannot be allocated.
 *
 *   ST_MSORT(name, type, cmp)   defines  static void name(type *v, size_t n)
 * where cmp is `static inline int cmp(const type *a, const type *b)` (qsort's convention)
 * and `static int cmp_void(const void *, const void *)` named cmp##_void exists for the
 * fallback. Single-threaded per call.
 *
 * Also the sift-down of the binary heaps that merge sorted runs (relations/derive.c's MERGE_RUNS, the
 * analysis' point-to-point join):
 *   ST_HEAP_DOWN(name, type, ctxtype, before)  defines
 *       static void name(ctxtype ctx, type *h, size_t n, size_t i)
 * which moves h[i] down the heap h[0 .. n), whose first element comes first by
 * before(ctx, x, y) (nonzero: *x before *y).
 *
 * And st_cmp_u64, the qsort / bsearch comparison of uint64_t values.
 *
 * For arrays that are mostly short (a call's few relations, a run of ends):
 *   ST_FEW_SORT(name, type, cmp, few)   defines  static void name(type *v, size_t n)
 * an insertion sort up to few elements, where qsort's call per comparison costs more, and qsort
 * above; cmp is a qsort comparison. Not stable: for orders that are total up to equal elements.
 */
#ifndef ST_UTIL_MSORT_H
#define ST_UTIL_MSORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

#define ST_FEW_SORT(name, type, cmp, few)                                                     \
    static void name(type *v, size_t n)                                                       \
    {                                                                                         \
        if (n > (few)) {                                                                      \
            qsort(v, n, sizeof *v, cmp);                                                      \
            return;                                                                           \
        }                                                                                     \
        for (size_t i = 1; i < n; i++) {                                                      \
            type x = v[i];                                                                    \
            size_t j = i;                                                                     \
            for (; j > 0 && cmp(&v[j - 1], &x) > 0; j--)                                      \
                v[j] = v[j - 1];                                                              \
            v[j] = x;                                                                         \
        }                                                                                     \
    }

#define ST_MSORT(name, type, cmp)                                                          \
    static void name(type *v, size_t n)                                                       \
    {                                                                                         \
        size_t runs = 1;                                                                      \
        for (size_t i = 1; i < n; i++)                                                        \
            runs += cmp(&v[i - 1], &v[i]) > 0;                                                \
        if (n < 2 || runs == 1)                                                               \
            return;                                                                           \
        type *tmp = st_mem_malloc(n * sizeof *tmp);                                           \
        size_t *start = st_mem_malloc((runs + 1) * sizeof *start);                            \
        if (!tmp || !start) {                                                                 \
            st_mem_free(tmp);                                                                 \
            st_mem_free(start);                                                               \
            qsort(v, n, sizeof *v, cmp##_void);                                               \
            return;                                                                           \
        }                                                                                     \
        size_t k = 0;                                                                         \
        start[k++] = 0;                                                                       \
        for (size_t i = 1; i < n; i++)                                                        \
            if (cmp(&v[i - 1], &v[i]) > 0)                                                    \
                start[k++] = i;                                                               \
        start[k] = n;                                                                         \
        type *src = v, *dst = tmp;                                                            \
        while (runs > 1) {                                                                    \
            size_t out = 0;                                                                   \
            for (size_t r = 0; r < runs; r += 2) {                                            \
                size_t a = start[r], m = start[r + 1], e = r + 2 <= runs ? start[r + 2] : m;  \
                size_t i = a, j = m, o = a;                                                   \
                while (i < m && j < e)                                                        \
                    dst[o++] = cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];               \
                memcpy(&dst[o], &src[i], (m - i) * sizeof *dst);                              \
                o += m - i;                                                                   \
                memcpy(&dst[o], &src[j], (e - j) * sizeof *dst);                              \
                start[out++] = a;                                                             \
            }                                                                                 \
            start[out] = n;                                                                   \
            runs = out;                                                                       \
            type *t = src;                                                                    \
            src = dst;                                                                        \
            dst = t;                                                                          \
        }                                                                                     \
        if (src != v)                                                                         \
            memcpy(v, src, n * sizeof *v);                                                    \
        st_mem_free(tmp);                                                                     \
        st_mem_free(start);                                                                   \
    }

#define ST_HEAP_DOWN(name, type, ctxtype, before)                                         \
    static void name(ctxtype ctx, type *h, size_t n, size_t i)                                \
    {                                                                                         \
        for (;;) {                                                                            \
            size_t m = i, a = 2 * i + 1, b = a + 1;                                           \
            if (a < n && before(ctx, &h[a], &h[m]))                                           \
                m = a;                                                                        \
            if (b < n && before(ctx, &h[b], &h[m]))                                           \
                m = b;                                                                        \
            if (m == i)                                                                       \
                return;                                                                       \
            type t = h[i];                                                                    \
            h[i] = h[m], h[m] = t;                                                            \
            i = m;                                                                            \
        }                                                                                     \
    }

/* qsort / bsearch: uint64_t values in ascending order. */
static inline int st_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif
