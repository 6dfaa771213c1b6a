/*
 * callsite.h — where the application called MPI.
 *
 * st_mpi_callsite() (SYNCTRACE_CALLSITE=1) walks the stack with libunwind (record/unwind.h)
 * and returns the return address of the first frame outside synctrace and the MPI libraries,
 * so a Fortran call through MPICH's Fortran bindings is attributed to the Fortran code.
 * st_callsite_resolve() turns the distinct addresses into text at finalize, as `synctrace
 * recover` does for a dump (src/cli/frames.c): "function (file:line)" where debug info exists,
 * "function" where only the symbol table names it (src/util/addr2line.h), else
 * "object+0xoffset"; code inlined there gives the frames of the functions it was inlined into
 * too, which become call-path nodes of their own (model/callpath.h: st_callpath_inline).
 */
#ifndef ST_CALLSITE_H
#define ST_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include "../model/rankdata.h"

/* Fills rd->callsites for every distinct non-zero ENTER.aux in rd's events and every call-path
 * node's pc (rd->cpnodes), then makes inlined frames nodes (st_callpath_inline). Not async-signal-safe. */
void st_callsite_resolve(st_rankdata_t *rd);

#endif
