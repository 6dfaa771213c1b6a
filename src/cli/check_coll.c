/*
 * check_coll.c — collective instances and their happened-before relations.
 *
 * A blocking collective is MpiCollectiveBegin .. MpiCollectiveEnd on one location (the
 * End names op, comm, root); a nonblocking one is NonBlockingCollectiveRequest ..
 * NonBlockingCollectiveComplete with the same request id (begin = the request). MPI
 * requires every member to start the collectives of a communicator in the same order, so
 * the n-th collective a rank starts on comm C (ordered by begin: time, then location, then
 * position) belongs to instance n of C on every member; on a COMM_SELF communicator each
 * rank has its own instances. Per ALGORITHMS.md §8, a violation is an end earlier than a
 * begin it depends on:
 *   1-to-N (bcast, scatter[v])       every end vs the root's begin
 *   N-to-1 (reduce, gather[v])       the root's end vs every begin (the latest)
 *   N-to-N (barrier, all*, alltoall*, reduce_scatter*)  every end vs the latest begin
 *   scan / exscan                    rank i's end vs the begins of ranks <= i / < i
 * On an intercommunicator data flows between the groups: the same rules with "every begin"
 * meaning the other group's, and a rooted operation's members being the root (whose end names
 * itself) and the other group. Other operations (handle creation, ...) count as instances but
 * are not checked. Instances with fewer members than the
 * communicator are counted as incomplete and checked with what is there.
 */
#include "check.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>

#include "archive_read.h"

typedef struct coll {
    uint32_t comm;
    int32_t  self_rank;  /* the rank on COMM_SELF-like communicators, else -1 */
    int32_t  rank;
    uint64_t key;        /* begin order: running max time of the location at the begin */
    uint32_t loc;
    size_t   b, e;       /* positions of the begin and end events */
    uint64_t seq;        /* instance number on comm */
} coll_t;

typedef struct colls {
    coll_t *a;
    size_t n, cap;
} colls_t;

enum { C_NN, C_1N, C_N1, C_SCAN, C_EXSCAN, C_NONE };

static int op_class(unsigned op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV:
        return C_1N;
    case OTF2_COLLECTIVE_OP_REDUCE: case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
        return C_N1;
    case OTF2_COLLECTIVE_OP_BARRIER: case OTF2_COLLECTIVE_OP_ALLREDUCE: case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV: case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return C_NN;
    case OTF2_COLLECTIVE_OP_SCAN: return C_SCAN;
    case OTF2_COLLECTIVE_OP_EXSCAN: return C_EXSCAN;
    default: return C_NONE;
    }
}

/* ---- collecting -------------------------------------------------------------------------- */

/* Starts an instance item at begin position b; its end is filled in by finish(). */
static int begin(colls_t *cs, const st_cli_location_t *l, uint32_t li, size_t b, uint64_t key)
{
    coll_t *c = st_cli_grow((void **)&cs->a, &cs->n, &cs->cap, sizeof *c);
    if (!c)
        return -1;
    *c = (coll_t){.rank = l->rank, .key = key, .loc = li, .b = b, .e = SIZE_MAX};
    return 0;
}

static void finish(const st_cli_archive_t *ar, coll_t *c, size_t e)
{
    const st_cli_location_t *l = &ar->locs[c->loc];
    const st_cli_comm_t *cm = st_cli_comm(ar, l->ev[e].comm);
    c->e = e;
    c->comm = l->ev[e].comm;
    c->self_rank = cm && cm->self ? l->rank : -1;
}

static int walk_location(const st_cli_archive_t *ar, uint32_t li, colls_t *cs, st_cli_reqs_t *reqs)
{
    const st_cli_location_t *l = &ar->locs[li];
    uint64_t key = 0;
    size_t open = SIZE_MAX, idx; /* open: item index of the blocking collective begun */
    int rc = 0;
    for (size_t i = 0; i < l->n && !rc; i++) {
        const st_cli_event_t *e = &l->ev[i];
        key = e->time > key ? e->time : key;
        switch (e->kind) {
        case ST_EV_MPI_COLL_BEGIN:
            rc = begin(cs, l, li, i, key);
            open = cs->n - 1;
            break;
        case ST_EV_MPI_COLL_END:
            if (open == SIZE_MAX && !(rc = begin(cs, l, li, i, key)))
                open = cs->n - 1;
            if (!rc)
                finish(ar, &cs->a[open], i);
            open = SIZE_MAX;
            break;
        case ST_EV_MPI_ICOLL_REQUEST:
            if (!(rc = begin(cs, l, li, i, key)))
                rc = st_cli_reqs_put(reqs, e->req, cs->n - 1);
            break;
        case ST_EV_MPI_ICOLL_COMPLETE:
            if (st_cli_reqs_take(reqs, e->req, &idx))
                finish(ar, &cs->a[idx], i);
            else if (!(rc = begin(cs, l, li, i, key)))
                finish(ar, &cs->a[cs->n - 1], i);
            break;
        default: break;
        }
    }
    reqs->n = 0;
    return rc;
}

