/*
 * rc_dist.c — the distributed root-cause replay's engine (rc_dist.h): its life, the messages it reads,
 * and the steps before the dataflow: the relation ends to their keys' homes and the runs back, the
 * run's facts, each local wait's delayer and the announcements to the delayers' owners.
 */
#include "rc_dist_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "../util/mem.h"
#include "../util/msort.h"
#include "../util/u64map.h"

void rd_spent(rc_dist_t *d, int step, const an_stamp_t *since)
{
    an_stamp_add(&d->spent[step], since);
}

int32_t rd_owner(const rc_dist_t *d, uint32_t loc)
{
    int32_t lo = 0, hi = d->nprocs - 1; /* the last process whose first location is <= loc */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (d->ploc0[mid] <= loc)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

uint8_t *rd_put(rd_bytes_t *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *p = st_mem_realloc(b->p, cap);
        if (!p)
            return NULL;
        b->p = p, b->cap = cap;
    }
    uint8_t *at = b->p + b->n;
    if (src)
        memcpy(at, src, n);
    b->n += n;
    return at;
}

int rd_fail(rc_dist_t *d, const char *what)
{
    if (!d->failed)
        st_log_error("root causes (parallel, process %d): %s", (int)d->me, what);
    d->failed = 1;
    return -1;
}

static int deliver_rec(rc_dist_t *d, int32_t from, uint8_t type, const uint8_t *p, size_t n);

int rd_send(rc_dist_t *d, int32_t to, uint8_t type, const void *p, size_t n)
{
    if (to == d->me) /* read here at once: no copy into the exchange's record, no message to itself */
        return deliver_rec(d, to, type, p, n) ? rd_fail(d, "a malformed record of its own") : 0;
    st_xchg_rec_t h = { .type = type };
    uint8_t *at = st_xchg_record(&d->out, to, &h, n);
    if (!at)
        return rd_fail(d, "out of memory");
    if (n)
        memcpy(at, p, n);
    return 0;
}

/* A key's hash: its words weighed by odd constants (independent multiplies), then one mix, instead of four
 * mixes in a chain; every end of the relations is hashed once at its process and once at its home. */
static uint64_t key_hash(const uint64_t k[4])
{
    return st_u64_mix(k[0] * 0x9e3779b97f4a7c15ull ^ k[1] * 0xc2b2ae3d27d4eb4full ^ k[2] * 0x165667b19e3779f9ull ^
                      (k[3] + 0x27d4eb2f165667c5ull) * 0xff51afd7ed558ccdull);
}

/* A key's slot in a home's table of cap (a power of two) slots: other bits of the hash than the low ones, which
 * chose the home (the keys of a home of 2 processes share the lowest bit). */
static size_t slot_of(const uint64_t k[4], size_t cap) { return (size_t)(key_hash(k) >> 24) & (cap - 1); }

/* Whether key k is an OpenMP key (every end of one is at the process that holds its team's rank). */
static inline int omp_key(const uint64_t k[4])
{
    unsigned t = (unsigned)(k[0] >> 56);
    return t >= ST_REL_KEY_OMP_FORK && t < ST_REL_KEY_TYPES;
}

/* The home of a key: this process for an OpenMP key when they are kept where they are (rc_dist_keep_omp; then
 * *kept = 1), else the one its hash chooses. */
static inline int32_t home_of(const rc_dist_t *d, const uint64_t k[4], int *kept)
{
    *kept = d->omp_local && omp_key(k);
    return *kept ? d->me : (int32_t)(key_hash(k) % (uint64_t)d->nprocs);
}

void rc_dist_keep_omp(rc_dist_t *d) { d->omp_local = 1; }

/* ---- life ------------------------------------------------------------------------------------------- */

int rc_dist_new(st_an_result_t *res, const st_rc_input_t *in, const uint32_t *ploc0, int32_t me, int32_t nprocs,
                const st_xchg_net_t *net, rc_dist_t **out)
{
    *out = NULL;
    rc_dist_t *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->res = res, d->in = in, d->ploc0 = ploc0, d->me = me, d->nprocs = nprocs;
    d->loc0 = ploc0[me], d->nall = ploc0[nprocs];
    uint32_t nl = in->nlocs;
    int rc = st_xchg_out_init(&d->out, net, nprocs) || rc_acc_init(&d->aw, res->ncnodes) ||
             rc_acc_init(&d->ad, res->ncnodes);
    d->rbase = calloc(nl + 1, sizeof *d->rbase);
    d->wbase = calloc(nl + 1, sizeof *d->wbase);
    d->inc = calloc(nl + 1, sizeof *d->inc);
    d->ninc = calloc(nl + 1, sizeof *d->ninc), d->cinc = calloc(nl + 1, sizeof *d->cinc);
    rc = rc || !d->rbase || !d->wbase || !d->inc || !d->ninc || !d->cinc;
    for (uint32_t l = 0; !rc && l < nl; l++) {
        rc = in->locs[l].nrels > UINT32_MAX ? -1 : 0; /* a relation's index travels in 32 bits */
        d->rbase[l + 1] = d->rbase[l] + in->locs[l].nrels;
        d->wbase[l + 1] = d->wbase[l] + in->locs[l].nwaits;
    }
    if (!rc) {
        d->nlrel = d->rbase[nl], d->nw = d->wbase[nl];
        d->relrun = st_mem_malloc((d->nlrel ? d->nlrel : 1) * sizeof *d->relrun);
        d->w = st_mem_calloc(d->nw ? d->nw : 1, sizeof *d->w);
        rc = !d->relrun || !d->w;
    }
    if (rc) {
        st_log_error("root causes (parallel, process %d): out of memory", (int)me);
        rc_dist_free(d);
        return -1;
    }
    for (uint64_t r = 0; r < d->nlrel; r++)
        d->relrun[r] = UINT64_MAX;
    for (size_t i = 0; i < d->nw; i++)
        d->w[i].loc = d->w[i].by.loc = RC_NONE;
    rc_zero_metrics(res);
    d->props_in = me == 0;
    d->flow_idle_sig = UINT64_MAX;
    *out = d;
    return 0;
}

