/*
 * check.c — `synctrace check` on the shim's derivation of logical messages (check.h).
 *
 * Steps: archive -> rank data (convert.c; with --raw the times before CLC) -> CLC input
 * and dependency graph (src/relations: derive.c, graph.c) -> every relation (st_rel_relations)
 * counted by its key type, violated when its receive is earlier than its send. Around
 * that, the figures a reader wants to judge the result by: matched and unmatched
 * messages (the derivation's own counts), cancelled and never completed receive requests,
 * collective operations and how many of them relate nothing (the payload rule of
 * docs/clc.md, handle operations, single members), OpenMP instances.
 */
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clc/clc.h"
#include "archive_read.h"
#include "convert.h"
#include "../util/msort.h"

uint64_t st_cli_check_total(const st_cli_check_t *r)
{
    return r->p2p + r->coll + r->omp_fork + r->omp_join + r->omp_barrier + r->omp_lock + r->omp_task + r->rma;
}

typedef struct ctx {
    const st_cli_archive_t *ar;
    st_cli_check_t         *res;
    const st_rel_graph_t   *g;
    const st_rel_input_t   *in;
    uint8_t                *related; /* [g->ninst]: the instance relates two locations */
} ctx_t;

/* The counter of a relation type and the name check prints for it. */
static uint64_t *counter(st_cli_check_t *r, unsigned type, const char **name)
{
    switch (type) {
    case ST_REL_KEY_P2P: *name = "p2p"; return &r->p2p;
    case ST_REL_KEY_COLL: case ST_REL_KEY_SYNC: *name = "collective"; return &r->coll;
    case ST_REL_KEY_RMA_COLL: case ST_REL_KEY_RMA_PSCW: case ST_REL_KEY_RMA_POST: case ST_REL_KEY_RMA_LOCK: *name = "rma"; return &r->rma;
    case ST_REL_KEY_OMP_FORK: *name = "omp_fork"; return &r->omp_fork;
    case ST_REL_KEY_OMP_JOIN: *name = "omp_join"; return &r->omp_join;
    case ST_REL_KEY_OMP_BARRIER: *name = "omp_barrier"; return &r->omp_barrier;
    case ST_REL_KEY_OMP_LOCK: *name = "omp_lock"; return &r->omp_lock;
    default: *name = "omp_task"; return &r->omp_task;
    }
}

/* The archive's location and event of a graph reference (locations convert 1:1, in order). */
static const st_event_t *arch_event(const ctx_t *c, const st_rel_ref_t *ref, long *loc)
{
    const st_rel_loc_t *L = &c->in->locs[ref->loc];
    *loc = st_cli_location_find(c->ar, L->rank, L->thread);
    return *loc >= 0 && ref->ev < c->ar->locs[*loc].n ? &c->ar->locs[*loc].ev[ref->ev] : NULL;
}

static void detail_of(const ctx_t *c, unsigned type, const st_event_t *re, const st_event_t *se, char *out,
                      size_t n)
{
    *out = 0;
    if (type == ST_REL_KEY_P2P)
        snprintf(out, n, "(comm %u, tag %u)", se->comm, (unsigned)se->tag);
    else if (type == ST_REL_KEY_COLL)
        snprintf(out, n, "(%s on comm %u)", st_cli_op_name(re->op), re->comm);
    else if (type == ST_REL_KEY_RMA_COLL)
        snprintf(out, n, "(%s on window %u of comm %u)", st_cli_op_name(re->op), (unsigned)re->tag, re->comm);
    else if (type == ST_REL_KEY_RMA_POST)
        snprintf(out, n, "(MPI_Win_post -> MPI_Win_start on window %u of comm %u)", (unsigned)re->tag, re->comm);
    else if (type == ST_REL_KEY_RMA_PSCW)
        snprintf(out, n, "(MPI_Win_complete -> MPI_Win_wait on window %u of comm %u)", (unsigned)re->tag, re->comm);
    else if (type == ST_REL_KEY_RMA_LOCK)
        snprintf(out, n, "(MPI_Win_unlock -> MPI_Win_unlock on window %u of comm %u)", (unsigned)re->tag, re->comm);
    else if (type == ST_REL_KEY_SYNC && st_cli_region(c->ar, re->region))
        snprintf(out, n, "(%s)", st_cli_string(c->ar, st_cli_region(c->ar, re->region)->name));
}

