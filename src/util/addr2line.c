/* addr2line.c — code addresses to source lines through addr2line (see addr2line.h). */
#include "addr2line.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elffunc.h"

/* Addresses per addr2line run: long enough to pay its start-up (DWARF parsing) once, short for the command line. */
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

/*
 * One run per object instead of one per address: the DWARF of a large code is parsed once
 * (SYNCTRACE_CALLSITE=1 on LULESH added about 10 s at finalize with one run per address).
 */
void st_addr2line(const char *obj, st_a2l_t *const *q, size_t n)
{
    struct stat st; /* addr2line would block on a FIFO named by a damaged dump */
    if (strchr(obj, '\'') || strlen(obj) > 4000 || stat(obj, &st) || !S_ISREG(st.st_mode))
        return;
    char *cmd = malloc(4200 + A2L_BATCH * 20);
    if (!cmd)
        return;
    for (size_t b = 0; b < n; b += A2L_BATCH) {
        size_t m = n - b < A2L_BATCH ? n - b : A2L_BATCH;
        int len = snprintf(cmd, 4200, "addr2line -f -C -e '%s'", obj);
        for (size_t i = 0; i < m; i++)
            len += snprintf(cmd + len, 20, " 0x%lx", (unsigned long)q[b + i]->rel);
        snprintf(cmd + len, 20, " 2>/dev/null");
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        for (size_t i = 0; i < m; i++) {
            st_a2l_t *s = q[b + i];
            if (!fgets(s->func, sizeof s->func, p) || !fgets(s->loc, sizeof s->loc, p)) {
                s->func[0] = s->loc[0] = 0;
                break;
            }
            s->func[strcspn(s->func, "\n")] = 0;
            s->loc[strcspn(s->loc, "\n")] = 0;
            char *d = strstr(s->loc, " (discriminator"); /* drop " (discriminator N)" */
            if (d)
                *d = 0;
        }
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

void st_addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n)
{
    st_elf_funcs_t funcs;
    if (!n || st_elf_funcs_load(obj, &funcs)) {
        st_addr2line(obj, q, n);
        return;
    }
    /* ends[2k], ends[2k + 1]: the first and last byte of the k-th distinct function; fn[k] its symbol */
    st_a2l_t *ends = calloc(2 * n, sizeof *ends), **ask = calloc(3 * n, sizeof *ask);
    const st_elf_func_t **fn = calloc(n, sizeof *fn);
    size_t *of = calloc(n, sizeof *of), nf = 0, m = 0; /* of[i]: q[i]'s function (nf: none) */
    if (!ends || !ask || !fn || !of) {
        free(ends), free(ask), free(fn), free(of);
        st_elf_funcs_free(&funcs);
        st_addr2line(obj, q, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        ask[m++] = q[i];
        const st_elf_func_t *f = st_elf_func_at(&funcs, q[i]->rel);
        size_t k = 0;
        while (f && k < nf && fn[k] != f) /* few distinct functions: a linear search */
            k++;
        if (f && k == nf) {
            fn[nf++] = f;
            ends[2 * k].rel = f->start, ends[2 * k + 1].rel = f->start + f->size - 1;
            ask[m++] = &ends[2 * k], ask[m++] = &ends[2 * k + 1];
        }
        of[i] = f ? k : SIZE_MAX;
    }
    st_addr2line(obj, ask, m); /* one run per batch for the sites and their functions' ends */
    for (size_t i = 0; i < n; i++) {
        if (of[i] == SIZE_MAX || !q[i]->func[0] || !strcmp(q[i]->func, "??"))
            continue;
        const st_a2l_t *b = &ends[2 * of[i]], *e = &ends[2 * of[i] + 1];
        size_t bl = 0, el = 0;
        uint32_t lb = loc_line(b->loc, &bl), le = lb ? loc_line(e->loc, &el) : 0;
        if (lb && le >= lb && bl == el && !strncmp(b->loc, e->loc, bl) && !strcmp(b->func, q[i]->func) &&
            !strcmp(e->func, q[i]->func))
            q[i]->fn_begin = lb, q[i]->fn_end = le;
    }
    free(ends), free(ask), free(fn), free(of);
    st_elf_funcs_free(&funcs);
}

int st_a2l_text(const st_a2l_t *q, char *out, size_t len)
{
    if (!q->func[0] || !strcmp(q->func, "??"))
        return -1;
    const char *slash = strrchr(q->loc, '/');
    if (q->loc[0] && strncmp(q->loc, "??", 2) != 0)
        snprintf(out, len, "%s (%s)", q->func, slash ? slash + 1 : q->loc);
    else
        snprintf(out, len, "%s", q->func);
    return 0;
}
