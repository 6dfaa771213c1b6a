/*
 * replay.c — the parallel CLC of one rank (replay.h): making the engine (the derivation of
 * the rank's endpoints, the join into its partial graph, the state), the driver that moves it
 * through SETUP -> ROUNDS [-> FORWARD] -> BACKWARD -> STATISTICS -> DONE, and the public
 * accessors. How the engine works, and which file does what: replay_int.h; how a run that
 * checked relations first starts again: replay_restart.c.
 */
#include "replay_int.h"

#include <stdio.h>
#include <string.h>

#include "../util/log.h"

static const char *const state_names[] = { "setup", "forward", "backward", "statistics", "done", "failed", "round" };

/* Every member must take part in every instance: N counts the seqs of all collective calls.
 * Called by st_rel_endpoints() for each collective end it scans (opts.coll_end), so the events
 * are swept once. */
static void channel_count(void *ctx, const st_event_t *e)
{
    st_clc_replay_t *r = ctx;
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    uint64_t seq = e->kind == ST_EV_MPI_COLL_END ? e->id : e->aux;
    if (e->comm >= pr->ncomms || seq >= MAX_SEQ)
        return;
    for (uint8_t kind = CH_COMM; kind <= CH_INTER1; kind += CH_INTER1) {
        chan_t *c = rp_find_chan(r, kind, pr->comms[e->comm].key);
        if (c && seq + 1 > c->local_n)
            c->local_n = seq + 1;
    }
}

/* The dense C / LC arrays come only where something moves (st_clc_forward_loc; before it
 * loc->mono, set by st_rel_endpoints(), says where C first decreases). */
static void reset_times(st_clc_replay_t *r)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        st_mem_free(r->in->locs[l].orig);
        r->in->locs[l].orig = NULL;
        r->in->locs[l].mono = 0;
    }
}

/* Every forward result is in (so every scan is known) and every chain record (R_PFX) that
 * will come has come: none may arrive after the forward pass. */
static int forward_settled(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_F].open)
            return 0;
    return r->chain_wait == 0;
}

int st_clc_replay_progress(st_clc_replay_t *r)
{
    r->busy = 0;
    if (r->state == S_SETUP && r->counts_got >= r->incoming && r->setup_open == 0 &&
        (!r->chk || r->chk_got >= r->incoming))
        rp_start_forward(r); /* (what the setup sent is out: start and every delivery flush) */
    if (r->state == S_ROUND)
        rp_progress_round(r);
    if (r->state == S_FWD) {
        rp_drain(r, NONE32);
        if (r->state == S_FWD && r->unfinished == 0 && forward_settled(r))
            rp_enter_backward(r); /* (a cycle: the waves force, at the location run.c would) */
    }
    if (r->state == S_BWD && rp_backward_ready(r)) {
        rp_flush(r, 1); /* what others wait for (e.g. the rounds' result) goes before the local work */
        rp_run_backward(r);
        if (r->state == S_BWD)
            rp_enter_statistics(r);
    }
    if (r->state == S_STAT && rp_statistics_ready(r) && (!r->wv.used || r->wv.ended))
        rp_finish_statistics(r);
    if (r->state != S_FAILED)
        rp_flush(r, 1);
    if (r->state != S_FAILED && r->state != S_DONE) { /* the replay's waves: when there is nothing else to do */
        rp_wave_step(r, !r->busy);
        rp_flush(r, 1);
    }
    if (r->state == S_FAILED)
        return ST_CLC_REPLAY_FAILED;
    if (r->state == S_DONE)
        return ST_CLC_REPLAY_DONE;
    return r->busy ? ST_CLC_REPLAY_BUSY : ST_CLC_REPLAY_IDLE;
}

void st_clc_replay_partners(const st_clc_replay_t *r, uint8_t *flags)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        flags[r->peers[i].rank] = 1;
}

int st_clc_replay_start(st_clc_replay_t *r, uint32_t incoming)
{
    r->incoming = incoming;
    rp_send_counts(r);
    for (uint32_t i = 0; i < r->nch && r->state != S_FAILED; i++) {
        r->ch[i].setup.own = 1;
        rp_setup_try(r, &r->ch[i]);
    }
    if (r->state != S_FAILED)
        rp_flush(r, 1);
    return r->state == S_FAILED ? -1 : 0;
}

void st_clc_replay_waiting(const st_clc_replay_t *r, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "state %s", state_names[r->state]);
    if (r->state == S_SETUP)
        snprintf(buf + k, n > k ? n - k : 0, ": %u of %u partner counts, %u communicators unsettled%s", r->counts_got,
                 r->incoming, r->setup_open, r->chk && r->chk_got < r->incoming ? ", point-to-point checks awaited" : "");
    else if (r->state == S_FWD)
        snprintf(buf + k, n > k ? n - k : 0, ": %u locations unfinished, %llu scan prefixes awaited, wave %llu%s",
                 r->unfinished, (unsigned long long)r->chain_wait, (unsigned long long)r->wv.w,
                 r->wv.up ? " reported" : "");
    else if (r->state == S_ROUND)
        snprintf(buf + k, n > k ? n - k : 0, " %d: %u locations unfinished, sent %d, agreed %d", r->round,
                 r->unfinished, r->round_sent, r->conv.done);
}

void st_clc_replay_stats(const st_clc_replay_t *r, st_clc_stats_t *s) { *s = r->stats; }

void st_clc_replay_set_rounds(st_clc_replay_t *r, int rounds) { r->rounds_max = rounds < 0 ? 0 : rounds > 200 ? 200 : rounds; }

int st_clc_replay_rounds(const st_clc_replay_t *r) { return r->rounds_used; }

