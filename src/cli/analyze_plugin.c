/*
 * analyze_plugin.c — `mpiexec -n N synctrace analyze` without MPI in bin/synctrace: the MPI part
 * of the parallel analysis (analyze_mpi.c and the MPI code it calls) is a plugin per MPI family,
 * lib/<family>/synctrace-analyze-mpi.so beside the family's libsynctrace.so, loaded here only when
 * the command runs under a launcher; the launcher's environment says which family
 * (st_config_launcher_family). Everything else stays MPI-free and never loads an MPI library.
 *
 * The plugin holds only the files that call MPI; the rest of the analysis (archive reading, rank
 * data, the parallel engine, the report) it takes from this executable, which exports its st_*
 * functions for that (the Makefile links it with --export-dynamic-symbol). Rather than a
 * self-contained plugin with its own copy of the CLI's analysis objects: one copy of the code and
 * of its state (the log's settings, the archive in memory, the report writer), a plugin of a few
 * files, and the report the parallel run writes is the serial command's by construction. The price
 * is that a plugin fits the executable it was built with, which `make` and `make install` keep
 * together; a stale one fails to load (RTLD_NOW: a missing function is named) rather than crash.
 */
#include "cli.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../config/config.h"
#include "analyze.h"

/* The file name the Makefile gives every family's plugin (it passes the same name here). */
#ifndef ST_CLI_MPI_PLUGIN
#error "ST_CLI_MPI_PLUGIN (the plugin's file name) comes from the Makefile"
#endif

/* The families a plugin may exist for, the default first (the one lib/libsynctrace.so is). */
static const struct family {
    const char *name, *shown, *compiler, *launcher;
} families[] = {
    { "mpich", "MPICH", "mpicc.mpich", "mpiexec.mpich" },
    { "openmpi", "Open MPI", "mpicc.openmpi", "mpirun.openmpi" },
};
#define NFAMILIES (sizeof families / sizeof families[0])

/* Only the job's first process speaks: every process fails alike, one line is enough. */
#define SAY(...)                                                                                                      \
    do {                                                                                                              \
        if (st_config_launcher_rank() <= 0)                                                                           \
            fprintf(stderr, __VA_ARGS__);                                                                             \
    } while (0)

/* path = the plugin of family f beside this executable (PREFIX/bin/synctrace: PREFIX/lib/<f>/); 0, or
 * -1 if too long or the executable cannot be found. */
static int plugin_path(const struct family *f, char *path, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    for (int up = 0; up < 2; up++) { /* PREFIX/bin/synctrace -> PREFIX */
        char *slash = strrchr(self, '/');
        if (!slash)
            return -1;
        *slash = 0;
    }
    int w = snprintf(path, len, "%s/lib/%s/%s", self, f->name, ST_CLI_MPI_PLUGIN);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

static int plugin_built(const struct family *f)
{
    char path[PATH_MAX + 64];
    return plugin_path(f, path, sizeof path) == 0 && access(path, R_OK) == 0;
}

static const struct family *family_named(const char *name)
{
    for (size_t i = 0; name && i < NFAMILIES; i++)
        if (!strcmp(families[i].name, name))
            return &families[i];
    return NULL;
}

/* The family whose plugin runs this job: the launcher's; for a launcher that names none (a PMIx one),
 * the first family built. NULL after one line when there is none. */
static const struct family *choose_family(void)
{
    const struct family *f = family_named(st_config_launcher_family());
    if (f && plugin_built(f))
        return f;
    const struct family *other = NULL;
    for (size_t i = 0; !other && i < NFAMILIES; i++)
        if (&families[i] != f && plugin_built(&families[i]))
            other = &families[i];
    if (!f && other)
        return other;
    char path[PATH_MAX + 64] = "";
    if (f && plugin_path(f, path, sizeof path) == 0 && other)
        SAY("synctrace: analyze: started by %s's launcher, but the %s part of the parallel analysis (%s) is not "
            "built: run `make` where %s is installed, or launch with %s\n",
            f->shown, f->shown, path, f->compiler, other->launcher);
    else if (f)
        SAY("synctrace: analyze: started by %s's launcher, but the %s part of the parallel analysis (%s) is not "
            "built: run `make` where %s is installed, or run `synctrace analyze` without a launcher\n",
            f->shown, f->shown, path[0] ? path : ST_CLI_MPI_PLUGIN, f->compiler);
    else
        SAY("synctrace: analyze: started by an MPI launcher, but no MPI part of the parallel analysis "
            "(lib/<mpich|openmpi>/%s) is built beside synctrace: run `make` where mpicc.mpich or mpicc.openmpi "
            "is installed, or run `synctrace analyze` without a launcher\n",
            ST_CLI_MPI_PLUGIN);
    return NULL;
}

/* The job's failure, said by its rank 0 (SAY): the others leave after it (config.h). */
static int job_failed(void)
{
    st_config_job_error_wait();
    return 1;
}

int st_cli_analyze_parallel(const char *dir, const char *out)
{
    const struct family *f = choose_family();
    char path[PATH_MAX + 64];
    if (!f || plugin_path(f, path, sizeof path))
        return job_failed();
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        SAY("synctrace: analyze: cannot load the %s part of the parallel analysis: %s\n", f->shown, dlerror());
        return job_failed();
    }
    st_cli_analyze_mpi_fn *run = (st_cli_analyze_mpi_fn *)dlsym(h, "st_cli_analyze_mpi");
    if (!run) {
        SAY("synctrace: analyze: %s is no synctrace plugin (no st_cli_analyze_mpi): rebuild synctrace\n", path);
        dlclose(h);
        return job_failed();
    }
    /* not closed: MPI_Finalize has run, and the MPI library's exit handlers may still need it */
    return run(dir, out);
}
