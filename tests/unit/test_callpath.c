/*
 * test_callpath.c — the call-path capture and its cache (src/record/unwind.c) and the frame-text
 * split (src/model/callpath.c): one node per distinct stack, the same node for the same stack
 * from any thread, the tree's parent chains matching the stacks, deep stacks cut in the middle
 * (main stays their root), and st_callpath_collect copying the tree parents first;
 * st_callpath_inline making inlined frames nodes of their own (outermost first), leaving outlined
 * OpenMP bodies out and putting tail-called functions back, main among them (ST_CP_MAIN: the main
 * thread's paths have it at their root, other threads' not).
 */
/* link: src/record/unwind.c src/model/rankdata.c src/model/rankdata_dump.c src/model/callpath.c src/util/log.c -lunwind */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/record/unwind.h"

#include "check.h"

static volatile int sink;

/* Two call sites in one function: different stacks, different nodes. */
static uint32_t __attribute__((noinline)) leaf(int which)
{
    uint32_t n = which ? st_callpath_capture() : st_callpath_capture();
    sink = which;
    return n;
}

static uint32_t __attribute__((noinline)) mid_a(int which) { uint32_t n = leaf(which); sink++; return n; }
static uint32_t __attribute__((noinline)) mid_b(int which) { uint32_t n = leaf(which); sink++; return n; }

static uint32_t __attribute__((noinline)) deep(int n)
{
    uint32_t r = n > 1 ? deep(n - 1) : st_callpath_capture();
    sink = n;
    return r;
}

static uint32_t depth_of(const st_rankdata_t *rd, uint32_t n)
{
    uint32_t d = 0;
    for (; n != ST_CP_NONE && d <= rd->ncpnodes; n = rd->cpnodes[n].parent)
        d++;
    return d;
}

/* The three stacks ... -> probe -> {mid_a -> leaf(0), mid_a -> leaf(1), mid_b -> leaf(0)}. */
static void __attribute__((noinline)) probe(uint32_t out[3])
{
    out[0] = mid_a(0);
    out[1] = mid_a(1);
    out[2] = mid_b(0);
    sink++;
}

/* ---- threads: the same stacks from many threads ------------------------------------------- */

#define NTHREADS 4
#define ROUNDS   2000
static uint32_t seen[NTHREADS][3];

static void *worker(void *arg)
{
    uint32_t *mine = arg, (*all)[3] = calloc(ROUNDS, sizeof *all);
    long bad = 0;
    for (int i = 0; i < ROUNDS; i++) /* one call site (no branch for the compiler to peel) */
        probe(all[i]);
    for (int i = 0; i < ROUNDS; i++)
        bad += memcmp(all[i], all[0], sizeof all[0]) != 0;
    memcpy(mine, all[0], sizeof all[0]);
    free(all);
    return (void *)bad;
}

