/*
 * harness.c — OpenMP recording without MPI and without the rest of the shim.
 *
 * Linked directly with src/omp, src/record, src/clock/timer.c, src/config/config.c
 * and src/util/log.c (and -rdynamic, so libomp finds ompt_start_tool in the program).
 * It starts recording as the library constructor would, runs the constructs of
 * constructs.c (or a target-nowait program that makes LLVM start hidden-helper
 * threads), ends OpenMP recording with st_omp_finalize() and checks what was recorded:
 *   - per location: time never decreases, ENTER/LEAVE nest properly, every fork has a
 *     join and every team begin a team end with the same parallel id;
 *   - exact counts per location role (constructs.h), and the number of locations;
 *   - fork before every member's team begin, every team end before the join, every
 *     barrier's leaves after all of its enters (k-th barrier of a team on each thread);
 *   - per lock: acquisition orders 1..n, each acquired and released once, on the same
 *     location, release after acquire, and before the next acquisition (the runtime
 *     reports releases late: src/omp/omp_mutex.c stamps them early enough);
 *   - every created task starts once after its creation and completes once.
 * In hidden mode the target task runs on a hidden-helper thread (not recorded) unless
 * LIBOMP_USE_HIDDEN_HELPER_TASK=0.
 * Usage: harness [-t THREADS] [-d] [constructs|hidden]; -d prints every event. Exit status 0 when all checks pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/clock/timer.h"
#include "../../src/config/config.h"
#include "../../src/model/late_ends.h"
#include "../../src/omp/omp.h"
#include "../../src/record/record.h"
#include "../../src/util/log.h"
#include "constructs.h"

static int failures;
static int tasks_run_here = 1; /* every created task runs on a recorded thread */

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            failures++;                                    \
            if (failures <= 40) {                          \
                fprintf(stderr, "harness: FAIL: " __VA_ARGS__); \
                fputc('\n', stderr);                       \
            }                                              \
        }                                                  \
    } while (0)

typedef struct loc {
    st_thread_t *th;
    st_event_t *ev;
    size_t n;
    int role;
    long count[X__N];
} loc_t;

/* ---- key of an event ----------------------------------------------------------------- */

static int key_of(const st_event_t *e)
{
    static int region_key[ST_REGION__COUNT];
    static int ready;
    if (!ready) {
        for (st_region_t r = 0; r < ST_REGION__COUNT; r++) {
            region_key[r] = -1;
            char name[96];
            snprintf(name, sizeof name, "enter:%s", st_region_info(r)->name);
            for (int k = 0; k < X__N; k++)
                if (!strcmp(name, st_x_names[k]))
                    region_key[r] = k;
        }
        ready = 1;
    }
    if (e->kind == ST_EV_ENTER)
        return e->region < ST_REGION__COUNT ? region_key[e->region] : -1;
    for (int k = 0; k < X__N; k++)
        if (!strcmp(st_event_kind_name(e->kind), st_x_names[k]))
            return k;
    return -1;
}

/* ---- per-location structure ------------------------------------------------------------ */

static void check_location(loc_t *l)
{
    st_region_t stack[256];
    uint64_t forks[64], teams[64];
    int depth = 0, nforks = 0, nteams = 0;
    for (size_t i = 0; i < l->n; i++) {
        const st_event_t *e = &l->ev[i];
        CHECK(i == 0 || e->time >= l->ev[i - 1].time, "thread %u: time goes back at event %zu", l->th->index, i);
        int k = key_of(e);
        if (k >= 0)
            l->count[k]++;
        switch (e->kind) {
        case ST_EV_ENTER:
            if (depth < 256)
                stack[depth] = e->region;
            depth++;
            break;
        case ST_EV_LEAVE:
            CHECK(depth > 0 && (depth > 256 || stack[depth - 1] == e->region),
                  "thread %u event %zu: leave of %s does not match the open region %s", l->th->index, i,
                  st_region_info(e->region)->name, depth > 0 && depth <= 256 ? st_region_info(stack[depth - 1])->name : "-");
            if (depth > 0)
                depth--;
            break;
        case ST_EV_THREAD_FORK:
            if (nforks < 64)
                forks[nforks] = e->id;
            nforks++;
            break;
        case ST_EV_THREAD_JOIN:
            CHECK(nforks > 0 && forks[nforks - 1] == e->id, "thread %u: join %llx without its fork", l->th->index,
                  (unsigned long long)e->id);
            if (nforks > 0)
                nforks--;
            break;
        case ST_EV_THREAD_TEAM_BEGIN:
            if (nteams < 64)
                teams[nteams] = e->id;
            nteams++;
            break;
        case ST_EV_THREAD_TEAM_END:
            CHECK(nteams > 0 && teams[nteams - 1] == e->id, "thread %u: team end %llx without its begin",
                  l->th->index, (unsigned long long)e->id);
            if (nteams > 0)
                nteams--;
            break;
        default:
            break;
        }
    }
    CHECK(depth == 0, "thread %u: %d regions left open", l->th->index, depth);
    CHECK(nforks == 0, "thread %u: %d forks without join", l->th->index, nforks);
    CHECK(nteams == 0, "thread %u: %d teams without end", l->th->index, nteams);
}

