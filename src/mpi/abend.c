/* abend.c — see abend.h. Everything below "handler side" is async-signal-safe. */
#include "abend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../clock/model.h"
#include "../clock/sync.h"
#include "../clock/tsc.h"
#include "../config/config.h"
#include "../model/rankdata.h"
#include "../record/record.h"
#include "../util/decimal.h"
#include "../util/fnv.h"
#include "../util/log.h"
#include "../record/unwind.h"
#include "abend_frames.h"
#include "comm.h"
#include "filtersum.h"
#include "lifecycle.h"
#include "../exchange/polite_mpi.h"
#include "st_mpi.h"
#include "../util/clockread.h"

static st_rankdata_t kit;                   /* definitions of the dump; counts filled in at dump time */
static st_kv_t *props[2];                   /* two sets: a handler always sees a whole one */
static uint32_t nprops[2], props_cap[2];
static int cur_props = -1;                  /* the complete set, -1 none yet */
static size_t refreshed_epochs;             /* epochs in the current set */
static size_t refreshed_points;             /* TSC calibration points in the current set ... */
static uint64_t refreshed_last_point;       /* ... and the last one's local time (a close point replaces it) */
static int point_slot[2] = { -1, -1 };      /* per set: index of timer.tsc_point.dump, -1 none (clock timer) */
static char dir[4096];                      /* where the dump goes */
static int default_dir;                     /* dir is the synctrace-DATE-TIME stem: make a new one */
static char dir_next[4096];                 /* st_abend_use_dir's directory ... */
static volatile sig_atomic_t dir_moved;     /* ... once this is set: the dump takes it over */
static int with_mpi, armed;
static int *peer_pid;                       /* by world rank; 0: do not signal */
static uint64_t *peer_host;                 /* host name hash by world rank */
static uint64_t my_host;
static volatile sig_atomic_t state;         /* 0 none, 1 dumping, 2 dumped, 3 failed */
static long dumper;                         /* thread id of the thread that took the dump, 0 none */
#define FILTERED_MAX 16384u                 /* (thread, region) counts of filtered calls a dump can carry */

/* ==== preparation (not in handlers) =========================================================== */

static void fill_identity(int rank, int nranks)
{
    kit.rank = rank >= 0 ? rank : 0;
    kit.nranks = nranks > 0 ? nranks : 1;
    kit.pid = (int32_t)getpid();
    kit.flags = ST_RANKF_INCOMPLETE | (with_mpi ? 0 : ST_RANKF_NO_MPI);
    kit.timer_resolution = 1000000000u;
    gethostname(kit.hostname, sizeof kit.hostname - 1);
    if (st_config.node_size > 0)
        snprintf(kit.nodename, sizeof kit.nodename, "node%lu", (unsigned long)(kit.rank / st_config.node_size));
    else
        memcpy(kit.nodename, kit.hostname, sizeof kit.nodename);
    my_host = st_fnv1a_str(kit.hostname);
}

void st_abend_init_load(int launcher_rank, int launcher_size)
{
    kit.threads = calloc(ST_MAX_THREADS, sizeof *kit.threads);
    if (!kit.threads)
        return;
    if (st_config.dir[0]) {
        snprintf(dir, sizeof dir, "%s", st_config.dir);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(dir, sizeof dir, "synctrace-%Y%m%d-%H%M%S", &tm);
        default_dir = 1;
    }
    fill_identity(launcher_rank, launcher_size);
    if (st_config.filter[0] && !(kit.filtered = calloc(FILTERED_MAX, sizeof *kit.filtered)))
        st_log_warn("out of memory: the dump of an abnormal end would not count the filtered calls");
    if ((st_callpath_on || st_config.callsite) && st_abend_frames_init() != 0)
        st_log_warn("out of memory: the dump of an abnormal end would carry no call paths or call sites");
    armed = 1;
    st_abend_refresh();
}

static void on_dump_request(int sig, siginfo_t *si, void *uc);

void st_abend_ends_mask(sigset_t *set)
{
    const int ends[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, ST_ABEND_SIGNAL }; /* SIGRTMAX is not a constant */
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        sigaddset(set, ends[i]);
}

