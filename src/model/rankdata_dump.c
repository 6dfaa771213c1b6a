/*
 * rankdata_dump.c — the raw dump file of an incomplete run (st_rankdata_dump,
 * st_rankdata_dump_live, st_rankdata_load_dump): the definitions blob (rankdata.c)
 * followed by the events, written with write(2) through a static buffer so that a
 * signal handler can write it.
 *
 * Dump v1: "STRDDUMP" u32 version u32 header_size(40) u64 blob_size u64 nevents
 *   u64 reserved | blob | events (64 bytes each, thread by thread) |
 *   "STRDEND" '\0' u32 crc32(all bytes before the trailer) u32 reserved
 */
#include "rankdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/decimal.h"
#include "../util/log.h"

#define DUMP_MAGIC   "STRDDUMP"
#define DUMP_END     "STRDEND"
#define DUMP_VERSION 1u
#define DUMP_HDR     40u
#define DUMP_TRAILER 16u
#define EVENT_BYTES  64u

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
    st_u64_dec(num, (uint64_t)(rank < 0 ? 0 : rank));
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
        for (uint64_t k = 0; k < st_rankdata_thread_count(t, 1); k++)
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
    uint64_t blob = st_rankdata_blob_size(rd, mode), nevents = 0;
    for (uint32_t i = 0; rd->threads && i < rd->nthreads; i++)
        nevents += st_rankdata_thread_count(&rd->threads[i], mode);
    sink_t s = { .fd = fd, .stage = dump_stage, .stage_cap = sizeof dump_stage, .crc = 0xFFFFFFFFu };
    dump_header(&s, blob, nevents);
    st_rankdata_put_blob(&s, rd, mode, blob);
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
    uint64_t blob, nev;
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
    why = st_rankdata_unpack_why(b, blob, rd);
    free(b);
    if (why)
        return why;
    if (st_rankdata_nevents(rd) != nev)
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
