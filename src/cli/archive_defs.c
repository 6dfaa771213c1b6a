/*
 * archive_defs.c — reads an archive's global definitions and properties into the model.
 *
 * Definitions are appended as the OTF2 global definition reader delivers them and sorted
 * by id afterwards, so lookups (binary search) work for any id values, dense or not —
 * ids come from files and are not trusted to be small. Lookup functions live here too, and the
 * reading of the calls a filter removed (location properties SYNCTRACE::FILTERED_<k>).
 */
#include "archive_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct defs_ctx {
    st_cli_archive_t *ar;
    struct { size_t strings, regions, groups, comms, wins, locs, cctxs, scls, lgroups, sysnodes, gprops, lprops; } cap; /* array capacities while reading */
    int oom;
} defs_ctx_t;

#define SLOT(ctx, arr, n) \
    st_cli_grow((void **)&(ctx)->ar->arr, &(ctx)->ar->n, &(ctx)->cap.arr, sizeof *(ctx)->ar->arr)

static OTF2_CallbackCode on_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t real)
{
    defs_ctx_t *c = u;
    (void)real;
    c->ar->resolution = res;
    c->ar->offset = off;
    c->ar->length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
    defs_ctx_t *c = u;
    st_cli_string_t *d = SLOT(c, strings, nstrings);
    if (!d || !(d->s = strdup(s ? s : ""))) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->id = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                   OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t b, uint32_t e)
{
    defs_ctx_t *c = u;
    (void)canon; (void)descr; (void)flags; (void)file;
    st_cli_region_t *d = SLOT(c, regions, nregions);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_region_t){ .id = self, .name = name, .role = role, .paradigm = paradigm, .begin = b, .end = e };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t line)
{
    defs_ctx_t *c = u;
    st_cli_scl_t *d = SLOT(c, scls, nscls);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_scl_t){ .id = self, .file = file, .line = line };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_cctx(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                 OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    defs_ctx_t *c = u;
    st_cli_cctx_t *d = SLOT(c, cctxs, ncctxs);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_cctx_t){ .id = self, .region = region,
                          .scl = scl == OTF2_UNDEFINED_SOURCE_CODE_LOCATION ? ST_CLI_NONE : scl,
                          .parent = parent == OTF2_UNDEFINED_CALLING_CONTEXT ? ST_CLI_NONE : parent };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef descr,
                                      OTF2_Type type)
{
    defs_ctx_t *c = u;
    (void)descr;
    /* Strings precede attributes in a well-formed file, so the name is known here. */
    const char *n = st_cli_string(c->ar, name);
    for (unsigned a = 0; a < ST_ATTR__COUNT; a++)
        if (!strcmp(n, st_otf2_attr(a)->name) &&
            (type == st_otf2_attr(a)->type || (a == ST_ATTR_ORIG_TIME && type == OTF2_TYPE_INT64))) {
            c->ar->attr[a] = self;
            if (a == ST_ATTR_ORIG_TIME)
                c->ar->attr_orig_type = type;
            break;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    defs_ctx_t *c = u;
    (void)name;
    st_cli_group_t *d = SLOT(c, groups, ngroups);
    if (!d || (n && !(d->members = malloc(sizeof *members * n)))) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (n)
        memcpy(d->members, members, sizeof *members * n);
    d->id = self;
    d->type = type;
    d->paradigm = paradigm;
    d->flags = flags;
    d->n = n;
    return OTF2_CALLBACK_SUCCESS;
}

static st_cli_comm_t *new_comm(defs_ctx_t *c, uint32_t self, uint32_t name)
{
    st_cli_comm_t *d = SLOT(c, comms, ncomms);
    if (!d) {
        c->oom = 1;
        return NULL;
    }
    d->id = self;
    d->name = name;
    d->group_b = ST_CLI_NONE;
    d->nwins = 0;
    return d;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent; (void)flags;
    st_cli_comm_t *d = new_comm(u, self, name);
    if (!d)
        return OTF2_CALLBACK_INTERRUPT;
    d->group = group;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef a,
                                      OTF2_GroupRef b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)common; (void)flags;
    st_cli_comm_t *d = new_comm(u, self, name);
    if (!d)
        return OTF2_CALLBACK_INTERRUPT;
    d->group = a;
    d->group_b = b;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_rma_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                    OTF2_RmaWinFlag flags)
{
    defs_ctx_t *c = u;
    (void)name; (void)flags;
    st_cli_win_t *d = SLOT(c, wins, nwins);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_win_t){ .id = self, .comm = comm };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t nevents, OTF2_LocationGroupRef group)
{
    defs_ctx_t *c = u;
    (void)type;
    st_cli_location_t *d = SLOT(c, locs, nlocs);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->id = self;
    st_otf2_location_split(self, group, &d->rank, &d->thread);
    d->name = name;
    d->declared = nevents;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_sysnode(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                    OTF2_SystemTreeNodeRef parent)
{
    defs_ctx_t *c = u;
    (void)cls; (void)parent;
    st_cli_sysnode_t *d = SLOT(c, sysnodes, nsysnodes);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_sysnode_t){ .id = self, .name = name };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node,
                                   OTF2_LocationGroupRef creator)
{
    defs_ctx_t *c = u;
    (void)name; (void)type; (void)creator;
    st_cli_lgroup_t *d = SLOT(c, lgroups, nlgroups);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_lgroup_t){ .id = self, .node = node };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_lgroup_prop(void *u, OTF2_LocationGroupRef group, OTF2_StringRef name, OTF2_Type type,
                                        OTF2_AttributeValue value)
{
    defs_ctx_t *c = u;
    st_cli_lgroup_prop_t *d = SLOT(c, gprops, ngprops);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_lgroup_prop_t){ .group = group, .name = name,
                                 .value = type == OTF2_TYPE_STRING ? value.stringRef : ST_CLI_NONE };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_loc_prop(void *u, OTF2_LocationRef loc, OTF2_StringRef name, OTF2_Type type,
                                     OTF2_AttributeValue value)
{
    defs_ctx_t *c = u;
    st_cli_loc_prop_t *d = SLOT(c, lprops, nlprops);
    if (!d) {
        c->oom = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    *d = (st_cli_loc_prop_t){ .location = loc, .name = name,
                              .value = type == OTF2_TYPE_STRING ? value.stringRef : ST_CLI_NONE };
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- sorting and lookup -------------------------------------------------------------- */

#define BY_ID(type, field)                                                       \
    static int cmp_##type(const void *a, const void *b)                          \
    {                                                                            \
        const type *x = a, *y = b;                                               \
        return (x->field > y->field) - (x->field < y->field);                    \
    }
BY_ID(st_cli_string_t, id)
BY_ID(st_cli_region_t, id)
BY_ID(st_cli_group_t, id)
BY_ID(st_cli_comm_t, id)
BY_ID(st_cli_win_t, id)
BY_ID(st_cli_cctx_t, id)
BY_ID(st_cli_scl_t, id)

/* Locations by (rank, thread): the order of the older rank * 65536 + thread ids. */
static int loc_cmp(int32_t r1, uint32_t t1, int32_t r2, uint32_t t2)
{
    return r1 != r2 ? (r1 > r2) - (r1 < r2) : (t1 > t2) - (t1 < t2);
}

static int cmp_location(const void *a, const void *b)
{
    const st_cli_location_t *x = a, *y = b;
    return loc_cmp(x->rank, x->thread, y->rank, y->thread);
}

static void sort_defs(st_cli_archive_t *ar)
{
    st_cli_sort(ar->strings, ar->nstrings, sizeof *ar->strings, cmp_st_cli_string_t);
    st_cli_sort(ar->regions, ar->nregions, sizeof *ar->regions, cmp_st_cli_region_t);
    st_cli_sort(ar->groups, ar->ngroups, sizeof *ar->groups, cmp_st_cli_group_t);
    st_cli_sort(ar->comms, ar->ncomms, sizeof *ar->comms, cmp_st_cli_comm_t);
    st_cli_sort(ar->wins, ar->nwins, sizeof *ar->wins, cmp_st_cli_win_t);
    st_cli_sort(ar->locs, ar->nlocs, sizeof *ar->locs, cmp_location);
    st_cli_sort(ar->cctxs, ar->ncctxs, sizeof *ar->cctxs, cmp_st_cli_cctx_t);
    st_cli_sort(ar->scls, ar->nscls, sizeof *ar->scls, cmp_st_cli_scl_t);
    for (size_t i = 0; i < ar->nwins; i++) { /* in id order: a window's number on its communicator */
        st_cli_comm_t *cm = (st_cli_comm_t *)st_cli_comm(ar, ar->wins[i].comm);
        ar->wins[i].seq = cm ? cm->nwins++ : 0;
    }
    ar->nranks = 0;
    for (size_t i = 0; i < ar->nlocs; i++) /* sorted by rank */
        if (i == 0 || ar->locs[i].rank != ar->locs[i - 1].rank)
            ar->nranks++;
}

/* Binary search by id in an array sorted by id; the id is the first uint32_t/uint64_t member. */
#define FIND(arr, n, key)                                                        \
    do {                                                                         \
        size_t lo = 0, hi = (n);                                                 \
        while (lo < hi) {                                                        \
            size_t mid = lo + (hi - lo) / 2;                                     \
            if ((arr)[mid].id < (key)) lo = mid + 1;                             \
            else hi = mid;                                                       \
        }                                                                        \
        return lo < (n) && (arr)[lo].id == (key) ? &(arr)[lo] : NULL;            \
    } while (0)

static const st_cli_string_t *find_string(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->strings, ar->nstrings, id); }
const st_cli_region_t *st_cli_region(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->regions, ar->nregions, id); }
const st_cli_comm_t *st_cli_comm(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->comms, ar->ncomms, id); }
const st_cli_win_t *st_cli_win(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->wins, ar->nwins, id); }
const st_cli_group_t *st_cli_group(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->groups, ar->ngroups, id); }
const st_cli_cctx_t *st_cli_cctx(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->cctxs, ar->ncctxs, id); }
const st_cli_scl_t *st_cli_scl(const st_cli_archive_t *ar, uint32_t id) { FIND(ar->scls, ar->nscls, id); }

