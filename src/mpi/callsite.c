/* callsite.c — capturing and resolving call sites (see callsite.h). */
#include "callsite.h"

#include <dlfcn.h>
#include <errno.h> /* program_invocation_name */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../record/unwind.h"
#include "../model/symbols.h"
#include "../util/addr2line.h"
#include "../util/log.h"
#include "st_mpi.h"
#include "../util/msort.h"

int st_mpi_callsite_on;

uint64_t st_mpi_callsite(void) { return st_unwind_callsite(); }

/* ---- resolution at finalize ---------------------------------------------------------- */

/* One call site being resolved: where it lies and, once known, what the symbolizer says of it. */
typedef struct site {
    uint64_t pc;
    const char *obj; /* object file (points into dladdr's name or exe); NULL: no object */
    st_a2l_t a2l;
} site_t;

static void locate(site_t *s, const char *exe)
{
    uintptr_t at = (uintptr_t)s->pc - 1; /* inside the call instruction, not after it */
    Dl_info info;
    if (!dladdr((void *)at, &info) || !info.dli_fname)
        return;
    /* the main program: glibc names it by argv[0] ("" for some loaders), a bare name when the launcher
     * found it on PATH and relative to a directory the program may have left: /proc/self/exe instead */
    int main_program = !*info.dli_fname || !strcmp(info.dli_fname, program_invocation_name);
    s->obj = main_program ? exe : info.dli_fname;
    s->a2l.rel = st_object_fixed(s->obj) ? at : at - (uintptr_t)info.dli_fbase;
}

/* Resolves sites[0..n) with one symbolizer run per object. */
static void symbolize(site_t *sites, size_t n)
{
    st_a2l_t **q = calloc(n + 1, sizeof *q);
    const char **obj = calloc(n + 1, sizeof *obj);
    for (size_t i = 0; q && obj && i < n; i++)
        q[i] = &sites[i].a2l, obj[i] = sites[i].obj;
    if (q && obj)
        st_addr2line_objects(q, obj, n);
    free(obj), free(q);
}

/* The texts of sites[0..n) into rd->callsites: a site's frames (model/symbols.h: st_callsite_from_a2l), else its address. */
static void put_sites(st_rankdata_t *rd, const site_t *sites, size_t n)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < n; i++)
        total += (sites[i].a2l.nfr > 1 ? sites[i].a2l.nfr : 1) + 1;
    if (!(rd->callsites = calloc(total + 1, sizeof *rd->callsites)))
        return;
    for (size_t i = 0; i < n; i++) {
        if (sites[i].obj) {
            k += st_callsite_from_a2l(&sites[i].a2l, sites[i].obj, sites[i].pc, &rd->callsites[k]);
            continue;
        }
        char text[24];
        snprintf(text, sizeof text, "0x%llx", (unsigned long long)sites[i].pc);
        if ((rd->callsites[k].text = strdup(text)))
            rd->callsites[k++].pc = sites[i].pc;
    }
    rd->ncallsites = (uint32_t)k;
}

/* Texts of the sorted distinct pcs[0..n) into rd->callsites. */
static void describe_all(st_rankdata_t *rd, const uint64_t *pcs, size_t n)
{
    site_t *sites = calloc(n, sizeof *sites);
    if (!sites)
        return;
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    for (size_t i = 0; i < n; i++) {
        sites[i].pc = pcs[i];
        locate(&sites[i], exe);
    }
    symbolize(sites, n);
    put_sites(rd, sites, n);
    st_cpcallee_t *callees = calloc(n, sizeof *callees);
    size_t ncallees = 0;
    for (size_t i = 0; callees && i < n; i++)
        ncallees += sites[i].obj && st_cpcallee_from_a2l(&sites[i].a2l, sites[i].pc, &callees[ncallees]) == 0;
    for (size_t i = 0; i < n; i++)
        st_a2l_clear(&sites[i].a2l);
    free(sites);
    if (st_callpath_inline(rd, callees, ncallees) != 0)
        st_log_error("out of memory making inlined frames call-path nodes; the archive shows them in their callers");
    free(callees);
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
    qsort(pcs, k, sizeof *pcs, st_cmp_u64);
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
