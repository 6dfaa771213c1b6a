/*
 * replay_tree.c — the collective channels (replay_int.h) and their reduction trees: a
 * channel per communicator (two for an intercommunicator, one per receiving group) plus one
 * for MPI_Init/Finalize, its binomial tree over the members (exchange.h), the setup reduction
 * of the number of instances N, the per-phase arrays, and the tree operations: the payload of
 * an instance (shape, quads or scan entries), merging contributions, passing an operation up
 * when this rank's own part and its children's are in, and down from the root as the result
 * (rp_result_ready).
 */
#include "replay_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/log.h"

static int cmp_chan(const void *a, const void *b)
{
    const chan_t *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

chan_t *rp_find_chan(st_clc_replay_t *r, uint8_t kind, uint64_t key)
{
    chan_t k = { .kind = kind, .key = key };
    return r->nch ? bsearch(&k, r->ch, r->nch, sizeof k, cmp_chan) : NULL;
}

entvec_t *rp_ents(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s)
{
    phase_t *P = &c->ph[ph];
    if (!P->ent && !(P->ent = st_mem_calloc(c->N ? c->N : 1, sizeof *P->ent)))
        return rp_fail(r, "out of memory"), NULL;
    return &P->ent[s];
}

uint8_t rp_merge_shape(st_clc_replay_t *r, uint8_t a, uint8_t b)
{
    if (a != SH_EMPTY && b != SH_EMPTY && a != b)
        st_log_warn_once("CLC (parallel, rank %d): members disagree whether a collective is a scan", r->me);
    return a > b ? a : b;
}

static size_t seq_size(chan_t *c, int ph, uint64_t s)
{
    size_t n = 8;
    if (c->ph[ph].shape[s] == SH_PRODUCT)
        n += nq_of(ph) * sizeof(top2_t);
    else if (c->ph[ph].shape[s] == SH_PREFIX)
        n += 8 + (c->ph[ph].ent ? c->ph[ph].ent[s].n : 0) * (1 + ph_nv[ph]) * 8;
    return n;
}

static uint8_t *put_seq(chan_t *c, int ph, uint64_t s, uint8_t *p)
{
    uint8_t sh = c->ph[ph].shape[s];
    p = st_xchg_put_u64(p, sh);
    if (sh == SH_PRODUCT) {
        memcpy(p, qof(c, ph, s), nq_of(ph) * sizeof(top2_t));
        p += nq_of(ph) * sizeof(top2_t);
    } else if (sh == SH_PREFIX) {
        const entvec_t *e = c->ph[ph].ent ? &c->ph[ph].ent[s] : NULL;
        size_t n = e ? e->n : 0;
        p = st_xchg_put_u64(p, n);
        for (size_t i = 0; i < n; i++) {
            p = st_xchg_put_u64(p, e->v[i].order);
            for (unsigned j = 0; j < ph_nv[ph]; j++)
                p = st_xchg_put_u64(p, e->v[i].v[j]);
        }
    }
    return p;
}

/* Merges (replace == 0) or sets (replace != 0) instance s from the reader. */
static int read_seq(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s, reader_t *rd, int replace)
{
    uint64_t sh, n;
    if (st_xchg_get_u64(rd, &sh) || sh > SH_PREFIX)
        return -1;
    phase_t *P = &c->ph[ph];
    top2_t *q = qof(c, ph, s);
    if (replace) {
        for (size_t i = 0; i < nq_of(ph); i++)
            q[i] = quad_empty;
        if (P->ent)
            P->ent[s].n = 0;
        P->shape[s] = SH_EMPTY;
    }
    P->shape[s] = rp_merge_shape(r, P->shape[s], (uint8_t)sh);
    if (sh == SH_PRODUCT) {
        size_t bytes = nq_of(ph) * sizeof(top2_t);
        if ((size_t)(rd->end - rd->p) < bytes)
            return -1;
        for (size_t i = 0; i < nq_of(ph); i++) {
            top2_t x;
            memcpy(&x, rd->p + i * sizeof x, sizeof x);
            quad_merge(&q[i], &x);
        }
        rd->p += bytes;
    } else if (sh == SH_PREFIX) {
        if (st_xchg_get_u64(rd, &n) || n > (uint64_t)(rd->end - rd->p) / 8)
            return -1;
        entvec_t *e = rp_ents(r, c, ph, s);
        if (!e)
            return -1;
        for (uint64_t i = 0; i < n; i++) {
            ent_t x = { 0 };
            if (st_xchg_get_u64(rd, &x.order))
                return -1;
            for (unsigned j = 0; j < ph_nv[ph]; j++)
                if (st_xchg_get_u64(rd, &x.v[j]))
                    return -1;
            if (rp_ent_push(e, x))
                return rp_fail(r, "out of memory"), -1;
        }
    }
    return 0;
}

static int phase_arrays(st_clc_replay_t *r, chan_t *c, int ph);

static void send_op(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns, int32_t to, uint8_t type)
{
    size_t len = 0;
    for (uint64_t s = s0; s < s0 + ns; s++)
        len += seq_size(c, ph, s);
    uint8_t *p = rp_rec_begin(r, to, type, (uint8_t)ph, c, s0, (uint32_t)ns, len);
    for (uint64_t s = s0; p && s < s0 + ns; s++)
        p = put_seq(c, ph, s, p);
}

static uint64_t op_len(const chan_t *c, int ph) { return ph == PH_F ? 1 : c->N; }

/* Sends the operation up, or at the root turns it into the result and sends it down. */
static void try_complete(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0)
{
    tracker_t *t = tracker(c, ph, s0);
    if (!t->own || t->arrived < c->t.nchild || t->up || t->done)
        return;
    uint64_t ns = op_len(c, ph);
    if (c->t.parent >= 0) {
        send_op(r, c, ph, s0, ns, c->t.parent, R_UP);
        t->up = 1;
        return;
    }
    t->done = 1;
    for (uint32_t i = 0; i < c->t.nchild; i++)
        send_op(r, c, ph, s0, ns, c->t.child[i], R_DOWN);
    rp_result_ready(r, c, ph, s0, ns);
}

void rp_own_done(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0)
{
    if (ph == PH_F)
        c->ph[ph].shape[s0] = rp_merge_shape(r, c->ph[ph].shape[s0], c->lshape[s0]);
    tracker(c, ph, s0)->own = 1;
    try_complete(r, c, ph, s0);
}

int rp_on_op(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    int ph = h->phase;
    uint64_t ns = op_len(c, ph);
    if (ph >= PH__N || h->nseq != ns || h->seq >= c->N || h->seq + ns > c->N)
        return -1;
    if (phase_arrays(r, c, ph))
        return -1;
    tracker_t *t = tracker(c, ph, h->seq);
    if (t->done)
        return -1;
    int down = h->type == R_DOWN;
    for (uint64_t s = h->seq; s < h->seq + ns; s++)
        if (read_seq(r, c, ph, s, rd, down))
            return -1;
    if (!down) {
        t->arrived++;
        try_complete(r, c, ph, h->seq);
        return 0;
    }
    t->done = 1;
    for (uint32_t i = 0; i < c->t.nchild; i++)
        send_op(r, c, ph, h->seq, ns, c->t.child[i], R_DOWN);
    rp_result_ready(r, c, ph, h->seq, ns);
    return 0;
}

/* Setup: every member's number of instances; the max is N. */
static int alloc_channel(st_clc_replay_t *r, chan_t *c);

static void setup_done(st_clc_replay_t *r, chan_t *c, uint64_t n)
{
    c->setup.done = 1;
    if (n > MAX_SEQ) {
        rp_fail(r, "communicator %llx claims %llu collective instances", (unsigned long long)c->key,
             (unsigned long long)n);
        return;
    }
    c->N = n;
    for (uint32_t i = 0; i < c->t.nchild; i++) {
        uint8_t *p = rp_rec_begin(r, c->t.child[i], R_SETUP_DOWN, 0, c, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, n);
    }
    if (alloc_channel(r, c) == 0)
        r->setup_open--;
}

void rp_setup_try(st_clc_replay_t *r, chan_t *c)
{
    tracker_t *t = &c->setup;
    if (!t->own || t->arrived < c->t.nchild || t->up || t->done)
        return;
    if (c->t.parent < 0) {
        setup_done(r, c, c->local_n);
        return;
    }
    uint8_t *p = rp_rec_begin(r, c->t.parent, R_SETUP_UP, 0, c, 0, 0, 8);
    if (p)
        st_xchg_put_u64(p, c->local_n);
    t->up = 1;
}

int rp_on_setup(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    uint64_t v;
    if (st_xchg_get_u64(rd, &v) || c->setup.done)
        return -1;
    if (h->type == R_SETUP_DOWN) {
        setup_done(r, c, v);
        return 0;
    }
    if (v > c->local_n)
        c->local_n = v;
    c->setup.arrived++;
    rp_setup_try(r, c);
    return 0;
}

/* Sorted, unique members; tree position of this rank. Returns 0, 1 (not a member: skip) or -1. */
static int chan_members(st_clc_replay_t *r, chan_t *c, const int32_t *a, uint32_t na, const int32_t *b, uint32_t nb)
{
    return st_xchg_tree_build(&c->t, a, na, b, nb, r->nranks, r->me);
}

void rp_chan_free(chan_t *c)
{
    st_xchg_tree_free(&c->t);
    st_mem_free(c->pend);
    st_mem_free(c->inst0);
    st_mem_free(c->inst1);
    st_mem_free(c->lshape);
    for (int ph = 0; ph < PH__N; ph++) {
        phase_t *P = &c->ph[ph];
        if (P->ent)
            for (uint64_t s = 0; s < c->N; s++)
                st_mem_free(P->ent[s].v);
        st_mem_free(P->ent);
        st_mem_free(P->tr);
        st_mem_free(P->q);
        st_mem_free(P->shape);
    }
}

static int add_chan(st_clc_replay_t *r, uint8_t kind, uint64_t key, int inter, const int32_t *a, uint32_t na,
                    const int32_t *b, uint32_t nb)
{
    chan_t c = { .kind = kind, .key = key, .inter = (uint8_t)inter };
    int rc = chan_members(r, &c, a, na, b, nb);
    if (rc != 0) {
        rp_chan_free(&c);
        return rc < 0 ? -1 : 0;
    }
    chan_t *v = st_mem_realloc(r->ch, (r->nch + 1) * sizeof *v);
    if (!v) {
        rp_chan_free(&c);
        return -1;
    }
    r->ch = v;
    r->ch[r->nch++] = c;
    return 0;
}

int rp_build_channels(st_clc_replay_t *r)
{
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    for (uint32_t i = 0; i < pr->ncomms; i++) {
        const st_comm_def_t *d = &pr->comms[i];
        int dup = 0;
        for (uint32_t j = 0; j < r->nch && !dup; j++)
            dup = r->ch[j].kind != CH_WIN && r->ch[j].key == d->key;
        int inter = (d->flags & ST_COMMF_INTER) || d->remote_size;
        for (uint8_t kind = CH_COMM; !dup && kind <= (inter ? CH_INTER1 : CH_COMM); kind += CH_INTER1)
            if (add_chan(r, kind, d->key, inter, d->world, d->world ? d->size : 0, d->remote_world,
                         d->remote_world ? d->remote_size : 0))
                return -1;
        for (uint32_t w = 0; !dup && !inter && w < d->nwins; w++) /* its windows (the same on every member) */
            if (add_chan(r, CH_WIN, st_rel_win_key(d->key, w), 0, d->world, d->world ? d->size : 0, NULL, 0))
                return -1;
    }
    if (r->in->nsync && r->in->sync) {
        int32_t *all = st_mem_malloc(sizeof(int32_t) * (size_t)r->nranks);
        if (!all)
            return -1;
        for (int32_t q = 0; q < r->nranks; q++)
            all[q] = q;
        int rc = add_chan(r, CH_SYNC, 0, 0, all, (uint32_t)r->nranks, NULL, 0);
        st_mem_free(all);
        if (rc)
            return -1;
        chan_t *c = &r->ch[r->nch - 1];
        for (uint32_t s = 0; s < r->in->nsync; s++)
            if (r->in->sync[s].group + 1ull > c->local_n)
                c->local_n = r->in->sync[s].group + 1ull;
    }
    if (r->nch > 1)
        qsort(r->ch, r->nch, sizeof *r->ch, cmp_chan);
    return 0;
}

/*
 * A phase's arrays, made when the phase is first used, here or by a partner's record: converged
 * bulk rounds (the usual run) use only PH_R; the replay PH_F and PH_B, the statistics exchange
 * PH_S. Together they are 192 bytes per collective instance, all written at creation.
 * 0, or -1 (failed).
 */
static int phase_arrays(st_clc_replay_t *r, chan_t *c, int ph)
{
    phase_t *P = &c->ph[ph];
    if (P->q)
        return 0;
    size_t n = c->N ? c->N : 1, nq = nq_of(ph);
    P->tr = st_mem_calloc(ph == PH_F ? n : 1, sizeof *P->tr);
    P->q = st_mem_malloc(n * nq * sizeof *P->q);
    P->shape = st_mem_calloc(n, 1);
    if (!P->tr || !P->q || !P->shape) {
        st_mem_free(P->tr), st_mem_free(P->q), st_mem_free(P->shape);
        P->tr = NULL, P->q = NULL, P->shape = NULL;
        rp_fail(r, "out of memory (%llu collective instances)", (unsigned long long)c->N);
        return -1;
    }
    for (size_t i = 0; i < n * nq; i++)
        P->q[i] = quad_empty;
    return 0;
}

/* The arrays of phase ph of every channel that has instances: 0, or -1 (failed). */
int rp_phases_arrays(st_clc_replay_t *r, int ph)
{
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N && phase_arrays(r, &r->ch[i], ph))
            return -1;
    return 0;
}

