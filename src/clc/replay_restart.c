/*
 * replay_restart.c — checking relations first, and the restart when the check fails
 * (ST_CLC_REPLAY_CHECK_FIRST, replay.h). The whole protocol, in the order it runs:
 *
 *  Why. Most relations of a trace never need the engine's graph: after clock synchronization
 *  the usual trace has no violated relation, and then nothing moves. The OpenMP relations
 *  (most of a hybrid trace) and the point-to-point ones (most of an MPI trace) are therefore
 *  checked on C first and left out of the graph when they hold; only if something would move
 *  anyway does the run start again with them in.
 *
 *  1. Making the engine (st_clc_replay_new, flag set; only with bulk rounds). The derivation
 *     hands the OpenMP ends and the point-to-point ends out apart from the rest. When every
 *     location's C is monotone (all_mono):
 *       - OpenMP: rp_leave_out_omp counts them on C; none violated -> they stay out (the ends
 *         in r->omp, their counts in r->omp_on_c); else they go into the graph;
 *       - point-to-point: rp_leave_out_p2p keeps them out (the ends in r->p2p) and makes the
 *         check of them with the partners (r->chk, p2p_check.h).
 *     When C is not monotone a check on C proves nothing: both go into the graph.
 *  2. Agreeing before the start (the driver: replay_mpi.c's run_engine, test_clc_replay's
 *     drive). One reduction over all ranks says that every engine exists, whether any rank
 *     left its OpenMP relations out (st_clc_replay_omp_left_out) and whether every rank left
 *     its point-to-point ones out (st_clc_replay_p2p_left_out). Partners must treat their
 *     messages alike, so when not every rank left them out, the ranks that did make their
 *     engine again right away (st_clc_replay_again), before st_clc_replay_partners. Then, when
 *     the reduction said that any rank left its OpenMP relations out or that every rank left
 *     its point-to-point ones out, every rank calls st_clc_replay_restart_if_moving.
 *  3. Setup. With the check, every partner gets one R_P2PCHK record (the C of the sends to
 *     it; maybe empty) beside its R_COUNTS (rp_send_counts), and the setup waits for one from
 *     each rank that flagged this one (rp_on_p2pchk; st_clc_replay_progress).
 *  4. Round 0 (replay_converge.c, rp_moves_on_c) counts what would move on C: remote receives
 *     by the sends' C just exchanged, local relations, locations whose C decreases, and the
 *     receives the check found violated (st_clc_p2pchk_violated). The round's reduction gives
 *     every rank the same answer.
 *  5. Nothing moves: the rounds have converged at round 0, the left-out relations were right
 *     to stay out. Their counts join the statistics (rp_finish_statistics: r->omp_on_c,
 *     st_clc_p2pchk_finish), and st_clc_replay_keep hands their ends on (the in-run analysis
 *     joins them from there).
 *     Something moves, with restart_if_moving: the engine ends DONE at round 0 having changed
 *     nothing, st_clc_replay_restart() true on every rank (replay_rounds.c, round_next).
 *  6. Starting again. The ranks agree that all of them stopped so (one that failed meanwhile
 *     must not leave the others alone in the next run's collectives), then every rank makes
 *     its engine anew with st_clc_replay_again: the graph read back from the old engine's
 *     graph plus the left-out ends (st_rel_derived_src: no second sweep over the events), the
 *     channels' instance counts taken over, without the flag — so a run restarts at most
 *     once — and the caller sets rounds and st_clc_replay_on_moved again, then partners,
 *     start and the message loop as the first time.
 */
#include "replay_int.h"

#include <string.h>

#include "../util/log.h"

/* Whether every location's C is monotone (the checks on C stand for CLC only then). */
static int all_mono(const st_clc_replay_t *r)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        if (r->in->locs[l].mono < r->in->locs[l].n)
            return 0;
    return 1;
}

/* ST_CLC_REPLAY_CHECK_FIRST: the OpenMP relations in omp (none of them violated on C, and no
 * location's C decreasing) stay out of the graph: 1, with their counts in r->omp_on_c and omp kept
 * in r->omp; 0 when they must go in (omp rewound); -1 out of memory. */
