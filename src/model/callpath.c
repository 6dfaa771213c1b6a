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

static int callee_by_pc(const void *a, const void *b)
{
    uint64_t x = ((const st_cpcallee_t *)a)->pc, y = ((const st_cpcallee_t *)b)->pc;
    return (x > y) - (x < y);
}

typedef struct expand {
    const st_rankdata_t *rd;
    const st_cpcallee_t *callees;
    size_t ncallees;
    uint32_t *map;  /* old node -> its innermost new node (ST_CP_NONE: all its frames left out) */
    uint32_t *tail; /* old node -> the new node of its call's callee, ST_CP_NONE until made */
    st_cpnode_t *nodes;
    uint32_t k;     /* new nodes made */
} expand_t;

/* The callee of old node i's call, NULL when unknown or without a text. */
static const st_cpcallee_t *callee_of(const expand_t *x, uint32_t i)
{
    st_cpcallee_t key = { .pc = x->rd->cpnodes[i].pc };
    const st_cpcallee_t *c = x->ncallees ? bsearch(&key, x->callees, x->ncallees, sizeof key, callee_by_pc) : NULL;
    return c && site_of(x->rd, st_callpath_inline_pc(key.pc, ST_CP_TAIL)) ? c : NULL;
}

/* The node of old node i's callee (made below i's innermost node on first use). */
static uint32_t tail_node(expand_t *x, uint32_t i)
{
    if (x->tail[i] == ST_CP_NONE) {
        uint64_t key = st_callpath_inline_pc(x->rd->cpnodes[i].pc, ST_CP_TAIL);
        x->nodes[x->k] = (st_cpnode_t){ .parent = x->map[i], .pc = key };
        x->tail[i] = x->k++;
    }
    return x->tail[i];
}

/*
 * Whether old node i (whose frames go depth deep) runs in the callee c of its parent: its code lies
 * there, or its outermost frame has the callee's name (a part of the function split off from it,
 * as GCC's f.cold, lies outside the symbol's range).
 */
static int in_callee(const expand_t *x, uint32_t i, uint32_t depth, const st_cpcallee_t *c)
{
    uint64_t pc = x->rd->cpnodes[i].pc;
    if (pc - 1 >= c->lo && pc - 1 < c->hi)
        return 1;
    const st_callsite_t *outer = site_of(x->rd, st_callpath_inline_pc(pc, depth));
    const st_callsite_t *name = site_of(x->rd, st_callpath_inline_pc(x->rd->cpnodes[x->rd->cpnodes[i].parent].pc,
                                                                       ST_CP_TAIL));
    size_t len = name && name->text ? strlen(name->text) : 0;
    return outer && outer->text && len && !strncmp(outer->text, name->text, len) &&
           (!outer->text[len] || !strncmp(outer->text + len, " (", 2));
}

/*
 * Whether old node i (whose frames go depth deep), below an ST_CP_MAIN node, runs in a function
 * main tail-called: its outermost frame is named, and not main ("object+0xoff", "0xaddr" and ""
 * name nothing: main's frame may be such).
 */
static int below_lost_main(const expand_t *x, uint32_t i, uint32_t depth)
{
    const st_callsite_t *outer = site_of(x->rd, st_callpath_inline_pc(x->rd->cpnodes[i].pc, depth));
    if (!outer || !outer->text)
        return 0;
    size_t len = strlen(outer->text);
    char *func = malloc(len + 1), *file = malloc(len + 1);
    uint32_t line;
    int lost = 0;
    if (func && file) {
        st_callpath_split(outer->text, func, len + 1, file, len + 1, &line);
        lost = func[0] && strncmp(func, "0x", 2) && !strstr(func, "+0x") && strcmp(func, "main");
    }
    free(func), free(file);
    return lost;
}

