/*
 * writer_int.h — internals shared by the OTF2 writer's files (not an API).
 *
 * prepare.c   per-rank analysis: world->comm rank translation, OpenMP teams and
 *             tasks, lock numbering, event validation, st_otf2_prepare();
 * writer.c    archive open/close, numbering, events (the events.def switch), serial driver;
 * globaldefs.c st_otf2_write_global().
 */
#ifndef ST_OTF2_WRITER_INT_H
#define ST_OTF2_WRITER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "attributes.h"
#include "location.h"
#include "writer.h"

/* ---- u64 -> u64 hash map (open addressing; grows at half load) ------------------------ */

typedef struct st_otf2_map {
    uint64_t *keys, *vals;
    uint8_t  *used;
    size_t    cap, n;
} st_otf2_map_t;

/* 0, or -1 when out of memory. */
int st_otf2_map_put(st_otf2_map_t *m, uint64_t key, uint64_t val);
/* 1 and *val when present, else 0. */
int st_otf2_map_get(const st_otf2_map_t *m, uint64_t key, uint64_t *val);
void st_otf2_map_free(st_otf2_map_t *m);

/* ---- numbering vector layout ----------------------------------------------------------- */

enum { NB_MAGIC, NB_WORLD, NB_NKEYS, NB_SELF, NB_NCALLSITES, NB_NTEAMS, NB_NCPNODES, NB_HDR };
#define ST_NB_MAGIC 0x53544e4255504d31ull /* "STNBUPM1" */

typedef struct st_otf2_nb {
    uint32_t        world;        /* world size W */
    uint32_t        nkeys;        /* MPI communicators with a key (not SELF) */
    uint32_t        self;         /* id of MPI_COMM_SELF or OTF2_UNDEFINED_COMM */
    uint64_t        ncallsites;   /* String ids 0..ncallsites-1 */
    uint64_t        nteams;
    const uint64_t *team_base;    /* [W] first team comm id of each rank */
    const uint64_t *cs_base;      /* [W] first call-site String id of each rank */
    uint64_t        ncpnodes;     /* CallingContext ids 0..ncpnodes-1: every rank's call-path nodes */
    const uint64_t *cp_base;      /* [W] first CallingContext id of each rank (its node 0) */
    const uint64_t *keys;         /* [nkeys] sorted, for lookup */
    const uint64_t *ids;          /* [nkeys] comm id of keys[k]: parents before children */
    uint32_t        ncomms;       /* MPI comm ids 0..ncomms-1 (keys and SELF) */
} st_otf2_nb_t;

/* Checks and views a numbering vector; 0 or -1 (reported). */
int st_otf2_nb_view(const uint64_t *num, size_t len, st_otf2_nb_t *v);
/* Global comm id of local comm index i of rd (OTF2_UNDEFINED_COMM if unknown). */
uint32_t st_otf2_nb_comm(const st_otf2_nb_t *v, const st_rankdata_t *rd, uint32_t i);

/* ---- per-rank analysis ------------------------------------------------------------------ */

typedef struct st_otf2_xlat {      /* world rank -> rank in one group of a communicator */
    uint32_t  n;
    uint64_t *pairs;          /* (world << 32) | group rank, sorted */
} st_otf2_xlat_t;

typedef struct st_otf2_task {      /* an explicit task's OTF2 identity */
    uint32_t team, creator, gen;
} st_otf2_task_t;

#define ST_TEAM_STACK 64
typedef struct st_otf2_team_stack {
    uint32_t team[ST_TEAM_STACK];
    uint32_t depth;           /* may exceed ST_TEAM_STACK; deeper entries are not kept */
} st_otf2_team_stack_t;

typedef struct st_otf2_ctx {
    st_rankdata_t *rd;
    st_otf2_xlat_t     *local, *remote;   /* per communicator */
    uint32_t       master;           /* thread index of the master thread */
    int            has_omp;          /* the rank has THREAD_* events: team 0 exists */
    uint32_t       nteams;
    st_team_def_t *teams;            /* owned by the context */
    st_otf2_map_t    pmap;             /* parallel id -> team */
    st_otf2_map_t    tmap;             /* task id -> index in tasks (for_write only) */
    st_otf2_task_t     *tasks;
    size_t         ntasks;
} st_otf2_ctx_t;

/* Builds the analysis; for_write adds the task table. 0, or an st_otf2_status_t. */
int st_otf2_ctx_init(st_otf2_ctx_t *c, st_rankdata_t *rd, int for_write);
void st_otf2_ctx_free(st_otf2_ctx_t *c);
/* NULL when e can be written; else why not. */
const char *st_otf2_ctx_check(const st_otf2_ctx_t *c, const st_event_t *e);
/* Point-to-point peer / collective root as a rank in the event's communicator. 0 or -1. */
int st_otf2_ctx_peer(const st_otf2_ctx_t *c, const st_event_t *e, uint32_t *rank);
int st_otf2_ctx_root(const st_otf2_ctx_t *c, const st_event_t *e, uint32_t *root);
/* Rank of thread index t in team (0 when not a member). */
uint32_t st_otf2_ctx_team_rank(const st_otf2_ctx_t *c, uint32_t team, uint32_t t);

/* Team bookkeeping along one thread's events. */
void st_otf2_team_push(st_otf2_team_stack_t *s, uint32_t team);
void st_otf2_team_pop(st_otf2_team_stack_t *s);
uint32_t st_otf2_team_top(const st_otf2_team_stack_t *s); /* 0 (the initial team) when empty */

/* The master thread: the lowest thread index (the first thread that recorded). */
uint32_t st_otf2_master(const st_rankdata_t *rd);
int st_otf2_is_thread_kind(unsigned kind);

#endif
