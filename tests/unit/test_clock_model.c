/*
 * test_clock_model.c — clock models without MPI: composition and chains, flatten /
 * unflatten, least squares, the band fit and burst offsets on synthetic ping-pongs,
 * the anchor rule, interpolation and the finalize re-mapping.
 */
/* link: src/clock/model.c */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/clock/model.h"

#include "check.h"

static uint64_t rng = 88172645463325252ull;
static double urand(void) /* [0, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_models(void)
{
    const int64_t base = 1700000000000000000ll; /* CLOCK_REALTIME-sized values keep full precision */
    st_clock_lm_t m1 = { base, 1234.5, 37e-6 }, m2 = { base + 5000000000ll, -99.25, -12e-6 };
    for (int64_t dx = -3000000000ll; dx <= 3000000000ll; dx += 1000000000ll) {
        int64_t x = base + dx;
        int64_t y = st_clock_lm_apply(&m1, x);
        EXPECT(llabs(y - x - (int64_t)llround(1234.5 + 37e-6 * (double)dx)) <= 1, "apply at %lld", (long long)dx);
        EXPECT(llabs(st_clock_lm_invert(&m1, y) - x) <= 1, "invert at %lld", (long long)dx);
        st_clock_lm_t c = st_clock_lm_compose(&m2, &m1);
        EXPECT(llabs(st_clock_lm_apply(&c, x) - st_clock_lm_apply(&m2, y)) <= 2, "compose at %lld", (long long)dx);
    }
    st_clock_t clk;
    st_clock_identity(&clk);
    EXPECT(st_clock_read(&clk, base) == base, "identity");
    for (int i = 0; i < ST_CLOCK_MAX_DEPTH + 3; i++) { /* overflow collapses instead of failing */
        st_clock_lm_t m = { base + i * 1000000ll, 10.0 * i, 1e-6 * (i % 3) };
        int64_t before = st_clock_read(&clk, base + 7777777);
        st_clock_push(&clk, &m);
        int64_t expect = st_clock_lm_apply(&m, before);
        EXPECT(llabs(st_clock_read(&clk, base + 7777777) - expect) <= 2 + i, "push %d", i);
    }
    EXPECT(clk.depth <= ST_CLOCK_MAX_DEPTH, "depth %u", clk.depth);
    st_clock_lm_t all = st_clock_collapse(&clk, base);
    EXPECT(llabs(st_clock_lm_apply(&all, base + 123456789) - st_clock_read(&clk, base + 123456789)) <= 12,
          "collapse");
    st_timer_map_t tm = st_clock_lm_to_map(&all, 7);
    EXPECT(tm.epoch == 7 && llabs((int64_t)st_timer_apply(&tm, (uint64_t)base + 5) - st_clock_lm_apply(&all, base + 5)) <= 1,
          "timer map");
}

static void test_flatten(void)
{
    st_clock_t a, b;
    st_clock_identity(&a);
    st_clock_lm_t m1 = { 5, 1.5, 2e-6 }, m2 = { -7, -3.25, -1e-5 };
    st_clock_push(&a, &m1);
    st_clock_push(&a, &m2);
    unsigned char buf[ST_CLOCK_FLAT_MAX];
    size_t n = st_clock_flatten(&a, buf, sizeof buf);
    EXPECT(n == 8 + 2 * 24, "size %zu", n);
    EXPECT(st_clock_flatten(&a, buf, 4) == n, "short buffer reports the size");
    EXPECT(st_clock_unflatten(buf, n, &b) == 0 && memcmp(&a, &b, sizeof a) == 0, "round trip");
    EXPECT(st_clock_unflatten(buf, n - 1, &b) != 0, "truncated accepted");
    buf[0] = 'X';
    EXPECT(st_clock_unflatten(buf, n, &b) != 0, "bad magic accepted");
    buf[0] = 'S';
    buf[5] = ST_CLOCK_MAX_DEPTH + 1;
    EXPECT(st_clock_unflatten(buf, n, &b) != 0, "bad depth accepted");
}

