/* callsite.c — capturing and resolving call sites (see callsite.h). */
#include "callsite.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../record/unwind.h"
#include "st_mpi.h"

int st_mpi_callsite_on;

uint64_t st_mpi_callsite(void) { return st_unwind_callsite(); }

/* ---- resolution at finalize ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ET_EXEC objects are addressed absolutely; shared objects and PIEs relative to their base. */
static int is_fixed_address(const char *path)
{
    unsigned char hdr[18];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(hdr, 1, sizeof hdr, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof hdr && hdr[16] == 2 /* ET_EXEC (little endian) */;
}

/* One call site being resolved: where it lies and, once known, what addr2line says of it. */
typedef struct site {
    uint64_t pc;
    const char *obj; /* object file (points into obj_path or exe); NULL: no object */
    uintptr_t at, rel; /* address inside the call; relative to the object where it is not fixed */
    Dl_info info;
    char func[256], loc[512];
} site_t;

/* Addresses per addr2line run: long enough to pay its start-up (DWARF parsing) once, short for the command line. */
#define A2L_BATCH 256

/*
 * Fills func/loc of sites[0..n) (all in the object obj) with one addr2line process per A2L_BATCH addresses;
 * what it cannot tell stays empty. One run per object instead of one per address: the DWARF of a large code is
 * parsed once (SYNCTRACE_CALLSITE=1 on LULESH added about 10 s at finalize with one run per address).
 */
static void addr2line_batch(const char *obj, site_t **sites, size_t n)
{
    if (strchr(obj, '\'') || strlen(obj) > 4000)
        return;
    char *cmd = malloc(4200 + A2L_BATCH * 20);
    if (!cmd)
        return;
    for (size_t b = 0; b < n; b += A2L_BATCH) {
        size_t m = n - b < A2L_BATCH ? n - b : A2L_BATCH;
        int len = snprintf(cmd, 4200, "addr2line -f -C -e '%s'", obj);
        for (size_t i = 0; i < m; i++)
            len += snprintf(cmd + len, 20, " 0x%lx", (unsigned long)sites[b + i]->rel);
        snprintf(cmd + len, 20, " 2>/dev/null");
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        for (size_t i = 0; i < m; i++) {
            site_t *s = sites[b + i];
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

static void locate(site_t *s, const char *exe)
{
    s->at = (uintptr_t)s->pc - 1; /* inside the call instruction, not after it */
    if (!dladdr((void *)s->at, &s->info) || !s->info.dli_fname)
        return;
    s->obj = *s->info.dli_fname ? s->info.dli_fname : exe; /* "": the main program */
    s->rel = is_fixed_address(s->obj) ? s->at : s->at - (uintptr_t)s->info.dli_fbase;
}

static char *describe(const site_t *s)
{
    char out[1700];
    const char *obj = s->obj, *base = obj && strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;
    if (!obj) {
        snprintf(out, sizeof out, "0x%lx", (unsigned long)s->pc);
    } else if (s->func[0] && strcmp(s->func, "??") != 0) {
        const char *slash = strrchr(s->loc, '/');
        if (s->loc[0] && strncmp(s->loc, "??", 2) != 0)
            snprintf(out, sizeof out, "%s (%s)", s->func, slash ? slash + 1 : s->loc);
        else
            snprintf(out, sizeof out, "%s", s->func);
    } else if (s->info.dli_sname) {
        snprintf(out, sizeof out, "%s+0x%lx (%s)", s->info.dli_sname,
                 (unsigned long)(s->at - (uintptr_t)s->info.dli_saddr), base);
    } else {
        snprintf(out, sizeof out, "%s+0x%lx", base, (unsigned long)s->rel);
    }
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
    rd->callsites = sites && by_obj ? calloc(n, sizeof *rd->callsites) : NULL;
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
            addr2line_batch(by_obj[i]->obj, by_obj + i, j - i);
        }
        for (size_t i = 0; i < n; i++) {
            rd->callsites[i].pc = pcs[i];
            rd->callsites[i].text = describe(&sites[i]);
        }
        rd->ncallsites = (uint32_t)n;
    }
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
