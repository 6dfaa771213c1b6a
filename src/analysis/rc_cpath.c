/*
 * rc_cpath.c — the critical path of a root-cause replay (rootcause.h) and the imbalance metrics
 * derived from it (docs/analysis.md, "Root causes").
 *
 * The walk starts at the location with the latest enter of MPI_Finalize (else the latest last
 * event), at the run's last event, and goes back in time over the holder's tail, calls and the
 * segments between them, crediting each to (cnode, holder): a segment by its profile, a call by its
 * time. At a call with a wait whose delayer entered while the holder was in the call (E(X) <= E(Y)
 * <= L(X)) it credits the part of the call after that moment and continues on the delayer's location
 * at E(Y); before the holder's first event the rest goes to the root cnode. A cursor only moves back
 * and every step credits exactly what it moved, so the credits add up to the run's length in whole
 * ticks: a segment whose profile is shorter than the segment gives the rest to the root cnode, a
 * longer one is scaled down (floors, the remainder to the root). A jump that would return to a
 * location the walk left at the same moment is not taken (no walk goes round in circles).
 *
 * Derived (T(c, l) = the location's time at c in the timeline less its waits there, CP(c) = the critical path's
 * sum over locations):
 *   critical_path_imbalance(c, l)   = cp(c, l) * max(0, CP(c) - mean_l T(c, l)) / CP(c)
 *   critical_path_activities(c, l)  = min(CP(c), T(c, l))          where CP(c) > 0
 *   non_critical_path_activities    = max(0, T(c, l) - CP(c))
 *   critical_imbalance_impact(c, l) = cp(c, l) / CP(c) * G(c), G(c) = sum_l e(c, l) * f_l,
 *       e(c, l) = max(0, CP(c) - T(c, l)), f_l = max(0, span_l - sum_c T(., l)) / sum_c e(., l)
 *       (span_l: l's Time, so that the impact holds l's waiting and the performance impact adds up to Time),
 *     its two parts (it holds nothing else):
 *   inter_partition_imbalance(c, l) = cp(c, l) / CP(c) * H(c), H(c) = sum over the l' with T(c, l') = 0
 *       of CP(c) * h_l', the headroom h_l = max(0, U_l - X_l) / U_l: U_l the path's time in the call
 *       paths l never runs (T = 0), X_l = sum_c max(0, T(c, l) - CP(c)) l's time beyond the path in
 *       those it runs; H(c) <= G(c) (h_l <= f_l, as U_l <= sum_c e(., l)), so
 *   intra_partition_imbalance(c, l) = cp(c, l) / CP(c) * (G(c) - H(c)).
 * T, CP, e, U and X are integer ticks, so their sums over cnodes are exact whatever the cnodes' order.
 */
#include "rc_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

static void credit(st_an_result_t *res, uint32_t cnode, uint32_t loc, uint64_t v)
{
    rc_add(res, ST_AN_M_CRITICAL_PATH, cnode, loc, (double)v);
}

/* len ticks of a segment of location l with profile p[0..n). */
static void credit_prof(st_an_result_t *res, uint32_t l, const st_rc_prof_t *p, uint32_t n, uint64_t len)
{
    uint64_t P = 0, sum = 0;
    for (uint32_t i = 0; i < n; i++)
        P += p[i].ticks;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = P <= len ? p[i].ticks : (uint64_t)((u128)p[i].ticks * len / P);
        credit(res, p[i].cnode, l, v);
        sum += v;
    }
    credit(res, 0, l, len - sum);
}

void rc_hops_free(rc_hops_t *h)
{
    free(h->v), free(h->idx);
    memset(h, 0, sizeof *h);
}

/* The path's hop [t0, t1) on loc, joined to the previous one if it continues it (that one is then the
 * last of hs: on the same location). 0, or -1 (memory). */
static int hop(rc_walk_t *w, rc_hops_t *hs, uint32_t loc, uint64_t t0, uint64_t t1)
{
    if (t1 <= t0)
        return 0;
    if (w->nhops && w->last_loc == loc && w->last_t0 == t1) {
        w->last_t0 = t0;
        if (hs && hs->n)
            hs->v[hs->n - 1].t0 = t0;
        return 0;
    }
    if (hs && hs->n == hs->cap) {
        size_t cap = hs->cap ? 2 * hs->cap : 16;
        struct st_rc_hop *v = realloc(hs->v, cap * sizeof *v);
        if (v)
            hs->v = v;
        uint64_t *idx = v ? realloc(hs->idx, cap * sizeof *idx) : NULL;
        if (!idx)
            return -1;
        hs->idx = idx, hs->cap = cap;
    }
    if (hs)
        hs->v[hs->n] = (struct st_rc_hop){ loc, t0, t1 }, hs->idx[hs->n++] = w->nhops;
    w->nhops++, w->last_loc = loc, w->last_t0 = t0;
    return 0;
}

/* Where the walk starts: the latest enter of MPI_Finalize, else the latest last event (ties: smaller
 * location). */
