/* handle_map.c — segments of open addressing with linear probing and tombstones (see handle_map.h). */
#include "handle_map.h"

#include <stdlib.h>

/*
 * A slot's word: generation (bits 63..34), state (33..32), handle (31..0). Every insert into a slot makes a
 * new generation, so a claimer that read a live word, lost the slot to another claimer and an insert of the
 * same handle (a shared handle is inserted again and again) cannot take the new entry with its stale copy
 * of the old one (ABA): its CAS compares the generation too. Clearing keeps the generations.
 */
enum { EMPTY, BUSY, LIVE, TOMB };
#define STATE(w)      ((unsigned)((w) >> 32) & 3u)
#define HANDLE(w)     ((uint32_t)(w))
#define NEXT_GEN(w)   (((w) & ~0x3FFFFFFFFull) + (1ull << 34))
#define WORD(w, st, h) (((w) & ~0x3FFFFFFFFull) | ((uint64_t)(st) << 32) | (uint32_t)(h))

/*
 * fill: inserts since the segment was last cleared (high 32 bits) and entries present (low 32). Inserts
 * reserve both with one CAS while inserts < slots / 2, so at least half the slots are EMPTY and every probe
 * ends soon. CLEARING in the high half closes the segment while the claimer that removed its last entry
 * clears it.
 */
#define LIVE(f)   ((uint32_t)(f))
#define USED(f)   ((uint32_t)((f) >> 32))
#define ONE_BOTH  ((1ull << 32) | 1u)
#define CLEARING  (0xFFFFFFFFull << 32)

struct st_hmap_seg {
    uint32_t         mask; /* slots - 1 */
    _Atomic uint64_t fill;
    st_hmap_slot_t   slot[];
};

static inline uint32_t home(const st_hmap_seg_t *s, int64_t key)
{
    uint64_t h = (uint64_t)(uint32_t)key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & s->mask;
}

static inline uint32_t limit(const st_hmap_seg_t *s)
{
    return (s->mask + 1) / 2;
}

void st_hmap_init(st_hmap_t *m)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++)
        atomic_store_explicit(&m->seg[k], NULL, memory_order_relaxed);
}

static void clear_slots(st_hmap_seg_t *s)
{
    for (uint32_t i = 0; i <= s->mask; i++) {
        uint64_t w = atomic_load_explicit(&s->slot[i].key, memory_order_relaxed);
        atomic_store_explicit(&s->slot[i].key, WORD(w, EMPTY, 0), memory_order_relaxed);
    }
}

/* Segment k, allocated when missing (the loser of a race frees its copy). */
static st_hmap_seg_t *segment(st_hmap_t *m, int k)
{
    st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
    if (s)
        return s;
    uint32_t slots = 1u << (ST_HMAP_FIRST_BITS + k);
    st_hmap_seg_t *n = malloc(sizeof *n + (size_t)slots * sizeof(st_hmap_slot_t));
    if (!n)
        return NULL;
    n->mask = slots - 1;
    atomic_init(&n->fill, 0);
    for (uint32_t i = 0; i < slots; i++)
        atomic_init(&n->slot[i].key, WORD(0, EMPTY, 0));
    if (atomic_compare_exchange_strong_explicit(&m->seg[k], &s, n, memory_order_acq_rel, memory_order_acquire))
        return n;
    free(n);
    return s;
}

/* Reserves room for one insert in s; 0 if s is closed. */
static int reserve(st_hmap_seg_t *s)
{
    uint64_t f = atomic_load_explicit(&s->fill, memory_order_relaxed);
    do {
        if (USED(f) >= limit(s))
            return 0;
    } while (!atomic_compare_exchange_weak_explicit(&s->fill, &f, f + ONE_BOTH, memory_order_acquire,
                                                    memory_order_relaxed));
    return 1;
}

