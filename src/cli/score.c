/*
 * score.c — the profile of `synctrace score`: one row per region of an archive, with the OTF2
 * bytes its events cost (score.h says how they are charged), and the size of each record as
 * OTF2 3.x encodes it:
 *   - a timestamp record (1 + 8 bytes) before an event whose time is later than the previous
 *     record's of the location;
 *   - an attribute list (type, length, count, then per attribute its ref, type byte, value);
 *   - the event record: a type byte, a length byte (not for Enter and Leave), its fields;
 *     uint32/uint64 fields compressed to 1 byte for 0 and all-ones, else 1 + their significant bytes.
 */
#include "score.h"

#include <stdlib.h>
#include <string.h>

#include "../analysis/call_kinds.h"
#include "../model/callpath.h"
#include "../model/region.h"
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#define EVT_CHUNK (1u << 20) /* src/otf2/writer.c's event chunk */
#define CHUNK_HEADER 18u     /* type, endianness, first and last event number */
#define TIMESTAMP 9u         /* type + uint64 */

const char *st_score_group_name(unsigned g)
{
    static const char *const names[ST_SCORE__GROUPS] = {"mpi-p2p", "mpi-coll",  "mpi-rma",    "mpi-other",
                                                        "openmp",  "user",      "measurement"};
    return g < ST_SCORE__GROUPS ? names[g] : "?";
}

/* ---- OTF2 record sizes --------------------------------------------------------------------- */

static unsigned u32sz(uint32_t v)
{
    return v == 0 || v == UINT32_MAX ? 1 : v < 0x100u ? 2 : v < 0x10000u ? 3 : v < 0x1000000u ? 4 : 5;
}

static unsigned u64sz(uint64_t v)
{
    if (v == 0 || v == UINT64_MAX)
        return 1;
    unsigned n = 2;
    while (n < 9 && v >> (8 * (n - 1)))
        n++;
    return n;
}

static unsigned i64sz(int64_t v) { return v < 0 ? 9 : u64sz((uint64_t)v); }

/* A peer or root as written: a rank (the reader made it a world rank; the same size class in
 * practice) or "none". */
static unsigned ranksz(const st_event_t *e) { return e->peer < 0 ? 1 : u32sz((uint32_t)e->peer); }

static unsigned rootsz(const st_event_t *e)
{
    if (e->flags & ST_EVF_PROC_NULL) /* OTF2_COLLECTIVE_ROOT_THIS_GROUP */
        return 5;
    return ranksz(e);
}

typedef struct attrs {
    unsigned n, bytes; /* attributes and the bytes of their refs, type bytes and values */
} attrs_t;

static void add_attr(attrs_t *a, uint32_t ref, unsigned value_bytes)
{
    a->n++;
    a->bytes += u32sz(ref) + 1 + value_bytes;
}

static unsigned attr_list(const attrs_t *a)
{
    if (!a->n)
        return 0;
    unsigned data = u32sz(a->n) + a->bytes;
    return 1 + (data < 255 ? 1 : 9) + data;
}

/* The synctrace attributes e carries (what src/otf2/events.c adds, as the reader keeps them). */
static void event_attrs(const st_cli_archive_t *ar, const st_event_t *e, attrs_t *a)
{
    if (e->kind == ST_EV_ENTER && e->aux)
        add_attr(a, ar->attr[ST_ATTR_CALLSITE], u32sz((uint32_t)(e->aux - 1)));
    if (e->kind == ST_EV_ENTER && st_event_callpath(e) != ST_CP_NONE)
        add_attr(a, ar->attr[ST_ATTR_CALLPATH], u32sz(st_event_callpath(e)));
    if (e->flags & ST_EVF_CLC_MOVED)
        add_attr(a, ar->attr[ST_ATTR_ORIG_TIME], u64sz(st_event_orig_time(e)));
    if (e->flags & ST_CLI_EVF_PID)
        add_attr(a, ar->attr[ST_ATTR_ID], u64sz(e->id));
    if ((e->flags & ST_CLI_EVF_ORDER) && e->kind == ST_EV_MPI_RECV)
        add_attr(a, ar->attr[ST_ATTR_POST], u64sz(e->id));
    if ((e->flags & ST_CLI_EVF_ORDER) && (e->kind == ST_EV_MPI_COLL_END || e->kind == ST_EV_MPI_ICOLL_COMPLETE))
        add_attr(a, ar->attr[ST_ATTR_COLL_SEQ], u64sz(st_cli_event_order(e)));
}

