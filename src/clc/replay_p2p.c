/*
 * replay_p2p.c — the point-to-point partners (replay_int.h): who they are (the ranks of this
 * rank's OUT and IN instances, and of the check first's records), their instances in key
 * order, the one-time exchange of per-channel message counts (R_COUNTS) that decides which
 * messages have both ends and numbers them identically on both sides (the others become
 * DEAD, as the sequential reference drops them), and the receipt of a partner's R_P2PCHK
 * record (p2p_check.h; replay_restart.c).
 */
#include "replay_int.h"

#include <stdlib.h>
#include <string.h>

static int cmp_peer(const void *a, const void *b)
{
    int32_t x = ((const peer_t *)a)->rank, y = ((const peer_t *)b)->rank;
    return x < y ? -1 : x > y;
}

peer_t *rp_find_peer(st_clc_replay_t *r, int32_t rank)
{
    peer_t k = { .rank = rank };
    return r->npeers ? bsearch(&k, r->peers, r->npeers, sizeof k, cmp_peer) : NULL;
}

int rp_add_peer(st_clc_replay_t *r, int32_t rank)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if (r->peers[i].rank == rank)
            return 0;
    peer_t *v = st_mem_realloc(r->peers, (r->npeers + 1) * sizeof *v);
    if (!v)
        return -1;
    r->peers = v;
    r->peers[r->npeers++] = (peer_t){ .rank = rank };
    return 0;
}

/* Instances per partner in key order (both ends see the same order of (tag, comm, k)); ia of
 * OUT/IN instances becomes the partner's index. Sized by a count first: no vector growth. */
int rp_assign_peers(st_clc_replay_t *r)
{
    const st_rel_graph_t *g = &r->g;
    if (r->npeers > 1)
        qsort(r->peers, r->npeers, sizeof *r->peers, cmp_peer);
    const peer_t *pe = NULL;
    for (uint64_t k = 0; k < g->ninst; k++) {
        if (r->cat[k] != CAT_OUT && r->cat[k] != CAT_IN)
            continue;
        if (!pe || pe->rank != (int32_t)r->ia[k])
            pe = rp_find_peer(r, (int32_t)r->ia[k]);
        r->ia[k] = (uint32_t)(pe - r->peers);
        r->peers[r->ia[k]].send_inst.cap += r->cat[k] == CAT_OUT;
        r->peers[r->ia[k]].recv_inst.cap += r->cat[k] == CAT_IN;
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        u32vec_t *s = &r->peers[i].send_inst, *v = &r->peers[i].recv_inst;
        s->v = st_mem_malloc((s->cap + 1) * sizeof *s->v), v->v = st_mem_malloc((v->cap + 1) * sizeof *v->v);
        if (!s->v || !v->v)
            return -1;
    }
    for (uint64_t k = 0; k < g->ninst; k++)
        if (r->cat[k] == CAT_OUT || r->cat[k] == CAT_IN) {
            u32vec_t *v = r->cat[k] == CAT_OUT ? &r->peers[r->ia[k]].send_inst : &r->peers[r->ia[k]].recv_inst;
            v->v[v->n++] = (uint32_t)k;
        }
    return 0;
}

static uint32_t tag_of(const uint64_t *key) { return (uint32_t)key[0]; }

/* Channel runs of a partner's instance list: calls fn(first, end) for each (tag, comm). */
static int count_records(const st_clc_replay_t *r, const peer_t *pe, counts_rec_t *out)
{
    int n = 0;
    for (int dir = 0; dir < 2; dir++) {
        const u32vec_t *v = dir == 0 ? &pe->send_inst : &pe->recv_inst;
        for (size_t i = 0, j; i < v->n; i = j) {
            const uint64_t *ki = r->g.inst[v->v[i]].key;
            for (j = i + 1; j < v->n; j++) {
                const uint64_t *kj = r->g.inst[v->v[j]].key;
                if (tag_of(kj) != tag_of(ki) || kj[2] != ki[2])
                    break;
            }
            if (out)
                out[n] = (counts_rec_t){ .comm = ki[2], .tag = tag_of(ki), .dir = (uint32_t)dir, .count = j - i };
            n++;
        }
    }
    return n;
}

