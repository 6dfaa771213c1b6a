/*
 * rc_dist_collect.c — the end of a distributed root-cause replay at the collector (rc_dist.h,
 * rc_dist_finish): the derived imbalance metrics over every location (from the merged values and the
 * processes' T), the causes tables, the critical path's hops in the path's order and the propagation
 * table of the last process.
 */
#include "rc_dist.h"

#include <stdlib.h>
#include <string.h>

#include "../util/msort.h"

typedef struct tsrc {
    const int64_t **T; /* [nlocs] each location's T */
    uint32_t        nc;
} tsrc_t;

static void part_T(const void *arg, uint32_t l, int64_t *T)
{
    const tsrc_t *s = arg;
    memcpy(T, s->T[l], s->nc * sizeof *T);
}

typedef struct ihop {
    uint64_t         idx;
    struct st_rc_hop h;
} ihop_t;

static inline int cmp_ihop(const ihop_t *p, const ihop_t *q) { return (p->idx > q->idx) - (p->idx < q->idx); }
static int cmp_ihop_void(const void *p, const void *q) { return cmp_ihop(p, q); }
ST_MSORT(sort_ihops, ihop_t, cmp_ihop)

/* The causes, hops and propagation table of the parts into c. 0, or -1 (memory). */
static int collect_causes(rc_dist_part_t *parts, int n, st_rc_causes_t *c)
{
    size_t nv = 0, nh = 0;
    for (int i = 0; i < n; i++)
        nv += parts[i].n, nh += parts[i].hops.n;
    c->v = malloc((nv ? nv : 1) * sizeof *c->v);
    ihop_t *h = malloc((nh ? nh : 1) * sizeof *h);
    if (!c->v || !h || (nh && !(c->path = malloc(nh * sizeof *c->path)))) {
        free(h);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (parts[i].n)
            memcpy(&c->v[c->n], parts[i].v, parts[i].n * sizeof *c->v);
        c->n += parts[i].n;
        for (size_t k = 0; k < parts[i].hops.n; k++)
            h[c->npath++] = (ihop_t){ parts[i].hops.idx[k], parts[i].hops.v[k] };
    }
    if (c->npath > 1)
        sort_ihops(h, c->npath);
    for (size_t k = 0; k < c->npath; k++)
        c->path[k] = h[k].h;
    free(h);
    if (n) { /* the last process's table is the whole one */
        c->prop = parts[n - 1].props.v, c->nprop = parts[n - 1].props.n;
        free(parts[n - 1].props.slot);
        memset(&parts[n - 1].props, 0, sizeof parts[n - 1].props);
    }
    rc_causes_sort(c);
    return 0;
}

int rc_dist_finish(st_an_result_t *res, rc_dist_part_t *parts, int n, st_rc_causes_t *causes)
{
    if (causes)
        memset(causes, 0, sizeof *causes);
    uint32_t nl = 0;
    for (int i = 0; i < n; i++) {
        if (parts[i].ncnodes != res->ncnodes || (parts[i].nlocs && !parts[i].T))
            return -1;
        nl += parts[i].nlocs;
    }
    if (nl != res->nlocs)
        return -1;
    tsrc_t s = { malloc((nl ? nl : 1) * sizeof *s.T), res->ncnodes };
    if (!s.T)
        return -1;
    for (int i = 0, l = 0; i < n; i++)
        for (uint32_t k = 0; k < parts[i].nlocs; k++)
            s.T[l++] = parts[i].T + (size_t)k * res->ncnodes;
    int rc = rc_derive(res, part_T, &s);
    free(s.T);
    if (!rc && causes && collect_causes(parts, n, causes)) {
        st_rc_causes_free(causes);
        rc = -1;
    }
    for (int i = 0; i < n; i++)
        rc_dist_part_free(&parts[i]);
    return rc;
}
