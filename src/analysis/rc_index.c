/*
 * rc_index.c — the relations of a root-cause timeline by key (rc_replay.h): where the other ends of a
 * waiting call's relations are (its delayer) and whether a call of one location shares a relation
 * with an earlier call of another (the start of a delay interval). Built once per replay, without a
 * sort: one pass numbers the keys through a hash on their words and counts their ends, another places
 * each key's ends in the order of the locations and their calls; afterwards a relation's run is found
 * by its index, without hashing.
 */
#include "rc_replay.h"

#include "../util/mem.h"
#include "../util/u64map.h"

#include <stdlib.h>
#include <string.h>

/* Ends with more than this many members keep their best ends per class (collectives); smaller
 * runs (messages) are scanned. */
#define RC_SMALL_RUN 8

static uint64_t key_hash(const uint64_t k[4])
{
    return st_u64_mix(k[0] ^ st_u64_mix(k[1] ^ st_u64_mix(k[2] ^ st_u64_mix(k[3] + 0x9e3779b97f4a7c15ull))));
}

static int same_key(const uint64_t a[4], const uint64_t b[4])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

int rc_in_class(uint32_t role, int cls)
{
    switch (cls) {
    case RC_SENDS:         return (role & ST_RC_SENDS) != 0;
    case RC_SENDS_ROOT:    return (role & ST_RC_SENDS) && (role & ST_RC_ROOT);
    case RC_SENDS_NONROOT: return (role & ST_RC_SENDS) && !(role & ST_RC_ROOT);
    case RC_POSTS:         return (role & ST_RC_POSTS) != 0;
    case RC_RECEIVES:      return (role & ST_RC_RECEIVES) != 0;
    default:               return 0;
    }
}

int rc_later_at(uint64_t ea, rc_at_t a, uint64_t eb, rc_at_t b)
{
    if (b.loc == RC_NONE)
        return 1;
    if (ea != eb)
        return ea > eb;
    if (a.loc != b.loc)
        return a.loc < b.loc;
    return a.call < b.call;
}

int rc_later(const st_rc_input_t *in, rc_at_t a, rc_at_t b)
{
    if (b.loc == RC_NONE)
        return 1;
    return rc_later_at(in->locs[a.loc].calls[a.call].enter, a, in->locs[b.loc].calls[b.call].enter, b);
}

/* The best end of class cls in e[0..n) (best[0]) and the best on another location than best[0]'s (best[1]). */
static void best_two(const st_rc_input_t *in, const rc_end_t *e, size_t n, int cls, rc_at_t best[2])
{
    best[0] = best[1] = (rc_at_t){ RC_NONE, 0 };
    for (size_t i = 0; i < n; i++) {
        if (!rc_in_class(e[i].role, cls))
            continue;
        rc_at_t a = { e[i].loc, e[i].call };
        if (rc_later(in, a, best[0])) {
            if (best[0].loc != a.loc)
                best[1] = best[0];
            best[0] = a;
        } else if (a.loc != best[0].loc && rc_later(in, a, best[1]))
            best[1] = a;
    }
}

/* The key numbering's hash (while the index is built): slots of (hash, 1 + key id), id 0: empty. */
typedef struct khash {
    struct kslot { uint32_t h, id; } *slot; /* h: the hash's high half */
    size_t mask;
    const uint64_t **key; /* [cap] each key's words (in the timeline) */
    size_t cap;
} khash_t;

/* The slot of key with hash h (empty if absent). */
static size_t slot_of(const khash_t *t, const uint64_t key[4], uint64_t h)
{
    size_t s = h & t->mask;
    while (t->slot[s].id && (t->slot[s].h != (uint32_t)(h >> 32) || !same_key(t->key[t->slot[s].id - 1], key)))
        s = (s + 1) & t->mask;
    return s;
}

/* Slots for n keys at most half full, the keys' words and numbers for n keys: never grown. 0, or -1. */
static int khash_alloc(khash_t *t, rc_index_t *ix, size_t n)
{
    size_t slots = 1024;
    while (slots < 2 * n)
        slots *= 2;
    t->slot = st_mem_calloc(slots, sizeof *t->slot);
    t->key = st_mem_malloc((n ? n : 1) * sizeof *t->key);
    ix->keys = st_mem_malloc((n ? n : 1) * sizeof *ix->keys);
    t->mask = slots - 1, t->cap = n;
    return t->slot && t->key && ix->keys ? 0 : -1;
}

