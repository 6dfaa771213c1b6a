/*
 * st_test.h — helpers shared by the MPI test programs in tests/mpi/.
 *
 * The programs print deterministic results (checksums) on rank 0 only, so that a
 * test can compare the application's stdout with and without the shim. Calls whose
 * number depends on timing (MPI_Iprobe/MPI_Test/MPI_Testsome polling loops) are
 * counted by the program itself and written, one "NAME COUNT" line per counter, to
 * FILE.RANK when the program is given "-c FILE"; the test scripts add these counts
 * to the exact event counts they expect in the trace.
 *
 * Header-only on purpose: every program is a single translation unit, built with
 * tests/lib.sh build_mpi_c.
 */
#ifndef ST_TEST_H
#define ST_TEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * gcc 12 warns that MPI_STATUSES_IGNORE ("(MPI_Status *)1" in MPICH) points to a region
 * of size 0 when passed to MPI_Waitall; the standard says it is never dereferenced.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define ST_TEST_MAX_COUNTERS 16

typedef struct st_test_counter {
    const char *name; /* MPI function name, e.g. "MPI_Iprobe" */
    long n;
} st_test_counter_t;

static st_test_counter_t st_test_counters[ST_TEST_MAX_COUNTERS];
static const char *st_test_count_file; /* -c FILE, or NULL */

/* Adds one to the counter of an MPI call the program made a timing-dependent number of times. */
static inline void st_test_count(const char *name)
{
    for (int i = 0; i < ST_TEST_MAX_COUNTERS; i++) {
        if (!st_test_counters[i].name)
            st_test_counters[i].name = name;
        if (!strcmp(st_test_counters[i].name, name)) {
            st_test_counters[i].n++;
            return;
        }
    }
    fprintf(stderr, "st_test: too many counters\n");
    exit(2);
}

/* Writes the counters of this rank to FILE.RANK (no-op without -c FILE). */
static inline void st_test_write_counts(int rank)
{
    if (!st_test_count_file)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", st_test_count_file, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    for (int i = 0; i < ST_TEST_MAX_COUNTERS && st_test_counters[i].name; i++)
        fprintf(f, "%s %ld\n", st_test_counters[i].name, st_test_counters[i].n);
    fclose(f);
}

/*
 * Short sleep between polls (MPI_Iprobe/MPI_Test loops): keeps the number of polling
 * calls, and so the trace, small, and yields the core to oversubscribed ranks.
 */
static inline void st_test_pause(void)
{
    struct timespec ts = { 0, 100 * 1000 };
    nanosleep(&ts, NULL);
}

/* Parses "[-c FILE] [N...]": returns the i-th number (default def). */
static inline long st_test_arg(int argc, char **argv, int i, long def)
{
    int k = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-c") && a + 1 < argc) {
            st_test_count_file = argv[++a];
            continue;
        }
        if (k++ == i)
            return strtol(argv[a], NULL, 10);
    }
    return def;
}

/* FNV-1a over a value: order-dependent checksum of everything a rank computed. */
static inline uint64_t st_test_mix(uint64_t h, int64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (uint64_t)(v >> (8 * i)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

#define ST_TEST_SEED 0xcbf29ce484222325ull

/* Stops the job with a message when an MPI result is not what the test program expects. */
#define ST_TEST_REQUIRE(cond, ...)                                \
    do {                                                          \
        if (!(cond)) {                                            \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                         \
            fputc('\n', stderr);                                  \
            MPI_Abort(MPI_COMM_WORLD, 9);                         \
        }                                                         \
    } while (0)

/*
 * Combines every rank's checksum at rank 0 (one MPI_Gather on MPI_COMM_WORLD) and prints
 * "LABEL: rank0 rank1 ..." there. Deterministic output independent of scheduling.
 */
static inline void st_test_report(const char *label, uint64_t h, int rank, int size)
{
    uint64_t *all = rank == 0 ? malloc(sizeof *all * (size_t)size) : NULL;
    MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s:", label);
        for (int r = 0; r < size; r++)
            printf(" %016llx", (unsigned long long)all[r]);
        printf("\n");
        fflush(stdout);
        free(all);
    }
}

#endif
