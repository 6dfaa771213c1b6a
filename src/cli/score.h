/*
 * score.h — `synctrace score`: what fills a trace, region by region, and which regions a filter
 * could drop (docs/score.md).
 *
 * st_score_build() walks every location's events once: each event record is sized as OTF2
 * encodes it (st_score_event_bytes: the record, its attribute list, and the timestamp record
 * OTF2 writes before it when the time moved on), and charged to the innermost open region of
 * its location (an ENTER and its LEAVE to the region itself, a send inside MPI_Send to
 * MPI_Send, an event outside every region to the row "(outside any region)"). So the rows'
 * bytes add up to the estimated size of the event records, and each row knows its visits
 * (total and the largest on one location), its inclusive time and the bytes of its own
 * ENTER/LEAVE records, which are what a filter removes.
 *
 * st_score_rank() orders the rows by bytes; st_score_groups() sums them per group;
 * st_score_propose() picks the regions a filter should exclude. These three work on the row
 * array alone (a unit test builds one by hand). Single-threaded; a profile is owned by the
 * caller until st_score_free().
 */
#ifndef ST_CLI_SCORE_H
#define ST_CLI_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "archive.h"
#include "../model/region.h"

/* The groups of rows, in the order `score` prints them. */
typedef enum st_score_group {
    ST_SCORE_MPI_P2P,     /* point-to-point: sends, receives, completions, probes */
    ST_SCORE_MPI_COLL,    /* collectives (blocking and nonblocking), communicator creation */
    ST_SCORE_MPI_RMA,     /* one-sided: MPI_Put/Get/Accumulate..., window synchronization */
    ST_SCORE_MPI_OTHER,   /* MPI management and everything else of MPI (datatypes, queries, I/O) */
    ST_SCORE_OPENMP,      /* OpenMP constructs and lock calls */
    ST_SCORE_USER,        /* the program's own regions (main) and events outside any region */
    ST_SCORE_MEASUREMENT, /* the tool's regions (TRACE BUFFER FLUSH) */
    ST_SCORE__GROUPS
} st_score_group_t;

/* Short name of a group ("mpi-p2p"), "?" when out of range. */
const char *st_score_group_name(unsigned g);

typedef struct st_score_row {
    const char *name;         /* region name (not owned) */
    uint32_t region;          /* the archive's region id (ST_CLI_NONE: "(outside any region)") */
    uint8_t  group;           /* st_score_group_t */
    const char *unfilterable; /* why a filter may not drop it; NULL: it may */
    uint64_t visits;          /* ENTERs over all locations */
    uint64_t visits_max;      /* the most ENTERs on one location */
    uint64_t events;          /* event records charged to the row (its ENTER/LEAVE and what happens inside) */
    uint64_t bytes;           /* estimated OTF2 bytes of those records */
    uint64_t own_bytes;       /* of these, its ENTER/LEAVE records': what excluding the region saves */
    uint64_t time_ns;         /* inclusive time, summed over locations (ticks of the archive's timer) */
} st_score_row_t;

typedef struct st_score_loc {
    int32_t  rank;
    uint32_t thread;
    uint64_t events;          /* events read */
    uint64_t bytes;           /* estimated event records */
    uint64_t file_bytes;      /* estimated .evt file: the records plus OTF2's chunk headers */
    uint64_t span;            /* first to last event, ticks */
} st_score_loc_t;

typedef struct st_score {
    st_score_row_t *rows;  size_t nrows;   /* in region order until st_score_rank() */
    st_score_row_t *filtered; size_t nfiltered; /* the calls a filter counted instead of recording
                                              (docs/filter.md): per region, visits, visits_max and
                                              time_ns; no events, no bytes; by visits, largest first */
    st_score_loc_t *locs;  size_t nlocs;   /* as ar->locs */
    uint64_t events, bytes;                /* sums over the rows */
    uint64_t resolution;                   /* ticks per second */
    uint64_t first, last;                  /* first and last event of the archive (ticks) */
} st_score_t;

/*
 * The profile of a loaded archive. unfilterable(name) says why a region may not be filtered
 * (NULL: it may; a name the tool does not record also gets a reason). Returns 0, or -1 when
 * out of memory.
 */
int st_score_build(const st_cli_archive_t *ar, const char *(*unfilterable)(const char *name), st_score_t *s);
void st_score_free(st_score_t *s);

/* The tool's region id of a region name (regions.def, the MPI functions), ST_REGION__COUNT when
 * synctrace records no region of that name. */
st_region_t st_score_region_id(const char *name);

/*
 * Bytes OTF2 spends on event e of a location when the previous record of that location had
 * time prev (0 before the first): the timestamp record when e->time > prev, the attribute list
 * of synctrace's attributes the event carries, the record itself, compressed integers sized as
 * OTF2 sizes them. Foreign record kinds are sized by their fixed fields.
 */
uint64_t st_score_event_bytes(const st_cli_archive_t *ar, const st_event_t *e, uint64_t prev);

/* OTF2's overhead of an event file of `bytes` bytes of records: a chunk header and a timestamp
 * per started chunk (synctrace's chunks are 1 MiB). */
uint64_t st_score_chunk_overhead(uint64_t bytes);

/* Sorts rows by bytes (then visits, then name), largest first. */
void st_score_rank(st_score_row_t *rows, size_t n);

/* Sums rows per group into out[ST_SCORE__GROUPS] (name = the group's name, region ST_CLI_NONE,
 * visits_max the largest of the group's rows). */
void st_score_groups(const st_score_row_t *rows, size_t n, st_score_row_t out[ST_SCORE__GROUPS]);

/* What st_score_propose() excludes: filterable regions visited at least min_visits times on
 * some location, taking at most max_ns_per_visit each on average. */
typedef struct st_score_rule {
    uint64_t min_visits;
    double   max_ns_per_visit;
} st_score_rule_t;

#define ST_SCORE_MIN_VISITS 10000
#define ST_SCORE_MAX_NS_PER_VISIT 10000.0

/*
 * Marks in pick[i] (n entries) the rows the rule excludes and returns how many; *saved gets the
 * bytes their ENTER/LEAVE records take (the predicted shrink of the event records).
 */
size_t st_score_propose(const st_score_row_t *rows, size_t n, const st_score_rule_t *rule, unsigned char *pick,
                        uint64_t *saved);

#endif
