/*
 * test_analysis_source.c — the frames' source locations of the analysis (src/analysis/source.c):
 * paths built from the call trees, a frame called from two lines keeps its file and loses its line,
 * one in two files loses both, a function's begin and end lines are known where every frame agrees, unknown frames are named like the analysis names them, and tables of
 * disjoint ranks packed, shipped and merged in either order equal the table of all ranks.
 */
/* link: src/analysis/source.c src/model/callpath.c */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/source.h"

#include "check.h"

/* rank 0: main(a.c:10) -> solve(a.c:20) -> exchange(b.c:5); rank 1: main(a.c:11) -> solve(a.c:20) -> 0x99.
 * Function lines: main 8-15 everywhere; solve 18-25, but 18-26 on rank 1 (another build): unknown;
 * exchange 3-9 (rank 0), unknown on rank 2. */
static const st_cpnode_t tree0[] = { { ST_CP_NONE, 0, 1 }, { 0, 0, 2 }, { 1, 0, 3 } };
static const st_callsite_t sites0[] = { { 1, "main (a.c:10)", 8, 15 }, { 2, "solve+0x10 (a.c:20)", 18, 25 },
                                        { 3, "exchange (b.c:5)", 3, 9 } };
static const st_cpnode_t tree1[] = { { ST_CP_NONE, 0, 7 }, { 0, 0, 8 }, { 1, 0, 0x99 } };
static const st_callsite_t sites1[] = { { 7, "main (a.c:11)", 8, 15 }, { 8, "solve (a.c:20)", 18, 26 } };
/* rank 2: exchange called from c.c: the function's frames lie in two files */
static const st_cpnode_t tree2[] = { { ST_CP_NONE, 0, 1 }, { 0, 0, 2 }, { 1, 0, 3 } };
static const st_callsite_t sites2[] = { { 1, "main (a.c:10)", 8, 15 }, { 2, "solve (a.c:20)", 18, 25 },
                                        { 3, "exchange (c.c:5)", 0, 0 } };

static st_rel_proc_t procs[3];

static void check_table(const st_an_src_t *s, int with_rank2, const char *what)
{
    const st_an_frame_src_t *f = st_an_src_find(s, "main", 4);
    EXPECT(f && !strcmp(f->file, "a.c") && f->line == 0, "%s: main called from lines 10 and 11: file kept, no line", what);
    f = st_an_src_find(s, "main/solve/xyz", 10);
    EXPECT(f && !strcmp(f->path, "main/solve") && !strcmp(f->file, "a.c") && f->line == 20,
          "%s: a prefix of the path given is the frame main/solve at a.c:20", what);
    f = st_an_src_find(s, "main/solve/exchange", 19);
    if (with_rank2)
        EXPECT(f && f->file[0] == 0 && f->line == 0, "%s: exchange in b.c and c.c: neither known", what);
    else
        EXPECT(f && !strcmp(f->file, "b.c") && f->line == 5, "%s: exchange at b.c:5", what);
    f = st_an_src_find(s, "main/solve/0x99", 15);
    EXPECT(f && f->file[0] == 0 && f->line == 0, "%s: a frame without text is named as the analysis names it", what);
    EXPECT(!st_an_src_find(s, "main/sol", 8), "%s: no frame main/sol", what);
    uint32_t b, e;
    const char *ff = st_an_src_func(s, "solve", &b, &e);
    EXPECT(ff && !strcmp(ff, "a.c") && b == 0 && e == 0, "%s: solve lies in a.c, its lines differ between ranks (%u-%u)",
          what, b, e);
    ff = st_an_src_func(s, "main", &b, &e);
    EXPECT(ff && !strcmp(ff, "a.c") && b == 8 && e == 15, "%s: main lies in a.c, lines 8-15 (%u-%u)", what, b, e);
    ff = st_an_src_func(s, "exchange", &b, &e);
    EXPECT((ff != NULL) == !with_rank2, "%s: exchange's file", what);
    EXPECT(with_rank2 ? b == 0 && e == 0 : b == 3 && e == 9, "%s: exchange's lines %u-%u", what, b, e);
    EXPECT(!st_an_src_func(s, "xchange", &b, &e) && b == 0 && e == 0, "%s: no function xchange", what);
}

