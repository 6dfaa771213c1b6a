/* handle_map.c — a table of per-handle FIFO queues over a pool of entry nodes (see handle_map.h). */
#include "handle_map.h"

#include <stdlib.h>

/*
 * Links. A node's `next`, a slot's `head` and `tail` and the map's `free` are each one 64-bit word: a tag
 * (high 32 bits) and a node index (low 32). Every write to such a word raises its tag by one (TAGGED), so
 * a compare-and-swap that expects a word read earlier fails if anything was written to it since, even if
 * the index is the same again (ABA). Two index values are marks: NIL (no next node) and DEAD (in a
 * node's next: the queue was closed when this, its last entry, was taken).
 *
 * A queue (one per slot): head is the oldest entry, tail the newest or, for a moment, the one before it;
 * the nodes from head follow their next links up to the one whose next is NIL. It is never empty: a put
 * makes a slot with its first entry; the claim that takes the last entry closes the queue instead (CAS of
 * its next NIL -> DEAD, which also makes appends to it fail), then sets head and tail to NIL, removes
 * the slot and frees the node. An append links its node after tail's (CAS NIL -> node), then moves tail;
 * a claim of one of several entries moves head to the second (CAS). Head never passes tail (a claim that
 * finds them equal with a next entry moves tail first), and a node is freed only after head or tail moved
 * off it (to the next node, or to NIL at the close); so a reader that saw head (tail) unchanged after
 * reading a node's next read a node of this queue.
 *
 * Slots. The control word holds the generation (bits 63..2) and the state (1..0); the key word holds
 * the whole handle. Only a CAS on the control word changes who owns a slot:
 *   insert: EMPTY/TOMB(g) -> BUSY(g+1) by CAS; then key, head and tail are written; then LIVE(g+1).
 *   remove: LIVE(g) -> TOMB(g), by the claim that closed the slot's queue (the only one that may).
 *   clear:  EMPTY(g), when the segment has no live slot (nobody else writes its slots then).
 * A reader loads the control word, then the key and head (or tail), then the control word again (a
 * seqlock): unchanged, they belong to that generation. Head and tail are never reset, their tags only
 * grow, so a CAS with a value of an earlier generation fails.
 */
enum { EMPTY, BUSY, LIVE, TOMB };
#define STATE(w)    ((unsigned)(w) & 3u)
#define NEXT_GEN(w) (((w) & ~3ull) + 4u)
#define CTL(w, st)  (((w) & ~3ull) | (uint64_t)(st))

#define NIL  0xFFFFFFFFu
#define DEAD 0xFFFFFFFEu
#define IDX(w) ((uint32_t)(w))
/* What a word that held w holds when index i is written to it. */
#define TAGGED(w, i) (((((uint64_t)(w)) >> 32) + 1) << 32 | (uint32_t)(i))

struct st_hmap_node {
    _Atomic uint64_t next;
    st_req_info_t    val;
};

typedef struct st_hmap_slot {
    _Atomic uint64_t ctl;  /* generation and state */
    _Atomic uint64_t key;  /* the handle; written only while the slot is BUSY */
    _Atomic uint64_t head; /* oldest entry */
    _Atomic uint64_t tail; /* newest entry, or the one before it */
} st_hmap_slot_t;

/*
 * fill: inserts since the segment was last cleared (high 32 bits) and live slots (low 32). Inserts
 * reserve both with one CAS while inserts < slots / 2, so at least half the slots are EMPTY and every probe
 * ends soon. CLEARING in the high half closes the segment while the claim that removed its last slot
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

/* ---- the pool of entry nodes ------------------------------------------------------------------ */

/* Pool segment k holds 2^(FIRST_BITS + k) nodes, indices from 2^FIRST_BITS * (2^k - 1) on. */
static inline st_hmap_node_t *node(st_hmap_t *m, uint32_t i)
{
    uint64_t n = (uint64_t)i + (1u << ST_HMAP_FIRST_BITS);
    int b = 63 - __builtin_clzll(n);
    return &atomic_load_explicit(&m->pool[b - ST_HMAP_FIRST_BITS], memory_order_acquire)[n - (1ull << b)];
}

/* A new pool segment onto the free list; -1 when all exist or no memory. A racing grower's segment
 * found installed counts as done; a thread that finds the list still empty before that grower pushed its
 * nodes adds the next segment too (more room than needed at that moment, never less). */
