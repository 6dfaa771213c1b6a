/*
 * deps.c — logical messages from recorded events (ALGORITHMS.md §8, table "Logical
 * messages"), per process, and their join into the dependency graph (see deps.h).
 *
 * Which event is the logical send / receive:
 *  - point-to-point: MPI_SEND / MPI_ISEND (recorded at the start / post) send;
 *    MPI_RECV / MPI_IRECV (recorded at completion) receive. Channel = (sender, receiver,
 *    comm key, tag); sends are numbered in time order, receives in post order, which is
 *    the order of their ids (one process-wide counter, src/mpi/p2p.c). Sends whose
 *    request completed as cancelled carry no message.
 *  - blocking collectives: the COLL_BEGIN (recorded just after the ENTER, before the
 *    PMPI call) is the send, the COLL_END (before the LEAVE) the receive: the inner
 *    pair, so a constraint on them also holds for the ENTER and LEAVE around them.
 *  - nonblocking collectives: the ICOLL_REQUEST (recorded at the start of the I-call,
 *    before PMPI) is the send, the ICOLL_COMPLETE the receive.
 *  - MPI_Init / MPI_Finalize (in->sync): ENTER send, LEAVE receive, N-to-N over world.
 *  - OpenMP: fork -> team begins; team ends -> join; barrier ENTERs -> barrier LEAVEs of
 *    the same barrier (k-th barrier of the team on every thread); lock release ->
 *    next acquisition (by acquisition order); task create -> first switch to the task;
 *    switch away from a task -> next switch to it; child completion -> exit of the
 *    parent's next taskwait.
 * A rank's events are read in one pass (scan_event): traces are far larger than the
 * caches, so each pass is a sweep over memory. What needs all of them (p2p numbering,
 * cancelled requests, nonblocking requests started on another thread, locks, tasks) is
 * collected in it and finished afterwards.
 */
#include "relations.h"

#include <stdlib.h>
#include <string.h>

#include "../util/msort.h"

/* Fixed region ids (the first entries of the region enum, region.h), without needing
 * the generated MPI region list. */
enum clc_region {
#define ST_REGION(id, name, role, paradigm) CLC_REGION_##id,
#include "../model/regions.def"
#undef ST_REGION
};

#define NO_EV UINT64_MAX

/* ---- small helpers ------------------------------------------------------------------------ */

