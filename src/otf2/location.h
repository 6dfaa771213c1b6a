/*
 * location.h — the OTF2 location ids of synctrace archives, one definition for the writer
 * (src/otf2) and the readers (src/cli).
 *
 * Location group id = world rank. Location id = rank + ((thread - master) << 32), where
 * master is the rank's lowest thread index: Score-P's numbering. The master's id is its
 * world rank, which readers such as ViTE fall back to when they do not resolve COMM_GROUP
 * ranks. Archives of older synctrace versions numbered rank * 65536 + thread; readers
 * accept both.
 */
#ifndef ST_OTF2_LOCATION_H
#define ST_OTF2_LOCATION_H

#include <stdint.h>

/* OTF2 location id of thread `index` of `rank` whose master (lowest) thread index is `master`. */
static inline uint64_t st_otf2_location(uint32_t rank, uint32_t index, uint32_t master)
{
    return (uint64_t)rank + ((uint64_t)(index - master) << 32);
}

/* Rank and thread of location id in the older numbering rank * 65536 + thread (rank -1 when out of range). */
static inline void st_otf2_location_split_old(uint64_t id, int32_t *rank, uint32_t *thread)
{
    uint64_t r = id / 65536u;
    *rank = r > INT32_MAX ? -1 : (int32_t)r;
    *thread = (uint32_t)(id % 65536u);
}

/*
 * Rank and thread of location id in location group `group` (= the rank in synctrace and
 * Score-P archives): rank + (thread << 32) when the low half is the group, else the older
 * numbering (st_otf2_location_split_old).
 */
static inline void st_otf2_location_split(uint64_t id, uint32_t group, int32_t *rank, uint32_t *thread)
{
    uint64_t low = id & 0xffffffffu;
    if (low == group && low <= INT32_MAX) {
        *rank = (int32_t)low;
        *thread = (uint32_t)(id >> 32);
    } else {
        st_otf2_location_split_old(id, rank, thread);
    }
}

#endif