static int pool_grow(st_hmap_t *m)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        if (atomic_load_explicit(&m->pool[k], memory_order_acquire))
            continue;
        uint32_t count = 1u << (ST_HMAP_FIRST_BITS + k), first = (1u << ST_HMAP_FIRST_BITS) * ((1u << k) - 1);
        st_hmap_node_t *n = malloc((size_t)count * sizeof *n), *none = NULL;
        if (!n)
            return -1;
        for (uint32_t i = 0; i + 1 < count; i++)
            atomic_init(&n[i].next, first + i + 1);
        atomic_init(&n[count - 1].next, NIL);
        if (!atomic_compare_exchange_strong_explicit(&m->pool[k], &none, n, memory_order_acq_rel,
                                                     memory_order_acquire)) {
            free(n);
            return 0;
        }
        uint64_t top = atomic_load_explicit(&m->free, memory_order_relaxed);
        do
            atomic_store_explicit(&n[count - 1].next, TAGGED(0, IDX(top)), memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&m->free, &top, TAGGED(top, first), memory_order_release,
                                                      memory_order_relaxed));
        return 0;
    }
    return -1;
}

/* A free node, its next NIL; NIL when no memory. */
static uint32_t node_take(st_hmap_t *m)
{
    for (;;) {
        uint64_t top = atomic_load_explicit(&m->free, memory_order_acquire);
        if (IDX(top) == NIL) {
            if (pool_grow(m) != 0)
                return NIL;
            continue;
        }
        st_hmap_node_t *n = node(m, IDX(top));
        uint64_t next = atomic_load_explicit(&n->next, memory_order_relaxed);
        if (atomic_compare_exchange_weak_explicit(&m->free, &top, TAGGED(top, IDX(next)), memory_order_acquire,
                                                  memory_order_relaxed)) {
            atomic_store_explicit(&n->next, TAGGED(next, NIL), memory_order_release);
            return IDX(top);
        }
    }
}

static void node_give(st_hmap_t *m, uint32_t i)
{
    st_hmap_node_t *n = node(m, i);
    uint64_t top = atomic_load_explicit(&m->free, memory_order_relaxed);
    do {
        uint64_t w = atomic_load_explicit(&n->next, memory_order_relaxed);
        atomic_store_explicit(&n->next, TAGGED(w, IDX(top)), memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&m->free, &top, TAGGED(top, i), memory_order_release,
                                                    memory_order_relaxed));
}

/* ---- table segments ----------------------------------------------------------------------------- */

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
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        atomic_store_explicit(&m->seg[k], NULL, memory_order_relaxed);
        atomic_store_explicit(&m->pool[k], NULL, memory_order_relaxed);
    }
    atomic_store_explicit(&m->free, NIL, memory_order_relaxed);
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
        atomic_init(&n->slot[i].head, NIL);
        atomic_init(&n->slot[i].tail, NIL);
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

/* One live slot fewer in s; the claim that empties a closed segment clears it for reuse. */
static void release(st_hmap_seg_t *s)
{
    uint64_t old = atomic_fetch_sub_explicit(&s->fill, 1, memory_order_acq_rel), now = old - 1;
    if (LIVE(now) != 0 || USED(now) < limit(s) || USED(now) == USED(CLEARING))
        return;
    if (!atomic_compare_exchange_strong_explicit(&s->fill, &now, CLEARING, memory_order_acq_rel, memory_order_relaxed))
        return; /* an insert or another claim got there first */
    clear_slots(s);
    atomic_store_explicit(&s->fill, 0, memory_order_release);
}

