/*
 * test_rankdata.c — rank-data blob and raw dump: round trips and rejection of
 * truncated / corrupted input (run under ASan/UBSan by tests/run-tests.sh, so any
 * out-of-bounds read while parsing garbage fails the test).
 */
/* link: src/model/rankdata.c src/model/rankdata_dump.c src/model/region.c src/util/log.c src/model/rmagroups.c */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_otf2_synth.h"
#include "../../src/model/prepare.h"

#include "check.h"

/* Bitwise CRC-32, independent of the implementation under test. */
static uint32_t ref_crc(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- deep comparison -------------------------------------------------------------------- */

static int same_comm(const st_comm_def_t *a, const st_comm_def_t *b)
{
    return a->key == b->key && a->parent == b->parent && a->flags == b->flags && a->size == b->size &&
           a->remote_size == b->remote_size && a->nwins == b->nwins && strcmp(a->name, b->name) == 0 &&
           memcmp(a->world, b->world, a->size * sizeof *a->world) == 0 &&
           (a->remote_size == 0 || memcmp(a->remote_world, b->remote_world, a->remote_size * 4) == 0);
}

static void compare(const st_rankdata_t *a, const st_rankdata_t *b, int with_events)
{
    EXPECT(a->rank == b->rank && a->nranks == b->nranks && a->pid == b->pid && a->flags == b->flags, "header");
    EXPECT(strcmp(a->hostname, b->hostname) == 0 && strcmp(a->nodename, b->nodename) == 0, "names");
    EXPECT(a->t_begin == b->t_begin && a->t_end == b->t_end && a->timer_resolution == b->timer_resolution, "times");
    EXPECT(a->nthreads == b->nthreads, "nthreads %u vs %u", a->nthreads, b->nthreads);
    for (uint32_t i = 0; i < a->nthreads && i < b->nthreads; i++) {
        const st_thread_data_t *x = &a->threads[i], *y = &b->threads[i];
        EXPECT(x->index == y->index && x->omp_num == y->omp_num && x->flushes == y->flushes, "thread %u", i);
        EXPECT(x->nevents == y->nevents, "thread %u nevents %llu vs %llu", i, (unsigned long long)x->nevents,
              (unsigned long long)y->nevents);
        if (with_events)
            EXPECT(y->events && memcmp(x->events, y->events, x->nevents * sizeof *x->events) == 0,
                  "thread %u events differ", i);
        else
            EXPECT(y->events == NULL, "unpack must leave events NULL");
    }
    EXPECT(a->ncomms == b->ncomms, "ncomms");
    for (uint32_t i = 0; i < a->ncomms && i < b->ncomms; i++)
        EXPECT(same_comm(&a->comms[i], &b->comms[i]), "comm %u", i);
    EXPECT(a->ncallsites == b->ncallsites, "ncallsites");
    for (uint32_t i = 0; i < a->ncallsites && i < b->ncallsites; i++)
        EXPECT(a->callsites[i].pc == b->callsites[i].pc && strcmp(a->callsites[i].text, b->callsites[i].text) == 0 &&
                  a->callsites[i].fn_begin == b->callsites[i].fn_begin && a->callsites[i].fn_end == b->callsites[i].fn_end,
              "callsite %u", i);
    EXPECT(a->nprops == b->nprops && (a->nprops == 0 || memcmp(a->props, b->props, a->nprops * sizeof *a->props) == 0),
          "props");
    EXPECT(a->nteams == b->nteams, "nteams");
    for (uint32_t i = 0; i < a->nteams && i < b->nteams; i++)
        EXPECT(a->teams[i].size == b->teams[i].size &&
                  memcmp(a->teams[i].threads, b->teams[i].threads, a->teams[i].size * 4) == 0,
              "team %u", i);
    EXPECT(a->ncpnodes == b->ncpnodes, "ncpnodes %u vs %u", a->ncpnodes, b->ncpnodes);
    for (uint32_t i = 0; i < a->ncpnodes && i < b->ncpnodes; i++)
        EXPECT(a->cpnodes[i].parent == b->cpnodes[i].parent && a->cpnodes[i].pc == b->cpnodes[i].pc, "call-path node %u", i);
    EXPECT(a->nfiltered == b->nfiltered, "nfiltered %u vs %u", a->nfiltered, b->nfiltered);
    for (uint32_t i = 0; i < a->nfiltered && i < b->nfiltered; i++)
        EXPECT(!memcmp(&a->filtered[i], &b->filtered[i], sizeof *a->filtered), "filtered calls %u", i);
}

static void add_teams(st_rankdata_t *rd)
{
    rd->nteams = 2;
    rd->teams = calloc(2, sizeof *rd->teams);
    rd->teams[0].size = 1;
    rd->teams[0].threads = calloc(1, 4);
    rd->teams[1].size = 2;
    rd->teams[1].threads = calloc(2, 4);
    rd->teams[1].threads[1] = 1;
}

/* A call tree main -> solve -> {exchange, io}: node pcs are keys of callsites (synth_rank's). */
static void add_callpaths(st_rankdata_t *rd)
{
    rd->ncpnodes = 4;
    rd->cpnodes = calloc(4, sizeof *rd->cpnodes);
    rd->cpnodes[0] = (st_cpnode_t){ .parent = ST_CP_NONE, .pc = 0x401000 };
    rd->cpnodes[1] = (st_cpnode_t){ .parent = 0, .pc = 0x402000 };
    rd->cpnodes[2] = (st_cpnode_t){ .parent = 1, .pc = 0x403000 };
    rd->cpnodes[3] = (st_cpnode_t){ .parent = 1, .pc = 0x404000 };
}

/* Calls a filter removed: two regions on thread 0, one on thread 1, counts beyond 32 bits. */
static void add_filtered(st_rankdata_t *rd)
{
    rd->nfiltered = 3;
    rd->filtered = calloc(3, sizeof *rd->filtered);
    rd->filtered[0] = (st_filtered_sum_t){ 0, ST_REGION_MPI_Type_size, 100000, 4500000 };
    rd->filtered[1] = (st_filtered_sum_t){ 0, ST_REGION_MPI_Comm_rank, 5000000000ull, 7000000000ull };
    rd->filtered[2] = (st_filtered_sum_t){ 1, ST_REGION_MPI_Win_flush_all, 1, 0 };
}

/* Filtered calls of a region this version does not know are rejected. */
static void test_filtered_region(st_rankdata_t *rd)
{
    void *blob = NULL;
    rd->filtered[1].region = ST_REGION__COUNT;
    size_t n = st_rankdata_pack(rd, &blob);
    st_rankdata_t back;
    EXPECT(n > 0 && st_rankdata_unpack(blob, n, &back) == -1, "filtered calls of an unknown region are accepted");
    rd->filtered[1].region = ST_REGION_MPI_Comm_rank;
    free(blob);
}

/* A node before its parent is rejected (the analysis and the writer rely on the order). */
static void test_callpath_order(st_rankdata_t *rd)
{
    void *blob = NULL;
    rd->cpnodes[1].parent = 2;
    size_t n = st_rankdata_pack(rd, &blob);
    st_rankdata_t back;
    EXPECT(n > 0 && st_rankdata_unpack(blob, n, &back) == -1, "a call-path node before its parent is accepted");
    rd->cpnodes[1].parent = 0;
    free(blob);
}

/* ---- blob ----------------------------------------------------------------------------------- */

static void test_roundtrip(st_rankdata_t *rd)
{
    void *blob = NULL, *blob2 = NULL;
    size_t n = st_rankdata_pack(rd, &blob);
    EXPECT(n > 0 && blob, "pack");
    st_rankdata_t back;
    EXPECT(st_rankdata_unpack(blob, n, &back) == 0, "unpack of an intact blob");
    compare(rd, &back, 0);
    size_t n2 = st_rankdata_pack(&back, &blob2);
    EXPECT(n2 == n && memcmp(blob, blob2, n) == 0, "repacking gives the same bytes");
    EXPECT(memcmp(blob, "STRD", 4) == 0 && ((uint8_t *)blob)[4] == 6, "magic and version 6, little-endian");
    st_rankdata_free(&back);
    EXPECT(back.threads == NULL && back.nthreads == 0, "free zeroes");
    free(blob);
    free(blob2);
}

/* A version-2 blob (call sites without their functions' lines, as an older synctrace wrote its
 * dumps) is still read: the v6 blob of rd with each communicator's window count (the 4 bytes before
 * its name), each call site's 8 trailing bytes, the filtered calls and the PSCW groups (the last
 * 4 + 24 * nfiltered + 4 bytes before the CRC: rd has no groups) cut out; it has no windows. */
static void test_version2(const st_rankdata_t *rd)
{
    uint8_t *blob = NULL;
    size_t n = st_rankdata_pack(rd, (void **)&blob);
    uint8_t *v2 = malloc(n);
    memcpy(v2, blob, n);
    size_t cut = 4 + 24 * (size_t)rd->nfiltered + 4, m = n - cut;
    memcpy(v2 + m - 4, blob + n - 4, 4);
    for (uint32_t i = 0; i < rd->ncomms; i++) {
        char name[64] = { 0 };
        snprintf(name, sizeof name, "%s", rd->comms[i].name);
        size_t at = 20;
        while (at + 64 <= m && memcmp(v2 + at, name, 64))
            at++;
        EXPECT(at + 64 <= m, "communicator %u found in the blob", i);
        if (at + 64 > m)
            break;
        memmove(v2 + at - 4, v2 + at, m - at);
        m -= 4;
    }
    for (uint32_t i = 0; i < rd->ncallsites; i++) {
        uint8_t key[12 + 64];
        size_t len = strlen(rd->callsites[i].text), at = 0;
        for (int b = 0; b < 8; b++)
            key[b] = (uint8_t)(rd->callsites[i].pc >> (8 * b));
        put_le32(key + 8, (uint32_t)len);
        memcpy(key + 12, rd->callsites[i].text, len);
        while (at + 12 + len <= m && memcmp(v2 + at, key, 12 + len))
            at++;
        EXPECT(at + 12 + len + 8 <= m, "call site %u found in the blob", i);
        if (at + 12 + len + 8 > m)
            break;
        memmove(v2 + at + 12 + len, v2 + at + 20 + len, m - (at + 20 + len));
        m -= 8;
    }
    put_le32(v2 + 4, 2);
    for (int b = 0; b < 8; b++)
        v2[8 + b] = (uint8_t)((uint64_t)m >> (8 * b));
    put_le32(v2 + m - 4, ref_crc(v2, m - 4));
    st_rankdata_t back;
    EXPECT(st_rankdata_unpack(v2, m, &back) == 0, "a version-2 blob is read");
    EXPECT(back.ncallsites == rd->ncallsites, "version 2: %u call sites", back.ncallsites);
    EXPECT(back.ncomms == rd->ncomms, "version 2: %u communicators", back.ncomms);
    for (uint32_t i = 0; i < back.ncomms && i < rd->ncomms; i++)
        EXPECT(back.comms[i].nwins == 0 && back.comms[i].size == rd->comms[i].size, "version 2: communicator %u, no windows", i);
    for (uint32_t i = 0; i < back.ncallsites && i < rd->ncallsites; i++)
        EXPECT(back.callsites[i].pc == rd->callsites[i].pc && !strcmp(back.callsites[i].text, rd->callsites[i].text) &&
                  back.callsites[i].fn_begin == 0 && back.callsites[i].fn_end == 0,
              "version 2: call site %u, without its function's lines", i);
    st_rankdata_free(&back);
    put_le32(v2 + 4, 1);
    put_le32(v2 + m - 4, ref_crc(v2, m - 4));
    EXPECT(st_rankdata_unpack(v2, m, &back) != 0, "a version-1 blob is refused");
    free(v2);
    free(blob);
}

/* Unpacks a private exact-size copy so ASan sees any read past its end. */
static int unpack_copy(const uint8_t *src, size_t n, st_rankdata_t *out)
{
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, src, n);
    int rc = st_rankdata_unpack(copy, n, out);
    free(copy);
    return rc;
}