/* ---- roles and counts -------------------------------------------------------------------- */

/* master: forks at depth 0; worker: begins a team the master forked; nested: any other team member. */
static void assign_roles(loc_t *locs, size_t n)
{
    uint64_t outer[256];
    size_t nouter = 0;
    for (size_t i = 0; i < n; i++) {
        int depth = 0;
        for (size_t j = 0; j < locs[i].n; j++) {
            const st_event_t *e = &locs[i].ev[j];
            depth += e->kind == ST_EV_THREAD_TEAM_BEGIN ? 1 : e->kind == ST_EV_THREAD_TEAM_END ? -1 : 0;
            if (e->kind == ST_EV_THREAD_FORK && depth == 0) {
                locs[i].role = ROLE_MASTER;
                if (nouter < 256)
                    outer[nouter++] = e->id;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (locs[i].role == ROLE_MASTER)
            continue;
        for (size_t j = 0; j < locs[i].n && locs[i].role < 0; j++) {
            const st_event_t *e = &locs[i].ev[j];
            if (e->kind != ST_EV_THREAD_TEAM_BEGIN)
                continue;
            locs[i].role = ROLE_NESTED;
            for (size_t k = 0; k < nouter; k++)
                if (outer[k] == e->id)
                    locs[i].role = ROLE_WORKER;
        }
    }
}

static void check_counts(loc_t *locs, size_t n, int t)
{
    long x[ROLE__N][X__N], total[X__N] = { 0 };
    int nrole[ROLE__N] = { 0 };
    st_constructs_expect(t, 0, x);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < X__N; k++)
            total[k] += locs[i].count[k];
        if (locs[i].role < 0)
            continue;
        nrole[locs[i].role]++;
        for (int k = 0; k < X__N; k++)
            CHECK(x[locs[i].role][k] < 0 || x[locs[i].role][k] == locs[i].count[k],
                  "thread %u (%s): %s: expected %ld, recorded %ld", locs[i].th->index, st_role_names[locs[i].role],
                  st_x_names[k], x[locs[i].role][k], locs[i].count[k]);
    }
    for (int k = 0; k < X__N; k++)
        CHECK(x[ROLE_ALL][k] < 0 || x[ROLE_ALL][k] == total[k], "all threads: %s: expected %ld, recorded %ld",
              st_x_names[k], x[ROLE_ALL][k], total[k]);
    CHECK(nrole[ROLE_MASTER] == 1, "%d master locations, expected 1", nrole[ROLE_MASTER]);
    CHECK(nrole[ROLE_WORKER] == t - 1, "%d worker locations, expected %d", nrole[ROLE_WORKER], t - 1);
    CHECK(nrole[ROLE_NESTED] == t, "%d nested-team locations, expected %d", nrole[ROLE_NESTED], t);
}

/* ---- relations across locations ------------------------------------------------------------- */

typedef struct item {
    uint64_t key, seq, time;
    uint32_t loc;
    int kind; /* an st_event_kind_t, or -1 / -2 for barrier enter / leave */
} item_t;

static item_t *items;
static size_t nitems, capitems;

static void add(uint64_t key, uint64_t seq, uint64_t time, uint32_t loc, int kind)
{
    if (nitems == capitems) {
        capitems = capitems ? capitems * 2 : 4096;
        items = realloc(items, capitems * sizeof *items);
        if (!items)
            abort();
    }
    items[nitems++] = (item_t){ key, seq, time, loc, kind };
}

static int cmp_item(const void *a, const void *b)
{
    const item_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->kind - y->kind;
}

/* Items: (parallel id, 0) fork/team/join; (parallel id, 1 + k) the k-th barrier of that team;
 * (lock, order) acquire/release; (task id, 0) create/first switch/complete. Keys of the
 * groups are disjoint: bit 62 marks locks, bit 61 tasks. */
