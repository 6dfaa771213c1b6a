/* tsc.c — TSC detection, calibration points and the finalize correction (contract in tsc.h). */
#include "tsc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/log.h"
#include "../util/nodeid.h"

#define CAL_SPAN_NS   2000000 /* a measured conversion: two points this far apart */
#define PAIR_TRIES    32      /* brackets per point; the narrowest wins */
#define PAIR_MAX_NS   2000    /* a point whose narrowest bracket is wider is dropped (preempted throughout) */
#define ST_TSC_NODE_DIR "/dev/shm"
#define MIN_GAP_NS    50000000 /* a point closer than this to the last one replaces it: short end segments
                                  would extrapolate a noisy slope */

static st_tsc_point_t own[ST_TSC_MAX_POINTS], fix[ST_TSC_MAX_POINTS];
static size_t n_own, n_fix;
static int64_t jumped; /* the first jump between two of this process's points (st_tsc_jump), 0: none */
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
    *tsc = *ref = 0; /* set again by every try that counts (-O3 cannot tell that one did) */
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
    int64_t j = n_own ? st_tsc_jump(&own[n_own - 1], &p) : 0;
    if (j && !jumped)
        jumped = j;
    if (n_own && p.local <= own[n_own - 1].local)
        return;
    if (n_own >= 2 && (p.local - own[n_own - 1].local < MIN_GAP_NS || n_own == ST_TSC_MAX_POINTS))
        n_own--;
    own[n_own++] = p;
}

/* ns of conv at counter value t (st_tsc_to_ns with conv instead of the published one). */
static uint64_t conv_ns(const st_tsc_conv_t *conv, uint64_t t)
{
    return conv->ns0 + (uint64_t)(int64_t)(((__int128)(int64_t)(t - conv->tsc0) * (__int128)conv->mult) >> 32);
}

/* Measures a conversion: two points CAL_SPAN_NS apart. The first point goes to *t0, *r0. */
static int measure(st_tsc_conv_t *conv, uint64_t *t0, uint64_t *r0)
{
    uint64_t t1, r1, w;
    if (take_pair(t0, r0, &w) != 0)
        return -1;
    while (st_timer_clock_ns() < *r0 + CAL_SPAN_NS)
        ;
    if (take_pair(&t1, &r1, &w) != 0 || t1 <= *t0 || r1 <= *r0)
        return -1;
    conv->tsc0 = *t0;
    conv->ns0 = *r0;
    conv->mult = (uint64_t)llround((double)(r1 - *r0) * 4294967296.0 / (double)(t1 - *t0));
    return 0;
}

/* ---- the node's conversion ------------------------------------------------------------ */

/*
 * One conversion per node and boot, in a file of this user in /dev/shm (node-local
 * memory, gone at reboot; not SYNCTRACE_TMPDIR, which a run leaves empty) named after
 * the boot id and the reference clock: whichever process measured first
 * publishes it (link: the first one wins), every later process of the boot — of this
 * job or of any later one — reads it. So the ranks sharing a node share one TSC clock
 * exactly, as they share clock_gettime, which ClockPropSync relies on; a conversion
 * measured per process would differ from its neighbours' in rate by ppm.
 */
typedef struct node_file {
    char magic[8]; /* "STTSC1\0\0" */
    st_tsc_conv_t conv;
} node_file_t;

static const char *node_dir = ST_TSC_NODE_DIR;

void st_tsc_node_dir(const char *dir)
{
    node_dir = dir ? dir : ST_TSC_NODE_DIR;
}

static int node_path(char *path, size_t len)
{
    char boot[64];
    if (st_boot_id(boot, sizeof boot) != 0 || strchr(boot, '/'))
        return -1;
    int n = snprintf(path, len, "%s/synctrace-tsc-%u-%s-%d", node_dir, (unsigned)getuid(), boot,
                     (int)st_timer_clock);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int node_read(const char *path, st_tsc_conv_t *conv)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    node_file_t nf;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid() &&
             read(fd, &nf, sizeof nf) == (ssize_t)sizeof nf;
    close(fd);
    /* 0.1 .. 10 ns per tick: anything else is not a conversion of ours */
    if (!ok || memcmp(nf.magic, "STTSC1", 7) != 0 || nf.conv.mult < (1ull << 32) / 10 || nf.conv.mult > (10ull << 32))
        return -1;
    *conv = nf.conv;
    return 0;
}

