/*
 * globaldefs.c — st_otf2_write_global(): the archive's global definitions.
 *
 * Written in dependency order, each String right before its first use:
 * ClockProperties; the call-site Strings (ids fixed by the numbering); Paradigms,
 * Attributes, Regions; the call paths' function Regions, SourceCodeLocations and CallingContexts
 * (each on first use, parents first); the system tree (machine -> node -> one LocationGroup per
 * rank -> one Location per thread, with exact event counts) and per-rank
 * properties; MPI: one COMM_LOCATIONS group (index = world rank, member = the
 * rank's master location), COMM_GROUP groups (deduplicated), MPI_COMM_SELF as a
 * COMM_SELF group, Comm/InterComm definitions parents first; OpenMP: one
 * COMM_LOCATIONS group of all locations and a Comm per thread team; finally the
 * archive properties SYNCTRACE::<KEY> (rank 0's props, else the lowest rank's) and SYNCTRACE::INCOMPLETE.
 */
#include "writer_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/region.h"
#include "../util/fnv.h"
#include "../util/log.h"

typedef struct group {
    uint64_t  hash;
    uint32_t  n;
    uint8_t   paradigm;
    uint64_t *members;
} group_t;

typedef struct gdefs {
    OTF2_GlobalDefWriter *w;
    OTF2_Archive         *a;
    st_otf2_nb_t        v;
    st_rankdata_t       **byrank;  /* [world] */
    /* strings beyond the call sites: id = first_str + index */
    st_u64map_t             strmap;  /* FNV hash -> id */
    char                **strs;
    uint32_t              nstrs, capstrs, first_str;
    /* groups */
    st_u64map_t             groupmap; /* hash -> index */
    group_t              *groups;
    uint32_t              ngroups;
    int                   err;      /* first st_otf2_status_t */
} gdefs_t;

static void fail(gdefs_t *g, int err)
{
    if (!g->err)
        g->err = err;
}

static void check(gdefs_t *g, OTF2_ErrorCode rc, const char *what)
{
    if (!g->err && st_otf2_failed(rc, what))
        g->err = ST_OTF2_ERR_OTF2;
}

/* ---- strings ------------------------------------------------------------------------------ */

