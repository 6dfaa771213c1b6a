/*
 * omp_task.c — OMPT callbacks for explicit tasks.
 *
 * Events (task ids: omp_int.h; bytes2 = parallel id of the team the thread runs in):
 *   creation   ENTER create task, THREAD_TASK_CREATE (id, tag = OMPT task flags,
 *              bytes = number of dependences), LEAVE create task
 *   switch     THREAD_TASK_SWITCH (id = task now running, aux = task left,
 *              op = ompt_task_status_t of the task left); when a task runs for the
 *              first time, ENTER task follows
 *   completion LEAVE task, THREAD_TASK_COMPLETE (id), then the switch to what runs next
 * Implicit tasks have ids too (given at implicit-task begin, or when first seen running),
 * so every switch names both sides. A detached task's body ends (LEAVE task) at
 * ompt_task_detach and it completes (THREAD_TASK_COMPLETE) at ompt_task_late_fulfill,
 * possibly on another thread.
 */
#include "omp_int.h"

/* The id of a task seen running on this thread; a task without one gets it now. */
static uint64_t running_task_id(st_omp_thread_t *ot, ompt_data_t *task)
{
    if (!task)
        return 0;
    if (!task->value)
        task->value = st_omp_new_task_id(ot) | ST_OMP_TASK_RUNNING;
    return task->value & ~ST_OMP_TASK_RUNNING;
}

void st_omp_cb_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr)
{
    (void)task;
    (void)frame;
    new_task->value = 0;
    if (!(flags & (ompt_task_explicit | ompt_task_target | ompt_task_taskwait)))
        return; /* initial and implicit tasks are reported by implicit_task */
    st_omp_thread_t *ot = NULL;
    st_thread_t *th = st_omp_self(&ot);
    if (!th)
        return;
    uint64_t id = st_omp_new_task_id(ot);
    new_task->value = id;
    st_omp_enter(ot, ST_REGION_OMP_TASK_CREATE, codeptr);
    st_event_t *e = st_omp_record(th, ST_EV_THREAD_TASK_CREATE);
    e->id = id;
    e->tag = flags;
    e->bytes2 = st_omp_team_id(ot);
    st_omp_leave(ot, ST_REGION_OMP_TASK_CREATE);
    if (!has_dependences) /* else the dependences follow: the creation must stay in the buffer */
        st_omp_flush_point(ot);
}

void st_omp_cb_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    (void)deps;
    st_omp_thread_t *ot = NULL;
    st_thread_t *th = st_omp_self(&ot);
    if (!th || !task || ndeps <= 0)
        return;
    /* Reported right after the creation: the TASK_CREATE is among the last events. */
    uint64_t id = task->value & ~ST_OMP_TASK_RUNNING;
    for (size_t back = 1; back <= 3 && back <= th->pos; back++) {
        st_event_t *e = &th->buf[th->pos - back];
        if (e->kind == ST_EV_THREAD_TASK_CREATE && e->id == id) {
            e->bytes = (uint64_t)ndeps;
            break;
        }
    }
    st_omp_flush_point(ot);
}

static void record_task_event(st_omp_thread_t *ot, unsigned kind, uint64_t id, uint64_t aux, int status)
{
    st_event_t *e = st_omp_record(ot->th, kind);
    e->id = id;
    e->aux = aux;
    e->op = (uint16_t)status;
    e->bytes2 = st_omp_team_id(ot);
}

/* The switch from prior_id to next (ENTER task follows when next runs for the first time). */
static void record_switch(st_omp_thread_t *ot, uint64_t prior_id, ompt_task_status_t status, ompt_data_t *next)
{
    int starts = !(next->value & ST_OMP_TASK_RUNNING);
    if (!next->value) /* a task whose creation was not recorded */
        next->value = st_omp_new_task_id(ot);
    next->value |= ST_OMP_TASK_RUNNING;
    record_task_event(ot, ST_EV_THREAD_TASK_SWITCH, next->value & ~ST_OMP_TASK_RUNNING, prior_id, (int)status);
    if (starts)
        st_omp_enter(ot, ST_REGION_OMP_TASK, NULL);
}

void st_omp_cb_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    st_omp_thread_t *ot = NULL;
    if (!st_omp_self(&ot))
        return;
    if (status == ompt_task_early_fulfill)
        return; /* the detached task has not finished yet: nothing happens on this thread */
    if (status == ompt_task_late_fulfill) {
        uint64_t id = prior ? prior->value & ~ST_OMP_TASK_RUNNING : 0;
        if (id)
            record_task_event(ot, ST_EV_THREAD_TASK_COMPLETE, id, 0, 0);
        st_omp_flush_point(ot);
        return;
    }
    uint64_t prior_id = running_task_id(ot, prior);
    int done = status == ompt_task_complete || status == ompt_task_cancel || status == ompt_taskwait_complete;
    if (done || status == ompt_task_detach)
        st_omp_leave(ot, ST_REGION_OMP_TASK);
    if (done && prior_id)
        record_task_event(ot, ST_EV_THREAD_TASK_COMPLETE, prior_id, 0, 0);
    if (next)
        record_switch(ot, prior_id, status, next);
    st_omp_flush_point(ot);
}