int st_mem_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = st_mem_realloc(*v, n * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

#define PUSH(vec, item) \
    (st_mem_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? -1 : ((vec).v[(vec).n++] = (item), 0))

int st_rel_epvec_push(st_rel_epvec_t *v, const st_rel_endpoint_t *ep)
{
    return PUSH(*v, *ep);
}

void st_rel_epvec_free(st_rel_epvec_t *v)
{
    st_mem_free(v->v);
    memset(v, 0, sizeof *v);
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* qsort / bsearch that accept empty (NULL) arrays. */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

static void *find(const void *key, const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    return n ? bsearch(key, v, n, size, cmp) : NULL;
}

static int32_t node_of(const st_rel_input_t *in, int32_t rank)
{
    return in->procs && rank >= 0 && rank < in->nranks ? in->procs[rank].node : rank;
}

/* mu class of a pair of world ranks. */
static uint8_t pair_mask(const st_rel_input_t *in, int32_t a, int32_t b)
{
    if (a == b)
        return ST_REL_MU_PROC;
    return node_of(in, a) == node_of(in, b) ? ST_REL_MU_INTRA : ST_REL_MU_INTER;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted node ids of a set of ranks (for mu classes of collectives). */
typedef struct nodeset {
    int32_t *node;
    uint32_t n;
    int      done;
} nodeset_t;

static int nodeset_fill(const st_rel_input_t *in, nodeset_t *ns, const int32_t *a, uint32_t na, const int32_t *b,
                        uint32_t nb)
{
    ns->node = st_mem_malloc(sizeof(int32_t) * (na + nb + 1));
    if (!ns->node)
        return -1;
    for (uint32_t i = 0; i < na; i++)
        ns->node[ns->n++] = node_of(in, a[i]);
    for (uint32_t i = 0; b && i < nb; i++)
        ns->node[ns->n++] = node_of(in, b[i]);
    sort(ns->node, ns->n, sizeof(int32_t), cmp_i32);
    ns->done = 1;
    return 0;
}

/* mu classes of all distinct pairs of members. */
static uint8_t nodeset_mask_all(const nodeset_t *ns)
{
    uint8_t m = 0;
    for (uint32_t i = 1; i < ns->n; i++)
        if (ns->node[i] == ns->node[i - 1])
            m |= ST_REL_MU_INTRA;
    if (ns->n > 1 && ns->node[0] != ns->node[ns->n - 1])
        m |= ST_REL_MU_INTER;
    return m;
}

/* First index in the sorted set whose node is > v (upper != 0) or >= v (upper == 0). */
static uint32_t nodeset_bound(const nodeset_t *ns, int32_t v, int upper)
{
    uint32_t lo = 0, hi = ns->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ns->node[mid] < v || (upper && ns->node[mid] == v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* mu classes of the pairs (root, other member). */
static uint8_t nodeset_mask_rooted(const nodeset_t *ns, int32_t root_node)
{
    uint32_t same = nodeset_bound(ns, root_node, 1) - nodeset_bound(ns, root_node, 0);
    return (uint8_t)((same >= 2 ? ST_REL_MU_INTRA : 0) | (same < ns->n ? ST_REL_MU_INTER : 0));
}

/* An OpenMP endpoint while it waits in its key type's side vector: the key's type and rank,
 * kind, shape, mu class and order are the same for all of a rank's OpenMP endpoints, so 40
 * bytes instead of 64 (a hybrid trace has hundreds of thousands, and the side vectors and the
 * output they are merged into are the derivation's largest blocks at the same time). */
typedef struct omp_end {
    uint64_t k2, k3, ev, time;
    uint32_t loc;
    uint8_t  role;
} omp_end_t;

typedef struct { omp_end_t *v; size_t n, cap; } omp_endvec_t;

/* name(x, y): the join's order of two OpenMP ends of one rank and key type (st_rel_endpoint_cmp of
 * their endpoints), for omp_end_t and for the left-out ends (st_rel_self_end_t), whose reading back
 * (st_rel_derived_read) merges them into the join's order: one definition for both. */
#define OMP_END_CMP(name, T)                                                                           \
    static inline int name(const T *x, const T *y)                                                     \
    {                                                                                                  \
        int r;                                                                                         \
        if ((r = cmp_u64(x->k2, y->k2)) || (r = cmp_u64(x->k3, y->k3)) ||                              \
            (r = cmp_u64(x->role, y->role)) || (r = cmp_u64(x->loc, y->loc)))                          \
            return r;                                                                                  \
        return cmp_u64(x->ev, y->ev);                                                                  \
    }

/* Per-rank derivation context. */
typedef struct ctx {
    const st_rel_input_t *in;
    int32_t               rank;
    const st_rel_proc_t  *proc;
    st_rel_epvec_t       *out;
    st_rel_depstats_t    *ds;
    nodeset_t            *comm_nodes; /* [proc->ncomms], filled lazily */
    nodeset_t             world_nodes;
    st_rel_epvec_t        side[ST_REL_KEY_TYPES]; /* by key type but point-to-point and OpenMP: appended to out
                                                     in type order at the end, so that out is mostly in key
                                                     order (cheap join sort) */
    omp_endvec_t          oside[ST_REL_KEY_TYPES]; /* the same for the OpenMP key types */
    struct omp_src       *omp_src; /* st_rel_endpoints_split: hands the OpenMP ends out instead of out */
    int                   p2p_apart; /* st_rel_endpoints_split with p2p: the point-to-point ends ... */
    struct p2p_src       *p2p_src;   /* ... are handed out by this instead of written to out */
} ctx_t;

/* Appends an endpoint of event (loc, ev), whose time is `time`, to its key type's side vector. */
static int emit(ctx_t *c, uint64_t k0, uint64_t k1, uint64_t k2, uint64_t k3, uint32_t loc, uint64_t ev,
                uint64_t time, uint8_t role, uint8_t kind, uint8_t shape, uint8_t mumask, uint32_t order)
{
    st_rel_endpoint_t ep = {
        .key = { k0, k1, k2, k3 },
        .ref = { .loc = loc, .order = order, .ev = ev },
        .time = time,
        .role = role, .kind = kind, .shape = shape, .mumask = mumask,
    };
    return st_rel_epvec_push(&c->side[k0 >> 56], &ep);
}

static uint64_t key0(unsigned type, uint64_t low) { return (uint64_t)type << 56 | (low & 0x00ffffffffffffffull); }

/* Definition of a process-local comm index, NULL (counted) if out of range. */
static const st_comm_def_t *comm_def(ctx_t *c, uint32_t comm)
{
    if (!c->proc->comms || comm >= c->proc->ncomms) {
        c->ds->bad_comm++;
        return NULL;
    }
    return &c->proc->comms[comm];
}

/* ---- point-to-point ------------------------------------------------------------------------ */

/* Channels (tag, sender << 32 | receiver, comm key) get small ids during the scan (an
 * open-addressing table: a rank talks over few channels), so that afterwards each item's
 * endpoint can be placed by its channel (p2p_emit: straight to its place when the channels'
 * items came in order, else after a counting sort by channel) instead of a comparison sort
 * of the whole list. */
typedef struct p2p_chan {
    uint64_t tag, pair, comm;
} p2p_chan_t;

typedef struct p2p_chans {
    p2p_chan_t *v;
    size_t      n, cap;
    uint32_t   *slot;    /* [nslot]: channel id + 1, 0 empty */
    size_t      nslot;   /* power of two, > 2 n */
    uint32_t    last[2]; /* channel id + 1 of the last send / receive, 0 none: most events repeat it */
} p2p_chans_t;

/* 32 bytes: a trace holds about one per four events, and at MPI_Finalize each new page is a
 * fault. A cancelled send's request id is read from its event (cancellations are rare). */
typedef struct p2p_item {
    uint64_t o1, o2;   /* order inside the channel: a send's time; a receive's post id and time */
    uint64_t ev;
    uint32_t chan, loc;
} p2p_item_t;

/* Order inside one channel; (loc, ev) makes it total. */
static inline int cmp_p2p(const p2p_item_t *x, const p2p_item_t *y)
{
    int r;
    if ((r = cmp_u64(x->o1, y->o1)) || (r = cmp_u64(x->o2, y->o2)) || (r = cmp_u64(x->loc, y->loc)))
        return r;
    return cmp_u64(x->ev, y->ev);
}

static int cmp_p2p_void(const void *a, const void *b) { return cmp_p2p(a, b); }
ST_MSORT(sort_p2p, p2p_item_t, cmp_p2p)

typedef struct { p2p_item_t *v; size_t n, cap; } p2pvec_t;
typedef struct { uint64_t *v; size_t n, cap; } u64vec_t;

static int cmp_u64p(const void *a, const void *b) { return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b); }

static int is_cancelled(const u64vec_t *cancelled, uint64_t id)
{
    return id && find(&id, cancelled->v, cancelled->n, sizeof(uint64_t), cmp_u64p) != NULL;
}

static size_t chan_hash(const p2p_chan_t *k, size_t mask)
{
    uint64_t h = (k->tag * 0x9e3779b97f4a7c15ull) ^ (k->pair * 0xc2b2ae3d27d4eb4full) ^ (k->comm * 0x165667b19e3779f9ull);
    return (size_t)(h ^ h >> 29) & mask;
}

static int chan_rehash(p2p_chans_t *t, size_t nslot)
{
    uint32_t *slot = st_mem_calloc(nslot, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t h = chan_hash(&t->v[i], nslot - 1);
        while (slot[h])
            h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)i + 1;
    }
    st_mem_free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

static int same_chan(const p2p_chan_t *a, const p2p_chan_t *b)
{
    return a->tag == b->tag && a->pair == b->pair && a->comm == b->comm;
}

/* The id of channel k (added if new); UINT32_MAX when out of memory. */
static uint32_t chan_id(p2p_chans_t *t, const p2p_chan_t *k)
{
    if (2 * (t->n + 1) > t->nslot && (t->n >= UINT32_MAX - 1 || chan_rehash(t, t->nslot ? 2 * t->nslot : 64)))
        return UINT32_MAX;
    size_t h = chan_hash(k, t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (t->nslot - 1)) {
        if (same_chan(&t->v[t->slot[h] - 1], k))
            return t->slot[h] - 1;
    }
    if (st_mem_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v))
        return UINT32_MAX;
    t->v[t->n] = *k;
    t->slot[h] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

/* A channel's key and id, sorted by key. */
typedef struct chan_rank {
    p2p_chan_t key;
    uint32_t   id;
} chan_rank_t;

static int cmp_chan_rank(const void *a, const void *b)
{
    const p2p_chan_t *x = &((const chan_rank_t *)a)->key, *y = &((const chan_rank_t *)b)->key;
    int r;
    if ((r = cmp_u64(x->tag, y->tag)) || (r = cmp_u64(x->pair, y->pair)))
        return r;
    return cmp_u64(x->comm, y->comm);
}

/* Groups items by channel (stable counting sort into out, channels in key order: rank_of)
 * and sorts each channel's slice; start[r] = first item of channel rank r, start[nch] = n. */
static void p2p_group(const p2p_chans_t *ch, const uint32_t *rank_of, const p2pvec_t *items, p2p_item_t *out,
                     uint64_t *start)
{
    memset(start, 0, sizeof *start * (ch->n + 1));
    for (size_t i = 0; i < items->n; i++)
        start[rank_of[items->v[i].chan] + 1]++;
    for (size_t i = 0; i < ch->n; i++)
        start[i + 1] += start[i];
    for (size_t i = 0; i < items->n; i++)
        out[start[rank_of[items->v[i].chan]]++] = items->v[i];
    for (size_t i = ch->n; i > 0; i--) /* start[] now holds ends: shift back to starts */
        start[i] = start[i - 1];
    start[0] = 0;
    for (uint32_t r = 0; r < ch->n; r++)
        sort_p2p(out + start[r], start[r + 1] - start[r]);
}

/* Groups items into a new array (NULL when out of memory) and frees the vector's, so that the
 * endpoints allocated next can reuse its pages. */
static p2p_item_t *p2p_grouped(const p2p_chans_t *ch, const uint32_t *rank_of, p2pvec_t *items, uint64_t *start)
{
    p2p_item_t *out = st_mem_malloc(sizeof *out * (items->n + 1));
    if (out)
        p2p_group(ch, rank_of, items, out, start);
    st_mem_free(items->v);
    items->v = NULL, items->cap = 0;
    return out;
}

static st_rel_endpoint_t *p2p_put(st_rel_endpoint_t *e, const p2p_chan_t *k, uint8_t mask, uint64_t n,
                                  const p2p_item_t *it, uint8_t role)
{
    *e = (st_rel_endpoint_t){
        .key = { key0(ST_REL_KEY_P2P, k->tag), k->pair, k->comm, n },
        .ref = { .loc = it->loc, .order = 0, .ev = it->ev },
        .time = role == ST_REL_SEND ? it->o1 : it->o2,
        .role = role, .kind = ST_REL_P2P, .shape = ST_REL_PRODUCT, .mumask = mask,
    };
    return e + 1;
}

/* Makes room in out for the point-to-point endpoints (np) and the other key types' (the
 * side vectors), in one step: growing it later would copy it. With omp_src, the OpenMP ends
 * stay out of it, but the join builds their instances in it (st_rel_inst_room). */
static int reserve_out(ctx_t *c, st_rel_epvec_t *out, size_t np)
{
    size_t total = out->n + np, nomp = 0;
    for (int t = 0; t < ST_REL_KEY_TYPES; t++)
        total += c->side[t].n, nomp += c->oside[t].n;
    total += c->omp_src ? st_rel_inst_room(nomp) : nomp;
    if (total <= out->cap)
        return 0;
    if (out->n == 0) { /* exactly this size */
        st_mem_free(out->v);
        out->v = NULL, out->cap = 0;
        if (!(out->v = st_mem_malloc(sizeof *out->v * (total ? total : 1))))
            return -1;
        out->cap = total ? total : 1;
        return 0;
    }
    return st_mem_grow((void **)&out->v, &out->cap, total, sizeof *out->v);
}

/* A channel in the direct emission: its items per role (0 send, 1 receive), its first endpoint
 * in out, the items of each role emitted so far, the index + 1 of its last item seen. */
typedef struct chan_fill {
    uint64_t n[2], first, k[2], last[2];
    uint8_t  mask;
} chan_fill_t;

/* Counts the items per channel and role; 0 when some channel's items are not in channel order. */
static int p2p_count_in_order(const p2pvec_t *items, int role, chan_fill_t *f)
{
    for (size_t i = 0; i < items->n; i++) {
        chan_fill_t *x = &f[items->v[i].chan];
        if (x->last[role] && cmp_p2p(&items->v[x->last[role] - 1], &items->v[i]) > 0)
            return 0;
        x->last[role] = i + 1;
        x->n[role]++;
    }
    return 1;
}

/* Writes each item straight to its endpoint's place: in a channel, send k follows k sends and
 * min(k, receives) receives, receive k follows min(k + 1, sends) sends and k receives. */
static void p2p_put_direct(const p2p_chans_t *ch, const p2pvec_t *items, int role, chan_fill_t *f,
                           st_rel_endpoint_t *e)
{
    for (size_t i = 0; i < items->n; i++) {
        const p2p_item_t *it = &items->v[i];
        chan_fill_t *x = &f[it->chan];
        uint64_t k = x->k[role]++, other = x->n[!role], before = role ? k + 1 : k;
        p2p_put(e + x->first + k + (before < other ? before : other), &ch->v[it->chan], x->mask, k, it,
                role ? ST_REL_RECV : ST_REL_SEND);
    }
}

/*
 * The common case without grouped copies: every channel's items came in channel order (a
 * channel used by one thread, sends in time order, receives completed in post order), so each
 * item's endpoint is written straight to its place in out. 1 done, 0 not in order (nothing
 * written), -1 out of memory.
 */
static int p2p_emit_direct(ctx_t *c, const p2p_chans_t *ch, const chan_rank_t *byrank, p2pvec_t *sends,
                           p2pvec_t *recvs, st_rel_epvec_t *out)
{
    chan_fill_t *f = st_mem_calloc(ch->n + 1, sizeof *f);
    if (!f)
        return -1;
    int rc = p2p_count_in_order(sends, 0, f) && p2p_count_in_order(recvs, 1, f);
    if (rc && reserve_out(c, out, sends->n + recvs->n))
        rc = -1;
    if (rc == 1) {
        uint64_t at = 0;
        for (uint32_t r = 0; r < ch->n; r++) {
            chan_fill_t *x = &f[byrank[r].id];
            const p2p_chan_t *k = &byrank[r].key;
            x->first = at;
            x->mask = pair_mask(c->in, (int32_t)(k->pair >> 32), (int32_t)(uint32_t)k->pair);
            at += x->n[0] + x->n[1];
        }
        p2p_put_direct(ch, sends, 0, f, out->v + out->n);
        p2p_put_direct(ch, recvs, 1, f, out->v + out->n);
        out->n += at;
    }
    st_mem_free(f);
    return rc;
}

/* ---- the point-to-point ends from their grouped items: a source (st_rel_endpoints_split) ------------ */

/* The grouped items of every channel (channel rank r: sends so[ss[r] ..), receives ro[rs[r] ..)),
 * handed out in the join's order: channels in key order, in a channel send k before receive k;
 * where the next one is: channel r, k, and whether send k (half 0) or receive k (half 1). */
typedef struct p2p_src {
    chan_rank_t *byrank;
    uint8_t     *mask;
    uint32_t     nch, r;
    p2p_item_t  *so, *ro;
    uint64_t    *ss, *rs, k;
    int          half;
    size_t       n;
} p2p_src_t;

static size_t p2p_src_read(void *ctx, st_rel_endpoint_t *buf, size_t max)
{
    p2p_src_t *s = ctx;
    size_t n = 0;
    while (n < max && s->r < s->nch) {
        uint64_t ns = s->ss[s->r + 1] - s->ss[s->r], nr = s->rs[s->r + 1] - s->rs[s->r];
        if (s->k >= ns && s->k >= nr) {
            s->r++, s->k = 0, s->half = 0;
            continue;
        }
        const p2p_chan_t *key = &s->byrank[s->r].key;
        if (s->half == 0 && s->k < ns)
            p2p_put(&buf[n++], key, s->mask[s->r], s->k, &s->so[s->ss[s->r] + s->k], ST_REL_SEND);
        else if (s->half == 1 && s->k < nr)
            p2p_put(&buf[n++], key, s->mask[s->r], s->k, &s->ro[s->rs[s->r] + s->k], ST_REL_RECV);
        s->k += s->half;
        s->half ^= 1;
    }
    return n;
}

static void p2p_src_rewind(void *ctx)
{
    p2p_src_t *s = ctx;
    s->r = 0, s->k = 0, s->half = 0;
}

static void p2p_src_free(void *ctx)
{
    p2p_src_t *s = ctx;
    if (!s)
        return;
    st_mem_free(s->byrank), st_mem_free(s->mask), st_mem_free(s->so), st_mem_free(s->ro);
    st_mem_free(s->ss), st_mem_free(s->rs);
    st_mem_free(s);
}

/* The items grouped by channel (which frees the vectors) as c->p2p_src. */
static int p2p_src_make(ctx_t *c, const p2p_chans_t *ch, const chan_rank_t *byrank, const uint32_t *rank_of,
                        p2pvec_t *sends, p2pvec_t *recvs)
{
    p2p_src_t *s = st_mem_calloc(1, sizeof *s);
    if (!s)
        return -1;
    *s = (p2p_src_t){ .nch = (uint32_t)ch->n, .n = sends->n + recvs->n };
    s->byrank = st_mem_malloc(sizeof *s->byrank * (ch->n + 1));
    s->mask = st_mem_malloc(ch->n + 1);
    s->ss = st_mem_malloc(sizeof *s->ss * (ch->n + 1)), s->rs = st_mem_malloc(sizeof *s->rs * (ch->n + 1));
    if (!s->byrank || !s->mask || !s->ss || !s->rs || !(s->so = p2p_grouped(ch, rank_of, sends, s->ss)) ||
        !(s->ro = p2p_grouped(ch, rank_of, recvs, s->rs))) {
        p2p_src_free(s);
        return -1;
    }
    memcpy(s->byrank, byrank, sizeof *byrank * ch->n);
    for (uint32_t r = 0; r < ch->n; r++)
        s->mask[r] = pair_mask(c->in, (int32_t)(byrank[r].key.pair >> 32), (int32_t)(uint32_t)byrank[r].key.pair);
    c->p2p_src = s;
    return 0;
}

/* The general case (items not in channel order): grouped by channel, each channel sorted, and
 * the endpoints appended as the source hands them out. */
static int p2p_emit_grouped(ctx_t *c, const p2p_chans_t *ch, const chan_rank_t *byrank, const uint32_t *rank_of,
                            p2pvec_t *sends, p2pvec_t *recvs, st_rel_epvec_t *out)
{
    size_t np = sends->n + recvs->n, k;
    if (p2p_src_make(c, ch, byrank, rank_of, sends, recvs))
        return -1;
    int rc = reserve_out(c, out, np); /* after the grouping: the vectors' pages are free for it */
    while (rc == 0 && np && (k = p2p_src_read(c->p2p_src, out->v + out->n, np)) > 0)
        out->n += k, np -= k;
    p2p_src_free(c->p2p_src);
    c->p2p_src = NULL;
    return rc;
}

/*
 * Appends to out the sends and receives in key order (tag, pair, comm, k, role): channels in
 * key order, inside a channel by (o1, o2, loc, ev), numbered k = 0, 1, ... per channel and
 * role (a self channel has both: send k before receive k). Frees the items. With c->p2p_apart
 * they go to c->p2p_src instead, in the same order (and out gets room for the other types').
 */
static int p2p_emit(ctx_t *c, const p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs, st_rel_epvec_t *out)
{
    chan_rank_t *byrank = st_mem_malloc(sizeof *byrank * (ch->n + 1));
    uint32_t *rank_of = st_mem_malloc(sizeof *rank_of * (ch->n + 1));
    int rc = -1;
    if (byrank && rank_of) {
        for (uint32_t i = 0; i < ch->n; i++)
            byrank[i] = (chan_rank_t){ ch->v[i], i };
        sort(byrank, ch->n, sizeof *byrank, cmp_chan_rank);
        for (uint32_t i = 0; i < ch->n; i++)
            rank_of[byrank[i].id] = i;
        if (c->p2p_apart && sends->n + recvs->n) {
            rc = reserve_out(c, out, 0) ? -1 : p2p_src_make(c, ch, byrank, rank_of, sends, recvs);
        } else {
            rc = p2p_emit_direct(c, ch, byrank, sends, recvs, out);
            if (rc == 0)
                rc = p2p_emit_grouped(c, ch, byrank, rank_of, sends, recvs, out);
        }
    }
    st_mem_free(byrank), st_mem_free(rank_of);
    st_mem_free(sends->v), st_mem_free(recvs->v);
    sends->v = recvs->v = NULL, sends->cap = recvs->cap = 0;
    return rc < 0 ? -1 : 0;
}

/* One send or receive event of the scan (cancelled sends are filtered after it). */
static int p2p_event(ctx_t *c, p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs, uint32_t l, uint64_t i,
                     const st_event_t *e)
{
    int send = e->kind == ST_EV_MPI_SEND || e->kind == ST_EV_MPI_ISEND;
    if ((e->flags & ST_EVF_PROC_NULL) || e->peer < 0)
        return 0;
    const st_comm_def_t *d = comm_def(c, e->comm);
    if (!d)
        return 0;
    p2p_chan_t k = { .tag = (uint32_t)e->tag, .comm = d->key };
    p2p_item_t it = { .loc = l, .ev = i };
    if (send) {
        k.pair = (uint64_t)(uint32_t)c->rank << 32 | (uint32_t)e->peer;
        it.o1 = e->time;
    } else {
        k.pair = (uint64_t)(uint32_t)e->peer << 32 | (uint32_t)c->rank;
        it.o1 = e->id; /* post order */
        it.o2 = e->time;
    }
    uint32_t *last = &ch->last[send];
    if (*last && same_chan(&ch->v[*last - 1], &k))
        it.chan = *last - 1;
    else if ((it.chan = chan_id(ch, &k)) == UINT32_MAX)
        return -1;
    *last = it.chan + 1;
    return send ? PUSH(*sends, it) : PUSH(*recvs, it);
}

/* A send whose request completed as cancelled (MPI_ISEND: its request id) carries no message. */
static int send_cancelled(const ctx_t *c, const u64vec_t *cancelled, const p2p_item_t *it)
{
    const st_event_t *e = &c->in->locs[it->loc].ev[it->ev];
    return e->kind == ST_EV_MPI_ISEND && is_cancelled(cancelled, e->id);
}

/* After the scan: drop sends whose request completed as cancelled, number and emit into out. */
static int p2p_finish(ctx_t *c, u64vec_t *cancelled, const p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs,
                      st_rel_epvec_t *out)
{
    if (cancelled->n) {
        sort(cancelled->v, cancelled->n, sizeof(uint64_t), cmp_u64p);
        size_t m = 0;
        for (size_t i = 0; i < sends->n; i++) {
            if (send_cancelled(c, cancelled, &sends->v[i]))
                c->ds->cancelled++;
            else
                sends->v[m++] = sends->v[i];
        }
        sends->n = m;
    }
    return p2p_emit(c, ch, sends, recvs, out);
}

/* ---- collectives ---------------------------------------------------------------------------- */

/* OTF2_CollectiveOp values (OTF2_Events.h), kept numeric so this file needs no OTF2 header. */
enum st_rel_coll_class st_rel_coll_class(unsigned op)
{
    switch (op) {
    case 0: /* BARRIER */
    case 6: case 7: /* ALLGATHER(V) */
    case 8: case 9: case 10: /* ALLTOALL(V,W) */
    case 11: /* ALLREDUCE */
    case 13: case 16: /* REDUCE_SCATTER(_BLOCK) */
        return ST_REL_CC_N2N;
    case 1: case 4: case 5: /* BCAST, SCATTER(V) */
        return ST_REL_CC_ONE2N;
    case 2: case 3: case 12: /* GATHER(V), REDUCE */
        return ST_REL_CC_N2ONE;
    case 14: case 15: /* SCAN, EXSCAN */
        return ST_REL_CC_PREFIX;
    default: /* handle creation/destruction, allocation: no data, no guaranteed order */
        return ST_REL_CC_NONE;
    }
}

static int32_t min_rank(const int32_t *w, uint32_t n)
{
    int32_t m = INT32_MAX;
    for (uint32_t i = 0; w && i < n; i++)
        if (w[i] < m)
            m = w[i];
    return m;
}

static int32_t comm_rank_of(const st_comm_def_t *d, int32_t world)
{
    for (uint32_t i = 0; d->world && i < d->size; i++)
        if (d->world[i] == world)
            return (int32_t)i;
    return -1;
}

static const nodeset_t *comm_nodes(ctx_t *c, uint32_t comm, const st_comm_def_t *d)
{
    nodeset_t *ns = &c->comm_nodes[comm];
    if (!ns->done && nodeset_fill(c->in, ns, d->world, d->size, d->remote_world, d->remote_size))
        return NULL;
    return ns;
}

/* One collective operation of one process: its logical send and receive events. */
typedef struct coll_ev {
    uint32_t          send_loc, recv_loc;
    uint64_t          send_ev, recv_ev; /* NO_EV: none */
    const st_event_t *e;                /* the end event: op, comm, root, bytes */
    uint64_t          seq;
} coll_ev_t;

/*
 * The payload rule (docs/clc.md, Decisions 4): a member is a logical send of a collective
 * only if it contributes data (bytes sent > 0), a logical receive only if it gets data
 * (bytes received > 0); a barrier always synchronizes. Count-0 operations of every class
 * and 0-element members of v-collectives thus create no relation, although their events
 * stay in the trace. The recorder counts a process's own block in both figures except
 * with MPI_IN_PLACE (wrappers/mpi_functions.tbl), so a member only looks payload-free
 * when it exchanges nothing with any other member.
 */
static int coll_takes_part(const st_event_t *e, uint8_t role)
{
    if (e->op == 0) /* OTF2_COLLECTIVE_OP_BARRIER */
        return 1;
    return (role == ST_REL_SEND ? e->bytes : e->bytes2) > 0;
}

static int coll_emit_one(ctx_t *c, const coll_ev_t *ce, uint8_t role, uint64_t group, uint8_t shape,
                         uint8_t mask, uint32_t order, uint64_t comm_key)
{
    uint64_t ev = role == ST_REL_SEND ? ce->send_ev : ce->recv_ev;
    uint32_t loc = role == ST_REL_SEND ? ce->send_loc : ce->recv_loc;
    if (ev == NO_EV || !coll_takes_part(ce->e, role))
        return 0;
    return emit(c, key0(ST_REL_KEY_COLL, 0), ce->seq, comm_key, group, loc, ev, c->in->locs[loc].ev[ev].time, role,
                ST_REL_COLL, shape, mask, order);
}

static int coll_intra(ctx_t *c, const coll_ev_t *ce, const st_comm_def_t *d, const nodeset_t *ns)
{
    const st_event_t *e = ce->e;
    enum st_rel_coll_class cc = st_rel_coll_class(e->op);
    int32_t root = e->peer;
    int r = 0;
    switch (cc) {
    case ST_REL_CC_N2N:
        r = coll_emit_one(c, ce, ST_REL_SEND, 0, ST_REL_PRODUCT, nodeset_mask_all(ns), 0, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, 0, ST_REL_PRODUCT, nodeset_mask_all(ns), 0, d->key);
    case ST_REL_CC_PREFIX: {
        int32_t me = comm_rank_of(d, c->rank);
        if (me < 0)
            return 0;
        r = coll_emit_one(c, ce, ST_REL_SEND, 0, ST_REL_PREFIX, nodeset_mask_all(ns), (uint32_t)me, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, 0, ST_REL_PREFIX, nodeset_mask_all(ns), (uint32_t)me, d->key);
    }
    case ST_REL_CC_ONE2N:
    case ST_REL_CC_N2ONE:
        if (root < 0) {
            c->ds->no_root++;
            return 0;
        }
        {
            uint8_t mask = nodeset_mask_rooted(ns, node_of(c->in, root));
            int one2n = cc == ST_REL_CC_ONE2N;
            uint8_t role = (root == c->rank) == one2n ? ST_REL_SEND : ST_REL_RECV;
            return coll_emit_one(c, ce, role, 0, ST_REL_PRODUCT, mask, 0, d->key);
        }
    default:
        return 0;
    }
}

/* Intercommunicators: data flows between the groups; the receiving group names the instance. */
static int coll_inter(ctx_t *c, const coll_ev_t *ce, const st_comm_def_t *d, const nodeset_t *ns)
{
    const st_event_t *e = ce->e;
    enum st_rel_coll_class cc = st_rel_coll_class(e->op);
    uint64_t mine = (uint32_t)min_rank(d->world, d->size), theirs = (uint32_t)min_rank(d->remote_world, d->remote_size);
    uint8_t mask = nodeset_mask_all(ns);
    int r;
    switch (cc) {
    case ST_REL_CC_N2N:
        r = coll_emit_one(c, ce, ST_REL_SEND, theirs, ST_REL_PRODUCT, mask, 0, d->key);
        return r ? r : coll_emit_one(c, ce, ST_REL_RECV, mine, ST_REL_PRODUCT, mask, 0, d->key);
    case ST_REL_CC_ONE2N:
    case ST_REL_CC_N2ONE:
        if (e->peer < 0) /* a non-root member of the root's group: takes no part */
            return 0;
        if (e->peer == c->rank) /* the root */
            return coll_emit_one(c, ce, cc == ST_REL_CC_ONE2N ? ST_REL_SEND : ST_REL_RECV,
                                 cc == ST_REL_CC_ONE2N ? theirs : mine, ST_REL_PRODUCT, mask, 0, d->key);
        return coll_emit_one(c, ce, cc == ST_REL_CC_ONE2N ? ST_REL_RECV : ST_REL_SEND,
                             cc == ST_REL_CC_ONE2N ? mine : theirs, ST_REL_PRODUCT, mask, 0, d->key);
    default:
        return 0; /* no scans on intercommunicators */
    }
}

static int coll_one(ctx_t *c, const coll_ev_t *ce)
{
    const st_event_t *e = ce->e;
    if (st_rel_coll_class(e->op) == ST_REL_CC_NONE)
        return 0;
    const st_comm_def_t *d = comm_def(c, e->comm);
    if (!d)
        return 0;
    const nodeset_t *ns = comm_nodes(c, e->comm, d);
    if (!ns)
        return -1;
    if ((d->flags & ST_COMMF_INTER) || (e->flags & ST_EVF_INTERCOMM))
        return coll_inter(c, ce, d, ns);
    return coll_intra(c, ce, d, ns);
}

/* Nonblocking-collective request: id -> the ENTER of the I-call. */
typedef struct icoll_req {
    uint64_t id;
    uint32_t loc;
    uint64_t enter; /* NO_EV if none */
} icoll_req_t;

static int cmp_icoll(const void *a, const void *b)
{
    return cmp_u64(((const icoll_req_t *)a)->id, ((const icoll_req_t *)b)->id);
}

typedef struct { icoll_req_t *v; size_t n, cap; } icollvec_t;

/* A nonblocking completion, resolved against the requests of every location after the scan. */
typedef struct icoll_done {
    uint32_t loc;
    uint64_t ev;
} icoll_done_t;

typedef struct { icoll_done_t *v; size_t n, cap; } icdvec_t;

/* A blocking collective ends: send = its COLL_BEGIN (or the ENTER before it), receive = the end. */
static int coll_end(ctx_t *c, uint32_t l, uint64_t i, uint64_t *begin, uint64_t enter)
{
    const st_event_t *e = &c->in->locs[l].ev[i];
    coll_ev_t ce = { .send_loc = l, .recv_loc = l, .recv_ev = i, .e = e, .seq = e->id,
                     .send_ev = *begin != NO_EV ? *begin : enter };
    *begin = NO_EV;
    c->ds->no_begin += ce.send_ev == NO_EV;
    return coll_one(c, &ce);
}

/* Nonblocking: send = the ENTER of the I-call that made the request (maybe on another thread). */
static int coll_finish(ctx_t *c, icollvec_t *reqs, const icdvec_t *done)
{
    sort(reqs->v, reqs->n, sizeof(icoll_req_t), cmp_icoll);
    for (size_t k = 0; k < done->n; k++) {
        uint32_t l = done->v[k].loc;
        const st_event_t *e = &c->in->locs[l].ev[done->v[k].ev];
        icoll_req_t key = { .id = e->id };
        const icoll_req_t *r = find(&key, reqs->v, reqs->n, sizeof key, cmp_icoll);
        coll_ev_t ce = { .send_loc = r ? r->loc : l, .recv_loc = l, .recv_ev = done->v[k].ev, .e = e,
                         .send_ev = r ? r->enter : NO_EV, .seq = e->aux };
        c->ds->no_begin += ce.send_ev == NO_EV;
        if (coll_one(c, &ce))
            return -1;
    }
    return 0;
}

/* MPI_Init / MPI_Finalize: N-to-N over all ranks; mu classes of all pairs of ranks. */
static int sync_prepare(ctx_t *c)
{
    if (!c->in->nsync || !c->in->sync || c->world_nodes.done)
        return 0;
    int32_t *all = st_mem_malloc(sizeof(int32_t) * (size_t)(c->in->nranks > 0 ? c->in->nranks : 1));
    if (!all)
        return -1;
    for (int32_t r = 0; r < c->in->nranks; r++)
        all[r] = r;
    int rc = nodeset_fill(c->in, &c->world_nodes, all, (uint32_t)(c->in->nranks > 0 ? c->in->nranks : 0), NULL, 0);
    st_mem_free(all);
    return rc;
}

static int sync_event(ctx_t *c, const st_event_t *e, uint32_t l, uint64_t i)
{
    for (uint32_t s = 0; s < c->in->nsync; s++)
        if (c->in->sync[s].region == e->region &&
            emit(c, key0(ST_REL_KEY_SYNC, 0), c->in->sync[s].group, 0, 0, l, i, e->time,
                 e->kind == ST_EV_ENTER ? ST_REL_SEND : ST_REL_RECV, ST_REL_COLL, ST_REL_PRODUCT,
                 nodeset_mask_all(&c->world_nodes), 0))
            return -1;
    return 0;
}

/* ---- OpenMP ------------------------------------------------------------------------------------ */

/* Lock, task and taskwait events of one process, sorted by (a, b, c, type, loc, ev). */
typedef struct omp_item {
    uint64_t a, b, c;
    uint8_t  type;
    uint32_t loc;
    uint64_t ev;
    uint64_t x;             /* taskwait items: the child task a create makes, a taskwait exit's time; locks: time */
} omp_item_t;

typedef struct { omp_item_t *v; size_t n, cap; } ompvec_t;

static inline int cmp_omp(const omp_item_t *p, const omp_item_t *q)
{
    int r;
    if ((r = cmp_u64(p->a, q->a)) || (r = cmp_u64(p->b, q->b)) || (r = cmp_u64(p->c, q->c)) ||
        (r = cmp_u64(p->type, q->type)) || (r = cmp_u64(p->loc, q->loc)))
        return r;
    return cmp_u64(p->ev, q->ev);
}

static int cmp_omp_void(const void *x, const void *y) { return cmp_omp(x, y); }
/* The items come one location after the other, each mostly in order (a thread's lock
 * acquisitions, tasks and taskwaits in time order): a few runs for the natural merge sort. */
ST_MSORT(sort_omp, omp_item_t, cmp_omp)

enum { L_ACQ, L_REL };             /* locks:     a = lock kind, b = lock id, c = acquisition order, x = time */
enum { T_CREATE, T_AWAY, T_TO };   /* tasks:     a = task id, b = time */
enum { W_CREATE, W_WAIT };         /* taskwaits: a = parent task, b = time (of the create / taskwait enter),
                                    *            x = the child (create) / the exit's time (taskwait) */

/* One level of a location's team nesting (the outermost level has team 0). */
typedef struct frame {
    uint64_t team;       /* parallel id */
    uint64_t barriers;   /* barriers this thread completed in this team */
    int      in_barrier;
    uint64_t cur;        /* task running at this level; 0 until a task switch tells */
    uint64_t serial;     /* index into omp_state_t.frame_task */
    int      forked;     /* this location forked the team (its master) */
} frame_t;

typedef struct { uint64_t parent, enter_time; } twait_t;

typedef struct omp_state {
    ompvec_t locks, tasks, waits;
    u64vec_t frame_task;  /* frame serial -> the task the frame started with, once known */
    struct done { uint64_t child; uint32_t loc; uint64_t ev, time; } *done;
    size_t   ndone, capdone;
} omp_state_t;

/* Per-location scan state. */
typedef struct omp_loc {
    frame_t *st;
    size_t   n, cap;
    twait_t *tw;
    size_t   ntw, captw;
} omp_loc_t;

static int is_barrier(uint32_t region) { return region == CLC_REGION_OMP_BARRIER || region == CLC_REGION_OMP_IBARRIER; }

static int frame_push(omp_state_t *s, omp_loc_t *ol, uint64_t team)
{
    if (st_mem_grow((void **)&ol->st, &ol->cap, ol->n + 1, sizeof(frame_t)) || PUSH(s->frame_task, 0))
        return -1;
    ol->st[ol->n++] = (frame_t){ .team = team, .serial = s->frame_task.n - 1 };
    return 0;
}

/* Closes the frame of team (and anything left open inside it), if open. */
static void frame_pop(omp_loc_t *ol, uint64_t team)
{
    for (size_t k = ol->n; k > 1; k--)
        if (ol->st[k - 1].team == team) {
            ol->n = k - 1;
            return;
        }
}

/* The task running in frame f: its id, or a placeholder resolved once the frame's
 * first task switch names the task it leaves (resolve_parent). */
static uint64_t frame_parent(const frame_t *f)
{
    return f->cur ? f->cur : (1ull << 63) | f->serial;
}

static uint64_t resolve_parent(const omp_state_t *s, uint64_t p)
{
    if (!(p >> 63))
        return p;
    uint64_t serial = p & ~(1ull << 63);
    return serial < s->frame_task.n && s->frame_task.v[serial] ? s->frame_task.v[serial] : p;
}

/* (The OpenMP endpoints made after the scan take their events' times from the items: reading
 * the events again would be a cache miss each.) */
static int emit_omp(ctx_t *c, unsigned type, uint64_t k2, uint64_t k3, uint32_t l, uint64_t i, uint64_t time,
                    uint8_t role)
{
    omp_end_t o = { .k2 = k2, .k3 = k3, .ev = i, .time = time, .loc = l, .role = role };
    return PUSH(c->oside[type], o);
}

/* A team master's left-out end as one word (st_rel_self_ends_t.team): its location and event. */
static inline uint64_t team_word(uint32_t l, uint64_t i) { return (uint64_t)l << ST_REL_SELF_EV_BITS | i; }
static inline uint32_t team_word_loc(uint64_t w) { return (uint32_t)(w >> ST_REL_SELF_EV_BITS); }
static inline uint64_t team_word_ev(uint64_t w) { return w & ((1ull << ST_REL_SELF_EV_BITS) - 1); }

/* An OpenMP end whose every partner is on its own location: emitted, or with omit_self_ends
 * kept aside for in->self_ends (or dropped without it). */
static int emit_omp_self(ctx_t *c, unsigned type, uint64_t k2, uint64_t k3, uint32_t l, uint64_t i, uint64_t time,
                         uint8_t role)
{
    if (!c->in->omit_self_ends)
        return emit_omp(c, type, k2, k3, l, i, time, role);
    if (!c->in->self_ends)
        return 0;
    (void)time;
    st_rel_self_ends_t *s = c->in->self_ends;
    int team = type == ST_REL_KEY_OMP_FORK ? 0 : type == ST_REL_KEY_OMP_JOIN ? 1 : -1;
    if (team >= 0 && role == (team ? ST_REL_SEND : ST_REL_RECV) && k3 == 0 && k2 == c->in->locs[l].ev[i].id &&
        i >> ST_REL_SELF_EV_BITS == 0 && l >> (64 - ST_REL_SELF_EV_BITS) == 0)
        return PUSH(s->team[team], team_word(l, i));
    st_rel_self_end_t o = { .k2 = k2, .k3 = k3, .ev = i, .loc = l, .role = role };
    return PUSH(s->type[type], o);
}

OMP_END_CMP(cmp_self, st_rel_self_end_t)

static int cmp_self_void(const void *a, const void *b) { return cmp_self(a, b); }
ST_MSORT(sort_self, st_rel_self_end_t, cmp_self)

int st_rel_self_ends_expand(st_rel_self_ends_t *s, const st_rel_loc_t *locs)
{
    static const unsigned type[2] = { ST_REL_KEY_OMP_FORK, ST_REL_KEY_OMP_JOIN };
    for (int k = 0; k < 2; k++) {
        const uint64_t *w = s->team[k].v;
        size_t n = s->team[k].n;
        if (n && st_mem_grow((void **)&s->type[type[k]].v, &s->type[type[k]].cap, s->type[type[k]].n + n,
                             sizeof *s->type[type[k]].v))
            return -1;
        for (size_t j = 0; j < n; j++) {
            uint64_t ev = team_word_ev(w[j]);
            uint32_t loc = team_word_loc(w[j]);
            if (j + 16 < n) /* the events are far apart: each a cache miss */
                __builtin_prefetch(&locs[team_word_loc(w[j + 16])].ev[team_word_ev(w[j + 16])]);
            s->type[type[k]].v[s->type[type[k]].n++] = (st_rel_self_end_t){
                .k2 = locs[loc].ev[ev].id, .ev = ev, .loc = loc, .role = k ? ST_REL_SEND : ST_REL_RECV };
        }
        st_mem_free(s->team[k].v);
        s->team[k].v = NULL, s->team[k].n = s->team[k].cap = 0;
    }
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++) /* one pass where sorted already */
        sort_self(s->type[t].v, s->type[t].n);
    return 0;
}

st_rel_endpoint_t st_rel_self_endpoint(const st_rel_self_ends_t *s, unsigned type, size_t i)
{
    const st_rel_self_end_t *x = &s->type[type].v[i];
    return (st_rel_endpoint_t){ /* as put_omp_end */
        .key = { key0(type, 0), (uint32_t)s->rank, x->k2, x->k3 },
        .ref = { .loc = x->loc, .order = 0, .ev = x->ev },
        .role = x->role, .kind = ST_REL_OMP, .shape = ST_REL_PRODUCT, .mumask = ST_REL_MU_PROC,
    };
}

void st_rel_self_ends_free(st_rel_self_ends_t *s)
{
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++)
        st_mem_free(s->type[t].v);
    st_mem_free(s->team[0].v), st_mem_free(s->team[1].v);
    memset(s, 0, sizeof *s);
}

/* Barrier ENTER -> LEAVE of the same (k-th) barrier of the innermost team, all threads. */
static int omp_barrier(ctx_t *c, frame_t *f, uint32_t l, uint64_t i, uint64_t time, int enter)
{
    if (!f->team)
        return 0;
    if (enter) {
        f->in_barrier = 1;
        return emit_omp(c, ST_REL_KEY_OMP_BARRIER, f->team, f->barriers, l, i, time, ST_REL_SEND);
    }
    if (!f->in_barrier)
        return 0;
    f->in_barrier = 0;
    return emit_omp(c, ST_REL_KEY_OMP_BARRIER, f->team, f->barriers++, l, i, time, ST_REL_RECV);
}

static int omp_task_event(omp_state_t *s, frame_t *f, const st_event_t *e, uint32_t l, uint64_t i)
{
    omp_item_t it = { .b = e->time, .loc = l, .ev = i };
    if (e->kind == ST_EV_THREAD_TASK_CREATE) {
        omp_item_t w = { .a = frame_parent(f), .b = e->time, .type = W_CREATE, .loc = l, .ev = i, .x = e->id };
        it.a = e->id, it.type = T_CREATE;
        return e->id && (PUSH(s->tasks, it) || PUSH(s->waits, w)) ? -1 : 0;
    }
    if (e->kind == ST_EV_THREAD_TASK_COMPLETE) {
        if (st_mem_grow((void **)&s->done, &s->capdone, s->ndone + 1, sizeof *s->done))
            return -1;
        s->done[s->ndone++] = (struct done){ e->id, l, i, e->time };
        return 0;
    }
    /* THREAD_TASK_SWITCH: away from aux, to id. */
    if (!f->cur && e->aux)
        s->frame_task.v[f->serial] = e->aux;
    f->cur = e->id;
    if (e->aux == e->id)
        return 0;
    if (e->aux) {
        it.a = e->aux, it.type = T_AWAY;
        if (PUSH(s->tasks, it))
            return -1;
    }
    if (e->id) {
        it.a = e->id, it.type = T_TO;
        if (PUSH(s->tasks, it))
            return -1;
    }
    return 0;
}

static int omp_region_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i)
{
    frame_t *f = &ol->st[ol->n - 1];
    int enter = e->kind == ST_EV_ENTER;
    if (is_barrier(e->region))
        return omp_barrier(c, f, l, i, e->time, enter);
    if (e->region != CLC_REGION_OMP_TASKWAIT)
        return 0;
    if (enter) {
        if (st_mem_grow((void **)&ol->tw, &ol->captw, ol->ntw + 1, sizeof(twait_t)))
            return -1;
        ol->tw[ol->ntw++] = (twait_t){ frame_parent(f), e->time };
        return 0;
    }
    if (!ol->ntw)
        return 0;
    twait_t t = ol->tw[--ol->ntw];
    omp_item_t w = { .a = t.parent, .b = t.enter_time, .type = W_WAIT, .loc = l, .ev = i, .x = e->time };
    return PUSH(s->waits, w);
}

/* One OpenMP event of a location: fork/join and barriers are emitted at once; locks,
 * tasks and taskwaits are collected for the whole process. */
static int omp_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i)
{
    int rc = 0;
    switch (e->kind) {
    case ST_EV_THREAD_FORK: /* the master is part of the team from here */
        rc = emit_omp(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_SEND);
        if (rc || (rc = frame_push(s, ol, e->id)))
            return rc;
        ol->st[ol->n - 1].forked = 1;
        return 0;
    case ST_EV_THREAD_TEAM_BEGIN: {
        int master = ol->st[ol->n - 1].team == e->id;
        rc = master ? emit_omp_self(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_RECV)
                    : emit_omp(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_RECV);
        return rc || master ? rc : frame_push(s, ol, e->id);
    }
    case ST_EV_THREAD_TEAM_END: {
        const frame_t *f = &ol->st[ol->n - 1];
        rc = f->team == e->id && f->forked ? emit_omp_self(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_SEND)
                                           : emit_omp(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_SEND);
        frame_pop(ol, e->id);
        return rc;
    }
    case ST_EV_THREAD_JOIN:
        rc = emit_omp(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_RECV);
        frame_pop(ol, e->id);
        return rc;
    case ST_EV_THREAD_ACQUIRE_LOCK:
    case ST_EV_THREAD_RELEASE_LOCK: {
        omp_item_t it = { .a = e->op, .b = e->id, .c = e->bytes, .loc = l, .ev = i, .x = e->time,
                          .type = e->kind == ST_EV_THREAD_ACQUIRE_LOCK ? L_ACQ : L_REL };
        return PUSH(s->locks, it);
    }
    case ST_EV_THREAD_TASK_CREATE:
    case ST_EV_THREAD_TASK_SWITCH:
    case ST_EV_THREAD_TASK_COMPLETE:
        return omp_task_event(s, &ol->st[ol->n - 1], e, l, i);
    default:
        return 0;
    }
}

