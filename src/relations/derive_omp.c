/*
 * derive_omp.c — the OpenMP logical messages of one process (derive.c's scan): fork ->
 * team begins; team ends -> join; barrier ENTERs -> barrier LEAVEs of the same barrier
 * (k-th barrier of the team on every thread); lock release -> next acquisition (by
 * acquisition order); task create -> first switch to the task; switch away from a task ->
 * next switch to it; child completion -> exit of the parent's next taskwait.
 * Fork/join and barriers are emitted as the scan meets them; locks, tasks and taskwaits,
 * whose partners may be on any thread, are collected and related after it. The endpoints
 * wait in the compact side vectors (omp_end_t, sources.c).
 */
#include "derive_int.h"

static inline int cmp_omp(const omp_item_t *p, const omp_item_t *q)
{
    int r;
    if ((r = cmp_u64(p->a, q->a)) || (r = cmp_u64(p->b, q->b)) || (r = cmp_u64(p->c, q->c)) ||
        (r = cmp_u64(p->type, q->type)) || (r = cmp_u64(p->loc, q->loc)))
        return r;
    return cmp_u64(p->ev, q->ev);
}

static int cmp_omp_void(const void *x, const void *y) { return cmp_omp(x, y); }
/* The items come one location after the other, each mostly in order (a thread's lock
 * acquisitions, tasks and taskwaits in time order): a few runs for the natural merge sort. */
ST_MSORT(sort_omp, omp_item_t, cmp_omp)

enum { L_ACQ, L_REL };             /* locks:     a = lock kind, b = lock id, c = acquisition order, x = time */
enum { T_CREATE, T_AWAY, T_TO };   /* tasks:     a = task id, b = time */
enum { W_CREATE, W_WAIT };         /* taskwaits: a = parent task, b = time (of the create / taskwait enter),
                                    *            x = the child (create) / the exit's time (taskwait) */

static int is_barrier(uint32_t region) { return region == REL_REGION_OMP_BARRIER || region == REL_REGION_OMP_IBARRIER; }

int rel_omp_frame_push(omp_state_t *s, omp_loc_t *ol, uint64_t team)
{
    if (st_mem_grow((void **)&ol->st, &ol->cap, ol->n + 1, sizeof(frame_t)) || PUSH(s->frame_task, 0))
        return -1;
    ol->st[ol->n++] = (frame_t){ .team = team, .serial = s->frame_task.n - 1 };
    return 0;
}

/* Closes the frame of team (and anything left open inside it), if open. */
static void frame_pop(omp_loc_t *ol, uint64_t team)
{
    for (size_t k = ol->n; k > 1; k--)
        if (ol->st[k - 1].team == team) {
            ol->n = k - 1;
            return;
        }
}

/* The task running in frame f: its id, or a placeholder resolved once the frame's
 * first task switch names the task it leaves (resolve_parent). */
static uint64_t frame_parent(const frame_t *f)
{
    return f->cur ? f->cur : (1ull << 63) | f->serial;
}

static uint64_t resolve_parent(const omp_state_t *s, uint64_t p)
{
    if (!(p >> 63))
        return p;
    uint64_t serial = p & ~(1ull << 63);
    return serial < s->frame_task.n && s->frame_task.v[serial] ? s->frame_task.v[serial] : p;
}

/* (The OpenMP endpoints made after the scan take their events' times from the items: reading
 * the events again would be a cache miss each.) */
static int emit_omp(ctx_t *c, unsigned type, uint64_t k2, uint64_t k3, uint32_t l, uint64_t i, uint64_t time,
                    uint8_t role)
{
    omp_end_t o = { .k2 = k2, .k3 = k3, .ev = i, .time = time, .loc = l, .role = role };
    return PUSH(c->oside[type], o);
}

/* An OpenMP end whose every partner is on its own location: emitted, or with omit_self_ends
 * kept aside for the options' self_ends (or dropped without it). */
static int emit_omp_self(ctx_t *c, unsigned type, uint64_t k2, uint64_t k3, uint32_t l, uint64_t i, uint64_t time,
                         uint8_t role)
{
    if (!c->opts->omit_self_ends)
        return emit_omp(c, type, k2, k3, l, i, time, role);
    if (!c->opts->self_ends)
        return 0;
    (void)time;
    st_rel_self_ends_t *s = c->opts->self_ends;
    int team = type == ST_REL_KEY_OMP_FORK ? 0 : type == ST_REL_KEY_OMP_JOIN ? 1 : -1;
    if (team >= 0 && role == (team ? ST_REL_SEND : ST_REL_RECV) && k3 == 0 && k2 == c->in->locs[l].ev[i].id &&
        i >> ST_REL_SELF_EV_BITS == 0 && l >> (64 - ST_REL_SELF_EV_BITS) == 0)
        return PUSH(s->team[team], team_word(l, i));
    st_rel_self_end_t o = { .k2 = k2, .k3 = k3, .ev = i, .loc = l, .role = role };
    return PUSH(s->type[type], o);
}

