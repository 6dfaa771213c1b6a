/*
 * rankdata.c — the flat, versioned forms of one rank's data.
 *
 * Two forms share one serializer (put_defs/put_event writing into a "sink"):
 *  - the definitions blob (st_rankdata_pack/unpack), gathered at rank 0 by the MPI
 *    archive writer and embedded in dumps;
 *  - the raw dump file of an incomplete run (st_rankdata_dump/load_dump), which
 *    may be written from a signal handler and therefore streams through a static
 *    buffer with write(2) instead of allocating.
 * Everything is little-endian with fixed widths, independent of the host. Readers
 * check every length against what is left before touching it, and a CRC-32 over
 * the whole blob or file catches bit flips that still parse.
 *
 * Blob v1: "STRD" u32 version u64 total_size | i32 rank nranks pid u32 flags |
 *   hostname[64] nodename[64] | u64 t_begin t_end timer_resolution |
 *   u32 nthreads ncomms ncallsites nprops nteams |
 *   threads {u32 index, i32 omp_num, u64 flushes, u64 nevents} |
 *   comms {u64 key, u32 parent flags size remote_size, name[64], i32 world[size],
 *          i32 remote_world[remote_size]} |
 *   callsites {u64 pc, u32 len, text[len]} | props {key[64] value[192]} |
 *   teams {u32 size, u32 threads[size]} | u32 ncpnodes | cpnodes {u32 parent, u64 pc} |
 *   u32 crc32(all bytes before it)  (v2 added the call-path nodes; v3 ends each call site
 *   with u32 fn_begin fn_end, the lines of its function; v2 blobs are still read)
 *
 * Dump v1: "STRDDUMP" u32 version u32 header_size(40) u64 blob_size u64 nevents
 *   u64 reserved | blob | events (64 bytes each, thread by thread) |
 *   "STRDEND" '\0' u32 crc32(all bytes before the trailer) u32 reserved
 */
#include "rankdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/log.h"

#define BLOB_MAGIC   "STRD"
#define BLOB_VERSION 3u
#define DUMP_MAGIC   "STRDDUMP"
#define DUMP_END     "STRDEND"
#define DUMP_VERSION 1u
#define DUMP_HDR     40u
#define DUMP_TRAILER 16u
#define EVENT_BYTES  64u

/* Smallest encodings, used to bound counts before allocating. */
#define THREAD_BYTES   24u
#define COMM_BYTES     (8u + 16u + 64u)
#define CALLSITE_BYTES 12u
#define PROP_BYTES     (64u + 192u)
#define TEAM_BYTES     4u
#define CPNODE_BYTES   12u

/* ---- CRC-32 (IEEE 802.3), table built by the preprocessor --------------------------- */

/* A compile-time table keeps the dump path free of lazy initialization. */
#define CRC_STEP(c) (((c) >> 1) ^ (0xEDB88320u & (0u - ((c) & 1u))))
#define CRC_8(c) CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP((uint32_t)(c)))))))))
#define CRC_T4(n)  CRC_8(n), CRC_8((n) + 1), CRC_8((n) + 2), CRC_8((n) + 3)
#define CRC_T16(n) CRC_T4(n), CRC_T4((n) + 4), CRC_T4((n) + 8), CRC_T4((n) + 12)
#define CRC_T64(n) CRC_T16(n), CRC_T16((n) + 16), CRC_T16((n) + 32), CRC_T16((n) + 48)
static const uint32_t crc_table[256] = { CRC_T64(0), CRC_T64(64), CRC_T64(128), CRC_T64(192) };

/* Running state starts at 0xFFFFFFFF; the final value is its complement. */
static uint32_t crc_update(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return crc;
}

/* ---- little-endian helpers ---------------------------------------------------------- */

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t rd64(const uint8_t *p)
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

static int write_full(int fd, const uint8_t *p, size_t n)
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

