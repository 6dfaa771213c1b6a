/*
 * test_tsc.c — the TSC timer without MPI (src/clock/tsc.c src/clock/tsc_points.c, timer.c): the piecewise
 * linear correction through calibration points (interpolation, extrapolation, a
 * slewed system clock followed), whose points correct (own or rank 0's, none),
 * frequency and nonlinearity, the /proc/cpuinfo test, and on a CPU with an invariant
 * TSC the live timer against clock_gettime after the correction, the node's
 * conversion read back the same by a second calibration, and a node's conversion that no
 * longer fits the counter (its base ahead of it, or seconds off) measured again and replaced,
 * and a counter's jump during the run between two calibration points reported.
 */
/* link: src/clock/tsc.c src/util/nodeid.c src/clock/tsc_points.c src/clock/timer.c src/config/config.c src/util/archive_dir.c src/util/log.c */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../src/clock/timer.h"
#include "../../src/clock/tsc.h"
#include "../../src/config/config.h"

#include "check.h"

static double dabs(uint64_t a, uint64_t b) { return fabs((double)a - (double)b); }

/* A system clock that runs 30 ppb fast of the counter, then (NTP) 50 ppb slow. */
static uint64_t truth(uint64_t local)
{
    const uint64_t k = 100000000000ull; /* slew change at local = 100 s */
    double t = local < k ? (double)local * (1 + 30e-9) : (double)k * (1 + 30e-9) + (double)(local - k) * (1 - 50e-9);
    return (uint64_t)llround(t) + 5000; /* plus an offset */
}

static void test_interp(void)
{
    st_tsc_point_t p[6];
    uint64_t at[6] = { 1000000, 2000000, 30000000000ull, 100000000000ull, 200000000000ull, 300000000000ull };
    for (int i = 0; i < 6; i++)
        p[i] = (st_tsc_point_t){ at[i] * 3, at[i], truth(at[i]) };
    double worst = 0;
    for (uint64_t l = 1000000; l <= 320000000000ull; l += 997000001ull) /* inside and past the last point */
        worst = fmax(worst, dabs(st_tsc_interp(p, 6, l), truth(l)));
    EXPECT(worst <= 1, "piecewise correction off a slewed clock by %.0f ns", worst);
    EXPECT(st_tsc_interp(p, 6, at[3]) == p[3].ref, "a point maps to its own reference");
    EXPECT(dabs(st_tsc_interp(p, 6, 500000), truth(500000)) <= 1, "extrapolation before the first point");
    /* without the correction the same run is microseconds off: the test above means something */
    EXPECT(dabs(300000000000ull, truth(300000000000ull)) > 1000, "synthetic clock too close to the counter");
    double hz = st_tsc_hz(p, 6);
    EXPECT(fabs(hz - 3e9 / (1 + (truth(at[5]) - truth(at[0]) - (double)(at[5] - at[0])) / (double)(at[5] - at[0]))) < 1,
          "frequency %.3f Hz", hz);
    double nl = st_tsc_nonlinearity(p, 6);
    EXPECT(nl > 1000 && nl < 10000, "nonlinearity of the slewed clock %.0f ns", nl);
    for (int i = 1; i < 5; i++)
        p[i].ref = p[0].ref + (uint64_t)llround((double)(p[i].tsc - p[0].tsc) / (double)(p[5].tsc - p[0].tsc) *
                                                (double)(p[5].ref - p[0].ref));
    EXPECT(st_tsc_nonlinearity(p, 6) <= 1, "a straight line has no nonlinearity");
}

/* The correction of many times in place (st_tsc_interp_many, st_tsc_correct): every time as st_tsc_interp
 * gives it, in order and out of order, before the first point, past the last, at the points, over 2 .. 200
 * points, through a stride (the time fields of records). */
typedef struct rec {
    uint32_t a;
    uint64_t time;
    uint16_t b;
} rec_t;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* One global time through st_tsc_correct. */
static uint64_t corrected(uint64_t t)
{
    st_tsc_correct(&t, 1, sizeof t);
    return t;
}