void rc_dist_free(rc_dist_t *d)
{
    if (!d)
        return;
    const an_stamp_t *t = d->spent;
    st_log_debug("root causes: process %d: CPU ms (page faults): start %.1f (%ld), ends at the home %.1f (%ld), runs out "
                 "%.1f (%ld), runs in %.1f (%ld), delayers and packages out %.1f (%ld), packages in %.1f (%ld), "
                 "coefficients %.1f (%ld), sweep and plan %.1f (%ld), charges and walk %.1f (%ld), pairs %.1f (%ld; %u "
                 "lists sorted by key), other %.1f (%ld)",
                 (int)d->me, t[RD_T_START].ms, t[RD_T_START].faults, t[RD_T_ENDS].ms, t[RD_T_ENDS].faults,
                 t[RD_T_RUNS].ms, t[RD_T_RUNS].faults, t[RD_T_GOTRUNS].ms, t[RD_T_GOTRUNS].faults,
                 t[RD_T_DELAYERS].ms, t[RD_T_DELAYERS].faults, t[RD_T_PKGS].ms, t[RD_T_PKGS].faults,
                 t[RD_T_COEFS].ms, t[RD_T_COEFS].faults, t[RD_T_SWEEP].ms, t[RD_T_SWEEP].faults, t[RD_T_FLOW].ms,
                 t[RD_T_FLOW].faults, t[RD_T_PAIRS].ms, t[RD_T_PAIRS].faults, d->pairs_sorted, t[RD_T_OTHER].ms, t[RD_T_OTHER].faults);
    st_xchg_out_free(&d->out);
    rc_acc_free(&d->aw), rc_acc_free(&d->ad);
    rc_causes_acc_free(&d->acc);
    st_mem_free(d->home), st_mem_free(d->relrun), free(d->rbase), st_mem_free(d->idend);
    st_mem_free(d->runend), st_mem_free(d->run);
    free(d->owner), st_mem_free(d->pairrel), st_mem_free(d->pref), free(d->pbase), free(d->pin), free(d->pinlen);
    free(d->pjoined);
    for (size_t i = 0; d->w && i < d->nw; i++)
        free(d->w[i].orig);
    st_mem_free(d->w), free(d->wbase);
    for (uint32_t l = 0; d->inc && l < d->in->nlocs; l++)
        st_mem_free(d->inc[l]);
    free(d->inc), free(d->ninc), free(d->cinc);
    for (size_t k = 0; k < d->kept.n / sizeof(uint8_t *); k++) {
        uint8_t *b;
        memcpy(&b, d->kept.p + k * sizeof b, sizeof b);
        st_mem_free(b);
    }
    st_mem_free(d->kept.p), st_mem_free(d->coef.p), st_mem_free(d->jumps.p);
    free(d->walk.seen);
    rc_hops_free(&d->hops);
    rc_props_free(&d->props);
    free(d->T);
    free(d);
}

void rc_dist_part_free(rc_dist_part_t *p)
{
    free(p->T), free(p->v);
    rc_hops_free(&p->hops);
    rc_props_free(&p->props);
    memset(p, 0, sizeof *p);
}

/* ---- 1: the facts and the ends to their homes ---------------------------------------------------------- */

static void local_facts(const rc_dist_t *d, rd_facts_t *f)
{
    memset(f, 0, sizeof *f);
    const st_rc_input_t *in = d->in;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        uint64_t g = d->loc0 + l;
        for (uint32_t c = 0; c < L->ncalls; c++)
            if ((L->calls[c].flags & ST_RC_FINALIZE) && (!f->fin || L->calls[c].enter > f->fin_enter))
                f->fin = 1, f->fin_enter = L->calls[c].enter, f->fin_loc = g;
        if (!f->any || L->last > f->last_max)
            f->any = 1, f->last_max = L->last, f->last_loc = g;
        if (!L->ncalls && !L->first && !L->last)
            continue;
        f->first = !f->ev || L->first < f->first ? L->first : f->first;
        f->last = !f->ev || L->last > f->last ? L->last : f->last;
        f->ev = 1;
    }
}

/* Combines another process's facts (every process's once, in any order). */
static void add_facts(rd_facts_t *f, const rd_facts_t *o)
{
    if (o->fin && (!f->fin || o->fin_enter > f->fin_enter || (o->fin_enter == f->fin_enter && o->fin_loc < f->fin_loc)))
        f->fin = 1, f->fin_enter = o->fin_enter, f->fin_loc = o->fin_loc;
    if (o->any && (!f->any || o->last_max > f->last_max || (o->last_max == f->last_max && o->last_loc < f->last_loc)))
        f->any = 1, f->last_max = o->last_max, f->last_loc = o->last_loc;
    if (o->ev) {
        f->first = !f->ev || o->first < f->first ? o->first : f->first;
        f->last = !f->ev || o->last > f->last ? o->last : f->last;
        f->ev = 1;
    }
}