/* Every rank learns every rank's pid and host; only ranks whose handler is ours get signalled. */
static void share_peers(MPI_Comm toolcomm)
{
    struct sigaction cur, sa;
    int listening = 0;
    if (sigaction(ST_ABEND_SIGNAL, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_dump_request;
        sa.sa_flags = SA_RESTART | SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        st_abend_ends_mask(&sa.sa_mask);
        listening = sigaction(ST_ABEND_SIGNAL, &sa, NULL) == 0;
    }
    int n = st_world_size > 0 ? st_world_size : 1;
    int64_t mine[2] = { listening ? (int64_t)getpid() : 0, (int64_t)my_host };
    int64_t *all = calloc((size_t)n * 2, sizeof *all);
    peer_pid = calloc((size_t)n, sizeof *peer_pid);
    peer_host = calloc((size_t)n, sizeof *peer_host);
    MPI_Request req;
    if (!all || !peer_pid || !peer_host ||
        PMPI_Iallgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, toolcomm, &req) != MPI_SUCCESS ||
        st_polite_wait(&req, NULL) != MPI_SUCCESS) {
        free(peer_pid), free(peer_host);
        peer_pid = NULL, peer_host = NULL;
        st_log_warn("cannot exchange process ids: after an abnormal end only this rank's data is saved");
    } else {
        for (int r = 0; r < n; r++)
            peer_pid[r] = (int)all[2 * r], peer_host[r] = (uint64_t)all[2 * r + 1];
    }
    free(all);
}

void st_abend_init_mpi(MPI_Comm toolcomm, const char *archive_dir)
{
    if (!kit.threads)
        return;
    st_abend_use_dir(archive_dir); /* not written over dir: a handler may be reading it (it takes dir_next over) */
    with_mpi = 1;
    kit.comms = calloc(ST_COMM_MAX, sizeof *kit.comms); /* calloc'd: only used entries take memory */
    fill_identity(st_world_rank, st_world_size);
    share_peers(toolcomm);
    refreshed_epochs = 0;
    st_abend_refresh();
}

/*
 * The TSC calibration points so far, and a slot for the one the handler takes while dumping
 * (`synctrace recover` corrects the global clock with rank 0's points, as MPI_Finalize does).
 * Returns the slot's index, -1 with the clock timer.
 */
static int add_tsc_points(st_rankdata_t *tmp)
{
    const st_tsc_point_t *p;
    size_t n = st_tsc_points(&p);
    if (!st_timer_tsc)
        return -1;
    for (size_t k = 0; k < n; k++) {
        char key[48], val[128];
        snprintf(key, sizeof key, "timer.tsc_point.%zu", k + 1);
        st_tsc_point_format(&p[k], val, sizeof val);
        st_rankdata_prop(tmp, key, "%s", val);
    }
    st_rankdata_prop(tmp, "timer.tsc_point.dump", "%s", "-");
    return (int)tmp->nprops - 1;
}

/* The properties a dump carries: the run's, this rank's sync properties so far, every sync epoch, the TSC points. */
static int build_props(st_rankdata_t *tmp, const st_clock_epoch_t *ep, size_t nep)
{
    st_run_props(tmp, 1);
    st_filtersum_props(tmp);
    if (with_mpi)
        st_clock_report(tmp);
    st_rankdata_prop(tmp, "sync.interpolate", "%d", st_config.interpolate);
    st_rankdata_prop(tmp, "sync.epochs", "%zu", nep ? nep - 1 : 0);
    for (size_t k = 1; k < nep; k++) {
        char key[32], val[256];
        snprintf(key, sizeof key, "sync.epoch.%zu", k);
        st_clock_epoch_format(&ep[k], val, sizeof val);
        st_rankdata_prop(tmp, key, "%s", val);
    }
    int slot = add_tsc_points(tmp);
    st_rankdata_prop(tmp, "EVENTS_LOST", "%s", "0"); /* next to last: the handler writes the count here */
    st_rankdata_prop(tmp, "END", "%s", "?");         /* last: the handler writes the reason here */
    return slot;
}

