/*
 * rc_build.c — the root-cause timeline of an analysis' locations (rc_build.h): the relation ends and
 * the waits noted while the analysis runs, the idle stretches of OpenMP worker threads, and the
 * timeline of each location from them (rc_build_loc.c).
 */
#include "rc_build.h"

#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_Definitions.h>

#include "../config/config.h"
#include "../model/region.h"
#include "../util/log.h"
#include "../util/mem.h"
#include "../util/msort.h"

int an_rc_wanted(void)
{
    static int said;
    char err[400];
    if (!st_config_loaded && st_config_load(err, sizeof err) != 0 && !said++)
        st_log_warn("root causes: %s (SYNCTRACE_ROOTCAUSE taken as on)", err);
    return st_config.rootcause == ST_ROOTCAUSE_ON;
}

an_rcb_t *an_rcb_new(void) { return calloc(1, sizeof(an_rcb_t)); }

void an_rcb_free(an_rcb_t *b)
{
    if (!b)
        return;
    st_mem_free(b->e), st_mem_free(b->e2), st_mem_free(b->w), st_mem_free(b->side), st_mem_free(b->chan);
    free(b);
}

void an_rcb_wait(an_rcb_t *b, int m, uint32_t l, uint64_t call, double v)
{
    if ((st_rc_delay_metric(m) < 0 && m != ST_AN_M_FINALIZE_WAIT) || call == AN_NO_EV || b->failed)
        return;
    if (st_mem_grow((void **)&b->w, &b->cw, b->nw + 1, sizeof *b->w)) {
        b->failed = 1;
        return;
    }
    b->w[b->nw++] = (an_rc_wait_t){ call, l, m, v };
}

static int end_push(an_rcb_t *b, uint64_t kref, uint32_t loc, uint64_t call, uint32_t role)
{
    if (!an_rc_end_fits(loc, call) || st_mem_grow((void **)&b->e, &b->ce, b->ne + 1, sizeof *b->e))
        return -1;
    b->e[b->ne++] = an_rc_end(kref, loc, call, role);
    return 0;
}

/* A point-to-point message's second end at a location (b->e2). */
static int end_push2(an_rcb_t *b, uint64_t kref, uint32_t loc, uint64_t call, uint32_t role)
{
    if (!an_rc_end_fits(loc, call) || st_mem_grow((void **)&b->e2, &b->ce2, b->ne2 + 1, sizeof *b->e2))
        return -1;
    b->e2[b->ne2++] = an_rc_end(kref, loc, call, role);
    return 0;
}

int an_rcb_reserve(an_rcb_t *b, size_t n) { return st_mem_grow((void **)&b->e, &b->ce, b->ne + n, sizeof *b->e); }

/* A key from outside the graph: its reference (AN_RC_KEY_SIDE), UINT64_MAX if out of memory. */
static uint64_t side_key(an_rcb_t *b, const uint64_t *key)
{
    if (st_mem_grow((void **)&b->side, &b->cside, b->nside + 1, sizeof *b->side))
        return UINT64_MAX;
    memcpy(b->side[b->nside], key, sizeof *b->side);
    return AN_RC_KEY_SIDE | b->nside++;
}

/* The synchronizing call of an end at event ev of location l: the call around it, or (an event
 * outside every call) the event itself, a zero-length call. */
static uint64_t end_call(const an_ctx_t *c, uint32_t l, uint64_t ev)
{
    uint64_t call = an_call(c, l, ev);
    return call == AN_NO_EV ? ev : call;
}

/* ---- relation ends ------------------------------------------------------------------------------ */

/* A point-to-point end (role ST_REL_SEND / _RECV) at event ev of l: the call around it, and the call
 * that completed an Isend / posted an Irecv (request events of the same process). */
