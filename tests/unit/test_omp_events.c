/*
 * test_omp_events.c — the OMPT callbacks driven by a fake OpenMP runtime, thread by
 * thread in a fixed interleaving (no OpenMP compiler needed):
 *   - registration: a callback the runtime does not offer is reported once (verbose);
 *   - one clock read per callback: a team's begin and its ENTER parallel, the master's
 *     LEAVE parallel and team end share their instants;
 *   - a parallel region whose worker reports its barrier and team end late (as LLVM
 *     libomp does): recorded marked (ST_OMP_LATE_END), they get the master's times, before
 *     the join, once stamped as the trace's preparation does (model/late_ends.h); the
 *     worker keeps its location for the next region; the join names the region forked
 *     even when parallel_end gets another team's data;
 *   - a worker whose barrier end comes before its master's team end and whose team end
 *     after it: the team end gets that master's time, the barrier's LEAVE the master's LEAVE
 *     of that barrier, not the times of the worker's previous team;
 *   - st_omp_finalize() closes a worker whose late ends never arrived;
 *   - locks: failed test (nothing), set/unset with orders 1, 2, ...; nest lock nested
 *     acquisition without a second ACQUIRE; critical with its sblock; atomic ignored;
 *   - gcc's single without end is closed when the barrier begins;
 *   - tasks: ids, creation with dependences, start, completion, switch back;
 *   - a hidden-helper team (parallel_begin without thread_begin) records nothing and
 *     registers no location.
 */
/* link: src/omp/ompt_tool.c src/omp/omp_thread.c src/omp/omp_parallel.c src/omp/omp_mutex.c src/omp/omp_task.c src/record/record.c src/model/gaps.c src/util/mem.c src/record/spill.c src/model/event.c src/model/region.c src/clock/timer.c src/clock/tsc.c src/util/nodeid.c src/clock/tsc_points.c src/config/config.c src/util/archive_dir.c src/util/log.c src/record/unwind.c src/model/rankdata.c src/model/rankdata_dump.c src/model/callpath.c src/model/late_ends.c -lunwind */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "omp-tools.h"

#include "../../src/config/config.h"
#include "../../src/model/late_ends.h"
#include "../../src/omp/omp.h"
#include "../../src/record/record.h"
#include "../../src/util/log.h"
#include "check.h"

/* ---- fake runtime --------------------------------------------------------------------- */

static ompt_callback_t cb[64];

static ompt_set_result_t fake_set_callback(ompt_callbacks_t event, ompt_callback_t fn)
{
    if (event == ompt_callback_masked)
        return ompt_set_never; /* pretend this one is not offered */
    cb[event] = fn;
    return ompt_set_always;
}

static ompt_interface_fn_t fake_lookup(const char *name)
{
    return !strcmp(name, "ompt_set_callback") ? (ompt_interface_fn_t)fake_set_callback : NULL;
}

