/*
 * region.h — region ids and their static descriptions.
 *
 * Every region synctrace records has a compile-time id: the tool's and OpenMP's from
 * regions.def, MPI's generated from the wrapper table (mpi_regions.def). Ids are
 * identical in every process, so events can carry them without unification.
 * st_region_info() is read-only and thread-safe.
 */
#ifndef ST_REGION_H
#define ST_REGION_H

#include <stdint.h>

typedef uint32_t st_region_t;

enum st_region_id {
#define ST_REGION(id, name, role, paradigm) ST_REGION_##id,
#include "regions.def"
#include "mpi_regions.def"
#undef ST_REGION
    ST_REGION__COUNT
};

typedef enum st_paradigm {
    ST_PARADIGM_MEASUREMENT,
    ST_PARADIGM_USER,
    ST_PARADIGM_MPI,
    ST_PARADIGM_OPENMP
} st_paradigm_t;

typedef struct st_region_info {
    const char *name;
    uint8_t otf2_role;  /* OTF2_RegionRole value */
    uint8_t paradigm;   /* st_paradigm_t */
} st_region_info_t;

/* Description of region id r; NULL when r is out of range. */
const st_region_info_t *st_region_info(st_region_t r);

/*
 * Why a filter (SYNCTRACE_FILTER) may not exclude region r, in a few words ("point-to-point
 * communication: message matching and CLC need its events"); NULL when r may be filtered. Only
 * MPI regions may be: those of the wrapper table's filterable roles (generic, p2p_poll) that no
 * 'protect' line names (wrappers/mpi_functions.tbl, generated into mpi_unfilterable.def). Every
 * region of regions.def (the tool's, main, OpenMP constructs) and an out-of-range r are
 * unfilterable. The one place that says what can be filtered; read-only, thread-safe.
 */
const char *st_region_unfilterable(st_region_t r);

#endif
