/*
 * test_otf2_rma.c — one-sided MPI in the serial OTF2 writer: 3 ranks with windows on
 * MPI_COMM_WORLD (two), on a communicator whose ranks are not the world's (merged: world 1, 2, 0)
 * and on one that not every rank belongs to (split: world 2, 0), and on MPI_COMM_SELF. The archive
 * must hold one RmaWin definition per window and communicator, on that communicator, named in
 * creation order; every record must name its window by the id of the communicator's window it was
 * recorded on, and its target as a rank of that communicator (all targets: undefined); bytes,
 * types, sync levels and matching ids as recorded; otf2-print reads it without a complaint. An
 * archive without windows has no RmaWin definition.
 */
/* link: src/model/rankdata.c src/model/rankdata_dump.c src/otf2/writer.c src/otf2/numbering.c src/otf2/events.c src/util/archive_dir.c src/model/prepare.c src/model/late_ends.c src/model/rmagroups.c src/util/u64map.c src/otf2/globaldefs.c src/model/region.c src/model/event.c src/util/log.c src/model/callpath.c src/util/mem.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/region.h"
#include "../../src/otf2/writer.h"
#include "test_otf2_read.h"

#include "check.h"

#define NR 3
enum { C_WORLD, C_SELF, C_MERGED, C_SPLIT }; /* local comm indices (rank 1 has no split) */

static char tmp[] = "/tmp/test_otf2_rma.XXXXXX";

static void comm(st_comm_def_t *c, uint64_t key, uint32_t flags, const char *name, const int32_t *w, uint32_t n,
                 uint32_t nwins)
{
    c->key = key, c->parent = ST_NO_COMM, c->flags = flags, c->size = n, c->nwins = nwins;
    c->world = malloc(n * sizeof *w);
    memcpy(c->world, w, n * sizeof *w);
    snprintf(c->name, sizeof c->name, "%s", name);
}

typedef struct evbuf { st_event_t ev[64]; uint64_t n, t; } evbuf_t;

static st_event_t *ev(evbuf_t *b, unsigned kind, uint32_t c, int32_t win, int32_t peer)
{
    st_event_t *e = &b->ev[b->n++];
    *e = (st_event_t){ .time = b->t += 10, .kind = (uint8_t)kind, .comm = c, .tag = win, .peer = peer };
    return e;
}

/* Rank r: creates its windows, then world window 1: put to world r+1 (16 bytes, id 7); merged window
 * 0: atomic at world 0 (compare and swap, 8 / 4 bytes, id 8); split window 0 (ranks 0 and 2): get from
 * world 2 (24 bytes, id 9); self window 0: a lock of all targets and its release; completions. */
