/*
 * check_omp.c — OpenMP happened-before relations inside each process.
 *
 * Team instances: when events carry synctrace:parallel_id, instance = (rank, parallel id).
 * Otherwise, on every location, the k-th ThreadTeamBegin naming thread team (comm) T
 * belongs to instance (rank, T, k) — teams with the same members may share a comm, a
 * writer may also define one comm per parallel region; both work. The thread whose
 * ThreadTeamBegin directly follows a ThreadFork is the instance's master; the ThreadJoin
 * after the master's ThreadTeamEnd is the join.
 *   fork:    every ThreadTeamBegin of the instance must not precede the fork;
 *   join:    the join must not precede any ThreadTeamEnd of the instance (checked once,
 *            against the latest);
 *   barrier: the n-th barrier region (OpenMP regions with role BARRIER or
 *            IMPLICIT_BARRIER; reductions, which need not synchronize all threads, are
 *            left out) a thread enters inside instance (rank, T, k) is barrier instance
 *            (rank, T, k, n); no thread may leave it before the latest enter;
 *   lock:    per (rank, lock id), acquisitions in recorded acquisition order: acquisition
 *            j+1 must not precede the release of acquisition j.
 * Tasks are not checked.
 */
#include "check.h"

#include <otf2/OTF2_Definitions.h>
#include <stdlib.h>
#include <string.h>

#include "archive_read.h"

#define NONE SIZE_MAX

typedef struct team {           /* one thread's part in one team instance */
    int32_t  rank;
    uint8_t  by_pid;           /* inst is a parallel id, not a team comm */
    uint64_t inst, k;          /* instance: (team comm, k-th begin) or (parallel id, 0) */
    uint32_t team;             /* the team comm (for ThreadTeamEnd) */
    uint32_t loc;
    size_t   begin, end, fork, join; /* positions, NONE if absent */
    uint64_t nbarriers;        /* barriers this thread entered in the instance */
} team_t;

typedef struct barrier {
    int32_t  rank;
    uint8_t  by_pid;
    uint64_t inst, k, n;       /* team instance (as in team_t), n-th barrier in it */
    uint32_t loc;
    size_t   enter, leave;
} barrier_t;

typedef struct lockev {
    int32_t  rank;
    uint32_t lock;
    uint64_t order;
    int      release;
    uint32_t loc;
    size_t   pos;
} lockev_t;

typedef struct omp {
    team_t *teams;     size_t nteams, capteams;
    barrier_t *bars;   size_t nbars, capbars;
    lockev_t *locks;   size_t nlocks, caplocks;
} omp_t;

typedef struct walk {           /* per-location state */
    size_t *stack;     size_t depth, cap;   /* open team items */
    size_t *bstack;    size_t bdepth, bcap; /* open barrier items */
    struct tc { uint32_t comm; uint64_t k; } *counts; size_t ncounts, capcounts;
    size_t fork, join_team;                 /* pending fork position, team item awaiting its join */
} walk_t;

static int is_barrier(const st_cli_archive_t *ar, uint32_t region)
{
    const st_cli_region_t *r = st_cli_region(ar, region);
    if (!r || r->paradigm != OTF2_PARADIGM_OPENMP)
        return 0;
    if (r->role != OTF2_REGION_ROLE_BARRIER && r->role != OTF2_REGION_ROLE_IMPLICIT_BARRIER)
        return 0;
    return strstr(st_cli_string(ar, r->name), "reduction") == NULL;
}

