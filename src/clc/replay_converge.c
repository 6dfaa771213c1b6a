/*
 * replay_converge.c — whether the bulk rounds have converged (replay_int.h): the receives the
 * values just exchanged would move (marked where the next round's incremental passes start),
 * round 0's test on C, the relations counted on C that stand for the statistics when the
 * rounds converge, and the reduction over a binomial tree of all ranks (R_CONV_UP/DOWN) that
 * tells every rank whether any would move. The same world tree carries the replay's waves
 * (replay_cycles.c).
 */
#include "replay_int.h"

#include <string.h>

void rp_world_tree(st_clc_replay_t *r)
{
    uint32_t me = (uint32_t)r->me, n = (uint32_t)r->nranks;
    r->wparent = me ? (int32_t)(me & (me - 1)) : -1;
    r->nwchild = 0;
    for (uint64_t bit = 1; bit < n && !(me & bit); bit <<= 1)
        if (me + bit < n)
            r->wchild[r->nwchild++] = (int32_t)(me + bit);
}

static void rounds_result(st_clc_replay_t *r, uint64_t changed);

void rp_conv_try(st_clc_replay_t *r)
{
    tracker_t *t = &r->conv;
    if (!t->own || t->arrived < r->nwchild || t->up || t->done)
        return;
    if (r->wparent >= 0) {
        uint8_t *p = rp_rec_begin(r, r->wparent, R_CONV_UP, 0, NULL, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, r->conv_val);
        t->up = 1;
        return;
    }
    rounds_result(r, r->conv_val);
}

static void rounds_result(st_clc_replay_t *r, uint64_t changed)
{
    r->conv.done = 1;
    r->conv_val = changed;
    for (uint32_t i = 0; i < r->nwchild; i++) {
        uint8_t *p = rp_rec_begin(r, r->wchild[i], R_CONV_DOWN, 0, NULL, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, changed);
    }
}

int rp_on_conv(st_clc_replay_t *r, const rec_t *h, reader_t *rd)
{
    uint64_t v;
    if (st_xchg_get_u64(rd, &v) || h->round != r->round || r->conv.done)
        return -1;
    if (h->type == R_CONV_DOWN) {
        rounds_result(r, v);
        return 0;
    }
    r->conv_val = v > r->conv_val ? v : r->conv_val;
    r->conv.arrived++;
    rp_conv_try(r);
    return 0;
}

/* The value of the sends collective instance k's receive x depends on, from the round's
 * exchange (the largest send LC on another location, or before it in a scan); 0 if none. */
static int round_send_value(const st_clc_replay_t *r, uint64_t k, const st_rel_ref_t *x, uint64_t *v)
{
    const chan_t *c = &r->ch[r->ia[k]];
    if (r->g.inst[k].shape == ST_REL_PREFIX)
        return rp_prefix_max(ents_ro(c, PH_R, r->ib[k]), x->order, 0, v);
    return quad_other(rq(c, r->ib[k], 0), gid(&r->in->locs[x->loc]), v);
}

/* Marks receive ref x HOT_MOVES when send value v (+ mu) exceeds its LC; returns 1 then. */
static uint64_t moves(st_clc_replay_t *r, const st_rel_ref_t *x, uint64_t v, uint64_t mu)
{
    if (v + mu <= ref_time(r, x))
        return 0;
    if (r->hot)
        r->hot[r->ref_port[x - r->g.refs]] |= HOT_MOVES;
    return 1;
}

/* Receives whose bound from the values just exchanged exceeds their current LC; marks
 * them HOT_MOVES, where the next round's incremental passes start. Values equal to the
 * last round's move nothing: this round's passes started from them. */
uint64_t rp_would_move(st_clc_replay_t *r)
{
    uint64_t n = 0;
    for (uint64_t j = 0; r->hot && j < r->g.nrefs; j++)
        r->hot[j] &= HOT_LOCAL;
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; !pe->rin_same && j < pe->recv_inst.n; j++) {
            uint64_t k = pe->recv_inst.v[j], mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
            uint32_t nr;
            const st_rel_ref_t *rv = refs_of(r, k, 1, &nr);
            for (uint32_t i = 0; i < nr; i++)
                n += moves(r, &rv[i], pe->rin[j], mu);
        }
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], v = 0, mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
        uint32_t nr;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &nr);
        for (uint32_t i = 0; i < nr; i++)
            n += round_send_value(r, k, &rv[i], &v) && moves(r, &rv[i], v, mu);
    }
    return n;
}

/*
 * Round 0 ran no forward pass: its LC are C. They are the fixed point when nothing would
 * move: no receive earlier than its sends (+ mu), remote ones by the values just exchanged
 * (rp_would_move), local ones on C, and no location whose C decreases (mono: the forward pass
 * would move the event after the dip). That is the usual trace, which then needs no pass.
 */
uint64_t rp_moves_on_c(st_clc_replay_t *r)
{
    uint64_t n = rp_would_move(r) + st_clc_p2pchk_violated(r->chk); /* (every partner's sends are in) */
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        n += r->in->locs[l].orig || r->in->locs[l].mono < r->in->locs[l].n;
    st_clc_vcount_t *v = &r->local_on_c;
    memset(v, 0, sizeof *v);
    st_clc_violations_refs(&r->g, r->local_k.v, r->local_k.n, r->ref_c, &r->p, v);
    r->have_local_on_c = 1; /* the statistics' "violations" of the LOCAL relations (rp_finish_statistics) */
    for (int k = 0; k < ST_REL__KINDS; k++)
        n += v->violated[k];
    return n;
}

/*
 * The remote relations on C, from round 0's exchange (the sends' C), into r->on_c. When the
 * rounds converge, no relation with a remote send remains violated, so these counts are
 * the statistics and the statistics exchange is skipped: every such receive has
 * LC_fwd >= LC_fwd(send) + mu (nothing would move), the backward pass moves the send at
 * most to its limit LC_fwd(receive) - mu and the receive only forward. (The replay's
 * receives may be forced through a cycle; it keeps the exchange.)
 */
void rp_count_on_c(st_clc_replay_t *r)
{
    st_clc_stats_t *s = &r->on_c;
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; j < pe->recv_inst.n; j++) {
            const st_rel_inst_t *in = &r->g.inst[pe->recv_inst.v[j]];
            const st_rel_ref_t *x = &r->g.refs[in->first];
            st_clc_stats_count_c(s, in->kind, st_clc_mu(&r->p, in->mumask), pe->rin[j], ref_orig(r, x));
            st_clc_vcount_add(&s->remaining, in->kind, 0, 0, 0); /* a relation, not violated */
        }
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], sc = 0, mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
        const st_rel_inst_t *in = &r->g.inst[k];
        uint32_t n;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (round_send_value(r, k, &rv[i], &sc)) {
                st_clc_stats_count_c(s, in->kind, mu, sc, ref_orig(r, &rv[i]));
                st_clc_vcount_add(&s->remaining, in->kind, 0, 0, 0);
            }
        }
    }
}
