/*
 * p2p_check.c — point-to-point relations checked on C without CLC's graph (p2p_check.h).
 *
 * Per partner two lists of 64-bit words, each a run of channels in the join's order:
 *   sends to it      key0 comm n  t_0 .. t_n-1        (the payload, as it is)
 *   receives from it key0 comm mumask n  t_0 .. t_n-1
 * key0 is the endpoints' key[0] (type and tag), comm key[2], mumask the receives' (the pair's
 * class); a channel holds its ends k = 0 .. n-1.
 * Both sides list a channel's ends by k, so send k meets receive k, as in the join.
 */
#include "p2p_check.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"

#define NONE32 UINT32_MAX

typedef struct { uint64_t *v; size_t n, cap; } words_t;

typedef struct peer {
    int32_t rank;
    words_t out, in;
    size_t  head[2]; /* index + 1 of the open channel's header in out / in, 0 none */
} peer_t;

struct st_clc_p2pchk {
    int32_t         me, nranks;
    st_clc_params_t p;
    peer_t         *peers;
    uint32_t        npeers;
    size_t          cap;
    uint32_t       *idx;  /* [nranks]: peer index, NONE32 */
    uint8_t        *got;  /* [nranks]: delivered */
    st_clc_stats_t  on_c; /* the relations so far (its violations: st_clc_p2pchk_violated) */
    uint64_t        unmatched_send, unmatched_recv;
    int             finished;
};

static int push(words_t *w, uint64_t x)
{
    if (w->n == w->cap && st_mem_grow((void **)&w->v, &w->cap, w->n + 1, sizeof *w->v))
        return -1;
    w->v[w->n++] = x;
    return 0;
}

static peer_t *peer_of(st_clc_p2pchk_t *c, int32_t rank)
{
    if (c->idx[rank] == NONE32) {
        if (st_mem_grow((void **)&c->peers, &c->cap, c->npeers + 1, sizeof *c->peers))
            return NULL;
        c->idx[rank] = c->npeers;
        c->peers[c->npeers++] = (peer_t){ .rank = rank };
    }
    return &c->peers[c->idx[rank]];
}

/* One relation on C: counted as the engine counts it (count_on_c). */
static void relation(st_clc_p2pchk_t *c, uint64_t mu, uint64_t send, uint64_t recv)
{
    st_clc_stats_count_c(&c->on_c, ST_REL_P2P, mu, send, recv);
    st_clc_vcount_add(&c->on_c.remaining, ST_REL_P2P, 0, 0, 0);
}

/* Appends end e (its channel's k-th of its role) to list w (role: 0 sends, 1 receives). */
static int append(peer_t *pe, int role, const st_rel_endpoint_t *e)
{
    words_t *w = role ? &pe->in : &pe->out;
    size_t nw = role ? 4 : 3; /* header words */
    uint64_t *h = pe->head[role] ? &w->v[pe->head[role] - 1] : NULL;
    if (!h || h[0] != e->key[0] || h[1] != e->key[2]) {
        if (h && (e->key[0] < h[0] || (e->key[0] == h[0] && e->key[2] < h[1])))
            return -1; /* channels out of the join's order */
        if (e->key[3] != 0 || push(w, e->key[0]) || push(w, e->key[2]) || (role && push(w, e->mumask)) || push(w, 0))
            return -1;
        pe->head[role] = w->n - nw + 1;
        h = &w->v[pe->head[role] - 1];
    }
    if (e->key[3] != h[nw - 1] || push(w, e->time))
        return -1; /* ends of a channel out of order */
    w->v[pe->head[role] - 1 + nw - 1]++;
    return 0;
}

/* Reads the ends: self messages compared at once, the others into their partner's lists. */
static int read_ends(st_clc_p2pchk_t *c, st_rel_epsrc_t *src)
{
    enum { PART = 256 };
    st_rel_endpoint_t buf[PART], send = { 0 };
    int have_send = 0;
    size_t n;
    while ((n = st_rel_epsrc_read(src, buf, PART)) > 0) {
        for (size_t i = 0; i < n; i++) {
            const st_rel_endpoint_t *e = &buf[i];
            int32_t from = (int32_t)(e->key[1] >> 32), to = (int32_t)(uint32_t)e->key[1];
            if (e->key[0] >> 56 != ST_REL_KEY_P2P)
                return -1;
            if (from == c->me && to == c->me) { /* a self message: send k, then receive k */
                if (e->role == ST_REL_SEND) {
                    c->unmatched_send += have_send;
                    send = *e, have_send = 1;
                } else if (have_send && !memcmp(send.key, e->key, sizeof e->key)) {
                    if (send.ref.loc != e->ref.loc) /* the own location is no relation (docs/clc.md) */
                        relation(c, st_clc_mu(&c->p, e->mumask), send.time, e->time);
                    have_send = 0;
                } else {
                    c->unmatched_recv++;
                }
                continue;
            }
            int role = e->role == ST_REL_RECV, mine = role ? to == c->me : from == c->me;
            int32_t other = role ? from : to;
            if (!mine || other < 0 || other >= c->nranks)
                continue; /* no relation (the engine's DEAD instances) */
            peer_t *pe = peer_of(c, other);
            if (!pe || append(pe, role, e))
                return -1;
        }
    }
    c->unmatched_send += have_send;
    return 0;
}

static int cmp_peer(const void *a, const void *b)
{
    int32_t x = ((const peer_t *)a)->rank, y = ((const peer_t *)b)->rank;
    return x < y ? -1 : x > y;
}