static void test_truncation_and_flips(st_rankdata_t *rd)
{
    uint8_t *blob = NULL;
    size_t n = st_rankdata_pack(rd, (void **)&blob);
    st_rankdata_t out;
    int accepted = 0;
    for (size_t k = 0; k < n; k++)
        accepted += unpack_copy(blob, k, &out) == 0;
    EXPECT(accepted == 0, "%d truncated blobs accepted", accepted);
    EXPECT(st_rankdata_unpack(NULL, 0, &out) == -1, "NULL blob");
    /* Every single-bit flip: the CRC (or the header checks) must catch it. */
    accepted = 0;
    for (size_t bit = 0; bit < n * 8; bit++) {
        blob[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (unpack_copy(blob, n, &out) == 0) {
            accepted++;
            st_rankdata_free(&out);
        }
        blob[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    EXPECT(accepted == 0, "%d bit flips accepted", accepted);
    free(blob);
}

/* Garbage with a valid header and a correct CRC: exercises the parser's own bounds
 * checks. It may accept or reject, but must never read out of bounds or leak. */
static void test_fuzz_parser(st_rankdata_t *rd)
{
    uint8_t *blob = NULL;
    size_t n = st_rankdata_pack(rd, (void **)&blob);
    uint8_t *m = malloc(n);
    srand(12345);
    int rejected = 0, accepted = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(m, blob, n);
        int flips = 1 + rand() % 4;
        for (int f = 0; f < flips; f++) {
            size_t pos = 16 + (size_t)rand() % (n - 20); /* the body only */
            m[pos] = (uint8_t)(iter % 3 == 0 ? 0xFF : rand());
        }
        put_le32(m + n - 4, ref_crc(m, n - 4));
        st_rankdata_t out;
        if (unpack_copy(m, n, &out) == 0) {
            accepted++;
            EXPECT(out.rank >= 0 && out.rank < out.nranks, "accepted blob with rank out of range");
            for (uint32_t i = 0; i < out.ncomms; i++)
                for (uint32_t k = 0; k < out.comms[i].size; k++)
                    EXPECT(out.comms[i].world[k] >= 0 && out.comms[i].world[k] < out.nranks, "member range");
            st_rankdata_free(&out);
        } else
            rejected++;
    }
    EXPECT(rejected > 0, "fuzzing never produced a rejection");
    printf("  parser fuzz: %d rejected, %d accepted (garbage inside strings)\n", rejected, accepted);
    free(m);
    free(blob);
}

static void test_prop(void)
{
    st_rankdata_t rd = { 0 };
    st_rankdata_prop(&rd, "a", "%d", 1);
    st_rankdata_prop(&rd, "b", "x");
    st_rankdata_prop(&rd, "a", "%d", 2);
    EXPECT(rd.nprops == 2 && strcmp(rd.props[0].value, "2") == 0, "replace an existing key");
    char longv[400];
    memset(longv, 'v', sizeof longv - 1);
    longv[sizeof longv - 1] = 0;
    st_rankdata_prop(&rd, "long", "%s", longv);
    EXPECT(strlen(rd.props[2].value) == sizeof rd.props[2].value - 1, "truncates long values");
    st_rankdata_free(&rd);
}

/* ---- dump ------------------------------------------------------------------------------------ */

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static uint8_t *slurp(const char *path, long *n)
{
    *n = file_size(path);
    FILE *f = fopen(path, "rb");
    uint8_t *b = malloc((size_t)*n);
    if (!f || fread(b, 1, (size_t)*n, f) != (size_t)*n)
        *n = -1;
    if (f)
        fclose(f);
    return b;
}

static void spit(const char *path, const uint8_t *b, long n)
{
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, (size_t)n, f);
    fclose(f);
}

static void test_dump(st_rankdata_t *rd, const char *tmp)
{
    char dir[512], path[600], bad[600];
    snprintf(dir, sizeof dir, "%s/run", tmp);
    EXPECT(st_rankdata_dump(dir, rd) == 0, "dump");
    snprintf(path, sizeof path, "%s/partial/rank-%d.strd", dir, rd->rank);
    EXPECT(file_size(path) > 0, "dump file %s exists", path);
    char tmpname[620];
    snprintf(tmpname, sizeof tmpname, "%s.tmp", path);
    EXPECT(file_size(tmpname) < 0, "temporary file renamed away");
    st_rankdata_t back;
    EXPECT(st_rankdata_load_dump(path, &back) == 0, "load");
    compare(rd, &back, 1);
    st_rankdata_free(&back);

    long n;
    uint8_t *b = slurp(path, &n);
    snprintf(bad, sizeof bad, "%s/bad.strd", tmp);
    fprintf(stderr, "  (the following 'cannot load raw dump' errors are expected)\n");
    int accepted = 0;
    for (long cut = 0; cut < n; cut += (cut < 100 ? 1 : 97)) {
        spit(bad, b, cut);
        accepted += st_rankdata_load_dump(bad, &back) == 0;
    }
    EXPECT(accepted == 0, "%d truncated dumps accepted", accepted);
    for (long pos = 0; pos < n - 4; pos += 13) { /* the trailer's last word is reserved: not checked */
        b[pos] ^= 0x10;
        spit(bad, b, n);
        if (st_rankdata_load_dump(bad, &back) == 0) {
            accepted++;
            st_rankdata_free(&back);
        }
        b[pos] ^= 0x10;
    }
    EXPECT(accepted == 0, "%d corrupted dumps accepted", accepted);
    uint8_t *longer = malloc((size_t)n + 5);
    memcpy(longer, b, (size_t)n);
    memset(longer + n, 0, 5);
    spit(bad, longer, n + 5);
    EXPECT(st_rankdata_load_dump(bad, &back) == -1, "trailing garbage rejected");
    EXPECT(st_rankdata_load_dump("/nonexistent/rank-0.strd", &back) == -1, "missing file");
    free(longer);
    free(b);

    /* Threads whose events are not in memory count as empty. */
    st_event_t *keep = rd->threads[1].events;
    rd->threads[1].events = NULL;
    EXPECT(st_rankdata_dump(dir, rd) == 0, "dump with a thread without events");
    EXPECT(st_rankdata_load_dump(path, &back) == 0 && back.threads[1].nevents == 0 && back.threads[1].events == NULL,
          "empty thread after reload");
    st_rankdata_free(&back);
    rd->threads[1].events = keep;
    EXPECT(st_rankdata_dump("/proc/synctrace-cannot-exist", rd) == -1, "unwritable directory fails cleanly");
}

/* A reader over rd's own event arrays, handing out at most 5 events per call; fail_at: the
 * first event it cannot read (UINT64_MAX: none). */
typedef struct live_src { const st_rankdata_t *rd; uint64_t fail_at; } live_src_t;

static size_t live_read(void *ctx, uint32_t t, uint64_t first, st_event_t *out, size_t max)
{
    const live_src_t *src = ctx;
    const st_thread_data_t *th = &src->rd->threads[t];
    size_t n = 0;
    while (n < max && n < 5 && first + n < th->nevents && first + n < src->fail_at) {
        out[n] = th->events[first + n];
        n++;
    }
    return n;
}

/* st_rankdata_dump_live: the same file content as a dump of the arrays; a reader that fails
 * makes the dump fail and leaves nothing, not a file with fewer events than its header says. */
static void test_dump_live(st_rankdata_t *rd, const char *tmp)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/live", tmp);
    snprintf(path, sizeof path, "%s/partial/rank-%d.strd", dir, rd->rank);
    EXPECT(st_rankdata_dump(dir, rd) == 0, "dump for comparison");
    long n_ref, n_live;
    uint8_t *ref = slurp(path, &n_ref);
    st_rankdata_t defs = *rd; /* the same definitions, events only through the reader */
    st_thread_data_t th[16];
    EXPECT(rd->nthreads <= 16, "test needs <= 16 threads");
    for (uint32_t i = 0; i < rd->nthreads && i < 16; i++)
        th[i] = rd->threads[i], th[i].events = NULL;
    defs.threads = th;
    live_src_t src = { rd, UINT64_MAX };
    EXPECT(st_rankdata_dump_live(dir, &defs, live_read, &src) == 0, "live dump");
    uint8_t *live = slurp(path, &n_live);
    EXPECT(n_ref == n_live && !memcmp(ref, live, (size_t)n_ref), "live dump differs from the array dump (%ld vs %ld bytes)",
          n_live, n_ref);
    free(live);
    free(ref);
    unlink(path);
    src.fail_at = 3;
    fprintf(stderr, "  (the following 'writing the raw dump failed' error is expected)\n");
    EXPECT(st_rankdata_dump_live(dir, &defs, live_read, &src) == -1, "a failing reader fails the dump");
    char tmpname[620];
    snprintf(tmpname, sizeof tmpname, "%s.tmp", path);
    EXPECT(file_size(path) < 0 && file_size(tmpname) < 0, "nothing left after a failed live dump");
}

