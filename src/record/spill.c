/*
 * spill.c — spill files and the writer thread that fills them (spill.h).
 *
 * The writer's state and a wake-up count share one 32-bit word (a futex): a request
 * bumps the count, so a writer about to end for want of work sees the change and stays;
 * a writer that found nothing sleeps on the word until a request changes it.
 */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/hugealloc.h"
#include "../util/log.h"

/* The writer's state, in the low two bits of writer_word; the rest counts requests. */
enum { W_NONE, W_RUNNING, W_STOPPING, W_FINISHED };
#define W_STATE(w) ((w) & 3u)
#define W_BUMP(w, state) ((((w) & ~3u) + 4u) | (state))

static uint32_t writer_word; /* W_NONE: not started, or ended for want of work; starts at the next request */

/* A writer without work for this long ends (it starts again at the next request). */
#define IDLE_NS (100 * 1000 * 1000L)
/* A waiting thread looks again after this long (the writer may have been finished meanwhile). */
#define WAIT_NS (5 * 1000 * 1000L)

static long futex(uint32_t *word, int op, uint32_t val, long timeout_ns)
{
    struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };
    return syscall(SYS_futex, word, op, val, timeout_ns ? &ts : NULL, NULL, 0);
}

static void wake_all(uint32_t *word)
{
    futex(word, FUTEX_WAKE_PRIVATE, INT_MAX, 0);
}

/* ---- spill files ---------------------------------------------------------------------------- */

/*
 * An unnamed spill file: created under a random name (O_EXCL: nobody's file or link is opened) and unlinked.
 * *dfd gets a second descriptor of it opened with O_DIRECT, or -1 where the file system has none.
 */
static int open_spill(int *dfd)
{
    char path[4200];
    *dfd = -1;
    if (snprintf(path, sizeof path, "%s/synctrace-spill-XXXXXX", st_config.tmpdir) >= (int)sizeof path)
        return errno = ENAMETOOLONG, -1;
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -1;
    *dfd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
    unlink(path); /* the data lives while the descriptors do; nothing is left behind on a crash */
    return fd;
}

/* Writes len bytes at off through fd; the bytes written (fewer only on an error, errno set). */
static size_t write_all(int fd, const char *c, size_t len, off_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, c + done, len - done, off + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    return done;
}

int st_spill_write(st_thread_t *th, const st_event_t *ev, uint64_t at, size_t n)
{
    if (th->spill_fd < 0)
        th->spill_fd = open_spill(&th->spill_dfd);
    if (th->spill_fd < 0)
        return -1;
    const char *c = (const char *)ev;
    size_t len = n * sizeof *ev, done = 0;
    off_t off = (off_t)(at * sizeof *ev);
    /* whole blocks from an aligned start straight from the buffer: no copy into the page cache */
    size_t direct = (len / ST_SPILL_ALIGN) * ST_SPILL_ALIGN;
    if (th->spill_dfd >= 0 && direct && off % ST_SPILL_ALIGN == 0 && (uintptr_t)c % ST_SPILL_ALIGN == 0) {
        done = write_all(th->spill_dfd, c, direct, off);
        done -= done % ST_SPILL_ALIGN;
        if (done < direct && errno == EINVAL) { /* O_DIRECT refused after all: buffered from now on */
            close(th->spill_dfd);
            th->spill_dfd = -1;
        } else if (done < direct) {
            goto failed;
        }
    }
    if (write_all(th->spill_fd, c + done, len - done, off + (off_t)done) == len - done)
        return 0;
failed:;
    /* cut a partly written buffer off again, so what was spilled before reads back intact */
    int err = errno;
    if (ftruncate(th->spill_fd, off) != 0) { /* the next write starts at 'at' anyway */
    }
    errno = err;
    return -1;
}