static int p2p_end(an_ctx_t *c, uint64_t kref, uint32_t l, uint64_t ev, int role)
{
    an_rcb_t *b = c->rcb;
    if (role == ST_REL_SEND) {
        const an_req_t *d = an_send_completion(c, l, ev);
        return end_push(b, kref, l, end_call(c, l, ev), ST_RC_SENDS) ||
               (d && end_push2(b, kref, d->loc, end_call(c, d->loc, d->ev), 0)) ? -1 : 0;
    }
    if (c->in->locs[l].ev[ev].kind != ST_EV_MPI_IRECV)
        return end_push(b, kref, l, end_call(c, l, ev), ST_RC_RECEIVES | ST_RC_POSTS);
    const an_req_t *q = an_recv_post(c, l, ev);
    return end_push(b, kref, l, end_call(c, l, ev), ST_RC_RECEIVES) ||
           (q && end_push2(b, kref, q->loc, end_call(c, q->loc, q->ev), ST_RC_POSTS)) ? -1 : 0;
}

/* The class of the collective operation of a member's event: from its end event (COLL_END,
 * ICOLL_COMPLETE; a COLL_BEGIN's is in its call), an I-call's request from the call's region role. */
static enum st_rel_coll_class coll_class(const an_ctx_t *c, uint32_t l, uint64_t ev)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    const st_event_t *e = &L->ev[ev];
    uint64_t call = an_call(c, l, ev);
    switch (e->kind) {
    case ST_EV_MPI_COLL_END:
    case ST_EV_MPI_ICOLL_COMPLETE:
        return st_rel_coll_class(e->op);
    case ST_EV_MPI_COLL_BEGIN: {
        uint64_t end = call == AN_NO_EV ? ev : an_leave(c, l, call) != AN_NO_EV ? an_leave(c, l, call) : L->n - 1;
        for (uint64_t i = ev + 1; i <= end; i++)
            if (L->ev[i].kind == ST_EV_MPI_COLL_END && an_call(c, l, i) == call)
                return st_rel_coll_class(L->ev[i].op);
        return ST_REL_CC_NONE;
    }
    case ST_EV_MPI_ICOLL_REQUEST: {
        const st_region_info_t *ri = call == AN_NO_EV ? NULL : st_region_info(an_region(c, l, call));
        return !ri ? ST_REL_CC_NONE : ri->otf2_role == OTF2_REGION_ROLE_COLL_ONE2ALL ? ST_REL_CC_ONE2N
             : ri->otf2_role == OTF2_REGION_ROLE_COLL_ALL2ONE ? ST_REL_CC_N2ONE : ST_REL_CC_NONE;
    }
    default:
        return ST_REL_CC_NONE;
    }
}

/* A collective (or MPI_Init / MPI_Finalize) end: the member's call, ROOT for a rooted one's root. */
static int coll_end(an_ctx_t *c, uint64_t kref, uint32_t l, uint64_t ev, int role)
{
    uint32_t r = role == ST_REL_SEND ? ST_RC_SENDS : ST_RC_RECEIVES;
    uint64_t key[4];
    an_rc_key(c->rcb, kref, key);
    if (key[0] >> 56 == ST_REL_KEY_COLL) {
        enum st_rel_coll_class cc = coll_class(c, l, ev);
        if ((cc == ST_REL_CC_ONE2N && role == ST_REL_SEND) || (cc == ST_REL_CC_N2ONE && role == ST_REL_RECV))
            r |= ST_RC_ROOT;
    }
    return end_push(c->rcb, kref, l, end_call(c, l, ev), r);
}

/* Whether event ev of l is a nonblocking call's end, whose request an_send_completion / an_recv_post look up. */
static inline int has_req(const an_ctx_t *c, uint32_t l, uint64_t ev)
{
    unsigned kind = c->in->locs[l].ev[ev].kind;
    return kind == ST_EV_MPI_ISEND || kind == ST_EV_MPI_IRECV;
}

