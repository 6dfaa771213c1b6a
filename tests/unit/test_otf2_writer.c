/*
 * test_otf2_writer.c — the serial OTF2 writer on synthetic data of 3 ranks x 2
 * threads with every event kind: otf2-print must accept the archive without a word
 * of complaint, and reading it back with the OTF2 reader must give the announced
 * event counts and the translated fields (world -> communicator ranks on a split
 * communicator, an intercommunicator and a reordered merged one; roots; bytes;
 * OpenMP teams, tasks and locks; attributes). Also: refusal to overwrite, an
 * unwritable directory, a missing rank, and the dump -> load -> write path of
 * `synctrace recover`.
 */
/* link: src/model/rankdata.c src/model/rankdata_dump.c src/otf2/writer.c src/otf2/numbering.c src/otf2/events.c src/util/archive_dir.c src/model/prepare.c src/model/late_ends.c src/model/rmagroups.c src/util/u64map.c src/otf2/globaldefs.c src/model/region.c src/model/event.c src/util/log.c src/model/callpath.c src/util/mem.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/model/prepare.h"
#include "../../src/otf2/writer.h"
#include "test_otf2_read.h"
#include "test_otf2_synth.h"

#include "check.h"

#define LOC(r, t) ((uint64_t)(r) + ((uint64_t)(t) << 32)) /* st_otf2_location(), master thread 0 */

static char tmp[] = "/tmp/test_otf2_writer.XXXXXX";

/* otf2-print -A must succeed and say nothing on stderr about errors or warnings. */
static void otf2_print_ok(const char *dir)
{
    char cmd[1200], err[600];
    snprintf(err, sizeof err, "%s/otf2-print.err", tmp);
    snprintf(cmd, sizeof cmd, "otf2-print -A '%s/traces.otf2' > '%s/otf2-print.out' 2> '%s'", dir, tmp, err);
    EXPECT(system(cmd) == 0, "otf2-print rejects %s", dir);
    snprintf(cmd, sizeof cmd, "grep -qi 'error\\|warn' '%s'", err);
    if (system(cmd) == 0) {
        snprintf(cmd, sizeof cmd, "head -c 600 '%s' >&2", err);
        EXPECT(0, "otf2-print complains about %s", dir);
        if (system(cmd) != 0)
            failures++;
    }
}

static void make_world(st_rankdata_t *ranks, uint64_t gen[][2])
{
    for (int r = 0; r < SYNTH_NRANKS; r++) {
        synth_rank(&ranks[r], r);
        for (int t = 0; t < 2; t++)
            gen[r][t] = ranks[r].threads[t].nevents;
    }
}

static uint32_t comm_id(const ra_archive_t *a, const char *name)
{
    const ra_comm_t *c = ra_comm_named(a, name);
    EXPECT(c != NULL, "no communicator named %s", name);
    return c ? (uint32_t)c->id : OTF2_UNDEFINED_COMM;
}

static void check_members(const ra_archive_t *a, uint64_t group, const uint64_t *want, uint32_t n, const char *what)
{
    const ra_group_t *g = ra_group_id(a, group);
    EXPECT(g && g->n == n && memcmp(g->m, want, n * sizeof *want) == 0, "members of %s", what);
}

