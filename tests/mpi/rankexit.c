/*
 * rankexit.c — runs one rank's program as its child and writes down how the program ended
 * (tests/mpi/t_sigterm.sh).
 *
 * Usage: rankexit OUTDIR PRELOAD PROGRAM [ARGS...]
 *
 * The launcher's exit code does not tell how the ranks ended: MPICH 4.0's hydra proxy, once it
 * has forwarded a signal, reports 0 for every rank it reaps after the rank's output pipes closed
 * (its "forced cleanup", removed in MPICH 4.1), so an untraced job SIGTERMed at 2 ranks exits 0
 * in about a third of the runs on a loaded machine. This parent sees the end itself: it writes
 * OUTDIR/rank-R (R = PMI_RANK, MPICH, or OMPI_COMM_WORLD_RANK, Open MPI) as "signal N" or "exit N" and then ends the same way, so the
 * launcher sees what it would see without it.
 *
 * Only the child gets LD_PRELOAD=PRELOAD. The termination signals the launcher sends to the
 * process group reach the child directly; here they are caught (a caught signal is back to its
 * default in the child at exec) so that this process outlives the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void ignore_once(int sig) { (void)sig; }

static void write_end(const char *dir, int status)
{
    const char *rank = getenv("PMI_RANK");
    if (!rank)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    char path[4096], tmp[4096], line[64];
    snprintf(path, sizeof path, "%s/rank-%s", dir, rank ? rank : "unknown");
    snprintf(tmp, sizeof tmp, "%s/.rank-%s.tmp", dir, rank ? rank : "unknown");
    int n = WIFSIGNALED(status) ? snprintf(line, sizeof line, "signal %d\n", WTERMSIG(status))
                                : snprintf(line, sizeof line, "exit %d\n", WEXITSTATUS(status));
    /* Written aside and renamed: the launcher may SIGKILL this process at any moment once another
     * rank has died of the signal, and an empty rank file would read as "ended some other way". */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n || close(fd) != 0 || rename(tmp, path) != 0)
        perror("rankexit: cannot write the rank's end");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rankexit OUTDIR PRELOAD PROGRAM [ARGS...]\n");
        return 2;
    }
    const int ends[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ignore_once;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        sigaction(ends[i], &sa, NULL);
    pid_t child = fork();
    if (child < 0) {
        perror("rankexit: fork");
        return 2;
    }
    if (child == 0) {
        setenv("LD_PRELOAD", argv[2], 1);
        execv(argv[3], argv + 3);
        perror("rankexit: exec");
        _exit(127);
    }
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            perror("rankexit: waitpid");
            return 2;
        }
    write_end(argv[1], status);
    if (!WIFSIGNALED(status))
        return WEXITSTATUS(status);
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
}