void st_abend_refresh(void)
{
    size_t nep = 0;
    const st_clock_epoch_t *ep = with_mpi ? st_clock_epochs(&nep) : NULL;
    const st_tsc_point_t *pts;
    size_t npts = st_tsc_points(&pts);
    uint64_t last_point = npts ? pts[npts - 1].local : 0;
    if (!armed || (cur_props >= 0 && nep == refreshed_epochs && npts == refreshed_points &&
                   last_point == refreshed_last_point))
        return;
    st_rankdata_t tmp;
    memset(&tmp, 0, sizeof tmp);
    int slot = build_props(&tmp, ep, nep);
    /* The set not in use is rebuilt (grown outside any handler), then published. */
    int next = cur_props == 0 ? 1 : 0;
    if (tmp.props && tmp.nprops > props_cap[next]) {
        st_kv_t *grown = realloc(props[next], tmp.nprops * sizeof *grown);
        if (grown)
            props[next] = grown, props_cap[next] = tmp.nprops;
    }
    if (tmp.props && tmp.nprops <= props_cap[next]) {
        memcpy(props[next], tmp.props, tmp.nprops * sizeof *tmp.props);
        nprops[next] = tmp.nprops;
        point_slot[next] = slot;
        __atomic_store_n(&cur_props, next, __ATOMIC_RELEASE);
        refreshed_epochs = nep;
        refreshed_points = npts;
        refreshed_last_point = last_point;
    }
    st_rankdata_free(&tmp);
}

void st_abend_disarm(void) { armed = 0; }

void st_abend_use_dir(const char *archive_dir)
{
    if (dir_moved)
        return;
    snprintf(dir_next, sizeof dir_next, "%s", archive_dir);
    __atomic_store_n(&dir_moved, 1, __ATOMIC_RELEASE); /* a handler sees the whole name or the old one */
}

void st_abend_forget(void)
{
    armed = 0;
    with_mpi = 0;
    peer_pid = NULL; /* the parent's table: the child must never signal its parent's peers */
}

/* ==== handler side ============================================================================ */

/* A line built without stdio. */
typedef struct line { char buf[1024]; size_t len; } line_t;

static void add(line_t *l, const char *s)
{
    while (*s && l->len + 2 < sizeof l->buf)
        l->buf[l->len++] = *s++;
    l->buf[l->len] = 0;
}

static void add_num(line_t *l, uint64_t v)
{
    char out[24];
    st_u64_dec(out, v);
    add(l, out);
}

static void say(line_t *l)
{
    add(l, "\n");
    st_log_raw(l->buf);
}

static void begin(line_t *l)
{
    l->len = 0;
    add(l, "synctrace");
    if (with_mpi) {
        add(l, "[");
        add_num(l, (uint64_t)kit.rank);
        add(l, "]");
    }
    add(l, ": ");
}

static size_t read_events(void *ctx, uint32_t t, uint64_t first, st_event_t *out, size_t max)
{
    st_thread_t *const *threads = ctx;
    return st_record_read(threads[t], first, out, max);
}

/* A TSC calibration point now, as st_tsc_point_format writes it ("-" when none could be taken). */
static void dump_point(st_kv_t *slot)
{
    st_tsc_point_t p;
    line_t l = { .len = 0 };
    if (st_tsc_sample(&p) == 0) {
        add(&l, "tsc=");
        add_num(&l, p.tsc);
        add(&l, " local=");
        add_num(&l, p.local);
        add(&l, " ref=");
        add_num(&l, p.ref);
    } else {
        add(&l, "-");
    }
    size_t n = l.len < sizeof slot->value - 1 ? l.len : sizeof slot->value - 1;
    memcpy(slot->value, l.buf, n);
    slot->value[n] = 0;
}

