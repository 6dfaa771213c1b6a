/* handle_map.c — open addressing with linear probing and tombstones (see handle_map.h). */
#include "handle_map.h"

#define EMPTY INT64_MIN
#define TOMB  (INT64_MIN + 1)
#define BUSY  (INT64_MIN + 2) /* reserved by an insert that is filling the value */

static inline uint32_t slot_of(int64_t key)
{
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40) & (ST_HMAP_SLOTS - 1);
}

void st_hmap_init(st_hmap_t *m)
{
    for (uint32_t i = 0; i < ST_HMAP_SLOTS; i++)
        atomic_store_explicit(&m->slot[i].key, EMPTY, memory_order_relaxed);
}

static st_hmap_slot_t *find(st_hmap_t *m, int64_t key)
{
    uint32_t i = slot_of(key);
    for (uint32_t n = 0; n < ST_HMAP_SLOTS; n++, i = (i + 1) & (ST_HMAP_SLOTS - 1)) {
        int64_t k = atomic_load_explicit(&m->slot[i].key, memory_order_acquire);
        if (k == key)
            return &m->slot[i];
        if (k == EMPTY)
            return NULL;
    }
    return NULL;
}

int st_hmap_put(st_hmap_t *m, int64_t key, const st_req_info_t *val)
{
    uint32_t i = slot_of(key);
    for (uint32_t n = 0; n < ST_HMAP_SLOTS; n++, i = (i + 1) & (ST_HMAP_SLOTS - 1)) {
        int64_t k = atomic_load_explicit(&m->slot[i].key, memory_order_relaxed);
        if (k != EMPTY && k != TOMB)
            continue;
        /* Reserve the slot, fill the value, then publish the key. */
        if (atomic_compare_exchange_strong_explicit(&m->slot[i].key, &k, BUSY, memory_order_acquire,
                                                    memory_order_relaxed)) {
            m->slot[i].val = *val;
            atomic_store_explicit(&m->slot[i].key, key, memory_order_release);
            return 0;
        }
    }
    return -1;
}

st_req_info_t *st_hmap_get(st_hmap_t *m, int64_t key)
{
    st_hmap_slot_t *s = find(m, key);
    return s ? &s->val : NULL;
}

int st_hmap_claim(st_hmap_t *m, int64_t key, st_req_info_t *out)
{
    uint32_t i = slot_of(key);
    for (uint32_t n = 0; n < ST_HMAP_SLOTS; n++, i = (i + 1) & (ST_HMAP_SLOTS - 1)) {
        int64_t k = atomic_load_explicit(&m->slot[i].key, memory_order_acquire);
        if (k == EMPTY)
            return 0;
        if (k != key)
            continue;
        /* Copy before claiming: once the slot is a tombstone an insert may overwrite it. */
        st_req_info_t copy = m->slot[i].val;
        if (atomic_compare_exchange_strong_explicit(&m->slot[i].key, &k, TOMB, memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            *out = copy;
            return 1;
        }
    }
    return 0;
}

void st_hmap_del(st_hmap_t *m, int64_t key)
{
    st_req_info_t dummy;
    st_hmap_claim(m, key, &dummy);
}
