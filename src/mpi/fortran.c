/*
 * fortran.c — the Fortran calls that bypass the C wrappers (all of Open MPI's; MPICH's `use
 * mpi_f08` ones without a choice buffer): the argument conversions of the generated entry points
 * (fortran.h) and the hand-written ones of the lifecycle: MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE
 * and MPI_ABORT start, finish and abort the tool exactly as the C entry points do (init.c,
 * finalize.c, ends.c), around the MPI library's own Fortran entries (Open MPI: its profiling
 * entries pmpi_x_ / pmpi_x_f08_; MPICH, which has no pmpi_x_f08_: its mpi_x_f08_ itself).
 *
 * Open MPI's mpi.h defines OPEN_MPI, MPICH's MPICH_VERSION; MPICH's mpif.h and `use mpi` layers
 * call the C MPI_* functions, which the C wrappers already record: no entry points for those.
 */
#include <mpi.h>

#if defined(OPEN_MPI) || defined(MPICH_VERSION)

#include "fortran.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "../util/log.h"
#include "lifecycle_int.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as C int arrays");

void *st_f_next(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        if (f)
            __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}

#if defined(OPEN_MPI)

/* Open MPI's Fortran sentinels: common blocks that mpif.h, `use mpi` and `use mpi_f08` programs
 * define (gfortran's names); weak, as a C program has none. */
extern MPI_Fint mpi_fortran_in_place_ __attribute__((weak));
extern MPI_Fint mpi_fortran_bottom_ __attribute__((weak));
extern MPI_Fint mpi_fortran_status_ignore_ __attribute__((weak));
extern MPI_Fint mpi_fortran_statuses_ignore_ __attribute__((weak));

void *st_f_buf(void *f_buf)
{
    if (f_buf && f_buf == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (f_buf && f_buf == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return f_buf;
}

int st_f_status_ignore(const MPI_Fint *f_status)
{
    return !f_status || f_status == &mpi_fortran_status_ignore_ || f_status == MPI_F_STATUS_IGNORE;
}

int st_f_statuses_ignore(const MPI_Fint *f_statuses)
{
    return !f_statuses || f_statuses == &mpi_fortran_statuses_ignore_ || f_statuses == MPI_F_STATUSES_IGNORE;
}

#else /* MPICH */

/* MPICH's mpi_f08 statuses have the C layout, so PMPI_Status_f2c (a copy) reads them. */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status) &&
                   offsetof(MPI_F08_status, MPI_SOURCE) == offsetof(MPI_Status, MPI_SOURCE) &&
                   offsetof(MPI_F08_status, MPI_TAG) == offsetof(MPI_Status, MPI_TAG) &&
                   offsetof(MPI_F08_status, MPI_ERROR) == offsetof(MPI_Status, MPI_ERROR),
               "MPICH's mpi_f08 status is its C status");

/* MPICH's mpi_f08 MPI_STATUS(ES)_IGNORE are the objects its mpi.h names (libmpich defines them,
 * a program using them has its copy, which every reference then names). */