static void sink_flush(sink_t *s)
{
    if (s->fd >= 0 && s->staged > 0 && !s->err)
        s->err = write_full(s->fd, s->stage, s->staged);
    s->staged = 0;
}

static void put(sink_t *s, const void *data, size_t n)
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

static void put_u32(sink_t *s, uint32_t v) { uint8_t b[4]; le32(b, v); put(s, b, 4); }
static void put_u64(sink_t *s, uint64_t v) { uint8_t b[8]; le64(b, v); put(s, b, 8); }
static void put_i32(sink_t *s, int32_t v) { put_u32(s, (uint32_t)v); }

/* A fixed-size char field: the string up to its NUL, zero-filled, always terminated. */
static void put_fixed(sink_t *s, const char *str, size_t width)
{
    uint8_t b[192] = { 0 };
    size_t n = strnlen(str, width - 1);
    memcpy(b, str, n);
    put(s, b, width);
}

/* ---- the definitions blob --------------------------------------------------------------- */

/* dump: 0 packing definitions, 1 a dump of the events arrays, 2 a live dump (events from a reader). */
static uint64_t thread_count(const st_thread_data_t *t, int dump)
{
    return dump == 1 && !t->events ? 0 : t->nevents;
}

static void put_comm(sink_t *s, const st_comm_def_t *c)
{
    put_u64(s, c->key);
    put_u32(s, c->parent);
    put_u32(s, c->flags);
    put_u32(s, c->world ? c->size : 0);
    put_u32(s, c->remote_world ? c->remote_size : 0);
    put_fixed(s, c->name, sizeof c->name);
    for (uint32_t i = 0; c->world && i < c->size; i++)
        put_i32(s, c->world[i]);
    for (uint32_t i = 0; c->remote_world && i < c->remote_size; i++)
        put_i32(s, c->remote_world[i]);
}

static void put_body(sink_t *s, const st_rankdata_t *rd, int dump)
{
    put_i32(s, rd->rank);
    put_i32(s, rd->nranks);
    put_i32(s, rd->pid);
    put_u32(s, rd->flags);
    put_fixed(s, rd->hostname, sizeof rd->hostname);
    put_fixed(s, rd->nodename, sizeof rd->nodename);
    put_u64(s, rd->t_begin);
    put_u64(s, rd->t_end);
    put_u64(s, rd->timer_resolution);
    put_u32(s, rd->threads ? rd->nthreads : 0);
    put_u32(s, rd->comms ? rd->ncomms : 0);
    put_u32(s, rd->callsites ? rd->ncallsites : 0);
    put_u32(s, rd->props ? rd->nprops : 0);
    put_u32(s, rd->teams ? rd->nteams : 0);
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++) {
        const st_thread_data_t *t = &rd->threads[i];
        put_u32(s, t->index);
        put_i32(s, t->omp_num);
        put_u64(s, t->flushes);
        put_u64(s, thread_count(t, dump));
    }
    for (uint32_t i = 0; rd->comms && i < rd->ncomms; i++)
        put_comm(s, &rd->comms[i]);
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites; i++) {
        const char *text = rd->callsites[i].text ? rd->callsites[i].text : "";
        size_t n = strlen(text);
        put_u64(s, rd->callsites[i].pc);
        put_u32(s, (uint32_t)n);
        put(s, text, n);
        put_u32(s, rd->callsites[i].fn_begin);
        put_u32(s, rd->callsites[i].fn_end);
    }
    for (uint32_t i = 0; rd->props && i < rd->nprops; i++) {
        put_fixed(s, rd->props[i].key, sizeof rd->props[i].key);
        put_fixed(s, rd->props[i].value, sizeof rd->props[i].value);
    }
    for (uint32_t i = 0; rd->teams && i < rd->nteams; i++) {
        const st_team_def_t *t = &rd->teams[i];
        put_u32(s, t->threads ? t->size : 0);
        for (uint32_t k = 0; t->threads && k < t->size; k++)
            put_u32(s, t->threads[k]);
    }
    put_u32(s, rd->cpnodes ? rd->ncpnodes : 0);
    for (uint32_t i = 0; rd->cpnodes && i < rd->ncpnodes; i++) {
        put_u32(s, rd->cpnodes[i].parent);
        put_u64(s, rd->cpnodes[i].pc);
    }
}

