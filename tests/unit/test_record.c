/*
 * test_record.c — unit tests of the recording hot path (src/record/record.h, record.c).
 *
 * Covers: thread registration, the fields st_record() fills, per-location time that never
 * goes backwards even when the global clock map steps back; full buffers handed to the
 * writer thread (src/record/spill.h): no wait and no FLUSH region while the writer keeps
 * up, a FLUSH region exactly when it falls behind (its write held here), no event lost or
 * reordered over 10^6 events in 64-event buffers, the events of a buffer in the writer's
 * hands readable (st_record_read, st_record_count: what a dump of a crash reads), a write
 * that fails (events counted lost only when their buffer is needed again); after the
 * writer is finished (st_record_load: the same bytes whether it reads back into huge pages
 * or switches to 4 KiB pages after the first 2 MiB), buffers written by their threads with a FLUSH
 * region at each (the replay of every position), room kept above the flush limit for
 * callers that flush only after stamping, a spill directory that cannot be used (no crash,
 * the buffer goes on), many threads registering concurrently, st_record_again (the
 * previous event's time), and st_record_stop(). Each case that needs a fresh buffer
 * records on a new thread. This file's pwrite() stands in for the C library's (the spill
 * writes are the only pwrite calls), so a test can hold or fail the writer's writes.
 */
/* link: src/record/record.c src/model/gaps.c src/util/mem.c src/record/spill.c src/clock/timer.c src/clock/tsc.c src/util/nodeid.c src/clock/tsc_points.c src/config/config.c src/util/archive_dir.c src/util/log.c */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/config/config.h"
#include "../../src/record/record.h"
#include "../../src/record/spill.h"
#include "../../src/util/hugealloc.h"

#include "check.h"

/* ---- the writer's writes, held or failed on demand ---------------------------------------- */

static int hold_writes, fail_writes, writes_begun;
static size_t unaligned_bytes; /* written at offsets that are not whole 4 KiB blocks: through the page cache */

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    __atomic_add_fetch(&writes_begun, 1, __ATOMIC_SEQ_CST);
    if (off % 4096)
        __atomic_add_fetch(&unaligned_bytes, n, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&hold_writes, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    if (__atomic_load_n(&fail_writes, __ATOMIC_ACQUIRE))
        return errno = ENOSPC, -1;
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

/* Waits (at most 10 s) until the writer made th's spare and wrote what it was handed. */
static void writer_caught_up(st_thread_t *th)
{
    for (int i = 0; i < 10000; i++) {
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
        unsigned spare = __atomic_load_n(&th->spare, __ATOMIC_ACQUIRE);
        if (spare != ST_SPARE_ASKED && (!ST_HAND_PENDING(h) || ST_HAND_FAILED(h)))
            return;
        sleep_ms(1);
    }
    EXPECT(0, "the writer did not catch up within 10 s");
}

/* Runs fn(arg) on a new thread, so that it registers a fresh st_thread_t. */
static void on_new_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(2);
    }
    pthread_join(t, NULL);
}

/* Flushes a buffer of cap events meets while recording n events (see record.h). */
static uint64_t expected_flushes(size_t cap, size_t n)
{
    size_t pos = 0;
    uint64_t flushes = 0;
    for (size_t i = 0; i < n; i++) {
        if (pos == cap) {
            flushes++;
            pos = 2; /* the FLUSH enter/leave pair opens the emptied buffer */
        }
        pos++;
    }
    return flushes;
}

/* ---- fields and time ---------------------------------------------------------------- */

static void test_fields(void)
{
    st_thread_t *th = st_thread_self();
    EXPECT(th != NULL, "no thread record");
    if (!th)
        return;
    EXPECT(st_thread_self() == th, "second call registers again");
    EXPECT(th->cap == st_config.buffer / sizeof(st_event_t), "cap %zu", th->cap);
    uint64_t before = st_record_count(th);
    st_record_enter(th, ST_REGION_PROGRAM, 0x1234);
    st_event_t *e = st_record(th, ST_EV_MPI_SEND);
    e->peer = 3;
    e->tag = 7;
    e->bytes = 64;
    st_record_leave(th, ST_REGION_PROGRAM);
    EXPECT(st_record_count(th) == before + 3, "count %llu", (unsigned long long)st_record_count(th));
    const st_event_t *ev = &th->buf[th->pos - 3];
    EXPECT(ev[0].kind == ST_EV_ENTER && ev[0].region == ST_REGION_PROGRAM && ev[0].aux == 0x1234 && ev[0].peer == -1,
          "enter: kind %u region %u aux %llx peer %d", ev[0].kind, ev[0].region, (unsigned long long)ev[0].aux, ev[0].peer);
    EXPECT(ev[1].kind == ST_EV_MPI_SEND && ev[1].peer == 3 && ev[1].tag == 7 && ev[1].bytes == 64 && ev[1].flags == 0 &&
          ev[1].id == 0, "send fields");
    EXPECT(ev[2].kind == ST_EV_LEAVE && ev[2].region == ST_REGION_PROGRAM && ev[2].aux == 0, "leave fields");
    EXPECT(ev[0].time <= ev[1].time && ev[1].time <= ev[2].time, "time order");
    EXPECT(ev[0].time > 0, "time is zero");
}