/* A new slot for key with node n as its one entry, in the first segment with room; -1 if none. */
static int insert(st_hmap_t *m, uint64_t key, uint32_t n)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = segment(m, k);
        if (!s)
            return -1;
        if (!reserve(s))
            continue;
        /* Fewer than half the slots are in use, so an EMPTY or TOMB slot is reached. */
        for (uint32_t i = home(s, key);; i = (i + 1) & s->mask) {
            st_hmap_slot_t *sl = &s->slot[i];
            uint64_t cur = atomic_load_explicit(&sl->ctl, memory_order_relaxed);
            if (STATE(cur) != EMPTY && STATE(cur) != TOMB)
                continue;
            uint64_t busy = CTL(NEXT_GEN(cur), BUSY);
            if (atomic_compare_exchange_strong_explicit(&sl->ctl, &cur, busy, memory_order_acquire,
                                                        memory_order_relaxed)) {
                atomic_thread_fence(memory_order_release); /* a seqlock reader that sees what follows sees BUSY */
                atomic_store_explicit(&sl->key, key, memory_order_relaxed);
                atomic_store_explicit(&sl->head, TAGGED(atomic_load_explicit(&sl->head, memory_order_relaxed), n),
                                      memory_order_relaxed);
                atomic_store_explicit(&sl->tail, TAGGED(atomic_load_explicit(&sl->tail, memory_order_relaxed), n),
                                      memory_order_relaxed);
                atomic_store_explicit(&sl->ctl, CTL(busy, LIVE), memory_order_release);
                return 0;
            }
        }
    }
    return -1;
}

/* Whether s may have a live slot (a segment without is not probed: a big one's probe misses the cache). */
static inline int has_slots(st_hmap_seg_t *s)
{
    return LIVE(atomic_load_explicit(&s->fill, memory_order_acquire)) != 0;
}

/* ---- one slot's queue --------------------------------------------------------------------------- */

/* Slot sl held key and *w was its word `which` while its control word read *ctl before and after. */
static int read_live(st_hmap_slot_t *sl, uint64_t key, _Atomic uint64_t *which, uint64_t *ctl, uint64_t *w)
{
    *ctl = atomic_load_explicit(&sl->ctl, memory_order_acquire);
    if (STATE(*ctl) != LIVE)
        return 0;
    uint64_t k = atomic_load_explicit(&sl->key, memory_order_relaxed);
    *w = atomic_load_explicit(which, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return k == key && atomic_load_explicit(&sl->ctl, memory_order_relaxed) == *ctl;
}

/* Appends node n to sl's queue if sl is key's and open: 1; 0 otherwise. */
static int append(st_hmap_t *m, st_hmap_slot_t *sl, uint64_t key, uint32_t n)
{
    for (;;) {
        uint64_t ctl, t;
        if (!read_live(sl, key, &sl->tail, &ctl, &t) || IDX(t) == NIL)
            return 0;
        st_hmap_node_t *tn = node(m, IDX(t));
        uint64_t next = atomic_load_explicit(&tn->next, memory_order_acquire);
        if (atomic_load_explicit(&sl->tail, memory_order_acquire) != t)
            continue;
        if (IDX(next) == DEAD)
            return 0;
        if (IDX(next) != NIL) { /* tail lags: move it on, then retry */
            atomic_compare_exchange_strong_explicit(&sl->tail, &t, TAGGED(t, IDX(next)), memory_order_release,
                                                    memory_order_relaxed);
            continue;
        }
        if (atomic_compare_exchange_strong_explicit(&tn->next, &next, TAGGED(next, n), memory_order_release,
                                                    memory_order_relaxed)) {
            atomic_compare_exchange_strong_explicit(&sl->tail, &t, TAGGED(t, n), memory_order_release,
                                                    memory_order_relaxed);
            return 1;
        }
    }
}

/* After its queue was closed: head and tail NIL, so that a reader who reads them now sees no node, and one
 * who read them before sees them changed when it checks again (its node may be freed and reused next). */
static void unlink_queue(st_hmap_slot_t *sl)
{
    uint64_t w = atomic_load_explicit(&sl->head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&sl->head, &w, TAGGED(w, NIL), memory_order_acq_rel,
                                                  memory_order_relaxed))
        ;
    w = atomic_load_explicit(&sl->tail, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&sl->tail, &w, TAGGED(w, NIL), memory_order_acq_rel,
                                                  memory_order_relaxed))
        ;
}

/* Takes the oldest entry of sl's queue into *out if sl is key's and open: 1; 0 otherwise. Taking the
 * last entry closes the queue and removes the slot. */
