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
 * (seconds, percent of Time). */
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

#endif
