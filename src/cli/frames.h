/*
 * frames.h — naming the call-path frames of a raw dump (`synctrace recover`).
 *
 * A dump written on an abnormal end cannot name its frames (src/mpi/abend_frames.h): the
 * text of each call-path node's call site is "@BASE PATH", the load base of the object
 * holding it and its file. These are resolved here as the shim would at MPI_Finalize
 * (src/util/addr2line.h): "function (file:line)", else "object+0xoffset", and the tree is made
 * source-level as there (inlined and tail-called functions as frames: model/callpath.h,
 * st_callpath_inline). The call sites of the events (SYNCTRACE_CALLSITE=1) are named the same
 * way through the code mappings the dump carries as pseudo call sites ("@map START END BASE
 * PATH"), which are dropped afterwards.
 */
#ifndef ST_CLI_FRAMES_H
#define ST_CLI_FRAMES_H

#include "../model/rankdata.h"

/* Replaces rd's unresolved call-site texts, adds the events' call sites; returns how many the symbolizer named. */
size_t st_frames_resolve(st_rankdata_t *rd);

#endif
