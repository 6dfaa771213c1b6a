/*
 * inlinepaths.c — MPI calls in inlined and tail-called functions, built at -O2 for
 * t_callpath_inline.sh. With SYNCTRACE_CALLPATH=1 every path is the source's:
 *   main/outer/inlined_fn/MPI_Allreduce   inlined_fn is inlined into outer (always_inline)
 *   main/twice_inlined/inlined_fn/MPI_Allreduce   both inlined into main
 *   main/tail_caller/tail_callee/MPI_Barrier   tail_caller's last call is a jump: its frame is gone,
 *                                         main's call to it says where main went
 *   main/tail_mpi/MPI_Bcast               tail_mpi's last call, MPI_Bcast, is a jump
 *   main/finish/MPI_Finalize              main's last call, finish, is a jump: main's frame is gone,
 *                                         libc's start routine called it (the root stays main)
 * The test checks the binary holds what the names say: no call to inlined_fn or twice_inlined,
 * jumps from tail_caller to tail_callee, from tail_mpi to MPI_Bcast and from main to finish (main
 * takes no local's or parameter's address: GCC makes no tail call from a function whose locals
 * may be referenced). With the argument "abort" the ranks end in MPI_Abort in finish after these
 * calls (`synctrace recover` must name the same paths).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static volatile int sink;

static inline __attribute__((always_inline)) void inlined_fn(int x)
{
    int y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sink = y;
}

static inline __attribute__((always_inline)) void twice_inlined(int x)
{
    inlined_fn(x + 1);
    sink++;
}

__attribute__((noinline, noipa)) void outer(int x)
{
    inlined_fn(x);
    sink++;
}

__attribute__((noinline, noipa)) void tail_callee(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    sink++;
}

__attribute__((noinline, noipa)) void tail_caller(int x)
{
    sink = x;
    tail_callee(); /* the last call: a jump at -O2 */
}

__attribute__((noinline, noipa)) void tail_mpi(int *x)
{
    sink = *x;
    MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD); /* the last call: a jump at -O2 */
}

static int rank, v; /* not main's locals: main tail-calls finish */

__attribute__((noinline, noipa)) int finish(int abort)
{
    if (abort) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("done\n");
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    outer(rank);
    twice_inlined(rank);
    tail_caller(rank);
    v = rank;
    tail_mpi(&v);
    return finish(argc > 1 && !strcmp(argv[1], "abort")); /* the last call: a jump at -O2 */
}