static void test_split(void)
{
    char f[64], file[64];
    uint32_t line;
    st_callpath_split("solve (solver.c:42)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "solve") && !strcmp(file, "solver.c") && line == 42, "func (file:line): %s %s %u", f, file, line);
    st_callpath_split("helper+0x1a (libfoo.so)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "helper") && !file[0] && line == 0, "sym+0xoff (object): %s '%s' %u", f, file, line);
    st_callpath_split("main", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "main") && !file[0] && line == 0, "a bare name");
    st_callpath_split("0x401000", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "0x401000"), "an address stays whole: %s", f);
    st_callpath_split("ns::f(int) (a:b.c:7)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "ns::f(int)") && !strcmp(file, "a:b.c") && line == 7, "colons in names: %s %s %u", f, file, line);
    /* parentheses inside a name: the location is the parenthesis that closes the text */
    st_callpath_split("g(std::function<void (int)>) (g.cc:9)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "g(std::function<void (int)>)") && !strcmp(file, "g.cc") && line == 9, "a name with ' (': %s %s %u",
          f, file, line);
    st_callpath_split("g(std::function<void (int)>)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "g(std::function<void (int)>)") && !file[0], "no location, ' (' in the name: %s", f);
    st_callpath_split("(anonymous namespace)::h() (d (1)/h.cc:3)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "(anonymous namespace)::h()") && !strcmp(file, "d (1)/h.cc") && line == 3, "%s %s %u", f, file,
          line);
    /* an unnamed frame keeps its object and offset; an offset inside a name is no offset */
    st_callpath_split("libfoo.so+0x1234", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "libfoo.so+0x1234") && !file[0], "object+offset stays whole: %s", f);
    st_callpath_split("operator+0x(int) (a.cc:2)", f, sizeof f, file, sizeof file, &line);
    EXPECT(!strcmp(f, "operator+0x(int)"), "not an offset: %s", f);
    /* a buffer of strlen(text) + 1 holds a name of any length whole */
    size_t n = 9000;
    char *text = malloc(n + 16), *big = malloc(n + 16), *bigf = malloc(n + 16);
    memset(text, 'x', n);
    strcpy(text + n, " (a.c:1)");
    st_callpath_split(text, big, strlen(text) + 1, bigf, strlen(text) + 1, &line);
    EXPECT(strlen(big) == n && !strcmp(bigf, "a.c") && line == 1, "a name of %zu bytes: %zu", n, strlen(big));
    free(text), free(big), free(bigf);
}

/* ---- inlined frames as nodes (st_callpath_inline) --------------------------------------------- */

static void put_site(st_rankdata_t *rd, uint64_t pc, const char *text)
{
    rd->callsites = realloc(rd->callsites, (rd->ncallsites + 1) * sizeof *rd->callsites);
    rd->callsites[rd->ncallsites++] = (st_callsite_t){ .pc = pc, .text = strdup(text) };
}

/* The path of node n as "f/g/h" (function names of its frames' texts, outermost first). */
static void path_of(const st_rankdata_t *rd, uint32_t n, char *out, size_t len)
{
    char *names[64];
    int d = 0;
    for (; n != ST_CP_NONE && d < 64; n = rd->cpnodes[n].parent) {
        const char *t = "?";
        for (uint32_t i = 0; i < rd->ncallsites; i++)
            if (rd->callsites[i].pc == rd->cpnodes[n].pc)
                t = rd->callsites[i].text;
        names[d++] = strndup(t, strcspn(t, " "));
    }
    out[0] = 0;
    while (d-- > 0) {
        snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "/" : "", names[d]);
        free(names[d]);
    }
}

/* rd's tree is a copy of nodes[0..nn), its one thread th the events ev[0..nev): an ENTER at node first + i each. */
static void synthetic(st_rankdata_t *rd, st_thread_data_t *th, const st_cpnode_t *nodes, uint32_t nn, st_event_t *ev,
                      uint32_t nev, uint32_t first)
{
    rd->ncpnodes = nn;
    rd->cpnodes = malloc(nn * sizeof *nodes);
    memcpy(rd->cpnodes, nodes, nn * sizeof *nodes);
    for (uint32_t i = 0; i < nev; i++) {
        ev[i].kind = ST_EV_ENTER;
        st_event_set_callpath(&ev[i], first + i);
    }
    *th = (st_thread_data_t){ .events = ev, .nevents = nev };
    rd->threads = th;
    rd->nthreads = 1;
}

/* Every node of rd's tree comes after its parent (st_callpath_inline keeps the tree in preorder). */
static void check_parents_first(const st_rankdata_t *rd)
{
    for (uint32_t i = 0; i < rd->ncpnodes; i++)
        EXPECT(rd->cpnodes[i].parent == ST_CP_NONE || rd->cpnodes[i].parent < i, "node %u before its parent", i);
}

