/*
 * abend_frames.h — the call tree (SYNCTRACE_CALLPATH=1) in the dump of an abnormal end.
 *
 * Frames are return addresses of a process that is gone by the time `synctrace recover`
 * runs, and naming them (dladdr, a symbolizer) is not async-signal-safe. So the dump carries
 * the tree's nodes and, as the text of each node's call site, where its code lies:
 * "@BASE PATH" (load base in hex and the object file, from /proc/self/maps read in the
 * handler); recover resolves these with the symbolizer (src/cli/frames.c). The call sites of
 * SYNCTRACE_CALLSITE=1 are return addresses in the events, which the handler does not scan: for
 * them the dump carries the executable file mappings as pseudo call sites (pc ST_FRAME_MAP_PC | k,
 * text "@map START END BASE PATH", hex), which recover uses to name them and then drops. Buffers
 * are allocated beforehand; the handler side allocates nothing and takes no lock.
 */
#ifndef ST_ABEND_FRAMES_H
#define ST_ABEND_FRAMES_H

#include "../model/rankdata.h"

/* The prefix of an unresolved frame text: "@BASE PATH". */
#define ST_FRAME_UNRESOLVED '@'
/* The pc of a mapping's pseudo call site (above every user-space address). */
#define ST_FRAME_MAP_PC (1ull << 63)

/* At load, with call paths or call sites on (not in a handler): allocates the buffers. 0, or -1
 * (dumps then carry neither). */
int st_abend_frames_init(void);

/* Async-signal-safe: points kit's cpnodes and callsites at the call tree so far, its frames' objects
 * and the executable mappings. */
void st_abend_frames(st_rankdata_t *kit);

#endif