static void test_interp_many(void)
{
    enum { NT = 20000 };
    static st_tsc_point_t p[200];
    static rec_t r[NT];
    static uint64_t want[NT];
    uint64_t s = 88172645463325252ull;
    size_t bad = 0, cases = 0;
    for (size_t n = 2; n <= 200; n = n < 8 ? n + 1 : n * 2) {
        uint64_t l = 1000000 + rnd(&s) % 1000, ref = 5000;
        for (size_t k = 0; k < n; k++) {
            p[k] = (st_tsc_point_t){ 3 * l, l, ref };
            l += 1 + rnd(&s) % 4000000000ull;
            ref += 1 + rnd(&s) % 4000000000ull;
        }
        for (int order = 0; order < 3; order++) { /* rising, random, rising with steps back */
            uint64_t t = 0, span = p[n - 1].local + 2000000000ull;
            for (size_t i = 0; i < NT; i++) {
                if (order == 0)
                    t += rnd(&s) % (2 * span / NT + 1);
                else if (order == 1)
                    t = rnd(&s) % span;
                else
                    t = rnd(&s) % 10 ? t + rnd(&s) % (2 * span / NT + 1) : t / 2;
                if (i % 97 == 0)
                    t = p[rnd(&s) % n].local; /* at a point */
                r[i] = (rec_t){ (uint32_t)i, t, 7 };
                want[i] = st_tsc_interp(p, n, t);
            }
            st_tsc_interp_many(p, n, &r[0].time, NT, sizeof *r);
            for (size_t i = 0; i < NT; i++) {
                bad += r[i].time != want[i] || r[i].a != (uint32_t)i || r[i].b != 7;
                cases++;
            }
        }
    }
    EXPECT(bad == 0, "st_tsc_interp_many differs from st_tsc_interp at %zu of %zu times", bad, cases);
    st_tsc_point_t q[2] = { { 0, 1000, 1000 }, { 0, 1000000001000ull, 1000000002000ull } };
    uint64_t t[3] = { 500000001000ull, 1000, 12345 };
    st_timer_tsc = 0;
    st_tsc_use_points(q, 2);
    st_tsc_correct(t, 3, sizeof *t);
    EXPECT(t[0] == 500000001500ull && t[1] == 1000 && t[2] == st_tsc_interp(q, 2, 12345),
          "st_tsc_correct of three times through rank 0's points: %llu %llu %llu", (unsigned long long)t[0],
          (unsigned long long)t[1], (unsigned long long)t[2]);
    st_tsc_use_points(q, 0);
    t[0] = 777;
    st_tsc_correct(t, 1, sizeof *t);
    EXPECT(t[0] == 777, "no correction without points");
}

static void test_use_points(void)
{
    st_tsc_point_t p[2] = { { 0, 1000, 1000 }, { 0, 1000000001000ull, 1000000002000ull } }; /* 1 ppb */
    st_timer_tsc = 0;
    EXPECT(!st_tsc_correcting(), "a clock_gettime process corrects nothing by itself");
    EXPECT(corrected(12345) == 12345, "identity without points");
    st_tsc_use_points(p, 2);
    EXPECT(st_tsc_correcting(), "rank 0's points are used (even on a clock_gettime rank)");
    EXPECT(corrected(500000001000ull) == 500000001500ull, "corrected through rank 0's points: %llu",
          (unsigned long long)corrected(500000001000ull));
    st_tsc_use_points(p, 0);
    EXPECT(!st_tsc_correcting() && corrected(777) == 777, "rank 0 on clock_gettime: no correction");
}

static void test_cpuinfo(void)
{
    char path[] = "/tmp/test_tsc_cpuinfoXXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    EXPECT(f != NULL, "temporary file");
    if (!f)
        return;
    fputs("processor\t: 0\nflags\t\t: fpu tsc rdtscp constant_tsc nonstop_tsc_s3 lm\n", f);
    fclose(f);
    EXPECT(!st_tsc_invariant(path), "nonstop_tsc_s3 is not nonstop_tsc");
    f = fopen(path, "w");
    fputs("processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc lm\nflags\t\t: fpu\n", f);
    fclose(f);
#if defined(__x86_64__)
    EXPECT(st_tsc_invariant(path), "constant_tsc and nonstop_tsc listed");
#endif
    unlink(path);
}