static void test_fit(void)
{
    int64_t x[20];
    double y[20], w[20];
    for (int i = 0; i < 20; i++)
        x[i] = 1000000000ll + i * 1000000ll;
    for (int i = 0; i < 20; i++) {
        y[i] = 500 + 25e-6 * (double)(x[i] - x[19]);
        w[i] = 1;
    }
    st_clock_lm_t m;
    double se;
    EXPECT(st_clock_fit(x, y, NULL, 20, &m, &se) == 0, "fit failed");
    EXPECT(m.t0 == x[19] && fabs(m.a - 500) < 1e-6 && fabs(m.b - 25e-6) < 1e-12 && se < 1e-12, "exact line: %g %g",
          m.a, m.b);
    y[3] += 1e6; /* an outlier with a negligible weight does not move the fit */
    w[3] = 1e-12;
    st_clock_fit(x, y, w, 20, &m, NULL);
    EXPECT(fabs(m.a - 500) < 1e-3 && fabs(m.b - 25e-6) < 1e-9, "weights ignored: %g %g", m.a, m.b);
    EXPECT(st_clock_fit(x, y, NULL, 1, &m, NULL) == 0 && m.b == 0 && m.a == y[0], "one point");
    EXPECT(st_clock_fit(x, y, NULL, 0, &m, NULL) != 0, "no points");
}

/* Synthetic ping-pongs: client clock c, reference clock r = true model m(c). */
static size_t make_pp(st_clock_pp_t *pp, size_t bursts, size_t per, const st_clock_lm_t *m, int64_t c0,
                      int64_t spacing, double slow)
{
    size_t n = 0;
    for (size_t b = 0; b < bursts; b++) {
        int64_t c = c0 + (int64_t)b * spacing;
        for (size_t i = 0; i < per; i++) {
            double d1 = 300 + 400 * urand(), d2 = 300 + 400 * urand();
            if (urand() < slow) /* preempted: one leg takes 50-500 µs */
                d2 += 50000 + 450000 * urand();
            int64_t s_last = c, at = c + (int64_t)d1, s_now = at + (int64_t)d2;
            pp[n++] = (st_clock_pp_t){ s_last, st_clock_lm_apply(m, at), s_now };
            c = s_now + 100;
        }
    }
    return n;
}

static void test_band(void)
{
    static st_clock_pp_t pp[12 * 16];
    const int64_t c0 = 5000000000000ll;
    st_clock_lm_t truth = { c0 + 30000000, -123456.0, 150e-6 }, m;
    size_t n = make_pp(pp, 12, 16, &truth, c0, 2700000, 0.3);
    int64_t t0 = pp[n - 1].s_now;
    st_clock_fit_band(pp, n, t0, 1, &m);
    double err0 = (double)(st_clock_lm_apply(&m, t0) - st_clock_lm_apply(&truth, t0));
    EXPECT(fabs(err0) < 150, "band fit offset error %.0f ns", err0);
    EXPECT(fabs(m.b - truth.b) < 3e-6, "band fit slope error %.2f ppm", (m.b - truth.b) * 1e6);
    /* the paper's per-burst SKaMPI estimate, with and without the drift correction */
    double lo, hi, tr = (double)(st_clock_lm_apply(&truth, pp[15].s_now) - pp[15].s_now);
    double off = st_clock_burst_offset(pp, 16, truth.b, &lo, &hi);
    EXPECT(lo <= tr + 1 && tr - 1 <= hi && fabs(off - tr) <= 0.5 * (hi - lo) + 1, "burst bounds miss the truth");
    /* one burst: offset only */
    st_clock_fit_band(pp, 16, pp[15].s_now, 0, &m);
    EXPECT(m.b == 0 && fabs(m.a - tr) < 2000, "slope-free band fit: %.0f vs %.0f", m.a, tr);
}

static st_clock_epoch_t ep_at(int kind, int64_t L, double a, double b)
{
    st_clock_epoch_t e;
    memset(&e, 0, sizeof e);
    e.kind = (uint16_t)kind;
    e.measured = 1;
    e.local = L;
    e.map = (st_clock_lm_t){ L, a, b };
    e.global = st_clock_lm_apply(&e.map, L);
    return e;
}

