/*
 * tree.c — the metric tree above the patterns (docs/analysis.md, "Metric tree"): Execution, Computation,
 * Overhead and the MPI subtree (Management, Synchronization, Communication, File I/O),
 * computed from Time, idle threads, MPI and OpenMP time once every pattern has been added.
 *
 * Scalasca derives these in CUBE (CubePL over call-path masks). Here they are stored
 * values, each the metric's whole amount at (call path, location), so that a parent
 * includes its children exactly and one call can be classified by what it did: an
 * MPI_Wait/Test that completes only nonblocking collective requests is collective time
 * (the completing call is where a nonblocking operation's wait sits), not point-to-point.
 *
 *   Execution   = Time - Idle threads - Overhead
 *   Overhead    = Time - Idle threads at the tool's own regions (TRACE BUFFER FLUSH)
 *   Computation = Execution - MPI - OpenMP
 *   MPI         = Management + Synchronization + Communication + File I/O + other MPI calls
 * An MPI call belongs to one category, by name first (management, file I/O: the wrapper
 * table's category lines), then by region role (barrier: Synchronization/Collective;
 * point-to-point: Point-to-point; one2all, all2one, all2all, other collective:
 * Communication/Collective), then by call kind (Test*, Wait*: Point-to-point); the table's
 * data reach the analysis through call_kinds.h.
 */
#include "internal.h"

#include <stdlib.h>

#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_Definitions.h>

#include "../model/region.h"
#include "call_kinds.h"
#include "patterns.h"

/* The innermost MPI-subtree metric a call of region r belongs to, or -1 (other MPI calls). */
static int an_mpi_category(uint32_t r)
{
    const st_region_info_t *ri = st_region_info(r);
    if (!ri || ri->paradigm != ST_PARADIGM_MPI)
        return -1;
    switch (an_call_category(r)) {
    case AN_CAT_INIT_EXIT: return ST_AN_M_MPI_INIT_EXIT;
    case AN_CAT_MGMT_COMM: return ST_AN_M_MPI_MGMT_COMM;
    case AN_CAT_MGMT_WIN:  return ST_AN_M_MPI_MGMT_WIN;
    case AN_CAT_IO_COLL:   return ST_AN_M_MPI_IO_COLL;
    case AN_CAT_IO_INDIV:  return ST_AN_M_MPI_IO_INDIV;
    case AN_CAT_MGMT_FILE: return ST_AN_M_MPI_MGMT_FILE;
    case AN_CAT_RMA_ACTIVE:  return ST_AN_M_RMA_SYNC_ACTIVE;
    case AN_CAT_RMA_PASSIVE: return ST_AN_M_RMA_SYNC_PASSIVE;
    case AN_CAT_RMA_COMM:    return ST_AN_M_RMA_COMM;
    case AN_CAT_NONE:      break;
    }
    switch (ri->otf2_role) {
    case OTF2_REGION_ROLE_BARRIER:     return ST_AN_M_MPI_SYNC_COLL;
    case OTF2_REGION_ROLE_POINT2POINT: return ST_AN_M_MPI_P2P;
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER:  return ST_AN_M_MPI_COLL;
    default:                           break;
    }
    switch (an_call_kind(r)) {
    case AN_CALL_WAIT_ONE:
    case AN_CALL_WAIT_MANY:
    case AN_CALL_TEST: return ST_AN_M_MPI_P2P;
    default:           return -1;
    }
}

/* Adds v to metric m and its ancestors up to (not including) MPI. */
static void add_mpi(st_an_result_t *r, int m, uint32_t k, uint32_t l, double v)
{
    for (; m != ST_AN_M_MPI && m != ST_AN_M_ROOT; m = st_an_metric(m)->parent)
        *st_an_sev(r, m, k, l) += v;
}

/* The exclusive time of one call (its duration minus its direct callees'). The callees are the calls
 * directly inside it, not the children of its cnode: with call paths those are function frames. */
static double call_excl(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    uint64_t end = an_leave(c, l, call) != AN_NO_EV ? an_leave(c, l, call) : c->in->locs[l].n - 1;
    double t = (double)st_an_diff(an_leave_time(c, l, call), an_time(c, l, call));
    for (uint64_t i = call + 1; i < end; i++)
        if (an_is_enter(c, l, i)) {
            t -= (double)st_an_diff(an_leave_time(c, l, i), an_time(c, l, i));
            if (an_leave(c, l, i) == AN_NO_EV)
                break;
            i = an_leave(c, l, i); /* over the callee's own callees */
        }
    return t;
}

