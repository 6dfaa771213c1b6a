/*
 * graph.c — joins endpoints into instances and indexes them per location (graph.h).
 *
 * Endpoints are sorted by (key, role, order, loc, ev); a run of equal keys is one
 * instance, its sends first. Each location then gets its "ports" (the instances its
 * events take part in) sorted by event, receives before sends, which is the order the
 * forward pass consumes them in.
 */
#include "relations.h"

#include <stdlib.h>
#include <string.h>

#include "../util/msort.h"

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static inline int cmp_ep(const st_rel_endpoint_t *x, const st_rel_endpoint_t *y) { return st_rel_endpoint_cmp(x, y); }

static int cmp_ep_void(const void *a, const void *b) { return cmp_ep(a, b); }
ST_MSORT(sort_endpoints, st_rel_endpoint_t, cmp_ep)

static int same_key(const st_rel_endpoint_t *a, const st_rel_endpoint_t *b)
{
    return !memcmp(a->key, b->key, sizeof a->key);
}

static inline int cmp_port(const st_rel_port_t *x, const st_rel_port_t *y)
{
    int r;
    if ((r = cmp_u64(x->ev, y->ev)) || (r = cmp_u64(y->role, x->role)) || (r = cmp_u64(x->inst, y->inst)))
        return r;
    return cmp_u64(x->slot, y->slot);
}

static int cmp_port_void(const void *a, const void *b) { return cmp_port(a, b); }
ST_MSORT(sort_ports, st_rel_port_t, cmp_port)

void st_rel_graph_free(st_rel_graph_t *g)
{
    st_mem_free(g->inst);
    st_mem_free(g->refs);
    st_mem_free(g->port_first);
    st_mem_free(g->ports);
    st_mem_free(g->ref_time);
    memset(g, 0, sizeof *g);
}

/* Appends the instance ep[0..n) (equal keys, sorted) unless it is incomplete. The instance
 * may be written over ep[0] (ST_REL_JOIN_TAKE): it is built after ep is read, and stored
 * with memcpy, so that no compiler moves the store before those reads. -1: too many ends. */
static int add_instance(st_rel_graph_t *g, const st_rel_endpoint_t *ep, size_t n, unsigned flags)
{
    if (n > ST_REL_MAX_SLOTS)
        return -1;
    uint32_t ns = 0, nr = 0;
    uint8_t mask = 0;
    for (size_t i = 0; i < n; i++) {
        ns += ep[i].role == ST_REL_SEND;
        nr += ep[i].role == ST_REL_RECV;
        mask |= ep[i].mumask;
    }
    if ((!ns || !nr) && ep[0].kind == ST_REL_P2P) {
        g->ds.unmatched_send += !nr;
        g->ds.unmatched_recv += !ns;
    }
    if ((!ns || !nr) && !(flags & ST_REL_JOIN_PARTIAL))
        return 0;
    st_rel_inst_t in = { .first = (uint32_t)g->nrefs, .nsend = ns, .nrecv = nr, .kind = ep[0].kind,
                         .shape = ep[0].shape, .mumask = mask };
    memcpy(in.key, ep[0].key, sizeof in.key);
    for (size_t i = 0; i < n; i++)
        if (ep[i].role == ST_REL_SEND || ep[i].role == ST_REL_RECV) {
            if (g->ref_time)
                g->ref_time[g->nrefs] = ep[i].time;
            g->refs[g->nrefs++] = ep[i].ref;
        }
    memcpy(&g->inst[g->ninst++], &in, sizeof in);
    return 0;
}

/* Puts the ports of each bucket of events (place_ports) in cmp_port order (by event, receives
 * first): insertion sort, as a bucket holds few ports and the buckets are in order. */
static void order_events(st_rel_port_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        st_rel_port_t x = p[i];
        size_t j = i;
        for (; j > 0 && cmp_port(&x, &p[j - 1]) < 0; j--)
            p[j] = p[j - 1];
        p[j] = x;
    }
}

/* The port of slot s of instance k. */
static st_rel_port_t port_of(const st_rel_graph_t *g, uint64_t k, uint32_t s)
{
    const st_rel_inst_t *in = &g->inst[k];
    return (st_rel_port_t){ .ev = g->refs[in->first + s].ev, .inst = (uint32_t)k, .slot = s,
                            .role = s < in->nsend ? ST_REL_SEND : ST_REL_RECV };
}

/* Events per bucket of place_ports' counting sort, log2: one counter per 8 events (at 10^6
 * events 0.5 MB, which stays in the cache, and a prefix sum 8 times shorter than one per
 * event); order_events then sorts inside the buckets. */
#define BUCKET_SHIFT 3

