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

/* Sorts a location's ports (listed in instance order) by event: a counting sort on ev
 * (stable, so equal events stay in instance order), then the few ports of one event are
 * put in cmp_port order (receives first). cnt: scratch of at least max ev + 2 entries. */
static void sort_loc_ports(st_clc_port_t *p, size_t n, uint64_t max_ev, uint32_t *cnt, st_clc_port_t *out)
{
    memset(cnt, 0, sizeof *cnt * (size_t)(max_ev + 2));
    for (size_t i = 0; i < n; i++)
        cnt[p[i].ev + 1]++;
    for (uint64_t e = 0; e <= max_ev; e++)
        cnt[e + 1] += cnt[e];
    for (size_t i = 0; i < n; i++)
        out[cnt[p[i].ev]++] = p[i];
    for (size_t i = 1; i < n; i++) { /* insertion sort: runs of equal ev are short */
        st_clc_port_t x = out[i];
        size_t j = i;
        for (; j > 0 && cmp_port(&x, &out[j - 1]) < 0; j--)
            out[j] = out[j - 1];
        out[j] = x;
    }
    memcpy(p, out, n * sizeof *p);
}

/* Builds port_first / ports from the instances. scratch (may be NULL): scratch_bytes the
 * counting sort may use for its buffers instead of allocating them. */
static int index_ports(st_clc_graph_t *g, void *scratch, size_t scratch_bytes)
{
    g->port_first = st_clc_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    g->ports = st_clc_malloc(sizeof(st_clc_port_t) * (g->nrefs ? g->nrefs : 1));
    uint64_t *fill = st_clc_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    uint64_t *max_ev = st_clc_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    if (!g->port_first || !g->ports || !fill || !max_ev) {
        st_clc_free(fill), st_clc_free(max_ev);
        return -1;
    }
    uint64_t top = 0, most = 0;
    for (uint64_t r = 0; r < g->nrefs; r++) {
        const st_clc_ref_t *x = &g->refs[r];
        g->port_first[x->loc + 1]++;
        if (x->ev > max_ev[x->loc])
            max_ev[x->loc] = x->ev;
    }
    for (uint32_t l = 0; l < g->nlocs; l++) {
        g->port_first[l + 1] += g->port_first[l];
        uint64_t np = g->port_first[l + 1] - g->port_first[l];
        if (np && max_ev[l] > top)
            top = max_ev[l];
        if (np > most)
            most = np;
    }
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
    /* Counting sort where the events are not far more than the ports, else merge sort. */
    int counting = most && top / 8 < most && top < UINT32_MAX;
    size_t out_bytes = sizeof(st_clc_port_t) * most, cnt_bytes = sizeof(uint32_t) * (size_t)(top + 2);
    int in_scratch = counting && scratch && out_bytes + cnt_bytes <= scratch_bytes;
    st_clc_port_t *out = in_scratch ? scratch : counting ? st_clc_malloc(out_bytes) : NULL;
    uint32_t *cnt = in_scratch ? (uint32_t *)((char *)scratch + out_bytes) : out ? st_clc_malloc(cnt_bytes) : NULL;
    for (uint32_t l = 0; l < g->nlocs; l++) {
        st_clc_port_t *p = g->ports + g->port_first[l];
        size_t n = g->port_first[l + 1] - g->port_first[l];
        if (cnt && out && max_ev[l] / 8 < n)
            sort_loc_ports(p, n, max_ev[l], cnt, out);
        else
            sort_ports(p, n);
    }
    if (!in_scratch)
        st_clc_free(cnt), st_clc_free(out);
    st_clc_free(max_ev);
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
    /* The endpoints are in refs now: with ST_CLC_JOIN_SCRATCH their memory is free. */
    int scratch = (flags & ST_CLC_JOIN_SCRATCH) != 0;
    if (index_ports(g, scratch ? ep : NULL, scratch ? n * sizeof *ep : 0) == 0)
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
