/*
 * rma.c — recording MPI one-sided communication (see st_mpi.h): windows, operations with their
 * matching ids, and the synchronizations that complete them.
 *
 * A window is known by the communicator it was created on and its number among the windows this
 * process created there (st_comm_t.nwins: the same on every member, as creation is collective on
 * it); the archive writer turns that pair into one OTF2 RmaWin definition. Per window and target,
 * two counters: the matching ids of the last operation issued and of the last completed at the
 * target. An operation's matching id is (target << 40 | its number at that target), so the operations
 * a synchronization completes at a target are the ids between the two counters: no list, no
 * allocation after creation.
 * The targets with operations since the last synchronization of the whole window are listed (each
 * once) so that a fence or MPI_Win_unlock_all visits only them.
 *
 * The group of an MPI_Win_post / MPI_Win_start is translated to the window's ranks once per call
 * (PMPI_Group_translate_ranks into per-window arrays made at creation, one for posts and one for
 * starts, which MPI lets two threads call at once) and recorded as one RMA_GROUP_MEMBER event per
 * member after the RMA_GROUP_SYNC, at its time (the trace model folds them into a group table).
 *
 * Post -> start made true (docs/clc.md, Decisions 12): after recording its RMA_GROUP_SYNC, a post
 * sends each origin of its group a 16-byte note (k, the pair's post count on the window, and the
 * window's number) under the window's own tag on the notes communicator of the communicator it was
 * created on (rma_notes.h: one copy for all of that communicator's windows); a start, after its
 * PMPI_Win_start returned, receives the note of each
 * target of its group (Iprobe from that target, with sched_yield too after NOTE_SPIN_NS; never a
 * blocking wait) before it records its own RMA_GROUP_SYNC. Both record, after the RMA_GROUP_SYNC
 * and at its time, OTF2's RmaSync records of the notes: NOTIFY_OUT per note sent (peer: the
 * origin), NOTIFY_IN per note taken (peer: the target); the relation is derived only where both are (derive_pscw.c). MPI
 * allows only one access epoch per window at a time, so one start at most receives under a window's
 * tag at once, and the notes of one target arrive in order: no stash is needed.
 * No notes with MPI_MODE_NOCHECK (MPI requires it on both sides); a target whose note does not
 * come within NOTE_BOUND_NS (it sends none: a window it does not know) is not waited for on that
 * window again.
 *
 * Handle -> window: open addressing keyed by the whole handle (ST_HMAP_KEY), lock-free lookups,
 * registration and release under a mutex (window creation and release are collectives, not the hot
 * path). Keys 0 and 1 are no window handle (MPICH's are large integers, Open MPI's pointers).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/OTF2_Events.h>

#include "comm.h"
#include "handle_map.h"
#include "lock_held.h"
#include "lock_ticket.h"
#include "rma.h"
#include "rma_notes.h"
#include "rma_win.h"
#include "st_mpi.h"
#include "../exchange/polite_mpi.h"
#include "../util/clockread.h"
#include "../util/log.h"

_Static_assert((int)ST_RMA_SYNC_NOTIFY_IN == (int)OTF2_RMA_SYNC_TYPE_NOTIFY_IN && (int)ST_RMA_SYNC_NOTIFY_OUT == (int)OTF2_RMA_SYNC_TYPE_NOTIFY_OUT,
               "the notes' RMA_SYNC ops are OTF2's (model/event.h)");
#define NOTE_BOUND_NS 5000000000ull /* a start waits at most this long for a target's note */
#define NOTE_SPIN_NS  50000ull      /* and polls without yielding the processor for this long */


