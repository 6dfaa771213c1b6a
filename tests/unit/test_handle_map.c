/*
 * test_handle_map.c — the lock-free, growing request/message map: put/get/claim, shared handles,
 * whole 64-bit keys (pointer-like handles as Open MPI's, keys that differ only above bit 32, 0 and
 * all-ones, ST_HMAP_KEY of ints and pointers), growth far past the first segment (200,000
 * outstanding entries, small ints and pointer-like keys), segments cleared and reused over many
 * put/claim cycles (the count stays exact), and from 4 threads at once: distinct keys with growth
 * races, and one shared pointer-like key whose entries must each be claimed exactly once while every
 * thread also puts and claims its own key equal to it in the low 32 bits, and two shared keys whose
 * queues empty and close all the time under 4 threads; and one key with 200,000
 * entries (a loop of Isends before one Waitall under the MPIs' shared handle), put and claimed oldest
 * first within a time bound that the chained duplicates of the old map (O(n^2)) far exceed.
 */
/* compiler: mpicc */
/* families: mpich openmpi */
/* link: src/mpi/handle_map.c */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/mpi/handle_map.h"
#include "check.h"

static st_hmap_t map;
#define NT 4
#define PER_THREAD 50000
#define SHARED_KEY 0x00007f1234567890ull /* like an Open MPI request: a pointer */
#define SHARED_PER 20000
/* Thread t's own key: the shared key's low 32 bits, different above them. */
#define OWN_KEY(t) (SHARED_KEY + ((uint64_t)(t) + 1) * (1ull << 32))
#define OWN_ID     (1ull << 40) /* ids of the own-key entries: OWN_ID + t */
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
        if (i % 5 == 0) { /* an entry under this thread's own key, never confused with the shared one */
            st_req_info_t own = { .id = OWN_ID + (uint64_t)t }, got;
            REQUIRE(st_hmap_put(&map, OWN_KEY(t), &own) == 0);
            REQUIRE(st_hmap_claim(&map, OWN_KEY(t), &got) == 1 && got.id == OWN_ID + (uint64_t)t);
        }
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

/*
 * Queues that empty and close all the time: every thread puts under one of two shared keys, then claims
 * from one of them, so each key's queue is mostly a few entries long and its last entry is taken (the
 * queue closed, its slot removed, its node freed and reused) while other threads append to it or take
 * from it. Every entry must come back once, under its own key. (A close that left head and tail on the
 * freed node let a late reader close another queue through it: "taken under the wrong key".)
 */
#define CHURN_PER 300000
#define CHURN_KEY(r) ((r) & 1 ? SHARED_KEY : SHARED_KEY + 16)
static _Atomic uint8_t churn_seen[NT * CHURN_PER];
static pthread_barrier_t churn_go;