static uint32_t start_loc(const st_rc_input_t *in)
{
    uint32_t h = RC_NONE;
    uint64_t best = 0;
    for (uint32_t l = 0; l < in->nlocs; l++)
        for (uint32_t c = 0; c < in->locs[l].ncalls; c++)
            if ((in->locs[l].calls[c].flags & ST_RC_FINALIZE) && (h == RC_NONE || in->locs[l].calls[c].enter > best))
                h = l, best = in->locs[l].calls[c].enter;
    for (uint32_t l = 0; h == RC_NONE && l < in->nlocs; l++)
        if (l == 0 || in->locs[l].last > best)
            best = in->locs[l].last;
    for (uint32_t l = 0; h == RC_NONE && l < in->nlocs; l++)
        if (in->locs[l].last == best)
            h = l;
    return h;
}

/* The delayer that entered while the holder was in call X (before the cursor t) and whose location
 * the walk did not leave at that moment; loc RC_NONE if none (*e: its enter). */
static rc_at_t jump_of(const rc_walk_t *w, const st_rc_call_t *X, const rc_wait_t *KW, uint64_t *enter)
{
    rc_at_t best = { RC_NONE, 0 };
    uint64_t be = 0;
    for (uint32_t k = 0; k < X->nwait; k++) {
        rc_at_t by = KW[X->wait_at + k].by;
        if (by.loc == RC_NONE || by.loc == w->h)
            continue;
        uint64_t e = KW[X->wait_at + k].by_enter;
        if (e < X->enter || e > X->leave || w->seen[by.loc] == (e < w->t ? e : w->t))
            continue;
        if (rc_later_at(e, by, be, best))
            best = by, be = e;
    }
    *enter = be;
    return best;
}

int rc_walk_on(rc_walk_t *w, const st_rc_loc_t *L, const rc_wait_t *KW, st_an_result_t *res, uint32_t lres,
               rc_hops_t *hops)
{
    while (w->e >= 0) {
        uint32_t i = (uint32_t)(w->e / 2);
        uint64_t a, b;
        if (w->e & 1)
            a = L->calls[i].enter, b = L->calls[i].leave;
        else
            a = i ? L->calls[i - 1].leave : L->first, b = i < L->ncalls ? L->calls[i].enter : L->last;
        b = b < w->t ? b : w->t;
        a = a < w->first ? w->first : a;
        a = a < b ? a : b;
        credit(res, 0, lres, w->t - b); /* after the holder's last event */
        w->t = b;
        if (w->e & 1) {
            uint64_t s;
            rc_at_t by = jump_of(w, &L->calls[i], KW, &s);
            if (by.loc != RC_NONE) {
                s = s < w->t ? s : w->t;
                credit(res, L->calls[i].cnode, lres, w->t - s);
                w->t = w->seen[w->h] = s;
                if (hop(w, hops, w->h, w->t, w->hop_end))
                    return -1;
                w->hop_end = w->t;
                w->h = by.loc, w->e = 2 * (int64_t)by.call;
                w->seen[w->h] = w->t;
                return 1;
            }
            credit(res, L->calls[i].cnode, lres, w->t - a);
        } else if (i < L->ncalls)
            credit_prof(res, lres, &L->prof[L->calls[i].prof_at], L->calls[i].nprof, w->t - a);
        else
            credit_prof(res, lres, &L->prof[L->tail_at], L->ntail, w->t - a);
        w->t = w->seen[w->h] = a;
        w->e--;
    }
    credit(res, 0, lres, w->t - w->first); /* before the holder's first event */
    return hop(w, hops, w->h, w->first, w->hop_end);
}

static int walk(rc_ctx_t *x, st_rc_causes_t *causes)
{
    const st_rc_input_t *in = x->in;
    uint32_t h = start_loc(in);
    if (h == RC_NONE)
        return 0;
    uint64_t *seen = malloc(in->nlocs * sizeof *seen);
    if (!seen)
        return -1;
    for (uint32_t l = 0; l < in->nlocs; l++)
        seen[l] = UINT64_MAX;
    rc_walk_t w = { .h = h, .e = 2 * (int64_t)in->locs[h].ncalls, .t = x->last, .hop_end = x->last,
                    .first = x->first, .last = x->last, .seen = seen };
    rc_hops_t hs = { 0 };
    int rc;
    while ((rc = rc_walk_on(&w, &in->locs[w.h], &x->w[x->wbase[w.h]], x->res, w.h, causes ? &hs : NULL)) == 1)
        ;
    free(seen);
    free(hs.idx);
    if (causes)
        causes->path = hs.v, causes->npath = hs.n;
    return rc;
}

