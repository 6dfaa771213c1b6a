/*
 * test_otf2_synth.h — synthetic rank data for the OTF2 writer and rank-data tests
 * (included by tests/unit/test_rankdata.c, test_otf2_writer.c and test_archive_mpi.c).
 *
 * A 3-rank world, 2 threads per rank, every event kind, with communicators chosen
 * so that WORLD ranks and communicator ranks differ:
 *   local 0  MPI_COMM_WORLD key 0x100 [0,1,2]
 *   local 1  MPI_COMM_SELF  key 0x200+rank (flag SELF)
 *   local 2  split          ranks 0,2: key 0x300 world [2,0]; rank 1: key 0x301 world [1]
 *   local 3  intercomm      key 0x400: rank 0 local [0] remote [1,2]; ranks 1,2 local [1,2] remote [0]
 *   local 4  merged         key 0x500 world [1,2,0], parent = the intercomm
 * synth_expect() tells how many events each thread must have in the archive.
 */
#ifndef TEST_OTF2_SYNTH_H
#define TEST_OTF2_SYNTH_H

#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/rankdata.h"
#include "../../src/model/region.h"

#define SYNTH_NRANKS 3
#define SYNTH_LOCK   0xdeadbeef000ull
#define SYNTH_PID(r) (1000u + (unsigned)(r))

typedef struct synth_buf {
    st_event_t *ev;
    uint64_t n, cap, t;
} synth_buf_t;

static inline st_event_t *synth_ev(synth_buf_t *b, unsigned kind)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->ev = realloc(b->ev, b->cap * sizeof *b->ev);
    }
    st_event_t *e = &b->ev[b->n++];
    b->t += 10;
    *e = (st_event_t){ .time = b->t, .kind = (uint8_t)kind, .peer = -1 };
    return e;
}

/* First region with the MPI paradigm (the generated MPI table differs per build). */
static inline st_region_t synth_mpi_region(void)
{
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        if (st_region_info(r)->paradigm == ST_PARADIGM_MPI)
            return r;
    return ST_REGION_PROGRAM;
}

static inline void synth_comm(st_comm_def_t *c, uint64_t key, uint32_t parent, uint32_t flags, const char *name,
                       const int32_t *w, uint32_t n, const int32_t *rw, uint32_t rn)
{
    memset(c, 0, sizeof *c);
    c->key = key;
    c->parent = parent;
    c->flags = flags;
    c->size = n;
    c->world = malloc(n * sizeof *w);
    memcpy(c->world, w, n * sizeof *w);
    if (rn) {
        c->remote_size = rn;
        c->remote_world = malloc(rn * sizeof *rw);
        memcpy(c->remote_world, rw, rn * sizeof *rw);
    }
    strcpy(c->name, name);
}

static inline void synth_comms(st_rankdata_t *rd, int r)
{
    static const int32_t all[] = { 0, 1, 2 }, split_a[] = { 2, 0 }, merged[] = { 1, 2, 0 };
    static const int32_t zero[] = { 0 }, onetwo[] = { 1, 2 };
    int32_t self[] = { r };
    rd->ncomms = 5;
    rd->comms = calloc(5, sizeof *rd->comms);
    synth_comm(&rd->comms[0], 0x100, ST_NO_COMM, ST_COMMF_WORLD, "MPI_COMM_WORLD", all, 3, NULL, 0);
    synth_comm(&rd->comms[1], 0x200 + (uint64_t)r, ST_NO_COMM, ST_COMMF_SELF, "MPI_COMM_SELF", self, 1, NULL, 0);
    if (r == 1)
        synth_comm(&rd->comms[2], 0x301, 0, 0, "split-B", self, 1, NULL, 0);
    else
        synth_comm(&rd->comms[2], 0x300, 0, 0, "split-A", split_a, 2, NULL, 0);
    if (r == 0)
        synth_comm(&rd->comms[3], 0x400, 0, ST_COMMF_INTER, "inter", zero, 1, onetwo, 2);
    else
        synth_comm(&rd->comms[3], 0x400, 0, ST_COMMF_INTER, "inter", onetwo, 2, zero, 1);
    synth_comm(&rd->comms[4], 0x350, 3, 0, "merged", merged, 3, NULL, 0);
}

static inline st_event_t *synth_p2p(synth_buf_t *b, unsigned kind, uint32_t comm, int32_t peer, int32_t tag,
                             uint64_t bytes, uint64_t id)
{
    st_event_t *e = synth_ev(b, kind);
    e->comm = comm;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    e->id = id;
    return e;
}

