/* addr2line.c — code addresses to source-level frames through a symbolizer (see addr2line.h). */
#include "addr2line.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elffunc.h"

/* Addresses per symbolizer run: long enough to pay its start-up (DWARF parsing) once, short for the command line. */
#define A2L_BATCH 256

int st_object_fixed(const char *path)
{
    unsigned char hdr[18];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO named by a damaged dump must not block */
    struct stat st;
    ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, hdr, sizeof hdr, 0) : 0;
    if (fd >= 0)
        close(fd);
    return n == (ssize_t)sizeof hdr && hdr[16] == 2 /* ET_EXEC (little endian) */;
}

/* Nonzero when an executable file named name lies in a directory of PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        char file[4200];
        if (len && len + strlen(name) + 2 <= sizeof file) {
            snprintf(file, sizeof file, "%.*s/%s", (int)len, p, name);
            if (access(file, X_OK) == 0)
                return 1;
        }
        p += len + (p[len] == ':');
    }
    return 0;
}

const char *st_symbolizer(void)
{
    static const char *tool; /* finalize and recover are single-threaded */
    if (!tool)
        tool = on_path("llvm-symbolizer") ? "llvm-symbolizer" : "addr2line";
    return tool;
}

void st_a2l_clear(st_a2l_t *q)
{
    for (uint32_t k = 0; k < q->nfr; k++)
        free(q->fr[k].func), free(q->fr[k].loc);
    free(q->fr);
    q->fr = NULL;
    q->nfr = 0;
    q->fn_begin = q->fn_end = 0;
    free(q->callee_func);
    q->callee_func = NULL;
    q->callee = q->callee_size = 0;
    q->fn_at = 0;
}

/* The value of an address line ("0x" and hex digits only), or -1 when line is none. */
static int address_line(const char *line, uint64_t *v)
{
    if (line[0] != '0' || line[1] != 'x' || !line[2] || line[2 + strspn(line + 2, "0123456789abcdefABCDEF")])
        return -1;
    *v = strtoull(line + 2, NULL, 16);
    return 0;
}

/* One line of in without its newline (into *buf, grown as needed); its length, or -1 at the end. */
static ssize_t read_line(FILE *in, char **buf, size_t *cap)
{
    ssize_t len = getline(buf, cap, in);
    if (len > 0 && (*buf)[len - 1] == '\n')
        (*buf)[--len] = 0;
    return len;
}

/* Appends the frame (func, loc) to q; -1 when out of memory. */
static int add_frame(st_a2l_t *q, const char *func, const char *loc)
{
    st_a2l_frame_t *fr = realloc(q->fr, (q->nfr + 1) * sizeof *fr);
    if (!fr)
        return -1;
    q->fr = fr;
    char *f = strdup(func), *l = strdup(loc);
    if (!f || !l) {
        free(f), free(l);
        return -1;
    }
    char *d = strstr(l, " (discriminator"); /* drop " (discriminator N)" */
    if (d)
        *d = 0;
    fr[q->nfr++] = (st_a2l_frame_t){ .func = f, .loc = l };
    return 0;
}

/* Empties q when one of its frames has no function name: a path of "??" frames names nothing. */
static void drop_unknown(st_a2l_t *q)
{
    for (uint32_t k = 0; k < q->nfr; k++)
        if (!q->fr[k].func[0] || !strcmp(q->fr[k].func, "??")) {
            st_a2l_clear(q);
            return;
        }
}

void st_a2l_read(FILE *in, st_a2l_t *const *q, size_t n)
{
    char *line = NULL, *loc = NULL;
    size_t cap = 0, lcap = 0, i = 0;
    st_a2l_t *cur = NULL; /* the address taking frames */
    uint64_t v;
    while (read_line(in, &line, &cap) >= 0) {
        if (address_line(line, &v) == 0) {
            if (cur)
                drop_unknown(cur);
            cur = NULL;
            if (i == n || q[i]->rel != v) /* out of step: nothing after it is trusted */
                break;
            cur = q[i++];
            st_a2l_clear(cur);
        } else if (!cur || read_line(in, &loc, &lcap) < 0 || add_frame(cur, line, loc) != 0) {
            if (cur) /* a function without its location, or out of memory */
                st_a2l_clear(cur);
            cur = NULL;
            break;
        }
    }
    if (cur)
        drop_unknown(cur);
    free(line), free(loc);
}

/*
 * One run per object instead of one per address: the DWARF of a large code is parsed once
 * (SYNCTRACE_CALLSITE=1 on LULESH added about 10 s at finalize with one run per address).
 */
