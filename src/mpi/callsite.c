/* callsite.c — capturing and resolving call sites (see callsite.h). */
#include "callsite.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../record/unwind.h"
#include "../util/addr2line.h"
#include "st_mpi.h"

int st_mpi_callsite_on;

uint64_t st_mpi_callsite(void) { return st_unwind_callsite(); }

/* ---- resolution at finalize ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One call site being resolved: where it lies and, once known, what addr2line says of it. */
typedef struct site {
    uint64_t pc;
    const char *obj; /* object file (points into obj_path or exe); NULL: no object */
    uintptr_t at;    /* address inside the call */
    Dl_info info;
    st_a2l_t a2l;
} site_t;

static void locate(site_t *s, const char *exe)
{
    s->at = (uintptr_t)s->pc - 1; /* inside the call instruction, not after it */
    if (!dladdr((void *)s->at, &s->info) || !s->info.dli_fname)
        return;
    s->obj = *s->info.dli_fname ? s->info.dli_fname : exe; /* "": the main program */
    s->a2l.rel = st_object_fixed(s->obj) ? s->at : s->at - (uintptr_t)s->info.dli_fbase;
}

static char *describe(const site_t *s)
{
    char out[1700];
    const char *obj = s->obj, *base = obj && strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
    if (!obj)
        snprintf(out, sizeof out, "0x%lx", (unsigned long)s->pc);
    else if (st_a2l_text(&s->a2l, out, sizeof out) == 0)
        ;
    else if (s->info.dli_sname)
        snprintf(out, sizeof out, "%s+0x%lx (%s)", s->info.dli_sname,
                 (unsigned long)(s->at - (uintptr_t)s->info.dli_saddr), base);
    else
        snprintf(out, sizeof out, "%s+0x%lx", base, (unsigned long)s->a2l.rel);
    return strdup(out);
}

static int cmp_site_obj(const void *a, const void *b)
{
    const site_t *x = *(site_t *const *)a, *y = *(site_t *const *)b;
    return strcmp(x->obj, y->obj);
}

/* Texts of the sorted distinct pcs[0..n) into rd->callsites. */
static void describe_all(st_rankdata_t *rd, const uint64_t *pcs, size_t n)
{
    site_t *sites = calloc(n, sizeof *sites);
    site_t **by_obj = calloc(n, sizeof *by_obj);
    st_a2l_t **queries = calloc(n, sizeof *queries);
    rd->callsites = sites && by_obj && queries ? calloc(n, sizeof *rd->callsites) : NULL;
    if (rd->callsites) {
        char exe[4096];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[len > 0 ? len : 0] = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            sites[i].pc = pcs[i];
            locate(&sites[i], exe);
            if (sites[i].obj)
                by_obj[m++] = &sites[i];
        }
        qsort(by_obj, m, sizeof *by_obj, cmp_site_obj);
        for (size_t i = 0, j; i < m; i = j) {
            for (j = i + 1; j < m && !strcmp(by_obj[j]->obj, by_obj[i]->obj); j++)
                ;
            for (size_t k = i; k < j; k++)
                queries[k] = &by_obj[k]->a2l;
            st_addr2line_funcs(by_obj[i]->obj, queries + i, j - i);
        }
        for (size_t i = 0; i < n; i++) {
            rd->callsites[i].pc = pcs[i];
            rd->callsites[i].text = describe(&sites[i]);
            rd->callsites[i].fn_begin = sites[i].a2l.fn_begin, rd->callsites[i].fn_end = sites[i].a2l.fn_end;
        }
        rd->ncallsites = (uint32_t)n;
    }
    free(queries);
    free(by_obj);
    free(sites);
}

/* Every distinct non-zero ENTER.aux and call-path node pc of rd, sorted; NULL (and *n 0) if none. */
static uint64_t *collect_pcs(const st_rankdata_t *rd, size_t *n)
{
    size_t k = rd->ncpnodes;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            k += rd->threads[t].events[i].kind == ST_EV_ENTER && rd->threads[t].events[i].aux != 0;
    uint64_t *pcs = k ? malloc(k * sizeof *pcs) : NULL;
    *n = 0;
    if (!pcs)
        return NULL;
    k = 0;
    for (uint32_t i = 0; i < rd->ncpnodes; i++)
        pcs[k++] = rd->cpnodes[i].pc;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            if (rd->threads[t].events[i].kind == ST_EV_ENTER && rd->threads[t].events[i].aux != 0)
                pcs[k++] = rd->threads[t].events[i].aux;
    qsort(pcs, k, sizeof *pcs, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || pcs[u - 1] != pcs[i])
            pcs[u++] = pcs[i];
    *n = u;
    return pcs;
}

void st_callsite_resolve(st_rankdata_t *rd)
{
    size_t n;
    uint64_t *pcs = collect_pcs(rd, &n);
    if (n)
        describe_all(rd, pcs, n);
    free(pcs);
}
