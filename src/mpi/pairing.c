/*
 * pairing.c — the library of one MPI family in a program of the other: one line, then the program
 * runs untraced (pairing.h).
 *
 * Why re-execute. Passing the calls through is not an option: the preloaded library's MPI_* wrappers
 * come first in the global symbol scope and are compiled with the other family's prototypes (an
 * Open MPI handle is a pointer, an MPICH handle a 32-bit int), so even a wrapper that only forwards
 * truncates the program's handles. Nor can the library take itself out of a running process: its
 * symbols are bound. A new image of the same program (execve of /proc/self/exe with the same argv and
 * environment) whose LD_PRELOAD lacks this library is the program as it runs untraced: same stdout,
 * same exit status, the launcher sees the same process (exec keeps the pid, the PMI/PMIx environment
 * and the descriptors). Refused at load, nothing of the program has run yet.
 *
 * How the pairing is known. The library is linked to its own family's MPI library, so that one is
 * always loaded; the pairing is wrong when the OTHER family's MPI library is loaded too. Each family
 * is recognised by the function its mpi.h names MPI_DUP_FN (MPICH and MPICH-ABI libraries: MPIR_Dup_fn;
 * Open MPI: OMPI_C_MPI_DUP_FN), a function because a data symbol the program uses (ompi_mpi_comm_world)
 * has a copy in the executable: looked up in the global scope (everything loaded at start), then in
 * each loaded object named libmpi* (the C libraries libmpi.so.N / libmpich.so.N and their language
 * bindings; an interpreter's module may have loaded them with RTLD_LOCAL).
 * Launchers (mpirun/orterun/orted link libopen-rte, not libmpi; hydra links no MPI), shells, and
 * programs without MPI hold no library of the other family: the check is silent there, and an
 * OpenMP-only program is traced as before. The check runs even with SYNCTRACE_ENABLE=0: the wrappers
 * of the wrong family break the program whether they record or not.
 *
 * Interpreters. python3 with mpi4py (or any program that dlopens its MPI) loads the other family's
 * library after start, so the check at load sees nothing; the first MPI call the wrong wrappers can
 * not pass through safely is MPI_Init (mpi4py's earlier MPI_Initialized / MPI_Get_version take only
 * int pointers). There the check runs again (st_pairing_at_init) and refuses the same way, before
 * PMPI_Init: the program restarts untraced from its beginning. What it did before MPI_Init (with
 * mpi4py: normally its imports) runs twice; output it had buffered is dropped by the exec and written
 * again by the new image, so the tool flushes nothing; output already written (a terminal, an
 * explicit flush) appears twice. The alternative, stopping the job at MPI_Init, would lose the run.
 *
 * No loop and no marker: the re-executed process is started without this library; when the library
 * is not in LD_PRELOAD (/etc/ld.so.preload, linked into the program, dlopened), re-executing would
 * load it again, so the process stops instead with exit status 2, as when execve fails. Either way
 * the refusal comes before the archive directory, spill files or handlers could leave a trace: no
 * partial dump, no archive.
 */
#include "pairing.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/log.h"

#ifndef ST_MPI_FAMILY /* the family this library is built for: the Makefile's -DST_MPI_FAMILY='"F"' */
#error "ST_MPI_FAMILY is not defined (build with make)"
#endif

typedef struct family {
    const char *name;   /* as in lib/<name>/libsynctrace.so and the Makefile's MPI_FAMILIES */
    const char *title;  /* for people */
    const char *dup_fn; /* the function mpi.h's MPI_DUP_FN names: a library defining it is this family's */
} family_t;

static const family_t families[2] = {
    { "mpich", "MPICH", "MPIR_Dup_fn" },
    { "openmpi", "Open MPI", "OMPI_C_MPI_DUP_FN" },
};

static char **saved_argv; /* the program's argv at load, for the re-execution */

extern char **environ;

static const family_t *own_family(void)
{
    return strcmp(ST_MPI_FAMILY, families[0].name) == 0 ? &families[0] : &families[1];
}

static const family_t *other_family(void)
{
    return own_family() == &families[0] ? &families[1] : &families[0];
}

/* dl_iterate_phdr: the loaded objects named libmpi* (no dlopen under its lock: collected first). */
#define MAX_MPI_OBJECTS 32
typedef struct mpi_objects { const char *name[MAX_MPI_OBJECTS]; int n; } mpi_objects_t;

static int collect_mpi_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    mpi_objects_t *o = arg;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (base && strncmp(base, "libmpi", 6) == 0 && o->n < MAX_MPI_OBJECTS)
        o->name[o->n++] = info->dlpi_name; /* link-map strings live as long as the object */
    return 0;
}

