/*
 * prepare.c — what is derived from one rank's events, and st_rankdata_prepare().
 *
 * Everything here is local to one rank's data: world->communicator rank
 * translation, the OpenMP thread teams (which locations began a team with the
 * same parallel id), the identity of explicit tasks (team, creating thread,
 * generation number), and the rule deciding whether an event can be written to an
 * archive at all. st_rankdata_prepare() uses it to repair and filter the events
 * before they are counted, and the OTF2 writer builds the same view to write them,
 * so both agree on every count.
 */
#include "prepare.h"

#include <stdlib.h>
#include <string.h>

#include "late_ends.h"
#include "region.h"
#include "../util/log.h"
#include "../util/msort.h"

/* ---- small helpers ------------------------------------------------------------------ */

uint32_t st_rankdata_master(const st_rankdata_t *rd)
{
    uint32_t m = UINT32_MAX;
    for (uint32_t i = 0; i < rd->nthreads; i++)
        if (rd->threads[i].index < m)
            m = rd->threads[i].index;
    return m == UINT32_MAX ? 0 : m;
}

void st_team_push(st_team_stack_t *s, uint32_t team)
{
    if (s->depth < ST_TEAM_STACK)
        s->team[s->depth] = team;
    s->depth++;
}

void st_team_pop(st_team_stack_t *s)
{
    if (s->depth > 0)
        s->depth--;
}

uint32_t st_team_top(const st_team_stack_t *s)
{
    if (s->depth == 0)
        return 0;
    return s->team[(s->depth < ST_TEAM_STACK ? s->depth : ST_TEAM_STACK) - 1];
}

uint32_t st_rankview_team_rank(const st_rankview_t *c, uint32_t team, uint32_t t)
{
    if (team >= c->nteams)
        return 0;
    for (uint32_t i = 0; i < c->teams[team].size; i++)
        if (c->teams[team].threads[i] == t)
            return i;
    return 0;
}

/* ---- communicator rank translation ---------------------------------------------------- */

static int xlat_build(st_comm_xlat_t *x, const int32_t *world, uint32_t n)
{
    if (!world || n == 0)
        return 0;
    x->pairs = malloc(n * sizeof *x->pairs);
    if (!x->pairs)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        x->pairs[i] = ((uint64_t)(uint32_t)world[i] << 32) | i;
    qsort(x->pairs, n, sizeof *x->pairs, st_cmp_u64);
    x->n = n;
    return 0;
}

