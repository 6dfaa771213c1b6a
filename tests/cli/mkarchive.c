/*
 * mkarchive.c — test fixture: writes an OTF2 archive (DIR/traces.otf2) with exactly the
 * events a small text script lists, so CLI tests can assert exact numbers.
 *
 * Usage: mkarchive DIR < script      (DIR must not exist yet; OTF2 serial mode)
 *
 * Script lines ('#' starts a comment; tokens may be "double quoted"):
 *   ranks N                    world size (default 1); every rank has one thread unless:
 *   threads R N                rank R has N threads (locations R*65536 + 0..N-1)
 *   offset T                   ClockProperties global offset (default 0)
 *   comm ID NAME R...          MPI communicator ID over world ranks R... (events use comm
 *                              ranks); 0 = MPI_COMM_WORLD and 1 = MPI_COMM_SELF are predefined
 *   globalcomm ID NAME R...    same, group flagged GLOBAL_MEMBERS (events use world ranks)
 *   intercomm ID NAME A... / B...  MPI intercommunicator between world ranks A... and B...
 *   team ID R T...             OpenMP thread team (a comm) of threads T... of rank R
 *   prop NAME VALUE            archive property (NAME like SYNCTRACE::X)
 *   nolocaldefs                do not write (empty) per-location definition files
 *   R.T TIME KIND ARGS... [orig=T] [callsite=TEXT] [pid=N]   (pid: synctrace:parallel_id)
 * KIND ARGS (OTF2 records, argument order as in OTF2_EvtWriter_*; ROOT may be '-', or on an
 * intercommunicator 'self' (OTF2_COLLECTIVE_ROOT_SELF) and 'group' (ROOT_THIS_GROUP)):
 *   enter NAME | leave NAME | send PEER COMM TAG BYTES | isend PEER COMM TAG BYTES REQ
 *   isend_complete REQ | irecv_request REQ | recv SRC COMM TAG BYTES
 *   irecv SRC COMM TAG BYTES REQ | cancelled REQ | coll_begin
 *   coll_end OP COMM ROOT SENT RECV | icoll_request REQ | icoll_complete OP COMM ROOT SENT RECV REQ
 *   fork N | join | team_begin TEAM | team_end TEAM | acquire LOCK ORDER | release LOCK ORDER
 *   task_create TEAM THREAD GEN | task_switch TEAM THREAD GEN | task_complete TEAM THREAD GEN
 *   flush STOPTIME
 * OP is a lowercase OTF2 collective name (barrier, bcast, reduce, allreduce, scan, ...).
 * Region roles/paradigms follow the name: "MPI_*" MPI, "!$omp *barrier|reduction*" OpenMP barrier,
 * other "!$omp" OpenMP, "TRACE BUFFER FLUSH" artificial, anything else a user function.
 */
#include <otf2/otf2.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTOK 64
#define MAXR 64
#define MAXT 16
#define MAXSTR 4096
#define MAXCOMM 256

typedef struct { char *tok[MAXTOK]; int n; } line_t;
typedef struct { int rank, thread; line_t l; int lineno; } ev_t;
typedef struct { int id, global, team_rank, nb; char name[64]; int n; int members[MAXR * MAXT]; } comm_t;

static int nranks = 1, nthreads[MAXR], localdefs = 1;
static uint64_t offset;
static char *strs[MAXSTR];
static int nstrs;
static char *regions[MAXSTR];
static int nregions;
static comm_t comms[MAXCOMM];
static int ncomms;
static ev_t *evs;
static int nevs;
static char *props[64][2];
static int nprops;
static int cur_line;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mkarchive: line %d: ", cur_line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static uint32_t str_id(const char *s)
{
    for (int i = 0; i < nstrs; i++)
        if (!strcmp(strs[i], s))
            return (uint32_t)i;
    if (nstrs == MAXSTR)
        die("too many strings");
    strs[nstrs] = strdup(s);
    return (uint32_t)nstrs++;
}

static uint32_t region_id(const char *s)
{
    for (int i = 0; i < nregions; i++)
        if (!strcmp(regions[i], s))
            return (uint32_t)i;
    regions[nregions] = strdup(s);
    str_id(s);
    return (uint32_t)nregions++;
}

