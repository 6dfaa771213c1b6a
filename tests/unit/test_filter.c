/*
 * test_filter.c — the filter file parser (src/model/filter.h) and st_region_unfilterable():
 * good files (rules, wildcards, continuation lines, comments, the later rule winning, Score-P's
 * blocks and keywords), every malformed case refused with one line naming the line, files whose
 * rules would exclude unfilterable regions refused naming them and why, and reading files.
 */
/* link: src/model/filter.c src/model/region.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/model/filter.h"

#include "check.h"

static st_filter_t f;
static char err[700];

static int parse(const char *text)
{
    err[0] = 0;
    return st_filter_parse(&f, "my.filter", text, strlen(text), err, sizeof err);
}

static st_region_t id(const char *name)
{
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        if (!strcmp(st_region_info(r)->name, name))
            return r;
    fprintf(stderr, "no region %s\n", name);
    exit(1);
}

static int excluded(const char *name)
{
    return f.excluded[id(name)];
}

/* text is accepted and excludes exactly the n regions named (NULL-terminated list). */
static void good(int line, const char *text, unsigned n, const char *const *names)
{
    int rc = parse(text);
    if (rc != 0) {
        failures++;
        fprintf(stderr, "test_filter.c:%d: refused: %s\n", line, err);
        return;
    }
    if (f.n_excluded != n) {
        failures++;
        fprintf(stderr, "test_filter.c:%d: %u regions excluded, expected %u\n", line, f.n_excluded, n);
    }
    for (const char *const *p = names; *p; p++)
        if (!excluded(*p)) {
            failures++;
            fprintf(stderr, "test_filter.c:%d: %s not excluded\n", line, *p);
        }
}
#define GOOD(text, n, ...) good(__LINE__, text, n, (const char *const[]){ __VA_ARGS__, NULL })
#define NOTHING_EXCLUDED(text) good(__LINE__, text, 0, (const char *const[]){ NULL })

/* text is refused with one line starting "my.filter:LINE: " and containing want; nothing excluded. */
static void bad(int line, const char *text, unsigned at, const char *want, int malformed)
{
    char head[64];
    snprintf(head, sizeof head, "my.filter:%u: ", at);
    int rc = parse(text);
    unsigned n = 0;
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        n += f.excluded[r];
    int ok = rc == -1 && !strncmp(err, head, strlen(head)) && strstr(err, want) && !strchr(err, '\n') && n == 0 &&
             f.n_excluded == 0 && (!malformed || strstr(err, "accepted: EXCLUDE or INCLUDE followed by region name patterns"));
    if (!ok) {
        failures++;
        fprintf(stderr, "test_filter.c:%d: rc %d, %u excluded, message '%s', expected '%s...%s'\n", line, rc, n, err, head, want);
    }
}
#define BAD(text, at, want) bad(__LINE__, text, at, want, 1)
#define REFUSED(text, at, want) bad(__LINE__, text, at, want, 0)

