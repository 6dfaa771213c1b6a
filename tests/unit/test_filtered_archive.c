/*
 * test_filtered_archive.c — the calls a filter (SYNCTRACE_FILTER) removed, from rank data through the
 * serial OTF2 writer to what the `synctrace` commands read back: the location properties
 * SYNCTRACE::FILTERED_<k> (st_cli_filtered: rank, thread, region, visits, time, exactly), the
 * converted rank data (st_cli_convert: rd->filtered, as the offline analysis gets it) and the
 * filter's own archive properties (path, rules).
 */
/* link: src/model/rankdata.c src/model/rankdata_dump.c src/otf2/writer.c src/otf2/numbering.c src/otf2/events.c src/util/archive_dir.c src/model/prepare.c src/model/late_ends.c src/model/rmagroups.c src/util/u64map.c src/otf2/globaldefs.c src/model/region.c src/model/event.c src/util/log.c src/model/callpath.c src/cli/convert.c src/cli/convert_rebuild.c src/cli/archive_defs.c src/cli/archive_comm.c src/cli/archive_load.c src/cli/archive_events.c src/cli/names.c src/util/mem.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_otf2_synth.h"

#include "../../src/cli/archive_read.h"
#include "../../src/cli/convert.h"
#include "../../src/otf2/writer.h"
#include "check.h"

/* What each rank's filter removed: rank 0 two regions on its master and one on its worker, rank 1
 * nothing, rank 2 one region (a count beyond 32 bits). */
static const st_filtered_sum_t want[] = {
    { 0, ST_REGION_MPI_Type_size, 100000, 4500000 },
    { 0, ST_REGION_MPI_Comm_rank, 100001, 2000000 },
    { 1, ST_REGION_MPI_Win_flush_all, 7, 350 },
    { 0, ST_REGION_MPI_Type_size, 5000000000ull, 9000000000ull },
};
static const int32_t want_rank[] = { 0, 0, 0, 2 };
#define NWANT (sizeof want / sizeof want[0])

static void add(st_rankdata_t *rd, size_t i)
{
    rd->filtered = realloc(rd->filtered, sizeof *rd->filtered * (rd->nfiltered + 1));
    rd->filtered[rd->nfiltered++] = want[i];
}

/* want[i] among the converted rank data. */
static int converted(const st_cli_ranks_t *rk, size_t i)
{
    const st_rankdata_t *rd = &rk->rd[want_rank[i]];
    int n = 0;
    for (uint32_t k = 0; k < rd->nfiltered; k++)
        n += !memcmp(&rd->filtered[k], &want[i], sizeof want[i]);
    return n;
}

int main(void)
{
    char tmp[] = "/tmp/test_filtered_archive.XXXXXX";
    REQUIRE(mkdtemp(tmp));
    char dir[600];
    snprintf(dir, sizeof dir, "%s/a", tmp);
    st_rankdata_t rd[SYNTH_NRANKS];
    for (int r = 0; r < SYNTH_NRANKS; r++)
        synth_rank(&rd[r], r);
    for (size_t i = 0; i < NWANT; i++)
        add(&rd[want_rank[i]], i);
    st_rankdata_prop(&rd[0], "FILTER", "%s", "/home/u/my.filter");
    st_rankdata_prop(&rd[0], "FILTER_RULES", "%d", 2);
    st_rankdata_prop(&rd[0], "FILTER_RULE.1", "%s", "SCOREP_REGION_NAMES_BEGIN EXCLUDE MPI_Type_size");
    st_rankdata_prop(&rd[0], "FILTER_RULE.2", "%s", "EXCLUDE MPI_Comm_rank MPI_Win_flush_all");
    REQUIRE(st_otf2_write_serial(dir, rd, SYNTH_NRANKS, 0) == 0);

    st_cli_archive_t ar;
    char err[512];
    REQUIRE(st_cli_archive_load(dir, &ar, err, sizeof err) == 0, "%s", err);
    st_cli_filtered_t *f;
    size_t n;
    REQUIRE(st_cli_filtered(&ar, &f, &n) == 0);
    REQUIRE_EQ(n, NWANT);
    for (size_t i = 0; i < NWANT; i++) {
        int found = 0;
        for (size_t k = 0; k < n; k++)
            found += f[k].rank == want_rank[i] && f[k].thread == want[i].thread && f[k].visits == want[i].visits &&
                     f[k].time == want[i].time && !strcmp(f[k].region, st_region_info(want[i].region)->name);
        EXPECT(found == 1, "filtered calls %zu read back %d times", i, found);
    }
    free(f);
    const char *path = st_cli_prop(&ar, "SYNCTRACE::FILTER"), *rule = st_cli_prop(&ar, "SYNCTRACE::FILTER_RULE_2");
    EXPECT(path && !strcmp(path, "/home/u/my.filter"), "the filter's path: %s", path ? path : "(none)");
    EXPECT(rule && !strcmp(rule, "EXCLUDE MPI_Comm_rank MPI_Win_flush_all"), "rule 2: %s", rule ? rule : "(none)");

    st_cli_ranks_t rk;
    REQUIRE(st_cli_convert(&ar, 0, &rk, err, sizeof err) == 0, "%s", err);
    EXPECT(rk.rd[0].nfiltered == 3 && rk.rd[1].nfiltered == 0 && rk.rd[2].nfiltered == 1,
           "converted: %u %u %u filtered sums", rk.rd[0].nfiltered, rk.rd[1].nfiltered, rk.rd[2].nfiltered);
    for (size_t i = 0; i < NWANT; i++)
        EXPECT(converted(&rk, i) == 1, "filtered calls %zu converted", i);
    st_cli_ranks_free(&rk);
    st_cli_archive_free(&ar);
    for (int r = 0; r < SYNTH_NRANKS; r++)
        st_rankdata_free(&rd[r]);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        failures++;
    printf("test_filtered_archive: %s (%d failure(s))\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