/* Barrier ENTER -> LEAVE of the same (k-th) barrier of the innermost team, all threads. */
static int omp_barrier(ctx_t *c, frame_t *f, uint32_t l, uint64_t i, uint64_t time, int enter)
{
    if (!f->team)
        return 0;
    if (enter) {
        f->in_barrier = 1;
        return emit_omp(c, ST_REL_KEY_OMP_BARRIER, f->team, f->barriers, l, i, time, ST_REL_SEND);
    }
    if (!f->in_barrier)
        return 0;
    f->in_barrier = 0;
    return emit_omp(c, ST_REL_KEY_OMP_BARRIER, f->team, f->barriers++, l, i, time, ST_REL_RECV);
}

/* The place of an item of time t among the location's items of that time so far (omp_item_t). */
static uint64_t tie_of(omp_loc_t *ol, uint64_t t)
{
    if (t != ol->tie_time)
        ol->tie_time = t, ol->tie = 0;
    return ol->tie++;
}

static int omp_task_event(omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i)
{
    frame_t *f = &ol->st[ol->n - 1];
    omp_item_t it = { .b = e->time, .c = tie_of(ol, e->time), .loc = l, .ev = i };
    if (e->kind == ST_EV_THREAD_TASK_CREATE) {
        omp_item_t w = { .a = frame_parent(f), .b = e->time, .c = it.c, .type = W_CREATE, .loc = l, .ev = i, .x = e->id };
        it.a = e->id, it.type = T_CREATE;
        return e->id && (PUSH(s->tasks, it) || PUSH(s->waits, w)) ? -1 : 0;
    }
    if (e->kind == ST_EV_THREAD_TASK_COMPLETE) {
        if (st_mem_grow((void **)&s->done, &s->capdone, s->ndone + 1, sizeof *s->done))
            return -1;
        s->done[s->ndone++] = (struct done){ e->id, l, i, e->time };
        return 0;
    }
    /* THREAD_TASK_SWITCH: away from aux, to id. */
    if (!f->cur && e->aux)
        s->frame_task.v[f->serial] = e->aux;
    f->cur = e->id;
    if (e->aux == e->id)
        return 0;
    if (e->aux) {
        it.a = e->aux, it.type = T_AWAY;
        if (PUSH(s->tasks, it))
            return -1;
    }
    if (e->id) {
        it.a = e->id, it.type = T_TO;
        if (PUSH(s->tasks, it))
            return -1;
    }
    return 0;
}

int rel_omp_region_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i)
{
    frame_t *f = &ol->st[ol->n - 1];
    int enter = e->kind == ST_EV_ENTER;
    if (is_barrier(e->region))
        return omp_barrier(c, f, l, i, e->time, enter);
    if (e->region != REL_REGION_OMP_TASKWAIT)
        return 0;
    if (enter) {
        if (st_mem_grow((void **)&ol->tw, &ol->captw, ol->ntw + 1, sizeof(twait_t)))
            return -1;
        ol->tw[ol->ntw++] = (twait_t){ frame_parent(f), e->time, tie_of(ol, e->time) };
        return 0;
    }
    if (!ol->ntw)
        return 0;
    twait_t t = ol->tw[--ol->ntw];
    omp_item_t w = { .a = t.parent, .b = t.enter_time, .c = t.tie, .type = W_WAIT, .loc = l, .ev = i, .x = e->time };
    return PUSH(s->waits, w);
}

/* One OpenMP event of a location: fork/join and barriers are emitted at once; locks,
 * tasks and taskwaits are collected for the whole process. */
int rel_omp_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i)
{
    int rc = 0;
    switch (e->kind) {
    case ST_EV_THREAD_FORK: /* the master is part of the team from here */
        rc = emit_omp(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_SEND);
        if (rc || (rc = rel_omp_frame_push(s, ol, e->id)))
            return rc;
        ol->st[ol->n - 1].forked = 1;
        return 0;
    case ST_EV_THREAD_TEAM_BEGIN: {
        int master = ol->st[ol->n - 1].team == e->id;
        rc = master ? emit_omp_self(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_RECV)
                    : emit_omp(c, ST_REL_KEY_OMP_FORK, e->id, 0, l, i, e->time, ST_REL_RECV);
        return rc || master ? rc : rel_omp_frame_push(s, ol, e->id);
    }
    case ST_EV_THREAD_TEAM_END: {
        const frame_t *f = &ol->st[ol->n - 1];
        rc = f->team == e->id && f->forked ? emit_omp_self(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_SEND)
                                           : emit_omp(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_SEND);
        frame_pop(ol, e->id);
        return rc;
    }
    case ST_EV_THREAD_JOIN:
        rc = emit_omp(c, ST_REL_KEY_OMP_JOIN, e->id, 0, l, i, e->time, ST_REL_RECV);
        frame_pop(ol, e->id);
        return rc;
    case ST_EV_THREAD_ACQUIRE_LOCK:
    case ST_EV_THREAD_RELEASE_LOCK: {
        omp_item_t it = { .a = e->op, .b = e->id, .c = e->bytes, .loc = l, .ev = i, .x = e->time,
                          .type = e->kind == ST_EV_THREAD_ACQUIRE_LOCK ? L_ACQ : L_REL };
        return PUSH(s->locks, it);
    }
    case ST_EV_THREAD_TASK_CREATE:
    case ST_EV_THREAD_TASK_SWITCH:
    case ST_EV_THREAD_TASK_COMPLETE:
        return omp_task_event(s, ol, e, l, i);
    default:
        return 0;
    }
}

