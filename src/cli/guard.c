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
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void st_cli_guard_loading(const char *dir) { tell("L", dir); }
void st_cli_guard_loaded(void) { tell("D", ""); }

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