static void check_defs(const ra_archive_t *a)
{
    EXPECT(a->resolution == 1000000000u, "timer resolution %llu", (unsigned long long)a->resolution);
    EXPECT(a->offset == 1010, "global offset %llu (min t_begin)", (unsigned long long)a->offset);
    uint64_t last = 0;
    for (size_t i = 0; i < a->nev; i++)
        last = a->ev[i].time > last ? a->ev[i].time : last;
    EXPECT(a->offset + a->length == last, "trace length ends at the last event");
    const ra_comm_t *w = ra_comm_named(a, "MPI_COMM_WORLD"), *sa = ra_comm_named(a, "split-A");
    const ra_comm_t *in = ra_comm_named(a, "inter"), *mg = ra_comm_named(a, "merged"), *self = ra_comm_named(a, "MPI_COMM_SELF");
    EXPECT(w && sa && in && mg && self && ra_comm_named(a, "split-B"), "all communicators defined");
    if (!(w && sa && in && mg && self))
        return;
    static const uint64_t w_m[] = { 0, 1, 2 }, sa_m[] = { 2, 0 }, mg_m[] = { 1, 2, 0 }, zero[] = { 0 }, onetwo[] = { 1, 2 };
    check_members(a, w->group, w_m, 3, "MPI_COMM_WORLD");
    check_members(a, sa->group, sa_m, 2, "split-A (comm rank order)");
    check_members(a, mg->group, mg_m, 3, "merged");
    EXPECT(in->inter, "intercommunicator written as InterComm");
    check_members(a, in->group, zero, 1, "inter group A");
    check_members(a, in->group_b, onetwo, 2, "inter group B");
    EXPECT(mg->parent == in->id && sa->parent == w->id && w->parent == OTF2_UNDEFINED_COMM, "parents");
    const ra_group_t *sg = ra_group_id(a, self->group);
    EXPECT(sg && sg->type == OTF2_GROUP_TYPE_COMM_SELF, "MPI_COMM_SELF uses a COMM_SELF group");
    int comm_locations = 0, teams = 0;
    for (int i = 0; i < a->ngroup; i++)
        if (a->group[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && a->group[i].paradigm == OTF2_PARADIGM_MPI) {
            static const uint64_t locs[] = { LOC(0, 0), LOC(1, 0), LOC(2, 0) };
            comm_locations++;
            EXPECT(a->group[i].n == 3 && memcmp(a->group[i].m, locs, sizeof locs) == 0, "MPI COMM_LOCATIONS");
        }
    for (int i = 0; i < a->ncomm; i++)
        teams += strcmp(ra_str(a, a->comm[i].name), "OpenMP thread team") == 0;
    EXPECT(comm_locations == 1, "one MPI COMM_LOCATIONS group");
    EXPECT(teams == 6, "2 thread teams per rank (initial + parallel), got %d", teams);
}

static void check_counts(const ra_archive_t *a, uint64_t gen[][2], int nloc)
{
    EXPECT(a->nloc == nloc, "%d locations, want %d", a->nloc, nloc);
    for (int i = 0; i < a->nloc; i++) {
        int r = (int)(a->loc[i].id & 0xffffffffu), t = (int)(a->loc[i].id >> 32);
        uint64_t want = gen ? synth_expect(gen[r][t]) : a->loc[i].nevents;
        EXPECT(a->loc[i].nevents == want && a->loc[i].counted == want, "location %llu: defined %llu, read %llu, want %llu",
              (unsigned long long)a->loc[i].id, (unsigned long long)a->loc[i].nevents,
              (unsigned long long)a->loc[i].counted, (unsigned long long)want);
    }
    for (size_t i = 0; i < a->nev; i++)
        EXPECT(a->ev[i].type != T_UNKNOWN, "unknown record at %llu", (unsigned long long)a->ev[i].loc);
}

static void check_p2p(const ra_archive_t *a)
{
    uint32_t world = comm_id(a, "MPI_COMM_WORLD"), sa = comm_id(a, "split-A"), in = comm_id(a, "inter");
    uint32_t mg = comm_id(a, "merged");
    const ra_event_t *e = ra_find(a, LOC(0, 0), T_SEND, 0);
    EXPECT(e && e->a == 1 && e->comm == world && e->tag == 1 && e->len == 8, "rank 0 send on WORLD");
    e = ra_find(a, LOC(0, 0), T_ISEND, 0);
    EXPECT(e && e->a == 0 && e->comm == sa && e->len == 100 && e->req == 11, "rank 0 isend to world 2 = split rank 0");
    e = ra_find(a, LOC(2, 0), T_ISEND, 0);
    EXPECT(e && e->a == 1 && e->comm == sa, "rank 2 isend to world 0 = split rank 1");
    e = ra_find(a, LOC(2, 0), T_IRECV, 0);
    EXPECT(e && e->a == 1 && e->len == 100 && e->req == 12, "rank 2 irecv from split rank 1");
    e = ra_find(a, LOC(0, 0), T_SEND, 1);
    EXPECT(e && e->a == 0 && e->comm == in && e->len == 44, "rank 0 send to world 1 = remote rank 0 of the intercomm");
    e = ra_find(a, LOC(2, 0), T_SEND, 1);
    EXPECT(e && e->a == 0 && e->comm == in, "rank 2 send to world 0 = remote rank 0");
    e = ra_find(a, LOC(0, 0), T_RECV, 1);
    EXPECT(e && e->a == 0 && e->comm == mg && e->len == 55, "rank 0 recv from world 1 = merged rank 0");
    e = ra_find(a, LOC(2, 0), T_RECV, 1);
    EXPECT(e && e->a == 2 && e->comm == mg, "rank 2 recv from world 0 = merged rank 2");
    EXPECT(ra_find(a, LOC(0, 0), T_SEND, 2) == NULL, "the MPI_PROC_NULL send is not written");
    EXPECT(ra_find(a, LOC(1, 0), T_CANCELLED, 0) && ra_find(a, LOC(1, 0), T_ISEND_DONE, 0) &&
              ra_find(a, LOC(1, 0), T_IRECV_REQ, 0),
          "request records");
}

static void check_colls(const ra_archive_t *a)
{
    uint32_t world = comm_id(a, "MPI_COMM_WORLD"), sa = comm_id(a, "split-A"), sb = comm_id(a, "split-B");
    uint32_t self = comm_id(a, "MPI_COMM_SELF"), mg = comm_id(a, "merged"), in = comm_id(a, "inter");
    const ra_event_t *e = ra_find(a, LOC(1, 0), T_COLL_END, 0);
    EXPECT(e && e->a == 2 && e->comm == world && e->tag == OTF2_COLLECTIVE_OP_BCAST && e->len == 16, "bcast root 2");
    e = ra_find(a, LOC(0, 0), T_COLL_END, 1);
    EXPECT(e && e->a == 0 && e->comm == sa, "reduce on split-A: root world 2 = comm rank 0");
    e = ra_find(a, LOC(2, 0), T_COLL_END, 1);
    EXPECT(e && e->a == 0 && e->len2 == 48, "root's received bytes");
    e = ra_find(a, LOC(1, 0), T_COLL_END, 1);
    EXPECT(e && e->a == 0 && e->comm == sb, "reduce on split-B");
    e = ra_find(a, LOC(1, 0), T_COLL_END, 2);
    EXPECT(e && e->a == OTF2_COLLECTIVE_ROOT_NONE && e->comm == self, "barrier on SELF: no root");
    e = ra_find(a, LOC(0, 0), T_COLL_END, 3);
    EXPECT(e && e->a == OTF2_COLLECTIVE_ROOT_SELF && e->comm == in, "intercomm bcast: rank 0 is MPI_ROOT");
    e = ra_find(a, LOC(2, 0), T_COLL_END, 3);
    EXPECT(e && e->a == 0 && e->comm == in, "intercomm bcast: root is remote rank 0");
    e = ra_find(a, LOC(2, 0), T_NBC_DONE, 0);
    EXPECT(e && e->comm == mg && e->req == 21 && e->tag == OTF2_COLLECTIVE_OP_ALLREDUCE && e->a == OTF2_COLLECTIVE_ROOT_NONE,
          "nonblocking collective completion");
    EXPECT(ra_find(a, LOC(2, 0), T_NBC_REQ, 0) && ra_find(a, LOC(2, 0), T_NBC_REQ, 0)->req == 21, "nbc request");
}

static void check_omp(const ra_archive_t *a)
{
    const ra_event_t *f = ra_find(a, LOC(1, 0), T_FORK, 0);
    EXPECT(f && f->a == 2 && f->has_pid && f->pid == 101, "fork: requested threads and parallel id attribute");
    const ra_event_t *b0 = ra_find(a, LOC(1, 0), T_TEAM_BEGIN, 0), *b1 = ra_find(a, LOC(1, 1), T_TEAM_BEGIN, 0);
    EXPECT(b0 && b1 && b0->comm == b1->comm, "both threads begin the same team");
    const ra_event_t *c = ra_find(a, LOC(1, 1), T_TASK_CREATE, 0);
    EXPECT(c && b0 && c->comm == b0->comm && c->a == 1 && c->tag == 1, "task 777: team, creator 1, generation 1");
    const ra_event_t *s0 = ra_find(a, LOC(1, 0), T_TASK_SWITCH, 0), *s1 = ra_find(a, LOC(1, 0), T_TASK_SWITCH, 1);
    const ra_event_t *s2 = ra_find(a, LOC(1, 0), T_TASK_SWITCH, 2);
    EXPECT(s0 && s0->a == 0 && s0->tag == 1, "switch to own task 555");
    EXPECT(s1 && s1->a == 1 && s1->tag == 1, "switch to task 777 created by thread 1");
    EXPECT(s2 && b0 && s2->a == 0 && s2->tag == 0 && s2->comm == b0->comm, "switch back to the implicit task");
    const ra_event_t *l0 = ra_find(a, LOC(1, 0), T_ACQUIRE, 0), *l1 = ra_find(a, LOC(1, 1), T_ACQUIRE, 0);
    EXPECT(l0 && l1 && l0->a == 0 && l1->a == 0 && l0->tag == 1 && l1->tag == 2, "dense lock id and acquisition order");
    const ra_event_t *e = ra_find(a, LOC(1, 1), T_ENTER, 0), *l = ra_find(a, LOC(1, 1), T_LEAVE, 0);
    EXPECT(e && l && l->time >= e->time, "time going backwards was repaired");
}

static void check_attrs(const ra_archive_t *a)
{
    const ra_event_t *e = ra_find(a, LOC(0, 0), T_ENTER, 1);
    EXPECT(e && e->has_callsite && strcmp(ra_str(a, e->callsite), "main (app.c:42)") == 0, "callsite attribute");
    e = ra_find(a, LOC(2, 0), T_ENTER, 1);
    EXPECT(e && e->has_callsite && strcmp(ra_str(a, e->callsite), "main (app.c:42)") == 0, "callsite string of rank 2");
    EXPECT(!ra_find(a, LOC(0, 0), T_ENTER, 0)->has_callsite, "no callsite without a pc");
    const ra_event_t *last = NULL;
    for (int k = 0; ra_find(a, LOC(0, 0), T_LEAVE, k); k++)
        last = ra_find(a, LOC(0, 0), T_LEAVE, k);
    EXPECT(last && last->has_orig && last->orig == last->time - 3, "orig_time attribute of a CLC-moved event");
}

/* The definition chunk size in an archive's anchor file (0 if it cannot be read). */
static uint64_t def_chunk_of(const char *anchor)
{
    uint64_t evt = 0, def = 0;
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (r && (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS ||
              OTF2_Reader_GetChunkSize(r, &evt, &def) != OTF2_SUCCESS))
        def = 0;
    if (r)
        OTF2_Reader_Close(r);
    return def;
}

static void test_full(void)
{
    st_rankdata_t ranks[SYNTH_NRANKS];
    uint64_t gen[SYNTH_NRANKS][2];
    char dir[256], anchor[300];
    make_world(ranks, gen);
    snprintf(dir, sizeof dir, "%s/full/nested", tmp);
    fprintf(stderr, "  (expect 2 warnings per rank: a time repair and an unknown region)\n");
    EXPECT(st_otf2_write_serial(dir, ranks, SYNTH_NRANKS, 0) == ST_OTF2_OK, "serial write");
    otf2_print_ok(dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    ra_archive_t a;
    EXPECT(ra_read(anchor, &a) == 0, "OTF2 reader reads the archive");
    check_counts(&a, gen, 2 * SYNTH_NRANKS);
    check_defs(&a);
    check_p2p(&a);
    check_colls(&a);
    check_omp(&a);
    check_attrs(&a);
    EXPECT(strcmp(a.incomplete, "false") == 0, "SYNCTRACE::INCOMPLETE=false, got '%s'", a.incomplete);
    ra_free(&a);
    EXPECT(def_chunk_of(anchor) == 256u << 10, "anchor: definition chunk %llu, want 256 KiB",
           (unsigned long long)def_chunk_of(anchor));

    fprintf(stderr, "  (expect one 'already holds an archive' error)\n");
    EXPECT(st_otf2_write_serial(dir, ranks, SYNTH_NRANKS, 0) == ST_OTF2_ERR_EXISTS, "never overwrites");
    otf2_print_ok(dir);
    for (int r = 0; r < SYNTH_NRANKS; r++)
        st_rankdata_free(&ranks[r]);
}

/*
 * The definition chunk: OTF2's least (256 KiB) for small runs, larger when a string or a group
 * needs it, at most OTF2's 16 MiB; an archive with a call-site text longer than the least chunk
 * is written and read whole (with OTF2's default fixed size it had to fit in 4 MiB).
 */
static void test_def_chunk(void)
{
    EXPECT(st_otf2_def_chunk(NULL, 0) == 256u << 10, "no ranks: 256 KiB");
    st_rankdata_t ranks[SYNTH_NRANKS], many = { 0 };
    uint64_t gen[SYNTH_NRANKS][2];
    make_world(ranks, gen);
    st_rankdata_t *ptrs[SYNTH_NRANKS + 1];
    for (int r = 0; r < SYNTH_NRANKS; r++)
        ptrs[r] = &ranks[r];
    EXPECT(st_otf2_def_chunk(ptrs, SYNTH_NRANKS) == 256u << 10, "the synthetic run: 256 KiB, got %llu",
           (unsigned long long)st_otf2_def_chunk(ptrs, SYNTH_NRANKS));
    many.nthreads = 50000; /* a group of 50,003 locations: up to 450 kB */
    ptrs[SYNTH_NRANKS] = &many;
    EXPECT(st_otf2_def_chunk(ptrs, SYNTH_NRANKS + 1) == 1u << 20, "50,000 more locations: 1 MiB, got %llu",
           (unsigned long long)st_otf2_def_chunk(ptrs, SYNTH_NRANKS + 1));
    many.nthreads = 100000000;
    EXPECT(st_otf2_def_chunk(ptrs, SYNTH_NRANKS + 1) == 16u << 20, "10^8 locations: OTF2's largest chunk");

    size_t n = 600000;
    char *text = malloc(n + 16);
    EXPECT(text != NULL, "malloc");
    if (!text)
        return;
    memset(text, 'f', n);
    strcpy(text + n, " (app.c:42)");
    free(ranks[1].callsites[1].text);
    ranks[1].callsites[1].text = text;
    EXPECT(st_otf2_def_chunk(ptrs, SYNTH_NRANKS) == 2u << 20, "a 600 kB call-site text: 2 MiB, got %llu",
           (unsigned long long)st_otf2_def_chunk(ptrs, SYNTH_NRANKS));
    char dir[256], anchor[300];
    snprintf(dir, sizeof dir, "%s/longtext", tmp);
    fprintf(stderr, "  (expect 2 warnings per rank: a time repair and an unknown region)\n");
    EXPECT(st_otf2_write_serial(dir, ranks, SYNTH_NRANKS, 0) == ST_OTF2_OK, "serial write with a 600 kB string");
    otf2_print_ok(dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    EXPECT(def_chunk_of(anchor) == 2u << 20, "anchor: definition chunk %llu, want 2 MiB",
           (unsigned long long)def_chunk_of(anchor));
    ra_archive_t a;
    EXPECT(ra_read(anchor, &a) == 0, "OTF2 reader reads the archive with the long string");
    int found = 0;
    for (uint32_t i = 0; i < a.nstr; i++)
        found += a.str[i] && strlen(a.str[i]) == n + 11 && strncmp(a.str[i], text, n + 11) == 0;
    EXPECT(found >= 1, "the 600 kB string read back whole");
    check_counts(&a, gen, 2 * SYNTH_NRANKS);
    ra_free(&a);
    for (int r = 0; r < SYNTH_NRANKS; r++)
        st_rankdata_free(&ranks[r]);
}

static void test_bad_dirs(void)
{
    st_rankdata_t rd;
    synth_rank(&rd, 0);
    char file[300], under[320];
    snprintf(file, sizeof file, "%s/plainfile", tmp);
    fclose(fopen(file, "w"));
    snprintf(under, sizeof under, "%s/sub", file);
    fprintf(stderr, "  (expect three 'cannot write into directory' errors)\n");
    EXPECT(st_otf2_write_serial("/proc/synctrace-no", &rd, 1, 0) == ST_OTF2_ERR_DIR, "/proc");
    EXPECT(st_otf2_write_serial(file, &rd, 1, 0) == ST_OTF2_ERR_DIR, "a regular file");
    EXPECT(st_otf2_write_serial(under, &rd, 1, 0) == ST_OTF2_ERR_DIR, "below a regular file");
    st_rankdata_free(&rd);
}

static int exists(const char *dir, const char *name)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* Inconsistent data fails with ST_OTF2_ERR_DATA and leaves DIR reusable. */
static void test_bad_data(void)
{
    st_rankdata_t rd;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/baddata", tmp);
    fprintf(stderr, "  (expect a 'thread index' and an 'events are not in memory' error)\n");
    synth_rank(&rd, 0);
    rd.nranks = 1;
    rd.threads[1].index = 0;
    EXPECT(st_otf2_write_serial(dir, &rd, 1, 0) == ST_OTF2_ERR_DATA, "duplicate thread index");
    EXPECT(!exists(dir, "traces.otf2"), "nothing written");
    st_rankdata_free(&rd);

    synth_rank(&rd, 0);
    rd.nranks = 1;
    free(rd.threads[1].events); /* counts say 8 events, none in memory: fails after opening */
    rd.threads[1].events = NULL;
    EXPECT(st_otf2_write_serial(dir, &rd, 1, 0) == ST_OTF2_ERR_DATA, "events missing");
    EXPECT(!exists(dir, "traces.otf2") && !exists(dir, "traces.def") && !exists(dir, "traces"),
          "the partial archive was removed");
    st_rankdata_free(&rd);

    st_rankdata_t ranks[SYNTH_NRANKS];
    uint64_t gen[SYNTH_NRANKS][2];
    make_world(ranks, gen);
    EXPECT(st_otf2_write_serial(dir, ranks, SYNTH_NRANKS, 0) == ST_OTF2_OK, "the directory is usable again");
    otf2_print_ok(dir);
    for (int r = 0; r < SYNTH_NRANKS; r++)
        st_rankdata_free(&ranks[r]);
}

/* Ranks 0 and 2 only: rank 1 gets a placeholder location, INCOMPLETE=true. */
static void test_missing_rank(void)
{
    st_rankdata_t ranks[2];
    synth_rank(&ranks[0], 2); /* any order */
    synth_rank(&ranks[1], 0);
    char dir[256], anchor[300];
    snprintf(dir, sizeof dir, "%s/missing", tmp);
    EXPECT(st_otf2_write_serial(dir, ranks, 2, ST_OTF2_INCOMPLETE) == ST_OTF2_OK, "write without rank 1");
    otf2_print_ok(dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    ra_archive_t a;
    EXPECT(ra_read(anchor, &a) == 0, "read");
    check_counts(&a, NULL, 5); /* 2 + 1 placeholder + 2 */
    EXPECT(ra_find(&a, LOC(1, 0), T_ENTER, 0) == NULL, "the placeholder has no events");
    EXPECT(strcmp(a.incomplete, "true") == 0, "SYNCTRACE::INCOMPLETE=true");
    ra_free(&a);
    st_rankdata_free(&ranks[0]);
    st_rankdata_free(&ranks[1]);
}

/* What `synctrace recover` does: per-rank dumps, loaded back, written serially. */
static void test_recover_path(void)
{
    st_rankdata_t ranks[SYNTH_NRANKS], back[SYNTH_NRANKS];
    uint64_t gen[SYNTH_NRANKS][2];
    char dir[256], path[400], anchor[300];
    make_world(ranks, gen);
    snprintf(dir, sizeof dir, "%s/crashed", tmp);
    for (int r = 0; r < SYNTH_NRANKS; r++) {
        ranks[r].flags |= ST_RANKF_INCOMPLETE;
        EXPECT(st_rankdata_dump(dir, &ranks[r]) == 0, "dump rank %d", r);
        snprintf(path, sizeof path, "%s/partial/rank-%d.strd", dir, r);
        EXPECT(st_rankdata_load_dump(path, &back[r]) == 0, "load rank %d", r);
        st_rankdata_free(&ranks[r]);
    }
    EXPECT(st_otf2_write_serial(dir, back, SYNTH_NRANKS, ST_OTF2_INCOMPLETE) == ST_OTF2_OK, "write recovered");
    otf2_print_ok(dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    ra_archive_t a;
    EXPECT(ra_read(anchor, &a) == 0, "read");
    check_counts(&a, gen, 2 * SYNTH_NRANKS);
    check_p2p(&a);
    EXPECT(strcmp(a.incomplete, "true") == 0, "INCOMPLETE=true after recovery");
    ra_free(&a);
    for (int r = 0; r < SYNTH_NRANKS; r++)
        st_rankdata_free(&back[r]);
}

/*
 * st_rankdata_prepare() notes the team begins in the pass that folds the RMA groups: the teams it
 * leaves in rd must be those a view built by its own pass over the prepared events finds. Two
 * threads, parallel ids interleaved across them (and out of order on one), members of an RMA group
 * before them (the fold moves the events down), a nested team of thread 1 alone.
 */
static void test_prepare_teams(void)
{
    enum { N = 32 };
    st_rankdata_t rd = { .rank = 0, .nranks = 2 };
    rd.threads = calloc(2, sizeof *rd.threads);
    rd.nthreads = 2;
    for (uint32_t t = 0; t < 2; t++) {
        st_event_t *ev = calloc(N, sizeof *ev);
        uint64_t n = 0, time = 100;
#define EV(...) (ev[n] = (st_event_t){ .time = time++, __VA_ARGS__ }, n++)
        EV(.kind = ST_EV_RMA_GROUP_SYNC, .op = ST_PSCW_POST, .peer = -1);
        EV(.kind = ST_EV_RMA_GROUP_MEMBER, .peer = 1);
        EV(.kind = ST_EV_RMA_GROUP_MEMBER, .peer = 0);
        static const uint64_t pids[2][3] = { { 7, 5, 9 }, { 5, 7, 9 } };
        for (int k = 0; k < 3; k++) {
            EV(.kind = ST_EV_THREAD_TEAM_BEGIN, .id = pids[t][k], .peer = (int32_t)t);
            EV(.kind = ST_EV_THREAD_TEAM_END, .id = pids[t][k], .peer = (int32_t)t);
        }
        if (t == 1) { /* a team of thread 1 alone */
            EV(.kind = ST_EV_THREAD_TEAM_BEGIN, .id = 11, .peer = 0);
            EV(.kind = ST_EV_THREAD_TEAM_END, .id = 11, .peer = 0);
        }
#undef EV
        rd.threads[t] = (st_thread_data_t){ .index = t, .omp_num = (int32_t)t, .events = ev, .nevents = n };
    }
    EXPECT(st_rankdata_prepare(&rd) == 0, "prepare");
    EXPECT(rd.threads[0].nevents == 7 && rd.threads[1].nevents == 9, "the members folded: %llu and %llu events left",
           (unsigned long long)rd.threads[0].nevents, (unsigned long long)rd.threads[1].nevents);
    st_rankview_t c;
    EXPECT(st_rankview_init(&c, &rd, 0) == 0, "view");
    EXPECT(c.has_omp && rd.nteams == 3 && c.nteams == rd.nteams, "teams: initial, {0, 1}, {1}: prepare found %u, the view %u",
           rd.nteams, c.nteams);
    for (uint32_t i = 0; i < rd.nteams && i < c.nteams; i++)
        EXPECT(rd.teams[i].size == c.teams[i].size &&
                   memcmp(rd.teams[i].threads, c.teams[i].threads, c.teams[i].size * sizeof *c.teams[i].threads) == 0,
               "team %u: the same members in prepare and in the view", i);
    EXPECT(rd.nteams == 3 && rd.teams[1].size == 2 && rd.teams[2].size == 1 && rd.teams[2].threads[0] == 1,
           "the teams in the order of their first parallel id");
    st_rankview_free(&c);
    st_rankdata_free(&rd);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 1;
    if (system("otf2-print --help >/dev/null 2>&1") != 0) {
        printf("SKIP: otf2-print not installed\n");
        return 77;
    }
    test_full();
    test_def_chunk();
    test_bad_dirs();
    test_bad_data();
    test_missing_rank();
    test_recover_path();
    test_prepare_teams();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (failures == 0 && system(cmd) != 0)
        failures++;
    printf("test_otf2_writer: %s (%d failure(s))%s%s\n", failures ? "FAIL" : "ok", failures,
           failures ? "; archives kept in " : "", failures ? tmp : "");
    return failures != 0;
}