static OTF2_StringRef str(gdefs_t *g, const char *s)
{
    uint64_t h = st_fnv1a_str(s), id, other;
    if (st_u64map_get(&g->strmap, h, &id) && strcmp(g->strs[id - g->first_str], s) == 0)
        return (OTF2_StringRef)id;
    if (g->nstrs == g->capstrs) {
        uint32_t cap = g->capstrs ? g->capstrs * 2 : 64;
        char **n = realloc(g->strs, cap * sizeof *n);
        if (!n)
            return fail(g, ST_OTF2_ERR_NOMEM), 0;
        g->strs = n;
        g->capstrs = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return fail(g, ST_OTF2_ERR_NOMEM), 0;
    id = g->first_str + g->nstrs;
    g->strs[g->nstrs++] = copy;
    /* On a hash collision the first string keeps the slot; the other is just not shared. */
    if (!st_u64map_get(&g->strmap, h, &other) && st_u64map_put(&g->strmap, h, id) != 0)
        fail(g, ST_OTF2_ERR_NOMEM);
    check(g, OTF2_GlobalDefWriter_WriteString(g->w, (OTF2_StringRef)id, s), "writing a string");
    return (OTF2_StringRef)id;
}

static OTF2_StringRef strf(gdefs_t *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static OTF2_StringRef strf(gdefs_t *g, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return str(g, buf);
}

static void callsite_strings(gdefs_t *g)
{
    uint64_t id = 0;
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        if (g->v.cs_base[r] != id) {
            st_log_error("OTF2 archive: call-site numbering does not match rank %u's definitions", r);
            fail(g, ST_OTF2_ERR_DATA);
            return;
        }
        for (uint32_t i = 0; i < rd->ncallsites; i++, id++)
            check(g, OTF2_GlobalDefWriter_WriteString(g->w, (OTF2_StringRef)id,
                                                      rd->callsites[i].text ? rd->callsites[i].text : "?"),
                  "writing a call-site string");
    }
    if (!g->err && id != g->v.ncallsites)
        fail(g, ST_OTF2_ERR_DATA);
    g->first_str = (uint32_t)id;
}

/* ---- clock, paradigms, attributes, regions -------------------------------------------------- */

static void clock_props(gdefs_t *g)
{
    uint64_t lo = UINT64_MAX, hi = 0, res = 0;
    for (uint32_t r = 0; r < g->v.world; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        uint64_t n = st_rankdata_nevents(rd);
        if (rd->timer_resolution && !res)
            res = rd->timer_resolution;
        else if (rd->timer_resolution && rd->timer_resolution != res)
            st_log_warn("OTF2 archive: rank %u has timer resolution %llu, rank 0 %llu; using the latter", r,
                        (unsigned long long)rd->timer_resolution, (unsigned long long)res);
        if (n == 0)
            continue; /* no events: its t_begin/t_end mean nothing */
        lo = rd->t_begin < lo ? rd->t_begin : lo;
        hi = rd->t_end > hi ? rd->t_end : hi;
    }
    if (lo == UINT64_MAX)
        lo = hi = 0;
    check(g, OTF2_GlobalDefWriter_WriteClockProperties(g->w, res ? res : 1000000000u, lo, hi - lo,
                                                       OTF2_UNDEFINED_TIMESTAMP),
          "writing the clock properties");
}

static OTF2_Paradigm paradigm_of(uint8_t p)
{
    switch (p) {
    case ST_PARADIGM_MPI: return OTF2_PARADIGM_MPI;
    case ST_PARADIGM_OPENMP: return OTF2_PARADIGM_OPENMP;
    case ST_PARADIGM_USER: return OTF2_PARADIGM_USER;
    default: return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    }
}

static void paradigms(gdefs_t *g)
{
    static const struct { OTF2_Paradigm p; const char *name; OTF2_ParadigmClass cls; } list[] = {
        { OTF2_PARADIGM_MEASUREMENT_SYSTEM, "Measurement", OTF2_PARADIGM_CLASS_PROCESS },
        { OTF2_PARADIGM_USER, "User", OTF2_PARADIGM_CLASS_PROCESS },
        { OTF2_PARADIGM_MPI, "MPI", OTF2_PARADIGM_CLASS_PROCESS },
        { OTF2_PARADIGM_OPENMP, "OpenMP", OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN },
    };
    for (size_t i = 0; i < sizeof list / sizeof *list; i++)
        check(g, OTF2_GlobalDefWriter_WriteParadigm(g->w, list[i].p, str(g, list[i].name), list[i].cls),
              "writing a paradigm");
}

static void attributes(gdefs_t *g)
{
    for (unsigned a = 0; a < ST_ATTR__COUNT; a++) {
        const st_otf2_attr_t *at = st_otf2_attr(a);
        check(g, OTF2_GlobalDefWriter_WriteAttribute(g->w, a, str(g, at->name), str(g, at->doc), at->type),
              "writing an attribute");
    }
}

static void regions(gdefs_t *g)
{
    OTF2_StringRef empty = str(g, "");
    for (st_region_t r = 0; r < ST_REGION__COUNT && !g->err; r++) {
        const st_region_info_t *ri = st_region_info(r);
        OTF2_StringRef name = str(g, ri->name);
        check(g, OTF2_GlobalDefWriter_WriteRegion(g->w, r, name, name, empty, (OTF2_RegionRole)ri->otf2_role,
                                                  paradigm_of(ri->paradigm), OTF2_REGION_FLAG_NONE, empty, 0, 0),
              "writing a region");
    }
}

/* ---- call paths ------------------------------------------------------------------------------ */

/* Call site pc of rd (callsites sorted by pc: st_otf2_prepare), NULL when unknown. */
static const st_callsite_t *frame_site(const st_rankdata_t *rd, uint64_t pc)
{
    size_t lo = 0, hi = rd->callsites ? rd->ncallsites : 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rd->callsites[mid].pc == pc)
            return &rd->callsites[mid];
        if (rd->callsites[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The Region of function name (a String id), defined on first use; ids after the MPI/OpenMP regions.
 * lines: where the function begins and ends (begin << 32 | end, 0: unknown). */
static uint32_t function_region(gdefs_t *g, st_u64map_t *fn, OTF2_StringRef name, OTF2_StringRef file,
                                uint64_t lines)
{
    uint64_t id;
    if (st_u64map_get(fn, name, &id))
        return (uint32_t)id;
    id = ST_REGION__COUNT + fn->n;
    if (st_u64map_put(fn, name, id))
        fail(g, ST_OTF2_ERR_NOMEM);
    OTF2_StringRef empty = str(g, "");
    check(g, OTF2_GlobalDefWriter_WriteRegion(g->w, (OTF2_RegionRef)id, name, name, empty, OTF2_REGION_ROLE_FUNCTION,
                                              OTF2_PARADIGM_SAMPLING, OTF2_REGION_FLAG_NONE, file,
                                              (uint32_t)(lines >> 32), (uint32_t)lines),
          "writing a function region");
    return (uint32_t)id;
}

/* The SourceCodeLocation of (file, line), defined on first use. */
static uint32_t source_location(gdefs_t *g, st_u64map_t *scl, OTF2_StringRef file, uint32_t line)
{
    uint64_t key = (uint64_t)file << 32 | line, id;
    if (st_u64map_get(scl, key, &id))
        return (uint32_t)id;
    id = scl->n;
    if (st_u64map_put(scl, key, id))
        fail(g, ST_OTF2_ERR_NOMEM);
    check(g, OTF2_GlobalDefWriter_WriteSourceCodeLocation(g->w, (OTF2_SourceCodeLocationRef)id, file, line),
          "writing a source code location");
    return (uint32_t)id;
}

/* Frame pc of rd split into its function's name and file (callpath.h's text; *func and *file
 * malloc'ed for the caller to free, "?" when the frame has no text); -1 when out of memory (g failed). */
static int frame_parts(gdefs_t *g, const st_rankdata_t *rd, uint64_t pc, const st_callsite_t **site, char **func,
                       char **file, uint32_t *line)
{
    *site = frame_site(rd, pc);
    const char *text = *site && (*site)->text ? (*site)->text : "?";
    size_t n = strlen(text) + 1;
    *func = malloc(n), *file = malloc(n);
    if (!*func || !*file) {
        free(*func), free(*file);
        fail(g, ST_OTF2_ERR_NOMEM);
        return -1;
    }
    st_callpath_split(text, *func, n, *file, n, line);
    return 0;
}

/*
 * Every rank's call-path nodes as CallingContexts (id = cp_base[rank] + node, parents first), as
 * Score-P writes unwound stacks: region = the frame's function (a Region of role FUNCTION and
 * paradigm SAMPLING, shared by name), source code location = where it made the call (when the
 * debug information tells). Enter events name the node of their innermost application frame
 * (attribute synctrace:calling_context); the entered MPI/OpenMP region is that node's callee.
 */
/*
 * The lines of every function name (String id -> begin << 32 | end) over all ranks' frames: known
 * only where every frame agrees (0 otherwise), the rule the analysis applies to the frames
 * (analysis/source.c), so an offline analysis, which reads them from the Region, writes what the
 * in-run one wrote (two static functions of one name, a rank whose frame was not resolved).
 */
static void function_lines(gdefs_t *g, st_u64map_t *lines)
{
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        for (uint32_t i = 0; rd && rd->cpnodes && i < rd->ncpnodes && !g->err; i++) {
            uint32_t line;
            uint64_t have, mine;
            const st_callsite_t *site;
            char *func, *file;
            if (frame_parts(g, rd, rd->cpnodes[i].pc, &site, &func, &file, &line))
                break;
            OTF2_StringRef name = str(g, func);
            free(func), free(file);
            mine = site && site->fn_begin ? (uint64_t)site->fn_begin << 32 | site->fn_end : 0;
            int seen = st_u64map_get(lines, name, &have);
            if (seen && have == mine)
                continue;
            if (st_u64map_put(lines, name, seen ? 0 : mine)) /* a disagreement: unknown for good */
                fail(g, ST_OTF2_ERR_NOMEM);
        }
    }
}

static void calling_contexts(gdefs_t *g)
{
    st_u64map_t fn = { 0 }, scl = { 0 }, lines = { 0 };
    function_lines(g, &lines);
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        for (uint32_t i = 0; rd && rd->cpnodes && i < rd->ncpnodes && !g->err; i++) {
            uint32_t line;
            const st_callsite_t *site;
            char *func, *file;
            if (frame_parts(g, rd, rd->cpnodes[i].pc, &site, &func, &file, &line))
                break;
            OTF2_StringRef fs = str(g, file[0] ? file : ""), name = str(g, func);
            int located = file[0] != 0;
            free(func), free(file);
            uint64_t fl = 0;
            st_u64map_get(&lines, name, &fl);
            uint32_t region = function_region(g, &fn, name, fs, fl);
            OTF2_SourceCodeLocationRef where = located ? source_location(g, &scl, fs, line)
                                                       : OTF2_UNDEFINED_SOURCE_CODE_LOCATION;
            uint32_t up = rd->cpnodes[i].parent;
            OTF2_CallingContextRef parent = up < i ? (OTF2_CallingContextRef)(g->v.cp_base[r] + up)
                                                   : OTF2_UNDEFINED_CALLING_CONTEXT;
            check(g, OTF2_GlobalDefWriter_WriteCallingContext(g->w, (OTF2_CallingContextRef)(g->v.cp_base[r] + i),
                                                              region, where, parent),
                  "writing a calling context");
        }
    }
    st_u64map_free(&fn);
    st_u64map_free(&scl);
    st_u64map_free(&lines);
}

/* ---- system tree, location groups, locations ------------------------------------------------ */

static const char *node_name(const st_rankdata_t *rd)
{
    return rd->nodename[0] ? rd->nodename : rd->hostname[0] ? rd->hostname : "unknown";
}

static const char *location_name(char *buf, size_t n, const st_thread_data_t *t, uint32_t master)
{
    if (t->index == master)
        snprintf(buf, n, "Master thread");
    else if (t->omp_num >= 0)
        snprintf(buf, n, "OMP thread %d", t->omp_num);
    else
        snprintf(buf, n, "thread %u", t->index);
    return buf;
}

/* "sync.scheme" -> "SYNCTRACE::SYNC_SCHEME" (OTF2 accepts [A-Z0-9_] around "::"). */
static void prop_name(char *out, size_t n, const char *key)
{
    size_t k = (size_t)snprintf(out, n, "SYNCTRACE::");
    for (const char *p = key; *p && k + 1 < n; p++)
        out[k++] = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    out[k] = 0;
}

static void group_prop(gdefs_t *g, uint32_t r, const char *key, const char *value)
{
    char name[96];
    prop_name(name, sizeof name, key);
    OTF2_AttributeValue v = { .stringRef = str(g, value) };
    check(g, OTF2_GlobalDefWriter_WriteLocationGroupProperty(g->w, r, str(g, name), OTF2_TYPE_STRING, v),
          "writing a location group property");
}

static void rank_props(gdefs_t *g, uint32_t r)
{
    const st_rankdata_t *rd = g->byrank[r];
    char pid[24];
    snprintf(pid, sizeof pid, "%d", rd->pid);
    if (rd->hostname[0])
        group_prop(g, r, "hostname", rd->hostname);
    if (rd->pid)
        group_prop(g, r, "pid", pid);
    for (uint32_t i = 0; i < rd->nprops; i++)
        group_prop(g, r, rd->props[i].key, rd->props[i].value);
}

static void system_tree(gdefs_t *g)
{
    st_u64map_t nodes = { 0 }; /* node-name String id -> system tree node */
    check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->w, 0, str(g, "cluster"), str(g, "machine"),
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "writing the machine node");
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        uint64_t node, name = str(g, node_name(rd));
        if (!st_u64map_get(&nodes, name, &node)) {
            node = nodes.n + 1;
            if (st_u64map_put(&nodes, name, node) != 0)
                fail(g, ST_OTF2_ERR_NOMEM);
            check(g, OTF2_GlobalDefWriter_WriteSystemTreeNode(g->w, (OTF2_SystemTreeNodeRef)node,
                                                              (OTF2_StringRef)name, str(g, "node"), 0),
                  "writing a node");
        }
        OTF2_StringRef gname = rd->flags & ST_RANKF_NO_MPI ? str(g, "Process") : strf(g, "MPI Rank %u", r);
        check(g, OTF2_GlobalDefWriter_WriteLocationGroup(g->w, r, gname, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                         (OTF2_SystemTreeNodeRef)node,
                                                         OTF2_UNDEFINED_LOCATION_GROUP),
              "writing a location group");
    }
    st_u64map_free(&nodes);
}

