/*
 * analysis.h — wait-state analysis: Scalasca's metrics (docs/analysis.md) over
 * metric x call path x location, computed from a trace and its logical messages.
 *
 * Input: the trace as CLC sees it (st_rel_input_t: locations, events, communicator
 * tables) and the dependency graph built from it (relations/relations.h: the one derivation of logical
 * messages, shared with CLC and `synctrace check`). Output: st_an_result_t, a dense
 * severity cube sev[metric][cnode][location] plus the call tree and the locations: all that
 * the writers (output.h, cube.h) and the checks (check.h) read.
 *
 * Call paths: the nesting of ENTER/LEAVE regions on each location under one root,
 * merged across locations by path (cnode 0 is the root; it holds time outside regions).
 * With recorded call paths (SYNCTRACE_CALLPATH: an ENTER's application frames, callpath.h)
 * a region hangs below its frames as function regions (main -> solve -> MPI_Recv); inside an
 * enclosing region only the frames below those the two paths share are added.
 * Values are call-tree exclusive: a cnode's value does not include its children's.
 *
 * The patterns are computed per relation from the times of the events taking part
 * (patterns.h), so a parallel version can evaluate them per rank with remote times
 * supplied by an exchange; this file drives them serially over a whole trace.
 *
 * MPI-free, single-threaded per call; owns what it allocates.
 */
#ifndef ST_ANALYSIS_H
#define ST_ANALYSIS_H

#include <stdint.h>

#include "../relations/relations.h"

enum st_an_metric {
    ST_AN_M_ROOT = -1, /* parent of a top-level metric */
#define ST_AN_METRIC(id, uniq, disp, parent, unit, descr) ST_AN_M_##id,
#include "metrics.def"
#undef ST_AN_METRIC
    ST_AN__METRICS
};

typedef struct st_an_metric_def {
    const char *uniq;   /* Scalasca's unique name: "mpi_latesender" */
    const char *disp;   /* "Late Sender" */
    int         parent; /* enum st_an_metric, ST_AN_M_ROOT for a top-level metric */
    const char *unit;   /* "sec", "occ", "bytes" */
    const char *descr;
} st_an_metric_def_t;

/* Metric m's definition (m < ST_AN__METRICS). */
const st_an_metric_def_t *st_an_metric(int m);
/* The metric with unique name uniq, or -1. */
int st_an_metric_find(const char *uniq);

#define ST_AN_NO_CNODE UINT32_MAX

/* A call-tree node: the region entered under its parent (root: region UINT32_MAX). */
typedef struct st_an_cnode {
    uint32_t parent;      /* ST_AN_NO_CNODE for the root */
    uint32_t region;      /* region id (region.h) */
    uint32_t first_child; /* ST_AN_NO_CNODE if none; children in creation order */
    uint32_t next;        /* next sibling */
} st_an_cnode_t;

/* What the analysis saw but could not use; all zero for a consistent, complete trace. */
typedef struct st_an_stats {
    uint64_t unpaired;       /* LEAVEs without ENTER or ENTERs never left (incomplete traces) */
    uint64_t ls_violations;  /* receives that completed before their send started (t(s) > t(r)) */
    uint64_t coll_violations;/* collective members that ended before the reference begin (B_ref > e) */
    uint64_t coll_skipped;   /* collective instances not analysed (MPI_(I)Alltoallv/w, a member without begin/end) */
} st_an_stats_t;

/* One instance of a time metric: a wait of one call (for "worst instances"). */
#define ST_AN_TOP 10
typedef struct st_an_instance {
    double   value;  /* ticks */
    uint64_t time;   /* enter of the call that waited */
    uint32_t loc, cnode;
} st_an_instance_t;

/* A location of a result: the thread it stands for. */
typedef struct st_an_loc {
    int32_t  rank;
    uint32_t thread;
} st_an_loc_t;