/* Room for n more ends at this home: the array grows to what every process's ends will likely need (the hashed
 * ends so far times the processes over the senders so far, plus the ends of the keys kept here), not by doubling:
 * its pages are fresh memory. 0, or -1. */
static int home_room(rc_dist_t *d, size_t n)
{
    size_t need = d->nhome + n;
    if (need <= d->chome)
        return 0;
    uint32_t senders = d->got_ends + 1; /* with the one whose ends these are */
    size_t hashed = need - d->nkept;
    size_t guess = senders < (uint32_t)d->nprocs ? d->nkept + hashed / senders * (size_t)d->nprocs : need;
    size_t cap = guess > need ? guess : need;
    rd_keyend_t *v = st_mem_realloc(d->home, (cap ? cap : 1) * sizeof *v);
    if (!v)
        return -1;
    d->home = v, d->chome = cap;
    return 0;
}

/* The key type of key k (endpoints.h); ST_REL_KEY_TYPES for none of them. */
static inline unsigned key_type(const uint64_t k[4])
{
    unsigned t = (unsigned)(k[0] >> 56);
    return t < ST_REL_KEY_TYPES ? t : ST_REL_KEY_TYPES;
}

/* The ends of the keys whose every end is this process's (the OpenMP keys kept here, rc_dist_keep_omp; every key
 * when it is the only process) and whose relations the builder numbered (st_rc_rel_t.group): their runs are made
 * here at once, without a home's hash table: the ends counted per group and written in the order of the
 * locations and calls (each run in order, as the home sorts it). A key type's ends only all or none (a key's ends
 * all have its type: never split between a run made here and one from the home): all when every one of them has
 * its group, and the groups are not too sparse. Sets d->idtype[t] for the types made here; when it made some, the
 * ends left for the homes (few: a type's ends with no group) go to *away, *naway of them (else *away stays NULL: all
 * of them are left). 0, or -1. */
static int local_runs(rc_dist_t *d, rd_away_t **away, size_t *naway)
{
    const st_rc_input_t *in = d->in;
    size_t n[ST_REL_KEY_TYPES + 1] = { 0 }, none[ST_REL_KEY_TYPES + 1] = { 0 }, nid = 0;
    uint64_t maxg[ST_REL_KEY_TYPES + 1] = { 0 }, most = 0;
    for (uint32_t l = 0; l < in->nlocs; l++) { /* a location's calls hold its relations in a row: no call needed */
        const st_rc_loc_t *L = &in->locs[l];
        for (uint64_t x = 0; x < L->nrels; x++) {
            const st_rc_rel_t *R = &L->rels[x];
            unsigned t = key_type(R->key);
            n[t]++, none[t] += R->group == 0;
            maxg[t] = R->group > maxg[t] ? R->group : maxg[t];
        }
    }
    for (unsigned t = 1; t < ST_REL_KEY_TYPES; t++) {
        int here = d->nprocs == 1 || (d->omp_local && t >= ST_REL_KEY_OMP_FORK);
        d->idtype[t] = here && n[t] && !none[t];
        nid += d->idtype[t] ? n[t] : 0;
        most = d->idtype[t] && maxg[t] > most ? maxg[t] : most;
    }
    if (!nid)
        return 0;
    if (most > 4 * (uint64_t)nid + 1024) { /* too sparse: every end to the home */
        memset(d->idtype, 0, sizeof d->idtype);
        return 0;
    }
    size_t nall = 0;
    for (unsigned t = 0; t <= ST_REL_KEY_TYPES; t++)
        nall += n[t];
    uint64_t *at = st_mem_calloc(most + 2, sizeof *at); /* per group its first end in idend, then the next free one */
    if (!at || !(d->idend = st_mem_malloc(nid * sizeof *d->idend)) ||
        !(*away = st_mem_malloc((nall - nid + 1) * sizeof **away))) {
        st_mem_free(at);
        return rd_fail(d, "out of memory");
    }
    *naway = 0;
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t r = 0; r < L->calls[c].nrel; r++) {
                const st_rc_rel_t *R = &L->rels[L->calls[c].rel_at + r];
                if (d->idtype[key_type(R->key)])
                    at[R->group + 1]++;
                else
                    (*away)[(*naway)++] = (rd_away_t){ l, c, L->calls[c].rel_at + r, 0 };
            }
    }
    for (uint64_t g = 1; g <= most + 1; g++)
        at[g] += at[g - 1];
    if (at[most + 1] != nid) { /* the calls did not hold every relation that the count above saw */
        st_mem_free(at);
        return rd_fail(d, "a relation outside every call");
    }
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t r = 0; r < L->calls[c].nrel; r++) {
                const st_rc_rel_t *R = &L->rels[L->calls[c].rel_at + r];
                if (d->idtype[key_type(R->key)])
                    d->idend[at[R->group]++] = (rd_end_t){ d->loc0 + l, c, R->role, L->calls[c].rel_at + r,
                                                           L->calls[c].enter };
            }
    }
    d->nends += nid; /* the ends whose runs are made here (those left for the homes are counted as they go) */
    int rc = 0; /* at[g] is now group g + 1's first end: group g's ends are [at[g - 1], at[g]) */
    for (uint64_t g = 1; !rc && g <= most; g++)
        if (at[g] > at[g - 1])
            rc = rd_add_run(d, &d->idend[at[g - 1]], at[g] - at[g - 1]);
    st_mem_free(at);
    return rc ? rd_fail(d, "out of memory") : 0;
}

