/*
 * test_elffunc.c — function ranges from an ELF symbol table (src/util/elffunc.c) and the lines
 * addr2line gives them (src/util/addr2line.c, st_addr2line_funcs), on this test's own
 * executable: a known function's range holds its own addresses and no other function's, and
 * its lines are where this file writes it. Hostile objects (as a damaged dump may name them):
 * a FIFO does not block, a directory, a text file, a truncated executable and one whose
 * section-header offset points past its end are refused without reading out of bounds. The
 * target of a direct call before a return address (st_elf_call_targets) is the function called. The
 * unwind tables' functions (st_elf_fdes_load) agree with the symbol table, name a stripped copy's
 * addresses by their functions' starts, and garbled or truncated tables are read in bounds.
 */
/* link: src/util/elffunc.c src/util/addr2line.c */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/util/addr2line.h"
#include "../../src/util/elffunc.h"

#include "check.h"

static volatile int sink;

/* The function whose range and lines are checked (KNOWN_BEGIN: its declarator, KNOWN_END: its closing brace). */
static int __attribute__((noinline)) known_function(int x)
{
    sink = x;
    return sink + 1;
}
static const int KNOWN_BEGIN = __LINE__ - 5, KNOWN_END = __LINE__ - 1;

static int __attribute__((noinline)) other_function(int x) { return known_function(x) * 2; }
static const int OTHER_LINE = __LINE__ - 1;

/* caller_fn calls callee_fn directly (not as a tail call: it multiplies the result) */
static void *callee_ret;
static int __attribute__((noinline)) callee_fn(int x)
{
    callee_ret = __builtin_return_address(0);
    return x + 1;
}
static int __attribute__((noinline)) caller_fn(int x) { return callee_fn(x) * 3; }

static char exe[4096];

/* Address of f as the symbol table and addr2line see it (from the load base unless ET_EXEC). */
static uint64_t rel_of(void *f)
{
    Dl_info info;
    EXPECT(dladdr(f, &info) != 0, "dladdr of a function of the test");
    return st_object_fixed(exe) ? (uint64_t)(uintptr_t)f : (uint64_t)((uintptr_t)f - (uintptr_t)info.dli_fbase);
}

static void test_own_executable(void)
{
    st_elf_funcs_t fs;
    EXPECT(st_elf_funcs_load(exe, &fs) == 0 && fs.n > 2, "the test's executable has function symbols (%zu)", fs.n);
    uint64_t k = rel_of((void *)known_function), o = rel_of((void *)other_function);
    const st_elf_func_t *f = st_elf_func_at(&fs, k + 3);
    EXPECT(f && f->start == k && f->size > 3, "known_function's range starts at its address");
    EXPECT(f && st_elf_func_at(&fs, k + f->size - 1) == f, "its last byte is in its range");
    const st_elf_func_t *g = st_elf_func_at(&fs, o);
    EXPECT(g && g != f && g->start == o, "other_function is another function");
    EXPECT(!st_elf_func_at(&fs, 0), "address 0 is in no function");

    st_a2l_t q = { .rel = k + 1 }, q2 = { .rel = o + 1 }, none = { .rel = 1 }, *qs[] = { &q, &none, &q2 };
    st_addr2line_funcs(exe, qs, 3);
    EXPECT(q.nfr == 1 && q2.nfr == 1 && !strcmp(q.fr[0].func, "known_function") &&
              !strcmp(q2.fr[0].func, "other_function"),
          "the symbolizer names known_function and other_function (%s, %s)", q.nfr ? q.fr[0].func : "-",
          q2.nfr ? q2.fr[0].func : "-");
    EXPECT(q2.fn_begin == (uint32_t)OTHER_LINE && q2.fn_end == (uint32_t)OTHER_LINE, "other_function's line %d: %u-%u",
          OTHER_LINE, q2.fn_begin, q2.fn_end);
    EXPECT(none.fn_begin == 0 && none.fn_end == 0, "an address in no function gets no lines");
    /* the first instruction's line: the declarator's or the brace's; the last one's: the closing
     * brace's, or with optimization the last statement's */
    EXPECT((q.fn_begin == (uint32_t)KNOWN_BEGIN || q.fn_begin == (uint32_t)KNOWN_BEGIN + 1) &&
              (q.fn_end == (uint32_t)KNOWN_END || q.fn_end == (uint32_t)KNOWN_END - 1),
          "known_function's lines %u-%u, in the source %d-%d", q.fn_begin, q.fn_end, KNOWN_BEGIN, KNOWN_END);
    st_a2l_clear(&q), st_a2l_clear(&q2), st_a2l_clear(&none);
    st_elf_funcs_free(&fs);
    EXPECT(fs.v == NULL && fs.n == 0, "free empties");
}

