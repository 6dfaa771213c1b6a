/*
 * test_cli_guard.c — the crash guard of `synctrace` (src/cli/guard.c): exit codes pass
 * through; a crash while loading becomes one "cannot read archive" line, a crash after
 * loading an internal-error line; a closed output pipe (SIGPIPE) exits quietly.
 */
/* link: src/cli/guard.c */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../src/cli/cli.h"
#include "check.h"

static void die_by(int sig)
{
    signal(sig, SIG_DFL); /* sanitizers catch SIGSEGV; the guard must see a real signal death */
    raise(sig);
    _exit(99);
}

static int run_exit3(int argc, char **argv) { (void)argc; (void)argv; return 3; }
static int run_crash_loading(int argc, char **argv)
{
    (void)argc; (void)argv;
    st_cli_guard_loading("some/dir");
    die_by(SIGSEGV);
    return 0;
}
static int run_crash_after(int argc, char **argv)
{
    (void)argc; (void)argv;
    st_cli_guard_loading("some/dir");
    st_cli_guard_loaded();
    die_by(SIGABRT);
    return 0;
}
static int run_sigpipe(int argc, char **argv) { (void)argc; (void)argv; die_by(SIGPIPE); return 0; }

/* Runs fn under the guard with stderr captured; checks exit code and the stderr text. */
static void expect(int (*fn)(int, char **), int want_rc, const char *want_err)
{
    st_cli_cmd_t cmd = {.name = "test", .usage = "test", .reads_archive = 1, .run = fn};
    char path[] = "/tmp/test_cli_guard.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    char *argv[] = {"test", NULL};
    int rc = st_cli_guard_run(&cmd, 1, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char err[1024] = "";
    ssize_t n = pread(fd, err, sizeof err - 1, 0);
    err[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    EXPECT(rc == want_rc && strcmp(err, want_err) == 0, "guard: expected rc %d and stderr '%s', got rc %d and '%s'",
           want_rc, want_err, rc, err);
}

int main(void)
{
    struct rlimit nocore = {0, 0};
    setrlimit(RLIMIT_CORE, &nocore);
    expect(run_exit3, 3, "");
    expect(run_crash_loading, 1,
           "synctrace: cannot read archive some/dir: the OTF2 reader crashed on it (Segmentation fault); the archive "
           "is corrupt\n");
    expect(run_crash_after, 1, "synctrace: test: internal error: crashed (Aborted); please report\n");
    expect(run_sigpipe, 128 + SIGPIPE, "");
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
