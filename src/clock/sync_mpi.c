/*
 * sync_mpi.c — the synchronization scheme: levels, epochs, resync consensus, finalize,
 * accuracy check, report (contract in sync.h, algorithms in algs_mpi.c).
 *
 * All traffic runs on a private communicator (an MPI_Comm_idup of the tool's world
 * communicator); levels are groups of its ranks (topo_mpi.c).
 *
 * Every sync ends in an *epoch*: the rank publishes the new local->global map
 * (st_timer_set_map) and keeps (local, global) of that moment as a sync point. The
 * drift of a new map comes from the line through the previous sync point once that
 * lies far enough back (st_clock_anchor), so a cheap resync that only measures
 * offsets still learns the drift over the whole interval. Finalize re-maps events
 * through the sync points (st_clock_remap).
 */
#include "sync.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"
#include "../util/log.h"
#include "sync_int.h"
#include "timer.h"
#include "tsc.h"
#include "../util/clockread.h"

#define MIN_BASELINE_NS 2e8   /* anchor rule: drift from the previous sync point >= 0.2 s back */
#define FIRST_RESYNC_S  0.25  /* first resync interval; doubles up to SYNCTRACE_RESYNC */
#define CHECK_NPP       32    /* ping-pongs per rank in the accuracy check */
#define MAX_CHECKS      3

st_sync_state_t st_sync = { .comm = MPI_COMM_NULL, .size = 1, .nnodes = 1, .rtt_min = { INT64_MAX, INT64_MAX },
                            .rtt_now = INT64_MAX, .tries = 3 };

typedef struct check_result {
    double after_s;   /* seconds after the initial sync */
    double max_off;   /* largest |estimated offset| of a rank's global clock to rank 0's */
    double bound;     /* largest |offset| compatible with the measured bounds */
    int    rank;      /* where max_off was seen */
} check_result_t;

static struct {
    _Atomic int active; /* synchronized and not finalized: the hook reads it without the lock */
    int parsed, finalized, nlevels;
    st_sync_spec_t spec;
    char spec_text[192];
    st_sync_level_t level[ST_SYNC_MAX_LEVELS];
    st_clock_t clk; /* current global clock (what was published last) */
    st_clock_epoch_t *ep;
    size_t nep, cap;
    /* statistics */
    int64_t init_ns, resync_ns, init_start;
    int nresync;
    check_result_t check[MAX_CHECKS];
    int ncheck;
    double remap_max;
    int64_t glob_rtt[2], glob_init_ns, glob_resync_ns;
    double glob_jump;
    /* resync consensus (collective hook) */
    pthread_mutex_t lock;
    unsigned long ncoll;
    int posted, flag_in, flag_out;
    MPI_Request req;
    int64_t deadline;
    double interval_s;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .glob_rtt = { INT64_MAX, INT64_MAX } };

static int64_t local_now(void) { return (int64_t)st_timer_local(); }

/* ==== SYNCTRACE_SYNC ================================================================== */

int st_clock_parse_spec(const char *spec, char *err, size_t errlen)
{
    st_sync_alg_info_t info[16];
    size_t n = 0;
    for (const st_sync_alg_t *const *a = st_sync_algs; *a && n + 1 < 16; a++, n++)
        info[n] = (st_sync_alg_info_t){ (*a)->name, (*a)->options };
    info[n] = (st_sync_alg_info_t){ NULL, NULL };
    st_sync_spec_t sp;
    if (st_sync_spec_parse(spec ? spec : "", info, &sp, err, errlen) != 0)
        return -1;
    S.spec = sp;
    st_sync_spec_format(&sp, S.spec_text, sizeof S.spec_text);
    S.parsed = 1;
    return 0;
}

/* ==== epochs =============================================================================== */

/*
 * The first epochs live in static storage, so the initial sync cannot fail on memory
 * (a rank that left a collective protocol early would hang the others).
 */
#define STATIC_EPOCHS 64
static st_clock_epoch_t ep_static[STATIC_EPOCHS];
static st_timer_map_t map_static[STATIC_EPOCHS];