static uint64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Live: the counter against CLOCK_MONOTONIC over 0.3 s (best of 20 brackets each). */
static void test_live(void)
{
    if (!st_tsc_invariant(NULL)) {
        printf("no invariant TSC: live part skipped\n");
        return;
    }
    st_timer_init(ST_CLOCK_MONOTONIC, ST_TIMER_TSC);
    EXPECT(st_timer_tsc, "the TSC timer was selected");
    EXPECT(st_timer_resolution_ns() == 1, "resolution 1 ns");
    struct timespec ts = { 0, 300000000 };
    nanosleep(&ts, NULL);
    st_tsc_point();
    const st_tsc_point_t *p;
    size_t n = st_tsc_points(&p);
    EXPECT(n >= 2, "%zu calibration points", n);
    st_tsc_use_points(p, n); /* what a rank 0 at finalize does */
    double hz = st_tsc_hz(p, n), worst = 0;
    EXPECT(hz > 1e8 && hz < 1e11, "frequency %.0f Hz", hz);
    for (int i = 0; i < 20; i++) {
        uint64_t best = UINT64_MAX, err = 0;
        for (int k = 0; k < 20; k++) {
            uint64_t a = mono(), t = corrected(st_timer_now()), b = mono();
            if (b - a < best)
                best = b - a, err = t < a ? a - t : t > b ? t - b : 0;
        }
        worst = fmax(worst, (double)err);
    }
    EXPECT(worst <= 200, "TSC timer %.0f ns outside CLOCK_MONOTONIC brackets", worst);
    printf("TSC %.6f MHz, %zu points, live error %.0f ns\n", hz / 1e6, n, worst);
    /* the node's conversion: a second process (here: a second calibration) reads the same one */
    st_tsc_conv_t again;
    int shared = 0;
    EXPECT(st_tsc_calibrate(&again, &shared) == 0, "second calibration");
    if (access("/dev/shm", W_OK) == 0)
        EXPECT(st_timer_tsc_shared, "/dev/shm is writable, yet the conversion was not shared");
    if (st_timer_tsc_shared)
        EXPECT(shared && again.tsc0 == st_tsc_conv.tsc0 && again.ns0 == st_tsc_conv.ns0 &&
              again.mult == st_tsc_conv.mult, "the node's conversion differs on a second read (shared %d)", shared);
    else
        printf("/dev/shm not usable: conversion not shared\n");
}

/* A map's TSC form (st_timer_map_tsc) against the two conversions it replaces (ticks -> local ns,
 * local -> global): within 2 ns over an hour of ticks at several rates, offsets and drifts, exact
 * for a map without offset and drift (one node's clocks), never decreasing from one tick to the
 * next, and absent (the two conversions) for a TSC of 1 GHz or less. */
static void test_map_tsc(void)
{
    const double ghz[] = { 1.5, 2.1, 2.994, 3.7 };
    const int64_t as[] = { 0, 3000000, -1000000000 };
    const double bs[] = { 0, 2e-5, -3.5e-5, 4e-4 };
    st_tsc_conv_t saved = st_tsc_conv;
    int saved_tsc = st_timer_tsc;
    st_timer_tsc = 1;
    uint64_t seed = 88172645463325252ull;
    double worst = 0;
    for (size_t f = 0; f < sizeof ghz / sizeof *ghz; f++) {
        st_tsc_conv = (st_tsc_conv_t){ .tsc0 = 123456789012ull, .ns0 = 5000000000000ull,
                                       .mult = (uint64_t)llround(4294967296.0 / ghz[f]) };
        for (size_t i = 0; i < sizeof as / sizeof *as; i++)
            for (size_t j = 0; j < sizeof bs / sizeof *bs; j++) {
                st_timer_map_t m = { .a = as[i], .b = bs[j], .t0 = st_tsc_conv.ns0 + 7000000000ull, .epoch = 2 };
                st_timer_map_tsc(&m);
                EXPECT(m.gm != 0, "%.3f GHz: no TSC form", ghz[f]);
                for (int k = 0; k < 2000; k++) {
                    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                    uint64_t d = k < 3 ? (uint64_t)k : seed % (3600ull * 4000000000ull);
                    uint64_t tsc = st_tsc_conv.tsc0 + d;
                    uint64_t fused = st_timer_global_tsc(&m, tsc), two = st_timer_apply(&m, st_tsc_to_ns(tsc));
                    worst = fmax(worst, dabs(fused, two));
                    if (as[i] == 0 && bs[j] == 0)
                        EXPECT(fused == two, "%.3f GHz, no offset or drift, %llu ticks: %llu != %llu", ghz[f],
                              (unsigned long long)d, (unsigned long long)fused, (unsigned long long)two);
                    EXPECT(dabs(fused, two) <= 2, "%.3f GHz a %lld b %g, %llu ticks: TSC form %llu, conversions %llu",
                          ghz[f], (long long)as[i], bs[j], (unsigned long long)d, (unsigned long long)fused,
                          (unsigned long long)two);
                    EXPECT(st_timer_global_tsc(&m, tsc + 1) >= fused, "decreasing after %llu ticks", (unsigned long long)d);
                }
                /* before tsc0: the two conversions */
                EXPECT(st_timer_global_tsc(&m, st_tsc_conv.tsc0 - 5) == st_timer_apply(&m, st_tsc_to_ns(st_tsc_conv.tsc0 - 5)),
                      "ticks before tsc0 not converted the long way");
            }
    }
    st_tsc_conv.mult = 4294967296ull; /* 1 GHz: no TSC form */
    st_timer_map_t slow = { .a = 5, .b = 1e-5, .epoch = 2 };
    st_timer_map_tsc(&slow);
    EXPECT(slow.gm == 0, "1 GHz TSC: gm %llu, expected none", (unsigned long long)slow.gm);
    st_timer_tsc = 0; /* the clock_gettime timer: none */
    st_timer_map_tsc(&slow);
    EXPECT(slow.gm == 0, "clock_gettime timer: a TSC form");
    uint64_t before = st_timer_apply(&slow, st_timer_clock_ns()), now = st_timer_global(&slow, 0);
    EXPECT(now >= before && now <= st_timer_apply(&slow, st_timer_clock_ns()), "without a TSC form: not the local clock's time");
    st_tsc_conv = saved, st_timer_tsc = saved_tsc;
    printf("map TSC form: at most %.0f ns from the two conversions\n", worst);
}