/* Lock release (order a) -> the acquisition with the next higher order of the same lock. */
static int omp_locks(ctx_t *c, omp_state_t *s)
{
    sort_omp(s->locks.v, s->locks.n);
    const omp_item_t *v = s->locks.v;
    /* In order (the endpoints then come out sorted): a release sends to the following
     * acquisition of its lock, v[j], the first acquisition after it. */
    size_t self = SIZE_MAX; /* an acquisition whose release-partner is on its own location (omit_self_ends) */
    for (size_t i = 0, j = 0; i < s->locks.n; i++) {
        const omp_item_t *it = &v[i];
        uint64_t lock = it->b ^ it->a << 48; /* lock kinds have separate id spaces */
        if (it->type == L_ACQ) {
            if (i == self ? emit_omp_self(c, ST_REL_KEY_OMP_LOCK, lock, it->c, it->loc, it->ev, it->x, ST_REL_RECV)
                          : emit_omp(c, ST_REL_KEY_OMP_LOCK, lock, it->c, it->loc, it->ev, it->x, ST_REL_RECV))
                return -1;
            continue;
        }
        while (j < s->locks.n && (j <= i || v[j].type != L_ACQ))
            j++;
        if (j >= s->locks.n || v[j].a != it->a || v[j].b != it->b || v[j].c <= it->c)
            continue;
        if (v[j].loc == it->loc)
            self = j;
        if (self == j ? emit_omp_self(c, ST_REL_KEY_OMP_LOCK, lock, v[j].c, it->loc, it->ev, it->x, ST_REL_SEND)
                      : emit_omp(c, ST_REL_KEY_OMP_LOCK, lock, v[j].c, it->loc, it->ev, it->x, ST_REL_SEND))
            return -1;
    }
    return 0;
}