/* End x of location l (its relation x), left for a home: counted for its home, which *a notes. */
static inline void count_end(rc_dist_t *d, rd_away_t *a, size_t *cnt)
{
    int kept;
    int32_t q = home_of(d, d->in->locs[a->l].rels[a->x].key, &kept);
    d->nends++;
    cnt[q]++;
    d->nkept += (size_t)kept;
    a->home = (uint32_t)q;
}

/* That end into its home's array. */
static inline void put_end(const rc_dist_t *d, const rd_away_t *a, rd_keyend_t **at)
{
    const st_rc_loc_t *L = &d->in->locs[a->l];
    const st_rc_rel_t *R = &L->rels[a->x];
    rd_keyend_t e = { { R->key[0], R->key[1], R->key[2], R->key[3] },
                      { d->loc0 + a->l, a->c, R->role, a->x, L->calls[a->c].enter } };
    memcpy(at[a->home]++, &e, sizeof e);
}

int rc_dist_start(rc_dist_t *d)
{
    const st_rc_input_t *in = d->in;
    an_stamp_t t0;
    an_stamp(&t0);
    rd_facts_t f;
    local_facts(d, &f);
    rd_away_t *away = NULL; /* the ends left for the homes when local_runs made runs; else every end is */
    size_t naway = 0;
    if (local_runs(d, &away, &naway) || rd_pairs_start(d)) {
        st_mem_free(away);
        return -1;
    }
    if (away && d->pairrel) { /* the ends left for the homes: not those of the keys shared with a partner */
        size_t k = 0;
        for (size_t i = 0; i < naway; i++)
            if (!d->pairrel[d->rbase[away[i].l] + away[i].x])
                away[k++] = away[i];
        naway = k;
    }
    size_t *cnt = calloc((size_t)d->nprocs, sizeof *cnt);
    rd_keyend_t **at = calloc((size_t)d->nprocs, sizeof *at);
    /* each end's home, counted and then used (up to 256 processes; beyond, hashed again) */
    uint16_t *home = !away && d->nprocs <= 256 ? st_mem_malloc((d->nlrel ? d->nlrel : 1) * sizeof *home) : NULL;
    if (!cnt || !at || (!away && d->nprocs <= 256 && !home)) {
        free(cnt), free(at), st_mem_free(home), st_mem_free(away);
        return rd_fail(d, "out of memory");
    }
    for (size_t i = 0; i < naway; i++)
        count_end(d, &away[i], cnt);
    for (uint32_t l = 0; !away && l < in->nlocs; l++) /* a relation of no call is no end */
        for (uint32_t c = 0; c < in->locs[l].ncalls; c++)
            for (uint32_t r = 0; r < in->locs[l].calls[c].nrel; r++) {
                rd_away_t a = { l, c, in->locs[l].calls[c].rel_at + r, 0 };
                if (d->pairrel && d->pairrel[d->rbase[l] + a.x])
                    continue;
                count_end(d, &a, cnt);
                if (home)
                    home[d->rbase[l] + a.x] = (uint16_t)a.home;
            }
    int rc = 0;
    for (int32_t q = 0; q < d->nprocs && !rc; q++) { /* this process's own ends go into its home array directly */
        st_xchg_rec_t h = { .type = RD_ENDS };
        rc = rd_send(d, q, RD_FACTS, &f, sizeof f);
        if (!rc && q == d->me && home_room(d, cnt[q]))
            rc = rd_fail(d, "out of memory");
        else if (!rc && q == d->me)
            at[q] = d->home + d->nhome;
        else if (!rc && !(at[q] = (rd_keyend_t *)st_xchg_record(&d->out, q, &h, cnt[q] * sizeof(rd_keyend_t))))
            rc = rd_fail(d, "out of memory");
    }
    for (size_t i = 0; !rc && i < naway; i++)
        put_end(d, &away[i], at);
    for (uint32_t l = 0; !rc && !away && l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t r = 0; r < L->calls[c].nrel; r++) {
                rd_away_t a = { l, c, L->calls[c].rel_at + r, 0 };
                if (d->pairrel && d->pairrel[d->rbase[l] + a.x])
                    continue;
                if (home) {
                    a.home = home[d->rbase[l] + a.x];
                } else {
                    int kept;
                    a.home = (uint32_t)home_of(d, L->rels[a.x].key, &kept);
                }
                put_end(d, &a, at);
            }
    }
    if (!rc)
        d->nhome += cnt[d->me], d->got_ends++;
    free(at), free(cnt), st_mem_free(home), st_mem_free(away);
    d->started = 1;
    int32_t bad;
    if (!rc && st_xchg_flush(&d->out, 0, &bad))
        rc = rd_fail(d, "cannot send");
    rd_spent(d, RD_T_START, &t0);
    return rc;
}

/* ---- 2: the runs from the homes ------------------------------------------------------------------------ */