/* Lock release (order a) -> the acquisition with the next higher order of the same lock. */
int rel_omp_locks(ctx_t *c, omp_state_t *s)
{
    sort_omp(s->locks.v, s->locks.n);
    const omp_item_t *v = s->locks.v;
    /* In order (the endpoints then come out sorted): a release sends to the following
     * acquisition of its lock, v[j], the first acquisition after it. */
    size_t self = SIZE_MAX; /* an acquisition whose release-partner is on its own location (omit_self_ends) */
    for (size_t i = 0, j = 0; i < s->locks.n; i++) {
        const omp_item_t *it = &v[i];
        uint64_t lock = it->b ^ it->a << 48; /* lock kinds have separate id spaces */
        if (it->type == L_ACQ) {
            if (i == self ? emit_omp_self(c, ST_REL_KEY_OMP_LOCK, lock, it->c, it->loc, it->ev, it->x, ST_REL_RECV)
                          : emit_omp(c, ST_REL_KEY_OMP_LOCK, lock, it->c, it->loc, it->ev, it->x, ST_REL_RECV))
                return -1;
            continue;
        }
        while (j < s->locks.n && (j <= i || v[j].type != L_ACQ))
            j++;
        if (j >= s->locks.n || v[j].a != it->a || v[j].b != it->b || v[j].c <= it->c)
            continue;
        if (v[j].loc == it->loc)
            self = j;
        if (self == j ? emit_omp_self(c, ST_REL_KEY_OMP_LOCK, lock, v[j].c, it->loc, it->ev, it->x, ST_REL_SEND)
                      : emit_omp(c, ST_REL_KEY_OMP_LOCK, lock, v[j].c, it->loc, it->ev, it->x, ST_REL_SEND))
            return -1;
    }
    return 0;
}

/* Per task, in time order: a switch to it receives from the create or switch away just before. */
int rel_omp_tasks(ctx_t *c, omp_state_t *s)
{
    sort_omp(s->tasks.v, s->tasks.n);
    for (size_t i = 1; i < s->tasks.n; i++) {
        const omp_item_t *it = &s->tasks.v[i], *pv = it - 1;
        if (it->type != T_TO || pv->a != it->a || pv->type == T_TO)
            continue;
        if (emit_omp(c, ST_REL_KEY_OMP_TASK, it->a, i, pv->loc, pv->ev, pv->b, ST_REL_SEND) ||
            emit_omp(c, ST_REL_KEY_OMP_TASK, it->a, i, it->loc, it->ev, it->b, ST_REL_RECV))
            return -1;
    }
    return 0;
}

static int cmp_done(const void *a, const void *b) { return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b); }

/* Child completion -> exit of the first taskwait its parent enters after creating it. */
int rel_omp_taskwaits(ctx_t *c, omp_state_t *s)
{
    for (size_t i = 0; i < s->waits.n; i++)
        s->waits.v[i].a = resolve_parent(s, s->waits.v[i].a);
    sort_omp(s->waits.v, s->waits.n);
    sort(s->done, s->ndone, sizeof *s->done, cmp_done);
    size_t first = 0; /* first create of the current parent not yet waited for */
    for (size_t j = 0; j < s->waits.n; j++) {
        const omp_item_t *w = &s->waits.v[j];
        if (j > 0 && w->a != w[-1].a)
            first = j;
        if (w->type != W_WAIT)
            continue;
        int any = 0;
        for (size_t k = first; k < j; k++) {
            const struct done *d = find(&s->waits.v[k].x, s->done, s->ndone, sizeof *s->done, cmp_done);
            if (s->waits.v[k].type != W_CREATE || !d)
                continue;
            if (emit_omp(c, ST_REL_KEY_OMP_TASKWAIT, w->a, j, d->loc, d->ev, d->time, ST_REL_SEND))
                return -1;
            any = 1;
        }
        if (any && emit_omp(c, ST_REL_KEY_OMP_TASKWAIT, w->a, j, w->loc, w->ev, w->x, ST_REL_RECV))
            return -1;
        first = j + 1;
    }
    return 0;
}