#define CALL(ev, ...) ((ompt_callback_##ev##_t)cb[ompt_callback_##ev])(__VA_ARGS__)
/* As the runtime: a callback the tool did not register is not called (sync_region_wait: none since it is not) */
#define CALL_AS(ev, type, ...) \
    (cb[ompt_callback_##ev] ? ((ompt_callback_##type##_t)cb[ompt_callback_##ev])(__VA_ARGS__) : (void)0)

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

/* ---- actors: one OS thread per OpenMP thread, running steps on demand ----------------------- */

typedef struct actor {
    pthread_t tid;
    pthread_mutex_t m;
    pthread_cond_t c;
    void (*step)(void *);
    void *arg;
    int quit;
    st_thread_t *th; /* its location, once it has one */
} actor_t;

static void *actor_main(void *p)
{
    actor_t *a = p;
    pthread_mutex_lock(&a->m);
    for (;;) {
        while (!a->step && !a->quit)
            pthread_cond_wait(&a->c, &a->m);
        if (a->quit)
            break;
        a->step(a->arg);
        a->th = st_thread_tls;
        a->step = NULL;
        pthread_cond_broadcast(&a->c);
    }
    pthread_mutex_unlock(&a->m);
    return NULL;
}

static void actor_start(actor_t *a)
{
    memset(a, 0, sizeof *a);
    pthread_mutex_init(&a->m, NULL);
    pthread_cond_init(&a->c, NULL);
    pthread_create(&a->tid, NULL, actor_main, a);
}

/* Runs fn(arg) on actor a and waits for it. */
static void on(actor_t *a, void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&a->m);
    a->step = fn;
    a->arg = arg;
    pthread_cond_broadcast(&a->c);
    while (a->step)
        pthread_cond_wait(&a->c, &a->m);
    pthread_mutex_unlock(&a->m);
}

static void actor_stop(actor_t *a)
{
    pthread_mutex_lock(&a->m);
    a->quit = 1;
    pthread_cond_broadcast(&a->c);
    pthread_mutex_unlock(&a->m);
    pthread_join(a->tid, NULL);
}

/* ---- steps ------------------------------------------------------------------------------- */

static ompt_data_t par1, par2, par3, par4, mtask, wtask, wtask2, ctask;
static uint64_t mtask_r1; /* the master's implicit task value in region 1 */

static void spin(void) /* a little time between events */
{
    uint64_t t0 = st_timer_now();
    while (st_timer_now() - t0 < 2000)
        ;
}

static void s_begin_initial(void *p) { (void)p; ompt_data_t d = { 0 }; CALL(thread_begin, ompt_thread_initial, &d); }
static void s_begin_worker(void *p) { (void)p; ompt_data_t d = { 0 }; CALL(thread_begin, ompt_thread_worker, &d); }

static void s_master_fork(void *p)
{
    ompt_data_t *par = p, enc = { 0 };
    CALL(parallel_begin, &enc, NULL, par, 2, ompt_parallel_invoker_runtime | ompt_parallel_team, NULL);
    CALL(implicit_task, ompt_scope_begin, par, &mtask, 2, 0, ompt_task_implicit);
    spin();
}

static void s_worker_begin(void *p)
{
    ompt_data_t *par = p;
    CALL(implicit_task, ompt_scope_begin, par, p == &par1 ? &wtask : &wtask2, 2, 1, ompt_task_implicit);
    spin();
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin, par, &wtask, NULL);
    CALL_AS(sync_region_wait, sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin, par, &wtask,
            NULL);
}

/* The master's implicit barrier at a region's end, without its team end and join (s_master_end). */
static void s_master_barrier(void *p)
{
    ompt_data_t *par = p;
    spin();
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin, par, &mtask, NULL);
    spin();
    CALL_AS(sync_region_wait, sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, NULL, &mtask,
            NULL);
    spin();
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, NULL, &mtask, NULL);
}

/* The master's implicit barrier, its team end and the join. */
static void s_master_join(void *p)
{
    s_master_barrier(p);
    CALL(implicit_task, ompt_scope_end, NULL, &mtask, 2, 0, ompt_task_implicit);
    spin();
    /* LLVM 14 may hand parallel_end a team already reused by another fork: not trusted */
    ompt_data_t reused = { .value = 0xdead0 };
    CALL(parallel_end, &reused, NULL, ompt_parallel_invoker_runtime | ompt_parallel_team, NULL);
}

static void s_master_end(void *p)
{
    (void)p;
    spin();
    CALL(implicit_task, ompt_scope_end, NULL, &mtask, 2, 0, ompt_task_implicit);
    spin();
    CALL(parallel_end, NULL, NULL, ompt_parallel_invoker_runtime | ompt_parallel_team, NULL);
}

static void s_worker_barrier_end(void *p)
{
    (void)p;
    spin();
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, NULL, &wtask, NULL);
}

static void s_worker_team_end(void *p)
{
    (void)p;
    spin();
    CALL(implicit_task, ompt_scope_end, NULL, &wtask, 0, 1, ompt_task_implicit);
}

