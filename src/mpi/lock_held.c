/*
 * lock_held.c — whether MPI_Win_lock returns holding the lock, for the process and for one window
 * (lock_held.h).
 *
 * Open MPI keeps a window's one-sided module in its window object (struct ompi_win_t's w_osc_module),
 * and the module's functions live in the component's own shared object (mca_osc_rdma.so, ...) or, in
 * a build with the components inside libmpi, carry its name (ompi_osc_rdma_...). Open MPI's packages
 * install the headers that say where these fields are; where this build found them and the library
 * at run time is the version they came with, the module's MPI_Win_lock function is read from the
 * window and dladdr names its component. The two reads go through process_vm_readv, which fails
 * instead of faulting: a layout that is not the one expected gives "cannot tell", never a crash.
 */
#include "lock_held.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../util/log.h"

#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<ompi/win/win.h>) && __has_include(<ompi/mca/osc/osc.h>)
#include <ompi/win/win.h> /* first: it brings the configuration the module header needs */

#include <ompi/mca/osc/osc.h>
#define ST_OSC_LAYOUT 1
#endif
#endif

enum { HELD_NONE, HELD_ALL, HELD_PER_WINDOW };
static int held_kind = -1;    /* the process's, once asked (at MPI_Init, before any window) */
static int layout_usable = 0; /* Open MPI: its windows can be read (the headers' version runs) */

/* Open MPI's rule where the window cannot be read: what OMPI_MCA_osc allows. Unset, Open MPI's choice
 * (rdma, ucx or sm wherever it was seen); a list that names pt2pt, or excludes others only, may leave
 * pt2pt in: no tickets. */
static int osc_env_allows_tickets(void)
{
    const char *osc = getenv("OMPI_MCA_osc");
    return !osc || !osc[0] || (osc[0] == '^') == (strstr(osc, "pt2pt") != NULL);
}

#ifdef ST_OSC_LAYOUT
/* Whether the running library is the release whose headers this build read. */
static int same_release(const char *version)
{
    char want[64];
    snprintf(want, sizeof want, "Open MPI v%d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION);
    size_t n = strlen(want);
    return strncmp(version, want, n) == 0 && (version[n] < '0' || version[n] > '9');
}

/* *out = the pointer at address at, read so that a bad address fails instead of faulting. */
static int read_pointer(const void *at, void **out)
{
    struct iovec local = { out, sizeof *out }, remote = { (void *)(uintptr_t)at, sizeof *out };
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof *out ? 0 : -1;
}
#endif

int st_lock_held_somewhere(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    held_kind = HELD_NONE;
    if (PMPI_Get_library_version(v, &n) != MPI_SUCCESS)
        return 0;
    const char *d = strstr(v, "MPICH Device:");
    if (d) {
        d += strlen("MPICH Device:");
        d += strspn(d, " \t");
        held_kind = strncmp(d, "ch4", 3) == 0 ? HELD_ALL : HELD_NONE;
    } else if (strstr(v, "Open MPI")) {
#ifdef ST_OSC_LAYOUT
        layout_usable = same_release(v);
#endif
        held_kind = layout_usable || osc_env_allows_tickets() ? HELD_PER_WINDOW : HELD_NONE;
    }
    return held_kind != HELD_NONE;
}

int st_lock_osc_component(MPI_Win win, char *name, size_t len)
{
#ifdef ST_OSC_LAYOUT
    void *module = NULL, *lock_fn = NULL;
    Dl_info di;
    if (!layout_usable || win == MPI_WIN_NULL || len == 0 ||
        read_pointer((const char *)win + offsetof(struct ompi_win_t, w_osc_module), &module) != 0 || !module ||
        read_pointer((const char *)module + offsetof(ompi_osc_base_module_t, osc_lock), &lock_fn) != 0 ||
        !lock_fn || !dladdr(lock_fn, &di))
        return -1;
    const char *file = di.dli_fname ? strrchr(di.dli_fname, '/') : NULL;
    file = file ? file + 1 : di.dli_fname;
    const char *from = NULL;
    size_t k = 0;
    if (file && strncmp(file, "mca_osc_", 8) == 0) { /* mca_osc_<name>.so */
        from = file + 8;
        k = strcspn(from, ".");
    } else if (di.dli_sname && strncmp(di.dli_sname, "ompi_osc_", 9) == 0) { /* ompi_osc_<name>_... */
        from = di.dli_sname + 9;
        k = strcspn(from, "_");
    }
    if (!from || k == 0 || k >= len)
        return -1;
    memcpy(name, from, k);
    name[k] = 0;
    return 0;
#else
    (void)win, (void)name, (void)len;
    return -1;
#endif
}

int st_lock_held_by(MPI_Win win)
{
    if (held_kind != HELD_PER_WINDOW)
        return held_kind == HELD_ALL;
    char c[32];
    if (st_lock_osc_component(win, c, sizeof c) != 0)
        return osc_env_allows_tickets();
    if (strcmp(c, "rdma") == 0 || strcmp(c, "ucx") == 0 || strcmp(c, "sm") == 0)
        return 1;
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        st_log_info("an RMA window on Open MPI's osc %s, whose MPI_Win_lock is not known to return holding the lock: "
                    "its lock epochs take no lock tickets and are ordered by the times", c);
    return 0;
}