int st_hmap_put(st_hmap_t *m, int64_t key, const st_req_info_t *val)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = segment(m, k);
        if (!s)
            return -1;
        if (!reserve(s))
            continue;
        /* Fewer than half the slots are in use, so an EMPTY or TOMB slot is reached. */
        for (uint32_t i = home(s, key);; i = (i + 1) & s->mask) {
            uint64_t cur = atomic_load_explicit(&s->slot[i].key, memory_order_relaxed);
            if (STATE(cur) != EMPTY && STATE(cur) != TOMB)
                continue;
            /* Reserve the slot (a new generation), fill the value, then publish the handle. */
            uint64_t busy = WORD(NEXT_GEN(cur), BUSY, 0);
            if (atomic_compare_exchange_strong_explicit(&s->slot[i].key, &cur, busy, memory_order_acquire,
                                                        memory_order_relaxed)) {
                s->slot[i].val = *val;
                atomic_store_explicit(&s->slot[i].key, WORD(busy, LIVE, key), memory_order_release);
                return 0;
            }
        }
    }
    return -1;
}

static int holds(uint64_t w, int64_t key)
{
    return STATE(w) == LIVE && HANDLE(w) == (uint32_t)key;
}

static st_hmap_slot_t *find(st_hmap_seg_t *s, int64_t key)
{
    for (uint32_t i = home(s, key), n = 0; n <= s->mask; n++, i = (i + 1) & s->mask) {
        uint64_t cur = atomic_load_explicit(&s->slot[i].key, memory_order_acquire);
        if (holds(cur, key))
            return &s->slot[i];
        if (STATE(cur) == EMPTY)
            return NULL;
    }
    return NULL;
}

st_req_info_t *st_hmap_get(st_hmap_t *m, int64_t key)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        st_hmap_slot_t *hit = find(s, key);
        if (hit)
            return &hit->val;
    }
    return NULL;
}

/* One entry fewer in s; the claimer that empties a closed segment clears it for reuse. */
static void release(st_hmap_seg_t *s)
{
    uint64_t old = atomic_fetch_sub_explicit(&s->fill, 1, memory_order_acq_rel), now = old - 1;
    if (LIVE(now) != 0 || USED(now) < limit(s) || USED(now) == USED(CLEARING))
        return;
    if (!atomic_compare_exchange_strong_explicit(&s->fill, &now, CLEARING, memory_order_acq_rel, memory_order_relaxed))
        return; /* an insert or another claimer got there first */
    clear_slots(s);
    atomic_store_explicit(&s->fill, 0, memory_order_release);
}

static int claim_in(st_hmap_seg_t *s, int64_t key, st_req_info_t *out)
{
    for (uint32_t i = home(s, key), n = 0; n <= s->mask; n++, i = (i + 1) & s->mask) {
        uint64_t cur = atomic_load_explicit(&s->slot[i].key, memory_order_acquire);
        if (STATE(cur) == EMPTY)
            return 0;
        if (!holds(cur, key))
            continue;
        /* Copy before claiming: once the slot is a tombstone an insert may overwrite it (the CAS then fails). */
        st_req_info_t copy = s->slot[i].val;
        if (atomic_compare_exchange_strong_explicit(&s->slot[i].key, &cur, WORD(cur, TOMB, 0), memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            *out = copy;
            release(s);
            return 1;
        }
    }
    return 0;
}

int st_hmap_claim(st_hmap_t *m, int64_t key, st_req_info_t *out)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        if (claim_in(s, key, out))
            return 1;
    }
    return 0;
}

void st_hmap_del(st_hmap_t *m, int64_t key)
{
    st_req_info_t dummy;
    st_hmap_claim(m, key, &dummy);
}

uint64_t st_hmap_count(st_hmap_t *m)
{
    uint64_t n = 0;
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        uint64_t f = atomic_load_explicit(&s->fill, memory_order_acquire);
        n += USED(f) == USED(CLEARING) ? 0 : LIVE(f);
    }
    return n;
}
