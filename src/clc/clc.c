/*
 * clc.c — the CLC math and the per-location forward and backward passes (clc.h).
 *
 * Times are uint64 ns on the global clock. All arithmetic that mixes times is done on
 * differences (which fit a double's 53 bits for any real run; absolute CLOCK_REALTIME
 * values would not), and the backward ramp is computed exactly in 128-bit integers so
 * that rounding can never reorder two events or push a send past its limit.
 */
#include "clc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* ---- the math -------------------------------------------------------------------------------------- */

/* A slope num/den with den > 0. */
typedef struct frac {
    uint64_t num, den;
} frac_t;

static int frac_less(frac_t a, frac_t b) { return (u128)a.num * b.den < (u128)b.num * a.den; }

static uint64_t mul_div_floor(uint64_t a, uint64_t b, uint64_t d) { return (uint64_t)((u128)a * b / d); }

static uint64_t mul_div_ceil(uint64_t a, uint64_t b, uint64_t d) { return (uint64_t)(((u128)a * b + d - 1) / d); }

/*
 * h_j(x) for x <= x_j is the line through the origin with slope cap_j / x_j; the lower
 * envelope of these over all j with x_j >= x is x * (min slope): one backward sweep.
 * h_j(x) for x > x_j is the line through (W, dt) with slope (dt - cap_j) / (W - x_j); the
 * lower envelope over j with x_j < x is dt - (W - x) * (max slope): one forward sweep.
 * The ideal ramp dt*x/W belongs to both families.
 */
size_t st_clc_ramp(uint64_t W, uint64_t dt, size_t n, const uint64_t *x, const uint64_t *cap, uint64_t *shift)
{
    const frac_t ideal = { dt, W };
    size_t binding = 0;
    frac_t lo = ideal; /* backward sweep: min over suffix of cap/x */
    for (size_t i = n; i-- > 0;) {
        uint64_t xi = x[i] < W ? x[i] : W;
        if (cap[i] < dt && xi > 0) {
            frac_t s = { cap[i], xi };
            if (frac_less(s, ideal))
                binding++;
            if (frac_less(s, lo))
                lo = s;
        }
        shift[i] = mul_div_floor(xi, lo.num, lo.den);
    }
    frac_t hi = ideal; /* forward sweep: max over prefix of (dt-cap)/(W-x) */
    uint64_t at_w = dt; /* caps of earlier events at x == W, where the second segment is empty */
    for (size_t i = 0; i < n; i++) {
        uint64_t xi = x[i] < W ? x[i] : W;
        uint64_t up = dt - mul_div_ceil(W - xi, hi.num, hi.den);
        if (xi == W && at_w < up)
            up = at_w;
        if (up < shift[i])
            shift[i] = up;
        if (cap[i] < dt && xi < W) {
            frac_t s = { dt - cap[i], W - xi };
            if (frac_less(hi, s))
                hi = s;
        } else if (cap[i] < at_w && xi == W) {
            at_w = cap[i];
        }
    }
    return binding;
}

/* ---- forward pass ----------------------------------------------------------------------------------- */

static int push_jump(st_clc_fwd_t *st, uint64_t ev, uint64_t dt, uint8_t kind)
{
    if (st->njumps == st->capjumps) {
        size_t n = st->capjumps ? 2 * st->capjumps : 16;
        st_clc_jump_t *j = st_mem_realloc(st->jumps, n * sizeof *j);
        if (!j)
            return -1;
        st->jumps = j;
        st->capjumps = n;
    }
    st->jumps[st->njumps++] = (st_clc_jump_t){ ev, dt, kind };
    return 0;
}

/* Incremental pass, clean state: the first port at or after k that must be visited (hot),
 * backed up to the first port of its event; nports when none is left. */
static uint64_t next_hot(const uint8_t *hot, const st_rel_port_t *ports, uint64_t nports, uint64_t k)
{
    uint64_t h = k;
    while (h < nports && !hot[h])
        h++;
    while (h > k && h < nports && ports[h - 1].ev == ports[h].ev)
        h--;
    return h;
}