/* The calls of thread t a filter removed: location properties SYNCTRACE::FILTERED_<k> (k = 1, ...)
 * valued "<region> <visits> <time in ns>" (docs/dump-format.md). */
static void filtered_props(gdefs_t *g, const st_rankdata_t *rd, const st_thread_data_t *t, OTF2_LocationRef loc)
{
    uint32_t k = 0;
    for (uint32_t i = 0; rd->filtered && i < rd->nfiltered && !g->err; i++) {
        const st_filtered_sum_t *f = &rd->filtered[i];
        const st_region_info_t *ri = st_region_info(f->region);
        if (f->thread != t->index || !ri)
            continue;
        char value[160];
        snprintf(value, sizeof value, "%s %llu %llu", ri->name, (unsigned long long)f->visits,
                 (unsigned long long)f->time);
        OTF2_AttributeValue v = { .stringRef = str(g, value) };
        check(g, OTF2_GlobalDefWriter_WriteLocationProperty(g->w, loc, strf(g, "SYNCTRACE::FILTERED_%u", ++k),
                                                            OTF2_TYPE_STRING, v),
              "writing a location property");
    }
}

static void locations(gdefs_t *g)
{
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        uint32_t master = st_rankdata_master(rd);
        for (uint32_t i = 0; i < rd->nthreads; i++) {
            char name[64];
            const st_thread_data_t *t = &rd->threads[i];
            OTF2_LocationRef loc = st_otf2_location(r, t->index, master);
            check(g, OTF2_GlobalDefWriter_WriteLocation(g->w, loc, str(g, location_name(name, sizeof name, t, master)),
                                                        OTF2_LOCATION_TYPE_CPU_THREAD, t->nevents, r),
                  "writing a location");
            filtered_props(g, rd, t, loc);
        }
        rank_props(g, r);
    }
}

