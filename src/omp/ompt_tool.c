/*
 * ompt_tool.c — the OMPT entry point: ompt_start_tool, callback registration, finalize.
 *
 * An LLVM libomp looks up ompt_start_tool in the process when it initializes; the
 * preloaded libsynctrace.so provides it, so clang-built programs and gcc-built ones
 * run on LLVM's GOMP-compatible libgomp.so.1 (synctrace-run arranges that) are traced
 * without changes. gcc's own libgomp has no OMPT: its programs' OpenMP is not seen.
 *
 * The runtime may call ompt_start_tool before or after the library's constructor
 * has loaded the configuration, so nothing here depends on that order: the tool is
 * activated unless the configuration is known to disable it, and the callbacks record
 * only while st_record_active is set.
 */
#include "omp.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>
#include "omp_int.h"

#include "../config/config.h"
#include "../util/log.h"

typedef struct cb_desc {
    ompt_callbacks_t event;
    ompt_callback_t fn;
    const char *name;
    const char *lost; /* what is missing from the trace without it */
} cb_desc_t;

#define CB(ev, fn, lost) { ompt_callback_##ev, (ompt_callback_t)(fn), #ev, lost }
static const cb_desc_t callbacks[] = {
    CB(thread_begin, st_omp_cb_thread_begin, "nothing (but hidden-helper teams are no longer recognized)"),
    CB(thread_end, st_omp_cb_thread_end, "nothing"),
    CB(parallel_begin, st_omp_cb_parallel_begin, "parallel regions (fork/join, teams)"),
    CB(parallel_end, st_omp_cb_parallel_end, "the joins of parallel regions"),
    CB(implicit_task, st_omp_cb_implicit_task, "thread teams and parallel regions"),
    CB(work, st_omp_cb_work, "worksharing regions (loop, sections, single, workshare, distribute, taskloop)"),
    CB(masked, st_omp_cb_masked, "masked/master regions"),
    CB(sync_region, st_omp_cb_sync_region, "barriers, taskwait, taskgroup and reduction regions"),
    CB(reduction, st_omp_cb_sync_region, "reduction regions"),
    CB(mutex_acquire, st_omp_cb_mutex_acquire, "nothing (lock waits start at the acquisition)"),
    CB(mutex_acquired, st_omp_cb_mutex_acquired, "lock, critical and ordered acquisitions"),
    CB(mutex_released, st_omp_cb_mutex_released, "lock, critical and ordered releases"),
    CB(nest_lock, st_omp_cb_nest_lock, "nested nest-lock acquisitions and releases"),
    CB(lock_init, st_omp_cb_lock_init, "nothing"),
    CB(lock_destroy, st_omp_cb_lock_destroy, "nothing"),
    CB(task_create, st_omp_cb_task_create, "task creation"),
    CB(task_schedule, st_omp_cb_task_schedule, "task switches and completions"),
    CB(dependences, st_omp_cb_dependences, "the number of task dependences"),
};
#undef CB

/* The library constructor has loaded the configuration (it may run after ompt_start_tool). */
static int config_loaded(void)
{
    return st_config_loaded;
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    (void)initial_device_num;
    (void)tool_data;
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_callback) {
        st_log_warn("the OpenMP runtime offers no ompt_set_callback; OpenMP is not traced");
        return 0;
    }
    st_omp_callsite = config_loaded() && st_config.callsite;
    for (size_t i = 0; i < sizeof callbacks / sizeof callbacks[0]; i++) {
        ompt_set_result_t rc = set_callback(callbacks[i].event, callbacks[i].fn);
        if (callbacks[i].event == ompt_callback_thread_begin)
            st_omp_began_known = rc >= ompt_set_sometimes;
        if (rc < ompt_set_sometimes) /* error, never, impossible */
            st_log_info("the OpenMP runtime does not offer the OMPT %s callback (result %d); missing from the "
                        "trace: %s", callbacks[i].name, (int)rc, callbacks[i].lost);
    }
    st_omp_on = 1;
    return 1; /* keep the tool active */
}

static void tool_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    st_omp_finalize(); /* normally done already by the shim's end path */
}

/*
 * OMPT entry point, called once by the OpenMP runtime at its initialization.
 * Returns the tool's initializer, or NULL (tool not activated) when SYNCTRACE_ENABLE=0
 * or SYNCTRACE_OMP=0. Exported with default visibility: the runtime finds it by name.
 */
__attribute__((visibility("default"))) ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                                                 const char *runtime_version)
{
    static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
    if (config_loaded() && (!st_config.enable || !st_config.omp))
        return NULL;
    st_log_debug("OMPT tool activated by %s (OpenMP %u)", runtime_version ? runtime_version : "?", omp_version);
    return &result;
}

/* GNU libgomp exports the GOMP_* entry points but not LLVM's __kmpc_* ones (LLVM's libomp, and the
 * libgomp.so.1 stand-in that is LLVM's, has both). */
static int gnu_runtime(void *scope) { return dlsym(scope, "GOMP_parallel") && !dlsym(scope, "__kmpc_fork_call"); }

/* A loaded object named libgomp.so* that is GNU's: also one loaded with RTLD_LOCAL (a Python extension
 * module's dependencies), which the global scope does not show. */
static int gnu_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    if (!base || strncmp(base, "libgomp.so", 10) != 0)
        return 0;
    void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD); /* the object already loaded, not a new one */
    int gnu = h && gnu_runtime(h);
    if (h)
        dlclose(h);
    return gnu;
}

/* NULL, or st_omp_runtime_notice's line (late: for a runtime loaded while the program ran). */
static const char *runtime_problem(int late)
{
    if (!gnu_runtime(RTLD_DEFAULT) && !dl_iterate_phdr(gnu_loaded, NULL))
        return NULL;
    return late ? "this program loaded gcc's libgomp while it ran (as Python's numpy does through OpenBLAS), which "
                  "has no OMPT interface: its OpenMP regions were not recorded; trace it with synctrace-run --gomp, "
                  "which puts LLVM's GOMP-compatible runtime in its place"
                : "this program runs on gcc's libgomp, which has no OMPT interface: OpenMP events are not recorded "
                  "(MPI still is); trace it with synctrace-run, which runs it on LLVM's GOMP-compatible runtime";
}

void st_omp_runtime_notice(int at_end, int say)
{
    static int noticed; /* at load, or at the end: once */
    if (noticed)
        return;
    const char *problem = runtime_problem(at_end);
    noticed = problem != NULL || at_end;
    if (problem && say)
        st_log_warn("%s", problem);
}
