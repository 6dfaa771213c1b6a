/*
 * rc_dist_pairs.c — the runs of the point-to-point keys whose ends are at two processes (rc_dist_pairs): a
 * message between ranks that two different processes hold. Its ends are at those two alone, so neither needs a
 * home: each sends the other its ends of the messages they share, once, in the keys' order (one record to every
 * other process, empty where they share none), and makes the runs of its own relations by one merge of the
 * other's list into its own, as the list arrives (kept only when it comes before this process made its own).
 * Against a home chosen by the key's hash this saves the home's hash table, the copy of every end into it, and
 * the runs sent back; beyond 2 processes most homes were neither end of the message.
 *
 * A process's list per partner and direction (it sends the messages, or receives them: a bucket) is in the keys'
 * order (key[0 .. 3], unsigned). The builder numbered the remote messages in the order its join handed them out
 * (st_rc_rel_t.group, rc_build.h's an_rc_group: channel by channel in the keys' order, the sends' before the
 * receives'), so that counting puts a process's ends in that order without comparing keys; where a number is
 * missing (the timeline of a unit test, a number that did not fit) or a bucket is not in the keys' order after
 * all, the bucket is sorted by key instead. The merge takes the keys as they come and never assumes the two
 * lists hold the same messages: a key only one of them has makes a run of that side's ends, as at a home.
 *
 * An RD_PAIRS record: u64 the messages this process sends to the partner, u64 those it receives from it, then
 * those two lists, each message as key[0 .. 3], u64 n, and its n ends here (rd_end_t, as a run holds them; a
 * message's ends by location and call).
 */
#include "rc_dist_int.h"

#include <stdlib.h>
#include <string.h>

#include "../relations/endpoints.h"
#include "../util/mem.h"

int rc_dist_pairs(rc_dist_t *d, const int32_t *owner, uint32_t nranks)
{
    free(d->owner), free(d->pin), free(d->pinlen), free(d->pjoined);
    d->owner = NULL, d->pin = NULL, d->pinlen = NULL, d->pjoined = NULL, d->nranks = 0;
    if (!nranks)
        return 0;
    if (!(d->owner = malloc(nranks * sizeof *d->owner)) || !(d->pin = calloc((size_t)d->nprocs, sizeof *d->pin)) ||
        !(d->pinlen = calloc((size_t)d->nprocs, sizeof *d->pinlen)) || !(d->pjoined = calloc((size_t)d->nprocs, 1))) {
        free(d->owner), free(d->pin), free(d->pinlen), free(d->pjoined); /* (a list that comes is then malformed) */
        d->owner = NULL, d->pin = NULL, d->pinlen = NULL, d->pjoined = NULL;
        return rd_fail(d, "out of memory");
    }
    memcpy(d->owner, owner, nranks * sizeof *d->owner);
    d->nranks = nranks;
    return 0;
}

/* Whether keys a and b are one (most neighbours in a list are: the ends of one message). */
static inline int key_same(const uint64_t *a, const uint64_t *b)
{
    return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}

/* The bucket of a key at this process (2 * the partner, + 1 when this process receives the message), or -1: not
 * a point-to-point key, or not one whose ranks two processes hold with this one among them. */
static int64_t bucket_of(const rc_dist_t *d, const uint64_t *k)
{
    if (k[0] >> 56 != ST_REL_KEY_P2P)
        return -1;
    uint64_t s = k[1] >> 32, r = k[1] & 0xffffffffu;
    if (s >= d->nranks || r >= d->nranks)
        return -1;
    int32_t os = d->owner[s], orr = d->owner[r];
    if (os < 0 || os >= d->nprocs || orr < 0 || orr >= d->nprocs || os == orr)
        return -1;
    return os == d->me ? 2 * (int64_t)orr : orr == d->me ? 2 * (int64_t)os + 1 : -1;
}

static int cmp_pref(const void *a, const void *b)
{
    return rd_key_cmp(((const rd_pref_t *)a)->key, ((const rd_pref_t *)b)->key);
}