static int cmp_end_at(const void *p, const void *q)
{
    const rd_end_t *a = p, *b = q;
    if (a->loc != b->loc)
        return a->loc < b->loc ? -1 : 1;
    return a->call < b->call ? -1 : a->call > b->call;
}

/* The ends e[0 .. n) by (location, call): insertion sort for the runs of messages, qsort for collectives. */
ST_FEW_SORT(sort_run, rd_end_t, cmp_end_at, 16)

void rd_sort_run(rd_end_t *e, size_t n) { sort_run(e, n); }

/* Room for runs more runs. 0, or -1. */
static int run_room(rc_dist_t *d, size_t runs)
{
    if (d->nrun + runs > d->crun) {
        size_t cap = d->crun ? 2 * d->crun : 256;
        if (cap < d->nrun + runs)
            cap = d->nrun + runs;
        rd_run_t *v = st_mem_realloc(d->run, cap * sizeof *v);
        if (!v)
            return rd_fail(d, "out of memory");
        d->run = v, d->crun = cap;
    }
    return 0;
}

/* A run of n ends e (sorted, where they stay: this home's own runs or a kept message of runs), attached to the
 * local relations its ends are (rd_end_t.pad). 0, or -1 (malformed: an end names no relation; or memory). */
int rd_add_run(rc_dist_t *d, const rd_end_t *e, uint64_t n)
{
    if (run_room(d, 1))
        return -1;
    d->run[d->nrun] = (rd_run_t){ e, n };
    for (uint64_t m = 0; m < n; m++) { /* this process's ends: its relations */
        const rd_end_t *x = &e[m];
        if (x->loc < d->loc0 || x->loc - d->loc0 >= d->in->nlocs)
            continue;
        if (x->pad >= d->in->locs[x->loc - d->loc0].nrels)
            return -1;
        uint64_t *r = &d->relrun[d->rbase[x->loc - d->loc0] + x->pad];
        d->nrelrun += *r == UINT64_MAX;
        *r = d->nrun;
    }
    d->nrun++;
    return 0;
}

/* The home's answer, once every process's ends arrived: each key's run (its ends by location and call) to every
 * process holding an end of it (n, the ends), written into the open RD_RUNS record of each other process, its
 * own runs kept at once. The ends are grouped by key in a hash table (slot: 1 + the key's first end; next: the
 * key's other ends) and the keys taken in the order their first ends arrived (the array is read in order; only
 * a key's other ends are far away), in no order of keys: a process finds its relations' runs by the ends'
 * relation indices. */
static int send_runs(rc_dist_t *d)
{
    size_t n = d->nhome, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    int32_t P = d->nprocs;
    uint32_t *slot = n < UINT32_MAX ? st_mem_calloc(cap, sizeof *slot) : NULL;
    uint32_t *next = st_mem_malloc((n ? n : 1) * sizeof *next);
    uint8_t *first = malloc(n ? n : 1);                            /* the key's first end */
    size_t *hdr = malloc((size_t)P * sizeof *hdr);                 /* each process's record: its header's offset */
    uint64_t *mark = malloc((size_t)P * sizeof *mark);             /* the last key sent to a process */
    rd_end_t *run = NULL;
    size_t crun = 0;
    int rc = slot && next && first && hdr && mark ? 0 : -1;
    if (!rc && !d->runend) {
        d->crunend = n ? n : 1, d->nrunend = 0;
        rc = (d->runend = st_mem_malloc(d->crunend * sizeof *d->runend)) ? 0 : -1;
    }
    for (int32_t q = 0; !rc && q < P; q++) {
        mark[q] = UINT64_MAX, hdr[q] = SIZE_MAX;
        if (q == d->me)
            continue;
        st_xchg_rec_t h = { .type = RD_RUNS };
        st_xchg_buf_t *b;
        rc = st_xchg_record(&d->out, q, &h, 0) && (b = st_xchg_buf(&d->out, q)) ? 0 : -1;
        if (!rc)
            hdr[q] = b->len - sizeof h;
    }
    /* The table and the ends are far bigger than the caches: each end's slot is fetched 2 * PF ends ahead
     * (its hash kept in a ring), and the end that slot holds PF ends ahead, so a probe finds both cached. */
    enum { PF = 8, RING = 32 };
    size_t ring[RING];
    for (size_t i = 0; i < n && i < 2 * PF; i++)
        ring[i] = slot_of(d->home[i].key, cap);
    for (size_t i = 0; !rc && i < n; i++) {
        if (i + 2 * PF < n) {
            size_t f = slot_of(d->home[i + 2 * PF].key, cap);
            ring[(i + 2 * PF) % RING] = f;
            __builtin_prefetch(&slot[f]);
        }
        if (i + PF < n && slot[ring[(i + PF) % RING]])
            __builtin_prefetch(d->home[slot[ring[(i + PF) % RING]] - 1].key);
        size_t h = ring[i % RING];
        while (slot[h] && rd_key_cmp(d->home[slot[h] - 1].key, d->home[i].key))
            h = (h + 1) & (cap - 1);
        first[i] = !slot[h];
        if (!slot[h])
            slot[h] = (uint32_t)(i + 1), next[i] = UINT32_MAX;
        else
            next[i] = next[slot[h] - 1], next[slot[h] - 1] = (uint32_t)i;
    }
    st_mem_free(slot), slot = NULL;
    for (size_t head = 0; !rc && head < n; head++) {
        if (head + PF < n && first[head + PF] && next[head + PF] != UINT32_MAX) /* the key's next end, far away */
            __builtin_prefetch(&d->home[next[head + PF]]);
        if (!first[head])
            continue;
        uint64_t k = 0;
        for (uint32_t i = (uint32_t)head; !rc && i != UINT32_MAX; i = next[i]) {
            if (k == crun) {
                size_t c = crun ? 2 * crun : 64;
                rd_end_t *v = realloc(run, c * sizeof *v);
                if (!v) {
                    rc = -1;
                    break;
                }
                run = v, crun = c;
            }
            run[k++] = d->home[i].e;
        }
        sort_run(run, rc ? 0 : k);
        for (uint64_t m = 0; !rc && m < k; m++) {
            int32_t q = rd_owner(d, run[m].loc);
            if (mark[q] == head)
                continue;
            mark[q] = head;
            if (q == d->me) { /* kept in runend: each of the home's ends is in one run (room for all, no growth) */
                memcpy(&d->runend[d->nrunend], run, k * sizeof *run);
                d->nrunend += k;
                rc = rd_add_run(d, &d->runend[d->nrunend - k], k);
                continue;
            }
            uint8_t *p = st_xchg_reserve(&d->out, q, 8 + k * sizeof *run, NULL);
            if (!p) {
                rc = -1;
                break;
            }
            memcpy(p, &k, 8);
            memcpy(p + 8, run, k * sizeof *run);
        }
    }
    for (int32_t q = 0; !rc && q < P; q++) { /* the records' lengths */
        st_xchg_buf_t *b = hdr[q] == SIZE_MAX ? NULL : st_xchg_buf(&d->out, q);
        if (!b)
            continue;
        st_xchg_rec_t h;
        memcpy(&h, b->data + hdr[q], sizeof h);
        h.len = b->len - hdr[q] - sizeof h;
        memcpy(b->data + hdr[q], &h, sizeof h);
    }
    if (!rc)
        d->got_runs++; /* this home's runs to this process */
    free(first), free(hdr), free(mark), free(run);
    st_mem_free(slot), st_mem_free(next);
    st_mem_free(d->home);
    d->home = NULL, d->nhome = d->chome = 0;
    return rc ? rd_fail(d, "out of memory, or an end that names no relation") : 0;
}