/* The record's fields, without type and length bytes. */
static unsigned fields(const st_event_t *e)
{
    switch (e->kind) {
    case ST_EV_ENTER:
    case ST_EV_LEAVE:
        return u32sz(e->region);
    case ST_EV_MPI_SEND:
    case ST_EV_MPI_RECV:
        return ranksz(e) + u32sz(e->comm) + u32sz((uint32_t)e->tag) + u64sz(e->bytes);
    case ST_EV_MPI_ISEND:
    case ST_EV_MPI_IRECV:
        return ranksz(e) + u32sz(e->comm) + u32sz((uint32_t)e->tag) + u64sz(e->bytes) + u64sz(e->id);
    case ST_EV_MPI_ISEND_COMPLETE:
    case ST_EV_MPI_IRECV_REQUEST:
    case ST_EV_MPI_REQUEST_CANCELLED:
    case ST_EV_MPI_ICOLL_REQUEST:
    case ST_EV_MPI_REQUEST_TEST:
        return u64sz(e->id);
    case ST_EV_MPI_COLL_BEGIN:
        return 0;
    case ST_EV_MPI_COLL_END:
        return 1 + u32sz(e->comm) + rootsz(e) + u64sz(e->bytes) + u64sz(e->bytes2);
    case ST_EV_MPI_ICOLL_COMPLETE:
        return 1 + u32sz(e->comm) + rootsz(e) + u64sz(e->bytes) + u64sz(e->bytes2) + u64sz(e->id);
    case ST_EV_THREAD_FORK:
        return 1 + u32sz((uint32_t)e->bytes);
    case ST_EV_THREAD_JOIN:
        return 1;
    case ST_EV_THREAD_TEAM_BEGIN:
    case ST_EV_THREAD_TEAM_END:
        return u32sz(e->comm);
    case ST_EV_THREAD_ACQUIRE_LOCK:
    case ST_EV_THREAD_RELEASE_LOCK: /* the dense lock number is not read back: a small one */
        return 1 + 2 + u32sz((uint32_t)e->bytes);
    case ST_EV_THREAD_TASK_CREATE:
    case ST_EV_THREAD_TASK_SWITCH:
    case ST_EV_THREAD_TASK_COMPLETE:
        return u32sz(e->comm) + u32sz((uint32_t)e->tag) + u32sz((uint32_t)e->bytes2);
    case ST_EV_BUFFER_FLUSH:
        return 8;
    case ST_EV_MEASUREMENT:
        return 1;
    case ST_EV_PROGRAM_BEGIN: /* name, argument count (arguments not read back) */
        return u32sz((uint32_t)e->id) + 1;
    case ST_EV_PROGRAM_END:
        return i64sz((int64_t)e->bytes);
    default:
        return 0;
    }
}

uint64_t st_score_event_bytes(const st_cli_archive_t *ar, const st_event_t *e, uint64_t prev)
{
    attrs_t a = {0, 0};
    event_attrs(ar, e, &a);
    unsigned data = fields(e);
    unsigned record = 1 + data;
    if (e->kind != ST_EV_ENTER && e->kind != ST_EV_LEAVE)
        record += data < 255 ? 1 : 9;
    return (e->time > prev ? TIMESTAMP : 0) + attr_list(&a) + record;
}

uint64_t st_score_chunk_overhead(uint64_t bytes)
{
    uint64_t per = EVT_CHUNK - CHUNK_HEADER - TIMESTAMP;
    return bytes ? (bytes + per - 1) / per * (CHUNK_HEADER + TIMESTAMP) : 0;
}

/* ---- rows ---------------------------------------------------------------------------------- */

st_region_t st_score_region_id(const char *name)
{
    for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
        if (!strcmp(st_region_info(r)->name, name))
            return r;
    return ST_REGION__COUNT;
}

