/*
 * replay_rounds.c — the bulk rounds of the forward pass (replay_int.h): each round's inputs,
 * its incremental passes, its exchange (R_RVAL to the partners, one PH_R operation per
 * channel), and what follows once all ranks agree whether anything would still move
 * (replay_converge.c): the backward pass, another round, or the message-by-message replay.
 * Also the start of the forward pass after the setup.
 */
#include "replay_int.h"

#include <string.h>

/*
 * LC is monotone in the values of the sends a location receives from, so iterating "every
 * rank computes its whole forward pass from the previous round's remote values, then all
 * send values are exchanged at once" from no remote values at all rises to the least fixed
 * point, which for a consistent trace is the unique solution the replay computes. It
 * has converged when, with the values just exchanged, no receive anywhere would move (its
 * new bound does not exceed its LC): bounds only grow from round to round, so the current LC
 * then satisfy every equation with the new values and are the least fixed point — no
 * confirming pass (one "would anything move" reduction over all ranks per round). Round 0
 * runs no forward pass: it exchanges the sends' C, a lower bound of their LC; when nothing
 * would move on C (rp_moves_on_c: the usual trace), C is that fixed point and no pass runs at
 * all. A round costs a pass over the events and one exchange, instead of one message
 * latency per hop of every causal chain: much cheaper when corrections do not chain across
 * many ranks, which is the usual case (a jump is caused by the raw time of a send: one
 * forward pass). When they do, rounds_max bounds the attempt and the message-by-message
 * replay takes over.
 */

/* A partner's round values: the LC of its sends this rank receives, then (from round 1 on, see
 * round_end) of its receives from this rank; none: the same as in the round before. */
int rp_on_rval(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = rp_find_peer(r, from);
    size_t nr = pe ? pe->recv_inst.n * 8 : 0, want = pe ? (h->round ? nr + pe->send_inst.n * 8 : nr) : 0;
    if (!pe || (h->len != want && (h->len || !h->round)) || pe->rin_round >= (int)h->round)
        return -1;
    if (h->len) { /* else the same values as in the round before */
        memcpy(pe->rin, rd->p, nr);
        memcpy(pe->bwd, rd->p + nr, h->len - nr);
    }
    pe->rin_round = h->round;
    pe->rin_same = !h->len;
    rd->p += h->len;
    return 0;
}

/* The remote sends' values the forward passes read (peer_t.cur): from the first pass on. */
int rp_ensure_cur(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        if (!pe->cur && !(pe->cur = st_mem_malloc((pe->recv_inst.n + 1) * sizeof *pe->cur)))
            return rp_fail(r, "out of memory"), -1;
    }
    return 0;
}

/* Forward state of the instances for a round: nothing pending but local sends, and the
 * previous round's values of the remote sends as inputs (none in round 0). */
static void round_inputs(st_clc_replay_t *r)
{
    if (r->round == 0) {
        for (uint64_t k = 0; k < r->g.ninst; k++) {
            r->sched.wait_head[k] = NONE32;
            r->pending[k] = r->cat[k] == CAT_LOCAL ? r->g.inst[k].nsend : 0;
        }
        return; /* round 0 runs no pass: no quads (rp_ensure_tq) */
    }
    if (rp_ensure_tq(r))
        return;
    for (size_t j = 0; j < r->local_k.n; j++) {
        uint64_t k = r->local_k.v[j];
        r->pending[k] = r->g.inst[k].nsend;
        *tq_of(r, k) = quad_empty;
    }
    if (rp_ensure_cur(r))
        return;
    for (uint32_t i = 0; i < r->npeers; i++) { /* rin may be overwritten by the next round's values meanwhile */
        const peer_t *pe = &r->peers[i];
        if (!pe->rin_same && pe->recv_inst.n)
            memcpy(pe->cur, pe->rin, pe->recv_inst.n * sizeof *pe->cur);
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], s = r->ib[k];
        chan_t *c = &r->ch[r->ia[k]];
        if (r->g.inst[k].shape != ST_REL_PREFIX) {
            *tq_of(r, k) = *rq(c, s, 0);
        } else if (c->ph[PH_R].ent) {
            entvec_t *e = &r->pin[k], *from = &c->ph[PH_R].ent[s];
            if (st_mem_grow((void **)&e->v, &e->cap, from->n + 1, sizeof *e->v))
                return rp_fail(r, "out of memory");
            memcpy(e->v, from->v, from->n * sizeof *e->v);
            e->n = from->n;
        }
    }
}