/* A home's runs: the message kept (one copy, its exact size), each run read where it is and attached to the local
 * relations its ends are (rd_end_t.pad). */
static int runs_arrived(rc_dist_t *d, const uint8_t *p, size_t len)
{
    if (len % 8) /* (8-byte counts and 24-byte ends: the kept copy's runs stay aligned) */
        return -1;
    const uint8_t *k = len ? rd_keep(d, p, len) : NULL;
    if (len && !k)
        return -1;
    st_xchg_reader_t rd = { k, k + len };
    uint64_t n;
    /* at most len / (8 + 24) runs */
    if (run_room(d, len / (8 + sizeof(rd_end_t))))
        return -1;
    while (rd.p < rd.end) {
        if (st_xchg_get_u64(&rd, &n) || n > (size_t)(rd.end - rd.p) / sizeof(rd_end_t))
            return -1;
        if (rd_add_run(d, (const rd_end_t *)(const void *)rd.p, n))
            return -1;
        rd.p += n * sizeof(rd_end_t);
    }
    return 0;
}

/* ---- 3: delayers and announcements ------------------------------------------------------------------ */

/* The latest-entering end of class cls in e[0 .. n) on another location than not_loc; *enter its enter. */
static rc_at_t best_in(const rd_end_t *e, size_t n, int cls, uint32_t not_loc, uint64_t *enter)
{
    rc_at_t best = { RC_NONE, 0 };
    uint64_t be = 0;
    for (size_t i = 0; i < n; i++) {
        rc_at_t a = { e[i].loc, e[i].call };
        if (e[i].loc != not_loc && rc_in_class(e[i].role, cls) && rc_later_at(e[i].enter, a, be, best))
            best = a, be = e[i].enter;
    }
    *enter = be;
    return best;
}

/* rc_replay.c's find_delayer over the runs: the delayer of a wait of metric m at call c of local location l. */
static rc_at_t find_delayer(const rc_dist_t *d, uint32_t l, uint32_t c, int m, uint64_t *enter)
{
    const st_rc_loc_t *L = &d->in->locs[l];
    const st_rc_call_t *C = &L->calls[c];
    int cls = m == ST_AN_M_LATEBROADCAST ? RC_SENDS_ROOT : m == ST_AN_M_EARLYREDUCE ? RC_SENDS_NONROOT : RC_SENDS;
    unsigned type = rc_key_type_of(m);
    uint32_t g = d->loc0 + l;
    rc_at_t best = { RC_NONE, 0 };
    uint64_t be = 0, ae;
    for (int any = 0; any < 2 && best.loc == RC_NONE; any++)
        for (uint32_t r = 0; r < C->nrel; r++) {
            const st_rc_rel_t *R = &L->rels[C->rel_at + r];
            if (!any && type && R->key[0] >> 56 != type)
                continue;
            size_t n;
            const rd_end_t *e = rd_run_of(d, l, C->rel_at + r, &n);
            rc_at_t a;
            if (m == ST_AN_M_LATERECEIVER) {
                a = best_in(e, n, RC_POSTS, g, &ae);
                if (a.loc == RC_NONE)
                    a = best_in(e, n, RC_RECEIVES, g, &ae);
            } else
                a = best_in(e, n, cls, g, &ae);
            if (a.loc != RC_NONE && rc_later_at(ae, a, be, best))
                best = a, be = ae;
        }
    *enter = be;
    return best;
}