/* Sparse reads of the events (the ports' events: one in a few, with the engine's callbacks
 * in between) miss the caches unless prefetched. Integer arithmetic: the address is a hint,
 * never dereferenced (a prefetch does not fault). always_inline: GCC 12 takes a function
 * that only prefetches for one without effects and drops its calls. */
#define PREFETCH_AHEAD 16

static inline __attribute__((always_inline)) void prefetch_port_event(const st_rel_loc_t *loc, const st_rel_port_t *ports, uint64_t nports, uint64_t k)
{
    if (k + PREFETCH_AHEAD < nports)
        __builtin_prefetch((const void *)((uintptr_t)loc->ev + ports[k + PREFETCH_AHEAD].ev * sizeof *loc->ev));
}

enum { MOVES = 2 }; /* forward_unmoved: st->pos is the first event that moves */

/*
 * The forward pass over a location without orig (the parallel engine's while LC == C): it
 * visits only the ports, as events without ports keep C where C does not decrease (before
 * loc->mono), and a port event keeps it unless a receive jumps. Returns ST_CLC_DONE,
 * ST_CLC_BLOCKED, or MOVES with st at the first event that moves (st->pos; st->port its
 * first port, or where the next port is; *force what is left of the caller's force).
 */
static int forward_unmoved(const st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports, uint64_t nports,
                           st_clc_fwd_t *st, const st_clc_fwd_ops_t *ops, void *ctx, int *force)
{
    const uint64_t n = loc->n, mono = loc->mono;
    uint64_t i = st->pos, k = st->port;
    for (;;) {
        while (k < nports && ports[k].ev < i)
            k++;
        if (st->hot)
            k = next_hot(st->hot, ports, nports, k);
        uint64_t e = k < nports && ports[k].ev < n ? ports[k].ev : n;
        st->port = k;
        if (mono < e || (mono == e && e < n && e > 0)) { /* C decreases at or before the next port */
            st->pos = mono > i ? mono : i;
            return MOVES;
        }
        st->pos = i = e;
        if (i == n)
            return ST_CLC_DONE;
        uint64_t c = loc->ev[i].time, lc = c;
        for (; k < nports && ports[k].ev == i && ports[k].role == ST_REL_RECV; k++) {
            uint64_t bound = 0;
            uint8_t kind = 0;
            prefetch_port_event(loc, ports, nports, k);
            if (!ops->recv_bound(ctx, l, &ports[k], *force && k == st->blocked, &bound, &kind)) {
                st->blocked = k;
                return ST_CLC_BLOCKED;
            }
            if (bound > lc)
                lc = bound;
        }
        if (lc != c) /* a receive jumps: its event moves */
            return MOVES;
        st->pos = ++i, st->prev_c = st->prev_lc = c;
        *force = 0;
        for (; k < nports && ports[k].ev == i - 1; k++) {
            prefetch_port_event(loc, ports, nports, k);
            if (ports[k].role == ST_REL_SEND)
                ops->send_done(ctx, l, &ports[k], c);
        }
    }
}

/* A location without orig (LC == C so far, forward_unmoved) gets its dense arrays at the
 * first event that moves, with LC = C before it, as a pass over the unmoved location
 * would have left them; the pass goes on over them. */
