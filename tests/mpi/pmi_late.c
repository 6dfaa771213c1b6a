/*
 * pmi_late.c — shows MPICH hydra's placeholder exit status (tests/mpi/t_exit_codes.sh), untraced.
 * Every rank forks a child that keeps the rank's PMI connection (PMI_FD) and stderr open for
 * 0.5 s and closes everything else, then calls exit(22) without MPI_Finalize: hydra reaps the
 * ranks before it reads the end of their PMI connections, and reports the job as "EXIT CODE: 1
 * ... Hangup (signal 1)" although no process got a SIGHUP. Exits 3 if there is no PMI_FD.
 */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    const char *pmi_env = getenv("PMI_FD");
    if (!pmi_env)
        exit(3);
    int pmi = atoi(pmi_env);
    if (fork() == 0) {
        for (int fd = 0; fd < 1024; fd++)
            if (fd != pmi && fd != 2)
                close(fd);
        nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
        _exit(0);
    }
    exit(22);
}