static uint64_t buckets_of(uint64_t max_ev) { return (max_ev >> BUCKET_SHIFT) + 1; }

/*
 * The ports by a counting sort on (location, event bucket): pos[base[l] + b] is where the next
 * port of bucket b of location l goes, so every port is written once, to its bucket, in
 * instance order, without a second buffer. pos: span entries, base from locs' max events.
 */
static void place_ports(st_rel_graph_t *g, const uint64_t *max_ev, uint64_t *base, uint32_t *pos)
{
    uint64_t at = 0;
    for (uint32_t l = 0; l < g->nlocs; l++) {
        base[l] = at;
        at += g->port_first[l + 1] > g->port_first[l] ? buckets_of(max_ev[l]) : 0;
    }
    for (uint64_t r = 0; r < g->nrefs; r++)
        pos[base[g->refs[r].loc] + (g->refs[r].ev >> BUCKET_SHIFT)]++;
    for (uint32_t l = 0; l < g->nlocs; l++) {
        if (g->port_first[l + 1] == g->port_first[l])
            continue;
        uint32_t next = (uint32_t)g->port_first[l];
        for (uint64_t b = 0; b < buckets_of(max_ev[l]); b++) {
            uint32_t c = pos[base[l] + b];
            pos[base[l] + b] = next;
            next += c;
        }
    }
    for (uint64_t k = 0; k < g->ninst; k++)
        for (uint32_t s = 0; s < g->inst[k].nsend + g->inst[k].nrecv; s++) {
            const st_rel_ref_t *x = &g->refs[g->inst[k].first + s];
            g->ports[pos[base[x->loc] + (x->ev >> BUCKET_SHIFT)]++] = port_of(g, k, s);
        }
}

/* The ports listed per location in instance order, then merge-sorted (fill: nlocs + 1 entries). */
static void sort_listed_ports(st_rel_graph_t *g, uint64_t *fill)
{
    memcpy(fill, g->port_first, sizeof(uint64_t) * ((size_t)g->nlocs + 1));
    for (uint64_t k = 0; k < g->ninst; k++)
        for (uint32_t s = 0; s < g->inst[k].nsend + g->inst[k].nrecv; s++)
            g->ports[fill[g->refs[g->inst[k].first + s].loc]++] = port_of(g, k, s);
    for (uint32_t l = 0; l < g->nlocs; l++)
        sort_ports(g->ports + g->port_first[l], g->port_first[l + 1] - g->port_first[l]);
}

/* Builds port_first / ports from the instances: placed by a counting sort where the events
 * are not far more than the ports (and positions fit 32 bits), else listed and sorted. */
static int index_ports(st_rel_graph_t *g)
{
    g->port_first = st_mem_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    g->ports = st_mem_malloc(sizeof(st_rel_port_t) * (g->nrefs ? g->nrefs : 1));
    uint64_t *fill = st_mem_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    uint64_t *max_ev = st_mem_calloc((size_t)g->nlocs + 1, sizeof(uint64_t));
    if (!g->port_first || !g->ports || !fill || !max_ev) {
        st_mem_free(fill), st_mem_free(max_ev);
        return -1;
    }
    for (uint64_t r = 0; r < g->nrefs; r++) {
        const st_rel_ref_t *x = &g->refs[r];
        g->port_first[x->loc + 1]++;
        if (x->ev > max_ev[x->loc])
            max_ev[x->loc] = x->ev;
    }
    uint64_t span = 0;
    for (uint32_t l = 0; l < g->nlocs; l++) {
        span += g->port_first[l + 1] ? buckets_of(max_ev[l]) : 0;
        g->port_first[l + 1] += g->port_first[l];
    }
    uint32_t *pos = span / 8 < g->nrefs && g->nrefs < UINT32_MAX ? st_mem_calloc(span + 1, sizeof *pos) : NULL;
    if (pos) {
        place_ports(g, max_ev, fill, pos);
        for (uint32_t l = 0; l < g->nlocs; l++)
            order_events(g->ports + g->port_first[l], g->port_first[l + 1] - g->port_first[l]);
    } else {
        sort_listed_ports(g, fill);
    }
    st_mem_free(pos), st_mem_free(fill), st_mem_free(max_ev);
    return 0;
}

/* Endpoints read from a source at a time: 64 KB, which stay in the cache. */
#define SRC_PART 1024

/* Sizes the arrays of a graph that holds one part's instances (st_rel_graph_parts) for n ends. */
static int part_arrays(st_rel_graph_t *g, size_t n)
{
    st_rel_inst_t *in = st_mem_realloc(g->inst, sizeof *g->inst * n);
    g->inst = in ? in : g->inst;
    st_rel_ref_t *rf = in ? st_mem_realloc(g->refs, sizeof *g->refs * n) : NULL;
    g->refs = rf ? rf : g->refs;
    uint64_t *t = rf ? st_mem_realloc(g->ref_time, sizeof *g->ref_time * n) : NULL;
    g->ref_time = t ? t : g->ref_time;
    return t ? 0 : -1;
}