static inline st_event_t *synth_coll(synth_buf_t *b, unsigned kind, uint16_t op, uint32_t comm, int32_t root,
                              uint64_t sent, uint64_t recvd)
{
    st_event_t *e = synth_ev(b, kind);
    e->op = op;
    e->comm = comm;
    e->peer = root;
    e->bytes = sent;
    e->bytes2 = recvd;
    return e;
}

/* MPI part of the master thread; every peer/root is a WORLD rank. */
static inline void synth_mpi(synth_buf_t *b, int r)
{
    st_region_t mpi = synth_mpi_region();
    int32_t other = r == 0 ? 2 : r == 2 ? 0 : 1; /* the other member of the split comm */
    synth_ev(b, ST_EV_ENTER)->region = mpi;
    b->ev[b->n - 1].aux = 0x4000u + (unsigned)r; /* has a call-site text */
    synth_p2p(b, ST_EV_MPI_SEND, 0, (r + 1) % 3, 1, 8u * (unsigned)(r + 1), 1);
    synth_ev(b, ST_EV_LEAVE)->region = mpi;
    synth_p2p(b, ST_EV_MPI_RECV, 0, (r + 2) % 3, 1, 8u * (unsigned)((r + 2) % 3 + 1), 2);
    synth_p2p(b, ST_EV_MPI_ISEND, 2, other, 3, 100, 11);
    synth_p2p(b, ST_EV_MPI_ISEND_COMPLETE, 0, -1, 0, 0, 11);
    synth_p2p(b, ST_EV_MPI_IRECV_REQUEST, 0, -1, 0, 0, 12);
    synth_p2p(b, ST_EV_MPI_IRECV, 2, other, 3, 100, 12);
    synth_p2p(b, ST_EV_MPI_REQUEST_CANCELLED, 0, -1, 0, 0, 13);
    synth_p2p(b, ST_EV_MPI_SEND, 3, r == 0 ? 1 : 0, 4, 44, 3)->flags = ST_EVF_INTERCOMM;
    synth_p2p(b, ST_EV_MPI_RECV, 4, (r + 1) % 3, 5, 55, 4);
    synth_p2p(b, ST_EV_MPI_SEND, 0, -1, 6, 0, 5)->flags = ST_EVF_PROC_NULL; /* dropped quietly */
    synth_ev(b, ST_EV_MPI_COLL_BEGIN);
    synth_coll(b, ST_EV_MPI_COLL_END, OTF2_COLLECTIVE_OP_BCAST, 0, 2, 16, 16);
    synth_ev(b, ST_EV_MPI_COLL_BEGIN);
    synth_coll(b, ST_EV_MPI_COLL_END, OTF2_COLLECTIVE_OP_REDUCE, 2, r == 1 ? 1 : 2, 24, r == 2 ? 48 : 0);
    synth_ev(b, ST_EV_MPI_COLL_BEGIN);
    synth_coll(b, ST_EV_MPI_COLL_END, OTF2_COLLECTIVE_OP_BARRIER, 1, -1, 0, 0);
    synth_ev(b, ST_EV_MPI_COLL_BEGIN);
    synth_coll(b, ST_EV_MPI_COLL_END, OTF2_COLLECTIVE_OP_BCAST, 3, 0, 32, 32)->flags =
        r == 0 ? 0 : ST_EVF_INTERCOMM; /* rank 0 is MPI_ROOT */
    synth_ev(b, ST_EV_MPI_ICOLL_REQUEST)->id = 21;
    synth_coll(b, ST_EV_MPI_ICOLL_COMPLETE, OTF2_COLLECTIVE_OP_ALLREDUCE, 4, -1, 8, 8)->id = 21;
}