static void make_rank(st_rankdata_t *rd, int r, evbuf_t *b, int with_windows)
{
    static const int32_t all[] = { 0, 1, 2 }, merged[] = { 1, 2, 0 }, split[] = { 2, 0 };
    int32_t self[] = { r };
    memset(rd, 0, sizeof *rd);
    memset(b, 0, sizeof *b);
    rd->rank = r, rd->nranks = NR, rd->timer_resolution = 1000000000u;
    rd->ncomms = r == 1 ? 3 : 4;
    rd->comms = calloc(4, sizeof *rd->comms);
    int w = with_windows;
    comm(&rd->comms[C_WORLD], 0x100, ST_COMMF_WORLD, "MPI_COMM_WORLD", all, 3, w ? 2 : 0);
    comm(&rd->comms[C_SELF], 0x200 + (uint64_t)r, ST_COMMF_SELF, "MPI_COMM_SELF", self, 1, w ? 1 : 0);
    comm(&rd->comms[C_MERGED], 0x350, 0, "merged", merged, 3, w ? 1 : 0);
    if (r != 1)
        comm(&rd->comms[C_SPLIT], 0x300, 0, "split", split, 2, w ? 1 : 0);
    b->t = 1000;
    ev(b, ST_EV_ENTER, 0, 0, -1)->region = ST_REGION_PROGRAM;
    if (with_windows) {
        ev(b, ST_EV_RMA_COLL_BEGIN, ST_NO_COMM, 0, -1);
        ev(b, ST_EV_RMA_WIN_CREATE, C_WORLD, 0, -1);
        ev(b, ST_EV_RMA_COLL_END, C_WORLD, 0, -1)->op = OTF2_COLLECTIVE_OP_CREATE_HANDLE;
        ev(b, ST_EV_RMA_WIN_CREATE, C_WORLD, 1, -1);
        ev(b, ST_EV_RMA_WIN_CREATE, C_MERGED, 0, -1);
        ev(b, ST_EV_RMA_WIN_CREATE, C_SELF, 0, -1);
        if (r != 1)
            ev(b, ST_EV_RMA_WIN_CREATE, C_SPLIT, 0, -1);
        st_event_t *e = ev(b, ST_EV_RMA_PUT, C_WORLD, 1, (r + 1) % NR);
        e->bytes = 16, e->id = 7;
        e = ev(b, ST_EV_RMA_ATOMIC, C_MERGED, 0, 0);
        e->op = OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, e->bytes = 8, e->bytes2 = 4, e->id = 8;
        if (r != 1) {
            e = ev(b, ST_EV_RMA_GET, C_SPLIT, 0, 2);
            e->bytes = 24, e->id = 9;
        }
        ev(b, ST_EV_RMA_REQUEST_LOCK, C_SELF, 0, -1)->op = OTF2_LOCK_SHARED;
        ev(b, ST_EV_RMA_OP_COMPLETE_REMOTE, C_WORLD, 1, -1)->id = 7;
        ev(b, ST_EV_RMA_OP_COMPLETE_NONBLOCKING, C_MERGED, 0, -1)->id = 8;
        ev(b, ST_EV_RMA_RELEASE_LOCK, C_SELF, 0, -1);
        ev(b, ST_EV_RMA_GROUP_SYNC, C_MERGED, 0, -1)->bytes = OTF2_RMA_SYNC_LEVEL_PROCESS;
        ev(b, ST_EV_RMA_COLL_BEGIN, ST_NO_COMM, 0, -1);
        ev(b, ST_EV_RMA_WIN_DESTROY, C_WORLD, 1, -1);
        e = ev(b, ST_EV_RMA_COLL_END, C_WORLD, 1, -1);
        e->op = OTF2_COLLECTIVE_OP_DESTROY_HANDLE;
    }
    ev(b, ST_EV_LEAVE, 0, 0, -1)->region = ST_REGION_PROGRAM;
    rd->nthreads = 1;
    rd->threads = calloc(1, sizeof *rd->threads);
    rd->threads[0].events = malloc(b->n * sizeof *b->ev);
    memcpy(rd->threads[0].events, b->ev, b->n * sizeof *b->ev);
    rd->threads[0].nevents = b->n;
    rd->t_begin = b->ev[0].time, rd->t_end = b->ev[b->n - 1].time;
}

static const ra_win_t *win_of(const ra_archive_t *a, uint64_t id)
{
    for (int i = 0; i < a->nwin; i++)
        if (a->win[i].id == id)
            return &a->win[i];
    return NULL;
}

/* The window id of communicator `name`'s window k (named "MPI window k of NAME"). */
static uint64_t win_named(const ra_archive_t *a, const char *name, int k)
{
    char want[128];
    snprintf(want, sizeof want, "MPI window %d of %s", k, name);
    for (int i = 0; i < a->nwin; i++)
        if (!strcmp(ra_str(a, a->win[i].name), want))
            return a->win[i].id;
    EXPECT(0, "no RmaWin named '%s'", want);
    return UINT64_MAX;
}

static uint64_t comm_named(const ra_archive_t *a, const char *name)
{
    const ra_comm_t *c = ra_comm_named(a, name);
    EXPECT(c != NULL, "no communicator %s", name);
    return c ? c->id : UINT64_MAX;
}

static int write_read(const char *sub, int with_windows, ra_archive_t *a)
{
    st_rankdata_t rd[NR];
    evbuf_t *b = calloc(NR, sizeof *b);
    char dir[300], anchor[320], cmd[800];
    for (int r = 0; r < NR; r++)
        make_rank(&rd[r], r, &b[r], with_windows);
    snprintf(dir, sizeof dir, "%s/%s", tmp, sub);
    EXPECT(st_otf2_write_serial(dir, rd, NR, 0) == ST_OTF2_OK, "serial write (%s)", sub);
    snprintf(cmd, sizeof cmd, "otf2-print -A '%s/traces.otf2' >/dev/null 2>'%s/err' && ! grep -qi 'error\\|warn' '%s/err'",
             dir, tmp, tmp);
    EXPECT(system(cmd) == 0, "otf2-print reads %s without a complaint", sub);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    int rc = ra_read(anchor, a);
    EXPECT(rc == 0, "OTF2 reader reads %s", sub);
    for (int r = 0; r < NR; r++)
        st_rankdata_free(&rd[r]);
    free(b);
    return rc;
}