/* The messages of bucket b (a run of one key each); 0 in *ordered when its ends are not in the keys' order. */
static size_t bucket_msgs(const rc_dist_t *d, size_t b, int *ordered)
{
    const rd_pref_t *v = d->pref;
    size_t m = 0;
    for (size_t i = d->pbase[b]; i < d->pbase[b + 1]; i++) {
        if (i > d->pbase[b] && key_same(v[i - 1].key, v[i].key))
            continue;
        m++;
        if (i > d->pbase[b] && rd_key_cmp(v[i - 1].key, v[i].key) > 0)
            *ordered = 0;
    }
    return m;
}

/* Bucket b's messages into p, as the record holds them; returns the end. */
static uint8_t *put_bucket(const rc_dist_t *d, size_t b, uint8_t *p)
{
    const rd_pref_t *v = d->pref;
    uint8_t *nat = NULL; /* the open message's count */
    uint64_t n = 0;
    for (size_t i = d->pbase[b]; i < d->pbase[b + 1]; i++) {
        if (!nat || !key_same(v[i - 1].key, v[i].key)) {
            if (nat)
                memcpy(nat, &n, sizeof n);
            memcpy(p, v[i].key, 4 * sizeof(uint64_t)), p += 4 * sizeof(uint64_t);
            nat = p, p += sizeof n, n = 0;
        }
        memcpy(p, &v[i].e, sizeof v[i].e), p += sizeof v[i].e, n++;
    }
    if (nat)
        memcpy(nat, &n, sizeof n);
    return p;
}

static int join(rc_dist_t *d, int32_t q, const uint8_t *p, size_t len);

