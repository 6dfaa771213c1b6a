/*
 * coll_reduce.c — collective instances reduced over their communicators' trees
 * (coll_reduce.h).
 */
#include "coll_reduce.h"

#include <stdlib.h>
#include <string.h>

#include "../util/mem.h"

enum { CH_COMM = 0, CH_SYNC = 1 };
enum { F_INVALID = 1, F_NXN = 2 }; /* a member cannot be analysed; the instance is a plain N x N one */
#define F_ENDS_SHIFT 2               /* then the instance's AN_ENDS_* bits (it has sends / receives) */
#define F_OPS 16                     /* a fence: st is its operations per target (an_cinst_t.ops) */
#define ENTRY_WORDS 14

/* One instance's partial reduction as it travels. */
typedef struct centry {
    uint64_t       key[4];
    uint64_t       mingid, flags;
    st_an_cred_t   r;
    st_an_stair_t *st; /* st_mem_malloc'd, nst entries */
    uint32_t       nst;
} centry_t;

typedef struct chan {
    uint8_t        kind;
    uint64_t       key;
    st_xchg_tree_t t;
    centry_t      *e; /* by key */
    size_t         n, cap;
    uint32_t       arrived[3];
    uint8_t        own[3], up[3], done[3], finished;
} chan_t;

struct an_creduce {
    const st_rel_input_t *in;
    const int32_t        *owner;
    int32_t               me, nprocs;
    chan_t               *ch;
    uint32_t              nch, open;
    an_ctab_t             tab;
    uint32_t             *chan_of; /* [tab.n] */
    an_cpool_t            pool;
};

static int key_cmp4(const uint64_t *a, const uint64_t *b)
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* ---- channels ----------------------------------------------------------------------------------- */

static int add_chan(an_creduce_t *x, uint8_t kind, uint64_t key, const int32_t *procs, uint32_t n)
{
    chan_t c = { .kind = kind, .key = key };
    int rc = st_xchg_tree_build(&c.t, procs, n, NULL, 0, x->nprocs, x->me);
    if (rc)
        return rc < 0 ? -1 : 0;
    chan_t *v = realloc(x->ch, sizeof *v * (x->nch + 1));
    if (!v) {
        st_xchg_tree_free(&c.t);
        return -1;
    }
    x->ch = v;
    x->ch[x->nch++] = c;
    x->open++;
    return 0;
}

static chan_t *find_chan(an_creduce_t *x, uint8_t kind, uint64_t key)
{
    for (uint32_t i = 0; i < x->nch; i++)
        if (x->ch[i].kind == kind && x->ch[i].key == key)
            return &x->ch[i];
    return NULL;
}

/* A communicator's channel over the processes owning its members (both groups). */
static int comm_chan(an_creduce_t *x, const st_comm_def_t *d, int32_t *procs)
{
    uint32_t n = 0;
    for (int side = 0; side < 2; side++) {
        const int32_t *w = side ? d->remote_world : d->world;
        uint32_t nw = side ? d->remote_size : d->size;
        for (uint32_t i = 0; w && i < nw; i++)
            if (w[i] >= 0 && w[i] < x->in->nranks)
                procs[n++] = x->owner[w[i]];
    }
    return add_chan(x, CH_COMM, d->key, procs, n);
}