static void test_inline(void)
{
    /* stack frames: main (0x100) -> outer (0x200, with inlined_fn and mid inlined into it) -> leaf (0x300);
     * main (0x110) -> .omp_outlined. (0x400, with .omp_outlined._debug__ inlined) -> work (0x500) */
    st_rankdata_t rd = { 0 };
    st_cpnode_t nodes[] = { { .parent = ST_CP_NONE, .pc = 0x100 }, { .parent = 0, .pc = 0x200 },
                            { .parent = 1, .pc = 0x300 }, { .parent = ST_CP_NONE, .pc = 0x110 },
                            { .parent = 3, .pc = 0x400 }, { .parent = 4, .pc = 0x500 } };
    put_site(&rd, 0x300, "leaf (l.c:3)");
    put_site(&rd, 0x200, "inlined_fn (i.h:5)");
    put_site(&rd, st_callpath_inline_pc(0x200, 1), "mid (m.h:7)");
    put_site(&rd, st_callpath_inline_pc(0x200, 2), "outer (o.c:9)");
    put_site(&rd, 0x100, "main (main.c:1)");
    put_site(&rd, 0x110, "main (main.c:2)");
    put_site(&rd, 0x400, ".omp_outlined._debug__ (main.c:3)");
    put_site(&rd, st_callpath_inline_pc(0x400, 1), ".omp_outlined. (main.c:3)");
    put_site(&rd, 0x500, "work (w.c:4)");
    st_event_t ev[6] = { 0 };
    st_thread_data_t th;
    synthetic(&rd, &th, nodes, 6, ev, 6, 0);
    EXPECT(st_callpath_inline(&rd, NULL, 0) == 0, "st_callpath_inline");
    EXPECT(rd.ncpnodes == 7, "6 frames, 3 inlined ones more, 2 outlined bodies fewer: %u nodes", rd.ncpnodes);
    check_parents_first(&rd);
    const char *want[6] = { "main", "main/outer/mid/inlined_fn", "main/outer/mid/inlined_fn/leaf", "main", "main",
                            "main/work" };
    char got[256];
    for (uint32_t i = 0; i < 6; i++) {
        path_of(&rd, st_event_callpath(&ev[i]), got, sizeof got);
        EXPECT(!strcmp(got, want[i]), "the ENTER at node %u: %s, want %s", i, got, want[i]);
    }
    rd.threads = NULL, rd.nthreads = 0;
    st_rankdata_free(&rd);
}

/* Tail calls: main (0x100) calls tail_caller, whose code is [0x300, 0x380), directly; tail_caller's frame is gone. */
static void test_tail(void)
{
    st_rankdata_t rd = { 0 };
    st_cpnode_t nodes[] = { { .parent = ST_CP_NONE, .pc = 0x100 }, { .parent = 0, .pc = 0x391 },
                            { .parent = 0, .pc = 0x311 }, { .parent = 0, .pc = 0x711 } };
    put_site(&rd, 0x100, "main (main.c:1)");
    put_site(&rd, st_callpath_inline_pc(0x100, ST_CP_TAIL), "tail_caller");
    put_site(&rd, 0x391, "tail_callee (t.c:5)");
    put_site(&rd, 0x311, "tail_caller (t.c:2)");
    put_site(&rd, 0x711, "tail_caller (t.c:3)"); /* its cold part, outside its symbol's range */
    st_event_t ev[4] = { 0 };
    st_thread_data_t th;
    synthetic(&rd, &th, nodes, 4, ev, 4, 0);
    st_cpcallee_t callees[] = { { .pc = 0x391, .lo = 0x900, .hi = 0x980 }, { .pc = 0x100, .lo = 0x300, .hi = 0x380 } };
    EXPECT(st_callpath_inline(&rd, callees, 2) == 0, "st_callpath_inline");
    check_parents_first(&rd);
    /* an ENTER at main: main's call went to tail_caller, which jumped on (to MPI, say) */
    const char *want[4] = { "main/tail_caller", "main/tail_caller/tail_callee", "main/tail_caller",
                            "main/tail_caller" };
    char got[256];
    for (uint32_t i = 0; i < 4; i++) {
        path_of(&rd, st_event_callpath(&ev[i]), got, sizeof got);
        EXPECT(!strcmp(got, want[i]), "tail calls, the ENTER at node %u: %s, want %s", i, got, want[i]);
    }
    /* tail_callee's callee has no text: no frame for it */
    EXPECT(rd.ncpnodes == 5, "main, tail_caller once, tail_callee, tail_caller's own frames: %u nodes", rd.ncpnodes);
    EXPECT(rd.cpnodes[st_event_callpath(&ev[3])].parent == rd.cpnodes[st_event_callpath(&ev[2])].parent,
          "the cold part hangs from main as the function does");
    rd.threads = NULL, rd.nthreads = 0;
    st_rankdata_free(&rd);
}

