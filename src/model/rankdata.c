/*
 * rankdata.c — the definitions blob of one rank's data (st_rankdata_pack/unpack), and
 * freeing and annotating rank data. The serializer it shares with the raw dump
 * (rankdata_dump.c) is in rankdata_int.h.
 *
 * Blob v1: "STRD" u32 version u64 total_size | i32 rank nranks pid u32 flags |
 *   hostname[64] nodename[64] | u64 t_begin t_end timer_resolution |
 *   u32 nthreads ncomms ncallsites nprops nteams |
 *   threads {u32 index, i32 omp_num, u64 flushes, u64 nevents} |
 *   comms {u64 key, u32 parent flags size remote_size, name[64], i32 world[size],
 *          i32 remote_world[remote_size]} |
 *   callsites {u64 pc, u32 len, text[len]} | props {key[64] value[192]} |
 *   teams {u32 size, u32 threads[size]} | u32 ncpnodes | cpnodes {u32 parent, u64 pc} |
 *   u32 nfiltered | filtered {u32 thread, u32 region, u64 visits, u64 time} |
 *   u32 crc32(all bytes before it)  (v2 added the call-path nodes; v3 ends each call site
 *   with u32 fn_begin fn_end, the lines of its function; v4 added the filtered calls;
 *   v5 a u32 nwins after each communicator's remote_size, its RMA windows; v6 ends the body with
 *   u32 ngroups | groups {u32 size, i32 world[size]}, the PSCW groups; v2 to v5 blobs are
 *   still read, with no windows before v5 and no groups before v6)
 */
#include "rankdata_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "region.h"

#define BLOB_MAGIC   "STRD"
#define BLOB_VERSION 6u

/* Smallest encodings, used to bound counts before allocating. */
#define THREAD_BYTES   24u
#define COMM_BYTES     (8u + 16u + 64u)
#define CALLSITE_BYTES 12u
#define PROP_BYTES     (64u + 192u)
#define TEAM_BYTES     4u
#define CPNODE_BYTES   12u
#define FILTERED_BYTES 24u
#define GROUP_BYTES    8u

/* ---- the blob's own field writers: signed and fixed-width ------------------------------ */

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

uint64_t st_rankdata_thread_count(const st_thread_data_t *t, int dump)
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
    put_u32(s, c->nwins);
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
        put_u64(s, st_rankdata_thread_count(t, dump));
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
    put_u32(s, rd->filtered ? rd->nfiltered : 0);
    for (uint32_t i = 0; rd->filtered && i < rd->nfiltered; i++) {
        put_u32(s, rd->filtered[i].thread);
        put_u32(s, rd->filtered[i].region);
        put_u64(s, rd->filtered[i].visits);
        put_u64(s, rd->filtered[i].time);
    }
    put_u32(s, rd->groups ? rd->ngroups : 0);
    for (uint32_t i = 0; rd->groups && i < rd->ngroups; i++) {
        put_u32(s, rd->groups[i].world ? rd->groups[i].size : 0);
        for (uint32_t k = 0; rd->groups[i].world && k < rd->groups[i].size; k++)
            put_i32(s, rd->groups[i].world[k]);
    }
}

void st_rankdata_put_blob(sink_t *s, const st_rankdata_t *rd, int dump, uint64_t total)
{
    s->part = 0xFFFFFFFFu;
    put(s, BLOB_MAGIC, 4);
    put_u32(s, BLOB_VERSION);
    put_u64(s, total);
    put_body(s, rd, dump);
    put_u32(s, ~s->part);
}

uint64_t st_rankdata_blob_size(const st_rankdata_t *rd, int dump)
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
    uint64_t n = st_rankdata_blob_size(rd, 0);
    uint8_t *mem = malloc(n);
    if (!mem)
        return 0;
    sink_t s = { .mem = mem, .cap = n, .fd = -1 };
    st_rankdata_put_blob(&s, rd, 0, n);
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
    c->nwins = r->version >= 5 ? get_u32(r) : 0;
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