/* Same epoch as the initial identity map: time is clamped within an epoch. */
static st_timer_map_t map_back = { .a = -1000000000, .b = 0.0, .t0 = 0, .epoch = 1 }; /* one second earlier */
static st_timer_map_t map_zero = { .a = 0, .b = 0.0, .t0 = 0, .epoch = 1 };
/* A new sync epoch may go back: not clamped (finalize re-maps across epochs). */
static st_timer_map_t map_next = { .a = -1000000000, .b = 0.0, .t0 = 0, .epoch = 2 };

/* A new map that moves the global clock backwards must not make a location's time go back. */
static void test_monotonic(void)
{
    st_thread_t *th = st_thread_self();
    if (!th)
        return;
    st_record_enter(th, ST_REGION_PROGRAM, 0);
    uint64_t t_before = th->buf[th->pos - 1].time;
    st_timer_set_map(&map_back);
    for (int i = 0; i < 10; i++)
        st_record_enter(th, ST_REGION_PROGRAM, 0);
    st_timer_set_map(&map_zero);
    st_record_leave(th, ST_REGION_PROGRAM);
    for (size_t i = th->pos - 11; i < th->pos; i++)
        EXPECT(th->buf[i].time >= th->buf[i - 1].time, "event %zu earlier than its predecessor", i);
    EXPECT(th->buf[th->pos - 2].time == t_before, "clamped time %llu, expected %llu",
          (unsigned long long)th->buf[th->pos - 2].time, (unsigned long long)t_before);
    uint64_t t_last = th->buf[th->pos - 1].time;
    st_timer_set_map(&map_next);
    st_record_enter(th, ST_REGION_PROGRAM, 0);
    st_timer_set_map(&map_zero);
    EXPECT(th->buf[th->pos - 1].epoch == 2, "event epoch %u, expected 2", th->buf[th->pos - 1].epoch);
    EXPECT(th->buf[th->pos - 1].time + 500000000u < t_last, "a new epoch's earlier time was clamped");
    EXPECT(th->buf[th->pos - 2].epoch == 1, "event epoch %u, expected 1", th->buf[th->pos - 2].epoch);
}

/* ---- flushes ------------------------------------------------------------------------ */

typedef struct flush_case {
    size_t n;            /* events to record */
    int expect_spill;    /* the spill directory works */
    st_thread_t *th;     /* out */
} flush_case_t;

static void *record_many(void *arg)
{
    flush_case_t *fc = arg;
    st_thread_t *th = st_thread_self();
    fc->th = th;
    if (!th)
        return NULL;
    for (size_t i = 0; i < fc->n; i++) {
        st_event_t *e = st_record(th, ST_EV_MPI_ISEND);
        e->id = i;
        e->peer = (int32_t)(i % 5);
    }
    return NULL;
}

static int spill_files_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *de; (de = readdir(d));)
        n += strstr(de->d_name, ".spill") != NULL;
    closedir(d);
    return n;
}

/* Spill files into a fresh directory dir (a mkdtemp template), buffers of 16 events. */
static void spill_dir_begin(char *dir)
{
    EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(st_config.tmpdir, sizeof st_config.tmpdir, "%s", dir);
    st_config.buffer = 16 * sizeof(st_event_t);
}

/* No spill file may be left behind in dir; removes it. */
static void spill_dir_end(const char *dir)
{
    EXPECT(spill_files_in(dir) == 0, "spill file left in %s", dir);
    rmdir(dir);
}

/* After the writer is finished (st_record_load), a thread writes its full buffers itself: a FLUSH region at each. */
static void test_flush_without_writer(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    flush_case_t fc = { .n = 1000, .expect_spill = 1 };
    on_new_thread(record_many, &fc);
    st_thread_t *th = fc.th;
    EXPECT(th != NULL, "no thread");
    if (!th)
        return;
    uint64_t want = expected_flushes(16, fc.n);
    EXPECT(th->flushes == want, "flushes %llu, expected %llu", (unsigned long long)th->flushes, (unsigned long long)want);
    EXPECT(st_record_count(th) == fc.n + 2 * want, "count %llu", (unsigned long long)st_record_count(th));
    EXPECT(spill_files_in(dir) == 0, "spill file left in %s", dir);

    size_t n = 0;
    st_event_t *all = st_record_load(th, &n);
    EXPECT(all != NULL && n == fc.n + 2 * want, "loaded %zu events", n);
    if (all) {
        /* Replay: the exact record sequence, FLUSH pairs where the buffer was full. */
        size_t pos = 0, k = 0, next_id = 0, bad = 0;
        for (size_t i = 0; i < fc.n; i++) {
            if (pos == 16) {
                bad += k + 1 >= n || all[k].kind != ST_EV_ENTER || all[k].region != ST_REGION_FLUSH ||
                       all[k + 1].kind != ST_EV_LEAVE || all[k + 1].region != ST_REGION_FLUSH;
                k += 2;
                pos = 2;
            }
            bad += k >= n || all[k].kind != ST_EV_MPI_ISEND || all[k].id != next_id || all[k].peer != (int32_t)(next_id % 5);
            k++, pos++, next_id++;
        }
        EXPECT(bad == 0 && k == n, "%zu events out of place (of %zu)", bad, n);
        for (size_t i = 1; i < n; i++)
            EXPECT(all[i].time >= all[i - 1].time, "loaded event %zu earlier than its predecessor", i);
        /* st_record_read (the signal-safe reader of abnormal-end dumps): chunks of 7 that cross
           spill/buffer boundaries give the same events; nothing past the end. */
        st_event_t chunk[7];
        size_t got = 0, mismatch = 0;
        for (size_t k2; got < n && (k2 = st_record_read(th, got, chunk, 7)) > 0; got += k2)
            for (size_t j = 0; j < k2; j++)
                mismatch += memcmp(&chunk[j], &all[got + j], sizeof chunk[j]) != 0;
        EXPECT(got == n && mismatch == 0, "st_record_read: %zu of %zu events, %zu differ", got, n, mismatch);
        EXPECT(st_record_read(th, n, chunk, 7) == 0, "st_record_read past the end returned events");
        EXPECT(st_record_read(th, n - 3, chunk, 7) == 3, "st_record_read of the last 3 events");
        free(all);
    }
    rmdir(dir);
}


