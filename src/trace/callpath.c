/* callpath.c — call-path helpers shared by the shim, the OTF2 writer and the CLI (see callpath.h). */
#include "callpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rankdata.h"

static void copy(char *dst, size_t n, const char *s, size_t len)
{
    if (!n)
        return;
    len = len < n - 1 ? len : n - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

/* Where the parenthesis that closes text begins (its " ("), NULL if text does not end in one. */
static const char *closing_paren(const char *text, size_t len)
{
    if (!len || text[len - 1] != ')')
        return NULL;
    size_t depth = 0;
    for (size_t j = len; j-- > 0;) {
        depth += text[j] == ')';
        if (text[j] == '(' && --depth == 0)
            return j > 0 && text[j - 1] == ' ' ? text + j - 1 : NULL;
    }
    return NULL;
}

void st_callpath_split(const char *text, char *func, size_t nfunc, char *file, size_t nfile, uint32_t *line)
{
    size_t len = strlen(text);
    const char *paren = closing_paren(text, len);
    size_t flen = paren ? (size_t)(paren - text) : len;
    if (paren) { /* "sym+0xoff (object)": the symbol */
        const char *off = NULL;
        for (const char *p = text; (p = strstr(p, "+0x")) && p < paren; p++)
            off = p;
        if (off && off > text && off + 3 + strspn(off + 3, "0123456789abcdef") == paren)
            flen = (size_t)(off - text);
    }
    copy(func, nfunc, text, flen);
    copy(file, nfile, "", 0);
    *line = 0;
    if (!paren)
        return;
    const char *in = paren + 2, *end = text + len - 1;
    const char *colon = memrchr(in, ':', (size_t)(end - in));
    if (!colon)
        return;
    char *num_end;
    unsigned long v = strtoul(colon + 1, &num_end, 10);
    if (num_end == colon + 1 || num_end != end || v > UINT32_MAX)
        return;
    copy(file, nfile, in, (size_t)(colon - in));
    *line = (uint32_t)v;
}

/* ---- inlined frames as nodes ------------------------------------------------------------------ */

static int by_pc(const void *a, const void *b)
{
    uint64_t x = ((const st_callsite_t *)a)->pc, y = ((const st_callsite_t *)b)->pc;
    return (x > y) - (x < y);
}

static const st_callsite_t *site_of(const st_rankdata_t *rd, uint64_t key)
{
    st_callsite_t k = { .pc = key };
    return rd->ncallsites ? bsearch(&k, rd->callsites, rd->ncallsites, sizeof k, by_pc) : NULL;
}

/* How many functions the code at pc was inlined into: the texts at st_callpath_inline_pc(pc, 1 ..). */
static uint32_t inline_depth(const st_rankdata_t *rd, uint64_t pc)
{
    uint32_t m = 0;
    if (pc >> ST_CP_INLINE_SHIFT)
        return 0;
    while (m < ST_CP_INLINE_MAX && site_of(rd, st_callpath_inline_pc(pc, m + 1)))
        m++;
    return m;
}

/*
 * Whether the frame with call-site text text is the body of an OpenMP construct that the compiler
 * outlined into a function of its own (clang: .omp_outlined., .omp_outlined._debug__,
 * .omp_task_entry.; GCC: f._omp_fn.N, f._omp_cpyfn.N, demangled "f(int) [clone ._omp_fn.0]").
 * The construct is a region of the path already ("!$omp parallel"); its body is no source frame.
 */
static int outlined_body(const char *text)
{
    return !strncmp(text, ".omp_outlined.", 14) || !strncmp(text, ".omp_task_entry.", 16) ||
           strstr(text, "._omp_fn.") || strstr(text, "._omp_cpyfn.");
}

/* The ENTERs of rd name map[node] instead of node. */
static void renumber_events(st_rankdata_t *rd, const uint32_t *map, uint32_t n)
{
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; rd->threads[t].events && i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            uint32_t node = st_event_callpath(e);
            if (node != ST_CP_NONE)
                st_event_set_callpath(e, node < n ? map[node] : ST_CP_NONE);
        }
}

/* Node i's frames as new nodes from nodes[*k] on (under map[i]'s parent); map[i]: the innermost kept. */
static void expand_node(const st_rankdata_t *rd, uint32_t i, uint32_t depth, st_cpnode_t *nodes, uint32_t *k,
                        uint32_t *map)
{
    const st_cpnode_t *c = &rd->cpnodes[i];
    uint32_t up = c->parent < i ? map[c->parent] : ST_CP_NONE; /* a parent precedes its children */
    for (uint32_t j = depth + 1; j-- > 0;) {
        uint64_t key = st_callpath_inline_pc(c->pc, j);
        const st_callsite_t *site = site_of(rd, key);
        if (site && site->text && outlined_body(site->text))
            continue;
        nodes[*k] = (st_cpnode_t){ .parent = up, .pc = key };
        up = (*k)++;
    }
    map[i] = up;
}

int st_callpath_inline(struct st_rankdata *rd)
{
    uint32_t n = rd->cpnodes ? rd->ncpnodes : 0;
    if (!n)
        return 0;
    if (rd->callsites && rd->ncallsites > 1)
        qsort(rd->callsites, rd->ncallsites, sizeof *rd->callsites, by_pc);
    uint32_t *depth = malloc(sizeof *depth * n), *map = malloc(sizeof *map * n);
    uint64_t total = 0;
    for (uint32_t i = 0; depth && i < n; i++)
        total += (depth[i] = inline_depth(rd, rd->cpnodes[i].pc)) + 1;
    st_cpnode_t *nodes = depth && map && total < ST_CP_NONE ? malloc(sizeof *nodes * total) : NULL;
    if (!nodes) {
        free(depth), free(map);
        return -1;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        expand_node(rd, i, depth[i], nodes, &k, map);
    renumber_events(rd, map, n);
    free(rd->cpnodes);
    rd->cpnodes = nodes;
    rd->ncpnodes = k;
    free(depth), free(map);
    return 0;
}