void st_clc_replay_on_moved(st_clc_replay_t *r, st_clc_moved_fn moved, void *ctx)
{
    r->moved = moved;
    r->moved_ctx = ctx;
}

int st_clc_replay_new(const st_clc_params_t *p, st_rel_input_t *in, int32_t me, st_rel_self_ends_t *self_ends,
                      const st_clc_replay_net_t *net, unsigned flags, st_clc_replay_t **out)
{
    *out = NULL;
    st_clc_replay_t *r = st_mem_calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->p = *p;
    r->in = in;
    r->me = me;
    r->nranks = in->nranks;
    if (st_xchg_out_init(&r->out, net, in->nranks)) {
        st_mem_free(r);
        return -1;
    }
    r->state = S_SETUP;
    for (uint32_t l = 0; l < in->nlocs; l++)
        if (in->locs[l].rank != me) {
            st_log_error("CLC (parallel, rank %d): location %u belongs to rank %d", me, l, in->locs[l].rank);
            st_mem_free(r);
            return -1;
        }
    st_rel_epvec_t ep = { 0 };
    st_rel_epsrc_t omp = { 0 }; /* the OpenMP endpoints, handed to the join without a block of their own */
    st_rel_epsrc_t p2p = { 0 }; /* the point-to-point ones, checked before they would go into the graph */
    int first = (flags & ST_CLC_REPLAY_CHECK_FIRST) != 0;
    int rc = me >= 0 && me < in->nranks && in->procs ? 0 : -1;
    if (rc == 0)
        rc = rp_build_channels(r);
    if (rc == 0)
        reset_times(r);
    if (rc == 0) {
        st_rel_derive_opts_t opts = { .coll_end = channel_count, .coll_end_ctx = r, .omit_self_ends = 1,
                                      .self_ends = self_ends };
        rc = st_rel_endpoints_split(in, me, &opts, &ep, &r->ds, &omp, first ? &p2p : NULL);
    }
    r->ds_scan = r->ds;
    int left_out = rc == 0 && first && omp.read ? rp_leave_out_omp(r, &omp) : 0;
    rc = left_out < 0 ? -1 : rc;
    left_out = rc == 0 && first ? rp_leave_out_p2p(r, &p2p, &ep) : 0; /* (none: an empty check, which partners may send to) */
    rc = left_out < 0 ? -1 : rc;
    st_rel_epsrc_free(&p2p);
    if (rc == 0)
        rc = st_rel_graph_join_src(ep.v, ep.n, &omp, in->nlocs,
                                   ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TAKE | ST_REL_JOIN_TIMES, &r->g);
    else
        st_rel_epvec_free(&ep);
    st_rel_epsrc_free(&omp);
    if (rc == 0)
        rc = rp_graph_ready(r);
    if (rc) {
        st_log_error("CLC (parallel, rank %d): out of memory deriving the dependencies", me);
        st_clc_replay_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void st_clc_replay_keep(st_clc_replay_t *r, st_rel_derived_t *d)
{
    st_rel_graph_free(&d->g);
    st_rel_epsrc_free(&d->omp), st_rel_epsrc_free(&d->p2p);
    d->omp = r->omp, d->p2p = r->p2p;
    r->omp = r->p2p = (st_rel_epsrc_t){ 0 };
    st_rel_graph_t *g = &r->g;
    d->g = (st_rel_graph_t){ .ninst = g->ninst, .inst = g->inst, .nrefs = g->nrefs, .refs = g->refs,
                             .nlocs = g->nlocs, .ds = g->ds };
    st_mem_free(g->port_first), st_mem_free(g->ports);
    g->inst = NULL, g->refs = NULL, g->port_first = NULL, g->ports = NULL; /* ninst stays: st_clc_replay_free reads it */
}

void st_clc_replay_free(st_clc_replay_t *r)
{
    if (!r)
        return;
    for (uint64_t k = 0; r->pin && k < r->g.ninst; k++)
        st_mem_free(r->pin[k].v);
    st_rel_graph_free(&r->g);
    st_rel_epsrc_free(&r->omp), st_rel_epsrc_free(&r->p2p);
    st_clc_p2pchk_free(r->chk);
    st_mem_free(r->cat), st_mem_free(r->ia), st_mem_free(r->ib), st_mem_free(r->tqi), st_mem_free(r->tq), st_mem_free(r->pending);
    st_mem_free(r->sched.wait_head);
    st_mem_free(r->ref_c), st_mem_free(r->ref_lc), st_mem_free(r->port_ref);
    for (uint32_t l = 0; r->fwd && l < r->in->nlocs; l++)
        st_mem_free(r->fwd[l].jumps);
    st_mem_free(r->fwd), st_mem_free(r->sched.wait_next), st_mem_free(r->sched.queue), st_mem_free(r->sched.queued);
    for (uint32_t i = 0; i < r->nch; i++)
        rp_chan_free(&r->ch[i]);
    st_mem_free(r->ch);
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        st_mem_free(pe->theirs), st_mem_free(pe->send_inst.v), st_mem_free(pe->recv_inst.v), st_mem_free(pe->bwd), st_mem_free(pe->stat), st_mem_free(pe->rin), st_mem_free(pe->cur);
    }
    st_mem_free(r->peers);
    st_mem_free(r->wv.ents.v), st_mem_free(r->wv.tents.v), st_mem_free(r->forced.v);
    st_mem_free(r->pin), st_mem_free(r->hot), st_mem_free(r->ref_port), st_mem_free(r->local_k.v), st_mem_free(r->coll_k.v);
    st_xchg_out_free(&r->out);
    for (size_t i = 0; i < r->ndef; i++)
        st_mem_free(r->def[i].buf);
    st_mem_free(r->def);
    st_mem_free(r);
}