int st_clc_forward_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                       uint64_t nports, st_clc_fwd_t *st, const st_clc_fwd_ops_t *ops, void *ctx, int force)
{
    if (!loc->orig) {
        int rc = forward_unmoved(loc, l, ports, nports, st, ops, ctx, &force);
        if (rc != MOVES)
            return rc;
        if (st_rel_times_materialize(loc))
            return ST_CLC_NOMEM;
        st->prev_c = st->prev_lc = st->pos ? loc->orig[st->pos - 1] : 0;
    }
    const uint64_t *C = loc->orig;
    uint64_t *T = st_rel_lc(loc);
    const double gamma = p->gamma;
    const uint64_t delta = p->delta, n = loc->n;
    const uint8_t *hot = st->hot;
    uint64_t i = st->pos, k = st->port, pc = st->prev_c, plc = st->prev_lc;
    int dirty = st->dirty;
    uint64_t changed = 0;
    while (i < n) {
        while (k < nports && ports[k].ev < i) /* ports of events beyond the location: ignored */
            k++;
        if (hot && !dirty) { /* T[0 .. i) is current and the rest as before: skip to the next hot port */
            k = next_hot(hot, ports, nports, k);
            if (k == nports || ports[k].ev >= n) {
                i = n;
                break;
            }
            i = ports[k].ev;
            if (i > 0)
                pc = C[i - 1], plc = T[i - 1];
        } else {
            uint64_t stop = k < nports && ports[k].ev < n ? ports[k].ev : n;
            if (i == 0 && stop > 0) /* the first event keeps C (full passes: incremental ones start clean) */
                T[0] = pc = plc = C[0], i = 1;
            if (!hot) {
                for (; i < stop; i++) { /* events without ports: the tight loop most events take */
                    uint64_t c = C[i];
                    plc = T[i] = st_clc_base_of(gamma, delta, c, pc, plc);
                    pc = c;
                }
            } else {
                for (; dirty && i < stop; i++) { /* ... until LC agrees with the earlier pass again */
                    uint64_t c = C[i], v = st_clc_base_of(gamma, delta, c, pc, plc);
                    dirty = v != T[i];
                    changed += (uint64_t)dirty;
                    plc = T[i] = v;
                    pc = c;
                }
                if (!dirty)
                    continue;
            }
            if (i == n)
                break;
        }
        /* An event with ports: the callbacks may read st (e.g. pos), so it is current here. */
        st->pos = i, st->prev_c = pc, st->prev_lc = plc, st->port = k, st->dirty = (uint8_t)dirty;
        uint64_t c = C[i], base = i == 0 ? c : st_clc_base_of(gamma, delta, c, pc, plc), lc = base;
        uint8_t why = 0;
        for (; k < nports && ports[k].ev == i && ports[k].role == ST_REL_RECV; k++) {
            uint64_t bound = 0;
            uint8_t kind = 0;
            if (!ops->recv_bound(ctx, l, &ports[k], force && k == st->blocked, &bound, &kind)) {
                st->blocked = k;
                st->changed += changed;
                return ST_CLC_BLOCKED;
            }
            if (bound > lc)
                lc = bound, why = kind;
        }
        if (hot) /* (a full pass may find T uninitialized) */
            changed += (uint64_t)(dirty = lc != T[i]);
        T[i] = lc;
        if (!hot && lc > base && push_jump(st, i, lc - base, why))
            return ST_CLC_NOMEM;
        pc = c, plc = lc, i++;
        st->pos = i, st->prev_c = pc, st->prev_lc = plc, st->dirty = (uint8_t)dirty;
        force = 0;
        for (; k < nports && ports[k].ev == i - 1; k++)
            if (ports[k].role == ST_REL_SEND)
                ops->send_done(ctx, l, &ports[k], lc);
        st->port = k;
    }
    st->pos = i, st->prev_c = pc, st->prev_lc = plc, st->port = k, st->dirty = (uint8_t)dirty;
    st->changed += changed;
    return ST_CLC_DONE;
}

int st_clc_jumps_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                     uint64_t nports, st_clc_fwd_t *st, const st_clc_fwd_ops_t *ops, void *ctx)
{
    st->njumps = 0;
    if (!loc->orig) /* nothing moved: no jumps */
        return ST_CLC_DONE;
    const uint64_t *C = loc->orig, *T = st_rel_lc(loc);
    for (uint64_t k = 0; k < nports && ports[k].ev < loc->n;) {
        uint64_t i = ports[k].ev, base = i == 0 ? C[0] : st_clc_base(p, C[i], C[i - 1], T[i - 1]), lc = base;
        uint8_t why = 0;
        for (; k < nports && ports[k].ev == i && ports[k].role == ST_REL_RECV; k++) {
            uint64_t bound = 0;
            uint8_t kind = 0;
            if (!ops->recv_bound(ctx, l, &ports[k], 1, &bound, &kind))
                return ST_CLC_BLOCKED;
            if (bound > lc)
                lc = bound, why = kind;
        }
        for (; k < nports && ports[k].ev == i; k++)
            ;
        /* T[i] == lc, unless a dependency cycle forced the receive from fewer sends */
        if (T[i] > base && push_jump(st, i, T[i] - base, why))
            return ST_CLC_NOMEM;
    }
    return ST_CLC_DONE;
}