/* Where the other family's MPI library is: its path in out, 1; 0 when it is not loaded. */
static int other_mpi_loaded(char *out, size_t outlen)
{
    const char *fn = other_family()->dup_fn;
    void *sym = dlsym(RTLD_DEFAULT, fn);
    if (!sym) {
        mpi_objects_t o = { .n = 0 };
        dl_iterate_phdr(collect_mpi_object, &o);
        for (int i = 0; i < o.n && !sym; i++) {
            void *h = dlopen(o.name[i], RTLD_NOLOAD | RTLD_LAZY);
            if (h) {
                sym = dlsym(h, fn);
                dlclose(h);
            }
        }
    }
    if (!sym)
        return 0;
    Dl_info di;
    const char *path = dladdr(sym, &di) && di.dli_fname && *di.dli_fname ? di.dli_fname : "its MPI library";
    snprintf(out, outlen, "%s", path);
    return 1;
}

/* This library as loaded (dli_fname) and its real path. */
static void own_paths(char *loaded, size_t loadedlen, char *real)
{
    Dl_info di;
    const char *name = dladdr((void *)st_pairing_at_load, &di) && di.dli_fname ? di.dli_fname : "";
    snprintf(loaded, loadedlen, "%s", name);
    if (!realpath(name, real))
        snprintf(real, PATH_MAX, "%s", name);
}

/*
 * The library to use instead: lib/<other>/libsynctrace.so next to this one's family directory
 * (lib/<own>/libsynctrace.so, reached also through the lib/libsynctrace.so link), when it exists.
 */
static void other_library(const char *real, char *out, size_t outlen)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", real);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    const char *base = strrchr(dir, '/');
    if (base && strcmp(base + 1, own_family()->name) == 0)
        dir[base - dir] = 0; /* lib/<own> -> lib */
    snprintf(out, outlen, "%s/%s/libsynctrace.so", dir, other_family()->name);
    if (access(out, R_OK) != 0)
        snprintf(out, outlen, "the %s build (lib/%s/libsynctrace.so)", other_family()->title, other_family()->name);
}

/*
 * A copy of the environment whose LD_PRELOAD lacks every entry naming this library (self: its
 * dlopen handle; an entry names it when dlopen(entry, RTLD_NOLOAD) finds the same object, which
 * covers symlinks and bare names), without LD_PRELOAD when nothing else is left. NULL when no entry
 * named it (re-executing would load it again) or out of memory.
 */
static char **environment_without(void *self)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    int dropped = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) {
            env[k++] = environ[i];
            continue;
        }
        const char *value = environ[i] + 11;
        size_t vlen = strlen(value);
        char *kept = malloc(11 + vlen + 1), *copy = strdup(value);
        if (!kept || !copy) {
            free(kept), free(copy), free(env);
            return NULL;
        }
        size_t pos = (size_t)snprintf(kept, 12, "LD_PRELOAD=");
        char *save = NULL;
        for (char *e = strtok_r(copy, ": \t", &save); e; e = strtok_r(NULL, ": \t", &save)) {
            void *h = dlopen(e, RTLD_NOLOAD | RTLD_LAZY);
            if (h)
                dlclose(h);
            if (h && h == self) {
                dropped = 1;
                continue;
            }
            pos += (size_t)sprintf(kept + pos, "%s%s", pos > 11 ? ":" : "", e);
        }
        free(copy);
        if (pos > 11)
            env[k++] = kept;
        else
            free(kept);
    }
    env[k] = NULL;
    if (!dropped) {
        free(env);
        return NULL;
    }
    return env;
}

/* The pairing is wrong: one line, then the program untraced (re-executed) or, when that cannot be, exit 2. */
static void refuse(const char *program_mpi, int late)
{
    char loaded[PATH_MAX], real[PATH_MAX], use[PATH_MAX + 64];
    own_paths(loaded, sizeof loaded, real);
    other_library(real, use, sizeof use);
    int speak = st_config_launcher_rank() <= 0; /* one line for the whole job, not one per rank */
    const char *prog = saved_argv && saved_argv[0] ? saved_argv[0] : "this program";
    void *self = dlopen(loaded, RTLD_NOLOAD | RTLD_LAZY);
    if (self)
        dlclose(self); /* the handle stays valid: the object is loaded (it runs this code) */
    char **env = self && saved_argv ? environment_without(self) : NULL;
    const char *what = env ? (late ? "restarting it untraced" : "running it untraced")
                           : "it cannot run untraced with this library loaded (not from LD_PRELOAD); stopping";
    if (speak)
        st_log_error("%s uses %s (%s) but %s is the %s build of synctrace: preload %s instead, or start it "
                     "with synctrace-run, which chooses the build; %s",
                     prog, other_family()->title, program_mpi, loaded, own_family()->title, use, what);
    if (env) {
        execve("/proc/self/exe", saved_argv, env);
        if (speak)
            st_log_error("cannot re-execute %s untraced (%s); stopping", prog, st_errno_text(errno));
    }
    _exit(2);
}

void st_pairing_at_load(char **argv)
{
    saved_argv = argv;
    char program_mpi[PATH_MAX];
    if (other_mpi_loaded(program_mpi, sizeof program_mpi))
        refuse(program_mpi, 0);
}

void st_pairing_at_init(void)
{
    char program_mpi[PATH_MAX];
    if (other_mpi_loaded(program_mpi, sizeof program_mpi))
        refuse(program_mpi, 1);
}