/* ---- hand-offs to the writer ------------------------------------------------------------------ */

typedef struct handoff_case {
    st_thread_t *th;
    uint64_t     flush_ns;  /* duration of the FLUSH region recorded while the writer was held */
} handoff_case_t;

static void record_ids(st_thread_t *th, uint64_t *next_id, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        st_event_t *e = st_record(th, ST_EV_MPI_ISEND);
        e->id = (*next_id)++;
    }
}

static void *release_later(void *arg)
{
    sleep_ms(*(long *)arg);
    __atomic_store_n(&hold_writes, 0, __ATOMIC_RELEASE);
    return NULL;
}

/*
 * Every event of th, read with st_record_read in chunks of 7 (as a dump reads them): the ids
 * 0..ids-1 in order, FLUSH enter/leave pairs only as the first events of a buffer (a buffer
 * begins after cap events, or after the pair); returns the number of pairs.
 */
static uint64_t check_sequence(const char *what, const st_thread_t *th, uint64_t ids)
{
    uint64_t n = st_record_count(th), k = 0, next = 0, pairs = 0, bad = 0;
    size_t pos = 0;
    st_event_t chunk[7];
    while (k < n) {
        size_t got = st_record_read(th, k, chunk, 7);
        if (got == 0)
            break;
        for (size_t j = 0; j < got; j++, k++) {
            const st_event_t *e = &chunk[j];
            if (pos == th->cap)
                pos = 0;
            if (e->region == ST_REGION_FLUSH && e->kind == ST_EV_ENTER) {
                bad += pos != 0;
                pairs++;
            } else if (e->region == ST_REGION_FLUSH && e->kind == ST_EV_LEAVE) {
                bad += pos != 1;
            } else {
                bad += e->kind != ST_EV_MPI_ISEND || e->id != next;
                next++;
            }
            pos++;
        }
    }
    EXPECT(k == n && next == ids && bad == 0, "%s: read %llu of %llu events, ids up to %llu of %llu, %llu out of place",
           what, (unsigned long long)k, (unsigned long long)n, (unsigned long long)next, (unsigned long long)ids,
           (unsigned long long)bad);
    EXPECT(st_record_read(th, n, chunk, 7) == 0, "%s: st_record_read past the end returned events", what);
    return pairs;
}

/*
 * The writer keeps up: no wait, no FLUSH region. Then it is held in its write of the next
 * buffer: meanwhile every event reads back (the buffer in its hands from memory), and the
 * next full buffer waits for it: one FLUSH region, as long as the hold, at the start of the
 * buffer after it.
 */
static void *record_handoffs(void *arg)
{
    handoff_case_t *hc = arg;
    st_thread_t *th = hc->th = st_thread_self();
    if (!th)
        return NULL;
    uint64_t id = 0;
    record_ids(th, &id, th->cap / 2 + 1);
    EXPECT(th->spare != ST_SPARE_NONE && th->limit == th->cap, "half full: spare %u, limit %zu", th->spare, th->limit);
    writer_caught_up(th);
    EXPECT(th->spare == ST_SPARE_READY && th->bufs[1] != NULL, "spare %u", th->spare);
    for (int round = 0; round < 3; round++) {
        record_ids(th, &id, th->cap);
        writer_caught_up(th);
    }
    EXPECT(th->flushes == 0 && th->handoffs == 3 && th->lost == 0, "writer kept up: %llu waits, %llu hand-offs",
           (unsigned long long)th->flushes, (unsigned long long)th->handoffs);
    EXPECT(st_record_spilled(th) == 3 * th->cap, "spilled %llu", (unsigned long long)st_record_spilled(th));

    __atomic_store_n(&hold_writes, 1, __ATOMIC_RELEASE);
    int begun = __atomic_load_n(&writes_begun, __ATOMIC_SEQ_CST);
    record_ids(th, &id, th->cap); /* the fourth buffer is handed off: the writer is held in its write */
    for (int i = 0; i < 10000 && __atomic_load_n(&writes_begun, __ATOMIC_SEQ_CST) == begun; i++)
        sleep_ms(1);
    uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
    EXPECT(ST_HAND_PENDING(h) == th->cap && th->flushes == 0, "held: %llu pending, %llu waits",
           (unsigned long long)ST_HAND_PENDING(h), (unsigned long long)th->flushes);
    EXPECT(st_record_count(th) == id, "count %llu with a buffer in the writer's hands, recorded %llu",
           (unsigned long long)st_record_count(th), (unsigned long long)id);
    check_sequence("in the writer's hands", th, id);
    pthread_t rel;
    long hold_ms = 30;
    pthread_create(&rel, NULL, release_later, &hold_ms);
    record_ids(th, &id, th->cap); /* the fifth: the spare is still being written: wait */
    pthread_join(rel, NULL);
    EXPECT(th->flushes == 1 && th->handoffs == 5, "writer behind: %llu waits, %llu hand-offs",
           (unsigned long long)th->flushes, (unsigned long long)th->handoffs);
    EXPECT(th->buf[0].region == ST_REGION_FLUSH && th->buf[0].kind == ST_EV_ENTER &&
           th->buf[1].region == ST_REGION_FLUSH && th->buf[1].kind == ST_EV_LEAVE,
           "the wait is not the first two events of the buffer");
    hc->flush_ns = th->buf[1].time - th->buf[0].time;
    record_ids(th, &id, 5);
    writer_caught_up(th);
    EXPECT(check_sequence("after the wait", th, id) == 1, "FLUSH regions in the trace");
    return NULL;
}