/* ---- the definition chunk ------------------------------------------------------------------ */

uint64_t st_otf2_def_chunk(st_rankdata_t *const *ranks, int n)
{
    /* The longest strings written: call-site texts (and the functions and files split from them),
     * property values (st_kv_t, 192 bytes) and the short names composed here; the largest group:
     * every location (COMM_LOCATIONS), a member at most 9 bytes as OTF2 packs it. */
    uint64_t text = sizeof ((st_kv_t *)0)->value, members = 0;
    for (int r = 0; r < n; r++) {
        const st_rankdata_t *rd = ranks[r];
        if (!rd)
            continue;
        members += rd->nthreads + 1;
        for (uint32_t i = 0; i < rd->ncallsites; i++)
            if (rd->callsites[i].text) {
                uint64_t len = strlen(rd->callsites[i].text);
                text = len > text ? len : text;
            }
    }
    uint64_t largest = (text > 9 * members ? text : 9 * members) + 4096, chunk = OTF2_CHUNK_SIZE_MIN;
    while (chunk < 2 * largest && chunk < OTF2_CHUNK_SIZE_MAX)
        chunk *= 2;
    return chunk;
}

/* ---- groups --------------------------------------------------------------------------------- */

static OTF2_GroupRef write_group(gdefs_t *g, OTF2_GroupType type, OTF2_Paradigm p, const uint64_t *m, uint32_t n)
{
    OTF2_GroupRef id = g->ngroups;
    group_t *grown = realloc(g->groups, (g->ngroups + 1) * sizeof *grown);
    uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            g->groups = grown;
        return fail(g, ST_OTF2_ERR_NOMEM), OTF2_UNDEFINED_GROUP;
    }
    g->groups = grown;
    if (n)
        memcpy(copy, m, n * sizeof *copy);
    g->groups[g->ngroups++] = (group_t){ st_fnv1a(p ^ ST_FNV_BASIS, m, n * sizeof *m), n, p, copy };
    check(g, OTF2_GlobalDefWriter_WriteGroup(g->w, id, str(g, ""), type, p, OTF2_GROUP_FLAG_NONE, n, m),
          "writing a group");
    return id;
}

