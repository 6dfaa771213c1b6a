/*
 * mkrichdump.c — test fixture for t_archive_same.sh: writes the raw dumps DIR/partial/rank-{0,1}.strd
 * of a 2-rank, 2-thread run that ended abnormally, with every part of the trace model the archive
 * writer turns into OTF2: call sites, MPI_COMM_WORLD, point-to-point (blocking and nonblocking),
 * blocking and nonblocking collectives, an OpenMP team per rank (fork, implicit barrier, a critical
 * section, join), properties and sync points. Always the same bytes, so `synctrace recover` of
 * them writes the same archive before and after a change of the code.
 *
 * Rank 0 is the reference (identity maps). Rank 1's clock is 50 ms behind and drifts by 100 ppm
 * (sync points init local=1.0 s -> 1.05 s, resync local=2.0 s -> 2.0501 s); its events carry the
 * init map's times, so recover re-maps them (about +50 us), and afterwards its receive still
 * precedes rank 0's send and its broadcast ends before the root began it: violations that
 * `synctrace clc` of the recovered archive corrects.
 * Usage: mkrichdump DIR
 */
#include <stdio.h>
#include <string.h>

#include <otf2/OTF2_Events.h>

#include "../../src/model/rankdata.h"
#include "../../src/model/region.h"

#define T0 1550000000u /* rank 0's events start here (ns, global clock) */
#define B1 1549950000u /* rank 1's, as the init map stamped them: re-mapped they start near T0 */
#define MAXEV 64

typedef struct evlist { st_event_t e[MAXEV]; uint64_t n; } evlist_t;

/* Appends an event of KIND at time T; the other fields are set by the caller on the result. */
static st_event_t *add(evlist_t *l, uint64_t t, unsigned kind)
{
    st_event_t *e = &l->e[l->n++];
    *e = (st_event_t){ .time = t, .kind = (uint8_t)kind, .peer = -1, .epoch = 2 };
    return e;
}

static void enter(evlist_t *l, uint64_t t, st_region_t r, uint64_t pc)
{
    st_event_t *e = add(l, t, ST_EV_ENTER);
    e->region = r, e->aux = pc;
}

static void leave(evlist_t *l, uint64_t t, st_region_t r)
{
    add(l, t, ST_EV_LEAVE)->region = r;
}

/* A blocking collective in region R from B to B+DUR (op, root, bytes sent/received, instance seq). */
static void coll(evlist_t *l, uint64_t b, uint64_t dur, st_region_t r, unsigned op, int root, uint64_t sent,
                 uint64_t rcvd, uint64_t seq)
{
    enter(l, b, r, 0x401200);
    add(l, b + 10, ST_EV_MPI_COLL_BEGIN);
    st_event_t *e = add(l, b + dur - 10, ST_EV_MPI_COLL_END);
    e->op = (uint16_t)op, e->comm = 0, e->peer = root, e->bytes = sent, e->bytes2 = rcvd, e->id = seq;
    leave(l, b + dur, r);
}

/* One thread's part of an OpenMP team from B: team begin, parallel, a critical section at CRIT
 * (lock order ORDER), the implicit barrier from BAR to BAR_END, team end at END. */
static void team_member(evlist_t *l, uint64_t pid, int num, uint64_t b, uint64_t crit, uint64_t order, uint64_t bar,
                        uint64_t bar_end, uint64_t end)
{
    st_event_t *e = add(l, b, ST_EV_THREAD_TEAM_BEGIN);
    e->id = pid, e->peer = num, e->tag = 2;
    enter(l, b + 5, ST_REGION_OMP_PARALLEL, 0x401300);
    enter(l, crit, ST_REGION_OMP_CRITICAL, 0x401310);
    e = add(l, crit + 5, ST_EV_THREAD_ACQUIRE_LOCK);
    e->id = 0x7000, e->bytes = order, e->op = 5;
    e = add(l, crit + 40, ST_EV_THREAD_RELEASE_LOCK);
    e->id = 0x7000, e->bytes = order, e->op = 5;
    leave(l, crit + 45, ST_REGION_OMP_CRITICAL);
    enter(l, bar, ST_REGION_OMP_IBARRIER, 0);
    leave(l, bar_end, ST_REGION_OMP_IBARRIER);
    leave(l, end - 5, ST_REGION_OMP_PARALLEL);
    e = add(l, end, ST_EV_THREAD_TEAM_END);
    e->id = pid, e->peer = num;
}