void st_addr2line(const char *obj, st_a2l_t *const *q, size_t n)
{
    struct stat st; /* a symbolizer would block on a FIFO named by a damaged dump */
    if (strchr(obj, '\'') || strlen(obj) > 4000 || stat(obj, &st) || !S_ISREG(st.st_mode))
        return;
    char *cmd = malloc(4200 + A2L_BATCH * 20);
    if (!cmd)
        return;
    const char *tool = st_symbolizer();
    const char *style = strcmp(tool, "addr2line") ? " --output-style=GNU" : "";
    for (size_t b = 0; b < n; b += A2L_BATCH) {
        size_t m = n - b < A2L_BATCH ? n - b : A2L_BATCH;
        int len = snprintf(cmd, 4200, "%s%s -a -f -i -C -e '%s'", tool, style, obj);
        for (size_t i = 0; i < m; i++)
            len += snprintf(cmd + len, 20, " 0x%" PRIx64, q[b + i]->rel);
        snprintf(cmd + len, 20, " 2>/dev/null");
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        st_a2l_read(p, q + b, m);
        pclose(p);
    }
    free(cmd);
}

/* The line of a "file:line" location, 0 if unknown; *flen: the length of its file part. */
static uint32_t loc_line(const char *loc, size_t *flen)
{
    const char *colon = strrchr(loc, ':');
    char *end;
    unsigned long v = colon ? strtoul(colon + 1, &end, 10) : 0;
    if (!colon || end == colon + 1 || *end || v > UINT32_MAX || !strncmp(loc, "??", 2))
        return 0;
    *flen = (size_t)(colon - loc);
    return (uint32_t)v;
}

static const st_a2l_frame_t *outermost(const st_a2l_t *q)
{
    return q->nfr ? &q->fr[q->nfr - 1] : NULL;
}

/* Lines fn_begin/fn_end of q's outermost function from the frames at its first (b) and last (e) byte. */
static void set_lines(st_a2l_t *q, const st_a2l_t *b, const st_a2l_t *e)
{
    const st_a2l_frame_t *f = outermost(q), *fb = outermost(b), *fe = outermost(e);
    if (!f || !fb || !fe)
        return;
    size_t bl = 0, el = 0;
    uint32_t lb = loc_line(fb->loc, &bl), le = lb ? loc_line(fe->loc, &el) : 0;
    if (lb && le >= lb && bl == el && !strncmp(fb->loc, fe->loc, bl) && !strcmp(fb->func, f->func) &&
        !strcmp(fe->func, f->func))
        q->fn_begin = lb, q->fn_end = le;
}

/* The index of function f among fn[0..*nf) (added, with its first and last byte asked, if new). */
static size_t function_index(const st_elf_func_t *f, const st_elf_func_t **fn, size_t *nf, st_a2l_t *ends,
                             st_a2l_t **ask, size_t *m)
{
    size_t k = 0;
    while (k < *nf && fn[k] != f) /* few distinct functions: a linear search */
        k++;
    if (k == *nf) {
        fn[(*nf)++] = f;
        ends[2 * k].rel = f->start, ends[2 * k + 1].rel = f->start + f->size - 1;
        ask[(*m)++] = &ends[2 * k], ask[(*m)++] = &ends[2 * k + 1];
    }
    return k;
}

/* q's callee: the function starting at target, named by the outermost frame at its first byte (e). */
static void set_callee(st_a2l_t *q, const st_elf_func_t *f, const st_a2l_t *e)
{
    const st_a2l_frame_t *first = outermost(e);
    if (first && (q->callee_func = strdup(first->func)))
        q->callee = f->start, q->callee_size = f->size;
}

/* The addresses of q[0..n) the symbolizer could not name: the function each lies in, from obj's unwind
 * tables (fn_at), so that a stripped object's frames in one function are one frame of the call tree. */
static void unnamed_functions(const char *obj, st_a2l_t *const *q, size_t n)
{
    size_t k = 0;
    while (k < n && q[k]->nfr)
        k++;
    st_elf_funcs_t fdes;
    if (k == n || st_elf_fdes_load(obj, &fdes))
        return;
    for (; k < n; k++) {
        const st_elf_func_t *f = q[k]->nfr ? NULL : st_elf_func_at(&fdes, q[k]->rel);
        q[k]->fn_at = f ? f->start : 0;
    }
    st_elf_funcs_free(&fdes);
}

static void addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n);

