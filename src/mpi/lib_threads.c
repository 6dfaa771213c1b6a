/*
 * lib_threads.c — MPI calls from threads of the MPI library's own (st_mpi.h: st_mpi_thread_first).
 *
 * The wrappers record the application's calls only. The calls an MPI library makes to its own MPI_*
 * functions inside an application's call (Open MPI's ROMIO component calls MPI_Type_size_x and
 * MPI_Status_set_elements_x inside MPI-IO) run on the application's thread and are skipped by the
 * thread's in_tool guard. A thread the library starts itself (an asynchronous progress thread) has no
 * such guard: were it to call MPI_* functions, its calls would appear as a thread of the application.
 * Neither MPICH 4.0 nor Open MPI 4.1 does so today (their progress threads call internal functions),
 * but the tool must not depend on it: the first MPI call of a thread that records nothing yet is
 * attributed by its caller's object; a thread whose first call comes from inside the MPI library
 * belongs to the library and records nothing, ever. Only a thread's first calls pay for the look-up.
 */
#include <dlfcn.h>
#include <string.h>

#include "st_mpi.h"

/* This thread's MPI calls come from the MPI library (decided at its first call). */
static __thread int library_thread __attribute__((tls_model("initial-exec")));

/*
 * Code at pc belongs to the MPI library: the object defining the PMPI_Init the program uses, or one of
 * Open MPI's run-time libraries and components (libopen-pal, libopen-rte, libmca_common_*, mca_*.so).
 * The language bindings (libmpi_mpifh, libmpi_usempif08, libmpichfort, libmpi_cxx, ...) are not: their
 * MPI_* calls are the application's.
 */
static int in_mpi_library(const void *pc)
{
    Dl_info at, mpi;
    if (!dladdr(pc, &at) || !at.dli_fname)
        return 0;
    if (dladdr((void *)PMPI_Init, &mpi) && mpi.dli_fbase == at.dli_fbase)
        return 1;
    const char *base = strrchr(at.dli_fname, '/');
    base = base ? base + 1 : at.dli_fname;
    return !strncmp(base, "mca_", 4) || !strncmp(base, "libmca_common_", 14) || !strncmp(base, "libopen-pal.", 12) ||
           !strncmp(base, "libopen-rte.", 12);
}

st_thread_t *st_mpi_thread_first(const void *caller)
{
    if (library_thread)
        return NULL;
    if (in_mpi_library(caller)) {
        library_thread = 1;
        return NULL;
    }
    return st_thread_register();
}
