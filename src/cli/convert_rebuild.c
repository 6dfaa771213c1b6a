/*
 * convert_rebuild.c — what a converted rank (convert.c) lacks, rebuilt from the rest of its events.
 *
 * What OTF2 has no field for, the writer stores as attributes: a blocking receive's post
 * id (synctrace:post_id; request ids come from the same process-wide counter, so together
 * they are the post order the derivation matches receives by) and a collective's instance
 * number (synctrace:coll_seq). Archives of earlier versions lack them; for those (per rank,
 * when any receive or collective lacks it) they are rebuilt as before:
 *  - receive post order: request ids are scaled by K and a blocking receive gets an id
 *    between its thread's previous and next request (exact on one thread; receives of one
 *    channel posted concurrently by several threads are ordered as recorded); after CLC
 *    the request ids are unscaled and the rebuilt receive ids dropped (not written);
 *  - collective instance numbers: per communicator, in the order of the events that
 *    drew them in the shim (a blocking collective's end, a nonblocking one's request).
 * Rebuilt from what OTF2 stores, as a mapping of identities: OpenMP task ids, explicit
 * tasks numbered by (team, creator, generation), implicit tasks by (parallel region,
 * thread); the task a switch leaves is the one the thread ran before.
 */
#include "convert_rebuild.h"
#include "../util/msort.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- receive post order ---------------------------------------------------------------------------- */

static int takes_id(unsigned k)
{
    return k == ST_EV_MPI_ISEND || k == ST_EV_MPI_IRECV_REQUEST || k == ST_EV_MPI_ICOLL_REQUEST;
}

static int is_request_kind(unsigned k)
{
    return takes_id(k) || k == ST_EV_MPI_IRECV || k == ST_EV_MPI_ISEND_COMPLETE ||
           k == ST_EV_MPI_REQUEST_CANCELLED || k == ST_EV_MPI_ICOLL_COMPLETE;
}

int st_cli_rebuild_post_ids(st_rankdata_t *rd, uint64_t *scale, char *err, size_t errlen)
{
    uint64_t K = 1, maxid = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0, run = 0; i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            run = takes_id(e->kind) ? 0 : run + (e->kind == ST_EV_MPI_RECV);
            K = run + 1 > K ? run + 1 : K;
            maxid = is_request_kind(e->kind) && e->id > maxid ? e->id : maxid;
        }
    if (maxid && (maxid == UINT64_MAX || K > UINT64_MAX / 2 / (maxid + 1)))
        return snprintf(err, errlen, "rank %d: request ids too large to rebuild the receive order", rd->rank), -1;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0, last = 0, sub = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (takes_id(e->kind))
                last = e->id, sub = 0;
            if (is_request_kind(e->kind))
                e->id *= K;
            else if (e->kind == ST_EV_MPI_RECV)
                e->id = last * K + ++sub;
        }
    *scale = K;
    return 0;
}

void st_cli_unscale_ids(st_rankdata_t *rd, uint64_t K)
{
    for (uint32_t t = 0; K && t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (is_request_kind(e->kind))
                e->id /= K;
            else if (e->kind == ST_EV_MPI_RECV)
                e->id = 0;
        }
}

typedef struct seq_item {
    uint32_t comm, thread;
    uint64_t time, pos;
    st_event_t *e;
} seq_item_t;

static int cmp_seq(const void *a, const void *b)
{
    const seq_item_t *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

typedef struct req_time { uint64_t id, time; } req_time_t;

static int cmp_req(const void *a, const void *b)
{
    uint64_t x = ((const req_time_t *)a)->id, y = ((const req_time_t *)b)->id;
    return (x > y) - (x < y);
}

/* Time of every nonblocking-collective request of rd, sorted by request id. */
static req_time_t *request_times(const st_rankdata_t *rd, size_t *n)
{
    size_t k = 0, cap = 16;
    req_time_t *v = malloc(sizeof *v * cap);
    for (uint32_t t = 0; v && t < rd->nthreads; t++)
        for (uint64_t i = 0; v && i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            if (e->kind != ST_EV_MPI_ICOLL_REQUEST)
                continue;
            if (k == cap) {
                req_time_t *g = realloc(v, sizeof *v * (cap *= 2));
                if (!g)
                    free(v);
                v = g;
                if (!v)
                    break;
            }
            v[k++] = (req_time_t){ e->id, e->time };
        }
    if (v && k > 1)
        qsort(v, k, sizeof *v, cmp_req);
    *n = k;
    return v;
}

static uint64_t request_time(const req_time_t *v, size_t n, uint64_t id, uint64_t dflt)
{
    req_time_t key = { id, 0 };
    const req_time_t *f = n ? bsearch(&key, v, n, sizeof key, cmp_req) : NULL;
    return f ? f->time : dflt;
}

int st_cli_rebuild_coll_seqs(st_rankdata_t *rd)
{
    size_t n = 0, k = 0, nreq = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            n += rd->threads[t].events[i].kind == ST_EV_MPI_COLL_END ||
                 rd->threads[t].events[i].kind == ST_EV_MPI_ICOLL_COMPLETE;
    seq_item_t *v = malloc(sizeof *v * (n ? n : 1));
    req_time_t *req = request_times(rd, &nreq);
    if (!v || !req) {
        free(v), free(req);
        return -1;
    }
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (e->kind == ST_EV_MPI_COLL_END)
                v[k++] = (seq_item_t){ e->comm, rd->threads[t].index, e->time, i, e };
            else if (e->kind == ST_EV_MPI_ICOLL_COMPLETE)
                v[k++] = (seq_item_t){ e->comm, rd->threads[t].index, request_time(req, nreq, e->id, e->time), i, e };
        }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_seq);
    for (size_t i = 0, s = 0; i < n; i++) {
        s = i && v[i].comm == v[i - 1].comm ? s + 1 : 0;
        *(v[i].e->kind == ST_EV_MPI_COLL_END ? &v[i].e->id : &v[i].e->aux) = s;
    }
    free(v);
    free(req);
    return 0;
}