/* The node's conversion file under dir (one synctrace-tsc-* there): 0 and its path in path, or -1. */
static int node_file(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    int rc = -1;
    for (struct dirent *e; d && rc != 0 && (e = readdir(d));)
        if (strncmp(e->d_name, "synctrace-tsc-", 14) == 0 && !strchr(e->d_name, '.'))
            rc = snprintf(path, len, "%s/%s", dir, e->d_name) < (int)len ? 0 : -1;
    if (d)
        closedir(d);
    return rc;
}

typedef struct { char magic[8]; st_tsc_conv_t conv; } node_bytes_t; /* tsc.c's file */

static int node_rw(const char *path, st_tsc_conv_t *conv, int write)
{
    node_bytes_t nb;
    FILE *f = fopen(path, "rb");
    int ok = f && fread(&nb, sizeof nb, 1, f) == 1;
    if (f)
        fclose(f);
    if (ok && write) {
        nb.conv = *conv;
        ok = (f = fopen(path, "wb")) && fwrite(&nb, sizeof nb, 1, f) == 1;
        ok = f && fclose(f) == 0 && ok;
    } else if (ok) {
        *conv = nb.conv;
    }
    return ok ? 0 : -1;
}

/* How far conv is off the clock now, in ns (the narrowest of a few brackets). */
static double conv_error(const st_tsc_conv_t *conv)
{
    double best = INFINITY;
    for (int i = 0; i < 20; i++) {
        uint64_t a = mono(), t = st_tsc_ordered(), b = mono();
        uint64_t l = conv->ns0 + (uint64_t)(int64_t)(((__int128)(int64_t)(t - conv->tsc0) * (__int128)conv->mult) >> 32);
        double e = l < a ? (double)(a - l) : l > b ? (double)(l - b) : 0;
        best = fmin(best, e);
    }
    return best;
}

/*
 * A node's conversion that no longer fits this TSC (a virtual machine's counter jumped; CI once read one whose
 * base lay ahead of the counter, and every time of the run fell on one instant): a calibration measures again
 * and replaces it; one a little off (what its rate error gives with age) is kept and shared.
 */
