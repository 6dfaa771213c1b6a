/* callsite.c — capturing and resolving call sites (see callsite.h). */
#include "callsite.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "st_mpi.h"

int st_mpi_callsite_on;

/* Address ranges of the objects whose frames are skipped: synctrace and the MPI libraries. */
#define MAX_SKIP 16
static struct { uintptr_t lo, hi; } skip[MAX_SKIP];
static int nskip;
static pthread_once_t skip_once = PTHREAD_ONCE_INIT;

static int is_tool_object(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return !strncmp(base, "libsynctrace", 12) || !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7);
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    if (!info->dlpi_name || !is_tool_object(info->dlpi_name))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nskip < MAX_SKIP; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            skip[nskip].lo = info->dlpi_addr + ph->p_vaddr;
            skip[nskip].hi = skip[nskip].lo + ph->p_memsz;
            nskip++;
        }
    }
    return 0;
}

static void find_ranges(void) { dl_iterate_phdr(add_ranges, NULL); }

static int skipped(uintptr_t pc)
{
    for (int i = 0; i < nskip; i++)
        if (pc >= skip[i].lo && pc < skip[i].hi)
            return 1;
    return 0;
}

uint64_t st_mpi_callsite(void)
{
    void *frames[12];
    pthread_once(&skip_once, find_ranges);
    int n = unw_backtrace(frames, 12);
    for (int i = 1; i < n; i++)
        if (!skipped((uintptr_t)frames[i]))
            return (uint64_t)(uintptr_t)frames[i];
    return 0;
}

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

/* file:line and function from addr2line, or 0 if not available. */
static int addr2line(const char *obj, uintptr_t addr, char *func, size_t flen, char *loc, size_t llen)
{
    char cmd[4300];
    if (strchr(obj, '\'') || strlen(obj) > 4000)
        return 0;
    snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' 0x%lx 2>/dev/null", obj, (unsigned long)addr);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    int ok = fgets(func, (int)flen, p) && fgets(loc, (int)llen, p);
    pclose(p);
    if (!ok)
        return 0;
    func[strcspn(func, "\n")] = 0;
    loc[strcspn(loc, "\n")] = 0;
    /* Drop " (discriminator N)" and the directory part. */
    char *d = strstr(loc, " (discriminator");
    if (d)
        *d = 0;
    return 1;
}

static char *describe(uint64_t pc)
{
    Dl_info info;
    char func[512] = "", loc[1024] = "", out[1700];
    uintptr_t at = (uintptr_t)pc - 1; /* inside the call instruction, not after it */
    if (!dladdr((void *)at, &info) || !info.dli_fname) {
        snprintf(out, sizeof out, "0x%lx", (unsigned long)pc);
        return strdup(out);
    }
    const char *obj = info.dli_fname;
    char exe[4096];
    if (!*obj) { /* the main program */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        obj = exe;
    }
    uintptr_t rel = is_fixed_address(obj) ? at : at - (uintptr_t)info.dli_fbase;
    if (addr2line(obj, rel, func, sizeof func, loc, sizeof loc) && strcmp(func, "??") != 0) {
        const char *slash = strrchr(loc, '/');
        if (strncmp(loc, "??", 2) != 0)
            snprintf(out, sizeof out, "%s (%s)", func, slash ? slash + 1 : loc);
        else
            snprintf(out, sizeof out, "%s", func);
    } else if (info.dli_sname) {
        snprintf(out, sizeof out, "%s+0x%lx (%s)", info.dli_sname, (unsigned long)(at - (uintptr_t)info.dli_saddr),
                 strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj);
    } else {
        snprintf(out, sizeof out, "%s+0x%lx", strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj, (unsigned long)rel);
    }
    return strdup(out);
}

void st_callsite_resolve(st_rankdata_t *rd)
{
    size_t n = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            n += rd->threads[t].events[i].kind == ST_EV_ENTER && rd->threads[t].events[i].aux != 0;
    if (!n)
        return;
    uint64_t *pcs = malloc(n * sizeof *pcs);
    if (!pcs)
        return;
    size_t k = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            if (rd->threads[t].events[i].kind == ST_EV_ENTER && rd->threads[t].events[i].aux != 0)
                pcs[k++] = rd->threads[t].events[i].aux;
    qsort(pcs, n, sizeof *pcs, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || pcs[u - 1] != pcs[i])
            pcs[u++] = pcs[i];
    rd->callsites = calloc(u, sizeof *rd->callsites);
    if (rd->callsites) {
        for (size_t i = 0; i < u; i++) {
            rd->callsites[i].pc = pcs[i];
            rd->callsites[i].text = describe(pcs[i]);
        }
        rd->ncallsites = (uint32_t)u;
    }
    free(pcs);
}