/* Writes the whole blob (header, body, CRC) of the given total size into s. */
static void put_blob(sink_t *s, const st_rankdata_t *rd, int dump, uint64_t total)
{
    s->part = 0xFFFFFFFFu;
    put(s, BLOB_MAGIC, 4);
    put_u32(s, BLOB_VERSION);
    put_u64(s, total);
    put_body(s, rd, dump);
    put_u32(s, ~s->part);
}

static uint64_t blob_size(const st_rankdata_t *rd, int dump)
{
    sink_t c = { .fd = -1 };
    put(&c, BLOB_MAGIC, 4);
    put_u32(&c, BLOB_VERSION);
    put_u64(&c, 0);
    put_body(&c, rd, dump);
    return c.len + 4;
}

size_t st_rankdata_pack(const st_rankdata_t *rd, void **blob)
{
    *blob = NULL;
    uint64_t n = blob_size(rd, 0);
    uint8_t *mem = malloc(n);
    if (!mem)
        return 0;
    sink_t s = { .mem = mem, .cap = n, .fd = -1 };
    put_blob(&s, rd, 0, n);
    if (s.err || s.len != n) {
        free(mem);
        return 0;
    }
    *blob = mem;
    return n;
}

/* ---- reading the blob back -------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t left;
    const char *why;    /* first problem found, NULL while all is well */
    uint32_t version;   /* of the blob */
} reader_t;

static int need(reader_t *r, uint64_t n)
{
    if (r->why)
        return 0;
    if (n > r->left) {
        r->why = "truncated";
        return 0;
    }
    return 1;
}

static const uint8_t *take(reader_t *r, size_t n)
{
    if (!need(r, n))
        return NULL;
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static uint32_t get_u32(reader_t *r) { const uint8_t *p = take(r, 4); return p ? rd32(p) : 0; }
static uint64_t get_u64(reader_t *r) { const uint8_t *p = take(r, 8); return p ? rd64(p) : 0; }
static int32_t get_i32(reader_t *r) { return (int32_t)get_u32(r); }

static void get_fixed(reader_t *r, char *dst, size_t width)
{
    const uint8_t *p = take(r, width);
    if (!p) {
        dst[0] = 0;
        return;
    }
    memcpy(dst, p, width);
    dst[width - 1] = 0;
}

static void bad(reader_t *r, const char *why)
{
    if (!r->why)
        r->why = why;
}

/* Allocates n zeroed items of size sz after checking that n encodings of at least
 * min bytes each fit in what is left (so a corrupt count cannot ask for gigabytes). */
static void *get_array(reader_t *r, uint32_t n, size_t sz, size_t min)
{
    if (n == 0 || !need(r, (uint64_t)n * min))
        return NULL;
    void *a = calloc(n, sz);
    if (!a)
        bad(r, "out of memory");
    return a;
}

static void get_comm(reader_t *r, st_comm_def_t *c, const st_rankdata_t *rd)
{
    c->key = get_u64(r);
    c->parent = get_u32(r);
    c->flags = get_u32(r);
    c->size = get_u32(r);
    c->remote_size = get_u32(r);
    get_fixed(r, c->name, sizeof c->name);
    if (r->why)
        return;
    if (c->size == 0 || (c->parent != ST_NO_COMM && c->parent >= rd->ncomms) ||
        (!(c->flags & ST_COMMF_INTER) && c->remote_size != 0) ||
        ((c->flags & ST_COMMF_INTER) && c->remote_size == 0)) {
        bad(r, "inconsistent communicator definition");
        return;
    }
    c->world = get_array(r, c->size, sizeof(int32_t), 4);
    for (uint32_t i = 0; c->world && i < c->size; i++)
        c->world[i] = get_i32(r);
    c->remote_world = get_array(r, c->remote_size, sizeof(int32_t), 4);
    for (uint32_t i = 0; c->remote_world && i < c->remote_size; i++)
        c->remote_world[i] = get_i32(r);
    for (uint32_t i = 0; c->world && i < c->size; i++)
        if (c->world[i] < 0 || c->world[i] >= rd->nranks) {
            bad(r, "communicator member out of range");
            return;
        }
    for (uint32_t i = 0; c->remote_world && i < c->remote_size; i++)
        if (c->remote_world[i] < 0 || c->remote_world[i] >= rd->nranks) {
            bad(r, "communicator member out of range");
            return;
        }
}

static void get_threads(reader_t *r, st_rankdata_t *rd)
{
    rd->threads = get_array(r, rd->nthreads, sizeof *rd->threads, THREAD_BYTES);
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++) {
        st_thread_data_t *t = &rd->threads[i];
        t->index = get_u32(r);
        t->omp_num = get_i32(r);
        t->flushes = get_u64(r);
        t->nevents = get_u64(r);
        if (t->index >= ST_MAX_THREADS_PER_RANK)
            bad(r, "thread index out of range");
    }
}

