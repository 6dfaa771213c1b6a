/*
 * test_addr2line.c — the symbolizer's answers read whole and in step (src/util/addr2line.c).
 *
 * The reader on given answers: a batch of names over 4 KiB (C++ templates) mixed with short
 * ones, inline chains, unknown addresses, a discriminator, an echo out of step and an answer cut
 * short; every frame of every address is checked, so a name split or a pair shifted onto its
 * neighbour fails. The symbolizer on this test's own executable, with llvm-symbolizer where it is
 * installed and with binutils' addr2line alone: a function whose name is over 5 KiB between short
 * ones in one batch, and an inlined function's chain. st_callsite_from_a2l: the call-site entries of a
 * chain (the innermost at pc, the others at the inline keys) and of an unnamed address.
 */
/* link: src/util/addr2line.c src/util/elffunc.c src/model/symbols.c */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/model/symbols.h"

#include "check.h"

static volatile int sink;

/* ---- the reader on given answers ------------------------------------------------------------ */

/* A C++-like name of about len bytes, unique per seed. */
static char *long_name(size_t len, int seed)
{
    char *s = malloc(len + 256);
    size_t n = (size_t)sprintf(s, "ns%d::Kernel<", seed);
    while (n < len)
        n += (size_t)sprintf(s + n, "std::pair<NArrayShape<%zu, int, (anonymous namespace)::Tag>, double>, ", n);
    strcpy(s + n, "void>::apply(std::function<void (int)> const&)");
    return s;
}

static st_a2l_t *queries(size_t n, st_a2l_t **qp)
{
    st_a2l_t *q = calloc(n, sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i].rel = 0x1000 + 0x10 * i, qp[i] = &q[i];
    return q;
}

static void read_text(const char *text, st_a2l_t **qp, size_t n)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    EXPECT(in != NULL, "fmemopen");
    st_a2l_read(in, qp, n);
    fclose(in);
}

/* q has exactly the frames want[0..n) (function, location pairs). */
static void expect(const st_a2l_t *q, const char *const *want, uint32_t n, const char *what)
{
    EXPECT(q->nfr == n, "%s: %u frames, want %u", what, q->nfr, n);
    for (uint32_t k = 0; k < n && k < q->nfr; k++) {
        EXPECT(!strcmp(q->fr[k].func, want[2 * k]), "%s: frame %u is '%.60s...' (%zu bytes), want '%.60s...' (%zu)",
              what, k, q->fr[k].func, strlen(q->fr[k].func), want[2 * k], strlen(want[2 * k]));
        EXPECT(!strcmp(q->fr[k].loc, want[2 * k + 1]), "%s: frame %u at '%s', want '%s'", what, k, q->fr[k].loc,
              want[2 * k + 1]);
    }
}

static void test_reader(void)
{
    enum { N = 7 };
    st_a2l_t *qp[N], *q = queries(N, qp);
    char *big1 = long_name(4500, 1), *big2 = long_name(9000, 2), *big3 = long_name(4096, 3);
    /* addr2line's echo (16 digits), llvm-symbolizer's (no padding): both are addresses */
    size_t cap = strlen(big1) + strlen(big2) + 2 * strlen(big3) + 4096;
    char *text = malloc(cap);
    int len = snprintf(text, cap,
                       "0x0000000000001000\n%s\n/src/kernel.h:222\n"          /* a long name */
                       "0x1010\nmain\n/src/main.cc:10\n"                       /* a short one */
                       "0x1020\n%s\n/src/a.h:5 (discriminator 3)\n"            /* long, inlined into ... */
                       "%s\n/src/b.cc:77\nmain\n/src/main.cc:12\n"             /* ... a long one, into main */
                       "0x1030\n??\n??:0\n"                                     /* unknown */
                       "0x1040\nshort_fn\n??:0\n"                               /* no debug information */
                       "0x1050\nf(std::function<void (int)>)\n/a b/c (1).cc:9\n", /* parentheses, blanks */
                       big1, big2, big3);
    EXPECT(len > 0 && (size_t)len < cap, "the answer fits");
    read_text(text, qp, N - 1); /* 0x1060 not answered */
    const char *w0[] = { big1, "/src/kernel.h:222" }, *w1[] = { "main", "/src/main.cc:10" };
    const char *w2[] = { big2, "/src/a.h:5", big3, "/src/b.cc:77", "main", "/src/main.cc:12" };
    const char *w4[] = { "short_fn", "??:0" }, *w5[] = { "f(std::function<void (int)>)", "/a b/c (1).cc:9" };
    expect(qp[0], w0, 1, "long name");
    expect(qp[1], w1, 1, "short name after a long one");
    expect(qp[2], w2, 3, "inline chain of long names");
    expect(qp[3], NULL, 0, "unknown");
    expect(qp[4], w4, 1, "symbol only");
    expect(qp[5], w5, 1, "parentheses in names and paths");
    expect(qp[6], NULL, 0, "not asked");

    /* out of step: the echo of 0x1020 comes where 0x1010's should; nothing from there on is taken */
    for (int i = 0; i < N; i++)
        st_a2l_clear(qp[i]);
    read_text("0x1000\na\n/x.c:1\n0x1020\nc\n/x.c:3\n0x1010\nb\n/x.c:2\n", qp, 3);
    const char *wa[] = { "a", "/x.c:1" };
    expect(qp[0], wa, 1, "in step");
    expect(qp[1], NULL, 0, "an echo out of step");
    expect(qp[2], NULL, 0, "after an echo out of step");

    /* cut short: a function line without its location names nothing; a frame before the echo is refused */
    st_a2l_clear(qp[0]);
    read_text("0x1000\na\n/x.c:1\n0x1010\nb", qp, 2);
    expect(qp[0], wa, 1, "before the cut");
    expect(qp[1], NULL, 0, "a function without its location");
    st_a2l_clear(qp[0]);
    read_text("stray\n/x.c:1\n0x1000\na\n/x.c:1\n", qp, 1);
    expect(qp[0], NULL, 0, "frames before any echo");
    /* an inline chain with an unknown frame names nothing */
    read_text("0x1000\na\n/x.c:1\n??\n??:0\n", qp, 1);
    expect(qp[0], NULL, 0, "a chain with an unknown frame");
    for (int i = 0; i < N; i++)
        st_a2l_clear(qp[i]);
    free(q), free(text), free(big1), free(big2), free(big3);
}