static int push_idx(size_t **st, size_t *depth, size_t *cap, size_t v)
{
    size_t *slot = st_cli_grow((void **)st, depth, cap, sizeof **st);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

/* Instance number k of team comm on this location (k-th begin naming it). */
static int next_k(walk_t *w, uint32_t comm, uint64_t *k)
{
    for (size_t i = 0; i < w->ncounts; i++)
        if (w->counts[i].comm == comm) {
            *k = w->counts[i].k++;
            return 0;
        }
    struct tc *c = st_cli_grow((void **)&w->counts, &w->ncounts, &w->capcounts, sizeof *c);
    if (!c)
        return -1;
    c->comm = comm;
    c->k = 1;
    *k = 0;
    return 0;
}

static int team_begin(omp_t *o, walk_t *w, const st_cli_location_t *l, uint32_t li, size_t i)
{
    const st_cli_event_t *e = &l->ev[i];
    int by_pid = (e->flags & ST_CLI_EVF_PID) != 0;
    uint64_t k = 0;
    team_t *t;
    if ((!by_pid && next_k(w, e->comm, &k)) ||
        !(t = st_cli_grow((void **)&o->teams, &o->nteams, &o->capteams, sizeof *t)))
        return -1;
    *t = (team_t){.rank = l->rank, .by_pid = (uint8_t)by_pid, .inst = by_pid ? e->req : e->comm, .k = k,
                  .team = e->comm, .loc = li, .begin = i, .end = NONE, .fork = w->fork, .join = NONE};
    w->fork = NONE;
    return push_idx(&w->stack, &w->depth, &w->cap, o->nteams - 1);
}

static void team_end(omp_t *o, walk_t *w, const st_cli_event_t *e, size_t i)
{
    for (size_t d = w->depth; d-- > 0;) {
        team_t *t = &o->teams[w->stack[d]];
        if (t->team != e->comm)
            continue;
        t->end = i;
        if (t->fork != NONE)
            w->join_team = w->stack[d];
        w->depth = d; /* close it (and anything left open inside it) */
        return;
    }
}

static int barrier_enter(omp_t *o, walk_t *w, const st_cli_location_t *l, uint32_t li, size_t i)
{
    if (!w->depth)
        return 0; /* a barrier outside any team synchronizes nobody else */
    team_t *t = &o->teams[w->stack[w->depth - 1]];
    barrier_t *b = st_cli_grow((void **)&o->bars, &o->nbars, &o->capbars, sizeof *b);
    if (!b)
        return -1;
    *b = (barrier_t){.rank = l->rank, .by_pid = t->by_pid, .inst = t->inst, .k = t->k, .n = t->nbarriers++,
                     .loc = li, .enter = i, .leave = NONE};
    return push_idx(&w->bstack, &w->bdepth, &w->bcap, o->nbars - 1);
}

static int lock_event(omp_t *o, const st_cli_location_t *l, uint32_t li, size_t i)
{
    lockev_t *x = st_cli_grow((void **)&o->locks, &o->nlocks, &o->caplocks, sizeof *x);
    if (!x)
        return -1;
    *x = (lockev_t){.rank = l->rank, .lock = l->ev[i].ref, .order = l->ev[i].req,
                    .release = l->ev[i].kind == ST_EV_THREAD_RELEASE_LOCK, .loc = li, .pos = i};
    return 0;
}

static int walk_location(const st_cli_archive_t *ar, omp_t *o, walk_t *w, uint32_t li)
{
    const st_cli_location_t *l = &ar->locs[li];
    int rc = 0;
    w->depth = w->bdepth = w->ncounts = 0;
    w->fork = w->join_team = NONE;
    for (size_t i = 0; i < l->n && !rc; i++) {
        const st_cli_event_t *e = &l->ev[i];
        switch (e->kind) {
        case ST_EV_THREAD_FORK: w->fork = i; break;
        case ST_EV_THREAD_TEAM_BEGIN: rc = team_begin(o, w, l, li, i); break;
        case ST_EV_THREAD_TEAM_END: team_end(o, w, e, i); break;
        case ST_EV_THREAD_JOIN:
            if (w->join_team != NONE)
                o->teams[w->join_team].join = i;
            w->join_team = NONE;
            break;
        case ST_EV_ENTER:
            if (is_barrier(ar, e->ref))
                rc = barrier_enter(o, w, l, li, i);
            break;
        case ST_EV_LEAVE:
            if (w->bdepth && is_barrier(ar, e->ref))
                o->bars[w->bstack[--w->bdepth]].leave = i;
            break;
        case ST_EV_THREAD_ACQUIRE_LOCK:
        case ST_EV_THREAD_RELEASE_LOCK: rc = lock_event(o, l, li, i); break;
        default: break;
        }
    }
    return rc;
}

/* ---- checking ------------------------------------------------------------------------------ */

typedef struct ctx {
    const st_cli_archive_t *ar;
    st_cli_check_t *res;
} ctx_t;

static uint64_t T(const ctx_t *c, uint32_t loc, size_t pos)
{
    return st_cli_check_time(c->res, &c->ar->locs[loc].ev[pos]);
}

static int cmp_team(const void *a, const void *b)
{
    const team_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->by_pid != y->by_pid) return x->by_pid < y->by_pid ? -1 : 1;
    if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return (x->loc > y->loc) - (x->loc < y->loc);
}