static void s_worker_late_end(void *p)
{
    (void)p;
    spin();
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, NULL, &wtask, NULL);
    CALL(implicit_task, ompt_scope_end, NULL, &wtask, 0, 1, ompt_task_implicit);
}

static void s_locks(void *p)
{
    (void)p;
    uint64_t lock = 0x1000, nest = 0x2000, crit = 0x3000;
    CALL_AS(lock_init, mutex_acquire, ompt_mutex_lock, 0, 0, lock, NULL);
    CALL(mutex_acquire, ompt_mutex_test_lock, 0, 0, lock, NULL); /* a failing omp_test_lock */
    for (int i = 0; i < 2; i++) {
        CALL(mutex_acquire, ompt_mutex_lock, 0, 0, lock, NULL);
        CALL_AS(mutex_acquired, mutex, ompt_mutex_lock, lock, NULL);
        CALL_AS(mutex_released, mutex, ompt_mutex_lock, lock, NULL);
    }
    CALL(mutex_acquire, ompt_mutex_nest_lock, 0, 0, nest, NULL);
    CALL_AS(mutex_acquired, mutex, ompt_mutex_nest_lock, nest, NULL);
    CALL(mutex_acquire, ompt_mutex_nest_lock, 0, 0, nest, NULL);
    CALL(nest_lock, ompt_scope_begin, nest, NULL);
    CALL(nest_lock, ompt_scope_end, nest, NULL);
    CALL_AS(mutex_released, mutex, ompt_mutex_nest_lock, nest, NULL);
    CALL(mutex_acquire, ompt_mutex_critical, 0, 0, crit, NULL);
    CALL_AS(mutex_acquired, mutex, ompt_mutex_critical, crit, NULL);
    CALL_AS(mutex_released, mutex, ompt_mutex_critical, crit, NULL);
    CALL(mutex_acquire, ompt_mutex_atomic, 0, 0, 0x4000, NULL);
    CALL_AS(mutex_acquired, mutex, ompt_mutex_atomic, 0x4000, NULL);
    CALL_AS(mutex_released, mutex, ompt_mutex_atomic, 0x4000, NULL);
    CALL_AS(lock_destroy, mutex, ompt_mutex_lock, lock, NULL);
}

static void s_gcc_single_and_tasks(void *p)
{
    ompt_data_t *par = p;
    mtask_r1 = mtask.value;
    ompt_dependence_t dep = { { 0 }, ompt_dependence_type_in };
    CALL(work, ompt_work_single_executor, ompt_scope_begin, par, &mtask, 1, NULL); /* GOMP: no end */
    CALL(task_create, &mtask, NULL, &ctask, ompt_task_explicit, 1, NULL);
    CALL(dependences, &ctask, &dep, 1);
    CALL(sync_region, ompt_sync_region_barrier_implementation, ompt_scope_begin, par, &mtask, NULL);
    CALL(task_schedule, &mtask, ompt_task_switch, &ctask);
    CALL(task_schedule, &ctask, ompt_task_complete, &mtask);
    CALL(sync_region, ompt_sync_region_barrier_implementation, ompt_scope_end, par, &mtask, NULL);
}

static void s_hidden_main(void *p)
{
    ompt_data_t *par = p, enc = { 0 }, t = { 0 };
    CALL(parallel_begin, &enc, NULL, par, 8, ompt_parallel_invoker_runtime | ompt_parallel_team, NULL);
    CALL(implicit_task, ompt_scope_begin, par, &t, 8, 0, ompt_task_implicit);
    CALL(sync_region, ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin, par, &t, NULL);
}

/* ---- checks ------------------------------------------------------------------------------ */

static st_event_t *events(st_thread_t *th, size_t *n)
{
    st_event_t *e = th ? st_record_load(th, n) : NULL;
    if (!e)
        *n = 0;
    return e;
}