static void test_anchor_interp(void)
{
    const int64_t s = 1000000000ll;
    st_clock_epoch_t ep[5];
    memset(ep, 0, sizeof ep);
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 5000, 1e-5);
    /* fresh model at 110 s: offset 5200, so the drift over the 10 s was 200 ns / 10 s = 2e-8 */
    st_clock_lm_t fresh = { 110 * s, 5200, 7e-5 };
    st_clock_lm_t a = st_clock_anchor(&fresh, 110 * s, ep, 2, 2e8);
    EXPECT(a.t0 == 110 * s && fabs(a.a - 5200) < 1 && fabs(a.b - 2e-8) < 1e-12, "two-point slope: %g", a.b);
    a = st_clock_anchor(&fresh, 100 * s + 1000, ep, 2, 2e8);
    EXPECT(fabs(a.b - 7e-5) < 1e-12, "short baseline must keep the fresh slope");
    ep[2] = ep_at(ST_EPOCH_RESYNC, 105 * s, 0, 0);
    ep[2].measured = 0;
    a = st_clock_anchor(&fresh, 110 * s, ep, 3, 2e8);
    EXPECT(fabs(a.b - 2e-8) < 1e-12, "unmeasured sync point used for the slope");
    ep[2] = ep_at(ST_EPOCH_RESYNC, 110 * s, 5200, 2e-5);
    ep[3] = ep_at(ST_EPOCH_FINAL, 120 * s, 5000, 0);
    /* between points: linear; before the first: the line to the farthest point within 10 s (+200 ns in
       10 s, not the first map's 1e-5); after the last: its map */
    EXPECT(st_clock_interp(ep, 4, 105 * s) == 105 * s + 5100, "middle of segment 1: %lld",
          (long long)(st_clock_interp(ep, 4, 105 * s) - 105 * s));
    EXPECT(st_clock_interp(ep, 4, 115 * s) == 115 * s + 5100, "middle of segment 2");
    EXPECT(st_clock_interp(ep, 4, 90 * s) == 90 * s + 4800, "before the first point: %lld",
          (long long)(st_clock_interp(ep, 4, 90 * s) - 90 * s));
    EXPECT(st_clock_interp(ep, 4, 130 * s) == 130 * s + 5000, "after the last point");
    /* leave-one-out: 110 s predicted from 100 s and 120 s (+5000 both) misses +5200 by 200 */
    EXPECT(fabs(st_clock_interp_loo(ep, 4) - 200) < 1, "loo: %g", st_clock_interp_loo(ep, 4));
    ep[2].jump_ns = -300;
    ep[3].jump_ns = 120;
    EXPECT(st_clock_max_jump(ep, 4) == 300, "max jump");
}

/* The initial point doubted by the first two resyncs (0.25 and 0.5 s later) is moved halfway to their line. */
static void test_first_point(void)
{
    const int64_t s = 1000000000ll, q = s / 4;
    st_clock_epoch_t ep[5];
    memset(ep, 0, sizeof ep);
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 5000 + 1400, 0); /* 1.4 us off the resyncs' line */
    ep[2] = ep_at(ST_EPOCH_RESYNC, 100 * s + q, 5000, 0);
    ep[3] = ep_at(ST_EPOCH_RESYNC, 100 * s + 2 * q, 5000, 0);
    ep[4] = ep_at(ST_EPOCH_FINAL, 110 * s, 5000, 0);
    EXPECT(st_clock_interp(ep, 5, 100 * s) == 100 * s + 5700, "doubted first point: %lld",
          (long long)(st_clock_interp(ep, 5, 100 * s) - 100 * s));
    /* before it: the same correction, and the drift of the line to the point 10 s on (-1400 ns in 10 s) */
    EXPECT(st_clock_interp(ep, 5, 99 * s) == 99 * s + 5700 + 140, "before the first point: %lld",
          (long long)(st_clock_interp(ep, 5, 99 * s) - 99 * s));
    EXPECT(st_clock_interp(ep, 5, 100 * s + q) == 100 * s + q + 5000, "second point unchanged");
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 5000 + 300, 0); /* within the back-extension's own error: kept */
    EXPECT(st_clock_interp(ep, 5, 100 * s) == 100 * s + 5300, "first point kept: %lld",
          (long long)(st_clock_interp(ep, 5, 100 * s) - 100 * s));
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 5000 + 1400, 0);
    ep[2].local = 102 * s; /* the next points too far away to judge it */
    ep[3].local = 104 * s;
    ep[2].global = ep[2].local + 5000;
    ep[3].global = ep[3].local + 5000;
    EXPECT(st_clock_interp(ep, 5, 100 * s) == 100 * s + 6400, "far points: first point kept");
}

