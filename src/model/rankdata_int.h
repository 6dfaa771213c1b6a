/*
 * rankdata_int.h — internals shared by the files of the rank-data formats (not an API).
 *
 * Two forms share one serializer (the blob's put_* writing into a "sink"):
 *  - the definitions blob (st_rankdata_pack/unpack, rankdata.c), gathered at rank 0
 *    by the MPI archive writer and embedded in dumps;
 *  - the raw dump file of an incomplete run (st_rankdata_dump/load_dump, rankdata_dump.c),
 *    which may be written from a signal handler and therefore streams through a static
 *    buffer with write(2) instead of allocating.
 * Everything is little-endian with fixed widths, independent of the host. Readers
 * check every length against what is left before touching it, and a CRC-32 over
 * the whole blob or file catches bit flips that still parse. The byte helpers below
 * are static inline: both files write and read through them.
 */
#ifndef ST_RANKDATA_INT_H
#define ST_RANKDATA_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "rankdata.h"


/* ---- CRC-32 (IEEE 802.3), table built by the preprocessor --------------------------- */

/* A compile-time table keeps the dump path free of lazy initialization. */
#define CRC_STEP(c) (((c) >> 1) ^ (0xEDB88320u & (0u - ((c) & 1u))))
#define CRC_8(c) CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((uint32_t)(c)))))))))
#define CRC_T4(n)  CRC_8(n), CRC_8((n) + 1), CRC_8((n) + 2), CRC_8((n) + 3)
#define CRC_T16(n) CRC_T4(n), CRC_T4((n) + 4), CRC_T4((n) + 8), CRC_T4((n) + 12)
#define CRC_T64(n) CRC_T16(n), CRC_T16((n) + 16), CRC_T16((n) + 32), CRC_T16((n) + 48)
static const uint32_t crc_table[256] = { CRC_T64(0), CRC_T64(64), CRC_T64(128), CRC_T64(192) };

/* Running state starts at 0xFFFFFFFF; the final value is its complement. */
static inline uint32_t crc_update(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return crc;
}

/* ---- little-endian helpers ---------------------------------------------------------- */

static inline void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ---- sinks: count, memory, or file through a staging buffer -------------------------- */

typedef struct sink {
    uint8_t *mem;       /* memory mode: destination of cap bytes */
    size_t   cap;
    size_t   len;       /* bytes put so far (all modes) */
    int      fd;        /* file mode when >= 0 */
    uint8_t *stage;     /* file mode: staging buffer */
    size_t   stage_cap, staged;
    uint32_t crc;       /* CRC state over everything put (memory and file modes) */
    uint32_t part;      /* CRC state over the current part (the blob inside a dump) */
    int      err;       /* errno of the first failure, or -1 for overflow */
} sink_t;

static inline int write_full(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static inline void sink_flush(sink_t *s)
{
    if (s->fd >= 0 && s->staged > 0 && !s->err)
        s->err = write_full(s->fd, s->stage, s->staged);
    s->staged = 0;
}

static inline void put(sink_t *s, const void *data, size_t n)
{
    if (s->err)
        return;
    if (s->mem || s->fd >= 0) {
        s->crc = crc_update(s->crc, data, n);
        s->part = crc_update(s->part, data, n);
    }
    if (s->mem) {
        if (n > s->cap - s->len) {
            s->err = -1;
            return;
        }
        memcpy(s->mem + s->len, data, n);
    } else if (s->fd >= 0) {
        const uint8_t *p = data;
        size_t left = n;
        while (left > 0 && !s->err) {
            size_t k = s->stage_cap - s->staged < left ? s->stage_cap - s->staged : left;
            memcpy(s->stage + s->staged, p, k);
            s->staged += k;
            p += k;
            left -= k;
            if (s->staged == s->stage_cap)
                sink_flush(s);
        }
    }
    s->len += n;
}

static inline void put_u32(sink_t *s, uint32_t v) { uint8_t b[4]; le32(b, v); put(s, b, 4); }
static inline void put_u64(sink_t *s, uint64_t v) { uint8_t b[8]; le64(b, v); put(s, b, 8); }

/* ---- the definitions blob (rankdata.c), as the dump writes and reads it ----------------- */

/* dump: 0 packing definitions, 1 a dump of the events arrays, 2 a live dump (events from a reader).
 * The number of events of t the blob announces. */
uint64_t st_rankdata_thread_count(const st_thread_data_t *t, int dump);
/* Size in bytes of the whole blob of rd (header, body, CRC). */
uint64_t st_rankdata_blob_size(const st_rankdata_t *rd, int dump);
/* Writes the whole blob (header, body, CRC) of the given total size into s. */
void st_rankdata_put_blob(sink_t *s, const st_rankdata_t *rd, int dump, uint64_t total);
/* The unpacker with its reason for rejecting (NULL when it accepted; rd is then filled). */
const char *st_rankdata_unpack_why(const void *blob, size_t size, st_rankdata_t *rd);

#endif