/* Fills the per-dump parts of kit: thread counts, communicators, properties (END = why). */
static uint64_t snapshot(const char *why, st_thread_t *const *threads, size_t nth)
{
    uint64_t total = 0, lost = 0;
    kit.nthreads = 0;
    for (size_t i = 0; i < nth; i++) {
        const st_thread_t *th = threads[i];
        kit.threads[i] = (st_thread_data_t){ .index = th->index, .omp_num = th->omp_thread_num,
                                             .flushes = th->flushes, .nevents = st_record_count(th) };
        total += kit.threads[i].nevents;
        lost += th->lost;
        kit.nthreads++;
    }
    kit.ncomms = 0;
    if (with_mpi && kit.comms) {
        uint32_t n;
        st_comm_t **all = st_comm_all(&n);
        for (uint32_t i = 0; i < n && i < ST_COMM_MAX && all[i]; i++)
            kit.comms[kit.ncomms++] = st_comm_def_now(all[i]); /* the member lists are the table's */
    }
    if (st_callpath_on || st_config.callsite)
        st_abend_frames(&kit);
    if (kit.filtered) { /* beyond FILTERED_MAX (thread, region) pairs the rest is left out */
        uint32_t n = st_filtersum_snapshot(threads, nth, kit.filtered, FILTERED_MAX);
        kit.nfiltered = n < FILTERED_MAX ? n : FILTERED_MAX;
    }
    int c = __atomic_load_n(&cur_props, __ATOMIC_ACQUIRE);
    kit.props = c >= 0 ? props[c] : NULL;
    kit.nprops = c >= 0 ? nprops[c] : 0;
    if (c >= 0 && point_slot[c] >= 0)
        dump_point(&kit.props[point_slot[c]]);
    if (kit.nprops >= 2) { /* EVENTS_LOST: buffers a full disk took (the recovered archive says so, as finalize's) */
        line_t l = { .len = 0 };
        add_num(&l, lost);
        memcpy(kit.props[kit.nprops - 2].value, l.buf, l.len + 1);
    }
    if (kit.nprops) { /* END = why, and the MPI_Finalize phase it cut short ("SIGTERM during writing the archive ...") */
        st_kv_t *end = &kit.props[kit.nprops - 1];
        line_t l = { .len = 0 };
        add(&l, why);
        const char *in = st_polite_doing_now();
        if (in) {
            add(&l, " during ");
            add(&l, in);
        }
        size_t n = l.len < sizeof end->value - 1 ? l.len : sizeof end->value - 1;
        memcpy(end->value, l.buf, n);
        end->value[n] = 0;
    }
    return total;
}

