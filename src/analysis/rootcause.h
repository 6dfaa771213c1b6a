/*
 * rootcause.h — why the waiting happens: delay costs (which activity on which location made
 * others wait, directly and through chains of waits), the classification of point-to-point wait
 * states (direct / indirect, propagating / terminal) and the critical path with its imbalance
 * metrics (docs/analysis.md, "Root causes").
 *
 * Two steps, so that every way of running the analysis computes the same numbers:
 *
 *  1. The timeline (st_rc_input_t): per location its synchronizing calls in time order, each with
 *     the waits the wait-state patterns found at it, the relations (logical messages, collective
 *     instances, OpenMP team events) it took part in, and the location's exclusive time per call
 *     path before it. Built where the events are: by the serial analysis over a whole trace, or by
 *     each process of a parallel analysis over its own locations (rc_build.c).
 *  2. In a parallel analysis the timelines stay where they were built: the replay runs distributed
 *     over the processes (rc_dist.h), with the same values as st_rc_run over the whole timeline, and
 *     only its results travel with the processes' report parts. (A part can still carry its timeline,
 *     rc_pack.c, for the collector to run st_rc_run: the unit tests compare the two.)
 *  3. st_rc_run(): over the merged result and the whole timeline, a backward replay in the order of
 *     the synchronization times (latest first) charges each wait to its delayer's excess time
 *     (short-term cost), carries the waiting it caused downstream (long-term cost), walks the
 *     critical path back from the end of the run, and derives the imbalance metrics. It only reads
 *     the timeline and writes result values: MPI-free, deterministic (integer profiles; doubles
 *     added in one canonical order), independent of how cnodes and locations were numbered.
 *
 * Times are timer ticks. Cnode ids and location indices are those of the result the timeline
 * belongs to.
 */
#ifndef ST_AN_ROOTCAUSE_H
#define ST_AN_ROOTCAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* Exclusive time of a location on one call path. 12 bytes, 4-aligned (no padding after cnode): a
 * timeline holds about one per synchronizing call, written to fresh pages; nothing takes the address
 * of ticks (packed: read and written by value). */
typedef struct __attribute__((packed, aligned(4))) st_rc_prof {
    uint32_t cnode;
    uint64_t ticks;
} st_rc_prof_t;
_Static_assert(sizeof(st_rc_prof_t) == 12, "a profile entry is 12 bytes");

/* A relation a call took part in: the relation's key (relations/endpoints.h: the same at every
 * end) and which end this call is. A call can be several ends (a Waitall completing several
 * receives, a Sendrecv, a barrier member both sends and receives). */
enum {
    ST_RC_SENDS    = 1, /* the sending end: a point-to-point send (the call around the send event), a
                           collective member that contributes data (every member of a barrier or
                           N-to-N operation, the root of 1-to-N, the non-roots of N-to-1), a master's fork */
    ST_RC_RECEIVES = 2, /* the receiving end: the call completing a receive, a collective member that
                           gets data (every member of a barrier or N-to-N, the non-roots of 1-to-N, the
                           root of N-to-1), a team member's start of a parallel region */
    ST_RC_POSTS    = 4, /* the call that posted a receive (MPI_Irecv; a blocking receive: with RECEIVES) */
    ST_RC_ROOT     = 8, /* the root of a rooted collective */
    ST_RC_WAITED   = 16 /* a point-to-point end at a call that waited there (a Late Sender at a receiving end, a
                           Late Receiver at a sending or completing one): the message was a synchronization
                           point, which only such messages are (Scalasca's): only they begin a delay interval */
};
typedef struct st_rc_rel {
    uint64_t key[4];
    uint32_t role;  /* ST_RC_* bits */
    uint32_t group; /* 1 + the number of the key's relation in the builder's graph (rc_build.c: the same at
                       every end of the key that one build wrote), for a remote point-to-point message of a
                       parallel analysis 1 + its number in the order the processes' join handed it out (rc_build.h's
                       an_rc_group), 0 unknown; read only where a process groups the ends of its own OpenMP keys
                       (rc_dist.c), which otherwise hashes the keys, and orders its ends of the messages it shares
                       with one other process (rc_dist_pairs.c), which otherwise sorts them by key */
} st_rc_rel_t;

/* A wait the wait-state patterns found at a call: one per (call, metric); the metric is one of
 * the wait-state metrics with a delay cost (st_rc_delay_metric() >= 0) or Wait at Finalize. */
typedef struct st_rc_wait {
    int32_t metric; /* enum st_an_metric */
    double  ticks;  /* > 0 */
} st_rc_wait_t;

