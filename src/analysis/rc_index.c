/*
 * rc_index.c — the relations of a root-cause timeline by key (rc_replay.h): where the other ends of a
 * waiting call's relations are (its delayer) and whether a call of one location shares a relation
 * with an earlier call of another (the start of a delay interval). Built once per replay.
 */
#include "rc_replay.h"

#include <stdlib.h>
#include <string.h>

/* Ends with more than this many members keep their best ends per class (collectives); smaller
 * runs (messages) are scanned. */
#define RC_SMALL_RUN 8

static int cmp_end(const void *a, const void *b)
{
    const rc_end_t *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    return x->role < y->role ? -1 : x->role > y->role;
}

static uint64_t key_hash(const uint64_t k[4])
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 4; i++) {
        h ^= k[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return h;
}

static int same_key(const uint64_t a[4], const uint64_t b[4])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* Whether an end of role bits `role` belongs to class cls. */
static int in_class(uint32_t role, int cls)
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

int rc_later(const st_rc_input_t *in, rc_at_t a, rc_at_t b)
{
    if (b.loc == RC_NONE)
        return 1;
    uint64_t ea = in->locs[a.loc].calls[a.call].enter, eb = in->locs[b.loc].calls[b.call].enter;
    if (ea != eb)
        return ea > eb;
    if (a.loc != b.loc)
        return a.loc < b.loc;
    return a.call < b.call;
}

/* The best end of class cls in e[0..n) (best[0]) and the best on another location than best[0]'s (best[1]). */
static void best_two(const st_rc_input_t *in, const rc_end_t *e, size_t n, int cls, rc_at_t best[2])
{
    best[0] = best[1] = (rc_at_t){ RC_NONE, 0 };
    for (size_t i = 0; i < n; i++) {
        if (!in_class(e[i].role, cls))
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

int rc_index_build(rc_index_t *ix, const st_rc_input_t *in)
{
    memset(ix, 0, sizeof *ix);
    size_t n = 0;
    for (uint32_t l = 0; l < in->nlocs; l++)
        for (uint32_t c = 0; c < in->locs[l].ncalls; c++)
            n += in->locs[l].calls[c].nrel;
    ix->ends = malloc((n ? n : 1) * sizeof *ix->ends);
    if (!ix->ends)
        return -1;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t r = 0; r < L->calls[c].nrel; r++) {
                const st_rc_rel_t *R = &L->rels[L->calls[c].rel_at + r];
                rc_end_t *e = &ix->ends[ix->nends++];
                memcpy(e->key, R->key, sizeof e->key);
                e->loc = l, e->call = c, e->role = R->role;
            }
    }
    qsort(ix->ends, ix->nends, sizeof *ix->ends, cmp_end);

    size_t nkeys = 0, nbig = 0;
    for (size_t i = 0, j; i < ix->nends; i = j) {
        for (j = i + 1; j < ix->nends && same_key(ix->ends[j].key, ix->ends[i].key); j++)
            ;
        nkeys++;
        nbig += j - i > RC_SMALL_RUN;
    }
    size_t nslots = 16;
    while (nslots < 2 * nkeys)
        nslots *= 2;
    ix->slot = malloc(nslots * sizeof *ix->slot);
    ix->best = malloc((nbig ? nbig : 1) * RC__CLASSES * 2 * sizeof *ix->best);
    if (!ix->slot || !ix->best) {
        rc_index_free(ix);
        return -1;
    }
    ix->mask = nslots - 1;
    for (size_t s = 0; s < nslots; s++)
        ix->slot[s] = (rc_slot_t){ UINT64_MAX, 0, RC_NONE };
    for (size_t i = 0, j; i < ix->nends; i = j) {
        for (j = i + 1; j < ix->nends && same_key(ix->ends[j].key, ix->ends[i].key); j++)
            ;
        size_t s = key_hash(ix->ends[i].key) & ix->mask;
        while (ix->slot[s].start != UINT64_MAX)
            s = (s + 1) & ix->mask;
        ix->slot[s] = (rc_slot_t){ i, (uint32_t)(j - i), RC_NONE };
        if (j - i > RC_SMALL_RUN) {
            ix->slot[s].best = (uint32_t)ix->nbest;
            for (int cls = 0; cls < RC__CLASSES; cls++)
                best_two(in, &ix->ends[i], j - i, cls, &ix->best[(ix->nbest * RC__CLASSES + (size_t)cls) * 2]);
            ix->nbest++;
        }
    }
    return 0;
}

void rc_index_free(rc_index_t *ix)
{
    free(ix->ends), free(ix->slot), free(ix->best);
    memset(ix, 0, sizeof *ix);
}

const rc_end_t *rc_index_find(const rc_index_t *ix, const uint64_t key[4], size_t *n, const rc_slot_t **slot)
{
    *n = 0;
    if (!ix->slot)
        return NULL;
    for (size_t s = key_hash(key) & ix->mask; ix->slot[s].start != UINT64_MAX; s = (s + 1) & ix->mask) {
        const rc_end_t *e = &ix->ends[ix->slot[s].start];
        if (same_key(e->key, key)) {
            *n = ix->slot[s].n;
            if (slot)
                *slot = &ix->slot[s];
            return e;
        }
    }
    return NULL;
}

rc_at_t rc_index_best(const rc_index_t *ix, const st_rc_input_t *in, const rc_end_t *e, size_t n, const rc_slot_t *s,
                      int cls, uint32_t not_loc)
{
    rc_at_t two[2];
    if (s && s->best != RC_NONE)
        memcpy(two, &ix->best[((size_t)s->best * RC__CLASSES + (size_t)cls) * 2], sizeof two);
    else
        best_two(in, e, n, cls, two);
    return two[0].loc != not_loc ? two[0] : two[1].loc != not_loc ? two[1] : (rc_at_t){ RC_NONE, 0 };
}