static int xlat_find(const st_comm_xlat_t *x, int32_t world, uint32_t *rank)
{
    if (world < 0)
        return -1;
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t w = (uint32_t)(x->pairs[mid] >> 32);
        if (w == (uint32_t)world) {
            *rank = (uint32_t)x->pairs[mid];
            return 0;
        }
        if (w < (uint32_t)world)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int st_rankview_peer(const st_rankview_t *c, const st_event_t *e, uint32_t *rank)
{
    if (e->comm >= c->rd->ncomms)
        return -1;
    const st_comm_def_t *cd = &c->rd->comms[e->comm];
    /* On an intercommunicator every point-to-point peer is in the remote group. */
    return xlat_find(cd->flags & ST_COMMF_INTER ? &c->remote[e->comm] : &c->local[e->comm], e->peer, rank);
}

int st_rankview_root(const st_rankview_t *c, const st_event_t *e, uint32_t *root)
{
    if (e->comm >= c->rd->ncomms)
        return -1;
    const st_comm_def_t *cd = &c->rd->comms[e->comm];
    if (!(cd->flags & ST_COMMF_INTER)) {
        if (e->peer < 0) {
            *root = ST_ROOT_NONE;
            return 0;
        }
        return xlat_find(&c->local[e->comm], e->peer, root);
    }
    /* Intercommunicator: the root argument is MPI_ROOT (this process, recorded as its
     * own world rank), MPI_PROC_NULL (flag PROC_NULL: another process of the root's
     * group), none (-1: operations between the groups) or a rank of the remote group. */
    if (e->peer == c->rd->rank) {
        *root = ST_ROOT_SELF;
        return 0;
    }
    if (e->flags & ST_EVF_PROC_NULL) {
        *root = ST_ROOT_THIS_GROUP;
        return 0;
    }
    if (e->peer < 0) {
        *root = ST_ROOT_NONE;
        return 0;
    }
    return xlat_find(&c->remote[e->comm], e->peer, root);
}

/* ---- OpenMP teams and tasks ------------------------------------------------------------ */

typedef struct team_begin {
    uint64_t pid;
    int32_t  num;
    uint32_t thread;
} team_begin_t;

static inline int cmp_team_begin(const team_begin_t *x, const team_begin_t *y)
{
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->num != y->num)
        return x->num < y->num ? -1 : 1;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_team_begin_void(const void *a, const void *b) { return cmp_team_begin(a, b); }
/* A thread's team begins come in the order of their parallel ids: one sorted run per thread, merged
 * (qsort took 10-20 ms per 10^5 team begins). */
ST_MSORT(sort_team_begins, team_begin_t, cmp_team_begin)

/* The team begins of a rank's threads, and whether any OpenMP thread event is there. */
typedef struct team_begins {
    team_begin_t *v;
    size_t        n, cap;
    int           any, failed; /* failed: out of memory */
    st_late_ends_t *late;      /* the team ends, noted too when not NULL */
} team_begins_t;

/* st_thread_event_fn: notes a team begin (and that thread events exist). */
static void note_thread_event(void *arg, const st_thread_data_t *t, const st_event_t *e)
{
    team_begins_t *tb = arg;
    tb->any = 1;
    if (tb->late)
        st_late_ends_note(tb->late, t, e);
    if (e->kind != ST_EV_THREAD_TEAM_BEGIN || tb->failed)
        return;
    if (tb->n == tb->cap) {
        size_t cap = tb->cap ? 2 * tb->cap : 16;
        team_begin_t *g = realloc(tb->v, cap * sizeof *g);
        if (!g) {
            tb->failed = 1;
            return;
        }
        tb->v = g, tb->cap = cap;
    }
    tb->v[tb->n++] = (team_begin_t){ e->id, e->peer, t->index };
}

/*
 * One pass over every thread's events: the team begins and whether any OpenMP thread event is
 * there. (It was three passes: any thread event, then counting the team begins, then copying
 * them; each pass reads all 64 bytes of every event. st_rankdata_prepare() notes them in its
 * pass that folds the RMA groups instead.)
 */
static void collect_team_begins(const st_rankdata_t *rd, team_begins_t *tb)
{
    for (uint32_t i = 0; i < rd->nthreads; i++)
        for (uint64_t j = 0; rd->threads[i].events && j < rd->threads[i].nevents; j++)
            if (st_event_is_thread(rd->threads[i].events[j].kind))
                note_thread_event(tb, &rd->threads[i], &rd->threads[i].events[j]);
}

/* Index of the team with exactly these members, appending it if new; -1 on ENOMEM. */
static int64_t team_intern(st_rankview_t *c, const uint32_t *members, uint32_t n)
{
    for (uint32_t i = 0; i < c->nteams; i++)
        if (c->teams[i].size == n && memcmp(c->teams[i].threads, members, n * sizeof *members) == 0)
            return i;
    st_team_def_t *g = realloc(c->teams, (c->nteams + 1) * sizeof *g);
    if (!g)
        return -1;
    c->teams = g;
    uint32_t *copy = malloc(n * sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, members, n * sizeof *copy);
    c->teams[c->nteams] = (st_team_def_t){ n, copy };
    return c->nteams++;
}

/* Team 0 is the initial team (the master alone); then one team per distinct
 * member list, in the order of the parallel ids that first used it. */
static int build_teams(st_rankview_t *c, const team_begin_t *tb, size_t n)
{
    uint32_t *members = malloc((n ? n : 1) * sizeof *members);
    int rc = (!members || team_intern(c, &c->master, 1) < 0) ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        uint32_t m = 0;
        for (; j < n && tb[j].pid == tb[i].pid; j++)
            if (m == 0 || members[m - 1] != tb[j].thread)
                members[m++] = tb[j].thread;
        int64_t team = team_intern(c, members, m);
        if (team < 0 || st_u64map_put(&c->pmap, tb[i].pid, (uint64_t)team) != 0)
            rc = -1;
        i = j;
    }
    free(members);
    return rc;
}