void st_addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n)
{
    addr2line_funcs(obj, q, n);
    unnamed_functions(obj, q, n);
}

static void addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n)
{
    st_elf_funcs_t funcs;
    if (!n || st_elf_funcs_load(obj, &funcs)) {
        st_addr2line(obj, q, n);
        return;
    }
    /* ends[2k], ends[2k + 1]: the first and last byte of the k-th distinct function; fn[k] its symbol;
     * of[i], to[i]: the function of q[i] and of its callee (SIZE_MAX: none) */
    st_a2l_t *ends = calloc(4 * n, sizeof *ends), **ask = calloc(5 * n, sizeof *ask);
    const st_elf_func_t **fn = calloc(2 * n, sizeof *fn);
    size_t *of = calloc(2 * n, sizeof *of), *to = of + n, nf = 0, m = 0;
    uint64_t *at = calloc(2 * n, sizeof *at), *target = at + n;
    if (!ends || !ask || !fn || !of || !at) {
        free(ends), free(ask), free(fn), free(of), free(at);
        st_elf_funcs_free(&funcs);
        st_addr2line(obj, q, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        at[i] = q[i]->rel + 1; /* the return address */
    st_elf_call_targets(obj, at, target, n);
    for (size_t i = 0; i < n; i++) {
        ask[m++] = q[i];
        const st_elf_func_t *f = st_elf_func_at(&funcs, q[i]->rel), *c = st_elf_func_at(&funcs, target[i]);
        of[i] = f ? function_index(f, fn, &nf, ends, ask, &m) : SIZE_MAX;
        to[i] = target[i] && c && c->start == target[i] ? function_index(c, fn, &nf, ends, ask, &m) : SIZE_MAX;
    }
    st_addr2line(obj, ask, m); /* one run per batch for the sites and their functions' ends */
    for (size_t i = 0; i < n; i++) {
        const st_a2l_frame_t *f = outermost(q[i]);
        if (of[i] == SIZE_MAX && f && loc_line(f->loc, &(size_t){ 0 }) == 0)
            st_a2l_clear(q[i]); /* named from the symbol table, but no function symbol holds it */
        else if (of[i] != SIZE_MAX)
            set_lines(q[i], &ends[2 * of[i]], &ends[2 * of[i] + 1]);
        if (q[i]->nfr && to[i] != SIZE_MAX)
            set_callee(q[i], fn[to[i]], &ends[2 * to[i]]);
    }
    for (size_t k = 0; k < 2 * nf; k++)
        st_a2l_clear(&ends[k]);
    free(ends), free(ask), free(fn), free(of), free(at);
    st_elf_funcs_free(&funcs);
}

char *st_a2l_frame_text(const st_a2l_frame_t *f)
{
    const char *slash = strrchr(f->loc, '/'), *file = slash ? slash + 1 : f->loc;
    size_t n = strlen(f->func) + strlen(file) + 4;
    char *out = malloc(n);
    if (out && f->loc[0] && strncmp(f->loc, "??", 2) != 0)
        snprintf(out, n, "%s (%s)", f->func, file);
    else if (out)
        snprintf(out, n, "%s", f->func);
    return out;
}

char *st_a2l_unnamed(const char *obj, uint64_t rel)
{
    const char *slash = strrchr(obj, '/'), *base = slash ? slash + 1 : obj;
    size_t n = strlen(base) + 24;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s+0x%" PRIx64, base, rel);
    return out;
}

/* One query with its object, for sorting by object. */
typedef struct objq {
    const char *obj;
    st_a2l_t *q;
} objq_t;

static int cmp_objq(const void *a, const void *b)
{
    return strcmp(((const objq_t *)a)->obj, ((const objq_t *)b)->obj);
}

void st_addr2line_objects(st_a2l_t *const *q, const char *const *obj, size_t n)
{
    objq_t *by = calloc(n + 1, sizeof *by);
    st_a2l_t **group = calloc(n + 1, sizeof *group);
    size_t m = 0;
    for (size_t i = 0; by && group && i < n; i++)
        if (obj[i])
            by[m++] = (objq_t){ obj[i], q[i] };
    if (by && group && m)
        qsort(by, m, sizeof *by, cmp_objq);
    for (size_t i = 0, j; by && group && i < m; i = j) {
        for (j = i; j < m && !strcmp(by[j].obj, by[i].obj); j++)
            group[j - i] = by[j].q;
        st_addr2line_funcs(by[i].obj, group, j - i);
    }
    free(group), free(by);
}
