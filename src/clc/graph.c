/*
 * graph.c — joins endpoints into instances and indexes them per location (deps.h).
 *
 * Endpoints are sorted by (key, role, order, loc, ev); a run of equal keys is one
 * instance, its sends first. Each location then gets its "ports" (the instances its
 * events take part in) sorted by event, receives before sends, which is the order the
 * forward pass consumes them in.
 */
#include "deps.h"

#include <stdlib.h>
#include <string.h>

#include "msort.h"

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static inline int cmp_ep(const st_clc_endpoint_t *x, const st_clc_endpoint_t *y)
{
    int r;
    for (int i = 0; i < 4; i++)
        if ((r = cmp_u64(x->key[i], y->key[i])))
            return r;
    if ((r = cmp_u64(x->role, y->role)) || (r = cmp_u64(x->ref.order, y->ref.order)) ||
        (r = cmp_u64(x->ref.loc, y->ref.loc)))
        return r;
    return cmp_u64(x->ref.ev, y->ref.ev);
}

static int cmp_ep_void(const void *a, const void *b) { return cmp_ep(a, b); }
ST_CLC_MSORT(sort_endpoints, st_clc_endpoint_t, cmp_ep)

static int same_key(const st_clc_endpoint_t *a, const st_clc_endpoint_t *b)
{
    return !memcmp(a->key, b->key, sizeof a->key);
}

static inline int cmp_port(const st_clc_port_t *x, const st_clc_port_t *y)
{
    int r;
    if ((r = cmp_u64(x->ev, y->ev)) || (r = cmp_u64(y->role, x->role)) || (r = cmp_u64(x->inst, y->inst)))
        return r;
    return cmp_u64(x->slot, y->slot);
}

static int cmp_port_void(const void *a, const void *b) { return cmp_port(a, b); }
ST_CLC_MSORT(sort_ports, st_clc_port_t, cmp_port)

void st_clc_graph_free(st_clc_graph_t *g)
{
    st_clc_free(g->inst);
    st_clc_free(g->refs);
    st_clc_free(g->port_first);
    st_clc_free(g->ports);
    memset(g, 0, sizeof *g);
}

/* Appends the instance ep[0..n) (equal keys, sorted) unless it is incomplete. */
static void add_instance(st_clc_graph_t *g, const st_clc_endpoint_t *ep, size_t n, unsigned flags)
{
    uint32_t ns = 0, nr = 0;
    uint8_t mask = 0;
    for (size_t i = 0; i < n; i++) {
        ns += ep[i].role == ST_CLC_SEND;
        nr += ep[i].role == ST_CLC_RECV;
        mask |= ep[i].mumask;
    }
    if ((!ns || !nr) && ep[0].kind == ST_CLC_P2P) {
        g->ds.unmatched_send += !nr;
        g->ds.unmatched_recv += !ns;
    }
    if ((!ns || !nr) && !(flags & ST_CLC_JOIN_PARTIAL))
        return;
    st_clc_inst_t *in = &g->inst[g->ninst++];
    *in = (st_clc_inst_t){ .first = g->nrefs, .nsend = ns, .nrecv = nr, .kind = ep[0].kind, .shape = ep[0].shape,
                           .mumask = mask };
    memcpy(in->key, ep[0].key, sizeof in->key);
    for (size_t i = 0; i < n; i++)
        if (ep[i].role == ST_CLC_SEND || ep[i].role == ST_CLC_RECV)
            g->refs[g->nrefs++] = ep[i].ref;
}

/* Builds port_first / ports from the instances. */
static int index_ports(st_clc_graph_t *g)
{
    g->port_first = st_clc_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    g->ports = st_clc_malloc(sizeof(st_clc_port_t) * (g->nrefs ? g->nrefs : 1));
    uint64_t *fill = st_clc_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    if (!g->port_first || !g->ports || !fill) {
        st_clc_free(fill);
        return -1;
    }
    for (uint64_t r = 0; r < g->nrefs; r++)
        g->port_first[g->refs[r].loc + 1]++;
    for (uint32_t l = 0; l < g->nlocs; l++)
        g->port_first[l + 1] += g->port_first[l];
    memcpy(fill, g->port_first, sizeof(uint64_t) * ((size_t)g->nlocs + 1));
    for (uint64_t k = 0; k < g->ninst; k++) {
        const st_clc_inst_t *in = &g->inst[k];
        for (uint32_t s = 0; s < in->nsend + in->nrecv; s++) {
            const st_clc_ref_t *r = &g->refs[in->first + s];
            g->ports[fill[r->loc]++] = (st_clc_port_t){ .ev = r->ev, .inst = k, .slot = s,
                                                        .role = s < in->nsend ? ST_CLC_SEND : ST_CLC_RECV };
        }
    }
    st_clc_free(fill);
    for (uint32_t l = 0; l < g->nlocs; l++)
        sort_ports(g->ports + g->port_first[l], g->port_first[l + 1] - g->port_first[l]);
    return 0;
}

int st_clc_graph_join(st_clc_endpoint_t *ep, size_t n, uint32_t nlocs, unsigned flags, st_clc_graph_t *g)
{
    st_clc_depstats_t ds = g->ds;
    memset(g, 0, sizeof *g);
    g->ds = ds;
    g->nlocs = nlocs;
    size_t m = 0; /* drop endpoints of unknown locations */
    for (size_t i = 0; i < n; i++)
        if (ep[i].ref.loc < nlocs)
            ep[m++] = ep[i];
    sort_endpoints(ep, m);
    g->inst = st_clc_malloc(sizeof(st_clc_inst_t) * (m ? m : 1));
    g->refs = st_clc_malloc(sizeof(st_clc_ref_t) * (m ? m : 1));
    if (!g->inst || !g->refs)
        goto fail;
    for (size_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && same_key(&ep[i], &ep[j]); j++)
            ;
        add_instance(g, ep + i, j - i, flags);
    }
    if (index_ports(g) == 0)
        return 0;
fail:
    st_clc_graph_free(g);
    g->ds = ds;
    return -1;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

int st_clc_graph_build(const st_clc_input_t *in, st_clc_graph_t *g)
{
    st_clc_epvec_t ep = { 0 };
    st_clc_depstats_t ds = { 0 };
    memset(g, 0, sizeof *g);
    /* Every rank that owns a location, each once (its locations need not be adjacent). */
    int32_t *ranks = st_clc_malloc(sizeof(int32_t) * (in->nlocs ? in->nlocs : 1));
    if (!ranks)
        return -1;
    for (uint32_t l = 0; l < in->nlocs; l++)
        ranks[l] = in->locs[l].rank;
    if (in->nlocs > 1)
        qsort(ranks, in->nlocs, sizeof(int32_t), cmp_i32);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < in->nlocs; i++)
        if (i == 0 || ranks[i] != ranks[i - 1])
            rc = st_clc_endpoints(in, ranks[i], &ep, &ds);
    st_clc_free(ranks);
    g->ds = ds;
    if (rc == 0)
        rc = st_clc_graph_join(ep.v, ep.n, in->nlocs, 0, g);
    st_clc_epvec_free(&ep);
    return rc;
}