static void epochs_init(void)
{
    if (S.ep)
        return;
    S.ep = ep_static;
    S.cap = STATIC_EPOCHS;
    S.ep[0] = (st_clock_epoch_t){ .kind = ST_EPOCH_LOCAL, .rtt_min_ns = -1, .err_ns = -1 };
    S.nep = 1;
}

/* Room for one more epoch and a map for it; NULL when memory is exhausted. */
static st_timer_map_t *epoch_slot(void)
{
    if (S.nep == S.cap) {
        st_clock_epoch_t *n = malloc(2 * S.cap * sizeof *n);
        if (!n)
            return NULL;
        memcpy(n, S.ep, S.nep * sizeof *n);
        if (S.ep != ep_static)
            free(S.ep);
        S.ep = n;
        S.cap *= 2;
    }
    /* Maps are never freed: a reader may still hold an old one. */
    return S.nep < STATIC_EPOCHS ? &map_static[S.nep] : malloc(sizeof(st_timer_map_t));
}

void st_sync_adopt(st_clock_t *clk)
{
    st_sync_adopt_at(clk, local_now());
}

void st_sync_adopt_at(st_clock_t *clk, int64_t L)
{
    st_clock_lm_t fresh = st_clock_collapse(clk, L);
    st_clock_lm_t a = st_clock_anchor(&fresh, L, S.ep, S.nep, MIN_BASELINE_NS);
    st_clock_identity(clk);
    st_clock_push(clk, &a);
    st_sync.err_ns = -1; /* a learned clock has no exact bound; an offset step sets one */
}

void st_sync_reject(void)
{
    st_sync.measured = 0;
}

int64_t st_sync_since_fit_only(void)
{
    size_t measured = 0, last = 1; /* epoch 0 is the local clock before any sync, 1 the initial sync's */
    for (size_t k = 1; k < S.nep; k++)
        if (S.ep[k].measured)
            measured++, last = k;
    return S.nep > 1 && measured <= 1 ? local_now() - S.ep[last].local : -1;
}

/*
 * Where the sync point of a freshly synchronized clock lies: where the clock was last
 * measured (st_sync_adopt anchors it there; a prop member's copied clock carries its
 * root's anchor, on the same time source), not where it is published, which can be
 * ms later in the same sync. In between the clock runs on its drift, which after the
 * initial sync is only the 30 ms fit's (20 ppm off under load: 0.2 µs per 10 ms).
 * Rank 0 (identity) and clocks not measured in this sync: the publish time.
 */
static int64_t sync_point_local(const st_clock_t *clk, int64_t L)
{
    if (!st_sync.measured || clk->depth != 1 || clk->lm[0].t0 > L || clk->lm[0].t0 <= S.ep[S.nep - 1].local)
        return L;
    return clk->lm[0].t0;
}

/*
 * Publishes clk as the map of a new epoch; events are stamped with it from now on.
 * Local; without memory for the epoch the rank keeps its current map (it takes part
 * in every later sync all the same, so the collective protocol stays in step).
 */
static int publish(int kind, const st_clock_t *clk, int64_t cost)
{
    st_timer_map_t *map = epoch_slot();
    if (!map) {
        st_log_warn_once("clock sync: out of memory for a new sync epoch; keeping the current clock model");
        return -1;
    }
    int64_t L = local_now();
    st_clock_epoch_t *e = &S.ep[S.nep];
    e->kind = (uint16_t)kind;
    e->measured = (uint16_t)st_sync.measured;
    e->map = st_clock_collapse(clk, L);
    e->jump_ns = (double)(st_clock_lm_apply(&e->map, L) - st_clock_lm_apply(&S.ep[S.nep - 1].map, L));
    e->local = sync_point_local(clk, L);
    e->global = st_clock_lm_apply(&e->map, e->local);
    e->rtt_min_ns = st_sync.rtt_now == INT64_MAX ? -1 : st_sync.rtt_now;
    e->err_ns = st_sync.measured ? st_sync.err_ns : -1;
    e->cost_ns = cost;
    st_log_debug("clock sync: epoch %zu error bound %.0f ns against rank 0's clock (-1: none)", S.nep,
                 e->err_ns < 0 ? -1.0 : e->err_ns);
    *map = st_clock_lm_to_map(&e->map, (uint32_t)(S.nep + 1));
    S.nep++;
    st_clock_identity(&S.clk);
    st_clock_push(&S.clk, &e->map);
    st_timer_set_map(map);
    st_tsc_point(); /* after the map: not inside the sync's measurements */
    return 0;
}