/* Index of the first event of kind (and region, for ENTER/LEAVE) at or after from; -1 if none. */
static long find(const st_event_t *e, size_t n, size_t from, unsigned kind, st_region_t region)
{
    for (size_t i = from; i < n; i++)
        if (e[i].kind == kind && (kind > ST_EV_LEAVE || e[i].region == region))
            return (long)i;
    return -1;
}

static size_t count(const st_event_t *e, size_t n, unsigned kind)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += e[i].kind == kind;
    return c;
}

static void check_registration(const char *log)
{
    const char *first = strstr(log, "OMPT masked callback");
    EXPECT(first != NULL);                                                /* reported ... */
    EXPECT(first && strstr(first + 1, "OMPT masked callback") == NULL); /* ... once */
    EXPECT(strstr(log, "thread_begin") == NULL);               /* offered ones are not */
}

static void check_master(st_thread_t *th)
{
    size_t n;
    st_event_t *e = events(th, &n);
    long fork = find(e, n, 0, ST_EV_THREAD_FORK, 0), join = find(e, n, 0, ST_EV_THREAD_JOIN, 0);
    long tb = find(e, n, 0, ST_EV_THREAD_TEAM_BEGIN, 0), te = find(e, n, 0, ST_EV_THREAD_TEAM_END, 0);
    EXPECT(fork >= 0 && tb == fork + 1 && te > tb && join == te + 1);
    if (fork >= 0 && join >= 0) {
        EXPECT(e[fork].id == e[join].id && e[fork].id == e[tb].id && e[fork].bytes == 2);
        EXPECT(e[tb].peer == 0 && e[tb].tag == 2 && e[fork].aux == 0);
        EXPECT(find(e, n, (size_t)tb, ST_EV_ENTER, ST_REGION_OMP_PARALLEL) == tb + 1);
        /* one clock read per callback: the team's begin and its region's ENTER, the LEAVE and the team's end */
        EXPECT(e[tb + 1].time == e[tb].time, "team begin %llu, enter parallel %llu", (unsigned long long)e[tb].time,
               (unsigned long long)e[tb + 1].time);
        EXPECT(e[te - 1].kind == ST_EV_LEAVE && e[te - 1].region == ST_REGION_OMP_PARALLEL && e[te - 1].time == e[te].time,
               "leave parallel %llu, team end %llu", (unsigned long long)e[te - 1].time, (unsigned long long)e[te].time);
        long ib = find(e, n, 0, ST_EV_ENTER, ST_REGION_OMP_IBARRIER);
        EXPECT(ib > tb && (e[ib].flags & ST_EVF_IMPLICIT));
    }
    /* gcc single closed at the barrier; task created with 1 dependence, run and completed */
    long single = find(e, n, 0, ST_EV_LEAVE, ST_REGION_OMP_SINGLE), bar = find(e, n, 0, ST_EV_ENTER, ST_REGION_OMP_BARRIER);
    EXPECT(single >= 0 && bar == single + 1);
    long cr = find(e, n, 0, ST_EV_THREAD_TASK_CREATE, 0), sw = find(e, n, 0, ST_EV_THREAD_TASK_SWITCH, 0);
    long done = find(e, n, 0, ST_EV_THREAD_TASK_COMPLETE, 0);
    EXPECT(cr >= 0 && sw > cr && done > sw);
    if (cr >= 0 && sw > cr && done > sw) {
        EXPECT(e[cr].bytes == 1 && e[cr].id == e[sw].id && e[done].id == e[cr].id && e[cr].bytes2 == e[fork].id);
        EXPECT(e[sw].aux == (mtask_r1 & ~(1ull << 63)) && e[sw].op == ompt_task_switch);
        EXPECT(e[sw + 1].kind == ST_EV_ENTER && e[sw + 1].region == ST_REGION_OMP_TASK);
        EXPECT(e[done - 1].kind == ST_EV_LEAVE && e[done - 1].region == ST_REGION_OMP_TASK);
        EXPECT(e[done + 1].kind == ST_EV_THREAD_TASK_SWITCH && e[done + 1].aux == e[cr].id &&
              e[done + 1].op == ompt_task_complete);
        EXPECT((uint32_t)(e[cr].id >> 32) == th->index + 1);
    }
    free(e);
}

