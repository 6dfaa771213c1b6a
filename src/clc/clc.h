/*
 * clc.h — controlled logical clock (CLC): corrects the remaining clock-condition
 * violations of a trace (docs/clc.md: the correction, and under "Decisions" where it departs
 * from the papers).
 *
 * Layers, each usable on its own:
 *  - the math: st_clc_base() (forward amortization of one event), st_clc_ramp()
 *    (backward amortization of one jump, bent through send limits);
 *  - per-location passes that get remote information through callbacks:
 *    st_clc_forward_loc() advances one location until a receive whose sends are not
 *    known yet; st_clc_backward_loc() amortizes one location's jumps given the limits
 *    of its sends. The parallel in-run version drives these with exchanged values;
 *  - st_clc_run(): the sequential reference over a whole trace (CLI, tests).
 *  - statistics and the violation counter used by `synctrace check`.
 *
 * MPI-free. Functions are not thread-safe with respect to the same trace or state;
 * distinct locations may be processed by distinct threads if the callbacks allow it.
 */
#ifndef ST_CLC_H
#define ST_CLC_H

#include <stddef.h>
#include <stdint.h>

#include "../relations/relations.h"

/* ---- parameters ------------------------------------------------------------------------- */

typedef struct st_clc_params {
    double   gamma;    /* (0,1]: minimal ratio corrected / original local interval after a jump */
    uint64_t delta;    /* ns: minimal spacing of two local events (timer resolution) */
    uint64_t mu_proc;  /* ns: minimal latency inside one process (OpenMP, MPI self messages) */
    uint64_t mu_intra; /* ns: lower bound of the message latency between processes of one node */
    uint64_t mu_inter; /* ns: ... between nodes */
    double   amort;    /* (0,1]: backward amortization rate, jump / interval it is spread over */
    uint8_t  mu_source; /* st_clc_mu_source: where mu_intra / mu_inter come from */
} st_clc_params_t;

/*
 * Where mu_intra / mu_inter come from (docs/clc.md, "mu"). mu must be a lower bound of the
 * true latency between a send's event and its receive's event, never an estimate of it:
 *   NONE     no bound is known: 0 (the default; no measurement of the tool bounds it)
 *   USER     SYNCTRACE_CLC_MU
 *   UNKNOWN  read from an archive that does not say (written by an older version)
 */
enum st_clc_mu_source { ST_CLC_MU_SRC_NONE, ST_CLC_MU_SRC_USER, ST_CLC_MU_SRC_UNKNOWN };

/* "none", "user", "unknown"; parse: the source of a name, ST_CLC_MU_SRC_UNKNOWN if none. */
const char *st_clc_mu_source_name(unsigned src);
unsigned st_clc_mu_source_parse(const char *name);

/* gamma 0.99, delta 1 ns, mu_proc 1 ns, mu_intra = mu_inter = 0 (source none), amort 0.02.
 * The shim replaces delta by the timer resolution (docs/clc.md). */
void st_clc_params_default(st_clc_params_t *p);

/* Emits clc.state = state and the parameters as clc.gamma, clc.delta, clc.mu_intra,
 * clc.mu_inter, clc.mu_source, clc.mu_proc, clc.amort (archive properties SYNCTRACE::CLC_*). */
typedef void (*st_clc_emit_fn)(void *ctx, const char *key, const char *value);
void st_clc_params_emit(const st_clc_params_t *p, const char *state, st_clc_emit_fn emit, void *ctx);

/* 0 if p is usable; else -1 with one line in err naming the bad field and the accepted range. */
int st_clc_params_check(const st_clc_params_t *p, char *err, size_t errlen);

/* mu of an instance: the smallest latency among the classes in mumask (0 if none). */
uint64_t st_clc_mu(const st_clc_params_t *p, unsigned mumask);

/*
 * Parameters from the configuration (params.c): gamma = SYNCTRACE_CLC_GAMMA, amort =
 * SYNCTRACE_CLC_AMORT, mu_proc = SYNCTRACE_CLC_MU_OMP; delta = SYNCTRACE_CLC_DELTA, or
 * the timer resolution when 0; mu_intra / mu_inter = SYNCTRACE_CLC_MU when > 0 (source
 * user), else 0 (source none). Validate the result with st_clc_params_check().
 */
struct st_config;
void st_clc_params_from_config(st_clc_params_t *p, const struct st_config *c, uint64_t timer_res_ns);

/* ---- the math ------------------------------------------------------------------------------ */

