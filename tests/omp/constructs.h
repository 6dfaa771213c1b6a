/*
 * constructs.h — the OpenMP constructs every OpenMP test program runs, and the exact
 * events synctrace must record for them.
 *
 * st_constructs_run() executes a fixed sequence of phases, each in its own parallel
 * region of T threads (parallel for static and dynamic, explicit barriers, single,
 * sections, critical and named critical, locks / nest locks / test locks, tasks with
 * taskwait and taskgroup, ordered, a nested parallel region, and optionally a phase
 * the caller supplies, e.g. MPI calls from every thread).
 *
 * st_constructs_expect() gives the events per location role:
 *   master  the thread that forks the outermost regions (thread 0)
 *   worker  each of the T-1 other threads of the outermost teams (all alike)
 *   nested  each of the T threads that only ever run in the nested inner teams
 *   all     totals over every location (task events, whose thread is not fixed)
 * Counts depend on the compiler: clang calls the runtime for every construct; gcc
 * (GOMP entry points on LLVM's libgomp.so.1) inlines static loops and the master
 * construct, reports its barriers as "implementation" barriers (recorded as
 * "!$omp barrier"), reports sections as a loop and gives single no end.
 */
#ifndef ST_TEST_CONSTRUCTS_H
#define ST_TEST_CONSTRUCTS_H

#include <stdio.h>

enum { ROLE_MASTER, ROLE_WORKER, ROLE_NESTED, ROLE_ALL, ROLE__N };

#define ST_X_KEYS(X)                                                  \
    X(FORK, "omp_fork") X(JOIN, "omp_join")                           \
    X(TBEGIN, "omp_team_begin") X(TEND, "omp_team_end")               \
    X(ACQ, "omp_acquire") X(REL, "omp_release")                       \
    X(TCREATE, "omp_task_create") X(TSWITCH, "omp_task_switch")       \
    X(TCOMPLETE, "omp_task_complete")                                 \
    X(PARALLEL, "enter:!$omp parallel") X(BARRIER, "enter:!$omp barrier") \
    X(IBARRIER, "enter:!$omp implicit barrier") X(LOOP, "enter:!$omp for") \
    X(SECTIONS, "enter:!$omp sections") X(SINGLE, "enter:!$omp single") \
    X(MASKED, "enter:!$omp masked") X(CRITICAL, "enter:!$omp critical") \
    X(CRITICAL_SB, "enter:!$omp critical sblock")                     \
    X(ORDERED, "enter:!$omp ordered") X(ORDERED_SB, "enter:!$omp ordered sblock") \
    X(SET_LOCK, "enter:omp_set_lock") X(UNSET_LOCK, "enter:omp_unset_lock") \
    X(SET_NEST, "enter:omp_set_nest_lock") X(UNSET_NEST, "enter:omp_unset_nest_lock") \
    X(TASK, "enter:!$omp task") X(TASK_CREATE, "enter:!$omp create task") \
    X(TASKWAIT, "enter:!$omp taskwait") X(TASKGROUP, "enter:!$omp taskgroup")

enum {
#define X(id, name) X_##id,
    ST_X_KEYS(X)
#undef X
    X__N
};

extern const char *const st_x_names[X__N];
extern const char *const st_role_names[ROLE__N];

#define ST_CONSTRUCTS_ITERS 3 /* lock / critical rounds per thread */
#define ST_CONSTRUCTS_TASKS 4 /* tasks per task phase */

/* Runs all phases with teams of t threads; extra(tid), if not NULL, runs in one more
 * parallel region on every thread. Returns a checksum of the computation. */
double st_constructs_run(int t, void (*extra)(int tid));

/* Expected counts: x[role][key], -1 where the role's count is not fixed. */
void st_constructs_expect(int t, int with_extra, long x[ROLE__N][X__N]);

/* Prints the expectations as lines "EXPECT <role>\t<key>\t<count>" (fixed counts only). */
void st_constructs_print_expect(FILE *out, int t, int with_extra);

#endif