/* A COMM_GROUP with these members (indices into the paradigm's COMM_LOCATIONS group). */
static OTF2_GroupRef comm_group(gdefs_t *g, OTF2_Paradigm p, const uint64_t *m, uint32_t n)
{
    uint64_t h = st_fnv1a(p ^ ST_FNV_BASIS, m, n * sizeof *m), i;
    if (st_u64map_get(&g->groupmap, h, &i) && g->groups[i].n == n && g->groups[i].paradigm == p &&
        memcmp(g->groups[i].members, m, n * sizeof *m) == 0)
        return (OTF2_GroupRef)i;
    OTF2_GroupRef id = write_group(g, OTF2_GROUP_TYPE_COMM_GROUP, p, m, n);
    if (id != OTF2_UNDEFINED_GROUP && !st_u64map_get(&g->groupmap, h, &i) &&
        st_u64map_put(&g->groupmap, h, id) != 0)
        fail(g, ST_OTF2_ERR_NOMEM);
    return id;
}

static OTF2_GroupRef world_group(gdefs_t *g, const int32_t *world, uint32_t n)
{
    uint64_t *m = malloc((n ? n : 1) * sizeof *m);
    if (!m)
        return fail(g, ST_OTF2_ERR_NOMEM), OTF2_UNDEFINED_GROUP;
    for (uint32_t i = 0; i < n; i++)
        m[i] = (uint64_t)world[i];
    OTF2_GroupRef id = comm_group(g, OTF2_PARADIGM_MPI, m, n);
    free(m);
    return id;
}

/* ---- MPI communicators -------------------------------------------------------------------- */

typedef struct comm_rep {    /* the definition a global communicator is written from */
    const st_rankdata_t *rd;
    uint32_t             local;
} comm_rep_t;