static void get_callsites(reader_t *r, st_rankdata_t *rd)
{
    rd->callsites = get_array(r, rd->ncallsites, sizeof *rd->callsites, CALLSITE_BYTES);
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites && !r->why; i++) {
        rd->callsites[i].pc = get_u64(r);
        uint32_t n = get_u32(r);
        const uint8_t *p = take(r, n);
        if (!p)
            return;
        char *text = malloc((size_t)n + 1);
        if (!text) {
            bad(r, "out of memory");
            return;
        }
        memcpy(text, p, n);
        text[n] = 0;
        rd->callsites[i].text = text;
        if (r->version >= 3)
            rd->callsites[i].fn_begin = get_u32(r), rd->callsites[i].fn_end = get_u32(r);
    }
}

static void get_teams(reader_t *r, st_rankdata_t *rd)
{
    rd->teams = get_array(r, rd->nteams, sizeof *rd->teams, TEAM_BYTES);
    for (uint32_t i = 0; rd->teams && i < rd->nteams && !r->why; i++) {
        st_team_def_t *t = &rd->teams[i];
        t->size = get_u32(r);
        if (!r->why && t->size == 0) {
            bad(r, "empty thread team");
            return;
        }
        t->threads = get_array(r, t->size, sizeof(uint32_t), 4);
        for (uint32_t k = 0; t->threads && k < t->size; k++)
            if ((t->threads[k] = get_u32(r)) >= ST_MAX_THREADS_PER_RANK)
                bad(r, "thread index out of range");
    }
}

/* Call-path nodes: a parent precedes its children. */
static void get_cpnodes(reader_t *r, st_rankdata_t *rd)
{
    rd->ncpnodes = get_u32(r);
    rd->cpnodes = get_array(r, rd->ncpnodes, sizeof *rd->cpnodes, CPNODE_BYTES);
    for (uint32_t i = 0; rd->cpnodes && i < rd->ncpnodes; i++) {
        rd->cpnodes[i].parent = get_u32(r); /* two statements: the reads are ordered */
        rd->cpnodes[i].pc = get_u64(r);
        if (rd->cpnodes[i].parent != ST_CP_NONE && rd->cpnodes[i].parent >= i)
            bad(r, "call-path node before its parent");
    }
}

