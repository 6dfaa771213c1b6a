/*
 * test_bench_options.c — synctrace-bench's command line and summaries, without MPI: defaults,
 * size lists and power-of-two ranges, every option in both spellings, rejected input (one line
 * naming the option), and min/median/mean/max of odd and even series.
 */
/* compiler: mpicc */
/* link: src/bench/options.c src/bench/ops.c src/bench/stats.c src/config/config.c src/util/archive_dir.c src/util/log.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/bench/bench.h"
#include "check.h"

static char err[600];

static int parse(bench_opts_t *o, const char *args)
{
    char buf[512], *argv[32] = { "synctrace-bench" };
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", args);
    for (char *save, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    err[0] = 0;
    return bench_parse_options(argc, argv, o, NULL, err, sizeof err);
}

static void defaults(void)
{
    bench_opts_t o;
    REQUIRE(parse(&o, "") == 0);
    REQUIRE(o.nops == 5 && o.ops[0] == BENCH_ALLREDUCE && o.ops[4] == BENCH_ALLTOALL);
    REQUIRE(o.nsizes == 21 && o.sizes[0] == 1 && o.sizes[20] == 1 << 20); /* 1 B .. 1 MiB */
    REQUIRE(o.slice == 1 && o.scheme == BENCH_SCHEME_ROUNDTIME && !o.imbalance && o.delay_us < 0);
    REQUIRE(o.margin == 4 && o.tolerance_us == 10);
    REQUIRE(!o.json && !o.csv);
    bench_free_options(&o);
}

static void accepted(void)
{
    bench_opts_t o;
    REQUIRE(parse(&o, "-o scan,barrier -s 8,1k,64k --slice 0.25 --scheme both --json a.json --csv=b.csv") == 0);
    REQUIRE(o.nops == 2 && o.ops[0] == BENCH_SCAN && o.ops[1] == BENCH_BARRIER);
    REQUIRE(o.nsizes == 3 && o.sizes[0] == 8 && o.sizes[1] == 1024 && o.sizes[2] == 65536);
    REQUIRE(o.slice == 0.25 && o.scheme == BENCH_SCHEME_BOTH);
    REQUIRE(!strcmp(o.json, "a.json") && !strcmp(o.csv, "b.csv"));
    bench_free_options(&o);
    REQUIRE(parse(&o, "--ops=all --sizes=4:64,1M --scheme=barrier --margin 2.5 --max-rounds 10 --barrier-imbalance") == 0);
    REQUIRE(o.nops == BENCH_NOPS && o.ops[BENCH_NOPS - 1] == BENCH_BARRIER);
    REQUIRE(o.nsizes == 6 && o.sizes[0] == 4 && o.sizes[4] == 64 && o.sizes[5] == 1 << 20);
    REQUIRE(o.scheme == BENCH_SCHEME_BARRIER && o.margin == 2.5 && o.max_rounds == 10 && o.imbalance);
    bench_free_options(&o);
    REQUIRE(parse(&o, "--tolerance 0 --tolerance=12.5") == 0 && o.tolerance_us == 12.5);
    bench_free_options(&o);
    REQUIRE(parse(&o, "--test-delay 3:250.5") == 0 && o.delay_rank == 3 && o.delay_us == 250.5 && o.delay_period == 2);
    bench_free_options(&o);
    REQUIRE(parse(&o, "--test-delay 0:7:1") == 0 && o.delay_rank == 0 && o.delay_us == 7 && o.delay_period == 1);
    bench_free_options(&o);
    REQUIRE(parse(&o, "-s 5:40") == 0 && o.nsizes == 4 && o.sizes[3] == 40); /* 5 10 20 40 */
    bench_free_options(&o);
    REQUIRE(parse(&o, "--help") == 1);
    bench_free_options(&o);
    REQUIRE(parse(&o, "--version") == 1);
    bench_free_options(&o);
}

static void rejected(const char *args, const char *want)
{
    bench_opts_t o;
    REQUIRE(parse(&o, args) == -1);
    if (!strstr(err, want) || strchr(err, '\n')) {
        fprintf(stderr, "'%s': message '%s' lacks '%s'\n", args, err, want);
        exit(1);
    }
    bench_free_options(&o);
}

static void summaries(void)
{
    bench_series_t s = { 0 };
    bench_summary_t r = bench_summarize(&s);
    REQUIRE(r.n == 0 && r.min == 0 && r.max == 0);
    double odd[] = { 30, 10, 20 }, even[] = { 40, 10, 30, 20 };
    for (int i = 0; i < 3; i++)
        REQUIRE(bench_series_add(&s, odd[i]) == 0);
    r = bench_summarize(&s);
    REQUIRE(r.n == 3 && r.min == 10 && r.median == 20 && r.mean == 20 && r.max == 30);
    bench_series_free(&s);
    for (int i = 0; i < 4; i++)
        REQUIRE(bench_series_add(&s, even[i]) == 0);
    r = bench_summarize(&s);
    REQUIRE(r.n == 4 && r.min == 10 && r.median == 25 && r.mean == 25 && r.max == 40);
    for (int i = 0; i < 1000; i++) /* growth past the first block */
        REQUIRE(bench_series_add(&s, 5) == 0);
    r = bench_summarize(&s);
    REQUIRE(r.n == 1004 && r.min == 5 && r.median == 5 && r.max == 40);
    bench_series_free(&s);
}

int main(void)
{
    defaults();
    accepted();
    rejected("-o allreduce,nope", "unknown operation 'nope'");
    rejected("-o bcast,bcast", "given twice");
    rejected("-o ,", "--ops: empty list");
    rejected("-s 0", "'0' is not a size");
    rejected("-s 1.5k", "'1.5k' is not a size");
    rejected("-s 2G", "'2G' is not a size");
    rejected("-s 64:8", "runs backwards");
    rejected("-s 8:", "'' is not a size");
    rejected("--slice 0", "--slice: '0'");
    rejected("--slice 1e9", "--slice: '1e9'");
    rejected("--scheme fast", "--scheme: 'fast'");
    rejected("--margin 0.9", "--margin: '0.9'");
    rejected("--tolerance -1", "--tolerance: '-1'");
    rejected("--max-rounds 0", "--max-rounds: '0'");
    rejected("--test-delay 1", "--test-delay");
    rejected("--test-delay -1:5", "--test-delay");
    rejected("--test-delay 1:5:0", "--test-delay");
    rejected("--test-delay 1:5:2x", "--test-delay");
    rejected("--csv", "--csv needs a value");
    rejected("--slicey 1", "unknown option '--slicey'");
    rejected("-x", "unknown option '-x'");
    summaries();
    puts("test_bench_options: ok");
    return 0;
}
