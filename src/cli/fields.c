/* fields.c — which fields each event kind shows in `synctrace dump` (see docs/dump-format.md). */
#include "fields.h"

#include "../model/callpath.h"

typedef struct fill {
    st_cli_field_t *f;
    int n;
} fill_t;

static void num(fill_t *x, const char *name, int64_t v)
{
    x->f[x->n++] = (st_cli_field_t){.name = name, .type = ST_CLI_F_INT, .i = v};
}

static void str(fill_t *x, const char *name, const char *s)
{
    x->f[x->n++] = (st_cli_field_t){.name = name, .type = ST_CLI_F_STR, .s = s};
}

static void message(fill_t *x, const st_event_t *e)
{
    num(x, "peer", e->peer);
    num(x, "comm", e->comm);
    num(x, "tag", (uint32_t)e->tag);
    num(x, "bytes", (int64_t)e->bytes);
}

static void collective(fill_t *x, const st_event_t *e)
{
    str(x, "op", st_cli_op_name(e->op));
    num(x, "comm", e->comm);
    if (e->peer >= 0 || (e->flags & ST_CLI_EVF_BADPEER))
        num(x, "root", e->peer);
    num(x, "sent", (int64_t)e->bytes);
    num(x, "recv", (int64_t)e->bytes2);
}

static void region(fill_t *x, const st_cli_archive_t *ar, const st_event_t *e)
{
    const st_cli_region_t *r = st_cli_region(ar, e->region);
    str(x, "region", r ? st_cli_string(ar, r->name) : "?");
}

/* One-sided MPI: the window (OTF2 RmaWin ref), then the record's own fields. */
static void rma(fill_t *x, const st_event_t *e)
{
    num(x, "win", e->region == ST_CLI_NONE ? -1 : (int64_t)e->region);
    switch (e->kind) {
    case ST_EV_RMA_COLL_END: str(x, "op", st_cli_op_name(e->op)); num(x, "sync", (int64_t)e->bytes); break;
    case ST_EV_RMA_GROUP_SYNC: /* group: the Group definition of a post's or start's group, else -1 */
        num(x, "sync", (int64_t)e->bytes);
        num(x, "group", e->id >= UINT32_MAX ? -1 : (int64_t)e->id);
        break;
    case ST_EV_RMA_REQUEST_LOCK: num(x, "target", e->peer); str(x, "lock", e->op == 0 ? "exclusive" : "shared"); break;
    case ST_EV_RMA_ACQUIRE_LOCK:
        num(x, "target", e->peer), str(x, "lock", e->op == 0 ? "exclusive" : "shared"), num(x, "ticket", (int64_t)e->id);
        break;
    case ST_EV_RMA_RELEASE_LOCK: num(x, "target", e->peer); break;
    case ST_EV_RMA_SYNC: num(x, "target", e->peer); num(x, "type", e->op); break;
    case ST_EV_RMA_PUT: case ST_EV_RMA_GET:
        num(x, "target", e->peer), num(x, "bytes", (int64_t)e->bytes), num(x, "id", (int64_t)e->id);
        break;
    case ST_EV_RMA_ATOMIC:
        num(x, "target", e->peer), num(x, "type", e->op), num(x, "sent", (int64_t)e->bytes);
        num(x, "recv", (int64_t)e->bytes2), num(x, "id", (int64_t)e->id);
        break;
    case ST_EV_RMA_OP_COMPLETE_REMOTE: case ST_EV_RMA_OP_COMPLETE_NONBLOCKING: num(x, "id", (int64_t)e->id); break;
    default: break;
    }
}

static void kind_fields(fill_t *x, const st_cli_archive_t *ar, const st_event_t *e)
{
    if ((e->kind >= ST_EV_RMA_WIN_CREATE && e->kind <= ST_EV_RMA_OP_COMPLETE_NONBLOCKING) || e->kind == ST_EV_RMA_ACQUIRE_LOCK) {
        rma(x, e);
        return;
    }
    switch (e->kind) {
    case ST_EV_ENTER: case ST_EV_LEAVE: region(x, ar, e); break;
    case ST_EV_MPI_SEND: case ST_EV_MPI_RECV: message(x, e); break;
    case ST_EV_MPI_ISEND: case ST_EV_MPI_IRECV: message(x, e); num(x, "request", (int64_t)e->id); break;
    case ST_EV_MPI_ISEND_COMPLETE: case ST_EV_MPI_IRECV_REQUEST: case ST_EV_MPI_REQUEST_CANCELLED:
    case ST_EV_MPI_ICOLL_REQUEST: case ST_EV_MPI_REQUEST_TEST: num(x, "request", (int64_t)e->id); break;
    case ST_EV_MPI_COLL_END: collective(x, e); break;
    case ST_EV_MPI_ICOLL_COMPLETE: collective(x, e); num(x, "request", (int64_t)e->id); break;
    case ST_EV_THREAD_FORK: num(x, "threads", (int64_t)e->bytes); break;
    case ST_EV_THREAD_TEAM_BEGIN: case ST_EV_THREAD_TEAM_END: num(x, "team", e->comm); break;
    case ST_EV_THREAD_ACQUIRE_LOCK: case ST_EV_THREAD_RELEASE_LOCK:
        num(x, "lock", (int64_t)e->id);
        num(x, "order", (int64_t)e->bytes);
        break;
    case ST_EV_THREAD_TASK_CREATE: case ST_EV_THREAD_TASK_SWITCH: case ST_EV_THREAD_TASK_COMPLETE:
        num(x, "team", e->comm);
        num(x, "creator", (uint32_t)e->tag);
        num(x, "generation", (int64_t)e->bytes2);
        break;
    case ST_EV_BUFFER_FLUSH: num(x, "stop_t", (int64_t)(e->bytes - ar->offset)); break;
    case ST_EV_MEASUREMENT: str(x, "mode", e->tag == 1 ? "on" : e->tag == 2 ? "off" : "?"); break;
    case ST_EV_PROGRAM_BEGIN: str(x, "name", st_cli_string(ar, (uint32_t)e->id)); break;
    case ST_EV_PROGRAM_END: num(x, "status", (int64_t)e->bytes); break;
    default: break;
    }
}

int st_cli_event_fields(const st_cli_archive_t *ar, const st_event_t *e, st_cli_field_t *f)
{
    fill_t x = {f, 0};
    kind_fields(&x, ar, e);
    if (e->flags & ST_CLI_EVF_PID)
        num(&x, "parallel_id", (int64_t)e->id);
    if (e->flags & ST_CLI_EVF_ORDER)
        num(&x, e->kind == ST_EV_MPI_RECV ? "post" : "instance", (int64_t)st_cli_event_order(e));
    if (e->kind == ST_EV_ENTER && e->aux)
        str(&x, "callsite", st_cli_string(ar, (uint32_t)(e->aux - 1)));
    uint32_t cctx = st_event_callpath(e);
    const st_cli_cctx_t *cc = cctx != ST_CP_NONE ? st_cli_cctx(ar, cctx) : NULL;
    if (cc && cc->path)
        str(&x, "callpath", cc->path);
    if (e->flags & ST_EVF_CLC_MOVED)
        num(&x, "orig_t", (int64_t)(st_event_orig_time(e) - ar->offset));
    return x.n;
}