/* The ports' HOT_* marks for the rounds' incremental passes, from round 1 on (made at the
 * end of round 0 when something would move, else at round 1's start). 0, or -1 (failed). */
static int alloc_hot(st_clc_replay_t *r)
{
    if (r->hot)
        return 0;
    r->hot = st_mem_malloc(r->g.nrefs + 1);
    r->ref_port = st_mem_malloc((r->g.nrefs + 1) * sizeof *r->ref_port);
    if (!r->hot || !r->ref_port)
        return rp_fail(r, "out of memory"), -1;
    for (uint64_t j = 0; j < r->g.nrefs; j++) { /* ports and refs are one-to-one */
        r->ref_port[r->port_ref[j]] = (uint32_t)j;
        r->hot[j] = r->cat[r->g.ports[j].inst] == CAT_LOCAL ? HOT_LOCAL : 0;
    }
    return 0;
}

/* Round 0 runs no forward pass: it exchanges the sends' C, a lower bound of their LC
 * (LC >= C), so that round 1 starts from the raw times instead of from nothing. */
static void round_begin(st_clc_replay_t *r)
{
    if (r->round > 0 && alloc_hot(r))
        return;
    if (rp_phases_arrays(r, PH_R))
        return;
    rp_reset_locs(r);
    round_inputs(r);
    for (uint32_t i = 0; i < r->nch; i++)
        rp_reset_phase(&r->ch[i], PH_R);
    memset(&r->conv, 0, sizeof r->conv);
    r->conv_val = 0;
    r->changed = 0;
    r->round_sent = 0;
    r->state = S_ROUND;
    rp_replay_deferred(r);
    if (r->round == 0)
        r->unfinished = 0; /* event times are still C */
    for (uint32_t l = 0; r->round && l < r->in->nlocs; l++) {
        /* LC holds the last round's pass: recompute what changed. Round 0 ran none, but LC = C
         * is what a pass leaves where no receive jumps and C does not decrease (the identity
         * of st_clc_base_of): round 1 is incremental too, except on a location whose C dips. */
        if (r->round >= 2 || r->in->locs[l].mono >= r->in->locs[l].n)
            r->fwd[l].hot = r->hot + r->g.port_first[l];
        st_clc_sched_enqueue(&r->sched, l);
    }
    r->busy = 1;
}

/* This round's send values: to the receivers, and as contributions to the channel trees. */
static void round_end(st_clc_replay_t *r)
{
    r->lc_same = r->round >= 2;
    for (uint32_t l = 0; r->lc_same && l < r->in->nlocs; l++)
        r->lc_same = r->fwd[l].changed == 0;
    if (r->round > 0 && !r->lc_same) /* this round's LC, also for rp_would_move (round 0 ran no pass: C) */
        rp_snap_times(r);
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j];
        const st_rel_inst_t *in = &r->g.inst[k];
        chan_t *c = &r->ch[r->ia[k]];
        c->ph[PH_R].shape[r->ib[k]] = rp_merge_shape(r, c->ph[PH_R].shape[r->ib[k]],
                                                  in->shape == ST_REL_PREFIX ? SH_PREFIX : SH_PRODUCT);
        for (uint32_t i = 0; i < in->nsend + in->nrecv; i++) { /* sends, then receives */
            const st_rel_ref_t *x = &r->g.refs[in->first + i];
            uint64_t v = ref_time(r, x);
            int recv = i >= in->nsend;
            if (in->shape == ST_REL_PREFIX) {
                entvec_t *e = rp_ents(r, c, PH_R, r->ib[k]);
                ent_t en = { .order = x->order, .v = { recv ? NONE64 : v, recv ? v : NONE64 } };
                if (!e || rp_ent_push(e, en))
                    return rp_fail(r, "out of memory");
            } else {
                quad_put(rq(c, r->ib[k], recv), recv ? ~v : v, gid(&r->in->locs[x->loc]));
            }
        }
    }
    /* To each partner: the LC of the sends it receives, then of the receives from it (the
     * limits of its sends, should this round be the last); nothing if no LC changed. Round 0
     * leaves the receives out: if it is the last, nothing jumped and no limit is read (limit_of);
     * if not, the next round or the replay's backward exchange brings them. */
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        size_t n = pe->send_inst.n + pe->recv_inst.n, nput = r->round ? n : pe->send_inst.n;
        if (!n)
            continue;
        uint8_t *p = rp_rec_begin(r, pe->rank, R_RVAL, PH_R, NULL, 0, 0, r->lc_same ? 0 : nput * 8);
        for (size_t j = 0; p && !r->lc_same && j < pe->send_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->send_inst.v[j]].first]));
        for (size_t j = 0; p && !r->lc_same && r->round && j < pe->recv_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->recv_inst.v[j]].first]));
    }
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N)
            rp_own_done(r, &r->ch[i], PH_R, 0);
    r->round_sent = 1;
}