/* Publishes conv unless another process did first (replace: over whatever the file holds). 0 if the
 * file holds a conversion now. */
static int node_publish(const char *path, const st_tsc_conv_t *conv, int replace)
{
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    node_file_t nf = { "STTSC1", *conv };
    int ok = write(fd, &nf, sizeof nf) == (ssize_t)sizeof nf;
    close(fd);
    int rc = -1;
    if (ok && replace)
        rc = rename(tmp, path);
    else if (ok)
        rc = link(tmp, path) == 0 || errno == EEXIST ? 0 : -1;
    if (rc != 0 || !replace)
        unlink(tmp);
    return rc;
}

/*
 * Whether conv still describes this TSC: the counter is not before the conversion's base, and
 * the clock has not moved away from it by more than its rate error explains since it was measured
 * (st_tsc_jump from the base, where conv and the clock agreed, to now). Within a boot neither
 * fails on real hardware; a virtual machine restored from a snapshot or moved to another host
 * keeps its boot id, /dev/shm and CLOCK_MONOTONIC, but its TSC jumps (seen on CI: a conversion
 * whose base lay ahead of the counter put every time of a run at one instant, 4 days off).
 */
static int node_fits(const st_tsc_conv_t *conv)
{
    uint64_t t, r, w;
    if (take_pair(&t, &r, &w) != 0 || (int64_t)(t - conv->tsc0) < 0 || r < conv->ns0)
        return 0;
    st_tsc_point_t base = { conv->tsc0, conv->ns0, conv->ns0 }, now = { t, conv_ns(conv, t), r };
    return st_tsc_jump(&base, &now) == 0;
}

int st_tsc_calibrate(st_tsc_conv_t *conv, int *shared)
{
    char path[4200];
    uint64_t t0, r0, w;
    n_own = 0;
    jumped = 0;
    *shared = 0;
    int have_path = node_path(path, sizeof path) == 0;
    st_tsc_conv_t found;
    int have = have_path && node_read(path, &found) == 0;
    int stale = have && !node_fits(&found);
    if (have && !stale) {
        *conv = found, *shared = 1;
    } else {
        st_tsc_conv_t mine;
        if (measure(&mine, &t0, &r0) != 0)
            return -1;
        *conv = mine;
        /* a stale file is replaced unless a neighbour replaced it meanwhile (then its conversion fits) */
        if (stale && node_read(path, &found) == 0 && node_fits(&found))
            *conv = found, *shared = 1;
        else if (have_path && node_publish(path, &mine, stale) == 0 && node_read(path, conv) == 0)
            *shared = 1; /* ours or the winner's */
        if (stale)
            st_log_info("the node's TSC conversion in %s did not fit this clock (the TSC jumped: a virtual machine "
                        "restored or moved?): measured again%s", path, *shared ? " and replaced" : "");
    }
    if (take_pair(&t0, &r0, &w) != 0)
        return -1;
    add_point((st_tsc_point_t){ t0, conv_ns(conv, t0), r0 });
    return 0;
}

int st_tsc_sample(st_tsc_point_t *p)
{
    uint64_t t, r, w;
    if (!st_timer_tsc || take_pair(&t, &r, &w) != 0 || (double)w * (double)st_tsc_conv.mult / 4294967296.0 > PAIR_MAX_NS)
        return -1;
    *p = (st_tsc_point_t){ t, st_tsc_to_ns(t), r };
    return 0;
}

void st_tsc_point(void)
{
    st_tsc_point_t p;
    if (st_tsc_sample(&p) == 0)
        add_point(p);
}

int64_t st_tsc_jumped(void)
{
    return jumped;
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

void st_tsc_correct(uint64_t *time, size_t count, size_t stride)
{
    size_t n;
    const st_tsc_point_t *p = table(&n);
    if (n >= 2)
        st_tsc_interp_many(p, n, time, count, stride);
}