int rd_charged(const rc_wait_t *w, const st_rc_wait_t *sw)
{
    return w->by.loc != RC_NONE && st_rc_delay_metric(sw->metric) >= 0;
}

/* Every local wait's delayer (once every end's run came back from its home). 0, or -1. */
static int find_delayers(rc_dist_t *d)
{
    const st_rc_input_t *in = d->in;
    if (d->nrelrun != d->nends) /* each end's relation got a run (counted as they came: no pass over them) */
        return rd_fail(d, "a relation's run did not arrive");
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        for (uint32_t c = 0; c < L->ncalls; c++)
            for (uint32_t k = 0; k < L->calls[c].nwait; k++) {
                rc_wait_t *w = &d->w[d->wbase[l] + L->calls[c].wait_at + k];
                w->loc = d->loc0 + l, w->call = c, w->idx = k;
                w->by = find_delayer(d, l, c, L->waits[L->calls[c].wait_at + k].metric, &w->by_enter);
            }
    }
    return 0;
}

int rd_put_sized(rd_bytes_t *b, const uint8_t *p, size_t n)
{
    return rd_put(b, &n, sizeof n) && rd_put(b, p, n) ? 0 : -1;
}

int rd_send_own(rc_dist_t *d, int32_t to, uint8_t type, uint8_t **p, size_t n)
{
    if (to != d->me || !*p)
        return rd_send(d, to, type, *p, n);
    d->adopt = *p;
    int rc = rd_send(d, to, type, *p, n);
    if (!d->adopt) /* kept where it is */
        *p = NULL;
    d->adopt = NULL;
    return rc;
}

uint8_t *rd_keep(rc_dist_t *d, const uint8_t *p, size_t n)
{
    if (p && p == d->adopt) { /* the sender's own buffer (rd_send_own): kept without a copy */
        if (!rd_put(&d->kept, &d->adopt, sizeof d->adopt)) {
            rd_fail(d, "out of memory");
            return NULL;
        }
        d->adopt = NULL;
        return (uint8_t *)p;
    }
    uint8_t *c = st_mem_malloc(n ? n : 1);
    if (!c || !rd_put(&d->kept, &c, sizeof c)) {
        st_mem_free(c);
        rd_fail(d, "out of memory");
        return NULL;
    }
    if (n)
        memcpy(c, p, n);
    return c;
}

/* ---- messages and progress -------------------------------------------------------------------------- */

/* One record of type `type` from process `from` (payload p[0 .. n)). 0, or -1 (malformed; or memory: failed). */
static int deliver_rec(rc_dist_t *d, int32_t from, uint8_t type, const uint8_t *p, size_t n)
{
    int rc = 0;
    switch (type) {
    case RD_FACTS: {
        rd_facts_t f;
        if (n != sizeof f)
            return -1;
        memcpy(&f, p, sizeof f);
        add_facts(&d->facts, &f);
        d->got_facts++;
        break;
    }
    case RD_ENDS:
        if (n % sizeof(rd_keyend_t) || from == d->me) /* a process's own ends never travel */
            return -1;
        if (home_room(d, n / sizeof(rd_keyend_t)))
            return rd_fail(d, "out of memory");
        if (n)
            memcpy(&d->home[d->nhome], p, n);
        d->nhome += n / sizeof(rd_keyend_t);
        d->got_ends++;
        break;
    case RD_RUNS:
        rc = from == d->me ? -1 : runs_arrived(d, p, n);
        d->got_runs++;
        break;
    case RD_PKGS:
        rc = rd_pkgs_arrived(d, p, n);
        d->got_pkgs++;
        break;
    case RD_COEF: /* kept as they came until every process's did (the sweeper, the walker) */
    case RD_JUMPS:
        rc = d->me != RD_SWEEPER                                             ? -1
             : rd_put_sized(type == RD_COEF ? &d->coef : &d->jumps, p, n) ? rd_fail(d, "out of memory")
                                                                             : 0;
        *(type == RD_COEF ? &d->got_coef : &d->got_jumps) += 1;
        break;
    case RD_PLAN:
        rc = d->got_plan++ ? -1 : rd_plan_arrived(d, p, n);
        break;
    case RD_SNAP:
        rc = d->got_snap++ ? -1 : rd_snap_arrived(d, p, n);
        break;
    case RD_PAIRS:  rc = rd_pairs_arrived(d, from, p, n); break;
    case RD_RESP:   rc = rd_resp_arrived(d, p, n); break;
    case RD_PROPS:  rc = rd_props_arrived(d, p, n); break;
    default:        rc = -1;
    }
    return rc;
}

