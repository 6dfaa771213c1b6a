/*
 * parallel.c — the analysis of one process of a parallel run (parallel.h): the engine that
 * drives the point-to-point exchange (p2p_wire.c) and the collective reductions over the
 * communicators' trees (coll_reduce.c) around the local analysis, and the packing and
 * merging of the parts.
 */
#include "parallel.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"
#include "../util/log.h"
#include "coll_reduce.h"
#include "cpu_stamp.h"
#include "internal.h"
#include "p2p_wire.h"
#include "rc_build.h"
#include "rc_dist.h"

#define PACK_MAGIC 0x53544150524e4133ull
#define PART_HEAD  10 /* words of a part's header */

enum { S_NEW, S_STARTED, S_DONE, S_FAILED };

struct st_an_par {
    const st_rel_input_t *in;
    int32_t               me, nprocs;
    int32_t              *owner; /* [in->nranks] each rank's process (a copy: the root causes' pairs read it) */
    int                   state;
    st_xchg_out_t         out;
    st_rel_epvec_t        ep;  /* this process's endpoints (point-to-point ones with a remote partner: pw) */
    /* With CLC's derivation: its OpenMP endpoints, which stay there (read by build_graph's join) */
    st_rel_derived_t     *derived;
    st_rel_derived_pos_t  dpos;
    size_t                dread;
    size_t                reqs[2]; /* the point-to-point sends and receives: an_begin's guess of the requests */
    an_pwire_t            pw;
    uint32_t              incoming, arrived;
    an_creduce_t         *cr;  /* the collective instances */
    st_rel_epvec_t        rc_coll; /* with the root causes: the collective endpoints (their relations) */
    double                rc_ms[2]; /* the root causes' wall and CPU time here: the timeline, its packing */
    rc_dist_local_t      *rcd;     /* the distributed replay of the root causes while it runs */
    rc_dist_part_t        rcpart;  /* its part for the collector, once done (rcpart_ok) */
    int                   rcpart_ok;
    /* the analysis of the local locations */
    an_ctx_t       c;
    st_rel_graph_t g;
    st_an_result_t res;
};