/* Per task, in time order: a switch to it receives from the create or switch away just before. */
static int omp_tasks(ctx_t *c, omp_state_t *s)
{
    sort_omp(s->tasks.v, s->tasks.n);
    for (size_t i = 1; i < s->tasks.n; i++) {
        const omp_item_t *it = &s->tasks.v[i], *pv = it - 1;
        if (it->type != T_TO || pv->a != it->a || pv->type == T_TO)
            continue;
        if (emit_omp(c, ST_REL_KEY_OMP_TASK, it->a, i, pv->loc, pv->ev, pv->b, ST_REL_SEND) ||
            emit_omp(c, ST_REL_KEY_OMP_TASK, it->a, i, it->loc, it->ev, it->b, ST_REL_RECV))
            return -1;
    }
    return 0;
}

static int cmp_done(const void *a, const void *b) { return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b); }

/* Child completion -> exit of the first taskwait its parent enters after creating it. */
static int omp_taskwaits(ctx_t *c, omp_state_t *s)
{
    for (size_t i = 0; i < s->waits.n; i++)
        s->waits.v[i].a = resolve_parent(s, s->waits.v[i].a);
    sort_omp(s->waits.v, s->waits.n);
    sort(s->done, s->ndone, sizeof *s->done, cmp_done);
    size_t first = 0; /* first create of the current parent not yet waited for */
    for (size_t j = 0; j < s->waits.n; j++) {
        const omp_item_t *w = &s->waits.v[j];
        if (j > 0 && w->a != w[-1].a)
            first = j;
        if (w->type != W_WAIT)
            continue;
        int any = 0;
        for (size_t k = first; k < j; k++) {
            const struct done *d = find(&s->waits.v[k].x, s->done, s->ndone, sizeof *s->done, cmp_done);
            if (s->waits.v[k].type != W_CREATE || !d)
                continue;
            if (emit_omp(c, ST_REL_KEY_OMP_TASKWAIT, w->a, j, d->loc, d->ev, d->time, ST_REL_SEND))
                return -1;
            any = 1;
        }
        if (any && emit_omp(c, ST_REL_KEY_OMP_TASKWAIT, w->a, j, w->loc, w->ev, w->x, ST_REL_RECV))
            return -1;
        first = j + 1;
    }
    return 0;
}