/* The groups of MPI_Win_post / start (rmagroups.c): members folded into the rank's table (equal groups
 * once, in the order first named), the RMA_GROUP_SYNC naming its group, a buffer flush between a sync
 * and its members kept, a member without its sync dropped, complete and wait untouched; the table
 * survives the blob and the raw dump's blob (its own version-6 section). */
static void test_groups(void)
{
    enum { POST = 1, START, COMPLETE };
    st_rankdata_t rd = { .rank = 0, .nranks = 4 };
    rd.threads = calloc(1, sizeof *rd.threads);
    st_event_t *ev = calloc(16, sizeof *ev);
    uint64_t n = 0;
#define EV(k, o, p) (ev[n] = (st_event_t){ .time = 10 * n, .kind = (k), .op = (o), .peer = (p) }, n++)
    EV(ST_EV_RMA_GROUP_SYNC, POST, -1); /* 0: post to 3, 1 */
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 3);
    ev[n] = (st_event_t){ .time = 10 * n, .kind = ST_EV_ENTER, .region = ST_REGION_FLUSH }, n++; /* 1 */
    ev[n] = (st_event_t){ .time = 10 * n, .kind = ST_EV_LEAVE, .region = ST_REGION_FLUSH }, n++; /* 2 */
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 1);
    EV(ST_EV_RMA_GROUP_SYNC, START, -1); /* 3: start on 2 */
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 2);
    EV(ST_EV_RMA_GROUP_SYNC, COMPLETE, -1); /* 4 */
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 1);   /* no post or start before it: dropped */
    EV(ST_EV_RMA_GROUP_SYNC, POST, -1); /* 5: post to 3, 1 again */
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 3);
    EV(ST_EV_RMA_GROUP_MEMBER, 0, 1);
