/*
 * coll_waits.c — waits of the members of one collective instance (patterns.h). Pure:
 * the driver (coll.c) gathers the members' begin and end times.
 */
#include "patterns.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* wait / completion of member i against reference begin bref and earliest end emin. */
static unsigned member(const st_an_member_t *mi, uint64_t bref, uint64_t emin, int with_completion, int64_t *wait,
                       int64_t *completion)
{
    uint64_t bstar = bref < mi->e ? bref : mi->e;
    *wait = max64(0, st_an_diff(bstar, mi->b));
    if (with_completion)
        *completion = max64(0, st_an_diff(mi->e, emin > bstar ? emin : bstar));
    return bref > mi->e;
}

/* Latest begin among the members with flag `send` (or all when all != 0); index in *at. */
static uint64_t latest_begin(const st_an_member_t *m, uint32_t n, int all, uint32_t *at)
{
    uint64_t t = 0;
    *at = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if ((all || m[i].send) && (*at == UINT32_MAX || m[i].b > t))
            t = m[i].b, *at = i;
    return t;
}

static unsigned full_sync(const st_an_member_t *m, uint32_t n, int64_t *wait, int64_t *completion)
{
    uint32_t at;
    uint64_t bref = latest_begin(m, n, 1, &at), emin = UINT64_MAX;
    unsigned v = 0;
    for (uint32_t i = 0; i < n; i++)
        if (m[i].e < emin)
            emin = m[i].e;
    for (uint32_t i = 0; i < n; i++)
        v += member(&m[i], bref, emin, 1, &wait[i], &completion[i]);
    return v;
}

/* N-to-N without full overlap: only the latest sender and the receivers before it synchronize. */
static unsigned partial_sync(const st_an_member_t *m, uint32_t n, int64_t *wait, int64_t *completion)
{
    uint32_t k;
    uint64_t bref = latest_begin(m, n, 0, &k), emin = UINT64_MAX;
    unsigned v = 0;
    if (k == UINT32_MAX)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if ((i == k || (m[i].recv && m[i].b < bref)) && m[i].e < emin)
            emin = m[i].e;
    for (uint32_t i = 0; i < n; i++)
        if (i == k || (m[i].recv && m[i].b < bref))
            v += member(&m[i], bref, emin, 1, &wait[i], &completion[i]);
    return v;
}

/* 1-to-N, N-to-1, intercommunicators: receivers that began before the latest sender wait for it. */
static unsigned rooted(const st_an_member_t *m, uint32_t n, int64_t *wait)
{
    uint32_t k;
    uint64_t bref = latest_begin(m, n, 0, &k);
    unsigned v = 0;
    int64_t unused;
    if (k == UINT32_MAX)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (m[i].recv && !m[i].send && m[i].b < bref)
            v += member(&m[i], bref, 0, 0, &wait[i], &unused);
    return v;
}

/* Scans: each receiver waits for the latest begin among the senders up to its order. */
static unsigned prefix(const st_an_member_t *m, uint32_t n, int64_t *wait)
{
    uint64_t bref = 0;
    int any = 0;
    unsigned v = 0;
    int64_t unused;
    for (uint32_t i = 0; i < n; i++) {
        if (m[i].send && (!any || m[i].b > bref))
            bref = m[i].b, any = 1;
        if (any && m[i].recv)
            v += member(&m[i], bref, 0, 0, &wait[i], &unused);
    }
    return v;
}

unsigned st_an_coll_waits(enum st_clc_coll_class cc, int barrier, int inter, const st_an_member_t *m, uint32_t n,
                          int64_t *wait, int64_t *completion)
{
    for (uint32_t i = 0; i < n; i++)
        wait[i] = completion[i] = 0;
    if (inter)
        return rooted(m, n, wait);
    if (barrier)
        return full_sync(m, n, wait, completion);
    switch (cc) {
    case ST_CLC_CC_N2N: {
        uint32_t at;
        uint64_t bmax = latest_begin(m, n, 1, &at), emin = UINT64_MAX;
        for (uint32_t i = 0; i < n; i++)
            if (m[i].e < emin)
                emin = m[i].e;
        return emin > bmax ? full_sync(m, n, wait, completion) : partial_sync(m, n, wait, completion);
    }
    case ST_CLC_CC_ONE2N:
    case ST_CLC_CC_N2ONE:
        return rooted(m, n, wait);
    case ST_CLC_CC_PREFIX:
        return prefix(m, n, wait);
    default:
        return 0;
    }
}