/*
 * Forward amortization of an event that is not the location's first:
 *   base = max( C, LCprev + min(delta, d), LCprev + floor(gamma * d) ),  d = max(C - Cprev, 0).
 * (min(delta, d): events the timer could not tell apart stay together; see docs/clc.md, Decisions 1.)
 */
static inline uint64_t st_clc_base_of(double gamma, uint64_t delta, uint64_t c, uint64_t c_prev, uint64_t lc_prev)
{
    uint64_t d = c > c_prev ? c - c_prev : 0;
    uint64_t step = d < delta ? d : delta;
    /* floor; gamma <= 1 keeps it <= d. Signed conversions where they are exact: x86-64
     * has no single instruction for the unsigned ones, and this is the forward pass's loop. */
    uint64_t g = d < (1ull << 62) ? (uint64_t)(int64_t)(gamma * (double)(int64_t)d) : (uint64_t)(gamma * (double)d);
    if (g > d)
        g = d;
    uint64_t b = lc_prev + (step > g ? step : g);
    return b > c ? b : c;
}

static inline uint64_t st_clc_base(const st_clc_params_t *p, uint64_t c, uint64_t c_prev, uint64_t lc_prev)
{
    return st_clc_base_of(p->gamma, p->delta, c, c_prev, lc_prev);
}

/*
 * Backward amortization of one jump dt spread over an interval of length W > 0 that ends
 * at the jumping receive. n events at positions x[i] in (0, W] (relative to the
 * interval's start, non-decreasing); cap[i] = how far event i may move (UINT64_MAX: no
 * limit; sends: limit - LC). Writes shift[i]: the ideal ramp floor(dt * x / W), bent
 * piecewise linearly through every binding cap: shift = floor(min over caps j of h_j(x)),
 * h_j the two-segment line (0,0) -> (x_j, cap_j) -> (W, dt). Exact integer arithmetic.
 * Guarantees 0 <= shift[i] <= min(dt, cap[i]) and shift non-decreasing in i.
 * Returns the number of caps that bind (0: the ideal ramp).
 */
size_t st_clc_ramp(uint64_t W, uint64_t dt, size_t n, const uint64_t *x, const uint64_t *cap, uint64_t *shift);

/* ---- per-location passes ---------------------------------------------------------------------- */

/* Where remote knowledge comes from during the forward pass. */
typedef struct st_clc_fwd_ops {
    /*
     * Receive port p of location loc: if every send it depends on has its forward LC,
     * sets *bound = max over those sends on OTHER locations of LC(s) + mu (0 if there
     * are none), *kind = the port's st_rel_kind, and returns 1; else returns 0.
     * With force != 0 it must answer from the sends known so far (cycle breaking).
     */
    int (*recv_bound)(void *ctx, uint32_t loc, const st_rel_port_t *p, int force, uint64_t *bound, uint8_t *kind);
    /* Send port p's event now has its final forward LC (lc). */
    void (*send_done)(void *ctx, uint32_t loc, const st_rel_port_t *p, uint64_t lc);
} st_clc_fwd_ops_t;

/* A jump made by forward amortization at a receive: dt = LC - base > 0. */
typedef struct st_clc_jump {
    uint64_t ev, dt;
    uint8_t  kind; /* st_rel_kind of the relation that forced it */
} st_clc_jump_t;

/* Forward state of one location; zero-initialize before the first call. */
typedef struct st_clc_fwd {
    uint64_t       pos;      /* next event to compute */
    uint64_t       port;     /* first port of event pos (index into the location's ports) */
    uint64_t       blocked;  /* after ST_CLC_BLOCKED: the receive port waited for */
    uint64_t       prev_c, prev_lc;
    st_clc_jump_t *jumps;    /* owned; free() when done */
    size_t         njumps, capjumps;
    /* NULL: a full pass. Else an incremental one over the LC of an earlier pass (in
     * st_rel_lc) whose inputs have since grown: hot[k] != 0 for every port k (indexed like
     * ports) whose inputs may differ from that pass's (changed receives; ports whose
     * callbacks must run anyway). Events are recomputed from hot ports on, only until
     * their LC agrees with the earlier pass again. Records no jumps: st_clc_jumps_loc. */
    const uint8_t *hot;
    uint8_t        dirty;   /* incremental pass: LC of event pos-1 differs from the earlier pass's */
    uint64_t       changed; /* incremental passes: events whose LC they changed */
} st_clc_fwd_t;

enum { ST_CLC_NOMEM = -1, ST_CLC_DONE = 0, ST_CLC_BLOCKED = 1 };