static void test_remap(void)
{
    const int64_t s = 1000000000ll;
    st_clock_epoch_t ep[4];
    memset(ep, 0, sizeof ep);
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 2 * s, 0); /* global is 2 s ahead of local */
    ep[2] = ep_at(ST_EPOCH_RESYNC, 110 * s, 2 * s + 1000, 1e-4);
    ep[3] = ep_at(ST_EPOCH_FINAL, 120 * s, 2 * s + 2000, 1e-4);
    ep[2].global = 112 * s + 1000; /* the sync points: offsets 0 / 1000 / 2000 ns on top of 2 s */
    ep[3].global = 122 * s + 2000;
    st_event_t ev[6];
    memset(ev, 0, sizeof ev);
    int64_t L[6] = { 99 * s, 100 * s + 10, 105 * s, 111 * s, 115 * s, 121 * s };
    uint32_t epoch[6] = { 1, 2, 2, 3, 3, 4 };
    for (int i = 0; i < 6; i++) {
        const st_clock_lm_t *m = epoch[i] == 1 ? NULL : &ep[epoch[i] - 1].map;
        ev[i].time = (uint64_t)(m ? st_clock_lm_apply(m, L[i]) : L[i]);
        ST_EVENT_EPOCH(&ev[i]) = epoch[i];
    }
    st_event_t iv[6];
    memcpy(iv, ev, sizeof ev);
    st_clock_remap(ep, 4, ev, 6, 0);
    /* before the first point: back along the line to the farthest point within 10 s (+1000 ns in 10 s) */
    EXPECT(ev[0].time == (uint64_t)(101 * s - 100), "pre-init event not on the line back from the first points: %lld",
          (long long)(ev[0].time - 101 * s));
    EXPECT(ev[2].time == (uint64_t)(107 * s), "event of epoch 2 changed without interpolation");
    for (int i = 1; i < 6; i++)
        EXPECT(ev[i].time >= ev[i - 1].time, "time decreases at %d", i);
    st_clock_remap(ep, 4, iv, 6, 1);
    EXPECT(iv[2].time == (uint64_t)(107 * s + 500), "interpolated at 105 s: %lld", (long long)(iv[2].time - 107 * s));
    EXPECT(iv[4].time == (uint64_t)(117 * s + 1500), "interpolated at 115 s: %lld", (long long)(iv[4].time - 117 * s));
    /* epoch not recorded (0): inferred per location from the time (exact when maps jump forward) */
    st_event_t un[6];
    memcpy(un, ev, sizeof ev);
    for (int i = 0; i < 6; i++) {
        const st_clock_lm_t *m = epoch[i] == 1 ? NULL : &ep[epoch[i] - 1].map;
        un[i].time = (uint64_t)(m ? st_clock_lm_apply(m, L[i]) : L[i]);
        ST_EVENT_EPOCH(&un[i]) = 0;
    }
    st_clock_remap(ep, 4, un, 6, 1);
    for (int i = 0; i < 6; i++)
        EXPECT(un[i].time == iv[i].time, "inferred epoch differs at %d: %lld vs %lld", i, (long long)un[i].time,
              (long long)iv[i].time);
    EXPECT(iv[0].time == ev[0].time, "pre-init event interpolated elsewhere: %lld", (long long)(iv[0].time - 101 * s));
    /* the initial sync's drift 80 ppm off (its short fit under load): 1.5 s before it, the line to the
       next points is kept, not that drift (120 us off) */
    st_clock_epoch_t bad[4];
    memcpy(bad, ep, sizeof ep);
    bad[1].map.b = 8e-5;
    for (int interp = 0; interp < 2; interp++) {
        st_event_t pre = { .time = (uint64_t)(98 * s + s / 2) };
        ST_EVENT_EPOCH(&pre) = 1;
        st_clock_remap(bad, 4, &pre, 1, interp);
        EXPECT(pre.time == (uint64_t)(100 * s + s / 2 - 150), "pre-init event 1.5 s back with a bad initial drift "
              "(interpolate %d): %lld ns off the line", interp, (long long)(pre.time - (100 * s + s / 2 - 150)));
    }
    /* no sync at all: nothing changes */
    st_event_t one = ev[3];
    EXPECT(st_clock_remap(ep, 1, &one, 1, 1) == 0 && one.time == ev[3].time, "remap without epochs");
}

