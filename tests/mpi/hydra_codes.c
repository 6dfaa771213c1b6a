/*
 * hydra_codes.c — shows, untraced, two exit codes MPICH's hydra gives for ranks that exit(22)
 * without MPI_Finalize besides 22 (tests/mpi/t_exit_codes.sh). Usage: hydra_codes MODE:
 *   hangup  every rank forks a child that keeps the rank's PMI connection (PMI_FD) and stderr
 *           open for 0.5 s and closes everything else: hydra reaps the ranks before it reads
 *           the end of their PMI connections, and reports "EXIT CODE: 1 ... Hangup (signal 1)"
 *           although no process got a SIGHUP (its placeholder status 1 stays);
 *   killed  the last rank forks a child of its own session that keeps stderr open for 1.5 s,
 *           writing a dot every 50 ms, and sleeps 3 s before its exit: hydra's cleanup kills the
 *           sleeping rank while a pipe is still open (so it reaps it at once), and reports
 *           "Killed (signal 9)".
 * Exits 3 if there is no PMI_FD (not hydra).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A child that keeps fd keep (-1: none) and stderr open for ms, in a session of its own if own_session;
 * with tick it writes a dot to stderr every 50 ms meanwhile (each wakes hydra, which then reaps the dead). */
static void holder(int keep, int own_session, long ms, int tick)
{
    if (fork() != 0)
        return;
    if (own_session)
        setsid();
    for (int fd = 0; fd < 1024; fd++)
        if (fd != keep && fd != 2)
            close(fd);
    for (long t = 0; t < ms; t += 50) {
        nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
        if (tick && write(2, ".", 1) != 1)
            break;
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *pmi = getenv("PMI_FD");
    if (!pmi)
        exit(3);
    int killed = argc > 1 && !strcmp(argv[1], "killed") && rank == size - 1;
    if (killed) { /* before the barrier: in its own session before any rank exits */
        holder(-1, 1, 1500, 1);
        nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && !strcmp(argv[1], "hangup"))
        holder(atoi(pmi), 0, 500, 0);
    if (killed)
        sleep(3);
    exit(22);
}
