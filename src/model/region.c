/* region.c — the static region table, expanded from regions.def and mpi_regions.def, and which
 * regions a filter may not exclude (mpi_unfilterable.def). */
#include "region.h"

#include <stddef.h>

#include <otf2/OTF2_Definitions.h>

static const st_region_info_t regions[] = {
#define ST_REGION(id, name, role, paradigm) { name, OTF2_REGION_ROLE_##role, ST_PARADIGM_##paradigm },
#include "regions.def"
#include "mpi_regions.def"
#undef ST_REGION
};

const st_region_info_t *st_region_info(st_region_t r)
{
    return r < ST_REGION__COUNT ? &regions[r] : 0;
}

/* Why the non-MPI regions are kept, by paradigm. */
static const char *unfilterable_by_paradigm(st_paradigm_t p)
{
    switch (p) {
    case ST_PARADIGM_MEASUREMENT: return "the tool's own region: its waits for the disk belong in the trace";
    case ST_PARADIGM_USER:        return "the program's root region: every other region nests in it";
    case ST_PARADIGM_OPENMP:      return "OpenMP construct: the OpenMP relations, CLC and the analysis need its events";
    case ST_PARADIGM_MPI:         break;
    }
    return NULL;
}

/* The MPI regions a filter may not exclude, and why (NULL: filterable). */
static const char *const mpi_unfilterable[ST_REGION__COUNT] = {
#define ST_UNFILTERABLE(id, why) [ST_REGION_##id] = why,
#include "mpi_unfilterable.def"
#undef ST_UNFILTERABLE
};

const char *st_region_unfilterable(st_region_t r)
{
    if (r >= ST_REGION__COUNT)
        return "not a region";
    if (regions[r].paradigm != ST_PARADIGM_MPI)
        return unfilterable_by_paradigm((st_paradigm_t)regions[r].paradigm);
    return mpi_unfilterable[r];
}