int st_f_status_ignore(const MPI_Fint *f_status)
{
    return !f_status || f_status == (const MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ ||
           f_status == (const MPI_Fint *)MPI_F08_STATUS_IGNORE || f_status == MPI_F_STATUS_IGNORE;
}

int st_f_statuses_ignore(const MPI_Fint *f_statuses)
{
    return !f_statuses || f_statuses == (const MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ ||
           f_statuses == (const MPI_Fint *)MPI_F08_STATUSES_IGNORE || f_statuses == MPI_F_STATUSES_IGNORE;
}

#endif

/* ---- thread-local scratch ------------------------------------------------------------- */

static __thread MPI_Fint *fstat;
static __thread MPI_Status *cstat;
static __thread MPI_Request *creq;
static __thread int *cidx;
static __thread int cap[4];

void *st_f_statuses_arg(void *f_statuses, int count)
{
    if (!st_f_statuses_ignore(f_statuses))
        return f_statuses;
    MPI_Fint *p = st_mpi_grow(fstat, &cap[0], (count > 0 ? count : 1) * ST_F_STATUS_SIZE, sizeof *p);
    return p ? (fstat = p) : f_statuses;
}

MPI_Status *st_f_cstatuses(const void *f_statuses, int count)
{
    if (st_f_statuses_ignore(f_statuses))
        return MPI_STATUSES_IGNORE;
    MPI_Status *p = st_mpi_grow(cstat, &cap[1], count > 0 ? count : 1, sizeof *p);
    return p ? (cstat = p) : MPI_STATUSES_IGNORE;
}

void st_f_statuses_f2c(const MPI_Fint *f_statuses, MPI_Status *c, int count)
{
    if (st_f_statuses_ignore(f_statuses) || !c || c == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < count; i++)
        PMPI_Status_f2c(f_statuses + (size_t)i * ST_F_STATUS_SIZE, &c[i]);
}

MPI_Request *st_f_requests(const MPI_Fint *f_requests, int count)
{
    MPI_Request *p = st_mpi_grow(creq, &cap[2], count > 0 ? count : 1, sizeof *p);
    if (!p)
        return NULL;
    creq = p;
    for (int i = 0; i < count; i++)
        p[i] = PMPI_Request_f2c(f_requests[i]);
    return p;
}

int *st_f_indices(const MPI_Fint *f_indices, int outcount)
{
    int n = outcount == MPI_UNDEFINED || outcount < 0 ? 0 : outcount;
    int *p = st_mpi_grow(cidx, &cap[3], n > 0 ? n : 1, sizeof *p);
    if (!p)
        return NULL;
    cidx = p;
    for (int i = 0; i < n; i++)
        p[i] = st_f_index(f_indices[i]);
    return p;
}

void st_f_missing(const char *name, MPI_Fint *ierr)
{
    st_log_error("%s: the MPI library's own Fortran entry for it is not loaded; the call is not made", name);
    if (ierr)
        *ierr = MPI_ERR_INTERN;
}

/* ---- the lifecycle's Fortran entry points --------------------------------------------- */

typedef void f_init_fn(MPI_Fint *);
typedef void f_init_thread_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void f_finalize_fn(MPI_Fint *);
typedef void f_abort_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* One Fortran initialization call: which entry, its arguments, and a local ierr for mpi_f08's optional one. */
typedef struct f_init {
    void (*init)(MPI_Fint *);
    void (*init_thread)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
    MPI_Fint *required, *provided, *ierr;
} f_init_t;

static int call_init(void *ctx)
{
    f_init_t *a = ctx;
    if (a->init_thread)
        a->init_thread(a->required, a->provided, a->ierr);
    else
        a->init(a->ierr);
    return (int)*a->ierr;
}

static void f_init(const char *name, void (*init)(MPI_Fint *), MPI_Fint *ierr)
{
    if (!init) {
        st_f_missing(name, ierr);
        return;
    }
    MPI_Fint local = MPI_SUCCESS;
    f_init_t a = { init, NULL, NULL, NULL, ierr ? ierr : &local };
    st_lc_init_call(0, call_init, &a, NULL);
}

static void f_init_thread(const char *name, void (*init_thread)(MPI_Fint *, MPI_Fint *, MPI_Fint *),
                          MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    if (!init_thread) {
        st_f_missing(name, ierr);
        return;
    }
    MPI_Fint local = MPI_SUCCESS;
    f_init_t a = { NULL, init_thread, required, provided, ierr ? ierr : &local };
    st_lc_init_call(1, call_init, &a, provided);
}

static void f_finalize(const char *name, void (*finalize)(MPI_Fint *), MPI_Fint *ierr)
{
    if (!finalize) {
        st_f_missing(name, ierr);
        return;
    }
    st_lc_finalize_tool();
    finalize(ierr);
}

static void f_abort(const char *name, void (*abort_)(MPI_Fint *, MPI_Fint *, MPI_Fint *), MPI_Fint *comm,
                    MPI_Fint *errorcode, MPI_Fint *ierr)
{
    if (!abort_) {
        st_f_missing(name, ierr);
        return;
    }
    st_lc_abort_tool();
    abort_(comm, errorcode, ierr);
}

#if defined(OPEN_MPI)
/* Open MPI's profiling entries (libmpi_mpifh, libmpi_usempif08); ierr may be NULL in mpi_f08. */
extern void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_f08_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_finalize_f08_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr) __attribute__((weak));

/* The names Open MPI exports for one mpif.h / `use mpi` entry point: mpi_x_ and its aliases. */
#define ST_F_ALIASES(fn)                                                                               \
    extern __typeof(fn##_) fn __attribute__((alias(#fn "_"), visibility("default")));                  \
    extern __typeof(fn##_) fn##__ __attribute__((alias(#fn "_"), visibility("default")))

ST_EXPORT void mpi_init_(MPI_Fint *ierr) { f_init("mpi_init_", pmpi_init_, ierr); }
ST_F_ALIASES(mpi_init);
extern __typeof(mpi_init_) MPI_INIT __attribute__((alias("mpi_init_"), visibility("default")));
ST_EXPORT void mpi_init_f08_(MPI_Fint *ierr) { f_init("mpi_init_f08_", pmpi_init_f08_, ierr); }

ST_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("mpi_init_thread_", pmpi_init_thread_, required, provided, ierr);
}
ST_F_ALIASES(mpi_init_thread);
extern __typeof(mpi_init_thread_) MPI_INIT_THREAD __attribute__((alias("mpi_init_thread_"), visibility("default")));
ST_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("mpi_init_thread_f08_", pmpi_init_thread_f08_, required, provided, ierr);
}

ST_EXPORT void mpi_finalize_(MPI_Fint *ierr) { f_finalize("mpi_finalize_", pmpi_finalize_, ierr); }
ST_F_ALIASES(mpi_finalize);
extern __typeof(mpi_finalize_) MPI_FINALIZE __attribute__((alias("mpi_finalize_"), visibility("default")));
ST_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr) { f_finalize("mpi_finalize_f08_", pmpi_finalize_f08_, ierr); }

ST_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("mpi_abort_", pmpi_abort_, comm, errorcode, ierr);
}
ST_F_ALIASES(mpi_abort);
extern __typeof(mpi_abort_) MPI_ABORT __attribute__((alias("mpi_abort_"), visibility("default")));
ST_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("mpi_abort_f08_", pmpi_abort_f08_, comm, errorcode, ierr);
}

#else /* MPICH: its own mpi_x_f08_, found on the first call */

static void *next_init, *next_init_thread, *next_finalize, *next_abort;

ST_EXPORT void mpi_init_f08_(MPI_Fint *ierr)
{
    f_init("mpi_init_f08_", (f_init_fn *)st_f_next(&next_init, "mpi_init_f08_"), ierr);
}

ST_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("mpi_init_thread_f08_", (f_init_thread_fn *)st_f_next(&next_init_thread, "mpi_init_thread_f08_"),
                  required, provided, ierr);
}

ST_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    f_finalize("mpi_finalize_f08_", (f_finalize_fn *)st_f_next(&next_finalize, "mpi_finalize_f08_"), ierr);
}

ST_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("mpi_abort_f08_", (f_abort_fn *)st_f_next(&next_abort, "mpi_abort_f08_"), comm, errorcode, ierr);
}

#endif /* MPICH */

#else
typedef int st_fortran_unused_t; /* another MPI: no Fortran entry points */
#endif
