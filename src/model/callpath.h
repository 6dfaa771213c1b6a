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
 *
 * Paths are source-level: code inlined into a function is the inlined function's frame below
 * the frames of the functions it was inlined into (innermost last). The stack has one frame
 * for all of them, one return address pc; resolving it (src/util/addr2line.h) gives the
 * innermost function the text at pc and the k-th function out from it the text at
 * st_callpath_inline_pc(pc, k), and st_callpath_inline() then makes each of those a node.
 */
#ifndef ST_TRACE_CALLPATH_H
#define ST_TRACE_CALLPATH_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define ST_CP_NONE UINT32_MAX

/* Call-site keys of inlined frames: k in 1 .. ST_CP_INLINE_MAX above a code address (< 2^52);
 * k = ST_CP_TAIL: the function the frame's call went to (a callee whose frame a tail call replaced). */
#define ST_CP_INLINE_SHIFT 52
#define ST_CP_INLINE_MAX   1022u
#define ST_CP_TAIL         1023u

/*
 * The pc of a node above the outermost application frame of a path whose frame libc's start
 * routine called (the capture's stack ended there in _start): that frame runs in main, or main
 * tail-called its function and main's frame is gone. No return address is 0: the key is the
 * callee of a call from nowhere. st_callpath_inline() makes it the node main above a frame not
 * in main and leaves it out above main's own.
 */
#define ST_CP_MAIN ((uint64_t)ST_CP_TAIL << ST_CP_INLINE_SHIFT)

/* The call at return address pc goes directly to the function whose code is [lo, hi). */
typedef struct st_cpcallee {
    uint64_t pc, lo, hi;
} st_cpcallee_t;

struct st_rankdata;

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

/* The key of the text of the k-th function out from the innermost one at code address pc (k = 0: pc). */
static inline uint64_t st_callpath_inline_pc(uint64_t pc, uint32_t k)
{
    return pc | (uint64_t)k << ST_CP_INLINE_SHIFT;
}

/*
 * Makes the call tree source-level: node i whose pc has texts at st_callpath_inline_pc(pc, k),
 * k = 1 .. m, becomes m + 1 nodes (the outermost function's first, node pc last), parents first
 * as before; frames of bodies the compiler outlined from OpenMP constructs (.omp_outlined.,
 * f._omp_fn.N: the construct's region stands for them) are left out, their children hang from
 * their parent. Tail calls: where node X's call went directly to a function (callees[0..n),
 * sorted here by pc) that is not the one its child runs in (by address, or by name for a part split
 * off from the function), or X is the innermost frame of an ENTER,
 * that function tail-called and its frame is gone; a node of it (text at
 * st_callpath_inline_pc(X's pc, ST_CP_TAIL)) is put below X. A node ST_CP_MAIN becomes the node
 * main (its text is set to "main") above a child whose outermost function is a named one other
 * than main, and is left out above main's frames and unnamed ones. The ENTERs of rd name the new nodes
 * (ST_CP_NONE when every frame was left out). Sorts rd->callsites by pc. Call once, after the
 * frames' texts are in rd->callsites. 0, or -1 when out of memory (rd unchanged).
 */
int st_callpath_inline(struct st_rankdata *rd, st_cpcallee_t *callees, size_t n);

/*
 * Splits a call-site text ("func (file:line)", "func", "sym+0xoff (object)", "object+0xoff",
 * "0xaddr") into the function name and, when the parenthesis holds "file:line" with a number,
 * file and line (else file "" and line 0). The parenthesis is the one that closes the text
 * (names hold parentheses: "f(std::function<void (int)>) (a.cc:3)"); a symbol's offset before it
 * is dropped ("sym+0xoff (object)": all frames of one function share the name), an object's
 * without one kept ("libfoo.so+0x1234": the symbolizer did not know the function). Writes
 * NUL-terminated strings, truncated to nfunc/nfile: buffers of strlen(text) + 1 bytes hold them whole.
 */
void st_callpath_split(const char *text, char *func, size_t nfunc, char *file, size_t nfile, uint32_t *line);

#endif