static void test_node_stale(void)
{
    if (!st_tsc_invariant(NULL))
        return;
    char dir[] = "/tmp/st_test_tsc.XXXXXX", path[4200];
    REQUIRE(mkdtemp(dir), "mkdtemp");
    st_tsc_node_dir(dir);
    st_tsc_conv_t first, got, forged, back;
    int shared = 0;
    REQUIRE(st_tsc_calibrate(&first, &shared) == 0 && shared, "calibration in %s (shared %d)", dir, shared);
    REQUIRE(node_file(dir, path, sizeof path) == 0, "no conversion file in %s", dir);
    struct { const char *what; int64_t dtsc, dns; int kept; } cases[] = {
        { "base 150e12 ticks ahead of the counter", 150000000000000ll, 0, 0 },
        { "4 days ahead of the clock", 0, 361115173433235ll, 0 },
        { "10 s behind the clock", 0, -10000000000ll, 0 },
        { "50 us ahead of the clock", 0, 50000, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        forged = first;
        forged.tsc0 += (uint64_t)cases[i].dtsc;
        forged.ns0 += (uint64_t)cases[i].dns;
        REQUIRE(node_rw(path, &forged, 1) == 0, "cannot write %s", path);
        shared = 0;
        EXPECT(st_tsc_calibrate(&got, &shared) == 0 && shared, "%s: calibration (shared %d)", cases[i].what, shared);
        int same = got.tsc0 == forged.tsc0 && got.ns0 == forged.ns0 && got.mult == forged.mult;
        EXPECT(same == cases[i].kept, "%s: the forged conversion was %s", cases[i].what, same ? "kept" : "replaced");
        if (!cases[i].kept)
            EXPECT(conv_error(&got) < 20000, "%s: the new conversion is %.0f ns off the clock", cases[i].what,
                   conv_error(&got));
        EXPECT(node_rw(path, &back, 0) == 0 && back.tsc0 == got.tsc0 && back.ns0 == got.ns0 && back.mult == got.mult,
               "%s: the file does not hold the conversion taken", cases[i].what);
    }
    unlink(path);
    rmdir(dir);
    st_tsc_node_dir(NULL);
}

/* st_tsc_jump: offsets that the conversion's rate error explains (1 ms + 100 ppm of the span) are no jump, others
 * are, either way; and a live process whose counter jumps (its conversion shifted by 10 s) reports it. */
static void test_jump(void)
{
    const uint64_t s = 1000000000ull;
    st_tsc_point_t a = { 1000, 50 * s, 50 * s + 5000 };
    struct { uint64_t dt; int64_t doff, want; } c[] = {
        { 10 * s, 500000, 0 },                 /* 0.5 ms in 10 s: within 1 ms + 1 ms */
        { 10 * s, -1900000, 0 },
        { 10 * s, 3000000, 3000000 },          /* 3 ms in 10 s */
        { 1000 * s, 90000000, 0 },             /* 90 ms in 1000 s: within 1 ms + 100 ms */
        { 1000 * s, -150000000, -150000000 },
        { 1 * s, -361115 * (int64_t)s, -361115 * (int64_t)s }, /* the counter 4 days ahead */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        st_tsc_point_t b = { a.tsc + c[i].dt, a.local + c[i].dt - (uint64_t)c[i].doff, a.ref + c[i].dt };
        EXPECT(st_tsc_jump(&a, &b) == c[i].want, "case %zu: jump %lld, expected %lld", i, (long long)st_tsc_jump(&a, &b),
               (long long)c[i].want);
    }
    if (!st_tsc_invariant(NULL))
        return;
    st_timer_init(ST_CLOCK_MONOTONIC, ST_TIMER_TSC);
    st_tsc_point();
    EXPECT(st_tsc_jumped() == 0, "a jump of %lld ns without one", (long long)st_tsc_jumped());
    st_tsc_conv_t saved = st_tsc_conv;
    st_tsc_conv.ns0 -= 10 * s; /* the counter's time 10 s behind from here on */
    st_tsc_point();
    st_tsc_conv = saved;
    EXPECT(llabs(st_tsc_jumped() - (int64_t)(10 * s)) < 1000000, "a jump of 10 s reported as %lld ns",
           (long long)st_tsc_jumped());
    st_timer_init(ST_CLOCK_MONOTONIC, ST_TIMER_TSC);
    EXPECT(st_tsc_jumped() == 0, "a new calibration keeps the old jump (%lld ns)", (long long)st_tsc_jumped());
}

int main(void)
{
    test_interp();
    test_interp_many();
    test_use_points();
    test_cpuinfo();
    test_map_tsc();
    test_live();
    test_node_stale();
    test_jump();
    return failures != 0;
}
