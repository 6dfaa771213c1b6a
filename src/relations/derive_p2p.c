/*
 * derive_p2p.c — the point-to-point logical messages of one process (derive.c's scan).
 *
 * MPI_SEND / MPI_ISEND (recorded at the start / post) send; MPI_RECV / MPI_IRECV (recorded
 * at completion) receive. Channel = (sender, receiver, comm key, tag); sends are numbered in
 * time order, receives in post order, which is the order of their ids (one process-wide
 * counter, src/mpi/p2p.c). Sends whose request completed as cancelled carry no message.
 * The scan collects the items (rel_p2p_event); rel_p2p_finish numbers them per channel and
 * emits their endpoints in the join's order, straight into the output or, for the CLC
 * engine's check (st_rel_endpoints_split), as a source.
 */
#include "derive_int.h"

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

void rel_p2p_src_free(void *ctx)
{
    p2p_src_t *s = ctx;
    if (!s)
        return;
    st_mem_free(s->byrank), st_mem_free(s->mask), st_mem_free(s->so), st_mem_free(s->ro);
    st_mem_free(s->ss), st_mem_free(s->rs);
    st_mem_free(s);
}

void rel_p2p_src_hand_out(p2p_src_t *s, st_rel_epsrc_t *out)
{
    *out = (st_rel_epsrc_t){ p2p_src_read, p2p_src_rewind, rel_p2p_src_free, s, s->n };
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
        rel_p2p_src_free(s);
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
    rel_p2p_src_free(c->p2p_src);
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
int rel_p2p_event(ctx_t *c, p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs, uint32_t l, uint64_t i,
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
int rel_p2p_finish(ctx_t *c, u64vec_t *cancelled, const p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs,
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