static void tokenize(char *p, line_t *l)
{
    l->n = 0;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            break;
        if (l->n == MAXTOK)
            die("too many tokens");
        char *start = p, *out = p;
        int quoted = 0;
        while (*p && (quoted || !isspace((unsigned char)*p))) {
            if (*p == '"') { quoted = !quoted; p++; continue; }
            *out++ = *p++;
        }
        if (*p)
            p++;
        *out = 0;
        l->tok[l->n++] = strdup(start);
    }
}

static uint64_t num(const char *s)
{
    char *end;
    if (!strcmp(s, "-"))
        return OTF2_UNDEFINED_UINT32;
    if (!strcmp(s, "self"))
        return OTF2_COLLECTIVE_ROOT_SELF;
    if (!strcmp(s, "group"))
        return OTF2_COLLECTIVE_ROOT_THIS_GROUP;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        die("not a number: '%s'", s);
    return v;
}

static const char *const opnames[] = {
    "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce", "reduce_scatter", "scan",
    "exscan", "reduce_scatter_block", "create_handle", "destroy_handle", "allocate",
    "deallocate", "create_handle_and_allocate", "destroy_handle_and_deallocate"};

static OTF2_CollectiveOp opnum(const char *s)
{
    for (size_t i = 0; i < sizeof opnames / sizeof *opnames; i++)
        if (!strcmp(opnames[i], s))
            return (OTF2_CollectiveOp)i;
    die("unknown collective op '%s'", s);
    return 0;
}

/* ---- script parsing ------------------------------------------------------------ */

static void add_comm(line_t *l, int global, int team)
{
    if (l->n < 3 + (team ? 0 : 0))
        die("comm/team needs ID and members");
    comm_t *c = &comms[ncomms++];
    c->id = (int)num(l->tok[1]);
    c->global = global;
    c->team_rank = team ? (int)num(l->tok[2]) : -1;
    snprintf(c->name, sizeof c->name, "%s", team ? "OpenMP team" : l->tok[2]);
    c->nb = -1;
    for (int i = 3; i < l->n; i++) {
        if (!strcmp(l->tok[i], "/")) { c->nb = 0; continue; }
        c->members[c->n++] = (int)num(l->tok[i]);
        c->nb += c->nb >= 0;
    }
    if (c->id != ncomms + 1) /* OTF2 readers expect comm ids defined in order */
        die("comm/team ids must be 2, 3, ... in declaration order (0, 1 are predefined)");
}

static void parse(FILE *in)
{
    char buf[4096];
    int cap = 0;
    for (int r = 0; r < MAXR; r++)
        nthreads[r] = 1;
    while (fgets(buf, sizeof buf, in)) {
        cur_line++;
        line_t l;
        tokenize(buf, &l);
        if (!l.n)
            continue;
        const char *k = l.tok[0];
        if (!strcmp(k, "ranks")) nranks = (int)num(l.tok[1]);
        else if (!strcmp(k, "threads")) nthreads[num(l.tok[1])] = (int)num(l.tok[2]);
        else if (!strcmp(k, "offset")) offset = num(l.tok[1]);
        else if (!strcmp(k, "comm")) add_comm(&l, 0, 0);
        else if (!strcmp(k, "globalcomm")) add_comm(&l, 1, 0);
        else if (!strcmp(k, "team")) add_comm(&l, 0, 1);
        else if (!strcmp(k, "intercomm")) add_comm(&l, 0, 0);
        else if (!strcmp(k, "nolocaldefs")) localdefs = 0;
        else if (!strcmp(k, "prop")) { props[nprops][0] = l.tok[1]; props[nprops++][1] = l.tok[2]; }
        else if (isdigit((unsigned char)k[0]) && strchr(k, '.')) {
            if (nevs == cap)
                evs = realloc(evs, sizeof *evs * (size_t)(cap = cap ? 2 * cap : 256));
            ev_t *e = &evs[nevs++];
            e->rank = atoi(k);
            e->thread = atoi(strchr(k, '.') + 1);
            e->l = l;
            e->lineno = cur_line;
            if (l.n < 3)
                die("event needs TIME and KIND");
            if (e->rank >= nranks || e->thread >= nthreads[e->rank])
                die("location %s not declared", k);
            if (!strcmp(l.tok[2], "enter") || !strcmp(l.tok[2], "leave"))
                region_id(l.tok[3]);
        } else
            die("unknown directive '%s'", k);
    }
}