static void test_unfilterable(void)
{
    /* the regions may be filtered; what matching, CLC and the analysis need may not */
    const char *filterable[] = { "MPI_Type_size", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Win_flush_all",
                                 "MPI_Win_flush", "MPI_Iprobe", "MPI_Type_commit", "MPI_Get_count", "MPI_Get_address" };
    for (size_t i = 0; i < sizeof filterable / sizeof *filterable; i++)
        EXPECT(st_region_unfilterable(id(filterable[i])) == NULL, "%s", filterable[i]);
    const char *kept[][2] = {
        { "MPI_Send", "point-to-point communication: message matching and CLC need its events" },
        { "MPI_Wait", "completion of requests" }, { "MPI_Allreduce", "collective communication" },
        { "MPI_Ibcast", "nonblocking collective" }, { "MPI_Comm_dup", "communicator creation" },
        { "MPI_Comm_free", "communicator release" }, { "MPI_Init", "start and end of MPI" },
        { "MPI_Finalize", "start and end of MPI" }, { "MPI_Abort", "start and end of MPI" },
        { "MPI_Win_fence", "RMA synchronization" }, { "MPI_Win_lock_all", "RMA synchronization" },
        { "MPI_Win_unlock_all", "RMA synchronization" }, { "MPI_Win_create", "window creation" },
        { "MPI_Win_free", "window release" }, { "MPI_Put", "one-sided communication" },
        { "MPI_Get", "one-sided communication" }, { "MPI_Accumulate", "one-sided communication" },
        { "MPI_Get_accumulate", "one-sided communication" }, { "MPI_Fetch_and_op", "one-sided communication" },
        { "!$omp parallel", "OpenMP construct" },
        { "!$omp barrier", "OpenMP construct" }, { "omp_set_lock", "OpenMP construct" },
        { "TRACE BUFFER FLUSH", "the tool's own region" }, { "main", "the program's root region" },
    };
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        const char *why = st_region_unfilterable(id(kept[i][0]));
        EXPECT(why && !strncmp(why, kept[i][1], strlen(kept[i][1])), "%s: %s", kept[i][0], why ? why : "(filterable)");
    }
    EXPECT(st_region_unfilterable(ST_REGION__COUNT) != NULL);
    unsigned mpi = 0, mpi_kept = 0;
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++) {
        if (st_region_info(r)->paradigm == ST_PARADIGM_MPI) {
            mpi++;
            mpi_kept += st_region_unfilterable(r) != NULL;
        } else {
            EXPECT(st_region_unfilterable(r) != NULL, "%s", st_region_info(r)->name);
        }
    }
    EXPECT(mpi_kept > 100 && mpi_kept < mpi, "%u of %u MPI regions unfilterable", mpi_kept, mpi);
}

