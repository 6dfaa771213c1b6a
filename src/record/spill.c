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

/* An unnamed spill file: created under a random name (O_EXCL: nobody's file or link is opened) and unlinked. */
static int open_spill(void)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/synctrace-spill-XXXXXX", st_config.tmpdir) >= (int)sizeof path)
        return errno = ENAMETOOLONG, -1;
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -1;
    unlink(path); /* the data lives while the descriptor does; nothing is left behind on a crash */
    return fd;
}

int st_spill_write(st_thread_t *th, const st_event_t *ev, uint64_t at, size_t n)
{
    if (th->spill_fd < 0)
        th->spill_fd = open_spill();
    if (th->spill_fd < 0)
        return -1;
    const char *c = (const char *)ev;
    size_t len = n * sizeof *ev;
    off_t off = (off_t)(at * sizeof *ev);
    while (len) {
        ssize_t w = pwrite(th->spill_fd, c, len, off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            /* cut a partly written buffer off again, so what was spilled before reads back intact */
            int err = w < 0 ? errno : ENOSPC;
            if (ftruncate(th->spill_fd, (off_t)(at * sizeof *ev)) != 0) { /* the next write starts at 'at' anyway */
            }
            errno = err;
            return -1;
        }
        c += w;
        off += w;
        len -= (size_t)w;
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

/* Makes th's spare buffer, populated so that recording into it never takes a page fault. */
static void make_spare(st_thread_t *th)
{
    void *p = mmap(NULL, th->cap * sizeof(st_event_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
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
