/* call_kinds.c — the call kinds and categories of the MPI regions, expanded from mpi_calls.def (call_kinds.h). */
#include "call_kinds.h"

#include "../model/region.h"

static const uint8_t kinds[ST_REGION__COUNT] = {
#define ST_MPI_CALL(id, call, category) [ST_REGION_##id] = AN_CALL_##call,
#include "mpi_calls.def"
#undef ST_MPI_CALL
};

static const uint8_t categories[ST_REGION__COUNT] = {
#define ST_MPI_CALL(id, call, category) [ST_REGION_##id] = AN_CAT_##category,
#include "mpi_calls.def"
#undef ST_MPI_CALL
};

enum an_call_kind an_call_kind(uint32_t r)
{
    return r < ST_REGION__COUNT ? (enum an_call_kind)kinds[r] : AN_CALL_NONE;
}

enum an_call_category an_call_category(uint32_t r)
{
    return r < ST_REGION__COUNT ? (enum an_call_category)categories[r] : AN_CAT_NONE;
}
