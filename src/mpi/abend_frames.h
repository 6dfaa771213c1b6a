/*
 * abend_frames.h — the call tree (SYNCTRACE_CALLPATH=1) in the dump of an abnormal end.
 *
 * Frames are return addresses of a process that is gone by the time `synctrace recover`
 * runs, and naming them (dladdr, addr2line) is not async-signal-safe. So the dump carries
 * the tree's nodes and, as the text of each node's call site, where its code lies:
 * "@BASE PATH" (load base in hex and the object file, from /proc/self/maps read in the
 * handler); recover resolves these with addr2line (src/cli/cmd_recover.c). Buffers are
 * allocated beforehand; the handler side allocates nothing and takes no lock.
 */
#ifndef ST_ABEND_FRAMES_H
#define ST_ABEND_FRAMES_H

#include "../trace/rankdata.h"

/* The prefix of an unresolved frame text: "@BASE PATH". */
#define ST_FRAME_UNRESOLVED '@'

/* At load, with call paths on (not in a handler): allocates the buffers. 0, or -1 (dumps then carry no call tree). */
int st_abend_frames_init(void);

/* Async-signal-safe: points kit's cpnodes and callsites at the call tree so far and its frames' objects. */
void st_abend_frames(st_rankdata_t *kit);

#endif