/*
 * Forward amortization of location loc (index l) from st->pos on: C(e) is read from
 * loc->orig, LC(e) written to st_rel_lc(loc). A location without orig is taken as unmoved
 * so far (LC == C == the events' times, non-decreasing before loc->mono) and gets orig
 * (st_rel_times_materialize) at its first event that moves. ports = the location's ports (sorted as
 * in st_rel_graph_t). Stops at a receive whose recv_bound() answers 0 (returns
 * ST_CLC_BLOCKED, st->blocked set; call again once it can answer) or at the end
 * (ST_CLC_DONE). force != 0 passes force to recv_bound for port st->blocked.
 * Calls send_done for every send port once its event is computed. Appends jumps.
 */
int st_clc_forward_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                       uint64_t nports, st_clc_fwd_t *st, const st_clc_fwd_ops_t *ops, void *ctx, int force);

/*
 * The jumps of location l once its (incremental) forward passes are complete, as a full
 * pass over the same inputs records them: at every receive, dt from the LC in
 * st_rel_lc(loc), the kind from the bounds ops->recv_bound gives now (force set). Replaces
 * st->jumps. Returns ST_CLC_DONE, ST_CLC_NOMEM, or ST_CLC_BLOCKED (a bound is missing).
 */
int st_clc_jumps_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                     uint64_t nports, st_clc_fwd_t *st, const st_clc_fwd_ops_t *ops, void *ctx);

/* limit(s) of a send port: min over its receives q on other locations of LC_forward(q) - mu,
 * UINT64_MAX if it has none. */
typedef uint64_t (*st_clc_limit_fn)(void *ctx, uint32_t loc, const st_rel_port_t *p);

/* Scratch arrays reused across calls; zero-initialize, free with st_clc_scratch_free(). */
typedef struct st_clc_scratch {
    uint64_t *x, *cap, *shift;
    size_t    cap_n;
} st_clc_scratch_t;
void st_clc_scratch_free(st_clc_scratch_t *s);

/*
 * Backward amortization of location loc (after its forward pass): the jumps in event
 * order, each spread over LA = dt / amort before it (never before the first event),
 * capped at the sends' limits, on st_rel_lc(loc). Only moves events forward; keeps their
 * order. Adds to *ramps and *bent (may be NULL). Returns 0, or -1 when out of memory.
 */
int st_clc_backward_loc(const st_clc_params_t *p, st_rel_loc_t *loc, uint32_t l, const st_rel_port_t *ports,
                        uint64_t nports, const st_clc_jump_t *jumps, size_t njumps, st_clc_limit_fn limit,
                        void *ctx, st_clc_scratch_t *scratch, uint64_t *ramps, uint64_t *bent);

/* ---- statistics ----------------------------------------------------------------------------------- */

/* Relations checked, per st_rel_kind. A "message" is one (instance, receive) pair with
 * at least one send on another location. */
typedef struct st_clc_vcount {
    uint64_t messages[ST_REL__KINDS];
    uint64_t violated[ST_REL__KINDS]; /* receive < max send (+ mu) */
    uint64_t max_err[ST_REL__KINDS];  /* largest max send (+ mu) - receive, ns */
    uint64_t sum_err[ST_REL__KINDS];
} st_clc_vcount_t;

/* Counts one relation of kind: a message, and a violation when recv < send + mu. */
void st_clc_vcount_add(st_clc_vcount_t *out, unsigned kind, uint64_t send, uint64_t mu, uint64_t recv);

/*
 * Counts violated relations (st_rel_relations, relations/graph.h) on the LC of a run
 * (st_rel_lc; orig != 0: on C, locs[].orig).
 * p == NULL: a violation is receive < send (what `synctrace check` reports);
 * else receive < send + mu, which CLC removes. Adds to *out.
 */
void st_clc_violations(const st_rel_graph_t *g, const st_rel_loc_t *locs, const st_clc_params_t *p, int orig,
                       st_clc_vcount_t *out);

/* The same over the instances ks[0 .. nk), with the refs' times from t (indexed like g->refs:
 * the parallel engine's dense snapshots, read in ref order instead of gathered from the events). */
void st_clc_violations_refs(const st_rel_graph_t *g, const uint64_t *ks, size_t nk, const uint64_t *t,
                            const st_clc_params_t *p, st_clc_vcount_t *out);

/* Relative deviation classes of local intervals (seed 000, Fig. 6). */
enum { ST_CLC_DEV_EXACT, ST_CLC_DEV_1PCT, ST_CLC_DEV_10PCT, ST_CLC_DEV_100PCT, ST_CLC_DEV_MORE, ST_CLC__DEVS };

