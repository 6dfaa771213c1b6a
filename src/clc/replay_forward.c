/*
 * replay_forward.c — the forward pass of the engine (replay_int.h): the callbacks of
 * st_clc_forward_loc (the bound of a receive from what is known of its sends, a computed
 * send handed to its quad, its receiver or its channel tree), the scheduler's loop over
 * runnable locations (schedule.h, shared with run.c), forcing a receive when every unfinished
 * location waits on this process alone, the instances' preparation after the setup, and the
 * message-by-message replay: its start and its R_FWD records (one per destination, values
 * appended while it is open).
 */
#include "replay_int.h"

#include <string.h>

#include "../util/log.h"

static uint8_t *ob_reserve(st_clc_replay_t *r, int32_t to, size_t n, st_xchg_buf_t **pb)
{
    if (to < 0 || to >= r->nranks)
        return rp_fail(r, "message for rank %d outside the world", to), NULL;
    uint8_t *p = st_xchg_reserve(&r->out, to, n, pb);
    if (!p)
        rp_fail(r, "out of memory");
    return p;
}

/* One forward point-to-point value: appended to the open R_FWD record of the receiver. */
static void send_fwd(st_clc_replay_t *r, const peer_t *pe, uint64_t idx, uint64_t lc)
{
    st_xchg_buf_t *b = st_xchg_buf(&r->out, pe->rank);
    if (!b || b->open_at == SIZE_MAX) {
        if (!rp_rec_begin(r, pe->rank, R_FWD, PH_F, NULL, 0, 0, 0))
            return;
        b = st_xchg_buf(&r->out, pe->rank);
        b->open_at = b->len - sizeof(rec_t);
    }
    uint64_t pair[2] = { idx, lc };
    size_t at = b->open_at;
    uint8_t *p = ob_reserve(r, pe->rank, sizeof pair, NULL);
    if (!p)
        return;
    memcpy(p, pair, sizeof pair);
    rec_t h;
    memcpy(&h, b->data + at, sizeof h);
    h.len += sizeof pair;
    memcpy(b->data + at, &h, sizeof h);
    b->open_at = at;
}

void rp_result_ready(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns)
{
    c->ph[ph].open--;
    if (ph != PH_F)
        return;
    for (uint64_t s = s0; s < s0 + ns; s++) {
        if (c->ph[PH_F].shape[s] == SH_PREFIX)
            rp_chain_known(r, c, s);
        uint64_t ks[2] = { c->inst0[s], c->inst1[s] };
        for (int j = 0; j < 2; j++) {
            uint64_t k = ks[j];
            if (k == NONE64)
                continue;
            if (c->ph[PH_F].shape[s] == SH_PRODUCT)
                *tq_of(r, k) = *qof(c, PH_F, s);
            r->pending[k] = 0;
            st_clc_sched_wake(&r->sched, k);
        }
    }
}

static int fwd_recv_bound(void *ctx, uint32_t loc, const st_rel_port_t *p, int force, uint64_t *bound, uint8_t *kind)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst, v = 0;
    const st_rel_inst_t *in = &r->g.inst[k];
    *kind = in->kind;
    int ready = !r->pending[k] || rp_chain_ready(r, k, p);
    if (!ready && !force)
        return 0;
    if (!ready && r->wv.force_set && r->cat[k] == CAT_COLL) { /* forced through a cycle across ranks */
        *bound = r->wv.force_have ? r->wv.force_v + st_clc_mu(&r->p, in->mumask) : 0;
        return 1;
    }
    int have;
    if (r->cat[k] == CAT_COLL && in->shape == ST_REL_PREFIX) {
        const chan_t *c = &r->ch[r->ia[k]];
        const entvec_t *e = r->state == S_ROUND ? (r->pin ? &r->pin[k] : NULL) : ents_ro(c, PH_F, r->ib[k]);
        have = ready && rp_prefix_max(e, ref_order(r, k, p->slot), 0, &v);
    } else if (r->cat[k] == CAT_IN) { /* the value arrived (pending 0) or none is known yet */
        const peer_t *pe = &r->peers[r->ia[k]];
        if ((have = !r->pending[k]))
            v = pe->cur[r->ib[k]];
    } else {
        const top2_t *q = tq_of(r, k);
        have = q && quad_other(q, gid(&r->in->locs[loc]), &v);
    }
    *bound = have ? v + st_clc_mu(&r->p, in->mumask) : 0;
    return 1;
}