/* ---- per-rank entry point ----------------------------------------------------------------------- */

/* Everything one rank's events produce, collected in one pass over them (the trace is
 * far larger than the caches: every extra pass costs a full memory sweep). */
typedef struct scan {
    u64vec_t    cancelled;
    p2p_chans_t chans;
    p2pvec_t    sends, recvs;
    icollvec_t  reqs;
    icdvec_t    done;
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
        if (c->in->nsync && c->in->sync && sync_event(c, e, l, i))
            return -1;
        return omp_region_event(c, &s->omp, ol, e, l, i);
    case ST_EV_MPI_SEND:
    case ST_EV_MPI_ISEND:
    case ST_EV_MPI_RECV:
    case ST_EV_MPI_IRECV:
        return p2p_event(c, &s->chans, &s->sends, &s->recvs, l, i, e);
    case ST_EV_MPI_REQUEST_CANCELLED:
        return PUSH(s->cancelled, e->id);
    case ST_EV_MPI_COLL_BEGIN:
        *begin = i;
        return 0;
    case ST_EV_MPI_COLL_END:
        if (c->in->coll_end)
            c->in->coll_end(c->in->coll_end_ctx, e);
        return coll_end(c, l, i, begin, *enter);
    case ST_EV_MPI_ICOLL_REQUEST: {
        icoll_req_t r = { .id = e->id, .loc = l, .enter = i };
        return PUSH(s->reqs, r);
    }
    case ST_EV_MPI_ICOLL_COMPLETE: {
        if (c->in->coll_end)
            c->in->coll_end(c->in->coll_end_ctx, e);
        icoll_done_t d = { l, i };
        return PUSH(s->done, d);
    }
    default:
        return omp_event(c, &s->omp, ol, e, l, i);
    }
}

