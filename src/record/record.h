/*
 * record.h — per-thread event buffers: the recording hot path.
 *
 * Each thread that records gets an st_thread_t on its first event (slow path: one
 * allocation, one lock). After that st_record() takes no lock, allocates nothing and
 * makes no system call beyond the clock read. When a buffer is full it is handed to
 * the process's writer thread (spill.h), which appends it to a spill file in
 * SYNCTRACE_TMPDIR, and recording goes on at once in the thread's spare buffer; the
 * two buffers then take turns. Only when the writer falls behind (the spare is still
 * being written when the current buffer fills) does the thread wait, and that wait is
 * recorded as a FLUSH region and counted. Memory: SYNCTRACE_BUFFER per thread, twice
 * that for a thread that fills half its first buffer (the spare, allocated then by the
 * writer); no event is lost unless a write fails (counted in lost).
 *
 * The buffers are read back (st_record_load) only when recording has stopped:
 * at finalize, or best effort from the abnormal-exit path (st_record_read).
 */
#ifndef ST_RECORD_H
#define ST_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "../clock/timer.h"
#include "../model/event.h"
#include "../model/filter.h"
#include "../model/gaps.h"
#include "../model/region.h"

#define ST_LIKELY(x)   __builtin_expect(!!(x), 1)
#define ST_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Per-thread state written on every event lives on cache lines of its own: two
 * threads' records side by side in one line would move that line between their cores
 * at every event (an OpenMP team's master and worker record at the same moments).
 */
#define ST_CACHE_LINE 64

/* Zeroed memory of size bytes rounded up to whole cache lines, line-aligned; free() releases it. NULL on ENOMEM. */
void *st_record_alloc_line(size_t size);

/* Most threads one process records; later threads are not traced. */
#define ST_MAX_THREADS 4096

/* Holes in one thread's stream noted one by one; beyond that the last one widens (model/gaps.h). */
#define ST_RECORD_GAPS 32

/* The calls of one region on one thread that a filter removed (SYNCTRACE_FILTER): counted, not recorded. */
typedef struct st_filtered {
    uint64_t visits;
    uint64_t time; /* ns, summed over the calls (enter to leave) */
} st_filtered_t;

typedef struct st_thread {
    st_event_t *buf;      /* the current buffer of cap events (one of bufs) */
    size_t      pos;      /* next free slot */
    size_t      cap;
    size_t      limit;    /* st_record flushes before an event once pos reaches it (<= cap, see st_record_in_room) */
    uint64_t    last;     /* last timestamp of the current epoch: keeps per-location time non-decreasing */
    uint32_t    epoch;    /* sync epoch of the map that stamped the last event (clock/timer.h) */
    uint32_t    index;    /* location index inside the process, in registration order */
    int         in_tool;  /* re-entry guard for wrappers and callbacks */
    int         spill_fd; /* -1 until the first write to the spill file */
    int         spill_dfd; /* the spill file opened with O_DIRECT (spill.h), -1 if none */
    uint64_t    lost;     /* events of full buffers that could not be spilled (the archive is then incomplete) */
    uint64_t    flushes;  /* waits for the disk at a full buffer, each recorded as a FLUSH region */
    uint64_t    handoffs; /* full buffers passed on (to the writer, or written by this thread) */
    int         omp_thread_num; /* OpenMP: thread number in the outermost team, -1 if none */
    void       *omp;      /* per-thread state of src/omp */
    size_t      room;     /* slots kept free above the limit (st_record_set_room) */
    st_filtered_t *filtered; /* ST_REGION__COUNT counters when a filter is active, else NULL */
    uint32_t    ngaps;    /* holes in the stream where events were lost: gaps[0 .. ngaps) (note_gap, record.c) */
    st_gap_t    gaps[ST_RECORD_GAPS];
    /* Shared with the writer thread (spill.h), on a line of its own. */
    _Alignas(ST_CACHE_LINE) st_event_t *bufs[2]; /* bufs[1]: the spare, NULL until the writer made it */
    uint64_t    hand;     /* ST_HAND_*: events in the spill file, failed write, current buffer, pending events */
    uint32_t    spare;    /* ST_SPARE_*: the spare buffer's state */
    uint32_t    done;     /* bumped by the writer after each piece of work for this thread (a futex word) */
    uint32_t    warmed;   /* pages of bufs[0] the writer has touched ahead of the thread (spill.c) */
} st_thread_t;

/*
 * The hand-off word th->hand, in one 64-bit atomic so that a reader (a signal handler
 * dumping the trace) sees one consistent state: the events of this thread in the spill
 * file (ST_HAND_SPILLED), the index of the current buffer in bufs (ST_HAND_CUR), and the
 * events of a full buffer handed to the writer and not yet in the file (ST_HAND_PENDING,
 * in bufs[!cur]; ST_HAND_FAILED when its write failed: it stays in memory until the
 * thread needs the buffer again, and is counted lost then). The pending buffer is written
 * by whoever sets ST_HAND_CLAIMED first: the writer, or the thread itself when it needs the
 * buffer back before the writer began (it never waits for the writer to be scheduled).
 * Only the thread changes the word while nothing is pending, only the claimant while
 * something is (the claim itself is a compare-and-swap).
 */
#define ST_HAND_PENDING(h) ((h) & ((UINT64_C(1) << 25) - 1))
#define ST_HAND_CUR(h)     ((unsigned)((h) >> 25) & 1u)
#define ST_HAND_FAILED(h)  ((unsigned)((h) >> 26) & 1u)
#define ST_HAND_CLAIMED(h) ((unsigned)((h) >> 27) & 1u)
#define ST_HAND_CLAIM      (UINT64_C(1) << 27)
#define ST_HAND_SPILLED(h) ((h) >> 28)
#define ST_HAND(spilled, failed, cur, pending) \
    (((uint64_t)(spilled) << 28) | ((uint64_t)(failed) << 26) | ((uint64_t)(cur) << 25) | (uint64_t)(pending))

/* th->spare: none asked for yet, asked of the writer, made (bufs[1]), or not possible (then every flush waits). */
enum { ST_SPARE_NONE, ST_SPARE_ASKED, ST_SPARE_READY, ST_SPARE_FAILED };

extern __thread st_thread_t *st_thread_tls __attribute__((tls_model("initial-exec")));

/* Global switch: recording happens only while nonzero. */
extern __attribute__((visibility("hidden"))) volatile int st_record_active; /* hidden as defined: a direct load */

/*
 * The active filter (SYNCTRACE_FILTER): set once by the library constructor (st_filter_read)
 * before recording starts, read-only afterwards; without one it excludes nothing. While it excludes
 * a region, every thread registered gets ST_REGION__COUNT counters of filtered calls (th->filtered),
 * which the wrappers of excluded regions count into instead of recording (src/mpi/st_mpi.h).
 */
extern st_filter_t st_record_filter;

/* Registers the calling thread (slow path). NULL if recording is off or memory is exhausted. */
st_thread_t *st_thread_register(void);

static inline st_thread_t *st_thread_self(void)
{
    st_thread_t *th = st_thread_tls;
    return ST_LIKELY(th != NULL) ? th : st_thread_register();
}

/*
 * The slow path of st_record at pos >= limit. Below the full limit (half the first
 * buffer) it only asks the writer for the spare. At a full buffer it hands the buffer to
 * the writer and goes on in the spare; when it must wait (the spare is still being
 * written or made, or there is no writer), it records the wait as a FLUSH region (enter
 * and leave, the first two events of the emptied buffer) and counts it in flushes.
 */
void st_record_flush(st_thread_t *th);

/* The stamp of th's next event for t, a time read with the map of epoch: t, or th's last stamp when
 * that is later within one epoch (per-location time never goes back). Becomes th->last. */
static inline __attribute__((always_inline)) uint64_t st_record_stamp(st_thread_t *th, uint64_t t, uint32_t epoch)
{
    if (ST_UNLIKELY(epoch != th->epoch)) {
        /* A new sync epoch: its map may be behind the last one (before MPI_Init: by up to
           the clock offset, ~1 s). Clamp only within an epoch; finalize re-maps all events
           through the sync points (clock/sync.h) and restores the order across epochs. */
        th->epoch = epoch;
        th->last = 0;
    }
    if (ST_UNLIKELY(t < th->last))
        t = th->last;
    th->last = t;
    return t;
}

/* The clock read now, stamped for th's next event (st_record_stamp); its epoch is then th->epoch. */
static inline __attribute__((always_inline)) uint64_t st_record_now(st_thread_t *th)
{
    uint32_t epoch;
    uint64_t t = st_timer_now_ep(&epoch);
    return st_record_stamp(th, t, epoch);
}

/* Appends an event stamped t, a time read with the map of epoch, to a buffer with a free slot. */
static inline st_event_t *st_record_put(st_thread_t *th, unsigned kind, uint64_t t, uint32_t epoch)
{
    st_event_t *e = &th->buf[th->pos++];
    t = st_record_stamp(th, t, epoch);
    *e = (st_event_t){ .time = t, .kind = (uint8_t)kind, .peer = -1, .epoch = epoch };
    return e;
}

/*
 * Like st_record, but never flushes while the buffer has a free slot: for a caller
 * whose events must all be stamped before the tool does any other work (a callback
 * reporting, after the fact, the endpoint of an OpenMP relation: a flush between its
 * events would put them after the flush, behind what the other thread did meanwhile).
 * Such a caller keeps cap - limit slots free for its events (st_record_set_room) and
 * flushes at its end, after stamping (st_record_flush_point).
 */
static inline st_event_t *st_record_in_room(st_thread_t *th, unsigned kind)
{
    if (ST_UNLIKELY(th->pos == th->cap))
        st_record_flush(th); /* the room was too small: should not happen */
    uint32_t epoch;
    uint64_t t = st_timer_now_ep(&epoch);
    return st_record_put(th, kind, t, epoch);
}

/* st_record_in_room stamped with a time the caller read (st_timer_now_ep) instead of now. */
static inline st_event_t *st_record_in_room_at(st_thread_t *th, unsigned kind, uint64_t t, uint32_t epoch)
{
    if (ST_UNLIKELY(th->pos == th->cap))
        st_record_flush(th);
    return st_record_put(th, kind, t, epoch);
}

/*
 * Reserves the next event of th, stamps it with the global clock and fills the
 * common fields. The returned record may be completed by the caller until the next
 * st_record() on the same thread. A full buffer is flushed before the event.
 */
static inline st_event_t *st_record(st_thread_t *th, unsigned kind)
{
    if (ST_UNLIKELY(th->pos >= th->limit))
        st_record_flush(th);
    uint32_t epoch;
    uint64_t t = st_timer_now_ep(&epoch);
    return st_record_put(th, kind, t, epoch);
}

/*
 * Like st_record, stamped with the time of th's previous event instead of a clock read:
 * for an event that belongs to the same instant as the one just recorded (an MPI send
 * event right after its call's ENTER, before the PMPI call). Reads the clock after a
 * flush (the FLUSH region lies in between) or when th recorded nothing yet.
 */
static inline __attribute__((always_inline)) st_event_t *st_record_again(st_thread_t *th, unsigned kind)
{
    if (ST_UNLIKELY(th->pos >= th->limit || th->pos == 0))
        return st_record(th, kind);
    return st_record_put(th, kind, th->last, th->epoch);
}

/* Flushes now if the room above limit has been entered (after a caller's last event). */
static inline void st_record_flush_point(st_thread_t *th)
{
    if (ST_UNLIKELY(th->pos >= th->limit))
        st_record_flush(th);
}

/* Keeps room free slots above the limit (at most half the buffer). */
void st_record_set_room(st_thread_t *th, size_t room);

static inline void st_record_enter(st_thread_t *th, st_region_t r, uint64_t callsite)
{
    st_event_t *e = st_record(th, ST_EV_ENTER);
    e->region = r;
    e->aux = callsite;
}

static inline void st_record_leave(st_thread_t *th, st_region_t r)
{
    st_record(th, ST_EV_LEAVE)->region = r;
}

/* Snapshot of all registered threads (valid until st_record_shutdown). Thread-safe. */
st_thread_t **st_record_threads(size_t *n);

/* The same without the lock, for signal handlers: threads registered later are not seen. */
st_thread_t *const *st_record_threads_unlocked(size_t *n);

/*
 * Copies up to max events of th, starting at event number first (record order over
 * spilled and buffered events), into out; returns how many (fewer only at the end
 * or on a read error). Async-signal-safe (pread and memcpy, no allocation), so a
 * dump can read a thread that may still be recording: events that move from the
 * buffer to the spill file meanwhile are found there.
 */
size_t st_record_read(const st_thread_t *th, uint64_t first, st_event_t *out, size_t max);

/*
 * Returns all events of th (spilled, pending and buffered) in one malloc'd array, in
 * record order; *n receives the count. Where events were lost (th->gaps), the regions a
 * hole leaves open are closed at it and the LEAVEs after it without an ENTER are dropped
 * and counted in th->lost (model/gaps.h). NULL with *n = 0 on error (reported). Call only
 * when th no longer records. The first call finishes the writer thread (spill.h): no
 * write runs while the events are read back and after.
 */
st_event_t *st_record_load(st_thread_t *th, size_t *n);

/* Number of events recorded so far by th (spilled, pending and buffered). Async-signal-safe. */
uint64_t st_record_count(const st_thread_t *th);

/* Events of th in its spill file so far (written by the writer or by th). */
static inline uint64_t st_record_spilled(const st_thread_t *th)
{
    return ST_HAND_SPILLED(__atomic_load_n(&th->hand, __ATOMIC_ACQUIRE));
}

/* Stops recording on all threads (new events are dropped from now on). */
void st_record_stop(void);

#endif