static void fwd_send_done(void *ctx, uint32_t loc, const st_rel_port_t *p, uint64_t lc)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst;
    switch (r->cat[k]) {
    case CAT_LOCAL:
        quad_put(tq_of(r, k), lc, gid(&r->in->locs[loc]));
        if (--r->pending[k] == 0)
            st_clc_sched_wake(&r->sched, k);
        break;
    case CAT_OUT:
        if (r->state != S_ROUND) /* rounds send all values at the end of the round */
            send_fwd(r, &r->peers[r->ia[k]], r->ib[k], lc);
        break;
    case CAT_COLL: {
        chan_t *c = &r->ch[r->ia[k]];
        if (r->state == S_ROUND)
            break; /* contributed at the end of the round */
        uint64_t s = r->ib[k];
        if (r->g.inst[k].shape == ST_REL_PREFIX) {
            entvec_t *e = rp_ents(r, c, PH_F, s);
            if (e && rp_ent_push(e, (ent_t){ .order = ref_order(r, k, p->slot), .v = { lc, 0 } }))
                rp_fail(r, "out of memory");
        } else {
            quad_put(qof(c, PH_F, s), lc, gid(&r->in->locs[loc]));
        }
        if (--c->pend[s] == 0) {
            rp_own_done(r, c, PH_F, s);
            if (c->lshape[s] == SH_PREFIX)
                rp_chain_send(r, c, s);
        }
        break;
    }
    default:
        break;
    }
}

const st_clc_fwd_ops_t rp_fwd_ops = { fwd_recv_bound, fwd_send_done };

int rp_drain(st_clc_replay_t *r, uint32_t forced)
{
    while (r->sched.qlen && (r->state == S_FWD || r->state == S_ROUND)) {
        uint32_t l = st_clc_sched_next(&r->sched);
        const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
        uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l], before = r->fwd[l].pos;
        int rc = st_clc_forward_loc(&r->p, &r->in->locs[l], l, ports, np, &r->fwd[l], &rp_fwd_ops, r, l == forced);
        forced = NONE32;
        r->busy |= r->fwd[l].pos != before;
        r->wv.prog += r->fwd[l].pos != before;
        if (rc == ST_CLC_NOMEM)
            return rp_fail(r, "out of memory"), -1;
        if (rc == ST_CLC_BLOCKED) {
            uint64_t k = ports[r->fwd[l].blocked].inst;
            st_clc_sched_wait(&r->sched, l, k);
        } else {
            r->unfinished--;
        }
        if (r->state == S_FWD)
            rp_flush(r, 0);
    }
    return 0;
}

/* A wait that nothing remote can end (a dependency cycle inside the process). */
static int local_wait(const st_clc_replay_t *r, uint64_t k)
{
    return r->cat[k] == CAT_LOCAL || (r->cat[k] == CAT_COLL && r->ch[r->ia[k]].t.n == 1);
}

/* Counts (clc.unresolved) and reports the receive location l waits for, about to be forced. */
void rp_count_forced(st_clc_replay_t *r, uint32_t l)
{
    uint64_t port = r->g.port_first[l] + r->fwd[l].blocked;
    for (size_t i = 0; i < r->forced.n; i++)
        if (r->forced.v[i] == port)
            return;
    if (rp_u64_push(&r->forced, port))
        return rp_fail(r, "out of memory");
    if (r->unresolved++ == 0)
        st_log_warn("CLC: cyclic happened-before relations (inconsistent trace) at rank %d thread %u event %llu;"
                    " receive corrected with the sends known so far",
                    r->in->locs[l].rank, r->in->locs[l].thread, (unsigned long long)r->g.ports[port].ev);
}