int rp_leave_out_omp(st_clc_replay_t *r, st_rel_epsrc_t *omp)
{
    if (!all_mono(r))
        return 0;
    st_clc_stats_t *s = &r->omp_on_c;
    if (st_clc_violations_src(omp, r->in->nlocs, &r->p, s))
        return -1;
    st_rel_epsrc_rewind(omp);
    for (int k = 0; k < ST_REL__KINDS; k++)
        if (s->violations.violated[k]) {
            *s = (st_clc_stats_t){ 0 };
            return 0;
        }
    s->remaining = s->violations;
    r->omp = *omp;
    *omp = (st_rel_epsrc_t){ 0 };
    return 1;
}

/* ST_CLC_REPLAY_CHECK_FIRST: the point-to-point ends in p2p stay out of the graph, checked with
 * the partners at the setup (r->chk, p2p kept in r->p2p): 1; 0 when they must go in (C not
 * monotone): then they are put before ep's endpoints (their key type is the first), ep's
 * block growing by them; -1 out of memory. */
int rp_leave_out_p2p(st_clc_replay_t *r, st_rel_epsrc_t *p2p, st_rel_epvec_t *ep)
{
    if (all_mono(r)) {
        if (st_clc_p2pchk_new(p2p, r->me, r->nranks, &r->p, &r->chk))
            return -1;
        r->p2p = *p2p;
        *p2p = (st_rel_epsrc_t){ 0 };
        return 1;
    }
    if (!p2p->read)
        return 0;
    st_rel_endpoint_t *v = st_mem_malloc(sizeof *v * (p2p->n + ep->cap + 1));
    if (!v)
        return -1;
    size_t got = 0, k;
    while (got < p2p->n && (k = st_rel_epsrc_read(p2p, v + got, p2p->n - got)) > 0)
        got += k;
    if (ep->n)
        memcpy(v + got, ep->v, sizeof *v * ep->n);
    st_mem_free(ep->v);
    ep->v = v, ep->n += got, ep->cap += got;
    return 0;
}

int st_clc_replay_again(st_clc_replay_t *old, const st_clc_replay_net_t *net, st_clc_replay_t **out)
{
    *out = NULL;
    st_clc_replay_t *r = st_mem_calloc(1, sizeof *r);
    if (!r)
        return -1;
    *r = (st_clc_replay_t){ .p = old->p, .in = old->in, .me = old->me, .nranks = old->nranks, .state = S_SETUP,
                            .ds = old->ds_scan, .ds_scan = old->ds_scan };
    int rc = st_xchg_out_init(&r->out, net, r->nranks) ? -1 : rp_build_channels(r);
    for (uint32_t i = 0; rc == 0 && i < r->nch; i++) /* counted by the derivation's sweep (channel_count) */
        r->ch[i].local_n = old->ch[i].local_n;
    /* the graph anew from old's, read back as endpoints, and the OpenMP ends it left out; nothing
     * has moved, so the refs' times are still C (old->ref_c) */
    st_rel_derived_t d = { .g = old->g, .omp = old->omp, .p2p = old->p2p };
    d.g.ref_time = old->ref_c;
    st_rel_derived_pos_t pos = { 0 };
    st_rel_epsrc_t src = { 0 };
    if (rc == 0)
        rc = st_rel_derived_src(&d, &pos, 0, &src);
    if (rc == 0)
        rc = st_rel_graph_join_src(NULL, 0, &src, r->in->nlocs, ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TIMES, &r->g);
    st_rel_epsrc_free(&src);
    if (rc == 0)
        rc = rp_graph_ready(r);
    st_clc_replay_free(old);
    if (rc) {
        st_log_error("CLC (parallel, rank %d): out of memory deriving the dependencies", r->me);
        st_clc_replay_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

int st_clc_replay_omp_left_out(const st_clc_replay_t *r) { return r->omp.read != NULL; }

int st_clc_replay_p2p_left_out(const st_clc_replay_t *r) { return r->chk != NULL; }

void st_clc_replay_restart_if_moving(st_clc_replay_t *r) { r->restart_if_moving = 1; }

int st_clc_replay_restart(const st_clc_replay_t *r) { return r->restart; }