/*
 * A location with room (as OpenMP's) hands off buffers of cap - room events, not a multiple of a
 * 4 KiB block: the last events of each are carried to the next buffer, so that what is spilled stays
 * whole blocks from the first hand-off on (each write goes straight from the buffer, O_DIRECT), and
 * every event still reads back once, in order.
 */
static void *record_aligned(void *arg)
{
    st_thread_t *th = *(st_thread_t **)arg = st_thread_self();
    if (!th)
        return NULL;
    st_record_set_room(th, 100);
    __atomic_store_n(&unaligned_bytes, 0, __ATOMIC_SEQ_CST);
    uint64_t id = 0;
    for (int round = 0; round < 20 && th->handoffs < 4; round++) { /* the first stop only asks for the spare */
        while (th->pos < th->limit)
            st_record_in_room(th, ST_EV_MPI_ISEND)->id = id++;
        st_record_flush_point(th);
        writer_caught_up(th);
    }
    uint64_t spilled = st_record_spilled(th), per = ST_SPILL_ALIGN / sizeof(st_event_t);
    EXPECT(th->handoffs == 4 && spilled > 3 * (th->cap - 100), "%llu hand-offs, %llu spilled",
           (unsigned long long)th->handoffs, (unsigned long long)spilled);
    if (th->spill_dfd >= 0) {
        EXPECT(spilled % per == 0, "spilled %llu events: not whole %u-byte blocks", (unsigned long long)spilled,
               ST_SPILL_ALIGN);
        /* from the first hand-off on: none of it went through the page cache at an unaligned offset */
        EXPECT(unaligned_bytes == 0, "%zu bytes written at unaligned offsets (through the page cache)", unaligned_bytes);
    }
    else
        printf("test_record: %s has no O_DIRECT: alignment not checked\n", st_config.tmpdir);
    uint64_t n = st_record_count(th), next = 0;
    st_event_t chunk[50];
    for (uint64_t k = 0; k < n;) {
        size_t got = st_record_read(th, k, chunk, 50);
        EXPECT(got > 0, "read %llu of %llu events", (unsigned long long)k, (unsigned long long)n);
        if (got == 0)
            break;
        for (size_t j = 0; j < got; j++)
            if (chunk[j].region != ST_REGION_FLUSH && chunk[j].id == next)
                next++;
        k += got;
    }
    EXPECT(next == id, "%llu of %llu events read back in order", (unsigned long long)next, (unsigned long long)id);
    return NULL;
}

static void test_aligned(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    st_config.buffer = 4096 * sizeof(st_event_t);
    st_thread_t *th = NULL;
    on_new_thread(record_aligned, &th);
    EXPECT(th != NULL, "no thread");
    spill_dir_end(dir);
}

/* ---- the buffers' memory ------------------------------------------------------------------ */

/*
 * What /proc/self/smaps says of the mapping that holds addr: whether it is marked for huge pages
 * (*huge 1: VmFlags "hg", madvise MADV_HUGEPAGE; -1: "nh", MADV_NOHUGEPAGE; else 0), its start, and
 * its resident kB. 0 when found.
 */
static int mapping_of(const void *addr, int *huge, uintptr_t *start, long *rss_kb)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int in = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (in)
                break;
            in = (uintptr_t)addr >= a && (uintptr_t)addr < b;
            if (in)
                *start = a, *huge = 0, *rss_kb = 0, found = 1;
        } else if (in && !strncmp(line, "Rss:", 4)) {
            *rss_kb = atol(line + 4);
        } else if (in && !strncmp(line, "VmFlags:", 8)) {
            *huge = strstr(line, " hg") ? 1 : strstr(line, " nh") ? -1 : 0;
        }
    }
    fclose(f);
    return found ? 0 : -1;
}

static void *record_half_of_big(void *arg)
{
    st_thread_t *th = *(st_thread_t **)arg = st_thread_self();
    uint64_t id = 0;
    if (th) {
        record_ids(th, &id, th->cap / 2 + 1); /* asks for the spare */
        writer_caught_up(th);
    }
    return NULL;
}

/*
 * A thread's buffers of 2 MiB and more (the default is 8 MiB) are mapped 2 MiB aligned and marked for huge
 * pages before they are populated, the first on the registering thread, the spare by the writer: no
 * first-access trap per 4 KiB page in a VM with shadow page tables, and 3-8 times less populate here.
 * Smaller ones are in 4 KiB pages. Both are resident in full before the first event goes into them.
 */