static void test_good(void)
{
    NOTHING_EXCLUDED(""); /* empty: nothing excluded (the name list is "") */
    EXPECT(f.n_excluded == 0);
    GOOD("EXCLUDE MPI_Type_size MPI_Comm_rank MPI_Win_flush_all\n", 3, "MPI_Type_size", "MPI_Comm_rank", "MPI_Win_flush_all");
    EXPECT(!excluded("MPI_Comm_size") && !excluded("MPI_Send"));
    /* no newline at the end, CRLF, tabs */
    GOOD("EXCLUDE\tMPI_Type_size", 1, "MPI_Type_size");
    GOOD("EXCLUDE MPI_Type_size\r\nEXCLUDE MPI_Comm_rank\r\n", 2, "MPI_Type_size", "MPI_Comm_rank");
    /* wildcards: * and ? (and fnmatch's classes) */
    unsigned n_flush = 0;
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        n_flush += !strncmp(st_region_info(r)->name, "MPI_Win_flush", 13);
    EXPECT(n_flush == 4, "%u MPI_Win_flush* regions", n_flush);
    GOOD("EXCLUDE MPI_Win_flush*", n_flush, "MPI_Win_flush", "MPI_Win_flush_all", "MPI_Win_flush_local", "MPI_Win_flush_local_all");
    EXPECT(!excluded("MPI_Win_fence"));
    GOOD("EXCLUDE MPI_Comm_?ank MPI_Comm_si[z]e", 2, "MPI_Comm_rank", "MPI_Comm_size");
    /* the later rule wins, either way */
    unsigned n_type = 0;
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        n_type += !strncmp(st_region_info(r)->name, "MPI_Type_", 9);
    GOOD("EXCLUDE MPI_Type_*\nINCLUDE MPI_Type_commit MPI_Type_free\n", n_type - 2, "MPI_Type_size", "MPI_Type_contiguous");
    EXPECT(!excluded("MPI_Type_commit") && !excluded("MPI_Type_free"));
    n_type -= 2;
    GOOD("EXCLUDE MPI_Type_*", n_type + 2, "MPI_Type_commit");
    GOOD("INCLUDE MPI_Type_size\nEXCLUDE MPI_Type_*\n", n_type + 2, "MPI_Type_size");
    NOTHING_EXCLUDED("EXCLUDE MPI_Type_size INCLUDE MPI_Type_size");
    NOTHING_EXCLUDED("EXCLUDE MPI_Type_size\nINCLUDE *\n"); /* INCLUDE * keeps everything */
    /* patterns continue on the next lines; comments anywhere; blank lines */
    GOOD("# my filter\n\nEXCLUDE MPI_Type_size   # the sizes\n        MPI_Comm_rank\n\tMPI_Win_flush_all\n  # MPI_Comm_size\n",
         3, "MPI_Type_size", "MPI_Comm_rank", "MPI_Win_flush_all");
    GOOD("EXCLUDE MPI_Type_size#MPI_Comm_rank", 1, "MPI_Type_size");
    /* a pattern matching nothing, a rule on an unknown name: accepted, excluding nothing */
    NOTHING_EXCLUDED("EXCLUDE MPI_Wtime my_function");
    /* Score-P's file as is: the region block, names of other regions, a file-names block */
    GOOD("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MPI_Type_size\n  INCLUDE bar foo\n          baz\n          main\n"
         "SCOREP_REGION_NAMES_END\nSCOREP_FILE_NAMES_BEGIN # file names\n  EXCLUDE */foo/bar*\n  INCLUDE */foo/bar/baz*\n"
         "SCOREP_FILE_NAMES_END\n", 1, "MPI_Type_size");
    NOTHING_EXCLUDED("SCOREP_FILE_NAMES_BEGIN\n  EXCLUDE *\nSCOREP_FILE_NAMES_END\n"); /* no region has a file */
    GOOD("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MANGLED MPI_Comm_rank\n  EXCLUDE DEMANGLED MPI_Type_size\nSCOREP_REGION_NAMES_END\n",
         2, "MPI_Comm_rank", "MPI_Type_size");
    GOOD("SYNCTRACE_REGION_NAMES_BEGIN\nEXCLUDE MPI_Comm_rank\nSYNCTRACE_REGION_NAMES_END\nEXCLUDE MPI_Type_size\n", 2,
         "MPI_Comm_rank", "MPI_Type_size");
    NOTHING_EXCLUDED("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE MPI_Comm_rank\nSCOREP_REGION_NAMES_END\n"
         "SCOREP_REGION_NAMES_BEGIN\nINCLUDE MPI_Comm_rank\nSCOREP_REGION_NAMES_END\n");
    /* excluding everything filterable while keeping the rest is accepted */
    char *all = malloc(200000);
    REQUIRE(all);
    strcpy(all, "EXCLUDE *\n");
    unsigned filterable = 0;
    for (st_region_t r = 1; r < ST_REGION__COUNT; r++) {
        if (st_region_unfilterable(r))
            continue;
        filterable++;
    }
    for (st_region_t r = 1; r < ST_REGION__COUNT; r++) {
        if (!st_region_unfilterable(r) || strchr(st_region_info(r)->name, ' '))
            continue;
        strcat(all, "INCLUDE ");
        strcat(all, st_region_info(r)->name);
        strcat(all, "\n");
    }
    strcat(all, "INCLUDE TRACE?BUFFER?FLUSH\n");
    int rc = parse(all);
    EXPECT(rc == -1 && strstr(err, "!$omp parallel"), "regions with blanks are kept only by patterns: %s", err);
    strcat(all, "INCLUDE !$omp*\n");
    rc = parse(all);
    EXPECT(rc == 0 && f.n_excluded == filterable, "rc %d, %u of %u filterable regions excluded: %s", rc, f.n_excluded,
           filterable, err);
    free(all);
}

