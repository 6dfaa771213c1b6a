/*
 * test_handle_map.c — the lock-free, growing request/message map: put/get/claim, shared handles,
 * growth far past the first segment (200,000 outstanding entries), segments cleared and reused over
 * many put/claim cycles (the count stays exact), and from 4 threads at once: distinct keys with
 * growth races, and one shared key whose entries must each be claimed exactly once.
 */
/* compiler: mpicc */
/* families: mpich openmpi */
/* link: src/mpi/handle_map.c */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/mpi/handle_map.h"
#include "check.h"

static st_hmap_t map;
#define NT 4
#define PER_THREAD 50000
#define SHARED_KEY 424242
#define SHARED_PER 20000
static _Atomic uint32_t seen[NT * SHARED_PER];

static void *grower(void *arg)
{
    int64_t base = ((int64_t)(intptr_t)arg + 1) * 10000000;
    for (int64_t k = 0; k < PER_THREAD; k++) {
        st_req_info_t ri = { .id = (uint64_t)(base + k) };
        REQUIRE(st_hmap_put(&map, base + k, &ri) == 0);
    }
    for (int64_t k = 0; k < PER_THREAD; k++) {
        st_req_info_t out;
        REQUIRE(st_hmap_claim(&map, base + k, &out) == 1 && out.id == (uint64_t)(base + k));
    }
    return NULL;
}

/* Every thread puts SHARED_PER entries under one key and claims as many: each entry exactly once. */
static void *sharer(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < SHARED_PER; i++) {
        st_req_info_t ri = { .id = (uint64_t)(t * SHARED_PER + i) };
        REQUIRE(st_hmap_put(&map, SHARED_KEY, &ri) == 0);
        if (i % 3 == 2) /* interleave claims with puts */
            for (int j = 0; j < 3; j++) {
                st_req_info_t out;
                REQUIRE(st_hmap_claim(&map, SHARED_KEY, &out) == 1);
                REQUIRE(out.id < NT * SHARED_PER);
                REQUIRE(atomic_fetch_add(&seen[out.id], 1) == 0);
            }
    }
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t t[NT];
    for (intptr_t i = 0; i < NT; i++)
        REQUIRE(pthread_create(&t[i], NULL, fn, (void *)i) == 0);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    st_hmap_init(&map);
    st_req_info_t a = { .id = 7 }, b = { .id = 8 };
    REQUIRE(st_hmap_get(&map, 42) == NULL);
    REQUIRE(st_hmap_put(&map, 42, &a) == 0);
    REQUIRE(st_hmap_get(&map, 42)->id == 7);
    REQUIRE(st_hmap_put(&map, 42, &b) == 0); /* a shared handle (MPICH lightweight request): two entries */
    st_req_info_t x, y;
    REQUIRE(st_hmap_claim(&map, 42, &x) == 1);
    REQUIRE(st_hmap_claim(&map, 42, &y) == 1);
    REQUIRE(x.id + y.id == 15 && x.id != y.id);
    REQUIRE(st_hmap_claim(&map, 42, &x) == 0);
    REQUIRE(st_hmap_get(&map, 42) == NULL);
    REQUIRE(st_hmap_count(&map) == 0);

    /* Growth: 200,000 outstanding entries (the old fixed map held 32,768). */
    const int64_t many = 200000;
    for (int64_t k = 0; k < many; k++) {
        st_req_info_t v = { .id = (uint64_t)k };
        REQUIRE(st_hmap_put(&map, 1000 + k, &v) == 0);
    }
    REQUIRE(st_hmap_count(&map) == (uint64_t)many);
    for (int64_t k = 0; k < many; k += 997)
        REQUIRE(st_hmap_get(&map, 1000 + k) && st_hmap_get(&map, 1000 + k)->id == (uint64_t)k);
    for (int64_t k = many - 1; k >= 0; k--) {
        st_req_info_t out;
        REQUIRE(st_hmap_claim(&map, 1000 + k, &out) == 1 && out.id == (uint64_t)k);
    }
    REQUIRE(st_hmap_count(&map) == 0);

    /* Many put/claim cycles: segments are cleared and reused, lookups of absent keys stay cheap. */
    for (int round = 0; round < 300; round++) {
        for (int64_t k = 0; k < 1000; k++)
            REQUIRE(st_hmap_put(&map, round * 1000 + k, &a) == 0);
        REQUIRE(st_hmap_claim(&map, -1, &x) == 0);
        for (int64_t k = 0; k < 1000; k++)
            REQUIRE(st_hmap_claim(&map, round * 1000 + k, &x) == 1);
    }
    REQUIRE(st_hmap_count(&map) == 0);

    run(grower);
    REQUIRE(st_hmap_count(&map) == 0);
    run(sharer);
    for (;;) { /* what the interleaved claims left */
        st_req_info_t out;
        if (!st_hmap_claim(&map, SHARED_KEY, &out))
            break;
        REQUIRE(atomic_fetch_add(&seen[out.id], 1) == 0);
    }
    for (int i = 0; i < NT * SHARED_PER; i++)
        REQUIRE(seen[i] == 1);
    REQUIRE(st_hmap_count(&map) == 0);
    printf("handle_map: ok\n");
    return 0;
}