static int alloc_channel(st_clc_replay_t *r, chan_t *c)
{
    size_t n = c->N ? c->N : 1;
    c->pend = st_mem_calloc(n, sizeof *c->pend);
    c->inst0 = st_mem_malloc(n * sizeof *c->inst0);
    c->inst1 = st_mem_malloc(n * sizeof *c->inst1);
    c->lshape = st_mem_calloc(n, 1);
    if (!c->pend || !c->inst0 || !c->inst1 || !c->lshape) {
        rp_fail(r, "out of memory (%llu collective instances)", (unsigned long long)c->N);
        return -1;
    }
    for (int ph = 0; ph < PH__N; ph++)
        c->ph[ph].open = ph == PH_F ? c->N : (c->N ? 1 : 0);
    for (size_t s = 0; s < n; s++)
        c->inst0[s] = c->inst1[s] = NONE64;
    return 0;
}

void rp_reset_phase(chan_t *c, int ph)
{
    phase_t *P = &c->ph[ph];
    P->open = c->N ? 1 : 0;
    if (!c->N)
        return; /* no arrays (phase_arrays) */
    memset(P->tr, 0, sizeof *P->tr);
    for (size_t i = 0; i < c->N * nq_of(ph); i++)
        P->q[i] = quad_empty;
    memset(P->shape, 0, c->N ? c->N : 1);
    for (uint64_t s = 0; P->ent && s < c->N; s++)
        P->ent[s].n = 0;
}
