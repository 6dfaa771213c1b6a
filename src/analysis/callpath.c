/*
 * callpath.c — the analysis's view of call paths (SYNCTRACE_CALLPATH): every frame of every
 * rank's call tree as a function region, so the call tree reads main -> solve -> exchange ->
 * MPI_Recv. Frames of one function share one region (by name, across ranks), so paths that
 * differ only in the line a function was called from merge into one cnode.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fnv.h"

/* ---- function names (interned) ------------------------------------------------------------------ */

typedef struct names {
    uint32_t *slot; /* index + 1, 0 empty */
    uint32_t  nslot;
} names_t;

/* The function region of name (added to res->funcs if new); UINT32_MAX when out of memory. */
static uint32_t intern(names_t *nm, st_an_result_t *res, const char *name)
{
    if (2 * (res->nfuncs + 1) > nm->nslot) {
        uint32_t nslot = nm->nslot ? 2 * nm->nslot : 256;
        uint32_t *slot = calloc(nslot, sizeof *slot);
        if (!slot)
            return UINT32_MAX;
        for (uint32_t k = 0; k < res->nfuncs; k++) {
            uint32_t s = (uint32_t)st_fnv1a_str(res->funcs[k]) & (nslot - 1);
            while (slot[s])
                s = (s + 1) & (nslot - 1);
            slot[s] = k + 1;
        }
        free(nm->slot);
        nm->slot = slot, nm->nslot = nslot;
    }
    uint32_t s = (uint32_t)st_fnv1a_str(name) & (nm->nslot - 1);
    for (; nm->slot[s]; s = (s + 1) & (nm->nslot - 1))
        if (!strcmp(res->funcs[nm->slot[s] - 1], name))
            return ST_AN_FUNC_REGION(nm->slot[s] - 1);
    char **v = realloc(res->funcs, sizeof *v * (res->nfuncs + 1));
    if (!v)
        return UINT32_MAX;
    res->funcs = v;
    if (!(v[res->nfuncs] = strdup(name)))
        return UINT32_MAX;
    nm->slot[s] = ++res->nfuncs;
    return ST_AN_FUNC_REGION(res->nfuncs - 1);
}

/* ---- frames ------------------------------------------------------------------------------------- */

static const st_rel_proc_t *sort_proc; /* qsort has no context argument; single-threaded (analysis.h) */

static int cmp_site(const void *a, const void *b)
{
    uint64_t x = sort_proc->callsites[*(const uint32_t *)a].pc, y = sort_proc->callsites[*(const uint32_t *)b].pc;
    return (x > y) - (x < y);
}

/* Text of frame pc among p's call sites (by[]: their indices sorted by pc), NULL if not there. */
static const char *text_of(const st_rel_proc_t *p, const uint32_t *by, uint64_t pc)
{
    size_t lo = 0, hi = p->ncallsites;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const st_callsite_t *cs = &p->callsites[by[mid]];
        if (cs->pc == pc)
            return cs->text ? cs->text : "?";
        if (cs->pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int rank_frames(an_paths_t *ap, names_t *nm, st_an_result_t *res, const st_rel_proc_t *p, int32_t r)
{
    uint32_t n = p->ncpnodes;
    uint32_t *by = malloc(sizeof(uint32_t) * (p->ncallsites + 1));
    if (!by || !(ap->func[r] = malloc(sizeof(uint32_t) * n)) || !(ap->depth[r] = malloc(sizeof(uint32_t) * n)) ||
        !(ap->memo[r] = malloc(sizeof(uint64_t) * n))) {
        free(by);
        return -1;
    }
    for (uint32_t i = 0; i < p->ncallsites; i++)
        by[i] = i;
    sort_proc = p;
    qsort(by, p->ncallsites, sizeof *by, cmp_site);
    for (uint32_t i = 0; i < n; i++) {
        const st_cpnode_t *c = &p->cpnodes[i];
        char file[8], fallback[32];
        uint32_t line;
        const char *text = text_of(p, by, c->pc);
        if (!text) {
            snprintf(fallback, sizeof fallback, "0x%llx", (unsigned long long)c->pc);
            text = fallback;
        }
        char *func = malloc(strlen(text) + 1); /* a name of any length, whole */
        if (func)
            st_callpath_split(text, func, strlen(text) + 1, file, sizeof file, &line);
        if (!func || (ap->func[r][i] = intern(nm, res, func)) == UINT32_MAX) {
            free(func);
            free(by);
            return -1;
        }
        free(func);
        uint32_t up = c->parent < i ? c->parent : ST_CP_NONE; /* a parent precedes its children */
        ap->depth[r][i] = up == ST_CP_NONE ? 1 : ap->depth[r][up] + 1;
        ap->maxdepth = ap->depth[r][i] > ap->maxdepth ? ap->depth[r][i] : ap->maxdepth;
        ap->memo[r][i] = UINT64_MAX;
    }
    free(by);
    return 0;
}

int an_paths_build(an_paths_t *ap, const st_rel_input_t *in, st_an_result_t *res)
{
    memset(ap, 0, sizeof *ap);
    int any = 0;
    for (int32_t r = 0; in->procs && r < in->nranks; r++)
        any |= in->procs[r].ncpnodes > 0;
    if (!any)
        return 0;
    names_t nm = { 0 };
    ap->nranks = in->nranks;
    ap->procs = in->procs;
    int rc = (ap->func = calloc((size_t)in->nranks, sizeof *ap->func)) && (ap->depth = calloc((size_t)in->nranks, sizeof *ap->depth)) &&
             (ap->memo = calloc((size_t)in->nranks, sizeof *ap->memo)) ? 0 : -1;
    for (int32_t r = 0; rc == 0 && r < in->nranks; r++)
        if (in->procs[r].ncpnodes)
            rc = rank_frames(ap, &nm, res, &in->procs[r], r);
    if (rc == 0 && !(ap->chain = malloc(sizeof(uint32_t) * (ap->maxdepth + 1))))
        rc = -1;
    free(nm.slot);
    return rc;
}

void an_paths_free(an_paths_t *ap)
{
    for (int32_t r = 0; r < ap->nranks; r++) {
        free(ap->func ? ap->func[r] : NULL);
        free(ap->depth ? ap->depth[r] : NULL);
        free(ap->memo ? ap->memo[r] : NULL);
    }
    free(ap->func), free(ap->depth), free(ap->memo), free(ap->chain);
    memset(ap, 0, sizeof *ap);
}

uint32_t an_paths_below(const an_paths_t *ap, int32_t rank, uint32_t node, uint32_t outer, uint32_t *chain)
{
    if (rank < 0 || rank >= ap->nranks || !ap->func[rank] || node >= ap->procs[rank].ncpnodes)
        return 0;
    const st_cpnode_t *cp = ap->procs[rank].cpnodes;
    const uint32_t *depth = ap->depth[rank];
    uint32_t n = ap->procs[rank].ncpnodes;
    if (outer >= n)
        outer = ST_CP_NONE;
    /* the deepest common frame: lift the deeper of the two until they meet */
    uint32_t a = node, b = outer;
    while (b != ST_CP_NONE && depth[b] > depth[a])
        b = cp[b].parent;
    uint32_t k = 0;
    while (a != ST_CP_NONE && (b == ST_CP_NONE || depth[a] > depth[b]))
        chain[k++] = a, a = cp[a].parent;
    while (a != b) { /* same depth, different frames */
        chain[k++] = a, a = cp[a].parent;
        b = cp[b].parent;
    }
    return k;
}
