/*
 * test_handle_map.c — the lock-free request/message map: put/get/del, handle reuse,
 * tombstone reuse, a full map, and concurrent use of distinct keys from 4 threads.
 */
/* compiler: mpicc */
/* link: src/mpi/handle_map.c */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../src/mpi/handle_map.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); exit(1); } } while (0)

static st_hmap_t map;

static void *worker(void *arg)
{
    int64_t base = (int64_t)(intptr_t)arg * 1000000;
    for (int round = 0; round < 200; round++) {
        for (int64_t k = 0; k < 100; k++) {
            st_req_info_t ri = { .id = (uint64_t)(base + k), .kind = ST_REQ_SEND };
            CHECK(st_hmap_put(&map, base + k, &ri) == 0);
        }
        for (int64_t k = 0; k < 100; k++) {
            st_req_info_t *ri = st_hmap_get(&map, base + k);
            CHECK(ri && ri->id == (uint64_t)(base + k));
            st_hmap_del(&map, base + k);
            CHECK(st_hmap_get(&map, base + k) == NULL);
        }
    }
    return NULL;
}

int main(void)
{
    st_hmap_init(&map);
    st_req_info_t a = { .id = 7 }, b = { .id = 8 };
    CHECK(st_hmap_get(&map, 42) == NULL);
    CHECK(st_hmap_put(&map, 42, &a) == 0);
    CHECK(st_hmap_get(&map, 42)->id == 7);
    CHECK(st_hmap_put(&map, 42, &b) == 0); /* a shared handle (MPICH lightweight request): two entries */
    st_req_info_t x, y;
    CHECK(st_hmap_claim(&map, 42, &x) == 1);
    CHECK(st_hmap_claim(&map, 42, &y) == 1);
    CHECK(x.id + y.id == 15 && x.id != y.id);
    CHECK(st_hmap_claim(&map, 42, &x) == 0);
    CHECK(st_hmap_get(&map, 42) == NULL);

    /* Fill completely, then one more insert must fail cleanly. */
    for (int64_t k = 0; k < (int64_t)ST_HMAP_SLOTS; k++)
        CHECK(st_hmap_put(&map, 1000 + k, &a) == 0);
    CHECK(st_hmap_put(&map, -5, &a) == -1);
    CHECK(st_hmap_get(&map, 1000 + ST_HMAP_SLOTS - 1) != NULL);
    for (int64_t k = 0; k < (int64_t)ST_HMAP_SLOTS; k++)
        st_hmap_del(&map, 1000 + k);
    CHECK(st_hmap_put(&map, -5, &a) == 0); /* tombstones are reused */
    st_hmap_del(&map, -5);

    pthread_t t[4];
    for (intptr_t i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("handle_map: ok\n");
    return 0;
}
