/*
 * archive.h — an OTF2 archive loaded into memory, as the `synctrace` commands see it.
 *
 * st_cli_archive_load() reads DIR/traces.otf2 completely with the OTF2 reader API:
 * global definitions (strings, regions, attributes, groups, communicators, locations,
 * clock properties), the archive properties, and every location's events into one array
 * per location, in recorded order. Point-to-point peers and collective roots are
 * translated from communicator ranks to WORLD ranks while loading (Comm -> Group ->
 * COMM_LOCATIONS, see archive_comm.c), so later passes never deal with communicator ranks.
 *
 * Conventions of synctrace archives (src/otf2/writer.c): location group id = rank; location
 * ids as src/otf2/location.h numbers them (both numberings read); timer resolution 1e9 (ns);
 * attribute "callsite" (string) on Enter events;
 * attribute "synctrace:calling_context" (CallingContext: the innermost application frame) on Enter
 * events with SYNCTRACE_CALLPATH, the frames as CallingContext / SourceCodeLocation definitions;
 * attribute "synctrace:orig_time" (uint64, same time base as event timestamps) on events
 * CLC moved; attribute "synctrace:parallel_id" (uint64) on OpenMP fork/join/team events;
 * archive properties SYNCTRACE::*.
 *
 * Not thread-safe; a loaded archive is read-only and owned by the caller until
 * st_cli_archive_free().
 */
#ifndef ST_CLI_ARCHIVE_H
#define ST_CLI_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "../model/event.h"
#include "../otf2/attributes.h"

#define ST_CLI_NONE UINT32_MAX /* no region / comm / string */

/*
 * The reader's events are the model's st_event_t (src/model/event.h, kinds from events.def,
 * OTF2 records synctrace does not write as its ST_EVENT_READ kinds), with the archive's own
 * references where the model has process-local ones:
 *   enter/leave            region = OTF2 region ref; enter: aux = call site ("callsite" string
 *                          ref + 1, 0: none), calling context (synctrace:calling_context ref) in
 *                          the call-path place (st_event_callpath, model/callpath.h)
 *   send/isend/recv/irecv  peer (world), comm = OTF2 comm ref, tag (OTF2's uint32), bytes,
 *                          id = request (isend/irecv) or the post id (recv, ST_CLI_EVF_ORDER)
 *   coll_end/icoll_complete op, comm = OTF2 comm ref, peer = root (world) or -1, bytes = sent,
 *                          bytes2 = received, id = instance (coll_end, ST_CLI_EVF_ORDER) or
 *                          request (icoll_complete; its instance in aux with ST_CLI_EVF_ORDER);
 *                          on an intercommunicator the root's own events name itself, the rest
 *                          of its group has peer -1 and ST_EVF_PROC_NULL
 *   omp_fork/join/team_*   id = parallel id (ST_CLI_EVF_PID); fork: bytes = requested threads;
 *                          team: comm = the team's OTF2 comm ref
 *   omp_acquire/release    id = lock id, bytes = acquisition order
 *   omp_task_*             comm = team (OTF2 comm ref), tag = creating thread, bytes2 = generation
 *   rma_*                  region = OTF2 RmaWin ref (ST_CLI_NONE: none), comm = its communicator's
 *                          OTF2 comm ref and tag = the window's number on it (st_cli_win_t), peer =
 *                          target (world; -1: all targets or none); the other fields as events.def says
 *   the others             as events.def says (isend_complete, irecv_request, cancelled,
 *                          icoll_request, request_test: id = request)
 * time is the OTF2 timestamp (ticks, not offset-corrected); an event CLC moved has
 * ST_EVF_CLC_MOVED and its time before CLC (synctrace:orig_time) where the model keeps it
 * (st_event_orig_time; st_cli_event_orig below).
 */

/* Flags of the reader beside the model's ST_EVF_* (in the bits those leave free). */
#define ST_CLI_EVF_BADPEER 0x20u /* peer/root could not be translated to a world rank */
#define ST_CLI_EVF_PID     0x40u /* OpenMP fork/join/team event with synctrace:parallel_id in id */
#define ST_CLI_EVF_ORDER   0x80u /* the order is valid: a recv's post id (synctrace:post_id) or a
                                    collective's instance on its communicator (synctrace:coll_seq) */
_Static_assert(((ST_CLI_EVF_BADPEER | ST_CLI_EVF_PID | ST_CLI_EVF_ORDER) &
                (ST_EVF_INTERCOMM | ST_EVF_PROC_NULL | ST_EVF_PERSISTENT | ST_EVF_IMPLICIT | ST_EVF_CLC_MOVED)) == 0,
               "reader flags overlap the model's");