int rd_pairs_start(rc_dist_t *d)
{
    const st_rc_input_t *in = d->in;
    size_t P = (size_t)d->nprocs, nb = 2 * P;
    if (!d->owner || P < 2) {
        d->pairs_done = 1;
        return 0;
    }
    size_t n = 0;
    uint64_t most = 0;
    int numbered = 1;
    d->pairrel = st_mem_calloc(d->nlrel ? d->nlrel : 1, sizeof *d->pairrel);
    d->pbase = calloc(nb + 1, sizeof *d->pbase);
    size_t *fill = malloc(nb * sizeof *fill), *msgs = malloc(nb * sizeof *msgs);
    if (!d->pairrel || !d->pbase || !fill || !msgs) {
        free(fill), free(msgs);
        return rd_fail(d, "out of memory");
    }
    for (uint32_t l = 0; l < in->nlocs; l++) { /* the shared keys' ends: counted per bucket, marked */
        const st_rc_loc_t *L = &in->locs[l];
        for (uint64_t x = 0; x < L->nrels; x++) {
            int64_t b = bucket_of(d, L->rels[x].key);
            if (b < 0)
                continue;
            d->pairrel[d->rbase[l] + x] = (uint32_t)b + 1;
            d->pbase[b + 1]++, n++;
            numbered &= L->rels[x].group != 0;
            most = L->rels[x].group > most ? L->rels[x].group : most;
        }
    }
    for (size_t b = 0; b < nb; b++)
        d->pbase[b + 1] += d->pbase[b];
    memcpy(fill, d->pbase, nb * sizeof *fill);
    /* in the builder's numbers' order (one per remote message, dense), by bucket: each number's ends counted and
     * its bucket noted (a message's ends are all in one), each number given its first place in its bucket, the
     * ends placed there; else (a number missing or sparse, or two buckets for one) each bucket sorted by key below */
    numbered &= most <= 4 * (uint64_t)n + 1024 && n < UINT32_MAX;
    uint32_t *at = numbered ? st_mem_calloc(most + 2, sizeof *at) : NULL, *bg = NULL;
    if (numbered && at && !(bg = st_mem_calloc(most + 2, sizeof *bg)))
        st_mem_free(at), at = NULL;
    d->pref = st_mem_malloc((n ? n : 1) * sizeof *d->pref);
    if (!d->pref || (numbered && !at)) {
        st_mem_free(at), st_mem_free(bg), free(fill), free(msgs);
        return rd_fail(d, "out of memory");
    }
    for (uint32_t l = 0; numbered && l < in->nlocs; l++)
        for (uint64_t x = 0; x < in->locs[l].nrels; x++) {
            uint32_t pb = d->pairrel[d->rbase[l] + x], g = in->locs[l].rels[x].group;
            if (!pb)
                continue;
            numbered &= !bg[g] || bg[g] == pb;
            at[g]++, bg[g] = pb;
        }
    for (uint64_t g = 1, f; numbered && g <= most; g++)
        if (at[g])
            f = fill[bg[g] - 1], fill[bg[g] - 1] += at[g], at[g] = (uint32_t)f;
    for (uint32_t l = 0; l < in->nlocs; l++) { /* the ends with their calls (a call holds its relations in a row) */
        const st_rc_loc_t *L = &in->locs[l];
        const uint32_t *pr = &d->pairrel[d->rbase[l]];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t x = L->calls[c].rel_at, e = x + L->calls[c].nrel; x < e; x++) {
                if (!pr[x])
                    continue;
                rd_pref_t r = { L->rels[x].key, { d->loc0 + l, c, L->rels[x].role, x, L->calls[c].enter } };
                d->pref[numbered ? at[L->rels[x].group]++ : fill[pr[x] - 1]++] = r;
            }
    }
    st_mem_free(at), st_mem_free(bg), free(fill);
    for (size_t b = 0; b < nb; b++) {
        int ordered = numbered;
        msgs[b] = bucket_msgs(d, b, &ordered);
        if (!ordered) { /* (where the numbers are missing or out of the keys' order) */
            d->pairs_sorted++;
            qsort(d->pref + d->pbase[b], d->pbase[b + 1] - d->pbase[b], sizeof *d->pref, cmp_pref);
            msgs[b] = bucket_msgs(d, b, &ordered);
        }
    }
    d->nends += n; /* each end gets its run from the merge */
    int rc = 0;
    for (int32_t q = 0; !rc && q < d->nprocs; q++) { /* to every other process, its list (maybe empty) */
        if (q == d->me)
            continue;
        size_t s = 2 * (size_t)q, r = s + 1;
        uint64_t m[2] = { msgs[s], msgs[r] };
        size_t len = sizeof m + (m[0] + m[1]) * 5 * sizeof(uint64_t) + (d->pbase[r + 1] - d->pbase[s]) * sizeof(rd_end_t);
        st_xchg_rec_t h = { .type = RD_PAIRS };
        uint8_t *p = st_xchg_record(&d->out, q, &h, len);
        if (!p) {
            rc = rd_fail(d, "out of memory");
            break;
        }
        memcpy(p, m, sizeof m);
        put_bucket(d, r, put_bucket(d, s, p + sizeof m));
    }
    free(msgs);
    d->pairs_ready = 1;
    for (int32_t q = 0; !rc && q < d->nprocs; q++) /* the partners' lists that came before */
        if (d->pin[q] && !d->pjoined[q])
            rc = join(d, q, d->pin[q], d->pinlen[q]);
    d->pairs_done = d->got_pairs + 1 == P;
    return rc;
}

int rd_pairs_arrived(rc_dist_t *d, int32_t from, const uint8_t *p, size_t n)
{
    if (!d->owner || d->nprocs < 2 || from == d->me || from < 0 || from >= d->nprocs || d->pin[from] ||
        d->pjoined[from])
        return -1;
    if (d->pairs_ready) /* merged at once: read where it is */
        return join(d, from, p, n);
    const uint8_t *k = rd_keep(d, p, n);
    if (!k)
        return -1;
    d->pin[from] = k, d->pinlen[from] = n;
    return 0;
}

/* Whether the n ends of a run are in their order (location, call). */
static inline int in_order(const rd_end_t *e, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (e[i].loc < e[i - 1].loc || (e[i].loc == e[i - 1].loc && e[i].call < e[i - 1].call))
            return 0;
    return 1;
}