int an_rcb_graph(an_ctx_t *c, const st_rel_graph_t *g)
{
    int rc = 0;
    an_stamp_t t0;
    an_stamp(&t0);
    c->rcb->g = g;
    size_t most = c->rcb->ne + g->port_first[g->nlocs] + g->port_first[g->nlocs] / 2; /* posts, completions */
    if (st_mem_grow((void **)&c->rcb->e, &c->rcb->ce, most, sizeof *c->rcb->e))
        return -1;
    /* The ports come in event order, their instances (sorted by key) and the requests of their messages far
     * apart: each port's instance is fetched 20 ports ahead, its event and call word 16, its request in
     * three more stages (an_req_prefetch), so that the lookups below find them cached. */
    static const unsigned ahead[4] = { 16, 12, 8, 4 };
    uint8_t req[16] = { 0 }; /* whether port k has a request, by k % 16: asked once, at stage 1 (the event is cached
                              * by then); the first ports of a location may see another's flag: a prefetch too many
                              * or too few, nothing else */
    for (uint32_t l = 0; l < g->nlocs && l < c->in->nlocs; l++)
        for (uint64_t k = g->port_first[l]; rc == 0 && k < g->port_first[l + 1]; k++) {
            if (k + 20 < g->port_first[l + 1])
                __builtin_prefetch(&g->inst[g->ports[k + 20].inst]);
            if (k + ahead[0] < g->port_first[l + 1])
                an_req_prefetch(c, l, g->ports[k + ahead[0]].ev, 0);
            if (k + ahead[1] < g->port_first[l + 1])
                req[(k + ahead[1]) % 16] = (uint8_t)has_req(c, l, g->ports[k + ahead[1]].ev);
            for (int s = 1; s < 4; s++) /* only a nonblocking call's end has a request */
                if (k + ahead[s] < g->port_first[l + 1] && req[(k + ahead[s]) % 16])
                    an_req_prefetch(c, l, g->ports[k + ahead[s]].ev, s);
            const st_rel_port_t *p = &g->ports[k];
            const st_rel_inst_t *in = &g->inst[p->inst];
            uint32_t role = p->role == ST_REL_SEND ? ST_RC_SENDS : ST_RC_RECEIVES;
            switch (st_rel_inst_type(in)) {
            case ST_REL_KEY_P2P:
                if (in->nsend == 1 && in->nrecv == 1)
                    rc = p2p_end(c, p->inst, l, p->ev, p->role);
                break;
            case ST_REL_KEY_COLL:
            case ST_REL_KEY_SYNC:
            case ST_REL_KEY_RMA_COLL: /* a window's fences, creation and release (as the parallel an_rcb_coll) */
                rc = coll_end(c, p->inst, l, p->ev, p->role);
                break;
            case ST_REL_KEY_OMP_FORK:
            case ST_REL_KEY_OMP_JOIN: /* a zero-length call at the team event */
                rc = end_push(c->rcb, p->inst, l, p->ev, role);
                break;
            case ST_REL_KEY_OMP_BARRIER:
                rc = end_push(c->rcb, p->inst, l, end_call(c, l, p->ev), role);
                break;
            default:
                break;
            }
        }
    an_stamp_add(&c->rcb->spent[AN_RCB_T_NOTES], &t0);
    return rc;
}

/* The key of a remote point-to-point end: the stretch of its channel's messages it continues (the join hands a
 * stretch's ends out in a row, one call per message), else a new stretch; a side key when the numbers do not fit.
 * Each message gets the next wire number (an_rc_group): a stretch holds messages numbered in a row, so that its
 * first one's number and the offset give each one's. UINT64_MAX: memory. */
static uint64_t chan_key(an_rcb_t *b, const uint64_t *key)
{
    const uint64_t *c = b->nchan ? b->chan[b->nchan - 1] : NULL;
    uint64_t at = c ? b->nwire - c[4] : 0; /* the message's offset if it continues the last stretch */
    b->nwire++;
    if (c && c[0] == key[0] && c[1] == key[1] && c[2] == key[2] && key[3] - c[3] == at && at <= 0xffffffffu)
        return AN_RC_KEY_SIDE | AN_RC_KEY_CHAN | (uint64_t)(b->nchan - 1) << 32 | at;
    if (b->nchan >= (1u << 30))
        return side_key(b, key);
    if (st_mem_grow((void **)&b->chan, &b->cchan, b->nchan + 1, sizeof *b->chan))
        return UINT64_MAX;
    uint64_t *n = b->chan[b->nchan++];
    n[0] = key[0], n[1] = key[1], n[2] = key[2], n[3] = key[3], n[4] = b->nwire - 1;
    return AN_RC_KEY_SIDE | AN_RC_KEY_CHAN | (uint64_t)(b->nchan - 1) << 32;
}