static void get_body(reader_t *r, st_rankdata_t *rd)
{
    rd->rank = get_i32(r);
    rd->nranks = get_i32(r);
    rd->pid = get_i32(r);
    rd->flags = get_u32(r);
    get_fixed(r, rd->hostname, sizeof rd->hostname);
    get_fixed(r, rd->nodename, sizeof rd->nodename);
    rd->t_begin = get_u64(r);
    rd->t_end = get_u64(r);
    rd->timer_resolution = get_u64(r);
    rd->nthreads = get_u32(r);
    rd->ncomms = get_u32(r);
    rd->ncallsites = get_u32(r);
    rd->nprops = get_u32(r);
    rd->nteams = get_u32(r);
    if (!r->why && (rd->nranks < 1 || rd->rank < 0 || rd->rank >= rd->nranks))
        bad(r, "rank out of range");
    if (!r->why && rd->nthreads > ST_MAX_THREADS_PER_RANK)
        bad(r, "too many threads");
    get_threads(r, rd);
    rd->comms = get_array(r, rd->ncomms, sizeof *rd->comms, COMM_BYTES);
    for (uint32_t i = 0; rd->comms && i < rd->ncomms && !r->why; i++)
        get_comm(r, &rd->comms[i], rd);
    get_callsites(r, rd);
    rd->props = get_array(r, rd->nprops, sizeof *rd->props, PROP_BYTES);
    for (uint32_t i = 0; rd->props && i < rd->nprops; i++) {
        get_fixed(r, rd->props[i].key, sizeof rd->props[i].key);
        get_fixed(r, rd->props[i].value, sizeof rd->props[i].value);
    }
    get_teams(r, rd);
    get_cpnodes(r, rd);
}

/* The unpacker with its reason for rejecting (NULL when it accepted). */
static const char *unpack_why(const void *blob, size_t size, st_rankdata_t *rd)
{
    memset(rd, 0, sizeof *rd);
    const uint8_t *b = blob;
    if (!blob || size < 20)
        return "truncated";
    if (memcmp(b, BLOB_MAGIC, 4) != 0)
        return "not a synctrace rank-data blob (bad magic)";
    uint32_t version = rd32(b + 4);
    if (version != BLOB_VERSION && version != 2)
        return "unsupported rank-data format version";
    if (rd64(b + 8) != size)
        return rd64(b + 8) > size ? "truncated" : "size mismatch";
    if (~crc_update(0xFFFFFFFFu, b, size - 4) != rd32(b + size - 4))
        return "checksum mismatch";
    reader_t r = { .p = b + 16, .left = size - 20, .version = version };
    get_body(&r, rd);
    if (!r.why && r.left != 0)
        r.why = "trailing bytes";
    if (r.why)
        st_rankdata_free(rd);
    return r.why;
}

int st_rankdata_unpack(const void *blob, size_t size, st_rankdata_t *rd)
{
    const char *why = unpack_why(blob, size, rd);
    if (why)
        st_log_debug("rank-data blob rejected: %s", why);
    return why ? -1 : 0;
}

void st_rankdata_free(st_rankdata_t *rd)
{
    if (!rd)
        return;
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++)
        free(rd->threads[i].events);
    free(rd->threads);
    for (uint32_t i = 0; rd->comms && i < rd->ncomms; i++) {
        free(rd->comms[i].world);
        free(rd->comms[i].remote_world);
    }
    free(rd->comms);
    for (uint32_t i = 0; rd->callsites && i < rd->ncallsites; i++)
        free(rd->callsites[i].text);
    free(rd->callsites);
    free(rd->props);
    for (uint32_t i = 0; rd->teams && i < rd->nteams; i++)
        free(rd->teams[i].threads);
    free(rd->teams);
    free(rd->cpnodes);
    memset(rd, 0, sizeof *rd);
}