static void write_comm(gdefs_t *g, const comm_rep_t *rep, uint32_t id)
{
    const st_comm_def_t *c = &rep->rd->comms[rep->local];
    uint32_t parent = c->parent == ST_NO_COMM ? OTF2_UNDEFINED_COMM : st_otf2_nb_comm(&g->v, rep->rd, c->parent);
    if (parent != OTF2_UNDEFINED_COMM && parent >= id)
        parent = OTF2_UNDEFINED_COMM; /* only with a cycle in corrupt data */
    if (c->flags & ST_COMMF_INTER) {
        /* OTF2 3.0 InterComm: groupA = the local group of the defining rank, groupB
         * the remote one; the parent is the peer communicator they were joined over. */
        OTF2_GroupRef a = world_group(g, c->world, c->size), b = world_group(g, c->remote_world, c->remote_size);
        check(g, OTF2_GlobalDefWriter_WriteInterComm(g->w, id, str(g, c->name), a, b, parent, OTF2_COMM_FLAG_NONE),
              "writing an intercommunicator");
    } else {
        OTF2_GroupRef grp = world_group(g, c->world, c->size);
        check(g, OTF2_GlobalDefWriter_WriteComm(g->w, id, str(g, c->name), grp, parent, OTF2_COMM_FLAG_NONE),
              "writing a communicator");
    }
}

/* The RMA windows of each communicator (st_otf2_numbering), after all communicators. */
static void rma_windows(gdefs_t *g, const comm_rep_t *reps)
{
    for (uint32_t id = 0; id < g->v.ncomms && !g->err; id++)
        for (uint64_t k = g->v.win_base[id]; k < g->v.win_base[id + 1] && !g->err; k++) {
            const char *comm = id == g->v.self ? "MPI_COMM_SELF" : reps[id].rd ? reps[id].rd->comms[reps[id].local].name : "?";
            check(g, OTF2_GlobalDefWriter_WriteRmaWin(g->w, (OTF2_RmaWinRef)k,
                                                      strf(g, "MPI window %llu of %s",
                                                           (unsigned long long)(k - g->v.win_base[id]), comm),
                                                      id, OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS),
                  "writing an RMA window");
        }
}

/* Every rank's PSCW groups (rd->groups), rank by rank: Group ids 1 .. ngroups (1 + the numbering's
 * group_base + index), right after the MPI COMM_LOCATIONS group (id 0), whose members' indices
 * (world ranks) they hold. */
static void pscw_groups(gdefs_t *g)
{
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        const st_rankdata_t *rd = g->byrank[r];
        for (uint32_t i = 0; rd->groups && i < rd->ngroups && !g->err; i++) {
            const st_group_def_t *d = &rd->groups[i];
            uint64_t *m = malloc((d->size ? d->size : 1) * sizeof *m);
            if (!m) {
                fail(g, ST_OTF2_ERR_NOMEM);
                return;
            }
            for (uint32_t k = 0; k < d->size; k++)
                m[k] = (uint64_t)(uint32_t)d->world[k];
            if (write_group(g, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, m, d->size) != 1 + g->v.group_base[r] + i)
                fail(g, ST_OTF2_ERR_DATA);
            free(m);
        }
    }
}

static void mpi_comms(gdefs_t *g)
{
    if (g->v.nkeys == 0 && g->v.self == OTF2_UNDEFINED_COMM)
        return;
    uint64_t *locs = malloc(g->v.world * sizeof *locs);
    comm_rep_t *reps = calloc(g->v.ncomms + 1, sizeof *reps);
    if (!locs || !reps) {
        free(locs);
        free(reps);
        fail(g, ST_OTF2_ERR_NOMEM);
        return;
    }
    for (uint32_t r = 0; r < g->v.world; r++) /* index = world rank, as OTF2 requires */
        locs[r] = st_otf2_location(r, st_rankdata_master(g->byrank[r]), st_rankdata_master(g->byrank[r]));
    if (write_group(g, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, locs, g->v.world) != 0)
        fail(g, ST_OTF2_ERR_DATA); /* the first group: the PSCW groups' ids follow */
    pscw_groups(g);
    for (uint32_t r = 0; r < g->v.world; r++)
        for (uint32_t i = 0; i < g->byrank[r]->ncomms; i++) {
            uint32_t id = st_otf2_nb_comm(&g->v, g->byrank[r], i);
            if (id < g->v.ncomms && !reps[id].rd)
                reps[id] = (comm_rep_t){ g->byrank[r], i };
        }
    /* In id order, which puts parents first (see st_otf2_numbering): otf2-print
     * wants increasing ids and no forward parent references. */
    for (uint32_t id = 0; id < g->v.ncomms && !g->err; id++)
        if (id == g->v.self) {
            OTF2_GroupRef self = write_group(g, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, NULL, 0);
            check(g, OTF2_GlobalDefWriter_WriteComm(g->w, id, str(g, "MPI_COMM_SELF"), self, OTF2_UNDEFINED_COMM,
                                                    OTF2_COMM_FLAG_NONE),
                  "writing MPI_COMM_SELF");
        } else if (reps[id].rd)
            write_comm(g, &reps[id], id);
    rma_windows(g, reps);
    free(locs);
    free(reps);
}