/* The timestamp of e before CLC (its time unless CLC moved it). */
static inline uint64_t st_cli_event_orig(const st_event_t *e)
{
    return e->flags & ST_EVF_CLC_MOVED ? st_event_orig_time(e) : e->time;
}

/* The order of a recv / coll_end / icoll_complete (valid with ST_CLI_EVF_ORDER). */
static inline uint64_t st_cli_event_order(const st_event_t *e)
{
    return e->kind == ST_EV_MPI_ICOLL_COMPLETE ? e->aux : e->id;
}

typedef struct st_cli_location {
    uint64_t id;
    int32_t  rank;      /* st_otf2_location_split() */
    uint32_t thread;
    uint32_t name;      /* string ref */
    uint64_t declared;  /* number of events the definition announces */
    st_event_t *ev;     /* owned */
    size_t   n, cap;
    int      skipped;   /* its events were not read (st_cli_archive_load_ranks): n = 0 */
} st_cli_location_t;

typedef struct st_cli_region {
    uint32_t id, name;  /* name: string ref */
    uint8_t  role, paradigm; /* OTF2_RegionRole, OTF2_Paradigm */
    uint32_t begin, end; /* source lines (0: unknown) */
} st_cli_region_t;

typedef struct st_cli_group {
    uint32_t id;
    uint8_t  type, paradigm; /* OTF2_GroupType, OTF2_Paradigm */
    uint32_t flags;
    uint64_t *members;  /* owned */
    uint32_t n;
} st_cli_group_t;

typedef struct st_cli_comm {
    uint32_t id, name;  /* name: string ref */
    uint32_t group, group_b; /* group_b: remote side of an InterComm, else ST_CLI_NONE */
    uint8_t  paradigm;
    int      self;      /* COMM_SELF group: every process alone */
    int      resolved;  /* the world-rank tables below are valid */
    int32_t *world;     /* event rank -> world rank (owned; -1 = unknown) */
    uint32_t size;
    int32_t *world_b;   /* InterComm: remote event rank -> world rank (owned) */
    uint32_t size_b;
    int32_t *members;   /* world ranks of the members, by communicator rank (owned) */
    uint32_t nmembers;  /* for an InterComm: both groups */
    uint32_t nwins;     /* RMA windows defined on it */
} st_cli_comm_t;

/* An RmaWin definition: the window's communicator and its number among that communicator's
 * windows in id order (as synctrace's writer numbers them, src/otf2/writer.h). */
typedef struct st_cli_win {
    uint32_t id, comm, seq;
} st_cli_win_t;

typedef struct st_cli_cctx {     /* a CallingContext: a frame of a call path */
    uint32_t id, region; /* region: the frame's function */
    uint32_t scl;        /* SourceCodeLocation or ST_CLI_NONE */
    uint32_t parent;     /* calling context or ST_CLI_NONE */
    char    *path;       /* "main/solve/exchange": the functions from the outermost frame (owned) */
} st_cli_cctx_t;

typedef struct st_cli_scl {      /* a SourceCodeLocation */
    uint32_t id, file, line; /* file: string ref */
} st_cli_scl_t;

typedef struct st_cli_string {
    uint32_t id;
    char    *s;         /* owned */
} st_cli_string_t;

typedef struct st_cli_prop {
    char *name, *value; /* owned */
} st_cli_prop_t;

/* A location group (a process; id = world rank in synctrace archives) and the system tree
 * node (the host) it runs on. */
typedef struct st_cli_lgroup {
    uint32_t id, node;  /* node: system tree node id */
} st_cli_lgroup_t;

typedef struct st_cli_sysnode {
    uint32_t id, name;  /* name: string ref (the host name for nodes synctrace writes) */
} st_cli_sysnode_t;

/* A location group property (SYNCTRACE::SYNC_EPOCH_1 of one rank ...): string refs; value is
 * ST_CLI_NONE unless the property is a string. */
typedef struct st_cli_lgroup_prop {
    uint32_t group, name, value;
} st_cli_lgroup_prop_t;

/* A location property (SYNCTRACE::FILTERED_<k> of one thread ...): string refs; value is
 * ST_CLI_NONE unless the property is a string. */
typedef struct st_cli_loc_prop {
    uint64_t location;
    uint32_t name, value;
} st_cli_loc_prop_t;