/* A synchronizing call of a location: an MPI call that took part in a relation (a message, a
 * collective, MPI_Init/MPI_Finalize), an OpenMP barrier, fork or join; or a stretch in which a
 * worker thread was idle (ST_RC_IDLE: enter..leave is the master's serial time, its relation the
 * next fork). */
enum { ST_RC_IDLE = 1, ST_RC_FINALIZE = 2, ST_RC_INIT = 4 };
/* A call's limits: cnodes below ST_RC_CNODES (28 bits), flags in 4 bits, at most ST_RC_CALL_WAITS - 1 waits (one per
 * metric: every metric fits) and ST_RC_CALL_RELS - 1 relations (24 bits). Every writer of a call checks them (the
 * builder and the unpacking refuse what does not fit as out of memory / malformed): the fields are bit-fields, a value
 * that does not fit would be cut silently. */
#define ST_RC_CNODES     (1u << 28)
#define ST_RC_CALL_WAITS (1u << 8)
#define ST_RC_CALL_RELS  (1u << 24)
typedef struct st_rc_call { /* 40 bytes: a location holds fewer than 2^32 profile entries, waits and relations */
    uint64_t enter, leave;
    uint32_t cnode : 28;      /* < ST_RC_CNODES */
    uint32_t flags : 4;       /* ST_RC_IDLE, ST_RC_FINALIZE, ST_RC_INIT */
    uint32_t prof_at;         /* the location's exclusive time per cnode from the previous call's leave */
    uint32_t nprof;           /* (the location's first event for the first call) to this call's enter:
                                 prof[prof_at .. prof_at + nprof), by cnode ascending */
    uint32_t wait_at;         /* its waits: waits[wait_at .. wait_at + nwait) */
    uint32_t nwait : 8;       /* < ST_RC_CALL_WAITS */
    uint32_t nrel : 24;       /* < ST_RC_CALL_RELS */
    uint32_t rel_at;          /* its relations: rels[rel_at .. rel_at + nrel) */
} st_rc_call_t;
_Static_assert(sizeof(st_rc_call_t) == 40, "a synchronizing call is 40 bytes");
_Static_assert(ST_AN__METRICS < ST_RC_CALL_WAITS, "a call's waits, one per metric, fit its count");

typedef struct st_rc_loc {
    uint64_t      first, last; /* the location's first and last event */
    uint32_t      ncalls;
    st_rc_call_t *calls;       /* [ncalls] by enter, then leave */
    uint64_t      nprof, nwaits, nrels;
    st_rc_prof_t *prof;        /* the calls' segments, then the tail (after the last call's leave) */
    uint64_t      tail_at;
    uint32_t      ntail;
    st_rc_wait_t *waits;
    st_rc_rel_t  *rels;
} st_rc_loc_t;

typedef struct st_rc_input {
    uint32_t     nlocs; /* the result's locations, same order */
    st_rc_loc_t *locs;
} st_rc_input_t;

void st_rc_input_free(st_rc_input_t *in);

/* One cause of a wait state: waiting time of metric `metric` at (wait_cnode, any location)
 * that the delay at (delay_loc, delay_cnode) caused, directly (short_ticks) or through
 * propagation (long_ticks). */
typedef struct st_rc_cause {
    int32_t  metric;      /* the wait-state metric (enum st_an_metric) */
    uint32_t wait_cnode;
    uint32_t delay_loc, delay_cnode;
    double   short_ticks, long_ticks;
} st_rc_cause_t;

/* The root causes of a result, beside its metric values (which st_rc_run adds to res->sev). */
typedef struct st_rc_causes {
    size_t         n;
    st_rc_cause_t *v;        /* by (metric, wait_cnode), then short + long descending, then
                                delay_loc, delay_cnode */
    /* per wait-state (metric, cnode): how much of it propagated (caused further waiting) */
    size_t         nprop;
    struct st_rc_prop { int32_t metric; uint32_t cnode; double wait, propagating; } *prop;
    /* the critical path as it runs over the locations, end first: [t0, t1) on loc */
    size_t         npath;
    struct st_rc_hop { uint32_t loc; uint64_t t0, t1; } *path;
} st_rc_causes_t;

void st_rc_causes_free(st_rc_causes_t *c);

/* The delay-cost metric (short-term) charged for waits of wait-state metric m, -1 if none; its
 * long-term sibling is st_rc_delay_metric(m) + 1 (metrics.def declares them in that order). */
int st_rc_delay_metric(int m);

/*
 * The root-cause analysis of result res over its timeline in: adds the delay costs, the wait-state
 * classification, the critical path and its derived metrics to res->sev, and fills *causes (may be
 * NULL). 0, or -1 (out of memory; res's new metrics are then zero).
 */
int st_rc_run(st_an_result_t *res, const st_rc_input_t *in, st_rc_causes_t *causes);

#endif