/*
 * The clock that is the global one (rank 0's): every map the identity. The re-mapping then only keeps each
 * location's order, and gives what the full arithmetic gives, to the bit: times that go back are raised
 * (and counted in the largest change), an event without a recorded epoch changes nothing, and an event
 * farther than 2^53 ns from its epoch's t0 takes the full path, whose double rounds it.
 */
static void test_remap_identity(void)
{
    const int64_t s = 1000000000ll;
    st_clock_epoch_t ep[4];
    memset(ep, 0, sizeof ep);
    ep[1] = ep_at(ST_EPOCH_INIT, 100 * s, 0, 0);
    ep[2] = ep_at(ST_EPOCH_RESYNC, 110 * s, 0, 0);
    ep[3] = ep_at(ST_EPOCH_FINAL, 120 * s, 0, 0);
    enum { N = 9 };
    const uint64_t far = (UINT64_C(1) << 60) + 1; /* beyond 2^53 from every t0: rounded by the full path */
    const uint64_t t[N] = { 99 * s, 100 * s + 7, 100 * s + 5, 105 * s, 111 * s, 111 * s, 108 * s, 121 * s, far };
    const uint32_t epoch[N] = { 1, 2, 2, 2, 3, 3, 3, 4, 4 };
    uint64_t want[N], last = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = t[i];
        if (i == N - 1) /* the inverse model's difference in a double */
            x = (uint64_t)(ep[3].map.t0 + (int64_t)llround((double)((int64_t)x - ep[3].map.t0)));
        want[i] = last = x > last ? x : last;
    }
    EXPECT(want[N - 1] != far, "the far event is one the full path rounds");
    for (int interp = 0; interp < 2; interp++) {
        st_event_t ev[N];
        memset(ev, 0, sizeof ev);
        for (int i = 0; i < N; i++) {
            ev[i].time = t[i];
            ST_EVENT_EPOCH(&ev[i]) = epoch[i];
        }
        double change = st_clock_remap(ep, 4, ev, N, interp);
        for (int i = 0; i < N; i++)
            EXPECT(ev[i].time == want[i], "identity maps (interpolate %d), event %d: %llu, want %llu", interp, i,
                   (unsigned long long)ev[i].time, (unsigned long long)want[i]);
        EXPECT(change == (double)far - (double)want[N - 1] || change == (double)(3 * s),
               "largest change (interpolate %d): %.0f", interp, change);
    }
    /* an event without its epoch: the rest takes the full path, with the same result */
    st_event_t un[3] = { { .time = (uint64_t)(111 * s) }, { .time = (uint64_t)(110 * s) }, { .time = (uint64_t)(112 * s) } };
    ST_EVENT_EPOCH(&un[0]) = 3;
    st_clock_remap(ep, 4, un, 3, 1);
    EXPECT(un[0].time == (uint64_t)(111 * s) && un[1].time == (uint64_t)(111 * s) && un[2].time == (uint64_t)(112 * s),
           "identity maps, epochs not recorded: %llu %llu %llu", (unsigned long long)un[0].time,
           (unsigned long long)un[1].time, (unsigned long long)un[2].time);
    /* one map with an offset: no identity (interpolated between the sync points, the event moves back by it) */
    ep[2].map.a = 1000;
    st_event_t one = { .time = (uint64_t)(111 * s) };
    ST_EVENT_EPOCH(&one) = 3;
    st_clock_remap(ep, 4, &one, 1, 1);
    EXPECT(one.time == (uint64_t)(111 * s - 1000), "a map with an offset taken for the identity: %llu",
           (unsigned long long)one.time);
}

