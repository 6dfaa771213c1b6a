/*
 * cube.h — an analysis result as a CUBE4 report (.cubex), the format Scalasca's Cube
 * reads (docs/analysis.md, "analysis.cubex"): a ustar archive of anchor.xml (metric tree, regions, call tree,
 * system tree) and, per metric, <id>.index (sparse: the call-tree rows stored) and
 * <id>.data (per stored row, one value per location, little-endian).
 *
 * Layout decisions: every metric is EXCLUSIVE in the call tree (rows are cnodes in DFS
 * preorder, so a row's position is its cnode id); values along the metric tree are
 * exclusive too, as Cube adds a collapsed metric's children: each metric stores its whole
 * amount minus its children's (MPI = time in MPI calls not in a wait-state child; Time =
 * time outside MPI). "sec" metrics are FLOAT (double, seconds), counts UINT64.
 * One system-tree root ("machine") with one location group per rank, one location per
 * thread. No CubePL, no derived metrics. Single-threaded.
 */
#ifndef ST_AN_CUBE_H
#define ST_AN_CUBE_H

#include <stdio.h>

#include "analysis.h"

/* Writes the report to f (left open: the caller closes it and learns of a write error then). Returns 0, or
 * -1 (out of memory, or a write that failed; errno set). */
int st_an_write_cube(FILE *f, const st_an_result_t *r, uint64_t resolution);

#endif