const char *st_cli_string(const st_cli_archive_t *ar, uint32_t s)
{
    /* Strings arrive in id order in well-formed files; the array is sorted after reading,
     * but attribute callbacks look names up while reading, so fall back to a linear scan. */
    const st_cli_string_t *d = find_string(ar, s);
    if (d)
        return d->s;
    for (size_t i = 0; i < ar->nstrings; i++)
        if (ar->strings[i].id == s)
            return ar->strings[i].s;
    return "";
}

long st_cli_location_find(const st_cli_archive_t *ar, int32_t rank, uint32_t thread)
{
    size_t lo = 0, hi = ar->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (loc_cmp(ar->locs[mid].rank, ar->locs[mid].thread, rank, thread) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ar->nlocs && ar->locs[lo].rank == rank && ar->locs[lo].thread == thread ? (long)lo : -1;
}

long st_cli_location_index(const st_cli_archive_t *ar, uint64_t id)
{
    /* Try both numberings' (rank, thread); the id must match. */
    int32_t r;
    uint32_t t;
    st_otf2_location_split(id, (uint32_t)id, &r, &t);
    long i = r >= 0 ? st_cli_location_find(ar, r, t) : -1;
    if (i < 0 || ar->locs[i].id != id) {
        st_otf2_location_split_old(id, &r, &t);
        i = r >= 0 ? st_cli_location_find(ar, r, t) : -1;
    }
    return i >= 0 && ar->locs[i].id == id ? i : -1;
}

const char *st_cli_group_node(const st_cli_archive_t *ar, uint32_t group)
{
    for (size_t i = 0; i < ar->nlgroups; i++)
        if (ar->lgroups[i].id == group)
            for (size_t k = 0; k < ar->nsysnodes; k++)
                if (ar->sysnodes[k].id == ar->lgroups[i].node)
                    return st_cli_string(ar, ar->sysnodes[k].name);
    return NULL;
}

const char *st_cli_prop(const st_cli_archive_t *ar, const char *name)
{
    for (size_t i = 0; i < ar->nprops; i++)
        if (!strcmp(ar->props[i].name, name))
            return ar->props[i].value;
    return NULL;
}

/* ---- reading --------------------------------------------------------------------------- */

static int read_props(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen)
{
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetPropertyNames(rd, &n, &names) != OTF2_SUCCESS) {
        snprintf(err, errlen, "cannot read the archive properties: %s", st_cli_otf2_error());
        return -1;
    }
    if (n && !(ar->props = calloc(n, sizeof *ar->props))) {
        free(names);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        char *v = NULL;
        if (OTF2_Reader_GetProperty(rd, names[i], &v) != OTF2_SUCCESS)
            continue;
        ar->props[ar->nprops].name = strdup(names[i]);
        ar->props[ar->nprops++].value = v;
    }
    free(names);
    return 0;
}