/* ---- st_callsite_from_a2l ------------------------------------------------------------------------------ */

static void test_sites(void)
{
    st_a2l_t q = { .rel = 0x1234 }, *qp = &q;
    read_text("0x1234\ninner(int)\n/s/a.h:5\nmid\n/s/b.cc:7\nmain\n??:0\n", &qp, 1);
    q.fn_begin = 3, q.fn_end = 9;
    st_callsite_t out[3];
    uint32_t n = st_callsite_from_a2l(&q, "/lib/app", 0x401234, out);
    EXPECT(n == 3, "three sites for a chain of three: %u", n);
    const char *want[] = { "inner(int) (a.h:5)", "mid (b.cc:7)", "main" };
    for (uint32_t k = 0; k < n && k < 3; k++) {
        EXPECT(out[k].pc == st_callpath_inline_pc(0x401234, k), "site %u's key %llx", k, (unsigned long long)out[k].pc);
        EXPECT(!strcmp(out[k].text, want[k]), "site %u: '%s', want '%s'", k, out[k].text, want[k]);
        EXPECT((out[k].fn_begin != 0) == (k == 2), "site %u: the function's lines on the outermost only", k);
        free(out[k].text);
    }
    st_a2l_clear(&q);
    EXPECT(st_callsite_from_a2l(&q, "/usr/lib/libfoo.so.1", 0x7f0000001235, out) == 1 && out[0].pc == 0x7f0000001235 &&
              !strcmp(out[0].text, "libfoo.so.1+0x1234"),
          "an unnamed address: object and offset (%s)", out[0].text);
    free(out[0].text);
}

/* ---- the symbolizer on this executable ------------------------------------------------------------ */

/* A function name of 21 * 2^8 = 5376 bytes. */
#define TWICE_(a) a##a
#define TWICE(a)  TWICE_(a)
#define LONG_FN   TWICE(TWICE(TWICE(TWICE(TWICE(TWICE(TWICE(TWICE(long_name_0123456789_))))))))
#define STR_(x)   #x
#define STR(x)    STR_(x)

static int __attribute__((noinline)) LONG_FN(int x) { sink = x; return sink + 1; }
static int __attribute__((noinline)) short_a(int x) { sink = x; return sink + 2; }
static int __attribute__((noinline)) short_b(int x) { sink = x; return sink + 3; }

/* inlined_fn's call to probe lies in outer_fn's code: the chain inlined_fn (PROBE_LINE), outer_fn (INLINED_LINE) */
static void *probe_ret;
static void __attribute__((noinline)) probe(void) { probe_ret = __builtin_return_address(0); sink++; }
static inline __attribute__((always_inline)) void inlined_fn(void)
{
    probe();
    sink++;
}
static const int PROBE_LINE = __LINE__ - 3;
static void __attribute__((noinline)) outer_fn(void)
{
    inlined_fn();
    sink++;
}
static const int INLINED_LINE = __LINE__ - 3;

