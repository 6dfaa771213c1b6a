/*
 * test_clc_math.c — the CLC formulas alone: forward base(), mu selection, parameter
 * checks, and the backward ramp (ideal, bent through one and two send limits, and a
 * randomized comparison with a brute-force evaluation of its definition).
 */
/* link: src/clc/clc.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/util/mem.c src/clc/params.c src/clc/stats.c src/config/config.c src/util/archive_dir.c src/util/log.c */
#include "test_clc_lib.h"

#include "../../src/config/config.h"

__extension__ typedef unsigned __int128 u128;

static void test_base(void)
{
    st_clc_params_t p = tb_params(); /* gamma 1, delta 1 */
    REQUIRE_EQ(st_clc_base(&p, 100, 90, 95), 105);   /* interval kept after a jump */
    REQUIRE_EQ(st_clc_base(&p, 100, 90, 80), 100);   /* behind C: C wins */
    REQUIRE_EQ(st_clc_base(&p, 100, 100, 150), 150); /* equal stamps stay equal (min(delta, 0)) */
    REQUIRE_EQ(st_clc_base(&p, 100, 99, 150), 151);
    REQUIRE_EQ(st_clc_base(&p, 90, 100, 100), 100);  /* decreasing input is made monotone */
    p.gamma = 0.5;
    REQUIRE_EQ(st_clc_base(&p, 200, 100, 300), 350); /* intervals shrink to gamma * d while ahead */
    REQUIRE_EQ(st_clc_base(&p, 1000, 100, 300), 1000);
    p.delta = 20;
    REQUIRE_EQ(st_clc_base(&p, 110, 100, 300), 310); /* min(delta, d) = 10 > gamma*d = 5 */
    p.gamma = 0.99;
    REQUIRE_EQ(st_clc_base(&p, 1100, 100, 5000), 5990);
}

static void test_mu_params(void)
{
    st_clc_params_t p = tb_params();
    char err[200];
    REQUIRE_EQ(st_clc_mu(&p, 0), 0);
    REQUIRE_EQ(st_clc_mu(&p, ST_REL_MU_INTER), 10);
    REQUIRE_EQ(st_clc_mu(&p, ST_REL_MU_INTER | ST_REL_MU_INTRA), 5);
    REQUIRE_EQ(st_clc_mu(&p, ST_REL_MU_PROC | ST_REL_MU_INTRA), 2);
    REQUIRE(st_clc_params_check(&p, err, sizeof err) == 0);
    p.gamma = 0;
    REQUIRE(st_clc_params_check(&p, err, sizeof err) == -1 && strstr(err, "gamma"));
    p.gamma = 1, p.amort = 1.5;
    REQUIRE(st_clc_params_check(&p, err, sizeof err) == -1 && strstr(err, "rate"));
    st_clc_params_default(&p);
    REQUIRE(st_clc_params_check(&p, err, sizeof err) == 0 && p.gamma == 0.99 && p.amort == 0.02);
}

static void test_from_config(void)
{
    char err[300];
    st_clc_params_t p;
    REQUIRE(st_config_load(err, sizeof err) == 0); /* defaults of variables.def */
    st_clc_params_from_config(&p, &st_config, 1);
    REQUIRE(p.gamma == 0.99 && p.amort == 0.02 && p.delta == 1 && p.mu_proc == 1);
    /* no latency bound known: mu 0, never an estimate (docs/clc.md, "mu") */
    REQUIRE(p.mu_intra == 0 && p.mu_inter == 0 && p.mu_source == ST_CLC_MU_SRC_NONE);
    st_clc_params_from_config(&p, &st_config, 25);
    REQUIRE(p.delta == 25 && p.mu_intra == 0 && p.mu_inter == 0);
    setenv("SYNCTRACE_CLC_MU", "150.7", 1);
    setenv("SYNCTRACE_CLC_DELTA", "2.5", 1);
    setenv("SYNCTRACE_CLC_GAMMA", "0.5", 1);
    REQUIRE(st_config_load(err, sizeof err) == 0);
    st_clc_params_from_config(&p, &st_config, 25);
    REQUIRE(p.delta == 3 && p.mu_intra == 150 && p.mu_inter == 150 && p.gamma == 0.5);
    REQUIRE(p.mu_source == ST_CLC_MU_SRC_USER);
    REQUIRE(st_clc_params_check(&p, err, sizeof err) == 0);
}