int an_creduce_new(const st_rel_input_t *in, const int32_t *owner, int32_t me, int32_t nprocs, an_creduce_t **out)
{
    an_creduce_t *x = calloc(1, sizeof *x);
    int32_t *procs = malloc(sizeof *procs * ((size_t)2 * (in->nranks > nprocs ? in->nranks : nprocs) + 1));
    int rc = x && procs ? 0 : -1;
    if (x)
        *x = (an_creduce_t){ .in = in, .owner = owner, .me = me, .nprocs = nprocs };
    for (uint32_t l = 0; rc == 0 && l < in->nlocs; l++) {
        int32_t rank = in->locs[l].rank;
        if ((l && rank == in->locs[l - 1].rank) || rank < 0 || rank >= in->nranks || !in->procs)
            continue;
        const st_rel_proc_t *pr = &in->procs[rank];
        for (uint32_t i = 0; rc == 0 && pr->comms && i < pr->ncomms; i++)
            if (!find_chan(x, CH_COMM, pr->comms[i].key))
                rc = comm_chan(x, &pr->comms[i], procs);
    }
    if (rc == 0 && in->nsync && in->sync) {
        for (int32_t q = 0; q < nprocs; q++)
            procs[q] = q;
        rc = add_chan(x, CH_SYNC, 0, procs, (uint32_t)nprocs);
    }
    free(procs);
    if (rc) {
        an_creduce_free(x);
        x = NULL;
    }
    *out = x;
    return rc;
}

/* ---- entries ------------------------------------------------------------------------------------- */

static void entry_free(centry_t *e) { st_mem_free(e->st); }

/* Merges src into dst (same key). 0, or -1 (memory). */
static int entry_merge(centry_t *dst, const centry_t *src)
{
    dst->mingid = src->mingid < dst->mingid ? src->mingid : dst->mingid;
    dst->flags |= src->flags;
    st_an_cred_merge(&dst->r, &src->r);
    if (!src->nst)
        return 0;
    st_an_stair_t *s = st_mem_malloc(sizeof *s * (dst->nst + src->nst));
    if (!s)
        return -1;
    dst->nst = dst->flags & F_OPS ? st_an_oplist_merge(dst->st, dst->nst, src->st, src->nst, s)
                                  : st_an_stair_merge(dst->st, dst->nst, src->st, src->nst, s);
    st_mem_free(dst->st);
    dst->st = s;
    return 0;
}

static int push_entry(chan_t *c, const centry_t *e)
{
    if (st_mem_grow((void **)&c->e, &c->cap, c->n + 1, sizeof *c->e))
        return -1;
    c->e[c->n++] = *e;
    return 0;
}