static void test_windows(void)
{
    ra_archive_t a;
    if (write_read("rma", 1, &a) != 0)
        return;
    EXPECT(a.nwin == 5, "%d RmaWin definitions: 2 of WORLD, 1 of merged, split, SELF", a.nwin);
    uint64_t world = comm_named(&a, "MPI_COMM_WORLD"), merged = comm_named(&a, "merged"), split = comm_named(&a, "split");
    uint64_t self = comm_named(&a, "MPI_COMM_SELF");
    uint64_t w0 = win_named(&a, "MPI_COMM_WORLD", 0), w1 = win_named(&a, "MPI_COMM_WORLD", 1);
    uint64_t wm = win_named(&a, "merged", 0), ws = win_named(&a, "split", 0), wself = win_named(&a, "MPI_COMM_SELF", 0);
    EXPECT(win_of(&a, w0) && win_of(&a, w0)->comm == world && win_of(&a, w1) && win_of(&a, w1)->comm == world,
           "WORLD's windows on WORLD");
    EXPECT(win_of(&a, wm) && win_of(&a, wm)->comm == merged, "merged's window on merged");
    EXPECT(win_of(&a, ws) && win_of(&a, ws)->comm == split, "split's window on split");
    EXPECT(win_of(&a, wself) && win_of(&a, wself)->comm == self, "SELF's window on MPI_COMM_SELF");
    EXPECT(win_of(&a, w0) && win_of(&a, w0)->flags == OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS, "create/destroy flag");
    for (int r = 0; r < NR; r++) {
        snprintf(check_context, sizeof check_context, "[rank %d] ", r);
        const ra_event_t *e = ra_find(&a, (uint64_t)r, T_RMA_PUT, 0);
        EXPECT(e && e->comm == w1 && e->a == (uint64_t)(r + 1) % NR && e->len == 16 && e->req == 7,
               "put on WORLD's window 1 to rank r+1");
        e = ra_find(&a, (uint64_t)r, T_RMA_ATOMIC, 0);
        EXPECT(e && e->comm == wm && e->a == 2 && e->tag == OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP && e->len == 8 &&
                   e->len2 == 4 && e->req == 8,
               "atomic at world 0 = merged rank 2");
        e = ra_find(&a, (uint64_t)r, T_RMA_GET, 0);
        if (r == 1)
            EXPECT(e == NULL, "rank 1 is no member of split");
        else
            EXPECT(e && e->comm == ws && e->a == 0 && e->len == 24 && e->req == 9, "get from world 2 = split rank 0");
        e = ra_find(&a, (uint64_t)r, T_RMA_REQUEST_LOCK, 0);
        EXPECT(e && e->comm == wself && e->a == OTF2_UNDEFINED_UINT32 && e->tag == OTF2_LOCK_SHARED,
               "lock of all targets on SELF's window");
        e = ra_find(&a, (uint64_t)r, T_RMA_RELEASE_LOCK, 0);
        EXPECT(e && e->comm == wself && e->a == OTF2_UNDEFINED_UINT32, "its release");
        e = ra_find(&a, (uint64_t)r, T_RMA_REMOTE, 0);
        EXPECT(e && e->comm == w1 && e->req == 7, "remote completion of the put");
        e = ra_find(&a, (uint64_t)r, T_RMA_NONBLOCKING, 0);
        EXPECT(e && e->comm == wm && e->req == 8, "origin completion of the atomic");
        e = ra_find(&a, (uint64_t)r, T_RMA_GROUP_SYNC, 0);
        EXPECT(e && e->comm == wm && e->tag == OTF2_RMA_SYNC_LEVEL_PROCESS, "group sync level");
        e = ra_find(&a, (uint64_t)r, T_RMA_COLL_END, 0);
        EXPECT(e && e->comm == w0 && e->req == OTF2_COLLECTIVE_OP_CREATE_HANDLE && e->a == OTF2_COLLECTIVE_ROOT_NONE,
               "creation's collective end on WORLD's window 0");
        e = ra_find(&a, (uint64_t)r, T_RMA_COLL_END, 1);
        EXPECT(e && e->comm == w1 && e->req == OTF2_COLLECTIVE_OP_DESTROY_HANDLE, "release's collective end");
        e = ra_find(&a, (uint64_t)r, T_RMA_WIN_DESTROY, 0);
        EXPECT(e && e->comm == w1, "window destroyed");
        int creates = 0;
        while (ra_find(&a, (uint64_t)r, T_RMA_WIN_CREATE, creates))
            creates++;
        EXPECT(creates == (r == 1 ? 4 : 5), "%d windows created", creates);
        EXPECT(ra_find(&a, (uint64_t)r, T_RMA_COLL_BEGIN, 1) && !ra_find(&a, (uint64_t)r, T_UNKNOWN, 0), "records");
    }
    check_context[0] = 0;
    ra_free(&a);
}

static void test_no_windows(void)
{
    ra_archive_t a;
    if (write_read("none", 0, &a) != 0)
        return;
    EXPECT(a.nwin == 0, "no window, no RmaWin definition (%d)", a.nwin);
    ra_free(&a);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 1;
    test_windows();
    test_no_windows();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        failures++;
    return failures != 0;
}
