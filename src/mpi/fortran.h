/*
 * fortran.h — what the generated Fortran entry points (build/gen/<family>/mpi_fortran.c, written
 * by scripts/gen_fortran.py) call to read a Fortran call's arguments as C values.
 *
 * Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call the C PMPI_* functions,
 * not MPI_*, so the C wrappers never see a Fortran call. The library of the openmpi family
 * therefore exports the Fortran names too (mpi_send_, mpi_send_f08_, ...): each forwards the
 * call unchanged to Open MPI's own Fortran profiling entry (pmpi_send_, pmpi_send_f08_), so the
 * call keeps exactly Open MPI's semantics, and converts only the arguments its table role reads
 * into the C values the role's code expects (handles with PMPI_*_f2c, statuses with
 * PMPI_Status_f2c, 1-based indices, LOGICAL flags, the MPI_IN_PLACE / MPI_BOTTOM sentinels).
 * The scratch arrays are thread-local and grown rarely: no allocation per call in steady state.
 *
 * MPICH's mpif.h and `use mpi` layers call the C MPI_* functions, and so do its `use mpi_f08`
 * bindings of functions with a choice buffer (mpi_send_f08ts_ calls MPI_Send); its other mpi_f08
 * bindings (mpi_barrier_f08_, mpi_waitall_f08_, mpi_init_f08_, ...) call PMPI_*. So the MPICH
 * library exports just those mpi_x_f08_ names, each forwarding to MPICH's mpi_x_f08_ itself (it
 * has no pmpi_x_f08_), found with dlsym(RTLD_NEXT): no choice buffer, no MPI_IN_PLACE to convert.
 */
#ifndef ST_MPI_FORTRAN_H
#define ST_MPI_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

#include "st_mpi.h"

/* Fortran INTEGERs per status (MPI_STATUS_SIZE = sizeof(MPI_Status) / sizeof(MPI_Fint) in both families). */
#define ST_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* The entry name as the next object after this library defines it (the MPI library's own), kept in
 * *slot after the first successful look-up; NULL when no loaded object defines it. Thread-safe. */
void *st_f_next(void **slot, const char *name);

#if defined(OPEN_MPI)
/* The C buffer address for a Fortran buffer argument: Fortran's MPI_IN_PLACE and MPI_BOTTOM are
 * addresses of Open MPI's common blocks, mapped to the C MPI_IN_PLACE / MPI_BOTTOM. */
void *st_f_buf(void *f_buf);
#endif

/* Whether a Fortran status (array) argument is MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE) of the
 * family's bindings. */
int st_f_status_ignore(const MPI_Fint *f_status);
int st_f_statuses_ignore(const MPI_Fint *f_statuses);

/* The Fortran statuses argument to pass on: thread-local storage for count statuses in place of
 * MPI_STATUSES_IGNORE (the role reads the statuses), else f_statuses itself (also when out of memory). */
void *st_f_statuses_arg(void *f_statuses, int count);

/* Thread-local C statuses for count entries, filled after the call by st_f_statuses_f2c;
 * MPI_STATUSES_IGNORE when f_statuses (the argument passed on) is ignored or out of memory. */
MPI_Status *st_f_cstatuses(const void *f_statuses, int count);
/* f_statuses[0..count) converted into c (nothing when either is ignored). */
void st_f_statuses_f2c(const MPI_Fint *f_statuses, MPI_Status *c, int count);

/* The count Fortran request handles as C handles in thread-local scratch (NULL when out of memory:
 * the entry point then makes the call with the generic shape). */
MPI_Request *st_f_requests(const MPI_Fint *f_requests, int count);

/* The outcount Fortran indices as 0-based C indices in thread-local scratch
 * (MPI_UNDEFINED or a negative outcount: none). */
int *st_f_indices(const MPI_Fint *f_indices, int outcount);

/* The base of the request indices the Fortran entries return: 1, as the standard says, except in
 * MPICH before 4.1, whose mpi_f08 bindings (the only MPICH ones here) return C's 0-based indices
 * from MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME and MPI_TESTSOME (fixed in MPICH 4.1): the entries
 * read an index as the library writes it, so they record the request it completed. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define ST_F_INDEX_BASE 0
#else
#define ST_F_INDEX_BASE 1
#endif

/* A Fortran index as a C index (MPI_UNDEFINED stays). */
static inline int st_f_index(MPI_Fint f) { return f == MPI_UNDEFINED ? MPI_UNDEFINED : (int)f - ST_F_INDEX_BASE; }

/* A Fortran entry point whose MPI library's entry could not be found: says so once and sets
 * *ierr (if given) to MPI_ERR_INTERN. */
void st_f_missing(const char *name, MPI_Fint *ierr);

#endif