static int add_task(st_rankview_t *c, uint64_t id, st_task_ident_t task)
{
    /* Capacity 16, then doubling whenever the count reaches a power of two. */
    if (c->ntasks == 0 || (c->ntasks >= 16 && (c->ntasks & (c->ntasks - 1)) == 0)) {
        st_task_ident_t *g = realloc(c->tasks, (c->ntasks ? c->ntasks * 2 : 16) * sizeof *g);
        if (!g)
            return -1;
        c->tasks = g;
    }
    c->tasks[c->ntasks] = task;
    return st_u64map_put(&c->tmap, id, c->ntasks++);
}

/* Task ids are assumed unique within a process (the OMP helper's counter). */
static int build_tasks(st_rankview_t *c)
{
    for (uint32_t i = 0; i < c->rd->nthreads; i++) {
        const st_thread_data_t *t = &c->rd->threads[i];
        st_team_stack_t st = { .depth = 0 };
        uint32_t gen = 0;
        for (uint64_t j = 0; t->events && j < t->nevents; j++) {
            const st_event_t *e = &t->events[j];
            uint64_t team;
            if (e->kind == ST_EV_THREAD_TEAM_BEGIN && st_u64map_get(&c->pmap, e->id, &team))
                st_team_push(&st, (uint32_t)team);
            else if (e->kind == ST_EV_THREAD_TEAM_END)
                st_team_pop(&st);
            else if (e->kind == ST_EV_THREAD_TASK_CREATE) {
                uint32_t tm = st_team_top(&st);
                st_task_ident_t task = { tm, st_rankview_team_rank(c, tm, t->index), ++gen };
                if (add_task(c, e->id, task) != 0)
                    return -1;
            }
        }
    }
    return 0;
}

/* ---- the context ----------------------------------------------------------------------- */

/* The view of rd from its team begins (tb, sorted here and freed). */
static int view_init(st_rankview_t *c, st_rankdata_t *rd, int with_tasks, team_begins_t *tb)
{
    memset(c, 0, sizeof *c);
    c->rd = rd;
    c->master = st_rankdata_master(rd);
    c->local = calloc(rd->ncomms ? rd->ncomms : 1, sizeof *c->local);
    c->remote = calloc(rd->ncomms ? rd->ncomms : 1, sizeof *c->remote);
    int rc = c->local && c->remote ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < rd->ncomms; i++) {
        const st_comm_def_t *cd = &rd->comms[i];
        if (xlat_build(&c->local[i], cd->world, cd->size) != 0 ||
            xlat_build(&c->remote[i], cd->remote_world, cd->remote_size) != 0)
            rc = -1;
    }
    if (tb->failed)
        rc = -1;
    c->has_omp = tb->any;
    if (rc == 0 && c->has_omp) {
        sort_team_begins(tb->v, tb->n);
        rc = build_teams(c, tb->v, tb->n);
    }
    free(tb->v);
    tb->v = NULL;
    if (rc == 0 && c->has_omp && with_tasks)
        rc = build_tasks(c);
    if (rc != 0) {
        st_rankview_free(c);
        st_log_error("out of memory while preparing rank %d for the OTF2 archive", rd->rank);
        return -1;
    }
    return 0;
}

int st_rankview_init(st_rankview_t *c, st_rankdata_t *rd, int with_tasks)
{
    team_begins_t tb = { 0 };
    collect_team_begins(rd, &tb);
    return view_init(c, rd, with_tasks, &tb);
}

void st_rankview_free(st_rankview_t *c)
{
    for (uint32_t i = 0; c->rd && i < c->rd->ncomms; i++) {
        if (c->local)
            free(c->local[i].pairs);
        if (c->remote)
            free(c->remote[i].pairs);
    }
    free(c->local);
    free(c->remote);
    if (!c->teams_lent) { /* else rd's */
        for (uint32_t i = 0; i < c->nteams; i++)
            free(c->teams[i].threads);
        free(c->teams);
    }
    st_u64map_free(&c->pmap);
    st_u64map_free(&c->tmap);
    free(c->tasks);
    memset(c, 0, sizeof *c);
}

void st_rankdata_drop_view(st_rankdata_t *rd)
{
    if (rd->view) {
        st_rankview_free(rd->view);
        free(rd->view);
        rd->view = NULL;
    }
    rd->view_drop = NULL;
}