/* The events of location l; sets its mono (where its times first go back). */
static int scan_loc(ctx_t *c, scan_t *s, uint32_t l)
{
    omp_loc_t ol = { 0 };
    st_rel_loc_t *L = &c->in->locs[l];
    uint64_t enter = NO_EV, begin = NO_EV, mono = L->n, prev = 0;
    int rc = frame_push(&s->omp, &ol, 0);
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
    st_mem_free(s->cancelled.v), st_mem_free(s->chans.v), st_mem_free(s->chans.slot), st_mem_free(s->sends.v), st_mem_free(s->recvs.v), st_mem_free(s->reqs.v), st_mem_free(s->done.v);
    st_mem_free(s->omp.locks.v), st_mem_free(s->omp.tasks.v), st_mem_free(s->omp.waits.v), st_mem_free(s->omp.frame_task.v), st_mem_free(s->omp.done);
}

OMP_END_CMP(cmp_omp_end, omp_end_t)

static inline void put_endpoint(int32_t rank, unsigned type, st_rel_endpoint_t *dst, const st_rel_endpoint_t *x)
{
    (void)rank, (void)type;
    *dst = *x;
}

static inline void put_omp_end(int32_t rank, unsigned type, st_rel_endpoint_t *dst, const omp_end_t *x)
{
    *dst = (st_rel_endpoint_t){
        .key = { key0(type, 0), (uint32_t)rank, x->k2, x->k3 },
        .ref = { .loc = x->loc, .order = 0, .ev = x->ev },
        .time = x->time,
        .role = x->role, .kind = ST_REL_OMP, .shape = ST_REL_PRODUCT, .mumask = ST_REL_MU_PROC,
    };
}

