/*
 * prepare.h — one rank's events made consistent, and what is derived from them.
 *
 * st_rankdata_prepare() repairs a rank's data once, before anyone (CLC, the writer)
 * reads its events. The view (st_rankview_t) is what the events imply beyond what they
 * record: the rank of a world rank in an event's communicator, the OpenMP thread teams
 * and the identity of explicit tasks.
 *
 * OpenMP: each rank's teams are the distinct member lists of the THREAD_TEAM_BEGIN
 * events sharing a parallel id (ordered by thread number), plus team 0 = the initial
 * thread alone; identical teams of different parallel regions are one team. An explicit
 * task is identified by (team, creating thread's rank in it, that thread's generation
 * number); task ids are assumed unique within a process.
 */
#ifndef ST_MODEL_PREPARE_H
#define ST_MODEL_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include "rankdata.h"
#include "../util/u64map.h"

/*
 * Makes one rank's data writable and fills in what is derived from its events.
 * Local (no communication); run it before packing the definitions.
 *  - raises timestamps that go backwards within a thread (warning with a count);
 *  - drops events that cannot be expressed (unknown kind/region/communicator, peer
 *    or root not in the communicator, MPI_PROC_NULL peers) with one warning per
 *    thread, so threads[i].nevents is then the exact OTF2 event count;
 *  - sorts callsites by pc, recomputes t_begin/t_end from the events;
 *  - computes rd->teams (OpenMP thread teams) from THREAD_TEAM_BEGIN events;
 *  - folds the RMA_GROUP_MEMBER events into rd->groups (st_rankdata_fold_groups).
 * Runs once: it sets rd->prepared and returns at once when that is set (whoever changes
 * events afterwards must keep them writable: time order, no new event kinds). The shim
 * prepares before the CLC correction, which then sees the events the archive will hold.
 * Definitions-only data (events == NULL) is left unchanged. 0, or -1 when out of memory
 * (reported).
 */
int st_rankdata_prepare(st_rankdata_t *rd);

/* Called with each OpenMP thread event (st_event_is_thread) a pass over the events keeps, in order. */
typedef void st_thread_event_fn(void *arg, const st_thread_data_t *t, const st_event_t *e);

/*
 * The groups of MPI_Win_post / MPI_Win_start (rmagroups.c): the recorded RMA_GROUP_MEMBER events
 * after each post's or start's RMA_GROUP_SYNC become a group of rd->groups (distinct groups once,
 * in the order first named), the RMA_GROUP_SYNC names it (id = index + 1, 0: an empty group), and
 * the member events are removed. st_rankdata_prepare() does it first, and notes the OpenMP thread
 * events in the same pass (note, when not NULL: every pass reads all 64 bytes of every event).
 * 0, or -1 when out of memory.
 */
int st_rankdata_fold_groups(st_rankdata_t *rd, st_thread_event_fn *note, void *arg);

/* The group with these n members (world ranks) in rd->groups, added if new: *id = its index + 1
 * (0 for n = 0). 0, or -1 when out of memory. */
int st_rankdata_group_intern(st_rankdata_t *rd, const int32_t *m, uint32_t n, uint64_t *id);

/*
 * t_begin / t_end of rd from its events (each location's first and last). The writer calls it before it
 * writes the clock properties: CLC moves events after st_rankdata_prepare(), the last ones possibly past
 * the span prepare saw, and every timestamp must lie within the archive's announced range.
 */
void st_rankdata_span(st_rankdata_t *rd);

/* The master thread: the lowest thread index (the first thread that recorded). */
uint32_t st_rankdata_master(const st_rankdata_t *rd);

/* Whether kind is one of the OpenMP thread events (THREAD_FORK .. THREAD_TASK_COMPLETE). Inline: asked
 * of every event by the pass that folds the RMA groups. */
static inline int st_event_is_thread(unsigned kind)
{
    return kind >= ST_EV_THREAD_FORK && kind <= ST_EV_THREAD_TASK_COMPLETE;
}

/* ---- the view of one rank ------------------------------------------------------------- */

typedef struct st_comm_xlat {      /* world rank -> rank in one group of a communicator */
    uint32_t  n;
    uint64_t *pairs;          /* (world << 32) | group rank, sorted */
} st_comm_xlat_t;

typedef struct st_task_ident {     /* an explicit task's identity */
    uint32_t team, creator, gen;
} st_task_ident_t;

#define ST_TEAM_STACK 64
typedef struct st_team_stack {
    uint32_t team[ST_TEAM_STACK];
    uint32_t depth;           /* may exceed ST_TEAM_STACK; deeper entries are not kept */
} st_team_stack_t;

typedef struct st_rankview {
    st_rankdata_t   *rd;
    st_comm_xlat_t  *local, *remote;   /* per communicator */
    uint32_t         master;           /* thread index of the master thread */
    int              has_omp;          /* the rank has THREAD_* events: team 0 exists */
    uint32_t         nteams;
    st_team_def_t   *teams;            /* owned by the view */
    st_u64map_t      pmap;             /* parallel id -> team */
    st_u64map_t      tmap;             /* task id -> index in tasks (with_tasks only) */
    st_task_ident_t *tasks;
    size_t           ntasks;
    int              teams_lent;       /* teams belong to rd (the view st_rankdata_prepare keeps): not freed here */
} st_rankview_t;

/* Collective roots that are no rank of the communicator (st_rankview_root). */
#define ST_ROOT_NONE       UINT32_MAX         /* no root: operations without one, or between the groups */
#define ST_ROOT_SELF       (UINT32_MAX - 1u)  /* intercommunicator: this process is the root (MPI_ROOT) */
#define ST_ROOT_THIS_GROUP (UINT32_MAX - 2u)  /* intercommunicator: another process of this group is */

/* Builds the view of rd; with_tasks adds the task table. 0, or -1 when out of memory (reported). */
int st_rankview_init(st_rankview_t *c, st_rankdata_t *rd, int with_tasks);
/* Frees what the view owns (the teams it built too, unless lent to rd) and zeroes it. */
void st_rankview_free(st_rankview_t *c);
/* The view of rd with its task table, for the writer: the one st_rankdata_prepare kept (rd->view), else a new one in
 * *own. NULL when out of memory (reported). Give it back with st_rankview_put(view, own), which frees own's when
 * that is the one given. */
const st_rankview_t *st_rankview_get(st_rankdata_t *rd, st_rankview_t *own);
void st_rankview_put(const st_rankview_t *view, st_rankview_t *own);
/* Frees the view st_rankdata_prepare kept (rd->view), if any. */
void st_rankdata_drop_view(st_rankdata_t *rd);
/* NULL when e can be written; else why not. */
const char *st_rankview_check(const st_rankview_t *c, const st_event_t *e);
/* Point-to-point peer / collective root as a rank in the event's communicator (the remote group for a
 * peer on an intercommunicator; a root may be an ST_ROOT_*). 0 or -1. */
int st_rankview_peer(const st_rankview_t *c, const st_event_t *e, uint32_t *rank);
int st_rankview_root(const st_rankview_t *c, const st_event_t *e, uint32_t *root);
/* Rank of thread index t in team (0 when not a member). */
uint32_t st_rankview_team_rank(const st_rankview_t *c, uint32_t team, uint32_t t);

/* Team bookkeeping along one thread's events. */
void st_team_push(st_team_stack_t *s, uint32_t team);
void st_team_pop(st_team_stack_t *s);
uint32_t st_team_top(const st_team_stack_t *s); /* 0 (the initial team) when empty */

#endif
