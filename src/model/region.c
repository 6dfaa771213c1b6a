/* region.c — the static region table, expanded from regions.def and mpi_regions.def. */
#include "region.h"

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
