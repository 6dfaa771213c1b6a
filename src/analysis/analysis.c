/*
 * analysis.c — the serial analysis driver (analysis.h): the metric table, the call tree
 * (region nesting per location, merged by path), time, visits, MPI time and collective
 * counts; the patterns come from p2p.c and coll.c.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../record/region.h"
#include "patterns.h"

static const st_an_metric_def_t metrics[ST_AN__METRICS] = {
#define ST_AN_METRIC(id, uniq, disp, parent, unit, descr) { uniq, disp, ST_AN_M_##parent, unit, descr },
#include "metrics.def"
#undef ST_AN_METRIC
};

const st_an_metric_def_t *st_an_metric(int m) { return m >= 0 && m < ST_AN__METRICS ? &metrics[m] : NULL; }

int st_an_metric_find(const char *uniq)
{
    for (int m = 0; m < ST_AN__METRICS; m++)
        if (!strcmp(metrics[m].uniq, uniq))
            return m;
    return -1;
}

/* ---- call tree -------------------------------------------------------------------------------- */

/* (parent, region) -> cnode, open addressing; the tree is small, the lookups many. */
typedef struct tree {
    st_an_cnode_t *v;
    uint32_t       n, cap;
    uint32_t      *slot; /* cnode + 1, 0 empty */
    uint32_t       nslot;
} tree_t;

static uint32_t slot_of(const tree_t *t, uint32_t parent, uint32_t region)
{
    uint64_t h = ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)region * 0xc2b2ae3d27d4eb4full);
    uint32_t s = (uint32_t)(h >> 32) & (t->nslot - 1);
    while (t->slot[s] && (t->v[t->slot[s] - 1].parent != parent || t->v[t->slot[s] - 1].region != region))
        s = (s + 1) & (t->nslot - 1);
    return s;
}

static int tree_grow(tree_t *t)
{
    uint32_t cap = t->cap ? 2 * t->cap : 64, nslot = 4 * cap;
    st_an_cnode_t *v = realloc(t->v, sizeof *v * cap);
    uint32_t *slot = calloc(nslot, sizeof *slot);
    if (!v || !slot) {
        if (v)
            t->v = v;
        free(slot);
        return -1;
    }
    free(t->slot);
    t->v = v, t->cap = cap, t->slot = slot, t->nslot = nslot;
    for (uint32_t k = 0; k < t->n; k++)
        t->slot[slot_of(t, t->v[k].parent, t->v[k].region)] = k + 1;
    return 0;
}

/* The child of parent for region (created if new), ST_AN_NO_CNODE when out of memory. */
static uint32_t tree_child(tree_t *t, uint32_t parent, uint32_t region)
{
    if (t->n == t->cap && tree_grow(t))
        return ST_AN_NO_CNODE;
    uint32_t s = slot_of(t, parent, region);
    if (t->slot[s])
        return t->slot[s] - 1;
    uint32_t k = t->n++;
    t->v[k] = (st_an_cnode_t){ parent, region, ST_AN_NO_CNODE, ST_AN_NO_CNODE };
    if (parent != ST_AN_NO_CNODE) { /* append to the parent's children (creation order) */
        uint32_t *p = &t->v[parent].first_child;
        while (*p != ST_AN_NO_CNODE)
            p = &t->v[*p].next;
        *p = k;
    }
    t->slot[s] = k + 1;
    return k;
}

/* One location: calls, their ends and cnodes. Unmatched LEAVEs are ignored, calls never left end at the end. */
static int scan_loc(an_ctx_t *c, tree_t *t, uint32_t l, uint64_t *stack)
{
    const st_clc_loc_t *L = &c->in->locs[l];
    an_loc_t *A = &c->loc[l];
    uint64_t depth = 0;
    for (uint64_t i = 0; i < L->n; i++) {
        const st_event_t *e = &L->ev[i];
        A->leave[i] = AN_NO_EV;
        if (e->kind == ST_EV_ENTER) {
            uint32_t parent = depth ? A->cnode[stack[depth - 1]] : 0;
            if ((A->cnode[i] = tree_child(t, parent, e->region)) == ST_AN_NO_CNODE)
                return -1;
            stack[depth++] = i;
            A->call[i] = i;
        } else if (e->kind == ST_EV_LEAVE && depth) {
            uint64_t open = stack[--depth];
            A->leave[open] = i;
            A->call[i] = open;
        } else {
            c->res->stats.unpaired += e->kind == ST_EV_LEAVE;
            A->call[i] = depth ? stack[depth - 1] : AN_NO_EV;
        }
    }
    c->res->stats.unpaired += depth;
    return 0;
}

static int build_tree(an_ctx_t *c)
{
    tree_t t = { 0 };
    uint64_t nmax = 0;
    int rc = 0;
    for (uint32_t l = 0; l < c->in->nlocs; l++)
        nmax = c->in->locs[l].n > nmax ? c->in->locs[l].n : nmax;
    uint64_t *stack = malloc(sizeof *stack * (nmax + 1));
    if (!stack || tree_child(&t, ST_AN_NO_CNODE, UINT32_MAX) == ST_AN_NO_CNODE)
        rc = -1;
    for (uint32_t l = 0; rc == 0 && l < c->in->nlocs; l++) {
        an_loc_t *A = &c->loc[l];
        uint64_t n = c->in->locs[l].n + 1;
        if (!(A->call = malloc(sizeof *A->call * n)) || !(A->leave = malloc(sizeof *A->leave * n)) ||
            !(A->cnode = malloc(sizeof *A->cnode * n)))
            rc = -1;
        else
            rc = scan_loc(c, &t, l, stack);
    }
    free(stack), free(t.slot);
    c->res->cnodes = t.v;
    c->res->ncnodes = t.n;
    return rc;
}