typedef struct pwire_ctx {
    an_ctx_t          *c;
    const an_pwire_t  *w;
} pwire_ctx_t;

static int pwire_end(void *ctx, int role, const uint64_t *key, const an_pw_end_t *e)
{
    const pwire_ctx_t *x = ctx;
    an_ctx_t *c = x->c;
    /* The join hands the ends out in their arrays' order, their events far apart: the next ones' events, requests
     * and calls are fetched ahead in stages (an_req_prefetch). */
    const an_pw_end_t *v = role == ST_REL_SEND ? x->w->send : x->w->recv;
    size_t n = role == ST_REL_SEND ? x->w->nsend : x->w->nrecv, i = (size_t)(e - v);
    static const unsigned ahead[4] = { 16, 12, 8, 4 };
    for (int s = 0; e >= v && i < n && s < 4; s++)
        if (i + ahead[s] < n)
            an_req_prefetch(c, v[i + ahead[s]].loc, v[i + ahead[s]].ev, s);
    if (key[0] >> 56 != ST_REL_KEY_P2P) /* an RMA complete -> wait: no root causes of its waits yet */
        return 0;
    uint64_t kref = chan_key(c->rcb, key);
    return kref == UINT64_MAX ? -1 : p2p_end(c, kref, e->loc, e->ev, role);
}

int an_rcb_pwire(an_ctx_t *c, const an_pwire_t *w) { return an_pwire_joined(w, pwire_end, &(pwire_ctx_t){ c, w }); }