/* The values of this round's exchange have all arrived. */
static int round_inputs_in(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if ((r->peers[i].recv_inst.n || r->peers[i].send_inst.n) && r->peers[i].rin_round != r->round)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_R].open)
            return 0;
    return 1;
}

/* Contributes "would anything move" once the exchange is complete; ready when all agree. */
static int round_ready(st_clc_replay_t *r)
{
    if (!r->round_sent || !round_inputs_in(r))
        return 0;
    if (!r->conv.own) {
        r->changed = r->round == 0 ? rp_moves_on_c(r) : rp_would_move(r);
        if (r->round == 0 && r->changed && r->rounds_max > 1 && alloc_hot(r) == 0)
            rp_would_move(r); /* now marks the receives round 1's incremental pass starts at */
        r->conv_val = r->conv_val > r->changed ? r->conv_val : r->changed;
        r->conv.own = 1;
        rp_conv_try(r);
    }
    return r->conv.done;
}

/* Converged: this round's LC are final. Otherwise another round, or the replay. */
static void round_next(st_clc_replay_t *r)
{
    if (r->conv_val && r->round == 0 && r->restart_if_moving) { /* on C something moves: the restart (replay_restart.c) */
        r->restart = 1;
        r->state = S_DONE;
        return;
    }
    if (r->conv_val == 0) {
        if (r->round == 0)
            rp_count_on_c(r);
        r->rounds_used = r->round + 1;
        r->converged = 1;
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_S].open = 0;
        for (uint32_t l = 0; l < r->in->nlocs; l++) { /* incremental passes record no jumps */
            const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
            uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l];
            int rc = st_clc_jumps_loc(&r->p, &r->in->locs[l], l, ports, np, &r->fwd[l], &rp_fwd_ops, r);
            if (rc != ST_CLC_DONE)
                return rp_fail(r, rc == ST_CLC_NOMEM ? "out of memory" : "bulk rounds: a receive bound is missing");
        }
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_F].open = 0; /* the replay's trees are not needed */
        rp_enter_backward(r);
    } else if (r->round + 1 < r->rounds_max) {
        if (r->round == 0)
            rp_count_on_c(r);
        r->round++;
        round_begin(r);
    } else {
        r->rounds_used = -(r->round + 1);
        rp_enter_forward(r);
    }
}

void rp_progress_round(st_clc_replay_t *r)
{
    rp_drain(r, NONE32);
    if (r->state != S_ROUND)
        return;
    if (!r->round_sent && r->unfinished == 0) {
        round_end(r);
        rp_flush(r, 1); /* the exchange first, then rp_would_move */
    }
    else if (!r->round_sent && r->sched.qlen == 0)
        rp_break_local_cycle(r);
    if (r->state == S_ROUND && round_ready(r))
        round_next(r);
}

/* Starts the forward pass after the setup: rounds if allowed, else the replay. */
void rp_start_forward(st_clc_replay_t *r)
{
    rp_prepare_instances(r);
    if (r->state == S_FAILED)
        return;
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        pe->rin_round = -1;
        pe->rin = st_mem_malloc((pe->recv_inst.n + 1) * sizeof *pe->rin);
        if (!pe->rin)
            return rp_fail(r, "out of memory");
    }
    if (r->rounds_max <= 0) {
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_R].open = 0; /* no rounds */
        rp_enter_forward(r);
        return;
    }
    int scans = 0; /* pin is per instance but only scans use it: most traces have none */
    for (uint64_t k = 0; k < r->g.ninst && !scans; k++)
        scans = r->cat[k] == CAT_COLL && r->g.inst[k].shape == ST_REL_PREFIX;
    r->pin = scans ? st_mem_calloc(r->g.ninst + 1, sizeof *r->pin) : NULL;
    if (scans && !r->pin)
        return rp_fail(r, "out of memory");
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (r->cat[k] == CAT_COLL && rp_u64_push(&r->coll_k, k))
            return rp_fail(r, "out of memory");
    rp_world_tree(r);
    r->round = 0;
    round_begin(r);
}