/* Table of the ranks [lo, hi), packed. */
static char *packed(int lo, int hi, size_t *len)
{
    st_an_src_t s = { 0 };
    char *buf = NULL;
    EXPECT(st_an_src_add_procs(&s, procs + lo, hi - lo) == 0, "add ranks %d..%d", lo, hi);
    EXPECT(st_an_src_pack(&s, &buf, len) == 0, "pack");
    st_an_src_free(&s);
    return buf;
}

static void test_merge(void)
{
    st_an_src_t all = { 0 };
    EXPECT(st_an_src_add_procs(&all, procs, 3) == 0, "add all");
    st_an_src_seal(&all);
    check_table(&all, 1, "all ranks");
    size_t la, lb;
    char *a = packed(0, 1, &la), *b = packed(1, 3, &lb);
    for (int order = 0; order < 2; order++) {
        st_an_src_t m = { 0 };
        EXPECT(st_an_src_unpack(&m, order ? b : a, order ? lb : la) == 0, "unpack first");
        EXPECT(st_an_src_unpack(&m, order ? a : b, order ? la : lb) == 0, "unpack second");
        st_an_src_seal(&m);
        EXPECT(m.n == all.n, "order %d: %zu frames merged, %zu in all", order, m.n, all.n);
        for (size_t i = 0; i < m.n && m.n == all.n; i++)
            EXPECT(!strcmp(m.v[i].path, all.v[i].path) && !strcmp(m.v[i].file, all.v[i].file) &&
                      m.v[i].line == all.v[i].line && m.v[i].fn_begin == all.v[i].fn_begin &&
                      m.v[i].fn_end == all.v[i].fn_end,
                  "order %d: frame %zu differs (%s %s:%u)", order, i, m.v[i].path, m.v[i].file, m.v[i].line);
        st_an_src_free(&m);
    }
    st_an_src_t two = { 0 };
    EXPECT(st_an_src_add_procs(&two, procs, 2) == 0, "add ranks 0, 1");
    st_an_src_seal(&two);
    check_table(&two, 0, "ranks 0 and 1");
    st_an_src_t bad = { 0 };
    EXPECT(st_an_src_unpack(&bad, "main\ta.c\n", 9) != 0, "a line without its number is rejected");
    EXPECT(st_an_src_unpack(&bad, "main\ta.c\t1x\t2\t3\n", 16) != 0, "a malformed number is rejected");
    EXPECT(st_an_src_unpack(&bad, "main\ta.c\t1\t2\n", 13) != 0, "a line without the function's end is rejected");
    EXPECT(st_an_src_unpack(&bad, "main\ta.c\t1\t2\t3\t4\n", 17) != 0, "a line with a number too many is rejected");
    EXPECT(st_an_src_unpack(&bad, "main\ta.c\t1\t2\t3\n", 15) == 0 && bad.n == 1 && bad.v[0].fn_begin == 2 &&
              bad.v[0].fn_end == 3, "a well-formed line is read");
    st_an_src_free(&bad);
    st_an_src_free(&two);
    st_an_src_free(&all);
    free(a), free(b);
}

int main(void)
{
    procs[0] = (st_rel_proc_t){ .ncpnodes = 3, .cpnodes = tree0, .ncallsites = 3, .callsites = sites0 };
    procs[1] = (st_rel_proc_t){ .ncpnodes = 3, .cpnodes = tree1, .ncallsites = 2, .callsites = sites1 };
    procs[2] = (st_rel_proc_t){ .ncpnodes = 3, .cpnodes = tree2, .ncallsites = 3, .callsites = sites2 };
    test_merge();
    if (!failures)
        printf("test_analysis_source: ok\n");
    return failures != 0;
}