/* Filtered calls (v4): the threads and regions they name must exist. */
static void get_filtered(reader_t *r, st_rankdata_t *rd)
{
    if (r->version < 4)
        return;
    rd->nfiltered = get_u32(r);
    rd->filtered = get_array(r, rd->nfiltered, sizeof *rd->filtered, FILTERED_BYTES);
    for (uint32_t i = 0; rd->filtered && i < rd->nfiltered; i++) {
        st_filtered_sum_t *f = &rd->filtered[i];
        f->thread = get_u32(r); /* one statement each: the reads are ordered */
        f->region = get_u32(r);
        f->visits = get_u64(r);
        f->time = get_u64(r);
        if (f->thread >= ST_MAX_THREADS_PER_RANK || f->region >= ST_REGION__COUNT)
            bad(r, "filtered calls of an unknown thread or region");
    }
}

/* PSCW groups (v6): non-empty, members are world ranks. */
static void get_groups(reader_t *r, st_rankdata_t *rd)
{
    if (r->version < 6)
        return;
    rd->ngroups = get_u32(r);
    rd->groups = get_array(r, rd->ngroups, sizeof *rd->groups, GROUP_BYTES);
    for (uint32_t i = 0; rd->groups && i < rd->ngroups && !r->why; i++) {
        st_group_def_t *g = &rd->groups[i];
        if ((g->size = get_u32(r)) == 0 && !r->why) {
            bad(r, "empty RMA group");
            return;
        }
        g->world = get_array(r, g->size, sizeof(int32_t), 4);
        for (uint32_t k = 0; g->world && k < g->size; k++)
            if ((g->world[k] = get_i32(r)) < 0 || g->world[k] >= rd->nranks)
                bad(r, "RMA group member out of range");
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
    get_filtered(r, rd);
    get_groups(r, rd);
}

const char *st_rankdata_unpack_why(const void *blob, size_t size, st_rankdata_t *rd)
{
    memset(rd, 0, sizeof *rd);
    const uint8_t *b = blob;
    if (!blob || size < 20)
        return "truncated";
    if (memcmp(b, BLOB_MAGIC, 4) != 0)
        return "not a synctrace rank-data blob (bad magic)";
    uint32_t version = rd32(b + 4);
    if (version != BLOB_VERSION && (version < 2 || version > 5))
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
    const char *why = st_rankdata_unpack_why(blob, size, rd);
    if (why)
        st_log_debug("rank-data blob rejected: %s", why);
    return why ? -1 : 0;
}

void st_rankdata_free(st_rankdata_t *rd)
{
    if (!rd)
        return;
    if (rd->view_drop)
        rd->view_drop(rd);
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
    free(rd->filtered);
    for (uint32_t i = 0; rd->groups && i < rd->ngroups; i++)
        free(rd->groups[i].world);
    free(rd->groups);
    memset(rd, 0, sizeof *rd);
}

/* rd's property of that key, NULL if none (keys compare as stored: truncated to the field). */
static st_kv_t *find_prop(const st_rankdata_t *rd, const char *key)
{
    for (uint32_t i = 0; rd->props && i < rd->nprops; i++)
        if (strncmp(rd->props[i].key, key, sizeof rd->props[i].key - 1) == 0)
            return &rd->props[i];
    return NULL;
}

void st_rankdata_prop(st_rankdata_t *rd, const char *key, const char *fmt, ...)
{
    st_kv_t *kv = find_prop(rd, key);
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

const char *st_rankdata_prop_get(const st_rankdata_t *rd, const char *key)
{
    const st_kv_t *kv = find_prop(rd, key);
    return kv ? kv->value : NULL;
}

uint64_t st_rankdata_events_lost(const st_rankdata_t *rd)
{
    const char *v = st_rankdata_prop_get(rd, "EVENTS_LOST");
    return v ? strtoull(v, NULL, 10) : 0;
}

uint64_t st_rankdata_nevents(const st_rankdata_t *rd)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < rd->nthreads; i++)
        n += rd->threads[i].nevents;
    return n;
}
