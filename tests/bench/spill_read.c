/*
 * spill_read.c — what reading a spill file back costs at MPI_Finalize, by way of reading
 * (docs/performance.md, "Finalize per event"). Not part of `make bench`: a probe, run by hand.
 *
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o spill_read tests/bench/spill_read.c
 *   ./spill_read EVENTS MODE [DIR]
 *
 * Writes EVENTS 64-byte records to an unnamed file in DIR (default /tmp) in 8 MiB pwrite()s, as
 * the writer thread spills full buffers, then makes them readable and writable by MODE and
 * scans them twice (the first scan writes every record's time, as the clock remap does):
 *   pread       pread() into a fresh block marked for huge pages (what st_record_load does)
 *   pread-warm  the same into a block touched before (the copy alone)
 *   pread-4k    pread() into fresh 4 KiB pages
 *   private     mmap MAP_PRIVATE | MAP_POPULATE (copy-on-write: the file stays as it was)
 *   shared      mmap MAP_SHARED | MAP_POPULATE (the page cache itself: the writes go to the file)
 *   shared-pw   mmap MAP_SHARED, then madvise(MADV_POPULATE_WRITE)
 * Prints this process's CPU time (user + system) and minor faults of the loading and of each
 * scan, and both per record.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HUGE_PAGE ((size_t)2 << 20)
#define CHUNK     131072 /* records per write: the default 8 MiB buffer */

typedef struct rec {
    uint64_t time;
    uint64_t rest[7];
} rec_t;

static double cpu_ms(long *faults)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *faults = ru.ru_minflt;
    return (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec * 1e-3 + (double)ru.ru_stime.tv_sec * 1e3 +
           (double)ru.ru_stime.tv_usec * 1e-3;
}

static uint64_t scan(rec_t *r, size_t n, int write)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) {
        s += r[i].time;
        if (write)
            r[i].time = r[i].time * 3 + 1;
    }
    return s;
}

static int make_file(const char *dir, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/spill-read-XXXXXX", dir);
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -1;
    unlink(path);
    rec_t *b = calloc(CHUNK, sizeof *b);
    for (size_t at = 0; b && at < n; at += CHUNK) {
        for (size_t i = 0; i < CHUNK; i++)
            b[i].time = at + i;
        if (pwrite(fd, b, CHUNK * sizeof *b, (off_t)(at * sizeof *b)) != (ssize_t)(CHUNK * sizeof *b)) {
            perror("spill_read: pwrite");
            free(b);
            return -1;
        }
    }
    free(b);
    return b ? fd : -1;
}

static void *fresh(size_t bytes, int huge)
{
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, len);
    if (p && huge)
        (void)madvise(p, len, MADV_HUGEPAGE);
    return p;
}

static int read_all(int fd, void *out, size_t bytes)
{
    for (size_t off = 0; off < bytes;) {
        ssize_t r = pread(fd, (char *)out + off, bytes - off, (off_t)off);
        if (r <= 0)
            return -1;
        off += (size_t)r;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: spill_read EVENTS pread|pread-warm|pread-4k|private|shared|shared-pw [DIR]\n");
        return 2;
    }
    size_t n = (size_t)atof(argv[1]) / CHUNK * CHUNK, bytes = n * sizeof(rec_t);
    const char *mode = argv[2];
    int fd = make_file(argc > 3 ? argv[3] : "/tmp", n);
    if (fd < 0 || n == 0) {
        fprintf(stderr, "spill_read: cannot write %zu records\n", n);
        return 1;
    }
    long f0, f1, f2, f3;
    double c0 = cpu_ms(&f0);
    rec_t *r = MAP_FAILED;
    if (!strcmp(mode, "pread") || !strcmp(mode, "pread-4k") || !strcmp(mode, "pread-warm")) {
        r = fresh(bytes, strcmp(mode, "pread-4k") != 0);
        if (r && !strcmp(mode, "pread-warm")) {
            memset(r, 0, bytes);
            c0 = cpu_ms(&f0);
        }
        if (!r || read_all(fd, r, bytes) != 0)
            r = MAP_FAILED;
    } else if (!strcmp(mode, "private")) {
        r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    } else if (!strcmp(mode, "shared")) {
        r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    } else if (!strcmp(mode, "shared-pw")) {
        r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (r != MAP_FAILED && madvise(r, bytes, MADV_POPULATE_WRITE) != 0)
            perror("spill_read: MADV_POPULATE_WRITE");
    } else {
        fprintf(stderr, "spill_read: unknown mode '%s'\n", mode);
        return 2;
    }
    if (r == MAP_FAILED) {
        perror("spill_read: loading");
        return 1;
    }
    double c1 = cpu_ms(&f1);
    uint64_t s = scan(r, n, 1);
    double c2 = cpu_ms(&f2);
    s += scan(r, n, 0);
    double c3 = cpu_ms(&f3);
    printf("%-10s %zu records: load %.1f ms (%ld faults), first scan %.1f ms (%ld), second %.1f ms; "
           "ns per record: load %.1f, first scan %.1f (%llu)\n",
           mode, n, c1 - c0, f1 - f0, c2 - c1, f2 - f1, c3 - c2, (c1 - c0) * 1e6 / (double)n,
           (c2 - c1) * 1e6 / (double)n, (unsigned long long)(s & 1));
    return 0;
}