/* The instances of more's endpoints after those made so far (g has room for them): read in
 * parts, an instance whose ends go on in the next part carried to the front of the buffer.
 * prev: the last endpoint before them, NULL none; room: how many refs g has room for. With each,
 * g holds only one part's instances at a time (its arrays sized here), handed to each(ctx, g) and
 * then dropped. 0, or -1 (memory; an endpoint out of order or one more than more->n said; each's -1). */
static int join_more(st_rel_graph_t *g, st_rel_epsrc_t *more, const st_rel_endpoint_t *prev, uint32_t nlocs,
                     size_t room, unsigned flags, int (*each)(void *ctx, const st_rel_graph_t *g), void *ctx)
{
    size_t cap = SRC_PART, carry = 0;
    st_rel_endpoint_t *buf = st_mem_malloc(sizeof *buf * cap), last = prev ? *prev : (st_rel_endpoint_t){ 0 };
    int have_last = prev != NULL;
    if (!buf || (each && part_arrays(g, cap)))
        goto fail;
    for (;;) {
        if (carry == cap) { /* one instance fills the buffer */
            st_rel_endpoint_t *b = st_mem_realloc(buf, sizeof *buf * cap * 2);
            if (!b)
                break;
            buf = b, cap *= 2;
            if (each && part_arrays(g, cap))
                break;
        }
        size_t got = st_rel_epsrc_read(more, buf + carry, cap - carry), m = carry;
        for (size_t i = carry; i < carry + got; i++) {
            if (buf[i].ref.loc >= nlocs)
                continue;
            if ((m ? cmp_ep(&buf[m - 1], &buf[i]) : have_last ? cmp_ep(&last, &buf[i]) : -1) > 0)
                goto fail;
            if (m != i) /* (64 bytes: none is copied where none was dropped) */
                buf[m] = buf[i];
            m++;
        }
        if (m) /* the order of the next part is checked against it */
            last = buf[m - 1], have_last = 1;
        size_t i = 0;
        for (size_t j; i < m; i = j) {
            for (j = i + 1; j < m && same_key(&buf[i], &buf[j]); j++)
                ;
            if (j == m && got) /* may go on in the next part */
                break;
            if ((!each && j - i > room - g->nrefs) || add_instance(g, buf + i, j - i, flags))
                goto fail;
        }
        if (each && g->ninst && each(ctx, g))
            goto fail;
        if (each)
            g->ninst = g->nrefs = 0;
        memmove(buf, buf + i, sizeof *buf * (m - i));
        carry = m - i;
        if (!got) {
            st_mem_free(buf);
            return 0;
        }
    }
fail:
    st_mem_free(buf);
    return -1;
}

int st_rel_graph_parts(st_rel_epsrc_t *src, uint32_t nlocs, unsigned flags,
                       int (*each)(void *ctx, const st_rel_graph_t *g), void *ctx)
{
    st_rel_graph_t g = { .nlocs = nlocs };
    int rc = join_more(&g, src, NULL, nlocs, 0, flags | ST_REL_JOIN_TIMES, each, ctx);
    st_rel_graph_free(&g);
    return rc;
}

