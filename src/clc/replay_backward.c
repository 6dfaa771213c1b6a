/*
 * replay_backward.c — the backward pass of the engine (replay_int.h): snapshots of the refs'
 * LC, the limits of the sends from the forward LC of their receives (LOCAL: in the quads,
 * complemented; OUT: the receiver's R_BWD array; COLL: one tree operation per channel, or
 * after converged bulk rounds the last round's values, which need no exchange), and the
 * amortization of every location (st_clc_backward_loc).
 */
#include "replay_int.h"

/* Copies every ref's current LC into dst: one sweep per location over its
 * ports, which are sorted by event, so the times are read in address order. */
static void snap(st_clc_replay_t *r, uint64_t *dst)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        const st_rel_loc_t *L = &r->in->locs[l];
        uint64_t j = r->g.port_first[l], end = r->g.port_first[l + 1];
        if (L->orig) {
            const uint64_t *t = st_rel_lc(L);
            for (; j < end; j++)
                dst[r->port_ref[j]] = t[r->g.ports[j].ev];
        } else { /* nothing moved: LC = C */
            for (; j < end; j++)
                dst[r->port_ref[j]] = r->ref_c[r->port_ref[j]];
        }
    }
}

/* The refs' current LC into ref_lc, which is allocated once a location has moved (before, LC = C). */
void rp_snap_times(st_clc_replay_t *r)
{
    int moved = 0;
    for (uint32_t l = 0; l < r->in->nlocs && !moved; l++)
        moved = r->in->locs[l].orig != NULL;
    if (!moved)
        return;
    if (!r->ref_lc && !(r->ref_lc = st_mem_malloc((r->g.nrefs + 1) * sizeof *r->ref_lc)))
        return rp_fail(r, "out of memory");
    snap(r, r->ref_lc);
}

/* After converged rounds the partners already have the receives' forward LC: the last
 * round's exchange carried them (limit_of reads them there). */
void rp_enter_backward(st_clc_replay_t *r)
{
    if (!r->converged && rp_phases_arrays(r, PH_B))
        return;
    rp_snap_times(r);
    int jumps = 0; /* only jumps are amortized: without any, no limit is read (limit_of) */
    for (uint32_t l = 0; l < r->in->nlocs && !jumps; l++)
        jumps = r->fwd[l].njumps > 0;
    if (jumps && rp_ensure_tq(r))
        return;
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        uint32_t n;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
        if (r->cat[k] == CAT_COLL && r->converged)
            continue;
        if (r->cat[k] == CAT_LOCAL && !jumps)
            continue;
        if (r->cat[k] == CAT_LOCAL) { /* limits from the forward LC of the receives, complemented */
            top2_t *q = tq_of(r, k);
            *q = quad_empty;
            for (uint32_t i = 0; i < n; i++)
                quad_put(q, ~ref_time(r, &rv[i]), gid(&r->in->locs[rv[i].loc]));
        } else if (r->cat[k] == CAT_COLL) {
            chan_t *c = &r->ch[r->ia[k]];
            uint64_t s = r->ib[k];
            int prefix = r->g.inst[k].shape == ST_REL_PREFIX;
            c->ph[PH_B].shape[s] = rp_merge_shape(r, c->ph[PH_B].shape[s], prefix ? SH_PREFIX : SH_PRODUCT);
            for (uint32_t i = 0; i < n; i++) {
                entvec_t *e = prefix ? rp_ents(r, c, PH_B, s) : NULL;
                if (prefix && (!e || rp_ent_push(e, (ent_t){ .order = rv[i].order, .v = { ref_time(r, &rv[i]), 0 } })))
                    return rp_fail(r, "out of memory");
                if (!prefix)
                    quad_put(qof(c, PH_B, s), ~ref_time(r, &rv[i]), gid(&r->in->locs[rv[i].loc]));
            }
        }
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        pe->have_bwd |= r->converged;
        if (!pe->recv_inst.n || r->converged)
            continue;
        uint8_t *p = rp_rec_begin(r, pe->rank, R_BWD, PH_B, NULL, 0, 0, pe->recv_inst.n * 8);
        for (size_t j = 0; p && j < pe->recv_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->recv_inst.v[j]].first]));
    }
    r->state = S_BWD;
    for (uint32_t i = 0; i < r->nch; i++) {
        if (r->converged)
            r->ch[i].ph[PH_B].open = 0;
        else if (r->ch[i].N)
            rp_own_done(r, &r->ch[i], PH_B, 0);
    }
    r->busy = 1;
}

static uint64_t minus_mu(uint64_t v, uint64_t mu) { return v > mu ? v - mu : 0; }

static uint64_t limit_of(void *ctx, uint32_t loc, const st_rel_port_t *p)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst, v = 0;
    uint64_t mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
    switch (r->cat[k]) {
    case CAT_LOCAL:
        return quad_other(tq_of(r, k), gid(&r->in->locs[loc]), &v) ? minus_mu(~v, mu) : UINT64_MAX;
    case CAT_OUT:
        return minus_mu(r->peers[r->ia[k]].bwd[r->ib[k]], mu);
    case CAT_COLL: { /* after converged rounds, the last round's values (see rp_enter_backward) */
        const chan_t *c = &r->ch[r->ia[k]];
        uint64_t s = r->ib[k];
        int rounds = r->converged;
        if (r->g.inst[k].shape == ST_REL_PREFIX)
            return rp_suffix_min(ents_ro(c, rounds ? PH_R : PH_B, s), ref_order(r, k, p->slot), rounds, &v)
                       ? minus_mu(v, mu)
                       : UINT64_MAX;
        const top2_t *q = rounds ? rq(c, s, 1) : qof(c, PH_B, s);
        return quad_other(q, gid(&r->in->locs[loc]), &v) ? minus_mu(~v, mu) : UINT64_MAX;
    }
    default:
        return UINT64_MAX;
    }
}

int rp_backward_ready(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if (r->peers[i].send_inst.n && !r->peers[i].have_bwd)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_B].open)
            return 0;
    return 1;
}

void rp_run_backward(st_clc_replay_t *r)
{
    st_clc_scratch_t scratch = { 0 };
    for (uint32_t l = 0; l < r->in->nlocs && r->state != S_FAILED; l++) {
        const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
        uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l];
        if (st_clc_backward_loc(&r->p, &r->in->locs[l], l, ports, np, r->fwd[l].jumps, r->fwd[l].njumps, limit_of, r,
                                &scratch, &r->ramps, &r->bent))
            rp_fail(r, "out of memory");
    }
    st_clc_scratch_free(&scratch);
}