/*
 * main's own tail call: the node ST_CP_MAIN (libc's start routine called the frame below it) above
 * main (0x100), above run (0x200, 0x210: main jumped to run), above an unnamed frame (0x400).
 */
static void test_main_root(void)
{
    st_rankdata_t rd = { 0 };
    st_cpnode_t nodes[] = { { .parent = ST_CP_NONE, .pc = ST_CP_MAIN }, { .parent = 0, .pc = 0x100 },
                            { .parent = 0, .pc = 0x200 },                 { .parent = 2, .pc = 0x300 },
                            { .parent = 0, .pc = 0x210 },                 { .parent = 0, .pc = 0x400 } };
    put_site(&rd, ST_CP_MAIN, "0x3ff0000000000000"); /* what the shim's naming gives a pc in no object */
    put_site(&rd, 0x100, "main (main.c:1)");
    put_site(&rd, 0x200, "run (r.c:2)");
    put_site(&rd, 0x210, "run (r.c:3)");
    put_site(&rd, 0x300, "leaf (l.c:3)");
    put_site(&rd, 0x400, "a.out+0x3ff");
    st_event_t ev[5] = { 0 };
    st_thread_data_t th;
    synthetic(&rd, &th, nodes, 6, ev, 5, 1);
    EXPECT(st_callpath_inline(&rd, NULL, 0) == 0, "st_callpath_inline");
    check_parents_first(&rd);
    const char *want[5] = { "main", "main/run", "main/run/leaf", "main/run", "a.out+0x3ff" };
    char got[256];
    for (uint32_t i = 0; i < 5; i++) {
        path_of(&rd, st_event_callpath(&ev[i]), got, sizeof got);
        EXPECT(!strcmp(got, want[i]), "main's tail call, the ENTER at node %u: %s, want %s", i + 1, got, want[i]);
    }
    EXPECT(rd.ncpnodes == 6, "main twice (its frame, one for run), run twice, leaf, the unnamed: %u nodes", rd.ncpnodes);
    EXPECT(rd.cpnodes[st_event_callpath(&ev[1])].parent == rd.cpnodes[st_event_callpath(&ev[3])].parent,
          "one node main above run's two frames");
    rd.threads = NULL, rd.nthreads = 0;
    st_rankdata_free(&rd);
    /* without a text at ST_CP_MAIN (a recovered dump's pc in no mapping has ""), one is added */
    st_rankdata_t r2 = { 0 };
    st_cpnode_t two[] = { { .parent = ST_CP_NONE, .pc = ST_CP_MAIN }, { .parent = 0, .pc = 0x200 } };
    r2.ncpnodes = 2;
    r2.cpnodes = malloc(sizeof two);
    memcpy(r2.cpnodes, two, sizeof two);
    put_site(&r2, 0x200, "run (r.c:2)");
    EXPECT(st_callpath_inline(&r2, NULL, 0) == 0, "st_callpath_inline");
    path_of(&r2, r2.ncpnodes - 1, got, sizeof got);
    EXPECT(r2.ncpnodes == 2 && !strcmp(got, "main/run"), "no text at ST_CP_MAIN: %s in %u nodes", got, r2.ncpnodes);
    st_rankdata_free(&r2);
}