typedef struct st_clc_stats {
    st_clc_vcount_t   reversed;    /* on C, mu = 0: receive before its send */
    st_clc_vcount_t   violations;  /* on C, with mu: what CLC had to correct */
    st_clc_vcount_t   remaining;   /* on LC, with mu: 0 unless dependency cycles were broken */
    uint64_t          jumps[ST_REL__KINDS];
    uint64_t          unresolved;  /* receives forced through a dependency cycle (inconsistent input) */
    uint64_t          ramps, ramps_bent;
    uint64_t          events, moved, max_shift, sum_shift;
    uint64_t          interval_time;          /* sum of original local intervals, ns */
    uint64_t          dev_time[ST_CLC__DEVS]; /* ... of it in each deviation class */
    uint64_t          max_pos_dev;            /* max |(LC(e)-LC(e0)) - (C(e)-C(e0))|, ns */
    st_rel_depstats_t deps;
} st_clc_stats_t;

/*
 * After a run: adds the moved/shift/deviation figures of the locations (those without orig
 * moved nothing), and in the same pass gives every moved event its LC (st_rel_lc), flags it ST_EVF_CLC_MOVED
 * and calls moved(ctx, e, C) for it when moved != NULL (the shim keeps C where the OTF2
 * writer reads it). One pass matters: traces are larger than caches.
 */
typedef void (*st_clc_moved_fn)(void *ctx, st_event_t *e, uint64_t orig);
void st_clc_finish_locs(st_clc_stats_t *s, st_rel_loc_t *locs, uint32_t nlocs, st_clc_moved_fn moved, void *ctx);

/* Counts one relation on C: receive recv (C) against the latest send it depends on (C), in
 * s->reversed (mu 0) and s->violations (with mu). */
void st_clc_stats_count_c(st_clc_stats_t *s, unsigned kind, uint64_t mu, uint64_t send, uint64_t recv);

/* st_clc_violations_refs on C into on_c (st_clc_stats_count_c), over the instances of src's
 * endpoints on their times (the relations the join would make of them), without their graph: a
 * part at a time (st_rel_graph_parts), in the cache. 0, or -1 (memory, endpoints out of order). */
int st_clc_violations_src(st_rel_epsrc_t *src, uint32_t nlocs, const st_clc_params_t *p, st_clc_stats_t *on_c);

/* Sums counts, takes maxima (the parallel version reduces per-rank stats with this). */
void st_clc_stats_merge(st_clc_stats_t *into, const st_clc_stats_t *from);

/* Emits every figure as a key/value pair ("clc.violations.p2p" = "12"); keys start "clc.". */
void st_clc_stats_emit(const st_clc_stats_t *s, st_clc_emit_fn emit, void *ctx);

/* ---- correction of rank data (correct.c) -------------------------------------------------------- */

/* Puts back C (locs[].orig, where allocated) and clears ST_EVF_CLC_MOVED: a failed
 * correction leaves the times as recorded. */
void st_clc_restore_orig(st_rel_input_t *in);

/*
 * The sequential correction of rank data in place (`synctrace clc`, OpenMP-only runs at
 * exit): st_clc_run over every location of rd[0 .. nrd); each moved event keeps C in the
 * writer's orig-time slot. sync: the MPI_Init / MPI_Finalize regions (may be NULL). stats
 * (may be NULL) is filled. keep (may be NULL): gets the graph of the relations when the correction moved
 * nothing and left no lock relation out (relations/locks.h), which is then the graph st_rel_graph_build
 * makes of the times as they stay (the wait-state analysis', which need not derive it again); else it is
 * left empty. Free it with st_rel_graph_free. Returns 0, or -1 when out of memory (times then restored to C).
 */
int st_clc_correct_rankdata(const st_clc_params_t *p, st_rankdata_t *rd, int nrd, const st_rel_sync_region_t *sync,
                            uint32_t nsync, st_clc_stats_t *stats, st_rel_graph_t *keep);

/* ---- sequential reference ------------------------------------------------------------------------- */

/*
 * Corrects the whole trace: allocates locs[].orig (st_rel_times_alloc; reused if not NULL)
 * and copies C into it, forward pass over all locations in dependency order, backward
 * amortization per location, then LC into the moved events, flagged ST_EVF_CLC_MOVED. g must be
 * built from the same input. stats (may be NULL) is filled (not accumulated).
 * Returns 0, or -1 (out of memory; the events then still hold C).
 * A dependency cycle (only possible with inconsistent input) is broken deterministically
 * and reported once with st_log_warn; stats->unresolved counts the forced receives.
 */
int st_clc_run(const st_clc_params_t *p, st_rel_input_t *in, const st_rel_graph_t *g, st_clc_stats_t *stats);

#endif