void an_call_completes(const an_ctx_t *c, uint32_t l, uint64_t call, int *coll, int *p2p, int *barrier)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    uint64_t end = an_leave(c, l, call) != AN_NO_EV ? an_leave(c, l, call) : L->n;
    *coll = *p2p = 0, *barrier = 1;
    for (uint64_t i = call + 1; i < end; i++) {
        if (an_call(c, l, i) != call)
            continue;
        unsigned kind = L->ev[i].kind;
        if (kind == ST_EV_MPI_ICOLL_COMPLETE)
            *coll = 1, *barrier &= L->ev[i].op == OTF2_COLLECTIVE_OP_BARRIER;
        else if (kind == ST_EV_MPI_ISEND_COMPLETE || kind == ST_EV_MPI_IRECV || kind == ST_EV_MPI_REQUEST_CANCELLED)
            *p2p = 1;
    }
}

/* Point-to-point completion calls (Wait*, Test*) that completed only nonblocking collective
 * requests: their time moves to the collective metric of what they completed. Only calls
 * around an ICOLL_COMPLETE (c->icoll_done, by location and event) can be such a call. */
static void completions(an_ctx_t *c, const uint8_t *p2p_cnode)
{
    uint32_t last_l = UINT32_MAX;
    uint64_t last_call = AN_NO_EV;
    for (size_t k = 0; k < c->icoll_done.n; k++) {
        uint32_t l = c->icoll_done.v[k].loc;
        uint64_t call = an_call(c, l, c->icoll_done.v[k].ev);
        if (call == AN_NO_EV || (l == last_l && call == last_call) || !p2p_cnode[an_cnode(c, l, call)])
            continue;
        last_l = l, last_call = call;
        int coll, p2p, barrier;
        an_call_completes(c, l, call, &coll, &p2p, &barrier);
        if (coll && !p2p) {
            uint32_t cn = an_cnode(c, l, call);
            double v = call_excl(c, l, call);
            add_mpi(c->res, ST_AN_M_MPI_P2P, cn, l, -v);
            add_mpi(c->res, barrier ? ST_AN_M_MPI_SYNC_COLL : ST_AN_M_MPI_COLL, cn, l, v);
        }
    }
}

int an_tree(an_ctx_t *c)
{
    st_an_result_t *r = c->res;
    uint8_t *p2p_cnode = calloc(r->ncnodes + 1, 1); /* the category once per call path, not per call */
    if (!p2p_cnode)
        return -1;
    for (uint32_t k = 1; k < r->ncnodes; k++) {
        int m = an_mpi_category(r->cnodes[k].region);
        p2p_cnode[k] = m == ST_AN_M_MPI_P2P;
        for (uint32_t l = 0; m >= 0 && l < r->nlocs; l++)
            add_mpi(r, m, k, l, *st_an_sev(r, ST_AN_M_MPI, k, l));
    }
    completions(c, p2p_cnode);
    free(p2p_cnode);
    for (uint32_t k = 0; k < r->ncnodes; k++) {
        const st_region_info_t *ri = k ? st_region_info(r->cnodes[k].region) : NULL;
        int tool = ri && ri->paradigm == ST_PARADIGM_MEASUREMENT;
        for (uint32_t l = 0; l < r->nlocs; l++) {
            double busy = *st_an_sev(r, ST_AN_M_TIME, k, l) - *st_an_sev(r, ST_AN_M_OMP_IDLE, k, l);
            double *over = st_an_sev(r, ST_AN_M_OVERHEAD, k, l), *exec = st_an_sev(r, ST_AN_M_EXECUTION, k, l);
            *over = tool && busy > 0 ? busy : 0;
            *exec = busy - *over;
            *st_an_sev(r, ST_AN_M_COMP, k, l) =
                *exec - *st_an_sev(r, ST_AN_M_MPI, k, l) - *st_an_sev(r, ST_AN_M_OMP, k, l);
        }
    }
    return 0;
}