/* ---- instances ------------------------------------------------------------------------------ */

static int cmp_begin_order(const void *a, const void *b)
{
    const coll_t *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->self_rank != y->self_rank) return x->self_rank < y->self_rank ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->loc != y->loc) return x->loc < y->loc ? -1 : 1;
    return (x->b > y->b) - (x->b < y->b);
}

static int cmp_instance(const void *a, const void *b)
{
    const coll_t *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->self_rank != y->self_rank) return x->self_rank < y->self_rank ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->loc > y->loc) - (x->loc < y->loc);
}

/* Drops items that never ended, numbers each rank's collectives per communicator. */
static void number(colls_t *cs)
{
    size_t k = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->a[i].e != SIZE_MAX)
            cs->a[k++] = cs->a[i];
    cs->n = k;
    st_cli_sort(cs->a, cs->n, sizeof *cs->a, cmp_begin_order);
    for (size_t i = 0; i < cs->n; i++) {
        const coll_t *p = i ? &cs->a[i - 1] : NULL, *c = &cs->a[i];
        int same = p && p->comm == c->comm && p->self_rank == c->self_rank && p->rank == c->rank;
        cs->a[i].seq = same ? p->seq + 1 : 0;
    }
    st_cli_sort(cs->a, cs->n, sizeof *cs->a, cmp_instance);
}

/* ---- checking one instance ------------------------------------------------------------------ */

typedef struct inst {
    const st_cli_archive_t *ar;
    st_cli_check_t *res;
    coll_t *a;          /* the members' items */
    size_t n;
    const st_cli_comm_t *comm;
    const st_cli_event_t *end0; /* the first member's end: op, root */
} inst_t;

static const st_cli_event_t *ev(const inst_t *in, const coll_t *c, size_t pos)
{
    return &in->ar->locs[c->loc].ev[pos];
}

static uint64_t t_begin(const inst_t *in, const coll_t *c) { return st_cli_check_time(in->res, ev(in, c, c->b)); }
static uint64_t t_end(const inst_t *in, const coll_t *c) { return st_cli_check_time(in->res, ev(in, c, c->e)); }

/* end of item r must not precede begin of item s. */
static void need(const inst_t *in, const coll_t *r, const coll_t *s)
{
    if (t_end(in, r) >= t_begin(in, s))
        return;
    in->res->coll++;
    char detail[96];
    snprintf(detail, sizeof detail, "(%s on comm %u, instance %llu)", st_cli_op_name(in->end0->op), r->comm,
             (unsigned long long)r->seq);
    st_cli_check_example(in->ar, in->res, "collective", r->loc, r->e, s->loc, s->b, detail);
}

static const coll_t *latest_begin(const inst_t *in, const coll_t *a, size_t n)
{
    const coll_t *m = NULL;
    for (size_t i = 0; i < n; i++)
        if (!m || t_begin(in, &a[i]) > t_begin(in, m))
            m = &a[i];
    return m;
}

static const coll_t *root_item(const inst_t *in)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->end0->peer >= 0 && in->a[i].rank == in->end0->peer)
            return &in->a[i];
    return NULL;
}

typedef struct ranked {
    long crank;        /* communicator rank, -1 when the rank is not a member */
    const coll_t *c;
} ranked_t;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked_t *x = a, *y = b;
    return (x->crank > y->crank) - (x->crank < y->crank);
}

static long comm_rank(const inst_t *in, int32_t world)
{
    for (uint32_t i = 0; in->comm && i < in->comm->nmembers; i++)
        if (in->comm->members[i] == world)
            return i;
    return -1;
}

/* Scan / Exscan: rank i's end vs the latest begin of comm ranks <= i (< i with ex). */
static int check_scan(const inst_t *in, int ex)
{
    ranked_t *r = malloc(sizeof *r * (in->n + 1));
    if (!r)
        return -1;
    for (size_t i = 0; i < in->n; i++)
        r[i] = (ranked_t){comm_rank(in, in->a[i].rank), &in->a[i]};
    st_cli_sort(r, in->n, sizeof *r, cmp_ranked);
    const coll_t *latest = NULL; /* latest begin among the ranks before the current group */
    for (size_t i = 0, j; i < in->n; i = j) {
        const coll_t *group_latest = latest;
        for (j = i; j < in->n && r[j].crank == r[i].crank; j++)
            if (!group_latest || t_begin(in, r[j].c) > t_begin(in, group_latest))
                group_latest = r[j].c;
        for (size_t k = i; k < j && r[i].crank >= 0; k++) {
            const coll_t *m = ex ? latest : group_latest;
            if (m)
                need(in, r[k].c, m);
        }
        if (r[i].crank >= 0)
            latest = group_latest;
    }
    free(r);
    return 0;
}