/* Numbers every relation's key into ix->rkey and counts each key's ends (t: for ix->nends keys). */
#define PREFETCH 8 /* relations ahead whose slot is asked for */
static void number_keys(rc_index_t *ix, const st_rc_input_t *in, khash_t *t)
{
    uint64_t hs[PREFETCH]; /* the hashes of the next relations (the slots are far apart) */
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint64_t r = 0; r < L->nrels && r < PREFETCH; r++)
            hs[r] = key_hash(L->rels[r].key), __builtin_prefetch(&t->slot[hs[r] & t->mask]);
        for (uint64_t r = 0; r < L->nrels; r++) {
            const uint64_t *key = L->rels[r].key;
            uint64_t h = hs[r % PREFETCH];
            if (r + PREFETCH < L->nrels) {
                hs[r % PREFETCH] = key_hash(L->rels[r + PREFETCH].key);
                __builtin_prefetch(&t->slot[hs[r % PREFETCH] & t->mask]);
            }
            size_t s = slot_of(t, key, h);
            if (!t->slot[s].id) {
                t->slot[s] = (struct kslot){ (uint32_t)(h >> 32), (uint32_t)++ix->nkeys };
                t->key[ix->nkeys - 1] = key;
                ix->keys[ix->nkeys - 1] = (rc_key_t){ 0, 0, RC_NONE };
            }
            ix->rkey[ix->rbase[l] + r] = t->slot[s].id - 1;
            ix->keys[t->slot[s].id - 1].n++;
        }
    }
}

int rc_index_build(rc_index_t *ix, const st_rc_input_t *in)
{
    memset(ix, 0, sizeof *ix);
    ix->rbase = st_mem_malloc((in->nlocs ? in->nlocs : 1) * sizeof *ix->rbase);
    if (!ix->rbase)
        return -1;
    for (uint32_t l = 0; l < in->nlocs; l++)
        ix->rbase[l] = ix->nends, ix->nends += in->locs[l].nrels;
    khash_t t = { 0 };
    ix->rkey = st_mem_malloc((ix->nends ? ix->nends : 1) * sizeof *ix->rkey);
    int rc = ix->rkey && ix->nends < UINT32_MAX && !khash_alloc(&t, ix, ix->nends) ? 0 : -1;
    if (!rc)
        number_keys(ix, in, &t);
    st_mem_free(t.slot), st_mem_free(t.key);
    size_t nbig = 0, at = 0; /* the runs in the order of the keys */
    for (size_t k = 0; !rc && k < ix->nkeys; k++) {
        ix->keys[k].start = at;
        at += ix->keys[k].n;
        ix->keys[k].best = ix->keys[k].n > RC_SMALL_RUN ? (uint32_t)nbig++ : RC_NONE;
        ix->keys[k].n = 0;
    }
    ix->ends = rc ? NULL : st_mem_malloc((ix->nends ? ix->nends : 1) * sizeof *ix->ends);
    ix->best = rc ? NULL : st_mem_malloc((nbig ? nbig : 1) * RC__CLASSES * 2 * sizeof *ix->best);
    if (!ix->ends || !ix->best) {
        rc_index_free(ix);
        return -1;
    }
    /* each key's run in the order of the locations and their calls (a relation of no call is no end) */
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t r = 0; r < L->calls[c].nrel; r++) {
                rc_key_t *K = &ix->keys[ix->rkey[ix->rbase[l] + L->calls[c].rel_at + r]];
                ix->ends[K->start + K->n++] = (rc_end_t){ l, c, L->rels[L->calls[c].rel_at + r].role };
            }
    }
    for (size_t k = 0; k < ix->nkeys; k++)
        if (ix->keys[k].best != RC_NONE)
            for (int cls = 0; cls < RC__CLASSES; cls++)
                best_two(in, &ix->ends[ix->keys[k].start], ix->keys[k].n, cls,
                         &ix->best[((size_t)ix->keys[k].best * RC__CLASSES + (size_t)cls) * 2]);
    ix->nbest = nbig;
    return 0;
}

void rc_index_free(rc_index_t *ix)
{
    st_mem_free(ix->ends), st_mem_free(ix->keys), st_mem_free(ix->rkey), st_mem_free(ix->rbase), st_mem_free(ix->best);
    memset(ix, 0, sizeof *ix);
}

const rc_end_t *rc_index_run(const rc_index_t *ix, uint32_t loc, uint64_t rel, size_t *n, const rc_key_t **key)
{
    const rc_key_t *K = &ix->keys[ix->rkey[ix->rbase[loc] + rel]];
    *n = K->n;
    if (key)
        *key = K;
    return &ix->ends[K->start];
}

rc_at_t rc_index_best(const rc_index_t *ix, const st_rc_input_t *in, const rc_end_t *e, size_t n, const rc_key_t *k,
                      int cls, uint32_t not_loc)
{
    rc_at_t two[2];
    if (k && k->best != RC_NONE)
        memcpy(two, &ix->best[((size_t)k->best * RC__CLASSES + (size_t)cls) * 2], sizeof two);
    else
        best_two(in, e, n, cls, two);
    return two[0].loc != not_loc ? two[0] : two[1].loc != not_loc ? two[1] : (rc_at_t){ RC_NONE, 0 };
}
