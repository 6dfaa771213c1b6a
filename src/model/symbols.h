/*
 * symbols.h — call-site entries (rankdata.h: st_callsite_t, st_cpcallee_t) from what a symbolizer
 * said of a return address (util/addr2line.h). Shared by the shim's call-site resolution at
 * MPI_Finalize and `synctrace recover`.
 */
#ifndef ST_MODEL_SYMBOLS_H
#define ST_MODEL_SYMBOLS_H

#include <stdint.h>

#include "../util/addr2line.h"
#include "rankdata.h"

/*
 * The call-site entries of the code at return address pc (resolved as q, in object obj) into
 * out[0..): the innermost frame at pc, each frame it was inlined into at st_callpath_inline_pc(pc,
 * k), k = 1 .. (model/callpath.h), fn_begin/fn_end on the outermost, and the callee's name at
 * st_callpath_inline_pc(pc, ST_CP_TAIL) when known; "object+0xrel" at pc when q is empty. out must
 * have room for max(q->nfr, 1) + 1 entries; returns how many were written (0: out of memory).
 */
uint32_t st_callsite_from_a2l(const st_a2l_t *q, const char *obj, uint64_t pc, st_callsite_t *out);

/* The callee of the call at return address pc (resolved as q) in pc's address space into *c; 0, or -1 if none known. */
int st_cpcallee_from_a2l(const st_a2l_t *q, uint64_t pc, st_cpcallee_t *c);

#endif