/* One line: "p2p: recv at rank 1 thread 0 t=150 is 10 ns before send at rank 0 thread 0 t=160 (...)". */
static void example(const ctx_t *c, const char *what, unsigned type, const st_rel_relation_t *rel)
{
    st_cli_check_t *res = c->res;
    long rl, sl;
    const st_event_t *re = arch_event(c, &rel->recv, &rl), *se = arch_event(c, &rel->send, &sl);
    if (res->nexamples >= ST_CLI_CHECK_EXAMPLES || !re || !se)
        return;
    const st_cli_location_t *r = &c->ar->locs[rl], *s = &c->ar->locs[sl];
    long long tr = (long long)(rel->t_recv - c->ar->offset), ts = (long long)(rel->t_send - c->ar->offset);
    char detail[96];
    detail_of(c, type, re, se, detail, sizeof detail);
    snprintf(res->examples[res->nexamples++], sizeof res->examples[0],
             "%s: %s at rank %d thread %u t=%lld is %lld %s before %s at rank %d thread %u t=%lld%s%s", what,
             st_event_kind_name(re->kind), r->rank, r->thread, tr, ts - tr,
             c->ar->resolution == 1000000000u ? "ns" : "ticks", st_event_kind_name(se->kind), s->rank, s->thread, ts,
             *detail ? " " : "", detail);
}

static void on_relation(void *u, const st_rel_relation_t *rel)
{
    ctx_t *c = u;
    unsigned type = st_rel_inst_type(&c->g->inst[rel->inst]);
    const char *name;
    uint64_t *n = counter(c->res, type, &name);
    c->related[rel->inst] = 1;
    c->res->relations++;
    if (rel->t_recv >= rel->t_send)
        return;
    ++*n;
    example(c, name, type, rel);
}

/* ---- figures around the relations ---------------------------------------------------------------- */

static void graph_figures(const st_rel_graph_t *g, st_cli_check_t *res)
{
    res->unmatched_sends = g->ds.unmatched_send;
    res->unmatched_recvs = g->ds.unmatched_recv;
    res->cancelled += g->ds.cancelled;
    for (uint64_t k = 0; k < g->ninst; k++)
        switch (st_rel_inst_type(&g->inst[k])) {
        case ST_REL_KEY_P2P: res->matched++; break;
        case ST_REL_KEY_OMP_FORK: res->omp_teams++; break;
        case ST_REL_KEY_RMA_COLL: res->rma_colls++; break;
        case ST_REL_KEY_RMA_PSCW: res->rma_pscw++; break;
        case ST_REL_KEY_RMA_POST: res->rma_post += g->inst[k].nsend == 1 && g->inst[k].nrecv == 1; break;
        case ST_REL_KEY_RMA_LOCK: res->rma_lock++; break;
        case ST_REL_KEY_OMP_BARRIER: res->omp_barriers++; break;
        case ST_REL_KEY_OMP_LOCK: res->omp_handovers++; break;
        case ST_REL_KEY_OMP_TASK: case ST_REL_KEY_OMP_TASKWAIT: res->omp_tasks++; break;
        default: break;
        }
}

typedef struct { uint64_t *v; size_t n; } ids_t;

static int has_id(const ids_t *s, uint64_t id)
{
    return s->n && bsearch(&id, s->v, s->n, sizeof id, st_cmp_u64) != NULL;
}

/* Receive requests of one rank that were cancelled or never completed (any thread may complete them). */
static int request_figures(const st_rankdata_t *rd, st_cli_check_t *res)
{
    size_t n = (size_t)st_rankdata_nevents(rd);
    ids_t posted = { malloc(sizeof(uint64_t) * (n + 1)), 0 }, done = { malloc(sizeof(uint64_t) * (n + 1)), 0 },
          cancelled = { malloc(sizeof(uint64_t) * (n + 1)), 0 };
    int rc = posted.v && done.v && cancelled.v ? 0 : -1;
    for (uint32_t t = 0; rc == 0 && t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            ids_t *to = e->kind == ST_EV_MPI_IRECV_REQUEST ? &posted : e->kind == ST_EV_MPI_IRECV ? &done
                      : e->kind == ST_EV_MPI_REQUEST_CANCELLED ? &cancelled : NULL;
            if (to)
                to->v[to->n++] = e->id;
        }
    if (rc == 0) {
        qsort(done.v, done.n, sizeof(uint64_t), st_cmp_u64);
        qsort(cancelled.v, cancelled.n, sizeof(uint64_t), st_cmp_u64);
        for (size_t i = 0; i < posted.n; i++) {
            if (has_id(&cancelled, posted.v[i]))
                res->cancelled++;
            else if (!has_id(&done, posted.v[i]))
                res->pending_recvs++;
        }
    }
    free(posted.v), free(done.v), free(cancelled.v);
    return rc;
}