int st_clc_p2pchk_new(st_rel_epsrc_t *src, int32_t me, int32_t nranks, const st_clc_params_t *p,
                      st_clc_p2pchk_t **out)
{
    *out = NULL;
    st_clc_p2pchk_t *c = st_mem_calloc(1, sizeof *c);
    if (!c)
        return -1;
    *c = (st_clc_p2pchk_t){ .me = me, .nranks = nranks > 0 ? nranks : 1, .p = *p };
    c->idx = st_mem_malloc(sizeof *c->idx * (size_t)c->nranks);
    c->got = st_mem_calloc((size_t)c->nranks, 1);
    int rc = c->idx && c->got ? 0 : -1;
    if (rc == 0) {
        memset(c->idx, 0xff, sizeof *c->idx * (size_t)c->nranks);
        rc = read_ends(c, src);
    }
    st_rel_epsrc_rewind(src);
    if (rc) {
        st_clc_p2pchk_free(c);
        return -1;
    }
    if (c->npeers > 1) /* ascending ranks; idx follows */
        qsort(c->peers, c->npeers, sizeof *c->peers, cmp_peer);
    for (uint32_t i = 0; i < c->npeers; i++)
        c->idx[c->peers[i].rank] = i;
    *out = c;
    return 0;
}

uint32_t st_clc_p2pchk_npeers(const st_clc_p2pchk_t *c) { return c ? c->npeers : 0; }

int32_t st_clc_p2pchk_peer(const st_clc_p2pchk_t *c, uint32_t i) { return c->peers[i].rank; }

const void *st_clc_p2pchk_payload(const st_clc_p2pchk_t *c, int32_t to, size_t *len)
{
    *len = 0;
    if (to < 0 || to >= c->nranks || c->idx[to] == NONE32 || !c->peers[c->idx[to]].out.n)
        return NULL;
    const words_t *w = &c->peers[c->idx[to]].out;
    *len = w->n * sizeof *w->v;
    return w->v;
}

/* The number of ends in the channels of list w from word i on (nw header words each); -1 malformed. */
static int64_t count_rest(const uint64_t *w, size_t n, size_t i, size_t nw)
{
    int64_t ends = 0;
    while (i < n) {
        if (n - i < nw || w[i + nw - 1] > n - i - nw)
            return -1;
        ends += (int64_t)w[i + nw - 1];
        i += nw + w[i + nw - 1];
    }
    return ends;
}

int st_clc_p2pchk_deliver(st_clc_p2pchk_t *c, int32_t from, const void *buf, size_t len)
{
    if (from < 0 || from >= c->nranks || c->got[from] || len % 8)
        return -1;
    c->got[from] = 1;
    size_t ns = len / 8, i = 0, j = 0;
    uint64_t *s = st_mem_malloc(len + 8); /* aligned copy: the transport's buffer may not be */
    if (!s)
        return -1;
    memcpy(s, buf, len);
    const words_t *r = c->idx[from] == NONE32 ? &(words_t){ 0 } : &c->peers[c->idx[from]].in;
    int rc = count_rest(s, ns, 0, 3) < 0 ? -1 : 0;
    /* both lists in the join's order of (key0, comm): a merge */
    while (rc == 0 && (i < ns || j < r->n)) {
        int cmp = i >= ns ? 1 : j >= r->n ? -1
                : s[i] != r->v[j] ? (s[i] < r->v[j] ? -1 : 1)
                : s[i + 1] != r->v[j + 1] ? (s[i + 1] < r->v[j + 1] ? -1 : 1) : 0;
        uint64_t nsend = cmp <= 0 ? s[i + 2] : 0, nrecv = cmp >= 0 ? r->v[j + 3] : 0;
        if (cmp == 0) {
            uint64_t mu = st_clc_mu(&c->p, (unsigned)r->v[j + 2]);
            for (uint64_t k = 0; k < nsend && k < nrecv; k++)
                relation(c, mu, s[i + 3 + k], r->v[j + 4 + k]);
        }
        c->unmatched_send += nsend > nrecv ? nsend - nrecv : 0;
        c->unmatched_recv += nrecv > nsend ? nrecv - nsend : 0;
        if (cmp <= 0)
            i += 3 + nsend;
        if (cmp >= 0)
            j += 4 + nrecv;
    }
    st_mem_free(s);
    return rc;
}

uint64_t st_clc_p2pchk_violated(const st_clc_p2pchk_t *c) { return c ? c->on_c.violations.violated[ST_REL_P2P] : 0; }

void st_clc_p2pchk_finish(st_clc_p2pchk_t *c, st_clc_stats_t *on_c, st_rel_depstats_t *ds)
{
    if (c->finished)
        return;
    c->finished = 1;
    for (uint32_t i = 0; i < c->npeers; i++)
        if (!c->got[c->peers[i].rank]) {
            const words_t *r = &c->peers[i].in;
            c->unmatched_recv += (uint64_t)count_rest(r->v, r->n, 0, 4);
            c->got[c->peers[i].rank] = 1;
        }
    st_clc_stats_merge(on_c, &c->on_c);
    ds->unmatched_send += c->unmatched_send, ds->unmatched_recv += c->unmatched_recv;
}

void st_clc_p2pchk_free(st_clc_p2pchk_t *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->npeers; i++)
        st_mem_free(c->peers[i].out.v), st_mem_free(c->peers[i].in.v);
    st_mem_free(c->peers), st_mem_free(c->idx), st_mem_free(c->got);
    st_mem_free(c);
}