/* Rank R's events, from its start S: rank 0 sends, rank 1 receives (late sender on rank 1, and after
 * the re-map its receive precedes the send), then a nonblocking exchange, allreduce, bcast from
 * rank 0, an ibarrier, the OpenMP team and a barrier. */
static void events(int r, uint64_t s, evlist_t *m, evlist_t *w)
{
    uint64_t pid = (uint64_t)(r * 65536 + 1) << 40 | 1;
    enter(m, s, ST_REGION_PROGRAM, 0x401000);
    if (r == 0) {
        enter(m, s + 1000, ST_REGION_MPI_Send, 0x401100);
        st_event_t *e = add(m, s + 1100, ST_EV_MPI_SEND);
        e->peer = 1, e->tag = 7, e->bytes = 4096, e->id = 1;
        leave(m, s + 3000, ST_REGION_MPI_Send);
    } else {
        enter(m, s + 500, ST_REGION_MPI_Recv, 0x401100);
        st_event_t *e = add(m, s + 900, ST_EV_MPI_RECV);
        e->peer = 0, e->tag = 7, e->bytes = 4096, e->id = 1;
        leave(m, s + 1000, ST_REGION_MPI_Recv);
    }
    /* both: Irecv from the other, Isend to it, Waitall */
    enter(m, s + 4000, ST_REGION_MPI_Irecv, 0x401140);
    add(m, s + 4010, ST_EV_MPI_IRECV_REQUEST)->id = 11;
    leave(m, s + 4020, ST_REGION_MPI_Irecv);
    enter(m, s + 4100, ST_REGION_MPI_Isend, 0x401150);
    st_event_t *e = add(m, s + 4110, ST_EV_MPI_ISEND);
    e->peer = 1 - r, e->tag = 8, e->bytes = 128, e->id = 12;
    leave(m, s + 4120, ST_REGION_MPI_Isend);
    enter(m, s + 4200 + 300u * (unsigned)r, ST_REGION_MPI_Waitall, 0x401160);
    add(m, s + 4900, ST_EV_MPI_ISEND_COMPLETE)->id = 12;
    e = add(m, s + 5000, ST_EV_MPI_IRECV);
    e->peer = 1 - r, e->tag = 8, e->bytes = 128, e->id = 11;
    leave(m, s + 5010, ST_REGION_MPI_Waitall);
    coll(m, s + 10000 - 2000u * (unsigned)r, 10000 + 2000u * (unsigned)r, ST_REGION_MPI_Allreduce,
         OTF2_COLLECTIVE_OP_ALLREDUCE, -1, 8, 8, 1);
    coll(m, s + 21000 - 500u * (unsigned)r, 1000 - 700u * (unsigned)r, ST_REGION_MPI_Bcast, OTF2_COLLECTIVE_OP_BCAST, 0,
         r == 0 ? 64 : 0, r == 0 ? 0 : 64, 2);
    enter(m, s + 25000, ST_REGION_MPI_Ibarrier, 0x401170);
    add(m, s + 25010, ST_EV_MPI_ICOLL_REQUEST)->id = 21;
    leave(m, s + 25020, ST_REGION_MPI_Ibarrier);
    enter(m, s + 26000, ST_REGION_MPI_Wait, 0x401180);
    e = add(m, s + 27000 + 500u * (unsigned)r, ST_EV_MPI_ICOLL_COMPLETE);
    e->op = OTF2_COLLECTIVE_OP_BARRIER, e->id = 21, e->aux = 3;
    leave(m, s + 27510, ST_REGION_MPI_Wait);
    e = add(m, s + 30000, ST_EV_THREAD_FORK);
    e->id = pid, e->bytes = 2;
    team_member(m, pid, 0, s + 30010, s + 30100, 1, s + 31000, s + 32000, s + 32100);
    team_member(w, pid, 1, s + 30020, s + 30120, 2, s + 31500, s + 31990, s + 32050);
    add(m, s + 32200, ST_EV_THREAD_JOIN)->id = pid;
    coll(m, s + 40000 + 1000u * (unsigned)r, 3000 - 1000u * (unsigned)r, ST_REGION_MPI_Barrier,
         OTF2_COLLECTIVE_OP_BARRIER, -1, 0, 0, 4);
    leave(m, s + 50000, ST_REGION_PROGRAM);
}

