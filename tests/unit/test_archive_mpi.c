/*
 * test_archive_mpi.c — st_archive_write_mpi() on 3 ranks (synthetic data from
 * test_otf2_synth.h): the parallel archive must pass otf2-print silently and read
 * back with the announced counts and translated peers; an existing archive, an
 * unwritable directory and inconsistent data (two ranks claiming the same rank)
 * must give the same nonzero status on every rank without hanging, and leave no
 * partial archive behind. tests/run-tests.sh runs it on 3 ranks (the ranks line).
 */
/* compiler: mpicc */
/* families: mpich openmpi */
/* ranks: 3 */
/* link: src/mpi/archive_mpi.c src/exchange/polite_mpi.c src/model/rankdata.c src/model/rankdata_dump.c src/otf2/writer.c src/otf2/numbering.c src/otf2/events.c src/util/archive_dir.c src/model/prepare.c src/model/late_ends.c src/model/rmagroups.c src/util/u64map.c src/otf2/globaldefs.c src/model/region.c src/model/event.c src/util/log.c src/model/callpath.c src/util/mem.c */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/mpi/archive_mpi.h"
#include "../../src/otf2/writer.h"
#include "test_otf2_read.h"
#include "test_otf2_synth.h"
#include "check.h"

static int rank;

/* MPICH's transport modules, unloaded at MPI_Finalize, leave allocations LeakSanitizer reports as leaks
 * of an unknown module; the writer's own leaks are test_otf2_writer's (no MPI there). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "detect_leaks=0"; }

#define LOC(r, t) ((uint64_t)(r) + ((uint64_t)(t) << 32)) /* st_otf2_location(), master thread 0 */

static char base[512];

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void otf2_print_ok(const char *dir)
{
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "otf2-print -A '%s/traces.otf2' > '%s/print.out' 2> '%s/print.err'", dir, base, base);
    EXPECT(system(cmd) == 0, "otf2-print rejects %s", dir);
    snprintf(cmd, sizeof cmd, "grep -qi 'error\\|warn' '%s/print.err'", base);
    EXPECT(system(cmd) != 0, "otf2-print complains about %s (see %s/print.err)", dir, base);
}

/* Writes the synthetic world into dir; returns this rank's status. */
static int write_world(MPI_Comm tool, const char *dir, uint64_t gen[2], int claim_rank, unsigned flags)
{
    st_rankdata_t rd;
    synth_rank(&rd, rank);
    rd.rank = claim_rank;
    rd.flags |= flags;
    for (int t = 0; t < 2; t++)
        gen[t] = rd.threads[t].nevents;
    int st = st_archive_write_mpi(tool, &rd, dir);
    st_rankdata_free(&rd);
    return st;
}