static void test_huge_buffers(size_t buffer)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    st_config.buffer = buffer;
    st_thread_t *th = NULL;
    on_new_thread(record_half_of_big, &th);
    REQUIRE(th != NULL && th->spare == ST_SPARE_READY, "no thread or no spare");
    for (int b = 0; b < 2; b++) {
        int huge = 0;
        uintptr_t start = 0;
        long rss = 0;
        REQUIRE(mapping_of(th->bufs[b], &huge, &start, &rss) == 0, "buffer %d not in /proc/self/smaps", b);
        if (buffer >= ST_HUGE_PAGE)
            EXPECT((uintptr_t)th->bufs[b] % ST_HUGE_PAGE == 0 && huge == 1, "%s buffer of %zu KiB at %p: %s2 MiB "
                   "aligned, %smarked for huge pages (madvise MADV_HUGEPAGE)", b ? "spare" : "first", buffer >> 10,
                   (void *)th->bufs[b], (uintptr_t)th->bufs[b] % ST_HUGE_PAGE ? "not " : "", huge == 1 ? "" : "not ");
        else
            EXPECT(huge != 1, "%s buffer of %zu KiB at %p: marked for huge pages", b ? "spare" : "first",
                   buffer >> 10, (void *)th->bufs[b]);
        EXPECT(rss >= (long)(th->cap * sizeof(st_event_t) >> 10), "buffer %d: its mapping (at %#lx) has %ld kB "
               "resident, the buffer %zu", b, (unsigned long)start, rss, th->cap * sizeof(st_event_t) >> 10);
    }
    spill_dir_end(dir);
}

static void test_handoff(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    handoff_case_t hc = { 0 };
    on_new_thread(record_handoffs, &hc);
    EXPECT(hc.th != NULL, "no thread");
    EXPECT(hc.flush_ns >= 20000000, "the FLUSH region lasted %llu ns, the writer was held 30 ms",
           (unsigned long long)hc.flush_ns);
    EXPECT(spill_files_in(dir) == 0, "spill file left in %s", dir);
    rmdir(dir);
}

/* 10^6 events in 64-event buffers: whatever the writer's pace, none lost, none out of order. */
static void *record_million(void *arg)
{
    st_thread_t *th = *(st_thread_t **)arg = st_thread_self();
    if (!th)
        return NULL;
    uint64_t id = 0;
    record_ids(th, &id, 1000000);
    return NULL;
}

static st_thread_t *many_th; /* test_many's thread: 10^6 events, nearly all of them spilled */

static void test_many(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    st_config.buffer = 64 * sizeof(st_event_t);
    st_thread_t *th = NULL;
    on_new_thread(record_million, &th);
    if (!th)
        return;
    writer_caught_up(th);
    many_th = th;
    uint64_t pairs = check_sequence("10^6 events", th, 1000000);
    EXPECT(pairs == th->flushes && th->lost == 0, "%llu FLUSH regions, %llu waits counted, %llu lost",
           (unsigned long long)pairs, (unsigned long long)th->flushes, (unsigned long long)th->lost);
    EXPECT(th->handoffs >= 1000000 / 64, "%llu hand-offs", (unsigned long long)th->handoffs);
    printf("test_record: 10^6 events in 64-event buffers: %llu hand-offs, %llu waited for the writer\n",
           (unsigned long long)th->handoffs, (unsigned long long)th->flushes);
    rmdir(dir);
}

/*
 * Writes that fail (a full disk): the buffer stays in memory, readable, until the thread
 * needs it again; then its events are counted lost, once. The warning names the cause.
 */
static void *record_failing(void *arg)
{
    st_thread_t *th = *(st_thread_t **)arg = st_thread_self();
    if (!th)
        return NULL;
    uint64_t id = 0;
    record_ids(th, &id, th->cap / 2 + 1);
    writer_caught_up(th);
    record_ids(th, &id, th->cap - th->cap / 2 - 1);
    writer_caught_up(th);
    EXPECT(st_record_spilled(th) == 0 && th->handoffs == 0, "nothing handed off yet");
    __atomic_store_n(&fail_writes, 1, __ATOMIC_RELEASE);
    record_ids(th, &id, 1); /* buffer 1 handed off, its write fails */
    writer_caught_up(th);
    uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
    EXPECT(ST_HAND_FAILED(h) && ST_HAND_PENDING(h) == th->cap && th->lost == 0, "failed write: lost %llu",
           (unsigned long long)th->lost);
    EXPECT(st_record_count(th) == id, "a failed buffer is still readable: count %llu of %llu",
           (unsigned long long)st_record_count(th), (unsigned long long)id);
    record_ids(th, &id, th->cap); /* buffer 2 handed off: buffer 1 is needed, its events are lost */
    writer_caught_up(th);
    EXPECT(th->lost == th->cap, "lost %llu, expected %zu", (unsigned long long)th->lost, th->cap);
    __atomic_store_n(&fail_writes, 0, __ATOMIC_RELEASE);
    record_ids(th, &id, th->cap); /* buffer 3 written; buffer 2 lost */
    writer_caught_up(th);
    EXPECT(th->lost == 2 * th->cap && st_record_spilled(th) == th->cap, "lost %llu, spilled %llu",
           (unsigned long long)th->lost, (unsigned long long)st_record_spilled(th));
    EXPECT(st_record_count(th) + th->lost == id + 2 * th->flushes, "count %llu + lost %llu vs recorded %llu",
           (unsigned long long)st_record_count(th), (unsigned long long)th->lost, (unsigned long long)id);
    /* buffers 1 and 2 went one after the other: one hole, before the stream's first event */
    EXPECT(th->ngaps == 1 && th->gaps[0].at == 0 && th->gaps[0].upto == 0, "%u holes, the first at %llu",
           th->ngaps, (unsigned long long)th->gaps[0].at);
    __atomic_store_n(&fail_writes, 1, __ATOMIC_RELEASE);
    record_ids(th, &id, th->cap); /* buffer 4 fails */
    writer_caught_up(th);
    __atomic_store_n(&fail_writes, 0, __ATOMIC_RELEASE);
    record_ids(th, &id, 2 * th->cap); /* buffer 5 is needed: 4 lost; 5 written */
    writer_caught_up(th);
    EXPECT(th->ngaps == 2 && th->gaps[1].at == th->cap, "%u holes, the second at %llu (buffer 3 was written)",
           th->ngaps, (unsigned long long)th->gaps[th->ngaps ? th->ngaps - 1 : 0].at);
    return NULL;
}

