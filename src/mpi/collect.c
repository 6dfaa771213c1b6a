/* collect.c — this rank's recorded data at the end of the run (events, communicators, call paths,
 * run properties), and the memory set-up around the correction that finalize and the OpenMP-only
 * writer share (lifecycle.h, lifecycle_int.h). */
#include "lifecycle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/heap.h"
#include "../util/log.h"
#include "../util/mem.h"
#include "callsite.h"
#include "comm.h"
#include "st_mpi.h"

#ifndef ST_VERSION
#error "ST_VERSION: the Makefile passes its VERSION"
#endif

/* ---- collecting this rank's data --------------------------------------------------------- */

static void copy_comms(st_rankdata_t *rd)
{
    uint32_t n;
    st_comm_t **all = st_comm_all(&n);
    rd->comms = calloc(n ? n : 1, sizeof *rd->comms);
    if (!rd->comms)
        return;
    for (uint32_t i = 0; i < n; i++) {
        st_comm_def_t *d = &rd->comms[i];
        *d = st_comm_def_now(all[i]);
        d->world = malloc(sizeof(int32_t) * (d->size ? d->size : 1));
        d->remote_world = d->remote_size ? malloc(sizeof(int32_t) * d->remote_size) : NULL;
        if (d->world)
            memcpy(d->world, all[i]->def.world, sizeof(int32_t) * d->size);
        if (d->remote_world)
            memcpy(d->remote_world, all[i]->def.remote_world, sizeof(int32_t) * d->remote_size);
    }
    rd->ncomms = n;
}

int st_collect_rankdata(st_rankdata_t *rd, int incomplete)
{
    memset(rd, 0, sizeof *rd);
    rd->rank = st_world_rank >= 0 ? st_world_rank : 0;
    rd->nranks = st_world_size > 0 ? st_world_size : 1;
    rd->pid = (int32_t)getpid();
    rd->flags = (incomplete ? ST_RANKF_INCOMPLETE : 0) | (st_lc_mpi_started ? 0 : ST_RANKF_NO_MPI);
    gethostname(rd->hostname, sizeof rd->hostname - 1);
    if (st_config.node_size > 0)
        snprintf(rd->nodename, sizeof rd->nodename, "node%lu", (unsigned long)(rd->rank / st_config.node_size));
    else
        memcpy(rd->nodename, rd->hostname, sizeof rd->nodename);
    rd->timer_resolution = 1000000000u;
    size_t nth;
    st_thread_t **threads = st_record_threads(&nth);
    rd->threads = calloc(nth ? nth : 1, sizeof *rd->threads);
    if (!rd->threads)
        return -1;
    rd->t_begin = UINT64_MAX;
    uint64_t lost = 0;
    for (size_t i = 0; i < nth; i++) {
        st_thread_data_t *td = &rd->threads[rd->nthreads];
        size_t n = 0;
        td->index = threads[i]->index;
        td->omp_num = threads[i]->omp_thread_num;
        td->flushes = threads[i]->flushes;
        td->events = st_record_load(threads[i], &n);
        td->nevents = n;
        lost += threads[i]->lost; /* (after the load: it counts the LEAVEs its lost ENTERs orphaned) */
        if (n) {
            if (td->events[0].time < rd->t_begin)
                rd->t_begin = td->events[0].time;
            if (td->events[n - 1].time > rd->t_end)
                rd->t_end = td->events[n - 1].time;
        }
        rd->nthreads++;
    }
    if (rd->t_begin == UINT64_MAX)
        rd->t_begin = 0;
    copy_comms(rd);
    if (lost) { /* full buffers could not be spilled: say how much is missing */
        rd->flags |= ST_RANKF_INCOMPLETE;
        st_rankdata_prop(rd, "EVENTS_LOST", "%llu", (unsigned long long)lost);
        incomplete = 1;
    }
    st_run_props(rd, incomplete);
    return 0;
}

void st_run_props(st_rankdata_t *rd, int incomplete)
{
    st_rankdata_prop(rd, "VERSION", "%s", ST_VERSION);
    st_rankdata_prop(rd, "INCOMPLETE", "%s", incomplete ? "true" : "false");
    st_rankdata_prop(rd, "BUFFER", "%zu", st_config.buffer);
}

/* ---- memory and call paths around the correction (finalize, OpenMP-only writer) ------------- */

/*
 * From the trace's collection to its end, finalize's blocks come from the heap and stay there
 * (util/heap.h), and the heap's growth up to what finalize is expected to need beyond the events
 * is marked for huge pages. Unlike the read-back events (record/spill.h), whose huge pages are each
 * touched once, the heap's pages serve CLC, the analysis and the write in turn: what a fresh huge
 * page costs is paid once (docs/performance.md, "Finalize's memory in huge pages").
 */
void st_lc_heap_begin(const st_rankdata_t *rd)
{
    st_heap_reuse(1, (size_t)st_rankdata_nevents(rd) * ST_FINALIZE_B_PER_EVENT);
}

void st_lc_heap_end(void)
{
    st_heap_reuse(0, 0);
}

/*
 * The unused tails of the threads' event buffers (populated at registration, idle once
 * recording has stopped and the events are loaded) become the correction's memory, so
 * that it takes no page faults while they last (util/mem.h). A guard of 64 events after
 * the last one stays untouched. So does a thread's other buffer (the spare, or the first
 * buffer when the spare is current), populated too: lent whole when it holds no events
 * (none pending: what it held is in the spill file, where a dump reads it) and the guard
 * lies below the flush limit, so that a late event cannot hand the current buffer over
 * into it.
 */
void st_lc_lend_idle_buffers(void)
{
    enum { GUARD = 64 };
    void *base[ST_MEM_REGIONS];
    size_t len[ST_MEM_REGIONS], nth;
    int n = 0;
    st_thread_t **threads = st_record_threads(&nth);
    for (size_t i = 0; i < nth && n < ST_MEM_REGIONS; i++) {
        const st_thread_t *th = threads[i];
        if (th->buf && th->cap > th->pos + GUARD) {
            base[n] = th->buf + th->pos + GUARD;
            len[n++] = (th->cap - th->pos - GUARD) * sizeof(st_event_t);
        }
        uint64_t h = __atomic_load_n(&th->hand, __ATOMIC_ACQUIRE);
        st_event_t *other = th->bufs[!ST_HAND_CUR(h)];
        if (n < ST_MEM_REGIONS && other && other != th->buf && ST_HAND_PENDING(h) == 0 &&
            th->limit > th->pos + GUARD) {
            base[n] = other;
            len[n++] = th->cap * sizeof(st_event_t);
        }
    }
    st_mem_lend(base, len, n);
}

void st_lc_return_idle_buffers(void)
{
    st_log_debug("CLC: %zu bytes of idle event buffers used", st_mem_return());
}

/* The call tree (SYNCTRACE_CALLPATH) into rd, then the texts of call sites and call-path frames. */
void st_lc_collect_callpaths(st_rankdata_t *rd)
{
    if (st_config.callpath && st_callpath_collect(rd) != 0)
        st_log_error("out of memory copying the call paths; the archive has none");
    if (st_config.callsite || rd->ncpnodes)
        st_callsite_resolve(rd);
}