static int dump(const char *dir, int rank, const char *const *epochs)
{
    static evlist_t m, w;
    m.n = w.n = 0;
    events(rank, rank ? B1 : T0, &m, &w);
    st_thread_data_t th[2] = { { .index = 0, .omp_num = 0, .events = m.e, .nevents = m.n },
                               { .index = 1, .omp_num = 1, .events = w.e, .nevents = w.n } };
    int32_t world[2] = { 0, 1 };
    st_comm_def_t comm = { .key = 0x5354000000000001u, .parent = ST_NO_COMM, .flags = ST_COMMF_WORLD, .size = 2,
                           .world = world, .name = "MPI_COMM_WORLD" };
    static const struct { uint64_t pc; const char *text; } sites[] = {
        { 0x401000, "main (rich.c:10)" },          { 0x401100, "exchange (rich.c:20)" },
        { 0x401140, "exchange (rich.c:24)" },      { 0x401150, "exchange (rich.c:25)" },
        { 0x401160, "exchange (rich.c:26)" },      { 0x401170, "step (rich.c:40)" },
        { 0x401180, "step (rich.c:41)" },          { 0x401200, "reduce (rich.c:30)" },
        { 0x401300, "threads (rich.c:50)" },       { 0x401310, "threads._omp_fn.0 (rich.c:52)" },
    };
    st_callsite_t cs[sizeof sites / sizeof sites[0]];
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        cs[i] = (st_callsite_t){ .pc = sites[i].pc, .text = (char *)sites[i].text, .fn_begin = 1, .fn_end = 99 };
    st_rankdata_t rd = { .rank = rank, .nranks = 2, .pid = 200 + rank, .flags = ST_RANKF_INCOMPLETE,
                         .timer_resolution = 1000000000u, .nthreads = 2, .threads = th, .ncomms = 1, .comms = &comm,
                         .ncallsites = sizeof cs / sizeof cs[0], .callsites = cs };
    snprintf(rd.hostname, sizeof rd.hostname, "node%d", rank);
    snprintf(rd.nodename, sizeof rd.nodename, "node%d", rank);
    st_rankdata_prop(&rd, "INCOMPLETE", "true");
    st_rankdata_prop(&rd, "END", "SIGTERM");
    st_rankdata_prop(&rd, "sync.interpolate", "1");
    st_rankdata_prop(&rd, "sync.epochs", "2");
    st_rankdata_prop(&rd, "sync.epoch.1", "%s", epochs[0]);
    st_rankdata_prop(&rd, "sync.epoch.2", "%s", epochs[1]);
    int rc = st_rankdata_dump(dir, &rd);
    rd.threads = NULL, rd.nthreads = 0, rd.comms = NULL, rd.ncomms = 0, rd.callsites = NULL, rd.ncallsites = 0;
    st_rankdata_free(&rd); /* the properties only: the rest is on the stack */
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    static const char *const ep0[] = { "init local=1000000000 global=1000000000 b=0 jump_ns=0 rtt_ns=-1 cost_us=0",
                                       "resync local=2000000000 global=2000000000 b=0 jump_ns=0 rtt_ns=-1 cost_us=0" };
    static const char *const ep1[] = { "init local=1000000000 global=1050000000 b=0 jump_ns=0 rtt_ns=1000 cost_us=0",
                                       "resync local=2000000000 global=2050100000 b=0 jump_ns=100000 rtt_ns=1000 cost_us=0" };
    return dump(argv[1], 0, ep0) || dump(argv[1], 1, ep1);
}