void rc_loc_T(const st_an_result_t *res, uint32_t lres, const st_rc_loc_t *L, int64_t *T)
{
    memset(T, 0, sizeof *T * res->ncnodes);
    for (uint64_t p = 0; p < L->nprof; p++)
        T[L->prof[p].cnode] += (int64_t)L->prof[p].ticks;
    for (uint32_t i = 0; i < L->ncalls; i++) {
        const st_rc_call_t *C = &L->calls[i];
        if (C->flags & ST_RC_IDLE)
            continue;
        double w = 0;
        for (uint32_t k = 0; k < C->nwait; k++)
            w += L->waits[C->wait_at + k].ticks;
        T[C->cnode] += (int64_t)(C->leave - C->enter) - rc_llround(w);
    }
    for (uint32_t c = 0; c < res->ncnodes; c++) { /* a worker thread outside its teams is idle */
        T[c] -= rc_llround(*st_an_sev(res, ST_AN_M_OMP_IDLE, c, lres));
        T[c] = T[c] > 0 ? T[c] : 0;
    }
}

static void serial_T(const void *arg, uint32_t l, int64_t *T)
{
    const rc_ctx_t *x = arg;
    rc_loc_T(x->res, l, &x->in->locs[l], T);
}

/* Location l's headroom factor h_l (the header's formula) from its T over the call paths. */
static double headroom(const double *CP, const int64_t *T, uint32_t nc)
{
    double U = 0, X = 0;
    for (uint32_t c = 0; c < nc; c++)
        if (T[c] == 0)
            U += CP[c];
        else if ((double)T[c] > CP[c])
            X += (double)T[c] - CP[c];
    return U > X ? (U - X) / U : 0;
}

int rc_derive(st_an_result_t *r, void (*loc_T)(const void *arg, uint32_t l, int64_t *T), const void *arg)
{
    uint32_t nc = r->ncnodes, nl = r->nlocs;
    double *CP = calloc(nc ? nc : 1, sizeof *CP);
    double *G = calloc(nc ? nc : 1, sizeof *G), *H = calloc(nc ? nc : 1, sizeof *H);
    int64_t *Tsum = calloc(nc ? nc : 1, sizeof *Tsum), *T = calloc(nc ? nc : 1, sizeof *T);
    int rc = CP && G && H && Tsum && T ? 0 : -1;
    for (uint32_t c = 0; !rc && c < nc; c++) {
        for (uint32_t l = 0; l < nl; l++)
            CP[c] += *st_an_sev(r, ST_AN_M_CRITICAL_PATH, c, l);
    }
    for (uint32_t l = 0; !rc && l < nl; l++) {
        loc_T(arg, l, T);
        for (uint32_t c = 0; c < nc; c++)
            Tsum[c] += T[c];
    }
    for (uint32_t l = 0; !rc && l < nl; l++) {
        loc_T(arg, l, T);
        double sumT = 0, sume = 0;
        for (uint32_t c = 0; c < nc; c++) {
            double t = (double)T[c], cpl = *st_an_sev(r, ST_AN_M_CRITICAL_PATH, c, l);
            sumT += t;
            if (CP[c] > 0) {
                double over = CP[c] - (double)Tsum[c] / nl;
                /* a part of the path's value there, which already holds it: not added to it */
                *st_an_sev(r, ST_AN_M_CP_IMBALANCE, c, l) += over > 0 ? cpl * over / CP[c] : 0;
                rc_add(r, ST_AN_M_CP_ACTIVITIES, c, l, t < CP[c] ? t : CP[c]);
                sume += CP[c] > t ? CP[c] - t : 0;
            }
            rc_add(r, ST_AN_M_NON_CP_ACTIVITIES, c, l, t > CP[c] ? t - CP[c] : 0);
        }
        double waiting = (double)r->span[l] - sumT; /* all of l's time that is no T: its waits and idleness */
        double f = sume > 0 && waiting > 0 ? waiting / sume : 0;
        for (uint32_t c = 0; f > 0 && c < nc; c++)
            if (CP[c] > (double)T[c])
                G[c] += (CP[c] - (double)T[c]) * f;
        double h = headroom(CP, T, nc);
        for (uint32_t c = 0; h > 0 && c < nc; c++)
            if (T[c] == 0)
                H[c] += CP[c] * h;
    }
    /* the impact (to it and its ancestors) and its two parts, which it already holds: the inter-partition
     * part, the rest intra (>= 0: H <= G but for rounding, and a product's rounding keeps the order) */
    for (uint32_t c = 0; !rc && c < nc; c++) {
        double Hc = H[c] < G[c] ? H[c] : G[c];
        for (uint32_t l = 0; G[c] > 0 && l < nl; l++) {
            double share = *st_an_sev(r, ST_AN_M_CRITICAL_PATH, c, l) / CP[c], v = share * G[c], inter = share * Hc;
            rc_add(r, ST_AN_M_CP_IMBALANCE_IMPACT, c, l, v);
            *st_an_sev(r, ST_AN_M_INTER_PARTITION, c, l) += inter;
            *st_an_sev(r, ST_AN_M_INTRA_PARTITION, c, l) += v - inter;
        }
    }
    free(CP), free(G), free(H), free(Tsum), free(T);
    return rc;
}

int rc_cpath(rc_ctx_t *x, st_rc_causes_t *c)
{
    if (walk(x, c))
        return -1;
    return rc_derive(x->res, serial_T, x);
}
