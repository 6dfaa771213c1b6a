/*
 * sources.c — where the derivation's endpoints wait and how they come out (derive.c): the side
 * vectors of each key type, merged into the output in the join's order (their endpoints come
 * one location after the other, each location's in order: a few sorted runs), or, for the
 * CLC engine's own join (st_rel_endpoints_split), the OpenMP ones handed out by a source in
 * that order instead of being written out; and the generic source calls (st_rel_epsrc_*).
 */
#include "derive_int.h"

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

void rel_append_sides(ctx_t *c, st_rel_epvec_t *out)
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

/* (MAX_RUNS sorted runs at most per key type; the source takes the vectors in rel_sides_finish.) */
int rel_omp_src_prepare(ctx_t *c)
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

void rel_sides_finish(ctx_t *c, int ok, st_rel_epsrc_t *omp)
{
    int src = ok && c->omp_src;
    for (int t = 0; t < ST_REL_KEY_TYPES; t++) {
        st_rel_epvec_free(&c->side[t]);
        if (src)
            c->omp_src->oside[t] = c->oside[t];
        else
            st_mem_free(c->oside[t].v);
    }
    if (src)
        *omp = (st_rel_epsrc_t){ omp_src_read, omp_src_rewind, omp_src_free, c->omp_src, c->omp_src->n };
    else
        st_mem_free(c->omp_src);
}

/* ---- any source --------------------------------------------------------------------------------- */

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
