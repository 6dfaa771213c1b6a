/*
 * writer.h — writes an OTF2 archive (DIR/traces.otf2) from rank data. MPI-free.
 *
 * One code path serves both modes:
 *  - serial: st_otf2_write_serial() — one process writes every rank (used by
 *    `synctrace recover` and `synctrace clc`);
 *  - parallel: src/mpi/archive_mpi.c drives the same steps with OTF2's MPI
 *    collective callbacks: every rank st_otf2_prepare()s and writes its own
 *    locations (st_otf2_write_local), rank 0 writes the global definitions from
 *    all ranks' unpacked definition blobs (st_otf2_write_global).
 *
 * Global numbering (identical in every process, carried by the vector made by
 * st_otf2_numbering()): the unique communicator keys, sorted for lookup, get dense
 * ids in an order where parents precede children (depth in the parent tree, WORLD
 * first, then key) — otf2-print rejects Comm definitions with decreasing ids or
 * forward parent references; all comms flagged ST_COMMF_SELF share one
 * MPI_COMM_SELF id; each rank's OpenMP teams follow, rank by rank; the String ids
 * 0..C-1 are the call-site texts of all ranks, rank by rank; CallingContext ids are
 * every rank's call-path nodes (rd->cpnodes), rank by rank; RmaWin ids are the MPI
 * communicators' windows in communicator id order (a communicator's window k, as its
 * creators number it, st_comm_def_t.nwins). Location id =
 * st_otf2_location() (rank + (thread - master) << 32, Score-P's numbering); location
 * group id = rank; region id = st_region_t.
 *
 * Event-kind mapping is one switch expanded from events.def (events.c). Peers and
 * roots are recorded as WORLD ranks and written as ranks in the event's communicator
 * (the remote group for intercommunicators), as OTF2 requires; the translation, the
 * OpenMP teams and the task identities are the rank's view (src/model/prepare.h).
 * Intercommunicators are OTF2 3.0 InterComm definitions (groupA = local group of
 * the first rank that knows it, groupB = its remote group).
 *
 * One-sided MPI: a window is an RmaWin definition on its communicator (flag: its creation and
 * release are events); targets are written as ranks of that communicator. The groups of
 * MPI_Win_post / MPI_Win_start (rd->groups) are MPI COMM_GROUP Group definitions (members: world
 * ranks) with the ids 1 .. n, every rank's in rank order, right after the MPI COMM_LOCATIONS group (0); a post's or
 * start's RmaGroupSync names its group, a complete's or wait's OTF2_UNDEFINED_GROUP.
 *
 * OpenMP: OTF2 thread events name a team Comm, and tasks are identified by (team,
 * creating thread's rank in it, that thread's generation number). Each team of a
 * rank is one Comm ("OpenMP thread team", no parent). A task switch to a task never created (an implicit task) is written as
 * (current team, own rank, generation 0), as Score-P does. Lock ids are numbered
 * densely per rank (OTF2's are 32-bit). Attributes: "callsite" (string, ENTER),
 * "synctrace:calling_context" (calling context of the innermost application frame, ENTER with a
 * call path; the frames are CallingContext/SourceCodeLocation definitions, globaldefs.c),
 * "synctrace:orig_time" (uint64, events flagged ST_EVF_CLC_MOVED) and
 * "synctrace:parallel_id" (uint64, fork/join/team begin/end).
 *
 * Functions print one error line when they fail and return an st_otf2_status_t.
 * Not thread-safe: one archive at a time per process (the OTF2 error handler that
 * st_otf2_open installs is process-wide).
 */
#ifndef ST_OTF2_WRITER_H
#define ST_OTF2_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "../model/rankdata.h"

typedef enum st_otf2_status {
    ST_OTF2_OK = 0,
    ST_OTF2_ERR_DIR,     /* directory missing and not creatable, or not writable */
    ST_OTF2_ERR_EXISTS,  /* DIR already holds an archive */
    ST_OTF2_ERR_DATA,    /* inconsistent rank data (duplicate ranks, bad references) */
    ST_OTF2_ERR_OTF2,    /* the OTF2 library reported an error */
    ST_OTF2_ERR_NOMEM,
    ST_OTF2_ERR_MPI,     /* used by archive_mpi.c */
    ST_OTF2_ERR_WRITE    /* a file could not be written (full disk, quota, I/O error) */
} st_otf2_status_t;