#undef EV
    rd.threads[0] = (st_thread_data_t){ .index = 0, .omp_num = -1, .events = ev, .nevents = n };
    rd.nthreads = 1;
    EXPECT(st_rankdata_fold_groups(&rd, NULL, NULL) == 0, "fold");
    EXPECT(rd.threads[0].nevents == 6, "members removed: %llu events left", (unsigned long long)rd.threads[0].nevents);
    EXPECT(rd.ngroups == 2, "two distinct groups, not %u", rd.ngroups);
    EXPECT(rd.ngroups == 2 && rd.groups[0].size == 2 && rd.groups[0].world[0] == 3 && rd.groups[0].world[1] == 1 &&
           rd.groups[1].size == 1 && rd.groups[1].world[0] == 2, "the groups' members in the call's order");
    EXPECT(ev[0].kind == ST_EV_RMA_GROUP_SYNC && ev[0].id == 1 && ev[1].region == ST_REGION_FLUSH &&
           ev[3].id == 2 && ev[4].id == 0 && ev[5].id == 1, "each post / start names its group");
    EXPECT(st_rankdata_fold_groups(&rd, NULL, NULL) == 0 && rd.ngroups == 2 && ev[5].id == 1, "folding again changes nothing");
    void *blob = NULL, *blob2 = NULL;
    size_t sz = st_rankdata_pack(&rd, &blob);
    st_rankdata_t back;
    EXPECT(sz && st_rankdata_unpack(blob, sz, &back) == 0, "unpack");
    EXPECT(back.ngroups == 2 && back.groups[0].size == 2 && back.groups[0].world[1] == 1 &&
           back.groups[1].world[0] == 2, "the groups survive the blob");
    EXPECT(st_rankdata_pack(&back, &blob2) == sz && memcmp(blob, blob2, sz) == 0, "repacking gives the same bytes");
    st_rankdata_free(&back);
    free(blob);
    free(blob2);
    st_rankdata_free(&rd);
}

int main(void)
{
    char tmp[] = "/tmp/test_rankdata.XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    st_rankdata_t rd;
    synth_rank(&rd, 1);
    add_teams(&rd);
    add_callpaths(&rd);
    add_filtered(&rd);
    rd.comms[0].nwins = 3; /* RMA windows created on it */
    test_roundtrip(&rd);
    test_filtered_region(&rd);
    test_version2(&rd);
    test_callpath_order(&rd);
    test_truncation_and_flips(&rd);
    test_fuzz_parser(&rd);
    test_prop();
    test_groups();
    test_dump(&rd, tmp);
    test_dump_live(&rd, tmp);
    st_rankdata_t empty = { .rank = 0, .nranks = 1 };
    test_roundtrip(&empty);
    st_rankdata_free(&rd);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        failures++;
    printf("test_rankdata: %s (%d failure(s))\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