void st_rankdata_prop(st_rankdata_t *rd, const char *key, const char *fmt, ...)
{
    st_kv_t *kv = NULL;
    for (uint32_t i = 0; rd->props && i < rd->nprops; i++)
        if (strncmp(rd->props[i].key, key, sizeof kv->key - 1) == 0)
            kv = &rd->props[i];
    if (!kv) {
        st_kv_t *grown = realloc(rd->props, (rd->nprops + 1) * sizeof *grown);
        if (!grown) {
            st_log_warn("out of memory: property '%s' dropped", key);
            return;
        }
        rd->props = grown;
        kv = &rd->props[rd->nprops++];
        memset(kv, 0, sizeof *kv);
        snprintf(kv->key, sizeof kv->key, "%s", key);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof kv->value, fmt, ap);
    va_end(ap);
}

void st_rankdata_prop_str(void *rd, const char *key, const char *value) { st_rankdata_prop(rd, key, "%s", value); }

/* ---- raw dump of an incomplete run ------------------------------------------------------- */

static void put_event(sink_t *s, const st_event_t *e)
{
    uint8_t b[EVENT_BYTES];
    le64(b, e->time);
    b[8] = e->kind;
    b[9] = e->flags;
    b[10] = (uint8_t)e->op;
    b[11] = (uint8_t)(e->op >> 8);
    le32(b + 12, e->region);
    le32(b + 16, e->comm);
    le32(b + 20, (uint32_t)e->peer);
    le32(b + 24, (uint32_t)e->tag);
    le32(b + 28, e->epoch);
    le64(b + 32, e->bytes);
    le64(b + 40, e->bytes2);
    le64(b + 48, e->id);
    le64(b + 56, e->aux);
    put(s, b, sizeof b);
}

static void get_event(const uint8_t *b, st_event_t *e)
{
    e->time = rd64(b);
    e->kind = b[8];
    e->flags = b[9];
    e->op = (uint16_t)(b[10] | (b[11] << 8));
    e->region = rd32(b + 12);
    e->comm = rd32(b + 16);
    e->peer = (int32_t)rd32(b + 20);
    e->tag = (int32_t)rd32(b + 24);
    e->epoch = rd32(b + 28);
    e->bytes = rd64(b + 32);
    e->bytes2 = rd64(b + 40);
    e->id = rd64(b + 48);
    e->aux = rd64(b + 56);
}

/* Static so a signal handler's (possibly small, alternate) stack is not used for it;
 * dump_busy keeps two concurrent dumps of one process from sharing it. */
static uint8_t dump_stage[1u << 16];
static char dump_path[4096], dump_tmp[4096 + 8];
static int dump_busy;

/* Appends src to dst (capacity cap); returns 0, -1 if it does not fit. */
static int path_cat(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(dst), k = strlen(src);
    if (n + k + 1 > cap)
        return -1;
    memcpy(dst + n, src, k + 1);
    return 0;
}

static void fmt_uint(char *out, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = 0;
}

/* A directory of ours: created now, or existing as a real directory (not a link) owned by us. Async-signal-safe. */
static int mkdir_ok(const char *path)
{
    if (mkdir(path, 0755) == 0)
        return 0;
    struct stat st;
    if (errno != EEXIST || lstat(path, &st) != 0)
        return -1;
    return S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH)) ? 0 : -1;
}

/* Builds dump_path/dump_tmp and creates the directories. */
static int dump_paths(const char *dir, int32_t rank)
{
    char num[24];
    fmt_uint(num, (uint64_t)(rank < 0 ? 0 : rank));
    dump_path[0] = 0;
    if (path_cat(dump_path, sizeof dump_path, dir) || mkdir_ok(dump_path) ||
        path_cat(dump_path, sizeof dump_path, "/partial") || mkdir_ok(dump_path) ||
        path_cat(dump_path, sizeof dump_path, "/rank-") ||
        path_cat(dump_path, sizeof dump_path, num) ||
        path_cat(dump_path, sizeof dump_path, ".strd"))
        return -1;
    memcpy(dump_tmp, dump_path, strlen(dump_path) + 1);
    return path_cat(dump_tmp, sizeof dump_tmp, ".tmp");
}

