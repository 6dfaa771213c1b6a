/*
 * rankdata.h — everything one MPI process (rank) contributes to an archive.
 *
 * Filled by the shim at finalize (or on abnormal exit), consumed by the OTF2 writer.
 * It has no MPI types, so the CLI (`synctrace recover`, `synctrace clc`) can use it
 * too. st_rankdata_pack()/unpack() turn the *definitions* part (everything except
 * the event arrays) into a flat byte blob for gathering at rank 0 and for the raw
 * per-rank dump files of incomplete runs.
 *
 * Identity rules:
 *  - location     = (rank, thread index), index < ST_MAX_THREADS_PER_RANK; the OTF2 id is
 *                   st_otf2_location() (src/otf2/writer_int.h);
 *  - communicator = identified by its 64-bit key, equal on every member; events carry
 *    the process-local index into comms[] which the writer maps to a global id;
 *  - call sites   = events carry the pc in ENTER.aux; callsites[] maps pc -> text;
 *  - call paths   = ENTERs carry a node of cpnodes[] (callpath.h); node pcs are callsites[] keys too.
 */
#ifndef ST_RANKDATA_H
#define ST_RANKDATA_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "callpath.h"

#define ST_MAX_THREADS_PER_RANK 65536u
#define ST_NO_COMM UINT32_MAX

typedef struct st_comm_def {
    uint64_t key;          /* global identity: same on every member */
    uint32_t parent;       /* local index of the parent communicator, ST_NO_COMM if none */
    uint32_t flags;        /* ST_COMMF_* */
    uint32_t size;         /* local group size */
    uint32_t remote_size;  /* intercommunicator: remote group size, else 0 */
    uint32_t nwins;        /* RMA windows this process created on it (events name them 0..nwins-1) */
    int32_t *world;        /* world ranks of the local group, by comm rank */
    int32_t *remote_world; /* world ranks of the remote group (intercomm) */
    char     name[64];     /* "MPI_COMM_WORLD", "MPI_COMM_SELF", "Comm 3", ... */
} st_comm_def_t;

#define ST_COMMF_INTER 0x1u
#define ST_COMMF_WORLD 0x2u
#define ST_COMMF_SELF  0x4u

typedef struct st_thread_data {
    uint32_t    index;      /* thread index in the process */
    int32_t     omp_num;    /* OpenMP thread number, -1 if not an OpenMP thread */
    uint64_t    flushes;    /* buffer flushes during the run */
    st_event_t *events;     /* owned; may be NULL in a definitions-only blob */
    uint64_t    nevents;
} st_thread_data_t;

typedef struct st_callsite {
    uint64_t pc;
    char    *text;          /* "function (file:line)" or "object+0xoff"; owned */
    uint32_t fn_begin, fn_end; /* lines where that function begins and ends, 0 unknown */
} st_callsite_t;

/*
 * An OpenMP thread team as seen in the events: the threads that began a team with
 * the same parallel id, ordered by their thread number there. Derived from the
 * events by st_otf2_prepare() (writer.h), which also merges identical teams; the
 * shim leaves nteams = 0. A thread's rank in the team is its position in threads[].
 */
typedef struct st_team_def {
    uint32_t  size;
    uint32_t *threads;      /* thread indices (st_thread_data_t.index); owned */
} st_team_def_t;

/* The calls of one region on one thread that a filter (SYNCTRACE_FILTER) removed from the trace:
 * counted at record time instead of recorded. */
typedef struct st_filtered_sum {
    uint32_t thread;          /* st_thread_data_t.index of the calling thread */
    uint32_t region;          /* region id (region.h) */
    uint64_t visits;
    uint64_t time;            /* ns, summed over the calls (enter to leave) */
} st_filtered_sum_t;

/* The group of an MPI_Win_post or MPI_Win_start (one-sided PSCW epochs): its members as WORLD ranks,
 * in the group's rank order. A rank's distinct groups, numbered in the order its events first name
 * them; an RMA_GROUP_SYNC of a post or start names its group by id = index + 1 (events.def). */
typedef struct st_group_def {
    uint32_t size;
    int32_t *world;           /* owned */
} st_group_def_t;

typedef struct st_kv {        /* free-form statistics/properties ("sync.scheme" = "h2hca") */
    char key[64];
    char value[192];
} st_kv_t;