static uint8_t mpi_group(const st_cli_region_t *r, const char *name)
{
    enum an_call_category cat = an_call_category(st_score_region_id(name));
    if (cat == AN_CAT_INIT_EXIT || cat == AN_CAT_MGMT_COMM || cat == AN_CAT_MGMT_WIN || cat == AN_CAT_MGMT_FILE)
        return ST_SCORE_MPI_OTHER;
    if (r->role == OTF2_REGION_ROLE_POINT2POINT)
        return ST_SCORE_MPI_P2P;
    if (r->role == OTF2_REGION_ROLE_RMA || cat == AN_CAT_RMA_ACTIVE || cat == AN_CAT_RMA_PASSIVE ||
        cat == AN_CAT_RMA_COMM)
        return ST_SCORE_MPI_RMA;
    if (r->role == OTF2_REGION_ROLE_BARRIER || r->role == OTF2_REGION_ROLE_IMPLICIT_BARRIER ||
        (r->role >= OTF2_REGION_ROLE_COLL_ONE2ALL && r->role <= OTF2_REGION_ROLE_COLL_OTHER))
        return ST_SCORE_MPI_COLL;
    return ST_SCORE_MPI_OTHER;
}

static uint8_t group_of(const st_cli_region_t *r, const char *name)
{
    switch (r->paradigm) {
    case OTF2_PARADIGM_MPI:
        return mpi_group(r, name);
    case OTF2_PARADIGM_OPENMP:
        return ST_SCORE_OPENMP;
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
        return ST_SCORE_MEASUREMENT;
    default:
        return ST_SCORE_USER;
    }
}

typedef struct frame {
    size_t row;
    uint64_t enter;
} frame_t;

typedef struct walk {
    const st_cli_archive_t *ar;
    st_score_t *s;
    uint64_t *visits_here; /* per row, this location's ENTERs */
    frame_t *stack;
    size_t depth, cap;
} walk_t;

static size_t row_of(const walk_t *w, uint32_t region)
{
    const st_cli_region_t *r = st_cli_region(w->ar, region);
    return r ? (size_t)(r - w->ar->regions) : w->s->nrows - 1;
}

static int push(walk_t *w, size_t row, uint64_t t)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        frame_t *f = realloc(w->stack, cap * sizeof *f);
        if (!f)
            return -1;
        w->stack = f, w->cap = cap;
    }
    w->stack[w->depth++] = (frame_t){row, t};
    return 0;
}

/* One location: every event sized and charged; regions left open at its end close at its last event. */
static int walk_location(walk_t *w, size_t li)
{
    const st_cli_location_t *l = &w->ar->locs[li];
    st_score_t *s = w->s;
    st_score_loc_t *sl = &s->locs[li];
    *sl = (st_score_loc_t){.rank = l->rank, .thread = l->thread, .events = l->n};
    memset(w->visits_here, 0, s->nrows * sizeof *w->visits_here);
    w->depth = 0;
    uint64_t prev = 0;
    for (size_t k = 0; k < l->n; k++) {
        const st_event_t *e = &l->ev[k];
        uint64_t b = st_score_event_bytes(w->ar, e, prev);
        prev = e->time > prev ? e->time : prev;
        sl->bytes += b;
        size_t row = w->depth ? w->stack[w->depth - 1].row : s->nrows - 1;
        if (e->kind == ST_EV_ENTER) {
            row = row_of(w, e->region);
            if (push(w, row, e->time))
                return -1;
            s->rows[row].visits++;
            w->visits_here[row]++;
            s->rows[row].own_bytes += b;
        } else if (e->kind == ST_EV_LEAVE && w->depth) {
            frame_t f = w->stack[--w->depth];
            row = f.row;
            s->rows[row].time_ns += e->time > f.enter ? e->time - f.enter : 0;
            s->rows[row].own_bytes += b;
        }
        s->rows[row].events++;
        s->rows[row].bytes += b;
    }
    if (l->n) {
        uint64_t end = l->ev[l->n - 1].time;
        sl->span = end - l->ev[0].time;
        s->first = l->ev[0].time < s->first ? l->ev[0].time : s->first;
        s->last = end > s->last ? end : s->last;
        while (w->depth) {
            frame_t f = w->stack[--w->depth];
            s->rows[f.row].time_ns += end - f.enter;
        }
    }
    sl->file_bytes = sl->bytes + st_score_chunk_overhead(sl->bytes);
    for (size_t r = 0; r < s->nrows; r++)
        if (w->visits_here[r] > s->rows[r].visits_max)
            s->rows[r].visits_max = w->visits_here[r];
    return 0;
}