/* Stamps the late team ends of the worker's events e with the master's em, as the trace's preparation does. */
static void stamp_late_ends(st_thread_t *w, st_event_t *e, size_t n, st_thread_t *m, st_event_t *em, size_t nm)
{
    /* as recorded: the first team end marked, with its LEAVE parallel, at the worker's own times */
    long rte = find(e, n, 0, ST_EV_THREAD_TEAM_END, 0);
    EXPECT(rte > 0 && e[rte].tag == ST_OMP_LATE_END && e[rte - 1].kind == ST_EV_LEAVE &&
           e[rte - 1].tag == ST_OMP_LATE_END && e[rte - 1].id == e[rte].id);
    st_thread_data_t td[2] = { { .index = w->index, .events = e, .nevents = n },
                               { .index = m->index, .events = em, .nevents = nm } };
    st_late_ends_t late = { 0 };
    for (int k = 0; k < 2; k++)
        for (uint64_t j = 0; j < td[k].nevents; j++)
            st_late_ends_note(&late, &td[k], &td[k].events[j]);
    EXPECT(st_late_ends_resolve(&late) == 0);
    /* no mark left */
    for (size_t i = 0; i < n; i++)
        EXPECT((e[i].kind != ST_EV_LEAVE || (e[i].tag == 0 && e[i].id == 0)) &&
               (e[i].kind != ST_EV_THREAD_TEAM_END || e[i].tag == 0));
}

/*
 * Worker: region 1 ended late (master's times); region 4's barrier end before its master's team end, its team end
 * after it (the master's times); region 2 closed by st_omp_finalize.
 */