/* The source is stored by name (clc.mu_source) and read back by `synctrace clc`. */
static void test_mu_source(void)
{
    for (unsigned s = 0; s <= ST_CLC_MU_SRC_UNKNOWN; s++)
        REQUIRE_EQ(st_clc_mu_source_parse(st_clc_mu_source_name(s)), s);
    REQUIRE(!strcmp(st_clc_mu_source_name(ST_CLC_MU_SRC_NONE), "none"));
    REQUIRE(!strcmp(st_clc_mu_source_name(ST_CLC_MU_SRC_USER), "user"));
    REQUIRE_EQ(st_clc_mu_source_parse(NULL), ST_CLC_MU_SRC_UNKNOWN);
    REQUIRE_EQ(st_clc_mu_source_parse("measured"), ST_CLC_MU_SRC_UNKNOWN);
    REQUIRE(!strcmp(st_clc_mu_source_name(99), "unknown"));
}

static void test_ramp_fixed(void)
{
    const uint64_t M = UINT64_MAX;
    uint64_t sh[8];
    { /* ideal */
        uint64_t x[] = { 10, 50, 100 }, cap[] = { M, M, M };
        REQUIRE_EQ(st_clc_ramp(100, 10, 3, x, cap, sh), 0);
        REQUIRE(sh[0] == 1 && sh[1] == 5 && sh[2] == 10);
    }
    { /* one limit: (0,0) -> (40,1) -> (100,10) */
        uint64_t x[] = { 20, 40, 60, 80, 100 }, cap[] = { M, 1, M, M, M };
        REQUIRE_EQ(st_clc_ramp(100, 10, 5, x, cap, sh), 1);
        REQUIRE(sh[0] == 0 && sh[1] == 1 && sh[2] == 4 && sh[3] == 7 && sh[4] == 10);
    }
    { /* two limits */
        uint64_t x[] = { 20, 40, 60, 80 }, cap[] = { M, 1, M, 5 };
        REQUIRE_EQ(st_clc_ramp(100, 10, 4, x, cap, sh), 2);
        REQUIRE(sh[0] == 0 && sh[1] == 1 && sh[2] == 3 && sh[3] == 5);
    }
    { /* a limit above the ramp does not bind; a zero limit pins everything before it */
        uint64_t x[] = { 20, 40, 60, 80 }, cap[] = { 9, M, 0, M };
        REQUIRE_EQ(st_clc_ramp(100, 10, 4, x, cap, sh), 1);
        REQUIRE(sh[0] == 0 && sh[1] == 0 && sh[2] == 0 && sh[3] == 5);
    }
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* floor(h_j(x)) exactly; h_j = (0,0) -> (xj, cj) -> (W, dt). */
static uint64_t h_floor(uint64_t W, uint64_t dt, uint64_t xj, uint64_t cj, uint64_t x)
{
    if (x <= xj)
        return (uint64_t)((u128)x * cj / xj);
    return cj + (uint64_t)((u128)(dt - cj) * (x - xj) / (W - xj));
}

static void test_ramp_random(void)
{
    uint64_t seed = 88172645463325252ull, x[64], cap[64], sh[64];
    for (int round = 0; round < 20000; round++) {
        uint64_t W = 1 + rnd(&seed) % (round % 2 ? 1000 : 1000000000000ull);
        uint64_t dt = 1 + rnd(&seed) % (round % 3 ? W : 50);
        size_t n = 1 + rnd(&seed) % 40;
        for (size_t i = 0; i < n; i++)
            x[i] = 1 + rnd(&seed) % W;
        for (size_t i = 1; i < n; i++) /* insertion sort */
            for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
                uint64_t t = x[j];
                x[j] = x[j - 1], x[j - 1] = t;
            }
        for (size_t i = 0; i < n; i++)
            cap[i] = rnd(&seed) % 4 ? UINT64_MAX : rnd(&seed) % (dt + 2);
        st_clc_ramp(W, dt, n, x, cap, sh);
        for (size_t i = 0; i < n; i++) {
            uint64_t want = (uint64_t)((u128)dt * x[i] / W);
            for (size_t j = 0; j < n; j++)
                if (cap[j] < dt) {
                    uint64_t h = h_floor(W, dt, x[j], cap[j], x[i]);
                    want = h < want ? h : want;
                }
            if (sh[i] != want) {
                fprintf(stderr, "W=%llu dt=%llu n=%zu i=%zu\n", (unsigned long long)W, (unsigned long long)dt, n, i);
                for (size_t j = 0; j < n; j++)
                    fprintf(stderr, "  x=%llu cap=%llu sh=%llu\n", (unsigned long long)x[j], (unsigned long long)cap[j], (unsigned long long)sh[j]);
            }
            REQUIRE_EQ(sh[i], want);
            REQUIRE(sh[i] <= dt && sh[i] <= cap[i]);
            REQUIRE(i == 0 || sh[i] >= sh[i - 1]);
        }
    }
}

int main(void)
{
    test_base();
    test_mu_params();
    test_from_config();
    test_mu_source();
    test_ramp_fixed();
    test_ramp_random();
    printf("test_clc_math: ok\n");
    return 0;
}