/* A program without MPI and without SYNCTRACE_DIR: a new synctrace-DATE-TIME[-N] (mkdir is atomic). */
static int new_default_dir(void)
{
    static char stem[4096];
    if (!default_dir)
        return 0;
    memcpy(stem, dir, sizeof stem);
    for (uint64_t n = 0; n < 1000; n++) {
        line_t l = { .len = 0 };
        add(&l, stem);
        if (n) {
            add(&l, "-");
            add_num(&l, n);
        }
        if (mkdir(l.buf, 0755) == 0) {
            memcpy(dir, l.buf, l.len + 1);
            default_dir = 0;
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/*
 * The dump was taken by a thread (dumper). If by this one, an outer frame of it is writing it
 * (a fault in the dump): nothing to wait for. If by another (a dump request or a signal that
 * went to another thread), wait until it is written: the caller ends the process next, and
 * must not cut the dump short. Returns 0 when it was written.
 */
static int dump_taken(long me)
{
    struct timespec pause = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < 60000 && __atomic_load_n(&dumper, __ATOMIC_ACQUIRE) != me && state < 2; i++)
        nanosleep(&pause, NULL); /* at most 600 s, as st_abend_wait */
    return state == 2 ? 0 : -1;
}

int st_abend_dump(const char *why)
{
    if (!armed || !kit.threads)
        return -1;
    long me = syscall(SYS_gettid), none = 0;
    if (!__atomic_compare_exchange_n(&dumper, &none, me, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return dump_taken(me);
    state = 1;
    if (__atomic_load_n(&dir_moved, __ATOMIC_ACQUIRE)) {
        memcpy(dir, dir_next, sizeof dir);
        default_dir = 0;
    }
    st_mpi_tracing = 0;
    st_record_stop();
    size_t nth;
    st_thread_t *const *threads = st_record_threads_unlocked(&nth);
    if (nth == 0) {
        state = 3;
        return -1;
    }
    uint64_t nev = snapshot(why, threads, nth);
    line_t l;
    int rc = new_default_dir() == 0 ? st_rankdata_dump_live(dir, &kit, read_events, (void *)threads) : -1;
    state = rc == 0 ? 2 : 3;
    /* Rank 0 speaks for all once MPI_Init has armed them together; before, a rank cannot know
       whether rank 0 got as far, so each says where its own dump went. */
    if (rc == 0 && (kit.rank == 0 || !with_mpi)) {
        begin(&l);
        add(&l, "warning: ");
        add(&l, why);
        add(&l, ": partial trace (");
        add_num(&l, nev);
        add(&l, " events) saved in ");
        add(&l, dir);
        add(&l, "/partial; 'synctrace recover ");
        add(&l, dir);
        add(&l, "' makes it an archive");
        say(&l);
    }
    return rc;
}

/* Why a rank ended, as a small code the notification carries (sigqueue value = rank * 16 + code). */
static const char *const reasons[] = { "abnormal end", "MPI_Abort", "exit without MPI_Finalize", "SIGTERM", "SIGINT",
                                       "SIGHUP", "SIGQUIT", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT" };
#define NREASONS (int)(sizeof reasons / sizeof reasons[0])

static int reason_code(const char *why)
{
    for (int i = 1; i < NREASONS; i++)
        if (strcmp(why, reasons[i]) == 0)
            return i;
    return 0;
}

/* Another rank of this host ended: END = "<its reason> on rank R". */
static void on_dump_request(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    int saved = errno;
    static line_t why;
    int v = si && si->si_code == SI_QUEUE ? si->si_value.sival_int : 0;
    why.len = 0;
    add(&why, reasons[v % 16 < NREASONS ? v % 16 : 0]);
    add(&why, " on rank ");
    add_num(&why, (uint64_t)(v / 16));
    st_abend_dump(why.buf);
    errno = saved;
}

void st_abend_notify(const char *why)
{
    if (!armed || !with_mpi || !peer_pid)
        return;
    union sigval v = { .sival_int = kit.rank * 16 + reason_code(why) };
    for (int r = 0; r < kit.nranks; r++)
        if (r != kit.rank && peer_pid[r] > 0 && peer_host[r] == my_host)
            sigqueue(peer_pid[r], ST_ABEND_SIGNAL, v);
}

/* rank-R.strd of dir/partial (tmp: the temporary a dump in progress writes). */
static void dump_name(line_t *l, int r, int tmp)
{
    l->len = 0;
    add(l, dir);
    add(l, "/partial/rank-");
    add_num(l, (uint64_t)r);
    add(l, tmp ? ".strd.tmp" : ".strd");
}

/* Of the ranks waited for: how many dumps are complete, and a number that grows while any is being written. */
static int dumps_done(int all_ranks, uint64_t *progress)
{
    int done = 0;
    *progress = 0;
    for (int r = 0; r < kit.nranks; r++) {
        if (r == kit.rank || (!all_ranks && (!peer_host || peer_host[r] != my_host)))
            continue;
        line_t l;
        struct stat st;
        dump_name(&l, r, 0);
        if (stat(l.buf, &st) == 0) {
            done++;
            *progress += (uint64_t)st.st_size + 1;
            continue;
        }
        dump_name(&l, r, 1);
        if (stat(l.buf, &st) == 0)
            *progress += (uint64_t)st.st_size;
    }
    return done;
}

static int waited_for(int all_ranks)
{
    int n = 0;
    for (int r = 0; r < kit.nranks; r++)
        n += r != kit.rank && (all_ranks || (peer_host && peer_host[r] == my_host));
    return n;
}

void st_abend_wait(int all_ranks, const char *why)
{
    int want = armed && with_mpi ? waited_for(all_ranks) : 0;
    if (want == 0)
        return;
    /* Wait while the dumps make progress: other ranks may have recorded far more than this
       one, so no fixed limit fits; 3 s in which no dump grows or completes ends the wait (a
       rank that has not started by then is not coming), 600 s end it in any case. The
       estimate printed assumes 50 MB/s per rank of what this one recorded. */
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < kit.nthreads; i++)
        bytes += kit.threads[i].nevents * sizeof(st_event_t);
    double estimate = 1 + (double)bytes * (double)want / 50e6, idle = 3, cap = 600;
    double start = st_clock_s(CLOCK_MONOTONIC), last_change = start;
    uint64_t progress = 0, p;
    int said = 0;
    while (dumps_done(all_ranks, &p) < want) {
        double t = st_clock_s(CLOCK_MONOTONIC);
        if (p != progress)
            progress = p, last_change = t;
        if (t - last_change > idle || t - start > cap)
            break;
        if (!said && t - start > 0.2 && (kit.rank == 0 || !all_ranks)) {
            line_t l;
            begin(&l);
            add(&l, why);
            add(&l, ": waiting for the partial trace dumps of ");
            add_num(&l, (uint64_t)want);
            add(&l, all_ranks ? " other ranks" : " other ranks on this host");
            add(&l, " before the launcher ends the job, as long as they grow (about ");
            add_num(&l, (uint64_t)estimate);
            add(&l, " s for the ");
            add_num(&l, bytes >> 20);
            add(&l, " MiB recorded here per rank)");
            say(&l);
            said = 1;
        }
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}