/* One team instance: teams a[0..n). */
static void check_team(const ctx_t *c, const team_t *a, size_t n)
{
    const team_t *master = NULL, *last_end = NULL;
    for (size_t i = 0; i < n; i++) {
        if (a[i].fork != NONE && !master)
            master = &a[i];
        if (a[i].end != NONE && (!last_end || T(c, a[i].loc, a[i].end) > T(c, last_end->loc, last_end->end)))
            last_end = &a[i];
    }
    c->res->omp_teams++;
    if (!master)
        return;
    for (size_t i = 0; i < n; i++)
        if (T(c, a[i].loc, a[i].begin) < T(c, master->loc, master->fork)) {
            c->res->omp_fork++;
            st_cli_check_example(c->ar, c->res, "omp_fork", a[i].loc, a[i].begin, master->loc, master->fork, "");
        }
    if (master->join != NONE && last_end && T(c, master->loc, master->join) < T(c, last_end->loc, last_end->end)) {
        c->res->omp_join++;
        st_cli_check_example(c->ar, c->res, "omp_join", master->loc, master->join, last_end->loc, last_end->end, "");
    }
}

static int cmp_barrier(const void *a, const void *b)
{
    const barrier_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->by_pid != y->by_pid) return x->by_pid < y->by_pid ? -1 : 1;
    if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return (x->loc > y->loc) - (x->loc < y->loc);
}

static void check_barrier(const ctx_t *c, const barrier_t *a, size_t n)
{
    const barrier_t *last = NULL;
    for (size_t i = 0; i < n; i++)
        if (!last || T(c, a[i].loc, a[i].enter) > T(c, last->loc, last->enter))
            last = &a[i];
    c->res->omp_barriers++;
    for (size_t i = 0; i < n; i++)
        if (a[i].leave != NONE && T(c, a[i].loc, a[i].leave) < T(c, last->loc, last->enter)) {
            c->res->omp_barrier++;
            st_cli_check_example(c->ar, c->res, "omp_barrier", a[i].loc, a[i].leave, last->loc, last->enter, "");
        }
}

static int cmp_lock(const void *a, const void *b)
{
    const lockev_t *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->lock != y->lock) return x->lock < y->lock ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->release != y->release) return x->release - y->release; /* acquire first */
    return (x->loc > y->loc) - (x->loc < y->loc);
}

/* Locks sorted by (rank, lock, order): each acquisition vs the previous acquisition's release. */
static void check_locks(const ctx_t *c, const lockev_t *a, size_t n)
{
    const lockev_t *prev_release = NULL;
    for (size_t i = 0; i < n; i++) {
        if (i && (a[i].rank != a[i - 1].rank || a[i].lock != a[i - 1].lock))
            prev_release = NULL;
        if (a[i].release) {
            prev_release = &a[i];
            continue;
        }
        c->res->omp_acquisitions++;
        if (prev_release && prev_release->order < a[i].order &&
            T(c, a[i].loc, a[i].pos) < T(c, prev_release->loc, prev_release->pos)) {
            c->res->omp_lock++;
            st_cli_check_example(c->ar, c->res, "omp_lock", a[i].loc, a[i].pos, prev_release->loc,
                                 prev_release->pos, "");
        }
    }
}

#define GROUPS(arr, n, same, check)                                     \
    for (size_t i_ = 0, j_; i_ < (n); i_ = j_) {                        \
        for (j_ = i_ + 1; j_ < (n) && same(&(arr)[i_], &(arr)[j_]); j_++) \
            ;                                                           \
        check(&c, &(arr)[i_], j_ - i_);                                 \
    }
#define SAME_TEAM(x, y) \
    ((x)->rank == (y)->rank && (x)->by_pid == (y)->by_pid && (x)->inst == (y)->inst && (x)->k == (y)->k)
#define SAME_BARRIER(x, y) (SAME_TEAM(x, y) && (x)->n == (y)->n)

int st_cli_check_omp(const st_cli_archive_t *ar, st_cli_check_t *res)
{
    omp_t o = {0};
    walk_t w = {0};
    int rc = 0;
    for (size_t li = 0; li < ar->nlocs && !rc; li++)
        rc = walk_location(ar, &o, &w, (uint32_t)li);
    if (!rc) {
        ctx_t c = {ar, res};
        st_cli_sort(o.teams, o.nteams, sizeof *o.teams, cmp_team);
        st_cli_sort(o.bars, o.nbars, sizeof *o.bars, cmp_barrier);
        st_cli_sort(o.locks, o.nlocks, sizeof *o.locks, cmp_lock);
        GROUPS(o.teams, o.nteams, SAME_TEAM, check_team)
        GROUPS(o.bars, o.nbars, SAME_BARRIER, check_barrier)
        check_locks(&c, o.locks, o.nlocks);
    }
    free(o.teams);
    free(o.bars);
    free(o.locks);
    free(w.stack);
    free(w.bstack);
    free(w.counts);
    return rc;
}