static void test_malformed(void)
{
    BAD("EXCLUDE\n", 1, "EXCLUDE without a pattern");
    BAD("EXCLUDE MPI_Type_size\n\nINCLUDE\nEXCLUDE MPI_Comm_rank\n", 3, "INCLUDE without a pattern");
    BAD("EXCLUDE MPI_Type_size\nSCOREP_REGION_NAMES_BEGIN\nEXCLUDE # nothing\nSCOREP_REGION_NAMES_END\n", 3,
        "EXCLUDE without a pattern");
    BAD("MPI_Type_size\n", 1, "'MPI_Type_size' outside a rule (a rule starts with EXCLUDE or INCLUDE)");
    BAD("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE MPI_Comm_rank\nSCOREP_REGION_NAMES_END\nMPI_Type_size\n", 4, "outside a rule");
    BAD("EXCLUDE MPI_Comm_rank\nINCLDUE MPI_Comm_rank\n", 2, "'INCLDUE' is not a keyword; accepted");
    BAD("# lower case\nexclude MPI_Type_size\n", 2, "'exclude' is not a keyword (keywords are upper case)");
    BAD("EXCLUDE MPI_Type_size Include MPI_Comm_rank\n", 1, "'Include' is not a keyword");
    BAD("SCOREP_REGION_NAMES_BEGN\n", 1, "'SCOREP_REGION_NAMES_BEGN' is not a keyword");
    BAD("EXCLUDE MPI_Type_size\nSCOREP_REGION_NAMES_BEGIN\nEXCLUDE MPI_Comm_rank\n", 2,
        "SCOREP_REGION_NAMES_BEGIN without its END");
    BAD("EXCLUDE MPI_Type_size\nSCOREP_REGION_NAMES_END\n", 2, "SCOREP_REGION_NAMES_END without its BEGIN");
    BAD("SCOREP_REGION_NAMES_BEGIN\nEXCLUDE MPI_Type_size\nSYNCTRACE_REGION_NAMES_END\n", 3,
        "SYNCTRACE_REGION_NAMES_END closes the SCOREP_REGION_NAMES_BEGIN block of line 1");
    BAD("SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_BEGIN\n", 2,
        "SCOREP_FILE_NAMES_BEGIN inside the SCOREP_REGION_NAMES_BEGIN block of line 1");
    BAD("EXCLUDE MPI_Type_size MANGLED\n", 1, "MANGLED must follow EXCLUDE or INCLUDE directly");
    BAD("DEMANGLED MPI_Type_size\n", 1, "DEMANGLED must follow EXCLUDE or INCLUDE directly");
    static const char nul[] = "EXCLUDE MPI_Type_size\nEXCLUDE MPI\0_Comm_rank\n";
    int rc = st_filter_parse(&f, "my.filter", nul, sizeof nul - 1, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "my.filter:2: a NUL byte") && f.n_excluded == 0, "%s", err);
    char longpat[400] = "EXCLUDE ";
    memset(longpat + 8, 'x', 300);
    BAD(longpat, 1, "a pattern longer than 255 characters");
    /* a message quotes at most 60 bytes of a token, control bytes as '?' */
    BAD("x\x01y\n", 1, "'x?y' outside a rule");
}

static void test_refused(void)
{
    REFUSED("EXCLUDE MPI_Type_size\nEXCLUDE MPI_Send\n", 2, "excludes 1 region that cannot be filtered: MPI_Send "
            "(point-to-point communication: message matching and CLC need its events); keep it with a later INCLUDE rule");
    /* the first few, with their reason once per run of equal reasons, and how many */
    unsigned n = 0;
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        n += st_region_info(r)->paradigm == ST_PARADIGM_MPI && !strncmp(st_region_info(r)->name, "MPI_", 4) &&
             st_region_unfilterable(r) != NULL;
    char want[200];
    snprintf(want, sizeof want, "excludes %u regions that cannot be filtered: MPI_Abort (start and end of MPI: ", n);
    REFUSED("EXCLUDE MPI_*\n", 1, want);
    REFUSED("EXCLUDE MPI_*\n", 1, "trace there), MPI_Accumulate, MPI_Accumulate_c (one-sided communication: ");
    snprintf(want, sizeof want, ") and %u more; ", n - 3);
    REFUSED("EXCLUDE MPI_*\n", 1, want);
    REFUSED("# all\nEXCLUDE MPI_*\nINCLUDE MPI_Send\n", 2, "excludes"); /* the line of the rule deciding the first */
    REFUSED("EXCLUDE *", 1, "TRACE BUFFER FLUSH (the tool's own region");
    REFUSED("EXCLUDE *", 1, "main (the program's root region");
    REFUSED("EXCLUDE !$omp*", 1, "!$omp parallel, !$omp implicit task, !$omp barrier (OpenMP construct");
    REFUSED("EXCLUDE MPI_Win_*\nINCLUDE MPI_Win_allocate* MPI_Win_create*\n", 1, "MPI_Win_complete (RMA synchronization: ends an access or exposure epoch of a group), MPI_Win_fence (RMA synchronization");
    REFUSED("EXCLUDE MPI_Type_size MPI_Barrier", 1, "MPI_Barrier (collective communication");
    /* kept again by a later rule: accepted */
    NOTHING_EXCLUDED("EXCLUDE MPI_Send\nINCLUDE MPI_Send\n");
    GOOD("EXCLUDE MPI_Win_flush* MPI_Win_f*\nINCLUDE MPI_Win_fence MPI_Win_free\n", 5, "MPI_Win_flush_all", "MPI_Win_free_keyval");
}

