/*
 * output.h — writing an analysis result: analysis.json (schema in docs/analysis.md) and
 * the short summary (metric tree with totals and percent of Time). Shared by
 * `synctrace analyze` and the in-run analysis (inrun_mpi.c). Single-threaded.
 */
#ifndef ST_AN_OUTPUT_H
#define ST_AN_OUTPUT_H

#include <stdio.h>

#include "analysis.h"

/* Writes r as JSON to f (its locations: r->locs), resolution the timer's ticks per second
 * ("sec" metrics are written in seconds). Returns 0, or -1 on a write error. */
int st_an_write_json(FILE *f, const st_an_result_t *r, uint64_t resolution);

/* Prints the metric tree: each metric's total over call paths and locations; seconds with
 * percent of Time for "sec" metrics, counts otherwise; metrics that are zero are left out
 * except Time. */
void st_an_print_summary(FILE *f, const st_an_result_t *r, uint64_t resolution);

/* Writes path: CUBE4 (cube.h) if it ends in .cubex, else JSON. 0, or an errno value. */
int st_an_write_file(const char *path, const st_an_result_t *r, uint64_t resolution);

/* A few lines for the end of a run: total Time and the `top` largest wait-state metrics
 * (seconds, percent of Time), each with its top cause when the root-cause analysis ran: its
 * largest wait state (call path) and that one's largest delayer. */
void st_an_print_brief(FILE *f, const st_an_result_t *r, uint64_t resolution, unsigned top);

/*
 * Prints where metric m sits: its total (and percent of Time for "sec" metrics), the top
 * call paths and locations (summed over the other dimension) and, for wait metrics, the
 * worst instances (value, enter time relative to origin, location by rank and thread, call
 * path). Returns -1 if out of memory, else 0.
 */
int st_an_print_metric(FILE *f, const st_an_result_t *r, uint64_t resolution, uint64_t origin, int m, unsigned top);

/* Prints the call path of cnode k as "A/B/C" (regions from the root's child down, names whole) to f. */
void st_an_print_cnode_path(FILE *f, const st_an_result_t *r, uint32_t k);

/*
 * Where cnode k lies in the source (r->src, source.h): for a function's cnode the file of the
 * function and the line of the call its frames made there (*line 0: called from different
 * lines); *file NULL when unknown (no call paths, an MPI/OpenMP region, unknown frames).
 */
void st_an_cnode_source(const st_an_result_t *r, uint32_t k, const char **file, uint32_t *line);

/* Name of a cnode's region ("<root>" for the root, "?" for an unknown id). */
const char *st_an_cnode_name(const st_an_result_t *r, uint32_t cnode);

/* ---- root causes (rootcause.h: r->causes) as the outputs show them ------------------------------ */

/* A wait state: the waiting of one wait-state metric at one call path (all locations), with its
 * delayers r->causes->v[cause[first .. first + n)], largest first. */
typedef struct st_an_wstate {
    int32_t  metric;
    uint32_t cnode;
    double   wait, propagating; /* ticks: the waiting the root-cause analysis saw (its propagation
                                   record, else the metric's values at the call path) and the part
                                   of it that caused further waiting */
    size_t   first, n;
} st_an_wstate_t;

typedef struct st_an_wstates {
    size_t          n;
    st_an_wstate_t *v;     /* by metric, then cnode */
    size_t         *cause; /* indices into r->causes->v, grouped by wait state */
} st_an_wstates_t;

/* The wait states of r->causes (none when r->causes is NULL): those with delayers or a propagation
 * record. 0, or -1 when out of memory (*ws then empty). Free with st_an_wstates_free(). */
int st_an_wstates(const st_an_result_t *r, st_an_wstates_t *ws);
void st_an_wstates_free(st_an_wstates_t *ws);
/* Ticks of w's waiting charged to delays in all (short- and long-term; at most w->wait): the rest had no
 * excess time of its delayer in the delay interval to charge (docs/analysis.md, "Uncharged waiting"). */
double st_an_wstate_charged(const st_an_result_t *r, const st_an_wstates_t *ws, const st_an_wstate_t *w);
/* Whether most of w's waiting is uncharged (less than half of it charged: the outputs then say so). */
static inline int st_an_wstate_mostly_uncharged(const st_an_wstate_t *w, double charged)
{
    return charged < w->wait / 2;
}

/* The critical path's origin: the run's first event in ticks (the path's end minus its length, the
 * critical_path metric over everything, which the root-cause analysis makes add up to the run's
 * first-to-last-event time); 0 without a path. JSON times of the path are seconds since then. */
uint64_t st_an_path_origin(const st_an_result_t *r);

/* "rank R" for thread 0 of a rank, else "rank R thread T", of location l into buf. */
const char *st_an_loc_label(const st_an_result_t *r, uint32_t l, char *buf, size_t size);

/*
 * `synctrace report DIR --causes`: for the `top` largest wait states ((metric, call path) by
 * waiting time; only metric m's when m >= 0) their `top` largest delayers (rank, thread, call
 * path, short-term + long-term seconds) and how much of the waiting propagated, then the
 * critical path in brief (rc_output.c). Returns -1 if out of memory, else 0.
 */
int st_an_print_causes(FILE *f, const st_an_result_t *r, uint64_t resolution, int m, unsigned top);

#endif