/* ---- writing ------------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool f)
{
    (void)u; (void)ft; (void)l; (void)c; (void)f;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u; (void)ft; (void)l;
    return 0;
}
static OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};

static uint64_t loc_id(int r, int t) { return (uint64_t)r * 65536u + (uint64_t)t; }

static uint64_t arg(ev_t *e, int i)
{
    if (i >= e->l.n || strchr(e->l.tok[i], '='))
        die("%s: missing argument %d", e->l.tok[2], i - 2);
    return num(e->l.tok[i]);
}

static int write_event(OTF2_EvtWriter *w, OTF2_AttributeList *al, ev_t *e)
{
    const char *k = e->l.tok[2];
    uint64_t t = num(e->l.tok[1]);
    for (int i = 3; i < e->l.n; i++) {
        if (!strncmp(e->l.tok[i], "orig=", 5))
            OTF2_AttributeList_AddUint64(al, 1, num(e->l.tok[i] + 5));
        else if (!strncmp(e->l.tok[i], "callsite=", 9))
            OTF2_AttributeList_AddStringRef(al, 0, str_id(e->l.tok[i] + 9));
        else if (!strncmp(e->l.tok[i], "pid=", 4))
            OTF2_AttributeList_AddUint64(al, 2, num(e->l.tok[i] + 4));
    }
#define A(i) arg(e, 2 + (i))
#define IS(s) (!strcmp(k, s))
    if (IS("enter")) return OTF2_EvtWriter_Enter(w, al, t, region_id(e->l.tok[3]));
    if (IS("leave")) return OTF2_EvtWriter_Leave(w, al, t, region_id(e->l.tok[3]));
    if (IS("send")) return OTF2_EvtWriter_MpiSend(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3), A(4));
    if (IS("isend")) return OTF2_EvtWriter_MpiIsend(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3), A(4), A(5));
    if (IS("isend_complete")) return OTF2_EvtWriter_MpiIsendComplete(w, al, t, A(1));
    if (IS("irecv_request")) return OTF2_EvtWriter_MpiIrecvRequest(w, al, t, A(1));
    if (IS("recv")) return OTF2_EvtWriter_MpiRecv(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3), A(4));
    if (IS("irecv")) return OTF2_EvtWriter_MpiIrecv(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3), A(4), A(5));
    if (IS("cancelled")) return OTF2_EvtWriter_MpiRequestCancelled(w, al, t, A(1));
    if (IS("coll_begin")) return OTF2_EvtWriter_MpiCollectiveBegin(w, al, t);
    if (IS("coll_end"))
        return OTF2_EvtWriter_MpiCollectiveEnd(w, al, t, opnum(e->l.tok[3]), (uint32_t)A(2), (uint32_t)A(3), A(4), A(5));
    if (IS("icoll_request")) return OTF2_EvtWriter_NonBlockingCollectiveRequest(w, al, t, A(1));
    if (IS("icoll_complete"))
        return OTF2_EvtWriter_NonBlockingCollectiveComplete(w, al, t, opnum(e->l.tok[3]), (uint32_t)A(2),
                                                            (uint32_t)A(3), A(4), A(5), A(6));
    if (IS("fork")) return OTF2_EvtWriter_ThreadFork(w, al, t, OTF2_PARADIGM_OPENMP, (uint32_t)A(1));
    if (IS("join")) return OTF2_EvtWriter_ThreadJoin(w, al, t, OTF2_PARADIGM_OPENMP);
    if (IS("team_begin")) return OTF2_EvtWriter_ThreadTeamBegin(w, al, t, (uint32_t)A(1));
    if (IS("team_end")) return OTF2_EvtWriter_ThreadTeamEnd(w, al, t, (uint32_t)A(1));
    if (IS("acquire")) return OTF2_EvtWriter_ThreadAcquireLock(w, al, t, OTF2_PARADIGM_OPENMP, (uint32_t)A(1), (uint32_t)A(2));
    if (IS("release")) return OTF2_EvtWriter_ThreadReleaseLock(w, al, t, OTF2_PARADIGM_OPENMP, (uint32_t)A(1), (uint32_t)A(2));
    if (IS("task_create")) return OTF2_EvtWriter_ThreadTaskCreate(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3));
    if (IS("task_switch")) return OTF2_EvtWriter_ThreadTaskSwitch(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3));
    if (IS("task_complete")) return OTF2_EvtWriter_ThreadTaskComplete(w, al, t, (uint32_t)A(1), (uint32_t)A(2), (uint32_t)A(3));
    if (IS("flush")) return OTF2_EvtWriter_BufferFlush(w, al, t, A(1));
#undef A
#undef IS
    die("unknown event kind '%s'", k);
    return 1;
}

static void write_events(OTF2_Archive *ar, uint64_t *counts)
{
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    for (int r = 0; r < nranks; r++)
        for (int t = 0; t < nthreads[r]; t++) {
            OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, loc_id(r, t));
            for (int i = 0; i < nevs; i++)
                if (evs[i].rank == r && evs[i].thread == t) {
                    cur_line = evs[i].lineno;
                    if (write_event(w, al, &evs[i]) != OTF2_SUCCESS)
                        die("OTF2 rejected the event");
                    counts[r * MAXT + t]++;
                }
            OTF2_Archive_CloseEvtWriter(ar, w);
            if (localdefs)
                OTF2_Archive_CloseDefWriter(ar, OTF2_Archive_GetDefWriter(ar, loc_id(r, t)));
        }
    OTF2_AttributeList_Delete(al);
}

static OTF2_RegionRole role_of(const char *n)
{
    if (!strncmp(n, "!$omp", 5) && strstr(n, "implicit barrier")) return OTF2_REGION_ROLE_IMPLICIT_BARRIER;
    if (!strncmp(n, "!$omp", 5) && (strstr(n, "barrier") || strstr(n, "reduction"))) return OTF2_REGION_ROLE_BARRIER;
    if (!strcmp(n, "TRACE BUFFER FLUSH")) return OTF2_REGION_ROLE_ARTIFICIAL;
    return OTF2_REGION_ROLE_FUNCTION;
}

static OTF2_Paradigm paradigm_of(const char *n)
{
    if (!strncmp(n, "MPI_", 4)) return OTF2_PARADIGM_MPI;
    if (!strncmp(n, "!$omp", 5)) return OTF2_PARADIGM_OPENMP;
    if (!strcmp(n, "TRACE BUFFER FLUSH")) return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    return OTF2_PARADIGM_USER;
}

static void write_comms(OTF2_GlobalDefWriter *g)
{
    uint64_t m[MAXR * MAXT];
    for (int r = 0; r < nranks; r++) m[r] = loc_id(r, 0);
    OTF2_GlobalDefWriter_WriteGroup(g, 0, str_id(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, 0, (uint32_t)nranks, m);
    for (int r = 0; r < nranks; r++) m[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(g, 1, str_id("MPI_COMM_WORLD"), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 0, (uint32_t)nranks, m);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, str_id("MPI_COMM_SELF"), OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, 0, 0, m);
    int nomp = 0;
    for (int r = 0; r < nranks; r++)
        for (int t = 0; t < nthreads[r]; t++) m[nomp++] = loc_id(r, t);
    OTF2_GlobalDefWriter_WriteGroup(g, 3, str_id(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP, 0, (uint32_t)nomp, m);
    OTF2_GlobalDefWriter_WriteComm(g, 0, str_id("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, 0);
    OTF2_GlobalDefWriter_WriteComm(g, 1, str_id("MPI_COMM_SELF"), 2, OTF2_UNDEFINED_COMM, 0);
    uint32_t gid = 4;
    for (int i = 0; i < ncomms; i++) {
        comm_t *c = &comms[i];
        OTF2_Paradigm p = c->team_rank >= 0 ? OTF2_PARADIGM_OPENMP : OTF2_PARADIGM_MPI;
        for (int j = 0; j < c->n; j++) {
            m[j] = (uint64_t)c->members[j];
            if (c->team_rank >= 0) { /* index into the OpenMP COMM_LOCATIONS group */
                int idx = 0;
                for (int r = 0; r < c->team_rank; r++) idx += nthreads[r];
                m[j] = (uint64_t)(idx + c->members[j]);
            }
        }
        if (c->nb >= 0) { /* intercommunicator: two groups */
            int na = c->n - c->nb;
            OTF2_GlobalDefWriter_WriteGroup(g, gid, str_id(c->name), OTF2_GROUP_TYPE_COMM_GROUP, p, 0, (uint32_t)na, m);
            OTF2_GlobalDefWriter_WriteGroup(g, gid + 1, str_id(c->name), OTF2_GROUP_TYPE_COMM_GROUP, p, 0,
                                            (uint32_t)c->nb, m + na);
            OTF2_GlobalDefWriter_WriteInterComm(g, (uint32_t)c->id, str_id(c->name), gid, gid + 1, 0, 0);
            gid += 2;
            continue;
        }
        OTF2_GlobalDefWriter_WriteGroup(g, gid, str_id(c->name), OTF2_GROUP_TYPE_COMM_GROUP, p,
                                        c->global ? OTF2_GROUP_FLAG_GLOBAL_MEMBERS : 0, (uint32_t)c->n, m);
        OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)c->id, str_id(c->name), gid++,
                                       c->team_rank >= 0 ? OTF2_UNDEFINED_COMM : 0, 0);
    }
}

