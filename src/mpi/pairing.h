/*
 * pairing.h — the library of one MPI family in a program of the other: refused, never a crash.
 *
 * The shim exists once per MPI family (mpich, openmpi) because the two families' ABIs differ: handles
 * are 32-bit ints in MPICH and pointers in Open MPI, MPI_Status has another size, the constants other
 * values. A library of the wrong family, once preloaded, interposes every MPI_* call of the program
 * with wrappers of the wrong prototypes, so it can neither trace nor merely pass the calls through.
 * The shim is linked to its own family's MPI library, so the pairing is wrong exactly when the other
 * family's MPI library is in the process too. Then the process says so in one line (on rank 0 of a
 * launched job, or the single process) naming the program's MPI and the library to use, and
 * re-executes the program, same argv and environment, without this library in LD_PRELOAD: the
 * application runs untraced, before its main when the check is at load.
 * Processes with no MPI of the other family (launchers, shells, OpenMP-only programs) are untouched.
 */
#ifndef ST_PAIRING_H
#define ST_PAIRING_H

/*
 * At library load, first thing (argv as glibc hands it to ELF constructors, kept for a later
 * re-execution): when the other family's MPI library is loaded, refuses as above and does not return
 * (re-executed, or exit status 2 when it cannot be: see pairing.c). Returns otherwise, silently.
 */
void st_pairing_at_load(char **argv);

/*
 * At MPI_Init / MPI_Init_thread, before PMPI: the same check for an MPI library loaded after start
 * (an interpreter's extension module, like mpi4py's); refuses the same way: the program restarts
 * untraced from the beginning. Returns when the pairing is right.
 */
void st_pairing_at_init(void);

#endif