/*
 * MERGE_RUNS(name, T, cmp, put) defines a merge of v[0 .. n) into endpoints (put: T -> endpoint)
 * in the join's order when v is made of at most MAX_RUNS sorted runs (a key type's endpoints
 * come one location after the other, each in order), with a binary heap of the runs, so that
 * the join finds them sorted and needs neither a buffer of their size nor merge passes over
 * them: name##_init(m, v, n) sets it up (0: more runs, which m then gives as they are and the
 * join has to sort), name##_take(rank, type, m, dst, max) writes the next up to max of them to
 * dst and says how many, name(rank, type, dst, v, n) writes them all. (Endpoints that compare
 * equal are alike: their order does not matter.)
 */
#define MAX_RUNS 64
#define MERGE_RUNS(name, T, cmp, put)                                                                  \
    typedef struct name##_run { const T *at, *end; } name##_run_t;                                     \
    typedef struct name##_merge { name##_run_t h[MAX_RUNS]; size_t nh; } name##_t;                     \
    static inline int name##_before(const void *ctx, const name##_run_t *x, const name##_run_t *y)     \
    {                                                                                                  \
        (void)ctx;                                                                                     \
        return cmp(x->at, y->at) < 0;                                                                  \
    }                                                                                                  \
    ST_HEAP_DOWN(name##_down, name##_run_t, const void *, name##_before)                           \
    static int name##_init(name##_t *m, const T *v, size_t n)                                          \
    {                                                                                                  \
        size_t nh = 0, start = 0;                                                                      \
        for (size_t i = 1; i <= n && nh <= MAX_RUNS; i++)                                              \
            if (i == n || cmp(&v[i - 1], &v[i]) > 0) {                                                 \
                if (nh < MAX_RUNS)                                                                     \
                    m->h[nh] = (name##_run_t){ v + start, v + i };                                     \
                nh++, start = i;                                                                       \
            }                                                                                          \
        if (nh > MAX_RUNS) {                                                                           \
            m->h[0] = (name##_run_t){ v, v + n }, m->nh = 1;                                           \
            return 0;                                                                                  \
        }                                                                                              \
        m->nh = nh;                                                                                    \
        for (size_t i = nh / 2; i-- > 0;)                                                              \
            name##_down(NULL, m->h, nh, i);                                                            \
        return 1;                                                                                      \
    }                                                                                                  \
    static size_t name##_take(int32_t rank, unsigned type, name##_t *m, st_rel_endpoint_t *dst,        \
                              size_t max)                                                              \
    {                                                                                                  \
        size_t k = 0;                                                                                  \
        if (m->nh == 1) { /* one run (or runs as they are): no heap */                                \
            for (; k < max && m->h[0].at < m->h[0].end; k++)                                           \
                put(rank, type, dst + k, m->h[0].at++);                                                \
            m->nh = m->h[0].at < m->h[0].end;                                                          \
            return k;                                                                                  \
        }                                                                                              \
        for (; k < max && m->nh; k++) {                                                                \
            put(rank, type, dst + k, m->h[0].at++);                                                    \
            if (m->h[0].at == m->h[0].end)                                                             \
                m->h[0] = m->h[--m->nh];                                                               \
            name##_down(NULL, m->h, m->nh, 0);                                                         \
        }                                                                                              \
        return k;                                                                                      \
    }                                                                                                  \
    static void name(int32_t rank, unsigned type, st_rel_endpoint_t *dst, const T *v, size_t n)        \
    {                                                                                                  \
        name##_t m;                                                                                    \
        name##_init(&m, v, n);                                                                         \
        name##_take(rank, type, &m, dst, n);                                                           \
    }

MERGE_RUNS(merge_endpoints, st_rel_endpoint_t, st_rel_endpoint_cmp, put_endpoint)
MERGE_RUNS(merge_omp_ends, omp_end_t, cmp_omp_end, put_omp_end)

/* Appends the endpoints of the other key types to out (room reserved by p2p_emit), in type
 * order; the OpenMP ones only if the derivation does not hand them out itself (omp_src). */
static void append_sides(ctx_t *c, st_rel_epvec_t *out)
{
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++) {
        merge_endpoints(c->rank, t, out->v + out->n, c->side[t].v, c->side[t].n);
        out->n += c->side[t].n;
        if (c->omp_src)
            continue;
        merge_omp_ends(c->rank, t, out->v + out->n, c->oside[t].v, c->oside[t].n);
        out->n += c->oside[t].n;
    }
}

/* ---- the OpenMP ends as a source of endpoints (st_rel_endpoints_split) ---------------------------- */

typedef struct omp_src {
    int32_t          rank;
    size_t           n;                       /* ends in all */
    unsigned         type;                    /* the key type being merged */
    omp_endvec_t     oside[ST_REL_KEY_TYPES];
    merge_omp_ends_t m[ST_REL_KEY_TYPES];     /* where the merges are */
    merge_omp_ends_t start[ST_REL_KEY_TYPES]; /* where they began (rewind) */
} omp_src_t;

static size_t omp_src_read(void *ctx, st_rel_endpoint_t *buf, size_t max)
{
    omp_src_t *s = ctx;
    size_t n = 0;
    for (; n < max && s->type < ST_REL_KEY_TYPES; s->type += !s->m[s->type].nh)
        n += merge_omp_ends_take(s->rank, s->type, &s->m[s->type], buf + n, max - n);
    return n;
}

static void omp_src_rewind(void *ctx)
{
    omp_src_t *s = ctx;
    memcpy(s->m, s->start, sizeof s->m);
    s->type = 0;
}

static void omp_src_free(void *ctx)
{
    omp_src_t *s = ctx;
    for (unsigned t = 0; s && t < ST_REL_KEY_TYPES; t++)
        st_mem_free(s->oside[t].v);
    st_mem_free(s);
}

/* The source of the OpenMP ends in c->oside when there are any and every key type's are at most
 * MAX_RUNS sorted runs (so that the source gives them in the join's order), set as c->omp_src,
 * which takes the vectors at the end (st_rel_endpoints_split). 0, also when there is none; -1 out
 * of memory. */
static int omp_src_prepare(ctx_t *c)
{
    size_t n = 0;
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++)
        n += c->oside[t].n;
    if (!n)
        return 0;
    omp_src_t *s = st_mem_calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->rank = c->rank, s->n = n;
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++)
        if (!merge_omp_ends_init(&s->m[t], c->oside[t].v, c->oside[t].n)) {
            st_mem_free(s);
            return 0;
        }
    memcpy(s->start, s->m, sizeof s->m);
    c->omp_src = s;
    return 0;
}

