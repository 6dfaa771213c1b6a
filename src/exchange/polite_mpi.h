/*
 * polite_mpi.h — waiting on the tool's own MPI operations without burning the CPU.
 *
 * MPICH (ch4) busy-polls inside blocking calls; with more ranks than cores a waiting
 * rank then holds its core for a whole time slice while its partner cannot run. Every
 * wait of the tool itself (sync, CLC exchanges, archive writing) goes through these:
 * PMPI_Test + sched_yield(). They cost nothing when ranks have their own cores.
 * Never used on the application's operations.
 */
#ifndef ST_POLITE_H
#define ST_POLITE_H

#include <mpi.h>

/*
 * What the tool's waits are for from now on ("writing the archive"), or NULL. A wait that lasts more than
 * ST_POLITE_NOTICE_S seconds says once per phase on stderr what it is waiting for, so a finalize that hangs
 * on a stopped rank is never silent. NULL (the default) for waits that are the application's own, like the
 * synchronization of MPI_Finalize itself.
 */
#define ST_POLITE_NOTICE_S 5
void st_polite_doing(const char *what);
/* The phase st_polite_doing() last set, or NULL. Async-signal-safe: the abnormal-end dump names it. */
const char *st_polite_doing_now(void);

/* Waits for req; returns the MPI error code. After 2 ms the wait sleeps, crowded host or not, in
 * pauses of 5 % of the time waited (0.2 to 2 ms), so a long wait leaves the CPU to the ranks it
 * waits for and ends at most 5 % (or 2 ms) late. */
int st_polite_wait(MPI_Request *req, MPI_Status *status);
/*
 * One idle step of a wait loop (idle = steps since the last progress, from 0): sched_yield.
 * When the host is crowded (more ranks on it than CPUs), yield only for the first 64 steps
 * (the partner is usually about to answer), then sleep with growing pauses up to 200 us:
 * ranks that spin there take the CPUs from the very ranks they wait for.
 */
void st_polite_pause(long idle, int crowded);
/* Whether this process' host is crowded: more processes of comm on it (equal host names) than CPUs this
 * process may run on (its affinity). Collective over comm; 0 when it cannot tell (no memory, an MPI error). */
int st_polite_crowded(MPI_Comm comm);
/* st_polite_wait with st_polite_pause steps: for waits that may last while other ranks work. */
int st_polite_wait_crowded(MPI_Request *req, int crowded);
/* st_polite_wait without the long-wait notice: for the parallel archive writer's steps, which
 * report their own failures. */
int st_polite_wait_quiet(MPI_Request *req);
/* Barrier / Bcast / Allreduce / Gather on a tool communicator, waited politely. */
int st_polite_barrier(MPI_Comm comm);
int st_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int st_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

#endif
