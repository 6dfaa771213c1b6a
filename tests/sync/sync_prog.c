/*
 * sync_prog.c — drives src/clock directly (no shim) under the clock-skew library and
 * measures the error of the global clock against ground truth.
 *
 * Built by tests/sync/build.sh from this file + every src/clock .c file + src/util/log.c +
 * src/config/config.c. Plays the shim's part: st_config_load, a private dup of
 * MPI_COMM_WORLD, st_clock_init_sync, st_clock_collective_hook after every
 * MPI_Allreduce on MPI_COMM_WORLD, st_clock_finalize_sync, re-mapping at the end.
 * Records "events" the way the proposed recording path does: the map pointer is read
 * once, the event gets that map's global time and epoch (st_event_t._pad, proposed
 * `epoch`); per location time is clamped non-decreasing within an epoch.
 *
 * The error of a timestamp is G - L_0(t): the global clock should read rank 0's local
 * clock (the reference) at the true instant t. t is recovered exactly from the local
 * reading through the skew library's inverse, so no bracketing error enters.
 *
 * Usage: sync_prog [-r SECONDS] [-i MS] [-b] [-p SPEC]
 *   -r  run phase length (default 2): an allreduce on MPI_COMM_WORLD every -i ms
 *       (default 5), a sample (event) every 1 ms on every rank; -b: blocking allreduce
 *   -p  only parse SPEC with st_clock_parse_spec, print the result, exit 0/1 (no MPI)
 * Rank 0 prints one line: RESULT key=value ... (ns unless named otherwise).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../src/clock/model.h"
#include "../../src/clock/sync.h"
#include "../../src/clock/sync_int.h"
#include "../../src/clock/timer.h"
#include "../../src/config/config.h"
#include "../../src/util/log.h"
#include "../skew/skew.h"

/* The archive writer is not linked here: collect the properties to print them. */
void st_rankdata_prop(st_rankdata_t *rd, const char *key, const char *fmt, ...)
{
    va_list ap;
    st_kv_t *kv = realloc(rd->props, (rd->nprops + 1) * sizeof *kv);
    if (!kv)
        return;
    rd->props = kv;
    kv = &rd->props[rd->nprops++];
    snprintf(kv->key, sizeof kv->key, "%s", key);
    va_start(ap, fmt);
    vsnprintf(kv->value, sizeof kv->value, fmt, ap);
    va_end(ap);
}

static skew_true_ns_fn true_ns;
static skew_delta_ns_fn delta_ns;
static skew_node_fn my_node;
static skew_node_of_rank_fn node_of_rank;

typedef struct sample {
    int64_t t;      /* true monotonic time */
    int64_t L;      /* local time */
    st_event_t ev;  /* as recorded */
} sample_t;

static sample_t *samples;
static size_t nsamples, capsamples;
static uint64_t last_time;
static uint32_t last_epoch;

/* True time of local reading L on this process: invert L = t + delta(node, t). */
static int64_t true_of_local(int64_t L)
{
    int node = my_node();
    int64_t t = L - delta_ns(node, (uint64_t)L);
    for (int i = 0; i < 4; i++)
        t = L - delta_ns(node, (uint64_t)t);
    return t;
}

/* Reference (rank 0's local clock) at true time t. */
static int64_t reference_at(int64_t t) { return t + delta_ns(node_of_rank(0), (uint64_t)t); }

static void record_sample(void)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    uint64_t L = st_timer_local();
    uint64_t g = st_timer_apply(m, L);
    if (m->epoch != last_epoch) /* proposed record.h rule: clamp only within one epoch */
        last_epoch = m->epoch, last_time = 0;
    if (g < last_time)
        g = last_time;
    last_time = g;
    if (nsamples == capsamples) {
        capsamples = capsamples ? 2 * capsamples : 4096;
        samples = realloc(samples, capsamples * sizeof *samples);
        if (!samples)
            abort();
    }
    sample_t *s = &samples[nsamples++];
    memset(s, 0, sizeof *s);
    s->t = true_of_local((int64_t)L);
    s->L = (int64_t)L;
    s->ev.time = g;
    s->ev.kind = 0;
    ST_EVENT_EPOCH(&s->ev) = m->epoch;
}