/* Flags of st_otf2_write_serial / st_otf2_write_global. */
#define ST_OTF2_INCOMPLETE 0x1u /* SYNCTRACE::INCOMPLETE = true even if no rank says so */

/* Name of a status ("data error"). */
const char *st_otf2_status_name(int status);

/* Logs one error line for an OTF2 failure (with OTF2's own message, when the
 * handler of st_otf2_open is installed); returns rc != OTF2_SUCCESS. */
int st_otf2_failed(OTF2_ErrorCode rc, const char *what);

/*
 * Writes DIR/traces.otf2 from nranks rank data (any order, distinct ranks; ranks
 * missing from 0..max(nranks field)-1 get an empty placeholder location). Calls
 * st_otf2_prepare() on each (which may modify them: see there). Creates DIR if
 * missing; fails if it already holds an archive. Single process, OTF2 serial mode.
 */
int st_otf2_write_serial(const char *dir, st_rankdata_t *ranks, int nranks, unsigned flags);

/* ---- building blocks of the parallel writer (archive_mpi.c) ---------------------------- */

/*
 * Creates DIR (and missing parents) if needed and checks it by the rules of an archive
 * directory (st_archive_dir_check, src/util/archive_dir.h: safe, files can be created
 * in it, it holds no archive: traces.otf2, traces.def, traces/). Call once, on one process.
 */
int st_otf2_check_dir(const char *dir);

/*
 * st_rankdata_prepare() (src/model/prepare.h: makes one rank's data writable, derives its
 * OpenMP teams; runs once) with the writer's status: ST_OTF2_OK or ST_OTF2_ERR_NOMEM.
 */
int st_otf2_prepare(st_rankdata_t *rd);

/*
 * The global numbering vector from every rank's (prepared) definitions, indexed by
 * nothing in particular (defs may be in any order). malloc'd; *len receives its
 * number of elements. NULL on error (duplicate ranks, out of memory), reported.
 */
uint64_t *st_otf2_numbering(st_rankdata_t *const *defs, int ndefs, size_t *len);

/*
 * Opens DIR/traces.otf2 for writing and sets flush callbacks; the caller then sets
 * collective callbacks (serial or MPI). Installs an OTF2 error handler that turns
 * OTF2's messages into synctrace log lines until st_otf2_close(). NULL on error.
 * Never close the archive before collective callbacks are set: OTF2 aborts the
 * process then (a failure in between leaks the handle instead).
 */
OTF2_Archive *st_otf2_open(const char *dir, uint64_t def_chunk);

/*
 * The definition chunk size for an archive of these ranks (all of them: the process that writes
 * the global definitions decides; the anchor file carries its choice to every reader): a power of
 * two that holds twice the largest definition record the ranks can give (a string: a call-site
 * text, or 192 bytes; a group: every location), between OTF2's 256 KiB and 16 MiB. Every reader
 * allocates and clears one chunk per definition file, so a small run's archive opens in a few
 * milliseconds instead of the 20-30 that OTF2's default of 4 MiB cost. n == 0: the smallest size
 * (a process that writes no definitions: its local definition files stay empty).
 */
uint64_t st_otf2_def_chunk(st_rankdata_t *const *ranks, int n);

/*
 * Writes the events and (empty) local definitions of the given ranks' locations.
 * Collective over the archive's processes (it opens and closes the event and
 * definition files): every process must call it, with nmine >= 0; it goes through
 * all collective steps even after a local error, so others do not hang.
 */
int st_otf2_write_local(OTF2_Archive *a, st_rankdata_t *const *mine, int nmine,
                        const uint64_t *num, size_t len);

/*
 * Writes the global definitions and archive properties from all ranks' definitions
 * (events not needed). Only on the process that writes the global definitions
 * (rank 0 / the serial writer). flags: ST_OTF2_INCOMPLETE.
 */
int st_otf2_write_global(OTF2_Archive *a, st_rankdata_t *const *defs, int ndefs,
                         const uint64_t *num, size_t len, unsigned flags);

/* Closes the archive (collective in MPI mode); restores the OTF2 error handler. Fails with
 * ST_OTF2_ERR_WRITE, after one line naming the file and the cause ("No space left on
 * device"), if any write since st_otf2_open failed, although OTF2 itself reports success
 * then; the caller removes the archive (st_otf2_remove_partial). dir: for the message. */
int st_otf2_close(OTF2_Archive *a, const char *dir);

/* After a failed write (archive closed): removes the files it created in DIR, so
 * the directory can be used again. One process only. */
void st_otf2_remove_partial(const char *dir);

#endif
