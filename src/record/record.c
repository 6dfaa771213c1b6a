/*
 * record.c — thread registration, buffer flushing to spill files, read-back.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/log.h"
#include "../util/hugealloc.h"

__thread st_thread_t *st_thread_tls __attribute__((tls_model("initial-exec")));
volatile int st_record_active;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static st_thread_t *registry[ST_MAX_THREADS];
static size_t registry_n;

void *st_record_alloc_line(size_t size)
{
    size_t n = (size + ST_CACHE_LINE - 1) / ST_CACHE_LINE * ST_CACHE_LINE;
    void *p = aligned_alloc(ST_CACHE_LINE, n);
    if (p)
        memset(p, 0, n);
    return p;
}

st_thread_t *st_thread_register(void)
{
    if (!st_record_active)
        return NULL;
    size_t cap = st_config.buffer / sizeof(st_event_t);
    st_thread_t *th = st_record_alloc_line(sizeof *th);
    /* Mapped with its pages populated, so recording never takes a page fault. */
    st_event_t *buf = th ? mmap(NULL, cap * sizeof *buf, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) : MAP_FAILED;
    if (buf == MAP_FAILED) {
        free(th);
        st_log_warn_once("cannot allocate a %zu-byte event buffer; this thread is not traced", st_config.buffer);
        return NULL;
    }
    th->buf = buf;
    th->cap = cap;
    th->limit = cap;
    th->spill_fd = -1;
    th->omp_thread_num = -1;
    pthread_mutex_lock(&registry_lock);
    if (registry_n == ST_MAX_THREADS) {
        pthread_mutex_unlock(&registry_lock);
        munmap(buf, cap * sizeof *buf);
        free(th);
        st_log_warn_once("more than %d threads; further threads are not traced", ST_MAX_THREADS);
        return NULL;
    }
    th->index = (uint32_t)registry_n;
    registry[registry_n] = th;
    __atomic_store_n(&registry_n, registry_n + 1, __ATOMIC_RELEASE); /* published after the entry */
    pthread_mutex_unlock(&registry_lock);
    st_thread_tls = th;
    return th;
}

st_thread_t **st_record_threads(size_t *n)
{
    pthread_mutex_lock(&registry_lock);
    *n = registry_n;
    pthread_mutex_unlock(&registry_lock);
    return registry;
}

st_thread_t *const *st_record_threads_unlocked(size_t *n)
{
    *n = __atomic_load_n(&registry_n, __ATOMIC_ACQUIRE);
    return registry;
}

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

static int write_all(int fd, const void *p, size_t len)
{
    const char *c = p;
    while (len) {
        ssize_t w = write(fd, c, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        c += w;
        len -= (size_t)w;
    }
    return 0;
}

void st_record_flush(st_thread_t *th)
{
    uint32_t epoch;
    uint64_t t0 = st_timer_now_ep(&epoch);
    if (epoch != th->epoch)
        th->epoch = epoch, th->last = 0;
    if (t0 < th->last)
        t0 = th->last;
    if (th->spill_fd < 0)
        th->spill_fd = open_spill();
    if (th->spill_fd < 0 || write_all(th->spill_fd, th->buf, th->pos * sizeof(st_event_t)) != 0) {
        /* Cannot spill (e.g. no space left on device): drop the buffer, count it, say so once; never crash.
         * A partly written buffer is cut off again, so what was spilled before reads back intact. */
        int err = errno;
        if (th->spill_fd >= 0 && ftruncate(th->spill_fd, (off_t)(th->spilled * sizeof(st_event_t))) == 0)
            lseek(th->spill_fd, 0, SEEK_END);
        th->lost += th->pos;
        st_log_warn_once("cannot write a buffer flush to %s: %s; events of full buffers are lost and the archive "
                         "is marked incomplete (raise SYNCTRACE_BUFFER or set SYNCTRACE_TMPDIR)",
                         st_config.tmpdir, strerror(err));
    } else {
        th->spilled += th->pos;
    }
    th->flushes++;
    th->pos = 0;
    th->last = t0;
    st_event_t *e = &th->buf[th->pos++];
    *e = (st_event_t){ .time = t0, .kind = ST_EV_ENTER, .region = ST_REGION_FLUSH, .peer = -1, .epoch = epoch };
    uint64_t t1 = st_timer_now_ep(&epoch); /* another thread may have published a new map */
    if (epoch != th->epoch)
        th->epoch = epoch, th->last = 0;
    th->last = t1 > th->last ? t1 : th->last;
    e = &th->buf[th->pos++];
    *e = (st_event_t){ .time = th->last, .kind = ST_EV_LEAVE, .region = ST_REGION_FLUSH, .peer = -1, .epoch = epoch };
}

void st_record_set_room(st_thread_t *th, size_t room)
{
    th->limit = th->cap - (room < th->cap / 2 ? room : th->cap / 2);
}

st_event_t *st_record_load(st_thread_t *th, size_t *n)
{
    size_t total = (size_t)th->spilled + th->pos;
    /* on cache lines: malloc's large blocks start 16 bytes into a page, and every event would
     * straddle two lines (two misses where the passes after MPI_Finalize read one at random);
     * in huge pages when large (fresh 4 KiB pages cost more than reading the events) */
    st_event_t *all = st_huge_alloc((total ? total : 1) * sizeof *all);
    *n = 0;
    if (!all) {
        st_log_error("out of memory reading back %zu events", total);
        return NULL;
    }
    size_t bytes = (size_t)th->spilled * sizeof(st_event_t), off = 0;
    while (off < bytes) {
        ssize_t r = pread(th->spill_fd, (char *)all + off, bytes - off, (off_t)off);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            st_log_error("cannot read back buffer flushes of thread %u: %s", th->index,
                         r < 0 ? strerror(errno) : "file truncated");
            free(all);
            return NULL;
        }
        off += (size_t)r;
    }
    memcpy(all + th->spilled, th->buf, th->pos * sizeof(st_event_t));
    *n = total;
    return all;
}

size_t st_record_read(const st_thread_t *th, uint64_t first, st_event_t *out, size_t max)
{
    size_t got = 0;
    while (got < max) {
        uint64_t spilled = __atomic_load_n(&th->spilled, __ATOMIC_ACQUIRE), k = first + got;
        if (k < spilled) { /* in the spill file */
            uint64_t n = spilled - k < max - got ? spilled - k : max - got;
            ssize_t r = pread(th->spill_fd, out + got, n * sizeof *out, (off_t)(k * sizeof *out));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || r % (ssize_t)sizeof *out)
                break;
            got += (size_t)r / sizeof *out;
        } else { /* in the buffer */
            uint64_t pos = __atomic_load_n(&th->pos, __ATOMIC_ACQUIRE);
            if (k - spilled >= pos)
                break;
            uint64_t n = pos - (k - spilled) < max - got ? pos - (k - spilled) : max - got;
            memcpy(out + got, th->buf + (k - spilled), n * sizeof *out);
            got += n;
        }
    }
    return got;
}

void st_record_stop(void)
{
    st_record_active = 0;
}
