/*
 * guard.c — runs an archive-reading command in a child process.
 *
 * The OTF2 library trusts its input: some corrupted definition files make it crash
 * (measured: a byte flipped in traces.def can segfault otf2-print). A CLI must answer a
 * corrupt archive with one line, not a core dump, so archive-reading commands run in a
 * forked child; the parent only waits. The child tells the parent over a pipe when it
 * starts and finishes loading ("L<dir>\n", "D\n"), so the parent can blame a crash on the
 * archive (during loading) or report an internal error (after). Output is written by the
 * child directly; the parent adds at most one line on stderr.
 *
 * OTF2 also trusts the counts in the files: a corrupt anchor file made it map 25 GB and
 * touch gigabytes of it before failing. So while the child loads, its address space is
 * capped (soft RLIMIT_AS) at what it already uses plus 1 GiB plus 48 times the archive's
 * size on disk — far above what a genuine archive needs (64 bytes per event in memory, an
 * event takes at least ~5 bytes on disk; event arrays are sized from the announced counts)
 * — and the cap is lifted again once loading ends.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int guard_fd = -1; /* child: write end of the pipe to the parent */

static void tell(const char *what, const char *arg)
{
    if (guard_fd < 0)
        return;
    char buf[4200];
    int n = snprintf(buf, sizeof buf, "%s%s\n", what, arg);
    if (n > 0 && write(guard_fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
        guard_fd = -1;
}

/* ---- memory cap while loading ------------------------------------------------------------ */

static struct rlimit saved_as;
static int as_capped;

/* Bytes of the regular files in path and, one level down, in its subdirectories. */
static uint64_t tree_bytes(const char *path, int depth)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    uint64_t sum = 0;
    char sub[4200];
    struct stat st;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (stat(sub, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
        else if (S_ISDIR(st.st_mode) && depth > 0)
            sum += tree_bytes(sub, depth - 1);
    }
    closedir(d);
    return sum;
}

static uint64_t archive_bytes(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return tree_bytes(dir, 1);
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", dir); /* DIR/traces.otf2 given: its directory */
    return tree_bytes(dirname(copy), 1);
}

static uint64_t vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void cap_memory(const char *dir)
{
    if (getrlimit(RLIMIT_AS, &saved_as) != 0)
        return;
    uint64_t size = archive_bytes(dir);
    uint64_t cap = vm_bytes() + (1ull << 30) + (size < (UINT64_MAX >> 7) ? 48 * size : UINT64_MAX >> 2);
    if (saved_as.rlim_cur != RLIM_INFINITY && saved_as.rlim_cur <= cap)
        return; /* already as tight */
    struct rlimit lim = saved_as;
    lim.rlim_cur = saved_as.rlim_max != RLIM_INFINITY && saved_as.rlim_max < cap ? saved_as.rlim_max : cap;
    as_capped = setrlimit(RLIMIT_AS, &lim) == 0;
}

void st_cli_guard_loading(const char *dir)
{
    tell("L", dir);
    if (guard_fd >= 0)
        cap_memory(dir);
}

void st_cli_guard_loaded(void)
{
    if (as_capped && setrlimit(RLIMIT_AS, &saved_as) == 0)
        as_capped = 0;
    tell("D", "");
}

/* Reads the child's messages until it exits; leaves the dir being loaded (if any) in dir. */
static void listen(int fd, char *dir, size_t dirlen, int *loading)
{
    char buf[8192];
    size_t len = 0;
    ssize_t n;
    while ((n = read(fd, buf + len, sizeof buf - 1 - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        len += (size_t)n;
        buf[len] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = 0;
            if (buf[0] == 'L') {
                size_t k = strnlen(buf + 1, dirlen - 1);
                memcpy(dir, buf + 1, k);
                dir[k] = 0;
                *loading = 1;
            } else if (buf[0] == 'D')
                *loading = 0;
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len + 1);
        }
        if (len == sizeof buf - 1)
            len = 0; /* an over-long line: drop it */
    }
}

static int report(const st_cli_cmd_t *cmd, int status, const char *dir, int loading)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGPIPE)
        return 128 + sig; /* the reader of our output went away (e.g. `| head`) */
    if (loading)
        fprintf(stderr, "synctrace: cannot read archive %s: the OTF2 reader crashed on it (%s); the archive is "
                        "corrupt\n", dir, strsignal(sig));
    else
        fprintf(stderr, "synctrace: %s: internal error: crashed (%s); please report\n", cmd->name, strsignal(sig));
    return 1;
}

int st_cli_guard_run(const st_cli_cmd_t *cmd, int argc, char **argv)
{
    int p[2];
    fflush(NULL);
    if (pipe(p) != 0)
        return cmd->run(argc, argv); /* no guard possible: run unprotected */
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return cmd->run(argc, argv);
    }
    if (pid == 0) {
        close(p[0]);
        guard_fd = p[1];
        exit(cmd->run(argc, argv));
    }
    close(p[1]);
    char dir[4200] = "";
    int loading = 0, status = 0;
    listen(p[0], dir, sizeof dir, &loading);
    close(p[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return report(cmd, status, dir, loading);
}