/* What the archive records of the file: its digest (FNV-1a 64, computed independently), its rule lines
 * trimmed without comments or blank lines, the first 64 kept, each cut to fit; a refused file keeps none. */
static void test_kept(void)
{
    EXPECT(parse("# mine\n\n  EXCLUDE MPI_Type_size # the sizes\r\n\tMPI_Comm_rank\t\n") == 0, "%s", err);
    EXPECT(f.digest == 0xb71ba02b45d2dca7ull && f.bytes == 61, "digest %016llx of %llu bytes",
           (unsigned long long)f.digest, (unsigned long long)f.bytes);
    EXPECT(f.n_rules == 2 && !strcmp(f.rule[0], "EXCLUDE MPI_Type_size") && !strcmp(f.rule[1], "MPI_Comm_rank"),
           "%u rules: '%s' '%s'", f.n_rules, f.rule[0], f.rule[1]);
    char text[20000] = "EXCLUDE MPI_Type_size\n";
    for (int i = 0; i < 70; i++)
        strcat(text, i == 3 ? "  MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size "
                              "MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size "
                              "MPI_Type_size MPI_Type_size MPI_Type_size MPI_Type_size\n"
                            : "MPI_Comm_rank\n");
    EXPECT(parse(text) == 0, "%s", err);
    EXPECT(f.n_rules == 71 && !strcmp(f.rule[63], "MPI_Comm_rank") && strlen(f.rule[4]) == ST_FILTER_RULE_LEN - 1 &&
           !strncmp(f.rule[4], "MPI_Type_size MPI", 17), "%u rules, rule 5 '%s'", f.n_rules, f.rule[4]);
    EXPECT(parse("EXCLUDE MPI_Send\n") == -1 && f.n_rules == 0 && f.digest == 0, "a refused file keeps %u rules",
           f.n_rules);
}

static void test_read(void)
{
    char dir[] = "/tmp/test_filter.XXXXXX", path[64];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/my.filter", dir);
    FILE *fp = fopen(path, "w");
    REQUIRE(fp);
    fputs("SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MPI_Type_size MPI_Comm_rank MPI_Win_flush_all\nSCOREP_REGION_NAMES_END\n", fp);
    fclose(fp);
    int rc = st_filter_read(&f, path, err, sizeof err);
    EXPECT(rc == 0 && f.n_excluded == 3 && excluded("MPI_Win_flush_all"), "rc %d: %s", rc, err);
    fp = fopen(path, "a");
    REQUIRE(fp);
    fputs("EXCLUDE MPI_Recv\n", fp);
    fclose(fp);
    rc = st_filter_read(&f, path, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "/my.filter:4: excludes 1 region that cannot be filtered: MPI_Recv"), "%s", err);
    char missing[80];
    snprintf(missing, sizeof missing, "%s/none.filter", dir);
    rc = st_filter_read(&f, missing, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "cannot read the filter file") && strstr(err, "none.filter: No such file or directory"), "%s", err);
    rc = st_filter_read(&f, dir, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "is not a regular file; accepted: a filter file"), "%s", err);
    fp = fopen(path, "w");
    REQUIRE(fp);
    for (int i = 0; i < 120000; i++) /* 1.2 MB */
        fputs("# padding\n", fp);
    fclose(fp);
    rc = st_filter_read(&f, path, err, sizeof err);
    EXPECT(rc == -1 && strstr(err, "is larger than 1 MiB"), "%s", err);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_unfilterable();
    test_good();
    test_malformed();
    test_refused();
    test_kept();
    test_read();
    return failures != 0;
}