/* Error (ns) of the global clock right now on this rank. */
static double error_now(void)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    uint64_t L = st_timer_local();
    return (double)((int64_t)st_timer_apply(m, L) - reference_at(true_of_local((int64_t)L)));
}

static double max_err(size_t from)
{
    double m = 0;
    for (size_t i = from; i < nsamples; i++) {
        double e = fabs((double)((int64_t)samples[i].ev.time - reference_at(samples[i].t)));
        if (e > m)
            m = e;
    }
    return m;
}

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double allmax(double v)
{
    double r;
    MPI_Request q;
    PMPI_Iallreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &q);
    int done = 0;
    while (!done) {
        PMPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (!done)
            sched_yield();
    }
    return r;
}

static void nap_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6) };
    nanosleep(&ts, NULL);
}

/*
 * The application's part: collectives on MPI_COMM_WORLD (each followed by the hook, as
 * the shim does after every blocking collective) and samples. By default the
 * collective is an MPI_Iallreduce completed with MPI_Test and short sleeps, so that
 * several test jobs can share the 2 cores; -b uses a blocking MPI_Allreduce (MPICH
 * busy-polls in it, as real applications do).
 */
static int blocking_coll;

static void app_collective(void)
{
    int one = 1, sum = 0;
    if (blocking_coll) {
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        return;
    }
    MPI_Request q;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    for (int done = 0;;) {
        MPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nap_ms(0.05);
    }
}

static void run_phase(double seconds, double coll_ms)
{
    long ncoll = (long)(seconds * 1000 / coll_ms); /* the same count on every rank */
    double start = wall();
    for (long k = 0; k < ncoll; k++) {
        app_collective();
        st_clock_collective_hook();
        double next = start + (k + 1) * coll_ms / 1000;
        do {
            record_sample();
            nap_ms(1);
        } while (wall() < next);
    }
}

/*
 * build.sh links with -Wl,--wrap=st_sync_measure: the offset measurements that algs_mpi.c and
 * sync_mpi.c make pass here (pingpong_mpi.c's own fit points do not). SYNC_PROG_LATE_MS=X sleeps X ms
 * after each one made for a sync point (st_sync.thorough), as if more bursts had followed the chosen
 * one: the sync point must stay where that burst ended, whatever the clock's drift did meanwhile
 * (SYNC_PROG_LATE_RANK=r: on rank r of the private communicator only).
 */
int __real_st_sync_measure(int ref, const st_clock_t *mine, int npp, int offset_alg, st_sync_point_t *pt,
                           st_sync_raw_t *raw);
int __wrap_st_sync_measure(int ref, const st_clock_t *mine, int npp, int offset_alg, st_sync_point_t *pt,
                           st_sync_raw_t *raw);
int __wrap_st_sync_measure(int ref, const st_clock_t *mine, int npp, int offset_alg, st_sync_point_t *pt,
                           st_sync_raw_t *raw)
{
    int rc = __real_st_sync_measure(ref, mine, npp, offset_alg, pt, raw);
    const char *late = getenv("SYNC_PROG_LATE_MS"), *who = getenv("SYNC_PROG_LATE_RANK");
    if (rc == 0 && late && st_sync.thorough && (!who || atoi(who) == st_sync.rank))
        nap_ms(atof(late));
    return rc;
}

/*
 * The measured sync points of this rank against the truth: each (L, G) says rank 0's clock read G
 * when this rank's read L, within the bound err_ns it records. *worst: the largest |error|;
 * returns how many lie outside their bound by more than 200 ns (rank 0's points are its own clock).
 */
static int points_outside(int rank, double *worst)
{
    size_t n;
    const st_clock_epoch_t *e = st_clock_epochs(&n);
    int out = 0;
    *worst = 0;
    for (size_t k = 1; k < n; k++) {
        if (!e[k].measured || e[k].err_ns < 0)
            continue;
        double err = fabs((double)(e[k].global - reference_at(true_of_local(e[k].local))));
        *worst = fmax(*worst, err);
        if (err > e[k].err_ns + 200) {
            out++;
            fprintf(stderr, "sync_prog: rank %d epoch %zu (kind %d): %.0f ns off, bound %.0f ns\n",
                    rank, k, e[k].kind, err, e[k].err_ns);
        }
    }
    return out;
}