/* The partner's list of nmsg messages at rd (read on) merged into this process's bucket b (the same messages seen
 * from here): each local message's run (its ends here and, where the partner has the key, there) written at *out
 * and added. 0, or -1 (malformed: out of the keys' order, ends that do not fit or name this process's locations;
 * memory). */
static int merge(rc_dist_t *d, size_t b, st_xchg_reader_t *rd, uint64_t nmsg, rd_end_t **out)
{
    int q_below = (int32_t)(b / 2) < d->me; /* the partner's locations come before this process's */
    uint64_t got = 0, tn = 0, tkey[4] = { 0 }; /* read once got > 0 */
    const uint8_t *te = NULL;
    int have = 0;
    const rd_pref_t *v = d->pref;
    size_t i = d->pbase[b], end = d->pbase[b + 1];
    for (;;) {
        if (!have && got < nmsg) { /* the partner's next message */
            uint64_t w[5];
            if (st_xchg_get(rd, w, sizeof w) || w[4] > (uint64_t)(rd->end - rd->p) / sizeof(rd_end_t) ||
                (got && rd_key_cmp(tkey, w) >= 0)) /* each key once, in order */
                return -1;
            memcpy(tkey, w, sizeof tkey);
            tn = w[4], te = rd->p, rd->p += tn * sizeof(rd_end_t), got++, have = 1;
            for (uint64_t m = 0; m < tn; m++) {
                uint32_t loc;
                memcpy(&loc, te + m * sizeof(rd_end_t), sizeof loc); /* (rd_end_t's first member) */
                if (loc >= d->loc0 && loc - d->loc0 < d->in->nlocs)
                    return -1;
            }
        }
        if (i == end) {
            if (!have)
                return 0;
            have = 0; /* a message the partner has and this process has not: read past */
            continue;
        }
        const uint64_t *k = v[i].key;
        int c = !have ? 1 : key_same(tkey, k) ? 0 : rd_key_cmp(tkey, k);
        if (c < 0) {
            have = 0;
            continue;
        }
        rd_end_t *run = *out;
        size_t n = 0, j = i;
        while (j < end && key_same(v[j].key, k))
            j++;
        if (c == 0 && q_below) { /* the partner's locations first: the run is in order when both halves are */
            memcpy(run, te, tn * sizeof *run);
            n = tn;
        }
        for (; i < j; i++)
            run[n++] = v[i].e;
        if (c == 0 && !q_below) {
            memcpy(run + n, te, tn * sizeof *run);
            n += tn;
        }
        have &= c != 0;
        if (!in_order(run, n))
            rd_sort_run(run, n);
        if (rd_add_run(d, run, n))
            return -1;
        *out += n;
    }
}

/* Partner q's record p[0 .. len) merged: the runs of this process's ends of the keys the two share. 0, or -1. */
static int join(rc_dist_t *d, int32_t q, const uint8_t *p, size_t len)
{
    st_xchg_reader_t rd = { p, p + len };
    uint64_t m[2];
    if (st_xchg_get(&rd, m, sizeof m))
        return rd_fail(d, "a malformed list of shared keys' ends");
    /* room for every run: this process's ends with the partner, and the partner's (at most what its record holds) */
    size_t mine = d->pbase[2 * (size_t)q + 2] - d->pbase[2 * (size_t)q];
    size_t cap = mine + (size_t)(rd.end - rd.p) / sizeof(rd_end_t) + 1;
    rd_end_t *block = st_mem_malloc(cap * sizeof *block), *at = block;
    if (!block || !rd_put(&d->kept, &block, sizeof block)) {
        st_mem_free(block);
        return rd_fail(d, "out of memory");
    }
    /* the partner's sends are this process's receives (bucket 2q + 1), its receives this one's sends */
    if (merge(d, 2 * (size_t)q + 1, &rd, m[0], &at) || merge(d, 2 * (size_t)q, &rd, m[1], &at) || rd.p != rd.end)
        return rd_fail(d, "a malformed list of shared keys' ends");
    d->pjoined[q] = 1;
    d->got_pairs++;
    d->pairs_done = d->got_pairs + 1 == (uint32_t)d->nprocs;
    return 0;
}