/* ---- time, visits, MPI time, collective counts ------------------------------------------------ */

static void coll_counts(an_ctx_t *c, uint32_t l, uint64_t i, const st_event_t *e)
{
    if (st_clc_coll_class(e->op) == ST_CLC_CC_NONE)
        return;
    uint64_t call = an_call(c, l, i);
    int m = e->bytes && e->bytes2 ? ST_AN_M_COMMS_CXCH : e->bytes ? ST_AN_M_COMMS_CSRC
          : e->bytes2 ? ST_AN_M_COMMS_CDST : ST_AN_M_SYNCS_COLL;
    an_add(c, m, l, call, 1);
    an_add(c, ST_AN_M_BYTES_COUT, l, call, (double)e->bytes);
    an_add(c, ST_AN_M_BYTES_CIN, l, call, (double)e->bytes2);
}

static void time_loc(an_ctx_t *c, uint32_t l)
{
    const st_clc_loc_t *L = &c->in->locs[l];
    st_an_result_t *r = c->res;
    if (!L->n)
        return;
    *st_an_sev(r, ST_AN_M_TIME, 0, l) += (double)st_an_diff(L->ev[L->n - 1].time, L->ev[0].time);
    for (uint64_t i = 0; i < L->n; i++) {
        const st_event_t *e = &L->ev[i];
        if (e->kind == ST_EV_MPI_COLL_END)
            coll_counts(c, l, i, e);
        if (e->kind != ST_EV_ENTER)
            continue;
        uint32_t k = c->loc[l].cnode[i];
        double d = (double)st_an_diff(an_leave_time(c, l, i), e->time);
        *st_an_sev(r, ST_AN_M_TIME, k, l) += d; /* inclusive here, its children's time taken off below */
        *st_an_sev(r, ST_AN_M_TIME, r->cnodes[k].parent, l) -= d;
        *st_an_sev(r, ST_AN_M_VISITS, k, l) += 1;
    }
}

static void mpi_time(st_an_result_t *r)
{
    for (uint32_t k = 1; k < r->ncnodes; k++) {
        const st_region_info_t *ri = st_region_info(r->cnodes[k].region);
        if (ri && ri->paradigm == ST_PARADIGM_MPI)
            memcpy(st_an_sev(r, ST_AN_M_MPI, k, 0), st_an_sev(r, ST_AN_M_TIME, k, 0), sizeof(double) * r->nlocs);
    }
}

/* ---- worst instances ------------------------------------------------------------------------------ */

void an_note(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v)
{
    st_an_result_t *r = c->res;
    if (metrics[m].unit[0] != 's')
        return;
    uint32_t n = r->ntop[m];
    if (n == ST_AN_TOP && v <= r->top[m][n - 1].value)
        return;
    uint32_t k = n < ST_AN_TOP ? n++ : n - 1; /* the new one's slot, then bubble it up */
    while (k > 0 && r->top[m][k - 1].value < v) {
        r->top[m][k] = r->top[m][k - 1];
        k--;
    }
    r->top[m][k] = (st_an_instance_t){ v, call == AN_NO_EV ? 0 : an_time(c, l, call), l, an_cnode(c, l, call) };
    r->ntop[m] = n;
}

/* ---- entry points ------------------------------------------------------------------------------ */

int st_an_run(const st_clc_input_t *in, const st_clc_graph_t *g, st_an_result_t *res)
{
    memset(res, 0, sizeof *res);
    an_ctx_t c = { .in = in, .g = g, .res = res, .loc = calloc(in->nlocs + 1, sizeof(an_loc_t)) };
    res->nlocs = in->nlocs;
    int rc = c.loc ? build_tree(&c) : -1;
    if (rc == 0 && !(res->sev = calloc((size_t)ST_AN__METRICS * res->ncnodes * (in->nlocs ? in->nlocs : 1),
                                       sizeof(double))))
        rc = -1;
    if (rc == 0) {
        for (uint32_t l = 0; l < in->nlocs; l++)
            time_loc(&c, l);
        mpi_time(res);
        rc = an_omp(&c);
    }
    if (rc == 0)
        rc = an_p2p(&c);
    if (rc == 0)
        rc = an_coll(&c);
    if (rc == 0)
        rc = an_tree(&c);
    for (uint32_t l = 0; c.loc && l < in->nlocs; l++)
        free(c.loc[l].call), free(c.loc[l].leave), free(c.loc[l].cnode);
    free(c.loc);
    if (rc)
        st_an_free(res);
    return rc;
}

void st_an_free(st_an_result_t *res)
{
    free(res->cnodes);
    free(res->sev);
    memset(res, 0, sizeof *res);
}

double st_an_total(const st_an_result_t *r, int m)
{
    double s = 0;
    for (uint64_t k = 0; k < (uint64_t)r->ncnodes * r->nlocs; k++)
        s += r->sev[(uint64_t)m * r->ncnodes * r->nlocs + k];
    return s;
}
