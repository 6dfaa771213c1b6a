/*
 * derived.c — a derivation kept for a second reader (derived.h): the OpenMP ends a derivation
 * with omit_self_ends left out, and CLC's derivation of one process read back as endpoints in
 * the join's order, merged with those left-out ends, for the in-run analysis.
 */
#include "derive_int.h"

/* ---- the left-out OpenMP ends ---------------------------------------------------------------- */

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


/* ---- the derivation read back --------------------------------------------------------------- */

void st_rel_derived_free(st_rel_derived_t *d)
{
    st_rel_graph_free(&d->g);
    st_rel_self_ends_free(&d->self_ends);
    st_rel_epsrc_free(&d->omp);
    st_rel_epsrc_free(&d->p2p);
    d->nahead = d->at = 0;
}

size_t st_rel_derived_count(const st_rel_derived_t *d)
{
    size_t n = d->g.nrefs + d->omp.n + d->p2p.n;
    for (unsigned t = 0; t < ST_REL_KEY_TYPES; t++)
        n += d->self_ends.type[t].n;
    return n;
}

/* Endpoint j of the graph's instance k (refs in the join's order, sends first). */
static st_rel_endpoint_t graph_endpoint(const st_rel_graph_t *g, const st_rel_inst_t *in, uint64_t j)
{
    st_rel_endpoint_t e = { .ref = g->refs[j], .time = g->ref_time ? g->ref_time[j] : 0,
                            .role = j < in->first + in->nsend ? ST_REL_SEND : ST_REL_RECV,
                            .kind = in->kind, .shape = in->shape, .mumask = in->mumask };
    memcpy(e.key, in->key, sizeof e.key);
    return e;
}

/* The next self end at or after pos (by type, then in order) into *e: 0, or -1 when there is none. */
static int next_self(const st_rel_self_ends_t *s, st_rel_derived_pos_t *pos, st_rel_endpoint_t *e)
{
    for (; pos->t < ST_REL_KEY_TYPES; pos->t++, pos->s = 0)
        if (pos->s < s->type[pos->t].n) {
            *e = st_rel_self_endpoint(s, pos->t, pos->s);
            return 0;
        }
    return -1;
}

/* The next endpoint of src through d's read-ahead into *e, not taken yet: 0, or -1 at its end. */
static int ahead_next(st_rel_derived_t *d, st_rel_epsrc_t *src, st_rel_endpoint_t *e)
{
    if (d->at == d->nahead) {
        d->nahead = st_rel_epsrc_read(src, d->ahead, ST_REL_DERIVED_AHEAD);
        d->at = 0;
    }
    if (d->at == d->nahead)
        return -1;
    *e = d->ahead[d->at];
    return 0;
}

/* The next endpoint of the point-to-point ends left out of the graph (their key type is the
 * first), of the graph, then of the OpenMP ends left out of it (whose key types come after all
 * of the graph's), into *e, not taken yet: 0, or -1 at the end. */
static int next_main(st_rel_derived_t *d, st_rel_derived_pos_t *pos, st_rel_endpoint_t *e)
{
    const st_rel_graph_t *g = &d->g;
    if (!pos->p2p_read) {
        if (ahead_next(d, &d->p2p, e) == 0)
            return 0;
        pos->p2p_read = 1;
    }
    for (; pos->k < g->ninst; pos->k++, pos->j = 0)
        if (pos->j < (uint64_t)g->inst[pos->k].nsend + g->inst[pos->k].nrecv) {
            *e = graph_endpoint(g, &g->inst[pos->k], g->inst[pos->k].first + pos->j);
            return 0;
        }
    return ahead_next(d, &d->omp, e);
}

/* Takes the endpoint next_main gave: from the read-ahead (a left-out one) or the graph. */
static void take_main(st_rel_derived_t *d, st_rel_derived_pos_t *pos)
{
    if (pos->p2p_read && pos->k < d->g.ninst)
        pos->j++;
    else
        d->at++;
}

size_t st_rel_derived_read(st_rel_derived_t *d, st_rel_derived_pos_t *pos, st_rel_endpoint_t *buf, size_t max)
{
    if (!pos->begun) { /* the left-out ends from their first, too */
        st_rel_epsrc_rewind(&d->p2p);
        st_rel_epsrc_rewind(&d->omp);
        d->nahead = d->at = 0;
        pos->begun = 1;
    }
    /* The left-out point-to-point ends come first (key type ST_REL_KEY_P2P; the self ends are OpenMP
     * ones, of later types): straight from their source, without the merge's copies. */
    if (max && !pos->p2p_read && d->at == d->nahead && (!pos->below || pos->below > ST_REL_KEY_P2P)) {
        size_t got = st_rel_epsrc_read(&d->p2p, buf, max);
        if (got)
            return got;
        pos->p2p_read = 1;
    }
    size_t n = 0;
    st_rel_endpoint_t x, e;
    int have = next_self(&d->self_ends, pos, &x) == 0, more = -1; /* -1: e not looked at since the last take */
    /* the left-out point-to-point ends, the graph's instances (in key order, their refs in the
     * join's) and the left-out OpenMP ends come in the join's order: one merge with the self ends
     * (each side's next endpoint made once, however many of the other's go before it) */
    while (n < max) {
        if (more < 0)
            more = next_main(d, pos, &e) == 0;
        if (have && (!more || st_rel_endpoint_cmp(&x, &e) < 0)) {
            if (pos->below && x.key[0] >> 56 >= pos->below)
                break;
            buf[n++] = x, pos->s++;
            have = next_self(&d->self_ends, pos, &x) == 0;
        } else if (more) {
            if (pos->below && e.key[0] >> 56 >= pos->below)
                break;
            buf[n++] = e;
            take_main(d, pos);
            more = -1;
        } else {
            break;
        }
    }
    return n;
}

typedef struct derived_src {
    st_rel_derived_t     *d;
    st_rel_derived_pos_t *pos;
} derived_src_t;

static size_t derived_src_read(void *ctx, st_rel_endpoint_t *buf, size_t max)
{
    derived_src_t *s = ctx;
    return st_rel_derived_read(s->d, s->pos, buf, max);
}

static void derived_src_free(void *ctx) { st_mem_free(ctx); }

int st_rel_derived_src(st_rel_derived_t *d, st_rel_derived_pos_t *pos, size_t read, st_rel_epsrc_t *src)
{
    derived_src_t *s = st_mem_malloc(sizeof *s);
    size_t n = st_rel_derived_count(d);
    *src = (st_rel_epsrc_t){ 0 };
    if (!s)
        return -1;
    *s = (derived_src_t){ d, pos };
    pos->below = 0;
    *src = (st_rel_epsrc_t){ derived_src_read, NULL, derived_src_free, s, n > read ? n - read : 0 };
    return 0;
}
