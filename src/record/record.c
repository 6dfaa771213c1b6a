/*
 * record.c — thread registration, handing full buffers on (spill.h), read-back.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/log.h"
#include "../util/hugealloc.h"
#include "spill.h"
#include "../util/clockread.h"

__thread st_thread_t *st_thread_tls __attribute__((tls_model("initial-exec")));
volatile int st_record_active;
st_filter_t st_record_filter;

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

/* The limit at which the buffer is full: cap less the room kept above it. */
static size_t full_limit(const st_thread_t *th)
{
    return th->cap - th->room;
}

/* Until the spare has been asked for, st_record stops at half the buffer first to ask for it. */
static void set_limit(st_thread_t *th)
{
    size_t full = full_limit(th);
    int asked = __atomic_load_n(&th->spare, __ATOMIC_RELAXED) != ST_SPARE_NONE;
    th->limit = !asked && th->cap / 2 < full ? th->cap / 2 : full;
}

st_thread_t *st_thread_register(void)
{
    if (!st_record_active)
        return NULL;
    size_t cap = st_config.buffer / sizeof(st_event_t);
    st_thread_t *th = st_record_alloc_line(sizeof *th);
    /* Mapped with its pages populated, so recording never takes a page fault, and from 2 MiB on in huge pages, as
     * the spare: in a VM with shadow page tables each 4 KiB page's first access traps to the host even when
     * populated (5-9 us here), and the writer that touched them ahead of this thread (spill.c) took that CPU from
     * the application on a full machine (an empty parallel region at 2 threads 400-500 ns dearer with the default 8 MiB
     * buffer, ~7,000 with 256 MiB: docs/performance.md); a huge page's first access costs no trap. The price: where
     * the kernel must compact memory to find huge pages, the populate here, on the thread's first event, waits. */
    st_event_t *buf = th ? st_huge_map(cap * sizeof *buf) : MAP_FAILED;
    if (buf == MAP_FAILED) {
        free(th);
        st_log_warn_once("cannot allocate a %zu-byte event buffer; this thread is not traced", st_config.buffer);
        return NULL;
    }
    if (st_record_filter.n_excluded) { /* the counters of filtered calls, made now: none on the hot path */
        th->filtered = st_record_alloc_line(ST_REGION__COUNT * sizeof *th->filtered);
        if (!th->filtered)
            st_log_warn_once("cannot allocate the counters of filtered calls; this thread records those calls");
    }
    th->buf = th->bufs[0] = buf;
    th->cap = cap;
    th->spill_fd = th->spill_dfd = -1;
    set_limit(th);
    th->omp_thread_num = -1;
    pthread_mutex_lock(&registry_lock);
    if (registry_n == ST_MAX_THREADS) {
        pthread_mutex_unlock(&registry_lock);
        munmap(buf, cap * sizeof *buf);
        free(th->filtered);
        free(th);
        st_log_warn_once("more than %d threads; further threads are not traced", ST_MAX_THREADS);
        return NULL;
    }
    th->index = (uint32_t)registry_n;
    registry[registry_n] = th;
    __atomic_store_n(&registry_n, registry_n + 1, __ATOMIC_RELEASE); /* published after the entry */
    pthread_mutex_unlock(&registry_lock);
    st_thread_tls = th;
    /* the writer touches the buffer's pages ahead of this thread (th->warmed, spill.c); without one, this thread does */
    if (st_spill_wake() != 0)
        __atomic_store_n(&th->warmed, UINT32_MAX, __ATOMIC_RELEASE);
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

/* ---- the slow path of a full buffer -------------------------------------------------------- */

/*
 * Moves the buffer and the hand-off word to a new state in an order that a reader (a
 * signal handler on this thread, or another thread) can follow: first the word, whose
 * current index then names the other buffer (so the reader counts no buffered events,
 * st_record_count), then pos, then buf.
 */
static void set_state(st_thread_t *th, uint64_t h, st_event_t *buf, size_t pos)
{
    __atomic_store_n(&th->hand, h, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&th->pos, pos, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&th->buf, buf, __ATOMIC_RELEASE);
}

/* Writes the pending buffer on this thread (no writer to do it). */
static void write_pending_here(st_thread_t *th, uint64_t h)
{
    uint64_t s = ST_HAND_SPILLED(h), p = ST_HAND_PENDING(h);
    unsigned cur = ST_HAND_CUR(h);
    if (st_spill_write(th, th->bufs[!cur], s, (size_t)p) == 0) {
        __atomic_store_n(&th->hand, ST_HAND(s + p, 0, cur, 0), __ATOMIC_RELEASE);
    } else {
        st_spill_warn_failed(errno);
        __atomic_store_n(&th->hand, ST_HAND(s, 1, cur, p), __ATOMIC_RELEASE);
    }
}

/*
 * Makes the spare and the buffer in the writer's hands free again, as far as this thread
 * needs them: a pending buffer the writer has not begun is claimed and written here (the
 * thread never waits for the writer to be scheduled); one being written is waited for.
 * A spare not made yet is not waited for (pass_on writes the buffer here instead).
 * Without a writer, does its work here. Returns nonzero when the thread waited or wrote.
 */
static int wait_for_writer(st_thread_t *th)
{
    int waited = 0;
    for (;;) {
        uint32_t seen = __atomic_load_n(&th->done, __ATOMIC_ACQUIRE);
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
        if (!ST_HAND_PENDING(h) || ST_HAND_FAILED(h))
            return waited;
        waited = 1;
        if (!ST_HAND_CLAIMED(h)) {
            if (__atomic_compare_exchange_n(&th->hand, &h, h | ST_HAND_CLAIM, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                write_pending_here(th, h);
            continue;
        }
        if (!st_spill_writer_alive()) /* finished: its claims are done with */
            continue;
        st_spill_wait(th, seen);
    }
}

/*
 * The last events of a full buffer that stay for the next one (copied to its start): so many that the
 * events spilled stay a multiple of ST_SPILL_ALIGN bytes, and every write of a buffer can go straight
 * from it (spill.h). None when the spill file has no O_DIRECT descriptor; also at the first hand-off,
 * before the file is opened (by its first write): else a location with room (OpenMP's) would spill
 * cap - room events first, and its whole second buffer would go through the page cache (unaligned).
 * The file is opened only by a write of this thread's buffers, never while this runs (pass_on waited).
 */
static size_t carried(const st_thread_t *th, uint64_t spilled)
{
    size_t per = ST_SPILL_ALIGN / sizeof(st_event_t);
    size_t keep = th->spill_dfd >= 0 || th->spill_fd < 0 ? (size_t)((spilled + th->pos) % per) : 0;
    return keep < th->pos ? keep : 0;
}

/* Events were lost before event s of the stream (the spill file's count then): notes the hole. A hole
 * right after the last one is the same hole; when no slot is left, the last one widens to here. */
static void note_gap(st_thread_t *th, uint64_t s)
{
    if (th->ngaps && th->gaps[th->ngaps - 1].upto == s)
        return;
    if (th->ngaps < ST_RECORD_GAPS)
        th->gaps[th->ngaps++] = (st_gap_t){ s, s };
    else
        th->gaps[th->ngaps - 1].upto = s;
}

/*
 * Passes the full buffer on (to the writer, or writes it here); nonzero when this thread waited for the disk.
 * Events carried over are copied first, where no reader looks yet; a reader (a signal handler) in the few
 * stores of set_state does not see them.
 */
static int pass_on(st_thread_t *th)
{
    int waited = wait_for_writer(th);
    uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
    uint64_t s = ST_HAND_SPILLED(h);
    unsigned cur = ST_HAND_CUR(h);
    if (ST_HAND_FAILED(h)) { /* the last hand-off could not be written: its buffer is needed now */
        th->lost += ST_HAND_PENDING(h);
        note_gap(th, s);
    }
    th->handoffs++;
    if (__atomic_load_n(&th->spare, __ATOMIC_ACQUIRE) == ST_SPARE_ASKED && !st_spill_writer_alive())
        __atomic_store_n(&th->spare, ST_SPARE_FAILED, __ATOMIC_RELEASE); /* no writer will make it */
    size_t keep = carried(th, s), n = th->pos - keep;
    if (__atomic_load_n(&th->spare, __ATOMIC_ACQUIRE) == ST_SPARE_READY) {
        uint64_t handed = ST_HAND(s, 0, !cur, n);
        memcpy(th->bufs[!cur], th->buf + n, keep * sizeof(st_event_t));
        set_state(th, handed, th->bufs[!cur], keep);
        if (st_spill_wake() != 0) {
            write_pending_here(th, handed);
            waited = 1;
        }
        return waited;
    }
    /* No spare (yet): written here, and the buffer reused. While the word names the other buffer
     * (set_state), a reader finds these events in the file, not twice. */
    if (st_spill_write(th, th->buf, s, n) == 0) {
        s += n;
    } else {
        st_spill_warn_failed(errno);
        th->lost += n;
        note_gap(th, s);
    }
    set_state(th, ST_HAND(s, 0, !cur, 0), th->buf, 0);
    memmove(th->buf, th->buf + n, keep * sizeof(st_event_t));
    __atomic_store_n(&th->pos, keep, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&th->hand, ST_HAND(s, 0, cur, 0), __ATOMIC_RELEASE);
    return 1;
}

/* The FLUSH region of a wait that began at t0 (read with the map of epoch): the first events of the buffer. */
static void record_flush_region(st_thread_t *th, uint64_t t0, uint32_t epoch)
{
    if (epoch != th->epoch)
        th->epoch = epoch, th->last = 0;
    if (t0 < th->last)
        t0 = th->last;
    th->flushes++;
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

void st_record_flush(st_thread_t *th)
{
    if (__atomic_load_n(&th->spare, __ATOMIC_RELAXED) == ST_SPARE_NONE) {
        /* half full for the first time: the writer makes the spare while this buffer fills */
        __atomic_store_n(&th->spare, ST_SPARE_ASKED, __ATOMIC_RELEASE);
        if (st_spill_wake() != 0)
            __atomic_store_n(&th->spare, ST_SPARE_FAILED, __ATOMIC_RELEASE);
        set_limit(th);
        if (th->pos < th->limit)
            return;
    }
    uint32_t epoch;
    uint64_t t0 = st_timer_now_ep(&epoch);
    if (pass_on(th))
        record_flush_region(th, t0, epoch);
}

void st_record_set_room(st_thread_t *th, size_t room)
{
    th->room = room < th->cap / 2 ? room : th->cap / 2;
    set_limit(th);
}

/* ---- reading back ---------------------------------------------------------------------------- */

/* Events in th's current buffer as a reader sees them with the word h (none while the word names the other buffer). */
static size_t buffered(const st_thread_t *th, uint64_t h, const st_event_t **buf)
{
    *buf = __atomic_load_n(&th->buf, __ATOMIC_ACQUIRE);
    size_t pos = __atomic_load_n(&th->pos, __ATOMIC_ACQUIRE);
    return *buf == th->bufs[ST_HAND_CUR(h)] ? pos : 0;
}

uint64_t st_record_count(const st_thread_t *th)
{
    for (;;) {
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
        const st_event_t *buf;
        size_t n = buffered(th, h, &buf);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&th->hand, __ATOMIC_ACQUIRE) == h)
            return ST_HAND_SPILLED(h) + ST_HAND_PENDING(h) + n;
    }
}

int st_load_pages = 0;
int st_load_verdict = -1;

/* Reads the spill file's 2 MiB piece at byte from into out + from and touches each of its 4 KiB
 * pages once from user space (the VM's first-access trap, spill.h); the reading thread's CPU ns, or
 * -1 with errno on failure. */
static double piece_cost(const st_thread_t *th, char *out, size_t from)
{
    double t0 = (double)st_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (st_spill_read(th, out + from, from, ST_HUGE_PAGE) != 0)
        return -1;
    for (size_t i = 0; i < ST_HUGE_PAGE; i += ST_PAGE)
        (void)((volatile const char *)out)[from + i];
    return (double)st_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

/* Huge pages are kept unless their pieces cost more than this many times the 4 KiB pieces: they also
 * spare the later passes over the events misses in the TLB (at 10^7 events the preparation's pass 170 ms
 * against 240-510 in 4 KiB pages: docs/performance.md, "Finalize's memory in huge pages"). */
#define HUGE_SLACK 1.5
#define PROBES 2 /* pieces of each kind */

/* Huge pieces at most this cheap are kept without timing 4 KiB pieces, which cost at least 0.5 ns per byte
 * here (1-16 us a page: docs/performance.md), so that they could not win by the slack; timing two of them
 * cost 13-15 ms where huge pages won by far (LULESH's 2 x 2 MiB: 0.4 ms in huge pages, 6.4-7.6 in 4 KiB). */
double st_load_huge_cheap = 0.5 * HUGE_SLACK;

/* Reads PROBES pieces from *done on (in 4 KiB pages when small, else as the block is marked), each timed,
 * adding their CPU ns to *ns and their bytes to *done. -1 when a read fails. */
static int time_pieces(const st_thread_t *th, char *out, size_t *done, int small, double *ns)
{
    for (int k = 0; k < PROBES; k++, *done += ST_HUGE_PAGE) {
        if (small)
            (void)st_huge_mark(out + *done, ST_HUGE_PAGE, 0);
        double t = piece_cost(th, out, *done);
        if (t < 0)
            return -1;
        *ns += t;
    }
    return 0;
}

/*
 * Reads the first bytes of th's spill file into the fresh block out of len bytes. A block that
 * st_huge_alloc marked for huge pages (2 MiB aligned) keeps them, or gets 4 KiB pages, by what costs
 * less now (spill.h): the process's first load with pieces to spare reads PROBES pieces into huge pages,
 * each timed, and unless they were cheap as many into 4 KiB pages, and the rest of this block and of the
 * later loads follows the verdict. The bytes read are the same either way.
 */
static int load_spilled(const st_thread_t *th, char *out, size_t bytes, size_t len)
{
    size_t done = 0;
    if (len >= ST_HUGE_MIN && (uintptr_t)out % ST_HUGE_PAGE == 0) {
        int huge = st_load_pages ? st_load_pages > 0 : st_load_verdict;
        if (huge < 0 && bytes > 2 * PROBES * ST_HUGE_PAGE) {
            double in_huge = 0, in_small = 0;
            if (time_pieces(th, out, &done, 0, &in_huge) != 0)
                return -1;
            int cheap = in_huge <= st_load_huge_cheap * (double)(PROBES * ST_HUGE_PAGE);
            if (!cheap && time_pieces(th, out, &done, 1, &in_small) != 0)
                return -1;
            huge = st_load_verdict = cheap || in_huge <= HUGE_SLACK * in_small;
            st_log_debug("reading the events back: %d x 2 MiB in huge pages %.2f ms%s, in 4 KiB pages %.2f ms of CPU; "
                         "the rest in %s pages", PROBES, in_huge * 1e-6, cheap ? " (cheap: 4 KiB not timed)" : "",
                         in_small * 1e-6, huge ? "huge" : "4 KiB");
        }
        if (huge == 0)
            (void)st_huge_mark(out + done, len - done, 0);
    }
    return bytes > done ? st_spill_read(th, out + done, done, bytes - done) : 0;
}

st_event_t *st_record_load(st_thread_t *th, size_t *n)
{
    st_spill_finish();
    uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
    size_t spilled = (size_t)ST_HAND_SPILLED(h), pending = (size_t)ST_HAND_PENDING(h);
    size_t total = spilled + pending + th->pos;
    /* on cache lines: malloc's large blocks start 16 bytes into a page, and every event would
     * straddle two lines (two misses where the passes after MPI_Finalize read one at random);
     * in huge pages when large (fresh 4 KiB pages cost more than reading the events) */
    size_t len = (total ? total : 1) * sizeof(st_event_t);
    st_event_t *all = st_huge_alloc(len);
    *n = 0;
    if (!all) {
        st_log_error("out of memory reading back %zu events", total);
        return NULL;
    }
    if (spilled && load_spilled(th, (char *)all, spilled * sizeof(st_event_t), len) != 0) {
        st_log_error("cannot read back buffer flushes of thread %u: %s", th->index,
                     errno ? strerror(errno) : "file truncated");
        free(all);
        return NULL;
    }
    /* a buffer handed off and not written (the writer was finished first, or its write failed) */
    if (pending)
        memcpy(all + spilled, th->bufs[!ST_HAND_CUR(h)], pending * sizeof(st_event_t));
    memcpy(all + spilled + pending, th->buf, th->pos * sizeof(st_event_t));
    *n = total;
    if (th->ngaps) { /* events were lost: the regions a hole leaves open are closed there */
        uint64_t dropped;
        st_event_t *closed = st_events_close_gaps(all, n, th->gaps, th->ngaps, &dropped);
        if (closed) {
            all = closed;
            th->lost += dropped;
        } else {
            st_log_warn("out of memory closing the regions of thread %u around its lost events: they stay open",
                        th->index);
        }
    }
    return all;
}

size_t st_record_read(const st_thread_t *th, uint64_t first, st_event_t *out, size_t max)
{
    size_t got = 0;
    for (int moved = 0; got < max && moved < 1000;) {
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE), k = first + got;
        uint64_t spilled = ST_HAND_SPILLED(h), pending = ST_HAND_PENDING(h);
        if (k < spilled) { /* in the spill file: it only grows */
            uint64_t n = spilled - k < max - got ? spilled - k : max - got;
            ssize_t r = pread(th->spill_fd, out + got, n * sizeof *out, (off_t)(k * sizeof *out));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || r % (ssize_t)sizeof *out)
                break;
            got += (size_t)r / sizeof *out;
            continue;
        }
        const st_event_t *buf, *src;
        uint64_t avail, nbuf = buffered(th, h, &buf);
        if (k < spilled + pending) { /* handed to the writer, not yet written */
            src = th->bufs[!ST_HAND_CUR(h)] + (k - spilled);
            avail = spilled + pending - k;
        } else if (k < spilled + pending + nbuf) { /* in the current buffer */
            src = buf + (k - spilled - pending);
            avail = spilled + pending + nbuf - k;
        } else {
            break;
        }
        size_t n = avail < max - got ? (size_t)avail : max - got;
        memcpy(out + got, src, n * sizeof *out);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&th->hand, __ATOMIC_ACQUIRE) != h) { /* a hand-off meanwhile: read again */
            moved++;
            continue;
        }
        got += n;
    }
    return got;
}

void st_record_stop(void)
{
    st_record_active = 0;
}