static void test_write_failure(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    st_thread_t *th = NULL;
    on_new_thread(record_failing, &th);
    EXPECT(th != NULL, "no thread");
    rmdir(dir);
}

/*
 * Room above the limit (st_record_set_room): st_record flushes before an event once pos
 * reaches the limit; st_record_in_room / st_record_in_room_at record into the room
 * without flushing, st_record_in_room_at with the caller's time (never before the last
 * event), and st_record_flush_point flushes afterwards, so the FLUSH region follows the
 * caller's events.
 */
static void *record_in_room(void *arg)
{
    flush_case_t *fc = arg;
    st_thread_t *th = st_thread_self();
    fc->th = th;
    if (!th)
        return NULL;
    st_record_set_room(th, 4);
    EXPECT(th->limit == 8, "limit %zu before the spare is asked for (half the buffer)", th->limit);
    for (int i = 0; i < 12; i++)
        st_record(th, ST_EV_MPI_ISEND);
    EXPECT(th->limit == 12, "limit %zu with 4 slots of room in 16", th->limit);
    EXPECT(th->handoffs == 0 && th->pos == 12, "handed off before the limit (pos %zu)", th->pos);
    writer_caught_up(th);
    uint32_t epoch;
    uint64_t t0 = st_timer_now_ep(&epoch);
    for (int i = 0; i < 3; i++)
        st_record_in_room(th, ST_EV_THREAD_RELEASE_LOCK);
    st_event_t *e = st_record_in_room_at(th, ST_EV_THREAD_TEAM_END, t0, epoch);
    EXPECT(th->handoffs == 0 && th->pos == 16, "handed off inside the room (pos %zu)", th->pos);
    EXPECT(e->time == th->buf[14].time, "stamped %llu, not at the previous event %llu (t0 %llu is earlier)",
          (unsigned long long)e->time, (unsigned long long)th->buf[14].time, (unsigned long long)t0);
    st_record_flush_point(th);
    EXPECT(th->handoffs == 1 && th->flushes == 0 && th->pos == 0, "flush point: %llu hand-offs, %llu waits, pos %zu",
          (unsigned long long)th->handoffs, (unsigned long long)th->flushes, th->pos);
    st_record_flush_point(th);
    EXPECT(th->handoffs == 1, "flush point handed off below the limit");
    t0 = st_timer_now_ep(&epoch);
    st_record(th, ST_EV_MPI_ISEND);
    e = st_record_in_room_at(th, ST_EV_THREAD_TEAM_END, t0, epoch);
    EXPECT(e->time == th->buf[0].time, "a time before the last event: %llu, last %llu", (unsigned long long)e->time,
          (unsigned long long)th->buf[0].time);
    uint64_t t1 = st_timer_now_ep(&epoch) + 1000000;
    e = st_record_in_room_at(th, ST_EV_THREAD_TEAM_END, t1, epoch);
    EXPECT(e->time == t1 && th->last == t1, "stamped %llu, not at the given time %llu", (unsigned long long)e->time,
          (unsigned long long)t1);
    return NULL;
}

static void test_room(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    flush_case_t fc = { 0 };
    on_new_thread(record_in_room, &fc);
    EXPECT(fc.th != NULL, "no thread");
    spill_dir_end(dir);
}

/* st_record_again: the previous event's time without a clock read; a fresh one after a hand-off. */
static void *record_again(void *arg)
{
    (void)arg;
    st_thread_t *th = st_thread_self();
    if (!th)
        return NULL;
    st_event_t *e = st_record_again(th, ST_EV_MPI_SEND);
    EXPECT(th->pos == 1 && e->time > 0 && e->kind == ST_EV_MPI_SEND, "first event of a thread: time %llu",
          (unsigned long long)e->time);
    st_record_enter(th, ST_REGION_PROGRAM, 0);
    uint64_t t_enter = th->buf[th->pos - 1].time, t0 = st_timer_now();
    while (st_timer_now() - t0 < 5000) /* the clock moves on */
        ;
    e = st_record_again(th, ST_EV_MPI_ISEND);
    EXPECT(e->time == t_enter && e->kind == ST_EV_MPI_ISEND && e->peer == -1 && e->epoch == th->buf[th->pos - 2].epoch,
          "again: %llu, enter %llu", (unsigned long long)e->time, (unsigned long long)t_enter);
    while (th->pos < th->cap)
        st_record(th, ST_EV_LEAVE);
    writer_caught_up(th);
    e = st_record_again(th, ST_EV_MPI_SEND);
    EXPECT(th->handoffs == 1 && th->flushes == 0 && th->pos == 1 && e == &th->buf[0] && e->time >= th->bufs[0][15].time,
          "again at a full buffer: %llu hand-offs, %llu waits, pos %zu", (unsigned long long)th->handoffs,
          (unsigned long long)th->flushes, th->pos);
    return NULL;
}