static void collect_relations(loc_t *locs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t teamst[64], barriers[64];
        int depth = 0;
        for (size_t j = 0; j < locs[i].n; j++) {
            const st_event_t *e = &locs[i].ev[j];
            uint32_t l = (uint32_t)i;
            switch (e->kind) {
            case ST_EV_THREAD_FORK:
            case ST_EV_THREAD_JOIN:
                add(e->id, 0, e->time, l, e->kind);
                break;
            case ST_EV_THREAD_TEAM_BEGIN:
                add(e->id, 0, e->time, l, e->kind);
                if (depth < 64)
                    teamst[depth] = e->id, barriers[depth] = 0;
                depth++;
                break;
            case ST_EV_THREAD_TEAM_END:
                add(e->id, 0, e->time, l, e->kind);
                depth--;
                break;
            case ST_EV_ENTER:
            case ST_EV_LEAVE:
                if ((e->region == ST_REGION_OMP_BARRIER || e->region == ST_REGION_OMP_IBARRIER) && depth > 0 &&
                    depth <= 64) {
                    add(teamst[depth - 1], 1 + barriers[depth - 1], e->time, l, e->kind == ST_EV_ENTER ? -2 : -1);
                    if (e->kind == ST_EV_LEAVE)
                        barriers[depth - 1]++;
                }
                break;
            case ST_EV_THREAD_ACQUIRE_LOCK:
            case ST_EV_THREAD_RELEASE_LOCK:
                add((e->id & ~(3ull << 61)) | 1ull << 62, e->bytes, e->time, l, e->kind);
                break;
            case ST_EV_THREAD_TASK_CREATE:
            case ST_EV_THREAD_TASK_COMPLETE:
                add((e->id & ~(3ull << 61)) | 1ull << 61, 0, e->time, l, e->kind);
                break;
            case ST_EV_THREAD_TASK_SWITCH:
                add((e->id & ~(3ull << 61)) | 1ull << 61, 1, e->time, l, e->kind);
                break;
            default:
                break;
            }
        }
    }
    qsort(items, nitems, sizeof *items, cmp_item);
}

/* Checks one group of items with the same key and seq, items[a..b). */
static void check_group(size_t a, size_t b)
{
    const item_t *g = &items[a];
    uint64_t key = g->key;
    if (key >> 62 & 1) { /* lock order seq: one acquire, one release, same location, in order */
        int acq = 0, rel = 0;
        uint64_t ta = 0, tr = 0;
        for (size_t i = a; i < b; i++) {
            if (items[i].kind == ST_EV_THREAD_ACQUIRE_LOCK)
                acq++, ta = items[i].time;
            else
                rel++, tr = items[i].time;
        }
        unsigned long long lock = key & ~(1ull << 62), order = g->seq;
        CHECK(a > 0 && items[a - 1].key == key ? 1 : order == 1, "lock %llx: first order %llu", lock, order);
        CHECK(order > 0 && acq == 1 && rel == 1, "lock %llx order %llu: %d acquisitions, %d releases", lock, order,
              acq, rel);
        CHECK(b - a != 2 || items[a].loc == items[a + 1].loc, "lock %llx order %llu: acquired and released on "
              "different threads", lock, order);
        CHECK(ta <= tr, "lock %llx order %llu: released before acquired", lock, order);
        if (b < nitems && items[b].key == key) {
            CHECK(items[b].seq == order + 1, "lock %llx: order %llu is followed by order %llu", lock, order,
                  (unsigned long long)items[b].seq);
            for (size_t i = b; i < nitems && items[i].key == key && items[i].seq == order + 1; i++)
                CHECK(items[i].kind != ST_EV_THREAD_ACQUIRE_LOCK || items[i].time >= tr,
                      "lock %llx order %llu: released %llu ns after the next acquisition", lock, order,
                      (unsigned long long)(tr - items[i].time));
        }
        return;
    }
    if (key >> 61 & 1) { /* task: created once, completed once, first switch to it after the creation */
        if (g->seq != 0)
            return;
        int create = 0, complete = 0;
        uint64_t tc = 0, first = UINT64_MAX;
        for (size_t i = a; i < b; i++) {
            if (items[i].kind == ST_EV_THREAD_TASK_CREATE)
                create++, tc = items[i].time;
            else
                complete++;
        }
        for (size_t i = b; i < nitems && items[i].key == key; i++)
            if (items[i].time < first)
                first = items[i].time;
        CHECK(create == 1 && (complete == 1 || !tasks_run_here), "task %llx: %d creations, %d completions",
              (unsigned long long)key, create, complete);
        CHECK((first != UINT64_MAX && first >= tc) || !tasks_run_here, "task %llx: never started after its creation",
              (unsigned long long)key);
        return;
    }
    if (g->seq == 0) { /* fork -> team begins; team ends -> join */
        uint64_t tf = 0, tj = UINT64_MAX, maxend = 0, minbegin = UINT64_MAX;
        int forks = 0, joins = 0;
        for (size_t i = a; i < b; i++) {
            const item_t *it = &items[i];
            if (it->kind == ST_EV_THREAD_FORK)
                forks++, tf = it->time;
            else if (it->kind == ST_EV_THREAD_JOIN)
                joins++, tj = it->time;
            else if (it->kind == ST_EV_THREAD_TEAM_BEGIN && it->time < minbegin)
                minbegin = it->time;
            else if (it->kind == ST_EV_THREAD_TEAM_END && it->time > maxend)
                maxend = it->time;
        }
        CHECK(forks == 1 && joins == 1, "parallel %llx: %d forks, %d joins", (unsigned long long)key, forks, joins);
        CHECK(tf <= minbegin, "parallel %llx: a team begins before the fork", (unsigned long long)key);
        CHECK(maxend <= tj, "parallel %llx: a team ends %llu ns after the join", (unsigned long long)key,
              (unsigned long long)(maxend - tj));
        return;
    }
    uint64_t maxenter = 0, minleave = UINT64_MAX; /* barrier instance */
    for (size_t i = a; i < b; i++) {
        if (items[i].kind == -2 && items[i].time > maxenter)
            maxenter = items[i].time;
        if (items[i].kind == -1 && items[i].time < minleave)
            minleave = items[i].time;
    }
    CHECK(maxenter <= minleave, "parallel %llx barrier %llu: a thread leaves %llu ns before the last enters",
          (unsigned long long)key, (unsigned long long)g->seq, (unsigned long long)(maxenter - minleave));
}