/* The target of the direct call before a return address is the function called (x86-64). */
static void test_call_targets(void)
{
    sink = caller_fn(sink);
    uint64_t ret[3] = { rel_of(callee_ret), rel_of((void *)caller_fn), 1 }, target[3] = { 7, 7, 7 };
    st_elf_call_targets(exe, ret, target, 3);
#if defined(__x86_64__)
    EXPECT(target[0] == rel_of((void *)callee_fn), "the call before caller_fn's return address goes to callee_fn: %llx",
          (unsigned long long)target[0]);
#endif
    EXPECT(target[1] == 0 && target[2] == 0, "no call before a function's start or address 1 (%llx %llx)",
          (unsigned long long)target[1], (unsigned long long)target[2]);
    st_elf_call_targets("/nonexistent/object", ret, target, 1);
    EXPECT(target[0] == 0, "a missing object has no calls");
}

/* Writes n bytes of src (n = 0: the text "not an object") to path. */
static void write_file(const char *path, const void *src, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    EXPECT(fd >= 0, "create %s", path);
    if (!n)
        src = "not an object\n", n = 14;
    EXPECT(write(fd, src, n) == (ssize_t)n, "write %s", path);
    close(fd);
}

/* The unwind tables' functions (.eh_frame) against the symbol table's on this executable: known_function
 * and other_function have an FDE of exactly their range, every function with an FDE has it over its
 * range, and a stripped copy, whose symbolizer names nothing, gets each address's function start (fn_at). */
static void test_fdes(const char *dir)
{
    st_elf_funcs_t fs, fd;
    EXPECT(st_elf_funcs_load(exe, &fs) == 0, "symbols");
    EXPECT(st_elf_fdes_load(exe, &fd) == 0 && fd.n > 2, "the test's executable has FDEs (%zu)", fd.n);
    uint64_t k = rel_of((void *)known_function), o = rel_of((void *)other_function);
    const st_elf_func_t *sk = st_elf_func_at(&fs, k), *fk = st_elf_func_at(&fd, k + 3), *fo = st_elf_func_at(&fd, o);
    EXPECT(sk && fk && fk->start == sk->start && fk->size == sk->size, "known_function's FDE is its symbol's range");
    EXPECT(fo && fo->start == o && fo != fk, "other_function's FDE starts at it");
    size_t same = 0, with = 0;
    for (size_t i = 0; i < fs.n; i++) { /* gcc writes an FDE per function: where there is one, it agrees */
        const st_elf_func_t *f = st_elf_func_at(&fd, fs.v[i].start);
        with += f != NULL;
        same += f && f->start == fs.v[i].start && f->size == fs.v[i].size;
    }
    EXPECT(with > 2 && same == with, "%zu of %zu functions with an FDE have it over their range", same, with);
    char path[600], cmd[sizeof path + sizeof exe + 40];
    snprintf(path, sizeof path, "%s/stripped", dir);
    snprintf(cmd, sizeof cmd, "strip -o '%s' '%s' 2>/dev/null", path, exe);
    if (system(cmd) == 0) {
        st_a2l_t q = { .rel = k + 1 }, q2 = { .rel = o + 2 }, *qs[] = { &q, &q2 };
        st_addr2line_funcs(path, qs, 2);
        EXPECT(q.nfr == 0 && q.fn_at == k && q2.nfr == 0 && q2.fn_at == o,
               "a stripped copy: no names, the functions' starts (%llx %llx, want %llx %llx)", (unsigned long long)q.fn_at,
               (unsigned long long)q2.fn_at, (unsigned long long)k, (unsigned long long)o);
        st_a2l_clear(&q), st_a2l_clear(&q2);
    } else
        printf("test_elffunc: strip not run, the stripped copy not checked\n");
    st_elf_funcs_free(&fs), st_elf_funcs_free(&fd);
}

/* The executable with bytes past its first page garbled (lengths, pointers and encodings of the unwind
 * tables among them): whatever st_elf_fdes_load reads, it reads in bounds (ASan) and sorts. */
