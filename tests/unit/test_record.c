/*
 * test_record.c — unit tests of the recording hot path (src/record/record.h, record.c).
 *
 * Covers: thread registration, the fields st_record() fills, per-location time that never
 * goes backwards even when the global clock map steps back, buffer flushes to the spill
 * file (no event lost or reordered, FLUSH enter/leave pairs exactly where a full buffer
 * was met, nothing left in the spill directory), room kept above the flush limit for
 * callers that flush only after stamping, a spill directory that cannot be used
 * (no crash, the buffer goes on), st_record_read (the same events in any chunks), many threads
 * registering concurrently, st_record_again (the previous event's time), and
 * st_record_stop(). Each case that needs a fresh buffer records on a new thread.
 */
/* link: src/record/record.c src/clock/timer.c src/clock/tsc.c src/clock/tsc_points.c src/config/config.c src/util/archive_dir.c src/util/log.c */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/config/config.h"
#include "../../src/record/record.h"

#include "check.h"

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
static const st_timer_map_t map_back = { .a = -1000000000, .b = 0.0, .t0 = 0, .epoch = 1 }; /* one second earlier */
static const st_timer_map_t map_zero = { .a = 0, .b = 0.0, .t0 = 0, .epoch = 1 };
/* A new sync epoch may go back: not clamped (finalize re-maps across epochs). */
static const st_timer_map_t map_next = { .a = -1000000000, .b = 0.0, .t0 = 0, .epoch = 2 };

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

static void test_flush(void)
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
    EXPECT(th->limit == 12, "limit %zu with 4 slots of room in 16", th->limit);
    for (int i = 0; i < 12; i++)
        st_record(th, ST_EV_MPI_ISEND);
    EXPECT(th->flushes == 0 && th->pos == 12, "flushed before the limit (pos %zu)", th->pos);
    uint32_t epoch;
    uint64_t t0 = st_timer_now_ep(&epoch);
    for (int i = 0; i < 3; i++)
        st_record_in_room(th, ST_EV_THREAD_RELEASE_LOCK);
    st_event_t *e = st_record_in_room_at(th, ST_EV_THREAD_TEAM_END, t0, epoch);
    EXPECT(th->flushes == 0 && th->pos == 16, "flushed inside the room (pos %zu)", th->pos);
    EXPECT(e->time == th->buf[14].time, "stamped %llu, not at the previous event %llu (t0 %llu is earlier)",
          (unsigned long long)e->time, (unsigned long long)th->buf[14].time, (unsigned long long)t0);
    uint64_t last = e->time;
    st_record_flush_point(th);
    EXPECT(th->flushes == 1 && th->pos == 2 && th->buf[0].region == ST_REGION_FLUSH && th->buf[0].time >= last,
          "flush point: %llu flushes, pos %zu", (unsigned long long)th->flushes, th->pos);
    st_record_flush_point(th);
    EXPECT(th->flushes == 1, "flush point flushed below the limit");
    t0 = st_timer_now_ep(&epoch);
    st_record(th, ST_EV_MPI_ISEND);
    e = st_record_in_room_at(th, ST_EV_THREAD_TEAM_END, t0, epoch);
    EXPECT(e->time == th->buf[2].time, "a time before the last event: %llu, last %llu", (unsigned long long)e->time,
          (unsigned long long)th->buf[2].time);
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

/* st_record_again: the previous event's time without a clock read; a fresh one after a flush. */
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
    while (th->pos < th->limit)
        st_record(th, ST_EV_LEAVE);
    e = st_record_again(th, ST_EV_MPI_SEND);
    EXPECT(th->flushes == 1 && th->pos == 3 && th->buf[1].region == ST_REGION_FLUSH && e == &th->buf[2] &&
          e->time >= th->buf[1].time, "again at a full buffer: %llu flushes, pos %zu", (unsigned long long)th->flushes,
          th->pos);
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
    EXPECT(th->spilled == 0, "spilled %llu events to a directory that does not exist", (unsigned long long)th->spilled);
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
    test_flush();
    test_room();
    test_again();
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