int rc_dist_deliver(rc_dist_t *d, int32_t from, const void *buf, size_t len)
{
    st_xchg_reader_t msg = { buf, (const uint8_t *)buf + len }, rd;
    st_xchg_rec_t h;
    int k, rc = 0, last = 0; /* the message's time goes to its last record's step (a partner's shared keys' ends:
                                * to theirs, the largest part of a message they are in) */
    an_stamp_t t0;
    an_stamp(&t0);
    while (!rc && (k = st_xchg_next(&msg, &h, &rd)) == 1) {
        last = last == RD_PAIRS ? last : h.type;
        rc = deliver_rec(d, from, h.type, rd.p, (size_t)(rd.end - rd.p));
    }
    rd_spent(d, last == RD_ENDS ? RD_T_ENDS : last == RD_RUNS ? RD_T_GOTRUNS : last == RD_PKGS ? RD_T_PKGS
                : last == RD_PAIRS ? RD_T_PAIRS : RD_T_OTHER, &t0);
    if (rc || k != 0) {
        char what[80];
        snprintf(what, sizeof what, "a malformed message from process %d", (int)from);
        return rd_fail(d, what);
    }
    return 0;
}

int rc_dist_progress(rc_dist_t *d)
{
    uint32_t P = (uint32_t)d->nprocs;
    int32_t bad;
    an_stamp_t t0;
    for (int again = 1; again && !d->failed;) {
        again = 0;
        if (d->started && !d->home_done && d->got_ends == P) {
            d->home_done = 1, again = 1;
            an_stamp(&t0);
            int k = send_runs(d);
            rd_spent(d, RD_T_RUNS, &t0);
            if (k)
                break;
        }
        if (!d->indexed && d->pairs_done && d->got_runs == P && d->got_facts == P) {
            d->indexed = 1, again = 1;
            an_stamp(&t0);
            int k = find_delayers(d) || (d->nprocs > 1 && rd_send_pkgs(d)) || rd_send_jumps(d);
            rd_spent(d, RD_T_DELAYERS, &t0);
            if (k)
                break;
            if (d->nprocs == 1) { /* no package would leave the process: the charges at once */
                an_stamp(&t0);
                k = rd_replay_alone(d);
                rd_spent(d, RD_T_FLOW, &t0);
                if (k)
                    break;
            }
        }
        if (d->me == RD_SWEEPER && !d->planned && d->got_jumps == P && d->got_facts == P) {
            d->planned = 1, again = 1;
            an_stamp(&t0);
            int k = rd_plan(d);
            rd_spent(d, RD_T_SWEEP, &t0);
            if (k)
                break;
        }
        if (d->indexed && !d->coef_sent && d->got_pkgs == P) {
            d->coef_sent = 1, again = 1;
            an_stamp(&t0);
            int k = rd_send_coefs(d);
            rd_spent(d, RD_T_COEFS, &t0);
            if (k)
                break;
        }
        if (d->me == RD_SWEEPER && !d->swept && d->got_coef == P) {
            d->swept = 1, again = 1;
            an_stamp(&t0);
            int k = rd_sweep(d);
            rd_spent(d, RD_T_SWEEP, &t0);
            if (k)
                break;
        }
        if (d->indexed && !d->finished) {
            /* what rd_flow waits for: unchanged since it last did nothing, it does nothing (no clock reads then) */
            uint64_t sig = (uint64_t)d->got_snap + d->got_plan + d->nresp + (uint64_t)d->props_in + (uint64_t)d->coef_sent;
            int k = 0;
            if (sig != d->flow_idle_sig) {
                an_stamp(&t0);
                k = rd_flow(d);
                if (k <= 0)
                    d->flow_idle_sig = sig;
                else
                    rd_spent(d, RD_T_FLOW, &t0);
            }
            if (k < 0)
                break;
            again |= k;
        }
        if (st_xchg_flush(&d->out, 0, &bad)) {
            rd_fail(d, "cannot send");
            break;
        }
    }
    if (d->failed)
        return RC_DIST_FAILED;
    return d->finished ? RC_DIST_DONE : RC_DIST_IDLE;
}

void rc_dist_waiting(const rc_dist_t *d, char *buf, size_t n)
{
    size_t inc = 0;
    for (uint32_t l = 0; l < d->in->nlocs; l++)
        inc += d->ninc[l];
    snprintf(buf, n,
             "ends from %u, runs from %u, shared keys' ends from %u, packages from %u of %d processes; coefficients "
             "%s; snapshots %s; %zu of %zu "
             "packages charged, %zu of %zu answers; walk %s; propagation table %s",
             d->got_ends, d->got_runs, d->got_pairs + 1, d->got_pkgs, (int)d->nprocs,
             d->me != RD_SWEEPER ? (d->coef_sent ? "sent" : "not yet") : d->swept ? "swept" : "gathering",
             d->got_snap ? "here" : "not yet", d->ncharged, inc, d->nresp, d->nsent,
             d->walk_done ? "done" : d->got_plan ? "planned" : "not planned yet",
             d->props_done ? "passed on" : "not yet");
}

int rc_dist_take(rc_dist_t *d, rc_dist_part_t *p)
{
    memset(p, 0, sizeof *p);
    if (!d->finished)
        return -1;
    p->nlocs = d->in->nlocs, p->ncnodes = d->res->ncnodes;
    p->T = d->T, d->T = NULL;
    p->v = d->acc.v, p->n = d->acc.n;
    d->acc.v = NULL, d->acc.n = d->acc.cap = 0;
    p->hops = d->hops;
    memset(&d->hops, 0, sizeof d->hops);
    if (d->me == d->nprocs - 1) {
        p->props = d->props;
        memset(&d->props, 0, sizeof d->props);
    }
    return 0;
}