static void *churner(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint32_t r = 7919u * (uint32_t)t + 1;
    pthread_barrier_wait(&churn_go);
    for (int i = 0; i < CHURN_PER; i++) {
        r = r * 1103515245u + 12345u;
        st_req_info_t v = { .id = (uint64_t)t * CHURN_PER + (uint64_t)i, .seq = CHURN_KEY(r >> 16) }, out;
        REQUIRE(st_hmap_put(&map, v.seq, &v) == 0);
        uint64_t key = CHURN_KEY(r >> 20);
        if (st_hmap_claim(&map, key, &out)) {
            REQUIRE(out.seq == key, "taken under the wrong key");
            REQUIRE(out.id < NT * CHURN_PER && atomic_fetch_add(&churn_seen[out.id], 1) == 0, "taken twice");
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

/* Whole 64-bit keys: the map's answer for keys equal in their low 32 bits, pointer-like keys, extremes. */
static void wide_keys(void)
{
    const uint64_t p = 0x00007f1234567890ull, q = p + (1ull << 32), r = p | (1ull << 63);
    st_req_info_t a = { .id = 1 }, b = { .id = 2 }, c = { .id = 3 }, out;
    REQUIRE(st_hmap_put(&map, p, &a) == 0);
    REQUIRE(st_hmap_get(&map, q) == NULL && st_hmap_get(&map, r) == NULL && st_hmap_get(&map, (uint32_t)p) == NULL);
    REQUIRE(st_hmap_claim(&map, q, &out) == 0 && st_hmap_claim(&map, (uint32_t)p, &out) == 0);
    REQUIRE(st_hmap_put(&map, q, &b) == 0 && st_hmap_put(&map, r, &c) == 0);
    REQUIRE(st_hmap_get(&map, p)->id == 1 && st_hmap_get(&map, q)->id == 2 && st_hmap_get(&map, r)->id == 3);
    REQUIRE(st_hmap_count(&map) == 3);
    REQUIRE(st_hmap_claim(&map, q, &out) == 1 && out.id == 2);
    REQUIRE(st_hmap_claim(&map, q, &out) == 0);
    REQUIRE(st_hmap_get(&map, p)->id == 1);
    REQUIRE(st_hmap_claim(&map, r, &out) == 1 && out.id == 3);
    REQUIRE(st_hmap_claim(&map, p, &out) == 1 && out.id == 1);
    REQUIRE(st_hmap_count(&map) == 0);

    /* 0 and all-ones are keys like any other; duplicates of a wide key are claimed one by one. */
    REQUIRE(st_hmap_put(&map, 0, &a) == 0 && st_hmap_put(&map, UINT64_MAX, &b) == 0);
    REQUIRE(st_hmap_put(&map, UINT64_MAX, &c) == 0 && st_hmap_put(&map, 0xFFFFFFFFull, &c) == 0);
    REQUIRE(st_hmap_get(&map, 0)->id == 1 && st_hmap_get(&map, 0xFFFFFFFFull)->id == 3);
    uint64_t sum = 0;
    for (int i = 0; i < 2; i++) {
        REQUIRE(st_hmap_claim(&map, UINT64_MAX, &out) == 1);
        sum += out.id;
    }
    REQUIRE(sum == 5 && st_hmap_claim(&map, UINT64_MAX, &out) == 0);
    REQUIRE(st_hmap_claim(&map, 0xFFFFFFFFull, &out) == 1 && out.id == 3);
    REQUIRE(st_hmap_claim(&map, 0, &out) == 1 && out.id == 1);
    REQUIRE(st_hmap_count(&map) == 0);

    /* 4096 keys that all share their low 32 bits (one per value of bits 32..43), then 100,000 pointer-like
     * keys 48 bytes apart: all distinct entries, each found with its own value. */
    for (uint64_t k = 0; k < 4096; k++) {
        st_req_info_t v = { .id = k };
        REQUIRE(st_hmap_put(&map, 0x5a5a5a5aull | (k << 32), &v) == 0);
    }
    REQUIRE(st_hmap_count(&map) == 4096);
    for (uint64_t k = 0; k < 4096; k++)
        REQUIRE(st_hmap_get(&map, 0x5a5a5a5aull | (k << 32))->id == k);
    for (uint64_t k = 0; k < 4096; k++)
        REQUIRE(st_hmap_claim(&map, 0x5a5a5a5aull | (k << 32), &out) == 1 && out.id == k);
    const uint64_t heap = 0x000055d0c0de0000ull, n = 100000;
    for (uint64_t k = 0; k < n; k++) {
        st_req_info_t v = { .id = k };
        REQUIRE(st_hmap_put(&map, heap + 48 * k, &v) == 0);
    }
    REQUIRE(st_hmap_count(&map) == n);
    for (uint64_t k = 0; k < n; k++)
        REQUIRE(st_hmap_claim(&map, heap + 48 * k, &out) == 1 && out.id == k);
    REQUIRE(st_hmap_count(&map) == 0);

    /* The one conversion of a handle: ints sign-extended (one-to-one), pointers as their address. */
    int neg = -1, mpich_like = (int)0xac000001u;
    REQUIRE(ST_HMAP_KEY(neg) == UINT64_MAX && ST_HMAP_KEY(7) == 7);
    REQUIRE(ST_HMAP_KEY(mpich_like) != ST_HMAP_KEY((int)0x2c000001) && (uint32_t)ST_HMAP_KEY(mpich_like) == 0xac000001u);
    REQUIRE(ST_HMAP_KEY((void *)(uintptr_t)p) == p);
    MPI_Request null_req = MPI_REQUEST_NULL;
    REQUIRE(ST_HMAP_KEY(null_req) == ST_HMAP_KEY(MPI_REQUEST_NULL));
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/*
 * Both MPIs hand every send that completed at its post one shared handle: a loop of DUPS Isends before a
 * Waitall puts DUPS entries under one key, and the Waitall claims them. Each put and claim must take
 * constant time (here about 0.1 s in all under the sanitizers; the map of sessions up to 20 walked one
 * probe chain of all the key's entries per call, about DUPS^2 / 2 probes: minutes), in post order.
 */
#define DUPS      200000
#define DUPS_SECS 5.0
static void shared_fifo(void)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < DUPS; i++) {
        st_req_info_t v = { .id = (uint64_t)i };
        REQUIRE(st_hmap_put(&map, SHARED_KEY, &v) == 0);
        if (i % 1024 == 0)
            REQUIRE(seconds_since(&t0) < DUPS_SECS, "%d entries of one key put in more than %.0f s", i, DUPS_SECS);
    }
    REQUIRE_EQ(st_hmap_count(&map), DUPS);
    REQUIRE(st_hmap_get(&map, SHARED_KEY) && st_hmap_get(&map, SHARED_KEY)->id == 0);
    for (int i = 0; i < DUPS; i++) {
        st_req_info_t out;
        REQUIRE(st_hmap_claim(&map, SHARED_KEY, &out) == 1);
        REQUIRE(out.id == (uint64_t)i, "claim %d took entry %llu: not the oldest", i, (unsigned long long)out.id);
        if (i % 1024 == 0)
            REQUIRE(seconds_since(&t0) < DUPS_SECS, "%d puts and %d claims of one key took more than %.0f s", DUPS, i,
                    DUPS_SECS);
    }
    REQUIRE(st_hmap_claim(&map, SHARED_KEY, &(st_req_info_t){ 0 }) == 0);
    REQUIRE_EQ(st_hmap_count(&map), 0);
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
    REQUIRE(x.id == 7 && y.id == 8); /* oldest first */
    REQUIRE(st_hmap_claim(&map, 42, &x) == 0);
    REQUIRE(st_hmap_get(&map, 42) == NULL);
    REQUIRE(st_hmap_count(&map) == 0);
    wide_keys();
    shared_fifo();

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

    REQUIRE(pthread_barrier_init(&churn_go, NULL, NT) == 0);
    run(churner);
    for (int k = 0; k < 2; k++) {
        st_req_info_t out;
        while (st_hmap_claim(&map, CHURN_KEY(k), &out)) {
            REQUIRE(out.seq == CHURN_KEY(k), "left under the wrong key");
            REQUIRE(atomic_fetch_add(&churn_seen[out.id], 1) == 0, "left twice");
        }
    }
    for (int i = 0; i < NT * CHURN_PER; i++)
        REQUIRE(churn_seen[i] == 1, "entry %d taken %d times", i, churn_seen[i]);
    REQUIRE(st_hmap_count(&map) == 0);
    printf("handle_map: ok\n");
    return 0;
}