st_win_slot_t st_win_map[ST_WIN_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;


/* win_get past the first slot i of handle h's probe path. */
static __attribute__((noinline)) st_win_t *win_probe(uint64_t h, uint32_t i)
{
    for (uint32_t n = 0; h > ST_WIN_REUSING && n < ST_WIN_SLOTS; n++, i = (i + 1) & (ST_WIN_SLOTS - 1)) {
        uint64_t k = atomic_load_explicit(&st_win_map[i].handle, memory_order_acquire);
        if (k == h)
            return atomic_load_explicit(&st_win_map[i].win, memory_order_acquire);
        if (k == 0)
            return NULL;
    }
    return NULL;
}

/* The window of a handle, NULL if none: the first slot of its probe path inline (the operations' path). */
static inline st_win_t *win_get(MPI_Win win)
{
    const st_win_slot_t *s = st_win_first(win);
    if (ST_LIKELY(s != NULL))
        return atomic_load_explicit(&s->win, memory_order_acquire);
    uint64_t h = ST_HMAP_KEY(win);
    return win_probe(h, st_win_slot_of(h));
}

/* Binds handle to w (NULL: forgets it; the slot stays bound to the handle with no window). A handle
 * MPI reuses (MPICH's) keeps its slot; a new one takes the first forgotten or empty slot on its probe
 * path, so the slots bound the windows alive at once, not those created over the run (Open MPI's
 * handles are pointers that need not come back). */
static int win_put(MPI_Win win, st_win_t *w)
{
    uint64_t h = ST_HMAP_KEY(win);
    uint32_t i = st_win_slot_of(h), free_slot = ST_WIN_SLOTS;
    int rc = -1;
    pthread_mutex_lock(&lock);
    for (uint32_t n = 0; h > ST_WIN_REUSING && n < ST_WIN_SLOTS; n++, i = (i + 1) & (ST_WIN_SLOTS - 1)) {
        uint64_t k = atomic_load(&st_win_map[i].handle);
        if (k == h) {
            atomic_store_explicit(&st_win_map[i].win, w, memory_order_release);
            free_slot = ST_WIN_SLOTS;
            rc = 0;
            break;
        }
        if (free_slot == ST_WIN_SLOTS && (k == 0 || !atomic_load(&st_win_map[i].win)))
            free_slot = i;
        if (k == 0)
            break;
    }
    if (rc != 0 && w && free_slot < ST_WIN_SLOTS) {
        atomic_store_explicit(&st_win_map[free_slot].handle, ST_WIN_REUSING, memory_order_release);
        atomic_store_explicit(&st_win_map[free_slot].win, w, memory_order_release);
        atomic_store_explicit(&st_win_map[free_slot].handle, h, memory_order_release);
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* The notes of a window being released (every epoch closed): the sends' requests left to MPI, the notes
 * that arrived and were not taken (a start that gave up, or failed) received with the communicator's release. */
static void notes_free(st_win_t *w)
{
    for (uint32_t r = 0; w->nreq && r < w->size; r++)
        if (w->nreq[r] != MPI_REQUEST_NULL)
            PMPI_Request_free(&w->nreq[r]);
    st_rma_notes_release(w->notes, w->ntag);
    w->notes = NULL;
}

static void win_release(st_win_t *w)
{
    if (!w)
        return;
    free(w->tgt);
    free(w->list);
    free(w->iota);
    free(w->xpost);
    free(w->xstart);
    notes_free(w);
    free(w->nposted);
    free(w->nstarted);
    free(w->silent);
    free(w->got);
    free(w->note);
    free(w->nreq);
    if (w->group != MPI_GROUP_NULL)
        PMPI_Group_free(&w->group);
    free(w);
}

static st_win_t *win_new(const st_comm_t *c)
{
    st_win_t *w = calloc(1, sizeof *w);
    uint32_t n = c->def.size;
    if (!w)
        return NULL;
    w->comm = c->index;
    w->size = n;
    w->world = c->def.world;
    w->self = -1;
    w->group = MPI_GROUP_NULL;
    for (uint32_t r = 0; r < n; r++)
        if (c->def.world[r] == st_world_rank)
            w->self = (int32_t)r;
    w->tgt = calloc(n, sizeof *w->tgt);
    w->list = calloc(n, sizeof *w->list);
    w->iota = calloc(n, sizeof *w->iota);
    w->xpost = calloc(n, sizeof *w->xpost);
    w->xstart = calloc(n, sizeof *w->xstart);
    w->nposted = calloc(n, sizeof *w->nposted);
    w->nstarted = calloc(n, sizeof *w->nstarted);
    w->silent = calloc(n, sizeof *w->silent);
    w->got = calloc(n, sizeof *w->got);
    w->note = calloc(2 * (size_t)n, sizeof *w->note);
    w->nreq = calloc(n, sizeof *w->nreq);
    if (!w->tgt || !w->list || !w->iota || !w->xpost || !w->xstart ||
        !w->nposted || !w->nstarted || !w->silent || !w->got || !w->note || !w->nreq) {
        win_release(w);
        return NULL;
    }
    for (uint32_t r = 0; r < n; r++) {
        w->tgt[r].world = c->def.world[r];
        /* ids below a target's first: none issued, none completed */
        w->tgt[r].issued = w->tgt[r].done = w->tgt[r].ldone = (uint64_t)r << ST_RMA_TARGET_BITS;
        w->iota[r] = (int)r;
        w->nreq[r] = MPI_REQUEST_NULL;
    }
    return w;
}

static void set_win(st_event_t *e, const st_win_t *w)
{
    e->comm = w->comm;
    e->tag = (int32_t)w->seq;
}

/* ---- creation and release ------------------------------------------------------------------ */

void st_mpi_rma_coll_begin(st_thread_t *th)
{
    st_record_again(th, ST_EV_RMA_COLL_BEGIN)->comm = ST_NO_COMM; /* OTF2's record names no window */
}

static void coll_end(st_thread_t *th, const st_win_t *w, int op, uint64_t level)
{
    st_event_t *e = st_record(th, ST_EV_RMA_COLL_END);
    e->op = (uint16_t)op;
    e->bytes = level;
    if (w)
        set_win(e, w);
    else
        e->comm = ST_NO_COMM; /* a window the tool does not know: the writer names none */
}

void st_mpi_win_create(st_thread_t *th, int rc, MPI_Comm comm, MPI_Win win)
{
    int ok = rc == MPI_SUCCESS && win != MPI_WIN_NULL;
    st_comm_t *c = ok ? st_comm_get(comm) : NULL;
    st_win_t *w = c && !(c->def.flags & ST_COMMF_INTER) ? win_new(c) : NULL;
    /* the notes' communicator on every member that created the window, known to the tool or not (it may
     * be made now, a collective); kept by the window only where it is known */
    int tag = 0;
    st_rma_notes_t *notes = ok ? st_rma_notes_attach(comm, w != NULL, &tag) : NULL;
    if (w) {
        if (PMPI_Win_get_group(win, &w->group) != MPI_SUCCESS)
            w->group = MPI_GROUP_NULL;
        w->notes = notes, w->ntag = tag;
        w->tickets = st_lock_held_by(win);
        w->seq = atomic_fetch_add(&c->nwins, 1);
        if (win_put(win, w) != 0) {
            st_log_warn_once("more than %u RMA windows at once; the operations on later ones are not traced",
                             ST_WIN_SLOTS);
            win_release(w);
            w = NULL;
        } else
            set_win(st_record(th, ST_EV_RMA_WIN_CREATE), w);
    } else if (c)
        st_log_warn_once("out of memory for an RMA window; its operations are not traced");
    coll_end(th, w, OTF2_COLLECTIVE_OP_CREATE_HANDLE, OTF2_RMA_SYNC_LEVEL_NONE);
}

st_win_t *st_mpi_win_free_begin(st_thread_t *th, MPI_Win win)
{
    st_mpi_rma_coll_begin(th);
    st_win_t *w = win_get(win);
    if (w) {
        set_win(st_record_again(th, ST_EV_RMA_WIN_DESTROY), w);
        win_put(win, NULL); /* before PMPI: afterwards MPI may hand the handle to another thread */
    }
    return w;
}

void st_mpi_win_free_end(st_thread_t *th, int rc, st_win_t *w)
{
    (void)rc;
    coll_end(th, w, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, OTF2_RMA_SYNC_LEVEL_NONE);
    win_release(w);
}

/* ---- operations ---------------------------------------------------------------------------- */

void st_mpi_rma_op(st_thread_t *th, int op, int target, uint64_t sent, uint64_t recvd, MPI_Win win,
                   st_req_info_t *ri)
{
    if (ri)
        memset(ri, 0, sizeof *ri);
    st_win_t *w;
    if (target == MPI_PROC_NULL || target < 0 || !(w = win_get(win)) || (uint32_t)target >= w->size)
        return;
    uint32_t t = (uint32_t)target;
    st_win_target_t *tg = &w->tgt[t];
    uint64_t id = st_rma_next_id(tg);
    /* a plain load first: the locked exchange only on a target's first operation */
    if (!atomic_load_explicit(&tg->listed, memory_order_relaxed) &&
        !atomic_exchange_explicit(&tg->listed, 1, memory_order_relaxed))
        atomic_store_explicit(&w->list[atomic_fetch_add_explicit(&w->nlist, 1, memory_order_relaxed)], t,
                              memory_order_relaxed);
    /* at the ENTER's time, as a send */
    st_event_t *e = st_record_again(th, st_rma_event_kind(op));
    st_rma_op_event(e, e->time, e->epoch, w, op, tg, id, sent, recvd);
    if (ri) {
        ri->kind = ST_REQ_RMA;
        ri->id = id;
        ri->comm = w->comm;
        ri->tag = (int32_t)w->seq;
    }
}

void st_mpi_rma_complete(st_thread_t *th, const st_req_info_t *ri)
{
    st_event_t *e = st_record(th, ST_EV_RMA_OP_COMPLETE_NONBLOCKING);
    e->comm = ri->comm;
    e->tag = ri->tag;
    e->id = ri->id;
}

/* ---- synchronization ----------------------------------------------------------------------- */

/* One RMA_OP_COMPLETE_REMOTE per operation pending at target t, all at one time (*first: whether
 * the clock has been read yet for this synchronization). */
static void complete_target(st_thread_t *th, st_win_t *w, uint32_t t, int *first)
{
    uint64_t n = atomic_load_explicit(&w->tgt[t].issued, memory_order_relaxed);
    uint64_t d = atomic_exchange_explicit(&w->tgt[t].done, n, memory_order_relaxed);
    for (uint64_t k = d + 1; k <= n; k++) {
        st_event_t *e = *first ? st_record(th, ST_EV_RMA_OP_COMPLETE_REMOTE)
                               : st_record_again(th, ST_EV_RMA_OP_COMPLETE_REMOTE);
        *first = 0;
        set_win(e, w);
        e->id = k;
    }
}

/* Every pending operation of the window, target by target in the order they were first used. */
static void complete_all(st_thread_t *th, st_win_t *w, int *first)
{
    uint32_t n = atomic_exchange_explicit(&w->nlist, 0, memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < w->size; i++) {
        uint32_t t = atomic_load_explicit(&w->list[i], memory_order_relaxed);
        atomic_store_explicit(&w->tgt[t].listed, 0, memory_order_relaxed);
        complete_target(th, w, t, first);
    }
}

/* One RMA_OP_COMPLETE_NONBLOCKING per operation at target t not yet completed at the origin by a
 * local flush nor at the target (a request-based form completed by its Wait/Test may be named again:
 * its request is not followed here). */
static void complete_target_local(st_thread_t *th, st_win_t *w, uint32_t t, int *first)
{
    uint64_t n = atomic_load_explicit(&w->tgt[t].issued, memory_order_relaxed);
    uint64_t d = atomic_load_explicit(&w->tgt[t].done, memory_order_relaxed);
    uint64_t l = atomic_exchange_explicit(&w->tgt[t].ldone, n, memory_order_relaxed);
    for (uint64_t k = (l > d ? l : d) + 1; k <= n; k++) {
        st_event_t *e = *first ? st_record(th, ST_EV_RMA_OP_COMPLETE_NONBLOCKING)
                               : st_record_again(th, ST_EV_RMA_OP_COMPLETE_NONBLOCKING);
        *first = 0;
        set_win(e, w);
        e->id = k;
    }
}

void st_mpi_win_flush(st_thread_t *th, int rc, int at, int target, MPI_Win win)
{
    st_win_t *w = win_get(win);
    if (!w || rc != MPI_SUCCESS || (target != ST_RMA_ALL && (target < 0 || (uint32_t)target >= w->size)))
        return;
    int first = 1;
    if (at == ST_RMA_AT_REMOTE && target == ST_RMA_ALL)
        complete_all(th, w, &first);
    else if (at == ST_RMA_AT_REMOTE)
        complete_target(th, w, (uint32_t)target, &first);
    else if (target != ST_RMA_ALL)
        complete_target_local(th, w, (uint32_t)target, &first);
    else { /* the targets stay listed: their remote completion is still to come */
        uint32_t n = atomic_load_explicit(&w->nlist, memory_order_relaxed);
        for (uint32_t i = 0; i < n && i < w->size; i++)
            complete_target_local(th, w, atomic_load_explicit(&w->list[i], memory_order_relaxed), &first);
    }
}

void st_mpi_win_sync(st_thread_t *th, int rc, MPI_Win win)
{
    st_win_t *w = win_get(win);
    if (!w || rc != MPI_SUCCESS)
        return;
    st_event_t *e = st_record(th, ST_EV_RMA_SYNC);
    set_win(e, w);
    e->peer = w->self >= 0 ? w->world[w->self] : -1;
    e->op = OTF2_RMA_SYNC_TYPE_MEMORY;
}

void st_mpi_win_fence(st_thread_t *th, int rc, int massert, MPI_Win win)
{
    st_win_t *w = win_get(win);
    int first = 1;
    if (w && rc == MPI_SUCCESS)
        complete_all(th, w, &first);
    coll_end(th, w, OTF2_COLLECTIVE_OP_BARRIER,
             (massert & MPI_MODE_NOPRECEDE) ? OTF2_RMA_SYNC_LEVEL_MEMORY
                                            : OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY);
}

void st_mpi_win_lock(st_thread_t *th, int lock_type, int target, MPI_Win win)
{
    st_win_t *w = win_get(win);
    if (!w || (target != ST_RMA_ALL && (target < 0 || (uint32_t)target >= w->size)))
        return;
    st_event_t *e = st_record_again(th, ST_EV_RMA_REQUEST_LOCK);
    set_win(e, w);
    e->peer = target == ST_RMA_ALL ? -1 : w->world[target];
    e->op = lock_type == MPI_LOCK_EXCLUSIVE ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED;
}

/* Ticket at window rank t recorded (*first: whether the clock has been read yet for this call); 0: none. */
static void record_ticket(st_thread_t *th, const st_win_t *w, uint32_t t, int lock_type, uint64_t ticket, int *first)
{
    if (!ticket)
        return;
    st_event_t *e = *first ? st_record(th, ST_EV_RMA_ACQUIRE_LOCK) : st_record_again(th, ST_EV_RMA_ACQUIRE_LOCK);
    *first = 0;
    set_win(e, w);
    e->peer = w->world[t];
    e->op = lock_type == MPI_LOCK_EXCLUSIVE ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED;
    e->id = ticket;
}

void st_mpi_win_locked(st_thread_t *th, int rc, int lock_type, int target, MPI_Win win)
{
    st_win_t *w = win_get(win);
    if (!w || rc != MPI_SUCCESS || !w->tickets || (target != ST_RMA_ALL && (target < 0 || (uint32_t)target >= w->size)))
        return;
    int first = 1;
    if (target != ST_RMA_ALL) {
        uint64_t tk = 0;
        st_lock_tickets_at(&w->world[target], 1, &tk);
        record_ticket(th, w, (uint32_t)target, lock_type, tk, &first);
        return;
    }
    enum { GROUP = 64 }; /* shared at every rank: a ticket at each one that gives one, a group at a time */
    for (uint32_t t0 = 0; t0 < w->size; t0 += GROUP) {
        uint32_t m = w->size - t0 < GROUP ? w->size - t0 : GROUP;
        uint64_t tk[GROUP];
        st_lock_tickets_at(&w->world[t0], m, tk);
        for (uint32_t k = 0; k < m; k++)
            record_ticket(th, w, t0 + k, MPI_LOCK_SHARED, tk[k], &first);
    }
}

void st_mpi_win_unlock(st_thread_t *th, int rc, int target, MPI_Win win)
{
    st_win_t *w = win_get(win);
    if (!w || rc != MPI_SUCCESS || (target != ST_RMA_ALL && (target < 0 || (uint32_t)target >= w->size)))
        return;
    int first = 1;
    if (target == ST_RMA_ALL)
        complete_all(th, w, &first);
    else
        complete_target(th, w, (uint32_t)target, &first);
    st_event_t *e = first ? st_record(th, ST_EV_RMA_RELEASE_LOCK) : st_record_again(th, ST_EV_RMA_RELEASE_LOCK);
    set_win(e, w);
    e->peer = target == ST_RMA_ALL ? -1 : w->world[target];
}

/* The members of a post's or start's group (n of them) translated into x (the window's array for
 * this kind of call; MPI_UNDEFINED: not in the window); 0, or -1. */
static int translate(const st_win_t *w, MPI_Group group, int n, int *x)
{
    if (n <= 0 || (uint32_t)n > w->size || w->group == MPI_GROUP_NULL ||
        PMPI_Group_translate_ranks(group, n, w->iota, w->group, x) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* The members as RMA_GROUP_MEMBER events after the call's RMA_GROUP_SYNC, at its time. */
static void record_members(st_thread_t *th, const st_win_t *w, int n, const int *x)
{
    for (int i = 0; i < n; i++) {
        if (x[i] < 0 || (uint32_t)x[i] >= w->size)
            continue;
        st_event_t *m = st_record_again(th, ST_EV_RMA_GROUP_MEMBER);
        set_win(m, w);
        m->peer = w->world[x[i]];
    }
}

/* A post's notes: to each origin o of its group (window ranks x), (its count of posts naming o, the
 * window's number). The previous note to o was taken by the start of o's previous epoch, which
 * began before that epoch's complete, which this target's last wait waited for: its send is
 * matched, and waiting for it only lets MPI finish it (a 16-byte message). */
static void send_notes(st_win_t *w, int n, const int *x)
{
    MPI_Comm nc = st_rma_notes_comm(w->notes);
    for (int i = 0; i < n; i++) {
        if (x[i] < 0 || (uint32_t)x[i] >= w->size)
            continue;
        uint32_t o = (uint32_t)x[i];
        if (w->nreq[o] != MPI_REQUEST_NULL) /* a Test-and-yield wait, as every wait of the tool's */
            st_polite_wait(&w->nreq[o], MPI_STATUS_IGNORE);
        w->note[2 * o] = ++w->nposted[o];
        w->note[2 * o + 1] = w->seq;
        if (PMPI_Isend(&w->note[2 * o], 2, MPI_UINT64_T, (int)o, w->ntag, nc, &w->nreq[o]) != MPI_SUCCESS)
            w->nreq[o] = MPI_REQUEST_NULL;
    }
}

/* A start's wait for the note of each target of its group (window ranks x): got[i] = 1 where the
 * note of x[i] came. A note older than the one due (left by a start that gave up) is dropped; a
 * newer one means the pair's counts disagree (a call the tool did not see): that target did not
 * notify. */
static void take_notes(st_win_t *w, int n, const int *x, uint8_t *got)
{
    int left = 0;
    for (int i = 0; i < n; i++) {
        got[i] = 0;
        if (x[i] < 0 || (uint32_t)x[i] >= w->size)
            continue;
        w->nstarted[x[i]]++;
        got[i] = w->silent[x[i]] ? 0 : 2; /* 2: waited for */
        left += got[i] == 2;
    }
    uint64_t t0 = 0;
    MPI_Comm nc = st_rma_notes_comm(w->notes);
    while (left > 0) {
        for (int i = 0; i < n; i++) {
            int flag = 0;
            uint64_t buf[2];
            while (got[i] == 2 && PMPI_Iprobe(x[i], w->ntag, nc, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                   flag && PMPI_Recv(buf, 2, MPI_UINT64_T, x[i], w->ntag, nc, MPI_STATUS_IGNORE) == MPI_SUCCESS) {
                uint64_t due = w->nstarted[x[i]];
                if (buf[0] < due)
                    continue;
                got[i] = buf[0] == due && buf[1] == w->seq;
                left--;
            }
        }
        if (left == 0)
            break;
        uint64_t t = (uint64_t)st_clock_ns(CLOCK_MONOTONIC);
        if (t0 == 0)
            t0 = t;
        else if (t - t0 > NOTE_BOUND_NS) {
            for (int i = 0; i < n; i++)
                if (got[i] == 2) {
                    w->silent[x[i]] = 1;
                    got[i] = 0;
                }
            st_log_warn_once("an MPI_Win_start waited %llu s for a post's note in vain; that target is no longer "
                             "waited for on its window (its post -> start is not related)",
                             NOTE_BOUND_NS / 1000000000ull);
            return;
        }
        if (t - t0 > NOTE_SPIN_NS) /* the note is usually a few microseconds away: yield only then */
            sched_yield();
    }
}

/* One RMA_SYNC of type `type` (NOTIFY_OUT: a note sent, NOTIFY_IN: one taken) per member i of the
 * group (window ranks x) where got[i] (NULL: every member), at the time of the call's RMA_GROUP_SYNC. */
static void record_notes(st_thread_t *th, const st_win_t *w, int n, const int *x, const uint8_t *got, int type)
{
    for (int i = 0; i < n; i++) {
        if (x[i] < 0 || (uint32_t)x[i] >= w->size || (got && !got[i]))
            continue;
        st_event_t *m = st_record_again(th, ST_EV_RMA_SYNC);
        set_win(m, w);
        m->peer = w->world[x[i]];
        m->op = (uint16_t)type;
    }
}

static void group_sync(st_thread_t *th, int rc, int what, MPI_Group group, int massert, MPI_Win win, int done)
{
    st_win_t *w = win_get(win);
    if (!w || rc != MPI_SUCCESS || !done)
        return;
    int first = 1, n = 0;
    if (what == ST_PSCW_COMPLETE)
        complete_all(th, w, &first);
    if ((what == ST_PSCW_POST || what == ST_PSCW_START) && group != MPI_GROUP_NULL)
        PMPI_Group_size(group, &n);
    if (what == ST_PSCW_POST)
        w->exposure = n > 0 ? (uint32_t)n : 0;
    else if (what == ST_PSCW_START)
        w->access = n > 0 ? (uint32_t)n : 0;
    int *x = what == ST_PSCW_POST ? w->xpost : w->xstart;
    int members = (what == ST_PSCW_POST || what == ST_PSCW_START) && translate(w, group, n, x) == 0;
    /* the notes: none with MPI_MODE_NOCHECK (then on both sides) or without the notes' communicator */
    int notes = members && !(massert & MPI_MODE_NOCHECK) && w->notes;
    if (what == ST_PSCW_START && notes)
        take_notes(w, n, x, w->got);
    st_event_t *e = first ? st_record(th, ST_EV_RMA_GROUP_SYNC) : st_record_again(th, ST_EV_RMA_GROUP_SYNC);
    set_win(e, w);
    e->op = (uint16_t)what;
    e->bytes = what == ST_PSCW_POST || what == ST_PSCW_START
                   ? OTF2_RMA_SYNC_LEVEL_PROCESS
                   : OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
    e->bytes2 = what == ST_PSCW_POST || what == ST_PSCW_WAIT ? w->exposure : w->access;
    if (members)
        record_members(th, w, n, x);
    if (notes)
        record_notes(th, w, n, x, what == ST_PSCW_START ? w->got : NULL,
                     what == ST_PSCW_START ? ST_RMA_SYNC_NOTIFY_IN : ST_RMA_SYNC_NOTIFY_OUT);
    if (what == ST_PSCW_POST && notes)
        send_notes(w, n, x);
}

void st_mpi_win_pscw(st_thread_t *th, int rc, int what, MPI_Group group, MPI_Win win, int done)
{
    group_sync(th, rc, what, group, 0, win, done);
}

void st_mpi_win_post_start(st_thread_t *th, int rc, int what, MPI_Group group, int massert, MPI_Win win)
{
    group_sync(th, rc, what, group, massert, win, 1);
}
