/*
 * callpath.h — a rank's call tree of application frames (SYNCTRACE_CALLPATH=1). MPI-free.
 *
 * A call path is a chain of nodes from the outermost application frame (main) down to
 * the frame that called MPI or entered an OpenMP construct. Node i is one frame: the
 * return address pc inside its function (what the caller called from) and its caller's
 * node. Nodes are numbered in creation order, so a parent precedes its children; the
 * shim builds them while recording (src/record/unwind.h), the CLI from an archive's
 * CallingContext definitions. An ENTER carries its path as a node (st_event_callpath).
 * The frames' texts are the rank's call-site texts (rankdata.h: callsites[], pc -> text),
 * one resolution for call sites and call paths.
 */
#ifndef ST_TRACE_CALLPATH_H
#define ST_TRACE_CALLPATH_H

#include <stddef.h>
#include <stdint.h>

#include "../record/event.h"

#define ST_CP_NONE UINT32_MAX

typedef struct st_cpnode {
    uint32_t parent; /* caller's node, ST_CP_NONE for an outermost frame */
    uint32_t pad;
    uint64_t pc;     /* return address in this frame (a key of the rank's callsites[]) */
} st_cpnode_t;

/* The call-path node of an ENTER, ST_CP_NONE if it has none. ENTER.bytes holds node + 1. */
static inline uint32_t st_event_callpath(const st_event_t *e)
{
    return e->kind == ST_EV_ENTER && e->bytes && e->bytes <= UINT32_MAX ? (uint32_t)(e->bytes - 1) : ST_CP_NONE;
}

static inline void st_event_set_callpath(st_event_t *e, uint32_t node)
{
    e->bytes = node == ST_CP_NONE ? 0 : (uint64_t)node + 1;
}

/*
 * Splits a call-site text ("func (file:line)", "func", "sym+0xoff (object)", "0xaddr") into the
 * function name (an offset "+0x.." dropped, so all frames of one function share it) and, when
 * the parenthesis holds "file:line" with a number, file and line (else file "" and line 0).
 * Writes NUL-terminated, truncated strings.
 */
void st_callpath_split(const char *text, char *func, size_t nfunc, char *file, size_t nfile, uint32_t *line);

#endif
