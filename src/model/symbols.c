/* symbols.c — call-site entries from a symbolizer's frames (see symbols.h). */
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

#include "callpath.h"

uint32_t st_callsite_from_a2l(const st_a2l_t *q, const char *obj, uint64_t pc, st_callsite_t *out)
{
    if (!q->nfr || (pc >> ST_CP_INLINE_SHIFT) != 0) { /* unnamed, or no room for inline keys above it */
        /* by its function's start where the unwind tables know it: one name for the function's call sites */
        out[0] = (st_callsite_t){ .pc = pc, .text = st_a2l_unnamed(obj, q->fn_at ? q->fn_at : q->rel) };
        return out[0].text ? 1 : 0;
    }
    uint32_t n = q->nfr <= ST_CP_INLINE_MAX + 1 ? q->nfr : ST_CP_INLINE_MAX + 1;
    for (uint32_t k = 0; k < n; k++) {
        out[k] = (st_callsite_t){ .pc = st_callpath_inline_pc(pc, k), .text = st_a2l_frame_text(&q->fr[k]) };
        if (!out[k].text) {
            while (k--)
                free(out[k].text);
            return 0;
        }
    }
    out[n - 1].fn_begin = q->fn_begin, out[n - 1].fn_end = q->fn_end;
    if (q->callee_func) {
        out[n] = (st_callsite_t){ .pc = st_callpath_inline_pc(pc, ST_CP_TAIL), .text = strdup(q->callee_func) };
        n += out[n].text != NULL;
    }
    return n;
}

int st_cpcallee_from_a2l(const st_a2l_t *q, uint64_t pc, st_cpcallee_t *c)
{
    if (!q->callee_func || (pc >> ST_CP_INLINE_SHIFT) != 0)
        return -1;
    uint64_t base = pc - 1 - q->rel; /* rel is pc - 1 from the load base (0 for an ET_EXEC object) */
    *c = (st_cpcallee_t){ .pc = pc, .lo = base + q->callee, .hi = base + q->callee + q->callee_size };
    return 0;
}