static void test_fdes_garbled(const char *dir)
{
    static unsigned char whole[1 << 23];
    FILE *f = fopen(exe, "rb");
    size_t nw = f ? fread(whole, 1, sizeof whole, f) : 0;
    if (f)
        fclose(f);
    if (!nw || nw == sizeof whole)
        return;
    char path[600];
    snprintf(path, sizeof path, "%s/garbled", dir);
    for (uint32_t seed = 1; seed <= 8; seed++) {
        unsigned char *g = malloc(nw);
        EXPECT(g != NULL, "memory");
        if (!g)
            return;
        memcpy(g, whole, nw);
        uint32_t x = seed * 2654435761u;
        for (size_t i = 4096; i < nw; i += 1 + (x >> 26)) /* sparse: the section headers mostly intact */
            x = x * 1103515245u + 12345u, g[i] = (unsigned char)(x >> 16);
        write_file(path, g, nw);
        free(g);
        st_elf_funcs_t gf;
        if (st_elf_fdes_load(path, &gf) == 0)
            for (size_t i = 1; i < gf.n; i++)
                EXPECT(gf.v[i - 1].start <= gf.v[i].start, "garbled %u: FDEs sorted", seed);
        st_elf_funcs_free(&gf);
    }
}

static void test_hostile(const char *dir)
{
    char path[600];
    st_elf_funcs_t fs;
    st_a2l_t q = { .rel = 0x1000 }, *qp = &q;
    alarm(20); /* a blocking open would hang the test: fail it instead */
    snprintf(path, sizeof path, "%s/fifo", dir);
    EXPECT(mkfifo(path, 0600) == 0, "mkfifo");
    EXPECT(st_elf_funcs_load(path, &fs) == -1 && fs.n == 0, "a FIFO is refused");
    uint64_t ret = 0x1005, target = 7;
    st_elf_call_targets(path, &ret, &target, 1);
    EXPECT(target == 0, "a FIFO has no calls");
    EXPECT(st_object_fixed(path) == 0, "a FIFO is no ET_EXEC object");
    st_addr2line(path, &qp, 1);
    st_addr2line_funcs(path, &qp, 1);
    EXPECT(q.nfr == 0 && q.fn_begin == 0, "no symbolizer is run on a FIFO");
    EXPECT(st_elf_funcs_load(dir, &fs) == -1, "a directory is refused");
    snprintf(path, sizeof path, "%s/missing", dir);
    EXPECT(st_elf_funcs_load(path, &fs) == -1, "a missing file is refused");
    snprintf(path, sizeof path, "%s/text", dir);
    write_file(path, NULL, 0);
    EXPECT(st_elf_funcs_load(path, &fs) == -1, "a text file is refused");

    FILE *f = fopen(exe, "rb");
    static unsigned char img[1 << 16];
    size_t n = f ? fread(img, 1, sizeof img, f) : 0;
    if (f)
        fclose(f);
    EXPECT(n > 64, "read the executable's start");
    snprintf(path, sizeof path, "%s/truncated", dir);
    for (size_t cut = 0; cut <= 64; cut += 8) { /* inside the ELF header, and the header alone */
        write_file(path, img, cut ? cut : 1);
        EXPECT(st_elf_funcs_load(path, &fs) == -1, "an executable cut at %zu bytes is refused", cut);
    }
    write_file(path, img, n < 4096 ? n : 4096); /* the header, without the section headers (at the end) */
    EXPECT(st_elf_funcs_load(path, &fs) == -1, "an executable without its section headers is refused");
    unsigned char bad[64];
    memcpy(bad, img, 64);
    memset(bad + 0x28, 0xff, 8); /* e_shoff: past any end */
    snprintf(path, sizeof path, "%s/badshoff", dir);
    write_file(path, bad, 64);
    EXPECT(st_elf_funcs_load(path, &fs) == -1, "a section-header offset past the end is refused");
    EXPECT(st_elf_fdes_load(path, &fs) == -1, "... and no FDEs are read from it");
    snprintf(path, sizeof path, "%s/fifo", dir);
    EXPECT(st_elf_fdes_load(path, &fs) == -1 && fs.n == 0, "a FIFO has no FDEs");
    snprintf(path, sizeof path, "%s/truncated", dir);
    EXPECT(st_elf_fdes_load(path, &fs) == -1, "a truncated executable has no FDEs");
    alarm(0);
}

int main(void)
{
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    EXPECT(len > 0, "readlink /proc/self/exe");
    exe[len > 0 ? len : 0] = 0;
    sink = other_function(1);
    test_own_executable();
    test_call_targets();
    char dir[] = "/tmp/test_elffunc.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_fdes(dir);
    test_hostile(dir);
    test_fdes_garbled(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        failures++;
    if (!failures)
        printf("test_elffunc: ok\n");
    return failures != 0;
}