typedef struct st_cli_archive {
    char    *path;           /* the anchor file (DIR/traces.otf2) */
    uint64_t resolution;     /* ticks per second */
    uint64_t offset;         /* global offset: dump times are relative to it */
    uint64_t length;
    st_cli_string_t *strings;  size_t nstrings;  /* sorted by id */
    st_cli_region_t *regions;  size_t nregions;  /* sorted by id */
    st_cli_group_t  *groups;   size_t ngroups;   /* sorted by id */
    st_cli_comm_t   *comms;    size_t ncomms;    /* sorted by id */
    st_cli_win_t    *wins;     size_t nwins;     /* sorted by id */
    st_cli_location_t *locs;   size_t nlocs;     /* sorted by (rank, thread) */
    st_cli_cctx_t   *cctxs;    size_t ncctxs;    /* sorted by id */
    st_cli_scl_t    *scls;     size_t nscls;     /* sorted by id */
    st_cli_prop_t   *props;    size_t nprops;
    st_cli_lgroup_t *lgroups;  size_t nlgroups;  /* in file order */
    st_cli_sysnode_t *sysnodes; size_t nsysnodes; /* in file order */
    st_cli_lgroup_prop_t *gprops; size_t ngprops; /* in file order */
    st_cli_loc_prop_t *lprops; size_t nlprops;    /* in file order */
    uint32_t attr[ST_ATTR__COUNT]; /* the archive's ref of each synctrace attribute, or ST_CLI_NONE */
    uint8_t  attr_orig_type;       /* OTF2_Type of synctrace:orig_time (older versions: int64) */
    int32_t  nranks;         /* number of distinct ranks among the locations */
} st_cli_archive_t;

/*
 * Loads the archive in dir (a directory holding traces.otf2, or the .otf2 file itself).
 * Returns 0, or -1 with a one-line reason in err (the caller prints
 * "cannot read archive DIR: <reason>"). On failure *ar is freed and zeroed.
 */
int st_cli_archive_load(const char *dir, st_cli_archive_t *ar, char *err, size_t errlen);

/*
 * The same, reading the events (and local definitions) of the ranks pick accepts only; the other
 * locations keep their definitions, no events and `skipped` set. pick is called once per rank
 * after the global definitions are read (ar->locs is complete then), with ctx. A process of a
 * parallel analysis so opens only its own ranks' event files.
 */
typedef int (*st_cli_rank_pick_fn)(const st_cli_archive_t *ar, int32_t rank, void *ctx);
int st_cli_archive_load_ranks(const char *dir, st_cli_archive_t *ar, st_cli_rank_pick_fn pick, void *ctx, char *err,
                              size_t errlen);

/* The calls a filter (SYNCTRACE_FILTER) removed, by location and region: the archive's location
 * properties SYNCTRACE::FILTERED_<k> ("<region> <visits> <ns>"), docs/dump-format.md. */
typedef struct st_cli_filtered {
    int32_t     rank;
    uint32_t    thread;
    char        region[64];
    uint64_t    visits, time;
} st_cli_filtered_t;
/* All of them into *out (malloc'd, in file order; NULL when none) and their number; a malformed
 * value is left out. Returns 0, or -1 when out of memory. */
int st_cli_filtered(const st_cli_archive_t *ar, st_cli_filtered_t **out, size_t *n);

/* Frees everything ar owns and zeroes it. */
void st_cli_archive_free(st_cli_archive_t *ar);

/* String of ref s, "" when unknown. */
const char *st_cli_string(const st_cli_archive_t *ar, uint32_t s);
/* Region / communicator / RMA window / group definition with the given id, NULL when unknown. */
const st_cli_region_t *st_cli_region(const st_cli_archive_t *ar, uint32_t id);
const st_cli_comm_t *st_cli_comm(const st_cli_archive_t *ar, uint32_t id);
const st_cli_win_t *st_cli_win(const st_cli_archive_t *ar, uint32_t id);
const st_cli_group_t *st_cli_group(const st_cli_archive_t *ar, uint32_t id);
const st_cli_cctx_t *st_cli_cctx(const st_cli_archive_t *ar, uint32_t id);
const st_cli_scl_t *st_cli_scl(const st_cli_archive_t *ar, uint32_t id);
/* Value of archive property name, NULL when absent. */
const char *st_cli_prop(const st_cli_archive_t *ar, const char *name);
/* Name of the system tree node (host) location group `group` (= rank) runs on, NULL when unknown. */
const char *st_cli_group_node(const st_cli_archive_t *ar, uint32_t group);
/* Index of the location with the given id in ar->locs, -1 when unknown. */
long st_cli_location_index(const st_cli_archive_t *ar, uint64_t id);
/* Index of the location of (rank, thread) in ar->locs, -1 when unknown. */
long st_cli_location_find(const st_cli_archive_t *ar, int32_t rank, uint32_t thread);

/* Lowercase OTF2 collective op name ("allreduce"), "?" when unknown. */
const char *st_cli_op_name(unsigned op);

/*
 * Communicator rank -> world rank for an event of a location of world rank `me` on comm:
 * returns -1 when comm or rank is unknown (OTF2_UNDEFINED_UINT32 means "none").
 */
int32_t st_cli_world_rank(const st_cli_archive_t *ar, uint32_t comm, int32_t me, uint32_t rank);

#endif