static inline void synth_master(synth_buf_t *b, int r)
{
    uint64_t pid = 100 + (uint64_t)r;
    synth_ev(b, ST_EV_ENTER)->region = ST_REGION_PROGRAM;
    synth_mpi(b, r);
    synth_ev(b, ST_EV_THREAD_FORK)->id = pid;
    b->ev[b->n - 1].bytes = 2;
    st_event_t *e = synth_ev(b, ST_EV_THREAD_TEAM_BEGIN);
    e->id = pid, e->peer = 0, e->tag = 2;
    synth_ev(b, ST_EV_ENTER)->region = ST_REGION_OMP_CRITICAL;
    e = synth_ev(b, ST_EV_THREAD_ACQUIRE_LOCK);
    e->id = SYNTH_LOCK, e->bytes = 1;
    e = synth_ev(b, ST_EV_THREAD_RELEASE_LOCK);
    e->id = SYNTH_LOCK, e->bytes = 1;
    synth_ev(b, ST_EV_LEAVE)->region = ST_REGION_OMP_CRITICAL;
    synth_ev(b, ST_EV_THREAD_TASK_CREATE)->id = 555;
    synth_ev(b, ST_EV_THREAD_TASK_SWITCH)->id = 555;
    synth_ev(b, ST_EV_THREAD_TASK_COMPLETE)->id = 555;
    synth_ev(b, ST_EV_THREAD_TASK_SWITCH)->id = 777; /* created by thread 1 */
    synth_ev(b, ST_EV_THREAD_TASK_COMPLETE)->id = 777;
    synth_ev(b, ST_EV_THREAD_TASK_SWITCH)->id = 999; /* back to the implicit task */
    e = synth_ev(b, ST_EV_THREAD_TEAM_END);
    e->id = pid, e->peer = 0;
    synth_ev(b, ST_EV_THREAD_JOIN)->id = pid;
    e = synth_ev(b, ST_EV_LEAVE);
    e->region = ST_REGION_PROGRAM;
    e->flags = ST_EVF_CLC_MOVED;
    e->aux = e->time - 3; /* orig time */
}

static inline void synth_worker(synth_buf_t *b, int r)
{
    uint64_t pid = 100 + (uint64_t)r;
    b->t = 25;
    st_event_t *e = synth_ev(b, ST_EV_THREAD_TEAM_BEGIN);
    e->id = pid, e->peer = 1, e->tag = 2;
    synth_ev(b, ST_EV_ENTER)->region = ST_REGION_OMP_BARRIER;
    synth_ev(b, ST_EV_LEAVE)->region = ST_REGION_OMP_BARRIER;
    b->ev[b->n - 1].time -= 15; /* goes back in time: the writer repairs it */
    synth_ev(b, ST_EV_THREAD_TASK_CREATE)->id = 777;
    e = synth_ev(b, ST_EV_THREAD_ACQUIRE_LOCK);
    e->id = SYNTH_LOCK, e->bytes = 2;
    e = synth_ev(b, ST_EV_THREAD_RELEASE_LOCK);
    e->id = SYNTH_LOCK, e->bytes = 2;
    e = synth_ev(b, ST_EV_THREAD_TEAM_END);
    e->id = pid, e->peer = 1;
    synth_ev(b, ST_EV_ENTER)->region = ST_REGION__COUNT + 5; /* unknown region: dropped with a warning */
}

/* Fills rd with rank r of the synthetic world (fresh allocations). */
static inline void synth_rank(st_rankdata_t *rd, int r)
{
    memset(rd, 0, sizeof *rd);
    rd->rank = r;
    rd->nranks = SYNTH_NRANKS;
    rd->pid = (int32_t)SYNTH_PID(r);
    strcpy(rd->hostname, "synthhost");
    strcpy(rd->nodename, r < 2 ? "node-a" : "node-b");
    rd->timer_resolution = 1000000000u;
    rd->nthreads = 2;
    rd->threads = calloc(2, sizeof *rd->threads);
    synth_buf_t m = { .t = 1000 + 7 * (uint64_t)r }, w = { 0 };
    synth_master(&m, r);
    synth_worker(&w, r);
    for (int i = 0; i < 2; i++) {
        synth_buf_t *b = i ? &w : &m;
        rd->threads[i] = (st_thread_data_t){ .index = (uint32_t)i, .omp_num = i, .flushes = (uint64_t)i,
                                             .events = b->ev, .nevents = b->n };
        for (uint64_t k = 0; k < b->n; k++) /* the worker starts later than the master */
            b->ev[k].time += i ? 1000 + 7 * (uint64_t)r : 0;
    }
    rd->t_begin = rd->threads[0].events[0].time;
    rd->t_end = rd->threads[0].events[rd->threads[0].nevents - 1].time;
    synth_comms(rd, r);
    rd->ncallsites = 2;
    rd->callsites = calloc(2, sizeof *rd->callsites);
    rd->callsites[0] = (st_callsite_t){ .pc = 0x9000, .text = strdup("unused (x.c:1)") };
    rd->callsites[1] = (st_callsite_t){ 0x4000u + (unsigned)r, strdup("main (app.c:42)"), 40, 57 };
    st_rankdata_prop(rd, "sync.scheme", "h2hca");
    st_rankdata_prop(rd, "rank.flushes", "%d", r);
}

/* Events of a synthetic thread that must reach the archive, given how many were
 * generated: each thread has exactly one unwritable event (the master's send to
 * MPI_PROC_NULL, the worker's unknown region). */
static inline uint64_t synth_expect(uint64_t generated)
{
    return generated - 1;
}

#endif