static int in_group_a(const inst_t *in, const coll_t *c)
{
    for (uint32_t i = 0; i < in->comm->size; i++)
        if (in->comm->world[i] == c->rank)
            return 1;
    return 0;
}

/* The latest begin among the members of one group of an intercommunicator (a: group A). */
static const coll_t *latest_begin_of(const inst_t *in, int a)
{
    const coll_t *m = NULL;
    for (size_t i = 0; i < in->n; i++)
        if (in_group_a(in, &in->a[i]) == a && (!m || t_begin(in, &in->a[i]) > t_begin(in, m)))
            m = &in->a[i];
    return m;
}

/* Intercommunicator: data flows only between the groups. N-to-N: every end vs the latest begin
 * of the other group; rooted: the root (its end names itself) and the other group, as within a
 * communicator; the rest of the root's group takes no part. Returns 1 if it cannot be checked. */
static int check_inter(inst_t *in, int cls)
{
    if (cls == C_NN) {
        const coll_t *latest[2] = { latest_begin_of(in, 0), latest_begin_of(in, 1) };
        for (size_t i = 0; i < in->n; i++) {
            const coll_t *m = latest[!in_group_a(in, &in->a[i])];
            if (m)
                need(in, &in->a[i], m);
        }
        return 0;
    }
    if (cls != C_1N && cls != C_N1)
        return 1;
    const coll_t *root = NULL;
    for (size_t i = 0; i < in->n && !root; i++)
        if (ev(in, &in->a[i], in->a[i].e)->peer == in->a[i].rank)
            root = &in->a[i];
    if (!root)
        return 1;
    int other = !in_group_a(in, root);
    if (cls == C_N1) {
        const coll_t *m = latest_begin_of(in, other);
        if (m)
            need(in, root, m);
        return 0;
    }
    for (size_t i = 0; i < in->n; i++)
        if (in_group_a(in, &in->a[i]) == other)
            need(in, &in->a[i], root);
    return 0;
}

static int check_instance(inst_t *in)
{
    int cls = op_class(in->end0->op);
    int inter = in->comm && in->comm->world_b;
    const coll_t *root = !inter && (cls == C_1N || cls == C_N1) ? root_item(in) : NULL;
    in->res->coll_instances++;
    if (in->comm && !in->comm->self && in->n != in->comm->nmembers)
        in->res->coll_incomplete++;
    if (inter && cls != C_NONE && check_inter(in, cls) == 0)
        return 0;
    if (cls == C_NONE || inter || ((cls == C_1N || cls == C_N1) && !root)) {
        in->res->coll_unchecked++;
        return 0;
    }
    if (cls == C_NN) {
        const coll_t *m = latest_begin(in, in->a, in->n);
        for (size_t i = 0; i < in->n; i++)
            need(in, &in->a[i], m);
    } else if (cls == C_1N) {
        for (size_t i = 0; i < in->n; i++)
            need(in, &in->a[i], root);
    } else if (cls == C_N1) {
        need(in, root, latest_begin(in, in->a, in->n));
    } else {
        return check_scan(in, cls == C_EXSCAN);
    }
    return 0;
}

int st_cli_check_coll(const st_cli_archive_t *ar, st_cli_check_t *res)
{
    colls_t cs = {0};
    st_cli_reqs_t reqs = {0};
    int rc = 0;
    for (size_t li = 0; li < ar->nlocs && !rc; li++)
        rc = walk_location(ar, (uint32_t)li, &cs, &reqs);
    if (!rc) {
        number(&cs);
        for (size_t i = 0, j; i < cs.n && !rc; i = j) {
            for (j = i + 1; j < cs.n && cs.a[j].comm == cs.a[i].comm && cs.a[j].self_rank == cs.a[i].self_rank &&
                            cs.a[j].seq == cs.a[i].seq; j++)
                ;
            inst_t in = {.ar = ar, .res = res, .a = &cs.a[i], .n = j - i, .comm = st_cli_comm(ar, cs.a[i].comm),
                         .end0 = &ar->locs[cs.a[i].loc].ev[cs.a[i].e]};
            rc = check_instance(&in);
        }
    }
    free(cs.a);
    st_cli_reqs_free(&reqs);
    return rc;
}