int st_spill_read(const st_thread_t *th, void *out, uint64_t from, size_t bytes)
{
    size_t done = 0;
    if (th->spill_dfd >= 0 && (uintptr_t)out % ST_SPILL_ALIGN == 0 && from % ST_SPILL_ALIGN == 0) {
        size_t direct = (bytes / ST_SPILL_ALIGN) * ST_SPILL_ALIGN;
        while (done < direct) {
            ssize_t r = pread(th->spill_dfd, (char *)out + done, direct - done, (off_t)(from + done));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || r % ST_SPILL_ALIGN)
                break; /* the rest through the page cache */
            done += (size_t)r;
        }
    }
    while (done < bytes) {
        ssize_t r = pread(th->spill_fd, (char *)out + done, bytes - done, (off_t)(from + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0; /* truncated */
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}

void st_spill_warn_failed(int err)
{
    st_log_warn_once("cannot write a buffer flush to %s: %s; events of full buffers are lost and the archive "
                     "is marked incomplete (raise SYNCTRACE_BUFFER or set SYNCTRACE_TMPDIR)",
                     st_config.tmpdir, strerror(err));
}

/* ---- the writer's work ---------------------------------------------------------------------- */

static void answered(st_thread_t *th)
{
    __atomic_add_fetch(&th->done, 1, __ATOMIC_RELEASE);
    wake_all(&th->done);
}

/*
 * Reads one byte of each page of buf's pages first..end-1 (4 KiB pages). MAP_POPULATE makes the pages,
 * but in a virtual machine that shadows page tables (docs/performance.md: 8-9 us a page here) the first
 * access from user space traps to the host; taken here, on the writer, it is not taken by the thread
 * that records into the buffer. A read is enough, and any thread of the process can take it.
 */
static void touch_pages(const st_event_t *buf, size_t first, size_t end)
{
    const volatile char *c = (const volatile char *)buf;
    for (size_t p = first; p < end; p++)
        (void)c[p * ST_PAGE];
}

static size_t buffer_pages(const st_thread_t *th)
{
    return (th->cap * sizeof(st_event_t) + ST_PAGE - 1) / ST_PAGE;
}

/* Pages touched per pass over the threads: a hand-off or a spare asked for waits at most this long (~0.5 ms). */
#define WARM_CHUNK 64

/*
 * Touches the next pages of th's first buffer ahead of the thread, which records into it meanwhile: only
 * pages at least two beyond the one it writes (the byte read is never one it is writing). Nonzero when
 * pages were touched. A buffer in huge pages (2 MiB and more, record.c) takes no trap and this costs
 * little; one below 2 MiB is in 4 KiB pages, each trapping once.
 */
static int warm_ahead(st_thread_t *th)
{
    uint32_t from = __atomic_load_n(&th->warmed, __ATOMIC_ACQUIRE);
    size_t pages = buffer_pages(th);
    if (from >= pages)
        return 0;
    size_t pos = __atomic_load_n(&th->pos, __ATOMIC_ACQUIRE);
    size_t ahead = pos * sizeof(st_event_t) / ST_PAGE + 2;
    if (__atomic_load_n(&th->buf, __ATOMIC_ACQUIRE) != th->bufs[0] || __atomic_load_n(&th->handoffs, __ATOMIC_RELAXED) ||
        ahead >= pages) {
        __atomic_store_n(&th->warmed, (uint32_t)pages, __ATOMIC_RELEASE); /* the thread got there first */
        return 0;
    }
    size_t start = from > ahead ? from : ahead, end = start + WARM_CHUNK < pages ? start + WARM_CHUNK : pages;
    touch_pages(th->bufs[0], start, end);
    __atomic_store_n(&th->warmed, (uint32_t)end, __ATOMIC_RELEASE);
    return 1;
}

/* Makes th's spare buffer, populated and touched so that recording into it never takes a page fault or trap. */
static void make_spare(st_thread_t *th)
{
    void *p = st_huge_map(th->cap * sizeof(st_event_t));
    if (p != MAP_FAILED)
        touch_pages(p, 0, buffer_pages(th));
    if (p == MAP_FAILED) {
        st_log_warn_once("cannot allocate a spare %zu-byte event buffer (%s); a thread whose buffer is full waits "
                         "while it is written", th->cap * sizeof(st_event_t), strerror(errno));
        __atomic_store_n(&th->spare, ST_SPARE_FAILED, __ATOMIC_RELEASE);
    } else {
        th->bufs[1] = p;
        __atomic_store_n(&th->spare, ST_SPARE_READY, __ATOMIC_RELEASE);
    }
    answered(th);
}

/* Writes th's pending buffer (claimed) to its spill file; a failure leaves it in memory, marked failed. */
static void write_pending(st_thread_t *th, uint64_t h)
{
    uint64_t s = ST_HAND_SPILLED(h), p = ST_HAND_PENDING(h);
    unsigned cur = ST_HAND_CUR(h);
    if (st_spill_write(th, th->bufs[!cur], s, (size_t)p) == 0) {
        __atomic_store_n(&th->hand, ST_HAND(s + p, 0, cur, 0), __ATOMIC_RELEASE);
    } else {
        int err = errno;
        __atomic_store_n(&th->hand, ST_HAND(s, 1, cur, p), __ATOMIC_RELEASE);
        st_spill_warn_failed(err);
    }
    answered(th);
}

/* One pass over the registered threads; nonzero when there was work. */
static int work_once(void)
{
    size_t n;
    st_thread_t *const *all = st_record_threads_unlocked(&n);
    int did = 0;
    for (size_t i = 0; i < n; i++) {
        if (W_STATE(__atomic_load_n(&writer_word, __ATOMIC_ACQUIRE)) == W_STOPPING)
            return did;
        st_thread_t *th = all[i];
        if (__atomic_load_n(&th->spare, __ATOMIC_ACQUIRE) == ST_SPARE_ASKED) {
            make_spare(th);
            did = 1;
        }
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
        if (ST_HAND_PENDING(h) && !ST_HAND_FAILED(h) && !ST_HAND_CLAIMED(h) &&
            __atomic_compare_exchange_n(&th->hand, &h, h | ST_HAND_CLAIM, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            write_pending(th, h);
            did = 1;
        }
    }
    if (did)
        return did;
    for (size_t i = 0; i < n; i++) /* the least urgent work, in chunks */
        did |= warm_ahead(all[i]);
    return did;
}

static void *writer_main(void *arg)
{
    (void)arg;
    for (;;) {
        uint32_t w = __atomic_load_n(&writer_word, __ATOMIC_ACQUIRE);
        if (W_STATE(w) == W_STOPPING) {
            __atomic_store_n(&writer_word, W_BUMP(w, W_FINISHED), __ATOMIC_RELEASE);
            wake_all(&writer_word);
            return NULL; /* touches nothing after this */
        }
        if (work_once())
            continue;
        if (futex(&writer_word, FUTEX_WAIT_PRIVATE, w, IDLE_NS) != 0 && errno == ETIMEDOUT &&
            __atomic_compare_exchange_n(&writer_word, &w, W_BUMP(w, W_NONE), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return NULL; /* no request came meanwhile: the next one starts a new writer */
    }
}

/* ---- starting, waking, finishing ------------------------------------------------------------ */

/* The child of a fork() has no writer thread (only the forking thread goes on there). */
static void forked_child(void)
{
    __atomic_store_n(&writer_word, W_FINISHED, __ATOMIC_RELAXED);
}

static void at_first_start(void)
{
    pthread_atfork(NULL, NULL, forked_child);
}

/* A detached thread with every signal blocked (it inherits the mask it was created with). */
static int start_writer(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, at_first_start);
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 << 10);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int rc = pthread_create(&t, &attr, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_setname_np(t, "synctrace-wr");
    return rc;
}

/* Waits while the writer is being finished (it ends after the write it is doing). */
static void wait_finished(void)
{
    uint32_t w;
    while (W_STATE(w = __atomic_load_n(&writer_word, __ATOMIC_ACQUIRE)) == W_STOPPING)
        futex(&writer_word, FUTEX_WAIT_PRIVATE, w, WAIT_NS);
}

int st_spill_wake(void)
{
    uint32_t w = __atomic_load_n(&writer_word, __ATOMIC_ACQUIRE);
    for (;;) {
        switch (W_STATE(w)) {
        case W_RUNNING:
            if (__atomic_compare_exchange_n(&writer_word, &w, W_BUMP(w, W_RUNNING), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                futex(&writer_word, FUTEX_WAKE_PRIVATE, 1, 0);
                return 0;
            }
            break;
        case W_NONE:
            if (__atomic_compare_exchange_n(&writer_word, &w, W_BUMP(w, W_RUNNING), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                int rc = start_writer();
                if (rc == 0)
                    return 0;
                st_log_warn_once("cannot start the thread that writes buffer flushes (%s); a thread whose buffer "
                                 "is full waits while it is written", strerror(rc));
                __atomic_store_n(&writer_word, W_FINISHED, __ATOMIC_RELEASE);
                return -1;
            }
            break;
        case W_STOPPING:
            wait_finished();
            return -1;
        default:
            return -1;
        }
    }
}

int st_spill_writer_alive(void)
{
    return W_STATE(__atomic_load_n(&writer_word, __ATOMIC_ACQUIRE)) != W_FINISHED;
}

void st_spill_wait(st_thread_t *th, uint32_t seen)
{
    futex(&th->done, FUTEX_WAIT_PRIVATE, seen, WAIT_NS);
}

void st_spill_finish(void)
{
    uint32_t w = __atomic_load_n(&writer_word, __ATOMIC_ACQUIRE);
    for (;;) {
        switch (W_STATE(w)) {
        case W_NONE:
            if (__atomic_compare_exchange_n(&writer_word, &w, W_FINISHED, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return;
            break;
        case W_RUNNING:
            if (__atomic_compare_exchange_n(&writer_word, &w, W_BUMP(w, W_STOPPING), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                wake_all(&writer_word);
                wait_finished();
                return;
            }
            break;
        case W_STOPPING:
            wait_finished();
            return;
        default:
            return;
        }
    }
}
