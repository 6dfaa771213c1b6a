/*
 * derive.c — logical messages from recorded events, per process (endpoints.h): the one
 * scan over a rank's events and the entry points.
 *
 * Which event is the logical send / receive is each kind's own file: point-to-point
 * (derive_p2p.c), collectives and MPI_Init / MPI_Finalize (derive_coll.c), one-sided
 * communication (derive_rma.c: the window collectives; derive_pscw.c: post, start, complete,
 * wait; derive_lock.c: lock epochs, from the input's table of them), OpenMP (derive_omp.c). A rank's events are read in one pass
 * (scan_event): traces are far larger than the caches, so each pass is a sweep over memory.
 * What needs all of them (p2p numbering, cancelled requests, nonblocking requests started on
 * another thread, window collectives, locks, tasks) is collected in it and finished
 * afterwards; the endpoints wait in side vectors by key type and come out in the join's
 * order (sources.c).
 */
#include "derive_int.h"

int st_rel_epvec_push(st_rel_epvec_t *v, const st_rel_endpoint_t *ep)
{
    return PUSH(*v, *ep);
}

void st_rel_epvec_free(st_rel_epvec_t *v)
{
    st_mem_free(v->v);
    memset(v, 0, sizeof *v);
}

/* Everything one rank's events produce, collected in one pass over them (the trace is
 * far larger than the caches: every extra pass costs a full memory sweep). */
typedef struct scan {
    u64vec_t    cancelled;
    p2p_chans_t chans;
    p2pvec_t    sends, recvs;
    icollvec_t  reqs;
    icdvec_t    done;
    rmacollvec_t rma_coll;
    pscwvec_t   pscw;
    omp_state_t omp;
} scan_t;

static int scan_event(ctx_t *c, scan_t *s, omp_loc_t *ol, uint32_t l, uint64_t i, uint64_t *enter, uint64_t *begin)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    switch (e->kind) {
    case ST_EV_ENTER:
        *enter = i;
        /* fall through */
    case ST_EV_LEAVE:
        if (c->in->nsync && c->in->sync && e->region >= c->sync_lo && e->region <= c->sync_hi &&
            rel_sync_event(c, e, l, i))
            return -1;
        return rel_omp_region_wanted(e->region) ? rel_omp_region_event(c, &s->omp, ol, e, l, i) : 0;
    case ST_EV_MPI_SEND:
    case ST_EV_MPI_ISEND:
    case ST_EV_MPI_RECV:
    case ST_EV_MPI_IRECV:
        return rel_p2p_event(c, &s->chans, &s->sends, &s->recvs, l, i, e);
    case ST_EV_MPI_REQUEST_CANCELLED:
        return PUSH(s->cancelled, e->id);
    case ST_EV_MPI_COLL_BEGIN:
        *begin = i;
        return 0;
    case ST_EV_MPI_COLL_END:
        if (c->opts->coll_end)
            c->opts->coll_end(c->opts->coll_end_ctx, e);
        return rel_coll_end(c, l, i, begin, *enter);
    case ST_EV_MPI_ICOLL_REQUEST: {
        icoll_req_t r = { .id = e->id, .loc = l, .enter = i };
        return PUSH(s->reqs, r);
    }
    case ST_EV_MPI_ICOLL_COMPLETE: {
        if (c->opts->coll_end)
            c->opts->coll_end(c->opts->coll_end_ctx, e);
        icoll_done_t d = { l, i };
        return PUSH(s->done, d);
    }
    case ST_EV_RMA_COLL_BEGIN:
        *begin = i;
        return 0;
    case ST_EV_RMA_COLL_END:
        return rel_rma_coll_end(c, &s->rma_coll, l, i, begin, *enter);
    case ST_EV_RMA_GROUP_SYNC:
        return rel_pscw_event(c, &s->pscw, l, i, *enter);
    default:
        return rel_omp_event(c, &s->omp, ol, e, l, i);
    }
}

/* The events of location l; sets its mono (where its times first go back). */
static int scan_loc(ctx_t *c, scan_t *s, uint32_t l)
{
    omp_loc_t ol = { 0 };
    st_rel_loc_t *L = &c->in->locs[l];
    uint64_t enter = NO_EV, begin = NO_EV, mono = L->n, prev = 0;
    int rc = rel_omp_frame_push(&s->omp, &ol, 0);
    for (uint64_t i = 0; rc == 0 && i < L->n; i++) {
        if (L->ev[i].time < prev && mono == L->n)
            mono = i;
        prev = L->ev[i].time;
        rc = scan_event(c, s, &ol, l, i, &enter, &begin);
    }
    L->mono = mono;
    st_mem_free(ol.st);
    st_mem_free(ol.tw);
    return rc;
}

