/*
 * spill.h — the spill files and the process's writer thread (the record module's own).
 *
 * A thread whose buffer is full hands it to the writer (record.c) and records on in its
 * spare; the writer appends the buffer to the thread's spill file and makes spares on
 * request, so that no application thread waits on the disk unless the writer falls
 * behind. The writer starts at the first request, ends itself after a while without work
 * (so that it never keeps a process alive) and starts again at the next one. It blocks
 * every signal, calls neither OpenMP nor MPI, takes no lock an application thread could
 * hold, and is finished (st_spill_finish) before the spill files are read back. In the
 * child of a fork() there is no writer: a thread there writes its buffers itself.
 *
 * Protocol with a recording thread (record.h, th->hand and th->spare): the thread asks
 * by changing those (release) and calling st_spill_wake; the writer answers by changing
 * them back (release), then bumps th->done and wakes the thread if it waits on it.
 */
#ifndef ST_RECORD_SPILL_H
#define ST_RECORD_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/*
 * Appends n events to th's spill file as its events number at.. (the file's end: at is
 * the events spilled so far), opening the file on first use. 0 on success; -1 with
 * errno on failure, the file cut back to at events. Async-signal-safe.
 */
int st_spill_write(st_thread_t *th, const st_event_t *ev, uint64_t at, size_t n);

/* Spill writes of whole blocks from an aligned start go straight from the buffer (O_DIRECT where the
 * file system has it): the page cache's copy cost ~30 ms of CPU per 8 MiB in the project's VM, against
 * ~1 ms. record.c keeps the events spilled a multiple of ST_SPILL_ALIGN bytes (pass_on's carry). */
#define ST_SPILL_ALIGN 4096
/* The page size the writer touches buffers by (touch_pages). */
#define ST_PAGE 4096

/*
 * Reads bytes of th's spill file from byte offset from on into out (O_DIRECT for whole blocks when
 * out and from are aligned). 0 on success; -1 with errno on failure (errno 0: the file is shorter).
 * Not for signal handlers.
 */
int st_spill_read(const st_thread_t *th, void *out, uint64_t from, size_t bytes);

/*
 * Reading back (st_record_load) into a block marked for huge pages: the first load of the process
 * with more than four 2 MiB pieces of spill file reads two pieces into huge pages, each timed with a
 * first touch from user space; unless they cost at most st_load_huge_cheap ns per byte, it reads two
 * more into 4 KiB pages the same way, and keeps huge pages for the rest of it and for every later load
 * unless they cost more than 1.5 times as much (st_load_verdict). In the project's VM a huge page the
 * host must back again costs 1.7-2.6 ns per byte at its first touch, one it still backs 0.1-0.3, and
 * 4 KiB pages 0.5-1.6 on some days, 1.5-6 on others (docs/performance.md, "Finalize's memory in huge
 * pages"). Tests set st_load_pages (0: measure; 1: huge pages throughout; -1: 4 KiB pages throughout),
 * st_load_huge_cheap (0: always time both) and st_load_verdict (1 huge pages, 0 4 KiB pages; -1 to
 * measure again).
 */
extern int st_load_pages;
extern int st_load_verdict;
extern double st_load_huge_cheap;

/* Says once that a buffer could not be spilled (err: the cause): events are lost. */
void st_spill_warn_failed(int err);

/*
 * Tells the writer there is work (a hand-off, a spare asked for, or th->warmed below the first buffer's
 * pages: touching them ahead of the thread, see spill.c), starting it if
 * none runs. 0 when a writer will do it; -1 when there is none and will be none (it
 * could not be started, it was finished, or this is a forked child): the caller then
 * does the work itself.
 */
int st_spill_wake(void);

/* Nonzero while a writer may still answer requests (not finished, not a forked child, started if asked). */
int st_spill_writer_alive(void);

/*
 * Waits until th->done differs from seen, or at most a few milliseconds (the caller
 * checks its condition again and whether the writer is alive). Async-signal-safe.
 */
void st_spill_wait(st_thread_t *th, uint32_t seen);

/*
 * Finishes the writer: waits for the write it is doing, then it ends and none starts
 * again (later hand-offs are written by their threads). Pending buffers it did not
 * write stay in memory, where st_record_load reads them. Idempotent; not for signal
 * handlers.
 */
void st_spill_finish(void);

#endif