static void test_again(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    on_new_thread(record_again, NULL);
    spill_dir_end(dir);
}

/* A spill directory that does not exist: warn, keep recording into the buffer, never crash. */
static void test_flush_unwritable(void)
{
    snprintf(st_config.tmpdir, sizeof st_config.tmpdir, "/nonexistent-synctrace-dir/sub");
    st_config.buffer = 16 * sizeof(st_event_t);
    flush_case_t fc = { .n = 200, .expect_spill = 0 };
    on_new_thread(record_many, &fc);
    st_thread_t *th = fc.th;
    EXPECT(th != NULL, "no thread");
    if (!th)
        return;
    EXPECT(th->flushes == expected_flushes(16, fc.n), "flushes %llu", (unsigned long long)th->flushes);
    EXPECT(st_record_spilled(th) == 0, "spilled %llu events to a directory that does not exist",
           (unsigned long long)st_record_spilled(th));
    EXPECT(th->pos <= th->cap, "pos %zu beyond cap %zu", th->pos, th->cap);
    size_t n = 0;
    st_event_t *all = st_record_load(th, &n);
    EXPECT(all != NULL && n == st_record_count(th), "loaded %zu, count %llu", n, (unsigned long long)st_record_count(th));
    /* what is left is the last buffer: its events are the newest ones, in order */
    if (all && n > 2) {
        EXPECT(all[0].region == ST_REGION_FLUSH && all[n - 1].kind == ST_EV_MPI_ISEND && all[n - 1].id == fc.n - 1,
              "last buffer: first region %u, last id %llu", all[0].region, (unsigned long long)all[n - 1].id);
    }
    free(all);
    st_config.tmpdir[0] = 0;
}

/*
 * Finishing the writer while it writes one thread's buffer and another's waits: the write
 * in progress completes, the waiting buffer stays in memory and st_record_load reads it.
 */
static void *register_half(void *arg)
{
    st_thread_t *th = *(st_thread_t **)arg = st_thread_self();
    uint64_t id = 0;
    if (th)
        record_ids(th, &id, th->cap / 2 + 1);
    return NULL;
}

static void test_finish(void)
{
    char dir[] = "/tmp/st-test-record-XXXXXX";
    spill_dir_begin(dir);
    st_thread_t *a = NULL, *b = NULL;
    on_new_thread(register_half, &a);
    on_new_thread(register_half, &b);
    REQUIRE(a && b, "no thread");
    writer_caught_up(a);
    writer_caught_up(b);
    uint64_t ida = a->cap / 2 + 1, idb = b->cap / 2 + 1;
    __atomic_store_n(&hold_writes, 1, __ATOMIC_RELEASE);
    int begun = __atomic_load_n(&writes_begun, __ATOMIC_SEQ_CST);
    record_ids(a, &ida, a->cap);
    for (int i = 0; i < 10000 && __atomic_load_n(&writes_begun, __ATOMIC_SEQ_CST) == begun; i++)
        sleep_ms(1);
    record_ids(b, &idb, b->cap);
    pthread_t rel;
    long hold_ms = 30;
    pthread_create(&rel, NULL, release_later, &hold_ms);
    st_spill_finish();
    pthread_join(rel, NULL);
    EXPECT(st_record_spilled(a) == a->cap, "the write in progress: %llu spilled", (unsigned long long)st_record_spilled(a));
    EXPECT(ST_HAND_PENDING(b->hand) == b->cap && st_record_spilled(b) == 0, "b: %llu pending",
           (unsigned long long)ST_HAND_PENDING(b->hand));
    EXPECT(!st_spill_writer_alive() && st_spill_wake() != 0, "a writer after st_spill_finish");
    check_sequence("pending after finish", b, idb);
    size_t n = 0;
    st_event_t *all = st_record_load(b, &n);
    EXPECT(all && n == idb, "loaded %zu of %llu", n, (unsigned long long)idb);
    for (size_t i = 0; all && i < n; i++)
        if (all[i].id != i) {
            EXPECT(0, "loaded event %zu has id %llu", i, (unsigned long long)all[i].id);
            break;
        }
    free(all);
    rmdir(dir);
}

/*
 * Reading back (st_record_load) into a block marked for huge pages (spill.h): in huge pages
 * throughout, in 4 KiB pages throughout, or measured (two 2 MiB pieces in huge pages, then two in 4 KiB
 * pages unless the first were cheap, the rest as the measurement found, which st_load_verdict then
 * holds and a later load follows without measuring), the block holds the bytes a dump reads (st_record_read, straight
 * from the file and the buffers), and /proc/self/smaps shows each piece marked as said.
 */
enum { PIECES = 5, REST = 2 }; /* the pieces whose marks are checked; REST: as the verdict */