/* ---- OpenMP thread teams ------------------------------------------------------------------- */

static int team_members(const st_rankdata_t *rd, const st_team_def_t *t, uint64_t base, uint64_t *m)
{
    for (uint32_t k = 0; k < t->size; k++) {
        uint32_t i = 0;
        while (i < rd->nthreads && rd->threads[i].index != t->threads[k])
            i++;
        if (i == rd->nthreads)
            return -1;
        m[k] = base + i;
    }
    return 0;
}

static void rank_teams(gdefs_t *g, uint32_t r, uint64_t base, OTF2_StringRef name)
{
    const st_rankdata_t *rd = g->byrank[r];
    for (uint32_t i = 0; i < rd->nteams && !g->err; i++) {
        const st_team_def_t *t = &rd->teams[i];
        uint64_t *m = malloc((t->size ? t->size : 1) * sizeof *m);
        if (!m) {
            fail(g, ST_OTF2_ERR_NOMEM);
            return;
        }
        if (team_members(rd, t, base, m) != 0) {
            st_log_error("OTF2 archive: rank %u: thread team %u names an unknown thread", r, i);
            fail(g, ST_OTF2_ERR_DATA);
        } else {
            OTF2_GroupRef grp = comm_group(g, OTF2_PARADIGM_OPENMP, m, t->size);
            check(g, OTF2_GlobalDefWriter_WriteComm(g->w, (OTF2_CommRef)(g->v.team_base[r] + i), name, grp,
                                                    OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
                  "writing a thread team");
        }
        free(m);
    }
}

static void omp_teams(gdefs_t *g)
{
    if (g->v.nteams == 0)
        return;
    uint64_t n = 0;
    for (uint32_t r = 0; r < g->v.world; r++)
        n += g->byrank[r]->nthreads;
    uint64_t *locs = malloc((n ? n : 1) * sizeof *locs), k = 0;
    if (!locs) {
        fail(g, ST_OTF2_ERR_NOMEM);
        return;
    }
    for (uint32_t r = 0; r < g->v.world; r++)
        for (uint32_t i = 0, m = st_rankdata_master(g->byrank[r]); i < g->byrank[r]->nthreads; i++)
            locs[k++] = st_otf2_location(r, g->byrank[r]->threads[i].index, m);
    write_group(g, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP, locs, (uint32_t)n);
    free(locs);
    OTF2_StringRef name = str(g, "OpenMP thread team");
    uint64_t base = 0;
    for (uint32_t r = 0; r < g->v.world && !g->err; r++) {
        uint64_t next = r + 1 < g->v.world ? g->v.team_base[r + 1] : g->v.team_base[0] + g->v.nteams;
        if (next - g->v.team_base[r] != g->byrank[r]->nteams) {
            st_log_error("OTF2 archive: thread-team numbering does not match rank %u's definitions", r);
            fail(g, ST_OTF2_ERR_DATA);
            return;
        }
        rank_teams(g, r, base, name);
        base += g->byrank[r]->nthreads;
    }
}

/* ---- archive properties ---------------------------------------------------------------------- */

/* The events every rank lost (its EVENTS_LOST property: buffers that could not be spilled). */
static unsigned long long events_lost(const gdefs_t *g)
{
    unsigned long long sum = 0;
    for (uint32_t r = 0; r < g->v.world; r++)
        sum += st_rankdata_events_lost(g->byrank[r]);
    return sum;
}

static void archive_props(gdefs_t *g, unsigned flags)
{
    int incomplete = (flags & ST_OTF2_INCOMPLETE) != 0;
    for (uint32_t r = 0; r < g->v.world; r++)
        incomplete |= (g->byrank[r]->flags & ST_RANKF_INCOMPLETE) != 0;
    unsigned long long lost = events_lost(g); /* of all ranks, not only rank 0's (each rank has its own too) */
    /* Rank 0's properties; after a recovery without rank 0, the lowest rank that has any. */
    const st_rankdata_t *rd0 = g->byrank[0];
    for (uint32_t r = 1; r < g->v.world && !rd0->nprops; r++)
        rd0 = g->byrank[r];
    for (uint32_t i = 0; i < rd0->nprops && !g->err; i++) {
        char name[96];
        if (strcmp(rd0->props[i].key, "EVENTS_LOST") == 0)
            continue;
        prop_name(name, sizeof name, rd0->props[i].key);
        check(g, OTF2_Archive_SetProperty(g->a, name, rd0->props[i].value, true), "setting an archive property");
    }
    if (lost) {
        char v[24];
        snprintf(v, sizeof v, "%llu", lost);
        check(g, OTF2_Archive_SetProperty(g->a, "SYNCTRACE::EVENTS_LOST", v, true), "setting SYNCTRACE::EVENTS_LOST");
    }
    check(g, OTF2_Archive_SetBoolProperty(g->a, "SYNCTRACE::INCOMPLETE", incomplete, true),
          "setting SYNCTRACE::INCOMPLETE");
}

/* ---- entry point ----------------------------------------------------------------------------- */

static int index_ranks(gdefs_t *g, st_rankdata_t *const *defs, int ndefs)
{
    g->byrank = calloc(g->v.world ? g->v.world : 1, sizeof *g->byrank);
    if (!g->byrank)
        return ST_OTF2_ERR_NOMEM;
    for (int i = 0; i < ndefs; i++) {
        int32_t r = defs[i]->rank;
        if (r < 0 || (uint32_t)r >= g->v.world || g->byrank[r]) {
            st_log_error("OTF2 archive: rank %d is duplicated or outside the world (size %u)", r, g->v.world);
            return ST_OTF2_ERR_DATA;
        }
        g->byrank[r] = defs[i];
    }
    for (uint32_t r = 0; r < g->v.world; r++)
        if (!g->byrank[r]) {
            st_log_error("OTF2 archive: no definitions for rank %u", r);
            return ST_OTF2_ERR_DATA;
        }
    return ST_OTF2_OK;
}

static void gdefs_free(gdefs_t *g)
{
    for (uint32_t i = 0; i < g->nstrs; i++)
        free(g->strs[i]);
    free(g->strs);
    for (uint32_t i = 0; i < g->ngroups; i++)
        free(g->groups[i].members);
    free(g->groups);
    st_u64map_free(&g->strmap);
    st_u64map_free(&g->groupmap);
    free(g->byrank);
}

int st_otf2_write_global(OTF2_Archive *a, st_rankdata_t *const *defs, int ndefs, const uint64_t *num, size_t len,
                         unsigned flags)
{
    gdefs_t g = { .a = a };
    if (st_otf2_nb_view(num, len, &g.v) != 0)
        return ST_OTF2_ERR_DATA;
    if (g.v.world == 0) {
        st_log_error("OTF2 archive: no rank data to write");
        return ST_OTF2_ERR_DATA;
    }
    g.err = index_ranks(&g, defs, ndefs);
    if (!g.err && !(g.w = OTF2_Archive_GetGlobalDefWriter(a))) {
        st_otf2_failed(OTF2_ERROR_INVALID_CALL, "getting the global definition writer");
        g.err = ST_OTF2_ERR_OTF2;
    }
    if (!g.err &&
        (st_otf2_failed(OTF2_Archive_SetCreator(a, "synctrace"), "setting the creator") ||
         st_otf2_failed(OTF2_Archive_SetDescription(a, "MPI/OpenMP trace recorded by synctrace"),
                        "setting the description") ||
         st_otf2_failed(OTF2_Archive_SetMachineName(a, "Linux"), "setting the machine name")))
        g.err = ST_OTF2_ERR_OTF2;
    if (!g.err) {
        clock_props(&g);
        callsite_strings(&g);
        paradigms(&g);
        attributes(&g);
        regions(&g);
        calling_contexts(&g);
        system_tree(&g);
        locations(&g);
        mpi_comms(&g);
        omp_teams(&g);
        int err = g.err;
        g.err = 0;
        check(&g, OTF2_Archive_CloseGlobalDefWriter(a, g.w), "closing the global definition writer");
        if (!err && !g.err)
            archive_props(&g, flags);
        g.err = err ? err : g.err;
    }
    if (g.err == ST_OTF2_ERR_NOMEM)
        st_log_error("OTF2 archive: out of memory while writing the global definitions");
    gdefs_free(&g);
    return g.err;
}
