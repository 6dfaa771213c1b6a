/*
 * slow_spill.c — preloaded before the shim in tests only (tests/mpi/t_flush.sh, t_handoff_crash.sh,
 * tests/analysis/t_analyze_flushes.sh; built by tests/lib.sh's build_slow_spill): makes the tool's writes of full event buffers to its spill files slow, as
 * on a slow or busy disk, so that a test can make the writer thread fall behind on purpose.
 * Every pwrite() to a file named synctrace-spill-* sleeps SLOW_SPILL_MS milliseconds (default 200)
 * first. With SLOW_SPILL_LOG=FILE it appends "begin" before and "end" after each such write to
 * FILE.RANK (the launcher's PMI_RANK or OMPI_COMM_WORLD_RANK; FILE.0 without): a run that ends
 * while a write sleeps leaves a last "begin". Other writes pass untouched.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void mark(const char *what)
{
    const char *log = getenv("SLOW_SPILL_LOG"), *rank = getenv("PMI_RANK");
    if (!log)
        return;
    if (!rank)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    char path[4200];
    snprintf(path, sizeof path, "%s.%s", log, rank ? rank : "0");
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, what, strlen(what));
        (void)w;
        close(fd);
    }
}

static int is_spill(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = 0;
    return strstr(path, "synctrace-spill-") != NULL;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*next)(int, const void *, size_t, off_t);
    if (!next)
        next = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    int spill = is_spill(fd);
    if (spill) {
        const char *ms = getenv("SLOW_SPILL_MS");
        long d = ms ? atol(ms) : 200;
        struct timespec ts = { d / 1000, (d % 1000) * 1000000L };
        mark("begin\n");
        nanosleep(&ts, NULL);
    }
    ssize_t r = next(fd, buf, n, off);
    if (spill)
        mark("end\n");
    return r;
}