int main(void)
{
    test_split();
    test_inline();
    test_tail();
    test_main_root();
    uint32_t p[2][3];
    for (int i = 0; i < 2; i++) /* one call site in main: the same stacks twice */
        probe(p[i]);
    uint32_t a0 = p[0][0], a1 = p[0][1], b0 = p[0][2];
    EXPECT(a0 != ST_CP_NONE && a1 != ST_CP_NONE && b0 != ST_CP_NONE, "no path captured");
    EXPECT(a0 != a1 && a0 != b0 && a1 != b0, "distinct stacks share a node: %u %u %u", a0, a1, b0);
    EXPECT(!memcmp(p[0], p[1], sizeof p[0]), "the same stack gives another node");
    EXPECT(st_callpath_pc(a0) != st_callpath_pc(a1), "two call sites, one pc");

    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, seen[i]);
    long bad = 0;
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    EXPECT(bad == 0, "threads: %ld rounds gave other nodes than the thread's first", bad);
    /* a thread's stack starts in libc's start_thread (skipped): worker is its outermost frame,
     * the same in every thread, and not main's */
    for (int i = 1; i < NTHREADS; i++)
        EXPECT(!memcmp(seen[i], seen[0], sizeof seen[0]), "thread %d has other nodes than thread 0", i);
    EXPECT(seen[0][0] != a0, "a thread's stack named main's node");

    uint32_t d5 = deep(5), d200 = deep(200);
    st_rankdata_t rd = { 0 };
    EXPECT(st_callpath_collect(&rd) == 0 && rd.ncpnodes > 0, "collect");
    check_parents_first(&rd);
#define UP(n) rd.cpnodes[n].parent
    /* a0: leaf <- mid_a <- probe (line 1) <- main; a1: leaf <- mid_a <- probe (line 2) <- main */
    EXPECT(rd.cpnodes[UP(a0)].pc == rd.cpnodes[UP(a1)].pc, "mid_a calls leaf from one site, two pcs");
    EXPECT(UP(a0) != UP(a1) && UP(UP(a0)) != UP(UP(a1)), "probe calls mid_a from two lines, one node");
    EXPECT(UP(UP(UP(a0))) == UP(UP(UP(a1))) && UP(UP(UP(a0))) == UP(UP(UP(b0))), "one main frame above probe");
    /* the main thread's paths: libc's start routine called main, the node ST_CP_MAIN above it */
    uint32_t dm = depth_of(&rd, a0), dt = depth_of(&rd, seen[0][0]);
    EXPECT(dm == 5, "(ST_CP_MAIN)/main/probe/mid_a/leaf has %u frames (_start or libc kept?)", dm);
    EXPECT(dt == 4, "worker/probe/mid_a/leaf has %u frames", dt);
    EXPECT(depth_of(&rd, d5) == 7, "(ST_CP_MAIN)/main/deep x 5 has %u frames", depth_of(&rd, d5));
    uint32_t top = seen[0][0];
    while (rd.cpnodes[top].parent != ST_CP_NONE)
        top = rd.cpnodes[top].parent;
    EXPECT(rd.cpnodes[top].pc != ST_CP_MAIN, "a thread's path has ST_CP_MAIN at its root: libc did not call it from main");
    /* deep(200): the innermost frames and the outermost ones, main below ST_CP_MAIN as for deep(5) */
    uint32_t r200 = d200, r5 = d5;
    while (rd.cpnodes[rd.cpnodes[r200].parent].parent != ST_CP_NONE)
        r200 = rd.cpnodes[r200].parent;
    while (rd.cpnodes[rd.cpnodes[r5].parent].parent != ST_CP_NONE)
        r5 = rd.cpnodes[r5].parent;
    EXPECT(rd.cpnodes[rd.cpnodes[r200].parent].pc == ST_CP_MAIN && rd.cpnodes[rd.cpnodes[r5].parent].pc == ST_CP_MAIN,
          "deep(5) and deep(200) have no ST_CP_MAIN root");
    uint64_t p200 = rd.cpnodes[r200].pc, p5 = rd.cpnodes[r5].pc;
    EXPECT((p200 > p5 ? p200 - p5 : p5 - p200) < 256, "deep(200)'s root is not main's frame (pc %llx, deep(5)'s %llx)",
          (unsigned long long)p200, (unsigned long long)p5);
    uint32_t dd = depth_of(&rd, d200);
    EXPECT(dd >= ST_CALLPATH_DEPTH - 8 && dd < ST_CALLPATH_DEPTH, "deep(200) keeps %u frames", dd);
    st_rankdata_free(&rd);
    printf("test_callpath: %s (%d failure(s))\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
