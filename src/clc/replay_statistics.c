/*
 * replay_statistics.c — the engine's statistics (replay_int.h): after the backward pass the
 * (C, final LC) of the remote sends (R_STAT arrays, one tree operation per channel; neither
 * after converged bulk rounds, see rp_count_on_c), the counters on C and on the final LC of
 * every relation at its receiving rank, and the end of the run (st_clc_finish_locs: moved
 * events and deviations of this rank's locations).
 */
#include "replay_int.h"

void rp_enter_statistics(st_clc_replay_t *r)
{
    if (r->converged) { /* see rp_count_on_c; the final LC for the local relations (rp_finish_statistics) */
        rp_snap_times(r);
        r->state = S_STAT;
        return;
    }
    if (rp_phases_arrays(r, PH_S))
        return;
    rp_snap_times(r); /* final LC (after the backward pass), also for rp_finish_statistics */
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        if (r->cat[k] != CAT_COLL)
            continue;
        chan_t *c = &r->ch[r->ia[k]];
        uint64_t s = r->ib[k];
        int prefix = r->g.inst[k].shape == ST_REL_PREFIX;
        uint32_t n;
        const st_rel_ref_t *sv = refs_of(r, k, 0, &n);
        c->ph[PH_S].shape[s] = rp_merge_shape(r, c->ph[PH_S].shape[s], prefix ? SH_PREFIX : SH_PRODUCT);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t cv = ref_orig(r, &sv[i]), lv = ref_time(r, &sv[i]);
            if (prefix) {
                entvec_t *e = rp_ents(r, c, PH_S, s);
                if (!e || rp_ent_push(e, (ent_t){ .order = sv[i].order, .v = { cv, lv } }))
                    return rp_fail(r, "out of memory");
            } else {
                top2_t *q = qof(c, PH_S, s);
                quad_put(&q[0], cv, gid(&r->in->locs[sv[i].loc]));
                quad_put(&q[1], lv, gid(&r->in->locs[sv[i].loc]));
            }
        }
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        if (!pe->send_inst.n)
            continue;
        uint8_t *p = rp_rec_begin(r, pe->rank, R_STAT, PH_S, NULL, 0, 0, pe->send_inst.n * 16);
        for (size_t j = 0; p && j < pe->send_inst.n; j++) {
            const st_rel_ref_t *x = &r->g.refs[r->g.inst[pe->send_inst.v[j]].first];
            p = st_xchg_put_u64(p, ref_orig(r, x));
            p = st_xchg_put_u64(p, ref_time(r, x));
        }
    }
    r->state = S_STAT;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N)
            rp_own_done(r, &r->ch[i], PH_S, 0);
    r->busy = 1;
}

int rp_statistics_ready(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; !r->converged && i < r->npeers; i++)
        if (r->peers[i].recv_inst.n && !r->peers[i].have_stat)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        for (int ph = 0; ph < PH__N; ph++)
            if (r->ch[i].ph[ph].open)
                return 0;
    return 1;
}

/* A receive against the largest send it depends on: on C (sc, st_clc_stats_count_c) and on the final LC (sl). */
static void count_recv(st_clc_replay_t *r, unsigned kind, uint64_t mu, uint64_t sc, uint64_t sl, const st_rel_ref_t *x)
{
    st_clc_stats_count_c(&r->stats, kind, mu, sc, ref_orig(r, x));
    st_clc_vcount_add(&r->stats.remaining, kind, sl, mu, ref_time(r, x));
}

static void count_coll(st_clc_replay_t *r, uint64_t k)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    const chan_t *c = &r->ch[r->ia[k]];
    uint64_t s = r->ib[k], mu = st_clc_mu(&r->p, in->mumask), sc = 0, sl = 0;
    uint32_t n;
    const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
    const top2_t *q = qof(c, PH_S, s);
    for (uint32_t i = 0; i < n; i++) {
        int have;
        if (in->shape == ST_REL_PREFIX)
            have = rp_prefix_max(ents_ro(c, PH_S, s), rv[i].order, 0, &sc) &&
                   rp_prefix_max(ents_ro(c, PH_S, s), rv[i].order, 1, &sl);
        else
            have = quad_other(&q[0], gid(&r->in->locs[rv[i].loc]), &sc) &&
                   quad_other(&q[1], gid(&r->in->locs[rv[i].loc]), &sl);
        if (have)
            count_recv(r, in->kind, mu, sc, sl, &rv[i]);
    }
}

void rp_finish_statistics(st_clc_replay_t *r)
{
    st_clc_stats_t *s = &r->stats;
    /* LOCAL instances: the sequential counter on them, from the refs' snapshots. */
    const uint64_t *lc = r->ref_lc ? r->ref_lc : r->ref_c; /* current: see rp_enter_statistics */
    const uint64_t *ks = r->local_k.v;
    st_clc_violations_refs(&r->g, ks, r->local_k.n, r->ref_c, NULL, &s->reversed);
    if (r->have_local_on_c) /* counted on C by round 0 (s holds nothing yet) */
        s->violations = r->local_on_c;
    else
        st_clc_violations_refs(&r->g, ks, r->local_k.n, r->ref_c, &r->p, &s->violations);
    if (lc == r->ref_c) /* nothing moved: LC = C */
        s->remaining = s->violations;
    else
        st_clc_violations_refs(&r->g, ks, r->local_k.n, lc, &r->p, &s->remaining);
    if (r->converged)
        st_clc_stats_merge(s, &r->on_c);
    for (uint32_t i = 0; !r->converged && i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; j < pe->recv_inst.n; j++) {
            const st_rel_inst_t *in = &r->g.inst[pe->recv_inst.v[j]];
            count_recv(r, in->kind, st_clc_mu(&r->p, in->mumask), pe->stat[2 * j], pe->stat[2 * j + 1],
                       &r->g.refs[in->first]);
        }
    }
    for (uint64_t k = 0; !r->converged && k < r->g.ninst; k++)
        if (r->cat[k] == CAT_COLL)
            count_coll(r, k);
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        for (size_t j = 0; j < r->fwd[l].njumps; j++)
            s->jumps[r->fwd[l].jumps[j].kind < ST_REL__KINDS ? r->fwd[l].jumps[j].kind : 0]++;
    if (r->omp.read) /* left out of the graph: checked on C, none violated, nothing moved */
        st_clc_stats_merge(s, &r->omp_on_c);
    if (r->chk) /* the same (a violation would have started the engines again); and the unmatched ends */
        st_clc_p2pchk_finish(r->chk, s, &r->ds);
    s->unresolved = r->unresolved;
    s->ramps = r->ramps;
    s->ramps_bent = r->bent;
    s->deps = r->ds;
    st_clc_finish_locs(s, r->in->locs, r->in->nlocs, r->moved, r->moved_ctx);
    r->state = S_DONE;
}