typedef struct st_rankdata {
    int32_t  rank, nranks;
    int32_t  pid;
    uint32_t flags;           /* ST_RANKF_* */
    char     hostname[64];
    char     nodename[64];    /* simulated node name (SYNCTRACE_NODE_SIZE) or hostname */
    uint64_t t_begin, t_end;  /* global-clock time of the first and last event */
    uint64_t timer_resolution;/* ticks per second of the timestamps (1e9: ns) */
    uint32_t nthreads;
    st_thread_data_t *threads;
    uint32_t ncomms;
    st_comm_def_t *comms;
    uint32_t ncallsites;
    st_callsite_t *callsites;
    uint32_t nprops;
    st_kv_t *props;
    uint32_t nteams;          /* OpenMP teams, filled by st_otf2_prepare(); 0 from the shim */
    st_team_def_t *teams;
    uint32_t ncpnodes;        /* call tree of application frames (SYNCTRACE_CALLPATH), callpath.h */
    st_cpnode_t *cpnodes;
    uint32_t nfiltered;       /* filtered calls by (thread, region), visits > 0; 0 without a filter */
    st_filtered_sum_t *filtered;
    uint32_t ngroups;         /* PSCW groups (st_group_def_t), filled by st_rankdata_prepare() from the
                               * recorded RMA_GROUP_MEMBER events or by the archive reader */
    st_group_def_t *groups;
    uint8_t  prepared;        /* st_otf2_prepare() has run (not packed): it is not repeated */
    struct st_rankview *view; /* st_rankdata_prepare()'s view of the rank, kept for the writer (not packed);
                               * NULL where none was kept. Freed with rd, by view_drop (prepare.c's: rank
                               * data alone links without it). */
    void (*view_drop)(struct st_rankdata *rd);
} st_rankdata_t;

#define ST_RANKF_INCOMPLETE 0x1u /* the run ended without MPI_Finalize (best-effort data) */
#define ST_RANKF_NO_MPI     0x2u /* never called MPI_Init (OpenMP-only program) */

/*
 * Packs the definitions (everything but the event arrays; the per-thread event
 * counts are kept) into a malloc'd blob: magic "STRD", format version, total size,
 * little-endian fixed-width fields, CRC-32 at the end. Returns its size, 0 on error
 * (*blob then NULL). Thread-safe for distinct rd.
 */
size_t st_rankdata_pack(const st_rankdata_t *rd, void **blob);
/*
 * Unpacks a blob into rd (fresh allocations, events left NULL, nevents as packed).
 * Returns 0, or -1 for anything but an intact blob of this format version (bad
 * magic/version/size, truncation, checksum mismatch, out-of-range counts or
 * references); it never reads outside [blob, blob+size). On -1 rd is zeroed.
 */
int st_rankdata_unpack(const void *blob, size_t size, st_rankdata_t *rd);
/* Frees everything rd owns (including events) and zeroes it. */
void st_rankdata_free(st_rankdata_t *rd);
/* Adds a property (copies); silently truncates over-long keys and values. A key that
 * is already present gets the new value. Not thread-safe (one rd per thread). */
void st_rankdata_prop(st_rankdata_t *rd, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same for key/value emitters (callbacks taking a void * context, e.g. st_clc_emit_fn). */
void st_rankdata_prop_str(void *rd, const char *key, const char *value);
/* A property's value, NULL if rd has none of that key. */
const char *st_rankdata_prop_get(const st_rankdata_t *rd, const char *key);
/* The events this rank could not write (its EVENTS_LOST property; 0 without one). */
uint64_t st_rankdata_events_lost(const st_rankdata_t *rd);
/* The events of all of rd's threads. */
uint64_t st_rankdata_nevents(const st_rankdata_t *rd);

/*
 * Raw per-rank dump for runs that cannot write an archive (abnormal exit).
 *
 * st_rankdata_dump() writes DIR/partial/rank-<rd->rank>.strd: a header, the packed
 * definitions, every thread's events (threads with events == NULL count as 0 events)
 * and a trailer with a CRC-32 of everything before it. DIR and DIR/partial are
 * created if missing; the file is written under a temporary name and renamed, so a
 * dump cut short never looks complete. It uses only mkdir/open/write/rename/close
 * and a static staging buffer — no malloc, no stdio — so it may run in a signal handler
 * once recording has stopped, provided nothing modifies rd meanwhile. Errors are
 * reported with st_log_raw(), naming the file and the cause. Returns 0, or -1 on error.
 */
int st_rankdata_dump(const char *dir, const st_rankdata_t *rd);

/*
 * The same for data that is still in the recorder: rd holds the definitions and every
 * thread's event count (events NULL); read() copies up to max events of thread
 * rd->threads[t], starting at event first, into out and returns how many (0: cannot
 * read; the dump then fails rather than be inconsistent). Async-signal-safe as long as
 * read() is. The dump file is named after rd->rank.
 */
typedef size_t (*st_dump_read_fn)(void *ctx, uint32_t t, uint64_t first, st_event_t *out, size_t max);
int st_rankdata_dump_live(const char *dir, const st_rankdata_t *rd, st_dump_read_fn read, void *ctx);

/*
 * Reads one dump file back into rd (fresh allocations, events included). Returns 0,
 * or -1 after logging one line naming the file and what is wrong (not a dump,
 * truncated, checksum mismatch, unsupported version); rd is then zeroed.
 * Not async-signal-safe.
 */
int st_rankdata_load_dump(const char *path, st_rankdata_t *rd);

#endif