static void fail(st_an_par_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(st_an_par_t *p, const char *fmt, ...)
{
    if (p->state == S_FAILED)
        return;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_log_error("analysis (parallel, process %d): %s", (int)p->me, msg);
    p->state = S_FAILED;
}

/* The CPU ms between two stamps (cpu_stamp.h). */
static double ms_between(const an_stamp_t *a, const an_stamp_t *b) { return b->ms - a->ms; }

/* The graph of what stays inside the process: OpenMP relations and point-to-point messages
 * with both ends here (the collectives are the reduced instances, the remote point-to-point
 * ends pw's). p->ep is consumed. */
static int build_graph(st_an_par_t *p)
{
    st_rel_epvec_t *v = &p->ep;
    size_t n = 0;
    for (size_t k = 0; k < v->n; k++)
        if (v->v[k].kind != ST_REL_COLL)
            v->v[n++] = v->v[k];
    v->n = n;
    /* the instances in the endpoints' block (none: no block to take), the OpenMP ones read from
     * CLC's derivation after them (take_derived made room for them) */
    st_rel_epsrc_t omp = { 0 };
    int rc = p->derived ? st_rel_derived_src(p->derived, &p->dpos, p->dread, &omp) : 0;
    if (rc == 0)
        rc = st_rel_graph_join_src(v->v, v->n, &omp, p->in->nlocs, v->v ? ST_REL_JOIN_TAKE : 0, &p->g);
    else
        st_mem_free(v->v);
    st_rel_epsrc_free(&omp);
    *v = (st_rel_epvec_t){ 0 };
    return rc;
}

/* The lock relations of the owned ranks ordered by the corrected times (relations/locks.h), which replace
 * CLC's. 0, or -1 (memory). */
static int lock_ends(const st_an_par_t *p, st_rel_epvec_t *v)
{
    int rc = 0;
    for (uint32_t l = 0; rc == 0 && l < p->in->nlocs; l++)
        if (l == 0 || p->in->locs[l].rank != p->in->locs[l - 1].rank)
            rc = st_rel_lock_endpoints(p->in, p->in->locs[l].rank, v);
    return rc;
}

/* Counts the point-to-point sends and receives of ep[0 .. n) into reqs: an_begin's guess of the
 * nonblocking ones' request events (p->reqs). */
static void count_p2p(const st_rel_endpoint_t *ep, size_t n, size_t reqs[2])
{
    for (size_t k = 0; k < n; k++)
        if (ep[k].kind == ST_REL_P2P)
            reqs[0] += ep[k].role == ST_REL_SEND, reqs[1] += ep[k].role == ST_REL_RECV;
}

/* The endpoints CLC derived in the run (instead of deriving them again), read in parts that
 * stay in the cache: those with a partner in another process are taken for its records
 * (p2p_wire.h), the others go to p->ep; but the OpenMP ones (most of a hybrid trace's, of key
 * types after all others), which only the local graph reads: build_graph's join reads them
 * from d, so that they never take 64 bytes each here (at MPI_Finalize each new page is a fault). */
static int take_derived(st_an_par_t *p, st_rel_derived_t *d, const int32_t *owner)
{
    enum { PART = 2048 };
    if (st_rel_self_ends_expand(&d->self_ends, p->in->locs))
        return -1;
    size_t most = st_rel_derived_count(d), n, kept;
    /* room for all: only the pages written become memory, and the block is shrunk to them. Each part
     * is read straight into its place, and what leaves it (remote ends, CLC's lock relations) is
     * squeezed out while the part is in the cache. */
    int rc = (p->ep.v = st_mem_malloc(sizeof *p->ep.v * (most + 1))) ? 0 : -1;
    p->ep.cap = most + 1;
    st_rel_epvec_t locks = { 0 };
    rc = rc ? rc : lock_ends(p, &locks);
    rc = rc ? rc : an_pwire_begin(&p->pw, owner, p->in->nranks, p->me, p->nprocs, d->g.nrefs + d->p2p.n + locks.n);
    p->derived = d;
    p->dpos = (st_rel_derived_pos_t){ .below = ST_REL_KEY_OMP_FORK };
    while (rc == 0 && p->ep.n < most &&
           (n = st_rel_derived_read(d, &p->dpos, p->ep.v + p->ep.n, most - p->ep.n < PART ? most - p->ep.n : PART)) > 0) {
        st_rel_endpoint_t *buf = p->ep.v + p->ep.n;
        p->dread += n;
        size_t m = 0; /* CLC's lock relations ordered the epochs by the times before its correction */
        for (size_t k = 0; k < n; k++)
            if (buf[k].key[0] >> 56 != ST_REL_KEY_RMA_LOCK) {
                if (m != k) /* (64 bytes: none is copied where none was left out) */
                    buf[m] = buf[k];
                m++;
            }
        count_p2p(buf, m, p->reqs);
        rc = an_pwire_take(&p->pw, buf, m, buf, &kept);
        if (rc == 0)
            p->ep.n += kept;
    }
    /* after CLC's other ends, before its OpenMP ones (their key types come later) */
    rc = rc ? rc : an_pwire_take(&p->pw, locks.v, locks.n, locks.v, &kept);
    for (size_t k = 0; rc == 0 && k < kept; k++)
        rc = st_rel_epvec_push(&p->ep, &locks.v[k]);
    st_rel_epvec_free(&locks);
    /* kept: room for the instances of the OpenMP endpoints still in d (st_rel_graph_join_src) */
    size_t keep = p->ep.n + st_rel_inst_room(most - p->dread) + 1;
    st_rel_endpoint_t *fit = rc ? NULL : st_mem_realloc(p->ep.v, sizeof *fit * keep);
    if (fit)
        p->ep.v = fit, p->ep.cap = keep;
    return rc ? rc : an_pwire_open(&p->pw, &p->out);
}

/* ---- the engine ------------------------------------------------------------------------------------ */

int st_an_par_new(const st_rel_input_t *in, st_rel_derived_t *in_derived, const int32_t *owner, int32_t me,
                  int32_t nprocs, const st_xchg_net_t *net, st_an_par_t **out)
{
    *out = NULL;
    st_an_par_t *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *p = (st_an_par_t){ .in = in, .me = me, .nprocs = nprocs, .state = S_NEW };
    int rc = st_xchg_out_init(&p->out, net, nprocs) == 0 ? 0 : -1;
    if (rc == 0 && in->nranks && (p->owner = malloc(in->nranks * sizeof *p->owner)))
        memcpy(p->owner, owner, in->nranks * sizeof *p->owner);
    else if (rc == 0 && in->nranks)
        rc = -1;
    rc = rc ? rc : an_creduce_new(in, owner, me, nprocs, &p->cr);
    an_stamp_t t[5];
    an_stamp(&t[0]);
    /* The endpoints: CLC's in the run, else derived here. Those with a partner in another process
     * leave p->ep before the calls' arrays are made, and CLC's are freed: their memory is the
     * arrays' (at MPI_Finalize every new page is a fault). */
    st_rel_derived_t *derived = in_derived && in_derived->g.nlocs == in->nlocs ? in_derived : NULL;
    for (uint32_t l = 0; rc == 0 && !derived && l < in->nlocs; l++) /* each owned rank once (in rank order) */
        if (l == 0 || in->locs[l].rank != in->locs[l - 1].rank)
            rc = st_rel_endpoints(in, in->locs[l].rank, NULL, &p->ep, NULL);
    if (rc == 0 && derived)
        rc = take_derived(p, derived, owner);
    else if (rc == 0)
        count_p2p(p->ep.v, p->ep.n, p->reqs), rc = an_pwire_derive(&p->pw, &p->ep, owner, in->nranks, me, &p->out);
    if (in_derived && !p->derived)
        st_rel_derived_free(in_derived);
    an_stamp(&t[1]);
    /* The local graph before the calls' arrays: CLC's derivation (its OpenMP ends) is then freed,
     * and its memory is the arrays'. The collective endpoints (also those of the collectives on RMA
     * windows: creation, fence, release) wait aside for an_creduce_local. */
    st_rel_epvec_t coll = { 0 };
    for (size_t k = 0; rc == 0 && k < p->ep.n; k++)
        if (p->ep.v[k].kind == ST_REL_COLL)
            rc = st_rel_epvec_push(&coll, &p->ep.v[k]);
    if (rc == 0)
        rc = build_graph(p);
    if (p->derived) /* its OpenMP endpoints are in the local graph now */
        st_rel_derived_free(p->derived), p->derived = NULL;
    an_stamp(&t[2]);
    if (rc == 0)
        rc = an_begin(&p->c, in, p->reqs, &p->res); /* the calls, once: the exchange and the patterns read them */
    an_stamp(&t[3]);
    if (rc == 0)
        an_pwire_write(&p->pw, &p->c, &p->out);
    if (rc == 0)
        rc = an_creduce_local(p->cr, &p->c, coll.v, coll.n);
    if (an_rc_wanted()) /* kept for the timeline's relations */
        p->rc_coll = coll;
    else
        st_rel_epvec_free(&coll);
    an_stamp(&t[4]);
    st_log_debug("analysis: process %d: CPU ms (page faults): logical messages %.1f (%ld), local graph %.1f (%ld), "
                 "calls and time %.1f (%ld), what the partners need %.1f (%ld)",
                 (int)me, ms_between(&t[0], &t[1]), t[1].faults - t[0].faults, ms_between(&t[1], &t[2]),
                 t[2].faults - t[1].faults, ms_between(&t[2], &t[3]), t[3].faults - t[2].faults,
                 ms_between(&t[3], &t[4]), t[4].faults - t[3].faults);
    if (rc) {
        st_log_error("analysis (parallel, process %d): out of memory", (int)me);
        st_an_par_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

void st_an_par_partners(const st_an_par_t *p, uint8_t *flags)
{
    for (int32_t q = 0; q < p->nprocs; q++) /* before the start, the buffers hold only point-to-point records */
        if (st_xchg_buf(&p->out, q))
            flags[q] = 1;
}

static int flush(st_an_par_t *p)
{
    int32_t bad = -1;
    if (st_xchg_flush(&p->out, 0, &bad)) {
        fail(p, "cannot send to process %d", (int)bad);
        return -1;
    }
    return 0;
}

int st_an_par_start(st_an_par_t *p, uint32_t incoming)
{
    p->incoming = incoming;
    p->state = S_STARTED;
    if (an_creduce_start(p->cr, &p->out)) {
        fail(p, "out of memory");
        return -1;
    }
    return flush(p);
}

int st_an_par_deliver(st_an_par_t *p, int32_t from, const void *buf, size_t len)
{
    st_xchg_reader_t msg = { buf, (const uint8_t *)buf + len }, rd;
    st_xchg_rec_t h;
    int k, p2p = 0;
    while ((k = st_xchg_next(&msg, &h, &rd)) == 1) {
        if (h.type == AN_CRED_R_UP || h.type == AN_CRED_R_DOWN) {
            if (an_creduce_record(p->cr, &h, &rd, &p->out))
                break;
            continue;
        }
        int taken = an_pwire_deliver(&p->pw, &h, &rd);
        if (taken <= 0) {
            k = -1;
            break;
        }
        p2p = 1;
    }
    if (k != 0) {
        fail(p, "malformed message from process %d", (int)from);
        return -1;
    }
    p->arrived += p2p; /* the partner's point-to-point records come in its first message */
    return flush(p);
}

int st_an_par_progress(st_an_par_t *p)
{
    if (p->state == S_FAILED)
        return ST_AN_PAR_FAILED;
    if (p->state == S_DONE)
        return ST_AN_PAR_DONE;
    if (p->state != S_STARTED || p->arrived < p->incoming || !an_creduce_done(p->cr))
        return ST_AN_PAR_IDLE;
    an_stamp_t t0, t1, t2, t3;
    an_stamp(&t0);
    int rc = an_msgs_from_graph(&p->c, &p->g) || an_pwire_join(&p->pw, &p->c);
    if (!rc && an_rc_wanted()) /* the remote ends' relations, before pw goes; room for every end at once (at most
                                * two per remote end, a port's and half a port's more, a collective endpoint's) */
        rc = !(p->c.rcb = an_rcb_new()) ||
             an_rcb_reserve(p->c.rcb, 2 * (p->pw.nsend + p->pw.nrecv) + p->g.port_first[p->g.nlocs] +
                                          p->g.port_first[p->g.nlocs] / 2 + p->rc_coll.n) ||
             an_rcb_pwire(&p->c, &p->pw);
    an_pwire_free(&p->pw);
    an_stamp(&t1);
    rc = rc || an_finish(&p->c, &p->g, an_creduce_table(p->cr));
    an_stamp(&t2);
    double rc0[2];
    an_rc_clock(rc0);
    if (!rc && p->c.rcb) { /* this process's root-cause timeline, while the calls are known */
        rc = an_rcb_graph(&p->c, &p->g) || an_rcb_coll(&p->c, p->rc_coll.v, p->rc_coll.n, p->c.coll) ||
             an_rcb_build(&p->c, &p->g, &p->res.timeline);
        an_rc_clock_add(p->rc_ms, rc0);
    }
    st_rel_epvec_free(&p->rc_coll);
    an_end(&p->c);
    st_rel_graph_free(&p->g); /* read no more: its memory is the root causes' (fresh pages cost more than the work) */
    an_stamp(&t3);
    st_log_debug("analysis: process %d: CPU ms (page faults): messages %.1f (%ld), patterns %.1f (%ld), root-cause "
                 "timeline %.1f (%ld) (%u locations)",
                 (int)p->me, ms_between(&t0, &t1), t1.faults - t0.faults, ms_between(&t1, &t2), t2.faults - t1.faults,
                 ms_between(&t2, &t3), t3.faults - t2.faults, p->in->nlocs);
    if (rc) {
        fail(p, "out of memory");
        return ST_AN_PAR_FAILED;
    }
    p->state = S_DONE;
    return ST_AN_PAR_DONE;
}

int st_an_par_has_timeline(const st_an_par_t *p)
{
    return p->res.timeline != NULL;
}

int st_an_par_rc_begin(st_an_par_t *p, const uint32_t *map, uint32_t nglobal, const uint32_t *ploc0,
                       const st_xchg_net_t *net)
{
    double rc0[2];
    an_rc_clock(rc0);
    int rc = rc_dist_local_begin(&p->res, map, nglobal, ploc0, p->me, p->nprocs, net, &p->rcd);
    /* whole ranks at each process: a message between two processes' ranks needs no home (rc_dist_pairs.c) */
    if (rc == 0 && p->owner)
        rc = rc_dist_pairs(rc_dist_local_engine(p->rcd), p->owner, p->in->nranks);
    an_rc_clock_add(p->rc_ms, rc0);
    return rc;
}

int st_an_par_rc_progress(void *p)
{
    st_an_par_t *x = p;
    double rc0[2];
    an_rc_clock(rc0);
    int k = rc_dist_progress(rc_dist_local_engine(x->rcd));
    an_rc_clock_add(x->rc_ms, rc0);
    return k;
}

int st_an_par_rc_deliver(void *p, int32_t from, const void *buf, size_t len)
{
    st_an_par_t *x = p;
    double rc0[2];
    an_rc_clock(rc0);
    int k = rc_dist_deliver(rc_dist_local_engine(x->rcd), from, buf, len);
    an_rc_clock_add(x->rc_ms, rc0);
    return k;
}

void st_an_par_rc_waiting(void *p, char *buf, size_t n)
{
    rc_dist_waiting(rc_dist_local_engine(((st_an_par_t *)p)->rcd), buf, n);
}

int st_an_par_rc_start(st_an_par_t *p)
{
    return rc_dist_start(rc_dist_local_engine(p->rcd));
}

int st_an_par_rc_end(st_an_par_t *p, int ok)
{
    if (!p->rcd) { /* never begun: no root causes in this part */
        if (p->res.timeline)
            st_rc_input_free(p->res.timeline);
        free(p->res.timeline);
        p->res.timeline = NULL;
        return -1;
    }
    double rc0[2];
    an_rc_clock(rc0);
    int rc = rc_dist_local_end(p->rcd, ok, &p->rcpart);
    p->rcd = NULL;
    p->rcpart_ok = rc == 0;
    an_rc_clock_add(p->rc_ms, rc0);
    st_log_debug("analysis: process %d: root causes (distributed): CPU ms %.1f in all here", (int)p->me, p->rc_ms[1]);
    return rc;
}

void st_an_par_rootcause_ms(const st_an_par_t *p, double ms[2])
{
    ms[0] = p->rc_ms[0], ms[1] = p->rc_ms[1];
}

void st_an_par_waiting(const st_an_par_t *p, char *buf, size_t n)
{
    snprintf(buf, n, "%u of %u partners' messages arrived, %u communicator trees open", p->arrived, p->incoming,
             an_creduce_open(p->cr));
}

void st_an_par_free(st_an_par_t *p)
{
    if (!p)
        return;
    st_rel_epvec_free(&p->ep);
    st_rel_epvec_free(&p->rc_coll);
    an_pwire_free(&p->pw);
    an_creduce_free(p->cr);
    an_end(&p->c);
    st_xchg_out_free(&p->out);
    st_rel_graph_free(&p->g);
    if (p->rcd)
        rc_dist_local_end(p->rcd, 0, &p->rcpart);
    rc_dist_part_free(&p->rcpart);
    st_an_free(&p->res);
    free(p->owner);
    free(p);
}

/* ---- parts of the report --------------------------------------------------------------------------- */

/* A part: magic, nlocs, ncnodes, the statistics, nfuncs, its root-cause timeline's bytes + 1 (0: none), its
 * distributed root-cause replay's words + 1 (0: none); per location (rank, thread, span); per function region
 * its name (length, then the bytes in words); per cnode (parent, region); sev [metric][cnode][location] as
 * doubles; per metric ntop and its instances (value, time, location, cnode, gid); the timeline of its
 * locations, if any (rc_build.h, cnodes the part's; bytes, padded to a word); the replay's part, if any
 * (rc_dist.h, cnodes the merged result's). All 8-byte words. A cnode's function region (ST_AN_IS_FUNC)
 * indexes the part's own names: parts are merged by name. A call tree (st_an_par_tree) is a part's header,
 * locations, names and cnodes. */
static size_t tree_words(const st_an_result_t *r)
{
    size_t nfw = 0;
    for (uint32_t k = 0; k < r->nfuncs; k++)
        nfw += 1 + (strlen(r->funcs[k]) + 7) / 8;
    return PART_HEAD + 3 * (size_t)r->nlocs + nfw + 2 * (size_t)r->ncnodes;
}

static uint64_t *pack_tree(const st_an_result_t *r, uint64_t *q, size_t tlb, size_t rcw)
{
    *q++ = PACK_MAGIC, *q++ = r->nlocs, *q++ = r->ncnodes;
    *q++ = r->stats.unpaired, *q++ = r->stats.ls_violations, *q++ = r->stats.coll_violations,
    *q++ = r->stats.coll_skipped, *q++ = r->nfuncs, *q++ = tlb, *q++ = rcw;
    for (uint32_t l = 0; l < r->nlocs; l++)
        *q++ = (uint64_t)(uint32_t)r->locs[l].rank, *q++ = r->locs[l].thread, *q++ = r->span[l];
    for (uint32_t k = 0; k < r->nfuncs; k++) {
        size_t sl = strlen(r->funcs[k]), nw = (sl + 7) / 8;
        *q++ = sl;
        if (nw)
            q[nw - 1] = 0; /* the padding */
        memcpy(q, r->funcs[k], sl);
        q += nw;
    }
    for (uint32_t k = 0; k < r->ncnodes; k++)
        *q++ = r->cnodes[k].parent, *q++ = r->cnodes[k].region;
    return q;
}

int st_an_par_tree(const st_an_par_t *p, void **buf, size_t *len)
{
    size_t n = tree_words(&p->res);
    uint64_t *w = malloc(8 * n);
    if (!w)
        return -1;
    pack_tree(&p->res, w, 0, 0);
    *buf = w, *len = 8 * n;
    return 0;
}

int st_an_par_pack(st_an_par_t *p, void **buf, size_t *len)
{
    double rc0[2];
    an_rc_clock(rc0);
    st_an_result_t *r = &p->res;
    size_t nsev = (size_t)ST_AN__METRICS * r->ncnodes * r->nlocs, ntop = 0;
    for (int m = 0; m < ST_AN__METRICS; m++)
        ntop += 1 + 5 * (size_t)r->ntop[m];
    /* the timeline's bytes: room for them (pages not written stay free), the part cut to them once packed */
    size_t tlb = r->timeline ? an_rc_pack_bound(r->timeline) : 0;
    size_t rcw = p->rcpart_ok ? rc_dist_part_words(&p->rcpart) : 0;
    size_t n = tree_words(r) + nsev + ntop + (tlb + 7) / 8 + rcw;
    uint64_t *w = malloc(8 * n), *q = w, *tlw = w + PART_HEAD - 2;
    if (!w)
        return -1;
    q = pack_tree(r, q, r->timeline ? tlb + 1 : 0, p->rcpart_ok ? rcw + 1 : 0);
    memcpy(q, r->sev, 8 * nsev);
    q += nsev;
    for (int m = 0; m < ST_AN__METRICS; m++) {
        *q++ = r->ntop[m];
        for (uint32_t i = 0; i < r->ntop[m]; i++) {
            const st_an_instance_t *x = &r->top[m][i];
            memcpy(q++, &x->value, 8);
            *q++ = x->time, *q++ = x->loc, *q++ = x->cnode, *q++ = r->topgid[m][i];
        }
    }
    if (r->timeline) {
        tlb = (size_t)(an_rc_pack(r->timeline, (uint8_t *)q) - (uint8_t *)q);
        if (tlb % 8)
            memset((uint8_t *)q + tlb, 0, 8 - tlb % 8); /* the padding */
        *tlw = tlb + 1;
        q += (tlb + 7) / 8;
        /* the part holds it now: its memory is the collector's unpacking's */
        st_rc_input_free(r->timeline);
        free(r->timeline);
        r->timeline = NULL;
    }
    if (p->rcpart_ok) {
        q = rc_dist_part_pack(&p->rcpart, q);
        rc_dist_part_free(&p->rcpart);
        p->rcpart_ok = 0;
    }
    if (tlb || rcw)
        an_rc_clock_add(p->rc_ms, rc0);
    n = (size_t)(q - w);
    uint64_t *cut = realloc(w, 8 * n);
    w = cut ? cut : w;
    *buf = w, *len = 8 * n;
    return 0;
}

typedef struct part {
    const uint64_t *w, *end;
} part_t;

static int take(part_t *pt, uint64_t *v, size_t n)
{
    if ((size_t)(pt->end - pt->w) < n)
        return -1;
    if (v)
        memcpy(v, pt->w, 8 * n);
    pt->w += n;
    return 0;
}

/* The header of a part and its position after the header; 0, or -1 (malformed). */
static int part_head(const void *buf, size_t len, part_t *pt, uint64_t *head)
{
    *pt = (part_t){ buf, (const uint64_t *)buf + len / 8 };
    return len % 8 || take(pt, head, PART_HEAD) || head[0] != PACK_MAGIC || head[2] == 0 ? -1 : 0;
}

/* Skips the function names of a part (after its locations). */
static int skip_funcs(part_t *pt, uint64_t nfuncs)
{
    uint64_t sl;
    for (uint64_t k = 0; k < nfuncs; k++)
        if (take(pt, &sl, 1) || sl > 8 * (uint64_t)(pt->end - pt->w) || take(pt, NULL, (sl + 7) / 8))
            return -1;
    return 0;
}

/* Reads a part's function names into res->funcs (merged by name); fmap[k]: the merged region of the
 * part's function k. 0, or -1 (malformed, memory). */
static int merge_funcs(part_t *pt, uint64_t nfuncs, st_an_result_t *res, uint32_t *fmap)
{
    uint64_t sl;
    for (uint64_t k = 0; k < nfuncs; k++) {
        if (take(pt, &sl, 1) || sl > 8 * (uint64_t)(pt->end - pt->w))
            return -1;
        const char *name = (const char *)pt->w;
        uint32_t f = 0;
        while (f < res->nfuncs && (strlen(res->funcs[f]) != sl || memcmp(res->funcs[f], name, sl)))
            f++;
        if (f == res->nfuncs) {
            char **v = realloc(res->funcs, sizeof *v * (res->nfuncs + 1));
            if (!v)
                return -1;
            res->funcs = v;
            if (!(v[f] = strndup(name, sl)))
                return -1;
            res->nfuncs++;
        }
        fmap[k] = ST_AN_FUNC_REGION(f);
        take(pt, NULL, (sl + 7) / 8);
    }
    return 0;
}

/* Adds part pt (locations from loc0; its cnodes mapped through map) to res. */
static int merge_part(part_t *pt, const uint64_t *head, uint32_t loc0, const uint32_t *map, st_an_result_t *res)
{
    uint32_t nl = (uint32_t)head[1], nc = (uint32_t)head[2];
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t k = 0; k < nc; k++)
            for (uint32_t l = 0; l < nl; l++) {
                double v;
                if (take(pt, (uint64_t *)&v, 1))
                    return -1;
                *st_an_sev(res, m, map[k], loc0 + l) += v;
            }
    for (int m = 0; m < ST_AN__METRICS; m++) {
        uint64_t nt, x[5];
        if (take(pt, &nt, 1) || nt > ST_AN_TOP)
            return -1;
        for (uint64_t i = 0; i < nt; i++) {
            if (take(pt, x, 5) || x[2] >= nl || x[3] >= nc)
                return -1;
            st_an_instance_t in = { 0, x[1], loc0 + (uint32_t)x[2], map[x[3]] };
            memcpy(&in.value, &x[0], 8);
            st_an_top_note(res, m, &in, x[4]);
        }
    }
    return 0;
}

/* Phase 1 of a merge: the parts' locations counted (*nlocs, and per part at ploc0: NULL none) and their call
 * trees unified by path into t (its root made here; names into res->funcs): map[i][k] the unified cnode of
 * part i's cnode k (malloc'd); *ntl, *nrc: the parts with a timeline, with a replay's part. 0, or -1. */
static int unify(const void *const *part, const size_t *len, int n, an_tree_t *t, st_an_result_t *res,
                 uint32_t **map, uint32_t *nlocs, uint32_t *ploc0, int *ntl, int *nrc)
{
    int rc = an_tree_child(t, ST_AN_NO_CNODE, UINT32_MAX) != ST_AN_NO_CNODE ? 0 : -1;
    *nlocs = 0, *ntl = *nrc = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        part_t pt;
        uint64_t head[PART_HEAD], cn[2];
        uint32_t *fmap = NULL;
        if (part_head(part[i], len[i], &pt, head) || !(map[i] = malloc(sizeof **map * head[2])) ||
            head[7] > (uint64_t)(pt.end - pt.w) || !(fmap = malloc(sizeof *fmap * (head[7] + 1)))) {
            rc = -1;
            break;
        }
        if (ploc0)
            ploc0[i] = *nlocs;
        *nlocs += (uint32_t)head[1];
        *ntl += head[8] != 0, *nrc += head[9] != 0;
        rc = take(&pt, NULL, 3 * head[1]);
        if (rc == 0)
            rc = merge_funcs(&pt, head[7], res, fmap);
        for (uint64_t k = 0; rc == 0 && k < head[2]; k++) {
            rc = take(&pt, cn, 2);
            if (rc == 0 && ST_AN_IS_FUNC((uint32_t)cn[1]))
                cn[1] = (cn[1] & 0x7fffffffu) < head[7] ? fmap[cn[1] & 0x7fffffffu] : UINT32_MAX - 1;
            if (rc == 0 && k == 0)
                map[i][0] = 0;
            else if (rc == 0 && (cn[0] >= k || (map[i][k] = an_tree_child(t, map[i][cn[0]], (uint32_t)cn[1])) ==
                                                   ST_AN_NO_CNODE))
                rc = -1;
        }
        free(fmap);
    }
    if (ploc0)
        ploc0[n] = *nlocs;
    return rc;
}

int st_an_par_unify(const void *const *tree, const size_t *len, int n, uint32_t *nglobal, uint32_t **map,
                    uint32_t *ploc0)
{
    an_tree_t t = { 0 };
    st_an_result_t names = { 0 };
    uint32_t nlocs;
    int ntl, nrc;
    memset(map, 0, sizeof *map * (size_t)n);
    int rc = unify(tree, len, n, &t, &names, map, &nlocs, ploc0, &ntl, &nrc);
    *nglobal = t.n;
    free(t.slot), free(t.v);
    for (uint32_t k = 0; k < names.nfuncs; k++)
        free(names.funcs[k]);
    free(names.funcs);
    if (rc)
        for (int i = 0; i < n; i++)
            free(map[i]), map[i] = NULL;
    return rc;
}

int st_an_par_merge(const void *const *part, const size_t *len, int n, st_an_result_t *res)
{
    memset(res, 0, sizeof *res);
    an_tree_t t = { 0 };
    uint32_t **map = calloc((size_t)n + 1, sizeof *map), nlocs = 0;
    int ntl = 0, nrc = 0; /* parts with a root-cause timeline, with a replay's part: all or none */
    rc_dist_part_t *rcp = calloc((size_t)n + 1, sizeof *rcp);
    int rc = map && rcp ? 0 : -1;
    /* 1: locations and the unified call tree (a part's parent precedes its children) */
    if (rc == 0)
        rc = unify(part, len, n, &t, res, map, &nlocs, NULL, &ntl, &nrc);
    res->ncnodes = t.n, res->nlocs = nlocs;
    if (rc == 0 && (!(res->sev = calloc((size_t)ST_AN__METRICS * t.n * (nlocs ? nlocs : 1), sizeof(double))) ||
                    !(res->span = calloc(nlocs + 1, sizeof *res->span)) ||
                    !(res->locs = calloc(nlocs + 1, sizeof *res->locs))))
        rc = -1;
    if (rc == 0 && ((ntl && nrc) || (nrc && nrc < n)))
        rc = -1;
    if (rc == 0 && ntl && (ntl < n || !(res->timeline = calloc(1, sizeof *res->timeline)) ||
                           !(res->timeline->locs = calloc(nlocs + 1, sizeof *res->timeline->locs))))
        rc = -1;
    if (rc == 0 && res->timeline)
        res->timeline->nlocs = nlocs;
    /* 2: values, worst instances, statistics */
    an_stamp_t u0, u1, u2; /* the timelines' unpacking (summed) and the replay */
    double unpack_ms = 0;
    long unpack_faults = 0;
    for (int i = 0, loc0 = 0; rc == 0 && i < n; i++) {
        part_t pt;
        uint64_t head[PART_HEAD], rt[3];
        part_head(part[i], len[i], &pt, head);
        for (uint64_t l = 0; rc == 0 && l < head[1]; l++) {
            rc = take(&pt, rt, 3);
            res->locs[loc0 + l] = (st_an_loc_t){ (int32_t)rt[0], (uint32_t)rt[1] };
            res->span[loc0 + l] = rt[2];
        }
        if (rc == 0)
            rc = skip_funcs(&pt, head[7]);
        if (rc == 0)
            rc = take(&pt, NULL, 2 * head[2]);
        if (rc == 0)
            rc = merge_part(&pt, head, (uint32_t)loc0, map[i], res);
        double rc0[2]; /* the timeline: the rest of the part */
        an_rc_clock(rc0);
        an_stamp(&u0);
        size_t tlw = head[8] ? (head[8] - 1 + 7) / 8 : 0, rcw = head[9] ? head[9] - 1 : 0;
        if (rc == 0 && tlw + rcw != (uint64_t)(pt.end - pt.w))
            rc = -1;
        if (rc == 0 && head[8] &&
            an_rc_unpack((const uint8_t *)pt.w, head[8] - 1, (uint32_t)head[1], (uint32_t)loc0, map[i],
                         (uint32_t)head[2], res->timeline))
            rc = -1;
        if (rc == 0 && head[9] && rc_dist_part_unpack(pt.w + tlw, rcw, &rcp[i]))
            rc = -1;
        if (head[8] || head[9])
            an_rc_clock_add(res->rootcause_ms, rc0);
        an_stamp(&u1);
        unpack_ms += ms_between(&u0, &u1), unpack_faults += u1.faults - u0.faults;
        res->stats.unpaired += head[3], res->stats.ls_violations += head[4];
        res->stats.coll_violations += head[5], res->stats.coll_skipped += head[6];
        loc0 += (int)head[1];
    }
    for (int i = 0; map && i < n; i++)
        free(map[i]);
    free(map);
    free(t.slot);
    res->cnodes = t.v;
    an_stamp(&u1);
    if (rc == 0 && res->timeline) /* the root causes over the whole timeline */
        rc = an_rc_finish(res);
    else if (rc == 0 && nrc) { /* the distributed replay's parts: what needs every location */
        double rc0[2];
        an_rc_clock(rc0);
        rc = (res->causes = calloc(1, sizeof *res->causes)) ? rc_dist_finish(res, rcp, n, res->causes) : -1;
        an_rc_clock_add(res->rootcause_ms, rc0);
        if (rc && res->causes)
            free(res->causes), res->causes = NULL;
    }
    for (int i = 0; rcp && i < n; i++)
        rc_dist_part_free(&rcp[i]);
    free(rcp);
    an_stamp(&u2);
    if (res->causes)
        st_log_debug("analysis: root causes at the merge: CPU ms (page faults): unpacking %.1f (%ld), replay %.1f (%ld)",
                     unpack_ms, unpack_faults, ms_between(&u1, &u2), u2.faults - u1.faults);
    if (rc)
        st_an_free(res);
    return rc;
}
