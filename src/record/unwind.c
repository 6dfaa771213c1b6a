/* unwind.c — application stacks, call-site and call-path capture (see unwind.h). */
#include "unwind.h"

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

int st_callpath_on;

/* ---- skipped objects ----------------------------------------------------------------- */

/* Address ranges of the executable segments of skipped objects; tool: synctrace or MPI. */
#define MAX_SKIP 32
static struct { uintptr_t lo, hi; int tool; } skip[MAX_SKIP];
static int nskip;
static pthread_once_t skip_once = PTHREAD_ONCE_INIT;

static int has_prefix(const char *base, const char *const *names)
{
    for (; *names; names++)
        if (!strncmp(base, *names, strlen(*names)))
            return 1;
    return 0;
}

/* 2: tool object, 1: runtime object (skipped in call paths only), 0: application. */
static int object_class(const char *name)
{
    static const char *const tool[] = { "libsynctrace", "libmpi", "libpmpi", NULL };
    static const char *const runtime[] = { "libomp", "libgomp", "libiomp", "libc.so", "libc-", "ld-linux",
                                           "libpthread", NULL };
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return has_prefix(base, tool) ? 2 : has_prefix(base, runtime);
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    int cls = info->dlpi_name ? object_class(info->dlpi_name) : 0;
    if (!cls)
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nskip < MAX_SKIP; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            skip[nskip].lo = info->dlpi_addr + ph->p_vaddr;
            skip[nskip].hi = skip[nskip].lo + ph->p_memsz;
            skip[nskip].tool = cls == 2;
            nskip++;
        }
    }
    return 0;
}

/* Once per process: the skipped ranges; libunwind's caches per thread, so unwinds of different
 * threads do not share (and lock) one cache when the fast trace falls back to stepping. */