/* One member's part in a collective operation: (comm key, instance), its rank, the members expected. */
typedef struct member { uint64_t comm, seq; int32_t rank; uint32_t expect; } member_t;

static int cmp_member(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int collect_members(const st_cli_ranks_t *rk, member_t **out, size_t *n)
{
    size_t cap = 64;
    *n = 0;
    *out = malloc(sizeof **out * cap);
    for (int32_t r = 0; *out && r < rk->nranks; r++) {
        const st_rankdata_t *rd = &rk->rd[r];
        for (uint32_t t = 0; t < rd->nthreads; t++)
            for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
                const st_event_t *e = &rd->threads[t].events[i];
                if ((e->kind != ST_EV_MPI_COLL_END && e->kind != ST_EV_MPI_ICOLL_COMPLETE) || e->comm >= rd->ncomms)
                    continue;
                const st_comm_def_t *d = &rd->comms[e->comm];
                if (*n == cap) {
                    member_t *g = realloc(*out, sizeof **out * (cap *= 2));
                    if (!g)
                        return -1;
                    *out = g;
                }
                (*out)[(*n)++] = (member_t){ d->key, e->kind == ST_EV_MPI_COLL_END ? e->id : e->aux, r,
                                             d->flags & ST_COMMF_SELF ? 1 : d->size + d->remote_size };
            }
    }
    return *out ? 0 : -1;
}

/* Operations, those with members missing, and those no relation of the graph came from. */
static int coll_figures(const st_cli_ranks_t *rk, const st_rel_graph_t *g, const uint8_t *related,
                        st_cli_check_t *res)
{
    member_t *m = NULL, *rel = NULL;
    size_t n = 0, nrel = 0;
    int rc = collect_members(rk, &m, &n);
    if (rc == 0 && !(rel = malloc(sizeof *rel * (g->ninst + 1))))
        rc = -1;
    for (uint64_t k = 0; rc == 0 && k < g->ninst; k++)
        if (related[k] && st_rel_inst_type(&g->inst[k]) == ST_REL_KEY_COLL)
            rel[nrel++] = (member_t){ g->inst[k].key[2], g->inst[k].key[1], 0, 0 };
    if (rc == 0) {
        qsort(m, n, sizeof *m, cmp_member);
        qsort(rel, nrel, sizeof *rel, cmp_member);
        for (size_t i = 0, j; i < n; i = j) {
            uint32_t ranks = 0;
            for (j = i; j < n && m[j].comm == m[i].comm && m[j].seq == m[i].seq; j++)
                ranks += j == i || m[j].rank != m[j - 1].rank;
            res->coll_instances++;
            res->coll_incomplete += ranks < m[i].expect;
            member_t key = { m[i].comm, m[i].seq, 0, 0 };
            res->coll_unrelated += !(nrel && bsearch(&key, rel, nrel, sizeof key, cmp_member));
        }
    }
    free(m), free(rel);
    return rc;
}

/* ---- the check --------------------------------------------------------------------------------------- */

int st_cli_check(const st_cli_archive_t *ar, st_cli_check_t *res, char *err, size_t errlen)
{
    st_cli_ranks_t rk;
    if (st_cli_convert(ar, ST_CLI_CONV_CHECK | (res->raw ? ST_CLI_CONV_RAW : 0), &rk, err, errlen))
        return -1;
    st_rel_input_t in = { 0 };
    st_rel_graph_t g = { 0 };
    ctx_t c = { .ar = ar, .res = res, .g = &g, .in = &in };
    int rc = st_rel_input_from_rankdata(rk.rd, rk.nranks, &in);
    in.sync = st_rel_sync_regions, in.nsync = ST_REL_NSYNC;
    if (rc == 0)
        rc = st_rel_graph_build(&in, &g);
    if (rc == 0)
        rc = st_rel_save_orig(&in);
    if (rc == 0 && !(c.related = calloc(g.ninst + 1, 1)))
        rc = -1;
    if (rc == 0) {
        st_rel_relations(&g, in.locs, 1, on_relation, &c);
        graph_figures(&g, res);
        for (int32_t r = 0; rc == 0 && r < rk.nranks; r++)
            rc = request_figures(&rk.rd[r], res);
        if (rc == 0)
            rc = coll_figures(&rk, &g, c.related, res);
    }
    if (rc)
        snprintf(err, errlen, "out of memory");
    free(c.related);
    st_rel_graph_free(&g);
    st_rel_input_free(&in);
    st_cli_ranks_free(&rk);
    return rc;
}