static int take(st_hmap_t *m, st_hmap_seg_t *s, st_hmap_slot_t *sl, uint64_t key, st_req_info_t *out)
{
    for (;;) {
        uint64_t ctl, h;
        if (!read_live(sl, key, &sl->head, &ctl, &h) || IDX(h) == NIL)
            return 0;
        st_hmap_node_t *hn = node(m, IDX(h));
        uint64_t next = atomic_load_explicit(&hn->next, memory_order_acquire);
        uint64_t t = atomic_load_explicit(&sl->tail, memory_order_acquire);
        if (atomic_load_explicit(&sl->head, memory_order_acquire) != h)
            continue;
        if (IDX(next) == DEAD)
            return 0;
        if (IDX(next) == NIL) { /* the last entry: close the queue, remove the slot */
            if (!atomic_compare_exchange_strong_explicit(&hn->next, &next, TAGGED(next, DEAD), memory_order_acq_rel,
                                                         memory_order_relaxed))
                continue;
            *out = hn->val;
            unlink_queue(sl);
            atomic_store_explicit(&sl->ctl, CTL(ctl, TOMB), memory_order_release);
            release(s);
            node_give(m, IDX(h));
            return 1;
        }
        if (IDX(t) == IDX(h)) { /* tail lags behind the entry after head: move it first */
            atomic_compare_exchange_strong_explicit(&sl->tail, &t, TAGGED(t, IDX(next)), memory_order_release,
                                                    memory_order_relaxed);
            continue;
        }
        /* Copy before moving head: once head moved, another claim may free and reuse the node. */
        st_req_info_t copy = hn->val;
        if (atomic_compare_exchange_strong_explicit(&sl->head, &h, TAGGED(h, IDX(next)), memory_order_acq_rel,
                                                    memory_order_relaxed)) {
            *out = copy;
            node_give(m, IDX(h));
            return 1;
        }
    }
}

/* ---- the map ----------------------------------------------------------------------------------- */

int st_hmap_put(st_hmap_t *m, uint64_t key, const st_req_info_t *val)
{
    uint32_t n = node_take(m);
    if (n == NIL)
        return -1;
    node(m, n)->val = *val;
    /* After key's open queue, if it has one; else in a new slot. */
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        if (!has_slots(s))
            continue;
        for (uint32_t i = home(s, key), c = 0; c <= s->mask; c++, i = (i + 1) & s->mask) {
            if (STATE(atomic_load_explicit(&s->slot[i].ctl, memory_order_acquire)) == EMPTY)
                break;
            if (append(m, &s->slot[i], key, n))
                return 0;
        }
    }
    if (insert(m, key, n) == 0)
        return 0;
    node_give(m, n);
    return -1;
}

st_req_info_t *st_hmap_get(st_hmap_t *m, uint64_t key)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        if (!has_slots(s))
            continue;
        for (uint32_t i = home(s, key), c = 0; c <= s->mask; c++, i = (i + 1) & s->mask) {
            uint64_t ctl, h;
            if (read_live(&s->slot[i], key, &s->slot[i].head, &ctl, &h) && IDX(h) != NIL) {
                st_hmap_node_t *hn = node(m, IDX(h));
                if (IDX(atomic_load_explicit(&hn->next, memory_order_acquire)) != DEAD)
                    return &hn->val;
            } else if (STATE(ctl) == EMPTY)
                break;
        }
    }
    return NULL;
}

int st_hmap_claim(st_hmap_t *m, uint64_t key, st_req_info_t *out)
{
    for (int k = 0; k < ST_HMAP_SEGS; k++) {
        st_hmap_seg_t *s = atomic_load_explicit(&m->seg[k], memory_order_acquire);
        if (!s)
            break;
        if (!has_slots(s))
            continue;
        for (uint32_t i = home(s, key), c = 0; c <= s->mask; c++, i = (i + 1) & s->mask) {
            if (STATE(atomic_load_explicit(&s->slot[i].ctl, memory_order_acquire)) == EMPTY)
                break;
            if (take(m, s, &s->slot[i], key, out))
                return 1;
        }
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
        for (uint32_t i = 0; i <= s->mask; i++) {
            if (STATE(atomic_load_explicit(&s->slot[i].ctl, memory_order_acquire)) != LIVE)
                continue;
            for (uint32_t j = IDX(atomic_load_explicit(&s->slot[i].head, memory_order_acquire)); j < DEAD;) {
                uint32_t next = IDX(atomic_load_explicit(&node(m, j)->next, memory_order_acquire));
                n += next != DEAD;
                j = next;
            }
        }
    }
    return n;
}