static void set_callbacks(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_rma_win);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_sysnode);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, on_lgroup_prop);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, on_loc_prop);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, on_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, on_cctx);
}

/* Each calling context's path of function names (outermost first); a broken chain (a cycle, a
 * missing parent) ends where it breaks. 0, or -1 when out of memory. */
static int cctx_paths(st_cli_archive_t *ar)
{
    for (size_t i = 0; i < ar->ncctxs; i++) {
        size_t len = 0, depth = 0;
        for (const st_cli_cctx_t *x = &ar->cctxs[i]; x && depth <= ar->ncctxs; depth++) {
            const st_cli_region_t *r = st_cli_region(ar, x->region);
            len += strlen(r ? st_cli_string(ar, r->name) : "?") + 1;
            x = x->parent != ST_CLI_NONE ? st_cli_cctx(ar, x->parent) : NULL;
        }
        char *p = malloc(len + 1);
        if (!(ar->cctxs[i].path = p))
            return -1;
        size_t end = len;
        p[end] = 0;
        depth = 0;
        for (const st_cli_cctx_t *x = &ar->cctxs[i]; x && depth <= ar->ncctxs; depth++) { /* from the end */
            const st_cli_region_t *r = st_cli_region(ar, x->region);
            const char *name = r ? st_cli_string(ar, r->name) : "?";
            size_t n = strlen(name);
            end -= n + 1;
            p[end] = '/';
            memcpy(p + end + 1, name, n);
            x = x->parent != ST_CLI_NONE ? st_cli_cctx(ar, x->parent) : NULL;
        }
        memmove(p, p + 1, len); /* drop the leading '/' */
    }
    return 0;
}