static int load_marks(const char *how, int pages, int verdict, const int want[PIECES])
{
    st_thread_t *th = many_th;
    size_t n = (size_t)st_record_count(th);
    st_event_t *ref = malloc(n * sizeof *ref);
    REQUIRE(ref && st_record_read(th, 0, ref, n) == n, "st_record_read of %zu events", n);
    st_load_pages = pages;
    st_load_verdict = verdict;
    size_t got = 0;
    st_event_t *all = st_record_load(th, &got);
    EXPECT(all && got == n && memcmp(all, ref, n * sizeof *ref) == 0, "%s: loaded %zu of %zu events, %s", how, got,
           n, all && got == n ? "other bytes than st_record_read's" : "");
    int mark[PIECES] = { 0 }, expect[PIECES], same = 1;
    for (int k = 0; k < PIECES; k++) {
        uintptr_t start;
        long rss;
        EXPECT(!all || mapping_of((char *)all + (size_t)k * ST_HUGE_PAGE, &mark[k], &start, &rss) == 0,
               "%s: the loaded block is not in /proc/self/smaps", how);
        expect[k] = want[k] != REST ? want[k] : st_load_verdict == 1 ? 1 : -1;
        same &= mark[k] == expect[k];
    }
    EXPECT(same, "%s: the block's first five 2 MiB marked %d %d %d %d %d, expected %d %d %d %d %d (1: huge pages, "
           "-1: 4 KiB pages)", how, mark[0], mark[1], mark[2], mark[3], mark[4], expect[0], expect[1], expect[2],
           expect[3], expect[4]);
    free(all);
    free(ref);
    return st_load_verdict;
}

static void test_load_pages(void)
{
    REQUIRE(many_th && st_record_spilled(many_th) * sizeof(st_event_t) >= ST_HUGE_MIN + PIECES * ST_HUGE_PAGE,
            "test_many's thread spilled too little to be read in pieces");
    load_marks("huge pages throughout", 1, -1, (const int[PIECES]){ 1, 1, 1, 1, 1 });
    load_marks("4 KiB pages throughout", -1, -1, (const int[PIECES]){ -1, -1, -1, -1, -1 });
    double cheap = st_load_huge_cheap;
    st_load_huge_cheap = 0; /* both timed */
    int verdict = load_marks("measured", 0, -1, (const int[PIECES]){ 1, 1, -1, -1, REST });
    EXPECT(verdict == 0 || verdict == 1, "measured: st_load_verdict is %d, expected 0 or 1", verdict);
    st_load_huge_cheap = 1e12; /* the huge pieces cheap enough: no 4 KiB piece timed */
    verdict = load_marks("measured, huge pages cheap", 0, -1, (const int[PIECES]){ 1, 1, 1, 1, 1 });
    EXPECT(verdict == 1, "measured, huge pages cheap: st_load_verdict is %d, expected 1", verdict);
    st_load_huge_cheap = cheap;
    load_marks("as measured before (huge pages)", 0, 1, (const int[PIECES]){ 1, 1, 1, 1, 1 });
    load_marks("as measured before (4 KiB pages)", 0, 0, (const int[PIECES]){ -1, -1, -1, -1, -1 });
    st_load_pages = 0;
    st_load_verdict = -1;
}

/* ---- threads -------------------------------------------------------------------------- */

#define NTHREADS 8

static void *record_some(void *arg)
{
    st_thread_t **slot = arg;
    st_thread_t *th = st_thread_self();
    *slot = th;
    for (int i = 0; th && i < 500; i++)
        st_record_enter(th, ST_REGION_PROGRAM, (uint64_t)i);
    return NULL;
}

static void test_threads(void)
{
    st_config.buffer = 1024 * sizeof(st_event_t);
    size_t before;
    st_record_threads(&before);
    pthread_t t[NTHREADS];
    st_thread_t *th[NTHREADS] = { 0 };
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, record_some, &th[i]);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    size_t after;
    st_thread_t **all = st_record_threads(&after);
    EXPECT(after == before + NTHREADS, "%zu threads registered, expected %zu", after, before + NTHREADS);
    for (int i = 0; i < NTHREADS; i++) {
        EXPECT(th[i] && th[i]->pos == 500 && th[i]->flushes == 0, "thread %d", i);
        for (int j = 0; j < i; j++)
            EXPECT(th[i] != th[j] && (!th[i] || !th[j] || th[i]->index != th[j]->index), "threads %d and %d share", i, j);
        EXPECT(th[i] && th[i]->index < after && all[th[i]->index] == th[i], "registry slot of thread %d", i);
    }
}

static void *register_only(void *arg)
{
    *(st_thread_t **)arg = st_thread_self();
    return NULL;
}

static void test_stop(void)
{
    st_record_stop();
    st_thread_t *th = (st_thread_t *)1;
    on_new_thread(register_only, &th);
    EXPECT(th == NULL, "a thread registered after st_record_stop");
}

int main(void)
{
    char err[512];
    if (st_config_load(err, sizeof err) != 0) {
        fprintf(stderr, "config: %s\n", err);
        return 2;
    }
    st_config.buffer = 4096 * sizeof(st_event_t);
    st_timer_init(st_config.clock, st_config.timer);
    st_record_active = 1;

    test_fields();
    test_monotonic();
    test_handoff();
    test_many();
    test_write_failure();
    test_room();
    test_again();
    test_aligned();
    test_huge_buffers(1 << 20); /* both buffers in 4 KiB pages */
    test_huge_buffers(4 << 20); /* both in huge pages */
    test_finish(); /* from here on without a writer */
    test_load_pages();
    test_flush_without_writer();
    test_flush_unwritable();
    test_threads();
    test_stop();

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("test_record: all checks passed\n");
    return 0;
}
