/*
 * input.h — the trace as the relations see it (relations.h): its locations (threads) with
 * their events and times, its processes (ranks) with their communicator tables and nodes,
 * and the regions of the world-wide synchronizations; built over rank data by input.c.
 */
#ifndef ST_REL_INPUT_H
#define ST_REL_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/mem.h"

#include "../model/rankdata.h"
#include "../model/event.h"

/* One location (thread) of the trace. */
typedef struct st_rel_loc {
    int32_t     rank;    /* world rank of its process */
    uint32_t    thread;  /* thread index inside the process */
    st_event_t *ev;      /* events in record order; time = C(e) on input, LC(e) after st_clc_run */
    uint64_t    n;
    uint64_t   *orig;    /* C(e) of every event, then LC(e) (st_rel_lc); malloc'd by the run, caller frees.
                          * NULL in the parallel engine while nothing on the location moved: LC == C ==
                          * ev[].time (most traces need no correction; the dense arrays are 16 B per event) */
    uint64_t    mono;    /* events [0, mono) have non-decreasing C (set by st_rel_endpoints(); 0 unknown) */
} st_rel_loc_t;

/* The working LC of a location during a correction: the second half of its orig block.
 * The passes read C and write LC in these two dense arrays instead of the 64-byte
 * events (a quarter of the memory traffic); the events get LC when the run finishes. */
static inline uint64_t *st_rel_lc(const st_rel_loc_t *L) { return L->orig + L->n; }

/* C and LC of event i, also of a location without orig (both are then the event's time). */
static inline uint64_t st_rel_c_at(const st_rel_loc_t *L, uint64_t i) { return L->orig ? L->orig[i] : L->ev[i].time; }
static inline uint64_t st_rel_lc_at(const st_rel_loc_t *L, uint64_t i)
{
    return L->orig ? L->orig[L->n + i] : L->ev[i].time;
}

/* Allocates L->orig (C and LC, 2 * n values) unless it is there already: 0, or -1. */
int st_rel_times_alloc(st_rel_loc_t *L);

/* Gives a location without orig its dense arrays, C and LC both the events' times: 0, or -1. */
int st_rel_times_materialize(st_rel_loc_t *L);

/* What the derivation needs to know about one process. */
typedef struct st_rel_proc {
    uint32_t             ncomms;
    const st_comm_def_t *comms;  /* event.comm (local index) -> definition; NULL for remote ranks */
    int32_t              node;   /* node id; ranks with equal ids share a node (mu class INTRA) */
    uint32_t              ngroups;
    const st_group_def_t *groups; /* the groups of MPI_Win_post / MPI_Win_start (RMA_GROUP_SYNC.id - 1) */
    /* Call paths (model/callpath.h; SYNCTRACE_CALLPATH): the rank's call tree and the texts of its
     * frames (pc -> text). Only the analysis reads them; 0 / NULL without call paths. */
    uint32_t             ncpnodes;
    const st_cpnode_t   *cpnodes;
    uint32_t             ncallsites;
    const st_callsite_t *callsites;
    /* The calls a filter removed (SYNCTRACE_FILTER), by thread and region; only the analysis reads them. */
    uint32_t                 nfiltered;
    const st_filtered_sum_t *filtered;
} st_rel_proc_t;

/* A region whose ENTER / LEAVE are the logical send / receive of a world-wide
 * N-to-N synchronization (MPI_Init, MPI_Init_thread: group 0; MPI_Finalize: group 1). */
typedef struct st_rel_sync_region {
    uint32_t region;
    uint32_t group;
} st_rel_sync_region_t;

/* The shim's: MPI_Init / MPI_Init_thread (group 0) and MPI_Finalize (group 1). */
#define ST_REL_NSYNC 3
extern const st_rel_sync_region_t st_rel_sync_regions[ST_REL_NSYNC];

/* The trace: nothing but the trace (how a reader derives from it is its own argument,
 * st_rel_derive_opts_t in endpoints.h). */
typedef struct st_rel_input {
    uint32_t                    nlocs;
    st_rel_loc_t               *locs;
    int32_t                     nranks;  /* world size */
    const st_rel_proc_t        *procs;   /* [nranks], by world rank; NULL: every rank its own node */
    uint32_t                    nsync;
    const st_rel_sync_region_t *sync;    /* may be NULL */
    /* The lock epochs of every rank in their order (locks.h), owned (st_rel_input_free frees them);
     * NULL: no lock relations (CLC's inputs). */
    struct st_rel_lock_epoch   *locks;
    size_t                      nlocks;
} st_rel_input_t;

/* For every location of in: st_rel_times_alloc, then C (the events' times) into orig. 0, or -1. */
int st_rel_save_orig(st_rel_input_t *in);

/*
 * Fills in with one location per thread of the nrd rank data (events used in place, not
 * copied), their comm tables (borrowed), world size = the largest nranks, node ids from
 * equal node names. in->sync is left empty: set it to the MPI_Init(_thread) and
 * MPI_Finalize region ids (groups 0 and 1). rd must outlive in. Returns 0 or -1 (memory).
 */
int st_rel_input_from_rankdata(st_rankdata_t *rd, int nrd, st_rel_input_t *in);

/* (st_rel_input_from_rankdata also orders the lock epochs of its ranks: in->locks.) */

/* Frees what st_rel_input_from_rankdata allocated, including the locations' orig arrays
 * (take them first if they are still needed: set locs[l].orig = NULL). */
void st_rel_input_free(st_rel_input_t *in);

#endif