static void dump_header(sink_t *s, uint64_t blob, uint64_t nevents)
{
    put(s, DUMP_MAGIC, 8);
    put_u32(s, DUMP_VERSION);
    put_u32(s, DUMP_HDR);
    put_u64(s, blob);
    put_u64(s, nevents);
    put_u64(s, 0);
}

/* Events of a live dump pass through here (static: see dump_stage). */
static st_event_t live_stage[1024];

static void put_thread_events(sink_t *s, const st_thread_data_t *t, uint32_t i, st_dump_read_fn read, void *ctx)
{
    if (!read) {
        for (uint64_t k = 0; k < thread_count(t, 1); k++)
            put_event(s, &t->events[k]);
        return;
    }
    for (uint64_t k = 0; k < t->nevents && !s->err;) {
        size_t want = t->nevents - k < 1024 ? (size_t)(t->nevents - k) : 1024;
        size_t got = read(ctx, i, k, live_stage, want);
        if (got == 0) {
            s->err = EIO; /* the header promised these events: the file would be inconsistent */
            return;
        }
        for (size_t j = 0; j < got; j++)
            put_event(s, &live_stage[j]);
        k += got;
    }
}

static int dump_write(int fd, const st_rankdata_t *rd, st_dump_read_fn read, void *ctx)
{
    int mode = read ? 2 : 1;
    uint64_t blob = blob_size(rd, mode), nevents = 0;
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++)
        nevents += thread_count(&rd->threads[i], mode);
    sink_t s = { .fd = fd, .stage = dump_stage, .stage_cap = sizeof dump_stage, .crc = 0xFFFFFFFFu };
    dump_header(&s, blob, nevents);
    put_blob(&s, rd, mode, blob);
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++)
        put_thread_events(&s, &rd->threads[i], i, read, ctx);
    uint8_t tr[DUMP_TRAILER] = DUMP_END;
    le32(tr + 8, ~s.crc);
    put(&s, tr, sizeof tr);
    sink_flush(&s);
    return s.err;
}

/* One line "synctrace: error: WHAT FILE: CAUSE" with write(2). */
static void dump_error(const char *what, const char *file, int err)
{
    st_log_raw("synctrace: error: ");
    st_log_raw(what);
    if (file) {
        st_log_raw(" ");
        st_log_raw(file);
    }
    if (err) {
        st_log_raw(": ");
        st_log_raw(st_errno_text(err));
    }
    st_log_raw("\n");
}

static int dump_common(const char *dir, const st_rankdata_t *rd, st_dump_read_fn read, void *ctx)
{
    if (__atomic_exchange_n(&dump_busy, 1, __ATOMIC_ACQUIRE)) {
        st_log_raw("synctrace: error: raw dump already in progress in this process\n");
        return -1;
    }
    int rc = -1;
    if (dump_paths(dir, rd->rank) != 0) {
        dump_error("cannot create the directory for the raw dump (path too long, not writable, or a partial/ "
                   "that is not a directory of yours) in", dir, errno);
        goto out;
    }
    /* Never through a link or into a file someone else made: a stale temporary of ours is removed first. */
    unlink(dump_tmp);
    int fd = open(dump_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        dump_error("cannot create the raw dump file", dump_tmp, errno);
        goto out;
    }
    int err = dump_write(fd, rd, read, ctx);
    if (close(fd) != 0 && !err)
        err = errno;
    if (err || rename(dump_tmp, dump_path) != 0) {
        dump_error("writing the raw dump failed (removed):", dump_tmp, err > 0 ? err : errno);
        unlink(dump_tmp);
        goto out;
    }
    rc = 0;
out:
    __atomic_store_n(&dump_busy, 0, __ATOMIC_RELEASE);
    return rc;
}

int st_rankdata_dump(const char *dir, const st_rankdata_t *rd)
{
    return dump_common(dir, rd, NULL, NULL);
}

int st_rankdata_dump_live(const char *dir, const st_rankdata_t *rd, st_dump_read_fn read, void *ctx)
{
    return dump_common(dir, rd, read, ctx);
}

