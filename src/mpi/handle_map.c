/* handle_map.c — segments of open addressing with linear probing and tombstones (see handle_map.h). */
#include "handle_map.h"

#include <stdlib.h>

/*
 * A slot has two words. The control word holds the generation (bits 63..2) and the state (1..0); the key
 * word holds the whole handle. Only a CAS on the control word changes who owns a slot:
 *   put:   EMPTY/TOMB(g) -> BUSY(g+1) by CAS; then key and value are written; then LIVE(g+1) by a release store.
 *   claim: LIVE(g) -> TOMB(g) by CAS, which succeeds only if the slot still holds the entry that was read.
 *   clear: EMPTY(g), when the segment has no entry (nobody else writes its slots then).
 * So the key word is written only by the owner of a BUSY slot, and a generation's key never changes while
 * its control word reads LIVE(g). A reader loads the control word (acquire: it sees that generation's key
 * and value), then the key; a claimer's CAS, expecting the same LIVE(g), fails if anything happened to the
 * slot in between, so a key or value of a later generation is never taken for that one; a lookup re-reads
 * the control word after the key instead (a seqlock). Every insert makes a new generation (62 bits never
 * wrap), so a claimer that read a live entry, lost the slot to another claimer and an insert of the same
 * handle (a shared handle is inserted again and again) cannot take the new entry with its stale copy of
 * the old one (ABA). Clearing keeps the generations. No double-width CAS is needed (libatomic may lock).
 */
enum { EMPTY, BUSY, LIVE, TOMB };
#define STATE(w)     ((unsigned)(w) & 3u)
#define NEXT_GEN(w)  (((w) & ~3ull) + 4u)
#define CTL(w, st)   (((w) & ~3ull) | (uint64_t)(st))

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

/* Home slot: every bit of the key counts (pointers differ in the middle bits, their low bits are 0). */
static inline uint32_t home(const st_hmap_seg_t *s, uint64_t key)
{
    uint64_t h = key ^ (key >> 33);
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return (uint32_t)h & s->mask;
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
        uint64_t w = atomic_load_explicit(&s->slot[i].ctl, memory_order_relaxed);
        atomic_store_explicit(&s->slot[i].ctl, CTL(w, EMPTY), memory_order_relaxed);
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
    for (uint32_t i = 0; i < slots; i++) {
        atomic_init(&n->slot[i].ctl, CTL(0, EMPTY));
        atomic_init(&n->slot[i].key, 0);
    }
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

int st_hmap_put(st_hmap_t *m, uint64_t key, const st_req_info_t *val)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = segment(m, k);
        if (!s)
            return -1;
        if (!reserve(s))
            continue;
        /* Fewer than half the slots are in use, so an EMPTY or TOMB slot is reached. */
        for (uint32_t i = home(s, key);; i = (i + 1) & s->mask) {
            uint64_t cur = atomic_load_explicit(&s->slot[i].ctl, memory_order_relaxed);
            if (STATE(cur) != EMPTY && STATE(cur) != TOMB)
                continue;
            /* Own the slot (a new generation), fill key and value, then publish. */
            uint64_t busy = CTL(NEXT_GEN(cur), BUSY);
            if (atomic_compare_exchange_strong_explicit(&s->slot[i].ctl, &cur, busy, memory_order_acquire,
                                                        memory_order_relaxed)) {
                atomic_store_explicit(&s->slot[i].key, key, memory_order_relaxed);
                s->slot[i].val = *val;
                atomic_store_explicit(&s->slot[i].ctl, CTL(busy, LIVE), memory_order_release);
                return 0;
            }
        }
    }
    return -1;
}

/* Lookup only: slot i held key while its control word read LIVE(*ctl) before and after the key was read. */
static int holds_stable(st_hmap_slot_t *slot, uint64_t key, uint64_t *ctl)
{
    *ctl = atomic_load_explicit(&slot->ctl, memory_order_acquire);
    if (STATE(*ctl) != LIVE)
        return 0;
    uint64_t k = atomic_load_explicit(&slot->key, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return k == key && atomic_load_explicit(&slot->ctl, memory_order_relaxed) == *ctl;
}

static st_hmap_slot_t *find(st_hmap_seg_t *s, uint64_t key)
{
    for (uint32_t i = home(s, key), n = 0; n <= s->mask; n++, i = (i + 1) & s->mask) {
        uint64_t cur;
        if (holds_stable(&s->slot[i], key, &cur))
            return &s->slot[i];
        if (STATE(cur) == EMPTY)
            return NULL;
    }
    return NULL;
}

st_req_info_t *st_hmap_get(st_hmap_t *m, uint64_t key)
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

static int claim_in(st_hmap_seg_t *s, uint64_t key, st_req_info_t *out)
{
    for (uint32_t i = home(s, key), n = 0; n <= s->mask; n++, i = (i + 1) & s->mask) {
        uint64_t cur = atomic_load_explicit(&s->slot[i].ctl, memory_order_acquire);
        if (STATE(cur) == EMPTY)
            return 0;
        if (STATE(cur) != LIVE || atomic_load_explicit(&s->slot[i].key, memory_order_relaxed) != key)
            continue;
        /* Copy before claiming: once the slot is a tombstone an insert may overwrite it. The CAS fails unless
         * the slot is still LIVE in generation cur, i.e. the key and the copy belong to that entry. */
        st_req_info_t copy = s->slot[i].val;
        if (atomic_compare_exchange_strong_explicit(&s->slot[i].ctl, &cur, CTL(cur, TOMB), memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            *out = copy;
            release(s);
            return 1;
        }
    }
    return 0;
}

int st_hmap_claim(st_hmap_t *m, uint64_t key, st_req_info_t *out)
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

void st_hmap_del(st_hmap_t *m, uint64_t key)
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