const st_rankview_t *st_rankview_get(st_rankdata_t *rd, st_rankview_t *own)
{
    if (rd->view && rd->prepared) {
        rd->view->rd = rd; /* (rd may have moved since) */
        return rd->view;
    }
    return st_rankview_init(own, rd, 1) == 0 ? own : NULL;
}

void st_rankview_put(const st_rankview_t *view, st_rankview_t *own)
{
    if (view == own)
        st_rankview_free(own);
}

static const char *check_p2p(const st_rankview_t *c, const st_event_t *e)
{
    uint32_t r;
    if (e->flags & ST_EVF_PROC_NULL)
        return "peer is MPI_PROC_NULL";
    if (e->comm >= c->rd->ncomms)
        return "unknown communicator";
    return st_rankview_peer(c, e, &r) == 0 ? NULL : "peer is not in the communicator";
}

/* st_rankview_check for the events other than ENTER and LEAVE. */
static const char *check_rest(const st_rankview_t *c, const st_event_t *e)
{
    uint32_t r;
    uint64_t v;
    switch (e->kind) {
    case ST_EV_MPI_SEND:
    case ST_EV_MPI_ISEND:
    case ST_EV_MPI_RECV:
    case ST_EV_MPI_IRECV:
        return check_p2p(c, e);
    case ST_EV_MPI_COLL_END:
    case ST_EV_MPI_ICOLL_COMPLETE:
        if (e->comm >= c->rd->ncomms)
            return "unknown communicator";
        return st_rankview_root(c, e, &r) == 0 ? NULL : "root is not in the communicator";
    case ST_EV_THREAD_TEAM_END:
        return st_u64map_get(&c->pmap, e->id, &v) ? NULL : "team end without a team begin";
    case ST_EV_RMA_GROUP_SYNC:
        return e->id <= c->rd->ngroups ? NULL : "unknown RMA group";
    case ST_EV_RMA_GROUP_MEMBER:
        return "RMA group member not folded into its group";
    default:
        return e->kind < ST_EV__COUNT ? NULL : "unknown event kind";
    }
}

/* ENTER and LEAVE (most events) inline: the preparation asks it of every event. */
static inline const char *check_event(const st_rankview_t *c, const st_event_t *e)
{
    if (e->kind == ST_EV_ENTER || e->kind == ST_EV_LEAVE)
        return e->region < ST_REGION__COUNT ? NULL : "unknown region";
    return check_rest(c, e);
}

const char *st_rankview_check(const st_rankview_t *c, const st_event_t *e) { return check_event(c, e); }

/* ---- st_rankdata_prepare ------------------------------------------------------------------ */

static int cmp_callsite(const void *a, const void *b)
{
    uint64_t x = ((const st_callsite_t *)a)->pc, y = ((const st_callsite_t *)b)->pc;
    return x < y ? -1 : x > y;
}

/* What one pass over a thread's events repaired and dropped (reported after all threads). */
typedef struct repair_counts {
    uint64_t raised, dropped, quiet;
    const char *first; /* why the first dropped event could not be written */
} repair_counts_t;

/*
 * One pass over a thread's events: raises a time earlier than its predecessor's (in the recorded
 * order, dropped events included) and keeps the events that can be written, moved down over the
 * dropped ones (an event stays where it is until the first drop).
 */
static repair_counts_t repair_thread(const st_rankview_t *c, st_thread_data_t *t)
{
    repair_counts_t n = { 0, 0, 0, NULL };
    st_event_t *ev = t->events;
    uint64_t k = 0, prev = t->nevents ? ev[0].time : 0;
    for (uint64_t j = 0; j < t->nevents; j++) {
        if (ev[j].time < prev) {
            ev[j].time = prev;
            n.raised++;
        }
        prev = ev[j].time;
        const char *why = check_event(c, &ev[j]);
        if (!why) {
            if (k != j)
                ev[k] = ev[j];
            k++;
        } else if (ev[j].flags & ST_EVF_PROC_NULL)
            n.quiet++; /* no message exists: nothing to record, nothing wrong */
        else if (n.dropped++ == 0)
            n.first = why;
    }
    t->nevents = k;
    return n;
}