static char exe[4096];

static uint64_t rel_of(void *f)
{
    Dl_info info;
    EXPECT(dladdr(f, &info) != 0, "dladdr of a function of the test");
    return st_object_fixed(exe) ? (uint64_t)(uintptr_t)f : (uint64_t)((uintptr_t)f - (uintptr_t)info.dli_fbase);
}

/* The frame q->fr[k] is function func in this file at line (0: any line). */
static void expect_frame(const st_a2l_t *q, uint32_t k, const char *func, int line, const char *what)
{
    if (k >= q->nfr) {
        EXPECT(0, "%s: no frame %u (%u frames)", what, k, q->nfr);
        return;
    }
    const st_a2l_frame_t *f = &q->fr[k];
    const char *colon = strrchr(f->loc, ':');
    EXPECT(!strcmp(f->func, func), "%s: frame %u is '%.50s' (%zu bytes), want '%.50s' (%zu)", what, k, f->func,
          strlen(f->func), func, strlen(func));
    EXPECT(strstr(f->loc, "test_addr2line.c:") && colon && (!line || atoi(colon + 1) == line),
          "%s: frame %u at %s, want test_addr2line.c:%d", what, k, f->loc, line);
}

static void test_symbolizer(void)
{
    const char *name = STR(LONG_FN);
    EXPECT(strlen(name) > 4096, "the long name has %zu bytes", strlen(name));
    outer_fn();
    uint64_t L = rel_of((void *)LONG_FN), a = rel_of((void *)short_a), b = rel_of((void *)short_b);
    uint64_t ret = rel_of(probe_ret);
    enum { N = 8 };
    uint64_t at[N] = { L + 1, a + 1, L + 2, b + 1, ret - 1, 1, L + 3, a + 2 };
    st_a2l_t q[N] = { 0 }, *qp[N];
    for (int i = 0; i < N; i++)
        q[i].rel = at[i], qp[i] = &q[i];
    st_addr2line_funcs(exe, qp, N);
    const char *want[N] = { name, "short_a", name, "short_b", NULL, NULL, name, "short_a" };
    char what[64];
    for (int i = 0; i < N; i++) {
        snprintf(what, sizeof what, "%s, address %d", st_symbolizer(), i);
        if (want[i]) {
            EXPECT(q[i].nfr == 1, "%s: %u frames", what, q[i].nfr);
            expect_frame(&q[i], 0, want[i], 0, what);
        }
    }
    EXPECT(q[5].nfr == 0, "%s: address 1 is named (%s)", st_symbolizer(), q[5].nfr ? q[5].fr[0].func : "");
    EXPECT(q[4].nfr == 2, "%s: the inlined call has %u frames, want 2", st_symbolizer(), q[4].nfr);
    expect_frame(&q[4], 0, "inlined_fn", PROBE_LINE, "the inlined function");
    expect_frame(&q[4], 1, "outer_fn", INLINED_LINE, "the function it was inlined into");
    for (int i = 0; i < N; i++)
        st_a2l_clear(&q[i]);
}

/* test_symbolizer with PATH holding only binutils' addr2line (in a child: the symbolizer is chosen once). */
static void test_addr2line_alone(const char *dir)
{
    char link[600];
    const char *a2l = "/usr/bin/addr2line";
    if (access(a2l, X_OK) != 0) {
        printf("test_addr2line: no %s, its run skipped\n", a2l);
        return;
    }
    snprintf(link, sizeof link, "%s/addr2line", dir);
    EXPECT(symlink(a2l, link) == 0, "symlink %s", link);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("PATH", dir, 1);
        EXPECT(!strcmp(st_symbolizer(), "addr2line"), "PATH of addr2line alone: %s", st_symbolizer());
        test_symbolizer();
        fflush(stdout);
        _exit(failures != 0);
    }
    int st = 0;
    EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the run with addr2line alone failed");
    unlink(link);
}

int main(void)
{
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    EXPECT(len > 0, "readlink /proc/self/exe");
    exe[len > 0 ? len : 0] = 0;
    test_reader();
    test_sites();
    char dir[] = "/tmp/test_addr2line.XXXXXX"; /* first: the child must choose its symbolizer itself */
    EXPECT(mkdtemp(dir) != NULL, "mkdtemp");
    test_addr2line_alone(dir);
    rmdir(dir);
    test_symbolizer();
    printf("test_addr2line: %s (%d failure(s), symbolizer %s)\n", failures ? "FAIL" : "ok", failures, st_symbolizer());
    return failures != 0;
}