static void check_worker(st_thread_t *w, st_thread_t *m)
{
    size_t n, nm;
    st_event_t *e = events(w, &n), *em = events(m, &nm);
    stamp_late_ends(w, e, n, m, em, nm);
    EXPECT(count(e, n, ST_EV_THREAD_TEAM_BEGIN) == 3 && count(e, n, ST_EV_THREAD_TEAM_END) == 3);
    long wte = find(e, n, 0, ST_EV_THREAD_TEAM_END, 0), wleave = find(e, n, 0, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER);
    long mjoin = find(em, nm, 0, ST_EV_THREAD_JOIN, 0), mte = find(em, nm, 0, ST_EV_THREAD_TEAM_END, 0);
    long mleave = find(em, nm, 0, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER);
    long menter = find(em, nm, 0, ST_EV_ENTER, ST_REGION_OMP_IBARRIER);
    EXPECT(wte >= 0 && wleave >= 0 && mjoin >= 0 && mte >= 0 && mleave >= 0);
    if (wte >= 0 && wleave >= 0 && mjoin >= 0 && mte >= 0 && mleave >= 0) {
        EXPECT(e[wte].time == em[mte].time && e[wte].time < em[mjoin].time); /* stamped with the master's end */
        EXPECT(e[wleave].time == em[mleave].time && e[wleave].time >= em[menter].time); /* the master's LEAVE */
        EXPECT(e[wte].peer == 1 && e[wte].id == em[mjoin].id);
        EXPECT(e[wte - 1].kind == ST_EV_LEAVE && e[wte - 1].region == ST_REGION_OMP_PARALLEL);
    }
    for (size_t i = 1; i < n; i++)
        EXPECT(e[i].time >= e[i - 1].time);
    long wte4 = wte >= 0 ? find(e, n, (size_t)wte + 1, ST_EV_THREAD_TEAM_END, 0) : -1;
    long mte4 = mte >= 0 ? find(em, nm, (size_t)mte + 1, ST_EV_THREAD_TEAM_END, 0) : -1;
    EXPECT(wte4 > 0 && mte4 > 0);
    if (wte4 > 0 && mte4 > 0) {
        long wleave4 = find(e, n, (size_t)wte + 1, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER);
        long mjoin4 = find(em, nm, (size_t)mte4, ST_EV_THREAD_JOIN, 0);
        EXPECT(e[wte4].id == em[mte4].id && mjoin4 == mte4 + 1);
        EXPECT(e[wte4].time == em[mte4].time, "region 4: worker's team end %llu, its master's %llu",
               (unsigned long long)e[wte4].time, (unsigned long long)em[mte4].time);
        EXPECT(e[wte4 - 1].kind == ST_EV_LEAVE && e[wte4 - 1].region == ST_REGION_OMP_PARALLEL &&
               e[wte4 - 1].time == e[wte4].time);
        EXPECT(wleave4 > 0 && wleave4 < wte4 && e[wleave4].time < em[mte4].time); /* the master's LEAVE of the barrier */
    }
    long second = wte4 > 0 ? find(e, n, (size_t)wte4 + 1, ST_EV_THREAD_TEAM_END, 0) : -1;
    long mte2 = mte4 > 0 ? find(em, nm, (size_t)mte4 + 1, ST_EV_THREAD_TEAM_END, 0) : -1;
    EXPECT(second > 0 && mte2 > 0);
    if (second > 0 && mte2 > 0) { /* closed by st_omp_finalize as a late end: stamped with the master's times */
        EXPECT(e[second].id == em[mte2].id && e[second].time == em[mte2].time);
        EXPECT(e[second - 1].kind == ST_EV_LEAVE && e[second - 1].region == ST_REGION_OMP_PARALLEL &&
               e[second - 1].time == em[mte2].time);
        long wleave2 = find(e, n, (size_t)wte4 + 1, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER);
        long mleave2 = find(em, nm, (size_t)mte4 + 1, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER);
        EXPECT(wleave2 == second - 2 && mleave2 > 0 && mleave2 < mte2);
        if (wleave2 == second - 2 && mleave2 > 0) /* the barrier it still waited in: the master's LEAVE of it */
            EXPECT(e[wleave2].time == em[mleave2].time, "region 2: worker's barrier end %llu, its master's %llu",
                   (unsigned long long)e[wleave2].time, (unsigned long long)em[mleave2].time);
    }
    EXPECT(w->omp_thread_num == 1);
    free(e);
    free(em);
}

static void check_locks(st_thread_t *th)
{
    size_t n;
    st_event_t *e = events(th, &n);
    static const struct { unsigned kind; uint64_t id; uint64_t order; uint16_t op; } want[] = {
        { ST_EV_THREAD_ACQUIRE_LOCK, 0x1000, 1, ompt_mutex_lock },
        { ST_EV_THREAD_RELEASE_LOCK, 0x1000, 1, ompt_mutex_lock },
        { ST_EV_THREAD_ACQUIRE_LOCK, 0x1000, 2, ompt_mutex_lock },
        { ST_EV_THREAD_RELEASE_LOCK, 0x1000, 2, ompt_mutex_lock },
        { ST_EV_THREAD_ACQUIRE_LOCK, 0x2000, 1, ompt_mutex_nest_lock },
        { ST_EV_THREAD_RELEASE_LOCK, 0x2000, 1, ompt_mutex_nest_lock },
        { ST_EV_THREAD_ACQUIRE_LOCK, 0x3000, 1, ompt_mutex_critical },
        { ST_EV_THREAD_RELEASE_LOCK, 0x3000, 1, ompt_mutex_critical },
    };
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].kind != ST_EV_THREAD_ACQUIRE_LOCK && e[i].kind != ST_EV_THREAD_RELEASE_LOCK)
            continue;
        EXPECT(k < 8 && e[i].kind == want[k].kind && e[i].id == want[k].id && e[i].bytes == want[k].order &&
              e[i].op == want[k].op);
        k++;
    }
    EXPECT(k == 8);
    long set = find(e, n, 0, ST_EV_ENTER, ST_REGION_OMP_SET_LOCK);
    EXPECT(set >= 0 && e[set + 1].kind == ST_EV_THREAD_ACQUIRE_LOCK && e[set + 2].kind == ST_EV_LEAVE);
    long crit = find(e, n, 0, ST_EV_ENTER, ST_REGION_OMP_CRITICAL);
    EXPECT(crit > 0 && e[crit + 1].kind == ST_EV_THREAD_ACQUIRE_LOCK && e[crit + 2].region == ST_REGION_OMP_CRITICAL_SBLOCK);
    EXPECT(e[n - 1].kind == ST_EV_LEAVE && e[n - 1].region == ST_REGION_OMP_CRITICAL);
    EXPECT(count(e, n, ST_EV_ENTER) == count(e, n, ST_EV_LEAVE));
    size_t nest_enters = 0;
    for (size_t i = 0; i < n; i++)
        nest_enters += e[i].kind == ST_EV_ENTER && e[i].region == ST_REGION_OMP_SET_NEST_LOCK;
    EXPECT(nest_enters == 2);
    free(e);
}