static void check_relations(loc_t *locs, size_t n)
{
    collect_relations(locs, n);
    size_t groups = 0;
    for (size_t a = 0, b; a < nitems; a = b) {
        for (b = a; b < nitems && items[b].key == items[a].key && items[b].seq == items[a].seq; b++)
            ;
        check_group(a, b);
        groups++;
    }
    printf("harness: %zu relation groups checked\n", groups);
}

/* ---- programs ------------------------------------------------------------------------------ */

static int hidden_helpers(void)
{
    int x = 0;
#pragma omp target nowait map(tofrom: x)
    x++;
#pragma omp taskwait
    return x;
}

static void dump_location(const loc_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const st_event_t *e = &l->ev[i];
        printf("%u %12llu %-18s %-28s id=%llx peer=%d tag=%d op=%u bytes=%llu aux=%llx\n", l->th->index,
               (unsigned long long)e->time, st_event_kind_name(e->kind),
               e->kind <= ST_EV_LEAVE ? st_region_info(e->region)->name : "", (unsigned long long)e->id, e->peer,
               e->tag, e->op, (unsigned long long)e->bytes, (unsigned long long)e->aux);
    }
}

int main(int argc, char **argv)
{
    int t = 3, dump = 0;
    const char *mode = "constructs";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            t = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-d"))
            dump = 1;
        else
            mode = argv[i];
    }
    char err[600];
    if (st_config_load(err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return 2;
    }
    st_log_set_verbosity((int)st_config.verbose);
    st_timer_init(st_config.clock, st_config.timer);
    st_record_active = 1;

    double sum = !strcmp(mode, "hidden") ? hidden_helpers() : st_constructs_run(t, NULL);
    st_omp_finalize();
    st_record_stop();

    size_t n = 0;
    st_thread_t **all = st_record_threads(&n);
    loc_t *locs = calloc(n ? n : 1, sizeof *locs);
    size_t nev = 0;
    st_thread_data_t *td = calloc(n ? n : 1, sizeof *td);
    st_late_ends_t late = { 0 };
    for (size_t i = 0; i < n; i++) {
        locs[i].th = all[i];
        locs[i].ev = st_record_load(all[i], &locs[i].n);
        locs[i].role = -1;
        nev += locs[i].n;
        td[i] = (st_thread_data_t){ .index = all[i]->index, .events = locs[i].ev, .nevents = locs[i].n };
    }
    /* the workers' late team ends get their masters' times, as the trace's preparation stamps them */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < locs[i].n; j++)
            st_late_ends_note(&late, &td[i], &locs[i].ev[j]);
    uint64_t unstamped = st_late_ends_resolve(&late);
    CHECK(unstamped == 0, "%llu late team end(s) found no master's end", (unsigned long long)unstamped);
    free(td);
    for (size_t i = 0; i < n; i++) {
        if (dump)
            dump_location(&locs[i]);
        check_location(&locs[i]);
    }
    printf("harness: %s, %d threads: %zu locations, %zu events, checksum %g\n", mode, t, n, nev, sum);
    if (!strcmp(mode, "constructs")) {
        assign_roles(locs, n);
        check_counts(locs, n, t);
    } else {
        CHECK(n <= 1, "%zu locations: hidden-helper threads must not get one", n);
        /* With hidden helpers the target task runs on one of them, unrecorded. */
        const char *hh = getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
        tasks_run_here = hh && !strcmp(hh, "0");
    }
    check_relations(locs, n);
    for (size_t i = 0; i < n; i++)
        free(locs[i].ev);
    free(locs);
    free(items);
    if (failures)
        fprintf(stderr, "harness: %d checks failed\n", failures);
    else
        printf("harness: all checks passed\n");
    return failures ? 1 : 0;
}
