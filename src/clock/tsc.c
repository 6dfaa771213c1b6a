/* tsc.c — TSC detection, calibration points and the finalize correction (contract in tsc.h). */
#include "tsc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <linux/perf_event.h>
#endif

#define CAL_SPAN_NS   2000000 /* start-up calibration without the kernel's rate: two points this far apart */
#define PAIR_TRIES    32      /* brackets per point; the narrowest wins */
#define PAIR_MAX_NS   2000    /* a point whose narrowest bracket is wider is dropped (preempted throughout) */
#define MIN_GAP_NS    50000000 /* a point closer than this to the last one replaces it: short end segments
                                  would extrapolate a noisy slope */

static st_tsc_point_t own[ST_TSC_MAX_POINTS], fix[ST_TSC_MAX_POINTS];
static size_t n_own, n_fix;
static int fix_set; /* st_tsc_use_points was called */

/* Whether the flags line lists word (whole words only: nonstop_tsc_s3 is not nonstop_tsc). */
static int has_flag(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
        if ((p[-1] == ' ' || p[-1] == '\t') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

int st_tsc_invariant(const char *cpuinfo)
{
#if defined(__x86_64__)
    FILE *f = fopen(cpuinfo ? cpuinfo : "/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        ok = has_flag(line, "constant_tsc") && has_flag(line, "nonstop_tsc");
        break; /* the first CPU speaks for all */
    }
    fclose(f);
    return ok;
#else
    (void)cpuinfo;
    return 0;
#endif
}

/* One point: the system clock read between two ordered TSC reads, the narrowest of PAIR_TRIES. */
static int take_pair(uint64_t *tsc, uint64_t *ref, uint64_t *width)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < PAIR_TRIES; i++) {
        uint64_t a = st_tsc_ordered();
        uint64_t c = st_timer_clock_ns();
        uint64_t b = st_tsc_ordered();
        if (b >= a && b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ref = c;
        }
    }
    *width = best;
    return best == UINT64_MAX ? -1 : 0;
}

static void add_point(st_tsc_point_t p)
{
    if (n_own && p.local <= own[n_own - 1].local)
        return;
    if (n_own >= 2 && (p.local - own[n_own - 1].local < MIN_GAP_NS || n_own == ST_TSC_MAX_POINTS))
        n_own--;
    own[n_own++] = p;
}

/*
 * The kernel's own TSC rate (the perf user page's time_mult / 2^time_shift, ns per
 * tick, from its tsc_khz): the same in every process of the node, so the ranks' local
 * clocks run at one rate, as they do on clock_gettime, and the sync sees no drift
 * between them. Within a fraction of a ppm of the system clock; the calibration points
 * take care of the rest. 0 where perf events are not allowed.
 */
static uint64_t kernel_mult(void)
{
#if defined(__x86_64__)
    struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof attr,
                                    .config = PERF_COUNT_SW_DUMMY, .disabled = 1,
                                    .exclude_kernel = 1, .exclude_hv = 1 };
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t len = (size_t)sysconf(_SC_PAGESIZE);
    struct perf_event_mmap_page *pg = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (pg == MAP_FAILED)
        return 0;
    uint64_t mult = 0;
    if (pg->cap_user_time && pg->time_mult && pg->time_shift <= 32)
        mult = (uint64_t)pg->time_mult << (32 - pg->time_shift);
    munmap(pg, len);
    return mult;
#else
    return 0;
#endif
}

int st_tsc_calibrate(st_tsc_conv_t *conv)
{
    uint64_t t0, r0, t1, r1, w0, w1;
    if (take_pair(&t0, &r0, &w0) != 0)
        return -1;
    uint64_t km = kernel_mult();
    if (km) {
        conv->tsc0 = t0;
        conv->ns0 = r0;
        conv->mult = km;
        n_own = 0;
        add_point((st_tsc_point_t){ t0, r0, r0 });
        return 0;
    }
    while (st_timer_clock_ns() < r0 + CAL_SPAN_NS)
        ;
    if (take_pair(&t1, &r1, &w1) != 0 || t1 <= t0 || r1 <= r0)
        return -1;
    conv->tsc0 = t0;
    conv->ns0 = r0;
    conv->mult = (uint64_t)llround((double)(r1 - r0) * 4294967296.0 / (double)(t1 - t0));
    n_own = 0;
    add_point((st_tsc_point_t){ t0, r0, r0 });
    add_point((st_tsc_point_t){ t1, r0 + (uint64_t)(((__int128)(t1 - t0) * conv->mult) >> 32), r1 });
    return 0;
}

void st_tsc_point(void)
{
    if (!st_timer_tsc)
        return;
    uint64_t t, r, w;
    if (take_pair(&t, &r, &w) != 0 || (double)w * (double)st_tsc_conv.mult / 4294967296.0 > PAIR_MAX_NS)
        return;
    add_point((st_tsc_point_t){ t, st_tsc_to_ns(t), r });
}

size_t st_tsc_points(const st_tsc_point_t **pts)
{
    *pts = own;
    return n_own;
}

void st_tsc_use_points(const st_tsc_point_t *pts, size_t n)
{
    n_fix = n < ST_TSC_MAX_POINTS ? n : ST_TSC_MAX_POINTS;
    if (n_fix)
        memmove(fix, pts, n_fix * sizeof *fix);
    fix_set = 1;
}

static const st_tsc_point_t *table(size_t *n)
{
    if (fix_set) {
        *n = n_fix;
        return fix;
    }
    *n = st_timer_tsc ? n_own : 0;
    return own;
}

int st_tsc_correcting(void)
{
    size_t n;
    table(&n);
    return n >= 2;
}

uint64_t st_tsc_correct(uint64_t global)
{
    size_t n;
    const st_tsc_point_t *p = table(&n);
    return n >= 2 ? st_tsc_interp(p, n, global) : global;
}

uint64_t st_tsc_interp(const st_tsc_point_t *p, size_t n, uint64_t local)
{
    size_t lo = 0, hi = n - 1; /* the segment [lo, lo + 1] holding local, or an end segment */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (local < p[mid].local)
            hi = mid;
        else
            lo = mid;
    }
    double f = ((double)(int64_t)(local - p[lo].local)) / (double)(p[hi].local - p[lo].local);
    double r = (double)p[lo].ref + f * (double)(int64_t)(p[hi].ref - p[lo].ref);
    return r <= 0 ? 0 : (uint64_t)llround(r);
}

double st_tsc_hz(const st_tsc_point_t *p, size_t n)
{
    if (n < 2 || p[n - 1].ref <= p[0].ref)
        return 0;
    return (double)(p[n - 1].tsc - p[0].tsc) * 1e9 / (double)(p[n - 1].ref - p[0].ref);
}

double st_tsc_nonlinearity(const st_tsc_point_t *p, size_t n)
{
    double m = 0;
    for (size_t k = 1; k + 1 < n; k++) {
        double f = (double)(p[k].tsc - p[0].tsc) / (double)(p[n - 1].tsc - p[0].tsc);
        double line = (double)p[0].ref + f * (double)(p[n - 1].ref - p[0].ref);
        m = fmax(m, fabs((double)p[k].ref - line));
    }
    return m;
}