/* ---- loading a dump ---------------------------------------------------------------------- */

static int read_full(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Reads the events of every thread (counts from the unpacked blob), feeding crc. */
static const char *load_events(int fd, st_rankdata_t *rd, uint32_t *crc)
{
    uint8_t buf[EVENT_BYTES * 256];
    for (uint32_t i = 0; i < rd->nthreads; i++) {
        st_thread_data_t *t = &rd->threads[i];
        if (t->nevents == 0)
            continue;
        t->events = malloc(t->nevents * sizeof *t->events);
        if (!t->events)
            return "out of memory";
        for (uint64_t k = 0; k < t->nevents;) {
            uint64_t n = t->nevents - k < 256 ? t->nevents - k : 256;
            if (read_full(fd, buf, n * EVENT_BYTES))
                return "truncated";
            *crc = crc_update(*crc, buf, n * EVENT_BYTES);
            for (uint64_t j = 0; j < n; j++)
                get_event(buf + j * EVENT_BYTES, &t->events[k + j]);
            k += n;
        }
    }
    return NULL;
}

/* Checks the header against the file size; returns the blob size via *blob. */
static const char *check_header(const uint8_t *h, uint64_t fsize, uint64_t *blob, uint64_t *nev)
{
    if (memcmp(h, DUMP_MAGIC, 8) != 0)
        return "not a synctrace raw dump (bad magic)";
    if (rd32(h + 8) != DUMP_VERSION || rd32(h + 12) != DUMP_HDR)
        return "unsupported dump format version";
    *blob = rd64(h + 16);
    *nev = rd64(h + 24);
    uint64_t room = fsize - DUMP_HDR - DUMP_TRAILER;
    if (*blob > room || *nev > (room - *blob) / EVENT_BYTES)
        return "truncated (file shorter than its header says)";
    if (*blob + *nev * EVENT_BYTES != room)
        return "size mismatch (file longer than its header says)";
    return NULL;
}

static const char *load_fd(int fd, st_rankdata_t *rd)
{
    struct stat st;
    uint8_t h[DUMP_HDR], tr[DUMP_TRAILER];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return "not a regular file";
    if ((uint64_t)st.st_size < DUMP_HDR + DUMP_TRAILER || read_full(fd, h, sizeof h))
        return "truncated (shorter than the header)";
    uint64_t blob, nev, total = 0;
    const char *why = check_header(h, (uint64_t)st.st_size, &blob, &nev);
    if (why)
        return why;
    uint32_t crc = crc_update(0xFFFFFFFFu, h, sizeof h);
    uint8_t *b = malloc(blob ? blob : 1);
    if (!b)
        return "out of memory";
    if (read_full(fd, b, blob)) {
        free(b);
        return "truncated";
    }
    crc = crc_update(crc, b, blob);
    why = unpack_why(b, blob, rd);
    free(b);
    if (why)
        return why;
    for (uint32_t i = 0; i < rd->nthreads; i++)
        total += rd->threads[i].nevents;
    if (total != nev)
        return "event count in the header does not match the definitions";
    if ((why = load_events(fd, rd, &crc)) || read_full(fd, tr, sizeof tr))
        return why ? why : "truncated";
    if (memcmp(tr, DUMP_END, 8) != 0 || rd32(tr + 8) != ~crc)
        return "checksum mismatch (corrupt file)";
    return NULL;
}

int st_rankdata_load_dump(const char *path, st_rankdata_t *rd)
{
    memset(rd, 0, sizeof *rd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        st_log_error("cannot open raw dump '%s': %s", path, strerror(errno));
        return -1;
    }
    const char *why = load_fd(fd, rd);
    close(fd);
    if (why) {
        st_rankdata_free(rd);
        st_log_error("cannot load raw dump '%s': %s", path, why);
        return -1;
    }
    return 0;
}