static void write_defs(OTF2_Archive *ar, const uint64_t *counts)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    uint64_t tmin = UINT64_MAX, tmax = 0;
    for (int i = 0; i < nevs; i++) {
        uint64_t t = num(evs[i].l.tok[1]);
        tmin = t < tmin ? t : tmin;
        tmax = t > tmax ? t : tmax;
    }
    if (!nevs) tmin = offset;
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, offset, tmax >= offset ? tmax - offset + 1 : 0, 0);
    /* strings first: intern every name used below, then write them all */
    uint32_t s_node = str_id("machine"), s_cls = str_id("node"), s_cs = str_id("callsite"),
             s_orig = str_id("synctrace:orig_time"), s_pid = str_id("synctrace:parallel_id"), s_none = str_id("");
    char name[64];
    for (int r = 0; r < nranks; r++) {
        snprintf(name, sizeof name, "MPI Rank %d", r);
        str_id(name);
        for (int t = 0; t < nthreads[r]; t++) {
            snprintf(name, sizeof name, "Thread %d:%d", r, t);
            str_id(name);
        }
    }
    str_id("MPI_COMM_WORLD");
    str_id("MPI_COMM_SELF");
    for (int i = 0; i < ncomms; i++)
        str_id(comms[i].name);
    for (int i = 0; i < nstrs; i++)
        OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, strs[i]);
    OTF2_GlobalDefWriter_WriteAttribute(g, 0, s_cs, s_none, OTF2_TYPE_STRING);
    OTF2_GlobalDefWriter_WriteAttribute(g, 1, s_orig, s_none, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, 2, s_pid, s_none, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_node, s_cls, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (int i = 0; i < nregions; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, str_id(regions[i]), str_id(regions[i]), s_none,
                                         role_of(regions[i]), paradigm_of(regions[i]), OTF2_REGION_FLAG_NONE,
                                         s_none, 0, 0);
    for (int r = 0; r < nranks; r++) {
        snprintf(name, sizeof name, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, str_id(name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (int r = 0; r < nranks; r++)
        for (int t = 0; t < nthreads[r]; t++) {
            snprintf(name, sizeof name, "Thread %d:%d", r, t);
            OTF2_GlobalDefWriter_WriteLocation(g, loc_id(r, t), str_id(name), OTF2_LOCATION_TYPE_CPU_THREAD,
                                               counts[r * MAXT + t], (uint32_t)r);
        }
    write_comms(g);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkarchive DIR < script\n");
        return 2;
    }
    parse(stdin);
    static uint64_t counts[MAXR * MAXT];
    /* the chunk sizes of the library's archives of small runs (src/otf2: st_otf2_def_chunk) */
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        die("cannot create archive in %s", argv[1]);
    OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_SetCreator(ar, "mkarchive");
    for (int i = 0; i < nprops; i++)
        if (OTF2_Archive_SetProperty(ar, props[i][0], props[i][1], true) != OTF2_SUCCESS)
            die("bad property name '%s'", props[i][0]);
    OTF2_Archive_OpenEvtFiles(ar);
    if (localdefs)
        OTF2_Archive_OpenDefFiles(ar);
    write_events(ar, counts);
    OTF2_Archive_CloseEvtFiles(ar);
    if (localdefs)
        OTF2_Archive_CloseDefFiles(ar);
    write_defs(ar, counts);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : 1;
}