static void find_ranges(void)
{
    dl_iterate_phdr(add_ranges, NULL);
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

/* 2: pc lies in a tool object, 1: in a runtime object, 0: application code. */
static int skipped(uintptr_t pc)
{
    for (int i = 0; i < nskip; i++)
        if (pc >= skip[i].lo && pc < skip[i].hi)
            return skip[i].tool ? 2 : 1;
    return 0;
}

uint64_t st_unwind_callsite(void)
{
    void *frames[12];
    pthread_once(&skip_once, find_ranges);
    int n = unw_backtrace(frames, 12);
    for (int i = 1; i < n; i++)
        if (skipped((uintptr_t)frames[i]) != 2)
            return (uint64_t)(uintptr_t)frames[i];
    return 0;
}

/* ---- the call tree and its path cache --------------------------------------------------- */

#define MAX_NODES  ST_CALLPATH_MAX_NODES
#define PATH_SLOTS (2 * MAX_NODES)  /* paths, at most half full: probes stay short */
#define CHILD_SLOTS (2 * MAX_NODES) /* (parent, pc) -> node, for adding paths (under the lock) */

static st_cpnode_t nodes[MAX_NODES];      /* immutable once published through paths[] */
static uint32_t nnodes;                   /* written under the lock; read without it by st_callpath_nodes */
static _Atomic uint64_t paths[PATH_SLOTS];/* (hash high half << 32) | (leaf node + 1); 0: empty */
static uint32_t npaths;                   /* under the lock */
static uint32_t children[CHILD_SLOTS];    /* node + 1, 0: empty; under the lock */
static _Atomic uint64_t dropped;          /* captures that found the arrays full */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* Path app[0..m) (innermost first) is the chain from node leaf up to an outermost frame. */
static int same_path(uint32_t leaf, const uint64_t *app, int m)
{
    uint32_t x = leaf;
    for (int k = 0; k < m; k++, x = nodes[x].parent)
        if (x == ST_CP_NONE || nodes[x].pc != app[k])
            return 0;
    return x == ST_CP_NONE;
}

/* The leaf of a cached path, ST_CP_NONE if not cached. Lock-free. */
static uint32_t lookup(const uint64_t *app, int m, uint64_t h)
{
    for (uint32_t s = (uint32_t)h & (PATH_SLOTS - 1);; s = (s + 1) & (PATH_SLOTS - 1)) {
        uint64_t v = atomic_load_explicit(&paths[s], memory_order_acquire);
        if (!v)
            return ST_CP_NONE;
        if (v >> 32 == h >> 32 && same_path((uint32_t)v - 1, app, m))
            return (uint32_t)v - 1;
    }
}

/* The child of parent for return address pc, created if new; ST_CP_NONE when full. Under the lock. */
static uint32_t child(uint32_t parent, uint64_t pc)
{
    uint32_t s = (uint32_t)mix(parent, pc) & (CHILD_SLOTS - 1);
    for (; children[s]; s = (s + 1) & (CHILD_SLOTS - 1)) {
        const st_cpnode_t *c = &nodes[children[s] - 1];
        if (c->parent == parent && c->pc == pc)
            return children[s] - 1;
    }
    if (nnodes == MAX_NODES)
        return ST_CP_NONE;
    nodes[nnodes] = (st_cpnode_t){ .parent = parent, .pc = pc };
    __atomic_store_n(&nnodes, nnodes + 1, __ATOMIC_RELEASE); /* the node is complete before it counts */
    children[s] = nnodes;
    return nnodes - 1;
}

/* Adds path app[0..m) to the tree and the cache (slow path, once per distinct path). */
static uint32_t insert(const uint64_t *app, int m, uint64_t h)
{
    pthread_mutex_lock(&lock);
    uint32_t leaf = lookup(app, m, h); /* another thread may have added it meanwhile */
    if (leaf == ST_CP_NONE) {
        int k = m - 1;
        for (; k >= 0; k--) /* from the outermost frame down */
            if ((leaf = child(leaf, app[k])) == ST_CP_NONE)
                break;
        if (k >= 0 || npaths == PATH_SLOTS / 2) {
            /* full: a path whose nodes all exist is still returned, but not cached */
            atomic_fetch_add_explicit(&dropped, leaf == ST_CP_NONE, memory_order_relaxed);
        } else {
            uint32_t s = (uint32_t)h & (PATH_SLOTS - 1);
            while (atomic_load_explicit(&paths[s], memory_order_relaxed))
                s = (s + 1) & (PATH_SLOTS - 1);
            atomic_store_explicit(&paths[s], (h >> 32 << 32) | (leaf + 1), memory_order_release);
            npaths++;
        }
    }
    pthread_mutex_unlock(&lock);
    return leaf;
}

/*
 * A stack deeper than frames[0..ST_CALLPATH_DEPTH) holds: its outermost ST_CALLPATH_ROOT return
 * addresses replace the last ones there (a walk of the whole stack, keeping the last few in a ring).
 * Returns 1 when the stack's end was reached, 0 when it is deeper than anyone walks.
 */
static int __attribute__((noinline)) keep_root(void **frames)
{
    enum { OUT = ST_CALLPATH_ROOT, LIMIT = 1 << 20 };
    void *ring[OUT];
    unw_context_t ctx;
    unw_cursor_t cur;
    if (unw_getcontext(&ctx) || unw_init_local(&cur, &ctx))
        return 0;
    long n = 0;
    int more = 1;
    for (; more && n < LIMIT; n++) {
        unw_word_t ip = 0;
        unw_get_reg(&cur, UNW_REG_IP, &ip);
        ring[n % OUT] = (void *)ip;
        more = unw_step(&cur) > 0;
    }
    if (n <= ST_CALLPATH_DEPTH) /* not deeper after all (this walk adds keep_root's own frame) */
        return !more;
    for (int k = 0; k < OUT; k++) /* oldest first: the ring's next slot */
        frames[ST_CALLPATH_DEPTH - OUT + k] = ring[(n + k) % OUT];
    return !more;
}

uint32_t st_callpath_capture(void)
{
    void *frames[ST_CALLPATH_DEPTH];
    uint64_t app[ST_CALLPATH_DEPTH];
    pthread_once(&skip_once, find_ranges);
    int n = unw_backtrace(frames, ST_CALLPATH_DEPTH), m = 0;
    int whole = n < ST_CALLPATH_DEPTH || keep_root(frames); /* rare: deep recursion */
    /* the program's entry point (_start, below __libc_start_main) is not one of its functions */
    int outer = whole && n >= 2 && !skipped((uintptr_t)frames[n - 1]) &&
                skipped((uintptr_t)frames[n - 2]) == 1 ? n - 1 : n;
    uint64_t h = 0x84222325cbf29ce4ull;
    int last = 0; /* the outermost application frame */
    for (int i = 1; i < outer; i++) /* frame 0 is this function */
        if (!skipped((uintptr_t)frames[i])) {
            app[m] = (uint64_t)(uintptr_t)frames[i];
            h = mix(h, app[m++]);
            last = i;
        }
    if (!m)
        return ST_CP_NONE;
    /* libc's start routine called it: __libc_start_call_main (and __libc_start_main) or, before
     * glibc 2.34, __libc_start_main alone lie between it and _start; exit handlers and destructors
     * have exit and more below them. It is main, or main tail-called it (callpath.h: ST_CP_MAIN). */
    if (outer < n && outer - last <= 3)
        h = mix(h, app[m++] = ST_CP_MAIN);
    uint32_t leaf = lookup(app, m, h);
    return leaf != ST_CP_NONE ? leaf : insert(app, m, h);
}

const st_cpnode_t *st_callpath_nodes(uint32_t *n)
{
    *n = __atomic_load_n(&nnodes, __ATOMIC_ACQUIRE);
    return nodes;
}

uint64_t st_callpath_pc(uint32_t n) { return n < MAX_NODES ? nodes[n].pc : 0; }

int st_callpath_collect(st_rankdata_t *rd)
{
    pthread_mutex_lock(&lock);
    uint32_t n = nnodes;
    pthread_mutex_unlock(&lock);
    rd->cpnodes = n ? malloc(sizeof *rd->cpnodes * n) : NULL;
    if (n && !rd->cpnodes) {
        rd->ncpnodes = 0;
        return -1;
    }
    if (n)
        memcpy(rd->cpnodes, nodes, sizeof *rd->cpnodes * n);
    rd->ncpnodes = n;
    st_rankdata_prop(rd, "CALLPATH_NODES", "%u", n);
    uint64_t lost = atomic_load(&dropped);
    if (lost)
        st_rankdata_prop(rd, "CALLPATH_DROPPED", "%llu", (unsigned long long)lost);
    return 0;
}
