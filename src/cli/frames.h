/*
 * frames.h — naming the call-path frames of a raw dump (`synctrace recover`).
 *
 * A dump written on an abnormal end cannot name its frames (src/mpi/abend_frames.h): the
 * text of each call-path node's call site is "@BASE PATH", the load base of the object
 * holding it and its file. These are resolved here as the shim would at MPI_Finalize
 * (src/util/addr2line.h): "function (file:line)", else "object+0xoffset".
 */
#ifndef ST_CLI_FRAMES_H
#define ST_CLI_FRAMES_H

#include "../trace/rankdata.h"

/* Replaces rd's unresolved call-site texts; returns how many were named by addr2line. */
size_t st_frames_resolve(st_rankdata_t *rd);

#endif
