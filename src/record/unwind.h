/*
 * unwind.h — the application's stack at an MPI call or OpenMP construct (libunwind).
 *
 * Frames of synctrace and the MPI libraries ("tool" objects) are never application
 * frames; for call paths the OpenMP runtime, the C library and the dynamic loader are
 * skipped too, wherever they sit in the stack (GOMP_parallel between main and an outlined
 * region, __libc_start_main below main). The main thread's paths get the node ST_CP_MAIN
 * (callpath.h) above their outermost frame when libc's start routine called it: main's frame,
 * or what main tail-called (naming makes main of it then).
 *
 * st_unwind_callsite() (SYNCTRACE_CALLSITE=1) returns the first return address outside
 * the tool objects. st_callpath_capture() (SYNCTRACE_CALLPATH=1) maps the stack's
 * application frames to a node of the process's call tree (model/callpath.h) through a
 * cache keyed by the return addresses: a path seen before is found without a lock and
 * without allocation (an unwind, a hash and a compare along the path); a new path takes
 * a mutex to add its missing nodes, which live in static arrays (no allocation at all).
 * When the arrays are full, new paths are recorded as "none" and counted. Both are
 * thread-safe and may be called before MPI_Init.
 */
#ifndef ST_UNWIND_H
#define ST_UNWIND_H

#include <stdint.h>

#include "../model/callpath.h"
#include "../model/rankdata.h"

/* Most stack frames kept per path: a deeper stack keeps its innermost ST_CALLPATH_DEPTH - ST_CALLPATH_ROOT
 * frames and its outermost ST_CALLPATH_ROOT (main and what it called: a path starts at the program's
 * root), the frames between are left out. */
#define ST_CALLPATH_DEPTH 128
#define ST_CALLPATH_ROOT  16

/* Nodes of the call tree at most (paths needing more are recorded as "none" and counted). */
#define ST_CALLPATH_MAX_NODES (1u << 16)

/* SYNCTRACE_CALLPATH: set once at start-up by whoever reads the configuration. */
extern __attribute__((visibility("hidden"))) int st_callpath_on; /* hidden as defined: a direct load */

/* The return address of the first frame outside synctrace and the MPI libraries, 0 if none. */
uint64_t st_unwind_callsite(void);

/* The calling thread's application call path as a node, ST_CP_NONE if it has no application frame. */
uint32_t st_callpath_capture(void);

/*
 * The call tree so far: nodes [0, *n) (a parent precedes its children), complete and never changed
 * again. No lock, no allocation: async-signal-safe (the dump of an abnormal end).
 */
const st_cpnode_t *st_callpath_nodes(uint32_t *n);

/* The return address of node n (the innermost application frame of its path). */
uint64_t st_callpath_pc(uint32_t n);

/*
 * Copies the call tree into rd->cpnodes / ncpnodes (malloc'd) and adds the property
 * CALLPATH_NODES (and CALLPATH_DROPPED when paths were lost). Call once recording has
 * stopped. 0, or -1 when out of memory (rd then has no call paths). Not async-signal-safe.
 */
int st_callpath_collect(st_rankdata_t *rd);

#endif