void rp_send_counts(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers && r->state != S_FAILED; i++) {
        peer_t *pe = &r->peers[i];
        if (r->chk) { /* every partner gets one, maybe empty: it waits for as many as for the counts */
            size_t len;
            const void *pay = st_clc_p2pchk_payload(r->chk, pe->rank, &len);
            uint8_t *q = rp_rec_begin(r, pe->rank, R_P2PCHK, 0, NULL, 0, 0, len);
            if (q && len)
                memcpy(q, pay, len);
        }
        int n = count_records(r, pe, NULL);
        uint8_t *p = rp_rec_begin(r, pe->rank, R_COUNTS, 0, NULL, 0, 0, (size_t)n * sizeof(counts_rec_t));
        if (p && n) {
            counts_rec_t *recs = st_mem_malloc((size_t)n * sizeof *recs);
            if (!recs) {
                rp_fail(r, "out of memory");
                return;
            }
            count_records(r, pe, recs);
            memcpy(p, recs, (size_t)n * sizeof *recs);
            st_mem_free(recs);
        }
    }
}

int rp_on_counts(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    if (h->len % sizeof(counts_rec_t))
        return -1;
    r->counts_got++;
    peer_t *pe = rp_find_peer(r, from);
    size_t n = h->len / sizeof(counts_rec_t);
    if (pe && n) { /* unknown partners: nothing of ours can match theirs */
        if (!(pe->theirs = st_mem_malloc(h->len)))
            return rp_fail(r, "out of memory"), -1;
        memcpy(pe->theirs, rd->p, h->len);
        pe->ntheirs = n;
    }
    rd->p += h->len;
    return 0;
}

/* A partner's sends, checked against this rank's receives from it (p2p_check.h). */
int rp_on_p2pchk(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    if (!r->chk || st_clc_p2pchk_deliver(r->chk, from, rd->p, h->len))
        return -1;
    rd->p += h->len;
    r->chk_got++;
    return 0;
}

static uint64_t their_count(const peer_t *pe, uint32_t dir, uint32_t tag, uint64_t comm)
{
    for (size_t i = 0; i < pe->ntheirs; i++)
        if (pe->theirs[i].dir == dir && pe->theirs[i].tag == tag && pe->theirs[i].comm == comm)
            return pe->theirs[i].count;
    return 0;
}

/* Keeps the instances whose k is below the other side's count; the rest are DEAD. */
static void match_list(st_clc_replay_t *r, const peer_t *pe, u32vec_t *v, uint32_t their_dir, uint64_t *unmatched)
{
    size_t m = 0;
    uint64_t lim = 0;
    for (size_t i = 0; i < v->n; i++) {
        uint64_t k = v->v[i];
        const uint64_t *key = r->g.inst[k].key;
        if (i == 0 || tag_of(key) != tag_of(r->g.inst[v->v[i - 1]].key) || key[2] != r->g.inst[v->v[i - 1]].key[2])
            lim = their_count(pe, their_dir, tag_of(key), key[2]);
        if (key[3] < lim) {
            r->ib[k] = (uint32_t)m;
            v->v[m++] = k;
        } else {
            r->cat[k] = CAT_DEAD;
            r->pending[k] = 0;
            ++*unmatched;
        }
    }
    v->n = m;
}

int rp_match_peers(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        match_list(r, pe, &pe->send_inst, 1, &r->ds.unmatched_send);
        match_list(r, pe, &pe->recv_inst, 0, &r->ds.unmatched_recv);
        pe->bwd = st_mem_malloc((pe->send_inst.n + 1) * sizeof *pe->bwd);
        if (!pe->bwd)
            return -1;
    }
    return 0;
}
