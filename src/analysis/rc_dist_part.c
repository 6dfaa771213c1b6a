/*
 * rc_dist_part.c — the distributed root-cause replay in a parallel analysis' process (rc_dist.h): its
 * timeline and values taken into the run's cnode numbering for the engine and back, and the part it
 * hands the collector in the report part's words.
 */
#include "rc_dist.h"

#include <stdlib.h>
#include <string.h>

struct rc_dist_local {
    st_an_result_t *res;   /* the process's result (local cnodes) */
    st_an_result_t  run;   /* its locations' values in the run's cnodes (Idle threads in, the replay's out) */
    const uint32_t *map;   /* local cnode -> the run's */
    uint32_t       *ploc0; /* [nprocs + 1] */
    rc_dist_t      *d;
};

size_t rc_dist_part_words(const rc_dist_part_t *p)
{
    return 2 + (size_t)p->nlocs * p->ncnodes + 1 + 6 * p->n + 1 + 4 * p->hops.n + 1 + 4 * p->props.n;
}

static uint64_t dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

static double bitsd(uint64_t b)
{
    double v;
    memcpy(&v, &b, 8);
    return v;
}

uint64_t *rc_dist_part_pack(const rc_dist_part_t *p, uint64_t *q)
{
    size_t nT = (size_t)p->nlocs * p->ncnodes;
    *q++ = p->nlocs, *q++ = p->ncnodes;
    if (nT)
        memcpy(q, p->T, 8 * nT);
    q += nT;
    *q++ = p->n;
    for (size_t i = 0; i < p->n; i++) {
        const st_rc_cause_t *c = &p->v[i];
        *q++ = (uint64_t)(uint32_t)c->metric, *q++ = c->wait_cnode, *q++ = c->delay_loc, *q++ = c->delay_cnode;
        *q++ = dbits(c->short_ticks), *q++ = dbits(c->long_ticks);
    }
    *q++ = p->hops.n;
    for (size_t i = 0; i < p->hops.n; i++)
        *q++ = p->hops.idx[i], *q++ = p->hops.v[i].loc, *q++ = p->hops.v[i].t0, *q++ = p->hops.v[i].t1;
    *q++ = p->props.n;
    for (size_t i = 0; i < p->props.n; i++) {
        const struct st_rc_prop *e = &p->props.v[i];
        *q++ = (uint64_t)(uint32_t)e->metric, *q++ = e->cnode, *q++ = dbits(e->wait), *q++ = dbits(e->propagating);
    }
    return q;
}

int rc_dist_part_unpack(const uint64_t *w, size_t nw, rc_dist_part_t *p)
{
    memset(p, 0, sizeof *p);
    const uint64_t *end = w + nw;
    if (nw < 2 || w[0] > UINT32_MAX || w[1] > UINT32_MAX)
        return -1;
    p->nlocs = (uint32_t)w[0], p->ncnodes = (uint32_t)w[1];
    w += 2;
    size_t nT = (size_t)p->nlocs * p->ncnodes;
    if ((size_t)(end - w) < nT + 1 || !(p->T = malloc((nT ? nT : 1) * sizeof *p->T)))
        goto bad;
    if (nT)
        memcpy(p->T, w, 8 * nT);
    w += nT;
    p->n = *w++;
    if ((size_t)(end - w) / 6 < p->n || (size_t)(end - w) < 6 * p->n + 1 ||
        !(p->v = malloc((p->n ? p->n : 1) * sizeof *p->v)))
        goto bad;
    for (size_t i = 0; i < p->n; i++, w += 6)
        p->v[i] = (st_rc_cause_t){ (int32_t)(uint32_t)w[0], (uint32_t)w[1], (uint32_t)w[2], (uint32_t)w[3], bitsd(w[4]),
                                   bitsd(w[5]) };
    size_t nh = *w++;
    if ((size_t)(end - w) / 4 < nh || (size_t)(end - w) < 4 * nh + 1)
        goto bad;
    p->hops.v = malloc((nh ? nh : 1) * sizeof *p->hops.v), p->hops.idx = malloc((nh ? nh : 1) * sizeof *p->hops.idx);
    if (!p->hops.v || !p->hops.idx)
        goto bad;
    for (size_t i = 0; i < nh; i++, w += 4)
        p->hops.idx[i] = w[0], p->hops.v[i] = (struct st_rc_hop){ (uint32_t)w[1], w[2], w[3] };
    p->hops.n = p->hops.cap = nh;
    size_t np = *w++;
    if ((size_t)(end - w) / 4 < np || (size_t)(end - w) != 4 * np)
        goto bad;
    for (size_t i = 0; i < np; i++, w += 4)
        if (rc_props_add1(&p->props, (int32_t)(uint32_t)w[0], (uint32_t)w[1], bitsd(w[2]), bitsd(w[3])))
            goto bad;
    return 0;
bad:
    rc_dist_part_free(p);
    return -1;
}