/*
 * Runs every level this rank belongs to; full: learn models from the local clock, else
 * measure the offsets of clock `from` only. Collective.
 */
static int run_levels(int full, const st_clock_t *from, st_clock_t *out)
{
    st_clock_t work;
    if (full)
        st_clock_identity(&work);
    else
        work = *from;
    st_sync.rtt_now = INT64_MAX;
    st_sync.measured = 1;
    st_sync.err_ns = S.nep > 0 ? S.ep[S.nep - 1].err_ns : -1; /* rank 0 and clocks kept as they are */
    if (st_sync.rank == 0)
        st_sync.err_ns = 0;
    for (int l = 0; l < S.nlevels; l++) {
        st_sync_level_t *lv = &S.level[l];
        if (lv->grp.me < 0 || lv->grp.size < 2)
            continue;
        int64_t t0 = st_clock_ns(CLOCK_MONOTONIC);
        if ((full ? lv->alg->run(lv, &work) : lv->alg->resync(lv, &work)) != 0)
            return -1;
        st_log_debug("clock sync: level %d (%s, member %d of %d) took %.1f ms", l + 1, lv->alg->name, lv->grp.me,
                     lv->grp.size, (double)(st_clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
    }
    *out = work;
    return 0;
}

/* ==== accuracy check (paper Alg. 6) ========================================================== */

static void report_check(const check_result_t *c)
{
    char line[256];
    snprintf(line, sizeof line,
             "synctrace: clock check %.3g s after the initial sync: max |offset| to rank 0 = %.0f ns (rank %d), "
             "bound %.0f ns\n", c->after_s, c->max_off, c->rank, c->bound);
    st_log_raw(line);
}

/* Rank 0 measures every rank's published global clock against its own. Collective. */
static int clock_check(double after_s)
{
    double res[3];
    if (st_sync.rank == 0) {
        check_result_t c = { after_s, 0, 0, -1 };
        int go = 1;
        for (int p = 1; p < st_sync.size; p++) {
            if (st_sync_send(&go, sizeof go, p, ST_TAG_GO) != 0 || st_sync_serve(p, &S.clk) != 0 ||
                st_sync_recv(res, sizeof res, p, ST_TAG_RESULT) != 0)
                return -1;
            /* res = client's (reference - client) estimate and its bounds */
            if (fabs(res[0]) > c.max_off)
                c.max_off = fabs(res[0]), c.rank = p;
            double b = fmax(fabs(res[1]), fabs(res[2]));
            if (b > c.bound)
                c.bound = b;
        }
        if (S.ncheck < MAX_CHECKS)
            S.check[S.ncheck++] = c;
        report_check(&c);
        return 0;
    }
    int go;
    st_sync_point_t pt;
    if (st_sync_recv(&go, sizeof go, 0, ST_TAG_GO) != 0 ||
        st_sync_measure(0, &S.clk, CHECK_NPP, ST_OFFSET_SKAMPI, &pt, NULL) != 0 || st_sync_done(0) != 0)
        return -1;
    res[0] = pt.off;
    res[1] = pt.lo;
    res[2] = pt.hi;
    return st_sync_send(res, sizeof res, 0, ST_TAG_RESULT) != 0 ? -1 : 0;
}

/* ==== init ==================================================================================== */

static void schedule_resync(void)
{
    if (st_config.resync <= 0)
        return;
    double iv = S.interval_s > 0 ? 2 * S.interval_s : FIRST_RESYNC_S;
    S.interval_s = iv < st_config.resync ? iv : st_config.resync;
    S.deadline = local_now() + (int64_t)(S.interval_s * 1e9);
}

static int setup(MPI_Comm toolworld)
{
    MPI_Request r;
    if (PMPI_Comm_idup(toolworld, &st_sync.comm, &r) != MPI_SUCCESS || st_sync_wait(&r) != MPI_SUCCESS)
        return -1;
    PMPI_Comm_rank(st_sync.comm, &st_sync.rank);
    PMPI_Comm_size(st_sync.comm, &st_sync.size);
    int *sock = calloc((size_t)st_sync.size, sizeof(int));
    int rc = sock ? st_sync_topology(S.spec.scheme == ST_SCHEME_H3HCA, sock) : -1;
    if (rc == 0 && S.spec.scheme != ST_SCHEME_NONE)
        rc = st_sync_build_levels(&S.spec, S.level, sock);
    S.nlevels = S.spec.scheme == ST_SCHEME_NONE ? 0 : S.spec.nlevels;
    free(sock);
    return rc;
}

static void log_init(void)
{
    if (st_sync.rank != 0)
        return;
    st_log_info("clock sync %s: %d ranks on %d node(s) in %.1f ms", S.spec_text, st_sync.size, st_sync.nnodes,
                (double)S.init_ns / 1e6);
}

static void run_checks(void)
{
    if (st_config.clockcheck <= 0)
        return;
    if (clock_check(0) != 0)
        return;
    int64_t end = st_clock_ns(CLOCK_MONOTONIC) + (int64_t)(st_config.clockcheck * 1e9);
    while (st_clock_ns(CLOCK_MONOTONIC) < end) {
        struct timespec ts = { 0, 20000000 };
        nanosleep(&ts, NULL);
    }
    clock_check(st_config.clockcheck);
}

/*
 * The initial sync point used to be the learned clock read at the end of the initial
 * sync: a fit over a 30 ms window, extrapolated with its drift (off by 20 ppm and more
 * under load) over the rest of the sync, tens of ms for the ranks that learn early in
 * the tree, and through their references' clocks. It came out microseconds off, and
 * the finalize interpolation carried that into the first half second. Now the sync
 * point is where each clock was learned (publish), and the offset of every learned
 * clock is measured once more along the same tree (what a cheap resync does, with
 * more tries): a clock the exact SKaMPI bounds contradict (its reference's or its own
 * drift carried it off) takes the measured offset; one inside them stays as learned,
 * the fit over hundreds of ping-pongs being the better estimate. A few ms when quiet.
 * A rank whose offset stays poorly bounded keeps its learned clock. Collective.
 */
static int measure_init_point(st_clock_t *clk)
{
    st_clock_t learned = *clk;
    int tries = st_sync.tries;
    st_sync.tries = 8; /* the first sync point anchors the start of the run: worth more effort */
    st_sync.thorough = st_sync.verify = 1;
    int rc = run_levels(0, &learned, clk);
    st_sync.tries = tries;
    st_sync.thorough = st_sync.verify = 0;
    st_sync.measured = 1;
    return rc;
}

int st_clock_init_sync(MPI_Comm toolworld)
{
    char err[400];
    int64_t t0 = st_clock_ns(CLOCK_MONOTONIC);
    S.init_start = t0;
    if (!S.parsed && st_clock_parse_spec(st_config.sync, err, sizeof err) != 0) {
        st_log_error("%s", err);
        return -1;
    }
    epochs_init();
    if (S.spec.scheme == ST_SCHEME_NONE && st_config.clockcheck <= 0)
        return 0;
    if (setup(toolworld) != 0) {
        st_log_warn("clock sync: cannot set up the private communicator");
        return -1;
    }
    if (S.spec.scheme != ST_SCHEME_NONE) {
        st_clock_t clk;
        int64_t t1 = st_clock_ns(CLOCK_MONOTONIC), t2;
        if (run_levels(1, NULL, &clk) != 0 || (t2 = st_clock_ns(CLOCK_MONOTONIC), measure_init_point(&clk)) != 0)
            return -1;
        publish(ST_EPOCH_INIT, &clk, st_clock_ns(CLOCK_MONOTONIC) - t0);
        st_log_debug("clock sync: setup %.1f ms, levels %.1f ms, offsets %.1f ms", (double)(t1 - t0) / 1e6,
                     (double)(t2 - t1) / 1e6, (double)(st_clock_ns(CLOCK_MONOTONIC) - t2) / 1e6);
        S.init_ns = st_clock_ns(CLOCK_MONOTONIC) - t0;
        S.active = 1;
        schedule_resync();
        log_init();
    } else {
        st_clock_identity(&S.clk);
    }
    run_checks();
    return 0;
}

/* ==== periodic resync ============================================================================ */

/* Polite barrier on the private communicator. */
static int barrier(void)
{
    MPI_Request r;
    return PMPI_Ibarrier(st_sync.comm, &r) == MPI_SUCCESS && st_sync_wait(&r) == MPI_SUCCESS ? 0 : -1;
}

static void resync(int kind)
{
    int64_t t0 = st_clock_ns(CLOCK_MONOTONIC);
    st_clock_t clk;
    /*
     * Every sync point is worth the effort of the first and last: the finalize interpolation goes through
     * each, so an offset measured while the pair was preempted (bounds 2-5 µs wide, midpoints 1-3 µs off
     * under load here) spoils the second around it. Quiet, the first burst is narrow enough.
     */
    int tries = st_sync.tries, thorough = st_sync.thorough;
    st_sync.tries = 8;
    st_sync.thorough = 1;
    /*
     * Everyone first: a rank still busy-polling in the application's collective (MPICH
     * never yields) would take the core a measuring pair needs; round trips of 10-250 µs
     * instead of 1 µs were the result without this barrier.
     */
    int rc = barrier() != 0 || run_levels(S.spec.resync == ST_RESYNC_FULL, &S.clk, &clk) != 0 ? -1 : 0;
    st_sync.tries = tries;
    st_sync.thorough = thorough;
    if (rc != 0) {
        st_log_warn("clock sync: resynchronization failed; keeping the current clock model");
        S.active = 0;
        return;
    }
    int64_t cost = st_clock_ns(CLOCK_MONOTONIC) - t0;
    publish(kind, &clk, cost);
    if (kind == ST_EPOCH_RESYNC) {
        S.nresync++;
        S.resync_ns += cost;
        schedule_resync();
    }
}

/* At every ST_CLOCK_HOOK_EVERY-th collective: finish the previous consensus, act, post the next. */
static void checkpoint(void)
{
    if (S.posted) {
        S.posted = 0;
        if (st_sync_wait(&S.req) != MPI_SUCCESS) {
            S.active = 0;
            return;
        }
        if (S.flag_out)
            resync(ST_EPOCH_RESYNC);
    }
    if (!S.active)
        return;
    S.flag_in = local_now() >= S.deadline;
    if (PMPI_Iallreduce(&S.flag_in, &S.flag_out, 1, MPI_INT, MPI_MAX, st_sync.comm, &S.req) == MPI_SUCCESS)
        S.posted = 1;
}

void st_clock_collective_hook(void)
{
    if (!S.active || st_config.resync <= 0)
        return;
    pthread_mutex_lock(&S.lock);
    if (S.active && ++S.ncoll % ST_CLOCK_HOOK_EVERY == 0)
        checkpoint();
    pthread_mutex_unlock(&S.lock);
}

/* ==== finalize ======================================================================================== */

/* Run-wide statistics, the same on every rank. Collective. */
static void summarize(void)
{
    int64_t in[5], out[5];
    in[0] = S.init_ns;
    in[1] = S.resync_ns;
    in[2] = -st_sync.rtt_min[0];
    in[3] = -st_sync.rtt_min[1];
    in[4] = (int64_t)st_clock_max_jump(S.ep, S.nep);
    MPI_Request r;
    if (PMPI_Iallreduce(in, out, 5, MPI_INT64_T, MPI_MAX, st_sync.comm, &r) != MPI_SUCCESS ||
        st_sync_wait(&r) != MPI_SUCCESS)
        return;
    S.glob_init_ns = out[0];
    S.glob_resync_ns = out[1];
    S.glob_rtt[0] = -out[2];
    S.glob_rtt[1] = -out[3];
    S.glob_jump = (double)out[4];
}

/*
 * The global clock is rank 0's local clock: with the TSC, every rank corrects with
 * rank 0's calibration points (none when rank 0 ran on clock_gettime). Collective.
 */
static void share_calibration(void)
{
    const st_tsc_point_t *mine;
    static st_tsc_point_t pts[ST_TSC_MAX_POINTS];
    int n = st_sync.rank == 0 && st_timer_tsc ? (int)st_tsc_points(&mine) : 0;
    if (st_sync.rank == 0 && n)
        memcpy(pts, mine, (size_t)n * sizeof *pts);
    MPI_Request r;
    if (PMPI_Ibcast(&n, 1, MPI_INT, 0, st_sync.comm, &r) != MPI_SUCCESS || st_sync_wait(&r) != MPI_SUCCESS)
        return;
    if (n > 0 && (PMPI_Ibcast(pts, n * (int)sizeof *pts, MPI_BYTE, 0, st_sync.comm, &r) != MPI_SUCCESS ||
                  st_sync_wait(&r) != MPI_SUCCESS))
        return;
    st_tsc_use_points(pts, (size_t)n);
}

void st_clock_finalize_sync(void)
{
    pthread_mutex_lock(&S.lock);
    st_tsc_point(); /* the end of the run, also without a sync */
    if (S.active) {
        if (S.posted) {
            S.posted = 0;
            st_sync_wait(&S.req);
        }
        resync(ST_EPOCH_FINAL);
        if (S.active && st_config.clockcheck > 0)
            clock_check((double)(st_clock_ns(CLOCK_MONOTONIC) - S.init_start) / 1e9);
        if (S.active)
            summarize();
        if (S.active)
            share_calibration();
        S.finalized = 1;
        S.active = 0;
    }
    if (st_sync.comm != MPI_COMM_NULL)
        PMPI_Comm_free(&st_sync.comm);
    pthread_mutex_unlock(&S.lock);
}

/* ==== re-mapping ========================================================================================= */

void st_clock_remap_events(st_event_t *ev, size_t n)
{
    if (S.finalized) {
        double d = st_clock_remap(S.ep, S.nep, ev, n, st_config.interpolate);
        if (d > S.remap_max)
            S.remap_max = d;
    }
    if (st_tsc_correcting() && n) /* monotonic: keeps the per-location order */
        st_tsc_correct(&ev[0].time, n, sizeof *ev);
}

void st_clock_remap_rankdata(st_rankdata_t *rd)
{
    if (!S.finalized && !st_tsc_correcting())
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < rd->nthreads; i++) {
        st_thread_data_t *t = &rd->threads[i];
        if (!t->events || !t->nevents)
            continue;
        st_clock_remap_events(t->events, (size_t)t->nevents);
        lo = t->events[0].time < lo ? t->events[0].time : lo;
        hi = t->events[t->nevents - 1].time > hi ? t->events[t->nevents - 1].time : hi;
    }
    if (lo != UINT64_MAX) {
        rd->t_begin = lo;
        rd->t_end = hi;
    }
}

const struct st_clock_epoch *st_clock_epochs(size_t *n)
{
    *n = S.nep;
    return S.ep;
}

/* ==== report ================================================================================================= */

static const char *const clock_name[] = { "monotonic", "realtime", "monotonic_raw", "boottime" };

static void report_levels(st_rankdata_t *rd)
{
    char txt[192];
    snprintf(txt, sizeof txt, "%s", S.spec_text);
    for (int l = 0; l < S.nlevels; l++)
        if (S.level[l].fallback)
            snprintf(txt + strlen(txt), sizeof txt - strlen(txt), " [level %d: prop -> hca3]", l + 1);
    st_rankdata_prop(rd, "sync.scheme", "%s", txt);
}

static void report_epochs(st_rankdata_t *rd)
{
    st_rankdata_prop(rd, "sync.epochs", "%zu", S.nep - 1);
    for (size_t k = 1; k < S.nep; k++) {
        char key[32], val[256];
        snprintf(key, sizeof key, "sync.epoch.%zu", k);
        st_clock_epoch_format(&S.ep[k], val, sizeof val);
        st_rankdata_prop(rd, key, "%s", val);
    }
}

static void report_checks(st_rankdata_t *rd)
{
    for (int i = 0; i < S.ncheck; i++) {
        char key[32];
        snprintf(key, sizeof key, "sync.check.%d", i);
        st_rankdata_prop(rd, key, "after_s=%.3f max_offset_ns=%.0f rank=%d bound_ns=%.0f", S.check[i].after_s,
                         S.check[i].max_off, S.check[i].rank, S.check[i].bound);
    }
}

void st_clock_report_timer(st_rankdata_t *rd)
{
    st_rankdata_prop(rd, "timer", "%s", st_timer_tsc ? "tsc" : "clock_gettime");
    if (!st_timer_tsc)
        return;
    const st_tsc_point_t *p;
    size_t n = st_tsc_points(&p);
    st_rankdata_prop(rd, "timer.tsc_source", "%s", st_timer_tsc_shared ? "node" : "process");
    st_rankdata_prop(rd, "timer.tsc_hz", "%.0f", st_tsc_hz(p, n));
    st_rankdata_prop(rd, "timer.tsc_points", "%zu", n);
    st_rankdata_prop(rd, "timer.tsc_nonlinearity_ns", "%.0f", st_tsc_nonlinearity(p, n));
    /* the system clock minus the TSC clock at the last point, and how much that changed since the first */
    st_rankdata_prop(rd, "timer.tsc_offset_ns", "%.0f", n ? (double)p[n - 1].ref - (double)p[n - 1].local : 0.0);
    st_rankdata_prop(rd, "timer.tsc_drift_ns", "%.0f",
                     n ? ((double)p[n - 1].ref - (double)p[n - 1].local) - ((double)p[0].ref - (double)p[0].local)
                       : 0.0);
    int64_t jump = st_tsc_jumped();
    if (jump) {
        st_rankdata_prop(rd, "timer.tsc_jump_ns", "%" PRId64, jump);
        st_log_warn_once("the TSC jumped by %.3f s against the system clock during the run (a virtual machine restored "
                         "or moved?): this process's event times after it are wrong; SYNCTRACE_TIMER=clock does not "
                         "use the TSC", (double)jump / 1e9);
    }
}

void st_clock_report(st_rankdata_t *rd)
{
    int ck = st_config.clock;
    st_rankdata_prop(rd, "sync.clock", "%s", ck >= 0 && ck < 4 ? clock_name[ck] : "?");
    st_rankdata_prop(rd, "sync.clock_resolution_ns", "%" PRIu64, st_timer_resolution_ns());
    st_clock_report_timer(rd);
    report_levels(rd);
    report_checks(rd);
    if (!S.finalized)
        return;
    st_rankdata_prop(rd, "sync.nodes", "%d", st_sync.nnodes);
    st_rankdata_prop(rd, "sync.init_ms", "%.3f", (double)S.init_ns / 1e6);
    st_rankdata_prop(rd, "sync.init_ms_max", "%.3f", (double)S.glob_init_ns / 1e6);
    st_rankdata_prop(rd, "sync.resyncs", "%d", S.nresync);
    st_rankdata_prop(rd, "sync.resync_ms", "%.3f", (double)S.resync_ns / 1e6);
    st_rankdata_prop(rd, "sync.resync_ms_max", "%.3f", (double)S.glob_resync_ns / 1e6);
    st_rankdata_prop(rd, "sync.rtt_min_intra_ns", "%" PRId64, S.glob_rtt[0] == INT64_MAX ? -1 : S.glob_rtt[0]);
    st_rankdata_prop(rd, "sync.rtt_min_inter_ns", "%" PRId64, S.glob_rtt[1] == INT64_MAX ? -1 : S.glob_rtt[1]);
    st_rankdata_prop(rd, "sync.interpolate", "%d", st_config.interpolate);
    st_rankdata_prop(rd, "sync.extrapolation_err_ns", "%.0f", S.glob_jump);
    st_rankdata_prop(rd, "sync.interpolation_loo_ns", "%.0f", st_clock_interp_loo(S.ep, S.nep));
    st_rankdata_prop(rd, "sync.remap_max_ns", "%.0f", S.remap_max);
    report_epochs(rd);
}