static void scan_free(scan_t *s)
{
    st_mem_free(s->cancelled.v), st_mem_free(s->chans.v), st_mem_free(s->chans.slot), st_mem_free(s->sends.v), st_mem_free(s->recvs.v), st_mem_free(s->reqs.v), st_mem_free(s->done.v), st_mem_free(s->rma_coll.v);
    st_mem_free(s->pscw.v);
    st_mem_free(s->omp.locks.v), st_mem_free(s->omp.tasks.v), st_mem_free(s->omp.waits.v), st_mem_free(s->omp.frame_task.v), st_mem_free(s->omp.done);
}

/* st_rel_endpoints; with omp, the OpenMP ends handed out by *omp when they can be (endpoints.h). */
static int derive(const st_rel_input_t *in, int32_t rank, const st_rel_derive_opts_t *opts, st_rel_epvec_t *out,
                  st_rel_depstats_t *ds, st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p)
{
    static const st_rel_proc_t none = { 0 };
    static const st_rel_derive_opts_t defaults = { 0 };
    st_rel_depstats_t scratch = { 0 };
    ctx_t c = {
        .in = in, .opts = opts ? opts : &defaults, .rank = rank, .out = out, .ds = ds ? ds : &scratch,
        .proc = in->procs && rank >= 0 && rank < in->nranks ? &in->procs[rank] : &none, .p2p_apart = p2p != NULL,
    };
    scan_t s = { 0 };
    if (c.opts->self_ends)
        c.opts->self_ends->rank = rank;
    c.comm_nodes = st_mem_calloc(c.proc->ncomms ? c.proc->ncomms : 1, sizeof(nodeset_t));
    int rc = c.comm_nodes ? rel_sync_prepare(&c) : -1;
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++)
        if (in->locs[l].rank == rank)
            rc = scan_loc(&c, &s, l);
    if (rc == 0)
        rc = rel_coll_finish(&c, &s.reqs, &s.done);
    if (rc == 0)
        rc = rel_rma_finish(&c, &s.rma_coll);
    if (rc == 0)
        rc = rel_pscw_finish(&c, &s.pscw);
    if (rc == 0)
        rc = rel_lock_finish(&c);
    if (rc == 0)
        rc = rel_omp_locks(&c, &s.omp);
    if (rc == 0)
        rc = rel_omp_tasks(&c, &s.omp);
    if (rc == 0)
        rc = rel_omp_taskwaits(&c, &s.omp);
    if (rc == 0 && omp)
        rc = rel_omp_src_prepare(&c);
    if (rc == 0) /* last: the point-to-point endpoints (type 1, first in out) go straight into out, or to p2p */
        rc = rel_p2p_finish(&c, &s.cancelled, &s.chans, &s.sends, &s.recvs, out);
    if (rc == 0)
        rel_append_sides(&c, out);
    rel_sides_finish(&c, rc == 0, omp);
    if (rc == 0 && c.p2p_src)
        rel_p2p_src_hand_out(c.p2p_src, p2p);
    else
        rel_p2p_src_free(c.p2p_src);
    scan_free(&s);
    for (uint32_t i = 0; c.comm_nodes && i < c.proc->ncomms; i++)
        st_mem_free(c.comm_nodes[i].node);
    st_mem_free(c.comm_nodes);
    st_mem_free(c.world_nodes.node);
    return rc;
}

int st_rel_endpoints(const st_rel_input_t *in, int32_t rank, const st_rel_derive_opts_t *opts, st_rel_epvec_t *out,
                     st_rel_depstats_t *ds)
{
    return derive(in, rank, opts, out, ds, NULL, NULL);
}

int st_rel_endpoints_split(const st_rel_input_t *in, int32_t rank, const st_rel_derive_opts_t *opts,
                           st_rel_epvec_t *out, st_rel_depstats_t *ds, st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p)
{
    *omp = (st_rel_epsrc_t){ 0 };
    if (p2p)
        *p2p = (st_rel_epsrc_t){ 0 };
    return derive(in, rank, opts, out, ds, omp, p2p);
}

int st_rel_lock_endpoints(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out)
{
    static const st_rel_proc_t none = { 0 };
    static const st_rel_derive_opts_t defaults = { 0 };
    st_rel_depstats_t scratch = { 0 };
    ctx_t c = { .in = in, .opts = &defaults, .rank = rank, .out = out, .ds = &scratch,
                .proc = in->procs && rank >= 0 && rank < in->nranks ? &in->procs[rank] : &none };
    int rc = rel_lock_finish(&c);
    st_rel_epvec_t *v = &c.side[ST_REL_KEY_RMA_LOCK];
    for (size_t k = 0; rc == 0 && k < v->n; k++)
        rc = st_rel_epvec_push(out, &v->v[k]);
    st_rel_epvec_free(v);
    return rc;
}
