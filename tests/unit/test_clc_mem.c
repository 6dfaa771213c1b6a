/*
 * test_clc_mem.c — the correction's allocator over lent memory (src/util/mem.c): blocks
 * from the region or from malloc by size, reuse of freed blocks, growth in place, moves
 * that keep the contents, fallback when the region is full, and a randomized run that
 * checks every live block's contents after each step; a u64map whose arrays come from it
 * (src/util/u64map.c, `lent`).
 */
/* link: src/util/mem.c src/util/u64map.c */
#include "test_clc_lib.h"
#include "../../src/util/u64map.h"

#define REGION (1u << 20)
static _Alignas(64) uint8_t region[REGION];

static int inside(const void *p) { return (const uint8_t *)p >= region && (const uint8_t *)p < region + REGION; }

static void lend(void)
{
    void *base = region;
    size_t len = REGION;
    memset(region, 0xa5, sizeof region); /* lent memory is not zero */
    st_mem_lend(&base, &len, 1);
}

static void test_plain(void)
{
    void *p = st_mem_malloc(1 << 16), *q = st_mem_calloc(100, 100);
    REQUIRE(p && q && !inside(p) && !inside(q));
    p = st_mem_realloc(p, 1 << 17);
    REQUIRE(p && !inside(p));
    st_mem_free(p), st_mem_free(q), st_mem_free(NULL);
}

static void test_lent(void)
{
    lend();
    void *small = st_mem_malloc(100);
    REQUIRE(small && !inside(small)); /* small blocks: malloc */
    uint8_t *a = st_mem_calloc(1, 64 << 10);
    REQUIRE(a && inside(a));
    for (size_t i = 0; i < 64 << 10; i++)
        REQUIRE(a[i] == 0);
    uint8_t *b = st_mem_malloc(8 << 10);
    REQUIRE(b && inside(b) && b > a);
    st_mem_free(a);
    uint8_t *c = st_mem_malloc(32 << 10); /* first fit: a's place */
    REQUIRE(c == a);
    memset(b, 7, 8 << 10);
    uint8_t *b2 = st_mem_realloc(b, 200 << 10); /* nothing after b: grows in place */
    REQUIRE(b2 == b && b2[0] == 7 && b2[(8 << 10) - 1] == 7);
    uint8_t *d = st_mem_malloc(16 << 10); /* first fit: the rest of a's place */
    REQUIRE(d == c + (32 << 10) + 16);
    st_mem_free(d);
    uint8_t *c2 = st_mem_realloc(c, 48 << 10); /* grows into its freed neighbour */
    REQUIRE(c2 == c);
    d = st_mem_malloc(16 << 10);
    REQUIRE(d && inside(d) && d > b2);
    memset(c2, 3, 48 << 10);
    uint8_t *c3 = st_mem_realloc(c2, 300 << 10); /* blocked by b: moves, keeps the contents */
    REQUIRE(c3 != c2 && inside(c3) && c3[0] == 3 && c3[(48 << 10) - 1] == 3);
    uint8_t *v = st_mem_malloc(1000); /* a small vector outgrowing the threshold moves in */
    memset(v, 9, 1000);
    v = st_mem_realloc(v, 100 << 10);
    REQUIRE(v && inside(v) && v[0] == 9 && v[999] == 9);
    uint8_t *big = st_mem_malloc(2 << 20); /* larger than what is left: malloc */
    REQUIRE(big && !inside(big));
    memset(big, 1, 2 << 20);
    size_t peak = st_mem_return();
    REQUIRE(peak >= (200 + 16 + 300 + 100) << 10 && peak <= REGION);
    uint8_t *after = st_mem_malloc(64 << 10);
    REQUIRE(after && !inside(after)); /* the loan is over */
    st_mem_free(after), st_mem_free(big), st_mem_free(v), st_mem_free(c3), st_mem_free(d), st_mem_free(b2);
    st_mem_free(small);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static void test_random(void)
{
    enum { N = 64 };
    uint8_t *p[N] = { 0 };
    size_t len[N] = { 0 };
    lend();
    for (int step = 0; step < 20000; step++) {
        int i = (int)(rnd() % N);
        size_t n = (size_t)(rnd() % 4 ? rnd() % 6000 : rnd() % 200000) + 1;
        switch (rnd() % 3) {
        case 0:
            st_mem_free(p[i]);
            p[i] = st_mem_malloc(n), len[i] = n;
            break;
        case 1:
            p[i] = st_mem_realloc(p[i], n), len[i] = n;
            break;
        default:
            st_mem_free(p[i]);
            p[i] = NULL, len[i] = 0;
        }
        REQUIRE(!len[i] || p[i]);
        if (p[i])
            memset(p[i], i, len[i]);
        if (step % 97 == 0)
            for (int j = 0; j < N; j++)
                for (size_t k = 0; k < len[j]; k += 61)
                    REQUIRE(p[j][k] == (uint8_t)j);
    }
    REQUIRE(st_mem_return() <= REGION);
    for (int j = 0; j < N; j++) {
        for (size_t k = 0; k < len[j]; k++)
            REQUIRE(p[j][k] == (uint8_t)j);
        st_mem_free(p[j]);
    }
}

/* A lent map: its arrays in the region once they are large, every key found with its value, none other. */
static void test_map(void)
{
    enum { N = 5000 };
    static uint64_t key[N];
    lend();
    st_u64map_t m = { .lent = 1 }, plain = { 0 };
    for (int i = 0; i < N; i++) {
        key[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : (rnd() << 32) ^ rnd();
        REQUIRE(st_u64map_put(&m, key[i], (uint64_t)i) == 0 && st_u64map_put(&plain, key[i], (uint64_t)i) == 0);
    }
    REQUIRE(m.n == plain.n && m.cap == plain.cap && m.cap >= 2 * (size_t)N);
    REQUIRE(inside(m.keys) && inside(m.vals) && inside(m.used) && !inside(plain.keys) && !inside(plain.vals));
    for (int i = 0; i < N; i++) {
        uint64_t v = 0, w = 0;
        REQUIRE(st_u64map_get(&m, key[i], &v) && st_u64map_get(&plain, key[i], &w) && v == w);
    }
    uint64_t v;
    REQUIRE(!st_u64map_get(&m, 12345, &v) || v < N); /* (a random key may be 12345) */
    st_u64map_free(&m), st_u64map_free(&plain);
    REQUIRE(m.cap == 0 && m.n == 0 && m.keys == NULL && m.lent == 1 && plain.lent == 0);
    REQUIRE(st_mem_return() <= REGION);
}

int main(void)
{
    test_plain();
    test_lent();
    test_random();
    test_map();
    printf("test_clc_mem: ok\n");
    return 0;
}