int st_cli_read_defs(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen)
{
    defs_ctx_t ctx = {.ar = ar};
    OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gr || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        snprintf(err, errlen, "cannot open the global definitions: %s", st_cli_otf2_error());
        return -1;
    }
    set_callbacks(cb);
    OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, &ctx);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t nread = 0;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &nread);
    OTF2_Reader_CloseGlobalDefReader(rd, gr);
    if (ctx.oom || rc != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s", ctx.oom ? "out of memory" : "bad global definitions (traces.def)");
        if (!ctx.oom && *st_cli_otf2_error())
            snprintf(err, errlen, "bad global definitions (traces.def): %s", st_cli_otf2_error());
        return -1;
    }
    sort_defs(ar);
    if (cctx_paths(ar)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (ar->resolution == 0) {
        snprintf(err, errlen, "no clock properties in the global definitions");
        return -1;
    }
    return read_props(rd, ar, err, errlen);
}

/* ---- the calls a filter removed (st_cli_filtered): SYNCTRACE::FILTERED_<k> = "<region> <visits> <ns>" ---- */

/* The location with OTF2 id id, NULL when unknown (the locations are sorted by rank and thread). */
static const st_cli_location_t *location_by_id(const st_cli_archive_t *ar, uint64_t id)
{
    for (size_t i = 0; i < ar->nlocs; i++)
        if (ar->locs[i].id == id)
            return &ar->locs[i];
    return NULL;
}

/* "<region> <visits> <time>" into f. 0, or -1 if malformed. */
static int parse(const st_cli_archive_t *ar, uint32_t value, st_cli_filtered_t *f)
{
    const char *v = st_cli_string(ar, value), *sp = strchr(v, ' ');
    unsigned long long visits, time;
    char tail;
    if (!sp || sp == v || (size_t)(sp - v) >= sizeof f->region || sscanf(sp, " %llu %llu%c", &visits, &time, &tail) != 2)
        return -1;
    memcpy(f->region, v, (size_t)(sp - v));
    f->region[sp - v] = 0;
    f->visits = visits, f->time = time;
    return 0;
}

int st_cli_filtered(const st_cli_archive_t *ar, st_cli_filtered_t **out, size_t *n)
{
    *out = NULL, *n = 0;
    size_t count = 0;
    for (size_t i = 0; i < ar->nlprops; i++)
        count += !strncmp(st_cli_string(ar, ar->lprops[i].name), "SYNCTRACE::FILTERED_", 20);
    if (!count)
        return 0;
    st_cli_filtered_t *v = malloc(sizeof *v * count);
    if (!v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < ar->nlprops; i++) {
        const st_cli_location_t *L = location_by_id(ar, ar->lprops[i].location);
        if (!L || ar->lprops[i].value == ST_CLI_NONE ||
            strncmp(st_cli_string(ar, ar->lprops[i].name), "SYNCTRACE::FILTERED_", 20) ||
            parse(ar, ar->lprops[i].value, &v[k]))
            continue;
        v[k].rank = L->rank, v[k].thread = L->thread;
        k++;
    }
    *out = v, *n = k;
    return 0;
}