/* ---- backward pass ------------------------------------------------------------------------------------ */

void st_clc_scratch_free(st_clc_scratch_t *s)
{
    st_mem_free(s->x);
    st_mem_free(s->cap);
    st_mem_free(s->shift);
    memset(s, 0, sizeof *s);
}

static int scratch_reserve(st_clc_scratch_t *s, size_t n)
{
    if (n <= s->cap_n)
        return 0;
    size_t m = s->cap_n ? s->cap_n : 256;
    while (m < n)
        m *= 2;
    uint64_t *x = st_mem_realloc(s->x, m * sizeof *x);
    if (x)
        s->x = x;
    uint64_t *c = st_mem_realloc(s->cap, m * sizeof *c);
    if (c)
        s->cap = c;
    uint64_t *h = st_mem_realloc(s->shift, m * sizeof *h);
    if (h)
        s->shift = h;
    if (!x || !c || !h)
        return -1;
    s->cap_n = m;
    return 0;
}

/* First port with ev >= ev (ports sorted by ev). */
static uint64_t first_port(const st_rel_port_t *ports, uint64_t nports, uint64_t ev)
{
    uint64_t lo = 0, hi = nports;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ports[mid].ev < ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Length of the amortization interval for a jump dt: ceil(dt / amort), at least dt. */
static uint64_t amort_len(const st_clc_params_t *p, uint64_t dt)
{
    double la = ceil((double)dt / p->amort);
    if (!(la < 1.8e19))
        return UINT64_MAX / 2;
    return (uint64_t)la < dt ? dt : (uint64_t)la;
}

/* Caps of the events [lo, r) from their send ports' limits. */
static void fill_caps(st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports, uint64_t nports, uint64_t lo,
                      uint64_t r, st_clc_limit_fn limit, void *ctx, uint64_t *cap)
{
    for (uint64_t k = first_port(ports, nports, lo); k < nports && ports[k].ev < r; k++) {
        if (ports[k].role != ST_REL_SEND)
            continue;
        uint64_t lim = limit(ctx, l, &ports[k]), t = st_rel_lc(loc)[ports[k].ev];
        if (lim == UINT64_MAX)
            continue;
        uint64_t room = lim > t ? lim - t : 0;
        if (room < cap[ports[k].ev - lo])
            cap[ports[k].ev - lo] = room;
    }
}

static int amortize_jump(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                         uint64_t nports, const st_clc_jump_t *j, st_clc_limit_fn limit, void *ctx,
                         st_clc_scratch_t *s, uint64_t *ramps, uint64_t *bent)
{
    uint64_t *T = st_rel_lc(loc);
    uint64_t r = j->ev, dt = j->dt, bk = T[r] - dt, first = T[0];
    uint64_t la = amort_len(p, dt);
    uint64_t b0 = bk > first && bk - first > la ? bk - la : first;
    if (r == 0 || bk <= b0)
        return 0;
    uint64_t lo = r;
    while (lo > 0 && T[lo - 1] > b0)
        lo--;
    size_t n = (size_t)(r - lo);
    if (n == 0)
        return 0;
    if (scratch_reserve(s, n))
        return -1;
    for (size_t i = 0; i < n; i++) {
        s->x[i] = T[lo + i] - b0;
        s->cap[i] = UINT64_MAX;
    }
    fill_caps(loc, l, ports, nports, lo, r, limit, ctx, s->cap);
    size_t binding = st_clc_ramp(bk - b0, dt, n, s->x, s->cap, s->shift);
    for (size_t i = 0; i < n; i++)
        T[lo + i] += s->shift[i];
    if (ramps)
        ++*ramps;
    if (bent && binding)
        ++*bent;
    return 0;
}

int st_clc_backward_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                        uint64_t nports, const st_clc_jump_t *jumps, size_t njumps, st_clc_limit_fn limit,
                        void *ctx, st_clc_scratch_t *scratch, uint64_t *ramps, uint64_t *bent)
{
    for (size_t k = 0; k < njumps; k++)
        if (jumps[k].ev < loc->n &&
            amortize_jump(p, loc, l, ports, nports, &jumps[k], limit, ctx, scratch, ramps, bent))
            return -1;
    return 0;
}
