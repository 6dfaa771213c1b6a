/*
 * coll_waits.c — waits of the members of one collective instance (patterns.h). Pure: the
 * members' times are reduced (st_an_cred_*) by the serial driver (coll.c) over all members,
 * by the parallel one (coll_reduce.c) over the communicator's tree; each member's wait is then
 * a function of its own times and the reduction (st_an_coll_wait), the same code for both.
 */
#include "patterns.h"

#include <string.h>

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void st_an_cred_init(st_an_cred_t *r)
{
    *r = (st_an_cred_t){ .bmax = 0, .emin = UINT64_MAX, .sb = 0, .sk = { ST_AN_NO_KEY, 0, 0 }, .emin2 = UINT64_MAX };
}

/* Whether a sender beginning at b with key k is later than r's latest (the first of equal begins). */
static int later_sender(const st_an_cred_t *r, uint64_t b, const uint64_t k[3])
{
    return r->sk[0] == ST_AN_NO_KEY || b > r->sb || (b == r->sb && st_an_key_cmp(k, r->sk) < 0);
}

void st_an_cred_add(st_an_cred_t *r, const st_an_member_t *m)
{
    uint64_t k[3];
    st_an_member_key(m, k);
    r->bmax = m->b > r->bmax ? m->b : r->bmax;
    r->emin = m->e < r->emin ? m->e : r->emin;
    if (m->send && later_sender(r, m->b, k))
        r->sb = m->b, memcpy(r->sk, k, sizeof k);
}

void st_an_cred_merge(st_an_cred_t *r, const st_an_cred_t *x)
{
    r->bmax = x->bmax > r->bmax ? x->bmax : r->bmax;
    r->emin = x->emin < r->emin ? x->emin : r->emin;
    r->emin2 = x->emin2 < r->emin2 ? x->emin2 : r->emin2;
    if (x->sk[0] != ST_AN_NO_KEY && later_sender(r, x->sb, x->sk))
        r->sb = x->sb, memcpy(r->sk, x->sk, sizeof r->sk);
}

int st_an_cred_round2(const st_an_cred_t *r, enum st_rel_coll_class cc, int barrier, int inter)
{
    return !inter && !barrier && cc == ST_REL_CC_N2N && !(r->emin > r->bmax) && r->sk[0] != ST_AN_NO_KEY;
}

/* Whether m synchronizes under the partial N x N rule: the latest sender, or a receiver before it. */
static int partial_member(const st_an_cred_t *r, const st_an_member_t *m)
{
    uint64_t k[3];
    st_an_member_key(m, k);
    return r->sk[0] != ST_AN_NO_KEY && (st_an_key_cmp(k, r->sk) == 0 || (m->recv && m->b < r->sb));
}

void st_an_cred_add2(st_an_cred_t *r, const st_an_member_t *m)
{
    if (partial_member(r, m) && m->e < r->emin2)
        r->emin2 = m->e;
}

uint32_t st_an_stair_merge(const st_an_stair_t *a, uint32_t na, const st_an_stair_t *b, uint32_t nb,
                           st_an_stair_t *out)
{
    uint32_t n = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        const st_an_stair_t *x = j == nb || (i < na && st_an_key_cmp(a[i].key, b[j].key) <= 0) ? &a[i++] : &b[j++];
        if (n == 0 || x->b > out[n - 1].b)
            out[n++] = *x;
    }
    return n;
}

int st_an_stair_find(const st_an_stair_t *s, uint32_t n, const uint64_t key[3], uint64_t *b)
{
    uint32_t lo = 0, hi = n; /* the first entry with a key above key */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (st_an_key_cmp(s[mid].key, key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    *b = s[lo - 1].b;
    return 1;
}

uint32_t st_an_oplist_merge(const st_an_stair_t *a, uint32_t na, const st_an_stair_t *b, uint32_t nb,
                            st_an_stair_t *out)
{
    uint32_t n = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        const st_an_stair_t *x = j == nb || (i < na && st_an_key_cmp(a[i].key, b[j].key) <= 0) ? &a[i++] : &b[j++];
        if (n && st_an_key_cmp(x->key, out[n - 1].key) == 0) {
            if (x->b > out[n - 1].b)
                out[n - 1].b = x->b;
        } else
            out[n++] = *x;
    }
    return n;
}

int st_an_oplist_find(const st_an_stair_t *s, uint32_t n, uint64_t rank, uint64_t *t)
{
    uint32_t lo = 0, hi = n; /* the first entry whose target is >= rank */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].key[0] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || s[lo].key[0] != rank)
        return 0;
    *t = s[lo].b;
    return 1;
}

/* wait / completion of member mi against reference begin bref and earliest end emin. */
static unsigned member(const st_an_member_t *mi, uint64_t bref, uint64_t emin, int with_completion, int64_t *wait,
                       int64_t *completion)
{
    uint64_t bstar = bref < mi->e ? bref : mi->e;
    *wait = max64(0, st_an_diff(bstar, mi->b));
    if (with_completion)
        *completion = max64(0, st_an_diff(mi->e, emin > bstar ? emin : bstar));
    return bref > mi->e;
}

/* 1-to-N, N-to-1, intercommunicators: receivers that began before the latest sender wait for it. */
static unsigned rooted(const st_an_cred_t *r, const st_an_member_t *m, int64_t *wait)
{
    int64_t unused;
    if (r->sk[0] == ST_AN_NO_KEY || !m->recv || m->send || m->b >= r->sb)
        return 0;
    return member(m, r->sb, 0, 0, wait, &unused);
}

unsigned st_an_coll_wait(enum st_rel_coll_class cc, int barrier, int inter, const st_an_cred_t *r,
                         const st_an_stair_t *st, uint32_t nst, const st_an_member_t *m, int64_t *wait,
                         int64_t *completion)
{
    uint64_t k[3], bref;
    int64_t unused;
    *wait = *completion = 0;
    if (inter)
        return rooted(r, m, wait);
    if (barrier || (cc == ST_REL_CC_N2N && r->emin > r->bmax))
        return member(m, r->bmax, r->emin, 1, wait, completion);
    switch (cc) {
    case ST_REL_CC_N2N:
        return partial_member(r, m) ? member(m, r->sb, r->emin2, 1, wait, completion) : 0;
    case ST_REL_CC_ONE2N:
    case ST_REL_CC_N2ONE:
        return rooted(r, m, wait);
    case ST_REL_CC_PREFIX:
        st_an_member_key(m, k);
        return m->recv && st_an_stair_find(st, nst, k, &bref) ? member(m, bref, 0, 0, wait, &unused) : 0;
    default:
        return 0;
    }
}
