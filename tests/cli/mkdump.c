/*
 * mkdump.c — test fixture for `synctrace recover` (t_recover_remap.sh): writes the raw dumps
 * DIR/partial/rank-{0,1}.strd of a 2-rank run that ended abnormally, with known sync points.
 *
 * Rank 0 is the reference (identity maps). Rank 1's clock is 50 ms behind and drifts: sync
 * point 1 (init) at local 1.0 s = global 1.05 s, sync point 2 (resync) at local 2.0 s = global
 * 2.0501 s. Its events (region "main"), as the online maps stamped them:
 *   ENTER at local 0.5 s, epoch 1 (the local clock before MPI_Init)   -> recorded 500000000
 *   LEAVE at local 1.5 s, epoch 2 (the init map, +50 ms)              -> recorded 1550000000
 *   ENTER at local 2.5 s, epoch 3 (the resync map, +50.1 ms)          -> recorded 2550100000
 *   LEAVE 1 us later, epoch 3                                         -> recorded 2550101000
 * Re-mapped through the sync points (interpolation) they are 549950000 (the line through the
 * two points, 100 ppm, extended back 0.5 s), 1550050000, 2550100000 and 2550101000. Rank 0 has
 * ENTER/LEAVE at 0.4 s / 2.6 s (epoch 2).
 * Usage: mkdump DIR
 */
#include <stdio.h>
#include <string.h>

#include "../../src/model/rankdata.h"
#include "../../src/model/region.h"

static void ev(st_event_t *e, uint64_t t, unsigned kind, uint32_t epoch)
{
    *e = (st_event_t){ .time = t, .kind = (uint8_t)kind, .region = ST_REGION_PROGRAM, .peer = -1, .epoch = epoch };
}

static int dump(const char *dir, int rank, st_event_t *events, uint64_t n, const char *const *epochs, int nep)
{
    st_thread_data_t th = { .index = 0, .omp_num = -1, .events = events, .nevents = n };
    st_rankdata_t rd = { .rank = rank, .nranks = 2, .pid = 100 + rank, .flags = ST_RANKF_INCOMPLETE,
                         .timer_resolution = 1000000000u, .nthreads = 1, .threads = &th };
    snprintf(rd.hostname, sizeof rd.hostname, "host");
    snprintf(rd.nodename, sizeof rd.nodename, "host");
    st_rankdata_prop(&rd, "INCOMPLETE", "true");
    st_rankdata_prop(&rd, "END", "SIGTERM");
    st_rankdata_prop(&rd, "sync.interpolate", "1");
    st_rankdata_prop(&rd, "sync.epochs", "%d", nep);
    for (int k = 0; k < nep; k++) {
        char key[32];
        snprintf(key, sizeof key, "sync.epoch.%d", k + 1);
        st_rankdata_prop(&rd, key, "%s", epochs[k]);
    }
    int rc = st_rankdata_dump(dir, &rd);
    rd.threads = NULL, rd.nthreads = 0; /* on the stack */
    st_rankdata_free(&rd);
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
    st_event_t r0[2], r1[4];
    ev(&r0[0], 400000000, ST_EV_ENTER, 2);
    ev(&r0[1], 2600000000u, ST_EV_LEAVE, 2);
    ev(&r1[0], 500000000, ST_EV_ENTER, 1);
    ev(&r1[1], 1550000000, ST_EV_LEAVE, 2);
    ev(&r1[2], 2550100000u, ST_EV_ENTER, 3);
    ev(&r1[3], 2550101000u, ST_EV_LEAVE, 3);
    return dump(argv[1], 0, r0, 2, ep0, 2) || dump(argv[1], 1, r1, 4, ep1, 2);
}