size_t st_rel_epsrc_read(st_rel_epsrc_t *src, st_rel_endpoint_t *buf, size_t max)
{
    return src->read ? src->read(src->ctx, buf, max) : 0;
}

void st_rel_epsrc_rewind(st_rel_epsrc_t *src)
{
    if (src->rewind)
        src->rewind(src->ctx);
}

void st_rel_epsrc_free(st_rel_epsrc_t *src)
{
    if (src->free)
        src->free(src->ctx);
    memset(src, 0, sizeof *src);
}

/* st_rel_endpoints; with omp, the OpenMP ends handed out by *omp when they can be (deps.h). */
static int derive(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out, st_rel_depstats_t *ds,
                  st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p)
{
    static const st_rel_proc_t none = { 0 };
    st_rel_depstats_t scratch = { 0 };
    ctx_t c = {
        .in = in, .rank = rank, .out = out, .ds = ds ? ds : &scratch,
        .proc = in->procs && rank >= 0 && rank < in->nranks ? &in->procs[rank] : &none, .p2p_apart = p2p != NULL,
    };
    scan_t s = { 0 };
    if (in->self_ends)
        in->self_ends->rank = rank;
    c.comm_nodes = st_mem_calloc(c.proc->ncomms ? c.proc->ncomms : 1, sizeof(nodeset_t));
    int rc = c.comm_nodes ? sync_prepare(&c) : -1;
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++)
        if (in->locs[l].rank == rank)
            rc = scan_loc(&c, &s, l);
    if (rc == 0)
        rc = coll_finish(&c, &s.reqs, &s.done);
    if (rc == 0)
        rc = omp_locks(&c, &s.omp);
    if (rc == 0)
        rc = omp_tasks(&c, &s.omp);
    if (rc == 0)
        rc = omp_taskwaits(&c, &s.omp);
    if (rc == 0 && omp)
        rc = omp_src_prepare(&c);
    if (rc == 0) /* last: the point-to-point endpoints (type 1, first in out) go straight into out, or to p2p */
        rc = p2p_finish(&c, &s.cancelled, &s.chans, &s.sends, &s.recvs, out);
    if (rc == 0)
        append_sides(&c, out);
    int src = rc == 0 && c.omp_src;
    for (int t = 0; t < ST_REL_KEY_TYPES; t++) {
        st_rel_epvec_free(&c.side[t]);
        if (src)
            c.omp_src->oside[t] = c.oside[t];
        else
            st_mem_free(c.oside[t].v);
    }
    if (src)
        *omp = (st_rel_epsrc_t){ omp_src_read, omp_src_rewind, omp_src_free, c.omp_src, c.omp_src->n };
    else
        st_mem_free(c.omp_src);
    if (rc == 0 && c.p2p_src)
        *p2p = (st_rel_epsrc_t){ p2p_src_read, p2p_src_rewind, p2p_src_free, c.p2p_src, c.p2p_src->n };
    else
        p2p_src_free(c.p2p_src);
    scan_free(&s);
    for (uint32_t i = 0; c.comm_nodes && i < c.proc->ncomms; i++)
        st_mem_free(c.comm_nodes[i].node);
    st_mem_free(c.comm_nodes);
    st_mem_free(c.world_nodes.node);
    return rc;
}

int st_rel_endpoints(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out, st_rel_depstats_t *ds)
{
    return derive(in, rank, out, ds, NULL, NULL);
}

int st_rel_endpoints_split(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out, st_rel_depstats_t *ds,
                           st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p)
{
    *omp = (st_rel_epsrc_t){ 0 };
    if (p2p)
        *p2p = (st_rel_epsrc_t){ 0 };
    return derive(in, rank, out, ds, omp, p2p);
}