static int key_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The instance of tab (sorted by key) with key, NULL if none. */
static const an_cinst_t *tab_find(const an_ctab_t *tab, const uint64_t *key)
{
    size_t lo = 0, hi = tab->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = key_cmp(tab->v[mid].key, key);
        if (k == 0)
            return &tab->v[mid];
        if (k < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int an_rcb_coll(an_ctx_t *c, const st_rel_endpoint_t *ep, size_t n, const an_ctab_t *tab)
{
    int rc = 0;
    an_stamp_t t0;
    an_stamp(&t0);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        const st_rel_endpoint_t *e = &ep[k];
        if (e->kind != ST_REL_COLL || (e->role != ST_REL_SEND && e->role != ST_REL_RECV) || e->ref.loc >= c->in->nlocs)
            continue;
        const an_cinst_t *x = tab_find(tab, e->key);
        if (x && x->ends == (AN_ENDS_SEND | AN_ENDS_RECV)) { /* as the serial graph keeps instances */
            uint64_t kref = side_key(c->rcb, e->key);
            rc = kref == UINT64_MAX ? -1 : coll_end(c, kref, e->ref.loc, e->ref.ev, e->role);
        }
    }
    an_stamp_add(&c->rcb->spent[AN_RCB_T_NOTES], &t0);
    return rc;
}

/* ---- idle stretches -------------------------------------------------------------------------------- */

/* An outermost fork of a master, or a master's join: location, time, team (key[1], key[2]). */
typedef struct tev {
    uint32_t loc, cnode;
    uint64_t t, team[2], join;
    uint64_t key[4];
    uint64_t inst; /* a fork's graph instance */
} tev_t;

static int cmp_tev(const void *a, const void *b)
{
    const tev_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    if (x->team[0] != y->team[0])
        return x->team[0] < y->team[0] ? -1 : 1;
    if (x->team[1] != y->team[1])
        return x->team[1] < y->team[1] ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

static int cmp_tev_time(const void *a, const void *b)
{
    const tev_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

/* The masters' outermost forks (f) and their joins (j, by location and team) of g. */
static int team_events(const an_ctx_t *c, const st_rel_graph_t *g, const uint32_t *master, const uint8_t *inpar,
                       tev_t **f, size_t *nf, tev_t **j, size_t *nj)
{
    size_t cf = 0, cj = 0;
    for (uint64_t i = 0; i < g->ninst; i++) {
        const st_rel_inst_t *in = &g->inst[i];
        unsigned type = st_rel_inst_type(in);
        if (type == ST_REL_KEY_OMP_FORK && in->nsend == 1) {
            const st_rel_ref_t *r = &g->refs[in->first];
            uint32_t k = an_cnode(c, r->loc, an_call(c, r->loc, r->ev));
            if (master[r->loc] != r->loc || inpar[k])
                continue;
            if (st_mem_grow((void **)f, &cf, *nf + 1, sizeof **f))
                return -1;
            tev_t *x = &(*f)[(*nf)++];
            *x = (tev_t){ r->loc, k, an_time(c, r->loc, r->ev), { in->key[1], in->key[2] }, AN_NO_TIME, { 0 }, i };
            memcpy(x->key, in->key, sizeof x->key);
        } else if (type == ST_REL_KEY_OMP_JOIN) {
            for (uint32_t s = in->nsend; s < in->nsend + in->nrecv; s++) {
                const st_rel_ref_t *r = &g->refs[in->first + s];
                if (master[r->loc] != r->loc)
                    continue;
                if (st_mem_grow((void **)j, &cj, *nj + 1, sizeof **j))
                    return -1;
                (*j)[(*nj)++] = (tev_t){ r->loc, 0, an_time(c, r->loc, r->ev), { in->key[1], in->key[2] }, 0, { 0 }, 0 };
            }
        }
    }
    return 0;
}

/* Per master location m, its workers' idle stretches: (*v)[at[m] .. at[m + 1]), by fork time: from the
 * join of its previous outermost fork (its first event for the first) to each outermost fork. */
static int idle_stretches(const an_ctx_t *c, const st_rel_graph_t *g, const uint32_t *master, an_rc_idle_t **v,
                          size_t *at)
{
    const st_an_result_t *r = c->res;
    uint8_t *inpar = calloc(r->ncnodes + 1, 1);
    tev_t *f = NULL, *j = NULL;
    size_t nf = 0, nj = 0, n = 0;
    int rc = inpar ? 0 : -1;
    for (uint32_t k = 1; rc == 0 && k < r->ncnodes; k++)
        inpar[k] = r->cnodes[k].region == ST_REGION_OMP_PARALLEL || inpar[r->cnodes[k].parent];
    rc = rc ? rc : team_events(c, g, master, inpar, &f, &nf, &j, &nj);
    if (rc == 0 && !(*v = st_mem_malloc(sizeof **v * (nf + 1)))) /* (freed with st_mem_free) */
        rc = -1;
    if (rc == 0) {
        if (nj > 1)
            qsort(j, nj, sizeof *j, cmp_tev);
        for (size_t i = 0; i < nf; i++) { /* its join: the team's first join after the fork */
            const tev_t *lo = j, *hi = j + nj;
            while (lo < hi) {
                const tev_t *mid = lo + (hi - lo) / 2;
                if (cmp_tev(mid, &f[i]) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < j + nj && lo->loc == f[i].loc && lo->team[0] == f[i].team[0] && lo->team[1] == f[i].team[1])
                f[i].join = lo->t;
        }
        if (nf > 1)
            qsort(f, nf, sizeof *f, cmp_tev_time);
    }
    for (uint32_t l = 0; l <= c->in->nlocs; l++)
        at[l] = 0;
    for (size_t i = 0; rc == 0 && i < nf; i++) {
        uint32_t m = f[i].loc;
        int firstfork = i == 0 || f[i - 1].loc != m;
        uint64_t t0 = firstfork ? (c->in->locs[m].n ? an_time(c, m, 0) : AN_NO_TIME) : f[i - 1].join;
        if (t0 == AN_NO_TIME || t0 >= f[i].t)
            continue;
        an_rc_idle_t *x = &(*v)[n++];
        *x = (an_rc_idle_t){ t0, f[i].t, { 0 }, f[i].inst, f[i].cnode };
        memcpy(x->key, f[i].key, sizeof x->key);
        at[m + 1]++;
    }
    for (uint32_t l = 0; l < c->in->nlocs; l++)
        at[l + 1] += at[l];
    free(inpar), st_mem_free(f), st_mem_free(j);
    return rc;
}

/* ---- the timeline ------------------------------------------------------------------------------------ */

/* By location, then call: the order the timeline is built in (rc_build_loc.c's collect). The ends of one
 * call may come in any order: collect orders a call's relations by key and merges the ends of one key,
 * whatever their order, so the timeline does not depend on it and the sorts need not look further. */
static inline int cmp_end(const an_rc_end_t *x, const an_rc_end_t *y)
{
    uint64_t a = x->at >> 4, b = y->at >> 4; /* location, then call */
    return (a > b) - (a < b);
}
static int cmp_end_void(const void *a, const void *b) { return cmp_end(a, b); }
ST_MSORT(sort_ends, an_rc_end_t, cmp_end)

/* The ends by cmp_end. They come as a few sorted runs (a location's ports in event order; the remote
 * point-to-point ends channel by channel, each channel's in its messages' order; the collective ends),
 * which the natural merge sort merges in a few passes. Else (many runs) nearly in order: an insertion
 * sort in place, while its moves stay within a few per end, takes no second array (fresh pages); the
 * merge sort finishes when they do not. */
static void sort_ends_near(an_rc_end_t *v, size_t n)
{
    size_t runs = 1;
    for (size_t i = 1; i < n; i++)
        runs += cmp_end(&v[i - 1], &v[i]) > 0;
    if (runs <= 64 || runs <= n / 256) {
        sort_ends(v, n);
        return;
    }
    size_t budget = 8 * n;
    for (size_t i = 1; i < n; i++) {
        if (cmp_end(&v[i - 1], &v[i]) <= 0)
            continue;
        an_rc_end_t x = v[i];
        size_t j = i;
        for (; j > 0 && budget && cmp_end(&v[j - 1], &x) > 0; j--, budget--)
            v[j] = v[j - 1];
        v[j] = x;
        if (!budget) {
            sort_ends(v, n);
            return;
        }
    }
}

/* e[0 .. ne) and e2[0 .. ne2), each sorted by cmp_end, merged into e[0 .. ne + ne2) (room for them) from
 * the back: in place, one pass, no second array. The second ends are sorted apart, since their order is
 * their messages' first ends' (a Waitall's completions follow its Isends' calls, an Irecv's post its
 * receive's call): short descents, one or more per call that completes or posts several messages, which
 * an insertion sort of their own puts right in a few moves each, where among the first ends each would
 * travel the whole array (with the two appended, the insertion sort ran out of its budget and the merge
 * sort merged one run per iteration of a loop of Waitalls: its passes grew with the log of the trace). */
static void merge_back(an_rc_end_t *e, size_t ne, const an_rc_end_t *e2, size_t ne2)
{
    size_t i = ne, j = ne2, o = ne + ne2;
    while (j) {
        if (i && cmp_end(&e[i - 1], &e2[j - 1]) > 0)
            e[--o] = e[--i];
        else
            e[--o] = e2[--j];
    }
}

static inline int cmp_wait(const an_rc_wait_t *x, const an_rc_wait_t *y)
{
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}
static int cmp_wait_void(const void *a, const void *b) { return cmp_wait(a, b); }
ST_MSORT(sort_waits, an_rc_wait_t, cmp_wait)

/* The ends v[0 .. n) by cmp_end, when their first run holds most of them (a location's ports in event order,
 * then the few collective ends, at one process): the rest sorted apart in a copy of their own and merged in
 * from the back, so that the merge sort's second array is the size of the rest, not of all the ends (fresh
 * pages: 23644 page faults at 10^7 events on one rank). Else sort_ends_near. */
static void sort_ends_tail(an_rc_end_t *v, size_t n)
{
    size_t r = 1;
    while (r < n && cmp_end(&v[r - 1], &v[r]) <= 0)
        r++;
    if (r >= n)
        return;
    an_rc_end_t *t = n - r <= n / 8 ? st_mem_malloc((n - r) * sizeof *t) : NULL;
    if (!t) {
        sort_ends_near(v, n);
        return;
    }
    memcpy(t, v + r, (n - r) * sizeof *t);
    sort_ends_near(t, n - r);
    merge_back(v, r, t, n - r);
    st_mem_free(t);
}

int an_rcb_build(an_ctx_t *c, const st_rel_graph_t *g, st_rc_input_t **out)
{
    an_rcb_t *b = c->rcb;
    uint32_t nl = c->in->nlocs, nc = c->res->ncnodes;
    size_t nends = b->ne + b->ne2, nwaits = b->nw;
    an_stamp_t t0;
    an_stamp(&t0);
    *out = NULL;
    if (b->failed || st_mem_grow((void **)&b->e, &b->ce, b->ne + b->ne2, sizeof *b->e))
        return -1;
    sort_ends_tail(b->e, b->ne);
    sort_ends_tail(b->e2, b->ne2);
    merge_back(b->e, b->ne, b->e2, b->ne2);
    b->ne += b->ne2;
    st_mem_free(b->e2), b->e2 = NULL, b->ne2 = b->ce2 = 0;
    sort_waits(b->w, b->nw);
    an_stamp_add(&b->spent[AN_RCB_T_SORT], &t0);
    an_stamp(&t0);
    st_rc_input_t *in = calloc(1, sizeof *in);
    uint32_t *master = an_omp_masters(c);
    an_rc_idle_t *idle = NULL;
    size_t *at = malloc(sizeof *at * (nl + 1));
    an_rc_scratch_t s = { calloc(nc + 1, sizeof *s.acc), malloc(sizeof *s.touched * (nc + 1)), 0,
                          calloc(nc + 1, 1), calloc(nc + 1, sizeof *s.depth), NULL, 0, NULL, 0 };
    int rc = in && master && at && s.acc && s.touched && s.mark && s.depth &&
             (in->locs = calloc(nl + 1, sizeof *in->locs)) ? 0 : -1;
    for (uint32_t k = 1; rc == 0 && k < nc; k++) /* a parent precedes its children */
        s.depth[k] = s.depth[c->res->cnodes[k].parent] + 1;
    if (rc == 0)
        in->nlocs = nl;
    rc = rc ? rc : idle_stretches(c, g, master, &idle, at);
    size_t ie = 0, iw = 0;
    for (uint32_t l = 0; rc == 0 && l < nl; l++) {
        size_t je = ie, jw = iw;
        while (je < b->ne && an_rc_end_loc(&b->e[je]) == l)
            je++;
        while (jw < b->nw && b->w[jw].loc == l)
            jw++;
        uint32_t m = master[l];
        int worker = m != UINT32_MAX && m != l;
        rc = an_rc_loc(c, l, b, b->e + ie, je - ie, b->w + iw, jw - iw, worker ? idle + at[m] : NULL,
                       worker ? at[m + 1] - at[m] : 0, &s, &in->locs[l]);
        ie = je, iw = jw;
    }
    free(master), st_mem_free(idle), free(at), free(s.acc), free(s.touched), free(s.mark), free(s.depth), free(s.stack), free(s.pos);
    st_mem_free(b->e), st_mem_free(b->w), st_mem_free(b->side), st_mem_free(b->chan);
    b->e = NULL, b->w = NULL, b->side = NULL, b->chan = NULL;
    b->ne = b->ce = b->nw = b->cw = b->nside = b->cside = b->nchan = b->cchan = 0, b->nwire = 0;
    if (rc && in) {
        st_rc_input_free(in);
        free(in), in = NULL;
    }
    an_stamp_add(&b->spent[AN_RCB_T_LOCS], &t0);
    st_log_debug("root-cause timeline: %zu relation ends, %zu waits; CPU ms (page faults): ends noted %.1f (%ld), "
                 "sorted %.1f (%ld), calls and sweep %.1f (%ld)",
                 nends, nwaits, b->spent[AN_RCB_T_NOTES].ms, b->spent[AN_RCB_T_NOTES].faults, b->spent[AN_RCB_T_SORT].ms,
                 b->spent[AN_RCB_T_SORT].faults, b->spent[AN_RCB_T_LOCS].ms, b->spent[AN_RCB_T_LOCS].faults);
    *out = in;
    return rc;
}