/* Like run.c: when every unfinished location waits on this process alone, force the lowest. */
void rp_break_local_cycle(st_clc_replay_t *r)
{
    uint32_t first = NONE32;
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        if (r->fwd[l].pos >= r->in->locs[l].n)
            continue;
        const st_rel_port_t *port = r->g.ports + r->g.port_first[l] + r->fwd[l].blocked;
        if (!local_wait(r, port->inst))
            return;
        if (first == NONE32)
            first = l;
    }
    if (first == NONE32)
        return;
    const st_rel_port_t *port = r->g.ports + r->g.port_first[first] + r->fwd[first].blocked;
    rp_count_forced(r, first);
    st_clc_sched_unlink(&r->sched, port->inst, first);
    st_clc_sched_enqueue(&r->sched, first);
    rp_drain(r, first);
}

/* After the setup: which messages have both ends, which instances a channel seq holds. */
void rp_prepare_instances(st_clc_replay_t *r)
{
    if (rp_match_peers(r))
        return rp_fail(r, "out of memory");
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        if (r->cat[k] != CAT_COLL)
            continue;
        chan_t *c = &r->ch[r->ia[k]];
        uint64_t seq;
        rp_inst_chan(r, &r->g.inst[k], &seq);
        if (seq >= c->N || (c->inst0[seq] != NONE64 && c->inst1[seq] != NONE64)) {
            r->cat[k] = CAT_DEAD;
            r->pending[k] = 0;
            continue;
        }
        r->ib[k] = (uint32_t)seq; /* < c->N <= MAX_SEQ */
        *(c->inst0[seq] == NONE64 ? &c->inst0[seq] : &c->inst1[seq]) = k;
        c->pend[seq] += r->g.inst[k].nsend;
        c->lshape[seq] = r->g.inst[k].shape == ST_REL_PREFIX ? SH_PREFIX : SH_PRODUCT;
    }
}

/* Forward state of every location as before any forward pass. */
void rp_reset_locs(st_clc_replay_t *r)
{
    r->sched.qhead = r->sched.qlen = 0;
    r->unfinished = 0;
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        st_mem_free(r->fwd[l].jumps);
        memset(&r->fwd[l], 0, sizeof r->fwd[l]);
        r->sched.wait_next[l] = NONE32;
        r->sched.queued[l] = 0;
        r->unfinished += r->in->locs[l].n > 0;
    }
}

/* Forward state of every location and instance as before the replay. */
static void reset_forward(st_clc_replay_t *r)
{
    rp_reset_locs(r);
    if (rp_ensure_tq(r))
        return;
    for (uint64_t i = 0; i < r->ntq; i++)
        r->tq[i] = quad_empty;
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        r->sched.wait_head[k] = NONE32;
        r->pending[k] = r->cat[k] == CAT_LOCAL ? r->g.inst[k].nsend : r->cat[k] == CAT_IN || r->cat[k] == CAT_COLL;
    }
}

/* The message-by-message replay (also the fallback when bulk rounds do not converge). */
void rp_enter_forward(st_clc_replay_t *r)
{
    if (rp_ensure_cur(r) || rp_phases_arrays(r, PH_F))
        return;
    reset_forward(r);
    r->state = S_FWD;
    r->wv.used = 1;
    rp_world_tree(r);
    if (r->me == 0)
        rp_wave_start(r, 1, W_NONE);
    rp_replay_deferred(r);
    for (uint32_t i = 0; i < r->nch; i++)
        for (uint64_t s = 0; s < r->ch[i].N; s++) {
            if (r->ch[i].pend[s] == 0)
                rp_own_done(r, &r->ch[i], PH_F, s);
            if (r->ch[i].lshape[s] == SH_PREFIX)
                rp_chain_known(r, &r->ch[i], s);
        }
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        st_clc_sched_enqueue(&r->sched, l);
    r->busy = 1;
}

int rp_on_fwd(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = rp_find_peer(r, from);
    if (!pe || h->len % 16)
        return -1;
    for (uint64_t i = 0; i < h->len / 16; i++) {
        uint64_t idx = 0, v = 0;
        st_xchg_get_u64(rd, &idx);
        st_xchg_get_u64(rd, &v);
        if (idx >= pe->recv_inst.n)
            return -1;
        uint64_t k = pe->recv_inst.v[idx];
        if (!r->pending[k])
            return -1;
        pe->cur[idx] = v;
        r->pending[k] = 0;
        st_clc_sched_wake(&r->sched, k);
    }
    return 0;
}