static int parse_only(const char *spec)
{
    char err[400];
    if (st_clock_parse_spec(spec, err, sizeof err) != 0) {
        printf("%s\n", err);
        return 1;
    }
    printf("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    double run_s = 2, coll_ms = 5;
    int opt;
    char err[600];
    while ((opt = getopt(argc, argv, "r:i:p:b")) != -1) {
        if (opt == 'b')
            blocking_coll = 1;
        else if (opt == 'r')
            run_s = atof(optarg);
        else if (opt == 'i')
            coll_ms = atof(optarg);
        else if (opt == 'p')
            return parse_only(optarg);
    }
    true_ns = (skew_true_ns_fn)dlsym(RTLD_DEFAULT, "skew_true_ns");
    delta_ns = (skew_delta_ns_fn)dlsym(RTLD_DEFAULT, "skew_delta_ns");
    my_node = (skew_node_fn)dlsym(RTLD_DEFAULT, "skew_node");
    node_of_rank = (skew_node_of_rank_fn)dlsym(RTLD_DEFAULT, "skew_node_of_rank");
    if (!true_ns || !delta_ns || !my_node || !node_of_rank) {
        fprintf(stderr, "sync_prog: run me with LD_PRELOAD=libskew.so\n");
        return 77;
    }
    if (st_config_load(err, sizeof err) != 0 || st_clock_parse_spec(st_config.sync, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    st_log_set_verbosity((int)st_config.verbose);
    st_timer_init(st_config.clock, st_config.timer);
    for (int i = 0; i < 5; i++) /* events before MPI_Init */
        record_sample();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    st_log_set_rank(rank);
    MPI_Comm tool;
    MPI_Request q;
    PMPI_Comm_idup(MPI_COMM_WORLD, &tool, &q);
    for (int done = 0; !done;) {
        PMPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (!done)
            sched_yield();
    }
    double t0 = wall();
    int rc = st_clock_init_sync(tool);
    double init_s = wall() - t0;
    double e0 = fabs(error_now());
    if (getenv("SYNC_PROG_DEBUG")) {
        const st_timer_map_t *m = atomic_load(&st_timer_current);
        uint64_t t = true_ns(CLOCK_MONOTONIC);
        double dr = (double)(delta_ns(node_of_rank(0), t + 1000000000) - delta_ns(node_of_rank(0), t)) -
                    (double)(delta_ns(my_node(), t + 1000000000) - delta_ns(my_node(), t));
        fprintf(stderr, "rank %d node %d: error %.0f ns, map b %.3f ppm, true %.3f ppm\n", rank, my_node(),
                error_now(), m->b * 1e6, dr / 1e3);
    }
    size_t first_run = nsamples;
    record_sample();
    run_phase(run_s, coll_ms);
    double online = max_err(first_run);
    st_clock_finalize_sync();
    double efinal = fabs(error_now());
    record_sample();
    /* Re-map (as finalize does) once with and once without interpolation. */
    sample_t *copy = malloc(nsamples * sizeof *copy);
    memcpy(copy, samples, nsamples * sizeof *copy);
    st_event_t *ev = malloc(nsamples * sizeof *ev);
    double res[2], pre_err = 0;
    for (int interp = 0; interp < 2; interp++) {
        st_config.interpolate = interp;
        for (size_t i = 0; i < nsamples; i++)
            ev[i] = copy[i].ev;
        st_clock_remap_events(ev, nsamples);
        for (size_t i = 0; i < nsamples; i++)
            samples[i].ev = ev[i];
        res[interp] = max_err(first_run);
        if (interp == 0)
            pre_err = max_err(0); /* includes the events before MPI_Init */
        for (size_t i = 1; i < nsamples; i++)
            if (ev[i].time < ev[i - 1].time) {
                fprintf(stderr, "rank %d: re-mapped time decreases at sample %zu\n", rank, i);
                res[interp] = 1e18;
            }
    }
    if (getenv("SYNC_PROG_DEBUG")) { /* the events before MPI_Init: how far back, how far off */
        size_t ne;
        const st_clock_epoch_t *e = st_clock_epochs(&ne);
        if (ne >= 2 && first_run > 0) {
            double gap = (double)(e[1].local - samples[0].L) / 1e9;
            double b_true = (double)(reference_at(samples[0].t + 1000000000) - reference_at(samples[0].t)) / 1e9 -
                            (double)(samples[first_run].L - samples[0].L) / (double)(samples[first_run].t - samples[0].t);
            fprintf(stderr, "rank %d: pre-Init gap %.3f s, error %.0f ns, map b %.3f ppm, true ~%.3f ppm\n", rank,
                    gap, pre_err, e[1].map.b * 1e6, b_true * 1e6);
        }
    }
    /*
     * The same run without periodic resync: the initial map alone, and interpolation
     * between the initial and the final sync point only (both computed from the local
     * times, so one run yields all four numbers).
     */
    double pt_worst;
    double pt_out = points_outside(rank, &pt_worst);
    size_t nep;
    const st_clock_epoch_t *eps = st_clock_epochs(&nep);
    double nores = 0, nores_interp = 0, unmeasured = 0;
    for (size_t k = 1; k < nep; k++)
        unmeasured += !eps[k].measured;
    if (nep >= 3) {
        st_clock_epoch_t sub[3] = { eps[0], eps[1], eps[nep - 1] };
        for (size_t i = first_run; i < nsamples; i++) {
            int64_t ref = reference_at(samples[i].t);
            nores = fmax(nores, fabs((double)(st_clock_lm_apply(&eps[1].map, samples[i].L) - ref)));
            nores_interp = fmax(nores_interp, fabs((double)(st_clock_interp(sub, 3, samples[i].L) - ref)));
        }
    }
    st_rankdata_t rd;
    memset(&rd, 0, sizeof rd);
    st_clock_report(&rd);
    if (getenv("SYNC_PROG_PROPS") && rank == atoi(getenv("SYNC_PROG_PROPS")))
        for (uint32_t i = 0; i < rd.nprops; i++)
            printf("PROP %s = %s\n", rd.props[i].key, rd.props[i].value);
    const char *resyncs = "0", *rtt[2] = { "-1", "-1" };
    for (uint32_t i = 0; i < rd.nprops; i++) {
        if (!strcmp(rd.props[i].key, "sync.resyncs"))
            resyncs = rd.props[i].value;
        if (!strcmp(rd.props[i].key, "sync.rtt_min_intra_ns"))
            rtt[0] = rd.props[i].value;
        if (!strcmp(rd.props[i].key, "sync.rtt_min_inter_ns"))
            rtt[1] = rd.props[i].value;
    }
    double g_init = allmax(init_s), g_e0 = allmax(e0), g_on = allmax(online), g_fin = allmax(efinal);
    double g_r0 = allmax(res[0]), g_r1 = allmax(res[1]), g_pre = allmax(pre_err), g_rc = allmax(rc ? 1 : 0);
    double g_nr = allmax(nores), g_nri = allmax(nores_interp), g_um = allmax(unmeasured);
    double g_po = allmax(pt_out), g_pw = allmax(pt_worst);
    if (rank == 0)
        printf("RESULT np=%d nodes=%d init_s=%.3f err_after_sync=%.0f err_online=%.0f err_final=%.0f "
               "err_remap=%.0f err_interp=%.0f err_with_preinit=%.0f err_noresync=%.0f err_noresync_interp=%.0f "
               "resyncs=%s unmeasured=%.0f rtt_intra=%s rtt_inter=%s init_failed=%.0f points_outside=%.0f "
               "point_err=%.0f\n",
               size, node_of_rank(size - 1) + 1, g_init, g_e0, g_on, g_fin, g_r0, g_r1, g_pre, g_nr, g_nri, resyncs,
               g_um, rtt[0], rtt[1], g_rc, g_po, g_pw);
    free(copy);
    free(ev);
    PMPI_Comm_free(&tool);
    MPI_Finalize();
    return 0;
}