static void test_epoch_text(void)
{
    st_clock_epoch_t e = ep_at(ST_EPOCH_RESYNC, 3060398177817ll, -12345.0, -6.6039123456789e-05), r;
    e.global = e.local - 12345;
    e.measured = 0;
    e.jump_ns = -321;
    e.rtt_min_ns = 699;
    e.cost_ns = 84716000;
    e.err_ns = 1234;
    char buf[192];
    st_clock_epoch_format(&e, buf, sizeof buf);
    EXPECT(st_clock_epoch_parse(buf, &r) == 0, "cannot parse '%s'", buf);
    EXPECT(r.kind == e.kind && r.measured == 0 && r.local == e.local && r.global == e.global && r.map.b == e.map.b &&
              r.jump_ns == -321 && r.rtt_min_ns == 699 && r.cost_ns == 84716000 && r.err_ns == 1234,
          "round trip of '%s'", buf);
    EXPECT(st_clock_lm_apply(&r.map, e.local + 1000000000) == st_clock_lm_apply(&e.map, e.local + 1000000000),
          "map from text differs");
    EXPECT(st_clock_epoch_parse("resync local=5 global=7 b=0 jump_ns=0 rtt_ns=0 cost_us=0", &r) == 0 && r.err_ns == -1,
          "an epoch text without err_ns (older archive) must parse with the bound unknown");
    EXPECT(st_clock_epoch_parse("init local=x", &r) != 0 && st_clock_epoch_parse("bogus local=1 global=2 b=0 "
                                                                                 "jump_ns=0 rtt_ns=0 cost_us=0", &r) != 0,
          "malformed epoch text accepted");
}

static void test_median(void)
{
    double v[7] = { 5, -1, 9, 3, 3, 100, -50 };
    size_t i = st_clock_median_index(v, 7);
    EXPECT(v[i] == 3, "median %g", v[i]);
    double w[4] = { 4, 1, 3, 2 };
    EXPECT(w[st_clock_median_index(w, 4)] == 2, "lower median");
}

/* st_clock_round is llround, halves away from zero, wherever the re-mapping may ask: the values next to
 * every half, the edges of its fast path, and random values over all magnitudes. */
static void test_round(void)
{
    static const double edge[] = { 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                                   4503599627370495.5, -4503599627370495.5, 4503599627370496.0, 9007199254740993.0,
                                   0x1p62, -0x1p62, 0x1p62 - 1024, -0x1p62 + 1024, 1e18, -1e18, 3e-300 };
    int bad = 0;
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        for (int d = -2; d <= 2; d++) {
            double x = edge[i];
            for (int k = 0; k < d; k++)
                x = nextafter(x, INFINITY);
            for (int k = 0; k > d; k--)
                x = nextafter(x, -INFINITY);
            if (st_clock_round(x) != (int64_t)llround(x) && bad++ < 5)
                EXPECT(0, "st_clock_round(%.17g) = %lld, llround %lld", x, (long long)st_clock_round(x), llround(x));
        }
    for (int i = 0; i < 200000; i++) {
        double x = (urand() - 0.5) * ldexp(1.0, (int)(urand() * 64)); /* up to 2^63 */
        if (i % 4 == 0)
            x = floor(x) + 0.5; /* a half */
        if (st_clock_round(x) != (int64_t)llround(x) && bad++ < 5)
            EXPECT(0, "st_clock_round(%.17g) = %lld, llround %lld", x, (long long)st_clock_round(x), llround(x));
    }
    EXPECT(bad == 0, "st_clock_round differs from llround %d times", bad);
}

int main(void)
{
    test_round();
    test_models();
    test_flatten();
    test_fit();
    test_band();
    test_anchor_interp();
    test_first_point();
    test_remap();
    test_remap_identity();
    test_epoch_text();
    test_median();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