/* Old node i's frames as new nodes (under its parent's, or its parent's callee's when that tail-called). */
static void expand_node(expand_t *x, uint32_t i, uint32_t depth)
{
    const st_cpnode_t *c = &x->rd->cpnodes[i];
    uint32_t up = ST_CP_NONE;
    if (c->pc == ST_CP_MAIN) { /* no frame of its own: main is made below it when a child needs it */
        x->map[i] = ST_CP_NONE;
        return;
    }
    if (c->parent < i && x->rd->cpnodes[c->parent].pc == ST_CP_MAIN) /* main's tail callee: the node main */
        up = below_lost_main(x, i, depth) ? tail_node(x, c->parent) : ST_CP_NONE; /* key ST_CP_MAIN */
    else if (c->parent < i) { /* a parent precedes its children */
        const st_cpcallee_t *callee = callee_of(x, c->parent);
        up = callee && !in_callee(x, i, depth, callee) ? tail_node(x, c->parent) : x->map[c->parent];
    }
    for (uint32_t j = depth + 1; j-- > 0;) {
        uint64_t key = st_callpath_inline_pc(c->pc, j);
        const st_callsite_t *site = site_of(x->rd, key);
        if (site && site->text && outlined_body(site->text))
            continue;
        x->nodes[x->k] = (st_cpnode_t){ .parent = up, .pc = key };
        up = x->k++;
    }
    x->map[i] = up;
}

/* The ENTERs of rd name their new innermost node: the callee's of their old one when it is known. */
static void renumber_events(expand_t *x, uint32_t n)
{
    st_rankdata_t *rd = (st_rankdata_t *)x->rd;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; rd->threads[t].events && i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            uint32_t node = st_event_callpath(e);
            if (node == ST_CP_NONE)
                continue;
            st_event_set_callpath(e, node >= n ? ST_CP_NONE : callee_of(x, node) ? tail_node(x, node) : x->map[node]);
        }
}

/* The text of key ST_CP_MAIN is "main" (replacing what naming its node's pc gave, or added) when
 * some node is ST_CP_MAIN; 0, or -1 when out of memory. */
static int name_main(st_rankdata_t *rd, uint32_t n)
{
    uint32_t i = 0, k = 0;
    while (i < n && rd->cpnodes[i].pc != ST_CP_MAIN)
        i++;
    while (rd->callsites && k < rd->ncallsites && rd->callsites[k].pc != ST_CP_MAIN)
        k++;
    char *text = i < n ? strdup("main") : NULL;
    if (i == n || !text)
        return i == n ? 0 : -1;
    if (!rd->callsites || k == rd->ncallsites) {
        st_callsite_t *cs = realloc(rd->callsites, (rd->ncallsites + 1) * sizeof *cs);
        if (!cs) {
            free(text);
            return -1;
        }
        rd->callsites = cs;
        k = rd->ncallsites++;
        cs[k] = (st_callsite_t){ .pc = ST_CP_MAIN };
    }
    free(rd->callsites[k].text);
    rd->callsites[k].text = text;
    return 0;
}

int st_callpath_inline(struct st_rankdata *rd, st_cpcallee_t *callees, size_t ncallees)
{
    uint32_t n = rd->cpnodes ? rd->ncpnodes : 0;
    if (!n)
        return 0;
    if (callees && ncallees > 1)
        qsort(callees, ncallees, sizeof *callees, callee_by_pc);
    if (rd->callsites && rd->ncallsites > 1)
        qsort(rd->callsites, rd->ncallsites, sizeof *rd->callsites, by_pc);
    expand_t x = { .rd = rd, .callees = callees, .ncallees = ncallees };
    uint32_t *depth = malloc(sizeof *depth * n);
    x.map = malloc(sizeof *x.map * n), x.tail = malloc(sizeof *x.tail * n);
    uint64_t total = 0;
    for (uint32_t i = 0; depth && i < n; i++)
        total += (depth[i] = inline_depth(rd, rd->cpnodes[i].pc)) + 2; /* its frames and its callee's */
    if (depth && x.map && x.tail && total < ST_CP_NONE)
        x.nodes = malloc(sizeof *x.nodes * total);
    if (!x.nodes || name_main(rd, n) != 0) {
        free(depth), free(x.map), free(x.tail), free(x.nodes);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        x.tail[i] = ST_CP_NONE;
    for (uint32_t i = 0; i < n; i++)
        expand_node(&x, i, depth[i]);
    renumber_events(&x, n);
    free(rd->cpnodes);
    rd->cpnodes = x.nodes;
    rd->ncpnodes = x.k;
    free(depth), free(x.map), free(x.tail);
    return 0;
}