/* Every rank's status must be the same as rank 0's. */
static void same_everywhere(int st, const char *what)
{
    int lo, hi;
    MPI_Allreduce(&st, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&st, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT(lo == hi, "%s: ranks disagree on the status (%d..%d)", what, lo, hi);
}

static void check_archive(const char *dir, uint64_t gen[][2], const char *incomplete)
{
    char anchor[700];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    otf2_print_ok(dir);
    ra_archive_t a;
    EXPECT(ra_read(anchor, &a) == 0, "read back");
    EXPECT(a.nloc == 6, "%d locations", a.nloc);
    for (int i = 0; i < a.nloc; i++) {
        int r = (int)(a.loc[i].id & 0xffffffffu), t = (int)(a.loc[i].id >> 32);
        uint64_t want = synth_expect(gen[r][t]);
        EXPECT(a.loc[i].nevents == want && a.loc[i].counted == want, "location %llu: defined %llu read %llu want %llu",
              (unsigned long long)a.loc[i].id, (unsigned long long)a.loc[i].nevents,
              (unsigned long long)a.loc[i].counted, (unsigned long long)want);
    }
    const ra_comm_t *sa = ra_comm_named(&a, "split-A"), *mg = ra_comm_named(&a, "merged"), *in = ra_comm_named(&a, "inter");
    EXPECT(sa && mg && in && in->inter && mg->parent == in->id, "communicators");
    const ra_event_t *e = ra_find(&a, LOC(0, 0), T_ISEND, 0);
    EXPECT(e && sa && e->a == 0 && e->comm == sa->id, "rank 0 isend to world 2 = split-A rank 0");
    e = ra_find(&a, LOC(2, 0), T_RECV, 1);
    EXPECT(e && mg && e->a == 2 && e->comm == mg->id, "rank 2 recv from world 0 = merged rank 2");
    e = ra_find(&a, LOC(1, 0), T_COLL_END, 3);
    EXPECT(e && in && e->a == 0 && e->comm == in->id, "intercomm root");
    e = ra_find(&a, LOC(2, 0), T_ENTER, 1);
    EXPECT(e && e->has_callsite && strcmp(ra_str(&a, e->callsite), "main (app.c:42)") == 0, "rank 2 callsite");
    e = ra_find(&a, LOC(1, 1), T_TASK_CREATE, 0);
    const ra_event_t *s = ra_find(&a, LOC(1, 0), T_TASK_SWITCH, 1);
    EXPECT(e && s && e->comm == s->comm && s->a == 1 && s->tag == 1, "cross-thread task identity on rank 1");
    EXPECT(strcmp(a.incomplete, incomplete) == 0, "INCOMPLETE=%s, got '%s'", incomplete, a.incomplete);
    ra_free(&a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    alarm(120); /* a hang is a failure */
    int size;
    MPI_Comm tool;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(check_context, sizeof check_context, "[rank %d] ", rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &tool);
    if (size != SYNTH_NRANKS) {
        if (rank == 0)
            fprintf(stderr, "run on %d ranks\n", SYNTH_NRANKS);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) {
        snprintf(base, sizeof base, "%s/test_archive_mpi.XXXXXX", argc > 1 ? argv[1] : "/tmp");
        if (!mkdtemp(base))
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Bcast(base, sizeof base, MPI_CHAR, 0, MPI_COMM_WORLD);
    char dir[700];
    uint64_t gen[SYNTH_NRANKS][2], mygen[2];

    snprintf(dir, sizeof dir, "%s/ok", base);
    int st = write_world(tool, dir, mygen, rank, 0);
    EXPECT(st == ST_OTF2_OK, "parallel write: %s", st_otf2_status_name(st));
    MPI_Gather(mygen, 2, MPI_UINT64_T, gen, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0)
        check_archive(dir, gen, "false");

    if (rank == 0)
        fprintf(stderr, "  (expect one 'already holds an archive' error)\n");
    st = write_world(tool, dir, mygen, rank, 0);
    EXPECT(st == ST_OTF2_ERR_EXISTS, "existing archive: %s", st_otf2_status_name(st));
    same_everywhere(st, "existing archive");
    if (rank == 0)
        otf2_print_ok(dir); /* untouched */

    if (rank == 0)
        fprintf(stderr, "  (expect one 'cannot write into' error)\n");
    st = write_world(tool, "/proc/synctrace-mpi-test", mygen, rank, 0);
    EXPECT(st == ST_OTF2_ERR_DIR, "unwritable directory: %s", st_otf2_status_name(st));
    same_everywhere(st, "unwritable directory");

    snprintf(dir, sizeof dir, "%s/dup", base);
    if (rank == 0)
        fprintf(stderr, "  (expect one 'rank 0 appears twice' error)\n");
    st = write_world(tool, dir, mygen, rank == 1 ? 0 : rank, 0);
    EXPECT(st == ST_OTF2_ERR_DATA, "duplicate rank: %s", st_otf2_status_name(st));
    same_everywhere(st, "duplicate rank");
    char anchor[800];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    EXPECT(!exists(anchor), "no archive left after a failure");

    snprintf(dir, sizeof dir, "%s/incomplete", base);
    st = write_world(tool, dir, mygen, rank, rank == 2 ? ST_RANKF_INCOMPLETE : 0);
    EXPECT(st == ST_OTF2_OK, "write with an incomplete rank: %s", st_otf2_status_name(st));
    MPI_Gather(mygen, 2, MPI_UINT64_T, gen, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0)
        check_archive(dir, gen, "true");

    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
        if (total == 0 && system(cmd) != 0)
            total++;
        printf("test_archive_mpi: %s (%d failure(s))\n", total ? "FAIL" : "ok", total);
    }
    MPI_Comm_free(&tool);
    MPI_Finalize();
    return rank == 0 && total != 0;
}