static void report_repairs(const st_rankdata_t *rd, const repair_counts_t *n)
{
    for (uint32_t i = 0; i < rd->nthreads; i++)
        if (n[i].raised)
            st_log_warn("rank %d thread %u: %llu event(s) earlier than their predecessor; raised to keep "
                        "the location's time order", rd->rank, rd->threads[i].index,
                        (unsigned long long)n[i].raised);
    for (uint32_t i = 0; i < rd->nthreads; i++) {
        if (n[i].dropped)
            st_log_warn("rank %d thread %u: %llu event(s) cannot be written to OTF2 and were dropped "
                        "(first: %s)", rd->rank, rd->threads[i].index, (unsigned long long)n[i].dropped,
                        n[i].first);
        if (n[i].quiet)
            st_log_debug("rank %d thread %u: %llu MPI_PROC_NULL event(s) not written", rd->rank,
                         rd->threads[i].index, (unsigned long long)n[i].quiet);
    }
}

void st_rankdata_span(st_rankdata_t *rd)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < rd->nthreads; i++) {
        const st_thread_data_t *t = &rd->threads[i];
        if (!t->events || t->nevents == 0)
            continue;
        if (t->events[0].time < lo)
            lo = t->events[0].time;
        if (t->events[t->nevents - 1].time > hi)
            hi = t->events[t->nevents - 1].time;
    }
    if (lo != UINT64_MAX) {
        rd->t_begin = lo;
        rd->t_end = hi;
    }
}

int st_rankdata_prepare(st_rankdata_t *rd)
{
    int has_events = 0;
    for (uint32_t i = 0; i < rd->nthreads; i++)
        has_events |= rd->threads[i].events != NULL;
    if (!has_events || rd->prepared)
        return 0;
    if (rd->callsites && rd->ncallsites > 1)
        qsort(rd->callsites, rd->ncallsites, sizeof *rd->callsites, cmp_callsite);
    /* The team begins and ends are noted in the pass that folds the groups (the view would read every event again);
     * the workers' late team ends then get their masters' times, before the order is repaired. */
    st_late_ends_t late = { 0 };
    team_begins_t tb = { .late = &late };
    if (st_rankdata_fold_groups(rd, note_thread_event, &tb) != 0) {
        st_late_ends_resolve(&late);
        free(tb.v);
        return -1;
    }
    uint64_t unstamped = st_late_ends_resolve(&late);
    if (unstamped)
        st_log_info("rank %d: %llu OpenMP worker team end(s) found no end of their master's; they keep the worker's "
                    "own times", rd->rank, (unsigned long long)unstamped);
    /* The view reads no timestamps, so the order is repaired in the same pass that drops events. It is kept for
     * the writer (rd->view: the writer would read every event twice again to make it), its task table made
     * after the repair, from the events that are written. */
    st_rankview_t *c = calloc(1, sizeof *c);
    if (!c || view_init(c, rd, 0, &tb) != 0) {
        if (!c)
            st_log_error("out of memory while preparing rank %d for the OTF2 archive", rd->rank);
        free(tb.v);
        free(c);
        return -1;
    }
    repair_counts_t *counts = calloc(rd->nthreads ? rd->nthreads : 1, sizeof *counts);
    if (!counts) {
        st_rankview_free(c);
        free(c);
        st_log_error("out of memory while preparing rank %d for the OTF2 archive", rd->rank);
        return -1;
    }
    for (uint32_t i = 0; i < rd->nthreads; i++)
        if (rd->threads[i].events)
            counts[i] = repair_thread(c, &rd->threads[i]);
    report_repairs(rd, counts);
    free(counts);
    st_rankdata_span(rd);
    for (uint32_t i = 0; i < rd->nteams; i++)
        free(rd->teams[i].threads);
    free(rd->teams);
    rd->teams = c->teams; /* the view's teams are rd's now; the view reads them while rd keeps it */
    rd->nteams = c->nteams;
    c->teams_lent = 1;
    st_rankdata_drop_view(rd);
    if (c->has_omp && build_tasks(c) != 0) { /* without it the writer makes its own view */
        st_rankview_free(c);
        free(c);
    } else {
        rd->view = c, rd->view_drop = st_rankdata_drop_view;
    }
    rd->prepared = 1;
    return 0;
}
