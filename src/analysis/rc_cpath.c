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

typedef struct walk {
    rc_ctx_t       *x;
    st_rc_causes_t *c;
    size_t          cap;
} walk_t;

static void credit(rc_ctx_t *x, uint32_t cnode, uint32_t loc, uint64_t v)
{
    rc_add(x->res, ST_AN_M_CRITICAL_PATH, cnode, loc, (double)v);
}

/* len ticks of a segment of location l with profile p[0..n). */
static void credit_prof(rc_ctx_t *x, uint32_t l, const st_rc_prof_t *p, uint32_t n, uint64_t len)
{
    uint64_t P = 0, sum = 0;
    for (uint32_t i = 0; i < n; i++)
        P += p[i].ticks;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = P <= len ? p[i].ticks : (uint64_t)((u128)p[i].ticks * len / P);
        credit(x, p[i].cnode, l, v);
        sum += v;
    }
    credit(x, 0, l, len - sum);
}

/* The path's hop [t0, t1) on loc, joined to the previous one if it continues it. 0, or -1 (memory). */
static int hop(walk_t *k, uint32_t loc, uint64_t t0, uint64_t t1)
{
    st_rc_causes_t *c = k->c;
    if (!c || t1 <= t0)
        return 0;
    if (c->npath && c->path[c->npath - 1].loc == loc && c->path[c->npath - 1].t0 == t1) {
        c->path[c->npath - 1].t0 = t0;
        return 0;
    }
    if (c->npath == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        struct st_rc_hop *p = realloc(c->path, cap * sizeof *p);
        if (!p)
            return -1;
        c->path = p, k->cap = cap;
    }
    c->path[c->npath++] = (struct st_rc_hop){ loc, t0, t1 };
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

/* The delayer that entered while the holder h was in call i (before the cursor t) and whose location
 * the walk did not leave at that moment; loc RC_NONE if none. */
static rc_at_t jump_of(const rc_ctx_t *x, uint32_t h, uint32_t i, uint64_t t, const uint64_t *seen)
{
    const st_rc_call_t *X = &x->in->locs[h].calls[i];
    rc_at_t best = { RC_NONE, 0 };
    for (uint32_t k = 0; k < X->nwait; k++) {
        rc_at_t by = x->w[x->wbase[h] + X->wait_at + k].by;
        if (by.loc == RC_NONE || by.loc == h)
            continue;
        uint64_t e = x->in->locs[by.loc].calls[by.call].enter;
        if (e < X->enter || e > X->leave || seen[by.loc] == (e < t ? e : t))
            continue;
        if (rc_later(x->in, by, best))
            best = by;
    }
    return best;
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
    walk_t k = { x, causes, 0 };
    uint64_t t = x->last, hop_end = t;
    int64_t e = 2 * (int64_t)in->locs[h].ncalls; /* 2i: the segment before call i, 2i + 1: call i, 2n: the tail */
    int rc = 0;
    while (e >= 0 && !rc) {
        const st_rc_loc_t *L = &in->locs[h];
        uint32_t i = (uint32_t)(e / 2);
        uint64_t a, b;
        if (e & 1)
            a = L->calls[i].enter, b = L->calls[i].leave;
        else
            a = i ? L->calls[i - 1].leave : L->first, b = i < L->ncalls ? L->calls[i].enter : L->last;
        b = b < t ? b : t;
        a = a < x->first ? x->first : a;
        a = a < b ? a : b;
        credit(x, 0, h, t - b); /* after the holder's last event */
        t = b;
        if (e & 1) {
            rc_at_t by = jump_of(x, h, i, t, seen);
            if (by.loc != RC_NONE) {
                uint64_t s = in->locs[by.loc].calls[by.call].enter;
                s = s < t ? s : t;
                credit(x, L->calls[i].cnode, h, t - s);
                t = seen[h] = s;
                rc = hop(&k, h, t, hop_end);
                hop_end = t;
                h = by.loc, e = 2 * (int64_t)by.call;
                seen[h] = t;
                continue;
            }
            credit(x, L->calls[i].cnode, h, t - a);
        } else if (i < L->ncalls)
            credit_prof(x, h, &L->prof[L->calls[i].prof_at], L->calls[i].nprof, t - a);
        else
            credit_prof(x, h, &L->prof[L->tail_at], L->ntail, t - a);
        t = seen[h] = a;
        e--;
    }
    if (!rc) {
        credit(x, 0, h, t - x->first); /* before the holder's first event */
        rc = hop(&k, h, x->first, hop_end);
    }
    free(seen);
    return rc;
}

/* T(c, l) for every cnode c of location l into T: the location's time at c outside its
 * waits, from the timeline as the critical path credits it (the profiles between the calls, where the
 * time between two calls is the function both lie in, and the calls less their waits); an idle
 * stretch and the result's Idle threads are no time of the thread's. wl: unused scratch, zeros in, zeros out. */
static void loc_T(const rc_ctx_t *x, uint32_t l, int64_t *T, double *wl)
{
    const st_rc_loc_t *L = &x->in->locs[l];
    (void)wl;
    memset(T, 0, sizeof *T * x->res->ncnodes);
    for (uint64_t p = 0; p < L->nprof; p++)
        T[L->prof[p].cnode] += (int64_t)L->prof[p].ticks;
    for (uint32_t i = 0; i < L->ncalls; i++) {
        const st_rc_call_t *C = &L->calls[i];
        if (C->flags & ST_RC_IDLE)
            continue;
        double w = 0;
        for (uint32_t k = 0; k < C->nwait; k++)
            w += L->waits[C->wait_at + k].ticks;
        T[C->cnode] += (int64_t)(C->leave - C->enter) - (int64_t)llround(w);
    }
    for (uint32_t c = 0; c < x->res->ncnodes; c++) { /* a worker thread outside its teams is idle */
        T[c] -= (int64_t)llround(*st_an_sev(x->res, ST_AN_M_OMP_IDLE, c, l));
        T[c] = T[c] > 0 ? T[c] : 0;
    }
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

static int derive(rc_ctx_t *x)
{
    st_an_result_t *r = x->res;
    uint32_t nc = r->ncnodes, nl = r->nlocs;
    double *CP = calloc(nc ? nc : 1, sizeof *CP), *wl = calloc(nc ? nc : 1, sizeof *wl);
    double *G = calloc(nc ? nc : 1, sizeof *G), *H = calloc(nc ? nc : 1, sizeof *H);
    int64_t *Tsum = calloc(nc ? nc : 1, sizeof *Tsum), *T = calloc(nc ? nc : 1, sizeof *T);
    int rc = CP && wl && G && H && Tsum && T ? 0 : -1;
    for (uint32_t c = 0; !rc && c < nc; c++) {
        for (uint32_t l = 0; l < nl; l++)
            CP[c] += *st_an_sev(r, ST_AN_M_CRITICAL_PATH, c, l);
    }
    for (uint32_t l = 0; !rc && l < nl; l++) {
        loc_T(x, l, T, wl);
        for (uint32_t c = 0; c < nc; c++)
            Tsum[c] += T[c];
    }
    for (uint32_t l = 0; !rc && l < nl; l++) {
        loc_T(x, l, T, wl);
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
    free(CP), free(wl), free(G), free(H), free(Tsum), free(T);
    return rc;
}

int rc_cpath(rc_ctx_t *x, st_rc_causes_t *c)
{
    if (walk(x, c))
        return -1;
    return derive(x);
}
