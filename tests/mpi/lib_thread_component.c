/*
 * lib_thread_component.c — stands in for a component of the MPI library that runs a thread of its own
 * (t_lib_threads.sh): built as mca_st_progress.so, the name an Open MPI component has, it starts a
 * thread that calls MPI_Comm_size CALLS times, the way an asynchronous progress thread could.
 */
#include <mpi.h>
#include <pthread.h>

#define CALLS 5

static void *progress(void *arg)
{
    int n = 0;
    for (int i = 0; i < CALLS; i++)
        MPI_Comm_size(MPI_COMM_WORLD, &n);
    *(int *)arg = n;
    return NULL;
}

/* Runs the thread to its end; returns what its last MPI_Comm_size gave. */
int st_component_progress(void)
{
    int n = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, progress, &n) != 0)
        return -1;
    pthread_join(t, NULL);
    return n;
}