/* ---- a process's replay ---------------------------------------------------------------------------------- */

int rc_dist_local_begin(st_an_result_t *res, const uint32_t *map, uint32_t nglobal, const uint32_t *ploc0, int32_t me,
                        int32_t nprocs, const st_xchg_net_t *net, rc_dist_local_t **out)
{
    *out = NULL;
    st_rc_input_t *in = res->timeline;
    if (!in || in->nlocs != res->nlocs || ploc0[me + 1] - ploc0[me] != res->nlocs || nglobal > ST_RC_CNODES)
        return -1; /* (the calls' cnodes in the run's numbering fit their 28 bits) */
    for (uint32_t c = 0; c < res->ncnodes; c++)
        if (map[c] >= nglobal)
            return -1;
    rc_dist_local_t *x = calloc(1, sizeof *x);
    uint32_t nl = res->nlocs;
    if (!x)
        return -1;
    x->res = res, x->map = map;
    x->run = (st_an_result_t){ .ncnodes = nglobal, .nlocs = nl };
    x->run.sev = calloc((size_t)ST_AN__METRICS * (nglobal ? nglobal : 1) * (nl ? nl : 1), sizeof(double));
    x->ploc0 = malloc(((size_t)nprocs + 1) * sizeof *x->ploc0);
    if (!x->run.sev || !x->ploc0) {
        free(x->run.sev), free(x->ploc0), free(x);
        return -1;
    }
    memcpy(x->ploc0, ploc0, ((size_t)nprocs + 1) * sizeof *x->ploc0);
    for (uint32_t c = 0; c < res->ncnodes; c++)
        for (uint32_t l = 0; l < nl; l++)
            *st_an_sev(&x->run, ST_AN_M_OMP_IDLE, map[c], l) = *st_an_sev(res, ST_AN_M_OMP_IDLE, c, l);
    for (uint32_t l = 0; l < in->nlocs; l++) { /* in the run's numbering (no other order depends on it) */
        st_rc_loc_t *L = &in->locs[l];
        for (uint64_t k = 0; k < L->nprof; k++)
            L->prof[k].cnode = L->prof[k].cnode < res->ncnodes ? map[L->prof[k].cnode] : 0;
        for (uint32_t k = 0; k < L->ncalls; k++)
            L->calls[k].cnode = L->calls[k].cnode < res->ncnodes ? map[L->calls[k].cnode] : 0;
    }
    if (rc_dist_new(&x->run, in, x->ploc0, me, nprocs, net, &x->d)) {
        free(x->run.sev), free(x->ploc0), free(x);
        return -1;
    }
    rc_dist_keep_omp(x->d); /* a parallel analysis' process holds whole ranks: every OpenMP team is here */
    *out = x;
    return 0;
}

rc_dist_t *rc_dist_local_engine(rc_dist_local_t *x) { return x->d; }

int rc_dist_local_end(rc_dist_local_t *x, int ok, rc_dist_part_t *part)
{
    st_an_result_t *res = x->res;
    int rc = ok && rc_dist_take(x->d, part) == 0 ? 0 : -1;
    rc_dist_free(x->d);
    for (int m = ST_AN_M_DELAY; !rc && m <= ST_AN_M_NON_CP_ACTIVITIES; m++)
        for (uint32_t c = 0; c < res->ncnodes; c++)
            for (uint32_t l = 0; l < res->nlocs; l++)
                *st_an_sev(res, m, c, l) = *st_an_sev(&x->run, m, x->map[c], l);
    if (rc)
        rc_zero_metrics(res);
    st_rc_input_free(res->timeline);
    free(res->timeline);
    res->timeline = NULL;
    free(x->run.sev), free(x->ploc0), free(x);
    return rc;
}