int st_rel_graph_join_src(st_rel_endpoint_t *ep, size_t n, st_rel_epsrc_t *more, uint32_t nlocs, unsigned flags,
                          st_rel_graph_t *g)
{
    st_rel_depstats_t ds = g->ds;
    memset(g, 0, sizeof *g);
    g->ds = ds;
    g->nlocs = nlocs;
    /* Drops endpoints of unknown locations and sees in the same pass whether the rest is in
     * order already (st_rel_endpoints' output normally is): the array is far larger than the
     * caches, so a pass of its own costs a memory sweep. */
    size_t m = 0, disorder = 0, nmore = more ? more->n : 0;
    int take = (flags & ST_REL_JOIN_TAKE) != 0;
    for (size_t i = 0; i < n; i++)
        if (ep[i].ref.loc < nlocs) {
            if (m != i)
                ep[m] = ep[i];
            disorder += m > 0 && cmp_ep(&ep[m - 1], &ep[m]) > 0;
            m++;
        }
    if (m > ST_REL_MAX_REFS || nmore > ST_REL_MAX_REFS - m)
        goto fail;
    if (disorder)
        sort_endpoints(ep, m);
    st_rel_endpoint_t last = m ? ep[m - 1] : (st_rel_endpoint_t){ 0 }; /* ep's place is the instances' */
    _Static_assert(sizeof(st_rel_inst_t) <= sizeof(st_rel_endpoint_t), "an instance fits an endpoint's place");
    size_t most = m + nmore ? m + nmore : 1; /* refs (and instances) at most */
    g->inst = take && ep ? (st_rel_inst_t *)(void *)ep : st_mem_malloc(sizeof(st_rel_inst_t) * most);
    g->refs = st_mem_malloc(sizeof(st_rel_ref_t) * most);
    if (flags & ST_REL_JOIN_TIMES)
        g->ref_time = st_mem_malloc(sizeof *g->ref_time * most);
    if (!g->inst || !g->refs || (!g->ref_time && (flags & ST_REL_JOIN_TIMES)))
        goto fail;
    for (size_t i = 0, j; i < m; i = j) { /* instance g->ninst <= i: written where ep is read */
        for (j = i + 1; j < m && same_key(&ep[i], &ep[j]); j++)
            ;
        if (add_instance(g, ep + i, j - i, flags))
            goto fail;
    }
    if (more && join_more(g, more, m ? &last : NULL, nlocs, m + nmore, flags, NULL, NULL))
        goto fail;
    /* The block's tail (instances are smaller than endpoints, and fewer) goes back to the
     * allocator before the ports are made. */
    st_rel_inst_t *fit = st_mem_realloc(g->inst, sizeof *g->inst * (g->ninst ? g->ninst : 1));
    g->inst = fit ? fit : g->inst;
    if (index_ports(g) == 0)
        return 0;
fail:
    if (take && !g->inst)
        st_mem_free(ep);
    st_rel_graph_free(g);
    g->ds = ds;
    return -1;
}

int st_rel_graph_join(st_rel_endpoint_t *ep, size_t n, uint32_t nlocs, unsigned flags, st_rel_graph_t *g)
{
    return st_rel_graph_join_src(ep, n, NULL, nlocs, flags, g);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* One rank's graph: its OpenMP endpoints go from the derivation to the join without an array of their own, and the
 * instances are built where the others were (at the end of a run every new page is a fault; at MPI_Finalize the CLC
 * engine joins so too). The same graph as st_rel_graph_join of st_rel_endpoints'. */
static int build_one_rank(const st_rel_input_t *in, int32_t rank, st_rel_depstats_t *ds, st_rel_graph_t *g)
{
    st_rel_epvec_t ep = { 0 };
    st_rel_epsrc_t omp = { 0 };
    int rc = st_rel_endpoints_split(in, rank, NULL, &ep, ds, &omp, NULL);
    size_t room = ep.n + st_rel_inst_room(omp.n) + 1; /* ST_REL_JOIN_TAKE: the instances of omp's ends after ep's */
    st_rel_endpoint_t *fit = rc ? NULL : st_mem_realloc(ep.v, sizeof *fit * room);
    if (fit)
        ep.v = fit, ep.cap = room;
    g->ds = *ds;
    if (fit)
        rc = st_rel_graph_join_src(ep.v, ep.n, &omp, in->nlocs, ST_REL_JOIN_TAKE, g);
    else
        st_rel_epvec_free(&ep), rc = -1;
    st_rel_epsrc_free(&omp);
    return rc;
}

int st_rel_graph_build(const st_rel_input_t *in, st_rel_graph_t *g)
{
    st_rel_epvec_t ep = { 0 };
    st_rel_depstats_t ds = { 0 };
    memset(g, 0, sizeof *g);
    uint32_t one = in->nlocs > 0;
    for (uint32_t l = 1; one && l < in->nlocs; l++)
        one = in->locs[l].rank == in->locs[0].rank;
    if (one)
        return build_one_rank(in, in->locs[0].rank, &ds, g);
    /* Every rank that owns a location, each once (its locations need not be adjacent). */
    int32_t *ranks = st_mem_malloc(sizeof(int32_t) * (in->nlocs ? in->nlocs : 1));
    if (!ranks)
        return -1;
    for (uint32_t l = 0; l < in->nlocs; l++)
        ranks[l] = in->locs[l].rank;
    if (in->nlocs > 1)
        qsort(ranks, in->nlocs, sizeof(int32_t), cmp_i32);
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < in->nlocs; i++)
        if (i == 0 || ranks[i] != ranks[i - 1])
            rc = st_rel_endpoints(in, ranks[i], NULL, &ep, &ds);
    st_mem_free(ranks);
    g->ds = ds;
    if (rc == 0)
        rc = st_rel_graph_join(ep.v, ep.n, in->nlocs, 0, g);
    st_rel_epvec_free(&ep);
    return rc;
}