/* ---- OpenMP task ids ---------------------------------------------------------------------------------- */

typedef struct triple { uint64_t team, creator, gen; } triple_t;

static int cmp_triple(const void *a, const void *b)
{
    const triple_t *x = a, *y = b;
    if (x->team != y->team)
        return x->team < y->team ? -1 : 1;
    if (x->creator != y->creator)
        return x->creator < y->creator ? -1 : 1;
    return (x->gen > y->gen) - (x->gen < y->gen);
}

typedef struct task_ids {
    triple_t *t;   /* explicit tasks, sorted */
    size_t    nt;
    uint64_t *pid; /* parallel ids, sorted */
    size_t    np;
} task_ids_t;

static int is_task(unsigned k)
{
    return k == ST_EV_THREAD_TASK_CREATE || k == ST_EV_THREAD_TASK_SWITCH || k == ST_EV_THREAD_TASK_COMPLETE;
}

static int collect_tasks(const st_rankdata_t *rd, task_ids_t *ti)
{
    size_t nt = 0, np = 1;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            nt += is_task(rd->threads[t].events[i].kind);
            np += rd->threads[t].events[i].kind == ST_EV_THREAD_TEAM_BEGIN ||
                  rd->threads[t].events[i].kind == ST_EV_THREAD_FORK;
        }
    ti->t = malloc(sizeof *ti->t * (nt + 1));
    ti->pid = malloc(sizeof *ti->pid * np);
    if (!ti->t || !ti->pid)
        return -1;
    ti->pid[ti->np++] = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            if (is_task(e->kind) && e->bytes2)
                ti->t[ti->nt++] = (triple_t){ e->comm, (uint32_t)e->tag, e->bytes2 };
            else if (e->kind == ST_EV_THREAD_TEAM_BEGIN || e->kind == ST_EV_THREAD_FORK)
                ti->pid[ti->np++] = e->id;
        }
    if (ti->nt > 1)
        qsort(ti->t, ti->nt, sizeof *ti->t, cmp_triple);
    if (ti->np > 1)
        qsort(ti->pid, ti->np, sizeof *ti->pid, st_cmp_u64);
    return 0;
}

static uint64_t explicit_id(const task_ids_t *ti, const st_event_t *e)
{
    triple_t k = { e->comm, (uint32_t)e->tag, e->bytes2 };
    const triple_t *f = bsearch(&k, ti->t, ti->nt, sizeof k, cmp_triple);
    return f ? (uint64_t)(f - ti->t) + 1 : 0;
}

static uint64_t implicit_id(const task_ids_t *ti, uint64_t pid, uint32_t thread)
{
    const uint64_t *f = bsearch(&pid, ti->pid, ti->np, sizeof pid, st_cmp_u64);
    return 1ull << 62 | (uint64_t)(f ? f - ti->pid : 0) << 20 | (thread & 0xfffffu);
}

typedef struct frame { uint64_t pid, cur; } frame_t;

/* One thread: frames follow src/relations/derive_omp.c (pushed at fork / team begin, popped at team end / join). */
static int thread_tasks(const task_ids_t *ti, st_thread_data_t *td)
{
    frame_t *st = malloc(sizeof *st * (td->nevents + 1));
    size_t n = 1;
    if (!st)
        return -1;
    st[0] = (frame_t){ 0, implicit_id(ti, 0, td->index) };
    for (uint64_t i = 0; i < td->nevents; i++) {
        st_event_t *e = &td->events[i];
        if ((e->kind == ST_EV_THREAD_FORK || e->kind == ST_EV_THREAD_TEAM_BEGIN) && st[n - 1].pid != e->id) {
            st[n++] = (frame_t){ e->id, implicit_id(ti, e->id, td->index) };
        } else if (e->kind == ST_EV_THREAD_TEAM_END || e->kind == ST_EV_THREAD_JOIN) {
            for (size_t k = n; k > 1; k--)
                if (st[k - 1].pid == e->id) {
                    n = k - 1;
                    break;
                }
        } else if (is_task(e->kind)) {
            uint64_t id = e->bytes2 ? explicit_id(ti, e) : implicit_id(ti, st[n - 1].pid, td->index);
            if (e->kind == ST_EV_THREAD_TASK_SWITCH) {
                e->aux = st[n - 1].cur;
                st[n - 1].cur = id;
            }
            e->id = id;
            e->comm = 0, e->tag = 0, e->bytes2 = 0;
        }
    }
    free(st);
    return 0;
}

int st_cli_rebuild_task_ids(st_rankdata_t *rd)
{
    task_ids_t ti = { 0 };
    int rc = collect_tasks(rd, &ti);
    for (uint32_t t = 0; rc == 0 && t < rd->nthreads; t++)
        rc = thread_tasks(&ti, &rd->threads[t]);
    free(ti.t);
    free(ti.pid);
    return rc;
}