/* Region ids of application functions (call-path frames): funcs[k] of the result is the name. */
#define ST_AN_FUNC_REGION(k) (0x80000000u | (uint32_t)(k))
#define ST_AN_IS_FUNC(region) ((region) != UINT32_MAX && ((region) & 0x80000000u))

typedef struct st_an_result {
    uint32_t       ncnodes;
    st_an_cnode_t *cnodes;  /* [ncnodes], cnode 0 = root; a parent precedes its children */
    uint32_t       nlocs;   /* the input's locations, same order */
    st_an_loc_t   *locs;    /* [nlocs] their rank and thread; owned */
    double        *sev;     /* [ST_AN__METRICS][ncnodes][nlocs]: "sec" metrics in timer ticks */
    uint64_t      *span;    /* [nlocs] ticks the location's Time adds up to over all call paths: its first
                               to last event; a thread of an OpenMP team: its master's (docs/analysis.md) */
    st_an_stats_t  stats;
    /* per "sec" pattern metric: its largest instances, largest first (time, visits and mpi
     * are sums over calls, not instances, and have none) */
    st_an_instance_t top[ST_AN__METRICS][ST_AN_TOP];
    uint64_t         topgid[ST_AN__METRICS][ST_AN_TOP]; /* their location's (rank << 32 | thread) */
    uint32_t         ntop[ST_AN__METRICS];
    uint32_t         nfuncs;  /* names of the function regions (ST_AN_FUNC_REGION(k)); owned */
    char           **funcs;
    struct st_an_src *src;    /* where the call paths' frames lie (source.h); NULL without call paths; owned */
    /* Root causes (rootcause.h), both owned: the timeline while it is built and merged (freed by the
     * root-cause analysis), and what that analysis found beside the metric values; NULL: none. */
    struct st_rc_input  *timeline;
    struct st_rc_causes *causes;
    double               rootcause_ms[2]; /* the root-cause analysis' wall and CPU time in this process (ms):
                                             its timeline, the parts' timelines, the replay */
} st_an_result_t;

static inline double *st_an_sev(const st_an_result_t *r, int m, uint32_t cnode, uint32_t loc)
{
    return &r->sev[((uint64_t)m * r->ncnodes + cnode) * r->nlocs + loc];
}

/* How far apart two metrics' cells of one (cnode, loc) lie: st_an_sev(r, m + 1, c, l) - st_an_sev(r, m, c, l). */
static inline uint64_t st_an_sev_metric_step(const st_an_result_t *r)
{
    return (uint64_t)r->ncnodes * r->nlocs;
}

/*
 * Analyses the trace in (events' times as they are: after CLC for a corrected archive)
 * with its graph g (st_rel_graph_build on the same in); with SYNCTRACE_ROOTCAUSE on, also
 * the root causes (rootcause.h: their metrics and res->causes) over the timeline of every
 * location (rc_build.h). Returns 0, or -1 when out of memory (res then empty). Free with
 * st_an_free().
 */
int st_an_run(const st_rel_input_t *in, const st_rel_graph_t *g, st_an_result_t *res);
void st_an_free(st_an_result_t *res);

/* Builds res->src from the call trees of procs[0..nprocs) (nothing without call paths); st_an_run
 * does it for its input, a parallel analysis at process 0 for the merged tables. 0, or -1 (memory). */
int st_an_attach_sources(st_an_result_t *res, const st_rel_proc_t *procs, int32_t nprocs);

/* Name of a region of r: an MPI/OpenMP region's, a function's; "?" if unknown. */
const char *st_an_region_name(const st_an_result_t *r, uint32_t region);
/* Keeps instance x (location gid = rank << 32 | thread) among the worst of metric m: by
 * value, then earlier time, then smaller gid, whatever the order of noting. */
void st_an_top_note(st_an_result_t *r, int m, const st_an_instance_t *x, uint64_t gid);

/* Sum of metric m over every cnode and location (for summaries and tests). */
double st_an_total(const st_an_result_t *r, int m);

#endif