int main(void)
{
    char err[600];
    EXPECT(st_config_load(err, sizeof err) == 0);
    st_log_set_verbosity(1);
    st_record_active = 1;

    /* registration, with stderr captured */
    char logpath[] = "/tmp/test_omp_events.XXXXXX";
    int fd = mkstemp(logpath), saved = dup(2);
    dup2(fd, 2);
    ompt_start_tool_result_t *r = ompt_start_tool(201611, "fake");
    EXPECT(r && r->initialize(fake_lookup, 0, &r->tool_data) == 1);
    dup2(saved, 2);
    char log[4096] = "";
    ssize_t got = pread(fd, log, sizeof log - 1, 0);
    log[got > 0 ? got : 0] = 0;
    close(fd);
    unlink(logpath);
    check_registration(log);

    actor_t master, worker, hidden, hworker;
    actor_start(&master);
    actor_start(&worker);
    actor_start(&hidden);
    actor_start(&hworker);
    on(&master, s_begin_initial, NULL);
    on(&worker, s_begin_worker, NULL);
    on(&hworker, s_begin_worker, NULL);
    /* region 1: the worker's end comes only after the join */
    on(&master, s_master_fork, &par1);
    on(&worker, s_worker_begin, &par1);
    on(&master, s_gcc_single_and_tasks, &par1);
    on(&master, s_master_join, &par1);
    on(&worker, s_worker_late_end, NULL);
    /* region 4: the worker's barrier end before its master's team end, its team end after it */
    on(&master, s_master_fork, &par4);
    on(&worker, s_worker_begin, &par4);
    on(&master, s_master_barrier, &par4);
    on(&worker, s_worker_barrier_end, NULL);
    on(&master, s_master_end, NULL);
    on(&worker, s_worker_team_end, NULL);
    /* region 2: the worker's end never comes before st_omp_finalize */
    on(&master, s_master_fork, &par2);
    on(&worker, s_worker_begin, &par2);
    on(&master, s_master_join, &par2);
    /* locks on the master, outside any team */
    on(&master, s_locks, NULL);
    /* hidden helpers: no thread_begin on their main thread */
    on(&hidden, s_hidden_main, &par3);
    on(&hworker, s_worker_begin, &par3);
    EXPECT(par3.ptr == NULL && hidden.th == NULL && hworker.th == NULL);

    st_omp_finalize();
    st_record_stop();
    size_t nth;
    st_record_threads(&nth);
    EXPECT(nth == 2);
    EXPECT(master.th && worker.th && master.th->index == 0 && worker.th->index == 1);
    if (master.th && worker.th) {
        check_master(master.th);
        check_worker(worker.th, master.th);
        check_locks(master.th);
    }
    actor_stop(&master);
    actor_stop(&worker);
    actor_stop(&hidden);
    actor_stop(&hworker);
    if (failures)
        fprintf(stderr, "test_omp_events: %d checks failed\n", failures);
    return failures ? 1 : 0;
}
