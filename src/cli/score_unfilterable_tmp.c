/*
 * score_unfilterable_tmp.c — a stand-in for model/region.c's st_region_unfilterable() until the
 * filter's rule lands (weak: the real one replaces it). Conservative: only MPI functions
 * that neither communicate, complete, synchronize nor manage may be filtered.
 */
#include "../analysis/call_kinds.h"
#include "../model/region.h"

#include <string.h>

const char *st_region_unfilterable(st_region_t r);

__attribute__((weak)) const char *st_region_unfilterable(st_region_t r)
{
    static const char *const sync[] = {"MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_fence", "MPI_Win_post",
                                       "MPI_Win_start", "MPI_Win_complete", "MPI_Win_wait", "MPI_Init",
                                       "MPI_Finalize", "MPI_Abort", NULL};
    const st_region_info_t *i = st_region_info(r);
    if (!i || i->paradigm != ST_PARADIGM_MPI)
        return "not an MPI call";
    if (i->otf2_role != 1 /* OTF2_REGION_ROLE_FUNCTION */ || an_call_kind(r) != AN_CALL_NONE ||
        an_call_category(r) == AN_CAT_INIT_EXIT)
        return "communication, completion, a collective or management";
    for (const char *const *s = sync; *s; s++)
        if (!strncmp(i->name, *s, strlen(*s)))
            return "synchronization";
    return NULL;
}
