/*
 * abend.h — saving what was recorded when the process ends abnormally.
 *
 * A signal can interrupt the process anywhere, also inside malloc or stdio while they
 * hold their locks, so a handler may only make async-signal-safe calls. Everything a
 * dump needs besides the events is therefore prepared beforehand, outside handlers:
 * at load (the thread table, the directory of a program without MPI), at MPI_Init (the
 * communicator table, the other ranks' process ids) and after every clock sync (the
 * properties, with the sync epochs `synctrace recover` re-maps through).
 * st_abend_dump() then copies definitions by value, reads the events straight from the
 * recorder (buffers; spill files with pread) and writes DIR/partial/rank-N.strd with
 * write(2): no malloc, no stdio, no locks, no MPI, no CLC, no OTF2.
 *
 * Who saves, and how the others learn of it (MPICH 4.0 hydra, measured): after
 * MPI_Abort, a crash or an exit() without MPI_Finalize in one rank, hydra kills every
 * other rank at once with SIGKILL, which cannot be caught; SIGTERM/SIGINT sent to mpiexec
 * are forwarded to every rank, and once the first rank has died hydra SIGKILLs the
 * rest. So a rank that ends abnormally (1) dumps, (2) sends ST_ABEND_SIGNAL to the other
 * ranks of its host, whose handler dumps them (and stops their recording), and (3)
 * waits, before it lets the process end, until the dumps it waits for are complete or
 * stop making progress for 3 s (so the wait scales with what the others recorded,
 * whatever its size; the reason and an estimate are printed on stderr). After a termination signal it waits for every rank (all got the signal);
 * otherwise for the ranks of its host. Ranks on other hosts cannot be reached without
 * MPI progress on their side: after MPI_Abort, a crash or exit() on another host they
 * are killed unsaved (documented limitation).
 */
#ifndef ST_ABEND_H
#define ST_ABEND_H

#include <mpi.h>
#include <signal.h>

/* The signal that asks a rank to dump (a real-time one nobody else uses by default; taken only if unhandled). */
#define ST_ABEND_SIGNAL (SIGRTMAX - 5)

/* Adds to set the signals that end a job from outside (SIGTERM, SIGINT, SIGHUP, SIGQUIT: a
 * launcher sends them, often more than once) and ST_ABEND_SIGNAL. Blocked while a handler
 * dumps, so that a repeated one waits for the dump instead of killing the rank in the middle
 * of it (the launcher then kills the others, whose dumps were being waited for). */
void st_abend_ends_mask(sigset_t *set);

/* At load (not in a handler): preallocates the thread table and chooses the directory a
 * program that never calls MPI_Init dumps into (SYNCTRACE_DIR, else a new synctrace-DATE-TIME[-N]
 * created only when a dump happens). launcher_rank/size: what the launcher says (-1/0 if
 * nothing), so that ranks signalled before MPI_Init do not all dump as rank 0. */
void st_abend_init_load(int launcher_rank, int launcher_size);

/* In MPI_Init after the tool's setup (collective over toolcomm; not in a handler): the
 * archive directory, the communicator table, the pids and hosts of all ranks, the handler of
 * ST_ABEND_SIGNAL. */
void st_abend_init_mpi(MPI_Comm toolcomm, const char *dir);

/* Outside handlers: rebuilds the saved properties if a clock sync happened since the last
 * call (cheap otherwise). Called after every resync opportunity. */
void st_abend_refresh(void);

/* The run ended normally (archive written or given up): no dump, notification or wait from now on. */
void st_abend_disarm(void);

/* Not in a handler, once: a dump from now on goes into archive_dir (MPI_Init's archive directory,
 * st_abend_init_mpi; or the archive a program without MPI writes at exit, so that a signal during that
 * write leaves the dump next to it). A handler sees the whole name or the one before. */
void st_abend_use_dir(const char *archive_dir);

/* In the forked child (pthread_atfork): never dump, never notify. */
void st_abend_forget(void);

/*
 * Async-signal-safe. Stops recording and dumps this process's data, marked incomplete with
 * END = why, once (later calls return at once). Returns 0 if a dump exists now.
 * Rank 0 (or a process without MPI) prints where it went and how to recover.
 */
int st_abend_dump(const char *why);

/* Async-signal-safe: asks the other ranks of this host to dump (ST_ABEND_SIGNAL); their
 * END then says "<why> on rank R". */
void st_abend_notify(const char *why);

/* Async-signal-safe: waits for the other ranks' dumps (all_ranks: every rank, else this
 * host's), see above. why names the end in the printed reason. */
void st_abend_wait(int all_ranks, const char *why);

#endif