static centry_t *find_entry(chan_t *c, const uint64_t key[4])
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = key_cmp4(c->e[mid].key, key);
        if (k == 0)
            return &c->e[mid];
        if (k < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void clear_entries(chan_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        entry_free(&c->e[i]);
    c->n = 0;
}

/* Whether entry e needs the second round (the partial N x N rule's earliest end). */
static int needs_round2(const centry_t *e)
{
    return (e->flags & F_NXN) && !(e->flags & F_INVALID) && st_an_cred_round2(&e->r, ST_REL_CC_N2N, 0, 0);
}

/* ---- this process's instances -------------------------------------------------------------------- */

static int cmp_ep(const void *a, const void *b)
{
    const st_rel_endpoint_t *x = *(const st_rel_endpoint_t *const *)a, *y = *(const st_rel_endpoint_t *const *)b;
    int k = key_cmp4(x->key, y->key);
    if (k)
        return k;
    if (x->role != y->role)
        return x->role == ST_REL_SEND ? -1 : 1; /* sends first, as in the graph */
    return 0;
}

/* The channel entry of a local instance: its own reduction. */
static int own_entry(an_creduce_t *x, size_t i, an_ctx_t *c)
{
    an_cinst_t *v = &x->tab.v[i];
    chan_t *ch = v->type == ST_REL_KEY_SYNC ? find_chan(x, CH_SYNC, 0) : find_chan(x, CH_COMM, v->key[2]);
    x->chan_of[i] = ch ? (uint32_t)(ch - x->ch) : UINT32_MAX;
    if (!ch)
        return 0; /* a communicator nobody knows: the instance is reduced over this process's members */
    centry_t e = { .mingid = v->mingid,
                   .flags = (v->valid ? 0 : F_INVALID) | (v->ops ? F_OPS : 0) | (uint64_t)v->ends << F_ENDS_SHIFT,
                   .r = v->r, .nst = v->nst };
    memcpy(e.key, v->key, sizeof e.key);
    int inter = 0;
    if (!v->nonblocking && v->valid && v->type == ST_REL_KEY_COLL && v->end_ev != AN_NO_EV) {
        const st_event_t *end = &c->in->locs[v->end_loc].ev[v->end_ev];
        an_coll_analysed(c, v->end_loc, end, 0, &inter);
        if (!inter && end->op != 0 && st_rel_coll_class(end->op) == ST_REL_CC_N2N)
            e.flags |= F_NXN;
    }
    if (e.nst && !(e.st = st_mem_malloc(sizeof *e.st * e.nst)))
        return -1;
    if (e.nst)
        memcpy(e.st, x->pool.st + v->st_at, sizeof *e.st * e.nst);
    return push_entry(ch, &e);
}

static int cmp_entry(const void *a, const void *b)
{
    return key_cmp4(((const centry_t *)a)->key, ((const centry_t *)b)->key);
}

int an_creduce_local(an_creduce_t *x, an_ctx_t *c, const st_rel_endpoint_t *ep, size_t n)
{
    const st_rel_endpoint_t **v = st_mem_malloc(sizeof *v * (n + 1));
    st_rel_ref_t *refs = st_mem_malloc(sizeof *refs * (n + 1));
    size_t nc = 0, ninst = 0;
    int rc = v && refs ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (ep[k].kind == ST_REL_COLL && (ep[k].role == ST_REL_SEND || ep[k].role == ST_REL_RECV))
            v[nc++] = &ep[k];
    if (rc == 0 && nc > 1)
        an_sort(v, nc, sizeof *v, cmp_ep);
    for (size_t i = 0, j; rc == 0 && i < nc; i = j) {
        for (j = i + 1; j < nc && key_cmp4(v[i]->key, v[j]->key) == 0; j++)
            ;
        ninst++;
    }
    if (rc == 0 && (!(x->tab.v = calloc(ninst + 1, sizeof *x->tab.v)) ||
                    !(x->chan_of = calloc(ninst + 1, sizeof *x->chan_of))))
        rc = -1;
    for (size_t i = 0, j; rc == 0 && i < nc; i = j) {
        uint32_t ns = 0, nr = 0;
        for (j = i; j < nc && key_cmp4(v[i]->key, v[j]->key) == 0; j++)
            refs[j - i] = v[j]->ref, v[j]->role == ST_REL_SEND ? ns++ : nr++;
        an_cinst_t *in = &x->tab.v[x->tab.n++];
        in->type = (uint8_t)(v[i]->key[0] >> 56);
        memcpy(in->key, v[i]->key, sizeof in->key);
        rc = an_cinst_build(c, in, refs, ns, nr, v[i]->shape, &x->pool);
        in->ends = (uint8_t)((ns ? AN_ENDS_SEND : 0) | (nr ? AN_ENDS_RECV : 0));
    }
    for (size_t i = 0; rc == 0 && i < x->tab.n; i++)
        rc = own_entry(x, i, c);
    for (uint32_t k = 0; rc == 0 && k < x->nch; k++)
        if (x->ch[k].n > 1)
            qsort(x->ch[k].e, x->ch[k].n, sizeof *x->ch[k].e, cmp_entry);
    st_mem_free(v), st_mem_free(refs);
    return rc;
}

/* ---- records ------------------------------------------------------------------------------------- */

static int send_entries(const chan_t *c, int round, uint8_t type, int32_t to, st_xchg_out_t *out)
{
    size_t len = 0;
    for (size_t i = 0; i < c->n; i++)
        len += 8 * (ENTRY_WORDS + 4 * (size_t)c->e[i].nst);
    st_xchg_rec_t h = { .type = type, .phase = (uint8_t)round, .chkind = c->kind, .chan = c->key, .seq = c->n };
    uint8_t *p = st_xchg_record(out, to, &h, len);
    if (!p)
        return -1;
    for (size_t i = 0; i < c->n; i++) {
        const centry_t *e = &c->e[i];
        const uint64_t w[ENTRY_WORDS] = { e->key[0], e->key[1], e->key[2], e->key[3], e->mingid, e->flags,
                                          e->r.bmax, e->r.emin, e->r.sb, e->r.sk[0], e->r.sk[1], e->r.sk[2],
                                          e->r.emin2, e->nst };
        memcpy(p, w, sizeof w), p += sizeof w;
        if (e->nst)
            memcpy(p, e->st, sizeof *e->st * e->nst), p += sizeof *e->st * e->nst;
    }
    return 0;
}

static int read_entry(st_xchg_reader_t *rd, centry_t *e)
{
    uint64_t w[ENTRY_WORDS];
    memset(e, 0, sizeof *e);
    if (st_xchg_get(rd, w, sizeof w) || w[13] > (uint64_t)(rd->end - rd->p) / sizeof *e->st)
        return -1;
    memcpy(e->key, w, sizeof e->key);
    e->mingid = w[4], e->flags = w[5];
    e->r = (st_an_cred_t){ w[6], w[7], w[8], { w[9], w[10], w[11] }, w[12] };
    e->nst = (uint32_t)w[13];
    if (e->nst && !(e->st = st_mem_malloc(sizeof *e->st * e->nst)))
        return -1;
    return e->nst ? st_xchg_get(rd, e->st, sizeof *e->st * e->nst) : 0;
}

static int result(an_creduce_t *x, chan_t *c, int round, st_xchg_out_t *out);

/* Sends the round up once this process's and every child's part are in; at the root, the result. */
static int try_complete(an_creduce_t *x, chan_t *c, int round, st_xchg_out_t *out)
{
    if (!c->own[round] || c->arrived[round] < c->t.nchild || c->up[round] || c->done[round])
        return 0;
    if (c->t.parent < 0)
        return result(x, c, round, out);
    c->up[round] = 1;
    return send_entries(c, round, AN_CRED_R_UP, c->t.parent, out);
}

/* This process's second-round part: the partial N x N rule's earliest end over its members. */
static void own_round2(an_creduce_t *x, chan_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        c->e[i].r.emin2 = UINT64_MAX;
    for (size_t i = 0; i < x->tab.n; i++) {
        const an_cinst_t *v = &x->tab.v[i];
        centry_t *e = x->chan_of[i] == (uint32_t)(c - x->ch) ? find_entry(c, v->key) : NULL;
        if (!e || !needs_round2(e))
            continue;
        for (uint32_t k = 0; k < v->n; k++)
            st_an_cred_add2(&e->r, &x->pool.m[v->m_at + k].m);
    }
}

/* The round's result is here (c->e): down to the children, then the next round or the end. */
static int result(an_creduce_t *x, chan_t *c, int round, st_xchg_out_t *out)
{
    c->done[round] = 1;
    for (uint32_t i = 0; i < c->t.nchild; i++)
        if (send_entries(c, round, AN_CRED_R_DOWN, c->t.child[i], out))
            return -1;
    int again = 0;
    for (size_t i = 0; round == 1 && i < c->n && !again; i++)
        again = needs_round2(&c->e[i]);
    if (again) {
        own_round2(x, c);
        c->own[2] = 1;
        return try_complete(x, c, 2, out);
    }
    c->finished = 1;
    x->open--;
    return 0;
}

int an_creduce_start(an_creduce_t *x, st_xchg_out_t *out)
{
    for (uint32_t k = 0; k < x->nch; k++) {
        x->ch[k].own[1] = 1;
        if (try_complete(x, &x->ch[k], 1, out))
            return -1;
    }
    return 0;
}

/* Merges a child's sorted entries into c's. 0, or -1 (memory). */
static int merge_up(chan_t *c, centry_t *in, size_t n)
{
    centry_t *v = st_mem_malloc(sizeof *v * (c->n + n + 1));
    size_t i = 0, j = 0, m = 0;
    int rc = v ? 0 : -1;
    while (rc == 0 && (i < c->n || j < n)) {
        int k = i == c->n ? 1 : j == n ? -1 : key_cmp4(c->e[i].key, in[j].key);
        if (k < 0)
            v[m++] = c->e[i++];
        else if (k > 0)
            v[m++] = in[j], in[j++].st = NULL;
        else {
            v[m] = c->e[i++];
            rc = entry_merge(&v[m++], &in[j++]);
        }
    }
    if (rc) {
        st_mem_free(v);
        return -1;
    }
    st_mem_free(c->e);
    c->e = v, c->n = m, c->cap = c->n + n + 1;
    return 0;
}

int an_creduce_record(an_creduce_t *x, const st_xchg_rec_t *h, st_xchg_reader_t *rd, st_xchg_out_t *out)
{
    chan_t *c = find_chan(x, h->chkind, h->chan);
    int round = h->phase, down = h->type == AN_CRED_R_DOWN;
    if (!c || round < 1 || round > 2 || h->seq > h->len / (8 * ENTRY_WORDS) || c->done[round] ||
        (!down && (c->arrived[round] >= c->t.nchild || (round == 2 && !c->done[1]))))
        return -1;
    centry_t *in = st_mem_calloc(h->seq + 1, sizeof *in);
    int rc = in ? 0 : -1;
    size_t n = 0;
    for (; rc == 0 && n < h->seq; n++)
        if ((rc = read_entry(rd, &in[n])) == 0 && n && key_cmp4(in[n - 1].key, in[n].key) >= 0)
            rc = -1;
    if (rc == 0 && down) {
        clear_entries(c);
        for (size_t i = 0; rc == 0 && i < n; i++)
            if ((rc = push_entry(c, &in[i])) == 0)
                in[i].st = NULL;
        rc = rc ? rc : result(x, c, round, out);
    } else if (rc == 0) {
        rc = merge_up(c, in, n);
        c->arrived[round]++;
        rc = rc ? rc : try_complete(x, c, round, out);
    }
    for (size_t i = 0; in && i <= n && i < h->seq; i++)
        entry_free(&in[i]);
    st_mem_free(in);
    return rc;
}

int an_creduce_done(const an_creduce_t *x) { return x->open == 0; }

uint32_t an_creduce_open(const an_creduce_t *x) { return x->open; }

const an_ctab_t *an_creduce_table(an_creduce_t *x)
{
    for (size_t i = 0; i < x->tab.n; i++) {
        an_cinst_t *v = &x->tab.v[i];
        v->m = x->pool.m + v->m_at, v->st = x->pool.st + v->st_at;
        v->counted = 1;
        if (x->chan_of[i] == UINT32_MAX)
            continue;
        const centry_t *e = find_entry(&x->ch[x->chan_of[i]], v->key);
        if (!e)
            continue;
        v->r = e->r, v->st = e->st, v->nst = e->nst;
        v->valid = v->valid && !(e->flags & F_INVALID);
        v->ends = (uint8_t)(e->flags >> F_ENDS_SHIFT & (AN_ENDS_SEND | AN_ENDS_RECV));
        v->counted = v->mingid == e->mingid;
    }
    return &x->tab;
}

void an_creduce_free(an_creduce_t *x)
{
    if (!x)
        return;
    for (uint32_t k = 0; k < x->nch; k++) {
        clear_entries(&x->ch[k]);
        st_mem_free(x->ch[k].e);
        st_xchg_tree_free(&x->ch[k].t);
    }
    free(x->ch);
    free(x->tab.v);
    free(x->chan_of);
    st_mem_free(x->pool.m), st_mem_free(x->pool.st);
    free(x);
}