/* The archive's counts of filtered calls (per location and region) as one row per region. Only the
 * tool's MPI regions can be filtered: a name it does not know (a foreign or damaged archive) is left
 * out. 0, or -1 (memory). */
static int filtered_rows(const st_cli_archive_t *ar, st_score_t *s)
{
    st_cli_filtered_t *f;
    size_t n;
    if (st_cli_filtered(ar, &f, &n))
        return -1;
    s->filtered = calloc(n ? n : 1, sizeof *s->filtered);
    for (size_t i = 0; s->filtered && i < n; i++) {
        st_region_t id = st_score_region_id(f[i].region);
        if (id >= ST_REGION__COUNT)
            continue;
        size_t k = 0;
        while (k < s->nfiltered && s->filtered[k].region != id)
            k++;
        st_score_row_t *r = &s->filtered[k];
        if (k == s->nfiltered) {
            const st_region_info_t *info = st_region_info(id);
            st_cli_region_t def = {.role = info->otf2_role, .paradigm = OTF2_PARADIGM_MPI};
            *r = (st_score_row_t){.name = info->name, .region = id, .group = mpi_group(&def, info->name),
                                  .unfilterable = st_region_unfilterable(id)};
            s->nfiltered++;
        }
        r->visits += f[i].visits;
        r->time_ns += f[i].time;
        r->visits_max = f[i].visits > r->visits_max ? f[i].visits : r->visits_max;
    }
    free(f);
    if (!s->filtered)
        return -1;
    st_score_rank(s->filtered, s->nfiltered); /* no bytes: by visits, then name */
    return 0;
}

int st_score_build(const st_cli_archive_t *ar, const char *(*unfilterable)(const char *name), st_score_t *s)
{
    memset(s, 0, sizeof *s);
    s->resolution = ar->resolution ? ar->resolution : 1000000000u;
    s->first = UINT64_MAX;
    s->nrows = ar->nregions + 1; /* the last: "(outside any region)" */
    s->nlocs = ar->nlocs;
    s->rows = calloc(s->nrows, sizeof *s->rows);
    s->locs = calloc(s->nlocs ? s->nlocs : 1, sizeof *s->locs);
    walk_t w = {.ar = ar, .s = s, .visits_here = calloc(s->nrows, sizeof(uint64_t))};
    int rc = s->rows && s->locs && w.visits_here ? 0 : -1;
    for (size_t i = 0; !rc && i < ar->nregions; i++) {
        const char *name = st_cli_string(ar, ar->regions[i].name);
        s->rows[i] = (st_score_row_t){.name = name, .region = ar->regions[i].id,
                                      .group = group_of(&ar->regions[i], name), .unfilterable = unfilterable(name)};
    }
    if (!rc)
        s->rows[s->nrows - 1] = (st_score_row_t){.name = "(outside any region)", .region = ST_CLI_NONE,
                                                 .group = ST_SCORE_USER, .unfilterable = "no region to exclude"};
    for (size_t i = 0; !rc && i < ar->nlocs; i++)
        rc = walk_location(&w, i);
    if (!rc)
        rc = filtered_rows(ar, s);
    free(w.visits_here);
    free(w.stack);
    if (rc) {
        st_score_free(s);
        return -1;
    }
    for (size_t r = 0; r < s->nrows; r++) {
        s->rows[r].time_ns = (uint64_t)((double)s->rows[r].time_ns * 1e9 / (double)s->resolution + 0.5);
        s->events += s->rows[r].events, s->bytes += s->rows[r].bytes;
    }
    if (s->first == UINT64_MAX)
        s->first = s->last = 0;
    return 0;
}

void st_score_free(st_score_t *s)
{
    free(s->rows);
    free(s->filtered);
    free(s->locs);
    memset(s, 0, sizeof *s);
}
